"""Bounds before work (issue 26, item 4): every command that plays games refuses a --games no
results dataset could index, with simulate's limit and message, and a replay refuses a --game no
run could hold, in one line, exit 1, before anything is compiled or played."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from balance.cli import app

ROOT = Path(__file__).resolve().parent.parent
BASE = str(ROOT / "configs" / "five_ravens" / "base.yaml")
OTHER = str(ROOT / "configs" / "five_ravens" / "no_seven.yaml")
HUGE = str(2**70)


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", BASE, "--games", HUGE],
        ["compare", BASE, OTHER, "--games", HUGE],
        ["impact", BASE, "--games", HUGE],
        [
            "tune",
            BASE,
            "--param",
            "rules.relics.chest_5.value=0..40",
            "--target",
            "mean_score=8",
            "--games",
            HUGE,
        ],
    ],
    ids=["simulate", "compare", "impact", "tune"],
)
def test_every_command_bounds_games_like_simulate(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    assert result.output.strip().splitlines()[-1] == (
        "error: --games 1,180,591,620,717,411,303,424 is more than a results dataset can index: "
        "at most 1,073,741,823 games of 4 players (polars indexes at most 2**32 - 1 rows)"
    )
    assert list(tmp_path.iterdir()) == []  # nothing written


@pytest.mark.parametrize("game", [HUGE, "1073741823"])
def test_a_replay_refuses_a_game_no_run_could_hold(game):
    result = CliRunner().invoke(app, ["replay", BASE, "--game", game])
    assert result.exit_code == 1, result.output
    assert "is beyond any run: a results dataset holds at most 1,073,741,823 games" in result.output
    assert "Traceback" not in result.output
