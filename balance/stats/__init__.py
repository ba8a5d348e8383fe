"""Statistics of results datasets: pure functions of the rows (and the manifest), no drawing.

The rows are the results dataset (balance/results/): a polars LazyFrame or DataFrame with one
row per (game, seat). Every function returns NamedTuples of numbers and small polars frames,
which the CLI prints and the report draws. Nothing here imports a game.

- winrates.py: win shares with Wilson intervals, seat advantage, score and length distributions;
- impact.py: observational card impact (diagnostics) with game-clustered variance, Newcombe
  intervals;
- multiple.py: the one significance rule (Benjamini-Hochberg within each metric of a table,
  Bonferroni across its metrics);
- groups.py: the group kinds (seat, place in the turn order, policy, team, role) and the per-game
  value of each group, taken from the rows of each game;
- paired.py: paired differences between two runs of the same seeds (t-interval over games),
  and unpaired ones (Newcombe, Welch) for runs that did not play the same games;
- axes.py: every axis of balance (places, chairs, sides, roles, policy by place) against its
  reference with simultaneous intervals, judged against a tolerance;
- sequential.py: SPRTs for balance claims, decided batch by batch;
- plays.py: how a game plays, from its trajectories (results.open_trace): lead changes,
  comebacks, the winner's largest deficit, when the game was decided, margin of victory, and
  at each tenth of the game the share of games whose eventual winner led;
- trend.py: a sweep's trend, the least-squares slope of a metric on a numeric knob across the
  points of a curve, as a contrast of per-game values (the points share their games).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import polars as pl

from balance.stats.axes import AXES, Axis, balance_axes
from balance.stats.groups import (
    KINDS,
    GameArrays,
    Group,
    Lineup,
    common_groups,
    config_lineup,
    group_values,
    groups,
    seat_codes,
)
from balance.stats.impact import (
    CAVEAT,
    CardImpact,
    card_impact,
    newcombe_interval,
    telemetry_columns,
    two_proportion_p,
)
from balance.stats.multiple import RULE, Q, adjust, bh_qvalues
from balance.stats.paired import (
    METHOD,
    UNPAIRED_METHOD,
    MeanInterval,
    Moments,
    Paired,
    PairedAccumulator,
    game_arrays,
    mean_interval,
    merge_moments,
    moments,
    paired_differences,
    unpaired_differences,
)
from balance.stats.sequential import (
    SPRT,
    Claim,
    SequentialAssertion,
    bernoulli_llr,
    decide,
    fixed_sample_size,
    normal_llr,
    sprt_bounds,
    within,
)
from balance.stats.trend import (
    TREND_COLUMNS,
    adjust_sweep,
    identical_points,
    independent_contrast,
    paired_contrast,
    slope_coefficients,
    trend_rows,
)
from balance.stats.winrates import (
    QUANTILES,
    Distributions,
    SeatAdvantage,
    Summary,
    WinShares,
    distributions,
    seat_advantage,
    wilson_interval,
    win_shares,
)


class Description(NamedTuple):
    """Everything the report shows about one dataset."""

    games: int
    players: int
    win_shares: WinShares
    seat_advantage: SeatAdvantage
    distributions: Distributions
    card_impact: CardImpact


def describe(
    rows: pl.LazyFrame | pl.DataFrame,
    manifest: dict[str, Any] | None = None,
    *,
    level: float = 0.95,
) -> Description:
    """Win shares, seat advantage, distributions and observational card impact of a dataset."""
    shares = win_shares(rows, level=level)
    return Description(
        games=shares.games,
        players=shares.players,
        win_shares=shares,
        seat_advantage=seat_advantage(rows, level=level, shares=shares),
        distributions=distributions(rows),
        card_impact=card_impact(rows, manifest, level=level),
    )


__all__ = [
    "AXES",
    "CAVEAT",
    "KINDS",
    "METHOD",
    "QUANTILES",
    "RULE",
    "SPRT",
    "TREND_COLUMNS",
    "UNPAIRED_METHOD",
    "Axis",
    "CardImpact",
    "Claim",
    "Description",
    "Distributions",
    "GameArrays",
    "Group",
    "Lineup",
    "MeanInterval",
    "Moments",
    "Paired",
    "PairedAccumulator",
    "Q",
    "SeatAdvantage",
    "SequentialAssertion",
    "Summary",
    "WinShares",
    "adjust",
    "adjust_sweep",
    "balance_axes",
    "bernoulli_llr",
    "bh_qvalues",
    "card_impact",
    "common_groups",
    "config_lineup",
    "decide",
    "describe",
    "distributions",
    "fixed_sample_size",
    "game_arrays",
    "group_values",
    "groups",
    "identical_points",
    "independent_contrast",
    "mean_interval",
    "merge_moments",
    "moments",
    "newcombe_interval",
    "normal_llr",
    "paired_contrast",
    "paired_differences",
    "seat_advantage",
    "seat_codes",
    "slope_coefficients",
    "sprt_bounds",
    "telemetry_columns",
    "trend_rows",
    "two_proportion_p",
    "unpaired_differences",
    "wilson_interval",
    "win_shares",
    "within",
]
