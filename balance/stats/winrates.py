"""Win shares, seat advantage and score / game-length distributions of a results dataset.

Every function takes the dataset's rows (a polars LazyFrame or DataFrame, one row per
(game, seat), see balance/results.py) and returns numbers: NamedTuples of scalars and small polars
frames. Nothing here draws; the report turns these into figures.

A seat's *win share* is the mean of ``win`` over its rows: 1 for a win, 1/k for each seat of k
teams sharing one, 0 otherwise. With one seat per team the shares of the seats of a game add up to
1 and a fair share is 1/n for n players. A *team's* share is per game: the team's win in each game
(the ``win`` of its winning seats, 0 if it did not win), averaged over games, so a three-seat
Family victory counts once, not three times. Groups (see balance/stats/groups.py) are read from
the rows of each game: a seat that changes sides counts for the team it ended on. Intervals are
Wilson score intervals with n = the rows of the group (games for a team); shared wins make the
outcome fractional, which only narrows its variance, so the Wilson interval stays a little
conservative.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import polars as pl
from scipy import stats as sps

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


def _lazy(rows: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame:
    return rows.lazy() if isinstance(rows, pl.DataFrame) else rows


def _z(level: float) -> float:
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    return float(sps.norm.ppf(0.5 + level / 2))


def wilson_interval(
    share: np.ndarray | float, n: np.ndarray | float, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a proportion ``share`` observed over ``n`` trials (vectorised).

    ``share`` may be fractional (shared wins); n = 0 gives NaN.
    """
    z = _z(level)
    p = np.asarray(share, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        lo, hi = centre - half, centre + half
    bad = n <= 0
    return np.where(bad, np.nan, np.clip(lo, 0, 1)), np.where(bad, np.nan, np.clip(hi, 0, 1))


def _with_wilson(frame: pl.DataFrame, level: float, fair: pl.Expr) -> pl.DataFrame:
    """Add lo/hi (Wilson) and the normalised share (share / fair share, 1.0 = fair)."""
    lo, hi = wilson_interval(frame["share"].to_numpy(), frame["n"].to_numpy(), level)
    frame = frame.with_columns(lo=pl.Series(lo), hi=pl.Series(hi), fair=fair)
    return frame.with_columns(
        normalised=pl.col("share") / pl.col("fair"),
        normalised_lo=pl.col("lo") / pl.col("fair"),
        normalised_hi=pl.col("hi") / pl.col("fair"),
    )


class WinShares(NamedTuple):
    """Win shares with Wilson intervals. Every frame has the columns ``n`` (rows; games for a
    team), ``wins`` (sum of win), ``share``, ``lo``, ``hi``, ``fair`` (the share of a fair game:
    1/players, team size/players for a team) and ``normalised``, ``normalised_lo``,
    ``normalised_hi`` (share / fair: 1.0 = fair, n·p for one seat)."""

    players: int
    games: int
    level: float
    by_seat: pl.DataFrame  # seat, policy, team, n, wins, share, lo, hi, fair, normalised...
    by_policy: pl.DataFrame  # policy, seats (number of seats playing it), n, wins, share, ...
    by_team: pl.DataFrame  # team, seats (mean seats a game), n (games), wins, share, ...
    by_order: pl.DataFrame  # order (0 = first player), n, wins, share, ...
    # role, seats (mean seats a game dealt it), n (seat-games), wins, share, ...; no rows in a
    # game without roles
    by_role: pl.DataFrame = pl.DataFrame()
    teams_fixed: bool = True  # each seat's team is the same in every game (else by_seat's is null)


def win_shares(rows: pl.LazyFrame | pl.DataFrame, *, level: float = 0.95) -> WinShares:
    """Win share per seat, policy, team, place in the turn order and role, with Wilson intervals.

    A team's share is per game (its win in each game, averaged over all games); its ``fair`` is
    its seats' share of the table when the team's seats are the same in every game, and NaN when
    the game deals teams (no share is fair by construction then), as for roles."""
    lf = _lazy(rows)
    has_role = "role" in lf.collect_schema().names()
    agg = [pl.len().alias("n"), pl.col("win").sum().alias("wins")]
    seat_q = (
        lf.group_by("seat")
        .agg(
            pl.col("policy").first(),
            pl.col("team").first(),
            pl.col("team").n_unique().alias("teams"),
            *agg,
        )
        .sort("seat")
    )
    policy_q = lf.group_by("policy").agg(pl.col("seat").n_unique().alias("seats"), *agg)
    order_q = lf.group_by("order").agg(*agg).sort("order")
    queries = [seat_q, policy_q, order_q]
    if has_role:
        queries.append(lf.group_by("role").agg(*agg))
    by_seat, by_policy, by_order, *rest = pl.collect_all(queries)
    players = by_seat.height
    games = int(by_seat["n"].max() or 0)
    teams_fixed = bool(players) and int(by_seat["teams"].max()) == 1
    by_seat = by_seat.drop("teams")
    if teams_fixed and by_seat["team"].n_unique() == players:
        # One seat per team for the whole run: a team's wins are its seat's, game by game.
        team_counts = by_seat.select("team", seats=pl.lit(1, dtype=pl.UInt32), n="n", wins="wins")
    else:
        # Per (game, team): the team's win is the win of its winning seats (all alike, 1/k).
        team_counts = (
            lf.group_by("game", "team")
            .agg(pl.col("win").max().alias("won"), pl.len().alias("members"))
            .group_by("team")
            .agg(pl.col("won").sum().alias("wins"), pl.col("members").sum().alias("seat_games"))
            .collect()
            .select(
                "team",
                seats=pl.col("seat_games") / max(games, 1),
                n=pl.lit(games, dtype=pl.UInt32),
                wins="wins",
            )
        )
        if teams_fixed:
            team_counts = team_counts.with_columns(pl.col("seats").round(0).cast(pl.UInt32))
    share = (pl.col("wins") / pl.col("n")).alias("share")
    fair = pl.lit(1.0 / max(players, 1))
    by_seat = _with_wilson(by_seat.with_columns(share), level, fair)
    by_order = _with_wilson(by_order.with_columns(share), level, fair)
    by_policy = _with_wilson(by_policy.with_columns(share).sort("policy"), level, fair)
    team_fair = pl.col("seats") / players if teams_fixed else pl.lit(float("nan"))
    by_team = _with_wilson(team_counts.with_columns(share).sort("team"), level, team_fair)
    if not teams_fixed:  # a seat has no one team: the per-game team groups say who won
        by_seat = by_seat.with_columns(team=pl.lit(None, dtype=pl.String))
    by_role = pl.DataFrame()
    if has_role:
        by_role = rest[0].with_columns(seats=pl.col("n") / max(games, 1))
        by_role = by_role.select("role", "seats", "n", "wins").with_columns(share).sort("role")
        by_role = _with_wilson(by_role, level, pl.lit(float("nan")))
    return WinShares(
        players, games, level, by_seat, by_policy, by_team, by_order, by_role, teams_fixed
    )


class SeatAdvantage(NamedTuple):
    """Does the seat or the place in the turn order matter?

    The chi-square tests compare the wins of each seat (and of each place in the turn order) with
    equal shares; they are only made when the line-up is symmetric (every seat plays the same
    policy and is its own team in every game), otherwise ``chi2``/``p_value`` are None. The first player's edge
    is the win share of ``order == 0`` minus 1/players, with its Wilson interval.
    """

    players: int
    games: int
    level: float
    symmetric: bool
    chi2: float | None  # seats against equal shares
    dof: int
    p_value: float | None
    order_chi2: float | None  # places in the turn order against equal shares
    order_p_value: float | None
    first_player_share: float
    first_player_edge: float  # share of order 0 minus 1/players
    edge_lo: float
    edge_hi: float
    by_seat: pl.DataFrame  # as WinShares.by_seat
    by_order: pl.DataFrame  # as WinShares.by_order


def _chi2_equal(wins: np.ndarray) -> tuple[float, float]:
    expected = wins.sum() / len(wins)
    if expected <= 0:
        return float("nan"), float("nan")
    chi2 = float(((wins - expected) ** 2 / expected).sum())
    return chi2, float(sps.chi2.sf(chi2, len(wins) - 1))


def seat_advantage(
    rows: pl.LazyFrame | pl.DataFrame, *, level: float = 0.95, shares: WinShares | None = None
) -> SeatAdvantage:
    """Chi-square tests of seats and turn order against equal shares, and the first player's edge.

    Pass ``shares`` (from :func:`win_shares` on the same rows) to avoid reading the rows again.
    """
    ws = shares if shares is not None else win_shares(rows, level=level)
    seat, order = ws.by_seat, ws.by_order
    n = ws.players
    symmetric = (
        n > 1 and ws.teams_fixed and seat["policy"].n_unique() == 1 and seat["team"].n_unique() == n
    )
    chi2 = p = ochi2 = op = None
    if symmetric:
        chi2, p = _chi2_equal(seat["wins"].to_numpy())
        ochi2, op = _chi2_equal(order["wins"].to_numpy())
    first = order.filter(pl.col("order") == 0)
    fair = 1.0 / max(n, 1)
    if first.height:
        share, lo, hi = (float(first[c][0]) for c in ("share", "lo", "hi"))
    else:
        share = lo = hi = float("nan")
    return SeatAdvantage(
        players=n,
        games=ws.games,
        level=ws.level,
        symmetric=symmetric,
        chi2=chi2,
        dof=n - 1,
        p_value=p,
        order_chi2=ochi2,
        order_p_value=op,
        first_player_share=share,
        first_player_edge=share - fair,
        edge_lo=lo - fair,
        edge_hi=hi - fair,
        by_seat=seat,
        by_order=order,
    )


class Summary(NamedTuple):
    """Distribution of one number: count, mean, sd (n - 1), min, max and quantiles."""

    n: int
    mean: float
    sd: float
    min: float
    max: float
    quantiles: dict[float, float]  # QUANTILES -> value (linear interpolation)


class Distributions(NamedTuple):
    score: Summary  # over all rows (seat-games)
    turns: Summary  # over games
    score_by_seat: pl.DataFrame  # seat, n, mean, sd, q05, q25, q50, q75, q95
    score_by_policy: pl.DataFrame  # policy, n, mean, sd, q05, ...
    score_counts: pl.DataFrame  # score, n (histogram of seat-games)
    turns_counts: pl.DataFrame  # turns, games (histogram)
    end_reasons: pl.DataFrame  # end_reason, games, share


def _qname(q: float) -> str:
    return f"q{round(q * 100):02d}"


def _summary_exprs(col: str) -> list[pl.Expr]:
    c = pl.col(col)
    return [
        c.len().alias("n"),
        c.mean().alias("mean"),
        c.std().alias("sd"),
        c.min().cast(pl.Float64).alias("min"),
        c.max().cast(pl.Float64).alias("max"),
        *(c.quantile(q, interpolation="linear").alias(_qname(q)) for q in QUANTILES),
    ]


def _summary(frame: pl.DataFrame) -> Summary:
    row = frame.row(0, named=True)
    return Summary(
        n=int(row["n"]),
        mean=float(row["mean"]) if row["mean"] is not None else float("nan"),
        sd=float(row["sd"]) if row["sd"] is not None else float("nan"),
        min=float(row["min"]) if row["min"] is not None else float("nan"),
        max=float(row["max"]) if row["max"] is not None else float("nan"),
        quantiles={
            q: float(row[_qname(q)]) if row[_qname(q)] is not None else float("nan")
            for q in QUANTILES
        },
    )


def distributions(rows: pl.LazyFrame | pl.DataFrame) -> Distributions:
    """Score (per seat-game) and game length (per game) distributions, and end reasons."""
    lf = _lazy(rows)
    games = lf.filter(pl.col("seat") == 0)  # one row per game
    queries = [
        lf.select(_summary_exprs("score")),
        games.select(_summary_exprs("turns")),
        lf.group_by("seat").agg(_summary_exprs("score")).sort("seat"),
        lf.group_by("policy").agg(_summary_exprs("score")).sort("policy"),
        lf.group_by("score").agg(pl.len().alias("n")).sort("score"),
        games.group_by("turns").agg(pl.len().alias("games")).sort("turns"),
        games.group_by("end_reason").agg(pl.len().alias("games")).sort("end_reason"),
    ]
    score, turns, by_seat, by_policy, score_counts, turns_counts, reasons = pl.collect_all(queries)
    reasons = reasons.with_columns(share=pl.col("games") / pl.col("games").sum())
    drop = ["min", "max"]
    return Distributions(
        score=_summary(score),
        turns=_summary(turns),
        score_by_seat=by_seat.drop(drop),
        score_by_policy=by_policy.drop(drop),
        score_counts=score_counts,
        turns_counts=turns_counts,
        end_reasons=reasons,
    )
