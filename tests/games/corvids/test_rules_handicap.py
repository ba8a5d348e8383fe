"""Corvids ``rules.handicap``: points added to each place of the turn order before CV-7 finds the
winner. Hand-built end positions (helpers.build) where the handicap flips the winner or makes a
tie that CV-7 breaks by feathers; whole games where a handicap of k on one place adds exactly k to
that place's score and changes nothing else; a failed set-up (no game played) gets none; the
replay shows it; bad configs; no recompile."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numba.core.registry import CPUDispatcher

from balance import games, rng
from balance.config import ConfigError, load_config
from balance.games import _kit
from balance.games import get as get_game
from balance.games.corvids import engine, physics, policies, state
from balance.games.corvids.state import G_END, G_FIRST, G_N
from balance.games.corvids.tables import BUTTON, KEY, MAXP, NUT, P_HANDICAP

from .helpers import BASE, Held, build, compiled, steady

PLUGIN = games.get("corvids")
# birds whose favourites (earring, paperclip) nobody holds: a seat scores 1 a card (CV-3)
BIRDS = {0: "magpie", 1: "jackdaw"}


def ranks_of(s):
    sc = np.zeros(MAXP, np.int64)
    rk = np.zeros(MAXP, np.int64)
    engine.ranks(s.tb, s.st, sc, rk)
    n = int(s.st.board[G_N])
    return sc[:n].tolist(), rk[:n].tolist()


def two_seats(handicap, first=0, feathers=(0, 0)):
    """Seat 0 holds 2 cards (2 points), seat 1 three of different items (3 points); seat
    ``first`` plays first."""
    held = {
        0: {0: Held(KEY, NUT), 1: Held(BUTTON, NUT)},
        1: {2: Held(KEY, NUT), 3: Held(BUTTON, KEY), 4: Held(NUT, KEY)},
    }
    s = build(
        steady(2, {"handicap": handicap}),
        held=held,
        seat_feathers=dict(enumerate(feathers)),
        birds=BIRDS,
    )
    s.st.board[G_FIRST] = first
    return s


# ================================================================ hand-built end positions


def test_cv7_no_handicap_the_higher_score_wins():
    assert ranks_of(two_seats([])) == ([2, 3], [2, 1])


def test_cv7_a_handicap_on_the_first_player_flips_the_winner():
    """2 + 2 beats 3: the handicap counts before CV-7 picks the winner."""
    assert ranks_of(two_seats([2])) == ([4, 3], [1, 2])


def test_the_handicap_follows_the_turn_order_not_the_seat():
    """Seat 1 plays first: the first entry is its (order 0), the second seat 0's."""
    assert ranks_of(two_seats([2], first=1)) == ([2, 5], [2, 1])
    assert ranks_of(two_seats([0, 2], first=1)) == ([4, 3], [1, 2])
    assert ranks_of(two_seats([-1, 1])) == ([1, 4], [2, 1])


@pytest.mark.parametrize(
    ("feathers", "ranks"),
    [((5, 2), [1, 2]), ((2, 5), [2, 1]), ((3, 3), [1, 1])],
)
def test_cv7_a_tie_the_handicap_makes_is_broken_by_most_feathers(feathers, ranks):
    s = two_seats([1], feathers=feathers)
    assert ranks_of(s) == ([3, 3], ranks)


def test_the_logged_score_leaves_the_handicap_out():
    """engine.finish logs CV-3's points (E_SCORE) with the handicapped ranks; the replay adds the
    handicap from the tables."""
    s = two_seats([2])
    engine.finish(s.tb, s.st, state.alloc_work(s.tb))
    rows = s.events(state.E_SCORE)
    assert [(r[1], r[2], r[7]) for r in rows] == [(0, 2, 1), (1, 3, 2)]


def test_a_game_whose_set_up_failed_gets_no_handicap():
    """ENGINE-8: a failed set-up plays no game: no seat holds a card and every seat shares the
    win with 0 points, whatever the handicap; the same position of a played game has it."""
    s = build(steady(2, {"handicap": [5, -3]}), birds=BIRDS)
    s.st.board[G_END] = state.END_EMPTY
    assert ranks_of(s) == ([5, -3], [1, 2])
    s.st.board[G_END] = state.END_SETUP
    assert ranks_of(s) == ([0, 0], [1, 1])


def test_a_failed_set_up_of_a_real_game_is_told_with_no_handicap():
    rules = {
        "physics": {
            "scatter_sd_x": 0.0,
            "scatter_sd_y": 0.0,
            "setup_retries": 2,
            "nest_cover": "overlap",
        },
        "handicap": [4],
    }
    c = compiled(4, rules, seats="greedy")
    rep = get_game("corvids").replay(c, 1, 0)
    assert rep.end_reason == 1 and (rep.rank == 1).all() and (rep.score == 0).all()
    assert not [line for line in rep.lines if "handicap" in line or "WARNING" in line]


# ================================================================ whole games


@pytest.mark.parametrize(("players", "handicap"), [(4, [3]), (3, [0, -2, 1]), (2, [-1, 4])])
def test_a_handicap_adds_its_points_to_its_place_and_changes_nothing_else(players, handicap):
    """Every game of a chunk: the score of order k is the unhandicapped score plus entry k (0 past
    the list), the game itself is the same, and the ranks are CV-7's of the new scores."""
    plain = PLUGIN.play(compiled(players, seats="greedy"), 5, 0, 150)
    got = PLUGIN.play(compiled(players, {"handicap": handicap}, seats="greedy"), 5, 0, 150)
    points = np.asarray(handicap + [0] * (players - len(handicap)))
    assert (plain.end_reason == 0).all()  # every game played: each has its handicap
    assert np.array_equal(got.order, plain.order)
    assert np.array_equal(got.turns, plain.turns)
    assert np.array_equal(got.telemetry, plain.telemetry)
    for name, column in plain.extra.items():
        assert np.array_equal(got.extra[name], column), name
    assert np.array_equal(got.score, plain.score + points[plain.order])
    feathers = got.extra["feathers"]
    for i in range(got.n_games):
        for p in range(players):
            ahead = (got.score[i] > got.score[i, p]) | (
                (got.score[i] == got.score[i, p]) & (feathers[i] > feathers[i, p])
            )
            assert got.rank[i, p] == 1 + ahead.sum()
    assert (got.rank != plain.rank).any()  # the points matter to some games


def test_the_replay_shows_the_handicap_and_is_the_dataset_game():
    c = compiled(3, {"handicap": [2, 0, -1]}, seats="greedy")
    chunk = PLUGIN.play(c, 3, 0, 4)
    for game in range(4):
        rep = get_game("corvids").replay(c, 3, game)
        assert not [line for line in rep.lines if "WARNING" in line]
        assert list(rep.score) == list(chunk.score[game])
        assert list(rep.rank) == list(chunk.rank[game])
        first = int(np.flatnonzero(chunk.order[game] == 0)[0])
        last = int(np.flatnonzero(chunk.order[game] == 2)[0])
        lines = {
            p: next(x for x in rep.lines if x.startswith(f"seat {p} (greedy): ")) for p in range(3)
        }
        assert lines[first].startswith(
            f"seat {first} (greedy): {chunk.score[game, first]} points (+2 handicap, bird bonus "
        )
        assert f"{chunk.score[game, last]} points (-1 handicap, bird bonus " in lines[last]
        middle = ({0, 1, 2} - {first, last}).pop()
        assert "handicap" not in lines[middle]


# ================================================================ config


def test_default_is_no_handicap():
    cfg = load_config(BASE)
    assert cfg.rules.handicap == []
    assert not PLUGIN.compile(cfg).tb.params[P_HANDICAP : P_HANDICAP + MAXP].any()


def test_fewer_entries_than_players_leave_the_rest_at_zero():
    c = compiled(4, {"handicap": [5, -2]}, seats="greedy")
    assert c.tb.params[P_HANDICAP : P_HANDICAP + MAXP].tolist() == [5, -2, 0, 0, 0, 0, 0, 0]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def error(path: Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert "\n" not in str(info.value)
    return str(info.value)


def test_more_entries_than_players_is_one_line_naming_the_file_and_key(tmp_path):
    text = f"extends: {BASE}\nplayers: 2\nrules:\n  handicap: [1, 0, 2]\n"
    path = write(tmp_path, "two.yaml", text)
    assert error(path) == (
        f"{path}: rules.handicap: 3 entries, one per place in the turn order, are more than the 2"
        " players"
    )


def test_a_handicap_and_a_player_count_from_two_files_name_both(tmp_path):
    parent = write(tmp_path, "parent.yaml", f"extends: {BASE}\nrules:\n  handicap: [1, 0, 0, 2]\n")
    child = write(tmp_path, "child.yaml", "extends: parent.yaml\nplayers: 3\n")
    assert error(child) == (
        f"{child}: players: 3 players have 3 places in the turn order; rules.handicap gives 4"
        f" (rules.handicap set in {parent})"
    )


@pytest.mark.parametrize(("value", "problem"), [(101, "<= 100"), (-101, ">= -100")])
def test_a_value_past_the_bound_is_one_line_naming_the_entry(tmp_path, value, problem):
    path = write(tmp_path, "big.yaml", f"extends: {BASE}\nrules:\n  handicap: [0, {value}]\n")
    message = error(path)
    assert message.startswith(f"{path}: rules.handicap[1]: ")
    assert problem in message and str(value) in message


# ================================================================ no recompile


def test_a_handicap_change_compiles_nothing():
    """Values live in the tables (STYLE.md): once the kernels ran, other handicaps add no numba
    signature to any dispatcher of the game (the pattern of tests/experiments/test_sweep.py)."""
    modules = [engine, policies, state, physics, rng, _kit]

    def signatures() -> int:
        return sum(
            len(f.signatures)
            for mod in modules
            for f in vars(mod).values()
            if isinstance(f, CPUDispatcher)
        )

    c = compiled(3, seats="greedy")
    PLUGIN.play(c, 1, 0, 5)
    get_game("corvids").replay(c, 1, 0)
    before = signatures()
    assert before > 0
    for handicap in ([1], [0, -4, 9], [100, -100]):
        c = compiled(3, {"handicap": handicap}, seats="greedy")
        PLUGIN.play(c, 1, 0, 5)
        get_game("corvids").replay(c, 1, 0)
    assert signatures() == before
