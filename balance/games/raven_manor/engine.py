"""Raven Manor rule engine: numba kernels over the arrays of ``state.State``.

One game: characters dealt and the opening (RM-2, RM-3), then turns (RM-4) of one action, the
end-of-turn exchange and the draw or discard to 4, until a side wins (RM-10, RM-22) or the turn
cap makes it a draw. Every decision is asked of ``policies``; this module applies it through the
rules' own conditions.

Compile time (``benchmarks/compile_time.py raven_manor``): numba finalises every compiled
function with all the functions it calls linked in and optimised again, so each level of the call
tree above the rules costs a pass over nearly the whole engine. The thin levels under
``play_game`` (``play_turn``, ``do_action``, ``resolve_deaths``, ``end_exchange``) are therefore
``inline="always"``: their few blocks are copied into their one caller and they are never
finalised on their own. ``play_game`` itself is not: inlined into the ``prange`` body of
``play_batch`` it played other games than when called alone (numba's IR inlining inside a
parfor). Every integer argument is int64, never a literal constant (``np.int64(pol.K_PLAY)`` at
call sites), because numba compiles a function again for each literal value it is called with.

Readings of the engine where the rulebook and RULINGS are silent (cited in tests as ENGINE-n;
docs/rules/raven_manor.md lists them for designers):

- ENGINE-1 A stunned player's skipped turn is the whole turn: no action, no exchange, no draw;
  the card that stunned them is then discarded. The Forest's consenting player skips the same
  way. A skipped turn counts as a turn (``turns``, the turn cap).
- ENGINE-2 ``score`` is 1 for a seat alive at the end, else 0; ``rank`` is 1 for every seat of
  the winning side (dead or alive), 2 for the others; a capped game gives rank 1 to every seat of
  a side still in the game (the Family and each evil side whose character lives), RM-10, RM-22.
- ENGINE-3 ``team`` is the side a seat ends on; an evil character that died keeps its own side
  (it joins the Family in play, but does not win with it: RM-22) and always loses.
- ENGINE-4 "Cannot be killed (stunned) this turn" (Evade, Dodge, Lifebuoy) lasts to the end of
  the turn in which it was played.
- ENGINE-5 A window (RM-19) asks each responder once per level; after a reaction's own window
  closes and it resolves, the window below goes on with the next responder. A reaction is offered
  only while what it answers is still pending (no second Evade for a kill already evaded).
- ENGINE-6 Rat Treachery ends the active player's turn once the window it was played in has
  resolved (the rest of the stack still resolves); the turn's exchange is lost (RM-20).
- ENGINE-7 Death abilities wait in a queue and resolve in the order of the deaths, each before
  the turn goes on (RM-21); a death ability's kill or stun is answered like any other (Evade,
  Dodge, Lifebuoy, Shark Bouncer), but Rod and Rat Treachery answer only cards played from hand
  (RM-19), so they cannot cancel a death ability or a card a death ability plays.
- ENGINE-8 A revealed Pillow goes to the discard pile. Only a living giver may reveal it (RM-14).
- ENGINE-9 A Feather taken at random (Cave) or in a hand exchange (Crayfish Docker) possesses its
  new holder for the Raven (the Headless Horseman if the Raven is dead), RM-6; a possessed player
  left with no Feather is no longer possessed (the FAQ: "the person with the Feather in their hand
  at the end of the interaction is possessed"), in the same step: the end is judged once the
  effect is over (RM-6).
- ENGINE-10 Playing a Location from hand puts it into play and uses it at once, as a Room
  (RM-19: "a Room or Location entering play"). A Location in play can be used by anyone.
- ENGINE-11 Stunned players cannot be chosen for an exchange (Exchange, Dining Room, The Inn:
  "you can't be forced to trade"), but can be swapped, looked at and stunned again (the second
  stunning card is discarded). The Forest's victim is the next player in turn order.
- ENGINE-12 An exchange where one side has no card it may give is impossible: that side shows its
  hand to the other (RM-29); a possessed player's Feathers are not cards it may give (RM-6).
- ENGINE-13 Lady Whale swapping with a living player: she lives again with that player's card
  (known to both; everyone else knows only what they knew of that card), the other player is the
  dead Lady Whale (cause ``whale``). Sides follow the cards (RM-15).
- ENGINE-14 A hand cannot always end at 4 (RM-4): with the deck and the discard pile empty it stays
  short, and a possessed player's Feathers cannot be discarded, so a hand of Feathers may stay
  larger.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from balance.games import _kit as kit
from balance.games.base import Chunk
from balance.games.raven_manor import policies as pol
from balance.games.raven_manor import state as S
from balance.games.raven_manor import tables as T
from balance.rng import below, seed_stream

# Window effects (what a card does to its target, for the answers that fit: RM-19).
EF_KILL, EF_STUN, EF_XCHG, EF_SWAP = 1, 2, 4, 8
CANCELLED, AVOIDED = 1, 2


# ---------------------------------------------------------------------------------------------
# The deck


@njit(cache=True, _nrt=False, forceinline=False)
def reshuffle(st):
    """The discard pile becomes the deck, shuffled (rulebook, Turn Order)."""
    n = st.board[S.G_DECK_N]
    for c in range(T.NC):
        k = st.board[S.B_DISC + c]
        for _ in range(k):
            st.deck[n] = c
            n += 1
        st.board[S.B_DISC + c] = 0
    st.board[S.G_DISC_N] = 0
    st.board[S.G_DECK_N] = n
    st.board[S.G_GEN] += 1
    kit.shuffle(st.deck, n, st.rng[1])


@njit(cache=True, _nrt=False, forceinline=False)
def pop_deck(st):
    """The top card of the deck (reshuffling the discard pile when the deck is empty), -1 none."""
    if st.board[S.G_DECK_N] == 0:
        reshuffle(st)
        if st.board[S.G_DECK_N] == 0:
            return -1
    n = st.board[S.G_DECK_N] - 1
    st.board[S.G_DECK_N] = n
    return np.int64(st.deck[n])


@njit(cache=True, _nrt=False, forceinline=False)
def take_from_deck(st, c):
    """Remove one card ``c`` from the deck (True if there was one)."""
    n = st.board[S.G_DECK_N]
    for i in range(n):
        if st.deck[i] == c:
            st.deck[i] = st.deck[n - 1]
            st.board[S.G_DECK_N] = n - 1
            return True
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def find_card(st, p, c, discard_too):
    """RM-9, RM-23: search the deck (then the discard pile if the card says so) for ``c``,
    revealed; the deck is shuffled. True if found (the card is then in nobody's place: the
    caller puts it somewhere)."""
    found = take_from_deck(st, c)
    if not found:
        st.board[S.B_MISS + c] = st.board[S.G_GEN] + 1
    where = 0
    if not found and discard_too and st.board[S.B_DISC + c] > 0:
        st.board[S.B_DISC + c] -= 1
        st.board[S.G_DISC_N] -= 1
        found = True
        where = 1
    kit.shuffle(st.deck, st.board[S.G_DECK_N], st.rng[1])
    S.emit(st, S.E_SEARCH, p, c, 1 if found else 0, where, 0, 0, 0)
    return found


@njit(cache=True, _nrt=False, forceinline=False)
def to_hand_public(st, p, c):
    """A revealed card into ``p``'s hand; RM-26: a Feather goes to the discard pile instead unless
    ``p`` is a possessor."""
    if c == T.FEATHER and st.pl[p, S.PL_CHAR] != T.RAVEN:
        S.discard_card(st, c)
        st.pl[p, S.PL_FEATHER_DISC] += 1
        S.emit(st, S.E_FEATHER, p, 0, 0, 0, 0, 0, 0)
    else:
        S.add_hand(st, p, c)


@njit(cache=True, _nrt=False, forceinline=False)
def search_to_hand(st, p, c, discard_too):
    if find_card(st, p, c, discard_too):
        to_hand_public(st, p, c)
        return True
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def draw_card(tb, st, p, pick):
    """``p`` draws a card (RM-25: or takes one from its Backpack; RM-6: a non-possessor discards a
    drawn Feather and draws again; a possessor may, to bluff). Returns the card, -1 none."""
    for _ in range(st.deck.shape[0] + 2):
        if st.pl[p, S.PL_BP_N] > 0:
            k = np.int64(0)
            for c in range(T.NC):
                if st.pl[p, S.PL_BP + c] > 0:
                    pick[k] = c
                    k += 1
            i = pol.choose_pick(tb, st, p, pick, k, np.int64(pol.PK_TAKE))
            if i >= 0:
                c = pick[i]
                st.pl[p, S.PL_BP + c] -= 1
                st.pl[p, S.PL_BP_N] -= 1
                S.add_hand(st, p, c)
                S.emit(st, S.E_BACKPACK, p, c, 0, 0, 0, 0, 0)
                return c
        c = pop_deck(st)
        if c < 0:
            return -1
        S.tele(st, p, T.TE_DRAWN + c, 1)
        if c == T.FEATHER:
            if st.pl[p, S.PL_CHAR] != T.RAVEN:  # RM-6: the Horseman uses only Feathers received
                S.discard_card(st, c)
                st.pl[p, S.PL_FEATHER_DISC] += 1
                S.emit(st, S.E_FEATHER, p, 0, 0, 0, 0, 0, 0)
                continue
            if pol.choose_yes(tb, st, p, np.int64(-1), np.int64(pol.Y_BLUFF)):
                S.discard_card(st, c)
                st.pl[p, S.PL_FEATHER_DISC] += 1
                S.emit(st, S.E_FEATHER, p, 1, 0, 0, 0, 0, 0)
                continue
        S.add_hand(st, p, c)
        S.emit(st, S.E_DRAW, p, c, 0, 0, 0, 0, 0)
        return c
    return -1


@njit(cache=True, _nrt=False, forceinline=False)
def discard_from_hand(st, p, c, why):
    S.take_hand(st, p, c)
    S.discard_card(st, c)
    S.emit(st, S.E_DISCARD, p, c, why, 0, 0, 0, 0)


@njit(cache=True, _nrt=False, forceinline=False)
def refill(tb, st, p, pick):
    """RM-4 (3): draw or discard to exactly the hand size (ENGINE-14)."""
    h = tb.params[T.P_HAND]
    while S.hand_n(st, p) < h:
        if draw_card(tb, st, p, pick) < 0:
            break
    while S.hand_n(st, p) > h and S.free_cards(st, p) > 0:
        discard_from_hand(st, p, pol.choose_discard(tb, st, p), np.int64(0))


# ---------------------------------------------------------------------------------------------
# Setup and the opening


@njit(cache=True, _nrt=False, forceinline=False)
def setup(tb, st, seed, game, pick):
    """RM-2, RM-3: reset ``st`` to the start of game ``game`` of run ``seed``."""
    for s in range(st.rng.shape[0]):
        seed_stream(st.rng[s], seed, game, s)
    cap = st.board[S.G_LOG_CAP]
    st.board[:] = 0
    st.board[S.G_LOG_CAP] = cap
    st.board[S.G_NEXT] = -1
    st.pl[:, :] = 0
    st.kn[:, :, :] = 0
    st.kn[:, :, S.KN_CHAR] = -1
    n = tb.params[T.P_PLAYERS]
    st.board[S.G_N] = n
    # RM-2: the always-dealt characters, then the rest drawn from the pool, all from stream 0 so
    # that configs with the same pool deal the same characters (common random numbers).
    n_pool = tb.params[T.P_POOL_N]
    n_always = tb.params[T.P_ALWAYS_N]
    for i in range(n_pool):
        pick[i] = tb.params[T.P_POOL + i]
    for i in range(n_always, n):  # a partial Fisher-Yates over the optional characters
        j = i + below(st.rng[0], n_pool - i)
        t = pick[i]
        pick[i] = pick[j]
        pick[j] = t
    kit.shuffle(pick, n, st.rng[0])
    first = below(st.rng[0], n)
    st.board[S.G_FIRST] = first
    for p in range(n):
        ch = pick[p]
        st.pl[p, S.PL_CHAR] = ch
        st.pl[p, S.PL_DEALT] = ch
        st.pl[p, S.PL_ALIVE] = 1
        st.pl[p, S.PL_SIDE] = S.own_side(ch)
        st.pl[p, S.PL_POSSESSED] = -1
        st.pl[p, S.PL_POSS_TURN] = -1
        st.pl[p, S.PL_DEATH_TURN] = -1
        st.pl[p, S.PL_STUN_CARD] = -1
        st.pl[p, S.PL_POS] = p
        st.board[S.B_RING + p] = p
        st.kn[p, p, S.KN_CHAR] = ch
        S.emit(st, S.E_DEAL, p, ch, p, 0, 0, 0, 0)
    k = np.int64(0)
    for c in range(T.NC):
        for _ in range(tb.params[T.P_COUNT + c]):
            st.deck[k] = c
            k += 1
    st.board[S.G_DECK_N] = k
    kit.shuffle(st.deck, k, st.rng[1])
    S.emit(st, S.E_START, n, first, k, 0, 0, 0, 0)
    opening(tb, st, pick)


@njit(cache=True, _nrt=False, forceinline=False)
def deal_open(tb, st, p):
    for _ in range(tb.params[T.P_OPEN_HAND]):
        c = pop_deck(st)
        if c < 0:
            return
        S.tele(st, p, T.TE_DRAWN + c, 1)
        S.add_hand(st, p, c)


@njit(cache=True, _nrt=False, forceinline=False)
def fix_feathers(tb, st, p):
    """RM-3: a non-Raven discards every Feather and draws again until none is left; the Raven
    may discard its Feathers too (RM-18: the bluff). Returns the Feathers discarded."""
    k = np.int64(0)
    for _ in range(st.deck.shape[0] + 2):
        if st.pl[p, S.PL_HAND + T.FEATHER] == 0:
            break
        if st.pl[p, S.PL_CHAR] == T.RAVEN:
            if not pol.choose_yes(tb, st, p, np.int64(-1), np.int64(pol.Y_BLUFF)):
                break
        elif tb.params[T.P_FEATHER_REDRAW] == 0:
            break
        S.take_hand(st, p, T.FEATHER)
        S.discard_card(st, T.FEATHER)
        st.pl[p, S.PL_FEATHER_DISC] += 1
        k += 1
        c = pop_deck(st)
        if c < 0:
            break
        S.tele(st, p, T.TE_DRAWN + c, 1)
        S.add_hand(st, p, c)
    return k


@njit(cache=True, _nrt=False, forceinline=False)
def opening(tb, st, pick):
    """RM-3: deal, Feathers redrawn, one mulligan each, then the discards go back in the deck."""
    n = S.n_players(st)
    first = st.board[S.G_FIRST]
    for i in range(n):
        deal_open(tb, st, S.seat_at(st, first + i))
    for i in range(n):
        p = S.seat_at(st, first + i)
        k = fix_feathers(tb, st, p)
        m = np.int64(0)
        for _ in range(tb.params[T.P_MULLIGANS]):
            if not pol.choose_yes(tb, st, p, np.int64(-1), np.int64(pol.Y_MULLIGAN)):
                break
            for c in range(T.NC):
                while st.pl[p, S.PL_HAND + c] > 0:
                    S.take_hand(st, p, c)
                    S.discard_card(st, c)
            deal_open(tb, st, p)
            k += fix_feathers(tb, st, p)
            m += 1
        S.emit(st, S.E_OPEN, p, k, m, 0, 0, 0, 0)
    reshuffle(st)


# ---------------------------------------------------------------------------------------------
# Response windows (RM-19)


@njit(cache=True, _nrt=False, forceinline=False)
def is_action_card(c):
    return T.EXCHANGE <= c < T.REACT0


@njit(cache=True, _nrt=False, forceinline=False)
def fitting(st, r, lvl, stack, from_hand, eff, t, opts):
    """The reactions of ``r``'s hand that fit the top of the window stack (RM-7, RM-19)."""
    if st.pl[r, S.PL_STUNNED] != 0:
        return 0
    n = np.int64(0)
    turn1 = st.board[S.G_TURN] + 1
    if lvl == 0:
        card = stack[0, 0]
        # RM-28: the target's Evade against Mountains is its own duel (mountains_duel)
        if card != T.MOUNTAINS and eff & EF_KILL and t == r and S.alive(st, r):
            if st.pl[r, S.PL_SAFE_KILL] != turn1 and S.has(st, r, T.EVADE):
                opts[n] = T.EVADE
                n += 1
        if eff & EF_STUN and t == r and st.pl[r, S.PL_SAFE_STUN] != turn1:
            if S.has(st, r, T.DODGE):
                opts[n] = T.DODGE
                n += 1
        if eff & (EF_XCHG | EF_SWAP) and t == r and stack[0, 3] & AVOIDED == 0:
            if S.has(st, r, T.AVOID):
                opts[n] = T.AVOID
                n += 1
        if t >= 0 and t != r and S.has(st, r, T.LIFEBUOY):
            k = eff & EF_KILL and S.alive(st, t) and st.pl[t, S.PL_SAFE_KILL] != turn1
            s = eff & EF_STUN and st.pl[t, S.PL_SAFE_STUN] != turn1
            if k or s:
                opts[n] = T.LIFEBUOY
                n += 1
        if from_hand and card >= 0:
            if is_action_card(card) and S.has(st, r, T.ROD):
                opts[n] = T.ROD
                n += 1
            if S.has(st, r, T.RAT_TREACHERY):
                opts[n] = T.RAT_TREACHERY
                n += 1
    else:
        if S.has(st, r, T.ROD):
            opts[n] = T.ROD
            n += 1
        if S.has(st, r, T.RAT_TREACHERY):
            opts[n] = T.RAT_TREACHERY
            n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def window(tb, st, a, card, from_hand, eff, t, stack, opts):
    """RM-19: the window of ``card`` (-1: a death ability's effect) played by ``a`` at ``t``.
    Returns CANCELLED | AVOIDED bits; Evade, Dodge and Lifebuoy leave their mark on the players
    they protect (PL_SAFE_*, ENGINE-4)."""
    n = S.n_players(st)
    k = np.int64(0)
    if t >= 0:
        st.board[S.B_RESP] = t
        k = 1
    for i in range(n):
        q = S.seat_at(st, st.pl[a, S.PL_POS] + i)
        if q != t:
            st.board[S.B_RESP + k] = q
            k += 1
    stack[0, 0] = card
    stack[0, 1] = a
    stack[0, 2] = 0
    stack[0, 3] = 0
    stack[0, 4] = t
    turn1 = st.board[S.G_TURN] + 1
    lvl = np.int64(0)
    while True:
        played = False
        while stack[lvl, 2] < k:
            r = st.board[S.B_RESP + stack[lvl, 2]]
            stack[lvl, 2] += 1
            if lvl > 0 and r == stack[lvl, 1]:
                continue
            n_opts = fitting(st, r, lvl, stack, from_hand, eff, t, opts)
            if n_opts == 0:
                continue
            protects = t if lvl == 0 else stack[lvl, 4]
            c = pol.choose_reaction(tb, st, r, opts, n_opts, stack, lvl, protects)
            if c < 0 or lvl + 1 >= S.MAX_STACK:
                continue
            S.take_hand(st, r, c)
            S.tele(st, r, T.TE_PLAYED + c, 1)
            S.emit(st, S.E_REACT, r, c, lvl, stack[lvl, 0], stack[lvl, 1], 0, 0)
            lvl += 1
            stack[lvl, 0] = c
            stack[lvl, 1] = r
            stack[lvl, 2] = 0
            stack[lvl, 3] = 0
            if c == T.EVADE or c == T.DODGE or c == T.AVOID:
                stack[lvl, 4] = r
            elif c == T.LIFEBUOY:
                stack[lvl, 4] = t
            else:
                stack[lvl, 4] = stack[lvl - 1, 1]
            played = True
            break
        if played:
            continue
        if lvl == 0:
            break
        c = stack[lvl, 0]
        r = stack[lvl, 1]
        tgt = stack[lvl, 4]
        S.discard_card(st, c)
        lvl -= 1
        if c == T.ROD or c == T.RAT_TREACHERY:
            stack[lvl, 3] |= CANCELLED
            S.emit(st, S.E_CANCEL, stack[lvl, 1], stack[lvl, 0], c, 0, 0, 0, 0)
            if c == T.RAT_TREACHERY:  # RM-7, RM-20, ENGINE-6
                st.board[S.G_OVER] = 1
                st.board[S.G_NEXT] = r
        elif c == T.EVADE:
            st.pl[r, S.PL_SAFE_KILL] = turn1
        elif c == T.DODGE:
            st.pl[r, S.PL_SAFE_STUN] = turn1
        elif c == T.AVOID:
            stack[0, 3] |= AVOIDED
        elif c == T.LIFEBUOY:
            st.pl[tgt, S.PL_SAFE_KILL] = turn1
            st.pl[tgt, S.PL_SAFE_STUN] = turn1
        while lvl > 0 and stack[lvl, 3] & CANCELLED:  # a cancelled reaction has no effect
            S.discard_card(st, stack[lvl, 0])
            lvl -= 1
        if lvl == 0 and stack[0, 3] & CANCELLED:
            break
    return stack[0, 3]


# ---------------------------------------------------------------------------------------------
# Deaths, sides and the end (RM-5, RM-10, RM-21, RM-22)


@njit(cache=True, _nrt=False, forceinline=False)
def check_end(st):
    """RM-22: set G_END when a side has won (simultaneous ends go to the Family)."""
    if st.board[S.G_END] != 0 or st.board[S.G_HOLD] != 0:
        return
    n = S.n_players(st)
    evil_alive = 0
    living = 0
    last = -1
    for p in range(n):
        if S.alive(st, p):
            living += 1
            last = p
            if S.evil(st.pl[p, S.PL_CHAR]):
                evil_alive += 1
    if evil_alive == 0:
        st.board[S.G_END] = S.END_FAMILY
        return
    if living == 1 and st.pl[last, S.PL_CHAR] == T.CTHULHU:
        st.board[S.G_END] = S.END_CTHULHU
        return
    for x in range(n):
        ch = st.pl[x, S.PL_CHAR]
        if not (S.alive(st, x) and S.possessor(ch)):
            continue
        side = S.own_side(ch)
        won = True
        for q in range(n):
            if q == x or not S.alive(st, q):
                continue
            if st.pl[q, S.PL_SIDE] != side or S.immune(st.pl[q, S.PL_CHAR]):
                won = False
                break
        if won:
            st.board[S.G_END] = S.END_RAVEN if side == T.S_RAVEN else S.END_HORSEMAN
            return


@njit(cache=True, _nrt=False, forceinline=False)
def possess(st, b, side, giver):
    """RM-6: ``b`` now serves ``side``; it knows who possessed it (RM-11)."""
    st.pl[b, S.PL_POSSESSED] = side
    st.pl[b, S.PL_SIDE] = side
    if st.pl[b, S.PL_POSS_TURN] < 0:
        st.pl[b, S.PL_POSS_TURN] = st.board[S.G_TURN]
    if giver >= 0:
        st.kn[b, giver, S.KN_CHAR] = st.pl[giver, S.PL_CHAR]
    S.emit(st, S.E_POSSESS, b, side, giver, 0, 0, 0, 0)
    check_end(st)


@njit(cache=True, _nrt=False, forceinline=False)
def random_feather_moved(st, a, b):
    """ENGINE-9, RM-6: after a random move of cards from ``a`` to ``b`` (Cave, a hand exchange),
    ``b`` holding a Feather is possessed and ``a`` left with none is freed. The caller holds the
    end (``random_move_begin`` .. ``random_move_end``): the possession's own check would see ``a``
    still possessed."""
    if st.pl[b, S.PL_HAND + T.FEATHER] > 0 and S.alive(st, b) and not S.immune(st.pl[b, S.PL_CHAR]):
        side = -1
        if S.living_possessor(st, np.int64(T.S_RAVEN)) >= 0:
            side = T.S_RAVEN
        elif S.living_possessor(st, np.int64(T.S_HORSEMAN)) >= 0:
            side = T.S_HORSEMAN
        if side >= 0 and st.pl[b, S.PL_POSSESSED] != side:
            possess(st, b, side, np.int64(-1))
    if (
        st.pl[a, S.PL_POSSESSED] >= 0
        and st.pl[a, S.PL_HAND + T.FEATHER] == 0
        and not S.immune(st.pl[a, S.PL_CHAR])
    ):
        st.pl[a, S.PL_POSSESSED] = -1
        st.pl[a, S.PL_SIDE] = T.FAMILY
        S.emit(st, S.E_FREED, a, 0, 0, 0, 0, 0, 0)


@njit(cache=True, _nrt=False, forceinline=False)
def random_move_begin(st):
    """RM-6: a random effect that may move Feathers starts; the end waits until it is over (the
    holder "at the end of the interaction" is possessed, the one who lost it freed first).
    Returns the hold to restore."""
    hold = st.board[S.G_HOLD]
    st.board[S.G_HOLD] = 1
    return hold


@njit(cache=True, _nrt=False, forceinline=False)
def random_move_end(st, hold):
    """RM-6: the random effect is over; victory is checked now, unless death abilities are still
    queued (they resolve first, RM-5, RM-21; ``resolve_deaths`` checks after them)."""
    st.board[S.G_HOLD] = hold
    if hold == 0 and st.board[S.G_DEPTH] == st.board[S.G_DEATHS_N]:
        check_end(st)


@njit(cache=True, _nrt=False, forceinline=False)
def has_death_ability(ch):
    return (
        ch == T.ANGLER
        or ch == T.BOAR
        or ch == T.BUNNY
        or ch == T.PIKE
        or ch == T.CATFISH
        or ch == T.CRAYFISH
        or ch == T.DOC
        or ch == T.EEL
        or ch == T.GROGUS
        or ch == T.WHALE
        or ch == T.LUMBEARJACK
        or ch == T.MAYOR
        or ch == T.SQUIRREL
        or ch == T.ALLIGATOR
        or ch == T.WOLF
    )


@njit(cache=True, _nrt=False, forceinline=False)
def die(st, v, cause, killer):
    """RM-5: ``v`` dies: its character is revealed, its death ability queued (ENGINE-7)."""
    if not S.alive(st, v) or st.board[S.G_END] != 0:
        return
    st.pl[v, S.PL_ALIVE] = 0
    st.pl[v, S.PL_DEATH_TURN] = st.board[S.G_TURN]
    st.pl[v, S.PL_CAUSE] = cause
    S.tele(st, v, T.TE_DIED + cause - 1, 1)
    if st.pl[v, S.PL_STUNNED] != 0:  # rulebook FAQ: the stun is removed
        st.pl[v, S.PL_STUNNED] = 0
        if st.pl[v, S.PL_STUN_CARD] >= 0:
            S.discard_card(st, st.pl[v, S.PL_STUN_CARD])
            st.pl[v, S.PL_STUN_CARD] = -1
    S.reveal_char(st, v)
    ch = st.pl[v, S.PL_CHAR]
    S.emit(st, S.E_DEATH, v, ch, cause, killer, st.board[S.G_TURN], 0, 0)
    others = False  # another evil character lives: the game goes on (RM-22)
    for q in range(S.n_players(st)):
        if q != v and S.alive(st, q) and S.evil(st.pl[q, S.PL_CHAR]):
            others = True
    if S.evil(ch) and others:  # RM-22: it joins the Family, its possessed serve the other possessor
        st.pl[v, S.PL_EVIL_LOST] = 1
        side = S.own_side(ch)
        other = -1
        if side == T.S_RAVEN and S.living_possessor(st, np.int64(T.S_HORSEMAN)) >= 0:
            other = T.S_HORSEMAN
        elif side == T.S_HORSEMAN and S.living_possessor(st, np.int64(T.S_RAVEN)) >= 0:
            other = T.S_RAVEN
        for q in range(S.n_players(st)):
            if q != v and st.pl[q, S.PL_POSSESSED] == side:
                if other >= 0:
                    st.pl[q, S.PL_POSSESSED] = other
                    st.pl[q, S.PL_SIDE] = other
                else:
                    st.pl[q, S.PL_POSSESSED] = -1
                    st.pl[q, S.PL_SIDE] = T.FAMILY
                S.emit(st, S.E_SIDE, q, st.pl[q, S.PL_SIDE], 0, 0, 0, 0, 0)
    elif S.evil(ch):
        st.pl[v, S.PL_EVIL_LOST] = 1
    if cause != T.D_EAGLE and has_death_ability(ch):
        i = st.board[S.G_DEATHS_N]
        if i < 2 * T.MAXP:
            st.board[S.B_DEATHS + 2 * i] = v
            st.board[S.B_DEATHS + 2 * i + 1] = ch
            st.board[S.G_DEATHS_N] = i + 1
    if st.board[S.G_DEPTH] == st.board[S.G_DEATHS_N] and st.board[S.G_HOLD] == 0:
        check_end(st)  # else after the death abilities (RM-5, RM-21: they resolve at once)


@njit(cache=True, _nrt=False, forceinline=False)
def kill(tb, st, killer, t, cause):
    """RM-21: a kill of ``t`` resolves (after its window); Shark Bouncer may die in its place."""
    if st.board[S.G_END] != 0:
        return False
    if not S.alive(st, t):
        S.emit(st, S.E_KILL_SAVED, t, 1, 0, 0, 0, 0, 0)
        return False
    if st.pl[t, S.PL_SAFE_KILL] == st.board[S.G_TURN] + 1:
        S.emit(st, S.E_KILL_SAVED, t, 0, 0, 0, 0, 0, 0)
        return False
    victim = t
    if cause != T.D_PILLOW:
        for s in range(S.n_players(st)):
            if s != t and st.pl[s, S.PL_CHAR] == T.SHARK and S.alive(st, s):
                if pol.choose_yes(tb, st, s, t, np.int64(pol.Y_SACRIFICE)):
                    victim = s
                    cause = T.D_SACRIFICE
                    S.emit(st, S.E_SACRIFICE, s, t, 0, 0, 0, 0, 0)
                break
    if killer >= 0:
        st.pl[killer, S.PL_KILLS] += 1
    die(st, victim, cause, killer)
    return True


@njit(cache=True, _nrt=False, forceinline=False)
def stun(st, src, t, card):
    """A stun of ``t`` resolves (after its window). True if ``card`` now lies before ``t``."""
    if st.board[S.G_END] != 0 or st.pl[t, S.PL_SAFE_STUN] == st.board[S.G_TURN] + 1:
        return False
    if src >= 0:
        st.pl[src, S.PL_STUNS] += 1
    S.emit(st, S.E_STUN, t, src, card, 0, 0, 0, 0)
    if st.pl[t, S.PL_STUNNED] != 0:
        return False
    st.pl[t, S.PL_STUNNED] = 1
    if card >= 0:
        st.pl[t, S.PL_STUN_CARD] = card
        return True
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def stun_with(st, src, t, card):
    """A stun by a card: the card lies before ``t`` when it took, else it is discarded."""
    if not stun(st, src, t, card):
        S.discard_card(st, card)


# ---------------------------------------------------------------------------------------------
# Exchanges and swaps


@njit(cache=True, _nrt=False, forceinline=False)
def give_card(st, a, b, c):
    """``a`` passes card ``c`` to ``b`` in an exchange (RM-6, RM-11, RM-16)."""
    S.take_hand(st, a, c)
    S.add_hand(st, b, c)
    S.tele(st, b, T.TE_RECEIVED + c, 1)
    st.kn[a, b, S.KN_GAVE + c] += 1
    st.kn[a, b, S.KN_HAND + c] += 1
    st.kn[b, a, S.KN_RECV + c] += 1
    if c == T.FEATHER:
        st.kn[b, a, S.KN_GAVE_F] = 1
        st.kn[b, a, S.KN_FEATHER] = st.board[S.G_TURN] + 1


@njit(cache=True, _nrt=False, forceinline=False)
def feather_given(st, a, b):
    """RM-6: a Feather from a possessor possesses a living, non-immune receiver."""
    ch = st.pl[a, S.PL_CHAR]
    if S.possessor(ch) and S.alive(st, a) and S.alive(st, b) and not S.immune(st.pl[b, S.PL_CHAR]):
        possess(st, b, S.own_side(ch), a)


@njit(cache=True, _nrt=False, forceinline=False)
def pillow_check(tb, st, giver, receiver):
    """RM-8: the giver of a Pillow may reveal it; the receiver dies (ENGINE-8)."""
    if not S.alive(st, giver) or not S.alive(st, receiver) or st.board[S.G_END] != 0:
        return
    if not S.has(st, receiver, T.PILLOW):
        return
    if pol.choose_yes(tb, st, giver, receiver, np.int64(pol.Y_PILLOW)):
        S.take_hand(st, receiver, T.PILLOW)
        S.discard_card(st, T.PILLOW)
        S.tele(st, giver, T.TE_PLAYED + T.PILLOW, 1)
        S.emit(st, S.E_PILLOW, giver, receiver, 0, 0, 0, 0, 0)
        st.pl[giver, S.PL_KILLS] += 1
        die(st, receiver, np.int64(T.D_PILLOW), giver)


@njit(cache=True, _nrt=False, forceinline=False)
def trade(tb, st, a, b, kind):
    """``a`` and ``b`` exchange one card each (RM-16: chosen before either is seen); ENGINE-12."""
    ca = pol.choose_give(tb, st, a, b) if S.free_cards(st, a) > 0 else -1
    cb = pol.choose_give(tb, st, b, a) if S.free_cards(st, b) > 0 else -1
    if ca < 0 or cb < 0:
        if ca < 0:
            S.show_hand(st, b, a)
            S.emit(st, S.E_SHOW, a, b, S.hand_n(st, a), 0, 0, 0, 0)
        if cb < 0:
            S.show_hand(st, a, b)
            S.emit(st, S.E_SHOW, b, a, S.hand_n(st, b), 0, 0, 0, 0)
        return
    give_card(st, a, b, ca)
    give_card(st, b, a, cb)
    S.emit(st, S.E_XCHG, a, b, ca, cb, kind, 0, 0)
    if ca == T.FEATHER:
        feather_given(st, a, b)
    if cb == T.FEATHER:
        feather_given(st, b, a)
    if ca == T.PILLOW:
        pillow_check(tb, st, a, b)
    if cb == T.PILLOW:
        pillow_check(tb, st, b, a)


@njit(cache=True, _nrt=False, forceinline=False)
def swap_seats(st, a, b):
    """SWAP: ``a`` and ``b`` change places on the ring (RM-12)."""
    pa = st.pl[a, S.PL_POS]
    pb = st.pl[b, S.PL_POS]
    st.pl[a, S.PL_POS] = pb
    st.pl[b, S.PL_POS] = pa
    st.board[S.B_RING + pb] = a
    st.board[S.B_RING + pa] = b
    S.emit(st, S.E_SWAP, a, b, pb, pa, 0, 0, 0)


@njit(cache=True, _nrt=False, forceinline=False)
def swap_hands(st, a, b):
    """Crayfish Docker: the two hands change owners (a random effect for Feathers: ENGINE-9)."""
    for c in range(T.NC):
        x = st.pl[a, S.PL_HAND + c]
        st.pl[a, S.PL_HAND + c] = st.pl[b, S.PL_HAND + c]
        st.pl[b, S.PL_HAND + c] = x
    x = st.pl[a, S.PL_HAND_N]
    st.pl[a, S.PL_HAND_N] = st.pl[b, S.PL_HAND_N]
    st.pl[b, S.PL_HAND_N] = x
    S.show_hand(st, a, a)
    for c in range(T.NC):  # each now knows the other's hand (its own old one)
        st.kn[a, b, S.KN_HAND + c] = st.pl[b, S.PL_HAND + c]
        st.kn[b, a, S.KN_HAND + c] = st.pl[a, S.PL_HAND + c]
    S.emit(st, S.E_XCHG, a, b, -1, -1, 3, 0, 0)
    hold = random_move_begin(st)
    random_feather_moved(st, a, b)
    random_feather_moved(st, b, a)
    random_move_end(st, hold)


@njit(cache=True, _nrt=False, forceinline=False)
def random_take(st, a, t):
    """Cave: a random card of ``t``'s hand goes to ``a`` (Feathers included: RM-26)."""
    n = S.hand_n(st, t)
    if n == 0:
        return
    k = below(st.rng[1], n)
    c = -1
    for x in range(T.NC):
        k -= st.pl[t, S.PL_HAND + x]
        if k < 0:
            c = x
            break
    S.take_hand(st, t, c)
    S.add_hand(st, a, c)
    st.kn[t, a, S.KN_HAND + c] += 1
    S.emit(st, S.E_TAKE, a, t, c, 0, 0, 0, 0)
    hold = random_move_begin(st)
    random_feather_moved(st, t, a)
    random_move_end(st, hold)


@njit(cache=True, _nrt=False, forceinline=False)
def discard_chosen(tb, st, a, t, pick):
    """Drink, Zaku's Camera, Angler Photographer: ``a`` looks at ``t``'s hand and chooses a card
    that is not a Feather (RM-26); ``t`` discards it."""
    S.show_hand(st, a, t)
    k = np.int64(0)
    for c in range(T.NC):
        if c != T.FEATHER and st.pl[t, S.PL_HAND + c] > 0:
            pick[k] = c
            k += 1
    if k == 0:
        return
    i = pol.choose_pick(tb, st, a, pick, k, np.int64(pol.PK_DRINK))
    discard_from_hand(st, t, pick[i], np.int64(2))


@njit(cache=True, _nrt=False, forceinline=False)
def look_char(st, a, t):
    st.kn[a, t, S.KN_CHAR] = st.pl[t, S.PL_CHAR]
    S.emit(st, S.E_LOOK_CHAR, a, t, st.pl[t, S.PL_CHAR], 0, 0, 0, 0)


# ---------------------------------------------------------------------------------------------
# Candidate actions (what the policies choose among)


@njit(cache=True, _nrt=False, inline="always")
def add_cand(st, n, kind, c, t, o):
    if n >= S.MAX_CAND:
        return n
    b = S.B_CAND + 4 * n
    st.board[b] = kind
    st.board[b + 1] = c
    st.board[b + 2] = t
    st.board[b + 3] = o
    return n + 1


@njit(cache=True, _nrt=False, forceinline=False)
def is_place(c):
    return T.ROOM0 <= c < T.ROOM1 or T.LOC0 <= c < T.LOC1


@njit(cache=True, _nrt=False, forceinline=False)
def enum_card(tb, st, p, c, kind, living, n):
    """Append the legal (target, option) uses of card ``c`` by ``p`` (``living``: ``p`` may kill,
    RM-14) as candidates of ``kind``; returns the new count."""
    np_ = S.n_players(st)
    if c == T.AXE or c == T.BROKEN_BOTTLE or c == T.KNIFE or c == T.MOUNTAINS:
        if living:
            for t in range(np_):
                if S.adjacent(st, p, t) and S.alive(st, t):
                    n = add_cand(st, n, kind, c, t, 0)
    elif c == T.RIFLE or c == T.HARPOON:
        if living:
            for t in range(np_):
                if t != p and S.alive(st, t):
                    n = add_cand(st, n, kind, c, t, 0)
    elif c == T.FOREST:
        if living and np_ >= 3:
            nxt = S.left(st, p)
            s = S.left(st, nxt)
            if s != p and nxt != p and S.alive(st, nxt):
                n = add_cand(st, n, kind, c, nxt, 0)
    elif c == T.VASE:
        for t in range(np_):
            if t != p:
                n = add_cand(st, n, kind, c, t, 0)
    elif c == T.HAYMAKER or c == T.BOTTLE:
        for t in range(np_):
            if S.adjacent(st, p, t):
                n = add_cand(st, n, kind, c, t, 0)
    elif c == T.EXCHANGE or c == T.THE_INN:
        if S.free_cards(st, p) > (1 if kind == pol.K_PLAY else 0):  # the card itself is not given
            for t in range(np_):
                if t != p and st.pl[t, S.PL_STUNNED] == 0:
                    n = add_cand(st, n, kind, c, t, 0)
    elif c == T.DINING_ROOM:
        if S.free_cards(st, p) > (1 if kind == pol.K_PLAY else 0):
            for t in range(np_):
                if t != p and st.pl[t, S.PL_STUNNED] == 0:
                    n = add_cand(st, n, kind, c, t, 0)
        for t in range(np_):
            if S.adjacent(st, p, t):
                n = add_cand(st, n, kind, c, t, 1)
    elif c == T.GET_OVER_HERE:
        for t in range(np_):
            if t != p:
                n = add_cand(st, n, kind, c, t, 0)
                n = add_cand(st, n, kind, c, t, 1)
    elif c == T.LIBRARY or c == T.DRINK or c == T.CAVE:
        for t in range(np_):
            if t != p and (c == T.LIBRARY or S.hand_n(st, t) > 0):
                n = add_cand(st, n, kind, c, t, 0)
    elif c == T.ZAKUS_CAMERA:
        for t in range(np_):
            if t != p:
                n = add_cand(st, n, kind, c, t, 0)
                if S.hand_n(st, t) > 0:
                    n = add_cand(st, n, kind, c, t, 1)
    elif c == T.BASEMENT:
        n = add_cand(st, n, kind, c, -1, T.AXE)
        n = add_cand(st, n, kind, c, -1, T.BOTTLE)
        n = add_cand(st, n, kind, c, -1, T.BROKEN_BOTTLE)
    elif c == T.BEDROOM:
        n = add_cand(st, n, kind, c, -1, T.PILLOW)
        n = add_cand(st, n, kind, c, -1, T.CANDLE)
    elif c == T.FATHERS_STUDY:
        n = add_cand(st, n, kind, c, -1, T.RIFLE)
        n = add_cand(st, n, kind, c, -1, T.BOTTLE)
        n = add_cand(st, n, kind, c, -1, T.MANOR_PLAN)
    elif c == T.KITCHEN:
        n = add_cand(st, n, kind, c, -1, T.KNIFE)
        n = add_cand(st, n, kind, c, -1, T.BOTTLE)
    elif c == T.CABIN:
        n = add_cand(st, n, kind, c, -1, T.AXE)
        n = add_cand(st, n, kind, c, -1, T.BOTTLE)
        n = add_cand(st, n, kind, c, -1, T.RIFLE)
    elif c == T.GUESTROOM:
        n = add_cand(st, n, kind, c, -1, 0)
        if S.free_cards(st, p) > (1 if kind == pol.K_PLAY else 0):
            n = add_cand(st, n, kind, c, -1, 1)
    elif c == T.MANOR_PLAN:
        for r in range(T.ROOM0, T.ROOM1):
            n = add_cand(st, n, kind, c, -1, r)
    elif c == T.COMPASS:
        for r in range(T.LOC0, T.LOC1):
            n = add_cand(st, n, kind, c, -1, r)
    elif c == T.TREASURE_MAP:
        for r in range(T.NC):
            n = add_cand(st, n, kind, c, -1, r)
    elif c == T.BARRICADE:
        for r in range(T.ROOM0, T.ROOM1):
            if st.board[S.B_INPLAY + r] - st.board[S.B_BARR + r] > 0:
                n = add_cand(st, n, kind, c, r, 0)
    elif (
        c == T.BATHROOM
        or c == T.CANDLE
        or c == T.TORCH
        or c == T.BACKPACK
        or c == T.ABANDONED_MINE
        or c == T.COAST
    ):
        n = add_cand(st, n, kind, c, -1, 0)
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def enum_actions(tb, st, p):
    """RM-4 (1): every legal action of ``p`` as candidates; returns their count."""
    living = np.int64(st.pl[p, S.PL_ALIVE])
    n = np.int64(0)
    for c in range(T.NC):
        if st.pl[p, S.PL_HAND + c] > 0 and not (T.REACT0 <= c < T.REACT1):
            n = enum_card(tb, st, p, c, np.int64(pol.K_PLAY), living, n)
            if (c == T.AXE or c == T.RIFLE) and n < S.MAX_CAND:  # RM-17: break a Barricade
                for r in range(T.ROOM0, T.ROOM1):
                    if st.board[S.B_BARR + r] > 0:
                        n = add_cand(st, n, pol.K_BREAK, c, r, 0)
    for c in range(T.NC):
        if not is_place(c) or st.board[S.B_INPLAY + c] - st.board[S.B_BARR + c] <= 0:
            continue
        n = enum_card(tb, st, p, c, np.int64(pol.K_USE), living, n)
    if S.free_cards(st, p) >= tb.params[T.P_DISCARD_DRAW]:
        n = add_cand(st, n, pol.K_CYCLE, -1, -1, 0)
    if st.pl[p, S.PL_CHAR] == T.EAGLE and living:  # RM-27
        for r in range(T.LOC0, T.LOC1):
            n = add_cand(st, n, pol.K_EAGLE, -1, -1, r)
    if n == 0:
        n = add_cand(st, n, pol.K_PASS, -1, -1, 0)
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def choose_use(tb, st, p, c, living):
    """A policy's target and option for card ``c`` played by an effect (Manor Plan's Room,
    Compass's Location, Coast's Treasure Map, Groguś); (-2, 0) when it has no legal use."""
    n = enum_card(tb, st, p, c, np.int64(pol.K_FREE), living, np.int64(0))
    if n == 0:
        return -2, 0
    i = pol.choose_action(tb, st, p, n)
    b = S.B_CAND + 4 * i
    return st.board[b + 2], st.board[b + 3]


# ---------------------------------------------------------------------------------------------
# Cards


@njit(cache=True, _nrt=False, forceinline=False)
def card_effects(c, o):
    if c == T.AXE or c == T.RIFLE or c == T.BROKEN_BOTTLE or c == T.KNIFE:
        return EF_KILL
    if c == T.FOREST or c == T.MOUNTAINS:
        return EF_KILL
    if c == T.HARPOON:  # its stun is answered in a window of its own (RM-21)
        return EF_KILL
    if c == T.VASE or c == T.HAYMAKER or c == T.BOTTLE:
        return EF_STUN
    if c == T.EXCHANGE:
        return EF_XCHG
    if c == T.DINING_ROOM:
        return EF_XCHG if o == 0 else EF_SWAP
    if c == T.GET_OVER_HERE:
        return EF_SWAP if o == 0 else 0
    return 0


@njit(cache=True, _nrt=False, forceinline=False)
def mountains_duel(tb, st, a, t, opts, stack):
    """RM-28: the target may Evade; then the attacker may Evade too, and both die."""
    if not S.alive(st, t) or st.board[S.G_END] != 0:
        return
    if st.pl[t, S.PL_SAFE_KILL] == st.board[S.G_TURN] + 1:
        S.emit(st, S.E_KILL_SAVED, t, 0, 0, 0, 0, 0, 0)
        return
    evaded = False
    if st.pl[t, S.PL_STUNNED] == 0 and S.has(st, t, T.EVADE):
        opts[0] = T.EVADE
        stack[1, 0] = T.MOUNTAINS
        stack[1, 1] = a
        stack[1, 4] = t
        if pol.choose_reaction(tb, st, t, opts, np.int64(1), stack, np.int64(1), t) == T.EVADE:
            evaded = True
            st.pl[t, S.PL_SAFE_KILL] = st.board[S.G_TURN] + 1  # ENGINE-4
            S.take_hand(st, t, T.EVADE)
            S.discard_card(st, T.EVADE)
            S.tele(st, t, T.TE_PLAYED + T.EVADE, 1)
            S.emit(st, S.E_REACT, t, T.EVADE, 0, T.MOUNTAINS, a, 0, 0)
    if not evaded:
        kill(tb, st, a, t, np.int64(T.D_MOUNTAINS))
        return
    if (
        st.pl[a, S.PL_STUNNED] == 0
        and S.has(st, a, T.EVADE)
        and pol.choose_yes(tb, st, a, t, np.int64(pol.Y_MOUNTAIN_EVADE))
    ):
        S.take_hand(st, a, T.EVADE)
        S.discard_card(st, T.EVADE)
        S.tele(st, a, T.TE_PLAYED + T.EVADE, 1)
        S.emit(st, S.E_REACT, a, T.EVADE, 0, T.MOUNTAINS, t, 0, 0)
        st.pl[a, S.PL_KILLS] += 1
        st.board[S.G_HOLD] = 1  # both die at once: the end is judged after both (RM-22: the Family)
        die(st, t, np.int64(T.D_MOUNTAINS), a)
        die(st, a, np.int64(T.D_MOUNTAINS), a)
        st.board[S.G_HOLD] = 0
        if st.board[S.G_DEPTH] == st.board[S.G_DEATHS_N]:
            check_end(st)


@njit(cache=True, _nrt=False, forceinline=False)
def reveal_top(st, k, pick):
    """Torch, Abandoned Mine: the top ``k`` cards of the deck, revealed, into ``pick``."""
    n = np.int64(0)
    for _ in range(k):
        c = pop_deck(st)
        if c < 0:
            break
        pick[n] = c
        n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def apply_card(tb, st, a, c, t, o, from_hand, entering, living, stack, opts, pick):
    """Card ``c`` (out of every place already) played by ``a`` at ``t`` with option ``o``: its
    window (RM-19), then its effect. Returns a card the effect plays next (-1 none)."""
    place = is_place(c)
    eff = card_effects(c, o)
    status = window(tb, st, a, c, from_hand, eff, t, stack, opts)
    if place:
        if entering:
            if status & CANCELLED:
                S.discard_card(st, c)  # RM-19: a cancelled Room or Location goes to the discard
                return -1
            st.board[S.B_INPLAY + c] += 1
            S.emit(st, S.E_INPLAY, a, c, 1, 0, 0, 0, 0)
        if status & CANCELLED:
            return -1
        u = c - T.ROOM0 if c < T.ROOM1 else (T.ROOM1 - T.ROOM0) + (c - T.LOC0)
        S.tele(st, a, T.TE_USED + u, 1)
    elif status & CANCELLED:
        S.discard_card(st, c)
        return -1
    avoided = status & AVOIDED
    nxt = -1
    if c == T.BASEMENT or c == T.BEDROOM or c == T.FATHERS_STUDY or c == T.KITCHEN:
        search_to_hand(st, a, o, np.int64(0))
    elif c == T.CABIN:
        search_to_hand(st, a, o, np.int64(1))
    elif c == T.BATHROOM:
        k = np.int64(0)
        while S.free_cards(st, a) > 0:
            d = pol.choose_bathroom(tb, st, a, k)
            if d < 0 or not S.can_part(st, a, d):
                break
            discard_from_hand(st, a, d, np.int64(2))
            k += 1
        for _ in range(k):
            draw_card(tb, st, a, pick)
    elif c == T.DINING_ROOM:
        if not avoided:
            if o == 0:
                trade(tb, st, a, t, np.int64(1))
            else:
                swap_seats(st, a, t)
    elif c == T.GUESTROOM:
        if o == 0:
            search_to_hand(st, a, np.int64(T.PILLOW), np.int64(0))
        elif S.free_cards(st, a) > 0:
            discard_from_hand(st, a, pol.choose_discard(tb, st, a), np.int64(2))
            draw_card(tb, st, a, pick)
    elif c == T.LIBRARY:
        S.show_hand(st, a, t)
        S.emit(st, S.E_SHOW, t, a, S.hand_n(st, t), 0, 0, 0, 0)
    elif c == T.EXCHANGE:
        if not avoided:
            trade(tb, st, a, t, np.int64(1))
    elif c == T.GET_OVER_HERE:
        if o == 1:
            S.show_hand(st, a, t)
            S.emit(st, S.E_SHOW, t, a, S.hand_n(st, t), 0, 0, 0, 0)
        elif not avoided:
            swap_seats(st, a, t)
    elif c == T.VASE or c == T.HAYMAKER:
        stun_with(st, a, t, c)
        return -1
    elif c == T.BOTTLE:
        placed = stun(st, a, t, c)
        search_to_hand(st, a, np.int64(T.BROKEN_BOTTLE), np.int64(0))
        if not placed:
            S.discard_card(st, c)
        return -1
    elif c == T.AXE or c == T.BROKEN_BOTTLE or c == T.KNIFE or c == T.RIFLE:
        kill(tb, st, a, t, np.int64(T.D_KILL))
    elif c == T.HARPOON:  # RM-21: kill, then stun, each answered on its own; Rod or Rat
        kill(tb, st, a, t, np.int64(T.D_KILL))  # Treachery in the first window cancels both
        window(tb, st, a, np.int64(-1), np.int64(0), np.int64(EF_STUN), t, stack, opts)
        stun_with(st, a, t, c)
        return -1
    elif c == T.CANDLE:
        k = np.int64(0)
        for _ in range(tb.params[T.P_CANDLE]):
            x = pop_deck(st)
            if x < 0:
                break
            pick[k] = x
            k += 1
        if k > 0:
            i = pol.choose_pick(tb, st, a, pick, k, np.int64(pol.PK_HAND))
            x = pick[i]
            pick[i] = pick[k - 1]
            k -= 1
            top = -1
            if k > 0:
                j = pol.choose_pick(tb, st, a, pick, k, np.int64(pol.PK_TOP))
                top = pick[j]
                pick[j] = pick[k - 1]
                k -= 1
            # the rest under the deck, then the chosen one on top
            n = st.board[S.G_DECK_N]
            for m in range(n - 1, -1, -1):
                st.deck[m + k] = st.deck[m]
            for m in range(k):
                st.deck[m] = pick[m]
            n += k
            if top >= 0:
                st.deck[n] = top
                n += 1
            st.board[S.G_DECK_N] = n
            if x == T.FEATHER and st.pl[a, S.PL_CHAR] != T.RAVEN:
                S.discard_card(st, x)  # RM-26
                st.pl[a, S.PL_FEATHER_DISC] += 1
                S.emit(st, S.E_FEATHER, a, 0, 0, 0, 0, 0, 0)
            else:
                S.add_hand(st, a, x)
                S.emit(st, S.E_PICK, a, x, T.CANDLE, 0, 0, 0, 0)
    elif c == T.MANOR_PLAN or c == T.COMPASS:
        if find_card(st, a, o, np.int64(0)):
            nxt = o
    elif c == T.BACKPACK:
        st.pl[a, S.PL_BACKPACKS] += 1
        for _ in range(tb.params[T.P_BACKPACK]):
            k = np.int64(0)
            for x in range(T.NC):
                if S.can_part(st, a, x):
                    pick[k] = x
                    k += 1
            if k == 0:
                break
            i = pol.choose_pick(tb, st, a, pick, k, np.int64(pol.PK_STORE))
            if i < 0:
                break
            x = pick[i]
            S.take_hand(st, a, x)
            st.pl[a, S.PL_BP + x] += 1
            st.pl[a, S.PL_BP_N] += 1
            S.emit(st, S.E_BACKPACK, a, x, 1, 0, 0, 0, 0)
        return -1
    elif c == T.BARRICADE:
        st.board[S.B_BARR + t] += 1
        S.emit(st, S.E_BARRICADE, a, t, 1, 0, 0, 0, 0)
        return -1
    elif c == T.DRINK:
        discard_chosen(tb, st, a, t, pick)
    elif c == T.TORCH or c == T.ABANDONED_MINE:
        k = reveal_top(st, tb.params[T.P_TORCH if c == T.TORCH else T.P_MINE_REVEAL], pick)
        keep = 1 if c == T.TORCH else tb.params[T.P_MINE_KEEP]
        for _ in range(keep):
            if k == 0:
                break
            i = pol.choose_pick(tb, st, a, pick, k, pol.PK_HAND if c == T.TORCH else pol.PK_MINE)
            to_hand_public(st, a, pick[i])
            if (
                pick[i] != T.FEATHER or st.pl[a, S.PL_CHAR] == T.RAVEN
            ):  # RM-26: else discarded, public
                S.emit(st, S.E_PICK, a, pick[i], c, 0, 0, 0, 0)
            pick[i] = pick[k - 1]
            k -= 1
        for m in range(k):
            S.discard_card(st, pick[m])
        if c == T.ABANDONED_MINE and st.board[S.B_INPLAY + c] > 0:
            st.board[S.B_INPLAY + c] -= 1
            st.board[S.B_REMOVED + c] += 1
            S.emit(st, S.E_INPLAY, a, c, 0, 0, 0, 0, 0)
        if c == T.ABANDONED_MINE:
            return -1
    elif c == T.TREASURE_MAP:
        search_to_hand(st, a, o, np.int64(1))
    elif c == T.ZAKUS_CAMERA:
        if o == 0:
            look_char(st, a, t)
        else:
            discard_chosen(tb, st, a, t, pick)
    elif c == T.CAVE:
        random_take(st, a, t)
    elif c == T.COAST:
        if S.has(st, a, T.BOTTLE):
            discard_from_hand(st, a, np.int64(T.BOTTLE), np.int64(2))
        if find_card(st, a, np.int64(T.TREASURE_MAP), np.int64(0)):
            nxt = T.TREASURE_MAP
    elif c == T.FOREST:  # RM-24: the other neighbour of the next player consents
        s = S.left(st, t)
        yes = pol.choose_yes(tb, st, s, t, np.int64(pol.Y_FOREST))
        S.emit(st, S.E_CONSENT, a, s, 1 if yes else 0, 0, 0, 0, 0)
        if yes:
            st.pl[s, S.PL_SKIP] = 1
            kill(tb, st, a, t, np.int64(T.D_KILL))
        st.board[S.G_OVER] = 1  # RM-20
    elif c == T.MOUNTAINS:
        mountains_duel(tb, st, a, t, opts, stack)
    elif c == T.THE_INN:
        yes = pol.choose_yes(tb, st, t, a, np.int64(pol.Y_INN))
        S.emit(st, S.E_CONSENT, a, t, 1 if yes else 0, 1, 0, 0, 0)
        if yes and S.free_cards(st, a) > 0:
            x = pol.choose_give(tb, st, a, t)
            give_card(st, a, t, x)
            S.emit(st, S.E_XCHG, a, t, x, -1, 2, 0, 0)
            if x == T.FEATHER:
                feather_given(st, a, t)
            elif x == T.PILLOW:
                pillow_check(tb, st, a, t)
    if not place:
        S.discard_card(st, c)
    return nxt


@njit(cache=True, _nrt=False, forceinline=False)
def play_chain(tb, st, a, c, t, o, from_hand, entering, living, stack, opts, pick):
    """``c`` and the cards its effect plays in turn (Manor Plan's Room, Compass's Location,
    Coast's Treasure Map), each with its own window; ``entering``: a Room or Location ``c`` comes
    into play (from hand, or played by an effect: Groguś, Guardian Eagle), else it is used where
    it lies in play."""
    for _ in range(4):
        nxt = apply_card(tb, st, a, c, t, o, from_hand, entering, living, stack, opts, pick)
        if nxt < 0 or st.board[S.G_END] != 0:
            return
        c = nxt
        from_hand = 0
        entering = 1
        t, o = choose_use(tb, st, a, c, living)
        if t == -2:  # no legal use: a Room or Location still enters play
            if is_place(c):
                st.board[S.B_INPLAY + c] += 1
                S.emit(st, S.E_INPLAY, a, c, 1, 0, 0, 0, 0)
            else:
                S.discard_card(st, c)
            return


# ---------------------------------------------------------------------------------------------
# Death abilities (RM-5, RM-21, RM-23, RM-24)


@njit(cache=True, _nrt=False, forceinline=False)
def target_mask(st, v, living_only, not_stunned, mask):
    n = S.n_players(st)
    k = np.int64(0)
    for q in range(n):
        ok = q != v and (S.alive(st, q) or not living_only)
        if ok and not_stunned and st.pl[q, S.PL_STUNNED] != 0:
            ok = False
        mask[q] = 1 if ok else 0
        k += mask[q]
    return k


@njit(cache=True, _nrt=False, forceinline=False)
def ability_weapon(tb, st, v, ch, card, stack, opts, pick, mask):
    """Captain Pike, Lumbearjack, Wolf Brother: the card from the deck, else the discard pile,
    used on any chosen player (RM-23); the card then goes to the discard."""
    if not find_card(st, v, card, np.int64(1)):
        return
    if target_mask(st, v, np.int64(1), np.int64(0), mask) == 0:
        S.discard_card(st, card)
        return
    t = pol.choose_target(tb, st, v, np.int64(pol.T_KILL), mask, S.n_players(st))
    S.emit(st, S.E_ABILITY, v, ch, t, card, 0, 0, 0)  # ch: the card it died as (Lady Whale)
    window(tb, st, v, np.int64(-1), np.int64(0), np.int64(EF_KILL), t, stack, opts)
    kill(tb, st, v, t, np.int64(T.D_ABILITY))
    if card == T.HARPOON:  # RM-21: the stun is answered on its own
        window(tb, st, v, np.int64(-1), np.int64(0), np.int64(EF_STUN), t, stack, opts)
        stun_with(st, v, t, card)
    else:
        S.discard_card(st, card)


@njit(cache=True, _nrt=False, forceinline=False)
def whale_swap(st, v, t):
    """RM-15, ENGINE-13: Lady Whale exchanges character cards with ``t``."""
    cv = st.pl[v, S.PL_CHAR]
    ct = st.pl[t, S.PL_CHAR]
    n = S.n_players(st)
    for q in range(n):  # what others knew of t's card is now what they know of v's
        if q != v and q != t:
            st.kn[q, v, S.KN_CHAR] = st.kn[q, t, S.KN_CHAR]
    st.pl[v, S.PL_CHAR] = ct
    st.pl[t, S.PL_CHAR] = cv
    st.kn[v, v, S.KN_CHAR] = ct
    st.kn[t, t, S.KN_CHAR] = cv
    st.kn[t, v, S.KN_CHAR] = ct
    st.kn[v, t, S.KN_CHAR] = cv
    S.emit(st, S.E_WHALE, v, t, ct, 0, 0, 0, 0)
    if S.alive(st, t):
        st.pl[v, S.PL_ALIVE] = 1
        st.pl[v, S.PL_DEATH_TURN] = -1
        st.pl[v, S.PL_CAUSE] = 0
        st.pl[v, S.PL_REVEALED] = 0
        st.pl[v, S.PL_EVIL_LOST] = 0
        st.pl[t, S.PL_ALIVE] = 0
        st.pl[t, S.PL_DEATH_TURN] = st.board[S.G_TURN]
        st.pl[t, S.PL_CAUSE] = T.D_WHALE
        S.tele(st, t, T.TE_DIED + T.D_WHALE - 1, 1)
        if st.pl[t, S.PL_STUNNED] != 0:
            st.pl[t, S.PL_STUNNED] = 0
            if st.pl[t, S.PL_STUN_CARD] >= 0:
                S.discard_card(st, st.pl[t, S.PL_STUN_CARD])
                st.pl[t, S.PL_STUN_CARD] = -1
    S.reveal_char(st, t)
    for k in range(2):
        p = v if k == 0 else t
        ch = ct if k == 0 else cv
        if S.immune(ch) or st.pl[p, S.PL_POSSESSED] < 0:
            st.pl[p, S.PL_POSSESSED] = -1
            st.pl[p, S.PL_SIDE] = S.own_side(ch)
    check_end(st)


@njit(cache=True, _nrt=False, forceinline=False)
def death_ability(tb, st, v, ch, stack, opts, pick, mask):
    """The death ability of character ``ch``, which ``v`` held when it died (RM-5: its choices
    are ``v``'s)."""
    n = S.n_players(st)
    if ch == T.BOAR or ch == T.DOC:
        if target_mask(st, v, np.int64(1), np.int64(0), mask) > 0:
            t = pol.choose_target(tb, st, v, np.int64(pol.T_KILL), mask, n)
            S.emit(st, S.E_ABILITY, v, ch, t, 0, 0, 0, 0)
            window(tb, st, v, np.int64(-1), np.int64(0), np.int64(EF_KILL), t, stack, opts)
            kill(tb, st, v, t, np.int64(T.D_ABILITY))
    elif ch == T.PIKE:
        ability_weapon(tb, st, v, ch, np.int64(T.HARPOON), stack, opts, pick, mask)
    elif ch == T.LUMBEARJACK:
        ability_weapon(tb, st, v, ch, np.int64(T.AXE), stack, opts, pick, mask)
    elif ch == T.WOLF:
        ability_weapon(tb, st, v, ch, np.int64(T.RIFLE), stack, opts, pick, mask)
    elif ch == T.ANGLER:
        if target_mask(st, v, np.int64(0), np.int64(0), mask) > 0:
            t = pol.choose_target(tb, st, v, np.int64(pol.T_LOOK_CHAR), mask, n)
            look = S.hand_n(st, t) == 0 or pol.choose_yes(tb, st, v, t, np.int64(pol.Y_ANGLER_LOOK))
            S.emit(st, S.E_ABILITY, v, ch, t, 0 if look else 1, 0, 0, 0)
            if look:
                look_char(st, v, t)
            else:
                discard_chosen(tb, st, v, t, pick)
    elif ch == T.BUNNY:
        if target_mask(st, v, np.int64(0), np.int64(0), mask) > 0:
            t = pol.choose_target(tb, st, v, np.int64(pol.T_SWAP), mask, n)
            S.emit(st, S.E_ABILITY, v, ch, t, 0, 0, 0, 0)
            if (
                not window(tb, st, v, np.int64(-1), np.int64(0), np.int64(EF_SWAP), t, stack, opts)
                & AVOIDED
            ):
                swap_seats(st, v, t)
    elif ch == T.CATFISH:
        if target_mask(st, v, np.int64(0), np.int64(0), mask) > 0:
            t = pol.choose_target(tb, st, v, np.int64(pol.T_REVEAL_HAND), mask, n)
            S.emit(st, S.E_ABILITY, v, ch, t, 0, 0, 0, 0)
            S.reveal_hand(st, t)
            S.emit(st, S.E_SHOW, t, -1, S.hand_n(st, t), 0, 0, 0, 0)
    elif ch == T.CRAYFISH:
        if target_mask(st, v, np.int64(0), np.int64(0), mask) > 0:
            t = pol.choose_target(tb, st, v, np.int64(pol.T_STUN_SWAP), mask, n)
            S.emit(st, S.E_ABILITY, v, ch, t, 0, 0, 0, 0)
            # two effects, each answered on its own (as Harpoon's, RM-21): Dodge, then Avoid
            window(tb, st, v, np.int64(-1), np.int64(0), np.int64(EF_STUN), t, stack, opts)
            stun(st, v, t, np.int64(-1))
            status = window(tb, st, v, np.int64(-1), np.int64(0), np.int64(EF_XCHG), t, stack, opts)
            if not status & AVOIDED:
                swap_hands(st, v, t)
    elif ch == T.EEL:
        S.emit(st, S.E_ABILITY, v, ch, -1, 0, 0, 0, 0)
        for i in range(1, n):
            q = S.seat_at(st, st.pl[v, S.PL_POS] + i)
            if pol.choose_yes(tb, st, q, v, np.int64(pol.Y_EEL_STUN)):
                S.emit(st, S.E_EEL, q, 0, 0, 0, 0, 0, 0)  # E_EEL
                stun(st, np.int64(-1), q, np.int64(-1))
            else:
                S.emit(st, S.E_EEL, q, 1, 0, 0, 0, 0, 0)
                for c in range(T.NC):  # rulebook FAQ: Feathers stay in hand
                    if c != T.FEATHER:
                        while st.pl[q, S.PL_HAND + c] > 0:
                            discard_from_hand(st, q, c, np.int64(2))
    elif ch == T.GROGUS:  # as if alive (rulebook FAQ)
        k = np.int64(0)
        for c in range(T.NC):
            if st.board[S.B_DISC + c] > 0 and not (T.REACT0 <= c < T.REACT1) and c != T.PILLOW:
                if c != T.FEATHER:
                    k = enum_card(tb, st, v, c, np.int64(pol.K_FREE), np.int64(1), k)
        if k > 0:
            i = pol.choose_action(tb, st, v, k)
            b = S.B_CAND + 4 * i
            c = st.board[b + 1]
            t = st.board[b + 2]
            o = st.board[b + 3]
            st.board[S.B_DISC + c] -= 1
            st.board[S.G_DISC_N] -= 1
            S.emit(st, S.E_ABILITY, v, ch, t, c, 0, 0, 0)
            S.tele(st, v, T.TE_PLAYED + c, 1)
            play_chain(tb, st, v, c, t, o, np.int64(0), np.int64(1), np.int64(1), stack, opts, pick)
    elif ch == T.WHALE:
        if target_mask(st, v, np.int64(0), np.int64(0), mask) > 0:
            t = pol.choose_target(tb, st, v, np.int64(pol.T_WHALE), mask, n)
            S.emit(st, S.E_ABILITY, v, ch, t, 0, 0, 0, 0)
            whale_swap(st, v, t)
    elif ch == T.MAYOR:  # RM-24
        if target_mask(st, v, np.int64(1), np.int64(0), mask) > 0:
            t = pol.choose_target(tb, st, v, np.int64(pol.T_KILL), mask, n)
            kills = 0
            mine = pol.choose_yes(tb, st, v, t, np.int64(pol.Y_VOTE_KILL))
            for q in range(n):
                if q == v:
                    kills += 1 if mine else 0
                elif pol.choose_yes(tb, st, q, t, np.int64(pol.Y_VOTE_KILL)):
                    kills += 1
            stuns = n - kills
            do_kill = kills > stuns or (kills == stuns and mine)
            S.emit(st, S.E_VOTE, v, t, kills, stuns, 0 if do_kill else 1, 0, 0)
            if do_kill:
                window(tb, st, v, np.int64(-1), np.int64(0), np.int64(EF_KILL), t, stack, opts)
                kill(tb, st, v, t, np.int64(T.D_VOTE))
            else:
                window(tb, st, v, np.int64(-1), np.int64(0), np.int64(EF_STUN), t, stack, opts)
                stun(st, v, t, np.int64(-1))
    elif ch == T.SQUIRREL:
        S.emit(st, S.E_ABILITY, v, ch, -1, T.ROD, 0, 0, 0)
        search_to_hand(st, v, np.int64(T.ROD), np.int64(1))
        if target_mask(st, v, np.int64(0), np.int64(0), mask) > 0:
            t = pol.choose_target(tb, st, v, np.int64(pol.T_LOOK_CHAR), mask, n)
            look_char(st, v, t)
    elif ch == T.ALLIGATOR:
        S.emit(st, S.E_ABILITY, v, ch, -1, T.TREASURE_MAP, 0, 0, 0)
        if find_card(st, v, np.int64(T.TREASURE_MAP), np.int64(1)):
            t, o = choose_use(tb, st, v, np.int64(T.TREASURE_MAP), np.int64(0))
            play_chain(
                tb,
                st,
                v,
                np.int64(T.TREASURE_MAP),
                t,
                o,
                np.int64(0),
                np.int64(1),
                np.int64(0),
                stack,
                opts,
                pick,
            )


@njit(cache=True, _nrt=False, inline="always")
def resolve_deaths(tb, st, stack, opts, pick, mask):
    """ENGINE-7: the queued death abilities, in the order of the deaths."""
    while st.board[S.G_DEPTH] < st.board[S.G_DEATHS_N] and st.board[S.G_END] == 0:
        i = st.board[S.G_DEPTH]
        st.board[S.G_DEPTH] = i + 1
        death_ability(
            tb,
            st,
            st.board[S.B_DEATHS + 2 * i],
            st.board[S.B_DEATHS + 2 * i + 1],
            stack,
            opts,
            pick,
            mask,
        )
        if st.board[S.G_DEPTH] == st.board[S.G_DEATHS_N]:
            check_end(st)
    check_end(st)


# ---------------------------------------------------------------------------------------------
# The turn


@njit(cache=True, _nrt=False, inline="always")
def do_action(tb, st, a, kind, c, t, o, stack, opts, pick):
    living = np.int64(st.pl[a, S.PL_ALIVE])
    S.emit(st, S.E_ACTION, a, kind, c, t, o, 0, 0)
    if kind == pol.K_PLAY:
        S.take_hand(st, a, c)
        S.tele(st, a, T.TE_PLAYED + c, 1)
        play_chain(tb, st, a, c, t, o, np.int64(1), np.int64(1), living, stack, opts, pick)
    elif kind == pol.K_USE:
        play_chain(tb, st, a, c, t, o, np.int64(0), np.int64(0), living, stack, opts, pick)
    elif kind == pol.K_CYCLE:  # RM-4: discard 2 to draw 1
        for _ in range(tb.params[T.P_DISCARD_DRAW]):
            if S.free_cards(st, a) == 0:
                break
            discard_from_hand(st, a, pol.choose_discard(tb, st, a), np.int64(1))
        draw_card(tb, st, a, pick)
    elif kind == pol.K_EAGLE:  # RM-27
        die(st, a, np.int64(T.D_EAGLE), np.int64(-1))
        if st.board[S.G_END] == 0 and find_card(st, a, o, np.int64(0)):
            t2, o2 = choose_use(tb, st, a, o, np.int64(0))
            if t2 == -2:
                st.board[S.B_INPLAY + o] += 1
                S.emit(st, S.E_INPLAY, a, o, 1, 0, 0, 0, 0)
            else:
                play_chain(
                    tb, st, a, o, t2, o2, np.int64(0), np.int64(1), np.int64(0), stack, opts, pick
                )
    elif kind == pol.K_BREAK:  # RM-17: the Axe or Rifle spent on a Barricade
        S.take_hand(st, a, c)
        S.tele(st, a, T.TE_PLAYED + c, 1)
        status = window(tb, st, a, c, np.int64(1), np.int64(0), np.int64(-1), stack, opts)
        if not status & CANCELLED and st.board[S.B_BARR + t] > 0:
            st.board[S.B_BARR + t] -= 1
            S.discard_card(st, T.BARRICADE)
            S.emit(st, S.E_BARRICADE, a, t, 0, 0, 0, 0, 0)
        S.discard_card(st, c)
    else:  # K_PASS, RM-29: show the hand to the next player
        q = S.left(st, a)
        S.show_hand(st, q, a)
        S.emit(st, S.E_SHOW, a, q, S.hand_n(st, a), 0, 0, 0, 0)


@njit(cache=True, _nrt=False, inline="always")
def end_exchange(tb, st, a):
    """RM-4 (2), RM-29: exchange with the next player in turn order who is not stunned."""
    n = S.n_players(st)
    q = -1
    for i in range(1, n):
        x = S.seat_at(st, st.pl[a, S.PL_POS] + i)
        if st.pl[x, S.PL_STUNNED] == 0:
            q = x
            break
    if q < 0:
        return
    if S.free_cards(st, a) == 0 or S.free_cards(st, q) == 0:
        S.show_hand(st, q, a)
        S.emit(st, S.E_SHOW, a, q, S.hand_n(st, a), 0, 0, 0, 0)
        return
    trade(tb, st, a, q, np.int64(0))


@njit(cache=True, _nrt=False, inline="always")
def play_turn(tb, st, a, stack, opts, pick, mask):
    """One turn of ``a`` (RM-4)."""
    st.board[S.G_ACTIVE] = a
    st.board[S.G_OVER] = 0
    st.board[S.G_NEXT] = -1
    S.emit(
        st,
        S.E_TURN,
        a,
        st.board[S.G_TURN],
        S.hand_n(st, a),
        st.pl[a, S.PL_ALIVE],
        st.pl[a, S.PL_SIDE],
        st.pl[a, S.PL_STUNNED],
        0,
    )
    if st.pl[a, S.PL_STUNNED] != 0:  # ENGINE-1
        st.pl[a, S.PL_STUNNED] = 0
        if st.pl[a, S.PL_STUN_CARD] >= 0:
            S.discard_card(st, st.pl[a, S.PL_STUN_CARD])
            st.pl[a, S.PL_STUN_CARD] = -1
        S.emit(st, S.E_SKIP, a, 0, 0, 0, 0, 0, 0)
        return
    if st.pl[a, S.PL_SKIP] != 0:
        st.pl[a, S.PL_SKIP] = 0
        S.emit(st, S.E_SKIP, a, 1, 0, 0, 0, 0, 0)
        return
    n = enum_actions(tb, st, a)
    i = pol.choose_action(tb, st, a, n)
    b = S.B_CAND + 4 * i
    do_action(
        tb, st, a, st.board[b], st.board[b + 1], st.board[b + 2], st.board[b + 3], stack, opts, pick
    )
    resolve_deaths(tb, st, stack, opts, pick, mask)
    if st.board[S.G_END] != 0:
        return
    if st.board[S.G_OVER] == 0 and st.pl[a, S.PL_STUNNED] != 0:
        # RM-4: stunned during its own turn (a death ability it triggered), it "cannot
        # participate in Trades": no end-of-turn exchange; it still draws or discards to 4
        S.emit(st, S.E_SKIP, a, 2, 0, 0, 0, 0, 0)
    elif st.board[S.G_OVER] == 0:
        end_exchange(tb, st, a)
        resolve_deaths(tb, st, stack, opts, pick, mask)
        if st.board[S.G_END] != 0:
            return
    refill(tb, st, a, pick)


@njit(cache=True, _nrt=False, forceinline=False)
def play_game(tb, st, seed, game, work):
    """Play one whole game into ``st`` with the scratch ``work`` (``state.alloc_work``)."""
    stack, opts, pick, mask = work
    setup(tb, st, seed, game, pick)
    a = np.int64(st.board[S.G_FIRST])
    cap = tb.params[T.P_TURN_CAP]
    check_end(st)
    while st.board[S.G_END] == 0:
        play_turn(tb, st, a, stack, opts, pick, mask)
        st.board[S.G_TURN] += 1
        if st.board[S.G_END] != 0:
            break
        if st.board[S.G_TURN] >= cap:  # RM-10
            st.board[S.G_END] = S.END_CAP
            break
        nxt = st.board[S.G_NEXT]
        a = np.int64(nxt) if nxt >= 0 else S.left(st, a)
    S.emit(st, S.E_END, st.board[S.G_END], st.board[S.G_TURN], 0, 0, 0, 0, 0)


@njit(cache=True, _nrt=False, forceinline=False)
def side_left(st, side):
    """RM-10, RM-22: is ``side`` still in a capped game (the Family always is)?"""
    if side == T.FAMILY:
        return True
    if side == T.S_RAVEN:
        return S.living_possessor(st, np.int64(T.S_RAVEN)) >= 0
    if side == T.S_HORSEMAN:
        return S.living_possessor(st, np.int64(T.S_HORSEMAN)) >= 0
    for p in range(S.n_players(st)):
        if st.pl[p, S.PL_CHAR] == T.CTHULHU and S.alive(st, p):
            return True
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def outcome(st, p):
    """(score, rank) of seat ``p`` after a game (ENGINE-2, ENGINE-3)."""
    score = 1 if S.alive(st, p) else 0
    if st.pl[p, S.PL_EVIL_LOST] != 0:
        return score, 2
    side = st.pl[p, S.PL_SIDE]
    end = st.board[S.G_END]
    if end == S.END_CAP:
        return score, 1 if side_left(st, side) else 2
    won = (
        (end == S.END_FAMILY and side == T.FAMILY)
        or (end == S.END_RAVEN and side == T.S_RAVEN)
        or (end == S.END_HORSEMAN and side == T.S_HORSEMAN)
        or (end == S.END_CTHULHU and side == T.S_CTHULHU)
    )
    return score, 1 if won else 2


@njit(cache=True, parallel=True, forceinline=False)
def play_batch(tb, seed, first_game, n_games, out):
    """Play games [first_game, first_game + n_games) into row i of the outputs ``out``
    (``_kit.Outputs``); block b counts the telemetry cells it clipped at 255 in row b of
    ``out.clipped`` (per column)."""
    score, rank, turns, end, order, team, role, extra, tele, clipped = out
    n_blocks = (n_games + S.BLOCK_GAMES - 1) // S.BLOCK_GAMES
    n = tb.params[T.P_PLAYERS]
    for blk in prange(n_blocks):
        st = S.alloc_state(tb, 0)
        work = S.alloc_work(tb)
        clip = clipped[blk]
        lo = blk * S.BLOCK_GAMES
        hi = min(n_games, lo + S.BLOCK_GAMES)
        for gi in range(lo, hi):
            play_game(tb, st, seed, first_game + gi, work)
            turns[gi] = st.board[S.G_TURN]
            end[gi] = st.board[S.G_END] - 1
            first = st.board[S.G_FIRST]
            for p in range(n):
                s, r = outcome(st, p)
                score[gi, p] = s
                rank[gi, p] = r
                order[gi, p] = (p - first) % n
                team[gi, p] = st.pl[p, S.PL_SIDE]
                role[gi, p] = st.pl[p, S.PL_DEALT]
                extra[gi, p, 0] = st.pl[p, S.PL_ALIVE]
                extra[gi, p, 1] = st.pl[p, S.PL_DEATH_TURN]
                extra[gi, p, 2] = st.pl[p, S.PL_POSS_TURN]
                extra[gi, p, 3] = st.pl[p, S.PL_KILLS]
                extra[gi, p, 4] = st.pl[p, S.PL_STUNS]
                seen = 0
                for j in range(T.N_TELE):
                    v = st.pl[p, S.PL_TELE + j]
                    tele[gi, p, j] = kit.clip_u8(v)
                    seen |= v
                if seen > kit.U8_MAX:
                    for j in range(T.N_TELE):
                        kit.tally_clipped(st.pl[p, S.PL_TELE + j], clip, j)


def play(compiled: T.Compiled, seed: int, first_game: int, n_games: int) -> Chunk:
    """Play a chunk of games (``_kit.play_chunk``: the checks, the outputs, the Chunk)."""
    return kit.play_chunk(
        play_batch,
        compiled.tb,
        seed,
        first_game,
        n_games,
        players=compiled.players,
        n_tele=T.N_TELE,
        block=S.BLOCK_GAMES,
        extra_names=S.EXTRA_COLUMNS,
        team=True,
        role=True,
    )
