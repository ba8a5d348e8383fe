"""Raven Manor's config layer: the ``rules:`` and policy models (defaults are RULINGS.md's RM-1 to
RM-30), the checks of the line-up against the rules (``schema.check_config``, RunConfig's game
hook), the shipped configs in configs/raven_manor, and bad configs as one-line errors naming the
file and the key. No game is played.

The config tests run against the registered plugin (the ``plugin`` fixture).
What a config compiles to is test_tables.py's.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from pydantic import ValidationError
from typer.testing import CliRunner

from balance import games
from balance.cli import app
from balance.config import ConfigError, load_config
from balance.config.loading import load_yaml
from balance.config.translate import validation_error
from balance.errors import KeyConflict
from balance.games.raven_manor import schema, state, tables
from balance.games.raven_manor.schema import (
    ADDITIONAL_CARDS,
    CARD_NAMES,
    CHARACTER_NAMES,
    STARTER_CHARACTERS,
    STARTER_DECK,
    BasicPolicy,
    RandomPolicy,
    Rules,
    check_config,
)

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = ROOT / "configs" / "raven_manor"
SHIPPED = sorted(CONFIGS.glob("*.yaml"))
BASE = CONFIGS / "base.yaml"


@pytest.fixture
def plugin() -> Any:
    """The registered raven_manor plugin (these tests once ran against a stand-in written before
    the engine; the engine is what a config loads through now)."""
    return games.get("raven_manor")


def problem(data: Any, model: Any = Rules) -> str:
    """The one-line problem of validating ``data`` against ``model``, as a config error says it
    after ``<file>: `` (key path relative to the model)."""
    with pytest.raises(ValidationError) as info:
        model.model_validate(data)
    message = str(validation_error(info.value, data, "x.yaml", model))
    assert "\n" not in message
    return message.removeprefix("x.yaml: ")


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def error(path: Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message
    return message


# ------------------------------------------------------------------------------------ defaults


def test_defaults_are_the_rulings():
    r = Rules()
    assert (r.turn_cap, r.hand_size) == (300, 4)  # RM-10, RM-4
    assert (r.opening.hand, r.opening.feather_redraw, r.opening.mulligans) == (4, True, 1)  # RM-3
    n = r.numbers
    assert (n.discard_to_draw, n.candle_look, n.torch_reveal) == (2, 3, 5)
    assert (n.mine_reveal, n.mine_keep, n.backpack_slots) == (7, 3, 2)  # RM-25
    # RM-1: 69 cards, "Father's Study 9x / Feather" read as 1 Father's Study and 9 Feathers
    assert list(r.deck) == list(CARD_NAMES) and len(r.deck) == 42
    assert r.deck_size() == 69
    assert (r.deck["feather"], r.deck["fathers_study"]) == (9, 1)
    assert {c: k for c, k in r.deck.items() if k} == STARTER_DECK
    assert all(r.deck[c] == 0 for c in ADDITIONAL_CARDS)
    # RM-2: the ten starter characters, the Raven always dealt
    assert r.characters.pool == list(STARTER_CHARACTERS) and len(r.characters.pool) == 10
    assert r.characters.always == ["raven"]


def test_resolved_rules_validate_to_the_same_rules():
    """A resolved config (the manifest's, read back from JSON) is valid and means the same."""
    rules = Rules.model_validate({"deck": {"rod": 1, "feather": 4}, "numbers": {"mine_keep": 2}})
    assert Rules.model_validate(rules.model_dump(mode="json")) == rules
    assert Rules.model_validate(Rules().model_dump()) == Rules()


def test_the_deck_lists_only_the_cards_it_changes():
    r = Rules.model_validate({"deck": {"rod": 2, "feather": 5, "pillow": 0}})
    assert list(r.deck) == list(CARD_NAMES)
    assert (r.deck["rod"], r.deck["feather"], r.deck["pillow"]) == (2, 5, 0)
    assert r.deck["exchange"] == 8 and r.deck["lifebuoy"] == 0
    assert r.deck_size() == 69 + 2 - 4 - 2


def test_the_default_policies_are_valid():
    assert schema.DEFAULT_POLICIES == {
        "random": {"kind": "random"},
        "basic": {"kind": "basic"},
        "basic_family": {"kind": "by_side", "family": "basic", "evil": "random"},
        "basic_evil": {"kind": "by_side", "family": "random", "evil": "basic"},
        "reasoning": {"kind": "reasoning"},
        "reasoning_family": {"kind": "by_side", "family": "reasoning", "evil": "basic"},
        "reasoning_evil": {"kind": "by_side", "family": "basic", "evil": "reasoning"},
    }
    reasoning = schema.ReasoningPolicy.model_validate(schema.DEFAULT_POLICIES["reasoning"])
    assert (reasoning.suspect, reasoning.trust, reasoning.kill) == (0.6, 0.9, 1.0)
    assert RandomPolicy.model_validate(schema.DEFAULT_POLICIES["random"]).kind == "random"
    side = schema.BySidePolicy.model_validate(schema.DEFAULT_POLICIES["basic_family"])
    assert (side.family, side.evil, side.kill) == ("basic", "random", 1.0)
    basic = BasicPolicy.model_validate(schema.DEFAULT_POLICIES["basic"])
    assert basic.mulligan_below == 1
    assert BasicPolicy.model_validate({"kind": "basic", "kill": 2}).kill == 2.0  # YAML `2`
    assert BasicPolicy.model_validate({"values": {"rifle": 9}}).values == {"rifle": 9.0}
    with pytest.raises(ValueError, match=r"values\.gun: no card named 'gun'"):
        BasicPolicy.model_validate({"values": {"gun": 1}})


def test_basic_weights_are_the_tables_weights():
    """One field per tables.BASIC_WEIGHTS entry, same name, order and default (the schema writes
    them out: tables imports the schema). A weight called a chance is within 0..1."""
    fields = BasicPolicy.model_fields
    assert list(fields)[:2] == ["kind", "mulligan_below"]
    assert tuple(fields)[2:-1] == tables.W_NAMES
    assert list(fields)[-1] == "values"  # card values over tables.CARD_VALUES
    for name, default, description in tables.BASIC_WEIGHTS:
        field = fields[name]
        assert field.default == default, name
        assert description in field.description, name
        bounds = {
            attr: getattr(m, attr)
            for m in field.metadata
            for attr in ("ge", "le")
            if getattr(m, attr, None) is not None
        }
        if "chance" in description:
            assert bounds == {"ge": 0.0, "le": 1.0}, name
        else:
            assert bounds == {"ge": -schema.MAX_WEIGHT, "le": schema.MAX_WEIGHT}, name
    compiled = {w: BasicPolicy().model_dump()[w] for w in tables.W_NAMES}
    assert compiled == {name: default for name, default, _ in tables.BASIC_WEIGHTS}


# ------------------------------------------------------------------- one-line errors, by model

NEAREST_NAMES = f"(characters: {', '.join(CHARACTER_NAMES)})"

RULES_ERRORS: dict[str, tuple[Any, str]] = {
    "unknown card, close": (
        {"deck": {"fether": 3}},
        "deck.fether: no card named 'fether' (did you mean 'feather'?)",
    ),
    "unknown card": (
        {"deck": {"dragon": 1}},
        "deck.dragon: no card named 'dragon' (`balance games raven_manor` lists the cards)",
    ),
    "negative count": ({"deck": {"rifle": -1}}, "deck.rifle: must be >= 0, got -1"),
    "too many copies": ({"deck": {"vase": 101}}, "deck.vase: must be <= 100, got 101"),
    "count as a string": ({"deck": {"vase": "2"}}, "deck.vase: expected an integer, got '2'"),
    "deck not a mapping": ({"deck": [1, 2]}, "deck: expected a mapping, got a list"),
    "deck too large": (
        {"deck": dict.fromkeys(CARD_NAMES[:5], 100)},
        "deck: the deck holds at most 400 cards, got 564",
    ),
    "unknown character": (
        {"characters": {"pool": ["raven", "aunt_cat", "aunt_owl", "wizard"]}},
        f"characters.pool[3]: no character named 'wizard' {NEAREST_NAMES}",
    ),
    "unknown character, close": (
        {"characters": {"pool": ["raven", "aunt_kat"]}},
        "characters.pool[1]: no character named 'aunt_kat' (did you mean 'aunt_cat'?)",
    ),
    "character twice": (
        {"characters": {"pool": ["raven", "aunt_cat", "aunt_cat"]}},
        "characters.pool[2]: 'aunt_cat' twice (the box has one of each)",
    ),
    "pool without raven": (
        {"characters": {"pool": ["aunt_cat", "aunt_owl", "dog_father"]}},
        "characters.pool: the pool must include the raven (RM-2)",
    ),
    "empty pool": (
        {"characters": {"pool": []}},
        "characters.pool: must have at least 1 item, got 0",
    ),
    "always without raven": (
        {"characters": {"always": ["aunt_cat"]}},
        "characters.always: must include raven (RM-2: the Raven is always dealt)",
    ),
    "always unknown": (
        {"characters": {"always": ["raven", "ghost"]}},
        f"characters.always[1]: no character named 'ghost' {NEAREST_NAMES}",
    ),
    "always not in the pool": (
        {"characters": {"pool": ["raven", "aunt_cat"], "always": ["raven", "aunt_owl"]}},
        "characters.always[1]: 'aunt_owl' is not in the pool (the characters always dealt are"
        " the pool's)",
    ),
    "mine keeps more than it reveals": (
        {"numbers": {"mine_keep": 8}},
        "numbers.mine_keep: must be at most mine_reveal (7): the Abandoned Mine keeps cards of"
        " those it reveals, got 8",
    ),
    "turn cap": ({"turn_cap": 1}, "turn_cap: must be >= 2, got 1"),
    "hand size": ({"hand_size": 13}, "hand_size: must be <= 12, got 13"),
    "hand size as a string": ({"hand_size": "4"}, "hand_size: expected an integer, got '4'"),
    "opening hand": ({"opening": {"hand": 0}}, "opening.hand: must be >= 1, got 0"),
    "mulligans": ({"opening": {"mulligans": 6}}, "opening.mulligans: must be <= 5, got 6"),
    "feather redraw": (
        {"opening": {"feather_redraw": "yes"}},
        "opening.feather_redraw: expected true or false, got 'yes'",
    ),
    "discard to draw": (
        {"numbers": {"discard_to_draw": 7}},
        "numbers.discard_to_draw: must be <= 6, got 7",
    ),
    "candle": ({"numbers": {"candle_look": 0}}, "numbers.candle_look: must be >= 1, got 0"),
    "torch": ({"numbers": {"torch_reveal": 21}}, "numbers.torch_reveal: must be <= 20, got 21"),
    "backpack": (
        {"numbers": {"backpack_slots": 11}},
        "numbers.backpack_slots: must be <= 10, got 11",
    ),
    "unknown rule": ({"turncap": 3}, "turncap: unknown key (did you mean 'turn_cap'?)"),
}


@pytest.mark.parametrize("name", RULES_ERRORS)
def test_a_bad_rule_is_a_one_line_error_naming_the_key(name):
    data, expected = RULES_ERRORS[name]
    assert problem(data) == expected


POLICY_ERRORS: dict[str, tuple[Any, str]] = {
    "chance above 1": ({"bluff": 1.5}, "bluff: must be <= 1.0, got 1.5"),
    "chance below 0": ({"sacrifice": -0.1}, "sacrifice: must be >= 0.0, got -0.1"),
    "infinite weight": ({"kill": float("inf")}, "kill: must be a finite number, got inf"),
    "not a number": ({"kill": float("nan")}, "kill: must be a finite number, got nan"),
    "huge weight": ({"stun": -2e6}, "stun: must be >= -1000000.0, got -2000000.0"),
    "weight as a bool": ({"look": True}, "look: expected a number, got true"),
    "mulligan_below": ({"mulligan_below": 5}, "mulligan_below: must be <= 4, got 5"),
    "unknown weight": ({"kil": 1.0}, "kil: unknown key (did you mean 'kill'?)"),
}


@pytest.mark.parametrize("name", POLICY_ERRORS)
def test_a_bad_basic_setting_is_a_one_line_error_naming_the_key(name):
    data, expected = POLICY_ERRORS[name]
    assert problem({"kind": "basic", **data}, BasicPolicy) == expected


def test_the_random_policy_has_no_settings():
    assert problem({"kind": "random", "kill": 1.0}, RandomPolicy).startswith("kill: unknown key")


def test_a_mine_conflict_names_both_keys():
    with pytest.raises(ValidationError) as info:
        Rules.model_validate({"numbers": {"mine_reveal": 2}})
    conflict = info.value.errors()[0]["ctx"]["error"]
    assert isinstance(conflict, KeyConflict)
    assert list(conflict.problems) == ["mine_keep", "mine_reveal"]


# ------------------------------------------------------- check_config: the line-up and the rules


def config(players: int, **rules: Any) -> SimpleNamespace:
    return SimpleNamespace(players=players, rules=Rules.model_validate(rules))


def conflict(players: int, **rules: Any) -> dict[str, str]:
    with pytest.raises(KeyConflict) as info:
        check_config(config(players, **rules))
    return info.value.problems


def test_more_players_than_characters():
    pool = ["raven", "aunt_cat", "aunt_owl", "dog_father"]
    assert conflict(5, characters={"pool": pool}) == {
        "players": "5 players need 5 characters; the pool has 4 (RM-2: one each)",
        "rules.characters.pool": "4 characters are too few for 5 players (RM-2: one each)",
    }
    check_config(config(4, characters={"pool": pool}))


@pytest.mark.parametrize("players", range(2, 11))
def test_the_starter_characters_cover_2_to_10_players(players):
    """RM-2, RM-30: the starter pool and deck for 2-10 players; 11 need more characters."""
    check_config(config(players))
    assert "players" in conflict(11)


def test_more_characters_always_dealt_than_players():
    chars = {"pool": ["raven", "aunt_cat", "aunt_owl"], "always": ["raven", "aunt_cat", "aunt_owl"]}
    assert conflict(2, characters=chars) == {
        "rules.characters.always": "3 characters always dealt are more than the 2 players",
        "players": "2 players cannot all be dealt the 3 characters of rules.characters.always",
    }
    check_config(config(3, characters=chars))


def test_a_deck_too_small_to_deal():
    deck = dict.fromkeys(STARTER_DECK, 0) | {"exchange": 26}  # 5 x 4 + 7 = 27 needed
    why = (
        "dealing 5 players 4 cards each takes 20, and the draw pile must keep at least 7 more for"
        " the draws that follow"
    )
    assert conflict(5, deck=deck) == {
        "rules.deck": f"26 cards are too few: {why} (needs 27)",
        "players": f"5 players need a deck of at least 27 cards; rules.deck holds 26 ({why})",
        "rules.opening.hand": "4 cards for each of 5 players need a deck of at least 27 cards;"
        " rules.deck holds 26",
    }
    check_config(config(5, deck={**deck, "exchange": 27}))
    check_config(config(5, deck={**deck, "exchange": 20}, opening={"hand": 2}))  # 10 + 7 <= 20


def test_feathers_do_not_count_for_the_deal():
    """RM-3, RM-6: a non-Raven redraws every Feather, so only the other cards can be dealt (a
    deck of Feathers would redraw for ever)."""
    deck = dict.fromkeys(STARTER_DECK, 0) | {"exchange": 20, "feather": 30}
    problems = conflict(5, deck=deck)
    assert problems["rules.deck"].startswith("20 cards other than Feathers are too few: ")
    check_config(config(5, deck={**deck, "exchange": 27}))


def test_twelve_players_fit_the_starter_deck():
    """RM-30: 12 x 4 + 7 = 55 cards of the 60 that are not Feathers."""
    pool = [*STARTER_CHARACTERS, "catfish_bartender", "angler_photographer"]
    check_config(config(12, characters={"pool": pool}))


# ---------------------------------------------------- RunConfig's game hook (config/model.py)


def test_the_hook_error_is_one_line_naming_file_and_key(plugin, tmp_path):
    path = write(
        tmp_path,
        "x.yaml",
        """\
        game: raven_manor
        players: 5
        seats: basic
        rules: {characters: {pool: [raven, aunt_cat, aunt_owl, dog_father]}}
        """,
    )
    assert error(path) == (
        f"{path}: players: 5 players need 5 characters; the pool has 4 (RM-2: one each)"
    )


def test_the_hook_error_names_the_key_the_user_changed(plugin, tmp_path):
    """The keys in conflict come from a config and its parent: the message is about the key of
    the file the user gave and names where the other was set (balance.config, KeyConflict)."""
    more = write(tmp_path, "more.yaml", f"extends: {BASE}\nplayers: 11\n")
    assert error(more) == (
        f"{more}: players: 11 players need 11 characters; the pool has 10 (RM-2: one each)"
        f" (rules.characters.pool set in {BASE})"
    )
    pool = "rules:\n  characters:\n    pool: [raven, aunt_cat, aunt_owl]\n"
    fewer = write(tmp_path, "fewer.yaml", f"extends: {BASE}\n{pool}")
    assert error(fewer) == (
        f"{fewer}: rules.characters.pool: 3 characters are too few for 5 players (RM-2: one"
        f" each) (players set in {BASE})"
    )
    # 69 - 35 = 34 cards, 25 of them not Feathers: 5 x 4 + 7 = 27 needed
    zero = "{exchange: 0, evade: 0, dodge: 0, avoid: 0, vase: 0, candle: 0, broken_bottle: 0}"
    small = write(tmp_path, "small.yaml", f"extends: {BASE}\nrules: {{deck: {zero}}}\n")
    message = error(small)
    assert message.startswith(f"{small}: rules.deck: 25 cards other than Feathers are too few: ")
    assert message.endswith(
        f"(rules.deck also set in {BASE}; players and rules.opening.hand set in {BASE})"
    )


def test_the_hook_sees_the_validated_config_and_may_raise_a_value_error(tmp_path, monkeypatch):
    seen = []

    def check_config(cfg: Any) -> None:
        seen.append(cfg)
        if cfg.rules.turn_cap < 10:
            raise ValueError(f"rules.turn_cap: {cfg.rules.turn_cap} turns are too few")

    monkeypatch.setattr(games.get("raven_manor"), "check_config", check_config)
    ok = load_config(BASE)
    assert seen == [ok] and isinstance(ok.rules, Rules) and ok.seats == ["basic"] * 5
    bad = write(tmp_path, "bad.yaml", f"extends: {BASE}\nrules: {{turn_cap: 5}}\n")
    assert error(bad) == f"{bad}: rules.turn_cap: 5 turns are too few"


# ------------------------------------------------------------------------- the shipped configs


def added(cfg: Any) -> dict[str, int]:
    """The cards a config's deck holds beyond the starter deck (or fewer: negative)."""
    deck = cfg.rules.deck
    return {
        c: deck[c] - STARTER_DECK.get(c, 0) for c in CARD_NAMES if deck[c] != STARTER_DECK.get(c, 0)
    }


def test_every_shipped_config_loads(plugin):
    names = {p.stem for p in SHIPPED}
    expected = {
        "base", "roanoke", "negative_interaction", "defense", "dont_trust_anyone",
        "roanoke_lineup", "gore", "random_vs_basic", "two_players", "twelve_players", "all_cards",
        "random", "basic_family_vs_random_evil", "basic_evil_vs_random_family", "search_vs_basic",
            "search_family_vs_basic_evil", "search_raven_vs_basic_family", "reasoning",
        "search_reasoning_family",
        "reasoning_family", *(f"players_{n}" for n in range(3, 11)),
    }  # fmt: skip
    assert names == expected
    for path in SHIPPED:
        cfg = load_config(path)
        assert cfg.game == "raven_manor" and cfg.description, path.name
        assert cfg.rules.characters.always == ["raven"], path.name


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_config_says_what_it_is_and_cites_the_rulings(path):
    header = path.read_text().split("\n\n")[0].splitlines()
    comment = [line for line in header if line.startswith("#")]
    assert comment and header[0].startswith("# "), path.name
    assert "RM-" in " ".join(comment), path.name


def test_base_writes_out_every_default(plugin):
    """base.yaml is the defaults written out: its rules and basic policy are the models'."""
    raw = yaml.safe_load(BASE.read_text())
    assert Rules.model_validate(raw["rules"]) == Rules()
    assert set(raw["rules"]) == set(Rules.model_fields)
    assert set(raw["rules"]["opening"]) == set(schema.Opening.model_fields)
    assert set(raw["rules"]["numbers"]) == set(schema.Numbers.model_fields)
    assert raw["rules"]["deck"] == STARTER_DECK
    assert {**raw["policies"]["basic"], "values": {}} == BasicPolicy().model_dump()
    cfg = load_config(BASE)
    assert (cfg.players, cfg.seats, cfg.games, cfg.seed) == (5, ["basic"] * 5, 200_000, 1)
    assert cfg.report.headline.key() == ("win_share", "team", "raven")
    assert "raven" in tables.TEAM_NAMES


LAYOUTS = {  # RM-1; rulebook, Deck Layout Proposal
    "roanoke": dict.fromkeys(
        [
            "abandoned_mine",
            "backpack",
            "cabin",
            "cave",
            "coast",
            "compass",
            "forest",
            "mountains",
            "rod",
        ],
        1,
    ),
    "negative_interaction": dict.fromkeys(
        ["cabin", "coast", "drink", "forest", "harpoon", "mountains", "rat_treachery", "rod"], 1
    ),
    "defense": {"backpack": 1, "coast": 1, "lifebuoy": 2, "rod": 1, "treasure_map": 1},
}


@pytest.mark.parametrize("name", LAYOUTS)
def test_deck_layouts_add_the_rulebook_cards(plugin, name):
    cfg = load_config(CONFIGS / f"{name}.yaml")
    assert added(cfg) == LAYOUTS[name]
    assert cfg.players == 5 and cfg.rules.characters == Rules().characters
    # Coast plays the Treasure Map: only Defense has one (the others kept literal)
    assert (cfg.rules.deck["treasure_map"] == 1) == (name == "defense")


LINEUPS = {  # rulebook, Character Suggestions; RM-30 (with the cards their characters use)
    "dont_trust_anyone": (
        [
            "raven",
            "catfish_bartender",
            "angler_photographer",
            "bunny_barmaid",
            "seer_squirrel",
            "cthulhu_gentleman",
        ],
        {"rod": 1},
    ),
    "roanoke_lineup": (
        [
            "raven",
            "seer_squirrel",
            "brother_boar",
            "uncle_alligator",
            "wolf_brother",
            "guardian_eagle",
        ],
        {**LAYOUTS["roanoke"], "treasure_map": 1},
    ),
    "gore": (
        ["raven", "brother_boar", "lumbearjack", "wolf_brother", "captain_pike", "crayfish_docker"],
        {"harpoon": 1},
    ),
}


@pytest.mark.parametrize("name", LINEUPS)
def test_character_lineups_deal_their_six_characters(plugin, name):
    pool, cards = LINEUPS[name]
    cfg = load_config(CONFIGS / f"{name}.yaml")
    assert cfg.players == 6 and cfg.rules.characters.pool == pool
    assert added(cfg) == cards
    assert cfg.rules.deck["axe"] == 1 and cfg.rules.deck["rifle"] == 1  # Lumbearjack, Wolf


@pytest.mark.parametrize("players", range(3, 11))
def test_one_config_per_starter_player_count(plugin, players):
    cfg = load_config(CONFIGS / f"players_{players}.yaml")
    assert cfg.players == players and cfg.seats == ["basic"] * players
    assert cfg.rules == Rules()


def test_the_other_lineups(plugin):
    mixed = load_config(CONFIGS / "random_vs_basic.yaml")
    assert mixed.seats == ["basic", "random", "basic", "random", "basic"]
    assert mixed.policies["random"] == {"kind": "random"}
    two = load_config(CONFIGS / "two_players.yaml")
    assert two.players == 2 and two.rules == Rules()
    twelve = load_config(CONFIGS / "twelve_players.yaml")
    assert twelve.players == 12
    assert twelve.rules.characters.pool == [
        *STARTER_CHARACTERS,
        "catfish_bartender",
        "angler_photographer",
    ]
    every = load_config(CONFIGS / "all_cards.yaml")
    assert every.players == 8 and sorted(every.rules.characters.pool) == sorted(CHARACTER_NAMES)
    assert added(every) == ADDITIONAL_CARDS and every.rules.deck_size() == 90


def test_extends_chain_of_the_roanoke_lineup():
    _, provenance = load_yaml(CONFIGS / "roanoke_lineup.yaml")
    assert [Path(f).name for f in provenance.files] == [
        "roanoke_lineup.yaml",
        "roanoke.yaml",
        "base.yaml",
    ]


# --------------------------------------------------- bad configs through the CLI (and the engine)

CLI_ERRORS = {
    "pool without raven": (
        "rules:\n  characters:\n    pool: [aunt_cat, aunt_owl, brother_badger, dog_father,"
        " mother_hen]\n",
        "rules.characters.pool: the pool must include the raven (RM-2)",
    ),
    "more players than characters": (
        "players: 6\nrules:\n  characters:\n    pool: [raven, aunt_cat, aunt_owl, dog_father,"
        " mother_hen]\n",
        "players: 6 players need 6 characters; the pool has 5 (RM-2: one each)",
    ),
    "negative card count": (
        "rules:\n  deck:\n    rifle: -1\n",
        "rules.deck.rifle: must be >= 0, got -1",
    ),
    "unknown card": (
        "rules:\n  deck:\n    crossbow: 1\n",
        "rules.deck.crossbow: no card named 'crossbow'",
    ),
    "unknown character": (
        "rules:\n  characters:\n    pool: [raven, aunt_cat, aunt_owl, dog_father, wizard]\n",
        "rules.characters.pool[4]: no character named 'wizard'",
    ),
    "chance above one": (
        "policies:\n  basic:\n    pillow: 2.0\n",
        "policies.basic.pillow: must be <= 1.0, got 2.0",
    ),
}


@pytest.mark.parametrize("name", CLI_ERRORS)
def test_a_bad_config_through_the_cli(plugin, tmp_path, name):
    """`balance validate`: exit 1, one line naming the file and the key, no traceback."""
    body, message = CLI_ERRORS[name]
    path = write(tmp_path, "bad.yaml", f"extends: {BASE}\n{body}")
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code == 1, result.output
    assert result.stdout == "" and "Traceback" not in result.output
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"error: {path}: {message}")


def test_the_shipped_configs_validate_through_the_cli(plugin):
    result = CliRunner().invoke(app, ["validate", *map(str, SHIPPED)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("ok: ") == len(SHIPPED)


def test_the_engine_uses_the_schema(plugin):
    """The registered plugin's models, policies and player range are the config layer's."""
    assert plugin.rules_model is Rules
    kinds = dict(plugin.policy_kinds)
    search = kinds.pop("search")  # balance.search's model (issue 29), rolling out with basic
    assert kinds == {
        "random": RandomPolicy,
        "basic": BasicPolicy,
        "by_side": schema.BySidePolicy,
        "reasoning": schema.ReasoningPolicy,
    }
    assert search().kind == "search" and search().rollout == "basic"
    assert plugin.default_policies == schema.DEFAULT_POLICIES
    assert (plugin.min_players, plugin.max_players) == (2, 12)  # RM-30
    assert tuple(plugin.end_reasons) == state.END_REASONS


def test_balance_games_lists_every_card_and_character(plugin):
    """The errors of an unknown card or character point to `balance games raven_manor`."""
    from balance.config import knobs

    text = "\n".join(knobs.describe_game(plugin))
    assert all(name in text for name in CARD_NAMES + CHARACTER_NAMES)
