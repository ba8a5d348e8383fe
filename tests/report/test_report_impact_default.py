"""`balance report RESULTS` plays the causal card impact a results directory lacks (issue 14,
part 2): the game's variants on the run's own first games and seed, kept in RESULTS/variants.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from balance.cli import app

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "five_ravens" / "base.yaml"


@pytest.fixture(scope="module")
def plain_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("plain")
    out = tmp / "run"
    # report.impact_games fixes the impact's games; report.impact_seconds alone makes them depend
    # on the machine's speed (a slow CI machine fitted fewer than 3,000 in another test)
    config = tmp / "fr.yaml"
    config.write_text(f"extends: {CONFIG}\nreport:\n  impact_games: 3000\n")
    result = CliRunner().invoke(
        app, ["simulate", str(config), "--games", "3000", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert not (out / "variants.json").exists()  # simulate without --report plays no variants
    return out


@pytest.mark.slow
def test_report_of_a_directory_without_card_impact_plays_it(plain_run, tmp_path):
    page = tmp_path / "r.html"
    result = CliRunner().invoke(app, ["report", str(plain_run), "-o", str(page)])
    assert result.exit_code == 0, result.output
    assert "card impact: 33 variants x 3,000 games (the run's first games, same seeds" in (
        result.stdout
    )
    data = json.loads((plain_run / "variants.json").read_text())
    assert (data["games"], data["seed"]) == (3000, 1)
    text = page.read_text()
    assert "Card impact: causal" in text and "Verdict" in text
    # a second report reuses the kept file: no games played again
    again = CliRunner().invoke(app, ["report", str(plain_run), "-o", str(tmp_path / "s.html")])
    assert again.exit_code == 0 and "card impact:" not in again.stdout


@pytest.mark.slow
def test_no_impact_leaves_the_directory_as_it_was(tmp_path):
    out = tmp_path / "run"
    r = CliRunner().invoke(app, ["simulate", str(CONFIG), "--games", "3000", "--out", str(out)])
    assert r.exit_code == 0, r.output
    result = CliRunner().invoke(
        app, ["report", str(out), "--no-impact", "-o", str(tmp_path / "r.html")]
    )
    assert result.exit_code == 0, result.output
    # 3,000 games would get their card impact (above); --no-impact plays none and writes nothing
    assert not (out / "variants.json").exists() and "card impact" not in result.stdout
