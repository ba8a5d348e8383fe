"""Compile a validated Five Ravens config into the arrays the kernels see.

Everything a designer can tweak ends up here as numbers in arrays, never as constants in kernel
code, so a config change never forces a recompile (DESIGN.md, Kernels). All integer arrays are
int32 and all weights float64 so that every config compiles to the same numba signature.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from balance.errors import ConfigError
from balance.games._kit import Offsets
from balance.games.five_ravens.schema import (
    MAX_POINTS,
    MAX_RELIC_TYPES,
    MAX_RELICS,
    MAX_SIX_MULTIPLIER,
    MAX_WEIGHT,
    RAVEN_NAMES,
    GreedyPolicy,
)

# Card ids inside the kernels: 0..8 are the Ravens of rank 1..9, 9 + i is relic instance i. Rule
# code names the Ravens (``c == SEVEN``), never by number; ``c + 1`` is a Raven's rank.
N_RAVENS = len(RAVEN_NAMES)
ONE, TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE = range(N_RAVENS)

# "Never chosen": far below any value a greedy choice can have (policies, and the tables'
# derived values that stand for no choice).
NEG = -1.0e18

# Relic kinds (FR-2).
K_CHEST, K_GEM, K_HOLLOW, K_CURSED = range(4)
KIND_IDS = {"chest": K_CHEST, "gem": K_GEM, "hollow": K_HOLLOW, "cursed": K_CURSED}

# Seat policy kinds.
POL_RANDOM, POL_GREEDY, POL_SCRIPT = range(3)
POLICY_KIND_IDS = {"random": POL_RANDOM, "greedy": POL_GREEDY}

# Fixed sizes of the kernels' arrays: their layout must not depend on the config, or a config
# change would compile the kernels again. schema.py turns configs past them away.
MAX_SEATS = 4
MAX_CAP = 256  # cards per pile: the 9 Ravens and every relic
MAX_TYPES = MAX_RELIC_TYPES
MAX_GEM_TABLE = 64
assert N_RAVENS + MAX_RELICS <= MAX_CAP

# Scores are int32 sums (engine.score_breakdown); schema.py bounds every number in them so that
# the largest score a config can reach fits: every relic a chest or hollow of MAX_POINTS, one
# chest multiplied by the 6, the gem entry, a cursed bonus per relic type, the 4's bonus, the
# two penalties and the handicap. compile_tables checks the config's own worst case too
# (_check_scores).
I32_MIN, I32_MAX = int(np.iinfo(np.int32).min), int(np.iinfo(np.int32).max)
MAX_SCORE = (
    MAX_RELICS * MAX_POINTS
    + MAX_POINTS * (MAX_SIX_MULTIPLIER - 1)
    + MAX_POINTS
    + MAX_RELIC_TYPES * MAX_POINTS
    + 4 * MAX_POINTS
)
assert MAX_SCORE <= I32_MAX
# A greedy value is a sum of a few products of a weight by a weight or by points (at most a
# score): ten of them at schema.MAX_WEIGHT stay a hundred times above NEG (below).
assert 10 * MAX_WEIGHT * (MAX_WEIGHT + MAX_SCORE) * 100 < 1.0e18

# Greedy weights, in GreedyPolicy field order (schema.py).
GREEDY_WEIGHTS = (
    "thief_rank",
    "capture_effects",
    "penalty_aversion",
    "action_threshold",
    "draw_value",
    "info_value",
    "captured_card_cost",
)
(
    W_THIEF_RANK,
    W_CAPTURE,
    W_PENALTY,
    W_THRESHOLD,
    W_DRAW,
    W_INFO,
    W_CAPT_COST,
) = range(len(GREEDY_WEIGHTS))
N_WEIGHTS = len(GREEDY_WEIGHTS)
# Tables.weights[p, W_*]: the weights, then columns derived from the weights and rules by
# compile_tables (the kernels never recompute them).
_w = Offsets(N_WEIGHTS)
W_TV = _w(N_RAVENS)  # + Raven: the greedy thief value of that Raven, or its fixed part
W_TV_FOUR = _w(1)  # thief value of the 4 once the seat has its captured-relic bonus
W_CV = _w(N_RAVENS)  # + Raven: greedy value of capturing that Raven with the 5 (fixed part)
W_CV_FOUR = _w(1)  # the same for the 4 once the seat has its captured-relic bonus
W_SMALL = _w(1)  # 1.0 when weights and rule numbers are small enough that every greedy value is
#                  far above NEG (the greedy turn's lone-thief shortcut)
N_WEIGHT_COLS = _w.end

# Telemetry events, counted per (seat, card type); card types are the nine Ravens, then relic types.
EVENTS = ("drawn", "played", "thief", "stolen", "captured")
EV_DRAWN, EV_PLAYED, EV_THIEF, EV_STOLEN, EV_CAPTURED = range(len(EVENTS))

# Tables.params: scalar rules, then per-Raven switches, seat policies and the gem table.
_p = Offsets()
P_PLAYERS = _p(1)
P_ROUNDS = _p(1)
P_HAND = _p(1)
P_REMOVED = _p(1)
P_N_RELICS = _p(1)
P_N_TYPES = _p(1)
P_HOLLOW = _p(1)
P_HOLLOW_CAPT = _p(1)
P_CURSED_SET = _p(1)
P_CURSED_BONUS = _p(1)
P_FOUR_BONUS = _p(1)
P_FOUR_MIN = _p(1)
P_EIGHT_PEN = _p(1)
P_NINE_PEN = _p(1)
P_SIX_MULT = _p(1)
P_SIX_MAX = _p(1)
P_MEAN_MILLI = _p(1)  # prior value of an unseen relic, in thousandths of a point
P_N_TELE = _p(1)  # number of telemetry columns
P_GEM_N = _p(1)  # entries in the gem table (entry 0 = no gem = 0 points)
P_RELIC_THIEVES = _p(1)  # relic types that may be played as a thief (FR-7)
P_ACTION = _p(N_RAVENS)  # + Raven: its action text is on
P_CAPTURE = _p(N_RAVENS)  # + Raven: its capture effect is on
P_SEAT = _p(MAX_SEATS)  # + seat: POL_* of the seat's policy
P_GEM = _p(MAX_GEM_TABLE)  # + gems owned: points
P_ACTION_OFF = _p(1)  # bit r: Raven r's action text is off (P_ACTION + r == 0)
P_HANDICAP = _p(MAX_SEATS)  # + place in the turn order (the dataset's order): points added
N_PARAMS = _p.end

# Tables.cards rows: per relic instance, per relic type, per telemetry column, per card id.
_c = Offsets()
C_INST = _c(1)  # [relic instance] -> relic type
C_KIND = _c(1)  # [relic type] -> K_*
C_VALUE = _c(1)  # [relic type] -> chest value
C_THIEF = _c(1)  # [relic type] -> 1: may be played as a thief (FR-7)
C_TEV = _c(1)  # [telemetry column] -> event
C_TCARD = _c(1)  # [telemetry column] -> card type
C_TYPEOF = _c(1)  # [card id] -> card type: the Raven's index, or N_RAVENS + its relic type
# [card id] -> what scoring adds up (engine._score_pile), 0 for Ravens: chest value, is a gem, is
# a hollow, is cursed
C_CHEST_V = _c(1)
C_IS_GEM = _c(1)
C_IS_HOLLOW = _c(1)
C_IS_CURSED = _c(1)
# [relic type] -> a seat's standing by its counts (engine.standing_counted), without a branch on
# the kind: points per relic of the type owned, more points per one of them captured, 1 for a
# gem, the bonus of a captured set (cursed types)
C_T_OWN = _c(1)
C_T_CAPT = _c(1)
C_T_GEM = _c(1)
C_T_SET = _c(1)
N_CARD_ROWS = _c.end

CARDS_W = max(MAX_CAP, 5 * (N_RAVENS + MAX_TYPES))  # the widest row of Tables.cards
# Tables.cvmax[seat, cv_index(ravens)]: the largest W_CV value of a set of Ravens that are
# neither the 4 nor the 7 (the 5's capture choice, policies.best_capture_value), NEG for none
CV_RAVENS = (ONE, TWO, THREE, FIVE, SIX, EIGHT, NINE)
CV_BITS = len(CV_RAVENS)
TABLES_DTYPE = np.dtype(  # np.record: see state.STATE_DTYPE
    (
        np.record,
        np.dtype(
            [
                ("params", np.int32, (N_PARAMS,)),
                ("cards", np.int32, (N_CARD_ROWS, CARDS_W)),
                ("weights", np.float64, (MAX_SEATS, N_WEIGHT_COLS)),
                ("cvmax", np.float64, (MAX_SEATS, 1 << CV_BITS)),
            ],
            align=True,
        ),
    )
)


class Tables(NamedTuple):
    """The compiled rules: the only thing the kernels see, one record (see state.State).

    ``r`` is a TABLES_DTYPE record (which keeps its one-element array alive); the kernels read
    ``tb.r.params[P_...]`` (constant strides, one pointer a call); Python code reads
    ``tb.params``, ``tb.cards`` and ``tb.weights``.
    """

    r: np.record  # a TABLES_DTYPE record

    @property
    def params(self) -> np.ndarray:
        """int32[N_PARAMS]; indexed by P_*."""
        return self.r["params"]

    @property
    def cards(self) -> np.ndarray:
        """int32[N_CARD_ROWS, CARDS_W]; C_INST[instance] -> type; C_KIND/C_VALUE/C_THIEF[type];
        C_TEV/C_TCARD[column] -> telemetry event and card type; C_TYPEOF[card id] -> type."""
        return self.r["cards"]

    @property
    def cvmax(self) -> np.ndarray:
        """float64[MAX_SEATS, 2**CV_BITS]; see CV_RAVENS."""
        return self.r["cvmax"]

    @property
    def weights(self) -> np.ndarray:
        """float64[MAX_SEATS, N_WEIGHT_COLS]; greedy weights per seat, then W_TV*, W_CV*."""
        return self.r["weights"]


@dataclass(frozen=True)
class Compiled:
    """Kernel tables plus the names needed to label their output."""

    tb: Tables  # the kernels' tables
    relic_names: tuple[str, ...]
    seat_policies: tuple[str, ...]  # the policy kind of each seat
    columns: tuple[str, ...]  # telemetry column names
    players: int

    def card_type_name(self, t: int) -> str:
        return RAVEN_NAMES[t] if t < N_RAVENS else self.relic_names[t - N_RAVENS]


def _int32(value: int, key: str) -> int:
    """``value`` if the kernels' int32 holds it, else a ConfigError naming ``key`` (schema.py
    bounds every number far inside int32: this is the net for a value that got past it)."""
    if not I32_MIN <= value <= I32_MAX:
        problem = f"{value} does not fit the engine's 32-bit integers ({I32_MIN} to {I32_MAX})"
        raise ConfigError(f"{key}: {problem}", key=key, problem=problem)
    return value


def _i32(values: Any, key: str | Callable[[int], str]) -> np.ndarray:
    """``values`` as a contiguous int32 array; a value past int32 raises ConfigError naming
    ``key`` (``key(i)`` for the i-th value), not numpy's OverflowError."""
    values = [int(v) for v in values]
    for i, v in enumerate(values):
        _int32(v, key(i) if callable(key) else key)
    return np.ascontiguousarray(np.asarray(values, dtype=np.int32))


def _check_scores(rules: Any) -> None:
    """ConfigError if a score of this config could pass int32 either way (MAX_SCORE's sum for
    its own deck and numbers), where the kernel's sums would wrap around silently."""
    sc = rules.scoring
    chest = max([abs(r.value) for r in rules.relics.values() if r.kind == "chest"], default=0)
    per_relic = max(chest, abs(sc.hollow), abs(sc.hollow_captured))
    cursed_types = sum(1 for r in rules.relics.values() if r.kind == "cursed")
    worst = (
        rules.total_relics() * per_relic
        + chest * abs(sc.six_multiplier - 1)
        + max(abs(g) for g in sc.gem_table)
        + cursed_types * abs(sc.cursed_set_bonus)
        + abs(sc.four_bonus)
        + abs(sc.eight_penalty)
        + abs(sc.nine_penalty)
        + max((abs(h) for h in rules.handicap), default=0)
    )
    if worst > I32_MAX:
        problem = (
            f"a score could reach {worst} points, past the engine's 32-bit scores ({I32_MAX});"
            f" keep point values within {MAX_POINTS}"
        )
        raise ConfigError(f"rules.scoring: {problem}", key="rules.scoring", problem=problem)


def compile_tables(
    config: Any, seat_kinds: list[int] | None = None, weights: np.ndarray | None = None
) -> Compiled:
    """Validated RunConfig -> Compiled. ``seat_kinds``/``weights`` override the seats (tests)."""
    rules = config.rules
    players = config.players
    names = tuple(rules.relics)
    relics = [rules.relics[n] for n in names]
    # schema.py keeps the deck within the kernels' fixed sizes; a config past them stops here
    if not 1 <= rules.total_relics() <= MAX_RELICS or len(names) > MAX_TYPES:
        problem = f"the deck must hold 1-{MAX_RELICS} relics of at most {MAX_TYPES} kinds"
        raise ConfigError(f"rules.relics: {problem}", key="rules.relics", problem=problem)
    if len(rules.scoring.gem_table) >= MAX_GEM_TABLE:
        problem = f"at most {MAX_GEM_TABLE - 1} entries"
        key = "rules.scoring.gem_table"
        raise ConfigError(f"{key}: {problem}", key=key, problem=problem)
    type_kind = _i32([KIND_IDS[r.kind] for r in relics], "rules.relics")
    type_value = _i32(
        [r.value if r.kind == "chest" else 0 for r in relics],
        lambda t: f"rules.relics.{names[t]}.value",
    )
    type_thief = _i32([1 if n in rules.thief_relics else 0 for n in names], "rules.thief_relics")
    inst_type = _i32([t for t, r in enumerate(relics) for _ in range(r.count)], "rules.relics")
    sc = rules.scoring
    params = np.zeros(N_PARAMS, np.int32)
    for at, value, key in (
        (P_PLAYERS, players, "players"),
        (P_ROUNDS, rules.rounds, "rules.rounds"),
        (P_HAND, rules.hand_size, "rules.hand_size"),
        (P_REMOVED, rules.removed_relics.get(players, 0), f"rules.removed_relics.{players}"),
        (P_N_RELICS, len(inst_type), "rules.relics"),
        (P_N_TYPES, len(names), "rules.relics"),
        (P_HOLLOW, sc.hollow, "rules.scoring.hollow"),
        (P_HOLLOW_CAPT, sc.hollow_captured, "rules.scoring.hollow_captured"),
        (P_CURSED_SET, sc.cursed_set_size, "rules.scoring.cursed_set_size"),
        (P_CURSED_BONUS, sc.cursed_set_bonus, "rules.scoring.cursed_set_bonus"),
        (P_FOUR_BONUS, sc.four_bonus, "rules.scoring.four_bonus"),
        (P_FOUR_MIN, sc.four_threshold, "rules.scoring.four_threshold"),
        (P_EIGHT_PEN, sc.eight_penalty, "rules.scoring.eight_penalty"),
        (P_NINE_PEN, sc.nine_penalty, "rules.scoring.nine_penalty"),
        (P_SIX_MULT, sc.six_multiplier, "rules.scoring.six_multiplier"),
        (P_SIX_MAX, sc.six_max_chest, "rules.scoring.six_max_chest"),
    ):
        params[at] = _int32(value, key)
    gem_table = _i32([0, *sc.gem_table], lambda i: f"rules.scoring.gem_table[{i - 1}]")
    handicap = _i32(rules.handicap, lambda i: f"rules.handicap[{i}]")
    if len(handicap) > players:  # schema.check_config's bound, again
        problem = f"at most one entry per player ({players}), got {len(handicap)}"
        raise ConfigError(f"rules.handicap: {problem}", key="rules.handicap", problem=problem)
    _check_scores(rules)
    switches = [getattr(rules.ravens, n) for n in RAVEN_NAMES]
    action_on = _i32([int(s.action) for s in switches], "rules.ravens")
    capture_on = _i32([int(s.capture) for s in switches], "rules.ravens")

    if seat_kinds is None:
        seat_kinds = []
        rows = []
        for name in config.seats:
            pol = config.policies[name]
            kind = pol["kind"] if isinstance(pol, dict) else pol.kind
            seat_kinds.append(POLICY_KIND_IDS[kind])
            get = pol.get if isinstance(pol, dict) else lambda k, d=None, p=pol: getattr(p, k, d)
            row = [float(get(w, _greedy_default(w))) for w in GREEDY_WEIGHTS]
            for w, x in zip(GREEDY_WEIGHTS, row, strict=True):
                if not (math.isfinite(x) and abs(x) <= MAX_WEIGHT):  # schema.py's bound, again
                    key = f"policies.{name}.{w}"
                    problem = f"must be a finite number within {MAX_WEIGHT} either way, got {x}"
                    raise ConfigError(f"{key}: {problem}", key=key, problem=problem)
            rows.append(row)
        weights = np.asarray(rows, dtype=np.float64)
    assert weights is not None
    # The prior value of a relic nobody has seen: its base value averaged over the composition.
    base = [
        r.value if r.kind == "chest" else (sc.hollow if r.kind == "hollow" else 0) for r in relics
    ]
    n_gems = sum(r.count for r in relics if r.kind == "gem")
    total = max(1, len(inst_type))
    gem_points = gem_table[min(n_gems // max(1, players), len(gem_table) - 1)]
    mean = (
        sum(b * r.count for b, r in zip(base, relics, strict=True)) + gem_points * players
    ) / total

    ev, card, cols = [], [], []
    n_types = N_RAVENS + len(names)
    for e, event in enumerate(EVENTS):
        for t in range(n_types):
            is_raven = t < N_RAVENS
            if event == "played" and not is_raven:
                continue
            if event == "stolen" and is_raven:
                continue
            if event == "thief" and not is_raven and not type_thief[t - N_RAVENS]:
                continue
            ev.append(e)
            card.append(t)
            cols.append(f"{event}__{RAVEN_NAMES[t] if is_raven else names[t - N_RAVENS]}")

    params[P_MEAN_MILLI] = _int32(round(mean * 1000), "rules.relics")
    params[P_N_TELE] = len(cols)
    params[P_GEM_N] = len(gem_table)
    params[P_RELIC_THIEVES] = int(type_thief.sum())
    params[P_ACTION : P_ACTION + N_RAVENS] = action_on
    params[P_ACTION_OFF] = sum(1 << r for r in range(N_RAVENS) if not action_on[r])
    params[P_CAPTURE : P_CAPTURE + N_RAVENS] = capture_on
    params[P_SEAT : P_SEAT + players] = seat_kinds
    params[P_GEM : P_GEM + len(gem_table)] = gem_table
    params[P_HANDICAP : P_HANDICAP + len(handicap)] = handicap
    cards = np.zeros((N_CARD_ROWS, CARDS_W), np.int32)
    cards[C_TYPEOF, :N_RAVENS] = np.arange(N_RAVENS)
    cards[C_TYPEOF, N_RAVENS : N_RAVENS + len(inst_type)] = N_RAVENS + inst_type
    cards[C_INST, : len(inst_type)] = inst_type
    relic_ids = slice(N_RAVENS, N_RAVENS + len(inst_type))
    cards[C_CHEST_V, relic_ids] = np.where(type_kind == K_CHEST, type_value, 0)[inst_type]
    cards[C_IS_GEM, relic_ids] = (type_kind == K_GEM)[inst_type]
    cards[C_IS_HOLLOW, relic_ids] = (type_kind == K_HOLLOW)[inst_type]
    cards[C_IS_CURSED, relic_ids] = (type_kind == K_CURSED)[inst_type]
    cards[C_KIND, : len(names)] = type_kind
    cards[C_VALUE, : len(names)] = type_value
    cards[C_THIEF, : len(names)] = type_thief
    hollow, hollow_capt = params[P_HOLLOW], params[P_HOLLOW_CAPT]
    cards[C_T_OWN, : len(names)] = np.select(
        [type_kind == K_CHEST, type_kind == K_HOLLOW], [type_value, hollow], 0
    )
    cards[C_T_CAPT, : len(names)] = np.where(type_kind == K_HOLLOW, hollow_capt - hollow, 0)
    cards[C_T_GEM, : len(names)] = type_kind == K_GEM
    cards[C_T_SET, : len(names)] = np.where(type_kind == K_CURSED, params[P_CURSED_BONUS], 0)
    cards[C_TEV, : len(cols)] = ev
    cards[C_TCARD, : len(cols)] = card
    weights = _with_derived_values(np.asarray(weights, np.float64), params)
    t = np.zeros(1, TABLES_DTYPE)
    t["params"][0] = params
    t["cards"][0] = cards
    t["weights"][0, : weights.shape[0]] = weights
    t["cvmax"][0, : weights.shape[0]] = _cv_max(weights)
    return Compiled(
        tb=Tables(t[0]),
        relic_names=names,
        seat_policies=tuple(config.seats),
        columns=tuple(cols),
        players=int(players),
    )


def _with_derived_values(weights: np.ndarray, params: np.ndarray) -> np.ndarray:
    """Append the W_TV* and W_CV* columns: each Raven's greedy thief value and the 5's value of
    capturing it, as far as they do not depend on the game state (policies._greedy_turn,
    policies.best_capture_value), with the float operations in the kernel's order so that the
    kernel's choices are the same as working them out there (tests/games/five_ravens/
    test_policies.py). Only the first N_WEIGHTS columns of ``weights`` are read."""
    out = np.zeros((weights.shape[0], N_WEIGHT_COLS), np.float64)
    out[:, :N_WEIGHTS] = weights[:, :N_WEIGHTS]
    for p in range(weights.shape[0]):
        w = [float(x) for x in weights[p, :N_WEIGHTS]]
        for c in range(N_RAVENS):
            v = w[W_THIEF_RANK] * (c + 1) - w[W_CAPT_COST]
            on = params[P_CAPTURE + c] != 0
            if on and c in (ONE, TWO, THREE):
                v = v + w[W_CAPTURE] * w[W_INFO]
            elif on and c == EIGHT:
                v = v + w[W_PENALTY] * -float(params[P_EIGHT_PEN])
            elif on and c == NINE:
                v = v + w[W_PENALTY] * -float(params[P_NINE_PEN])
            out[p, W_TV + c] = v
        four = out[p, W_TV + FOUR]
        if params[P_CAPTURE + FOUR]:
            four = four + w[W_CAPTURE] * float(params[P_FOUR_BONUS])
        out[p, W_TV_FOUR] = four
        # policies.best_capture's value of a Raven: capture gain, minus the cost twice, minus a
        # tenth of its thief value (the 7's best rescue is added in the kernel)
        for c in range(N_RAVENS):
            gain = 0.0
            on = params[P_CAPTURE + c] != 0
            if on and c == EIGHT:
                gain = -float(params[P_EIGHT_PEN])
            elif on and c == NINE:
                gain = -float(params[P_NINE_PEN])
            g = gain - w[W_CAPT_COST]
            out[p, W_CV + c] = g - (w[W_CAPT_COST] + w[W_THIEF_RANK] * 0.1 * (c + 1))
        g = (float(params[P_FOUR_BONUS]) if params[P_CAPTURE + FOUR] else 0.0) - w[W_CAPT_COST]
        out[p, W_CV_FOUR] = g - (w[W_CAPT_COST] + w[W_THIEF_RANK] * 0.1 * (FOUR + 1))
        small = max(abs(x) for x in w) <= 1e6 and int(np.abs(params).max()) <= 100_000
        out[p, W_SMALL] = 1.0 if small and all(np.isfinite(w)) else 0.0
    return out


def _cv_max(weights: np.ndarray) -> np.ndarray:
    """Tables.cvmax from the W_CV columns: for each subset of CV_RAVENS (bit k: CV_RAVENS[k]),
    the largest of their W_CV values, or NEG for the empty set. A maximum is exact, so the
    kernel's lookup gives the same float as taking the maximum there."""
    out = np.full((weights.shape[0], 1 << CV_BITS), NEG, np.float64)
    for p in range(weights.shape[0]):
        for m in range(1, 1 << CV_BITS):
            out[p, m] = max(weights[p, W_CV + r] for k, r in enumerate(CV_RAVENS) if (m >> k) & 1)
    return out


def _greedy_default(weight: str) -> float:
    return float(GreedyPolicy.model_fields[weight].default)
