"""The Raven Order rule engine: numba kernels over the arrays of ``state.State``.

One game: setup (RO-1), then turns of Harvest (RO-2), Construction (RO-3..RO-6) and War (RO-7..
RO-9) until a player has no building after a war, or the turn cap makes it a draw. Every decision
is asked of ``policies``; this module applies it through the rules' own conditions.

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

import numpy as np
from numba import njit, prange

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
def build(tb, st, p, b, statue_choice):
    """RO-3: ``p`` builds ``b`` (a Statue takes ``statue_choice``, tables.STATUE_*, or asks the
    policy when it is -1). Returns False, changing nothing, when it may not."""
    if not pol.can_build(tb, st, p, b):
        return False
    st.pl[p, S.PL_GOLD] -= tb.bld[b, T.BD_COST]
    st.pl[p, S.PL_BUILDS] -= 1
    place_building(tb, st, p, b)
    S.tele(st, p, T.TE_BUILT + b, 1)
    S.emit(st, S.E_BUILD, p, b, tb.bld[b, T.BD_COST], st.pl[p, S.PL_GOLD], 0, 0, 0)
    if b == T.STATUE:
        c = statue_choice if statue_choice >= 0 else pol.choose_statue(tb, st, p)
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
    return True


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
    building). Returns False, changing nothing, when it may not."""
    if st.pl[p, S.PL_HAND + r] <= 0 or not pol.rune_level_ok(tb, st, p, r):
        return False
    if not pol.rune_target_ok(tb, st, p, r, host):
        return False
    st.pl[p, S.PL_HAND + r] -= 1
    st.pl[p, S.PL_HAND_N] -= 1
    st.pl[p, S.PL_INPLAY + r] += 1
    is_paint = tb.rune[r, T.RN_TARGET] == T.T_DRUID
    if is_paint:
        st.units[p, host, S.U_RUNE] = r
    else:
        st.pl[p, S.PL_BRUNE + host] = r
    S.tele(st, p, T.TE_PLAYED + r, 1)
    S.emit(st, S.E_RUNE, p, r, -1 if is_paint else 0, host, 0, 0, 0)
    if r == T.CORRUPTION:
        v = pol.choose_enemy_unit(tb, st, p, False)
        if take_unit(tb, st, p, v) < 0:
            S.emit(st, S.E_CORRUPT, p, -1, -1, 0, 0, 0, 0)
    return True


@njit(cache=True, _nrt=False, inline="always")
def apply_action(tb, st, p, kind, a, b):
    """Apply one construction action (policies.ACT_*); False if it was not legal."""
    if kind == pol.ACT_BUILD:
        return build(tb, st, p, a, -1)
    if kind == pol.ACT_TRAIN:
        return train(tb, st, p, a, b) >= 0
    if kind == pol.ACT_RUNE:
        return play_rune(tb, st, p, a, b)
    if kind == pol.ACT_SELL:
        return sell_worker(tb, st, p)
    return False


@njit(cache=True, _nrt=False, inline="always")
def construction(tb, st, p, act):
    """RO-3..RO-6: the seat's construction actions until it ends the phase (or stops being able
    to act: an illegal choice ends the phase)."""
    st.pl[p, S.PL_BUILDS] = 1
    st.pl[p, S.PL_ACTIONS] = 0
    while True:
        pol.choose_action(tb, st, p, act)
        if act[0] == pol.ACT_END:
            return
        if not apply_action(tb, st, p, act[0], act[1], act[2]):
            return
        st.pl[p, S.PL_ACTIONS] += 1


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


@njit(cache=True, _nrt=False, forceinline=False)
def squire_saves(tb, st, p, i):
    """Squire (ENGINE-7): attacking rider ``i`` of ``p`` would be killed; its owner may kill one of
    its workers instead. Returns True (the worker died) or False (the rider dies)."""
    if (
        st.units[p, i, S.U_TYPE] == T.RIDER  # RO-10: riders, not druids
        and st.units[p, i, S.U_TIRED] == st.board[S.G_TURN]  # attacking in this war
        and S.has(st, p, T.SQUIRE) > 0
        and st.pl[p, S.PL_WORKERS] > 0
        and pol.choose_squire(tb, st, p)
    ):
        S.kill_worker(st, p)
        return True
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def kill_choice(tb, st, killer, victim, source):
    """``killer`` kills enemy unit ``victim`` (a row, -2 a worker, -1 nothing) before the battles:
    it leaves play at once (ENGINE-4), unless it is an attacking rider that Squire saves."""
    q = 1 - killer
    if victim == -2:
        if st.pl[q, S.PL_WORKERS] > 0:
            S.kill_worker(st, q)
            S.emit(st, S.E_PREKILL, killer, source, T.WORKER, -1, 0, 0, 0)
    elif victim >= 0 and st.units[q, victim, S.U_DEAD] == 0:
        t = st.units[q, victim, S.U_TYPE]
        r = st.units[q, victim, S.U_RUNE]
        saved = squire_saves(tb, st, q, victim)
        S.emit(st, S.E_PREKILL, killer, source, t, r, 1 if saved else 0, 0, 0)
        if not saved:
            S.mark_dead(st, q, victim)


@njit(cache=True, _nrt=False, inline="always")
def declare(tb, st, p, n_atk):
    """RO-7 and the effects of attacking: the attackers in aux[A_ATK][:n_atk] attack; Canine,
    Conquest, Dawn Raid and attacking Spirit Runes act (ENGINE-4)."""
    turn = st.board[S.G_TURN]
    atk = st.aux[S.A_ATK]
    st.board[S.G_NATK] = n_atk
    riders = 0
    for a in range(n_atk):
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
    if riders > 0 and S.has(st, p, T.CANINE) > 0:
        a = pol.choose_canine(tb, st, p, n_atk)
        if a >= 0:
            bonus = S.has(st, p, T.CANINE) * tb.rune[T.CANINE, T.RN_POWER] * st.pl[p, S.PL_ACAD]
            st.aux[S.A_BONUS, a] = bonus
            S.emit(st, S.E_CANINE, p, bonus, 0, 0, 0, 0, 0)
    if S.has(st, p, T.CONQUEST) > 0 and riders >= tb.rune[T.CONQUEST, T.RN_MIN_RIDERS]:
        w = S.has(st, p, T.CONQUEST) * tb.rune[T.CONQUEST, T.RN_WORKERS] * st.pl[p, S.PL_ACAD]
        st.pl[p, S.PL_WORKERS] += w
        S.emit(st, S.E_CONQUEST, p, w, 0, 0, 0, 0, 0)
    if S.has(st, p, T.DAWN_RAID) > 0 and riders >= tb.rune[T.DAWN_RAID, T.RN_MIN_RIDERS]:
        for _ in range(S.has(st, p, T.DAWN_RAID) * tb.rune[T.DAWN_RAID, T.RN_KILLS]):
            kill_choice(tb, st, p, pol.choose_enemy_unit(tb, st, p, False), T.DAWN_RAID)
    for a in range(n_atk):
        i = atk[a]
        if st.units[p, i, S.U_RUNE] == T.SPIRIT and st.units[p, i, S.U_DEAD] == 0:
            for _ in range(tb.rune[T.SPIRIT, T.RN_KILLS] * S.advantage(st, p)):
                kill_choice(tb, st, p, pol.choose_enemy_unit(tb, st, p, True), T.SPIRIT)


@njit(cache=True, _nrt=False, inline="always")
def battle(tb, st, p, a, group, powers, kills):
    """RO-8: attacker ``a`` of ``p`` against its blockers (rows of the opponent); returns True
    when the attacker was not engaged (it will destroy a building, RO-9). The units it kills
    stay in play until the end of the war (``mark_killed``), so the modifiers of every group are
    those of the start of the battles, whatever the order of the groups (ENGINE-10)."""
    q = 1 - p
    att = st.aux[S.A_ATK, a]
    at_type = st.units[p, att, S.U_TYPE]
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
        return True
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
    dies = B >= A
    S.emit(st, S.E_BATTLE, p, at_type, A, B, n + workers, 1 if dies else 0, 0)
    pol.choose_kills(tb, st, p, group, powers, n, A, kills)
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
    if dies:
        if squire_saves(tb, st, p, np.int64(att)):  # ENGINE-7 (int64 like kill_choice's row)
            S.emit(st, S.E_SQUIRE, p, 0, 0, 0, 0, 0, 0)
        else:
            S.emit(st, S.E_DEATH, p, at_type, st.units[p, att, S.U_RUNE], 0, 0, 0, 0)
            S.mark_killed(st, p, att)
    return False


@njit(cache=True, _nrt=False, inline="always")
def resolve(tb, st, p, n_atk, group, powers, kills):
    """After blockers are chosen: blocking Spirit Runes act (ENGINE-4; Squire may save an attacking
    rider, ENGINE-7), each battle group fights (RO-8) with the modifiers of the units in play now
    (ENGINE-10), each attacker that was not engaged destroys a building (RO-9), and at the end of
    the war the units killed in battle leave play (``sweep``)."""
    q = 1 - p
    for i in range(st.pl[q, S.PL_NU]):
        if (
            st.aux[S.A_BLK, i] >= 0
            and st.units[q, i, S.U_RUNE] == T.SPIRIT
            and st.units[q, i, S.U_DEAD] == 0
        ):
            for _ in range(tb.rune[T.SPIRIT, T.RN_KILLS] * S.advantage(st, q)):
                kill_choice(tb, st, q, pol.choose_attacker_victim(tb, st, q), T.SPIRIT)
    unblocked = 0
    free = st.aux[S.A_TMP + 2]
    for a in range(n_atk):
        free[a] = 0
        if st.units[p, st.aux[S.A_ATK, a], S.U_DEAD] != 0:
            continue
        if battle(tb, st, p, a, group, powers, kills):
            free[a] = 1
            unblocked += 1
    for a in range(n_atk):
        if free[a] != 0 and st.pl[q, S.PL_NBLD] > 0:
            b = pol.choose_destroy(tb, st, p)
            if b >= 0:
                destroy_building(tb, st, q, b)
                S.emit(st, S.E_DESTROY, p, b, 0, 0, 0, 0, 0)
    S.sweep(st, p)
    S.sweep(st, q)
    return unblocked


@njit(cache=True, _nrt=False, forceinline=False)
def legal_blocks(st, p, n_atk):
    """Drop the blocks a defender may not make, whatever its policy chose: a unit that is dead,
    that attacked in its last turn (RO-5), or a non-druid on an attacker only druids can stop
    (Shadow Rune, Cloaking); workers count only on attackers they may block, up to those owned."""
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
def war(tb, st, p, group, powers, kills):
    """RO-7..RO-9: ``p`` attacks; the opponent blocks; battles; unblocked attackers raze."""
    q = 1 - p
    n_atk = pol.choose_attackers(tb, st, p)
    if n_atk == 0:
        st.board[S.G_NATK] = 0
        return
    declare(tb, st, p, n_atk)
    for a in range(n_atk):  # the power the defender sees when it blocks
        i = st.aux[S.A_ATK, a]
        st.aux[S.A_APOW, a] = S.unit_power(tb, st, p, i, True) + st.aux[S.A_BONUS, a]
    pol.choose_blocks(tb, st, q, n_atk)
    legal_blocks(st, p, n_atk)
    resolve(tb, st, p, n_atk, group, powers, kills)


@njit(cache=True, _nrt=False, forceinline=True)
def play_turn(tb, st, p, act, group, powers, kills):
    """One turn of ``p``: Harvest, Construction, War; True if the game ended with it."""
    S.emit(
        st,
        S.E_TURN,
        p,
        st.board[S.G_TURN],
        st.pl[p, S.PL_GOLD],
        st.pl[p, S.PL_WORKERS],
        st.pl[p, S.PL_NBLD],
        st.pl[p, S.PL_NU],
        st.pl[p, S.PL_HAND_N],
    )
    harvest(tb, st, p)
    construction(tb, st, p, act)
    war(tb, st, p, group, powers, kills)
    if st.pl[1 - p, S.PL_NBLD] == 0:  # RO-9
        st.board[S.G_END] = S.END_DESTRUCTION
        st.board[S.G_WINNER] = p
        return True
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def play_game(tb, st, seed, game, work):
    """Play one whole game into ``st`` (``work``: ``state.alloc_work``'s scratch)."""
    act, group, powers, kills = work
    setup(tb, st, seed, game)
    p = np.int64(st.board[S.G_FIRST])  # int64 like 1 - p: one specialisation of each callee
    cap = tb.params[T.P_TURN_CAP]
    while True:
        if play_turn(tb, st, p, act, group, powers, kills):
            break
        st.board[S.G_TURN] += 1
        if st.board[S.G_TURN] >= cap:  # RO-9, ENGINE-1
            st.board[S.G_END] = S.END_DRAW
            st.board[S.G_WINNER] = -1
            st.board[S.G_TURN] -= 1
            break
        p = 1 - p
    S.emit(st, S.E_END, st.board[S.G_END], st.board[S.G_WINNER], st.board[S.G_TURN] + 1, 0, 0, 0, 0)


@njit(cache=True, _nrt=False, forceinline=False)
def outcome(st, p):
    """(score, rank) of seat ``p`` after a game (ENGINE-2)."""
    w = st.board[S.G_WINNER]
    if w < 0:
        return st.pl[p, S.PL_NBLD], 1
    return st.pl[p, S.PL_NBLD], 1 if w == p else 2


@njit(cache=True, parallel=True, forceinline=False)
def play_batch(tb, seed, first_game, n_games, out):
    """Play games [first_game, first_game + n_games) into row i of the output arrays ``out``
    (``kit.Outputs``); block b counts the telemetry cells it clipped at 255 in row b of
    ``clipped`` (per column)."""
    # unpacked before the prange: numba drops writes made through a tuple inside it (kit.Outputs)
    score, rank, turns, end, order, _team, _role, extra, tele, clipped = out
    n_blocks = (n_games + S.BLOCK_GAMES - 1) // S.BLOCK_GAMES
    for blk in prange(n_blocks):
        st = S.alloc_state(tb, 0)
        work = S.alloc_work(tb)
        clip = clipped[blk]
        lo = blk * S.BLOCK_GAMES
        hi = min(n_games, lo + S.BLOCK_GAMES)
        for g in range(lo, hi):
            play_game(tb, st, seed, first_game + g, work)
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
                        kit.tally_clipped(st.pl[p, S.PL_TELE + j], clip, j)


def play(compiled: T.Compiled, seed: int, first_game: int, n_games: int) -> Chunk:
    """Play a chunk of games: the kit's Python layer of the batch kernel (checks, outputs)."""
    return kit.play_chunk(
        play_batch,
        compiled.tb,
        seed,
        first_game,
        n_games,
        players=2,
        n_tele=T.N_TELE,
        block=S.BLOCK_GAMES,
        extra_names=S.EXTRA_COLUMNS,
    )
