"""`balance compare A B --report FILE`: the comparison as an HTML page (fake game: no numba)."""

from __future__ import annotations

import html
import re

import pytest
from kit import fake_game as fake
from typer.testing import CliRunner

from balance.cli import app
from balance.report import comparison_sentences, render_comparison

from .test_cli_report import CDN_URL


def cli(*args: object):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert not result.exception or isinstance(result.exception, SystemExit), result.exception
    return result


def _headline(page: str) -> list[str]:
    ul = re.search(r'<ul class="headline">(.*?)</ul>', page, re.S)
    assert ul
    return [html.unescape(li) for li in re.findall(r"<li>(.*?)</li>", ul.group(1))]


@pytest.fixture
def bonus(fake_config, tmp_path):
    """B: the first player scores 2 more (the fake game changes nothing else)."""
    return fake.write_config(tmp_path / "bonus.yaml", rules="{bonus: 2}")


def test_compare_report_writes_a_self_contained_page_with_sentences(fake_config, bonus, tmp_path):
    out = tmp_path / "reports" / "compare.html"  # parent created
    result = cli("compare", fake_config, bonus, "--games", 300, "--report", out)
    assert result.exit_code == 0, result.output
    last = result.stdout.splitlines()[-1]
    assert re.fullmatch(rf"report -> {re.escape(str(out))} \(\d+\.\d MB, \d+\.\d s\)", last)
    page = out.read_text()
    assert "plotly.js v" in page and not CDN_URL.search(page)
    assert not re.search(r"<script[^>]+src=", page)  # opens offline
    assert page.count('<div class="figure"') == 3  # win share, mean score, game length
    s = _headline(page)
    assert s[0] == "B differs from A in rules.bonus (0 → 2)."
    assert re.fullmatch(
        r"B leaves the length of every game unchanged \(\d+\.\d turns on average\); "
        r"(no seat's win share changes significantly \(largest: seat \d [+−][\d.]+ points "
        r"\[[+−][\d.]+, [+−][\d.]+\]\)|B (raises|lowers) seat .*)\.",
        s[1],
    )
    assert s[2].startswith("B raises the 1st player's win share by ")  # the bonus wins games
    assert s[3].startswith("B lowers policy skilled's win share by ")  # plain seats move first
    assert re.fullmatch(
        r"Mean score changes significantly for \d+ of 8 groups: 1st player \+2\.00 \[\+2\.00, "
        r"\+2\.00\] \([\d.]+ → [\d.]+\), .*\.",
        s[4],
    )
    assert len(s) == 5
    # provenance of both configs: paths, each config as YAML, and the keys that differ
    for text in (str(fake_config), str(bonus), '<td class="text">rules.bonus</td>'):
        assert text in page
    assert page.count("(fully resolved, YAML)") == 2 and "bonus: 2" in page
    assert "t-interval over games of the per-game paired difference" in page  # the method
    assert "at the 95% level" in page
    assert "team" not in " ".join(s)  # one seat per team: no team rows


def test_compare_report_with_cdn_is_small(fake_config, bonus, tmp_path):
    out = tmp_path / "compare.html"
    result = cli("compare", fake_config, bonus, "--games", 50, "--report", out, "--cdn")
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert CDN_URL.search(page) and out.stat().st_size < 500_000


def test_compare_report_checks_the_path_before_playing(fake_game, fake_config, bonus, tmp_path):
    (tmp_path / "file").write_text("not a directory")
    out = tmp_path / "file" / "c.html"
    result = cli("compare", fake_config, bonus, "--games", 50, "--report", out)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"error: --report {out}: cannot write: {tmp_path / 'file'} is not a directory\n"
    )
    assert fake_game.calls == 0  # no game was played


def test_cdn_without_report_is_one_line_exit_1(fake_game, fake_config, bonus):
    result = cli("compare", fake_config, bonus, "--cdn")
    assert (result.exit_code, result.stderr) == (1, "error: --cdn needs --report FILE\n")
    assert fake_game.calls == 0


def test_sentences_for_identical_configs(fake_config):
    from balance import experiments as ex
    from balance.config import load_config

    a = load_config(fake_config)
    c = ex.compare(a, a, games=200)
    s = comparison_sentences(c)
    assert s[0] == "A and B are the same config (apart from games and seed)."
    assert s[1].startswith("B leaves the length of every game unchanged (")
    assert "no seat's win share changes significantly (largest: seat 0 +0.00 points" in s[1]
    assert s[-1] == "No mean score changes significantly."
    page = render_comparison(c, cdn=True, generated="2026-01-01T00:00:00+00:00")
    assert "The two resolved configs are identical" in page
    assert "2026-01-01T00:00:00+00:00" in page
