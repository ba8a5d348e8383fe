"""How a game plays (balance/stats/plays.py): each metric of hand-made trajectories whose answers
are worked out by hand, the same metrics recomputed independently with plain polars over the
planted trajectories of the fake game, and the intervals' coverage of a known rate."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from kit import fake_game as fake

from balance.stats import plays


def _frames(games: dict[int, tuple[list[list[int]], list[int], bool]]):
    """(trace, rows) of hand-made games: game -> (standings by point, ranks by seat, shared)."""
    trace, rows = [], []
    for g, (standing, ranks, shared) in games.items():
        for k, at in enumerate(standing):
            trace += [(g, k, p, v) for p, v in enumerate(at)]
        rows += [(g, p, r, shared and r == 1) for p, r in enumerate(ranks)]
    t = pl.DataFrame(trace, schema=["game", "point", "seat", "standing"], orient="row")
    r = pl.DataFrame(rows, schema=["game", "seat", "rank", "shared"], orient="row")
    return t, r


# Game 0: the lead passes 0 -> 1 -> 2 -> 0; seat 0 wins by one after trailing at half time.
# Game 1: seat 0 leads from point 1 to the end. Game 2: a shared win (no winner).
HAND = {
    0: ([[0, 0, 0], [2, 1, 0], [2, 3, 0], [4, 3, 5], [6, 3, 5]], [1, 3, 2], False),
    1: ([[0, 0, 0], [1, 0, 0], [2, 1, 0]], [1, 2, 3], False),
    2: ([[0, 0, 0], [1, 1, 0], [3, 3, 1]], [1, 1, 3], True),
}


def test_each_metric_of_hand_made_games():
    trace, rows = _frames(HAND)
    m = plays.game_metrics(trace.sample(fraction=1.0, shuffle=True, seed=1), rows, "standing")
    assert m.game.tolist() == [0, 1, 2]
    assert m.points.tolist() == [5, 3, 3]
    assert m.winner.tolist() == [0, 0, -1]
    v = {k: np.round(x, 6).tolist() for k, x in m.values.items()}
    assert v["lead_changes"] == [3, 0, 0]
    assert v["comeback_half"][:2] == [1, 0]  # point 2 of 4: 2 against 3; point 1 of 2: ahead
    assert v["comeback_two_thirds"][:2] == [1, 0]  # point floor(8/3) = 2; floor(4/3) = 1
    assert v["max_deficit"][:2] == [1, 0]
    assert v["decided_at"][:2] == [1.0, 0.5]  # led alone only at the end; from point 1 of 2
    assert v["margin"][:2] == [1, 1]
    assert v["close"][:2] == [1, 1]
    for name in plays.WINNER_METRICS:
        assert np.isnan(m.values[name][2]), name  # a shared win has no winner
    assert m.values["lead_changes"][2] == 0  # 0 leads, then a tie: no change
    # the winner leads alone at the last point at or before each tenth of the game
    assert m.leads[0].tolist() == [0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1]  # points 0,0,0,1,1,2,...,4
    assert m.leads[1].tolist() == [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]  # points 0 (x5), 1 (x5), 2
    assert np.isnan(m.leads[2]).all()
    curve = plays.winner_leads(m)
    assert curve["games"].unique().to_list() == [2]
    assert curve["share"].to_list() == [0, 0, 0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1.0]


def test_a_tie_does_not_end_a_lead_and_the_end_is_held():
    # the lead goes 1 -> tie -> 1: no change; the game's end is its last point
    t, r = _frames({5: ([[0, 0], [0, 2], [2, 2], [1, 3]], [2, 1], False)})
    m = plays.game_metrics(t, r, "standing")
    assert m.values["lead_changes"].tolist() == [0]
    assert m.values["decided_at"].tolist() == [1.0]  # tied at point 2: led for good from 3 of 3
    _, _, s = plays.standings(t, "standing", 2)
    assert s.shape == (1, 4, 2) and s[0, 3].tolist() == [1, 3]


def test_sides_sum_their_members_and_the_winner_is_the_rank_1_seats_side():
    """Dealt sides (stats/plays.py, by_side): four seats, side 0 (three) against side 1 (one) at
    the start; seat 1 is possessed at point 1 (side 0 -> 1) and seat 2 dies at point 2, so the
    sides' living members go 3:1, 2:2 (a tie: no leader), 1:2, and side 1 wins (seats 1 and 3 of
    rank 1) after trailing at half time. Game 1: both sides hold a rank-1 seat (a draw)."""
    alive = [[1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 0, 1], [1, 1, 0, 1]]
    team = [[0, 0, 0, 1], [0, 1, 0, 1], [0, 1, 0, 1], [0, 1, 0, 1]]
    rows = [(0, p, r) for p, r in enumerate([2, 1, 2, 1])]
    rows += [(1, p, r) for p, r in enumerate([1, 2, 2, 1])]
    trace = [(0, k, p, alive[k][p], team[k][p]) for k in range(4) for p in range(4)]
    trace += [(1, k, p, 1, [0, 0, 0, 1][p]) for k in range(2) for p in range(4)]
    t = pl.DataFrame(trace, schema=["game", "point", "seat", "alive", "team"], orient="row")
    r = pl.DataFrame(rows, schema=["game", "seat", "rank"], orient="row")
    m = plays.game_metrics(t, r, "alive", sides=2)
    assert m.winner.tolist() == [1, -1]
    v = {k: x[0] for k, x in m.values.items()}
    assert v["lead_changes"] == 1  # side 0, a tie (no leader), side 1
    assert v["comeback_half"] == 0  # point 1 of 3 (floor 1.5): 2 against 2, not behind
    assert v["comeback_two_thirds"] == 0  # point 2: 1 against 2, ahead
    assert v["max_deficit"] == 2  # 3 against 1 at the start
    assert v["decided_at"] == pytest.approx(2 / 3)  # led alone from point 2 of 3
    assert v["margin"] == 1 and v["close"] == 1
    assert np.isnan(m.values["margin"][1])  # a draw: no winning side
    # the seat-level reading of the same game has no sole winner
    assert plays.game_metrics(t, r, "alive").winner.tolist() == [-1, -1]
    assert plays.units(("alive", "team"), ("family", "raven")) == 2
    assert plays.units(("score",), ()) == 0
    assert plays.units(("score",), ("a", "b")) is None and plays.units((), ()) is None


def test_a_trajectory_with_a_missing_seat_or_point_is_refused():
    t, r = _frames({0: ([[0, 0], [1, 0]], [1, 2], False)})
    with pytest.raises(ValueError, match="one row per seat"):
        plays.game_metrics(
            t.filter(~((pl.col("point") == 1) & (pl.col("seat") == 1))), r, "standing"
        )
    gap = t.with_columns(pl.when(pl.col("point") == 1).then(2).otherwise(0).alias("point"))
    with pytest.raises(ValueError, match="without a gap"):
        plays.game_metrics(gap, r, "standing")


def _polars_metrics(trace: pl.DataFrame, rows: pl.DataFrame) -> pl.DataFrame:
    """The same metrics written again in plain polars, from the definitions in the docs."""
    top = trace.group_by("game", "point").agg(
        pl.col("standing").max().alias("top"),
        (pl.col("standing") == pl.col("standing").max()).sum().alias("at_top"),
        pl.col("seat").filter(pl.col("standing") == pl.col("standing").max()).first().alias("s"),
    )
    lead = top.with_columns(
        pl.when(pl.col("at_top") == 1).then(pl.col("s")).otherwise(None).alias("leader")
    ).sort("game", "point")
    changes = (
        lead.drop_nulls("leader")
        .with_columns(pl.col("leader").shift(1).over("game").alias("before"))
        .group_by("game")
        .agg(
            ((pl.col("before").is_not_null()) & (pl.col("leader") != pl.col("before")))
            .sum()
            .alias("lead_changes")
        )
    )
    winners = (
        rows.filter((pl.col("rank") == 1) & ~pl.col("shared"))
        .group_by("game")
        .agg(pl.col("seat").first().alias("winner"), pl.len().alias("k"))
        .filter(pl.col("k") == 1)
        .select("game", "winner")
    )
    rounds = trace.group_by("game").agg((pl.col("point").max()).alias("rounds"))
    w = (
        trace.join(winners, on="game")
        .filter(pl.col("seat") == pl.col("winner"))
        .join(lead, on=["game", "point"])
        .join(rounds, on="game")
        .with_columns((pl.col("top") - pl.col("standing")).alias("behind"))
    )
    per = w.group_by("game").agg(
        pl.col("behind").max().alias("max_deficit"),
        (pl.col("behind").filter(pl.col("point") == (pl.col("rounds") / 2).floor()) > 0)
        .first()
        .cast(pl.Float64)
        .alias("comeback_half"),
        pl.col("point")
        .filter(pl.col("leader").is_null() | (pl.col("leader") != pl.col("winner")))
        .max()
        .alias("last_not"),
        pl.col("rounds").first(),
    )
    end = trace.join(rounds, on="game").filter(pl.col("point") == pl.col("rounds"))
    margin = (
        end.join(winners, on="game")
        .group_by("game")
        .agg(
            (
                pl.col("standing").filter(pl.col("seat") == pl.col("winner")).first()
                - pl.col("standing").filter(pl.col("seat") != pl.col("winner")).max()
            ).alias("margin")
        )
    )
    decided = per.with_columns(
        (
            pl.when(pl.col("last_not").is_null())
            .then(0)
            .otherwise(pl.min_horizontal(pl.col("last_not") + 1, pl.col("rounds")))
            / pl.max_horizontal(pl.col("rounds"), 1)
        ).alias("decided_at")
    )
    return (
        rounds.select("game")
        .join(changes, on="game", how="left")
        .with_columns(pl.col("lead_changes").fill_null(0))
        .join(decided, on="game", how="left")
        .join(margin, on="game", how="left")
        .sort("game")
    )


def test_the_metrics_agree_with_plain_polars_over_planted_games():
    tables = fake.traced_game.PLUGIN.tables(players=4)
    chunk = fake.traced(tables, 11, 0, 3000)
    from balance import results

    trace = results.trace_frame(chunk, fake.TRACE_MEASURES)
    rows = pl.DataFrame(
        {
            "game": np.repeat(np.arange(3000), 4),
            "seat": np.tile(np.arange(4), 3000),
            "rank": chunk.rank.ravel(),
            "shared": (chunk.rank == 1).sum(axis=1).repeat(4) > 1,
        }
    ).with_columns(pl.col("shared") & (pl.col("rank") == 1))
    m = plays.game_metrics(trace, rows, "standing")
    mine = pl.DataFrame({"game": m.game, **{k: m.values[k] for k in plays.METRICS}})
    theirs = _polars_metrics(trace, rows)
    both = mine.join(theirs, on="game", suffix="_polars")
    assert both.height == 3000
    for name in ("lead_changes", "max_deficit", "comeback_half", "decided_at", "margin"):
        a = both[name].fill_nan(None).to_numpy().astype(float)
        b = both[f"{name}_polars"].cast(pl.Float64).to_numpy()
        assert np.allclose(np.nan_to_num(a, nan=-9), np.nan_to_num(b, nan=-9)), name
    # the planted answers: standings grow in proportion, so the lead never changes hands
    assert (m.values["lead_changes"] == 0).all()
    has = m.winner >= 0
    assert has.mean() > 0.3 and (m.values["comeback_half"][has] == 0).all()


def test_a_rate_is_covered_by_its_interval():
    """Planted: comeback_half is 1 with chance 0.3, independently per game; 200 samples of 400
    games, the 95 % Wilson interval covers 0.3 in 92-98 % of them."""
    rng = np.random.default_rng(5)
    hits = 0
    for _ in range(200):
        values = {k: np.zeros(400) for k in plays.METRICS}
        values["comeback_half"] = (rng.random(400) < 0.3).astype(float)
        m = plays.GameMetrics(np.arange(400), np.full(400, 3), np.zeros(400, np.int64), values)
        row = plays.summary(m).filter(pl.col("metric") == "comeback_half").row(0, named=True)
        hits += row["lo"] <= 0.3 <= row["hi"]
    assert 184 <= hits <= 196
