"""The Raven Order policies: ``random`` and ``heuristic`` (the ``economy`` and ``rush`` presets).

Every decision point of the game (engine.advance) is answered by ``choose``, which dispatches on
the decision's kind and on the seat's policy kind (``tables.POL_*``); a compound choice (the
attackers, the blocks, the kills) is planned whole at its first point and kept in the State. A policy reads only what its seat may know: everything on the table is
public (buildings, units, runes in play, gold, workers); the opponent's hand and the deck order
are not, and no function here reads ``PL_HAND`` of the other seat or the deck.

The legality helpers (``can_build``, ``train_cost``, ``rune_target_ok``...) are the rules' own
conditions (RO-3, RO-4, RO-6); the engine applies a decision only through them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from balance.games.raven_order import state as S
from balance.games.raven_order import tables as T
from balance.rng import below, uniform

# Construction actions: (kind, a, b) in State.aux[A_TMP..A_TMP+2] or a policy's out array.
ACT_END, ACT_BUILD, ACT_TRAIN, ACT_RUNE, ACT_SELL = range(5)

# ---------------------------------------------------------------------------------------------
# Legality (RO-3, RO-4, RO-6)


@njit(cache=True, _nrt=False, inline="always")
def can_build(tb, st, p, b):
    """RO-3: a build left this turn, not standing, requirement standing, gold enough."""
    if st.pl[p, S.PL_BUILDS] <= 0 or st.pl[p, S.PL_BUILT + b] != 0:
        return False
    req = tb.bld[b, T.BD_REQ]
    if req >= 0 and st.pl[p, S.PL_BUILT + req] == 0:
        return False
    return st.pl[p, S.PL_GOLD] >= tb.bld[b, T.BD_COST]


@njit(cache=True, _nrt=False, inline="always")
def train_cost(tb, st, p, to_type):
    """RO-4, RO-10: gold to train a unit into ``to_type`` (Travelling changes riders and druids)."""
    if S.has(st, p, T.TRAVELLING) > 0:
        if to_type == T.RIDER:
            return tb.rune[T.TRAVELLING, T.RN_RIDER_COST]
        if to_type == T.DRUID:
            return tb.rune[T.TRAVELLING, T.RN_DRUID_COST]
    return tb.params[T.P_COST + to_type]


@njit(cache=True, _nrt=False, inline="always")
def trainer(to_type):
    """RO-4: the building that lets a seat train ``to_type``."""
    if to_type == T.SENTRY:
        return T.ARMORY
    if to_type == T.RIDER:
        return T.CITADEL
    return T.SHRINE


@njit(cache=True, _nrt=False, inline="always")
def can_train(tb, st, p, from_type):
    """RO-4: seat ``p`` may train one unit of ``from_type`` a step up now."""
    to = from_type + 1
    if to > T.DRUID or st.pl[p, S.PL_BUILT + trainer(to)] == 0:
        return False
    if st.pl[p, S.PL_GOLD] < train_cost(tb, st, p, to):
        return False
    if from_type == T.WORKER:
        return st.pl[p, S.PL_WORKERS] > 0 and st.pl[p, S.PL_NU] < S.CAPU
    return st.pl[p, S.PL_CNT + from_type] > 0


@njit(cache=True, _nrt=False, forceinline=False)
def can_train_unpaid(tb, st, p):
    """Could ``p`` train a worker into a sentry if it had the gold (RO-4)?"""
    return st.pl[p, S.PL_BUILT + T.ARMORY] != 0 and st.pl[p, S.PL_NU] < S.CAPU


@njit(cache=True, _nrt=False, inline="always")
def rune_level_ok(tb, st, p, r):
    """RO-6: level N needs the Academy Lv. N building; level 0 needs none."""
    lv = tb.rune[r, T.RN_LEVEL]
    return lv == 0 or st.pl[p, S.PL_BUILT + T.ACAD1 + lv - 1] != 0


@njit(cache=True, _nrt=False, inline="always")
def playable_runes(tb, st, p):
    """Bit r set when ``p`` holds rune ``r`` and may play its level (RO-6): ``rune_level_ok``
    of every rune in hand at once."""
    ok = tb.params[T.P_LEVEL_RUNES]
    for lv in range(1, 4):
        if st.pl[p, S.PL_BUILT + T.ACAD1 + lv - 1] != 0:
            ok |= tb.params[T.P_LEVEL_RUNES + lv]
    return st.pl[p, S.PL_HELD] & ok


@njit(cache=True, _nrt=False, inline="always")
def rune_target_ok(tb, st, p, r, target):
    """RO-6: ``target`` (a unit row for paint, else a building) is a valid host for rune ``r``."""
    t = tb.rune[r, T.RN_TARGET]
    if t == T.T_DRUID:
        return (
            0 <= target < st.pl[p, S.PL_NU]
            and st.units[p, target, S.U_TYPE] == T.DRUID
            and st.units[p, target, S.U_DEAD] == 0
            and st.units[p, target, S.U_RUNE] < 0
        )
    if not 0 <= target < T.NB or st.pl[p, S.PL_BUILT + target] == 0:
        return False
    if st.pl[p, S.PL_BRUNE + target] >= 0:
        return False
    return t == T.T_ANY or target == t


@njit(cache=True, _nrt=False, inline="always")
def unit_value(st, p, i):
    """Gold sunk into a unit at rulebook costs (sentry 1, rider 2, druid 3), +2 for a rune."""
    v = float(st.units[p, i, S.U_TYPE])
    if st.units[p, i, S.U_RUNE] >= 0:
        v += 2.0
    return v


@njit(cache=True, _nrt=False, forceinline=False)
def building_value(tb, st, p, b):
    v = float(tb.bld[b, T.BD_COST])
    v += 3.0 * (tb.bld[b, T.BD_GOLD] + tb.bld[b, T.BD_WORKERS] + tb.bld[b, T.BD_RUNES])
    if st.pl[p, S.PL_BRUNE + b] >= 0:
        v += 3.0
    return v


@njit(cache=True, _nrt=False, inline="always")
def income(tb, st, p):
    g = 0
    for b in range(T.NB):
        if st.pl[p, S.PL_BUILT + b] != 0:
            g += tb.bld[b, T.BD_GOLD]
    return g


@njit(cache=True, _nrt=False, inline="always")
def next_planned(tb, st, p):
    """The first building of the seat's build order that is not standing and whose requirement
    stands; -1 when none."""
    for k in range(tb.seat[p, T.SP_ORDER_N]):
        b = tb.seat[p, T.SP_ORDER + k]
        if st.pl[p, S.PL_BUILT + b] != 0:
            continue
        req = tb.bld[b, T.BD_REQ]
        if req >= 0 and st.pl[p, S.PL_BUILT + req] == 0:
            continue
        return b
    return -1


@njit(cache=True, _nrt=False, inline="always")
def threat(tb, st, q):
    """Units of ``q`` that could attack next turn (riders and druids)."""
    return st.pl[q, S.PL_CNT + T.RIDER] + st.pl[q, S.PL_CNT + T.DRUID]


@njit(cache=True, _nrt=False, inline="always")
def guards(st, p):
    """Sentries, riders and druids of ``p`` (possible blockers)."""
    return (
        st.pl[p, S.PL_CNT + T.SENTRY] + st.pl[p, S.PL_CNT + T.RIDER] + st.pl[p, S.PL_CNT + T.DRUID]
    )


# ---------------------------------------------------------------------------------------------
# Construction (RO-3..RO-6)


@njit(cache=True, _nrt=False, inline="always")
def choose_action(tb, st, p, out):
    """The seat's next construction action into ``out[0:3]`` = (ACT_*, a, b)."""
    out[0] = ACT_END
    out[1] = -1
    out[2] = -1
    if st.pl[p, S.PL_ACTIONS] >= tb.seat[p, T.SP_MAXACT]:
        return
    kind = tb.seat[p, T.SP_KIND]
    if kind == T.POL_RANDOM:
        _random_action(tb, st, p, out)
    elif kind == T.POL_HEURISTIC:
        _heuristic_action(tb, st, p, out)


@njit(cache=True, _nrt=False, forceinline=False)
def _random_action(tb, st, p, out):
    # Uniform over: end, each building it can build, each training step, each (rune, host), sell.
    kinds = st.aux[S.A_TMP]
    aa = st.aux[S.A_TMP + 1]
    bb = st.aux[S.A_TMP + 2]
    cap = kinds.shape[0]
    n = 1
    kinds[0] = ACT_END
    for b in range(T.NB):
        if can_build(tb, st, p, b) and n < cap:
            kinds[n] = ACT_BUILD
            aa[n] = b
            n += 1
    for f in range(3):
        if can_train(tb, st, p, f) and n < cap:
            kinds[n] = ACT_TRAIN
            aa[n] = f
            n += 1
    if st.pl[p, S.PL_WORKERS] > 0 and n < cap:
        kinds[n] = ACT_SELL
        n += 1
    for r in range(T.NR):
        if st.pl[p, S.PL_HAND + r] <= 0 or not rune_level_ok(tb, st, p, r):
            continue
        if tb.rune[r, T.RN_TARGET] == T.T_DRUID:
            for i in range(st.pl[p, S.PL_NU]):
                if rune_target_ok(tb, st, p, r, i) and n < cap:
                    kinds[n] = ACT_RUNE
                    aa[n] = r
                    bb[n] = i
                    n += 1
        else:
            for b in range(T.NB):
                if rune_target_ok(tb, st, p, r, b) and n < cap:
                    kinds[n] = ACT_RUNE
                    aa[n] = r
                    bb[n] = b
                    n += 1
    k = below(st.rng[1 + p], n)
    out[0] = kinds[k]
    out[1] = aa[k]
    out[2] = bb[k]
    if out[0] == ACT_TRAIN:  # which unit of that type: uniform
        f = out[1]
        if f == T.WORKER:
            out[2] = -1
        else:
            m = 0
            for i in range(st.pl[p, S.PL_NU]):
                if st.units[p, i, S.U_TYPE] == f and st.units[p, i, S.U_DEAD] == 0:
                    m += 1
            j = below(st.rng[1 + p], m)
            for i in range(st.pl[p, S.PL_NU]):
                if st.units[p, i, S.U_TYPE] == f and st.units[p, i, S.U_DEAD] == 0:
                    if j == 0:
                        out[2] = i
                        break
                    j -= 1


@njit(cache=True, _nrt=False, forceinline=False)
def _pick_unit(st, p, t, want_fresh):
    """A living unit of type ``t``, preferring U_FRESH == this turn iff ``want_fresh``."""
    turn = st.board[S.G_TURN]
    best = -1
    for i in range(st.pl[p, S.PL_NU]):
        if st.units[p, i, S.U_TYPE] != t or st.units[p, i, S.U_DEAD] != 0:
            continue
        fresh = st.units[p, i, S.U_FRESH] == turn
        if fresh == want_fresh:
            return i
        if best < 0:
            best = i
    return best


@njit(cache=True, _nrt=False, forceinline=False)
def _building_host(tb, st, p):
    """For a rune that may go on any building (Canine): a standing building without a rune that
    the fewest other rune types need."""
    best = -1
    best_need = 1 << 30
    for b in range(T.NB):
        if st.pl[p, S.PL_BUILT + b] == 0 or st.pl[p, S.PL_BRUNE + b] >= 0:
            continue
        need = 0
        for r in range(T.NR):
            if tb.rune[r, T.RN_TARGET] == b:
                need += 1
        if need < best_need:
            best_need = need
            best = b
    return best


@njit(cache=True, _nrt=False, inline="always")
def _heuristic_action(tb, st, p, out):
    q = 1 - p
    gold = st.pl[p, S.PL_GOLD]
    keep = tb.seat[p, T.SP_KEEP]
    spare = st.pl[p, S.PL_WORKERS] - keep
    # 1. The build order: build the next building, selling spare workers if that pays for it
    # (the order is read only while a build is left this turn).
    reserve = 0
    nxt = next_planned(tb, st, p) if st.pl[p, S.PL_BUILDS] > 0 else -1
    if nxt >= 0:
        cost = tb.bld[nxt, T.BD_COST]
        if gold >= cost:
            out[0] = ACT_BUILD
            out[1] = nxt
            return
        if spare > 0 and gold + spare * tb.params[T.P_SELL] >= cost and tb.seat[p, T.SP_SAVE] > 0:
            out[0] = ACT_SELL
            return
        inc = income(tb, st, p)
        if tb.seat[p, T.SP_SAVE] > 0 and cost - gold <= inc * tb.seat[p, T.SP_SAVE]:
            reserve = gold  # within reach: hold the gold
    # 2. Runes: every rune it can play (in rune order), on its best host.
    m = playable_runes(tb, st, p)
    r = -1
    while m != 0:
        r += 1
        bit = m & 1
        m >>= 1
        if bit == 0:
            continue
        t = tb.rune[r, T.RN_TARGET]
        host = -1
        if t == T.T_DRUID:
            best = -1.0
            for i in range(st.pl[p, S.PL_NU]):
                if rune_target_ok(tb, st, p, r, i):
                    v = float(S.unit_power(tb, st, p, i, True))
                    if v > best:
                        best = v
                        host = i
        elif t == T.T_ANY:
            host = _building_host(tb, st, p)
        elif rune_target_ok(tb, st, p, r, t):
            host = t
        if host >= 0:
            out[0] = ACT_RUNE
            out[1] = r
            out[2] = host
            return
    # 3. Defence: sentries until its guards match the enemy's attackers.
    if (
        can_train(tb, st, p, T.WORKER)
        and st.pl[p, S.PL_WORKERS] > 0
        and guards(st, p) < tb.weights[p, T.W_DEFENCE] * threat(tb, st, q)
    ):
        out[0] = ACT_TRAIN
        out[1] = T.WORKER
        return
    # 4. The army: promote the most advanced unit below the goal, with the gold over the reserve.
    army = tb.seat[p, T.SP_ARMY]
    for f in range(army - 1, -1, -1):
        if f == T.WORKER and spare <= 0:
            continue
        if not can_train(tb, st, p, f):
            continue
        if gold - train_cost(tb, st, p, f + 1) < reserve:
            continue
        out[0] = ACT_TRAIN
        out[1] = f
        out[2] = -1 if f == T.WORKER else _pick_unit(st, p, f, False)
        return
    # 5. Out of gold: sell spare workers to train the others (when it may sell them).
    if tb.seat[p, T.SP_SELL] != 0 and spare >= 2 and reserve == 0 and can_train_unpaid(tb, st, p):
        out[0] = ACT_SELL


@njit(cache=True, _nrt=False, forceinline=False)
def choose_statue(tb, st, p):
    """The Statue's choice (tables.STATUE_*)."""
    if tb.seat[p, T.SP_KIND] == T.POL_RANDOM:
        return below(st.rng[1 + p], 3)
    return tb.seat[p, T.SP_STATUE]


# ---------------------------------------------------------------------------------------------
# Choosing enemy units (Corruption, Dawn Raid, Spirit Rune)


@njit(cache=True, _nrt=False, forceinline=False)
def choose_enemy_unit(tb, st, p, unpainted_only):
    """An enemy unit for ``p`` to take or kill: a unit row of the opponent, -2 for a worker, -1
    for none (no such unit)."""
    q = 1 - p
    n_workers = st.pl[q, S.PL_WORKERS]
    if tb.seat[p, T.SP_KIND] == T.POL_RANDOM:
        m = 0
        for i in range(st.pl[q, S.PL_NU]):
            if st.units[q, i, S.U_DEAD] == 0 and not (
                unpainted_only and st.units[q, i, S.U_RUNE] >= 0
            ):
                m += 1
        total = m + (1 if n_workers > 0 else 0)
        if total == 0:
            return -1
        k = below(st.rng[1 + p], total)
        for i in range(st.pl[q, S.PL_NU]):
            if st.units[q, i, S.U_DEAD] == 0 and not (
                unpainted_only and st.units[q, i, S.U_RUNE] >= 0
            ):
                if k == 0:
                    return i
                k -= 1
        return -2
    best = -1
    best_v = -1.0
    for i in range(st.pl[q, S.PL_NU]):
        if st.units[q, i, S.U_DEAD] != 0 or (unpainted_only and st.units[q, i, S.U_RUNE] >= 0):
            continue
        v = unit_value(st, q, i) + 0.1 * S.unit_power(tb, st, q, i, False)
        if v > best_v:
            best_v = v
            best = i
    if best < 0 and n_workers > 0:
        return -2
    return best


@njit(cache=True, _nrt=False, forceinline=False)
def choose_attacker_victim(tb, st, q):
    """Defender ``q``'s Spirit Rune kill among the unpainted attacking units of the opponent (the
    attacker list of the war) first, else any unpainted enemy unit: a unit row, -2 worker, -1."""
    p = 1 - q
    if tb.seat[q, T.SP_KIND] == T.POL_RANDOM:
        return choose_enemy_unit(tb, st, q, True)
    best = -1
    best_v = -1.0
    for a in range(st.board[S.G_NATK]):
        i = st.aux[S.A_ATK, a]
        if st.units[p, i, S.U_DEAD] != 0 or st.units[p, i, S.U_RUNE] >= 0:
            continue
        v = float(S.unit_power(tb, st, p, i, True))
        if v > best_v:
            best_v = v
            best = i
    if best >= 0:
        return best
    return choose_enemy_unit(tb, st, q, True)


# ---------------------------------------------------------------------------------------------
# War (RO-7..RO-9)


@njit(cache=True, _nrt=False, inline="always")
def choose_attackers(tb, st, p):
    """The attackers of ``p``: aux[A_PATK][i] = 1 for each unit row i that attacks (the plan the
    ``attack`` points read); returns how many."""
    q = 1 - p
    atk = st.aux[S.A_PATK]
    for i in range(st.pl[p, S.PL_NU]):
        atk[i] = 0
    n = 0
    if tb.seat[p, T.SP_KIND] == T.POL_RANDOM:
        chance = tb.weights[p, T.W_RANDOM_ATTACK]
        for i in range(st.pl[p, S.PL_NU]):
            if S.can_attack(tb, st, p, i) and uniform(st.rng[1 + p]) < chance:
                atk[i] = 1
                n += 1
        return n
    # Heuristic: the enemy's possible blockers and their power.
    blockers = 0
    block_power = 0
    druid_power = 0
    for i in range(st.pl[q, S.PL_NU]):
        if S.can_block(st, q, i):
            pw = S.unit_power(tb, st, q, i, False)
            if pw > 0:
                blockers += 1
                block_power += pw
                if st.units[q, i, S.U_TYPE] == T.DRUID:
                    druid_power += pw
    eligible = 0
    riders = 0
    pre_kills = 0  # enemy units its attack kills before blockers are chosen (ENGINE-4)
    for i in range(st.pl[p, S.PL_NU]):
        if S.can_attack(tb, st, p, i):
            eligible += 1
            if st.units[p, i, S.U_TYPE] == T.RIDER:
                riders += 1
            if st.units[p, i, S.U_RUNE] == T.SPIRIT:
                pre_kills += tb.rune[T.SPIRIT, T.RN_KILLS] * S.advantage(st, p)
    if eligible == 0:
        return 0
    if riders > 0 and riders >= tb.rune[T.DAWN_RAID, T.RN_MIN_RIDERS]:
        pre_kills += S.has(st, p, T.DAWN_RAID) * tb.rune[T.DAWN_RAID, T.RN_KILLS]
    blockers = blockers - pre_kills if blockers > pre_kills else 0
    all_in = (
        eligible >= tb.weights[p, T.W_ATTACK] * blockers
        or guards(st, p) >= tb.seat[p, T.SP_MAXARMY]
    )
    # Lethal: more attackers than the enemy has buildings and blockers of any kind.
    if eligible > blockers + st.pl[q, S.PL_WORKERS] and eligible >= st.pl[q, S.PL_NBLD]:
        all_in = True
    for i in range(st.pl[p, S.PL_NU]):
        if not S.can_attack(tb, st, p, i):
            continue
        pw = S.unit_power(tb, st, p, i, True)
        stop = druid_power if S.druids_only(st, p, i) else block_power
        if all_in or stop < pw:
            atk[i] = 1
            n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def choose_canine(tb, st, p, n_atk):
    """Index (into the attacker list) of the rider that Canine strengthens, -1 if none."""
    atk = st.aux[S.A_ATK]
    m = 0
    for a in range(n_atk):
        if st.units[p, atk[a], S.U_TYPE] == T.RIDER and st.units[p, atk[a], S.U_DEAD] == 0:
            m += 1
    if m == 0:
        return -1
    k = below(st.rng[1 + p], m) if tb.seat[p, T.SP_KIND] == T.POL_RANDOM else 0
    for a in range(n_atk):
        if st.units[p, atk[a], S.U_TYPE] == T.RIDER and st.units[p, atk[a], S.U_DEAD] == 0:
            if k == 0:
                return a
            k -= 1
    return -1


@njit(cache=True, _nrt=False, forceinline=False)
def _may_block(st, q, i, p, att):
    return S.can_block(st, q, i) and (
        not S.druids_only(st, p, att) or st.units[q, i, S.U_TYPE] == T.DRUID
    )


@njit(cache=True, _nrt=False, inline="always")
def choose_blocks(tb, st, q, n_atk):
    """Defender ``q``'s plan of blocks (RO-7), which the ``block`` and ``worker_block`` points
    read: aux[A_PBLK][i] = attacker index or -1 for each unit row, aux[A_PAWK][a] = workers
    blocking attacker a. aux[A_BPOW][i] holds the unit's power."""
    p = 1 - q
    atk = st.aux[S.A_ATK]
    blk = st.aux[S.A_PBLK]
    awk = st.aux[S.A_PAWK]
    for i in range(st.pl[q, S.PL_NU]):
        blk[i] = -1
    for a in range(n_atk):
        awk[a] = 0
    workers = st.pl[q, S.PL_WORKERS]
    if tb.seat[q, T.SP_KIND] == T.POL_RANDOM:
        for i in range(st.pl[q, S.PL_NU]):
            if not S.can_block(st, q, i):
                continue
            k = below(st.rng[1 + q], n_atk + 1) - 1
            if k >= 0 and st.units[p, atk[k], S.U_DEAD] == 0 and _may_block(st, q, i, p, atk[k]):
                blk[i] = k
        for _ in range(workers):
            k = below(st.rng[1 + q], n_atk + 1) - 1
            if k >= 0 and st.units[p, atk[k], S.U_DEAD] == 0 and not S.druids_only(st, p, atk[k]):
                awk[k] += 1
        return
    # Heuristic: strongest attackers first; kill them cheaply when it can, chump with a worker
    # otherwise; when the unblocked attackers would raze every building, block with anything.
    done = st.aux[S.A_TMP]
    for a in range(n_atk):
        done[a] = 0 if st.units[p, atk[a], S.U_DEAD] == 0 else 1
    for i in range(st.pl[q, S.PL_NU]):
        st.aux[S.A_BPOW, i] = S.unit_power(tb, st, q, i, False)
    trade = tb.weights[q, T.W_TRADE]
    open_attackers = 0
    for a in range(n_atk):
        if done[a] == 0:
            open_attackers += 1
    while True:
        a = -1
        best = -1
        for k in range(n_atk):
            if done[k] == 0 and st.aux[S.A_APOW, k] > best:
                best = st.aux[S.A_APOW, k]
                a = k
        if a < 0:
            break
        done[a] = 1
        att = atk[a]
        A = st.aux[S.A_APOW, a]
        a_val = unit_value(st, p, att)
        only_druids = S.druids_only(st, p, att)
        # One blocker strong enough to survive: the weakest such.
        pick = -1
        pick_pw = 1 << 30
        even = -1
        even_v = 1e9
        for i in range(st.pl[q, S.PL_NU]):
            if blk[i] >= 0 or not _may_block(st, q, i, p, att):
                continue
            pw = st.aux[S.A_BPOW, i]
            if pw > A and pw < pick_pw:
                pick_pw = pw
                pick = i
            elif pw == A and unit_value(st, q, i) < even_v:
                even_v = unit_value(st, q, i)
                even = i
        blocked = False
        if pick >= 0:
            blk[pick] = a
            blocked = True
        elif even >= 0 and even_v <= trade * a_val:
            blk[even] = a
            blocked = True
        else:
            # A gang: strongest free blockers until their power reaches the attacker's.
            total = 0
            loss = 0.0
            gang = st.aux[S.A_TMP + 1]
            g = 0
            while total < A:
                j = -1
                jp = -1
                for i in range(st.pl[q, S.PL_NU]):
                    if blk[i] >= 0 or not _may_block(st, q, i, p, att):
                        continue
                    used = False
                    for x in range(g):
                        if gang[x] == i:
                            used = True
                    if not used and st.aux[S.A_BPOW, i] > jp:
                        jp = st.aux[S.A_BPOW, i]
                        j = i
                if j < 0 or jp <= 0:
                    break
                gang[g] = j
                g += 1
                total += jp
            if total >= A and g > 0:
                # The attacker kills what fits in its power: at worst all but the strongest.
                strongest = 0.0
                for x in range(g):
                    v = unit_value(st, q, gang[x])
                    loss += v
                    if v > strongest:
                        strongest = v
                if g > 1:
                    loss -= strongest
                if loss <= trade * a_val:
                    for x in range(g):
                        blk[gang[x]] = a
                    blocked = True
        if not blocked and workers > 0 and not only_druids:
            awk[a] += 1
            workers -= 1
            blocked = True
        if not blocked and open_attackers >= st.pl[q, S.PL_NBLD]:
            # Desperate: the weakest free unit that may block.
            w = -1
            wv = 1e9
            for i in range(st.pl[q, S.PL_NU]):
                if blk[i] < 0 and _may_block(st, q, i, p, att) and unit_value(st, q, i) < wv:
                    wv = unit_value(st, q, i)
                    w = i
            if w >= 0:
                blk[w] = a
                blocked = True
        if blocked:
            open_attackers -= 1


@njit(cache=True, _nrt=False, forceinline=False)
def choose_kills(tb, st, p, group, powers, n, A, out):
    """Attacker ``p`` chooses which of its ``n`` unit blockers (rows ``group``, battle
    ``powers``) to kill: a set whose total power is at most ``A`` (RO-8). Marks out[k] = 1."""
    q = 1 - p
    for k in range(n):
        out[k] = 0
    if tb.seat[p, T.SP_KIND] == T.POL_RANDOM:
        # A random maximal set: blockers in random order, each taken while it fits.
        left = A
        start = below(st.rng[1 + p], n) if n > 0 else 0
        for x in range(n):
            k = (start + x) % n
            if powers[k] <= left:
                out[k] = 1
                left -= powers[k]
        return
    if n <= 12:
        best_mask = 0
        best_v = -1.0
        for mask in range(1 << n):
            s = 0
            v = 0.0
            for k in range(n):
                if mask & (1 << k):
                    s += powers[k]
                    v += unit_value(st, q, group[k])
            if s <= A and v > best_v:
                best_v = v
                best_mask = mask
        for k in range(n):
            if best_mask & (1 << k):
                out[k] = 1
        return
    left = A
    for _ in range(n):  # greedy by value
        j = -1
        jv = -1.0
        for k in range(n):
            if out[k] == 0 and powers[k] <= left and unit_value(st, q, group[k]) > jv:
                jv = unit_value(st, q, group[k])
                j = k
        if j < 0:
            break
        out[j] = 1
        left -= powers[j]


@njit(cache=True, _nrt=False, forceinline=False)
def choose_squire(tb, st, p):
    """Squire: kill a worker instead of the attacking rider?"""
    if tb.seat[p, T.SP_KIND] == T.POL_RANDOM:
        return below(st.rng[1 + p], 2) == 1
    return True


@njit(cache=True, _nrt=False, forceinline=False)
def choose_destroy(tb, st, p):
    """The building of the opponent that an unblocked attacker of ``p`` destroys (RO-9)."""
    q = 1 - p
    if tb.seat[p, T.SP_KIND] == T.POL_RANDOM:
        k = below(st.rng[1 + p], st.pl[q, S.PL_NBLD])
        for b in range(T.NB):
            if st.pl[q, S.PL_BUILT + b] != 0:
                if k == 0:
                    return b
                k -= 1
        return -1
    best = -1
    best_v = -1.0
    for b in range(T.NB):
        if st.pl[q, S.PL_BUILT + b] != 0:
            v = building_value(tb, st, q, b)
            if v > best_v:
                best_v = v
                best = b
    return best


# ---------------------------------------------------------------------------------------------
# The decision points (engine.advance / legal / apply)


@njit(cache=True, _nrt=False, inline="always")
def _target(v):
    """A victim of choose_enemy_unit / choose_attacker_victim (a row, -2 a worker) as a code."""
    return S.TG_WORKER if v == -2 else v


@njit(cache=True, _nrt=False, forceinline=True)
def _action_code(tb, st, p, work):
    """D_ACTION: the seat's construction action as a code (state.AC_*); its unit or host is kept
    in the State (G_PLAN_ACT, G_PLAN_ARG) for the ``train_unit`` / ``rune_host`` point after it."""
    act = work.act
    choose_action(tb, st, p, act)
    k = act[0]
    if k == ACT_BUILD:
        code = S.AC_BUILD + act[1]
    elif k == ACT_TRAIN:
        code = S.AC_TRAIN + act[1]
    elif k == ACT_SELL:
        code = S.AC_SELL
    elif k == ACT_RUNE:
        code = S.AC_RUNE + act[1]
    else:
        code = S.AC_END
    st.board[S.G_PLAN_ACT] = code
    st.board[S.G_PLAN_ARG] = act[2]
    return np.int64(code)


@njit(cache=True, _nrt=False, forceinline=True)
def _sub_action(tb, st, p, kind):
    """D_TRAIN_UNIT / D_RUNE_HOST: the unit or host the seat chose with its action; the first
    legal one if the action was not its own choice."""
    b = st.board
    arg = b[S.G_ARG]
    want = b[S.G_PLAN_ARG]
    if kind == S.D_TRAIN_UNIT:
        if (
            b[S.G_PLAN_ACT] == S.AC_TRAIN + arg
            and 0 <= want < st.pl[p, S.PL_NU]
            and st.units[p, want, S.U_TYPE] == arg
            and st.units[p, want, S.U_DEAD] == 0
        ):
            return np.int64(want)
        for i in range(st.pl[p, S.PL_NU]):
            if st.units[p, i, S.U_TYPE] == arg and st.units[p, i, S.U_DEAD] == 0:
                return np.int64(i)
        return np.int64(-1)
    if b[S.G_PLAN_ACT] == S.AC_RUNE + arg and rune_target_ok(tb, st, p, arg, want):
        return np.int64(want)
    n = st.pl[p, S.PL_NU] if tb.rune[arg, T.RN_TARGET] == T.T_DRUID else T.NB
    for h in range(n):
        if rune_target_ok(tb, st, p, arg, h):
            return np.int64(h)
    return np.int64(-1)


@njit(cache=True, _nrt=False, forceinline=True)
def choose(tb, st, work):
    """The code the acting seat's policy picks for the pending decision (one of engine.legal's).
    A compound choice (the attackers, the blocks, the kills) is planned whole at its first point
    (the State's A_P* rows, G_PLAN) and its next points answered from the plan."""
    b = st.board
    kind = b[S.G_PKIND]
    p = np.int64(b[S.G_PACTOR])
    if kind == S.D_ACTION:
        return _action_code(tb, st, p, work)
    if kind == S.D_ATTACK:
        if b[S.G_PLAN] == 0:
            choose_attackers(tb, st, p)
            b[S.G_PLAN] = 1
        return np.int64(st.aux[S.A_PATK, b[S.G_I]])
    if kind == S.D_BLOCK or kind == S.D_WORKER_BLOCK:
        if b[S.G_PLAN] == 0:
            choose_blocks(tb, st, p, b[S.G_NATK])
            b[S.G_PLAN] = 1
        if kind == S.D_BLOCK:
            return np.int64(st.aux[S.A_PBLK, b[S.G_I]] + 1)
        for a in range(b[S.G_NATK]):
            if st.aux[S.A_PAWK, a] > st.aux[S.A_AWK, a]:
                return np.int64(a + 1)
        return np.int64(0)
    if kind == S.D_KILL:
        if b[S.G_PLAN] == 0:
            choose_kills(
                tb,
                st,
                p,
                st.aux[S.A_GROUP],
                st.aux[S.A_GPOW],
                np.int64(b[S.G_BN]),
                np.int64(b[S.G_BA]),
                st.aux[S.A_PKILL],
            )
            b[S.G_PLAN] = 1
        k = b[S.G_K]
        if st.aux[S.A_PKILL, k] != 0 and st.aux[S.A_GPOW, k] <= b[S.G_BLEFT]:
            return np.int64(1)
        return np.int64(0)
    if kind == S.D_STATUE:
        return np.int64(choose_statue(tb, st, p))
    if kind == S.D_TRAIN_UNIT or kind == S.D_RUNE_HOST:
        return _sub_action(tb, st, p, kind)
    if kind == S.D_CORRUPTION or kind == S.D_DAWN_RAID:
        return np.int64(_target(choose_enemy_unit(tb, st, p, False)))
    if kind == S.D_SPIRIT_ATTACK:
        return np.int64(_target(choose_enemy_unit(tb, st, p, True)))
    if kind == S.D_SPIRIT_BLOCK:
        return np.int64(_target(choose_attacker_victim(tb, st, p)))
    if kind == S.D_CANINE:
        return np.int64(choose_canine(tb, st, p, np.int64(b[S.G_NATK])))
    if kind == S.D_SQUIRE:
        return np.int64(1 if choose_squire(tb, st, p) else 0)
    if kind == S.D_DESTROY:
        return np.int64(choose_destroy(tb, st, p))
    return np.int64(-1)
