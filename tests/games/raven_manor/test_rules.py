"""Scripted Raven Manor rule scenarios with known outcomes: the turn (RM-4, RM-29, ENGINE-1,
ENGINE-12, ENGINE-14), the opening and the deal (RM-1 to RM-3, RM-30), response windows (RM-7,
RM-19, RM-20, ENGINE-4 to ENGINE-6), kills (RM-5, RM-14, RM-21, RM-23), stuns (ENGINE-11),
exchanges and possession (RM-6, RM-13, RM-16), knowledge (RM-11), victory (RM-10, RM-22,
ENGINE-2, ENGINE-3) and seats (RM-12).

Each test builds a position by hand (``build``: helpers.scene), plays one action, one turn or one
rule of the engine, and asserts who is dead and why, sides, hands, the discard pile, seats, the
end and the event log; ``s.check()`` then proves every scripted decision was legal and used and
that no card was lost. Seats sit 0, 1, 2, ... clockwise: the next player after ``p`` is
``p + 1``.
"""

from __future__ import annotations

import pytest

from balance.games.raven_manor import engine, state
from balance.games.raven_manor.policies import K_CYCLE, K_PASS, K_PLAY
from balance.games.raven_manor.state import (
    E_CANCEL,
    E_DEATH,
    E_DRAW,
    E_EEL,
    E_FEATHER,
    E_FREED,
    E_KILL_SAVED,
    E_OPEN,
    E_POSSESS,
    E_REACT,
    E_SHOW,
    E_SKIP,
    E_STUN,
    E_SWAP,
    E_TURN,
    E_XCHG,
    END_CAP,
    END_FAMILY,
    END_HORSEMAN,
    END_RAVEN,
    G_DECK_N,
    G_DISC_N,
    G_END,
    G_FIRST,
    G_NEXT,
    G_OVER,
    G_TURN,
    KN_CHAR,
    KN_FEATHER,
    KN_HAND,
    KN_SEEN,
    PL_FEATHER_DISC,
    PL_KILLS,
    PL_POSS_TURN,
    PL_REVEALED,
    PL_STUN_CARD,
    PL_TELE,
)
from balance.games.raven_manor.tables import (
    AUNT_CAT,
    AUNT_OWL,
    AXE,
    BOAR,
    BOTTLE,
    BROTHER_BADGER,
    CANDLE,
    CAVE,
    CTHULHU,
    D_ABILITY,
    D_KILL,
    D_MOUNTAINS,
    DOC,
    DODGE,
    DOG_FATHER,
    EEL,
    EVADE,
    EXCHANGE,
    FAMILY,
    FEATHER,
    GET_OVER_HERE,
    HAYMAKER,
    HORSEMAN,
    KNIFE,
    LIBRARY,
    LIFEBUOY,
    MOTHER_HEN,
    MOUNTAINS,
    NC,
    P_COUNT,
    P_DECK_N,
    RAT_TREACHERY,
    RAVEN,
    RIFLE,
    ROD,
    S_RAVEN,
    TE_DIED,
    VASE,
)

from .helpers import BASE, TURN, cards, compile_for, play_

# Four Family seats and the Raven in seat 4 (with no evil character alive, any death would end
# the game at once: RM-22 (a)).
FIVE = [AUNT_CAT, AUNT_OWL, BROTHER_BADGER, DOG_FATHER, RAVEN]
THREE = [AUNT_CAT, AUNT_OWL, RAVEN]
RAVEN5 = [RAVEN, AUNT_OWL, BROTHER_BADGER, DOG_FATHER, MOTHER_HEN]  # the Raven in seat 0


# ---------------------------------------------------------------- the turn (RM-4)


def test_rm4_turn_is_one_action_then_the_exchange_with_the_next_player_then_draw_to_four(build):
    """RM-4: (1) one action (a Vase on seat 2), (2) the exchange with the next player (seat 1),
    (3) draw to exactly 4; the stunning Vase lies in front of seat 2."""
    s = build(
        FIVE,
        hands={0: [VASE, EXCHANGE, GET_OVER_HERE, HAYMAKER], 1: [BOTTLE, CANDLE, CANDLE, CANDLE]},
        deck=[KNIFE, AXE],
        scripts={0: [*play_(VASE, 2), EXCHANGE], 1: [BOTTLE]},
    )
    s.turn(0)
    assert s.stunned(2) and s.pl[2, PL_STUN_CARD] == VASE
    assert s.hand(0) == cards(GET_OVER_HERE, HAYMAKER, BOTTLE, KNIFE)
    assert s.hand(1) == cards(EXCHANGE, CANDLE, CANDLE, CANDLE)
    assert s.deck() == [AXE]
    assert s.ev(E_XCHG) == [(0, 1, EXCHANGE, BOTTLE, 0, 0, 0)]
    assert s.ev(E_DRAW) == [(0, KNIFE, 0, 0, 0, 0, 0)]
    assert s.codes() == [E_TURN, state.E_ACTION, E_STUN, E_XCHG, E_DRAW]
    s.check()


def test_rm4_end_of_turn_draw_or_discard_to_exactly_four(build):
    """RM-4 (3): a hand of six after the turn's exchange discards two (the player's choice)."""
    s = build(
        FIVE,
        hands={0: [VASE, KNIFE, KNIFE, AXE, CANDLE, CANDLE, HAYMAKER], 1: [BOTTLE]},
        scripts={0: [*play_(VASE, 3), HAYMAKER, CANDLE, CANDLE], 1: [BOTTLE]},
    )
    s.turn(0)
    assert s.hand(0) == cards(KNIFE, KNIFE, AXE, BOTTLE)
    assert s.discard() == cards(CANDLE, CANDLE)  # the Vase lies in front of seat 3
    assert [e[:3] for e in s.ev(state.E_DISCARD)] == [(0, CANDLE, 0), (0, CANDLE, 0)]
    s.check()


def test_rm4_rm29_end_exchange_skips_stunned_players(build):
    """RM-4 (2), RM-29: the partner is the next player in turn order who is not stunned (a dead
    one counts: seat 2 is dead and still exchanges)."""
    s = build(
        FIVE,
        hands={0: [CANDLE, KNIFE], 1: [AXE], 2: [BOTTLE]},
        stunned={1: HAYMAKER},
        dead=(2,),
        scripts={0: [KNIFE], 2: [BOTTLE]},
    )
    engine.end_exchange(s.tb, s.st, 0)
    assert s.ev(E_XCHG) == [(0, 2, KNIFE, BOTTLE, 0, 0, 0)]
    assert s.hand(1) == cards(AXE)
    assert s.hand(2) == cards(KNIFE)
    s.check()


def test_engine1_stunned_player_skips_the_whole_turn_then_discards_the_stunning_card(build):
    """ENGINE-1, RM-4: no action, no exchange, no draw; the stun ends and its Haymaker goes to
    the discard pile."""
    s = build(FIVE, hands={0: [KNIFE, CANDLE], 1: [AXE]}, deck=[VASE, VASE], stunned={0: HAYMAKER})
    s.turn(0)
    assert not s.stunned(0) and s.pl[0, PL_STUN_CARD] == -1
    assert s.hand(0) == cards(KNIFE, CANDLE)
    assert s.hand(1) == cards(AXE)
    assert s.deck() == [VASE, VASE]
    assert s.discard() == cards(HAYMAKER)
    assert s.codes() == [E_TURN, E_SKIP]
    assert s.ev(E_SKIP) == [(0, 0, 0, 0, 0, 0, 0)]
    s.check()


def test_rm29_pass_only_with_no_other_legal_action_and_it_shows_the_hand(build):
    """RM-29: one card, a reaction: only passing is legal, and passing shows the hand to the next
    player; two cards can always be discarded to draw one."""
    s = build(FIVE, hands={0: [EVADE], 1: [EVADE, DODGE]})
    assert s.legal(0) == {(K_PASS, -1, -1, 0)}
    assert s.legal(1) == {(K_CYCLE, -1, -1, 0)}
    s.pass_(0)
    assert s.kn[1, 0, KN_SEEN] == TURN + 1 and s.kn[1, 0, KN_HAND + EVADE] == 1
    assert s.kn[2, 0, KN_SEEN] == 0
    assert s.ev(E_SHOW) == [(0, 1, 1, 0, 0, 0, 0)]
    s.check()


def test_rm4_discard_two_to_draw_one(build):
    """RM-4 (1): the action "discard 2 cards to draw a card"."""
    s = build(FIVE, hands={0: [CANDLE, VASE, KNIFE]}, deck=[RIFLE], scripts={0: [CANDLE, VASE]})
    s.cycle(0)
    assert s.hand(0) == cards(KNIFE, RIFLE)
    assert s.discard() == cards(CANDLE, VASE)
    assert [e[:3] for e in s.ev(state.E_DISCARD)] == [(0, CANDLE, 1), (0, VASE, 1)]
    s.check()


def test_rm29_exchange_with_an_empty_handed_partner_shows_the_hand_instead(build):
    """RM-29: the next player has no card: the active player shows its hand to it."""
    s = build(FIVE, hands={0: [KNIFE, CANDLE]})
    engine.end_exchange(s.tb, s.st, 0)
    assert not s.ev(E_XCHG)
    assert s.ev(E_SHOW) == [(0, 1, 2, 0, 0, 0, 0)]
    assert s.kn[1, 0, KN_HAND + KNIFE] == 1
    assert s.hand(0) == cards(KNIFE, CANDLE)
    s.check()


def test_rm29_no_exchange_when_every_other_player_is_stunned(build):
    """RM-29: with no partner there is no exchange."""
    s = build(THREE, hands={0: [KNIFE], 1: [AXE], 2: [RIFLE]}, stunned={1: VASE, 2: VASE})
    engine.end_exchange(s.tb, s.st, 0)
    assert not s.ev(E_XCHG) and not s.ev(E_SHOW)
    assert s.hand(0) == cards(KNIFE)
    s.check()


def test_engine12_a_possessed_player_holding_only_feathers_cannot_exchange(build):
    """ENGINE-12, RM-6: a possessed player's Feathers are not cards it may give: the Exchange
    card finds nothing to take from it, so it shows its hand; the end-of-turn exchange shows the
    active player's hand instead (RM-29)."""
    s = build(
        RAVEN5,
        hands={0: [CANDLE], 1: [FEATHER], 2: [EXCHANGE, KNIFE]},
        possessed={1: 0},
    )
    s.play(2, EXCHANGE, 1)
    assert s.ev(E_SHOW) == [(1, 2, 1, 0, 0, 0, 0)]
    assert s.kn[2, 1, KN_FEATHER] == TURN + 1
    assert s.hand(1) == cards(FEATHER) and s.hand(2) == cards(KNIFE)
    engine.end_exchange(s.tb, s.st, 0)
    assert s.ev(E_SHOW)[1] == (0, 1, 1, 0, 0, 0, 0)
    assert not s.ev(E_XCHG)
    s.check()


def test_engine14_hand_stays_short_with_the_deck_and_the_discard_pile_empty(build):
    """ENGINE-14, RM-4: no card to draw anywhere: the hand stays at one."""
    s = build(FIVE, hands={0: [CANDLE]})
    engine.refill(s.tb, s.st, 0, s.pick)
    assert s.hand(0) == cards(CANDLE)
    s.check()


def test_engine14_possessed_player_keeps_every_feather_above_four(build):
    """ENGINE-14, RM-6: a possessed player discards down to 4 but cannot discard Feathers."""
    s = build(RAVEN5, hands={1: [FEATHER] * 5 + [KNIFE]}, possessed={1: 0})
    engine.refill(s.tb, s.st, 1, s.pick)
    assert s.hand(1) == cards(*[FEATHER] * 5)
    assert s.discard() == cards(KNIFE)
    s.check()


def test_rm4_draw_reshuffles_the_discard_pile_when_the_deck_is_empty(build):
    """Rulebook, Turn Order: an empty deck is replaced by the shuffled discard pile."""
    s = build(FIVE, hands={0: [CANDLE, CANDLE, CANDLE]}, discard=[KNIFE])
    engine.refill(s.tb, s.st, 0, s.pick)
    assert s.hand(0) == cards(CANDLE, CANDLE, CANDLE, KNIFE)
    assert s.board[G_DISC_N] == 0 and s.board[G_DECK_N] == 0
    assert s.board[state.G_GEN] == 1
    s.check()


# ---------------------------------------------------------------- the opening and the deal


def test_rm1_starter_deck_holds_69_cards_with_nine_feathers():
    """RM-1: 69 cards, "Father's Study 9x / Feather" read as one Father's Study and 9 Feathers;
    a dealt game holds every one of them."""
    from balance import games
    from balance.config import load_config
    from balance.games.raven_manor.schema import CARD_NAMES, STARTER_DECK

    c = games.get("raven_manor").compile(load_config(BASE))
    assert c.tb.params[P_DECK_N] == 69
    assert c.tb.params[P_COUNT + FEATHER] == 9
    assert c.tb.params[P_COUNT + CARD_NAMES.index("fathers_study")] == 1
    st = state.alloc_state(c.tb, 0)
    pick = state.alloc_work(c.tb).pick
    engine.setup(c.tb, st, 3, 0, pick)
    counts = state.card_counts(st)
    assert {CARD_NAMES[i]: int(counts[i]) for i in range(NC) if counts[i]} == STARTER_DECK


def test_rm3_non_raven_redraws_feathers_until_none_the_raven_may_keep_them(build):
    """RM-3: deal 4 from the first player on; a non-Raven discards every Feather and draws again
    until none is left (seat 1 draws a Feather again, then an Axe and a Rifle); the Raven keeps
    its Feather (its choice, RM-18); the discards go back into the deck."""
    s = build(
        [RAVEN, AUNT_CAT, AUNT_OWL],
        deck=[
            *(FEATHER, KNIFE, CANDLE, VASE),
            *(FEATHER, FEATHER, CANDLE, VASE),
            *(KNIFE, CANDLE, VASE, HAYMAKER),
            *(FEATHER, AXE, RIFLE, BOTTLE, BOTTLE),
        ],
        scripts={0: [0, 0], 1: [0], 2: [0]},  # the Raven keeps its Feather; nobody mulligans
    )
    s._begin()
    s.board[G_FIRST] = 0
    engine.opening(s.tb, s.st, s.pick)
    assert s.hand(0) == cards(FEATHER, KNIFE, CANDLE, VASE)
    assert s.hand(1) == cards(CANDLE, VASE, AXE, RIFLE)
    assert s.hand(2) == cards(KNIFE, CANDLE, VASE, HAYMAKER)
    assert s.pl[1, PL_FEATHER_DISC] == 3
    assert [e[:3] for e in s.ev(E_OPEN)] == [(0, 0, 0), (1, 3, 0), (2, 0, 0)]
    assert s.board[G_DISC_N] == 0
    assert sorted(s.deck()) == sorted([FEATHER, FEATHER, FEATHER, BOTTLE, BOTTLE])
    s.check()


def test_rm3_rm18_a_mulligan_draws_a_new_hand_once(build):
    """RM-3, RM-18: a player may discard the opening hand once and draw 4 new cards (seat 1's
    choice); it is asked once only (mulligans: 1)."""
    s = build(
        [AUNT_CAT, AUNT_OWL, RAVEN],
        deck=[
            *(KNIFE, KNIFE, CANDLE, VASE),
            *(CANDLE, CANDLE, CANDLE, CANDLE),
            *(AXE, BOTTLE, VASE, VASE),
            *(RIFLE, EVADE, DODGE, HAYMAKER),
        ],
        scripts={0: [0], 1: [1], 2: [0]},
    )
    s._begin()
    s.board[G_FIRST] = 0
    engine.opening(s.tb, s.st, s.pick)
    assert s.hand(1) == cards(RIFLE, EVADE, DODGE, HAYMAKER)
    assert s.hand(0) == cards(KNIFE, KNIFE, CANDLE, VASE)
    assert [e[:3] for e in s.ev(E_OPEN)] == [(0, 0, 0), (1, 0, 1), (2, 0, 0)]
    assert sorted(s.deck()) == [CANDLE] * 4
    s.check()


@pytest.mark.parametrize("players", [2, 3, 5, 8, 12])
def test_rm2_rm30_every_player_count_deals_distinct_characters_with_the_raven(manor, players):
    """RM-2, RM-30, RM-3: 2 to 12 players get one character each, all different, the Raven among
    them; four cards each, no Feather in a non-Raven's hand, the discards shuffled back, every
    card of the config somewhere; seats in ring order."""
    c = manor(players)
    st = state.alloc_state(c.tb, 0)
    pick = state.alloc_work(c.tb).pick
    for seed in range(4):
        engine.setup(c.tb, st, seed, 0, pick)
        chars = [int(st.pl[p, state.PL_CHAR]) for p in range(players)]
        assert len(set(chars)) == players and RAVEN in chars
        for p in range(players):
            assert st.pl[p, state.PL_HAND_N] == 4
            if chars[p] != RAVEN:  # the Horseman uses only Feathers he receives (RM-6)
                assert st.pl[p, state.PL_HAND + FEATHER] == 0
            assert st.pl[p, state.PL_POS] == p and st.board[state.B_RING + p] == p
            assert st.pl[p, state.PL_SIDE] == state.own_side(chars[p])
        assert st.board[G_DISC_N] == 0
        assert [int(x) for x in state.card_counts(st)] == [
            int(c.tb.params[P_COUNT + i]) for i in range(NC)
        ]
        assert 0 <= st.board[G_FIRST] < players


# ---------------------------------------------------------------- response windows (RM-19)


def test_rm19_the_target_is_asked_first(build):
    """RM-19: the target answers first (its Evade); once the kill is evaded no Lifebuoy fits,
    so the players after it are never asked (ENGINE-5)."""
    s = build(
        FIVE,
        hands={0: [RIFLE], 1: [LIFEBUOY], 3: [EVADE], 4: [LIFEBUOY]},
        scripts={1: [LIFEBUOY], 3: [EVADE], 4: [LIFEBUOY]},
    )
    s.play(0, RIFLE, 3)
    assert s.alive(3)
    assert s.ev(E_REACT) == [(3, EVADE, 0, RIFLE, 0, 0, 0)]
    assert s.ev(E_KILL_SAVED) == [(3, 0, 0, 0, 0, 0, 0)]
    assert s.script_used(1) == 0 and s.script_used(4) == 0
    s.check(all_used=False)


def test_rm19_then_everyone_else_clockwise_from_the_active_player(build):
    """RM-19: after the target, the others are asked clockwise from the active player (seat 2):
    2, 3, 4, then 1; seat 4's Lifebuoy saves seat 0 and seat 1 is never asked."""
    s = build(
        FIVE,
        hands={1: [LIFEBUOY], 2: [RIFLE], 4: [LIFEBUOY]},
        scripts={1: [LIFEBUOY], 4: [LIFEBUOY]},
    )
    s.play(2, RIFLE, 0)
    assert s.alive(0)
    assert s.ev(E_REACT) == [(4, LIFEBUOY, 0, RIFLE, 2, 0, 0)]
    assert s.script_used(1) == 0
    assert s.hand(1) == cards(LIFEBUOY)
    assert s.discard() == cards(RIFLE, LIFEBUOY)
    s.check(all_used=False)


def test_rm19_kill_answered_by_evade_then_rod_cancels_the_evade(build):
    """RM-19, RM-7: the Knife's target plays Evade; in the Evade's own window seat 3 plays Rod on
    it; the stack resolves last in, first out: the Evade has no effect and the kill happens."""
    s = build(
        FIVE,
        hands={0: [KNIFE], 1: [EVADE], 3: [ROD]},
        scripts={1: [EVADE], 3: [ROD]},
    )
    s.play(0, KNIFE, 1)
    assert not s.alive(1) and s.cause(1) == D_KILL
    assert s.ev(E_REACT) == [(1, EVADE, 0, KNIFE, 0, 0, 0), (3, ROD, 1, EVADE, 1, 0, 0)]
    assert s.ev(E_CANCEL) == [(1, EVADE, ROD, 0, 0, 0, 0)]
    assert s.ev(E_DEATH) == [(1, AUNT_OWL, D_KILL, 0, TURN, 0, 0)]
    assert s.pl[0, PL_KILLS] == 1
    assert s.discard() == cards(KNIFE, EVADE, ROD)
    s.check()


def test_rm19_rat_treachery_on_the_rod_restores_the_evade(build):
    """RM-19: three levels (Knife, Evade, Rod, Rat Treachery on the Rod), resolved last in, first
    out: the Rod is cancelled, so the Evade stands and the target lives; the Rat Treachery also
    ends the turn and its player plays next (RM-20)."""
    s = build(
        FIVE,
        hands={0: [KNIFE], 1: [EVADE], 3: [ROD], 4: [RAT_TREACHERY]},
        scripts={1: [EVADE], 3: [ROD], 4: [RAT_TREACHERY]},
    )
    s.play(0, KNIFE, 1)
    assert s.alive(1)
    assert s.ev(E_REACT) == [
        (1, EVADE, 0, KNIFE, 0, 0, 0),
        (3, ROD, 1, EVADE, 1, 0, 0),
        (4, RAT_TREACHERY, 2, ROD, 3, 0, 0),
    ]
    assert s.ev(E_CANCEL) == [(3, ROD, RAT_TREACHERY, 0, 0, 0, 0)]
    assert s.ev(E_KILL_SAVED) == [(1, 0, 0, 0, 0, 0, 0)]
    assert s.board[G_OVER] == 1 and s.board[G_NEXT] == 4
    assert s.discard() == cards(KNIFE, EVADE, ROD, RAT_TREACHERY)
    s.check()


def test_rm20_rat_treachery_takes_over_the_turn(build):
    """RM-20, RM-7: Rat Treachery cancels the active player's Vase; the turn ends at once: no
    end-of-turn exchange, but the active player still draws to 4; the Rat Treachery's player
    takes the next turn."""
    s = build(
        FIVE,
        hands={0: [VASE, KNIFE], 1: [AXE], 3: [RAT_TREACHERY]},
        deck=[CANDLE, CANDLE, CANDLE, CANDLE],
        scripts={0: play_(VASE, 2), 3: [RAT_TREACHERY]},
    )
    s.turn(0)
    assert not s.stunned(2)
    assert s.ev(E_CANCEL) == [(0, VASE, RAT_TREACHERY, 0, 0, 0, 0)]
    assert not s.ev(E_XCHG)
    assert s.hand(0) == cards(KNIFE, CANDLE, CANDLE, CANDLE)
    assert s.hand(1) == cards(AXE)
    assert s.discard() == cards(VASE, RAT_TREACHERY)
    assert s.next_seat(0) == 3
    s.check()


def test_engine6_rat_treachery_on_an_evade_lets_the_kill_resolve_then_ends_the_turn(build):
    """ENGINE-6, RM-20: the turn ends once the window has resolved: the Evade is cancelled, the
    Knife still kills, then the exchange is lost and seat 3 plays next."""
    s = build(
        FIVE,
        hands={0: [KNIFE, CANDLE], 1: [EVADE], 3: [RAT_TREACHERY]},
        deck=[VASE, VASE, VASE],
        scripts={0: play_(KNIFE, 1), 1: [EVADE], 3: [RAT_TREACHERY]},
    )
    s.turn(0)
    assert not s.alive(1)
    assert s.ev(E_CANCEL) == [(1, EVADE, RAT_TREACHERY, 0, 0, 0, 0)]
    assert not s.ev(E_XCHG)
    assert s.hand(0) == cards(CANDLE, VASE, VASE, VASE)
    assert s.next_seat(0) == 3
    s.check()


def test_rm7_stunned_players_cannot_react(build):
    """RM-7: a stunned target holding Evade is not asked, nor is a stunned player holding a
    Lifebuoy; the kill happens."""
    s = build(
        FIVE,
        hands={0: [KNIFE], 1: [EVADE], 3: [LIFEBUOY]},
        stunned={1: VASE, 3: VASE},
        scripts={1: [EVADE], 3: [LIFEBUOY]},
    )
    s.play(0, KNIFE, 1)
    assert not s.alive(1)
    assert not s.ev(E_REACT)
    assert s.script_used(1) == 0 and s.script_used(3) == 0
    s.check(all_used=False)


def test_rm19_rod_and_rat_treachery_cannot_cancel_a_room_used_from_play(build):
    """RM-19: using a Room in play is not a card played: seat 3's Rod and Rat Treachery are not
    offered; the Library look happens."""
    s = build(
        FIVE,
        hands={2: [KNIFE, AXE], 3: [ROD, RAT_TREACHERY]},
        in_play=(LIBRARY,),
        scripts={3: [RAT_TREACHERY]},
    )
    s.use(0, LIBRARY, 2)
    assert s.kn[0, 2, KN_HAND + KNIFE] == 1 and s.kn[0, 2, KN_SEEN] == TURN + 1
    assert s.script_used(3) == 0 and not s.ev(E_REACT)
    assert s.in_play(LIBRARY) == 1
    s.check(all_used=False)


def test_rm19_rat_treachery_sends_a_room_played_from_hand_to_the_discard(build):
    """RM-19: a Room played from hand is a card played: Rat Treachery cancels it, and the
    cancelled Room goes to the discard pile instead of into play."""
    s = build(
        FIVE,
        hands={0: [LIBRARY], 2: [KNIFE], 3: [RAT_TREACHERY]},
        scripts={3: [RAT_TREACHERY]},
    )
    s.play(0, LIBRARY, 2)
    assert s.in_play(LIBRARY) == 0
    assert s.discard() == cards(LIBRARY, RAT_TREACHERY)
    assert s.kn[0, 2, KN_SEEN] == 0
    s.check()


def test_rm19_rod_answers_only_action_and_reaction_cards_not_rooms(build):
    """RM-19, RM-7: Rod cancels an action or a reaction card; a Room entering play from hand is
    neither, so the Rod's holder is not asked."""
    s = build(FIVE, hands={0: [LIBRARY], 2: [KNIFE], 3: [ROD]}, scripts={3: [ROD]})
    s.play(0, LIBRARY, 2)
    assert s.in_play(LIBRARY) == 1 and s.kn[0, 2, KN_SEEN] == TURN + 1
    assert s.script_used(3) == 0
    s.check(all_used=False)


def test_engine4_evade_protects_until_the_end_of_the_turn(build):
    """ENGINE-4: "cannot be killed this turn": a second kill in the same turn fails, one in the
    next turn succeeds."""
    s = build(FIVE, hands={0: [KNIFE], 1: [EVADE]}, scripts={1: [EVADE]})
    s.play(0, KNIFE, 1)
    assert s.alive(1)
    assert not s.kill(2, 1)
    assert s.alive(1)
    assert s.ev(E_KILL_SAVED) == [(1, 0, 0, 0, 0, 0, 0)] * 2
    s.board[G_TURN] += 1
    assert s.kill(2, 1)
    assert not s.alive(1)
    s.check()


def test_engine4_dodge_protects_from_a_second_stun_the_same_turn(build):
    """ENGINE-4: after a Dodge, the next stun the same turn does nothing (its card is
    discarded)."""
    s = build(FIVE, hands={0: [VASE, HAYMAKER], 1: [DODGE]}, scripts={1: [DODGE]})
    s.play(0, VASE, 1)
    s.play(0, HAYMAKER, 1)
    assert not s.stunned(1)
    assert s.discard() == cards(VASE, HAYMAKER, DODGE)
    assert s.ev(E_REACT) == [(1, DODGE, 0, VASE, 0, 0, 0)]
    s.check()


def test_engine5_each_responder_is_asked_once_per_level(build):
    """ENGINE-5: the target is asked once in the Knife's window: after its Evade is cancelled by
    a Rod it cannot play its second Evade."""
    s = build(
        FIVE,
        hands={0: [KNIFE], 1: [EVADE, EVADE], 3: [ROD]},
        scripts={1: [EVADE, EVADE], 3: [ROD]},
    )
    s.play(0, KNIFE, 1)
    assert not s.alive(1)
    assert s.script_used(1) == 1
    assert s.hand(1) == cards(EVADE)
    s.check(all_used=False)


def test_engine5_after_a_reaction_resolves_the_window_goes_on_with_the_next_responder(build):
    """ENGINE-5, RM-19: the target's Evade opens its window (seat 3 lets it be), resolves, then
    the Knife's window goes on: seat 3, asked after the target, plays Rod on the Knife itself."""
    s = build(
        FIVE,
        hands={0: [KNIFE], 1: [EVADE], 3: [ROD]},
        scripts={1: [EVADE], 3: [-1, ROD]},
    )
    s.play(0, KNIFE, 1)
    assert s.alive(1)
    assert s.ev(E_REACT) == [(1, EVADE, 0, KNIFE, 0, 0, 0), (3, ROD, 0, KNIFE, 0, 0, 0)]
    assert s.ev(E_CANCEL) == [(0, KNIFE, ROD, 0, 0, 0, 0)]
    s.check()


# ---------------------------------------------------------------- kills and death (RM-5, RM-14)


def test_rm5_death_reveals_the_character_to_everyone(build):
    """RM-5, RM-11: the dead player's character is revealed to every seat."""
    s = build(FIVE, hands={0: [RIFLE]})
    s.play(0, RIFLE, 3)
    assert not s.alive(3) and s.pl[3, PL_REVEALED] == 1
    assert [int(s.kn[q, 3, KN_CHAR]) for q in range(5)] == [DOG_FATHER] * 5
    assert s.ev(E_DEATH) == [(3, DOG_FATHER, D_KILL, 0, TURN, 0, 0)]
    assert s.pl[3, PL_TELE + TE_DIED + D_KILL - 1] == 1
    s.check()


def test_rm14_dead_player_takes_turns_and_exchanges_but_cannot_kill(build):
    """RM-14, RM-5: a dead player's Knife has no target, its Vase does; it still exchanges."""
    s = build(
        FIVE,
        hands={1: [KNIFE, VASE, CANDLE], 2: [AXE]},
        deck=[BOTTLE],
        dead=(1,),
        scripts={1: [*play_(VASE, 3), CANDLE], 2: [AXE]},
    )
    assert not any(c == KNIFE for _, c, _, _ in s.legal(1))
    assert (K_PLAY, VASE, 3, 0) in s.legal(1)
    s.turn(1)
    assert s.stunned(3)
    assert s.ev(E_XCHG) == [(1, 2, CANDLE, AXE, 0, 0, 0)]
    assert s.hand(1) == cards(KNIFE, AXE, BOTTLE)
    s.check()


def test_rm14_dead_player_cannot_die_again(build):
    """RM-14: a kill of a dead player does nothing (and is no kill of its killer)."""
    s = build(FIVE, dead=(2,))
    assert not s.kill(0, 2)
    assert s.ev(E_KILL_SAVED) == [(2, 1, 0, 0, 0, 0, 0)]
    assert not s.ev(E_DEATH) and s.pl[0, PL_KILLS] == 0
    s.check()


def test_rm14_a_feather_does_not_possess_a_dead_player(build):
    """RM-14, RM-6: the Raven's Feather passed to a dead player changes nothing."""
    s = build(RAVEN5, hands={0: [FEATHER], 1: [KNIFE]}, dead=(1,), scripts={0: [FEATHER]})
    s.trade(0, 1)
    assert s.hand(1) == cards(FEATHER)
    assert s.possessed(1) == -1 and s.side(1) == FAMILY
    assert not s.ev(E_POSSESS)
    s.check()


def test_rm14_rm6_a_dead_ravens_feather_possesses_nobody(build):
    """RM-14, RM-6, RM-22: a Feather passed by a dead Raven (in a game another evil character
    keeps going) possesses nobody."""
    s = build(
        [RAVEN, AUNT_CAT, CTHULHU],
        hands={0: [FEATHER], 1: [KNIFE]},
        dead=(0,),
        scripts={0: [FEATHER], 1: [KNIFE]},
    )
    s.trade(0, 1)
    assert s.hand(1) == cards(FEATHER)
    assert s.possessed(1) == -1 and s.side(1) == FAMILY
    assert not s.ev(E_POSSESS)
    s.check()


def test_rm23_a_kill_targets_only_living_players_other_cards_any_other_player(build):
    """RM-23: "the chosen player" is any other player, living or dead, but a kill can only
    target a living one."""
    s = build(FIVE, hands={0: [RIFLE, VASE, GET_OVER_HERE]}, dead=(2,))
    legal = s.legal(0)
    assert {t for k, c, t, o in legal if c == RIFLE} == {1, 3, 4}
    assert {t for k, c, t, o in legal if c == VASE} == {1, 2, 3, 4}
    assert {(t, o) for k, c, t, o in legal if c == GET_OVER_HERE} == {
        (t, o) for t in (1, 2, 3, 4) for o in (0, 1)
    }
    s.check()


def test_rm21_a_death_ability_resolves_before_the_turn_goes_on(build):
    """RM-21, RM-5: Brother Boar, killed by the active player's Knife, kills his chosen player at
    once (his choice), before the end-of-turn exchange."""
    s = build(
        [AUNT_CAT, BOAR, AUNT_OWL, DOG_FATHER, RAVEN],
        hands={0: [KNIFE, CANDLE], 1: [AXE]},
        deck=[VASE, VASE, VASE],
        scripts={0: [*play_(KNIFE, 1), CANDLE], 1: [3, AXE]},
    )
    s.turn(0)
    assert not s.alive(1) and not s.alive(3)
    assert s.ev(E_DEATH) == [
        (1, BOAR, D_KILL, 0, TURN, 0, 0),
        (3, DOG_FATHER, D_ABILITY, 1, TURN, 0, 0),
    ]
    codes = s.codes()
    assert codes.index(state.E_ABILITY) < codes.index(E_XCHG)
    assert [c for c in codes if c in (E_DEATH, E_XCHG)] == [E_DEATH, E_DEATH, E_XCHG]
    assert s.ev(E_XCHG) == [(0, 1, CANDLE, AXE, 0, 0, 0)]
    s.check()


def test_faq_dying_while_stunned_removes_the_stun(build):
    """Rulebook FAQ: "If you die while stunned, the stun is removed": the Vase is discarded."""
    s = build(FIVE, hands={0: [KNIFE]}, stunned={1: VASE})
    s.play(0, KNIFE, 1)
    assert not s.alive(1) and not s.stunned(1) and s.pl[1, PL_STUN_CARD] == -1
    assert s.discard() == cards(KNIFE, VASE)
    s.check()


# ---------------------------------------------------------------- stuns (ENGINE-11)


def test_engine11_a_stunned_player_cannot_be_chosen_for_an_exchange(build):
    """ENGINE-11: a stunned player is no Exchange target ("you can't be forced to trade"), but
    can be swapped with, looked at and stunned again."""
    s = build(FIVE, hands={0: [EXCHANGE, GET_OVER_HERE, VASE, KNIFE]}, stunned={2: HAYMAKER})
    legal = s.legal(0)
    assert {t for k, c, t, o in legal if c == EXCHANGE} == {1, 3, 4}
    assert {(2, 0), (2, 1)} <= {(t, o) for k, c, t, o in legal if c == GET_OVER_HERE}
    assert (K_PLAY, VASE, 2, 0) in legal
    s.check()


def test_engine11_a_second_stun_discards_its_card(build):
    """ENGINE-11: stunning a stunned player again: the first card stays in front of it, the
    second is discarded."""
    s = build(FIVE, hands={0: [VASE]}, stunned={2: HAYMAKER})
    s.play(0, VASE, 2)
    assert s.stunned(2) and s.pl[2, PL_STUN_CARD] == HAYMAKER
    assert s.discard() == cards(VASE)
    assert s.ev(E_STUN) == [(2, 0, VASE, 0, 0, 0, 0)]
    s.check()


# ---------------------------------------------------------------- exchanges and possession


def test_rm16_each_side_chooses_its_card_before_seeing_the_other(build):
    """RM-16: seat 1 cannot give the Knife it is about to receive: its choice is made before the
    exchange, so the scripted Knife is illegal (G_BAD_SCRIPT) and it gives a card it held."""
    s = build(FIVE, hands={0: [KNIFE, CANDLE], 1: [AXE]}, scripts={0: [KNIFE], 1: [KNIFE]})
    s.trade(0, 1)
    assert s.ev(E_XCHG) == [(0, 1, KNIFE, AXE, 0, 0, 0)]
    assert s.hand(0) == cards(CANDLE, AXE) and s.hand(1) == cards(KNIFE)
    assert s.kn[1, 0, state.KN_RECV + KNIFE] == 1 and s.kn[0, 1, state.KN_RECV + AXE] == 1
    s.check(bad_script=True)


def test_rm6_feather_passed_in_the_end_of_turn_exchange_possesses(build):
    """RM-6, RM-11: the Raven passes a Feather to the next player in the end-of-turn exchange:
    that player is possessed for the Raven, knows who possessed it, and keeps the Feather."""
    s = build(
        RAVEN5,
        hands={0: [VASE, FEATHER, CANDLE], 1: [KNIFE, AXE]},
        deck=[BOTTLE, BOTTLE],
        scripts={0: [*play_(VASE, 3), FEATHER], 1: [KNIFE]},
    )
    s.turn(0)
    assert s.ev(E_XCHG) == [(0, 1, FEATHER, KNIFE, 0, 0, 0)]
    assert s.ev(E_POSSESS) == [(1, S_RAVEN, 0, 0, 0, 0, 0)]
    assert s.possessed(1) == S_RAVEN and s.side(1) == S_RAVEN
    assert s.pl[1, PL_POSS_TURN] == TURN
    assert s.kn[1, 0, KN_CHAR] == RAVEN
    assert s.kn[2, 0, KN_CHAR] == -1
    assert not state.can_part(s.st, 1, FEATHER)
    assert s.hand(1) == cards(FEATHER, AXE)
    assert s.end() == 0
    s.check()


def test_rm6_a_possessed_player_cannot_give_its_feather_away(build):
    """RM-6: a possessed player keeps the Feather: scripting it to give the Feather is illegal."""
    s = build(
        RAVEN5,
        hands={1: [FEATHER, CANDLE], 2: [KNIFE]},
        possessed={1: 0},
        scripts={1: [FEATHER]},
    )
    s.trade(1, 2)
    assert s.ev(E_XCHG) == [(1, 2, CANDLE, KNIFE, 0, 0, 0)]
    assert s.hand(1) == cards(FEATHER, KNIFE)
    assert s.possessed(2) == -1
    s.check(bad_script=True)


def test_rm6_a_feather_from_a_player_who_is_no_possessor_possesses_nobody(build):
    """RM-6, RM-22: Cthulhu Gentleman may hold and give a Feather (he is immune and may discard
    it), but his Feather possesses nobody."""
    s = build(
        [CTHULHU, AUNT_OWL, RAVEN, DOG_FATHER, MOTHER_HEN],
        hands={0: [FEATHER, KNIFE], 1: [AXE]},
        scripts={0: [FEATHER], 1: [AXE]},
    )
    assert state.can_part(s.st, 0, FEATHER)
    s.trade(0, 1)
    assert s.hand(1) == cards(FEATHER)
    assert s.possessed(1) == -1 and s.side(1) == FAMILY
    s.check()


@pytest.mark.parametrize("immune", [DOC, CTHULHU, HORSEMAN])
def test_rm22_a_feather_from_the_raven_does_not_possess_the_immune(build, immune):
    """RM-22, RM-6: Doc, Cthulhu Gentleman and the Headless Horseman cannot be possessed; Doc and
    Cthulhu may discard the Feather (the Horseman may use it)."""
    s = build(
        [RAVEN, immune, BROTHER_BADGER, DOG_FATHER, MOTHER_HEN],
        hands={0: [FEATHER], 1: [KNIFE]},
        scripts={0: [FEATHER], 1: [KNIFE]},
    )
    s.trade(0, 1)
    assert s.hand(1) == cards(FEATHER)
    assert s.possessed(1) == -1 and s.side(1) == state.own_side(immune)
    assert state.can_part(s.st, 1, FEATHER)
    assert not s.ev(E_POSSESS)
    s.check()


def test_rm13_rm6_a_drawn_feather_is_discarded_publicly_and_replaced(build):
    """RM-13, RM-6: a non-Raven who draws a Feather discards it (public) and draws again."""
    s = build(FIVE, hands={0: [CANDLE, CANDLE, CANDLE]}, deck=[FEATHER, KNIFE])
    engine.refill(s.tb, s.st, 0, s.pick)
    assert s.hand(0) == cards(CANDLE, CANDLE, CANDLE, KNIFE)
    assert s.discard() == cards(FEATHER)
    assert s.pl[0, PL_FEATHER_DISC] == 1
    assert s.ev(E_FEATHER) == [(0, 0, 0, 0, 0, 0, 0)]
    s.check()


@pytest.mark.parametrize("bluff", [0, 1])
def test_rm13_rm18_the_raven_may_keep_a_drawn_feather_or_discard_it_to_bluff(build, bluff):
    """RM-13, RM-18: the Raven keeps a drawn Feather, or discards it publicly (its bluff)."""
    s = build(
        RAVEN5, hands={0: [CANDLE, CANDLE, CANDLE]}, deck=[FEATHER, KNIFE], scripts={0: [bluff]}
    )
    engine.refill(s.tb, s.st, 0, s.pick)
    if bluff:
        assert s.hand(0) == cards(CANDLE, CANDLE, CANDLE, KNIFE)
        assert s.ev(E_FEATHER) == [(0, 1, 0, 0, 0, 0, 0)]
    else:
        assert s.hand(0) == cards(CANDLE, CANDLE, CANDLE, FEATHER)
        assert not s.ev(E_FEATHER)
    s.check()


# ---------------------------------------------------------------- knowledge (RM-11)


def test_rm11_a_look_shows_the_hand_to_the_looker_only(build):
    """RM-11: Get Over Here's look: seat 0 knows seat 3's hand; nobody else does."""
    s = build(FIVE, hands={0: [GET_OVER_HERE], 3: [KNIFE, FEATHER]})
    s.play(0, GET_OVER_HERE, 3, 1)
    assert s.kn[0, 3, KN_HAND + KNIFE] == 1 and s.kn[0, 3, KN_FEATHER] == TURN + 1
    assert all(s.kn[q, 3, KN_SEEN] == 0 for q in (1, 2, 4))
    assert s.pos(0) == 0 and s.pos(3) == 3
    s.check()


# ---------------------------------------------------------------- victory (RM-10, RM-22)


def test_rm10_family_wins_when_the_raven_dies_engine2_engine3_outcomes(build):
    """RM-10, ENGINE-2, ENGINE-3: the Raven dies: the Family wins, its dead members too (rank 1);
    the Raven loses and keeps its side; score is 1 for the living."""
    s = build(RAVEN5, hands={2: [KNIFE]}, dead=(4,))
    s.play(2, KNIFE, 1)  # a Family death: the game goes on
    assert s.end() == 0
    assert s.kill(3, 0)
    assert s.end() == END_FAMILY
    assert [s.outcome(p) for p in range(5)] == [(0, 2), (0, 1), (1, 1), (1, 1), (0, 1)]
    assert s.side(0) == S_RAVEN
    s.check()


def test_rm10_rm6_possessed_players_lose_with_the_raven(build):
    """RM-10, RM-6: the possessed win and lose with the Raven: the Raven's death is their loss,
    alive or dead."""
    s = build(
        RAVEN5,
        hands={1: [FEATHER], 2: [FEATHER]},
        possessed={1: 0, 2: 0},
        dead=(2,),
    )
    assert s.kill(3, 0)
    assert s.end() == END_FAMILY
    assert [s.outcome(p) for p in range(5)] == [(0, 2), (1, 2), (0, 2), (1, 1), (1, 1)]
    assert s.side(1) == S_RAVEN and s.side(2) == S_RAVEN


def test_rm10_raven_wins_when_every_other_player_is_dead_or_possessed(build):
    """RM-10, RM-22 (b): the Raven kills the last free player: the Raven's side wins, its
    possessed (alive or dead) with it."""
    s = build(
        [RAVEN, AUNT_CAT, AUNT_OWL, DOG_FATHER],
        hands={0: [KNIFE], 1: [FEATHER], 3: [FEATHER]},
        possessed={1: 0, 3: 0},
        dead=(3,),
    )
    assert s.kill(0, 2)
    assert s.end() == END_RAVEN
    assert [s.outcome(p) for p in range(4)] == [(1, 1), (1, 1), (0, 2), (0, 1)]
    s.check()


def test_rm10_raven_wins_by_possessing_the_last_free_player(build):
    """RM-10, RM-6: the last free player receives the Feather: the game ends at once."""
    s = build(
        [RAVEN, AUNT_CAT, AUNT_OWL],
        hands={0: [FEATHER], 1: [FEATHER], 2: [KNIFE]},
        possessed={1: 0},
        scripts={0: [FEATHER], 2: [KNIFE]},
    )
    s.trade(0, 2)
    assert s.end() == END_RAVEN
    assert [s.outcome(p) for p in range(3)] == [(1, 1), (1, 1), (1, 1)]
    s.check()


def test_rm22_a_living_doc_keeps_the_raven_from_winning(build):
    """RM-22 (b): every other player possessed but a living Doc (immune): the game goes on."""
    s = build(
        [RAVEN, AUNT_CAT, DOC],
        hands={1: [FEATHER]},
        possessed={1: 0},
        scripts={2: [1]},  # the Doc's death ability: he kills the possessed Aunt Cat
    )
    assert s.check_end() == 0
    assert s.kill(0, 2)
    assert not s.alive(1) and s.cause(1) == D_ABILITY
    assert s.end() == END_RAVEN
    s.check()


def test_rm10_engine2_a_capped_game_is_a_draw_shared_by_the_sides_left():
    """RM-10, ENGINE-2: at the turn cap the game ends as a draw: every seat of the Family and of
    an evil side whose character lives ranks 1."""
    c = compile_for(5, rules={"turn_cap": 2}, path=BASE)
    st = state.alloc_state(c.tb, 0)
    engine.play_game(c.tb, st, 1, 0, state.alloc_work(c.tb))
    assert st.board[G_END] == END_CAP and st.board[G_TURN] == 2
    raven_alive = any(
        st.pl[p, state.PL_CHAR] == RAVEN and st.pl[p, state.PL_ALIVE] for p in range(5)
    )
    for p in range(5):
        score, rank = engine.outcome(st, p)
        assert score == st.pl[p, state.PL_ALIVE]
        side = st.pl[p, state.PL_SIDE]
        assert rank == (1 if side == FAMILY or raven_alive else 2)


def test_rm22_rm28_simultaneous_end_goes_to_the_family(build):
    """RM-22, RM-10, RM-28: the Raven's Mountains on the last free player, both Evade: both die
    at once, and a simultaneous end is the Family's."""
    s = build(
        [RAVEN, AUNT_CAT, AUNT_OWL],
        hands={0: [MOUNTAINS, EVADE], 1: [EVADE]},
        dead=(2,),
        scripts={0: [1], 1: [EVADE]},
    )
    s.play(0, MOUNTAINS, 1)
    assert not s.alive(1) and s.cause(1) == D_MOUNTAINS
    assert not s.alive(0) and s.cause(0) == D_MOUNTAINS
    assert s.end() == END_FAMILY


def test_rm22_the_horseman_wins_when_all_others_are_dead_or_his(build):
    """RM-22 (b): the Headless Horseman's side wins like the Raven's once the Raven is dead."""
    s = build(
        [HORSEMAN, AUNT_CAT, RAVEN],
        hands={1: [FEATHER]},
        possessed={1: 0},
    )
    assert s.kill(0, 2)
    assert s.end() == END_HORSEMAN
    assert [s.outcome(p) for p in range(3)] == [(1, 1), (1, 1), (0, 2)]
    s.check()


# ---------------------------------------------------------------- seats (RM-12)


def test_rm12_after_a_swap_the_turn_finishes_from_the_new_seat(build):
    """RM-12: seat 0 swaps places with seat 3 (Get Over Here); it exchanges with its new next
    player (seat 4), and play continues clockwise from its new seat."""
    s = build(
        FIVE,
        hands={0: [GET_OVER_HERE, KNIFE], 4: [AXE], 1: [BOTTLE]},
        deck=[CANDLE, CANDLE, CANDLE],
        scripts={0: [*play_(GET_OVER_HERE, 3, 0), KNIFE], 4: [AXE]},
    )
    s.turn(0)
    assert s.pos(0) == 3 and s.pos(3) == 0
    assert s.ev(E_SWAP) == [(0, 3, 3, 0, 0, 0, 0)]
    assert s.ev(E_XCHG) == [(0, 4, KNIFE, AXE, 0, 0, 0)]
    assert s.next_seat(0) == 4
    assert state.adjacent(s.st, 0, 2) and state.adjacent(s.st, 0, 4)
    assert not state.adjacent(s.st, 0, 1)
    assert state.left(s.st, 3) == 1
    s.check()


def test_rm12_adjacent_seats_include_dead_ones(build):
    """RM-12: a dead neighbour still sits between: the Knife reaches only the other living
    neighbour (seat 4), not the player beyond the dead one (seat 2)."""
    s = build(FIVE, hands={0: [KNIFE]}, dead=(1,))
    assert {t for k, c, t, o in s.legal(0) if c == KNIFE} == {4}
    assert state.adjacent(s.st, 0, 1)
    s.check()


def test_rm12_order_tokens_set_the_ring(build):
    """RM-12: seats form a ring by their order tokens, not their numbers."""
    s = build(FIVE, hands={0: [KNIFE]}, ring=[0, 3, 1, 4, 2])
    assert state.left(s.st, 0) == 3 and state.right(s.st, 0) == 2
    assert {t for k, c, t, o in s.legal(0) if c == KNIFE} == {2, 3}
    s.check()


# ---------------------------------------------------------------- the scenarios cite every rule


def test_rm4_a_player_stunned_in_its_own_turn_makes_no_end_of_turn_exchange(build):
    """RM-4 (amended): seat 0 kills Eel Fella (seat 1) and, asked by his death ability, chooses
    to be stunned: stunned players "cannot participate in Trades", so seat 0 makes no exchange
    with seat 1 (its partner otherwise: dead players exchange, RM-14); it still draws to 4. RM-4,
    RM-29: as a partner it is skipped too: the Raven (seat 4, a Feather left after the Eel's
    discard) passes, showing its hand to seat 0, and exchanges with the dead seat 1. Seat 0 then
    skips its next turn (ENGINE-1)."""
    s = build(
        [AUNT_CAT, EEL, AUNT_OWL, BROTHER_BADGER, RAVEN],
        hands={0: [KNIFE, CANDLE, VASE], 1: [AXE], 2: [DODGE], 3: [EVADE], 4: [FEATHER, RIFLE]},
        deck=[BOTTLE, HAYMAKER, LIBRARY, VASE, VASE, CANDLE],
        # the Eel asks seats 2, 3, 4, 0 in turn: seat 0 is stunned, the others discard their hand
        scripts={0: [*play_(KNIFE, 1), 1], 2: [0], 3: [0], 4: [0, K_PASS, -1, -1, 0, FEATHER]},
    )
    s.turn(0)
    assert not s.alive(1)
    assert [e[:2] for e in s.ev(E_EEL)] == [(2, 1), (3, 1), (4, 1), (0, 0)]
    assert s.stunned(0)
    assert not s.ev(E_XCHG) and not s.ev(E_SHOW)
    assert s.ev(E_SKIP) == [(0, 2, 0, 0, 0, 0, 0)]
    assert s.hand(1) == cards(AXE)
    assert s.hand(0) == cards(CANDLE, VASE, BOTTLE, HAYMAKER)
    s.turn(4)
    assert s.ev(E_SHOW) == [(4, 0, 1, 0, 0, 0, 0)]  # the pass shows the hand to the next player
    assert s.ev(E_XCHG) == [(4, 1, FEATHER, AXE, 0, 0, 0)]  # the stunned seat 0 is skipped
    assert s.possessed(1) == -1  # RM-14: a Feather possesses no dead player
    s.turn(0)  # ENGINE-1: the whole next turn is skipped, then the stun ends
    assert not s.stunned(0) and s.ev(E_SKIP)[-1] == (0, 0, 0, 0, 0, 0, 0)
    assert s.hand(0) == cards(CANDLE, VASE, BOTTLE, HAYMAKER)
    s.check()


def test_rm6_a_random_take_frees_the_old_holder_before_victory_is_checked(build):
    """RM-6 (amended), ENGINE-9: the last free player takes by Cave the only card of a possessed
    player, its Feather: the taker is possessed for the Raven, the old holder is freed in the same
    step, and only then is victory checked: a free Family player lives, so the Raven has not won
    (the holder "at the end of the interaction" is the possessed one)."""
    s = build(
        FIVE,
        hands={1: [FEATHER]},
        possessed={1: 4},
        dead=(2, 3),
        in_play=(CAVE,),
    )
    s.use(0, CAVE, 1)
    assert s.hand(0) == cards(FEATHER) and s.hand(1) == cards()
    assert s.possessed(0) == S_RAVEN and s.possessed(1) == -1 and s.side(1) == FAMILY
    assert s.ev(E_POSSESS) == [(0, S_RAVEN, -1, 0, 0, 0, 0)]
    assert s.ev(E_FREED) == [(1, 0, 0, 0, 0, 0, 0)]
    assert s.end() == 0
    assert s.check_end() == 0
    s.check()


def test_rm6_a_random_take_that_leaves_every_player_possessed_ends_the_game_after_it(build):
    """RM-6, RM-10: the possessed player holds two Feathers; the Cave takes one: both hold a
    Feather at the end of the effect, so both are possessed and the Raven wins, once."""
    s = build(
        FIVE,
        hands={1: [FEATHER, FEATHER]},
        possessed={1: 4},
        dead=(2, 3),
        in_play=(CAVE,),
    )
    s.use(0, CAVE, 1)
    assert s.possessed(0) == S_RAVEN and s.possessed(1) == S_RAVEN
    assert not s.ev(E_FREED)
    assert s.end() == END_RAVEN
    s.check()
