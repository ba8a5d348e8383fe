"""Curves of a sweep: every metric at every point with its interval over games, and the change
between neighbouring points with the project's significance rule.

A sweep (balance/experiments/sweep.py) plays one config at several values of a knob, on the same
seeds. Each point is a results dataset; :func:`point_data` reads one into

- its **curve rows** (``CURVE_COLUMNS``): win share per seat, place in the turn order, policy,
  team and role with the intervals of :func:`balance.stats.win_shares` (over games: Wilson for a
  seat or place, over effective games for a group of several seats) and share / fair; the first
  player's edge (:func:`balance.stats.seat_advantage`); mean score of all seats and per policy
  (each game's mean over the group's seats, t-interval over games: the seats of a game are not
  independent); mean game length (t-interval over games); and the share of games ending for
  each end reason (Wilson over games);
- its per-game arrays, which :func:`neighbour_rows` uses to compare it with the next point.

**Neighbouring points.** Points of the same player count play the same games (game ``i`` of
every point draws the same random numbers), so their difference is paired game by game
(balance/stats/paired.py: a t-interval over games of the per-game difference) for every group
both points have, plus mean score of all seats and the end-reason shares. Points with different
player counts deal different games: they are independent samples, compared only on what means
the same at both counts (balance/stats/across.py: share / fair per place, the first player's
edge, mean score per seat-game, game length; Welch intervals), plus the end-reason shares.

:func:`adjust_steps` applies the one rule of balance/stats/multiple.py to the whole table of
every neighbouring pair at once: Benjamini-Hochberg within each metric over every pair and
group, times the number of metrics. A row that repeats another of its pair (the first player's
edge at one player count is the first player's win share; a one-seat policy is its seat) is not
counted and takes that row's q-value.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import polars as pl

from balance.stats import census as census_stats
from balance.stats import plays
from balance.stats.across import AcrossAccumulator
from balance.stats.groups import GameArrays, Group, Lineup, common_groups, group_values, groups
from balance.stats.multiple import Q, q_values_apart
from balance.stats.paired import (
    PairedAccumulator,
    _diff_frame,
    _welch,
    game_arrays,
    mean_interval,
    moments,
)
from balance.stats.winrates import WinShares, _lazy, seat_advantage, wilson_interval, win_shares

CURVE_COLUMNS = (
    "metric",  # win_share, first_edge, mean_score, mean_turns, end_reason
    "kind",  # seat, order, policy, team, role; order (first_edge); all, policy; game; reason
    "group",
    "value",
    "lo",
    "hi",
    "games",  # the games the value is over
    "fair",  # a fair share (win shares), NaN where none is fair by construction
    "exact",  # fixed by the rules: no interval
    "norm",  # share / fair (win shares; NaN elsewhere)
    "norm_lo",
    "norm_hi",
)
_SHARE_FRAMES = (
    ("seat", "by_seat"),
    ("order", "by_order"),
    ("policy", "by_policy"),
    ("team", "by_team"),
    ("role", "by_role"),
)
# How the game plays: the trajectory's metrics and the census's measures a sweep draws, a family
# of their own for the one rule (they neither dilute the win shares' nor are diluted by them)
HOW = (*plays.METRICS, *census_stats.SWEPT)
_CURVE_SCHEMA = {
    "metric": pl.String,
    "kind": pl.String,
    "group": pl.String,
    "value": pl.Float64,
    "lo": pl.Float64,
    "hi": pl.Float64,
    "games": pl.Int64,
    "fair": pl.Float64,
    "exact": pl.Boolean,
    "norm": pl.Float64,
    "norm_lo": pl.Float64,
    "norm_hi": pl.Float64,
}


class PointData(NamedTuple):
    """One point of a sweep: its curve rows and what comparing it with a neighbour needs."""

    players: int
    games: int
    curve: pl.DataFrame  # CURVE_COLUMNS
    arrays: GameArrays
    lineup: Lineup
    end_reason: np.ndarray  # int32[games]: each game's end reason, an index into end_reasons
    end_reasons: tuple[str, ...]
    shares: WinShares
    census: pl.DataFrame | None = None  # the point's census (balance/census.py), when taken
    kingmaking: bool = False  # whether that census tested kingmaking


def point_data(
    rows: pl.LazyFrame | pl.DataFrame,
    manifest: dict[str, Any],
    *,
    level: float = 0.95,
    how: plays.GameMetrics | None = None,
    census: pl.DataFrame | None = None,
    kingmaking: bool = False,
) -> PointData:
    """The curve rows and per-game arrays of one point's results dataset (module docstring);
    ``how``: how its games played (stats/plays.py, games 0, 1, ... of the dataset), the rows of
    each plays metric (kind ``game``, group ``all``); ``census``: the census of its first games
    (balance/census.py; ``kingmaking``: whether it tested kingmaking), the rows of each measure
    of ``census_stats.SWEPT`` (kind ``game``, group ``all``, over the census's games)."""
    lf = _lazy(rows)
    shares = win_shares(lf, level=level)
    adv = seat_advantage(lf, level=level, shares=shares)
    arrays, lineup, games = game_arrays(lf, manifest)
    if how is not None:
        if not np.array_equal(how.game, games):
            raise ValueError("the trajectories and the rows of a point hold different games")
        arrays = arrays._replace(plays=how)
    names = tuple(manifest.get("end_reasons") or ())
    ends = lf.filter(pl.col("seat") == 0).select("game", "end_reason").sort("game").collect()
    if ends.height != arrays.n_games or not np.array_equal(ends["game"].to_numpy(), games):
        raise ValueError("the dataset's games do not each have one row for seat 0")
    names = tuple(dict.fromkeys([*names, *ends["end_reason"].unique(maintain_order=True)]))
    end = (
        ends["end_reason"]
        .replace_strict(names, range(len(names)), return_dtype=pl.Int32)
        .to_numpy()
    )
    parts = []
    for kind, key in _SHARE_FRAMES:
        f = getattr(shares, key)
        if kind not in f.columns or f.height == 0:
            continue
        parts.append(
            f.select(
                metric=pl.lit("win_share"),
                kind=pl.lit(kind),
                group=pl.col(kind).cast(pl.String),
                value="share",
                lo="lo",
                hi="hi",
                games=pl.col("n").cast(pl.Int64),
                fair=pl.col("fair").cast(pl.Float64),
                exact="exact",
                norm="normalised",
                norm_lo="normalised_lo",
                norm_hi="normalised_hi",
            )
        )
    if adv.players > 1 and np.isfinite(adv.first_player_share):
        parts.append(
            _rows(
                "first_edge",
                "order",
                ["0"],
                [adv.first_player_edge],
                [adv.edge_lo],
                [adv.edge_hi],
                [adv.games],
                fair=[adv.fair],
            )
        )
    score = mean_interval(moments(arrays.score.mean(axis=1)[:, None]), level)
    parts.append(_mean_rows("mean_score", "all", ["seats"], score, [arrays.n_games]))
    if len(lineup.policies) > 1:
        grps = groups(lineup, ["policy"])
        _, by_policy = group_values(arrays, grps)
        m = moments(by_policy)
        ci = mean_interval(m, level)
        parts.append(_mean_rows("mean_score", "policy", [g.name for g in grps], ci, m.n))
    turns = mean_interval(moments(arrays.turns[:, None]), level)
    parts.append(_mean_rows("mean_turns", "game", ["all"], turns, [arrays.n_games]))
    if how is not None:
        parts.append(_whole_game_rows(plays.summary(how, level)))
    if census is not None:
        t = census_stats.summary(census, level, kingmaking=kingmaking)
        parts.append(_whole_game_rows(t.filter(pl.col("metric").is_in(census_stats.SWEPT))))
    if names:
        n = arrays.n_games
        share = np.bincount(end, minlength=len(names)) / max(n, 1)
        lo, hi = wilson_interval(share, np.full(len(names), float(n)), level)
        parts.append(_rows("end_reason", "reason", list(names), share, lo, hi, [n] * len(names)))
    curve = pl.concat([p.select(CURVE_COLUMNS).cast(_CURVE_SCHEMA) for p in parts])
    return PointData(
        players=lineup.players,
        games=arrays.n_games,
        curve=curve,
        arrays=arrays,
        lineup=lineup,
        end_reason=end,
        end_reasons=names,
        shares=shares,
        census=census,
        kingmaking=kingmaking,
    )


def _whole_game_rows(t: pl.DataFrame) -> pl.DataFrame:
    """Curve rows (kind ``game``, group ``all``) of a summary with one row per metric and its
    ``mean``, ``lo``, ``hi`` and ``games`` (stats/plays.py's, stats/census.py's)."""
    return _rows(
        "", "game", ["all"] * t.height, t["mean"], t["lo"], t["hi"], t["games"]
    ).with_columns(metric=t["metric"])


def _rows(metric, kind, group, value, lo, hi, games, fair=None) -> pl.DataFrame:  # type: ignore[no-untyped-def]
    n = len(group)
    nan = [float("nan")] * n
    return pl.DataFrame(
        {
            "metric": [metric] * n,
            "kind": [kind] * n,
            "group": [str(g) for g in group],
            "value": np.asarray(value, dtype=np.float64),
            "lo": np.asarray(lo, dtype=np.float64),
            "hi": np.asarray(hi, dtype=np.float64),
            "games": np.asarray(games, dtype=np.int64),
            "fair": np.asarray(fair if fair is not None else nan, dtype=np.float64),
            "exact": [False] * n,
            "norm": nan,
            "norm_lo": nan,
            "norm_hi": nan,
        },
        schema_overrides={"metric": pl.String, "kind": pl.String, "group": pl.String},
    )


def _mean_rows(metric: str, kind: str, group: list[str], ci: Any, n: Any) -> pl.DataFrame:
    return _rows(metric, kind, group, ci.mean, ci.lo, ci.hi, np.asarray(n, dtype=np.int64))


# ===================================================================== neighbouring points

STEP_COLUMNS = (
    "step",  # 0 for the first pair of neighbours, 1 for the next, ...
    "a_point",  # index of the lower point of the pair (the earlier value of the knob)
    "b_point",
    "paired",  # same player count: game by game; else independent samples
    "metric",
    "kind",
    "group",
    "games",
    "a",
    "b",
    "diff",  # b - a
    "lo",
    "hi",
    "p_value",
    # the row of the same pair this one repeats (its q-value is that row's), else null
    "repeat_metric",
    "repeat_kind",
    "repeat_group",
)


def neighbour_rows(
    a: PointData, b: PointData, *, step: int, a_point: int, b_point: int, level: float = 0.95
) -> pl.DataFrame:
    """B - A of two neighbouring points (``STEP_COLUMNS``, no q-values yet: :func:`adjust_steps`
    takes them for the whole sweep at once). Paired game by game over the games both hold when
    they have the same player count, else independent samples (module docstring)."""
    paired = a.players == b.players
    if paired:
        n = min(a.games, b.games)
        xa, xb = a.arrays.rows(slice(0, n)), b.arrays.rows(slice(0, n))
        ga, gb = common_groups(a.lineup, b.lineup)
        keep = [
            i
            for i, g in enumerate(ga)
            if not _redundant(g, a.lineup) or not _redundant(gb[i], b.lineup)
        ]
        ga, gb = [ga[i] for i in keep], [gb[i] for i in keep]
        acc = PairedAccumulator(ga, gb)
        acc.add(xa, xb)
        parts = [acc.raw_table(level)]
        sa, sb = xa.score.mean(axis=1), xb.score.mean(axis=1)
        parts.append(_paired_frame("mean_score", "all", ["seats"], sa[:, None], sb[:, None], level))
        parts.append(_end_paired(a, b, n, level))
        parts.append(_plays_paired(xa, xb, level))
        parts.append(_census_paired(a, b, level))
        table = pl.concat([p for p in parts if p.height], how="diagonal_relaxed")
        if a.shares.teams_fixed and b.shares.teams_fixed:  # a fair share known without error
            edge = table.filter(
                (pl.col("metric") == "win_share")
                & (pl.col("kind") == "order")
                & (pl.col("group") == "0")
            )
            edge = edge.with_columns(
                metric=pl.lit("first_edge"), a=pl.col("a") - _fair(a), b=pl.col("b") - _fair(b)
            )
            table = pl.concat([table, edge], how="diagonal_relaxed")
        table = _mark_repeats(table, a.lineup.repeats())
    else:
        acc_x = AcrossAccumulator(a.players, b.players)
        acc_x.add(a.arrays, b.arrays)
        table = acc_x.table(level).drop("q_value", "significant")
        if not (a.shares.teams_fixed and b.shares.teams_fixed):
            # Dealt teams: a fair place wins what the average seat-game wins (not 1/players)
            dealt = _dealt_across(a, b, level)
            table = pl.concat(
                [table.filter(~pl.col("metric").is_in(["normalised_share", "first_edge"])), dealt],
                how="diagonal_relaxed",
            )
        for extra in (_end_across(a, b, level), _plays_across(a.arrays, b.arrays, level)):
            if extra.height:
                table = pl.concat([table, extra], how="diagonal_relaxed")
        table = table.with_columns(
            repeat_metric=pl.lit(None, dtype=pl.String),
            repeat_kind=pl.lit(None, dtype=pl.String),
            repeat_group=pl.lit(None, dtype=pl.String),
        )
    table = table.with_columns(
        step=pl.lit(step, dtype=pl.Int64),
        a_point=pl.lit(a_point, dtype=pl.Int64),
        b_point=pl.lit(b_point, dtype=pl.Int64),
        paired=pl.lit(paired),
        games=pl.col("games").cast(pl.Int64),
    )
    return table.select(STEP_COLUMNS)


def _mark_repeats(table: pl.DataFrame, repeats: dict[tuple[str, str], int]) -> pl.DataFrame:
    """The repeat columns of a paired pair's rows: the first player's edge repeats the first
    player's win share (a fair share that is a constant moves nothing), a one-seat policy or
    team repeats its seat."""
    rows: list[tuple[str | None, str | None, str | None]] = []
    for metric, kind, group in table.select("metric", "kind", "group").iter_rows():
        seat = repeats.get((kind, group))
        if metric == "first_edge":
            rows.append(("win_share", "order", "0"))
        elif seat is not None:
            rows.append((metric, "seat", str(seat)))
        else:
            rows.append((None, None, None))
    columns = ("repeat_metric", "repeat_kind", "repeat_group")
    return table.with_columns(
        pl.Series(name, [r[i] for r in rows], dtype=pl.String) for i, name in enumerate(columns)
    )


def _redundant(g: Group, line: Lineup) -> bool:
    """A group whose rows say nothing its seats' do not: a policy that holds every seat (its
    win share is fixed by the rules, its mean score is all seats'), a team that is one seat."""
    seats = line.fixed_seats(g.kind, g.name)
    if g.kind == "policy":
        return seats is not None and len(seats) == line.players
    if g.kind == "team":
        return line.teams_are_seats
    return False


def _fair(p: PointData) -> float:
    order = p.shares.by_order
    return float(order["fair"][0]) if order.height else 1.0 / max(p.players, 1)


def _paired_frame(
    metric: str, kind: str, names: list[str], va: np.ndarray, vb: np.ndarray, level: float
) -> pl.DataFrame:
    """Paired t-rows of per-game values ``va``, ``vb`` (float[n, k]); no test where both are
    constant (the value is fixed: p NaN)."""
    d = moments(vb - va)
    ci = mean_interval(d, level)
    ma, mb = moments(va), moments(vb)
    fixed = (ma.m2 == 0) & (mb.m2 == 0) & (d.m2 == 0)
    return pl.DataFrame(
        {
            "metric": [metric] * len(names),
            "kind": [kind] * len(names),
            "group": names,
            "games": d.n.astype(np.int64),
            "a": ma.mean,
            "b": mb.mean,
            "diff": ci.mean,
            "lo": ci.lo,
            "hi": ci.hi,
            "p_value": np.where(fixed, np.nan, ci.p_value),
        },
        schema_overrides={"metric": pl.String, "kind": pl.String, "group": pl.String},
    )


def _plays_paired(xa: GameArrays, xb: GameArrays, level: float) -> pl.DataFrame:
    """B - A of each plays metric over the same games (a winner's metric over the games where
    both points have one winner), paired t-rows; nothing when a point keeps no trajectory."""
    if xa.plays is None or xb.plays is None:
        return pl.DataFrame()
    parts = []
    for name in plays.METRICS:
        va, vb = xa.plays.values[name], xb.plays.values[name]
        both = ~(np.isnan(va) | np.isnan(vb))
        parts.append(_paired_frame(name, "game", ["all"], va[both, None], vb[both, None], level))
    return pl.concat(parts)


def _census_paired(a: PointData, b: PointData, level: float) -> pl.DataFrame:
    """B - A of each swept census measure over the games both censuses hold (the first ones of
    each point, the same games; balance/stats/census.py ``paired_summary``); nothing unless
    both points have a census."""
    if a.census is None or b.census is None:
        return pl.DataFrame()
    n = min(a.census["game"].max() or 0, b.census["game"].max() or 0) + 1  # type: ignore[operator]
    fa, fb = (c.filter(pl.col("game") < n) for c in (a.census, b.census))
    t = census_stats.paired_summary(fa, fb, level, kingmaking=a.kingmaking and b.kingmaking)
    return t.filter(pl.col("metric").is_in(census_stats.SWEPT)).select(
        "metric",
        kind=pl.lit("game"),
        group=pl.lit("all"),
        games="games",
        a="a",
        b="b",
        diff="diff",
        lo="lo",
        hi="hi",
        p_value="p_value",
    )


def _plays_across(xa: GameArrays, xb: GameArrays, level: float) -> pl.DataFrame:
    """B - A of each plays metric between points of different player counts: independent
    samples, Welch intervals."""
    if xa.plays is None or xb.plays is None:
        return pl.DataFrame()
    names = list(plays.METRICS)
    stats_ = []
    for x in (xa, xb):
        vals = [x.plays.values[m] for m in names]
        vals = [v[~np.isnan(v)] for v in vals]
        n = np.array([len(v) for v in vals], np.float64)
        mean = np.array([v.mean() if len(v) else np.nan for v in vals])
        sd = np.array([v.std(ddof=1) if len(v) > 1 else np.nan for v in vals])
        stats_.append((mean, sd, n))
    (ma, sa, na), (mb, sb, nb) = stats_
    lo, hi, p = _welch(ma, sa, na, mb, sb, nb, level)
    p = np.where((sa == 0) & (sb == 0), np.nan, p)
    return _diff_frame(names[0], "game", ["all"] * len(names), nb, ma, mb, lo, hi, p).with_columns(
        metric=pl.Series(names)
    )


def _indicators(p: PointData, names: tuple[str, ...], n: int | None = None) -> np.ndarray:
    """float[games, len(names)]: 1 where the game ended for that reason."""
    end = p.end_reason if n is None else p.end_reason[:n]
    out = np.zeros((len(end), len(names)))
    for j, name in enumerate(names):
        if name in p.end_reasons:
            out[:, j] = end == p.end_reasons.index(name)
    return out


def _end_names(a: PointData, b: PointData) -> tuple[str, ...]:
    names = tuple(dict.fromkeys([*a.end_reasons, *b.end_reasons]))
    return names if len(names) > 1 else ()


def _end_paired(a: PointData, b: PointData, n: int, level: float) -> pl.DataFrame:
    names = _end_names(a, b)
    if not names:
        return pl.DataFrame()
    va, vb = _indicators(a, names, n), _indicators(b, names, n)
    return _paired_frame("end_reason", "reason", list(names), va, vb, level)


def _place_wins(p: PointData) -> tuple[np.ndarray, np.ndarray]:
    """Per game: the win of each place in the turn order (float[n, P]) and the mean seat win."""
    grps = [Group("order", str(k), k) for k in range(p.players)]
    win, _ = group_values(p.arrays, grps)
    return win, p.arrays.win.mean(axis=1)


def _dealt_across(a: PointData, b: PointData, level: float) -> pl.DataFrame:
    """share / fair per place and the first player's edge of two independent points of a game
    that deals teams, where a fair place wins what the average seat-game wins (the mean seat win
    of the same games, as balance/stats/winrates.py estimates it): the edge is the mean over
    games of the first player's win minus its game's mean seat win; share / fair the ratio of
    the place's mean win to the mean seat win, its variance linearised over games (delta
    method). Welch intervals between the two points."""
    sides = []
    for p in (a, b):
        w, wbar = _place_wins(p)
        fair = float(wbar.mean())
        ratio = w.mean(axis=0) / fair
        z = (w - ratio[None, :] * wbar[:, None]) / fair  # linearised per-game values
        edge = w[:, 0] - wbar
        sides.append((ratio, z.std(axis=0, ddof=1), edge.mean(), edge.std(ddof=1), len(wbar)))
    (ra, sa, ea, sea, na), (rb, sb, eb, seb, nb) = sides
    k = min(len(ra), len(rb))
    n_a, n_b = np.full(k, float(na)), np.full(k, float(nb))
    lo, hi, p = _welch(ra[:k], sa[:k], n_a, rb[:k], sb[:k], n_b, level)
    groups = [str(i) for i in range(k)]
    norm = _diff_frame("normalised_share", "order", groups, n_b, ra[:k], rb[:k], lo, hi, p)
    one = np.ones(1)
    lo, hi, p = _welch(ea * one, sea * one, na * one, eb * one, seb * one, nb * one, level)
    edge = _diff_frame("first_edge", "order", ["0"], nb * one, ea * one, eb * one, lo, hi, p)
    return pl.concat([norm, edge])


def _end_across(a: PointData, b: PointData, level: float) -> pl.DataFrame:
    names = _end_names(a, b)
    if not names:
        return pl.DataFrame()
    ma, mb = moments(_indicators(a, names)), moments(_indicators(b, names))
    with np.errstate(divide="ignore", invalid="ignore"):
        sa = np.sqrt(np.where(ma.n > 1, ma.m2 / (ma.n - 1), np.nan))
        sb = np.sqrt(np.where(mb.n > 1, mb.m2 / (mb.n - 1), np.nan))
    lo, hi, p = _welch(ma.mean, sa, ma.n, mb.mean, sb, mb.n, level)
    p = np.where((ma.m2 == 0) & (mb.m2 == 0), np.nan, p)
    return _diff_frame("end_reason", "reason", list(names), mb.n, ma.mean, mb.mean, lo, hi, p)


def adjust_steps(table: pl.DataFrame) -> pl.DataFrame:
    """``q_value`` and ``significant`` for the rows of every neighbouring pair at once
    (balance/stats/multiple.py: BH within each metric, times the number of metrics); a repeat
    row (``repeat_metric`` set) is not counted and takes the q-value of the row it repeats."""
    if table.height == 0:
        return table.with_columns(q_value=pl.lit(None, dtype=pl.Float64), significant=pl.lit(False))
    repeat = table["repeat_metric"].is_not_null()
    counted = table.with_columns(
        p_value=pl.when(repeat).then(float("nan")).otherwise(pl.col("p_value"))
    )
    q = q_values_apart(counted, HOW)  # how the game plays: a family of its own
    if repeat.any():
        index = {
            (r["step"], r["metric"], r["kind"], r["group"]): i
            for i, r in enumerate(
                table.select("step", "metric", "kind", "group").iter_rows(named=True)
            )
        }
        rows = table.select("step", "repeat_metric", "repeat_kind", "repeat_group")
        for i in np.flatnonzero(repeat.to_numpy()):
            r = rows.row(int(i))
            j = index.get(r)
            q[i] = q[j] if j is not None else np.nan
    return table.with_columns(
        q_value=pl.Series(q), significant=pl.Series(np.nan_to_num(q, nan=1.0) < Q)
    )


__all__ = [
    "CURVE_COLUMNS",
    "HOW",
    "STEP_COLUMNS",
    "PointData",
    "adjust_steps",
    "neighbour_rows",
    "point_data",
]
