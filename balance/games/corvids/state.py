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
    memo      float64[N_FB, M]        the policies' values, kept per seat within a game (FB_*
                                      rows; policies.py): a cache keyed by what it depends on,
                                      cleared by ``engine.start`` and ``knowledge.determinize``
    fx        float64[N_FX]           the continuation's reals (FX_*: a named aim)

Every integer is int64 and every real float64, the state's arrays and the scratch (``Work``)
alike: the tables' are too (tables.py), so that every kernel has one compiled signature (Raven
Manor's engine docstring) and no index or count is converted on its way between them; the pile's
bit sets and float geometry would gain nothing from a narrower integer.

``Work`` (``alloc_work``) is the scratch of ``engine.advance``, ``engine.apply`` and
``policies.choose``: rows of integers (``ib``: the choices a decision is offered, the greedy
peck's candidates) and the scores and ranks of the end (``engine.ranks``); nothing in it outlives
one call but the game's trajectory (``trace``: ``engine.trace_point`` keeps each point as the game
reaches it, ``engine.record_trace`` copies them out), kept there and not in the State so that
``copy_state`` (a search copies States thousands of times a decision) does not copy it. The
policies' values kept within a game (once ``Work.fb``) are ``State.memo``.

Decision points (issue 28; docs/rules/corvids.md, Decisions): the game is a sequence of decision
points. ``pending(st)`` is ``(G_ACTOR, G_KIND)``; the continuation (the phase of the turn, the
active seat, the card whose ability resolves, the nut's count, the steal in progress, the peck's
card, a policy's plan of ticket flips, a named aim) is in ``board`` (G_*) and ``fx``, so that
``copy_state`` copies the game. Option codes: a card's index, a feather's index, an aim code
(AIM_*), or ``C_NO`` (decline / stop), larger than every card and feather index.
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

BLOCK_GAMES = 64  # games per block of engine.play_batch (telemetry clip counts per block)

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


# The trajectory a game records (kit.Outputs' ``trace``; docs/rules/corvids.md, How a game went):
# each seat's measures at each point, the first its standing. Point 0 is the start (after
# set-up), point k the end of round k (turn k * players, after its end-of-turn removal), the last
# the game's end (CV-7), so a game of T turns records 1 + ceil(T / players) points.
TRACE_MEASURES: tuple[str, ...] = (
    "score",  # CV-3's points of the cards held now plus the place's handicap (engine.standing):
    # what the seat would score if the game ended here; at the last point the dataset's score
    "feathers",  # feathers held: CV-7's tie-break (feathers on the mat score nothing)
)
TR_SCORE, TR_FEATHERS = range(2)
N_TRACE = len(TRACE_MEASURES)


def trace_cap(tb) -> int:
    """The most trajectory points a game of these tables can record: 1 + ceil(T / players) for
    the most turns T a game can last, cards + feathers (ENGINE-4: every turn takes a card from
    the pile or knocks a piece off the mat for good). ``alloc_work`` keeps the same bound."""
    n = int(tb.params[T.P_PLAYERS])
    turns = int(tb.params[T.P_DECK_N]) + int(tb.params[T.P_FEATHERS])
    return 1 + (turns + n - 1) // n


# Work.ib[IB_*]: rows of integers, as long as the pile has pieces (alloc_work)
_ib = Offsets()
IB_OFFER = _ib(1)  # the cards (feathers, tickets) a decision is offered: ib[IB_OFFER, :n]
IB_CAND = _ib(1)  # policies.greedy_peck: the cards it weighs pecking ...
IB_TARGET = _ib(1)  # ... and the card each would expose (-1 none)
N_IB = _ib.end

# ---------------------------------------------------------------- decision points (issue 28)

DECISIONS = (
    "ticket",  # start of the turn: flip one more usable ticket (one more steal), or stop (CV-4)
    "peck",  # the card to peck, a visible one (CV-5, CV-9)
    "aim",  # where to aim at the card chosen to peck: one of the engine's candidate aims (CV-9)
    "pick",  # the card to take: no card on top of it (CV-5, ENGINE-1)
    "acorn",  # an acorn's second peck: a visible card, or decline (CV-4, ENGINE-3)
    "earring",  # an earring's extra uncovered earring, or decline (CV-4)
    "feather",  # a nut's feather (at most two, one point each), or stop (CV-4)
    "paperclip",  # a card that touched the paperclip, or decline (CV-4)
    "steal",  # a card of a seat whose nest is open, or no (more) steal (CV-5, CV-11)
    "string",  # the victim: flip its string to keep the card, or let it go (CV-4)
)
(
    D_TICKET,
    D_PECK,
    D_AIM,
    D_PICK,
    D_ACORN,
    D_EARRING,
    D_FEATHER,
    D_PAPERCLIP,
    D_STEAL,
    D_STRING,
) = range(len(DECISIONS))
MAX_CARDS = 200  # schema.MAX_CARDS: the deck's bound (the test checks they agree)
MAX_FEATHERS = 100  # schema.MAX_FEATHERS
C_NO = MAX_CARDS  # the option "no" / "stop" / "decline": after every card and feather index
# D_AIM's codes: the engine's candidate aims at the card chosen (engine.apply_aim)
(
    AIM_OUTWARD,  # a quarter of the card's shorter side outward of its centre (the greedy aim)
    AIM_CENTRE,  # its centre
    AIM_RANDOM,  # a uniform point of the card, drawn from the acting seat's own stream
    AIM_Q0,  # the card's quarter points (its frame: (-w/4, -h/4), (w/4, -h/4), ...
    AIM_Q1,
    AIM_Q2,
    AIM_Q3,  # ... (w/4, h/4))
    AIM_NAMED,  # the point the seat named with its card (a scripted seat): only then legal
) = range(8)
N_AIMS = 8
# the most options of any point, for any config the schema accepts: a card choice lists at most
# every card of the deck (MAX_CARDS) and "no"; a feather choice at most MAX_FEATHERS and "stop";
# an aim N_AIMS; a string 2
MAX_OPTIONS = max(MAX_CARDS + 1, MAX_FEATHERS + 1, N_AIMS)

# The continuation's phases (G_PHASE): what ``advance`` does next
(
    PH_IDLE,  # no game started
    PH_FAILED,  # set-up failed (ENGINE-8): advance ends the game
    PH_TURN,  # the start of G_ACTIVE's turn
    PH_TICKETS,  # its tickets (D_TICKET while it holds a usable one)
    PH_PECK,  # its peck (D_PECK)
    PH_AIM,  # the aim at G_PECK_CARD (D_AIM)
    PH_PICK,  # its pick (D_PICK)
    PH_ABILITY,  # the ability of G_CARD, chained through paperclips (D_ACORN ... D_PAPERCLIP)
    PH_STEALS,  # its steals (D_STEAL)
    PH_STRING,  # the victim's string (D_STRING)
    PH_END_TURN,  # end of turn, then the next turn or the end
    PH_OVER,  # the game is over
) = range(12)
NO_STOP = 99  # G_STOP of a game played through

# State.fx[FX_*]: the continuation's reals
_fx = Offsets()
FX_AIM_X = _fx(1)  # the named aim (G_AIM_NAMED)
FX_AIM_Y = _fx(1)
N_FX = _fx.end

# State.memo[FB_*]: the policies' rows of reals, as long as the pile has pieces (alloc_state)
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
CC_SEEN = _cc(1)  # knowledge memory: bit p, seat p has seen both its sides; bit SEEN_ALL, all have
N_CC = _cc.end
SEEN_ALL = T.MAXP  # CC_SEEN's bit: every seat has seen both sides (a peck turned it over)

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
G_NESTS_OPENED = _b(1)  # knowledge memory: bit k, nest k has been uncovered at some moment
# the continuation (decision points)
G_PHASE = _b(1)  # PH_*
G_KIND = _b(1)  # the pending decision (D_*), -1 none
G_ACTOR = _b(1)  # the seat that must decide, -1 none
G_CARD = _b(1)  # the card whose ability resolves (-1 none: the steals come next)
G_NUT_TOOK = _b(1)  # feathers a nut took so far
G_NUT_STOP = _b(1)  # 1: the seat took no more feathers
G_PECK_CARD = _b(1)  # the card chosen to peck (D_AIM)
G_PECK_ACORN = _b(1)  # 1: that peck is an acorn's
G_AIM_NAMED = _b(1)  # 1: the seat named an aim (FX_AIM_*) with the card
G_STEAL_CARD = _b(1)  # the card being stolen (D_STRING)
G_STEAL_PAID = _b(1)  # the feathers the thief paid for it
G_STRING = _b(1)  # the victim's string that may keep it
G_TK_FLIPPED = _b(1)  # tickets flipped this turn
G_TK_PLAN = _b(1)  # a policy's plan: tickets to flip this turn (-1 not planned yet)
G_STOP = _b(1)  # advance stops at a phase >= this one (NO_STOP; tests' drivers of part of a turn)
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
    memo: np.ndarray
    fx: np.ndarray


@njit(cache=True, forceinline=False)
def alloc_state(tb, log_cap):
    """A state for ``tb``'s game with room for ``log_cap`` log rows (no pictures: see
    ``alloc_replay_state``)."""
    return _alloc(tb, log_cap, np.int64(0))


@njit(cache=True, forceinline=False)
def alloc_replay_state(tb, log_cap):
    """``alloc_state`` that also keeps the pile after set-up and after every turn in ``snap`` (a
    replay's pictures)."""
    m = tb.params[T.P_DECK_N] + tb.params[T.P_FEATHERS]
    # a turn picks a card or knocks a piece off the mat for good (engine, ENGINE-4): at most m
    # turns, and the pile after set-up
    return _alloc(tb, log_cap, m + 2)


@njit(cache=True, inline="always")
def _alloc(tb, log_cap, rows):
    n_cards = tb.params[T.P_DECK_N]
    n_feathers = tb.params[T.P_FEATHERS]
    board = np.zeros(N_BOARD, np.int64)
    board[G_LOG_CAP] = log_cap
    board[G_KIND] = -1
    board[G_ACTOR] = -1
    board[G_STOP] = NO_STOP
    m = n_cards + n_feathers
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
        np.zeros((N_FB, m + 32), np.float64),
        np.zeros(N_FX, np.float64),
    )


@njit(cache=True, forceinline=False)
def copy_state(src, dst):
    """Copy everything of ``src`` into the same-shaped ``dst`` in place: the pile and its cache,
    the cards, seats, board (the continuation), streams, the log rows in use, the pictures, the
    policies' memo."""
    a = src.pile
    b = dst.pile
    b.cards[:, :] = a.cards
    b.cst[:, :] = a.cst
    b.feathers[:, :] = a.feathers
    b.fst[:, :] = a.fst
    b.ov[:, :] = a.ov
    b.cov[:, :] = a.cov
    b.att[:] = a.att
    b.nest[:, :] = a.nest
    b.ncount[:] = a.ncount
    b.nxy[:, :] = a.nxy
    b.vis[:] = a.vis
    b.pts[:, :] = a.pts
    b.buf[:] = a.buf
    b.n_on[:] = a.n_on
    b.lst[:, :] = a.lst
    b.pos[:] = a.pos
    b.mv[:] = a.mv
    b.nsum[:] = a.nsum
    b.ob[:, :] = a.ob
    b.nm[:] = a.nm
    b.nb[:, :] = a.nb
    b.h[:] = a.h
    dst.item[:, :] = src.item
    dst.cc[:, :] = src.cc
    dst.pl[:, :] = src.pl
    dst.board[:] = src.board
    dst.rng[:, :] = src.rng
    n = min(src.board[G_LOG_N], dst.log.shape[0])
    dst.log[:n, :] = src.log[:n, :]
    k = min(src.snap.shape[0], dst.snap.shape[0])  # a search's copy of a replay keeps none
    dst.snap[:k, :, :] = src.snap[:k, :, :]
    dst.touch[:] = src.touch
    dst.memo[:, :] = src.memo
    dst.fx[:] = src.fx


@njit(cache=True, _nrt=False, inline="always")
def pending(st):
    """``(seat, kind)``: the seat that must decide and the D_* kind; ``(-1, -1)`` when no decision
    is pending (before ``engine.advance``, or the game is over)."""
    return st.board[G_ACTOR], st.board[G_KIND]


class Work(NamedTuple):
    """The scratch of ``engine.advance``/``apply`` and ``policies.choose`` (see the module
    docstring)."""

    ib: np.ndarray  # int64[N_IB, M]: IB_* rows
    score: np.ndarray  # int64[MAXP]: engine.ranks' scores ...
    rank: np.ndarray  # int64[MAXP]: ... and ranks
    # int64[trace_cap, MAXP, N_TRACE]: the game's trajectory, point by point (engine.trace_point)
    trace: np.ndarray


@njit(cache=True, forceinline=False)
def alloc_work(tb):
    """The scratch of ``engine.play_game`` for ``tb``'s game: its rows as long as the pile has
    pieces (and room for MAXP seats and 8 nests), and ``trace_cap(tb)`` trajectory points."""
    turns = tb.params[T.P_DECK_N] + tb.params[T.P_FEATHERS]
    m = turns + 32
    n = tb.params[T.P_PLAYERS]
    return Work(
        np.zeros((N_IB, m), np.int64),
        np.zeros(T.MAXP, np.int64),
        np.zeros(T.MAXP, np.int64),
        np.zeros((1 + (turns + n - 1) // n, T.MAXP, N_TRACE), np.int64),  # trace_cap(tb)
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


# ---------------------------------------------------------------- what a decision offers
#
# The engine's ``advance`` asks whether a point has options, ``engine.legal`` lists them (sorted)
# and ``policies.choose`` weighs them in these very orders (a policy's draws index them).


@njit(cache=True, _nrt=False, inline="always")
def nest_open(tb, st, p):
    """Whether seat ``p``'s nest is uncovered now (CV-6, CV-11)."""
    return st.pile.ncount[tb.params[T.P_BIRD_NEST + st.pl[p, PL_BIRD]]] == 0


@njit(cache=True, _nrt=False, inline="always")
def usable(st, c, item):
    """A held face-down ``item`` (string or ticket) not used yet (CV-4, ENGINE-5)."""
    return (
        st.item[c, 0] == item
        and st.item[c, 1] == T.BLANK
        and st.cc[c, CC_TAKEN_FACE] == 0
        and st.cc[c, CC_USED] == 0
    )


@njit(cache=True, _nrt=False, forceinline=False)
def ticket_offers(st, p, out):
    """CV-4, ENGINE-5: seat ``p``'s usable tickets (face down, unused, collected before this
    turn) into ``out`` by card index; returns how many."""
    if st.pl[p, PL_HELD + T.TICKET] == 0:  # no ticket held (most turns): no pass over the cards
        return np.int64(0)
    n = np.int64(0)
    for c in range(st.cc.shape[0]):
        if (
            st.cc[c, CC_OWNER] == p
            and usable(st, c, np.int64(T.TICKET))
            and (st.cc[c, CC_TURN] < st.board[G_TURN])
        ):
            out[n] = c
            n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def earring_offers(st, out):
    """CV-4, CV-5, ENGINE-1: the completely uncovered earrings of the pile (no card on them; a
    feather on one comes with it), in the pile's list order; returns how many."""
    n = np.int64(0)
    for t in range(st.pile.n_on[0]):
        j = st.pile.lst[0, t]
        if st.pile.cov[j, physics.COV_CARDS] == 0 and up_item(st, j) == T.EARRING:
            out[n] = j
            n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def paperclip_offers(st, out):
    """CV-4: the cards of the pile that touched the paperclip where it lay, covered or not
    (``take_card`` kept them), in that order; returns how many."""
    n = np.int64(0)
    for t in range(st.touch[0]):
        j = st.touch[1 + t]
        if st.pile.att[j] == 1:
            out[n] = j
            n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def feather_offers(st, out):
    """CV-4 (nut): the pile's feathers (feather indices) in the pile's list order."""
    nc = st.pile.cards.shape[0]
    n = np.int64(0)
    for t in range(st.pile.n_on[1]):
        out[n] = st.pile.lst[1, t] - nc
        n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def pick_offers(st, out):
    """CV-5, ENGINE-1: the cards with no card on top, in the pile's list order; returns how many
    (at least one while the pile holds a card: the highest one)."""
    pile = st.pile
    n = np.int64(0)
    for t in range(pile.n_on[0]):  # the pickable cards, without a branch per card
        c = pile.lst[0, t]
        out[n] = c
        n += np.int64(pile.cov[c, physics.COV_CARDS] == 0)
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def steal_offers(tb, st, p, out):
    """CV-11, ENGINE-6: the cards seat ``p`` may steal now, by card index (none when it has no
    steal left, too few feathers, an empty pile, or no rival with an open nest and a card)."""
    cost = tb.params[T.P_STEAL_COST]
    if st.pl[p, PL_STEALS] <= 0 or st.pl[p, PL_FEATHERS] < cost or st.pile.n_on[0] == 0:
        return np.int64(0)
    n_players = st.board[G_N]
    some = False  # a rival's nest open (most turns none is: no scan of the cards)
    for v in range(n_players):
        if v != p and nest_open(tb, st, v) and st.pl[v, PL_CARDS] > 0:
            some = True
    if not some:
        return np.int64(0)
    n = np.int64(0)
    for c in range(st.cc.shape[0]):
        v = st.cc[c, CC_OWNER]
        if v >= 0 and v != p and v < n_players and nest_open(tb, st, v):
            out[n] = c
            n += 1
    return n


def new_state(tb, log_cap: int = 0) -> State:
    """A State for the config, from Python (the kernels use ``alloc_state``): the Python entry
    every game's state.py has (balance/games/position.py)."""
    return alloc_state(tb, np.int64(log_cap))


def new_replay_state(tb, log_cap: int = 0) -> State:
    """``new_state`` that also keeps the pile after every turn (``alloc_replay_state``): a
    Position made for a replay (``Position(..., replay=True)``) has the pictures of the HTML
    replay."""
    return alloc_replay_state(tb, np.int64(log_cap))
