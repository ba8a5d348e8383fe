"""figures.py draws what it is given: traces, points and error bars from known small inputs."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import polars as pl
import pytest

from balance import stats
from balance.report import figures

from .planted import planted_manifest, planted_rows


@pytest.fixture(scope="module")
def rows() -> pl.DataFrame:
    return planted_rows()


@pytest.fixture(scope="module")
def shares(rows) -> stats.WinShares:
    return stats.win_shares(rows)


def test_win_shares_per_seat_bars_with_wilson_error_bars_and_fair_line(shares):
    fig = figures.plot_win_shares(shares, "seat")
    assert isinstance(fig, go.Figure)
    (bar,) = fig.data
    assert bar.type == "bar"
    assert list(bar.x) == [f"seat {s} (greedy)" for s in range(4)]
    np.testing.assert_allclose(bar.y, [0.22, 0.31, 0.22, 0.25])
    lo, hi = stats.wilson_interval(np.array([0.22, 0.31, 0.22, 0.25]), 10_000)
    np.testing.assert_allclose(bar.error_y.array, hi - bar.y)
    np.testing.assert_allclose(bar.error_y.arrayminus, bar.y - lo)
    fair = [s for s in fig.layout.shapes if s.y0 == s.y1]
    assert [s.y0 for s in fair] == [0.25]


@pytest.mark.parametrize(
    ("by", "labels"),
    [
        ("policy", ["greedy (4 seats)"]),
        ("team", ["team 0", "team 1", "team 2", "team 3"]),
        ("order", ["1st player", "2nd player", "3rd player", "4th player"]),
    ],
)
def test_win_shares_by_policy_team_order(shares, by, labels):
    fig = figures.plot_win_shares(shares, by)
    assert list(fig.data[0].x) == labels


def test_teams_of_different_sizes_get_a_fair_mark_per_bar():
    rows = planted_rows().with_columns(
        team=pl.when(pl.col("seat") < 3).then(pl.lit("a")).otherwise(pl.lit("b"))
    )
    fig = figures.plot_win_shares(stats.win_shares(rows), "team")
    bar, fair = fig.data
    np.testing.assert_allclose(bar.y, [0.75, 0.25])
    np.testing.assert_allclose(fair.y, [0.75, 0.25])


def test_unknown_grouping_is_an_error(shares):
    with pytest.raises(ValueError, match="by must be"):
        figures.plot_win_shares(shares, "colour")


def test_seat_advantage_plots_turn_order_and_states_the_edge(rows, shares):
    adv = stats.seat_advantage(rows, shares=shares)
    fig = figures.plot_seat_advantage(adv)
    np.testing.assert_allclose(fig.data[0].y[0], 0.30)
    assert "first player +5.00 points" in fig.layout.title.text


def test_histograms_come_from_binned_counts(rows):
    dist = stats.distributions(rows)
    score = figures.plot_score_distribution(dist)
    (bars,) = score.data
    assert bars.type == "bar"
    assert sum(bars.y) == 40_000  # every seat-game counted once
    assert len(bars.x) == dist.score_counts.height
    length = figures.plot_length_distribution(dist)
    assert sum(length.data[0].y) == 10_000
    assert list(length.data[0].x) == list(range(30, 41))
    assert "mean 35.0 turns" in length.layout.title.text


def test_score_histogram_per_policy_is_normalised_per_policy():
    rows = planted_rows(policies=("greedy", "random", "greedy", "random"))
    counts = rows.group_by("policy", "score").agg(pl.len().alias("n"))
    fig = figures.plot_score_distribution(stats.distributions(rows), counts)
    assert [t.name for t in fig.data] == ["greedy", "random"]
    for trace in fig.data:
        assert sum(trace.y) == pytest.approx(1.0)


def test_many_distinct_values_are_merged_into_at_most_max_bins():
    values = np.arange(-500, 1500)
    counts = np.ones_like(values)
    starts, widths, summed = figures._rebin(values, counts, figures.MAX_BINS)
    assert len(starts) <= figures.MAX_BINS
    assert summed.sum() == len(values)
    assert starts[0] == -500 and (np.diff(starts) == widths[0]).all()


def test_card_impact_forest_plot_has_one_point_per_contrast(rows):
    impact = stats.card_impact(rows, planted_manifest(rows))
    fig = figures.plot_card_impact(impact)
    # drawn__gem: every seat-game drew it, nothing to compare, left out.
    points = {t.name: list(t.y) for t in fig.data if t.type == "scatter"}
    assert points == {"q ≥ 0.05": ["played seven"], "q < 0.05 (BH)": ["stolen gem"]}
    sig = next(t for t in fig.data if t.name.startswith("q <"))
    assert sig.x[0] == pytest.approx(1.0)
    assert "diagnostic" in fig.layout.title.text


def test_card_impact_by_policy_labels_rows_with_the_policy():
    rows = planted_rows(policies=("greedy", "random", "greedy", "random"))
    impact = stats.card_impact(rows, planted_manifest(rows), by="policy")
    fig = figures.plot_card_impact(impact, "policy")
    labels = {y for t in fig.data for y in t.y}
    assert labels == {
        "greedy: stolen gem",
        "random: stolen gem",
        "greedy: played seven",
        "random: played seven",
    }


def _diff_table() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "metric": ["win_share", "win_share", "win_share", "mean_score", "mean_turns"],
            "kind": ["seat", "seat", "order", "seat", "game"],
            "group": ["0", "1", "0", "0", "all"],
            "a": [0.25, 0.25, 0.28, 7.0, 60.0],
            "b": [0.30, 0.24, 0.28, 7.5, 61.0],
            "diff": [0.05, -0.01, 0.0, 0.5, 1.0],
            "lo": [0.04, -0.03, -0.01, 0.4, 0.5],
            "hi": [0.06, 0.01, 0.01, 0.6, 1.5],
            "significant": [True, False, False, True, True],
        }
    )


def test_differences_forest_plot_splits_significant_rows():
    fig = figures.plot_differences(_diff_table())
    by_name = {t.name: (list(t.y), list(t.x)) for t in fig.data}
    assert by_name["interval excludes 0"] == (["seat 0"], [0.05])
    assert by_name["interval includes 0"] == (["seat 1", "1st player"], [-0.01, 0.0])
    score = figures.plot_differences(_diff_table(), metric="mean_score", kinds=["seat"])
    assert [list(t.y) for t in score.data] == [["seat 0"]]


def test_impact_variants_three_panels():
    table = pl.DataFrame(
        {
            "variant": ["v1"] * 4 + ["v2"] * 4,
            "metric": ["win_share", "win_share", "mean_score", "mean_turns"] * 2,
            "kind": ["seat", "policy", "policy", "game"] * 2,
            "group": ["0", "greedy", "greedy", "all"] * 2,
            "diff": [0.02, 0.01, 0.5, 0.1, -0.001, 0.0, -0.2, -0.3],
            "lo": [0.01, 0.0, 0.4, 0.0, -0.01, -0.01, -0.3, -0.4],
            "hi": [0.03, 0.02, 0.6, 0.2, 0.01, 0.01, -0.1, -0.2],
        }
    )
    summary = pl.DataFrame(
        {
            "variant": ["v1", "v2"],
            "kind": ["seat", "seat"],
            "group": ["0", "0"],
            "diff": [0.02, -0.001],
            "lo": [0.01, -0.01],
            "hi": [0.03, 0.01],
            "significant": [True, False],
        }
    )
    fig = figures.plot_impact_variants(summary, table)
    panels = {t.name: t.xaxis for t in fig.data}
    assert panels == {
        "not significant": "x",
        "significant (BH)": "x",
        "score: greedy": "x2",
        "turns": "x3",
    }
    turns = next(t for t in fig.data if t.name == "turns")
    assert list(turns.y) == ["v1", "v2"] and list(turns.x) == [0.1, -0.3]


def test_overview_groups_datasets(shares):
    fig = figures.plot_overview(["a", "b"], [shares, shares])
    assert [t.name for t in fig.data] == ["a", "b"]
    assert fig.layout.barmode == "group"
