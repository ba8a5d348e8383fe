"""What a Raven Manor seat knows (knowledge.py; RM-11, RM-13, RM-26, RM-29): ``determinize``
re-deals only what the seat cannot know, uniformly, into a state that plays on; ``observe`` and
the legal options of the seat's decision are the same before and after; every stream is seeded
again."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy.stats import chisquare

from balance import games
from balance.config import load_config
from balance.games.raven_manor import engine, knowledge, policies, state
from balance.games.raven_manor import tables as T
from balance.games.raven_manor.state import (
    G_DECK_N,
    KN_CHAR,
    MAX_OPTIONS,
    PL_CHAR,
    PL_HAND,
    PL_HAND_N,
    PL_REVEALED,
)

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = ROOT / "configs" / "raven_manor"


def compiled(name: str) -> T.Compiled:
    return games.get("raven_manor").compile(load_config(CONFIGS / f"{name}.yaml"))


def stream(seed: int) -> np.ndarray:
    return np.array([np.uint64(seed * 2654435761 + 1)], np.uint64)


def iter_decisions(c: T.Compiled, games_: int, seed: int = 1, every: int = 1):
    """(state copy, work) at every ``every``-th decision of ``games_`` games, one at a time."""
    tb = c.tb
    work = state.alloc_work(tb)
    for g in range(games_):
        st = state.alloc_state(tb, 0)
        engine.start(tb, st, seed, g, work)
        k = 0
        while engine.advance(tb, st, work) >= 0:
            if k % every == 0:
                twin = state.alloc_state(tb, 0)
                state.copy_state(st, twin)
                yield twin, work
            engine.apply(tb, st, work, policies.choose(tb, st, work))
            k += 1


def decision_states(c: T.Compiled, games_: int, seed: int = 1, every: int = 1):
    """([state copy], work) at every ``every``-th decision of ``games_`` games."""
    out = list(iter_decisions(c, games_, seed, every))
    return [st for st, _ in out], out[0][1] if out else state.alloc_work(c.tb)


def legal(tb, st, work) -> list[int]:
    opts = np.zeros(MAX_OPTIONS, np.int64)
    return [int(x) for x in opts[: int(engine.legal(tb, st, work, opts))]]


def test_determinize_keeps_what_the_seat_knows_on_many_decisions():
    """(c): observe(seat) and the legal options unchanged, >= 10,000 decision states (the shipped
    base config and small tables)."""
    checked = 0
    size = None
    for name, n_games in (("base", 45), ("players_3", 40), ("all_cards", 25)):
        c = compiled(name)
        size = knowledge.obs_size(c.tb)
        sts, work = decision_states(c, n_games)
        a = np.zeros(size, np.int32)
        b = np.zeros(size, np.int32)
        for i, st in enumerate(sts):
            seat = int(st.board[state.G_ACTOR])
            before = legal(c.tb, st, work)
            knowledge.observe(c.tb, st, seat, a)
            total = int(state.cards_total(st))
            knowledge.determinize(c.tb, st, seat, stream(i))
            knowledge.observe(c.tb, st, seat, b)
            assert np.array_equal(a, b), (name, i)
            assert legal(c.tb, st, work) == before
            assert int(state.cards_total(st)) == total
            checked += 1
    assert checked >= 10_000, checked


def test_determinized_states_are_legal_and_play_to_the_end():
    """(a) and (d): card conservation, hand sizes kept, every stream seeded again, and the game
    plays on to an end."""
    c = compiled("all_cards")
    tb = c.tb
    sts, work = decision_states(c, 8, seed=4, every=7)
    for i, st in enumerate(sts):
        seat = int(st.board[state.G_ACTOR])
        counts = state.card_counts(st)
        sizes = st.pl[:, PL_HAND_N].copy()
        rng0 = st.rng.copy()
        knowledge.determinize(tb, st, seat, stream(100 + i))
        assert np.array_equal(state.card_counts(st), counts)
        assert np.array_equal(st.pl[:, PL_HAND_N], sizes)
        for p in range(int(st.board[state.G_N])):
            assert st.pl[p, PL_HAND : PL_HAND + T.NC].sum() == st.pl[p, PL_HAND_N]
        assert (st.rng[:, 0] != rng0[:, 0]).all()  # every stream seeded again
        while engine.advance(tb, st, work) >= 0:
            engine.apply(tb, st, work, policies.choose(tb, st, work))
        assert int(st.board[state.G_END]) != 0
        # every card is back in a place (at a decision, a pick's or a window's cards are not)
        deck = np.asarray(tb.params[T.P_COUNT : T.P_COUNT + T.NC], np.int64)
        assert np.array_equal(state.card_counts(st), deck)


def _sample(c, st, seat, n, biased=False):
    """Characters at each hidden seat and the hand of one hidden seat, over ``n`` re-deals."""
    tb = c.tb
    twin = state.alloc_state(tb, 0)
    chars = []
    hands = []
    for i in range(n):
        state.copy_state(st, twin)
        knowledge.determinize(tb, twin, seat, stream(7 + i))
        if biased and i % 3 == 0:  # the planted failure: a third keeps the true deal
            state.copy_state(st, twin)
        chars.append(twin.pl[:, PL_CHAR].copy())
        hands.append(twin.pl[:, PL_HAND : PL_HAND + T.NC].copy())
    return np.array(chars), np.array(hands)


def test_the_redeal_is_uniform_and_a_biased_one_is_rejected():
    """(b): which characters are in the game and where is hidden (RM-2, RM-11): at a hidden seat,
    each always-dealt character the seat does not know is as likely as 1 / (hidden seats), each
    other character of the pool it does not know as likely as its share of the remaining
    hidden seats; each hidden card of the pool is as likely in a seat's unseen hand as its share
    of the pool. A re-deal that keeps the true deal a third of the time is rejected."""
    c = compiled("base")
    tb = c.tb
    sts, _ = decision_states(c, 1, seed=9, every=1)
    st = sts[2]
    seat = int(st.board[state.G_ACTOR])
    n = int(st.board[state.G_N])
    hidden = [
        p
        for p in range(n)
        if p != seat and st.kn[seat, p, KN_CHAR] < 0 and not st.pl[p, PL_REVEALED]
    ]
    assert len(hidden) >= 3
    x = hidden[0]
    known = {int(st.pl[p, PL_CHAR]) for p in range(n) if p not in hidden}
    pool = [int(v) for v in tb.params[T.P_POOL : T.P_POOL + int(tb.params[T.P_POOL_N])]]
    always = pool[: int(tb.params[T.P_ALWAYS_N])]
    must = [ch for ch in always if ch not in known]
    rest = [ch for ch in pool if ch not in known and ch not in must]
    u = len(hidden)
    prob = {ch: 1 / u for ch in must} | {ch: (u - len(must)) / len(rest) / u for ch in rest}
    assert abs(sum(prob.values()) - 1) < 1e-9 and len(prob) > u  # more characters than seats
    samples = 3000
    for biased in (False, True):
        chars, hands = _sample(c, st, seat, samples, biased)
        assert set(np.unique(chars[:, x])) <= set(prob)
        got = np.array([(chars[:, x] == ch).sum() for ch in sorted(prob)], float)
        want = np.array([prob[ch] for ch in sorted(prob)]) * samples
        p_chars = chisquare(got, want).pvalue
        # the hand of x: it keeps nothing it showed seat (the start of the game); its cards are
        # drawn from the pool of every hidden card
        pool_cards = st.pl[[p for p in range(n) if p != seat], PL_HAND : PL_HAND + T.NC].sum(0)
        pool_cards = pool_cards + np.bincount(st.deck[: int(st.board[G_DECK_N])], minlength=T.NC)
        assert not st.kn[seat, x, state.KN_HAND : state.KN_HAND + T.NC].any()
        types = pool_cards > 0
        exp = pool_cards[types] / pool_cards.sum() * int(st.pl[x, PL_HAND_N]) * samples
        obs = hands[:, x, :].sum(0)[types]
        p_cards = chisquare(obs, exp * obs.sum() / exp.sum()).pvalue
        if biased:
            assert min(p_chars, p_cards) < 1e-3
        else:
            assert p_chars > 1e-3 and p_cards > 1e-3, (p_chars, p_cards)
