"""The Raven Order's trajectory (issue 32; docs/rules/raven_order.md, How a game went): each
seat's standing, buildings and army at point 0 (after set-up, RO-1), at the end
of every round (the first player's turn, then the second's) and at the game's end.

- the last point is the dataset's row: buildings the score (ENGINE-2), the standing 1000
  buildings + army, the army between the units and three times
  them; point 0 is the set-up (RO-1); ``points`` is 1 + the rounds the game began, never more
  than ``trace_cap`` (a sweep of turn caps, where it is reached), on the smallest and largest
  decks and the shipped line-ups;
- every point of a game played turn by turn in Python (its measures counted from the unit rows,
  not the kernel's counts) is the batch's, and so is the logged replay's trace;
- a scripted game (no construction) and a hand-built war that ends mid-round, known by hand;
- the search player's batch fills the trace as a Python loop that searches does.
"""

from __future__ import annotations

import numpy as np
import pytest

from balance.games import _kit as kit
from balance.games import get
from balance.games.raven_order import engine, narrate, policies, state
from balance.games.raven_order.state import (
    PL_BUILT,
    PL_NBLD,
    TRACE_MEASURES,
    alloc_state,
    alloc_work,
    trace_cap,
)
from balance.games.raven_order.tables import CAMP, DRUID, NB, RIDER, SENTRY, compile_tables
from tests.kit.decisions import compiled as kit_compiled

from .helpers import blank, compiled, config, resume, scripted, seat, types, work
from .helpers import play_stepwise as stepwise

STANDING, BUILDINGS, ARMY = range(3)
SEED = 20261206


def _measures(st, p) -> list[int]:
    """Seat ``p``'s TRACE_MEASURES counted from the state's rows (not the kernel's counts)."""
    nb = int(st.pl[p, PL_BUILT : PL_BUILT + NB].sum())
    army = sum(types(st, p))  # sentry 1, rider 2, druid 3: the training steps (RO-4)
    return [1000 * nb + army, nb, army]


def test_the_measures_are_named_and_the_unit_types_are_their_training_steps():
    assert get("raven_order").trace_measures == TRACE_MEASURES
    assert TRACE_MEASURES == ("standing", "buildings", "army")
    assert (SENTRY, RIDER, DRUID) == (1, 2, 3)  # the army's weights are the types
    # a standing of 1000 a building is above any army: 3 steps for each of CAPU units
    assert 3 * state.CAPU < state.TRACE_BUILDING and NB * 1000 + 3 * state.CAPU <= 32767


# ---------------------------------------------------------------- the dataset's rows


CONFIGS = [
    ("base.yaml", None),  # economy vs rush: draws at the cap of 200 (101 points)
    ("mirror.yaml", None),
    ("economy_vs_random.yaml", None),
    ("rush_vs_random.yaml", None),
    ("no_compensation.yaml", None),
    ("rune_mixes/no_runes.yaml", None),  # the smallest deck
    ("rune_mixes/double_deck.yaml", None),  # the largest
    ("base.yaml", 9),  # a small odd cap: every game a draw after the first player's turn
]


@pytest.mark.parametrize("name,cap", CONFIGS)
def test_the_last_point_is_the_dataset_row_and_point_0_the_set_up(name, cap):
    cfg = config(name=name, rules={"turn_cap": cap} if cap else None)
    c = compile_tables(cfg)
    n = 2000
    ch = engine.play(c, SEED, 0, n)
    m = trace_cap(c.tb)
    assert ch.trace.shape == (n, m, 2, len(TRACE_MEASURES)) and ch.trace.dtype == np.int16
    pts = ch.points
    # one point a round begun (a round: the first player's turn, then the second's), and point 0
    np.testing.assert_array_equal(pts, 1 + (ch.turns + 1) // 2)
    assert pts.max() <= m
    g = np.arange(n)
    last = ch.trace[g, pts - 1].astype(np.int64)  # [n, 2, K]
    np.testing.assert_array_equal(last[:, :, BUILDINGS], ch.score)  # ENGINE-2
    units = ch.extra["units"]
    assert (units <= last[:, :, ARMY]).all() and (last[:, :, ARMY] <= 3 * units).all()
    np.testing.assert_array_equal(
        last[:, :, STANDING], 1000 * last[:, :, BUILDINGS] + last[:, :, ARMY]
    )
    # the standing at the end ranks a destruction as the rules do: the loser has no building
    dec = ch.end_reason == 0
    win = np.argmin(ch.rank, axis=1)
    lead = last[g, win, STANDING] - last[g, 1 - win, STANDING]
    assert (lead[dec] > 0).all()
    if name == "base.yaml" and cap is None:  # games ended in either seat's turn
        assert (ch.turns[dec] % 2 == 1).any() and (ch.turns[dec] % 2 == 0).any()
    if cap is not None:
        assert not dec.any() and (ch.turns == cap).all() and (pts == m).all()
    # point 0: RO-1's Camp for both, the second player's compensation sentries
    rules = cfg.rules
    n_bld = len(rules.starting_buildings)
    for order in (0, 1):
        p = np.nonzero(ch.order == order)
        comp = rules.compensation
        army = comp.sentries if order else 0
        want = [1000 * n_bld + army, n_bld, army]
        np.testing.assert_array_equal(ch.trace[p[0], 0, p[1]], np.tile(want, (n, 1)))
    # nothing past the last point
    past = np.arange(m)[None, :] >= pts[:, None]
    assert not ch.trace[past].any()


@pytest.mark.parametrize("cap", [2, 3, 4, 7])
def test_trace_cap_bounds_the_points_and_is_reached(cap):
    """ENGINE-1: the cap counts both players' turns, so a game begins at most ceil(cap / 2)
    rounds; the bound is tight (a draw at the cap reaches it) and the kernel's rows are as many."""
    c = compiled(["economy", "rush"], {"turn_cap": cap})
    m = trace_cap(c.tb)
    assert m == 1 + (cap + 1) // 2
    assert alloc_work(c.tb).trace.shape == (m, 2, len(TRACE_MEASURES))
    ch = engine.play(c, SEED, 0, 300)
    assert ch.points.max() == m and ch.trace.shape[1] == m


def test_the_largest_bound_is_reached_by_a_draw_at_the_default_cap(base):
    assert trace_cap(base.tb) == 101  # turn_cap 200
    ch = engine.play(base, SEED, 0, 1500)
    assert ch.points.max() == 101 and (ch.end_reason == 1).any()


# ---------------------------------------------------------------- every point


def _stepwise_trace(c, seed: int, game: int) -> np.ndarray:
    """The game's trajectory counted in Python: the set-up, then the state after each turn's War
    written at its round's point (the round's second turn, or the last turn, overwrites it)."""
    st0 = alloc_state(c.tb, 0)
    engine.start(c.tb, st0, np.int64(seed), np.int64(game), work(c))
    rows = {0: [_measures(st0, 0), _measures(st0, 1)]}

    def on_turn(st, p):
        rows[int(st.board[state.G_TURN]) // 2 + 1] = [_measures(st, 0), _measures(st, 1)]

    stepwise(c, seed, game, on_turn)
    assert sorted(rows) == list(range(len(rows)))
    return np.array([rows[k] for k in range(len(rows))], np.int16)


def test_every_point_is_the_state_after_its_rounds_last_turn_and_the_replay_has_them(base):
    ch = engine.play(base, SEED, 0, 8)
    for g in range(8):
        want = _stepwise_trace(base, SEED, g)
        got = ch.trace[g, : ch.points[g]]
        np.testing.assert_array_equal(got, want, err_msg=f"game {g}")
        logged = narrate.play_logged(base, SEED, g)
        assert logged.trace.dtype == np.int16
        np.testing.assert_array_equal(logged.trace, got, err_msg=f"replay of game {g}")
        # the replay's final state: the army of the last point counted from its unit rows
        assert [int(x) for x in got[-1, :, ARMY]] == [sum(types(logged.state, p)) for p in (0, 1)]


# ---------------------------------------------------------------- known by hand


def test_a_scripted_game_that_only_harvests_draws_after_the_first_players_turn(ro):
    """Both seats scripted (no construction, nothing to attack with), turn cap 3: RO-1 gives each
    a Camp and the second player 1 sentry, and nothing changes after (Harvests add workers and
    gold, which the trace does not keep); the cap counts both players' turns (ENGINE-1), so the game is a draw after turn 2, the first
    player's turn of round 1: its point is the game's end, not a round's."""
    c = scripted(compiled(rules={"turn_cap": 3}))
    ch = engine.play(c, SEED, 0, 4)
    for g in range(4):
        assert ch.turns[g] == 3 and ch.end_reason[g] == 1 and ch.points[g] == 3
        first = int(np.argmin(ch.order[g]))
        second = 1 - first
        want = {
            first: [[1000, 1, 0]] * 3,
            second: [[1001, 1, 1]] * 3,
        }
        for p in (0, 1):
            np.testing.assert_array_equal(ch.trace[g, :, p], want[p], err_msg=f"g{g} s{p}")


def test_a_war_that_razes_the_last_building_ends_the_trace_mid_round(ro):
    """Turn 10 (round 5's first turn, seat 0 first): seat 0's rider attacks, nothing can block it
    (RO-7), it destroys seat 1's Camp (RO-9) and seat 1, with no building left, loses: the game
    ends in the first player's turn, and point 6 (round 5's) holds the end: seat 0 with its Camp
    and its rider (army 2), seat 1 with nothing (ENGINE-2: score 0)."""
    st = blank(ro, turn=10)
    seat(st, 0, buildings=[CAMP], units=[RIDER])
    seat(st, 1, buildings=[CAMP])
    w = work(ro)
    resume(st, 0, state.PH_TURN)
    while (a := int(engine.advance(ro.tb, st, w))) >= 0:
        engine.apply(ro.tb, st, w, policies.choose(ro.tb, st, w))
    assert a == -1 and st.board[state.G_END] == state.END_DESTRUCTION
    assert st.pl[1, PL_NBLD] == 0 and st.board[state.G_TURN] == 10
    m, k = trace_cap(ro.tb), len(TRACE_MEASURES)
    trace = kit.one_trace(engine.record_trace, ro.tb, st, w, m, 2, k)  # as the batch records it
    assert len(trace) == 7  # point 0 and rounds 0..5
    np.testing.assert_array_equal(trace[6], [[1002, 1, 2], [0, 0, 0]])
    # outputs that keep no trajectory are left alone
    none = kit.trace_points(0, 1, m)
    engine.record_trace(ro.tb, st, w, np.int64(0), np.zeros((0, 2, k), np.int16), none)


# ---------------------------------------------------------------- the search player


def test_the_search_batch_fills_the_trace_as_a_python_loop_that_searches():
    from balance.games.position import Position
    from balance.search import play_logged as search_logged
    from balance.search import play_move, search_streams

    plugin, tables, _ = kit_compiled(
        "configs/raven_order/search_vs_economy.yaml", ("policies.mcts.iterations=3",)
    )
    ch = plugin.play(tables, 5, 0, 2)
    tb = tables.inner.tb
    for g in range(2):
        n = int(ch.points[g])
        assert n == 1 + (ch.turns[g] + 1) // 2
        last = ch.trace[g, n - 1]
        np.testing.assert_array_equal(last[:, BUILDINGS], ch.score[g])
        np.testing.assert_array_equal(last[:, ARMY] >= ch.extra["units"][g], True)
        pos = Position(plugin, tables.inner, 5, g)
        streams = search_streams(tables, 5, g)
        while not pos.done:
            play_move(pos, tables, streams)
        cap, k = trace_cap(tb), len(TRACE_MEASURES)
        trace = kit.one_trace(engine.record_trace, tb, pos.state, pos.work, cap, 2, k)
        np.testing.assert_array_equal(trace, ch.trace[g, :n], err_msg=f"game {g}")
        row = pos.row()  # the Position's dataset row carries the trajectory too
        assert row.points[0] == n
        np.testing.assert_array_equal(row.trace[0, :n], ch.trace[g, :n])
    # and so does the replay of a search game (balance/search.py play_logged)
    logged = search_logged(plugin, tables, 5, 1).logged
    np.testing.assert_array_equal(logged.trace, ch.trace[1, : ch.points[1]])
