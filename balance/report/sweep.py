"""The page of a ``balance sweep``: every metric against the knob, with intervals, and where the
curve moves significantly between neighbouring points.

In the report's layers (numbers, then sentences, then figures and sections, then the page):

- ``analyse_sweep(path)`` reads a sweep directory (balance/experiments/sweep.py) into a
  ``SweepStats``: the curve rows of every finished point and the table of neighbouring steps
  with q-values for the whole sweep (balance/stats/curves.py);
- ``sweep_sentences`` says what the curves show, naming a step as a change only when the table
  calls it significant (the project's one rule, balance/stats/multiple.py);
- the figure functions only draw: one figure per metric, the first knob on the x-axis, 95 %
  intervals over games as error bars; with a grid, one curve per value of the other knobs (or,
  for a metric of several groups, one panel per value);
- ``render_sweep`` puts the sections in the page shell (template.py); ``write_sweep_report``
  writes the file, as ``balance report SWEEP_DIR`` and ``balance sweep --report FILE`` do.

With different player counts among the points, seats and places are drawn as share / fair
(share × players; 1 = fair): a raw share means something else at each count.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from balance.experiments.sweep import Axis, SweepRun, open_sweep
from balance.report import figures
from balance.report.numbers import ReportError, config_diff
from balance.report.sections import (
    Column,
    Page,
    config_yaml,
    facts,
    fmt,
    headline,
    pvalue,
    significant,
    table_html,
)
from balance.report.sentences import difference_label, digits, listing, q_text
from balance.report.template import fill_sections
from balance.report.write import ReportInfo, _write_html, check_output
from balance.results import open_results, status_text
from balance.stats import curves

# ===================================================================================== numbers


class SweepStats(NamedTuple):
    """Everything the sweep page shows."""

    path: str
    run: SweepRun
    axes: tuple[Axis, ...]
    # the curve rows of every finished point (stats.curves.CURVE_COLUMNS) with: point (index),
    # x (the first knob's label), x_value, x_pos (its position among the knob's values),
    # series (the other knobs' labels, "" with one knob), players
    curve: pl.DataFrame
    # neighbouring steps (stats.curves.STEP_COLUMNS, q_value, significant) with step_label
    steps: pl.DataFrame
    players: dict[int, int]  # point index -> players
    teams_are_seats: bool  # at every point: team rows would repeat the seats
    missing: list[str]  # points not finished, with their status
    manifests: dict[int, dict[str, Any]]  # point index -> its results manifest
    level: float
    seconds: float

    @property
    def players_vary(self) -> bool:
        return len(set(self.players.values())) > 1

    @property
    def series(self) -> list[str]:
        return list(dict.fromkeys(self.curve["series"].to_list()))


def _series_label(axes: Sequence[Axis], labels: Sequence[str]) -> str:
    return ", ".join(f"{a.key}={v}" for a, v in zip(axes[1:], labels[1:], strict=True))


def analyse_sweep(path: str | os.PathLike[str], *, level: float = 0.95) -> SweepStats:
    """The numbers of the sweep page: every finished point's curve rows, and each pair of
    neighbouring finished points (along the first knob, within each value of the others)
    compared, with the one significance rule over the whole sweep."""
    t0 = time.perf_counter()
    run = open_sweep(path)
    done = run.complete
    if not done:
        states = ", ".join(f"{p.name} {p.status}" for p in run.points)
        raise ReportError(f"{path}: no point of the sweep is finished yet ({states})")
    axes = run.axes
    first = axes[0]
    by_series: dict[str, list[Any]] = {}
    for p in done:
        by_series.setdefault(_series_label(axes, p.labels), []).append(p)
    curve_parts, step_parts, players, manifests = [], [], {}, {}
    teams_are_seats = True
    step = 0
    for series, pts in by_series.items():
        pts.sort(key=lambda p: first.labels.index(p.labels[0]))
        previous = None
        for p in pts:
            manifest, rows = open_results(p.path)
            data = curves.point_data(rows, manifest, level=level)
            manifests[p.index] = manifest
            players[p.index] = data.players
            teams_are_seats &= data.lineup.teams_are_seats
            x_pos = first.labels.index(p.labels[0])
            curve_parts.append(
                data.curve.with_columns(
                    point=pl.lit(p.index, dtype=pl.Int64),
                    x=pl.lit(p.labels[0]),
                    x_value=pl.lit(float(p.values[0]) if first.numeric else float(x_pos)),
                    x_pos=pl.lit(x_pos, dtype=pl.Int64),
                    series=pl.lit(series),
                    players=pl.lit(data.players, dtype=pl.Int64),
                )
            )
            if previous is not None:
                q, dq = previous
                rows_ = curves.neighbour_rows(
                    dq, data, step=step, a_point=q.index, b_point=p.index, level=level
                )
                label = f"{first.key}={q.labels[0]} → {p.labels[0]}"
                step_parts.append(
                    rows_.with_columns(
                        step_label=pl.lit(label + (f" ({series})" if series else "")),
                        series=pl.lit(series),
                    )
                )
                step += 1
            previous = (p, data)
    curve = pl.concat(curve_parts)
    if step_parts:
        steps = curves.adjust_steps(pl.concat(step_parts, how="diagonal_relaxed"))
    else:
        steps = pl.DataFrame(
            schema={
                **dict.fromkeys(curves.STEP_COLUMNS, pl.String),
                "step": pl.Int64,
                "diff": pl.Float64,
                "lo": pl.Float64,
                "hi": pl.Float64,
                "a": pl.Float64,
                "b": pl.Float64,
                "p_value": pl.Float64,
                "q_value": pl.Float64,
                "significant": pl.Boolean,
                "step_label": pl.String,
                "series": pl.String,
            }
        )
    missing = [
        f"{p.name} ({p.status}{f', {p.games_done:,} games' if p.games_done else ''})"
        for p in run.points
        if p.status != "complete"
    ]
    return SweepStats(
        path=os.fspath(path),
        run=run,
        axes=axes,
        curve=curve,
        steps=steps,
        players=players,
        teams_are_seats=teams_are_seats,
        missing=missing,
        manifests=manifests,
        level=level,
        seconds=time.perf_counter() - t0,
    )


# ----------------------------------------------------------------------- what each figure shows


class Metric(NamedTuple):
    """One figure of the page: which curve rows, which step rows test them, how to say them."""

    key: str  # section id
    heading: str
    metric: str  # curve metric
    kinds: tuple[str, ...]  # curve kinds drawn (a trace per group)
    what: str  # "the first player's edge", in sentences
    unit: str  # unit of a value or a change in words: " points", " turns", ""
    scale: float  # value -> shown (100 for shares in points)


METRICS = (
    Metric("edge", "First player's edge", "first_edge", ("order",), "the first player's edge",
           " points", 100.0),
    Metric("seats", "Win share per seat", "win_share", ("seat",), "a seat's win share",
           " points", 100.0),
    Metric("order", "Win share per place in the turn order", "win_share", ("order",),
           "a place's win share", " points", 100.0),
    Metric("policy", "Win share per policy", "win_share", ("policy",), "a policy's win share",
           " points", 100.0),
    Metric("team", "Win share per team", "win_share", ("team",), "a team's win share",
           " points", 100.0),
    Metric("role", "Win share per role", "win_share", ("role",), "a role's win share",
           " points", 100.0),
    Metric("score", "Mean score", "mean_score", ("all", "policy"), "the mean score", "", 1.0),
    Metric("length", "Game length", "mean_turns", ("game",), "game length", " turns", 1.0),
    Metric("ends", "End reasons", "end_reason", ("reason",), "an end reason's share of games",
           " points", 100.0),
)  # fmt: skip


def metric_rows(ss: SweepStats, m: Metric) -> pl.DataFrame:
    """The curve rows a figure draws ([] when the metric says nothing here: one policy holding
    every seat, teams that are the seats, a single end reason)."""
    t = ss.curve.filter((pl.col("metric") == m.metric) & pl.col("kind").is_in(list(m.kinds)))
    if m.key == "policy" and t.filter(~pl.col("exact")).height == 0:
        return t.clear()
    if m.key == "team" and ss.teams_are_seats:
        return t.clear()
    if m.key == "ends" and t["group"].n_unique() <= 1:
        return t.clear()
    return t


def step_rows(ss: SweepStats, m: Metric, kind: str | None = None) -> pl.DataFrame:
    """The step rows that test a figure's curves (a place's share: the paired win share, or
    share / fair across player counts)."""
    s = ss.steps
    kinds = [kind] if kind is not None else list(m.kinds)
    metrics = [m.metric]
    if m.metric == "win_share" and "order" in kinds:
        metrics.append("normalised_share")
    return s.filter(pl.col("metric").is_in(metrics) & pl.col("kind").is_in(kinds))


def _shown_scale(row: dict[str, Any], m: Metric) -> tuple[float, str]:
    """(scale, unit) of a step row: share / fair is a ratio, everything else as the metric."""
    if row["metric"] == "normalised_share":
        return 1.0, ""
    return m.scale, m.unit


def _row_words(row: dict[str, Any]) -> str:
    """The group a step row is about: '1st player', "1st player's share / fair", 'seat 2'."""
    words = _group_words(row["kind"], row["group"])
    return f"{words}'s share / fair" if row["metric"] == "normalised_share" else words


def _change(row: dict[str, Any], m: Metric) -> str:
    scale, unit = _shown_scale(row, m)
    d, lo, hi = row["diff"] * scale, row["lo"] * scale, row["hi"] * scale
    k = digits((hi - lo) / 2, none=2)
    return f"{d:+.{k}f}{unit} [{lo:+.{k}f}, {hi:+.{k}f}]".replace("-", "−")


def _value(v: float, lo: float, hi: float, m: Metric, *, signed: bool = False) -> str:
    k = digits((hi - lo) * m.scale / 2, none=2)
    sign = "+" if signed else ""
    return (
        f"{v * m.scale:{sign}.{k}f}{m.unit} [{lo * m.scale:{sign}.{k}f}, {hi * m.scale:{sign}.{k}f}]"
    ).replace("-", "−")


def _group_words(kind: str, group: str) -> str:
    if kind == "all":
        return "all seats"
    if kind == "reason":
        return f"end by {group}"
    return difference_label(kind, group)


# =================================================================================== sentences


def _level(ss: SweepStats) -> str:
    return f"{ss.level * 100:g} %"


def _axes_words(axes: Sequence[Axis]) -> str:
    return "; ".join(f"{a.key} over {listing(list(a.labels), most=8)}" for a in axes)


def sweep_sentences(ss: SweepStats) -> list[str]:
    """What the sweep shows, in words a statistician would sign: each value with its interval,
    and a change between neighbouring points named only when the step table calls it
    significant."""
    m = ss.run.manifest
    n_points = len(ss.run.points)
    out = [
        f"{m.get('config_path', '?')} at {n_points} point{'s' * (n_points != 1)} "
        f"({_axes_words(ss.axes)}), {int(m['games']):,} games each on the same seeds "
        f"(seed {m['seed']}): game i of every point is dealt from the same random stream."
    ]
    kinds = set(ss.steps["paired"].to_list()) if ss.steps.height else set()
    if True in kinds and False in kinds:
        out.append(
            "Neighbouring points with the same number of players are compared game by game "
            "(paired t-intervals over games); points with different player counts deal "
            "different games, so those are compared as independent samples (Welch intervals), "
            "on share / fair, the first player's edge, mean score and game length only."
        )
    elif False in kinds:
        out.append(
            "The points have different numbers of players, which deal different games from the "
            "same seeds: neighbouring points are compared as independent samples (Welch "
            "intervals over games), on share / fair (share × players) per place in the turn "
            "order, the first player's edge, mean score and game length; seats' raw shares are "
            "not compared."
        )
    elif True in kinds:
        out.append(
            "Neighbouring points are compared game by game, paired on the same games (t-intervals "
            "over games of the per-game difference)."
        )
    if ss.missing:
        out.append(
            f"{len(ss.missing)} of {n_points} points are not finished and are left out: "
            f"{listing(ss.missing)}."
        )
    for key in ("edge", "length", "score"):
        metric = next(x for x in METRICS if x.key == key)
        sentence = _metric_sentence(ss, metric)
        if sentence:
            out.append(sentence)
    out.append(_shares_sentence(ss))
    ends = next(x for x in METRICS if x.key == "ends")
    if metric_rows(ss, ends).height:
        out.append(_shares_sentence(ss, ends))
    if ss.steps.height:
        families = ss.steps.filter(
            pl.col("p_value").is_not_nan() & pl.col("repeat_metric").is_null()
        )["metric"].n_unique()
        out.append(
            f"A step is called significant only when its q-value is below 0.05: "
            f"Benjamini-Hochberg within each metric over all {ss.steps.height:,} rows of the "
            f"{ss.steps['step'].n_unique()} steps, times the number of metrics ({families}); "
            f"every interval is a {_level(ss)} interval of one point or one step, not "
            "simultaneous."
        )
    return out


def _metric_sentence(ss: SweepStats, m: Metric) -> str | None:
    t = metric_rows(ss, m)
    if m.key == "score":
        t = t.filter(pl.col("kind") == "all")
    if t.height == 0:
        return None
    signed = m.key == "edge"
    subject = {
        "edge": "The first player's edge over a fair share is",
        "length": "Games last",
        "score": "A seat scores",
    }[m.key]
    rows = t.sort("series", "x_pos").to_dicts()
    if len(rows) <= 6:
        said = [
            f"{_value(r['value'], r['lo'], r['hi'], m, signed=signed)} at {_point_words(ss, r)}"
            for r in rows
        ]
        text = f"{subject} {listing(said, most=6)}"
    else:
        lo_r = min(rows, key=lambda r: r["value"])
        hi_r = max(rows, key=lambda r: r["value"])
        text = (
            f"{subject} between {_value(lo_r['value'], lo_r['lo'], lo_r['hi'], m, signed=signed)} "
            f"(at {_point_words(ss, lo_r)}) and "
            f"{_value(hi_r['value'], hi_r['lo'], hi_r['hi'], m, signed=signed)} "
            f"(at {_point_words(ss, hi_r)})"
        )
    if m.key == "score":
        text += " on average (each game's mean over its seats)"
    return text + ". " + _steps_words(ss, m, step_rows(ss, m, t["kind"][0]))


def _point_words(ss: SweepStats, r: dict[str, Any]) -> str:
    x = f"{ss.axes[0].key}={r['x']}"
    return f"{x} ({r['series']})" if r["series"] else x


def _steps_words(ss: SweepStats, m: Metric, s: pl.DataFrame) -> str:
    """How many steps move the metric significantly, and the largest (or the largest of none)."""
    tested = s.filter(pl.col("q_value").is_not_nan())
    if tested.height == 0:
        return "No step between neighbouring points tests it."
    n_steps = tested["step"].n_unique()
    sig = tested.filter(pl.col("significant"))
    rank = tested.with_columns(_a=pl.col("diff").abs()).sort("_a", descending=True)
    if sig.height:
        top = rank.filter(pl.col("significant")).row(0, named=True)
        k = sig["step"].n_unique()
        return (
            f"It changes significantly at {k} of {n_steps} step{'s' * (n_steps != 1)} between "
            f"neighbouring points; the largest: {top['step_label']}, {_change(top, m)} "
            f"({q_text(top['q_value'])})."
        )
    top = rank.row(0, named=True)
    bound = max(abs(r["lo"]) for r in tested.iter_rows(named=True))
    bound = max(bound, max(abs(r["hi"]) for r in tested.iter_rows(named=True)))
    scale, unit = _shown_scale(top, m)
    k = digits(bound * scale / 2, none=2)
    return (
        f"No step between neighbouring points changes it significantly (largest: "
        f"{top['step_label']}, {_change(top, m)}, {q_text(top['q_value'])}); each step's change "
        "lies within "
        f"±{bound * scale:.{k}f}{unit} ({_level(ss)} per step)."
    )


def _shares_sentence(ss: SweepStats, m: Metric | None = None) -> str:
    """The win shares of seats, places, policies, teams and roles (or the end reasons' shares):
    the largest significant step, or that none is."""
    if m is None:
        kinds = [
            k
            for k in ("seat", "order", "policy", "team", "role")
            if metric_rows(
                ss, next(x for x in METRICS if x.key == ("seats" if k == "seat" else k))
            ).height
        ]
        m = Metric("shares", "", "win_share", tuple(kinds), "", " points", 100.0)
        s = ss.steps.filter(
            pl.col("metric").is_in(["win_share", "normalised_share"])
            & pl.col("kind").is_in(kinds)
            & pl.col("repeat_metric").is_null()
        )
        words = {"seat": "seat", "order": "place in the turn order", "policy": "policy",
                 "team": "team", "role": "role"}  # fmt: skip
        tested_kinds = s.filter(pl.col("q_value").is_not_nan())["kind"].unique(maintain_order=True)
        names = [words[k] for k in kinds if k in tested_kinds.to_list()] or ["seat"]
        what = "the win share of any " + " or ".join(
            [", ".join(names[:-1]), names[-1]] if len(names) > 1 else names
        )
    else:
        s = step_rows(ss, m)
        what = "the share of games ending for any reason"
    tested = s.filter(pl.col("q_value").is_not_nan())
    if tested.height == 0:
        return f"No step between neighbouring points tests {what}."
    sig = tested.filter(pl.col("significant"))
    if sig.height == 0:
        r = (
            tested.with_columns(_a=pl.col("diff").abs())
            .sort("_a", descending=True)
            .row(0, named=True)
        )
        return (
            f"No step between neighbouring points changes {what} significantly (largest: "
            f"{_row_words(r)} at {r['step_label']}, {_change(r, m)})."
        )
    parts = [
        f"{_row_words(r)} at {r['step_label']}, {_change(r, m)}"
        for r in sig.with_columns(_a=pl.col("diff").abs())
        .sort("_a", descending=True)
        .iter_rows(named=True)
    ]
    return (
        f"{'It' if m.key == 'ends' else 'Win shares'} change significantly at "
        f"{sig.height} of {tested.height} tested rows: {listing(parts, most=3)}."
    )


# ===================================================================================== figures
# Drawing only: each function takes the rows above and returns a plotly figure.

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
    }
    scale = 100.0 if m.metric in ("first_edge", "win_share", "end_reason") else 1.0
    return "value", "lo", "hi", scale, titles[m.metric]


def _title(ss: SweepStats, m: Metric, t: pl.DataFrame) -> tuple[str, str]:
    """(finding, what is plotted) of a figure: from the step table's significant rows."""
    kinds = t["kind"].unique(maintain_order=True).to_list()
    s = pl.concat([step_rows(ss, m, k) for k in kinds], how="diagonal_relaxed")
    tested = s.filter(pl.col("q_value").is_not_nan())
    others = ", ".join(a.key for a in ss.axes[1:])
    context = f"{m.heading} at each point, {_level(ss)} intervals over games" + (
        f"; one curve (or panel) per value of {others}" if others else ""
    )
    if tested.height == 0:
        why = (
            " (not compared across player counts)"
            if ss.players_vary and m.key in ("seats", "policy", "team", "role")
            else ""
        )
        return f"{m.heading}: no step between neighbouring points is tested{why}", context
    sig = tested.filter(pl.col("significant"))
    rank = (sig if sig.height else tested).with_columns(_a=pl.col("diff").abs())
    r = rank.sort("_a", descending=True).row(0, named=True)
    who = "" if t["group"].n_unique() == 1 else f"{_row_words(r)}, "
    if sig.height:
        n_all = tested.select("step", "kind", "group").unique().height
        return (
            f"{sig.height} of {n_all} changes between neighbouring points are significant; "
            f"largest: {who}{r['step_label']} {_change(r, m)}",
            context,
        )
    return (
        f"No step between neighbouring points is significant (largest: {who}"
        f"{r['step_label']} {_change(r, m)})",
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
                name = _group_words(*g) if len(groups) > 1 or len(series) == 1 else s
                if len(groups) > 1 and len(series) > 1:  # pragma: no cover - panels instead
                    name = f"{name} ({s})"
                traces.append((None, g, s, name))
    else:
        for i, s in enumerate(panels):
            traces += [(i, g, s, _group_words(*g)) for g in groups]
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
    figures._layout(
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


# ==================================================================================== sections


def _provenance(ss: SweepStats) -> str:
    m = ss.run.manifest
    overrides = ", ".join(m.get("overrides") or []) or "(none)"
    played = [p for p in m.get("points", []) if p.get("wall_time_s")]
    wall = sum(float(p["wall_time_s"]) for p in played)
    games = sum(int(p.get("games_done") or 0) for p in played)
    rate = f"{games / wall:,.0f} games/s over the points played" if wall > 0 else "–"
    items = [
        ("sweep", ss.path),
        ("game", m.get("game", "?")),
        ("config", m.get("config_path", "?")),
        ("--set", overrides),
        *((f"--over {a.key}", ", ".join(a.labels)) for a in ss.axes),
        ("games per point", f"{int(m['games']):,} (the same seeds at every point)"),
        ("seed", m.get("seed", "?")),
        ("status", status_text(m)),
        ("tool version", f"balance {m.get('version', '?')}"),
        ("date", f"{m.get('started', '?')} to {m.get('finished') or '(unfinished)'}"),
        (
            "speed",
            f"{float(m.get('wall_time_s') or 0):.1f} s for the sweep; "
            f"{wall:.1f} s playing ({rate})",
        ),
    ]
    entries = {int(e["index"]): e for e in m.get("points", [])}
    rows = []
    for p in ss.run.points:
        e = entries.get(p.index, {})
        pm = ss.manifests.get(p.index, {})
        rows.append(
            {
                "point": p.name,
                "status": p.status + (" (kept from an earlier run)" if e.get("kept") else ""),
                "players": pm.get("players", e.get("players")),
                "games": p.games_done,
                "hash": pm.get("config_hash") or e.get("config_hash") or "",
                "seconds": e.get("wall_time_s"),
                "rate": e.get("games_per_s"),
                "dir": p.path.name,
            }
        )
    table = table_html(
        rows,
        [
            Column("point", lambda r: r["point"]),
            Column("status", lambda r: r["status"]),
            Column("players", lambda r: r["players"], fmt("d"), True),
            Column("games", lambda r: r["games"], fmt(","), True),
            Column("seconds", lambda r: r["seconds"], fmt(".2f"), True, "simulating and writing"),
            Column("games/s", lambda r: r["rate"], fmt(",.0f"), True),
            Column("config hash", lambda r: r["hash"]),
            Column("results directory", lambda r: r["dir"]),
        ],
    )
    configs = {i: pm.get("config") or {} for i, pm in ss.manifests.items()}
    diff = ""
    if configs:
        first = min(configs)
        keys = sorted(
            {k for cfg in configs.values() for k, _, _ in config_diff(configs[first], cfg)}
        )
        keys = [k for k in keys if k != "description"]
        if keys:
            diff = (
                "<p>Resolved config keys that differ between the points: "
                + escape(", ".join(keys))
                + " (each point's results directory holds its whole config).</p>"
            )
        yaml_part = config_yaml(
            f"config of point {ss.run.points[first].name} (fully resolved, YAML)",
            configs[first],
        )
    else:
        yaml_part = ""
    warn = ""
    if ss.missing:
        warn = (
            f'<p class="caveat">This sweep is <b>{escape(status_text(m))}</b>: '
            f"{len(ss.missing)} of {len(ss.run.points)} points are not finished and are left "
            f"out ({escape(listing(ss.missing, most=6))}). Run the same sweep again with the "
            "same --out to play them.</p>"
        )
    return warn + facts(items) + table + diff + yaml_part


def _step_columns(ss: SweepStats) -> list[Column]:
    names = {
        "win_share": "win share",
        "normalised_share": "share / fair",
        "first_edge": "first player's edge",
        "mean_score": "mean score",
        "mean_turns": "game length",
        "end_reason": "end reason share",
    }
    unit = {m.metric: m for m in METRICS}

    def metric_of(r: dict[str, Any]) -> Metric:
        return unit.get(r["metric"], METRICS[1])

    def value(key: str) -> Any:
        def cell(r: dict[str, Any]) -> str:
            v = r[key]
            if v is None or v != v:
                return "–"
            if r["metric"] in ("win_share", "end_reason"):
                return f"{v:.2%}"
            if r["metric"] == "first_edge":
                return f"{v * 100:+.2f} pt"
            return f"{v:.3f}"

        return cell

    return [
        Column("step", lambda r: r["step_label"]),
        Column("pairing", lambda r: "paired" if r["paired"] else "independent"),
        Column("metric", lambda r: names.get(r["metric"], r["metric"])),
        Column("group", lambda r: _group_words(r["kind"], r["group"])),
        Column("before", lambda r: r, value("a")),
        Column("after", lambda r: r, value("b")),
        Column("change", lambda r: r, lambda r: _change(r, metric_of(r))),
        Column("diff", lambda r: r["diff"], fmt("+.4f"), True, "for sorting"),
        Column("games", lambda r: r["games"], fmt(","), True),
        Column("p", lambda r: r["p_value"], pvalue, True),
        Column(
            "q",
            lambda r: r["q_value"],
            pvalue,
            True,
            "Benjamini-Hochberg within each metric over the whole sweep, times the number of "
            "metrics; a repeat row takes the q of the row it repeats",
        ),
    ]


def _steps_section(ss: SweepStats) -> str:
    s = ss.steps
    if s.height == 0:
        return (
            "<p>Only one point per curve is finished: there are no neighbouring points to "
            "compare.</p>"
        )
    shown = s.filter(pl.col("repeat_metric").is_null() | (pl.col("metric") == "first_edge"))
    sig = shown.filter(pl.col("significant")).sort("step", "metric", "kind", "group")
    cols = _step_columns(ss)
    head = (
        f"<p>{sig.height} of {shown.height} rows change significantly between neighbouring "
        "points (red). Each row is the value at the later point minus the earlier one, with its "
        f"{_level(ss)} interval over games.</p>"
    )
    if sig.height:
        head += table_html(sig.to_dicts(), cols, sortable=True, mark=significant)
    return head + (
        "<details><summary>every step of every metric</summary>"
        + table_html(
            shown.sort("step").to_dicts(),
            cols,
            sortable=True,
            mark=significant,
            scroll=True,
            table_id="steps",
        )
        + "</details>"
    )


def _method(ss: SweepStats) -> str:
    m = ss.run.manifest
    return (
        f"<p>Every point plays games 0 to {int(m['games']) - 1:,} of seed "
        f"{escape(str(m['seed']))}: game <i>i</i> of every point draws the same random numbers "
        "(common random numbers). Each point's values are estimated over its games, the "
        "independent unit (the seats of one game are not independent): a seat's or place's win "
        "share with the Wilson interval over games; a policy's, team's or role's with the Wilson "
        "interval at its effective number of games; the first player's edge as its share minus "
        "a fair share; mean score as the mean over games of each game's mean seat score, and "
        "game length, with t-intervals over games; end reasons as shares of games (Wilson). "
        "Neighbouring points (along the first knob, within each value of the others) with the "
        "same number of players are compared game by game: the per-game difference's mean with "
        "its t-interval over games (balance/stats/paired.py). Points with different numbers of "
        "players deal different games, so they are independent samples: Welch intervals of "
        "share / fair per place in the turn order, the first player's edge, mean score per "
        "seat-game and game length (balance/stats/across.py), and of end-reason shares. A step is "
        "significant, red and put into words only when its q-value is below 0.05: the "
        "Benjamini-Hochberg q-value within its metric over every step and group of the sweep, "
        "times the number of metrics; among the steps so named the expected share of false ones "
        "is at most 5 %, and if the knob moved nothing the chance of naming any step is at "
        "most 5 %. A row that repeats another of its step (the first player's edge at one "
        "player count is the first player's share; a one-seat policy is its seat) is not "
        f"counted and takes that row's q-value. All intervals are at the {_level(ss)} level, "
        "one point or one step at a time.</p>"
    )


def render_sweep(ss: SweepStats, *, cdn: bool = False, generated: str | None = None) -> str:
    """The sweep page as one HTML string (module docstring)."""
    page = Page()
    parts = [
        (
            "summary",
            "What the sweep shows",
            headline(sweep_sentences(ss))
            + f'<p class="note">[ ] are {_level(ss)} intervals over games; statistics '
            f"computed in {ss.seconds:.1f} s.</p>",
        )
    ]
    for m in METRICS:
        if metric_rows(ss, m).height:
            parts.append((m.key, m.heading, page.figure(plot_metric(ss, m))))
    parts += [
        ("steps", "Between neighbouring points", _steps_section(ss)),
        ("provenance", "Provenance", _provenance(ss)),
        ("method", "Method", _method(ss)),
    ]
    manifest = ss.run.manifest
    subtitle = (
        f"{manifest.get('game', '?')}: {manifest.get('config_path', '?')}, "
        f"{_axes_words(ss.axes)}; {int(manifest['games']):,} games per point (seed "
        f"{manifest['seed']})"
    )
    return fill_sections(
        title=f"Balance sweep: {Path(os.path.abspath(ss.path)).name}",
        subtitle=subtitle,
        parts=parts,
        cdn=cdn,
        generated=generated,
    )


def write_sweep_report(
    path: str | os.PathLike[str],
    *,
    out: str | os.PathLike[str],
    cdn: bool = False,
    level: float = 0.95,
) -> ReportInfo:
    """Write the page of the sweep at ``path`` to ``out`` (parents created; replaced
    atomically)."""
    t0 = time.perf_counter()
    check_output(out)
    ss = analyse_sweep(path, level=level)
    written = _write_html(out, render_sweep(ss, cdn=cdn))
    return ReportInfo(written, written.stat().st_size, ss.seconds, time.perf_counter() - t0)


__all__ = [
    "METRICS",
    "Metric",
    "SweepStats",
    "analyse_sweep",
    "plot_metric",
    "render_sweep",
    "sweep_sentences",
    "write_sweep_report",
]
