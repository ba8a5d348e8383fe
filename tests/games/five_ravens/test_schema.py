"""Five Ravens schema: RULINGS.md defaults, the validators, and the error contract with
balance/config/translate.py (cross-field ValueErrors start with the key path relative to the
model)."""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError
from typer.testing import CliRunner

from balance.cli import app
from balance.config import ConfigError, config_from_dict
from balance.config.loading import load_yaml
from balance.games.five_ravens import PLUGIN, schema, tables
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
from balance.games.five_ravens.tables import GREEDY_WEIGHTS, compile_tables

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
    kinds = dict(PLUGIN.policy_kinds)
    search = kinds.pop("search")  # the search player (balance/search.py), its rollout greedy
    assert kinds == {"random": RandomPolicy, "greedy": GreedyPolicy}
    assert search.model_validate({"kind": "search"}).rollout == "greedy"
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


# Cross-field errors: the message starts with the key path relative to Rules
# (balance/config/translate.py adds "rules." in front).
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


# ---------------------------------------------------------------- bounds (what the engine holds)
#
# Every number of the rules and the greedy weights is bounded in schema.py so that the kernels'
# int32 tables hold it and no score can pass int32 (tables.MAX_SCORE); a value past a bound is
# the usual one-line error naming the key, at `balance validate`, not an OverflowError later.

P = schema.MAX_POINTS
W = schema.MAX_WEIGHT
BOUNDS = [  # (key under the config, lowest, highest)
    ("rules.rounds", 1, 20),
    ("rules.hand_size", 1, 20),
    ("rules.relics.chest_5.value", 0, P),
    ("rules.relics.gem.count", 0, 60),
    ("rules.scoring.gem_table[1]", -P, P),
    ("rules.scoring.hollow", -P, P),
    ("rules.scoring.hollow_captured", -P, P),
    ("rules.scoring.cursed_set_size", 1, schema.MAX_RELICS),
    ("rules.scoring.cursed_set_bonus", -P, P),
    ("rules.scoring.four_bonus", -P, P),
    ("rules.scoring.four_threshold", 0, schema.MAX_RELICS),
    ("rules.scoring.eight_penalty", -P, P),
    ("rules.scoring.nine_penalty", -P, P),
    ("rules.scoring.six_multiplier", 1, schema.MAX_SIX_MULTIPLIER),
    ("rules.scoring.six_max_chest", -P, P),
    *((f"policies.greedy.{w}", -float(W), float(W)) for w in GREEDY_WEIGHTS),
]


def base_data() -> dict:
    data, _ = load_yaml(helpers.CONFIGS / "base.yaml")
    return copy.deepcopy(data)


def with_value(key: str, value: Any) -> dict:
    """base.yaml with the value at ``key`` (dotted, ``gem_table[1]`` an index) replaced."""
    data = base_data()
    *parents, last = key.split(".")
    node = data
    for k in parents:
        node = node[k]
    if last.endswith("]"):
        name, i = last[:-1].split("[")
        node[name][int(i)] = value
    else:
        node[last] = value
    return data


@pytest.mark.parametrize(("key", "low", "high"), BOUNDS, ids=[b[0] for b in BOUNDS])
def test_values_at_each_bound_validate_and_compile(key: str, low: float, high: float) -> None:
    for value in (low, high):
        cfg = config_from_dict(with_value(key, value), "base.yaml")
        compile_tables(cfg)


@pytest.mark.parametrize(("key", "low", "high"), BOUNDS, ids=[b[0] for b in BOUNDS])
def test_one_past_each_bound_names_the_key(key: str, low: float, high: float) -> None:
    step = 1 if isinstance(high, int) else 1.0
    for value, sign in ((low - step, ">="), (high + step, "<=")):
        with pytest.raises(ConfigError) as info:
            config_from_dict(with_value(key, value), "base.yaml")
        message = str(info.value)
        assert info.value.key == key, message
        assert message.startswith(f"base.yaml: {key}: must be {sign} "), message
        assert "\n" not in message


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan])
def test_weights_must_be_finite(bad: float) -> None:
    with pytest.raises(ConfigError) as info:
        config_from_dict(with_value("policies.greedy.info_value", bad), "base.yaml")
    assert str(info.value).startswith("base.yaml: policies.greedy.info_value: must be a finite")


def test_every_bound_is_described() -> None:
    """The bound is in the field's text (`balance games five_ravens`), not only in the type."""
    fields = {**Scoring.model_fields, "value": Relic.model_fields["value"]}
    for name in ("gem_table", "hollow", "four_bonus", "six_max_chest", "value"):
        assert str(P) in fields[name].description, name
    assert "1-100" in fields["six_multiplier"].description
    assert "200" in fields["cursed_set_size"].description
    assert "200" in fields["four_threshold"].description
    assert "fewer than the deck's relics" in Rules.model_fields["removed_relics"].description


def test_validate_rejects_a_hollow_past_int32_in_one_line(tmp_path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(
        f"extends: {helpers.CONFIGS / 'base.yaml'}\nrules:\n  scoring:\n    hollow: 2147483648\n"
    )
    out = tmp_path / "run"
    for args in (["validate", path], ["simulate", path, "--out", out]):
        result = CliRunner().invoke(app, [str(a) for a in args])
        assert result.exit_code == 1, result.output
        assert result.stdout == ""
        assert (
            result.stderr
            == f"error: {path}: rules.scoring.hollow: must be <= {P}, got 2147483648\n"
        )
        assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("sign", [1, -1])
def test_every_number_at_its_bound_plays(sign: int) -> None:
    """The largest deck, every point value and weight at its bound: games play, scores are what
    the relics allow (no int32 wrap-around) and every greedy value is finite and far above NEG."""
    deck = {f"c{i}": {"kind": "chest", "count": 50, "value": P} for i in range(2)}
    deck |= {"h": {"kind": "hollow", "count": 50}, "g": {"kind": "gem", "count": 20}}
    deck |= {f"x{i}": {"kind": "cursed", "count": 2} for i in range(15)}
    data = base_data()
    data["rules"] |= {"relics": deck, "rounds": 20, "hand_size": 20}
    data["rules"]["thief_relics"] = ["h", "x0"]
    data["rules"]["scoring"] = {
        "gem_table": [sign * P] * 60,
        **{k: sign * P for k in ("hollow", "hollow_captured", "cursed_set_bonus", "four_bonus")},
        **{k: -sign * P for k in ("eight_penalty", "nine_penalty")},
        "cursed_set_size": 1,
        "four_threshold": 0,
        "six_multiplier": schema.MAX_SIX_MULTIPLIER,
        "six_max_chest": P,
    }
    data["policies"]["greedy"] = {"kind": "greedy", **{w: sign * W for w in GREEDY_WEIGHTS}}
    data["policies"]["other"] = {"kind": "greedy", **{w: -sign * W for w in GREEDY_WEIGHTS}}
    data["seats"] = ["greedy", "other", "random", "greedy"]
    cfg = config_from_dict(data, "base.yaml")
    assert cfg.rules.total_relics() == schema.MAX_RELICS
    compiled = compile_tables(cfg)
    derived = compiled.tb.weights[:4]
    assert np.isfinite(derived).all() and np.isfinite(compiled.tb.cvmax[:4]).all()
    assert np.abs(derived).max() < 1e-3 * -tables.NEG
    chunk = PLUGIN.play(compiled, 5, 0, 20)
    assert np.abs(chunk.score).max() <= tables.MAX_SCORE
    if sign > 0:  # every point is a gain: a wrap-around would show as a negative score
        assert (chunk.score >= 0).all() and chunk.score.max() >= 10 * P


# ---------------------------------------------------------------- any config within the bounds


@st.composite
def mutated_base(draw: st.DrawFn) -> dict:
    """configs/five_ravens/base.yaml with its numbers redrawn within the schema's bounds."""
    data = base_data()
    ints = st.integers
    players = draw(ints(2, 4))
    data["players"] = players
    data["seats"] = draw(st.lists(st.sampled_from(["greedy", "random"]), min_size=players,
                                  max_size=players))  # fmt: skip
    rules = data["rules"]
    rules["rounds"] = draw(ints(1, 20))
    rules["hand_size"] = draw(ints(1, 20))
    for name, relic in rules["relics"].items():
        relic["count"] = draw(ints(1 if name == "gem" else 0, 20))  # at most 200 relics
        if relic["kind"] == "chest":
            relic["value"] = draw(ints(0, P))
    total = sum(r["count"] for r in rules["relics"].values())
    rules["removed_relics"] = {players: draw(ints(0, total - 1))}
    rules["thief_relics"] = draw(st.lists(st.sampled_from(list(rules["relics"])), unique=True))
    points = ints(-P, P)
    sc = rules["scoring"]
    sc["gem_table"] = draw(st.lists(points, min_size=1, max_size=60))
    for key in ("hollow", "hollow_captured", "cursed_set_bonus", "four_bonus", "eight_penalty",
                "nine_penalty", "six_max_chest"):  # fmt: skip
        sc[key] = draw(points)
    sc["cursed_set_size"] = draw(ints(1, schema.MAX_RELICS))
    sc["four_threshold"] = draw(ints(0, schema.MAX_RELICS))
    sc["six_multiplier"] = draw(ints(1, schema.MAX_SIX_MULTIPLIER))
    weight = st.floats(-W, W, allow_nan=False, allow_infinity=False) | ints(-W, W)
    data["policies"]["greedy"] |= {w: draw(weight) for w in GREEDY_WEIGHTS}
    return data


@settings(max_examples=30, deadline=None)
@given(mutated_base(), st.integers(0, 2**63 - 1))
def test_any_config_within_the_bounds_compiles_and_plays(data: dict, seed: int) -> None:
    cfg = config_from_dict(data, "base.yaml")
    compiled = compile_tables(cfg)
    chunk = PLUGIN.play(compiled, seed, 0, 20)
    assert chunk.score.shape == (20, cfg.players)
    assert np.abs(chunk.score).max() <= tables.MAX_SCORE
    assert (chunk.rank >= 1).all() and (chunk.rank <= cfg.players).all()
