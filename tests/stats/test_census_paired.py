"""Two censuses of the same games, paired B - A (balance/stats/census.py ``paired_summary``,
``balance compare --census N``, issue 32): each measure recomputed from the frames with plain
numpy, no change where the frames are equal, and a planted null that stars nothing in more than
5 % of replicates."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

from balance.stats.census import paired_summary

PLAYERS = 4


def _frame(
    rng: np.random.Generator, games: int, dead: float = 0.1, king: float = 0.05
) -> pl.DataFrame:
    """A census frame (balance/census.py COLUMNS) of made-up games: Poisson turns and decisions,
    binomial dead turns, forced decisions and kingmaking."""
    n = games * PLAYERS
    turns = rng.poisson(7, n) + 1
    decisions = turns + rng.poisson(3, n)
    tested = rng.poisson(2, n)
    order = np.concatenate([rng.permutation(PLAYERS) for _ in range(games)])
    return pl.DataFrame(
        {
            "game": np.repeat(np.arange(games), PLAYERS),
            "seat": np.tile(np.arange(PLAYERS), games),
            "order": order,
            "won": (order == 0).astype(np.int64),
            "turns": turns,
            "dead_turns": rng.binomial(turns, dead),
            "decisions": decisions,
            "forced": rng.binomial(decisions, 0.05),
            "tested": tested,
            "kingmaking": rng.binomial(tested, king),
        }
    )


def test_each_measure_is_its_formula():
    rng = np.random.default_rng(3)
    a, b = _frame(rng, 300), _frame(rng, 300, dead=0.15, king=0.1)
    t = {r["metric"]: r for r in paired_summary(a, b).to_dicts()}
    ga = a.group_by("game").agg(pl.all().sum()).sort("game")
    gb = b.group_by("game").agg(pl.all().sum()).sort("game")
    # turns a game: the paired t-interval of the per-game difference
    d = (gb["turns"] - ga["turns"]).to_numpy().astype(float)
    half = sps.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
    assert t["turns"]["diff"] == pytest.approx(d.mean())
    assert t["turns"]["lo"] == pytest.approx(d.mean() - half)
    # dead turns: the difference of the ratios of sums, the delta method on paired residuals
    ra = ga["dead_turns"].sum() / ga["turns"].sum()
    rb = gb["dead_turns"].sum() / gb["turns"].sum()
    u = (gb["dead_turns"] - rb * gb["turns"]).to_numpy() / gb["turns"].mean() - (
        ga["dead_turns"] - ra * ga["turns"]
    ).to_numpy() / ga["turns"].mean()
    se = np.sqrt((u**2).sum() / (len(u) * (len(u) - 1)))
    row = t["dead_turns"]
    assert (row["a"], row["b"], row["diff"]) == pytest.approx((ra, rb, rb - ra))
    assert row["hi"] - row["diff"] == pytest.approx(sps.t.ppf(0.975, len(u) - 1) * se)
    # games with kingmaking: the share of games with at least one, paired per game
    ka = (ga["kingmaking"] > 0).to_numpy().astype(float)
    kb = (gb["kingmaking"] > 0).to_numpy().astype(float)
    assert t["kingmaking_games"]["diff"] == pytest.approx(kb.mean() - ka.mean())
    assert t["kingmaking_games"]["kind"] == "rate"
    # the planted changes are found: 10 % to 15 % dead turns, 5 % to 10 % kingmaking
    assert t["dead_turns"]["significant"] and t["kingmaking_share"]["significant"]
    assert not t["turns"]["significant"]  # the same turn distribution in both


def test_equal_censuses_change_nothing():
    a = _frame(np.random.default_rng(4), 50)
    t = paired_summary(a, a)
    assert (t["diff"] == 0).all() and (t["lo"] == 0).all() and (t["hi"] == 0).all()
    assert not t["significant"].any()


def test_censuses_of_other_games_are_refused():
    rng = np.random.default_rng(5)
    with pytest.raises(ValueError, match="same games"):
        paired_summary(_frame(rng, 10), _frame(rng, 11))


def test_a_planted_null_stars_nothing_in_95_percent_of_replicates():
    """B's games drawn like A's: every measure's change is 0. Over 400 replicates of 60 games,
    the one rule (six measures, each its own family, times six) stars something in at most
    5 % of them (plus Monte Carlo error: more than 29 of 400 has chance < 1 %)."""
    rng = np.random.default_rng(6)
    starred = sum(
        bool(paired_summary(_frame(rng, 60), _frame(rng, 60))["significant"].any())
        for _ in range(400)
    )
    assert starred <= 29, starred


# ------------------------------------------------- a share at 0 in every game (stats/census.py)


def test_a_share_at_zero_in_every_game_gets_an_upper_end():
    """No dead turn in 40 games of 28 turns: not [0, 0] (the delta method's, with no spread)
    but [0, 1 - 0.025^(1/40)] (zero_bound, equal game lengths); the same from below at 1; a
    pair of such censuses changes by 0 within [-u, +u]."""
    from balance.stats.census import ratio_interval, zero_bound

    turns = np.full(40, 28.0)
    u = 1 - 0.025 ** (1 / 40)
    assert ratio_interval(np.zeros(40), turns) == (0.0, 0.0, pytest.approx(u))
    assert ratio_interval(turns, turns) == (1.0, pytest.approx(1 - u), 1.0)
    longer = np.r_[turns[:-1], 56.0]  # one game twice as long: the bound scales by max / mean
    assert zero_bound(longer) == pytest.approx(u * 56 / longer.mean())
    frame = _frame(np.random.default_rng(3), 40, dead=0.0)
    t = paired_summary(frame, frame).row(2, named=True)
    assert t["metric"] == "dead_turns" and t["diff"] == 0 and t["p_value"] == 1
    assert t["lo"] < 0 < t["hi"]


def test_the_zero_bound_covers_its_worst_case():
    """The worst case of zero_bound: every turn of a game dead or none (the dependence the bound
    allows), each game all dead with chance q just above the bound of 40 games. Those whose 40
    games are all at 0 get [0, q]'s bound and miss q: at most 2.5 % of 4,000 (one side of a
    95 % interval), by a one-sided 99 % binomial test. (The others take the delta method's
    interval, which this all-or-nothing case, a handful of dead games in 40, does not suit.)"""
    from balance.stats.census import ratio_interval

    reps, m = 4000, 40
    q = 1.02 * (1 - 0.025 ** (1 / m))  # just beyond the bound: all at 0 is then a miss
    draw = np.random.default_rng(32)
    turns = np.full(m, 28.0)
    missed = 0
    for dead_games in draw.random((reps, m)) < q:
        if not dead_games.any():
            _, lo, hi = ratio_interval(turns * dead_games, turns)
            missed += not lo <= q <= hi
    assert sps.binomtest(missed, reps, 0.025, alternative="greater").pvalue > 0.01, missed
    assert missed > 0  # the bound is tight: the worst case does miss, about 2.5 % of the time
