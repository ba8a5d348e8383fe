"""html.py: the numbers behind the page (sentences, differences, impact files) and the page."""

from __future__ import annotations

import json
import re

import numpy as np
import polars as pl
import pytest

from balance import stats
from balance.report import html
from balance.report.html import ReportError, analyse_rows, summary_sentences

from .planted import planted_manifest, planted_rows


def _stats(rows: pl.DataFrame, label: str = "planted", **manifest) -> html.DatasetStats:
    return analyse_rows(planted_manifest(rows, **manifest), rows, label=label, path=label)


@pytest.fixture(scope="module")
def planted() -> html.DatasetStats:
    return _stats(planted_rows())


def test_sentences_for_a_planted_seat_and_first_player_advantage(planted):
    s = summary_sentences(planted)
    assert s[0] == "Seat 1 wins 31.0 % ± 0.9 % against a fair 25 %; χ² = 216.0, p < 0.001."
    assert s[1] == (
        "The first player wins 30.0 % ± 0.9 % of games against a fair 25 %: an edge of "
        "+5.0 points [+4.1, +5.9]."
    )
    assert s[2].startswith(
        "Strongest card association (a diagnostic, not an effect): Seat-games with “stolen gem” "
        "win 100.0 % against 0.0 % without (+100.0 points, q < 0.001)"
    )
    assert s[-1] == (
        "Games last 35.0 turns on average (90 % between 30 and 40); a seat scores 13.62 on "
        "average (median 12)."
    )


def test_sentences_for_planted_policies():
    rows = planted_rows(
        wins=(4_870, 130, 4_870, 130),
        policies=("greedy", "random", "greedy", "random"),
        first_player_wins=2_500,
    )
    s = summary_sentences(_stats(rows))
    assert s[0] == (
        "Greedy seats win 48.7 % ± 0.7 % of their seat-games against 1.3 % for random "
        "(fair: 25 %; 10,000 games)."
    )
    assert s[1] == "The first player has no measurable edge: 25.0 % ± 0.8 % against a fair 25 %."
    assert "greedy seat-games with “stolen gem”" in s[2]


def test_sentence_for_balanced_seats():
    rows = planted_rows(wins=(2_500, 2_500, 2_510, 2_490))
    s = summary_sentences(_stats(rows))
    assert s[0].startswith("Seats are balanced: every seat wins within 0.1 points of a fair 25 %")


def test_share_formatting_shows_one_significant_digit_of_the_interval():
    assert html.share_pm(0.281, 0.279, 0.283) == "28.1 % ± 0.2 %"
    assert html.share_pm(0.28006, 0.2791, 0.2809) == "28.01 % ± 0.09 %"
    assert html.points(0.0301, 0.0292, 0.0309) == "+3.01 points [+2.92, +3.09]"
    assert html.points(-0.02) == "−2.0 points"


def test_paired_differences_against_a_baseline_of_the_same_seed_and_games(planted):
    rows_b = planted_rows(wins=(2_000, 3_500, 2_000, 2_500))
    b = _stats(rows_b, label="changed")
    d = html.differences(b, planted, rows=rows_b.lazy(), base_rows=planted_rows().lazy())
    assert d.paired and d.games == 10_000
    seat1 = d.table.filter((pl.col("metric") == "win_share") & (pl.col("kind") == "seat")).row(
        1, named=True
    )
    assert (seat1["a"], seat1["b"]) == (pytest.approx(0.31), pytest.approx(0.35))
    assert seat1["diff"] == pytest.approx(0.04) and seat1["significant"]
    assert "team" not in d.table["kind"].to_list()  # one seat per team: the seats again
    sentence = html.difference_sentences(d)[0]
    assert sentence.startswith("Against baseline planted (paired over 10,000 games): ")
    assert "seat 1's win share, 31.0 % → 35.0 % (+4.0 points" in sentence


def test_unpaired_differences_when_the_seeds_differ(planted):
    rows_b = planted_rows(wins=(2_000, 3_500, 2_000, 2_500))
    b = analyse_rows(planted_manifest(rows_b, seed=2), rows_b, label="other seed")
    d = html.differences(b, planted, rows=rows_b.lazy(), base_rows=planted_rows().lazy())
    assert not d.paired and "seed" in d.why
    t = d.table.filter((pl.col("metric") == "win_share") & (pl.col("kind") == "seat"))
    lo, hi = stats.newcombe_interval(0.35, 10_000, 0.31, 10_000)
    row = t.row(1, named=True)
    assert row["diff"] == pytest.approx(0.04)
    assert (row["lo"], row["hi"]) == (pytest.approx(float(lo)), pytest.approx(float(hi)))
    turns = d.table.filter(pl.col("metric") == "mean_turns").row(0, named=True)
    assert turns["diff"] == 0 and not turns["significant"]
    assert set(d.table["metric"]) == {"win_share", "mean_score", "mean_turns"}


def test_config_changes_list_every_changed_key():
    a = {"games": 10, "seed": 1, "rules": {"gem": {"value": 3, "count": 4}}, "seats": ["g", "g"]}
    b = {"games": 99, "seed": 2, "rules": {"gem": {"value": 4, "count": 4}}, "seats": ["g", "r"]}
    assert html.config_changes(a, b) == ["rules.gem.value: 3 -> 4", "seats: [g, g] -> [g, r]"]


def _impact_table() -> pl.DataFrame:
    rows = []
    for v, d in (("gem +1", 0.05), ("mask off", 0.001)):
        for seat in range(2):
            rows.append(
                (
                    "win_share",
                    "seat",
                    str(seat),
                    0.5,
                    0.5 + d * (1 - 2 * seat),
                    d * (1 - 2 * seat),
                    v,
                )
            )
        rows.append(("mean_score", "policy", "greedy", 7.0, 7.0 + d, d, v))
        rows.append(("mean_turns", "game", "all", 60.0, 60.0, 0.0, v))
    t = pl.DataFrame(
        rows, schema=["metric", "kind", "group", "a", "b", "diff", "variant"], orient="row"
    )
    return t.with_columns(
        description=pl.lit("x"),
        games=pl.lit(1000),
        lo=pl.col("diff") - 0.01,
        hi=pl.col("diff") + 0.01,
        p_value=pl.when(pl.col("diff").abs() > 0.01).then(1e-6).otherwise(0.9),
        significant=pl.col("diff").abs() > 0.01,
    )


def test_read_impact_parquet_and_json(tmp_path):
    table = _impact_table()
    table.write_parquet(tmp_path / "i.parquet")
    data = {"config_path": "c.yaml", "games": 1000, "seed": 7, "level": 0.95, "method": "m"}
    data["table"] = [
        {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in r.items()}
        for r in table.to_dicts()
    ]
    (tmp_path / "i.json").write_text(json.dumps(data))
    for name in ("i.parquet", "i.json"):
        imp = html.read_impact(tmp_path / name)
        assert imp.summary["variant"].to_list() == ["gem +1", "mask off"]
        top = imp.summary.row(0, named=True)
        assert (top["kind"], top["group"], top["diff"]) == ("seat", "0", pytest.approx(0.05))
        assert top["significant"] and not imp.summary.row(1, named=True)["significant"]
    assert imp.games == 1000 and imp.seed == 7 and imp.config_path == "c.yaml"
    sentence = html.impact_sentences(imp)[0]
    assert "“gem +1” moves win share most (seat 0 +5.0 points" in sentence
    assert "1 of 2 variants changes a win share significantly" in sentence


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.json", None, "no such impact file"),
        ("bad.json", "{", "invalid JSON"),
        ("other.json", '{"a": 1}', "not an impact file"),
        ("x.csv", "a,b", "ends in .json or .parquet"),
        ("cols.json", '{"table": [{"variant": "v"}]}', "columns metric, kind"),
    ],
)
def test_bad_impact_files_are_one_line_errors(tmp_path, name, content, message):
    if content is not None:
        (tmp_path / name).write_text(content)
    with pytest.raises(ReportError, match=message) as e:
        html.read_impact(tmp_path / name)
    assert "\n" not in str(e.value)


def test_render_escapes_text_and_embeds_every_figure_once(planted):
    evil = planted._replace(label="<script>alert(1)</script>")
    page = html.render([evil], generated="2026-01-01")
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    divs = re.findall(r'<div class="figure" id="(fig-\d+)" data-figure>', page)
    data = re.findall(r'<script type="application/json" id="(fig-\d+)-data">', page)
    assert divs == data and len(divs) == len(set(divs)) >= 5
    assert page.count("plotly.js v") == 1  # the library, inlined once
    assert 'class="sortable"' in page
    for sentence in summary_sentences(planted):
        assert html.escape(sentence) in page


def test_figure_json_cannot_close_its_script_tag(planted):
    page = html._Page()
    import plotly.graph_objects as go

    snippet = page.figure(go.Figure(layout={"title": {"text": "</script><b>x"}}))
    assert "</script><b>" not in snippet
    assert (
        json.loads(re.search(r"-data\">(.*)</script>", snippet).group(1))["layout"]["title"]["text"]
        == "</script><b>x"
    )


def test_an_empty_dataset_is_an_error():
    rows = planted_rows().head(0)
    with pytest.raises(ReportError, match="holds no games"):
        analyse_rows(planted_manifest(planted_rows()), rows, label="empty", path="results/empty")


def test_check_output(tmp_path):
    html.check_output(tmp_path / "new" / "dir" / "r.html")  # parents are created on writing
    (tmp_path / "file").write_text("x")
    with pytest.raises(ReportError, match="is not a directory"):
        html.check_output(tmp_path / "file" / "r.html")
    with pytest.raises(ReportError, match="is a directory"):
        html.check_output(tmp_path)
