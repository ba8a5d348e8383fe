"""The decision points (issue 28): scenarios of the rulebook through advance/legal/apply, the
Python-driven game against the batch kernel, choose within legal, and resuming a copied State."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from balance.games import _kit as kit
from balance.games.five_ravens import engine
from balance.games.five_ravens import policies as pol
from balance.games.five_ravens import state as S
from balance.games.five_ravens import tables as T
from balance.games.five_ravens.tables import compile_tables

from .helpers import (
    blank,
    config,
    log,
    pile_cards,
    raven,
    relic_id,
    set_centre,
    set_relic_deck,
    set_seat,
)

OPTS = np.zeros(S.MAX_OPTIONS, np.int64)


def options(c, st) -> list[int]:
    n = engine.legal(c.tb, st, S.alloc_work(c.tb), OPTS)
    return [int(x) for x in OPTS[:n]]


def to_mission(c, st) -> int:
    """Start the Mission of a built position (G_FIRST's turn first); returns the seat to act."""
    st.board[S.G_STAGE] = S.STAGE_MISSION
    st.board[S.G_MK] = 0
    st.board[S.G_ACTED] = 0
    st.board[S.G_KIND] = -1
    return int(engine.advance(c.tb, st, S.alloc_work(c.tb)))


def step(c, st, code) -> int:
    w = S.alloc_work(c.tb)
    engine.apply(c.tb, st, w, code)
    return int(engine.advance(c.tb, st, w))


# ---------------------------------------------------------------- rulebook scenarios


def test_fr5_turn_options_each_card_its_action_and_thief_then_captured_turns(fr2):
    """FR-5, FR-7: per hand card its action (two Ravens or more) and its thief; a relic that is no
    thief gives neither; the captured 3's turn (FR-8 captured effects) last."""
    c = fr2
    st = blank(c)
    set_seat(c, st, 0, hand=[raven(3), relic_id(c, "gem"), raven(5)], captured=[raven(3)])
    set_seat(c, st, 1, hand=[raven(2)])
    assert to_mission(c, st) == 0
    assert S.pending(st) == (0, S.D_TURN)
    assert options(c, st) == [0, 1, 4, 5, S.OPT_CAPT3]


def test_engine9_capped_seat_may_only_play_a_thief(fr2):
    """ENGINE-9: after MAX_ROUND_TURNS turns only a thief is left."""
    c = fr2
    st = blank(c)
    set_seat(c, st, 0, hand=[raven(3), raven(5)], captured=[raven(3)])
    set_seat(c, st, 1, hand=[raven(2)])
    st.pl[0, S.PL_TURNS] = S.MAX_ROUND_TURNS
    assert to_mission(c, st) == 0
    assert options(c, st) == [1, 3]


def test_fr8_eight_is_a_point_per_card_and_keeps_the_last_raven(fr2):
    """FR-8 (the 8), FR-6, ENGINE-2, ENGINE-3, ENGINE-17: the 8 is in no pile while it resolves;
    a point per card, each offers the cards of hand and discard but the last Raven in hand, then stop."""
    c = fr2
    gem = relic_id(c, "gem")
    st = blank(c)
    set_seat(c, st, 0, hand=[raven(8), raven(3)], discard=[raven(6), gem])
    set_seat(c, st, 1, hand=[raven(2)])
    assert to_mission(c, st) == 0
    assert step(c, st, 0) == 0  # the 8 for its action
    assert S.pending(st) == (0, S.D_STACK)
    assert options(c, st) == [raven(6), gem, S.OPT_NONE]
    assert step(c, st, raven(6)) == 0
    assert S.pending(st) == (0, S.D_STACK)
    assert options(c, st) == [gem, S.OPT_NONE]
    assert pile_cards(st, 0, "deck") == [raven(6)]
    step(c, st, S.OPT_NONE)
    assert pile_cards(st, 0, "discard") == [gem, raven(8)]  # ENGINE-2: the 8 after


def test_fr8_five_captures_a_seven_and_the_rescue_is_the_next_point(fr2):
    """FR-8 (the 5 captures a 7: it rescues at once), FR-11: the rescue offers every captured
    card but the 7."""
    c = fr2
    st = blank(c)
    set_seat(c, st, 0, hand=[raven(5), raven(7), raven(1)], captured=[raven(9)])
    set_seat(c, st, 1, hand=[raven(2)])
    assert to_mission(c, st) == 0
    assert step(c, st, 0) == 0
    assert S.pending(st) == (0, S.D_CAPTURE)
    assert options(c, st) == [raven(1), raven(7)]  # hand after the 5 left it: 1, 7 (swapped)
    assert step(c, st, raven(7)) == 0
    assert S.pending(st) == (0, S.D_RESCUE)
    assert options(c, st) == [raven(9)]
    step(c, st, raven(9))
    assert pile_cards(st, 0, "deck") == [raven(9)]


def test_fr8_seven_buries_or_swaps_into_an_unlocked_face_down_slot(fr2):
    """FR-8 (the 7), ENGINE-5: bury first, then the unlocked face-down slots."""
    c = fr2
    R = partial(relic_id, c)
    st = blank(c)
    set_seat(c, st, 0, hand=[raven(7), raven(1)])
    set_seat(c, st, 1, hand=[raven(2)])
    set_centre(st, [(R("chest_1"), True), R("gem")])
    set_relic_deck(st, [R("hollow")])
    assert to_mission(c, st) == 0
    assert step(c, st, 0) == 0
    assert S.pending(st) == (0, S.D_SEVEN)
    assert st.board[S.G_SEEN] == R("hollow")
    assert options(c, st) == [S.OPT_NONE, 1]


def test_fr9_steal_offers_every_centre_relic_then_the_deck_bottom_with_a_captured_two(fr2):
    """FR-9, FR-10: a seat steals from any occupied slot; a captured 2 adds the relic deck's
    bottom (OPT_NONE, last)."""
    c = fr2
    R = partial(relic_id, c)
    st = blank(c)
    set_seat(c, st, 0, hand=[raven(1)], captured=[raven(2)])
    set_seat(c, st, 1, hand=[raven(3)])
    st.pl[0, S.PL_THIEF] = raven(9)
    st.pl[1, S.PL_THIEF] = raven(4)
    set_centre(st, [None, (R("gem"), True)])
    set_relic_deck(st, [R("hollow")])
    st.board[S.G_STAGE] = S.STAGE_MISSION
    st.board[S.G_MK] = 2  # the Mission's last pass is over
    st.board[S.G_ACTED] = 0
    st.board[S.G_KIND] = -1
    for p in range(2):
        st.pl[p, S.PL_STATUS] = S.ST_THIEF
    assert engine.advance(c.tb, st, S.alloc_work(c.tb)) == 0  # the 9 steals first
    assert S.pending(st) == (0, S.D_STEAL)
    assert options(c, st) == [1, S.OPT_NONE]


def test_no_point_is_asked_where_nothing_can_be_chosen(fr2):
    """ENGINE-17: a rule with nothing to choose asks nothing (ENGINE-5: the 3 with no face-down
    relic)."""
    c = fr2
    st = blank(c)
    set_seat(c, st, 0, hand=[raven(3), raven(1)])
    set_seat(c, st, 1, hand=[raven(2)])
    assert to_mission(c, st) == 0
    assert step(c, st, 0) == 1  # the 3 examined nothing: seat 1's turn
    assert S.pending(st) == (1, S.D_TURN)


# ---------------------------------------------------------------- whole games through the points


def drive(tb, seed, game, log_cap=0, check=True):
    """One game played a call at a time through start/advance/legal/choose/apply."""
    st = S.new_state(tb, log_cap)
    w = S.alloc_work(tb)
    opts = np.zeros(S.MAX_OPTIONS, np.int64)
    engine.start(tb, st, np.int64(seed), np.int64(game), w)
    points = 0
    while engine.advance(tb, st, w) >= 0:
        code = pol.choose(tb, st, w)
        if check:
            n = engine.legal(tb, st, w, opts)
            assert 1 <= n <= S.MAX_OPTIONS
            assert code in opts[:n], (S.DECISIONS[S.pending(st)[1]], code, opts[:n])
        engine.apply(tb, st, w, code)
        points += 1
    assert S.pending(st) == (-1, -1)
    return st, w, points


def one_row(compiled, st, w):
    tb = compiled.tb
    P = int(tb.params[T.P_PLAYERS])
    out = kit.alloc_outputs(1, P, int(tb.params[T.P_N_TELE]), S.BLOCK_GAMES, len(S.EXTRA_COLUMNS))
    engine.record(tb, st, w, 0, *out[:9], out.clipped[0])
    return out


SEATS = {
    "greedy": ["greedy"] * 4,
    "random": ["random"] * 4,
    "mixed": ["random", "greedy", "random", "greedy"],
}


@pytest.mark.parametrize("seats", sorted(SEATS))
def test_python_driven_games_are_the_batch_kernels_rows(seats):
    c = compile_tables(config(4, SEATS[seats]))
    chunk = engine.play(c, 5, 10, 6)
    for g in range(6):
        st, w, _ = drive(c.tb, 5, 10 + g)
        out = one_row(c, st, w)
        assert out.score[0].tolist() == chunk.score[g].tolist()
        assert out.rank[0].tolist() == chunk.rank[g].tolist()
        assert out.turns[0] == chunk.turns[g]
        assert out.order[0].tolist() == chunk.order[g].tolist()
        assert np.array_equal(out.tele[0], chunk.telemetry[g])
        assert out.extra[0, :, 0].tolist() == chunk.extra["captured"][g].tolist()


def test_scripted_seats_once_the_script_is_out_play_through_the_points(fr3):
    """The script kind (greedy once its script is used up) through the same points."""
    st, _, points = drive(fr3.tb, 2, 0)
    assert points > 50


@pytest.mark.parametrize(
    "players,seats", [(2, ["random"] * 2), (3, ["random", "greedy", "random"]), (4, ["random"] * 4)]
)
def test_choose_is_always_legal(players, seats):
    c = compile_tables(config(players, seats))
    total = 0
    for g in range(60):
        total += drive(c.tb, 9, g)[2]
    assert total > 2000


def test_resume_from_a_copied_state_plays_the_same_game(greedy4, random4):
    rng = np.random.default_rng(4)
    for c in (greedy4, random4):
        tb = c.tb
        for g in range(4):
            st = S.new_state(tb, 3000)
            w = S.alloc_work(tb)
            engine.start(tb, st, np.int64(3), np.int64(g), w)
            stop = int(rng.integers(1, 150))
            k = 0
            while engine.advance(tb, st, w) >= 0 and k < stop:
                engine.apply(tb, st, w, pol.choose(tb, st, w))
                k += 1
            twin = S.new_state(tb, 3000)
            S.copy_state(st, twin)
            assert S.pending(twin) == S.pending(st)
            for s in (st, twin):
                if S.pending(s)[0] >= 0:
                    engine.apply(tb, s, w, pol.choose(tb, s, w))
                while engine.advance(tb, s, w) >= 0:
                    engine.apply(tb, s, w, pol.choose(tb, s, w))
            assert log(st) == log(twin)
            assert st.pl[:, S.PL_SCORE].tolist() == twin.pl[:, S.PL_SCORE].tolist()
            assert st.pl[:, S.PL_RANK].tolist() == twin.pl[:, S.PL_RANK].tolist()


def test_decision_names_and_bounds():
    assert len(S.DECISIONS) == 15 and S.DECISIONS[S.D_TURN] == "turn"
    assert S.MAX_OPTIONS == 2 * T.MAX_CAP + 2
    assert S.OPT_NONE >= T.MAX_CAP and S.OPT_CAPT1 < S.MAX_OPTIONS + T.MAX_CAP


def test_option_words_and_the_lines_of_a_game_in_progress(random4):
    from balance.games.five_ravens import narrate

    c = random4
    tb = c.tb
    kinds = set()
    for g in range(3):
        st = S.new_state(tb, 3000)
        w = S.alloc_work(tb)
        engine.start(tb, st, np.int64(8), np.int64(g), w)
        k = 0
        while engine.advance(tb, st, w) >= 0:
            n = engine.legal(tb, st, w, OPTS)
            words = [narrate.option_words(c, st, int(x)) for x in OPTS[:n]]
            assert all(words) and len(set(words)) == n, words
            kinds.add(S.pending(st)[1])
            engine.apply(tb, st, w, pol.choose(tb, st, w))
            k += 1
            if g == 0 and k == 60:
                lines = narrate.event_lines(c, S.log_rows(st), 8, g)
                assert any("thief" in ln or "plays" in ln for ln in lines)
    assert {S.D_TURN, S.D_STEAL, S.D_STACK, S.D_CAPTURE} <= kinds


def test_engine6_the_greedy_two_borrows_none_when_every_action_it_could_is_off():
    """ENGINE-6, FR-8 (the 2): a switched-off action does nothing, and the greedy 2 then borrows
    none (OPT_NONE, listed last)."""
    c = compile_tables(config(2, rules={"ravens": {"five": {"action": False}}}))
    st = blank(c)
    set_seat(c, st, 0, hand=[raven(2), raven(3)], captured=[raven(5)])
    set_seat(c, st, 1, hand=[raven(4)])
    st.board[S.G_STAGE] = S.STAGE_MISSION
    st.board[S.G_MK] = 0
    st.board[S.G_ACTED] = 0
    st.board[S.G_KIND] = -1
    w = S.alloc_work(c.tb)
    assert engine.advance(c.tb, st, w) == 0
    engine.apply(c.tb, st, w, 0)  # the 2 for its action
    assert engine.advance(c.tb, st, w) == 0
    assert S.pending(st) == (0, S.D_BORROW)
    assert options(c, st) == [raven(5), S.OPT_NONE]
    assert pol.choose(c.tb, st, w) == S.OPT_NONE
