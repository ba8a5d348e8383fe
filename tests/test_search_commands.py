"""Search seats in every command (issue 29): each command runs a config with a search seat, on a
small budget, and means what it says about it.

The Raven Order's shipped search config at 4 iterations a decision: its kernels compile once for
the module (every command here runs in this process) and a game costs a few milliseconds.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from balance import results
from balance.cli import app

ROOT = Path(__file__).resolve().parent.parent
SEARCH = ROOT / "configs" / "raven_order" / "search_vs_economy.yaml"
BASE = ROOT / "configs" / "raven_order" / "base.yaml"
SMALL = ("--set", "policies.mcts.iterations=4")

pytestmark = pytest.mark.xdist_group("search_commands")  # one process compiles the kernels


def run(*args: object):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert not result.exception or isinstance(result.exception, SystemExit), result.exception
    return result


def _rows(out: Path) -> pl.DataFrame:
    return results.open_results(out)[1].collect().sort(["game", "seat"])


def test_simulate_writes_the_search_seats_games_and_says_who_played(tmp_path):
    out = tmp_path / "run"
    result = run("simulate", SEARCH, *SMALL, "--games", 60, "--out", out)
    assert result.exit_code == 0, result.output
    rows = _rows(out)
    assert rows.height == 120
    manifest = results.read_manifest(out)
    assert manifest["config"]["policies"]["mcts"]["kind"] == "search"
    assert manifest["config"]["policies"]["mcts"]["iterations"] == 4
    assert rows.filter(pl.col("seat") == 0)["policy"].unique().to_list() == ["mcts"]
    # the same games again, and the same again with the games split otherwise
    again = tmp_path / "again"
    assert run("simulate", SEARCH, *SMALL, "--games", 60, "--out", again,
               "--chunk-size", 25).exit_code == 0  # fmt: skip
    assert _rows(again).equals(rows)


def test_a_search_seat_changes_the_decisions_not_the_deals(tmp_path):
    # common random numbers: the search config and its rollout line-up (economy in both seats)
    # deal alike; only the seat's choices differ, so some games differ and none is broken
    a, b = tmp_path / "a", tmp_path / "b"
    assert run("simulate", SEARCH, *SMALL, "--games", 40, "--out", a).exit_code == 0
    plain = ("--set", "seats=[economy, economy]", "--set", "report.headline.policy=economy")
    assert run("simulate", SEARCH, *plain, "--games", 40, "--out", b).exit_code == 0
    ra, rb = _rows(a), _rows(b)
    assert ra["game"].to_list() == rb["game"].to_list()
    assert not ra["rank"].equals(rb["rank"]) or not ra["turns"].equals(rb["turns"])


def test_replay_is_the_datasets_game_and_says_what_the_search_weighed(tmp_path):
    out = tmp_path / "run"
    assert run("simulate", SEARCH, *SMALL, "--games", 3, "--out", out).exit_code == 0
    row = _rows(out).filter(pl.col("game") == 2)
    result = run("replay", out, "--game", 2)
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "How the search decided (seat 0 (mcts)" in text
    assert "after 4 searched games over" in text
    assert "won " in text and " of " in text
    turns = int(row["turns"][0])
    assert str(turns) in text  # the replay's end names the dataset's length


def test_replay_html_of_a_corvids_search_game(tmp_path):
    """The HTML replay (Corvids': the pile after every turn) draws a search game too: the
    replay's Position keeps the pictures, the search's own copies keep none; the search's
    reasons are on the page."""
    config = ROOT / "configs" / "corvids" / "search_vs_greedy.yaml"
    page = tmp_path / "game.html"
    result = run("replay", config, "--game", 1, "--set", "policies.mcts.iterations=3",
                 "--html", page)  # fmt: skip
    assert result.exit_code == 0, result.output
    html = page.read_text()
    assert "How the search decided" in html and "after 3 searched games over" in html
    assert "plotly" in html.lower()


def test_compare_impact_sweep_and_tune_run_with_a_search_seat(tmp_path):
    small = tmp_path / "small.yaml"  # compare's --set changes both configs: a file instead
    small.write_text(f"extends: {SEARCH}\npolicies:\n  mcts: {{iterations: 4}}\n")
    result = run("compare", BASE, small, "--games", 40)
    assert result.exit_code == 0, result.output
    assert "win share    seat 0" in result.stdout
    result = run("impact", small, "--games", 40, "--out", tmp_path / "impact.json")
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "impact.json").read_text())
    result = run("sweep", SEARCH, "--over", "policies.mcts.iterations=2,8", "--games", 40,
                 "--out", tmp_path / "sweep.json")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output


@pytest.mark.slow
def test_tune_finds_a_knob_with_a_search_seat_in_the_line_up():
    result = run(
        "tune", SEARCH, "--set", "policies.mcts.iterations=1", "--param",
        "rules.compensation.gold=0..6", "--target", "win_share[order=0]=0.5", "--games", 2500,
    )  # fmt: skip
    # an answer (0), none in the range (2), or the range's end cannot be told from the target
    # at this budget (1, one line): each a statement about this line-up's games
    assert result.exit_code in (0, 1, 2), result.output
    assert "Traceback" not in result.output
    assert "rules.compensation.gold" in result.output


def test_check_decides_a_claim_about_a_search_seat(tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        f"batch: 200\nmax_games: 400\nchecks:\n  - name: search\n    config: {SEARCH}\n"
        "    assertions:\n      - {metric: mean_turns, within: [30, 29]}\n"
    )
    result = run("check", spec, *SMALL)
    assert result.exit_code in (0, 1), result.output
    assert "Traceback" not in result.output
    assert "search" in result.stdout


def test_a_bad_search_setting_is_one_line_naming_the_key(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"extends: {SEARCH}\npolicies:\n  mcts: {{rollout: nobody}}\n")
    result = run("validate", bad)
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1
    assert "policies.mcts.rollout: no policy named 'nobody'" in result.stderr
    bad.write_text(f"extends: {SEARCH}\npolicies:\n  mcts: {{iterations: 0}}\n")
    result = run("validate", bad)
    assert result.exit_code == 1 and "policies.mcts.iterations" in result.stderr
    bad.write_text(f"extends: {SEARCH}\npolicies:\n  mcts: {{rollout: mcts}}\n")
    result = run("validate", bad)
    assert result.exit_code == 1 and "is a search policy" in result.stderr


def test_a_config_without_a_search_seat_compiles_no_search_code():
    import subprocess
    import sys

    code = (
        "import sys\nfrom balance import games\nfrom balance.config import load_config\n"
        f"c = load_config({str(BASE)!r})\np = games.get(c.game)\nt = p.compile(c)\n"
        "p.play(t, 1, 0, 10)\n"
        "print(sorted(m for m in sys.modules if m.startswith('balance.games.')"
        " and m.rsplit('.', 1)[1] in ('search', '_search')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"  # balance.search, the settings, is pure Python
