"""Observational card impact: Newcombe intervals, BH q-values and the table."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps
from statsmodels.stats.proportion import confint_proportions_2indep

from balance import stats

from .helpers import random_ranks, rows


@pytest.mark.parametrize(
    ("c1", "n1", "c2", "n2"),
    [(3, 10, 5, 12), (0, 20, 4, 25), (20, 20, 1, 30), (560, 2000, 480, 2100), (7, 9, 1, 3)],
)
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_newcombe_matches_statsmodels(c1, n1, c2, n2, level):
    lo, hi = stats.newcombe_interval(c1 / n1, n1, c2 / n2, n2, level)
    ref = confint_proportions_2indep(
        c1, n1, c2, n2, method="newcomb", compare="diff", alpha=1 - level
    )
    assert (float(lo), float(hi)) == (
        pytest.approx(ref[0], abs=1e-12),
        pytest.approx(ref[1], abs=1e-12),
    )


def test_bh_matches_scipy_and_keeps_nan():
    p = np.random.default_rng(5).uniform(0, 0.2, size=40)
    np.testing.assert_allclose(stats.bh_qvalues(p), sps.false_discovery_control(p, method="bh"))
    with_nan = np.concatenate([p[:10], [np.nan], p[10:]])
    q = stats.bh_qvalues(with_nan)
    assert np.isnan(q[10])
    np.testing.assert_allclose(np.delete(q, 10), sps.false_discovery_control(p, method="bh"))


def _planted(n=4000, seed=6):
    rng = np.random.default_rng(seed)
    rank = random_ranks(rng, n, 4, [1, 1, 1, 1])
    won = rank == 1
    key = np.where(won, rng.random((n, 4)) < 0.8, rng.random((n, 4)) < 0.2)  # mostly winners
    noise = rng.integers(0, 3, size=(n, 4))  # unrelated to winning
    tel = {"drawn__key": key.astype(np.uint8), "drawn__noise": noise, "played__never": 0 * noise}
    return rows(rank, telemetry=tel), won, key


def test_impact_table_finds_a_planted_card_and_counts_right():
    df, won, key = _planted()
    ci = stats.card_impact(df)
    assert ci.kind == "observational" and "selection" in ci.caveat
    assert ci.table["column"].to_list() == ["drawn__key", "drawn__noise", "played__never"]
    row = ci.table.row(0, named=True)
    assert (row["event"], row["card"]) == ("drawn", "key")
    assert (row["n_with"], row["n_without"]) == (key.sum(), (~key).sum())
    assert row["share_with"] == pytest.approx(won[key].mean())
    assert row["share_without"] == pytest.approx(won[~key].mean())
    # The interval is Newcombe's with each side's count divided by the design effect of the
    # game-clustered variance (checked against statsmodels below).
    deff = row["deff"]
    lo, hi = stats.newcombe_interval(
        won[key].mean(), key.sum() / deff, won[~key].mean(), (~key).sum() / deff
    )
    assert (row["lo"], row["hi"]) == (pytest.approx(float(lo)), pytest.approx(float(hi)))
    assert row["diff"] == pytest.approx(0.2 / 0.35 - 0.05 / 0.65, abs=0.05)  # Bayes
    assert row["significant"]
    noise = ci.table.row(1, named=True)
    assert noise["lo"] < 0 < noise["hi"] and not noise["significant"]
    never = ci.table.row(2, named=True)  # no seat-game has the event: no test
    assert never["n_with"] == 0 and never["p_value"] is None and not never["significant"]
    assert never["share_with"] is None and never["diff"] is None
    q = stats.bh_qvalues(ci.table["p_value"].fill_null(np.nan).to_numpy())
    np.testing.assert_allclose(ci.table["q_value"].fill_null(np.nan).to_numpy(), q)


def _cluster_se(y, x, games):
    """Cluster-robust (by game) standard error of the OLS slope of y on a 0/1 x: the difference
    of the two means, from statsmodels (no small-sample correction)."""
    import statsmodels.api as sm

    fit = sm.OLS(y, sm.add_constant(x.astype(float))).fit(
        cov_type="cluster", cov_kwds={"groups": games, "use_correction": False}
    )
    return float(fit.bse[1]), float(fit.params[1])


def test_the_variance_is_clustered_by_game_as_statsmodels_computes_it():
    # Winners mostly hold the key, so one game's seat-games are far from independent.
    df, won, key = _planted()
    ci = stats.card_impact(df, columns=["drawn__key"])
    row = ci.table.row(0, named=True)
    games = np.repeat(np.arange(won.shape[0]), 4)
    se, slope = _cluster_se(won.ravel().astype(float), key.ravel(), games)
    g = won.shape[0]
    assert row["diff"] == pytest.approx(slope)
    assert row["se"] == pytest.approx(se * np.sqrt(g / (g - 1)), rel=1e-9)
    naive = np.sqrt(
        won[key].mean() * (1 - won[key].mean()) / key.sum()
        + won[~key].mean() * (1 - won[~key].mean()) / (~key).sum()
    )
    assert row["deff"] == pytest.approx((row["se"] / naive) ** 2)
    # One winner a game: the seat-games of a game are dependent, and the variance is not that of
    # independent rows (here narrower: a game's key holders and non-holders move against each
    # other; in Five Ravens' games it is 1.0-1.2 times wider).
    assert abs(row["deff"] - 1) > 0.1
    assert row["p_value"] == pytest.approx(2 * sps.norm.sf(abs(row["diff"]) / row["se"]))


def test_clustered_variance_by_policy_is_each_policy_s_own():
    df, won, key = _planted()
    pol = np.where(np.arange(4) < 2, "a", "b")
    df = df.with_columns(policy=pl.Series(np.tile(pol, won.shape[0])))
    ci = stats.card_impact(df, columns=["drawn__key"], by="policy")
    games = np.repeat(np.arange(won.shape[0]), 2)
    for r in ci.table.iter_rows(named=True):
        seats = np.flatnonzero(pol == r["policy"])
        se, slope = _cluster_se(won[:, seats].ravel().astype(float), key[:, seats].ravel(), games)
        g = won.shape[0]
        assert r["diff"] == pytest.approx(slope)
        assert r["se"] == pytest.approx(se * np.sqrt(g / (g - 1)), rel=1e-9)


def test_rows_out_of_order_give_the_same_table():
    df, _, _ = _planted(500)
    a = stats.card_impact(df).table
    b = stats.card_impact(df.sample(fraction=1.0, shuffle=True, seed=3)).table
    assert a.equals(b)


def test_impact_by_policy_splits_the_table():
    df, _, _ = _planted()
    df = df.with_columns(
        policy=pl.when(pl.col("seat") < 2).then(pl.lit("a")).otherwise(pl.lit("b"))
    )
    ci = stats.card_impact(df, columns=["drawn__key"], by="policy")
    assert ci.table["policy"].to_list() == ["a", "b"]
    assert ci.table["n_with"].sum() + ci.table["n_without"].sum() == df.height


def test_telemetry_columns_from_the_manifest_or_the_schema():
    df, _, _ = _planted(100)
    assert stats.telemetry_columns(df) == ["drawn__key", "drawn__noise", "played__never"]
    assert stats.telemetry_columns(df, {"telemetry_columns": ["drawn__key"]}) == ["drawn__key"]
