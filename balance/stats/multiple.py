"""The one significance rule: Benjamini-Hochberg within each metric, Bonferroni across metrics.

A report or a CLI table of dozens of differences (every seat, place in the turn order, policy,
team and role, win share and mean score, and game length; times every variant of an impact run)
holds a few intervals that exclude 0 by chance at any level. So no row is starred, coloured or
turned into a sentence on its own interval: ``significant`` is ``q_value < Q``.

``q_value`` is the Benjamini-Hochberg adjusted p-value within the row's *family*, the rows of one
metric (win share, mean score, game length) across the whole table, multiplied by the number of
families (capped at 1). Each family's false discovery rate is then at most Q / m for m families,
so the whole table's is at most Q (the false proportion of the stars is at most the sum of the
families'), and when nothing changed at all the chance of a single star is at most Q. A table of
one metric (observational card impact) is plain Benjamini-Hochberg. The families keep a metric
with many real changes (a rule change that lengthens every game moves every mean score) from
lowering the bar for the others (the seats of a symmetric line-up, which no rule can favour).
The intervals printed beside the stars stay per-row (unadjusted) intervals at the table's level.

A family is every row of the metric with a p-value, except:

- rows without a test (p is NaN): a share that the rules fix (a policy that holds every seat),
  a column with no variation on either side;
- rows that repeat another row of the same table: a policy or team of exactly one seat, fixed
  for the run, has its seat's numbers game by game. It is left out and gets its seat's q-value,
  so that a duplicate neither counts twice nor escapes the rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl
from scipy import stats as sps

RULE = (
    "q < 0.05: Benjamini-Hochberg within each metric (win share, mean score, game length), times "
    "the number of metrics"
)  # how every table, page and sentence says the rule
Q = 0.05  # a row is significant when its q-value (module docstring) is below this


def bh_qvalues(p_values: np.ndarray | Sequence[float]) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (q-values); NaN p-values stay NaN and do not count."""
    p = np.asarray(p_values, dtype=np.float64)
    q = np.full_like(p, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        q[ok] = sps.false_discovery_control(p[ok], method="bh")
    return q


def q_values_apart(table: pl.DataFrame, apart: Sequence[str]) -> np.ndarray:
    """The q-values of :func:`adjust` with the metrics ``apart`` a family of their own: the rows
    of those metrics adjusted among themselves (BH within each, times their number), the others
    among themselves, so neither dilutes the other (how the game plays, stats/plays.py, beside
    the win shares in a sweep's steps and trends)."""
    own = table["metric"].is_in(list(apart)).to_numpy()
    q = np.full(table.height, np.nan)
    for part in (own, ~own):
        if part.any():
            q[part] = adjust(table.filter(pl.Series(part)))["q_value"].to_numpy()
    return q


def adjust(
    table: pl.DataFrame,
    *,
    repeats: Mapping[tuple[str, str], int] | None = None,
    within: Sequence[str] = (),
) -> pl.DataFrame:
    """``q_value`` (BH within each ``metric``, times the number of metrics; see the module
    docstring) and ``significant`` (q < Q) for a table with ``p_value`` (and ``kind``, ``group``
    when ``repeats`` is given; a table without ``metric`` is one family).

    ``repeats`` maps a (kind, group) that repeats a seat's row to that seat; the repeat takes
    the q-value of the row with the same ``metric`` (and the same ``within`` columns, e.g.
    ``variant``) for that seat.
    """
    p = table["p_value"].cast(pl.Float64).fill_null(float("nan")).to_numpy().copy()
    repeat = np.zeros(table.height, dtype=bool)
    if repeats:
        keys = zip(table["kind"].to_list(), table["group"].to_list(), strict=True)
        repeat = np.array([k in repeats for k in keys], dtype=bool)
    tested = ~np.isnan(p) & ~repeat
    metric = table["metric"].to_numpy() if "metric" in table.columns else np.zeros(table.height)
    families = [m for m in dict.fromkeys(metric[tested].tolist())]
    q = np.full(table.height, np.nan)
    for m in families:
        rows = tested & (metric == m)
        q[rows] = np.minimum(1.0, len(families) * bh_qvalues(p[rows]))
    if repeat.any():
        assert repeats is not None
        key_cols = ["metric", *within]
        index = {
            (*(r[c] for c in key_cols), r["group"]): i
            for i, r in enumerate(table.select(*key_cols, "kind", "group").iter_rows(named=True))
            if r["kind"] == "seat"
        }
        for i in np.flatnonzero(repeat):
            r = table.row(int(i), named=True)
            seat = repeats[(r["kind"], r["group"])]
            j = index.get((*(r[c] for c in key_cols), str(seat)))
            q[i] = q[j] if j is not None else np.nan
    return table.with_columns(
        q_value=pl.Series(q),
        significant=pl.Series(np.nan_to_num(q, nan=1.0) < Q),
    )
