"""Compile a validated Raven Order config into the arrays the kernels see.

Every number a designer may tweak ends up here as numbers in arrays, never as constants in kernel
code, so a config change never forces a recompile (DESIGN.md, Kernels). All integer arrays are
int32 and the weights float64 so that every config compiles to the same numba signature.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from balance.games._kit import Offsets
from balance.games.raven_order.schema import (
    BUILDING_NAMES,
    RUNE_DEFAULTS,
    RUNE_FIELDS,
    RUNE_NAMES,
    TARGET_ANY,
    TARGET_DRUID,
    UNIT_NAMES,
    HeuristicPolicy,
    RandomPolicy,
)

NB = len(BUILDING_NAMES)
NR = len(RUNE_NAMES)
NU = len(UNIT_NAMES)

# Building ids (rulebook order).
(
    CAMP,
    TOWN,
    CAPITOL,
    ARMORY,
    CITADEL,
    SHRINE,
    STATUE,
    ACAD1,
    ACAD2,
    ACAD3,
    GUILDHALL,
) = range(NB)
# Unit types.
WORKER, SENTRY, RIDER, DRUID = range(NU)
# Rune ids (rulebook order).
(
    FROST,
    BLOOM,
    CROWN,
    SHADOW,
    SPIRIT,
    CANINE,
    CONQUEST,
    LOOTING,
    HORSES,
    POISONS,
    TRAVELLING,
    SQUIRE,
    CORRUPTION,
    DAWN_RAID,
    RITUALS,
    MEDICINE,
    SHIELDS,
    STEEL,
    CLOAKING,
) = range(NR)
T_DRUID, T_ANY = -1, -2  # rune targets that are not one building type

# Seat policy kinds.
POL_RANDOM, POL_HEURISTIC, POL_SCRIPT = 0, 1, 2
POLICY_KIND_IDS = {"random": POL_RANDOM, "heuristic": POL_HEURISTIC}
STATUE_CHOICES = ("workers", "runes", "builds")
STATUE_WORKERS, STATUE_RUNES, STATUE_BUILDS = range(3)

# Tables.params: scalar rules, then per unit type and per building.
_p = Offsets()
P_TURN_CAP = _p(1)
P_START_GOLD = _p(1)
P_START_HAND = _p(1)
P_COMP_SENTRIES = _p(1)
P_COMP_WORKERS = _p(1)
P_COMP_GOLD = _p(1)
P_HARVEST_WORKERS = _p(1)
P_SELL = _p(1)
P_STATUE_WORKERS = _p(1)
P_STATUE_RUNES = _p(1)
P_STATUE_BUILDS = _p(1)
P_DECK_N = _p(1)
P_POWER = _p(NU)  # + unit type: base power
P_COST = _p(NU)  # + unit type: gold to train it from the type below
P_START_BLD = _p(NB)  # + building: 1 if each player starts with it
P_LEVEL_RUNES = _p(4)  # + academy level (0-3, RO-6): bit r set when rune r is of that level
N_PARAMS = _p.end

# Tables.bld[b, BD_*]
_bd = Offsets()
BD_COST = _bd(1)  # gold to build it
BD_REQ = _bd(1)  # the building it requires, -1 none
BD_GOLD = _bd(1)  # gold of each Harvest (RO-2)
BD_WORKERS = _bd(1)  # workers of each Harvest
BD_RUNES = _bd(1)  # runes drawn at each Harvest
N_BD = _bd.end
# Tables.rune[r, RN_*]: count, target and level, then the RUNE_COLUMNS values from RN_POWER on.
RUNE_COLUMNS = ("power", "workers", "gold", "kills", "min_riders", "rider_cost", "druid_cost")
_r = Offsets()
RN_COUNT = _r(1)
RN_TARGET = _r(1)
RN_LEVEL = _r(1)
RN_VALUES = _r(len(RUNE_COLUMNS))  # + j: the rune's RUNE_COLUMNS[j]
(
    RN_POWER,
    RN_WORKERS,
    RN_GOLD,
    RN_KILLS,
    RN_MIN_RIDERS,
    RN_RIDER_COST,
    RN_DRUID_COST,
) = range(RN_VALUES, RN_VALUES + len(RUNE_COLUMNS))
N_RN = _r.end

# Tables.seat[p, SP_*]: the seat's policy settings that are integers.
_s = Offsets()
SP_KIND = _s(1)
SP_ARMY = _s(1)
SP_SAVE = _s(1)
SP_KEEP = _s(1)
SP_STATUE = _s(1)
SP_MAXACT = _s(1)
SP_MAXARMY = _s(1)
SP_SELL = _s(1)
SP_ORDER_N = _s(1)
SP_ORDER = _s(NB)  # + i: i-th building of the build order
N_SEAT = _s.end
# Tables.weights[p, W_*]
_w = Offsets()
W_DEFENCE = _w(1)  # heuristic's defence: its blockers per enemy attacker
W_ATTACK = _w(1)  # heuristic's attack_ratio: attackers per enemy blocker to attack with all
W_TRADE = _w(1)  # heuristic's trade: value of blockers it may lose per attacker's value
W_RANDOM_ATTACK = _w(1)  # random's attack: chance that each unit able to attack does
N_WEIGHTS = _w.end

# Telemetry columns: fixed layout, State.pl[p, PL_TELE + column] (telemetry_names).
_t = Offsets()
TE_DRAWN = _t(NR)  # + rune
TE_PLAYED = _t(NR)  # + rune
TE_BUILT = _t(NB)  # + building
TE_LOST_B = _t(NB)  # + building
TE_TRAINED = _t(NU - 1)  # + unit type - 1 (sentry, rider, druid)
TE_LOST_U = _t(NU)  # + unit type
TE_ATTACKED = _t(NU - 2)  # + unit type - 2 (rider, druid)
TE_SOLD = _t(1)
N_TELE = _t.end


def telemetry_names() -> tuple[str, ...]:
    cols = [f"drawn__{r}" for r in RUNE_NAMES]
    cols += [f"played__{r}" for r in RUNE_NAMES]
    cols += [f"built__{b}" for b in BUILDING_NAMES]
    cols += [f"lost__{b}" for b in BUILDING_NAMES]
    cols += [f"trained__{u}" for u in UNIT_NAMES[1:]]
    cols += [f"lost__{u}" for u in UNIT_NAMES]
    cols += [f"attacked__{u}" for u in UNIT_NAMES[2:]]
    cols += ["sold__worker"]
    assert len(cols) == N_TELE
    return tuple(cols)


class Tables(NamedTuple):
    """The compiled rules: the only thing the kernels see."""

    params: np.ndarray  # int32[N_PARAMS]; indexed by P_*
    bld: np.ndarray  # int32[NB, N_BD]; BD_* per building
    rune: np.ndarray  # int32[NR, N_RN]; RN_* per rune
    seat: np.ndarray  # int32[2, N_SEAT]; SP_* per seat
    weights: np.ndarray  # float64[2, N_WEIGHTS]; W_* per seat


@dataclass(frozen=True)
class Compiled:
    """Kernel tables plus the names needed to label their output."""

    tb: Tables  # the kernels' tables
    seat_policies: tuple[str, ...]  # the policy name of each seat
    columns: tuple[str, ...]  # the telemetry columns (telemetry_names)
    players: int  # always 2 (RO-1)


def _policy(pol: Any) -> Any:
    """A seat's policy settings as a validated model (config dicts or models)."""
    if isinstance(pol, RandomPolicy | HeuristicPolicy):
        return pol
    kind = pol["kind"]
    return RandomPolicy(**pol) if kind == "random" else HeuristicPolicy(**pol)


def compile_tables(config: Any, seat_rows: list[Any] | None = None) -> Compiled:
    """Validated RunConfig -> Compiled. ``seat_rows`` (policy models) overrides the seats."""
    rules = config.rules
    params = np.zeros(N_PARAMS, np.int32)
    params[P_TURN_CAP] = rules.turn_cap
    params[P_START_GOLD] = rules.starting_gold
    params[P_START_HAND] = rules.starting_hand
    params[P_COMP_SENTRIES] = rules.compensation.sentries
    params[P_COMP_WORKERS] = rules.compensation.workers
    params[P_COMP_GOLD] = rules.compensation.gold
    params[P_HARVEST_WORKERS] = rules.harvest_workers
    params[P_SELL] = rules.sell_price
    params[P_STATUE_WORKERS] = rules.statue.workers
    params[P_STATUE_RUNES] = rules.statue.runes
    params[P_STATUE_BUILDS] = rules.statue.extra_builds
    params[P_DECK_N] = rules.deck_size()
    for u, name in enumerate(UNIT_NAMES):
        unit = getattr(rules.units, name)
        params[P_POWER + u] = unit.power
        params[P_COST + u] = 0 if u == WORKER else unit.cost
    for name in rules.starting_buildings:
        params[P_START_BLD + BUILDING_NAMES.index(name)] = 1

    bld = np.zeros((NB, N_BD), np.int32)
    for b, name in enumerate(BUILDING_NAMES):
        d = rules.buildings[name]
        bld[b] = (
            d.cost,
            -1 if d.requires is None else BUILDING_NAMES.index(d.requires),
            d.gold,
            d.workers,
            d.runes,
        )

    rune = np.zeros((NR, N_RN), np.int32)
    for r, name in enumerate(RUNE_NAMES):
        d = rules.runes[name]
        target = d.target or RUNE_DEFAULTS[name][0]
        t = (
            T_DRUID
            if target == TARGET_DRUID
            else T_ANY
            if target == TARGET_ANY
            else BUILDING_NAMES.index(target)
        )
        level = RUNE_DEFAULTS[name][1] if d.level is None else d.level
        rune[r, RN_COUNT] = d.count
        rune[r, RN_TARGET] = t
        rune[r, RN_LEVEL] = level
        params[P_LEVEL_RUNES + level] |= 1 << r
        for j, f in enumerate(RUNE_COLUMNS):
            if f in RUNE_FIELDS[name]:
                rune[r, RN_POWER + j] = d.value(name, f)

    models = seat_rows or [_policy(config.policies[name]) for name in config.seats]
    seat = np.zeros((2, N_SEAT), np.int32)
    weights = np.zeros((2, N_WEIGHTS), np.float64)
    for p, m in enumerate(models):
        seat[p, SP_KIND] = POLICY_KIND_IDS.get(m.kind, POL_SCRIPT)
        if isinstance(m, RandomPolicy):
            seat[p, SP_MAXACT] = m.max_actions
            weights[p, W_RANDOM_ATTACK] = m.attack
        elif isinstance(m, HeuristicPolicy):
            seat[p, SP_ARMY] = RIDER if m.army == "rider" else DRUID
            seat[p, SP_SAVE] = m.save_turns
            seat[p, SP_KEEP] = m.keep_workers
            seat[p, SP_STATUE] = STATUE_CHOICES.index(m.statue)
            seat[p, SP_MAXACT] = 200
            seat[p, SP_MAXARMY] = m.max_army
            seat[p, SP_SELL] = int(m.sell_workers)
            seat[p, SP_ORDER_N] = len(m.build_order)
            for i, b in enumerate(m.build_order):
                seat[p, SP_ORDER + i] = BUILDING_NAMES.index(b)
            weights[p, W_DEFENCE] = m.defence
            weights[p, W_ATTACK] = m.attack_ratio
            weights[p, W_TRADE] = m.trade
    tb = Tables(
        params=params,
        bld=np.ascontiguousarray(bld),
        rune=np.ascontiguousarray(rune),
        seat=seat,
        weights=weights,
    )
    return Compiled(
        tb=tb,
        seat_policies=tuple(config.seats),
        columns=telemetry_names(),
        players=config.players,
    )


def with_seat_kinds(compiled: Compiled, kinds: list[int]) -> Compiled:
    """A copy of ``compiled`` whose seats use policy kinds ``kinds`` (tests: POL_SCRIPT)."""
    seat = compiled.tb.seat.copy()
    for p, kind in enumerate(kinds):
        seat[p, SP_KIND] = kind
    return dataclasses.replace(compiled, tb=compiled.tb._replace(seat=seat))
