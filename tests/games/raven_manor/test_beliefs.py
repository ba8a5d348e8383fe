"""Raven Manor's beliefs (balance/games/raven_manor/beliefs.py) and the reasoning players.

- The belief is exact: its marginals equal a brute-force enumeration of every world (each
  seat's state among the six, the evil characters placed, the possessed chosen) weighted by the
  prior and the evidence, on random evidence and on the evidence of games in progress.
- Hard facts (RM-11) pin what they pin; soft evidence (the fitted self-play rates) moves the
  belief the way its rates say.
- A reasoning seat decides only on what it may know: re-dealing everything it cannot see
  (knowledge.determinize) changes none of its choices, on at least 10,000 decisions.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from balance import games
from balance.config import load_config
from balance.config.overrides import parse_overrides
from balance.games.raven_manor import beliefs as B
from balance.games.raven_manor import knowledge, policies, state
from balance.games.raven_manor import tables as T

from .test_knowledge import iter_decisions

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = ROOT / "configs" / "raven_manor"


def belief(st: state.State) -> np.ndarray:
    """float64[MAXP, MAXP, N_BEL]: what each seat believes of each (beliefs.bel, the fields)."""
    return st.kn.view(np.float64)[:, :, state.KN_BEL :]


def compiled(name: str, *sets: str) -> T.Compiled:
    cfg = load_config(CONFIGS / f"{name}.yaml", parse_overrides(list(sets)))
    return games.get("raven_manor").compile(cfg)


def reasoning(name: str, players: int, policy: str = "reasoning", *sets: str) -> T.Compiled:
    seats = ", ".join([policy] * players)
    return compiled(name, f"players={players}", f"seats=[{seats}]", *sets)


def brute_force(n: int, g: np.ndarray, d: tuple[float, float, float], pi_r: float, pi_h: float):
    """Every seat's marginal by enumerating every world: each seat in one of the six states, at
    most one seat per evil character, weighted by the prior (each evil character in the game
    with chance d, at a uniform seat; each other seat possessed for a present Raven with chance
    pi_r, for a present Horseman with pi_h) times the evidence ``g``."""
    evil = (B.B_RAVEN, B.B_HORSE, B.B_CTHULHU)
    allowed = [s for s in range(B.NB) if s < B.B_RAVEN or d[evil.index(s)] > 0]
    out = np.zeros((n, B.NB))
    total = 0.0
    for world in itertools.product(allowed, repeat=n):
        counts = [world.count(s) for s in evil]
        if max(counts) > 1:
            continue
        w = 1.0
        for c, de in zip(counts, d, strict=True):
            if de > 0:
                w *= de / n if c else 1.0 - de
        rp, hp = counts[0] == 1, counts[1] == 1
        for p, s in enumerate(world):
            if s == B.B_FAM:
                w *= 1.0 - pi_r * rp - pi_h * hp
            elif s == B.B_POSS_R:
                w *= pi_r if rp else 0.0
            elif s == B.B_POSS_H:
                w *= pi_h if hp else 0.0
            w *= g[p, s]
        total += w
        for p, s in enumerate(world):
            out[p, s] += w
    return out / total if total > 0 else None


def _possible(d: tuple[float, float, float]) -> list[int]:
    """The states a seat can be in when each evil character is in the game with chance d."""
    out = [B.B_FAM]
    if d[0] > 0:
        out += [B.B_POSS_R, B.B_RAVEN]
    if d[1] > 0:
        out += [B.B_POSS_H, B.B_HORSE]
    if d[2] > 0:
        out += [B.B_CTHULHU]
    return out


LINEUPS = [(1.0, 0.0, 0.0), (1.0, 0.4, 0.0), (1.0, 0.5, 0.3), (0.6, 1.0, 0.0), (1.0, 1.0, 1.0)]


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("d", LINEUPS)
def test_the_belief_is_the_enumeration_of_every_world(n, d):
    rng = np.random.default_rng(n * 10 + LINEUPS.index(d))
    for _ in range(3):
        g = rng.random((T.MAXP, B.NB)) ** 3  # uneven evidence, some states all but ruled out
        g[0] = 0.0
        g[0, rng.choice(_possible(d))] = 1.0  # the observer knows its own state
        out = np.zeros((T.MAXP, B.NB))
        total = B.marginals(n, g, *d, 0.2, 0.15, out, np.zeros((T.MAXP, 4)))
        ref = brute_force(n, g, d, 0.2, 0.15)
        if ref is None:  # no world fits (two seats cannot hold the Raven and a Horseman's own)
            assert total == 0.0
            continue
        np.testing.assert_allclose(out[:n], ref, atol=1e-12)


def test_one_raven_among_seven_is_exact_over_its_n_times_2_to_the_n_minus_1_worlds():
    """The starter game's worlds: the Raven at one of 7 seats, each other seat possessed or not
    (7 x 2^6 = 448), and no other evil character."""
    n = 7
    rng = np.random.default_rng(7)
    g = rng.random((T.MAXP, B.NB))
    g[:, B.B_POSS_H] = g[:, B.B_HORSE] = g[:, B.B_CTHULHU] = 0.0
    out = np.zeros((T.MAXP, B.NB))
    B.marginals(n, g, 1.0, 0.0, 0.0, 0.3, 0.0, out, np.zeros((T.MAXP, 4)))
    worlds = 0
    ref = np.zeros((n, B.NB))
    for r in range(n):
        for possessed in itertools.product((0, 1), repeat=n - 1):
            worlds += 1
            others = [p for p in range(n) if p != r]
            w = g[r, B.B_RAVEN] / n
            for p, k in zip(others, possessed, strict=True):
                w *= 0.3 * g[p, B.B_POSS_R] if k else 0.7 * g[p, B.B_FAM]
            ref[r, B.B_RAVEN] += w
            for p, k in zip(others, possessed, strict=True):
                ref[p, B.B_POSS_R if k else B.B_FAM] += w
    assert worlds == n * 2 ** (n - 1)
    np.testing.assert_allclose(out[:n], ref / ref[0].sum(), atol=1e-12)


@pytest.mark.parametrize(("name", "players"), [("base", 4), ("base", 5), ("all_cards", 5)])
def test_beliefs_of_games_in_progress_are_the_enumeration(name, players):
    """Each reasoning seat's cached marginals (refreshed at its decisions) equal the brute force
    enumeration of its evidence (soft factors and hard facts) under the prior of the deal."""
    c = reasoning(name, players)
    tb = c.tb
    checked = 0
    for st, _work in iter_decisions(c, 6, seed=3, every=9):
        q = int(st.board[state.G_ACTOR])
        B.refresh(tb, st, q)
        g = np.zeros((T.MAXP, B.NB))
        B.evidence(tb, st, q, g)
        d = B.dealt_chances(tb, st, q)
        pi = B.possession_prior(tb, st)
        ref = brute_force(players, g, d, *pi)
        np.testing.assert_allclose(belief(st)[q, :players, B.NB : 2 * B.NB], ref, atol=1e-9)
        checked += 1
    assert checked >= 20


def test_a_seen_character_pins_the_belief_and_a_feather_seen_marks_an_enemy():
    """RM-11: a seat that looked at the Raven's character believes it; a Feather seen in a hand
    makes its holder possessed or the Raven, hence an enemy to a reasoning Family seat."""
    c = reasoning("base", 5)
    tb = c.tb
    for st, _work in iter_decisions(c, 1, seed=5, every=1):
        q = int(st.board[state.G_ACTOR])
        if st.pl[q, state.PL_SIDE] == T.FAMILY and st.board[state.G_TURN] > 0:
            break
    raven = int(np.flatnonzero(st.pl[:5, state.PL_CHAR] == T.RAVEN)[0])
    other = next(p for p in range(5) if p not in (q, raven))
    st.kn[q, raven, state.KN_CHAR] = T.RAVEN
    st.kn[q, other, state.KN_FEATHER] = int(st.board[state.G_TURN]) + 1
    B.refresh(tb, st, q)
    assert belief(st)[q, raven, B.NB + B.B_RAVEN] > 0.99  # a look, not a reveal: 1 - HARD_CHAR odds
    assert belief(st)[q, other, B.NB + B.B_FAM] < 0.2  # possessed unless the rare exceptions
    assert belief(st)[q, raven, B.BE_ENEMY] == 1.0 and policies.enemy(st, q, raven)
    assert belief(st)[q, q, B.NB + B.true_state(st, q)] == 1.0


def test_an_attack_on_a_family_seat_raises_its_suspicion_of_the_attacker():
    """Soft evidence: in self-play a kill on a Family player is far more often an evil
    player's, so a Family seat that sees itself attacked believes the attacker more likely evil,
    by at most the clipped ratio of one action."""
    c = reasoning("base", 5)
    tb = c.tb
    assert B.lik(tb, B.C_KILL, 1, B.REL_OTHER) > B.lik(tb, B.C_KILL, 0, B.REL_OTHER)
    for st, _work in iter_decisions(c, 1, seed=8, every=1):
        q = int(st.board[state.G_ACTOR])
        if st.pl[q, state.PL_SIDE] == T.FAMILY:
            break
    a = next(p for p in range(5) if p != q and st.kn[q, p, state.KN_CHAR] < 0)
    B.refresh(tb, st, q)
    before = belief(st)[q, a, B.BE_OTHER]
    B.observe(tb, st, a, B.C_KILL, q)
    B.refresh(tb, st, q)
    after = belief(st)[q, a, B.BE_OTHER]
    assert after > before
    odds = (after / (1 - after)) / (before / (1 - before))
    assert odds <= B.CLIP + 1e-9


KNOWLEDGE = (  # config, players, policy, games, table talk (ENGINE-15: claims and hearing)
    ("base", 5, "reasoning", 60, True),
    ("base", 3, "reasoning", 80, False),
    ("base", 7, "reasoning_family", 40, False),
    ("all_cards", 8, "reasoning", 30, True),
)


@pytest.mark.slow
def test_no_reasoning_choice_depends_on_what_the_seat_cannot_know():
    """Every decision of reasoning games, re-dealt from the deciding seat's view
    (knowledge.determinize: other hands, characters, possession, the deck) with the seat's own
    stream kept: the same choice and the same belief, on at least 10,000 decisions, claims at the
    table among them."""
    rng = np.array([np.uint64(12345)], np.uint64)
    checked = 0
    for name, players, policy, n_games, talk in KNOWLEDGE:
        c = reasoning(name, players, policy, f"rules.talk={str(talk).lower()}")
        tb = c.tb
        for st, work in iter_decisions(c, n_games, seed=17):
            q = int(st.board[state.G_ACTOR])
            alt = state.alloc_state(tb, 0)
            state.copy_state(st, alt)
            knowledge.determinize(tb, alt, q, rng)
            alt.rng[2 + q, 0] = st.rng[2 + q, 0]
            a = int(policies.choose(tb, st, work))
            b = int(policies.choose(tb, alt, work))
            assert a == b, f"{name} seat {q} turn {int(st.board[state.G_TURN])}: {a} / re-dealt {b}"
            np.testing.assert_allclose(belief(st)[q], belief(alt)[q])
            checked += 1
    assert checked >= 10_000, checked


def test_the_beliefs_are_compiled_only_into_kernels_of_a_reasoning_line_up():
    """A line-up with a reasoning seat gets ReasoningTables, any other plain Tables; a kernel
    calls the beliefs through gates that numba resolves by that type: to the belief's code for
    the first, to nothing for the second (whose kernels then never compile the beliefs). Here a
    look at a Feather's holder, which exposes the looker's side to it (beliefs.observe)."""
    from numba import njit

    @njit(cache=False)
    def look(tb, st):
        B.observe_if(tb, st, np.int64(0), np.int64(B.C_LOOK), np.int64(1))

    with_seat, without = reasoning("base", 4), compiled("base")
    assert type(with_seat.tb) is T.ReasoningTables and type(without.tb) is T.Tables
    assert type(T.with_script(with_seat, {0: [1]}).tb) is T.ReasoningTables  # kept by _replace
    for tb, seen in ((without.tb, 0.0), (with_seat.tb, 1.0)):
        for run in (look, lambda tb, st: B.observe_if(tb, st, 0, B.C_LOOK, 1)):  # and in Python
            st = state.alloc_state(tb, 0)
            st.board[state.G_N] = 4
            st.pl[1, state.PL_HAND + T.FEATHER] = 1
            run(tb, st)
            assert belief(st)[1, 0, B.BE_EXPOSED] == seen


def test_the_reasoning_policys_exposure_is_compiled_only_into_kernels_of_a_reasoning_line_up():
    """The reasoning policy weighs what an action or claim would tell the table of its side
    (beliefs.exposure_cost) through a gate as well: with ReasoningTables the gate is the cost
    itself, at every seat, class and target of decision states of reasoning games; with plain
    Tables of the same arrays (a kernel no reasoning seat ever runs) it is 0."""
    from numba import njit

    @njit(cache=False)
    def costs(tb, st, n, out):
        for p in range(n):
            for cls in range(B.C_SAY_EVIL + 1):
                for t in range(n):
                    out[0, p, cls, t] = B.exposure_cost(tb, st, p, cls, t)
                    out[1, p, cls, t] = B.exposure_cost_if(tb, st, p, cls, t)

    c = reasoning("base", 5)
    plain = T.Tables(*c.tb)
    nonzero = 0
    for st, _work in iter_decisions(c, 3, seed=5, every=7):
        n = state.n_players(st)
        out = np.zeros((2, n, B.C_SAY_EVIL + 1, n))
        costs(c.tb, st, n, out)
        np.testing.assert_array_equal(out[1], out[0])
        nonzero += int(np.count_nonzero(out[0]))
        costs(plain, st, n, out)
        assert not out[1].any()
    assert nonzero > 0
