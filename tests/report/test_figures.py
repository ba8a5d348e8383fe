"""figures.py draws what it is given: traces, points and error bars from known small inputs."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import polars as pl
import pytest

from balance import stats
from balance.report import figures, forest
from balance.report.sentences import seat_bound

from .planted import planted_manifest, planted_rows


@pytest.fixture(scope="module")
def rows() -> pl.DataFrame:
    return planted_rows()


@pytest.fixture(scope="module")
def shares(rows) -> stats.WinShares:
    return stats.win_shares(rows)


def _axes(fig: go.Figure) -> dict[str, object]:
    """The layout's axes that a trace is drawn on: {'xaxis': ..., 'yaxis2': ...}."""
    used = set()
    for t in fig.data:
        used.add("xaxis" + (t.xaxis or "x")[1:])
        used.add("yaxis" + (t.yaxis or "y")[1:])
    return {name: fig.layout[name] for name in sorted(used)}


def _numeric(values) -> bool:
    return len(values) > 0 and all(isinstance(v, (int, float, np.number)) for v in values)


def assert_readable(fig: go.Figure, *numbers: str) -> None:
    """What every figure promises (figures.py's docstring): a title stating the finding (with
    ``numbers`` in it), every drawn axis titled with visible, formatted tick labels, a legend
    outside the plot area, no empty trace."""
    title = fig.layout.title.text or ""
    assert title.strip(), "no title"
    for n in numbers:
        assert n in title, f"{n!r} not in title {title!r}"
    assert fig.data, "no traces"
    for t in fig.data:
        if t.hoverinfo == "skip":  # the invisible trace that carries a repeated top axis
            continue
        assert t.x is not None and len(t.x) > 0, f"trace {t.name!r} has no x"
        assert t.y is not None and len(t.y) > 0, f"trace {t.name!r} has no y"
    for name, axis in _axes(fig).items():
        if axis.overlaying:  # the repeated top axis matches the x-axis below
            continue
        if axis.visible is False:
            continue
        assert axis.automargin is True, f"{name}: automargin"
        if axis.showticklabels is False:  # shared rows of a multi-panel figure: labelled once
            assert axis.matches or name.startswith("yaxis"), name
            continue
        assert (axis.title.text or "").strip(), f"{name} has no title"
        letter = name[0]
        values = [
            v
            for t in fig.data
            if (getattr(t, letter + "axis") or letter)[1:] == name[5:]
            and getattr(t, letter) is not None
            for v in list(getattr(t, letter))
        ]
        if _numeric(values):
            assert axis.tickformat, f"{name}: numbers without a tick format"
    if fig.layout.showlegend:
        legend = fig.layout.legend
        if legend.yref == "container":
            assert legend.y <= 0.02 and legend.yanchor == "bottom"
            assert fig.layout.margin.b >= 100  # room for ticks, axis title and the legend
        else:
            assert legend.y is not None and (legend.y < 0 or legend.y > 1)
    rows = fig.layout.yaxis.range
    if rows is not None and fig.layout.yaxis.categoryarray is not None:  # forest plot: no
        # empty screenful of padding
        assert rows[1] - rows[0] <= len(fig.layout.yaxis.categoryarray) + 0.5


def test_symmetric_line_up_draws_seats_as_deviations_from_fair(shares):
    """Every seat greedy and its own team: share - fair in points with simultaneous intervals
    around 0, not four bars; seat 1 (31 %) is off fair and the title says so."""
    fig = figures.plot_win_shares(shares, "seat")
    assert shares.symmetric
    assert [t.type for t in fig.data] == ["scatter"]
    (dots,) = fig.data
    assert list(dots.y) == [f"seat {s}" for s in range(4)]
    np.testing.assert_allclose(dots.x, [-3.0, 6.0, -3.0, 0.0])
    lo, hi = shares.simultaneous_intervals()
    np.testing.assert_allclose(dots.error_x.array, (hi - 0.25) * 100 - dots.x)
    np.testing.assert_allclose(dots.error_x.arrayminus, dots.x - (lo - 0.25) * 100)
    assert fig.layout.xaxis.title.text.startswith("win share − fair (percentage points)")
    assert [s.x0 for s in fig.layout.shapes if s.type == "line"] == [0]  # the fair line
    assert_readable(fig, "Seat 1 is off fair (25 %) by +6.0 points [+4.9, +7.2]", "3 of 4 seats")


def test_balanced_symmetric_line_up_says_every_seat_is_within_the_bound():
    rows = planted_rows(wins=(2_500,) * 4, first_player_wins=2_600)
    ws = stats.win_shares(rows)
    fig = figures.plot_win_shares(ws, "seat")
    bound, _ = seat_bound(ws)
    assert fig.data[0].type == "scatter"
    np.testing.assert_allclose(fig.data[0].x, 0.0, atol=1e-12)
    band = next(s for s in fig.layout.shapes if s.type == "rect")
    assert band.x1 == pytest.approx(bound * 100)
    assert_readable(fig, f"Every seat within ±{bound * 100:.1f} points of fair (25 %")


def test_asymmetric_seats_are_bars_with_intervals_and_a_labelled_fair_line():
    rows = planted_rows(policies=("greedy", "random", "greedy", "random"))
    ws = stats.win_shares(rows)
    assert not ws.symmetric
    fig = figures.plot_win_shares(ws, "seat")
    (bar,) = fig.data
    assert bar.type == "bar"
    assert list(bar.x) == [
        "seat 0 (greedy)",
        "seat 1 (random)",
        "seat 2 (greedy)",
        "seat 3 (random)",
    ]
    np.testing.assert_allclose(bar.y, [0.22, 0.31, 0.22, 0.25])
    f = ws.by_seat
    np.testing.assert_allclose(bar.error_y.array, f["hi"].to_numpy() - bar.y)
    np.testing.assert_allclose(bar.error_y.arrayminus, bar.y - f["lo"].to_numpy())
    fair = [s for s in fig.layout.shapes if s.y0 == s.y1]
    assert [s.y0 for s in fair] == [0.25]
    assert [a.text for a in fig.layout.annotations] == ["fair 25 %"]
    assert fig.layout.yaxis.tickformat == ".0%"
    assert_readable(fig, "Seat 1 (random) wins 31.0 % (fair 25 %)")


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
    assert_readable(
        fig,
        {
            "policy": "greedy 25.0 %",
            "team": "Team 1 wins 31.0 % (fair 25 %)",
            "order": "1st player wins 30.0 % (fair 25 %)",  # the others 23.3 % each
        }[by],
    )


def test_win_shares_by_policy_names_each_policy_in_the_title():
    rows = planted_rows(policies=("greedy", "random", "greedy", "random"))
    fig = figures.plot_win_shares(stats.win_shares(rows), "policy")
    assert list(fig.data[0].x) == ["greedy (2 seats)", "random (2 seats)"]
    assert_readable(fig, "random 28.0 %, greedy 22.0 % (fair 25 %)")


def test_teams_of_different_sizes_get_a_fair_mark_per_bar():
    rows = planted_rows().with_columns(
        team=pl.when(pl.col("seat") < 3).then(pl.lit("a")).otherwise(pl.lit("b"))
    )
    fig = figures.plot_win_shares(stats.win_shares(rows), "team")
    bar, fair = fig.data
    np.testing.assert_allclose(bar.y, [0.75, 0.25])
    np.testing.assert_allclose(fair.y, [0.75, 0.25])
    assert fair.name == "fair share"
    assert_readable(fig, "wins")


def test_unknown_grouping_is_an_error(shares):
    with pytest.raises(ValueError, match="by must be"):
        figures.plot_win_shares(shares, "colour")


def test_seat_advantage_plots_turn_order_and_states_the_edge(rows, shares):
    adv = stats.seat_advantage(rows, shares=shares)
    fig = figures.plot_seat_advantage(adv)
    np.testing.assert_allclose(fig.data[0].y[0], 0.30)
    assert_readable(fig, "First player wins 30.00 % (fair 25 %): edge +5.0 points [+4.1, +5.9]")
    assert "not distinguishable" not in fig.layout.title.text


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
    assert_readable(length, "Games last 35.0 turns on average (90 % between")
    assert_readable(score, f"A seat scores {dist.score.mean:.2f} on average")
    assert length.layout.xaxis.title.text == "game length (turns)"
    assert score.layout.yaxis.tickformat == ","


def test_score_histogram_per_policy_is_normalised_per_policy():
    rows = planted_rows(policies=("greedy", "random", "greedy", "random"))
    counts = rows.group_by("policy", "score").agg(pl.len().alias("n"))
    fig = figures.plot_score_distribution(stats.distributions(rows), counts)
    assert [t.name for t in fig.data] == ["greedy", "random"]
    for trace in fig.data:
        assert sum(trace.y) == pytest.approx(1.0)
    means = stats.distributions(rows).score_by_policy.sort("mean", descending=True)
    assert_readable(fig, f"{means['policy'][0]} {means['mean'][0]:.2f}")
    assert fig.layout.yaxis.tickformat == ".0%"


def test_many_distinct_values_are_merged_into_at_most_max_bins():
    values = np.arange(-500, 1500)
    counts = np.ones_like(values)
    starts, widths, summed = figures._rebin(values, counts, figures.MAX_BINS)
    assert len(starts) <= figures.MAX_BINS
    assert summed.sum() == len(values)
    assert starts[0] == -500 and (np.diff(starts) == widths[0]).all()


def test_card_impact_forest_plot_has_one_point_per_contrast(rows):
    impact = stats.card_impact(rows, planted_manifest(rows))
    fig = forest.plot_card_impact(impact)
    # drawn__gem: every seat-game drew it, nothing to compare, left out.
    points = {t.name: list(t.y) for t in fig.data if t.type == "scatter"}
    assert points == {"q ≥ 0.05": ["played seven"], "q < 0.05 (BH)": ["stolen gem"]}
    sig = next(t for t in fig.data if t.name.startswith("q <"))
    assert sig.x[0] == pytest.approx(100.0)  # percentage points
    assert_readable(fig, "“stolen gem”", "+100.0 points", "1 of 2 differ significantly")
    assert "diagnostic" in fig.layout.title.text
    assert "percentage points" in fig.layout.xaxis.title.text


def test_card_impact_without_any_contrast_says_so_instead_of_an_empty_panel(rows):
    impact = stats.card_impact(
        rows.with_columns(stolen__gem=pl.lit(1, pl.UInt8), played__seven=pl.lit(0, pl.UInt8)),
        planted_manifest(rows),
    )
    fig = forest.plot_card_impact(impact)
    assert fig.data == ()
    assert (
        "nothing" in fig.layout.title.text.lower()
        or "no card event" in fig.layout.title.text.lower()
    )
    assert fig.layout.annotations and fig.layout.xaxis.visible is False


def test_card_impact_by_policy_labels_rows_with_the_policy():
    rows = planted_rows(policies=("greedy", "random", "greedy", "random"))
    impact = stats.card_impact(rows, planted_manifest(rows), by="policy")
    fig = forest.plot_card_impact(impact, "policy")
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
    fig = forest.plot_differences(_diff_table())
    by_name = {t.name: (list(t.y), list(t.x)) for t in fig.data}
    assert by_name["significant (q < 0.05)"] == (["seat 0"], [pytest.approx(5.0)])
    assert by_name["not significant (q ≥ 0.05)"] == (["seat 1", "1st player"], [-1.0, 0.0])
    assert_readable(fig, "Seat 0 +5.0 points [+4.0, +6.0] changes most", "1 of 3")
    assert "Differences against the baseline" in fig.layout.title.text  # the second line
    score = forest.plot_differences(_diff_table(), metric="mean_score", kinds=["seat"])
    assert [list(t.y) for t in score.data] == [["seat 0"]]
    assert_readable(score, "Seat 0 +0.50 score [+0.40, +0.60]")
    turns = forest.plot_differences(_diff_table(), metric="mean_turns", kinds=["game"])
    assert_readable(turns, "Game length +1.00 turns [+0.50, +1.50]")
    assert turns.layout.xaxis.title.text == "difference in game length (turns)"


def test_differences_without_a_significant_row_say_so():
    t = _diff_table().with_columns(significant=pl.lit(False))
    fig = forest.plot_differences(t)
    assert_readable(fig, "No win share difference is significant (largest: seat 0 +5.0")


def test_differences_without_rows_show_a_note_not_an_empty_panel():
    fig = forest.plot_differences(_diff_table(), metric="mean_score", kinds=["team"])
    assert fig.data == () and fig.layout.annotations[0].text == "no rows"


def _variants() -> tuple[pl.DataFrame, pl.DataFrame]:
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
            "metric": ["win_share", "win_share"],
            "kind": ["seat", "seat"],
            "group": ["0", "0"],
            "diff": [0.02, -0.001],
            "lo": [0.01, -0.01],
            "hi": [0.03, 0.01],
            "significant": [True, False],
        }
    )
    return summary, table


def test_impact_variants_three_panels_each_with_its_own_x_axis():
    summary, table = _variants()
    fig = forest.plot_impact_variants(summary, table)
    panels = {t.name: t.xaxis for t in fig.data}
    assert panels == {
        "seat 0: not significant": "x",
        "seat 0: significant (BH)": "x",
        "mean score: greedy": "x2",
        "game length": "x3",
    }
    turns = next(t for t in fig.data if t.name == "game length")
    assert list(turns.y) == ["v1", "v2"] and list(turns.x) == [0.1, -0.3]
    head = next(t for t in fig.data if t.name.endswith("significant (BH)"))
    assert list(head.x) == [pytest.approx(2.0)]  # points
    titles = [fig.layout[f"xaxis{i}"].title.text for i in ("", "2", "3")]
    assert titles == [
        "change in seat 0 win share (points)",
        "change in mean score",
        "change in game length (turns)",
    ]
    for ax in ("xaxis", "xaxis2", "xaxis3"):
        assert fig.layout[ax].tickformat and fig.layout[ax].showticklabels is not False
    assert fig.layout.yaxis2.showticklabels is False  # the shared variant names, once
    assert_readable(
        fig,
        "“v1” moves the seat 0's win share most: +2.00 points [+1.00, +3.00]",
        "1 of 2 variants",
    )


def test_impact_variants_without_score_rows_drop_that_panel():
    summary, table = _variants()
    fig = forest.plot_impact_variants(summary, table.filter(pl.col("metric") != "mean_score"))
    assert {t.xaxis for t in fig.data} == {"x", "x2"}
    assert fig.layout.xaxis2.title.text == "change in game length (turns)"
    assert "xaxis3" not in fig.layout.to_plotly_json()
    no_sig = summary.with_columns(significant=pl.lit(False))
    fig = forest.plot_impact_variants(no_sig, table)
    assert_readable(fig, "No variant changes the seat 0's win share significantly (largest: “v1”")


def test_overview_groups_datasets_with_a_labelled_fair_line(shares):
    fig = figures.plot_overview(["a", "b"], [shares, shares])
    assert [t.name for t in fig.data] == ["a", "b"]
    assert fig.layout.barmode == "group"
    assert [a.text for a in fig.layout.annotations] == ["fair 25 %"]
    assert_readable(fig, "Furthest from fair: a: seat 1 (greedy) wins 31.0 % (fair 25 %)")
