"""Skill depth: how much each step of a skill ladder wins (balance/experiments/ladder.py).

A step from rung ``Q`` to the rung above, ``R``, is measured on common random numbers: depth
point ``r`` puts ``R`` in seat ``r`` among ``Q`` (one point per seat, every point the same games
of the same seed), and the mirror of ``Q`` plays the same games with every seat ``Q``. For game
``g`` the stronger seat's win, averaged over the rotations, is ``w_g = mean_r W[g, r]`` (``W[g,
r]`` the win of seat ``r`` in depth point ``r``, as the dataset counts it: 1/k for a k-way
shared win) and its yardstick is the same seats played by ``Q``: ``m_g = mean_s M[g, s]``
(``M`` the mirror's wins). The step's **edge** is ``mean_g (w_g - m_g)`` with the t-interval
over games of ``w_g - m_g``: games are independent, a game's rotations and mirror share its
cards, so the game is the unit. In a symmetric game ``m_g`` is exactly 1/players (the wins of a
game add up to 1) and the edge is the share above fair; in a game of sides and roles (Raven
Manor, where a seat's chance depends on the role dealt) it is the share above what ``Q`` itself
wins in those seats.

**Simultaneous.** A ladder's steps are read together ("is it still a ladder up to the top?"),
so the intervals are Bonferroni-simultaneous over the steps (each at level ``1 - alpha /
steps``): all of them cover their true edges together with probability at least ``1 - alpha``,
and ``ladder`` (every step's lower bound above 0) is wrong with at most that chance when some
step wins nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from balance.stats.paired import mean_interval, moments

ALPHA = 0.05


class Step(NamedTuple):
    """One step of the ladder: ``upper`` in one seat among ``lower``."""

    lower: str
    upper: str
    games: int
    share: float  # the stronger seat's win share, rotations and games averaged
    yardstick: float  # the lower rung's share in the same seats on the same games
    edge: float  # share - yardstick
    lo: float  # simultaneous interval of the edge (level 1 - ALPHA / steps)
    hi: float
    p_value: float  # two-sided t-test of edge == 0 (unadjusted)


class Depth(NamedTuple):
    steps: list[Step]
    level: float  # each step's interval level: 1 - ALPHA / len(steps)
    ladder: bool  # every step's lower bound above 0: each rung beats the one below


def step_edge(mirror: np.ndarray, rotations: np.ndarray) -> tuple[float, float, np.ndarray]:
    """(share, yardstick, per-game edge) of one step: ``mirror`` float[n, P] the lower rung's
    wins with every seat its own; ``rotations`` float[n, P], column ``r`` the win of seat ``r``
    in the point that put the upper rung there."""
    mirror = np.asarray(mirror, dtype=np.float64)
    rotations = np.asarray(rotations, dtype=np.float64)
    if mirror.shape != rotations.shape or mirror.ndim != 2:
        raise ValueError(
            f"a step needs two [games, seats] arrays, got {mirror.shape} and {rotations.shape}"
        )
    w = rotations.mean(axis=1)
    m = mirror.mean(axis=1)
    return float(w.mean()), float(m.mean()), w - m


def depth(
    names: Sequence[str],
    mirrors: Sequence[np.ndarray],
    rotations: Sequence[np.ndarray],
    alpha: float = ALPHA,
) -> Depth:
    """The ladder's steps: ``names`` the rungs weakest first, ``mirrors[k]`` the wins of the
    mirror of rung ``k`` (float[n, P]), ``rotations[k]`` those of the step from rung ``k`` to
    ``k + 1`` (float[n, P], see :func:`step_edge`). Every array covers the same games."""
    steps_n = len(names) - 1
    if steps_n < 1 or len(rotations) != steps_n or len(mirrors) < steps_n:
        raise ValueError("a ladder of k rungs has k - 1 steps and a mirror below each")
    level = 1.0 - alpha / steps_n
    steps = []
    for k in range(steps_n):
        share, yard, edge = step_edge(mirrors[k], rotations[k])
        ci = mean_interval(moments(edge[:, None]), level)
        steps.append(
            Step(
                lower=names[k],
                upper=names[k + 1],
                games=len(edge),
                share=share,
                yardstick=yard,
                edge=float(ci.mean[0]),
                lo=float(ci.lo[0]),
                hi=float(ci.hi[0]),
                p_value=float(ci.p_value[0]),
            )
        )
    return Depth(steps, level, all(s.lo > 0 for s in steps))


# ===================================================================== luck against skill
#
# Two numbers say how much a game rewards skill and how much the deal decides:
#
# - **the top rung among the first** (CardStock's "order"): the strongest rung in one seat
#   among the weakest (random players, by default), its seat rotated, as a step of the ladder
#   (its edge over what the weakest rung wins in those seats, a 95 % interval over games);
# - **the deal's hold**: how often the same seats win a game whether every seat plays the
#   weakest rung or the strongest (the Jaccard overlap of the two games' winning seats, 1 for
#   the same winners, 0 for none in common; a shared win counts its part), against the overlap
#   of games paired at random (game g's winners under the weakest rung with game g + 1's under
#   the strongest): the chance level for these shares. Their difference, with the t-interval
#   over games of the per-game difference, is what the deal alone decides of who wins: 0 in a
#   game of pure skill, up to 1 - chance in a game the cards decide whatever anyone does.


class Luck(NamedTuple):
    bottom: str
    top: str
    step: Step  # the top rung in one seat among the bottom one (95 % interval)
    same: float  # winners' overlap of the same game under the two rungs
    chance: float  # the overlap of games paired at random
    hold: float  # same - chance
    lo: float  # 95 % interval of the hold
    hi: float


def _overlap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per game, the Jaccard overlap of two win vectors (float[G, P]); 1 when neither has a
    winner."""
    low, high = np.minimum(a, b).sum(axis=1), np.maximum(a, b).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(high > 0, low / high, 1.0)


def hold_values(bottom_mirror: np.ndarray, top_mirror: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per game, the winners' overlap of the same game under the two rungs and of the games
    paired at random (game g under the bottom rung, g + 1 under the top): the deal's hold is the
    mean of their difference."""
    a, b = np.asarray(bottom_mirror, np.float64), np.asarray(top_mirror, np.float64)
    same = _overlap(a, b)
    chance = _overlap(a, np.roll(b, -1, axis=0)) if len(b) > 1 else same
    return same, chance


def luck(
    bottom: str,
    top: str,
    bottom_mirror: np.ndarray,
    top_mirror: np.ndarray,
    rotations: np.ndarray,
    level: float = 0.95,
) -> Luck:
    """Luck against skill (above): the mirrors' wins float[G, P] of the two rungs, and the top
    rung's win in each seat it was rotated to among the bottom one (float[G, P])."""
    step = depth([bottom, top], [bottom_mirror], [rotations], alpha=1 - level).steps[0]
    same, chance = hold_values(bottom_mirror, top_mirror)
    ci = mean_interval(moments((same - chance)[:, None]), level)
    return Luck(
        bottom=bottom,
        top=top,
        step=step,
        same=float(same.mean()),
        chance=float(chance.mean()),
        hold=float(ci.mean[0]),
        lo=float(ci.lo[0]),
        hi=float(ci.hi[0]),
    )


# ===================================================================== findings across rungs
#
# A finding is one group of a verdict axis (balance/stats/axes.py) measured in every mirror of
# the ladder: a place in the turn order, a chair, a side, a role. In a mirror every seat plays
# the same rung, and every mirror plays the same games (common random numbers), so each
# finding is a per-game value at each rung (``finding_values``): the place's (chair's, role's)
# win minus the game's mean seat win, the deviation of balance/stats/axes.py game by game (its
# mean over games is that deviation exactly); a side's win (1/k of a shared one) minus its
# target or fair share (its seats' part of the table), or the side's raw share when the game
# deals sides and the config names no target (no reference: the value itself is the finding).
#
# **Across rungs** a finding is classified (``classify``) from two things:
#
# - its value at each rung, with an interval simultaneous over the axis' groups and the rungs
#   (Bonferroni, ``1 - alpha / (groups x rungs)``), so that "positive at one rung and negative
#   at another" is wrong with at most ``alpha`` per axis;
# - its trend: the least-squares slope on the rung's position (0 for the weakest), a linear
#   contrast of the rungs' values whose variance comes from the games (balance/stats/trend.py's
#   paired contrast: every rung played the same games), BH over every finding's trend (one
#   metric, win share: the project's one rule).
#
# The call, in this order:
#
# - ``flips``: significantly positive at one rung and significantly negative at another;
# - ``grows`` / ``shrinks``: a significant trend away from 0 / towards 0: away from the side of
#   0 the weakest rung is significantly on, or, when it is on neither, out of 0 onto the side
#   the strongest rung is significantly on (an edge that appears with skill); a significant
#   trend whose ends are on neither side is not determined. For a finding without a reference,
#   ``grows`` when it rises and ``shrinks`` when it falls;
# - ``holds``: no significant trend, the change the slope's interval allows from the weakest
#   rung to the strongest within ±tolerance, and the same judgement at every rung (within
#   ±tolerance at every rung, or significantly of one sign at every rung; a finding without a
#   reference needs only the first two);
# - ``not determined``: anything else (the games do not decide it).

CALLS = ("holds", "grows", "shrinks", "flips", "not determined")
Key = tuple[str, str]  # (axis, group)


class Finding(NamedTuple):
    axis: str  # order, seat, team, role
    group: str
    reference: bool  # a deviation from a reference (False: a dealt side's raw share)
    value: list[float]  # per rung (NaN: not seen at that rung)
    lo: list[float]  # simultaneous over the axis' groups and the rungs
    hi: list[float]
    games: list[int]
    slope: float  # per rung step
    slope_lo: float
    slope_hi: float
    p_value: float
    q_value: float
    call: str

    @property
    def sign(self) -> int:
        """+1 (-1) when a deviation from its reference is above (below) 0 at every rung by its
        simultaneous intervals, else 0 (also for a dealt side's raw share: no 0 to be above).
        A finding called *not determined* can still be signed so."""
        return one_sign(self.lo, self.hi) if self.reference else 0


def one_sign(lo: Sequence[float], hi: Sequence[float]) -> int:
    """+1 when every interval ``[lo, hi]`` is above 0, -1 when every one is below, else 0."""
    if all(x > 0 for x in lo):
        return 1
    if all(x < 0 for x in hi):
        return -1
    return 0


def finding_values(
    win: np.ndarray,
    order: np.ndarray,
    team: np.ndarray,
    role: np.ndarray | None,
    *,
    targets: dict[str, float] | None = None,
) -> dict[Key, tuple[np.ndarray, bool]]:
    """Per-game values of every finding of one mirror: ``win`` float[G, P] (as the dataset
    counts it), ``order`` int[G, P] (0 = first to play), ``team`` str[G, P], ``role`` str[G, P]
    or None. Returns {(axis, group): (float[G] with NaN where the group is absent, has a
    reference)}."""
    win = np.asarray(win, dtype=np.float64)
    games, players = win.shape
    mean = win.mean(axis=1)
    out: dict[Key, tuple[np.ndarray, bool]] = {}
    for j in range(players):
        out[("order", str(j + 1))] = ((win * (order == j)).sum(axis=1) - mean, True)
    for s in range(players):
        out[("seat", str(s + 1))] = (win[:, s] - mean, True)
    team = np.asarray(team).astype(str)
    fixed = bool((team == team[:1]).all()) if games else True
    names = sorted(set(team.ravel().tolist()))
    sizes = {t: int((team[0] == t).sum()) for t in names} if fixed else {}
    targets = targets or {}
    if len(names) > 1 and (not fixed or any(k > 1 for k in sizes.values()) or targets):
        for t in names:
            mine = team == t
            share = np.where(mine, win, 0.0).max(axis=1)
            share = np.where(mine.any(axis=1), share, np.nan)
            ref = targets.get(t, sizes[t] / players if fixed else None)
            out[("team", t)] = (share - ref, True) if ref is not None else (share, False)
    if role is not None:
        role = np.asarray(role).astype(str)
        for r in sorted(set(role.ravel().tolist()) - {"None", ""}):
            mine = role == r
            n = mine.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                v = np.where(n > 0, (win * mine).sum(axis=1) / n - mean, np.nan)
            out[("role", r)] = (v, True)
    return out


def classify(
    per_rung: Sequence[dict[Key, tuple[np.ndarray, bool]]],
    tolerance: dict[str, float],
    alpha: float = ALPHA,
) -> list[Finding]:
    """Every finding seen at every rung, classified across the rungs (see above).
    ``per_rung[k]``: :func:`finding_values` of rung ``k``'s mirror, all over the same games;
    ``tolerance``: ± per axis (order, seat, team, role)."""
    from balance.stats.multiple import bh_qvalues
    from balance.stats.trend import paired_contrast, slope_coefficients

    rungs = len(per_rung)
    if rungs < 2:
        raise ValueError("findings across rungs need at least 2 rungs")
    keys = [k for k in per_rung[0] if all(k in r for r in per_rung[1:])]
    groups: dict[str, int] = {}
    for axis, _ in keys:
        groups[axis] = groups.get(axis, 0) + 1
    c = slope_coefficients(np.arange(rungs, dtype=np.float64))
    rows = []
    for key in keys:
        values = [r[key][0] for r in per_rung]
        has_ref = per_rung[0][key][1]
        level = 1.0 - alpha / (groups[key[0]] * rungs)
        ms = [mean_interval(moments(v[:, None]), level) for v in values]
        trend = paired_contrast([v[:, None] for v in values], c)
        rows.append((key, has_ref, values, ms, trend))
    q = bh_qvalues([float(t.p_value[0]) for *_, t in rows])
    out = []
    for (key, has_ref, values, ms, trend), qv in zip(rows, q, strict=True):
        value = [float(m.mean[0]) for m in ms]
        lo = [float(m.lo[0]) for m in ms]
        hi = [float(m.hi[0]) for m in ms]
        slope, s_lo, s_hi = (float(trend.estimate[0]), float(trend.lo[0]), float(trend.hi[0]))
        tol = tolerance.get(key[0], 0.02)
        significant = bool(qv < 0.05)
        span = rungs - 1  # the slope's change from the weakest rung to the strongest
        steady = not significant and -tol <= s_lo * span and s_hi * span <= tol
        if has_ref:
            pos = [x > 0 for x in lo]
            neg = [x < 0 for x in hi]
            within = all(-tol <= a and b <= tol for a, b in zip(lo, hi, strict=True))
            if any(pos) and any(neg):
                call = "flips"
            elif significant:
                # away from the side of 0 the weakest rung is on; out of 0 onto the side the
                # strongest is on; a trend between two rungs on neither side says neither
                first = 1.0 if pos[0] else -1.0 if neg[0] else 0.0
                last = 1.0 if pos[-1] else -1.0 if neg[-1] else 0.0
                if first:
                    call = "grows" if np.sign(slope) == first else "shrinks"
                elif last and np.sign(slope) == last:
                    call = "grows"
                else:
                    call = "not determined"
            elif steady and (within or one_sign(lo, hi)):
                call = "holds"
            else:
                call = "not determined"
        elif significant:
            call = "grows" if slope > 0 else "shrinks"
        else:
            call = "holds" if steady else "not determined"
        out.append(
            Finding(
                axis=key[0],
                group=key[1],
                reference=has_ref,
                value=value,
                lo=lo,
                hi=hi,
                games=[int(np.isfinite(v).sum()) for v in values],
                slope=slope,
                slope_lo=s_lo,
                slope_hi=s_hi,
                p_value=float(trend.p_value[0]),
                q_value=float(qv),
                call=call,
            )
        )
    return out


# ======================================================================= the sides' matrix
#
# In a game of sides (Raven Manor), the share of one side (the config's headline: the Raven's)
# with the Family played by one rung and the evil side by another: cell (f, e) over the games of
# its own point (the diagonal: the mirrors). A table read cell by cell, so its intervals are
# simultaneous over the cells (Bonferroni, ``1 - alpha / cells``): every cell covers its true
# share together with probability at least ``1 - alpha``.


class Cell(NamedTuple):
    family: str  # the Family's rung
    evil: str  # the evil side's rung
    games: int
    share: float
    lo: float  # simultaneous over the cells
    hi: float


class Matrix(NamedTuple):
    side: str  # whose share: the headline's side
    rungs: list[str]
    cells: list[Cell]  # row-major: the Family's rung, then the evil side's
    level: float  # each cell's interval level

    def cell(self, family: str, evil: str) -> Cell:
        return next(c for c in self.cells if (c.family, c.evil) == (family, evil))


def matrix(
    side: str,
    rungs: Sequence[str],
    values: dict[tuple[str, str], np.ndarray],
    alpha: float = ALPHA,
) -> Matrix:
    """The matrix of ``side``'s share: ``values[(family rung, evil rung)]`` the side's win in
    each game of that cell (float[G], a shared win counted in part; NaN where the side was not
    dealt)."""
    cells_n = len(values)
    level = 1.0 - alpha / max(cells_n, 1)
    cells = []
    for f in rungs:
        for e in rungs:
            v = np.asarray(values[(f, e)], np.float64)
            v = v[np.isfinite(v)]
            ci = mean_interval(moments(v[:, None]), level)
            cells.append(Cell(f, e, len(v), float(ci.mean[0]), float(ci.lo[0]), float(ci.hi[0])))
    return Matrix(side, list(rungs), cells, level)
