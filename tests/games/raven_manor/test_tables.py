"""Raven Manor's compiled tables (tables.py): what every shipped config compiles to
(``Compiled.tb``, the kernels' ``tb``, beside ``seat_policies``, ``columns`` and ``players``) and
the scripted copies the rule tests play (``with_script``). No game is played."""

from __future__ import annotations

import dataclasses

import pytest

from balance import games
from balance.config import load_config
from balance.games.raven_manor import tables
from balance.games.raven_manor.schema import CARD_NAMES, CHARACTER_NAMES
from balance.search import SearchTables, search_seats

from . import test_schema

SHIPPED = test_schema.SHIPPED


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_config_compiles(path):
    """tables.compile_tables reads every model attribute it needs (no game is played)."""
    cfg = load_config(path)
    compiled = games.get("raven_manor").compile(cfg)
    if isinstance(compiled, SearchTables):  # a search seat: its rollout policy's tables inside
        assert compiled.search_seats == search_seats(cfg)
        compiled = compiled.inner
    tb = compiled.tb
    assert tb.params[tables.P_PLAYERS] == cfg.players
    assert tb.params[tables.P_DECK_N] == cfg.rules.deck_size()
    assert tb.params[tables.P_POOL_N] == len(cfg.rules.characters.pool)
    assert tb.params[tables.P_POOL] == CHARACTER_NAMES.index("raven")  # always dealt first
    assert tb.params[tables.P_COUNT + CARD_NAMES.index("feather")] == cfg.rules.deck["feather"]
    basic = [p for p, name in enumerate(cfg.seats) if name == "basic"]
    if cfg.policies.get("basic", {}).get("values"):
        basic = []
    defaults = [w[1] for w in tables.BASIC_WEIGHTS + tables.REASONING_WEIGHTS]
    assert (tb.weights[basic] == defaults).all()


def test_compiled_names_its_tables_tb_and_a_script_keeps_the_rest():
    """Every game's Compiled has ``tb``, ``seat_policies``, ``columns`` and ``players``;
    ``with_script`` changes only the scripted seats' rows of ``tb``."""
    cfg = load_config(test_schema.BASE)
    compiled = tables.compile_tables(cfg)
    assert [f.name for f in dataclasses.fields(compiled)] == [
        "tb",
        "seat_policies",
        "columns",
        "players",
    ]
    assert compiled.columns == tables.telemetry_names()
    assert len(compiled.columns) == tables.N_TELE
    scripted = tables.with_script(compiled, {1: [3, 4]})
    assert scripted.tb.seat[1, tables.SP_KIND] == tables.POL_SCRIPT
    assert scripted.tb.script[1, :2].tolist() == [3, 4]
    assert (scripted.tb.seat[0] == compiled.tb.seat[0]).all()
    assert scripted.tb.params is compiled.tb.params
    assert (scripted.seat_policies, scripted.players) == (compiled.seat_policies, cfg.players)
    with pytest.raises(ValueError, match="scripted values"):
        tables.with_script(compiled, {0: [0] * (tables.MAX_SCRIPT + 1)})
