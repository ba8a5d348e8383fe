"""Scripted Five Ravens scenarios with known outcomes, one or more per ruling FR-1..FR-12 and FR-15
(scoring, FR-10/FR-11 doubling and FR-13/FR-14 are in test_rules_scoring.py, the handicap in
test_rules_handicap.py; the numbered engine readings ENGINE-n of docs/rules/five_ravens.md are
cited where a test checks one).

Each test builds a position card by card (helpers.blank / set_seat / set_centre / set_relic_deck),
calls one rule of the engine and asserts the piles, the centre, the relic deck and the event log.
Scripted seats read their choices from the script in the order the policies ask for them
(policies.py, ``choose_*``).
"""

from __future__ import annotations

from collections import Counter
from functools import partial

import numpy as np
import pytest

from balance.games.five_ravens import engine
from balance.games.five_ravens import policies as pol
from balance.games.five_ravens.state import (
    E_ACTION,
    E_CAPT3,
    E_CAPTURE5,
    E_CAPTURED,
    E_DEAL,
    E_DISCARD,
    E_DONE,
    E_DRAW,
    E_EPILOGUE,
    E_EXAMINE,
    E_FLIP,
    E_LOCK,
    E_NOTHIEF,
    E_REMOVED,
    E_REPLACE,
    E_RESCUE,
    E_ROUND,
    E_SCORE,
    E_SET_ASIDE,
    E_SEVEN,
    E_SHUFFLE,
    E_SHUFFLE_CENTRE,
    E_STEAL,
    E_THIEF,
    E_TOP,
    E_UNCLAIMED,
    G_FIRST,
    G_LAST,
    G_ROUND,
    G_SCRIPT,
    M_ACTION,
    M_CAPT1,
    M_CAPT3,
    M_THIEF,
    MAX_ROUND_TURNS,
    PL_CKNOWN,
    PL_DECK_KNOWN,
    PL_DOUBLED,
    PL_NO_THIEF,
    PL_RD_BOT,
    PL_RD_TOP,
    PL_STATUS,
    PL_THIEF,
    PL_TURNS,
    PL_USED1,
    PL_USED3,
    ST_ACTIVE,
    ST_DONE,
    ST_THIEF,
    new_state,
    alloc_work,
)
from balance.games.five_ravens.tables import compile_tables

from .helpers import (
    all_relics,
    blank,
    breakdown,
    centre,
    centre_cards,
    config,
    events,
    legal,
    log,
    moves_buffer,
    order_of,
    pile_cards,
    play_one,
    raven,
    relic_deck,
    relic_id,
    relic_name,
    scripted,
    set_centre,
    set_relic_deck,
    set_seat,
    theft,
)

RAVENS = list(range(9))


def turn(c, st, p, move, card=-1):
    engine.turn(c.tb, st, alloc_work(c.tb), p, move, card)


def act(c, st, p, rank):
    """Seat ``p`` plays its Raven of ``rank`` from hand for its action."""
    engine.turn(c.tb, st, alloc_work(c.tb), p, M_ACTION, raven(rank))


def script_used(st) -> int:
    return int(st.board[G_SCRIPT])


def thieves(st, **by_seat):
    """Reveal thieves as the Mission would leave them: ``thieves(st, s0=raven(3), s2=-1)``."""
    for key, card in by_seat.items():
        p = int(key[1:])
        st.pl[p, PL_THIEF] = card
        st.pl[p, PL_STATUS] = ST_THIEF if card >= 0 else ST_DONE


# ================================================================ FR-1 players and rounds


def test_fr1_every_seat_starts_with_its_nine_ravens_shuffled(fr4):
    orders = set()
    for game in range(8):
        st = new_state(fr4.tb, 100)
        engine.setup(fr4.tb, st, 3, game)
        for p in range(4):
            deck = pile_cards(st, p, "deck")
            assert sorted(deck) == RAVENS
            assert pile_cards(st, p, "hand") == pile_cards(st, p, "discard") == []
            assert pile_cards(st, p, "captured") == []
            orders.add(tuple(deck))
    assert len(orders) > 1  # "Shuffle your Ravens"


@pytest.mark.parametrize("rounds", [1, 5, 6])
def test_fr1_a_game_has_one_round_per_clock(rounds):
    c = compile_tables(config(3, ["random", "greedy", "random"], {"rounds": rounds}))
    st, _, _ = play_one(c, 5, 0)
    assert [r for r, _ in events(st, E_ROUND)] == list(range(rounds))
    assert [r for r, _ in events(st, E_EPILOGUE)] == list(range(1, rounds + 1))
    assert st.board[G_ROUND] == rounds
    assert [e[0] for e in events(st, E_SCORE)] == [0, 1, 2]


# ================================================================ FR-2 relic deck


def test_fr2_the_relic_deck_holds_the_22_relics(fr4):
    st = new_state(fr4.tb, 100)
    engine.setup(fr4.tb, st, 1, 0)
    deck = relic_deck(st)
    assert sorted(deck) == all_relics(fr4)
    assert Counter(relic_name(fr4, x) for x in deck) == {
        "chest_1": 1, "chest_2": 1, "chest_3": 1, "chest_4": 1, "chest_5": 1,
        "gem": 4, "hollow": 4, "skull": 3, "idol": 3, "mask": 3,
    }  # fmt: skip


# ================================================================ FR-3 two players


def test_fr3_two_players_remove_eight_relics_unseen(fr2):
    st = new_state(fr2.tb, 100)
    engine.setup(fr2.tb, st, 9, 4)
    removed = [x for (x,) in events(st, E_REMOVED)]
    assert len(removed) == len(set(removed)) == 8
    assert len(relic_deck(st)) == 14
    assert sorted(removed + relic_deck(st)) == all_relics(fr2)


@pytest.mark.parametrize("players", [3, 4])
def test_fr3_three_and_four_players_remove_none(players):
    c = scripted(config(players))
    st = new_state(c.tb, 100)
    engine.setup(c.tb, st, 9, 4)
    assert events(st, E_REMOVED) == []
    assert len(relic_deck(st)) == 22


def test_fr3_removed_relics_never_come_back():
    c = compile_tables(config(2, ["random", "random"]))
    for game in range(20):
        st, _, _ = play_one(c, 2, game)
        removed = {x for (x,) in events(st, E_REMOVED)}
        assert len(removed) == 8
        seen = {x for _, x, _, _ in events(st, E_DEAL)}
        seen |= {e[1] for e in events(st, E_SEVEN)} | {e[3] for e in events(st, E_REPLACE)}
        seen |= {e[2] for e in events(st, E_STEAL)}
        assert not removed & seen
        everywhere = set(relic_deck(st))
        for p in range(2):
            for pile in ("deck", "hand", "discard", "captured"):
                everywhere |= set(pile_cards(st, p, pile))
        assert not removed & everywhere


def test_fr3_removed_count_is_config():
    c = scripted(config(3, rules={"removed_relics": {2: 8, 3: 2}}))
    st = new_state(c.tb, 100)
    engine.setup(c.tb, st, 9, 4)
    assert len(events(st, E_REMOVED)) == 2
    assert len(relic_deck(st)) == 20


# ================================================================ FR-4 prelude


def test_fr4_prelude_deals_one_relic_per_player_the_last_face_down(fr3):
    c = fr3
    R = partial(relic_id, c)
    st = blank(c, first=1)
    set_relic_deck(st, [R("hollow"), R("gem"), R("chest_5"), R("chest_1")])  # chest_1 on top
    for p in range(3):
        set_seat(c, st, p, deck=RAVENS)  # the 9 on top
    engine.prelude(c.tb, st)
    assert centre(st) == [(R("chest_1"), 1, 0), (R("chest_5"), 1, 0), (R("gem"), 0, 0)]
    assert relic_deck(st) == [R("hollow")]
    assert events(st, E_ROUND) == [(0, 1)]
    # FR-4: each player draws 4, from the first player clockwise
    draws = events(st, E_DRAW)
    assert [p for p, _ in draws] == [1] * 4 + [2] * 4 + [0] * 4
    for p in range(3):
        assert pile_cards(st, p, "hand") == [raven(9), raven(8), raven(7), raven(6)]
        assert pile_cards(st, p, "deck") == RAVENS[:5]
        assert st.pl[p, PL_STATUS] == ST_ACTIVE
        assert st.pl[p, PL_THIEF] == -1
    # FR-15: face-up relics are public, the face-down one is unknown to everyone
    assert st.pl[:, PL_CKNOWN].tolist() == [1, 1, 1]
    assert st.pl[:, PL_CKNOWN + 2].tolist() == [0, 0, 0]


def test_fr4_a_cursed_relic_dealt_face_up_is_locked_face_down_is_not(fr3):
    c = fr3
    R = partial(relic_id, c)
    st = blank(c)
    set_relic_deck(st, [R("mask"), R("skull"), R("gem")])  # gem on top, mask dealt last
    engine.prelude(c.tb, st)
    assert centre(st) == [(R("gem"), 1, 0), (R("skull"), 1, 1), (R("mask"), 0, 0)]
    assert events(st, E_DEAL) == [(0, R("gem"), 1, 0), (1, R("skull"), 1, 1), (2, R("mask"), 0, 0)]


def test_fr4_dealing_stops_when_the_relic_deck_runs_out(fr4):
    """ENGINE-1: dealing stops with the relic deck; the last relic dealt is the face-down one."""
    c = fr4
    R = partial(relic_id, c)
    st = blank(c)
    set_relic_deck(st, [R("gem"), R("hollow")])
    engine.prelude(c.tb, st)
    assert centre(st) == [(R("hollow"), 1, 0), (R("gem"), 0, 0), (-1, 0, 0), (-1, 0, 0)]


def test_fr4_an_empty_deck_is_rebuilt_from_the_shuffled_discard(fr2):
    c = fr2
    R = partial(relic_id, c)
    st = blank(c)
    set_relic_deck(st, [R("gem", 0), R("gem", 1)])
    set_seat(c, st, 0, deck=[raven(1), raven(2)], discard=[raven(3), raven(4), raven(5)])
    set_seat(c, st, 1, deck=[R("hollow")])  # deck and then discard run out: draws do nothing
    engine.prelude(c.tb, st)
    hand = pile_cards(st, 0, "hand")
    assert hand[:2] == [raven(2), raven(1)]
    assert set(hand[2:]) <= {raven(3), raven(4), raven(5)} and len(hand) == 4
    assert len(pile_cards(st, 0, "deck")) == 1 and pile_cards(st, 0, "discard") == []
    assert events(st, E_SHUFFLE) == [(0, 3)]
    assert pile_cards(st, 1, "hand") == [R("hollow")]
    assert pile_cards(st, 1, "deck") == pile_cards(st, 1, "discard") == []


def test_fr4_hand_size_is_config():
    c = scripted(config(2, rules={"hand_size": 6}))
    st = blank(c)
    set_relic_deck(st, all_relics(c)[:4])
    for p in range(2):
        set_seat(c, st, p, deck=RAVENS)
    engine.prelude(c.tb, st)
    assert [len(pile_cards(st, p, "hand")) for p in range(2)] == [6, 6]


# ================================================================ FR-5 mission turns


def test_fr5_turns_go_clockwise_from_the_first_player_and_skip_thieves(fr3):
    c = fr3
    script = [
        M_ACTION, raven(3),  # seat 1 (first): 3's action, nothing face down to examine
        M_THIEF, raven(6),  # seat 2: thief
        M_ACTION, raven(1),  # seat 0: 1's action, nothing face up to replace
        M_THIEF, raven(4),  # seat 1: thief (seat 2 is skipped from now on)
        M_THIEF, raven(2),  # seat 0: thief
    ]  # fmt: skip
    st = blank(c, script=script, first=1)
    set_seat(c, st, 0, hand=[raven(1), raven(2)])
    set_seat(c, st, 1, hand=[raven(3), raven(4)])
    set_seat(c, st, 2, hand=[raven(5), raven(6)])
    engine.mission(c.tb, st, alloc_work(c.tb))
    turns = [e for e in log(st) if e[0] in (E_ACTION, E_THIEF)]
    assert turns == [
        (E_ACTION, 1, raven(3), 0),
        (E_THIEF, 2, raven(6)),
        (E_ACTION, 0, raven(1), 0),
        (E_THIEF, 1, raven(4)),
        (E_THIEF, 0, raven(2)),
    ]
    assert script_used(st) == len(script)
    assert st.pl[:, PL_THIEF].tolist() == [raven(2), raven(4), raven(6)]
    assert st.pl[:, PL_STATUS].tolist() == [ST_THIEF] * 3
    assert st.pl[:, PL_TURNS].tolist() == [2, 2, 1]
    # played Ravens go to the discard after resolving; thieves leave the hand
    assert pile_cards(st, 0, "discard") == [raven(1)]
    assert pile_cards(st, 1, "hand") == []
    assert pile_cards(st, 2, "hand") == [raven(5)] and pile_cards(st, 2, "discard") == []


def test_fr5_a_player_with_no_legal_turn_is_done(fr2):
    c = fr2
    R = partial(relic_id, c)
    st = blank(c, script=[M_THIEF, raven(3)])
    set_seat(c, st, 0, hand=[R("gem"), R("hollow")])
    set_seat(c, st, 1, hand=[raven(3)])
    assert legal(c, st, 0) == set()
    engine.mission(c.tb, st, alloc_work(c.tb))
    assert [e for e in log(st) if e[0] in (E_DONE, E_THIEF)] == [
        (E_DONE, 0),
        (E_THIEF, 1, raven(3)),
    ]
    assert st.pl[0, PL_STATUS] == ST_DONE


def test_fr5_no_passing_a_raven_in_hand_always_gives_a_turn(fr2):
    c = fr2
    R = partial(relic_id, c)
    for rank in range(1, 10):
        st = blank(c)
        set_seat(c, st, 0, hand=[R("gem"), raven(rank), R("skull")])
        assert legal(c, st, 0) == {(M_THIEF, raven(rank))}


def test_fr5_turn_cap_leaves_only_the_thief(fr2):
    """ENGINE-9: after MAX_ROUND_TURNS mission turns only a thief is legal."""
    c = fr2
    st = blank(c)
    set_seat(c, st, 0, hand=[raven(4), raven(9)], captured=[raven(3)])
    assert (M_ACTION, raven(9)) in legal(c, st, 0) and (M_CAPT3, -1) in legal(c, st, 0)
    st.pl[0, PL_TURNS] = MAX_ROUND_TURNS
    assert legal(c, st, 0) == {(M_THIEF, raven(4)), (M_THIEF, raven(9))}


# ================================================================ FR-6 last Raven


def test_fr6_the_last_raven_may_only_be_played_as_thief(fr2):
    c = fr2
    R = partial(relic_id, c)
    st = blank(c)
    set_seat(c, st, 0, hand=[raven(5), R("gem"), R("hollow")])
    assert legal(c, st, 0) == {(M_THIEF, raven(5))}
    set_seat(c, st, 0, hand=[raven(5), R("gem"), raven(7)])
    assert legal(c, st, 0) == {
        (M_ACTION, raven(5)),
        (M_ACTION, raven(7)),
        (M_THIEF, raven(5)),
        (M_THIEF, raven(7)),
    }


@pytest.mark.parametrize("kind", ["random", "greedy"])
def test_fr6_the_nine_never_discards_the_last_raven(kind):
    c = compile_tables(config(2, [kind, kind]))
    R = partial(relic_id, c)
    discarded = set()
    for seed in range(40):
        st = blank(c, seed=seed)
        set_seat(c, st, 0, hand=[raven(9), raven(3)], deck=[R("gem"), R("hollow")])
        act(c, st, 0, 9)
        hand = pile_cards(st, 0, "hand")
        assert raven(3) in hand and len(hand) == 2
        ((_, x),) = events(st, E_DISCARD)
        discarded.add(x)
        assert pile_cards(st, 0, "discard") == [x, raven(9)]
    assert discarded <= {R("gem"), R("hollow")}


def test_fr6_the_nine_discards_nothing_when_only_the_last_raven_is_left(fr2):
    c = fr2
    st = blank(c)
    set_seat(c, st, 0, hand=[raven(9), raven(3)])  # nothing to draw
    act(c, st, 0, 9)
    assert pile_cards(st, 0, "hand") == [raven(3)]
    assert events(st, E_DISCARD) == []
    assert script_used(st) == 0


@pytest.mark.parametrize("kind", ["random", "greedy"])
def test_fr6_the_four_never_sets_aside_the_last_raven(kind):
    c = compile_tables(config(2, [kind, kind]))
    R = partial(relic_id, c)
    for seed in range(40):
        st = blank(c, seed=seed)
        set_seat(
            c, st, 0, hand=[raven(4), raven(3), R("gem"), R("skull")], deck=[raven(8), raven(9)]
        )
        act(c, st, 0, 4)
        set_aside = [x for _, x in events(st, E_DISCARD)]
        assert raven(3) not in set_aside
        assert set(set_aside) <= {R("gem"), R("skull")}


@pytest.mark.parametrize("kind", ["random", "greedy"])
def test_fr6_the_five_and_eight_leave_the_last_raven_in_hand(kind):
    """ENGINE-3: FR-6 also protects the last Raven from the 5's capture and the 8's stack."""
    c = compile_tables(config(2, [kind, kind]))
    R = partial(relic_id, c)
    for seed in range(30):
        for rank in (5, 8):
            st = blank(c, seed=seed)
            set_seat(c, st, 0, hand=[raven(rank), raven(2), R("hollow")], discard=[raven(7)])
            act(c, st, 0, rank)
            assert raven(2) in pile_cards(st, 0, "hand")


# ================================================================ FR-7 thief


def test_fr7_no_raven_after_the_prelude_means_no_thief_and_stealing_last():
    """A seat with no Raven after the Prelude has no thief and steals last; a relic thief has rank
    0 (ENGINE-4)."""
    c = scripted(config(3, rules={"thief_relics": ["hollow"]}))
    R = partial(relic_id, c)
    st = blank(c, first=0)
    set_relic_deck(st, [R("gem", 0), R("gem", 1), R("gem", 2)])
    set_seat(c, st, 0, deck=[R("chest_1"), R("hollow", 0), R("chest_2"), R("chest_3")])
    set_seat(c, st, 1, deck=[raven(1), raven(2), raven(3), raven(4)])
    set_seat(c, st, 2, deck=[R("hollow", 1), raven(5), raven(6), raven(7)])
    engine.prelude(c.tb, st)
    assert events(st, E_NOTHIEF) == [(0,)]
    assert st.pl[:, PL_NO_THIEF].tolist() == [1, 0, 0]
    # a thief relic in hand does not help: FR-7 forbids any thief this round
    assert legal(c, st, 0) == set()
    assert (M_THIEF, R("hollow", 1)) in legal(c, st, 2)
    thieves(st, s1=raven(1), s2=R("hollow", 1))
    st.pl[0, PL_STATUS] = ST_DONE
    # FR-9: Raven thieves by rank, then relic thieves (ENGINE-4: rank 0), then thief-less
    assert order_of(c, st) == [1, 2, 0]


def test_fr7_thiefless_seats_steal_after_every_thief_clockwise_from_first(fr4):
    c = fr4
    st = blank(c, first=2)
    thieves(st, s0=-1, s1=raven(1), s2=-1, s3=raven(9))
    assert order_of(c, st) == [3, 1, 2, 0]


def test_fr7_a_thiefless_seat_steals_to_its_discard(fr2):
    c = fr2
    R = partial(relic_id, c)
    st = blank(c, script=[1, 0], first=0)
    set_centre(st, [(R("chest_1"), 1), (R("chest_2"), 1)])
    thieves(st, s0=-1, s1=raven(5))
    theft(c, st)
    assert events(st, E_STEAL) == [(1, raven(5), R("chest_2"), 1, 1), (0, -1, R("chest_1"), 0, 0)]
    assert pile_cards(st, 0, "discard") == [R("chest_1")]
    assert pile_cards(st, 0, "captured") == []
    assert events(st, E_CAPTURED) == [(1, raven(5))]


def test_fr7_a_relic_thief_is_captured():
    c = scripted(config(2, rules={"thief_relics": ["hollow"]}))
    R = partial(relic_id, c)
    st = blank(c, script=[0])
    set_seat(c, st, 0, hand=[raven(2), R("hollow")])
    set_centre(st, [(R("gem"), 1)])
    thieves(st, s1=-1)
    turn(c, st, 0, M_THIEF, R("hollow"))
    theft(c, st)
    assert pile_cards(st, 0, "captured") == [R("hollow")]
    assert pile_cards(st, 0, "discard") == [R("gem")]
    assert breakdown(c, st, 0)["hollows"] == 3


# ================================================================ FR-8 actions


def test_fr8_nine_draws_two_then_discards_one(fr2):
    """The 9 is in no pile while it resolves, so it cannot discard itself (ENGINE-2)."""
    c = fr2
    R = partial(relic_id, c)
    st = blank(c, script=[R("hollow")])
    set_seat(c, st, 0, hand=[raven(9), raven(3)], deck=[raven(1), R("hollow"), raven(7)])
    act(c, st, 0, 9)
    assert [x for _, x in events(st, E_DRAW)] == [raven(7), R("hollow")]
    assert sorted(pile_cards(st, 0, "hand")) == [raven(3), raven(7)]
    # ENGINE-2: the 9 was in no pile while it resolved (it could not discard itself)
    assert pile_cards(st, 0, "discard") == [R("hollow"), raven(9)]  # the 9 after it resolved
    assert pile_cards(st, 0, "deck") == [raven(1)]


def test_fr8_eight_puts_cards_on_top_of_the_deck_in_order(fr2):
    c = fr2
    R = partial(relic_id, c)
    script = [3, raven(6), R("gem"), raven(2)]  # first placed ... new top
    st = blank(c, script=script)
    set_seat(
        c, st, 0,
        hand=[raven(8), raven(2), raven(3), R("gem")],
        discard=[raven(5), raven(6)],
        deck=[raven(1)],
    )  # fmt: skip
    act(c, st, 0, 8)
    assert pile_cards(st, 0, "deck") == [raven(1), raven(6), R("gem"), raven(2)]
    assert sorted(pile_cards(st, 0, "hand")) == [raven(3)]
    assert pile_cards(st, 0, "discard") == [raven(5), raven(8)]  # the 8 is not stacked (ENGINE-2)
    assert [x for _, x in events(st, E_TOP)] == [raven(6), R("gem"), raven(2)]
    assert st.pl[0, PL_DECK_KNOWN] == 3  # FR-15: the owner knows what they stacked
    assert script_used(st) == len(script)


def test_fr8_seven_buries_the_top_relic(fr3):
    """Only the 7's owner knows the relic it buried (FR-15, ENGINE-13)."""
    c = fr3
    R = partial(relic_id, c)
    st = blank(c, script=[-1])
    set_seat(c, st, 0, hand=[raven(7), raven(3)])
    set_relic_deck(st, [R("hollow"), R("gem"), R("chest_5")])
    set_centre(st, [(R("chest_1"), 1), (R("chest_2"), 1), R("skull")])
    act(c, st, 0, 7)
    assert relic_deck(st) == [R("chest_5"), R("hollow"), R("gem")]
    assert centre_cards(st) == [R("chest_1"), R("chest_2"), R("skull")]
    assert events(st, E_SEVEN) == [(0, R("chest_5"), -1, -1)]
    # FR-15, ENGINE-13: only the 7's owner knows what is now at the bottom
    assert st.pl[:, PL_RD_BOT].tolist() == [R("chest_5"), -1, -1]
    assert pile_cards(st, 0, "discard") == [raven(7)]


def test_fr8_seven_swaps_the_top_relic_with_a_face_down_one(fr3):
    c = fr3
    R = partial(relic_id, c)
    st = blank(c, script=[2])
    set_seat(c, st, 0, hand=[raven(7), raven(3)])
    set_relic_deck(st, [R("hollow"), R("gem"), R("chest_5")])
    set_centre(st, [(R("chest_1"), 1), (R("chest_2"), 1), R("skull")])
    act(c, st, 0, 7)
    assert centre(st)[2] == (R("chest_5"), 0, 0)
    assert relic_deck(st) == [R("skull"), R("hollow"), R("gem")]
    assert events(st, E_SEVEN) == [(0, R("chest_5"), 2, R("skull"))]
    # FR-15, ENGINE-13: the 7's owner put chest_5 there; the swapped relic goes under unexamined
    assert st.pl[:, PL_CKNOWN + 2].tolist() == [1, 0, 0]
    assert st.pl[:, PL_RD_BOT].tolist() == [-1, -1, -1]


def test_fr8_seven_with_an_empty_relic_deck_does_nothing(fr3):
    c = fr3
    R = partial(relic_id, c)
    st = blank(c)
    set_seat(c, st, 0, hand=[raven(7), raven(3)])
    set_centre(st, [R("skull")])
    act(c, st, 0, 7)
    assert events(st, E_SEVEN) == [] and centre_cards(st)[0] == R("skull")
    assert pile_cards(st, 0, "discard") == [raven(7)]


def test_fr8_fr4_six_flips_a_face_down_relic_up_and_a_cursed_one_locks(fr3):
    c = fr3
    R = partial(relic_id, c)
    st = blank(c, script=[2])
    set_seat(c, st, 0, hand=[raven(6), raven(3)])
    set_centre(st, [(R("chest_1"), 1), (R("chest_2"), 1), R("skull")])
    act(c, st, 0, 6)
    assert centre(st)[2] == (R("skull"), 1, 1)
    assert events(st, E_FLIP) == [(0, 2, R("skull"), 1)]
    assert st.pl[:, PL_CKNOWN + 2].tolist() == [1, 1, 1]
    assert script_used(st) == 1  # nothing left face down: no shuffle question


def test_fr8_six_flips_a_face_up_relic_down(fr3):
    c = fr3
    R = partial(relic_id, c)
    st = blank(c, script=[0, 0])  # flip slot 0, do not shuffle
    set_seat(c, st, 0, hand=[raven(6), raven(3)])
    set_centre(st, [(R("chest_1"), 1), (R("chest_2"), 1), R("gem")])
    act(c, st, 0, 6)
    assert centre(st) == [(R("chest_1"), 0, 0), (R("chest_2"), 1, 0), (R("gem"), 0, 0)]
    assert st.pl[:, PL_CKNOWN].tolist() == [1, 1, 1]  # everyone saw it face up (ENGINE-13)
    assert events(st, E_SHUFFLE_CENTRE) == []
    assert script_used(st) == 2


def test_fr8_six_may_shuffle_the_face_down_relics(fr4):
    c = fr4
    R = partial(relic_id, c)
    seen = set()
    for seed in range(12):
        st = blank(c, script=[0, 1], seed=seed)  # flip slot 0 down, then shuffle
        set_seat(c, st, 0, hand=[raven(6), raven(3)])
        set_centre(st, [(R("chest_1"), 1), (R("chest_2"), 1), R("gem"), (R("hollow"), 0, 1)])
        act(c, st, 0, 6)
        cards = centre_cards(st)
        assert cards[1] == R("chest_2")  # face up: not shuffled
        assert cards[3] == R("hollow")  # locked: not shuffled
        assert {cards[0], cards[2]} == {R("chest_1"), R("gem")}
        seen.add(cards[0])
        assert events(st, E_SHUFFLE_CENTRE) == [(0, 2, *cards)]
        for slot in (0, 2):  # FR-15: nobody knows which is which any more
            assert st.pl[:, PL_CKNOWN + slot].tolist() == [0, 0, 0, 0]
    assert seen == {R("chest_1"), R("gem")}


def test_fr8_five_captures_from_hand_or_discard(fr2):
    c = fr2
    R = partial(relic_id, c)
    for card, source in ((R("hollow"), "hand"), (R("gem"), "discard")):
        st = blank(c, script=[card])
        set_seat(c, st, 0, hand=[raven(5), raven(3), R("hollow")], discard=[R("gem")])
        act(c, st, 0, 5)
        assert pile_cards(st, 0, "captured") == [card]
        assert card not in pile_cards(st, 0, source)
        assert events(st, E_CAPTURE5) == [(0, card)]
        assert pile_cards(st, 0, "discard")[-1] == raven(5)


def test_fr8_fr11_five_capturing_a_seven_rescues_at_once(fr2):
    c = fr2
    st = blank(c, script=[raven(7), raven(9)])
    set_seat(c, st, 0, hand=[raven(5), raven(7), raven(3)], captured=[raven(9)])
    assert breakdown(c, st, 0)["penalty"] == -1
    act(c, st, 0, 5)
    assert pile_cards(st, 0, "captured") == [raven(7)]
    assert pile_cards(st, 0, "deck") == [raven(9)]
    assert [e[0] for e in log(st)] == [E_ACTION, E_CAPTURE5, E_RESCUE]
    assert events(st, E_RESCUE) == [(0, raven(9))]
    assert breakdown(c, st, 0)["penalty"] == 0


def test_fr8_five_capturing_a_seven_with_nothing_else_captured_rescues_nothing(fr2):
    c = fr2
    st = blank(c, script=[raven(7)])
    set_seat(c, st, 0, hand=[raven(5), raven(7), raven(3)])
    act(c, st, 0, 5)
    assert pile_cards(st, 0, "captured") == [raven(7)]
    assert events(st, E_RESCUE) == []
    assert script_used(st) == 1


def test_fr8_five_capturing_a_six_doubles_nothing(fr2):
    c = fr2
    R = partial(relic_id, c)
    st = blank(c, script=[raven(6)])
    set_seat(c, st, 0, hand=[raven(5), raven(6), raven(3)], captured=[R("chest_3")])
    act(c, st, 0, 5)
    assert sorted(pile_cards(st, 0, "captured")) == [raven(6), R("chest_3")]
    assert st.pl[0, PL_DOUBLED] == -1
    assert breakdown(c, st, 0)["chests"] == 3


def test_fr8_four_cycles_other_cards(fr2):
    c = fr2
    R = partial(relic_id, c)
    st = blank(c, script=[2, R("gem"), R("hollow")])
    set_seat(
        c, st, 0,
        hand=[raven(4), raven(3), R("gem"), R("hollow")],
        deck=[raven(1), raven(2), raven(8)],
    )  # fmt: skip
    act(c, st, 0, 4)
    assert events(st, E_SET_ASIDE) == [(0, 2)]
    assert sorted(pile_cards(st, 0, "hand")) == [raven(2), raven(3), raven(8)]
    assert pile_cards(st, 0, "discard") == [R("gem"), R("hollow"), raven(4)]
    assert pile_cards(st, 0, "deck") == [raven(1)]


def test_fr8_four_set_aside_cards_are_not_reshuffled_into_the_draw(fr2):
    """The 4's set-aside cards are in no pile while it draws: never reshuffled in (ENGINE-12)."""
    c = fr2
    R = partial(relic_id, c)
    st = blank(c, script=[2, R("gem"), R("hollow")])
    set_seat(c, st, 0, hand=[raven(4), raven(3), R("gem"), R("hollow")], discard=[raven(9)])
    act(c, st, 0, 4)
    # ENGINE-12: the deck is empty: the discard (the 9 only) is shuffled in; the set-aside cards
    # are in no pile, so they are not
    assert sorted(pile_cards(st, 0, "hand")) == [raven(3), raven(9)]
    assert pile_cards(st, 0, "discard") == [R("gem"), R("hollow"), raven(4)]


def test_fr8_fr15_three_examines_a_face_down_relic(fr3):
    c = fr3
    R = partial(relic_id, c)
    st = blank(c, script=[1])
    set_seat(c, st, 2, hand=[raven(3), raven(4)])
    set_centre(st, [(R("chest_1"), 1), R("gem"), R("skull")])
    act(c, st, 2, 3)
    assert events(st, E_EXAMINE) == [(2, 1, R("gem"))]
    assert st.pl[:, PL_CKNOWN + 1].tolist() == [0, 0, 1]
    assert st.pl[:, PL_CKNOWN + 2].tolist() == [0, 0, 0]


def test_fr8_two_uses_a_captured_ravens_action(fr3):
    c = fr3
    R = partial(relic_id, c)
    st = blank(c, script=[raven(7), -1])  # borrow the 7, bury
    set_seat(c, st, 0, hand=[raven(2), raven(3)], captured=[R("hollow"), raven(7)])
    set_relic_deck(st, [R("gem"), R("chest_4")])
    act(c, st, 0, 2)
    assert events(st, E_ACTION) == [(0, raven(2), 0), (0, raven(7), 1)]
    assert events(st, E_SEVEN) == [(0, R("chest_4"), -1, -1)]
    assert sorted(pile_cards(st, 0, "captured")) == sorted([R("hollow"), raven(7)])
    assert pile_cards(st, 0, "discard") == [raven(2)]


def test_fr8_two_with_no_captured_raven_does_nothing(fr3):
    c = fr3
    R = partial(relic_id, c)
    st = blank(c)
    set_seat(c, st, 0, hand=[raven(2), raven(3)], captured=[R("hollow")])
    act(c, st, 0, 2)
    assert events(st, E_ACTION) == [(0, raven(2), 0)]
    assert pile_cards(st, 0, "discard") == [raven(2)]


def test_fr8_fr4_one_replaces_a_face_up_relic(fr3):
    c = fr3
    R = partial(relic_id, c)
    for top, locked in ((R("chest_4"), 0), (R("idol"), 1)):
        st = blank(c, script=[0])
        set_seat(c, st, 1, hand=[raven(1), raven(3)])
        set_relic_deck(st, [R("gem"), top])
        set_centre(st, [(R("chest_1"), 1), (R("chest_2"), 1), R("hollow")])
        act(c, st, 1, 1)
        assert centre(st)[0] == (top, 1, locked)  # FR-4: a cursed relic put in by 1 locks
        assert relic_deck(st) == [R("chest_1"), R("gem")]
        assert events(st, E_REPLACE) == [(1, 0, R("chest_1"), top, locked)]
        assert st.pl[:, PL_CKNOWN].tolist() == [1, 1, 1]


def test_fr8_one_with_an_empty_relic_deck_brings_the_same_relic_back(fr3):
    """ENGINE-11: the 1 puts the old relic under first, then takes the top: with an empty relic
    deck it is the same relic, back face up (and public)."""
    c = fr3
    R = partial(relic_id, c)
    st = blank(c, script=[0])
    set_seat(c, st, 1, hand=[raven(1), raven(3)])
    set_relic_deck(st, [])
    set_centre(st, [(R("chest_1"), 1), (R("chest_2"), 1), R("hollow")])
    act(c, st, 1, 1)
    assert centre(st)[0] == (R("chest_1"), 1, 0)
    assert relic_deck(st) == []
    assert events(st, E_REPLACE) == [(1, 0, R("chest_1"), R("chest_1"), 0)]
    assert st.pl[:, PL_CKNOWN].tolist() == [1, 1, 1]


def test_fr8_captured_three_looks_at_an_end_once_per_round(fr3):
    c = fr3
    R = partial(relic_id, c)
    st = blank(c, script=[1, 0])  # bottom, then top next round
    set_seat(c, st, 0, hand=[raven(5), raven(6)], captured=[raven(3)], deck=RAVENS[:3])
    set_relic_deck(st, [R("gem"), R("hollow"), R("chest_3"), R("skull"), R("idol"), R("mask")])
    assert (M_CAPT3, -1) in legal(c, st, 0)
    turn(c, st, 0, M_CAPT3)
    assert events(st, E_CAPT3) == [(0, 1, R("gem"))]
    assert st.pl[:, PL_RD_BOT].tolist() == [R("gem"), -1, -1]
    assert st.pl[0, PL_USED3] == 1
    assert (M_CAPT3, -1) not in legal(c, st, 0)
    engine.epilogue(c.tb, st)
    engine.prelude(c.tb, st)  # a new round
    assert (M_CAPT3, -1) in legal(c, st, 0)
    turn(c, st, 0, M_CAPT3)
    assert events(st, E_CAPT3)[-1] == (0, 0, R("chest_3"))  # top after dealing three
    assert st.pl[0, PL_RD_TOP] == R("chest_3")


def test_fr8_captured_one_locks_a_relic_once_per_round(fr3):
    c = fr3
    R = partial(relic_id, c)
    st = blank(c, script=[1])
    set_seat(c, st, 0, hand=[raven(5), raven(6)], captured=[raven(1)])
    set_relic_deck(st, [R("gem", 1), R("gem", 2), R("gem", 3)])
    set_centre(st, [(R("chest_2"), 1), (R("chest_1"), 1), R("gem")])
    assert (M_CAPT1, -1) in legal(c, st, 0)
    turn(c, st, 0, M_CAPT1)
    assert events(st, E_LOCK) == [(0, 1, R("chest_1"), 1)]
    assert centre(st)[1] == (R("chest_1"), 1, 1)
    assert st.pl[0, PL_USED1] == 1
    assert (M_CAPT1, -1) not in legal(c, st, 0)
    # a 1 played now (greedy once the script ran out) must leave the locked relic alone
    set_seat(c, st, 2, hand=[raven(1), raven(3)])
    act(c, st, 2, 1)
    assert [e[1] for e in events(st, E_REPLACE)] == [0]
    assert centre(st)[1] == (R("chest_1"), 1, 1)
    # the lock lasts until the round ends
    engine.epilogue(c.tb, st)
    set_centre(st, [])
    engine.prelude(c.tb, st)
    assert [lock for _, _, lock in centre(st)] == [0, 0, 0]
    assert (M_CAPT1, -1) in legal(c, st, 0)


def test_fr8_captured_one_needs_an_unlocked_relic(fr2):
    c = fr2
    R = partial(relic_id, c)
    st = blank(c)
    set_seat(c, st, 0, hand=[raven(5)], captured=[raven(1)])
    set_centre(st, [(R("skull"), 1, 1), (R("gem"), 0, 1)])
    assert legal(c, st, 0) == {(M_THIEF, raven(5))}


@pytest.mark.parametrize("kind", ["random", "greedy"])
def test_fr8_locked_relics_cannot_be_flipped_swapped_replaced_or_examined(kind):
    c = compile_tables(config(4, [kind] * 4))
    R = partial(relic_id, c)
    touched = Counter()
    for seed in range(40):
        for rank in (6, 7, 1, 3):
            st = blank(c, seed=seed)
            set_seat(c, st, 0, hand=[raven(rank), raven(4)])
            set_relic_deck(st, [R("gem", 1), R("chest_5")])
            slots = [(R("chest_1"), 1, 1), (R("hollow"), 0, 1), (R("chest_2"), 1), R("gem")]
            set_centre(st, slots)
            act(c, st, 0, rank)
            assert centre_cards(st)[:2] == [R("chest_1"), R("hollow")]
            assert centre(st)[:2] == [(R("chest_1"), 1, 1), (R("hollow"), 0, 1)]
            for code, at in ((E_FLIP, 1), (E_SEVEN, 2), (E_REPLACE, 1), (E_EXAMINE, 1)):
                for e in events(st, code):
                    assert e[at] not in (0, 1)
                    touched[code] += 1
    assert touched[E_FLIP] and touched[E_REPLACE] and touched[E_EXAMINE]


def test_fr8_with_only_locked_targets_the_actions_do_nothing(fr3):
    c = fr3
    R = partial(relic_id, c)
    for rank in (6, 1, 3):
        st = blank(c)
        set_seat(c, st, 0, hand=[raven(rank), raven(4)])
        set_relic_deck(st, [R("gem", 1), R("chest_5")])
        set_centre(st, [(R("skull"), 1, 1), (R("hollow"), 0, 1), (R("chest_1"), 1, 1)])
        before = centre(st)
        act(c, st, 0, rank)
        assert centre(st) == before
        assert script_used(st) == 0
        assert [e[0] for e in log(st)] == [E_ACTION]
    st = blank(c)
    set_seat(c, st, 0, hand=[raven(7), raven(4)])
    set_relic_deck(st, [R("gem", 1), R("chest_5")])
    set_centre(st, [(R("skull"), 1, 1), (R("hollow"), 0, 1), (R("chest_1"), 1, 1)])
    act(c, st, 0, 7)  # nothing to swap with: the 7 must bury (greedy once the script is empty)
    assert events(st, E_SEVEN) == [(0, R("chest_5"), -1, -1)]


def test_fr8_switch_seven_action_off_makes_the_seven_do_nothing():
    """A switched-off action can still be played and does nothing (ENGINE-6)."""
    c = scripted(config(3, rules={"ravens": {"seven": {"action": False}}}))
    R = partial(relic_id, c)
    st = blank(c, script=[2])
    set_seat(c, st, 0, hand=[raven(7), raven(3)])
    set_relic_deck(st, [R("hollow"), R("gem"), R("chest_5")])
    set_centre(st, [(R("chest_1"), 1), (R("chest_2"), 1), R("skull")])
    assert (M_ACTION, raven(7)) in legal(c, st, 0)  # still playable (ENGINE-6)
    act(c, st, 0, 7)
    assert events(st, E_SEVEN) == []
    assert relic_deck(st) == [R("hollow"), R("gem"), R("chest_5")]
    assert centre_cards(st) == [R("chest_1"), R("chest_2"), R("skull")]
    assert pile_cards(st, 0, "discard") == [raven(7)]
    assert script_used(st) == 0
    # and the 2 cannot borrow it either
    st = blank(c, script=[raven(7), 2])
    set_seat(c, st, 0, hand=[raven(2), raven(3)], captured=[raven(7)])
    set_relic_deck(st, [R("hollow"), R("gem"), R("chest_5")])
    set_centre(st, [(R("chest_1"), 1), (R("chest_2"), 1), R("skull")])
    act(c, st, 0, 2)
    assert events(st, E_SEVEN) == []
    assert relic_deck(st) == [R("hollow"), R("gem"), R("chest_5")]


@pytest.mark.parametrize(
    ("rank", "move"), [(3, M_CAPT3), (1, M_CAPT1)], ids=["captured-three", "captured-one"]
)
def test_fr8_switched_off_capture_gives_no_turn_action(rank, move):
    name = {1: "one", 3: "three"}[rank]
    on = scripted(config(2))
    off = scripted(config(2, rules={"ravens": {name: {"capture": False}}}))
    R = partial(relic_id, on)
    for c, expected in ((on, True), (off, False)):
        st = blank(c)
        set_seat(c, st, 0, hand=[raven(5)], captured=[raven(rank)])
        set_relic_deck(st, [R("gem")])
        set_centre(st, [(R("chest_1"), 1)])
        assert ((move, -1) in legal(c, st, 0)) is expected


# ================================================================ FR-9 theft


def test_fr9_rulebook_steal_order_example(fr3):
    """A 7 (Elvira, seat 1), 3 (Elaine, seat 0, first player) and 7 (Edgar, seat 2): Elvira steals
    first, then Edgar, then Elaine."""
    c = fr3
    R = partial(relic_id, c)
    st = blank(c, script=[1, 0, 2], first=0)
    thieves(st, s0=raven(3), s1=raven(7), s2=raven(7))
    assert order_of(c, st) == [1, 2, 0]
    set_centre(st, [(R("chest_1"), 1), (R("chest_2"), 1), R("gem")])
    theft(c, st)
    assert events(st, E_STEAL) == [
        (1, raven(7), R("chest_2"), 1, 0),
        (2, raven(7), R("chest_1"), 0, 0),
        (0, raven(3), R("gem"), 2, 0),
    ]
    assert st.board[G_LAST] == 0


def test_fr9_ties_go_clockwise_from_the_first_player(fr4):
    c = fr4
    st = blank(c, first=2)
    thieves(st, s0=raven(5), s1=raven(5), s2=raven(5), s3=raven(5))
    assert order_of(c, st) == [2, 3, 0, 1]
    thieves(st, s0=raven(2), s1=raven(9), s2=raven(2), s3=raven(8))
    assert order_of(c, st) == [1, 3, 2, 0]


def test_fr9_captured_two_may_steal_the_bottom_relic(fr2):
    c = fr2
    R = partial(relic_id, c)
    st = blank(c, script=[-1, 1], first=0)
    set_seat(c, st, 0, captured=[raven(2)])
    thieves(st, s0=raven(4), s1=raven(3))
    set_relic_deck(st, [R("chest_5"), R("skull"), R("idol")])
    set_centre(st, [(R("chest_1"), 1), (R("chest_2"), 1)])
    theft(c, st)
    assert events(st, E_STEAL) == [
        (0, raven(4), R("chest_5"), -1, 0),
        (1, raven(3), R("chest_2"), 1, 0),
    ]
    assert pile_cards(st, 0, "discard") == [R("chest_5")]
    # the unclaimed centre relic goes to the bottom of the relic deck
    assert events(st, E_UNCLAIMED) == [(0, R("chest_1"))]
    assert relic_deck(st) == [R("chest_1"), R("skull"), R("idol")]
    assert centre_cards(st) == [-1, -1]


@pytest.mark.parametrize("kind", ["random", "greedy"])
def test_fr9_only_a_captured_two_steals_from_the_bottom(kind):
    on = compile_tables(config(2, [kind, kind]))
    off = compile_tables(config(2, [kind, kind], {"ravens": {"two": {"capture": False}}}))
    R = partial(relic_id, on)
    bottom = Counter()
    for c, capt2 in ((on, False), (off, True), (on, True)):
        for seed in range(40):
            st = blank(c, seed=seed)
            set_seat(c, st, 0, captured=[raven(2)] if capt2 else [])
            st.pl[0, PL_RD_BOT] = R("chest_5")  # as if seen with a captured 3: greedy wants it
            thieves(st, s0=raven(4), s1=raven(3))
            set_relic_deck(st, [R("chest_5"), R("skull")])
            set_centre(st, [(R("idol"), 1, 1), R("mask")])
            theft(c, st)
            for p, _, _, slot, _ in events(st, E_STEAL):
                if slot == -1:
                    bottom[(c is on, capt2)] += 1
                    assert p == 0
    assert bottom[(True, False)] == bottom[(False, True)] == 0
    assert bottom[(True, True)] > 0


def test_fr9_unclaimed_relics_go_to_the_bottom_of_the_relic_deck(fr3):
    """Unclaimed relics go under the relic deck one by one in slot order (ENGINE-8)."""
    c = fr3
    R = partial(relic_id, c)
    st = blank(c, script=[-1, -1, 1])
    set_seat(c, st, 0, captured=[raven(2)])
    set_seat(c, st, 1, captured=[raven(2)])
    thieves(st, s0=raven(9), s1=raven(8), s2=raven(4))
    set_relic_deck(st, [R("gem", 1), R("gem", 2), R("gem", 3)])
    set_centre(st, [(R("chest_1"), 1), (R("chest_2"), 1), R("gem", 0)])
    theft(c, st)
    assert events(st, E_STEAL) == [
        (0, raven(9), R("gem", 1), -1, 0),
        (1, raven(8), R("gem", 2), -1, 0),
        (2, raven(4), R("chest_2"), 1, 0),
    ]
    assert events(st, E_UNCLAIMED) == [(0, R("chest_1")), (2, R("gem", 0))]
    # ENGINE-8: put under one by one in slot order
    assert relic_deck(st) == [R("gem", 0), R("chest_1"), R("gem", 3)]
    assert centre_cards(st) == [-1, -1, -1]
    # FR-15: everyone saw chest_1 face up, nobody saw the face-down gem
    assert st.pl[:, PL_RD_BOT].tolist() == [-1, -1, -1]


# ================================================================ FR-10 where stolen relics go


def test_fr10_a_relic_stolen_with_the_five_is_captured(fr2):
    c = fr2
    R = partial(relic_id, c)
    st = blank(c, script=[0, 1])
    thieves(st, s0=raven(5), s1=raven(4))
    set_centre(st, [(R("hollow"), 1), (R("gem"), 1)])
    theft(c, st)
    assert events(st, E_STEAL) == [(0, raven(5), R("hollow"), 0, 1), (1, raven(4), R("gem"), 1, 0)]
    assert sorted(pile_cards(st, 0, "captured")) == sorted([R("hollow"), raven(5)])
    assert pile_cards(st, 1, "discard") == [R("gem")]
    assert pile_cards(st, 1, "captured") == [raven(4)]


def test_fr10_a_chest_stolen_with_the_six_is_captured_with_it(fr2):
    c = fr2
    R = partial(relic_id, c)
    st = blank(c, script=[0, 1])
    thieves(st, s0=raven(6), s1=raven(6))
    set_centre(st, [(R("chest_3"), 1), (R("gem"), 1)])
    theft(c, st)
    assert events(st, E_STEAL) == [(0, raven(6), R("chest_3"), 0, 2), (1, raven(6), R("gem"), 1, 0)]
    assert sorted(pile_cards(st, 0, "captured")) == sorted([R("chest_3"), raven(6)])
    assert st.pl[0, PL_DOUBLED] == R("chest_3")
    # any other relic stolen with the 6 goes to the discard as usual
    assert pile_cards(st, 1, "discard") == [R("gem")]
    assert pile_cards(st, 1, "captured") == [raven(6)]
    assert st.pl[1, PL_DOUBLED] == -1


def test_fr10_six_max_chest_is_config():
    c = scripted(config(2, rules={"scoring": {"six_max_chest": 3}}))
    R = partial(relic_id, c)
    st = blank(c, script=[0, 1])
    thieves(st, s0=raven(6), s1=raven(6))
    set_centre(st, [(R("chest_5"), 1), (R("chest_3"), 1)])
    theft(c, st)
    assert pile_cards(st, 0, "discard") == [R("chest_5")]
    assert sorted(pile_cards(st, 1, "captured")) == sorted([R("chest_3"), raven(6)])


# ================================================================ FR-11 capture


def test_fr11_every_thief_is_captured_in_steal_order(fr3):
    """Each thief is captured in steal order, the 7's rescue at once (FR-11, ENGINE-7)."""
    c = fr3
    R = partial(relic_id, c)
    st = blank(c, script=[0, 1, raven(8), 2])
    thieves(st, s0=raven(1), s1=raven(9), s2=raven(7))
    set_seat(c, st, 2, captured=[raven(8)])
    set_centre(st, [(R("chest_1"), 1), (R("chest_2"), 1), (R("chest_3"), 1)])
    theft(c, st)
    theft_log = [e for e in log(st) if e[0] in (E_STEAL, E_CAPTURED, E_RESCUE)]
    assert theft_log == [
        (E_STEAL, 1, raven(9), R("chest_1"), 0, 0),
        (E_CAPTURED, 1, raven(9)),
        (E_STEAL, 2, raven(7), R("chest_2"), 1, 0),
        (E_CAPTURED, 2, raven(7)),
        (E_RESCUE, 2, raven(8)),  # FR-11, ENGINE-7: the 7 resolves at once, in steal order
        (E_STEAL, 0, raven(1), R("chest_3"), 2, 0),
        (E_CAPTURED, 0, raven(1)),
    ]
    assert pile_cards(st, 0, "captured") == [raven(1)]
    assert pile_cards(st, 1, "captured") == [raven(9)]
    assert pile_cards(st, 2, "captured") == [raven(7)]
    assert pile_cards(st, 2, "deck") == [raven(8)]  # rescued to the top of the deck
    assert st.pl[2, PL_DECK_KNOWN] == 1


def test_fr11_the_seven_never_rescues_itself(fr2):
    c = fr2
    R = partial(relic_id, c)
    st = blank(c, script=[0, 1])
    thieves(st, s0=raven(7), s1=raven(2))
    set_centre(st, [(R("chest_1"), 1), (R("chest_2"), 1)])
    theft(c, st)
    assert pile_cards(st, 0, "captured") == [raven(7)]
    assert events(st, E_RESCUE) == []
    assert script_used(st) == 2


def test_fr11_a_rescued_relic_is_no_longer_captured(fr2):
    c = fr2
    R = partial(relic_id, c)
    st = blank(c, script=[0, R("hollow"), 1])
    thieves(st, s0=raven(7), s1=raven(2))
    set_seat(c, st, 0, captured=[R("hollow"), R("skull", 0), R("skull", 1)])
    set_centre(st, [(R("chest_1"), 1), (R("chest_2"), 1)])
    assert breakdown(c, st, 0)["hollows"] == 3
    theft(c, st)
    assert pile_cards(st, 0, "deck") == [R("hollow")]
    assert breakdown(c, st, 0)["hollows"] == 1
    assert breakdown(c, st, 0)["cursed"] == 5


def test_fr11_seven_capture_off_rescues_nothing():
    c = scripted(config(2, rules={"ravens": {"seven": {"capture": False}}}))
    R = partial(relic_id, c)
    st = blank(c, script=[0, 1])
    thieves(st, s0=raven(7), s1=raven(2))
    set_seat(c, st, 0, captured=[raven(9)])
    set_centre(st, [(R("chest_1"), 1), (R("chest_2"), 1)])
    theft(c, st)
    assert events(st, E_RESCUE) == []
    assert sorted(pile_cards(st, 0, "captured")) == [raven(7), raven(9)]


def test_fr11_five_capture_off_sends_the_relic_to_the_discard():
    c = scripted(config(2, rules={"ravens": {"five": {"capture": False}}}))
    R = partial(relic_id, c)
    st = blank(c, script=[0, 1])
    thieves(st, s0=raven(5), s1=raven(2))
    set_centre(st, [(R("hollow"), 1), (R("chest_2"), 1)])
    theft(c, st)
    assert pile_cards(st, 0, "discard") == [R("hollow")]
    assert pile_cards(st, 0, "captured") == [raven(5)]


# ================================================================ FR-12 epilogue


def test_fr12_the_last_stealer_becomes_first_player_and_hands_are_discarded(fr3):
    c = fr3
    R = partial(relic_id, c)
    st = blank(c, script=[0, 1, 2], first=0)
    thieves(st, s0=raven(9), s1=raven(1), s2=raven(5))
    set_seat(c, st, 0, hand=[raven(3), R("gem")])
    set_seat(c, st, 1, hand=[raven(4)])
    set_centre(st, [(R("chest_1"), 1), (R("chest_2"), 1), (R("chest_3"), 1)])
    theft(c, st)
    assert [e[0] for e in events(st, E_STEAL)] == [0, 2, 1]
    engine.epilogue(c.tb, st)
    assert st.board[G_FIRST] == 1
    assert events(st, E_EPILOGUE) == [(1, 1)]
    assert st.board[G_ROUND] == 1
    assert pile_cards(st, 0, "hand") == [] and pile_cards(st, 1, "hand") == []
    assert set(pile_cards(st, 0, "discard")) == {raven(3), R("gem"), R("chest_1")}
    assert pile_cards(st, 1, "discard") == [R("chest_3"), raven(4)]
    assert st.pl[:, PL_THIEF].tolist() == [-1, -1, -1]


def test_fr12_a_seat_that_steals_nothing_does_not_take_the_clocks(fr3):
    """ENGINE-10: the player who stole last is the last one who took a relic."""
    c = fr3
    R = partial(relic_id, c)
    st = blank(c, script=[0, 1], first=0)
    thieves(st, s0=raven(9), s1=raven(1), s2=raven(5))
    set_centre(st, [(R("chest_1"), 1), (R("chest_2"), 1), None])
    theft(c, st)
    assert [e[0] for e in events(st, E_STEAL)] == [0, 2]
    engine.epilogue(c.tb, st)
    assert st.board[G_FIRST] == 2


def test_fr12_nobody_steals_and_the_first_player_stays(fr3):
    """ENGINE-10: with nothing to steal (an empty relic deck deals no centre, no captured 2) the
    round ends with the same first player; ENGINE-1: nothing is dealt."""
    c = fr3
    st = blank(c, first=1)
    for p in range(3):
        set_seat(c, st, p, deck=RAVENS[:6])
    moves = np.zeros((2 * len(all_relics(c)) + 20, 2), np.int32)
    engine.play_round(c.tb, st, alloc_work(c.tb))
    assert events(st, E_DEAL) == [] and events(st, E_STEAL) == []
    assert [e[:2] for e in events(st, E_EPILOGUE)] == [(1, 1)]
    assert st.board[G_FIRST] == 1


def test_fr12_the_first_player_of_each_round_is_the_previous_last_stealer():
    c = compile_tables(config(4, ["random", "greedy", "random", "greedy"]))
    for game in range(20):
        st, _, _ = play_one(c, 8, game)
        rows = log(st)
        firsts = [e[2] for e in rows if e[0] == E_ROUND]
        last = None
        round_last = []
        for e in rows:
            if e[0] == E_STEAL:
                last = e[1]
            if e[0] == E_EPILOGUE:
                round_last.append(last)
                assert e[2] == last
        assert firsts[1:] == round_last[:-1]


# ================================================================ FR-15 knowledge


def test_fr15_greedy_steal_does_not_peek_at_face_down_relics(greedy4):
    c = greedy4
    R = partial(relic_id, c)
    choices = set()
    for hidden in all_relics(c):
        if hidden in (R("chest_2"), R("gem", 0)):
            continue
        st = blank(c)
        thieves(st, s0=raven(4))
        set_centre(st, [(R("chest_2"), 1), hidden, (R("gem", 0), 1)])
        choices.add(pol.choose_steal(c.tb, st, 0))
    assert len(choices) == 1


def test_fr15_greedy_steal_uses_what_its_seat_examined(greedy4):
    c = greedy4
    R = partial(relic_id, c)
    picks = {}
    for hidden in (R("chest_5"), R("skull")):
        st = blank(c)
        thieves(st, s0=raven(4))
        set_centre(st, [(R("chest_2"), 1), hidden])
        st.pl[0, PL_CKNOWN + 1] = 1
        picks[hidden] = pol.choose_steal(c.tb, st, 0)
    assert picks == {R("chest_5"): 1, R("skull"): 0}


def test_fr15_greedy_turn_does_not_depend_on_other_seats_hidden_cards(greedy4):
    c = greedy4
    R = partial(relic_id, c)
    rng = np.random.default_rng(0)
    for _ in range(20):
        st = blank(c)
        set_seat(c, st, 0, hand=[raven(3), raven(6), raven(7)], captured=[raven(1)])
        set_relic_deck(st, [R("gem", 1), R("chest_5")])
        set_centre(st, [(R("chest_2"), 1), R("hollow"), (R("gem", 0), 1)])
        base = pol.choose_turn(c.tb, st, 0, *_legal_buffer(c, st, 0))
        others = [x for x in range(9) if x not in (2, 5, 6)]
        for p in (1, 2, 3):
            set_seat(c, st, p, hand=list(rng.permutation(others)[:4]), captured=[raven(5)])
        set_relic_deck(st, [R("skull"), R("idol")])
        assert pol.choose_turn(c.tb, st, 0, *_legal_buffer(c, st, 0)) == base


def _legal_buffer(c, st, p):
    moves = moves_buffer(c)
    n = engine.legal_moves(c.tb, st, p, moves)
    return moves, n
