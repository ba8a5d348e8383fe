"""The Raven Order game state: array layout and the small helpers shared by rules and policies.

Two seats. Workers are interchangeable (no runes, never attack), so a seat holds them as a count;
sentries, riders and druids are rows of ``State.units`` because each has its own rune and timing
(RO-5). Units leave by swapping the last row into their place; during a war a killed unit is only
marked dead, so that the indices the war holds stay valid, and the dead are swept after it. A unit
killed before the battles (Dawn Raid, a Spirit Rune) leaves play at once (``mark_dead``); one
killed in a battle or by Poisons is marked ``KILLED`` and stays in play, its rune still counting,
until the end of the war (``sweep``), so every battle group sees the same modifiers whatever the
order the groups are fought in (RO-8, ENGINE-10).
Everything lives in plain arrays, the game's continuation included (``G_PHASE`` and the
counters after it, the policies' plans in the ``A_P*`` rows), so ``copy_state`` copies a game that
resumes from the decision it was copied at, and a search can re-deal the opponent's hidden hand
(``knowledge.determinize``). ``DECISIONS`` names the decision kinds (``D_*``), ``pending`` tells the
seat and kind of the pending one, ``MAX_OPTIONS`` bounds any point's options.

The names every game gives the same things (balance/games/_kit.py): ``State`` is ``pl`` (a row
per seat, ``PL_*`` offsets, ``N_PL`` wide), ``units`` (a row per sentry, rider or druid, ``U_*``),
``board`` (the game's scalars ``G_*``, then the rune deck from ``B_DECK``: the board is ``B_DECK``
plus the config's deck wide, so it has no fixed ``N_BOARD``), ``rng`` (the game's stream and one
per seat's policy) and ``aux`` (rows ``A_*`` of the war's and the policies' scratch, then the
event log from ``AUX_LOG``); ``Work``/``alloc_work`` are the engine's and policies' scratch,
whose content never outlives one call but for the game's trajectory (``Work.trace``, which
``copy_state`` never copies); ``END_REASONS`` and ``EXTRA_COLUMNS`` name the Chunk's
end reasons and extra columns; ``BLOCK_GAMES`` is the batch kernel's block. Every array is int32 (the rng uint64), as the tables
are: the counts and ids fit it easily, and it halves the state a thread keeps hot (``aux`` alone is
``CAPU`` wide); int64 was not measured, so the width stays what the kernels were tuned with.

Kernel decorators, chosen for compile time and speed (``benchmarks/compile_time.py``,
``benchmarks/kernel_play.py``): a helper is ``inline="always"`` (numba copies its IR into every
caller); ``engine.advance`` / ``run_until``, ``engine.apply`` and ``policies.choose``, with the
steps they call once (``_apply_action``, ``_declare``, ``_battle_begin``, ``_battle_end``,
``_end_turn``, ``policies._action_code``, ``policies._sub_action``), are ``forceinline=True`` (LLVM inlines them into
``play_game``, so a decision point costs no call: numba's own inliner deep-copies a callee's IR at
every call site at a cost that grows with the square of its size). Measured with ``kernel_play``:
even steps taken a few times a war pay for it (``_declare`` and the battle steps made calls cost
the kernel about 10%), and of the loops of their own in ``play_game`` only the construction
actions' paid (loops for the attack and block points, with the plans made in calls, lost about
5%). Every other kernel says
``forceinline=False``, since a function first compiled under a forceinline caller would inherit
the flag.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from balance.games import _kit as kit
from balance.games.raven_order import tables as T

CAPU = 128  # sentries, riders and druids a seat can hold (the engine's only bound; RO-4)
BLOCK_GAMES = 64  # games per block of the batch kernel (state and work allocated once per block)

# State.pl[p, PL_*]: per-seat scalars, then per building, per rune, and telemetry.
_pl = kit.Offsets()
PL_GOLD = _pl(1)
PL_WORKERS = _pl(1)
PL_NU = _pl(1)  # rows used in State.units[p]
PL_BUILDS = _pl(1)  # buildings it may still build this turn (RO-3)
PL_NBLD = _pl(1)  # buildings standing
PL_ACAD = _pl(1)  # academies standing (RO-10: academy count)
PL_HAND_N = _pl(1)  # runes in hand
PL_ACTIONS = _pl(1)  # construction actions taken this turn
PL_HELD = _pl(1)  # bit r set when a copy of rune r is in hand (PL_HAND's summary; sync_held)
PL_BUILT = _pl(T.NB)  # + building: 1 if standing
PL_BRUNE = _pl(T.NB)  # + building: rune on it, -1 none
PL_HAND = _pl(T.NR)  # + rune: copies in hand (hidden from the opponent)
PL_INPLAY = _pl(T.NR)  # + rune: copies in play on its units and buildings
PL_CNT = _pl(T.NU)  # + unit type: living units of that type (sentry, rider, druid)
PL_TELE = _pl(T.N_TELE)  # + telemetry column (tables.TE_*)
N_PL = _pl.end

# State.units[p, i, U_*]
_u = kit.Offsets()
U_TYPE = _u(1)  # tables.SENTRY, RIDER or DRUID (workers are a count, PL_WORKERS)
U_RUNE = _u(1)  # the rune painted on it (a druid), or that it kept when taken; -1 none
U_FRESH = _u(1)  # the turn it became a rider from a sentry (RO-5)
U_TIRED = _u(1)  # the turn it last attacked (RO-5: it cannot block in the next war)
U_NOATK = _u(1)  # the turn Corruption took it (it cannot attack in that turn, RO-10)
U_DEAD = _u(1)  # 0, DEAD or KILLED (below)
N_U = _u.end
NEVER = -1000  # a turn long past, for U_FRESH / U_TIRED / U_NOATK
# U_DEAD: 0 in play; DEAD out of play (its counts and rune gone); KILLED killed in this war's
# battles, still in play until the war ends (mark_killed, sweep)
DEAD, KILLED = 1, 2

# State.board: game scalars, then the rune deck (top = index G_DECK_TOP).
_b = kit.Offsets()
G_TURN = _b(1)
G_ACTIVE = _b(1)
G_FIRST = _b(1)
G_DECK_TOP = _b(1)
G_END = _b(1)  # END_*
G_WINNER = _b(1)  # -1: a draw
G_LOG_N = _b(1)  # log rows written
G_NATK = _b(1)  # attackers of the war in progress
# The continuation (engine.advance / apply): where the game stands and the pending decision.
G_PHASE = _b(1)  # PH_*: the step the game resumes at
G_PKIND = _b(1)  # the pending decision's D_* kind, -1 none
G_PACTOR = _b(1)  # the seat that must decide, -1 none
G_I = _b(1)  # unit row of the point in progress (attack, block, spirit blockers)
G_A = _b(1)  # attacker index of the point in progress (spirit attackers, battles, razing)
G_K = _b(1)  # kills done of the rune acting (Dawn Raid, Spirit Rune); blocker index in a battle
G_ARG = _b(1)  # the unit type to train (PH_TRAIN_UNIT) or the rune to play (PH_RUNE_HOST)
G_KILLER = _b(1)  # a kill before the battles: the seat killing
G_VICTIM = _b(1)  # its victim: a unit row of the other seat, -2 a worker
G_SRC = _b(1)  # the rune killing (Dawn Raid or Spirit Rune)
G_RET = _b(1)  # the phase to resume after that kill
G_RIDERS = _b(1)  # riders among the attackers
G_WLEFT = _b(1)  # the defender's workers not yet assigned to block
G_BN = _b(1)  # battle in progress: unit blockers (aux[A_GROUP][:G_BN])
G_BA = _b(1)  # its attacker's power
G_BWK = _b(1)  # workers blocking it
G_BDIES = _b(1)  # 1 if the attacker dies
G_BLEFT = _b(1)  # attacker's power not yet spent on kills
G_PLAN = _b(1)  # 1 once the acting policy planned the compound choice in progress
G_PLAN_ACT = _b(1)  # the construction action the policy chose last (its D_ACTION code)
G_PLAN_ARG = _b(1)  # and its unit row or host (answers D_TRAIN_UNIT / D_RUNE_HOST)
N_G_RESET = _b.end  # board[:N_G_RESET] is cleared for every game
G_LOG_CAP = _b(1)  # set at allocation, kept across games
G_LOG0 = _b(1)  # aux row of the first log row
B_DECK = _b(0)  # + i: rune id of deck card i (as many as the config's deck holds)

# How a game ended: board[G_END] holds an END_* code, and Chunk.end_reason the index of its name
# in END_REASONS (END_* - 1; END_NONE is a game still in progress).
END_NONE, END_DESTRUCTION, END_DRAW = range(3)
END_REASONS: tuple[str, ...] = ("destruction", "draw")

# The int32 per-seat columns a Chunk carries beside score and rank (engine.play_batch fills
# them from the final state): unit rows in play, workers, gold.
EXTRA_COLUMNS: tuple[str, ...] = ("units", "workers", "gold")


# The trajectory a game records (kit.Outputs' ``trace``; docs/rules/raven_order.md, How a game
# went): each seat's measures at point 0 (after set-up), at the end of every round (the first
# player's turn, then the second's) and at the game's end. The first is the seat's standing:
# TRACE_BUILDING buildings standing plus its army (so buildings decide, the army breaks ties);
# then its buildings standing (the score, ENGINE-2) and its army (sentries + 2 riders + 3 druids:
# the training steps its units embody, at most 3 * CAPU). Workers and gold are not kept: they
# made the trace file 55 % larger and took 40 % of the time to write it, and the
# final ones are the rows' extra columns.
TRACE_MEASURES: tuple[str, ...] = ("standing", "buildings", "army")
N_TRACE = len(TRACE_MEASURES)
TRACE_BUILDING = 1000  # standing per building standing: above any army (3 * CAPU = 384)


def trace_cap(tb) -> int:
    """The most trajectory points a game of these tables can record: point 0, then one per round
    begun, of which there are at most ceil(turn_cap / 2) (ENGINE-1: the cap counts both players'
    turns); ``alloc_work`` sizes the kernel's rows the same way."""
    return 1 + (int(tb.params[T.P_TURN_CAP]) + 1) // 2


# State.aux rows (width CAPU): the war's working arrays, policy scratch, then the log.
_a = kit.Offsets()
A_ATK = _a(1)  # [a]: attacker a's unit row
A_APOW = _a(1)  # [a]: attacker a's power in its battle
A_AWK = _a(1)  # [a]: workers blocking attacker a
A_BLK = _a(1)  # [i]: defender unit row i blocks attacker A_BLK[i], -1 none
A_BONUS = _a(1)  # [a]: temporary power of attacker a (Canine)
A_BPOW = _a(1)  # [i]: defender unit i's power in its battle
A_TMP = _a(3)  # 3 rows of policy scratch (never read across calls)
A_GROUP = _a(1)  # [k]: the battle in progress: unit row of blocker k
A_GPOW = _a(1)  # [k]: blocker k's power in it
A_KILL = _a(1)  # [k]: 1 if the attacker chose to kill blocker k
A_FREE = _a(1)  # [a]: 1 if attacker a was not engaged (it razes, RO-9)
A_PATK = _a(1)  # [i]: the attacking policy's plan: 1 if unit row i attacks
A_PBLK = _a(1)  # [i]: the defending policy's plan: attacker index unit row i blocks, -1 none
A_PAWK = _a(1)  # [a]: the defending policy's plan: workers blocking attacker a
A_PKILL = _a(1)  # [k]: the attacking policy's plan: 1 if it kills blocker k
AUX_LOG = _a.end  # + i: log row i

# Log events (narrate.py): code, then up to seven integers.
(
    E_START,  # first, deck size
    E_TURN,  # p, turn, gold, workers, buildings, units, runes in hand
    E_HARVEST,  # p, gold gained, workers gained, runes drawn, gold now
    E_BUILD,  # p, building, cost, gold left
    E_STATUE,  # p, choice, amount
    E_TRAIN,  # p, to type, cost, gold left
    E_SELL,  # p, gold, gold now
    E_RUNE,  # p, rune, host type (-1 druid / building), host
    E_CORRUPT,  # p, unit type taken (-1 none, 0 worker), its rune
    E_ATTACK,  # p, unit type, power, rune
    E_CANINE,  # p, bonus
    E_CONQUEST,  # p, workers
    E_PREKILL,  # p (killer), source rune, victim type (0 worker), its rune, 1 if Squire saved it
    E_BATTLE,  # p, attacker type, attacker power, blockers power, blockers, attacker dies
    E_DEATH,  # owner, unit type, rune
    E_SQUIRE,  # p
    E_LOOT,  # p, gold
    E_POISON,  # p (the rider's owner), victim type, its rune (one event per victim)
    E_DESTROY,  # p (attacker), building
    E_END,  # reason, winner, turns
) = range(20)


# The decision kinds (engine.legal documents each one's option codes; docs/rules/raven_order.md,
# Decisions). D_<NAME> indexes DECISIONS.
DECISIONS: tuple[str, ...] = (
    "action",  # a construction action or the end of Construction (RO-3..RO-6)
    "statue",  # the Statue's choice (RO-3)
    "train_unit",  # which unit of the type the action trains (RO-4)
    "rune_host",  # which druid or building the rune the action plays goes on (RO-6)
    "corruption",  # the enemy unit Corruption takes (RO-10)
    "attack",  # does this eligible unit attack? (RO-7; one point per eligible unit)
    "canine",  # the attacking rider Canine strengthens (RO-10)
    "dawn_raid",  # the enemy unit Dawn Raid kills (RO-10, ENGINE-4)
    "spirit_attack",  # the unpainted enemy unit an attacking Spirit Rune kills (ENGINE-4)
    "squire",  # kill a worker instead of the attacking rider? (ENGINE-7)
    "block",  # which attacker this unit blocks, or none (RO-7; one point per unit)
    "worker_block",  # which attacker the next worker blocks, or stop (RO-7)
    "spirit_block",  # the unpainted enemy unit a blocking Spirit Rune kills (ENGINE-4)
    "kill",  # does the attacker kill this blocker? (RO-8; one point per unit blocker)
    "destroy",  # the building an unblocked attacker destroys (RO-9)
)
(
    D_ACTION,
    D_STATUE,
    D_TRAIN_UNIT,
    D_RUNE_HOST,
    D_CORRUPTION,
    D_ATTACK,
    D_CANINE,
    D_DAWN_RAID,
    D_SPIRIT_ATTACK,
    D_SQUIRE,
    D_BLOCK,
    D_WORKER_BLOCK,
    D_SPIRIT_BLOCK,
    D_KILL,
    D_DESTROY,
) = range(len(DECISIONS))
# D_ACTION codes: 0 end Construction, AC_BUILD + building, AC_TRAIN + the unit type trained from
# (worker, sentry, rider), AC_SELL, AC_RUNE + rune; N_ACTION_CODES of them.
AC_END = 0
AC_BUILD = 1
AC_TRAIN = AC_BUILD + T.NB
AC_SELL = AC_TRAIN + 3
AC_RUNE = AC_SELL + 1
N_ACTION_CODES = AC_RUNE + T.NR
# A target (corruption, dawn_raid, spirit_attack, spirit_block): an enemy unit row, or TG_WORKER.
TG_WORKER = CAPU
# The most options of any point: a target (CAPU unit rows and a worker), or a block (none and up to
# CAPU attackers); an action has N_ACTION_CODES <= CAPU + 1, the others fewer. CAPU bounds the
# unit rows a seat holds for every config (ENGINE-9), so this holds for any config.
MAX_OPTIONS = max(CAPU + 1, N_ACTION_CODES)

# The phases of the continuation (board[G_PHASE]); engine.advance runs the forced ones.
(
    PH_TURN,  # the turn's Harvest
    PH_CONSTRUCT,  # Construction begins
    PH_ACTION,  # pending D_ACTION
    PH_STATUE,  # pending D_STATUE
    PH_TRAIN_UNIT,  # pending D_TRAIN_UNIT
    PH_RUNE_HOST,  # pending D_RUNE_HOST
    PH_CORRUPT,  # Corruption was played: D_CORRUPTION if it has a target
    PH_WAR,  # the War begins
    PH_ATTACK,  # D_ATTACK for the next eligible unit from G_I, then declare
    PH_DECLARE,  # the attackers attack
    PH_CANINE,  # pending D_CANINE
    PH_CONQUEST,  # Conquest, then Dawn Raid
    PH_DAWN,  # Dawn Raid's kills (G_K done)
    PH_SPIRIT_ATK,  # attacking Spirit Runes' kills (G_A, G_K)
    PH_PREKILL,  # a kill before the battles (G_KILLER, G_VICTIM, G_SRC), then G_RET
    PH_PREKILL_SQUIRE,  # pending D_SQUIRE for that kill
    PH_APOW,  # the attackers' powers the defender sees; blocking begins
    PH_BLOCK,  # D_BLOCK for the next unit from G_I that may block
    PH_WORKER_BLOCK,  # D_WORKER_BLOCK while workers are left
    PH_RESOLVE,  # the blocks are made
    PH_SPIRIT_BLK,  # blocking Spirit Runes' kills (G_I, G_K)
    PH_BATTLE,  # the next battle group from G_A
    PH_KILL,  # D_KILL for blocker G_K of the battle in progress
    PH_BATTLE_END,  # the battle's deaths, Looting, Poisons, the attacker's fate
    PH_BATTLE_SQUIRE,  # pending D_SQUIRE for the attacking rider
    PH_DESTROY,  # D_DESTROY for the next unblocked attacker from G_A
    PH_TURN_END,  # RO-9, the turn cap, the next seat
    PH_OVER,  # the game ended: log its end
    PH_DONE,  # nothing left
) = range(29)


@njit(cache=True, _nrt=False, forceinline=False)
def pending(st):
    """(the seat that must decide, its D_* kind); (-1, -1) when no decision is pending."""
    return np.int64(st.board[G_PACTOR]), np.int64(st.board[G_PKIND])


class State(NamedTuple):
    """One game in progress (a few arrays; see the PL_/U_/G_/A_ layouts)."""

    pl: np.ndarray  # int32[2, N_PL]
    units: np.ndarray  # int32[2, CAPU, N_U]
    board: np.ndarray  # int32[B_DECK + deck size]
    rng: np.ndarray  # uint64[3, 1]: 0 the game (first player, deck), 1 + p seat p's policy
    aux: np.ndarray  # int32[AUX_LOG + log rows, CAPU]


@njit(cache=True, forceinline=False)
def alloc_state(tb, log_cap):
    board = np.zeros(B_DECK + max(1, tb.params[T.P_DECK_N]), np.int32)
    board[G_LOG_CAP] = log_cap
    board[G_LOG0] = AUX_LOG
    return State(
        np.zeros((2, N_PL), np.int32),
        np.zeros((2, CAPU, N_U), np.int32),
        board,
        np.zeros((3, 1), np.uint64),
        np.zeros((AUX_LOG + log_cap, CAPU), np.int32),
    )


class Work(NamedTuple):
    """Scratch of ``engine.advance`` / ``apply`` and ``policies.choose`` (allocated once per block
    of the batch kernel, and once per replay): nothing in ``act`` outlives one call; ``trace``
    holds the game's trajectory so far (engine.trace_point writes it, engine.record_trace copies
    it out), kept here and not in the State so that ``copy_state`` never copies it."""

    act: np.ndarray  # int32[3]: a policy's construction action: policies.ACT_*, a, b
    trace: np.ndarray  # int16[trace_cap, 2, N_TRACE]: point k, seat, TRACE_MEASURES


@njit(cache=True, forceinline=False)
def alloc_work(tb):
    """The ``Work`` of the engine and policies (``tb`` for the shape every game's has: the
    trajectory's rows, ``trace_cap(tb)`` of them)."""
    return Work(
        np.zeros(3, np.int32),
        np.zeros((1 + (tb.params[T.P_TURN_CAP] + 1) // 2, 2, N_TRACE), np.int16),
    )


@njit(cache=True, _nrt=False, forceinline=False)
def copy_state(src, dst):
    """Copy everything of ``src`` into the same-shaped ``dst`` in place: the seats, the units,
    the board (the continuation included), random streams, the war's and policies' rows
    and the log rows in use."""
    for p in range(src.pl.shape[0]):
        for j in range(src.pl.shape[1]):
            dst.pl[p, j] = src.pl[p, j]
        for i in range(src.units.shape[1]):
            for f in range(N_U):
                dst.units[p, i, f] = src.units[p, i, f]
    for j in range(src.board.shape[0]):
        dst.board[j] = src.board[j]
    for s in range(src.rng.shape[0]):
        dst.rng[s, 0] = src.rng[s, 0]
    n = AUX_LOG + src.board[G_LOG_N]
    if n > src.aux.shape[0]:
        n = src.aux.shape[0]
    for r in range(n):
        for j in range(src.aux.shape[1]):
            dst.aux[r, j] = src.aux[r, j]


@njit(cache=True, _nrt=False, inline="always")
def emit(st, code, a, b, c, d, e, f, h):
    """Log event ``code`` (E_*) with seven integers (the kit's log, kept in State.aux)."""
    kit.log_event(st.board, st.aux, G_LOG_N, G_LOG_CAP, G_LOG0, code, a, b, c, d, e, f, h)


def log_rows(st: State) -> np.ndarray:
    """A copy of the event log of ``st`` (int32[n, LOG_WIDTH])."""
    return kit.copy_log(st.aux, int(st.board[G_LOG0]), int(st.board[G_LOG_N]))


@njit(cache=True, _nrt=False, inline="always")
def tele(st, p, col, n):
    st.pl[p, PL_TELE + col] += n


@njit(cache=True, _nrt=False, inline="always")
def has(st, p, r):
    """Copies of rune ``r`` that seat ``p`` has in play."""
    return st.pl[p, PL_INPLAY + r]


@njit(cache=True, _nrt=False, inline="always")
def advantage(st, p):
    """RO-10: academy advantage of ``p``: max(0, own academies - the opponent's)."""
    d = st.pl[p, PL_ACAD] - st.pl[1 - p, PL_ACAD]
    return d if d > 0 else 0


@njit(cache=True, _nrt=False, inline="always")
def is_academy(b):
    return T.ACAD1 <= b <= T.ACAD3  # the three academies have consecutive ids


@njit(cache=True, _nrt=False, inline="always")
def can_attack(tb, st, p, i):
    """RO-5: a rider or druid that did not become a rider from a sentry this turn (Horses lifts
    that for riders) and was not taken by Corruption this turn."""
    t = st.units[p, i, U_TYPE]
    if t < T.RIDER or st.units[p, i, U_DEAD] != 0:
        return False
    turn = st.board[G_TURN]
    if st.units[p, i, U_NOATK] == turn:
        return False
    return st.units[p, i, U_FRESH] != turn or (t == T.RIDER and has(st, p, T.HORSES) > 0)


@njit(cache=True, _nrt=False, inline="always")
def can_block(st, p, i):
    """RO-5: a unit that attacked cannot block in the opponent's next war."""
    return st.units[p, i, U_DEAD] == 0 and st.units[p, i, U_TIRED] != st.board[G_TURN] - 1


@njit(cache=True, _nrt=False, inline="always")
def druids_only(st, p, i):
    """Can attacker ``i`` of seat ``p`` be stopped only by druids (Shadow Rune, Cloaking)?"""
    if st.units[p, i, U_RUNE] == T.SHADOW:
        return True
    return st.units[p, i, U_TYPE] == T.DRUID and has(st, p, T.CLOAKING) > 0


@njit(cache=True, _nrt=False, forceinline=False)
def unit_power(tb, st, p, i, attacking):
    """Power of unit ``i`` of seat ``p`` with its standing modifiers (RO-8, RO-10); the battle adds
    Canine, Frost Mark and Shields."""
    t = st.units[p, i, U_TYPE]
    pw = tb.params[T.P_POWER + t]
    r = st.units[p, i, U_RUNE]
    if r == T.BLOOM or r == T.SHADOW or r == T.SPIRIT:
        pw += tb.rune[r, T.RN_POWER]  # the druid itself
    if t == T.DRUID:
        pw += has(st, p, T.CROWN) * tb.rune[T.CROWN, T.RN_POWER]
    elif t == T.RIDER:
        pw += has(st, p, T.RITUALS) * tb.rune[T.RITUALS, T.RN_POWER]
        if attacking:
            pw += has(st, p, T.STEEL) * tb.rune[T.STEEL, T.RN_POWER]
    return pw


@njit(cache=True, _nrt=False, inline="always")
def shields_bonus(tb, st, q, i, attacker_type):
    """Shields: a sentry of ``q`` blocking a rider gains power."""
    if attacker_type == T.RIDER and st.units[q, i, U_TYPE] == T.SENTRY:
        return has(st, q, T.SHIELDS) * tb.rune[T.SHIELDS, T.RN_POWER]
    return 0


@njit(cache=True, _nrt=False, forceinline=False)
def add_unit(st, p, t):
    """A new unit of type ``t`` for seat ``p`` (returns its row, -1 when the seat is full)."""
    n = st.pl[p, PL_NU]
    if n >= CAPU:
        return -1
    u = st.units[p, n]
    u[U_TYPE] = t
    u[U_RUNE] = -1
    u[U_FRESH] = NEVER
    u[U_TIRED] = NEVER
    u[U_NOATK] = NEVER
    u[U_DEAD] = 0
    st.pl[p, PL_NU] = n + 1
    st.pl[p, PL_CNT + t] += 1
    return n


@njit(cache=True, _nrt=False, inline="always")
def leave_play(st, p, i):
    """Unit ``i`` of ``p`` leaves play: its type's count, its rune (RO-6), a loss in telemetry."""
    st.pl[p, PL_CNT + st.units[p, i, U_TYPE]] -= 1
    r = st.units[p, i, U_RUNE]
    if r >= 0:
        st.pl[p, PL_INPLAY + r] -= 1
        st.units[p, i, U_RUNE] = -1
    tele(st, p, T.TE_LOST_U + st.units[p, i, U_TYPE], 1)


@njit(cache=True, _nrt=False, inline="always")
def mark_dead(st, p, i):
    """Unit ``i`` of ``p`` dies now, before the battles (swept by ``sweep``); its rune leaves play
    with it (RO-6, ENGINE-4)."""
    if st.units[p, i, U_DEAD] != 0:
        return
    st.units[p, i, U_DEAD] = DEAD
    leave_play(st, p, i)


@njit(cache=True, _nrt=False, inline="always")
def mark_killed(st, p, i):
    """Unit ``i`` of ``p`` is killed in a battle (or by Poisons): it fights no more, but it and its
    rune stay in play until the end of the war, when ``sweep`` removes it (RO-8, ENGINE-10)."""
    if st.units[p, i, U_DEAD] == 0:
        st.units[p, i, U_DEAD] = KILLED


@njit(cache=True, _nrt=False, inline="always")
def kill_worker(st, p):
    if st.pl[p, PL_WORKERS] > 0:
        st.pl[p, PL_WORKERS] -= 1
        tele(st, p, T.TE_LOST_U + T.WORKER, 1)


@njit(cache=True, _nrt=False, forceinline=False)
def sweep(st, p):
    """The end of a war: units killed in its battles leave play (``mark_killed``), then the dead
    rows of seat ``p`` are removed (swap-with-last)."""
    i = 0
    while i < st.pl[p, PL_NU]:
        dead = st.units[p, i, U_DEAD]
        if dead != 0:
            if dead == KILLED:
                leave_play(st, p, i)
            last = st.pl[p, PL_NU] - 1
            for f in range(N_U):
                st.units[p, i, f] = st.units[p, last, f]
            st.pl[p, PL_NU] = last
        else:
            i += 1


@njit(cache=True, _nrt=False, forceinline=False)
def draw_rune(st, p):
    """RO-2: the top rune of the deck to ``p``'s hand (nothing when the deck is empty); returns
    the rune or -1."""
    top = st.board[G_DECK_TOP]
    if B_DECK + top >= st.board.shape[0]:
        return -1
    r = st.board[B_DECK + top]
    if r < 0:
        return -1
    st.board[B_DECK + top] = -1
    st.board[G_DECK_TOP] = top + 1
    st.pl[p, PL_HAND + r] += 1
    st.pl[p, PL_HAND_N] += 1
    st.pl[p, PL_HELD] |= 1 << r
    tele(st, p, T.TE_DRAWN + r, 1)
    return r


@njit(cache=True, _nrt=False, forceinline=False)
def sync_held(st, p):
    """PL_HELD of seat ``p`` from its hand, after the hand was set as a whole (a re-deal)."""
    m = 0
    for r in range(T.NR):
        if st.pl[p, PL_HAND + r] > 0:
            m |= 1 << r
    st.pl[p, PL_HELD] = m


def recount(st) -> None:
    """Rebuild the cached counts (buildings, academies, runes in play) of a hand-built state."""
    for p in range(2):
        st.pl[p, PL_NBLD] = int(st.pl[p, PL_BUILT : PL_BUILT + T.NB].sum())
        st.pl[p, PL_ACAD] = int(sum(st.pl[p, PL_BUILT + b] for b in (T.ACAD1, T.ACAD2, T.ACAD3)))
        st.pl[p, PL_HAND_N] = int(st.pl[p, PL_HAND : PL_HAND + T.NR].sum())
        sync_held(st, p)
        st.pl[p, PL_INPLAY : PL_INPLAY + T.NR] = 0
        st.pl[p, PL_CNT : PL_CNT + T.NU] = 0
        for b in range(T.NB):
            r = st.pl[p, PL_BRUNE + b]
            if st.pl[p, PL_BUILT + b] and r >= 0:
                st.pl[p, PL_INPLAY + r] += 1
        for i in range(st.pl[p, PL_NU]):
            r = st.units[p, i, U_RUNE]
            if st.units[p, i, U_DEAD] == 0:
                st.pl[p, PL_CNT + st.units[p, i, U_TYPE]] += 1
                if r >= 0:
                    st.pl[p, PL_INPLAY + r] += 1


def new_state(tb, log_cap: int = 0) -> State:
    """A State for the config, from Python (the kernels use ``alloc_state``): the Python entry
    every game's state.py has (balance/games/position.py)."""
    return alloc_state(tb, np.int64(log_cap))
