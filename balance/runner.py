"""Play a run of games chunk by chunk and stream the outcomes to a results directory.

Games are numbered ``0 .. games-1`` and a chunk is just a slice of that index, so the dataset
depends only on (config, seed, games), never on the chunk size or the thread count (DESIGN.md,
Determinism). The game kernels run on the calling thread (numba's thread count is per thread);
one writer thread turns chunk k into a parquet part while chunk k+1 is simulated, so at most two
chunks are alive at a time and memory stays flat however many games run.

Nothing here prints: progress goes through the ``progress(games_done, games_total)`` callback.

Ctrl-C: from the moment :func:`run` touches the output directory until the manifest records how the
run ended, SIGINT only sets a flag that the loop checks between chunks (see :func:`_deferred_sigint`),
so an interrupt never lands half-way through a part, the manifest or the bookkeeping around them.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import errno
import json
import os
import platform
import shutil
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import numpy as np
import polars as pl

import balance
from balance import errors, results
from balance import games as registry
from balance.errors import BalanceError, interruptible, raises_keyboard_interrupt
from balance.games.base import Chunk


class RunnerError(BalanceError):
    """A run cannot start; the message is one line that names the fix."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped :func:`run` after it started writing: its manifest says ``interrupted`` and
    the ``games_done`` games written are kept in ``out`` (a KeyboardInterrupt that arrives before,
    while the kernels load, is a plain KeyboardInterrupt, and nothing was written)."""

    def __init__(self, out: Path, games_done: int) -> None:
        super().__init__(f"interrupted: kept {games_done:,} complete games in {out}")
        self.out = out
        self.games_done = games_done


# ============================================================ the one place that plays games

CHUNK = 65536  # games per plugin.play call unless a command says otherwise
MAX_CHUNK = 2**22  # 64 x CHUNK: a chunk being played and one being written stay in memory


class Prepared(NamedTuple):
    """A config made ready to play: its plugin, compiled tables and the names its chunks use."""

    config: Any  # the validated RunConfig
    plugin: Any
    tables: Any
    telemetry: tuple[str, ...]  # telemetry column names, in Chunk.telemetry order
    team_names: tuple[str, ...]  # names of Chunk.team codes; () when teams come from the config
    role_names: tuple[str, ...]  # names of Chunk.role codes; () without roles
    compile_time_s: float  # compiling the tables and loading (or compiling) the kernels


class KernelLoad(NamedTuple):
    """What loading a game's kernels is about to be, for a display (:func:`showing_loads`)."""

    game: str
    cold: bool  # compiling: no kernel of the game in numba's cache folder (balance/_kernels.py)
    expected: str  # a cold compile's expected time, from the ones measured on this machine


LoadDisplay = Callable[[KernelLoad], contextlib.AbstractContextManager[Any]]
_LOAD_DISPLAY: contextvars.ContextVar[LoadDisplay | None] = contextvars.ContextVar(
    "balance_load_display", default=None
)
_LOADED: set[str] = set()  # games whose kernels this process has loaded (or compiled)


@contextlib.contextmanager
def showing_loads(display: LoadDisplay) -> Iterator[None]:
    """In the block, the first load of each game's kernels in this process runs inside
    ``display(KernelLoad(...))`` (the CLI's "compiling"/"loading" line); later loads are
    instant and show nothing."""
    token = _LOAD_DISPLAY.set(display)
    try:
        yield
    finally:
        _LOAD_DISPLAY.reset(token)


def _load_kernels(game: str, plugin: Any, tables: Any, seed: int) -> None:
    """Load (or compile) ``plugin``'s kernels with an empty batch; the first time in this
    process, say so through the display of :func:`showing_loads`, and record a cold compile's
    time on this machine (balance/_kernels.py)."""
    if game in _LOADED:
        plugin.play(tables, seed, 0, 0)
        return
    from balance import _kernels

    package = registry._GAMES.get(game, type(plugin).__module__)
    cached = _kernels.kernels_cached(package)
    cold = cached is False
    info = KernelLoad(game, cold, _kernels.expected_text(_kernels.compile_times(game)))
    display = _LOAD_DISPLAY.get()
    if cached is None:  # no compiled kernels at all (plain Python): nothing loads, nothing shown
        display = None
    t0 = time.perf_counter()
    with display(info) if display is not None else contextlib.nullcontext():
        plugin.play(tables, seed, 0, 0)
    if cold:
        _kernels.record_compile_time(game, time.perf_counter() - t0)
    _LOADED.add(game)


def prepare(config: Any, *, seed: int = 0, load: bool = True) -> Prepared:
    """Compile ``config``'s tables and load its kernels (an empty batch: numba's cache, or a
    compile on a first run), so that this start-up cost is timed apart from playing.

    ``load=False`` stops before the kernels (a command that still validates its input against
    the run's names, e.g. a check spec's groups); :func:`load` them afterwards."""
    plugin = registry.get(config.game)
    t0 = time.perf_counter()
    tables = plugin.compile(config)
    if load:
        _load_kernels(config.game, plugin, tables, seed)
    return Prepared(
        config=config,
        plugin=plugin,
        tables=tables,
        telemetry=tuple(plugin.telemetry_columns(tables)),
        team_names=tuple(plugin.team_names(tables)),
        role_names=tuple(plugin.role_names(tables)),
        compile_time_s=time.perf_counter() - t0,
    )


def load(run: Prepared, *, seed: int = 0) -> Prepared:
    """``run`` with its kernels loaded (see :func:`prepare`); its compile time includes them."""
    t0 = time.perf_counter()
    _load_kernels(run.config.game, run.plugin, run.tables, seed)
    return run._replace(compile_time_s=run.compile_time_s + time.perf_counter() - t0)


def check_options(
    *,
    games: int,
    seed: int,
    chunk_size: int = CHUNK,
    threads: int | None = None,
    players: int | None = None,
) -> None:
    """The options every command that plays games takes; RunnerError names the bad one.

    With ``players``, ``games`` must also fit a results dataset (:func:`results.max_games`)."""
    if games < 1:
        raise RunnerError(f"--games must be at least 1, got {games}")
    if players is not None and games > (limit := results.max_games(players)):
        raise RunnerError(
            f"--games {games:,} is more than a results dataset can index: at most {limit:,} "
            f"games of {players} players ({results.ROW_LIMIT_TEXT})"
        )
    _check_seed(seed)
    if not 1 <= chunk_size <= MAX_CHUNK:
        raise RunnerError(
            f"--chunk-size must be between 1 and {MAX_CHUNK:,} games (two chunks are in memory "
            f"at once), got {chunk_size:,}"
        )
    if threads is not None:
        check_threads(threads)


def check_threads(threads: int) -> None:
    """``--threads`` must be between 1 and this machine's cores; RunnerError otherwise."""
    cores = _cores()
    if not 1 <= threads <= cores:
        raise RunnerError(f"--threads must be between 1 and {cores} on this machine, got {threads}")


def _cores() -> int:
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)


@contextlib.contextmanager
def numba_threads(threads: int | None) -> Iterator[int]:
    """Run the block's kernels on ``threads`` threads (default: all cores); yields the count."""
    import numba

    threads = _cores() if threads is None else threads
    check_threads(threads)
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        yield threads
    finally:
        numba.set_num_threads(previous)


def play_chunks(
    runs: Sequence[Prepared],
    *,
    seed: int,
    games: int,
    first_game: int = 0,
    chunk_size: int = CHUNK,
    played: Callable[[int], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> Iterator[list[Chunk]]:
    """Games ``[first_game, first_game + games)`` of every run on seed ``seed``, chunk by chunk:
    one Chunk per run, the same games (and so the same random streams) for all of them.
    ``played(n)`` is called after each run's chunk of ``n`` games (progress within a chunk of
    many configs, e.g. impact's variants).

    Every command that plays games goes through here (simulate, compare, impact, check, bench),
    so they all get the same games for the same seed. Threads: wrap in :func:`numba_threads`.

    Inside :func:`using_backend` the chunks are played by that backend (Ray: one task per
    chunk, several at a time) and still come out here in game order, with the same games;
    ``stop()`` (the runner's Ctrl-C flag) ends the iteration early, between chunks."""
    backend = _BACKEND.get()
    if backend is not None:
        yield from backend.play_chunks(
            runs,
            seed=seed,
            games=games,
            first_game=first_game,
            chunk_size=chunk_size,
            played=played,
            stop=stop,
        )
        return
    for start in range(first_game, first_game + games, chunk_size):
        size = min(chunk_size, first_game + games - start)
        chunks = []
        for r in runs:
            chunks.append(r.plugin.play(r.tables, seed, start, size))
            if played is not None:
                played(size)
        for chunk in chunks:
            _check_chunk_range(chunk, start, size)
        yield chunks


def _check_chunk_range(chunk: Chunk, first: int, n: int) -> None:
    if chunk.first_game != first or chunk.n_games != n:
        raise RuntimeError(
            f"play(first_game={first}, n_games={n}) returned games "
            f"[{chunk.first_game}, {chunk.first_game + chunk.n_games})"
        )


@dataclasses.dataclass(frozen=True)
class RunSummary:
    out: Path
    status: str  # "complete" (an interrupted run raises KeyboardInterrupt instead)
    games_requested: int
    games_done: int
    rows: int  # games_done * players
    parts: int
    seed: int
    threads: int
    compile_time_s: float
    wall_time_s: float  # simulating and writing, after compiling (a resumed run: every session)
    games_per_s: float
    games_kept: int = 0  # games an earlier, interrupted session had written (resume)
    backend: dict[str, Any] = dataclasses.field(default_factory=lambda: {"name": "local"})


# ============================================================ backends


class Backend(Protocol):
    """Where chunks are played (balance/ray_backend.py); the default, None, is this process."""

    remote: bool  # kernels load on the backend's workers, not in this process

    def play_chunks(
        self,
        runs: Sequence[Prepared],
        *,
        seed: int,
        games: int,
        first_game: int,
        chunk_size: int,
        played: Callable[[int], None] | None,
        stop: Callable[[], bool] | None,
    ) -> Iterator[list[Chunk]]:
        """The chunks of :func:`play_chunks`, in game order, whatever order they finish in."""
        ...

    def describe(self) -> dict[str, Any]:
        """What the manifest records of the backend (name, address, nodes, CPUs, workers and
        their kernel load times)."""
        ...


_BACKEND: contextvars.ContextVar[Backend | None] = contextvars.ContextVar(
    "balance_backend", default=None
)


@contextlib.contextmanager
def using_backend(backend: Backend | None) -> Iterator[Backend | None]:
    """In the block, every chunk of every command (:func:`play_chunks`) is played by
    ``backend``; None plays them here. The results are the same games either way."""
    token = _BACKEND.set(backend)
    try:
        yield backend
    finally:
        _BACKEND.reset(token)


def current_backend() -> Backend | None:
    return _BACKEND.get()


def _describe_backend(threads: int) -> dict[str, Any]:
    backend = _BACKEND.get()
    return {"name": "local", "threads": threads} if backend is None else backend.describe()


# ============================================================ a run into a results directory


def run(
    config: Any,
    *,
    config_path: str | os.PathLike[str] | None,
    out: Path,
    games: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    chunk_size: int = 65536,
    force: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> RunSummary:
    """Play ``games`` games (default: the config's) of ``config`` seeded with ``seed`` into ``out``.

    ``config`` is a validated ``balance.config.RunConfig``; ``games`` and ``seed`` override its
    values (the manifest records the config with the overrides applied, i.e. what actually ran).
    Raises RunnerError before touching ``out`` if an option is invalid or ``out`` is in the way.
    On Ctrl-C (SIGINT) once the run has started writing, the chunks already simulated are
    written, the manifest is marked ``interrupted`` with ``games_done``, and :class:`Interrupted`
    (a KeyboardInterrupt) is raised; while the kernels load, Ctrl-C raises KeyboardInterrupt at
    once and ``out`` is untouched. A run stopped in any way (Ctrl-C, kill -9, a failed chunk)
    continues with :func:`resume`.
    """
    import numba

    from balance.config import config_hash

    out = Path(out)
    games = config.games if games is None else games
    seed = config.seed if seed is None else seed
    threads = _run_threads(threads)
    check_options(
        games=games, seed=seed, chunk_size=chunk_size, threads=threads, players=len(config.seats)
    )
    results.check_not_busy(out)  # a live run there: said as such, not as "not empty"
    _check_out(out, force=force)
    # One writer per directory: a second run, --force over a live run or a --resume of it
    # fails here at once, naming the live process, before anything is compiled or written.
    with results.one_writer(out):
        _check_out(out, force=force)  # again, now that no other writer can change it
        if (games, seed) != (config.games, config.seed):
            config = config.model_copy(update={"games": games, "seed": seed})

        # Ctrl-C while the kernels load (a minute when they compile) stops at once: nothing is
        # written yet. interruptible() keeps it a KeyboardInterrupt inside numba's and pydantic's
        # callbacks.
        with interruptible():
            prepared = _prepare_here_or_there(config, seed)
            plugin, compile_time = prepared.plugin, prepared.compile_time_s
            seats = list(config.seats)
            teams = list(config.teams) if config.teams else [str(i) for i in range(len(seats))]
            manifest = {
                "version": balance.__version__,
                "game": config.game,
                "config_path": None if config_path is None else str(config_path),
                "config": config.resolved_dict(),
                "config_hash": config_hash(config),
                "overrides": list(getattr(config, "overrides", ())),  # --set KEY=VALUE, in order
                "lineup_rules": getattr(
                    config, "lineup_rules", {}
                ),  # seats/teams written as a rule
                "seed": seed,
                "games_requested": games,
                "chunk_size": chunk_size,
                "players": len(seats),
                "seats": seats,
                "teams": teams,
                "team_names": list(prepared.team_names),  # the game's teams (they vary per game)
                "role_names": list(
                    prepared.role_names
                ),  # the game's roles (then a ``role`` column)
                "threads": threads,
                "end_reasons": list(plugin.end_reasons),
                "telemetry_columns": list(prepared.telemetry),
                # events that are outcomes of play, not cards (the report labels them so)
                "outcome_events": list(plugin.outcome_events),
                "telemetry_saturated": {},  # column -> cells clipped at 255 (uint8), when any
                "compile_time_s": round(compile_time, 6),
                "versions": {
                    "python": platform.python_version(),
                    "numba": numba.__version__,
                    "numpy": np.__version__,
                    "polars": pl.__version__,
                },
            }

        def writer() -> results.ResultsWriter:
            # Only now that the config compiled is an old run removed (a typo must not cost a dataset).
            _clear_out(out)
            return results.ResultsWriter(out, manifest)

        return _write_run(
            prepared,
            writer,
            out=out,
            seed=seed,
            games=games,
            first_game=0,
            chunk_size=chunk_size,
            threads=threads,
            progress=progress,
        )


def _run_threads(threads: int | None) -> int:
    """The numba threads of a run here; on a remote backend each task plays on one thread."""
    backend = _BACKEND.get()
    if backend is not None and backend.remote:
        if threads is not None:
            raise RunnerError(
                "--threads is for runs on this machine; on Ray each chunk is a one-CPU task "
                "(size the cluster instead)"
            )
        return 1
    return _cores() if threads is None else threads


def _prepare_here_or_there(config: Any, seed: int) -> Prepared:
    """:func:`prepare`, with the kernels loaded here unless a remote backend plays the games
    (its workers load them: this process only compiles the tables)."""
    backend = _BACKEND.get()
    return prepare(config, seed=seed, load=backend is None or not backend.remote)


def _write_run(
    prepared: Prepared,
    make_writer: Callable[[], results.ResultsWriter],
    *,
    out: Path,
    seed: int,
    games: int,
    first_game: int,
    chunk_size: int,
    threads: int,
    progress: Callable[[int, int], None] | None,
) -> RunSummary:
    """Play games ``[first_game, games)`` into the writer ``make_writer()`` opens (a new run, or
    the manifest of the one being resumed) and record how the run ended."""
    config, plugin = prepared.config, prepared.plugin
    seats = list(config.seats)
    teams = list(config.teams) if config.teams else [str(i) for i in range(len(seats))]
    telemetry = list(prepared.telemetry)
    team_names = list(prepared.team_names)
    role_names = list(prepared.role_names)

    def write(chunk: Chunk) -> None:  # runs on the writer thread
        # The columns go straight to the parquet writer: no DataFrame, no per-row strings.
        columns = results.chunk_columns(
            chunk,
            seats=seats,
            teams=teams,
            end_reasons=plugin.end_reasons,
            telemetry_columns=telemetry,
            team_names=team_names,
            role_names=role_names,
        )
        if chunk.saturated is not None:
            sat = writer.manifest["telemetry_saturated"]
            for j in np.flatnonzero(chunk.saturated):
                sat[telemetry[j]] = sat.get(telemetry[j], 0) + int(chunk.saturated[j])
        writer.write_part(columns, first_game=chunk.first_game, n_games=chunk.n_games)

    report = progress or (lambda done, total: None)
    opened: list[results.ResultsWriter] = []
    recorded: list[str] = []
    try:
        with _deferred_sigint() as stop:
            if stop.requested:  # Ctrl-C just as the handler went in: nothing is written yet
                raise KeyboardInterrupt
            writer = make_writer()
            opened.append(writer)
            status = "failed"
            try:
                report(writer.games_done, games)
                _play_into(
                    prepared,
                    write,
                    writer,
                    seed=seed,
                    games=games,
                    first_game=first_game,
                    chunk_size=chunk_size,
                    threads=threads,
                    report=report,
                    stop=stop,
                )
                status = "complete" if writer.games_done == games else "interrupted"
            except KeyboardInterrupt:  # raised by a plugin or a progress callback, not by Ctrl-C
                status = "interrupted"
            finally:
                # The end is recorded whatever the backend says; the workers' kernel loads are
                # the start-up of a run that begins at game 0.
                with contextlib.suppress(Exception):
                    backend = _describe_backend(threads)
                    writer.manifest["backend"] = backend
                    loads = [w.get("load_s") for w in backend.get("workers", ())]
                    if loads and first_game == 0:
                        load_s = max(x for x in loads if x is not None) if any(loads) else 0.0
                        start_up = round(prepared.compile_time_s + load_s, 6)
                        writer.manifest["compile_time_s"] = start_up
                if status == "interrupted":  # by Ctrl-C, SIGTERM or SIGHUP
                    writer.manifest["stopped_by"] = errors.stop_name()
                final = writer.finish(status)
                recorded.append(status)
    except OSError as e:  # disk full, a read-only remount, an I/O error: said, with what is kept
        if e.errno not in _WRITE_ERRNOS:
            raise
        raise _write_failed(e, out, opened[0] if opened else None, recorded) from None
    if status == "interrupted":
        raise Interrupted(out, writer.games_done)
    return RunSummary(
        out=out,
        status=status,
        games_requested=games,
        games_done=writer.games_done,
        rows=writer.games_done * len(seats),
        parts=len(final["parts"]),
        seed=seed,
        threads=threads,
        compile_time_s=float(final.get("compile_time_s") or prepared.compile_time_s),
        wall_time_s=final["wall_time_s"],
        games_per_s=final["games_per_s"],
        games_kept=first_game,
        backend=dict(final.get("backend") or {}),
    )


_WRITE_ERRNOS = {
    errno.ENOSPC: "disk full",
    errno.EDQUOT: "disk quota exceeded",
    errno.EROFS: "read-only file system",
    errno.EIO: "input/output error",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
}


def _write_failed(
    e: OSError, out: Path, writer: results.ResultsWriter | None, recorded: list[str]
) -> RunnerError:
    """The one line for a run stopped by a failed write: the file and the cause, the complete
    games kept, and how to go on."""
    import errno

    causes = {
        errno.ENOSPC: "disk full",
        errno.EDQUOT: "disk quota exceeded",
        errno.EROFS: "read-only file system",
    }
    cause = causes.get(e.errno or 0, "cannot write")
    where = Path(e.filename) if e.filename else out
    if writer is not None and not e.filename:
        where = out / results.PARTS_DIR / results.part_name(len(writer.manifest["parts"]))
    if writer is None:
        return RunnerError(f"{where}: {cause} ({e.strerror or e}); nothing was written")
    kept = writer.games_done
    manifest = (
        f"its {results.MANIFEST} says {recorded[0]}"
        if recorded
        else f"its {results.MANIFEST} lists them (it could not record the end)"
    )
    return RunnerError(
        f"{where}: {cause} ({e.strerror or e}) while writing the run; kept {kept:,} complete "
        f"games in {out}, {manifest}; make room, then `balance simulate --resume {out}`"
    )


def _play_into(
    prepared: Prepared,
    write: Callable[[Chunk], None],
    writer: results.ResultsWriter,
    *,
    seed: int,
    games: int,
    first_game: int,
    chunk_size: int,
    threads: int,
    report: Callable[[int, int], None],
    stop: _Stop,
) -> None:
    """Play the run's chunks from ``first_game`` on, each written on the writer thread while the
    next is simulated, until every game is written or ``stop`` is requested (then the chunks
    played so far are written: they hold complete games)."""
    pending: Future[None] | None = None
    previous: Chunk | None = None
    # On an error, leaving the pool waits for the part being written (it holds complete games)
    # before the caller records the end; the first error is the one raised.
    with (
        numba_threads(None if _BACKEND.get() is not None else threads),
        ThreadPoolExecutor(max_workers=1, thread_name_prefix="balance-writer") as pool,
    ):
        for [chunk] in play_chunks(
            [prepared],
            seed=seed,
            games=games - first_game,
            first_game=first_game,
            chunk_size=chunk_size,
            stop=lambda: stop.requested,
        ):
            _check_fresh(chunk, previous)
            if pending is not None:
                pending.result()
                report(writer.games_done, games)
            pending, previous = pool.submit(write, chunk), chunk
            if stop.requested:
                break
        if pending is not None:
            pending.result()
            report(writer.games_done, games)


# ============================================================ resuming a stopped run

# Manifest keys that say how a run went (when, where, how fast), not what it holds: two runs of
# the same config, seed, games and chunk size, here or on Ray, interrupted and resumed or not,
# have the same parts byte for byte and the same manifest but for these.
RUN_SPECIFIC = (
    "process",
    "started",
    "finished",
    "wall_time_s",
    "games_per_s",
    "compile_time_s",
    "threads",
    "backend",
    "sessions",
    "stopped_by",
    "checksum",  # of the manifest's content, timings included
)

RESUMABLE = ("interrupted", "killed", "failed")


class _ResumedWriter(results.ResultsWriter):
    """A ResultsWriter that goes on with the manifest of an earlier session of the same run: its
    parts, ``games_done`` and telemetry counts are kept, the wall time goes on from where it
    stopped (so games/s stays the run's), and ``sessions`` records each earlier session."""

    def __init__(self, out: Path, manifest: dict[str, Any], *, ended: str) -> None:
        self.out = Path(out)
        self._version = manifest.get("version", "")
        self._t0 = time.perf_counter() - float(manifest.get("wall_time_s") or 0.0)
        earlier = {
            "status": ended,  # as a reader saw it: a killed session is "killed"
            **{k: manifest.get(k) for k in ("process", "started", "finished", "games_done")},
            "backend": manifest.get("backend") or {"name": "local"},
        }
        if manifest.get("stopped_by"):
            earlier["stopped_by"] = manifest["stopped_by"]
        self.manifest = {
            **{k: v for k, v in manifest.items() if k != "stopped_by"},
            "status": "running",
            "process": results.process_identity(),
            "finished": None,
            "sessions": [*manifest.get("sessions", ()), earlier],
        }
        (self.out / results.PARTS_DIR).mkdir(parents=True, exist_ok=True)
        self._save()


def resume(
    out: str | os.PathLike[str],
    *,
    config: Any = None,
    config_label: str | None = None,
    games: int | None = None,
    seed: int | None = None,
    chunk_size: int | None = None,
    threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RunSummary:
    """Continue the run in ``out`` (stopped by Ctrl-C, killed, or failed) from its finished
    chunks, and end with the dataset an uninterrupted run writes: the same parts, byte for byte,
    and the same manifest but for timings, the process and ``sessions``.

    ``config`` (with ``--set`` applied; ``config_label`` names it in errors), ``games``, ``seed``
    and ``chunk_size``, when given, must be the run's (checked against its manifest); by default
    the manifest's resolved config is played. A complete run returns at once (nothing played).
    Raises RunnerError or ResultsError (one line) before anything is written."""
    out = Path(out)
    threads = _run_threads(threads)
    check_threads(threads)
    results.read_manifest(out)  # a results directory, before its lock is taken in it
    with results.one_writer(out):
        return _resume_locked(
            out,
            config=config,
            config_label=config_label,
            games=games,
            seed=seed,
            chunk_size=chunk_size,
            threads=threads,
            progress=progress,
        )


def _resume_locked(
    out: Path,
    *,
    config: Any,
    config_label: str | None,
    games: int | None,
    seed: int | None,
    chunk_size: int | None,
    threads: int,
    progress: Callable[[int, int], None] | None,
) -> RunSummary:
    """:func:`resume`, holding the directory's writer lock."""
    from balance.config import config_hash

    manifest = results.read_manifest(out)
    file = out / results.MANIFEST
    status = manifest.get("status")
    if status == "running":
        raise RunnerError(
            f"{out}: {results.status_text(manifest)}: the run is still being written there"
        )
    if status not in (*RESUMABLE, "complete"):
        raise RunnerError(f"{file}: status {status!r} is not a run that can be resumed")
    if manifest.get("version") != balance.__version__:
        raise RunnerError(
            f"{file}: written by balance {manifest.get('version')}, this is "
            f"{balance.__version__}: resume it with that version, or re-run with --force"
        )
    recorded = manifest.get("config")
    if not isinstance(recorded, dict):
        raise RunnerError(f"{file}: records no config to resume")
    ran = results.check_config(manifest, out)  # its hash recomputed: an edited config is refused
    if config is not None:
        mine = config.model_copy(update={"games": ran.games, "seed": ran.seed})
        if config_hash(mine) != manifest.get("config_hash"):
            where = _first_difference(mine.resolved_dict(), recorded)
            raise RunnerError(
                f"{config_label or 'CONFIG'}: {where} in the run in {out} (its "
                f"{results.MANIFEST}); --resume continues that run with its own config"
            )
    expected = {
        "--games": (games, manifest.get("games_requested")),
        "--seed": (seed, manifest.get("seed")),
        "--chunk-size": (chunk_size, manifest.get("chunk_size")),
    }
    for option, (given, theirs) in expected.items():
        if given is not None and given != theirs:
            raise RunnerError(
                f"{option} {given}: the run in {out} has {option} {theirs}; "
                "--resume continues it as it was started"
            )
    games, seed, chunk_size = (int(manifest[k]) for k in ("games_requested", "seed", "chunk_size"))
    check_options(
        games=games, seed=seed, chunk_size=chunk_size, threads=None, players=len(ran.seats)
    )
    kept = _finished_parts(out, manifest, chunk_size)
    earlier = dict(manifest)
    for k in ("recorded_status", "status_detail"):  # a reader's annotations, not the file's
        earlier.pop(k, None)
    earlier["status"] = manifest.get("recorded_status", status)
    done = sum(p["games"] for p in kept)
    if status == "complete" and done == games:
        return RunSummary(
            out=out,
            status="complete",
            games_requested=games,
            games_done=games,
            rows=games * len(ran.seats),
            parts=len(kept),
            seed=seed,
            threads=int(manifest.get("threads") or threads),
            compile_time_s=0.0,
            wall_time_s=0.0,
            games_per_s=0.0,
            games_kept=games,
            backend=dict(manifest.get("backend") or {"name": "local"}),
        )
    earlier["parts"], earlier["games_done"] = kept, done
    with interruptible():
        prepared = _prepare_here_or_there(ran, seed)
    earlier["threads"] = threads

    def writer() -> results.ResultsWriter:
        _clear_leftovers(out, kept)
        return _ResumedWriter(out, earlier, ended=str(status))

    return _write_run(
        prepared,
        writer,
        out=out,
        seed=seed,
        games=games,
        first_game=done,
        chunk_size=chunk_size,
        threads=threads,
        progress=progress,
    )


def recorded_config(out: str | os.PathLike[str]) -> Any:
    """The resolved config the manifest of results directory ``out`` recorded (what ran)."""
    from balance.config import config_from_dict

    manifest = results.read_manifest(out)
    if not isinstance(manifest.get("config"), dict):
        raise RunnerError(f"{Path(out) / results.MANIFEST}: records no config")
    return config_from_dict(manifest["config"], str(Path(out) / results.MANIFEST))


def recorded_path(out: str | os.PathLike[str]) -> str | None:
    """The config path the manifest of ``out`` recorded (None for a run without one)."""
    return results.read_manifest(out).get("config_path")


def _finished_parts(out: Path, manifest: dict[str, Any], chunk_size: int) -> list[dict[str, Any]]:
    """The manifest's parts, checked: each holds the next ``chunk_size`` games (the layout an
    uninterrupted run writes) and has its parquet footer; ResultsError names one that is not."""
    file = out / results.MANIFEST
    kept, at = [], 0
    for i, part in enumerate(manifest["parts"]):
        if not isinstance(part, dict) or part.get("file") != results.part_name(i):
            raise RunnerError(f"{file}: parts[{i}] is not {results.part_name(i)}; re-run --force")
        if part.get("first_game") != at or part.get("games") != min(
            chunk_size, int(manifest["games_requested"]) - at
        ):
            raise RunnerError(
                f"{file}: parts[{i}] holds games from {part.get('first_game')} "
                f"({part.get('games')} games), not the chunk of --chunk-size {chunk_size} from "
                f"game {at}; re-run with --force"
            )
        path = out / results.PARTS_DIR / part["file"]
        if not path.is_file():
            raise results.ResultsError(f"{path}: listed in {results.MANIFEST} but missing")
        results.check_part(path, manifest, part)
        kept.append(dict(part))
        at += part["games"]
    if at != int(manifest.get("games_done") or 0):
        raise RunnerError(
            f"{file}: games_done is {manifest.get('games_done')}, its parts hold {at} games; "
            "re-run with --force"
        )
    return kept


def _clear_leftovers(out: Path, kept: list[dict[str, Any]]) -> None:
    """Remove what a killed session left beside its listed parts: temporary files, and a part
    renamed into place whose manifest entry was never written (it is played again)."""
    listed = {p["file"] for p in kept}
    for path in (out / results.PARTS_DIR).iterdir():
        if path.name not in listed:
            path.unlink()
    for path in out.glob(".*.tmp"):
        path.unlink()


def _first_difference(mine: Any, theirs: Any, path: str = "") -> str:
    """The first dotted key where two resolved configs differ, with both values."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        keys = [*mine, *(k for k in theirs if k not in mine)]
        for key in sorted(keys, key=lambda k: k == "description"):  # a rule before the words
            if key == "report":
                continue
            if mine.get(key) != theirs.get(key):
                return _first_difference(
                    mine.get(key), theirs.get(key), f"{path}.{key}".lstrip(".")
                )
    if isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        for i, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            if a != b:
                return _first_difference(a, b, f"{path}[{i}]")
    return f"{path or 'config'}: {json.dumps(mine)} here, {json.dumps(theirs)}"


class _Stop:
    """Set by the handlers of :func:`_deferred_sigint`: a plain attribute, since a signal
    handler may run at any bytecode of the main thread, even inside another handler (an Event
    would take a lock the interrupted code may hold)."""

    requested = False


@contextlib.contextmanager
def _deferred_sigint() -> Iterator[_Stop]:
    """For the block, SIGINT (Ctrl-C), and SIGTERM and SIGHUP where they stop like Ctrl-C
    (:func:`balance.errors.stop_on_terminate`, as the CLI sets them), set ``requested`` on the
    yielded flag instead of raising KeyboardInterrupt; every further signal does the same.

    A KeyboardInterrupt can land on any bytecode of the main thread: half-way through writing the
    manifest, inside a ``finally`` that records the end, while waiting for the writer thread. Then
    the run stayed ``running`` with no end time and a temporary file. With the flag, the loop
    stops between chunks and the run always ends in order. Python runs signal handlers on the
    main thread only: called from another thread (a library caller's), or for a signal that does
    not raise KeyboardInterrupt (ignored, or the caller's own handler), this changes nothing."""
    stop = _Stop()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    deferred = [
        sig
        for sig in (signal.SIGINT, *errors.terminate_signals())
        if (
            raises_keyboard_interrupt(signal.getsignal(sig))
            if sig == signal.SIGINT
            else errors.terminates_like_ctrl_c(sig)
        )
    ]

    def handler(signum: int, frame: Any) -> None:
        errors.note_stop(signum)
        stop.requested = True

    previous = {sig: signal.getsignal(sig) for sig in deferred}
    for sig in deferred:
        signal.signal(sig, handler)
    try:
        yield stop
    finally:
        for sig, was in previous.items():  # Ctrl-C raises KeyboardInterrupt again
            signal.signal(sig, was)


def check_game(game: int, players: int) -> None:
    """``--game`` of a replay: an index a run of ``players`` could have (simulate's bound)."""
    if game < 0:
        raise RunnerError(f"--game must be >= 0, got {game}")
    if game >= (limit := results.max_games(players)):
        raise RunnerError(
            f"--game {game:,} is beyond any run: a results dataset holds at most {limit:,} "
            f"games of {players} players ({results.ROW_LIMIT_TEXT})"
        )


def narrate(config: Any, *, game: int, seed: int | None = None) -> list[str]:
    """Game ``game`` of the run seeded with ``seed`` (default: the config's), in words."""
    check_game(game, config.players)
    seed = config.seed if seed is None else seed
    _check_seed(seed)
    plugin = registry.get(config.game)
    return list(plugin.narrate(plugin.compile(config), seed, game))


def pictured_games() -> list[str]:
    """The games that draw replay pictures (``Game.draws_pictures``)."""
    return [name for name in registry.names() if registry.get(name).draws_pictures]


def replay_page(config: Any, *, game: int, seed: int | None = None) -> str:
    """Game ``game`` of the run seeded with ``seed`` (default: the config's) as the game's HTML
    page of pictures; RunnerError (one line naming the games that have pictures) for a game
    without them, before anything is compiled or played."""
    check_game(game, config.players)
    seed = config.seed if seed is None else seed
    _check_seed(seed)
    plugin = registry.get(config.game)
    page = None
    if plugin.draws_pictures:
        page = plugin.replay_page(plugin.compile(config), seed, game)
    if page is None:
        pictured = pictured_games()
        raise RunnerError(
            f"{config.game} has no replay pictures; --html is for "
            + (", ".join(pictured) or "no game yet")
        )
    return page


def write_replay_page(
    config: Any, out: str | os.PathLike[str], *, game: int, seed: int | None = None
) -> Path:
    """Write ``replay_page(config, game=, seed=)`` to ``out`` (parents created), atomically
    (balance/outputs.py: a temporary file renamed into place, so that a failure in the game or
    while writing leaves no partial file and an earlier ``out`` as it was); ``out`` is checked
    before the game is played (a directory, FIFO or device is refused, one line)."""
    from balance import outputs

    outputs.check_output_file(out, "--html")
    html = replay_page(config, game=game, seed=seed)
    return outputs.write_atomic(out, html)


def default_out(config: Any, config_path: str | os.PathLike[str], *, now: Any = None) -> Path:
    """``results/<game>-<config stem>-<date>-<time>`` (e.g. ``results/five_ravens-base-20261201-1330``):
    the folder ``balance simulate`` writes to without ``--out``; ``-2``, ``-3``... is appended when
    a run of the same minute already took the name."""
    from datetime import datetime

    now = now or datetime.now()
    base = Path("results") / f"{config.game}-{Path(config_path).stem}-{now:%Y%m%d-%H%M}"
    out, n = base, 1
    while out.exists() and (not out.is_dir() or any(out.iterdir())):
        n += 1
        out = base.with_name(f"{base.name}-{n}")
    return out


# A run expected to take longer than this, or to need more disk than is free, asks first.
LONG_RUN_S = 3600.0
# Parquet bytes per row (game, seat), telemetry included, a little above what the shipped base
# configs write (12.5 for Five Ravens, 13.7 for Raven Order: 65,536 games, du -sb).
BYTES_PER_ROW = 16


def run_costs(
    config: Any, *, games: int | None, out: Path, threads: int | None = None
) -> list[str]:
    """Why a run of ``games`` games of ``config`` into ``out`` deserves a confirmation, as
    one-line reasons: expected to take more than an hour (at the game's benchmark speed,
    ``bench.speed``, scaled to ``threads``), or to write more than the free disk space of
    ``out``'s nearest existing parent. ``[]`` when neither (or when nothing is known)."""
    games = config.games if games is None else games
    plugin = registry.get(config.game)
    reasons = []
    target = plugin.bench.speed
    if target:
        cores = _cores()
        speed = float(target[1]) * min(threads or cores, cores) / cores
        seconds = games / speed
        if seconds > LONG_RUN_S:
            reasons.append(
                f"{games:,} games of {config.game} take about {seconds / 3600:.1f} h "
                f"at {speed:,.0f} games/s"
            )
    need = games * len(config.seats) * BYTES_PER_ROW
    probe = Path(os.path.abspath(out)).parent
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    with contextlib.suppress(OSError):
        free = shutil.disk_usage(probe).free
        if need > free:
            reasons.append(
                f"{games:,} games write about {_size(need)}, more than the "
                f"{_size(free)} free in {probe}"
            )
    return reasons


def _size(n: float) -> str:
    return f"{n / 1e9:,.1f} GB" if n >= 1e9 else f"{n / 1e6:,.1f} MB"


def _check_seed(seed: int) -> None:
    if not 0 <= seed < 2**63:  # kernels take the seed as an int64
        raise RunnerError(f"--seed must be between 0 and 2**63 - 1, got {seed}")


def _check_out(out: Path, *, force: bool) -> None:
    if not out.exists() or (out.is_dir() and not results.entries(out)):
        return
    if not out.is_dir():
        raise RunnerError(f"{out}: exists and is not a directory; choose another --out")
    if not force:
        raise RunnerError(
            f"{out}: output directory exists and is not empty; "
            "choose another --out or pass --force to replace it"
        )
    if not (out / results.MANIFEST).is_file():
        # --force replaces an old run, never a directory that merely happens to be in the way.
        raise RunnerError(
            f"{out}: exists and is not a results directory (no {results.MANIFEST}); "
            "refusing to replace it even with --force, choose another --out"
        )


def _clear_out(out: Path) -> None:
    if out.is_dir():
        results.clear(out)  # keeps the writer lock this process holds in it


def _check_fresh(chunk: Chunk, previous: Chunk | None) -> None:
    """A plugin bug that would silently corrupt the dataset, caught at the chunk boundary (the
    range of games is checked by play_chunks)."""
    if previous is None:
        return
    arrays = (chunk.score, chunk.rank, chunk.turns, chunk.end_reason, chunk.order, chunk.telemetry)
    old = (
        previous.score,
        previous.rank,
        previous.turns,
        previous.end_reason,
        previous.order,
        previous.telemetry,
    )
    if any(np.may_share_memory(a, b) for a, b in zip(arrays, old, strict=True)):
        # Chunk k is written while chunk k+1 is simulated, so play must return fresh arrays.
        raise RuntimeError("play() reused the previous chunk's output arrays; return new arrays")
