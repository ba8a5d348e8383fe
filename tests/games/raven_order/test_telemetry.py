"""Telemetry that passes 255 (uint8) is clipped and counted per column in Chunk.saturated, which
the runner adds to the manifest's ``telemetry_saturated`` (the kit's clip_u8)."""

from __future__ import annotations

import numpy as np

from balance.games.raven_order import engine

from .helpers import compiled


def test_counts_past_255_are_clipped_and_counted():
    # Two random seats that never attack play to a long turn cap: some seat-game counts pass 255.
    c = compiled(
        ["calm", "calm"],
        {"turn_cap": 3000},
        policies={"calm": {"kind": "random", "attack": 0.0}},
    )
    chunk = engine.play(c, 1, 0, 100)
    assert chunk.saturated is not None and chunk.saturated.dtype == np.int64
    assert chunk.saturated.shape == (len(c.columns),)
    at_cap = (chunk.telemetry == 255).sum(axis=(0, 1))
    assert chunk.saturated.sum() > 0
    # a clipped cell reads 255; cells of exactly 255 are not clipped, so at most the cap count
    assert (chunk.saturated <= at_cap).all()
    # the count does not depend on the chunking (each block counts its own games)
    parts = [engine.play(c, 1, a, b - a).saturated for a, b in ((0, 7), (7, 70), (70, 100))]
    np.testing.assert_array_equal(sum(parts), chunk.saturated)


def test_a_base_game_clips_nothing():
    chunk = engine.play(compiled(), 1, 0, 500)
    assert not chunk.saturated.any()
