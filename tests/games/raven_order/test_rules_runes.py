"""One scripted test per rune (all 19, rulebook Rune Cards; RO-6, RO-10, ENGINE-4..ENGINE-8) and
the conditions to play one (RO-6)."""

from __future__ import annotations

import pytest

from balance.games.raven_order import engine
from balance.games.raven_order.state import (
    A_ATK,
    A_BONUS,
    G_TURN,
    PL_BRUNE,
    PL_BUILDS,
    PL_GOLD,
    PL_HAND_N,
    PL_INPLAY,
    U_DEAD,
    U_RUNE,
    can_attack,
    unit_power,
)
from balance.games.raven_order.state import druids_only as state_druids_only
from balance.games.raven_order.tables import (
    ACAD1,
    ACAD2,
    ACAD3,
    ARMORY,
    BLOOM,
    CAMP,
    CANINE,
    CAPITOL,
    CITADEL,
    CLOAKING,
    CONQUEST,
    CORRUPTION,
    CROWN,
    DAWN_RAID,
    DRUID,
    FROST,
    GUILDHALL,
    HORSES,
    LOOTING,
    MEDICINE,
    POISONS,
    RIDER,
    RITUALS,
    SENTRY,
    SHADOW,
    SHIELDS,
    SHRINE,
    SPIRIT,
    SQUIRE,
    STATUE,
    STEEL,
    TOWN,
    TRAVELLING,
    WORKER,
)

from .helpers import (
    TURN,
    alive,
    blank,
    built,
    compiled,
    fight,
    gold,
    hand,
    inplay,
    scripted,
    seat,
    types,
    war,
    workers,
)
from .helpers import build as hbuild
from .helpers import declare as hdeclare
from .helpers import play_rune as hplay_rune

ACADS = [ACAD1, ACAD2, ACAD3]


def power(c, st, p, i, attacking=True):
    return int(unit_power(c.tb, st, p, i, attacking))


# ---------------------------------------------------------------- playing runes (RO-6)


@pytest.mark.parametrize(
    ("r", "host_building"),
    [(CONQUEST, ARMORY), (LOOTING, ARMORY), (HORSES, SHRINE), (POISONS, SHRINE),
     (TRAVELLING, CAMP), (SQUIRE, CAMP), (CORRUPTION, GUILDHALL), (DAWN_RAID, CITADEL),
     (RITUALS, CITADEL), (MEDICINE, GUILDHALL), (SHIELDS, TOWN), (STEEL, CAPITOL),
     (CLOAKING, CAPITOL)],
)  # fmt: skip
def test_ro6_tradition_and_tech_runes_go_on_their_named_building_only(ro, r, host_building):
    everything = [CAMP, TOWN, CAPITOL, ARMORY, CITADEL, SHRINE, STATUE, *ACADS, GUILDHALL]
    for b in everything:
        st = blank(ro)
        seat(st, 0, everything, hand=[r])
        ok = hplay_rune(ro, st, 0, r, b)
        assert ok == (b == host_building), b
        if ok:
            assert st.pl[0, PL_BRUNE + b] == r
            assert inplay(st, 0) == {r: 1} and hand(st, 0) == {} and st.pl[0, PL_HAND_N] == 0
        else:
            assert inplay(st, 0) == {} and hand(st, 0) == {r: 1}


def test_ro6_a_named_building_must_be_standing(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, *ACADS], hand=[LOOTING])
    assert not hplay_rune(ro, st, 0, LOOTING, ARMORY)


def test_ro6_canine_goes_on_any_own_building(ro):
    for b in (CAMP, TOWN, ACAD1, STATUE):
        st = blank(ro)
        seat(st, 0, [CAMP, TOWN, ARMORY, STATUE, ACAD1], hand=[CANINE])
        assert hplay_rune(ro, st, 0, CANINE, b)
        assert inplay(st, 0) == {CANINE: 1}
    st = blank(ro)
    seat(st, 0, [CAMP, ACAD1], hand=[CANINE])
    assert not hplay_rune(ro, st, 0, CANINE, TOWN)  # not standing


@pytest.mark.parametrize("r", [FROST, BLOOM, CROWN, SHADOW, SPIRIT])
def test_ro6_paint_goes_on_an_own_living_druid_only(ro, r):
    st = blank(ro)
    rows = seat(st, 0, [CAMP, *ACADS], workers=2, units=[SENTRY, RIDER, DRUID], hand={r: 2})
    seat(st, 1, [CAMP], units=[DRUID])
    for b in (CAMP, ACAD1):
        assert not hplay_rune(ro, st, 0, r, b)  # a building is no host for paint
    assert not hplay_rune(ro, st, 0, r, rows[0])
    assert not hplay_rune(ro, st, 0, r, rows[1])
    assert not hplay_rune(ro, st, 0, r, 3)  # no such row of seat 0
    assert hplay_rune(ro, st, 0, r, rows[2])
    assert st.units[0, rows[2], U_RUNE] == r
    assert not hplay_rune(ro, st, 0, r, rows[2])  # one rune per host
    assert hand(st, 0) == {r: 1} and inplay(st, 0) == {r: 1}
    assert st.units[1, 0, U_RUNE] == -1


def test_ro6_one_rune_per_building(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, ARMORY, ACAD1], hand=[LOOTING, CONQUEST, CANINE])
    assert hplay_rune(ro, st, 0, LOOTING, ARMORY)
    assert not hplay_rune(ro, st, 0, CONQUEST, ARMORY)
    assert not hplay_rune(ro, st, 0, CANINE, ARMORY)
    assert hplay_rune(ro, st, 0, CANINE, CAMP)
    assert hand(st, 0) == {CONQUEST: 1}


def test_ro6_a_rune_must_be_in_hand(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, ARMORY, ACAD1], hand=[CONQUEST])
    seat(st, 1, [CAMP, ARMORY, ACAD1], hand=[LOOTING])
    assert not hplay_rune(ro, st, 0, LOOTING, ARMORY)  # the opponent's card
    assert inplay(st, 0) == {} and hand(st, 1) == {LOOTING: 1}


def test_ro6_a_rune_leaves_play_with_its_druid(ro):
    """A Shadow druid (5) blocked by a Crown druid (5): both die, both runes leave play (not to
    a hand), and the owner's other druid loses the Crown's +3."""
    st = blank(ro, turn=TURN + 1)
    d, plain = seat(st, 0, [CAMP, ACAD1, ACAD2], units=[(DRUID, CROWN), DRUID])
    [sh] = seat(st, 1, [CAMP, ACAD1, ACAD2], units=[(DRUID, SHADOW)])
    assert power(ro, st, 0, plain) == 5
    fight(ro, st, 1, [sh], {d: 0})
    assert alive(st, 0) == [(DRUID, -1)] and alive(st, 1) == []
    assert inplay(st, 0) == {} and inplay(st, 1) == {}
    assert hand(st, 0) == {} and hand(st, 1) == {}
    assert power(ro, st, 0, 0) == 2


def test_ro6_a_rune_leaves_play_with_its_building(ro):
    st = blank(ro)
    [r] = seat(st, 0, [CAMP, ARMORY, CITADEL, *ACADS], units=[RIDER], brunes={CITADEL: RITUALS})
    assert power(ro, st, 0, r) == 3
    engine.destroy_building(ro.tb, st, 0, CITADEL)
    assert inplay(st, 0) == {} and power(ro, st, 0, r) == 2
    st.pl[0, PL_BUILDS] = 1
    st.pl[0, PL_GOLD] = 2
    assert hbuild(ro, st, 0, CITADEL, -1)  # rebuilt: without its rune
    assert st.pl[0, PL_BRUNE + CITADEL] == -1 and power(ro, st, 0, r) == 2


def test_ro6_a_razing_attacker_takes_the_rune_with_the_building(ro):
    st = blank(ro)
    [r] = seat(st, 0, [CAMP], units=[RIDER])
    seat(st, 1, [CAMP, TOWN, CAPITOL], brunes={CAPITOL: STEEL})
    fight(ro, st, 0, [r])  # razes the Capitol (most valuable)
    assert built(st, 1) == [CAMP, TOWN] and inplay(st, 1) == {}


# ---------------------------------------------------------------- paint


def test_frost_mark_attacking_weakens_its_blockers(ro):
    """Frost druid (2) vs a sentry (2 - 1 = 1): the druid survives and kills the sentry."""
    st = blank(ro)
    [d] = seat(st, 0, [CAMP, ACAD1], units=[(DRUID, FROST)])
    [s] = seat(st, 1, [CAMP], units=[SENTRY])
    fight(ro, st, 0, [d], {s: 0})
    assert alive(st, 0) == [(DRUID, FROST)] and types(st, 1) == []


def test_frost_mark_blocking_weakens_the_attacker(ro):
    """A rider (2 - 1 = 1) blocked by a Frost druid (2): the rider dies, the druid survives."""
    st = blank(ro)
    [r] = seat(st, 0, [CAMP], units=[RIDER])
    [d] = seat(st, 1, [CAMP, ACAD1], units=[(DRUID, FROST)])
    fight(ro, st, 0, [r], {d: 0})
    assert types(st, 0) == [] and alive(st, 1) == [(DRUID, FROST)]


def test_frost_marks_in_one_group_stack(ro):
    """ENGINE-5: Shadow druid (5) blocked by two Frost druids: 5 - 2 = 3 <= 2 + 2, it dies and
    kills one of them (2 <= 3 < 4)."""
    st = blank(ro)
    [d] = seat(st, 0, [CAMP, ACAD1, ACAD2], units=[(DRUID, SHADOW)])
    f1, f2 = seat(st, 1, [CAMP, ACAD1], units=[(DRUID, FROST), (DRUID, FROST)])
    fight(ro, st, 0, [d], {f1: 0, f2: 0})
    assert types(st, 0) == [] and alive(st, 1) == [(DRUID, FROST)]
    assert inplay(st, 1) == {FROST: 1}


def test_frost_mark_is_only_for_its_own_battle_group(ro):
    st = blank(ro)
    fd, r = seat(st, 0, [CAMP, ACAD1], units=[(DRUID, FROST), RIDER])
    s1, s2 = seat(st, 1, [CAMP], units=[SENTRY, SENTRY])
    fight(ro, st, 0, [fd, r], {s1: 0, s2: 1})
    # the Frost druid wins its group; the rider trades evenly with the other sentry
    assert alive(st, 0) == [(DRUID, FROST)] and types(st, 1) == []


def test_bloom_mark_power(ro):
    st = blank(ro)
    [d] = seat(st, 0, [CAMP, ACAD1], units=[(DRUID, BLOOM)])
    assert power(ro, st, 0, d) == 5 and power(ro, st, 0, d, False) == 5
    s1, s2 = seat(st, 1, [CAMP], units=[SENTRY, SENTRY])
    fight(ro, st, 0, [d], {s1: 0, s2: 0})  # 4 < 5: survives, kills both
    assert alive(st, 0) == [(DRUID, BLOOM)] and types(st, 1) == []


@pytest.mark.parametrize(
    ("own", "theirs", "extra"), [([ACAD1], [ACAD1], 0), ([ACAD1], [], 1),
                                 (ACADS, [ACAD1], 2), (ACADS, [], 3), ([ACAD1], ACADS, 0)],
)  # fmt: skip
def test_bloom_mark_workers_by_academy_advantage(ro, own, theirs, extra):
    st = blank(ro)
    seat(st, 0, [CAMP, *own], units=[(DRUID, BLOOM)])
    seat(st, 1, [CAMP, *theirs])
    engine.harvest(ro.tb, st, 0)
    assert workers(st, 0) == 1 + extra and gold(st, 0) == 2


def test_crown_rune_all_druids(ro):
    st = blank(ro)
    c, d, r = seat(st, 0, [CAMP, ACAD1, ACAD2], units=[(DRUID, CROWN), DRUID, RIDER])
    [e] = seat(st, 1, [CAMP], units=[DRUID])
    assert [power(ro, st, 0, i) for i in (c, d, r)] == [5, 5, 2]
    assert power(ro, st, 1, e) == 2  # not the opponent's
    # ENGINE-5: two Crown Runes stack
    st.units[0, d, U_RUNE] = CROWN
    st.pl[0, PL_INPLAY + CROWN] = 2
    assert [power(ro, st, 0, i) for i in (c, d, r)] == [8, 8, 2]


def test_shadow_rune_power(ro):
    st = blank(ro)
    [d] = seat(st, 0, [CAMP, ACAD1, ACAD2], units=[(DRUID, SHADOW)])
    assert power(ro, st, 0, d) == 5
    assert state_druids_only(st, 0, d)


def test_spirit_rune_attacking_kills_unpainted_units_by_academy_advantage(ro):
    """ENGINE-4: advantage 3 - 1 = 2: two unpainted enemy units die as attackers are declared;
    the painted druid is spared."""
    st = blank(ro)
    [d] = seat(st, 0, [CAMP, *ACADS], units=[(DRUID, SPIRIT)])
    assert power(ro, st, 0, d) == 6
    seat(st, 1, [CAMP, ACAD1], workers=3, units=[SENTRY, RIDER, (DRUID, FROST)])
    n = fight(ro, st, 0, [d])
    assert alive(st, 1) == [(DRUID, FROST)] and workers(st, 1) == 3
    assert n == 1 and built(st, 1) == [ACAD1]  # unblocked: razes the Camp


def test_spirit_rune_kills_nothing_without_advantage(ro):
    st = blank(ro)
    [d] = seat(st, 0, [CAMP, *ACADS], units=[(DRUID, SPIRIT)])
    seat(st, 1, [CAMP, *ACADS], workers=3, units=[SENTRY, RIDER])
    fight(ro, st, 0, [d])
    assert types(st, 1) == [SENTRY, RIDER] and workers(st, 1) == 3


def test_spirit_rune_with_only_painted_units_left_kills_a_worker(ro):
    """Workers are unpainted units (RO-10)."""
    st = blank(ro)
    [d] = seat(st, 0, [CAMP, *ACADS], units=[(DRUID, SPIRIT)])
    seat(st, 1, [CAMP, ACAD1, ACAD2], workers=2, units=[(DRUID, FROST)])
    fight(ro, st, 0, [d])
    assert alive(st, 1) == [(DRUID, FROST)] and workers(st, 1) == 1


def test_spirit_rune_blocking_kills_an_attacker_before_battle(ro):
    """ENGINE-4: the blocking Spirit druid (advantage 1) kills the rider it blocks before the
    battle; the other rider is unblocked and razes a building."""
    st = blank(ro, turn=TURN + 1)
    r1, r2 = seat(st, 0, [CAMP, ACAD1, ACAD2], units=[RIDER, RIDER])  # 2 academies against 3
    [s] = seat(st, 1, [CAMP, TOWN, ACAD1, ACAD2, ACAD3], units=[(DRUID, SPIRIT)])
    n = fight(ro, st, 0, [r1, r2], {s: 0})
    assert n == 1
    assert types(st, 0) == [RIDER]
    assert alive(st, 1) == [(DRUID, SPIRIT)]
    assert len(built(st, 1)) == 4


# ---------------------------------------------------------------- traditions


def test_canine_one_attacking_rider_gains_a_power_per_academy(ro):
    st = blank(ro)
    r1, r2 = seat(st, 0, [CAMP, ACAD1, ACAD2], units=[RIDER, RIDER], brunes={CAMP: CANINE})
    s1, s2 = seat(st, 1, [CAMP], units=[SENTRY, SENTRY])
    fight(ro, st, 0, [r1, r2], {s1: 0, s2: 1})
    assert list(st.aux[A_BONUS, :2]) == [2, 0]
    # rider 0: 4 vs 2, survives; rider 1: 2 vs 2, both die
    assert types(st, 0) == [RIDER] and types(st, 1) == []


def test_canine_is_for_riders_a_druid_attack_gains_nothing(ro):
    st = blank(ro)
    [d] = seat(st, 0, [CAMP, ACAD1, ACAD2], units=[DRUID], brunes={CAMP: CANINE})
    [s] = seat(st, 1, [CAMP], units=[SENTRY])
    fight(ro, st, 0, [d], {s: 0})
    assert st.aux[A_BONUS, 0] == 0
    assert types(st, 0) == [] and types(st, 1) == []


@pytest.mark.parametrize(
    ("attackers", "acads", "gained"),
    [([RIDER, RIDER], [ACAD1], 1), ([RIDER, RIDER, RIDER], [ACAD1, ACAD2], 2),
     ([RIDER], [ACAD1], 0), ([RIDER, DRUID], [ACAD1], 0)],
)  # fmt: skip
def test_conquest_two_attacking_riders_give_a_worker_per_academy(ro, attackers, acads, gained):
    st = blank(ro)
    rows = seat(st, 0, [CAMP, ARMORY, *acads], workers=1, units=attackers,
                brunes={ARMORY: CONQUEST})  # fmt: skip
    seat(st, 1, [CAMP, TOWN, CAPITOL, GUILDHALL])
    fight(ro, st, 0, rows)
    assert workers(st, 0) == 1 + gained


def test_looting_gold_for_workers_and_sentries_riders_kill(ro):
    """ENGINE-6: Looting pays 2 gold for each worker or sentry its riders kill in battle."""
    st = blank(ro)
    [r] = seat(st, 0, [CAMP, ARMORY, ACAD1], units=[RIDER], brunes={ARMORY: LOOTING})
    [s] = seat(st, 1, [CAMP], workers=2, units=[SENTRY])
    fight(ro, st, 0, [r], {s: 0}, {0: 2})  # 2 >= 2: the rider dies; it kills the sentry and both
    assert gold(st, 0) == 6  # 3 kills x 2 gold (ENGINE-6)
    assert types(st, 0) == [] and types(st, 1) == [] and workers(st, 1) == 0


def test_looting_nothing_for_riders_or_druids_killed_or_for_druid_kills(ro):
    st = blank(ro)
    [d] = seat(st, 0, [CAMP, ARMORY, ACAD1], units=[DRUID], brunes={ARMORY: LOOTING})
    [s] = seat(st, 1, [CAMP], workers=1, units=[SENTRY])
    fight(ro, st, 0, [d], {s: 0}, {0: 1})
    assert gold(st, 0) == 0
    st = blank(ro)
    [r] = seat(st, 0, [CAMP, ARMORY, ACAD1], units=[RIDER], brunes={ARMORY: LOOTING})
    [e] = seat(st, 1, [CAMP], units=[RIDER])
    fight(ro, st, 0, [r], {e: 0})
    assert gold(st, 0) == 0 and types(st, 1) == []


def test_horses_goes_on_the_shrine_and_lifts_ro5_for_riders(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, ARMORY, CITADEL, SHRINE, ACAD1], gold=1, units=[SENTRY], hand=[HORSES])
    assert not hplay_rune(ro, st, 0, HORSES, CITADEL)
    assert hplay_rune(ro, st, 0, HORSES, SHRINE)
    i = engine.train(ro.tb, st, 0, SENTRY, 0)
    assert can_attack(ro.tb, st, 0, i)


def test_poisons_units_that_blocked_a_rider_die_after_battle(ro):
    st = blank(ro)
    [r] = seat(st, 0, [CAMP, ARMORY, CITADEL, SHRINE, ACAD1], units=[RIDER],
               brunes={SHRINE: POISONS})  # fmt: skip
    seat(st, 1, [CAMP], units=[SENTRY, SENTRY, SENTRY])
    fight(ro, st, 0, [r], {0: 0, 1: 0})
    # 4 >= 2: the rider dies and kills one sentry; Poisons kills the other; the third did not block
    assert types(st, 0) == [] and types(st, 1) == [SENTRY]


def test_poisons_is_for_riders(ro):
    st = blank(ro)
    [d] = seat(st, 0, [CAMP, ARMORY, CITADEL, SHRINE, ACAD1], units=[DRUID],
               brunes={SHRINE: POISONS})  # fmt: skip
    seat(st, 1, [CAMP], units=[SENTRY, SENTRY])
    fight(ro, st, 0, [d], {0: 0, 1: 0})
    assert types(st, 0) == [] and types(st, 1) == [SENTRY]


def test_travelling_riders_cost_0_and_druids_cost_2(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, ARMORY, CITADEL, SHRINE, ACAD1, ACAD2], gold=3, workers=1,
         brunes={CAMP: TRAVELLING})  # fmt: skip
    i = engine.train(ro.tb, st, 0, WORKER, -1)
    assert gold(st, 0) == 2
    assert engine.train(ro.tb, st, 0, SENTRY, i) == i
    assert gold(st, 0) == 2
    assert engine.train(ro.tb, st, 0, RIDER, i) == i
    assert gold(st, 0) == 0 and types(st, 0) == [DRUID]


def test_travelling_a_druid_needs_2_gold(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, ARMORY, CITADEL, SHRINE, ACAD1, ACAD2], gold=1, units=[SENTRY],
         brunes={CAMP: TRAVELLING})  # fmt: skip
    assert engine.train(ro.tb, st, 0, SENTRY, 0) == 0
    assert engine.train(ro.tb, st, 0, RIDER, 0) == -1
    assert gold(st, 0) == 1 and types(st, 0) == [RIDER]


def test_squire_a_worker_dies_instead_of_the_attacking_rider(ro):
    st = blank(ro)
    [r] = seat(st, 0, [CAMP, ACAD1, ACAD2], workers=2, units=[RIDER], brunes={CAMP: SQUIRE})
    [s] = seat(st, 1, [CAMP], units=[SENTRY])
    fight(ro, st, 0, [r], {s: 0})
    assert types(st, 0) == [RIDER] and workers(st, 0) == 1  # ENGINE-7
    assert types(st, 1) == []


def test_squire_without_a_worker_the_rider_dies(ro):
    st = blank(ro)
    [r] = seat(st, 0, [CAMP, ACAD1, ACAD2], units=[RIDER], brunes={CAMP: SQUIRE})
    [s] = seat(st, 1, [CAMP], units=[SENTRY])
    fight(ro, st, 0, [r], {s: 0})
    assert types(st, 0) == [] and types(st, 1) == []


def test_squire_is_for_riders(ro):
    st = blank(ro)
    [d] = seat(st, 0, [CAMP, ACAD1, ACAD2], workers=2, units=[DRUID], brunes={CAMP: SQUIRE})
    [s] = seat(st, 1, [CAMP], units=[SENTRY])
    fight(ro, st, 0, [d], {s: 0})
    assert types(st, 0) == [] and workers(st, 0) == 2


def test_corruption_takes_an_enemy_unit_with_its_rune(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, GUILDHALL, *ACADS], hand=[CORRUPTION])
    seat(st, 1, [CAMP, ACAD1], units=[SENTRY, (DRUID, FROST), RIDER])
    assert hplay_rune(ro, st, 0, CORRUPTION, GUILDHALL)
    # the heuristic takes the most valuable unit: the painted druid; its rune goes with it
    assert alive(st, 0) == [(DRUID, FROST)]
    assert alive(st, 1) == [(SENTRY, -1), (RIDER, -1)]
    assert inplay(st, 0) == {CORRUPTION: 1, FROST: 1} and inplay(st, 1) == {}
    # it cannot attack this turn (RO-10), but can on its new owner's next turn
    assert not can_attack(ro.tb, st, 0, 0)
    war(ro, st, 0)
    assert built(st, 1) == [CAMP, ACAD1]
    st.board[G_TURN] = TURN + 2
    assert can_attack(ro.tb, st, 0, 0)


def test_corruption_takes_a_worker_or_nothing(ro):
    """ENGINE-8: playable with no enemy unit; a worker is taken when there is one."""
    st = blank(ro)
    seat(st, 0, [CAMP, GUILDHALL, *ACADS], hand={CORRUPTION: 1})
    seat(st, 1, [CAMP], workers=2)
    assert hplay_rune(ro, st, 0, CORRUPTION, GUILDHALL)
    assert (workers(st, 0), workers(st, 1)) == (1, 1)
    st = blank(ro)
    seat(st, 0, [CAMP, GUILDHALL, *ACADS], hand={CORRUPTION: 1})
    seat(st, 1, [CAMP])
    assert hplay_rune(ro, st, 0, CORRUPTION, GUILDHALL)
    assert types(st, 0) == [] and workers(st, 0) == 0 and inplay(st, 0) == {CORRUPTION: 1}


def test_dawn_raid_kills_one_unit_before_blockers_are_chosen(ro):
    st = blank(ro)
    [r] = seat(st, 0, [CAMP, CITADEL, *ACADS], units=[RIDER], brunes={CITADEL: DAWN_RAID})
    seat(st, 1, [CAMP], units=[SENTRY, DRUID])
    st.aux[A_ATK, 0] = r
    hdeclare(ro, st, 0, 1)
    assert st.units[1, 1, U_DEAD] == 1  # the druid (most valuable) is already dead
    assert st.units[1, 0, U_DEAD] == 0


def test_dawn_raid_needs_an_attacking_rider(ro):
    st = blank(ro)
    [d] = seat(st, 0, [CAMP, CITADEL, *ACADS], units=[DRUID], brunes={CITADEL: DAWN_RAID})
    seat(st, 1, [CAMP, TOWN], units=[SENTRY, DRUID])
    fight(ro, st, 0, [d])
    assert types(st, 1) == [SENTRY, DRUID]


def test_dawn_raid_in_a_war(ro):
    """The killed unit cannot block: the lone enemy sentry dies as the riders are declared, and
    both riders go unblocked and raze a building each."""
    st = blank(ro)
    seat(st, 0, [CAMP, CITADEL, *ACADS], units=[RIDER, RIDER], brunes={CITADEL: DAWN_RAID})
    seat(st, 1, [CAMP, TOWN, ACAD1], units=[SENTRY])
    war(ro, st, 0)
    assert types(st, 1) == [] and len(built(st, 1)) == 1 and types(st, 0) == [RIDER, RIDER]


def test_rituals_riders_have_plus_1_power(ro):
    st = blank(ro)
    r, d = seat(st, 0, [CAMP, CITADEL, *ACADS], units=[RIDER, DRUID], brunes={CITADEL: RITUALS})
    assert power(ro, st, 0, r) == 3 and power(ro, st, 0, r, False) == 3
    assert power(ro, st, 0, d) == 2
    [s] = seat(st, 1, [CAMP], units=[SENTRY])
    fight(ro, st, 0, [r], {s: 0})
    assert types(st, 0) == [RIDER, DRUID] and types(st, 1) == []


def test_rituals_riders_block_with_plus_1(ro):
    st = blank(ro)
    [r] = seat(st, 0, [CAMP], units=[RIDER])
    [b] = seat(st, 1, [CAMP, CITADEL, *ACADS], units=[RIDER], brunes={CITADEL: RITUALS})
    fight(ro, st, 0, [r], {b: 0})
    assert types(st, 0) == [] and types(st, 1) == [RIDER]


def test_medicine_a_worker_for_a_gold(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, GUILDHALL], gold=3, brunes={GUILDHALL: MEDICINE})
    engine.harvest(ro.tb, st, 0)
    assert (gold(st, 0), workers(st, 0)) == (4, 3)  # 3 + 2 - 1; 1 + 1 + 1


def test_medicine_gold_never_below_0(ro):
    st = blank(ro)
    seat(st, 0, [GUILDHALL], gold=0, brunes={GUILDHALL: MEDICINE})
    engine.harvest(ro.tb, st, 0)
    assert (gold(st, 0), workers(st, 0)) == (0, 3)


def test_medicine_needs_no_academy(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, GUILDHALL], hand=[MEDICINE])
    assert hplay_rune(ro, st, 0, MEDICINE, GUILDHALL)


def test_shields_a_sentry_blocking_a_rider_gains_1(ro):
    st = blank(ro)
    [r] = seat(st, 0, [CAMP], units=[RIDER])
    [s] = seat(st, 1, [CAMP, TOWN, ACAD1], units=[SENTRY], brunes={TOWN: SHIELDS})
    fight(ro, st, 0, [r], {s: 0})  # 3 >= 2: the rider dies; 3 > 2: the sentry lives
    assert types(st, 0) == [] and types(st, 1) == [SENTRY]


def test_shields_not_against_druids(ro):
    st = blank(ro)
    [d] = seat(st, 0, [CAMP], units=[DRUID])
    [s] = seat(st, 1, [CAMP, TOWN, ACAD1], units=[SENTRY], brunes={TOWN: SHIELDS})
    fight(ro, st, 0, [d], {s: 0})
    assert types(st, 0) == [] and types(st, 1) == []


def test_steel_craft_attacking_riders_plus_2(ro):
    st = blank(ro)
    r, d = seat(st, 0, [CAMP, TOWN, CAPITOL, ACAD1], units=[RIDER, DRUID], brunes={CAPITOL: STEEL})
    assert power(ro, st, 0, r) == 4 and power(ro, st, 0, r, False) == 2
    assert power(ro, st, 0, d) == 2
    s1, s2 = seat(st, 1, [CAMP], units=[SENTRY, SENTRY])
    fight(ro, st, 0, [r], {s1: 0})  # 4 > 2
    assert types(st, 0) == [RIDER, DRUID] and types(st, 1) == [SENTRY]
    del s2


def test_steel_craft_not_when_blocking(ro):
    st = blank(ro)
    [a] = seat(st, 0, [CAMP], units=[RIDER])
    [b] = seat(st, 1, [CAMP, TOWN, CAPITOL, ACAD1], units=[RIDER], brunes={CAPITOL: STEEL})
    fight(ro, st, 0, [a], {b: 0})
    assert types(st, 0) == [] and types(st, 1) == []


def test_cloaking_druids_only_stopped_by_druids(ro):
    st = blank(ro)
    d, r = seat(st, 0, [CAMP, TOWN, CAPITOL], units=[DRUID, RIDER], hand=[CLOAKING])
    assert not state_druids_only(st, 0, d)
    assert hplay_rune(ro, st, 0, CLOAKING, CAPITOL)  # no academy needed
    assert state_druids_only(st, 0, d) and not state_druids_only(st, 0, r)
    seat(st, 1, [CAMP, TOWN], workers=3, units=[SENTRY, SENTRY])
    war(ro, st, 0)
    # the heuristic sends the druid alone (no druid can stop it); sentries and workers may not
    # block it, and it razes the Town
    assert built(st, 1) == [CAMP]
    assert types(st, 0) == [RIDER, DRUID]
    assert types(st, 1) == [SENTRY, SENTRY] and workers(st, 1) == 3


def test_rune_numbers_are_config():
    c = scripted(
        compiled(rules={"runes": {"crown_rune": {"power": 1}, "medicine": {"gold": 3},
                                  "travelling": {"rider_cost": 2}}})
    )  # fmt: skip
    st = blank(c)
    d, _ = seat(st, 0, [CAMP, GUILDHALL, ARMORY, CITADEL, ACAD1, ACAD2], gold=3,
                units=[(DRUID, CROWN), SENTRY], brunes={GUILDHALL: MEDICINE, CAMP: TRAVELLING})  # fmt: skip
    assert power(c, st, 0, d) == 3
    engine.harvest(c.tb, st, 0)
    assert gold(st, 0) == 2  # 3 + 2 - 3
    engine.train(c.tb, st, 0, SENTRY, 1)
    assert gold(st, 0) == 0
