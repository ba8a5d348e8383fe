"""Playing games: the one place that plays them, chunk by chunk, here or on a backend.

Games are numbered ``0 .. games-1`` and a chunk is just a slice of that index, so the games played
depend only on (config, seed, games), never on the chunk size or the thread count (DESIGN.md,
Determinism). The game kernels run on the calling thread (numba's thread count is per thread:
:func:`numba_threads`); inside :func:`using_backend` a backend (balance/ray_backend.py) plays the
chunks instead. Also here: preparing a config (its tables compiled, its kernels loaded) and the
option checks every command that plays games shares. Nothing here prints.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple, Protocol

from balance import games as registry
from balance import results
from balance.errors import BalanceError
from balance.games.base import Chunk


class RunnerError(BalanceError):
    """A run cannot start; the message is one line that names the fix."""


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
    from balance.search import SearchTables

    if isinstance(tables, SearchTables):  # its search player's kernels come on top
        game = f"{game} and search player"
    if game in _LOADED:
        plugin.play(tables, seed, 0, 0)
        return
    from balance import _kernels

    package = registry._GAMES.get(plugin.name, type(plugin).__module__)
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


def _check_seed(seed: int) -> None:
    if not 0 <= seed < 2**63:  # kernels take the seed as an int64
        raise RunnerError(f"--seed must be between 0 and 2**63 - 1, got {seed}")


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
