"""The Corvids replay page and report in a real browser: headless Chromium (Debian ``chromium`` +
``chromium-driver``) driven by selenium opens them from ``file://`` URLs with the network
unavailable; they log no console errors, draw their figures, and the replay's words and pile
follow its slider (a click on the slider's rail, the buttons, the arrow keys).

As tests/report/test_browser.py (both use tests/report/browser.py): in CI (``CI`` set) a missing browser FAILS this test, it never
skips; on a machine without Chromium it skips with the reason. Selenium never downloads a
browser or a driver: both paths are given, and ``SE_OFFLINE`` forbids Selenium Manager.
"""

from __future__ import annotations

import json
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

ROOT = Path(__file__).resolve().parents[3]
CONFIG = ROOT / "configs" / "corvids" / "base.yaml"
GAMES = 300

pytestmark = pytest.mark.slow


def _cli(*args: object) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    """A replay page and the report of a small run, made through the CLI."""
    require_browser()
    tmp = tmp_path_factory.mktemp("corvids-browser")
    replay = tmp / "game0.html"
    _cli("replay", CONFIG, "--game", 0, "--html", replay)
    run = tmp / "run"
    _cli("simulate", CONFIG, "--games", GAMES, "--out", run)
    report = tmp / "report.html"
    _cli("report", run, "-o", report, "--no-impact")
    return {"replay": replay, "report": report}


@pytest.fixture(scope="module")
def driver(pages, tmp_path_factory):
    with offline_chromium(tmp_path_factory.mktemp("chromium-profile"), "1400,1000") as browser:
        yield browser


def _wait(driver, script: str, expected, timeout: float = 180):
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout).until(lambda d: d.execute_script(script) == expected)


STATE_JS = """
const div = document.getElementById('pile');
return {
  step: div.getAttribute('data-step'),
  title: document.getElementById('turn-title').textContent,
  first: (document.querySelector('#turn-lines .line') || {}).textContent || '',
  lines: document.querySelectorAll('#turn-lines .line').length,
  active: div.layout.sliders[0].active,
  cards: div.layout.shapes.filter(s => s.type === 'path').length,
  drawn: div.querySelectorAll('.shapelayer path').length,
  shapes: div.layout.shapes.length,
};
"""


def test_the_replay_opens_offline_and_its_words_follow_the_slider(driver, pages):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    open_page(driver, pages["replay"])
    _wait(driver, "return !!document.querySelector('#pile.js-plotly-rendered')", True)
    steps = driver.execute_script(
        "return JSON.parse(document.getElementById('pile-data').textContent)"
        ".layout.sliders[0].steps.map(s => s.args[0].shapes.filter(x => x.type === 'path')"
        ".length)"
    )
    words = json.loads(
        driver.execute_script("return document.getElementById('pile-words').textContent")
    )
    turns = len(steps) - 1
    assert turns > 5 and len(words) == turns + 1
    state = driver.execute_script(STATE_JS)
    assert state["title"] == "Set-up and birds" and state["step"] == "0"
    assert state["first"].startswith("Corvids, game 0 of seed 1")
    assert state["cards"] == steps[0] == 40
    assert state["drawn"] == state["shapes"]  # every shape of the pile is drawn as a path

    # a click on the slider's rail, three quarters along, moves the pile and the words there
    rail = driver.find_element(By.CSS_SELECTOR, "#pile .slider-rail-touch-rect")
    width = rail.size["width"]
    ActionChains(driver).move_to_element_with_offset(rail, int(width * 0.25), 0).click().perform()
    _wait(driver, "return document.getElementById('pile').getAttribute('data-step') !== '0'", True)
    state = driver.execute_script(STATE_JS)
    t = int(state["step"])
    assert turns // 2 < t <= turns
    assert state["active"] == t
    assert state["title"].startswith(f"Turn {t} of {turns}")
    assert state["first"].startswith(f"Turn {t}: ")
    assert state["lines"] == len(words[t]["lines"])
    assert state["cards"] == steps[t]

    # the buttons and the arrow keys step one turn
    driver.find_element(By.ID, "prev").click()
    _wait(driver, "return document.getElementById('pile').layout.sliders[0].active", t - 1)
    state = driver.execute_script(STATE_JS)
    assert state["step"] == str(t - 1) and state["first"].startswith(f"Turn {t - 1}: ")
    assert state["cards"] == steps[t - 1]
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    _wait(driver, "return document.getElementById('pile').layout.sliders[0].active", t)
    assert driver.execute_script(STATE_JS)["cards"] == steps[t]

    # the slider's far end: the last turn, then the scores
    ActionChains(driver).move_to_element_with_offset(rail, int(width / 2) - 2, 0).click().perform()
    _wait(driver, "return document.getElementById('pile').getAttribute('data-step')", str(turns))
    state = driver.execute_script(STATE_JS)
    last = driver.execute_script(
        "return Array.from(document.querySelectorAll('#turn-lines .line')).map(e => e.textContent)"
    )
    assert last[-1].startswith("The pile holds no card after")
    assert state["cards"] == 0
    assert severe(driver) == []
    assert fetched_elsewhere(driver) == []


# Every drawn figure's axes show tick labels, and a legend covers neither the plot area nor an
# axis's tick labels and titles (tests/report/test_browser.py's check).
READABLE_JS = """
const problems = [];
const box = el => el.getBoundingClientRect();
const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
                          Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
for (const div of document.querySelectorAll('div[data-figure].js-plotly-rendered')) {
  const id = div.id, full = div._fullLayout;
  const axes = Object.keys(full).filter(k => /^[xy]axis\\d*$/.test(k));
  for (const name of axes) {
    const ax = full[name];
    if (!ax.visible || !ax.showticklabels || ax.overlaying) continue;
    const ticks = Array.from(div.querySelectorAll(`.${ax._id}tick text`)).filter(
      t => t.textContent.trim() && box(t).width > 0 && box(t).height > 0);
    if (!ticks.length) problems.push(`${id} ${name}: no visible tick labels`);
  }
  const legend = div.querySelector('.legend');
  if (legend && full.showlegend) {
    const lb = box(legend);
    const covered = ['.nsewdrag', '.xtick text', '.ytick text', '.g-xtitle', '.g-ytitle']
      .flatMap(s => Array.from(div.querySelectorAll(s)))
      .filter(el => box(el).width > 0 && overlap(lb, box(el)));
    if (covered.length) problems.push(`${id}: legend overlaps ${covered[0].getAttribute('class')}`);
  }
}
return problems;
"""


def test_the_report_draws_the_starting_pile_and_the_pile_events(driver, pages):
    open_page(driver, pages["report"])
    total = driver.execute_script("return document.querySelectorAll('div[data-figure]').length")
    _wait(
        driver,
        "return document.querySelectorAll('div[data-figure].js-plotly-rendered').length",
        total,
    )
    pile = driver.execute_script(
        "const d = document.querySelector('[id$=pile-start] div[data-figure]');"
        "return [d.layout.shapes.filter(s => s.type === 'path').length,"
        " d.querySelectorAll('.shapelayer path').length, d.layout.shapes.length]"
    )
    assert pile == [40, 55, 55]  # every card and feather of the set-up drawn
    events = driver.execute_script(
        "return document.querySelectorAll('[id$=pile-events] div[data-figure] .barlayer .point')"
        ".length"
    )
    assert events > 10
    assert driver.execute_script(READABLE_JS) == []
    assert severe(driver) == []
    assert fetched_elsewhere(driver) == []
