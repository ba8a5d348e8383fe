"""The greedy turn against a plain, card-by-card reference of the same policy.

``policies._greedy_turn`` is written for speed: it works each Raven's thief and action values
out once per turn into a scratch row, values the 5's capture by the card types present, and
precomputes the parts that do not depend on the state (tables.W_TV*, W_CV*). The reference
below is the straightforward reading it replaced (a thief value and an action value for each
card, in hand order), kept here as plain Python. On every turn of games under several rule
sets and weights, both must choose the same move and card, so the fast version is the policy
the schema describes.
"""

from __future__ import annotations

import numpy as np
import pytest

from balance.games.five_ravens import engine
from balance.games.five_ravens import policies as pol
from balance.games.five_ravens import state as S
from balance.games.five_ravens.policies import ANY_FACE, FACE_DOWN, FACE_UP, NEG
from balance.games.five_ravens.state import (
    B_CENTRE,
    B_FACE,
    B_LOCK,
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
    S_CKNOWN,
    S_DECK_N,
    S_DISC_N,
    S_DOUBLED,
    S_GEMS,
    S_HAND_N,
    S_RD_TOP,
    S_STATUS,
    S_TURNS,
    ST_ACTIVE,
    ST_DONE,
    new_state,
)
from balance.games.five_ravens.tables import (
    C_INST,
    C_KIND,
    C_THIEF,
    C_VALUE,
    GREEDY_WEIGHTS,
    K_CHEST,
    K_CURSED,
    K_GEM,
    K_HOLLOW,
    N_RAVENS,
    P_ACTION,
    P_CAPTURE,
    P_CURSED_BONUS,
    P_CURSED_SET,
    P_EIGHT_PEN,
    P_FOUR_BONUS,
    P_FOUR_MIN,
    P_GEM,
    P_GEM_N,
    P_HOLLOW,
    P_HOLLOW_CAPT,
    P_MEAN_MILLI,
    P_NINE_PEN,
    P_PLAYERS,
    P_ROUNDS,
    P_SIX_MAX,
    P_SIX_MULT,
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

# the state helpers as plain Python (the reference never runs compiled code)
ravens_in_hand = S.ravens_in_hand.py_func
has_captured = S.has_captured.py_func
captured_relics = S.captured_relics.py_func
can_thief = S.can_thief.py_func
can_capt1 = S.can_capt1.py_func
can_capt3 = S.can_capt3.py_func


def ctype_col(tb, t):
    return S.ctype_col.py_func(tb, t)


# ---------------------------------------------------------------- the reference (plain Python)


def slot_ok(st, s, face):
    if st.board[B_CENTRE + s] < 0 or st.board[B_LOCK + s] != 0:
        return False
    return face == ANY_FACE or st.board[B_FACE + s] == face


def known_relic(st, p, slot):
    if st.board[B_CENTRE + slot] < 0:
        return -1
    if st.board[B_FACE + slot] or st.seat[p, S_CKNOWN + slot]:
        return st.board[B_CENTRE + slot]
    return -1


def own_gems(tb, st, p):
    return st.seat[p, S_GEMS]


def captured_of_type(tb, st, p, t):
    return st.seat[p, ctype_col(tb, t)]


def capture_gain(tb, st, p, c):
    if c < N_RAVENS:
        if c == 3 and tb.params[P_CAPTURE + 3] and captured_relics(st, p) >= tb.params[P_FOUR_MIN]:
            return float(tb.params[P_FOUR_BONUS])
        if c == 7 and tb.params[P_CAPTURE + 7]:
            return -float(tb.params[P_EIGHT_PEN])
        if c == 8 and tb.params[P_CAPTURE + 8]:
            return -float(tb.params[P_NINE_PEN])
        return 0.0
    t = tb.cards[C_INST, c - N_RAVENS]
    kind = tb.cards[C_KIND, t]
    g = 0.0
    if kind == K_HOLLOW:
        g = float(tb.params[P_HOLLOW_CAPT] - tb.params[P_HOLLOW])
    elif kind == K_CURSED:
        have = captured_of_type(tb, st, p, t)
        need = tb.params[P_CURSED_SET]
        if have + 1 == need:
            g = float(tb.params[P_CURSED_BONUS])
        elif have + 1 < need:
            g = float(tb.params[P_CURSED_BONUS]) * (have + 1) / (2.0 * need)
    # one more captured relic may complete the captured 4's bonus
    if (
        tb.params[P_CAPTURE + 3]
        and has_captured(st, p, 3)
        and captured_relics(st, p) + 1 == tb.params[P_FOUR_MIN]
    ):
        g += tb.params[P_FOUR_BONUS]
    return g


def relic_worth(tb, st, p, c, thief):
    t = tb.cards[C_INST, c - N_RAVENS]
    kind = tb.cards[C_KIND, t]
    captured = thief == 4 and tb.params[P_CAPTURE + 4] == 1
    if kind == K_CHEST:
        v = float(tb.cards[C_VALUE, t])
        if (
            thief == 5
            and tb.params[P_CAPTURE + 5] == 1
            and tb.cards[C_VALUE, t] <= tb.params[P_SIX_MAX]
        ):
            v *= tb.params[P_SIX_MULT]
        base = v
    elif kind == K_GEM:
        k = own_gems(tb, st, p)
        last = tb.params[P_GEM_N] - 1
        base = float(tb.params[P_GEM + min(k + 1, last)] - tb.params[P_GEM + min(k, last)])
    elif kind == K_HOLLOW:
        base = float(tb.params[P_HOLLOW])
    else:
        base = 0.0
    if captured:
        base += capture_gain(tb, st, p, c)
    return base


def unknown_worth(tb):
    return tb.params[P_MEAN_MILLI] / 1000.0


def best_visible_gain(tb, st, p, thief):
    best = 0.0
    for slot in range(tb.params[P_PLAYERS]):
        x = known_relic(st, p, slot)
        if x >= 0:
            # relic_worth(x, thief) - relic_worth(x, no thief), without the shared part
            t = tb.cards[C_INST, x - N_RAVENS]
            d = 0.0
            if thief == 4 and tb.params[P_CAPTURE + 4] == 1:
                d = capture_gain(tb, st, p, x)
            elif (
                thief == 5
                and tb.params[P_CAPTURE + 5] == 1
                and tb.cards[C_KIND, t] == K_CHEST
                and tb.cards[C_VALUE, t] <= tb.params[P_SIX_MAX]
            ):
                d = float(tb.cards[C_VALUE, t] * (tb.params[P_SIX_MULT] - 1))
            if d > best:
                best = d
    return best


def rescue_gain(tb, st, p, c):
    if c == 5 and st.seat[p, S_DOUBLED] >= 0:
        t = tb.cards[C_INST, st.seat[p, S_DOUBLED] - N_RAVENS]
        return -float(tb.cards[C_VALUE, t] * (tb.params[P_SIX_MULT] - 1))
    if c >= N_RAVENS and c == st.seat[p, S_DOUBLED]:
        t = tb.cards[C_INST, c - N_RAVENS]
        return -float(tb.cards[C_VALUE, t] * (tb.params[P_SIX_MULT] - 1))
    if c < N_RAVENS:
        return -capture_gain(tb, st, p, c) + 0.1  # a Raven back in the deck is worth a little
    t = tb.cards[C_INST, c - N_RAVENS]
    kind = tb.cards[C_KIND, t]
    if kind == K_HOLLOW:
        return -float(tb.params[P_HOLLOW_CAPT] - tb.params[P_HOLLOW])
    if kind == K_CURSED:
        have = captured_of_type(tb, st, p, t)
        if have == tb.params[P_CURSED_SET]:
            return -float(tb.params[P_CURSED_BONUS])
        return -0.5
    return -0.2


def best_rescue_gain(tb, st, p, exclude):
    best = NEG
    for i in range(st.seat[p, S_CAPT_N]):
        c = st.pile[p, PILE_CAPT, i]
        if c != exclude:
            g = rescue_gain(tb, st, p, c)
            if g > best:
                best = g
    return 0.0 if best == NEG else best


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


def _unknown_facedown(tb, st, p):
    for slot in range(tb.params[P_PLAYERS]):
        if slot_ok(st, slot, FACE_DOWN) and st.seat[p, S_CKNOWN + slot] == 0:
            return slot
    return -1


def _worst_faceup(tb, st, p):
    best = -1
    bv = 1.0e18
    for slot in range(tb.params[P_PLAYERS]):
        if slot_ok(st, slot, FACE_UP):
            v = relic_worth(tb, st, p, st.board[B_CENTRE + slot], -1)
            if v < bv:
                bv = v
                best = slot
    return best, bv


def _dead_cards(tb, st, p):
    k = 0
    for i in range(st.seat[p, S_HAND_N]):
        c = st.pile[p, PILE_HAND, i]
        if c >= N_RAVENS and tb.cards[C_THIEF, tb.cards[C_INST, c - N_RAVENS]] == 0:
            k += 1
    return k


def best_capture(tb, st, p):
    w = tb.weights[p]
    best = -1
    bv = NEG
    keep_raven = ravens_in_hand(st, p) == 1
    for i in range(st.seat[p, S_HAND_N] + st.seat[p, S_DISC_N]):
        if i < st.seat[p, S_HAND_N]:
            c = st.pile[p, PILE_HAND, i]
            if keep_raven and c < N_RAVENS:
                continue
        else:
            c = st.pile[p, PILE_DISC, i - st.seat[p, S_HAND_N]]
        g = capture_gain(tb, st, p, c) - w[W_CAPT_COST]
        if c < N_RAVENS:
            g -= w[W_CAPT_COST] + w[W_THIEF_RANK] * 0.1 * (c + 1)
            if c == 6 and tb.params[P_CAPTURE + 6]:
                g += best_rescue_gain(tb, st, p, 6)
        if g > bv:
            bv = g
            best = c
    return best, bv


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
        return w[W_DRAW] * _dead_cards(tb, st, p)
    if r == 7 or r == 6 or r == 3:  # one inlined _unknown_facedown for the three
        unknown = _unknown_facedown(tb, st, p) >= 0
        if r == 7:
            return w[W_INFO] if unknown or st.seat[p, S_RD_TOP] >= 0 else 0.0
        if r == 6:
            return w[W_INFO] if unknown else 0.0
        return w[W_INFO] * 0.8 if unknown else 0.0
    slot, v = _worst_faceup(tb, st, p)
    if slot >= 0 and v < unknown_worth(tb):
        return 0.3 * (unknown_worth(tb) - v)
    return 0.0


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
    turns = 0
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
                    engine.play_turn(tb, st, p, fast[0], fast[1])
                    acted = True
            engine.theft(tb, st, order)
            engine.epilogue(tb, st)
    assert turns > 100 * players
