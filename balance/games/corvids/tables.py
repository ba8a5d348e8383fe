"""Compile a validated Corvids config into the arrays the kernels see.

Item and bird ids are the positions of their names in ``schema.ITEM_NAMES`` and
``schema.BIRD_NAMES``; every count, value, bonus, policy weight and physical number a designer may
change ends up here in arrays, never as a constant in kernel code (DESIGN.md, Kernels). Integer
arrays are int64 and the others float64, as Raven Manor's (its engine docstring says why: one
compiled signature per kernel).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np

from balance.games._kit import Offsets
from balance.games.corvids import physics
from balance.games.corvids.schema import (
    BIRD_NAMES,
    DOUBLE_ITEMS,
    ITEM_NAMES,
    NESTS,
    PHYSICS_CHOICES,
    PHYSICS_PARAMS,
    SINGLE_ITEMS,
)

NI = len(ITEM_NAMES)  # 9 items
NB = len(BIRD_NAMES)  # 8 birds, one nest each (CV-10)
MAXP = 8  # CV-1: 2-8 players

# Item ids (schema.ITEM_NAMES order): the double-sided items, then the single-sided ones.
ACORN, EARRING, NUT, PAPERCLIP, KEY, BUTTON, STRING, TICKET, COIN = range(NI)
assert ITEM_NAMES[STRING] == "string" and len(DOUBLE_ITEMS) == STRING
BLANK = -1  # the back of a single-sided card (CV-2)

# Seat policy kinds; POL_SCRIPT: tests (with_script).
POL_RANDOM, POL_GREEDY, POL_SCRIPT = 0, 1, 2
MAX_SCRIPT = 64  # scripted values a seat can hold
POLICY_KIND_IDS = {"random": POL_RANDOM, "greedy": POL_GREEDY}

# Tables.params: scalar rules, then per item and per bird.
_p = Offsets()
P_PLAYERS = _p(1)
P_FEATHERS = _p(1)  # CV-1
P_DOUBLE_N = _p(1)  # CV-2: double-sided cards
P_SINGLE_N = _p(NI)  # + item: single-sided cards of that item (string, ticket, coin; 0 others)
P_DECK_N = _p(1)  # every trash card
P_STEAL_COST = _p(1)  # CV-11
P_COIN_DOWN = _p(1)  # CV-3: a face-down coin's points
P_VALUE = _p(NI)  # + item: points of a card counting as that item (CV-3)
P_SET_SIZE = _p(NI)  # + item: cards in one set of that item, 0 no set
P_SET_POINTS = _p(NI)  # + item: what one set scores in all (replacing its cards' values)
P_BIRDS_N = _p(1)  # birds in the game's box (the config's birds)
P_BIRD_NEST = _p(NB)  # + bird: its nest 0-7
P_BIRD_FAV = _p(NB)  # + bird: its favourite item
P_BIRD_BONUS = _p(NB)  # + bird: points per collected card of its favourite item
P_NEST_BIRD = _p(NB)  # + nest: the bird whose nest it is, -1 none in the config
P_HANDICAP = _p(MAXP)  # + place in the turn order (the dataset's order): points added (CV-7)
N_PARAMS = _p.end

# Tables.seat[p, SP_*] (integers) and Tables.weights[p, W_*] (floats).
_sp = Offsets()
SP_KIND = _sp(1)  # POL_*
SP_SCRIPT_N = _sp(1)  # scripted values (POL_SCRIPT)
N_SEAT = _sp.end
W_NAMES = (
    "clumsiness",
    "own_value",
    "bird_bonus",
    "set_progress",
    "keep_nest_covered",
    "uncover_rivals",
    "expose_wanted",
    "shed_pieces",
    "steal_margin",
    "feather_value",
    "ability_value",
)
(
    W_CLUMSY,
    W_OWN,
    W_BIRD,
    W_SET,
    W_KEEP_NEST,
    W_UNCOVER,
    W_EXPOSE,
    W_SHED,
    W_STEAL,
    W_FEATHER,
    W_ABILITY,
) = range(N_WEIGHTS := len(W_NAMES))

# Telemetry columns, per seat (issue 16, 6): per item picked, stolen, stolen from, lost off the mat,
# abilities triggered; feathers gained and paid.
_t = Offsets()
TE_PICKED = _t(NI)  # + item
TE_STOLE = _t(NI)  # + item: cards it stole
TE_STOLEN = _t(NI)  # + item: cards stolen from it
TE_LOST = _t(NI)  # + item: cards it knocked off the mat
TE_ABILITY = _t(
    NI
)  # + item: abilities it triggered (acorn, earring, nut, paperclip, ticket, string)
TE_FEATHERS_GAINED = _t(1)
TE_FEATHERS_PAID = _t(1)
N_TELE = _t.end


def telemetry_names() -> tuple[str, ...]:
    cols = [f"picked__{i}" for i in ITEM_NAMES]
    cols += [f"stole__{i}" for i in ITEM_NAMES]
    cols += [f"stolen__{i}" for i in ITEM_NAMES]
    cols += [f"lost__{i}" for i in ITEM_NAMES]
    cols += [f"ability__{i}" for i in ITEM_NAMES]
    cols += ["gained__feathers", "paid__feathers"]
    assert len(cols) == N_TELE
    return tuple(cols)


class Tables(NamedTuple):
    """The compiled rules: the only thing the kernels see."""

    params: np.ndarray  # int64[N_PARAMS]; P_*
    item_weight: np.ndarray  # float64[NI]; chance of each item on a double-sided card's side
    physics: np.ndarray  # float64[physics.N_PH]; physics.PH_*
    seat: np.ndarray  # int64[MAXP, N_SEAT]
    weights: np.ndarray  # float64[MAXP, N_WEIGHTS]
    script: np.ndarray  # float64[MAXP, MAX_SCRIPT]: a scripted seat's values (with_script)


@dataclass(frozen=True)
class Compiled:
    """Kernel tables (``tb``) plus the names needed to label their output."""

    tb: Tables
    seat_policies: tuple[str, ...]
    columns: tuple[str, ...]
    players: int
    bird_names: tuple[str, ...] = ()  # the config's birds, in PL_BIRD order


def physics_params(rules: Any) -> np.ndarray:
    """The physics params array of ``rules.physics`` (schema.PHYSICS_PARAMS names each entry)."""
    out = physics.default_params()
    for field, entry in PHYSICS_PARAMS.items():
        out[getattr(physics, entry)] = float(getattr(rules.physics, field))
    for field, (entry, values) in PHYSICS_CHOICES.items():
        out[getattr(physics, entry)] = values[getattr(rules.physics, field)]
    return out


def compile_tables(config: Any) -> Compiled:
    """Validated RunConfig -> Compiled."""
    rules = config.rules
    params = np.zeros(N_PARAMS, np.int64)
    params[P_PLAYERS] = config.players
    params[P_FEATHERS] = rules.feathers
    params[P_DOUBLE_N] = rules.cards.double_sided.count
    for name in SINGLE_ITEMS:
        params[P_SINGLE_N + ITEM_NAMES.index(name)] = getattr(rules.cards.single_sided, name)
    params[P_DECK_N] = rules.deck_size()
    params[P_STEAL_COST] = rules.steal.cost
    params[P_COIN_DOWN] = rules.scoring.coin_face_down
    for i, name in enumerate(ITEM_NAMES):
        params[P_VALUE + i] = getattr(rules.scoring.values, name)
    for name, s in rules.scoring.sets.items():
        i = ITEM_NAMES.index(name)
        params[P_SET_SIZE + i] = s.size
        params[P_SET_POINTS + i] = s.points
    birds = list(rules.birds.items())
    params[P_BIRDS_N] = len(birds)
    params[P_NEST_BIRD : P_NEST_BIRD + NB] = -1
    for b, (_, bird) in enumerate(birds):
        params[P_BIRD_NEST + b] = bird.nest
        params[P_BIRD_FAV + b] = ITEM_NAMES.index(bird.favourite)
        params[P_BIRD_BONUS + b] = bird.bonus_per_card
        params[P_NEST_BIRD + bird.nest] = b
    assert len(birds) <= NESTS
    assert len(rules.handicap) <= config.players  # schema.check_config
    params[P_HANDICAP : P_HANDICAP + len(rules.handicap)] = rules.handicap
    item_weight = np.zeros(NI, np.float64)
    for name in rules.cards.double_sided.items:  # an item listed twice is twice as likely
        item_weight[ITEM_NAMES.index(name)] += 1.0
    item_weight /= max(item_weight.sum(), 1.0)

    seat = np.zeros((MAXP, N_SEAT), np.int64)
    weights = np.zeros((MAXP, N_WEIGHTS), np.float64)
    for p, name in enumerate(config.seats):
        pol = config.policies[name]
        seat[p, SP_KIND] = POLICY_KIND_IDS[pol["kind"]]
        for j, w in enumerate(W_NAMES):
            if w in pol:
                weights[p, j] = float(pol[w])
    tb = Tables(
        params=params,
        item_weight=item_weight,
        physics=physics_params(rules),
        seat=seat,
        weights=weights,
        script=np.zeros((MAXP, MAX_SCRIPT), np.float64),
    )
    return Compiled(
        tb=tb,
        seat_policies=tuple(config.seats),
        columns=telemetry_names(),
        players=config.players,
        bird_names=tuple(name for name, _ in birds),
    )


def with_script(compiled: Compiled, scripts: dict[int, list[float]]) -> Compiled:
    """A copy of ``compiled`` whose seats in ``scripts`` make the listed decisions, in order, then
    play as ``greedy`` with their own weights (tests). A peck takes three values (card, aim x, aim
    y), every other decision one: the card, feather or count chosen, -1 for none, 0 / 1 for a
    string (policies.py, Scripts). A scripted choice that is not among the legal ones is taken as
    the first legal one and sets ``state.G_SCRIPT_BAD``."""
    seat = compiled.tb.seat.copy()
    script = compiled.tb.script.copy()
    for p, values in scripts.items():
        if len(values) > MAX_SCRIPT:
            raise ValueError(f"seat {p}: at most {MAX_SCRIPT} scripted values")
        seat[p, SP_KIND] = POL_SCRIPT
        seat[p, SP_SCRIPT_N] = len(values)
        script[p, :] = 0.0
        script[p, : len(values)] = values
    return replace(compiled, tb=compiled.tb._replace(seat=seat, script=script))
