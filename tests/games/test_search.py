"""The search player (balance/games/_search.py), held the same way in every game.

- **No leak** (issue 29): at a decision, the search's whole root (its pick, every option's visits
  and mean win) with a fixed key and budget is the same whether it starts from the true state or
  from any re-deal of it consistent with what the deciding seat knows, on at least 10,000
  decision states a game; planted: re-dealt for *another* seat (which changes what the decider
  knows), the root does change, so the check can fail.
- **Its own randomness**: the search only copies the state it decides at (the game's streams and
  every array are untouched), and the batch's games are the games of a Python loop that searches
  with the same keyed streams, row for row.
"""

from __future__ import annotations

import numpy as np
import pytest

from balance import games
from balance.search import decide, play_move, search_stream, search_streams
from tests.games.test_decisions import _equal_chunks, _same_state
from tests.kit.decisions import compiled, positions

# One config per game with a search seat (seat 0); small budgets keep the suite fast.
SEARCH = {
    "five_ravens": "configs/five_ravens/search_vs_greedy.yaml",
    "raven_order": "configs/raven_order/search_vs_economy.yaml",
    "raven_manor": "configs/raven_manor/search_vs_basic.yaml",
    "corvids": "configs/corvids/search_vs_greedy.yaml",
}
LEAK_STATES = 10_000  # decision states a game (issue 29)
ITERATIONS = 6  # the leak test's budget: the root differs with a leak at any budget


def _tables(game: str, iterations: int = ITERATIONS):
    """(plugin, SearchTables) of the game's shipped search config at a small budget, every seat
    a search seat so that every decision of the collected states is a search's."""
    plugin, tables, _ = compiled(
        SEARCH[game],
        (
            f"policies.mcts.iterations={iterations}",
            "seats=mcts",
        ),
    )
    return plugin, tables


def test_every_registered_game_is_here():
    assert sorted(SEARCH) == sorted(games.names())


def _root(pos, tables, key: int):
    rng = search_stream(key, 0, pos.actor)
    return decide(pos, tables, rng)


def _leak_checks(game: str, n: int, seed: int) -> tuple[int, int]:
    plugin, tables = _tables(game)
    moved = checked = 0
    for i, pos in enumerate(positions(plugin, tables.inner, seed=seed, n=n, every=5)):
        seat = pos.actor
        before = pos.copy()
        code, stats, means = _root(pos, tables, key=i)
        assert _same_state(before.state, pos.state), "the search changed the true state"
        np.testing.assert_array_equal(before.state.rng, pos.state.rng)
        assert code in pos.options().tolist()
        world = pos.determinize(seat, seed=1_000_003 + i)  # a consistent re-deal
        code2, stats2, means2 = _root(world, tables, key=i)
        assert code2 == code, f"state {i}: the pick moved with the hidden cards"
        np.testing.assert_array_equal(stats2, stats, err_msg=f"state {i}")
        np.testing.assert_array_equal(means2, means, err_msg=f"state {i}")
        if i % 10 == 0 and pos.players > 1:  # planted: what the decider knows changes
            other = (seat + 1) % pos.players
            odd = pos.determinize(other, seed=2_000_003 + i)
            if odd.actor == seat and not _same_state(odd.state, pos.state):
                c3, s3, m3 = _root(odd, tables, key=i)
                moved += c3 != code or s3.shape != stats.shape or not np.array_equal(m3, means)
        checked += 1
    return moved, checked


@pytest.mark.parametrize("game", sorted(SEARCH))
def test_the_search_reads_nothing_its_seat_cannot_know_quick(game):
    moved, checked = _leak_checks(game, 300, seed=41)
    assert checked == 300
    assert moved > 0, "planted: a re-deal for another seat never moved the root"


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(SEARCH))
def test_the_search_reads_nothing_its_seat_cannot_know_on_ten_thousand_states(game):
    moved, checked = _leak_checks(game, LEAK_STATES, seed=43)
    assert checked == LEAK_STATES
    assert moved > 0


@pytest.mark.parametrize("game", sorted(SEARCH))
def test_the_batch_plays_the_games_of_a_python_loop_that_searches(game):
    plugin, tables = _tables(game, iterations=4)
    assert_batch_is_the_python_loop(plugin, tables)


def assert_batch_is_the_python_loop(plugin, tables) -> None:
    """Games 2 and 3 of run 5, played by the batch kernel and by a Python loop that searches
    move by move: the same ranks, scores, turns and telemetry."""
    from balance.games.position import Position

    chunk = plugin.play(tables, 5, 2, 2)
    for g in (2, 3):
        pos = Position(plugin, tables.inner, 5, g)
        streams = search_streams(tables, 5, g)
        while not pos.done:
            play_move(pos, tables, streams)
        one = pos.row()
        np.testing.assert_array_equal(one.rank[0], chunk.rank[g - 2])
        np.testing.assert_array_equal(one.score[0], chunk.score[g - 2])
        np.testing.assert_array_equal(one.turns[0], chunk.turns[g - 2])
        np.testing.assert_array_equal(one.telemetry[0], chunk.telemetry[g - 2])


@pytest.mark.parametrize("game", sorted(SEARCH))
def test_a_search_seat_keeps_the_deal_and_chunks_do_not_matter(game):
    plugin, tables = _tables(game, iterations=3)
    whole = plugin.play(tables, 9, 0, 4)
    a = plugin.play(tables, 9, 0, 2)
    b = plugin.play(tables, 9, 2, 2)
    for name in ("rank", "score", "turns"):
        joined = np.concatenate([getattr(a, name), getattr(b, name)])
        np.testing.assert_array_equal(joined, getattr(whole, name), err_msg=name)
    _equal_chunks(plugin.play(tables, 9, 0, 4), whole)


def test_a_time_budget_stops_the_search_and_redeal_every_shares_worlds():
    """``time_ms`` ends a decision's search before its iterations; ``redeal_every`` k plays k
    iterations a world (re-seeded chance), the same for the same key, and a legal pick."""
    from balance.games import _search

    plugin, tables = _tables("raven_order", iterations=6)
    pos = next(iter(positions(plugin, tables.inner, seed=3, n=40, every=9)))
    for p in positions(plugin, tables.inner, seed=3, n=40, every=9):
        if len(p.options()) > 2:
            pos = p
            break
    timed = tables.search.copy()
    timed[:, _search.SP_ITERS] = np.where(timed[:, _search.SP_ON] > 0, 1_000_000, 0)
    timed[:, _search.SP_TIME] = np.where(timed[:, _search.SP_ON] > 0, 5.0, 0)  # ms
    budget = type(tables)(tables.inner, timed, tables.policies)
    code, stats, _ = decide(pos, budget, search_stream(1, 0, pos.actor))
    assert code in pos.options().tolist()
    assert 0 < stats[:, 1].sum() < 1_000_000  # stopped by the clock, not the iterations
    shared = tables.search.copy()
    shared[:, _search.SP_ITERS] = np.where(shared[:, _search.SP_ON] > 0, 60, 0)
    shared[:, _search.SP_REDEAL] = 6
    worlds = type(tables)(tables.inner, shared, tables.policies)
    a = decide(pos, worlds, search_stream(2, 0, pos.actor))
    b = decide(pos, worlds, search_stream(2, 0, pos.actor))
    assert a[0] == b[0] and np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
    assert a[0] in pos.options().tolist() and a[1][:, 1].sum() == 60


@pytest.mark.parametrize("game", sorted(SEARCH))
def test_opponents_by_policy_keep_the_other_seats_out_of_the_tree(game):
    """``opponents: policy``: the other seats decide by their own policies inside the search
    too (they read only what they know), so the tree holds the searching seat's decisions only;
    its games are still the Python loop's, and its roots differ from the default (``tree``)."""
    from balance.games.position import Position

    plugin, tables, _ = compiled(
        SEARCH[game], ("policies.mcts.iterations=12", "policies.mcts.opponents=policy")
    )
    chunk = plugin.play(tables, 4, 1, 1)
    pos = Position(plugin, tables.inner, 4, 1)
    streams = search_streams(tables, 4, 1)
    while not pos.done:
        play_move(pos, tables, streams)
    np.testing.assert_array_equal(pos.row().rank[0], chunk.rank[0])
    np.testing.assert_array_equal(pos.row().telemetry[0], chunk.telemetry[0])
    _, tree, _ = compiled(SEARCH[game], ("policies.mcts.iterations=12",))
    moved = 0
    for p in positions(plugin, tables.inner, seed=2, n=30, every=5):
        if p.actor != 0 or len(p.options()) < 2:
            continue
        a = decide(p, tables, search_stream(7, 0, 0))
        b = decide(p, tree, search_stream(7, 0, 0))
        moved += not (np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2]))
    assert moved > 0
