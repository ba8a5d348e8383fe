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
