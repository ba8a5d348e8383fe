"""The trend of a sweep (balance/stats/trend.py): the least-squares slope of a metric on the knob
across all the points of a curve, its variance from the per-game contrast of points that played
the same games, and its q-value by the one rule together with the steps.

Each test knows its answer without the code under test: the slope is numpy's least-squares fit
through the points' means; a planted flat curve (every point the same distribution, correlated
game by game as common seeds make them) is called significant in about 5 % of replicates; a
planted linear trend is found, and its interval covers the planted slope in about 95 % of
replicates (which adding the points' variances as if independent does not: far too wide).
"""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
import pytest

from balance.stats import curves, trend

from .helpers import reference_q, rows

X = [2.0, 3.0, 4.0, 5.0, 6.0]  # a knob's values: five points, as a hand size 2..6
C = trend.slope_coefficients(X)


def _correlated(rng, n, p, keep=0.8):
    """Per-game wins (float[n, 1]) at each point of ``p`` (win probabilities): each point
    reuses the game's common uniform with probability ``keep`` (common random numbers: the
    same deal, mostly the same outcome), else draws its own."""
    u = rng.uniform(size=n)
    out = []
    for pi in p:
        ui = np.where(rng.uniform(size=n) < keep, u, rng.uniform(size=n))
        out.append((ui < pi).astype(np.float64)[:, None])
    return out


def test_the_slope_is_the_least_squares_line_through_the_points_and_its_se_the_games():
    rng = np.random.default_rng(1)
    values = [rng.normal(loc=0.3 * x, size=(400, 3)) + rng.normal(size=(400, 1)) for x in X]
    got = trend.paired_contrast(values, C)
    means = np.array([v.mean(axis=0) for v in values])  # [points, series]
    for j in range(3):
        assert got.estimate[j] == pytest.approx(np.polyfit(X, means[:, j], 1)[0], rel=1e-12)
        y = sum(c * v[:, j] for c, v in zip(C, values, strict=True))  # per-game contrast
        assert got.se[j] == pytest.approx(y.std(ddof=1) / np.sqrt(400), rel=1e-12)
    assert (got.games == 400).all()
    # independent samples: the same slope, variance sum c_i^2 s_i^2 / n_i
    ind = trend.independent_contrast(values, C)
    assert ind.estimate == pytest.approx(got.estimate, rel=1e-12)
    var = sum(c * c * v.var(axis=0, ddof=1) / 400 for c, v in zip(C, values, strict=True))
    assert ind.se == pytest.approx(np.sqrt(var), rel=1e-12)


def test_a_planted_flat_curve_is_significant_in_about_5_percent_of_replicates():
    """Five points of one win probability, strongly correlated game by game: the paired slope's
    p < 0.05 in 5 % of 2,000 replicates, up to Monte Carlo error (sd 0.5 %)."""
    rng = np.random.default_rng(7)
    reps = 2000
    p = np.array([trend.paired_contrast(_correlated(rng, 300, [0.3] * 5), C).p_value[0]
                  for _ in range(reps)])  # fmt: skip
    rate = float((p < 0.05).mean())
    assert 0.035 <= rate <= 0.065, rate


def test_a_planted_linear_trend_is_found_and_covered_at_95_percent():
    """Win probability 0.30 + 0.01 per unit of the knob: the paired trend finds it in most
    replicates and its interval covers 0.01 in 95 % of them; the variance that ignores the
    points' correlation covers it nearly always (too wide) and finds it far less often."""
    rng = np.random.default_rng(11)
    truth = 0.01
    probs = [0.30 + truth * (x - 4) for x in X]
    found = covered = naive_found = naive_covered = 0
    reps = 1000
    for _ in range(reps):
        v = _correlated(rng, 1000, probs)
        got = trend.paired_contrast(v, C)
        naive = trend.independent_contrast(v, C)
        found += bool(got.p_value[0] < 0.05 and got.estimate[0] > 0)
        covered += bool(got.lo[0] <= truth <= got.hi[0])
        naive_found += bool(naive.p_value[0] < 0.05)
        naive_covered += bool(naive.lo[0] <= truth <= naive.hi[0])
    assert found / reps >= 0.85, found
    assert 0.93 <= covered / reps <= 0.97, covered
    assert naive_covered / reps > 0.99 and naive_found < found - 100


def test_independent_points_keep_their_error_rate():
    """Points with different player counts are independent samples of different sizes: the
    Welch-Satterthwaite slope is significant in about 5 % of flat replicates."""
    rng = np.random.default_rng(5)
    sizes = [200, 300, 400, 500, 600]
    p = [
        trend.independent_contrast(
            [rng.normal(scale=1 + i, size=(n, 1)) for i, n in enumerate(sizes)], C
        ).p_value[0]
        for _ in range(2000)
    ]
    rate = float((np.asarray(p) < 0.05).mean())
    assert 0.035 <= rate <= 0.065, rate


def test_identical_points_give_an_exact_zero_not_floating_point_noise():
    """Game lengths near 40 turns, the same at every point: the contrast is 0 in every game
    (c sums to 0 only up to rounding, so sum c_i x_g would be ~1e-15 x_g, and a t-test on that
    noise would call a trend of nothing significant)."""
    rng = np.random.default_rng(2)
    turns = 40 + rng.normal(size=(500, 1))
    got = trend.paired_contrast([turns] * 5, C)
    assert got.estimate[0] == 0 and got.se[0] == 0 and got.p_value[0] == 1.0


def _point(rng, n, first_win, u):
    """A 3-player dataset whose first player wins with ``first_win`` from common uniforms ``u``
    (the others split the rest); game lengths from the same uniforms."""
    first = np.arange(n) % 3  # helpers.rows: seat g % 3 opens game g
    ui = np.where(rng.uniform(size=n) < 0.8, u, rng.uniform(size=n))
    other = np.where(ui < first_win + (1 - first_win) / 2, 1, 2)
    winner = np.where(ui < first_win, first, (first + other) % 3)
    rank = np.full((n, 3), 2)
    rank[np.arange(n), winner] = 1
    turns = (30 + 10 * ui).astype(int)
    return curves.point_data(rows(rank, turns=turns), {})


def test_a_planted_null_sweep_names_no_trend_in_95_percent_of_replicates():
    """The whole path (per-game values of every group, the one rule over the steps and the
    trends): a flat curve of five points names any trend or step significant in at most about
    5 % of replicates (BH within each metric, times the metrics: under the complete null the
    chance of any star is at most 5 %). P(more than 12 of 120 | 5 %) < 1 %. Each replicate is
    its own 300 games of five long datasets (games are independent of each other)."""
    rng = np.random.default_rng(3)
    reps, n = 120, 300
    u = rng.uniform(size=reps * n)
    long = [_point(rng, reps * n, 1 / 3, u) for _ in X]
    starred = 0
    for i in range(reps):
        games = slice(i * n, (i + 1) * n)
        pts = [
            p._replace(games=n, arrays=p.arrays.rows(games), end_reason=p.end_reason[games])
            for p in long
        ]
        t = trend.trend_rows(X, pts)
        steps = pl.concat(
            [
                curves.neighbour_rows(a, b, step=k, a_point=k, b_point=k + 1)
                for k, (a, b) in enumerate(itertools.pairwise(pts))
            ],
            how="diagonal_relaxed",
        )
        s, t = trend.adjust_sweep(steps, t)
        starred += bool(t["significant"].any() or s["significant"].any())
    assert starred <= 12, starred


def test_a_planted_trend_in_the_first_player_is_found_through_the_whole_path():
    rng = np.random.default_rng(4)
    u = rng.uniform(size=3000)
    pts = [_point(rng, 3000, 0.30 + 0.02 * (x - 4), u) for x in X]
    t = trend.trend_rows(X, pts)
    _, t = trend.adjust_sweep(pl.DataFrame(schema={"step": pl.Int64}), t)
    edge = t.filter(pl.col("metric") == "first_edge").row(0, named=True)
    order0 = t.filter(
        (pl.col("metric") == "win_share") & (pl.col("kind") == "order") & (pl.col("group") == "0")
    ).row(0, named=True)
    assert edge["significant"] and edge["lo"] <= 0.02 <= edge["hi"]
    # the edge over a constant fair share is the first player's share: counted once
    assert edge["repeat_metric"] == "win_share" and edge["q_value"] == order0["q_value"]
    assert edge["slope"] == pytest.approx(order0["slope"], abs=1e-15)
    means = [p.curve.filter(pl.col("metric") == "first_edge")["value"][0] for p in pts]
    assert edge["slope"] == pytest.approx(np.polyfit(X, means, 1)[0], rel=1e-9)
    assert (edge["first"], edge["last"]) == pytest.approx((means[0], means[-1]))


def test_the_one_rule_counts_steps_and_trends_together():
    """adjust_sweep is stats.adjust over the steps' and the trends' rows as one table (each
    metric's family holds both), a repeat row left out and given its row's q-value."""
    rng = np.random.default_rng(9)
    step_rows, trend_rows = [], []
    for step in range(3):
        for metric in ("win_share", "mean_turns"):
            for group in ("0", "1"):
                step_rows.append((step, metric, "seat", group, float(rng.uniform(0, 0.1)), None))
        step_rows.append((step, "first_edge", "order", "0", 0.9, "win_share"))
        step_rows.append((step, "win_share", "order", "0", float(rng.uniform(0, 0.02)), None))
    for series in ("a", "b"):
        for metric in ("win_share", "mean_turns"):
            trend_rows.append((series, metric, "order", "0", float(rng.uniform(0, 0.01)), None))
        trend_rows.append((series, "first_edge", "order", "0", 0.7, "win_share"))
    cols = ["metric", "kind", "group", "p_value", "repeat_metric"]

    def frame(data, key):
        return pl.DataFrame(data, schema=[key, *cols], orient="row").with_columns(
            repeat_kind=pl.when(pl.col("repeat_metric").is_not_null()).then(pl.lit("order")),
            repeat_group=pl.when(pl.col("repeat_metric").is_not_null()).then(pl.lit("0")),
        )

    steps, trends = frame(step_rows, "step"), frame(trend_rows, "series")
    s, t = trend.adjust_sweep(steps, trends)
    plain = [r for r in step_rows + trend_rows if r[5] is None]
    q = reference_q([r[4] for r in plain], [r[1] for r in plain])
    expected = {(r[0], r[1], r[2], r[3]): qi for r, qi in zip(plain, q, strict=True)}
    for out, key in ((s, "step"), (t, "series")):
        for r in out.iter_rows(named=True):
            k = (r[key], r["metric"], r["kind"], r["group"])
            if r["repeat_metric"] is None:
                assert r["q_value"] == pytest.approx(expected[k], rel=1e-12)
            else:
                assert r["q_value"] == pytest.approx(expected[(r[key], "win_share", "order", "0")])
            assert r["significant"] == (r["q_value"] < 0.05)
    # without trends it is the steps' own rule
    alone, _ = trend.adjust_sweep(steps, trends.clear())
    assert alone["q_value"].to_list() == curves.adjust_steps(steps)["q_value"].to_list()


def test_fewer_than_three_points_or_one_knob_value_have_no_trend():
    rng = np.random.default_rng(6)
    u = rng.uniform(size=100)
    pts = [_point(rng, 100, 1 / 3, u) for _ in range(2)]
    assert trend.trend_rows([1.0, 2.0], pts).height == 0
    with pytest.raises(ValueError, match="two different knob values"):
        trend.slope_coefficients([3.0, 3.0, 3.0])
    assert trend.identical_points([pts[0], pts[0]]) and not trend.identical_points(pts)
