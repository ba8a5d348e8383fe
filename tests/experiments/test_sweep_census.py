"""``balance sweep --census N`` (issue 32: how the game is taken, at every point of a sweep).

- Each point's census is the one ``balance census DIR/<point>`` takes (the same file, the same
  numbers), and the same command again keeps it.
- The sweep's curve rows of the census's measures are stats/census.py's ``summary`` of each
  point's census, and its steps between points of one player count are ``paired_summary`` of the
  two censuses (the same games), with q-values from the one rule, in the family of how the game
  plays; points of different player counts are not compared on them.
- Planted censuses give the known curve and step.
- ``--census`` beyond the points' games, or on search seats, is one line before any game.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from balance import census as cs
from balance.cli import app
from balance.report import numbers
from balance.stats import census as sc
from balance.stats import curves

ROOT = Path(__file__).resolve().parent.parent.parent
CORVIDS = ROOT / "configs" / "corvids" / "base.yaml"


def cli(*args: object):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert not result.exception or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """A Corvids sweep of two feather counts (the same player count: paired), 300 games a
    point, the census of the first 8 of each."""
    out = tmp_path_factory.mktemp("sweep") / "sw"
    args = ("sweep", CORVIDS, "--over", "rules.feathers=12,18", "--games", 300)
    result = cli(*args, "--census", 8, "--out", out)
    assert result.exit_code == 0, result.output
    return out, args, result.stdout


def test_each_point_has_the_census_balance_census_takes(swept):
    out, _, stdout = swept
    points = sorted(p for p in out.iterdir() if p.is_dir())
    assert len(points) == 2
    for p in points:
        c = cs.read_census(p / cs.CENSUS_FILE)
        assert c.games == 8 and c.settings == cs.DEFAULT.plain()
        config, seed = cs.results_run(p, 8, None)
        frame, _ = cs.census(config, seed, range(8))
        assert c.frame.equals(frame)
        assert f"{p}/{cs.CENSUS_FILE}" in stdout


def test_the_same_sweep_again_keeps_the_censuses(swept):
    out, args, _ = swept
    before = {p: (p / cs.CENSUS_FILE).stat().st_mtime_ns for p in out.iterdir() if p.is_dir()}
    result = cli(*args, "--census", 8, "--out", out)
    assert result.exit_code == 0, result.output
    assert result.stdout.count("kept (the same census)") == 2
    assert {p: (p / cs.CENSUS_FILE).stat().st_mtime_ns for p in before} == before


def test_curves_and_steps_are_the_censuses_summaries(swept):
    out, _, _ = swept
    ss = numbers.analyse_sweep(out)
    points = sorted(p for p in out.iterdir() if p.is_dir())
    frames = [cs.read_census(p / cs.CENSUS_FILE).frame for p in points]
    for k, frame in enumerate(frames):
        want = sc.summary(frame).filter(pl.col("metric").is_in(sc.SWEPT)).sort("metric")
        got = ss.curve.filter((pl.col("point") == k) & pl.col("metric").is_in(sc.SWEPT))
        got = got.sort("metric")
        assert got["metric"].to_list() == want["metric"].to_list() == sorted(sc.SWEPT)
        np.testing.assert_allclose(got["value"], want["mean"])
        np.testing.assert_allclose(got["lo"], want["lo"])
        np.testing.assert_allclose(got["hi"], want["hi"])
        assert set(got["games"]) == {8}
    want = sc.paired_summary(*frames).filter(pl.col("metric").is_in(sc.SWEPT)).sort("metric")
    got = ss.steps.filter(pl.col("metric").is_in(sc.SWEPT)).sort("metric")
    for col in ("a", "b", "diff", "lo", "hi", "p_value"):
        np.testing.assert_allclose(got[col], want[col], equal_nan=True)
    # the one rule: how the game plays (trajectories and censuses) is a family of its own
    how = ss.steps.filter(pl.col("metric").is_in(curves.HOW))
    assert got["q_value"].is_not_null().all() and how.height > got.height


def planted(dead: list[int], gaps: list[int]) -> pl.DataFrame:
    """A census of two seats: game g has 10 turns, dead[g] of them dead (seat 0's), and its
    first place takes gaps[g] more turns than the last (gaps even)."""
    rows = []
    for g, (d, gap) in enumerate(zip(dead, gaps, strict=True)):
        first = 5 + gap // 2
        rows.append((g, 0, 0, 1.0, first, d, first, d, 0, 0))
        rows.append((g, 1, 1, 0.0, 10 - first, 0, 10 - first, 0, 0, 0))
    return pl.DataFrame(rows, schema=cs.COLUMNS, orient="row")


def test_planted_censuses_give_the_known_step():
    a = planted([0, 1, 2, 3] * 5, [0, 2] * 10)  # 15 % of turns dead, a gap of 1 turn
    b = planted([2, 3, 4, 5] * 5, [0, 2] * 10)  # 35 %: +20 points; the same gaps
    ta = curves._census_paired(*(_point(x) for x in (a, b)), 0.95)
    rows = {r["metric"]: r for r in ta.iter_rows(named=True)}
    assert set(rows) == {"first_minus_last", "dead_turns"}  # kingmaking not tested: left out
    assert rows["dead_turns"]["a"] == pytest.approx(0.15)
    assert rows["dead_turns"]["diff"] == pytest.approx(0.20)
    # every game moved by exactly 2 dead turns in 10: no spread, an interval of no width
    assert rows["dead_turns"]["lo"] == pytest.approx(0.20)
    assert rows["first_minus_last"]["diff"] == 0 and rows["first_minus_last"]["a"] == 1


def _point(frame: pl.DataFrame) -> curves.PointData:
    """A point holding only a census (what ``_census_paired`` reads)."""
    return curves.PointData(0, 0, pl.DataFrame(), None, None, None, (), None, frame, False)  # type: ignore[arg-type]


def test_points_without_a_census_are_not_compared_on_it():
    a = planted([0] * 4, [0] * 4)
    assert curves._census_paired(_point(a), _point(None), 0.95).height == 0  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("config", "census", "problem"),
    [
        ("base", 301, "--census 301: must be between 1 and 300 (games per point)"),
        ("search_vs_greedy", 5, "this config has search seats"),
    ],
)
def test_a_census_the_sweep_cannot_take_is_one_line_before_any_game(
    tmp_path, config, census, problem
):
    out = tmp_path / "sw"
    path = CORVIDS.with_name(f"{config}.yaml")
    args = ("sweep", path, "--over", "rules.feathers=12,18", "--games", 300, "--out", out)
    result = cli(*args, "--census", census)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert problem in result.stderr
    assert not out.exists()
