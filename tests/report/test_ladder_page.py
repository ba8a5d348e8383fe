"""The ladder's page (balance/report/ladder_page.py): its sentences rest on its intervals, and it
opens offline in a real browser (the harness of tests/report/browser.py) drawing every figure."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from balance.cli import app
from balance.report import ladder_page as P
from balance.stats.ladder import Depth, Finding, Step
from tests.report.browser import (
    fetched_elsewhere,
    offline_chromium,
    open_page,
    require_browser,
    severe,
)
from tests.report.test_browser import READABLE_JS, _wait_for_figures

ROOT = Path(__file__).resolve().parents[2]
FR = ROOT / "configs" / "five_ravens" / "base.yaml"
RM = ROOT / "configs" / "raven_manor" / "base.yaml"


def _cli(*args: object) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


def _step(lo: float, hi: float) -> Step:
    return Step("a", "b", 100, 0.3, 0.25, (lo + hi) / 2, lo, hi, 0.01)


def test_the_depth_sentence_says_a_ladder_only_when_every_lower_bound_is_above_0():
    yes = Depth([_step(0.01, 0.05), _step(0.02, 0.09)], 0.975, True)
    assert P.depth_sentence(yes).startswith("Each rung wins more than the rung below up to b")
    no = Depth([_step(0.01, 0.05), _step(-0.01, 0.03), _step(-0.09, -0.02)], 0.983, False)
    said = P.depth_sentence(no)
    assert "b over a: no edge distinguishable from chance; b over a: wins less" in said
    assert said.startswith("Not a ladder all the way up")


def _finding(call: str, value, lo, hi, reference=True) -> Finding:
    return Finding("order", "1", reference, value, lo, hi, [100] * len(value), 0.02, 0.01,
                   0.03, 0.001, 0.004, call)  # fmt: skip


def test_a_findings_sentence_follows_its_call():
    rungs = ["random", "greedy", "search_25"]
    grows = _finding("grows", [0.01, 0.03, 0.05], [-0.01, 0.01, 0.03], [0.03, 0.05, 0.07])
    assert P.finding_sentence(grows, rungs).startswith("The 1st player's edge grows with skill: ")
    flips = _finding("flips", [0.05, 0.0, -0.05], [0.02, -0.02, -0.08], [0.08, 0.02, -0.02])
    said = P.finding_sentence(flips, rungs)
    assert "flips with skill: above 0 at random, below 0 at search_25" in said
    side = _finding("shrinks", [0.9, 0.7, 0.5], [0.85, 0.65, 0.45], [0.95, 0.75, 0.55], False)
    assert P.finding_sentence(side, rungs).startswith("The 1st player's win share falls with skill")
    unknown = _finding("not determined", [0.0] * 3, [-0.1] * 3, [0.1] * 3)
    assert "not determined at these games" in P.finding_sentence(unknown, rungs)
    # Corvids' first player (search ladder, 2026-12): above 0 at every rung, the trend open
    positive = _finding("not determined", [0.047, 0.055, 0.08], [0.02, 0.03, 0.052],
                        [0.07, 0.08, 0.109])  # fmt: skip
    assert P.finding_sentence(positive, rungs).startswith(
        "The 1st player's edge is positive at every rung (simultaneous intervals); how it "
        "changes with skill is not determined at these games (+4.7 "
    )
    negative = _finding("not determined", [-0.05] * 3, [-0.08] * 3, [-0.01] * 3)
    assert " is negative at every rung " in P.finding_sentence(negative, rungs)
    crossing = _finding("not determined", [0.05, 0.0], [0.02, -0.03], [0.08, 0.03])
    assert crossing.sign == 0 and positive.sign == 1 and negative.sign == -1
    raw = _finding("not determined", [0.9] * 3, [0.8] * 3, [0.95] * 3, reference=False)
    assert raw.sign == 0  # a dealt side's raw share has no 0 to be above
    assert "every rung" not in P.finding_sentence(raw, rungs)


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("ladder-page")
    fr, rm = tmp / "fr.html", tmp / "rm.html"
    _cli("ladder", FR, "--rungs", "random,greedy,search_2", "--games", 200, "--out", tmp / "fr",
         "--report", fr)  # fmt: skip
    _cli("ladder", RM, "--rungs", "random,basic", "--games", 200, "--out", tmp / "rm",
         "--impact", "none")  # fmt: skip
    said = _cli("report", tmp / "rm", "-o", rm)
    assert said.startswith(f"report -> {rm}")
    return {"fr": fr, "rm": rm, "fr_ladder": tmp / "fr"}


def test_the_page_says_what_the_terminal_says(pages):
    text = pages["fr"].read_text()
    assert "Skill ladder: fr" in text and "rungs random &lt; greedy &lt; search_2" in text
    assert "Skill against luck: search_2 in one seat among random players wins" in text
    assert '<section id="impact"><h2>Card impact at every rung</h2>' in text
    rm = pages["rm"].read_text()
    assert "side raven" in rm and "role raven" in rm  # a dealt side and the roles
    assert '<section id="sides"><h2>Family rung against evil rung</h2>' in rm
    assert "With a stronger evil side (Family random), from random to basic" in rm
    assert "simultaneous over the 4 cells" in rm
    assert '<section id="sides">' not in text  # Five Ravens deals no sides


def test_the_verdict_says_the_headline_among_the_report_s_own_players(pages):
    """A report whose run is a rung's mirror (same rules, seats and policies; any games) hears
    the headline at that rung too, between the ends: Raven Manor's published report plays basic
    players, whose 91 % for the Raven's side the ends (random, search_32) would leave out."""
    import json

    ls = P.analyse_ladder(pages["fr_ladder"])
    mirror = [json.loads((pages["fr_ladder"] / m["dir"] / "manifest.json").read_text())
              for m in ls.manifest["points"] if m["kind"] == "mirror"]  # fmt: skip
    assert [P.report_rung(ls, m) for m in mirror] == [0, 1, 2]
    said = P.skill_sentence(ls, ("win_share", "order", "0"), mirror[1])
    assert said.startswith("Across skill (random < greedy < search_2): The 1st player's edge")
    assert " among greedy players (this report's), " in said
    assert "(this report's)" not in P.skill_sentence(ls, ("win_share", "order", "0"), mirror[0])
    other = json.loads(json.dumps(mirror[1]))
    other["config"]["rules"] = {**other["config"]["rules"], "changed": True}
    assert P.report_rung(ls, other) is None  # another config: its own numbers are not a rung's


@pytest.mark.slow
@pytest.mark.parametrize(("page", "figures"), [("fr", 3), ("rm", 3)])
def test_the_ladder_page_opens_offline_and_draws_every_figure(pages, page, figures, tmp_path):
    """The depth chart, the findings' panels, (fr: --impact top) the card impacts and (rm) the
    Family x evil matrix."""
    require_browser()
    with offline_chromium(tmp_path / "profile") as driver:
        open_page(driver, pages[page])
        assert _wait_for_figures(driver) == figures
        assert severe(driver) == [] and fetched_elsewhere(driver) == []
        first = driver.execute_script(
            "return document.querySelector('#summary .headline li').textContent"
        )
        assert first.startswith(("Each rung wins more", "Not a ladder all the way up"))
        assert driver.execute_script(READABLE_JS) == []


def _run(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_a_report_with_a_ladder_gains_its_skill_section_and_a_verdict_across_skill(tmp_path):
    ladder, run = tmp_path / "ladder", tmp_path / "run"
    _cli("ladder", FR, "--rungs", "random,greedy", "--games", 300, "--out", ladder)
    _cli("simulate", FR, "--games", 2000, "--out", run, "--set", "report.impact_seconds=0")
    page = tmp_path / "page.html"
    said = _cli("report", run, "-o", page, "--ladder", ladder, "--no-impact")
    assert said.startswith(f"report -> {page}")
    text = page.read_text()
    assert '<section id="skill">' in text and 'href="#skill"' in text
    assert "Across skill (random &lt; greedy): The 1st player&#x27;s edge" in text
    # luck against skill joins how the game plays (issue 32), the ladder's own sentences
    plays = text[text.index("How the game plays</h3>") :]
    plays = plays[: plays.index("</section>")]
    assert "<h4>Luck against skill</h4>" in plays
    assert "Skill against luck: greedy in one seat among random players wins" in plays
    with_report = tmp_path / "sim.html"
    _cli("simulate", FR, "--games", 1000, "--out", tmp_path / "run2", "--report", with_report,
         "--ladder", ladder, "--set", "report.impact_seconds=0")  # fmt: skip
    assert '<section id="skill">' in with_report.read_text()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["simulate", FR, "--games", 10, "--ladder", "{ladder}"],
         "error: --ladder: goes with --report FILE (the page it adds a section to)"),
        (["simulate", RM, "--games", 10, "--report", "{tmp}/x.html", "--ladder", "{ladder}"],
         "error: --ladder {ladder}: is a ladder of another game than raven_manor"),
        (["report", "{ladder}", "--ladder", "{ladder}"],
         "error: a sweep or ladder directory is reported alone"),
        (["report", "{tmp}/run", "--ladder", "{tmp}"],
         "error: {tmp}: not a ladder directory (no ladder.json)"),
    ],
)  # fmt: skip
def test_a_ladder_given_where_it_cannot_go_is_one_line(tmp_path, args, says):
    ladder = tmp_path / "ladder"
    _cli("ladder", FR, "--rungs", "random,greedy", "--games", 50, "--out", ladder)
    _cli("simulate", FR, "--games", 200, "--out", tmp_path / "run")
    fill = {"ladder": str(ladder), "tmp": str(tmp_path)}
    r = _run(*(str(a).format(**fill) for a in args))
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.startswith(says.format(**fill)) and r.stderr.count("\n") == 1, r.stderr


def _matrix(rng, shares: dict[tuple[str, str], float], n: int):
    from balance.stats import ladder as st

    rungs = ["random", "basic", "search_8"]
    values = {(f, e): (rng.random(n) < shares.get((f, e), 0.5)).astype(float)
              for f in rungs for e in rungs}  # fmt: skip
    return st.matrix("raven", rungs, values)


def test_planted_null_matrix_rarely_says_skill_moves_the_share():
    """Every cell the same 50 % share: the sentences claim a change (simultaneous intervals of
    the two end cells apart) in at most 5 % of 200 runs, each of its two sentences."""
    rng = np.random.default_rng(11)
    claims = 0
    for _ in range(200):
        said = P.matrix_sentences(_matrix(rng, {}, 400))
        claims += sum("moves it by no more" not in s for s in said)
    assert claims <= 0.05 * 400, claims


def test_planted_effect_matrix_says_which_side_skill_moves_it():
    """A strong evil side raises the Raven's share, a strong Family lowers it."""
    rng = np.random.default_rng(12)
    shares = {("random", "search_8"): 0.8, ("search_8", "random"): 0.2}
    evil, family = P.matrix_sentences(_matrix(rng, shares, 400))
    assert evil.startswith("With a stronger evil side (Family random), from random to search_8")
    assert evil.endswith("skill raises it.") and family.endswith("skill lowers it.")
