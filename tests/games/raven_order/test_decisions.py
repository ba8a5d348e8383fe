"""The decision points (issue 28): who acts, which kind, the exact options at nested points of the
rulebook's scenarios; a game stepped from Python is the batch kernel's row; every choice is legal;
a copied state resumes the same game."""

from __future__ import annotations

import numpy as np
import pytest

from balance.games import _kit as kit
from balance.games.raven_order import engine, narrate, policies
from balance.games.raven_order import state as S
from balance.games.raven_order.tables import (
    ACAD1,
    ACAD2,
    ARMORY,
    CAMP,
    CANINE,
    CITADEL,
    DRUID,
    FROST,
    N_TELE,
    POL_HEURISTIC,
    POL_RANDOM,
    RIDER,
    SENTRY,
    SHADOW,
    SQUIRE,
    STATUE,
    TOWN,
    WORKER,
    with_seat_kinds,
)

from .helpers import TURN, blank, compiled, drive, resume, seat, work

A = S.AC_BUILD


def options(c, st) -> list[int]:
    opts = np.zeros(S.MAX_OPTIONS, np.int64)
    n = int(engine.legal(c.tb, st, work(c), opts))
    return opts[:n].tolist()


def point(c, st) -> tuple[int, int]:
    """Advance to the next decision: (actor, kind)."""
    actor = int(engine.advance(c.tb, st, work(c)))
    a, k = (int(x) for x in S.pending(st))
    assert a == actor
    return a, k


def do(c, st, code: int) -> None:
    engine.apply(c.tb, st, work(c), code)


# ---------------------------------------------------------------- rulebook scenarios


def test_construction_actions_hosts_and_the_statue(ro):
    """RO-3, RO-4, RO-5, RO-6: the actions a seat may take, a rune's hosts, the Statue's choice."""
    st = blank(ro)
    seat(
        st, 0, [CAMP, ARMORY, ACAD1], gold=2, workers=1, units=[SENTRY],
        hand={CANINE: 1, FROST: 1, SQUIRE: 1},
    )  # fmt: skip
    resume(st, 0, S.PH_CONSTRUCT)
    assert point(ro, st) == (0, S.D_ACTION)
    # builds within 2 gold whose requirement stands (Citadel, Statue, Academy Lv. 2); a worker
    # into a sentry (no Citadel: no rider); sell; Canine (level 1, any building); Frost Mark
    # has no druid to paint and Squire needs the Academy Lv. 2 (RO-6)
    assert options(ro, st) == [
        S.AC_END,
        A + CITADEL,
        A + STATUE,
        A + ACAD2,
        S.AC_TRAIN + WORKER,
        S.AC_SELL,
        S.AC_RUNE + CANINE,
    ]
    do(ro, st, S.AC_RUNE + CANINE)
    assert point(ro, st) == (0, S.D_RUNE_HOST)
    assert options(ro, st) == [CAMP, ARMORY, ACAD1]  # any own building without a rune
    assert narrate.option_words(ro, st, ARMORY) == "put it on the Armory"
    do(ro, st, ARMORY)
    assert point(ro, st) == (0, S.D_ACTION)
    assert st.pl[0, S.PL_BRUNE + ARMORY] == CANINE
    assert S.AC_RUNE + CANINE not in options(ro, st)
    do(ro, st, A + STATUE)
    assert point(ro, st) == (0, S.D_STATUE)
    assert options(ro, st) == [0, 1, 2]
    do(ro, st, 0)  # workers (tables.STATUE_WORKERS)
    assert point(ro, st) == (0, S.D_ACTION)
    assert st.pl[0, S.PL_WORKERS] == 1 + 2
    # RO-3: one building a turn; the Statue was it
    assert [x for x in options(ro, st) if A <= x < S.AC_TRAIN] == []


def test_blocks_one_point_per_unit_then_workers(ro):
    """RO-7: each unit that may block chooses an attacker or none; a unit that attacked last
    turn is not asked (RO-5); only druids may block a Shadow Rune druid (RO-10); then the next
    worker, again and again, until the defender stops or has none left."""
    st = blank(ro)
    rows = seat(st, 0, [CAMP, ACAD1], units=[RIDER, (DRUID, SHADOW)])
    seat(st, 1, [CAMP], workers=2, units=[SENTRY, DRUID, DRUID])
    st.units[1, 2, S.U_TIRED] = TURN - 1
    st.aux[S.A_ATK, :2] = rows
    st.board[S.G_NATK] = 2
    resume(st, 0, S.PH_DECLARE)
    assert point(ro, st) == (1, S.D_BLOCK)
    assert st.board[S.G_I] == 0
    assert options(ro, st) == [0, 1]  # the sentry: none, or the rider (attacker 0)
    do(ro, st, 1)
    assert point(ro, st) == (1, S.D_BLOCK)
    assert st.board[S.G_I] == 1
    assert options(ro, st) == [0, 1, 2]  # the druid may block either
    do(ro, st, 2)
    assert point(ro, st) == (1, S.D_WORKER_BLOCK)  # the tired druid was skipped
    assert options(ro, st) == [0, 1]  # stop, or the rider (not the Shadow druid)
    do(ro, st, 1)
    assert point(ro, st) == (1, S.D_WORKER_BLOCK)
    do(ro, st, 0)
    # the battles: the rider (2) against the sentry (2) and a worker: the attacker's kill
    assert point(ro, st) == (0, S.D_KILL)
    assert options(ro, st) == [0, 1]
    assert st.aux[S.A_BLK, :3].tolist() == [0, 1, -1] and st.aux[S.A_AWK, :2].tolist() == [1, 0]


def test_ro8_kills_fit_the_attackers_power(ro4):
    """RO-8: power 4 blocked by 2 + 3: after killing the sentry (2) the rider (3) no longer fits."""
    st = blank(ro4)
    [d] = seat(st, 0, [CAMP], units=[DRUID])
    s, r = seat(st, 1, [CAMP], units=[SENTRY, RIDER])
    st.aux[S.A_ATK, 0] = d
    st.board[S.G_NATK] = 1
    resume(st, 0, S.PH_DECLARE)
    assert drive(ro4, st, S.PH_APOW) == -2
    st.aux[S.A_BLK, [s, r]] = 0
    resume(st, 0, S.PH_RESOLVE)
    assert point(ro4, st) == (0, S.D_KILL)
    assert options(ro4, st) == [0, 1]
    assert narrate.option_words(ro4, st, 1) == f"kill sentry {s}"
    do(ro4, st, 1)
    assert point(ro4, st) == (0, S.D_KILL)
    assert options(ro4, st) == [0]
    do(ro4, st, 0)
    assert drive(ro4, st, S.PH_TURN_END) == -2
    assert [int(st.units[1, i, S.U_TYPE]) for i in range(st.pl[1, S.PL_NU])] == [RIDER]


def test_engine_7_squire_asks_the_riders_owner(ro):
    """ENGINE-7: an attacking rider that dies may be saved by a worker of its owner (Squire)."""
    st = blank(ro)
    [r] = seat(st, 0, [CAMP, ACAD1, ACAD2], workers=1, units=[RIDER], brunes={CAMP: SQUIRE})
    [s] = seat(st, 1, [CAMP, TOWN], units=[SENTRY])
    st.aux[S.A_ATK, 0] = r
    st.board[S.G_NATK] = 1
    resume(st, 0, S.PH_DECLARE)
    assert drive(ro, st, S.PH_APOW) == -2
    st.aux[S.A_BLK, s] = 0
    resume(st, 0, S.PH_RESOLVE)
    assert point(ro, st) == (0, S.D_KILL)
    do(ro, st, 1)
    assert point(ro, st) == (0, S.D_SQUIRE)
    assert options(ro, st) == [0, 1]
    do(ro, st, 1)
    assert drive(ro, st, S.PH_TURN_END) == -2
    assert st.pl[0, S.PL_WORKERS] == 0 and st.pl[0, S.PL_NU] == 1


def test_ro9_destroy_offers_the_standing_buildings(ro):
    st = blank(ro)
    [r] = seat(st, 0, [CAMP], units=[RIDER])
    seat(st, 1, [CAMP, TOWN, ARMORY])
    st.aux[S.A_ATK, 0] = r
    st.board[S.G_NATK] = 1
    resume(st, 0, S.PH_DECLARE)
    assert point(ro, st) == (0, S.D_DESTROY)  # nothing may block: the rider is unblocked
    assert options(ro, st) == [CAMP, TOWN, ARMORY]
    assert narrate.option_words(ro, st, TOWN) == "destroy the Town"


# ---------------------------------------------------------------- whole games

SEATS = [["random", "random"], ["economy", "rush"], ["rush", "random"], ["economy", "economy"]]
RUNES = {n: {"count": 2} for n in ("corruption", "spirit_rune", "dawn_raid", "squire", "canine")}


def _outputs(n: int, tb) -> kit.Outputs:
    return kit.alloc_outputs(
        n,
        2,
        N_TELE,
        S.BLOCK_GAMES,
        len(S.EXTRA_COLUMNS),
        trace_cap=S.trace_cap(tb),
        n_measures=len(S.TRACE_MEASURES),
    )


RECORDED = 9  # kit.Outputs' fields engine.record writes a row of: score .. tele


def _row(out: kit.Outputs, g: int) -> list:
    """Row ``g`` of what record and record_trace write (``clipped`` is the block's; the
    trajectory's ragged rows of the game and their count)."""
    row = [np.asarray(a[g] if a.shape[0] else a).tolist() for a in out[:RECORDED]]
    n, first = (int(x) for x in out.points[g])
    return [*row, out.trace[first : first + n].tolist(), n]


@pytest.mark.parametrize("seats", SEATS)
def test_a_game_stepped_from_python_is_the_batch_row(seats):
    """start/advance/choose/apply one call at a time, then record: the batch kernel's row; every
    choice is one of the legal options and every option a valid code."""
    c = compiled(seats, {"runes": RUNES})
    tb = c.tb
    n_games = 12
    out = _outputs(n_games, tb)
    blocks = np.int64(len(out.clipped))  # every block, on this thread
    engine.play_batch(tb, np.int64(3), np.int64(0), np.int64(n_games), out, np.int64(0), blocks)
    w = work(c)
    opts = np.zeros(S.MAX_OPTIONS, np.int64)
    kinds = set()
    for g in range(n_games):
        st = S.alloc_state(tb, 0)
        engine.start(tb, st, np.int64(3), np.int64(g), w)
        assert S.pending(st) == (-1, -1)
        while engine.advance(tb, st, w) >= 0:
            n = int(engine.legal(tb, st, w, opts))
            assert 1 <= n <= S.MAX_OPTIONS
            code = int(policies.choose(tb, st, w))
            assert code in opts[:n].tolist()
            kinds.add(int(st.board[S.G_PKIND]))
            for x in opts[:n]:
                assert narrate.option_words(c, st, int(x))
            engine.apply(tb, st, w, code)
        assert S.pending(st) == (-1, -1)
        one = _outputs(1, tb)
        engine.record(tb, st, w, 0, *one[:RECORDED], one.clipped[0])
        engine.record_trace(tb, st, w, 0, one.trace, one.points)
        assert _row(one, 0) == _row(out, g)
    assert {S.D_ACTION, S.D_ATTACK, S.D_DESTROY} <= kinds


def test_every_kind_is_reached_and_choices_are_legal():
    """Many games of rune-heavy configs, both policy kinds: every decision kind happens, and the
    seats' choices are always legal (policies.choose in engine.legal)."""
    seen = np.zeros(len(S.DECISIONS), np.int64)
    for seats in (["random", "random"], ["economy", "rush"]):
        c = compiled(seats, {"runes": {n: {"count": 3} for n in RUNES}, "statue": {"workers": 2}})
        w = work(c)
        opts = np.zeros(S.MAX_OPTIONS, np.int64)
        st = S.alloc_state(c.tb, 0)
        for g in range(60):
            engine.start(c.tb, st, np.int64(11), np.int64(g), w)
            while engine.advance(c.tb, st, w) >= 0:
                n = int(engine.legal(c.tb, st, w, opts))
                code = int(policies.choose(c.tb, st, w))
                assert code in opts[:n].tolist(), (S.DECISIONS[st.board[S.G_PKIND]], code)
                seen[st.board[S.G_PKIND]] += 1
                engine.apply(c.tb, st, w, code)
    missing = [S.DECISIONS[k] for k in range(len(S.DECISIONS)) if seen[k] == 0]
    assert missing == [] or set(missing) <= {"spirit_block"}, missing


@pytest.mark.parametrize("seats", [["random", "random"], ["economy", "rush"]])
def test_a_copied_state_resumes_the_same_game(seats):
    """copy_state at a random decision: both copies play to the same end, with the same log."""
    c = compiled(seats, {"runes": RUNES})
    tb = c.tb
    w = work(c)
    rng = np.random.default_rng(5)
    for g in range(6):
        st = S.alloc_state(tb, 2048)
        engine.start(tb, st, np.int64(9), np.int64(g), w)
        stop = int(rng.integers(1, 120))
        k = 0
        while engine.advance(tb, st, w) >= 0 and k < stop:
            engine.apply(tb, st, w, policies.choose(tb, st, w))
            k += 1
        cp = S.alloc_state(tb, 2048)
        S.copy_state(st, cp)
        engine.play_out(tb, st, w)
        engine.play_out(tb, cp, w)
        for a, b in zip(st, cp, strict=True):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(S.log_rows(st), S.log_rows(cp))
        whole = S.alloc_state(tb, 2048)
        engine.play_game(tb, whole, np.int64(9), np.int64(g), w)
        np.testing.assert_array_equal(S.log_rows(whole), S.log_rows(st))


def test_event_lines_tell_a_game_in_progress(base):
    tb = base.tb
    w = work(base)
    st = S.alloc_state(tb, 512)
    engine.start(tb, st, np.int64(1), np.int64(0), w)
    for _ in range(30):
        engine.advance(tb, st, w)
        engine.apply(tb, st, w, policies.choose(tb, st, w))
    lines = narrate.event_lines(base, S.log_rows(st), 1, 0)
    assert lines and lines[0].startswith("Game 0 of seed 1")


@pytest.mark.parametrize("kind", [POL_RANDOM, POL_HEURISTIC])
def test_max_options_bounds_a_full_table(ro, kind):
    """MAX_OPTIONS holds at a full table: CAPU enemy units and a worker to take or kill."""
    c = with_seat_kinds(ro, [kind, kind])
    st = blank(c)
    seat(st, 0, [CAMP], units=[RIDER])
    seat(st, 1, [CAMP], workers=3, units=[SENTRY] * (S.CAPU - 1) + [DRUID])
    st.board[S.G_KILLER] = 0
    st.board[S.G_PKIND] = S.D_DAWN_RAID
    st.board[S.G_PACTOR] = 0
    st.board[S.G_ACTIVE] = 0
    assert len(options(c, st)) == S.MAX_OPTIONS == S.CAPU + 1
