"""One or more scripted scenarios for every Raven Manor card: the 8 Rooms, the 21 Actions, the 6
Reactions and the 7 Locations (rulebooks/raven-manor.txt, List of All Cards and Expansions; the
rulings they lean on are cited per test: RM-7, RM-8, RM-9, RM-17, RM-19, RM-21, RM-24 to RM-26,
RM-28, ENGINE-8 to ENGINE-10).

Each test builds a position (``build``: helpers.scene), plays or uses the card, and asserts the
hands, the deck, the discard pile, what is in play, who is dead or stunned and the event log;
``s.check()`` proves every scripted decision was legal and used and that no card was lost.
Seats sit 0, 1, 2, ... clockwise; the Raven sits in seat 4 unless a test needs it elsewhere (with
no evil character alive any death would end the game: RM-22).
"""

from __future__ import annotations

import pytest

from balance.games.raven_manor import engine, state
from balance.games.raven_manor.policies import K_BREAK, K_FREE, K_PASS, K_PLAY, K_USE
from balance.games.raven_manor.state import (
    B_BARR,
    B_MISS,
    B_REMOVED,
    E_BACKPACK,
    E_BARRICADE,
    E_CANCEL,
    E_CONSENT,
    E_DEATH,
    E_DISCARD,
    E_FEATHER,
    E_FREED,
    E_INPLAY,
    E_KILL_SAVED,
    E_LOOK_CHAR,
    E_PILLOW,
    E_POSSESS,
    E_REACT,
    E_SEARCH,
    E_SHOW,
    E_SKIP,
    E_STUN,
    E_SWAP,
    E_TAKE,
    E_XCHG,
    G_GEN,
    G_OVER,
    KN_CHAR,
    KN_HAND,
    KN_SEEN,
    PL_BACKPACKS,
    PL_FEATHER_DISC,
    PL_SKIP,
    PL_STUN_CARD,
)
from balance.games.raven_manor.tables import (
    ABANDONED_MINE,
    AUNT_CAT,
    AUNT_OWL,
    AVOID,
    AXE,
    BACKPACK,
    BARRICADE,
    BASEMENT,
    BATHROOM,
    BEDROOM,
    BOTTLE,
    BROKEN_BOTTLE,
    BROTHER_BADGER,
    CABIN,
    CANDLE,
    CAVE,
    COAST,
    COMPASS,
    D_KILL,
    D_MOUNTAINS,
    D_PILLOW,
    DINING_ROOM,
    DODGE,
    DOG_FATHER,
    DRINK,
    EVADE,
    EXCHANGE,
    FAMILY,
    FATHERS_STUDY,
    FEATHER,
    FOREST,
    GET_OVER_HERE,
    GUESTROOM,
    HARPOON,
    HAYMAKER,
    KITCHEN,
    KNIFE,
    LIBRARY,
    LIFEBUOY,
    MANOR_PLAN,
    MOUNTAINS,
    PILLOW,
    RAT_TREACHERY,
    RAVEN,
    RIFLE,
    ROD,
    S_RAVEN,
    SHARK,
    THE_INN,
    TORCH,
    TREASURE_MAP,
    VASE,
    ZAKUS_CAMERA,
)

from .helpers import TURN, cards, play_

FIVE = [AUNT_CAT, AUNT_OWL, BROTHER_BADGER, DOG_FATHER, RAVEN]
RAVEN0 = [RAVEN, AUNT_OWL, BROTHER_BADGER, DOG_FATHER, AUNT_CAT]


def searched(s, p, c, found, where=0):
    return (p, c, found, where, 0, 0, 0) in s.ev(E_SEARCH)


# ================================================================ Rooms


def test_basement_searches_the_deck_for_the_axe(build):
    """Basement (RM-9): the Axe is found in the deck, revealed and put in hand; the deck is
    shuffled; played from hand, the Room enters play and is used at once."""
    s = build(FIVE, hands={0: [BASEMENT]}, deck=[CANDLE, AXE, VASE])
    s.play(0, BASEMENT, -1, AXE)
    assert s.hand(0) == cards(AXE)
    assert s.in_play(BASEMENT) == 1
    assert sorted(s.deck()) == sorted([CANDLE, VASE])
    assert s.ev(E_SEARCH) == [(0, AXE, 1, 0, 0, 0, 0)]
    assert s.ev(E_INPLAY) == [(0, BASEMENT, 1, 0, 0, 0, 0)]
    s.check()


def test_basement_missing_card_does_as_much_as_possible(build):
    """Basement (RM-9): no Bottle in the deck: nothing found, and the failed search is public
    until the next reshuffle (B_MISS)."""
    s = build(FIVE, deck=[CANDLE, VASE], in_play=(BASEMENT,), discard=[BOTTLE])
    s.use(0, BASEMENT, -1, BOTTLE)
    assert s.hand(0) == cards()
    assert s.ev(E_SEARCH) == [(0, BOTTLE, 0, 0, 0, 0, 0)]
    assert s.board[B_MISS + BOTTLE] == s.board[G_GEN] + 1
    assert s.discard() == cards(BOTTLE)
    s.check()


@pytest.mark.parametrize("wanted", [BOTTLE, BROKEN_BOTTLE])
def test_basement_also_finds_a_bottle_or_a_broken_bottle(build, wanted):
    s = build(FIVE, deck=[CANDLE, wanted], in_play=(BASEMENT,))
    assert {o for k, c, t, o in s.legal(0) if c == BASEMENT} == {AXE, BOTTLE, BROKEN_BOTTLE}
    s.use(0, BASEMENT, -1, wanted)
    assert s.hand(0) == cards(wanted)
    s.check()


def test_bathroom_discards_any_number_and_draws_as_many(build):
    """Bathroom: discard two cards (the player's choice, then stop), draw two."""
    s = build(
        FIVE,
        hands={0: [KNIFE, VASE, CANDLE]},
        deck=[AXE, RIFLE, BOTTLE],
        in_play=(BATHROOM,),
        scripts={0: [KNIFE, VASE, -1]},
    )
    s.use(0, BATHROOM)
    assert s.hand(0) == cards(CANDLE, AXE, RIFLE)
    assert s.discard() == cards(KNIFE, VASE)
    assert s.deck() == [BOTTLE]
    s.check()


@pytest.mark.parametrize("wanted", [PILLOW, CANDLE])
def test_bedroom_searches_for_a_pillow_or_a_candle(build, wanted):
    s = build(FIVE, deck=[PILLOW, CANDLE, KNIFE], in_play=(BEDROOM,))
    assert {o for k, c, t, o in s.legal(0) if c == BEDROOM} == {PILLOW, CANDLE}
    s.use(0, BEDROOM, -1, wanted)
    assert s.hand(0) == cards(wanted)
    assert searched(s, 0, wanted, 1)
    s.check()


def test_dining_room_exchanges_a_card_with_any_chosen_player(build):
    """Dining Room, option 0: exchange a single card with the chosen player (not adjacent)."""
    s = build(
        FIVE,
        hands={0: [KNIFE], 2: [AXE]},
        in_play=(DINING_ROOM,),
        scripts={0: [KNIFE], 2: [AXE]},
    )
    s.use(0, DINING_ROOM, 2, 0)
    assert s.hand(0) == cards(AXE) and s.hand(2) == cards(KNIFE)
    assert s.ev(E_XCHG) == [(0, 2, KNIFE, AXE, 1, 0, 0)]
    s.check()


def test_dining_room_swaps_places_with_an_adjacent_player(build):
    """Dining Room, option 1: swap places with an adjacent player only."""
    s = build(FIVE, in_play=(DINING_ROOM,))
    assert {t for k, c, t, o in s.legal(0) if c == DINING_ROOM and o == 1} == {1, 4}
    s.use(0, DINING_ROOM, 1, 1)
    assert s.pos(0) == 1 and s.pos(1) == 0
    assert s.ev(E_SWAP) == [(0, 1, 1, 0, 0, 0, 0)]
    s.check()


def test_rm19_dining_room_swap_used_from_play_is_answered_by_avoid(build):
    """RM-19: a Room used from play is no card played, but its swap can be answered: Avoid."""
    s = build(FIVE, hands={1: [AVOID]}, in_play=(DINING_ROOM,), scripts={1: [AVOID]})
    s.use(0, DINING_ROOM, 1, 1)
    assert s.pos(0) == 0 and s.pos(1) == 1
    assert not s.ev(E_SWAP)
    assert s.ev(E_REACT) == [(1, AVOID, 0, DINING_ROOM, 0, 0, 0)]
    s.check()


@pytest.mark.parametrize("wanted", [RIFLE, BOTTLE, MANOR_PLAN])
def test_fathers_study_searches_for_the_rifle_a_bottle_or_the_manor_plan(build, wanted):
    s = build(FIVE, deck=[RIFLE, BOTTLE, MANOR_PLAN, KNIFE], in_play=(FATHERS_STUDY,))
    assert {o for k, c, t, o in s.legal(0) if c == FATHERS_STUDY} == {RIFLE, BOTTLE, MANOR_PLAN}
    s.use(0, FATHERS_STUDY, -1, wanted)
    assert s.hand(0) == cards(wanted)
    assert len(s.deck()) == 3
    s.check()


def test_guestroom_searches_for_a_pillow(build):
    s = build(FIVE, deck=[KNIFE, PILLOW], in_play=(GUESTROOM,))
    s.use(0, GUESTROOM, -1, 0)
    assert s.hand(0) == cards(PILLOW)
    assert s.ev(E_SEARCH) == [(0, PILLOW, 1, 0, 0, 0, 0)]
    s.check()


def test_guestroom_or_discards_a_card_and_draws_one(build):
    s = build(
        FIVE,
        hands={0: [VASE, KNIFE]},
        deck=[RIFLE, AXE],
        in_play=(GUESTROOM,),
        scripts={0: [VASE]},
    )
    s.use(0, GUESTROOM, -1, 1)
    assert s.hand(0) == cards(KNIFE, RIFLE)
    assert s.discard() == cards(VASE)
    assert s.ev(E_DISCARD) == [(0, VASE, 2, 0, 0, 0, 0)]
    s.check()


@pytest.mark.parametrize("wanted", [KNIFE, BOTTLE])
def test_kitchen_searches_for_a_knife_or_a_bottle(build, wanted):
    s = build(FIVE, deck=[KNIFE, BOTTLE, CANDLE], in_play=(KITCHEN,))
    assert {o for k, c, t, o in s.legal(0) if c == KITCHEN} == {KNIFE, BOTTLE}
    s.use(0, KITCHEN, -1, wanted)
    assert s.hand(0) == cards(wanted)
    s.check()


def test_library_looks_at_the_chosen_players_hand(build):
    """Library (RM-11): a look: the user alone now knows the hand, dead players included
    (RM-23)."""
    s = build(FIVE, hands={2: [KNIFE, EVADE]}, in_play=(LIBRARY,), dead=(2,))
    assert {t for k, c, t, o in s.legal(0) if c == LIBRARY} == {1, 2, 3, 4}
    s.use(0, LIBRARY, 2)
    assert s.kn[0, 2, KN_HAND + KNIFE] == 1 and s.kn[0, 2, KN_HAND + EVADE] == 1
    assert s.kn[1, 2, KN_SEEN] == 0
    assert s.ev(E_SHOW) == [(2, 0, 2, 0, 0, 0, 0)]
    s.check()


# ================================================================ Actions


def test_exchange_trades_a_card_with_the_chosen_player(build):
    """Exchange: a single card each with any chosen player (kind 1, not the end-of-turn one)."""
    s = build(
        FIVE,
        hands={0: [EXCHANGE, KNIFE], 3: [AXE, VASE]},
        scripts={0: [KNIFE], 3: [VASE]},
    )
    s.play(0, EXCHANGE, 3)
    assert s.hand(0) == cards(VASE) and s.hand(3) == cards(AXE, KNIFE)
    assert s.ev(E_XCHG) == [(0, 3, KNIFE, VASE, 1, 0, 0)]
    assert s.discard() == cards(EXCHANGE)
    s.check()


@pytest.mark.parametrize("card", [EXCHANGE, THE_INN])
def test_exchange_and_the_inn_from_hand_need_a_second_card_to_give(build, card):
    """Exchange, The Inn (RM-29): the card played is not the card given: alone in hand it has no
    legal use, so the player passes; from play, The Inn needs one card."""
    s = build(FIVE, hands={0: [card]})
    assert s.legal(0) == {(K_PASS, -1, -1, 0)}
    s = build(FIVE, hands={0: [KNIFE]}, in_play=(THE_INN,))
    assert {t for k, c, t, o in s.legal(0) if c == THE_INN} == {1, 2, 3, 4}
    s.check()


def test_rm6_exchange_card_passing_the_ravens_feather_possesses(build):
    """Exchange, RM-6: a Feather from the Raven in any exchange possesses its receiver."""
    s = build(
        RAVEN0,
        hands={0: [EXCHANGE, FEATHER], 2: [KNIFE]},
        scripts={0: [FEATHER], 2: [KNIFE]},
    )
    s.play(0, EXCHANGE, 2)
    assert s.possessed(2) == S_RAVEN and s.side(2) == S_RAVEN
    assert s.ev(E_POSSESS) == [(2, S_RAVEN, 0, 0, 0, 0, 0)]
    s.check()


def test_get_over_here_swaps_places_with_any_chosen_player(build):
    s = build(FIVE, hands={0: [GET_OVER_HERE]})
    s.play(0, GET_OVER_HERE, 2, 0)
    assert s.pos(0) == 2 and s.pos(2) == 0
    assert s.discard() == cards(GET_OVER_HERE)
    s.check()


def test_get_over_here_swap_is_refused_with_avoid_its_look_is_not(build):
    """Get Over Here (RM-7, RM-19): Avoid refuses the swap; the look is no exchange or swap, so
    Avoid does not fit it."""
    s = build(FIVE, hands={0: [GET_OVER_HERE, GET_OVER_HERE], 2: [AVOID]}, scripts={2: [AVOID]})
    s.play(0, GET_OVER_HERE, 2, 0)
    assert s.pos(0) == 0 and s.pos(2) == 2
    s.play(0, GET_OVER_HERE, 2, 1)
    assert s.kn[0, 2, KN_SEEN] == TURN + 1
    assert s.ev(E_REACT) == [(2, AVOID, 0, GET_OVER_HERE, 0, 0, 0)]
    s.check()


def test_vase_stuns_any_chosen_player_even_a_dead_one(build):
    """Vase (RM-14: dead players can be stunned): the Vase lies in front of the stunned player."""
    s = build(FIVE, hands={0: [VASE]}, dead=(2,))
    s.play(0, VASE, 2)
    assert s.stunned(2) and s.pl[2, PL_STUN_CARD] == VASE
    assert s.ev(E_STUN) == [(2, 0, VASE, 0, 0, 0, 0)]
    s.check()


def test_axe_kills_an_adjacent_player(build):
    s = build(FIVE, hands={0: [AXE]})
    assert {t for k, c, t, o in s.legal(0) if c == AXE} == {1, 4}
    s.play(0, AXE, 1)
    assert not s.alive(1) and s.cause(1) == D_KILL
    assert s.discard() == cards(AXE)
    s.check()


def test_candle_one_card_to_hand_one_on_top_one_at_the_bottom(build):
    """Candle: look at the top three; one into the hand, one back on top, one to the bottom."""
    s = build(
        FIVE,
        hands={0: [CANDLE]},
        deck=[KNIFE, AXE, VASE, RIFLE, DODGE],
        scripts={0: [AXE, VASE]},
    )
    s.play(0, CANDLE)
    assert s.hand(0) == cards(AXE)
    assert s.deck() == [VASE, RIFLE, DODGE, KNIFE]
    s.check()


def test_rm26_candle_feather_for_a_non_raven_is_discarded(build):
    """Candle, RM-26: a non-Raven putting a Feather into hand discards it publicly instead."""
    s = build(FIVE, hands={0: [CANDLE]}, deck=[FEATHER, AXE, VASE], scripts={0: [FEATHER, AXE]})
    s.play(0, CANDLE)
    assert s.hand(0) == cards()
    assert s.discard() == cards(CANDLE, FEATHER)
    assert s.ev(E_FEATHER) == [(0, 0, 0, 0, 0, 0, 0)]
    assert s.deck() == [AXE, VASE]
    s.check()


def test_rifle_kills_any_chosen_player(build):
    s = build(FIVE, hands={0: [RIFLE]})
    assert {t for k, c, t, o in s.legal(0) if c == RIFLE} == {1, 2, 3, 4}
    s.play(0, RIFLE, 2)
    assert not s.alive(2)
    assert s.ev(E_DEATH) == [(2, BROTHER_BADGER, D_KILL, 0, TURN, 0, 0)]
    s.check()


def test_broken_bottle_kills_an_adjacent_player(build):
    s = build(FIVE, hands={0: [BROKEN_BOTTLE]})
    assert {t for k, c, t, o in s.legal(0) if c == BROKEN_BOTTLE} == {1, 4}
    s.play(0, BROKEN_BOTTLE, 1)
    assert not s.alive(1)
    s.check()


def test_rm8_rm21_pillow_revealed_after_an_exchange_kills_and_cannot_be_prevented(build):
    """Pillow, RM-8, RM-21, ENGINE-8: passed in the end-of-turn exchange and revealed by its
    giver at once: the receiver dies; its Evade is never offered, the Shark Bouncer is not asked;
    the Pillow goes to the discard pile."""
    s = build(
        [AUNT_CAT, AUNT_OWL, SHARK, DOG_FATHER, RAVEN],
        hands={0: [PILLOW, CANDLE], 1: [EVADE, KNIFE]},
        scripts={0: [PILLOW, 1], 1: [KNIFE], 2: [1]},
    )
    s.trade(0, 1)
    assert not s.alive(1) and s.cause(1) == D_PILLOW
    assert s.alive(2)
    assert s.ev(E_PILLOW) == [(0, 1, 0, 0, 0, 0, 0)]
    assert s.ev(E_DEATH) == [(1, AUNT_OWL, D_PILLOW, 0, TURN, 0, 0)]
    assert not s.ev(E_REACT)
    assert s.hand(1) == cards(EVADE)
    assert s.discard() == cards(PILLOW)
    assert s.script_used(2) == 0
    s.check(all_used=False)


def test_rm8_rm18_a_pillow_kept_silent_is_just_a_card(build):
    """Pillow, RM-8, RM-18: the giver stays silent: the Pillow is a card like any other."""
    s = build(FIVE, hands={0: [PILLOW], 1: [KNIFE]}, scripts={0: [PILLOW, 0], 1: [KNIFE]})
    s.trade(0, 1)
    assert s.alive(1) and s.hand(1) == cards(PILLOW)
    s.check()


def test_engine8_a_dead_giver_cannot_reveal_a_pillow(build):
    """Pillow, ENGINE-8, RM-14: a dead giver is not asked (revealing it would be a kill)."""
    s = build(
        FIVE, hands={0: [PILLOW], 1: [KNIFE]}, dead=(0,), scripts={0: [PILLOW, 1], 1: [KNIFE]}
    )
    s.trade(0, 1)
    assert s.alive(1) and s.hand(1) == cards(PILLOW)
    assert s.script_used(0) == 1
    s.check(all_used=False)


@pytest.mark.parametrize("card", [PILLOW, FEATHER])
def test_pillow_and_feather_cannot_be_played(build, card):
    """Pillow and Feather are no actions: a hand of one of them can only pass (RM-29)."""
    s = build(RAVEN0, hands={0: [card]})
    assert s.legal(0) == {(K_PASS, -1, -1, 0)}
    s.check()


def test_haymaker_stuns_an_adjacent_player(build):
    s = build(FIVE, hands={0: [HAYMAKER]})
    assert {t for k, c, t, o in s.legal(0) if c == HAYMAKER} == {1, 4}
    s.play(0, HAYMAKER, 4)
    assert s.stunned(4) and s.pl[4, PL_STUN_CARD] == HAYMAKER
    s.check()


def test_manor_plan_searches_for_any_room_and_plays_it(build):
    """Manor Plan: the Library is found, enters play and is used at once (its target is the
    player's choice)."""
    s = build(
        FIVE,
        hands={0: [MANOR_PLAN], 3: [KNIFE]},
        deck=[CANDLE, LIBRARY],
        scripts={0: [K_FREE, LIBRARY, 3, 0]},
    )
    s.play(0, MANOR_PLAN, -1, LIBRARY)
    assert s.in_play(LIBRARY) == 1
    assert s.kn[0, 3, KN_HAND + KNIFE] == 1
    assert s.discard() == cards(MANOR_PLAN)
    assert s.deck() == [CANDLE]
    s.check()


def test_bottle_stuns_an_adjacent_player_and_searches_a_broken_bottle(build):
    s = build(FIVE, hands={0: [BOTTLE]}, deck=[CANDLE, BROKEN_BOTTLE])
    s.play(0, BOTTLE, 1)
    assert s.stunned(1) and s.pl[1, PL_STUN_CARD] == BOTTLE
    assert s.hand(0) == cards(BROKEN_BOTTLE)
    s.check()


def test_bottle_dodged_still_searches_the_broken_bottle(build):
    """Bottle, Dodge: the stun is dodged, the search still happens, the Bottle is discarded."""
    s = build(FIVE, hands={0: [BOTTLE], 1: [DODGE]}, deck=[BROKEN_BOTTLE], scripts={1: [DODGE]})
    s.play(0, BOTTLE, 1)
    assert not s.stunned(1)
    assert s.hand(0) == cards(BROKEN_BOTTLE)
    assert s.discard() == cards(BOTTLE, DODGE)
    s.check()


def test_knife_kills_an_adjacent_player_only(build):
    s = build(FIVE, hands={0: [KNIFE]})
    assert {t for k, c, t, o in s.legal(0) if c == KNIFE} == {1, 4}
    s.play(0, KNIFE, 1)
    assert not s.alive(1)
    s.check()


def test_rm25_backpack_stores_two_cards_taken_instead_of_drawing(build):
    """Backpack, RM-25: it stays in front of its owner with two cards stored; a look does not see
    them; whenever the owner would draw it may take a stored card instead."""
    s = build(
        FIVE,
        hands={0: [BACKPACK, KNIFE, EVADE, CANDLE]},
        deck=[VASE, RIFLE],
        in_play=(LIBRARY,),
        scripts={0: [KNIFE, EVADE, KNIFE, -1, EVADE]},
    )
    s.play(0, BACKPACK)
    assert s.pl[0, PL_BACKPACKS] == 1
    assert s.backpack(0) == cards(KNIFE, EVADE) and s.hand(0) == cards(CANDLE)
    assert s.ev(E_BACKPACK) == [(0, KNIFE, 1, 0, 0, 0, 0), (0, EVADE, 1, 0, 0, 0, 0)]
    s.use(1, LIBRARY, 0)
    assert s.kn[1, 0, KN_HAND + KNIFE] == 0 and s.kn[1, 0, KN_HAND + CANDLE] == 1
    engine.refill(s.tb, s.st, 0, s.pick)
    assert s.hand(0) == cards(CANDLE, KNIFE, VASE, EVADE)
    assert s.backpack(0) == cards()
    assert s.deck() == [RIFLE]
    s.check()


def test_rm25_a_possessed_players_feather_cannot_go_in_the_backpack(build):
    """Backpack, RM-25: storing the Feather of a possessed player is illegal."""
    s = build(
        RAVEN0,
        hands={1: [BACKPACK, FEATHER, KNIFE]},
        possessed={1: 0},
        scripts={1: [FEATHER, -1]},
    )
    s.play(1, BACKPACK)
    assert s.hand(1)[FEATHER] == 1
    s.check(bad_script=True, all_used=False)


def test_rm17_barricade_blocks_a_room_until_an_axe_breaks_it(build):
    """Barricade, RM-17: played on a Room in play, nobody can use the Room; an Axe spent on the
    Barricade (instead of a kill) removes it."""
    s = build(FIVE, hands={0: [BARRICADE], 1: [AXE]}, in_play=(LIBRARY,))
    assert (K_PLAY, BARRICADE, LIBRARY, 0) in s.legal(0)
    s.play(0, BARRICADE, LIBRARY)
    assert s.board[B_BARR + LIBRARY] == 1
    assert not any(c == LIBRARY for k, c, t, o in s.legal(1))
    assert (K_BREAK, AXE, LIBRARY, 0) in s.legal(1)
    s.act(1, K_BREAK, AXE, LIBRARY)
    assert s.board[B_BARR + LIBRARY] == 0
    assert s.discard() == cards(BARRICADE, AXE)
    assert s.ev(E_BARRICADE) == [(0, LIBRARY, 1, 0, 0, 0, 0), (1, LIBRARY, 0, 0, 0, 0, 0)]
    assert (K_USE, LIBRARY, 2, 0) in s.legal(1)
    assert all(s.alive(p) for p in range(5))
    s.check()


def test_rm17_a_rifle_breaks_a_barricade_too(build):
    s = build(FIVE, hands={0: [RIFLE]}, in_play=(KITCHEN,))
    s.board[B_BARR + KITCHEN] = 1  # a Barricade already on the Kitchen
    s.act(0, K_BREAK, RIFLE, KITCHEN)
    assert s.board[B_BARR + KITCHEN] == 0 and s.discard() == cards(RIFLE, BARRICADE)
    s.check()


def test_compass_searches_for_a_location_and_plays_it(build):
    """Compass, ENGINE-10: the Cave is found, enters play and is used at once."""
    s = build(
        FIVE,
        hands={0: [COMPASS], 2: [KNIFE]},
        deck=[CANDLE, CAVE],
        scripts={0: [K_FREE, CAVE, 2, 0]},
    )
    s.play(0, COMPASS, -1, CAVE)
    assert s.in_play(CAVE) == 1
    assert s.hand(0) == cards(KNIFE) and s.hand(2) == cards()
    assert s.discard() == cards(COMPASS)
    s.check()


def test_drink_looks_at_the_hand_and_discards_the_chosen_card(build):
    """Drink, RM-26: the chosen card is discarded; a Feather cannot be chosen."""
    s = build(FIVE, hands={0: [DRINK], 2: [FEATHER, KNIFE, EVADE]}, scripts={0: [EVADE]})
    s.play(0, DRINK, 2)
    assert s.hand(2) == cards(FEATHER, KNIFE)
    assert s.kn[0, 2, KN_SEEN] == TURN + 1
    assert s.discard() == cards(DRINK, EVADE)
    assert s.ev(E_DISCARD) == [(2, EVADE, 2, 0, 0, 0, 0)]
    s.check()


def test_rm26_drink_cannot_pick_a_feather(build):
    """Drink, RM-26: scripting the Feather is illegal; a hand of only a Feather loses nothing."""
    s = build(
        FIVE, hands={0: [DRINK, DRINK], 2: [FEATHER, KNIFE], 3: [FEATHER]}, scripts={0: [FEATHER]}
    )
    s.play(0, DRINK, 2)
    assert s.hand(2)[FEATHER] == 1
    s.board[state.G_BAD_SCRIPT] = 0
    s.play(0, DRINK, 3)
    assert s.hand(3) == cards(FEATHER)
    assert s.discard() == cards(DRINK, DRINK, KNIFE)
    s.check()


def test_rm21_harpoon_kills_then_stuns(build):
    """Harpoon, RM-21: kill the chosen player, then stun that player."""
    s = build(FIVE, hands={0: [HARPOON]})
    s.play(0, HARPOON, 2)
    assert not s.alive(2)
    assert s.stunned(2) and s.pl[2, PL_STUN_CARD] == HARPOON
    s.check()


def test_rm21_harpoon_evaded_still_stuns(build):
    """Harpoon, RM-21: an Evade answers the kill only; the stun still lands."""
    s = build(FIVE, hands={0: [HARPOON], 2: [EVADE]}, scripts={2: [EVADE]})
    s.play(0, HARPOON, 2)
    assert s.alive(2)
    assert s.stunned(2) and s.pl[2, PL_STUN_CARD] == HARPOON
    s.check()


def test_rm21_rod_cancels_both_effects_of_the_harpoon(build):
    """Harpoon, RM-21, RM-7: Rod on the Harpoon cancels the kill and the stun."""
    s = build(FIVE, hands={0: [HARPOON], 3: [ROD]}, scripts={3: [ROD]})
    s.play(0, HARPOON, 2)
    assert s.alive(2) and not s.stunned(2)
    assert s.ev(E_CANCEL) == [(0, HARPOON, ROD, 0, 0, 0, 0)]
    assert s.discard() == cards(HARPOON, ROD)
    s.check()


def test_rm21_harpoon_each_effect_answered_on_its_own_evade_and_dodge(build):
    """Harpoon, RM-21: the target answers the kill with Evade and the stun with Dodge."""
    s = build(FIVE, hands={0: [HARPOON], 2: [EVADE, DODGE]}, scripts={2: [EVADE, DODGE]})
    s.play(0, HARPOON, 2)
    assert s.alive(2)
    assert not s.stunned(2)
    s.check()


def test_torch_reveals_five_keeps_one_discards_the_rest(build):
    """Torch, RM-26: five cards revealed; one into the hand, four to the discard pile."""
    s = build(
        FIVE,
        hands={0: [TORCH]},
        deck=[KNIFE, AXE, VASE, RIFLE, DODGE, EVADE],
        scripts={0: [RIFLE]},
    )
    s.play(0, TORCH)
    assert s.hand(0) == cards(RIFLE)
    assert s.discard() == cards(TORCH, KNIFE, AXE, VASE, DODGE)
    assert s.deck() == [EVADE]
    s.check()


def test_treasure_map_finds_the_named_card_in_the_discard_pile(build):
    """Treasure Map (RM-9): name a card, search the deck and the discard pile for it."""
    s = build(FIVE, hands={0: [TREASURE_MAP]}, deck=[CANDLE], discard=[RIFLE])
    s.play(0, TREASURE_MAP, -1, RIFLE)
    assert s.hand(0) == cards(RIFLE)
    assert s.ev(E_SEARCH) == [(0, RIFLE, 1, 1, 0, 0, 0)]
    assert s.discard() == cards(TREASURE_MAP)
    s.check()


def test_rm26_treasure_map_naming_a_feather_discards_it_for_a_non_raven(build):
    s = build(FIVE, hands={0: [TREASURE_MAP]}, deck=[FEATHER, CANDLE])
    s.play(0, TREASURE_MAP, -1, FEATHER)
    assert s.hand(0) == cards()
    assert s.discard() == cards(TREASURE_MAP, FEATHER)
    assert s.pl[0, PL_FEATHER_DISC] == 1
    s.check()


def test_zakus_camera_looks_at_a_character_card(build):
    """Zaku's Camera, option 0: only the looker learns the character (RM-11)."""
    s = build(FIVE, hands={0: [ZAKUS_CAMERA]})
    s.play(0, ZAKUS_CAMERA, 4, 0)
    assert s.kn[0, 4, KN_CHAR] == RAVEN and s.kn[1, 4, KN_CHAR] == -1
    assert s.ev(E_LOOK_CHAR) == [(0, 4, RAVEN, 0, 0, 0, 0)]
    s.check()


def test_zakus_camera_or_discards_a_chosen_card(build):
    """Zaku's Camera, option 1: as Drink (RM-26: never the Feather)."""
    s = build(RAVEN0, hands={1: [ZAKUS_CAMERA], 0: [FEATHER, EVADE]}, scripts={1: [EVADE]})
    s.play(1, ZAKUS_CAMERA, 0, 1)
    assert s.hand(0) == cards(FEATHER)
    assert s.discard() == cards(ZAKUS_CAMERA, EVADE)
    s.check()


# ================================================================ Reactions


def test_avoid_refuses_an_exchange_card(build):
    """Avoid (RM-7): the Exchange is refused; nothing changes hands."""
    s = build(FIVE, hands={0: [EXCHANGE, KNIFE], 2: [AVOID, AXE]}, scripts={2: [AVOID]})
    s.play(0, EXCHANGE, 2)
    assert s.hand(0) == cards(KNIFE) and s.hand(2) == cards(AXE)
    assert not s.ev(E_XCHG)
    assert s.discard() == cards(EXCHANGE, AVOID)
    s.check()


def test_rm7_avoid_does_not_answer_the_end_of_turn_exchange(build):
    """Avoid, RM-7: the end-of-turn exchange opens no window."""
    s = build(FIVE, hands={0: [KNIFE], 1: [AVOID]}, scripts={0: [KNIFE], 1: [AVOID]})
    engine.end_exchange(s.tb, s.st, 0)
    assert s.ev(E_XCHG) == [(0, 1, KNIFE, AVOID, 0, 0, 0)]
    assert not s.ev(E_REACT)
    s.check()


def test_dodge_answers_a_stun_on_its_player(build):
    s = build(FIVE, hands={0: [VASE], 2: [DODGE]}, scripts={2: [DODGE]})
    s.play(0, VASE, 2)
    assert not s.stunned(2)
    assert s.ev(E_REACT) == [(2, DODGE, 0, VASE, 0, 0, 0)]
    assert s.discard() == cards(VASE, DODGE)
    s.check()


def test_evade_answers_a_kill_on_its_player(build):
    s = build(FIVE, hands={0: [RIFLE], 2: [EVADE]}, scripts={2: [EVADE]})
    s.play(0, RIFLE, 2)
    assert s.alive(2)
    assert s.ev(E_KILL_SAVED) == [(2, 0, 0, 0, 0, 0, 0)]
    assert s.discard() == cards(RIFLE, EVADE)
    s.check()


def test_evade_does_not_answer_a_stun_nor_dodge_a_kill(build):
    """RM-7: Evade fits only a kill, Dodge only a stun: neither holder is asked."""
    s = build(
        FIVE, hands={0: [VASE, RIFLE], 2: [EVADE], 3: [DODGE]}, scripts={2: [EVADE], 3: [DODGE]}
    )
    s.play(0, VASE, 2)
    s.play(0, RIFLE, 3)
    assert s.stunned(2) and not s.alive(3)
    assert not s.ev(E_REACT)
    s.check(all_used=False)


def test_lifebuoy_protects_another_player_from_kill_and_stun_this_turn(build):
    """Lifebuoy (RM-7, ENGINE-4): played for the Vase's target, who then can be neither stunned
    nor killed this turn."""
    s = build(FIVE, hands={0: [VASE, RIFLE], 3: [LIFEBUOY]}, scripts={3: [LIFEBUOY]})
    s.play(0, VASE, 2)
    assert not s.stunned(2)
    s.play(0, RIFLE, 2)
    assert s.alive(2)
    assert s.ev(E_REACT) == [(3, LIFEBUOY, 0, VASE, 0, 0, 0)]
    assert s.discard() == cards(VASE, RIFLE, LIFEBUOY)
    s.check()


def test_lifebuoy_is_for_another_player_not_its_own(build):
    """Lifebuoy (RM-7): the target's own Lifebuoy does not fit."""
    s = build(FIVE, hands={0: [RIFLE], 2: [LIFEBUOY]}, scripts={2: [LIFEBUOY]})
    s.play(0, RIFLE, 2)
    assert not s.alive(2)
    s.check(all_used=False)


def test_rod_cancels_an_action_card(build):
    s = build(FIVE, hands={0: [KNIFE], 3: [ROD]}, scripts={3: [ROD]})
    s.play(0, KNIFE, 1)
    assert s.alive(1)
    assert s.ev(E_CANCEL) == [(0, KNIFE, ROD, 0, 0, 0, 0)]
    assert s.discard() == cards(KNIFE, ROD)
    assert s.board[G_OVER] == 0
    s.check()


def test_rat_treachery_cancels_any_card_and_ends_the_turn(build):
    """Rat Treachery (RM-7, RM-20): the Knife is cancelled, the turn ends, its player is next."""
    s = build(FIVE, hands={0: [KNIFE], 2: [RAT_TREACHERY]}, scripts={2: [RAT_TREACHERY]})
    s.play(0, KNIFE, 1)
    assert s.alive(1)
    assert s.board[G_OVER] == 1 and s.next_seat(0) == 2
    assert s.discard() == cards(KNIFE, RAT_TREACHERY)
    s.check()


# ================================================================ Locations


def test_abandoned_mine_reveals_seven_keeps_three_and_leaves_the_game(build):
    """Abandoned Mine (RM-26, ENGINE-10): played from hand it enters play and is used: seven
    revealed, three kept (a Feather kept by a non-Raven is discarded instead), the rest
    discarded, and the Mine is removed from the game."""
    s = build(
        FIVE,
        hands={0: [ABANDONED_MINE]},
        deck=[KNIFE, AXE, VASE, RIFLE, DODGE, EVADE, FEATHER, CANDLE],
        scripts={0: [RIFLE, FEATHER, EVADE]},
    )
    s.play(0, ABANDONED_MINE)
    assert s.hand(0) == cards(RIFLE, EVADE)
    assert s.discard() == cards(KNIFE, AXE, VASE, DODGE, FEATHER)
    assert s.deck() == [CANDLE]
    assert s.in_play(ABANDONED_MINE) == 0 and s.board[B_REMOVED + ABANDONED_MINE] == 1
    assert s.ev(E_INPLAY) == [
        (0, ABANDONED_MINE, 1, 0, 0, 0, 0),
        (0, ABANDONED_MINE, 0, 0, 0, 0, 0),
    ]
    assert s.ev(E_FEATHER) == [(0, 0, 0, 0, 0, 0, 0)]
    s.check()


def test_cabin_searches_deck_and_discard_for_the_axe_a_bottle_or_the_rifle(build):
    s = build(FIVE, deck=[CANDLE], discard=[RIFLE], in_play=(CABIN,))
    assert {o for k, c, t, o in s.legal(0) if c == CABIN} == {AXE, BOTTLE, RIFLE}
    s.use(0, CABIN, -1, RIFLE)
    assert s.hand(0) == cards(RIFLE)
    assert s.ev(E_SEARCH) == [(0, RIFLE, 1, 1, 0, 0, 0)]
    s.check()


def test_cave_takes_a_random_card_of_the_chosen_players_hand(build):
    """Cave: the only card of seat 2's hand moves to the user; a Location in play serves anyone
    (ENGINE-10)."""
    s = build(FIVE, hands={2: [KNIFE]}, in_play=(CAVE,))
    s.use(3, CAVE, 2)
    assert s.hand(3) == cards(KNIFE) and s.hand(2) == cards()
    assert s.ev(E_TAKE) == [(3, 2, KNIFE, 0, 0, 0, 0)]
    assert s.kn[2, 3, KN_HAND + KNIFE] == 1
    s.check()


def test_engine9_cave_taking_a_feather_possesses_the_taker_and_frees_the_loser(build):
    """Cave, ENGINE-9, RM-6, RM-26: a Feather taken at random possesses its new holder for the
    Raven; the possessed player left without a Feather is free again."""
    s = build(FIVE, hands={2: [FEATHER]}, possessed={2: 4}, in_play=(CAVE,))
    s.use(0, CAVE, 2)
    assert s.hand(0) == cards(FEATHER)
    assert s.possessed(0) == S_RAVEN and s.side(0) == S_RAVEN
    assert s.possessed(2) == -1 and s.side(2) == FAMILY
    assert s.ev(E_POSSESS) == [(0, S_RAVEN, -1, 0, 0, 0, 0)]
    assert s.ev(E_FREED) == [(2, 0, 0, 0, 0, 0, 0)]
    s.check()


def test_coast_discards_a_bottle_then_plays_the_treasure_map(build):
    """Coast: the Bottle in hand is discarded; the Treasure Map is found in the deck and played
    at once (the player names the Rifle, found in the discard pile)."""
    s = build(
        FIVE,
        hands={0: [BOTTLE, KNIFE]},
        deck=[CANDLE, TREASURE_MAP],
        discard=[RIFLE],
        in_play=(COAST,),
        scripts={0: [K_FREE, TREASURE_MAP, -1, RIFLE]},
    )
    s.use(0, COAST)
    assert s.hand(0) == cards(KNIFE, RIFLE)
    assert s.discard() == cards(BOTTLE, TREASURE_MAP)
    assert s.deck() == [CANDLE]
    s.check()


def test_rm20_rm24_forest_kills_with_consent_ends_the_turn_and_the_consenter_skips(build):
    """Forest, RM-24, RM-20, RM-18, ENGINE-1: the other neighbour of the next player (seat 2)
    consents; the next player (seat 1) dies; the turn ends at once (no exchange, the hand is
    still drawn to 4); seat 2 skips its next turn."""
    s = build(
        FIVE,
        hands={0: [FOREST, CANDLE], 1: [AXE], 2: [KNIFE]},
        deck=[VASE, VASE, VASE],
        scripts={0: play_(FOREST, 1), 2: [1]},
    )
    assert {t for k, c, t, o in s.legal(0) if c == FOREST} == {1}
    s.turn(0)
    assert not s.alive(1) and s.cause(1) == D_KILL
    assert s.ev(E_CONSENT) == [(0, 2, 1, 0, 0, 0, 0)]
    assert not s.ev(E_XCHG)
    assert s.hand(0) == cards(CANDLE, VASE, VASE, VASE)
    assert s.in_play(FOREST) == 1
    assert s.pl[2, PL_SKIP] == 1
    s.turn(2)
    assert s.ev(E_SKIP) == [(2, 1, 0, 0, 0, 0, 0)]
    assert s.hand(2) == cards(KNIFE)
    s.check()


def test_rm24_forest_refused_kills_nobody(build):
    s = build(FIVE, hands={2: [KNIFE]}, in_play=(FOREST,), scripts={2: [0]})
    s.use(0, FOREST, 1)
    assert s.alive(1)
    assert s.ev(E_CONSENT) == [(0, 2, 0, 0, 0, 0, 0)]
    assert s.pl[2, PL_SKIP] == 0
    assert s.board[G_OVER] == 1
    s.check()


def test_rm24_forest_has_no_consenting_player_with_two_players(build):
    """Forest, RM-24: with two players there is no other neighbour: no effect possible."""
    s = build([RAVEN, AUNT_CAT], hands={1: [FOREST]})
    assert s.legal(1) == {(K_PASS, -1, -1, 0)}
    s.check()


def test_rm28_mountains_with_both_evades_both_die(build):
    """Mountains, RM-28, ENGINE-10: seat 3 lets its Lifebuoy be; the target Evades, the player of
    the Mountains Evades too: both die, with no further answer (seat 3 is not asked again); the
    Mountains stays in play."""
    s = build(
        FIVE,
        hands={0: [MOUNTAINS, EVADE], 1: [EVADE], 3: [LIFEBUOY]},
        scripts={0: [1], 1: [EVADE], 3: [-1, LIFEBUOY]},
    )
    s.play(0, MOUNTAINS, 1)
    assert not s.alive(0) and not s.alive(1)
    assert s.cause(0) == D_MOUNTAINS and s.cause(1) == D_MOUNTAINS
    assert s.ev(E_DEATH) == [
        (1, AUNT_OWL, D_MOUNTAINS, 0, TURN, 0, 0),
        (0, AUNT_CAT, D_MOUNTAINS, 0, TURN, 0, 0),
    ]
    assert s.ev(E_REACT) == [(1, EVADE, 0, MOUNTAINS, 0, 0, 0), (0, EVADE, 0, MOUNTAINS, 1, 0, 0)]
    assert s.in_play(MOUNTAINS) == 1
    assert s.discard() == cards(EVADE, EVADE)
    assert s.end() == 0
    assert s.script_used(3) == 1 and s.hand(3) == cards(LIFEBUOY)
    s.check(all_used=False)


def test_rm28_rm7_a_lifebuoy_answers_the_mountains_kill_before_the_duel(build):
    """Mountains, RM-28, RM-7: another player's Lifebuoy answers the Mountains' kill itself:
    the target cannot be killed this turn, so there is no duel."""
    s = build(
        FIVE,
        hands={1: [EVADE], 3: [LIFEBUOY]},
        in_play=(MOUNTAINS,),
        scripts={1: [EVADE], 3: [LIFEBUOY]},
    )
    s.use(0, MOUNTAINS, 1)
    assert s.alive(0) and s.alive(1)
    assert s.ev(E_REACT) == [(3, LIFEBUOY, 0, MOUNTAINS, 0, 0, 0)]
    assert s.ev(E_KILL_SAVED) == [(1, 0, 0, 0, 0, 0, 0)]
    assert s.hand(1) == cards(EVADE) and s.script_used(1) == 0
    s.check(all_used=False)


def test_rm28_mountains_evaded_once_the_target_lives(build):
    s = build(
        FIVE,
        hands={0: [EVADE], 1: [EVADE]},
        in_play=(MOUNTAINS,),
        scripts={0: [0], 1: [EVADE]},
    )
    s.use(0, MOUNTAINS, 1)
    assert s.alive(0) and s.alive(1)
    assert s.hand(0) == cards(EVADE)
    s.check()


def test_rm28_mountains_not_evaded_kills(build):
    s = build(FIVE, hands={1: [EVADE]}, in_play=(MOUNTAINS,), scripts={1: [-1]})
    assert {t for k, c, t, o in s.legal(0) if c == MOUNTAINS} == {1, 4}
    s.use(0, MOUNTAINS, 1)
    assert not s.alive(1) and s.cause(1) == D_MOUNTAINS
    assert s.hand(1) == cards(EVADE)
    s.check()


def test_the_inn_gives_a_card_face_down_with_consent_treated_as_exchanged(build):
    """The Inn, RM-24, RM-6: the chosen player consents and receives a card face down; a Feather
    from the Raven possesses as in an exchange."""
    s = build(RAVEN0, hands={0: [THE_INN, FEATHER], 2: [KNIFE]}, scripts={0: [FEATHER], 2: [1]})
    s.play(0, THE_INN, 2)
    assert s.hand(2) == cards(KNIFE, FEATHER) and s.hand(0) == cards()
    assert s.ev(E_CONSENT) == [(0, 2, 1, 1, 0, 0, 0)]
    assert s.ev(E_XCHG) == [(0, 2, FEATHER, -1, 2, 0, 0)]
    assert s.possessed(2) == S_RAVEN
    assert s.in_play(THE_INN) == 1
    s.check()


def test_rm24_the_inn_refused_gives_nothing(build):
    s = build(FIVE, hands={0: [KNIFE]}, in_play=(THE_INN,), scripts={2: [0]})
    s.use(0, THE_INN, 2)
    assert s.hand(0) == cards(KNIFE) and s.hand(2) == cards()
    assert s.ev(E_CONSENT) == [(0, 2, 0, 1, 0, 0, 0)]
    s.check()


def test_rm8_the_inn_pillow_counts_as_exchanged(build):
    """The Inn, RM-8: a Pillow given through The Inn may be revealed: the receiver dies."""
    s = build(FIVE, hands={0: [PILLOW]}, in_play=(THE_INN,), scripts={0: [PILLOW, 1], 2: [1]})
    s.use(0, THE_INN, 2)
    assert not s.alive(2) and s.cause(2) == D_PILLOW
    assert s.discard() == cards(PILLOW)
    s.check()
