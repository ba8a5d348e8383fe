"""Turns, dead turns and kingmaking with intervals, from a census (balance/census.py).

The census frame has one row per game and seat (``game``, ``seat``, ``order``: the place in the
turn order, 0 the first; ``turns``, ``dead_turns``, ``decisions``, ``forced``, ``tested``,
``kingmaking``). Games are independent (their seeds' streams); a game's seats are not, so every
interval is taken over games:

- a mean per game (turns of a place): a t-interval over games;
- a share of a count (dead turns among turns, forced decisions among decisions, kingmaking
  decisions among those tested): the ratio of the sums, with the ratio estimator's
  game-clustered standard error (the delta method: the residuals ``d_g - r t_g`` of each game,
  summed over its rows) and a t quantile on games - 1 degrees of freedom;
- the share of games with a kingmaking decision: Wilson's interval;
- the turns the first place takes more than the last: the per-game paired difference, a
  t-interval.

A table read row by row (every place) gives simultaneous intervals: each at level
``1 - (1 - level) / rows`` (Bonferroni), so all of them hold together at ``level``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
from scipy import stats as sps

from balance.stats.paired import mean_interval, moments
from balance.stats.winrates import wilson_interval

SUMMARY_SCHEMA = {
    "metric": pl.String,
    "words": pl.String,
    "kind": pl.String,  # "rate" (a share: percent) or "mean"
    "games": pl.Int64,
    "mean": pl.Float64,
    "lo": pl.Float64,
    "hi": pl.Float64,
}


def zero_bound(den: np.ndarray, level: float = 0.95) -> float:
    """The upper end of a share Σnum / Σden whose numerator was 0 in every game (no dead turn,
    no kingmaking among the decisions tested), where the delta method's interval has no width.
    With ``m`` games that have a denominator and num <= den <= T_max in each, a game has a
    nonzero numerator with chance at least ``rho·E[den] / T_max`` (rho the share), so all ``m``
    at 0 has chance at most ``(1 - rho·E[den] / T_max)^m``; the shares for which that is at
    least ``(1 - level) / 2`` end at ``(1 - ((1 - level) / 2)^(1/m))·T_max / E[den]``, with the
    largest and the mean denominator observed put in. The same bound holds for a share at 1
    (every game's numerator its denominator), from below."""
    d = np.asarray(den, np.float64)
    d = d[d > 0]
    if len(d) == 0:
        return float("nan")
    u = (1.0 - ((1.0 - level) / 2.0) ** (1.0 / len(d))) * d.max() / d.mean()
    return float(min(1.0, u))


def ratio_interval(
    num: np.ndarray, den: np.ndarray, level: float = 0.95
) -> tuple[float, float, float]:
    """Σnum / Σden over games (one value of each a game) with the ratio estimator's
    game-clustered interval (module docstring); NaN when no game has a denominator. A share at
    0 (or 1) in every game has no spread to estimate from: its interval is then [0, u] (or
    [1 - u, 1]) with u from :func:`zero_bound`."""
    num = np.asarray(num, np.float64)
    den = np.asarray(den, np.float64)
    n = len(num)
    if n == 0 or den.sum() == 0:
        return float("nan"), float("nan"), float("nan")
    r = num.sum() / den.sum()
    if num.sum() == 0:
        return 0.0, 0.0, zero_bound(den, level)
    if num.sum() == den.sum():
        return 1.0, 1.0 - zero_bound(den, level), 1.0
    if n < 2:
        return float(r), float("nan"), float("nan")
    resid = num - r * den
    se = np.sqrt((resid**2).sum() / (n * (n - 1))) / den.mean()
    t = sps.t.ppf(0.5 + level / 2, n - 1)
    return float(r), float(max(0.0, r - t * se)), float(min(1.0, r + t * se))


def _per_game(frame: pl.DataFrame) -> pl.DataFrame:
    """One row per game: its sums, the turns of its first and last places and the first's more
    than the last's (``first_minus_last``), and 1.0 when any decision was kingmaking
    (``kingmade``, else 0.0)."""
    last = frame["order"].max()
    return (
        frame.group_by("game")
        .agg(
            pl.col("turns").sum(),
            pl.col("dead_turns").sum(),
            pl.col("decisions").sum(),
            pl.col("forced").sum(),
            pl.col("tested").sum(),
            pl.col("kingmaking").sum(),
            pl.col("turns").filter(pl.col("order") == 0).first().alias("first_turns"),
            pl.col("turns").filter(pl.col("order") == last).first().alias("last_turns"),
        )
        .with_columns(
            first_minus_last=(pl.col("first_turns") - pl.col("last_turns")).cast(pl.Float64),
            kingmade=(pl.col("kingmaking") > 0).cast(pl.Float64),
        )
        .sort("game")
    )


# The census's measures a sweep draws at each point and compares between neighbours
# (stats/curves.py): the others (all seats' turns, forced decisions, the tested share) stay in
# the census's own table
SWEPT = ("first_minus_last", "dead_turns", "kingmaking_games")
# The census's per-game measures (:func:`per_game_values`): what ``balance check`` can assert
PER_GAME = ("dead_turns", "forced", "first_minus_last", "kingmaking_games")


def per_game_values(frame: pl.DataFrame) -> dict[str, np.ndarray]:
    """Each game's value of each measure of :data:`PER_GAME`, in game order: its share of dead
    turns (NaN without a turn) and of forced decisions (NaN without a decision), the turns its
    first place took more than its last, and 1.0 when it had a kingmaking decision, else 0.0.
    Averaged over games, the shares weigh every game alike (the summary's ratios weigh them by
    their turns or decisions)."""
    g = _per_game(frame)

    def share(num: str, den: str) -> np.ndarray:
        d = g[den].to_numpy().astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(d > 0, g[num].to_numpy() / d, np.nan)

    return {
        "dead_turns": share("dead_turns", "turns"),
        "forced": share("forced", "decisions"),
        "first_minus_last": g["first_minus_last"].to_numpy(),
        "kingmaking_games": g["kingmade"].to_numpy(),
    }


def summary(frame: pl.DataFrame, level: float = 0.95, *, kingmaking: bool = True) -> pl.DataFrame:
    """One row per measure (:data:`SUMMARY_SCHEMA`), each with its ``level`` interval."""
    g = _per_game(frame)
    n = g.height
    rows: list[tuple[Any, ...]] = []

    def mean_row(metric: str, words: str, v: np.ndarray) -> None:
        mi = mean_interval(moments(np.asarray(v, np.float64)[:, None]), level)
        rows.append((metric, words, "mean", n, float(mi.mean[0]), float(mi.lo[0]), float(mi.hi[0])))

    def ratio_row(metric: str, words: str, num: str, den: str) -> None:
        r, lo, hi = ratio_interval(g[num].to_numpy(), g[den].to_numpy(), level)
        rows.append((metric, words, "rate", n, r, lo, hi))

    mean_row("turns", "turns a game (all seats)", g["turns"].to_numpy())
    mean_row(
        "first_minus_last",
        "turns the first place takes more than the last",
        g["first_minus_last"].to_numpy(),
    )
    ratio_row("dead_turns", "turns in which the seat had no choice", "dead_turns", "turns")
    ratio_row("forced", "decisions with a single legal option", "forced", "decisions")
    if kingmaking:
        share = float(g["kingmade"].mean()) if n else float("nan")  # type: ignore[arg-type]
        lo, hi = wilson_interval(share, n, level)
        rows.append(
            ("kingmaking_games", "games with a kingmaking decision", "rate", n, share,
             float(lo), float(hi))
        )  # fmt: skip
        ratio_row(
            "kingmaking_share",
            "tested decisions of losing seats that picked the winner",
            "kingmaking",
            "tested",
        )
    return pl.DataFrame(rows, schema=SUMMARY_SCHEMA, orient="row")


def by(frame: pl.DataFrame, key: str = "order", level: float = 0.95) -> pl.DataFrame:
    """One row per value of ``key`` (``order``: the place in the turn order; ``seat``): mean
    turns, dead-turn share, kingmaking decisions a game and win share, each interval
    simultaneous over the table's rows (Bonferroni)."""
    keys = sorted(frame[key].unique().to_list())
    each = 1.0 - (1.0 - level) / max(len(keys), 1)
    out = []
    for k in keys:
        part = frame.filter(pl.col(key) == k).sort("game")
        n = part.height
        t = mean_interval(moments(part["turns"].to_numpy().astype(np.float64)[:, None]), each)
        d = ratio_interval(part["dead_turns"].to_numpy(), part["turns"].to_numpy(), each)
        km = mean_interval(moments(part["kingmaking"].to_numpy().astype(np.float64)[:, None]), each)
        won = part["won"].to_numpy()
        wlo, whi = wilson_interval(float(won.mean()) if n else np.nan, n, each)
        out.append(
            {
                key: int(k),
                "games": n,
                "turns": float(t.mean[0]),
                "turns_lo": float(t.lo[0]),
                "turns_hi": float(t.hi[0]),
                "dead_share": d[0],
                "dead_lo": d[1],
                "dead_hi": d[2],
                "kingmaking": float(km.mean[0]),
                "kingmaking_lo": float(max(0.0, km.lo[0])),
                "kingmaking_hi": float(km.hi[0]),
                "win_share": float(won.mean()) if n else float("nan"),
                "win_lo": float(wlo),
                "win_hi": float(whi),
            }
        )
    return pl.DataFrame(out)


def sentences(
    summary_frame: pl.DataFrame, places: pl.DataFrame, *, kingmaking: bool, window: float
) -> list[str]:
    """What the census says, each claim only where its interval supports it."""
    from balance.fmt import pct

    row = {r["metric"]: r for r in summary_frame.to_dicts()}
    out = []
    d = row["first_minus_last"]
    if d["lo"] > 0 or d["hi"] < 0:
        more = "more" if d["mean"] > 0 else "fewer"
        out.append(
            f"The first place in the turn order takes {abs(d['mean']):.2f} {more} turns a game "
            f"than the last [{d['lo']:+.2f}, {d['hi']:+.2f}]."
        )
    else:
        out.append(
            f"No difference in turns between the first and the last place is determined: "
            f"{d['mean']:+.2f} [{d['lo']:+.2f}, {d['hi']:+.2f}] turns a game."
        )
    dead = row["dead_turns"]
    out.append(
        f"{pct(dead['mean'])} [{pct(dead['lo'])}, {pct(dead['hi'])}] of the turns are dead "
        f"(the seat had no choice); {pct(row['forced']['mean'])} of all decisions offer a "
        "single option."
    )
    if kingmaking:
        km = row["kingmaking_games"]
        ks = row["kingmaking_share"]
        out.append(
            f"In {pct(km['mean'])} [{pct(km['lo'])}, {pct(km['hi'])}] of the games a seat that "
            f"could not win picked the winner with one decision in the game's last "
            f"{pct(window, 0)} of decisions ({pct(ks['mean'])} [{pct(ks['lo'])}, {pct(ks['hi'])}] of the losing seats' "
            "decisions tested there)."
        )
    return out


def by_kind(kinds: pl.DataFrame, games: int, level: float = 0.95) -> pl.DataFrame:
    """One row per decision kind with a decision tested for kingmaking (``kinds``: the census's
    KINDS_SCHEMA rows): decisions tested, kingmaking, and the kingmaking share of the tested with
    its game-clustered ratio interval (games without such a decision count 0 of 0), simultaneous
    over the kinds; the most kingmaking first."""
    names = sorted(kinds["kind"].unique().to_list()) if kinds.height else []
    each = 1.0 - (1.0 - level) / max(len(names), 1)
    out = []
    for k in names:
        part = kinds.filter(pl.col("kind") == k)
        tested = np.zeros(games)
        king = np.zeros(games)
        idx = part["game"].to_numpy()  # a census holds games 0 to games - 1
        keep = (idx >= 0) & (idx < games)
        np.add.at(tested, idx[keep], part["tested"].to_numpy()[keep])
        np.add.at(king, idx[keep], part["kingmaking"].to_numpy()[keep])
        r, lo, hi = ratio_interval(king, tested, each)
        out.append(
            {
                "kind": k,
                "tested": int(tested.sum()),
                "kingmaking": int(king.sum()),
                "games": int((king > 0).sum()),
                "share": r,
                "lo": lo,
                "hi": hi,
            }
        )
    schema = {"kind": pl.String, "tested": pl.Int64, "kingmaking": pl.Int64, "games": pl.Int64,
              "share": pl.Float64, "lo": pl.Float64, "hi": pl.Float64}  # fmt: skip
    return pl.DataFrame(out, schema=schema).sort("kingmaking", "tested", descending=True)


# ======================================================================= two censuses, paired

PAIRED_SCHEMA = {
    "metric": pl.String,
    "words": pl.String,
    "kind": pl.String,  # "rate" (a share: percent) or "mean"
    "games": pl.Int64,
    "a": pl.Float64,
    "b": pl.Float64,
    "diff": pl.Float64,
    "lo": pl.Float64,
    "hi": pl.Float64,
    "p_value": pl.Float64,
}


def _ratio_change(
    num_a: np.ndarray, den_a: np.ndarray, num_b: np.ndarray, den_b: np.ndarray, level: float
) -> tuple[float, float, float, float, float, float]:
    """(a, b, b - a, lo, hi, p) for two ratio estimators over the same games: the difference's
    game-clustered standard error is the delta method's on the paired residuals
    ``(num_b - r_b den_b) / mean(den_b) - (num_a - r_a den_a) / mean(den_a)`` of each game."""
    n = len(num_a)
    if n < 2 or den_a.sum() == 0 or den_b.sum() == 0:
        return (float("nan"),) * 6
    if num_a.sum() == 0 and num_b.sum() == 0:  # both at 0 in every game: zero_bound's ends
        return 0.0, 0.0, 0.0, -zero_bound(den_a, level), zero_bound(den_b, level), 1.0
    ra, rb = num_a.sum() / den_a.sum(), num_b.sum() / den_b.sum()
    u = (num_b - rb * den_b) / den_b.mean() - (num_a - ra * den_a) / den_a.mean()
    se = float(np.sqrt((u**2).sum() / (n * (n - 1))))
    d = float(rb - ra)
    t = sps.t.ppf(0.5 + level / 2, n - 1)
    if se == 0:
        return float(ra), float(rb), d, d, d, 1.0 if d == 0 else 0.0
    p = float(2 * sps.t.sf(abs(d) / se, n - 1))
    return float(ra), float(rb), d, d - t * se, d + t * se, p


def paired_summary(
    a: pl.DataFrame, b: pl.DataFrame, level: float = 0.95, *, kingmaking: bool = True
) -> pl.DataFrame:
    """B - A of every :func:`summary` measure for the censuses of the same games of two configs
    (``balance compare --census``): means as paired t-intervals over games, shares of counts as
    the difference of two ratio estimators with its game-clustered interval, the share of games
    with kingmaking as the paired difference of 0/1 per game; then ``q_value`` and
    ``significant`` by the one rule (each measure its own family, times their number)."""
    from balance.stats.multiple import adjust

    ga, gb = _per_game(a), _per_game(b)
    if ga["game"].to_list() != gb["game"].to_list():
        raise ValueError("paired censuses must hold the same games")
    n = ga.height
    rows: list[tuple[Any, ...]] = []

    def mean_row(
        metric: str, words: str, va: np.ndarray, vb: np.ndarray, kind: str = "mean"
    ) -> None:
        d = mean_interval(moments((vb - va).astype(np.float64)[:, None]), level)
        rows.append(
            (metric, words, kind, n, float(va.mean()), float(vb.mean()), float(d.mean[0]),
             float(d.lo[0]), float(d.hi[0]), float(d.p_value[0]))
        )  # fmt: skip

    def ratio_row(metric: str, words: str, num: str, den: str) -> None:
        col = lambda g, c: g[c].to_numpy().astype(np.float64)  # noqa: E731
        change = _ratio_change(col(ga, num), col(ga, den), col(gb, num), col(gb, den), level)
        rows.append((metric, words, "rate", n, *change))

    mean_row("turns", "turns a game (all seats)", *(g["turns"].to_numpy() for g in (ga, gb)))
    mean_row(
        "first_minus_last",
        "turns the first place takes more than the last",
        ga["first_minus_last"].to_numpy(),
        gb["first_minus_last"].to_numpy(),
    )
    ratio_row("dead_turns", "turns in which the seat had no choice", "dead_turns", "turns")
    ratio_row("forced", "decisions with a single legal option", "forced", "decisions")
    if kingmaking:
        mean_row(
            "kingmaking_games",
            "games with a kingmaking decision",
            ga["kingmade"].to_numpy(),
            gb["kingmade"].to_numpy(),
            "rate",  # a share of games (0 or 1 a game), shown in percent
        )
        ratio_row(
            "kingmaking_share",
            "tested decisions of losing seats that picked the winner",
            "kingmaking",
            "tested",
        )
    return adjust(pl.DataFrame(rows, schema=PAIRED_SCHEMA, orient="row"))
