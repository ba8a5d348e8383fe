"""Sequential tests of balance claims: decide with as few games as the evidence allows, and keep
the error rates that are promised.

**One claim** is one-sided, "the mean is above b" (or "below b"), with an indifference width
delta: a sequential probability ratio test (SPRT) between the failing side H0: mean = b ∓ delta/2
and the passing side H1: mean = b ± delta/2. It sums the log-likelihood ratio (LLR) of the games
and stops when it leaves ``(log beta, log(1/alpha))``: above, the claim passes; below, it fails.

These are Ville's bounds, a little wider than Wald's ``(log(beta/(1-alpha)),
log((1-beta)/alpha))`` (Fishtest's, :func:`sprt_bounds`): the likelihood ratio is a
(super)martingale under H0, and its inverse under H1, so by Ville's inequality
P(pass | H0) <= alpha and P(fail before the cap | H1) <= beta hold exactly, however often the LLR
is looked at and whenever the test is cut off; beyond delta/2 on either side the rates only fall.

Two likelihoods:

- ``bernoulli``: observations in [0, 1] (a win, or 1/k of a shared win), LLR
  ``s·log(p1/p0) + (n - s)·log((1 - p1)/(1 - p0))`` with s the sum of n observations. For
  fractional wins it is a quasi-likelihood, and still a supermartingale (x -> c^x is convex, so
  E[c^X] <= 1 - m + m·c for X in [0, 1] of mean m): the bounds above hold as they are;
- ``normal``: any per-game number (game length, a score, a per-game paired difference), the
  generalised SPRT of Fishtest's normal approximation,
  ``LLR = n (mu1 - mu0)(2·mean - mu0 - mu1) / (2·var)`` with the sample variance: its error rates
  hold approximately (central limit theorem), after ``min_games`` games.

**The cap.** A test that is cut off undecided is INCONCLUSIVE, and that counts as a failure:
cutting it off can only lower P(pass | H0), but it adds to P(fail | H1). So each claim spends
90 % of its beta on the SPRT's lower bound and keeps 10 % for the cap, and the cap is sized to
fit: at least ``CAP_FACTOR`` (3) × the games a fixed-size one-sided z-test needs for the same
alpha, beta, delta and variance (:func:`fixed_sample_size`; for a Bernoulli share the variance is
p(1 - p) at each hypothesis, for a normal series the sample variance), and at least the games
after which P(LLR < log(1/alpha) | H1) <= 10 % of beta (:func:`truncation_games`, normal
approximation of the LLR's sum). An undecided test at that cap has its LLR below the upper bound,
so P(INCONCLUSIVE | H1) <= 0.1·beta. :func:`required_games` is that cap; a smaller explicit cap
(``max_games``) breaks the beta promise, and the caller should say so.

**An assertion of k claims** (``within`` c ± t is two, "above c - t" and "below c + t"; a bound
on every seat's shift is two per seat) passes when all its claims pass and fails as soon as one
fails. If the assertion is wrong, one of its claims is wrong, and the assertion passes only if
that claim passes: P(pass | off by delta/2) <= alpha with alpha per claim (an intersection-union
test: no correction needed). If the assertion holds, it fails when any claim fails, so each claim
gets beta/k (Bonferroni): P(fail | holds with delta/2 to spare) <= beta, whatever the dependence
between the claims (the seats of one game are dependent). Both promises are per assertion; a gate
of m assertions that all hold with delta/2 to spare may raise a false alarm with chance up to m·beta.

**The interval** printed when a test stops is a confidence sequence: it covers the true mean at
every number of games at once with probability >= level, so stopping when the SPRT decides does
not spoil it (a fixed-n interval would be too narrow at a stopping time chosen by the data):

- ``bernoulli``: the conjugate-mixture (beta-binomial) confidence sequence. For each candidate
  mean m the mixture, over p ~ Beta(m·r, (1 - m)·r), of the likelihood ratio of p against m is a
  nonnegative supermartingale under m (for any observations in [0, 1], as above)::

      log E_n(m) = betaln(m·r + s, (1 - m)·r + n - s) - betaln(m·r, (1 - m)·r)
                   - s·log(m) - (n - s)·log(1 - m)

  and by Ville's inequality {m : E_n(m) < 1/(1 - level)} is a confidence sequence, valid
  without approximation; its end points are found by bisection on each side of s/n;
- ``normal``: Robbins' normal-mixture boundary with the sample standard deviation (the asymptotic
  confidence sequence of Waudby-Smith et al., "Time-uniform central limit theory", 2024)::

      mean ± sd·sqrt(2·(n·rho² + 1) / (n²·rho²) · log(sqrt(n·rho² + 1) / (1 - level)))

  exact for normal observations of known sd, asymptotically valid otherwise.

Both are tightest around ``cs_games`` games (default 10,000): rho² = (-2 log a + log(1 - 2 log a))
/ cs_games with a = 1 - level, and r = 1/rho² - 1 (the same mixing width in standardised units).

A Bernoulli claim about a share beyond [0, 1] ("above -0.25", which a ``within`` of a wide
tolerance makes) is decided by its bound alone, at the first look: a share is never below 0 nor
above 1.

:class:`SequentialAssertion` holds the claims of one assertion on the columns of a per-game
series and is fed batch by batch; with ``reps`` it runs that many independent copies at once
(arrays with a leading axis), which is how the promises are checked by simulation.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import special as spspecial
from scipy import stats as sps

from balance.stats.paired import MeanInterval, Moments, mean_interval, merge_moments, moments

Model = Literal["bernoulli", "normal"]
Side = Literal["above", "below"]
_EPS = 1e-9  # keeps Bernoulli hypotheses inside (0, 1)
_VAR_FLOOR = 1e-12  # a series without variation (identical configs) decides at once
CAP_FACTOR = 3.0  # the cap is at least this many times the fixed-sample size
TRUNCATION_SHARE = 0.1  # share of each claim's beta kept for the cap
CS_GAMES = 10_000  # games around which the confidence sequence is tightest
MAX_CAP = 1e12  # the largest cap computed: beyond any run (days of CPU)

# Codes of SequentialAssertion.states.
OPEN, PASS, FAIL, INCONCLUSIVE = 0, 1, -1, 2
_VERDICT = {PASS: "pass", FAIL: "fail", INCONCLUSIVE: "inconclusive"}


def _check_rates(alpha: float, beta: float) -> None:
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise ValueError(
            f"alpha and beta must be in (0, 1) with alpha + beta < 1, got {alpha}, {beta}"
        )


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (Fishtest's) (lower, upper) LLR bounds, ``log(beta/(1-alpha))`` and
    ``log((1-beta)/alpha)``: error rates alpha and beta only approximately."""
    _check_rates(alpha, beta)
    return float(np.log(beta / (1 - alpha))), float(np.log((1 - beta) / alpha))


def ville_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Ville's (lower, upper) LLR bounds, ``log(beta)`` and ``log(1/alpha)``: accept H0 at or
    below lower, H1 at or above upper, with P(H1 | H0) <= alpha and P(H0 | H1) <= beta exactly
    for a likelihood ratio, at any looks and any cut-off."""
    _check_rates(alpha, beta)
    return float(np.log(beta)), float(-np.log(alpha))


def bernoulli_llr(
    successes: np.ndarray | float, n: np.ndarray | float, p0: float, p1: float
) -> np.ndarray:
    """LLR of H1: p = p1 against H0: p = p0 after ``successes`` in ``n`` trials (vectorised)."""
    p0, p1 = _clip(p0), _clip(p1)
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


@functools.lru_cache(maxsize=256)
def _z(tail: float) -> float:
    """The standard normal quantile with ``tail`` above it."""
    return float(sps.norm.isf(tail))


def _clip(p: float) -> float:
    return float(np.clip(p, _EPS, 1 - _EPS))


def fixed_sample_size(
    mu0: float, mu1: float, alpha: float, beta: float, *, sd0: float, sd1: float | None = None
) -> int:
    """Games a fixed-size one-sided z-test needs for the same mu0, mu1, alpha and beta (for a
    Bernoulli share: sd = sqrt(p(1 - p)) under each hypothesis)."""
    return int(np.ceil(_fixed_games(mu0, mu1, alpha, beta, sd0, sd0 if sd1 is None else sd1)))


def _fixed_games(
    mu0: float, mu1: float, alpha: float, beta: float, sd0: ArrayLike, sd1: ArrayLike
) -> np.ndarray:
    za, zb = _z(alpha), _z(beta)
    return ((za * np.asarray(sd0) + zb * np.asarray(sd1)) / (mu1 - mu0)) ** 2


def _hypothesis_vars(
    mu0: float, mu1: float, model: Model, var: ArrayLike | None
) -> tuple[ArrayLike, ArrayLike]:
    if model == "bernoulli":
        p0, p1 = _clip(mu0), _clip(mu1)
        return p0 * (1 - p0), p1 * (1 - p1)
    v = np.maximum(np.asarray(var, dtype=np.float64), _VAR_FLOOR)
    return v, v


def _truncation_games(
    mu0: float, mu1: float, alpha: float, leak: float, model: Model, var: ArrayLike | None
) -> np.ndarray:
    if model == "bernoulli":
        p0, p1 = _clip(mu0), _clip(mu1)
        a, b = np.log(p1 / p0), np.log((1 - p1) / (1 - p0))
        step_mean = p1 * a + (1 - p1) * b  # KL(p1 || p0)
        step_sd = np.sqrt(p1 * (1 - p1)) * abs(a - b)
    else:
        v = np.maximum(np.asarray(var, dtype=np.float64), _VAR_FLOOR)
        step_mean = (mu1 - mu0) ** 2 / (2 * v)
        step_sd = abs(mu1 - mu0) / np.sqrt(v)
    z, upper = _z(leak), -np.log(alpha)
    # n·mean - z·sqrt(n)·sd >= upper, a quadratic in sqrt(n)
    root = (z * step_sd + np.sqrt((z * step_sd) ** 2 + 4 * step_mean * upper)) / (2 * step_mean)
    return root**2


def truncation_games(
    mu0: float, mu1: float, alpha: float, leak: float, *, model: Model, var: float | None = None
) -> int:
    """Games n after which P(LLR_n < log(1/alpha) | H1) <= ``leak`` (normal approximation of the
    LLR's sum): a test still undecided at n has its LLR below the upper bound, so at H1 it ends
    INCONCLUSIVE with chance <= leak. ``var``: the per-game variance (``normal`` only)."""
    return int(np.ceil(_truncation_games(mu0, mu1, alpha, leak, model, var)))


def _required_games(
    mu0: float, mu1: float, alpha: float, beta: float, model: Model, var: ArrayLike | None
) -> np.ndarray:
    with np.errstate(all="ignore"):  # extreme bounds: inf and 0 are handled below
        v0, v1 = _hypothesis_vars(mu0, mu1, model, var)
        fixed = _fixed_games(mu0, mu1, alpha, beta, np.sqrt(v0), np.sqrt(v1))
        cut = _truncation_games(mu0, mu1, alpha, TRUNCATION_SHARE * beta, model, var)
        need = np.ceil(np.maximum(CAP_FACTOR * fixed, cut))
    # nan: a step of infinite evidence (one game decides); beyond MAX_CAP: as good as unbounded
    return np.clip(np.nan_to_num(need, nan=1.0), 1.0, MAX_CAP)


def required_games(
    mu0: float, mu1: float, alpha: float, beta: float, *, model: Model, var: float | None = None
) -> int:
    """The cap a claim of error rates alpha and beta needs: the larger of ``CAP_FACTOR`` × the
    fixed-sample size and :func:`truncation_games` with 10 % of beta."""
    return int(_required_games(mu0, mu1, alpha, beta, model, var))


class SPRT(NamedTuple):
    """One SPRT of H0: mean = mu0 against H1: mean = mu1, with Ville's bounds for ``alpha`` and
    ``beta`` (:func:`ville_bounds`)."""

    mu0: float
    mu1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: Model = "normal"

    @property
    def bounds(self) -> tuple[float, float]:
        return ville_bounds(self.alpha, self.beta)

    def llr(self, m: Moments) -> np.ndarray:
        """LLR after the observations summarised by ``m`` (arrays of any one shape)."""
        if self.model == "bernoulli":
            return bernoulli_llr(m.mean * m.n, m.n, self.mu0, self.mu1)
        return normal_llr(m.n, m.mean, _sample_var(m), self.mu0, self.mu1)

    def decide(self, m: Moments) -> np.ndarray:
        return decide(self.llr(m), *self.bounds)


def _sample_var(m: Moments) -> np.ndarray:
    n = np.asarray(m.n, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 1, m.m2 / np.maximum(n - 1, 1), np.inf)


class Claim(NamedTuple):
    """A claim: the mean of column ``column`` is above (or below) ``bound``; ``delta`` is the
    indifference width of its SPRT."""

    column: int
    side: Side
    bound: float
    delta: float

    @property
    def hypotheses(self) -> tuple[float, float]:
        """(mu0, mu1): the failing and the passing side, delta/2 either side of the bound."""
        half = self.delta / 2 if self.side == "above" else -self.delta / 2
        return self.bound - half, self.bound + half

    def sprt(self, alpha: float, beta: float, model: Model) -> SPRT:
        mu0, mu1 = self.hypotheses
        return SPRT(mu0=mu0, mu1=mu1, alpha=alpha, beta=beta, model=model)


def within(column: int, centre: float, tolerance: float, delta: float) -> list[Claim]:
    """The claim "centre ± tolerance" as two one-sided claims."""
    return [
        Claim(column, "above", centre - tolerance, delta),
        Claim(column, "below", centre + tolerance, delta),
    ]


# ------------------------------------------------------------------------ confidence sequences


def _rho2(level: float, cs_games: float) -> float:
    """The normal mixture's width that makes the boundary tightest at ``cs_games`` games."""
    la = -2 * np.log(1 - level)
    return float((la + np.log(la + 1)) / cs_games)


def normal_cs_radius(
    n: np.ndarray | float,
    sd: np.ndarray | float,
    level: float = 0.95,
    cs_games: float = CS_GAMES,
) -> np.ndarray:
    """Half-width of Robbins' normal-mixture confidence sequence for a mean after ``n``
    observations of standard deviation ``sd`` (the sample sd: asymptotically valid)."""
    n = np.asarray(n, dtype=np.float64)
    rho2 = _rho2(level, cs_games)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = n * rho2 + 1
        r = np.sqrt(2 * v / (n * n * rho2) * np.log(np.sqrt(v) / (1 - level)))
    return np.where(n > 0, np.asarray(sd, dtype=np.float64) * r, np.inf)


def _beta_r(level: float, cs_games: float) -> float:
    return 1 / _rho2(level, cs_games) - 1


def bernoulli_log_evidence(
    successes: np.ndarray | float,
    n: np.ndarray | float,
    m: np.ndarray | float,
    level: float = 0.95,
    cs_games: float = CS_GAMES,
) -> np.ndarray:
    """log E_n(m), the beta-binomial mixture's evidence against mean m (a supermartingale's log
    under m); m lies in the confidence sequence while it is below log(1/(1 - level))."""
    r = _beta_r(level, cs_games)
    s = np.asarray(successes, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    m = np.clip(np.asarray(m, dtype=np.float64), 1e-300, 1 - 1e-16)
    a, b = m * r, (1 - m) * r
    return (
        spspecial.betaln(a + s, b + n - s)
        - spspecial.betaln(a, b)
        - s * np.log(m)
        - (n - s) * np.log1p(-m)
    )


def bernoulli_cs(
    successes: np.ndarray | float,
    n: np.ndarray | float,
    level: float = 0.95,
    cs_games: float = CS_GAMES,
    *,
    steps: int = 60,
) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) of the beta-binomial confidence sequence for the mean of observations in [0, 1]
    after ``successes`` (their sum) in ``n`` (vectorised bisection on each side of s/n)."""
    s = np.asarray(successes, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    s, n = np.broadcast_arrays(s, n)
    threshold = -np.log(1 - level)
    tiny = 1e-12
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.clip(np.where(n > 0, s / n, 0.5), tiny, 1 - tiny)

    def f(m: np.ndarray) -> np.ndarray:
        return bernoulli_log_evidence(s, n, m, level, cs_games) - threshold

    ends = []
    for edge in (tiny, 1 - tiny):
        out, inn = np.full(p.shape, edge), p.copy()  # f(out) >= 0 > f(inn)
        whole = f(out) < 0  # the set reaches the edge: the end point is 0 (or 1)
        for _ in range(steps):
            mid = (out + inn) / 2
            bad = f(mid) >= 0
            out = np.where(bad, mid, out)
            inn = np.where(bad, inn, mid)
        ends.append(np.where(whole, round(edge), out))
    lo, hi = ends
    lo, hi = np.where(n > 0, lo, np.nan), np.where(n > 0, hi, np.nan)
    return lo, hi


# ------------------------------------------------------------------------ assertions


def _shaped(a: ArrayLike, shape: tuple[int, ...]) -> np.ndarray:
    """``a`` as float[reps, columns]: reshaped when it has that many entries, else broadcast."""
    a = np.asarray(a, dtype=np.float64)
    return a.reshape(shape) if a.size == np.prod(shape) else np.broadcast_to(a, shape)


Verdict = Literal["pass", "fail", "inconclusive"]


def _sure(claim: Claim, model: Model) -> int:
    """+1 (-1) when a Bernoulli claim holds (fails) whatever the share, else 0."""
    if model != "bernoulli":
        return 0
    p0, p1 = (_clip(p) for p in claim.hypotheses)
    if p0 != p1:
        return 0
    at_zero = p0 < 0.5  # both hypotheses at or below 0 (else at or above 1)
    return 1 if (claim.side == "above") == at_zero else -1


class SequentialAssertion:
    """The claims of one assertion on the columns of a per-game series, decided batch by batch.

    ``update(values)`` takes the next games (float[n] or float[n, k]; with ``reps``,
    float[reps, n] or float[reps, n, k]) and returns the verdict: ``"fail"`` as soon as any
    claim's SPRT accepts its failing side, ``"pass"`` once every claim's accepts its passing side,
    ``"inconclusive"`` when the cap is reached undecided, None while undecided. Once decided,
    later updates change nothing: ``games`` and the estimate stay those of the decision.

    Error budget (see the module): each claim's SPRT has ``alpha`` and 90 % of ``beta / k`` (k
    claims), the cap the other 10 %. The cap is ``max_games`` if given, else
    :meth:`required_games` (from the claims' hypotheses, or from the sample variance for a
    ``normal`` series, so it may move while the test runs). A ``normal`` test waits for
    ``min_games`` games before deciding, so that its variance estimate means something.
    ``level`` and ``cs_games`` set the confidence sequence of :meth:`estimate`.
    """

    def __init__(
        self,
        claims: Sequence[Claim],
        *,
        alpha: float = 0.05,
        beta: float = 0.05,
        model: Model = "normal",
        min_games: int = 100,
        max_games: int | None = None,
        level: float = 0.95,
        cs_games: float = CS_GAMES,
        reps: int | None = None,
    ) -> None:
        if not claims:
            raise ValueError("an assertion needs at least one claim")
        _check_rates(alpha, beta)
        if max_games is not None and max_games < 1:
            raise ValueError(f"max_games must be >= 1, got {max_games}")
        self.claims = list(claims)
        self.alpha, self.beta = alpha, beta
        self.claim_beta = beta / len(self.claims)
        self.columns = 1 + max(c.column for c in self.claims)
        sprt_beta = (1 - TRUNCATION_SHARE) * self.claim_beta
        self.tests = [c.sprt(alpha, sprt_beta, model) for c in self.claims]
        self.model: Model = model
        self.min_games = min_games if model == "normal" else 1
        self.max_games = max_games
        self.level, self.cs_games = level, cs_games
        self.reps = reps
        r, k, c = 1 if reps is None else reps, self.columns, len(self.claims)
        self._moments = Moments(np.zeros((r, k)), np.zeros((r, k)), np.zeros((r, k)))
        self._games = np.zeros(r, dtype=np.int64)
        self._states = np.zeros(r, dtype=np.int64)
        self._decisions = np.zeros((r, c), dtype=np.int64)  # +1 pass, -1 fail, 0 open
        self._claim_games = np.zeros((r, c), dtype=np.int64)
        # A Bernoulli claim about a share beyond [0, 1] (both hypotheses clipped to one edge)
        # is decided by the bound alone: a share is never below 0 nor above 1.
        self._sure = np.array([_sure(c, model) for c in self.claims], dtype=np.int64)
        self._fixed_cap = None
        if model == "bernoulli":
            self._fixed_cap = self._claims_required(None)

    # -- feeding

    def update(self, values: np.ndarray) -> Verdict | None:
        v = np.asarray(values, dtype=np.float64)
        if self.reps is None:
            v = v.reshape(len(v), 1, -1)
        else:
            if v.shape[0] != self.reps:
                raise ValueError(f"expected {self.reps} replicates, got {v.shape[0]}")
            v = np.moveaxis(v.reshape(self.reps, v.shape[1], -1), 1, 0)
        if v.shape[2] != self.columns:
            raise ValueError(f"expected {self.columns} columns of values, got {v.shape[2]}")
        return self.update_moments(moments(v), games=v.shape[0])

    def update_moments(self, m: Moments, games: int | np.ndarray | None = None) -> Verdict | None:
        """Like :meth:`update`, from the moments of the next games (arrays of shape [k], or
        [reps, k]) and their count (default: the largest column count)."""
        shape = self._moments.n.shape
        new = Moments(*(_shaped(a, shape) for a in m))
        count = new.n.max(axis=1) if games is None else np.broadcast_to(games, shape[:1])
        live = self._states == OPEN
        if live.any():
            merged = merge_moments(self._moments, new)
            keep = live[:, None]
            self._moments = Moments(
                *(np.where(keep, a, b) for a, b in zip(merged, self._moments, strict=True))
            )
            self._games = np.where(live, self._games + count.astype(np.int64), self._games)
            self._decide(live)
        return self.verdict if self.reps is None else None

    def _decide(self, live: np.ndarray) -> None:
        ready = live & (self._games >= self.min_games)
        if ready.any():
            for i, (claim, test) in enumerate(zip(self.claims, self.tests, strict=True)):
                todo = ready & (self._decisions[:, i] == 0)
                if not todo.any():
                    continue
                if self._sure[i]:
                    d = np.full(todo.shape, self._sure[i])
                else:
                    with np.errstate(over="ignore", invalid="ignore"):
                        d = test.decide(self._column(claim.column))
                new = todo & (d != 0)
                self._decisions[new, i] = d[new]
                self._claim_games[new, i] = self._games[new]
            failed = ready & (self._decisions < 0).any(axis=1)
            passed = ready & ~failed & (self._decisions > 0).all(axis=1)
            self._states[failed] = FAIL
            self._states[passed] = PASS
        capped = (self._states == OPEN) & (self._games >= np.maximum(self.cap_games(), 1))
        capped &= self._games >= self.min_games
        self._states[capped] = INCONCLUSIVE

    def _column(self, j: int) -> Moments:
        return Moments(*(a[:, j] for a in self._moments))

    # -- the cap

    def _claims_required(self, var_by_column: np.ndarray | None) -> np.ndarray:
        need = np.ones(self._games.shape if var_by_column is not None else ())
        for claim, sure in zip(self.claims, self._sure, strict=True):
            if sure:
                continue
            mu0, mu1 = claim.hypotheses
            var = None if var_by_column is None else var_by_column[:, claim.column]
            need = np.maximum(
                need, _required_games(mu0, mu1, self.alpha, self.claim_beta, self.model, var)
            )
        return need

    def _required(self) -> np.ndarray:
        """Per replicate, the cap the claims need (float; MAX_CAP before a variance is known)."""
        if self._fixed_cap is not None:
            return np.broadcast_to(self._fixed_cap, self._games.shape).astype(np.float64)
        var = _sample_var(self._moments)
        need = self._claims_required(np.where(np.isfinite(var), var, _VAR_FLOOR))
        known = (self._moments.n > 1).all(axis=1)
        return np.where(known, np.maximum(need, self.min_games), MAX_CAP)

    def cap_games(self) -> np.ndarray:
        """Per replicate, the games at which an undecided test becomes INCONCLUSIVE."""
        if self.max_games is not None:
            return np.full(self._games.shape, float(self.max_games))
        return self._required()

    def required_games(self) -> int | np.ndarray:
        """The cap the claims need to keep beta (:func:`required_games`, the largest over the
        claims; for a ``normal`` series from the sample variance so far, 0 before any)."""
        need = self._required()
        out = np.where(need < MAX_CAP, need, 0).astype(np.int64)
        return int(out[0]) if self.reps is None else out

    def cap_too_small(self) -> bool | np.ndarray:
        """Whether an explicit ``max_games`` is below :meth:`required_games`."""
        if self.max_games is None:
            out = np.zeros(self._games.shape, dtype=bool)
        else:
            out = self._required() > self.max_games
        return bool(out[0]) if self.reps is None else out

    # -- state

    def _one(self, a: np.ndarray) -> Any:
        return a[0] if self.reps is None else a

    @property
    def states(self) -> np.ndarray:
        """Per replicate: OPEN (0), PASS (1), FAIL (-1) or INCONCLUSIVE (2)."""
        return self._states

    @property
    def verdict(self) -> Verdict | None:
        if self.reps is not None:
            raise AttributeError("a replicated assertion has states, not one verdict")
        return _VERDICT.get(int(self._states[0]))

    @property
    def games(self) -> int | np.ndarray:
        return int(self._games[0]) if self.reps is None else self._games

    @property
    def decisions(self) -> np.ndarray:
        return self._one(self._decisions)

    @property
    def claim_games(self) -> np.ndarray:
        return self._one(self._claim_games)

    @property
    def moments(self) -> Moments:
        return Moments(*(self._one(a) for a in self._moments))

    def llr(self) -> np.ndarray:
        """Current LLR of every claim (against its bounds ``self.tests[i].bounds``)."""
        with np.errstate(over="ignore", invalid="ignore"):
            out = self._llrs()
        return self._one(np.where(self._moments.n[:, [c.column for c in self.claims]] > 0, out, 0))

    def _llrs(self) -> np.ndarray:
        return np.stack(
            [t.llr(self._column(c.column)) for c, t in zip(self.claims, self.tests, strict=True)],
            axis=-1,
        )

    def in_zone(self) -> np.ndarray:
        """Per claim: whether the estimate (now, or when the test stopped) lies in the claim's
        indifference zone, between its two hypotheses, where either verdict is allowed."""
        cols = [c.column for c in self.claims]
        mean = self._moments.mean[:, cols]
        lo = np.array([min(c.hypotheses) for c in self.claims])
        hi = np.array([max(c.hypotheses) for c in self.claims])
        seen = self._moments.n[:, cols] > 0
        return self._one(seen & (mean >= lo) & (mean <= hi))

    def estimate(self, level: float | None = None) -> MeanInterval:
        """Mean of each column with its confidence sequence at ``level`` (default the
        assertion's): beta-binomial for ``bernoulli``, normal mixture for ``normal``; ``sd``,
        ``se`` and ``p_value`` are the fixed-n ones of :func:`mean_interval`."""
        level = self.level if level is None else level
        m = self._moments
        with np.errstate(divide="ignore", invalid="ignore"):
            ci = mean_interval(m, level)
            if self.model == "bernoulli":
                lo, hi = bernoulli_cs(np.clip(m.mean, 0, 1) * m.n, m.n, level, self.cs_games)
            else:
                radius = normal_cs_radius(m.n, ci.sd, level, self.cs_games)
                radius = np.where(m.n > 1, radius, np.nan)
                lo, hi = m.mean - radius, m.mean + radius
        empty = m.n <= 0
        nan = np.full(m.n.shape, np.nan)
        parts = [np.where(empty, nan, x) for x in (ci.mean, ci.sd, ci.se, lo, hi, ci.p_value)]
        return MeanInterval(*(self._one(p) for p in parts))
