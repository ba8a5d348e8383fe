"""Corvids' own report sections (balance/games/corvids/views/report.py through ``Game.report_sections``):
a small run's report holds the starting pile of its first game and the pile events per game, each
number with its interval, computed over games (one row per game, not per seat-row), the set-up
failures left out; other games' reports hold neither."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from balance import stats
from balance.cli import app
from balance.games import get as get_game
from balance.games.corvids import PLUGIN
from balance.games.corvids.views import report
from balance.report.numbers import game_report_sections
from balance.results import open_results

ROOT = Path(__file__).resolve().parents[3]
CONFIG = ROOT / "configs" / "corvids" / "base.yaml"
GAMES = 300

pytestmark = pytest.mark.slow


def _cli(*args: object) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("corvids") / "run"
    _cli("simulate", CONFIG, "--games", GAMES, "--out", out)
    return out


@pytest.fixture(scope="module")
def page(run) -> str:
    html = run.parent / "report.html"
    _cli("report", run, "-o", html, "--no-impact")
    return html.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def rows(run) -> pl.DataFrame:
    return open_results(run)[1].collect()


def _section(page: str, key: str) -> str:
    m = re.search(rf'<section id="d1-run-{key}">(.*?)</section>', page, re.S)
    assert m, key
    return m.group(1)


def _figures(html: str) -> list[dict]:
    return [
        json.loads(s)
        for s in re.findall(
            r'<script type="application/json" id="fig-\d+-data">(.*?)</script>', html
        )
    ]


def _values(a) -> np.ndarray:
    """A plotly JSON array: a list, or a typed array (``{"dtype", "bdata"}``, base64)."""
    if isinstance(a, dict):
        return np.frombuffer(base64.b64decode(a["bdata"]), dtype=a["dtype"])
    return np.asarray(a)


def test_the_report_draws_the_first_games_starting_pile(page):
    html = _section(page, "pile-start")
    assert "<h3>A typical starting pile</h3>" in html
    (fig,) = _figures(html)
    shapes = fig["layout"]["shapes"]
    assert sum(s["type"] == "path" for s in shapes) == 40  # every card, at set-up
    assert sum(s["type"] == "circle" for s in shapes) == 15  # and every feather
    assert fig["layout"]["title"]["text"].startswith("Game 0 of seed 1 after set-up:")
    assert "One example, not an average" in html
    # the sections sit between the distributions and the card diagnostics, and in the nav
    ids = re.findall(r'<section id="d1-run-([a-z-]+)">', page)
    assert ids.index("scores") < ids.index("pile-start") < ids.index("pile-events")
    assert ids.index("pile-events") < ids.index("cards")
    assert 'href="#d1-run-pile-events">pile events per game</a>' in page


def test_pile_events_are_over_games_with_intervals(rows, page):
    ev = report.pile_events(rows)
    per_game = rows.filter(pl.col("order") == 0).sort("game")
    assert per_game.height == GAMES == per_game["game"].n_unique()
    ok = per_game.filter(pl.col("end_reason") != "setup_failed")
    assert ev.games == ok.height and ev.failed == GAMES - ok.height
    for m, col in (
        (ev.off_mat, "game_off_mat"),
        (ev.isolated, "game_isolated"),
        (ev.retries, "game_setup_retries"),
    ):
        v = ok[col].to_numpy().astype(float)
        t = stats.mean_interval(stats.moments(v[:, None]))
        assert m.n == ev.games
        assert m.mean == pytest.approx(v.mean())
        assert (m.lo, m.hi) == pytest.approx((t.lo[0], t.hi[0]))
        assert m.lo < m.mean < m.hi or m.lo == m.hi
    first = ok["game_first_nest"].to_numpy()
    assert ev.never.k == (first < 0).sum() and ev.never.n == ev.games
    assert ev.first_turn.n == (first >= 0).sum()
    assert ev.first_turn.mean == pytest.approx((first[first >= 0] + 1).mean())
    lo, hi = stats.wilson_interval(ev.never.share, ev.games)
    assert (ev.never.lo, ev.never.hi) == pytest.approx((float(lo), float(hi)))
    # per seat: one row per game each
    assert [s["seat"] for s in ev.seats] == [0, 1, 2, 3]
    for s in ev.seats:
        turn = rows.filter(pl.col("seat") == s["seat"])["nest_turn"].to_numpy()
        assert s["never"].n == GAMES and s["never"].k == (turn < 0).sum()
        assert s["turn"].mean == pytest.approx((turn[turn >= 0] + 1).mean())
    # the page says them with their intervals
    html = _section(page, "pile-events")
    for sentence in report.event_sentences(ev):
        assert sentence.replace("'", "&#x27;") in html
    assert html.count("95 % interval") >= 6
    value, interval = report._mean_texts(ev.off_mat)
    assert f'<td class="text">{value}</td><td class="text">{interval}</td>' in html
    (fig,) = _figures(html)
    assert [a["text"].split(":")[0] for a in fig["layout"]["annotations"]] == [
        "Cards off the mat",
        "Isolated pieces",
        "Set-up re-scatters",
        "First nest uncovered",
    ]
    assert sum(_values(bar["y"]).sum() for bar in fig["data"][:3]) == 3 * ev.games


def test_the_first_nest_turn_is_the_replays_turn(rows):
    """game_first_nest + 1 is the number of the replay's turn that uncovered the first nest."""
    compiled = PLUGIN.compile(__import__("balance.config").config.load_config(CONFIG))
    for game in range(3):
        lines = get_game("corvids").replay(compiled, 1, game).lines
        turn, first = 0, None
        for line in lines:
            if line.startswith("Turn "):
                turn = int(line.split()[1].rstrip(":"))
            elif first is None and "'s nest " in line and "is uncovered" in line:
                first = turn
        recorded = rows.filter((pl.col("game") == game) & (pl.col("order") == 0))
        value = int(recorded["game_first_nest"][0])
        assert (value + 1 if value >= 0 else None) == first


def test_pile_events_count_each_game_once_and_leave_out_failed_set_ups():
    """Planted rows: the game columns repeat on every seat's row; a failed set-up is left out."""
    rows = pl.DataFrame(
        {
            "game": [0, 0, 1, 1, 2, 2],
            "seat": [0, 1, 0, 1, 0, 1],
            "policy": ["greedy"] * 6,
            "order": [0, 1, 1, 0, 0, 1],
            "end_reason": ["pile_empty"] * 4 + ["setup_failed"] * 2,
            "nest_turn": [3, -1, 5, 7, -1, -1],
            "game_off_mat": [2, 2, 0, 0, 0, 0],
            "game_isolated": [4, 4, 6, 6, 0, 0],
            "game_setup_retries": [1, 1, 3, 3, -1, -1],
            "game_setup_redraws": [2, 2, 4, 4, 7, 7],
            "game_first_nest": [3, 3, 5, 5, -1, -1],
        }
    )
    ev = report.pile_events(rows)
    assert (ev.games, ev.failed) == (2, 1)
    assert (ev.off_mat.mean, ev.isolated.mean, ev.retries.mean) == (1.0, 5.0, 2.0)
    assert ev.redraws.mean == 3.0  # games 0 and 1, once each
    assert ev.first_turn.mean == 5.0 and ev.first_turn.n == 2  # turns 4 and 6
    assert (ev.never.k, ev.never.n) == (0, 2)
    seat0, seat1 = ev.seats
    assert seat0["turn"].mean == 5.0 and seat0["never"].k == 0
    assert seat1["turn"].n == 1 and seat1["turn"].mean == 8.0 and seat1["never"].k == 1
    assert report.mean_words(seat1["turn"]) == "8.0 (one game: no interval)"
    assert np.isnan(seat1["turn"].lo)
    assert report.pile_events(rows.drop("game_first_nest")) is None  # an older dataset


def test_other_games_add_no_sections():
    assert game_report_sections({"game": "five_ravens"}, pl.LazyFrame()) == []
    assert game_report_sections({"game": "no such game"}, pl.LazyFrame()) == []
