"""The greedy turn (and the 2's choice) against a plain, card-by-card reference of the policy.

``policies._greedy_turn`` is written for speed: it works each Raven's thief and action values
out once per turn into a scratch row, values the 5's capture by the card types present, and
precomputes the parts that do not depend on the state (tables.W_TV*, W_CV*). The reference
below is the straightforward reading it replaced (a thief value and an action value for each
card, in hand order), kept here as plain Python. On every turn of games under several rule
sets and weights, both must choose the same move and card, so the fast version is the policy
the schema describes. The 2's choice of a captured Raven (choose_borrow) reads the same
action values, so it is checked against the reference too, whenever a seat plays the 2.
"""

from __future__ import annotations

import numpy as np
import pytest

from balance.games.five_ravens import engine
from balance.games.five_ravens import policies as pol
from balance.games.five_ravens import state as S
from balance.games.five_ravens.policies import NEG
from balance.games.five_ravens.state import (
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
    S_CAPT_N,
    S_DECK_N,
    S_DISC_N,
    S_HAND_N,
    S_RD_TOP,
    S_STATUS,
    S_TURNS,
    ST_ACTIVE,
    ST_DONE,
    copy_state,
    new_state,
)
from balance.games.five_ravens.tables import (
    GREEDY_WEIGHTS,
    N_RAVENS,
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

from .helpers import config

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
    n = st.seat[p, S_CAPT_N] if two else 1
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
        return w[W_DRAW] if st.seat[p, S_DECK_N] + st.seat[p, S_DISC_N] > 0 else 0.0
    if r == 8:
        k = 0
        for i in range(st.seat[p, S_DISC_N]):
            if st.pile[p, PILE_DISC, i] < N_RAVENS and st.pile[p, PILE_DISC, i] >= 5:
                k += 1
        return w[W_DRAW] * 0.5 * k
    if r == 4:
        return w[W_DRAW] * dead_cards(tb, st, p)
    if r == 7 or r == 6 or r == 3:
        unknown = unknown_facedown(tb, st, p) >= 0
        if r == 7:
            return w[W_INFO] if unknown or st.seat[p, S_RD_TOP] >= 0 else 0.0
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
    for i in range(st.seat[p, S_CAPT_N]):
        c = int(st.pile[p, PILE_CAPT, i])
        if c < N_RAVENS and c != 1:
            v = base_action_value(tb, st, p, c, -1) if tb.params[P_ACTION + c] else NEG
            if v > bv:
                bv, best = v, c
    return best


def reference_turn(tb, st, p):
    w = tb.weights[p]
    hand = st.pile[p, PILE_HAND]
    nh = st.seat[p, S_HAND_N]
    capped = st.seat[p, S_TURNS] >= MAX_ROUND_TURNS
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
        return compile_tables(cfg).k
    rows = np.tile(np.asarray(weights, np.float64), (players, 1))
    assert rows.shape[1] == len(GREEDY_WEIGHTS)
    return compile_tables(cfg, seat_kinds=[POL_GREEDY] * players, weights=rows).k


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
                    if st.seat[p, S_STATUS] != ST_ACTIVE:
                        continue
                    fast = tuple(int(x) for x in pol.greedy_turn(tb, st, p))
                    slow = tuple(int(x) for x in reference_turn(tb, st, p))
                    assert fast == slow, f"game {game}, seat {p}: kernel {fast}, reference {slow}"
                    turns += 1
                    if fast[0] == M_NONE:
                        st.seat[p, S_STATUS] = ST_DONE
                        continue
                    if fast[:2] == (M_ACTION, 1):  # the 2 resolves with itself out of the hand
                        two = copy_state(st)
                        hand_remove(two, p, 1)
                        fast_b = int(pol.choose_borrow(tb, two, p))
                        slow_b = reference_borrow(tb, two, p)
                        assert fast_b == slow_b, (
                            f"game {game}, seat {p}: 2 borrows {fast_b}, {slow_b}"
                        )
                        borrows += fast_b >= 0
                    engine.play_turn(tb, st, p, fast[0], fast[1])
                    acted = True
            engine.theft(tb, st, order)
            engine.epilogue(tb, st)
    assert turns > 100 * players
    assert borrows > 0
