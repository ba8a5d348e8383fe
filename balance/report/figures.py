"""Plotly figures of the statistics in balance/stats: every function takes numbers and only draws.

Inputs are the stats NamedTuples (``WinShares``, ``SeatAdvantage``, ``Distributions``,
``CardImpact``) or, for differences between runs, the long tables of balance/stats/paired.py
(``metric, kind, group, a, b, diff, lo, hi, ...``), which ``Paired``, ``Comparison`` and
``Impact`` all share. Shares are plotted as fractions with percent axes; differences of shares in
percentage points. Nothing here reads a dataset or computes a statistic (STYLE.md, "Numbers apart
from drawing"); the only arithmetic is turning counts into bins and intervals into error bars.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from balance.report.sentences import difference_label, ordinal, q_text
from balance.stats import KINDS, CardImpact, Distributions, SeatAdvantage, WinShares

TEMPLATE = "plotly_white"
BLUE, GREY, RED, GREEN = "#1f77b4", "#9e9e9e", "#d62728", "#2ca02c"
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2")
MAX_BINS = 120  # histograms with more distinct values are merged into this many bins
ROW_PX = 22  # height of one row of a forest plot


def _layout(fig: go.Figure, *, title: str, height: int = 380, **kw: object) -> go.Figure:
    fig.update_layout(
        title={"text": title, "x": 0, "xanchor": "left"},
        template=TEMPLATE,
        height=height,
        margin={"l": 60, "r": 20, "t": 50, "b": 50},
        showlegend=kw.pop("showlegend", False),
        **kw,
    )
    return fig


def _errors(frame: pl.DataFrame, value: str = "share") -> dict[str, object]:
    v = frame[value].to_numpy()
    return {
        "type": "data",
        "symmetric": False,
        "array": frame["hi"].to_numpy() - v,
        "arrayminus": v - frame["lo"].to_numpy(),
        "thickness": 1.5,
        "width": 6,
    }


def _share_bars(
    frame: pl.DataFrame, labels: Sequence[str], *, title: str, x_title: str
) -> go.Figure:
    """Bars of ``share`` with Wilson error bars and the fair share of each bar."""
    labels = list(labels)
    share, lo, hi = (frame[c].to_numpy() for c in ("share", "lo", "hi"))
    fair = frame["fair"].to_numpy()
    fig = go.Figure(
        go.Bar(
            x=labels,
            y=share,
            error_y=_errors(frame),
            marker_color=BLUE,
            name="win share",
            customdata=np.column_stack([lo, hi, frame["n"].to_numpy()]),
            hovertemplate="%{x}: %{y:.2%} [%{customdata[0]:.2%}, %{customdata[1]:.2%}]"
            "<br>n = %{customdata[2]:,}<extra></extra>",
        )
    )
    if len(set(np.round(fair, 12))) == 1:
        fig.add_hline(
            y=float(fair[0]),
            line={"dash": "dash", "color": RED},
            annotation_text=f"fair {fair[0]:.1%}",
            annotation_position="top right",
        )
    else:  # teams of different sizes: a fair mark per bar
        fig.add_trace(
            go.Scatter(
                x=labels,
                y=fair,
                mode="markers",
                name="fair",
                marker={"symbol": "line-ew", "size": 40, "line": {"width": 2, "color": RED}},
                hovertemplate="fair: %{y:.1%}<extra></extra>",
            )
        )
    top = float(np.nanmax(np.concatenate([hi, fair]))) if len(hi) else 1.0
    _layout(fig, title=title, xaxis_title=x_title, yaxis_title="win share")
    fig.update_yaxes(tickformat=".0%", range=[0, min(1.0, top * 1.15 + 0.01)])
    return fig


def plot_win_shares(shares: WinShares, by: str = "seat") -> go.Figure:
    """Win share per seat, policy, team, role or place in the turn order, Wilson intervals, fair
    line (none for roles, whose seats change from game to game)."""
    if by == "seat":
        f = shares.by_seat
        labels = [f"seat {s} ({p})" for s, p in zip(f["seat"], f["policy"], strict=True)]
        return _share_bars(f, labels, title="Win share per seat", x_title="seat (policy)")
    if by == "policy":
        f = shares.by_policy
        labels = [
            f"{p} ({k} seat{'s' * (k > 1)})" for p, k in zip(f["policy"], f["seats"], strict=True)
        ]
        return _share_bars(
            f, labels, title="Win share per seat-game, by policy", x_title="policy (seats)"
        )
    if by == "team":
        f = shares.by_team
        labels = [f"team {t}" for t in f["team"]]
        return _share_bars(f, labels, title="Win share per game, by team", x_title="team")
    if by == "role":
        f = shares.by_role
        labels = [f"role {r}" for r in f["role"]]
        return _share_bars(f, labels, title="Win share per seat-game, by role", x_title="role")
    if by == "order":
        f = shares.by_order
        labels = [f"{ordinal(int(k))} player" for k in f["order"]]
        return _share_bars(
            f, labels, title="Win share by turn order", x_title="place in turn order"
        )
    raise ValueError(f"by must be seat, policy, team, role or order, got {by!r}")


def plot_seat_advantage(adv: SeatAdvantage) -> go.Figure:
    """Win share by place in the opening turn order, with the first player's edge in the title."""
    f = adv.by_order
    labels = [f"{ordinal(int(k))} player" for k in f["order"]]
    edge = adv.first_player_edge
    title = (
        f"Win share by turn order: first player {edge * 100:+.2f} points "
        f"[{adv.edge_lo * 100:+.2f}, {adv.edge_hi * 100:+.2f}]"
    )
    return _share_bars(f, labels, title=title, x_title="place in the opening turn order")


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


def _histogram(
    traces: Sequence[tuple[str, np.ndarray, np.ndarray]],
    *,
    title: str,
    x_title: str,
    normalise: bool,
) -> go.Figure:
    fig = go.Figure()
    for i, (name, values, counts) in enumerate(traces):
        starts, widths, summed = _rebin(np.asarray(values), np.asarray(counts), MAX_BINS)
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
    _layout(
        fig,
        title=title,
        xaxis_title=x_title,
        yaxis_title="share" if normalise else "count",
        showlegend=len(traces) > 1,
        barmode="overlay",
        bargap=0,
    )
    if normalise:
        fig.update_yaxes(tickformat=".0%")
    return fig


def plot_score_distribution(
    dist: Distributions, by_policy: pl.DataFrame | None = None
) -> go.Figure:
    """Histogram of seat-game scores from binned counts; one overlaid, normalised histogram per
    policy when ``by_policy`` (columns policy, score, n) is given."""
    s = dist.score
    title = f"Score per seat-game: mean {s.mean:.2f}, median {s.quantiles.get(0.5, float('nan')):g}"
    if by_policy is not None and by_policy["policy"].n_unique() > 1:
        traces = [
            (str(p), g["score"].to_numpy(), g["n"].to_numpy())
            for (p,), g in by_policy.sort("policy", "score").group_by("policy", maintain_order=True)
        ]
        return _histogram(traces, title=title, x_title="score", normalise=True)
    c = dist.score_counts
    return _histogram(
        [("seat-games", c["score"].to_numpy(), c["n"].to_numpy())],
        title=title,
        x_title="score",
        normalise=False,
    )


def plot_length_distribution(dist: Distributions) -> go.Figure:
    """Histogram of game lengths (turns) from binned counts."""
    t = dist.turns
    c = dist.turns_counts
    q05, q95 = t.quantiles.get(0.05, float("nan")), t.quantiles.get(0.95, float("nan"))
    title = f"Game length: mean {t.mean:.1f} turns, 90 % of games between {q05:g} and {q95:g}"
    return _histogram(
        [("games", c["turns"].to_numpy(), c["games"].to_numpy())],
        title=title,
        x_title="turns",
        normalise=False,
    )


def impact_label(row: dict[str, object], by: str | None = None) -> str:
    """'stolen skull' or 'greedy: stolen skull' for a row of CardImpact.table."""
    text = f"{row['event']} {row['card']}".strip()
    return f"{row[by]}: {text}" if by else text


def plot_card_impact(impact: CardImpact, by: str | None = None) -> go.Figure:
    """Forest plot of the observational card impact: win share with the event minus without,
    game-clustered Newcombe intervals, significant rows (BH q < 0.05) in red. Rows without a contrast
    (every or no seat-game had the event) are left out."""
    t = impact.table.filter(pl.col("diff").is_not_nan() & pl.col("diff").is_not_null())
    t = t.sort("diff")
    rows = t.to_dicts()
    labels = [impact_label(r, by) for r in rows]
    fig = go.Figure()
    for sig, colour, name in ((False, GREY, "q ≥ 0.05"), (True, RED, "q < 0.05 (BH)")):
        part = [i for i, r in enumerate(rows) if bool(r["significant"]) is sig]
        if not part:
            continue
        sub = t[part]
        fig.add_trace(
            go.Scatter(
                x=sub["diff"].to_numpy(),
                y=[labels[i] for i in part],
                mode="markers",
                name=name,
                marker={"color": colour, "size": 7},
                error_x=_errors(sub, "diff") | {"width": 3},
                customdata=[  # q as words: 'q < 1e-300' for one that underflowed, never 0
                    [
                        r["share_with"],
                        r["share_without"],
                        r["n_with"],
                        r["n_without"],
                        q_text(r["q_value"]),
                        r["lo"],
                        r["hi"],
                    ]
                    for r in sub.iter_rows(named=True)
                ],
                hovertemplate="%{y}: %{x:+.2%} [%{customdata[5]:+.2%}, %{customdata[6]:+.2%}]"
                "<br>with %{customdata[0]:.2%} (n %{customdata[2]:,}), "
                "without %{customdata[1]:.2%} (n %{customdata[3]:,})"
                "<br>%{customdata[4]} (BH)<extra></extra>",
            )
        )
    fig.add_vline(x=0, line={"color": "black", "width": 1})
    _layout(
        fig,
        title="Card impact, observational (diagnostic, not causal): win share with the event "
        "minus without",
        height=max(300, 120 + ROW_PX * len(rows)),
        showlegend=True,
        legend={"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 1, "xanchor": "right"},
        xaxis_title="difference in win share (percentage points)",
    )
    fig.update_xaxes(tickformat="+.0%", tick0=0)
    fig.update_yaxes(categoryorder="array", categoryarray=labels, automargin=True)
    if len(rows) > 25:  # a tall plot repeats its axis on top, where the reader starts
        _top_axis(fig, t, labels[-1])
    return fig


def _top_axis(fig: go.Figure, t: pl.DataFrame, label: str) -> None:
    lo, hi = float(np.nanmin(t["lo"].to_numpy())), float(np.nanmax(t["hi"].to_numpy()))
    fig.add_trace(
        go.Scatter(
            x=[lo, hi],
            y=[label, label],
            xaxis="x2",
            mode="markers",
            marker={"opacity": 0},
            hoverinfo="skip",
            showlegend=False,
        )
    )
    fig.update_layout(
        xaxis2={"overlaying": "x", "side": "top", "matches": "x", "tickformat": "+.0%", "tick0": 0},
        margin={"t": 90},
    )


def plot_differences(
    table: pl.DataFrame,
    *,
    metric: str = "win_share",
    kinds: Sequence[str] = KINDS,
    title: str = "Differences against the baseline",
    a_name: str = "baseline",
    b_name: str = "this",
) -> go.Figure:
    """Forest plot of the rows of one ``metric`` of a paired/unpaired differences table
    (diff = this run - baseline, with lo, hi); significant rows (``significant``) in red.
    ``a_name`` and ``b_name`` name the two sides in the hover text (``A``, ``B`` for compare)."""
    t = table.filter((pl.col("metric") == metric) & pl.col("kind").is_in(list(kinds)))
    labels = [difference_label(k, g) for k, g in zip(t["kind"], t["group"], strict=True)]
    share = metric == "win_share"
    fig = go.Figure()
    sig = t["significant"].to_numpy()
    for flag, colour, name in (
        (False, GREY, "interval includes 0"),
        (True, RED, "interval excludes 0"),
    ):
        idx = np.flatnonzero(sig == flag)
        if not len(idx):
            continue
        sub = t[idx.tolist()]
        fig.add_trace(
            go.Scatter(
                x=sub["diff"].to_numpy(),
                y=[labels[i] for i in idx],
                mode="markers",
                name=name,
                marker={"color": colour, "size": 8},
                error_x=_errors(sub, "diff") | {"width": 3},
                customdata=np.column_stack([sub["a"].to_numpy(), sub["b"].to_numpy()]),
                hovertemplate=(
                    f"%{{y}}: %{{x:+.2%}}<br>{a_name} %{{customdata[0]:.2%}}, "
                    f"{b_name} %{{customdata[1]:.2%}}<extra></extra>"
                    if share
                    else f"%{{y}}: %{{x:+.3f}}<br>{a_name} %{{customdata[0]:.3f}}, "
                    f"{b_name} %{{customdata[1]:.3f}}<extra></extra>"
                ),
            )
        )
    fig.add_vline(x=0, line={"color": "black", "width": 1})
    unit = "percentage points" if share else metric.replace("_", " ")
    _layout(
        fig,
        title=title,
        height=max(260, 120 + ROW_PX * len(labels)),
        showlegend=True,
        legend={"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 1, "xanchor": "right"},
        xaxis_title=f"difference ({unit})",
    )
    if share:
        fig.update_xaxes(tickformat="+.1%", tick0=0)
    fig.update_yaxes(categoryorder="array", categoryarray=labels[::-1], automargin=True)
    return fig


def _headline_title(summary: pl.DataFrame) -> str:
    """'headline: 1st player win share' (the summary's one headline row)."""
    rows = summary.filter(pl.col("kind").is_not_null())
    if rows.height == 0:
        return "headline metric"
    r = rows.row(0, named=True)
    what = str(r.get("metric") or "win_share").replace("_", " ")
    return f"headline: {difference_label(r['kind'], r['group'])} {what}"


def plot_impact_variants(summary: pl.DataFrame, table: pl.DataFrame) -> go.Figure:
    """Interventional impact, one row per variant (``summary`` of balance/impact_file.py:
    variant, kind, group, diff, lo, hi, ``significant`` (BH q < 0.05), sorted by the size of the
    headline change), in three panels: the change of the headline metric (declared in advance,
    the same for every variant); the mean-score change per policy; the game-length change.
    ``table`` is the long table (variant, metric, kind, group, diff, lo, hi, ...)."""
    variants = summary["variant"].to_list()
    fig = make_subplots(
        rows=1,
        cols=3,
        shared_yaxes=True,
        horizontal_spacing=0.03,
        column_widths=[0.4, 0.35, 0.25],
        subplot_titles=(
            _headline_title(summary),
            "mean score, by policy",
            "game length (turns)",
        ),
    )
    sig = summary["significant"].fill_null(False).to_numpy()
    for flag, colour, name in ((False, GREY, "not significant"), (True, RED, "significant (BH)")):
        idx = np.flatnonzero(sig == flag)
        if not len(idx):
            continue
        sub = summary[idx.tolist()]
        fig.add_trace(
            go.Scatter(
                x=sub["diff"].to_numpy(),
                y=[variants[i] for i in idx],
                mode="markers",
                name=name,
                legendgroup=name,
                marker={"color": colour, "size": 8},
                error_x=_errors(sub, "diff") | {"width": 3},
                customdata=[
                    difference_label(k, g) for k, g in zip(sub["kind"], sub["group"], strict=True)
                ],
                hovertemplate="%{y}: %{customdata} %{x:+.2%}<extra></extra>",
            ),
            row=1,
            col=1,
        )
    score = table.filter((pl.col("metric") == "mean_score") & (pl.col("kind") == "policy"))
    for i, ((policy,), g) in enumerate(score.group_by("group", maintain_order=True)):
        g = g.join(summary.select("variant"), on="variant", how="semi")
        fig.add_trace(
            go.Scatter(
                x=g["diff"].to_numpy(),
                y=g["variant"].to_list(),
                mode="markers",
                name=f"score: {policy}",
                marker={"color": PALETTE[(i + 4) % len(PALETTE)], "size": 7, "symbol": "diamond"},
                error_x=_errors(g, "diff") | {"width": 3},
                hovertemplate=f"%{{y}}: {policy} score %{{x:+.3f}}<extra></extra>",
            ),
            row=1,
            col=2,
        )
    turns = table.filter(pl.col("metric") == "mean_turns")
    fig.add_trace(
        go.Scatter(
            x=turns["diff"].to_numpy(),
            y=turns["variant"].to_list(),
            mode="markers",
            name="turns",
            marker={"color": BLUE, "size": 7, "symbol": "square"},
            error_x=_errors(turns, "diff") | {"width": 3},
            hovertemplate="%{y}: %{x:+.3f} turns<extra></extra>",
        ),
        row=1,
        col=3,
    )
    for col in (1, 2, 3):
        fig.add_vline(x=0, line={"color": "black", "width": 1}, row=1, col=col)
    _layout(
        fig,
        title="Card impact, interventional: each variant minus the base config, same seeds",
        height=max(320, 140 + ROW_PX * len(variants)),
        showlegend=True,
        legend={"orientation": "h", "y": -0.02, "yanchor": "top", "x": 0},
    )
    fig.update_xaxes(tickformat="+.1%", tick0=0, row=1, col=1)
    fig.update_yaxes(
        categoryorder="array", categoryarray=variants[::-1], automargin=True, row=1, col=1
    )
    return fig


def plot_overview(labels: Sequence[str], shares: Sequence[WinShares]) -> go.Figure:
    """Win share per seat of several datasets side by side (grouped bars, Wilson intervals)."""
    fig = go.Figure()
    for i, (label, ws) in enumerate(zip(labels, shares, strict=True)):
        f = ws.by_seat
        fig.add_trace(
            go.Bar(
                x=[f"seat {s}" for s in f["seat"]],
                y=f["share"].to_numpy(),
                error_y=_errors(f),
                name=label,
                marker_color=PALETTE[i % len(PALETTE)],
                customdata=f["policy"].to_list(),
                hovertemplate=f"{label}: %{{x}} (%{{customdata}}) %{{y:.2%}}<extra></extra>",
            )
        )
    _layout(
        fig,
        title="Win share per seat, every dataset",
        showlegend=True,
        barmode="group",
        yaxis_title="win share",
    )
    fig.update_yaxes(tickformat=".0%")
    return fig
