"""Paired differences: running moments, t-intervals, group values and the paired table."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

from balance import stats

from .helpers import random_ranks, reference_q, rows


def test_moments_merge_across_chunks_like_one_sample():
    x = np.random.default_rng(7).normal(3, 2, size=(1000, 3))
    merged = None
    for part in np.split(x, [1, 250, 600]):
        merged = stats.merge_moments(merged, stats.moments(part))
    whole = stats.moments(x)
    for a, b in zip(merged, whole, strict=True):
        np.testing.assert_allclose(a, b)
    np.testing.assert_allclose(whole.m2 / 999, x.var(axis=0, ddof=1))


@pytest.mark.parametrize("level", [0.9, 0.95])
def test_t_interval_matches_scipy(level):
    x = np.random.default_rng(8).normal(0.1, 1, size=(200, 1))
    ci = stats.mean_interval(stats.moments(x), level)
    lo, hi = sps.t.interval(level, 199, loc=x.mean(), scale=sps.sem(x[:, 0]))
    assert (ci.lo[0], ci.hi[0]) == (pytest.approx(lo), pytest.approx(hi))
    assert ci.p_value[0] == pytest.approx(sps.ttest_1samp(x[:, 0], 0).pvalue)


def test_interval_of_a_series_without_variation():
    ci = stats.mean_interval(stats.moments(np.column_stack([np.zeros(50), np.full(50, 2.0)])))
    assert list(ci.lo) == [0, 2] and list(ci.hi) == [0, 2]
    assert list(ci.p_value) == [1.0, 0.0]  # nothing changed / every game moved by 2


def test_group_values_of_seats_orders_policies_and_teams():
    line = stats.config_lineup(("a", "b", "a"), ("x", "x", "y"))
    grps = stats.groups(line)
    assert [(g.kind, g.name, g.code) for g in grps] == [
        ("seat", "0", 0), ("seat", "1", 1), ("seat", "2", 2),
        ("order", "0", 0), ("order", "1", 1), ("order", "2", 2),
        ("policy", "a", 0), ("policy", "b", 1),
        ("team", "x", 0), ("team", "y", 1),
    ]  # fmt: skip
    assert line.fixed_seats("policy", "a") == (0, 2) and line.fixed_seats("team", "x") == (0, 1)
    policy, team = stats.seat_codes(line, 2)
    arrays = stats.GameArrays(
        first_game=0,
        # game 0: seat 0 (team x) wins alone; game 1: seats 1 (x) and 2 (y) share: 1/2 each
        win=np.array([[1.0, 0, 0], [0, 0.5, 0.5]]),
        score=np.array([[9.0, 3, 6], [1, 5, 5]]),
        turns=np.array([20.0, 30]),
        order=np.array([[2, 0, 1], [0, 1, 2]]),
        policy=policy,
        team=team,
    )
    win, score = stats.group_values(arrays, grps)
    # team x: its win in the game (1, then 1/2), not the sum over its seats
    np.testing.assert_allclose(win[0], [1, 0, 0, 0, 0, 1, 0.5, 0, 1, 0])
    np.testing.assert_allclose(win[1], [0, 0.5, 0.5, 0, 0.5, 0.5, 0.25, 0.5, 0.5, 0.5])
    np.testing.assert_allclose(score[0], [9, 3, 6, 3, 6, 9, 7.5, 3, 6, 6])


def test_group_values_follow_teams_and_roles_that_change_from_game_to_game():
    # A hidden-role game of 3 seats: teams and roles are dealt per game (codes index the names).
    line = stats.Lineup(
        players=3, policies=("p",), teams=("family", "raven"), roles=("doc", "mayor", "raven"),
        seat_policies=("p", "p", "p"),
    )  # fmt: skip
    arrays = stats.GameArrays(
        first_game=0,
        # game 0: family (seats 0, 1) wins: a full win each; game 1: the raven (seat 0) wins;
        # game 2: every seat ends on the family (the raven possessed nobody and died... ) and wins
        win=np.array([[1.0, 1, 0], [1, 0, 0], [1, 1, 1]]),
        score=np.array([[1.0, 2, 3], [4, 5, 6], [7, 8, 9]]),
        turns=np.array([10.0, 11, 12]),
        order=np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1]]),
        policy=np.zeros((3, 3), dtype=np.int32),
        team=np.array([[0, 0, 1], [1, 0, 0], [0, 0, 0]]),
        role=np.array([[0, 1, 2], [2, 1, 0], [1, 0, 2]]),
    )
    grps = stats.groups(line, ["team", "role"])
    win, score = stats.group_values(arrays, grps)
    # team family: won, lost, won; raven: lost, won, had no seat (0: it did not win)
    np.testing.assert_allclose(win[:, 0], [1, 0, 1])
    np.testing.assert_allclose(win[:, 1], [0, 1, 0])
    np.testing.assert_allclose(score[:, 0], [1.5, 5.5, 8])
    np.testing.assert_allclose(score[:2, 1], [3, 4])
    assert np.isnan(score[2, 1])  # no raven seat in game 2: no score
    # roles: one seat each per game here, so its win and score are that seat's
    np.testing.assert_allclose(win[:, 2:], [[1, 1, 0], [0, 0, 1], [1, 1, 1]])
    np.testing.assert_allclose(score[:, 2:], [[1, 2, 3], [6, 5, 4], [8, 7, 9]])


def test_paired_differences_of_two_datasets():
    rng = np.random.default_rng(9)
    n = 3000
    rank_a = random_ranks(rng, n, 3, [1, 1, 1])
    rank_b = np.where(rng.random((n, 1)) < 0.8, rank_a, random_ranks(rng, n, 3, [2, 1, 1]))
    score_a, score_b = -rank_a * 3, -rank_b * 3 + 1
    a, b = rows(rank_a, score=score_a), rows(rank_b, score=score_b)
    p = stats.paired_differences(a, b)
    assert p.games == n and "t-interval" in p.method
    t = p.table
    row = t.row(
        by_predicate=(pl.col("metric") == "win_share")
        & (pl.col("group") == "0")
        & (pl.col("kind") == "seat"),
        named=True,
    )
    d = (rank_b[:, 0] == 1).astype(float) - (rank_a[:, 0] == 1)
    lo, hi = sps.t.interval(0.95, n - 1, loc=d.mean(), scale=sps.sem(d))
    assert row["diff"] == pytest.approx(d.mean())
    assert (row["lo"], row["hi"]) == (pytest.approx(lo), pytest.approx(hi))
    assert row["a"] == pytest.approx((rank_a[:, 0] == 1).mean())
    assert row["significant"] == (not lo <= 0 <= hi)
    turns = t.filter(pl.col("metric") == "mean_turns").row(0, named=True)
    assert (turns["kind"], turns["diff"], turns["significant"]) == ("game", 0, False)
    scores = t.filter((pl.col("metric") == "mean_score") & (pl.col("kind") == "seat"))
    d_score = (score_b - score_a).mean(axis=0)
    np.testing.assert_allclose(scores["diff"].to_numpy(), d_score)
    assert set(t["kind"]) == {"seat", "order", "policy", "team", "game"}


def test_a_dataset_against_itself_changes_nothing():
    a = rows(random_ranks(np.random.default_rng(10), 500, 4, [1, 1, 1, 1]))
    t = stats.paired_differences(a, a.sample(fraction=1.0, shuffle=True, seed=1)).table
    assert (t["diff"] == 0).all() and not t["significant"].any()


def test_only_the_games_both_hold_are_paired():
    rank = random_ranks(np.random.default_rng(11), 400, 2, [1, 1])
    a, b = rows(rank), rows(rank[100:], first_game=100)
    assert stats.paired_differences(a, b).games == 300


def test_different_seeds_or_player_counts_are_refused():
    rank = random_ranks(np.random.default_rng(12), 50, 2, [1, 1])
    with pytest.raises(ValueError, match="different seeds"):
        stats.paired_differences(
            rows(rank), rows(rank), a_manifest={"seed": 1}, b_manifest={"seed": 2}
        )
    with pytest.raises(ValueError, match="2 and 3 players"):
        stats.paired_differences(
            rows(rank), rows(random_ranks(np.random.default_rng(1), 50, 3, [1, 1, 1]))
        )


def _part(x: stats.GameArrays, lo: int, hi: int) -> stats.GameArrays:
    return x.rows(slice(lo, hi))._replace(first_game=lo)


def test_accumulating_chunks_gives_the_same_table():
    rng = np.random.default_rng(13)
    rank_a, rank_b = random_ranks(rng, 900, 3, [1, 1, 1]), random_ranks(rng, 900, 3, [2, 1, 1])
    a, line, _ = stats.game_arrays(rows(rank_a))
    b, _, _ = stats.game_arrays(rows(rank_b))
    whole = stats.PairedAccumulator(stats.groups(line), stats.groups(line))
    whole.add(a, b)
    chunked = stats.PairedAccumulator(stats.groups(line), stats.groups(line))
    for lo, hi in ((0, 100), (100, 550), (550, 900)):
        chunked.add(*(_part(x, lo, hi) for x in (a, b)))
    left, right = whole.table(), chunked.table()
    keys = ["metric", "kind", "group", "games", "significant"]
    assert left.select(keys).equals(right.select(keys))
    for col in ("a", "b", "diff", "sd", "lo", "hi"):
        np.testing.assert_allclose(left[col].to_numpy(), right[col].to_numpy(), atol=1e-12)


# ------------------------------------------------------------------ unpaired (independent runs)


def _two_runs(level: float = 0.95):
    """Two independent 3-seat runs: B's seat 1 wins more, scores differ, B's games are longer."""
    rng = np.random.default_rng(11)
    a_rank = random_ranks(rng, 3_000, 3, [1, 1, 1])
    b_rank = random_ranks(rng, 2_000, 3, [1, 1.4, 1])
    a = rows(a_rank, score=rng.integers(0, 10, (3_000, 3)), turns=rng.integers(20, 40, 3_000))
    b = rows(b_rank, score=rng.integers(1, 12, (2_000, 3)), turns=rng.integers(22, 44, 2_000))
    t = stats.unpaired_differences(
        stats.win_shares(a, level=level),
        stats.distributions(a),
        stats.win_shares(b, level=level),
        stats.distributions(b),
        level=level,
    )
    return a, b, t


def _row(t: pl.DataFrame, metric: str, kind: str, group: str) -> dict:
    return t.row(
        by_predicate=(pl.col("metric") == metric) & (pl.col("kind") == kind)
        & (pl.col("group") == group),
        named=True,
    )  # fmt: skip


@pytest.mark.parametrize("level", [0.9, 0.95])
def test_unpaired_win_shares_are_newcombe_intervals_matching_statsmodels(level):
    from statsmodels.stats.proportion import confint_proportions_2indep

    a, b, t = _two_runs(level)
    assert t.columns == [
        "metric", "kind", "group", "games", "a", "b", "diff", "lo", "hi", "p_value", "q_value",
        "significant",
    ]  # fmt: skip
    for seat in range(3):
        wa = int(a.filter(pl.col("seat") == seat)["win"].sum())
        wb = int(b.filter(pl.col("seat") == seat)["win"].sum())
        r = _row(t, "win_share", "seat", str(seat))
        assert (r["a"], r["b"], r["games"]) == (pytest.approx(wa / 3_000), wb / 2_000, 2_000)
        lo, hi = confint_proportions_2indep(
            wb, 2_000, wa, 3_000, method="newcomb", compare="diff", alpha=1 - level
        )
        assert (r["lo"], r["hi"]) == (pytest.approx(lo), pytest.approx(hi))
    # Significant: Benjamini-Hochberg within each metric (times the metrics) over every row with
    # a test, one-seat teams taking their
    # seat's q-value (they repeat it), the one policy holding every seat untested.
    tested = t.filter(pl.col("p_value").is_not_nan() & (pl.col("kind") != "team"))
    q = reference_q(tested["p_value"], tested["metric"])
    np.testing.assert_allclose(tested["q_value"].to_numpy(), q)
    assert (tested["significant"].to_numpy() == (q < 0.05)).all()
    for seat in range(3):
        team = _row(t, "win_share", "team", str(seat))
        assert team["q_value"] == _row(t, "win_share", "seat", str(seat))["q_value"]
    assert _row(t, "win_share", "seat", "1")["significant"]  # the planted +9 points
    assert {k for k in t["kind"]} == {"seat", "order", "policy", "team", "game"}


def test_unpaired_means_are_welch_intervals_matching_scipy():
    a, b, t = _two_runs()
    for seat in range(3):
        xa = a.filter(pl.col("seat") == seat)["score"].to_numpy()
        xb = b.filter(pl.col("seat") == seat)["score"].to_numpy()
        ref = sps.ttest_ind(xb, xa, equal_var=False)
        ci = ref.confidence_interval(0.95)
        r = _row(t, "mean_score", "seat", str(seat))
        assert r["diff"] == pytest.approx(xb.mean() - xa.mean())
        assert (r["lo"], r["hi"]) == (pytest.approx(ci.low), pytest.approx(ci.high))
        assert r["p_value"] == pytest.approx(ref.pvalue)
    ta = a.filter(pl.col("seat") == 0)["turns"].to_numpy()
    tb = b.filter(pl.col("seat") == 0)["turns"].to_numpy()
    ref = sps.ttest_ind(tb, ta, equal_var=False)
    r = _row(t, "mean_turns", "game", "all")
    assert r["diff"] == pytest.approx(tb.mean() - ta.mean()) and r["significant"]
    assert (r["lo"], r["hi"]) == (
        pytest.approx(ref.confidence_interval(0.95).low),
        pytest.approx(ref.confidence_interval(0.95).high),
    )


def test_unpaired_differences_of_a_run_with_itself_are_zero_and_not_significant():
    a, _, _ = _two_runs()
    ws, dist = stats.win_shares(a), stats.distributions(a)
    t = stats.unpaired_differences(ws, dist, ws, dist)
    assert (t["diff"] == 0).all() and not t["significant"].any()
    shares = t.filter(pl.col("metric") == "win_share")
    # The one policy holds every seat: its share is 1/4 by the rules and has nothing to test.
    fixed = shares.filter(pl.col("kind") == "policy")
    assert fixed.height == 1 and fixed["p_value"].is_nan().all()
    tested = shares.filter(pl.col("kind") != "policy")
    assert tested["p_value"].to_list() == pytest.approx([1.0] * tested.height)
