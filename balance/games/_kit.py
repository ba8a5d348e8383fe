"""Kernel helpers every game uses, so that a new game copies none of them (DESIGN.md, Layout).

For the layouts (plain Python; the offsets are module constants the kernels compile in):

- ``Offsets``: offsets of a row's pieces generated from their widths, declared in order once
  (``at = Offsets(); G_FIRST = at(1); B_CENTRE = at(MAX_SLOTS); N_BOARD = at.end``), so that
  adding a piece never means renumbering the ones after it.

Inside the kernels (``@njit``):

- ``log_event``: one row of a game's event log (narrate.py tells them), if it has room. A game's
  ``state.emit(st, code, a, ..., h)`` binds it to where that game keeps its log counters.
- ``shuffle``: Fisher-Yates with one of the game's random streams (balance.rng).
- ``clip_u8`` and ``tally_clipped``: a telemetry count as uint8, and the count of the cells that
  were clipped per column, so that the manifest says how many saturated (``Chunk.saturated``)
  instead of clipping silently.

In Python:

- ``check_play``: the argument checks of a game's ``engine.play`` (and ``check_replay`` of its
  ``narrate.play_logged``); errors are raised here, never inside a kernel.
- ``saturation_rows`` / ``saturated``: the per-block clip counts a batch kernel fills (one row per
  block, so that threads never write the same cell) and their column sums.
- ``in_threads``: a batch kernel's units (blocks of games) over the threads, in pieces.
- ``Outputs``, ``alloc_outputs`` and ``play_chunk``: the Python side of every game's
  ``engine.play``: the batch kernel's output arrays, allocated once here, and the ``Chunk`` made
  of them, so that a game's ``play`` is one call.
- ``Logged`` and ``play_logged``: the replay loop that plays one game with an event log again with
  four times the room until its log fits.

The names every game's ``state.py`` gives the same things (the dialect; DESIGN.md, Layout):
``BLOCK_GAMES`` (games per block of the batch kernel), ``State`` with ``pl`` (seat rows,
``PL_*`` offsets, ``N_PL`` wide) and ``board`` (the game's scalars ``G_*`` then its public pieces
``B_*``, ``N_BOARD`` wide), ``rng`` and the event log; ``Work`` and ``alloc_work(tb)``, the
scratch of ``engine.play_game(tb, st, seed, game, work)``; ``END_REASONS`` and
``EXTRA_COLUMNS``.
"""

from __future__ import annotations

import contextlib
import mmap
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

import numba
import numpy as np
from numba import njit

from balance.games.base import Chunk, point_index
from balance.rng import below

LOG_WIDTH = 8  # a log row: the event code, then seven integers
LOG_CAP = 4096  # log rows of a replay's first try; a game that fills them is played again
U8_MAX = 255  # telemetry counts are uint8


class Offsets:
    """Offsets of the consecutive pieces of an array row, from their widths in declaration order.

    ``at(width)`` returns the offset of the next piece and moves past it; ``at.end`` is the width
    of everything declared so far. Plain Python: the offsets are module constants that numba
    compiles in as numbers.
    """

    def __init__(self, start: int = 0) -> None:
        self.end = start

    def __call__(self, width: int = 1) -> int:
        if width < 0:
            raise ValueError(f"a piece's width must be >= 0, got {width}")
        at = self.end
        self.end += width
        return at


# ---------------------------------------------------------------- kernels


@njit(cache=True, _nrt=False, inline="always")
def log_event(board, aux, n_at, cap_at, row0_at, code, a, b, c, d, e, f, h):
    """Append the row ``(code, a, ..., h)`` to the event log in ``aux`` (rows from
    ``board[row0_at]``, ``board[n_at]`` of ``board[cap_at]`` used); a full log drops the event
    (the replay loop, ``play_logged``, then plays the game again with more room)."""
    n = board[n_at]
    if n < board[cap_at]:
        row = aux[board[row0_at] + n]
        row[0] = code
        row[1] = a
        row[2] = b
        row[3] = c
        row[4] = d
        row[5] = e
        row[6] = f
        row[7] = h
        board[n_at] = n + 1


@njit(cache=True, _nrt=False, forceinline=False)
def shuffle(a, n, rng):
    """Fisher-Yates shuffle of ``a[:n]`` with the stream ``rng`` (uint64[1])."""
    for i in range(n - 1, 0, -1):
        j = below(rng, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t


@njit(cache=True, _nrt=False, inline="always")
def clip_u8(v):
    """A telemetry count ``v`` as a uint8 cell: 255 if it is larger.

    A batch kernel ORs the raw counts of a row while it stores them clipped (counts are >= 0, so
    the OR passes 255 exactly when a count does) and, only then, counts the clipped cells with
    ``tally_clipped``: the common row costs one OR a cell more than clipping silently, where a
    count kept in the same loop would cost a branch and a store (measured: 1-2 % of a game)."""
    return U8_MAX if v > U8_MAX else v


@njit(cache=True, _nrt=False, inline="always")
def tally_clipped(v, clipped, j):
    """One more clipped cell in ``clipped[j]`` (the block's row of ``saturation_rows``) if the
    count ``v`` of column ``j`` is past 255."""
    if v > U8_MAX:
        clipped[j] += 1


# ---------------------------------------------------------------- Python layer


def check_play(seed: int, first_game: int, n_games: int) -> None:
    """The arguments of a game's ``engine.play``: ValueError naming the one that is wrong."""
    if n_games < 0 or first_game < 0:
        raise ValueError("first_game and n_games must be >= 0")
    check_seed(seed)


def check_replay(seed: int, game: int) -> None:
    """The arguments of a game's ``narrate.play_logged``."""
    if game < 0:
        raise ValueError(f"game must be >= 0, got {game}")
    check_seed(seed)


def check_seed(seed: int) -> None:
    if not 0 <= seed < 2**63:
        raise ValueError(f"seed must be in [0, 2**63), got {seed}")


def saturation_rows(n_games: int, block: int, n_columns: int) -> np.ndarray:
    """int64[n_blocks, n_columns] of zeros: row b is block b's clip counts (``clip_u8``)."""
    return np.zeros(((n_games + block - 1) // block, n_columns), np.int64)


def saturated(rows: np.ndarray) -> np.ndarray:
    """``Chunk.saturated`` (int64[C]) from the blocks' rows."""
    return rows.sum(axis=0, dtype=np.int64)


class Logged(NamedTuple):
    """One game played by the batch kernel's per-game function with its event log kept."""

    log: np.ndarray  # int32[n, LOG_WIDTH]: code, then the seven integers given to emit
    state: Any  # the game's final state (its state.State)
    score: np.ndarray  # int32[P]
    rank: np.ndarray  # int32[P]
    turns: int
    end_reason: int  # index into the plugin's end_reasons
    # int16[points, P, K]: the game's trajectory (Chunk.trace's row); None for a game that keeps none
    trace: np.ndarray | None = None


def play_logged(play: Callable[[int], Logged], seed: int, game: int, cap: int = LOG_CAP) -> Logged:
    """``play(cap)`` (one game with room for ``cap`` log rows), with four times the room until the
    log fits: a log that filled every row may have dropped events."""
    check_replay(seed, game)
    while True:
        logged = play(cap)
        if logged.log.shape[0] < cap:
            return logged
        cap *= 4


def one_trace(
    record_trace: Callable[..., None],
    tb: Any,
    st: Any,
    work: Any,
    cap: int,
    players: int,
    n_measures: int,
) -> np.ndarray:
    """int16[points, P, K]: the trajectory of the ended game in ``st`` (played with ``work``) as
    the batch records it (the engine's ``record_trace`` into a one-game output),
    for a replay's ``Logged.trace``; ``cap`` is the game's ``state.trace_cap(tb)``."""
    trace = np.zeros((cap, players, n_measures), np.int16)
    points = trace_points(1, 1, cap)
    record_trace(tb, st, work, np.int64(0), trace, points)
    return trace[: points[0, 0]].copy()


def copy_log(aux: np.ndarray, row0: int, n: int) -> np.ndarray:
    """A copy of the ``n`` log rows of ``aux`` from row ``row0`` (as ``log_event`` wrote them)."""
    return aux[row0 : row0 + n, :LOG_WIDTH].copy()


class Outputs(NamedTuple):
    """The output arrays of a game's batch kernel for ``n`` games of ``P`` seats
    (``engine.play_batch(tb, seed, first_game, n_games, out, b0, b1)``); ``alloc_outputs`` makes
    them. Game g writes row g of each (its trajectory, its block's room) and block b row b of
    ``clipped``, so that the threads of ``in_threads`` never write the same cell.
    """

    score: np.ndarray  # int32[n, P]
    rank: np.ndarray  # int32[n, P]
    turns: np.ndarray  # int32[n]
    end: np.ndarray  # int32[n]: index into state.END_REASONS
    order: np.ndarray  # int32[n, P]
    team: np.ndarray  # int32[n, P], or int32[0, P] for a game that deals no teams
    role: np.ndarray  # int32[n, P], or int32[0, P] for a game that deals no roles
    extra: np.ndarray  # int32[n, P, X]: state.EXTRA_COLUMNS
    tele: np.ndarray  # uint8[n, P, C]
    clipped: np.ndarray  # int64[blocks, C]: saturation_rows
    # The games' trajectories (state.TRACE_MEASURES), ragged: game g recorded points[g, 0]
    # points, rows points[g, 1] .. + points[g, 0] of ``trace`` (row k: each seat's measures at
    # point k; point 0 the start, one point per round, the last the game's end). Each block of
    # the batch has room for its games' most points (trace_cap each), which it fills from its
    # start, game after game (``trace_row``), so a chunk touches the rows its games recorded and
    # no more (a Raven Order game records about 15 of the 101 points its turn cap allows, but
    # one game in 60 reaches the cap: room by game would touch every page). int16[0, P, 0] and
    # int64[0, 2] for a game that keeps none. Chunk.trace_rows is the rows without the gaps.
    trace: np.ndarray  # int16[n * trace_cap, P, K]
    points: np.ndarray  # int64[n, 2]: points recorded, first row


def alloc_outputs(
    n_games: int,
    players: int,
    n_tele: int,
    block: int,
    n_extra: int = 0,
    *,
    team: bool = False,
    role: bool = False,
    trace_cap: int = 0,
    n_measures: int = 0,
) -> Outputs:
    """Zeroed output arrays (large ones come from fresh pages, so zeroing is not a pass);
    ``trace_cap`` points of ``n_measures`` measures a seat for a game that keeps a trajectory."""
    rows = (n_games, players)
    return Outputs(
        score=np.zeros(rows, np.int32),
        rank=np.zeros(rows, np.int32),
        turns=np.zeros(n_games, np.int32),
        end=np.zeros(n_games, np.int32),
        order=np.zeros(rows, np.int32),
        team=np.zeros(rows if team else (0, players), np.int32),
        role=np.zeros(rows if role else (0, players), np.int32),
        extra=np.zeros((*rows, n_extra), np.int32),
        tele=np.zeros((*rows, n_tele), np.uint8),
        clipped=saturation_rows(n_games, block, n_tele),
        trace=trace_room(n_games * trace_cap if n_measures else 0, players, n_measures),
        points=trace_points(n_games if n_measures else 0, block, trace_cap),
    )


def trace_room(rows: int, players: int, n_measures: int) -> np.ndarray:
    """int16[rows, P, K] of fresh zero pages, small ones (no transparent huge pages): the room
    of a chunk's trajectories, of which the batch touches the rows its games record (each
    block's from the start of its room), so the pages of the rest are never faulted in. numpy
    asks for huge pages for any array of 4 MB or more, and a 2 MB page is faulted in (and
    zeroed) whole, so the gaps between the blocks' rows would be paid for in full."""
    nbytes = rows * players * n_measures * 2
    if nbytes < 1 << 22:
        return np.zeros((rows, players, n_measures), np.int16)
    shape = (rows, players, n_measures)
    with _SPARE_LOCK:  # a room given back by an earlier chunk: its pages are already there
        for i, spare in enumerate(_SPARE):
            if spare.size >= rows * players * n_measures:
                return _SPARE.pop(i)[: rows * players * n_measures].reshape(shape)
    room = mmap.mmap(-1, nbytes)  # anonymous and private: zero pages, faulted in on first write
    if hasattr(mmap, "MADV_NOHUGEPAGE"):
        with contextlib.suppress(OSError):
            room.madvise(mmap.MADV_NOHUGEPAGE)
    return np.frombuffer(room, np.int16).reshape(shape)


# Rooms of chunks whose rows were copied out (``give_back``), kept for the next chunk's play:
# a room's content is never read before the batch writes it (each game's rows are written whole
# before the Chunk copies them), so a room is reused as it is, its pages faulted in once.
_SPARE: list[np.ndarray] = []
_SPARE_LOCK = threading.Lock()
SPARE_ROOMS = 2  # at most this many kept (a process plays one or two configs' chunks at a time)


def give_back(trace: np.ndarray) -> None:
    """Keep a large room of trace_room for the next chunk, once its rows are copied out."""
    room = trace
    while isinstance(room.base, np.ndarray):  # the whole room, not the part this chunk used
        room = room.base
    if not isinstance(room.base, memoryview):  # np.zeros: a small room, not kept
        return
    with _SPARE_LOCK:
        if len(_SPARE) < SPARE_ROOMS and all(r is not room for r in _SPARE):
            _SPARE.append(room)


def trace_points(n_games: int, block: int, cap: int) -> np.ndarray:
    """int64[n, 2] (Outputs.points): no points yet; the first row of each block's first game
    is its block's room (block b of ``block`` games at row b * block * cap), the others -1 (after
    the game before them: ``trace_row``)."""
    points = np.zeros((n_games, 2), np.int64)
    points[:, 1] = -1
    first = np.arange(0, n_games, max(block, 1))
    points[first, 1] = first * cap
    return points


@njit(cache=True, _nrt=False, inline="always")
def trace_row(g, n, points):
    """The first row of game ``g``'s ``n`` trajectory points in a batch's ragged outputs
    (Outputs.trace, Outputs.points), recorded in ``points``: its block's room for the block's
    first game, else right after the game before it (the games of a block are played in
    order). A batch whose games are played in any order (the search player's) gives each game
    the room of a block of one."""
    s = points[g, 1]
    if s < 0:
        s = points[g - 1, 1] + points[g - 1, 0]
        points[g, 1] = s
    points[g, 0] = n
    return s


def to_chunk(
    out: Outputs,
    first_game: int,
    extra_names: tuple[str, ...],
    *,
    team: bool = False,
    role: bool = False,
) -> Chunk:
    """The ``Chunk`` of a batch kernel's outputs (``team``/``role``: the game deals them;
    otherwise the Chunk's are None)."""
    return Chunk(
        first_game=first_game,
        score=out.score,
        rank=out.rank,
        turns=out.turns,
        end_reason=out.end,
        order=out.order,
        telemetry=out.tele,
        extra={
            name: np.ascontiguousarray(out.extra[:, :, k]) for k, name in enumerate(extra_names)
        },
        team=out.team if team else None,
        role=out.role if role else None,
        saturated=saturated(out.clipped),
        **_trace_fields(out),
    )


def _trace_fields(out: Outputs) -> dict[str, Any]:
    """The Chunk's trajectory fields from a batch's ragged outputs: the recorded rows of every
    game, in order and without the gaps (a copy, so the room is given back at once)."""
    n = out.score.shape[0]
    if out.points.shape[0] != n or not n or not out.trace.size:
        return {}
    points = out.points[:, 0]
    if points.min() < 1:
        raise ValueError("a game of the chunk recorded no trajectory point")
    trace_rows = _gather(out.trace, out.points[:, 1], points)
    give_back(out.trace)
    return {
        "trace_rows": trace_rows,
        "points": points.astype(np.int32),
        "trace_cap": out.trace.shape[0] // n,
    }


def _gather(trace: np.ndarray, first: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The rows ``first[g]`` .. + ``points[g]`` of ``trace`` for each game g in turn, copied.
    A block's games fill its room one after the other, so the rows are a few runs (one a
    block): copied run by run, about 4 times faster than indexing row by row, which cost two
    threads of The Raven Order 4 % of their games/s (the copy is made on one thread)."""
    end = first + points
    cut = np.flatnonzero(first[1:] != end[:-1]) + 1  # a game whose rows do not follow the last's
    if 8 * len(cut) > len(first):  # a room by game (the search player's batches): by row
        return trace[np.repeat(first, points) + point_index(points)]
    lo = np.concatenate(([0], cut))
    hi = np.concatenate((cut, [len(first)]))
    return np.concatenate([trace[first[a] : end[b - 1]] for a, b in zip(lo, hi, strict=True)])


def play_chunk(
    batch: Callable[..., None],
    kernel_tables: Any,
    seed: int,
    first_game: int,
    n_games: int,
    *,
    players: int,
    n_tele: int,
    block: int,
    extra_names: tuple[str, ...] = (),
    team: bool = False,
    role: bool = False,
    trace_cap: int = 0,
    n_measures: int = 0,
) -> Chunk:
    """A game's ``engine.play``: checks the arguments, allocates the outputs, runs the batch
    kernel ``batch(kernel_tables, seed, first_game, n_games, out, b0, b1)`` on its blocks
    [b0, b1) of ``block`` games each (``in_threads``) and returns the Chunk."""
    check_play(seed, first_game, n_games)
    out = alloc_outputs(
        n_games,
        players,
        n_tele,
        block,
        len(extra_names),
        team=team,
        role=role,
        trace_cap=trace_cap,
        n_measures=n_measures,
    )
    args = (kernel_tables, np.int64(seed), np.int64(first_game), np.int64(n_games), out)
    in_threads(lambda b0, b1: batch(*args, np.int64(b0), np.int64(b1)), len(out.clipped))
    return to_chunk(out, first_game, extra_names, team=team, role=role)


PIECES_PER_THREAD = 8  # pieces of a chunk per thread: a thread that finishes early takes more


def in_threads(call: Callable[[int, int], None], n_units: int, threads: int | None = None) -> None:
    """``call(b0, b1)`` over the units [0, n_units) in pieces, on ``threads`` threads (default
    ``numba.get_num_threads()``, what ``--threads`` and ``numba.set_num_threads`` set), this one
    among them; ``call`` is a compiled kernel that releases the GIL (``nogil=True``).

    A batch kernel is a plain loop over its units (blocks of games, or games), not numba's
    ``prange``: a parallel loop compiles the whole game twice more (its gufunc and the function
    around it, each optimised with every callee linked in), a fifth of a batch kernel's cold
    compile and two fifths of a search kernel's. Pieces are taken in turn by whichever thread is
    free, so a thread slowed by a neighbour takes fewer. Each unit writes only its own rows
    of the outputs, so the games are the same on any number of threads. An exception in any
    thread (Ctrl-C in this one) stops the others taking pieces and is raised here once they
    have finished the piece they are in."""
    if threads is None:
        threads = numba.get_num_threads()
    threads = max(1, min(threads, n_units))
    if threads == 1:  # no units: call(0, 0) still loads the kernel (``play`` of no games)
        call(0, n_units)
        return
    pieces = min(n_units, PIECES_PER_THREAD * threads)
    bounds = [k * n_units // pieces for k in range(pieces + 1)]
    taken = iter(range(pieces))
    lock = threading.Lock()
    failed: list[BaseException] = []

    def work() -> None:
        try:
            while not failed:
                with lock:
                    k = next(taken, None)
                if k is None:
                    return
                call(bounds[k], bounds[k + 1])
        except BaseException as e:  # re-raised in the calling thread
            failed.append(e)

    helpers = [threading.Thread(target=work, daemon=True) for _ in range(threads - 1)]
    for t in helpers:
        t.start()
    try:
        work()
    finally:
        for t in helpers:
            t.join()
    if failed:
        raise failed[0]
