"""The typer/click plumbing of the ``balance`` command line, the options several commands share
and the small helpers they call (every command module imports from here; nothing here plays a
game).

Every error a user can cause prints one line and exits with the command's code
(:class:`_Command`, :class:`_OneLineErrors`); a command stopped by Ctrl-C, SIGTERM or SIGHUP
says what it kept (:func:`stopping`) and exits 130, 143 or 129.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from typer.core import TyperCommand, TyperGroup

import balance
from balance import terminal
from balance.cli import _QUIET_SIGINT, _exit_130
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
            # Ctrl-C, SIGTERM or SIGHUP: 130, 143 or 129 (a KeyboardInterrupt even in callbacks)
            with stopping(), interruptible():
                return super().invoke(ctx)
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


@contextlib.contextmanager
def stopping(
    *, nothing: str | None = None, resume: str = "run the same command again"
) -> Iterator[None]:
    """Ctrl-C, SIGTERM or SIGHUP in the block (a KeyboardInterrupt: errors.stop_on_terminate)
    ends the command with one line on stderr that says what it kept, and the stop's exit code:
    130, 143 or 129 (errors.stop_exit_code).

    A run stopped once it began writing says the complete games it kept
    (``interrupted: kept N complete games in DIR``); a sweep, its complete points and how to go
    on (``resume``); any other stop, ``nothing`` after ``interrupted`` (e.g. `` before the first
    game: nothing written to DIR``), or no line when None. Every command runs inside one that
    says nothing (:meth:`_Command.invoke`); a command that writes wraps its games in one that
    says what was written."""
    try:
        yield
    except KeyboardInterrupt as e:
        line = _stop_line(e, nothing=nothing, resume=resume)
        if line is not None:
            typer.echo(line, err=True)
        raise typer.Exit(stop_exit_code()) from None


def _stop_line(e: KeyboardInterrupt, *, nothing: str | None, resume: str) -> str | None:
    """What :func:`stopping` says of ``e``."""
    stopped = "interrupted" if stop_name() == "SIGINT" else f"interrupted by {stop_name()}"
    # The runner's and the sweep's own stops come from modules already loaded (they raised
    # them): look them up there rather than import either after a plain Ctrl-C.
    runner = sys.modules.get("balance.runner")
    sweep = sys.modules.get("balance.experiments.sweep")
    if runner is not None and isinstance(e, runner.Interrupted):
        return f"{stopped}: kept {e.games_done:,} complete games in {e.out}"
    if sweep is not None and isinstance(e, sweep.SweepInterrupted):
        kept = f" ({e.partial} kept in its directory)" if e.partial else ""
        return (
            f"{stopped}: {e.done} of {e.total} points complete in {e.out}{kept}; {resume} to resume"
        )
    return None if nothing is None else stopped + nothing


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
    "census": [
        "balance census results/five_ravens --games 200",
        "balance census configs/corvids/base.yaml --games 100 --no-kingmaking",
    ],
    "export": [
        "balance export results/five_ravens",
        "balance export results/five_ravens --out -",
        "balance export results/five_ravens_3p --format xlsx --out five_ravens_3p.xlsx",
    ],
    "watch": [
        "balance watch configs/five_ravens/no_seven.yaml",
        "balance watch configs/five_ravens/no_seven.yaml --against configs/five_ravens/base.yaml",
        "balance watch configs/raven_manor/base.yaml --games 50000 --half-width 0.01 --no-open",
        "balance watch configs/five_ravens/no_seven.yaml --against configs/five_ravens/base.yaml "
        "--once --games 20000",
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
    "ladder": [
        "balance ladder configs/five_ravens/base.yaml --out results/five_ravens_ladder",
        "balance ladder configs/raven_order/mirror.yaml --rungs random,economy,search_20 "
        "--games 1000",
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
    from balance.config.overrides import parse_overrides

    return load_config(path, parse_overrides(sets))


def _with_sets(sets: list[str] | None, which: str = "") -> str:
    """What a command's header says of its ``--set`` overrides (nothing without any)."""
    if not sets:
        return ""
    from balance.config.overrides import parse_overrides

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


@contextlib.contextmanager
def playing_points(
    *, resume: str, backend: str, address: str | None, threads: int | None
) -> Iterator[Any]:
    """Where a sweep or a ladder plays its points: Ctrl-C says how to resume (``resume``), the
    games go to ``--backend``, and one progress bar counts every point's games."""
    with (
        stopping(resume=resume),
        _backend(backend, address, threads),
        terminal.sweep_progress() as progress,
    ):
        yield progress


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


GamesOpt = Annotated[
    int | None, typer.Option(help="Games per config, paired (default: the config's).")
]
SeedOpt = Annotated[int | None, typer.Option(help="Run seed (default: the config's).")]
ThreadsOpt = Annotated[int | None, typer.Option(help="Threads (default: all cores).")]
CsvOpt = Annotated[
    Path | None,
    typer.Option(
        "--csv",
        metavar="FILE",
        show_default=False,
        help="Also write the result's tables to FILE.csv: the numbers at full precision, a row "
        "per row of the result, the first table in FILE and each other one beside it as "
        'STEM.TABLE.csv (the command\'s page, "Tables for spreadsheets", lists them).',
    ),
]
XlsxOpt = Annotated[
    Path | None,
    typer.Option(
        "--xlsx",
        metavar="FILE",
        show_default=False,
        help="Also write the result's tables to one Excel workbook FILE.xlsx, a sheet per table "
        "(as --csv; needs xlsxwriter: pip install 'balance\\[sheets]').",
    ),
]


def _write_tables(files: Any, make: Callable[[], Any]) -> None:
    """Write a result's tables (``make()``: name -> frame) to the files of ``--csv`` and
    ``--xlsx`` that balance/sheets.py's ``check_tables`` checked (``files``; None: neither was
    given, and ``make`` is not called) and say where."""
    if files is not None:
        typer.echo("tables -> " + ", ".join(str(p) for p in files.write(make())))


def _write_report(results: list[Path], *, out: Path, **options: Any) -> None:
    """Write the report of ``results`` (balance.report.write_report) and say where."""
    from balance.report import write_report

    options = {k: _shown(v) if isinstance(v, Path) else v for k, v in options.items()}
    info = write_report([_shown(r) for r in results], out=out, **options)
    _say_report(info)


def _write_sweep_report(sweep_dir: Path, *, out: Path, cdn: bool, stats: Any = None) -> None:
    """Write the report of a sweep directory and say where (``stats``: its analysis, when the
    caller has it)."""
    from balance.report.write import write_sweep_report

    _say_report(write_sweep_report(_shown(sweep_dir), out=out, cdn=cdn, stats=stats))


def _write_ladder_report(ladder_dir: Path, *, out: Path, cdn: bool) -> None:
    """Write the page of a ladder directory and say where."""
    from balance.report.write import write_ladder_report

    _say_report(write_ladder_report(_shown(ladder_dir), out=out, cdn=cdn))


def _say_report(info: Any) -> None:
    typer.echo(
        f"report -> {info.path} ({info.bytes / 1e6:.1f} MB; statistics {info.stats_seconds:.1f} s, "
        f"total {info.seconds:.1f} s)"
    )


def _play_card_impact(impact: Any, *, threads: int | None = None, label: str = "simulating") -> Any:
    """Play the card impact a report reads (runs.play_impact), saying how many games and why, or
    why it is left out; the impact file, or None."""
    from balance import runs

    if not impact.plan.games:
        if impact.plan.variants:
            typer.echo(f"card impact left out: {impact.plan.reason}")
        return None
    typer.echo(f"card impact: {impact.plan.reason}")
    with terminal.progress_bar(label) as progress:
        return runs.play_impact(impact, threads=threads, progress=progress)
