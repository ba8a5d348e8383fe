"""Corvids telemetry (tables.TE_*, per seat and game in Chunk.telemetry): its columns follow the
layout, and the counts agree with the game's outcome: a seat holds the cards it picked and stole
less those stolen from it, and the feathers it gained less those it paid (CV-4, CV-5, CV-11)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from balance import games
from balance.config import load_config
from balance.games.corvids import tables

ROOT = Path(__file__).resolve().parents[3]


def test_telemetry_names_follow_the_layout():
    names = tables.telemetry_names()
    assert names[tables.TE_PICKED + tables.KEY] == "picked__key"
    assert names[tables.TE_LOST + tables.COIN] == "lost__coin"
    assert names[tables.TE_FEATHERS_PAID] == "paid__feathers"
    assert len(set(names)) == len(names)


def columns(chunk, names: list[str], prefix: str) -> np.ndarray:
    """The sum over the columns named ``prefix__*`` (int64[n, P])."""
    cols = [k for k, name in enumerate(names) if name.startswith(prefix + "__")]
    return chunk.telemetry[:, :, cols].astype(np.int64).sum(axis=2)


@pytest.mark.parametrize("name", ["base", "random_vs_greedy", "eight_players"])
def test_the_counts_add_up_to_what_each_seat_holds_at_the_end(name):
    """Over 200 games: cards held = picked + stole - stolen, feathers held = gained - paid, no
    count saturated, and the uint8 telemetry is as wide as the columns."""
    plugin = games.get("corvids")
    cfg = load_config(ROOT / "configs" / "corvids" / f"{name}.yaml")
    c = plugin.compile(cfg)
    chunk = plugin.play(c, cfg.seed, 0, 200)
    names = plugin.telemetry_columns(c)
    assert chunk.telemetry.dtype == np.uint8
    assert (
        chunk.telemetry.shape == (200, cfg.players, len(names)) == (200, c.players, tables.N_TELE)
    )
    assert not chunk.saturated.any()
    held = columns(chunk, names, "picked") + columns(chunk, names, "stole")
    held -= columns(chunk, names, "stolen")
    assert np.array_equal(held, chunk.extra["cards"])
    feathers = columns(chunk, names, "gained") - columns(chunk, names, "paid")
    assert np.array_equal(feathers, chunk.extra["feathers"])
    assert columns(chunk, names, "stole").sum() == columns(chunk, names, "stolen").sum()
