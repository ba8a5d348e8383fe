"""Five Ravens ``rules.handicap``: points added to each place of the turn order before the FR-14
winner is found. Scripted end positions where the handicap flips the winner or makes a tie that
FR-14 breaks by captured cards; whole games where a handicap of k on one place adds exactly k to
that place's score and changes nothing else; the replay showing it; bad configs; no recompile."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import pytest
from numba.core.registry import CPUDispatcher

from balance import rng
from balance.config import ConfigError, load_config
from balance.games import _kit
from balance.games import get as get_game
from balance.games.five_ravens import PLUGIN, engine, policies, state
from balance.games.five_ravens.state import G_START, PL_CAPT_N, alloc_work
from balance.games.five_ravens.tables import P_HANDICAP, compile_tables

from .helpers import CONFIGS, blank, config, raven, relic_id, scripted, set_seat, total

BASE = CONFIGS / "base.yaml"


def final(c, st):
    """engine.final_scores of a position: (scores, ranks) as play_game ends a game."""
    w = alloc_work(c.tb)
    engine.final_scores(c.tb, st, w.score, w.rank, w.sb, w.cursed)
    return [int(s) for s in w.score], [int(r) for r in w.rank]


def two_seats(handicap, start=0, captured_1=()):
    """Seat 0 owns chest_3 (3 points), seat 1 chest_5 (5 points) and ``captured_1`` captured
    Ravens that score nothing (the 1s, 2s, 3s...); seat ``start`` was round 1's first player."""
    c = scripted(config(2, rules={"handicap": handicap}))
    R = partial(relic_id, c)
    st = blank(c)
    set_seat(c, st, 0, discard=[R("chest_3")], captured=[raven(1), raven(2)])
    set_seat(c, st, 1, discard=[R("chest_5")], captured=list(captured_1))
    st.board[G_START] = start
    assert [total(c, st, p) for p in (0, 1)] == [3, 5]
    return c, st


# ================================================================ scripted end positions


def test_fr14_no_handicap_the_higher_score_wins():
    assert final(*two_seats([])) == ([3, 5], [2, 1])


def test_fr14_a_handicap_on_the_first_player_flips_the_winner():
    """3 + 3 beats 5: the handicap counts before FR-14 picks the winner."""
    assert final(*two_seats([3])) == ([6, 5], [1, 2])


def test_the_handicap_follows_the_turn_order_not_the_seat():
    """ENGINE-15: seat 1 was round 1's first player: the first entry is its (order 0), the
    second seat 0's."""
    assert final(*two_seats([3], start=1)) == ([3, 8], [2, 1])
    assert final(*two_seats([0, 3], start=1)) == ([6, 5], [1, 2])
    assert final(*two_seats([-1, 1], start=0)) == ([2, 6], [2, 1])


@pytest.mark.parametrize(
    ("captured_1", "ranks"),
    [
        ([raven(1)], [2, 1]),  # 5 = 5: seat 1 captured 1 card, seat 0 two: seat 1 wins
        ([raven(1), raven(2), raven(3)], [1, 2]),  # seat 0 captured fewer: seat 0 wins
        ([raven(1), raven(2)], [1, 1]),  # as many: a shared win
    ],
)
def test_fr14_a_tie_the_handicap_makes_is_broken_by_fewer_captured_cards(captured_1, ranks):
    c, st = two_seats([2], captured_1=captured_1)
    assert [int(st.pl[p, PL_CAPT_N]) for p in (0, 1)] == [2, len(captured_1)]
    assert final(c, st) == ([5, 5], ranks)


def test_the_logged_breakdown_leaves_the_handicap_out():
    """E_SCORE rows stay FR-13's breakdown; the replay adds the handicap from the tables."""
    c, st = two_seats([3])
    final(c, st)
    rows = [tuple(int(x) for x in r) for r in state.log_rows(st) if r[0] == state.E_SCORE]
    assert [sum(r[2:8]) for r in rows] == [3, 5]


# ================================================================ whole games


@pytest.mark.parametrize(("players", "handicap"), [(4, [4]), (3, [0, 0, -2]), (2, [-3, 7])])
def test_a_handicap_adds_its_points_to_its_place_and_changes_nothing_else(players, handicap):
    """Every game of a chunk: the score of order k is the unhandicapped score plus entry k (0 past
    the list), the game itself is the same, and the ranks are FR-14's of the new scores."""
    seats = ["greedy", "random", "greedy", "random"][:players]
    plain = PLUGIN.play(compile_tables(config(players, seats)), 5, 0, 400)
    cfg = config(players, seats, rules={"handicap": handicap})
    got = PLUGIN.play(compile_tables(cfg), 5, 0, 400)
    points = np.asarray(handicap + [0] * (players - len(handicap)))
    assert np.array_equal(got.order, plain.order)
    assert np.array_equal(got.turns, plain.turns)
    assert np.array_equal(got.telemetry, plain.telemetry)
    assert np.array_equal(got.extra["captured"], plain.extra["captured"])
    assert np.array_equal(got.score, plain.score + points[plain.order])
    capt = got.extra["captured"]
    for i in range(got.n_games):
        for p in range(players):
            ahead = (got.score[i] > got.score[i, p]) | (
                (got.score[i] == got.score[i, p]) & (capt[i] < capt[i, p])
            )
            assert got.rank[i, p] == 1 + ahead.sum()
    assert (got.rank != plain.rank).any()  # the points matter to some games


def test_the_replay_shows_the_handicap_and_is_the_dataset_game():
    cfg = config(4, rules={"handicap": [2, 0, -1]})
    c = compile_tables(cfg)
    chunk = PLUGIN.play(c, 3, 0, 6)
    for game in range(6):
        rep = get_game("five_ravens").replay(c, 3, game)
        assert not [line for line in rep.lines if "WARNING" in line]
        assert list(rep.score) == list(chunk.score[game])
        assert list(rep.rank) == list(chunk.rank[game])
        first = int(np.flatnonzero(chunk.order[game] == 0)[0])
        third = int(np.flatnonzero(chunk.order[game] == 2)[0])
        tail = rep.lines[rep.lines.index("Final scores") :]
        lines = {p: next(x for x in tail if x.startswith(f"  Seat {p} (")) for p in range(4)}
        assert lines[first].startswith(f"  Seat {first} (greedy): {chunk.score[game, first]} = ")
        assert " +2 handicap   (rank " in lines[first]
        assert " -1 handicap   (rank " in lines[third]
        others = set(range(4)) - {first, third}
        assert not any("handicap" in lines[p] for p in others)


# ================================================================ config


def test_default_is_no_handicap():
    cfg = load_config(BASE)
    assert cfg.rules.handicap == []
    assert not compile_tables(cfg).tb.params[P_HANDICAP : P_HANDICAP + 4].any()


def test_fewer_entries_than_players_leave_the_rest_at_zero():
    c = compile_tables(config(4, rules={"handicap": [5, -2]}))
    assert c.tb.params[P_HANDICAP : P_HANDICAP + 4].tolist() == [5, -2, 0, 0]


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
    path = write(
        tmp_path,
        "three.yaml",
        f"extends: {BASE}\nplayers: 3\nrules:\n  handicap: [1, 0, 0, 2]\n",
    )
    assert error(path) == (
        f"{path}: rules.handicap: 4 entries, one per place in the turn order, are more than the 3"
        " players"
    )


def test_a_handicap_and_a_player_count_from_two_files_name_both(tmp_path):
    parent = write(tmp_path, "parent.yaml", f"extends: {BASE}\nrules:\n  handicap: [1, 0, 0, 2]\n")
    child = write(tmp_path, "child.yaml", "extends: parent.yaml\nplayers: 2\n")
    assert error(child) == (
        f"{child}: players: 2 players have 2 places in the turn order; rules.handicap gives 4"
        f" (rules.handicap set in {parent})"
    )


@pytest.mark.parametrize(("value", "problem"), [(10_001, "<= 10000"), (-10_001, ">= -10000")])
def test_a_value_past_the_bound_is_one_line_naming_the_entry(tmp_path, value, problem):
    path = write(tmp_path, "big.yaml", f"extends: {BASE}\nrules:\n  handicap: [0, {value}]\n")
    message = error(path)
    assert message.startswith(f"{path}: rules.handicap[1]: ")
    assert problem in message and str(value) in message


def test_not_a_list_of_integers(tmp_path):
    path = write(tmp_path, "real.yaml", f"extends: {BASE}\nrules:\n  handicap: [1.5]\n")
    assert error(path).startswith(f"{path}: rules.handicap[0]: ")


def test_cli_reports_a_bad_handicap_in_one_line(tmp_path):
    from typer.testing import CliRunner

    from balance.cli import app

    path = write(tmp_path, "bad.yaml", f"extends: {BASE}\nrules:\n  handicap: [0, 0, 0, 0, 1]\n")
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {path}: rules.handicap: 5 entries, one per place in the turn order, are more"
        f" than the 4 players (players set in {BASE})\n"
    )


# ================================================================ no recompile


def test_a_handicap_change_compiles_nothing():
    """Values live in the tables (STYLE.md): once the kernels ran, other handicaps add no numba
    signature to any dispatcher of the game (the pattern of tests/experiments/test_sweep.py)."""
    modules = [engine, policies, state, rng, _kit]

    def signatures() -> int:
        return sum(
            len(f.signatures)
            for mod in modules
            for f in vars(mod).values()
            if isinstance(f, CPUDispatcher)
        )

    PLUGIN.play(compile_tables(config(3)), 1, 0, 20)
    get_game("five_ravens").replay(compile_tables(config(3)), 1, 0)
    before = signatures()
    assert before > 0
    for handicap in ([1], [0, -4, 9], [10_000, -10_000]):
        c = compile_tables(config(3, rules={"handicap": handicap}))
        PLUGIN.play(c, 1, 0, 20)
        get_game("five_ravens").replay(c, 1, 0)
    assert signatures() == before


# ================================================================ balance tune


def tune_cli(*args: object):
    from typer.testing import CliRunner

    from balance.cli import app

    return CliRunner().invoke(app, ["tune", str(BASE), *(str(a) for a in args)])


def test_tune_answers_the_first_players_edge_in_points(tmp_path):
    """docs/commands/tune.md's example on a smaller budget: the handicap on the first player that
    brings its win share to a fair 1/4 lies between -1 and 0 points (the edge is worth less than
    one point), and the tuned config sets it."""
    out = tmp_path / "fair.yaml"
    result = tune_cli(
        "--set", "rules.handicap=[0]", "--param", "rules.handicap[0]=-10..10",
        "--target", "win_share[order=0]=0.25", "--games", 40_000, "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "rules.handicap[0] = -1; 95 % interval [-1, 0]: " in result.stdout
    assert load_config(out).rules.handicap == [-1]


def test_tune_into_a_missing_handicap_entry_says_to_set_the_list():
    result = tune_cli(
        "--set", "rules.handicap=[2]", "--param", "rules.handicap[1]=-5..5",
        "--target", "win_share[order=0]=0.25", "--games", 1000,
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr == (
        "error: --param rules.handicap[1]=-5..5: rules.handicap has 1 item in the config, so [1]"
        " does not exist: give the list with --set first (e.g. --set 'rules.handicap=[2, 0]')\n"
    )
