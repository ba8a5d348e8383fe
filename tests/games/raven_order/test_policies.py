"""Policies: the heuristics beat random play, random play is always legal, and no policy reads the
opponent's hidden hand (policies.py docstring; RO-6: runes are kept face down)."""

from __future__ import annotations

import numpy as np
import pytest

from balance.config import load_config
from balance.games.raven_order import engine, policies
from balance.games.raven_order.state import (
    AC_END,
    AUX_LOG,
    D_ACTION,
    D_ATTACK,
    D_BLOCK,
    DECISIONS,
    G_END,
    G_TURN,
    MAX_OPTIONS,
    PL_ACTIONS,
    PL_HAND,
    PL_HAND_N,
    PL_NBLD,
    State,
    alloc_state,
    pending,
    sync_held,
)
from balance.games.raven_order.tables import (
    NR,
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
    """Game ``game`` of run ``seed`` played by the seats' policies through the engine's decision
    points (start, advance, choose, apply), asserting that every choice is one of the legal
    options (engine.legal: construction actions the rules allow, attackers that may attack, RO-5,
    blockers that may block, RO-5, RO-7, Shadow Rune, Cloaking, workers while some are left) and
    that no seat takes more construction actions than its policy allows. ``hide(st, p, kind)`` is
    called before each decision of seat p to check hidden-hand independence."""
    tb = c.tb
    st = alloc_state(tb, 0)
    w = work(c)
    opts = np.zeros(MAX_OPTIONS, np.int64)
    engine.start(tb, st, seed, game, w)
    while True:
        p = int(engine.advance(tb, st, w))
        if p < 0:
            return st
        actor, kind = (int(x) for x in pending(st))
        assert actor == p
        n = int(engine.legal(tb, st, w, opts))
        assert 1 <= n <= MAX_OPTIONS
        if hide is not None:
            hide(st, p, kind)
        code = int(policies.choose(tb, st, w))
        assert code in opts[:n].tolist(), (DECISIONS[kind], code, opts[:n].tolist())
        if kind == D_ACTION and code != AC_END:
            assert st.pl[p, PL_ACTIONS] < tb.seat[p, SP_MAXACT]
        engine.apply(tb, st, w, code)


@pytest.mark.parametrize(
    "seats", [["random", "random"], ["economy", "random"], ["random", "rush"], ["economy", "rush"]]
)
def test_every_decision_is_legal_and_the_stepped_games_are_the_engines(seats):
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
    sync_held(st, p)


@pytest.mark.parametrize("kind", [POL_HEURISTIC, POL_RANDOM])
def test_decisions_do_not_read_the_opponents_hand(kind):
    """Same public position, a different hidden opponent hand: the same choice at every decision
    point (the random policy from the same random stream)."""
    seats = ["economy", "rush"] if kind == POL_HEURISTIC else ["random", "random"]
    c = compiled(seats)
    assert (c.tb.seat[:, SP_KIND] == kind).all()
    tb = c.tb
    rng = np.random.default_rng(0)
    w = work(c)
    checked = {D_ACTION: 0, D_ATTACK: 0, D_BLOCK: 0}

    def hide(st, p, kind):
        a, b = copy(st), copy(st)
        _other_hand(b, 1 - p, rng)
        assert policies.choose(tb, a, w) == policies.choose(tb, b, w)
        np.testing.assert_array_equal(a.rng, b.rng)
        np.testing.assert_array_equal(a.aux[:AUX_LOG], b.aux[:AUX_LOG])
        if kind in checked:
            checked[kind] += 1

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
