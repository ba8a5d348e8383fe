"""Differences between runs of one game with different player counts (independent samples).

A 2-player and a 4-player game of the same seed are different games (the deal, the turns, who
wins), so nothing pairs them game by game, and a seat's or a place's raw win share means
something else at each count (a fair share is 1/n). What does mean the same thing:

- ``normalised_share`` per place in the opening turn order (``kind`` ``order``; the places both
  counts have, joined by name: place 0 is the first player in both): share / fair = share × n,
  1.0 = fair. Its interval is the Welch interval of the per-game values ``n · win`` (the delta
  method is exact here: n is a constant, so the standard error is n times the share's);
- ``first_edge``: the first player's share minus a fair 1/n (points above fair);
- ``mean_score`` per seat-game, all seats (``kind`` ``all``, group ``seats``): the mean over
  games of each game's mean seat score (every game has n seats, so it equals the mean over
  seat-games, and its variance is taken over games: the seats of one game are not
  independent);
- ``mean_turns``: the mean game length (``kind`` ``game``, group ``all``).

A game that deals its sides (Raven Manor: ``dealt=True``) has no fair 1/n: several seats win
together, and a fair place wins what the average seat-game of the same games wins. There
``normalised_share`` is the ratio of the place's mean win to the mean seat win (its variance
linearised over games, the delta method, from running moments and cross-moments) and
``first_edge`` the mean over games of the first player's win minus its game's mean seat win, as
balance/stats/curves.py has them for a sweep.

Per-seat win shares are left out: seat 2 of a 3-player game and of a 4-player game are not the
same thing. Every interval is a Welch t-interval over games of each side (independent samples)
and every row gets its q-value by the one rule (balance/stats/multiple.py), with these four
metrics as the families.

:class:`AcrossAccumulator` reduces chunks of both runs in constant memory (``balance
compare``); :func:`across_differences` does the same for two sets of per-game arrays.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from balance.stats.groups import GameArrays, Group, group_values
from balance.stats.multiple import adjust
from balance.stats.paired import Moments, _diff_frame, _welch, merge_moments, moments

SAMPLES = "independent samples (different player counts)"
METHOD = (
    f"{SAMPLES}: Welch t-intervals over games of share × n per place in the turn order (share / "
    "fair), of the first player's edge (share − 1/n), of mean score per seat-game and of mean "
    "game length"
)
METHOD_DEALT = (
    f"{SAMPLES}: Welch t-intervals over games of each place's win over the mean seat win of the "
    "same games (share / fair, the sides being dealt; delta method), of the first player's win "
    "minus its game's mean seat win (the first player's edge), of mean score per seat-game and "
    "of mean game length"
)
METRICS = {
    "normalised_share": "share / fair",
    "first_edge": "first player's edge",
    "mean_score": "mean score per seat-game",
    "mean_turns": "mean game length",
}


class _Side:
    """Running moments of one run: per game, each place's win, the mean seat score, turns."""

    def __init__(self, players: int, dealt: bool = False) -> None:
        self.players = players
        self.dealt = dealt
        self.groups = [Group("order", str(k), k) for k in range(players)]
        self.m: Moments | None = None

    def add(self, arrays: GameArrays) -> None:
        if arrays.win.shape[1] != self.players:
            raise ValueError(
                f"a chunk of {arrays.win.shape[1]} players for a run of {self.players}"
            )
        win, _ = group_values(arrays, self.groups)
        score = arrays.score.mean(axis=1)
        cols = [win, score, arrays.turns]
        if self.dealt:  # the mean seat win, and each place's win times it (cross-moments)
            wbar = arrays.win.mean(axis=1)
            cols += [wbar, win * wbar[:, None]]
        values = np.column_stack(cols)
        self.m = merge_moments(self.m, moments(values))

    def dealt_stats(self) -> tuple[np.ndarray, np.ndarray, float, float, float]:
        """(ratio, sd of its linearised per-game values, edge, sd of the edge, games) of a game
        that deals its sides: ratio per place = mean win / mean seat win; the linearised value
        of a game is (w - ratio wbar) / mean wbar, the edge's is w_0 - wbar."""
        assert self.m is not None
        k = self.players
        n, mean = float(self.m.n[0]), self.m.mean
        c = n / (n - 1) if n > 1 else np.nan
        var = self.m.m2 / (n - 1) if n > 1 else np.full(len(mean), np.nan)
        mw, vw = mean[:k], var[:k]
        mb, vb = mean[k + 2], var[k + 2]
        cov = (mean[k + 3 : 2 * k + 3] - mw * mb) * c
        ratio = mw / mb
        vz = np.maximum(vw - 2.0 * ratio * cov + ratio**2 * vb, 0.0) / mb**2
        ve = max(vw[0] - 2.0 * cov[0] + vb, 0.0)
        return ratio, np.sqrt(vz), float(mw[0] - mb), float(np.sqrt(ve)), n

    def stats(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(n, mean, sd) per column: places 0..n-1, mean score, turns."""
        if self.m is None:
            raise ValueError("no games added")
        n, mean = self.m.n, self.m.mean
        with np.errstate(divide="ignore", invalid="ignore"):
            sd = np.sqrt(np.where(n > 1, self.m.m2 / (n - 1), np.nan))
        return n, mean, sd


class AcrossAccumulator:
    """B - A of two runs with different player counts, chunk by chunk (module docstring)."""

    def __init__(self, players_a: int, players_b: int, *, dealt: bool = False) -> None:
        self.a = _Side(players_a, dealt)
        self.b = _Side(players_b, dealt)
        self.dealt = dealt

    @property
    def games(self) -> int:
        """Games of B (each side counts its own; ``balance compare`` plays the same number)."""
        return 0 if self.b.m is None else int(self.b.m.n[0])

    def add(self, a: GameArrays, b: GameArrays) -> None:
        """Games of A and of B (independent: they need not be the same games)."""
        self.a.add(a)
        self.b.add(b)

    def table(self, level: float = 0.95) -> pl.DataFrame:
        """Rows ``metric, kind, group, games, a, b, diff, lo, hi, p_value, q_value,
        significant`` (``games``: B's), metrics in the order of ``METRICS``."""
        na_p, nb_p = self.a.players, self.b.players
        (n_a, m_a, s_a), (n_b, m_b, s_b) = self.a.stats(), self.b.stats()
        places = np.arange(min(na_p, nb_p))
        parts = []
        # share / fair = share × n: the per-game values n · win, so mean and sd scale by n.
        ma, sa, mb, sb = (
            na_p * m_a[places],
            na_p * s_a[places],
            nb_p * m_b[places],
            nb_p * s_b[places],
        )
        ea, eb = m_a[:1] - 1.0 / na_p, m_b[:1] - 1.0 / nb_p
        sea, seb = s_a[:1], s_b[:1]
        if self.dealt:  # a fair place wins what the average seat-game wins (module docstring)
            ra, za, e_a, se_a, _ = self.a.dealt_stats()
            rb, zb, e_b, se_b, _ = self.b.dealt_stats()
            ma, sa, mb, sb = ra[places], za[places], rb[places], zb[places]
            ea, eb, sea, seb = np.array([e_a]), np.array([e_b]), np.array([se_a]), np.array([se_b])
        lo, hi, p = _welch(ma, sa, n_a[places], mb, sb, n_b[places], level)
        groups = [str(k) for k in places]
        parts.append(
            _diff_frame("normalised_share", "order", groups, n_b[places], ma, mb, lo, hi, p)
        )
        lo, hi, p = _welch(ea, sea, n_a[:1], eb, seb, n_b[:1], level)
        parts.append(_diff_frame("first_edge", "order", ["0"], n_b[:1], ea, eb, lo, hi, p))
        for metric, kind, group, ia, ib in (
            ("mean_score", "all", "seats", na_p, nb_p),
            ("mean_turns", "game", "all", na_p + 1, nb_p + 1),
        ):
            sl_a, sl_b = slice(ia, ia + 1), slice(ib, ib + 1)
            lo, hi, p = _welch(
                m_a[sl_a], s_a[sl_a], n_a[sl_a], m_b[sl_b], s_b[sl_b], n_b[sl_b], level
            )
            parts.append(
                _diff_frame(metric, kind, [group], n_b[sl_b], m_a[sl_a], m_b[sl_b], lo, hi, p)
            )
        return adjust(pl.concat(parts))


def across_differences(
    a: GameArrays, b: GameArrays, *, level: float = 0.95, dealt: bool = False
) -> pl.DataFrame:
    """:meth:`AcrossAccumulator.table` of two sets of per-game arrays (any player counts)."""
    acc = AcrossAccumulator(a.win.shape[1], b.win.shape[1], dealt=dealt)
    acc.add(a, b)
    return acc.table(level)
