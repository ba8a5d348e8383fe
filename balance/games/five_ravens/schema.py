"""Five Ravens config models: the ``rules:`` section and the policy settings.

Defaults are the numbers of RULINGS.md (FR-1..FR-15); every field's description cites its ruling
and is what ``balance games`` shows. Models are strict (YAML ``yes`` or ``"4"`` is not a number)
and reject unknown keys.

Cross-field checks raise ``ValueError("<key.path>: <problem>")`` with the key path relative to the
model that raises; ``balance.config`` prefixes the model's own path, so a designer reads e.g.
``rules.thief_relics[0]: no relic named 'crown' in relics``. A check of keys that may come from
different files (a config and its ``extends`` parent) raises ``KeyConflict`` instead, so that the
error names the file of each.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from balance.errors import KeyConflict
from balance.games.base import check_handicap

# Relic names become telemetry columns (``captured__gem``) next to the Ravens' (``captured__six``).
RAVEN_NAMES = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_RELIC_NAME = re.compile(r"[a-z][a-z0-9_]*")
MAX_RELICS = 200
MAX_RELIC_TYPES = 48  # the engine's state has fixed sizes (state.MAX_TYPES)
MAX_ROUNDS = 20  # FR-1: Clocks; a game records rounds + 1 trajectory points (state.trace_cap)

# Bounds of the numbers the engine stores (tables.py: int32 rules, float64 weights). A seat's
# score is an int32 sum (engine.score_breakdown): at most MAX_RELICS chests or hollows of
# MAX_POINTS, one chest times MAX_SIX_MULTIPLIER, the gem entry, MAX_RELIC_TYPES cursed bonuses,
# the 4's bonus, two penalties and the handicap, about 3.5 million, far inside int32;
# tables.MAX_SCORE asserts it. The greedy weights multiply these points (and each other, capture_effects x info_value):
# within MAX_WEIGHT every greedy value stays near 1e14 or below, finite and far above the
# "never chosen" value tables.NEG (-1e18).
MAX_POINTS = 10_000  # any point value, either sign; a chest's value
MAX_SIX_MULTIPLIER = 100
MAX_WEIGHT = 10_000_000  # a greedy weight, either sign
_POINTS = f"-{MAX_POINTS} to {MAX_POINTS}, so that every score fits the engine's 32-bit sums"
_Points = Annotated[int, Field(ge=-MAX_POINTS, le=MAX_POINTS)]

_STRICT = ConfigDict(extra="forbid", strict=True)


class RavenSwitch(BaseModel):
    """Turns one Raven's action text or capture effect off, to measure what it is worth."""

    model_config = _STRICT

    action: bool = Field(True, description="FR-8: the Raven may be played for its action text")
    capture: bool = Field(
        True, description="FR-8, FR-10, FR-11, FR-13: the Raven's capture effect applies"
    )


def _raven(rank: str, action: str, capture: str) -> Any:
    return Field(
        default_factory=RavenSwitch, description=f"The {rank}: action {action}; captured {capture}"
    )


class Ravens(BaseModel):
    """One switch per Raven rank (FR-8, FR-11, FR-13)."""

    model_config = _STRICT

    one: RavenSwitch = _raven("1", "replaces a face-up relic (FR-8)", "locks a relic (FR-8)")
    two: RavenSwitch = _raven(
        "2", "uses a captured Raven's action (FR-8)", "may steal the bottom relic (FR-9)"
    )
    three: RavenSwitch = _raven(
        "3", "examines a face-down relic (FR-8)", "examines the top or bottom relic (FR-8)"
    )
    four: RavenSwitch = _raven(
        "4", "cycles cards (FR-8)", "scores a bonus for captured relics (FR-13)"
    )
    five: RavenSwitch = _raven(
        "5", "captures a card from hand or discard (FR-8)", "captures its stolen relic (FR-10)"
    )
    six: RavenSwitch = _raven(
        "6", "flips a relic and may shuffle (FR-8)", "captures and doubles a stolen chest (FR-10)"
    )
    seven: RavenSwitch = _raven(
        "7", "buries or swaps the top relic (FR-8)", "rescues a captured card (FR-11)"
    )
    eight: RavenSwitch = _raven(
        "8", "stacks cards on top of the deck (FR-8)", "costs points (FR-13)"
    )
    nine: RavenSwitch = _raven("9", "draws 2, discards 1 (FR-8)", "costs points (FR-13)")


class Relic(BaseModel):
    """One kind of relic card and how many of it the relic deck holds (FR-2)."""

    model_config = _STRICT

    kind: Literal["chest", "gem", "hollow", "cursed"] = Field(
        description="FR-2, FR-13: how the relic scores; each cursed relic name is its own set"
    )
    count: int = Field(
        ge=0, le=60, description="FR-2: copies in the relic deck (0-60; 1-200 in the whole deck)"
    )
    value: int = Field(
        0,
        ge=0,
        le=MAX_POINTS,
        description=f"FR-13: a chest's face value; 0 for other kinds (0-{MAX_POINTS}, so that"
        " every score fits the engine's 32-bit sums)",
    )

    @model_validator(mode="after")
    def _value_only_on_chests(self) -> Relic:
        if self.kind != "chest" and self.value != 0:
            raise ValueError(f"value: only a chest has a value; a {self.kind} must leave it at 0")
        return self


class Scoring(BaseModel):
    """End-of-game scoring (FR-13, FR-10)."""

    model_config = _STRICT

    gem_table: list[_Points] = Field(
        default_factory=lambda: [1, 6, 9, 15],
        min_length=1,
        max_length=60,
        description="FR-13: points for owning 1, 2, 3, 4... gems; more gems score the last entry"
        f" (1-60 entries, each {_POINTS})",
    )
    hollow: _Points = Field(
        1, description=f"FR-13: points for a hollow that is not captured ({_POINTS})"
    )
    hollow_captured: _Points = Field(
        3, description=f"FR-13: points for a captured hollow ({_POINTS})"
    )
    cursed_set_size: int = Field(
        2,
        ge=1,
        le=MAX_RELICS,
        description="FR-13: captured cursed relics of one type needed for the bonus"
        f" (at most the {MAX_RELICS} relics a deck holds)",
    )
    cursed_set_bonus: _Points = Field(
        5, description=f"FR-13: points for each cursed type with a full captured set ({_POINTS})"
    )
    four_bonus: _Points = Field(3, description=f"FR-13: points a captured 4 gives ({_POINTS})")
    four_threshold: int = Field(
        3,
        ge=0,
        le=MAX_RELICS,
        description="FR-13: captured relics needed for the captured 4's bonus"
        f" (at most the {MAX_RELICS} relics a deck holds)",
    )
    eight_penalty: _Points = Field(
        1, description=f"FR-13: points subtracted for a captured 8 ({_POINTS})"
    )
    nine_penalty: _Points = Field(
        1, description=f"FR-13: points subtracted for a captured 9 ({_POINTS})"
    )
    six_multiplier: int = Field(
        2,
        ge=1,
        le=MAX_SIX_MULTIPLIER,
        description="FR-10: factor on a chest captured with a 6 while both stay captured"
        f" (1-{MAX_SIX_MULTIPLIER}, so that every score fits the engine's 32-bit sums)",
    )
    six_max_chest: _Points = Field(
        5,
        description="FR-10: chests worth at most this are multiplied by the 6"
        f" (-{MAX_POINTS} to {MAX_POINTS}; chests are worth 0-{MAX_POINTS})",
    )


def _fr2_relics() -> dict[str, Relic]:
    # FR-2: the rulebook names these kinds but not the split; this one sums to 22.
    relics = {f"chest_{v}": Relic(kind="chest", count=1, value=v) for v in range(1, 6)}
    relics["gem"] = Relic(kind="gem", count=4)
    relics["hollow"] = Relic(kind="hollow", count=4)
    for cursed in ("skull", "idol", "mask"):
        relics[cursed] = Relic(kind="cursed", count=3)
    return relics


class Rules(BaseModel):
    """The ``rules:`` section of a Five Ravens config."""

    model_config = _STRICT

    rounds: int = Field(5, ge=1, le=MAX_ROUNDS, description="FR-1: rounds in a game, one per Clock")
    hand_size: int = Field(
        4, ge=1, le=20, description="FR-4: cards each player draws in the Prelude"
    )
    # Keys are lax so that a resolved config read back from JSON (string keys) validates again.
    removed_relics: dict[Annotated[int, Field(strict=False)], Annotated[int, Field(ge=0)]] = Field(
        default_factory=lambda: {2: 8},
        description="FR-3: relics removed unseen before round 1, by player count"
        " (player counts 2-4; each fewer than the deck's relics)",
    )
    relics: dict[str, Relic] = Field(
        default_factory=_fr2_relics,
        description=(
            "FR-2: the relic deck, name -> kind, count and chest value"
            f" (1-{MAX_RELICS} relics in all, at most {MAX_RELIC_TYPES} names)"
        ),
    )
    thief_relics: list[str] = Field(
        default_factory=list, description="FR-7: relics that may also be played as a thief"
    )
    scoring: Scoring = Field(default_factory=Scoring, description="FR-13: end-of-game scoring")
    ravens: Ravens = Field(
        default_factory=Ravens, description="FR-8, FR-11: turn single Raven effects off"
    )
    handicap: list[_Points] = Field(
        default_factory=list,
        description="points added to the final score of each place in the turn order (index 0:"
        " the first player of round 1, the dataset's order 0) before FR-14's ranks and ties; the"
        " stored score includes them; missing places get 0 (at most one entry per player, each"
        f" {_POINTS})",
    )

    @model_validator(mode="after")
    def _check(self) -> Rules:
        for name in self.relics:
            if not _RELIC_NAME.fullmatch(name):
                raise ValueError(
                    f"relics.{name}: a relic name must be a lowercase identifier ([a-z][a-z0-9_]*)"
                )
            if name in RAVEN_NAMES:
                raise ValueError(f"relics.{name}: '{name}' is a Raven's name; choose another")
        # The deck's relics may come from a config and its parent: KeyConflict names both.
        if len(self.relics) > MAX_RELIC_TYPES:
            raise KeyConflict(
                {"relics": f"at most {MAX_RELIC_TYPES} kinds of relic, got {len(self.relics)}"}
            )
        total = self.total_relics()
        if not 1 <= total <= MAX_RELICS:
            raise KeyConflict({"relics": f"the deck must hold 1-{MAX_RELICS} relics, got {total}"})
        for players, removed in self.removed_relics.items():
            if not 2 <= players <= 4:  # FR-1
                raise ValueError(f"removed_relics.{players}: player counts are 2-4, got {players}")
            if removed >= total:
                raise KeyConflict(
                    {
                        f"removed_relics.{players}": "must be less than the"
                        f" {total} relics in the deck, got {removed}",
                        "relics": f"{total} relics in the deck are too few for the {removed}"
                        f" that removed_relics.{players} takes out",
                    }
                )
        for i, name in enumerate(self.thief_relics):
            if name not in self.relics:
                raise KeyConflict(
                    {
                        f"thief_relics[{i}]": f"no relic named '{name}' in relics",
                        "relics": f"no relic named '{name}' (thief_relics[{i}] names it)",
                    }
                )
        return self

    def total_relics(self) -> int:
        return sum(r.count for r in self.relics.values())


class RandomPolicy(BaseModel):
    """Plays uniformly at random among the legal moves."""

    model_config = _STRICT

    kind: Literal["random"] = Field("random", description="uniform over legal moves")


# Finite and within MAX_WEIGHT either way (shown with each weight's type by `balance games`):
# see MAX_WEIGHT.
_Weight = Annotated[float, Field(allow_inf_nan=False, ge=-MAX_WEIGHT, le=MAX_WEIGHT)]


class GreedyPolicy(BaseModel):
    """Scores each legal move with these weights and plays the best one, from what its seat knows
    (FR-15)."""

    model_config = _STRICT

    kind: Literal["greedy"] = Field("greedy", description="one-step greedy on weighted features")
    thief_rank: _Weight = Field(
        1.0, description="value of each rank of the thief: a higher thief steals earlier"
    )
    capture_effects: _Weight = Field(
        1.0,
        description="weight on what the thief's capture gives: a 5 captures its relic, "
        "a 6 doubles a chest, a 7 rescues",
    )
    penalty_aversion: _Weight = Field(
        1.0, description="weight on points lost by capturing an 8 or 9 as thief"
    )
    action_threshold: _Weight = Field(
        -1.0,
        description="an action is played instead of the thief only when its estimated value "
        "exceeds this; below zero because unplayed cards are discarded at the end of the round "
        "anyway (measured: -1.0 wins 28.5 % against 21.5 % for 0.0 and 0.5 in mixed seats)",
    )
    draw_value: _Weight = Field(0.4, description="value of drawing one card with the 9 or 4")
    info_value: _Weight = Field(
        0.3, description="value of learning a hidden relic with the 3, 6 or captured 3"
    )
    captured_card_cost: _Weight = Field(
        0.25,
        description="cost of each extra captured card: the tie-break and a Raven lost to the deck",
    )


DEFAULT_POLICIES = {"random": {"kind": "random"}, "greedy": {"kind": "greedy"}}


def check_config(config: Any) -> None:
    """The check of a validated RunConfig that needs both its player count and its rules (the
    plugin's ``check_config``, called by ``RunConfig``): one handicap entry at most per place in
    the turn order. Raises KeyConflict with key paths from the top of the config (``players`` and
    ``rules.handicap`` may come from different files)."""
    players, handicap = config.players, config.rules.handicap
    check_handicap(players, handicap)
