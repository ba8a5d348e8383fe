"""Battle groups are fought separately with all modifiers applied (RO-8), and killed units leave
play at the end of the war (the rulebook's End of War; ENGINE-10): every group's modifiers are those
of the units in play when the battles begin, so no result depends on the order of the groups.
Also Squire against a blocking Spirit Rune (ENGINE-4, ENGINE-7, RO-10) and what the replay says
about kills before battle and Poisons (narrate.py)."""

from __future__ import annotations

import numpy as np
import pytest

from balance.games.raven_order import narrate, state
from balance.games.raven_order.state import (
    A_ATK,
    A_AWK,
    A_BLK,
    KILLED,
    PL_NU,
    U_DEAD,
    log_rows,
    mark_killed,
    sweep,
)
from balance.games.raven_order.tables import (
    ACAD1,
    ACAD2,
    ACAD3,
    ARMORY,
    BLOOM,
    CAMP,
    CAPITOL,
    CITADEL,
    CROWN,
    DAWN_RAID,
    DRUID,
    FROST,
    LOOTING,
    POISONS,
    RIDER,
    RITUALS,
    SENTRY,
    SHADOW,
    SHIELDS,
    SHRINE,
    SPIRIT,
    SQUIRE,
    STEEL,
    TOWN,
)

from .helpers import (
    TURN,
    alive,
    blank,
    built,
    check_counts,
    fight,
    gold,
    inplay,
    seat,
    types,
    workers,
)
from .helpers import declare as hdeclare

ACADS = [ACAD1, ACAD2, ACAD3]
LOG = 256  # log rows of a scripted war


def battles(st) -> list[tuple[int, int, int, int]]:
    """(attacker type, attacker power, blockers' power, attacker dies) of each logged battle."""
    rows = log_rows(st)
    return [(int(r[2]), int(r[3]), int(r[4]), int(r[6])) for r in rows if r[0] == state.E_BATTLE]


def told(c, st) -> list[str]:
    """The replay's lines for the events logged in ``st`` (narrate's own words)."""
    return narrate.event_lines(c, log_rows(st))


def reversed_fight(c, st, p, attackers, blocks=None, wblocks=None) -> int:
    """``fight`` with the battle groups in the reverse order: attacker index a becomes n - 1 - a."""
    n = len(attackers)
    blocks = {i: n - 1 - a for i, a in (blocks or {}).items()}
    wblocks = {n - 1 - a: w for a, w in (wblocks or {}).items()}
    return fight(c, st, p, attackers[::-1], blocks, wblocks)


def outcome(st) -> tuple:
    """Everything a war leaves that does not depend on unit rows: each seat's living units with
    their runes, workers, gold, buildings and runes in play."""
    return tuple(
        (alive(st, p), workers(st, p), gold(st, p), built(st, p), inplay(st, p)) for p in range(2)
    )


# ---------------------------------------------------------------- scripted, with known answers


def _crown_attacker(ro, log_cap=0):
    """Seat 0 attacks with a Crown druid C and a plain druid D (5 each, Crown's +3); three
    sentries (6) block C, two (4) block D."""
    st = blank(ro, log_cap=log_cap)
    c, d = seat(st, 0, [CAMP, ACAD1, ACAD2], units=[(DRUID, CROWN), DRUID])
    s = seat(st, 1, [CAMP], units=[SENTRY] * 5)
    return st, [c, d], {s[0]: 0, s[1]: 0, s[2]: 0, s[3]: 1, s[4]: 1}


def _crown_blocker(ro, log_cap=0):
    """Seat 1 blocks with a Crown druid C and a plain druid D (5 each): C against a Bloom druid
    (5), D against a rider (2)."""
    st = blank(ro, log_cap=log_cap)
    b, r = seat(st, 0, [CAMP, ACAD1], units=[(DRUID, BLOOM), RIDER])
    c, d = seat(st, 1, [CAMP, ACAD1, ACAD2], units=[(DRUID, CROWN), DRUID])
    return st, [b, r], {c: 0, d: 1}


def _poisoned_crown(ro, log_cap=0):
    """Seat 0's rider (Poisons on the Shrine) is blocked by seat 1's Crown druid C (5), its druid
    (2) by seat 1's druid D (5)."""
    st = blank(ro, log_cap=log_cap)
    r, d = seat(st, 0, [CAMP, ARMORY, CITADEL, SHRINE, ACAD1], units=[RIDER, DRUID],
                brunes={SHRINE: POISONS})  # fmt: skip
    c, e = seat(st, 1, [CAMP, ACAD1, ACAD2], units=[(DRUID, CROWN), DRUID])
    return st, [r, d], {c: 0, e: 1}


SCENARIOS = {
    # C: 6 >= 5, it dies and kills two sentries (4 <= 5); D: 4 < 5, it lives and kills both.
    # Fought C first with C's Crown Rune gone, D would have been a 2 and died.
    "crown_attacker": (_crown_attacker, ([(DRUID, -1)], [(SENTRY, -1)])),
    # C and the Bloom druid kill each other (5 = 5); D (5) kills the rider and lives.
    "crown_blocker": (_crown_blocker, ([], [(DRUID, -1)])),
    # The rider dies against C, and Poisons kills C after the battle; D (5) still has its +3 and
    # kills seat 0's druid (2) without dying.
    "poisoned_crown": (_poisoned_crown, ([], [(DRUID, -1)])),
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_ro8_engine10_reversing_the_battle_groups_gives_the_same_survivors(ro, name):
    make, (want0, want1) = SCENARIOS[name]
    st, attackers, blocks = make(ro)
    assert fight(ro, st, 0, attackers, blocks) == 0
    check_counts(st)
    first = outcome(st)
    st, attackers, blocks = make(ro)
    assert reversed_fight(ro, st, 0, attackers, blocks) == 0
    check_counts(st)
    assert outcome(st) == first
    assert alive(st, 0) == want0 and alive(st, 1) == want1


def test_engine10_crown_druid_killed_in_group_1_still_gives_3_in_group_2(ro):
    """The attacking Crown druid dies in the first group; the druid of the second still has
    2 + 3 = 5 against the two sentries' 4, lives and kills both."""
    st, attackers, blocks = _crown_attacker(ro, LOG)
    fight(ro, st, 0, attackers, blocks)
    assert battles(st) == [(DRUID, 5, 6, 1), (DRUID, 5, 4, 0)]
    assert inplay(st, 0) == {}  # the Crown Rune left play at the end of the war
    assert types(st, 0) == [DRUID] and types(st, 1) == [SENTRY]


def test_engine10_blocking_crown_druid_killed_in_group_1_still_gives_3_in_group_2(ro):
    st, attackers, blocks = _crown_blocker(ro, LOG)
    fight(ro, st, 0, attackers, blocks)
    assert battles(st) == [(DRUID, 5, 5, 1), (RIDER, 2, 5, 1)]
    assert alive(st, 1) == [(DRUID, -1)] and inplay(st, 1) == {}


def test_engine10_crown_druid_killed_by_poisons_still_gives_3_in_the_next_group(ro):
    st, attackers, blocks = _poisoned_crown(ro, LOG)
    fight(ro, st, 0, attackers, blocks)
    assert battles(st) == [(RIDER, 2, 5, 1), (DRUID, 2, 5, 1)]
    assert alive(st, 1) == [(DRUID, -1)]


def test_engine10_killed_units_stay_in_play_until_the_end_of_the_war(ro):
    """During the battles a killed unit is only marked (state.KILLED): its rune and its type's
    count stay; sweep removes it, with them."""
    st, attackers, _ = _crown_attacker(ro)
    st.aux[A_ATK, :2] = attackers
    hdeclare(ro, st, 0, 2)
    st.aux[A_BLK] = -1
    st.aux[A_AWK] = 0
    mark_killed(st, 0, attackers[0])
    assert st.units[0, attackers[0], U_DEAD] == KILLED
    assert inplay(st, 0) == {CROWN: 1}
    sweep(st, 0)
    assert inplay(st, 0) == {} and alive(st, 0) == [(DRUID, -1)] and st.pl[0, PL_NU] == 1
    check_counts(st)


def test_engine4_engine10_a_unit_killed_before_battle_takes_its_rune_out_of_the_battles(ro):
    """Dawn Raid kills the Crown druid as the rider is declared: when the battles begin it is no
    longer in play, so the other druid blocks with 2, and it and the rider kill each other."""
    st = blank(ro, log_cap=LOG)
    [r] = seat(st, 0, [CAMP, CITADEL, *ACADS], units=[RIDER], brunes={CITADEL: DAWN_RAID})
    c, d = seat(st, 1, [CAMP, ACAD1, ACAD2], units=[(DRUID, CROWN), DRUID])
    fight(ro, st, 0, [r], {d: 0})
    assert battles(st) == [(RIDER, 2, 2, 1)]
    assert types(st, 0) == [] and types(st, 1) == [] and inplay(st, 1) == {}
    del c


# ---------------------------------------------------------------- order, over many positions

PAINT = [-1, -1, FROST, BLOOM, CROWN, CROWN, SHADOW]
BRUNES = {TOWN: SHIELDS, ARMORY: LOOTING, CITADEL: RITUALS, SHRINE: POISONS, CAPITOL: STEEL,
          CAMP: SQUIRE}  # fmt: skip
ALL = [CAMP, TOWN, CAPITOL, ARMORY, CITADEL, SHRINE, ACAD1, ACAD2]


def _position(ro, spec):
    st = blank(ro)
    sides = []
    for p in range(2):
        brunes = {b: r for b, r in BRUNES.items() if spec["brunes"][p][b]}
        units = []
        for t, r in spec["units"][p]:
            units.append((t, r) if t == DRUID else t)
        rows = seat(st, p, ALL, workers=spec["workers"][p], units=units, brunes=brunes)
        sides.append(rows)
    return st, sides


def _random_spec(rng):
    units = []
    for p in range(2):
        n = int(rng.integers(2, 7))
        side = []
        for _ in range(n):
            t = int(rng.choice([SENTRY, RIDER, DRUID] if p == 1 else [RIDER, DRUID]))
            side.append((t, int(rng.choice(PAINT)) if t == DRUID else -1))
        units.append(side)
    return {
        "units": units,
        "workers": [int(rng.integers(0, 3)), int(rng.integers(0, 4))],
        "brunes": [{b: bool(rng.random() < 0.3) for b in BRUNES} for _ in range(2)],
        "blocks": [int(rng.integers(-1, len(units[0]))) for _ in units[1]],
        "wblocks": [int(rng.integers(0, 2)) for _ in units[0]],
    }


def test_ro8_engine10_every_order_of_the_groups_gives_the_same_war(ro):
    """300 random positions (attacking riders and druids with paint runes; blockers; Frost,
    Bloom, Crown, Shadow; Shields, Looting, Rituals, Poisons, Steel Craft, Squire; blocking
    workers), each war fought in three orders of its battle groups: the same living units with
    the same runes, workers, gold, buildings and runes in play on both sides."""
    rng = np.random.default_rng(20240613)
    differ = 0
    for _ in range(300):
        spec = _random_spec(rng)
        n = len(spec["units"][0])
        results = []
        for order in (list(range(n)), list(range(n))[::-1], list(rng.permutation(n))):
            st, (att, blk) = _position(ro, spec)
            index = {a: k for k, a in enumerate(order)}  # attacker index a fights k-th
            blocks = {blk[j]: index[a] for j, a in enumerate(spec["blocks"]) if a >= 0}
            left = workers(st, 1)
            wblocks = {}
            for a, w in enumerate(spec["wblocks"]):
                w = min(w, left)
                left -= w
                wblocks[index[a]] = w
            fight(ro, st, 0, [att[a] for a in order], blocks, wblocks)
            check_counts(st)
            results.append(outcome(st))
        assert results[0] == results[1] == results[2], spec
        differ += results[0] != outcome(_position(ro, spec)[0])
    assert differ > 200  # the wars did something


# ---------------------------------------------------------------- Squire (ENGINE-7, RO-10)


def _spirit_blocks_a_rider(ro, squire=True, worker_count=2, attacker=RIDER):
    """Seat 0 (2 academies) attacks with two units; seat 1 (3 academies: advantage 1) blocks the
    first with a Spirit druid (6), which kills the strongest unpainted attacker before battle."""
    st = blank(ro, turn=TURN + 1, log_cap=LOG)
    brunes = {CAMP: SQUIRE} if squire else {}
    a1, a2 = seat(st, 0, [CAMP, ACAD1, ACAD2], workers=worker_count, units=[attacker, RIDER],
                  brunes=brunes)  # fmt: skip
    [s] = seat(st, 1, [CAMP, TOWN, *ACADS], units=[(DRUID, SPIRIT)])
    return st, [a1, a2], {s: 0}


def test_engine7_squire_saves_an_attacking_rider_from_a_blocking_spirit_rune(ro):
    """ENGINE-4 and ENGINE-7: the Spirit Rune would kill the first rider before battle; a worker
    dies in its place and the rider fights its battle (2 against 6): it would die, and the second
    worker dies in its place too. The other rider is unblocked and razes a building."""
    st, attackers, blocks = _spirit_blocks_a_rider(ro)
    assert fight(ro, st, 0, attackers, blocks) == 1
    assert types(st, 0) == [RIDER, RIDER] and workers(st, 0) == 0
    assert battles(st) == [(RIDER, 2, 6, 1)]
    assert alive(st, 1) == [(DRUID, SPIRIT)] and len(built(st, 1)) == 4
    assert [r[0] for r in log_rows(st) if r[0] in (state.E_PREKILL, state.E_SQUIRE)] == [
        state.E_PREKILL,
        state.E_SQUIRE,
    ]


def test_engine7_squire_with_one_worker_saves_the_rider_before_battle_only(ro):
    st, attackers, blocks = _spirit_blocks_a_rider(ro, worker_count=1)
    fight(ro, st, 0, attackers, blocks)
    assert battles(st) == [(RIDER, 2, 6, 1)]  # it fought
    assert types(st, 0) == [RIDER] and workers(st, 0) == 0


def test_engine4_without_squire_or_a_worker_the_rider_dies_before_battle(ro):
    for squire, worker_count in ((False, 2), (True, 0)):
        st, attackers, blocks = _spirit_blocks_a_rider(ro, squire, worker_count)
        assert fight(ro, st, 0, attackers, blocks) == 1
        assert battles(st) == [] and types(st, 0) == [RIDER] and workers(st, 0) == worker_count


def test_ro10_engine7_squire_is_for_riders_not_druids(ro):
    """An unpainted attacking druid (as strong as the rider and first, so the Spirit Rune's
    choice) dies before battle whatever the Squire."""
    st, attackers, blocks = _spirit_blocks_a_rider(ro, attacker=DRUID)
    fight(ro, st, 0, attackers, blocks)
    assert types(st, 0) == [RIDER] and workers(st, 0) == 2 and battles(st) == []


def test_engine7_squire_is_for_attacking_riders(ro):
    """Dawn Raid kills the defender's rider as attackers are declared: the defender's Squire does
    not save it (it is not attacking)."""
    st = blank(ro)
    [r] = seat(st, 0, [CAMP, CITADEL, *ACADS], units=[RIDER], brunes={CITADEL: DAWN_RAID})
    seat(st, 1, [CAMP, TOWN, ACAD1, ACAD2], workers=2, units=[RIDER], brunes={CAMP: SQUIRE})
    fight(ro, st, 0, [r])
    assert types(st, 1) == [] and workers(st, 1) == 2


# ---------------------------------------------------------------- the replay's words


def test_replay_names_the_rune_of_a_unit_killed_before_battle(ro):
    st = blank(ro, log_cap=LOG)
    [r] = seat(st, 0, [CAMP, CITADEL, *ACADS], units=[RIDER], brunes={CITADEL: DAWN_RAID})
    seat(st, 1, [CAMP, ACAD1, ACAD2], units=[(DRUID, CROWN), DRUID])
    fight(ro, st, 0, [r])
    assert "    Dawn Raid kills seat 1's druid before the battle (its Crown Rune is lost)." in told(
        ro, st
    )


def test_replay_a_kill_before_battle_of_an_unpainted_unit(ro):
    st, attackers, blocks = _spirit_blocks_a_rider(ro, squire=False)
    fight(ro, st, 0, attackers, blocks)
    assert "    Spirit Rune kills seat 0's rider before the battle." in told(ro, st)


def test_replay_squire_against_a_blocking_spirit_rune(ro):
    st, attackers, blocks = _spirit_blocks_a_rider(ro)
    fight(ro, st, 0, attackers, blocks)
    lines = told(ro, st)
    assert (
        "    Spirit Rune would kill seat 0's rider before the battle; Squire: a worker dies in "
        "its place."
    ) in lines
    assert "    Squire: a worker dies in the rider's place." in lines


def test_replay_names_the_units_poisons_kills(ro):
    st = blank(ro, log_cap=LOG)
    [r] = seat(st, 0, [CAMP, ARMORY, CITADEL, SHRINE, ACAD1], units=[RIDER],
               brunes={SHRINE: POISONS})  # fmt: skip
    seat(st, 1, [CAMP, ACAD1, ACAD2], units=[(DRUID, CROWN), SENTRY, SENTRY])
    fight(ro, st, 0, [r], {0: 0, 1: 0, 2: 0})
    # 5 + 2 + 2 >= 2: the rider dies and kills one sentry (2 <= 2); Poisons kills the others
    lines = told(ro, st)
    i = lines.index("    Seat 1's sentry dies.")
    assert lines[i + 1 : i + 3] == [
        "    Poisons kills seat 1's druid (its Crown Rune is lost).",
        "    Poisons kills seat 1's sentry.",
    ]
    assert types(st, 1) == [] and inplay(st, 1) == {}
