"""Corvids config models: the ``rules:`` section and the policy settings.

Defaults are the rulebook's (``rulebooks/corvids.txt``) and RULINGS.md's (CV-1 to CV-12); every
number marked *(config)* there is a field here, the physical model's included (CV-8, CV-9).
Models are strict (YAML ``yes`` or ``"4"`` is not a number) and reject unknown keys; every
field's description cites its ruling and is what ``balance games corvids`` shows.

The deck (CV-2): ``cards.double_sided.count`` cards whose two sides are drawn, anew at every
game's set-up, uniformly and independently from ``cards.double_sided.items`` (a list: an item
listed twice is twice as likely; both sides of a card may show the same item), and the
single-sided cards counted by item. Scoring (CV-3) is :func:`score_cards`, which the engine
mirrors: a set's ``points`` are what its ``size`` cards score *in all*, in place of their
per-card values.

``birds`` and ``scoring.sets`` hold exactly the birds and sets they list; a bird or set written
``null`` is taken out (``extends`` merges mappings key by key, so this is how a config removes
one its parent has). A bird's missing fields are that bird's defaults.

Cross-field checks raise ``ValueError("<key.path>: <problem>")`` relative to the model, or
``KeyConflict`` for keys a config and its ``extends`` parent may have written apart. The check
that needs the line-up too (a bird for every player) is ``check_config``, which the plugin
exposes to ``RunConfig`` (balance.config).
"""

from __future__ import annotations

import difflib
import math
from collections import Counter
from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from balance.errors import KeyConflict
from balance.games.base import check_handicap

# Item names (tables.py numbers them in this order): the six of double-sided cards, then the
# three single-sided ones (CV-2).
DOUBLE_ITEMS = ("acorn", "earring", "nut", "paperclip", "key", "button")
SINGLE_ITEMS = ("string", "ticket", "coin")
ITEM_NAMES = DOUBLE_ITEMS + SINGLE_ITEMS

# CV-10: the eight bird cards; the mat has one nest per bird card.
BIRD_NAMES = ("raven", "crow", "rook", "jackdaw", "magpie", "jay", "chough", "nutcracker")
NESTS = len(BIRD_NAMES)

# CV-10: the default favourites, eight different items (the ticket is nobody's): the jay caches
# acorns, the nutcracker nuts, the magpie takes earrings; the rest spread over the other items.
DEFAULT_BIRDS: dict[str, dict[str, Any]] = {
    name: {"nest": nest, "favourite": favourite, "bonus_per_card": 1}
    for nest, (name, favourite) in enumerate(
        zip(
            BIRD_NAMES,
            ("key", "button", "coin", "paperclip", "earring", "acorn", "string", "nut"),
            strict=True,
        )
    )
}

# Physics field -> the params entry of ``physics`` it fills (tables.py copies them in order).
PHYSICS_PARAMS = {
    "mat_width": "PH_MAT_W",
    "mat_height": "PH_MAT_H",
    "nest_radius": "PH_NEST_R",
    "nest_ellipse_x": "PH_NEST_AX",
    "nest_ellipse_y": "PH_NEST_AY",
    "nest_phase": "PH_NEST_PHASE",
    "card_width": "PH_CARD_W",
    "card_height": "PH_CARD_H",
    "feather_radius": "PH_FEATHER_R",
    "scatter_sd_x": "PH_SCATTER_SD_X",
    "scatter_sd_y": "PH_SCATTER_SD_Y",
    "setup_retries": "PH_SCATTER_TRIES",
    "drop_retries": "PH_DROP_TRIES",
    "peck_offset_sd": "PH_PECK_OFFSET_SD",
    "peck_turn_sd": "PH_PECK_TURN_SD",
    "displacement_sd": "PH_DISPLACE_SD",
    "displacement_direction_sd": "PH_DISPLACE_DIR_SD",
    "displacement_turn_sd": "PH_DISPLACE_TURN_SD",
    "visibility_cols": "PH_VIS_NX",
    "visibility_rows": "PH_VIS_NY",
    "visibility_edge": "PH_VIS_EDGE",
    "tolerance": "PH_EPS",
}
# Physics fields that are a choice, not a number: field -> (the params entry, each choice's value
# there); tables.py copies them after PHYSICS_PARAMS (physics.NEST_COMPLETE, NEST_OVERLAP).
PHYSICS_CHOICES = {"nest_cover": ("PH_NEST_COVER", {"complete": 1.0, "overlap": 0.0})}

MAX_CARDS = 200  # trash cards in the whole deck
MAX_FEATHERS = 100
MAX_POINTS = 100  # a card's value, a set's points, a bird's bonus per card
MAX_WEIGHT = 1e3  # a greedy weight, either sign
MAX_CLUMSINESS = 10.0

_STRICT = ConfigDict(extra="forbid", strict=True)


def _hint(name: object, names: tuple[str, ...], otherwise: str) -> str:
    """`` (did you mean 'x'?)`` for a close name, else ``otherwise``."""
    close = difflib.get_close_matches(str(name), names, n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else otherwise


def _unknown(key: str, what: str, name: object, names: tuple[str, ...]) -> ValueError:
    listed = f" ({what}s: {', '.join(names)})"
    return ValueError(f"{key}: no {what} named '{name}'" + _hint(name, names, listed))


def _drop_nulls(data: Any, key: str) -> Any:
    """``data`` with the entries of its mapping ``key`` that are ``null`` taken out."""
    if isinstance(data, dict) and isinstance(data.get(key), dict):
        return {**data, key: {k: v for k, v in data[key].items() if v is not None}}
    return data


_Count = Annotated[int, Field(ge=0, le=MAX_CARDS)]
_Points = Annotated[int, Field(ge=0, le=MAX_POINTS)]


# -------------------------------------------------------------------------------------- cards


class DoubleSided(BaseModel):
    """CV-2: the double-sided cards, an item on each side."""

    model_config = _STRICT

    count: _Count = Field(28, description="CV-2: double-sided trash cards in the deck")
    items: list[str] = Field(
        default_factory=lambda: list(DOUBLE_ITEMS),
        min_length=1,
        max_length=100,
        description="CV-2: each side of each double-sided card is drawn at set-up, uniformly and "
        "independently, from this list (an item listed twice is twice as likely; both sides may "
        f"show the same item). Any of: {', '.join(DOUBLE_ITEMS)}",
    )

    @model_validator(mode="after")
    def _double_items(self) -> DoubleSided:
        for i, name in enumerate(self.items):
            if name in SINGLE_ITEMS:
                raise ValueError(
                    f"items[{i}]: {name} is single-sided (CV-2): count it in single_sided"
                )
            if name not in DOUBLE_ITEMS:
                raise _unknown(f"items[{i}]", "double-sided item", name, DOUBLE_ITEMS)
        return self

    def weights(self) -> dict[str, float]:
        """Chance of each double-sided item on one side, in DOUBLE_ITEMS order."""
        counts = Counter(self.items)
        return {name: counts[name] / len(self.items) for name in DOUBLE_ITEMS}


class SingleSided(BaseModel):
    """CV-2: the single-sided cards (an item on the front, a blank back), counted by item."""

    model_config = _STRICT

    string: _Count = Field(4, description="CV-2, CV-4: string cards")
    ticket: _Count = Field(4, description="CV-2, CV-4: ticket cards")
    coin: _Count = Field(4, description="CV-2, CV-3: coin cards")


class Cards(BaseModel):
    """CV-2: the trash cards (40 by default: 28 double-sided, 4 string, 4 ticket, 4 coin)."""

    model_config = _STRICT

    double_sided: DoubleSided = Field(
        default_factory=DoubleSided, description="CV-2: the double-sided cards"
    )
    single_sided: SingleSided = Field(
        default_factory=SingleSided, description="CV-2: the single-sided cards"
    )

    @model_validator(mode="after")
    def _check(self) -> Cards:
        total = self.total()
        if total == 0:  # counts from several files
            problem = "the deck holds no card (CV-2: the game is played until the pile is empty)"
            raise KeyConflict({"double_sided.count": problem, "single_sided": problem})
        if total > MAX_CARDS:
            problem = f"the deck holds at most {MAX_CARDS} cards, got {total}"
            raise KeyConflict({"double_sided.count": problem, "single_sided": problem})
        return self

    def total(self) -> int:
        """Trash cards in the deck."""
        single = self.single_sided
        return self.double_sided.count + single.string + single.ticket + single.coin


# ------------------------------------------------------------------------------------ scoring


class Values(BaseModel):
    """CV-3: the points of one collected card of each item (every card is worth at least 1 in
    the rulebook; a face-down coin is ``coin_face_down`` instead)."""

    model_config = _STRICT

    acorn: _Points = Field(1, description="CV-3: points of an acorn (up side)")
    earring: _Points = Field(1, description="CV-3: points of an earring (up side)")
    nut: _Points = Field(1, description="CV-3: points of a nut (up side)")
    paperclip: _Points = Field(1, description="CV-3: points of a paperclip (up side)")
    key: _Points = Field(1, description="CV-3: points of a key (up side)")
    button: _Points = Field(1, description="CV-3: points of a button (up side)")
    string: _Points = Field(1, description="CV-3: points of a string, either way up")
    ticket: _Points = Field(1, description="CV-3: points of a ticket, either way up")
    coin: _Points = Field(1, description="CV-3: points of a face-up coin")


class SetBonus(BaseModel):
    """CV-3: ``size`` cards of the item score ``points`` in all, in place of their values; every
    complete group of ``size`` is a set, the rest score their values."""

    model_config = _STRICT

    size: int = Field(3, ge=1, le=MAX_CARDS, description="CV-3: cards of the item in one set")
    points: _Points = Field(
        5,
        description="CV-3: what one set scores in all (not a bonus on top: 3 keys score 5, "
        "2 more than their values)",
    )


def _default_sets() -> dict[str, SetBonus]:
    return {"key": SetBonus(), "button": SetBonus()}


class Scoring(BaseModel):
    """CV-3: what a collected card is worth at the end (see :func:`score_cards`)."""

    model_config = _STRICT

    values: Values = Field(default_factory=Values, description="CV-3: points per card, by item")
    coin_face_down: _Points = Field(
        3, description="CV-3: points of a coin collected face down (it keeps its orientation)"
    )
    sets: dict[str, SetBonus] = Field(
        default_factory=_default_sets,
        description="CV-3: set bonuses by item (default: 3 keys for 5, 3 buttons for 5); a set "
        "written null is taken out",
    )

    @model_validator(mode="before")
    @classmethod
    def _drop_sets(cls, data: Any) -> Any:
        return _drop_nulls(data, "sets")

    @field_validator("sets")
    @classmethod
    def _set_items(cls, sets: dict[str, SetBonus]) -> dict[str, SetBonus]:
        for name in sets:
            if name not in ITEM_NAMES:
                raise _unknown(name, "item", name, ITEM_NAMES)
        return sets


# -------------------------------------------------------------------------------------- birds


class Bird(BaseModel):
    """CV-10: a bird card: its nest on the mat and the bonus of its favourite item (CV-3)."""

    model_config = _STRICT

    nest: int = Field(ge=0, lt=NESTS, description=f"CV-10: its nest on the mat, 0-{NESTS - 1}")
    favourite: str = Field(description=f"CV-10: its favourite item, one of {', '.join(ITEM_NAMES)}")
    bonus_per_card: _Points = Field(
        1, description="CV-3: points for each collected card of its favourite item"
    )

    @field_validator("favourite")
    @classmethod
    def _known_item(cls, name: str) -> str:
        if name not in ITEM_NAMES:
            raise ValueError(
                f"no item named '{name}'" + _hint(name, ITEM_NAMES, f" ({', '.join(ITEM_NAMES)})")
            )
        return name


def _default_birds() -> dict[str, Bird]:
    return {name: Bird(**bird) for name, bird in DEFAULT_BIRDS.items()}


# ------------------------------------------------------------------------------------ physics


class Physics(BaseModel):
    """CV-8, CV-9: the physical model of the mat and the trash pile (lengths in millimetres,
    angles in radians; ``physics.py`` describes the model). Coordinates are centred on the mat;
    nest ``k`` lies at angle ``nest_phase + 2 pi k / 8`` on the ellipse whose semi-axes are
    ``nest_ellipse_x`` of the mat's width and ``nest_ellipse_y`` of its height. One field per
    entry of ``physics``' params array (``PHYSICS_PARAMS``; a choice: ``PHYSICS_CHOICES``), with
    its default."""

    model_config = _STRICT

    mat_width: float = Field(
        560.0, ge=100, le=5000, allow_inf_nan=False, description="CV-8: the mat's width (mm)"
    )
    mat_height: float = Field(
        380.0, ge=100, le=5000, allow_inf_nan=False, description="CV-8: the mat's height (mm)"
    )
    nest_radius: float = Field(
        22.0, gt=0, le=1000, allow_inf_nan=False, description="CV-8: a nest circle's radius (mm)"
    )
    nest_ellipse_x: float = Field(
        0.35,
        ge=0,
        le=0.5,
        allow_inf_nan=False,
        description="CV-8: the nests' ellipse's horizontal semi-axis, as a fraction of the mat's "
        "width",
    )
    nest_ellipse_y: float = Field(
        0.32,
        ge=0,
        le=0.5,
        allow_inf_nan=False,
        description="CV-8: the nests' ellipse's vertical semi-axis, as a fraction of the mat's "
        "height",
    )
    nest_phase: float = Field(
        math.pi / 8,
        ge=-7,
        le=7,
        allow_inf_nan=False,
        description="CV-8: the angle of nest 0 on the ellipse (rad); the eight nests are evenly "
        "spaced in angle from it",
    )
    card_width: float = Field(
        63.0, ge=5, le=1000, allow_inf_nan=False, description="CV-8: a trash card's width (mm)"
    )
    card_height: float = Field(
        88.0, ge=5, le=1000, allow_inf_nan=False, description="CV-8: a trash card's height (mm)"
    )
    feather_radius: float = Field(
        9.0, gt=0, le=100, allow_inf_nan=False, description="CV-8: a feather disc's radius (mm)"
    )
    scatter_sd_x: float = Field(
        95.0,
        ge=0,
        le=5000,
        allow_inf_nan=False,
        description="CV-8: set-up scatters card centres around the mat's centre with this "
        "standard deviation along its width (mm)",
    )
    scatter_sd_y: float = Field(
        60.0,
        ge=0,
        le=5000,
        allow_inf_nan=False,
        description="CV-8: ... and this one along its height (mm)",
    )
    setup_retries: int = Field(
        10_000,
        ge=1,
        le=1_000_000,
        description="CV-8: scatters tried until every card lies fully on the mat and every nest "
        "is covered (then set-up fails)",
    )
    drop_retries: int = Field(
        100,
        ge=1,
        le=1_000_000,
        description="CV-1, CV-8, CV-11: draws of a dropped feather's point before it lies where "
        "it last fell",
    )
    peck_offset_sd: float = Field(
        3.0,
        ge=0,
        le=1000,
        allow_inf_nan=False,
        description="CV-9: a pecked card is set back this far off, standard deviation per axis "
        "(mm)",
    )
    peck_turn_sd: float = Field(
        0.05,
        ge=0,
        le=3.0,
        allow_inf_nan=False,
        description="CV-9: a pecked card is set back turned by this much, standard deviation (rad)",
    )
    displacement_sd: float = Field(
        30.0,
        ge=0,
        le=1000,
        allow_inf_nan=False,
        description="CV-9: the scale of a resting piece's displacement when its card is pecked, "
        "for each unit of the pecking policy's clumsiness (mm)",
    )
    displacement_direction_sd: float = Field(
        0.5,
        ge=0,
        le=7,
        allow_inf_nan=False,
        description="CV-9: the spread of a displaced piece's direction around away-from-the-aim "
        "(rad)",
    )
    displacement_turn_sd: float = Field(
        0.3,
        ge=0,
        le=7,
        allow_inf_nan=False,
        description="CV-9: the turn of a displaced card, standard deviation for each unit of "
        "clumsiness (rad)",
    )
    visibility_cols: int = Field(
        7,
        ge=1,
        le=64,
        description='CV-8: "any part visible" is tested at a grid of points over a card, this '
        "many across its width",
    )
    visibility_rows: int = Field(
        9, ge=1, le=64, description="CV-8: ... and this many along its height"
    )
    visibility_edge: int = Field(
        16, ge=0, le=256, description="CV-8: ... and this many more on each edge of its outline"
    )
    tolerance: float = Field(
        1e-6,
        ge=0,
        le=1,
        allow_inf_nan=False,
        description="CV-8: outlines closer than this count as touching or overlapping (mm)",
    )
    nest_cover: Literal["complete", "overlap"] = Field(
        "complete",
        description="CV-8: what set-up makes of every nest: 'complete', the rulebook's reading "
        "(all eight nests completely covered, no point of a circle visible; cards are pushed over "
        "the nests the scatter leaves bare), or 'overlap', the looser one (some card overlaps "
        "each circle; the pile is scattered again until one does)",
    )

    @model_validator(mode="after")
    def _check(self) -> Physics:
        diagonal = math.hypot(self.card_width, self.card_height)
        shorter = min(self.mat_width, self.mat_height)
        if diagonal > shorter:  # a config and its parent may set one each
            card = (
                f"a card ({self.card_width:g} x {self.card_height:g} mm) turned any way must fit "
                f"on the mat (CV-8: set-up turns cards at random), but its diagonal "
                f"{diagonal:.1f} mm is longer than the mat's shorter side {shorter:g} mm"
            )
            mat = (
                f"the mat ({self.mat_width:g} x {self.mat_height:g} mm) is too small to hold a "
                f"card turned any way: its shorter side {shorter:g} mm is less than the card's "
                f"diagonal {diagonal:.1f} mm (CV-8)"
            )
            raise KeyConflict(
                {"mat_width": mat, "mat_height": mat, "card_width": card, "card_height": card}
            )
        for axis, size, fraction in (
            ("x", self.mat_width, self.nest_ellipse_x),
            ("y", self.mat_height, self.nest_ellipse_y),
        ):
            reach = fraction * size + self.nest_radius
            if reach > size / 2:
                side = "width" if axis == "x" else "height"
                why = (
                    f"the nests must lie fully on the mat (CV-8): the ellipse's semi-axis "
                    f"{fraction:g} x {size:g} mm plus the nest radius {self.nest_radius:g} mm is "
                    f"{reach:.1f} mm, more than half the mat's {side} ({size / 2:g} mm)"
                )
                raise KeyConflict(
                    {"nest_radius": why, f"nest_ellipse_{axis}": why, f"mat_{side}": why}
                )
        if self.nest_cover == "complete" and 2 * self.nest_radius >= min(
            self.card_width, self.card_height
        ):  # a config and its parent may set one each
            why = (
                f"a nest (radius {self.nest_radius:g} mm) must fit inside one card "
                f"({self.card_width:g} x {self.card_height:g} mm) for set-up to cover it "
                f"completely (CV-8: nest_cover 'complete'); make the nests smaller or the cards "
                f"larger, or write nest_cover: overlap"
            )
            raise KeyConflict(
                {"nest_radius": why, "card_width": why, "card_height": why, "nest_cover": why}
            )
        return self


# -------------------------------------------------------------------------------------- rules


class Steal(BaseModel):
    """CV-5, CV-11: stealing from a player whose nest is uncovered."""

    model_config = _STRICT

    cost: int = Field(
        2,
        ge=0,
        le=MAX_FEATHERS,
        description="CV-11: feathers a steal pays back onto the pile (a seat with fewer cannot "
        "steal)",
    )


class Rules(BaseModel):
    """The ``rules:`` section of a Corvids config. Ties (most feathers, then shared: CV-7) and
    the turn (CV-5) are not config."""

    model_config = _STRICT

    feathers: int = Field(
        15,
        ge=0,
        le=MAX_FEATHERS,
        description="CV-1: feather tokens, divided as evenly as possible and dropped onto the pile",
    )
    cards: Cards = Field(default_factory=Cards, description="CV-2: the trash cards")
    scoring: Scoring = Field(default_factory=Scoring, description="CV-3: what cards score")
    birds: dict[str, Bird] = Field(
        default_factory=_default_birds,
        description="CV-10: the bird cards dealt from (one per player, at random), each with its "
        "nest and favourite; a bird written null is taken out, a bird's missing fields are its "
        f"defaults. Any of: {', '.join(BIRD_NAMES)}",
    )
    steal: Steal = Field(default_factory=Steal, description="CV-11: stealing")
    physics: Physics = Field(
        default_factory=Physics, description="CV-8, CV-9: the physical model of the pile"
    )
    handicap: list[Annotated[int, Field(ge=-MAX_POINTS, le=MAX_POINTS)]] = Field(
        default_factory=list,
        description="points added to the final score of each place in the turn order (index 0:"
        " the first player, the dataset's order 0) before CV-7's ranks and ties; the stored score"
        " includes them; missing places get 0 (at most one entry per player, each"
        f" -{MAX_POINTS} to {MAX_POINTS})",
    )

    @model_validator(mode="before")
    @classmethod
    def _fill_birds(cls, data: Any) -> Any:
        data = _drop_nulls(data, "birds")
        if not isinstance(data, dict) or not isinstance(data.get("birds"), dict):
            return data
        birds = {}
        for name, bird in data["birds"].items():
            if name not in BIRD_NAMES:
                raise _unknown(f"birds.{name}", "bird", name, BIRD_NAMES)
            birds[name] = {**DEFAULT_BIRDS[name], **bird} if isinstance(bird, dict) else bird
        return {**data, "birds": birds}

    @model_validator(mode="after")
    def _check(self) -> Rules:
        if self.steal.cost > self.feathers:  # a config and its parent may set one each
            raise KeyConflict(
                {
                    "steal.cost": f"a steal costing {self.steal.cost} feathers could never be "
                    f"paid: the game has {self.feathers} (CV-11)",
                    "feathers": f"{self.feathers} feathers are fewer than a steal costs "
                    f"(steal.cost {self.steal.cost}): no one could ever steal (CV-11)",
                }
            )
        if not self.birds:
            raise ValueError("birds: no bird left (CV-10: one per player)")
        nests: dict[int, str] = {}
        for name, bird in self.birds.items():
            if bird.nest in nests:  # a config and its parent may set one each
                other = nests[bird.nest]
                raise KeyConflict(
                    {
                        f"birds.{name}.nest": f"nest {bird.nest} is {other}'s too (CV-10: each "
                        "bird has its own nest)",
                        f"birds.{other}.nest": f"nest {bird.nest} is {name}'s too (CV-10: each "
                        "bird has its own nest)",
                    }
                )
            nests[bird.nest] = name
        return self

    def deck_size(self) -> int:
        return self.cards.total()


def check_config(config: Any) -> None:
    """The check of a validated RunConfig that needs both its line-up and its rules (the plugin's
    ``check_config``, called by ``RunConfig``): a bird for every player (CV-10), one handicap entry
    at most per place in the turn order. Raises KeyConflict with key paths from the top of the
    config."""
    players, birds, handicap = config.players, config.rules.birds, config.rules.handicap
    check_handicap(players, handicap)
    if players > len(birds):
        raise KeyConflict(
            {
                "players": f"{players} players need {players} birds; rules.birds has {len(birds)}"
                " (CV-10: one each)",
                "rules.birds": f"{len(birds)} birds are too few for {players} players (CV-10: one"
                " each)",
            }
        )


# ---------------------------------------------------------------------------------- scoring


def score_cards(rules: Rules, cards: Iterable[tuple[str, bool]], bird: str | None = None) -> int:
    """CV-3: the points of a player's collected cards, given as ``(item, face_down)`` pairs: the
    item a card counts as (a double-sided card's up side; a single-sided card's item either way)
    and whether it lies face down (only a coin's worth depends on it). ``bird``: the player's
    bird, whose bonus is added. The engine's scoring mirrors this function."""
    scoring = rules.scoring
    values = scoring.values.model_dump()
    cards = list(cards)
    counts = Counter(item for item, _ in cards)
    total = 0
    for item, face_down in cards:
        if item not in ITEM_NAMES:
            raise ValueError(f"no item named {item!r}")
        total += scoring.coin_face_down if item == "coin" and face_down else values[item]
    for item, bonus in scoring.sets.items():
        full = counts[item] // bonus.size
        if not full:
            continue
        # the set's cards score its points in place of their values (the cheapest of them)
        in_sets = sorted(
            (scoring.coin_face_down if it == "coin" and down else values[it])
            for it, down in cards
            if it == item
        )[: full * bonus.size]
        total += full * bonus.points - sum(in_sets)
    if bird is not None:
        favourite = rules.birds[bird]
        total += favourite.bonus_per_card * counts[favourite.favourite]
    return total


# ----------------------------------------------------------------------------------- policies

_Weight = Annotated[float, Field(allow_inf_nan=False, ge=-MAX_WEIGHT, le=MAX_WEIGHT)]
_Clumsiness = Annotated[float, Field(allow_inf_nan=False, ge=0.0, le=MAX_CLUMSINESS)]


class RandomPolicy(BaseModel):
    """Pecks a random visible card at a random point, picks a random uncovered card and steals
    at random when it can (CV-12: only from what its seat knows)."""

    model_config = _STRICT

    kind: Literal["random"] = Field("random", description="uniform over legal choices")
    clumsiness: _Clumsiness = Field(
        1.0,
        description="CV-9: its hand's unsteadiness; a peck displaces the pieces on the card by "
        "rules.physics.displacement_sd times this",
    )


class GreedyPolicy(BaseModel):
    """Values a card for itself with its bird's bonus and sets in progress; keeps its own nest
    covered; uncovers rivals' nests; pecks to expose what it wants or to shed pieces off it;
    steals when it pays. One-step choices from what its seat knows (CV-12)."""

    model_config = _STRICT

    kind: Literal["greedy"] = Field("greedy", description="one-step weighted choices")
    clumsiness: _Clumsiness = Field(
        1.0,
        description="CV-9: its hand's unsteadiness; a peck displaces the pieces on the card by "
        "rules.physics.displacement_sd times this",
    )
    own_value: _Weight = Field(
        1.0, description="CV-3: weight of a card's own points (its up side; a coin face down)"
    )
    bird_bonus: _Weight = Field(
        1.0, description="CV-3, CV-10: weight of its bird's bonus for a card of its favourite"
    )
    set_progress: _Weight = Field(
        1.0, description="CV-3: weight of the set points a card brings nearer (sets in progress)"
    )
    keep_nest_covered: _Weight = Field(
        2.0,
        description="CV-6, CV-11: penalty for a pick or peck that leaves its own nest uncovered",
    )
    uncover_rivals: _Weight = Field(
        1.0, description="CV-6, CV-11: value of uncovering a rival's nest (known or guessed)"
    )
    expose_wanted: _Weight = Field(
        0.5, description="CV-5: value of a peck that uncovers a card it wants to pick"
    )
    shed_pieces: _Weight = Field(
        0.5, description="CV-5, CV-9: value of a peck that sheds pieces off a card it wants"
    )
    steal_margin: _Weight = Field(
        1.0,
        description="CV-11: steals when the card it would take is worth at least this many "
        "points more to it than the feathers it pays",
    )
    feather_value: _Weight = Field(
        0.5,
        description="CV-7, CV-11: what one feather is worth to it in points (feathers pay for "
        "steals and break ties)",
    )
    ability_value: _Weight = Field(
        1.0,
        description="CV-4: weight of what a card's ability would bring (a paperclip's or "
        "earring's best extra card, a nut's feathers, a face-down string's or ticket's later use)",
    )


DEFAULT_POLICIES = {
    "random": {"kind": "random"},
    "greedy": {"kind": "greedy"},
    "clumsy": {"kind": "greedy", "clumsiness": 2.5},
}
