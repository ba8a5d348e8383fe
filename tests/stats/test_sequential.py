"""SPRTs: bounds, error rates on synthetic streams, savings against a fixed-size test, the cap,
replicates and confidence sequences (the promises by simulation: test_sprt_promises.py)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from balance import stats
from balance.stats import sequential as seq

ALPHA = BETA = 0.05
P0, P1 = 0.45, 0.55  # H0 (the claim fails) and H1 (it holds)


def test_bounds_are_fishtests():
    lower, upper = stats.sprt_bounds(0.05, 0.1)
    assert lower == pytest.approx(np.log(0.1 / 0.95))
    assert upper == pytest.approx(np.log(0.9 / 0.05))
    with pytest.raises(ValueError):
        stats.sprt_bounds(0.6, 0.5)


def test_assertions_use_villes_bounds_with_beta_shared_among_claims():
    lower, upper = seq.ville_bounds(0.05, 0.1)
    assert (lower, upper) == (pytest.approx(np.log(0.1)), pytest.approx(np.log(20)))
    test = stats.SequentialAssertion(stats.within(0, 0.25, 0.02, 0.01), model="bernoulli")
    assert test.claim_beta == 0.025  # two claims
    # 90 % of each claim's beta for the lower bound, 10 % for the cap
    assert test.tests[0].bounds == pytest.approx(seq.ville_bounds(0.05, 0.9 * 0.025))


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
    test = stats.SequentialAssertion(
        [stats.Claim(0, "above", 80.0, 1.0)], alpha=ALPHA, beta=BETA, reps=reps
    )
    for _ in range(200):
        test.update(rng.normal(mu, 5.0, size=(reps, 20)))
        if (test.states != seq.OPEN).all():
            break
    return (test.states == seq.PASS).mean(), (test.states == seq.OPEN).mean()


def test_normal_sprt_error_rates_with_estimated_variance():
    reps = 2000
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


def test_the_cap_is_three_fixed_sample_sizes_or_what_truncation_needs():
    p0, p1 = 0.2625, 0.2575  # "below 0.26", delta 0.005
    fixed = stats.fixed_sample_size(
        p0, p1, 0.05, 0.025, sd0=np.sqrt(p0 * (1 - p0)), sd1=np.sqrt(p1 * (1 - p1))
    )
    cut = seq.truncation_games(p0, p1, 0.05, 0.0025, model="bernoulli")
    need = seq.required_games(p0, p1, 0.05, 0.025, model="bernoulli")
    assert need == max(int(np.ceil(3 * fixed)), cut) and need >= 3 * fixed
    # At that many games the LLR's sum under H1 is below the upper bound with chance 0.25 %.
    a, b = np.log(p1 / p0), np.log((1 - p1) / (1 - p0))
    mean, sd = need * (p1 * a + (1 - p1) * b), np.sqrt(need * p1 * (1 - p1)) * abs(a - b)
    assert float(sps.norm.cdf((np.log(20) - mean) / sd)) == pytest.approx(0.0025, rel=0.02)
    # normal: from the variance; the assertion's cap is its claims' largest
    test = stats.SequentialAssertion(stats.within(0, 80, 10, 1.0))
    assert test.required_games() == 0  # no variance yet
    test.update(np.random.default_rng(0).normal(81, 5, 200))
    assert test.required_games() >= 3 * stats.fixed_sample_size(90, 89, 0.05, 0.025, sd0=4.5)


def test_an_undecided_test_is_inconclusive_at_its_cap_and_then_frozen():
    test = stats.SequentialAssertion(
        [stats.Claim(0, "above", 0.5, 0.01)], model="bernoulli", max_games=1000
    )
    assert test.cap_too_small()  # 1,000 games cannot keep beta for delta 0.01
    half = np.tile([0.0, 1.0], 250)  # mean exactly on the bound
    assert test.update(half) is None and test.update(half) == "inconclusive"
    assert test.games == 1000 and test.update(np.ones(500)) == "inconclusive"
    assert test.games == 1000
    roomy = stats.SequentialAssertion(
        [stats.Claim(0, "above", 0.5, 0.01)], model="bernoulli", max_games=10**7
    )
    assert not roomy.cap_too_small()


def test_update_and_update_moments_agree_and_replicates_run_independently():
    rng = np.random.default_rng(3)
    x = (rng.random((5, 12, 400)) < 0.27).astype(np.float64)  # 5 replicates, 12 batches
    claims = stats.within(0, 0.25, 0.02, 0.01)
    many = stats.SequentialAssertion(claims, model="bernoulli", reps=5)
    by_moments = stats.SequentialAssertion(claims, model="bernoulli", reps=5)
    singles = [stats.SequentialAssertion(claims, model="bernoulli") for _ in range(5)]
    for j in range(12):
        many.update(x[:, j])
        by_moments.update_moments(stats.moments(x[:, j].T), games=400)
        for r, one in enumerate(singles):
            one.update(x[r, j])
    codes = {None: seq.OPEN, "pass": seq.PASS, "fail": seq.FAIL, "inconclusive": 2}
    assert list(many.states) == [codes[one.verdict] for one in singles]
    assert list(by_moments.states) == list(many.states)
    assert list(many.games) == [one.games for one in singles]
    np.testing.assert_allclose(many.llr(), [one.llr() for one in singles])
    est = many.estimate()
    np.testing.assert_allclose(est.lo[:, 0], [one.estimate().lo[0] for one in singles])
    assert many.in_zone().shape == (5, 2)
    with pytest.raises(AttributeError):
        _ = many.verdict


def test_the_beta_binomial_sequence_is_the_set_where_the_evidence_is_below_1_over_alpha():
    s = np.array([0.0, 3.0, 500.0, 4321.5, 20000.0])
    n = np.array([100.0, 100.0, 2000.0, 10000.0, 20000.0])
    lo, hi = seq.bernoulli_cs(s, n)
    grid = np.linspace(1e-6, 1 - 1e-6, 20001)
    for si, ni, a, b in zip(s, n, lo, hi, strict=True):
        inside = seq.bernoulli_log_evidence(si, ni, grid) < np.log(20)
        assert grid[inside].min() >= a - 1e-4 and grid[inside].max() <= b + 1e-4
        assert a <= si / ni <= b
    assert lo[0] == 0.0 and hi[-1] == 1.0  # no wins (all wins): the sequence reaches 0 (1)
    # wider than a fixed-n interval, narrower as games accumulate
    wilson_lo, wilson_hi = stats.wilson_interval(s[2] / n[2], n[2])
    assert lo[2] < wilson_lo and hi[2] > wilson_hi
    assert np.all(np.diff(seq.normal_cs_radius(np.array([200, 2000, 20000, 200000]), 1.0)) < 0)


def test_a_share_claim_beyond_0_or_1_is_decided_by_its_bound_alone():
    # "within 0.25 ± 0.5": "above -0.25" holds whatever the share; only "below 0.75" is tested.
    wide = stats.SequentialAssertion(stats.within(0, 0.25, 0.5, 0.01), model="bernoulli")
    assert wide.update(np.random.default_rng(1).random(2000) < 0.25) == "pass"
    assert np.isfinite(wide.required_games()) and wide.required_games() > 1
    never = stats.SequentialAssertion([stats.Claim(0, "above", 1.5, 0.01)], model="bernoulli")
    assert never.update(np.ones(10)) == "fail"
