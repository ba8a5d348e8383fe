"""Five Ravens game state: array layout and the small pile operations shared by rules and policies.

``P`` seats, ``CAP = 9 + n_relics`` slots per pile. Card ids are 0..8 for the Ravens of rank
1..9 and 9 + i for relic instance i. Piles are arrays with a count; the top of a deck is its last
element; cards leave a pile by swapping the last card into their place. Everything lives in
plain arrays so that a search policy can copy a state (``copy_state``) and resample hidden cards.

Kernel decorators, chosen for compile time (``benchmarks/compile_time.py``): a helper of a few
blocks is ``inline="always"`` (numba copies its IR into every caller); a large function that must
not cost a call is ``forceinline=True`` (LLVM inlines it): numba's inliner deep-copies a callee's
IR at every call site at a cost that grows with the square of its size (the greedy turn into the
mission took 21 s of a cold compile); every other kernel says ``forceinline=False``, since a
function first compiled under a forceinline caller would inherit the flag.

The names every game gives the same things (balance/games/_kit.py): ``BLOCK_GAMES``; ``State``,
whose record holds the seat rows ``pl`` (``PL_*`` offsets, ``N_PL`` wide), the game row ``board``
(scalars ``G_*``, then the centre ``B_*`` and the relic deck, ``N_BOARD`` wide) and the random
streams ``rng``, beside the piles ``pile`` and the greedy turn's values ``fv``, with the script
and the event log in ``aux``; ``Work`` and ``alloc_work(tb)``, the scratch of
``engine.play_game(tb, st, seed, game, work)``, which also keeps the game's trajectory
(``TRACE_MEASURES``, ``trace_cap``, ``trace_rows``); ``END_REASONS`` and ``EXTRA_COLUMNS``.

Decision points (issue 28; docs/rules/five_ravens.md, "Decisions"): ``DECISIONS`` and the
``D_*`` kinds, ``MAX_OPTIONS``, the option codes ``OPT_*``, ``pending(st)``; the game's
continuation (G_STAGE .. G_TI, B_ORDER, B_PLAN, B_ASIDE) is on the board, so that
``copy_state(src, dst)`` copies a game that resumes from any point. ``alloc_state(tb, log_cap)``
is every game's signature; a scenario's script comes in through ``alloc_state_script``.
The small functions the decision points call once per point or per card (emit's test for room,
the pile and relic-deck helpers, the Theft's steps) are ``forceinline=True``: a call passes the
State's aux array field by field and cost more than its body.

Widths: the State is one numpy record, not a NamedTuple of arrays, because a call then passes it
as one pointer with every stride a constant (measured to pay: this is the speed benchmark's
game; see State). Its integers are int32, like the Tables' (tables.py: every config compiles to
one numba signature): every count, card id, score and telemetry count fits (schema.py bounds
them), and the layout that was measured is kept (a wider record was not measured).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from balance.games import _kit as kit
from balance.games.five_ravens import tables as T

MAX_ROUND_TURNS = 40  # mission turns a seat may take in one round (ENGINE-9)
BLOCK_GAMES = 256  # games per block of the batch kernel (state is allocated once per block)
MAX_SLOTS = 4  # centre slots (one per player, FR-4)

# Chunk.end_reason: every game ends when the last Clock is removed (FR-12).
END_REASONS: tuple[str, ...] = ("clocks",)
(END_CLOCKS,) = range(len(END_REASONS))
# Chunk.extra: int32 per-seat columns, out.extra[i, p, k] for EXTRA_COLUMNS[k]
EXTRA_COLUMNS: tuple[str, ...] = ("captured",)  # cards in the seat's captured pile (FR-14)


(X_CAPTURED,) = range(len(EXTRA_COLUMNS))

# The trajectory a game records (kit.Outputs' ``trace``; docs/rules/five_ravens.md, How a game
# went): each seat's measures at point 0 (after set-up) and point k, the end of round k (taken as
# round k + 1 begins, before its Prelude; the last round's is the game's end, after scoring): the
# rounds + 1 points of trace_cap, every game. ``score`` is what the seat would score if the game
# were scored there (engine.standing: FR-13 with the handicap, the engine's own scoring of the
# position; the last point is the dataset's score), ``captured`` its captured cards (FR-14's
# tie-break; the last point is the dataset's column). Kept in Work.tr[k, p, TR_*] as the game
# goes (engine.trace_point), copied out by engine.record_trace: the per-game scratch, not the
# State, so that copy_state (the search copies a State every iteration) never carries it.
TRACE_MEASURES: tuple[str, ...] = ("score", "captured")
TR_SCORE, TR_CAPTURED = range(len(TRACE_MEASURES))


def trace_cap(tb) -> int:
    """The trajectory points a game of these tables records: the start and one a round."""
    return int(tb.params[T.P_ROUNDS]) + 1


# Seat status during the Mission (FR-5).
ST_ACTIVE, ST_THIEF, ST_DONE = range(3)

# State.board: game scalars (G_*), then the centre slots (B_*), then the relic deck.
_b = kit.Offsets()
G_FIRST = _b(1)  # first player this round
G_ROUND = _b(1)
G_TURNS = _b(1)  # mission turns of all seats (the dataset's ``turns``)
G_RD_BOT = _b(1)  # the relic deck's bottom, a physical index of its circular buffer
G_RD_N = _b(1)  # relics in the relic deck
G_LAST = _b(1)  # the seat that stole last this round (FR-12)
G_LOG_N = _b(1)  # log rows written
G_START = _b(1)  # first player of the game
G_SCRIPT = _b(1)  # script entries used
# the continuation of the game (engine.advance/apply): the stage, the decision pending or next
G_STAGE = _b(1)  # STAGE_*
G_KIND = _b(1)  # the D_* kind of the decision to take next, -1 none
G_ACTOR = _b(1)  # the seat that takes it
G_PENDING = _b(1)  # 1: advance stopped at it (pending() reports it)
G_MK = _b(1)  # the Mission's position: clockwise place (from G_FIRST) of the seat to act
G_ACTED = _b(1)  # the Mission's pass so far played a turn
G_PLAYED = _b(1)  # the Raven whose action resolves (ENGINE-2: to the discard after), -1 none
G_SEEN = _b(1)  # the relic the 7 took from the relic deck and looks at (in no pile meanwhile)
G_SEQ = _b(1)  # steps taken of the 8's stacking or the 4's set-aside (B_ASIDE: the set-aside)
G_PLANNED = _b(1)  # 1: the seat's policy put its plan of the 8 or the 4 in B_PLAN
G_PLAN_N = _b(1)  # cards of that plan
G_PLAN_AT = _b(1)  # the step (G_SEQ) at which it was made
G_TI = _b(1)  # the Theft's position in B_ORDER
N_G_RESET = _b.end  # board[:N_G_RESET] is cleared for every game
# set at allocation and kept across games; G_NSEAT, G_PL_W, G_CAP: the part of the State
# record's fixed-size arrays this config uses (seats, seat columns, cards per pile)
G_SCRIPT_N = _b(1)
G_LOG_CAP = _b(1)
G_LOG0 = _b(1)  # aux row of the first log row
G_RMASK = _b(1)  # the relic deck's circular buffer holds board[G_RMASK] + 1 cards
G_NSEAT = _b(1)
G_PL_W = _b(1)
G_CAP = _b(1)
B_CENTRE = _b(MAX_SLOTS)  # + slot: relic card id (-1 empty)
B_FACE = _b(MAX_SLOTS)  # + slot: face up
B_LOCK = _b(MAX_SLOTS)  # + slot: locked
B_ORDER = _b(MAX_SLOTS)  # + i: the Theft's steal order (engine.steal_order)
B_PLAN = _b(T.MAX_CAP)  # + i: a policy's plan of the 8's stack or the 4's set-aside, in order
B_ASIDE = _b(T.MAX_CAP)  # + i: the cards the 4 set aside so far (in no pile, ENGINE-12)
B_RDECK = _b(T.MAX_CAP)  # + i: the relic deck as a circular buffer (at most MAX_CAP cards)
N_BOARD = _b.end

# State.pile[p, PILE_*, i]: the four piles of a seat; top of the deck = last card.
_k = kit.Offsets()
PILE_DECK = _k(1)
PILE_HAND = _k(1)
PILE_DISC = _k(1)
PILE_CAPT = _k(1)
N_PILES = _k.end

# State.pl[p, PL_*]: per-seat scalars, then what the seat knows, then telemetry.
_s = kit.Offsets()
PL_DECK_N = _s(1)  # PL_DECK_N + PILE_* is the card count of that pile
PL_HAND_N = _s(1)
PL_DISC_N = _s(1)
PL_CAPT_N = _s(1)
PL_DECK_KNOWN = _s(1)  # top cards of own deck the owner knows (8, 7-rescue; FR-15)
PL_THIEF = _s(1)  # card played as thief this round, -1 none
PL_STATUS = _s(1)  # ST_*
PL_NO_THIEF = _s(1)  # FR-7: no Raven in hand when the Prelude ended
PL_USED3 = _s(1)  # captured 3 used this round
PL_USED1 = _s(1)  # captured 1 used this round
PL_TURNS = _s(1)  # mission turns taken this round
PL_DOUBLED = _s(1)  # relic card captured with the 6 (FR-10), -1 none
PL_RD_TOP = _s(1)  # relic card the seat knows is on top of the relic deck, -1 unknown
PL_RD_BOT = _s(1)  # same for the bottom
PL_GEMS = _s(1)  # gems the seat owns
PL_NRAV = _s(1)  # Ravens in hand (ravens_in_hand)
PL_PTS = _s(1)  # points of its relics by their counts (engine.standing_counted; tables.C_T_*)
PL_CAPT_MASK = _s(1)  # bit r: Raven r is captured
PL_CAPT_RELICS = _s(1)  # number of captured relics
PL_RESCUE_OK = _s(1)  # 1: the seat's best rescue gain in State.fv[V_RESCUE + p] is current
PL_SCORE = _s(1)  # the final score with the handicap (set when the game ends)
PL_RANK = _s(1)  # the final FR-14 rank (set when the game ends)
# PL_GEMS, PL_PTS, PL_NRAV, PL_CAPT_MASK, PL_CAPT_RELICS and the per-type captured counts
# (ctype_col) are caches of the piles kept up to date by capt_push/capt_take, the theft and every
# change of a hand (hand_push, hand_take_at, the Epilogue), so that rules and policies need not
# scan the piles; scoring recounts from the piles; recount() rebuilds them (tests), sync_hand
# PL_NRAV after a re-deal (knowledge.determinize).
# PL_RESCUE_OK caches policies.rescue_value the same way: it depends only on the captured cards.
PL_CKNOWN = _s(MAX_SLOTS)  # + slot: the seat knows the relic in that centre slot (FR-15)
# + event * n_card_types + card type: telemetry counts; then, at ctype_col(t), the seat's captured
# relics of type t (both parts sized by the config's card types, within the fixed width)
PL_TELE = _s(len(T.EVENTS) * (T.N_RAVENS + T.MAX_TYPES))
_s(T.MAX_TYPES)
N_PL = _s.end

# State.fv: the greedy turn's float64 scratch values (policies._greedy_turn), both parts indexed
# by card id, so that a pass over the hand reads a card's value with one load: action values
# (Ravens: worked out each turn; relics: -inf, set once), then thief values (Ravens: each turn;
# relics: NEG, set once, or each turn in configs with relic thieves), then each seat's cached
# rescue_value.
_v = kit.Offsets()
V_ACT = _v(T.MAX_CAP)  # + card id
V_THIEF = _v(T.MAX_CAP)  # + card id
V_RESCUE = _v(T.MAX_SEATS)  # + seat
FV_W = _v.end

# State.aux rows: two scratch rows, the script (tests), then the event log.
_a = kit.Offsets()
AUX_TMP = _a(1)
AUX_TMP2 = _a(1)
AUX_SCRIPT = _a.end  # the script's rows start here (as many as it needs), then the log's

# Turn moves (FR-5): play a Raven for its action, captured 3 / captured 1 turn action, thief.
M_ACTION, M_CAPT3, M_CAPT1, M_THIEF, M_NONE = range(5)

# The decision points (docs/rules/five_ravens.md, "Decisions"): every choice the rules leave to a
# seat, in the order the kinds are listed there. The 8's stacking and the 4's set-aside are
# sequences of points ("which card next, or stop"), never a subset at once.
DECISIONS: tuple[str, ...] = (
    "turn",  # a Mission turn (FR-5)
    "discard",  # the 9: the card to discard
    "stack",  # the 8: the next card onto the deck, or stop
    "seven",  # the 7: bury the relic seen, or swap it into a face-down slot
    "flip",  # the 6: the slot to flip
    "shuffle",  # the 6: shuffle the face-down relics, or not
    "capture",  # the 5: the card to capture
    "set_aside",  # the 4: the next card to set aside, or stop
    "examine",  # the 3: the face-down slot to look at
    "borrow",  # the 2: the captured Raven whose action to resolve
    "replace",  # the 1: the face-up slot to replace
    "peek_end",  # captured 3: look at the top or the bottom of the relic deck
    "lock",  # captured 1: the slot to lock
    "steal",  # FR-9: the slot to steal from, or the relic deck's bottom (captured 2)
    "rescue",  # FR-11: the captured card to put back on top of the deck
)
(
    D_TURN,
    D_DISCARD,
    D_STACK,
    D_SEVEN,
    D_FLIP,
    D_SHUFFLE,
    D_CAPTURE,
    D_SET_ASIDE,
    D_EXAMINE,
    D_BORROW,
    D_REPLACE,
    D_PEEK_END,
    D_LOCK,
    D_STEAL,
    D_RESCUE,
) = range(len(DECISIONS))
# Option codes: a card decision's option is the card id, a slot decision's the slot; OPT_NONE
# (past every card id) is the 8's and the 4's "stop", the 7's "bury" and the steal from the relic
# deck's bottom; yes/no and top/bottom are 0/1. A turn's option is 2 * i (play hand card i for its
# action) or 2 * i + 1 (play it as thief), OPT_CAPT3 or OPT_CAPT1 (the captured 3's, 1's turn).
OPT_NONE = T.MAX_CAP
OPT_CAPT3 = 2 * T.MAX_CAP
OPT_CAPT1 = 2 * T.MAX_CAP + 1
# The most options of a point: a turn with every card of the seat in hand (at most MAX_CAP =
# 9 Ravens + schema.MAX_RELICS relics, below tables.MAX_CAP), each an action and a thief, and the
# captured 3's and 1's turns; every other kind has at most a pile's cards and one more.
MAX_OPTIONS = 2 * T.MAX_CAP + 2

# G_STAGE: what advance does when no decision is next.
STAGE_ROUND, STAGE_MISSION, STAGE_THEFT, STAGE_OVER = range(4)

# Event codes of the game log (narrate.py turns them into words); row: code, then 7 ints.
(
    E_ROUND,
    E_DEAL,
    E_DRAW,
    E_SHUFFLE,
    E_ACTION,
    E_DISCARD,
    E_TOP,
    E_SEVEN,
    E_FLIP,
    E_SHUFFLE_CENTRE,
    E_CAPTURE5,
    E_SET_ASIDE,
    E_EXAMINE,
    E_REPLACE,
    E_CAPT3,
    E_LOCK,
    E_THIEF,
    E_DONE,
    E_STEAL,
    E_CAPTURED,
    E_RESCUE,
    E_UNCLAIMED,
    E_EPILOGUE,
    E_SCORE,
    E_REMOVED,
    E_NOTHIEF,
) = range(26)

# Work.sb[SB_*]: the score breakdown of one seat (engine.score_breakdown).
_sb = kit.Offsets()
SB_CHESTS = _sb(1)
SB_GEMS = _sb(1)
SB_HOLLOWS = _sb(1)
SB_CURSED = _sb(1)
SB_FOUR = _sb(1)
SB_PENALTY = _sb(1)
SB_TOTAL = _sb(1)
SB_N_GEMS = _sb(1)
N_SB = _sb.end


# The fixed sizes of the State record (its layout must not depend on the config, or a config change
# would compile the kernels again): seats, cards per pile, relic types, and from them the row
# widths above (tables.MAX_*).
# np.record: the record's arrays are attributes in plain Python too (NUMBA_DISABLE_JIT)
STATE_DTYPE = np.dtype(
    (
        np.record,
        np.dtype(
            [
                ("pile", np.int32, (T.MAX_SEATS, N_PILES, T.MAX_CAP)),
                ("pl", np.int32, (T.MAX_SEATS, N_PL)),
                ("board", np.int32, (N_BOARD,)),
                ("rng", np.uint64, (1 + T.MAX_SEATS, 1)),
                ("fv", np.float64, (FV_W,)),
            ],
            align=True,
        ),
    )
)


class State(NamedTuple):
    """One game's state: a record of fixed-size arrays, and the script and log rows.

    ``r`` is a STATE_DTYPE record (of a one-element array that whoever made the State keeps
    alive); the kernels read ``st.r.pl[p, PL_...]``.
    The arrays have the fixed sizes above; a config uses the first seats, columns and cards
    of them (G_NSEAT, G_PL_W, G_CAP), which is what the Python views below show.
    The record's arrays have their shapes in their type, so numba compiles every access with
    constant strides and a call passes the state as one pointer instead of every field of five
    (a NamedTuple of arrays passes data pointer, shape and strides of each: 45 values a call,
    and the mission kept most of them in stack slots). Python code reads the same arrays as
    ``st.pile``, ``st.pl``, ``st.board`` and ``st.rng`` (views of the part a config uses).

    The small hot helpers (pile helpers here, the greedy valuations in policies.py, legality
    in engine.py) are ``inline="always"`` (numba IR inlining); the choose_* and act_* functions
    stay calls, which keeps the cold compile time down.
    """

    r: np.record  # a STATE_DTYPE record: pile, pl, board, rng (below)
    aux: np.ndarray  # int32[rows, W]; AUX_TMP, AUX_TMP2, script rows, then log rows

    @property
    def pile(self) -> np.ndarray:
        """int32[P, 4, CAP]; deck, hand, discard, captured (PILE_*)."""
        n, _, cap = self._used()
        return self.r["pile"][:n, :, :cap]

    @property
    def pl(self) -> np.ndarray:
        """int32[P, PL_TELE + 5 * n_card_types + n_types]; PL_* scalars, knowledge, telemetry,
        captured relics per type (ctype_col)."""
        n, width, _ = self._used()
        return self.r["pl"][:n, :width]

    @property
    def board(self) -> np.ndarray:
        """int32[B_RDECK + rcap]; G_* scalars, centre (B_*), relic deck."""
        board = self.r["board"]
        return board[: B_RDECK + int(board[G_RMASK]) + 1]

    @property
    def rng(self) -> np.ndarray:
        """uint64[1 + P, 1]; stream 0: the game's chance, 1 + s: seat s's policy."""
        return self.r["rng"][: 1 + self._used()[0]]

    def _used(self) -> tuple[int, int, int]:
        board = self.r["board"]
        return int(board[G_NSEAT]), int(board[G_PL_W]), int(board[G_CAP])


def new_state(tb: T.Tables, log_cap: int = 0, script: np.ndarray | None = None) -> State:
    """Allocate a State for the config (Python entry; the kernels use alloc_state). ``script``:
    the choices of the seats whose policy kind is ``script`` (scenario tests), read in order."""
    if script is None:
        s, aux = alloc_state(tb, log_cap)
    else:
        s, aux = alloc_state_script(tb, log_cap, np.ascontiguousarray(script, dtype=np.int32))
    # an array made by numba comes back as plain structured: view it as records again, so
    # that the kernels' ``st.r.pl`` also works when they run as Python (tests); the record
    # keeps its array alive
    return State(s.view(STATE_DTYPE)[0], aux)


def trace_rows(st: State, work: Work) -> np.ndarray:
    """int32[points, P, K]: the trajectory of the game ``st`` played with ``work`` from its start
    (TRACE_MEASURES at each of its trace_points; the batch's Chunk.trace row once it is over)."""
    return work.tr[: int(trace_points(st))].copy()


def clone_state(st: State) -> State:
    """An independent copy of a State (a new one of the same shape, filled by copy_state; the
    part of the record the config does not use is zeros, as in a new State)."""
    s = np.zeros(1, STATE_DTYPE)
    dst = State(s[0], np.zeros_like(st.aux))
    copy_state(st, dst)
    return dst


@njit(cache=True, _nrt=False, inline="always")
def nn(x):
    """``x`` (0 <= x < 2**31) as an index LLVM knows is not negative (see seat_ix)."""
    return x & 0x7FFFFFFF


@njit(cache=True, _nrt=False, inline="always")
def rtype(tb, c):
    """The relic type of relic card ``c`` (c >= N_RAVENS), as a non-negative index."""
    return nn(tb.r.cards[T.C_INST, nn(c - T.N_RAVENS)])


@njit(cache=True, _nrt=False, inline="always")
def seat_width(tb):
    """Columns of State.pl this config uses (PL_* scalars, telemetry, captured per type)."""
    return ctype_col(tb, tb.r.params[T.P_N_TYPES])


@njit(cache=True, _nrt=False, inline="always")
def n_seats(tb):
    """The number of seats, with its bound MAX_SEATS in sight of LLVM: the loops over seats and
    centre slots are then known to be at most 4 long (no unrolled body for longer ones)."""
    return min(tb.r.params[T.P_PLAYERS], T.MAX_SEATS)


@njit(cache=True, _nrt=False, inline="always")
def state_seats(st):
    """n_seats for the helpers that have the state only (its G_NSEAT)."""
    return min(st.r.board[G_NSEAT], T.MAX_SEATS)


@njit(cache=True, _nrt=False, inline="always")
def seat_ix(p):
    """Seat ``p`` (0 <= p < 4) as an index LLVM knows is not negative: the mask changes no
    seat, and it spares every ``st.r.pl[p, ...]`` numba's negative-index wraparound code."""
    return p & 3


@njit(cache=True, _nrt=False, inline="always")
def clockwise(first, k, P):
    """The seat ``k`` places clockwise from ``first`` (0 <= first, k < P), as seat_ix."""
    p = first + k  # == (first + k) % P: no division
    if p >= P:
        p -= P
    return seat_ix(p)


@njit(cache=True, forceinline=False)
def alloc_state(tb, log_cap):
    """The arrays of a new State: a one-element STATE_DTYPE array and the aux rows (``log_cap``
    rows of event log). The State holds the record ``s[0]``, which does not keep ``s`` alive: the
    caller does (new_state, or play_batch for the block's games)."""
    return alloc_state_script(tb, log_cap, np.zeros(0, np.int32))


@njit(cache=True, forceinline=False)
def alloc_state_script(tb, log_cap, script):
    """alloc_state with a script: the choices (int32) the seats of policy kind ``script`` read in
    order (policies._script), kept in aux rows before the log's."""
    cap = T.N_RAVENS + tb.r.params[T.P_N_RELICS]
    rcap = 1
    while rcap < tb.r.params[T.P_N_RELICS] + 1:
        rcap *= 2
    width = max(kit.LOG_WIDTH, cap)
    script_rows = (script.shape[0] + width - 1) // width
    aux = np.zeros((AUX_SCRIPT + script_rows + log_cap, width), np.int32)
    for i in range(script.shape[0]):
        aux[AUX_SCRIPT + i // width, i % width] = script[i]
    s = np.zeros(1, STATE_DTYPE)
    fv = s[0].fv  # the relics' fixed values in it (V_ACT, V_THIEF)
    fv[V_ACT + T.N_RAVENS : V_ACT + T.MAX_CAP] = -np.inf
    fv[V_THIEF + T.N_RAVENS : V_THIEF + T.MAX_CAP] = T.NEG
    board = s[0].board
    board[G_SCRIPT_N] = script.shape[0]
    board[G_LOG_CAP] = log_cap
    board[G_LOG0] = AUX_SCRIPT + script_rows
    board[G_RMASK] = rcap - 1
    board[G_NSEAT] = tb.r.params[T.P_PLAYERS]
    board[G_PL_W] = seat_width(tb)
    board[G_CAP] = cap
    return s, aux


@njit(cache=True, forceinline=False)
def copy_state(src, dst):
    """Copy everything of State ``src`` into the same-shaped State ``dst`` in place: the record
    (piles, seat rows, board with the game's continuation and any policy's plan, random streams,
    the greedy scratch values) and the aux rows in use (scratch, script, the log rows written).
    Of the piles and seat rows, only the part the config uses (G_NSEAT seats, G_PL_W columns,
    G_CAP cards a pile: nothing reads or writes past it), a third of the record: the search
    player copies a State every iteration."""
    n = src.r.board[G_NSEAT]
    cap = src.r.board[G_CAP]
    w = src.r.board[G_PL_W]
    dst.r.pile[:n, :, :cap] = src.r.pile[:n, :, :cap]
    dst.r.pl[:n, :w] = src.r.pl[:n, :w]
    dst.r.board[:] = src.r.board
    dst.r.rng[:, :] = src.r.rng
    dst.r.fv[:] = src.r.fv
    n = src.r.board[G_LOG0] + src.r.board[G_LOG_N]
    dst.aux[:n] = src.aux[:n]


@njit(cache=True, _nrt=False, inline="always")
def trace_points(st):
    """The trajectory points a game that ``st`` played from its start has recorded (Work.tr):
    one a round begun (engine.trace_point, as advance begins it) and the end's; none before the
    first advance."""
    n = st.r.board[G_ROUND]
    if st.r.board[G_STAGE] != STAGE_ROUND:
        n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def pending(st):
    """(seat, D_* kind) of the decision pending, (-1, -1) if none (before engine.advance, after
    engine.apply, or when the game is over)."""
    if st.r.board[G_PENDING] == 0:
        return -1, -1
    return st.r.board[G_ACTOR], st.r.board[G_KIND]


@njit(cache=True, _nrt=False, inline="always")
def ask(st, kind, p):
    """Make ``kind`` the next decision, seat ``p``'s (engine.advance then stops at it)."""
    st.r.board[G_KIND] = kind
    st.r.board[G_ACTOR] = p


class Work(NamedTuple):
    """The per-game scratch arrays of ``engine.play_game`` (``alloc_work``): allocated once per
    block of games by the batch kernel, and once by narrate's replay. ``tr`` is the trajectory
    of the game played with it from its start (a Work given to a copied State holds only the
    points the copy went through)."""

    moves: np.ndarray  # int32[2 * CAP + 2, 2]: legal_moves, an action and a thief per card
    order: np.ndarray  # int32[P]: steal_order
    score: np.ndarray  # int32[P]: final scores (with the handicap)
    rank: np.ndarray  # int32[P]: FR-14 ranks
    sb: np.ndarray  # int32[N_SB]: score_breakdown's SB_*
    cursed: np.ndarray  # int32[n_types]: captured cursed relics per type
    tr: np.ndarray  # int32[rounds + 1, P, K]: the game's trajectory so far (TRACE_MEASURES)


@njit(cache=True, forceinline=False)
def alloc_work(tb):
    """The Work of engine.play_game for the config of ``tb`` (``tr``: trace_cap points)."""
    P = n_seats(tb)
    cap = T.N_RAVENS + tb.r.params[T.P_N_RELICS]
    return Work(
        np.zeros((2 * cap + 2, 2), np.int32),
        np.zeros(P, np.int32),
        np.zeros(P, np.int32),
        np.zeros(P, np.int32),
        np.zeros(N_SB, np.int32),
        np.zeros(tb.r.params[T.P_N_TYPES], np.int32),
        np.zeros((tb.r.params[T.P_ROUNDS] + 1, P, len(TRACE_MEASURES)), np.int32),
    )


# ---------------------------------------------------------------- small helpers


@njit(cache=True, _nrt=False, forceinline=True)
def emit(st, code, a, b, c, d, e, f, h):
    """Log event ``code`` (E_*) with seven integers (the kit's log, kept in State.aux). The test
    for room is inlined at every site: the batch kernel keeps no log, and a call per event (some
    250 a game) cost more than the decision points add."""
    if st.r.board[G_LOG_N] < st.r.board[G_LOG_CAP]:  # one compiled _emit: every argument int64
        _emit(
            st,
            np.int64(code),
            np.int64(a),
            np.int64(b),
            np.int64(c),
            np.int64(d),
            np.int64(e),
            np.int64(f),
            np.int64(h),
        )


@njit(cache=True, _nrt=False, forceinline=False)
def _emit(st, code, a, b, c, d, e, f, h):
    kit.log_event(st.r.board, st.aux, G_LOG_N, G_LOG_CAP, G_LOG0, code, a, b, c, d, e, f, h)


def log_rows(st: State) -> np.ndarray:
    """A copy of the event log of ``st`` (int32[n, LOG_WIDTH])."""
    return kit.copy_log(st.aux, int(st.board[G_LOG0]), int(st.board[G_LOG_N]))


@njit(cache=True, _nrt=False, inline="always")
def card_type(tb, c):
    """Telemetry card type of card id ``c``: its rank index, or 9 + its relic type (one load of
    tables.C_TYPEOF, not a branch on Raven or relic: 200 counts a game)."""
    return nn(tb.r.cards[T.C_TYPEOF, nn(c)])


@njit(cache=True, _nrt=False, inline="always")
def count(tb, st, p, ev, c):
    st.r.pl[p, nn(PL_TELE + ev * (T.N_RAVENS + tb.r.params[T.P_N_TYPES]) + card_type(tb, c))] += 1


@njit(cache=True, _nrt=False, inline="always")
def find(pile, n, c):
    for i in range(n):
        if pile[i] == c:
            return i
    return -1


@njit(cache=True, _nrt=False, inline="always")
def remove_at(pile, n, i):
    """Remove pile[i] by moving the last card into its place; returns the new count."""
    pile[i] = pile[n - 1]
    return n - 1


@njit(cache=True, _nrt=False, inline="always")
def hand_push(st, p, c):
    st.r.pile[p, PILE_HAND, nn(st.r.pl[p, PL_HAND_N])] = c
    st.r.pl[p, PL_HAND_N] += 1
    st.r.pl[p, PL_NRAV] += c < T.N_RAVENS


@njit(cache=True, _nrt=False, inline="always")
def hand_take_at(st, p, i):
    """Take card ``i`` of the seat's hand out of it (the last card takes its place)."""
    st.r.pl[p, PL_NRAV] -= st.r.pile[p, PILE_HAND, i] < T.N_RAVENS
    st.r.pl[p, PL_HAND_N] = remove_at(st.r.pile[p, PILE_HAND], st.r.pl[p, PL_HAND_N], i)


@njit(cache=True, _nrt=False, inline="always")
def hand_remove(st, p, c):
    hand_take_at(st, p, find(st.r.pile[p, PILE_HAND], st.r.pl[p, PL_HAND_N], c))


@njit(cache=True, _nrt=False, inline="always")
def sync_hand(st, p):
    """PL_NRAV from the seat's hand, after its cards were set directly."""
    k = 0
    for i in range(st.r.pl[p, PL_HAND_N]):
        k += st.r.pile[p, PILE_HAND, i] < T.N_RAVENS
    st.r.pl[p, PL_NRAV] = k


@njit(cache=True, _nrt=False, inline="always")
def disc_push(st, p, c):
    st.r.pile[p, PILE_DISC, nn(st.r.pl[p, PL_DISC_N])] = c
    st.r.pl[p, PL_DISC_N] += 1


@njit(cache=True, _nrt=False, inline="always")
def ctype_col(tb, t):
    """Column of State.pl counting the seat's captured relics of type ``t``."""
    return nn(PL_TELE + 5 * (T.N_RAVENS + tb.r.params[T.P_N_TYPES]) + t)


@njit(cache=True, _nrt=False, forceinline=True)
def _captured_changed(tb, st, p, c, d):
    st.r.pl[p, PL_RESCUE_OK] = 0
    if c < T.N_RAVENS:
        if d > 0:
            st.r.pl[p, PL_CAPT_MASK] |= 1 << c
        else:
            st.r.pl[p, PL_CAPT_MASK] &= ~(1 << c)
    else:
        t = rtype(tb, c)
        col = ctype_col(tb, t)
        was = st.r.pl[p, col]
        st.r.pl[p, PL_CAPT_RELICS] += d
        st.r.pl[p, col] = was + d
        # PL_PTS: a captured relic's extra points, and a set's bonus as it fills or breaks
        at_set = tb.r.params[T.P_CURSED_SET]
        full = np.int32(was + d >= at_set) - np.int32(was >= at_set)
        st.r.pl[p, PL_PTS] += d * tb.r.cards[T.C_T_CAPT, t] + full * tb.r.cards[T.C_T_SET, t]


@njit(cache=True, _nrt=False, forceinline=True)
def capt_push(tb, st, p, c):
    st.r.pile[p, PILE_CAPT, nn(st.r.pl[p, PL_CAPT_N])] = c
    st.r.pl[p, PL_CAPT_N] += 1
    _captured_changed(tb, st, p, c, 1)


@njit(cache=True, _nrt=False, forceinline=True)
def capt_take(tb, st, p, c):
    """Remove card ``c`` from the seat's captured cards."""
    j = find(st.r.pile[p, PILE_CAPT], st.r.pl[p, PL_CAPT_N], c)
    st.r.pl[p, PL_CAPT_N] = remove_at(st.r.pile[p, PILE_CAPT], st.r.pl[p, PL_CAPT_N], j)
    _captured_changed(tb, st, p, c, -1)


@njit(cache=True, _nrt=False, forceinline=False)
def recount(tb, st):
    """Rebuild the cached counts of State.pl from the piles (after editing piles by hand)."""
    for p in range(n_seats(tb)):
        st.r.pl[p, PL_RESCUE_OK] = 0
        st.r.pl[p, PL_GEMS] = 0
        st.r.pl[p, PL_CAPT_MASK] = 0
        st.r.pl[p, PL_CAPT_RELICS] = 0
        st.r.pl[p, PL_PTS] = 0
        sync_hand(st, p)
        stolen = PL_TELE + T.EV_STOLEN * (T.N_RAVENS + tb.r.params[T.P_N_TYPES]) + T.N_RAVENS
        for t in range(tb.r.params[T.P_N_TYPES]):
            st.r.pl[p, ctype_col(tb, t)] = 0
            # PL_PTS of the relics it stole (the telemetry's count); capturing adds the rest
            st.r.pl[p, PL_PTS] += st.r.pl[p, nn(stolen + t)] * tb.r.cards[T.C_T_OWN, t]
        for k in range(4):
            for i in range(st.r.pl[p, PL_DECK_N + k]):
                c = st.r.pile[p, k, i]
                if c >= T.N_RAVENS and tb.r.cards[T.C_KIND, rtype(tb, c)] == T.K_GEM:
                    st.r.pl[p, PL_GEMS] += 1
                if k == PILE_CAPT:
                    _captured_changed(tb, st, p, c, 1)


@njit(cache=True, _nrt=False, forceinline=True)
def deck_push_top(st, p, c):
    st.r.pile[p, PILE_DECK, nn(st.r.pl[p, PL_DECK_N])] = c
    st.r.pl[p, PL_DECK_N] += 1
    st.r.pl[p, PL_DECK_KNOWN] += 1  # FR-15: the owner knows what they put on top


@njit(cache=True, _nrt=False, inline="always")
def ravens_in_hand(st, p):
    return st.r.pl[p, PL_NRAV]


@njit(cache=True, _nrt=False, inline="always")
def has_captured(st, p, r):
    """Raven ``r`` (0..8) is among the seat's captured cards."""
    return (st.r.pl[p, PL_CAPT_MASK] >> r) & 1 == 1


@njit(cache=True, _nrt=False, inline="always")
def captured_relics(st, p):
    return st.r.pl[p, PL_CAPT_RELICS]


# ---------------------------------------------------------------- legality (FR-5, FR-7)
# Here rather than in engine.py because the greedy turn (policies.greedy_turn) checks legality
# itself instead of reading a list of legal moves.


@njit(cache=True, _nrt=False, inline="always")
def can_capt3(tb, st, p):
    return (
        st.r.pl[p, PL_USED3] == 0
        and tb.r.params[T.P_CAPTURE + T.THREE] == 1
        and has_captured(st, p, T.THREE)
    )


@njit(cache=True, _nrt=False, inline="always")
def can_capt1(tb, st, p):
    if (
        st.r.pl[p, PL_USED1] != 0
        or tb.r.params[T.P_CAPTURE + T.ONE] == 0
        or not has_captured(st, p, T.ONE)
    ):
        return False
    for slot in range(n_seats(tb)):
        if st.r.board[B_CENTRE + slot] >= 0 and st.r.board[B_LOCK + slot] == 0:
            return True
    return False


@njit(cache=True, _nrt=False, inline="always")
def can_thief(tb, st, p, c):
    """FR-7: a Raven, or a relic listed in thief_relics, unless the seat drew no Raven."""
    if st.r.pl[p, PL_NO_THIEF]:
        return False
    if c < T.N_RAVENS:
        return True
    return tb.r.cards[T.C_THIEF, rtype(tb, c)] == 1


# ---------------------------------------------------------------- relic deck (circular)


@njit(cache=True, _nrt=False, forceinline=True)
def rd_index(st, k):
    """Physical index of the k-th relic from the bottom."""
    return (st.r.board[G_RD_BOT] + k) & (st.r.board[G_RMASK])


@njit(cache=True, _nrt=False, forceinline=False)
def rd_top_card(st):
    n = st.r.board[G_RD_N]
    if n == 0:
        return -1
    return st.r.board[B_RDECK + rd_index(st, n - 1)]


@njit(cache=True, _nrt=False, forceinline=False)
def rd_bottom_card(st):
    if st.r.board[G_RD_N] == 0:
        return -1
    return st.r.board[B_RDECK + st.r.board[G_RD_BOT]]


@njit(cache=True, _nrt=False, forceinline=True)
def rd_pop_top(st):
    n = st.r.board[G_RD_N]
    if n == 0:
        return -1
    x = st.r.board[B_RDECK + rd_index(st, n - 1)]
    st.r.board[G_RD_N] = n - 1
    for s in range(state_seats(st)):
        st.r.pl[s, PL_RD_TOP] = -1
        if n == 1:
            st.r.pl[s, PL_RD_BOT] = -1
    return x


@njit(cache=True, _nrt=False, forceinline=False)
def rd_pop_bottom(st):
    n = st.r.board[G_RD_N]
    if n == 0:
        return -1
    x = st.r.board[B_RDECK + st.r.board[G_RD_BOT]]
    st.r.board[G_RD_BOT] = rd_index(st, 1)
    st.r.board[G_RD_N] = n - 1
    for s in range(state_seats(st)):
        st.r.pl[s, PL_RD_BOT] = -1
        if n == 1:
            st.r.pl[s, PL_RD_TOP] = -1
    return x


@njit(cache=True, _nrt=False, forceinline=True)
def rd_push_bottom(st, x, knowers):
    """Put relic ``x`` at the bottom; seats whose bit is set in ``knowers`` know it is there
    (ENGINE-13)."""
    b = (st.r.board[G_RD_BOT] - 1) & (st.r.board[G_RMASK])
    st.r.board[B_RDECK + b] = x
    st.r.board[G_RD_BOT] = b
    st.r.board[G_RD_N] += 1
    for s in range(state_seats(st)):
        st.r.pl[s, PL_RD_BOT] = x if (knowers >> s) & 1 else -1
        if st.r.board[G_RD_N] == 1:
            st.r.pl[s, PL_RD_TOP] = st.r.pl[s, PL_RD_BOT]


@njit(cache=True, _nrt=False, forceinline=True)
def slot_knowers(st, slot):
    m = 0
    for s in range(state_seats(st)):
        if st.r.pl[s, PL_CKNOWN + slot]:
            m |= 1 << s
    return m
