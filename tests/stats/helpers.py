"""Small results datasets built by hand, with the columns of balance/results/."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl


def rows(
    rank: np.ndarray,
    *,
    policies: Sequence[str] | None = None,
    teams: Sequence[str] | None = None,
    order: np.ndarray | None = None,
    score: np.ndarray | None = None,
    turns: np.ndarray | None = None,
    telemetry: dict[str, np.ndarray] | None = None,
    first_game: int = 0,
) -> pl.DataFrame:
    """A dataset from per-game arrays ``[n, P]`` (rank 1 = winner; ties share the win)."""
    rank = np.asarray(rank)
    n, p = rank.shape
    won = rank == 1
    k = won.sum(axis=1, keepdims=True)
    win = np.where(won, 1.0 / np.maximum(k, 1), 0.0)
    policies = list(policies or ["greedy"] * p)
    teams = list(teams or [str(s) for s in range(p)])
    if order is None:
        order = (np.arange(p)[None, :] - np.arange(n)[:, None]) % p  # first player rotates
    score = -rank if score is None else score
    turns = np.full(n, 10) if turns is None else turns
    data = {
        "game": np.repeat(np.arange(first_game, first_game + n), p),
        "seat": pl.Series(np.tile(np.arange(p), n), dtype=pl.Int8),
        "policy": policies * n,
        "team": teams * n,
        "score": pl.Series(np.asarray(score).ravel(), dtype=pl.Int32),
        "rank": pl.Series(rank.ravel(), dtype=pl.Int8),
        "win": win.ravel(),
        "shared": (won & (k > 1)).ravel(),
        "turns": pl.Series(np.repeat(turns, p), dtype=pl.Int32),
        "end_reason": ["clocks"] * (n * p),
        "order": pl.Series(np.asarray(order).ravel(), dtype=pl.Int8),
    }
    for name, values in (telemetry or {}).items():
        data[name] = pl.Series(np.asarray(values).ravel(), dtype=pl.UInt8)
    return pl.DataFrame(data)


def random_ranks(rng: np.random.Generator, n: int, p: int, weights: Sequence[float]) -> np.ndarray:
    """Rank 1 for one winner per game drawn with ``weights`` per seat, rank 2 for the others."""
    winner = rng.choice(p, size=n, p=np.asarray(weights) / np.sum(weights))
    rank = np.full((n, p), 2)
    rank[np.arange(n), winner] = 1
    return rank


def reference_q(p_values, metrics):
    """The one rule, written out independently: Benjamini-Hochberg (scipy) within each metric,
    times the number of metrics, capped at 1."""
    import numpy as np
    from scipy import stats as sps

    p, metrics = np.asarray(p_values, dtype=float), np.asarray(metrics)
    families = list(dict.fromkeys(metrics.tolist()))
    q = np.empty_like(p)
    for m in families:
        rows = metrics == m
        q[rows] = np.minimum(1.0, len(families) * sps.false_discovery_control(p[rows]))
    return q
