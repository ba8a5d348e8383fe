"""Win shares, seat advantage and score / game-length distributions of a results dataset.

Every function takes the dataset's rows (a polars LazyFrame or DataFrame, one row per
(game, seat), see balance/results/) and returns numbers: NamedTuples of scalars and small polars
frames. Nothing here draws; the report turns these into figures.

A seat's *win share* is the mean of ``win`` over its rows: 1 for a win, 1/k for each seat of k
teams sharing one, 0 otherwise. With one seat per team the shares of the seats of a game add up to
1 and a fair share is 1/n for n players.

Every interval is over **games**, the independent unit (the seats of one game are not
independent: their wins add up to 1). Each group has one value per game (balance/stats/groups.py):

- a seat or a place in the turn order: its ``win`` that game; Wilson score interval over the
  games (shared wins make the outcome fractional, which only narrows its variance, so the
  interval stays a little conservative);
- a team: its win that game (the ``win`` of its winning seats, 0 if it did not win), averaged
  over all games, so a three-seat Family victory counts once, not three times;
- a policy or a role: the mean ``win`` of its seats that game, averaged over the games in which
  it has a seat (a game without one is left out).

A team, policy or role interval is the Wilson interval with the *effective* number of games
``n_eff = n·p(1 - p) / s²`` (s² the variance of the per-game values over the n games): for a
one-seat group with whole wins this is the plain Wilson interval, and for a group of several seats
it has the width of the t-interval of the per-game mean while staying inside [0, 1]. A group that
fills every seat of every game has a share fixed by the rules (1/n when every game has one
winner): ``exact`` is true, and it gets no interval (lo = hi = share). Like any interval built
from a variance estimate, a group's interval needs its per-game value to vary in a few dozen
games: the two greedy seats of a random-vs-greedy line-up, whose share varies only in the 2.6 %
of games a random seat wins, cover at 95 % from about 1,000 games on (tests/stats/
test_coverage.py) and at 91 % over 200.
"""

from __future__ import annotations

import math
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

    ``share`` may be fractional (shared wins); n = 0 gives NaN, n = inf a zero-width interval.
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


def effective_games(share: np.ndarray, n: np.ndarray, var: np.ndarray | None) -> np.ndarray:
    """``n·p(1 - p) / s²``: the number of whole-win games whose Wilson interval has the width
    the per-game values' variance ``var`` gives (n where ``var`` is None or the share is 0 or 1;
    inf for values without variation)."""
    n = np.asarray(n, dtype=np.float64)
    if var is None:
        return n
    p = np.asarray(share, dtype=np.float64)
    v = np.asarray(var, dtype=np.float64)
    bernoulli = p * (1 - p)
    with np.errstate(divide="ignore", invalid="ignore"):
        eff = np.where(v > 0, n * bernoulli / v, np.inf)
    # A share of 0 or 1 has no variation: the plain Wilson interval (it is not "exact").
    return np.where((bernoulli <= 0) | ~np.isfinite(v), n, eff)


def _with_wilson(frame: pl.DataFrame, level: float, fair: pl.Expr) -> pl.DataFrame:
    """Add n_eff, se, lo/hi (Wilson over n_eff games; ``var``, the per-game values' variance,
    when the frame has it) and share / fair (1.0 = fair)."""
    share, n = frame["share"].to_numpy(), frame["n"].to_numpy()
    var = frame["var"].to_numpy() if "var" in frame.columns else None
    frame = frame.drop("var", strict=False)
    n_eff = effective_games(share, n, var)
    lo, hi = wilson_interval(share, n_eff, level)
    exact = frame["exact"].to_numpy() if "exact" in frame.columns else np.zeros(len(n), bool)
    lo, hi = np.where(exact, share, lo), np.where(exact, share, hi)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.where(exact, 0.0, np.sqrt(share * (1 - share) / n_eff))
    frame = frame.with_columns(
        n_eff=pl.Series(n_eff), se=pl.Series(se), lo=pl.Series(lo), hi=pl.Series(hi), fair=fair
    )
    if "exact" not in frame.columns:
        frame = frame.with_columns(exact=pl.lit(False))
    return frame.with_columns(
        normalised=pl.col("share") / pl.col("fair"),
        normalised_lo=pl.col("lo") / pl.col("fair"),
        normalised_hi=pl.col("hi") / pl.col("fair"),
    )


def _per_game(lf: pl.LazyFrame, key: str, *, team: bool) -> pl.LazyFrame:
    """Per group ``key``: games with a seat in it, seat-games, wins, and the sum and sum of
    squares of its per-game value (a team's win: the max over its seats; else the mean)."""
    win = pl.col("win")
    value = win.max() if team else win.mean()
    return (
        lf.group_by("game", key)
        .agg(value.alias("v"), pl.len().alias("k"), win.sum().alias("w"))
        .group_by(key)
        .agg(
            pl.len().alias("present"),
            pl.col("k").sum().alias("seat_games"),
            pl.col("w").sum().alias("wins"),
            pl.col("v").sum().alias("sv"),
            (pl.col("v") ** 2).sum().alias("sv2"),
            pl.col("k").min().alias("kmin"),
        )
    )


def _moments_frame(
    frame: pl.DataFrame, games: int, players: int, *, over_all_games: bool
) -> pl.DataFrame:
    """n, share and the variance of the per-game values from ``_per_game``'s sums. A team's
    value is 0 in a game without its seats (``over_all_games``); a policy's or role's game
    without a seat is left out. ``exact``: the group holds every seat of every game."""
    present = frame["present"].to_numpy().astype(np.float64)
    n = np.full(len(present), float(games)) if over_all_games else present
    sv, sv2 = frame["sv"].to_numpy(), frame["sv2"].to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(n > 0, sv / n, np.nan)
        var = np.where(n > 1, np.maximum(sv2 - n * share * share, 0.0) / (n - 1), np.nan)
    full = (present == games) & (frame["kmin"].to_numpy() == players)
    exact = full & (var <= 1e-15 * np.maximum(share * share, 1.0))
    out = frame.drop("present", "sv", "sv2", "kmin").with_columns(
        n=pl.Series(n.astype(np.int64)),
        share=pl.Series(share),
        exact=pl.Series(exact),
        var=pl.Series(var),
    )
    return out


def _fixed_group_sums(
    lf: pl.LazyFrame, by_seat: pl.DataFrame, key: str, players: int
) -> pl.DataFrame | None:
    """``_per_game``'s sums for a group whose seats are the same in every game, from the
    game-by-seat matrix of wins (one column read, no per-game group-by); None when the rows are
    not whole games sorted by game and seat (then the group-by does it)."""
    df = lf.select("game", "seat", "win").collect()
    n = df.height // players if players else 0
    if n == 0 or df.height != n * players:
        return None
    seat = df["seat"].to_numpy().reshape(n, players)
    game = df["game"].to_numpy().reshape(n, players)
    if not ((seat == np.arange(players)).all() and (game == game[:, :1]).all()):
        return None
    win = df["win"].to_numpy().reshape(n, players)
    rows = []
    for name, seats in by_seat.group_by(key, maintain_order=True):
        cols = seats["seat"].to_numpy().astype(np.int64)
        v = win[:, cols].mean(axis=1)
        rows.append((name[0], n, n * len(cols), float(win[:, cols].sum()), float(v.sum()),
                     float((v * v).sum()), len(cols)))  # fmt: skip
    return pl.DataFrame(
        rows,
        schema={key: pl.String, "present": pl.UInt32, "seat_games": pl.UInt32,
                "wins": pl.Float64, "sv": pl.Float64, "sv2": pl.Float64, "kmin": pl.UInt32},
        orient="row",
    )  # fmt: skip


class WinShares(NamedTuple):
    """Win shares with intervals over games. Every frame has the columns ``n`` (the games the
    share is over), ``seat_games``, ``wins`` (sum of win over its seat-games), ``share``,
    ``n_eff`` (effective games of the interval, see the module docstring), ``se``, ``lo``,
    ``hi``, ``fair`` (the share of a fair game: 1/players, team size/players for a team; NaN for
    a dealt team or a role), ``normalised``, ``normalised_lo``, ``normalised_hi`` (share / fair:
    1.0 = fair) and ``exact`` (the share is fixed by the rules: no interval)."""

    players: int
    games: int
    level: float
    by_seat: pl.DataFrame  # seat, policy, team, n, wins, share, lo, hi, fair, normalised...
    by_policy: pl.DataFrame  # policy, seats (number of seats playing it), n, wins, share, ...
    by_team: pl.DataFrame  # team, seats (mean seats a game), n (games), wins, share, ...
    by_order: pl.DataFrame  # order (0 = first player), n, wins, share, ...
    # role, seats (mean seats a game dealt it), n (games it was dealt in), wins, share, ...; no
    # rows in a game without roles
    by_role: pl.DataFrame = pl.DataFrame()
    teams_fixed: bool = True  # each seat's team is the same in every game (else by_seat's is null)
    # Games that deal teams: the first player's edge over the average seat as a per-game value
    # (its win minus its game's mean seat win): (mean, standard error over games); else None.
    first_edge: tuple[float, float] | None = None

    @property
    def symmetric(self) -> bool:
        """Every seat plays the same policy and is its own team in every game: the seats differ
        only by position (the chi-square tests, the verdict and the seat figure need this)."""
        seat = self.by_seat
        n = self.players
        return bool(
            n > 1
            and seat.height == n
            and self.teams_fixed
            and seat["policy"].n_unique() == 1
            and seat["team"].null_count() == 0
            and seat["team"].n_unique() == n
        )

    def simultaneous_intervals(self, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Each seat's Wilson interval at 1 - (1 - level)/players (Bonferroni over the seats):
        (lo, hi) hold for every seat at once with ``level``."""
        seat = self.by_seat
        each = 1 - (1 - level) / max(self.players, 1)
        return wilson_interval(seat["share"].to_numpy(), seat["n_eff"].to_numpy(), each)


def win_shares(rows: pl.LazyFrame | pl.DataFrame, *, level: float = 0.95) -> WinShares:
    """Win share per seat, policy, team, place in the turn order and role, with intervals over
    games (module docstring).

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
            pl.col("policy").n_unique().alias("policies"),
            *agg,
        )
        .sort("seat")
    )
    policy_q = lf.group_by("policy").agg(pl.col("seat").n_unique().alias("seats"), *agg)
    order_q = lf.group_by("order").agg(*agg).sort("order")
    by_seat, by_policy, by_order = pl.collect_all([seat_q, policy_q, order_q])
    players = by_seat.height
    games = int(by_seat["n"].max() or 0)
    teams_fixed = bool(players) and int(by_seat["teams"].max()) == 1
    policies_fixed = bool(players) and int(by_seat["policies"].max()) == 1
    by_seat = by_seat.drop("teams", "policies")
    share = (pl.col("wins") / pl.col("n")).alias("share")
    # One seat per team for the whole run: a team's wins are its seat's, game by game.
    teams_are_seats = teams_fixed and by_seat["team"].n_unique() == players
    # A fair seat wins 1/players of its games, unless teams of several seats win together (a
    # Family victory is a win for every Family seat; a 2-against-2 line-up): then a fair seat,
    # place or policy wins what the average seat-game wins.
    together = not teams_are_seats
    fair = pl.lit(1.0 / max(players, 1))
    if together and players:
        fair = pl.lit(float(by_seat["wins"].sum()) / max(float(by_seat["n"].sum()), 1.0))
    one_seat = pl.col("n").alias("seat_games")

    # Per-game passes, only for groups of several seats (one seat's value is its win).
    queries = []
    multi_policy = by_policy.height and int(by_policy["seats"].max()) > 1
    policy_sums = None
    if multi_policy and policies_fixed:  # the usual case: read the per-game values off a matrix
        policy_sums = _fixed_group_sums(lf, by_seat, "policy", players)
    if multi_policy and policy_sums is None:
        queries.append(_per_game(lf, "policy", team=False))
    if not teams_are_seats:
        queries.append(_per_game(lf, "team", team=True))
    if has_role:
        queries.append(_per_game(lf, "role", team=False))
    per = iter(pl.collect_all(queries)) if queries else iter(())

    by_seat = _with_wilson(by_seat.with_columns(share, one_seat), level, fair)
    by_order = _with_wilson(by_order.with_columns(share, one_seat), level, fair)
    if multi_policy:
        sums = policy_sums if policy_sums is not None else next(per)
        pol = _moments_frame(sums, games, players, over_all_games=False)
        pol = by_policy.select("policy", "seats").join(pol, on="policy")
        by_policy = _with_wilson(pol.sort("policy"), level, fair)
    else:
        by_policy = _with_wilson(
            by_policy.with_columns(share, one_seat).sort("policy"), level, fair
        )
    if teams_are_seats:
        team = by_seat.select("team", seats=pl.lit(1, dtype=pl.UInt32), n="n", wins="wins")
        team = team.with_columns(share, one_seat).sort("team")
        by_team = _with_wilson(team, level, pl.col("seats") / players)
    else:
        team = _moments_frame(next(per), games, players, over_all_games=True)
        team = team.with_columns(seats=pl.col("seat_games") / max(games, 1))
        if teams_fixed:
            team = team.with_columns(pl.col("seats").round(0).cast(pl.UInt32))
        team_fair = pl.col("seats") / players if teams_fixed else pl.lit(float("nan"))
        by_team = _with_wilson(team.sort("team"), level, team_fair)
    if not teams_fixed:  # a seat has no one team: the per-game team groups say who won
        by_seat = by_seat.with_columns(team=pl.lit(None, dtype=pl.String))
    by_role = pl.DataFrame()
    if has_role:
        role = _moments_frame(next(per), games, players, over_all_games=False)
        role = role.with_columns(seats=pl.col("seat_games") / max(games, 1))
        role = role.select("role", "seats", pl.exclude("role", "seats"))
        by_role = _with_wilson(role.sort("role"), level, pl.lit(float("nan")))
    first_edge = None
    if together and games > 1:
        # The fair share is estimated from the same games (the average seat-game's win), so the
        # edge's interval is over games of the per-game difference, not the order-0 interval.
        d = (
            lf.group_by("game")
            .agg(
                (pl.col("win").filter(pl.col("order") == 0).sum() - pl.col("win").mean()).alias("d")
            )
            .select(
                pl.col("d").mean().alias("m"), pl.col("d").std().alias("s"), pl.len().alias("n")
            )
            .collect()
        )
        m, sd, ng = float(d["m"][0]), float(d["s"][0] or 0.0), int(d["n"][0])
        first_edge = (m, sd / math.sqrt(ng))
    return WinShares(
        players, games, level, by_seat, by_policy, by_team, by_order, by_role, teams_fixed,
        first_edge,
    )  # fmt: skip


class SeatAdvantage(NamedTuple):
    """Does the seat or the place in the turn order matter?

    The chi-square tests compare the wins of each seat (and of each place in the turn order) with
    equal shares; they are only made when the line-up is symmetric (every seat plays the same
    policy and is its own team in every game), otherwise ``chi2``/``p_value`` are None. The first player's edge
    is the win share of ``order == 0`` minus a fair place's (``fair``: 1/players, or the average
    seat-game's win when the game deals teams), with its Wilson interval; when the game deals
    teams, with the normal interval over games of the per-game difference (the first player's win
    minus its game's mean seat win), since that fair share is estimated from the same games.
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
    first_player_edge: float  # share of order 0 minus fair
    edge_lo: float
    edge_hi: float
    by_seat: pl.DataFrame  # as WinShares.by_seat
    by_order: pl.DataFrame  # as WinShares.by_order

    @property
    def fair(self) -> float:
        """A fair place's win share (the edge's zero): 1/players, or the average seat-game's
        win when the game deals teams."""
        return self.first_player_share - self.first_player_edge


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
    symmetric = ws.symmetric
    chi2 = p = ochi2 = op = None
    if symmetric:
        chi2, p = _chi2_equal(seat["wins"].to_numpy())
        ochi2, op = _chi2_equal(order["wins"].to_numpy())
    first = order.filter(pl.col("order") == 0)
    fair = float(order["fair"][0]) if order.height else 1.0 / max(n, 1)
    if first.height:
        share, lo, hi = (float(first[c][0]) for c in ("share", "lo", "hi"))
    else:
        share = lo = hi = float("nan")
    edge, edge_lo, edge_hi = share - fair, lo - fair, hi - fair
    if ws.first_edge is not None:  # dealt teams: the per-game difference's normal interval
        m, se = ws.first_edge
        z = _z(ws.level)
        edge, edge_lo, edge_hi = m, m - z * se, m + z * se
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
        first_player_edge=edge,
        edge_lo=edge_lo,
        edge_hi=edge_hi,
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
