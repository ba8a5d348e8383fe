"""The axes of balance the verdict judges (balance/stats/axes.py): deviations against the right
reference, variances over games that match a direct computation, simultaneous intervals that hold
together, and verdicts that say "off" only when the whole interval is beyond the tolerance
(issue 25, items 1 and 2)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from balance.stats import axes as A
from balance.stats.axes import Tolerances, balance_axes, games_needed, judge


def synthetic(
    rng: np.random.Generator,
    games: int,
    *,
    players: int = 4,
    place_weights=None,
    policies=None,
    roles: int = 0,
    role_weights=None,
) -> pl.DataFrame:
    """``games`` games with one winner each, drawn with weights by place in the turn order (and
    by dealt role); seats take places at random; ``roles`` distinct roles dealt without
    replacement to the seats of each game."""
    w = np.ones((games, players)) if place_weights is None else np.tile(place_weights, (games, 1))
    order = np.argsort(rng.random((games, players)), axis=1)  # place of each seat
    weight = np.take_along_axis(w, order, axis=1)
    role = None
    if roles:
        role = np.argsort(rng.random((games, roles)), axis=1)[:, :players]
        if role_weights is not None:
            weight = weight * np.asarray(role_weights)[role]
    p = weight / weight.sum(axis=1, keepdims=True)
    winner = (rng.random((games, 1)) > np.cumsum(p, axis=1)).sum(axis=1)
    win = (np.arange(players) == winner[:, None]).astype(np.float64)
    seat = np.tile(np.arange(players), games)
    data = {
        "game": np.repeat(np.arange(games), players),
        "seat": seat,
        "policy": [(policies or ["p"] * players)[s] for s in seat],
        "team": [str(s) for s in seat],
        "win": win.ravel(),
        "order": order.ravel(),
    }
    if role is not None:
        data["role"] = [f"r{x}" for x in role.ravel()]
    return pl.DataFrame(data)


def by_kind(rows: pl.DataFrame, **kw) -> dict[str, A.Axis]:
    return {a.kind: a for a in balance_axes(rows, **kw)}


def test_a_place_is_measured_against_its_games_mean_seat_win_with_the_variance_over_games():
    rng = np.random.default_rng(1)
    rows = synthetic(rng, 3_000, place_weights=[1.4, 1, 1, 0.8])
    # shared wins and a game without a winner: the mean seat win is not 1/players
    rows = rows.with_columns(
        win=pl.when(pl.col("game") % 7 == 0).then(pl.col("win") * 0.5).otherwise(pl.col("win"))
    )
    order = by_kind(rows)["order"].rows
    win = rows["win"].to_numpy().reshape(3_000, 4)
    place = rows["order"].to_numpy().reshape(3_000, 4)
    mean = win.mean(axis=1)
    for k in range(4):
        d = win[place == k] - mean  # the place's win minus its game's mean seat win
        r = order.filter(pl.col("group") == str(k)).row(0, named=True)
        assert r["dev"] == pytest.approx(d.mean(), abs=1e-12)
        assert r["ref"] == pytest.approx(mean.mean(), abs=1e-12)
        assert r["se"] == pytest.approx(d.std(ddof=1) / math.sqrt(len(d)), rel=1e-9)


def test_a_policy_at_a_place_is_measured_against_the_policy_over_every_place():
    rng = np.random.default_rng(2)
    # two seats, economy and rush; the first player wins 30 % of games, whoever it is
    rows = synthetic(rng, 4_000, players=2, place_weights=[0.3, 0.7], policies=["eco", "rush"])
    po = by_kind(rows)["policy_order"]
    assert "seat" not in by_kind(rows)  # seats differ by policy: the chairs are not an axis
    r = po.rows.filter((pl.col("policy") == "eco") & (pl.col("group") == "0")).row(0, named=True)
    eco = rows.filter(pl.col("policy") == "eco")
    first = eco.filter(pl.col("order") == 0)["win"].mean()
    assert r["share"] == pytest.approx(first)
    assert r["ref"] == pytest.approx(eco["win"].mean())
    assert po.verdict == "outside"  # 30 % against about 50 %: -20 points, far beyond ±2


def test_roles_against_the_mean_and_against_their_side():
    rng = np.random.default_rng(3)
    rows = synthetic(rng, 6_000, roles=8, role_weights=[2, 1, 1, 1, 1, 1, 1, 0.5])
    role = by_kind(rows)["role"]
    assert role.verdict == "outside"
    off = set(role.rows.filter(pl.col("verdict") == "outside")["group"])
    assert {"r0", "r7"} <= off
    # with sides: r0 alone on its side has no reference; the rest against their side's mean
    sides = {f"r{i}": ("evil" if i == 0 else "good") for i in range(8)}
    role = by_kind(rows, role_sides=sides)["role"]
    r0 = role.rows.filter(pl.col("group") == "r0").row(0, named=True)
    assert r0["verdict"] == "no reference" and math.isnan(r0["ref"])
    good = rows.filter(pl.col("role") != "r0")["win"].mean()
    r1 = role.rows.filter(pl.col("group") == "r1").row(0, named=True)
    assert r1["ref"] == pytest.approx(good)


def test_a_declared_target_replaces_the_reference():
    rng = np.random.default_rng(4)
    rows = synthetic(rng, 4_000, roles=8)
    role = by_kind(rows, targets={"role": {"r3": 0.6}})["role"]
    r3 = role.rows.filter(pl.col("group") == "r3").row(0, named=True)
    assert r3["ref"] == 0.6 and r3["target"] and r3["verdict"] == "outside"
    assert role.rows.filter(pl.col("group") != "r3")["target"].sum() == 0


def test_dealt_sides_without_a_target_are_given_not_judged_and_with_one_are_judged():
    rng = np.random.default_rng(5)
    rows = synthetic(rng, 2_000)
    # two dealt sides: seat 0 and a random partner against the other two, side a wins 70 %
    g = rows["game"].to_numpy()
    side = np.where((rows["seat"].to_numpy() + g) % 2 == 0, "a", "b")
    a_wins = rng.random(2_000) < 0.7
    win = np.where(side == "a", a_wins[g], ~a_wins[g]).astype(float)
    rows = rows.with_columns(team=pl.Series(side), win=pl.Series(win))
    team = by_kind(rows)["team"]
    assert team.verdict == "no reference" and team.reference == "none"
    assert team.rows.filter(pl.col("group") == "a")["share"][0] == pytest.approx(a_wins.mean())
    team = by_kind(rows, targets={"team": {"a": 0.7}}, tolerance=Tolerances(team=0.05))["team"]
    a = team.rows.filter(pl.col("group") == "a").row(0, named=True)
    assert a["verdict"] == "within"  # 70 % ± about 2.5 points inside 0.7 ± 5 points
    assert team.rows.filter(pl.col("group") == "b")["verdict"][0] == "no reference"


@pytest.mark.parametrize(
    ("dev", "lo", "hi", "expected"),
    [
        (0.0, -0.01, 0.01, "within"),
        (0.03, 0.021, 0.04, "outside"),
        (-0.03, -0.04, -0.021, "outside"),
        (0.02, 0.01, 0.03, "undetermined"),
        (0.0, -0.03, 0.03, "undetermined"),
    ],
)
def test_judge_calls_off_only_when_the_whole_interval_is_beyond(dev, lo, hi, expected):
    assert judge(dev, lo, hi, 0.02) == expected


def test_games_needed_shrinks_the_interval_to_the_distance_from_the_tolerance():
    # +1 point, half-width 2 at 10,000 games, tolerance 2: needs half-width 1, four times the games
    assert games_needed(0.01, 0.02, 10_000, 0.02) == 40_000
    assert games_needed(0.02, 0.01, 10_000, 0.02) is None  # on the bound: no number decides it


def test_simultaneous_intervals_hold_together_on_fair_games():
    """Coverage of the whole axis at once (the family-wise rate), on games fair by construction:
    at least 95 % less Monte Carlo error (200 replicates; P(fewer than 183 | 95 %) < 1 %)."""
    rng = np.random.default_rng(6)
    held = outside = 0
    for _ in range(200):
        rows = synthetic(rng, 1_000, roles=6)
        for axis in balance_axes(rows):
            if axis.kind in ("order", "seat", "role"):
                r = axis.rows
                held += bool(((r["lo"] <= 0) & (r["hi"] >= 0)).all())
                outside += axis.verdict == "outside"
    assert held >= 3 * 183
    assert outside == 0  # off by more than ±1-2 points: never, on fair games


def test_a_group_seen_in_too_few_games_is_not_judged():
    rng = np.random.default_rng(7)
    rows = synthetic(rng, 200, roles=30)  # each role dealt in about 27 games
    role = by_kind(rows, tolerance=Tolerances(role=1.0))["role"]
    few = role.rows.filter(pl.col("games") < A.MIN_GAMES)
    assert few.height and (few["verdict"] == "undetermined").all()
