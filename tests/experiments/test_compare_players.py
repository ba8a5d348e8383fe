"""``balance compare`` of one game at two player counts: independent samples, only what means
the same at both counts (issue 14, part 4; the statistics: tests/stats/test_across.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from balance import experiments
from balance.cli import app
from balance.config import load_config
from balance.stats.across import METRICS, SAMPLES

ROOT = Path(__file__).resolve().parents[2]
FR = ROOT / "configs" / "five_ravens"


def run(*args: object):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert not result.exception or isinstance(result.exception, SystemExit), result.exception
    return result


def test_compare_of_two_and_four_players(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    page = tmp_path / "c.html"
    a, b = "configs/five_ravens/two_players.yaml", "configs/five_ravens/base.yaml"
    result = run("compare", a, b, "--games", 1500, "--report", page, "--cdn")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith(
        f"compare A = {a}, B = {b}: 1,500 games of each, independent samples (seed 1, 2 and 4 "
        "players) in "
    )
    lines = out.splitlines()
    assert [x.split()[0:3] for x in lines if x.strip().startswith("share / fair")] == [
        ["share", "/", "fair"]
    ] * 2  # the places both counts have: 1st and 2nd
    assert any("share / fair" in x and "1st player" in x for x in lines)
    assert any("edge over fair" in x and "1st player" in x for x in lines)
    assert any("mean score" in x and "all seat-games" in x for x in lines)
    turns = next(x for x in lines if "mean turns" in x)
    assert turns.rstrip().endswith("*")  # 4 players play about twice as long
    assert not any("seat " in x for x in lines if x.startswith("  "))  # no per-seat rows
    assert "win share" not in out
    assert "independent samples (different player counts" in out
    html = page.read_text()
    assert SAMPLES in html and "A: 2, B: 4" in html


def test_the_table_is_share_times_players_and_the_rule_applies():
    a = load_config(FR / "two_players.yaml")
    b = load_config(FR / "three_players.yaml")
    c = experiments.compare(a, b, games=600, seed=3)
    assert not c.paired and c.samples == SAMPLES
    t = c.table
    assert t["metric"].unique(maintain_order=True).to_list() == list(METRICS)
    assert set(t["kind"]) == {"order", "all", "game"}
    norm = t.filter(t["metric"] == "normalised_share")
    edge = t.filter(t["metric"] == "first_edge").row(0, named=True)
    first = norm.row(0, named=True)
    # edge = share - 1/n and share / fair = share × n describe the same first-player share
    np.testing.assert_allclose(first["a"] / 2 - 1 / 2, edge["a"])
    np.testing.assert_allclose(first["b"] / 3 - 1 / 3, edge["b"])
    np.testing.assert_allclose(norm["a"].sum(), 2.0)  # 2 places whose shares sum to 1
    assert {"q_value", "significant"} <= set(t.columns)


def test_compare_still_refuses_two_games():
    result = run(
        "compare", FR / "base.yaml", ROOT / "configs" / "raven_order" / "base.yaml", "--games", 10
    )
    assert result.exit_code == 1
    assert (
        result.stderr
        == "error: compare needs configs of the same game, got five_ravens and raven_order\n"
    )
