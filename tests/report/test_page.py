"""page.py, sections.py and write.py: the page of a planted dataset, and where it may be written."""

from __future__ import annotations

import json
import re
from html import escape

import plotly.graph_objects as go
import polars as pl
import pytest

from balance.outputs import OutputError
from balance.report import blocks, numbers
from balance.report.page import render
from balance.report.sentences import summary_sentences
from balance.report.write import check_output

from .planted import planted_rows, planted_stats


@pytest.fixture(scope="module")
def planted() -> numbers.DatasetStats:
    return planted_stats(planted_rows())


def test_render_escapes_text_and_embeds_every_figure_once(planted):
    evil = planted._replace(label="<script>alert(1)</script>")
    page = render([evil], generated="2026-01-01")
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    divs = re.findall(r'<div class="figure" id="(fig-\d+)" data-figure>', page)
    data = re.findall(r'<script type="application/json" id="(fig-\d+)-data">', page)
    assert divs == data and len(divs) == len(set(divs)) >= 5
    assert page.count("plotly.js v") == 1  # the library, inlined once
    assert 'class="sortable"' in page
    for sentence in summary_sentences(planted):
        assert escape(sentence) in page
    assert "2026-01-01" in page


def test_a_page_of_two_datasets_has_an_overview(planted):
    other = planted._replace(label="other")
    page = render([planted, other], cdn=True)
    assert '<section id="overview"><h2>All datasets</h2>' in page
    assert '<a href="#d1-planted">planted</a> <a href="#d2-other">other</a>' in page


def test_figure_json_cannot_close_its_script_tag():
    snippet = blocks.Page().figure(go.Figure(layout={"title": {"text": "</script><b>x"}}))
    assert "</script><b>" not in snippet
    assert (
        json.loads(re.search(r"-data\">(.*)</script>", snippet).group(1))["layout"]["title"]["text"]
        == "</script><b>x"
    )


def test_tables_escape_cells_and_keep_sort_values():
    rows = [{"name": "<b>", "x": 0.5, "sig": True}, {"name": "ok", "x": float("nan"), "sig": False}]
    html = blocks.table_html(
        rows,
        [
            blocks.Column("name", lambda r: r["name"]),
            blocks.Column("x", lambda r: r["x"], blocks.fmt(".1%"), True, "a tip"),
        ],
        sortable=True,
        mark=lambda r: r["sig"],
    )
    assert '<td class="text">&lt;b&gt;</td><td data-v="0.5">50.0%</td>' in html
    assert '<td data-v="">–</td>' in html  # no value: no sort key, a dash
    assert '<tr class="sig">' in html and html.count('class="sig"') == 1
    assert '<th data-type=num title="a tip">x</th>' in html


def test_check_output(tmp_path):
    check_output(tmp_path / "new" / "dir" / "r.html")  # parents are created on writing
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="is not a directory"):
        check_output(tmp_path / "file" / "r.html")
    with pytest.raises(OutputError, match="is a directory"):
        check_output(tmp_path)


def test_a_game_with_roles_gets_a_role_figure_and_table():
    rows = planted_rows().with_columns(
        role=pl.when(pl.col("seat") % 2 == 0).then(pl.lit("spy")).otherwise(pl.lit("guard"))
    )
    ds = planted_stats(rows)
    assert ds.shares.by_role["role"].to_list() == ["guard", "spy"]
    page = render([ds], cdn=True)
    assert page.count('<div class="figure"') == 1 + render(
        [planted_stats(planted_rows())], cdn=True
    ).count('<div class="figure"')
    assert "Win share per seat-game, by role" in page
    # seats 1 and 3 are guards: 3,100 + 2,500 of 20,000 guard seat-games won, over 10,000 games
    assert (
        '<td class="text">guard</td><td data-v="2.0">2</td><td data-v="10000">10,000</td>'
        '<td data-v="20000">20,000</td>' in page
    )
    assert '<td data-v="0.28">28.00%</td>' in page
