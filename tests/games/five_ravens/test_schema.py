"""Five Ravens schema: RULINGS.md defaults, the validators, and the error contract with config.py
(cross-field ValueErrors start with the key path relative to the model)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from balance.games.five_ravens import PLUGIN, schema
from balance.games.five_ravens.schema import (
    DEFAULT_POLICIES,
    GreedyPolicy,
    RandomPolicy,
    Ravens,
    RavenSwitch,
    Relic,
    Rules,
    Scoring,
)

from . import helpers

MODELS = [RavenSwitch, Ravens, Relic, Scoring, Rules, RandomPolicy, GreedyPolicy]
RULES_MODELS = [RavenSwitch, Ravens, Relic, Scoring, Rules]


def problem(info: pytest.ExceptionInfo[ValidationError]) -> str:
    err = info.value.errors()[0]
    return str(err["ctx"]["error"]) if "error" in err.get("ctx", {}) else err["type"]


def test_fr2_composition() -> None:
    relics = Rules().relics
    assert list(relics) == [
        "chest_1", "chest_2", "chest_3", "chest_4", "chest_5",
        "gem", "hollow", "skull", "idol", "mask",
    ]  # fmt: skip
    assert sum(r.count for r in relics.values()) == 22 == Rules().total_relics()
    chests = {name: r for name, r in relics.items() if r.kind == "chest"}
    assert [(r.count, r.value) for r in chests.values()] == [(1, v) for v in range(1, 6)]
    assert (relics["gem"].kind, relics["gem"].count) == ("gem", 4)
    assert (relics["hollow"].kind, relics["hollow"].count) == ("hollow", 4)
    cursed = {name: r.count for name, r in relics.items() if r.kind == "cursed"}
    assert cursed == {"skull": 3, "idol": 3, "mask": 3}
    assert all(r.value == 0 for r in relics.values() if r.kind != "chest")


def test_fr13_scoring_defaults() -> None:
    s = Scoring()
    assert s.gem_table == [1, 6, 9, 15]
    assert (s.hollow, s.hollow_captured) == (1, 3)
    assert (s.cursed_set_size, s.cursed_set_bonus) == (2, 5)
    assert (s.four_bonus, s.four_threshold) == (3, 3)
    assert (s.eight_penalty, s.nine_penalty) == (1, 1)
    assert (s.six_multiplier, s.six_max_chest) == (2, 5)  # FR-10: a 1-5 chest is doubled


def test_rules_defaults() -> None:
    r = Rules()
    assert (r.rounds, r.hand_size) == (5, 4)  # FR-1, FR-4
    assert r.removed_relics == {2: 8}  # FR-3
    assert r.thief_relics == []  # FR-7
    assert r.scoring == Scoring()
    assert list(Ravens.model_fields) == list(schema.RAVEN_NAMES)
    assert all(
        getattr(r.ravens, n) == RavenSwitch(action=True, capture=True) for n in schema.RAVEN_NAMES
    )


def test_defaults_are_not_shared_between_instances() -> None:
    a, b = Rules(), Rules()
    a.scoring.gem_table.append(20)
    a.removed_relics[3] = 1
    assert b.scoring.gem_table == [1, 6, 9, 15]
    assert b.removed_relics == {2: 8}


def test_policies() -> None:
    assert DEFAULT_POLICIES == {"random": {"kind": "random"}, "greedy": {"kind": "greedy"}}
    assert RandomPolicy().model_dump() == {"kind": "random"}
    assert GreedyPolicy().model_dump() == {
        "kind": "greedy",
        "thief_rank": 1.0,
        "capture_effects": 1.0,
        "penalty_aversion": 1.0,
        "action_threshold": -1.0,
        "draw_value": 0.4,
        "info_value": 0.3,
        "captured_card_cost": 0.25,
    }
    fields = GreedyPolicy.model_fields
    assert fields["thief_rank"].description == (
        "value of each rank of the thief: a higher thief steals earlier"
    )
    assert fields["captured_card_cost"].description == (
        "cost of each extra captured card: the tie-break and a Raven lost to the deck"
    )
    assert GreedyPolicy(draw_value=1).draw_value == 1.0
    for bad in (math.inf, -math.inf, math.nan, "0.5", True):
        with pytest.raises(ValidationError):
            GreedyPolicy(draw_value=bad)


def test_plugin_uses_these_models() -> None:
    assert PLUGIN.rules_model is Rules
    assert PLUGIN.policy_kinds == {"random": RandomPolicy, "greedy": GreedyPolicy}
    assert PLUGIN.default_policies is DEFAULT_POLICIES
    for name, settings_ in DEFAULT_POLICIES.items():
        PLUGIN.policy_kinds[settings_["kind"]].model_validate(settings_)
        assert name == settings_["kind"]


@pytest.mark.parametrize("model", MODELS)
def test_every_field_is_described(model: type[BaseModel]) -> None:
    for name, field in model.model_fields.items():
        assert field.description, f"{model.__name__}.{name}"
        if model in RULES_MODELS:
            assert "FR-" in field.description, f"{model.__name__}.{name} cites no ruling"


@pytest.mark.parametrize("model", MODELS)
def test_unknown_keys_are_rejected(model: type[BaseModel]) -> None:
    data = {"kind": "gem", "count": 1} if model is Relic else {}
    model.model_validate(data)
    with pytest.raises(ValidationError) as info:
        model.model_validate({**data, "bogus": 1})
    assert problem(info) == "extra_forbidden"


@pytest.mark.parametrize(
    "data",
    [{"rounds": "5"}, {"rounds": True}, {"rounds": 5.0}, {"ravens": {"one": {"action": "no"}}}],
)
def test_strict_types(data: dict) -> None:
    with pytest.raises(ValidationError):
        Rules.model_validate(data)


def test_resolved_rules_survive_json() -> None:
    rules = Rules(removed_relics={2: 8, 3: 2}, thief_relics=["gem"])
    assert Rules.model_validate(json.loads(rules.model_dump_json())) == rules


# Cross-field errors: the message starts with the key path relative to Rules (config.py adds
# "rules." in front).
def deck(**relics: dict) -> dict[str, dict]:
    return {"gem": {"kind": "gem", "count": 4}, **relics}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"relics": deck(Gold={"kind": "chest", "count": 1, "value": 7})},
            "relics.Gold: a relic name must be a lowercase identifier ([a-z][a-z0-9_]*)",
        ),
        (
            {"relics": deck(**{"2x": {"kind": "gem", "count": 1}})},
            "relics.2x: a relic name must be a lowercase identifier ([a-z][a-z0-9_]*)",
        ),
        (
            {"relics": deck(nine={"kind": "gem", "count": 1})},
            "relics.nine: 'nine' is a Raven's name; choose another",
        ),
        (
            {"relics": {"gem": {"kind": "gem", "count": 0}}},
            "relics: the deck must hold 1-200 relics, got 0",
        ),
        (
            {"relics": {f"g{i}": {"kind": "gem", "count": 60} for i in range(4)}},
            "relics: the deck must hold 1-200 relics, got 240",
        ),
        (
            {"removed_relics": {2: 22}},
            "removed_relics.2: must be less than the 22 relics in the deck, got 22",
        ),
        (
            {"relics": {f"r{i}": {"kind": "hollow", "count": 1} for i in range(49)}},
            "relics: at most 48 kinds of relic, got 49",
        ),
        ({"removed_relics": {1: 0}}, "removed_relics.1: player counts are 2-4, got 1"),
        ({"thief_relics": ["gem", "crown"]}, "thief_relics[1]: no relic named 'crown' in relics"),
    ],
)
def test_rules_cross_field_errors(data: dict, message: str) -> None:
    with pytest.raises(ValidationError) as info:
        Rules.model_validate(data)
    assert problem(info) == message


def test_relic_value_only_on_chests() -> None:
    assert Relic(kind="chest", count=1, value=7).value == 7
    with pytest.raises(ValidationError) as info:
        Relic(kind="cursed", count=3, value=1)
    assert problem(info) == "value: only a chest has a value; a cursed must leave it at 0"


def test_edge_values_accepted() -> None:
    rules = Rules(
        relics={"only": {"kind": "hollow", "count": 1}},
        removed_relics={2: 0, 3: 0, 4: 0},
        thief_relics=["only"],
        rounds=20,
        hand_size=1,
    )
    assert rules.total_relics() == 1
    counts = {"a": 60, "b": 60, "c": 60, "d": 20}
    full = Rules(relics={k: {"kind": "gem", "count": n} for k, n in counts.items()})
    assert full.total_relics() == schema.MAX_RELICS == 200


names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(
    lambda n: n not in schema.RAVEN_NAMES
)
relic = st.builds(
    dict,
    kind=st.sampled_from(["gem", "hollow", "cursed"]),
    count=st.integers(0, 60),
)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(names, relic, max_size=8))
def test_any_deck_of_1_to_200_relics_is_valid(relics: dict[str, dict]) -> None:
    total = sum(r["count"] for r in relics.values())
    data = {"relics": relics, "removed_relics": {}}
    if 1 <= total <= schema.MAX_RELICS:
        assert Rules.model_validate(data).total_relics() == total
    else:
        with pytest.raises(ValidationError):
            Rules.model_validate(data)


@pytest.mark.parametrize("seats", [["greedy"] * 4, ["random"] * 4])
def test_the_largest_config_the_state_holds_plays(seats: list[str]) -> None:
    """48 relic types and 200 relics (schema's limits) fill the kernels' fixed-size arrays
    (tables.MAX_TYPES, MAX_CAP, CARDS_W; state.SEAT_W): games play and every relic counts."""
    extra = {f"x{i}": {"kind": "hollow", "count": 5 if i < 34 else 2} for i in range(38)}
    cfg = helpers.config(players=4, seats=seats, rules={"relics": extra, "thief_relics": ["x0"]})
    assert len(cfg.rules.relics) == schema.MAX_RELIC_TYPES == 48
    assert cfg.rules.total_relics() == schema.MAX_RELICS
    compiled = PLUGIN.compile(cfg)
    chunk = PLUGIN.play(compiled, 3, 0, 40)
    assert chunk.telemetry.shape == (40, 4, len(compiled.columns))
    assert (chunk.turns > 0).all()
    stolen = [j for j, name in enumerate(compiled.columns) if name.startswith("stolen__")]
    assert chunk.telemetry[:, :, stolen].sum() > 0
