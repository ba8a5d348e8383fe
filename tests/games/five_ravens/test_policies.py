"""Policy sanity: the greedy policy clearly beats random play, the random policy is uniform over
the legal turns, decisions use only what the seat knows (FR-15), and the greedy turn chooses as
a plain card-by-card reference of the policy does (below, "greedy reference")."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from balance.config import load_config
from balance.games.five_ravens import engine
from balance.games.five_ravens import policies as pol
from balance.games.five_ravens import state as S
from balance.games.five_ravens.state import (
    B_CENTRE,
    G_FIRST,
    G_LAST,
    M_ACTION,
    M_CAPT1,
    M_CAPT3,
    M_NONE,
    M_THIEF,
    MAX_ROUND_TURNS,
    PILE_CAPT,
    PILE_DISC,
    PILE_HAND,
    PL_CAPT_N,
    PL_CKNOWN,
    PL_DECK_KNOWN,
    PL_DECK_N,
    PL_DISC_N,
    PL_HAND_N,
    PL_RD_BOT,
    PL_RD_TOP,
    PL_STATUS,
    PL_THIEF,
    PL_TURNS,
    ST_ACTIVE,
    ST_DONE,
    clone_state,
    new_state,
    alloc_work,
)
from balance.games.five_ravens.tables import (
    GREEDY_WEIGHTS,
    N_RAVENS,
    NEG,
    P_ACTION,
    P_CAPTURE,
    P_ROUNDS,
    POL_GREEDY,
    W_CAPT_COST,
    W_CAPTURE,
    W_DRAW,
    W_INFO,
    W_PENALTY,
    W_THIEF_RANK,
    W_THRESHOLD,
    compile_tables,
)

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
    n = engine.legal_moves(c.tb, st, 0, moves)
    assert n == 7  # three actions, three thieves, captured 3
    picks = Counter(pol.choose_turn(c.tb, st, 0, moves, n) for _ in range(2100))
    assert sorted(picks) == list(range(n))
    assert all(220 < k < 380 for k in picks.values()), picks


def hide_and_reshuffle(c, st_, p, rng):
    """Re-deal everything seat ``p`` cannot know (FR-15): the other seats' private cards (their
    Ravens within each seat, their relics across seats; pile sizes kept), its own deck below the
    cards it knows are on top, and the relics it has not seen (the relic deck except the ends it
    looked at, face-down centre relics it does not know)."""
    P = st_.pl.shape[0]
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
    known = int(st_.pl[p, PL_DECK_KNOWN])
    cut = len(deck) - known
    set_seat(c, st_, p, deck=[int(x) for x in rng.permutation(deck[:cut])] + deck[cut:])
    rdeck = relic_deck(st_)
    lo = 1 if rdeck and st_.pl[p, PL_RD_BOT] >= 0 else 0
    hi = len(rdeck) - (1 if rdeck and st_.pl[p, PL_RD_TOP] >= 0 else 0)
    hidden = [(None, i) for i in range(lo, max(lo, hi))]
    slots = [
        s
        for s, (x, face, _) in enumerate(centre(st_))
        if x >= 0 and not face and not st_.pl[p, PL_CKNOWN + s]
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
    tb = c.tb
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
        st_ = new_state(c.tb, log_cap=0)
        engine.setup(c.tb, st_, 12, game)
        for _ in range(game % 5):
            engine.play_round(c.tb, st_, alloc_work(c.tb))
        engine.prelude(c.tb, st_)
        for p in range(4):
            n = engine.legal_moves(c.tb, st_, p, moves)
            if n == 0:
                continue
            st_.pl[p, PL_THIEF] = int(moves[n - 1, 1])  # for the steal valuation
            twin = clone_state(st_)
            hide_and_reshuffle(c, twin, p, rng)
            changed += not np.array_equal(twin.pile, st_.pile)
            assert engine.legal_moves(c.tb, twin, p, moves) == n
            for name, choose in decisions(c, p, moves, n).items():
                # same random stream for both: only what the seat sees may differ
                assert choose(clone_state(st_)) == choose(clone_state(twin)), name
            checked += 1
    assert checked > 50 and changed > 0.8 * checked


# ================================================================ greedy reference
# The greedy turn (and the 2's choice) against a plain, card-by-card reference of the policy.
#
# ``policies._greedy_turn`` is written for speed: it works each Raven's thief and action values
# out once per turn into a scratch row, values the 5's capture by the card types present, and
# precomputes the parts that do not depend on the state (tables.W_TV*, W_CV*). The reference
# below is the straightforward reading it replaced (a thief value and an action value for each
# card, in hand order), kept here as plain Python. On every turn of games under several rule
# sets and weights, both must choose the same move and card, so the fast version is the policy
# the schema describes. The 2's choice of a captured Raven (choose_borrow) reads the same
# action values, so it is checked against the reference too, whenever a seat plays the 2.


# The valuation helpers the kernel still shares (capture_gain, best_capture, ...) are called as
# plain Python; only the per-card functions the greedy turn replaced are written out below.
ravens_in_hand = S.ravens_in_hand.py_func
has_captured = S.has_captured.py_func
can_thief = S.can_thief.py_func
can_capt1 = S.can_capt1.py_func
can_capt3 = S.can_capt3.py_func
capture_gain = pol.capture_gain.py_func
best_visible_gain = pol.best_visible_gain.py_func
best_rescue_gain = pol.best_rescue_gain.py_func
best_capture = pol.best_capture.py_func
dead_cards = pol._dead_cards.py_func
unknown_facedown = pol._unknown_facedown.py_func
worst_faceup = pol._worst_faceup.py_func
unknown_worth = pol.unknown_worth.py_func
hand_remove = S.hand_remove.py_func


# ---------------------------------------------------------------- the reference (plain Python)


def thief_value(tb, st, p, c):
    w = tb.weights[p]
    if c >= N_RAVENS or (tb.params[P_CAPTURE + c] and (c == 3 or c == 7 or c == 8)):
        g = capture_gain(tb, st, p, c)
        if c >= N_RAVENS:
            return w[W_CAPTURE] * g - w[W_CAPT_COST]
        v = w[W_THIEF_RANK] * (c + 1) - w[W_CAPT_COST]
        return v + (w[W_CAPTURE] if c == 3 else w[W_PENALTY]) * g
    v = w[W_THIEF_RANK] * (c + 1) - w[W_CAPT_COST]
    if tb.params[P_CAPTURE + c]:
        if c == 4 or c == 5:
            v += w[W_CAPTURE] * best_visible_gain(tb, st, p, c)
        elif c == 6:
            v += w[W_CAPTURE] * max(0.0, best_rescue_gain(tb, st, p, 6))
        elif c == 1 or c == 2 or c == 0:
            v += w[W_CAPTURE] * w[W_INFO]
    return v


def action_value(tb, st, p, c, thief):
    if tb.params[P_ACTION + c] == 0:
        return NEG
    # The 2 is worth the best action among the captured Ravens it can borrow. One loop for both
    # cases so that base_action_value (inlined) has a single call site: half the code.
    two = c == 1
    n = st.pl[p, PL_CAPT_N] if two else 1
    best = 0.0
    for i in range(n):
        d = c
        if two:
            d = st.pile[p, PILE_CAPT, i]
            if d >= N_RAVENS or d == 1 or tb.params[P_ACTION + d] != 1:
                continue
        v = base_action_value(tb, st, p, d, thief)
        if not two:
            return v
        if v > best:
            best = v
    return best


def base_action_value(tb, st, p, c, thief):
    if c == 4:
        card, g = best_capture(tb, st, p)
        return g if card >= 0 else 0.0
    return plain_action_value(tb, st, p, c)


def plain_action_value(tb, st, p, c):
    """Greedy value of Raven ``c``'s action for any Raven but the 2 and the 5."""
    w = tb.weights[p]
    r = c + 1
    if r == 9:
        return w[W_DRAW] if st.pl[p, PL_DECK_N] + st.pl[p, PL_DISC_N] > 0 else 0.0
    if r == 8:
        k = 0
        for i in range(st.pl[p, PL_DISC_N]):
            if st.pile[p, PILE_DISC, i] < N_RAVENS and st.pile[p, PILE_DISC, i] >= 5:
                k += 1
        return w[W_DRAW] * 0.5 * k
    if r == 4:
        return w[W_DRAW] * dead_cards(tb, st, p)
    if r == 7 or r == 6 or r == 3:
        unknown = unknown_facedown(tb, st, p) >= 0
        if r == 7:
            return w[W_INFO] if unknown or st.pl[p, PL_RD_TOP] >= 0 else 0.0
        if r == 6:
            return w[W_INFO] if unknown else 0.0
        return w[W_INFO] * 0.8 if unknown else 0.0
    slot, v = worst_faceup(tb, st, p)
    if slot >= 0 and v < unknown_worth(tb):
        return 0.3 * (unknown_worth(tb) - v)
    return 0.0


def reference_borrow(tb, st, p):
    """The 2's choice (FR-8): the captured Raven, other than a 2, whose action is worth most,
    the first in captured order on a tie; -1 if none is worth more than NEG."""
    best, bv = -1, NEG
    for i in range(st.pl[p, PL_CAPT_N]):
        c = int(st.pile[p, PILE_CAPT, i])
        if c < N_RAVENS and c != 1:
            v = base_action_value(tb, st, p, c, -1) if tb.params[P_ACTION + c] else NEG
            if v > bv:
                bv, best = v, c
    return best


def reference_turn(tb, st, p):
    w = tb.weights[p]
    hand = st.pile[p, PILE_HAND]
    nh = st.pl[p, PL_HAND_N]
    capped = st.pl[p, PL_TURNS] >= MAX_ROUND_TURNS
    act_ok = not capped and ravens_in_hand(st, p) >= 2
    first_mv = M_NONE  # the first legal move: the answer when nothing else is chosen
    first_c = -1
    # the thief we would keep
    thief_card = -1
    tv = NEG
    for i in range(nh):
        c = hand[i]
        if first_mv == M_NONE and act_ok and c < N_RAVENS:
            first_mv = M_ACTION
            first_c = c
        if can_thief(tb, st, p, c):
            if first_mv == M_NONE:
                first_mv = M_THIEF
                first_c = c
            v = thief_value(tb, st, p, c)
            if v > tv:
                tv = v
                thief_card = c
    ok3 = not capped and can_capt3(tb, st, p)
    ok1 = not capped and can_capt1(tb, st, p)
    if first_mv == M_NONE:
        if ok3:
            first_mv = M_CAPT3
        elif ok1:
            first_mv = M_CAPT1
        else:
            return M_NONE, -1
    best_mv = M_NONE
    best_c = -1
    bv = w[W_THRESHOLD]
    if act_ok:
        for i in range(nh):
            c = hand[i]
            if c < N_RAVENS and c != thief_card:
                v = action_value(tb, st, p, c, thief_card) - 0.05 * (c + 1)  # keep high Ravens
                if v > bv:
                    bv = v
                    best_mv = M_ACTION
                    best_c = c
    if ok3:
        v = w[W_INFO] * (0.9 if has_captured(st, p, 1) and tb.params[P_CAPTURE + 1] else 0.2)
        if v > bv:
            bv = v
            best_mv = M_CAPT3
            best_c = -1
    if ok1 and bv < 0.0:
        best_mv = M_CAPT1
        best_c = -1
    if best_mv != M_NONE:
        return best_mv, best_c
    if thief_card >= 0:
        return M_THIEF, thief_card
    return first_mv, first_c


# ---------------------------------------------------------------- the comparison


RULES = {
    "base": {},
    "switches": {
        "ravens": {
            "two": {"capture": False},
            "five": {"capture": False},
            "seven": {"action": False},
            "nine": {"capture": False},
        }
    },
    "relic thieves": {
        "thief_relics": ["hollow", "skull", "gem"],
        "ravens": {"one": {"action": False}, "four": {"capture": False}},
    },
    "scoring": {"hand_size": 6, "scoring": {"four_threshold": 1, "cursed_set_size": 3}},
}
WEIGHTS = {
    "default": None,
    "cautious": [0.7, 2.3, 3.0, 0.4, 0.9, 1.1, 0.6],
    "bold": [1.3, 0.1, 0.2, -3.0, 0.1, 0.05, 0.01],
    "odd": [0.3, 1.7, 0.2, 0.2, 1.3, 0.7, 0.11],
    "huge": [2.0e6, 1.0, 1.0, -1.0, 0.4, 0.3, 0.25],  # no lone-thief shortcut (tables.W_SMALL)
}


def _tables(players, rules, weights):
    cfg = config(players=players, rules=rules)
    if weights is None:
        return compile_tables(cfg).tb
    rows = np.tile(np.asarray(weights, np.float64), (players, 1))
    assert rows.shape[1] == len(GREEDY_WEIGHTS)
    return compile_tables(cfg, seat_kinds=[POL_GREEDY] * players, weights=rows).tb


@pytest.mark.parametrize(
    ("players", "rules", "weights"),
    [
        (4, "base", "default"),
        (2, "base", "cautious"),
        (3, "switches", "bold"),
        (4, "relic thieves", "odd"),
        (4, "scoring", "cautious"),
        (3, "scoring", "bold"),
        (4, "switches", "huge"),
    ],
)
def test_greedy_turn_matches_the_card_by_card_reference(players, rules, weights):
    tb = _tables(players, RULES[rules], WEIGHTS[weights])
    order = np.zeros(players, np.int32)
    turns = borrows = 0
    for game in range(12):
        st = new_state(tb)
        engine.setup(tb, st, np.int64(11), np.int64(game))
        for _ in range(tb.params[P_ROUNDS]):
            st.board[G_LAST] = st.board[G_FIRST]
            engine.prelude(tb, st)
            first = st.board[G_FIRST]
            acted = True
            while acted:  # engine.mission, one turn at a time
                acted = False
                for k in range(players):
                    p = (first + k) % players
                    if st.pl[p, PL_STATUS] != ST_ACTIVE:
                        continue
                    fast = tuple(int(x) for x in pol.greedy_turn(tb, st, p))
                    slow = tuple(int(x) for x in reference_turn(tb, st, p))
                    assert fast == slow, f"game {game}, seat {p}: kernel {fast}, reference {slow}"
                    turns += 1
                    if fast[0] == M_NONE:
                        st.pl[p, PL_STATUS] = ST_DONE
                        continue
                    if fast[:2] == (M_ACTION, 1):  # the 2 resolves with itself out of the hand
                        two = clone_state(st)
                        hand_remove(two, p, 1)
                        fast_b = int(pol.choose_borrow(tb, two, p))
                        slow_b = reference_borrow(tb, two, p)
                        assert fast_b == slow_b, (
                            f"game {game}, seat {p}: 2 borrows {fast_b}, {slow_b}"
                        )
                        borrows += fast_b >= 0
                    engine.turn(tb, st, alloc_work(tb), p, fast[0], fast[1])
                    acted = True
            engine.theft(tb, st, alloc_work(tb))
            engine.epilogue(tb, st)
    assert turns > 100 * players
    assert borrows > 0
