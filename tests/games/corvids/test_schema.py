"""Corvids' config layer: the ``rules:`` and policy models (defaults are RULINGS.md's CV-1 to
CV-12), scoring as the schema defines it (``schema.score_cards``, which the engine mirrors), the
check of the line-up against the rules (``schema.check_config``, RunConfig's game hook), the
shipped configs in configs/corvids, and bad configs as one-line errors naming the file and the
key. No game is played.

The config tests run against the registered plugin (the ``plugin`` fixture).
"""

from __future__ import annotations

import math
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
from balance.config.translate import validation_error
from balance.errors import KeyConflict
from balance.games.corvids import schema
from balance.games.corvids.schema import (
    BIRD_NAMES,
    DEFAULT_BIRDS,
    DOUBLE_ITEMS,
    ITEM_NAMES,
    GreedyPolicy,
    RandomPolicy,
    Rules,
    check_config,
    score_cards,
)

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = ROOT / "configs" / "corvids"
SHIPPED = sorted(CONFIGS.glob("*.yaml"))
BASE = CONFIGS / "base.yaml"


@pytest.fixture
def plugin() -> Any:
    """The registered corvids plugin (these tests once ran against a stand-in written before
    the engine; the engine is what a config loads through now)."""
    return games.get("corvids")


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
    assert r.feathers == 15  # CV-1
    # CV-2: 40 cards = 28 double-sided + 4 string + 4 ticket + 4 coin
    assert r.cards.double_sided.count == 28
    assert r.cards.double_sided.items == list(DOUBLE_ITEMS)
    assert r.cards.double_sided.weights() == dict.fromkeys(DOUBLE_ITEMS, 1 / 6)
    single = r.cards.single_sided
    assert (single.string, single.ticket, single.coin) == (4, 4, 4)
    assert r.cards.total() == r.deck_size() == 40 == 28 + 4 + 4 + 4
    # CV-3: every card 1, a face-down coin 3, 3 keys and 3 buttons score 5 in all
    assert r.scoring.values.model_dump() == dict.fromkeys(ITEM_NAMES, 1)
    assert r.scoring.coin_face_down == 3
    assert {k: (s.size, s.points) for k, s in r.scoring.sets.items()} == {
        "key": (3, 5),
        "button": (3, 5),
    }
    # CV-10: eight birds, a nest each, eight different favourites, +1 a favourite card (CV-3)
    assert list(r.birds) == list(BIRD_NAMES) and len(BIRD_NAMES) == 8
    assert sorted(b.nest for b in r.birds.values()) == list(range(8))
    favourites = [b.favourite for b in r.birds.values()]
    assert len(set(favourites)) == 8 and set(favourites) <= set(ITEM_NAMES)
    assert all(b.bonus_per_card == 1 for b in r.birds.values())
    assert r.birds["raven"].model_dump() == {"nest": 0, "favourite": "key", "bonus_per_card": 1}
    assert r.steal.cost == 2  # CV-11
    p = r.physics  # CV-8, CV-9
    assert (p.mat_width, p.mat_height, p.nest_radius) == (560, 380, 22)
    assert (p.nest_ellipse_x, p.nest_ellipse_y, p.nest_phase) == (0.35, 0.32, math.pi / 8)
    assert (p.card_width, p.card_height, p.feather_radius) == (63, 88, 9)
    assert (p.scatter_sd_x, p.scatter_sd_y, p.setup_retries, p.drop_retries) == (
        95,
        60,
        10_000,
        100,
    )
    assert (p.peck_offset_sd, p.peck_turn_sd) == (3, 0.05)
    assert (p.displacement_sd, p.displacement_direction_sd, p.displacement_turn_sd) == (
        30,
        0.5,
        0.3,
    )
    assert (p.visibility_cols, p.visibility_rows, p.visibility_edge, p.tolerance) == (
        7,
        9,
        16,
        1e-6,
    )


def test_physics_fields_are_the_models_params():
    """One Physics field per entry of physics.py's params array, in its order, with the model's
    default (the schema names them as strings: it must not import numba); a choice (nest_cover)
    by the value each of its words stands for."""
    physics = pytest.importorskip("balance.games.corvids.physics")
    fields = list(schema.PHYSICS_PARAMS) + list(schema.PHYSICS_CHOICES)
    assert fields == list(schema.Physics.model_fields)
    names = [*schema.PHYSICS_PARAMS.values()] + [e for e, _ in schema.PHYSICS_CHOICES.values()]
    offsets = [getattr(physics, name) for name in names]
    assert offsets == list(range(physics.N_PH))
    defaults = physics.default_params()
    for field, name in schema.PHYSICS_PARAMS.items():
        assert getattr(schema.Physics(), field) == defaults[getattr(physics, name)], field
    entry, values = schema.PHYSICS_CHOICES["nest_cover"]
    assert values == {"complete": physics.NEST_COMPLETE, "overlap": physics.NEST_OVERLAP}
    assert values[schema.Physics().nest_cover] == defaults[getattr(physics, entry)]


def test_cv8_nest_cover_is_complete_by_default_and_compiles_to_the_kernels_value():
    """CV-8 (amended): set-up covers every nest completely unless a config writes the looser
    reading, ``nest_cover: overlap``; the compiled tables carry the choice (no recompile)."""
    physics = pytest.importorskip("balance.games.corvids.physics")
    tables = pytest.importorskip("balance.games.corvids.tables")
    assert Rules().physics.nest_cover == "complete"
    for word, value in (("complete", physics.NEST_COMPLETE), ("overlap", physics.NEST_OVERLAP)):
        rules = Rules.model_validate({"physics": {"nest_cover": word}})
        assert rules.physics.nest_cover == word
        params = tables.physics_params(rules)
        assert params[physics.PH_NEST_COVER] == value
    # a nest as wide as a card can be covered completely only by several: the looser reading only
    Rules.model_validate({"physics": {"nest_radius": 31.5, "nest_cover": "overlap"}})
    Rules.model_validate({"physics": {"nest_radius": 31.49}})


def test_resolved_rules_validate_to_the_same_rules():
    """A resolved config (the manifest's, read back from JSON) is valid and means the same."""
    rules = Rules.model_validate(
        {
            "birds": {"raven": {"bonus_per_card": 2}, "crow": {}, "jay": None},
            "scoring": {"sets": {"key": None, "coin": {"size": 2, "points": 4}}},
            "cards": {"double_sided": {"items": ["key", "key", "acorn"]}},
        }
    )
    assert Rules.model_validate(rules.model_dump(mode="json")) == rules
    assert Rules.model_validate(Rules().model_dump()) == Rules()


def test_integers_are_accepted_for_lengths_and_weights():
    """YAML ``560`` for a float field (strict models still take an int for a float)."""
    assert Rules.model_validate({"physics": {"mat_width": 600}}).physics.mat_width == 600.0
    assert GreedyPolicy.model_validate({"own_value": 2}).own_value == 2.0


def test_birds_hold_exactly_those_listed_with_their_defaults():
    r = Rules.model_validate({"birds": {"raven": {"bonus_per_card": 2}, "magpie": {}}})
    assert list(r.birds) == ["raven", "magpie"]
    assert r.birds["raven"].model_dump() == {**DEFAULT_BIRDS["raven"], "bonus_per_card": 2}
    assert r.birds["magpie"].model_dump() == DEFAULT_BIRDS["magpie"]
    out = Rules.model_validate({"birds": {**DEFAULT_BIRDS, "jay": None, "chough": None}})
    assert "jay" not in out.birds and len(out.birds) == 6
    moved = Rules.model_validate({"birds": {"raven": {"nest": 7}, "crow": {"favourite": "ticket"}}})
    assert (moved.birds["raven"].nest, moved.birds["crow"].favourite) == (7, "ticket")


def test_double_sided_items_are_a_weighted_list():
    items = Rules.model_validate({"cards": {"double_sided": {"items": ["key", "key", "nut"]}}})
    weights = items.cards.double_sided.weights()
    assert list(weights) == list(DOUBLE_ITEMS)
    assert weights["key"] == pytest.approx(2 / 3) and weights["nut"] == pytest.approx(1 / 3)
    assert weights["acorn"] == 0


def test_the_default_policies_are_valid():
    assert schema.DEFAULT_POLICIES == {
        "random": {"kind": "random"},
        "greedy": {"kind": "greedy"},
        "clumsy": {"kind": "greedy", "clumsiness": 2.5},
    }
    assert RandomPolicy.model_validate(schema.DEFAULT_POLICIES["random"]).clumsiness == 1.0
    greedy = GreedyPolicy.model_validate(schema.DEFAULT_POLICIES["greedy"])
    assert greedy.clumsiness == 1.0
    assert GreedyPolicy.model_validate(schema.DEFAULT_POLICIES["clumsy"]).clumsiness == 2.5
    weights = list(GreedyPolicy.model_fields)[2:]
    assert weights == [
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
    ]
    assert all(GreedyPolicy.model_fields[w].description for w in weights)


def test_every_field_cites_a_ruling_and_every_number_is_bounded():
    """Descriptions cite CV-n; every int or float field has both a lower and an upper bound."""
    models = [
        Rules,
        schema.Cards,
        schema.DoubleSided,
        schema.SingleSided,
        schema.Scoring,
        schema.Values,
        schema.SetBonus,
        schema.Bird,
        schema.Steal,
        schema.Physics,
        RandomPolicy,
        GreedyPolicy,
    ]
    for model in models:
        for name, field in model.model_fields.items():
            assert field.description, (model.__name__, name)
            if model not in (RandomPolicy, GreedyPolicy) or name == "clumsiness":
                assert "CV-" in field.description, (model.__name__, name)
            if field.annotation in (int, float):
                attrs = {
                    a
                    for m in field.metadata
                    for a in ("ge", "gt", "le", "lt")
                    if getattr(m, a, None) is not None
                }
                assert attrs & {"ge", "gt"} and attrs & {"le", "lt"}, (model.__name__, name)


# ------------------------------------------------------------------------------------- scoring


def test_the_rulebook_scoring_example():
    """Rulebook, Scoring; CV-3: Gabe has 2 tickets (1 each), 3 keys (a set: 5 in all) and 1
    face-down coin (3): 10 points."""
    gabe = [("ticket", True), ("ticket", False), ("key", False), ("key", True), ("key", False)]
    gabe.append(("coin", True))
    assert score_cards(Rules(), gabe) == 2 + 5 + 3 == 10


def test_a_set_scores_its_points_in_all_in_place_of_its_cards():
    r = Rules()
    assert score_cards(r, [("key", False)] * 2) == 2
    assert score_cards(r, [("key", False)] * 3) == 5  # 2 more than 3 x 1
    assert score_cards(r, [("key", False)] * 4) == 6  # a set and one more key
    assert score_cards(r, [("key", False)] * 6) == 10  # two sets
    assert score_cards(r, [("button", False)] * 3 + [("key", False)] * 3) == 10
    assert score_cards(r, [("acorn", False)] * 3) == 3  # no acorn set
    dear = Rules.model_validate({"scoring": {"values": {"key": 2}}})
    assert score_cards(dear, [("key", False)] * 3) == 5  # the set's total, not a bonus


def test_coins_and_face_down_cards():
    r = Rules()
    assert score_cards(r, [("coin", True)]) == 3  # CV-3: face down
    assert score_cards(r, [("coin", False)]) == 1
    assert score_cards(r, [("string", True), ("ticket", True), ("key", True)]) == 3
    two = Rules.model_validate({"scoring": {"coin_face_down": 2}})
    assert score_cards(two, [("coin", True), ("coin", False)]) == 3


def test_the_birds_bonus():
    r = Rules()
    cards = [("key", False)] * 3 + [("nut", False)]
    assert score_cards(r, cards) == 6
    assert score_cards(r, cards, bird="raven") == 6 + 3  # CV-3: +1 a key
    assert score_cards(r, cards, bird="nutcracker") == 6 + 1
    assert score_cards(r, cards, bird="crow") == 6
    strong = Rules.model_validate({"birds": {"raven": {"bonus_per_card": 2}}})
    assert score_cards(strong, cards, bird="raven") == 6 + 6


def test_no_sets_and_an_unknown_item():
    r = Rules.model_validate({"scoring": {"sets": {"key": None, "button": None}}})
    assert r.scoring.sets == {}
    assert score_cards(r, [("key", False)] * 3) == 3
    with pytest.raises(ValueError, match="no item named 'gem'"):
        score_cards(Rules(), [("gem", False)])


# ------------------------------------------------------------------- one-line errors, by model

BIRDS = ", ".join(BIRD_NAMES)
ITEMS = ", ".join(ITEM_NAMES)
NO_CARDS = "the deck holds no card (CV-2: the game is played until the pile is empty)"

RULES_ERRORS: dict[str, tuple[Any, str]] = {
    "feathers as a string": ({"feathers": "15"}, "feathers: expected an integer, got '15'"),
    "negative feathers": ({"feathers": -1}, "feathers: must be >= 0, got -1"),
    "too many feathers": ({"feathers": 101}, "feathers: must be <= 100, got 101"),
    "unknown rule": ({"feather": 3}, "feather: unknown key (did you mean 'feathers'?)"),
    "negative count": (
        {"cards": {"double_sided": {"count": -1}}},
        "cards.double_sided.count: must be >= 0, got -1",
    ),
    "negative single count": (
        {"cards": {"single_sided": {"coin": -2}}},
        "cards.single_sided.coin: must be >= 0, got -2",
    ),
    "unknown single-sided item": (
        {"cards": {"single_sided": {"coins": 2}}},
        "cards.single_sided.coins: unknown key (did you mean 'coin'?)",
    ),
    "single-sided item on a double-sided card": (
        {"cards": {"double_sided": {"items": ["key", "coin"]}}},
        "cards.double_sided.items[1]: coin is single-sided (CV-2): count it in single_sided",
    ),
    "unknown double-sided item, close": (
        {"cards": {"double_sided": {"items": ["acron"]}}},
        "cards.double_sided.items[0]: no double-sided item named 'acron' (did you mean 'acorn'?)",
    ),
    "unknown double-sided item": (
        {"cards": {"double_sided": {"items": ["gem"]}}},
        "cards.double_sided.items[0]: no double-sided item named 'gem' (double-sided items: "
        f"{', '.join(DOUBLE_ITEMS)})",
    ),
    "no double-sided item": (
        {"cards": {"double_sided": {"items": []}}},
        "cards.double_sided.items: must have at least 1 item, got 0",
    ),
    "no card at all": (
        {
            "cards": {
                "double_sided": {"count": 0},
                "single_sided": dict.fromkeys(schema.SINGLE_ITEMS, 0),
            }
        },
        f"cards.double_sided.count: {NO_CARDS}",
    ),
    "too many cards": (
        {"cards": {"double_sided": {"count": 200}}},
        "cards.double_sided.count: the deck holds at most 200 cards, got 212",
    ),
    "card value": (
        {"scoring": {"values": {"key": 101}}},
        "scoring.values.key: must be <= 100, got 101",
    ),
    "unknown value": (
        {"scoring": {"values": {"keys": 2}}},
        "scoring.values.keys: unknown key (did you mean 'key'?)",
    ),
    "coin as a float": (
        {"scoring": {"coin_face_down": 2.5}},
        "scoring.coin_face_down: expected an integer, got 2.5",
    ),
    "set of an unknown item": (
        {"scoring": {"sets": {"kee": {"size": 3, "points": 5}}}},
        "scoring.sets.kee: no item named 'kee' (did you mean 'key'?)",
    ),
    "set size": (
        {"scoring": {"sets": {"key": {"size": 0, "points": 5}}}},
        "scoring.sets.key.size: must be >= 1, got 0",
    ),
    "unknown set key": (
        {"scoring": {"sets": {"key": {"size": 3, "bonus": 2}}}},
        "scoring.sets.key.bonus: unknown key (expected one of: size, points)",
    ),
    "unknown bird, close": (
        {"birds": {"ravn": {}}},
        "birds.ravn: no bird named 'ravn' (did you mean 'raven'?)",
    ),
    "unknown bird": ({"birds": {"owl": {}}}, f"birds.owl: no bird named 'owl' (birds: {BIRDS})"),
    "nest out of range": (
        {"birds": {"raven": {"nest": 8}}},
        "birds.raven.nest: must be < 8, got 8",
    ),
    "unknown favourite": (
        {"birds": {"raven": {"favourite": "keys"}}},
        "birds.raven.favourite: no item named 'keys' (did you mean 'key'?)",
    ),
    "unknown favourite, far": (
        {"birds": {"raven": {"favourite": "gold"}}},
        f"birds.raven.favourite: no item named 'gold' ({ITEMS})",
    ),
    "nest twice": (
        {"birds": {"raven": {}, "crow": {"nest": 0}}},
        "birds.crow.nest: nest 0 is raven's too (CV-10: each bird has its own nest)",
    ),
    "no bird left": (
        {"birds": dict.fromkeys(BIRD_NAMES)},
        "birds: no bird left (CV-10: one per player)",
    ),
    "bird not a mapping": (
        {"birds": {"raven": 3}},
        "birds.raven: expected a mapping, got 3",
    ),
    "steal cost": ({"steal": {"cost": -1}}, "steal.cost: must be >= 0, got -1"),
    "steal beyond the feathers": (
        {"feathers": 1},
        "steal.cost: a steal costing 2 feathers could never be paid: the game has 1 (CV-11)",
    ),
    "mat too small for a card": (
        {"physics": {"mat_height": 100}},
        "physics.mat_width: the mat (560 x 100 mm) is too small to hold a card turned any way: "
        "its shorter side 100 mm is less than the card's diagonal 108.2 mm (CV-8)",
    ),
    "nest off the mat": (
        {"physics": {"nest_radius": 200}},
        "physics.nest_radius: the nests must lie fully on the mat (CV-8): the ellipse's "
        "semi-axis 0.35 x 560 mm plus the nest radius 200 mm is 396.0 mm, more than half the "
        "mat's width (280 mm)",
    ),
    "nest ellipse off the mat": (
        {"physics": {"nest_ellipse_y": 0.45}},
        "physics.nest_radius: the nests must lie fully on the mat (CV-8): the ellipse's "
        "semi-axis 0.45 x 380 mm plus the nest radius 22 mm is 193.0 mm, more than half the "
        "mat's height (190 mm)",
    ),
    "ellipse fraction": (
        {"physics": {"nest_ellipse_x": 0.6}},
        "physics.nest_ellipse_x: must be <= 0.5, got 0.6",
    ),
    "zero nest radius": (
        {"physics": {"nest_radius": 0}},
        "physics.nest_radius: must be > 0.0, got 0",
    ),
    "infinite scatter": (
        {"physics": {"scatter_sd_x": float("inf")}},
        "physics.scatter_sd_x: must be a finite number, got inf",
    ),
    "retries": ({"physics": {"setup_retries": 0}}, "physics.setup_retries: must be >= 1, got 0"),
    "turn": ({"physics": {"peck_turn_sd": 4}}, "physics.peck_turn_sd: must be <= 3.0, got 4"),
    "visibility grid": (
        {"physics": {"visibility_rows": 0}},
        "physics.visibility_rows: must be >= 1, got 0",
    ),
    "length as a string": (
        {"physics": {"mat_width": "560"}},
        "physics.mat_width: expected a number, got '560'",
    ),
    "unknown physics key": (
        {"physics": {"mat_widht": 500}},
        "physics.mat_widht: unknown key (did you mean 'mat_width'?)",
    ),
    "nest cover misspelt": (
        {"physics": {"nest_cover": "completely"}},
        "physics.nest_cover: must be one of 'complete' or 'overlap', got 'completely'",
    ),
    "nest cover as a number": (
        {"physics": {"nest_cover": 1}},
        "physics.nest_cover: must be one of 'complete' or 'overlap', got 1",
    ),
    "nest wider than a card": (
        {"physics": {"nest_radius": 31.5}},
        "physics.nest_radius: a nest (radius 31.5 mm) must fit inside one card (63 x 88 mm) for "
        "set-up to cover it completely (CV-8: nest_cover 'complete'); make the nests smaller or "
        "the cards larger, or write nest_cover: overlap",
    ),
    "ties are not config": (
        {"ties": "shared"},
        "ties: unknown key (expected one of: feathers, cards, scoring, birds, steal, physics, "
        "handicap)",
    ),
}


@pytest.mark.parametrize("name", RULES_ERRORS)
def test_a_bad_rule_is_a_one_line_error_naming_the_key(name):
    data, expected = RULES_ERRORS[name]
    assert problem(data) == expected


POLICY_ERRORS: dict[str, tuple[Any, str]] = {
    "clumsiness negative": ({"clumsiness": -0.5}, "clumsiness: must be >= 0.0, got -0.5"),
    "clumsiness huge": ({"clumsiness": 11}, "clumsiness: must be <= 10.0, got 11"),
    "infinite weight": ({"own_value": float("inf")}, "own_value: must be a finite number, got inf"),
    "huge weight": ({"steal_margin": -2e3}, "steal_margin: must be >= -1000.0, got -2000.0"),
    "weight as a bool": ({"bird_bonus": True}, "bird_bonus: expected a number, got true"),
    "unknown weight": ({"own_valu": 1.0}, "own_valu: unknown key (did you mean 'own_value'?)"),
}


@pytest.mark.parametrize("name", POLICY_ERRORS)
def test_a_bad_greedy_setting_is_a_one_line_error_naming_the_key(name):
    data, expected = POLICY_ERRORS[name]
    assert problem({"kind": "greedy", **data}, GreedyPolicy) == expected


def test_the_random_policy_has_only_clumsiness():
    assert RandomPolicy.model_validate({"kind": "random", "clumsiness": 3}).clumsiness == 3.0
    message = problem({"kind": "random", "own_value": 1.0}, RandomPolicy)
    assert message.startswith("own_value: unknown key")


def test_conflicts_name_both_keys():
    with pytest.raises(ValidationError) as info:
        Rules.model_validate({"birds": {"raven": {}, "crow": {"nest": 0}}})
    conflict = info.value.errors()[0]["ctx"]["error"]
    assert isinstance(conflict, KeyConflict)
    assert list(conflict.problems) == ["birds.crow.nest", "birds.raven.nest"]
    with pytest.raises(ValidationError) as info:
        Rules.model_validate({"physics": {"mat_width": 100}})
    conflict = info.value.errors()[0]["ctx"]["error"]
    assert list(conflict.problems) == ["mat_width", "mat_height", "card_width", "card_height"]


def test_the_physics_bounds_are_tight():
    """The largest card and nests that fit are valid (the checks are not off by one)."""
    side = 380.0
    Rules.model_validate(
        {"physics": {"card_width": side / math.sqrt(2), "card_height": side / math.sqrt(2) - 1e-9}}
    )
    Rules.model_validate({"physics": {"nest_ellipse_y": 0.5 - 22 / 380 - 1e-9}})
    Rules.model_validate({"physics": {"nest_ellipse_x": 0, "nest_ellipse_y": 0}})


# ------------------------------------------------------- check_config: the line-up and the rules


def config(players: int, **rules: Any) -> SimpleNamespace:
    return SimpleNamespace(players=players, rules=Rules.model_validate(rules))


def test_more_players_than_birds():
    birds = {"raven": {}, "crow": {}, "rook": {}}
    with pytest.raises(KeyConflict) as info:
        check_config(config(4, birds=birds))
    assert info.value.problems == {
        "players": "4 players need 4 birds; rules.birds has 3 (CV-10: one each)",
        "rules.birds": "3 birds are too few for 4 players (CV-10: one each)",
    }
    check_config(config(3, birds=birds))


@pytest.mark.parametrize("players", range(2, 9))
def test_the_eight_birds_cover_2_to_8_players(players):
    check_config(config(players))  # CV-1, CV-10


# ---------------------------------------------------- RunConfig's game hook (config/model.py)


def test_the_hook_error_is_one_line_naming_file_and_key(plugin, tmp_path):
    path = write(
        tmp_path,
        "x.yaml",
        """\
        game: corvids
        players: 4
        seats: greedy
        rules: {birds: {raven: {}, crow: {}, rook: {}}}
        """,
    )
    assert (
        error(path)
        == f"{path}: players: 4 players need 4 birds; rules.birds has 3 (CV-10: one each)"
    )


def test_the_hook_error_names_the_key_the_user_changed(plugin, tmp_path):
    """The keys in conflict come from a config and its parent: the message is about the key of
    the file the user gave and names where the other was set (balance.config, KeyConflict)."""
    out = "rules:\n  birds: {jay: null, chough: null, nutcracker: null, magpie: null, rook: null}\n"
    fewer = write(tmp_path, "fewer.yaml", f"extends: {BASE}\n{out}")
    assert error(fewer) == (
        f"{fewer}: rules.birds: 3 birds are too few for 4 players (CV-10: one each) (players set"
        f" in {BASE}; rules.birds also set in {BASE})"
    )
    mat = write(tmp_path, "mat.yaml", f"extends: {BASE}\nrules: {{physics: {{mat_height: 105}}}}\n")
    assert error(mat).startswith(
        f"{mat}: rules.physics.mat_height: the mat (560 x 105 mm) is too small"
    )
    nest = write(
        tmp_path, "nest.yaml", f"extends: {BASE}\nrules: {{birds: {{crow: {{nest: 0}}}}}}\n"
    )
    assert error(nest) == (
        f"{nest}: rules.birds.crow.nest: nest 0 is raven's too (CV-10: each bird has its own"
        f" nest) (rules.birds.raven.nest set in {BASE})"
    )


def test_too_many_players_for_the_game(plugin, tmp_path):
    nine = write(tmp_path, "nine.yaml", f"extends: {BASE}\nplayers: 9\n")
    assert error(nine) == (
        f"{nine}: players: corvids is for 2-8 players, got 9 (game set in {BASE})"
    )


# ------------------------------------------------------------------------- the shipped configs


def test_every_shipped_config_loads(plugin):
    names = {p.stem for p in SHIPPED}
    assert names == {
        "base",
        "two_players",
        "eight_players",
        "random_vs_greedy",
        "no_sets",
        "coin_two",
        "strong_birds",
        "small_mat",
        "clumsy_players",
        "clumsy_vs_careful",
        "search_vs_greedy",
    }
    for path in SHIPPED:
        cfg = load_config(path)
        assert cfg.game == "corvids" and cfg.description, path.name
        assert cfg.rules.deck_size() == 40, path.name


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_config_says_what_it_is_and_cites_the_rulings(path):
    header = path.read_text().split("\n\n")[0].splitlines()
    comment = [line for line in header if line.startswith("#")]
    assert comment and header[0].startswith("# "), path.name
    assert "CV-" in " ".join(comment), path.name


def test_base_writes_out_every_default(plugin):
    """base.yaml is the defaults written out: its rules and greedy policy are the models'."""
    raw = yaml.safe_load(BASE.read_text())
    rules = raw["rules"]
    assert Rules.model_validate(rules) == Rules()
    assert set(rules) == set(Rules.model_fields)
    assert set(rules["cards"]["double_sided"]) == set(schema.DoubleSided.model_fields)
    assert set(rules["cards"]["single_sided"]) == set(schema.SingleSided.model_fields)
    assert set(rules["scoring"]) == set(schema.Scoring.model_fields)
    assert set(rules["scoring"]["values"]) == set(ITEM_NAMES)
    assert rules["birds"] == DEFAULT_BIRDS
    assert set(rules["physics"]) == set(schema.Physics.model_fields)
    assert raw["policies"]["greedy"] == GreedyPolicy().model_dump()
    cfg = load_config(BASE)
    assert (cfg.players, cfg.seats, cfg.seed) == (4, ["greedy"] * 4, 1)
    assert cfg.policies["clumsy"]["clumsiness"] == 2.5
    assert cfg.report.headline.key() == ("win_share", "order", "0")


def variant(name: str) -> Any:
    return load_config(CONFIGS / f"{name}.yaml")


def test_the_line_ups(plugin):
    assert (variant("two_players").players, variant("two_players").rules) == (2, Rules())
    eight = variant("eight_players")
    assert (eight.players, eight.seats, eight.rules) == (8, ["greedy"] * 8, Rules())
    mixed = variant("random_vs_greedy")
    assert mixed.seats == ["greedy", "random", "greedy", "random"] and mixed.rules == Rules()
    assert mixed.report.headline.key() == ("win_share", "policy", "greedy")
    clumsy = variant("clumsy_players")
    assert clumsy.seats == ["clumsy"] * 4 and clumsy.rules == Rules()
    assert clumsy.policies["clumsy"] == {**GreedyPolicy().model_dump(), "clumsiness": 2.5}


def test_the_rule_variants_change_one_thing(plugin):
    base = Rules().model_dump()

    def changed(name: str) -> dict[str, Any]:
        rules = variant(name).rules.model_dump()
        return {k: rules[k] for k in rules if rules[k] != base[k]}

    assert changed("no_sets") == {"scoring": {**base["scoring"], "sets": {}}}
    assert variant("no_sets").rules.scoring.sets == {}
    assert changed("coin_two") == {"scoring": {**base["scoring"], "coin_face_down": 2}}
    strong = {b: {**DEFAULT_BIRDS[b], "bonus_per_card": 2} for b in BIRD_NAMES}
    assert changed("strong_birds") == {"birds": strong}
    mat = {**base["physics"], "mat_width": 420.0, "mat_height": 300.0}
    assert changed("small_mat") == {"physics": mat}


# --------------------------------------------------- bad configs through the CLI (and the engine)

CLI_ERRORS = {
    "more players than birds": (
        "players: 3\nseats: greedy\nrules:\n  birds: {jay: null, chough: null, nutcracker: null,"
        " magpie: null, rook: null, jackdaw: null}\n",
        "players: 3 players need 3 birds; rules.birds has 2 (CV-10: one each)",
    ),
    "no card at all": (
        "rules:\n  cards:\n    double_sided: {count: 0}\n"
        "    single_sided: {string: 0, ticket: 0, coin: 0}\n",
        f"rules.cards.double_sided.count: {NO_CARDS}",
    ),
    "card too large for the mat": (
        "rules:\n  physics: {card_width: 400}\n",
        "rules.physics.card_width: a card (400 x 88 mm) turned any way must fit on the mat (CV-8:"
        " set-up turns cards at random), but its diagonal 409.6 mm is longer than the mat's"
        " shorter side 380 mm",
    ),
    "mat too small": (
        "rules:\n  physics: {mat_width: 100}\n",
        "rules.physics.mat_width: the mat (100 x 380 mm) is too small to hold a card",
    ),
    "nest radius larger than the mat": (
        "rules:\n  physics: {nest_radius: 400}\n",
        "rules.physics.nest_radius: the nests must lie fully on the mat (CV-8)",
    ),
    "nest cover misspelt": (
        "rules:\n  physics: {nest_cover: full}\n",
        "rules.physics.nest_cover: must be one of 'complete' or 'overlap', got 'full'",
    ),
    "cards narrower than a nest": (
        "rules:\n  physics: {card_width: 40}\n",
        "rules.physics.card_width: a nest (radius 22 mm) must fit inside one card (40 x 88 mm)",
    ),
    "negative card count": (
        "rules:\n  cards:\n    single_sided: {ticket: -1}\n",
        "rules.cards.single_sided.ticket: must be >= 0, got -1",
    ),
    "unknown item": (
        "rules:\n  cards:\n    double_sided: {items: [acorn, pebble]}\n",
        "rules.cards.double_sided.items[1]: no double-sided item named 'pebble'",
    ),
    "unknown bird": (
        "rules:\n  birds:\n    owl: {nest: 0, favourite: key}\n",
        "rules.birds.owl: no bird named 'owl'",
    ),
    "clumsiness out of range": (
        "policies:\n  clumsy: {kind: greedy, clumsiness: 12}\n",
        "policies.clumsy.clumsiness: must be <= 10.0, got 12",
    ),
    "unknown policy kind": (
        "policies:\n  careful: {kind: careful}\n",
        "policies.careful.kind: unknown policy kind 'careful' (one of: random, greedy, search)",
    ),
    "seat without a policy": (
        "seats: [greedy, greedy, greedy, careful]\n",
        "seats[3]: no policy named 'careful'",
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
    assert result.stderr.startswith(f"error: {path}: {message}"), result.stderr


def test_the_shipped_configs_validate_through_the_cli(plugin):
    result = CliRunner().invoke(app, ["validate", *map(str, SHIPPED)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("ok: ") == len(SHIPPED)


def test_the_engine_uses_the_schema(plugin):
    """The registered plugin's models, policies and player range are the config layer's."""
    assert plugin.rules_model is Rules
    kinds = dict(plugin.policy_kinds)
    search = kinds.pop("search")  # balance/search.py's model, its rollout the greedy policy
    assert kinds == {"random": RandomPolicy, "greedy": GreedyPolicy}
    assert search().kind == "search" and search().rollout == "greedy"
    assert plugin.default_policies == schema.DEFAULT_POLICIES
    assert (plugin.min_players, plugin.max_players) == (2, 8)  # CV-1
    assert plugin.check_config is check_config or plugin.check_config == check_config


def test_balance_games_lists_every_knob(plugin):
    """`balance games corvids` shows every section of the rules and both policy kinds."""
    from balance.config import knobs

    text = "\n".join(knobs.describe_game(plugin))
    for path in (
        "feathers",
        "cards.double_sided.items",
        "scoring.coin_face_down",
        "birds",
        "steal.cost",
        "physics.displacement_sd",
        "physics.visibility_rows",
        "steal_margin",
        "clumsiness",
    ):
        assert path in text, path
    assert all(name in text for name in BIRD_NAMES + DOUBLE_ITEMS)


def test_impact_variants_name_each_item_with_its_article(plugin):
    """``balance impact``'s default variants say "an acorn (up side) worth 0", "a key (up side)",
    "a coin (face up)": the article each card name takes, never "a acorn"."""
    from balance.games.corvids.variants import impact_variants

    described = {v["name"]: v["description"] for v in impact_variants(load_config(BASE))}
    assert described["acorn value -1"] == "an acorn (up side) worth 0 instead of 1 (CV-3)"
    assert described["earring value -1"].startswith("an earring (up side) worth 0")
    assert described["key value -1"].startswith("a key (up side) worth 0")
    assert described["coin value -1"].startswith("a coin (face up) worth 0")
    assert described["string value -1"].startswith("a string worth 0")
    assert not [d for d in described.values() if " a acorn" in f" {d}" or " a earring" in f" {d}"]
