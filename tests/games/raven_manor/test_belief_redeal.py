"""Belief-weighted re-deals (knowledge.determinize for a seat that keeps beliefs): the worlds a
reasoning seat, or a search whose rollouts reason, imagines follow the deal's prior times its
soft evidence (issue 31: "a search Family deduces"), drawn by rejection from the uniform re-deal.

- Planted evidence moves the re-dealt Raven exactly as Bayes' rule says (a goodness-of-fit
  check against the closed form).
- The re-deal stays canonical: from the true state and from any re-deal of it, the same worlds.
- A seat without beliefs re-deals as before: no extra random draw (the search datasets of
  basic rollouts are unchanged).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from balance.games.raven_manor import beliefs as B
from balance.games.raven_manor import engine, knowledge, state
from balance.games.raven_manor import tables as T

from .test_beliefs import belief, reasoning


def _opening(c: T.Compiled, want_family: bool = True):
    """A reasoning game at its first decision whose seat is not the Raven and knows no one."""
    tb = c.tb
    work = state.alloc_work(tb)
    for g in range(40):
        st = state.alloc_state(tb, 0)
        engine.start(tb, st, 5, g, work)
        engine.advance(tb, st, work)
        q = int(st.board[state.G_ACTOR])
        if st.pl[q, state.PL_CHAR] != T.RAVEN or not want_family:
            return st, q
    raise AssertionError("no such opening")


def test_planted_evidence_moves_the_redealt_raven_as_bayes_rule_says():
    c = reasoning("base", 5)
    st, q = _opening(c)
    assert st.board[state.G_BELIEFS] == 1 and st.pl[q, state.PL_REASON] == 1
    x = next(p for p in range(5) if p != q)
    belief(st)[q, :, : B.NB] = 0.0
    belief(st)[q, x, B.B_RAVEN] = np.log(20.0)  # the Raven's state at x: 20 times the others
    rng = np.array([np.uint64(99)], np.uint64)
    n, at_x = 3000, 0
    for _ in range(n):
        world = state.alloc_state(c.tb, 0)
        state.copy_state(st, world)
        knowledge.determinize(c.tb, world, q, rng)
        at_x += int(world.pl[x, state.PL_CHAR] == T.RAVEN)
    # the uniform re-deal puts the Raven at each of the 4 other seats alike: 20 / (20 + 3)
    expected = 20.0 / 23.0
    assert stats.binomtest(at_x, n, expected).pvalue > 1e-4, (at_x / n, expected)
    assert at_x / n > 0.8  # far from the uniform 0.25


def test_a_belief_weighted_redeal_is_canonical():
    """The same worlds from the true state and from a re-deal of it (same rng): the re-deal
    reads only what the seat knows, its beliefs included."""
    c = reasoning("base", 5)
    st, q = _opening(c)
    x = next(p for p in range(5) if p != q)
    belief(st)[q, x, B.B_RAVEN] = np.log(6.0)
    other = state.alloc_state(c.tb, 0)
    state.copy_state(st, other)
    knowledge.determinize(c.tb, other, q, np.array([np.uint64(7)], np.uint64))
    a, b = state.alloc_state(c.tb, 0), state.alloc_state(c.tb, 0)
    state.copy_state(st, a)
    state.copy_state(other, b)
    for w in (a, b):
        knowledge.determinize(c.tb, w, q, np.array([np.uint64(123)], np.uint64))
    np.testing.assert_array_equal(a.pl, b.pl)
    np.testing.assert_array_equal(a.deck, b.deck)
    np.testing.assert_array_equal(a.kn[q], b.kn[q])


def test_a_seat_without_beliefs_redeals_as_before():
    """basic seats: belief_weight is 0 and the re-deal is the plain one, step by step, with the
    same draws (the rng ends where the plain re-deal leaves it)."""
    c = reasoning("base", 5, "basic")
    st, q = _opening(c, want_family=False)
    assert knowledge.belief_weight(st, q) == 0.0
    tb = c.tb
    plain = state.alloc_state(tb, 0)
    state.copy_state(st, plain)
    rng = np.array([np.uint64(5)], np.uint64)
    knowledge.determinize(tb, st, q, rng)
    ref = np.array([np.uint64(5)], np.uint64)
    buf = np.zeros(3 * T.MAXP + 2 * T.NCH, np.int64)
    cnt = np.zeros(T.NC, np.int64)
    keep = np.zeros((T.MAXP, T.NC), np.int64)
    pool = np.zeros(plain.deck.shape[0] + T.MAXP * 2 * 64 + 64, np.int64)
    for _ in range(64):
        if knowledge._deal_chars(tb, plain, q, ref, buf):
            break
    knowledge._deal_cards(tb, plain, q, ref, cnt, keep, pool)
    knowledge._deal_possession(plain, q, ref)
    knowledge._rebuild_knowledge(plain, q)
    knowledge._redeal_trade(plain, q, ref)
    knowledge.reseed(tb, plain, ref)
    assert rng[0] == ref[0]
    np.testing.assert_array_equal(st.pl, plain.pl)
    np.testing.assert_array_equal(st.deck, plain.deck)


SEARCH_REASONING = "configs/raven_manor/search_reasoning_family.yaml"


def test_a_search_that_deduces_reads_nothing_its_seat_cannot_know():
    """The search of a seat with beliefs (reasoning rollouts, belief-weighted re-deals): its
    root is the same under any re-deal of what its seat cannot know, on 300 decision states,
    and it never touches the true state or its chance streams."""
    from tests.games.test_decisions import _same_state
    from tests.games.test_search import _root
    from tests.kit.decisions import compiled, positions

    plugin, tables, _ = compiled(SEARCH_REASONING, ("policies.mcts.iterations=6",))
    assert tables.inner.tb.params[T.P_BELIEFS] == 1
    checked = weighted = 0
    for i, pos in enumerate(positions(plugin, tables.inner, seed=47, n=300, every=5)):
        seat = pos.actor
        weighted += int(knowledge.belief_weight(pos.state, seat) < 0.0)
        before = pos.copy()
        code, stats, means = _root(pos, tables, key=i)
        assert _same_state(before.state, pos.state), "the search changed the true state"
        np.testing.assert_array_equal(before.state.rng, pos.state.rng)
        world = pos.determinize(seat, seed=1_000_003 + i)
        code2, stats2, means2 = _root(world, tables, key=i)
        assert code2 == code, f"state {i}: the pick moved with the hidden cards"
        np.testing.assert_array_equal(stats2, stats, err_msg=f"state {i}")
        np.testing.assert_array_equal(means2, means, err_msg=f"state {i}")
        checked += 1
    assert checked == 300
    assert weighted > 50  # the re-deals were weighted by evidence, not only uniform


def test_the_batch_plays_the_games_of_a_python_loop_whose_search_deduces():
    from tests.games.test_search import assert_batch_is_the_python_loop
    from tests.kit.decisions import compiled

    plugin, tables, _ = compiled(SEARCH_REASONING, ("policies.mcts.iterations=4",))
    assert_batch_is_the_python_loop(plugin, tables)
