"""Noisy root finding on common random numbers: where a knob brings a metric to its target.

**The problem.** f(x) is the mean of a per-game number (a win, a score, a game length) when one
knob of a config is set to x; a run only shows averages over games. We look for the x in
[lo, hi] at which f crosses the target T.

**The grid.** The search looks only at the values x_0 = lo < x_1 < ... < x_{N-1} = hi: every
integer of an integer knob (or every step-th), or the multiples of the tolerance of a real one.

**The method: bisection with confidence sequences** (test and bisect; cf. Waeber, Frazier and
Henderson, "Bisection search with noisy responses", SIAM J. Control Optim. 51, 2013). A point
the search looks at plays games 0, 1, 2, ... of the run's seed, batch by batch: the same games
at every point (common random numbers), so that the curve seen through them is smooth and
neighbouring points are compared on the same games. Each point keeps an anytime-valid
confidence sequence for f(x) (balance/stats/sequential.py: the beta-binomial mixture for values
in [0, 1], Robbins' normal mixture with the sample sd otherwise) and is *decided* as soon as its
sequence excludes T: the metric is below the target there, or above. A point is played until it
is decided or reaches its cap (then it is within the noise of the target at that many games).

1. The two ends are played first (up to a quarter of the budget each) and must be decided on
   opposite sides: else the target is not reached in the range, or an end cannot be told from
   it (:class:`NoCrossing` says which).
2. Locate: the bracket [L, R] is the pair of points decided on the two sides, nearest each
   other. Its midpoint is played next, up to the first cap (a sixth of the budget), and
   replaces L or R when decided, until a midpoint cannot be told from the target.
3. Refine: a weighted least-squares line through the bracket's points (on common games its
   slope is well determined) predicts, on each side of the crossing, the grid point nearest it
   that would be decided with the games it can get: its predicted distance from the target is
   at least its confidence sequence's radius plus the prediction's standard error. Both are
   played, a look at a time at the one with fewer games, and each that is decided becomes the
   new L or R. Caps double until the last stage, which shares every game left. Points far
   from the crossing decide in a few hundred games, so the games go where the side is still
   uncertain. The search stops when the bracket is one grid step (``resolution``), when
   nothing inside it can be decided with the games left (``noise``) or at the budget.
4. The interval is [x_L, x_R]. The estimate is where the line through the bracket's points
   meets T, kept inside the interval; on an integer knob the caller rounds it.

**What the interval means.** Every grid point's confidence sequence has level 1 - alpha/N
(alpha = 1 - level): a Bonferroni split over the whole grid, not only over the points looked
at, because which points are looked at depends on the same games. By Ville's inequality each
sequence covers f(x_k) at every number of games at once with probability at least
1 - alpha/N, so with probability at least 1 - alpha all of them do, whichever points the search
chose, however many games each got and whenever it stopped. Then every side it decided is
right, in particular f(x_L) < T < f(x_R) (or the reverse for a decreasing metric). So:

    With probability at least ``level`` over the games, the metric is on one side of the target
    at one end of the interval and on the other side at the other end: it crosses the target
    inside the interval (for an integer knob, between two consecutive values in it). If the
    metric is monotone in the knob over the range, that crossing is the only one: the value
    sought lies in the interval.

The probability is exact for values in [0, 1] (a win, 1/k of a shared win) and asymptotic for
other means (the normal mixture uses the sample sd). The split over N points makes the interval
conservative: its coverage is above ``level``, usually far above, because the confidence
sequences of neighbouring points on common games fail together, not one by one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from balance.stats.paired import Moments, merge_moments, moments
from balance.stats.sequential import (
    Model,
    bernoulli_cs,
    bernoulli_log_evidence,
    normal_cs_radius,
)

Evaluate = Callable[[int, int, int], np.ndarray]
# evaluate(k, first_game, n): the per-game values of games [first_game, first_game + n) at grid
# point k (float[n]; NaN for a game that does not count, e.g. a draw for a share of decided games)

MAX_GRID = 100_001  # grid points: a finer tolerance asks for more than games can tell apart
MIN_GAMES = 100  # a normal (sample sd) sequence decides nothing before this many games
GROWTH = 2  # each refinement's cap over the last one's
MARGIN = 1.0  # standard errors of the prediction added to a pick's distance from the target
_VAR_FLOOR = 1e-12


class NoCrossing(ValueError):
    """The target is not bracketed by the range: both ends lie on one side of it
    (``why == "same side"``), or an end cannot be told from it (``"undecided"``)."""

    def __init__(self, why: str, ends: tuple[RootPoint, RootPoint], target: float) -> None:
        self.why = why
        self.ends = ends
        self.target = target
        lo, hi = ends
        super().__init__(
            f"{why}: f({lo.x:g}) = {lo.mean:.6g} [{lo.lo:.6g}, {lo.hi:.6g}], "
            f"f({hi.x:g}) = {hi.mean:.6g} [{hi.lo:.6g}, {hi.hi:.6g}], target {target:g}"
        )


def grid(lo: float, hi: float, step: float, *, integer: bool) -> np.ndarray:
    """The values the search may look at: lo, lo + step, ... up to hi, and hi itself (ints for
    an integer knob; reals rounded to 12 significant digits so that 0.1 + 0.2 reads 0.3)."""
    if not hi > lo:
        raise ValueError(f"the range must have lo < hi, got {lo:g}..{hi:g}")
    if not step > 0:
        raise ValueError(f"the step must be > 0, got {step:g}")
    steps = int(np.floor((hi - lo) / step + 1e-9))
    if steps + 2 > MAX_GRID:
        raise ValueError(
            f"step {step:g} makes {steps + 1:,} values in {lo:g}..{hi:g}: at most {MAX_GRID:,}"
        )
    if integer:
        values = [int(lo) + i * int(step) for i in range(steps + 1)]
        if values[-1] != hi:
            values.append(int(hi))
        return np.array(values, dtype=np.int64)
    values = [float(f"{lo + i * step:.12g}") for i in range(steps + 1)]
    if hi - values[-1] > 1e-9 * step:
        values.append(float(hi))
    else:
        values[-1] = float(hi)
    return np.array(values, dtype=np.float64)


class RootPoint(NamedTuple):
    """One grid point the search looked at, as it stood when the search stopped."""

    x: float
    games: int  # games played at this point: games 0 .. games - 1 of the seed
    counted: int  # of them, the games that count (not NaN)
    mean: float
    lo: float  # its confidence sequence (at the search's point level)
    hi: float
    side: int  # -1: decided below the target, +1: above, 0: undecided


class Root(NamedTuple):
    """Where the metric crosses the target, with the interval of the module docstring."""

    estimate: float  # the line through the bracket's points meets the target here
    lo: float  # the interval [lo, hi]: x_L and x_R
    hi: float
    level: float
    point_level: float  # each grid point's confidence sequence: 1 - (1 - level) / grid_size
    increasing: bool  # the metric is below the target at lo and above it at hi
    points: tuple[RootPoint, ...]  # in the order they were first played
    games: int  # games played over all points
    fresh_from: int  # the first game no point has played (for a fresh look at the answer)
    grid_size: int
    stop: str  # "resolution": the bracket is one grid step; else "budget"

    @property
    def bracket(self) -> tuple[RootPoint, ...]:
        """The points inside the interval (its ends and the undecided points between them)."""
        return tuple(p for p in self.points if self.lo <= p.x <= self.hi)


class _Point:
    """The running state of one grid point."""

    __slots__ = ("games", "k", "m", "side")

    def __init__(self, k: int) -> None:
        self.k = k
        self.games = 0
        self.m: Moments | None = None
        self.side = 0

    @property
    def counted(self) -> int:
        return 0 if self.m is None else int(self.m.n[0])

    @property
    def mean(self) -> float:
        return float("nan") if not self.counted else float(self.m.mean[0])

    def variance(self) -> float:
        if self.counted < 2:
            return float("nan")
        return float(self.m.m2[0] / (self.m.n[0] - 1))


class RootSearch:
    """The search of the module docstring over ``values`` (from :func:`grid`).

    ``evaluate(k, first_game, n)`` plays games at grid point k (see ``Evaluate``); ``budget``
    bounds the games played over all points; ``model`` picks the confidence sequence
    (``bernoulli`` for values in [0, 1]); ``batch`` is the first look's games at a point (later
    looks add a quarter of the games played so far, so looks are few); ``cap`` is a point's first
    cap (default: a sixth of the budget), doubled at each refinement.
    """

    def __init__(
        self,
        values: np.ndarray,
        target: float,
        evaluate: Evaluate,
        *,
        budget: int,
        model: Model = "normal",
        level: float = 0.95,
        batch: int = 500,
        cap: int | None = None,
        min_games: int = MIN_GAMES,
    ) -> None:
        if not 0 < level < 1:
            raise ValueError(f"level must be in (0, 1), got {level}")
        if len(values) < 2:
            raise ValueError("a search needs at least two grid points")
        if budget < 2 * batch:
            raise ValueError(f"a budget of {budget:,} games is less than two looks of {batch:,}")
        self.values = np.asarray(values)
        self.target = float(target)
        self.evaluate = evaluate
        self.budget = int(budget)
        self.model: Model = model
        self.level = level
        self.point_level = 1 - (1 - level) / len(values)
        self.batch = int(batch)
        self.cap = max(self.batch, int(cap if cap is not None else self.budget // 6))
        self.cs_games = float(self.cap)  # the sequences are tightest near a point's cap
        self.min_games = min_games if model == "normal" else 1
        self.spent = 0
        self.points: dict[int, _Point] = {}
        self.progress: Callable[[int, int], None] | None = None
        self._radii: dict[object, float] = {}

    # -- one point

    def _bounds(self, m: Moments) -> tuple[float, float]:
        n = float(m.n[0])
        if n <= 0:
            return -np.inf, np.inf
        mean = float(m.mean[0])
        if self.model == "bernoulli":
            lo, hi = bernoulli_cs(np.clip(mean, 0, 1) * n, n, self.point_level, self.cs_games)
            return float(lo), float(hi)
        if n < 2:
            return -np.inf, np.inf
        sd = np.sqrt(max(float(m.m2[0]) / (n - 1), 0.0))
        r = float(normal_cs_radius(n, sd, self.point_level, self.cs_games))
        return mean - r, mean + r

    def _excludes_target(self, m: Moments) -> bool:
        """Whether the point's confidence sequence has left the target behind (for a share:
        the mixture's evidence against the target passed 1 / (1 - point level), which is the
        sequence's own definition, without finding its ends)."""
        n = float(m.n[0])
        if n <= 0:
            return False
        mean = float(m.mean[0])
        if self.model == "bernoulli":
            evidence = bernoulli_log_evidence(
                np.clip(mean, 0, 1) * n, n, self.target, self.point_level, self.cs_games
            )
            return bool(evidence >= -np.log(1 - self.point_level))
        lo, hi = self._bounds(m)
        return bool(hi < self.target or lo > self.target)

    def _look(self, p: _Point, n: int) -> None:
        values = np.asarray(self.evaluate(p.k, p.games, n), dtype=np.float64)
        if values.shape != (n,):
            raise ValueError(f"evaluate returned {values.shape} values for {n} games")
        p.m = merge_moments(p.m, moments(values[:, None]))
        p.games += n
        self.spent += n
        if p.counted >= self.min_games and self._excludes_target(p.m):
            p.side = -1 if p.mean < self.target else 1
        if self.progress is not None:
            self.progress(self.spent, self.budget)

    def _next_games(self, p: _Point, cap: int) -> int:
        n = max(self.batch, p.games // 4)
        return max(0, min(n, cap - p.games, self.budget - self.spent))

    def play(self, k: int, cap: int) -> _Point:
        """Play grid point k until it is decided, has ``cap`` games or the budget is spent."""
        p = self.points.setdefault(k, _Point(k))
        while p.side == 0 and (n := self._next_games(p, cap)) > 0:
            self._look(p, n)
        return p

    def play_many(self, caps: dict[int, int]) -> list[_Point]:
        """Play several grid points (k: its cap), a look at a time at the one with the fewest
        games, until each is decided or capped or the budget is spent: a point that decides
        early leaves its games to the others."""
        pts = [self.points.setdefault(k, _Point(k)) for k in caps]
        while True:
            open_ = [p for p in pts if p.side == 0 and self._next_games(p, caps[p.k]) > 0]
            if not open_:
                return pts
            p = min(open_, key=lambda q: q.games)
            self._look(p, self._next_games(p, caps[p.k]))

    # -- the search

    def run(self, progress: Callable[[int, int], None] | None = None) -> Root:
        """Search; ``progress(games spent, budget)`` after each look. Raises NoCrossing."""
        self.progress = progress
        last = len(self.values) - 1
        # The ends must be decided for there to be a search at all: up to a quarter each.
        ends_cap = max(self.cap, self.budget // 4)
        lo_end, hi_end = self.play_many({0: ends_cap, last: ends_cap})
        if lo_end.side == 0 or hi_end.side == 0:
            raise NoCrossing("undecided", (self._result(lo_end), self._result(hi_end)), self.target)
        if lo_end.side == hi_end.side:
            raise NoCrossing("same side", (self._result(lo_end), self._result(hi_end)), self.target)
        up = hi_end.side > 0
        left, right = 0, last  # the bracket: decided below / above the target (if increasing)
        stop = "resolution"

        def settle(p: _Point) -> None:
            nonlocal left, right
            if p.side != 0:
                if (p.side > 0) == up:
                    right = p.k
                else:
                    left = p.k

        # Locate: bisect at the first cap until a midpoint cannot be told from the target.
        while right - left >= 2 and self.spent < self.budget:
            p = self.play((left + right) // 2, self.cap)
            settle(p)
            if p.side == 0:
                break
        # Refine: with caps doubling, play on each side the point nearest the crossing that the
        # line through the bracket predicts will be decided with the games it can get.
        cap = self.cap
        while right - left >= 2:
            remaining = self.budget - self.spent
            if remaining < self.batch:
                stop = "budget"
                break
            cap *= GROWTH
            last_stage = remaining < 2 * (1 + GROWTH) * cap  # no games for a further stage
            per = remaining // 2 if last_stage else cap
            line = self._line(left, right, up)
            chosen = self._picks(left, right, up, line, per, last_stage, margin=True)
            if last_stage and len(chosen) < 2:
                # the games left all go to one side, or (without the margin) to the points
                # most likely to be decided
                for games, margin in (
                    (remaining, True),
                    (remaining // 2, False),
                    (remaining, False),
                ):
                    more = self._picks(left, right, up, line, games, True, margin=margin)
                    if len(more) > len(chosen) or (more and not chosen):
                        chosen = more
                        break
            if not chosen and not last_stage:
                continue  # nothing decidable at this cap: try the next one
            if not chosen:
                stop = "noise"  # nothing left inside can be decided with the games left
                break
            caps = {k: self.budget if last_stage else cap for k in chosen}
            for p in self.play_many(caps):
                settle(p)
        return self._root(left, right, up, stop)

    # -- the curve near the crossing

    def _line(self, left: int, right: int, up: bool) -> tuple[float, float, float]:
        """(x0, y0, slope) of the weighted least-squares line through the played points of the
        bracket; the chord between its ends when the fit slopes the wrong way."""
        inside = [p for p in self.points.values() if left <= p.k <= right and p.counted]
        x = np.array([float(self.values[p.k]) for p in inside])
        y = np.array([p.mean for p in inside])
        w = np.array([p.counted for p in inside]) / self._variances(inside)
        xm, ym = np.average(x, weights=w), np.average(y, weights=w)
        sxx = np.sum(w * (x - xm) ** 2)
        slope = np.sum(w * (x - xm) * (y - ym)) / sxx if sxx > 0 else np.nan
        if not (np.isfinite(slope) and slope != 0 and (slope > 0) == up):
            a, b = self.points[left], self.points[right]
            xa, xb = float(self.values[left]), float(self.values[right])
            slope = (b.mean - a.mean) / (xb - xa)
            if not (np.isfinite(slope) and slope != 0 and (slope > 0) == up):
                slope = (1.0 if up else -1.0) * abs(self.target - a.mean) / (xb - xa) or 1e-12
            xm, ym = xa, a.mean
        return float(xm), float(ym), float(slope)

    def _variances(self, pts: list[_Point]) -> np.ndarray:
        var = np.array([p.variance() for p in pts])
        if self.model == "bernoulli":
            y = np.clip(np.array([p.mean for p in pts]), 0, 1)
            var = np.where(np.isfinite(var), var, y * (1 - y))
        return np.maximum(np.nan_to_num(var, nan=_VAR_FLOOR), _VAR_FLOOR)

    def _sd(self) -> float:
        """The per-game sd near the crossing: of a share at the target, else pooled."""
        if self.model == "bernoulli":
            t = float(np.clip(self.target, 0.01, 0.99))
            return float(np.sqrt(t * (1 - t)))
        pts = [p for p in self.points.values() if p.counted > 1]
        n = np.array([p.counted - 1 for p in pts], dtype=np.float64)
        return float(np.sqrt(np.sum(n * self._variances(pts)) / np.sum(n)))

    def _radius(self, n: float) -> float:
        """Half-width of a point's confidence sequence after ``n`` games with a mean at the
        target."""
        key = (n, self._sd()) if self.model == "normal" else n
        if key not in self._radii:
            self._radii[key] = self._radius_now(n)
        return self._radii[key]

    def _radius_now(self, n: float) -> float:
        if self.model == "bernoulli":
            t = float(np.clip(self.target, 0, 1))
            lo, hi = bernoulli_cs(t * n, n, self.point_level, self.cs_games)
            return float(max(t - lo, hi - t))
        return float(normal_cs_radius(n, self._sd(), self.point_level, self.cs_games))

    def _picks(
        self,
        left: int,
        right: int,
        up: bool,
        line: tuple[float, float, float],
        per: int,
        last_stage: bool,
        *,
        margin: bool,
    ) -> list[int]:
        picks = [
            self._pick(side, left, right, up, line, per, last_stage, margin=margin)
            for side in (-1, 1)
        ]
        return [k for k in picks if k is not None]

    def _pick(
        self,
        side: int,
        left: int,
        right: int,
        up: bool,
        line: tuple[float, float, float],
        per: int,
        last_stage: bool,
        *,
        margin: bool = True,
    ) -> int | None:
        """On ``side`` (-1: towards ``left``, +1: towards ``right``) of the line's crossing, the
        grid point nearest the crossing whose predicted distance from the target is at least a
        confidence sequence's radius at the games it would get (``per`` more in the last stage,
        else up to ``per``), plus the prediction's standard error (so that it is decided about
        five times in six); None if no point is."""
        x0, y0, slope = line
        crossing = x0 + (self.target - y0) / slope
        ks = np.arange(left + 1, right)
        xs = self.values[ks].astype(np.float64)
        ks = ks[(xs < crossing) if side < 0 else (xs > crossing)]
        if not len(ks):
            return None
        known = max(p.counted for p in self.points.values() if left <= p.k <= right)
        sd = self._sd()
        for k in ks[::side]:  # from the crossing outwards
            p = self.points.get(int(k))
            have = 0 if p is None else p.counted
            if p is not None and p.side != 0:
                continue
            n = (have + per) if last_stage else max(per, have)
            if have:  # its own mean, whose later games are the only unknown
                predicted = p.mean
                se = sd * np.sqrt(max(1 / have - 1 / n, 0.0))
            else:  # the line's, as uncertain as the level of the best-known point
                predicted = y0 + slope * (float(self.values[k]) - x0)
                se = sd / np.sqrt(min(known, n))
            need = self._radius(n) + (MARGIN * se if margin else 0.0)
            if abs(predicted - self.target) >= need:
                return int(k)
        return None

    def _root(self, left: int, right: int, up: bool, stop: str) -> Root:
        return Root(
            estimate=self._estimate(left, right, up),
            lo=self._x(left),
            hi=self._x(right),
            level=self.level,
            point_level=self.point_level,
            increasing=up,
            points=tuple(self._result(p) for p in self.points.values()),
            games=self.spent,
            fresh_from=max(p.games for p in self.points.values()),
            grid_size=len(self.values),
            stop=stop if right - left > 1 else "resolution",
        )

    def _x(self, k: int) -> float:
        v = self.values[k]
        return int(v) if np.issubdtype(self.values.dtype, np.integer) else float(v)

    def _estimate(self, left: int, right: int, up: bool) -> float:
        """Where the line through the bracket's points meets the target, inside the bracket."""
        x0, y0, slope = self._line(left, right, up)
        lo, hi = float(self.values[left]), float(self.values[right])
        return float(np.clip(x0 + (self.target - y0) / slope, lo, hi))

    def _result(self, p: _Point) -> RootPoint:
        cs = self._bounds(p.m) if p.m is not None else (np.nan, np.nan)
        return RootPoint(
            x=self._x(p.k),
            games=p.games,
            counted=p.counted,
            mean=p.mean,
            lo=float(cs[0]),
            hi=float(cs[1]),
            side=p.side,
        )


def find_root(
    values: np.ndarray,
    target: float,
    evaluate: Evaluate,
    *,
    budget: int,
    model: Model = "normal",
    level: float = 0.95,
    batch: int = 500,
    cap: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Root:
    """Where the mean of ``evaluate``'s values crosses ``target`` over the grid ``values``
    (:class:`RootSearch`; the method and its interval: the module docstring)."""
    search = RootSearch(
        values, target, evaluate, budget=budget, model=model, level=level, batch=batch, cap=cap
    )
    return search.run(progress)
