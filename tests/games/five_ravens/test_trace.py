"""Five Ravens' trajectory (state.TRACE_MEASURES, Chunk.trace; docs/rules/five_ravens.md, "How a
game went: the trajectory"): each seat's score if the game were scored after set-up, at the end of
each round and at the end, and its captured cards. Checked: a hand-built two-round game whose
trajectory is worked out by hand; every game of a run against the dataset's columns at the end and
the handicap at the start; each point against the engine's scoring of the position where it is
taken, played decision by decision; ``trace_cap`` over the rules' whole range of rounds and seats;
the replay; the search player's batch; int16 saturation."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from balance.games import get as get_game
from balance.games.five_ravens import PLUGIN, engine, narrate, state
from balance.games.five_ravens import policies as pol
from balance.games.five_ravens.schema import MAX_ROUNDS
from balance.games.five_ravens.state import (
    E_ROUND,
    G_START,
    M_THIEF,
    PL_CAPT_N,
    PL_SCORE,
    alloc_work,
    trace_points,
    trace_rows,
)
from balance.games.five_ravens.tables import P_ROUNDS, compile_tables
from balance.games.position import Position
from tests.kit.decisions import compiled

from .helpers import blank, config, events, raven, relic_id, scripted, set_relic_deck, set_seat

LINE_UPS = [  # the fewest and the most seats and rounds, the handicap, random and greedy seats
    (4, ["greedy"] * 4, {}),
    (3, ["random", "greedy", "random"], {"rounds": 9, "handicap": [2, 0, -3]}),
    (2, ["greedy", "random"], {"rounds": 1}),
    (4, ["random", "greedy", "greedy", "random"], {"rounds": MAX_ROUNDS, "handicap": [-1, 4]}),
]


def test_the_plugin_names_the_measures():
    assert PLUGIN.trace_measures == ("score", "captured")
    assert get_game("five_ravens").trace_measures == state.TRACE_MEASURES


# ================================================================ a game worked out by hand


def test_a_hand_built_two_round_game():
    """Two seats, two rounds, one card drawn a round (so each turn is the thief, FR-5, FR-6),
    seat 0 first with a handicap of 1 (ENGINE-15). Round 1 deals chest_5 face up and chest_3 face
    down (FR-4); seat 0's 5 steals before seat 1's 3 (FR-9) and takes chest_5, captured with the 5
    (FR-10); seat 1 takes chest_3; both thieves are captured (FR-11). Seat 1 stole last and goes
    first (FR-12). Round 2 deals a hollow face up and a gem face down; seat 1's 9 steals first
    (the gem), seat 0's 2 takes the hollow, both captured. Standing (FR-13 with the handicap):

    - after set-up: 1 and 0, nothing captured;
    - after round 1: 1 + 5 (chest_5) = 6 and 3 (chest_3); captured 2 (the 5, chest_5) and 1;
    - the end: 6 + 1 (a hollow not captured) = 7 and 3 + 1 (one gem) - 1 (the captured 9) = 3;
      captured 3 and 2.
    """
    c = scripted(config(2, rules={"rounds": 2, "hand_size": 1, "handicap": [1]}))
    R = partial(relic_id, c)
    script = [
        M_THIEF, raven(5), M_THIEF, raven(3), 0, 1,  # round 1: thieves, then the steals
        M_THIEF, raven(9), M_THIEF, raven(2), 1, 0,  # round 2: seat 1 first
    ]  # fmt: skip
    st = blank(c, script=script, first=0)
    st.board[G_START] = 0
    set_relic_deck(st, [R("gem"), R("hollow"), R("chest_3"), R("chest_5")])  # dealt from the top
    set_seat(c, st, 0, deck=[raven(2), raven(5)])  # drawn from the top (the last)
    set_seat(c, st, 1, deck=[raven(9), raven(3)])
    tb = c.tb
    work = alloc_work(tb)
    while engine.advance(tb, st, work) >= 0:
        engine.apply(tb, st, work, pol.choose(tb, st, work))
    assert int(st.board[state.G_SCRIPT]) == len(script)
    assert trace_rows(st, work).tolist() == [
        [[1, 0], [0, 0]],
        [[6, 2], [3, 1]],
        [[7, 3], [3, 2]],
    ]
    assert [r for r, _ in events(st, E_ROUND)] == [0, 1]
    assert list(st.pl[:, PL_SCORE]) == [7, 3]


# ================================================================ every game of a run


@pytest.mark.parametrize(("players", "seats", "rules"), LINE_UPS)
def test_every_game_records_set_up_each_round_and_the_end(players, seats, rules):
    """``rounds`` + 1 points (``trace_cap``, the rounds every game plays, FR-1); point 0 is the
    handicap of the seat's place (nothing owned, nothing captured; ENGINE-15); the last point is
    the dataset's score and captured cards, exactly."""
    c = compile_tables(config(players, seats, rules=rules))
    rounds = int(c.tb.params[P_ROUNDS])
    assert state.trace_cap(c.tb) == rounds + 1
    n = 2000 if rounds <= 9 else 300
    chunk = PLUGIN.play(c, 11, 0, n)
    assert chunk.trace.dtype == np.int16
    assert chunk.trace.shape == (n, rounds + 1, players, 2)
    assert (chunk.points == rounds + 1).all()
    hc = np.asarray(rules.get("handicap", []) + [0] * players)[:players]
    assert np.array_equal(chunk.trace[:, 0, :, 0], hc[chunk.order])
    assert not chunk.trace[:, 0, :, 1].any()
    assert np.array_equal(chunk.trace[:, -1, :, 0], chunk.score)
    assert np.array_equal(chunk.trace[:, -1, :, 1], chunk.extra["captured"])
    if rounds > 1:
        assert (chunk.trace[:, 1:-1] != chunk.trace[:, -1:]).any()  # the middle is not the end


# Scoring rules far from the base's, for engine.standing_counted (the trajectory's standing from
# the seats' counts): every relic a thief too (FR-7), a tripled chest, a cursed set of one, the
# 4's bonus with no relic, penalties and bonuses of either sign, a long gem table
SCORING_VARIANTS = {
    "relic thieves": {"thief_relics": ["chest_3", "gem", "hollow", "skull", "idol", "mask"]},
    "strong six": {"scoring": {"six_multiplier": 3, "six_max_chest": 5}},
    "sets of one": {"scoring": {"cursed_set_size": 1, "cursed_set_bonus": -4, "hollow": -2}},
    "four for nothing": {
        "scoring": {"four_threshold": 0, "four_bonus": 7, "eight_penalty": -2, "nine_penalty": 3}
    },
    "gems": {"scoring": {"gem_table": [2, 3, 5, 8, 13, 21], "hollow_captured": 0}},
}


@pytest.mark.parametrize(
    ("players", "seats", "rules", "games"),
    [(*line_up, 8) for line_up in LINE_UPS[:3]]
    + [(4, ["random", "greedy"] * 2, rules, 24) for rules in SCORING_VARIANTS.values()],
    ids=[f"line-up {i}" for i in range(3)] + list(SCORING_VARIANTS.keys()),
)
def test_a_point_is_the_engine_scoring_the_position_where_it_is_taken(
    players, seats, rules, games
):
    """Played decision by decision: when a round's first decision is pending (its Prelude moved
    no card from one owner to another), engine.final_scores of a copy of the position (the piles
    scanned) gives the point of the round before's end, as the end gives the last; the batch
    recorded the same (engine.standing_counted, from the seats' counts), under three line-ups
    and under every scoring variant of SCORING_VARIANTS."""
    c = compile_tables(config(players, seats, rules=rules))
    chunk = PLUGIN.play(c, 4, 0, games)
    for game in range(games):
        pos = Position(PLUGIN, c, 4, game)
        want = []
        while not pos.done:
            if int(trace_points(pos.state)) > len(want):
                copy = state.clone_state(pos.state)
                w = alloc_work(c.tb)
                engine.final_scores(c.tb, copy, w.score, w.rank, w.sb, w.cursed)
                want.append([list(w.score), list(copy.pl[:, PL_CAPT_N])])
            pos.play_policy()
        want.append([list(pos.state.pl[:, PL_SCORE]), list(pos.state.pl[:, PL_CAPT_N])])
        want = np.asarray(want).transpose(0, 2, 1)  # point, seat, measure
        assert np.array_equal(trace_rows(pos.state, pos.work), want)
        assert np.array_equal(chunk.trace[game, : chunk.points[game]], want)


def test_the_replay_carries_the_dataset_games_trajectory():
    """narrate.play_logged's Logged.trace is the batch's row; its log began as many rounds."""
    c = compile_tables(config(4, ["greedy", "random", "greedy", "random"]))
    chunk = PLUGIN.play(c, 2, 0, 5)
    for game in range(5):
        logged = narrate.play_logged(c, 2, game)
        assert logged.trace.dtype == np.int16
        assert np.array_equal(logged.trace, chunk.trace[game, : chunk.points[game]])
        begun = int((logged.log[:, 0] == E_ROUND).sum())
        assert chunk.points[game] == 1 + begun


def test_the_search_players_batch_fills_the_trajectory():
    """configs/five_ravens/search_vs_greedy.yaml at 4 iterations: the search seat's games keep
    their trajectory as the batch's do (balance/games/_search.py calls record_trace)."""
    plugin, tables, _ = compiled(
        "configs/five_ravens/search_vs_greedy.yaml", ("policies.mcts.iterations=4",)
    )
    chunk = plugin.play(tables, 3, 0, 3)
    assert chunk.trace.shape == (3, 6, 4, 2) and (chunk.points == 6).all()
    assert not chunk.trace[:, 0].any()
    assert np.array_equal(chunk.trace[:, -1, :, 0], chunk.score)
    assert np.array_equal(chunk.trace[:, -1, :, 1], chunk.extra["captured"])


def test_a_standing_past_int16_saturates():
    """Chests and hollows of 10,000 points: some final scores pass 32,767 and their last point is
    32,767 (the int16 cells saturate, record_trace)."""
    relics = {f"chest_{v}": {"kind": "chest", "count": 1, "value": 10_000} for v in range(1, 6)}
    scoring = {"hollow": 10_000, "hollow_captured": 10_000}
    c = compile_tables(config(2, rules={"relics": relics, "scoring": scoring}))
    chunk = PLUGIN.play(c, 1, 0, 2000)
    assert (chunk.score > 32_767).any()
    assert np.array_equal(chunk.trace[:, -1, :, 0], np.clip(chunk.score, -32_768, 32_767))
