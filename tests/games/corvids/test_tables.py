"""Corvids config -> kernel tables (tables.compile_tables): every shipped config compiles, and
the arrays hold the config's numbers where the kernels read them (CV-1..CV-3, CV-8, CV-10)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from balance import games
from balance.config import load_config
from balance.games.corvids import physics, tables
from balance.search import SearchTables, rollout_config, search_seats
from balance.games.corvids.schema import BIRD_NAMES, ITEM_NAMES, PHYSICS_PARAMS

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = sorted((ROOT / "configs" / "corvids").glob("*.yaml"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_config_compiles(path):
    """A config with a search seat (search_vs_greedy.yaml) compiles, through the plugin, to
    SearchTables whose tables are its rollout config's (the search seat playing its rollout
    policy); those are the tables checked here, compiled directly from the rollout config."""
    cfg = load_config(path)
    if search_seats(cfg):
        whole = games.get("corvids").compile(cfg)
        assert isinstance(whole, SearchTables) and whole.search_seats == search_seats(cfg)
        cfg = rollout_config(cfg)
        for a, b in zip(whole.inner.tb, tables.compile_tables(cfg).tb):
            np.testing.assert_array_equal(a, b)
    c = tables.compile_tables(cfg)
    k = c.tb
    assert c.players == cfg.players and len(c.columns) == tables.N_TELE
    assert k.params[tables.P_DECK_N] == cfg.rules.deck_size()
    single = sum(k.params[tables.P_SINGLE_N + i] for i in range(tables.NI))
    assert k.params[tables.P_DOUBLE_N] + single == k.params[tables.P_DECK_N]
    assert k.item_weight.sum() == pytest.approx(1.0)
    assert (k.item_weight[tables.STRING :] == 0).all()  # single-sided items never on two sides
    for field, entry in PHYSICS_PARAMS.items():
        assert k.physics[getattr(physics, entry)] == pytest.approx(
            getattr(cfg.rules.physics, field)
        )
    for p, name in enumerate(cfg.seats):
        assert k.weights[p, tables.W_CLUMSY] == cfg.policies[name]["clumsiness"]


def test_base_holds_the_rulings_numbers():
    """CV-1 15 feathers, CV-2 28 + 4 + 4 + 4 cards, CV-3 a face-down coin 3 and sets of 3 for 5,
    CV-11 a steal costs 2, CV-10 eight birds on eight nests."""
    k = tables.compile_tables(load_config(ROOT / "configs" / "corvids" / "base.yaml")).tb
    p = k.params
    assert (p[tables.P_FEATHERS], p[tables.P_DOUBLE_N], p[tables.P_DECK_N]) == (15, 28, 40)
    assert [p[tables.P_SINGLE_N + i] for i in (tables.STRING, tables.TICKET, tables.COIN)] == [
        4
    ] * 3
    assert (p[tables.P_COIN_DOWN], p[tables.P_STEAL_COST]) == (3, 2)
    assert (p[tables.P_SET_SIZE + tables.KEY], p[tables.P_SET_POINTS + tables.KEY]) == (3, 5)
    assert p[tables.P_SET_SIZE + tables.ACORN] == 0  # no acorn set
    assert p[tables.P_BIRDS_N] == len(BIRD_NAMES) == 8
    assert sorted(p[tables.P_BIRD_NEST : tables.P_BIRD_NEST + 8]) == list(range(8))
    assert p[tables.P_BIRD_FAV + BIRD_NAMES.index("raven")] == ITEM_NAMES.index("key")
    assert np.allclose(k.item_weight[: tables.STRING], 1 / 6)
