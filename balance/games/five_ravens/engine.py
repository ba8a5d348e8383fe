"""Five Ravens rule engine: numba kernels over plain arrays (rulebooks/five-ravens.txt).

Follows rulings FR-1..FR-15 of shared/RULINGS.md. Where both are silent, this engine reads:

- A card played for its action is in no pile while it resolves, and goes to the discard after
  (rulebook, Eight). So a 9 cannot discard itself and an 8 cannot stack itself.
- FR-6 protects the last Raven in hand from every effect that would take it out of the hand
  other than playing it as thief: the 9's discard, the 4's set-aside (at least one Raven stays in
  hand), the 8's stacking and the 5's capture. A player who had a Raven can therefore always play
  a thief.
- An action whose text is switched off in the config (``rules.ravens.<rank>.action: false``) can
  still be played; it does nothing. A capture effect switched off does nothing when captured
  (for 5, 6, 7) or at scoring (4, 8, 9), and gives no turn action (3, 1) or bottom steal (2).
- A relic thief (FR-7, ``thief_relics``) has rank 0: it steals after every Raven thief.
- "Resolve as much as you are able": a played action with a legal target must take one (the 5
  must capture, the 6 must flip, the 7 must look and then bury or swap, the 1 must replace).
- Unclaimed centre relics go to the bottom of the relic deck in slot order.
- Dealing stops when the relic deck is empty; the last relic dealt is the face-down one.
- A player is held to at most ``MAX_ROUND_TURNS`` mission turns a round; after that only a thief
  (or nothing) is legal. No legal sequence reaches it: it guards the kernel against a loop.

State layout (one game; allocated once per block of games and reset per game). ``P`` seats,
``CAP = 9 + n_relics`` slots per pile; card ids are 0..8 for Ravens of rank 1..9 and 9 + i for
relic instance i; piles are arrays with a count, the top of a deck is its last element.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from balance.games.base import Chunk
from balance.games.five_ravens import policies as pol
from balance.games.five_ravens.state import (
    alloc_state,
    BLOCK,
    E_ACTION,
    E_CAPT3,
    E_CAPTURE5,
    E_CAPTURED,
    E_DEAL,
    E_DISCARD,
    E_DONE,
    E_DRAW,
    E_EPILOGUE,
    E_EXAMINE,
    E_FLIP,
    E_LOCK,
    E_NOTHIEF,
    E_REMOVED,
    E_REPLACE,
    E_RESCUE,
    E_ROUND,
    E_SCORE,
    E_SET_ASIDE,
    E_SEVEN,
    E_SHUFFLE,
    E_SHUFFLE_CENTRE,
    E_STEAL,
    E_THIEF,
    E_TOP,
    E_UNCLAIMED,
    G_FIRST,
    G_LAST,
    G_RD_BOT,
    G_RD_N,
    G_ROUND,
    G_START,
    G_TURNS,
    MAX_ROUND_TURNS,
    M_ACTION,
    M_CAPT1,
    M_CAPT3,
    M_THIEF,
    SB_CHESTS,
    SB_CURSED,
    SB_FOUR,
    SB_GEMS,
    SB_HOLLOWS,
    SB_PENALTY,
    SB_TOTAL,
    ST_ACTIVE,
    ST_DONE,
    ST_THIEF,
    capt_push,
    captured_relics,
    count,
    deck_push_top,
    disc_push,
    emit,
    find,
    hand_remove,
    has_captured,
    ravens_in_hand,
    rd_bottom_card,
    rd_pop_bottom,
    rd_pop_top,
    rd_push_bottom,
    rd_top_card,
    remove_at,
    shuffle,
    slot_knowers,
)
from balance.games.five_ravens.tables import (
    EV_CAPTURED,
    EV_DRAWN,
    EV_PLAYED,
    EV_STOLEN,
    EV_THIEF,
    K_CHEST,
    K_CURSED,
    K_GEM,
    K_HOLLOW,
    N_RAVENS,
    P_CURSED_BONUS,
    P_CURSED_SET,
    P_EIGHT_PEN,
    P_FOUR_BONUS,
    P_FOUR_MIN,
    P_HAND,
    P_HOLLOW,
    P_HOLLOW_CAPT,
    P_N_RELICS,
    P_N_TYPES,
    P_NINE_PEN,
    P_PLAYERS,
    P_REMOVED,
    P_ROUNDS,
    P_SIX_MAX,
    P_SIX_MULT,
    Compiled,
)
from balance.rng import below, seed_stream

@njit(cache=True)
def reveal_slot(tb, st, slot):
    """A centre relic turns face up: public, and locked at once if cursed (FR-4)."""
    st.face_up[slot] = 1
    for s in range(st.cknown.shape[0]):
        st.cknown[s, slot] = 1
    if tb.type_kind[tb.inst_type[st.centre[slot] - N_RAVENS]] == K_CURSED:
        st.locked[slot] = 1


# ---------------------------------------------------------------- drawing


@njit(cache=True)
def draw(tb, st, p):
    """Draw one card into hand; FR-4: an empty deck is rebuilt from the shuffled discard pile."""
    if st.deck_n[p] == 0:
        n = st.disc_n[p]
        if n == 0:
            return -1
        for i in range(n):
            st.deck[p, i] = st.disc[p, i]
        st.disc_n[p] = 0
        shuffle(st.deck[p], n, st.rng[0])
        st.deck_n[p] = n
        st.deck_known[p] = 0
        emit(st, E_SHUFFLE, p, n, 0, 0, 0, 0, 0)
    n = st.deck_n[p] - 1
    c = st.deck[p, n]
    st.deck_n[p] = n
    if st.deck_known[p] > 0:
        st.deck_known[p] -= 1
    st.hand[p, st.hand_n[p]] = c
    st.hand_n[p] += 1
    count(tb, st, p, EV_DRAWN, c)
    emit(st, E_DRAW, p, c, 0, 0, 0, 0, 0)
    return c


# ---------------------------------------------------------------- setup and prelude


@njit(cache=True)
def setup(tb, st, seed, game):
    """Reset ``st`` to the start of game ``game`` of run ``seed`` (rulebook Setup, FR-1..FR-3)."""
    P = tb.params[P_PLAYERS]
    for s in range(st.rng.shape[0]):
        seed_stream(st.rng[s], seed, game, s)
    st.g[:] = 0
    st.tele[:] = 0
    st.cknown[:] = 0
    for p in range(P):
        st.hand_n[p] = 0
        st.disc_n[p] = 0
        st.capt_n[p] = 0
        st.deck_known[p] = 0
        st.doubled[p] = -1
        st.thief[p] = -1
        st.rd_top[p] = -1
        st.rd_bot[p] = -1
        st.centre[p] = -1
        st.face_up[p] = 0
        st.locked[p] = 0
        for r in range(N_RAVENS):
            st.deck[p, r] = r
        st.deck_n[p] = N_RAVENS
        shuffle(st.deck[p], N_RAVENS, st.rng[0])
    n = tb.params[P_N_RELICS]
    for i in range(n):
        st.rdeck[i] = N_RAVENS + i
    shuffle(st.rdeck, n, st.rng[0])
    st.g[G_RD_BOT] = 0
    st.g[G_RD_N] = n
    # FR-3: relics removed unseen (8 in a two-player game).
    for _ in range(min(tb.params[P_REMOVED], n)):
        x = rd_pop_top(st)
        emit(st, E_REMOVED, x, 0, 0, 0, 0, 0, 0)
    first = below(st.rng[0], P)
    st.g[G_FIRST] = first
    st.g[G_START] = first


@njit(cache=True)
def prelude(tb, st):
    """Deal the centre and draw hands (rulebook Prelude, FR-4, FR-7)."""
    P = tb.params[P_PLAYERS]
    first = st.g[G_FIRST]
    emit(st, E_ROUND, st.g[G_ROUND], first, 0, 0, 0, 0, 0)
    dealt = min(P, st.g[G_RD_N])
    for slot in range(P):
        st.locked[slot] = 0
        st.face_up[slot] = 0
        for s in range(P):
            st.cknown[s, slot] = 0
        if slot < dealt:
            st.centre[slot] = rd_pop_top(st)
            if slot < dealt - 1:  # FR-4: the last relic dealt is face down
                reveal_slot(tb, st, slot)
            emit(st, E_DEAL, slot, st.centre[slot], st.face_up[slot], st.locked[slot], 0, 0, 0)
        else:
            st.centre[slot] = -1
    for k in range(P):
        p = (first + k) % P
        for _ in range(tb.params[P_HAND]):
            draw(tb, st, p)
    for p in range(P):
        st.thief[p] = -1
        st.status[p] = ST_ACTIVE
        st.used3[p] = 0
        st.used1[p] = 0
        st.round_turns[p] = 0
        st.no_thief[p] = 1 if ravens_in_hand(st, p) == 0 else 0
        if st.no_thief[p]:
            emit(st, E_NOTHIEF, p, 0, 0, 0, 0, 0, 0)


# ---------------------------------------------------------------- legality


@njit(cache=True)
def can_play_action(st, p, c):
    """FR-6: a Raven may be played for its action unless it is the only Raven in hand."""
    return c < N_RAVENS and ravens_in_hand(st, p) >= 2


@njit(cache=True)
def can_capt3(tb, st, p):
    return st.used3[p] == 0 and tb.capture_on[2] == 1 and has_captured(st, p, 2)


@njit(cache=True)
def can_capt1(tb, st, p):
    if st.used1[p] != 0 or tb.capture_on[0] == 0 or not has_captured(st, p, 0):
        return False
    for slot in range(tb.params[P_PLAYERS]):
        if st.centre[slot] >= 0 and st.locked[slot] == 0:
            return True
    return False


@njit(cache=True)
def can_thief(tb, st, p, c):
    """FR-7: a Raven, or a relic listed in thief_relics, unless the seat drew no Raven."""
    if st.no_thief[p]:
        return False
    if c < N_RAVENS:
        return True
    return tb.type_thief[tb.inst_type[c - N_RAVENS]] == 1


@njit(cache=True)
def legal_moves(tb, st, p, moves):
    """Fill ``moves`` (int32[k, 2]: move, card) with the seat's legal turns; returns k (FR-5)."""
    k = 0
    capped = st.round_turns[p] >= MAX_ROUND_TURNS
    n_rav = ravens_in_hand(st, p)
    for i in range(st.hand_n[p]):
        c = st.hand[p, i]
        if not capped and c < N_RAVENS and n_rav >= 2:
            moves[k, 0] = M_ACTION
            moves[k, 1] = c
            k += 1
        if can_thief(tb, st, p, c):
            moves[k, 0] = M_THIEF
            moves[k, 1] = c
            k += 1
    if not capped and can_capt3(tb, st, p):
        moves[k, 0] = M_CAPT3
        moves[k, 1] = -1
        k += 1
    if not capped and can_capt1(tb, st, p):
        moves[k, 0] = M_CAPT1
        moves[k, 1] = -1
        k += 1
    return k


# ---------------------------------------------------------------- actions (FR-8)


@njit(cache=True)
def act_nine(tb, st, p):
    """9: draw two cards, then discard one (not the last Raven, FR-6)."""
    draw(tb, st, p)
    draw(tb, st, p)
    c = pol.choose_discard(tb, st, p)
    if c >= 0:
        hand_remove(st, p, c)
        disc_push(st, p, c)
        emit(st, E_DISCARD, p, c, 0, 0, 0, 0, 0)


@njit(cache=True)
def act_eight(tb, st, p):
    """8: put any cards from hand and/or discard on top of the deck, in any order."""
    n = pol.choose_stack(tb, st, p, st.tmp)
    for i in range(n):
        c = st.tmp[i]
        j = find(st.hand[p], st.hand_n[p], c)
        if j >= 0:
            st.hand_n[p] = remove_at(st.hand[p], st.hand_n[p], j)
        else:
            j = find(st.disc[p], st.disc_n[p], c)
            st.disc_n[p] = remove_at(st.disc[p], st.disc_n[p], j)
        deck_push_top(st, p, c)
        emit(st, E_TOP, p, c, 0, 0, 0, 0, 0)


@njit(cache=True)
def act_seven(tb, st, p):
    """7: look at the top relic; bury it, or swap it with an unlocked face-down centre relic."""
    x = rd_pop_top(st)
    if x < 0:
        return
    slot = pol.choose_seven(tb, st, p, x)
    if slot < 0:
        rd_push_bottom(st, x, 1 << p)
        emit(st, E_SEVEN, p, x, -1, -1, 0, 0, 0)
    else:
        y = st.centre[slot]
        knowers = slot_knowers(st, slot)
        st.centre[slot] = x
        for s in range(st.cknown.shape[0]):
            st.cknown[s, slot] = 0
        st.cknown[p, slot] = 1
        rd_push_bottom(st, y, knowers)  # the swapped relic goes under unexamined
        emit(st, E_SEVEN, p, x, slot, y, 0, 0, 0)


@njit(cache=True)
def act_six(tb, st, p):
    """6: flip one unlocked centre relic; then optionally shuffle the face-down ones."""
    slot = pol.choose_flip(tb, st, p)
    if slot < 0:
        return
    if st.face_up[slot]:
        st.face_up[slot] = 0  # everyone saw it face up, so everyone still knows it
    else:
        reveal_slot(tb, st, slot)
    emit(st, E_FLIP, p, slot, st.centre[slot], st.face_up[slot], 0, 0, 0)
    n = 0
    for s in range(tb.params[P_PLAYERS]):
        if st.centre[s] >= 0 and st.face_up[s] == 0 and st.locked[s] == 0:
            st.tmp2[n] = s
            n += 1
    if n >= 2 and pol.choose_shuffle(tb, st, p):
        for i in range(n):
            st.tmp[i] = st.centre[st.tmp2[i]]
        shuffle(st.tmp, n, st.rng[0])
        for i in range(n):
            slot = st.tmp2[i]
            st.centre[slot] = st.tmp[i]
            for s in range(st.cknown.shape[0]):
                st.cknown[s, slot] = 0
        emit(st, E_SHUFFLE_CENTRE, p, n, 0, 0, 0, 0, 0)


@njit(cache=True)
def act_five(tb, st, p):
    """5: capture a Raven or relic from hand or discard; a captured 7 rescues at once."""
    c = pol.choose_capture(tb, st, p)
    if c < 0:
        return
    j = find(st.hand[p], st.hand_n[p], c)
    if j >= 0:
        st.hand_n[p] = remove_at(st.hand[p], st.hand_n[p], j)
    else:
        j = find(st.disc[p], st.disc_n[p], c)
        st.disc_n[p] = remove_at(st.disc[p], st.disc_n[p], j)
    capt_push(st, p, c)
    count(tb, st, p, EV_CAPTURED, c)
    emit(st, E_CAPTURE5, p, c, 0, 0, 0, 0, 0)
    if c == 6 and tb.capture_on[6] == 1:  # FR-8: a 7 captured this way rescues at once
        rescue(tb, st, p, 6)


@njit(cache=True)
def act_four(tb, st, p):
    """4: set aside other cards from hand, draw as many, then discard the set-aside cards."""
    n = pol.choose_set_aside(tb, st, p, st.tmp2)
    for i in range(n):
        hand_remove(st, p, st.tmp2[i])
    emit(st, E_SET_ASIDE, p, n, 0, 0, 0, 0, 0)
    for _ in range(n):
        draw(tb, st, p)
    for i in range(n):
        disc_push(st, p, st.tmp2[i])
        emit(st, E_DISCARD, p, st.tmp2[i], 0, 0, 0, 0, 0)


@njit(cache=True)
def act_three(tb, st, p):
    """3: look at one unlocked face-down centre relic."""
    slot = pol.choose_examine(tb, st, p)
    if slot >= 0:
        st.cknown[p, slot] = 1
        emit(st, E_EXAMINE, p, slot, st.centre[slot], 0, 0, 0, 0)


@njit(cache=True)
def act_two(tb, st, p):
    """2: resolve the action text of one of your captured Ravens (not another 2)."""
    c = pol.choose_borrow(tb, st, p)
    if c >= 0:
        emit(st, E_ACTION, p, c, 1, 0, 0, 0, 0)
        if tb.action_on[c] == 1:
            resolve_other(tb, st, p, c)


@njit(cache=True)
def act_one(tb, st, p):
    """1: put an unlocked face-up centre relic on the bottom, replace it with the top relic."""
    slot = pol.choose_replace(tb, st, p)
    if slot < 0:
        return
    old = st.centre[slot]
    rd_push_bottom(st, old, (1 << st.cknown.shape[0]) - 1)
    st.centre[slot] = rd_pop_top(st)
    reveal_slot(tb, st, slot)
    emit(st, E_REPLACE, p, slot, old, st.centre[slot], st.locked[slot], 0, 0)


@njit(cache=True)
def resolve_other(tb, st, p, c):
    """Resolve the action text of Raven ``c``, any rank but 2 (so the 2 never recurses)."""
    r = c + 1
    if r == 9:
        act_nine(tb, st, p)
    elif r == 8:
        act_eight(tb, st, p)
    elif r == 7:
        act_seven(tb, st, p)
    elif r == 6:
        act_six(tb, st, p)
    elif r == 5:
        act_five(tb, st, p)
    elif r == 4:
        act_four(tb, st, p)
    elif r == 3:
        act_three(tb, st, p)
    elif r == 1:
        act_one(tb, st, p)


@njit(cache=True)
def resolve_action(tb, st, p, c):
    """Resolve the action text of Raven ``c`` for seat ``p`` (does nothing if switched off)."""
    if tb.action_on[c] == 0:
        return
    if c == 1:
        act_two(tb, st, p)
    else:
        resolve_other(tb, st, p, c)


@njit(cache=True)
def capt3_action(tb, st, p):
    """Captured 3, once a round: look at the top or the bottom relic of the relic deck."""
    st.used3[p] = 1
    bottom = pol.choose_peek_end(tb, st, p)
    x = rd_bottom_card(st) if bottom else rd_top_card(st)
    if bottom:
        st.rd_bot[p] = x
    else:
        st.rd_top[p] = x
    emit(st, E_CAPT3, p, bottom, x, 0, 0, 0, 0)


@njit(cache=True)
def capt1_action(tb, st, p):
    """Captured 1, once a round: lock one centre relic until the round ends."""
    st.used1[p] = 1
    slot = pol.choose_lock(tb, st, p)
    if slot >= 0:
        st.locked[slot] = 1
        emit(st, E_LOCK, p, slot, st.centre[slot], st.face_up[slot], 0, 0, 0)


@njit(cache=True)
def play_turn(tb, st, p, move, c):
    """Carry out one Mission turn (FR-5) chosen by the seat's policy."""
    st.g[G_TURNS] += 1
    st.round_turns[p] += 1
    if move == M_ACTION:
        hand_remove(st, p, c)  # in no pile while it resolves
        count(tb, st, p, EV_PLAYED, c)
        emit(st, E_ACTION, p, c, 0, 0, 0, 0, 0)
        resolve_action(tb, st, p, c)
        disc_push(st, p, c)
    elif move == M_CAPT3:
        capt3_action(tb, st, p)
    elif move == M_CAPT1:
        capt1_action(tb, st, p)
    elif move == M_THIEF:
        hand_remove(st, p, c)
        st.thief[p] = c
        st.status[p] = ST_THIEF
        count(tb, st, p, EV_THIEF, c)
        emit(st, E_THIEF, p, c, 0, 0, 0, 0, 0)


@njit(cache=True)
def mission(tb, st, moves):
    """Turns clockwise from the first player until every seat has a thief or is done (FR-5)."""
    P = tb.params[P_PLAYERS]
    first = st.g[G_FIRST]
    while True:
        acted = False
        for k in range(P):
            p = (first + k) % P
            if st.status[p] != ST_ACTIVE:
                continue
            n = legal_moves(tb, st, p, moves)
            if n == 0:
                st.status[p] = ST_DONE
                emit(st, E_DONE, p, 0, 0, 0, 0, 0, 0)
                continue
            i = pol.choose_turn(tb, st, p, moves, n)
            play_turn(tb, st, p, moves[i, 0], moves[i, 1])
            acted = True
        if not acted:
            break


# ---------------------------------------------------------------- theft and capture (FR-9..FR-11)


@njit(cache=True)
def thief_rank(c):
    """Steal-order key of a thief: the Raven's rank, 0 for a relic thief, -1 for none (FR-9)."""
    if c < 0:
        return -1
    if c < N_RAVENS:
        return c + 1
    return 0


@njit(cache=True)
def steal_order(tb, st, order):
    """Fill ``order`` with seats in steal order: rank high to low, ties clockwise from the first
    player, thief-less seats last (FR-9)."""
    P = tb.params[P_PLAYERS]
    first = st.g[G_FIRST]
    n = 0
    for r in range(N_RAVENS, -2, -1):
        for k in range(P):
            p = (first + k) % P
            if thief_rank(st.thief[p]) == r:
                order[n] = p
                n += 1
    return n


@njit(cache=True)
def rescue(tb, st, p, exclude):
    """FR-11: move one captured card other than ``exclude`` to the top of the owner's deck."""
    c = pol.choose_rescue(tb, st, p, exclude)
    if c < 0:
        return
    j = find(st.capt[p], st.capt_n[p], c)
    st.capt_n[p] = remove_at(st.capt[p], st.capt_n[p], j)
    deck_push_top(st, p, c)
    if c == 5 or c == st.doubled[p]:  # a rescued 6 or chest is no longer doubled
        st.doubled[p] = -1
    emit(st, E_RESCUE, p, c, 0, 0, 0, 0, 0)


@njit(cache=True)
def steal(tb, st, p, choice):
    """Seat ``p`` takes centre slot ``choice`` (or -1: the relic deck's bottom, captured 2) and
    places it by FR-10. Returns the relic instance card id, or -1 if nothing was taken."""
    c = st.thief[p]
    if choice < 0:
        x = rd_pop_bottom(st)
    else:
        x = st.centre[choice]
        st.centre[choice] = -1
    if x < 0:
        return -1
    count(tb, st, p, EV_STOLEN, x)
    t = tb.inst_type[x - N_RAVENS]
    where = 0
    if c == 4 and tb.capture_on[4] == 1:  # FR-10: stolen with the 5 -> captured
        where = 1
    elif (
        c == 5
        and tb.capture_on[5] == 1
        and tb.type_kind[t] == K_CHEST
        and tb.type_value[t] <= tb.params[P_SIX_MAX]
    ):  # FR-10: a chest stolen with the 6 is captured with it and doubled
        where = 2
        st.doubled[p] = x
    if where == 0:
        disc_push(st, p, x)
    else:
        capt_push(st, p, x)
        count(tb, st, p, EV_CAPTURED, x)
    emit(st, E_STEAL, p, c, x, choice, where, 0, 0)
    return x


@njit(cache=True)
def theft(tb, st, order):
    """Theft and Capture phases (FR-9..FR-11)."""
    P = tb.params[P_PLAYERS]
    n = steal_order(tb, st, order)
    for i in range(n):
        p = order[i]
        choice = pol.choose_steal(tb, st, p)
        if choice != -2:
            x = steal(tb, st, p, choice)
            if x >= 0:
                st.g[G_LAST] = p
        c = st.thief[p]
        if c >= 0:  # FR-11: every revealed thief is captured
            capt_push(st, p, c)
            count(tb, st, p, EV_CAPTURED, c)
            emit(st, E_CAPTURED, p, c, 0, 0, 0, 0, 0)
            if c == 6 and tb.capture_on[6] == 1:
                rescue(tb, st, p, 6)
    for slot in range(P):  # unclaimed relics go under the relic deck
        x = st.centre[slot]
        if x >= 0:
            rd_push_bottom(st, x, slot_knowers(st, slot))
            st.centre[slot] = -1
            emit(st, E_UNCLAIMED, slot, x, 0, 0, 0, 0, 0)


@njit(cache=True)
def epilogue(tb, st):
    """FR-12: the last stealer becomes first player; hands are discarded; next Clock."""
    P = tb.params[P_PLAYERS]
    st.g[G_FIRST] = st.g[G_LAST]
    for p in range(P):
        for i in range(st.hand_n[p]):
            disc_push(st, p, st.hand[p, i])
        st.hand_n[p] = 0
        st.thief[p] = -1
    st.g[G_ROUND] += 1
    emit(st, E_EPILOGUE, st.g[G_ROUND], st.g[G_FIRST], 0, 0, 0, 0, 0)


@njit(cache=True)
def play_round(tb, st, moves, order):
    st.g[G_LAST] = st.g[G_FIRST]  # if nobody steals, the first player stays
    prelude(tb, st)
    mission(tb, st, moves)
    theft(tb, st, order)
    epilogue(tb, st)


# ---------------------------------------------------------------- scoring (FR-13, FR-14)


@njit(cache=True)
def _score_pile(tb, st, p, pile, n, captured, sb, gems, cursed):
    for i in range(n):
        c = pile[i]
        if c < N_RAVENS:
            continue
        t = tb.inst_type[c - N_RAVENS]
        kind = tb.type_kind[t]
        if kind == K_CHEST:
            v = tb.type_value[t]
            if captured and st.doubled[p] == c:
                v *= tb.params[P_SIX_MULT]
            sb[SB_CHESTS] += v
        elif kind == K_GEM:
            gems[0] += 1
        elif kind == K_HOLLOW:
            sb[SB_HOLLOWS] += tb.params[P_HOLLOW_CAPT] if captured else tb.params[P_HOLLOW]
        elif kind == K_CURSED and captured:
            cursed[t] += 1


@njit(cache=True)
def score_breakdown(tb, st, p, sb, cursed):
    """Fill ``sb`` (int32[7], SB_*) with seat ``p``'s final score by FR-13."""
    sb[:] = 0
    cursed[:] = 0
    gems = np.zeros(1, np.int32)
    _score_pile(tb, st, p, st.deck[p], st.deck_n[p], False, sb, gems, cursed)
    _score_pile(tb, st, p, st.disc[p], st.disc_n[p], False, sb, gems, cursed)
    _score_pile(tb, st, p, st.hand[p], st.hand_n[p], False, sb, gems, cursed)
    _score_pile(tb, st, p, st.capt[p], st.capt_n[p], True, sb, gems, cursed)
    k = tb.gem_table.shape[0] - 1
    sb[SB_GEMS] = tb.gem_table[min(gems[0], k)]
    for t in range(cursed.shape[0]):
        if cursed[t] >= tb.params[P_CURSED_SET]:
            sb[SB_CURSED] += tb.params[P_CURSED_BONUS]
    if tb.capture_on[3] and has_captured(st, p, 3):
        if captured_relics(st, p) >= tb.params[P_FOUR_MIN]:
            sb[SB_FOUR] = tb.params[P_FOUR_BONUS]
    if tb.capture_on[7] and has_captured(st, p, 7):
        sb[SB_PENALTY] -= tb.params[P_EIGHT_PEN]
    if tb.capture_on[8] and has_captured(st, p, 8):
        sb[SB_PENALTY] -= tb.params[P_NINE_PEN]
    sb[SB_TOTAL] = (
        sb[SB_CHESTS] + sb[SB_GEMS] + sb[SB_HOLLOWS] + sb[SB_CURSED] + sb[SB_FOUR] + sb[SB_PENALTY]
    )
    return sb[SB_TOTAL]


@njit(cache=True)
def rank_seats(score, capt_n, rank):
    """FR-14: rank 1 is best; higher score, then fewer captured cards; full ties share a rank."""
    P = score.shape[0]
    for p in range(P):
        r = 1
        for q in range(P):
            if score[q] > score[p] or (score[q] == score[p] and capt_n[q] < capt_n[p]):
                r += 1
        rank[p] = r


@njit(cache=True)
def play_game(tb, st, seed, game, moves, order, score, rank, sb, cursed):
    """Play one whole game into ``st``; fills ``score`` and ``rank`` (int32[P])."""
    P = tb.params[P_PLAYERS]
    setup(tb, st, seed, game)
    for _ in range(tb.params[P_ROUNDS]):
        play_round(tb, st, moves, order)
    for p in range(P):
        score[p] = score_breakdown(tb, st, p, sb, cursed)
        emit(st, E_SCORE, p, sb[0], sb[1], sb[2], sb[3], sb[4], sb[5])
    rank_seats(score, st.capt_n, rank)


@njit(cache=True, parallel=True)
def play_batch(tb, seed, first_game, n_games, out_score, out_rank, out_turns, out_order,
               out_capt, out_tele):
    """Play games [first_game, first_game + n_games) into row i of the output arrays."""
    P = tb.params[P_PLAYERS]
    n_blocks = (n_games + BLOCK - 1) // BLOCK
    ncol = tb.tele_event.shape[0]
    script = np.zeros(0, np.int32)
    for b in prange(n_blocks):
        st = alloc_state(tb, 0, script)
        cap = st.deck.shape[1]
        moves = np.zeros((2 * cap + 2, 2), np.int32)
        order = np.zeros(P, np.int32)
        score = np.zeros(P, np.int32)
        rank = np.zeros(P, np.int32)
        sb = np.zeros(7, np.int32)
        cursed = np.zeros(tb.params[P_N_TYPES], np.int32)
        lo = b * BLOCK
        hi = min(n_games, lo + BLOCK)
        for i in range(lo, hi):
            play_game(tb, st, seed, first_game + i, moves, order, score, rank, sb, cursed)
            out_turns[i] = st.g[G_TURNS]
            start = st.g[G_START]
            for p in range(P):
                out_score[i, p] = score[p]
                out_rank[i, p] = rank[p]
                out_order[i, p] = (p - start + P) % P
                out_capt[i, p] = st.capt_n[p]
                for j in range(ncol):
                    v = st.tele[p, tb.tele_event[j], tb.tele_card[j]]
                    out_tele[i, p, j] = 255 if v > 255 else v


def play(compiled: Compiled, seed: int, first_game: int, n_games: int) -> Chunk:
    """Play a chunk of games; the Python layer of the batch kernel (checks, allocation)."""
    if n_games < 0 or first_game < 0:
        raise ValueError("first_game and n_games must be >= 0")
    if not 0 <= seed < 2**63:
        raise ValueError(f"seed must be in [0, 2**63), got {seed}")
    tb = compiled.k
    P = int(tb.params[P_PLAYERS])
    ncol = tb.tele_event.shape[0]
    score = np.zeros((n_games, P), np.int32)
    rank = np.zeros((n_games, P), np.int32)
    turns = np.zeros(n_games, np.int32)
    order = np.zeros((n_games, P), np.int32)
    capt = np.zeros((n_games, P), np.int32)
    tele = np.zeros((n_games, P, ncol), np.uint8)
    play_batch(tb, np.int64(seed), np.int64(first_game), np.int64(n_games), score, rank, turns,
               order, capt, tele)
    return Chunk(
        first_game=first_game,
        score=score,
        rank=rank,
        turns=turns,
        end_reason=np.zeros(n_games, np.int32),
        order=order,
        telemetry=tele,
        extra={"captured": capt},
    )
