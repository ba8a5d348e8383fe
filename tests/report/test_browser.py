"""The report in a real browser: headless Chromium (Debian ``chromium`` + ``chromium-driver``)
driven by selenium opens a report from a ``file://`` URL with the network unavailable, logs no
console errors, draws every plotly figure and sorts its tables on a click.

In CI (``CI`` set; ``.ci/run`` installs the browser) a missing browser FAILS this test, it never
skips; on a machine without Chromium it skips with the reason. Selenium never downloads a
browser or a driver here: both paths are given, and ``SE_OFFLINE`` forbids Selenium Manager.
"""

from __future__ import annotations

import os
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

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "five_ravens" / "random_vs_greedy.yaml"
BASELINE = ROOT / "configs" / "five_ravens" / "base.yaml"
GAMES = 300
VARIANTS = """\
- name: gem worth more
  description: every gem count scores double
  patch: {rules: {scoring: {gem_table: [2, 12, 18, 30]}}}
- name: seven off
  description: the 7 does nothing
  patch: {rules: {ravens: {seven: {action: false, capture: false}}}}
"""

NO_SEVEN = "rules: {ravens: {seven: {action: false, capture: false}}}\n"

pytestmark = pytest.mark.slow


def _cli(*args: object) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    """Reports of a small Five Ravens run, made through the CLI: inlined (with a baseline and
    impact variants, so every section is there) and --cdn; and a `compare --report` page."""
    require_browser()
    tmp = tmp_path_factory.mktemp("browser")
    run, base = tmp / "random_vs_greedy", tmp / "base"
    _cli("simulate", CONFIG, "--games", GAMES, "--out", run)
    _cli("simulate", BASELINE, "--games", GAMES, "--out", base)
    (tmp / "variants.yaml").write_text(VARIANTS)
    impact = tmp / "impact.json"
    _cli("impact", CONFIG, "--games", GAMES, "--variants", tmp / "variants.yaml", "--out", impact)
    inline, cdn = tmp / "report.html", tmp / "cdn.html"
    _cli("report", run, "--baseline", base, "--impact", impact, "-o", inline)
    _cli("report", run, "-o", cdn, "--cdn")
    (tmp / "no_seven.yaml").write_text(f"extends: {BASELINE}\n{NO_SEVEN}")
    compare = tmp / "compare.html"
    _cli("compare", BASELINE, tmp / "no_seven.yaml", "--games", GAMES, "--report", compare)
    return {
        "inline": inline,
        "cdn": cdn,
        "compare": compare,
        "published": ROOT / "reports" / "five_ravens.html",
        "raven_order": ROOT / "reports" / "raven_order.html",
        "raven_manor": ROOT / "reports" / "raven_manor.html",
        "corvids": ROOT / "reports" / "corvids.html",
    }


@pytest.fixture(scope="module")
def driver(reports, tmp_path_factory):
    with offline_chromium(tmp_path_factory.mktemp("chromium-profile"), "1280,1000") as browser:
        yield browser


def _wait_for_figures(driver) -> int:
    from selenium.webdriver.support.ui import WebDriverWait

    total = driver.execute_script("return document.querySelectorAll('div[data-figure]').length")
    WebDriverWait(driver, 60).until(
        lambda d: (
            d.execute_script(
                "return document.querySelectorAll('div[data-figure].js-plotly-rendered').length"
            )
            == total
        )
    )
    return total


# Every drawn figure's axes show tick labels (text with a box), and its legend (if any) covers
# neither the plot area nor the tick labels and titles of an axis. Returns the problems found.
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
    const sel = `.${ax._id}tick text`;
    const ticks = Array.from(div.querySelectorAll(sel)).filter(
      t => t.textContent.trim() && box(t).width > 0 && box(t).height > 0);
    if (!ticks.length) problems.push(`${id} ${name}: no visible tick labels`);
  }
  const legend = div.querySelector('.legend');
  if (legend && full.showlegend) {
    const lb = box(legend);
    const covered = ['.nsewdrag', '.xtick text', '.ytick text', '.g-xtitle', '.g-ytitle',
                     '.g-x2title', '.g-x3title']
      .flatMap(s => Array.from(div.querySelectorAll(s)))
      .filter(el => box(el).width > 0 && overlap(lb, box(el)));
    if (covered.length) problems.push(`${id}: legend overlaps ${covered[0].getAttribute('class') || covered[0].textContent}`);
  }
}
return problems;
"""


def _screenshots(driver, name: str, shots: list[Path]) -> None:
    """PNGs of the whole page and of each figure, into every directory of ``shots`` (none: no
    capture)."""
    import base64

    if not shots:
        return

    from selenium.webdriver.common.by import By

    size = driver.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
    )
    full = driver.execute_cdp_cmd(
        "Page.captureScreenshot",
        {
            "format": "png",
            "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 0.5},
        },
    )["data"]
    figures = []
    for el in driver.find_elements(By.CSS_SELECTOR, "div.figure"):
        # The whole figure, however tall (an element screenshot stops at the window's edge).
        x, y, w, h = driver.execute_script(
            "const r = arguments[0].getBoundingClientRect();"
            "return [r.left + scrollX, r.top + scrollY, r.width, r.height]",
            el,
        )
        clip = {"x": x, "y": y, "width": w, "height": h, "scale": 1}
        png = driver.execute_cdp_cmd(
            "Page.captureScreenshot",
            {"format": "png", "captureBeyondViewport": True, "clip": clip},
        )["data"]
        figures.append((el.get_attribute("id"), base64.b64decode(png)))
    for root in shots:
        out = root / name
        out.mkdir(parents=True, exist_ok=True)
        (out / "page.png").write_bytes(base64.b64decode(full))
        for fid, png in figures:
            (out / f"{fid}.png").write_bytes(png)


@pytest.fixture(scope="module")
def shots() -> list[Path]:
    """Where the screenshots go: $BALANCE_ARTIFACTS/screenshots when set, else nowhere (a
    full-page capture of a 5 MB report re-lays out the page once per figure: minutes of a loaded
    CI machine for pictures nobody reads)."""
    if os.environ.get("BALANCE_ARTIFACTS"):
        return [Path(os.environ["BALANCE_ARTIFACTS"]) / "screenshots"]
    return []


@pytest.mark.parametrize(
    ("report", "figures", "headline"),
    [
        # win share per seat and policy, turn order, score, length, card impact, 2 against the
        # baseline, impact variants, how the game plays (the winner's lead through the game)
        ("inline", 10, "Greedy seats win "),
        # the published 1M-game report (reports/five_ravens.html): one policy, no baseline;
        # seat deviations, turn order, score, length, card impact and its interventional
        # variants, its Skill section's depth chart and findings panels, and its census's two,
        # "How the game plays" (the winner's standing through the game, turns at each place)
        ("published", 10, "No seat wins more or less often than a fair 25 % beyond chance"),
        # the published Raven Order report (200,000 games, economy vs rush) with its report
        # variant (no compensation): win share per seat and policy, turn order, score, length,
        # card impact, the variant, the Skill section's two figures and the census's two, "How
        # the game plays" (the winner's standing through the game, turns at each place)
        ("raven_order", 11, "Economy seats win "),
        # the published Raven Manor and Corvids reports (200,000 games each), with their Skill
        # sections (Raven Manor's: the depth chart and the Family x evil matrix as heat maps)
        # and their census, "How the game plays": the winner's standing through the game and
        # the turns at each place with the dead turns (Raven Manor's 13: seat, team, role, turn
        # order, score, length, card impact, the two census figures and the Skill section's
        # four; Corvids' 13: its 11 and the two census figures)
        ("raven_manor", 13, "The seat farthest from the mean seat win (60.5 %) is seat 2"),
        ("corvids", 13, "No seat wins more or less often than a fair 25 % beyond chance"),
        # compare base.yaml with the 7 switched off: win share, mean score, game length
        ("compare", 3, "B differs from A in rules.ravens.seven.action (true → false)"),
    ],
)
def test_report_opens_offline_without_console_errors_and_draws_every_figure(
    driver, reports, shots, report, figures, headline
):
    open_page(driver, reports[report])
    assert _wait_for_figures(driver) == figures
    undrawn = driver.execute_script(
        "return Array.from(document.querySelectorAll('div[data-figure]'))"
        ".filter(d => !d.querySelector('svg.main-svg') || !d.querySelector('.plot .trace, "
        ".plot path, .barlayer .point, .scatterlayer .point, .scatterlayer .trace path, "
        ".heatmaplayer image')).map(d => d.id)"  # a heat map is an image, a pile lines
    )
    assert undrawn == []
    assert severe(driver) == []
    assert fetched_elsewhere(driver) == []
    text = driver.execute_script(
        "return document.querySelector('#summary .headline li').textContent"
    )
    assert text.startswith(headline)
    # Readable at a glance: tick labels on every shown axis, no legend on the data or an axis.
    assert driver.execute_script(READABLE_JS) == []
    _screenshots(driver, report, shots)


def test_card_impact_table_sorts_on_a_click(driver, reports):
    from selenium.webdriver.common.by import By

    open_page(driver, reports["inline"])
    table = driver.find_element(By.CSS_SELECTOR, "table[id^='impact-']")
    headers = {h.text.strip(): h for h in table.find_elements(By.CSS_SELECTOR, "thead th")}

    def column(name: str) -> list[str]:
        index = list(headers).index(name)
        return driver.execute_script(
            "return Array.from(arguments[0].tBodies[0].rows).map(r => "
            "r.cells[arguments[1]].getAttribute('data-v') ?? r.cells[arguments[1]].textContent)",
            table,
            index,
        )

    def numbers(values: list[str]) -> list[float]:
        return [float(v) for v in values if v != ""]

    diff = "diff (points)"
    headers[diff].click()
    first = column(diff)
    assert numbers(first) == sorted(numbers(first)) and len(numbers(first)) > 10
    assert first[-1] == "" or "" not in first  # rows without a contrast stay last
    assert headers[diff].get_attribute("aria-sort") == "ascending"
    headers[diff].click()
    second = column(diff)
    assert numbers(second) == sorted(numbers(second), reverse=True)
    assert headers[diff].get_attribute("aria-sort") == "descending"
    headers["card"].click()
    cards = [c.lower() for c in column("card")]
    assert cards == sorted(cards)
    assert severe(driver) == []


def test_the_network_really_is_off_a_cdn_report_says_so(driver, reports):
    """The control: a --cdn report cannot load plotly.js here and tells the reader why."""
    from selenium.webdriver.common.by import By

    open_page(driver, reports["cdn"])
    messages = driver.find_elements(By.CSS_SELECTOR, "div[data-figure] .failed")
    assert messages and "network is unavailable" in messages[0].text
    assert driver.find_elements(By.CSS_SELECTOR, ".js-plotly-rendered") == []
