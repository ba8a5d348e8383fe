"""page.py, sections.py and write.py: the page of a planted dataset, and where it may be written."""

from __future__ import annotations

import json
import re
from html import escape

import plotly.graph_objects as go
import pytest

from balance.report import numbers, sections
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
    snippet = sections.Page().figure(go.Figure(layout={"title": {"text": "</script><b>x"}}))
    assert "</script><b>" not in snippet
    assert (
        json.loads(re.search(r"-data\">(.*)</script>", snippet).group(1))["layout"]["title"]["text"]
        == "</script><b>x"
    )


def test_tables_escape_cells_and_keep_sort_values():
    rows = [{"name": "<b>", "x": 0.5, "sig": True}, {"name": "ok", "x": float("nan"), "sig": False}]
    html = sections.table_html(
        rows,
        [
            sections.Column("name", lambda r: r["name"]),
            sections.Column("x", lambda r: r["x"], sections.fmt(".1%"), True, "a tip"),
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
    with pytest.raises(numbers.ReportError, match="is not a directory"):
        check_output(tmp_path / "file" / "r.html")
    with pytest.raises(numbers.ReportError, match="is a directory"):
        check_output(tmp_path)
