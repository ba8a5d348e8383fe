"""The sweep page in a real browser (the harness of tests/report/browser.py): a Five Ravens sweep
of the player count and a grid of two knobs, made through the CLI, open offline from a
``file://`` URL without console errors, draw every figure (a curve with error bars per metric),
show tick labels on every axis and keep legends off the data."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from balance.cli import app
from tests.report.browser import (
    fetched_elsewhere,
    offline_chromium,
    open_page,
    require_browser,
    severe,
)
from tests.report.test_browser import READABLE_JS, _wait_for_figures

ROOT = Path(__file__).resolve().parents[2]
EDGE = ROOT / "configs" / "five_ravens" / "first_player_edge.yaml"
GAMES = 300

pytestmark = pytest.mark.slow


def _cli(*args: object) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    require_browser()
    tmp = tmp_path_factory.mktemp("sweep-browser")
    players, grid = tmp / "players.html", tmp / "grid.html"
    _cli("sweep", EDGE, "--over", "players=2,3,4", "--games", GAMES, "--out", tmp / "p",
         "--report", players)  # fmt: skip
    _cli("sweep", EDGE, "--over", "rules.relics.gem.count=2..4", "--over", "players=3,4",
         "--games", GAMES, "--out", tmp / "g")  # fmt: skip
    _cli("report", tmp / "g", "-o", grid)
    return {"players": players, "grid": grid}


@pytest.fixture(scope="module")
def driver(pages, tmp_path_factory):
    with offline_chromium(tmp_path_factory.mktemp("chromium-profile")) as browser:
        yield browser


@pytest.mark.parametrize(
    ("page", "figures", "first"),
    [
        # edge, seat, place, score, length (one policy: no policy figure; one end reason), and
        # how the game plays: lead changes, comebacks, when decided, margin
        ("players", 9, "configs/five_ravens/first_player_edge.yaml at 3 points (players over 2"),
        ("grid", 9, "configs/five_ravens/first_player_edge.yaml at 6 points (rules.relics.gem"),
    ],
)
def test_sweep_page_opens_offline_and_draws_every_curve(driver, pages, page, figures, first):
    open_page(driver, pages[page])
    assert _wait_for_figures(driver) == figures
    bars = driver.execute_script(
        "return Array.from(document.querySelectorAll('div[data-figure]')).map(d => "
        "d.querySelectorAll('.scatterlayer .trace .errorbar').length)"
    )
    assert all(n >= 3 for n in bars), bars  # every figure: a point with its interval per value
    assert severe(driver) == []
    assert fetched_elsewhere(driver) == []
    text = driver.execute_script(
        "return document.querySelector('#summary .headline li').textContent"
    )
    assert text.startswith(first)
    assert driver.execute_script(READABLE_JS) == []
