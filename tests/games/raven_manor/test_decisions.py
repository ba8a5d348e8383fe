"""Raven Manor as decision points (engine.py "Decision points", docs/rules/raven_manor.md
"## Decisions"): the pending seat, kind and option list at nested points of hand-built positions;
a game driven one call at a time from Python gives the batch kernel's row; every code ``choose``
returns is one of ``legal``'s; a copy of the state at any decision plays on identically."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from balance import games
from balance.config import load_config
from balance.games import _kit as kit
from balance.games.raven_manor import engine, narrate, policies, state
from balance.games.raven_manor import tables as T
from balance.games.raven_manor.state import (
    B_CAND,
    D_ACTION,
    D_GIVE,
    D_KILL_TARGET,
    D_REACT,
    D_SACRIFICE,
    DECISIONS,
    MAX_OPTIONS,
    NO_CARD,
)

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = ROOT / "configs" / "raven_manor"
# every policy kind: basic, random, by_side (basic and random by side), 2 and 12 players
POLICY_CONFIGS = ("base", "random", "basic_evil_vs_random_family", "two_players", "twelve_players")


def compiled(name: str) -> T.Compiled:
    return games.get("raven_manor").compile(load_config(CONFIGS / f"{name}.yaml"))


def legal_codes(tb, st, work) -> list[int]:
    opts = np.zeros(MAX_OPTIONS, np.int64)
    k = int(engine.legal(tb, st, work, opts))
    return [int(x) for x in opts[:k]]


def drive(c: T.Compiled, seed: int, game: int, check=None, log_cap: int = 0):
    """Game ``game`` of run ``seed`` played one call at a time from Python; ``check(st, work)``
    is called at every decision before the policy chooses."""
    tb = c.tb
    st = state.alloc_state(tb, log_cap)
    work = state.alloc_work(tb)
    engine.start(tb, st, seed, game, work)
    assert tuple(state.pending(st)) == (-1, -1)
    n = 0
    while (a := int(engine.advance(tb, st, work))) >= 0:
        assert tuple(int(x) for x in state.pending(st)) == (a, int(st.board[state.G_KIND]))
        if check is not None:
            check(st, work)
        engine.apply(tb, st, work, policies.choose(tb, st, work))
        assert tuple(state.pending(st)) == (-1, -1)
        n += 1
    assert tuple(state.pending(st)) == (-1, -1)
    return st, work, n


def row(c: T.Compiled, st, work) -> dict[str, np.ndarray]:
    out = kit.alloc_outputs(
        1, c.players, T.N_TELE, state.BLOCK_GAMES, len(state.EXTRA_COLUMNS), team=True, role=True
    )
    score, rank, turns, end, order, team, role, extra, tele, clipped, _trace, _points = out
    engine.record(
        c.tb, st, work, 0, score, rank, turns, end, order, team, role, extra, tele, clipped[0]
    )
    return {
        "score": score[0],
        "rank": rank[0],
        "turns": turns[0],
        "end": end[0],
        "order": order[0],
        "team": team[0],
        "role": role[0],
        "extra": extra[0],
        "tele": tele[0],
    }


@pytest.mark.parametrize("name", POLICY_CONFIGS)
def test_python_driver_gives_the_batch_kernels_rows_and_choose_is_always_legal(name):
    c = compiled(name)
    seed, n_games = 11, 12
    chunk = engine.play(c, seed, 0, n_games)
    seen_kinds: set[int] = set()

    def check(st, work):
        kind = int(st.board[state.G_KIND])
        seen_kinds.add(kind)
        codes = legal_codes(c.tb, st, work)
        assert 1 <= len(codes) <= MAX_OPTIONS
        assert len(set(codes)) == len(codes), DECISIONS[kind]
        twin = state.alloc_state(c.tb, 0)
        state.copy_state(st, twin)
        code = int(policies.choose(c.tb, twin, work))
        assert code in codes, (DECISIONS[kind], code, codes)
        words = narrate.option_words(c, st, code)
        assert isinstance(words, str) and words

    for g in range(n_games):
        st, work, _ = drive(c, seed, g, check)
        r = row(c, st, work)
        assert r["turns"] == chunk.turns[g] and r["end"] == chunk.end_reason[g]
        assert np.array_equal(r["score"], chunk.score[g])
        assert np.array_equal(r["rank"], chunk.rank[g])
        assert np.array_equal(r["order"], chunk.order[g])
        assert np.array_equal(r["team"], chunk.team[g])
        assert np.array_equal(r["role"], chunk.role[g])
        assert np.array_equal(r["tele"], chunk.telemetry[g])
        for j, col in enumerate(state.EXTRA_COLUMNS):
            assert np.array_equal(r["extra"][:, j], chunk.extra[col][g])
    assert D_ACTION in seen_kinds and D_GIVE in seen_kinds


def test_a_copy_at_any_decision_plays_on_identically():
    c = compiled("all_cards")
    tb = c.tb
    rng = np.random.default_rng(5)
    for g in range(6):
        st = state.alloc_state(tb, 4096)
        work = state.alloc_work(tb)
        engine.start(tb, st, 3, g, work)
        stop = int(rng.integers(1, 120))
        k = 0
        while engine.advance(tb, st, work) >= 0 and k < stop:
            engine.apply(tb, st, work, policies.choose(tb, st, work))
            k += 1
        twin = state.alloc_state(tb, 4096)
        state.copy_state(st, twin)
        for s in (st, twin):
            while engine.advance(tb, s, work) >= 0:
                engine.apply(tb, s, work, policies.choose(tb, s, work))
        assert np.array_equal(st.board, twin.board) and np.array_equal(st.pl, twin.pl)
        assert np.array_equal(state.log_rows(st), state.log_rows(twin))
        assert int(st.board[state.G_END]) != 0


def test_max_options_bounds_every_list():
    """MAX_OPTIONS is the candidates' cap (engine.add_cand); every other list is shorter."""
    assert MAX_OPTIONS == state.MAX_CAND
    assert state.MAX_PICK + 1 <= MAX_OPTIONS and T.NC + 1 <= MAX_OPTIONS
    assert state.MAX_REACT + 1 <= MAX_OPTIONS and T.MAXP <= MAX_OPTIONS
    assert NO_CARD == T.NC


# ---------------------------------------------------------------- rulebook scenarios


def start_action(s, a, kind, card=-1, target=-1, option=0):
    """Push ``a``'s action on an empty call stack (as engine.do_action does) and run to the first
    decision; returns its seat (-1: none)."""
    bd = s.board
    bd[state.G_SP] = 0
    bd[state.G_KIND] = -1
    bd[state.G_ACT_A] = a
    bd[state.G_ACT_KIND] = kind
    bd[state.G_ACT_C] = card
    bd[state.G_ACT_T] = target
    bd[state.G_ACT_O] = option
    engine.push(s.st, np.int64(engine.P_ACTION), np.int64(state.G_ACT_PC))
    return int(engine.advance(s.tb, s.st, s.work))


def test_rm19_a_kill_opens_a_window_the_target_may_evade_then_others_may_rod(build):
    """RM-19, ENGINE-5: seat 0's Axe at seat 1: seat 1 (the target, asked first) may Evade or
    not; its Evade opens a window of its own in which seat 2 may Rod it."""
    from balance.games.raven_manor.tables import AXE, EVADE, ROD

    s = build([T.MAYOR, T.AUNT_CAT, T.ANGLER, T.BOAR], hands={0: [AXE], 1: [EVADE], 2: [ROD]})
    assert start_action(s, 0, policies.K_PLAY, AXE, 1) == 1
    assert tuple(state.pending(s.st)) == (1, D_REACT)
    assert legal_codes(s.tb, s.st, s.work) == [EVADE, NO_CARD]
    engine.apply(s.tb, s.st, s.work, EVADE)
    assert engine.advance(s.tb, s.st, s.work) == 2
    assert tuple(state.pending(s.st)) == (2, D_REACT)
    assert int(s.board[state.G_WIN_LVL]) == 1
    assert legal_codes(s.tb, s.st, s.work) == [ROD, NO_CARD]
    engine.apply(s.tb, s.st, s.work, NO_CARD)
    # the Evade resolved; the Axe's own window goes on: seat 2 may still Rod the Axe itself
    assert engine.advance(s.tb, s.st, s.work) == 2
    assert int(s.board[state.G_WIN_LVL]) == 0
    assert legal_codes(s.tb, s.st, s.work) == [ROD, NO_CARD]
    engine.apply(s.tb, s.st, s.work, NO_CARD)
    assert engine.advance(s.tb, s.st, s.work) == -1
    assert s.alive(1) and s.ev(state.E_KILL_SAVED)


def test_rm21_shark_bouncer_is_asked_before_the_kill_resolves(build):
    """RM-21: a kill of seat 1 with a living Shark Bouncer (seat 2): the Shark decides."""
    from balance.games.raven_manor.tables import AXE

    s = build([T.MAYOR, T.AUNT_CAT, T.SHARK, T.BOAR], hands={0: [AXE]})
    assert start_action(s, 0, policies.K_PLAY, AXE, 1) == 2
    assert tuple(state.pending(s.st)) == (2, D_SACRIFICE)
    assert int(s.board[state.G_Q]) == 1
    assert legal_codes(s.tb, s.st, s.work) == [0, 1]
    engine.apply(s.tb, s.st, s.work, 1)
    assert engine.advance(s.tb, s.st, s.work) >= -1
    assert not s.alive(2) and s.alive(1)


def test_rm5_rm23_a_death_ability_asks_its_target_among_the_living(build):
    """RM-5, RM-23: the Boar dies to seat 0's Axe (no reactions): its death ability asks the dead
    Boar for a target among the living other seats."""
    from balance.games.raven_manor.tables import AXE

    s = build([T.MAYOR, T.BOAR, T.AUNT_CAT, T.ANGLER], hands={0: [AXE]}, dead=(3,))
    assert start_action(s, 0, policies.K_PLAY, AXE, 1) == -1
    assert not s.alive(1)
    s.board[state.G_SP] = 0
    engine.call_deaths(s.st)
    assert engine.advance(s.tb, s.st, s.work) == 1
    assert tuple(state.pending(s.st)) == (1, D_KILL_TARGET)
    assert legal_codes(s.tb, s.st, s.work) == [0, 2]


def test_rm4_the_turns_action_lists_the_candidates(build):
    """RM-4: the turn's action: one option per candidate of engine.enum_actions, in order."""
    from balance.games.raven_manor.tables import AXE, VASE

    s = build([T.MAYOR, T.AUNT_CAT, T.ANGLER], hands={0: [AXE, VASE]})
    bd = s.board
    bd[state.G_SP] = 0
    bd[state.G_TURN_A] = 0
    engine.push(s.st, np.int64(engine.P_TURN), np.int64(state.G_TURN_PC))
    assert engine.advance(s.tb, s.st, s.work) == 0
    assert tuple(state.pending(s.st)) == (0, D_ACTION)
    n = int(bd[state.G_NOPT])
    assert legal_codes(s.tb, s.st, s.work) == list(range(n))
    cands = {tuple(int(x) for x in bd[B_CAND + 4 * i : B_CAND + 4 * i + 4]) for i in range(n)}
    assert cands == s.legal(0)
    words = {
        narrate.option_words(
            games.get("raven_manor").compile(
                __import__("tests.games.raven_manor.helpers", fromlist=["config"]).config(3)
            ),
            s.st,
            i,
        )
        for i in range(n)
    }
    assert any("Axe" in w for w in words)
