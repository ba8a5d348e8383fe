"""The Raven Order config models: the ``rules:`` section and the policy settings.

Defaults are the numbers of the rulebook (``rulebooks/raven-order.txt``) and RULINGS.md (RO-1 to
RO-10); every field's description cites its ruling and is what ``balance games`` shows. Models are
strict (YAML ``yes`` or ``"4"`` is not a number) and reject unknown keys.

What a building or a rune *does* is fixed by its name (the rule engine implements each one); how
much it costs, what it needs and every number in its effect are config. A rune's numbers are
named fields (``power``, ``workers``, ``gold``, ``kills``, ``min_riders``); each rune accepts only
the fields its effect uses (``RUNE_FIELDS``), so ``frost_mark: {gold: 2}`` is an error, not a
silently ignored value.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from balance.errors import KeyConflict

_STRICT = ConfigDict(extra="forbid", strict=True)

BUILDING_NAMES = (
    "camp",
    "town",
    "capitol",
    "armory",
    "citadel",
    "shrine",
    "statue",
    "academy_1",
    "academy_2",
    "academy_3",
    "guildhall",
)
UNIT_NAMES = ("worker", "sentry", "rider", "druid")
RUNE_NAMES = (
    "frost_mark",
    "bloom_mark",
    "crown_rune",
    "shadow_rune",
    "spirit_rune",
    "canine",
    "conquest",
    "looting",
    "horses",
    "poisons",
    "travelling",
    "squire",
    "corruption",
    "dawn_raid",
    "rituals",
    "medicine",
    "shields",
    "steel_craft",
    "cloaking",
)
# Rune targets besides a building name (RO-6).
TARGET_DRUID = "druid"  # Paint: an own druid
TARGET_ANY = "any_building"  # Canine: any own building

# The numbers each rune's effect uses: field -> (default, meaning). Rulebook and RO-10.
RUNE_FIELDS: dict[str, dict[str, tuple[int, str]]] = {
    "frost_mark": {"power": (1, "power taken from each enemy unit in the druid's battle group")},
    "bloom_mark": {
        "power": (3, "power added to the druid"),
        "workers": (1, "workers a turn per academy of advantage"),
    },
    "crown_rune": {"power": (3, "power added to each of its owner's druids")},
    "shadow_rune": {"power": (3, "power added to the druid (which only druids can stop)")},
    "spirit_rune": {
        "power": (4, "power added to the druid"),
        "kills": (1, "unpainted enemy units killed per academy of advantage, on attack or block"),
    },
    "canine": {"power": (1, "power one attacking rider gains per academy its owner has")},
    "conquest": {
        "min_riders": (2, "attacking riders needed"),
        "workers": (1, "workers gained per academy its owner has"),
    },
    "looting": {"gold": (2, "gold per worker or sentry killed by its owner's riders")},
    "horses": {},
    "poisons": {},
    "travelling": {
        "rider_cost": (0, "gold to train a sentry into a rider (RO-10)"),
        "druid_cost": (2, "gold to train a rider into a druid (RO-10: 1 + 1)"),
    },
    "squire": {},
    "corruption": {},
    "dawn_raid": {
        "min_riders": (1, "attacking riders needed"),
        "kills": (1, "enemy units killed before blockers are chosen"),
    },
    "rituals": {"power": (1, "power added to each of its owner's riders")},
    "medicine": {
        "workers": (1, "workers a turn"),
        "gold": (1, "gold a turn it costs (gold never goes below 0)"),
    },
    "shields": {"power": (1, "power a sentry gains while it blocks a rider")},
    "steel_craft": {"power": (2, "power added to its owner's attacking riders")},
    "cloaking": {},
}

RUNE_NUMBERS = ("power", "workers", "gold", "kills", "min_riders", "rider_cost", "druid_cost")

# (target, level, type) of each rune in the rulebook's table; RO-6.
RUNE_DEFAULTS: dict[str, tuple[str, int, str]] = {
    "frost_mark": (TARGET_DRUID, 1, "paint"),
    "bloom_mark": (TARGET_DRUID, 1, "paint"),
    "crown_rune": (TARGET_DRUID, 2, "paint"),
    "shadow_rune": (TARGET_DRUID, 2, "paint"),
    "spirit_rune": (TARGET_DRUID, 3, "paint"),
    "canine": (TARGET_ANY, 1, "tradition"),
    "conquest": ("armory", 1, "tradition"),
    "looting": ("armory", 1, "tradition"),
    "horses": ("shrine", 1, "tradition"),
    "poisons": ("shrine", 1, "tradition"),
    "travelling": ("camp", 2, "tradition"),
    "squire": ("camp", 2, "tradition"),
    "corruption": ("guildhall", 3, "tradition"),
    "dawn_raid": ("citadel", 3, "tradition"),
    "rituals": ("citadel", 3, "tradition"),
    "medicine": ("guildhall", 0, "tech"),
    "shields": ("town", 1, "tech"),
    "steel_craft": ("capitol", 1, "tech"),
    "cloaking": ("capitol", 0, "tech"),
}

# Rulebook building table: cost, requirement and per-turn income.
_BUILDING_DEFAULTS: dict[str, dict[str, Any]] = {
    "camp": {"cost": 3, "gold": 2},
    "town": {"cost": 5, "requires": "camp", "gold": 2},
    "capitol": {"cost": 6, "requires": "town", "gold": 3},
    "armory": {"cost": 2},
    "citadel": {"cost": 2, "requires": "armory"},
    "shrine": {"cost": 2, "requires": "citadel"},
    "statue": {"cost": 1, "requires": "armory"},
    "academy_1": {"cost": 2},
    "academy_2": {"cost": 2, "requires": "academy_1"},
    "academy_3": {"cost": 2, "requires": "academy_2", "runes": 1},
    "guildhall": {"cost": 4, "workers": 1},
}
_BUILDING_EFFECTS = {
    "camp": "income",
    "town": "income",
    "capitol": "income",
    "armory": "lets its owner train sentries",
    "citadel": "lets its owner train riders",
    "shrine": "lets its owner train druids",
    "statue": "on construction: 2 workers, 2 runes or 2 extra buildings this turn (statue:)",
    "academy_1": "lets its owner play level 1 runes",
    "academy_2": "lets its owner play level 2 runes",
    "academy_3": "lets its owner play level 3 runes; +1 rune a turn",
    "guildhall": "+1 worker a turn",
}

_Count = Annotated[int, Field(ge=0, le=1000)]


class Building(BaseModel):
    """One building type: what it costs, what must stand first, and its per-turn income (RO-2,
    RO-3). What else it does is fixed by its name."""

    model_config = _STRICT

    cost: int = Field(ge=0, le=1000, description="RO-3: gold to build it")
    requires: str | None = Field(None, description="RO-3: a building that must be standing")
    gold: _Count = Field(0, description="RO-2: gold it gives each Harvest")
    workers: _Count = Field(0, description="RO-2: workers it gives each Harvest")
    runes: _Count = Field(0, description="RO-2: runes its owner draws each Harvest")


def _buildings() -> dict[str, Building]:
    return {n: Building(**_BUILDING_DEFAULTS[n]) for n in BUILDING_NAMES}


class Unit(BaseModel):
    """One unit type: its power and the gold to train it from the type below (RO-4, RO-8)."""

    model_config = _STRICT

    power: int = Field(ge=0, le=100, description="RO-8: base power in battle")
    cost: int = Field(1, ge=0, le=100, description="RO-4: gold to train it from the type below")


class Worker(BaseModel):
    """A worker: power 0 and free (RO-2, RO-8); the keys exist so that a full config can write
    the Units table out, and anything else is refused rather than silently ignored."""

    model_config = _STRICT

    power: int = Field(0, description="always 0: a worker blocks with no power (RO-8)")
    cost: int = Field(0, description="always 0: workers come free with the Harvest (RO-2)")

    @model_validator(mode="after")
    def _fixed(self) -> Worker:
        for key, why in (("power", "blocks with no power (RO-8)"), ("cost", "is free (RO-2)")):
            if getattr(self, key) != 0:
                raise ValueError(
                    f"{key}: must be 0, got {getattr(self, key)} (a worker {why}; "
                    "this key cannot change it)"
                )
        return self


class Units(BaseModel):
    """The four unit types (rulebook Units table)."""

    model_config = _STRICT

    worker: Worker = Field(default_factory=Worker, description="power 0 and free (RO-2, RO-8)")
    sentry: Unit = Field(
        default_factory=lambda: Unit(power=2), description="trained from a worker (needs Armory)"
    )
    rider: Unit = Field(
        default_factory=lambda: Unit(power=2), description="trained from a sentry (needs Citadel)"
    )
    druid: Unit = Field(
        default_factory=lambda: Unit(power=2), description="trained from a rider (needs Shrine)"
    )


def _uses(field: str) -> str:
    """A rune number's description: which runes use it, for what, and the default."""
    uses = [
        f"{r} {m} ({d})" for r, f in RUNE_FIELDS.items() for k, (d, m) in f.items() if k == field
    ]
    return "RO-10: " + "; ".join(uses)


class Rune(BaseModel):
    """One rune type: copies in the deck (the rune mix, RO-1), target and academy level (RO-6),
    and the numbers of its effect (RO-10; only the fields the rune's effect uses)."""

    model_config = _STRICT

    count: int = Field(1, ge=0, le=20, description="RO-1: copies in the rune deck (the rune mix)")
    target: str | None = Field(
        None,
        description="RO-6: 'druid', 'any_building' or a building name; default: the rulebook's",
    )
    level: int | None = Field(
        None, ge=0, le=3, description="RO-6: academy level needed (0 = none); default: rulebook"
    )
    power: int | None = Field(None, ge=0, le=100, description=_uses("power"))
    workers: int | None = Field(None, ge=0, le=100, description=_uses("workers"))
    gold: int | None = Field(None, ge=0, le=100, description=_uses("gold"))
    kills: int | None = Field(None, ge=0, le=100, description=_uses("kills"))
    min_riders: int | None = Field(None, ge=0, le=100, description=_uses("min_riders"))
    rider_cost: int | None = Field(None, ge=0, le=100, description=_uses("rider_cost"))
    druid_cost: int | None = Field(None, ge=0, le=100, description=_uses("druid_cost"))

    def value(self, name: str, field: str) -> int:
        v = getattr(self, field)
        return RUNE_FIELDS[name][field][0] if v is None else int(v)


def _runes() -> dict[str, Rune]:
    return {n: Rune() for n in RUNE_NAMES}


class Compensation(BaseModel):
    """What the second player starts with on top of the first player's start (RO-1)."""

    model_config = _STRICT

    sentries: int = Field(1, ge=0, le=50, description="RO-1: sentries of the second player")
    workers: int = Field(0, ge=0, le=50, description="extra workers of the second player")
    gold: int = Field(0, ge=0, le=100, description="extra gold of the second player")


class Statue(BaseModel):
    """The Statue's one-time choice on construction (rulebook Buildings; RO-3)."""

    model_config = _STRICT

    workers: int = Field(2, ge=0, le=50, description="workers of the first choice")
    runes: int = Field(2, ge=0, le=50, description="runes drawn by the second choice")
    extra_builds: int = Field(2, ge=0, le=10, description="RO-3: extra buildings this turn")


class Rules(BaseModel):
    """The ``rules:`` section of a Raven Order config."""

    model_config = _STRICT

    turn_cap: int = Field(
        200, ge=2, le=10000, description="RO-9: turns (both players') before a game is a draw"
    )
    starting_gold: int = Field(0, ge=0, le=1000, description="RO-1: gold of each player")
    starting_hand: int = Field(5, ge=0, le=50, description="RO-1: runes dealt to each player")
    starting_buildings: list[str] = Field(
        default_factory=lambda: ["camp"], min_length=1, description="RO-1: buildings at the start"
    )
    compensation: Compensation = Field(
        default_factory=Compensation, description="RO-1: the second player's compensation"
    )
    harvest_workers: int = Field(1, ge=0, le=50, description="RO-2: workers every Harvest")
    sell_price: int = Field(1, ge=0, le=100, description="RO-5: gold for selling a worker")
    buildings: dict[str, Building] = Field(
        default_factory=_buildings,
        description="RO-3: the 11 building types; give only those you change",
    )
    units: Units = Field(default_factory=Units, description="RO-4, RO-8: unit powers and costs")
    statue: Statue = Field(default_factory=Statue, description="RO-3: the Statue's choices")
    runes: dict[str, Rune] = Field(
        default_factory=_runes,
        description="RO-1, RO-6, RO-10: the rune mix and each rune's numbers; give only those "
        "you change",
    )

    @model_validator(mode="before")
    @classmethod
    def _merge_defaults(cls, data: Any) -> Any:
        # A config lists only the buildings and runes it changes; the rest keep their defaults.
        if not isinstance(data, dict):
            return data
        data = dict(data)
        b = data.get("buildings")
        if isinstance(b, dict):
            for name in b:
                if name not in BUILDING_NAMES:
                    raise ValueError(
                        f"buildings.{name}: no building named '{name}'"
                        f" (buildings: {', '.join(BUILDING_NAMES)})"
                    )
            merged = {n: dict(_BUILDING_DEFAULTS[n]) for n in BUILDING_NAMES}
            for name, v in b.items():
                merged[name] = {**merged[name], **v} if isinstance(v, dict) else v
            data["buildings"] = merged
        r = data.get("runes")
        if isinstance(r, dict):
            for name in r:
                if name not in RUNE_NAMES:
                    raise ValueError(
                        f"runes.{name}: no rune named '{name}' (runes: {', '.join(RUNE_NAMES)})"
                    )
            merged_r: dict[str, Any] = {n: {} for n in RUNE_NAMES}
            for name, v in r.items():
                merged_r[name] = v
            data["runes"] = merged_r
        return data

    @model_validator(mode="after")
    def _check(self) -> Rules:
        for name, b in self.buildings.items():
            if b.requires is not None and b.requires not in BUILDING_NAMES:
                raise ValueError(f"buildings.{name}.requires: no building named '{b.requires}'")
        for name in self.buildings:  # a requirement cycle could never be built
            seen, cur = [name], self.buildings[name].requires
            while cur is not None:
                if cur in seen:
                    cycle = seen[seen.index(cur) :]  # the buildings whose requires: disagree
                    raise KeyConflict(
                        {
                            f"buildings.{b}.requires": "a cycle of requirements"
                            for b in [name, *cycle]
                        }
                    )
                seen.append(cur)
                cur = self.buildings[cur].requires
        for i, name in enumerate(self.starting_buildings):
            if name not in BUILDING_NAMES:
                raise ValueError(f"starting_buildings[{i}]: no building named '{name}'")
            if name in self.starting_buildings[:i]:
                raise ValueError(f"starting_buildings[{i}]: '{name}' twice (one of each type)")
        for name, rune in self.runes.items():
            target = rune.target or RUNE_DEFAULTS[name][0]
            if target not in (TARGET_DRUID, TARGET_ANY, *BUILDING_NAMES):
                raise ValueError(
                    f"runes.{name}.target: '{target}' is not 'druid', 'any_building' or a building"
                )
            if RUNE_DEFAULTS[name][2] == "paint" and target != TARGET_DRUID:
                raise ValueError(f"runes.{name}.target: a paint rune goes on a druid (RO-6)")
            for f in RUNE_NUMBERS:
                if getattr(rune, f) is not None and f not in RUNE_FIELDS[name]:
                    used = ", ".join(RUNE_FIELDS[name]) or "none"
                    raise ValueError(f"runes.{name}.{f}: {name} has no '{f}' (its numbers: {used})")
        for name, rune in self.runes.items():  # resolved configs show every number in force
            if rune.target is None:
                rune.target = RUNE_DEFAULTS[name][0]
            if rune.level is None:
                rune.level = RUNE_DEFAULTS[name][1]
            for f, (default, _) in RUNE_FIELDS[name].items():
                if getattr(rune, f) is None:
                    setattr(rune, f, default)
        if sum(r.count for r in self.runes.values()) > 400:  # counts from several files
            raise KeyConflict({"runes": "the rune deck holds at most 400 runes"})
        return self

    def deck_size(self) -> int:
        return sum(r.count for r in self.runes.values())


class RandomPolicy(BaseModel):
    """Uniform over the legal choices at every decision (RO-7: with bounds so that games end)."""

    model_config = _STRICT

    kind: Literal["random"] = Field("random", description="uniform over legal choices")
    max_actions: int = Field(
        12, ge=1, le=200, description="construction actions a turn at most, then the turn moves on"
    )
    attack: float = Field(0.5, ge=0.0, le=1.0, description="chance that each eligible unit attacks")


_Weight = Annotated[float, Field(allow_inf_nan=False)]


class HeuristicPolicy(BaseModel):
    """A planner with a build order, an army goal and simple combat arithmetic, from what its seat
    knows (its own hand; everything on the table is public)."""

    model_config = _STRICT

    kind: Literal["heuristic"] = Field("heuristic", description="build order + army + combat")
    build_order: list[str] = Field(
        default_factory=lambda: [
            "armory",
            "town",
            "academy_1",
            "citadel",
            "capitol",
            "shrine",
            "academy_2",
            "guildhall",
            "academy_3",
        ],
        min_length=1,
        description="buildings in the order to build them; a lost one is rebuilt in its turn",
    )
    army: Literal["rider", "druid"] = Field(
        "druid", description="the unit it trains its workers up to"
    )
    save_turns: int = Field(
        2,
        ge=0,
        le=50,
        description="holds gold for the next building when Harvests bring it within this many "
        "turns; 0 spends everything on the army",
    )
    keep_workers: int = Field(
        2, ge=0, le=100, description="workers it keeps as blockers (not trained or sold)"
    )
    sell_workers: bool = Field(
        False,
        description="sells workers beyond keep_workers to pay for training when gold runs out",
    )
    defence: _Weight = Field(
        1.0,
        description="trains sentries until its blockers are at least this times the enemy's "
        "attackers",
    )
    attack_ratio: _Weight = Field(
        1.5,
        description="attacks with everything when its attackers are at least this times the "
        "enemy's blockers that can kill them; units nothing can kill always attack",
    )
    max_army: int = Field(
        24,
        ge=1,
        le=128,
        description="with this many sentries, riders and druids it attacks with everything",
    )
    trade: _Weight = Field(
        1.0,
        description="blocks to kill an attacker when the gold value it loses is at most this "
        "times the attacker's",
    )
    statue: Literal["workers", "runes", "builds"] = Field(
        "builds", description="the Statue's choice it takes"
    )

    @model_validator(mode="after")
    def _check(self) -> HeuristicPolicy:
        for i, name in enumerate(self.build_order):
            if name not in BUILDING_NAMES:
                raise ValueError(f"build_order[{i}]: no building named '{name}'")
            if name in self.build_order[:i]:
                raise ValueError(f"build_order[{i}]: '{name}' twice")
        return self


_ECONOMY: dict[str, Any] = {"kind": "heuristic"}
_RUSH: dict[str, Any] = {
    "kind": "heuristic",
    "build_order": ["armory", "citadel", "academy_1", "town", "guildhall", "shrine"],
    "army": "rider",
    "save_turns": 0,
    "keep_workers": 0,
    "sell_workers": True,
    "defence": 0.5,
    "attack_ratio": 0.75,
    "max_army": 12,
    "trade": 1.5,
    "statue": "workers",
}
DEFAULT_POLICIES = {"random": {"kind": "random"}, "economy": _ECONOMY, "rush": _RUSH}
