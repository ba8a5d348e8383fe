"""Plotly figures of the statistics in balance/stats: every function takes numbers and only draws.

Here: the style every figure shares (``layout``, the palette, ``error_bars``, ``empty``) and the
figures of one dataset's shares, turn order, distributions and the overview of several datasets,
from the stats NamedTuples (``WinShares``, ``SeatAdvantage``, ``Distributions``). The forest plots
of differences (card impact, a baseline, a compare, variants) are in forest.py, a sweep's curves in
sweep_figures.py, both in this style. Shares are plotted as fractions with percent axes; differences
of shares in percentage points (the fraction times 100, so a tick reads "+2" points, never "+2%").
Nothing here reads a dataset or computes a statistic (STYLE.md, "Numbers apart from drawing"); the
only arithmetic is turning counts into bins and intervals into error bars.

Every figure reads at a glance: its title states the finding in the numbers it was given (the
largest difference, how many are significant by the ``significant`` column, which is already
multiplicity-controlled), a smaller second line says what is plotted; every axis has a title and
formatted tick labels; a legend sits below the plot area, never on the data; a multi-panel
figure has its own x-axis title under each panel and no empty panel. A symmetric line-up's seats
are drawn as deviations from fair with simultaneous intervals, not as identical bars.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from balance.fmt import fair_pct, pct, points
from balance.report.sentences import ordinal
from balance.stats import (
    Distributions,
    SeatAdvantage,
    WinShares,
)

TEMPLATE = "plotly_white"
BLUE, GREY, RED, GREEN = "#1f77b4", "#9e9e9e", "#d62728", "#2ca02c"
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2")
MAX_BINS = 120  # histograms with more distinct values are merged into this many bins
ROW_PX = 22  # height of one row of a forest plot
POINTS = 100.0  # a difference of shares is drawn in percentage points
# A legend sits under the plot, at the bottom of the figure (container coordinates, so its
# distance from the x-axis title does not depend on the figure's height); the bottom margin
# holds tick labels, the axis title and one or two rows of legend.
LEGEND_BELOW = {
    "orientation": "h",
    "yref": "container",
    "y": 0.0,
    "yanchor": "bottom",
    "x": 0.0,
    "xanchor": "left",
}
BOTTOM_LEGEND_PX = 105
BOTTOM_PX = 70
SUB = '<br><span style="font-size:12px;color:#555">{}</span>'


def title_text(finding: str, context: str = "") -> str:
    return finding + (SUB.format(context) if context else "")


def layout(
    fig: go.Figure,
    *,
    title: str,
    context: str = "",
    height: int = 400,
    showlegend: bool = False,
    **kw: object,
) -> go.Figure:
    margin = {"l": 70, "r": 30, "t": 80 if context else 55}
    margin["b"] = BOTTOM_LEGEND_PX if showlegend else BOTTOM_PX
    margin.update(kw.pop("margin", {}))  # type: ignore[arg-type]
    fig.update_layout(
        title={"text": title_text(title, context), "x": 0, "xanchor": "left"},
        template=TEMPLATE,
        height=height,
        margin=margin,
        showlegend=showlegend,
        **({"legend": LEGEND_BELOW} if showlegend else {}),
        **kw,
    )
    fig.update_xaxes(automargin=True, showticklabels=True, ticks="outside")
    fig.update_yaxes(automargin=True, showticklabels=True)
    return fig


def error_bars(frame: pl.DataFrame, value: str = "share", scale: float = 1.0) -> dict[str, object]:
    v = frame[value].to_numpy().astype(np.float64)
    return {
        "type": "data",
        "symmetric": False,
        "array": (frame["hi"].to_numpy() - v) * scale,
        "arrayminus": (v - frame["lo"].to_numpy()) * scale,
        "thickness": 1.5,
        "width": 6,
    }


def empty(fig: go.Figure, text: str) -> go.Figure:
    """A figure with nothing to draw says so instead of showing an empty panel."""
    fig.add_annotation(
        text=text, showarrow=False, xref="paper", yref="paper", x=0.5, y=0.5, font={"size": 14}
    )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return fig


# ================================================================================ win shares


def _share_bars(
    frame: pl.DataFrame,
    labels: Sequence[str],
    *,
    title: str,
    context: str,
    x_title: str,
) -> go.Figure:
    """Bars of ``share`` with error bars and the fair share of each bar, labelled."""
    labels = list(labels)
    share, lo, hi = (frame[c].to_numpy() for c in ("share", "lo", "hi"))
    fair = frame["fair"].to_numpy().astype(np.float64)
    fig = go.Figure(
        go.Bar(
            x=labels,
            y=share,
            error_y=error_bars(frame),
            marker_color=BLUE,
            name="win share (95 % interval)",
            customdata=np.column_stack([lo, hi, frame["n"].to_numpy()]),
            hovertemplate="%{x}: %{y:.2%} [%{customdata[0]:.2%}, %{customdata[1]:.2%}]"
            "<br>n = %{customdata[2]:,}<extra></extra>",
        )
    )
    known = fair[np.isfinite(fair)]
    if len(known) and len(set(np.round(known, 12))) == 1:
        fig.add_hline(
            y=float(known[0]),
            line={"dash": "dash", "color": RED},
            annotation_text=f"fair {fair_pct(float(known[0]))}",
            annotation_position="top right",
            annotation_font={"color": RED},
        )
    elif len(known):  # teams of different sizes: a fair mark per bar
        fig.add_trace(
            go.Scatter(
                x=labels,
                y=fair,
                mode="markers",
                name="fair share",
                marker={"symbol": "line-ew", "size": 40, "line": {"width": 2, "color": RED}},
                hovertemplate="fair: %{y:.1%}<extra></extra>",
            )
        )
    top = np.concatenate([hi, fair])
    top = top[np.isfinite(top)]
    peak = float(top.max()) if len(top) else 1.0
    layout(
        fig,
        title=title,
        context=context,
        showlegend=len(fig.data) > 1,
        xaxis_title=x_title,
        yaxis_title="win share",
    )
    fig.update_yaxes(tickformat=".0%", range=[0, min(1.0, peak * 1.15 + 0.01)])
    return fig


def _furthest(frame: pl.DataFrame, labels: Sequence[str]) -> str:
    """'seat 1 (greedy) wins 31.0 % (fair 25 %)': the bar furthest from its fair share (the
    largest share when there is no fair share)."""
    share = frame["share"].to_numpy().astype(np.float64)
    fair = frame["fair"].to_numpy().astype(np.float64)
    if not len(share):
        return "No win shares"
    has_fair = np.isfinite(fair)
    if has_fair.any():
        i = int(np.nanargmax(np.where(has_fair, np.abs(share - fair), -1.0)))
        return f"{capitalised(labels[i])} wins {pct(share[i])} (fair {fair_pct(fair[i])})"
    i = int(np.nanargmax(share))
    return f"{capitalised(labels[i])} wins most: {pct(share[i])}"


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def _seat_deviations(shares: WinShares, level: float = 0.95) -> go.Figure:
    """A symmetric line-up: each seat's share minus fair (points) with simultaneous intervals,
    as a forest plot around 0, and the bound every seat lies within in the title."""
    f = shares.by_seat
    share, fair = f["share"].to_numpy(), f["fair"].to_numpy()
    slo, shi = shares.simultaneous_intervals(level)
    dev, lo, hi = (share - fair) * POINTS, (slo - fair) * POINTS, (shi - fair) * POINTS
    bound = float(max(np.nanmax(hi), np.nanmax(-lo)))
    labels = [f"seat {s}" for s in f["seat"]]
    off = (lo > 0) | (hi < 0)  # a simultaneous interval that excludes fair
    k = 2 if bound < 1 else 1
    pol = f["policy"][0]
    fair_t = fair_pct(float(fair[0]))
    if off.any():
        i = int(np.argmax(np.where(off, np.abs(dev), -1.0)))
        title = (
            f"{capitalised(labels[i])} is off fair ({fair_t}) by {dev[i]:+.{k}f} points "
            f"[{lo[i]:+.{k}f}, {hi[i]:+.{k}f}]; {int(off.sum())} of {len(dev)} seats differ"
        )
    else:
        title = f"Every seat within ±{bound:.{k}f} points of fair ({fair_t}, {level * 100:g} % intervals)"
    fig = go.Figure()
    fig.add_vrect(x0=-bound, x1=bound, fillcolor=BLUE, opacity=0.08, line_width=0)
    fig.add_trace(
        go.Scatter(
            x=dev,
            y=labels,
            mode="markers",
            name="share − fair",
            marker={"color": np.where(off, RED, BLUE).tolist(), "size": 10},
            error_x={
                "type": "data",
                "symmetric": False,
                "array": hi - dev,
                "arrayminus": dev - lo,
                "thickness": 1.5,
                "width": 6,
            },
            customdata=np.column_stack([share, f["lo"].to_numpy(), f["hi"].to_numpy()]),
            hovertemplate="%{y}: %{x:+.2f} points from fair"
            "<br>share %{customdata[0]:.2%} [%{customdata[1]:.2%}, %{customdata[2]:.2%}]"
            "<extra></extra>",
        )
    )
    fig.add_vline(x=0, line={"color": "black", "width": 1})
    span = max(bound, float(np.nanmax(np.abs(np.concatenate([lo, hi]))))) * 1.25
    layout(
        fig,
        title=title,
        context=(
            f"Win share per seat minus fair, every seat {pol}: simultaneous {level * 100:g} % "
            "intervals (Bonferroni over the seats); the band is the bound"
        ),
        height=max(260, 150 + 36 * len(labels)),
        xaxis_title="win share − fair (percentage points)",
        yaxis_title="seat",
    )
    fig.update_xaxes(tickformat="+.2~f", range=[-span, span], zeroline=False)
    fig.update_yaxes(categoryorder="array", categoryarray=labels[::-1], range=rows_range(labels))
    return fig


def plot_win_shares(shares: WinShares, by: str = "seat") -> go.Figure:
    """Win share per seat, policy, team, role or place in the turn order, intervals over games,
    the fair share labelled (none for roles, whose seats change from game to game). A symmetric
    line-up's seats are drawn as deviations from fair (``_seat_deviations``)."""
    if by == "seat":
        if shares.symmetric:
            return _seat_deviations(shares, shares.level)
        f = shares.by_seat
        labels = [f"seat {s} ({p})" for s, p in zip(f["seat"], f["policy"], strict=True)]
        return _share_bars(
            f,
            labels,
            title=_furthest(f, labels),
            context="Win share per seat, 95 % intervals over games; dashed: fair share",
            x_title="seat (policy)",
        )
    if by == "policy":
        f = shares.by_policy
        labels = [
            f"{p} ({k} seat{'s' * (k > 1)})" for p, k in zip(f["policy"], f["seats"], strict=True)
        ]
        order = np.argsort(-f["share"].to_numpy())
        words = ", ".join(f"{f['policy'][int(i)]} {pct(f['share'][int(i)])}" for i in order)
        fair = f["fair"].to_numpy()
        fair_t = f" (fair {fair_pct(float(fair[0]))})" if len(set(np.round(fair, 12))) == 1 else ""
        return _share_bars(
            f,
            labels,
            title=f"Win share per seat-game: {words}{fair_t}",
            context="Win share per seat-game, by policy, 95 % intervals over games",
            x_title="policy (seats)",
        )
    if by == "team":
        f = shares.by_team
        labels = [f"team {t}" for t in f["team"]]
        return _share_bars(
            f,
            labels,
            title=_furthest(f, labels),
            context="Win share per game, by team, 95 % intervals over games",
            x_title="team",
        )
    if by == "role":
        f = shares.by_role
        labels = [f"role {r}" for r in f["role"]]
        return _share_bars(
            f,
            labels,
            title=_furthest(f, labels),
            context="Win share per seat-game, by role (dealt per game: no fair share)",
            x_title="role",
        )
    if by == "order":
        f = shares.by_order
        labels = [f"{ordinal(int(k))} player" for k in f["order"]]
        return _share_bars(
            f,
            labels,
            title=_furthest(f, labels),
            context="Win share by place in the turn order, 95 % intervals over games",
            x_title="place in turn order",
        )
    raise ValueError(f"by must be seat, policy, team, role or order, got {by!r}")


def plot_seat_advantage(adv: SeatAdvantage) -> go.Figure:
    """Win share by place in the opening turn order, the first player's share and edge (with its
    interval) in the title."""
    f = adv.by_order
    labels = [f"{ordinal(int(k))} player" for k in f["order"]]
    edge = f"edge {points(adv.first_player_edge, adv.edge_lo, adv.edge_hi)}"
    if not (adv.edge_lo > 0 or adv.edge_hi < 0):
        edge += ", not distinguishable from 0"
    # The edge's zero, which the dashed line draws too (the same by_order["fair"]): 1/players, or
    # when several seats win together (sides dealt per game, RM-2 and RM-22, or fixed teams of
    # several seats) the mean seat win of the same games.
    one_in_n = 1 / max(adv.players, 1)
    fair = float(f["fair"][0]) if f.height and np.isfinite(f["fair"][0]) else one_in_n
    together = abs(fair - one_in_n) > 1e-12
    title = f"First player wins {pct(adv.first_player_share, 2)} (fair {fair_pct(fair)}): {edge}"
    fair_words = "fair share = mean seat win (seats win together)" if together else "fair share"
    return _share_bars(
        f,
        labels,
        title=title,
        context=f"Win share by place in the opening turn order, {_lineup(adv.by_seat)}, "
        f"{adv.level * 100:g} % intervals over games; dashed: {fair_words}",
        x_title="place in the opening turn order",
    )


def _lineup(by_seat: pl.DataFrame) -> str:
    """Who played: 'every seat basic' or 'seats basic, random, basic' (a seat's policy)."""
    if "policy" not in by_seat.columns:
        return lineup_words(())
    return lineup_words([str(p) for p in by_seat["policy"]])


def lineup_words(seats: Sequence[str]) -> str:
    """The policy of each seat in a figure's words: 'every seat basic', 'seats greedy, random'."""
    if not seats:
        return "line-up not recorded"
    return f"every seat {seats[0]}" if len(set(seats)) == 1 else "seats " + ", ".join(seats)


# ============================================================================= distributions


def _rebin(values: np.ndarray, counts: np.ndarray, max_bins: int) -> tuple[np.ndarray, ...]:
    """Integer values and their counts -> (bin starts, widths, counts) of at most max_bins bins."""
    if len(values) == 0:
        return values, values, counts
    lo, hi = int(values.min()), int(values.max())
    width = max(1, int(np.ceil((hi - lo + 1) / max_bins)))
    idx = (values - lo) // width
    summed = np.bincount(idx.astype(np.int64), weights=counts.astype(np.float64))
    starts = lo + width * np.arange(len(summed))
    keep = summed > 0
    return starts[keep], np.full(keep.sum(), width), summed[keep]


def _integer_ticks(values: Sequence[np.ndarray]) -> dict[str, object]:
    """Ticks of an axis of integer values: one every 1, 2, 5, 10, 20, ... units (at most 10),
    on integers. Left to plotly, a short axis (a 0/1 score) gets ticks at the halves, which the
    integer format prints twice ('1' at 0.5 and at 1), and the bars look offset from them."""
    known = [np.asarray(v) for v in values if len(v)]
    if not known:
        return {}
    lo = int(min(v.min() for v in known))
    hi = int(max(v.max() for v in known))
    step = 1
    while (hi - lo) / step > 10:
        step = step * 5 // 2 if str(step)[0] == "2" else step * 2  # 1, 2, 5, 10, 20, 50, ...
    return {"tickmode": "linear", "tick0": lo - lo % step, "dtick": step}


def _histogram(
    traces: Sequence[tuple[str, np.ndarray, np.ndarray]],
    *,
    title: str,
    context: str,
    x_title: str,
    y_title: str,
    normalise: bool,
) -> go.Figure:
    fig = go.Figure()
    for i, (name, values, counts) in enumerate(traces):
        starts, widths, summed = _rebin(np.asarray(values), np.asarray(counts), MAX_BINS)
        if not len(starts):
            continue
        y = summed / summed.sum() if normalise and summed.sum() else summed
        centre = starts + (widths - 1) / 2
        label = (
            [f"{int(s)}" for s in starts]
            if len(widths) == 0 or widths[0] == 1
            else [f"{int(s)}-{int(s + w - 1)}" for s, w in zip(starts, widths, strict=True)]
        )
        fig.add_trace(
            go.Bar(
                x=centre,
                y=y,
                width=widths * (0.9 if len(traces) == 1 else 1.0),
                name=name,
                marker_color=PALETTE[i % len(PALETTE)],
                opacity=1.0 if len(traces) == 1 else 0.6,
                customdata=np.column_stack([label, summed]),
                hovertemplate=f"{name}: %{{customdata[0]}}: "
                + ("%{y:.2%}" if normalise else "%{y:,}")
                + " (%{customdata[1]:,.0f})<extra></extra>",
            )
        )
    layout(
        fig,
        title=title,
        context=context,
        xaxis_title=x_title,
        yaxis_title=y_title,
        showlegend=len(fig.data) > 1,
        barmode="overlay",
        bargap=0,
    )
    if not fig.data:
        return empty(fig, "no values to draw")
    fig.update_xaxes(tickformat="d", **_integer_ticks([v for _, v, _ in traces]))
    fig.update_yaxes(tickformat=".0%" if normalise else ",")
    return fig


def plot_score_distribution(
    dist: Distributions, by_policy: pl.DataFrame | None = None
) -> go.Figure:
    """Histogram of seat-game scores from binned counts; one overlaid, normalised histogram per
    policy when ``by_policy`` (columns policy, score, n) is given."""
    s = dist.score
    median = s.quantiles.get(0.5, float("nan"))
    title = f"A seat scores {s.mean:.2f} on average (median {median:g})"
    if by_policy is not None and by_policy["policy"].n_unique() > 1:
        traces = [
            (str(p), g["score"].to_numpy(), g["n"].to_numpy())
            for (p,), g in by_policy.sort("policy", "score").group_by("policy", maintain_order=True)
        ]
        means = dist.score_by_policy
        if means.height > 1 and "mean" in means.columns:
            m = means.sort("mean", descending=True)
            title = "Mean score per seat-game: " + ", ".join(
                f"{p} {v:.2f}" for p, v in zip(m["policy"], m["mean"], strict=True)
            )
        return _histogram(
            traces,
            title=title,
            context="Score per seat-game, each policy's histogram normalised to 100 %",
            x_title="score (points)",
            y_title="share of the policy's seat-games",
            normalise=True,
        )
    c = dist.score_counts
    return _histogram(
        [("seat-games", c["score"].to_numpy(), c["n"].to_numpy())],
        title=title,
        context="Score per seat-game: number of seat-games with each score",
        x_title="score (points)",
        y_title="seat-games",
        normalise=False,
    )


def plot_length_distribution(dist: Distributions) -> go.Figure:
    """Histogram of game lengths (turns) from binned counts."""
    t = dist.turns
    c = dist.turns_counts
    q05, q95 = t.quantiles.get(0.05, float("nan")), t.quantiles.get(0.95, float("nan"))
    title = f"Games last {t.mean:.1f} turns on average (90 % between {q05:g} and {q95:g})"
    return _histogram(
        [("games", c["turns"].to_numpy(), c["games"].to_numpy())],
        title=title,
        context="Game length: number of games of each length",
        x_title="game length (turns)",
        y_title="games",
        normalise=False,
    )


def plot_count_panels(
    panels: Sequence[tuple[str, str, np.ndarray, np.ndarray]],
    *,
    title: str,
    context: str,
    y_title: str = "games",
    cols: int = 2,
) -> go.Figure:
    """Small multiples of count histograms, one panel per ``(panel title, x-axis title, integer
    values, counts)`` (a game's own report sections: how many games had each value); a panel
    without values says so."""
    rows = max(1, -(-len(panels) // cols))
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[p[0] for p in panels],
        horizontal_spacing=0.1,
        vertical_spacing=0.28 if rows > 1 else 0.1,
    )
    for i, (_, x_title, values, counts) in enumerate(panels):
        r, c = i // cols + 1, i % cols + 1
        starts, widths, summed = _rebin(np.asarray(values), np.asarray(counts), MAX_BINS)
        if len(starts):
            label = [
                f"{int(s)}" if w == 1 else f"{int(s)}-{int(s + w - 1)}"
                for s, w in zip(starts, widths, strict=True)
            ]
            fig.add_trace(
                go.Bar(
                    x=starts + (widths - 1) / 2,
                    y=summed,
                    width=widths * 0.9,
                    marker_color=BLUE,
                    customdata=label,
                    hovertemplate=f"{x_title} %{{customdata}}: %{{y:,}} {y_title}<extra></extra>",
                ),
                row=r,
                col=c,
            )
        else:
            fig.add_annotation(
                text="no values",
                showarrow=False,
                row=r,
                col=c,
                x=0.5,
                y=0.5,
                xref="x domain",
                yref="y domain",
            )
        fig.update_xaxes(
            title_text=x_title, tickformat="d", **_integer_ticks([values]), row=r, col=c
        )
        fig.update_yaxes(title_text=y_title, tickformat=",", rangemode="tozero", row=r, col=c)
    layout(
        fig, title=title, context=context, height=300 * rows + 90, bargap=0.05, margin={"t": 120}
    )
    fig.update_annotations(font_size=12)
    return fig


def rows_range(labels: Sequence[str] | set[str]) -> list[float]:
    """The y range of a forest plot: its rows and half a row either side (plotly's autorange
    pads markers by 5 % of the range, which in a tall plot is a screenful of empty rows)."""
    return [-0.6, len(labels) - 0.4]


# ================================================================================== overview


def plot_overview(labels: Sequence[str], shares: Sequence[WinShares]) -> go.Figure:
    """Win share per seat of several datasets side by side (grouped bars, intervals over games),
    the fair share labelled; the title names the seat furthest from fair."""
    fig = go.Figure()
    best: tuple[float, str] = (-1.0, "No win shares")
    fairs = set()
    for i, (label, ws) in enumerate(zip(labels, shares, strict=True)):
        f = ws.by_seat
        fig.add_trace(
            go.Bar(
                x=[f"seat {s}" for s in f["seat"]],
                y=f["share"].to_numpy(),
                error_y=error_bars(f),
                name=label,
                marker_color=PALETTE[i % len(PALETTE)],
                customdata=f["policy"].to_list(),
                hovertemplate=f"{label}: %{{x}} (%{{customdata}}) %{{y:.2%}}<extra></extra>",
            )
        )
        for s, p, sh, fa in zip(f["seat"], f["policy"], f["share"], f["fair"], strict=True):
            fairs.add(round(float(fa), 12))
            if abs(sh - fa) > best[0]:
                best = (
                    abs(sh - fa),
                    f"{label}: seat {s} ({p}) wins {pct(sh)} (fair {fair_pct(fa)})",
                )
    if len(fairs) == 1:
        fair = fairs.pop()
        fig.add_hline(
            y=fair,
            line={"dash": "dash", "color": RED},
            annotation_text=f"fair {fair_pct(fair)}",
            annotation_position="top right",
            annotation_font={"color": RED},
        )
    layout(
        fig,
        title=f"Furthest from fair: {best[1]}",
        context="Win share per seat, every dataset, 95 % intervals over games",
        showlegend=True,
        barmode="group",
        xaxis_title="seat",
        yaxis_title="win share",
    )
    fig.update_yaxes(tickformat=".0%", rangemode="tozero")
    return fig


def plot_winner_leads(curve: pl.DataFrame, standing: str, unit: str = "seat") -> go.Figure:
    """How early a game is decided: at each tenth of the game, the share of games whose eventual
    winner (a seat, or a side: ``unit``) led alone (by ``standing``), with its 95 % interval as
    a band."""
    winner = "winning side" if unit == "side" else "winner"
    by = standing.replace("_", " ")
    if unit == "side":
        by = "a side's living members" if standing == "alive" else f"a side's summed {by}"
    x = curve["fraction"].to_numpy() * 100
    share, lo, hi = (curve[c].to_numpy() for c in ("share", "lo", "hi"))
    games = int(curve["games"][0]) if curve.height else 0
    half = float(share[len(share) // 2]) if len(share) else float("nan")
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=np.concatenate([x, x[::-1]]),
            y=np.concatenate([hi, lo[::-1]]),
            fill="toself",
            fillcolor="rgba(31, 119, 180, 0.15)",
            line={"width": 0},
            hoverinfo="skip",
            name="95 % interval",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=share,
            mode="lines+markers",
            marker_color=BLUE,
            name=f"{winner} leads",
            customdata=np.column_stack([lo, hi]),
            hovertemplate=f"%{{x:.0f}} % of the game: the {winner} leads in %{{y:.1%}} of games"
            " [%{customdata[0]:.1%}, %{customdata[1]:.1%}]<extra></extra>",
        )
    )
    layout(
        fig,
        title=f"Half way through, the eventual {winner} leads alone in {pct(half)} of games",
        context=f"How early a game is decided: games with one {winner} ({games:,}), leader by {by}",
        showlegend=False,
        xaxis_title="share of the game's rounds played (%)",
        yaxis_title=f"games whose {winner} leads",
    )
    fig.update_yaxes(tickformat=".0%", range=[0, 1.02])
    fig.update_xaxes(range=[-2, 102])
    return fig


def plot_census_places(places: pl.DataFrame, players: str, games: int) -> go.Figure:
    """Turns a game at each place in the turn order (a census: stats/census.py), split into
    turns with a choice and dead turns, the total's simultaneous interval as error bars."""
    x = [f"place {int(o) + 1}" for o in places["order"]]
    turns = places["turns"].to_numpy()
    dead = turns * places["dead_share"].to_numpy()
    lo, hi = places["turns_lo"].to_numpy(), places["turns_hi"].to_numpy()
    fig = go.Figure()
    fig.add_trace(
        go.Bar(
            x=x,
            y=turns - dead,
            marker_color=BLUE,
            name="turns with a choice",
            hovertemplate="%{x}: %{y:.2f} turns with a choice a game<extra></extra>",
        )
    )
    fig.add_trace(
        go.Bar(
            x=x,
            y=dead,
            marker_color="rgba(150, 150, 150, 0.8)",
            name="dead turns (no choice)",
            error_y={"type": "data", "symmetric": False, "array": hi - turns,
                     "arrayminus": turns - lo},
            customdata=np.column_stack([turns, lo, hi]),
            hovertemplate="%{x}: %{y:.2f} dead turns a game; all turns %{customdata[0]:.2f} "
            "[%{customdata[1]:.2f}, %{customdata[2]:.2f}]<extra></extra>",
        )
    )  # fmt: skip
    layout(
        fig,
        title="Turns a game at each place in the turn order, dead turns in grey",
        context=f"Turns a game by place in the turn order: {games:,} games replayed, {players};"
        " error bars: 95 % intervals of all turns, simultaneous over the places",
        barmode="stack",
        showlegend=True,
        xaxis_title="place in the turn order",
        yaxis_title="turns a game",
    )
    return fig
