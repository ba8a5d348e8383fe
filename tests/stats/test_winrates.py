"""Win shares, seat advantage and distributions against hand counts and reference libraries."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

from balance import stats

from .helpers import random_ranks, rows


@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_wilson_matches_statsmodels(level):
    counts = np.array([0, 1, 3, 17, 50, 99, 100, 2500, 123456])
    nobs = np.array([10, 10, 10, 60, 100, 100, 100, 10000, 400000])
    lo, hi = stats.wilson_interval(counts / nobs, nobs, level)
    ref_lo, ref_hi = proportion_confint(counts, nobs, alpha=1 - level, method="wilson")
    np.testing.assert_allclose(lo, ref_lo, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(hi, ref_hi, rtol=1e-12, atol=1e-15)


def test_wilson_of_no_trials_is_nan():
    lo, hi = stats.wilson_interval(np.array([0.0]), np.array([0]))
    assert np.isnan(lo).all() and np.isnan(hi).all()


def test_shares_count_a_shared_win_as_1_over_k():
    # Game 0: seat 0 wins; game 1: seats 0 and 1 share; game 2: all three share; game 3: seat 2.
    rank = np.array([[1, 2, 3], [1, 1, 3], [1, 1, 1], [2, 3, 1]])
    ws = stats.win_shares(rows(rank))
    assert (ws.players, ws.games) == (3, 4)
    seat = ws.by_seat.sort("seat")
    expected = np.array([1 + 1 / 2 + 1 / 3, 1 / 2 + 1 / 3, 1 / 3 + 1]) / 4
    np.testing.assert_allclose(seat["share"].to_numpy(), expected)
    np.testing.assert_allclose(seat["normalised"].to_numpy(), 3 * expected)
    assert seat["share"].sum() == pytest.approx(1.0)  # the shares of a game add up to 1
    lo, hi = stats.wilson_interval(expected, 4)
    np.testing.assert_allclose(seat["lo"].to_numpy(), lo)
    np.testing.assert_allclose(seat["hi"].to_numpy(), hi)


def test_policy_and_team_shares():
    rng = np.random.default_rng(1)
    rank = random_ranks(rng, 2000, 4, [0.4, 0.1, 0.4, 0.1])
    df = rows(rank, policies=["greedy", "random"] * 2, teams=["red", "blue", "red", "blue"])
    ws = stats.win_shares(df)
    win = np.where(rank == 1, 1.0, 0.0)
    policy = ws.by_policy.row(by_predicate=pl.col("policy") == "greedy", named=True)
    # Over games (the unit), not seat-games: the interval is of the per-game mean of its seats.
    assert policy["seats"] == 2 and policy["n"] == 2000 and policy["seat_games"] == 4000
    per_game = win[:, [0, 2]].mean(axis=1)
    n_eff = 2000 * per_game.mean() * (1 - per_game.mean()) / per_game.var(ddof=1)
    lo, hi = stats.wilson_interval(per_game.mean(), n_eff)
    assert (policy["lo"], policy["hi"]) == (pytest.approx(lo), pytest.approx(hi))
    assert policy["se"] == pytest.approx(per_game.std(ddof=1) / np.sqrt(2000))
    assert policy["share"] == pytest.approx(win[:, [0, 2]].mean())
    assert policy["normalised"] == pytest.approx(4 * win[:, [0, 2]].mean())
    red = ws.by_team.row(by_predicate=pl.col("team") == "red", named=True)
    # A team's share is per game (any of its seats wins), n = games, fair = its share of seats.
    assert (red["seats"], red["n"], red["fair"]) == (2, 2000, 0.5)
    assert red["share"] == pytest.approx(win[:, [0, 2]].sum(axis=1).mean())
    assert red["normalised"] == pytest.approx(red["share"] / 0.5)
    assert ws.by_team["share"].sum() == pytest.approx(1.0)


def test_seat_advantage_chi_square_on_a_symmetric_lineup():
    rng = np.random.default_rng(2)
    rank = random_ranks(rng, 3000, 4, [0.3, 0.25, 0.25, 0.2])
    sa = stats.seat_advantage(rows(rank))
    wins = (rank == 1).sum(axis=0)
    ref = sps.chisquare(wins)
    assert sa.symmetric and sa.dof == 3
    assert sa.chi2 == pytest.approx(ref.statistic)
    assert sa.p_value == pytest.approx(ref.pvalue)
    assert sa.p_value < 1e-3  # seat 0 really is favoured


def test_first_player_edge_and_order_shares():
    n, p = 4000, 4
    order = (np.arange(p)[None, :] - np.arange(n)[:, None]) % p
    rank = np.where(order == 0, 1, 2)  # the first player always wins
    rank[: n // 2] = np.where(order[: n // 2] == 1, 1, 2)  # ... in half the games; else the 2nd
    sa = stats.seat_advantage(rows(rank, order=order))
    assert sa.first_player_share == pytest.approx(0.5)
    assert sa.first_player_edge == pytest.approx(0.25)
    lo, hi = stats.wilson_interval(0.5, n)
    assert (sa.edge_lo, sa.edge_hi) == (pytest.approx(lo - 0.25), pytest.approx(hi - 0.25))
    np.testing.assert_allclose(sa.by_order["share"].to_numpy(), [0.5, 0.5, 0, 0])
    assert sa.order_p_value < 1e-100 and sa.p_value > 0.05  # order matters, seats do not


def test_no_chi_square_when_the_lineup_is_not_symmetric():
    rank = random_ranks(np.random.default_rng(3), 100, 2, [1, 1])
    sa = stats.seat_advantage(rows(rank, policies=["greedy", "random"]))
    assert not sa.symmetric and sa.chi2 is None and sa.p_value is None
    assert np.isfinite(sa.first_player_edge)


def test_distributions_match_numpy():
    rng = np.random.default_rng(4)
    n, p = 500, 3
    score = rng.integers(-3, 30, size=(n, p))
    turns = rng.integers(40, 90, size=n)
    rank = 1 + (score[:, None, :] > score[:, :, None]).sum(axis=2)
    d = stats.distributions(rows(rank, score=score, turns=turns))
    assert d.score.n == n * p and d.turns.n == n
    assert d.score.mean == pytest.approx(score.mean())
    assert d.score.sd == pytest.approx(score.std(ddof=1))
    assert d.turns.mean == pytest.approx(turns.mean())
    assert (d.turns.min, d.turns.max) == (turns.min(), turns.max())
    for q in stats.QUANTILES:
        assert d.turns.quantiles[q] == pytest.approx(np.quantile(turns, q))
        assert d.score.quantiles[q] == pytest.approx(np.quantile(score, q))
    assert d.score_by_seat["mean"].to_list() == pytest.approx(score.mean(axis=0).tolist())
    assert d.turns_counts["games"].sum() == n and d.score_counts["n"].sum() == n * p
    assert d.end_reasons.to_dicts() == [{"end_reason": "clocks", "games": n, "share": 1.0}]


def test_describe_a_dataset_written_by_the_runner(fake_game, fake_config, tmp_path):
    from balance import results, runner
    from balance.config import load_config

    runner.run(load_config(fake_config), config_path=fake_config, out=tmp_path / "r", games=300)
    manifest, lf = results.open_results(tmp_path / "r")
    d = stats.describe(lf, manifest)
    assert (d.games, d.players) == (300, 3)
    assert d.win_shares.by_seat["share"].sum() == pytest.approx(1.0)
    skilled = d.win_shares.by_policy.row(by_predicate=pl.col("policy") == "skilled", named=True)
    assert skilled["normalised_lo"] > 1  # the fake game's skilled seat scores 1 more
    assert d.card_impact.table.height == len(manifest["telemetry_columns"])
    assert not d.seat_advantage.symmetric


def test_fixed_teams_of_several_seats_measure_a_place_against_the_mean_seat_win():
    # 2 against 2, the whole team wins together: a fair place wins half its games, not 1/4
    # (the first player's edge used to read +25 points for a fair first player)
    rng = np.random.default_rng(8)
    n = 4000
    red_wins = rng.random(n) < 0.5
    rank = np.where(np.array([True, False, True, False])[None, :] == red_wins[:, None], 1, 2)
    df = rows(rank, teams=["red", "blue", "red", "blue"])
    df = df.with_columns(win=(pl.col("rank") == 1).cast(pl.Float64))  # a team's win is whole
    sa = stats.seat_advantage(df)
    assert sa.fair == pytest.approx(df["win"].mean())
    assert abs(sa.first_player_edge) < 0.03 and sa.edge_lo < 0 < sa.edge_hi
