"""Policies: the heuristics beat random play, random play is always legal, and no policy reads the
opponent's hidden hand (policies.py docstring; RO-6: runes are kept face down)."""

from __future__ import annotations

import numpy as np
import pytest

from balance.config import load_config
from balance.games.raven_order import engine, policies
from balance.games.raven_order.state import (
    A_APOW,
    A_ATK,
    A_AWK,
    A_BLK,
    A_BONUS,
    END_DESTRUCTION,
    END_DRAW,
    G_END,
    G_FIRST,
    G_NATK,
    G_TURN,
    G_WINNER,
    PL_ACTIONS,
    PL_BUILDS,
    PL_HAND,
    PL_HAND_N,
    PL_NBLD,
    PL_NU,
    PL_WORKERS,
    U_DEAD,
    U_TYPE,
    State,
    alloc_state,
    can_attack,
    can_block,
    druids_only,
    unit_power,
)
from balance.games.raven_order.tables import (
    DRUID,
    NR,
    P_TURN_CAP,
    POL_HEURISTIC,
    POL_RANDOM,
    SP_KIND,
    SP_MAXACT,
    compile_tables,
)

from .helpers import CONFIGS, compiled, work


@pytest.mark.parametrize(
    ("seats", "heuristic_seat"),
    [
        ("economy_vs_random.yaml", 0),
        ("rush_vs_random.yaml", 0),
        (["random", "economy"], 1),
        (["random", "rush"], 1),
    ],
)
def test_heuristics_beat_random_in_nearly_every_game(seats, heuristic_seat):
    if isinstance(seats, str):
        c = compile_tables(load_config(CONFIGS / seats))
    else:
        c = compiled(seats)
    ch = engine.play(c, 17, 0, 2000)
    wins = (ch.rank[:, heuristic_seat] == 1) & (ch.end_reason == 0)
    assert wins.mean() >= 0.9, wins.mean()


def copy(st: State) -> State:
    return State(*(a.copy() for a in st))


def checked_game(c, seed: int, game: int, hide=None) -> State:
    """Game ``game`` of run ``seed`` played by the seats' policies through the engine's own steps
    (engine.play_turn, unrolled), asserting that every decision is legal: every construction
    action applies (the engine returns False on an illegal one), attackers may attack (RO-5),
    blockers may block (RO-5, RO-7, Shadow Rune, Cloaking) and no more workers block than exist.
    ``hide(st, p)`` is called before each decision of seat p to check hidden-hand independence."""
    tb = c.tb
    st = alloc_state(tb, 0)
    act, group, powers, kills = work(c)
    engine.setup(tb, st, seed, game)
    p = int(st.board[G_FIRST])
    while True:
        q = 1 - p
        engine.harvest(tb, st, p)
        st.pl[p, PL_BUILDS] = 1
        st.pl[p, PL_ACTIONS] = 0
        while True:
            if hide is not None:
                hide(st, p, "action")
            policies.choose_action(tb, st, p, act)
            if act[0] == policies.ACT_END:
                break
            assert engine.apply_action(tb, st, p, act[0], act[1], act[2]), act.tolist()
            st.pl[p, PL_ACTIONS] += 1
            assert st.pl[p, PL_ACTIONS] <= tb.seat[p, SP_MAXACT]
        # War (engine.war, with checks)
        if hide is not None:
            hide(st, p, "attack")
        n = policies.choose_attackers(tb, st, p)
        rows = st.aux[A_ATK, :n].tolist()
        assert len(set(rows)) == n
        for i in rows:
            assert can_attack(tb, st, p, i)
        if n > 0:
            engine.declare(tb, st, p, n)
            for a in range(n):
                i = st.aux[A_ATK, a]
                st.aux[A_APOW, a] = unit_power(tb, st, p, i, True) + st.aux[A_BONUS, a]
            if hide is not None:
                hide(st, q, "block")
            policies.choose_blocks(tb, st, q, n)
            for i in range(st.pl[q, PL_NU]):
                a = st.aux[A_BLK, i]
                if a < 0:
                    continue
                assert 0 <= a < n and st.units[q, i, U_DEAD] == 0
                assert can_block(st, q, i)
                if druids_only(st, p, st.aux[A_ATK, a]):
                    assert st.units[q, i, U_TYPE] == DRUID
            awk = st.aux[A_AWK, :n]
            assert (awk >= 0).all() and awk.sum() <= st.pl[q, PL_WORKERS]
            for a in range(n):
                if awk[a]:
                    assert not druids_only(st, p, st.aux[A_ATK, a])
            engine.resolve(tb, st, p, n, group, powers, kills)
        else:
            st.board[G_NATK] = 0
        if st.pl[q, PL_NBLD] == 0:
            st.board[G_END] = END_DESTRUCTION
            st.board[G_WINNER] = p
            break
        st.board[G_TURN] += 1
        if st.board[G_TURN] >= tb.params[P_TURN_CAP]:
            st.board[G_END] = END_DRAW
            st.board[G_WINNER] = -1
            st.board[G_TURN] -= 1
            break
        p = q
    return st


@pytest.mark.parametrize(
    "seats", [["random", "random"], ["economy", "random"], ["random", "rush"], ["economy", "rush"]]
)
def test_every_decision_is_legal_and_the_unrolled_turns_are_the_engines(seats):
    c = compiled(seats, {"runes": {n: {"count": 2} for n in ("corruption", "spirit_rune")}})
    ch = engine.play(c, 23, 0, 40)
    for g in range(40):
        st = checked_game(c, 23, g)
        assert ch.turns[g] == st.board[G_TURN] + 1
        assert ch.end_reason[g] == st.board[G_END] - 1
        assert ch.score[g].tolist() == [int(st.pl[0, PL_NBLD]), int(st.pl[1, PL_NBLD])]


def _other_hand(st: State, p: int, rng: np.random.Generator) -> None:
    """Replace seat ``p``'s hidden hand by another of the same size (the opponent can count it)."""
    n = int(st.pl[p, PL_HAND_N])
    st.pl[p, PL_HAND : PL_HAND + NR] = np.bincount(rng.integers(0, NR, n), minlength=NR)


@pytest.mark.parametrize("kind", [POL_HEURISTIC, POL_RANDOM])
def test_decisions_do_not_read_the_opponents_hand(kind):
    """Same public position, a different hidden opponent hand: the same construction action,
    attackers and blocks (the random policy from the same random stream)."""
    seats = ["economy", "rush"] if kind == POL_HEURISTIC else ["random", "random"]
    c = compiled(seats)
    assert (c.tb.seat[:, SP_KIND] == kind).all()
    tb = c.tb
    rng = np.random.default_rng(0)
    checked = {"action": 0, "attack": 0, "block": 0}

    def hide(st, p, what):
        a, b = copy(st), copy(st)
        _other_hand(b, 1 - p, rng)
        if what == "action":
            oa, ob = np.zeros(3, np.int32), np.zeros(3, np.int32)
            policies.choose_action(tb, a, p, oa)
            policies.choose_action(tb, b, p, ob)
            assert oa.tolist() == ob.tolist()
        elif what == "attack":
            na = policies.choose_attackers(tb, a, p)
            nb = policies.choose_attackers(tb, b, p)
            assert na == nb and (a.aux[A_ATK, :na] == b.aux[A_ATK, :nb]).all()
        else:
            n = int(st.board[G_NATK])
            policies.choose_blocks(tb, a, p, n)
            policies.choose_blocks(tb, b, p, n)
            assert (a.aux[A_BLK] == b.aux[A_BLK]).all() and (a.aux[A_AWK] == b.aux[A_AWK]).all()
        np.testing.assert_array_equal(a.rng, b.rng)
        checked[what] += 1

    for g in range(8):
        checked_game(c, 31, g, hide)
    assert min(checked.values()) > 20


def test_heuristic_construction_follows_its_build_order(base):
    """The economy seat's first builds are its build order's head: Armory, then Town."""
    from balance.games import get

    seat_of = {"economy": 0}
    lines = get("raven_order").replay(base, 1, 0).lines
    mine = []
    turn_seat = None
    for line in lines:
        if line.startswith("Turn "):
            turn_seat = int(line.split("seat ")[1].split(" ")[0])
        elif line.startswith("  Builds ") and turn_seat == seat_of["economy"]:
            mine.append(line.split("Builds ")[1].split(" for")[0])
    assert mine[:2] == ["Armory", "Town"]


def test_engine_9_no_worker_is_trained_past_the_unit_cap(ro):
    """ENGINE-9: a seat holds at most CAPU (128) sentries, riders and druids: with 127 it may still
    train a worker into a sentry, with 128 it may not (gold, workers and an Armory to spare)."""
    from balance.games.raven_order import state as S
    from balance.games.raven_order import tables as T

    from .helpers import blank, seat

    st = blank(ro)
    seat(st, 0, [T.CAMP, T.ARMORY], gold=99, workers=5, units=[T.SENTRY] * (S.CAPU - 1))
    assert policies.can_train(ro.tb, st, 0, T.WORKER)
    assert policies.can_train_unpaid(ro.tb, st, 0)
    seat(st, 0, [], gold=99, workers=5, units=[T.SENTRY])
    assert st.pl[0, S.PL_NU] == S.CAPU
    assert not policies.can_train(ro.tb, st, 0, T.WORKER)
    assert not policies.can_train_unpaid(ro.tb, st, 0)
    assert not policies.can_train(ro.tb, st, 0, T.SENTRY)  # no Citadel: no rider
