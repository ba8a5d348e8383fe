"""What a seat knows (knowledge.py): observe holds nothing hidden, determinize re-deals the runes a
seat has not seen (the deck and the opponent's hand, policies.py docstring: hidden from the
opponent) uniformly, keeps everything the seat knows, and re-seeds every random stream."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare

from balance.games.raven_order import engine, knowledge, policies
from balance.games.raven_order import state as S
from balance.games.raven_order.tables import NR, RN_COUNT, TE_DRAWN, TE_PLAYED
from balance.rng import seed_stream

from .helpers import check_counts, compiled, work

SMALL = [["random", "random"], ["economy", "random"], ["random", "rush"]]


def _rng(seed: int) -> np.ndarray:
    r = np.zeros(1, np.uint64)
    seed_stream(r, seed, 0, 99)
    return r


def _deck(st) -> list[int]:
    top = int(st.board[S.G_DECK_TOP])
    return [int(x) for x in st.board[S.B_DECK + top :] if x >= 0]


def _runes_conserved(c, st) -> None:
    """Every rune of the mix is in the deck or was drawn; drawn = played + in hand, per seat."""
    deck = np.bincount(_deck(st), minlength=NR)
    drawn = st.pl[:, S.PL_TELE + TE_DRAWN : S.PL_TELE + TE_DRAWN + NR].sum(axis=0)
    np.testing.assert_array_equal(deck + drawn, c.tb.rune[:, RN_COUNT])
    for p in range(2):
        played = st.pl[p, S.PL_TELE + TE_PLAYED : S.PL_TELE + TE_PLAYED + NR]
        hand = st.pl[p, S.PL_HAND : S.PL_HAND + NR]
        np.testing.assert_array_equal(
            st.pl[p, S.PL_TELE + TE_DRAWN : S.PL_TELE + TE_DRAWN + NR], played + hand
        )
        assert hand.sum() == st.pl[p, S.PL_HAND_N]


def _midgame(c, seed: int, game: int, decisions: int):
    """The state of game ``game`` after ``decisions`` decisions (or at its end)."""
    w = work(c)
    st = S.alloc_state(c.tb, 0)
    engine.start(c.tb, st, np.int64(seed), np.int64(game), w)
    k = 0
    while engine.advance(c.tb, st, w) >= 0 and k < decisions:
        engine.apply(c.tb, st, w, policies.choose(c.tb, st, w))
        k += 1
    return st


@pytest.mark.parametrize("seats", SMALL)
def test_a_determinized_state_is_legal_and_plays_to_the_end(seats):
    c = compiled(seats, {"runes": {"spirit_rune": {"count": 2}, "corruption": {"count": 2}}})
    w = work(c)
    rng = _rng(1)
    for g in range(20):
        st = _midgame(c, 4, g, 20 + 7 * g)
        if engine.advance(c.tb, st, w) < 0:
            continue
        seat = g % 2
        before = (
            st.pl[:, S.PL_HAND_N].copy(),
            len(_deck(st)),
            st.pl[seat, S.PL_HAND : S.PL_HAND + NR].copy(),
        )
        knowledge.determinize(c.tb, st, seat, rng)
        _runes_conserved(c, st)
        np.testing.assert_array_equal(st.pl[:, S.PL_HAND_N], before[0])
        assert len(_deck(st)) == before[1]
        np.testing.assert_array_equal(st.pl[seat, S.PL_HAND : S.PL_HAND + NR], before[2])
        engine.play_out(c.tb, st, w)
        assert st.board[S.G_END] != S.END_NONE
        _runes_conserved(c, st)
        check_counts(st)


def _hidden_state(c):
    """A position of the base config with runes in the opponent's hand and in the deck."""
    for g in range(50):
        st = _midgame(c, 8, g, 30)
        if engine.advance(c.tb, st, work(c)) < 0:
            continue
        seat = int(S.pending(st)[0])
        if st.pl[1 - seat, S.PL_HAND_N] >= 3 and len(_deck(st)) >= 4:
            return st, seat
    raise AssertionError("no position with a hidden hand and a deck")


def _sorted_deck(st) -> None:
    """A deliberately biased re-deal: the deck left in rune order (the top card is the lowest)."""
    top = int(st.board[S.G_DECK_TOP])
    d = sorted(_deck(st))
    st.board[S.B_DECK + top : S.B_DECK + top + len(d)] = d


def _samples(c, st0, seat, n, biased=False):
    """Over ``n`` determinizations: counts per rune type of the deck's top card and of the
    opponent's hand."""
    st = S.alloc_state(c.tb, 0)
    rng = _rng(7)
    top = np.zeros(NR, np.int64)
    hand = np.zeros(NR, np.int64)
    for _ in range(n):
        S.copy_state(st0, st)
        knowledge.determinize(c.tb, st, seat, rng)
        if biased:
            _sorted_deck(st)
        top[_deck(st)[0]] += 1
        hand += st.pl[1 - seat, S.PL_HAND : S.PL_HAND + NR]
    return top, hand


def test_the_unseen_runes_are_spread_as_chance_spreads_them(base):
    """The deck's top card and the opponent's hand follow the unseen runes' proportions (a
    chi-square goodness of fit, fixed seed), and a biased re-deal is rejected."""
    st, seat = _hidden_state(base)
    o = 1 - seat
    pool = np.bincount(_deck(st), minlength=NR) + st.pl[o, S.PL_HAND : S.PL_HAND + NR]
    kinds = pool > 0
    p = pool[kinds] / pool.sum()
    n = 4000
    top, hand = _samples(base, st, seat, n)
    assert chisquare(top[kinds], n * p).pvalue > 0.001
    h = int(st.pl[o, S.PL_HAND_N])
    # each sample's hand is drawn without replacement: its counts vary less than a multinomial's,
    # so the test is conservative
    assert chisquare(hand[kinds], n * h * p).pvalue > 0.001
    assert top[~kinds].sum() == 0 and hand[~kinds].sum() == 0
    bad_top, _ = _samples(base, st, seat, n, biased=True)
    assert chisquare(bad_top[kinds], n * p).pvalue < 1e-6


@pytest.mark.slow
def test_what_a_seat_knows_is_unchanged_on_many_decision_states(base):
    """observe(seat) and the seat's own legal options are identical before and after
    determinize, on more than 10,000 decision states (the base config and small ones), and the
    game's stream is always re-seeded."""
    total = 0
    for c, games in [
        (base, 30),
        (compiled(["random", "random"]), 40),
        (compiled(["economy", "random"], {"runes": {"spirit_rune": {"count": 3}}}), 30),
    ]:
        checked, bad_obs, bad_legal, same_rng = knowledge.probe(
            c.tb, np.int64(12), np.int64(0), np.int64(games), np.int64(1), _rng(3), np.int64(0)
        )
        assert (bad_obs, bad_legal, same_rng) == (0, 0, 0)
        total += checked
    assert total >= 10_000, total


def test_observe_is_small_ints_and_hides_the_opponents_hand(base):
    st, seat = _hidden_state(base)
    obs = np.zeros(knowledge.obs_size(base.tb), np.int32)
    knowledge.observe(base.tb, st, seat, obs)
    assert obs.min() >= -1
    assert obs[knowledge.O_SEAT] == seat
    assert (obs[knowledge.O_PKIND], obs[knowledge.O_PACTOR]) == tuple(
        int(x) for x in S.pending(st)
    )[::-1]
    np.testing.assert_array_equal(
        obs[knowledge.O_HAND : knowledge.O_HAND + NR], st.pl[seat, S.PL_HAND : S.PL_HAND + NR]
    )
    other = S.alloc_state(base.tb, 0)
    S.copy_state(st, other)
    other.pl[1 - seat, S.PL_HAND : S.PL_HAND + NR] = np.roll(
        other.pl[1 - seat, S.PL_HAND : S.PL_HAND + NR], 3
    )
    obs2 = np.zeros_like(obs)
    knowledge.observe(base.tb, other, seat, obs2)
    np.testing.assert_array_equal(obs, obs2)


def test_every_stream_is_reseeded(base):
    st, seat = _hidden_state(base)
    before = st.rng.copy()
    rng = _rng(11)
    r0 = rng.copy()
    knowledge.determinize(base.tb, st, seat, rng)
    assert (st.rng != before).all()
    assert rng[0] != r0[0]  # drawn from the searcher's stream only
