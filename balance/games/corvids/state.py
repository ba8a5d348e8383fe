"""Corvids game state: array layout, event codes and the small helpers shared by the engine, the
policies and narrate.

The pile is a ``physics.Pile``: its geometry (cards, cst, feathers, fst) and the cache the engine
keeps of what it implies (overlaps, what lies on what, nests, visibility; physics.py draws it).
The game adds what each card shows and who holds it, the seats and the turn. Every card and
feather is always in exactly one place: in the pile (``physics`` ON flag), collected by a seat
(cards: ``CC_OWNER``; feathers: ``PL_FEATHERS``), or removed from play (off the mat, or isolated
at the end of a turn).

::

    pile      physics.Pile            the pile (cards, cst, feathers, fst and the cache)
    item      int64[MAXC, 2]          the item on the front and on the back (tables.BLANK: the
                                      back of a single-sided card, CV-2)
    cc        int64[MAXC, N_CC]       per card: CC_OWNER (OWN_PILE, OWN_REMOVED or the seat),
                                      CC_TAKEN_FACE, CC_USED, CC_TURN
    pl        int64[MAXP, N_PL]       per seat: bird, nest revealed, feathers held, steals left,
                                      telemetry
    board     int64[N_BOARD]          game scalars and counters (G_*); the pile is ``pile``
    rng       uint64[2 + MAXP, 1]     0 set-up (sides, scatter, feathers, birds), 1 the pile's
                                      physics in play, 2 + p seat p's policy
    log       int32[rows, 8]          the event log of a replay (0 rows in the batch kernel)
    snap      float64[rows, M, N_SN]  the pile after set-up and after every turn, for the replay's
                                      pictures (0 rows in the batch kernel)
    touch     int64[MAXC + 1]         the cards of the pile the last card taken touched as it lay
                                      (count first): a paperclip's choice (CV-4)

Every integer is int64 and every real float64, the state's arrays and the scratch (``Work``)
alike: the tables' are too (tables.py), so that every kernel has one compiled signature (Raven
Manor's engine docstring) and no index or count is converted on its way between them; the pile's
bit sets and float geometry would gain nothing from a narrower integer.

``Work`` (``alloc_work``) is the scratch of ``engine.play_game``: rows of integers (``ib``: the
choices a decision is offered, the greedy peck's candidates) and of reals (``fb``: the policies'
worths, kept per seat within a game), and the scores and ranks of the end (``engine.ranks``).
Policies read the pile, every collected face-up card, revealed birds, and their own seat's row
(its bird and face-down cards), CV-12.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from balance.games._kit import Offsets, copy_log, log_event
from balance.games.corvids import physics
from balance.games.corvids import tables as T

OWN_PILE, OWN_REMOVED = -1, -2  # CC_OWNER values besides a seat

BLOCK_GAMES = 64  # games per prange block of engine.play_batch (telemetry clip counts per block)

END_REASONS = ("pile_empty", "setup_failed")  # Chunk.end_reason: G_END - 1
END_EMPTY, END_SETUP = 1, 2  # G_END values (the index in END_REASONS + 1; 0 while playing)
# per seat, after the game (Chunk.extra); the game_* ones are the game's, on every seat's row
EXTRA_COLUMNS = (
    "feathers",
    "cards",
    "bird_points",
    "set_points",
    "nest_turn",
    "game_off_mat",
    "game_isolated",
    "game_setup_retries",
    "game_first_nest",
    "game_setup_redraws",
    "game_setup_pushes",
)

# Work.ib[IB_*]: rows of integers, as long as the pile has pieces (alloc_work)
_ib = Offsets()
IB_OFFER = _ib(1)  # the cards (feathers, tickets) a decision is offered: ib[IB_OFFER, :n]
IB_CAND = _ib(1)  # policies.greedy_peck: the cards it weighs pecking ...
IB_TARGET = _ib(1)  # ... and the card each would expose (-1 none)
N_IB = _ib.end

# Work.fb[FB_*]: rows of reals, as long as the pile has pieces (alloc_work)
_fb = Offsets()
FB_RISK = _fb(1)  # policies.string_risks: each seat's chance of an unused string (SR_*)
FB_NEST = _fb(1)  # the deciding seat's nest values, then greedy_peck's candidates' (NV_*)
FB_WORTH = _fb(1)  # the deciding seat's worths for this decision (policies.FV_*)
FB_BONUS = _fb(1)  # greedy_peck: a value per pile card
FB_SEAT = _fb(T.MAXP)  # + seat: its worths and nest values, kept within a game (policies.SV_*)
N_FB = _fb.end

# State.cc[c, CC_*]
_cc = Offsets()
CC_OWNER = _cc(1)  # OWN_PILE, OWN_REMOVED or the seat
CC_TAKEN_FACE = _cc(1)  # its face when collected: it keeps it (CV-3)
CC_USED = _cc(1)  # a ticket or string flipped face up to use it (CV-4)
CC_TURN = _cc(1)  # the turn it was collected
N_CC = _cc.end

# State.snap[t, piece, SN_*]: the pile after set-up (t = 0) and after turn t (cards first, then
# feathers; a feather's angle and face are 0)
_sn = Offsets()
SN_X = _sn(1)
SN_Y = _sn(1)
SN_A = _sn(1)
SN_H = _sn(1)
SN_ON = _sn(1)
SN_FACE = _sn(1)
N_SN = _sn.end

# State.pl[p, PL_*]
_pl = Offsets()
PL_BIRD = _pl(1)  # the bird dealt (index into the config's birds), CV-10
PL_REVEALED = _pl(1)  # turn + 1 its nest was first uncovered (bird revealed, CV-6), 0 never
PL_FEATHERS = _pl(1)  # feathers held
PL_CARDS = _pl(1)  # cards collected
PL_STEALS = _pl(1)  # steals left this turn (1, + tickets used: CV-4)
PL_HELD = _pl(T.NI)  # + item: collected cards that count as it (CV-3)
PL_SCRIPT = _pl(1)  # scripted values used (tables.with_script)
PL_TELE = _pl(T.N_TELE)  # + telemetry column (tables.TE_*)
N_PL = _pl.end

# State.board: game scalars, then the log's counters.
_b = Offsets()
G_N = _b(1)  # players
G_TURN = _b(1)  # turns played so far
G_ACTIVE = _b(1)
G_FIRST = _b(1)
G_END = _b(1)  # END_EMPTY (the pile holds no card, CV-7) or END_SETUP; 0 while playing
G_RETRIES = _b(1)  # set-up re-scatters, for an uncovered nest (CV-8, PHYS-4)
G_REDRAWS = _b(1)  # set-up: cards drawn again for landing off the mat (PHYS-4)
G_PUSHES = _b(1)  # set-up: cards pushed to cover a nest completely (CV-8, PHYS-4)
G_OFF_MAT = _b(1)  # cards knocked off the mat in the game
G_FEATHERS_OFF = _b(1)  # feathers knocked off the mat
G_ISOLATED = _b(1)  # pieces removed as isolated at the ends of turns
G_F_REMOVED = _b(1)  # feathers removed from play (off the mat or isolated)
G_FIRST_NEST = _b(1)  # turn + 1 the first seat's nest was uncovered, 0 never
G_CARDS_ISOLATED = _b(1)  # cards among the isolated pieces
G_PECKS = _b(1)  # pecks in the game (acorns add some)
G_SCRIPT_BAD = _b(1)  # a scripted choice was not legal (tests)
G_LOG_N = _b(1)
G_LOG_CAP = _b(1)
G_LOG0 = _b(1)
N_BOARD = _b.end

# Log events (narrate.py): code, then up to seven integers.
(
    E_START,  # players, first, cards, feathers, set-up re-scatters (-1: failed), cards redrawn,
    # cards pushed onto nests
    E_BIRD,  # p, bird, nest
    E_TURN,  # p, turn, feathers held, cards collected
    E_TICKET,  # p, card (flipped face up: one more steal this turn, CV-4)
    E_PECK,  # p, card, up item after the flip, pieces moved, pieces off the mat, aim x, aim y (mm)
    E_OFF,  # kind (0 card, 1 feather), index, up item (cards), by seat
    E_PICK,  # p, card, item it counts as, face (1 up), feathers gained, how (TAKE_*)
    E_ABILITY,  # p, item, card whose ability it is
    E_NUT,  # p, feathers taken
    E_STEAL,  # thief, victim, card, string flipped to keep it (-1 none), feathers paid, item
    E_NEST,  # p (whose nest is uncovered), nest, bird
    E_ISOLATED,  # cards removed, feathers removed
    E_SCORE,  # p, points, of which bird bonus, of which set bonus, feathers, cards, rank
    E_END,  # turns, end reason (END_*), winners
    E_MOVED,  # card (a piece resting on the pecked card that moved), x, y (mm), up item
) = range(15)

# How a card was taken (E_PICK)
TAKE_PICK, TAKE_EARRING, TAKE_PAPERCLIP = range(3)


class State(NamedTuple):
    """One game in progress (see the layout above)."""

    pile: physics.Pile
    item: np.ndarray
    cc: np.ndarray
    pl: np.ndarray
    board: np.ndarray
    rng: np.ndarray
    log: np.ndarray
    snap: np.ndarray
    touch: np.ndarray


@njit(cache=True, forceinline=False)
def alloc_state(tb, log_cap, snap):
    """A state for ``tb``'s game with room for ``log_cap`` log rows; ``snap``: keep the pile after
    every turn (a replay's pictures)."""
    n_cards = tb.params[T.P_DECK_N]
    n_feathers = tb.params[T.P_FEATHERS]
    board = np.zeros(N_BOARD, np.int64)
    board[G_LOG_CAP] = log_cap
    m = n_cards + n_feathers
    # a turn picks a card or knocks a piece off the mat for good (engine, ENGINE-4): at most m
    # turns, and the pile after set-up
    rows = m + 2 if snap else 0
    return State(
        physics.new_pile(tb.physics, n_cards, n_feathers),
        np.full((n_cards, 2), T.BLANK, np.int64),
        np.zeros((n_cards, N_CC), np.int64),
        np.zeros((T.MAXP, N_PL), np.int64),
        board,
        np.zeros((2 + T.MAXP, 1), np.uint64),
        np.zeros((max(1, log_cap), 8), np.int32),
        np.zeros((rows, m, N_SN), np.float64),
        np.zeros(n_cards + 1, np.int64),
    )


class Work(NamedTuple):
    """The scratch of ``engine.play_game`` (see the module docstring)."""

    ib: np.ndarray  # int64[N_IB, M]: IB_* rows
    fb: np.ndarray  # float64[N_FB, M]: FB_* rows
    score: np.ndarray  # int64[MAXP]: engine.ranks' scores ...
    rank: np.ndarray  # int64[MAXP]: ... and ranks


@njit(cache=True, forceinline=False)
def alloc_work(tb):
    """The scratch of ``engine.play_game`` for ``tb``'s game: its rows as long as the pile has
    pieces (and room for MAXP seats and 8 nests)."""
    m = tb.params[T.P_DECK_N] + tb.params[T.P_FEATHERS] + 32
    return Work(
        np.zeros((N_IB, m), np.int64),
        np.zeros((N_FB, m), np.float64),
        np.zeros(T.MAXP, np.int64),
        np.zeros(T.MAXP, np.int64),
    )



@njit(cache=True, _nrt=False, inline="always")
def emit(st, code, a, b, c, d, e, f, h):
    """Log event ``code`` (E_*) with seven integers."""
    log_event(st.board, st.log, G_LOG_N, G_LOG_CAP, G_LOG0, code, a, b, c, d, e, f, h)


def log_rows(st: State) -> np.ndarray:
    return copy_log(st.log, 0, int(st.board[G_LOG_N]))


@njit(cache=True, _nrt=False, inline="always")
def tele(st, p, col, n):
    st.pl[p, PL_TELE + col] += n


@njit(cache=True, _nrt=False, forceinline=True)
def up_item(st, c):
    """The item card ``c`` shows face up now (CV-2: a single-sided card's back is BLANK)."""
    return st.item[c, 1 - st.pile.cst[c, physics.CS_FACE]]  # face 1: side 0 (no branch)


@njit(cache=True, _nrt=False, forceinline=False)
def counts_as(st, c):
    """CV-3: the item a collected card scores as: its up side when taken; a single-sided card
    (back BLANK) is its item either way."""
    if st.item[c, 1] == T.BLANK:
        return st.item[c, 0]
    return st.item[c, 0] if st.cc[c, CC_TAKEN_FACE] == 1 else st.item[c, 1]


@njit(cache=True, _nrt=False, forceinline=False)
def pile_cards(st):
    """Cards still in the pile."""
    n = 0
    cst = st.pile.cst
    for c in range(cst.shape[0]):
        n += cst[c, physics.CS_ON]
    return n


def places(st: State) -> tuple[int, int, int, int, int, int]:
    """(cards in the pile, collected, removed; feathers in the pile, held, removed) — the
    conservation invariant of issue 16: cards add up to the deck, feathers to CV-1's 15."""
    owner = st.cc[:, CC_OWNER]
    on = st.pile.cst[:, physics.CS_ON]
    cards_pile = int(on.sum())
    collected = int((owner >= 0).sum())
    removed = int((owner == OWN_REMOVED).sum())
    f_pile = int(st.pile.fst[:, physics.FS_ON].sum())
    held = int(st.pl[: int(st.board[G_N]), PL_FEATHERS].sum())
    return cards_pile, collected, removed, f_pile, held, int(st.board[G_F_REMOVED])
