"""Sequential probability ratio tests: decide a balance claim with as few games as the evidence
allows.

Wald's SPRT between H0: mean = mu0 and H1: mean = mu1 sums the log-likelihood ratio (LLR) of the
observations and stops as soon as it leaves ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``
(the bounds Fishtest uses): above the upper bound it accepts H1, below the lower one H0. Then
P(accept H1 | H0) <= alpha and P(accept H0 | H1) <= beta, approximately (Wald's bounds are
slightly conservative, more so when the LLR is only looked at after each batch of games).

Two models:

- ``bernoulli``: observations in [0, 1] (a win, or 1/k of a shared win), LLR
  ``s·log(p1/p0) + (n - s)·log((1 - p1)/(1 - p0))`` with s the sum of n observations (for
  fractional wins this is a quasi-likelihood; their variance is below p(1 - p), so the test errs
  on the safe side);
- ``normal``: any per-game number (game length, a score, a per-game paired difference), the
  generalised SPRT of Fishtest's normal approximation,
  ``LLR = n (mu1 - mu0)(2·mean - mu0 - mu1) / (2·var)`` with the sample variance.

A balance *claim* is one-sided, "the mean is above b" or "below b", with an indifference width
delta: the test is between the failing side ``b ∓ delta/2`` (H0) and the passing side
``b ± delta/2`` (H1), so alpha is the chance of passing a claim that is delta/2 wrong, and beta
that of failing one that holds with delta/2 to spare. "Within c ± t" is two one-sided claims
(above c - t, below c + t): it fails as soon as either fails and passes once both pass, so its
error rates are at most alpha and 2·beta. :class:`SequentialAssertion` holds any number of such
claims on the columns of a per-game series and is fed batch by batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

import numpy as np
from scipy import stats as sps

from balance.stats.paired import MeanInterval, Moments, mean_interval, merge_moments, moments
from balance.stats.winrates import wilson_interval

Model = Literal["bernoulli", "normal"]
Side = Literal["above", "below"]
_EPS = 1e-9  # keeps Bernoulli hypotheses inside (0, 1)
_VAR_FLOOR = 1e-12  # a series without variation (identical configs) decides at once


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """(lower, upper) LLR bounds: accept H0 at or below lower, H1 at or above upper."""
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise ValueError(
            f"alpha and beta must be in (0, 1) with alpha + beta < 1, got {alpha}, {beta}"
        )
    return float(np.log(beta / (1 - alpha))), float(np.log((1 - beta) / alpha))


def bernoulli_llr(
    successes: np.ndarray | float, n: np.ndarray | float, p0: float, p1: float
) -> np.ndarray:
    """LLR of H1: p = p1 against H0: p = p0 after ``successes`` in ``n`` trials (vectorised)."""
    p0 = float(np.clip(p0, _EPS, 1 - _EPS))
    p1 = float(np.clip(p1, _EPS, 1 - _EPS))
    s = np.asarray(successes, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    return s * np.log(p1 / p0) + (n - s) * np.log((1 - p1) / (1 - p0))


def normal_llr(
    n: np.ndarray | float, mean: np.ndarray | float, var: np.ndarray | float, mu0: float, mu1: float
) -> np.ndarray:
    """Generalised (normal-approximation) LLR of H1: mean = mu1 against H0: mean = mu0."""
    var = np.maximum(np.asarray(var, dtype=np.float64), _VAR_FLOOR)
    mean = np.asarray(mean, dtype=np.float64)
    return np.asarray(n, dtype=np.float64) * (mu1 - mu0) * (2 * mean - mu0 - mu1) / (2 * var)


def decide(llr: np.ndarray | float, lower: float, upper: float) -> np.ndarray:
    """+1 where H1 is accepted, -1 where H0 is, 0 where the test goes on (vectorised)."""
    llr = np.asarray(llr, dtype=np.float64)
    return np.where(llr >= upper, 1, np.where(llr <= lower, -1, 0))


def fixed_sample_size(
    mu0: float, mu1: float, alpha: float, beta: float, *, sd0: float, sd1: float | None = None
) -> int:
    """Games a fixed-size one-sided z-test needs for the same mu0, mu1, alpha and beta (for a
    Bernoulli share: sd = sqrt(p(1 - p)) under each hypothesis)."""
    sd1 = sd0 if sd1 is None else sd1
    za, zb = sps.norm.ppf(1 - alpha), sps.norm.ppf(1 - beta)
    return int(np.ceil(((za * sd0 + zb * sd1) / (mu1 - mu0)) ** 2))


class SPRT(NamedTuple):
    """One SPRT of H0: mean = mu0 against H1: mean = mu1."""

    mu0: float
    mu1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: Model = "normal"

    @property
    def bounds(self) -> tuple[float, float]:
        return sprt_bounds(self.alpha, self.beta)

    def llr(self, m: Moments) -> np.ndarray:
        """LLR after the observations summarised by ``m``."""
        if self.model == "bernoulli":
            return bernoulli_llr(m.mean * m.n, m.n, self.mu0, self.mu1)
        with np.errstate(divide="ignore", invalid="ignore"):
            var = np.where(m.n > 1, m.m2 / np.maximum(m.n - 1, 1), np.inf)
        return normal_llr(m.n, m.mean, var, self.mu0, self.mu1)

    def decide(self, m: Moments) -> np.ndarray:
        return decide(self.llr(m), *self.bounds)


class Claim(NamedTuple):
    """A claim: the mean of column ``column`` is above (or below) ``bound``; ``delta`` is the
    indifference width of its SPRT."""

    column: int
    side: Side
    bound: float
    delta: float

    def sprt(self, alpha: float, beta: float, model: Model) -> SPRT:
        half = self.delta / 2 if self.side == "above" else -self.delta / 2
        return SPRT(
            mu0=self.bound - half, mu1=self.bound + half, alpha=alpha, beta=beta, model=model
        )


def within(column: int, centre: float, tolerance: float, delta: float) -> list[Claim]:
    """The claim "centre ± tolerance" as two one-sided claims."""
    return [
        Claim(column, "above", centre - tolerance, delta),
        Claim(column, "below", centre + tolerance, delta),
    ]


Verdict = Literal["pass", "fail"]


class SequentialAssertion:
    """Claims on the columns of a per-game series, decided by one SPRT each, batch by batch.

    ``update(values)`` takes the next games (float[n] or float[n, k]) and returns the verdict:
    ``"fail"`` as soon as any claim's SPRT accepts its failing side, ``"pass"`` once every claim's
    accepts its passing side, None while undecided. Once decided, later updates change nothing:
    ``games`` and the estimate stay those of the decision. A ``normal`` test waits for
    ``min_games`` games before deciding, so that its variance estimate means something.
    """

    def __init__(
        self,
        claims: Sequence[Claim],
        *,
        alpha: float = 0.05,
        beta: float = 0.05,
        model: Model = "normal",
        min_games: int = 100,
    ) -> None:
        if not claims:
            raise ValueError("an assertion needs at least one claim")
        sprt_bounds(alpha, beta)  # validates
        self.claims = list(claims)
        self.columns = 1 + max(c.column for c in self.claims)
        self.tests = [c.sprt(alpha, beta, model) for c in self.claims]
        self.model: Model = model
        self.min_games = min_games if model == "normal" else 1
        self.decisions = np.zeros(len(self.claims), dtype=np.int64)  # +1 pass, -1 fail, 0 open
        self.claim_games = np.zeros(len(self.claims), dtype=np.int64)
        self.moments: Moments | None = None
        self.verdict: Verdict | None = None

    @property
    def games(self) -> int:
        return 0 if self.moments is None else int(self.moments.n.flat[0])

    def update(self, values: np.ndarray) -> Verdict | None:
        if self.verdict is not None:
            return self.verdict
        v = np.asarray(values, dtype=np.float64)
        v = v.reshape(len(v), -1)
        if v.shape[1] != self.columns:
            raise ValueError(f"expected {self.columns} columns of values, got {v.shape[1]}")
        self.moments = merge_moments(self.moments, moments(v))
        if self.games < self.min_games:
            return None
        for i, (claim, test) in enumerate(zip(self.claims, self.tests, strict=True)):
            if self.decisions[i]:
                continue
            m = Moments(*(np.asarray(a[claim.column]) for a in self.moments))
            self.decisions[i] = int(test.decide(m))
            if self.decisions[i]:
                self.claim_games[i] = self.games
        if (self.decisions < 0).any():
            self.verdict = "fail"
        elif (self.decisions > 0).all():
            self.verdict = "pass"
        return self.verdict

    def llr(self) -> np.ndarray:
        """Current LLR of every claim (against its bounds ``self.tests[i].bounds``)."""
        if self.moments is None:
            return np.zeros(len(self.claims))
        return np.array(
            [
                float(t.llr(Moments(*(np.asarray(a[c.column]) for a in self.moments))))
                for c, t in zip(self.claims, self.tests, strict=True)
            ]
        )

    def estimate(self, level: float = 0.95) -> MeanInterval:
        """Mean of each column with its interval: Wilson for ``bernoulli``, else a t-interval."""
        if self.moments is None:
            nan = np.full(self.columns, np.nan)
            return MeanInterval(nan, nan, nan, nan, nan, nan)
        ci = mean_interval(self.moments, level)
        if self.model == "bernoulli":
            lo, hi = wilson_interval(self.moments.mean, self.moments.n, level)
            ci = ci._replace(lo=np.asarray(lo), hi=np.asarray(hi))
        return ci
