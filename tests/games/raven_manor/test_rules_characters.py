"""Scripted scenarios for every one of the 29 Raven Manor characters: the Raven, the nine starter
characters without abilities and the nineteen additional characters (rulebooks/raven-manor.txt,
Character Cards and Expansions; RM-5, RM-6, RM-14, RM-15, RM-18, RM-21 to RM-24, RM-27, ENGINE-3,
ENGINE-7, ENGINE-9, ENGINE-13).

A death ability's choices are its dead player's (RM-5): the scripts of the dead seat pick the
target (one value, the seat) and the options. Each test asserts who is dead and why, sides,
hands, seats, what each seat learnt, the end and the event log; ``s.check()`` proves every
scripted decision was legal and used and that no card was lost.
"""

from __future__ import annotations

import pytest

from balance.games.raven_manor import engine, state
from balance.games.raven_manor.policies import K_EAGLE, K_FREE
from balance.games.raven_manor.state import (
    E_ABILITY,
    E_DEATH,
    E_DISCARD,
    E_EEL,
    E_INPLAY,
    E_LOOK_CHAR,
    E_POSSESS,
    E_REACT,
    E_SACRIFICE,
    E_SEARCH,
    E_SHOW,
    E_SIDE,
    E_STUN,
    E_SWAP,
    E_VOTE,
    E_WHALE,
    E_XCHG,
    END_CTHULHU,
    END_FAMILY,
    END_HORSEMAN,
    END_RAVEN,
    G_DEATHS_N,
    KN_CHAR,
    KN_HAND,
    KN_SEEN,
    PL_DEALT,
    PL_EVIL_LOST,
    PL_REVEALED,
    PL_STUN_CARD,
)
from balance.games.raven_manor.tables import (
    ALLIGATOR,
    ANGLER,
    AUNT_CAT,
    AUNT_OWL,
    AVOID,
    AXE,
    BOAR,
    BROTHER_BADGER,
    BUNNY,
    CANDLE,
    CATFISH,
    CAVE,
    CRAYFISH,
    CTHULHU,
    D_ABILITY,
    D_EAGLE,
    D_KILL,
    D_SACRIFICE,
    D_VOTE,
    D_WHALE,
    DOC,
    DODGE,
    DOG_FATHER,
    EAGLE,
    EEL,
    EVADE,
    FAMILY,
    FEATHER,
    GRANDFATHER_BISON,
    GRANDMOTHER_SHEEP,
    GROGUS,
    HARPOON,
    HORSEMAN,
    KNIFE,
    LIBRARY,
    LOC0,
    LOC1,
    LUMBEARJACK,
    MAYOR,
    MOTHER_HEN,
    MOUNTAINS,
    PIKE,
    PILLOW,
    RAVEN,
    RIFLE,
    ROD,
    S_CTHULHU,
    S_HORSEMAN,
    S_RAVEN,
    SHARK,
    SISTER_ROE,
    SQUIRREL,
    TREASURE_MAP,
    UNCLE_HORSE,
    VASE,
    WHALE,
    WOLF,
)

from .helpers import TURN, cards, char_name

STARTERS = [
    AUNT_CAT,
    AUNT_OWL,
    BROTHER_BADGER,
    DOG_FATHER,
    GRANDFATHER_BISON,
    GRANDMOTHER_SHEEP,
    MOTHER_HEN,
    SISTER_ROE,
    UNCLE_HORSE,
]


def line_up(ch, seat=1, n=5):
    """``n`` seats: ``ch`` in ``seat``, the Raven in the last seat, the Family elsewhere."""
    out = [AUNT_CAT, AUNT_OWL, BROTHER_BADGER, DOG_FATHER, MOTHER_HEN, SISTER_ROE][: n - 1]
    out.append(RAVEN)
    out[seat] = ch
    return out


# ================================================================ the Raven


def test_raven_possesses_with_feathers_and_cannot_be_possessed(build):
    """Raven (RM-6, RM-22): its Feather possesses; the Headless Horseman's Feather does not
    possess it; it may discard its own Feathers."""
    s = build(
        [RAVEN, AUNT_CAT, HORSEMAN, DOG_FATHER],
        hands={0: [FEATHER, KNIFE], 1: [AXE], 2: [FEATHER, VASE]},
        scripts={0: [FEATHER, KNIFE], 1: [AXE], 2: [FEATHER]},
    )
    s.trade(0, 1)
    assert s.possessed(1) == S_RAVEN
    s.trade(2, 0)
    assert s.possessed(0) == -1 and s.side(0) == S_RAVEN
    assert s.hand(0) == cards(AXE, FEATHER) and s.hand(2) == cards(VASE, KNIFE)
    assert state.can_part(s.st, 0, FEATHER)
    assert s.ev(E_POSSESS) == [(1, S_RAVEN, 0, 0, 0, 0, 0)]
    s.check()


def test_raven_dies_and_the_family_wins(build):
    """Raven (RM-5, RM-10): revealed on death; with no other evil character the game ends."""
    s = build(line_up(AUNT_CAT, 0), hands={0: [KNIFE]})
    s.play(0, KNIFE, 4)
    assert not s.alive(4) and s.pl[4, PL_REVEALED] == 1
    assert s.end() == END_FAMILY
    assert s.pl[4, PL_EVIL_LOST] == 1
    s.check()


# ================================================================ the starters


@pytest.mark.parametrize("ch", STARTERS, ids=[char_name(c) for c in STARTERS])
def test_starter_without_ability_dies_revealed_with_nothing_to_resolve(build, ch):
    """The nine starter characters other than the Raven (RM-5): Family, possessable, and their
    death reveals them and resolves nothing."""
    others = [c for c in STARTERS if c != ch]
    s = build(
        [ch, others[0], RAVEN, others[1]],
        hands={2: [FEATHER, RIFLE], 0: [KNIFE]},
        scripts={2: [FEATHER], 0: [KNIFE]},
    )
    assert s.side(0) == FAMILY
    s.trade(2, 0)
    assert s.possessed(0) == S_RAVEN
    s.play(2, RIFLE, 0)
    assert not s.alive(0) and s.pl[0, PL_REVEALED] == 1
    assert s.ev(E_DEATH) == [(0, ch, D_KILL, 2, TURN, 0, 0)]
    assert s.board[G_DEATHS_N] == 0 and not s.ev(E_ABILITY)
    assert all(s.kn[q, 0, KN_CHAR] == ch for q in range(4))
    s.check()


# ================================================================ the additional characters


def test_angler_photographer_looks_at_a_character(build):
    """Angler Photographer: after death, look at the chosen player's character card."""
    s = build(line_up(ANGLER), hands={0: [KNIFE], 3: [AXE]}, scripts={1: [3, 1]})
    s.play(0, KNIFE, 1)
    assert s.kn[1, 3, KN_CHAR] == DOG_FATHER and s.kn[0, 3, KN_CHAR] == -1
    assert s.ev(E_ABILITY) == [(1, ANGLER, 3, 0, 0, 0, 0)]
    assert s.ev(E_LOOK_CHAR) == [(1, 3, DOG_FATHER, 0, 0, 0, 0)]
    s.check()


def test_angler_photographer_or_discards_a_card_of_the_hand(build):
    """Angler Photographer, RM-26: or look at the hand and have a chosen card (not a Feather)
    discarded."""
    s = build(
        line_up(ANGLER),
        hands={0: [KNIFE], 3: [AXE, FEATHER]},
        scripts={1: [3, 0, AXE]},
    )
    s.play(0, KNIFE, 1)
    assert s.hand(3) == cards(FEATHER)
    assert s.kn[1, 3, KN_SEEN] == TURN + 1
    assert s.ev(E_DISCARD) == [(3, AXE, 2, 0, 0, 0, 0)]
    s.check()


def test_rm14_brother_boar_kills_the_chosen_player_after_death(build):
    """Brother Boar (RM-14: his own death ability resolves, kill included): the chosen player may
    answer with Evade but not with Rod (ENGINE-7: a death ability is no card played)."""
    s = build(
        line_up(BOAR),
        hands={2: [ROD], 3: [EVADE]},
        scripts={1: [3], 2: [ROD], 3: [-1]},
    )
    assert s.kill(0, 1)
    assert not s.alive(3) and s.cause(3) == D_ABILITY
    assert s.ev(E_DEATH)[1] == (3, DOG_FATHER, D_ABILITY, 1, TURN, 0, 0)
    assert s.script_used(2) == 0 and s.hand(2) == cards(ROD)
    s.check(all_used=False)


def test_engine7_rm21_brother_boars_kill_causes_a_second_death_ability(build):
    """Brother Boar, ENGINE-7, RM-21: Boar's kill kills Wolf Brother, whose Rifle (found in the
    deck) kills a third player: death abilities chain, in the order of the deaths."""
    s = build(
        [AUNT_CAT, BOAR, AUNT_OWL, WOLF, RAVEN],
        hands={0: [KNIFE]},
        deck=[CANDLE, RIFLE],
        scripts={1: [3], 3: [2]},
    )
    s.play(0, KNIFE, 1)
    assert [e[:4] for e in s.ev(E_DEATH)] == [
        (1, BOAR, D_KILL, 0),
        (3, WOLF, D_ABILITY, 1),
        (2, AUNT_OWL, D_ABILITY, 3),
    ]
    assert [e[:4] for e in s.ev(E_ABILITY)] == [(1, BOAR, 3, 0), (3, WOLF, 2, RIFLE)]
    assert s.discard() == cards(KNIFE, RIFLE)
    assert s.deck() == [CANDLE]
    assert s.alive(0) and s.alive(4) and s.end() == 0
    s.check()


def test_bunny_barmaid_swaps_places_with_the_chosen_player(build):
    s = build(line_up(BUNNY), hands={0: [KNIFE]}, scripts={1: [3]})
    s.play(0, KNIFE, 1)
    assert s.pos(1) == 3 and s.pos(3) == 1
    assert s.ev(E_SWAP) == [(1, 3, 3, 1, 0, 0, 0)]
    s.check()


def test_bunny_barmaids_swap_can_be_avoided(build):
    s = build(line_up(BUNNY), hands={0: [KNIFE], 3: [AVOID]}, scripts={1: [3], 3: [AVOID]})
    s.play(0, KNIFE, 1)
    assert s.pos(1) == 1 and s.pos(3) == 3
    assert not s.ev(E_SWAP)
    s.check()


def test_rm23_captain_pike_harpoons_any_chosen_player_from_the_discard_pile(build):
    """Captain Pike, RM-23, RM-21: the Harpoon comes from the discard pile (none in the deck) and
    is used on any chosen player whatever the adjacency: kill, then stun (the Harpoon then lies
    in front of the stunned player)."""
    s = build(line_up(PIKE), hands={0: [KNIFE]}, deck=[CANDLE], discard=[HARPOON], scripts={1: [3]})
    s.play(0, KNIFE, 1)
    assert not s.alive(3) and s.cause(3) == D_ABILITY
    assert s.stunned(3) and s.pl[3, PL_STUN_CARD] == HARPOON
    assert (1, HARPOON, 1, 1, 0, 0, 0) in s.ev(E_SEARCH)
    s.check()


def test_rm23_captain_pike_without_a_harpoon_does_nothing(build):
    s = build(line_up(PIKE), hands={0: [KNIFE]}, deck=[CANDLE])
    s.play(0, KNIFE, 1)
    assert s.living() == [0, 2, 3, 4]
    assert s.ev(E_SEARCH) == [(1, HARPOON, 0, 0, 0, 0, 0)]
    assert not s.ev(E_ABILITY)
    s.check()


def test_catfish_bartender_makes_the_chosen_player_reveal_the_hand(build):
    """Catfish Bartender (RM-11): a reveal: every player sees the hand."""
    s = build(line_up(CATFISH), hands={0: [KNIFE], 3: [FEATHER, AXE]}, scripts={1: [3]})
    s.play(0, KNIFE, 1)
    for q in (0, 1, 2, 4):
        assert s.kn[q, 3, KN_HAND + AXE] == 1 and s.kn[q, 3, KN_SEEN] == TURN + 1
    assert s.ev(E_SHOW) == [(3, -1, 2, 0, 0, 0, 0)]
    s.check()


def test_engine9_crayfish_docker_stuns_and_exchanges_hands_the_feather_possesses(build):
    """Crayfish Docker, ENGINE-9, RM-6: the possessed Docker's hand, Feather included, goes to
    the chosen player, who is stunned and now possessed for the Raven; the Docker takes its
    hand."""
    s = build(
        line_up(CRAYFISH),
        hands={0: [KNIFE], 1: [FEATHER, VASE], 3: [AXE, EVADE]},
        possessed={1: 4},
        scripts={1: [3]},
    )
    s.play(0, KNIFE, 1)
    assert s.stunned(3) and s.pl[3, PL_STUN_CARD] == -1
    assert s.hand(3) == cards(FEATHER, VASE) and s.hand(1) == cards(AXE, EVADE)
    assert s.possessed(3) == S_RAVEN
    assert s.ev(E_XCHG) == [(1, 3, -1, -1, 3, 0, 0)]
    assert s.ev(E_STUN) == [(3, 1, -1, 0, 0, 0, 0)]
    assert s.kn[1, 3, KN_HAND + FEATHER] == 1 and s.kn[3, 1, KN_HAND + AXE] == 1
    s.check()


def test_rm7_crayfish_dockers_stunned_target_cannot_avoid_the_exchange(build):
    """Crayfish Docker, RM-7, RM-21: the stun comes first and a stunned player cannot react, so
    the target's Avoid is not offered for the exchange that follows."""
    s = build(
        line_up(CRAYFISH),
        hands={0: [KNIFE], 1: [VASE], 3: [AVOID, AXE]},
        scripts={1: [3], 3: [AVOID]},
    )
    s.play(0, KNIFE, 1)
    assert s.stunned(3)
    assert s.hand(3) == cards(VASE) and s.hand(1) == cards(AVOID, AXE)
    assert s.script_used(3) == 0 and not s.ev(E_REACT)
    s.check(all_used=False)


def test_rm21_crayfish_docker_each_effect_answered_on_its_own_dodge_then_avoid(build):
    """Crayfish Docker, RM-21, RM-7: the stun and the exchange are answered one after the other:
    a Dodge, then an Avoid, and nothing happens."""
    s = build(
        line_up(CRAYFISH),
        hands={0: [KNIFE], 1: [VASE], 3: [DODGE, AVOID, AXE]},
        scripts={1: [3], 3: [DODGE, AVOID]},
    )
    s.play(0, KNIFE, 1)
    assert not s.stunned(3)
    assert s.hand(3) == cards(AXE) and s.hand(1) == cards(VASE)
    assert [e[:4] for e in s.ev(E_REACT)] == [(3, DODGE, 0, -1), (3, AVOID, 0, -1)]
    s.check()


def test_rm22_raven_and_cthulhu_the_ravens_death_does_not_end_the_game(build):
    """Cthulhu Gentleman, RM-22, ENGINE-3: with two evil characters the Raven's death does not
    end the game; its possessed rejoin the Family; the Raven keeps its side and loses; the
    Family then kills Cthulhu and wins, the freed player with it."""
    s = build(
        [RAVEN, CTHULHU, AUNT_CAT, DOG_FATHER, MOTHER_HEN],
        hands={2: [FEATHER]},
        possessed={2: 0},
    )
    assert s.kill(3, 0)
    assert s.end() == 0
    assert s.possessed(2) == -1 and s.side(2) == FAMILY
    assert s.ev(E_SIDE) == [(2, FAMILY, 0, 0, 0, 0, 0)]
    assert s.side(0) == S_RAVEN and s.pl[0, PL_EVIL_LOST] == 1
    assert s.kill(3, 1)
    assert s.end() == END_FAMILY
    assert [s.outcome(p)[1] for p in range(5)] == [2, 2, 1, 1, 1]
    s.check()


def test_rm22_cthulhu_wins_as_the_last_one_standing(build):
    """Cthulhu Gentleman, RM-22 (c): he kills the Raven and is the only living player."""
    s = build([CTHULHU, RAVEN, AUNT_CAT], dead=(2,))
    assert s.check_end() == 0
    assert s.kill(0, 1)
    assert s.end() == END_CTHULHU
    assert [s.outcome(p) for p in range(3)] == [(1, 1), (0, 2), (0, 2)]
    assert s.side(0) == S_CTHULHU
    s.check()


def test_rm22_a_living_cthulhu_keeps_the_raven_from_winning(build):
    """Cthulhu Gentleman, RM-22: immune; every other player possessed, the game goes on."""
    s = build(
        [RAVEN, CTHULHU, AUNT_CAT],
        hands={0: [FEATHER], 1: [KNIFE], 2: [FEATHER]},
        possessed={2: 0},
        scripts={0: [FEATHER], 1: [KNIFE]},
    )
    s.trade(0, 1)
    assert s.possessed(1) == -1 and s.end() == 0
    s.check()


def test_doc_kills_the_chosen_player_after_death(build):
    """Doc (RM-14, RM-22): after death, kill the chosen player; he is immune and may discard
    Feathers."""
    s = build(line_up(DOC), hands={0: [KNIFE], 1: [FEATHER]}, scripts={1: [4]})
    s.play(0, KNIFE, 1)
    assert not s.alive(4) and s.cause(4) == D_ABILITY
    assert s.end() == END_FAMILY
    s.check()


def test_rm5_rm21_doc_killed_last_still_resolves_his_kill_on_the_raven(build):
    """Doc, RM-5, RM-21, RM-22: the Raven kills the last free player, the Doc; his death ability
    (kill the chosen player) resolves as part of his death: he kills the Raven, and the Family
    wins."""
    s = build(
        [RAVEN, DOC, AUNT_CAT], hands={0: [KNIFE], 2: [FEATHER]}, possessed={2: 0}, scripts={1: [0]}
    )
    s.play(0, KNIFE, 1)
    assert not s.alive(1)
    assert not s.alive(0) and s.cause(0) == D_ABILITY
    assert s.end() == END_FAMILY


def test_doc_may_discard_feathers(build):
    """Doc (RM-22): a Feather received from the Raven possesses nothing and can be discarded."""
    s = build(
        [RAVEN, DOC, AUNT_CAT],
        hands={0: [FEATHER], 1: [KNIFE, AXE, VASE, CANDLE, DODGE]},
        scripts={0: [FEATHER], 1: [KNIFE, FEATHER]},
    )
    s.trade(0, 1)
    assert s.possessed(1) == -1
    engine.refill(s.tb, s.st, 1, s.pick)
    assert s.hand(1) == cards(AXE, VASE, CANDLE, DODGE)
    assert s.discard() == cards(FEATHER)
    s.check()


def test_eel_fella_every_player_chooses_a_stun_or_to_discard_the_hand(build):
    """Eel Fella, RM-18: each other player, clockwise from him, chooses: be stunned, or discard
    the hand (a Feather stays, rulebook FAQ); dead players choose too."""
    s = build(
        line_up(EEL),
        hands={0: [KNIFE, VASE], 2: [AXE, FEATHER, EVADE], 3: [DODGE], 4: [CANDLE]},
        possessed={2: 4},
        dead=(3,),
        scripts={2: [0], 3: [1], 4: [1], 0: [0]},
    )
    s.play(0, KNIFE, 1)
    assert [e[:2] for e in s.ev(E_EEL)] == [(2, 1), (3, 0), (4, 0), (0, 1)]
    assert s.hand(2) == cards(FEATHER)
    assert s.hand(0) == cards()
    assert s.stunned(3) and s.stunned(4) and not s.stunned(0) and not s.stunned(2)
    assert s.hand(3) == cards(DODGE) and s.hand(4) == cards(CANDLE)
    assert s.discard() == cards(KNIFE, VASE, AXE, EVADE)
    s.check()


def test_grogus_plays_a_card_from_the_discard_pile_as_if_alive(build):
    """Groguś (rulebook FAQ): after death, a card from the discard pile played as if he were
    alive: a Rifle kills; no Rod answers it (ENGINE-7)."""
    s = build(
        line_up(GROGUS),
        hands={2: [ROD]},
        discard=[RIFLE, PILLOW, EVADE],
        scripts={1: [K_FREE, RIFLE, 3, 0], 2: [ROD]},
    )
    assert s.kill(0, 1)
    assert not s.alive(3) and s.ev(E_DEATH)[1][:4] == (3, DOG_FATHER, D_KILL, 1)
    assert s.ev(E_ABILITY) == [(1, GROGUS, 3, RIFLE, 0, 0, 0)]
    assert s.discard() == cards(RIFLE, PILLOW, EVADE)
    assert s.script_used(2) == 0
    s.check(all_used=False)


def test_grogus_playing_a_room_from_the_discard_puts_it_into_play(build):
    """Groguś: a Room played from the discard pile enters play and is used at once."""
    s = build(
        line_up(GROGUS),
        hands={0: [KNIFE], 3: [AXE]},
        discard=[LIBRARY],
        scripts={1: [K_FREE, LIBRARY, 3, 0]},
    )
    s.play(0, KNIFE, 1)
    assert s.kn[1, 3, KN_HAND + AXE] == 1
    assert s.in_play(LIBRARY) == 1
    s.check()


def test_rm27_guardian_eagle_reveals_himself_to_play_a_location_and_counts_as_dead(build):
    """Guardian Eagle, RM-27, RM-14: while alive, as his action, he reveals himself and searches
    the deck for a Location (the Mountains) and plays it; from then on he counts as dead, with no
    death ability: the dead may not kill, so the Mountains enters play unused."""
    s = build(line_up(EAGLE), deck=[CANDLE, MOUNTAINS])
    assert {(k, o) for k, c, t, o in s.legal(1) if k == K_EAGLE} == {
        (K_EAGLE, r) for r in range(LOC0, LOC1)
    }
    s.act(1, K_EAGLE, -1, -1, MOUNTAINS)
    assert not s.alive(1) and s.cause(1) == D_EAGLE and s.pl[1, PL_REVEALED] == 1
    assert s.in_play(MOUNTAINS) == 1
    assert s.living() == [0, 2, 3, 4]
    assert s.board[G_DEATHS_N] == 0
    assert not any(k == K_EAGLE for k, c, t, o in s.legal(1))
    assert s.ev(E_INPLAY) == [(1, MOUNTAINS, 1, 0, 0, 0, 0)]
    s.check()


def test_rm27_guardian_eagles_cave_enters_play(build):
    """Guardian Eagle, RM-27, ENGINE-10: the Cave he plays enters play and is used at once."""
    s = build(
        line_up(EAGLE), hands={3: [AXE]}, deck=[CANDLE, CAVE], scripts={1: [K_FREE, CAVE, 3, 0]}
    )
    s.act(1, K_EAGLE, -1, -1, CAVE)
    assert s.hand(1) == cards(AXE)
    assert s.in_play(CAVE) == 1
    s.check()


def test_headless_horseman_possesses_for_his_own_side(build):
    """Headless Horseman (RM-6, RM-22): his Feather possesses for the Horseman's side; he is
    immune to the Raven's."""
    s = build(
        [RAVEN, HORSEMAN, AUNT_CAT, DOG_FATHER],
        hands={1: [FEATHER, FEATHER], 2: [KNIFE], 0: [FEATHER]},
        scripts={1: [FEATHER, KNIFE], 2: [KNIFE], 0: [FEATHER]},
    )
    s.trade(1, 2)
    assert s.possessed(2) == S_HORSEMAN and s.side(2) == S_HORSEMAN
    assert s.ev(E_POSSESS) == [(2, S_HORSEMAN, 1, 0, 0, 0, 0)]
    assert s.kn[2, 1, KN_CHAR] == HORSEMAN
    s.trade(0, 1)
    assert s.possessed(1) == -1 and s.side(1) == S_HORSEMAN
    s.check()


def test_rm6_rm26_the_horseman_discards_feathers_he_draws(build):
    """Headless Horseman, RM-6, RM-26, RM-3: he uses the Feathers he receives; one he draws is
    discarded publicly like anyone's but the Raven's (he is not asked to bluff)."""
    s = build(
        [RAVEN, HORSEMAN, AUNT_CAT],
        hands={1: [CANDLE, CANDLE, CANDLE]},
        deck=[FEATHER, KNIFE],
        scripts={1: [0]},
    )
    engine.refill(s.tb, s.st, 1, s.pick)
    assert s.hand(1) == cards(CANDLE, CANDLE, CANDLE, KNIFE)
    assert s.discard() == cards(FEATHER)
    assert s.script_used(1) == 0
    s.check(all_used=False)


def test_rm22_horseman_and_raven_the_possessed_of_a_dead_master_serve_the_other(build):
    """Headless Horseman and Raven (rulebook FAQ, RM-22): the Raven dies: its possessed now serve
    the Horseman and the game goes on; once the last free player dies, the Horseman's side wins,
    the player the Raven had possessed with it."""
    s = build(
        [RAVEN, HORSEMAN, AUNT_CAT, DOG_FATHER, MOTHER_HEN],
        hands={2: [FEATHER], 3: [FEATHER]},
        possessed={2: 0, 3: 1},
    )
    assert s.kill(4, 0)
    assert s.end() == 0
    assert s.possessed(2) == S_HORSEMAN and s.side(2) == S_HORSEMAN
    assert s.ev(E_SIDE) == [(2, S_HORSEMAN, 0, 0, 0, 0, 0)]
    assert s.kill(1, 4)
    assert s.end() == END_HORSEMAN
    assert [s.outcome(p) for p in range(5)] == [(0, 2), (1, 1), (1, 1), (1, 1), (0, 2)]
    s.check()


def test_engine9_with_the_raven_dead_a_random_feather_possesses_for_the_horseman(build):
    """Headless Horseman, ENGINE-9: a Feather taken at random (Cave) possesses its new holder for
    the Horseman once the Raven is dead."""
    s = build(
        [RAVEN, HORSEMAN, AUNT_CAT, DOG_FATHER, MOTHER_HEN],
        hands={2: [FEATHER]},
        in_play=(CAVE,),
        dead=(0,),
    )
    s.use(3, CAVE, 2)
    assert s.hand(3) == cards(FEATHER)
    assert s.possessed(3) == S_HORSEMAN and s.side(3) == S_HORSEMAN
    s.check()


def test_rm22_horseman_and_raven_the_horsemans_possessed_serve_the_raven_after_him(build):
    """Headless Horseman and Raven (rulebook FAQ, RM-22), the other way round: the Horseman dies,
    his possessed serve the Raven, and the Raven's side wins once the rest are dead."""
    s = build(
        [RAVEN, HORSEMAN, AUNT_CAT, DOG_FATHER],
        hands={2: [FEATHER]},
        possessed={2: 1},
    )
    assert s.kill(3, 1)
    assert s.end() == 0
    assert s.possessed(2) == S_RAVEN and s.side(2) == S_RAVEN
    assert s.ev(E_SIDE) == [(2, S_RAVEN, 0, 0, 0, 0, 0)]
    assert s.kill(0, 3)
    assert s.end() == END_RAVEN
    assert [s.outcome(p) for p in range(4)] == [(1, 1), (0, 2), (1, 1), (0, 2)]
    s.check()


def test_rm15_engine13_lady_whale_swaps_with_a_living_player_she_lives_they_are_dead(build):
    """Lady Whale, RM-15, ENGINE-13 (rulebook FAQ): dead, she exchanges character cards with the
    living Raven: she lives on as the Raven, the former Raven is the dead Lady Whale; roles
    follow the cards: the Raven's possessed now serve her, and the game goes on until the new
    Raven dies."""
    s = build(
        line_up(WHALE),
        hands={0: [KNIFE], 2: [FEATHER]},
        possessed={2: 4},
        scripts={1: [4]},
    )
    s.play(0, KNIFE, 1)
    assert s.alive(1) and s.char(1) == RAVEN and s.side(1) == S_RAVEN
    assert not s.alive(4) and s.char(4) == WHALE and s.cause(4) == D_WHALE
    assert s.side(4) == FAMILY and s.pl[4, PL_DEALT] == RAVEN
    assert s.pl[1, PL_REVEALED] == 0 and s.pl[4, PL_REVEALED] == 1
    assert s.ev(E_WHALE) == [(1, 4, RAVEN, 0, 0, 0, 0)]
    assert s.kn[1, 1, KN_CHAR] == RAVEN and s.kn[4, 1, KN_CHAR] == RAVEN
    assert s.kn[1, 4, KN_CHAR] == WHALE and s.kn[0, 4, KN_CHAR] == WHALE
    assert s.kn[0, 1, KN_CHAR] == -1 and s.kn[3, 1, KN_CHAR] == -1
    assert s.end() == 0
    assert s.side(2) == S_RAVEN
    assert s.kill(0, 1)
    assert s.end() == END_FAMILY
    assert s.outcome(4) == (0, 1)  # the dead Lady Whale, once dealt the Raven, wins with the Family
    s.check()


def test_rm15_lady_whale_swapping_with_a_dead_player_stays_dead(build):
    """Lady Whale, RM-15: with a dead player, the cards swap and both stay dead."""
    s = build(line_up(WHALE), hands={0: [KNIFE]}, dead=(2,), scripts={1: [2]})
    s.play(0, KNIFE, 1)
    assert not s.alive(1) and not s.alive(2)
    assert s.char(1) == BROTHER_BADGER and s.char(2) == WHALE
    s.check()


def test_rm23_lumbearjack_axes_any_chosen_player(build):
    """Lumbearjack, RM-23: the Axe from the deck, used on a player who is not adjacent."""
    s = build(line_up(LUMBEARJACK), hands={0: [KNIFE]}, deck=[AXE, CANDLE], scripts={1: [3]})
    s.play(0, KNIFE, 1)
    assert not s.alive(3) and s.cause(3) == D_ABILITY
    assert s.ev(E_ABILITY) == [(1, LUMBEARJACK, 3, AXE, 0, 0, 0)]
    assert s.discard() == cards(KNIFE, AXE) and s.deck() == [CANDLE]
    s.check()


def test_lumbearjacks_axe_can_be_evaded(build):
    s = build(
        line_up(LUMBEARJACK),
        hands={0: [KNIFE], 3: [EVADE]},
        deck=[AXE],
        scripts={1: [3], 3: [EVADE]},
    )
    s.play(0, KNIFE, 1)
    assert s.alive(3)
    assert s.ev(E_REACT) == [(3, EVADE, 0, -1, 1, 0, 0)]
    s.check()


def test_rm24_mayor_groundhog_vote_tie_the_mayors_vote_prevails(build):
    """Mayor Groundhog, RM-24, RM-18: every player, living or dead, votes; two kill (the Mayor,
    seat 2), two stun: a tie, and the Mayor's vote prevails: the chosen player dies."""
    s = build(
        [AUNT_CAT, MAYOR, AUNT_OWL, RAVEN],
        hands={0: [KNIFE]},
        scripts={1: [3, 1], 0: [0], 2: [1], 3: [0]},
    )
    s.play(0, KNIFE, 1)
    assert s.ev(E_VOTE) == [(1, 3, 2, 2, 0, 0, 0)]
    assert not s.alive(3) and s.cause(3) == D_VOTE
    assert s.end() == END_FAMILY
    s.check()


def test_rm24_mayor_groundhog_vote_tie_for_a_stun(build):
    s = build(
        [AUNT_CAT, MAYOR, AUNT_OWL, RAVEN],
        hands={0: [KNIFE]},
        scripts={1: [3, 0], 0: [1], 2: [0], 3: [1]},
    )
    s.play(0, KNIFE, 1)
    assert s.ev(E_VOTE) == [(1, 3, 2, 2, 1, 0, 0)]
    assert s.alive(3) and s.stunned(3)
    s.check()


def test_rm24_mayor_groundhog_majority_beats_the_mayor(build):
    s = build(
        [AUNT_CAT, MAYOR, AUNT_OWL, RAVEN],
        hands={0: [KNIFE]},
        scripts={1: [3, 1], 0: [0], 2: [0], 3: [0]},
    )
    s.play(0, KNIFE, 1)
    assert s.ev(E_VOTE) == [(1, 3, 1, 3, 1, 0, 0)]
    assert s.alive(3) and s.stunned(3)
    s.check()


def test_seer_squirrel_takes_the_rod_then_looks_at_a_character(build):
    """Seer Squirrel (RM-23): the Rod from the discard pile into his hand, then a look at the
    chosen player's character."""
    s = build(line_up(SQUIRREL), hands={0: [KNIFE]}, discard=[ROD], scripts={1: [4]})
    s.play(0, KNIFE, 1)
    assert s.hand(1) == cards(ROD)
    assert s.kn[1, 4, KN_CHAR] == RAVEN
    assert (1, ROD, 1, 1, 0, 0, 0) in s.ev(E_SEARCH)
    s.check()


def test_rm21_shark_bouncer_dies_in_anothers_place(build):
    """Shark Bouncer, RM-21, RM-18: about to die, the target is saved by the Shark, who dies
    instead (his choice)."""
    s = build(line_up(SHARK, 3), hands={0: [KNIFE]}, scripts={3: [1]})
    s.play(0, KNIFE, 1)
    assert s.alive(1)
    assert not s.alive(3) and s.cause(3) == D_SACRIFICE
    assert s.ev(E_SACRIFICE) == [(3, 1, 0, 0, 0, 0, 0)]
    assert s.ev(E_DEATH) == [(3, SHARK, D_SACRIFICE, 0, TURN, 0, 0)]
    s.check()


def test_shark_bouncer_may_let_the_target_die(build):
    s = build(line_up(SHARK, 3), hands={0: [KNIFE]}, scripts={3: [0]})
    s.play(0, KNIFE, 1)
    assert not s.alive(1) and s.alive(3)
    s.check()


def test_shark_bouncer_is_not_asked_for_an_evaded_kill_nor_his_own(build):
    s = build(
        line_up(SHARK, 3), hands={0: [RIFLE, RIFLE], 1: [EVADE]}, scripts={1: [EVADE], 3: [1]}
    )
    s.play(0, RIFLE, 1)
    s.play(0, RIFLE, 3)
    assert s.alive(1) and not s.alive(3) and s.cause(3) == D_KILL
    assert s.script_used(3) == 0
    s.check(all_used=False)


def test_uncle_alligator_plays_the_treasure_map(build):
    """Uncle Alligator: the Treasure Map from the deck, played: he names the Rifle, found in the
    discard pile."""
    s = build(
        line_up(ALLIGATOR),
        hands={0: [KNIFE]},
        deck=[CANDLE, TREASURE_MAP],
        discard=[RIFLE],
        scripts={1: [K_FREE, TREASURE_MAP, -1, RIFLE]},
    )
    s.play(0, KNIFE, 1)
    assert s.hand(1) == cards(RIFLE)
    assert s.discard() == cards(KNIFE, TREASURE_MAP)
    assert s.deck() == [CANDLE]
    s.check()


def test_rm23_wolf_brother_rifles_any_chosen_player(build):
    """Wolf Brother, RM-23: the Rifle from the deck on the chosen player; then discarded."""
    s = build(line_up(WOLF), hands={0: [KNIFE]}, deck=[RIFLE], scripts={1: [4]})
    s.play(0, KNIFE, 1)
    assert not s.alive(4) and s.cause(4) == D_ABILITY
    assert s.end() == END_FAMILY
    assert s.discard() == cards(KNIFE, RIFLE)
    s.check()
