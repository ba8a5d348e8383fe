"""One scripted test per building effect and per building rule (rulebook Buildings; RO-2, RO-3,
RO-4, RO-5, RO-6)."""

from __future__ import annotations

import pytest

from balance.games.raven_order import engine
from balance.games.raven_order.state import (
    G_DECK_TOP,
    PL_BUILDS,
    PL_BUILT,
    PL_GOLD,
    PL_HAND_N,
    PL_NBLD,
    PL_WORKERS,
)
from balance.games.raven_order.tables import (
    ACAD1,
    ACAD2,
    ACAD3,
    ARMORY,
    CAMP,
    CAPITOL,
    CITADEL,
    CROWN,
    DRUID,
    FROST,
    GUILDHALL,
    LOOTING,
    MEDICINE,
    RIDER,
    SENTRY,
    SHADOW,
    SHRINE,
    SPIRIT,
    STATUE,
    STATUE_BUILDS,
    STATUE_RUNES,
    STATUE_WORKERS,
    TOWN,
    WORKER,
)

from .helpers import blank, built, compiled, gold, hand, scripted, seat, types, workers
from .helpers import build as hbuild
from .helpers import construction as hconstruction
from .helpers import play_rune as hplay_rune

# ---------------------------------------------------------------- RO-2: Harvest


@pytest.mark.parametrize(
    ("buildings", "gold_after"),
    [([], 0), ([CAMP], 2), ([CAMP, TOWN], 4), ([CAMP, TOWN, CAPITOL], 7), ([TOWN], 2)],
)
def test_ro2_camp_town_capitol_income(ro, buildings, gold_after):
    st = blank(ro)
    seat(st, 0, buildings, gold=0)
    engine.harvest(ro.tb, st, 0)
    assert gold(st, 0) == gold_after
    assert workers(st, 0) == 1  # +1 worker every Harvest
    assert gold(st, 1) == 0 and workers(st, 1) == 0  # the other seat harvests on its own turn


def test_ro2_income_adds_to_the_gold_held(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, TOWN, CAPITOL], gold=4, workers=3)
    engine.harvest(ro.tb, st, 0)
    assert (gold(st, 0), workers(st, 0)) == (11, 4)


def test_ro2_guildhall_gives_a_worker(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, GUILDHALL])
    engine.harvest(ro.tb, st, 0)
    assert (gold(st, 0), workers(st, 0)) == (2, 2)


def test_ro2_academy_3_draws_a_rune(ro):
    st = blank(ro, deck=[SHADOW, FROST])
    seat(st, 0, [CAMP, ACAD1, ACAD2, ACAD3])
    engine.harvest(ro.tb, st, 0)
    assert hand(st, 0) == {SHADOW: 1} and st.pl[0, PL_HAND_N] == 1
    assert st.board[G_DECK_TOP] == 1
    engine.harvest(ro.tb, st, 0)
    assert hand(st, 0) == {SHADOW: 1, FROST: 1}
    engine.harvest(ro.tb, st, 0)  # the deck is empty: nothing (spent runes are not reshuffled)
    assert hand(st, 0) == {SHADOW: 1, FROST: 1} and st.pl[0, PL_HAND_N] == 2


@pytest.mark.parametrize("acads", [[ACAD1], [ACAD1, ACAD2]])
def test_ro2_lower_academies_draw_nothing(ro, acads):
    st = blank(ro, deck=[SHADOW])
    seat(st, 0, [CAMP, *acads])
    engine.harvest(ro.tb, st, 0)
    assert hand(st, 0) == {}


def test_ro2_harvest_numbers_are_config():
    c = scripted(
        compiled(
            rules={
                "harvest_workers": 2,
                "buildings": {"camp": {"gold": 5}, "guildhall": {"workers": 3}},
            }
        )
    )
    st = blank(c)
    seat(st, 0, [CAMP, GUILDHALL])
    engine.harvest(c.tb, st, 0)
    assert (gold(st, 0), workers(st, 0)) == (5, 5)


# ---------------------------------------------------------------- RO-4: training permissions


def test_ro4_armory_trains_sentries_from_workers(ro):
    st = blank(ro)
    seat(st, 0, [CAMP], gold=5, workers=2)
    assert engine.train(ro.tb, st, 0, WORKER, -1) == -1  # no Armory
    assert (gold(st, 0), workers(st, 0), types(st, 0)) == (5, 2, [])
    st.pl[0, PL_BUILT + ARMORY] = 1
    st.pl[0, PL_NBLD] += 1
    assert engine.train(ro.tb, st, 0, WORKER, -1) == 0
    assert (gold(st, 0), workers(st, 0), types(st, 0)) == (4, 1, [SENTRY])


def test_ro4_citadel_trains_riders_from_sentries(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, ARMORY], gold=5, units=[SENTRY])
    assert engine.train(ro.tb, st, 0, SENTRY, 0) == -1  # no Citadel
    st2 = blank(ro)
    seat(st2, 0, [CAMP, ARMORY, CITADEL], gold=5, units=[SENTRY])
    assert engine.train(ro.tb, st2, 0, SENTRY, 0) == 0
    assert (gold(st2, 0), types(st2, 0)) == (4, [RIDER])
    assert (gold(st, 0), types(st, 0)) == (5, [SENTRY])


def test_ro4_shrine_trains_druids_from_riders(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, ARMORY, CITADEL], gold=5, units=[RIDER])
    assert engine.train(ro.tb, st, 0, RIDER, 0) == -1  # no Shrine
    st2 = blank(ro)
    seat(st2, 0, [CAMP, ARMORY, CITADEL, SHRINE], gold=5, units=[RIDER])
    assert engine.train(ro.tb, st2, 0, RIDER, 0) == 0
    assert (gold(st2, 0), types(st2, 0)) == (4, [DRUID])


def test_ro4_the_trainer_is_enough_without_the_lower_buildings(ro):
    """Training a rider needs the Citadel, not the Armory (an Armory razed after the Citadel
    was built does not stop riders)."""
    st = blank(ro)
    seat(st, 0, [CAMP, CITADEL], gold=1, units=[SENTRY])
    assert engine.train(ro.tb, st, 0, SENTRY, 0) == 0


def test_ro4_training_needs_gold_and_a_unit(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, ARMORY, CITADEL, SHRINE], gold=0, workers=1, units=[SENTRY])
    assert engine.train(ro.tb, st, 0, WORKER, -1) == -1  # no gold
    assert engine.train(ro.tb, st, 0, SENTRY, 0) == -1
    st.pl[0, PL_GOLD] = 3
    assert engine.train(ro.tb, st, 0, RIDER, -1) == -1  # no rider
    assert engine.train(ro.tb, st, 0, DRUID, -1) == -1  # nothing above a druid
    st.pl[0, PL_WORKERS] = 0
    assert engine.train(ro.tb, st, 0, WORKER, -1) == -1  # no worker
    assert (gold(st, 0), types(st, 0)) == (3, [SENTRY])


def test_ro4_a_druid_from_a_worker_in_one_turn_costs_3_gold(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, ARMORY, CITADEL, SHRINE], gold=3, workers=1)
    i = engine.train(ro.tb, st, 0, WORKER, -1)
    assert engine.train(ro.tb, st, 0, SENTRY, i) == i
    assert engine.train(ro.tb, st, 0, RIDER, i) == i
    assert (gold(st, 0), workers(st, 0), types(st, 0)) == (0, 0, [DRUID])


def test_ro4_any_number_of_units_a_turn(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, ARMORY], gold=10, workers=6)
    for _ in range(6):
        assert engine.train(ro.tb, st, 0, WORKER, -1) >= 0
    assert (gold(st, 0), workers(st, 0), types(st, 0)) == (4, 0, [SENTRY] * 6)


def test_ro4_training_costs_are_config():
    c = scripted(compiled(rules={"units": {"sentry": {"cost": 2}, "druid": {"cost": 4}}}))
    st = blank(c)
    seat(st, 0, [CAMP, ARMORY, CITADEL, SHRINE], gold=7, workers=1)
    i = engine.train(c.tb, st, 0, WORKER, -1)
    engine.train(c.tb, st, 0, SENTRY, i)
    assert gold(st, 0) == 4
    assert engine.train(c.tb, st, 0, RIDER, i) == i
    assert (gold(st, 0), types(st, 0)) == (0, [DRUID])


def test_ro5_selling_workers(ro):
    st = blank(ro)
    seat(st, 0, [CAMP], gold=1, workers=3)
    for _ in range(3):
        assert engine.sell_worker(ro.tb, st, 0)
    assert (gold(st, 0), workers(st, 0)) == (4, 0)
    assert not engine.sell_worker(ro.tb, st, 0)
    assert (gold(st, 0), workers(st, 0)) == (4, 0)


# ---------------------------------------------------------------- RO-3: building


@pytest.mark.parametrize(
    ("b", "cost"),
    [(CAMP, 3), (TOWN, 5), (CAPITOL, 6), (ARMORY, 2), (CITADEL, 2), (SHRINE, 2), (STATUE, 1),
     (ACAD1, 2), (ACAD2, 2), (ACAD3, 2), (GUILDHALL, 4)],
)  # fmt: skip
def test_ro3_building_costs(ro, b, cost):
    req = {TOWN: [CAMP], CAPITOL: [CAMP, TOWN], CITADEL: [ARMORY], SHRINE: [ARMORY, CITADEL],
           STATUE: [ARMORY], ACAD2: [ACAD1], ACAD3: [ACAD1, ACAD2]}.get(b, [])  # fmt: skip
    st = blank(ro)
    seat(st, 0, req, gold=cost - 1)
    assert not hbuild(ro, st, 0, b, STATUE_WORKERS)
    assert built(st, 0) == sorted(req) and gold(st, 0) == cost - 1
    st.pl[0, PL_GOLD] = cost + 3
    assert hbuild(ro, st, 0, b, STATUE_WORKERS)
    assert built(st, 0) == sorted([*req, b]) and gold(st, 0) == 3
    assert st.pl[0, PL_NBLD] == len(req) + 1


@pytest.mark.parametrize(
    ("b", "req"),
    [(TOWN, CAMP), (CAPITOL, TOWN), (CITADEL, ARMORY), (SHRINE, CITADEL), (STATUE, ARMORY),
     (ACAD2, ACAD1), (ACAD3, ACAD2)],
)  # fmt: skip
def test_ro3_requirements_must_be_standing(ro, b, req):
    st = blank(ro)
    others = [x for x in (CAMP, TOWN, ARMORY, CITADEL, ACAD1, ACAD2) if x not in (b, req)]
    seat(st, 0, others, gold=20)
    assert not hbuild(ro, st, 0, b, STATUE_WORKERS)
    assert gold(st, 0) == 20
    st.pl[0, PL_BUILT + req] = 1
    st.pl[0, PL_NBLD] += 1
    assert hbuild(ro, st, 0, b, STATUE_WORKERS)


def test_ro3_a_razed_requirement_blocks_building(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, ARMORY], gold=20)
    engine.destroy_building(ro.tb, st, 0, ARMORY)
    assert not hbuild(ro, st, 0, CITADEL, -1)


def test_ro3_one_building_a_turn(ro):
    st = blank(ro)
    seat(st, 0, [CAMP], gold=20)
    assert hbuild(ro, st, 0, ARMORY, -1)
    assert not hbuild(ro, st, 0, ACAD1, -1)
    assert not hbuild(ro, st, 0, TOWN, -1)
    assert built(st, 0) == [CAMP, ARMORY] and gold(st, 0) == 18
    st.pl[0, PL_BUILDS] = 1  # the next turn (engine.construction resets it)
    assert hbuild(ro, st, 0, ACAD1, -1)


def test_ro3_the_construction_phase_allows_one_build(ro):
    """engine.construction gives each turn exactly one build (PL_BUILDS = 1)."""
    st = blank(ro)
    seat(st, 0, [CAMP], gold=20)
    st.pl[0, PL_BUILDS] = 0
    hconstruction(ro, st, 0)  # a scripted seat ends the phase at once
    assert st.pl[0, PL_BUILDS] == 1


def test_ro3_only_one_of_each_type(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, ARMORY], gold=20)
    for b in (CAMP, ARMORY):
        assert not hbuild(ro, st, 0, b, -1)
    assert gold(st, 0) == 20 and st.pl[0, PL_NBLD] == 2


def test_ro3_a_destroyed_building_may_be_rebuilt(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, TOWN], gold=5)
    engine.destroy_building(ro.tb, st, 0, TOWN)
    assert built(st, 0) == [CAMP] and st.pl[0, PL_NBLD] == 1
    assert hbuild(ro, st, 0, TOWN, -1)
    assert built(st, 0) == [CAMP, TOWN] and gold(st, 0) == 0
    engine.harvest(ro.tb, st, 0)
    assert gold(st, 0) == 4  # and it works again


def test_ro3_statue_two_workers(ro):
    st = blank(ro, deck=[CROWN, SHADOW])
    seat(st, 0, [ARMORY], gold=1, workers=1)
    assert hbuild(ro, st, 0, STATUE, STATUE_WORKERS)
    assert (gold(st, 0), workers(st, 0), hand(st, 0)) == (0, 3, {})
    assert st.pl[0, PL_BUILDS] == 0


def test_ro3_statue_two_runes(ro):
    st = blank(ro, deck=[CROWN, SHADOW, SPIRIT])
    seat(st, 0, [ARMORY], gold=1)
    assert hbuild(ro, st, 0, STATUE, STATUE_RUNES)
    assert hand(st, 0) == {CROWN: 1, SHADOW: 1} and st.pl[0, PL_HAND_N] == 2
    assert workers(st, 0) == 0 and st.board[G_DECK_TOP] == 2


def test_ro3_statue_runes_from_a_short_deck(ro):
    st = blank(ro, deck=[CROWN])
    seat(st, 0, [ARMORY], gold=1)
    assert hbuild(ro, st, 0, STATUE, STATUE_RUNES)
    assert hand(st, 0) == {CROWN: 1}


def test_ro3_statue_two_extra_builds_this_turn(ro):
    st = blank(ro)
    seat(st, 0, [CAMP, ARMORY], gold=20)
    assert hbuild(ro, st, 0, STATUE, STATUE_BUILDS)
    assert hbuild(ro, st, 0, ACAD1, -1)
    assert hbuild(ro, st, 0, ACAD2, -1)  # its requirement was built this turn
    assert not hbuild(ro, st, 0, GUILDHALL, -1)
    assert built(st, 0) == [CAMP, ARMORY, STATUE, ACAD1, ACAD2]
    assert gold(st, 0) == 20 - 1 - 2 - 2
    assert workers(st, 0) == 0


def test_ro3_a_rebuilt_statue_chooses_again(ro):
    st = blank(ro, deck=[CROWN, SHADOW])
    seat(st, 0, [ARMORY], gold=2)
    assert hbuild(ro, st, 0, STATUE, STATUE_WORKERS)
    engine.destroy_building(ro.tb, st, 0, STATUE)
    st.pl[0, PL_BUILDS] = 1
    assert hbuild(ro, st, 0, STATUE, STATUE_RUNES)
    assert (gold(st, 0), workers(st, 0), hand(st, 0)) == (0, 2, {CROWN: 1, SHADOW: 1})


def test_ro3_statue_numbers_are_config():
    c = scripted(compiled(rules={"statue": {"workers": 5, "extra_builds": 1}}))
    st = blank(c)
    seat(st, 0, [ARMORY], gold=10)
    assert hbuild(c, st, 0, STATUE, STATUE_WORKERS)
    assert workers(st, 0) == 5
    st2 = blank(c)
    seat(st2, 0, [ARMORY], gold=10)
    assert hbuild(c, st2, 0, STATUE, STATUE_BUILDS)
    assert hbuild(c, st2, 0, ACAD1, -1)
    assert not hbuild(c, st2, 0, GUILDHALL, -1)


def test_ro3_the_statue_asks_the_policy_when_no_choice_is_given(ro):
    """statue_choice -1: the seat's configured choice (economy: builds)."""
    st = blank(ro)
    seat(st, 0, [ARMORY], gold=10)
    assert hbuild(ro, st, 0, STATUE, -1)
    assert st.pl[0, PL_BUILDS] == 2


# ---------------------------------------------------------------- RO-6: academies and rune levels


@pytest.mark.parametrize(
    ("acads", "playable"),
    [
        ([], {MEDICINE}),
        ([ACAD1], {MEDICINE, LOOTING, FROST}),
        ([ACAD1, ACAD2], {MEDICINE, LOOTING, FROST, CROWN}),
        ([ACAD1, ACAD2, ACAD3], {MEDICINE, LOOTING, FROST, CROWN, SPIRIT}),
        ([ACAD2], {MEDICINE, CROWN}),  # RO-6: level N needs the Academy Lv. N building itself
    ],
)
def test_ro6_academy_levels_gate_rune_levels(ro, acads, playable):
    got = set()
    for r, host in ((MEDICINE, GUILDHALL), (LOOTING, ARMORY), (FROST, 0), (CROWN, 0), (SPIRIT, 0)):
        st = blank(ro)
        seat(st, 0, [CAMP, ARMORY, GUILDHALL, *acads], units=[DRUID], hand=[r])
        if hplay_rune(ro, st, 0, r, host):
            got.add(r)
            assert hand(st, 0) == {}
        else:
            assert hand(st, 0) == {r: 1}
    assert got == playable
