"""Observational card impact: win share of seat-games with an event on a card against without.

For every telemetry column ``<event>__<card>`` (``drawn__gem``, ``captured__six``, ...) the rows
split into those where the count is > 0 and those where it is 0; the table gives both win shares,
their difference with an interval, a two-sided z-test p-value and Benjamini-Hochberg q-values
across the whole table.

The seat-games of one game are not independent (its seats' wins add up to 1, and whether one
seat captures a card changes what the others can), so the variance is **clustered by game**: the
two shares are ratio estimators over games, and the variance of their difference is the
linearised (sandwich) variance ``G/(G - 1) · Σ_g r_g²`` over the G games, with
``r_g = (w1_g - p1·n1_g)/N1 - (w0_g - p0·n0_g)/N0`` (n1_g seat-games with the event in game g and
w1_g their wins; n0_g, w0_g without; N1, N0 the totals). The z-test divides the difference by that
standard error; the interval is Newcombe's hybrid score interval (Newcombe 1998, method 10) with
each side's count divided by the design effect ``deff = V_clustered / V_independent``, so that it
has the clustered width while staying inside [-1, 1]. ``significant`` is q < 0.05
(balance/stats/multiple.py).

These are DIAGNOSTICS, not effects: which seats draw, steal or capture a card depends on the
game's course (long games draw more cards, a leading seat steals differently), so a difference
here mixes the card's worth with selection effects. The causal measure is the interventional
impact of ``balance impact`` (balance/experiments/impact.py): the same seeds with the card
changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import polars as pl
from scipy import stats as sps

from balance.stats._clustered import COLUMN_SUMS, GROUP_SUMS, accumulate
from balance.stats.multiple import Q, bh_qvalues
from balance.stats.winrates import _lazy, _z, wilson_interval

CAVEAT = (
    "diagnostic, not causal: seat-games with and without an event differ in more than the card "
    "(selection effects, e.g. long games draw more cards); use `balance impact` for effects"
)


def newcombe_interval(
    p1: np.ndarray | float,
    n1: np.ndarray | float,
    p2: np.ndarray | float,
    n2: np.ndarray | float,
    level: float = 0.95,
) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's hybrid score interval (method 10) for p1 - p2, from two Wilson intervals."""
    p1, p2 = np.asarray(p1, dtype=np.float64), np.asarray(p2, dtype=np.float64)
    l1, u1 = wilson_interval(p1, n1, level)
    l2, u2 = wilson_interval(p2, n2, level)
    d = p1 - p2
    return d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + np.sqrt(
        (u1 - p1) ** 2 + (p2 - l2) ** 2
    )


def two_proportion_p(
    p1: np.ndarray, n1: np.ndarray, p2: np.ndarray, n2: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(z, two-sided p) of the pooled two-proportion z-test; NaN where a side is empty."""
    p1, p2 = np.asarray(p1, dtype=np.float64), np.asarray(p2, dtype=np.float64)
    n1, n2 = np.asarray(n1, dtype=np.float64), np.asarray(n2, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        pooled = (p1 * n1 + p2 * n2) / (n1 + n2)
        se = np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
        z = (p1 - p2) / se
    z = np.where((n1 > 0) & (n2 > 0) & (se > 0), z, np.nan)
    z = np.where((n1 > 0) & (n2 > 0) & (se == 0), 0.0, z)  # no variation at all: no evidence
    return z, 2 * sps.norm.sf(np.abs(z))


class CardImpact(NamedTuple):
    """One row per telemetry column (and per ``by`` group when given), in column order.

    Columns: [by,] column, event, card, n_with, n_without, share_with, share_without, diff
    (share_with - share_without), lo, hi (Newcombe), z, p_value, q_value (BH over the whole
    table), significant (q_value < 1 - level). A column whose event happens in every seat-game,
    or in none, cannot be tested: its share, difference, interval and p/q-values are null.
    """

    table: pl.DataFrame
    level: float
    kind: str  # "observational"
    caveat: str  # say this wherever the table is shown


def telemetry_columns(
    rows: pl.LazyFrame | pl.DataFrame, manifest: dict[str, Any] | None = None
) -> list[str]:
    """The dataset's telemetry columns: the manifest's list, else every UInt8 ``a__b`` column."""
    if manifest and manifest.get("telemetry_columns") is not None:
        return list(manifest["telemetry_columns"])
    schema = _lazy(rows).collect_schema()
    return [c for c, t in schema.items() if "__" in c and t == pl.UInt8]


SLICE_GAMES = 1 << 17  # games read at a time: memory stays flat whatever the dataset's size


def card_impact(
    rows: pl.LazyFrame | pl.DataFrame,
    manifest: dict[str, Any] | None = None,
    *,
    columns: Sequence[str] | None = None,
    by: str | None = None,
    level: float = 0.95,
) -> CardImpact:
    """Win share with the event (count > 0) against without, for every telemetry column, with
    game-clustered variance (module docstring).

    ``by`` (e.g. ``"policy"``) splits the table by that column, so that a mixed line-up does not
    compare one policy's seat-games with another's; q-values still span the whole table.
    """
    _z(level)
    lf = _lazy(rows)
    cols = list(columns) if columns is not None else telemetry_columns(lf, manifest)
    k = len(cols)
    groups, sums = _clustered_sums(lf, cols, by)
    g = len(groups)
    S = {key: v.ravel() for key, v in sums.items() if key != "G"}  # (groups * k,) per sum
    G = float(sums["G"])
    n1, w1 = S["n1"], S["w1"]
    n_all, w_all = np.repeat(sums["N"], k), np.repeat(sums["W"], k)
    n0, w0 = n_all - n1, w_all - w1
    with np.errstate(divide="ignore", invalid="ignore"):
        p1 = np.where(n1 > 0, w1 / n1, np.nan)
        p0 = np.where(n0 > 0, w0 / n0, np.nan)
        var = _clustered_variance(S, sums, k, p1, p0, n1, n0, G)
        independent = p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0
        deff = np.where(independent > 0, var / independent, 1.0)
        se = np.sqrt(var)
        d = p1 - p0
        z = np.where(se > 0, d / se, np.where(d == 0, 0.0, np.sign(d) * np.inf))
        # deff = 0: no variation at all (every holder won, say): a zero-width interval
        lo, hi = newcombe_interval(p1, n1 / deff, p0, n0 / deff, level)
    testable = (n1 > 0) & (n0 > 0)
    z = np.where(testable, z, np.nan)
    p = 2 * sps.norm.sf(np.abs(z))
    q = bh_qvalues(p)
    events, cards = (
        zip(*(c.split("__", 1) if "__" in c else (c, "") for c in cols), strict=True)
        if k
        else ((), ())
    )
    table = pl.DataFrame(
        {
            "column": list(cols) * g,
            "event": list(events) * g,
            "card": list(cards) * g,
            "n_with": n1.astype(np.int64),
            "n_without": n0.astype(np.int64),
            "share_with": p1,
            "share_without": p0,
            "diff": d,
            "se": np.where(testable, se, np.nan),
            "deff": np.where(testable, deff, np.nan),
            "lo": np.where(testable, lo, np.nan),
            "hi": np.where(testable, hi, np.nan),
            "z": z,
            "p_value": p,
            "q_value": q,
        },
        schema_overrides={"column": pl.String, "event": pl.String, "card": pl.String},
    )
    # Untestable rows (no seat-game with, or without, the event) hold nulls, not NaN, so that
    # sorting and filtering behave.
    floats = [
        "share_with", "share_without", "diff", "se", "deff", "lo", "hi", "z", "p_value", "q_value"
    ]  # fmt: skip
    table = table.with_columns(pl.col(floats).fill_nan(None))
    table = table.with_columns(significant=(pl.col("q_value") < Q).fill_null(False))
    if by:
        table = table.insert_column(0, pl.Series(by, np.repeat(np.asarray(groups), k)))
    return CardImpact(table=table, level=level, kind="observational", caveat=CAVEAT)


def _clustered_variance(S, sums, k, p1, p0, n1, n0, G):  # type: ignore[no-untyped-def]
    """The linearised variance of p1 - p0 over games (module docstring), from the sums of
    per-game products: w0 = W - w1 and n0 = N - n1 within each game."""
    NN, WW, NW = (np.repeat(sums[key], k) for key in ("NN", "WW", "NW"))
    a = S["w1w1"] - 2 * p1 * S["w1n1"] + p1 * p1 * S["n1n1"]
    w0w0 = WW - 2 * S["w1W"] + S["w1w1"]
    w0n0 = NW - S["w1N"] - S["n1W"] + S["w1n1"]
    n0n0 = NN - 2 * S["n1N"] + S["n1n1"]
    b = w0w0 - 2 * p0 * w0n0 + p0 * p0 * n0n0
    w1w0 = S["w1W"] - S["w1w1"]
    w1n0 = S["w1N"] - S["w1n1"]
    n1w0 = S["n1W"] - S["w1n1"]
    n1n0 = S["n1N"] - S["n1n1"]
    c = w1w0 - p0 * w1n0 - p1 * n1w0 + p1 * p0 * n1n0
    v = a / (n1 * n1) + b / (n0 * n0) - 2 * c / (n1 * n0)
    return np.maximum(v, 0.0) * (G / (G - 1) if G > 1 else np.nan)


def _clustered_sums(
    lf: pl.LazyFrame, cols: Sequence[str], by: str | None
) -> tuple[list[Any], dict[str, np.ndarray]]:
    """Per ``by`` group (one group when None) and telemetry column, the sums over games of the
    per-game counts and their products that the clustered variance needs. Reads the rows a slice
    of games at a time; a dataset's rows are sorted by game and seat with every seat of a game
    (anything else is sorted first)."""
    k = len(cols)
    names = lf.collect_schema().names()
    need = ["game", "seat", "win", *([by] if by else []), *cols]
    missing = [c for c in need if c not in names]
    if missing:
        raise ValueError(f"the rows have no column {missing[0]!r}")
    groups: list[Any] = (
        lf.select(pl.col(by).unique().sort()).collect()[by].to_list() if by else [None]
    )
    n_groups = len(groups)
    per_column = np.zeros((n_groups, k, len(COLUMN_SUMS)))
    per_group = np.zeros((n_groups, len(GROUP_SUMS)))
    games = 0
    players = int(lf.select(pl.col("seat").max()).collect().item() or 0) + 1
    for df in _slices(lf.select(need), players):
        games += df.height // players
        # polars hands a frame over column-major: its transpose is a C array, a row per column
        tel = np.ascontiguousarray(df.select(cols).to_numpy(order="fortran").T, dtype=np.uint8)
        win = np.ascontiguousarray(df["win"].to_numpy(), dtype=np.float64)
        if by:
            codes = df[by].replace_strict(groups, range(n_groups), return_dtype=pl.Int32)
            codes = np.ascontiguousarray(codes.to_numpy())
        else:
            codes = np.zeros(df.height, dtype=np.int32)
        accumulate(tel, win, codes, players, per_column, per_group)
    sums = {key: per_column[:, :, j] for j, key in enumerate(COLUMN_SUMS)}
    sums.update({key: per_group[:, j] for j, key in enumerate(GROUP_SUMS)})
    sums["G"] = np.asarray(float(games))
    return groups, sums


def _slices(lf: pl.LazyFrame, players: int) -> Any:
    """The rows in slices of whole games, sorted by game and seat (sorting the whole frame
    first when a slice shows they are not, or that a game lacks a seat)."""
    total = int(lf.select(pl.len()).collect().item())
    step = SLICE_GAMES * players
    if total % players == 0:
        first = True
        for off in range(0, total, step):
            df = lf.slice(off, step).collect()
            if not _whole_games(df, players):
                break
            first = False
            yield df
        else:
            return
        if not first:  # the first slices were fine but a later one is not: start again sorted
            raise ValueError("every game of the dataset must have one row for each seat 0..P-1")
    df = lf.sort("game", "seat").collect()
    if not _whole_games(df, players):
        raise ValueError("every game of the dataset must have one row for each seat 0..P-1")
    for off in range(0, df.height, step):
        yield df.slice(off, step)


def _whole_games(df: pl.DataFrame, players: int) -> bool:
    if df.height % players:
        return False
    n = df.height // players
    seat = df["seat"].to_numpy().reshape(n, players)
    game = df["game"].to_numpy().reshape(n, players)
    return bool((seat == np.arange(players)).all() and (game == game[:, :1]).all())
