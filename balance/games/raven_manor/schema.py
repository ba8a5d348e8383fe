"""Raven Manor config models: the ``rules:`` section and the policy settings.

Defaults are the rulebook's (``rulebooks/raven-manor.txt``) and RULINGS.md's (RM-1 to RM-30).
What a card or a character *does* is fixed by its name (the rule engine implements each one);
how many copies the deck holds, which characters are dealt and every number of an effect are
config. Models are strict (YAML ``yes`` or ``"4"`` is not a number) and reject unknown keys;
every field's description cites its ruling and is what ``balance games raven_manor`` shows.

``rules.deck`` lists only the cards a config changes: the model merges them over the starter deck
(RM-1; cards outside it count 0), so a resolved config holds a count for each of the 42 cards.
Cross-field checks raise ``ValueError("<key.path>: <problem>")`` relative to the model, or
``KeyConflict`` for keys a config and its ``extends`` parent may have written apart. The checks
that need the line-up too (a character for every player, a deck large enough to deal) are
``check_config``, which the plugin exposes to ``RunConfig`` (balance.config).

The ``basic`` policy's weight fields are written out here, not generated from
``tables.BASIC_WEIGHTS`` (tables imports this module); a test keeps the two equal in name, order
and default.
"""

from __future__ import annotations

import difflib
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from balance.errors import KeyConflict

# Card names (tables.py numbers them in this order): Rooms, Actions, Reactions, Locations.
ROOM_NAMES = (
    "basement",
    "bathroom",
    "bedroom",
    "dining_room",
    "fathers_study",
    "guestroom",
    "kitchen",
    "library",
)
ACTION_NAMES = (
    "exchange",
    "get_over_here",
    "vase",
    "axe",
    "candle",
    "rifle",
    "broken_bottle",
    "pillow",
    "feather",
    "haymaker",
    "manor_plan",
    "bottle",
    "knife",
    "backpack",
    "barricade",
    "compass",
    "drink",
    "harpoon",
    "torch",
    "treasure_map",
    "zakus_camera",
)
REACTION_NAMES = ("avoid", "dodge", "evade", "lifebuoy", "rod", "rat_treachery")
LOCATION_NAMES = (
    "abandoned_mine",
    "cabin",
    "cave",
    "coast",
    "forest",
    "mountains",
    "the_inn",
)
CARD_NAMES = ROOM_NAMES + ACTION_NAMES + REACTION_NAMES + LOCATION_NAMES

# RM-1: the starter deck, 69 cards ("Father's Study 9x / Feather" read as 1 study, 9 Feathers).
STARTER_DECK: dict[str, int] = {
    "avoid": 4,
    "axe": 1,
    "basement": 1,
    "bathroom": 1,
    "bedroom": 1,
    "broken_bottle": 4,
    "bottle": 3,
    "candle": 5,
    "dining_room": 1,
    "dodge": 5,
    "evade": 5,
    "exchange": 8,
    "fathers_study": 1,
    "feather": 9,
    "get_over_here": 4,
    "guestroom": 1,
    "haymaker": 3,
    "kitchen": 1,
    "knife": 2,
    "library": 1,
    "manor_plan": 1,
    "pillow": 2,
    "rifle": 1,
    "vase": 4,
}
assert sum(STARTER_DECK.values()) == 69

# The 21 additional cards of the box (rulebook, Additional Cards).
ADDITIONAL_CARDS: dict[str, int] = {
    "abandoned_mine": 1,
    "backpack": 1,
    "barricade": 3,
    "cabin": 1,
    "cave": 1,
    "coast": 1,
    "compass": 1,
    "drink": 1,
    "forest": 1,
    "harpoon": 1,
    "lifebuoy": 2,
    "mountains": 1,
    "rat_treachery": 1,
    "rod": 1,
    "the_inn": 1,
    "torch": 1,
    "treasure_map": 1,
    "zakus_camera": 1,
}
assert sum(ADDITIONAL_CARDS.values()) == 21

STARTER_CHARACTERS = (
    "raven",
    "aunt_cat",
    "aunt_owl",
    "brother_badger",
    "dog_father",
    "grandfather_bison",
    "grandmother_sheep",
    "mother_hen",
    "sister_roe",
    "uncle_horse",
)
ADDITIONAL_CHARACTERS = (
    "angler_photographer",
    "brother_boar",
    "bunny_barmaid",
    "captain_pike",
    "catfish_bartender",
    "crayfish_docker",
    "cthulhu_gentleman",
    "doc",
    "eel_fella",
    "grogus",
    "guardian_eagle",
    "headless_horseman",
    "lady_whale",
    "lumbearjack",
    "mayor_groundhog",
    "seer_squirrel",
    "shark_bouncer",
    "uncle_alligator",
    "wolf_brother",
)
CHARACTER_NAMES = STARTER_CHARACTERS + ADDITIONAL_CHARACTERS
assert len(CHARACTER_NAMES) == 29

# Sides (RM-22; Chunk.team), here so that the plugin's team_names needs no kernel module
# (`balance --help` never imports numba). The end reasons are state.END_REASONS.
TEAM_NAMES = ("family", "raven", "horseman", "cthulhu")

RAVEN = "raven"
MAX_COPIES = 100  # copies of one card in the deck
MAX_DECK = 400  # cards in the whole deck
# After the deal the draw pile must still hold this many cards for the draws that follow: a
# turn's draw to hand_size, a Candle, Torch or Abandoned Mine (which reveals 7).
DEAL_MARGIN = 7
MAX_WEIGHT = 1e6  # a basic weight, either sign

_STRICT = ConfigDict(extra="forbid", strict=True)


def _hint(name: object, names: tuple[str, ...], otherwise: str) -> str:
    """`` (did you mean 'x'?)`` for a close name, else ``otherwise``."""
    close = difflib.get_close_matches(str(name), names, n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else otherwise


def _starter_deck() -> dict[str, int]:
    return {name: STARTER_DECK.get(name, 0) for name in CARD_NAMES}


class Opening(BaseModel):
    """The opening hands (RM-3; rulebook, Before You Start Playing)."""

    model_config = _STRICT

    hand: int = Field(4, ge=1, le=12, description="RM-3: cards dealt to each player")
    feather_redraw: bool = Field(
        True,
        description="RM-3: a non-Raven discards any Feather of the opening hand and draws again "
        "until none is left (false: the opening hand is kept as dealt)",
    )
    mulligans: int = Field(
        1,
        ge=0,
        le=5,
        description="RM-3: times a player may discard the opening hand and draw a new one "
        "(RM-18: the policy decides)",
    )


class Numbers(BaseModel):
    """The numbers in card effects (rulebook card texts)."""

    model_config = _STRICT

    discard_to_draw: int = Field(
        2, ge=1, le=6, description="RM-4: cards discarded for the action that draws one"
    )
    candle_look: int = Field(
        3,
        ge=1,
        le=10,
        description="Candle: top cards looked at; one goes to hand, one back on top, the rest "
        "to the bottom of the deck",
    )
    torch_reveal: int = Field(
        5,
        ge=1,
        le=20,
        description="Torch (RM-26): top cards revealed; one goes to hand, the rest to the discard",
    )
    mine_reveal: int = Field(
        7, ge=1, le=20, description="Abandoned Mine (RM-26): top cards revealed"
    )
    mine_keep: int = Field(
        3,
        ge=0,
        le=20,
        description="Abandoned Mine: of the cards revealed, those put into hand (at most "
        "mine_reveal); the rest go to the discard",
    )
    backpack_slots: int = Field(
        2, ge=0, le=10, description="RM-25: cards the Backpack stores when played"
    )

    @model_validator(mode="after")
    def _check(self) -> Numbers:
        if self.mine_keep > self.mine_reveal:  # a config and its parent may set one each
            raise KeyConflict(
                {
                    "mine_keep": f"must be at most mine_reveal ({self.mine_reveal}): the "
                    f"Abandoned Mine keeps cards of those it reveals, got {self.mine_keep}",
                    "mine_reveal": f"{self.mine_reveal} cards revealed are fewer than the "
                    f"{self.mine_keep} that mine_keep keeps",
                }
            )
        return self


class Characters(BaseModel):
    """Which characters are dealt (RM-2, RM-30): those of ``always``, then characters drawn at
    random from the rest of the pool for the other seats."""

    model_config = _STRICT

    pool: list[str] = Field(
        default_factory=lambda: list(STARTER_CHARACTERS),
        min_length=1,
        description="RM-2: the characters dealt from, at least as many as players, each at most "
        f"once; must include raven. Any of: {', '.join(CHARACTER_NAMES)}",
    )
    always: list[str] = Field(
        default_factory=lambda: [RAVEN],
        min_length=1,
        description="RM-2: characters of the pool always dealt (must include raven); the other "
        "seats get characters drawn at random from the rest of the pool",
    )

    @model_validator(mode="after")
    def _check(self) -> Characters:
        listed = f" (characters: {', '.join(CHARACTER_NAMES)})"
        for key in ("pool", "always"):
            names = getattr(self, key)
            for i, name in enumerate(names):
                if name not in CHARACTER_NAMES:
                    raise ValueError(
                        f"{key}[{i}]: no character named '{name}'"
                        + _hint(name, CHARACTER_NAMES, listed)
                    )
                if name in names[:i]:
                    raise ValueError(f"{key}[{i}]: '{name}' twice (the box has one of each)")
        if RAVEN not in self.pool:
            raise ValueError("pool: the pool must include the raven (RM-2)")
        if RAVEN not in self.always:
            raise ValueError("always: must include raven (RM-2: the Raven is always dealt)")
        for i, name in enumerate(self.always):
            if name not in self.pool:  # a config and its parent may set one each
                raise KeyConflict(
                    {
                        f"always[{i}]": f"'{name}' is not in the pool (the characters always "
                        "dealt are the pool's)",
                        "pool": f"lacks '{name}', which always[{i}] deals",
                    }
                )
        return self


_Copies = Annotated[int, Field(ge=0, le=MAX_COPIES)]


class Rules(BaseModel):
    """The ``rules:`` section of a Raven Manor config."""

    model_config = _STRICT

    turn_cap: int = Field(
        300, ge=2, le=100_000, description="RM-10: turns (all players') before a game is a draw"
    )
    hand_size: int = Field(
        4,
        ge=1,
        le=12,
        description="RM-4: at the end of a turn the player draws or discards to this many cards",
    )
    opening: Opening = Field(default_factory=Opening, description="RM-3: the opening hands")
    numbers: Numbers = Field(default_factory=Numbers, description="the numbers of card effects")
    deck: dict[str, _Copies] = Field(
        default_factory=_starter_deck,
        description=f"RM-1: copies of each card in the deck (0-{MAX_COPIES} each, at most "
        f"{MAX_DECK} in all); give only the cards you change: the others keep the starter "
        "deck's count (69 cards; cards outside it: 0). Layouts add cards (RM-1)",
    )
    characters: Characters = Field(
        default_factory=Characters, description="RM-2, RM-30: the characters dealt"
    )
    talk: bool = Field(
        False,
        description="ENGINE-15: table talk: before its action each player may make one public "
        "claim ('I am Family', 'I saw a Feather in X's hand', 'X is evil'); lies are allowed, "
        "cards are never shown to back them",
    )

    @model_validator(mode="before")
    @classmethod
    def _merge_deck(cls, data: Any) -> Any:
        # A config lists only the cards it changes; the rest keep the starter deck's counts.
        if not isinstance(data, dict) or not isinstance(data.get("deck"), dict):
            return data
        deck = data["deck"]
        for name in deck:
            if name not in CARD_NAMES:
                hint = _hint(name, CARD_NAMES, " (`balance games raven_manor` lists the cards)")
                raise ValueError(f"deck.{name}: no card named '{name}'{hint}")
        merged = {name: deck.get(name, STARTER_DECK.get(name, 0)) for name in CARD_NAMES}
        return {**data, "deck": merged}

    @model_validator(mode="after")
    def _check(self) -> Rules:
        if self.deck_size() > MAX_DECK:  # counts from several files
            raise KeyConflict(
                {"deck": f"the deck holds at most {MAX_DECK} cards, got {self.deck_size()}"}
            )
        return self

    def deck_size(self) -> int:
        return sum(self.deck.values())


def check_config(config: Any) -> None:
    """The checks of a validated RunConfig that need both its line-up and its rules (the plugin's
    ``check_config``, called by ``RunConfig``): a character for every player (RM-2), no more
    characters always dealt than players, and a deck large enough to deal the opening hands
    with cards left to draw. Raises KeyConflict with key paths from the top of the config."""
    rules, players = config.rules, config.players
    pool, always = rules.characters.pool, rules.characters.always
    if players > len(pool):
        raise KeyConflict(
            {
                "players": f"{players} players need {players} characters; the pool has "
                f"{len(pool)} (RM-2: one each)",
                "rules.characters.pool": f"{len(pool)} characters are too few for {players} "
                "players (RM-2: one each)",
            }
        )
    if len(always) > players:
        raise KeyConflict(
            {
                "rules.characters.always": f"{len(always)} characters always dealt are more "
                f"than the {players} players",
                "players": f"{players} players cannot all be dealt the {len(always)} characters "
                "of rules.characters.always",
            }
        )
    hand = rules.opening.hand
    dealt = players * hand
    need = dealt + DEAL_MARGIN
    for what, have in (
        ("cards", rules.deck_size()),
        # RM-3, RM-6: a non-Raven redraws every Feather, so the deal needs the other cards
        ("cards other than Feathers", rules.deck_size() - rules.deck["feather"]),
    ):
        if have < need:
            why = (
                f"dealing {players} players {hand} cards each takes {dealt}, and the draw pile "
                f"must keep at least {DEAL_MARGIN} more for the draws that follow"
            )
            raise KeyConflict(
                {
                    "rules.deck": f"{have} {what} are too few: {why} (needs {need})",
                    "players": f"{players} players need a deck of at least {need} {what}; "
                    f"rules.deck holds {have} ({why})",
                    "rules.opening.hand": f"{hand} cards for each of {players} players need a "
                    f"deck of at least {need} {what}; rules.deck holds {have}",
                }
            )


class RandomPolicy(BaseModel):
    """Uniform over the legal choices at every decision (RM-18)."""

    model_config = _STRICT

    kind: Literal["random"] = Field("random", description="uniform over legal choices")


# Finite, within MAX_WEIGHT either way; a chance within 0-1.
_Weight = Annotated[float, Field(allow_inf_nan=False, ge=-MAX_WEIGHT, le=MAX_WEIGHT)]
_Chance = Annotated[float, Field(allow_inf_nan=False, ge=0.0, le=1.0)]


class BasicPolicy(BaseModel):
    """Scores its legal choices with these weights from what its seat knows (RM-11, RM-18) and
    plays the best. One field per entry of ``tables.BASIC_WEIGHTS``, in its order."""

    model_config = _STRICT

    kind: Literal["basic"] = Field("basic", description="one-step weighted choices")
    mulligan_below: int = Field(
        1,
        ge=0,
        le=4,
        description="RM-3, RM-18: mulligans an opening hand with fewer useful cards than this "
        "(0: never)",
    )
    kill: _Weight = Field(
        1.0, description="value of killing a player it knows is on another side (RM-21)"
    )
    stun: _Weight = Field(
        0.5, description="value of stunning a player it knows is on another side (RM-4)"
    )
    look: _Weight = Field(
        0.6, description="value of looking at a hand or a character it does not know (RM-11)"
    )
    search: _Weight = Field(
        0.45, description="value of a search or draw that brings a card it wants (RM-9)"
    )
    cycle: _Weight = Field(0.15, description="value of discarding two cards to draw one (RM-4)")
    possess: _Weight = Field(
        1.0,
        description="possessor: value of passing a Feather to a player not known to be immune "
        "(RM-6, RM-22)",
    )
    shield: _Weight = Field(
        1.0, description="value of a reaction that saves itself or a trusted player (RM-7)"
    )
    cancel: _Weight = Field(
        0.8, description="value of cancelling an enemy's card with Rod or Rat Treachery (RM-19)"
    )
    bluff: _Chance = Field(
        0.05,
        description="possessor: chance of discarding a drawn Feather to look innocent (RM-13)",
    )
    pillow: _Chance = Field(
        1.0,
        description="chance of revealing a Pillow passed to a player known to be an enemy (RM-8)",
    )
    pillow_unknown: _Chance = Field(
        0.0,
        description="chance of revealing a Pillow passed to a player of unknown side (RM-8)",
    )
    sacrifice: _Chance = Field(
        0.0, description="Shark Bouncer: chance of dying for a trusted player (RM-21)"
    )
    barricade: _Weight = Field(
        0.3, description="possessor's side: value of barricading a Room (RM-17)"
    )
    values: dict[str, Annotated[float, Field(ge=-100, le=100, allow_inf_nan=False)]] = Field(
        default_factory=dict,
        description="how much it wants each card in hand, 0-10 (default: tables.CARD_VALUES); "
        "give only the cards you change",
    )

    @model_validator(mode="after")
    def _known_cards(self) -> BasicPolicy:
        for name in self.values:
            if name not in CARD_NAMES:
                raise ValueError(f"values.{name}: no card named '{name}'")
        return self


class ReasoningPolicy(BasicPolicy):
    """``basic``'s scorer on beliefs rather than hard facts alone (balance/games/raven_manor/
    beliefs.py): each seat weighs by Bayes' rule what it knows and how likely each public action
    is for a player of each side, and the Family treats as an enemy a player it believes is on
    another side past a threshold that falls as the evil side it believes in grows, and looks
    at the hand it is least sure of. Every basic weight, plus the fields of
    ``tables.REASONING_WEIGHTS``."""

    kind: Literal["reasoning"] = Field(  # type: ignore[assignment]
        "reasoning", description="basic's scorer on Bayesian beliefs"
    )
    suspect: _Chance = Field(
        0.6,
        description="the Family treats a player as an enemy once its belief that the player is "
        "on another side reaches this (RM-11)",
    )
    suspect_slope: _Chance = Field(
        0.5,
        description="how far that threshold falls as the believed evil share of the living grows",
    )
    trust: _Chance = Field(
        0.9, description="it trusts a player once its belief that the player is Family reaches this"
    )
    hide: _Weight = Field(
        1.0,
        description="an evil side's cost of raising the table's suspicion of itself from 0 to 1, "
        "in the units of kill (RM-11: actions are public)",
    )
    silence: _Weight = Field(
        0.5,
        description="an evil side's extra value, times kill, of killing a player who looked at "
        "its hand or character while it showed its side",
    )
    tell: _Weight = Field(
        1.0,
        description="table talk (rules.talk, ENGINE-15): the Family's value of telling the table "
        "what it knows (a Feather it saw or received, an evil character), times its belief; 0 "
        "withholds",
    )
    accuse: _Weight = Field(
        0.5,
        description="table talk: the Family's value of accusing a player it treats as an enemy "
        "without proof, times its belief",
    )
    lie: _Weight = Field(
        0.5,
        description="table talk: an evil side's value of accusing a player who saw its side (a "
        "quarter of it, times its belief, for any other player not on its side)",
    )
    vouch: _Weight = Field(
        0.1, description="table talk: the value of saying 'I am Family' (a lie on an evil side)"
    )


class BySidePolicy(ReasoningPolicy):
    """One policy for the Family's seats and another for the evil side's (the Raven, the
    Headless Horseman, Cthulhu Gentleman and the players they possess): characters are dealt at
    random (RM-2), so "a basic Family against a random Raven" cannot be written as seats. A seat
    plays the policy of the side it is on at each decision (a possessed seat knows it: RM-6,
    RM-11). The weights are its basic or reasoning half's."""

    kind: Literal["by_side"] = Field(  # type: ignore[assignment]
        "by_side", description="a policy per dealt side"
    )
    family: Literal["random", "basic", "reasoning"] = Field(
        "basic", description="policy of a seat while it is on the Family's side"
    )
    evil: Literal["random", "basic", "reasoning"] = Field(
        "basic", description="policy of a seat while it is on an evil side (possessed included)"
    )


DEFAULT_POLICIES = {
    "random": {"kind": "random"},
    "basic": {"kind": "basic"},
    "basic_family": {"kind": "by_side", "family": "basic", "evil": "random"},
    "basic_evil": {"kind": "by_side", "family": "random", "evil": "basic"},
    "reasoning": {"kind": "reasoning"},
    "reasoning_family": {"kind": "by_side", "family": "reasoning", "evil": "basic"},
    "reasoning_evil": {"kind": "by_side", "family": "basic", "evil": "reasoning"},
}
