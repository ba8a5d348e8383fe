"""Observational card impact: win share of seat-games with an event on a card against without.

For every telemetry column ``<event>__<card>`` (``drawn__gem``, ``captured__six``, ...) the rows
split into those where the count is > 0 and those where it is 0; the table gives both win shares,
their difference with a Newcombe hybrid-score interval (Newcombe 1998, method 10), a two-sided
z-test p-value and Benjamini-Hochberg q-values across the whole table.

These are DIAGNOSTICS, not effects: which seats draw, steal or capture a card depends on the
game's course (long games draw more cards, a leading seat steals differently), so a difference
here mixes the card's worth with selection effects. The causal measure is the interventional
impact of ``balance impact`` (balance/experiments.py): the same seeds with the card changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import polars as pl
from scipy import stats as sps

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


def bh_qvalues(p_values: np.ndarray | Sequence[float]) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (q-values); NaN p-values stay NaN and do not count."""
    p = np.asarray(p_values, dtype=np.float64)
    q = np.full_like(p, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        q[ok] = sps.false_discovery_control(p[ok], method="bh")
    return q


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


def card_impact(
    rows: pl.LazyFrame | pl.DataFrame,
    manifest: dict[str, Any] | None = None,
    *,
    columns: Sequence[str] | None = None,
    by: str | None = None,
    level: float = 0.95,
) -> CardImpact:
    """Win share with the event (count > 0) against without, for every telemetry column.

    ``by`` (e.g. ``"policy"``) splits the table by that column, so that a mixed line-up does not
    compare one policy's seat-games with another's; q-values still span the whole table.
    """
    _z(level)
    lf = _lazy(rows)
    cols = list(columns) if columns is not None else telemetry_columns(lf, manifest)
    win = pl.col("win")
    exprs = [pl.len().alias("_n"), win.sum().alias("_w")]
    for i, c in enumerate(cols):
        has = pl.col(c) > 0
        exprs += [
            has.sum().alias(f"n{i}"),
            pl.when(has).then(win).otherwise(0.0).sum().alias(f"w{i}"),
        ]
    agg = (lf.group_by(by).agg(exprs).sort(by) if by else lf.select(exprs)).collect()
    g = agg.height
    k = len(cols)
    n_all = np.repeat(agg["_n"].to_numpy().astype(np.float64), k)
    w_all = np.repeat(agg["_w"].to_numpy().astype(np.float64), k)
    n1 = (
        np.column_stack([agg[f"n{i}"].to_numpy() for i in range(k)]).ravel().astype(np.float64)
        if k
        else np.zeros(0)
    )
    w1 = np.column_stack([agg[f"w{i}"].to_numpy() for i in range(k)]).ravel() if k else np.zeros(0)
    n0, w0 = n_all - n1, w_all - w1
    with np.errstate(divide="ignore", invalid="ignore"):
        p1 = np.where(n1 > 0, w1 / n1, np.nan)
        p0 = np.where(n0 > 0, w0 / n0, np.nan)
    lo, hi = newcombe_interval(p1, n1, p0, n0, level)
    z, p = two_proportion_p(p1, n1, p0, n0)
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
            "diff": p1 - p0,
            "lo": lo,
            "hi": hi,
            "z": z,
            "p_value": p,
            "q_value": q,
        },
        schema_overrides={"column": pl.String, "event": pl.String, "card": pl.String},
    )
    # Untestable rows (no seat-game with, or without, the event) hold nulls, not NaN, so that
    # sorting and filtering behave.
    floats = ["share_with", "share_without", "diff", "lo", "hi", "z", "p_value", "q_value"]
    table = table.with_columns(pl.col(floats).fill_nan(None))
    table = table.with_columns(significant=(pl.col("q_value") < (1 - level)).fill_null(False))
    if by:
        table = table.insert_column(0, pl.Series(by, np.repeat(agg[by].to_numpy(), k)))
    return CardImpact(table=table, level=level, kind="observational", caveat=CAVEAT)
