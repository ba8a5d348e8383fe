"""Game i of seed s is the same game whatever the chunking, the thread count or --chunk-size
(DESIGN.md, Determinism)."""

from __future__ import annotations

from itertools import pairwise

import numba
import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from balance import results
from balance.cli import app
from balance.games.raven_order import engine

from .helpers import BASE, compiled

FIELDS = ("score", "rank", "turns", "end_reason", "order", "telemetry")


def arrays(chunk) -> dict[str, np.ndarray]:
    out = {f: getattr(chunk, f) for f in FIELDS}
    out.update({f"extra_{k}": v for k, v in chunk.extra.items()})
    return out


def assert_same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> None:
    assert a.keys() == b.keys()
    for k in a:
        assert a[k].dtype == b[k].dtype, k
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


@pytest.fixture(scope="module")
def mixed():
    return compiled(["economy", "random"])


@pytest.mark.parametrize("bounds", [[0, 150, 300], [0, 1, 64, 150, 211, 300]])
def test_same_games_whatever_the_chunking(base, bounds):
    whole = arrays(engine.play(base, 7, 0, 300))
    parts = [arrays(engine.play(base, 7, a, b - a)) for a, b in pairwise(bounds)]
    assert_same(whole, {k: np.concatenate([p[k] for p in parts]) for k in whole})
    late = engine.play(base, 7, 150, 10)
    assert late.first_game == 150
    np.testing.assert_array_equal(late.telemetry, whole["telemetry"][150:160])


def test_same_games_whatever_the_thread_count(mixed):
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = arrays(engine.play(mixed, 11, 5, 400))
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = arrays(engine.play(mixed, 11, 5, 400))
    finally:
        numba.set_num_threads(before)
    assert_same(one, two)


def test_same_seed_same_games_other_seed_other_games(base):
    a = engine.play(base, 3, 0, 300)
    b = engine.play(base, 3, 0, 300)
    c = engine.play(base, 4, 0, 300)
    assert_same(arrays(a), arrays(b))
    assert not np.array_equal(a.telemetry, c.telemetry)
    assert len({tuple(row) for row in a.telemetry.reshape(300, -1)}) > 250


def test_play_checks_its_inputs(base):
    with pytest.raises(ValueError, match="n_games"):
        engine.play(base, 1, 0, -1)
    with pytest.raises(ValueError, match="seed"):
        engine.play(base, -1, 0, 10)
    with pytest.raises(ValueError, match="seed"):
        engine.play(base, 2**63, 0, 10)
    assert engine.play(base, 1, 0, 0).n_games == 0


def _simulate(out, threads: int, chunk: int) -> pl.DataFrame:
    result = CliRunner().invoke(
        app,
        [
            "simulate",
            str(BASE),
            "--games",
            "300",
            "--seed",
            "5",
            "--threads",
            str(threads),
            "--chunk-size",
            str(chunk),
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    manifest, rows = results.open_results(out)
    assert manifest["status"] == "complete" and manifest["games_done"] == 300
    return rows.collect().sort("game", "seat")


def test_simulate_writes_the_same_parquet_for_any_threads_and_chunk_size(tmp_path):
    before = numba.get_num_threads()
    try:
        a = _simulate(tmp_path / "a", 1, 300)
        b = _simulate(tmp_path / "b", 2, 64)
        c = _simulate(tmp_path / "c", 1, 77)
    finally:
        numba.set_num_threads(before)
    assert a.height == 600
    assert a.equals(b) and a.equals(c)
    # and it is engine.play's run: same scores as the kernel's chunk
    chunk = engine.play(compiled(), 5, 0, 300)
    np.testing.assert_array_equal(a["score"].to_numpy().reshape(300, 2), chunk.score)
    np.testing.assert_array_equal(a["turns"].to_numpy()[::2], chunk.turns)
