"""The balance gate's promises, checked by simulation at small delta.

Synthetic Bernoulli and normal series go through the check machinery itself (an AssertionSpec made
into a SequentialAssertion by ``balance.experiments.check.assertion_test``, thousands of
replicates at once) at the boundaries the promises are about:

- P(pass | the assertion is off by delta/2) <= alpha;
- P(fail, or INCONCLUSIVE at the cap, | it holds with delta/2 to spare) <= beta, per assertion,
  also when every claim of a ``within`` or of a ``max_seat_shift`` sits at its boundary at once;
- the printed interval (a confidence sequence) covers the truth at every look at once.

Each measured rate must be within the stated one up to Monte Carlo error: the lower end of its
one-sided 99 % Clopper-Pearson interval must lie below the stated rate. Batches of 0/1 games and
of normal games are drawn as their sufficient statistics (a binomial count; a normal mean and a
chi-square sum of squares), which is exact and fast; ``update`` and ``update_moments`` agree
(tests/stats/test_sequential.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from balance import experiments as ex
from balance.experiments.check import assertion_test
from balance.stats import sequential as seq
from balance.stats.paired import Moments

ALPHA = BETA = 0.05


def upper_ok(events: int, reps: int, stated: float) -> bool:
    """Whether ``events`` in ``reps`` is consistent with a rate <= ``stated``: the lower end of
    the one-sided 99 % Clopper-Pearson interval lies below it."""
    if events == 0:
        return True
    return float(sps.beta.ppf(0.01, events, reps - events + 1)) < stated


def make(assertion: dict, reps: int, *, model: str, columns: int = 1, **spec: object):
    a = ex.AssertionSpec.model_validate(assertion)
    s = ex.Spec.model_validate(
        {"checks": [{"config": "x.yaml", "assertions": [assertion]}], **spec}
    )
    return assertion_test(a, s, columns=columns, model=model, reps=reps)


def run_bernoulli(test, p: float, batch: int, seed: int) -> np.ndarray:
    """Feed 0/1 games of mean p, ``batch`` per look, until every replicate stopped."""
    rng = np.random.default_rng(seed)
    reps, k = test.states.shape[0], test.columns
    full = np.full((reps, k), float(batch))
    while (test.states == seq.OPEN).any():
        s = rng.binomial(batch, p, size=(reps, k)).astype(np.float64)
        mean = s / batch
        test.update_moments(Moments(full, mean, s * (1 - mean)), games=batch)
    return test.states


def run_normal(test, mu: float, sd: float, batch: int, seed: int) -> np.ndarray:
    """Feed N(mu, sd) games, ``batch`` per look, until every replicate stopped."""
    rng = np.random.default_rng(seed)
    reps = test.states.shape[0]
    full = np.full((reps, 1), float(batch))
    while (test.states == seq.OPEN).any():
        mean = rng.normal(mu, sd / np.sqrt(batch), size=(reps, 1))
        m2 = sd**2 * rng.chisquare(batch - 1, size=(reps, 1))
        test.update_moments(Moments(full, mean, m2), games=batch)
    return test.states


def rates(states: np.ndarray) -> dict[str, int]:
    return {
        "pass": int((states == seq.PASS).sum()),
        "fail": int((states == seq.FAIL).sum()),
        "inconclusive": int((states == seq.INCONCLUSIVE).sum()),
    }


# Bernoulli: "seat 0 above 0.5" with delta 0.02 decides between 0.49 (fails) and 0.51 (passes);
# a fixed-size test would need 6,764 games.
ABOVE = {"metric": "win_share", "seat": 0, "above": 0.5, "delta": 0.02}
REPS = 6000
CAPS = {"sized": {}, "not binding": {"max_games": 10**9}}


@pytest.mark.parametrize("cap", CAPS, ids=CAPS.keys())
def test_a_bernoulli_claim_keeps_alpha_and_beta(cap):
    off = rates(run_bernoulli(make(ABOVE, REPS, model="bernoulli", **CAPS[cap]), 0.49, 200, 1))
    assert upper_ok(off["pass"], REPS, ALPHA), off
    holds = rates(run_bernoulli(make(ABOVE, REPS, model="bernoulli", **CAPS[cap]), 0.51, 200, 2))
    assert upper_ok(holds["fail"] + holds["inconclusive"], REPS, BETA), holds
    if cap == "not binding":
        assert off["inconclusive"] == holds["inconclusive"] == 0


def test_the_sized_cap_binds_in_the_indifference_zone_and_only_there():
    test = make(ABOVE, REPS, model="bernoulli")
    cap = int(test.required_games()[0])
    p0, p1 = 0.49, 0.51
    fixed = seq.fixed_sample_size(
        p0, p1, ALPHA, BETA, sd0=np.sqrt(p0 * (1 - p0)), sd1=np.sqrt(p1 * (1 - p1))
    )
    assert cap >= 3 * fixed
    states = run_bernoulli(test, 0.5, 200, 3)  # exactly on the bound: either verdict is fine
    n = rates(states)
    assert n["inconclusive"] > 0  # the cap binds here ...
    assert test.games.max() <= cap + 200  # ... and cuts every test off within a batch of it
    assert n["pass"] > REPS / 3 and n["fail"] > REPS / 3
    # The cap is what the claim needs: a smaller explicit one is flagged, a larger one is not.
    assert make(ABOVE, 1, model="bernoulli", max_games=cap // 3).cap_too_small().all()
    assert not make(ABOVE, 1, model="bernoulli", max_games=cap + 1).cap_too_small().any()


# "within 0.5 ± 0.01" with delta 0.02: at 0.5 both claims sit on their passing side at once (the
# worst case for beta, which each claim's beta/2 is for); at 0.52 the upper one is delta/2 off.
WITHIN = {"metric": "win_share", "seat": 0, "within": [0.5, 0.01], "delta": 0.02}


@pytest.mark.parametrize("cap", CAPS, ids=CAPS.keys())
def test_within_keeps_alpha_and_beta_with_both_claims_at_their_boundary(cap):
    holds = rates(run_bernoulli(make(WITHIN, REPS, model="bernoulli", **CAPS[cap]), 0.5, 200, 4))
    assert upper_ok(holds["fail"] + holds["inconclusive"], REPS, BETA), holds
    off = rates(run_bernoulli(make(WITHIN, REPS, model="bernoulli", **CAPS[cap]), 0.52, 200, 5))
    assert upper_ok(off["pass"], REPS, ALPHA), off


# Normal: "mean_turns above 80" with delta 0.25 and sd 5 (a fixed-size test: 4,330 games).
TURNS = {"metric": "mean_turns", "above": 80, "delta": 0.25}


@pytest.mark.parametrize("cap", CAPS, ids=CAPS.keys())
def test_a_normal_claim_keeps_alpha_and_beta(cap):
    reps = 4000
    off = rates(run_normal(make(TURNS, reps, model="normal", **CAPS[cap]), 79.875, 5.0, 100, 6))
    assert upper_ok(off["pass"], reps, ALPHA), off
    holds = rates(run_normal(make(TURNS, reps, model="normal", **CAPS[cap]), 80.125, 5.0, 100, 7))
    assert upper_ok(holds["fail"] + holds["inconclusive"], reps, BETA), holds


def _seat_shifts(rng, reps: int, games: int, q_b: np.ndarray, stay: float) -> np.ndarray:
    """Per game, every seat's win in B minus in A (float[reps, games, 4]): A's winner uniform,
    B's the same seat with chance ``stay`` (common random numbers), else drawn so that B's
    winner has the distribution ``q_b``."""
    q_move = (q_b - stay * 0.25) / (1 - stay)
    a = (rng.random((reps, games)) * 4).astype(np.int64)
    moved = np.minimum(np.searchsorted(np.cumsum(q_move), rng.random((reps, games))), 3)
    b = np.where(rng.random((reps, games)) < stay, a, moved)
    eye = np.eye(4)
    return eye[b] - eye[a]


@pytest.mark.parametrize(
    ("q_b", "promise"),
    [
        # No seat moves: all 8 claims (above -0.02 and below 0.02, delta 0.04, per seat) sit on
        # their passing side at once, the worst case for beta/8.
        (np.full(4, 0.25), "beta"),
        # Seat 0 moves by 0.04 (its "below 0.02" claim is delta/2 off), the others make room.
        (np.array([0.29, 0.25 - 0.04 / 3, 0.25 - 0.04 / 3, 0.25 - 0.04 / 3]), "alpha"),
    ],
    ids=["holds", "off"],
)
def test_max_seat_shift_keeps_its_promises_across_dependent_seats(q_b, promise):
    reps, batch = 1000, 200
    rng = np.random.default_rng(8)
    shift = {"metric": "max_seat_shift", "below": 0.02, "delta": 0.04, "baseline": "b.yaml"}
    test = make(shift, reps, model="normal", columns=4)
    while (test.states == seq.OPEN).any():
        test.update(_seat_shifts(rng, reps, batch, q_b, stay=0.5))
    n = rates(test.states)
    if promise == "beta":
        assert upper_ok(n["fail"] + n["inconclusive"], reps, BETA), n
    else:
        assert upper_ok(n["pass"], reps, ALPHA), n
    assert len(test.claims) == 8 and test.claim_beta == pytest.approx(BETA / 8)


# ------------------------------------------------------------------------ confidence sequences


def _looks(reps: int, looks: int, batch: int, draw, seed: int):
    """Cumulative (sum, sum of squares, n) of ``reps`` series at each of ``looks`` looks."""
    rng = np.random.default_rng(seed)
    s, q = draw(rng, (looks, reps), batch)
    n = batch * np.arange(1, looks + 1, dtype=np.float64)[:, None]
    return np.cumsum(s, axis=0), np.cumsum(q, axis=0), n


def _bernoulli_draw(p: float):
    def draw(rng, shape, batch):
        s = rng.binomial(batch, p, size=shape).astype(np.float64)
        return s, s  # 0/1 games: the sum of squares is the sum

    return draw


def _shared_draw(rng, shape, batch):
    """Wins of a seat that shares some wins: 0, 1/2 or 1 with chances 0.6, 0.2, 0.2 (mean 0.3)."""
    counts = rng.multinomial(batch, [0.6, 0.2, 0.2], size=shape)
    return counts[..., 1] * 0.5 + counts[..., 2], counts[..., 1] * 0.25 + counts[..., 2]


@pytest.mark.parametrize(
    ("draw", "mean"),
    [(_bernoulli_draw(0.3), 0.3), (_bernoulli_draw(0.03), 0.03), (_shared_draw, 0.3)],
    ids=["p=0.3", "p=0.03", "shared wins"],
)
def test_the_beta_binomial_confidence_sequence_covers_at_every_look_at_once(draw, mean):
    reps, looks, batch = 3000, 400, 50  # looks every 50 games up to 20,000
    s, _, n = _looks(reps, looks, batch, draw, seed=9)
    evidence = seq.bernoulli_log_evidence(s, n, mean, 0.95)
    missed = int((evidence >= np.log(20)).any(axis=0).sum())  # excluded at some look
    assert upper_ok(missed, reps, 0.05), missed / reps
    # A fixed-n 95 % interval looked at as often misses far more often: optional stopping.
    ci = sps.norm.ppf(0.975) * np.sqrt(mean * (1 - mean) / n)
    naive = int((np.abs(s / n - mean) > ci).any(axis=0).sum())
    assert not upper_ok(naive, reps, 0.05)


def test_the_normal_mixture_confidence_sequence_covers_at_every_look_at_once():
    reps, looks, batch, mu, sd = 3000, 400, 50, 80.0, 5.0

    def draw(rng, shape, b):  # a batch of N(mu, sd) games by its sufficient statistics
        mean = rng.normal(mu, sd / np.sqrt(b), size=shape)
        return b * mean, sd**2 * rng.chisquare(b - 1, size=shape) + b * mean**2

    s, q, n = _looks(reps, looks, batch, draw, seed=10)
    mean = s / n
    sample_sd = np.sqrt((q - n * mean**2) / (n - 1))
    radius = seq.normal_cs_radius(n, sample_sd, 0.95)
    usable = n[:, 0] >= 100  # the normal tests decide after 100 games
    missed = int((np.abs(mean - mu) > radius)[usable].any(axis=0).sum())
    assert upper_ok(missed, reps, 0.05), missed / reps
    naive = sps.norm.ppf(0.975) * sample_sd / np.sqrt(n)  # a fixed-n interval: not time-uniform
    assert not upper_ok(int((np.abs(mean - mu) > naive)[usable].any(axis=0).sum()), reps, 0.05)


def test_the_printed_interval_covers_the_truth_when_the_test_stops():
    """The interval shown at the SPRT's data-dependent stopping time, from ``estimate``."""
    reps, p = 6000, 0.51
    test = make(ABOVE, reps, model="bernoulli")
    run_bernoulli(test, p, 200, 11)
    est = test.estimate()
    missed = int(((est.lo[:, 0] > p) | (est.hi[:, 0] < p)).sum())
    assert upper_ok(missed, reps, 0.05), missed / reps
    t = make(TURNS, reps, model="normal")
    run_normal(t, 80.125, 5.0, 100, 12)
    est = t.estimate()
    missed = int(((est.lo[:, 0] > 80.125) | (est.hi[:, 0] < 80.125)).sum())
    assert upper_ok(missed, reps, 0.05), missed / reps
