"""The page of a ``balance sweep``: every metric against the knob, with intervals, where the
curve moves significantly between neighbouring points, and its trend across all its points.

In the report's layers (numbers, then sentences, then figures and sections, then the page):

- ``analyse_sweep(path)`` reads a sweep directory (balance/sweep_file.py) into a
  ``SweepStats``: the curve rows of every finished point, the table of neighbouring steps
  (balance/stats/curves.py) and the table of trends, the least-squares slope of every metric on
  a numeric knob across all the points of a curve (balance/stats/trend.py), with q-values for
  the steps and trends of the whole sweep as one table;
- ``sweep_sentences`` says what the curves show: the config's headline metric at each point,
  and a step or a trend named as a change only when the table calls it significant (the
  project's one rule, balance/stats/multiple.py); points that played identical games are said
  to be so;
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

from balance.fmt import digits, q_text
from balance.report import figures
from balance.report.numbers import ReportError, config_diff
from balance.report.sections import (
    Column,
    Page,
    config_yaml,
    facts,
    fmt,
    headline,
    interval,
    players_box,
    pvalue,
    significant,
    table_html,
)
from balance.report.sentences import difference_label, listing, ordinal
from balance.report.template import fill_sections
from balance.report.write import ReportInfo, _write_html, check_output
from balance.results import open_results, status_text
from balance.stats import RULE, curves, trend
from balance.sweep_file import Axis, SweepRun, open_sweep

# The q-value column of the steps' and the trends' tables: one family per metric over both.
Q_COLUMN = Column(
    "q",
    lambda r: r["q_value"],
    pvalue,
    True,
    "Benjamini-Hochberg within each metric over every step and trend of the sweep, times the "
    "number of metrics; a repeat row takes the q of the row it repeats",
)

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
    # trends along the first knob, one per curve (stats.trend.TREND_COLUMNS, q_value,
    # significant) with first_label, last_label (the knob's first and last values as written);
    # empty for a knob whose values are not numbers or a curve of fewer than 3 points
    trends: pl.DataFrame
    identical: bool  # along the first knob, every curve's points played identical games
    headline: tuple[str, str, str]  # the config's report.headline (metric, kind, group)
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
    curve_parts, step_parts, trend_parts, players, manifests = [], [], [], {}, {}
    teams_are_seats = True
    identical = True
    step = 0
    for series, pts in by_series.items():
        pts.sort(key=lambda p: first.labels.index(p.labels[0]))
        previous = None
        # A trend needs every point of its curve at once (its per-game contrast): about 80
        # bytes a game per point at four players.
        curve_points: list[curves.PointData] = []
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
            curve_points.append(data)
        identical &= trend.identical_points(curve_points)
        if first.numeric and len(pts) >= trend.MIN_POINTS:
            rows_ = trend.trend_rows(
                [float(p.values[0]) for p in pts], curve_points, series=series, level=level
            )
            trend_parts.append(
                rows_.with_columns(
                    first_label=pl.lit(pts[0].labels[0]), last_label=pl.lit(pts[-1].labels[0])
                )
            )
        del curve_points
    curve = pl.concat(curve_parts)
    trends = (
        pl.concat(trend_parts)
        if trend_parts
        else trend.empty_trends().with_columns(
            first_label=pl.lit(None, dtype=pl.String), last_label=pl.lit(None, dtype=pl.String)
        )
    )
    if step_parts:
        steps, trends = trend.adjust_sweep(pl.concat(step_parts, how="diagonal_relaxed"), trends)
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
        trends = trends.with_columns(
            q_value=pl.lit(None, dtype=pl.Float64), significant=pl.lit(False)
        )  # a trend has at least 3 points, so steps too
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
        trends=trends,
        identical=identical,
        headline=_headline_key(manifests[min(manifests)]),
        players=players,
        teams_are_seats=teams_are_seats,
        missing=missing,
        manifests=manifests,
        level=level,
        seconds=time.perf_counter() - t0,
    )


def _headline_key(manifest: dict[str, Any]) -> tuple[str, str, str]:
    """The (metric, kind, group) of a point's report.headline (the default for a run recorded
    without one, or by a version whose report section this one does not read)."""
    from balance.headline import ReportSettings

    given = (manifest.get("config") or {}).get("report")
    try:
        return (ReportSettings.model_validate(given) if given else ReportSettings()).headline.key()
    except ValueError:
        return ReportSettings().headline.key()


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
    the config's headline metric at each point, and a change between neighbouring points or a
    trend across the points named only when the table calls it significant; points that played
    identical games said to be so."""
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
    method = _trend_method_sentence(ss)
    if method:
        out.append(method)
    if ss.identical:
        key = ss.axes[0].key
        out.insert(
            1,
            "The points played identical games: the knob changes nothing in these games."
            if len(ss.axes) == 1
            else f"Along {key}, the points of each curve played identical games: {key} changes "
            "nothing in these games.",
        )
    if ss.missing:
        out.append(
            f"{len(ss.missing)} of {n_points} points are not finished and are left out: "
            f"{listing(ss.missing)}."
        )
    head = _headline_sentence(ss)
    if head:
        out.append(head)
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
        families = _families(ss)
        n_trends = ss.trends.height
        curves_ = ss.trends["series"].n_unique()
        trends = (
            f" and all {n_trends:,} trend rows of {_count(curves_, 'curve')}" if n_trends else ""
        )
        out.append(
            f"A {'step or trend' if n_trends else 'step'} is called significant only when its "
            "q-value is below 0.05: Benjamini-Hochberg within each metric over all "
            f"{ss.steps.height:,} rows of the {ss.steps['step'].n_unique()} steps{trends}, times "
            f"the number of metrics ({families}); every interval is a {_level(ss)} interval of "
            f"one point{', one step or one trend' if n_trends else ' or one step'}, not "
            "simultaneous."
        )
    return out


def _families(ss: SweepStats) -> int:
    """The metrics the one rule counts over the steps and trends (rows with a test, not
    repeats)."""
    counted = [
        t.filter(pl.col("p_value").is_not_nan() & pl.col("repeat_metric").is_null())["metric"]
        for t in (ss.steps, ss.trends)
        if t.height
    ]
    return pl.concat(counted).n_unique() if counted else 0


def _trend_method_sentence(ss: SweepStats) -> str | None:
    """How the trends are tested, or why there are none."""
    axis = ss.axes[0]
    if not ss.steps.height:
        return None
    if not axis.numeric:
        return (
            f"The values of {axis.key} are not numbers: no trend across the points is tested, "
            "only neighbouring steps."
        )
    if ss.trends.height == 0:
        return (
            f"No curve has {trend.MIN_POINTS} or more finished points: no trend across the "
            "points is tested beyond the steps."
        )
    paired = set(ss.trends["paired"].to_list())
    how = (
        "paired over the games every point played (the t-interval over games of each game's "
        "contrast, which keeps the points' correlation)"
        if paired == {True}
        else "from independent samples, the points having different player counts (Welch-"
        "Satterthwaite intervals)"
        if paired == {False}
        else "paired over the games where a curve's points have one player count, else from "
        "independent samples"
    )
    where = "each curve" if ss.trends["series"].n_unique() > 1 else "the curve"
    return (
        f"Across all the points of {where}, each metric's trend is its least-squares slope on "
        f"{axis.key} (the points weighted equally: the line through the drawn points), {how}."
    )


def _per_unit(ss: SweepStats) -> str:
    key = ss.axes[0].key
    return "per player" if key == "players" else f"per unit of {key}"


def _slope(r: dict[str, Any], m: Metric, per: str) -> str:
    """'+0.62 points per unit of rules.hand_size [+0.43, +0.82]'."""
    scale, unit = _shown_scale(r, m)
    d, lo, hi = r["slope"] * scale, r["lo"] * scale, r["hi"] * scale
    k = digits((hi - lo) / 2, none=2)
    return f"{d:+.{k}f}{unit} {per} [{lo:+.{k}f}, {hi:+.{k}f}]".replace("-", "−")


def _at_end(ss: SweepStats, r: dict[str, Any], m: Metric, end: str, *, signed: bool) -> str:
    """The trend's value at its first or last point, to the digits of that point's interval."""
    label = r[f"{end}_label"]
    c = ss.curve.filter(
        (pl.col("metric") == r["metric"])
        & (pl.col("kind") == r["kind"])
        & (pl.col("group") == r["group"])
        & (pl.col("series") == r["series"])
        & (pl.col("x") == label)
    )
    scale, unit = _shown_scale(r, m)
    if r["metric"] in ("win_share", "end_reason"):
        unit = " %"  # a share, where a change of shares is in points
    k = digits((c["hi"][0] - c["lo"][0]) * scale / 2, none=2) if c.height else 2
    return f"{r[end] * scale:{'+' if signed else ''}.{k}f}{unit}".replace("-", "−")


def _trend_words(ss: SweepStats, m: Metric, label: tuple[str, str, str], what: str) -> str:
    """The trend of one row across the points: its ends and its slope with interval and q, in
    the direction it goes only when the table calls it significant."""
    metric, kind, group = label
    t = ss.trends.filter(
        (pl.col("metric") == metric) & (pl.col("kind") == kind) & (pl.col("group") == group)
    ).sort("series")
    t = t.filter(pl.col("q_value").is_not_nan())
    if t.height == 0:
        return ""
    per, key = _per_unit(ss), ss.axes[0].key
    signed = metric == "first_edge"
    if t.height == 1:
        r = t.row(0, named=True)
        a = _at_end(ss, r, m, "first", signed=signed)
        b = _at_end(ss, r, m, "last", signed=signed)
        ends = f"from {a} at {key}={r['first_label']} to {b} at {r['last_label']}"
        slope = f"a slope of {_slope(r, m, per)}, {q_text(r['q_value'])}"
        if r["significant"]:
            moved = (r["last"] - r["first"]) * r["slope"] > 0
            verb = ("grows" if r["slope"] > 0 else "falls") if moved else "goes"
            return f" Across the {r['points']} points, {what} {verb} {ends}: {slope}."
        return (
            f" Across the {r['points']} points, {what} has no significant trend ({ends}): {slope}."
        )
    parts = [
        f"{_slope(r, m, per)} with {r['series']} ({q_text(r['q_value'])})"
        for r in t.iter_rows(named=True)
    ]
    k = int(t["significant"].sum())
    return (
        f" Across the points of each curve, the slope of {what} on {key} is "
        f"{listing(parts, most=4)}: significant for {k} of {t.height} curves."
    )


_WHO = {"order": "The {} player", "seat": "Seat {}", "policy": "Policy {}", "team": "Team {}",
        "role": "Role {}", "all": "A seat"}  # fmt: skip


def _headline_sentence(ss: SweepStats) -> str | None:
    """The config's headline metric (report.headline) at each point in words, and its trend
    unless another sentence says it (the first player's edge, game length)."""
    metric, kind, group = ss.headline
    if metric == "mean_turns":
        return None  # the sentence on game length says it at each point
    t = ss.curve.filter(
        (pl.col("metric") == metric) & (pl.col("kind") == kind) & (pl.col("group") == group)
    )
    if t.height == 0:
        return None
    share = metric == "win_share"
    m = HEADLINE_SHARE if share else HEADLINE_SCORE
    who = _WHO.get(kind, "{}").format(ordinal(int(group)) if kind == "order" else group)
    key = ss.axes[0].key
    phrases = []
    for series in ss.series:
        rows = t.filter(pl.col("series") == series).sort("x_pos").to_dicts()
        if not rows:
            continue
        said = [
            f"{_headline_value(r, m)} at {f'{key}=' if i == 0 else ''}{r['x']}"
            for i, r in enumerate(rows)
        ]
        if len(rows) > 8:
            lo_r = min(rows, key=lambda r: r["value"])
            hi_r = max(rows, key=lambda r: r["value"])
            text = (
                f"{said[0]} to {said[-1]} (lowest {_headline_value(lo_r, m)} at {lo_r['x']}, "
                f"highest {_headline_value(hi_r, m)} at {hi_r['x']})"
            )
        else:
            text = listing(said, most=8)
        phrases.append(f"with {series}: {text}" if series else text)
    verb = "wins" if share else "scores"
    text = f"{who} {verb} {'; '.join(phrases)} (the config's headline, report.headline)."
    edge = ss.trends.filter(pl.col("metric") == "first_edge")
    if (
        (metric, kind, group) == ("win_share", "order", "0")
        and edge.height
        and edge["repeat_metric"].eq_missing("win_share").all()  # a null is no repeat
    ):
        return (
            text + " Its trend is the first player's edge's (below): the fair share is the same "
            "at every point."
        )
    whose = f"{'the ' * (kind == 'order')}{difference_label(kind, group)}'s"
    what = (
        f"{whose} {'win share' if share else 'mean score'}" if kind != "all" else "the mean score"
    )
    return text + _trend_words(ss, m, (metric, kind, group), what)


HEADLINE_SHARE = Metric("headline", "", "win_share", (), "", " points", 100.0)
HEADLINE_SCORE = Metric("headline", "", "mean_score", (), "", "", 1.0)


def _headline_value(r: dict[str, Any], m: Metric) -> str:
    """A point's headline value to one significant digit of its interval's half-width."""
    k = digits((r["hi"] - r["lo"]) * m.scale / 2, none=2)
    unit = " %" if m.metric == "win_share" else ""
    return f"{r['value'] * m.scale:.{k}f}{unit}".replace("-", "−")


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
    label, what = {
        "edge": (("first_edge", "order", "0"), "the first player's edge"),
        "length": (("mean_turns", "game", "all"), "game length"),
        "score": (("mean_score", "all", "seats"), "the mean score"),
    }[m.key]
    return (
        text
        + ". "
        + _steps_words(ss, m, step_rows(ss, m, t["kind"][0]))
        + _trend_words(ss, m, label, what)
    )


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
        rows_of = (
            pl.col("metric").is_in(["win_share", "normalised_share"])
            & pl.col("kind").is_in(kinds)
            & pl.col("repeat_metric").is_null()
        )
        s = ss.steps.filter(rows_of)
        words = {"seat": "seat", "order": "place in the turn order", "policy": "policy",
                 "team": "team", "role": "role"}  # fmt: skip
        tested_kinds = s.filter(pl.col("q_value").is_not_nan())["kind"].unique(maintain_order=True)
        names = [words[k] for k in kinds if k in tested_kinds.to_list()] or ["seat"]
        what = "the win share of any " + " or ".join(
            [", ".join(names[:-1]), names[-1]] if len(names) > 1 else names
        )
    else:
        s = step_rows(ss, m)
        rows_of = pl.col("metric") == "end_reason"
        what = "the share of games ending for any reason"
    trends = _shares_trends(ss, m, ss.trends.filter(rows_of), what)
    tested = s.filter(pl.col("q_value").is_not_nan())
    if tested.height == 0:
        return f"No step between neighbouring points tests {what}.{trends}"
    sig = tested.filter(pl.col("significant"))
    if sig.height == 0:
        r = (
            tested.with_columns(_a=pl.col("diff").abs())
            .sort("_a", descending=True)
            .row(0, named=True)
        )
        return (
            f"No step between neighbouring points changes {what} significantly (largest: "
            f"{_row_words(r)} at {r['step_label']}, {_change(r, m)}).{trends}"
        )
    parts = [
        f"{_row_words(r)} at {r['step_label']}, {_change(r, m)}"
        for r in sig.with_columns(_a=pl.col("diff").abs())
        .sort("_a", descending=True)
        .iter_rows(named=True)
    ]
    # the subject is plural whatever the count, so the verb agrees for every metric
    subject = "The end reasons' shares" if m.key == "ends" else "Win shares"
    return (
        f"{subject} change significantly at {sig.height} of {_count(tested.height, 'tested row')}"
        f": {listing(parts, most=3)}.{trends}"
    )


def _count(n: int, noun: str) -> str:
    """'1 tested row', '12 tested rows'."""
    return f"{n:,} {noun}{'s' * (n != 1)}"


def _shares_trends(ss: SweepStats, m: Metric, t: pl.DataFrame, what: str) -> str:
    """The significant trends across the points among rows of several groups (the largest
    three), or the largest of none."""
    tested = t.filter(pl.col("q_value").is_not_nan())
    if tested.height == 0:
        return ""
    per = _per_unit(ss)

    def said(r: dict[str, Any]) -> str:
        where = f" with {r['series']}" if r["series"] else ""
        return f"{_row_words(r)}{where}, {_slope(r, m, per)} ({q_text(r['q_value'])})"

    rank = tested.with_columns(_a=pl.col("slope").abs()).sort("_a", descending=True)
    sig = rank.filter(pl.col("significant"))
    if sig.height == 0:
        return (
            f" No trend across the points is significant in {what} (largest: "
            f"{said(rank.row(0, named=True))})."
        )
    parts = [said(r) for r in sig.iter_rows(named=True)]
    return (
        f" A trend across the points is significant in {sig.height} of "
        f"{_count(tested.height, 'tested row')}: {listing(parts, most=3)}."
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
            context += f"; trend {_slope(r, m, per)}, {q_text(r['q_value'])}"
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
            f"{sig.height} of {_count(n_all, 'change')} between neighbouring points "
            f"{'is' if sig.height == 1 else 'are'} significant; "
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
        Q_COLUMN,
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
        f"<p>{sig.height} of {_count(shown.height, 'row')} "
        f"{'changes' if sig.height == 1 else 'change'} significantly between neighbouring "
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
            table_id="steps-table",  # the section is "steps": ids are unique
        )
        + "</details>"
    )


def _trend_columns(ss: SweepStats) -> list[Column]:
    names = {
        "win_share": "win share",
        "normalised_share": "share / fair",
        "first_edge": "first player's edge",
        "mean_score": "mean score",
        "mean_turns": "game length",
        "end_reason": "end reason share",
    }
    unit = {m.metric: m for m in METRICS}
    per = _per_unit(ss)

    def at(end: str) -> Any:
        def cell(r: dict[str, Any]) -> str:
            m = unit.get(r["metric"], METRICS[1])
            value = _at_end(ss, r, m, end, signed=r["metric"] == "first_edge")
            return f"{r[f'{end}_label']}: {value}"

        return cell

    return [
        Column("curve", lambda r: r["series"] or "–"),
        Column("pairing", lambda r: "paired" if r["paired"] else "independent"),
        Column("metric", lambda r: names.get(r["metric"], r["metric"])),
        Column("group", lambda r: _group_words(r["kind"], r["group"])),
        Column("points", lambda r: r["points"], fmt("d"), True),
        Column("games", lambda r: r["games"], fmt(","), True),
        Column("first point", lambda r: r, at("first")),
        Column("last point", lambda r: r, at("last")),
        Column(
            f"slope {per}",
            lambda r: r,
            lambda r: _slope(r, unit.get(r["metric"], METRICS[1]), per).replace(f" {per}", ""),
        ),
        Column("slope", lambda r: r["slope"], fmt("+.5f"), True, "for sorting"),
        Column("p", lambda r: r["p_value"], pvalue, True),
        Q_COLUMN,
    ]


def _headline_table(ss: SweepStats) -> str:
    """The headline metric at each point, as the summary says it."""
    metric, kind, group = ss.headline
    t = ss.curve.filter(
        (pl.col("metric") == metric) & (pl.col("kind") == kind) & (pl.col("group") == group)
    ).sort("series", "x_pos")
    if t.height == 0 or metric == "mean_turns":
        return ""
    m = HEADLINE_SHARE if metric == "win_share" else HEADLINE_SCORE
    k = digits(float((t["hi"] - t["lo"]).max()) * m.scale / 2, none=2)
    cols = [
        *([Column("curve", lambda r: r["series"])] if len(ss.axes) > 1 else []),
        Column(ss.axes[0].key, lambda r: r["x"]),
        Column("value", lambda r: _headline_value(r, m)),
        interval("lo", "hi", f".{k}f", scale=m.scale),
        Column("games", lambda r: r["games"], fmt(","), True),
    ]
    what = f"{difference_label(kind, group)}'s {metric.replace('_', ' ')}"
    return (
        f"<h3>The headline at each point: {escape(what)}</h3>"
        f'<p class="note">The config\'s report.headline, {_level(ss)} intervals over games.</p>'
        + table_html(t.to_dicts(), cols)
    )


def _trends_section(ss: SweepStats) -> str:
    t = ss.trends
    head = _headline_table(ss)
    why = _trend_method_sentence(ss) or "Only one point per curve is finished."
    if t.height == 0:
        return head + f"<p>{escape(why)}</p>"
    shown = t.filter(pl.col("repeat_metric").is_null() | (pl.col("metric") == "first_edge"))
    tested = shown.filter(pl.col("q_value").is_not_nan())
    sig = tested.filter(pl.col("significant")).sort("series", "metric", "kind", "group")
    cols = _trend_columns(ss)
    intro = (
        f"<p>{escape(why)} {sig.height} of {_count(tested.height, 'tested trend')} "
        f"{'is' if sig.height == 1 else 'are'} significant (red): {escape(RULE)}, "
        "counted with the steps. The slope is the change of the metric "
        f"{escape(_per_unit(ss))}, with its {_level(ss)} interval; the first and last points' "
        "values are the trend's own estimates over the games it uses.</p>"
    )
    if sig.height:
        intro += table_html(sig.to_dicts(), cols, sortable=True, mark=significant)
    return (
        head
        + intro
        + "<details><summary>the trend of every metric</summary>"
        + table_html(
            shown.sort("series").to_dicts(),
            cols,
            sortable=True,
            mark=significant,
            scroll=True,
            table_id="trends-table",
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
        "one point, one step or one trend at a time.</p>"
        "<p>A trend is tested along a knob whose values are numbers, across the points of each "
        f"curve of at least {trend.MIN_POINTS} points: the least-squares slope of the metric on "
        "the knob's values, with every point weighted equally (the line through the drawn "
        "points; its coefficients are fixed by the knob's values, not by estimated variances, "
        "and the variance below is right for any fixed weights). The slope is a linear contrast "
        "of the points' values, sum<sub>i</sub> c<sub>i</sub> m<sub>i</sub> with c<sub>i</sub> "
        "= (x<sub>i</sub> − x̄) / Σ(x<sub>j</sub> − x̄)². Points of one player count play the "
        "same games, so their values are correlated: the contrast is taken game by game, "
        "y<sub>g</sub> = Σ c<sub>i</sub> x<sub>i,g</sub>, and its interval is the t-interval "
        "over games of y (exact for the paired design; adding the points' variances as if they "
        "were independent would be wrong). Points with different player counts are independent "
        "samples: variance Σ c<sub>i</sub>² s<sub>i</sub>² / n<sub>i</sub>, Welch-Satterthwaite "
        "degrees of freedom, on share / fair per place, the first player's edge, mean score and "
        "game length. Trend rows join the steps' table for the one rule: each metric's family "
        "holds its steps and its trends (balance/stats/trend.py). A knob whose values are not "
        "numbers has no trend.</p>"
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
            f"computed in {ss.seconds:.1f} s.</p>"
            + players_box([ss.manifests[i] for i in sorted(ss.manifests)]),
        )
    ]
    for m in METRICS:
        if metric_rows(ss, m).height:
            parts.append((m.key, m.heading, page.figure(plot_metric(ss, m))))
    parts += [
        ("trends", "Trends across the points", _trends_section(ss)),
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
