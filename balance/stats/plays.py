"""How a game plays, not only who wins: metrics of each game's trajectory, with intervals.

A game's trajectory (``results.open_trace``) is every seat's *standing* (the first of the game's
``trace_measures``) at each of its points: point 0 the start, one point a round, the last the
game's end (docs/rules/<game>.md, "How a game went"). From it, per game (:func:`game_metrics`):

- **leader** at a point: the one seat whose standing is the highest; none when two or more share
  it (the start of a game, where every standing is equal, has none);
- ``lead_changes``: how many times the leader became another seat than the last leader (points
  without a leader do not end a lead; Browne 2008's *lead change*, counted rather than divided by
  the game's length; Ludii's ``LeadChange`` is this count over the points);
- ``comeback_half`` / ``comeback_two_thirds``: the winner was strictly behind the best standing at
  the point half / two thirds of the way through the game (the last point at or before that
  fraction of its rounds); over games with one winner (CardStock's and Ludii's comeback);
- ``max_deficit``: how far behind the eventual winner ever was (the best standing minus the
  winner's, at its worst point; 0 if it never trailed): Browne's *drama* as a distance, in the
  game's standing units;
- ``decided_at``: the fraction of the game (0 the start, 1 the end) from which the winner led at
  every point to the end (Browne's *decisiveness*: the point after which the leader never
  changed; 1 when the winner did not lead alone even at the end, a tie broken by a tie-break);
- ``margin``: the winner's standing at the end minus the best other seat's (Ludii's and
  CardStock's *margin of victory*), and ``close``: a margin of at most 1.

The winner is the one seat of rank 1; games without one (a draw, a shared win, a team's win)
count in ``lead_changes`` and the length only.

**Sides.** A game that deals its seats into sides (Raven Manor's possession) records each seat's
side at each point as a measure named ``team`` (:data:`SIDE`). Its metrics are then a side's: a
side's standing at a point is the sum of its members' standings there (Raven Manor: its living
members, the issue's "sides' sizes"), the leader is the one side with the most, and the winner
is the side of the rank-1 seats (none when they are of several sides: a draw at the turn cap).
The same definitions hold, with "side" for "seat" (:func:`by_side`).
Every metric is a mean over games, with a t-interval over games (independent games: the seeds'
streams); a rate's interval is Wilson's (winrates.wilson_interval). The rows of one game's seats
are never treated as independent.

Nothing here reads a game: the trajectory and the rows are enough.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import polars as pl

from balance.stats.multiple import adjust
from balance.stats.paired import Moments, _table, mean_interval, merge_moments, moments
from balance.stats.winrates import wilson_interval

HALF, TWO_THIRDS = 0.5, 2.0 / 3.0
SIDE = "team"  # the measure naming each seat's side at a point, in a game that deals sides
CLOSE = 1  # a margin of at most this many standing units is a close game

# name -> (kind, words): kind "rate" (a share of games, Wilson) or "mean" (t-interval)
METRICS: dict[str, tuple[str, str]] = {
    "lead_changes": ("mean", "lead changes per game"),
    "comeback_half": ("rate", "winner behind at half time"),
    "comeback_two_thirds": ("rate", "winner behind at two thirds"),
    "max_deficit": ("mean", "winner's largest deficit"),
    "decided_at": ("mean", "share of the game before the winner led for good"),
    "margin": ("mean", "margin of victory"),
    "close": ("rate", f"games won by at most {CLOSE}"),
    "points": ("mean", "points recorded per game (rounds + 1)"),
}
# The metrics taken over games with one winner only (the others: every game)
WINNER_METRICS = (
    "comeback_half",
    "comeback_two_thirds",
    "max_deficit",
    "decided_at",
    "margin",
    "close",
)


FRACTIONS = np.linspace(0.0, 1.0, 11)  # where :func:`winner_leads` looks: 0 %, 10 %, ... 100 %


class GameMetrics(NamedTuple):
    """Per-game values (one entry a game, in ``game`` order); NaN where the game has no winner."""

    game: np.ndarray  # int64[n]
    points: np.ndarray  # int64[n]
    winner: np.ndarray  # int64[n]: the one winning seat, -1 for a draw or a shared win
    values: dict[str, np.ndarray]  # METRICS name -> float64[n]
    # float64[n, len(FRACTIONS)]: 1 if the eventual winner led alone at the last point at or
    # before that fraction of the game's rounds, else 0; NaN without a winner
    leads: np.ndarray | None = None

    def rows(self, keep: slice | np.ndarray) -> GameMetrics:
        """The games selected by ``keep`` (a slice or a boolean mask)."""
        return GameMetrics(
            self.game[keep],
            self.points[keep],
            self.winner[keep],
            {k: v[keep] for k, v in self.values.items()},
            None if self.leads is None else self.leads[keep],
        )


def standings(
    trace: pl.DataFrame, measure: str, players: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(game int64[n], points int64[n], standing float64[n, M, P]) of a trajectory frame (rows of
    game, point, seat; any order), each game's standing held at its last value after its end."""
    t = trace.select("game", "point", "seat", measure).sort("game", "point", "seat")
    game_col = t["game"].to_numpy()
    games, count = np.unique(game_col, return_counts=True)
    points = (count // players).astype(np.int64)
    if np.any(count != points * players):
        raise ValueError("a trajectory must have one row per seat at each point of a game")
    m = int(points.max()) if len(points) else 0
    point = t["point"].to_numpy().astype(np.int64)
    seat = t["seat"].to_numpy().astype(np.int64)
    gi = np.repeat(np.arange(len(games)), count)
    if np.any(point >= np.repeat(points, count)):
        raise ValueError("a game's trajectory points must be 0, 1, ... without a gap")
    s = np.zeros((len(games), m, players), np.float64)
    s[gi, point, seat] = t[measure].to_numpy()
    last = s[np.arange(len(games)), points - 1]  # [n, P]
    after = np.arange(m)[None, :] >= points[:, None]
    s = np.where(after[:, :, None], last[:, None, :], s)
    return games, points, s


def leaders(s: np.ndarray) -> np.ndarray:
    """int64[n, M]: the one seat with the highest standing at each point, -1 where two share it."""
    top = s.max(axis=2, keepdims=True)
    at_top = s == top
    lead = np.argmax(at_top, axis=2)
    return np.where(at_top.sum(axis=2) == 1, lead, -1)


def _lead_changes(lead: np.ndarray, points: np.ndarray) -> np.ndarray:
    n, m = lead.shape
    changes = np.zeros(n, np.int64)
    last = np.full(n, -1)
    for k in range(m):  # M is a game's rounds: a short loop over vectors of games
        now = lead[:, k]
        live = (k < points) & (now >= 0)
        changes += live & (last >= 0) & (now != last)
        last = np.where(live, now, last)
    return changes


def game_metrics(
    trace: pl.DataFrame, rows: pl.DataFrame, measure: str, sides: int = 0
) -> GameMetrics:
    """Each game's metrics (module docstring) from its trajectory (``game``, ``point``, ``seat``,
    ``measure``) and its rows (``game``, ``seat``, ``rank``): the winner is the one seat of rank 1
    (none when several share rank 1: a draw, a shared win, a team's win). ``sides`` > 0: the
    game deals that many sides, named at each point by the trajectory's :data:`SIDE` measure,
    and the metrics are the sides' (:func:`by_side`)."""
    r = rows.select("game", "seat", "rank").sort("game", "seat")
    players = int(r["seat"].max()) + 1 if r.height else 0
    games, points, s = standings(trace, measure, players)
    if r.select(pl.col("game").n_unique()).item() != len(games) or r.height != len(games) * players:
        raise ValueError("the rows and the trajectory must hold the same games")
    rank = r["rank"].to_numpy().reshape(len(games), players)
    if sides:
        team = standings(trace, SIDE, players)[2].astype(np.int64)
        s, winner = by_side(s, team, rank, points, sides)
        return metrics_of(games, points, s, winner)
    return metrics_of(games, points, s, sole_winner(rank))


def units(measures: Any, team_names: Any) -> int | None:
    """How a run's trajectories are read: 0 by seat (a game whose seats win alone), the number
    of sides for a game that deals them and records each seat's (:data:`SIDE`), None when no
    plays metric can be taken (no trajectory, or dealt sides it does not record)."""
    if not measures:
        return None
    if not team_names:
        return 0
    return len(team_names) if SIDE in measures else None


def by_side(
    s: np.ndarray, team: np.ndarray, rank: np.ndarray, points: np.ndarray, sides: int
) -> tuple[np.ndarray, np.ndarray]:
    """(standing float64[n, M, sides], winner int64[n]) of games whose seats' standings are ``s``
    (float64[n, M, P]) and sides ``team`` (int[n, M, P], codes 0..sides-1, both held at the last
    value after a game's end): a side's standing is the sum of its members' at that point; the
    winner is the one side of the rank-1 seats at the end, -1 when they are of several sides."""
    n = s.shape[0]
    out = np.zeros((n, s.shape[1], sides), np.float64)
    for j in range(sides):  # a few sides: one [n, M, P] mask at a time
        out[:, :, j] = np.where(team == j, s, 0.0).sum(axis=2)
    end = team[np.arange(n), points - 1]  # [n, P]: each seat's side at the end
    first = rank == 1
    lo = np.where(first, end, sides).min(axis=1)
    hi = np.where(first, end, -1).max(axis=1)
    return out, np.where(first.any(axis=1) & (lo == hi), lo, -1).astype(np.int64)


def sole_winner(rank: np.ndarray) -> np.ndarray:
    """int64[n]: the one seat of rank 1 of each game (rank int[n, P]), -1 when several share it."""
    first = rank == 1
    return np.where(first.sum(axis=1) == 1, np.argmax(first, axis=1), -1).astype(np.int64)


def chunk_metrics(chunk: Any, sides: int = 0, side: int = -1) -> GameMetrics | None:
    """:func:`metrics_of` a played chunk's trajectories (``Chunk.trace_rows``, its first
    measure the standing), or None for a game that keeps none. ``sides`` > 0: the game deals
    that many sides, measure ``side`` of the trace naming each seat's (:func:`by_side`)."""
    if chunk.trace_rows is None or chunk.points is None:
        return None
    n = chunk.n_games
    points = chunk.points.astype(np.int64)
    m = int(points.max()) if n else 0
    # each game's rows, its standing held at its last point after its end
    start = chunk.trace_start
    k = start[:, None] + np.minimum(np.arange(m)[None, :], points[:, None] - 1)  # [n, m]
    s = chunk.trace_rows[k, :, 0].astype(np.float64)  # [n, m, P]
    games = np.arange(chunk.first_game, chunk.first_game + n, dtype=np.int64)
    if sides:
        team = chunk.trace_rows[k, :, side].astype(np.int64)
        s, winner = by_side(s, team, chunk.rank, points, sides)
        return metrics_of(games, points, s, winner)
    return metrics_of(games, points, s, sole_winner(chunk.rank))


def metrics_of(
    games: np.ndarray, points: np.ndarray, s: np.ndarray, winner: np.ndarray
) -> GameMetrics:
    """The metrics of games whose standings are ``s`` (float64[n, M, P], held at the last value
    after a game's end), ``points`` recorded and sole ``winner`` (-1: none)."""
    n, _, players = s.shape
    lead = leaders(s)
    idx = np.arange(n)
    has = winner >= 0
    w = np.where(has, winner, 0)
    top = s.max(axis=2)  # [n, M]
    behind = top - s[idx, :, w]  # the winner's deficit at each point (0 when it is at the top)
    rounds = points - 1

    def at(frac: float) -> np.ndarray:  # the last point at or before ``frac`` of the rounds
        return np.floor(frac * rounds + 1e-9).astype(np.int64)

    def behind_at(frac: float) -> np.ndarray:
        return (behind[idx, at(frac)] > 0).astype(np.float64)

    live = np.arange(s.shape[1])[None, :] < points[:, None]
    not_leading = live & (lead != w[:, None])
    # the last point the winner did not lead alone; decided from the point after it
    last_not = np.where(
        not_leading.any(axis=1), s.shape[1] - 1 - np.argmax(not_leading[:, ::-1], axis=1), -1
    )
    decided = np.minimum(last_not + 1, rounds) / np.maximum(rounds, 1)
    end = s[idx, points - 1]  # [n, P]
    others = np.where(np.arange(players)[None, :] == w[:, None], -np.inf, end)
    margin = end[idx, w] - others.max(axis=1)
    nan = np.full(n, np.nan)
    values = {
        "lead_changes": _lead_changes(lead, points).astype(np.float64),
        "comeback_half": np.where(has, behind_at(HALF), nan),
        "comeback_two_thirds": np.where(has, behind_at(TWO_THIRDS), nan),
        "max_deficit": np.where(has, np.where(live, behind, 0.0).max(axis=1), nan),
        "decided_at": np.where(has, decided, nan),
        "margin": np.where(has, margin, nan),
        "close": np.where(has, (margin <= CLOSE).astype(np.float64), nan),
        "points": points.astype(np.float64),
    }
    leads = np.stack([(lead[idx, at(f)] == w).astype(np.float64) for f in FRACTIONS], axis=1)
    return GameMetrics(games, points, winner, values, np.where(has[:, None], leads, np.nan))


def concat(parts: list[GameMetrics]) -> GameMetrics:
    """The metrics of several slices of games as one."""
    return GameMetrics(
        np.concatenate([p.game for p in parts]),
        np.concatenate([p.points for p in parts]),
        np.concatenate([p.winner for p in parts]),
        {k: np.concatenate([p.values[k] for p in parts]) for k in METRICS},
        np.concatenate([p.leads for p in parts]),
    )


def run_metrics(
    trace: pl.LazyFrame,
    rows: pl.LazyFrame,
    measure: str,
    games: int,
    per_slice: int = 65_536,
    sides: int = 0,
) -> GameMetrics:
    """:func:`game_metrics` of games ``[0, games)`` of a run (its trajectory and rows as lazy
    frames: ``results.open_trace``, ``results.open_results``), ``per_slice`` games at a time, so
    that memory follows the slice, not the run; ``sides``: as game_metrics."""
    if games <= 0:
        raise ValueError("the run holds no games")
    measures = ["game", "point", "seat", measure, *([SIDE] if sides else [])]
    parts = []
    for lo in range(0, games, per_slice):
        keep = pl.col("game").is_between(lo, min(games, lo + per_slice) - 1)
        t = trace.filter(keep).select(measures).collect()
        r = rows.filter(keep).select("game", "seat", "rank").collect()
        parts.append(game_metrics(t, r, measure, sides))
    return concat(parts)


def winner_leads(metrics: GameMetrics, level: float = 0.95) -> pl.DataFrame:
    """At each fraction of the game (FRACTIONS), the share of games with one winner in which the
    eventual winner led alone, with Wilson intervals: how early a game is decided."""
    v = metrics.leads
    ok = ~np.isnan(v[:, 0])
    share = v[ok].mean(axis=0) if ok.any() else np.full(len(FRACTIONS), np.nan)
    lo, hi = wilson_interval(share, np.full(len(FRACTIONS), ok.sum()), level)
    return pl.DataFrame(
        {"fraction": FRACTIONS, "share": share, "lo": lo, "hi": hi, "games": int(ok.sum())}
    )


def summary(metrics: GameMetrics, level: float = 0.95) -> pl.DataFrame:
    """One row per metric: ``metric``, ``words``, ``games`` (those it is taken over), ``mean``,
    ``lo``, ``hi`` (Wilson for a rate, a t-interval over games for a mean)."""
    out = []
    for name, (kind, words) in METRICS.items():
        v = metrics.values[name]
        v = v[~np.isnan(v)]
        if kind == "rate":
            lo, hi = wilson_interval(v.mean() if len(v) else np.nan, len(v), level)
            mean = float(v.mean()) if len(v) else float("nan")
        else:
            mi = mean_interval(moments(v[:, None]), level)
            mean, lo, hi = float(mi.mean[0]), mi.lo[0], mi.hi[0]
        out.append((name, words, kind, len(v), mean, float(lo), float(hi)))
    return pl.DataFrame(
        out,
        schema={
            "metric": pl.String,
            "words": pl.String,
            "kind": pl.String,
            "games": pl.Int64,
            "mean": pl.Float64,
            "lo": pl.Float64,
            "hi": pl.Float64,
        },
        orient="row",
    )


class PairedPlays:
    """Paired differences B - A of each metric over the same games of two runs (``balance
    compare``), accumulated chunk by chunk in constant memory: a metric of the winner over the
    games where both runs have one winner."""

    def __init__(self) -> None:
        self._m: dict[str, tuple[Moments, Moments, Moments] | None] = dict.fromkeys(METRICS)

    def add(self, a: GameMetrics, b: GameMetrics) -> None:
        if not np.array_equal(a.game, b.game):
            raise ValueError("unpaired chunks: the two runs' games differ")
        for name in METRICS:
            va, vb = a.values[name], b.values[name]
            both = ~(np.isnan(va) | np.isnan(vb))
            cols = [moments(v[both][:, None]) for v in (va, vb, vb - va)]
            old = self._m[name]
            self._m[name] = tuple(  # type: ignore[assignment]
                merge_moments(None if old is None else old[i], cols[i]) for i in range(3)
            )

    def table(self, level: float = 0.95) -> pl.DataFrame:
        """One row per metric (``metric``, ``kind`` "game", ``group`` "all", games, a, b, diff,
        sd, se, lo, hi, p_value, q_value, significant): paired t-intervals over games, the one
        significance rule across this table's metrics (each metric its own family)."""
        names = [n for n in METRICS if self._m[n] is not None]
        if not names:
            return adjust(_table([], [], [], [], level, None))
        a = np.concatenate([self._m[n][0].mean for n in names])
        b = np.concatenate([self._m[n][1].mean for n in names])
        d = Moments(
            *(
                np.concatenate([getattr(self._m[n][2], f) for n in names])
                for f in ("n", "mean", "m2")
            )
        )
        fixed = np.array(
            [
                self._m[n][0].m2[0] == 0 and self._m[n][1].m2[0] == 0 and self._m[n][2].m2[0] == 0
                for n in names
            ]
        )
        t = _table(names, [("game", "all")] * len(names), a, b, level, d, fixed)
        return adjust(t.with_columns(pl.Series("words", [METRICS[n][1] for n in names])))
