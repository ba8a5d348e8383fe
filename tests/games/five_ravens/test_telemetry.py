"""Five Ravens telemetry counts stay far below the uint8 cap; Chunk.saturated says so per column."""

from __future__ import annotations

import numpy as np

from balance.config import load_config
from balance.games.five_ravens import engine
from balance.games.five_ravens.tables import compile_tables

from .helpers import CONFIGS


def test_nothing_saturates_and_the_counts_have_one_cell_per_column():
    c = compile_tables(load_config(CONFIGS / "base.yaml"))
    chunk = engine.play(c, 3, 0, 700)
    assert chunk.saturated is not None
    assert (chunk.saturated.dtype, chunk.saturated.shape) == (np.dtype(np.int64), (len(c.columns),))
    assert not chunk.saturated.any() and chunk.telemetry.max() < 255
    assert engine.play(c, 3, 0, 0).saturated.tolist() == [0] * len(c.columns)
