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
    cc        int64[MAXC, N_CC]       CC_OWNER (OWN_PILE, OWN_REMOVED or the seat), CC_TAKEN_FACE
                                      (its face when collected: it keeps it, CV-3), CC_USED (a
                                      ticket or string flipped face up to use it, CV-4), CC_TURN
                                      (the turn it was collected)
    pl        int64[MAXP, N_PL]       per seat: bird, nest revealed, feathers held, steals left,
                                      telemetry
    g         int64[N_G]              game scalars and counters
    rng       uint64[2 + MAXP, 1]     0 set-up (sides, scatter, feathers, birds), 1 the pile's
                                      physics in play, 2 + p seat p's policy
    log       int32[rows, 8]          the event log of a replay (0 rows in the batch kernel)
    snap      float64[rows, M, N_SN]  the pile after set-up and after every turn, for the replay's
                                      pictures (0 rows in the batch kernel)
    touch     int64[MAXC + 1]         the cards of the pile the last card taken touched as it lay
                                      (count first): a paperclip's choice (CV-4)

Every integer is int64 and every real float64 (Raven Manor's engine docstring: one compiled
signature per kernel). Policies read the pile, every collected face-up card, revealed birds, and
their own seat's row (its bird and face-down cards), CV-12.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from balance.games._kit import Offsets, copy_log, log_event
from balance.games.corvids import physics
from balance.games.corvids.tables import BLANK, MAXP, N_TELE, NI, P_DECK_N, P_FEATHERS

OWN_PILE, OWN_REMOVED = -1, -2  # CC_OWNER values besides a seat
# scratch rows of integers and of reals (alloc_scratch); the policies keep in FB_BONUS a value per
# pile card and from FB_SEAT one row per seat (its worths, policies.prepare)
N_IBUF = 4
FB_BONUS = 3
FB_SEAT = 4
N_FBUF = FB_SEAT + MAXP

# State.cc[c, CC_*]
CC_OWNER, CC_TAKEN_FACE, CC_USED, CC_TURN = range(N_CC := 4)

# State.snap[t, piece, SN_*]: the pile after set-up (t = 0) and after turn t (cards first, then
# feathers; a feather's angle and face are 0)
SN_X, SN_Y, SN_A, SN_H, SN_ON, SN_FACE = range(N_SN := 6)

# State.pl[p, PL_*]
_pl = Offsets()
PL_BIRD = _pl(1)  # the bird dealt (index into the config's birds), CV-10
PL_REVEALED = _pl(1)  # turn + 1 its nest was first uncovered (bird revealed, CV-6), 0 never
PL_FEATHERS = _pl(1)  # feathers held
PL_CARDS = _pl(1)  # cards collected
PL_STEALS = _pl(1)  # steals left this turn (1, + tickets used: CV-4)
PL_HELD = _pl(NI)  # + item: collected cards that count as it (CV-3)
PL_SCRIPT = _pl(1)  # scripted values used (tables.with_script)
PL_TELE = _pl(N_TELE)  # + telemetry column (tables.TE_*)
N_PL = _pl.end

# State.g: game scalars, then the log's counters.
_g = Offsets()
G_N = _g(1)  # players
G_TURN = _g(1)  # turns played so far
G_ACTIVE = _g(1)
G_FIRST = _g(1)
G_END = _g(1)  # 1 when the pile holds no card (CV-7)
G_RETRIES = _g(1)  # set-up re-scatters, for an uncovered nest (CV-8, PHYS-4)
G_REDRAWS = _g(1)  # set-up: cards drawn again for landing off the mat (PHYS-4)
G_PUSHES = _g(1)  # set-up: cards pushed to cover a nest completely (CV-8, PHYS-4)
G_OFF_MAT = _g(1)  # cards knocked off the mat in the game
G_FEATHERS_OFF = _g(1)  # feathers knocked off the mat
G_ISOLATED = _g(1)  # pieces removed as isolated at the ends of turns
G_F_REMOVED = _g(1)  # feathers removed from play (off the mat or isolated)
G_FIRST_NEST = _g(1)  # turn + 1 the first seat's nest was uncovered, 0 never
G_CARDS_ISOLATED = _g(1)  # cards among the isolated pieces
G_PECKS = _g(1)  # pecks in the game (acorns add some)
G_SCRIPT_BAD = _g(1)  # a scripted choice was not legal (tests)
G_LOG_N = _g(1)
N_G_RESET = _g.end  # g[:N_G_RESET] is cleared for every game
G_LOG_CAP = _g(1)
G_LOG0 = _g(1)
N_G = _g.end

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
    g: np.ndarray
    rng: np.ndarray
    log: np.ndarray
    snap: np.ndarray
    touch: np.ndarray


@njit(cache=True, forceinline=False)
def alloc_state(tb, log_cap, snap):
    """A state for ``tb``'s game with room for ``log_cap`` log rows; ``snap``: keep the pile after
    every turn (a replay's pictures)."""
    n_cards = tb.params[P_DECK_N]
    n_feathers = tb.params[P_FEATHERS]
    g = np.zeros(N_G, np.int64)
    g[G_LOG_CAP] = log_cap
    m = n_cards + n_feathers
    # a turn picks a card or knocks a piece off the mat for good (engine, ENGINE-4): at most m
    # turns, and the pile after set-up
    rows = m + 2 if snap else 0
    return State(
        physics.new_pile(tb.physics, n_cards, n_feathers),
        np.full((n_cards, 2), BLANK, np.int64),
        np.zeros((n_cards, N_CC), np.int64),
        np.zeros((MAXP, N_PL), np.int64),
        g,
        np.zeros((2 + MAXP, 1), np.uint64),
        np.zeros((max(1, log_cap), 8), np.int32),
        np.zeros((rows, m, N_SN), np.float64),
        np.zeros(n_cards + 1, np.int64),
    )


@njit(cache=True, forceinline=False)
def alloc_scratch(tb):
    """Working arrays of the engine and the policies: integer lists and their scores, one row per
    use, as long as the pile has pieces."""
    m = tb.params[P_DECK_N] + tb.params[P_FEATHERS] + 32  # + room for MAXP seats, 8 nests
    return np.zeros((N_IBUF, m), np.int64), np.zeros((N_FBUF, m), np.float64)


@njit(cache=True, _nrt=False, inline="always")
def emit(st, code, a, b, c, d, e, f, h):
    """Log event ``code`` (E_*) with seven integers."""
    log_event(st.g, st.log, G_LOG_N, G_LOG_CAP, G_LOG0, code, a, b, c, d, e, f, h)


def log_rows(st: State) -> np.ndarray:
    return copy_log(st.log, 0, int(st.g[G_LOG_N]))


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
    if st.item[c, 1] == BLANK:
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
    held = int(st.pl[: int(st.g[G_N]), PL_FEATHERS].sum())
    return cards_pile, collected, removed, f_pile, held, int(st.g[G_F_REMOVED])
