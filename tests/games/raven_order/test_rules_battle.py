"""Scripted battles: the rulebook's War phase and RO-5, RO-7, RO-8, RO-9 (and ENGINE-1, ENGINE-2)."""

from __future__ import annotations

import numpy as np
import pytest

from balance.games.raven_order import engine, policies, state
from balance.games.raven_order.state import (
    A_APOW,
    A_ATK,
    A_PAWK,
    A_PBLK,
    END_DESTRUCTION,
    END_DRAW,
    G_END,
    G_TURN,
    G_WINNER,
    PL_GOLD,
    PL_NU,
    U_FRESH,
    U_TIRED,
    U_TYPE,
    can_attack,
    can_block,
)
from balance.games.raven_order.tables import (
    ACAD1,
    ACAD2,
    ARMORY,
    CAMP,
    CAPITOL,
    CITADEL,
    CLOAKING,
    CROWN,
    DRUID,
    HORSES,
    POL_HEURISTIC,
    POL_RANDOM,
    RIDER,
    SENTRY,
    SHADOW,
    SHRINE,
    TOWN,
    WORKER,
    with_seat_kinds,
)

from .helpers import (
    TURN,
    blank,
    built,
    compiled,
    fight,
    scripted,
    seat,
    types,
    war,
    work,
    workers,
)
from .helpers import declare as hdeclare
from .helpers import play_turn as hplay_turn

# ---------------------------------------------------------------- RO-8: the rulebook's checks


def test_ro8_power_4_blocked_by_2_and_2_all_three_die(ro4):
    st = blank(ro4)
    [d] = seat(st, 0, [CAMP], units=[DRUID])  # power 4
    s1, s2 = seat(st, 1, [CAMP], units=[SENTRY, SENTRY])  # power 2 + 2
    assert fight(ro4, st, 0, [d], {s1: 0, s2: 0}) == 0
    assert types(st, 0) == [] and types(st, 1) == []
    assert built(st, 1) == [CAMP]


def test_ro8_power_4_blocked_by_2_and_3_attacker_and_one_blocker_of_its_choice_die(ro4):
    st = blank(ro4)
    [d] = seat(st, 0, [CAMP], units=[DRUID])  # power 4
    s, r = seat(st, 1, [CAMP], units=[SENTRY, RIDER])  # power 2 + 3 = 5 >= 4
    fight(ro4, st, 0, [d], {s: 0, r: 0})
    assert types(st, 0) == []  # the attacker dies
    # 2 + 3 > 4: only one blocker fits; the (heuristic) attacker kills the more valuable rider
    assert types(st, 1) == [SENTRY]


def test_ro8_the_attackers_choice_is_either_blocker_never_both(ro4):
    """A random attacker kills a maximal set that fits its power: one of the two, each sometimes."""
    c = with_seat_kinds(ro4, [POL_RANDOM, POL_RANDOM])
    left = set()
    for k in range(40):
        st = blank(c)
        st.rng[:, 0] += np.uint64(k * 101)
        [d] = seat(st, 0, [CAMP], units=[DRUID])
        s, r = seat(st, 1, [CAMP], units=[SENTRY, RIDER])
        fight(c, st, 0, [d], {s: 0, r: 0})
        assert types(st, 0) == []
        assert len(types(st, 1)) == 1
        left.add(types(st, 1)[0])
    assert left == {SENTRY, RIDER}


def test_ro8_stronger_attacker_survives_and_kills_what_fits(ro4):
    st = blank(ro4)
    [d] = seat(st, 0, [CAMP], units=[DRUID])  # power 4
    [s] = seat(st, 1, [CAMP], units=[SENTRY])  # 2 < 4
    assert fight(ro4, st, 0, [d], {s: 0}) == 0
    assert types(st, 0) == [DRUID] and types(st, 1) == []
    assert built(st, 1) == [CAMP]  # an engaged attacker razes nothing


def test_ro8_equal_power_both_die(ro):
    st = blank(ro)
    [r] = seat(st, 0, [CAMP], units=[RIDER])
    [s] = seat(st, 1, [CAMP], units=[SENTRY])
    fight(ro, st, 0, [r], {s: 0})
    assert types(st, 0) == [] and types(st, 1) == []


def test_ro8_blocking_workers_all_die_and_the_attacker_survives(ro):
    st = blank(ro)
    [r] = seat(st, 0, [CAMP], units=[RIDER])
    seat(st, 1, [CAMP], workers=5)
    assert fight(ro, st, 0, [r], wblocks={0: 3}) == 0
    assert types(st, 0) == [RIDER]
    assert workers(st, 1) == 2
    assert built(st, 1) == [CAMP]


def test_ro8_workers_add_no_power_to_a_unit_gang(ro):
    """A sentry (2) and two workers (0) block a rider (2): 2 >= 2 the rider dies; it kills the
    workers and the sentry (2 <= 2)."""
    st = blank(ro)
    [r] = seat(st, 0, [CAMP], units=[RIDER])
    [s] = seat(st, 1, [CAMP], workers=2, units=[SENTRY])
    fight(ro, st, 0, [r], {s: 0}, {0: 2})
    assert types(st, 0) == [] and types(st, 1) == [] and workers(st, 1) == 0


def test_battles_are_separate_groups(ro4):
    """Each attacker fights only its own blockers (rulebook: look at each group separately)."""
    st = blank(ro4)
    d, r = seat(st, 0, [CAMP], units=[DRUID, RIDER])  # 4 and 3
    s1, s2, s3 = seat(st, 1, [CAMP], units=[SENTRY, SENTRY, SENTRY])
    # druid vs one sentry (survives); rider vs two sentries (2 + 2 >= 3: dies, kills one)
    fight(ro4, st, 0, [d, r], {s1: 0, s2: 1, s3: 1})
    assert types(st, 0) == [DRUID]
    assert types(st, 1) == [SENTRY]


# ---------------------------------------------------------------- RO-9: unblocked attackers


def test_ro9_an_unblocked_attacker_destroys_a_building_of_the_attackers_choice(ro):
    st = blank(ro)
    [r] = seat(st, 0, [CAMP], units=[RIDER])
    seat(st, 1, [CAMP, TOWN, ARMORY])
    assert fight(ro, st, 0, [r]) == 1
    # the heuristic razes the most valuable building: Town (5 gold + 2 a turn)
    assert built(st, 1) == [CAMP, ARMORY]
    assert types(st, 0) == [RIDER]


def test_ro9_each_unblocked_attacker_destroys_one_building(ro):
    st = blank(ro)
    rows = seat(st, 0, [CAMP], units=[RIDER, RIDER, DRUID])
    s = seat(st, 1, [CAMP, TOWN, ARMORY, ACAD1], units=[SENTRY])[0]
    assert fight(ro, st, 0, rows, {s: 0}) == 2  # one blocked, two razing
    assert len(built(st, 1)) == 2


def test_ro9_victory_when_the_last_building_falls(ro):
    st = blank(ro)
    seat(st, 0, [CAMP], units=[RIDER])
    seat(st, 1, [ARMORY])
    assert hplay_turn(ro, st, 0)
    assert st.board[G_END] == END_DESTRUCTION and st.board[G_WINNER] == 0
    assert built(st, 1) == []
    # ENGINE-2: the score is the buildings standing; the winner is ranked 1
    assert engine.outcome(st, 0) == (1, 1)
    assert engine.outcome(st, 1) == (0, 2)


def test_ro9_no_victory_while_a_building_stands(ro):
    st = blank(ro)
    seat(st, 0, [CAMP], units=[RIDER])
    seat(st, 1, [ARMORY, CAMP])
    assert not hplay_turn(ro, st, 0)
    assert len(built(st, 1)) == 1
    assert st.board[G_END] == 0


@pytest.mark.parametrize("cap", [2, 5])
def test_ro9_turn_cap_is_a_draw(cap):
    """Nobody can attack within the cap: a draw after exactly ``cap`` turns (ENGINE-1), a shared
    first place and the buildings standing as the score (ENGINE-2)."""
    c = compiled(["random", "random"], {"turn_cap": cap, "compensation": {"sentries": 0}})
    if cap == 5:  # riders need Armory + Citadel + training: not before turn 5 of a seat
        c = scripted(c)
    chunk = engine.play(c, 3, 0, 50)
    assert (chunk.end_reason == 1).all()
    assert (chunk.turns == cap).all()
    assert (chunk.rank == 1).all()
    assert (chunk.score >= 1).all()
    if cap == 5:
        assert (chunk.score == 1).all()  # scripted seats never build: their Camp only


def test_turn_cap_counts_both_players_turns(ro):
    """ENGINE-1: play_game with a cap of 7 plays turns 0..6 and reports 7."""
    c = scripted(compiled(rules={"turn_cap": 7}))
    st = blank(c)
    engine.play_game(c.tb, st, 5, 0, work(c))
    assert st.board[G_END] == END_DRAW and st.board[G_WINNER] == -1
    assert st.board[G_TURN] + 1 == 7
    # each seat harvested on its own turns only: 1 worker and 2 gold each
    first = int(st.board[state.G_FIRST])
    assert workers(st, first) == 4 and workers(st, 1 - first) == 3
    assert engine.outcome(st, 0) == (1, 1) and engine.outcome(st, 1) == (1, 1)


# ---------------------------------------------------------------- RO-5: timing


def test_ro5_a_rider_trained_from_a_sentry_this_turn_cannot_attack(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, ARMORY, CITADEL], gold=5, units=[SENTRY])
    seat(st, 1, [CAMP])
    i = engine.train(ro.tb, st, 0, SENTRY, -1)
    assert i >= 0 and st.units[0, i, U_TYPE] == RIDER and st.units[0, i, U_FRESH] == TURN
    assert not can_attack(ro.tb, st, 0, i)
    war(ro, st, 0)
    assert built(st, 1) == [CAMP]  # it did not attack
    st.board[G_TURN] = TURN + 2  # its owner's next turn
    assert can_attack(ro.tb, st, 0, i)
    war(ro, st, 0)
    assert built(st, 1) == []


def test_ro5_a_rider_trained_from_a_worker_this_turn_cannot_attack(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, ARMORY, CITADEL], gold=5, workers=1)
    seat(st, 1, [CAMP])
    s = engine.train(ro.tb, st, 0, WORKER, -1)
    assert engine.train(ro.tb, st, 0, SENTRY, s) == s
    assert not can_attack(ro.tb, st, 0, s)
    war(ro, st, 0)
    assert built(st, 1) == [CAMP]


def test_ro5_horses_lets_a_rider_attack_the_turn_it_is_trained(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, ARMORY, CITADEL, SHRINE, ACAD1], gold=5, workers=1, brunes={SHRINE: HORSES})
    seat(st, 1, [CAMP])
    s = engine.train(ro.tb, st, 0, WORKER, -1)
    assert engine.train(ro.tb, st, 0, SENTRY, s) == s
    assert can_attack(ro.tb, st, 0, s)
    war(ro, st, 0)
    assert built(st, 1) == []


def test_ro5_horses_is_for_riders_a_druid_trained_from_a_sentry_this_turn_cannot_attack(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, ARMORY, CITADEL, SHRINE, ACAD1], gold=5, units=[SENTRY],
         brunes={SHRINE: HORSES})  # fmt: skip
    seat(st, 1, [CAMP])
    engine.train(ro.tb, st, 0, SENTRY, 0)
    assert engine.train(ro.tb, st, 0, RIDER, 0) == 0
    assert st.units[0, 0, U_TYPE] == DRUID
    assert not can_attack(ro.tb, st, 0, 0)
    war(ro, st, 0)
    assert built(st, 1) == [CAMP]


def test_ro5_a_rider_promoted_to_druid_this_turn_can_attack(ro):
    st = blank(ro)
    [r] = seat(st, 0, [CAMP, ARMORY, CITADEL, SHRINE], gold=1, units=[RIDER])
    seat(st, 1, [CAMP])
    assert engine.train(ro.tb, st, 0, RIDER, r) == r
    assert st.units[0, r, U_TYPE] == DRUID and st.pl[0, PL_GOLD] == 0
    assert can_attack(ro.tb, st, 0, r)
    war(ro, st, 0)
    assert built(st, 1) == []


def test_ro5_sentries_and_workers_never_attack(ro):
    st = blank(ro)
    seat(st, 0, [CAMP], workers=3, units=[SENTRY, SENTRY])
    seat(st, 1, [CAMP])
    assert not can_attack(ro.tb, st, 0, 0) and not can_attack(ro.tb, st, 0, 1)
    war(ro, st, 0)
    assert built(st, 1) == [CAMP]


def test_ro5_a_unit_that_attacked_cannot_block_in_the_opponents_next_war(ro):
    st = blank(ro)
    [mine] = seat(st, 0, [CAMP, ARMORY], units=[RIDER])
    seat(st, 1, [CAMP, TOWN], units=[RIDER])
    assert fight(ro, st, 0, [mine]) == 1  # 0's rider attacks unblocked and razes the Town
    assert st.units[0, mine, U_TIRED] == TURN
    assert built(st, 1) == [CAMP]
    st.board[G_TURN] = TURN + 1  # the opponent's next war
    assert not can_block(st, 0, mine)
    war(ro, st, 1)  # 1's rider attacks: 0's tired rider may not stop it
    assert types(st, 0) == [RIDER] and types(st, 1) == [RIDER]
    assert len(built(st, 0)) == 1
    st.board[G_TURN] = TURN + 3  # the war after next: it may block again
    assert can_block(st, 0, mine)


def test_ro5_an_unused_unit_blocks_in_the_opponents_war(ro):
    """The same position without 0's attack: 0's rider stops 1's rider (both die), no building
    falls."""
    st = blank(ro, turn=TURN + 1)
    seat(st, 0, [CAMP, ARMORY], units=[RIDER])
    seat(st, 1, [CAMP, TOWN], units=[RIDER])
    [r] = [0]
    fight(ro, st, 1, [r], {0: 0})
    assert types(st, 0) == [] and types(st, 1) == []
    assert built(st, 0) == [CAMP, ARMORY]


def test_ro5_the_tired_unit_is_never_chosen_as_a_blocker(ro):
    """Neither policy assigns a unit that attacked last turn (RO-5) to any attacker."""
    for kind in (POL_HEURISTIC, POL_RANDOM):
        c = with_seat_kinds(ro, [kind, kind])
        for k in range(20):
            st = blank(c, turn=TURN + 1)
            st.rng[:, 0] += np.uint64(k)
            rows = seat(st, 0, [CAMP], units=[RIDER, RIDER, RIDER])
            seat(st, 1, [CAMP], workers=2, units=[SENTRY, DRUID, DRUID])
            st.units[1, 1, U_TIRED] = TURN
            st.units[1, 2, U_TIRED] = TURN
            st.aux[A_ATK, :3] = rows
            hdeclare(c, st, 0, 3)
            st.aux[A_APOW, :3] = 2
            policies.choose_blocks(c.tb, st, 1, 3)  # its plan (state.A_PBLK)
            assert st.aux[A_PBLK, 1] == -1 and st.aux[A_PBLK, 2] == -1


# ---------------------------------------------------------------- druids only (Shadow, Cloaking)


def _blocks_of(c, st, n):
    """The defender's plan of blocks (policies.choose_blocks: state.A_PBLK, A_PAWK)."""
    policies.choose_blocks(c.tb, st, 1, n)
    return [int(x) for x in st.aux[A_PBLK, : int(st.pl[1, PL_NU])]], [
        int(x) for x in st.aux[A_PAWK, :n]
    ]


@pytest.mark.parametrize("kind", [POL_HEURISTIC, POL_RANDOM])
@pytest.mark.parametrize("how", ["shadow", "cloaking"])
def test_shadow_rune_and_cloaking_attackers_are_stopped_only_by_druids(ro, kind, how):
    """RO-7 with Shadow Rune / Cloaking: the defender never assigns workers, sentries or riders to
    that attacker; only its druids may block it."""
    c = with_seat_kinds(ro, [kind, kind])
    seen_druid_block = False
    for k in range(30):
        st = blank(c)
        st.rng[:, 0] += np.uint64(k)
        if how == "shadow":
            rows = seat(st, 0, [CAMP, ACAD1], units=[(DRUID, SHADOW)])
        else:
            rows = seat(st, 0, [CAMP, TOWN, CAPITOL], units=[DRUID], brunes={CAPITOL: CLOAKING})
        # one building left: a heuristic defender blocks with whatever may block
        seat(st, 1, [CAMP], workers=4, units=[SENTRY, RIDER, DRUID, DRUID, SENTRY])
        st.aux[A_ATK, :1] = rows
        hdeclare(c, st, 0, 1)
        st.aux[A_APOW, 0] = 5 if how == "shadow" else 2
        blk, awk = _blocks_of(c, st, 1)
        assert awk == [0]
        for i, a in enumerate(blk):
            if a >= 0:
                assert st.units[1, i, U_TYPE] == DRUID
                seen_druid_block = True
    assert seen_druid_block


def test_shadow_rune_druid_razes_through_sentries_and_workers(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, ACAD1], units=[(DRUID, SHADOW)])
    seat(st, 1, [CAMP, TOWN], workers=5, units=[SENTRY, SENTRY, SENTRY, RIDER])
    war(ro, st, 0)
    assert len(built(st, 1)) == 1
    assert types(st, 0) == [DRUID] and workers(st, 1) == 5 and len(types(st, 1)) == 4


def test_cloaking_is_for_druids_riders_may_be_stopped_by_anything(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, TOWN, CAPITOL], units=[RIDER], brunes={CAPITOL: CLOAKING})
    [s] = seat(st, 1, [CAMP], units=[SENTRY])
    st.aux[A_ATK, 0] = 0
    hdeclare(ro, st, 0, 1)
    st.aux[A_APOW, 0] = 2
    policies.choose_blocks(ro.tb, st, 1, 1)
    assert st.aux[A_PBLK, s] == 0  # a sentry may stop a cloaked player's rider


def test_a_druid_blocks_a_shadow_druid_with_crown(ro):
    """Shadow (2 + 3 = 5) blocked by a druid with Crown Rune (2 + 3 = 5): both die."""
    st = blank(ro)
    [d] = seat(st, 0, [CAMP, ACAD1, ACAD2], units=[(DRUID, SHADOW)])
    [b] = seat(st, 1, [CAMP, ACAD1, ACAD2], units=[(DRUID, CROWN)])
    fight(ro, st, 0, [d], {b: 0})
    assert types(st, 0) == [] and types(st, 1) == []
