"""Differences across player counts (balance/stats/across.py) on planted games with known
answers."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from balance.stats import GameArrays, game_arrays, win_shares
from balance.stats.across import METRICS, AcrossAccumulator, across_differences
from tests.stats.helpers import rows


def planted(players: int, games: int, first_wins: int, *, score: float, turns: float) -> GameArrays:
    """``games`` games of ``players``: the first player (rotating seat) wins the first
    ``first_wins`` games, the player after them the rest; every seat scores ``score`` on average
    (seat s scores score + s - (players - 1) / 2) and every game lasts ``turns`` turns."""
    order = (np.arange(players)[None, :] - np.arange(games)[:, None]) % players
    winner_place = np.where(np.arange(games) < first_wins, 0, 1)
    win = (order == winner_place[:, None]).astype(np.float64)
    seat_score = score + np.arange(players) - (players - 1) / 2
    return GameArrays(
        first_game=0,
        win=win,
        score=np.tile(seat_score, (games, 1)),
        turns=np.full(games, turns),
        order=order,
    )


def test_first_place_normalised_and_edge_have_the_planted_values():
    a = planted(2, 1000, 600, score=5.0, turns=40.0)  # first player: 60 % against a fair 50 %
    b = planted(4, 2000, 800, score=7.0, turns=80.0)  # 40 % against a fair 25 %
    t = across_differences(a, b)
    assert t["metric"].unique(maintain_order=True).to_list() == list(METRICS)
    row = {(r["metric"], r["group"]): r for r in t.iter_rows(named=True)}
    first = row[("normalised_share", "0")]
    assert first["a"] == pytest.approx(1.2) and first["b"] == pytest.approx(1.6)
    assert first["diff"] == pytest.approx(0.4)
    # Welch interval of share × n: se = sqrt(n_a² p_a q_a / N_a + n_b² p_b q_b / N_b), unbiased sd.
    va = 4 * 0.6 * 0.4 * 1000 / 999 / 1000
    vb = 16 * 0.4 * 0.6 * 2000 / 1999 / 2000
    se = np.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / 999 + vb**2 / 1999)
    half = sps.t.ppf(0.975, df) * se
    assert first["lo"] == pytest.approx(0.4 - half) and first["hi"] == pytest.approx(0.4 + half)
    assert first["significant"]
    second = row[("normalised_share", "1")]  # place 1 wins the rest: 40 % of 2, 60 % of 4
    assert second["a"] == pytest.approx(0.8) and second["b"] == pytest.approx(2.4)
    assert ("normalised_share", "2") not in row  # a 2-player game has no 3rd place
    edge = row[("first_edge", "0")]
    assert edge["a"] == pytest.approx(0.1) and edge["b"] == pytest.approx(0.15)
    assert edge["diff"] == pytest.approx(0.05)
    assert row[("mean_score", "seats")]["diff"] == pytest.approx(2.0)
    assert row[("mean_turns", "all")]["diff"] == pytest.approx(40.0)
    assert not any(k == "seat" for k in t["kind"])  # no per-seat rows


def test_normalised_share_is_the_win_shares_normalised_column():
    rng = np.random.default_rng(3)
    for p in (2, 3):
        rank = np.argsort(rng.random((500, p)), axis=1) + 1
        df = rows(rank)
        arrays, _, _ = game_arrays(df)
        acc = AcrossAccumulator(p, p)
        acc.add(arrays, arrays)
        t = acc.table()
        got = t.filter(t["metric"] == "normalised_share")["a"].to_numpy()
        ws = win_shares(df).by_order.sort("order")
        np.testing.assert_allclose(got, ws["normalised"].to_numpy())
        np.testing.assert_allclose(got, ws["share"].to_numpy() * p)


def test_nothing_changes_when_both_sides_are_the_same_games():
    a = planted(3, 300, 120, score=4.0, turns=30.0)
    t = across_differences(a, a)
    assert np.allclose(t["diff"].to_numpy(), 0.0)
    assert not t["significant"].any()


def dealt(players: int, games: int, side_wins: float, seed: int) -> GameArrays:
    """Games of a game that deals its sides (Raven Manor's shape): one seat dealt at random is
    the lone side, which wins with chance ``side_wins``, else every other seat wins together.
    Every place has the same chance: a fair place wins what the average seat-game wins, which
    is not 1 / players."""
    rng = np.random.default_rng(seed)
    lone = rng.integers(0, players, games)
    side = rng.random(games) < side_wins
    is_lone = np.arange(players)[None, :] == lone[:, None]
    win = np.where(side[:, None], is_lone, ~is_lone).astype(np.float64)
    order = (np.arange(players)[None, :] - np.arange(games)[:, None]) % players
    return GameArrays(
        first_game=0,
        win=win,
        score=win.copy(),
        turns=np.full(games, 40.0),
        order=order,
    )


def test_dealt_sides_compare_places_with_the_mean_seat_win_not_one_over_n():
    # RM-2: sides are dealt, so at 5 and at 8 players every place is fair although the mean
    # seat win is (0.9 + 4 * 0.1) / 5 = 0.26 at 5 and (0.6 + 7 * 0.4) / 8 = 0.425 at 8
    a, b = dealt(5, 20_000, 0.9, seed=1), dealt(8, 20_000, 0.6, seed=2)
    row = {
        (r["metric"], r["group"]): r
        for r in across_differences(a, b, dealt=True).iter_rows(named=True)
    }
    for k in range(5):
        share = row[("normalised_share", str(k))]
        assert share["a"] == pytest.approx(1.0, abs=0.06) and share["b"] == pytest.approx(
            1.0, abs=0.06
        )
        assert share["lo"] < 0 < share["hi"]
        assert not share["significant"]
    edge = row[("first_edge", "0")]
    assert edge["lo"] < 0 < edge["hi"] and not edge["significant"]
    # the 1/n reading would call the 8-player places 3.4 times fair and the change significant
    naive = {(r["metric"], r["group"]): r for r in across_differences(a, b).iter_rows(named=True)}
    assert naive[("normalised_share", "0")]["b"] == pytest.approx(8 * 0.425, abs=0.2)
    assert naive[("normalised_share", "0")]["significant"]


def test_dealt_accumulator_equals_the_two_pass_delta_method():
    a, b = dealt(5, 4_000, 0.8, seed=3), dealt(6, 3_000, 0.7, seed=4)
    acc = AcrossAccumulator(5, 6, dealt=True)
    half = 2_000
    acc.add(
        a._replace(
            win=a.win[:half], score=a.score[:half], turns=a.turns[:half], order=a.order[:half]
        ),
        b._replace(
            win=b.win[:half], score=b.score[:half], turns=b.turns[:half], order=b.order[:half]
        ),
    )
    acc.add(
        a._replace(
            win=a.win[half:], score=a.score[half:], turns=a.turns[half:], order=a.order[half:]
        ),
        b._replace(
            win=b.win[half:], score=b.score[half:], turns=b.turns[half:], order=b.order[half:]
        ),
    )
    for side, x in ((acc.a, a), (acc.b, b)):
        ratio, sd, edge, sd_edge, n = side.dealt_stats()
        w = np.take_along_axis(x.win, np.argsort(x.order, axis=1), axis=1)  # by place
        wbar = x.win.mean(axis=1)
        r = w.mean(axis=0) / wbar.mean()
        z = (w - r[None, :] * wbar[:, None]) / wbar.mean()
        assert ratio == pytest.approx(r, rel=1e-12)
        assert sd == pytest.approx(z.std(axis=0, ddof=1), rel=1e-9)
        assert edge == pytest.approx((w[:, 0] - wbar).mean(), abs=1e-12)
        assert sd_edge == pytest.approx((w[:, 0] - wbar).std(ddof=1), rel=1e-9)
        assert n == len(wbar)


def test_dealt_sentences_name_no_one_over_n_fair_share():
    from types import SimpleNamespace

    from balance.report.compare import across_sentences
    from balance.stats.across import METHOD, METHOD_DEALT

    a, b = dealt(5, 5_000, 0.9, seed=5), dealt(8, 5_000, 0.6, seed=6)
    for is_dealt, method in ((True, METHOD_DEALT), (False, METHOD)):
        c = SimpleNamespace(
            table=across_differences(a, b, dealt=is_dealt),
            a_config=SimpleNamespace(players=5),
            b_config=SimpleNamespace(players=8),
            method=method,
        )
        text = " ".join(across_sentences(c))
        assert ("fair 20" in text) is not is_dealt  # 1/5 = 20 % is fair only without dealt sides
        assert ("mean seat win" in text) is is_dealt
