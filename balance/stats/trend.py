"""Trends of a sweep: the least-squares slope of every metric on a numeric knob across all the
points of a curve, tested by the project's one significance rule together with the steps.

A sweep's steps (balance/stats/curves.py) compare neighbouring points only. A metric that moves
a little at each step (+0.7 points per card of a hand, say) may pass no step's test and still
move far across the curve: the trend tests that.

**The slope is a linear contrast of the points' values.** For one curve (the points along the
first knob within one value of the others) with knob values ``x_1..x_K`` and a metric's values
``m_1..m_K`` at those points, the least-squares slope is ``sum_i c_i m_i`` with
``c_i = (x_i - mean(x)) / sum_j (x_j - mean(x))^2``. The weights are **equal**: the slope is the
line a reader fits through the drawn points, the same estimand for every metric, and the
coefficients are fixed by the knob's values before any game is looked at. Inverse-variance
weights would take the coefficients from the estimated variances (a random contrast), and
would still not be the efficient ones here: the points are correlated (next paragraph), so
weighting each point by its own variance ignores what matters most. The variance below is right
for any fixed coefficients, so the choice of weights moves only the power, never the error rate.

**Its variance comes from the games.** Points of the same player count play the same games of
the same seed (common random numbers), so their estimates are correlated, usually strongly and
positively: a WLS slope whose variance adds the points' variances as if independent is wrong
(too wide here, which hides real trends). Each game ``g`` gives a value ``x_{i,g}`` at every
point, so the contrast has a per-game value ``y_g = sum_i c_i x_{i,g}``, and its mean over games
is the slope, with the t-interval over games of ``y`` (exact for the paired design, as for a
step, balance/stats/paired.py). It is computed as ``sum_{i>1} c_i (x_{i,g} - x_{1,g})`` (equal,
since the ``c_i`` sum to 0), so points that played identical games give a contrast of exactly 0
in every game, not floating-point noise that a t-test would call significant. A game where a
group has no seat at some point (a dealt role) is left out of that group's trend.

Points with different player counts deal different games: a curve whose points do not all have
the same count is a set of independent samples, as its steps are. Its slope is the same
contrast of the points' means, with variance ``sum_i c_i^2 s_i^2 / n_i`` and Welch-Satterthwaite
degrees of freedom, on the metrics that mean the same at every count (share / fair per place in
the turn order, the first player's edge, mean score per seat-game, game length, end reasons).

A trend needs a numeric knob (its values are the x) and at least :data:`MIN_POINTS` points (two
points' trend is their step). A categorical knob gets no trend; a grid gets one per value of the
other knobs, along the first knob.

**Significance.** :func:`adjust_sweep` gives the steps' and the trends' rows their q-values in
one table (balance/stats/multiple.py): each metric's family holds its steps and its trends, BH
within each, times the number of metrics. A trend row that repeats another (the first player's
edge when the fair share is a constant is the first player's win share; a one-seat policy is
its seat) is left out and takes that row's q-value, as a step's does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import polars as pl
from scipy import stats as sps

from balance.stats.curves import (
    HOW,
    PointData,
    _fair,
    _indicators,
    _mark_repeats,
    _place_wins,
    _redundant,
)
from balance.stats.groups import GameArrays, group_values, groups
from balance.stats.multiple import Q, q_values_apart
from balance.stats.paired import mean_interval, moments

MIN_POINTS = 3  # two points' trend is their step
TREND_COLUMNS = (
    "series",  # the other knobs' values ("" with one knob)
    "metric",
    "kind",
    "group",
    "paired",  # one player count: game by game; else independent samples
    "points",
    "games",  # paired: the games the contrast is over; independent: the smallest point's
    "x_first",  # the knob's first and last values
    "x_last",
    "first",  # the metric at the first and at the last point (the trend's own estimates)
    "last",
    "slope",  # change of the metric per unit of the knob (least squares, equal weights)
    "lo",
    "hi",
    "p_value",
    # the row of the same curve this one repeats (its q-value is that row's), else null
    "repeat_metric",
    "repeat_kind",
    "repeat_group",
)
_SCHEMA = {
    "series": pl.String,
    "metric": pl.String,
    "kind": pl.String,
    "group": pl.String,
    "paired": pl.Boolean,
    "points": pl.Int64,
    "games": pl.Int64,
    "x_first": pl.Float64,
    "x_last": pl.Float64,
    "first": pl.Float64,
    "last": pl.Float64,
    "slope": pl.Float64,
    "lo": pl.Float64,
    "hi": pl.Float64,
    "p_value": pl.Float64,
    "repeat_metric": pl.String,
    "repeat_kind": pl.String,
    "repeat_group": pl.String,
}
Label = tuple[str, str, str]  # (metric, kind, group)


def empty_trends() -> pl.DataFrame:
    """A trend table with no rows (``TREND_COLUMNS``)."""
    return pl.DataFrame(schema=_SCHEMA)


def slope_coefficients(x: Sequence[float]) -> np.ndarray:
    """``c`` with ``sum_i c_i m_i`` the least-squares slope of ``m`` on ``x`` (equal weights)."""
    x = np.asarray(x, dtype=np.float64)
    d = x - x.mean()
    sxx = float((d * d).sum())
    if x.size < 2 or sxx == 0:
        raise ValueError("a slope needs at least two different knob values")
    return d / sxx


class Contrast(NamedTuple):
    """A contrast of the points' values per column, with its interval."""

    estimate: np.ndarray
    se: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    p_value: np.ndarray
    games: np.ndarray  # paired: the games it is over; independent: the smallest point's


def paired_contrast(values: Sequence[np.ndarray], c: np.ndarray, level: float = 0.95) -> Contrast:
    """``sum_i c_i m_i`` of points that played the same games: ``values[i]`` is float[n, k], the
    per-game values of k series at point i (row g is game g at every point; NaN where a series
    has no value). The t-interval over games of the per-game contrast (module docstring)."""
    base = np.asarray(values[0], dtype=np.float64)
    y = np.zeros_like(base)
    for ck, v in zip(c[1:], values[1:], strict=True):
        y += ck * (np.asarray(v, dtype=np.float64) - base)  # exactly 0 for identical points
    m = moments(y)
    ci = mean_interval(m, level)
    return Contrast(ci.mean, ci.se, ci.lo, ci.hi, ci.p_value, m.n)


def independent_contrast(
    values: Sequence[np.ndarray], c: np.ndarray, level: float = 0.95
) -> Contrast:
    """``sum_i c_i m_i`` of independent points (``values[i]`` float[n_i, k]): variance
    ``sum_i c_i^2 s_i^2 / n_i``, Welch-Satterthwaite degrees of freedom."""
    ms = [moments(np.asarray(v, dtype=np.float64)) for v in values]
    est = sum(ci * m.mean for ci, m in zip(c, ms, strict=True))
    with np.errstate(divide="ignore", invalid="ignore"):
        parts = [
            ci * ci * np.where(m.n > 1, m.m2 / (m.n - 1), np.nan) / m.n
            for ci, m in zip(c, ms, strict=True)
        ]
        var = sum(parts)
        df = var * var / sum(a * a / np.maximum(m.n - 1, 1) for a, m in zip(parts, ms, strict=True))
        se = np.sqrt(var)
        t = sps.t.ppf(0.5 + level / 2, np.maximum(df, 1))
        lo, hi = est - t * se, est + t * se
        p = 2 * sps.t.sf(np.abs(est) / se, np.maximum(df, 1))
    flat = np.isfinite(var) & (se == 0)
    p = np.where(flat, np.where(est == 0, 1.0, 0.0), p)
    lo, hi = np.where(flat, est, lo), np.where(flat, est, hi)
    games = np.min([m.n for m in ms], axis=0)
    return Contrast(np.asarray(est), se, lo, hi, p, games)


# ================================================================ per-game values of a curve


def _paired_values(pts: Sequence[PointData], n: int) -> tuple[list[Label], list[np.ndarray]]:
    """The rows a step of one player count tests, as per-game values at every point: win share
    and mean score of every group all the points have (not one whose rows say nothing its seats'
    do), mean score of all seats, game length, end reasons and the first player's edge."""
    by_point = [{(g.kind, g.name): g for g in groups(p.lineup)} for p in pts]
    names = [(g.kind, g.name) for g in groups(pts[0].lineup)]
    names = [k for k in names if all(k in d for d in by_point)]
    names = [
        k
        for k in names
        if not all(_redundant(d[k], p.lineup) for d, p in zip(by_point, pts, strict=True))
    ]
    ends = _names_of(pts)
    labels: list[Label] = [("win_share", k, g) for k, g in names]
    labels += [("mean_score", k, g) for k, g in names]
    labels += [("mean_score", "all", "seats"), ("mean_turns", "game", "all")]
    labels += [("end_reason", "reason", e) for e in ends]
    has_edge = all(p.players > 1 for p in pts)
    labels += [("first_edge", "order", "0")] if has_edge else []
    values = []
    for p, d in zip(pts, by_point, strict=True):
        x = p.arrays.rows(slice(0, n))
        win, score = group_values(x, [d[k] for k in names])
        cols = [win, score, x.score.mean(axis=1)[:, None], x.turns[:, None]]
        if ends:
            cols.append(_indicators(p, ends, n))
        if has_edge:
            cols.append(_edge(p, x)[:, None])
        values.append(np.column_stack(cols))
    return labels, values


def _edge(p: PointData, x: GameArrays | None = None) -> np.ndarray:
    """Per game, the first player's win minus a fair share: the constant fair share when the
    teams are fixed, else the game's mean seat win (teams dealt: balance/stats/winrates.py)."""
    x = p.arrays if x is None else x
    first = x.win[np.arange(x.n_games), np.argmin(x.order, axis=1)]
    if p.shares.teams_fixed:
        return first - _fair(p)
    return first - x.win.mean(axis=1)


def _names_of(pts: Sequence[PointData]) -> tuple[str, ...]:
    names: tuple[str, ...] = ()
    for p in pts:
        names = tuple(dict.fromkeys([*names, *p.end_reasons]))
    return names if len(names) > 1 else ()


def _independent_values(pts: Sequence[PointData]) -> tuple[list[Label], list[np.ndarray]]:
    """Per-game values of what means the same at every player count (balance/stats/across.py):
    share / fair per place all the points have, the first player's edge, mean score per
    seat-game, game length and end reasons."""
    places = min(p.players for p in pts)
    ends = _names_of(pts)
    labels: list[Label] = [("normalised_share", "order", str(k)) for k in range(places)]
    labels += [("first_edge", "order", "0")] if places > 1 else []
    labels += [("mean_score", "all", "seats"), ("mean_turns", "game", "all")]
    labels += [("end_reason", "reason", e) for e in ends]
    values = []
    for p in pts:
        w, wbar = _place_wins(p)
        w = w[:, :places]
        if p.shares.teams_fixed:
            norm = w / _fair(p)  # share × n: n is a constant
        else:  # the ratio to the mean seat win, linearised over games (delta method)
            fair = float(wbar.mean())
            ratio = w.mean(axis=0) / fair
            norm = ratio[None, :] + (w - ratio[None, :] * wbar[:, None]) / fair
        cols = [norm]
        if places > 1:
            cols.append(_edge(p)[:, None])
        cols += [p.arrays.score.mean(axis=1)[:, None], p.arrays.turns[:, None]]
        if ends:
            cols.append(_indicators(p, ends))
        values.append(np.column_stack(cols))
    return labels, values


def trend_rows(
    x: Sequence[float], pts: Sequence[PointData], *, series: str = "", level: float = 0.95
) -> pl.DataFrame:
    """The trend of every metric across the points of one curve (``TREND_COLUMNS``, no q-values
    yet: :func:`adjust_sweep` takes them with the steps'). ``x`` are the knob's values at the
    points, in order. Empty with fewer than :data:`MIN_POINTS` points."""
    if len(pts) != len(x):
        raise ValueError("one knob value per point")
    if len(pts) < MIN_POINTS:
        return empty_trends()
    c = slope_coefficients(x)
    paired = len({p.players for p in pts}) == 1
    if paired:
        n = min(p.games for p in pts)
        labels, values = _paired_values(pts, n)
        con = paired_contrast(values, c, level)
        # a value the rules fix (the same in every game of each point) has no test
        constant = np.all([moments(v).m2 == 0 for v in values], axis=0)
        p_value = np.where(constant, np.nan, con.p_value)
    else:
        labels, values = _independent_values(pts)
        con = independent_contrast(values, c, level)
        p_value = con.p_value
    if paired:  # over the games the contrast uses: those where every point has a value
        used = np.all([~np.isnan(v) for v in values], axis=0)
        means = [moments(np.where(used, v, np.nan)).mean for v in values]
    else:
        means = [moments(v).mean for v in values]
    table = pl.DataFrame(
        {
            "series": [series] * len(labels),
            "metric": [m for m, _, _ in labels],
            "kind": [k for _, k, _ in labels],
            "group": [g for _, _, g in labels],
            "paired": [paired] * len(labels),
            "points": [len(pts)] * len(labels),
            "games": np.asarray(con.games, dtype=np.int64),
            "x_first": [float(x[0])] * len(labels),
            "x_last": [float(x[-1])] * len(labels),
            "first": means[0],
            "last": means[-1],
            "slope": con.estimate,
            "lo": con.lo,
            "hi": con.hi,
            "p_value": p_value,
        },
        schema_overrides={k: v for k, v in _SCHEMA.items() if not k.startswith("repeat")},
    )
    if paired:
        repeats = pts[0].lineup.repeats()
        if any(p.lineup.repeats() != repeats for p in pts):
            repeats = {}  # counting a duplicate twice is the safe side
        table = _mark_repeats(table, repeats)
        if not all(p.shares.teams_fixed for p in pts):  # the edge is its own per-game value
            edge = pl.col("metric") == "first_edge"
            table = table.with_columns(
                pl.when(edge).then(None).otherwise(pl.col(c)).alias(c)
                for c in ("repeat_metric", "repeat_kind", "repeat_group")
            )
    else:
        table = table.with_columns(
            repeat_metric=pl.lit(None, dtype=pl.String),
            repeat_kind=pl.lit(None, dtype=pl.String),
            repeat_group=pl.lit(None, dtype=pl.String),
        )
    return table.select(TREND_COLUMNS).cast(_SCHEMA)


def identical_points(pts: Sequence[PointData]) -> bool:
    """Every point played the same games with the same outcome in every row: win, score, turns,
    place in the order, policy, team, role and end reason of every seat of every game."""
    if len(pts) < 2:
        return False
    a = pts[0]
    for b in pts[1:]:
        if a.games != b.games or a.players != b.players:
            return False
        for u, v in zip(tuple(a.arrays)[1:], tuple(b.arrays)[1:], strict=True):
            if (u is None) != (v is None) or (u is not None and not np.array_equal(u, v)):
                return False
        ends_a = np.asarray(a.end_reasons, dtype=object)[a.end_reason]
        ends_b = np.asarray(b.end_reasons, dtype=object)[b.end_reason]
        if not np.array_equal(ends_a, ends_b) or a.lineup != b.lineup:
            return False
    return True


# =========================================================================== the one rule


def adjust_sweep(steps: pl.DataFrame, trends: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``q_value`` and ``significant`` for every step row (curves.STEP_COLUMNS) and trend row
    (``TREND_COLUMNS``) of a sweep as one table (balance/stats/multiple.py): BH within each
    metric over its steps and trends, times the number of metrics. A repeat row is not counted
    and takes the q-value of the row it repeats (of the same step, or the same curve)."""
    cols = ("metric", "kind", "group", "p_value", "repeat_metric", "repeat_kind", "repeat_group")
    parts = [
        t.select(
            pl.lit(test).alias("_test"),
            pl.col(key).cast(pl.String).alias("_key"),
            *(pl.col(c).cast(_SCHEMA[c]) for c in cols),
        )
        for test, t, key in (("step", steps, "step"), ("trend", trends, "series"))
        if t.height
    ]
    if not parts:
        none = {"q_value": pl.lit(None, dtype=pl.Float64), "significant": pl.lit(False)}
        return steps.with_columns(**none), trends.with_columns(**none)
    both = pl.concat(parts)
    repeat = both["repeat_metric"].is_not_null().to_numpy()
    counted = both.with_columns(
        p_value=pl.when(pl.Series(repeat)).then(float("nan")).otherwise(pl.col("p_value"))
    )
    # How the game plays (stats/plays.py) is a family of its own, as in `balance compare`:
    # its metrics neither dilute the win shares' rule nor are diluted by it
    q = q_values_apart(counted, HOW)
    if repeat.any():
        index = {r: i for i, r in enumerate(both.select("_test", "_key", *cols[:3]).iter_rows())}
        rows = both.select("_test", "_key", *cols[4:])
        for i in np.flatnonzero(repeat):
            j = index.get(rows.row(int(i)))
            q[i] = q[j] if j is not None else np.nan
    sig = np.nan_to_num(q, nan=1.0) < Q
    k = steps.height  # the steps' rows come first
    out_steps = steps.with_columns(q_value=pl.Series(q[:k]), significant=pl.Series(sig[:k]))
    out_trends = trends.with_columns(
        q_value=pl.Series(q[k:], dtype=pl.Float64), significant=pl.Series(sig[k:], dtype=pl.Boolean)
    )
    return out_steps, out_trends


__all__ = [
    "MIN_POINTS",
    "TREND_COLUMNS",
    "Contrast",
    "adjust_sweep",
    "empty_trends",
    "identical_points",
    "independent_contrast",
    "paired_contrast",
    "slope_coefficients",
    "trend_rows",
]
