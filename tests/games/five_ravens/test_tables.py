"""Five Ravens tables (tables.compile_tables): the Compiled object every game has, and the net
under the schema's bounds (a value that got past them is a ConfigError naming its key)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from balance.config import ConfigError
from balance.games.five_ravens import PLUGIN, tables
from balance.games.five_ravens.tables import P_N_TELE, P_PLAYERS, compile_tables

from . import helpers


def test_compiled_has_the_kernel_tables_the_seats_the_columns_and_the_players() -> None:
    cfg = helpers.config(3, ["greedy", "random", "greedy"])
    c = compile_tables(cfg)
    assert isinstance(c.tb, tables.Tables)
    assert c.players == 3 == int(c.tb.params[P_PLAYERS])
    assert c.seat_policies == tuple(cfg.seats) and len(c.seat_policies) == 3
    assert len(c.columns) == int(c.tb.params[P_N_TELE])
    assert PLUGIN.telemetry_columns(c) == list(c.columns)


def test_the_largest_score_fits_int32() -> None:
    assert tables.MAX_SCORE == 3_520_000 < 2**31 - 1  # with the handicap's 10,000


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("rules.scoring.hollow", 2**31),
        ("rules.scoring.six_max_chest", -(2**31) - 1),
        ("rules.scoring.gem_table[1]", 2**40),
        ("rules.relics.chest_5.value", 2**31),
        ("rules.scoring.six_multiplier", 2**63),
        ("rules.rounds", 2**31),
    ],
)
def test_compile_names_the_key_of_a_value_past_int32(key: str, value: int) -> None:
    """The safety net: a value that got past the schema (a model changed after validation) is a
    ConfigError naming its key, not numpy's OverflowError."""
    cfg = helpers.config()
    *parents, last = key.removeprefix("rules.").split(".")
    node: Any = cfg.rules
    for k in parents:
        node = node[k] if isinstance(node, dict) else getattr(node, k)
    if last.endswith("]"):
        getattr(node, last.split("[")[0])[1] = value
    else:
        setattr(node, last, value)
    with pytest.raises(ConfigError) as info:
        compile_tables(cfg)
    assert info.value.key == key
    assert str(info.value) == f"{key}: {value} does not fit the engine's 32-bit integers" + (
        " (-2147483648 to 2147483647)"
    )


def test_compile_refuses_scores_that_could_pass_int32() -> None:
    cfg = helpers.config()
    cfg.rules.scoring.hollow = 2**30  # fits int32, but four hollows of it do not
    with pytest.raises(ConfigError) as info:
        compile_tables(cfg)
    assert info.value.key == "rules.scoring"
    assert "past the engine's 32-bit scores" in str(info.value)


def test_compile_refuses_a_weight_past_the_schema() -> None:
    cfg = helpers.config()
    cfg.policies["greedy"]["draw_value"] = math.nan
    with pytest.raises(ConfigError) as info:
        compile_tables(cfg)
    assert info.value.key == "policies.greedy.draw_value"
