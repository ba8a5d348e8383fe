"""SPRTs: bounds, error rates on synthetic streams, and savings against a fixed-size test."""

from __future__ import annotations

import numpy as np
import pytest

from balance import stats

ALPHA = BETA = 0.05
P0, P1 = 0.45, 0.55  # H0 (the claim fails) and H1 (it holds)


def test_bounds_are_fishtests():
    lower, upper = stats.sprt_bounds(0.05, 0.1)
    assert lower == pytest.approx(np.log(0.1 / 0.95))
    assert upper == pytest.approx(np.log(0.9 / 0.05))
    with pytest.raises(ValueError):
        stats.sprt_bounds(0.6, 0.5)


def _bernoulli_runs(p: float, reps: int = 2000, cap: int = 4000, seed: int = 0):
    """Decision (+1 H1, -1 H0, 0 none) and games used of ``reps`` game-by-game SPRTs."""
    rng = np.random.default_rng(seed)
    x = rng.random((reps, cap)) < p
    s = np.cumsum(x, axis=1)
    n = np.arange(1, cap + 1)
    d = stats.decide(stats.bernoulli_llr(s, n, P0, P1), *stats.sprt_bounds(ALPHA, BETA))
    decided = d != 0
    first = np.where(decided.any(axis=1), decided.argmax(axis=1), cap - 1)
    return d[np.arange(reps), first], first + 1


def _margin(rate: float, reps: int) -> float:
    return 3 * np.sqrt(rate * (1 - rate) / reps)


def test_bernoulli_sprt_error_rates_stay_within_alpha_and_beta():
    at_h0, _ = _bernoulli_runs(P0, seed=1)
    at_h1, _ = _bernoulli_runs(P1, seed=2)
    assert (at_h0 == 0).mean() < 0.01 and (at_h1 == 0).mean() < 0.01  # (almost) all decided
    assert (at_h0 == 1).mean() <= ALPHA + _margin(ALPHA, 2000)  # passed a failing claim
    assert (at_h1 == -1).mean() <= BETA + _margin(BETA, 2000)  # failed a claim that holds


def test_a_clear_case_is_decided_in_far_fewer_games_than_a_fixed_size_test():
    fixed = stats.fixed_sample_size(
        P0, P1, ALPHA, BETA, sd0=np.sqrt(P0 * (1 - P0)), sd1=np.sqrt(P1 * (1 - P1))
    )
    assert 250 < fixed < 290  # ((z.95 (sd0 + sd1)) / 0.1)^2
    decision, games = _bernoulli_runs(0.65, reps=500, seed=3)
    assert (decision == 1).all()
    assert games.mean() < fixed / 3
    # Even at the hypotheses themselves the SPRT needs fewer games on average (Wald).
    _, games_h1 = _bernoulli_runs(P1, reps=500, seed=4)
    assert games_h1.mean() < fixed


def _normal_pass_rate(mu: float, reps: int, seed: int) -> tuple[float, float]:
    """Share of passes of "mean above 80" (delta 1) on N(mu, 5) games fed in batches of 20."""
    rng = np.random.default_rng(seed)
    passes = undecided = 0
    for _ in range(reps):
        test = stats.SequentialAssertion(
            [stats.Claim(0, "above", 80.0, 1.0)], alpha=ALPHA, beta=BETA
        )
        for _ in range(200):
            if test.update(rng.normal(mu, 5.0, size=20)) is not None:
                break
        passes += test.verdict == "pass"
        undecided += test.verdict is None
    return passes / reps, undecided / reps


def test_normal_sprt_error_rates_with_estimated_variance():
    reps = 400
    pass_at_h0, undecided = _normal_pass_rate(79.5, reps, seed=5)
    assert pass_at_h0 <= ALPHA + _margin(ALPHA, reps) and undecided == 0
    pass_at_h1, undecided = _normal_pass_rate(80.5, reps, seed=6)
    assert 1 - pass_at_h1 <= BETA + _margin(BETA, reps) and undecided == 0


def test_within_passes_inside_and_fails_outside():
    rng = np.random.default_rng(7)
    inside = stats.SequentialAssertion(stats.within(0, 0.25, 0.02, 0.01), model="bernoulli")
    outside = stats.SequentialAssertion(stats.within(0, 0.25, 0.02, 0.01), model="bernoulli")
    for _ in range(100):
        inside.update(rng.random(500) < 0.25)
        outside.update(rng.random(500) < 0.30)
    assert inside.verdict == "pass" and outside.verdict == "fail"
    assert list(outside.decisions) in ([1, -1], [0, -1])  # the upper bound failed
    games = inside.games
    assert inside.update(np.ones(500)) == "pass" and inside.games == games  # frozen once decided
    est = inside.estimate()
    assert est.lo[0] < est.mean[0] < est.hi[0]
    assert abs(est.mean[0] - 0.25) < 0.02


def test_fractional_wins_and_several_columns():
    values = np.tile([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0], [0.0, 0.0]], (300, 1))  # shares 0.375
    claims = [stats.Claim(0, "above", 0.3, 0.02), stats.Claim(1, "below", 0.45, 0.02)]
    test = stats.SequentialAssertion(claims, model="bernoulli")
    assert test.update(values) == "pass"
    assert test.update(values) == "pass" and test.games == 1200
    with pytest.raises(ValueError, match="2 columns"):
        stats.SequentialAssertion(claims).update(np.zeros(10))


def test_a_series_without_variation_decides_after_min_games():
    test = stats.SequentialAssertion(stats.within(0, 0.0, 0.01, 0.01), min_games=100)
    assert test.update(np.zeros(60)) is None  # too few games to trust a variance of 0
    assert test.update(np.zeros(60)) == "pass" and test.games == 120
    moved = stats.SequentialAssertion(stats.within(0, 0.0, 0.01, 0.01))
    assert moved.update(np.full(200, 0.02)) == "fail"
