"""A game's report variants (plugin.report_variants): `simulate --report` plays them on the same
games and the report shows the first player's edge with and without them (issue 4: The Raven
Order's compensation, RO-1)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from balance import experiments, games
from balance.cli import app
from balance.config import load_config

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "configs" / "raven_order" / "base.yaml"


def _cli(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert not result.exception or isinstance(result.exception, SystemExit), result.exception
    return result


def _text(page: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def test_raven_order_names_its_compensation_and_five_ravens_nothing():
    ro = load_config(BASE)
    [v] = experiments.report_variants(games.get("raven_order"), ro)
    assert v.name == "no compensation"
    assert v.patch == {"rules": {"compensation": {"sentries": 0, "workers": 0, "gold": 0}}}
    off = load_config(ROOT / "configs" / "raven_order" / "no_compensation.yaml")
    [w] = experiments.report_variants(games.get("raven_order"), off)
    assert (w.name, w.patch) == (
        "rulebook compensation",
        {"rules": {"compensation": {"sentries": 1}}},
    )
    fr = load_config(ROOT / "configs" / "five_ravens" / "base.yaml")
    assert experiments.report_variants(games.get("five_ravens"), fr) == []


@pytest.fixture(scope="module")
def reported(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ro_report")
    out, page = tmp / "run", tmp / "ro.html"
    # report.impact_games fixes the impact's games: with only report.impact_seconds they depend
    # on this machine's speed (a slow CI machine fitted fewer than 3,000).
    config = tmp / "ro.yaml"
    config.write_text(f"extends: {BASE}\nreport:\n  impact_games: 3000\n")
    result = _cli("simulate", config, "--games", 3000, "--out", out, "--report", page)
    assert result.exit_code == 0, result.output
    return out, page, result.stdout


def test_simulate_report_plays_the_variant_on_the_same_games(reported):
    out, _, stdout = reported
    # Causal card impact by default: the game's report variant first, then its impact variants
    # (one per rune), on the run's games (all 3,000: report.impact_games).
    assert "card impact: 20 variants x 3,000 games (the run's first games, same seeds" in stdout
    data = json.loads((out / "variants.json").read_text())
    assert (data["games"], data["seed"]) == (3000, 1)
    names = [v["name"] for v in data["variants"]]
    assert names[0] == "no compensation" and len(names) == 20 and data["featured"] == names[:1]
    rows = [
        r
        for r in data["table"]
        if (r["kind"], r["group"], r["metric"], r["variant"])
        == ("order", "0", "win_share", "no compensation")
    ]
    [row] = rows
    assert row["games"] == 3000
    # The base share is the dataset's own first-player share: the same games were played.
    import polars as pl

    from balance import results

    _, rows_lf = results.open_results(out)
    first = rows_lf.filter(pl.col("order") == 0).select(pl.col("win").mean()).collect().item()
    assert first == pytest.approx(row["a"], abs=1e-12)
    # Without the second player's sentry, the first player wins clearly more often.
    assert row["b"] - row["a"] > 0.1 and row["lo"] > 0


def test_report_shows_the_first_players_edge_with_and_without(reported):
    out, page, _ = reported
    text = _text(page.read_text())
    assert "First player's edge in each variant" in text
    assert "The first player's edge is" in text and "with “no compensation”" in text
    data = json.loads((out / "variants.json").read_text())
    [row] = [
        r
        for r in data["table"]
        if (r["kind"], r["group"], r["metric"], r["variant"])
        == ("order", "0", "win_share", "no compensation")
    ]
    assert f"{row['a']:.2%}" in text and f"{row['b']:.2%}" in text


def test_balance_report_on_the_directory_finds_its_variants(reported, tmp_path):
    out, _, _ = reported
    again = tmp_path / "again.html"
    assert _cli("report", out, "-o", again).exit_code == 0
    assert "First player's edge in each variant" in _text(again.read_text())
