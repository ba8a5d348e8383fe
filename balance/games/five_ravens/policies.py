"""Five Ravens policies: numba decision functions for every choice the rules leave to a seat.

Every ``choose_*`` function dispatches on the seat's policy kind (``tables.POL_*``):

- ``random``: uniform over the legal options of that decision (and over the legal turns).
- ``greedy``: a one-step heuristic with the weights of ``GreedyPolicy`` (schema.py): keep the best
  thief (rank, what its capture gives, what it costs), play other Ravens for their action only
  when the action's estimated value beats ``action_threshold``, steal the relic worth most to
  this seat, rescue the card whose capture hurts most.
- ``script``: the next number of ``State.script`` (scripted test scenarios, state.new_state's
  ``script``); greedy once it runs out.

``choose(tb, st, work)`` is the decision points' entry (engine.play_game): it answers the pending
point (state.pending) with the code of the choose_* function of its kind, so that every draw is
the one those functions made when the engine called them directly; the 8's and the 4's plans are
kept in the State (choose_planned); a greedy seat's turn is the inlined greedy turn, which needs
no list of legal moves.

ENGINE-5: a choice of an action's target returns one whenever one is legal (the 5 captures,
the 6 flips, the 7 buries or swaps, the 1 replaces, the 3 examines); -1 only when there is none.
ENGINE-3: the choices that take cards out of the hand (the 9's discard, the 4's set-aside, the
8's stacking, the 5's capture) keep the last Raven in hand.

FR-15 (knowledge): policies read only what their seat knows: their own hand, discard and
captured cards, the counts of their own deck, public centre relics, centre relics their seat
knows (``cknown``), and relic-deck ends they looked at (``rd_top``/``rd_bot``). Other seats'
hands and decks and unknown relics are never read.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from balance.games import _kit as kit
from balance.games.five_ravens import state as S
from balance.games.five_ravens import tables as T
from balance.rng import below


@njit(cache=True, _nrt=False, forceinline=False)
def _script(st):
    """Next scripted choice; returns (value, True) or (0, False) when the script is used up."""
    i = st.r.board[S.G_SCRIPT]
    if i < st.r.board[S.G_SCRIPT_N]:
        st.r.board[S.G_SCRIPT] = i + 1
        w = st.aux.shape[1]
        return st.aux[S.AUX_SCRIPT + i // w, i % w], True
    return 0, False


@njit(cache=True, _nrt=False, inline="always")
def _kind(tb, st, p):
    """The seat's policy kind; a script seat whose script is used up plays greedy."""
    k = tb.r.params[T.P_SEAT + p]
    if (
        k != T.POL_RANDOM
        and k != T.POL_GREEDY
        and st.r.board[S.G_SCRIPT] >= st.r.board[S.G_SCRIPT_N]
    ):
        return T.POL_GREEDY
    return k


# Centre slot kinds for the slot helpers below.
FACE_DOWN, FACE_UP, ANY_FACE = 0, 1, 2


@njit(cache=True, _nrt=False, inline="always")
def slot_ok(st, s, face):
    """Centre slot ``s`` holds an unlocked relic, face down / face up / either (``face``)."""
    if st.r.board[S.B_CENTRE + s] < 0 or st.r.board[S.B_LOCK + s] != 0:
        return False
    return face == ANY_FACE or st.r.board[S.B_FACE + s] == face


@njit(cache=True, _nrt=False, forceinline=True)
def count_slots(tb, st, face):
    n = 0
    for s in range(S.n_seats(tb)):
        if slot_ok(st, s, face):
            n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=True)
def nth_slot(tb, st, face, j):
    """The ``j``-th (from 0) slot that is ``slot_ok`` for ``face``, -1 if there are fewer."""
    for s in range(S.n_seats(tb)):
        if slot_ok(st, s, face):
            if j == 0:
                return s
            j -= 1
    return -1


# ---------------------------------------------------------------- what a seat knows and values


@njit(cache=True, _nrt=False, inline="always")
def known_relic(st, p, slot):
    """The relic card in centre ``slot`` if seat ``p`` knows it, else -1 (FR-15)."""
    if st.r.board[S.B_CENTRE + slot] < 0:
        return -1
    if st.r.board[S.B_FACE + slot] or st.r.pl[p, S.PL_CKNOWN + slot]:
        return st.r.board[S.B_CENTRE + slot]
    return -1


@njit(cache=True, _nrt=False, inline="always")
def own_gems(tb, st, p):
    return st.r.pl[p, S.PL_GEMS]


@njit(cache=True, _nrt=False, inline="always")
def captured_of_type(tb, st, p, t):
    return st.r.pl[p, S.ctype_col(tb, t)]


@njit(cache=True, _nrt=False, forceinline=True)
def capture_gain(tb, st, p, c):
    """Points seat ``p`` gains at scoring by having card ``c`` captured rather than not."""
    if c < T.N_RAVENS:
        if (
            c == T.FOUR
            and tb.r.params[T.P_CAPTURE + T.FOUR]
            and S.captured_relics(st, p) >= tb.r.params[T.P_FOUR_MIN]
        ):
            return float(tb.r.params[T.P_FOUR_BONUS])
        if c == T.EIGHT and tb.r.params[T.P_CAPTURE + T.EIGHT]:
            return -float(tb.r.params[T.P_EIGHT_PEN])
        if c == T.NINE and tb.r.params[T.P_CAPTURE + T.NINE]:
            return -float(tb.r.params[T.P_NINE_PEN])
        return 0.0
    g = relic_type_gain(tb, st, p, S.rtype(tb, c))
    if completes_four(tb, st, p):
        g += tb.r.params[T.P_FOUR_BONUS]
    return g


@njit(cache=True, _nrt=False, inline="always")
def relic_type_gain(tb, st, p, t):
    """capture_gain's part for a relic of type ``t`` that depends on its kind (hollow, cursed)."""
    kind = tb.r.cards[T.C_KIND, t]
    if kind == T.K_HOLLOW:
        return float(tb.r.params[T.P_HOLLOW_CAPT] - tb.r.params[T.P_HOLLOW])
    if kind == T.K_CURSED:
        have = captured_of_type(tb, st, p, t)
        need = tb.r.params[T.P_CURSED_SET]
        if have + 1 == need:
            return float(tb.r.params[T.P_CURSED_BONUS])
        if have + 1 < need:
            return float(tb.r.params[T.P_CURSED_BONUS]) * (have + 1) / (2.0 * need)
    return 0.0


@njit(cache=True, _nrt=False, inline="always")
def completes_four(tb, st, p):
    """One more captured relic would complete the captured 4's bonus (capture_gain)."""
    return (
        tb.r.params[T.P_CAPTURE + T.FOUR]
        and S.has_captured(st, p, T.FOUR)
        and S.captured_relics(st, p) + 1 == tb.r.params[T.P_FOUR_MIN]
    )


@njit(cache=True, _nrt=False, forceinline=True)
def relic_worth(tb, st, p, c, thief):
    """Points seat ``p`` expects from stealing relic card ``c`` with ``thief`` (FR-10, FR-13)."""
    t = S.rtype(tb, c)
    kind = tb.r.cards[T.C_KIND, t]
    captured = thief == T.FIVE and tb.r.params[T.P_CAPTURE + T.FIVE] == 1
    if kind == T.K_CHEST:
        v = float(tb.r.cards[T.C_VALUE, t])
        if (
            thief == T.SIX
            and tb.r.params[T.P_CAPTURE + T.SIX] == 1
            and tb.r.cards[T.C_VALUE, t] <= tb.r.params[T.P_SIX_MAX]
        ):
            v *= tb.r.params[T.P_SIX_MULT]
        base = v
    elif kind == T.K_GEM:
        k = own_gems(tb, st, p)
        last = tb.r.params[T.P_GEM_N] - 1
        base = float(tb.r.params[T.P_GEM + min(k + 1, last)] - tb.r.params[T.P_GEM + min(k, last)])
    elif kind == T.K_HOLLOW:
        base = float(tb.r.params[T.P_HOLLOW])
    else:
        base = 0.0
    if captured:
        base += capture_gain(tb, st, p, c)
    return base


@njit(cache=True, _nrt=False, inline="always")
def unknown_worth(tb):
    return tb.r.params[T.P_MEAN_MILLI] / 1000.0


@njit(cache=True, _nrt=False, inline="always")
def best_visible_gain(tb, st, p, thief):
    """Extra points the thief's capture effect would add on the best relic the seat can see."""
    best = 0.0
    for slot in range(S.n_seats(tb)):
        x = known_relic(st, p, slot)
        if x >= 0:
            # relic_worth(x, thief) - relic_worth(x, no thief), without the shared part
            t = S.rtype(tb, x)
            d = 0.0
            if thief == T.FIVE and tb.r.params[T.P_CAPTURE + T.FIVE] == 1:
                d = capture_gain(tb, st, p, x)
            elif (
                thief == T.SIX
                and tb.r.params[T.P_CAPTURE + T.SIX] == 1
                and tb.r.cards[T.C_KIND, t] == T.K_CHEST
                and tb.r.cards[T.C_VALUE, t] <= tb.r.params[T.P_SIX_MAX]
            ):
                d = float(tb.r.cards[T.C_VALUE, t] * (tb.r.params[T.P_SIX_MULT] - 1))
            if d > best:
                best = d
    return best


@njit(cache=True, _nrt=False, forceinline=True)
def rescue_gain(tb, st, p, c):
    """Points seat ``p`` gains by rescuing captured card ``c`` (moving it to the deck)."""
    if c == T.SIX and st.r.pl[p, S.PL_DOUBLED] >= 0:
        t = S.rtype(tb, st.r.pl[p, S.PL_DOUBLED])
        return -float(tb.r.cards[T.C_VALUE, t] * (tb.r.params[T.P_SIX_MULT] - 1))
    if c >= T.N_RAVENS and c == st.r.pl[p, S.PL_DOUBLED]:
        t = S.rtype(tb, c)
        return -float(tb.r.cards[T.C_VALUE, t] * (tb.r.params[T.P_SIX_MULT] - 1))
    if c < T.N_RAVENS:
        return -capture_gain(tb, st, p, c) + 0.1  # a Raven back in the deck is worth a little
    t = S.rtype(tb, c)
    kind = tb.r.cards[T.C_KIND, t]
    if kind == T.K_HOLLOW:
        return -float(tb.r.params[T.P_HOLLOW_CAPT] - tb.r.params[T.P_HOLLOW])
    if kind == T.K_CURSED:
        have = captured_of_type(tb, st, p, t)
        if have == tb.r.params[T.P_CURSED_SET]:
            return -float(tb.r.params[T.P_CURSED_BONUS])
        return -0.5
    return -0.2


@njit(cache=True, _nrt=False, forceinline=True)
def best_rescue_gain(tb, st, p, exclude):
    best = T.NEG
    for i in range(st.r.pl[p, S.PL_CAPT_N]):
        c = st.r.pile[p, S.PILE_CAPT, i]
        if c != exclude:
            g = rescue_gain(tb, st, p, c)
            if g > best:
                best = g
    return 0.0 if best == T.NEG else best


@njit(cache=True, _nrt=False, forceinline=True)
def rescue_value(tb, st, p, fv):
    """best_rescue_gain(tb, st, p, SEVEN): what the 7's rescue would give the seat now, kept in
    State.fv[V_RESCUE + p] while PL_RESCUE_OK says it is current. It depends only on the seat's
    captured cards and PL_DOUBLED, so capt_push/capt_take and the PL_DOUBLED writes clear the
    flag: the greedy turn asks on most turns, the captured cards change a few times a round.
    ``fv`` is State.fv."""
    i = S.V_RESCUE + p
    if st.r.pl[p, S.PL_RESCUE_OK] == 0:
        fv[i] = best_rescue_gain(tb, st, p, T.SEVEN)
        st.r.pl[p, S.PL_RESCUE_OK] = 1
    return fv[i]


@njit(cache=True, _nrt=False, inline="always")
def relic_thief_value(tb, st, p, c):
    """Greedy thief value of a relic card ``c`` (FR-7): it steals after every Raven and is
    itself captured, so it is worth only what its capture gives."""
    w = tb.r.weights[p]
    return w[T.W_CAPTURE] * capture_gain(tb, st, p, c) - w[T.W_CAPT_COST]


@njit(cache=True, _nrt=False, inline="always")
def _unknown_facedown(tb, st, p):
    for slot in range(S.n_seats(tb)):
        if slot_ok(st, slot, FACE_DOWN) and st.r.pl[p, S.PL_CKNOWN + slot] == 0:
            return slot
    return -1


@njit(cache=True, _nrt=False, forceinline=True)
def _worst_faceup(tb, st, p):
    """(slot, worth) of the least valuable unlocked face-up centre relic, slot -1 if none."""
    best = -1
    bv = 1.0e18
    for slot in range(S.n_seats(tb)):
        if slot_ok(st, slot, FACE_UP):
            v = relic_worth(tb, st, p, st.r.board[S.B_CENTRE + slot], -1)
            if v < bv:
                bv = v
                best = slot
    return best, bv


@njit(cache=True, _nrt=False, inline="always")
def _dead_cards(tb, st, p):
    k = 0
    for i in range(st.r.pl[p, S.PL_HAND_N]):
        c = st.r.pile[p, S.PILE_HAND, i]
        if c >= T.N_RAVENS and tb.r.cards[T.C_THIEF, S.rtype(tb, c)] == 0:
            k += 1
    return k


@njit(cache=True, _nrt=False, forceinline=True)
def best_capture(tb, st, p):
    """(card, gain) of the best card to capture with the 5 from hand or discard (FR-6).

    The card is the 5's choice (choose_capture calls the compiled copy _best_capture); the
    greedy turn and the 2's choice need only the gain, best_capture_value."""
    w = tb.r.weights[p]
    best = -1
    bv = T.NEG
    keep_raven = S.ravens_in_hand(st, p) == 1
    # a Raven's value is fixed but for the 4's bonus and the 7's rescue (tables.W_CV*: the same
    # float operations as capture_gain(c) - cost - (cost + rank part), as best_capture_value)
    four_r = (
        tb.r.params[T.P_CAPTURE + T.FOUR] and S.captured_relics(st, p) >= tb.r.params[T.P_FOUR_MIN]
    )
    for i in range(st.r.pl[p, S.PL_HAND_N] + st.r.pl[p, S.PL_DISC_N]):
        if i < st.r.pl[p, S.PL_HAND_N]:
            c = st.r.pile[p, S.PILE_HAND, i]
            if keep_raven and c < T.N_RAVENS:
                continue
        else:
            c = st.r.pile[p, S.PILE_DISC, i - st.r.pl[p, S.PL_HAND_N]]
        if c >= T.N_RAVENS:
            g = capture_gain(tb, st, p, c) - w[T.W_CAPT_COST]
        elif c == T.FOUR and four_r:
            g = w[T.W_CV_FOUR]
        else:
            g = w[T.W_CV + S.nn(c)]
            if c == T.SEVEN and tb.r.params[T.P_CAPTURE + T.SEVEN]:
                g += best_rescue_gain(tb, st, p, T.SEVEN)
        if g > bv:
            bv = g
            best = c
    return best, bv


@njit(cache=True, _nrt=False, forceinline=False)
def _best_capture(tb, st, p):
    p = S.seat_ix(p)
    return best_capture(tb, st, p)


@njit(cache=True, _nrt=False, forceinline=True)
def best_capture_value(tb, st, p, hand_types, fv):
    """best_capture's gain (0.0 if nothing can be captured), from the card types present.

    ``hand_types`` has bit t for each card type t in hand (Ravens 0..8, relic type i at 9 + i).
    The value is the same as best_capture's (a maximum does not depend on the order the cards
    are met in), but each type is valued once, in type order, which the branch predictor
    follows, instead of once per card in the random order of the piles. The greedy turn asks
    only when the seat may play an action, so it holds two Ravens or more and FR-6 protects none
    of them (best_capture's ``keep_raven``): the hand's types are taken as they are. The 2's
    choice asks after the 2 left the hand, and greedy_action_values leaves a last Raven out.
    """
    n_types = tb.r.params[T.P_N_TYPES]
    if T.N_RAVENS + n_types > 62:  # more relic types than bits: card by card
        card, g = best_capture(tb, st, p)
        return g if card >= 0 else 0.0
    w = tb.r.weights[p]
    types = hand_types
    typeof = tb.r.cards[T.C_TYPEOF]
    for i in range(st.r.pl[p, S.PL_DISC_N]):
        types |= 1 << typeof[S.nn(st.r.pile[p, S.PILE_DISC, i])]
    if types == 0:
        return 0.0
    best = T.NEG
    # Ravens: fixed values (tables.W_CV*), the 4's bonus and the 7's rescue worked out here
    # (a maximum, so selects instead of a branch per rank; the 4 and the 7 after the loop)
    # every rank but the 4 and the 7: the largest W_CV of those present (tables.cvmax)
    best = max(best, tb.r.cvmax[p, cv_index(types)])
    if (types >> T.FOUR) & 1:
        four_r = (
            tb.r.params[T.P_CAPTURE + T.FOUR]
            and S.captured_relics(st, p) >= tb.r.params[T.P_FOUR_MIN]
        )
        best = max(best, w[T.W_CV_FOUR] if four_r else w[T.W_CV + T.FOUR])
    if (types >> T.SEVEN) & 1:
        g = w[T.W_CV + T.SEVEN]
        if tb.r.params[T.P_CAPTURE + T.SEVEN]:
            g += rescue_value(tb, st, p, fv)
        best = max(best, g)
    relics = types >> T.N_RAVENS
    if relics:
        # capture_gain of a relic: its kind's part, then the captured 4's bonus it may complete
        four = completes_four(tb, st, p)
        for t in range(n_types):
            if (relics >> t) & 1:
                g = relic_type_gain(tb, st, p, t)
                if four:
                    g += tb.r.params[T.P_FOUR_BONUS]
                g -= w[T.W_CAPT_COST]
                if g > best:
                    best = g
    return best


@njit(cache=True, _nrt=False, inline="always")
def cv_index(types):
    """The Tables.cvmax column of the Ravens among ``types`` (bit r: Raven r) that are neither
    the 4 nor the 7: bits 0-2, 4-5 and 7-8 of ``types`` packed (tables.CV_RAVENS)."""
    return (types & 0b111) | ((types >> 1) & 0b11000) | ((types >> 2) & 0b1100000)


# ---------------------------------------------------------------- decisions


@njit(cache=True, _nrt=False, forceinline=False)
def choose_turn(tb, st, p, moves, n):
    """Index into ``moves[:n]``, the seat's legal moves (legal_moves), of its turn (FR-5)."""
    if _kind(tb, st, p) != T.POL_GREEDY:
        return choose_turn_other(tb, st, p, moves, n)
    mv, card = greedy_turn(tb, st, p)
    for i in range(n):
        if moves[i, 0] == mv and moves[i, 1] == card:
            return i
    return 0


@njit(cache=True, _nrt=False, forceinline=False)
def choose_turn_other(tb, st, p, moves, n):
    """choose_turn for a random or script seat (the mission plays greedy seats with _greedy_turn)."""
    k = _kind(tb, st, p)
    if k == T.POL_RANDOM:
        return below(st.r.rng[1 + p], n)
    mv, _ = _script(st)
    card, _ = _script(st)
    any_card = mv == S.M_CAPT3 or mv == S.M_CAPT1  # these moves name no card
    for i in range(n):
        if moves[i, 0] == mv and (moves[i, 1] == card or any_card):
            return i
    return 0  # an illegal scripted move: tests assert on the log, so this is visible


@njit(cache=True, _nrt=False, forceinline=False)
def greedy_turn(tb, st, p):
    """(move, card) of a greedy seat's turn, (M_NONE, -1) if it has no legal turn (FR-5)."""
    mv, c, _ = _greedy_turn(tb, st, p, st.r.fv)
    return mv, c


@njit(cache=True, _nrt=False, inline="always")
def hand_best(hand, nh, fv, part, floor):
    """(value, index) of the first card of ``hand[:nh]`` whose value ``fv[part + card]`` is the
    largest and above ``floor``; (floor, -1) if none is. Selects, not branches: which card is
    best is what the branch predictor cannot know."""
    best = floor
    best_i = -1
    for i in range(nh):
        v = fv[part + S.nn(hand[i])]
        better = v > best
        best = v if better else best
        best_i = i if better else best_i
    return best, best_i


@njit(cache=True, _nrt=False, forceinline=True)
def _greedy_turn(tb, st, p, fv):
    """greedy_turn, inlined in the mission (one copy: the kernel calls choose_turn_other for
    the other seats, so greedy_turn is compiled only when called from Python, e.g. tests).
    ``fv`` is the float64 scratch row (V_* layout); the mission makes the view once a round.
    Returns (move, card, index of the card in hand or -1), so that the mission need not look
    the card up again.

    Legality and choice without a list of legal moves: the mission calls it directly,
    choose_turn maps its answer to an index of legal_moves. Candidates are met in legal_moves
    order (per hand card its action then its thief, then captured 3, then captured 1) and only
    a strictly better value replaces the best, so ties go to the earlier legal move exactly as
    choose_turn over legal_moves would.

    Written for the branch predictor and for few instructions, which is where a turn's time
    goes (a turn replayed on the same state costs a third of a fresh one): each Raven's thief
    and action value is worked out once per turn into ``fv`` by rank, and the passes over the
    hand only read them (one load a card), without branching on which card they meet.
    """
    w = tb.r.weights[p]
    hand = st.r.pile[p, S.PILE_HAND]
    nh = st.r.pl[p, S.PL_HAND_N]
    capped = st.r.pl[p, S.PL_TURNS] >= S.MAX_ROUND_TURNS  # ENGINE-9
    relic_thieves = tb.r.params[T.P_RELIC_THIEVES] != 0
    # one pass: the Ravens in hand (a bit mask)
    rmask = 0
    nrav = 0
    lone = -1  # a Raven in hand (the only one when nrav == 1), at index lone_i
    lone_i = -1
    for i in range(nh):
        c = hand[i]
        r = c < T.N_RAVENS
        nrav += r
        rmask |= (1 << c) if r else 0
        lone = c if r else lone
        lone_i = i if r else lone_i
    relic_thief = False
    if relic_thieves:  # configs with relic thieves (FR-7): their values, by card id
        for i in range(nh):
            c = hand[i]
            if c >= T.N_RAVENS:
                fv[S.V_THIEF + S.nn(c)] = T.NEG
                if S.can_thief(tb, st, p, c):
                    relic_thief = True
                    fv[S.V_THIEF + S.nn(c)] = relic_thief_value(tb, st, p, c)
    act_ok = not capped and nrav >= 2
    any_thief = st.r.pl[p, S.PL_NO_THIEF] == 0 and (nrav > 0 or relic_thief)
    ok3 = not capped and S.can_capt3(tb, st, p)
    ok1 = not capped and S.can_capt1(tb, st, p)
    if not (act_ok or any_thief or ok3 or ok1):
        return S.M_NONE, -1, -1
    # the thief we would keep
    thief_card = -1
    thief_i = -1
    if any_thief and nrav == 1 and not relic_thief and w[T.W_SMALL] != 0.0:
        # one card may be the thief and its value is finite: no value needed (a seat's last turn
        # of a round, about a quarter of all turns)
        thief_card = lone
        thief_i = lone_i
    elif any_thief:
        for c in range(T.N_RAVENS):
            fv[S.V_THIEF + c] = w[T.W_TV + c]
        if (
            tb.r.params[T.P_CAPTURE + T.FOUR]
            and S.captured_relics(st, p) >= tb.r.params[T.P_FOUR_MIN]
        ):
            fv[S.V_THIEF + T.FOUR] = w[T.W_TV_FOUR]
        if (rmask >> T.FIVE) & 1 and tb.r.params[T.P_CAPTURE + T.FIVE]:
            fv[S.V_THIEF + T.FIVE] += w[T.W_CAPTURE] * best_visible_gain(tb, st, p, T.FIVE)
        if (rmask >> T.SIX) & 1 and tb.r.params[T.P_CAPTURE + T.SIX]:
            fv[S.V_THIEF + T.SIX] += w[T.W_CAPTURE] * best_visible_gain(tb, st, p, T.SIX)
        if (rmask >> T.SEVEN) & 1 and tb.r.params[T.P_CAPTURE + T.SEVEN]:
            fv[S.V_THIEF + T.SEVEN] += w[T.W_CAPTURE] * max(0.0, rescue_value(tb, st, p, fv))
        _, thief_i = hand_best(hand, nh, fv, S.V_THIEF, T.NEG)
        thief_card = hand[S.nn(thief_i)] if thief_i >= 0 else -1
    best_mv = S.M_NONE
    best_c = -1
    best_i = -1
    bv = w[T.W_THRESHOLD]
    if act_ok:
        if 0 <= thief_card < T.N_RAVENS:
            need = rmask & ~(1 << thief_card)
        else:
            need = rmask
        if (need >> T.TWO) & 1 and tb.r.params[
            T.P_ACTION + T.TWO
        ]:  # the 2 borrows a captured Raven
            need |= st.r.pl[p, S.PL_CAPT_MASK] & ~(1 << T.TWO)
        greedy_action_values(tb, st, p, need, fv)
        # the value of playing card c is fv[V_ACT + c] - 0.05 * (c + 1), the last term keeping
        # high Ravens; worked out by rank once (NEG - 0.05 * (c + 1) == NEG)
        for r in range(T.N_RAVENS):
            fv[S.V_ACT + r] = fv[S.V_ACT + r] - 0.05 * (r + 1)
        if 0 <= thief_card < T.N_RAVENS:
            fv[S.V_ACT + thief_card] = -np.inf
        bv, best_i = hand_best(hand, nh, fv, S.V_ACT, bv)
        if best_i >= 0:
            best_mv = S.M_ACTION
            best_c = hand[S.nn(best_i)]
    if ok3:
        v = w[T.W_INFO] * (
            0.9 if S.has_captured(st, p, T.TWO) and tb.r.params[T.P_CAPTURE + T.TWO] else 0.2
        )
        if v > bv:
            bv = v
            best_mv = S.M_CAPT3
            best_c = -1
            best_i = -1
    if ok1 and bv < 0.0:
        best_mv = S.M_CAPT1
        best_c = -1
        best_i = -1
    if best_mv != S.M_NONE:
        return best_mv, best_c, best_i
    if thief_card >= 0:
        return S.M_THIEF, thief_card, thief_i
    # nothing chosen: the first legal move
    for i in range(nh):
        c = hand[i]
        if act_ok and c < T.N_RAVENS:
            return S.M_ACTION, c, i
        if S.can_thief(tb, st, p, c):
            return S.M_THIEF, c, i
    return (S.M_CAPT3, -1, -1) if ok3 else (S.M_CAPT1, -1, -1)


@njit(cache=True, _nrt=False, forceinline=True)
def greedy_action_values(tb, st, p, need, aval, keep_raven=False):
    """aval[r] = the greedy value of resolving Raven r's action now, for every bit r of
    ``need`` (the 2 last: the best of the captured Ravens it may borrow), with each state
    feature (an unseen face-down relic, the worst face-up relic, the best capture, ...) worked
    out once for all the Ravens that use it. NEG for an action switched off.

    ``keep_raven``: if the hand holds one Raven, the 5 may not capture it (FR-6). The greedy
    turn asks only with two Ravens or more in hand (False); the 2's choice (choose_borrow)
    asks after the 2 left the hand (True)."""
    w = tb.r.weights[p]
    # the 7, 6 and 3 need to know of a face-down relic the seat has not seen
    if need & ((1 << T.SEVEN) | (1 << T.SIX) | (1 << T.THREE)):
        unknown = False  # (_unknown_facedown(tb, st, p) >= 0, without a branch per slot)
        for slot in range(S.n_seats(tb)):
            unknown |= (
                (st.r.board[S.B_CENTRE + slot] >= 0)
                & (st.r.board[S.B_LOCK + slot] == 0)
                & (st.r.board[S.B_FACE + slot] == 0)
                & (st.r.pl[p, S.PL_CKNOWN + slot] == 0)
            )
        aval[T.SEVEN] = w[T.W_INFO] if unknown or st.r.pl[p, S.PL_RD_TOP] >= 0 else 0.0
        aval[T.SIX] = w[T.W_INFO] if unknown else 0.0
        aval[T.THREE] = w[T.W_INFO] * 0.8 if unknown else 0.0
    aval[T.NINE] = w[T.W_DRAW] if st.r.pl[p, S.PL_DECK_N] + st.r.pl[p, S.PL_DISC_N] > 0 else 0.0
    if (need >> T.EIGHT) & 1:
        k = 0
        for i in range(st.r.pl[p, S.PL_DISC_N]):
            d = st.r.pile[p, S.PILE_DISC, i]
            k += d < T.N_RAVENS and d >= T.SIX
        aval[T.EIGHT] = w[T.W_DRAW] * 0.5 * k
    if (need >> T.FOUR) & 1:
        aval[T.FOUR] = w[T.W_DRAW] * _dead_cards(tb, st, p)
    if (need >> T.ONE) & 1:
        slot, v = _worst_faceup(tb, st, p)
        aval[T.ONE] = 0.3 * (unknown_worth(tb) - v) if slot >= 0 and v < unknown_worth(tb) else 0.0
    if (need >> T.FIVE) & 1:
        # the card types in hand (bits past 62 dropped: best_capture_value does not use them)
        hand_types = 0
        typeof = tb.r.cards[T.C_TYPEOF]
        for i in range(st.r.pl[p, S.PL_HAND_N]):
            hand_types |= 1 << typeof[S.nn(st.r.pile[p, S.PILE_HAND, i])]
        if keep_raven and S.ravens_in_hand(st, p) == 1:  # each Raven is in one pile only
            hand_types &= ~((1 << T.N_RAVENS) - 1)
        aval[T.FIVE] = best_capture_value(tb, st, p, hand_types, aval)
    off = tb.r.params[T.P_ACTION_OFF]
    if (need >> T.TWO) & 1 and tb.r.params[T.P_ACTION + T.TWO]:
        cm = st.r.pl[p, S.PL_CAPT_MASK]
        best = 0.0
        for r in range(T.N_RAVENS):
            if r != T.TWO and (cm >> r) & 1 and tb.r.params[T.P_ACTION + r] == 1 and aval[r] > best:
                best = aval[r]
        aval[T.TWO] = best
    if off:
        for r in range(T.N_RAVENS):
            if (off >> r) & 1:
                aval[r] = T.NEG


@njit(cache=True, _nrt=False, forceinline=True)
def choose_discard(tb, st, p):
    """9: the card to discard from hand; never the last Raven (FR-6). -1 if none may go."""
    keep_raven = S.ravens_in_hand(st, p) == 1
    n_opt = 0
    for i in range(st.r.pl[p, S.PL_HAND_N]):
        if not (keep_raven and st.r.pile[p, S.PILE_HAND, i] < T.N_RAVENS):
            n_opt += 1
    if n_opt == 0:
        return -1
    k = _kind(tb, st, p)
    if k == T.POL_RANDOM:
        j = below(st.r.rng[1 + p], n_opt)
        for i in range(st.r.pl[p, S.PL_HAND_N]):
            c = st.r.pile[p, S.PILE_HAND, i]
            if not (keep_raven and c < T.N_RAVENS):
                if j == 0:
                    return c
                j -= 1
    if k != T.POL_GREEDY:
        v, _ = _script(st)
        return v
    best = -1
    bv = 1.0e18
    for i in range(st.r.pl[p, S.PL_HAND_N]):
        c = st.r.pile[p, S.PILE_HAND, i]
        if keep_raven and c < T.N_RAVENS:
            continue
        v = float(c + 1) if c < T.N_RAVENS else relic_thief_value(tb, st, p, c) - 10.0
        if c >= T.N_RAVENS and tb.r.cards[T.C_THIEF, S.rtype(tb, c)] == 0:
            v = -10.0
        if v < bv:
            bv = v
            best = c
    return best


@njit(cache=True, _nrt=False, inline="always")
def choose_stack(tb, st, p, out):
    """8: cards from hand and/or discard to put on top, in ``out`` from first placed to the new
    top; returns how many. The last Raven in hand stays (FR-6, ENGINE-3)."""
    k = _kind(tb, st, p)
    if k == T.POL_GREEDY:
        n = 0
        for r in range(T.FIVE, T.N_RAVENS):  # ranks 5..9 from the discard, highest on top
            for i in range(st.r.pl[p, S.PL_DISC_N]):
                if st.r.pile[p, S.PILE_DISC, i] == r:
                    out[n] = r
                    n += 1
        return n
    if k == T.POL_RANDOM:
        rng = st.r.rng[1 + p]
        n = 0
        rav = S.ravens_in_hand(st, p)
        for i in range(st.r.pl[p, S.PL_HAND_N]):
            c = st.r.pile[p, S.PILE_HAND, i]
            if c < T.N_RAVENS and rav == 1:
                continue
            if below(rng, 2) == 1:
                out[n] = c
                n += 1
                if c < T.N_RAVENS:
                    rav -= 1
        for i in range(st.r.pl[p, S.PL_DISC_N]):
            if below(rng, 2) == 1:
                out[n] = st.r.pile[p, S.PILE_DISC, i]
                n += 1
        kit.shuffle(out, n, rng)
        return n
    n, _ = _script(st)
    for i in range(n):
        out[i], _ = _script(st)
    return n


@njit(cache=True, _nrt=False, forceinline=True)
def choose_seven(tb, st, p, x):
    """7: having seen relic ``x``, the unlocked face-down slot to swap it into, or -1 to bury."""
    P = S.n_seats(tb)
    k = _kind(tb, st, p)
    if k == T.POL_RANDOM:
        j = below(st.r.rng[1 + p], 1 + count_slots(tb, st, FACE_DOWN))
        return -1 if j == 0 else nth_slot(tb, st, FACE_DOWN, j - 1)
    if k != T.POL_GREEDY:
        v, _ = _script(st)
        return v
    vx = relic_worth(tb, st, p, x, -1)
    best = -1
    bv = 0.5
    for s in range(P):
        if slot_ok(st, s, FACE_DOWN):
            y = known_relic(st, p, s)
            vy = unknown_worth(tb) if y < 0 else relic_worth(tb, st, p, y, -1)
            if vx - vy > bv:
                bv = vx - vy
                best = s
    return best


@njit(cache=True, _nrt=False, forceinline=True)
def choose_flip(tb, st, p):
    """6: the unlocked centre slot to flip (must flip one if able, ENGINE-5), -1 if none."""
    P = S.n_seats(tb)
    n = count_slots(tb, st, ANY_FACE)
    if n == 0:
        return -1
    k = _kind(tb, st, p)
    if k == T.POL_RANDOM:
        return nth_slot(tb, st, ANY_FACE, below(st.r.rng[1 + p], n))
    if k != T.POL_GREEDY:
        v, _ = _script(st)
        return v
    s = _unknown_facedown(tb, st, p)
    if s >= 0:
        return s
    # otherwise hide the most valuable face-up relic
    best = -1
    bv = T.NEG
    for s in range(P):
        if slot_ok(st, s, ANY_FACE):
            v = (
                relic_worth(tb, st, p, st.r.board[S.B_CENTRE + s], -1)
                if st.r.board[S.B_FACE + s]
                else -1.0
            )
            if v > bv:
                bv = v
                best = s
    return best


@njit(cache=True, _nrt=False, inline="always")
def choose_shuffle(tb, st, p):
    """6: whether to shuffle the face-down centre relics after the flip."""
    k = _kind(tb, st, p)
    if k == T.POL_RANDOM:
        return below(st.r.rng[1 + p], 2) == 1
    if k != T.POL_GREEDY:
        v, _ = _script(st)
        return v == 1
    return False


@njit(cache=True, _nrt=False, inline="always")
def choose_capture(tb, st, p):
    """5: the card to capture from hand or discard (must if able, ENGINE-5; never the last Raven in
    hand, FR-6, ENGINE-3), -1 if none."""
    k = _kind(tb, st, p)
    if k == T.POL_GREEDY:
        c, _ = _best_capture(tb, st, p)
        return c
    keep_raven = S.ravens_in_hand(st, p) == 1
    n = st.r.pl[p, S.PL_DISC_N]
    for i in range(st.r.pl[p, S.PL_HAND_N]):
        if not (keep_raven and st.r.pile[p, S.PILE_HAND, i] < T.N_RAVENS):
            n += 1
    if n == 0:
        return -1
    if k == T.POL_RANDOM:
        j = below(st.r.rng[1 + p], n)
        for i in range(st.r.pl[p, S.PL_HAND_N]):
            c = st.r.pile[p, S.PILE_HAND, i]
            if not (keep_raven and c < T.N_RAVENS):
                if j == 0:
                    return c
                j -= 1
        return st.r.pile[p, S.PILE_DISC, j]
    v, _ = _script(st)
    return v


@njit(cache=True, _nrt=False, forceinline=True)
def choose_set_aside(tb, st, p, out):
    """4: other cards from hand to set aside, into ``out``; at least one Raven stays (FR-6)."""
    k = _kind(tb, st, p)
    n = 0
    if k == T.POL_GREEDY:
        for i in range(st.r.pl[p, S.PL_HAND_N]):
            c = st.r.pile[p, S.PILE_HAND, i]
            if c >= T.N_RAVENS and tb.r.cards[T.C_THIEF, S.rtype(tb, c)] == 0:
                out[n] = c
                n += 1
        return n
    if k == T.POL_RANDOM:
        rng = st.r.rng[1 + p]
        rav = S.ravens_in_hand(st, p)
        for i in range(st.r.pl[p, S.PL_HAND_N]):
            c = st.r.pile[p, S.PILE_HAND, i]
            if c < T.N_RAVENS and rav == 1:
                continue
            if below(rng, 2) == 1:
                out[n] = c
                n += 1
                if c < T.N_RAVENS:
                    rav -= 1
        return n
    n, _ = _script(st)
    for i in range(n):
        out[i], _ = _script(st)
    return n


@njit(cache=True, _nrt=False, inline="always")
def choose_examine(tb, st, p):
    """3: the unlocked face-down centre slot to look at, -1 if none."""
    n = count_slots(tb, st, FACE_DOWN)
    if n == 0:
        return -1
    k = _kind(tb, st, p)
    if k == T.POL_RANDOM:
        return nth_slot(tb, st, FACE_DOWN, below(st.r.rng[1 + p], n))
    if k != T.POL_GREEDY:
        v, _ = _script(st)
        return v
    s = _unknown_facedown(tb, st, p)
    return s if s >= 0 else nth_slot(tb, st, FACE_DOWN, 0)


@njit(cache=True, _nrt=False, forceinline=False)
def choose_borrow(tb, st, p):
    """2: the captured Raven (not a 2) whose action to resolve, -1 if none."""
    p = S.seat_ix(p)
    n = 0
    for i in range(st.r.pl[p, S.PL_CAPT_N]):
        if st.r.pile[p, S.PILE_CAPT, i] < T.N_RAVENS and st.r.pile[p, S.PILE_CAPT, i] != T.TWO:
            n += 1
    if n == 0:
        return -1
    k = _kind(tb, st, p)
    if k == T.POL_RANDOM:
        j = below(st.r.rng[1 + p], n)
        for i in range(st.r.pl[p, S.PL_CAPT_N]):
            c = st.r.pile[p, S.PILE_CAPT, i]
            if c < T.N_RAVENS and c != T.TWO:
                if j == 0:
                    return c
                j -= 1
    if k != T.POL_GREEDY:
        v, _ = _script(st)
        return v
    # the values the greedy turn gives these actions (greedy_action_values); the 2 is out of the
    # hand now, so FR-6 may protect its last Raven from the 5
    fv = st.r.fv
    greedy_action_values(tb, st, p, st.r.pl[p, S.PL_CAPT_MASK] & ~(1 << T.TWO), fv, True)
    best = -1
    bv = T.NEG
    for i in range(st.r.pl[p, S.PL_CAPT_N]):
        c = st.r.pile[p, S.PILE_CAPT, i]
        if c < T.N_RAVENS and c != T.TWO:
            v = fv[S.V_ACT + c]  # NEG for an action switched off
            if v > bv:
                bv = v
                best = c
    return best


@njit(cache=True, _nrt=False, inline="always")
def choose_replace(tb, st, p):
    """1: the unlocked face-up centre slot to replace (must if able, ENGINE-5), -1 if none."""
    n = count_slots(tb, st, FACE_UP)
    if n == 0:
        return -1
    k = _kind(tb, st, p)
    if k == T.POL_RANDOM:
        return nth_slot(tb, st, FACE_UP, below(st.r.rng[1 + p], n))
    if k != T.POL_GREEDY:
        v, _ = _script(st)
        return v
    s, _ = _worst_faceup(tb, st, p)
    return s


@njit(cache=True, _nrt=False, inline="always")
def choose_peek_end(tb, st, p):
    """Captured 3: 1 to look at the bottom relic, 0 for the top."""
    k = _kind(tb, st, p)
    if k == T.POL_RANDOM:
        return below(st.r.rng[1 + p], 2)
    if k != T.POL_GREEDY:
        v, _ = _script(st)
        return v
    return 1 if S.has_captured(st, p, T.TWO) and tb.r.params[T.P_CAPTURE + T.TWO] else 0


@njit(cache=True, _nrt=False, forceinline=True)
def choose_lock(tb, st, p):
    """Captured 1: the centre slot to lock, -1 if none."""
    P = S.n_seats(tb)
    n = count_slots(tb, st, ANY_FACE)
    if n == 0:
        return -1
    k = _kind(tb, st, p)
    if k == T.POL_RANDOM:
        return nth_slot(tb, st, ANY_FACE, below(st.r.rng[1 + p], n))
    if k != T.POL_GREEDY:
        v, _ = _script(st)
        return v
    best = -1
    bv = T.NEG
    for s in range(P):
        if slot_ok(st, s, ANY_FACE):
            x = known_relic(st, p, s)
            v = unknown_worth(tb) if x < 0 else relic_worth(tb, st, p, x, -1)
            if v > bv:
                bv = v
                best = s
    return best


@njit(cache=True, _nrt=False, forceinline=True)
def choose_steal(tb, st, p):
    """FR-9: the centre slot to steal from, -1 for the relic deck's bottom (captured 2), or -2
    when there is nothing to take."""
    P = S.n_seats(tb)
    bottom_ok = (
        tb.r.params[T.P_CAPTURE + T.TWO] == 1
        and S.has_captured(st, p, T.TWO)
        and st.r.board[S.G_RD_N] > 0
    )
    n = 1 if bottom_ok else 0
    for s in range(P):
        if st.r.board[S.B_CENTRE + s] >= 0:
            n += 1
    if n == 0:
        return -2
    k = _kind(tb, st, p)
    if k == T.POL_RANDOM:
        j = below(st.r.rng[1 + p], n)
        for s in range(P):
            if st.r.board[S.B_CENTRE + s] >= 0:
                if j == 0:
                    return s
                j -= 1
        return -1
    if k != T.POL_GREEDY:
        v, _ = _script(st)
        return v
    thief = st.r.pl[p, S.PL_THIEF]
    best = -2
    bv = T.NEG
    for s in range(P):
        if st.r.board[S.B_CENTRE + s] >= 0:
            x = known_relic(st, p, s)
            v = unknown_worth(tb) if x < 0 else relic_worth(tb, st, p, x, thief)
            if v > bv:
                bv = v
                best = s
    if bottom_ok:
        x = st.r.pl[p, S.PL_RD_BOT]
        v = unknown_worth(tb) - 0.01 if x < 0 else relic_worth(tb, st, p, x, thief)
        if v > bv:
            best = -1
    return best


@njit(cache=True, _nrt=False, forceinline=False)
def choose_rescue(tb, st, p, exclude):
    """FR-11: the captured card other than ``exclude`` to put on top of the deck, -1 if none."""
    p = S.seat_ix(p)
    n = 0
    for i in range(st.r.pl[p, S.PL_CAPT_N]):
        if st.r.pile[p, S.PILE_CAPT, i] != exclude:
            n += 1
    if n == 0:
        return -1
    k = _kind(tb, st, p)
    if k == T.POL_RANDOM:
        j = below(st.r.rng[1 + p], n)
        for i in range(st.r.pl[p, S.PL_CAPT_N]):
            c = st.r.pile[p, S.PILE_CAPT, i]
            if c != exclude:
                if j == 0:
                    return c
                j -= 1
    if k != T.POL_GREEDY:
        v, _ = _script(st)
        return v
    best = -1
    bv = T.NEG
    for i in range(st.r.pl[p, S.PL_CAPT_N]):
        c = st.r.pile[p, S.PILE_CAPT, i]
        if c != exclude:
            v = rescue_gain(tb, st, p, c)
            if v > bv:
                bv = v
                best = c
    return best


# ---------------------------------------------------------------- the decision points


@njit(cache=True, _nrt=False, inline="always")
def card_code(c):
    """A choose_* answer of a card or a slot as an option code: -1 (bury, the relic deck's
    bottom, borrow none) is OPT_NONE."""
    return S.OPT_NONE if c < 0 else c


@njit(cache=True, _nrt=False, forceinline=False)
def choose_turn_code(tb, st, p, moves):
    """The option code of a random or script seat's turn (choose_turn_other over legal_moves,
    whose order legal's follows)."""
    n = _legal_moves(tb, st, p, moves)
    i = choose_turn_other(tb, st, p, moves, n)
    mv = moves[i, 0]
    if mv == S.M_CAPT3:
        return S.OPT_CAPT3
    if mv == S.M_CAPT1:
        return S.OPT_CAPT1
    j = S.find(st.r.pile[p, S.PILE_HAND], st.r.pl[p, S.PL_HAND_N], moves[i, 1])
    return 2 * j + (1 if mv == S.M_THIEF else 0)


@njit(cache=True, _nrt=False, inline="always")
def _legal_moves(tb, st, p, moves):
    """engine.legal_moves (here, since the engine imports this module)."""
    k = 0
    capped = st.r.pl[p, S.PL_TURNS] >= S.MAX_ROUND_TURNS  # ENGINE-9
    n_rav = S.ravens_in_hand(st, p)
    for i in range(st.r.pl[p, S.PL_HAND_N]):
        c = st.r.pile[p, S.PILE_HAND, i]
        if not capped and c < T.N_RAVENS and n_rav >= 2:
            moves[k, 0] = S.M_ACTION
            moves[k, 1] = c
            k += 1
        if S.can_thief(tb, st, p, c):
            moves[k, 0] = S.M_THIEF
            moves[k, 1] = c
            k += 1
    if not capped and S.can_capt3(tb, st, p):
        moves[k, 0] = S.M_CAPT3
        moves[k, 1] = -1
        k += 1
    if not capped and S.can_capt1(tb, st, p):
        moves[k, 0] = S.M_CAPT1
        moves[k, 1] = -1
        k += 1
    return k


@njit(cache=True, _nrt=False, forceinline=True)
def choose_planned(tb, st, p, kind):
    """The 8's stack and the 4's set-aside, a point per card: the policy plans the whole set at
    the sequence's first point (choose_stack, choose_set_aside: the draws of today, in the same
    order) into B_PLAN, and each point answers the next card of it (G_SEQ - G_PLAN_AT cards of it
    are placed), or stop. A plan dropped (knowledge.determinize) is made again from the point
    reached."""
    if st.r.board[S.G_PLANNED] == 0:
        plan = st.r.board[S.B_PLAN : S.B_PLAN + T.MAX_CAP]
        if kind == S.D_STACK:
            n = choose_stack(tb, st, p, plan)
        else:
            n = choose_set_aside(tb, st, p, plan)
        st.r.board[S.G_PLAN_N] = n
        st.r.board[S.G_PLAN_AT] = st.r.board[S.G_SEQ]
        st.r.board[S.G_PLANNED] = 1
    i = st.r.board[S.G_SEQ] - st.r.board[S.G_PLAN_AT]
    if i < st.r.board[S.G_PLAN_N]:
        return st.r.board[S.B_PLAN + S.nn(i)]
    return S.OPT_NONE


@njit(cache=True, _nrt=False, forceinline=True)
def choose_sub(tb, st, p, kind):
    """choose for every kind but the turn: today's choose_* answer as an option code (the kinds
    in order of how often a game meets them)."""
    if kind == S.D_STEAL:
        return card_code(choose_steal(tb, st, p))
    if kind == S.D_STACK or kind == S.D_SET_ASIDE:
        return choose_planned(tb, st, p, kind)
    if kind == S.D_EXAMINE:
        return choose_examine(tb, st, p)
    if kind == S.D_REPLACE:
        return choose_replace(tb, st, p)
    if kind == S.D_CAPTURE:
        return choose_capture(tb, st, p)
    if kind == S.D_BORROW:
        return card_code(choose_borrow(tb, st, p))
    if kind == S.D_DISCARD:
        return choose_discard(tb, st, p)
    if kind == S.D_SEVEN:
        return card_code(choose_seven(tb, st, p, st.r.board[S.G_SEEN]))
    if kind == S.D_LOCK:
        return choose_lock(tb, st, p)
    if kind == S.D_RESCUE:
        return choose_rescue(tb, st, p, T.SEVEN)
    if kind == S.D_FLIP:
        return choose_flip(tb, st, p)
    if kind == S.D_SHUFFLE:
        return 1 if choose_shuffle(tb, st, p) else 0
    return choose_peek_end(tb, st, p)


@njit(cache=True, _nrt=False, forceinline=True)
def choose_turn_point(tb, st, work, p):
    """choose for a Mission turn of seat ``p``. A greedy seat's turn is the inlined greedy
    turn, which needs no list of legal moves."""
    if _kind(tb, st, p) == T.POL_GREEDY:
        mv, _, hi = _greedy_turn(tb, st, p, st.r.fv)  # inlined
        if mv == S.M_CAPT3:
            return S.OPT_CAPT3
        if mv == S.M_CAPT1:
            return S.OPT_CAPT1
        return 2 * hi + (1 if mv == S.M_THIEF else 0)
    return choose_turn_code(tb, st, p, work.moves)


@njit(cache=True, _nrt=False, forceinline=True)
def choose(tb, st, work):
    """The option code the acting seat's configured policy picks for the pending decision
    (engine.legal's codes), drawing from the seat's stream exactly as the choose_* functions do:
    choose_turn_point for a turn, choose_sub for any other kind."""
    kind = st.r.board[S.G_KIND]
    p = S.seat_ix(st.r.board[S.G_ACTOR])
    if kind == S.D_TURN:
        return choose_turn_point(tb, st, work, p)
    return choose_sub(tb, st, p, kind)
