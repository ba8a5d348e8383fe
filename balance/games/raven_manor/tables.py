"""Compile a validated Raven Manor config into the arrays the kernels see.

Card and character ids are the positions of their names in ``schema.CARD_NAMES`` and
``schema.CHARACTER_NAMES``; every count, number and policy weight a designer may change ends up
here in arrays, never as a constant in kernel code, so a config change never forces a recompile
(DESIGN.md, Kernels). Integer arrays are int64 (as the state's: state.py) and weights float64, so
every config compiles to the same numba signature. ``Compiled.tb`` holds them (the kernels' ``tb``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from balance.games._kit import Offsets
from balance.games.raven_manor.schema import (
    CARD_NAMES,
    CHARACTER_NAMES,
    LOCATION_NAMES,
    ROOM_NAMES,
)

NC = len(CARD_NAMES)  # 42 card types
NCH = len(CHARACTER_NAMES)  # 29 characters
MAXP = 12  # RM-30: the 12 order tokens

# Card ids (schema.CARD_NAMES order): Rooms, Actions, Reactions, Locations.
(
    BASEMENT,
    BATHROOM,
    BEDROOM,
    DINING_ROOM,
    FATHERS_STUDY,
    GUESTROOM,
    KITCHEN,
    LIBRARY,
    EXCHANGE,
    GET_OVER_HERE,
    VASE,
    AXE,
    CANDLE,
    RIFLE,
    BROKEN_BOTTLE,
    PILLOW,
    FEATHER,
    HAYMAKER,
    MANOR_PLAN,
    BOTTLE,
    KNIFE,
    BACKPACK,
    BARRICADE,
    COMPASS,
    DRINK,
    HARPOON,
    TORCH,
    TREASURE_MAP,
    ZAKUS_CAMERA,
    AVOID,
    DODGE,
    EVADE,
    LIFEBUOY,
    ROD,
    RAT_TREACHERY,
    ABANDONED_MINE,
    CABIN,
    CAVE,
    COAST,
    FOREST,
    MOUNTAINS,
    THE_INN,
) = range(NC)
ROOM0, ROOM1 = BASEMENT, LIBRARY + 1  # rooms are ids [ROOM0, ROOM1)
REACT0, REACT1 = AVOID, RAT_TREACHERY + 1
LOC0, LOC1 = ABANDONED_MINE, THE_INN + 1
assert len(ROOM_NAMES) == ROOM1 - ROOM0 and len(LOCATION_NAMES) == LOC1 - LOC0

# Character ids (schema.CHARACTER_NAMES order).
(
    RAVEN,
    AUNT_CAT,
    AUNT_OWL,
    BROTHER_BADGER,
    DOG_FATHER,
    GRANDFATHER_BISON,
    GRANDMOTHER_SHEEP,
    MOTHER_HEN,
    SISTER_ROE,
    UNCLE_HORSE,
    ANGLER,
    BOAR,
    BUNNY,
    PIKE,
    CATFISH,
    CRAYFISH,
    CTHULHU,
    DOC,
    EEL,
    GROGUS,
    EAGLE,
    HORSEMAN,
    WHALE,
    LUMBEARJACK,
    MAYOR,
    SQUIRREL,
    SHARK,
    ALLIGATOR,
    WOLF,
) = range(NCH)

# Sides (RM-22): Chunk.team values, named by TEAM_NAMES (the schema's, so that the plugin's
# team_names needs no numba; re-exported here beside the codes the kernels write). The end
# reasons are state.py's (END_REASONS and the END_* codes).
from balance.games.raven_manor.schema import TEAM_NAMES  # noqa: E402, F401

FAMILY, S_RAVEN, S_HORSEMAN, S_CTHULHU = range(4)

# How a seat died (telemetry died__<cause>; State PL_CAUSE holds index + 1).
DEATH_CAUSES = ("kill", "pillow", "mountains", "sacrifice", "ability", "vote", "eagle", "whale")
(
    D_KILL,
    D_PILLOW,
    D_MOUNTAINS,
    D_SACRIFICE,
    D_ABILITY,
    D_VOTE,
    D_EAGLE,
    D_WHALE,
) = range(1, len(DEATH_CAUSES) + 1)

# Seat policy kinds.
POL_RANDOM, POL_BASIC, POL_SCRIPT, POL_BY_SIDE, POL_REASONING = 0, 1, 2, 3, 4  # SCRIPT: tests
MAX_SCRIPT = 64  # scripted decisions a seat can hold
POLICY_KIND_IDS = {
    "random": POL_RANDOM,
    "basic": POL_BASIC,
    "by_side": POL_BY_SIDE,
    "reasoning": POL_REASONING,
}

# Tables.params: scalar rules, then per card and per character.
_p = Offsets()
P_PLAYERS = _p(1)
P_TURN_CAP = _p(1)  # RM-10
P_HAND = _p(1)  # RM-4: draw or discard to this many
P_OPEN_HAND = _p(1)  # RM-3: cards dealt
P_FEATHER_REDRAW = _p(1)  # RM-3: 1 if a non-Raven redraws Feathers in the opening
P_MULLIGANS = _p(1)  # RM-3
P_DISCARD_DRAW = _p(1)  # RM-4: cards discarded to draw one
P_CANDLE = _p(1)  # Candle: cards looked at
P_TORCH = _p(1)  # Torch: cards revealed
P_MINE_REVEAL = _p(1)  # Abandoned Mine: cards revealed
P_MINE_KEEP = _p(1)  # Abandoned Mine: cards kept
P_BACKPACK = _p(1)  # RM-25: cards a Backpack stores
P_DECK_N = _p(1)  # cards in the whole deck
P_POOL_N = _p(1)  # characters in the pool
P_ALWAYS_N = _p(1)  # of which the first P_ALWAYS_N are always dealt
P_COUNT = _p(NC)  # + card: copies in the deck
P_POOL = _p(NCH)  # + i: i-th character of the pool (the always-dealt ones first)
P_BELIEFS = _p(1)  # 1: some seat plays a reasoning policy (the engine keeps beliefs: beliefs.py)
P_TALK = _p(1)  # ENGINE-15: 1 if a player may make a claim before its action (rules.talk)
N_PARAMS = _p.end

# The ``basic`` policy's weights: name, default, description (schema.BasicPolicy has one field
# per entry, in this order; Tables.weights[p, W_*]).
BASIC_WEIGHTS: tuple[tuple[str, float, str], ...] = (
    ("kill", 1.0, "value of killing a player it knows is on another side"),
    ("stun", 0.5, "value of stunning a player it knows is on another side"),
    ("look", 0.6, "value of looking at a hand or a character it does not know"),
    ("search", 0.45, "value of a search or draw that brings a card it wants"),
    ("cycle", 0.15, "value of discarding two cards to draw one"),
    ("possess", 1.0, "possessor: value of passing a Feather to a player not known to be immune"),
    ("shield", 1.0, "value of a reaction that saves itself or a trusted player"),
    ("cancel", 0.8, "value of cancelling an enemy's card with Rod or Rat Treachery"),
    ("bluff", 0.05, "possessor: chance of discarding a drawn Feather to look innocent"),
    ("pillow", 1.0, "chance of revealing a Pillow passed to a player known to be an enemy"),
    ("pillow_unknown", 0.0, "chance of revealing a Pillow passed to a player of unknown side"),
    ("sacrifice", 0.0, "Shark Bouncer: chance of dying for a trusted player"),
    ("barricade", 0.3, "possessor's side: value of barricading a Room"),
)
W_NAMES = tuple(w[0] for w in BASIC_WEIGHTS)
(
    W_KILL,
    W_STUN,
    W_LOOK,
    W_SEARCH,
    W_CYCLE,
    W_POSSESS,
    W_SHIELD,
    W_CANCEL,
    W_BLUFF,
    W_PILLOW,
    W_PILLOW_UNKNOWN,
    W_SACRIFICE,
    W_BARRICADE,
) = range(N_BASIC_WEIGHTS := len(BASIC_WEIGHTS))

# The ``reasoning`` policy's weights beyond basic's (schema.ReasoningPolicy; Tables.weights[p,
# W_*] after the basic ones): name, default, description.
REASONING_WEIGHTS: tuple[tuple[str, float, str], ...] = (
    ("suspect", 0.6, "the Family treats a player as an enemy once its belief that the player "
     "is on another side reaches this"),
    ("suspect_slope", 0.5, "how far that threshold falls as the evil side it believes in grows "
     "(times the believed evil share of the living)"),
    ("trust", 0.9, "it trusts a player once its belief that the player is on its side reaches "
     "this"),
    ("hide", 1.0, "an evil side's cost of raising the table's suspicion of itself from 0 to 1 "
     "(in the units of kill)"),
    ("silence", 0.5, "an evil side's extra value of killing a player who has looked at it "
     "while it showed its side (times kill)"),
    ("tell", 1.0, "table talk (rules.talk): the Family's value of telling the table what it "
     "knows (a Feather it saw or received, an evil character), times its belief; 0 withholds"),
    ("accuse", 0.5, "table talk: the Family's value of accusing a player it treats as an enemy "
     "without proof, times its belief"),
    ("lie", 0.5, "table talk: an evil side's value of accusing a player who saw its side (a "
     "quarter of it, times its belief, for any other player not on its side)"),
    ("vouch", 0.1, "table talk: the value of saying 'I am Family' (a lie on an evil side)"),
)  # fmt: skip
W_SUSPECT, W_SUSPECT_SLOPE, W_TRUST, W_HIDE, W_SILENCE, W_TELL, W_ACCUSE, W_LIE, W_VOUCH = range(
    N_BASIC_WEIGHTS, N_WEIGHTS := N_BASIC_WEIGHTS + len(REASONING_WEIGHTS)
)

# The ``basic`` policy's default card values (0-10: how much a seat wants the card in hand; the
# config's ``values:`` of a basic policy changes any of them; Tables.values[p, card]).
CARD_VALUES: dict[str, float] = {
    "basement": 3, "bathroom": 2, "bedroom": 3, "dining_room": 3, "fathers_study": 4,
    "guestroom": 2, "kitchen": 4, "library": 4, "exchange": 2, "get_over_here": 3, "vase": 4,
    "axe": 6, "candle": 2, "rifle": 8, "broken_bottle": 6, "pillow": 3, "feather": 0,
    "haymaker": 4, "manor_plan": 3, "bottle": 5, "knife": 6, "backpack": 1, "barricade": 2,
    "compass": 3, "drink": 4, "harpoon": 8, "torch": 3, "treasure_map": 4, "zakus_camera": 4,
    "avoid": 4, "dodge": 4, "evade": 7, "lifebuoy": 5, "rod": 6, "rat_treachery": 6,
    "abandoned_mine": 4, "cabin": 4, "cave": 3, "coast": 2, "forest": 4, "mountains": 5,
    "the_inn": 2,
}  # fmt: skip
assert tuple(CARD_VALUES) == CARD_NAMES

# Tables.seat[p, SP_*]: the seat's policy settings that are integers.
_s = Offsets()
SP_KIND = _s(1)
SP_MULLIGAN = _s(1)  # basic: mulligans a hand with fewer useful cards than this
SP_SCRIPT_N = _s(1)  # POL_SCRIPT: scripted values in Tables.script[p]
SP_FAMILY_KIND = _s(1)  # POL_BY_SIDE: the kind of a seat dealt a Family character
SP_EVIL_KIND = _s(1)  # POL_BY_SIDE: the kind of a seat dealt an evil character
N_SEAT = _s.end

# Telemetry columns, State.pl[p, PL_TELE + column] (telemetry_names).
_t = Offsets()
TE_DRAWN = _t(NC)  # + card: drawn from the deck (Feathers discarded on draw included)
TE_PLAYED = _t(NC)  # + card: played from hand (Rooms and Locations: put into play)
TE_RECEIVED = _t(NC)  # + card: received in an exchange
TE_USED = _t((ROOM1 - ROOM0) + (LOC1 - LOC0))  # + room or location: used while in play
TE_DIED = _t(len(DEATH_CAUSES))  # + cause - 1
N_TELE = _t.end


def used_index(c: int) -> int:
    """The TE_USED offset of room or location ``c``."""
    return c - ROOM0 if c < ROOM1 else (ROOM1 - ROOM0) + (c - LOC0)


def telemetry_names() -> tuple[str, ...]:
    cols = [f"drawn__{c}" for c in CARD_NAMES]
    cols += [f"played__{c}" for c in CARD_NAMES]
    cols += [f"received__{c}" for c in CARD_NAMES]
    cols += [f"used__{c}" for c in (*ROOM_NAMES, *LOCATION_NAMES)]
    cols += [f"died__{d}" for d in DEATH_CAUSES]
    assert len(cols) == N_TELE
    return tuple(cols)


class Tables(NamedTuple):
    """The compiled rules: the only thing the kernels see."""

    params: np.ndarray  # int32[N_PARAMS]; P_*
    seat: np.ndarray  # int32[MAXP, N_SEAT]; SP_* per seat
    weights: np.ndarray  # float64[MAXP, N_WEIGHTS]; W_* per seat
    # float64[MAXP + BEL_ROWS, NC]: the basic policy's card values per seat, then the reasoning
    # policy's self-play tables flattened into the rows after them (BEL_*: beliefs.py reads them
    # with ``belief_table``; a separate array in Tables would make every call that passes ``tb``
    # slower, and a config without a reasoning seat never reads them)
    values: np.ndarray
    script: np.ndarray  # int32[MAXP, MAX_SCRIPT]; POL_SCRIPT seats' decisions (tests)


class ReasoningTables(Tables):
    """The Tables of a line-up with a reasoning seat (``P_BELIEFS``): the same arrays, another
    type. numba compiles a function once per type of its arguments, so the belief updates
    (beliefs.py's ``*_if`` gates) are compiled only into the kernels of this type, and a
    line-up without a reasoning seat does not pay their compile (about a tenth of the engine's)."""

    __slots__ = ()


@dataclass(frozen=True)
class Compiled:
    """Kernel tables plus the names needed to label their output."""

    tb: Tables
    seat_policies: tuple[str, ...]
    columns: tuple[str, ...]
    players: int


def compile_tables(config: Any) -> Compiled:
    """Validated RunConfig -> Compiled."""
    rules = config.rules
    params = np.zeros(N_PARAMS, np.int64)
    params[P_PLAYERS] = config.players
    params[P_TURN_CAP] = rules.turn_cap
    params[P_HAND] = rules.hand_size
    params[P_OPEN_HAND] = rules.opening.hand
    params[P_FEATHER_REDRAW] = int(rules.opening.feather_redraw)
    params[P_MULLIGANS] = rules.opening.mulligans
    params[P_TALK] = int(rules.talk)
    n = rules.numbers
    params[P_DISCARD_DRAW] = n.discard_to_draw
    params[P_CANDLE] = n.candle_look
    params[P_TORCH] = n.torch_reveal
    params[P_MINE_REVEAL] = n.mine_reveal
    params[P_MINE_KEEP] = n.mine_keep
    params[P_BACKPACK] = n.backpack_slots
    deck_n = 0
    for c, name in enumerate(CARD_NAMES):
        k = int(rules.deck.get(name, 0))
        params[P_COUNT + c] = k
        deck_n += k
    params[P_DECK_N] = deck_n
    always = list(rules.characters.always)
    pool = always + [ch for ch in rules.characters.pool if ch not in always]
    params[P_POOL_N] = len(pool)
    params[P_ALWAYS_N] = len(always)
    for i, ch in enumerate(pool):
        params[P_POOL + i] = CHARACTER_NAMES.index(ch)

    seat = np.zeros((MAXP, N_SEAT), np.int64)
    weights = np.zeros((MAXP, N_WEIGHTS), np.float64)
    seat[:, SP_MULLIGAN] = 1
    values = np.tile(np.array(list(CARD_VALUES.values()), np.float64), (MAXP, 1))
    for p, name in enumerate(config.seats):
        pol = config.policies[name]
        seat[p, SP_KIND] = POLICY_KIND_IDS[pol["kind"]]
        if pol["kind"] == "by_side":
            seat[p, SP_FAMILY_KIND] = POLICY_KIND_IDS[pol["family"]]
            seat[p, SP_EVIL_KIND] = POLICY_KIND_IDS[pol["evil"]]
        if pol["kind"] in ("basic", "by_side", "reasoning"):
            seat[p, SP_MULLIGAN] = int(pol.get("mulligan_below", 1))
            for j, w in enumerate(W_NAMES):
                weights[p, j] = float(pol.get(w, BASIC_WEIGHTS[j][1]))
            for j, (w, default, _) in enumerate(REASONING_WEIGHTS):
                weights[p, N_BASIC_WEIGHTS + j] = float(pol.get(w, default))
            for card, v in (pol.get("values") or {}).items():
                values[p, CARD_NAMES.index(card)] = float(v)
        if POL_REASONING in (seat[p, SP_KIND], seat[p, SP_FAMILY_KIND], seat[p, SP_EVIL_KIND]):
            params[P_BELIEFS] = 1
    lik, bluff, poss = belief_tables() if params[P_BELIEFS] else no_belief_tables()
    flat = np.zeros(BEL_ROWS * NC, np.float64)
    flat[BEL_LIK : BEL_LIK + lik.size] = lik.ravel()
    flat[BEL_BLUFF] = bluff[0]
    flat[BEL_POSS : BEL_POSS + poss.size] = poss.ravel()
    tb = (ReasoningTables if params[P_BELIEFS] else Tables)(
        params=params,
        seat=seat,
        weights=weights,
        values=np.concatenate([values, flat.reshape(BEL_ROWS, NC)]),
        script=np.zeros((MAXP, MAX_SCRIPT), np.int64),
    )
    return Compiled(
        tb=tb, seat_policies=tuple(config.seats), columns=telemetry_names(), players=config.players
    )


BELIEFS_FILE = Path(__file__).with_name("beliefs.json")  # benchmarks/fit_beliefs.py writes it
N_CLS, N_REL, N_POSS_T = 10, 3, 16  # beliefs.py's (it imports this module, not the other way)
# The belief tables' places in Tables.values' rows after the seats', flattened (C order):
# lik[cls, side, relation], the Raven's bluff rate, poss[players, round, possessor]
BEL_LIK = 0
BEL_BLUFF = BEL_LIK + N_CLS * 2 * N_REL
BEL_POSS = BEL_BLUFF + 1
BEL_ROWS = -(-(BEL_POSS + (MAXP + 1) * N_POSS_T * 2) // NC)


def belief_tables(path: Path = BELIEFS_FILE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lik, lik_bluff, poss) of the fitted self-play tables (beliefs.json: ``lik[class][side]
    [relation]``, ``bluff``, ``possessed[players][round] = [raven, horseman]``)."""
    data = json.loads(path.read_text())
    lik = np.array(data["lik"], np.float64)
    if lik.shape != (N_CLS, 2, N_REL) or not np.all(np.isfinite(lik)) or (lik < 0).any():
        raise ValueError(f"{path}: lik must be {N_CLS} x 2 x {N_REL} rates >= 0")
    poss = np.zeros((MAXP + 1, N_POSS_T, 2), np.float64)
    for players, rows in data["possessed"].items():
        k = int(players)
        for r in range(N_POSS_T):
            poss[k, r] = rows[min(r, len(rows) - 1)]
    return lik, np.array([float(data["bluff"])], np.float64), poss


def no_belief_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The belief tables' shapes, all 0: a config without a reasoning seat keeps no beliefs."""
    return (
        np.zeros((N_CLS, 2, N_REL), np.float64),
        np.zeros(1, np.float64),
        np.zeros((MAXP + 1, N_POSS_T, 2), np.float64),
    )


def with_script(compiled: Compiled, scripts: dict[int, list[int]]) -> Compiled:
    """A copy of ``compiled`` whose seats in ``scripts`` make the listed decisions, in order, then
    play as ``basic`` (tests). Each decision takes one value (policies.py says which), an action
    four: kind, card, target, option."""
    seat = compiled.tb.seat.copy()
    script = compiled.tb.script.copy()
    for p, values in scripts.items():
        if len(values) > MAX_SCRIPT:
            raise ValueError(f"seat {p}: at most {MAX_SCRIPT} scripted values")
        seat[p, SP_KIND] = POL_SCRIPT
        seat[p, SP_SCRIPT_N] = len(values)
        script[p, : len(values)] = values
    return Compiled(
        tb=compiled.tb._replace(seat=seat, script=script),
        seat_policies=compiled.seat_policies,
        columns=compiled.columns,
        players=compiled.players,
    )
