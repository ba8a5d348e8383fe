"""The Raven Order rule engine: numba kernels over the arrays of ``state.State``.

One game: setup (RO-1), then turns of Harvest (RO-2), Construction (RO-3..RO-6) and War (RO-7..
RO-9) until a player has no building after a war, or the turn cap makes it a draw, played as a
sequence of decision points (docs/rules/raven_order.md, Decisions): ``start`` a game, ``advance``
to the next decision (chance and forced steps), ``legal`` lists its options, ``apply`` carries one
out (``policies.choose`` is the seat's pick); ``play_game`` is that loop (a run of construction
actions kept in a loop of its own, through the same steps) and ``play_batch`` plays
games with it. Where the game stands lives in the State (``state.PH_*`` and the board's counters),
so a game resumes from any copy of its state.

Readings of the engine where the rulebook and RULINGS are silent (cited in tests as ENGINE-n):

- ENGINE-1 The turn cap counts every player's turns; ``turns`` is the number of turns played.
- ENGINE-2 A draw is a shared first place (``win`` = 0.5 each); ``score`` is the buildings a seat
  has standing at the end (0 for the loser of a destruction).
- ENGINE-3 Runes are dealt five to the first player, then five to the second.
- ENGINE-4 Dawn Raid and an attacking Spirit Rune kill when attackers are declared, before
  blockers are chosen; a blocking Spirit Rune kills after blockers are chosen, before battle (so it
  may kill an attacker, whose blockers then survive). Each copy in play acts once per war.
- ENGINE-5 Copies of a rune stack (two Crown Runes give +6); Frost Marks in one battle group stack.
- ENGINE-6 Looting pays for workers and sentries that riders kill in battle, not for Poisons'.
- ENGINE-7 Squire: a worker of the attacking rider's owner dies in its place (when it has one),
  whatever kills the rider: its battle, or a blocking Spirit Rune before the battle (then the
  rider fights its battle as if nothing had happened).
- ENGINE-8 Corruption may be played with no enemy unit to take; a taken unit keeps its rune.
- ENGINE-9 A seat holds at most ``state.CAPU`` sentries, riders and druids; training a worker
  past that is not allowed (never reached by the heuristics).
- ENGINE-10 The battle groups are fought "separately" with "all modifiers applied" (RO-8), and
  killed units are removed at the end of the war (the rulebook's End of War): every group's
  modifiers (a Crown Rune's +3 to its side's druids, Frost Marks, Shields, ...) are those of the
  units in play when the battles begin, after the kills before battle (Dawn Raid and Spirit Runes,
  ENGINE-4), and a unit killed in a group (or by Poisons after it) stays in play, its rune still
  counting, until every group has fought. No group's result depends on the order of the groups.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from balance.games import _kit as kit
from balance.games.base import Chunk
from balance.games.raven_order import policies as pol
from balance.games.raven_order import state as S
from balance.games.raven_order import tables as T
from balance.rng import below, seed_stream

# ---------------------------------------------------------------------------------------------
# Setup and Harvest


@njit(cache=True, _nrt=False, forceinline=False)
def place_building(tb, st, p, b):
    st.pl[p, S.PL_BUILT + b] = 1
    st.pl[p, S.PL_BRUNE + b] = -1
    st.pl[p, S.PL_NBLD] += 1
    if S.is_academy(b):
        st.pl[p, S.PL_ACAD] += 1


@njit(cache=True, _nrt=False, forceinline=False)
def setup(tb, st, seed, game):
    """RO-1: reset ``st`` to the start of game ``game`` of run ``seed``."""
    for s in range(st.rng.shape[0]):
        seed_stream(st.rng[s], seed, game, s)
    st.board[: S.N_G_RESET] = 0
    st.pl[:, :] = 0
    first = below(st.rng[0], 2)
    st.board[S.G_FIRST] = first
    st.board[S.G_TURN] = 0
    n = 0
    for r in range(T.NR):
        for _ in range(tb.rune[r, T.RN_COUNT]):
            st.board[S.B_DECK + n] = r
            n += 1
    for i in range(n, st.board.shape[0] - S.B_DECK):
        st.board[S.B_DECK + i] = -1
    kit.shuffle(st.board[S.B_DECK :], n, st.rng[0])
    S.emit(st, S.E_START, first, n, 0, 0, 0, 0, 0)
    for k in range(2):
        p = first if k == 0 else 1 - first
        st.pl[p, S.PL_GOLD] = tb.params[T.P_START_GOLD]
        for b in range(T.NB):
            st.pl[p, S.PL_BRUNE + b] = -1
            if tb.params[T.P_START_BLD + b] != 0:
                place_building(tb, st, p, b)
        for _ in range(tb.params[T.P_START_HAND]):  # ENGINE-3
            S.draw_rune(st, p)
    second = 1 - first
    for _ in range(tb.params[T.P_COMP_SENTRIES]):
        S.add_unit(st, second, T.SENTRY)
    st.pl[second, S.PL_WORKERS] += tb.params[T.P_COMP_WORKERS]
    st.pl[second, S.PL_GOLD] += tb.params[T.P_COMP_GOLD]


@njit(cache=True, _nrt=False, inline="always")
def harvest(tb, st, p):
    """RO-2: workers, gold and runes of ``p``'s Harvest."""
    gold0 = st.pl[p, S.PL_GOLD]
    workers = tb.params[T.P_HARVEST_WORKERS]
    drawn = 0
    for b in range(T.NB):
        if st.pl[p, S.PL_BUILT + b] != 0:
            st.pl[p, S.PL_GOLD] += tb.bld[b, T.BD_GOLD]
            workers += tb.bld[b, T.BD_WORKERS]
            for _ in range(tb.bld[b, T.BD_RUNES]):
                if S.draw_rune(st, p) >= 0:
                    drawn += 1
    med = S.has(st, p, T.MEDICINE)
    if med > 0:
        workers += med * tb.rune[T.MEDICINE, T.RN_WORKERS]
        g = st.pl[p, S.PL_GOLD] - med * tb.rune[T.MEDICINE, T.RN_GOLD]
        st.pl[p, S.PL_GOLD] = g if g > 0 else 0
    workers += S.has(st, p, T.BLOOM) * tb.rune[T.BLOOM, T.RN_WORKERS] * S.advantage(st, p)
    st.pl[p, S.PL_WORKERS] += workers
    S.emit(
        st, S.E_HARVEST, p, st.pl[p, S.PL_GOLD] - gold0, workers, drawn, st.pl[p, S.PL_GOLD], 0, 0
    )


# ---------------------------------------------------------------------------------------------
# Construction


@njit(cache=True, _nrt=False, forceinline=False)
def build(tb, st, p, b):
    """RO-3: ``p`` builds ``b`` (a Statue's choice is the next decision, ``statue``). Returns
    False, changing nothing, when it may not."""
    if not pol.can_build(tb, st, p, b):
        return False
    st.pl[p, S.PL_GOLD] -= tb.bld[b, T.BD_COST]
    st.pl[p, S.PL_BUILDS] -= 1
    place_building(tb, st, p, b)
    S.tele(st, p, T.TE_BUILT + b, 1)
    S.emit(st, S.E_BUILD, p, b, tb.bld[b, T.BD_COST], st.pl[p, S.PL_GOLD], 0, 0, 0)
    return True


@njit(cache=True, _nrt=False, forceinline=False)
def statue(tb, st, p, c):
    """RO-3: the Statue's choice ``c`` (tables.STATUE_*)."""
    if c == T.STATUE_WORKERS:
        st.pl[p, S.PL_WORKERS] += tb.params[T.P_STATUE_WORKERS]
        S.emit(st, S.E_STATUE, p, c, tb.params[T.P_STATUE_WORKERS], 0, 0, 0, 0)
    elif c == T.STATUE_RUNES:
        got = 0
        for _ in range(tb.params[T.P_STATUE_RUNES]):
            if S.draw_rune(st, p) >= 0:
                got += 1
        S.emit(st, S.E_STATUE, p, c, got, 0, 0, 0, 0)
    else:
        st.pl[p, S.PL_BUILDS] += tb.params[T.P_STATUE_BUILDS]
        S.emit(st, S.E_STATUE, p, T.STATUE_BUILDS, tb.params[T.P_STATUE_BUILDS], 0, 0, 0, 0)


@njit(cache=True, _nrt=False, forceinline=False)
def train(tb, st, p, from_type, unit):
    """RO-4, RO-5: train one unit of ``from_type`` a step up (a worker, or unit row ``unit``; -1
    takes any). Returns the unit's row, or -1, changing nothing, when it may not."""
    if not pol.can_train(tb, st, p, from_type):
        return -1
    to = from_type + 1
    cost = pol.train_cost(tb, st, p, to)
    if from_type == T.WORKER:
        i = S.add_unit(st, p, T.SENTRY)
        st.pl[p, S.PL_WORKERS] -= 1
    else:
        i = unit
        if not (
            0 <= i < st.pl[p, S.PL_NU]
            and st.units[p, i, S.U_TYPE] == from_type
            and st.units[p, i, S.U_DEAD] == 0
        ):
            i = -1
            for j in range(st.pl[p, S.PL_NU]):
                if st.units[p, j, S.U_TYPE] == from_type and st.units[p, j, S.U_DEAD] == 0:
                    i = j
                    break
        st.units[p, i, S.U_TYPE] = to
        st.pl[p, S.PL_CNT + from_type] -= 1
        st.pl[p, S.PL_CNT + to] += 1
        if to == T.RIDER:  # RO-5: it began the turn as a worker or sentry
            st.units[p, i, S.U_FRESH] = st.board[S.G_TURN]
    st.pl[p, S.PL_GOLD] -= cost
    S.tele(st, p, T.TE_TRAINED + to - 1, 1)
    S.emit(st, S.E_TRAIN, p, to, cost, st.pl[p, S.PL_GOLD], 0, 0, 0)
    return i


@njit(cache=True, _nrt=False, forceinline=False)
def sell_worker(tb, st, p):
    """RO-5: a worker for gold."""
    if st.pl[p, S.PL_WORKERS] <= 0:
        return False
    st.pl[p, S.PL_WORKERS] -= 1
    st.pl[p, S.PL_GOLD] += tb.params[T.P_SELL]
    S.tele(st, p, T.TE_SOLD, 1)
    S.emit(st, S.E_SELL, p, tb.params[T.P_SELL], st.pl[p, S.PL_GOLD], 0, 0, 0, 0)
    return True


@njit(cache=True, _nrt=False, forceinline=False)
def take_unit(tb, st, p, victim):
    """Corruption: ``p`` takes enemy unit row ``victim`` (-2: a worker); it cannot attack this
    turn (RO-10). Returns the taken type or -1."""
    q = 1 - p
    if victim == -2:
        if st.pl[q, S.PL_WORKERS] <= 0:
            return -1
        st.pl[q, S.PL_WORKERS] -= 1
        st.pl[p, S.PL_WORKERS] += 1
        S.emit(st, S.E_CORRUPT, p, T.WORKER, -1, 0, 0, 0, 0)
        return T.WORKER
    if victim < 0 or victim >= st.pl[q, S.PL_NU] or st.units[q, victim, S.U_DEAD] != 0:
        return -1
    i = S.add_unit(st, p, st.units[q, victim, S.U_TYPE])
    if i < 0:
        return -1
    r = st.units[q, victim, S.U_RUNE]
    t = st.units[q, victim, S.U_TYPE]
    st.units[p, i, S.U_RUNE] = r
    st.units[p, i, S.U_NOATK] = st.board[S.G_TURN]
    if r >= 0:  # the rune goes with its host (ENGINE-8)
        st.pl[q, S.PL_INPLAY + r] -= 1
        st.pl[p, S.PL_INPLAY + r] += 1
    st.pl[q, S.PL_CNT + t] -= 1
    last = st.pl[q, S.PL_NU] - 1
    for f in range(S.N_U):
        st.units[q, victim, f] = st.units[q, last, f]
    st.pl[q, S.PL_NU] = last
    S.emit(st, S.E_CORRUPT, p, t, r, 0, 0, 0, 0)
    return t


@njit(cache=True, _nrt=False, forceinline=False)
def play_rune(tb, st, p, r, host):
    """RO-6: ``p`` plays rune ``r`` from hand on ``host`` (a druid's row for paint, else a
    building); Corruption's take is the next decision (``corruption``). Returns False, changing
    nothing, when it may not."""
    if st.pl[p, S.PL_HAND + r] <= 0 or not pol.rune_level_ok(tb, st, p, r):
        return False
    if not pol.rune_target_ok(tb, st, p, r, host):
        return False
    st.pl[p, S.PL_HAND + r] -= 1
    st.pl[p, S.PL_HAND_N] -= 1
    if st.pl[p, S.PL_HAND + r] == 0:
        st.pl[p, S.PL_HELD] &= ~(1 << r)
    st.pl[p, S.PL_INPLAY + r] += 1
    is_paint = tb.rune[r, T.RN_TARGET] == T.T_DRUID
    if is_paint:
        st.units[p, host, S.U_RUNE] = r
    else:
        st.pl[p, S.PL_BRUNE + host] = r
    S.tele(st, p, T.TE_PLAYED + r, 1)
    S.emit(st, S.E_RUNE, p, r, -1 if is_paint else 0, host, 0, 0, 0)
    return True


# ---------------------------------------------------------------------------------------------
# War


@njit(cache=True, _nrt=False, forceinline=False)
def destroy_building(tb, st, p, b):
    """Building ``b`` of ``p`` is destroyed; its rune leaves play (RO-6)."""
    if st.pl[p, S.PL_BUILT + b] == 0:
        return
    st.pl[p, S.PL_BUILT + b] = 0
    st.pl[p, S.PL_NBLD] -= 1
    if S.is_academy(b):
        st.pl[p, S.PL_ACAD] -= 1
    r = st.pl[p, S.PL_BRUNE + b]
    if r >= 0:
        st.pl[p, S.PL_INPLAY + r] -= 1
        st.pl[p, S.PL_BRUNE + b] = -1
    S.tele(st, p, T.TE_LOST_B + b, 1)


@njit(cache=True, _nrt=False, inline="always")
def squire_may(tb, st, p, i):
    """Squire (ENGINE-7): may ``p`` kill a worker instead of its attacking rider ``i``?"""
    return (
        st.units[p, i, S.U_TYPE] == T.RIDER  # RO-10: riders, not druids
        and st.units[p, i, S.U_TIRED] == st.board[S.G_TURN]  # attacking in this war
        and S.has(st, p, T.SQUIRE) > 0
        and st.pl[p, S.PL_WORKERS] > 0
    )


@njit(cache=True, _nrt=False, forceinline=False)
def legal_blocks(st, p, n_atk):
    """Drop the blocks a defender may not make (a state built by hand may hold them): a unit
    that is dead, that attacked in its last turn (RO-5), or a non-druid on an attacker only
    druids can stop (Shadow Rune, Cloaking); workers count only on attackers they may block, up
    to those owned."""
    q = 1 - p
    for i in range(st.pl[q, S.PL_NU]):
        a = st.aux[S.A_BLK, i]
        if a < 0:
            continue
        if (
            a >= n_atk
            or not S.can_block(st, q, i)
            or (S.druids_only(st, p, st.aux[S.A_ATK, a]) and st.units[q, i, S.U_TYPE] != T.DRUID)
        ):
            st.aux[S.A_BLK, i] = -1
    left = st.pl[q, S.PL_WORKERS]
    for a in range(n_atk):
        w = st.aux[S.A_AWK, a]
        if w < 0 or S.druids_only(st, p, st.aux[S.A_ATK, a]):
            w = 0
        if w > left:
            w = left
        st.aux[S.A_AWK, a] = w
        left -= w


@njit(cache=True, _nrt=False, inline="always")
def has_target(st, killer, unpainted_only):
    """Has ``killer``'s opponent a unit (unpainted if asked) or a worker to take or kill?"""
    q = 1 - killer
    if st.pl[q, S.PL_WORKERS] > 0:
        return True
    for i in range(st.pl[q, S.PL_NU]):
        if st.units[q, i, S.U_DEAD] == 0 and not (unpainted_only and st.units[q, i, S.U_RUNE] >= 0):
            return True
    return False


@njit(cache=True, _nrt=False, inline="always")
def may_block(st, q, i, p, att):
    """RO-5, RO-10: may unit row ``i`` of ``q`` block attacker row ``att`` of ``p``?"""
    return S.can_block(st, q, i) and (
        not S.druids_only(st, p, att) or st.units[q, i, S.U_TYPE] == T.DRUID
    )


# ---------------------------------------------------------------------------------------------
# The decision points: start, advance, legal, apply


@njit(cache=True, _nrt=False, forceinline=False)
def start(tb, st, seed, game, work):
    """Reset ``st`` to the start of game ``game`` of run ``seed`` (RO-1); nothing is pending."""
    setup(tb, st, seed, game)
    st.board[S.G_ACTIVE] = st.board[S.G_FIRST]
    st.board[S.G_PHASE] = S.PH_TURN
    st.board[S.G_PKIND] = -1
    st.board[S.G_PACTOR] = -1
    trace_point(st, work.trace, 0)


@njit(cache=True, _nrt=False, inline="always")
def trace_point(st, rows, k):
    """Point ``k`` of the game's trajectory (state.TRACE_MEASURES of each seat, as the state
    stands) into ``rows[k]`` (Work.trace); a point past the rows (a hand-built state beyond the
    turn cap) is not kept."""
    if 0 <= k < rows.shape[0]:
        for p in range(2):
            nb = st.pl[p, S.PL_NBLD]
            army = (
                st.pl[p, S.PL_CNT + T.SENTRY]
                + 2 * st.pl[p, S.PL_CNT + T.RIDER]
                + 3 * st.pl[p, S.PL_CNT + T.DRUID]
            )
            rows[k, p, 0] = nb * S.TRACE_BUILDING + army
            rows[k, p, 1] = nb
            rows[k, p, 2] = army


@njit(cache=True, _nrt=False, inline="always")
def _pend(st, p, kind):
    st.board[S.G_PKIND] = kind
    st.board[S.G_PACTOR] = p
    return p


@njit(cache=True, _nrt=False, inline="always")
def _acted(st, p):
    """A construction action is done: the next one."""
    st.pl[p, S.PL_ACTIONS] += 1
    st.board[S.G_PHASE] = S.PH_ACTION


@njit(cache=True, _nrt=False, forceinline=True)
def _declare(tb, st, p):
    """RO-7: the attackers in aux[A_ATK][:G_NATK] attack (the effects come next: Canine ...)."""
    turn = st.board[S.G_TURN]
    atk = st.aux[S.A_ATK]
    riders = 0
    for a in range(st.board[S.G_NATK]):
        i = atk[a]
        st.units[p, i, S.U_TIRED] = turn
        t = st.units[p, i, S.U_TYPE]
        S.tele(st, p, T.TE_ATTACKED + t - 2, 1)
        st.aux[S.A_BONUS, a] = 0
        if t == T.RIDER:
            riders += 1
        S.emit(
            st,
            S.E_ATTACK,
            p,
            t,
            S.unit_power(tb, st, p, i, True),
            st.units[p, i, S.U_RUNE],
            0,
            0,
            0,
        )
    st.board[S.G_RIDERS] = riders


@njit(cache=True, _nrt=False, forceinline=True)
def _battle_begin(tb, st, p, a):
    """RO-8: attacker ``a`` of ``p`` meets its blockers; returns False when it was not engaged
    (it will destroy a building, RO-9), else the battle's scalars are set (G_B*, A_GROUP, A_GPOW)
    with the modifiers of the units in play at the start of the battles (ENGINE-10)."""
    q = 1 - p
    att = st.aux[S.A_ATK, a]
    at_type = st.units[p, att, S.U_TYPE]
    group = st.aux[S.A_GROUP]
    powers = st.aux[S.A_GPOW]
    n = 0
    frost_on_att = 0
    for i in range(st.pl[q, S.PL_NU]):
        if st.aux[S.A_BLK, i] == a and st.units[q, i, S.U_DEAD] == 0:
            group[n] = i
            n += 1
            if st.units[q, i, S.U_RUNE] == T.FROST:
                frost_on_att += tb.rune[T.FROST, T.RN_POWER]
    workers = st.aux[S.A_AWK, a]
    if workers > st.pl[q, S.PL_WORKERS]:
        workers = st.pl[q, S.PL_WORKERS]
    if n == 0 and workers == 0:
        return False
    A = S.unit_power(tb, st, p, att, True) + st.aux[S.A_BONUS, a] - frost_on_att
    if A < 0:
        A = 0
    frost_on_blk = tb.rune[T.FROST, T.RN_POWER] if st.units[p, att, S.U_RUNE] == T.FROST else 0
    B = 0
    for k in range(n):
        i = group[k]
        pw = (
            S.unit_power(tb, st, q, i, False)
            + S.shields_bonus(tb, st, q, i, at_type)
            - frost_on_blk
        )
        powers[k] = pw if pw > 0 else 0
        B += powers[k]
        st.aux[S.A_KILL, k] = 0
    dies = B >= A
    S.emit(st, S.E_BATTLE, p, at_type, A, B, n + workers, 1 if dies else 0, 0)
    b = st.board
    b[S.G_BN] = n
    b[S.G_BA] = A
    b[S.G_BWK] = workers
    b[S.G_BDIES] = 1 if dies else 0
    b[S.G_BLEFT] = A
    b[S.G_K] = 0
    b[S.G_PLAN] = 0
    return True


@njit(cache=True, _nrt=False, forceinline=True)
def _battle_end(tb, st, p, a):
    """RO-8 after the attacker's kills: the dead blockers (marked, ENGINE-10), Looting, Poisons;
    returns True when the attacker dies (its fate is next: Squire or death)."""
    q = 1 - p
    att = st.aux[S.A_ATK, a]
    at_type = st.units[p, att, S.U_TYPE]
    group = st.aux[S.A_GROUP]
    kills = st.aux[S.A_KILL]
    n = st.board[S.G_BN]
    workers = st.board[S.G_BWK]
    looted = workers  # ENGINE-6: workers and sentries killed by a rider
    for _ in range(workers):
        S.kill_worker(st, q)
        S.emit(st, S.E_DEATH, q, T.WORKER, -1, 0, 0, 0, 0)
    for k in range(n):
        if kills[k] != 0:
            i = group[k]
            if st.units[q, i, S.U_TYPE] == T.SENTRY:
                looted += 1
            S.emit(st, S.E_DEATH, q, st.units[q, i, S.U_TYPE], st.units[q, i, S.U_RUNE], 0, 0, 0, 0)
            S.mark_killed(st, q, i)
    if at_type == T.RIDER:
        if S.has(st, p, T.LOOTING) > 0 and looted > 0:
            g = S.has(st, p, T.LOOTING) * tb.rune[T.LOOTING, T.RN_GOLD] * looted
            st.pl[p, S.PL_GOLD] += g
            S.emit(st, S.E_LOOT, p, g, 0, 0, 0, 0, 0)
        if S.has(st, p, T.POISONS) > 0:
            for k in range(n):
                i = group[k]
                if st.units[q, i, S.U_DEAD] == 0:  # blocked a rider and survived it
                    r = st.units[q, i, S.U_RUNE]
                    S.emit(st, S.E_POISON, p, st.units[q, i, S.U_TYPE], r, 0, 0, 0, 0)
                    S.mark_killed(st, q, i)
    return st.board[S.G_BDIES] != 0


@njit(cache=True, _nrt=False, forceinline=True)
def _end_turn(tb, st, p):
    """RO-9 and the turn cap (ENGINE-1); False when the game goes on with the next seat."""
    if st.pl[1 - p, S.PL_NBLD] == 0:  # RO-9
        st.board[S.G_END] = S.END_DESTRUCTION
        st.board[S.G_WINNER] = p
        return True
    st.board[S.G_TURN] += 1
    if st.board[S.G_TURN] >= tb.params[T.P_TURN_CAP]:  # RO-9, ENGINE-1
        st.board[S.G_END] = S.END_DRAW
        st.board[S.G_WINNER] = -1
        st.board[S.G_TURN] -= 1
        return True
    st.board[S.G_ACTIVE] = 1 - p
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def advance(tb, st, work):
    """Play chance and every forced step until a decision is pending: returns the acting seat,
    or -1 when the game is over (its end logged)."""
    return run_until(tb, st, work, -1)


@njit(cache=True, _nrt=False, forceinline=True)
def run_until(tb, st, work, stop):
    """``advance``, but stop (returning -2) on reaching phase ``stop`` before running it: tests
    run one part of a turn (a war, a Construction) through the decision points."""
    b = st.board
    if b[S.G_PKIND] >= 0:
        return np.int64(b[S.G_PACTOR])
    while True:
        ph = b[S.G_PHASE]
        if ph == stop:
            return np.int64(-2)
        p = np.int64(b[S.G_ACTIVE])
        q = 1 - p
        if ph == S.PH_ACTION:
            return _pend(st, p, S.D_ACTION)
        if ph == S.PH_ATTACK:
            i = b[S.G_I]
            while i < st.pl[p, S.PL_NU] and not S.can_attack(tb, st, p, i):
                i += 1
            if i < st.pl[p, S.PL_NU]:
                b[S.G_I] = i
                return _pend(st, p, S.D_ATTACK)
            b[S.G_PHASE] = S.PH_TURN_END if b[S.G_NATK] == 0 else S.PH_DECLARE
        elif ph == S.PH_BLOCK:
            i = b[S.G_I]
            while i < st.pl[q, S.PL_NU] and not S.can_block(st, q, i):
                i += 1
            if i < st.pl[q, S.PL_NU]:
                b[S.G_I] = i
                return _pend(st, q, S.D_BLOCK)
            b[S.G_PHASE] = S.PH_WORKER_BLOCK
        elif ph == S.PH_KILL:
            if b[S.G_K] < b[S.G_BN]:
                return _pend(st, p, S.D_KILL)
            b[S.G_PHASE] = S.PH_BATTLE_END
        elif ph == S.PH_TURN:
            S.emit(
                st,
                S.E_TURN,
                p,
                b[S.G_TURN],
                st.pl[p, S.PL_GOLD],
                st.pl[p, S.PL_WORKERS],
                st.pl[p, S.PL_NBLD],
                st.pl[p, S.PL_NU],
                st.pl[p, S.PL_HAND_N],
            )
            harvest(tb, st, p)
            b[S.G_PHASE] = S.PH_CONSTRUCT
        elif ph == S.PH_CONSTRUCT:  # RO-3: one building a turn
            st.pl[p, S.PL_BUILDS] = 1
            st.pl[p, S.PL_ACTIONS] = 0
            b[S.G_PHASE] = S.PH_ACTION
        elif ph == S.PH_STATUE:
            return _pend(st, p, S.D_STATUE)
        elif ph == S.PH_TRAIN_UNIT:
            return _pend(st, p, S.D_TRAIN_UNIT)
        elif ph == S.PH_RUNE_HOST:
            return _pend(st, p, S.D_RUNE_HOST)
        elif ph == S.PH_CORRUPT:
            if has_target(st, p, False):
                return _pend(st, p, S.D_CORRUPTION)
            S.emit(st, S.E_CORRUPT, p, -1, -1, 0, 0, 0, 0)  # nothing to take (ENGINE-8)
            _acted(st, p)
        elif ph == S.PH_WAR:
            b[S.G_NATK] = 0
            b[S.G_I] = 0
            b[S.G_PLAN] = 0
            b[S.G_PHASE] = S.PH_ATTACK
        elif ph == S.PH_DECLARE:
            _declare(tb, st, p)
            if b[S.G_RIDERS] > 0 and S.has(st, p, T.CANINE) > 0:
                b[S.G_PHASE] = S.PH_CANINE
                return _pend(st, p, S.D_CANINE)
            b[S.G_PHASE] = S.PH_CONQUEST
        elif ph == S.PH_CANINE:
            return _pend(st, p, S.D_CANINE)
        elif ph == S.PH_CONQUEST:
            riders = b[S.G_RIDERS]
            if S.has(st, p, T.CONQUEST) > 0 and riders >= tb.rune[T.CONQUEST, T.RN_MIN_RIDERS]:
                w = (
                    S.has(st, p, T.CONQUEST)
                    * tb.rune[T.CONQUEST, T.RN_WORKERS]
                    * st.pl[p, S.PL_ACAD]
                )
                st.pl[p, S.PL_WORKERS] += w
                S.emit(st, S.E_CONQUEST, p, w, 0, 0, 0, 0, 0)
            b[S.G_K] = 0
            b[S.G_PHASE] = S.PH_DAWN
        elif ph == S.PH_DAWN:  # ENGINE-4: each copy in play kills before blockers are chosen
            n = 0
            if (
                S.has(st, p, T.DAWN_RAID) > 0
                and b[S.G_RIDERS] >= tb.rune[T.DAWN_RAID, T.RN_MIN_RIDERS]
            ):
                n = S.has(st, p, T.DAWN_RAID) * tb.rune[T.DAWN_RAID, T.RN_KILLS]
            pend = False
            while b[S.G_K] < n:
                b[S.G_K] += 1
                if has_target(st, p, False):
                    pend = True
                    break
            if pend:
                return _pend(st, p, S.D_DAWN_RAID)
            b[S.G_A] = 0
            b[S.G_K] = 0
            b[S.G_PHASE] = S.PH_SPIRIT_ATK
        elif ph == S.PH_SPIRIT_ATK:  # ENGINE-4: attacking Spirit Runes kill unpainted units
            pend = False
            while b[S.G_A] < b[S.G_NATK]:
                i = st.aux[S.A_ATK, b[S.G_A]]
                if (
                    st.units[p, i, S.U_RUNE] == T.SPIRIT
                    and st.units[p, i, S.U_DEAD] == 0
                    and b[S.G_K] < tb.rune[T.SPIRIT, T.RN_KILLS] * S.advantage(st, p)
                ):
                    b[S.G_K] += 1
                    if has_target(st, p, True):
                        pend = True
                        break
                else:
                    b[S.G_A] += 1
                    b[S.G_K] = 0
            if pend:
                return _pend(st, p, S.D_SPIRIT_ATTACK)
            b[S.G_PHASE] = S.PH_APOW
        elif ph == S.PH_PREKILL:  # a kill before the battles (ENGINE-4)
            killer = np.int64(b[S.G_KILLER])
            qq = 1 - killer
            v = b[S.G_VICTIM]
            if v == -2:
                if st.pl[qq, S.PL_WORKERS] > 0:
                    S.kill_worker(st, qq)
                    S.emit(st, S.E_PREKILL, killer, b[S.G_SRC], T.WORKER, -1, 0, 0, 0)
            elif v >= 0 and st.units[qq, v, S.U_DEAD] == 0:
                if squire_may(tb, st, qq, v):  # ENGINE-7
                    b[S.G_PHASE] = S.PH_PREKILL_SQUIRE
                    return _pend(st, qq, S.D_SQUIRE)
                S.emit(
                    st,
                    S.E_PREKILL,
                    killer,
                    b[S.G_SRC],
                    st.units[qq, v, S.U_TYPE],
                    st.units[qq, v, S.U_RUNE],
                    0,
                    0,
                    0,
                )
                S.mark_dead(st, qq, v)
            b[S.G_PHASE] = b[S.G_RET]
        elif ph == S.PH_PREKILL_SQUIRE:
            return _pend(st, 1 - b[S.G_KILLER], S.D_SQUIRE)
        elif ph == S.PH_APOW:
            for a in range(b[S.G_NATK]):  # the power the defender sees when it blocks
                i = st.aux[S.A_ATK, a]
                st.aux[S.A_APOW, a] = S.unit_power(tb, st, p, i, True) + st.aux[S.A_BONUS, a]
                st.aux[S.A_AWK, a] = 0
            for i in range(st.pl[q, S.PL_NU]):
                st.aux[S.A_BLK, i] = -1
            b[S.G_I] = 0
            b[S.G_PLAN] = 0
            b[S.G_WLEFT] = st.pl[q, S.PL_WORKERS]
            b[S.G_PHASE] = S.PH_BLOCK
        elif ph == S.PH_WORKER_BLOCK:
            if b[S.G_WLEFT] > 0:
                return _pend(st, q, S.D_WORKER_BLOCK)
            b[S.G_PHASE] = S.PH_RESOLVE
        elif ph == S.PH_RESOLVE:
            legal_blocks(st, p, b[S.G_NATK])
            b[S.G_I] = 0
            b[S.G_K] = 0
            b[S.G_PHASE] = S.PH_SPIRIT_BLK
        elif ph == S.PH_SPIRIT_BLK:  # ENGINE-4: blocking Spirit Runes kill after the blocks
            pend = False
            while b[S.G_I] < st.pl[q, S.PL_NU]:
                i = b[S.G_I]
                if (
                    st.aux[S.A_BLK, i] >= 0
                    and st.units[q, i, S.U_RUNE] == T.SPIRIT
                    and st.units[q, i, S.U_DEAD] == 0
                    and b[S.G_K] < tb.rune[T.SPIRIT, T.RN_KILLS] * S.advantage(st, q)
                ):
                    b[S.G_K] += 1
                    if has_target(st, q, True):
                        pend = True
                        break
                else:
                    b[S.G_I] += 1
                    b[S.G_K] = 0
            if pend:
                return _pend(st, q, S.D_SPIRIT_BLOCK)
            b[S.G_A] = 0
            b[S.G_PHASE] = S.PH_BATTLE
        elif ph == S.PH_BATTLE:  # RO-8: the battle groups in attacker order (ENGINE-10)
            n_atk = b[S.G_NATK]
            while b[S.G_A] < n_atk:
                a = b[S.G_A]
                st.aux[S.A_FREE, a] = 0
                if st.units[p, st.aux[S.A_ATK, a], S.U_DEAD] == 0:
                    if _battle_begin(tb, st, p, a):
                        break
                    st.aux[S.A_FREE, a] = 1
                b[S.G_A] = a + 1
            if b[S.G_A] < n_atk:
                b[S.G_PHASE] = S.PH_KILL if b[S.G_BN] > 0 else S.PH_BATTLE_END
            else:
                b[S.G_A] = 0
                b[S.G_PHASE] = S.PH_DESTROY
        elif ph == S.PH_BATTLE_END:
            a = b[S.G_A]
            att = st.aux[S.A_ATK, a]
            if _battle_end(tb, st, p, a):
                if squire_may(tb, st, p, att):  # ENGINE-7
                    b[S.G_PHASE] = S.PH_BATTLE_SQUIRE
                    return _pend(st, p, S.D_SQUIRE)
                S.emit(
                    st,
                    S.E_DEATH,
                    p,
                    st.units[p, att, S.U_TYPE],
                    st.units[p, att, S.U_RUNE],
                    0,
                    0,
                    0,
                    0,
                )
                S.mark_killed(st, p, att)
            b[S.G_A] = a + 1
            b[S.G_PHASE] = S.PH_BATTLE
        elif ph == S.PH_BATTLE_SQUIRE:
            return _pend(st, p, S.D_SQUIRE)
        elif ph == S.PH_DESTROY:  # RO-9
            while b[S.G_A] < b[S.G_NATK]:
                if st.aux[S.A_FREE, b[S.G_A]] != 0 and st.pl[q, S.PL_NBLD] > 0:
                    return _pend(st, p, S.D_DESTROY)
                b[S.G_A] += 1
            S.sweep(st, p)
            S.sweep(st, q)
            b[S.G_PHASE] = S.PH_TURN_END
        elif ph == S.PH_TURN_END:
            # the trajectory's point of this turn's round (turns 2r, 2r+1, ENGINE-1): point
            # r + 1, written at the round's end (its second turn) or, when the game ends first,
            # in PH_OVER (RO-9 after the first player's turn; nothing changes after this)
            if b[S.G_TURN] & 1:
                trace_point(st, work.trace, b[S.G_TURN] // 2 + 1)
            if _end_turn(tb, st, p):
                b[S.G_PHASE] = S.PH_OVER
            else:
                b[S.G_PHASE] = S.PH_TURN
        elif ph == S.PH_OVER:
            trace_point(st, work.trace, b[S.G_TURN] // 2 + 1)  # the game's end (see PH_TURN_END)
            S.emit(st, S.E_END, b[S.G_END], b[S.G_WINNER], b[S.G_TURN] + 1, 0, 0, 0, 0)
            b[S.G_PHASE] = S.PH_DONE
            return -1
        else:  # PH_DONE
            return -1


@njit(cache=True, _nrt=False, forceinline=True)
def _apply_action(tb, st, p, code):
    """D_ACTION: carry out construction action ``code`` (an illegal one ends Construction)."""
    b = st.board
    if code == S.AC_END:
        b[S.G_PHASE] = S.PH_WAR
    elif code < S.AC_TRAIN:
        bl = code - S.AC_BUILD
        if not build(tb, st, p, bl):
            b[S.G_PHASE] = S.PH_WAR
        elif bl == T.STATUE:
            b[S.G_PHASE] = S.PH_STATUE
        else:
            _acted(st, p)
    elif code < S.AC_SELL:
        f = code - S.AC_TRAIN
        if not pol.can_train(tb, st, p, f):
            b[S.G_PHASE] = S.PH_WAR
        elif f == T.WORKER or st.pl[p, S.PL_CNT + f] == 1:
            train(tb, st, p, f, -1)
            _acted(st, p)
        else:
            b[S.G_ARG] = f
            b[S.G_PHASE] = S.PH_TRAIN_UNIT
    elif code == S.AC_SELL:
        if sell_worker(tb, st, p):
            _acted(st, p)
        else:
            b[S.G_PHASE] = S.PH_WAR
    else:
        r = code - S.AC_RUNE
        m = 0
        one = -1
        if st.pl[p, S.PL_HAND + r] > 0 and pol.rune_level_ok(tb, st, p, r):
            for h in range(st.pl[p, S.PL_NU] if tb.rune[r, T.RN_TARGET] == T.T_DRUID else T.NB):
                if pol.rune_target_ok(tb, st, p, r, h):
                    m += 1
                    one = h
        if m == 0:
            b[S.G_PHASE] = S.PH_WAR
        elif m == 1:  # no choice: the only host
            _apply_rune(tb, st, p, r, one)
        else:
            b[S.G_ARG] = r
            b[S.G_PHASE] = S.PH_RUNE_HOST


@njit(cache=True, _nrt=False, inline="always")
def _apply_rune(tb, st, p, r, host):
    if not play_rune(tb, st, p, r, host):
        st.board[S.G_PHASE] = S.PH_WAR
    elif r == T.CORRUPTION:
        st.board[S.G_PHASE] = S.PH_CORRUPT
    else:
        _acted(st, p)


@njit(cache=True, _nrt=False, inline="always")
def _victim(code):
    """A target code (a unit row or S.TG_WORKER) as the engine's victim (-2 a worker)."""
    return -2 if code == S.TG_WORKER else code


@njit(cache=True, _nrt=False, forceinline=True)
def apply(tb, st, work, code):
    """Carry out option ``code`` of the pending decision (no validation: ``legal`` lists them);
    then nothing is pending until the next ``advance``."""
    b = st.board
    kind = b[S.G_PKIND]
    actor = np.int64(b[S.G_PACTOR])
    b[S.G_PKIND] = -1
    b[S.G_PACTOR] = -1
    p = np.int64(b[S.G_ACTIVE])
    if kind == S.D_ACTION:
        _apply_action(tb, st, p, code)
    elif kind == S.D_ATTACK:
        if code != 0:
            st.aux[S.A_ATK, b[S.G_NATK]] = b[S.G_I]
            b[S.G_NATK] += 1
        b[S.G_I] += 1
    elif kind == S.D_BLOCK:
        st.aux[S.A_BLK, b[S.G_I]] = code - 1
        b[S.G_I] += 1
    elif kind == S.D_KILL:
        k = b[S.G_K]
        st.aux[S.A_KILL, k] = code
        if code != 0:
            b[S.G_BLEFT] -= st.aux[S.A_GPOW, k]
        b[S.G_K] = k + 1
    elif kind == S.D_WORKER_BLOCK:
        if code == 0:
            b[S.G_PHASE] = S.PH_RESOLVE
        else:
            st.aux[S.A_AWK, code - 1] += 1
            b[S.G_WLEFT] -= 1
    elif kind == S.D_STATUE:
        statue(tb, st, p, code)
        _acted(st, p)
    elif kind == S.D_TRAIN_UNIT:
        if train(tb, st, p, b[S.G_ARG], code) >= 0:
            _acted(st, p)
        else:
            b[S.G_PHASE] = S.PH_WAR
    elif kind == S.D_RUNE_HOST:
        _apply_rune(tb, st, p, b[S.G_ARG], code)
    elif kind == S.D_CORRUPTION:
        if take_unit(tb, st, p, _victim(code)) < 0:
            S.emit(st, S.E_CORRUPT, p, -1, -1, 0, 0, 0, 0)
        _acted(st, p)
    elif kind == S.D_CANINE:
        if code >= 0:
            bonus = S.has(st, p, T.CANINE) * tb.rune[T.CANINE, T.RN_POWER] * st.pl[p, S.PL_ACAD]
            st.aux[S.A_BONUS, code] = bonus
            S.emit(st, S.E_CANINE, p, bonus, 0, 0, 0, 0, 0)
        b[S.G_PHASE] = S.PH_CONQUEST
    elif kind == S.D_DAWN_RAID or kind == S.D_SPIRIT_ATTACK or kind == S.D_SPIRIT_BLOCK:
        b[S.G_KILLER] = actor
        b[S.G_VICTIM] = _victim(code)
        b[S.G_SRC] = T.DAWN_RAID if kind == S.D_DAWN_RAID else T.SPIRIT
        b[S.G_RET] = b[S.G_PHASE]
        b[S.G_PHASE] = S.PH_PREKILL
    elif kind == S.D_SQUIRE:
        if b[S.G_PHASE] == S.PH_PREKILL_SQUIRE:  # a kill before the battles (ENGINE-7)
            killer = np.int64(b[S.G_KILLER])
            qq = 1 - killer
            v = b[S.G_VICTIM]
            if code != 0:
                S.kill_worker(st, qq)
            S.emit(
                st,
                S.E_PREKILL,
                killer,
                b[S.G_SRC],
                st.units[qq, v, S.U_TYPE],
                st.units[qq, v, S.U_RUNE],
                1 if code != 0 else 0,
                0,
                0,
            )
            if code == 0:
                S.mark_dead(st, qq, v)
            b[S.G_PHASE] = b[S.G_RET]
        else:  # the attacker of the battle in progress
            a = b[S.G_A]
            att = st.aux[S.A_ATK, a]
            if code != 0:
                S.kill_worker(st, p)
                S.emit(st, S.E_SQUIRE, p, 0, 0, 0, 0, 0, 0)
            else:
                S.emit(
                    st,
                    S.E_DEATH,
                    p,
                    st.units[p, att, S.U_TYPE],
                    st.units[p, att, S.U_RUNE],
                    0,
                    0,
                    0,
                    0,
                )
                S.mark_killed(st, p, att)
            b[S.G_A] = a + 1
            b[S.G_PHASE] = S.PH_BATTLE
    elif kind == S.D_DESTROY:
        if code >= 0:
            destroy_building(tb, st, 1 - p, code)
            S.emit(st, S.E_DESTROY, p, code, 0, 0, 0, 0, 0)
        b[S.G_A] += 1


@njit(cache=True, _nrt=False, forceinline=False)
def legal(tb, st, work, opts):
    """The codes of the pending decision's legal options into ``opts`` (int64[S.MAX_OPTIONS]),
    in canonical order; returns how many (0 when nothing is pending).

    action: AC_END, AC_BUILD + each building it may build (RO-3), AC_TRAIN + each unit type it
    may train from (RO-4: worker, sentry, rider), AC_SELL if it has a worker (RO-5), AC_RUNE + each
    rune in hand whose level it has and that has a host (RO-6). statue: tables.STATUE_* (0..2).
    train_unit: the rows of its living units of the type. rune_host: the druid rows (paint) or
    buildings the rune may go on. corruption, dawn_raid: the opponent's living unit rows, then
    TG_WORKER if it has a worker; spirit_attack, spirit_block: the same, unpainted units only.
    attack, squire, kill: 0 no, 1 yes (kill: 1 only if the blocker's power fits the attacker's
    power left, RO-8). canine: the attacker indices of the living attacking riders. block: 0
    none, then 1 + each attacker index the unit may block (RO-5, RO-7, Shadow/Cloaking).
    worker_block: 0 stop, then 1 + each attacker index a worker may block. destroy: the
    opponent's standing buildings (RO-9)."""
    b = st.board
    kind = b[S.G_PKIND]
    if kind < 0:
        return 0
    actor = np.int64(b[S.G_PACTOR])
    p = np.int64(b[S.G_ACTIVE])
    q = 1 - p
    n = 0
    if kind == S.D_ACTION:
        opts[0] = S.AC_END
        n = 1
        for bl in range(T.NB):
            if pol.can_build(tb, st, p, bl):
                opts[n] = S.AC_BUILD + bl
                n += 1
        for f in range(3):
            if pol.can_train(tb, st, p, f):
                opts[n] = S.AC_TRAIN + f
                n += 1
        if st.pl[p, S.PL_WORKERS] > 0:
            opts[n] = S.AC_SELL
            n += 1
        for r in range(T.NR):
            if st.pl[p, S.PL_HAND + r] <= 0 or not pol.rune_level_ok(tb, st, p, r):
                continue
            for h in range(st.pl[p, S.PL_NU] if tb.rune[r, T.RN_TARGET] == T.T_DRUID else T.NB):
                if pol.rune_target_ok(tb, st, p, r, h):
                    opts[n] = S.AC_RUNE + r
                    n += 1
                    break
    elif kind == S.D_STATUE:
        for c in range(3):
            opts[c] = c
        n = 3
    elif kind == S.D_TRAIN_UNIT:
        f = b[S.G_ARG]
        for i in range(st.pl[p, S.PL_NU]):
            if st.units[p, i, S.U_TYPE] == f and st.units[p, i, S.U_DEAD] == 0:
                opts[n] = i
                n += 1
    elif kind == S.D_RUNE_HOST:
        r = b[S.G_ARG]
        for h in range(st.pl[p, S.PL_NU] if tb.rune[r, T.RN_TARGET] == T.T_DRUID else T.NB):
            if pol.rune_target_ok(tb, st, p, r, h):
                opts[n] = h
                n += 1
    elif (
        kind == S.D_CORRUPTION
        or kind == S.D_DAWN_RAID
        or kind == S.D_SPIRIT_ATTACK
        or kind == S.D_SPIRIT_BLOCK
    ):
        unpainted = kind == S.D_SPIRIT_ATTACK or kind == S.D_SPIRIT_BLOCK
        o = 1 - actor
        for i in range(st.pl[o, S.PL_NU]):
            if st.units[o, i, S.U_DEAD] == 0 and not (unpainted and st.units[o, i, S.U_RUNE] >= 0):
                opts[n] = i
                n += 1
        if st.pl[o, S.PL_WORKERS] > 0:
            opts[n] = S.TG_WORKER
            n += 1
    elif kind == S.D_ATTACK or kind == S.D_SQUIRE:
        opts[0] = 0
        opts[1] = 1
        n = 2
    elif kind == S.D_KILL:
        opts[0] = 0
        n = 1
        if st.aux[S.A_GPOW, b[S.G_K]] <= b[S.G_BLEFT]:
            opts[1] = 1
            n = 2
    elif kind == S.D_CANINE:
        for a in range(b[S.G_NATK]):
            i = st.aux[S.A_ATK, a]
            if st.units[p, i, S.U_TYPE] == T.RIDER and st.units[p, i, S.U_DEAD] == 0:
                opts[n] = a
                n += 1
    elif kind == S.D_BLOCK:
        opts[0] = 0
        n = 1
        i = b[S.G_I]
        for a in range(b[S.G_NATK]):
            att = st.aux[S.A_ATK, a]
            if st.units[p, att, S.U_DEAD] == 0 and may_block(st, q, i, p, att):
                opts[n] = a + 1
                n += 1
    elif kind == S.D_WORKER_BLOCK:
        opts[0] = 0
        n = 1
        for a in range(b[S.G_NATK]):
            att = st.aux[S.A_ATK, a]
            if st.units[p, att, S.U_DEAD] == 0 and not S.druids_only(st, p, att):
                opts[n] = a + 1
                n += 1
    elif kind == S.D_DESTROY:
        for bl in range(T.NB):
            if st.pl[q, S.PL_BUILT + bl] != 0:
                opts[n] = bl
                n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def play_game(tb, st, seed, game, work):
    """Play one whole game into ``st`` through its decision points (``work``: the scratch).

    The same loop as ``play_out``, with the hottest decision point (a construction action, half of
    a game's points) kept in a loop of its own: choose, apply, and while the next step is another
    action pend it as ``advance`` does, without going back through the phase dispatch."""
    start(tb, st, seed, game, work)
    b = st.board
    while True:
        p = advance(tb, st, work)
        if p < 0:
            break
        if b[S.G_PKIND] == S.D_ACTION:
            while True:
                code = pol._action_code(tb, st, p, work)
                b[S.G_PKIND] = -1
                b[S.G_PACTOR] = -1
                _apply_action(tb, st, p, code)
                if b[S.G_PHASE] != S.PH_ACTION:
                    break
                _pend(st, p, S.D_ACTION)
        else:
            apply(tb, st, work, pol.choose(tb, st, work))


@njit(cache=True, _nrt=False, forceinline=False)
def play_out(tb, st, work):
    """Play the game of ``st`` from wherever it stands to its end with the seats' policies."""
    while advance(tb, st, work) >= 0:
        apply(tb, st, work, pol.choose(tb, st, work))


@njit(cache=True, _nrt=False, forceinline=False)
def outcome(st, p):
    """(score, rank) of seat ``p`` after a game (ENGINE-2)."""
    w = st.board[S.G_WINNER]
    if w < 0:
        return st.pl[p, S.PL_NBLD], 1
    return st.pl[p, S.PL_NBLD], 1 if w == p else 2


@njit(cache=True, _nrt=False, forceinline=False)
def record(tb, st, work, g, score, rank, turns, end, order, team, role, extra, tele, clipped):
    """Write the ended game of ``st`` into row ``g`` of the output arrays (kit.Outputs' fields;
    ``clipped`` is the block's row of clip counts, int64[C]); no teams, no roles (``team`` and
    ``role`` are not written)."""
    turns[g] = st.board[S.G_TURN] + 1
    end[g] = st.board[S.G_END] - 1
    first = st.board[S.G_FIRST]
    for p in range(2):
        s, r = outcome(st, p)
        score[g, p] = s
        rank[g, p] = r
        order[g, p] = 0 if p == first else 1
        extra[g, p, 0] = st.pl[p, S.PL_NU]  # S.EXTRA_COLUMNS
        extra[g, p, 1] = st.pl[p, S.PL_WORKERS]
        extra[g, p, 2] = st.pl[p, S.PL_GOLD]
        seen = 0  # the OR of the row's counts (clip_u8)
        for j in range(T.N_TELE):
            v = st.pl[p, S.PL_TELE + j]
            tele[g, p, j] = kit.clip_u8(v)
            seen |= v
        if seen > kit.U8_MAX:  # some count passed 255: count the clipped cells per column
            for j in range(T.N_TELE):
                kit.tally_clipped(st.pl[p, S.PL_TELE + j], clipped, j)


@njit(cache=True, _nrt=False, forceinline=True)
def record_trace(tb, st, work, g, trace, points):
    """Row ``g`` of the trajectory outputs (kit.Outputs' ``trace`` and ``points``) for the ended
    game in ``st``, played with ``work``: its points (1 + the rounds it began: the last turn's
    round, G_TURN // 2, and the ones before) of state.TRACE_MEASURES from ``work.trace``.
    Nothing when the outputs keep no trajectory (``points`` shorter than ``g``)."""
    if points.shape[0] <= g:
        return
    n = st.board[S.G_TURN] // 2 + 2
    n = min(n, trace.shape[0] // points.shape[0], work.trace.shape[0])
    s = kit.trace_row(g, n, points)
    for k in range(n):
        for p in range(2):
            for m in range(S.N_TRACE):
                trace[s + k, p, m] = work.trace[k, p, m]


@njit(cache=True, nogil=True, forceinline=False)
def play_batch(tb, seed, first_game, n_games, out, b0, b1):
    """Play the games of blocks b0 to b1 - 1 (of ``S.BLOCK_GAMES`` games each) of
    [first_game, first_game + n_games) into row i of the output arrays ``out``
    (``kit.Outputs``); block b counts the telemetry cells it clipped at 255 in row b of
    ``clipped`` (per column). ``kit.in_threads`` runs the blocks over the threads (``play``)."""
    score, rank, turns, end, order, _team, _role, extra, tele, clipped, trace, points = out
    for blk in range(b0, b1):
        st = S.alloc_state(tb, 0)
        work = S.alloc_work(tb)
        clip = clipped[blk]
        lo = blk * S.BLOCK_GAMES
        hi = min(n_games, lo + S.BLOCK_GAMES)
        for g in range(lo, hi):
            play_game(tb, st, seed, first_game + g, work)
            record(tb, st, work, g, score, rank, turns, end, order, _team, _role, extra, tele, clip)
            record_trace(tb, st, work, g, trace, points)


def play(
    compiled: T.Compiled,
    seed: int,
    first_game: int,
    n_games: int,
    batch: Any = None,
    block: int = S.BLOCK_GAMES,
) -> Chunk:
    """Play a chunk of games: the kit's Python layer of the batch kernel (checks, outputs)."""
    return kit.play_chunk(
        play_batch if batch is None else batch,
        compiled.tb,
        seed,
        first_game,
        n_games,
        players=2,
        n_tele=T.N_TELE,
        block=block,
        extra_names=S.EXTRA_COLUMNS,
        trace_cap=S.trace_cap(compiled.tb),
        n_measures=len(S.TRACE_MEASURES),
    )
