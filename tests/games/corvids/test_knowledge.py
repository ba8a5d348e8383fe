"""What a Corvids seat may know (CV-12; balance/games/corvids/knowledge.py): ``observe`` and
``determinize``. A re-deal is a legal state that plays to the end, spreads each hidden card as
chance would (chi-square, with a planted biased re-deal that must be rejected), changes nothing
the seat knows (its observation and the pending decision's options, on >= 10,000 decision
states), and re-seeds every stream."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare

from balance import games
from balance.config import load_config
from balance.games.corvids import engine, knowledge, policies, state, tables
from balance.games.corvids import physics as ph
from balance.games.corvids.tables import BLANK, NI

from .helpers import CONFIGS, check_places, compiled


def rng_of(seed: int) -> np.ndarray:
    return np.array([np.uint64(seed * 2654435761 + 1)], np.uint64)


def game_at(c, seed: int, game: int, points: int):
    """A state of game ``game`` at its decision point number ``points`` (or its end)."""
    tb = c.tb
    st = state.alloc_state(tb, 4096)
    work = state.alloc_work(tb)
    engine.start(tb, st, np.int64(seed), np.int64(game), work)
    k = 0
    while engine.advance(tb, st, work) >= 0 and k < points:
        engine.apply(tb, st, work, policies.choose(tb, st, work))
        k += 1
    return st, work


def twin(tb, st):
    out = state.alloc_state(tb, st.log.shape[0])
    state.copy_state(st, out)
    return out


def check_world(c, st) -> None:
    """The rules' invariants of a state: every card and feather in one place and the seats'
    counts of what they hold (helpers.check_places), birds dealt once each, a hidden bird's nest
    covered."""
    check_places(c, st)
    n = int(st.board[state.G_N])
    birds = [int(b) for b in st.pl[:n, state.PL_BIRD]]
    assert len(set(birds)) == n
    for p in range(n):
        if st.pl[p, state.PL_REVEALED] == 0:
            nest = int(c.tb.params[tables.P_BIRD_NEST + birds[p]])
            assert st.pile.ncount[nest] > 0
    singles = sorted(int(st.item[k, 0]) for k in range(st.item.shape[0]) if st.item[k, 1] == BLANK)
    want = sorted(i for i in range(NI) for _ in range(int(c.tb.params[tables.P_SINGLE_N + i])))
    assert singles == want  # the deck's single-sided cards, re-dealt among themselves


def play_out(c, st, work) -> None:
    while engine.advance(c.tb, st, work) >= 0:
        engine.apply(c.tb, st, work, policies.choose(c.tb, st, work))


@pytest.mark.parametrize("seats", ["greedy", "random"])
def test_a_redeal_is_a_legal_state_that_plays_to_the_end(seats):
    """(a) determinize for every seat at decision points of several games: the invariants hold
    after it, and the game plays on to its end with them holding."""
    c = compiled(4, seats=seats)
    for g in range(5):
        for cut in (5, 25, 60):
            st, work = game_at(c, 9, g, cut)
            for seat in range(4):
                w = twin(c.tb, st)
                knowledge.determinize(c.tb, w, np.int64(seat), rng_of(g * 100 + cut + seat))
                check_world(c, w)
                play_out(c, w, work)
                check_world(c, w)
                assert w.board[state.G_END] != 0


def hidden_state():
    """A mid-game state of the base config with hidden single-sided cards in the pile, and the
    seat that decides there."""
    c = compiled(4, seats="greedy")
    st, work = game_at(c, 21, 2, 12)
    seat = int(state.pending(st)[0])
    return c, st, seat


def samples(c, st, seat, n, bias=False):
    """``n`` re-deals of ``st`` for ``seat``: the items of one hidden face-down pile card, a hidden
    seat's bird, and one double-sided pile card's unseen side."""
    tb = c.tb
    single = next(
        k for k in range(st.item.shape[0])
        if st.item[k, 1] == BLANK and st.pile.cst[k, ph.CS_ON] == 1
        and st.pile.cst[k, ph.CS_FACE] == 0 and st.cc[k, state.CC_SEEN] == 0
    )  # fmt: skip
    double = next(
        k for k in range(st.item.shape[0])
        if st.item[k, 1] != BLANK and st.pile.cst[k, ph.CS_ON] == 1 and st.cc[k, state.CC_SEEN] == 0
    )  # fmt: skip
    other = next(q for q in range(4) if q != seat and st.pl[q, state.PL_REVEALED] == 0)
    down = int(st.pile.cst[double, ph.CS_FACE])  # face 1: side 1 is down
    rng = rng_of(77)
    picks = np.random.default_rng(5)
    w = twin(tb, st)
    got_single, got_bird, got_side = [], [], []
    for _ in range(n):
        state.copy_state(st, w)
        knowledge.determinize(tb, w, np.int64(seat), rng)
        item = int(w.item[single, 0])
        if bias and picks.random() < 0.15:  # a planted bias: tickets favoured
            item = tables.TICKET
        got_single.append(item)
        got_bird.append(int(w.pl[other, state.PL_BIRD]))
        got_side.append(int(w.item[double, down]))
    return single, other, got_single, got_bird, got_side


def expected_singles(c, st, seat):
    """The items of the single-sided cards ``seat`` has not seen (the pool a re-deal shuffles)."""
    pool = []
    for k in range(st.item.shape[0]):
        if st.item[k, 1] != BLANK:
            continue
        owner = int(st.cc[k, state.CC_OWNER])
        face = int(st.cc[k, state.CC_TAKEN_FACE]) if owner >= 0 else int(st.pile.cst[k, ph.CS_FACE])
        seen = int(st.cc[k, state.CC_SEEN])
        if (
            face == 0
            and owner != seat
            and not (seen >> seat) & 1
            and not (seen >> state.SEEN_ALL) & 1
        ):
            pool.append(int(st.item[k, 0]))
    return pool


def chi(counts: dict[int, int], probs: dict[int, float], n: int) -> float:
    keys = sorted(probs)
    f_obs = np.array([counts.get(k, 0) for k in keys], float)
    assert sum(counts.get(k, 0) for k in counts if k not in probs) == 0  # nothing impossible
    return float(chisquare(f_obs, np.array([probs[k] * n for k in keys])).pvalue)


def test_a_redeal_spreads_hidden_cards_as_chance_would():
    """(b) Over 3,000 re-deals of one state: a hidden face-down pile card is each single-sided
    item in the proportion of the pool of unseen single-sided cards (a uniform shuffle), a hidden
    seat's bird is uniform over the birds it may hold, a double-sided card's unseen side follows
    the config's item weights (CV-2); a re-deal biased towards tickets is rejected."""
    c, st, seat = hidden_state()
    tb = c.tb
    n = 3000
    single, other, got_single, got_bird, got_side = samples(c, st, seat, n)
    pool = expected_singles(c, st, seat)
    assert len(pool) >= 4 and len(set(pool)) >= 2
    p_single = {i: pool.count(i) / len(pool) for i in set(pool)}
    counts = {i: got_single.count(i) for i in set(got_single)}
    assert chi(counts, p_single, n) > 1e-3
    known = {
        int(st.pl[q, state.PL_BIRD]) for q in range(4) if q == seat or st.pl[q, state.PL_REVEALED]
    }
    opened = int(st.board[state.G_NESTS_OPENED])
    cand = [
        b for b in range(int(tb.params[tables.P_BIRDS_N]))
        if b not in known and not (opened >> int(tb.params[tables.P_BIRD_NEST + b])) & 1
    ]  # fmt: skip
    assert int(st.pl[other, state.PL_BIRD]) in cand and len(cand) >= 2
    counts = {b: got_bird.count(b) for b in set(got_bird)}
    assert chi(counts, {b: 1 / len(cand) for b in cand}, n) > 1e-3
    weights = {i: float(tb.item_weight[i]) for i in range(NI) if tb.item_weight[i] > 0}
    counts = {i: got_side.count(i) for i in set(got_side)}
    assert chi(counts, weights, n) > 1e-3
    # the planted failure: the same test rejects a re-deal that favours tickets
    _, _, biased, _, _ = samples(c, st, seat, n, bias=True)
    counts = {i: biased.count(i) for i in set(biased)}
    assert chi(counts, p_single, n) < 1e-3


def decision_states(c, games_: int, seed: int):
    """Every decision state of ``games_`` games (configured policies), one at a time."""
    tb = c.tb
    st = state.alloc_state(tb, 0)
    work = state.alloc_work(tb)
    for g in range(games_):
        engine.start(tb, st, np.int64(seed), np.int64(g), work)
        while engine.advance(tb, st, work) >= 0:
            yield st, work
            engine.apply(tb, st, work, policies.choose(tb, st, work))


def test_a_redeal_changes_nothing_the_seat_knows():
    """(c) On >= 10,000 decision states (the shipped base config, two players, eight players),
    for the acting seat and for another: its observation and the pending decision's options are
    identical before and after the re-deal; (d) every stream is re-seeded."""
    base = games.get("corvids").compile(load_config(CONFIGS / "base.yaml"))
    two = games.get("corvids").compile(load_config(CONFIGS / "two_players.yaml"))
    eight = games.get("corvids").compile(load_config(CONFIGS / "eight_players.yaml"))
    rng = rng_of(1)
    checked = 0
    opts_a = np.zeros(state.MAX_OPTIONS, np.int64)
    opts_b = np.zeros(state.MAX_OPTIONS, np.int64)
    for c, n_games in ((base, 40), (two, 60), (eight, 12)):
        tb = c.tb
        size = knowledge.obs_size(tb)
        ob_a = np.zeros(size, np.int32)
        ob_b = np.zeros(size, np.int32)
        w = state.alloc_state(tb, 0)
        for st, work in decision_states(c, n_games, 4):
            actor = int(state.pending(st)[0])
            seat = actor if checked % 2 == 0 else (actor + 1 + checked % 3) % c.players
            state.copy_state(st, w)
            knowledge.observe(tb, st, np.int64(seat), ob_a)
            na = engine.legal(tb, st, work, opts_a)
            knowledge.determinize(tb, w, np.int64(seat), rng)
            knowledge.observe(tb, w, np.int64(seat), ob_b)
            nb = engine.legal(tb, w, work, opts_b)
            assert np.array_equal(ob_a, ob_b), (checked, np.flatnonzero(ob_a != ob_b))
            assert na == nb and np.array_equal(opts_a[:na], opts_b[:nb])
            assert (w.rng[:, 0] != st.rng[:, 0]).all()
            assert (ob_a >= -1).all()
            checked += 1
    assert checked >= 10_000


def test_observe_shows_the_seats_own_cards_and_hides_the_others():
    """CV-12: a seat sees its own face-down cards' items and the other seats' face-down cards as
    unknown (-1); its own bird and the revealed ones, the hidden ones as -1."""
    c = compiled(4, seats="greedy")
    st, _ = game_at(c, 21, 2, 60)
    tb = c.tb
    ob = np.zeros(knowledge.obs_size(tb), np.int32)
    c0 = knowledge.O_SEATS + tables.MAXP * knowledge.N_SO
    for seat in range(4):
        knowledge.observe(tb, st, np.int64(seat), ob)
        assert (
            ob[knowledge.O_SEATS + seat * knowledge.N_SO + knowledge.SO_BIRD]
            == st.pl[seat, state.PL_BIRD]
        )
        for q in range(4):
            r = knowledge.O_SEATS + q * knowledge.N_SO
            hidden = q != seat and st.pl[q, state.PL_REVEALED] == 0
            assert (ob[r + knowledge.SO_BIRD] == -1) == hidden
        for k in range(st.item.shape[0]):
            r = c0 + k * knowledge.N_CO
            owner = int(st.cc[k, state.CC_OWNER])
            if owner >= 0 and st.item[k, 1] == BLANK and st.cc[k, state.CC_TAKEN_FACE] == 0:
                bits = int(st.cc[k, state.CC_SEEN])
                seen = (bits >> seat) & 1 or (bits >> state.SEEN_ALL) & 1 or owner == seat
                assert (ob[r + knowledge.CO_OTHER] == -1) == (not seen)
                if seen:
                    assert ob[r + knowledge.CO_OTHER] == st.item[k, 0]
