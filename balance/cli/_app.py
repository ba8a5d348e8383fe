"""The ``balance`` command line: parse, call the library, print. No logic of its own.

Every error a user can cause (a ``BalanceError`` from the library, a file it cannot read or
write, a bad option) prints one line ``error: <message>`` to stderr, with no traceback, and exits
with the command's code: 1, or 2 for ``balance check``, whose 1 means "balance broke". One
handler does it for every command (``_Command.invoke``, and ``_OneLineErrors`` for usage errors).
Ctrl-C exits 130 without a traceback, from the first import on.
Tables and progress bars are drawn by balance/terminal.py. Library modules are imported inside
the commands so that ``balance --help`` stays fast.
"""

from __future__ import annotations

import signal
import sys
import threading


def _exit_130(signum: int, frame: object) -> None:
    from balance.errors import stop_exit_code

    raise SystemExit(stop_exit_code())  # 130 after Ctrl-C; 143, 129 after SIGTERM, SIGHUP


# Ctrl-C during the imports below (a fifth of a second) would print the traceback of whichever
# import it hit: exit 130 quietly instead, as typer does once a command runs. (CPython may drop
# the exception of a signal handler that runs inside compile(), while an import compiles a
# changed file: that Ctrl-C is lost, the next one works.)
_QUIET_SIGINT = (
    threading.current_thread() is threading.main_thread()
    and signal.getsignal(signal.SIGINT) is signal.default_int_handler
)
if _QUIET_SIGINT:
    signal.signal(signal.SIGINT, _exit_130)
try:
    import contextlib
    import os
    from pathlib import Path
    from typing import Annotated, Any

    import typer
    from rich.console import Console
    from rich.markup import escape
    from typer.core import TyperCommand, TyperGroup

    import balance
    from balance import knobs, terminal
    from balance.errors import (
        BalanceError,
        forget_stops,
        interruptible,
        stop_exit_code,
        stop_name,
        stop_on_terminate,
    )

    try:  # typer >= 0.20 ships its own copy of click
        from typer._click.exceptions import ClickException
    except ImportError:  # pragma: no cover - older typer on top of click
        from click.exceptions import ClickException
finally:
    if _QUIET_SIGINT:  # exiting on Ctrl-C: ignore another one; else back to KeyboardInterrupt
        exiting = sys.exc_info()[0] is SystemExit
        signal.signal(signal.SIGINT, signal.SIG_IGN if exiting else signal.default_int_handler)


def _error(message: object) -> None:
    typer.echo(f"error: {message}", err=True)


def _one_line(e: BaseException) -> str:
    if isinstance(e, OSError) and e.filename:
        return f"{e.filename}: {e.strerror}"
    return str(e)


def _plain_metavars(params: list[Any]) -> list[Any]:
    """``params`` with help that shows click's plain metavars (``PATH``, ``INTEGER``; nothing for
    a flag) instead of typer's Python types (``<path>``, ``<bool>``, ``<list[Path]>``)."""
    for param in params:
        if getattr(param, "_plain_metavar", False) or not hasattr(param, "display_type"):
            continue
        param._plain_metavar = True
        param.display_type_rich = _plain_display(param)
    return params


def _plain_display(param: Any) -> Any:
    def display(ctx: Any) -> str | None:
        is_argument = param.param_type_name == "argument"
        if param.metavar is not None:  # an option's value name; an argument's is its name
            return None if is_argument else param.metavar
        if getattr(param, "is_flag", False) or getattr(param, "is_bool_flag", False):
            return None
        label = param.display_type(ctx)  # typer's, e.g. "<list[Path]>"
        inner = label.strip("<>")
        many = inner.startswith("list[") or param.nargs != 1
        inner = inner.removeprefix("list[").removesuffix("]")
        word = _PLAIN.get(inner.lower(), inner.upper())
        return word + ("..." if many and not is_argument else "")

    return display


_PLAIN = {
    "int": "INTEGER",
    "float": "FLOAT",
    "str": "TEXT",
    "bool": "BOOLEAN",
    "path": "PATH",
    "file": "FILE",
    "directory": "DIR",
}


class _Command(TyperCommand):
    """A command whose user errors are one line on stderr and exit ``error_exit_code``; its help
    shows plain metavars (:func:`_plain_metavars`) and ends with its examples (``EXAMPLES``)."""

    error_exit_code = 1

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain_metavars(super().get_params(ctx))

    def invoke(self, ctx: Any) -> Any:
        forget_stops()
        try:
            with interruptible():  # Ctrl-C stays a KeyboardInterrupt
                return super().invoke(ctx)
        except KeyboardInterrupt:  # Ctrl-C, SIGTERM or SIGHUP: 130, 143 or 129
            raise typer.Exit(stop_exit_code()) from None
        except BrokenPipeError:  # `balance ... | head`: the reader has gone; nothing to say
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # so that Python's final flush is quiet too
            raise typer.Exit(1) from None
        except (BalanceError, OSError) as e:
            _error(_one_line(e))
            raise typer.Exit(self.error_exit_code) from None
        except BaseException as e:  # polars' PanicException is a BaseException
            damaged = _damaged_part(e)
            if damaged is None:
                raise
            _error(damaged)
            raise typer.Exit(self.error_exit_code) from None


def _damaged_part(e: BaseException) -> Exception | None:
    """For a polars error while collecting a results dataset's rows: the ResultsError naming the
    part that does not decode (a damaged page shows only then, and polars does not name the
    file); None for any other error."""
    pl = sys.modules.get("polars")
    if pl is None or not (
        isinstance(e, pl.exceptions.PolarsError) or type(e).__name__ == "PanicException"
    ):
        return None
    from balance.results import find_damaged

    return find_damaged()


class _GateCommand(_Command):
    """``balance check``: a CI gate, where exit 1 means "balance broke"; its errors exit 2."""

    error_exit_code = 2


class _OneLineErrors(TyperGroup):
    """Usage errors (bad option values, unknown commands) print one line, like every other error,
    with the exit code of the command they belong to."""

    _command: Any = None  # the subcommand being parsed or run (its error code)

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain_metavars(super().get_params(ctx))

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name, cmd, rest = super().resolve_command(ctx, args)
        self._command = cmd
        return name, cmd, rest

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if signal.getsignal(signal.SIGINT) is _exit_130:  # from _App.__call__: commands built
            signal.signal(signal.SIGINT, signal.default_int_handler)
        self._command = None
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except ClickException as e:
            if not standalone_mode:
                raise
            if type(e).__name__ == "NoArgsIsHelpError":  # plain `balance`: the help, not an error
                e.show()
                sys.exit(0)
            _error(e.format_message())
            ctx = getattr(e, "ctx", None)
            command = ctx.command if ctx is not None else self._command
            sys.exit(getattr(command, "error_exit_code", 1))
        except typer.Abort:
            if not standalone_mode:
                raise
            _error("aborted")
            sys.exit(1)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)  # an int here is an Exit code


INTERRUPTED = 130  # the exit code after Ctrl-C (128 + SIGINT, what shells report); after SIGTERM
# or SIGHUP, which stop a command the same way, 143 or 129 (balance.errors.stop_exit_code)


class _App(typer.Typer):
    """The ``balance`` program (the console script and ``python -m balance`` call it; tests call
    the commands directly). Ctrl-C while typer builds the commands (it evaluates every option's
    annotation, a tenth of a second) exits 130 quietly, as during the imports; and once a command
    is done, Ctrl-C no longer changes how the process ends."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _QUIET_SIGINT and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _exit_130)  # until _OneLineErrors.main starts
        stop_on_terminate()  # SIGTERM and SIGHUP stop a command as Ctrl-C does
        try:
            return super().__call__(*args, **kwargs)
        except SystemExit:
            _ending()
            raise
        except KeyboardInterrupt:  # outside any command's handling
            _ending()
            raise SystemExit(stop_exit_code()) from None


def _stopped() -> str:
    """``interrupted`` (Ctrl-C), or ``interrupted by SIGTERM`` / ``by SIGHUP``."""
    name = stop_name()
    return "interrupted" if name == "SIGINT" else f"interrupted by {name}"


def _ending() -> None:
    """The process exits with its command's code. A Ctrl-C now, while Python shuts down (joining
    threads, atexit, freeing modules), would print a traceback or kill the process by SIGINT
    instead: ignore it. And a KeyboardInterrupt that passed through an ``eval`` or ``exec`` of a
    string (typer evaluates annotations, numba runs generated code) makes CPython end ``python -m
    balance`` by SIGINT even though it was caught; a successful string eval clears that mark, so
    that the exit code is the command's."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    eval("None")


app = _App(
    cls=_OneLineErrors,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,  # locals of a crashed kernel are huge arrays
    help="Game-balance analytics: play millions of games from a YAML config and measure balance.",
)
# The examples that end each command's help: runnable as written from the repository root (a
# results directory named here is the one an earlier example wrote). tests/test_cli_polish.py
# parses every one of them.
EXAMPLES: dict[str, list[str]] = {
    "simulate": [
        "balance simulate configs/five_ravens/base.yaml --games 100000 --out results/five_ravens",
        "balance simulate configs/raven_order/base.yaml --games 20000 "
        "--report results/raven_order.html",
        "balance simulate configs/five_ravens/base.yaml --set players=3 "
        "--set rules.relics.gem.count=3 --games 50000 --out results/five_ravens_3p",
        "balance simulate --resume results/five_ravens",
        "balance simulate configs/five_ravens/base.yaml --games 1000000 --backend ray "
        "--address 127.0.0.1:6379",
    ],
    "validate": [
        "balance validate configs/five_ravens/base.yaml configs/raven_order/base.yaml",
        "balance validate configs/five_ravens/base.yaml --set players=2 "
        "--set 'seats={first: random, rest: greedy}'",
    ],
    "games": ["balance games", "balance games five_ravens"],
    "verify": ["balance verify results/five_ravens"],
    "replay": [
        "balance replay configs/five_ravens/base.yaml --game 3",
        "balance replay results/five_ravens --game 12",
        "balance replay configs/corvids/base.yaml --game 0 --html corvids-game0.html",
    ],
    "bench": ["balance bench raven_order --no-cold --games 300000"],
    "impact": ["balance impact configs/five_ravens/base.yaml --games 50000 --out impact.json"],
    "compare": [
        "balance compare configs/five_ravens/base.yaml configs/five_ravens/no_seven.yaml "
        "--games 100000"
    ],
    "check": ["balance check configs/ci/five_ravens.yaml --junit check.xml"],
    "sweep": [
        "balance sweep configs/five_ravens/first_player_edge.yaml --over players=2,3,4 "
        "--games 200000 --out results/five_ravens_players --report results/five_ravens_players.html",
        "balance sweep configs/five_ravens/base.yaml --over rules.relics.gem.count=2..5 "
        "--over players=3,4 --games 20000",
    ],
    "tune": [
        "balance tune configs/five_ravens/base.yaml --param rules.relics.chest_5.value=0..40 "
        "--target mean_score=8 --games 100000 --out configs/five_ravens/chest_5_mean_score_8.yaml",
        "balance tune configs/raven_order/mirror.yaml --param rules.compensation.sentries=0..3 "
        "--param rules.compensation.gold=0..6 --target 'win_share[order=0,decided]=0.5' "
        "--games 300000 --out configs/raven_order/mirror_compensation.yaml",
    ],
    "report": [
        "balance report results/five_ravens",
        "balance report results/five_ravens --impact impact.json -o reports/five_ravens_impact.html",
    ],
}


def command(name: str | None = None, *, cls: type | None = None, **kwargs: Any) -> Any:
    """``app.command`` with the help's examples (``EXAMPLES``) as its epilog (markup escaped:
    rich would take ``win_share[order=0]`` for a style tag and drop it)."""

    def decorate(fn: Any) -> Any:
        lines = [escape(line) for line in EXAMPLES.get(name or fn.__name__, [])]
        epilog = "\n\n".join(["Examples:" if len(lines) > 1 else "Example:", *lines])
        return app.command(name, cls=cls or _Command, epilog=epilog if lines else None, **kwargs)(
            fn
        )

    return decorate


def _load(path: Path, sets: list[str] | None = None) -> Any:
    """The config at ``path`` with the command line's ``--set KEY=VALUE`` overrides applied."""
    from balance.config import load_config
    from balance.overrides import parse_overrides

    return load_config(path, parse_overrides(sets))


def _with_sets(sets: list[str] | None, which: str = "") -> str:
    """What a command's header says of its ``--set`` overrides (nothing without any)."""
    if not sets:
        return ""
    from balance.overrides import parse_overrides

    texts = " --set ".join(o.text for o in parse_overrides(sets))
    return f", {which + ' ' if which else ''}with --set {texts}"


SetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        metavar="KEY=VALUE",
        show_default=False,
        help="Change one value of the config as if the file said it (repeatable; later ones "
        "win): a dotted key path and a YAML value, e.g. players=3, rules.relics.gem.count=3, "
        "seats[1]=random, policies.greedy.action_threshold=0.5, seats={first: random, rest: "
        "greedy}. Validated like the file; recorded in the run's manifest.",
    ),
]


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


ConfigArg = Annotated[
    Path, typer.Argument(help="YAML config file.", show_default=False, metavar="CONFIG")
]

BackendOpt = Annotated[
    str,
    typer.Option(
        "--backend",
        metavar="local|ray",
        help="Where the games are played: local (this process, --threads) or ray (each chunk "
        "a one-CPU task on the Ray cluster at --address; pip install 'balance\\[ray]'). The "
        "same games, value for value, either way.",
    ),
]
AddressOpt = Annotated[
    str | None,
    typer.Option(
        "--address",
        metavar="ADDR",
        show_default=False,
        help="With --backend ray: the cluster's address (host:port of `ray start --head`, or "
        "ray://host:10001). Default: RAY_ADDRESS, else a cluster started on this machine, else "
        "a Ray instance started for this command.",
    ),
]


def _backend(name: str, address: str | None, threads: int | None = None) -> Any:
    """The context in which a command plays its games on ``--backend`` (runner.using_backend)."""
    if name == "local":
        if address is not None:
            raise BalanceError(f"--address {address}: is for --backend ray")
        return contextlib.nullcontext()
    if name != "ray":
        raise BalanceError(f"--backend {name}: expected local or ray")
    if threads is not None:
        raise BalanceError(
            f"--threads {threads}: is for --backend local; on Ray each chunk is a one-CPU task "
            "(size the cluster instead)"
        )
    from balance import ray_backend

    return ray_backend.backend(address)


def _say_backend(info: Any) -> None:
    """A Ray run's cluster, workers and kernel loads, on stderr."""
    if info and info.get("name") == "ray":
        from balance import ray_backend

        typer.echo(ray_backend.describe_line(info), err=True)


def _shown(path: str | os.PathLike[str]) -> str:
    """``path`` as a run records it: relative to the working directory when it lies under it
    (so that manifests and published reports carry no absolute ``/tmp/...`` or home paths),
    else as given."""
    p = Path(path)
    if p.is_absolute():
        with contextlib.suppress(ValueError):
            return str(p.relative_to(Path.cwd()))
    return str(path)


def _interactive() -> bool:
    """Whether a question can be asked: stdin and stdout are a terminal."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _confirm_costs(reasons: list[str], *, yes: bool) -> None:
    """Ask on a terminal before a run that ``reasons`` say is long or large; refuse off one
    unless ``--yes``."""
    if not reasons or yes:
        return
    what = "; ".join(reasons)
    if not _interactive():
        raise BalanceError(f"{what}; pass --yes to run anyway")
    typer.confirm(f"{what}. Run anyway?", abort=True)


@command(cls=_Command)
def simulate(
    config: Annotated[
        Path | None,
        typer.Argument(
            help="YAML config file (with --resume: optional, checked against the run's).",
            show_default=False,
            metavar="CONFIG",
        ),
    ] = None,
    sets: SetOpt = None,
    games: Annotated[
        int | None, typer.Option(help="Games to play (default: the config's).")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Run seed (default: the config's).")] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            metavar="DIR",
            help="Results directory (default: results/<game>-<config stem>-<date>-<time>).",
        ),
    ] = None,
    threads: Annotated[int | None, typer.Option(help="Threads (default: all cores).")] = None,
    chunk_size: Annotated[
        int | None,
        typer.Option(
            help="Games per chunk (one parquet part) \\[default: 65536; --resume: the run's]."
        ),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace --out if it holds an earlier run.")
    ] = False,
    resume: Annotated[
        Path | None,
        typer.Option(
            "--resume",
            metavar="DIR",
            help="Continue the run in DIR (interrupted, killed or failed) from its finished "
            "chunks, with its config, games, seed and chunk size (any given must match its "
            "manifest); the dataset ends as an uninterrupted run's.",
        ),
    ] = None,
    backend: BackendOpt = "local",
    address: AddressOpt = None,
    report_file: Annotated[
        Path | None,
        typer.Option(
            "--report",
            metavar="FILE",
            help="Also write an HTML report of the run to this file (after playing the game's "
            "report variants, if any, on the same games: RESULTS/variants.json).",
        ),
    ] = None,
    yes: Annotated[
        bool,
        typer.Option(
            "--yes",
            "-y",
            help="Run without asking even when the run is expected to take more than an hour "
            "or to need more disk than is free (off a terminal such a run is refused "
            "without --yes).",
        ),
    ] = False,
) -> None:
    """Play the games of CONFIG and write one row per game and seat to a results directory.

    A run stopped by Ctrl-C, kill or a failure goes on with `balance simulate --resume DIR`."""
    from balance import runner

    if resume is not None:
        for option, given in (("--out", out), ("--force", force or None)):
            if given is not None:
                raise BalanceError(f"{option}: --resume {resume} writes into the run's directory")
        if config is None and sets:
            raise BalanceError(
                f"--set {sets[0]}: --resume without CONFIG plays the run's recorded config"
            )
    elif config is None:
        raise BalanceError("give a CONFIG file to play (or --resume DIR to continue a run)")
    cfg = _load(config, sets) if config is not None else None
    if report_file is not None:  # before the run, not after minutes of it
        _check_simulate_report(report_file, config=config, out=resume or out, fresh=force)
    with _backend(backend, address, threads):
        if resume is not None:
            summary = _resume(
                resume, cfg, config, games=games, seed=seed, chunk_size=chunk_size, threads=threads
            )
            if summary is None:
                return
            out = resume
            cfg = runner.recorded_config(resume)
        else:
            chunk_size = runner.CHUNK if chunk_size is None else chunk_size
            out = out or runner.default_out(cfg, config)
            runner.check_options(
                games=cfg.games if games is None else games,
                seed=cfg.seed if seed is None else seed,
                chunk_size=chunk_size,
                threads=threads,
                players=len(cfg.seats),
            )  # a bad option is its own error before any question about the run's size
            _confirm_costs(runner.run_costs(cfg, games=games, out=out, threads=threads), yes=yes)
            try:
                with terminal.progress_bar() as progress:
                    summary = runner.run(
                        cfg,
                        config_path=_shown(config),
                        out=out,
                        games=games,
                        seed=seed,
                        threads=threads,
                        chunk_size=chunk_size,
                        force=force,
                        progress=progress,
                    )
            except runner.Interrupted as e:
                typer.echo(f"{_stopped()}: kept {e.games_done:,} complete games in {out}", err=True)
                raise typer.Exit(stop_exit_code()) from None
            except KeyboardInterrupt:  # while the kernels loaded
                typer.echo(
                    f"{_stopped()} before the first game: nothing written to {out}", err=True
                )
                raise typer.Exit(stop_exit_code()) from None
        _say_backend(summary.backend)
        typer.echo(
            f"{summary.games_done:,} games in {summary.wall_time_s:.2f} s "
            f"({summary.games_per_s:,.0f} games/s), {summary.rows:,} rows -> {summary.out}"
        )
        if report_file is None:
            return
        # Statistics and reports import scipy and plotly (a second): only a run with --report pays.
        from balance import experiments
        from balance import games as registry

        # Causal card impact by default: the game's report and impact variants on the run's first
        # games (same seeds), as many games as fit the config's report.impact_seconds.
        plan = experiments.plan_report_impact(
            cfg,
            registry.get(cfg.game),
            games_done=summary.games_done,
            games_per_s=summary.games_per_s,
        )
        impact_file = None
        if plan.games:
            typer.echo(f"card impact: {plan.reason}")
            with terminal.progress_bar("card impact") as progress:
                impact_file = experiments.play_report_variants(
                    cfg,
                    plan.variants,
                    config_path=_shown(config) if config is not None else runner.recorded_path(out),
                    results_dir=summary.out,
                    games=plan.games,
                    seed=summary.seed,
                    threads=threads,
                    progress=progress,
                    featured=plan.featured,
                )
        elif plan.variants:
            typer.echo(f"card impact left out: {plan.reason}")
        _write_report([summary.out], out=report_file, impact=impact_file)


def _check_simulate_report(
    report_file: Path, *, config: Path | None, out: Path | None, fresh: bool
) -> None:
    """``simulate --report``: the page, and the card impact it plays into the results directory
    (RESULTS/variants.json, unless --force clears the directory first), can be written."""
    from balance.experiments.impact import check_report_variants
    from balance.report import check_output

    inputs: dict[Any, str] = {config: "the config"} if config is not None else {}
    if out is not None:
        inputs[out / "variants.json"] = "the card impact the report reads"
    check_output(
        report_file, "--report", inputs=inputs, results_dirs=[out] if out is not None else []
    )
    if out is not None and not fresh:
        check_report_variants(out, skip="--set report.impact_seconds=0")


def _resume(
    out: Path,
    cfg: Any,
    config: Path | None,
    *,
    games: int | None,
    seed: int | None,
    chunk_size: int | None,
    threads: int | None,
) -> Any:
    """``simulate --resume``: the run's summary, or None when it was already complete (said)."""
    from balance import runner

    try:
        with terminal.progress_bar() as progress:
            summary = runner.resume(
                out,
                config=cfg,
                config_label=None if config is None else str(config),
                games=games,
                seed=seed,
                chunk_size=chunk_size,
                threads=threads,
                progress=progress,
            )
    except runner.Interrupted as e:
        typer.echo(f"{_stopped()}: kept {e.games_done:,} complete games in {out}", err=True)
        raise typer.Exit(stop_exit_code()) from None
    except KeyboardInterrupt:  # while the kernels loaded
        typer.echo(f"{_stopped()} before the first game of this session: {out} as it was", err=True)
        raise typer.Exit(stop_exit_code()) from None
    if summary.games_kept == summary.games_requested:
        typer.echo(f"already complete: {summary.games_done:,} games in {out}; nothing to play")
        return None
    typer.echo(
        f"resumed {out} at game {summary.games_kept:,}: played "
        f"{summary.games_done - summary.games_kept:,} more",
        err=True,
    )
    return summary


@command(cls=_Command)
def validate(
    configs: Annotated[
        list[Path], typer.Argument(help="YAML config files.", show_default=False, metavar="CONFIG")
    ],
    sets: SetOpt = None,
) -> None:
    """Check config files without playing: `ok` or the error for each; exit 1 if any is invalid.

    With --set, each file is checked with the overrides applied."""
    from balance.overrides import parse_overrides

    parse_overrides(sets)  # a bad --set is one error, not one per file
    invalid = 0
    for path in configs:
        try:
            cfg = _load(path, sets)
        except (BalanceError, OSError) as e:  # each file's own line; then the next file
            _error(_one_line(e))
            invalid += 1
            continue
        seats = ", ".join(cfg.seats)
        typer.echo(f"ok: {path} ({cfg.game}, {cfg.players} players, seats: {seats})")
    if invalid:
        raise typer.Exit(1)


@command(cls=_Command)
def verify(
    dirs: Annotated[
        list[Path],
        typer.Argument(
            help="Results directories (or sweep directories: every point).",
            show_default=False,
            metavar="RESULTS",
        ),
    ],
) -> None:
    """Check results datasets as every reader does, in full: each manifest against its schema
    and recorded config, each part against the SHA-256 recorded when it was written and the run
    id in its footer. `ok` for a sound dataset; one line per bad part (with the command that
    rewrites it), exit 1, otherwise."""
    from balance import results
    from balance.experiments import sweep

    bad = 0
    for d in dirs:
        try:
            targets = (
                [p.path for p in sweep.open_sweep(d).points if p.status != "pending"]
                if sweep.is_sweep(d)
                else [d]
            )
        except BalanceError as e:
            _error(e)
            bad += 1
            continue
        if not targets:
            typer.echo(f"ok: {d} (a sweep with no point played yet: nothing to verify)")
        for target in targets:
            try:
                manifest, problems = results.verify(target)
            except (BalanceError, OSError) as e:
                _error(_one_line(e))
                bad += 1
                continue
            for problem in problems:
                _error(problem)
            bad += bool(problems)
            if not problems:
                parts = len(manifest["parts"])
                typer.echo(
                    f"ok: {target} ({manifest['games_done']:,} games in {parts} "
                    f"part{'s' * (parts != 1)}, {results.status_text(manifest)})"
                )
    if bad:
        raise typer.Exit(1)


@command("games", cls=_Command)
def list_games(
    name: Annotated[str | None, typer.Argument(help="Show only this game.", metavar="GAME")] = None,
) -> None:
    """List the games and every knob of their configs: rules and policy settings, with defaults."""
    from balance import games as registry

    names = registry.names()
    if name is not None and name not in names:
        _error(f"unknown game {name!r}; known games: {', '.join(names)}")
        raise typer.Exit(1)
    for i, game in enumerate([name] if name else names):
        typer.echo(("\n" if i else "") + "\n".join(knobs.describe_game(registry.get(game))))


@command(cls=_Command)
def replay(
    source: Annotated[
        Path,
        typer.Argument(
            help="YAML config file, or a results directory (its run's resolved config and seed).",
            show_default=False,
            metavar="CONFIG|RESULTS",
        ),
    ],
    game: Annotated[
        int, typer.Option("--game", metavar="I", help="Game index (0 = first game of the run).")
    ],
    seed: Annotated[
        int | None, typer.Option(help="Run seed (default: the config's or the run's).")
    ] = None,
    sets: SetOpt = None,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            metavar="FILE",
            help="Write the game as one self-contained HTML page instead of printing it: the "
            "pile after set-up and after every turn on a slider, each turn in words beside it "
            "(plotly.js inlined: opens offline). Games with pictures: corvids.",
        ),
    ] = None,
) -> None:
    """Print one game of a run turn by turn: same config, seed and index, same game.

    With --html, write it as a page of pictures instead (for games that draw them)."""
    from balance import runner
    from balance.outputs import check_output_file

    if html is not None:  # before the kernels load and the game plays
        check_output_file(
            html, "--html", inputs={source: "the config being replayed"}, suggest="game.html"
        )
    if source.is_dir():
        if sets:
            raise BalanceError(
                f"--set {sets[0]}: {source} is a results directory, whose games were played with "
                "its recorded config; give a CONFIG file to replay a changed one"
            )
        cfg, seed = _run_config(source, game=game, seed=seed)
    else:
        cfg = _load(source, sets)
    if html is not None:
        path = runner.write_replay_page(cfg, html, game=game, seed=seed)
        typer.echo(f"replay page -> {path} ({path.stat().st_size / 1e6:.1f} MB)")
        return
    lines = runner.narrate(cfg, game=game, seed=seed)
    for line in lines:
        typer.echo(line)


def _run_config(results_dir: Path, *, game: int, seed: int | None) -> tuple[Any, int]:
    """The resolved config and seed a results directory's manifest recorded (``seed`` wins)."""
    from balance.config import config_from_dict
    from balance.results import MANIFEST, read_manifest

    manifest = read_manifest(results_dir)
    recorded = manifest.get("config")
    if not isinstance(recorded, dict):
        raise BalanceError(f"{results_dir}: its {MANIFEST} records no config")
    cfg = config_from_dict(recorded, str(results_dir / MANIFEST))
    done = int(manifest.get("games_done") or 0)
    if seed is None and not 0 <= game < max(done, 1):
        raise BalanceError(
            f"--game {game}: {results_dir} holds games 0 to {done - 1:,}"
            if done
            else f"--game {game}: {results_dir} holds no games"
        )
    return cfg, int(manifest.get("seed", cfg.seed)) if seed is None else seed


# `balance bench` is registered here (balance/bench.py; see noxfile.py session "bench").


@command(cls=_Command)
def bench(
    game: Annotated[
        str, typer.Argument(help="Game to measure (see `balance games`).", metavar="GAME")
    ],
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
    end_to_end: Annotated[
        bool,
        typer.Option(
            "--end-to-end/--no-end-to-end",
            help="Also time `balance simulate` writing parquet (the headline line-up, --games "
            "games) against the kernels' all-threads figure.",
        ),
    ] = True,
) -> None:
    """Measure GAME on this machine: compile and start-up times, games/s, plain-Python ratio."""
    from balance import bench as bench_lib

    if json_file is not None:  # before minutes of measuring, not after them
        bench_lib.check_json(json_file, game=game, config=config)
    err = Console(stderr=True)
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
            end_to_end=end_to_end,
            progress=say,
        )
    if result.startup.cold_s is not None:  # a cold compile measured on this machine
        from balance import _kernels

        _kernels.record_compile_time(game, result.startup.cold_s)
    if json_file is not None:
        bench_lib.write_json(result, json_file)
    out = Console()
    if not out.is_terminal:
        out.width = max(out.width, 120)
    out.print(terminal.bench_table(result))
    if result.targets:
        out.print(terminal.bench_targets(result))
    if json_file is not None:
        out.print(f"figures -> {json_file}", highlight=False)


# `balance impact`, `balance compare` and `balance check` (balance/experiments.py; README section
# "Statistics, comparisons and the CI balance gate").

GamesOpt = Annotated[
    int | None, typer.Option(help="Games per config, paired (default: the config's).")
]
SeedOpt = Annotated[int | None, typer.Option(help="Run seed (default: the config's).")]
ThreadsOpt = Annotated[int | None, typer.Option(help="Threads (default: all cores).")]


@command(cls=_Command)
def impact(
    config: ConfigArg,
    sets: SetOpt = None,
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
    backend: BackendOpt = "local",
    address: AddressOpt = None,
) -> None:
    """Causal card impact: CONFIG and one variant per card on the same seeds, paired game by game."""
    from balance import experiments, impact_file
    from balance import games as registry

    if out is not None:  # before the games, not after them
        inputs: dict[Any, str] = {config: "the config"}
        if variants is not None:
            inputs[variants] = "the variants file --variants"
        experiments.check_impact_out(out, inputs=inputs)
    cfg = _load(config, sets)
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
    with (
        _backend(backend, address, threads),
        terminal.progress_bar(f"impact of {len(chosen)} variants") as progress,
    ):
        result = experiments.impact(
            cfg,
            chosen,
            config_path=_shown(config),
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
        f"impact on {result.config_path}{_with_sets(sets)}: variant - base, "
        f"{result.games:,} paired games "
        f"(seed {result.seed}), {len(result.variants)} variants in {result.wall_time_s:.1f} s"
    )
    terminal.print_table(terminal.impact_table(result))
    typer.echo(
        f"Change in win share (points) and in mean turns ± the {level} half-width (t-interval "
        "over games), sorted by the size of the headline change "
        f"({impact_file.headline_label(result.headline)}); * q < 0.05: Benjamini-Hochberg within "
        "each metric over every variant, times the number of metrics (intervals are per row)."
    )
    if out is not None:
        typer.echo(f"table -> {out}")


@command(cls=_Command)
def compare(
    a: Annotated[
        Path, typer.Argument(help="Config A (the reference).", show_default=False, metavar="A")
    ],
    b: Annotated[
        Path, typer.Argument(help="Config B (the change).", show_default=False, metavar="B")
    ],
    sets: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="KEY=VALUE",
            show_default=False,
            help="Change one value of both A and B as if their files said it (repeatable), e.g. "
            "players=3 to compare the change at three players; validated like the files.",
        ),
    ] = None,
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
    backend: BackendOpt = "local",
    address: AddressOpt = None,
) -> None:
    """Run A and B on the same seeds and show what changed: B - A per seat, place, policy, team."""
    from balance import experiments

    if cdn and report_file is None:
        _error("--cdn needs --report FILE")
        raise typer.Exit(1)
    cfg_a, cfg_b = _load(a, sets), _load(b, sets)
    if report_file is not None:
        from balance.report import check_output

        check_output(  # before the games, not after them
            report_file, "--report", inputs={a: "config A", b: "config B"}
        )
    with _backend(backend, address, threads), terminal.progress_bar("compare") as progress:
        result = experiments.compare(
            cfg_a,
            cfg_b,
            a_path=_shown(a),
            b_path=_shown(b),
            games=games,
            seed=seed,
            threads=threads,
            progress=progress,
        )
    how = "paired games" if result.paired else "games of each, independent samples"
    players = "" if result.paired else f", {cfg_a.players} and {cfg_b.players} players"
    typer.echo(
        f"compare A = {result.a_path}, B = {result.b_path}{_with_sets(sets, 'both')}: "
        f"{result.games:,} {how} "
        f"(seed {result.seed}{players}) in {result.wall_time_s:.1f} s"
    )
    terminal.print_table(terminal.compare_table(result))
    from balance.experiments.compare import left_out_words

    for words in left_out_words(result.left_out):  # teams and roles no game dealt, e.g.
        typer.echo(words)
    if result.paired:
        typer.echo(
            f"B - A with its {result.level * 100:g} % t-interval over games (paired: same "
            "seeds); q: Benjamini-Hochberg within each metric (win share, mean score, game "
            "length), times the number of metrics; * q < 0.05."
        )
    else:
        typer.echo(
            f"B - A with its {result.level * 100:g} % Welch interval, independent samples "
            "(different player counts: the same seeds deal different games); share / fair = "
            "share x players per place in the turn order, edge = share - 1/players; no "
            "per-seat rows; q: Benjamini-Hochberg within each metric (share / fair, edge, mean "
            "score, game length), times the number of metrics; * q < 0.05."
        )
    if report_file is not None:
        from balance.report import write_comparison

        info = write_comparison(result, out=report_file, cdn=cdn)
        typer.echo(f"report -> {info.path} ({info.bytes / 1e6:.1f} MB, {info.seconds:.1f} s)")


@command(cls=_GateCommand)
def check(
    spec: Annotated[
        Path, typer.Argument(help="Check spec (YAML).", show_default=False, metavar="SPEC")
    ],
    junit: Annotated[
        Path | None, typer.Option(help="Also write the verdicts as JUnit XML to this file.")
    ] = None,
    threads: ThreadsOpt = None,
    sets: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="KEY=VALUE",
            show_default=False,
            help="Change one value of every config the spec names (baselines too) as if their "
            "files said it (repeatable), e.g. rules.relics.gem.count=3 to gate a proposed change "
            "before writing it; a key a config lacks is an error naming that config.",
        ),
    ] = None,
    backend: BackendOpt = "local",
    address: AddressOpt = None,
) -> None:
    """CI balance gate: decide each claim of SPEC with sequential tests (as few games as needed).

    Each assertion promises P(pass | off by delta/2) <= alpha and P(fail | holds with delta/2 to spare) <= beta (per assertion, not for the whole gate); its interval is a confidence sequence, valid when the test stops. A max_games too small for a delta is a warning (stderr).

    Exit 0: every assertion passes; 1: one fails or is inconclusive; 2: a bad spec, config or option (one line).
    """
    from balance import experiments
    from balance.experiments.junit import check_junit, format_summary, write_junit
    from balance.overrides import parse_overrides

    overrides = parse_overrides(sets)
    parsed = experiments.load_spec(spec)
    if junit is not None:  # before the games: a FIFO would block the gate at its end
        check_junit(junit, spec_path=spec, spec=parsed)
    with _backend(backend, address, threads), terminal.check_progress() as progress:
        result = experiments.check(
            parsed, spec_path=spec, threads=threads, progress=progress, overrides=overrides
        )
    if junit is not None:
        write_junit(result, junit)
    for a in result.assertions:
        typer.echo(experiments.format_line(a, result.level))
    for warning in result.warnings():
        typer.echo(f"warning: {warning}", err=True)
    typer.echo(format_summary(result) + (f"; JUnit -> {junit}" if junit is not None else ""))
    if not result.passed:
        raise typer.Exit(1)


@command(cls=_Command)
def sweep(
    config: ConfigArg,
    over: Annotated[
        list[str],
        typer.Option(
            "--over",
            metavar="KEY=VALUES",
            show_default=False,
            help="A knob and its values: KEY=V1,V2,... (each a YAML value, as --set reads it) "
            "or KEY=lo..hi[:step] (integers; reals need the step). Several --over make a grid "
            "of every combination, the first knob on the report's x-axis.",
        ),
    ],
    sets: SetOpt = None,
    games: Annotated[
        int | None,
        typer.Option(
            help="Games per point, the same seeds at every point (default: the config's)."
        ),
    ] = None,
    seed: SeedOpt = None,
    out: Annotated[
        Path | None,
        typer.Option(
            metavar="DIR",
            help="Sweep directory, a results directory per point inside (default: "
            "results/<game>-<config stem>-sweep-<date>-<time>). The same sweep again with the "
            "same DIR resumes it: points complete with the same config, games, seed and version "
            "are kept, the others played.",
        ),
    ] = None,
    threads: ThreadsOpt = None,
    chunk_size: Annotated[int, typer.Option(help="Games per chunk (one parquet part).")] = 65536,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Replace --out if it holds another sweep (or start this one over)."
        ),
    ] = False,
    report_file: Annotated[
        Path | None,
        typer.Option(
            "--report",
            metavar="FILE",
            help="Also write the sweep's HTML report to this file (as `balance report DIR`).",
        ),
    ] = None,
    yes: Annotated[
        bool,
        typer.Option(
            "--yes",
            "-y",
            help="Run without asking even when the sweep is expected to take more than an hour "
            "or to need more disk than is free (off a terminal such a sweep is refused "
            "without --yes).",
        ),
    ] = False,
    backend: BackendOpt = "local",
    address: AddressOpt = None,
) -> None:
    """Play CONFIG at every value of a knob (or a grid of knobs), every point on the same seeds.

    Each point is a results directory under DIR (`balance report DIR/<point>` reports one);
    DIR/sweep.json records the knobs, the points and how each stands. Every point's config is
    validated before any game is played. Ctrl-C keeps the finished points: run the same sweep
    with the same --out to resume it. `balance report DIR` draws every metric against the knob
    with intervals and says where the curve moves significantly between neighbouring points and
    whether it trends across all of them (a slope over the knob's values, on the same games)."""
    from balance import runner
    from balance.experiments import sweep as sweep_lib

    plan = sweep_lib.plan_sweep(
        config, over, sets=sets or [], games=games, seed=seed, config_path=_shown(config)
    )
    if report_file is not None:
        from balance.report import check_output

        check_output(  # before the games, not after them
            report_file,
            "--report",
            inputs={config: "the config"},
            results_dirs=[out] if out is not None else [],
        )
    chosen = out is not None
    out = out or sweep_lib.default_out(plan)
    runner.check_options(games=plan.games, seed=plan.seed, chunk_size=chunk_size, threads=threads)
    sweep_lib.check_out(out, plan, force=force)  # another sweep in the way: before any question
    _confirm_costs(sweep_lib.sweep_costs(plan, out=out, threads=threads), yes=yes)
    knobs_ = "; ".join(f"{a.key} = {', '.join(a.labels)}" for a in plan.axes)
    typer.echo(
        f"sweep {plan.config_path}{_with_sets(sets)}: {len(plan.points)} points ({knobs_}), "
        f"{plan.games:,} games each on seed {plan.seed} -> {out}"
    )

    def point_line(r: Any) -> None:
        where = f"{out}/{r.point.dir}"
        if r.status == "kept":
            typer.echo(f"  {r.position}/{r.total} {r.point.name}: kept (complete) -> {where}")
            return
        typer.echo(
            f"  {r.position}/{r.total} {r.point.name}: {r.games:,} games in "
            f"{r.wall_time_s:.2f} s ({r.games_per_s:,.0f} games/s) -> {where}"
        )

    try:
        with _backend(backend, address, threads), terminal.sweep_progress() as progress:
            summary = sweep_lib.run_sweep(
                plan,
                out=out,
                threads=threads,
                chunk_size=chunk_size,
                force=force,
                progress=progress,
                on_point=point_line,
            )
    except sweep_lib.SweepInterrupted as e:
        kept = f" ({e.partial} kept in its directory)" if e.partial else ""
        again = "run the same command again" if chosen else f"run the same command with --out {out}"
        typer.echo(
            f"{_stopped()}: {e.done} of {e.total} points complete in {out}{kept}; {again} to resume",
            err=True,
        )
        raise typer.Exit(stop_exit_code()) from None
    played = [r for r in summary.points if r.status == "played"]
    kept_n = len(summary.points) - len(played)
    kept = f"; {kept_n} of {len(summary.points)} points kept from an earlier run" if kept_n else ""
    typer.echo(
        f"sweep: {summary.played_games:,} games at {len(played)} points in "
        f"{summary.wall_time_s:.1f} s{kept} -> {summary.out}"
    )
    if report_file is not None:
        _write_sweep_report(summary.out, out=report_file, cdn=False)


def _write_sweep_report(sweep_dir: Path, *, out: Path, cdn: bool) -> None:
    from balance.report.sweep import write_sweep_report

    info = write_sweep_report(_shown(sweep_dir), out=out, cdn=cdn)
    typer.echo(
        f"report -> {info.path} ({info.bytes / 1e6:.1f} MB; statistics {info.stats_seconds:.1f} s, "
        f"total {info.seconds:.1f} s)"
    )


@command(cls=_Command)
def report(
    results: Annotated[
        list[Path],
        typer.Argument(
            help="Results directories (one section each), or one sweep directory (its curves).",
            show_default=False,
            metavar="RESULTS",
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="FILE",
            help="HTML file to write, e.g. reports/NAME.html (default with one results "
            "directory: RESULTS/report.html).",
        ),
    ] = None,
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
    no_impact: Annotated[
        bool,
        typer.Option(
            "--no-impact",
            help="Do not play the causal card impact a single results directory lacks "
            "(RESULTS/variants.json); by default it is played within the config's "
            "report.impact_seconds and kept there.",
        ),
    ] = False,
) -> None:
    """Write one self-contained HTML report of RESULTS (to RESULTS/report.html by default).

    Provenance, win shares, seat advantage, score and length distributions, card impact, and
    differences against --baseline. A sweep directory (`balance sweep`) gets the sweep's page:
    every metric against the knob, with intervals, the steps between neighbouring points and
    the trend across them. The page opens with a verdict on every axis of balance (each place
    in the turn order, chair, side, role and policy at each place) against the config's
    report.tolerance and report.targets."""
    from balance.experiments.sweep import is_sweep
    from balance.report import check_output

    option = "--out" if out is not None else ""
    if any(is_sweep(r) for r in results):
        if len(results) > 1 or baseline is not None or impact is not None:
            _error("a sweep directory is reported alone (no other RESULTS, --baseline or --impact)")
            raise typer.Exit(1)
        out = out or results[0] / "report.html"
        check_output(out, option)  # before the analysis
        _write_sweep_report(results[0], out=out, cdn=cdn)
        return
    if out is None:
        if len(results) > 1:
            _error(f"{len(results)} results directories: name the report with -o FILE.html")
            raise typer.Exit(1)
        out = results[0] / "report.html"
    if impact is not None:
        inputs = {impact: "the impact file --impact"}
    else:  # a single results directory's own card impact, read (or played) for the page
        inputs = {r / "variants.json": "the card impact the report reads" for r in results[:1]}
    check_output(out, option, inputs=inputs)  # before any game or analysis
    if impact is None and len(results) == 1 and not no_impact:
        _play_report_impact(results[0])
    _write_report(results, out=out, baseline=baseline, impact=impact, cdn=cdn)


def _play_report_impact(results_dir: Path) -> None:
    """The causal card impact of a results directory that has none yet (RESULTS/variants.json):
    the game's report and impact variants on the run's first games and seed, within the config's
    report.impact_seconds at the run's recorded speed (as ``simulate --report`` plays it)."""
    from balance import experiments
    from balance import games as registry
    from balance.experiments.impact import check_report_variants
    from balance.experiments.variants import REPORT_VARIANTS_FILE
    from balance.results import read_manifest

    if (results_dir / REPORT_VARIANTS_FILE).exists() or not (
        results_dir / "manifest.json"
    ).exists():
        return  # its own card impact is there, or write_report says what is wrong
    check_report_variants(results_dir, skip="--no-impact")  # before the games, not after them
    manifest = read_manifest(results_dir)
    cfg, _ = _run_config(results_dir, game=0, seed=None)
    plan = experiments.plan_report_impact(
        cfg,
        registry.get(cfg.game),
        games_done=int(manifest.get("games_done") or 0),
        games_per_s=float(manifest.get("games_per_s") or 0.0),
    )
    if not plan.games:
        if plan.variants:
            typer.echo(f"card impact left out: {plan.reason}")
        return
    typer.echo(f"card impact: {plan.reason}")
    with terminal.progress_bar() as progress:
        experiments.play_report_variants(
            cfg,
            plan.variants,
            config_path=str(manifest.get("config_path") or results_dir),
            results_dir=results_dir,
            games=plan.games,
            seed=int(manifest["seed"]),
            progress=progress,
            featured=plan.featured,
        )


def _write_report(results: list[Path], *, out: Path, **options: Any) -> None:
    from balance.report import write_report

    options = {k: _shown(v) if isinstance(v, Path) else v for k, v in options.items()}
    info = write_report([_shown(r) for r in results], out=out, **options)
    typer.echo(
        f"report -> {info.path} ({info.bytes / 1e6:.1f} MB; statistics {info.stats_seconds:.1f} s, "
        f"total {info.seconds:.1f} s)"
    )


@command(cls=_Command)
def tune(
    config: ConfigArg,
    param: Annotated[
        list[str],
        typer.Option(
            "--param",
            metavar="KEY=lo..hi[:step]",
            show_default=False,
            help="A knob and the range searched: an integer key searches lo, lo + step, ... hi "
            "(step 1 by default), a real key multiples of the step (its tolerance; default "
            "(hi - lo)/100). Several --param are searched together.",
        ),
    ],
    target: Annotated[
        list[str],
        typer.Option(
            "--target",
            metavar="METRIC=VALUE",
            show_default=False,
            help="The metric and its target, named as in check specs: win_share\\[seat=0], "
            "win_share\\[order=0] (first player), win_share\\[policy=NAME], "
            "win_share\\[team=NAME], win_share\\[role=NAME], mean_score (or "
            "mean_score\\[seat=1] ...), mean_turns; add decided to count only games one team "
            "won alone (win_share\\[order=0,decided]=0.5); @WEIGHT weighs a target in the "
            "distance of a search (repeatable).",
        ),
    ],
    sets: SetOpt = None,
    games: Annotated[
        int | None,
        typer.Option(
            help="Budget: games played in all, a fifth kept for a fresh look at the answer "
            "(default: the config's)."
        ),
    ] = None,
    seed: SeedOpt = None,
    threads: ThreadsOpt = None,
    out: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="Write the tuned config to FILE.yaml: it extends CONFIG and sets the tuned "
            "values (and the --set ones), with a comment saying how they were found.",
        ),
    ] = None,
    trials: Annotated[
        int,
        typer.Option(
            help="Several --param or --target: points searched (every point of the grid when "
            "it has no more; else optuna's TPE sampler)."
        ),
    ] = 60,
    backend: BackendOpt = "local",
    address: AddressOpt = None,
) -> None:
    """Find the value of a knob that brings a metric to its target, on common seeds.

    One --param and one --target: noisy bisection with confidence sequences; it prints the value with a 95 % interval (the metric crosses the target inside it), the games spent and the metric at the answer on fresh games. Several: a search of the weighted distance to the targets, the best point re-measured on fresh games."""
    from balance.experiments import tune as tune_lib

    if out is not None:
        tune_lib.check_out(out, config)  # before the games, not after them
    try:
        with _backend(backend, address, threads), terminal.progress_bar("tune") as progress:
            result = tune_lib.tune(
                config,
                param,
                target,
                sets=sets or [],
                games=games,
                seed=seed,
                threads=threads,
                trials=trials,
                config_path=_shown(config),
                progress=progress,
            )
    except KeyboardInterrupt:
        typer.echo(f"{_stopped()}: nothing written" + (f" to {out}" if out else ""), err=True)
        raise typer.Exit(stop_exit_code()) from None
    what = ", ".join(p.describe() for p in result.params)
    goals = ", ".join(t.text for t in result.targets)
    typer.echo(f"tune {result.config_path}{_with_sets(sets)}: {what}; target {goals}")
    for line in tune_lib.summary_lines(result):
        typer.echo(f"  {line}")
    typer.echo(f"  in {result.wall_time_s:.1f} s")
    if out is not None:
        command = " ".join(
            ["balance tune", _shown(config)]
            + [f"--param {p.text}" for p in result.params]
            + [f"--target '{t.text}'" for t in result.targets]
            + [f"--set {s}" for s in result.sets]
            + [f"--games {result.budget}", f"--seed {result.seed}"]
        )
        path = tune_lib.write_tuned(result, out, command=command)
        typer.echo(f"tuned config -> {path}")


if __name__ == "__main__":  # `python -m balance.cli ...` works like the `balance` command
    app()
