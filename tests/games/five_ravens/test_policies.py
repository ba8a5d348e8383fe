"""Policy sanity: the greedy policy clearly beats random play, and the random policy is uniform
over the legal turns."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from balance.config import load_config
from balance.games.five_ravens import engine
from balance.games.five_ravens import policies as pol
from balance.games.five_ravens.state import (
    B_CENTRE,
    S_CKNOWN,
    S_DECK_KNOWN,
    S_RD_BOT,
    S_RD_TOP,
    S_THIEF,
    copy_state,
    new_state,
)
from balance.games.five_ravens.tables import compile_tables

from .helpers import (
    CONFIGS,
    blank,
    centre,
    config,
    moves_buffer,
    pile_cards,
    raven,
    relic_deck,
    relic_id,
    set_centre,
    set_relic_deck,
    set_seat,
)


def win_share(rank: np.ndarray) -> np.ndarray:
    """FR-14: each of the k seats ranked first gets 1/k of the game."""
    win = (rank == 1).astype(float)
    return win / win.sum(axis=1, keepdims=True)


@pytest.mark.slow
def test_greedy_seats_win_far_more_often_than_random_seats():
    cfg = load_config(CONFIGS / "random_vs_greedy.yaml")
    chunk = engine.play(compile_tables(cfg), cfg.seed, 0, 2000)
    share = win_share(chunk.rank).mean(axis=0)
    assert share.sum() == pytest.approx(1.0)
    greedy = [s for s, name in enumerate(cfg.seats) if name == "greedy"]
    random = [s for s, name in enumerate(cfg.seats) if name == "random"]
    assert greedy and random
    assert share[greedy].mean() > 0.35, share
    assert share[random].mean() < 0.15, share
    assert share[greedy].min() > share[random].max()
    assert chunk.score[:, greedy].mean() > chunk.score[:, random].mean() + 2


def test_random_policy_is_uniform_over_the_legal_turns(random4):
    c = random4
    st = blank(c, seed=3)
    set_seat(c, st, 0, hand=[raven(3), raven(6), raven(9), relic_id(c, "gem")], captured=[raven(3)])
    set_centre(st, [(relic_id(c, "chest_1"), 1)])
    moves = moves_buffer(c)
    n = engine.legal_moves(c.k, st, 0, moves)
    assert n == 7  # three actions, three thieves, captured 3
    picks = Counter(pol.choose_turn(c.k, st, 0, moves, n) for _ in range(2100))
    assert sorted(picks) == list(range(n))
    assert all(220 < k < 380 for k in picks.values()), picks


def hide_and_reshuffle(c, st_, p, rng):
    """Re-deal everything seat ``p`` cannot know (FR-15): the other seats' private cards (their
    Ravens within each seat, their relics across seats; pile sizes kept), its own deck below the
    cards it knows are on top, and the relics it has not seen (the relic deck except the ends it
    looked at, face-down centre relics it does not know)."""
    P = st_.seat.shape[0]
    private = ("deck", "hand", "discard")
    others = [q for q in range(P) if q != p]
    relics = [x for q in others for name in private for x in pile_cards(st_, q, name) if x >= 9]
    relics = [int(x) for x in rng.permutation(relics)]
    for q in others:
        piles = {name: pile_cards(st_, q, name) for name in private}
        ravens = [int(x) for x in rng.permutation([x for v in piles.values() for x in v if x < 9])]
        new = {}
        for name, pile in piles.items():
            new[name] = [ravens.pop() if x < 9 else relics.pop() for x in pile]
        set_seat(c, st_, q, **new)
    deck = pile_cards(st_, p, "deck")
    known = int(st_.seat[p, S_DECK_KNOWN])
    cut = len(deck) - known
    set_seat(c, st_, p, deck=[int(x) for x in rng.permutation(deck[:cut])] + deck[cut:])
    rdeck = relic_deck(st_)
    lo = 1 if rdeck and st_.seat[p, S_RD_BOT] >= 0 else 0
    hi = len(rdeck) - (1 if rdeck and st_.seat[p, S_RD_TOP] >= 0 else 0)
    hidden = [(None, i) for i in range(lo, max(lo, hi))]
    slots = [
        s
        for s, (x, face, _) in enumerate(centre(st_))
        if x >= 0 and not face and not st_.seat[p, S_CKNOWN + s]
    ]
    hidden += [("slot", s) for s in slots]
    cards = [rdeck[i] if kind is None else centre(st_)[i][0] for kind, i in hidden]
    cards = [int(x) for x in rng.permutation(cards)]
    for (kind, i), x in zip(hidden, cards, strict=True):
        if kind is None:
            rdeck[i] = x
        else:
            st_.board[B_CENTRE + i] = x
    set_relic_deck(st_, rdeck)


def decisions(c, p, moves, n):
    """Every choice a seat makes, as functions of the state (outputs compared as tuples)."""
    tb = c.k
    out = np.zeros(64, np.int32)

    def listed(f):
        def call(s):
            k = f(tb, s, p, out)
            return (k, *out[:k].tolist())

        return call

    top = relic_id(c, "chest_5")  # what a 7 saw on top: the seat knows it
    return {
        "turn": lambda s: pol.choose_turn(tb, s, p, moves, n),
        "steal": lambda s: pol.choose_steal(tb, s, p),
        "discard": lambda s: pol.choose_discard(tb, s, p),
        "stack": listed(pol.choose_stack),
        "seven": lambda s: pol.choose_seven(tb, s, p, top),
        "flip": lambda s: pol.choose_flip(tb, s, p),
        "shuffle": lambda s: pol.choose_shuffle(tb, s, p),
        "capture": lambda s: pol.choose_capture(tb, s, p),
        "set_aside": listed(pol.choose_set_aside),
        "examine": lambda s: pol.choose_examine(tb, s, p),
        "borrow": lambda s: pol.choose_borrow(tb, s, p),
        "replace": lambda s: pol.choose_replace(tb, s, p),
        "peek_end": lambda s: pol.choose_peek_end(tb, s, p),
        "lock": lambda s: pol.choose_lock(tb, s, p),
        "rescue": lambda s: pol.choose_rescue(tb, s, p, raven(7)),
    }


@pytest.mark.parametrize("kind", ["greedy", "random"])
def test_fr15_decisions_use_only_what_the_seat_knows(kind):
    """Mid-game, re-dealing every card a seat cannot know never changes any of its choices."""
    c = compile_tables(config(4, [kind] * 4))
    rng = np.random.default_rng(1)
    moves = moves_buffer(c)
    checked = changed = 0
    for game in range(25):
        st_ = new_state(c.k, log_cap=0)
        engine.setup(c.k, st_, 12, game)
        for _ in range(game % 5):
            engine.play_round(c.k, st_, moves, np.zeros(4, np.int32))
        engine.prelude(c.k, st_)
        for p in range(4):
            n = engine.legal_moves(c.k, st_, p, moves)
            if n == 0:
                continue
            st_.seat[p, S_THIEF] = int(moves[n - 1, 1])  # for the steal valuation
            twin = copy_state(st_)
            hide_and_reshuffle(c, twin, p, rng)
            changed += not np.array_equal(twin.pile, st_.pile)
            assert engine.legal_moves(c.k, twin, p, moves) == n
            for name, choose in decisions(c, p, moves, n).items():
                # same random stream for both: only what the seat sees may differ
                assert choose(copy_state(st_)) == choose(copy_state(twin)), name
            checked += 1
    assert checked > 50 and changed > 0.8 * checked
