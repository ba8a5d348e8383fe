"""A report over datasets of different player counts compares like with like, and a report of
two games is refused in one line (issue 14, part 4)."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from balance.cli import app
from balance.config import load_config
from balance.report import build_report
from balance.report.numbers import ReportError
from balance.results import open_results
from balance.runner import run

ROOT = Path(__file__).resolve().parents[2]
FR = ROOT / "configs" / "five_ravens"
GAMES = 3000


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("several")
    out = {}
    for name in ("two_players", "three_players", "base"):
        cfg = load_config(FR / f"{name}.yaml")
        run(cfg, config_path=f"{name}.yaml", out=base / name, games=GAMES, seed=5)
        out[name] = base / name
    ro = load_config(ROOT / "configs" / "raven_order" / "base.yaml")
    run(ro, config_path="raven_order.yaml", out=base / "ro", games=200, seed=5)
    out["ro"] = base / "ro"
    return out


def _overview(html: str) -> str:
    i = html.index('<section id="overview">')
    return html[i : html.index("</section>", i)]


def _cells(table_html: str) -> list[list[str]]:
    return [
        [unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", tr)]
        for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", table_html, flags=re.S)
    ]


def test_a_report_over_player_counts_shows_share_over_fair(runs):
    names = ["two_players", "three_players", "base"]
    html, _ = build_report([runs[n] for n in names])
    ov = _overview(html)
    assert "The datasets have 2, 3 and 4 players" in ov
    assert "raw win shares do not compare" in ov
    assert "Furthest from fair" not in ov  # no bars of raw shares across player counts
    tables = ov.split("<table")[1:]
    rows = _cells(tables[0])
    header, body = rows[0], rows[1:]
    assert header[:4] == ["dataset", "game", "players", "games"]
    by_name = {r[0]: dict(zip(header, r, strict=True)) for r in body}
    side = _cells(tables[1])
    side_header = side[0]
    side_rows = {r[0]: dict(zip(side_header, r, strict=True)) for r in side[1:]}
    for name in names:
        _, lf = open_results(runs[name])
        df = lf.collect()
        n = int(df["seat"].max()) + 1
        assert by_name[name]["players"] == str(n)
        first = df.filter(pl.col("order") == 0)["win"].mean()
        assert by_name[name]["first player share / fair"] == f"{first * n:.3f}"
        assert by_name[name]["first-player edge (points)"] == f"{(first - 1 / n) * 100:+.2f}"
        for k in range(4):
            place = df.filter(pl.col("order") == k)["win"]
            cell = side_rows[f"{['1st', '2nd', '3rd', '4th'][k]} player"][name]
            if k < n:
                assert cell.startswith(f"{place.mean() * n:.3f} [")
            else:
                assert cell == "–"  # no 4th player in a 3-player game
            seat = df.filter(pl.col("seat") == k)["win"]
            if k < n:
                assert side_rows[f"seat {k}"][name].startswith(f"{seat.mean() * n:.3f} [")


def test_a_report_of_one_player_count_keeps_its_bars(runs):
    html, _ = build_report([runs["base"], runs["base"]])
    ov = _overview(html)
    assert "raw win shares do not compare" not in ov
    assert '<div class="figure"' in ov
    assert "share / fair" in ov


def test_a_report_of_two_games_is_refused_in_one_line(runs, tmp_path, monkeypatch):
    monkeypatch.chdir(runs["ro"].parent)
    with pytest.raises(ReportError) as e:
        build_report(["base", "ro"])
    assert str(e.value) == "a report compares one game: base is five_ravens, ro is raven_order"
    out = tmp_path / "x.html"
    result = CliRunner().invoke(app, ["report", "two_players", "ro", "-o", str(out)])
    assert result.exit_code == 1
    assert result.stderr == (
        "error: a report compares one game: two_players is five_ravens, ro is raven_order\n"
    )
    assert not out.exists()
    with pytest.raises(ReportError, match="ro is raven_order"):  # a baseline of another game too
        build_report(["base"], baseline="ro")
