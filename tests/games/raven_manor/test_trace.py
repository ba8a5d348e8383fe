"""Raven Manor's trajectory (issue 32; docs/rules/raven_manor.md "How a game went: the
trajectory"): each seat's ``alive``, ``team`` and ``evil_character`` at point 0 (after the
opening), at the end of every round of ``players`` turns (G_TURN counts every turn: a stunned
seat's skipped one, ENGINE-1, and a dead seat's, RM-14) and at the game's end.

- the last point is the dataset's end: ``alive`` is the ``alive`` column (and ``score``),
  ``team`` the ``team`` column, and the winner and every rank rebuilt from the last point alone
  (RM-10, RM-22, ENGINE-2, ENGINE-3) are the kernel's, for every game of several configs (2 to
  12 players, every character, random and reasoning players);
- point 0 is the deal's: everyone alive, each seat on its dealt character's side (RM-2, RM-22);
- between, each point agrees with ``death_turn`` and ``possessed_turn`` (a seat is dead at the
  end of a round iff it died in a turn of it or before), and with the event log, replayed on its
  own (deaths, possessions, frees, side changes; the rounds begun counted from E_TURN);
- two hand-built games whose trajectories are known turn by turn;
- the batch's trace is narrate.play_logged's, and the search player's batch fills it as its
  Python loop does;
- ``trace_cap`` bounds every game and is reached by a capped one (a sweep of small turn caps).
"""

from __future__ import annotations

import numpy as np
import pytest

from balance.games import _kit as kit
from balance.games.raven_manor import engine, narrate, policies, state
from balance.games.raven_manor.state import (
    E_DEAL,
    E_DEATH,
    E_END,
    E_FREED,
    E_POSSESS,
    E_SIDE,
    E_TURN,
    E_WHALE,
    END_CAP,
    END_CTHULHU,
    END_FAMILY,
    END_HORSEMAN,
    END_RAVEN,
    TR_ALIVE,
    TR_EVIL,
    TR_TEAM,
)
from balance.games.raven_manor.tables import (
    AUNT_CAT,
    AUNT_OWL,
    AVOID,
    DODGE,
    DOG_FATHER,
    EXCHANGE,
    FAMILY,
    FEATHER,
    KNIFE,
    MAXP,
    P_PLAYERS,
    P_TURN_CAP,
    RAVEN,
    S_CTHULHU,
    S_HORSEMAN,
    S_RAVEN,
    VASE,
    WHALE,
)
from tests.kit.decisions import compiled

from .helpers import compile_for, play_

SEED = 11
# (config, games): the smallest (2) and the largest (12) player counts, every character and card
# (Lady Whale, the Horseman, Cthulhu), random players (long and capped games), reasoning players
RUNS = {
    "configs/raven_manor/two_players.yaml": 3000,
    "configs/raven_manor/players_3.yaml": 2000,
    "configs/raven_manor/base.yaml": 2000,
    "configs/raven_manor/dont_trust_anyone.yaml": 2000,
    "configs/raven_manor/all_cards.yaml": 2000,
    "configs/raven_manor/twelve_players.yaml": 1000,
    "configs/raven_manor/random.yaml": 1000,
    "configs/raven_manor/reasoning_family.yaml": 200,
}
_CHUNKS: dict[str, tuple] = {}


def _run(path: str):
    """(compiled tables, Chunk) of the first RUNS[path] games of run SEED (played once)."""
    if path not in _CHUNKS:
        plugin, tables, _ = compiled(path)
        _CHUNKS[path] = (tables, plugin.play(tables, SEED, 0, RUNS[path]))
    return _CHUNKS[path]


def _own_side(ch: int) -> int:
    return int(state.own_side(ch))


def _evil(ch: int) -> int:
    return int(state.evil(ch))


def _outcome(last: np.ndarray) -> tuple[int, np.ndarray]:
    """(END_* code, rank[P]) rebuilt from the last point alone (RM-10, RM-22, ENGINE-2): (a) no
    living evil character: the Family; (c) Cthulhu the only living seat; (b) a living possessor
    with every living seat on its side; else the turn cap, a draw shared by the Family and each
    side whose evil character lives. The winning side's seats rank 1, dead or alive."""
    alive = last[:, TR_ALIVE] == 1
    team = last[:, TR_TEAM]
    evil = last[:, TR_EVIL] == 1
    living = np.flatnonzero(alive)
    ends = {S_RAVEN: END_RAVEN, S_HORSEMAN: END_HORSEMAN}
    if not (alive & evil).any():
        return END_FAMILY, np.where(team == FAMILY, 1, 2)
    if len(living) == 1 and team[living[0]] == S_CTHULHU:
        return END_CTHULHU, np.where(team == S_CTHULHU, 1, 2)
    for x in living:
        if evil[x] and team[x] in ends and (team[living] == team[x]).all():
            return ends[int(team[x])], np.where(team == team[x], 1, 2)
    left = {FAMILY} | {int(team[x]) for x in living if evil[x]}
    return END_CAP, np.where(np.isin(team, list(left)), 1, 2)


def _points(turns, players: int):
    """1 + the rounds begun: point 0, then a point per round of ``players`` turns begun."""
    return 1 + (np.asarray(turns) + players - 1) // players


# ---------------------------------------------------------------- the dataset's games


@pytest.mark.parametrize("path", sorted(RUNS))
def test_the_last_point_is_the_datasets_end_and_decides_the_winner_and_the_ranks(path):
    """For every game: ``points`` = 1 + ceil(turns / players), within ``trace_cap``, the rows
    past it 0; the last point's ``alive`` is the ``alive`` column and ``score``, its ``team`` the
    ``team`` column; the end and every rank rebuilt from it are the kernel's (RM-10, RM-22,
    ENGINE-2, ENGINE-3)."""
    tables, chunk = _run(path)
    n = tables.players
    cap = state.trace_cap(tables.tb)
    assert chunk.trace.shape == (RUNS[path], cap, n, len(state.TRACE_MEASURES))
    assert chunk.trace.dtype == np.int16
    np.testing.assert_array_equal(chunk.points, _points(chunk.turns, n))
    assert chunk.points.max() <= cap
    g = np.arange(chunk.n_games)
    last = chunk.trace[g, chunk.points - 1]
    np.testing.assert_array_equal(last[:, :, TR_ALIVE], chunk.extra["alive"])
    np.testing.assert_array_equal(last[:, :, TR_ALIVE], chunk.score)
    np.testing.assert_array_equal(last[:, :, TR_TEAM], chunk.team)
    past = np.arange(cap)[None, :] >= chunk.points[:, None]
    assert not chunk.trace[past].any()
    whale_moved = 0
    for i in range(chunk.n_games):
        end, rank = _outcome(last[i])
        assert end - 1 == chunk.end_reason[i], f"game {i}"
        # The one exception (RM-15, ENGINE-3, ENGINE-13): a seat that died holding an evil
        # character card always ranks 2, even after Lady Whale took that card from it (its side
        # then follows the card it holds now, and may have won)
        moved = (rank != chunk.rank[i]) & (WHALE in chunk.role[i])
        moved &= (chunk.rank[i] == 2) & (last[i, :, TR_ALIVE] == 0)
        moved &= np.vectorize(_evil)(chunk.role[i]) == 1
        whale_moved += int(moved.sum())
        np.testing.assert_array_equal(np.where(moved, 2, rank), chunk.rank[i], err_msg=f"game {i}")
    assert whale_moved <= chunk.n_games // 100


@pytest.mark.parametrize("path", sorted(RUNS))
def test_point_zero_is_the_deal_and_each_round_agrees_with_deaths_and_possessions(path):
    """Point 0 (RM-2, RM-22): everyone alive, on its dealt character's side, the evil characters
    marked. At the end of round k (turn k * players), a seat is alive iff it had not died
    (``death_turn`` >= k * players or -1), and a seat not yet possessed (``possessed_turn``) is
    on its own character's side: checked where no Lady Whale was dealt (RM-15 swaps cards,
    revives and moves sides)."""
    tables, chunk = _run(path)
    n = tables.players
    role = chunk.role
    own = np.vectorize(_own_side)(role)
    evil = np.vectorize(_evil)(role)
    np.testing.assert_array_equal(chunk.trace[:, 0, :, TR_ALIVE], 1)
    np.testing.assert_array_equal(chunk.trace[:, 0, :, TR_TEAM], own)
    np.testing.assert_array_equal(chunk.trace[:, 0, :, TR_EVIL], evil)
    death = chunk.extra["death_turn"]
    poss = chunk.extra["possessed_turn"]
    checked = 0
    for i in np.flatnonzero(~(role == WHALE).any(axis=1)):
        k = np.arange(chunk.points[i])[:, None]  # the point's turn: k * n (the last: the end)
        at = np.minimum(k * n, chunk.turns[i])
        alive = (death[i][None, :] < 0) | (death[i][None, :] >= at)
        np.testing.assert_array_equal(chunk.trace[i, : chunk.points[i], :, TR_ALIVE], alive)
        free = (poss[i][None, :] < 0) | (poss[i][None, :] >= at)
        tr = chunk.trace[i, : chunk.points[i], :, TR_TEAM]
        np.testing.assert_array_equal(np.where(free, tr, own[i]), np.broadcast_to(own[i], tr.shape))
        np.testing.assert_array_equal(
            chunk.trace[i, : chunk.points[i], :, TR_EVIL], np.broadcast_to(evil[i], tr.shape)
        )
        checked += 1
    assert checked >= chunk.n_games // 2


@pytest.mark.parametrize(
    "path",
    [
        "configs/raven_manor/base.yaml",
        "configs/raven_manor/two_players.yaml",
        "configs/raven_manor/all_cards.yaml",
    ],
)
def test_the_logged_replay_has_the_batchs_trace_and_its_event_log_rebuilds_it(path):
    """narrate.play_logged's trace is the batch's row, for a few games; and the event log,
    replayed on its own (E_DEAL, E_DEATH, E_POSSESS, E_FREED, E_SIDE; a round ends when the
    E_TURN of turn k * players opens, or at E_END), gives the same points, their number 1 + the
    rounds begun (E_TURN count / players, rounded up)."""
    tables, chunk = _run(path)
    n = tables.players
    for g in range(12):
        logged = narrate.play_logged(tables, SEED, g)
        assert logged.trace.dtype == np.int16
        np.testing.assert_array_equal(logged.trace, chunk.trace[g, : chunk.points[g]])
        log = logged.log
        if (log[:, 0] == E_WHALE).any():
            continue  # RM-15: Lady Whale's swap is not replayed here
        alive = np.ones(n, np.int64)
        team = np.zeros(n, np.int64)
        evil = np.zeros(n, np.int64)
        rows = []
        turns = 0
        for row in log:
            code, a, b = int(row[0]), int(row[1]), int(row[2])
            if code == E_DEAL:
                team[a], evil[a] = _own_side(b), _evil(b)
            elif code == E_TURN:
                if b % n == 0:  # turn k * players opens: round k has ended (k = 0: the start)
                    rows.append(np.stack([alive, team, evil], axis=1))
                turns += 1
            elif code == E_DEATH:
                alive[a] = 0
            elif code in (E_POSSESS, E_SIDE):
                team[a] = b
            elif code == E_FREED:
                team[a] = FAMILY
            elif code == E_END:  # the end (the last round's point when it ends a round)
                rows.append(np.stack([alive, team, evil], axis=1))
        assert turns == chunk.turns[g] == logged.turns
        assert len(rows) == chunk.points[g] == _points(turns, n)
        np.testing.assert_array_equal(np.array(rows), logged.trace, err_msg=f"game {g}")


# ---------------------------------------------------------------- hand-built games


def _play_out(s) -> np.ndarray:
    """Play the scene ``s`` as a game from its first turn (turn 0, seat G_FIRST: P_GAME resumed
    after the opening, which the scene replaced by its hands), the seats' policies and scripts
    deciding; its trajectory as record_trace gives it (int16[points, P, K])."""
    bd = s.board
    s._begin()
    bd[state.G_TURN] = 0
    bd[state.G_SP] = 0
    bd[state.G_KIND] = -1
    engine.push(s.st, np.int64(engine.P_GAME), np.int64(state.G_GAME_PC))
    bd[state.G_GAME_PC] = 1  # the opening is over
    while engine.advance(s.tb, s.st, s.work) >= 0:
        engine.apply(s.tb, s.st, s.work, policies.choose(s.tb, s.st, s.work))
    cap = state.trace_cap(s.tb)  # as the batch records it
    return kit.one_trace(engine.record_trace, s.tb, s.st, s.work, cap, s.n, state.N_TRACE)


def _point(alive, team, evil) -> np.ndarray:
    return np.stack([alive, team, evil], axis=1)


def test_a_possession_then_the_ravens_death_at_the_end_of_the_first_round(build):
    """Four seats, the Raven in seat 0. Turn 0: its Vase stuns seat 2 and its Feather, passed in
    the end-of-turn exchange, possesses seat 1 (RM-6). Turn 1: seat 1 plays on. Turn 2: seat 2
    skips its stunned turn, which still counts (ENGINE-1). Turn 3: seat 3's Knife kills the
    Raven (adjacent: the ring closes, RM-12): the Family wins (RM-10) as the first round ends, so
    the round's point is the end's (two points, not three), and the possessed seat 1 is on the
    Raven's side there: it loses with it (RM-22, ENGINE-3)."""
    s = build(
        [RAVEN, AUNT_CAT, AUNT_OWL, DOG_FATHER],
        hands={
            0: [VASE, FEATHER, DODGE, DODGE],
            1: [DODGE, AVOID, DODGE, AVOID],
            2: [AVOID, AVOID, AVOID, AVOID],
            3: [KNIFE, AVOID, AVOID, AVOID],
        },
        deck=[DODGE] * 24,
        scripts={0: [*play_(VASE, 2), FEATHER], 3: [AVOID, *play_(KNIFE, 0)]},
    )
    trace = _play_out(s)
    assert s.end() == END_FAMILY and int(s.board[state.G_TURN]) == 4
    assert [e[:2] for e in s.ev(E_POSSESS)] == [(1, S_RAVEN)]
    np.testing.assert_array_equal(
        trace,
        [
            _point([1, 1, 1, 1], [S_RAVEN, FAMILY, FAMILY, FAMILY], [1, 0, 0, 0]),
            _point([0, 1, 1, 1], [S_RAVEN, S_RAVEN, FAMILY, FAMILY], [1, 0, 0, 0]),
        ],
    )
    assert [s.outcome(p)[1] for p in range(4)] == [2, 2, 1, 1]
    s.check()


def test_a_dead_seats_turn_ends_the_round_and_a_possession_ends_the_game_mid_round(build):
    """Three seats, the Raven in seat 0. Turn 0: its Knife kills seat 1 (RM-5); it gives the dead
    seat a Dodge in the end-of-turn exchange (RM-14, RM-29: the dead still exchange). Turn 1: the
    dead seat 1 takes its turn (RM-14). Turn 2: seat 2's turn ends round 1: point 1 (seat 1
    dead). Turn 3: the Raven's Exchange passes seat 2 a Feather: possessed, the last free player,
    and the Raven wins (RM-6, RM-10) in the second round's first turn, the last point: three
    points (1 + two rounds begun)."""
    s = build(
        [RAVEN, AUNT_CAT, AUNT_OWL],
        hands={0: [KNIFE, EXCHANGE, FEATHER, DODGE], 1: [DODGE] * 4, 2: [DODGE] * 4},
        deck=[DODGE] * 24,
        scripts={0: [*play_(KNIFE, 1), DODGE, DODGE, *play_(EXCHANGE, 2), FEATHER]},
    )
    trace = _play_out(s)
    assert s.end() == END_RAVEN and int(s.board[state.G_TURN]) == 4
    np.testing.assert_array_equal(
        trace,
        [
            _point([1, 1, 1], [S_RAVEN, FAMILY, FAMILY], [1, 0, 0]),
            _point([1, 0, 1], [S_RAVEN, FAMILY, FAMILY], [1, 0, 0]),
            _point([1, 0, 1], [S_RAVEN, FAMILY, S_RAVEN], [1, 0, 0]),
        ],
    )
    s.check()


def test_record_trace_writes_nothing_where_the_outputs_keep_no_trajectory(build):
    """Outputs that keep no trajectory (``points`` of length 0, as kit.alloc_outputs makes them
    for a game without measures)."""
    s = build([RAVEN, AUNT_CAT, AUNT_OWL])
    trace = np.zeros((0, 3, 0), np.int16)
    points = kit.trace_points(0, 1, 0)
    engine.record_trace(s.tb, s.st, s.work, np.int64(0), trace, points)
    assert points.size == 0


# ---------------------------------------------------------------- the bound and the search


@pytest.mark.parametrize("players", [2, 5, 12])
def test_trace_cap_bounds_every_game_and_a_capped_game_reaches_it(players):
    """RM-10: a game plays at most ``turn_cap`` turns, so at most 1 + ceil(turn_cap / players)
    points; a game the cap ended has exactly that many (the bound is tight). Small caps, whole
    rounds and not."""
    for turn_cap in (2, 3, 7, 12):
        c = compile_for(players, rules={"turn_cap": turn_cap})
        cap = state.trace_cap(c.tb)
        assert cap == 1 + -(-turn_cap // players)
        assert state.alloc_work(c.tb).trace.shape == (cap, MAXP, state.N_TRACE)
        chunk = engine.play(c, 3, 0, 256)
        assert chunk.trace.shape[1] == cap
        assert chunk.points.max() <= cap
        capped = chunk.end_reason == END_CAP - 1
        assert capped.any()
        assert (chunk.points[capped] == cap).all()
        np.testing.assert_array_equal(chunk.points, _points(chunk.turns, players))


def test_trace_cap_of_the_shipped_turn_cap():
    """300 turns (RM-10): 151 points at 2 players, 61 at 5, 26 at 12."""
    for players, cap in ((2, 151), (5, 61), (12, 26)):
        c = compile_for(players)
        assert int(c.tb.params[P_PLAYERS]) == players and int(c.tb.params[P_TURN_CAP]) == 300
        assert state.trace_cap(c.tb) == cap


def test_the_search_players_batch_fills_the_trace_as_its_python_loop_does():
    """A search seat (4 iterations a decision) at game 0 of run 5: the batch's trace is the one
    a Python loop that searches move by move keeps (Position's Work), and its last point is the
    row's end."""
    from balance.games.position import Position
    from balance.search import play_move, search_streams

    plugin, tables, _ = compiled(
        "configs/raven_manor/search_vs_basic.yaml", ("policies.mcts.iterations=4",)
    )
    chunk = plugin.play(tables, 5, 0, 1)
    n = tables.inner.players
    assert chunk.points[0] == _points(chunk.turns[0], n) >= 2
    last = chunk.trace[0, chunk.points[0] - 1]
    np.testing.assert_array_equal(last[:, TR_ALIVE], chunk.extra["alive"][0])
    np.testing.assert_array_equal(last[:, TR_TEAM], chunk.team[0])
    pos = Position(plugin, tables.inner, 5, 0)
    streams = search_streams(tables, 5, 0)
    while not pos.done:
        play_move(pos, tables, streams)
    tb = tables.inner.tb
    cap = state.trace_cap(tb)
    trace = kit.one_trace(engine.record_trace, tb, pos.state, pos.work, cap, n, state.N_TRACE)
    assert len(trace) == chunk.points[0]
    np.testing.assert_array_equal(trace, chunk.trace[0, : chunk.points[0]])


def test_the_plugin_names_the_measures():
    from balance import games

    assert games.get("raven_manor").trace_measures == ("alive", "team", "evil_character")
