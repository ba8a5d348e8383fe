"""What a seat knows (FR-15, ENGINE-13, ENGINE-16): observe and determinize."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare

from balance.games.five_ravens import engine, knowledge
from balance.games.five_ravens import policies as pol
from balance.games.five_ravens import state as S
from balance.games.five_ravens import tables as T
from balance.games.five_ravens.tables import compile_tables
from balance.rng import seed_stream

from .helpers import CONFIGS, config

OPTS = np.zeros(S.MAX_OPTIONS, np.int64)
OPTS2 = np.zeros(S.MAX_OPTIONS, np.int64)


def stream(seed: int) -> np.ndarray:
    r = np.zeros(1, np.uint64)
    seed_stream(r, seed, 0, 99)
    return r


def decision_states(compiled, games, seed=1, every=1):
    """(state, work) at every ``every``-th decision point of ``games`` games (copies)."""
    tb = compiled.tb
    w = S.alloc_work(tb)
    k = 0
    for g in range(games):
        st = S.new_state(tb, 0)
        engine.start(tb, st, np.int64(seed), np.int64(g), w)
        while engine.advance(tb, st, w) >= 0:
            if k % every == 0:
                yield S.clone_state(st), w
            k += 1
            engine.apply(tb, st, w, pol.choose(tb, st, w))


def obs(compiled, st, seat):
    o = np.zeros(knowledge.obs_size(compiled.tb), np.int32)
    knowledge.observe(compiled.tb, st, seat, o)
    return o


def cards_conserved(compiled, st):
    """Every seat's nine Ravens once among its piles, thief, the Raven resolving and the 4's
    set-aside; every relic at most once in the whole game."""
    tb = compiled.tb
    P = int(tb.params[T.P_PLAYERS])
    b = st.board
    aside = list(b[S.B_ASIDE : S.B_ASIDE + b[S.G_SEQ]]) if knowledge.aside_of(st) >= 0 else []
    relics = []
    for p in range(P):
        cards = []
        for k in range(S.N_PILES):
            cards += list(st.pile[p, k, : st.pl[p, S.PL_DECK_N + k]])
        thief = st.pl[p, S.PL_THIEF]
        if thief >= 0 and thief not in cards:  # captured in the Theft, yet still named
            cards.append(thief)
        if b[S.G_PLAYED] >= 0 and b[S.G_ACTOR] == p:
            cards.append(b[S.G_PLAYED])
        if knowledge.aside_of(st) == p:
            cards += aside
        ravens = sorted(int(c) for c in cards if c < T.N_RAVENS)
        assert ravens == list(range(T.N_RAVENS)), (p, ravens)
        relics += [int(c) for c in cards if c >= T.N_RAVENS]
    relics += [int(x) for x in b[S.B_CENTRE : S.B_CENTRE + P] if x >= 0]
    mask = int(b[S.G_RMASK])
    relics += [
        int(b[S.B_RDECK + ((int(b[S.G_RD_BOT]) + k) & mask)]) for k in range(int(b[S.G_RD_N]))
    ]
    if b[S.G_SEEN] >= 0:
        relics.append(int(b[S.G_SEEN]))
    assert len(relics) == len(set(relics))


def test_observe_hides_other_hands_and_unknown_relics(greedy4):
    c = greedy4
    for st, _ in decision_states(c, 1, every=7):
        o = obs(c, st, 0)
        assert o[knowledge.O_SEAT] == 0
        # the own hand is there, in order
        nh = st.pl[0, S.PL_HAND_N]
        assert o[knowledge.O_HAND : knowledge.O_HAND + nh].tolist() == st.pile[0, 1, :nh].tolist()
        for slot in range(4):
            row = o[knowledge.O_CENTRE + slot * knowledge.C_W :]
            x = st.board[S.B_CENTRE + slot]
            if x >= 0 and not st.board[S.B_FACE + slot] and not st.pl[0, S.PL_CKNOWN + slot]:
                assert row[knowledge.C_CARD] == -1  # FR-15: a face-down relic never seen
        # another seat's hand changes nothing in seat 0's observation
        twin = S.clone_state(st)
        nh1 = twin.pl[1, S.PL_HAND_N]
        twin.pile[1, 1, :nh1] = twin.pile[1, 1, :nh1][::-1].copy()
        assert np.array_equal(obs(c, twin, 0), o)


@pytest.mark.parametrize("name", ["base.yaml", "two_players.yaml", "random_vs_greedy.yaml"])
def test_determinize_keeps_what_the_seat_knows_and_plays_on(name):
    """ENGINE-16, FR-15: (a) a legal state that plays to the end, cards conserved; (c) the actor's
    observation and legal options unchanged; (d) every stream seeded again (ENGINE-14)."""
    from balance.config import load_config

    c = compile_tables(load_config(CONFIGS / name))
    tb = c.tb
    rng = stream(7)
    n = 0
    played = 0
    for st, w in decision_states(c, 22 if name == "base.yaml" else 12):
        seat = int(S.pending(st)[0])
        before = obs(c, st, seat)
        k = engine.legal(tb, st, w, OPTS)
        chance = st.rng.copy()
        knowledge.determinize(tb, st, seat, rng)
        assert np.array_equal(obs(c, st, seat), before)
        assert engine.legal(tb, st, w, OPTS2) == k
        assert np.array_equal(OPTS[:k], OPTS2[:k])
        assert (st.rng != chance).all()
        cards_conserved(c, st)
        n += 1
        if n % 97 == 0:  # (a) plays to the end with the configured policies
            while True:
                engine.apply(tb, st, w, pol.choose(tb, st, w))
                if engine.advance(tb, st, w) < 0:
                    break
            cards_conserved(c, st)
            played += 1
    assert n >= (3000 if name == "base.yaml" else 1000) and played >= 10


def test_determinize_covers_ten_thousand_states():
    """(c) on 10,000 decision states of small configs."""
    total = 0
    for players in (2, 3):
        c = compile_tables(config(players, ["random"] * players))
        rng = stream(players)
        for st, w in decision_states(c, 130 if players == 2 else 90):
            seat = int(S.pending(st)[0])
            before = obs(c, st, seat)
            k = engine.legal(c.tb, st, w, OPTS)
            knowledge.determinize(c.tb, st, seat, rng)
            assert np.array_equal(obs(c, st, seat), before)
            assert engine.legal(c.tb, st, w, OPTS2) == k and np.array_equal(OPTS[:k], OPTS2[:k])
            total += 1
    assert total >= 10_000


def _first_turn(c, game=0):
    tb = c.tb
    st = S.new_state(tb, 0)
    w = S.alloc_work(tb)
    engine.start(tb, st, np.int64(1), np.int64(game), w)
    engine.advance(tb, st, w)
    return st


def _facedown_counts(c, st, seat, samples, biased=False, seed=3):
    """How often each relic lands in the face-down centre slot after determinize(seat)."""
    tb = c.tb
    P = int(tb.params[T.P_PLAYERS])
    slot = [s for s in range(P) if st.board[S.B_FACE + s] == 0][0]
    true = int(st.board[S.B_CENTRE + slot])
    rng = stream(seed)
    bias = np.random.default_rng(seed)
    counts: dict[int, int] = {}
    for _ in range(samples):
        twin = S.clone_state(st)
        knowledge.determinize(tb, twin, seat, rng)
        x = int(twin.board[S.B_CENTRE + slot])
        if biased and bias.random() < 0.1:
            x = true  # a re-deal that leaks the true relic now and then
        counts[x] = counts.get(x, 0) + 1
    return counts


def test_hidden_relics_spread_as_chance_would():
    """(b) the face-down relic the seat has not seen is any of the relics it has not seen, equally
    likely (FR-3, FR-4, FR-15); a re-deal biased towards the truth is rejected."""
    c = compile_tables(config(4, ["random"] * 4))
    st = _first_turn(c)
    seat = int(S.pending(st)[0])
    n_unseen = int(c.tb.params[T.P_N_RELICS]) - 3  # the three face-up relics are known
    counts = _facedown_counts(c, st, seat, 6000)
    assert len(counts) == n_unseen
    assert chisquare(list(counts.values())).pvalue > 0.001
    biased = _facedown_counts(c, st, seat, 6000, biased=True)
    assert chisquare(list(biased.values())).pvalue < 0.001


def test_hands_spread_as_chance_would():
    """(b) another seat's Raven is in its hand as often as the hand's share of its pool."""
    c = compile_tables(config(2, ["random"] * 2))
    st = _first_turn(c, game=3)
    seat = int(S.pending(st)[0])
    q = 1 - seat
    rng = stream(5)
    hits = np.zeros(T.N_RAVENS, np.int64)
    n = 3000
    for _ in range(n):
        twin = S.clone_state(st)
        knowledge.determinize(c.tb, twin, seat, rng)
        for x in twin.pile[q, S.PILE_HAND, : twin.pl[q, S.PL_HAND_N]]:
            if x < T.N_RAVENS:
                hits[x] += 1
    # every Raven of the seat is in its hand or deck: each as likely in hand as any other
    assert chisquare(hits).pvalue > 0.001
    assert hits.sum() == n * st.pl[q, S.PL_HAND_N] - 0  # no relics in a first hand
    planted = hits.copy()
    planted[st.pile[q, S.PILE_HAND, 0]] += n // 10  # a re-deal that keeps a card in place
    assert chisquare(planted).pvalue < 0.001
