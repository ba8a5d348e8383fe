"""Writing a run: play a config's games into a results directory, chunk by chunk.

One writer thread turns chunk k into a parquet part while chunk k+1 is simulated (the chunks come
from :func:`balance.runner.play.play_chunks`), so at most two chunks are alive at a time and
memory stays flat however many games run. Also here: the default output folder of a run and what a
run costs (time, disk) before it starts. Resuming a stopped run is balance/runner/resuming.py;
it writes through :func:`_write_run` too.

Nothing here prints: progress goes through the ``progress(games_done, games_total)`` callback.

Ctrl-C: from the moment :func:`run` touches the output directory until the manifest records how the
run ended, SIGINT only sets a flag that the loop checks between chunks (see :func:`_deferred_sigint`),
so an interrupt never lands half-way through a part, the manifest or the bookkeeping around them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import platform
import shutil
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import balance
from balance import errors, results
from balance import games as registry
from balance.errors import interruptible, raises_keyboard_interrupt
from balance.games.base import Chunk
from balance.runner.play import (
    _BACKEND,
    Prepared,
    RunnerError,
    _cores,
    _describe_backend,
    check_options,
    numba_threads,
    play_chunks,
    prepare,
)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped :func:`run` after it started writing: its manifest says ``interrupted`` and
    the ``games_done`` games written are kept in ``out`` (a KeyboardInterrupt that arrives before,
    while the kernels load, is a plain KeyboardInterrupt, and nothing was written)."""

    def __init__(self, out: Path, games_done: int) -> None:
        super().__init__(f"interrupted: kept {games_done:,} complete games in {out}")
        self.out = out
        self.games_done = games_done


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
    continues with :func:`balance.runner.resume`.
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
                # each seat's measures in the games' trajectories (trajectories/trace-NNNNN.parquet,
                # one a part; docs/results.md)
                "trace_measures": list(plugin.trace_measures),
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
        measures = writer.manifest.get("trace_measures")  # a run resumed keeps what it began with
        trace = results.trace_columns(chunk, measures) if measures else None
        writer.write_part(columns, first_game=chunk.first_game, n_games=chunk.n_games, trace=trace)

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
    return reasons + disk_costs(config, games=games, out=out)


def disk_costs(config: Any, *, games: int, out: Path) -> list[str]:
    """The disk half of :func:`run_costs`: a reason when ``games`` games of ``config`` would
    write more than the free space of ``out``'s nearest existing parent."""
    need = games * len(config.seats) * BYTES_PER_ROW
    probe = Path(os.path.abspath(out)).parent
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    with contextlib.suppress(OSError):
        free = shutil.disk_usage(probe).free
        if need > free:
            return [
                f"{games:,} games write about {_size(need)}, more than the "
                f"{_size(free)} free in {probe}"
            ]
    return []


def _size(n: float) -> str:
    return f"{n / 1e9:,.1f} GB" if n >= 1e9 else f"{n / 1e6:,.1f} MB"


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
