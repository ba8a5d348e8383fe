"""Five Ravens scoring with known answers: the 6's doubling (FR-10, FR-11), every FR-13 term and
the FR-14 winner and tie-breaks."""

from __future__ import annotations

from functools import partial

import pytest

from balance.games.five_ravens import engine
from balance.games.five_ravens.state import E_SCORE, M_ACTION, PL_DOUBLED, PL_THIEF, alloc_work

from .helpers import (
    blank,
    breakdown,
    config,
    events,
    pile_cards,
    play_one,
    ranks,
    raven,
    relic_id,
    scripted,
    set_centre,
    set_seat,
    theft,
    total,
)


def thieves(st, *cards):
    for p, card in enumerate(cards):
        st.pl[p, PL_THIEF] = card


# ================================================================ FR-10 / FR-11 the 6's chest


def steal_chest_3_with_the_six(c):
    """Round 1: seat 0's 6 steals chest_3 (slot 0), seat 1's 2 steals the gem. The script then
    has seat 0's round-2 choices: steal slot 0, rescue ``rescued``; seat 1 steals slot 1."""
    R = partial(relic_id, c)

    def run(rescued, *more):
        st = blank(c, script=[0, 1, 0, rescued, 1, *more])
        thieves(st, raven(6), raven(2))
        set_centre(st, [(R("chest_3"), 1), (R("gem"), 1)])
        theft(c, st)
        return st

    return run


def round_two_seven_rescues(c, st):
    R = partial(relic_id, c)
    engine.epilogue(c.tb, st)
    thieves(st, raven(7), raven(1))
    set_centre(st, [(R("skull"), 1, 1), (R("hollow"), 1)])
    theft(c, st)


def test_fr10_fr11_a_chest_doubled_by_the_six_is_undoubled_when_a_seven_rescues_the_six(fr2):
    c = fr2
    R = partial(relic_id, c)
    st = steal_chest_3_with_the_six(c)(raven(6))
    assert sorted(pile_cards(st, 0, "captured")) == sorted([raven(6), R("chest_3")])
    assert breakdown(c, st, 0)["chests"] == 6
    assert total(c, st, 0) == 6
    round_two_seven_rescues(c, st)
    assert pile_cards(st, 0, "deck") == [raven(6)]
    assert sorted(pile_cards(st, 0, "captured")) == sorted([raven(7), R("chest_3")])
    assert st.pl[0, PL_DOUBLED] == -1
    assert breakdown(c, st, 0)["chests"] == 3
    assert total(c, st, 0) == 3  # chest_3, and the skull stolen with the 7 is not captured


def test_fr11_rescuing_the_chest_itself_undoubles_it(fr2):
    c = fr2
    R = partial(relic_id, c)
    st = steal_chest_3_with_the_six(c)(R("chest_3"))
    assert total(c, st, 0) == 6
    round_two_seven_rescues(c, st)
    assert pile_cards(st, 0, "deck") == [R("chest_3")]
    assert sorted(pile_cards(st, 0, "captured")) == [raven(6), raven(7)]
    assert total(c, st, 0) == 3


def test_fr11_a_rescued_six_captured_again_by_the_five_does_not_double_again(fr2):
    c = fr2
    R = partial(relic_id, c)
    st = steal_chest_3_with_the_six(c)(raven(6), raven(6))  # ... then the 5 captures the 6
    round_two_seven_rescues(c, st)
    assert total(c, st, 0) == 3
    set_seat(c, st, 0, deck=[], hand=[raven(5), raven(6), raven(3)])  # the 6 drawn again
    engine.turn(c.tb, st, alloc_work(c.tb), 0, M_ACTION, raven(5))
    assert sorted(pile_cards(st, 0, "captured")) == sorted([raven(6), raven(7), R("chest_3")])
    assert total(c, st, 0) == 3  # FR-8: a 6 captured by the 5 has no stolen relic


def test_fr10_a_six_with_capture_off_does_not_double():
    c = scripted(config(2, rules={"ravens": {"six": {"capture": False}}}))
    R = partial(relic_id, c)
    st = blank(c, script=[0, 1])
    thieves(st, raven(6), raven(2))
    set_centre(st, [(R("chest_3"), 1), (R("gem"), 1)])
    theft(c, st)
    assert pile_cards(st, 0, "discard") == [R("chest_3")]
    assert pile_cards(st, 0, "captured") == [raven(6)]
    assert total(c, st, 0) == 3


def test_fr10_six_multiplier_is_config():
    c = scripted(config(2, rules={"scoring": {"six_multiplier": 3}}))
    R = partial(relic_id, c)
    st = blank(c, script=[0, 1])
    thieves(st, raven(6), raven(2))
    set_centre(st, [(R("chest_4"), 1), (R("gem"), 1)])
    theft(c, st)
    assert total(c, st, 0) == 12


def test_fr10_a_chest_captured_without_the_six_is_face_value(fr2):
    c = fr2
    R = partial(relic_id, c)
    st = blank(c)
    set_seat(c, st, 0, captured=[raven(6), R("chest_5")])
    assert breakdown(c, st, 0)["chests"] == 5  # captured together, but not stolen with the 6


# ================================================================ FR-13 gems


@pytest.mark.parametrize(("n", "points"), [(0, 0), (1, 1), (2, 6), (3, 9), (4, 15)])
def test_fr13_gem_table(fr2, n, points):
    c = fr2
    R = partial(relic_id, c)
    gems = [R("gem", k) for k in range(n)]
    st = blank(c)
    # gems count wherever they are: deck, hand, discard or captured
    set_seat(c, st, 0, deck=gems[0:1], hand=gems[1:2], discard=gems[2:3], captured=gems[3:4])
    b = breakdown(c, st, 0)
    assert (b["n_gems"], b["gems"], b["total"]) == (n, points, points)


@pytest.mark.parametrize(("n", "points"), [(4, 15), (5, 15), (6, 15)])
def test_fr13_more_gems_than_the_table_score_its_last_entry(n, points):
    c = scripted(config(2, rules={"relics": {"gem": {"count": 6}}}))
    st = blank(c)
    set_seat(c, st, 0, discard=[relic_id(c, "gem", k) for k in range(n)])
    assert breakdown(c, st, 0)["gems"] == points


def test_fr13_gem_table_is_config():
    c = scripted(config(2, rules={"scoring": {"gem_table": [2, 4]}}))
    st = blank(c)
    for n, points in ((1, 2), (2, 4), (3, 4), (4, 4)):
        set_seat(c, st, 0, discard=[relic_id(c, "gem", k) for k in range(n)])
        assert total(c, st, 0) == points


# ================================================================ FR-13 cursed relics


@pytest.mark.parametrize(
    ("captured", "elsewhere", "bonus"),
    [
        ([("skull", 0)], [], 0),
        ([("skull", 0), ("skull", 1)], [], 5),
        ([("skull", 0), ("skull", 1), ("skull", 2)], [], 5),  # per type, not per pair
        ([("skull", 0), ("skull", 1), ("idol", 0), ("idol", 1)], [], 10),
        ([("skull", 0), ("skull", 1), ("idol", 0), ("idol", 1), ("mask", 0), ("mask", 1)], [], 15),
        ([("skull", 0), ("idol", 0), ("mask", 0)], [], 0),  # a set is of one type
        ([("skull", 0)], [("skull", 1), ("skull", 2)], 0),  # uncaptured ones do not count
        ([], [("idol", 0), ("idol", 1), ("idol", 2)], 0),
    ],
)
def test_fr13_cursed_relics_score_only_as_captured_sets(fr2, captured, elsewhere, bonus):
    c = fr2
    R = partial(relic_id, c)
    st = blank(c)
    set_seat(c, st, 0, captured=[R(*x) for x in captured], discard=[R(*x) for x in elsewhere])
    b = breakdown(c, st, 0)
    assert (b["cursed"], b["total"]) == (bonus, bonus)


def test_fr13_cursed_set_size_and_bonus_are_config():
    c = scripted(config(2, rules={"scoring": {"cursed_set_size": 3, "cursed_set_bonus": 7}}))
    R = partial(relic_id, c)
    st = blank(c)
    set_seat(c, st, 0, captured=[R("skull", 0), R("skull", 1), R("idol", 0)])
    assert total(c, st, 0) == 0
    set_seat(c, st, 0, captured=[R("skull", 0), R("skull", 1), R("skull", 2)])
    assert total(c, st, 0) == 7


# ================================================================ FR-13 hollows, chests


def test_fr13_hollow_is_one_or_three_if_captured(fr2):
    c = fr2
    R = partial(relic_id, c)
    st = blank(c)
    set_seat(c, st, 0, deck=[R("hollow", 0)])
    assert total(c, st, 0) == 1
    set_seat(c, st, 0, deck=[], captured=[R("hollow", 0)])
    assert total(c, st, 0) == 3
    set_seat(c, st, 0, hand=[R("hollow", 1)], discard=[R("hollow", 2)])
    assert breakdown(c, st, 0)["hollows"] == 5


def test_fr13_chests_score_face_value_in_any_pile(fr2):
    c = fr2
    R = partial(relic_id, c)
    st = blank(c)
    set_seat(
        c, st, 0,
        deck=[R("chest_1")], hand=[R("chest_2")], discard=[R("chest_3")], captured=[R("chest_4")],
    )  # fmt: skip
    assert breakdown(c, st, 0)["chests"] == 10


# ================================================================ FR-13 captured Ravens


@pytest.mark.parametrize(("n_relics", "bonus"), [(0, 0), (2, 0), (3, 3), (4, 3)])
def test_fr13_captured_four_needs_three_captured_relics(fr2, n_relics, bonus):
    c = fr2
    R = partial(relic_id, c)
    relics = [R("gem", 0), R("skull", 0), R("chest_1"), R("idol", 0)][:n_relics]
    st = blank(c)
    set_seat(c, st, 0, captured=[raven(4), raven(9), *relics])
    assert breakdown(c, st, 0)["four"] == bonus


def test_fr13_four_bonus_needs_the_four_captured_and_relics_captured(fr2):
    c = fr2
    R = partial(relic_id, c)
    st = blank(c)
    three = [R("gem", 0), R("skull", 0), R("chest_1")]
    set_seat(c, st, 0, captured=three, discard=[raven(4)])
    assert breakdown(c, st, 0)["four"] == 0
    set_seat(c, st, 0, captured=[raven(4), *three[:2]], discard=[raven(9), three[2]])
    assert breakdown(c, st, 0)["four"] == 0


def test_fr13_four_bonus_and_threshold_are_config():
    c = scripted(config(2, rules={"scoring": {"four_bonus": 4, "four_threshold": 1}}))
    st = blank(c)
    set_seat(c, st, 0, captured=[raven(4), relic_id(c, "gem")])
    assert breakdown(c, st, 0)["four"] == 4


@pytest.mark.parametrize(
    ("captured", "penalty"),
    [([], 0), ([raven(8)], -1), ([raven(9)], -1), ([raven(8), raven(9)], -2), ([raven(7)], 0)],
)
def test_fr13_captured_eight_and_nine_cost_a_point_each(fr2, captured, penalty):
    c = fr2
    st = blank(c)
    set_seat(c, st, 0, captured=captured, discard=[raven(8), raven(9)][: 2 - len(captured)])
    b = breakdown(c, st, 0)
    assert (b["penalty"], b["total"]) == (penalty, penalty)


def test_fr13_switched_off_capture_effects_score_nothing():
    rules = {"ravens": {"four": {"capture": False}, "eight": {"capture": False}}}
    c = scripted(config(2, rules=rules))
    R = partial(relic_id, c)
    st = blank(c)
    set_seat(c, st, 0, captured=[raven(4), raven(8), raven(9), R("gem"), R("skull"), R("idol")])
    b = breakdown(c, st, 0)
    assert (b["four"], b["penalty"]) == (0, -1)


def test_fr13_a_whole_score(fr2):
    """2 gems (6) + chest_2 + chest_4 doubled (2 + 8) + hollow captured and not (3 + 1) + two
    captured skulls (5) + captured 4 with 5 captured relics (3) + captured 9 (-1) = 27."""
    c = fr2
    R = partial(relic_id, c)
    st = blank(c)
    set_seat(
        c, st, 0,
        deck=[R("gem", 0), raven(1)],
        hand=[R("hollow", 0)],
        discard=[R("chest_2"), R("idol", 0), raven(2)],
        captured=[
            raven(4), raven(6), raven(9), R("chest_4"), R("hollow", 1),
            R("skull", 0), R("skull", 1), R("gem", 1),
        ],
    )  # fmt: skip
    st.pl[0, PL_DOUBLED] = R("chest_4")  # as if stolen with the 6 (FR-10)
    assert breakdown(c, st, 0) == {
        "chests": 10, "gems": 6, "hollows": 4, "cursed": 5, "four": 3, "penalty": -1,
        "total": 27, "n_gems": 2,
    }  # fmt: skip


def test_fr13_play_game_logs_each_seats_breakdown(greedy4):
    st, score, _ = play_one(greedy4, 4, 2)
    rows = events(st, E_SCORE)
    assert [r[0] for r in rows] == [0, 1, 2, 3]
    for p, row in enumerate(rows):
        b = breakdown(greedy4, st, p)
        assert row[1:] == tuple(
            b[k] for k in ("chests", "gems", "hollows", "cursed", "four", "penalty")
        )
        assert sum(row[1:]) == score[p] == b["total"]


# ================================================================ FR-14 winner


def test_fr14_highest_score_wins():
    assert ranks([3, 12, 7, 12 - 1], [0, 5, 0, 0]) == [4, 1, 3, 2]


def test_fr14_tie_broken_by_fewer_captured_cards():
    assert ranks([10, 10, 7], [3, 2, 0]) == [2, 1, 3]
    assert ranks([10, 10, 10, 2], [4, 1, 2, 0]) == [3, 1, 2, 4]


def test_fr14_still_tied_shares_the_win():
    assert ranks([10, 10], [2, 2]) == [1, 1]
    assert ranks([10, 10, 10, 9], [1, 1, 2, 0]) == [1, 1, 3, 4]
    assert ranks([5, 5, 5, 5], [0, 0, 0, 0]) == [1, 1, 1, 1]


def test_fr14_play_game_ranks_by_score_then_captured_cards():
    from balance.games.five_ravens.tables import compile_tables

    c = compile_tables(config(4, ["random", "greedy", "random", "greedy"]))
    for game in range(150):
        st, score, rank = play_one(c, 6, game)
        capt = [len(pile_cards(st, p, "captured")) for p in range(4)]
        for p in range(4):
            better = sum(
                score[q] > score[p] or (score[q] == score[p] and capt[q] < capt[p])
                for q in range(4)
            )
            assert rank[p] == 1 + better
