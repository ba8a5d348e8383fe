"""The ``balance`` command line: parse, call the library, print. No logic of its own.

Every error a user can cause prints one line ``error: <message>`` to stderr and exits 1.
Library modules are imported inside the commands so that ``balance --help`` stays fast.
"""

from __future__ import annotations

import contextlib
import sys
import types
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import typer
import yaml
from pydantic import BaseModel
from pydantic_core import to_jsonable_python
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text
from typer.core import TyperGroup

import balance

try:  # typer >= 0.20 ships its own copy of click
    from typer._click.exceptions import ClickException
except ImportError:  # pragma: no cover - older typer on top of click
    from click.exceptions import ClickException


class _OneLineErrors(TyperGroup):
    """Usage errors (bad option values, unknown commands) print one line, like every other error."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except ClickException as e:
            if not standalone_mode:
                raise
            if type(e).__name__ == "NoArgsIsHelpError":  # plain `balance`: the help, not an error
                e.show()
                sys.exit(0)
            _error(e.format_message())
            # `check` is a CI gate: exit 1 means "balance broke", so its usage errors exit 2.
            words = [a for a in (sys.argv[1:] if args is None else args) if not a.startswith("-")]
            sys.exit(2 if words[:1] == ["check"] else 1)
        except typer.Abort:
            if not standalone_mode:
                raise
            _error("aborted")
            sys.exit(1)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)  # an int here is an Exit code


app = typer.Typer(
    cls=_OneLineErrors,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,  # locals of a crashed kernel are huge arrays
    help="Game-balance analytics: play millions of games from a YAML config and measure balance.",
)


def _error(message: object) -> None:
    typer.echo(f"error: {message}", err=True)


@contextlib.contextmanager
def _user_errors() -> Iterator[None]:
    """Errors a user can cause (bad config, options, paths) -> one line on stderr, exit 1."""
    from balance.config import ConfigError
    from balance.results import ResultsError
    from balance.runner import RunnerError

    try:
        yield
    except (ConfigError, RunnerError, ResultsError) as e:
        _error(e)
        raise typer.Exit(1) from None
    except OSError as e:
        _error(f"{e.filename}: {e.strerror}" if e.filename else e)
        raise typer.Exit(1) from None


def _load(path: Path) -> Any:
    from balance.config import load_config

    return load_config(path)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"balance {balance.__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Game-balance analytics: play millions of games from a YAML config and measure balance."""


ConfigArg = Annotated[Path, typer.Argument(help="YAML config file.", show_default=False)]


@app.command()
def simulate(
    config: ConfigArg,
    games: Annotated[
        int | None, typer.Option(help="Games to play (default: the config's).")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Run seed (default: the config's).")] = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Results directory (default: results/<config stem>-<date>-<time>)."),
    ] = None,
    threads: Annotated[int | None, typer.Option(help="Threads (default: all cores).")] = None,
    chunk_size: Annotated[int, typer.Option(help="Games per chunk (one parquet part).")] = 65536,
    force: Annotated[
        bool, typer.Option("--force", help="Replace --out if it holds an earlier run.")
    ] = False,
    report_file: Annotated[
        Path | None,
        typer.Option(
            "--report",
            help="Also write an HTML report of the run to this file (after playing the game's "
            "report variants, if any, on the same games: RESULTS/variants.json).",
        ),
    ] = None,
) -> None:
    """Play the games of CONFIG and write one row per game and seat to a results directory."""
    from balance import runner

    with _user_errors():
        cfg = _load(config)
        if report_file is not None:
            _check_report(report_file)  # before the run, not after minutes of it
        out = out or Path("results") / f"{config.stem}-{datetime.now():%Y%m%d-%H%M%S}"
        try:
            with _progress_bar() as progress:
                summary = runner.run(
                    cfg,
                    config_path=config,
                    out=out,
                    games=games,
                    seed=seed,
                    threads=threads,
                    chunk_size=chunk_size,
                    force=force,
                    progress=progress,
                )
        except KeyboardInterrupt:
            typer.echo(f"interrupted: kept {_games_kept(out):,} complete games in {out}", err=True)
            raise typer.Exit(130) from None
    typer.echo(
        f"{summary.games_done:,} games in {summary.wall_time_s:.2f} s "
        f"({summary.games_per_s:,.0f} games/s), {summary.rows:,} rows -> {summary.out}"
    )
    if report_file is not None:
        impact_file = _report_variants(cfg, config, summary, threads)
        _write_report([summary.out], out=report_file, impact=impact_file)


def _report_variants(cfg: Any, config: Path, summary: Any, threads: int | None) -> Path | None:
    """Play the game's report variants (e.g. The Raven Order without the second player's
    compensation) on the run's seed and games, into ``<results>/variants.json``."""
    from balance import experiments
    from balance import games as registry

    chosen = experiments.report_variants(registry.get(cfg.game), cfg)
    if not chosen:
        return None
    path = Path(summary.out) / experiments.REPORT_VARIANTS_FILE
    with _user_errors():
        typer.echo(f"report variants: {', '.join(v.name for v in chosen)} on the same games")
        with _progress_bar() as progress:
            result = experiments.impact(
                cfg,
                chosen,
                config_path=str(config),
                variants_source=f"{cfg.game} report variants",
                games=summary.games_done,
                seed=summary.seed,
                threads=threads,
                progress=progress,
            )
        experiments.write_impact(result, path)
    return path


@app.command()
def validate(
    configs: Annotated[list[Path], typer.Argument(help="YAML config files.", show_default=False)],
) -> None:
    """Check config files without playing: `ok` or the error for each; exit 1 if any is invalid."""
    invalid = 0
    for path in configs:
        try:
            with _user_errors():
                cfg = _load(path)
        except typer.Exit:
            invalid += 1
            continue
        seats = ", ".join(cfg.seats)
        typer.echo(f"ok: {path} ({cfg.game}, {cfg.players} players, seats: {seats})")
    if invalid:
        raise typer.Exit(1)


@app.command("games")
def list_games(
    name: Annotated[str | None, typer.Argument(help="Show only this game.")] = None,
) -> None:
    """List the games and every knob of their configs: rules and policy settings, with defaults."""
    from balance import games as registry

    names = registry.names()
    if name is not None and name not in names:
        _error(f"unknown game {name!r}; known games: {', '.join(names)}")
        raise typer.Exit(1)
    for i, game in enumerate([name] if name else names):
        typer.echo(("\n" if i else "") + "\n".join(_describe_game(registry.get(game))))


@app.command()
def replay(
    config: ConfigArg,
    game: Annotated[int, typer.Option("--game", help="Game index (0 = first game of the run).")],
    seed: Annotated[int | None, typer.Option(help="Run seed (default: the config's).")] = None,
) -> None:
    """Print one game of CONFIG's run turn by turn: same seed and index, same game."""
    from balance import runner

    with _user_errors():
        lines = runner.narrate(_load(config), game=game, seed=seed)
    for line in lines:
        typer.echo(line)


# `balance bench` is registered here (balance/bench.py; see noxfile.py session "bench").


@app.command()
def bench(
    game: Annotated[str, typer.Argument(help="Game to measure (see `balance games`).")],
    games: Annotated[
        int,
        typer.Option(
            help="Games per repeat for the headline line-up (most players, the base config's "
            "policy); other line-ups play at most this, about 2 s of work."
        ),
    ] = 1_000_000,
    threads: Annotated[
        int | None, typer.Option(help="Threads for the all-threads rows (default: all cores).")
    ] = None,
    python_games: Annotated[
        int, typer.Option(help="Games for the plain-Python (NUMBA_DISABLE_JIT=1) run; 0 skips it.")
    ] = 200,
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Also write every figure to this JSON file.")
    ] = None,
    config: Annotated[
        Path | None, typer.Option(help="Base config (default: configs/GAME/base.yaml).")
    ] = None,
    repeats: Annotated[int, typer.Option(help="Repeats per measurement; the best counts.")] = 3,
    cold: Annotated[
        bool,
        typer.Option("--cold/--no-cold", help="Measure compiling from scratch (about a minute)."),
    ] = True,
) -> None:
    """Measure GAME on this machine: compile and start-up times, games/s, plain-Python ratio."""
    from balance import bench as bench_lib

    err = Console(stderr=True)
    with _user_errors():
        try:
            with contextlib.ExitStack() as stack:
                say = None
                if err.is_terminal:
                    status = stack.enter_context(err.status("benchmarking"))
                    say = status.update
                result = bench_lib.run(
                    game,
                    config=config,
                    games=games,
                    threads=threads,
                    python_games=python_games,
                    repeats=repeats,
                    cold=cold,
                    progress=say,
                )
        except bench_lib.BenchError as e:
            _error(e)
            raise typer.Exit(1) from None
        if json_file is not None:
            bench_lib.write_json(result, json_file)
    out = Console()
    if not out.is_terminal:
        out.width = max(out.width, 120)
    out.print(_bench_table(result))
    if result.targets:
        out.print(_bench_targets(result))
    if json_file is not None:
        out.print(f"figures -> {json_file}", highlight=False)


def _bench_table(result: Any) -> Any:
    from rich.table import Table

    from balance import bench as bench_lib

    def num(value: float | None, digits: int = 0) -> str:
        return "-" if value is None else f"{value:,.{digits}f}"

    table = Table(title=f"balance bench {result.game} ({result.title}, {result.config})")
    for name in ("measurement", "games", "seconds", "games/s", "ns/game", "ratio"):
        table.add_column(name, justify="left" if name in ("measurement", "ratio") else "right")
    s = result.startup
    first = (
        f"start to first chunk of {s.first_chunk_games:,} games (~{s.first_chunk_play_s:.2f} s "
        f"of play) - imports ({s.imports_s:.2f} s)"
    )
    cold = "skipped (--no-cold)" if s.cold_s is None else first
    table.add_row("compile, cold (empty cache)", "", num(s.cold_s, 2), "", "", cold)
    table.add_row("compile, warm (cache)", "", num(s.warm_s, 2), "", "", first)
    table.add_row(
        "warm start: balance simulate",
        f"{bench_lib.CLI_GAMES:,}",
        num(s.cli_warm_start_s, 2),
        "",
        "",
        f"wall time of `simulate <config> --games {bench_lib.CLI_GAMES}`",
    )
    for r in result.throughput:
        ratio = "" if r.speedup is None else f"{r.speedup:.2f}x 1 thread"
        table.add_row(
            f"{r.lineup}, {r.threads} thread{'s' if r.threads > 1 else ''}",
            f"{r.games:,}",
            num(r.seconds, 2),
            num(r.games_per_s),
            num(r.ns_per_game),
            ratio,
        )
    p = result.python
    if p is None:
        table.add_row("plain Python (NUMBA_DISABLE_JIT=1)", "", "", "", "", "skipped")
    else:
        table.add_row(
            f"{p.lineup}, plain Python, 1 thread",
            f"{p.games:,}",
            num(p.seconds, 2),
            num(p.games_per_s),
            num(p.ns_per_game),
            f"compiled 1 thread = {p.ratio:,.0f}x plain Python",
        )
    return table


def _bench_targets(result: Any) -> Any:
    from rich.table import Table

    table = Table(title=f"targets for {result.title}")
    for name in ("target", "measured", "required", "met"):
        table.add_column(name, justify="right" if name in ("measured", "required") else "left")
    for t in result.targets:
        digits = 2 if t.unit == "s" else 0
        measured = "-" if t.measured is None else f"{t.measured:,.{digits}f} {t.unit}"
        required = f"{'>=' if t.at_least else '<='} {t.threshold:,.{digits}f} {t.unit}"
        met = "not measured" if t.met is None else "yes" if t.met else "NO"
        table.add_row(t.label, measured, required, met)
    return table


# `balance impact`, `balance compare` and `balance check` (balance/experiments.py; README section
# "Statistics, comparisons and the CI balance gate").

GamesOpt = Annotated[
    int | None, typer.Option(help="Games per config, paired (default: the config's).")
]
SeedOpt = Annotated[int | None, typer.Option(help="Run seed (default: the config's).")]
ThreadsOpt = Annotated[int | None, typer.Option(help="Threads (default: all cores).")]


@app.command()
def impact(
    config: ConfigArg,
    games: GamesOpt = None,
    seed: SeedOpt = None,
    variants: Annotated[
        Path | None,
        typer.Option(
            help="YAML list of {name, description, patch} to measure instead of the game's "
            "default variants (one per card)."
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Also write the full table to FILE.json or FILE.parquet.")
    ] = None,
    threads: ThreadsOpt = None,
) -> None:
    """Causal card impact: CONFIG and one variant per card on the same seeds, paired game by game."""
    from balance import experiments
    from balance import games as registry

    with _user_errors():
        if out is not None:
            experiments.check_impact_out(out)
        cfg = _load(config)
        if variants is not None:
            chosen = experiments.load_variants(variants)
            source = str(variants)
        else:
            chosen = experiments.default_variants(registry.get(cfg.game), cfg)
            source = f"{cfg.game} default variants"
            if not chosen:
                raise experiments.RunnerError(
                    f"{cfg.game} proposes no default variants; pass --variants FILE.yaml"
                )
        with _progress_bar() as progress:
            result = experiments.impact(
                cfg,
                chosen,
                config_path=str(config),
                variants_source=source,
                games=games,
                seed=seed,
                threads=threads,
                progress=progress,
            )
        if out is not None:
            experiments.write_impact(result, out)
    level = f"{result.level * 100:g} %"
    typer.echo(
        f"impact on {result.config_path}: variant - base, {result.games:,} paired games "
        f"(seed {result.seed}), {len(result.variants)} variants in {result.wall_time_s:.1f} s"
    )
    _print_table(_impact_table(result))
    typer.echo(
        f"Change in win share (points) and in mean turns ± the {level} half-width (t-interval "
        "over games), sorted by the largest change; * win share: Benjamini-Hochberg q < 0.05 "
        "over the whole table; turns: the interval excludes 0."
    )
    if out is not None:
        typer.echo(f"table -> {out}")


@app.command()
def compare(
    a: Annotated[Path, typer.Argument(help="Config A (the reference).", show_default=False)],
    b: Annotated[Path, typer.Argument(help="Config B (the change).", show_default=False)],
    games: GamesOpt = None,
    seed: Annotated[int | None, typer.Option(help="Run seed (default: A's).")] = None,
    threads: ThreadsOpt = None,
    report_file: Annotated[
        Path | None,
        typer.Option("--report", help="Also write the comparison as an HTML page to this file."),
    ] = None,
    cdn: Annotated[
        bool,
        typer.Option(
            "--cdn",
            help="With --report: load plotly.js from its CDN (small file, needs the network) "
            "instead of inlining it.",
        ),
    ] = False,
) -> None:
    """Run A and B on the same seeds and show what changed: B - A per seat, place, policy, team."""
    from balance import experiments

    if cdn and report_file is None:
        _error("--cdn needs --report FILE")
        raise typer.Exit(1)
    with _user_errors():
        cfg_a, cfg_b = _load(a), _load(b)
        if report_file is not None:
            _check_report(report_file)  # before the games, not after them
        with _progress_bar() as progress:
            result = experiments.compare(
                cfg_a,
                cfg_b,
                a_path=str(a),
                b_path=str(b),
                games=games,
                seed=seed,
                threads=threads,
                progress=progress,
            )
    typer.echo(
        f"compare A = {result.a_path}, B = {result.b_path}: {result.games:,} paired games "
        f"(seed {result.seed}) in {result.wall_time_s:.1f} s"
    )
    _print_table(_compare_table(result))
    typer.echo(
        f"B - A with its {result.level * 100:g} % t-interval over games (paired: same seeds); "
        "* the interval excludes 0."
    )
    if report_file is not None:
        from balance.report import ReportError, write_comparison

        try:
            info = write_comparison(result, out=report_file, cdn=cdn)
        except ReportError as e:
            _error(e)
            raise typer.Exit(1) from None
        typer.echo(f"report -> {info.path} ({info.bytes / 1e6:.1f} MB, {info.seconds:.1f} s)")


@app.command()
def check(
    spec: Annotated[Path, typer.Argument(help="Check spec (YAML).", show_default=False)],
    junit: Annotated[
        Path | None, typer.Option(help="Also write the verdicts as JUnit XML to this file.")
    ] = None,
    threads: ThreadsOpt = None,
) -> None:
    """CI balance gate: decide each claim of SPEC with sequential tests (as few games as needed).

    Exit 0: every assertion passes; 1: one fails; 2: a bad spec, config or option (one line).
    """
    from balance import experiments
    from balance.config import ConfigError
    from balance.runner import RunnerError

    try:
        parsed = experiments.load_spec(spec)
        result = experiments.check(parsed, spec_path=spec, threads=threads)
        if junit is not None:
            junit.write_text(experiments.junit_xml(result))
    except (ConfigError, RunnerError) as e:
        _error(e)
        raise typer.Exit(2) from None
    except OSError as e:
        _error(f"{e.filename}: {e.strerror}" if e.filename else e)
        raise typer.Exit(2) from None
    for a in result.assertions:
        typer.echo(experiments.format_line(a, result.level))
    n = result.counts()
    typer.echo(
        f"check: {n['PASS']} PASS, {n['FAIL']} FAIL, {n['INCONCLUSIVE']} INCONCLUSIVE "
        f"(alpha {result.alpha:g}, beta {result.beta:g}); {result.games:,} games in "
        f"{result.wall_time_s:.1f} s -> {'ok' if result.passed else 'FAILED'}"
        + (f"; JUnit -> {junit}" if junit is not None else "")
    )
    if not result.passed:
        raise typer.Exit(1)


@app.command()
def report(
    results: Annotated[
        list[Path],
        typer.Argument(help="Results directories (one section each).", show_default=False),
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="HTML file to write, e.g. reports/NAME.html.")
    ],
    baseline: Annotated[
        Path | None,
        typer.Option(
            help="Results directory to compare with (paired game by game when it ran the same "
            "seed and games)."
        ),
    ] = None,
    impact: Annotated[
        Path | None,
        typer.Option(help="Interventional impact file written by `balance impact --out`."),
    ] = None,
    cdn: Annotated[
        bool,
        typer.Option(
            "--cdn",
            help="Load plotly.js from its CDN (small file, needs the network) instead "
            "of inlining it.",
        ),
    ] = False,
) -> None:
    """Write one self-contained HTML report of RESULTS: provenance, win shares, seat advantage,
    score and length distributions, card impact, and differences against --baseline."""
    _write_report(results, out=out, baseline=baseline, impact=impact, cdn=cdn)


def _check_report(out: Path) -> None:
    from balance.report import ReportError, check_output

    try:
        check_output(out)
    except ReportError as e:
        _error(e)
        raise typer.Exit(1) from None


def _write_report(results: list[Path], *, out: Path, **options: Any) -> None:
    from balance.report import ReportError, write_report

    with _user_errors():
        try:
            info = write_report(results, out=out, **options)
        except ReportError as e:
            _error(e)
            raise typer.Exit(1) from None
    typer.echo(
        f"report -> {info.path} ({info.bytes / 1e6:.1f} MB; statistics {info.stats_seconds:.1f} s, "
        f"total {info.seconds:.1f} s)"
    )


# ---- presentation helpers -------------------------------------------------------------------


class _RateColumn(ProgressColumn):
    def render(self, task: Any) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f} games/s" if speed else "- games/s", style="progress.data.speed")


@contextlib.contextmanager
def _progress_bar() -> Iterator[Callable[[int, int], None]]:
    """A progress callback for runner.run; draws on stderr only when it is a terminal."""
    console = Console(stderr=True)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _RateColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, disable=not console.is_terminal) as bar:
        # Until the first report the kernels load from numba's cache, or compile on the first
        # run after an install or upgrade, which takes about a minute: say so, not a frozen bar.
        task = bar.add_task("loading kernels (first run compiles, ~1 min)", total=None)
        started = False

        def update(done: int, total: int) -> None:
            nonlocal started
            if not started:  # rate and ETA start with the games, not with the compile
                bar.reset(task, total=total, description="simulating")
                started = True
            bar.update(task, completed=done)

        yield update


def _games_kept(out: Path) -> int:
    from balance.results import ResultsError, read_manifest

    try:
        return int(read_manifest(out)["games_done"])
    except (ResultsError, KeyError, ValueError):
        return 0


def _describe_game(plugin: Any) -> list[str]:
    lines = [
        f"{plugin.name}: {plugin.title}, {plugin.min_players}-{plugin.max_players} players",
        f"  end reasons: {', '.join(plugin.end_reasons)}",
        f"  ready-made policies: {', '.join(plugin.default_policies)}",
        "  rules:",
        *_describe_model(plugin.rules_model, indent="    "),
    ]
    for kind, model in plugin.policy_kinds.items():
        lines += [f"  policies.<name> (kind: {kind}):", *_describe_model(model, indent="    ")]
    return lines


def _describe_model(model: type[BaseModel], *, indent: str, prefix: str = "") -> Iterator[str]:
    """Every field of ``model`` as ``path: type = default`` and its description; nested models
    (also inside a dict or list) are flattened to dotted paths, e.g. ``relics.<name>.count``."""
    for name, field in model.model_fields.items():
        path = prefix + name
        ann = _strip(field.annotation)
        if _is_model(ann):  # a section: its description, then its fields
            if field.description:
                yield f"{indent}{path}:"
                yield f"{indent}    {field.description}"
            yield from _describe_model(ann, indent=indent, prefix=path + ".")
            continue
        limits = [
            f"{symbol} {getattr(m, attr)}"
            for m in field.metadata
            for attr, symbol in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<"))
            if getattr(m, attr, None) is not None
        ]
        type_ = _type_name(ann) + (f" ({', '.join(limits)})" if limits else "")
        default = _default(field)
        if len(default) > 120:  # a whole table (Raven Order's buildings, runes): its keys
            factory = field.default_factory
            value = factory() if callable(factory) else field.default
            keys = ", ".join(str(k) for k in value) if isinstance(value, dict) else ""
            default = f"{{{keys}}} (each with the fields below)" if keys else default[:117] + "..."
        yield f"{indent}{path}: {type_} = {default}"
        if field.description:
            yield f"{indent}    {field.description}"
        item = _strip(get_args(ann)[-1]) if get_origin(ann) in (dict, list) else None
        if _is_model(item):
            inner = f"{path}.<name>." if get_origin(ann) is dict else f"{path}[i]."
            yield from _describe_model(item, indent=indent, prefix=inner)


def _strip(tp: Any) -> Any:
    """``tp`` without Annotated metadata and without ``| None``."""
    while True:
        if get_origin(tp) is Annotated:
            tp = get_args(tp)[0]
        elif get_origin(tp) in (Union, types.UnionType) and type(None) in get_args(tp):
            rest = [a for a in get_args(tp) if a is not type(None)]
            if len(rest) != 1:
                return tp
            tp = rest[0]
        else:
            return tp


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _type_name(tp: Any) -> str:
    """A type as a designer reads it: ``int``, ``list[str]``, ``'chest' | 'gem'``."""
    origin, args = get_origin(tp), get_args(tp)
    if origin is Annotated:
        return _type_name(args[0])
    if origin is Literal:
        return " | ".join(repr(a) for a in args)
    if origin in (Union, types.UnionType):
        return " | ".join(_type_name(a) for a in args)
    if origin is not None:
        return f"{getattr(origin, '__name__', origin)}[{', '.join(_type_name(a) for a in args)}]"
    return "None" if tp is type(None) else getattr(tp, "__name__", str(tp))


def _default(field: Any) -> str:
    """The default as it would be written in YAML (flow style)."""
    if field.is_required():
        return "(required)"
    try:
        value = field.get_default(call_default_factory=True, validated_data={})
    except TypeError:  # pragma: no cover - pydantic < 2.10
        value = field.get_default(call_default_factory=True)
    text = yaml.safe_dump(_plain(value), default_flow_style=True, sort_keys=False, width=10**9)
    return text.removesuffix("\n").removesuffix("\n...").strip()


def _plain(value: Any) -> Any:
    """``value`` as YAML-safe data, keeping int mapping keys (``{2: 8}``, not ``{'2': 8}``)."""
    if isinstance(value, BaseModel):
        value = dict(value)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return to_jsonable_python(value)


# ---- impact / compare tables ----------------------------------------------------------------


def _print_table(table: Any) -> None:
    """A rich table on stdout without trailing blanks; in a log or a pipe, one line per row
    however many columns."""
    console = Console()
    if not console.is_terminal:
        console.width = max(console.width, 200)
    with console.capture() as capture:
        console.print(table)
    lines = [line.rstrip() for line in capture.get().splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    typer.echo("\n".join(lines))


def _pp(diff: float, lo: float, hi: float, significant: bool) -> str:
    """A change in win share, in percentage points, with its interval half-width."""
    return f"{diff * 100:+.2f}±{(hi - lo) * 50:.2f}" + ("*" if significant else " ")


def _impact_table(result: Any) -> Any:
    import polars as pl
    from rich import box
    from rich.table import Table

    line = result.lineup
    shares = result.table.filter(pl.col("metric") == "win_share")
    columns = [("seat", str(s), f"seat {s}") for s in range(line.players)]
    columns.append(("order", "0", "1st player"))
    if len(line.policies) > 1:
        columns += [("policy", p, p) for p in line.policies]
    if not line.teams_are_seats:
        columns += [("team", t, f"team {t}") for t in line.teams]
    columns += [("role", r, f"role {r}") for r in line.roles]
    cells = {
        (r["variant"], r["kind"], r["group"]): _pp(r["diff"], r["lo"], r["hi"], r["flagged"])
        for r in shares.iter_rows(named=True)
    }
    table = Table(box=box.SIMPLE_HEAD)
    table.add_column("variant", no_wrap=True)
    for _, _, header in columns:
        table.add_column(header, justify="right", no_wrap=True)
    table.add_column("turns", justify="right", no_wrap=True)
    for r in result.summary.iter_rows(named=True):
        sig_t = not (r["turns_lo"] <= 0 <= r["turns_hi"])
        turns = f"{r['turns_diff']:+.2f}±{(r['turns_hi'] - r['turns_lo']) / 2:.2f}"
        table.add_row(
            r["variant"],
            *(cells.get((r["variant"], k, g), "-") for k, g, _ in columns),
            turns + ("*" if sig_t else " "),
        )
    return table


def _compare_table(result: Any) -> Any:
    from rich import box
    from rich.table import Table

    skip_teams = result.a_lineup.teams_are_seats and result.b_lineup.teams_are_seats
    level = f"{result.level * 100:g} %"
    table = Table(box=box.SIMPLE_HEAD)
    for name in ("metric", "group", "A", "B", "B - A", f"{level} interval", ""):
        table.add_column(name, justify="left" if name in ("metric", "group", "") else "right")
    names = {"win_share": "win share", "mean_score": "mean score", "mean_turns": "mean turns"}
    for r in result.table.iter_rows(named=True):
        if skip_teams and r["kind"] == "team":
            continue
        if r["metric"] == "win_share":
            a, b = f"{r['a'] * 100:.2f} %", f"{r['b'] * 100:.2f} %"
            d = f"{r['diff'] * 100:+.2f} pt"
            ci = f"[{r['lo'] * 100:+.2f}, {r['hi'] * 100:+.2f}]"
        else:
            a, b, d = f"{r['a']:.3f}", f"{r['b']:.3f}", f"{r['diff']:+.3f}"
            ci = f"[{r['lo']:+.3f}, {r['hi']:+.3f}]"
        group = "all games" if r["kind"] == "game" else f"{r['kind']} {r['group']}"
        if r["kind"] == "order":
            group = "1st player" if r["group"] == "0" else f"order {r['group']}"
        table.add_row(names[r["metric"]], group, a, b, d, ci, "*" if r["significant"] else "")
    return table


if __name__ == "__main__":  # `python -m balance.cli ...` works like the `balance` command
    app()
