"""The figures of a ``balance sweep``'s page: drawing only, from numbers.py's ``SweepStats``.

``plot_metric`` draws one metric (numbers.py's ``METRICS``) against the first knob, 95 %
intervals over games as error bars; with a grid, one curve per value of the other knobs (or, for
a metric of several groups, one panel per value). Its title states the finding from the step
table's significant rows, in sweep_sentences.py's words. With different player counts within a
panel, seats and places are drawn as share / fair (share × players; 1 = fair).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from html import escape
from typing import Any

import numpy as np
import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from balance.fmt import q_text
from balance.report import figures
from balance.report.numbers import Metric, SweepStats, metric_rows, step_rows
from balance.report.sentences import listing
from balance.report.sweep_sentences import (
    change,
    count,
    group_words,
    level_text,
    row_words,
    slope_text,
)
from balance.stats.census import SWEPT

PANEL_PX = 300  # height of one panel of a grid's figure
PANEL_GAP_PX = 95  # between panels: the upper one's x-axis title, the lower one's title


def _x_axis(fig: go.Figure, ss: SweepStats, **where: Any) -> None:
    axis = ss.axes[0]
    if axis.numeric:
        fig.update_xaxes(
            title_text=axis.key,
            tickvals=[float(v) for v in axis.values],
            ticktext=list(axis.labels),
            **where,
        )
    else:
        fig.update_xaxes(
            title_text=axis.key,
            tickvals=list(range(len(axis.labels))),
            ticktext=list(axis.labels),
            range=[-0.5, len(axis.labels) - 0.5],
            **where,
        )


def _y_values(
    m: Metric, t: pl.DataFrame, panels: Sequence[str | None]
) -> tuple[str, str, str, float, str]:
    """(value, lo, hi columns, scale, y-axis title) of a figure's rows: win shares of seats,
    places, policies and teams as share / fair when the player count changes within a panel
    (a raw share means something else at each count), else as drawn."""
    vary = any(
        (t if p is None else t.filter(pl.col("series") == p))["players"].n_unique() > 1
        for p in panels
    )
    if (
        m.metric == "win_share"
        and vary
        and m.key in ("seats", "order", "policy", "team")
        and t["fair"].is_not_nan().all()
    ):
        return "norm", "norm_lo", "norm_hi", 1.0, "share / fair (1 = fair)"
    titles = {
        "first_edge": "edge over a fair share (points)",
        "win_share": "win share (%)",
        "mean_score": "mean score per seat-game",
        "mean_turns": "turns per game",
        "end_reason": "share of games (%)",
        # how the game plays (stats/plays.py)
        "lead_changes": "lead changes per game",
        "comeback_half": "winners behind at half time (%)",
        "decided_at": "share of the game before the winner led for good (%)",
        "margin": "margin of victory (standing)",
        # how the game is taken (stats/census.py)
        "first_minus_last": "turns of the first place over the last",
        "dead_turns": "dead turns (%)",
        "kingmaking_games": "games with a kingmaking decision (%)",
    }
    rates = (
        "first_edge",
        "win_share",
        "end_reason",
        "comeback_half",
        "decided_at",
        "dead_turns",
        "kingmaking_games",
    )
    scale = 100.0 if m.metric in rates else 1.0
    return "value", "lo", "hi", scale, titles[m.metric]


def _title(ss: SweepStats, m: Metric, t: pl.DataFrame) -> tuple[str, str]:
    """(finding, what is plotted) of a figure: from the step table's significant rows."""
    kinds = t["kind"].unique(maintain_order=True).to_list()
    s = pl.concat([step_rows(ss, m, k) for k in kinds], how="diagonal_relaxed")
    tested = s.filter(pl.col("q_value").is_not_nan())
    others = ", ".join(a.key for a in ss.axes[1:])
    context = f"{m.heading} at each point, {level_text(ss)} intervals over games" + (
        f"; one curve (or panel) per value of {others}" if others else ""
    )
    if m.metric in SWEPT:  # a census: a sample of each point's games, replayed
        n = sorted(set(t["games"].to_list()))
        context += f"; the census of each point's first {listing([f'{g:,}' for g in n])} games"
    if t["group"].n_unique() == 1 and not others:  # one curve: its trend, as the summary says
        tr = ss.trends.filter(
            (pl.col("metric") == t["metric"][0])
            & (pl.col("kind") == t["kind"][0])
            & (pl.col("group") == t["group"][0])
            & pl.col("q_value").is_not_nan()
        )
        if tr.height:
            r = tr.row(0, named=True)
            per = "per player" if ss.axes[0].key == "players" else "per unit"
            context += f"; trend {slope_text(r, m, per)}, {q_text(r['q_value'])}"
    if tested.height == 0:
        why = (
            " (not compared across player counts)"
            if ss.players_vary
            and (m.key in ("seats", "policy", "team", "role") or m.metric in SWEPT)
            else ""
        )
        return f"{m.heading}: no step between neighbouring points is tested{why}", context
    sig = tested.filter(pl.col("significant"))
    rank = (sig if sig.height else tested).with_columns(_a=pl.col("diff").abs())
    r = rank.sort("_a", descending=True).row(0, named=True)
    who = "" if t["group"].n_unique() == 1 else f"{row_words(r)}, "
    if sig.height:
        n_all = tested.select("step", "kind", "group").unique().height
        return (
            f"{sig.height} of {count(n_all, 'change')} between neighbouring points "
            f"{'is' if sig.height == 1 else 'are'} significant; "
            f"largest: {who}{r['step_label']} {change(r, m)}",
            context,
        )
    return (
        f"No step between neighbouring points is significant (largest: {who}"
        f"{r['step_label']} {change(r, m)})",
        context,
    )


def plot_metric(ss: SweepStats, m: Metric) -> go.Figure:
    """One metric against the first knob: a curve per group (seat, place, policy...) or, with
    a grid and a single group, a curve per value of the other knobs; with a grid and several
    groups, one panel per value of the other knobs. Error bars: the points' intervals."""
    t = metric_rows(ss, m)
    series = [s for s in ss.series if t.filter(pl.col("series") == s).height]
    groups = list(dict.fromkeys(zip(t["kind"].to_list(), t["group"].to_list(), strict=True)))
    panels: list[str | None] = list(series) if len(series) > 1 and len(groups) > 1 else [None]
    value, lo, hi, scale, y_title = _y_values(m, t, panels)
    finding, context = _title(ss, m, t)
    height = 420 if len(panels) == 1 else 170 + PANEL_PX * len(panels)
    if len(panels) > 1:
        fig = make_subplots(
            rows=len(panels),
            cols=1,
            shared_xaxes=False,
            subplot_titles=panels,
            # room for a panel's x-axis title and the next panel's title between them
            vertical_spacing=PANEL_GAP_PX / (height - 170),
        )
    else:
        fig = go.Figure()
    traces = []
    if panels == [None]:
        for g in groups:
            for s in series:
                name = group_words(*g) if len(groups) > 1 or len(series) == 1 else s
                if len(groups) > 1 and len(series) > 1:  # pragma: no cover - panels instead
                    name = f"{name} ({s})"
                traces.append((None, g, s, name))
    else:
        for i, s in enumerate(panels):
            traces += [(i, g, s, group_words(*g)) for g in groups]
    shown = set()
    per_panel = len(traces) // len(panels)
    dodge = _dodge(ss, per_panel)
    for k, (panel, g, s, name) in enumerate(traces):
        sub = t.filter(
            (pl.col("kind") == g[0]) & (pl.col("group") == g[1]) & (pl.col("series") == s)
        ).sort("x_pos")
        if sub.height == 0:
            continue
        colour = figures.PALETTE[(groups.index(g) if len(groups) > 1 else k) % len(figures.PALETTE)]
        v = sub[value].to_numpy().astype(np.float64) * scale
        up = sub[hi].to_numpy().astype(np.float64) * scale - v
        down = v - sub[lo].to_numpy().astype(np.float64) * scale
        offset = dodge * ((k % per_panel) - (per_panel - 1) / 2)  # side by side, not on top
        trace = go.Scatter(
            x=sub["x_value"].to_numpy() + offset,
            y=v,
            mode="lines+markers",
            name=name,
            legendgroup=name,
            showlegend=name not in shown,
            line={"color": colour, "width": 1.5},
            marker={"color": colour, "size": 7},
            error_y={
                "type": "data",
                "symmetric": False,
                "array": np.nan_to_num(up),
                "arrayminus": np.nan_to_num(down),
                "thickness": 1.5,
                "width": 5,
            },
            customdata=np.column_stack(
                [sub["x"].to_numpy(), sub[lo].to_numpy() * scale, sub[hi].to_numpy() * scale]
            ),
            hovertemplate=(
                f"{escape(ss.axes[0].key)}=%{{customdata[0]}}: %{{y:.4g}} "
                "[%{customdata[1]:.4g}, %{customdata[2]:.4g}]"
                f"<extra>{escape(name)}</extra>"
            ),
        )
        shown.add(name)
        if panel is None:
            fig.add_trace(trace)
        else:
            fig.add_trace(trace, row=panel + 1, col=1)
    figures.layout(
        fig,
        title=finding,
        context=context,
        height=height,
        showlegend=True,
        margin={"t": 95},
    )
    for i, p in enumerate(panels):
        ref = _reference(m, t if p is None else t.filter(pl.col("series") == p), value)
        if ref is not None:
            where = {} if p is None else {"row": i + 1, "col": 1}
            fig.add_hline(
                y=ref * scale, line={"color": "black", "width": 1, "dash": "dot"}, **where
            )
    if len(panels) > 1:
        for i in range(len(panels)):
            _x_axis(fig, ss, row=i + 1, col=1)
            fig.update_yaxes(title_text=y_title, row=i + 1, col=1)
    else:
        _x_axis(fig, ss)
        fig.update_yaxes(title_text=y_title)
    return fig


def _dodge(ss: SweepStats, traces: int) -> float:
    """How far apart the curves of one panel are drawn at each x: a small share of the gap
    between neighbouring values, so that their error bars do not hide each other."""
    if traces <= 1:
        return 0.0
    axis = ss.axes[0]
    xs = sorted(float(v) for v in axis.values) if axis.numeric else list(range(len(axis.labels)))
    gaps = [b - a for a, b in itertools.pairwise(xs) if b > a]
    gap = min(gaps) if gaps else 1.0
    return min(0.25 / traces, 0.06) * gap


def _reference(m: Metric, t: pl.DataFrame, value: str) -> float | None:
    """The dotted line of a fair value: 0 for an edge, 1 for share / fair, a fair share all the
    groups share; None when there is none."""
    if m.metric == "first_edge":
        return 0.0
    if value == "norm":
        return 1.0
    if m.metric == "win_share":
        fair = t["fair"].drop_nans().unique()
        if fair.len() == 1 and t["fair"].is_not_nan().all():
            return float(fair[0])
    return None
