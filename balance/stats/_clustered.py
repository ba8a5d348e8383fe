"""The one pass over a dataset's rows that the game-clustered variance of card impact needs
(balance/stats/impact.py): per game, the seat-games with each event and their wins, folded into
sums over games of those counts and their products. Compiled, so that a million games of 60
telemetry columns take a fraction of a second and no per-game array is ever held."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

# Per (group, column): n1, w1 and the sums over games of n1·n1, w1·w1, w1·n1, w1·N, w1·W, n1·N,
# n1·W (N, W: the group's seat-games and wins in that game). Per group: N, W, N·N, W·W, N·W.
COLUMN_SUMS = ("n1", "w1", "n1n1", "w1w1", "w1n1", "w1N", "w1W", "n1N", "n1W")
GROUP_SUMS = ("N", "W", "NN", "WW", "NW")


@njit(cache=True, parallel=True)
def accumulate(tel, win, codes, players, per_column, per_group):  # pragma: no cover - numba
    """Add the games of ``tel`` (uint8[k, games·players]: a row per telemetry column, its
    entries sorted by game and seat), ``win``
    (float64[rows]) and ``codes`` (int32[rows]: each row's group) to ``per_column``
    (float64[groups, k, 9]) and ``per_group`` (float64[groups, 5])."""
    k = tel.shape[0]
    groups = per_group.shape[0]
    games = tel.shape[1] // players
    big_n = np.zeros((games, groups))
    big_w = np.zeros((games, groups))
    for game in range(games):
        for r in range(game * players, (game + 1) * players):
            big_n[game, codes[r]] += 1.0
            big_w[game, codes[r]] += win[r]
        for b in range(groups):
            nb, wb = big_n[game, b], big_w[game, b]
            per_group[b, 0] += nb
            per_group[b, 1] += wb
            per_group[b, 2] += nb * nb
            per_group[b, 3] += wb * wb
            per_group[b, 4] += nb * wb
    if groups == 1:  # the usual case (no ``by``): no group codes to follow
        for i in prange(k):  # columns are independent: one thread each
            _one_group(tel[i], win, players, big_n[:, 0], big_w[:, 0], per_column[0, i])
        return
    n1 = np.zeros(groups)
    w1 = np.zeros(groups)
    for i in range(k):  # column by column: each pass reads one contiguous row of ``tel``
        row = tel[i]
        for game in range(games):
            first = game * players
            hit = False
            for r in range(first, first + players):
                if row[r] > 0:
                    n1[codes[r]] += 1.0
                    w1[codes[r]] += win[r]
                    hit = True
            if not hit:
                continue
            for b in range(groups):
                c, cw = n1[b], w1[b]
                if c == 0.0:
                    continue
                nb, wb = big_n[game, b], big_w[game, b]
                s = per_column[b, i]
                s[0] += c
                s[1] += cw
                s[2] += c * c
                s[3] += cw * cw
                s[4] += cw * c
                s[5] += cw * nb
                s[6] += cw * wb
                s[7] += c * nb
                s[8] += c * wb
                n1[b] = 0.0
                w1[b] = 0.0


@njit(cache=True, inline="always")
def _one_group(row, win, players, big_n, big_w, s):  # pragma: no cover - numba
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = s8 = 0.0  # in registers, written once at the end
    for game in range(big_n.shape[0]):
        first = game * players
        c = 0.0
        cw = 0.0
        for r in range(first, first + players):
            h = 1.0 if row[r] > 0 else 0.0
            c += h
            cw += h * win[r]
        nb, wb = big_n[game], big_w[game]
        s0 += c
        s1 += cw
        s2 += c * c
        s3 += cw * cw
        s4 += cw * c
        s5 += cw * nb
        s6 += cw * wb
        s7 += c * nb
        s8 += c * wb
    s[0] += s0
    s[1] += s1
    s[2] += s2
    s[3] += s3
    s[4] += s4
    s[5] += s5
    s[6] += s6
    s[7] += s7
    s[8] += s8
