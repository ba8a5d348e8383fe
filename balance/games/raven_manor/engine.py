"""Raven Manor rule engine: numba kernels over the arrays of ``state.State``.

One game: characters dealt and the opening (RM-2, RM-3), then turns (RM-4) of one action, the
end-of-turn exchange and the draw or discard to 4, until a side wins (RM-10, RM-22) or the turn
cap makes it a draw. Every decision is asked of ``policies``; this module applies it through the
rules' own conditions.

Decision points (docs/rules/raven_manor.md "## Decisions"): every choice a seat makes is a
pending decision in the State (board G_ACTOR, G_KIND, its list in B_CAND, B_PICK, B_OPTS or
B_MASK). The rules are procedures (``s_*``, ids ``P_*``) whose program counter and locals are
board registers (state.py, G_<PROC>_*) and whose callers are on a call stack (B_CALL, G_SP): a
procedure that must ask sets the pending decision and returns False, and ``advance`` (``run``)
resumes the procedure on top of the stack once ``apply`` has stored the answer (G_ANS). A call of
a small procedure runs the callee at once in its caller (``if not s_x(tb, st): return False``);
a call of one of the six large ones (``s_opening``, ``s_action``, ``s_chain``, ``s_card``,
``s_deaths``, ``s_death``) pushes it and returns False, and ``run`` starts it and resumes the
caller at its program counter when it returns (the same path as after a decision, so the games
are the same). The hot small procedures are inlined by LLVM (``forceinline=True``) to keep the
kernel's speed.

Compile time (``benchmarks/compile_time.py raven_manor``): numba finalises every compiled
function with all the functions it calls linked in and optimised again, so each function that
calls the large procedures costs a pass over nearly the whole engine. Hence the calls through
``run`` above: each procedure links only the small ones below it, and only ``play_batch`` links
them all, with ``play_game`` (the one level more: copied into ``play_batch`` with
``inline="always"``, it compiled 6 s faster but played 5 % slower, 10 % with the reference
counting of the arrays ``play_batch`` allocates, measured). The thin levels between
``play_game`` and the procedures (``advance``, ``run``, ``apply``) are ``inline="always"``:
their few blocks are copied into their callers and they are never finalised on their own.
Every integer argument is int64, never a literal constant (``np.int64(pol.K_PLAY)`` at call
sites, ``state.emit``'s casts), because numba compiles a function again for each literal value
it is called with. The reasoning players' belief updates (beliefs.py) are compiled only into
the kernels of a line-up with a reasoning seat: its tables are ``tables.ReasoningTables``,
another type, and the engine calls the updates through gates (``beliefs.observe_if`` ...) that
numba resolves to nothing for plain ``Tables``.

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
- ENGINE-15 Table talk (``rules.talk``, off by default): before its action the active player may
  make one public claim ("I am Family", "I saw a Feather in X's hand", "X is evil") or say
  nothing (D_CLAIM). Lies are allowed and no card is shown to back a claim (the rulebook forbids
  only revealing cards to support one's words); a claim changes no rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from balance.games import _kit as kit
from balance.games.base import Chunk
from balance.games.raven_manor import beliefs as B
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
def discard_from_hand(st, p, c, why):
    S.take_hand(st, p, c)
    S.discard_card(st, c)
    S.emit(st, S.E_DISCARD, p, c, why, 0, 0, 0, 0)


# ---------------------------------------------------------------------------------------------
# Setup and the opening


@njit(cache=True, _nrt=False, forceinline=False)
def deal(tb, st, seed, game, pick):
    """RM-2: reset ``st`` to the start of game ``game`` of run ``seed``: the characters dealt,
    the deck shuffled (the opening, RM-3, is the first procedure ``advance`` runs)."""
    for s in range(st.rng.shape[0]):
        seed_stream(st.rng[s], seed, game, s)
    cap = st.board[S.G_LOG_CAP]
    st.board[:] = 0
    st.board[S.G_LOG_CAP] = cap
    st.board[S.G_NEXT] = -1
    st.board[S.G_ACTOR] = -1
    st.board[S.G_KIND] = -1
    st.board[S.G_Q] = -1
    st.pl[:, :] = 0
    n = tb.params[T.P_PLAYERS]
    # what the seats in play know: their rows only (one contiguous block, 5/12 of the whole in
    # a five-player game); no rule reads the knowledge of a seat past the players
    st.kn[:n, :, :] = 0
    st.kn[:n, :, S.KN_CHAR] = -1
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


@njit(cache=True, _nrt=False, forceinline=False)
def deal_open(tb, st, p):
    for _ in range(tb.params[T.P_OPEN_HAND]):
        c = pop_deck(st)
        if c < 0:
            return
        S.tele(st, p, T.TE_DRAWN + c, 1)
        S.add_hand(st, p, c)


# ---------------------------------------------------------------------------------------------
# Response windows (RM-19)


@njit(cache=True, _nrt=False, forceinline=False)
def is_action_card(c):
    return T.EXCHANGE <= c < T.REACT0


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
def reveal_top(st, k):
    """Torch, Abandoned Mine: the top ``k`` cards of the deck, revealed, into the pick list."""
    n = np.int64(0)
    for _ in range(k):
        c = pop_deck(st)
        if c < 0:
            break
        st.board[S.B_PICK + n] = c
        n += 1
    return n


# ---------------------------------------------------------------------------------------------
# Death abilities (RM-5, RM-21, RM-23, RM-24)


@njit(cache=True, _nrt=False, forceinline=False)
def target_mask(st, v, living_only, not_stunned):
    """The seats a death ability of ``v`` may target, into ``board[B_MASK:]``; their count."""
    n = S.n_players(st)
    k = np.int64(0)
    for q in range(n):
        ok = q != v and (S.alive(st, q) or not living_only)
        if ok and not_stunned and st.pl[q, S.PL_STUNNED] != 0:
            ok = False
        st.board[S.B_MASK + q] = 1 if ok else 0
        k += st.board[S.B_MASK + q]
    return k


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


# ---------------------------------------------------------------------------------------------
# Decision points: the call stack of procedures, the pending decision


@njit(cache=True, _nrt=False, inline="always")
def push(st, proc, pc_at):
    """Call procedure ``proc`` (its arguments are already in its registers)."""
    sp = st.board[S.G_SP]
    st.board[S.B_CALL + sp] = proc
    st.board[S.G_SP] = sp + 1
    st.board[pc_at] = 0


@njit(cache=True, _nrt=False, inline="always")
def ret(st, v, v2):
    """The running procedure returns ``v`` (and ``v2``) to its caller."""
    st.board[S.G_RV] = v
    st.board[S.G_RV2] = v2
    st.board[S.G_SP] -= 1


@njit(cache=True, _nrt=False, inline="always")
def ask(st, p, kind, q, n):
    """Seat ``p`` must decide ``kind`` (about ``q``; ``n``: the size of its list)."""
    st.board[S.G_ACTOR] = p
    st.board[S.G_KIND] = kind
    st.board[S.G_Q] = q
    st.board[S.G_NOPT] = n


# Procedures (their ids on the call stack; each has its registers G_<NAME>_* in state.py).
(
    P_GAME,
    P_OPENING,
    P_FIX,
    P_DRAW,
    P_REFILL,
    P_WINDOW,
    P_KILL,
    P_TRADE,
    P_PILLOW,
    P_DRINK,
    P_USE,
    P_MOUNTAINS,
    P_CARD,
    P_CHAIN,
    P_WEAPON,
    P_DEATH,
    P_DEATHS,
    P_ACTION,
    P_EXCH,
    P_TURN,
) = range(1, 21)


@njit(cache=True, _nrt=False, forceinline=True)
def call_window(st, a, card, from_hand, eff, t):
    bd = st.board
    bd[S.G_WIN_A] = a
    bd[S.G_WIN_CARD] = card
    bd[S.G_WIN_FH] = from_hand
    bd[S.G_WIN_EFF] = eff
    bd[S.G_WIN_T] = t
    push(st, np.int64(P_WINDOW), np.int64(S.G_WIN_PC))


@njit(cache=True, _nrt=False, forceinline=True)
def call_kill(st, killer, t, cause):
    bd = st.board
    bd[S.G_KILL_KILLER] = killer
    bd[S.G_KILL_T] = t
    bd[S.G_KILL_CAUSE] = cause
    push(st, np.int64(P_KILL), np.int64(S.G_KILL_PC))


@njit(cache=True, _nrt=False, forceinline=True)
def call_draw(st, p):
    st.board[S.G_DRAW_P] = p
    push(st, np.int64(P_DRAW), np.int64(S.G_DRAW_PC))


@njit(cache=True, _nrt=False, forceinline=True)
def call_trade(st, a, b, kind):
    bd = st.board
    bd[S.G_TRADE_A] = a
    bd[S.G_TRADE_B] = b
    bd[S.G_TRADE_KIND] = kind
    push(st, np.int64(P_TRADE), np.int64(S.G_TRADE_PC))


@njit(cache=True, _nrt=False, forceinline=True)
def call_pillow(st, giver, receiver):
    st.board[S.G_PILLOW_GIVER] = giver
    st.board[S.G_PILLOW_RECV] = receiver
    push(st, np.int64(P_PILLOW), np.int64(S.G_PILLOW_PC))


@njit(cache=True, _nrt=False, forceinline=True)
def call_drink(st, a, t):
    st.board[S.G_DRINK_A] = a
    st.board[S.G_DRINK_T] = t
    push(st, np.int64(P_DRINK), np.int64(S.G_DRINK_PC))


@njit(cache=True, _nrt=False, forceinline=True)
def call_use(st, p, c, living):
    st.board[S.G_USE_P] = p
    st.board[S.G_USE_C] = c
    st.board[S.G_USE_LIVING] = living
    push(st, np.int64(P_USE), np.int64(S.G_USE_PC))


@njit(cache=True, _nrt=False, forceinline=True)
def call_chain(st, a, c, t, o, from_hand, entering, living):
    bd = st.board
    bd[S.G_CHAIN_A] = a
    bd[S.G_CHAIN_C] = c
    bd[S.G_CHAIN_T] = t
    bd[S.G_CHAIN_O] = o
    bd[S.G_CHAIN_FH] = from_hand
    bd[S.G_CHAIN_ENT] = entering
    bd[S.G_CHAIN_LIVING] = living
    push(st, np.int64(P_CHAIN), np.int64(S.G_CHAIN_PC))


@njit(cache=True, _nrt=False, forceinline=True)
def call_deaths(st):
    push(st, np.int64(P_DEATHS), np.int64(S.G_DEATHS_PC))


# ---------------------------------------------------------------------------------------------
# The deck, the draw and the opening (RM-3, RM-4, RM-6, RM-25)


@njit(cache=True, _nrt=False, forceinline=False)
def s_draw(tb, st):
    """P_DRAW: ``p`` draws a card (RM-25: or takes one from its Backpack, D_TAKE; RM-6: a
    non-possessor discards a drawn Feather and draws again; the Raven may, to bluff, D_BLUFF).
    Returns the card, -1 none."""
    bd = st.board
    pc = bd[S.G_DRAW_PC]
    p = bd[S.G_DRAW_P]
    it = bd[S.G_DRAW_IT]
    top = True
    if pc == 0:
        it = 0
    elif pc == 1:  # D_TAKE answered
        i = bd[S.G_ANS]
        if i < bd[S.G_NOPT]:
            c = bd[S.B_PICK + i]
            st.pl[p, S.PL_BP + c] -= 1
            st.pl[p, S.PL_BP_N] -= 1
            S.add_hand(st, p, c)
            S.emit(st, S.E_BACKPACK, p, c, 0, 0, 0, 0, 0)
            ret(st, c, 0)
            return True
        top = False
    else:  # D_BLUFF answered
        c = bd[S.G_DRAW_C]
        if bd[S.G_ANS] == 0:
            S.add_hand(st, p, c)
            S.emit(st, S.E_DRAW, p, c, 0, 0, 0, 0, 0)
            ret(st, c, 0)
            return True
        S.discard_card(st, c)
        st.pl[p, S.PL_FEATHER_DISC] += 1
        S.emit(st, S.E_FEATHER, p, 1, 0, 0, 0, 0, 0)
    while True:
        if top:
            if it >= st.deck.shape[0] + 2:
                ret(st, -1, 0)
                return True
            it += 1
            if st.pl[p, S.PL_BP_N] > 0:
                k = np.int64(0)
                for c in range(T.NC):
                    if st.pl[p, S.PL_BP + c] > 0:
                        bd[S.B_PICK + k] = c
                        k += 1
                bd[S.G_DRAW_IT] = it
                bd[S.G_DRAW_PC] = 1
                ask(st, p, np.int64(S.D_TAKE), np.int64(-1), k)
                return False
        top = True
        c = pop_deck(st)
        if c < 0:
            ret(st, -1, 0)
            return True
        S.tele(st, p, T.TE_DRAWN + c, 1)
        if c == T.FEATHER:
            if st.pl[p, S.PL_CHAR] != T.RAVEN:  # RM-6: the Horseman uses only Feathers received
                S.discard_card(st, c)
                st.pl[p, S.PL_FEATHER_DISC] += 1
                S.emit(st, S.E_FEATHER, p, 0, 0, 0, 0, 0, 0)
                continue
            bd[S.G_DRAW_IT] = it
            bd[S.G_DRAW_C] = c
            bd[S.G_DRAW_PC] = 2
            ask(st, p, np.int64(S.D_BLUFF), np.int64(-1), np.int64(2))
            return False
        S.add_hand(st, p, c)
        S.emit(st, S.E_DRAW, p, c, 0, 0, 0, 0, 0)
        ret(st, c, 0)
        return True


@njit(cache=True, _nrt=False, forceinline=True)
def s_refill(tb, st):
    """P_REFILL: RM-4 (3): draw or discard (D_DISCARD) to exactly the hand size (ENGINE-14)."""
    bd = st.board
    pc = bd[S.G_REFILL_PC]
    p = bd[S.G_REFILL_P]
    h = tb.params[T.P_HAND]
    while True:
        if pc == 0:
            if S.hand_n(st, p) < h:
                bd[S.G_REFILL_PC] = 1
                call_draw(st, p)
                if not s_draw(tb, st):
                    return False
                pc = 1
            else:
                pc = 2
        elif pc == 1:
            pc = 2 if bd[S.G_RV] < 0 else 0
        elif pc == 2:
            if S.hand_n(st, p) > h and S.free_cards(st, p) > 0:
                bd[S.G_REFILL_PC] = 3
                bd[S.G_SUB] = 0
                ask(st, p, np.int64(S.D_DISCARD), np.int64(-1), np.int64(0))
                return False
            ret(st, 0, 0)
            return True
        else:
            discard_from_hand(st, p, bd[S.G_ANS], np.int64(0))
            pc = 2


@njit(cache=True, _nrt=False, forceinline=False)
def s_fix(tb, st):
    """P_FIX: RM-3: a non-Raven discards every Feather and draws again until none is left; the
    Raven may discard its Feathers too (D_BLUFF, RM-18). Returns the Feathers discarded."""
    bd = st.board
    pc = bd[S.G_FIX_PC]
    p = bd[S.G_FIX_P]
    while True:
        if pc == 0:
            bd[S.G_FIX_K] = 0
            bd[S.G_FIX_IT] = 0
            pc = 1
        elif pc == 1:
            if bd[S.G_FIX_IT] >= st.deck.shape[0] + 2:
                ret(st, bd[S.G_FIX_K], 0)
                return True
            bd[S.G_FIX_IT] += 1
            if st.pl[p, S.PL_HAND + T.FEATHER] == 0:
                ret(st, bd[S.G_FIX_K], 0)
                return True
            if st.pl[p, S.PL_CHAR] == T.RAVEN:
                bd[S.G_FIX_PC] = 2
                ask(st, p, np.int64(S.D_BLUFF), np.int64(-1), np.int64(2))
                return False
            elif tb.params[T.P_FEATHER_REDRAW] == 0:
                ret(st, bd[S.G_FIX_K], 0)
                return True
            pc = 3
        elif pc == 2:
            if bd[S.G_ANS] == 0:
                ret(st, bd[S.G_FIX_K], 0)
                return True
            pc = 3
        else:
            S.take_hand(st, p, T.FEATHER)
            S.discard_card(st, T.FEATHER)
            st.pl[p, S.PL_FEATHER_DISC] += 1
            bd[S.G_FIX_K] += 1
            c = pop_deck(st)
            if c < 0:
                ret(st, bd[S.G_FIX_K], 0)
                return True
            S.tele(st, p, T.TE_DRAWN + c, 1)
            S.add_hand(st, p, c)
            pc = 1


@njit(cache=True, _nrt=False, forceinline=False)
def s_opening(tb, st):
    """P_OPENING: RM-3: deal, Feathers redrawn, the mulligans (D_MULLIGAN), then the discards go
    back in the deck."""
    bd = st.board
    pc = bd[S.G_OPEN_PC]
    n = S.n_players(st)
    first = bd[S.G_FIRST]
    while True:
        if pc == 0:
            for i in range(n):
                deal_open(tb, st, S.seat_at(st, first + i))
            bd[S.G_OPEN_I] = 0
            pc = 1
        elif pc == 1:
            if bd[S.G_OPEN_I] >= n:
                reshuffle(st)
                ret(st, 0, 0)
                return True
            p = S.seat_at(st, first + bd[S.G_OPEN_I])
            bd[S.G_OPEN_P] = p
            bd[S.G_OPEN_PC] = 2
            bd[S.G_FIX_P] = p
            push(st, np.int64(P_FIX), np.int64(S.G_FIX_PC))
            if not s_fix(tb, st):
                return False
            pc = 2
        elif pc == 2:
            bd[S.G_OPEN_K] = bd[S.G_RV]
            bd[S.G_OPEN_M] = 0
            pc = 3
        elif pc == 3:
            if bd[S.G_OPEN_M] >= tb.params[T.P_MULLIGANS]:
                pc = 5
            else:
                bd[S.G_OPEN_PC] = 4
                ask(st, bd[S.G_OPEN_P], np.int64(S.D_MULLIGAN), np.int64(-1), np.int64(2))
                return False
        elif pc == 4:
            if bd[S.G_ANS] == 0:
                pc = 5
            else:
                p = bd[S.G_OPEN_P]
                for c in range(T.NC):
                    while st.pl[p, S.PL_HAND + c] > 0:
                        S.take_hand(st, p, c)
                        S.discard_card(st, c)
                deal_open(tb, st, p)
                bd[S.G_OPEN_PC] = 6
                bd[S.G_FIX_P] = p
                push(st, np.int64(P_FIX), np.int64(S.G_FIX_PC))
                if not s_fix(tb, st):
                    return False
                pc = 6
        elif pc == 6:
            bd[S.G_OPEN_K] += bd[S.G_RV]
            bd[S.G_OPEN_M] += 1
            pc = 3
        else:
            S.emit(st, S.E_OPEN, bd[S.G_OPEN_P], bd[S.G_OPEN_K], bd[S.G_OPEN_M], 0, 0, 0, 0)
            bd[S.G_OPEN_I] += 1
            pc = 1


# ---------------------------------------------------------------------------------------------
# Response windows (RM-19)


@njit(cache=True, _nrt=False, forceinline=False)
def fitting(st, r, lvl, from_hand, eff, t):
    """The reactions of ``r``'s hand that fit the top of the window stack (RM-7, RM-19), into
    ``board[B_OPTS:]``; their count. Order: Evade, Dodge, Avoid, Lifebuoy, Rod, Rat Treachery."""
    if st.pl[r, S.PL_STUNNED] != 0:
        return 0
    bd = st.board
    o = S.B_OPTS
    n = np.int64(0)
    turn1 = bd[S.G_TURN] + 1
    if lvl == 0:
        card = bd[S.B_STACK]
        # RM-28: the target's Evade against Mountains is its own duel (s_mountains)
        if card != T.MOUNTAINS and eff & EF_KILL and t == r and S.alive(st, r):
            if st.pl[r, S.PL_SAFE_KILL] != turn1 and S.has(st, r, T.EVADE):
                bd[o + n] = T.EVADE
                n += 1
        if eff & EF_STUN and t == r and st.pl[r, S.PL_SAFE_STUN] != turn1:
            if S.has(st, r, T.DODGE):
                bd[o + n] = T.DODGE
                n += 1
        if eff & (EF_XCHG | EF_SWAP) and t == r and bd[S.B_STACK + 3] & AVOIDED == 0:
            if S.has(st, r, T.AVOID):
                bd[o + n] = T.AVOID
                n += 1
        if t >= 0 and t != r and S.has(st, r, T.LIFEBUOY):
            k = eff & EF_KILL and S.alive(st, t) and st.pl[t, S.PL_SAFE_KILL] != turn1
            s = eff & EF_STUN and st.pl[t, S.PL_SAFE_STUN] != turn1
            if k or s:
                bd[o + n] = T.LIFEBUOY
                n += 1
        if from_hand and card >= 0:
            if is_action_card(card) and S.has(st, r, T.ROD):
                bd[o + n] = T.ROD
                n += 1
            if S.has(st, r, T.RAT_TREACHERY):
                bd[o + n] = T.RAT_TREACHERY
                n += 1
    else:
        if S.has(st, r, T.ROD):
            bd[o + n] = T.ROD
            n += 1
        if S.has(st, r, T.RAT_TREACHERY):
            bd[o + n] = T.RAT_TREACHERY
            n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def s_window(tb, st):
    """P_WINDOW: RM-19: the window of ``card`` (-1: a death ability's effect) played by ``a`` at
    ``t``; each responder in turn is asked (D_REACT) when it holds a fitting reaction. Returns
    CANCELLED | AVOIDED bits; Evade, Dodge and Lifebuoy leave their mark on the players they
    protect (PL_SAFE_*, ENGINE-4)."""
    bd = st.board
    a = bd[S.G_WIN_A]
    t = bd[S.G_WIN_T]
    sk = S.B_STACK
    if bd[S.G_WIN_PC] == 0:
        n = S.n_players(st)
        k = np.int64(0)
        if t >= 0:
            bd[S.B_RESP] = t
            k = 1
        for i in range(n):
            q = S.seat_at(st, st.pl[a, S.PL_POS] + i)
            if q != t:
                bd[S.B_RESP + k] = q
                k += 1
        bd[S.G_WIN_K] = k
        bd[sk] = bd[S.G_WIN_CARD]
        bd[sk + 1] = a
        bd[sk + 2] = 0
        bd[sk + 3] = 0
        bd[sk + 4] = t
        bd[S.G_WIN_TURN1] = bd[S.G_TURN] + 1
        bd[S.G_WIN_LVL] = 0
    else:  # D_REACT answered
        c = bd[S.G_ANS]
        lvl = bd[S.G_WIN_LVL]
        if c != S.NO_CARD and lvl + 1 < S.MAX_STACK:
            r = bd[S.G_ACTOR]
            b = sk + 5 * lvl
            S.take_hand(st, r, c)
            S.tele(st, r, T.TE_PLAYED + c, 1)
            S.emit(st, S.E_REACT, r, c, lvl, bd[b], bd[b + 1], 0, 0)
            lvl += 1
            b += 5
            bd[b] = c
            bd[b + 1] = r
            bd[b + 2] = 0
            bd[b + 3] = 0
            if c == T.EVADE or c == T.DODGE or c == T.AVOID:
                bd[b + 4] = r
            elif c == T.LIFEBUOY:
                bd[b + 4] = t
            else:
                bd[b + 4] = bd[b - 5 + 1]
            bd[S.G_WIN_LVL] = lvl
    k = bd[S.G_WIN_K]
    lvl = bd[S.G_WIN_LVL]
    turn1 = bd[S.G_WIN_TURN1]
    while True:
        b = sk + 5 * lvl
        while bd[b + 2] < k:
            r = bd[S.B_RESP + bd[b + 2]]
            bd[b + 2] += 1
            if lvl > 0 and r == bd[b + 1]:
                continue
            n_opts = fitting(st, r, lvl, bd[S.G_WIN_FH], bd[S.G_WIN_EFF], t)
            if n_opts == 0:
                continue
            protects = t if lvl == 0 else bd[b + 4]
            bd[S.G_WIN_LVL] = lvl
            bd[S.G_WIN_PC] = 1
            ask(st, r, np.int64(S.D_REACT), protects, n_opts)
            return False
        if lvl == 0:
            break
        c = bd[b]
        r = bd[b + 1]
        tgt = bd[b + 4]
        S.discard_card(st, c)
        lvl -= 1
        b -= 5
        if c == T.ROD or c == T.RAT_TREACHERY:
            bd[b + 3] |= CANCELLED
            S.emit(st, S.E_CANCEL, bd[b + 1], bd[b], c, 0, 0, 0, 0)
            if c == T.RAT_TREACHERY:  # RM-7, RM-20, ENGINE-6
                bd[S.G_OVER] = 1
                bd[S.G_NEXT] = r
        elif c == T.EVADE:
            st.pl[r, S.PL_SAFE_KILL] = turn1
        elif c == T.DODGE:
            st.pl[r, S.PL_SAFE_STUN] = turn1
        elif c == T.AVOID:
            bd[sk + 3] |= AVOIDED
        elif c == T.LIFEBUOY:
            st.pl[tgt, S.PL_SAFE_KILL] = turn1
            st.pl[tgt, S.PL_SAFE_STUN] = turn1
        while lvl > 0 and bd[sk + 5 * lvl + 3] & CANCELLED:  # a cancelled reaction: no effect
            S.discard_card(st, bd[sk + 5 * lvl])
            lvl -= 1
        bd[S.G_WIN_LVL] = lvl
        if lvl == 0 and bd[sk + 3] & CANCELLED:
            break
    ret(st, bd[sk + 3], 0)
    return True


# ---------------------------------------------------------------------------------------------
# Kills, exchanges, looks


@njit(cache=True, _nrt=False, forceinline=False)
def s_kill(tb, st):
    """P_KILL: RM-21: a kill of ``t`` resolves (after its window); Shark Bouncer may die in its
    place (D_SACRIFICE). Returns 1 if someone died."""
    bd = st.board
    killer = bd[S.G_KILL_KILLER]
    t = bd[S.G_KILL_T]
    cause = bd[S.G_KILL_CAUSE]
    victim = t
    if bd[S.G_KILL_PC] == 0:
        if bd[S.G_END] != 0:
            ret(st, 0, 0)
            return True
        if not S.alive(st, t):
            S.emit(st, S.E_KILL_SAVED, t, 1, 0, 0, 0, 0, 0)
            ret(st, 0, 0)
            return True
        if st.pl[t, S.PL_SAFE_KILL] == bd[S.G_TURN] + 1:
            S.emit(st, S.E_KILL_SAVED, t, 0, 0, 0, 0, 0, 0)
            ret(st, 0, 0)
            return True
        if cause != T.D_PILLOW:
            for s in range(S.n_players(st)):
                if s != t and st.pl[s, S.PL_CHAR] == T.SHARK and S.alive(st, s):
                    bd[S.G_KILL_S] = s
                    bd[S.G_KILL_PC] = 1
                    ask(st, np.int64(s), np.int64(S.D_SACRIFICE), t, np.int64(2))
                    return False
    elif bd[S.G_ANS] != 0:
        victim = bd[S.G_KILL_S]
        cause = T.D_SACRIFICE
        S.emit(st, S.E_SACRIFICE, victim, t, 0, 0, 0, 0, 0)
    if killer >= 0:
        st.pl[killer, S.PL_KILLS] += 1
    die(st, victim, np.int64(cause), killer)
    ret(st, 1, 0)
    return True


@njit(cache=True, _nrt=False, forceinline=True)
def s_pillow(tb, st):
    """P_PILLOW: RM-8: the giver of a Pillow may reveal it (D_PILLOW); the receiver dies
    (ENGINE-8)."""
    bd = st.board
    giver = bd[S.G_PILLOW_GIVER]
    receiver = bd[S.G_PILLOW_RECV]
    if bd[S.G_PILLOW_PC] == 0:
        if not S.alive(st, giver) or not S.alive(st, receiver) or bd[S.G_END] != 0:
            ret(st, 0, 0)
            return True
        if not S.has(st, receiver, T.PILLOW):
            ret(st, 0, 0)
            return True
        bd[S.G_PILLOW_PC] = 1
        ask(st, giver, np.int64(S.D_PILLOW), receiver, np.int64(2))
        return False
    if bd[S.G_ANS] != 0:
        S.take_hand(st, receiver, T.PILLOW)
        S.discard_card(st, T.PILLOW)
        S.tele(st, giver, T.TE_PLAYED + T.PILLOW, 1)
        S.emit(st, S.E_PILLOW, giver, receiver, 0, 0, 0, 0, 0)
        if bd[S.G_BELIEFS] != 0:  # a revealed Pillow is a kill every seat sees (RM-8)
            B.observe_if(tb, st, giver, np.int64(B.C_KILL), receiver)
        st.pl[giver, S.PL_KILLS] += 1
        die(st, receiver, np.int64(T.D_PILLOW), giver)
    ret(st, 0, 0)
    return True


@njit(cache=True, _nrt=False, forceinline=True)
def s_trade(tb, st):
    """P_TRADE: ``a`` and ``b`` exchange one card each (D_GIVE, RM-16: chosen before either is
    seen); ENGINE-12."""
    bd = st.board
    pc = bd[S.G_TRADE_PC]
    a = bd[S.G_TRADE_A]
    b = bd[S.G_TRADE_B]
    while True:
        if pc == 0:
            if S.free_cards(st, a) > 0:
                bd[S.G_TRADE_PC] = 1
                ask(st, a, np.int64(S.D_GIVE), b, np.int64(0))
                return False
            bd[S.G_TRADE_CA] = -1
            pc = 2
        elif pc == 1:
            x = bd[S.G_ANS]
            bd[S.G_TRADE_CA] = -1 if x == S.NO_CARD else x
            pc = 2
        elif pc == 2:
            if S.free_cards(st, b) > 0:
                bd[S.G_TRADE_PC] = 3
                ask(st, b, np.int64(S.D_GIVE), a, np.int64(0))
                return False
            bd[S.G_TRADE_CB] = -1
            pc = 4
        elif pc == 3:
            x = bd[S.G_ANS]
            bd[S.G_TRADE_CB] = -1 if x == S.NO_CARD else x
            pc = 4
        elif pc == 4:
            ca = bd[S.G_TRADE_CA]
            cb = bd[S.G_TRADE_CB]
            if ca < 0 or cb < 0:
                if ca < 0:
                    S.show_hand(st, b, a)
                    S.emit(st, S.E_SHOW, a, b, S.hand_n(st, a), 0, 0, 0, 0)
                if cb < 0:
                    S.show_hand(st, a, b)
                    S.emit(st, S.E_SHOW, b, a, S.hand_n(st, b), 0, 0, 0, 0)
                ret(st, 0, 0)
                return True
            give_card(st, a, b, ca)
            give_card(st, b, a, cb)
            S.emit(st, S.E_XCHG, a, b, ca, cb, bd[S.G_TRADE_KIND], 0, 0)
            if ca == T.FEATHER:
                feather_given(st, a, b)
            if cb == T.FEATHER:
                feather_given(st, b, a)
            if ca == T.PILLOW:
                bd[S.G_TRADE_PC] = 5
                call_pillow(st, a, b)
                if not s_pillow(tb, st):
                    return False
                pc = 5
            pc = 5
        elif pc == 5:
            if bd[S.G_TRADE_CB] == T.PILLOW:
                bd[S.G_TRADE_PC] = 6
                call_pillow(st, b, a)
                if not s_pillow(tb, st):
                    return False
                pc = 6
            ret(st, 0, 0)
            return True
        else:
            ret(st, 0, 0)
            return True


@njit(cache=True, _nrt=False, forceinline=False)
def s_drink(tb, st):
    """P_DRINK: Drink, Zaku's Camera, Angler Photographer: ``a`` looks at ``t``'s hand and
    chooses a card that is not a Feather (D_DRINK, RM-26); ``t`` discards it."""
    bd = st.board
    a = bd[S.G_DRINK_A]
    t = bd[S.G_DRINK_T]
    if bd[S.G_DRINK_PC] == 0:
        S.show_hand(st, a, t)
        k = np.int64(0)
        for c in range(T.NC):
            if c != T.FEATHER and st.pl[t, S.PL_HAND + c] > 0:
                bd[S.B_PICK + k] = c
                k += 1
        if k == 0:
            ret(st, 0, 0)
            return True
        bd[S.G_DRINK_PC] = 1
        ask(st, a, np.int64(S.D_DRINK), t, k)
        return False
    discard_from_hand(st, t, bd[S.B_PICK + bd[S.G_ANS]], np.int64(2))
    ret(st, 0, 0)
    return True


@njit(cache=True, _nrt=False, forceinline=False)
def s_use(tb, st):
    """P_USE: the target and option of card ``c`` played by an effect (Manor Plan's Room,
    Compass's Location, Coast's Treasure Map, the Eagle, the Alligator), D_USE; returns
    (-2, 0) when it has no legal use."""
    bd = st.board
    if bd[S.G_USE_PC] == 0:
        p = bd[S.G_USE_P]
        n = enum_card(
            tb, st, p, bd[S.G_USE_C], np.int64(pol.K_FREE), bd[S.G_USE_LIVING], np.int64(0)
        )
        if n == 0:
            ret(st, -2, 0)
            return True
        bd[S.G_USE_PC] = 1
        ask(st, p, np.int64(S.D_USE), np.int64(-1), n)
        return False
    b = S.B_CAND + 4 * bd[S.G_ANS]
    ret(st, bd[b + 2], bd[b + 3])
    return True


@njit(cache=True, _nrt=False, forceinline=False)
def s_mountains(tb, st):
    """P_MOUNTAINS: RM-28: the target may Evade (D_MOUNTAINS_EVADE); then the attacker may
    Evade too (D_MOUNTAINS_BACK), and both die."""
    bd = st.board
    pc = bd[S.G_MNT_PC]
    a = bd[S.G_MNT_A]
    t = bd[S.G_MNT_T]
    while True:
        if pc == 0:
            if not S.alive(st, t) or bd[S.G_END] != 0:
                ret(st, 0, 0)
                return True
            if st.pl[t, S.PL_SAFE_KILL] == bd[S.G_TURN] + 1:
                S.emit(st, S.E_KILL_SAVED, t, 0, 0, 0, 0, 0, 0)
                ret(st, 0, 0)
                return True
            if st.pl[t, S.PL_STUNNED] == 0 and S.has(st, t, T.EVADE):
                bd[S.B_OPTS] = T.EVADE
                bd[S.B_STACK + 5] = T.MOUNTAINS
                bd[S.B_STACK + 6] = a
                bd[S.B_STACK + 9] = t
                bd[S.G_MNT_PC] = 1
                ask(st, t, np.int64(S.D_MOUNTAINS_EVADE), a, np.int64(1))
                return False
            pc = 3
        elif pc == 1:
            if bd[S.G_ANS] == T.EVADE:
                st.pl[t, S.PL_SAFE_KILL] = bd[S.G_TURN] + 1  # ENGINE-4
                S.take_hand(st, t, T.EVADE)
                S.discard_card(st, T.EVADE)
                S.tele(st, t, T.TE_PLAYED + T.EVADE, 1)
                S.emit(st, S.E_REACT, t, T.EVADE, 0, T.MOUNTAINS, a, 0, 0)
                pc = 2
            else:
                pc = 3
        elif pc == 2:
            if st.pl[a, S.PL_STUNNED] == 0 and S.has(st, a, T.EVADE):
                bd[S.G_MNT_PC] = 4
                ask(st, a, np.int64(S.D_MOUNTAINS_BACK), t, np.int64(2))
                return False
            ret(st, 0, 0)
            return True
        elif pc == 3:
            bd[S.G_MNT_PC] = 9
            call_kill(st, a, t, np.int64(T.D_MOUNTAINS))
            if not s_kill(tb, st):
                return False
            pc = 9
        elif pc == 4:
            if bd[S.G_ANS] != 0:
                S.take_hand(st, a, T.EVADE)
                S.discard_card(st, T.EVADE)
                S.tele(st, a, T.TE_PLAYED + T.EVADE, 1)
                S.emit(st, S.E_REACT, a, T.EVADE, 0, T.MOUNTAINS, t, 0, 0)
                st.pl[a, S.PL_KILLS] += 1
                bd[S.G_HOLD] = 1  # both die at once: the end is judged after both (RM-22)
                die(st, t, np.int64(T.D_MOUNTAINS), a)
                die(st, a, np.int64(T.D_MOUNTAINS), a)
                bd[S.G_HOLD] = 0
                if bd[S.G_DEPTH] == bd[S.G_DEATHS_N]:
                    check_end(st)
            ret(st, 0, 0)
            return True
        else:
            ret(st, 0, 0)
            return True


# ---------------------------------------------------------------------------------------------
# Cards


@njit(cache=True, _nrt=False, forceinline=False)
def card_fin(st, c):
    """The end of a card's effect: a card that is not a place goes to the discard pile; returns
    the card the effect plays next (-1 none)."""
    if not is_place(c):
        S.discard_card(st, c)
    ret(st, st.board[S.G_CARD_NXT], 0)


@njit(cache=True, _nrt=False, forceinline=False)
def s_card(tb, st):
    """P_CARD: card ``c`` (out of every place already) played by ``a`` at ``t`` with option
    ``o``: its window (RM-19), then its effect. Returns a card the effect plays next (-1 none)."""
    bd = st.board
    pc = bd[S.G_CARD_PC]
    a = bd[S.G_CARD_A]
    c = bd[S.G_CARD_C]
    t = bd[S.G_CARD_T]
    o = bd[S.G_CARD_O]
    while True:
        if pc == 0:
            bd[S.G_CARD_NXT] = -1
            bd[S.G_CARD_PC] = 1
            call_window(st, a, c, bd[S.G_CARD_FH], card_effects(c, o), t)
            if not s_window(tb, st):
                return False
            pc = 1
        elif pc == 1:
            place = is_place(c)
            status = bd[S.G_RV]
            if place:
                if bd[S.G_CARD_ENT]:
                    if status & CANCELLED:
                        S.discard_card(st, c)  # RM-19: a cancelled Room or Location: discarded
                        ret(st, -1, 0)
                        return True
                    bd[S.B_INPLAY + c] += 1
                    S.emit(st, S.E_INPLAY, a, c, 1, 0, 0, 0, 0)
                if status & CANCELLED:
                    ret(st, -1, 0)
                    return True
                u = c - T.ROOM0 if c < T.ROOM1 else (T.ROOM1 - T.ROOM0) + (c - T.LOC0)
                S.tele(st, a, T.TE_USED + u, 1)
            elif status & CANCELLED:
                S.discard_card(st, c)
                ret(st, -1, 0)
                return True
            avoided = status & AVOIDED
            pc = 2
            if c == T.BASEMENT or c == T.BEDROOM or c == T.FATHERS_STUDY or c == T.KITCHEN:
                search_to_hand(st, a, o, np.int64(0))
            elif c == T.CABIN:
                search_to_hand(st, a, o, np.int64(1))
            elif c == T.BATHROOM:
                bd[S.G_CARD_K] = 0
                pc = 10
            elif c == T.DINING_ROOM:
                if not avoided:
                    if o == 0:
                        bd[S.G_CARD_PC] = 2
                        call_trade(st, a, t, np.int64(1))
                        if not s_trade(tb, st):
                            return False
                        pc = 2
                    else:
                        swap_seats(st, a, t)
            elif c == T.GUESTROOM:
                if o == 0:
                    search_to_hand(st, a, np.int64(T.PILLOW), np.int64(0))
                elif S.free_cards(st, a) > 0:
                    bd[S.G_CARD_PC] = 20
                    bd[S.G_SUB] = 2
                    ask(st, a, np.int64(S.D_DISCARD), np.int64(-1), np.int64(0))
                    return False
            elif c == T.LIBRARY:
                S.show_hand(st, a, t)
                S.emit(st, S.E_SHOW, t, a, S.hand_n(st, t), 0, 0, 0, 0)
            elif c == T.EXCHANGE:
                if not avoided:
                    bd[S.G_CARD_PC] = 2
                    call_trade(st, a, t, np.int64(1))
                    if not s_trade(tb, st):
                        return False
                    pc = 2
            elif c == T.GET_OVER_HERE:
                if o == 1:
                    S.show_hand(st, a, t)
                    S.emit(st, S.E_SHOW, t, a, S.hand_n(st, t), 0, 0, 0, 0)
                elif not avoided:
                    swap_seats(st, a, t)
            elif c == T.VASE or c == T.HAYMAKER:
                stun_with(st, a, t, c)
                ret(st, -1, 0)
                return True
            elif c == T.BOTTLE:
                placed = stun(st, a, t, c)
                search_to_hand(st, a, np.int64(T.BROKEN_BOTTLE), np.int64(0))
                if not placed:
                    S.discard_card(st, c)
                ret(st, -1, 0)
                return True
            elif c == T.AXE or c == T.BROKEN_BOTTLE or c == T.KNIFE or c == T.RIFLE:
                bd[S.G_CARD_PC] = 2
                call_kill(st, a, t, np.int64(T.D_KILL))
                if not s_kill(tb, st):
                    return False
                pc = 2
            elif c == T.HARPOON:  # RM-21: kill, then stun, each answered on its own; Rod or Rat
                bd[S.G_CARD_PC] = 30  # Treachery in the first window cancels both
                call_kill(st, a, t, np.int64(T.D_KILL))
                if not s_kill(tb, st):
                    return False
                pc = 30
            elif c == T.CANDLE:
                k = np.int64(0)
                for _ in range(tb.params[T.P_CANDLE]):
                    x = pop_deck(st)
                    if x < 0:
                        break
                    bd[S.B_PICK + k] = x
                    k += 1
                if k > 0:
                    bd[S.G_CARD_K] = k
                    bd[S.G_CARD_PC] = 40
                    ask(st, a, np.int64(S.D_CANDLE_KEEP), np.int64(-1), k)
                    return False
            elif c == T.MANOR_PLAN or c == T.COMPASS:
                if find_card(st, a, o, np.int64(0)):
                    bd[S.G_CARD_NXT] = o
            elif c == T.BACKPACK:
                st.pl[a, S.PL_BACKPACKS] += 1
                bd[S.G_CARD_J] = 0
                pc = 50
            elif c == T.BARRICADE:
                bd[S.B_BARR + t] += 1
                S.emit(st, S.E_BARRICADE, a, t, 1, 0, 0, 0, 0)
                ret(st, -1, 0)
                return True
            elif c == T.DRINK:
                bd[S.G_CARD_PC] = 2
                call_drink(st, a, t)
                if not s_drink(tb, st):
                    return False
                pc = 2
            elif c == T.TORCH or c == T.ABANDONED_MINE:
                bd[S.G_CARD_K] = reveal_top(
                    st, tb.params[T.P_TORCH if c == T.TORCH else T.P_MINE_REVEAL]
                )
                bd[S.G_CARD_J] = 0
                pc = 60
            elif c == T.TREASURE_MAP:
                search_to_hand(st, a, o, np.int64(1))
            elif c == T.ZAKUS_CAMERA:
                if o == 0:
                    look_char(st, a, t)
                else:
                    bd[S.G_CARD_PC] = 2
                    call_drink(st, a, t)
                    if not s_drink(tb, st):
                        return False
                    pc = 2
            elif c == T.CAVE:
                random_take(st, a, t)
            elif c == T.COAST:
                if S.has(st, a, T.BOTTLE):
                    discard_from_hand(st, a, np.int64(T.BOTTLE), np.int64(2))
                if find_card(st, a, np.int64(T.TREASURE_MAP), np.int64(0)):
                    bd[S.G_CARD_NXT] = T.TREASURE_MAP
            elif c == T.FOREST:  # RM-24: the other neighbour of the next player consents
                s = S.left(st, t)
                bd[S.G_CARD_X] = s
                bd[S.G_CARD_PC] = 70
                ask(st, s, np.int64(S.D_FOREST), t, np.int64(2))
                return False
            elif c == T.MOUNTAINS:
                bd[S.G_MNT_A] = a
                bd[S.G_MNT_T] = t
                bd[S.G_CARD_PC] = 2
                push(st, np.int64(P_MOUNTAINS), np.int64(S.G_MNT_PC))
                if not s_mountains(tb, st):
                    return False
                pc = 2
            elif c == T.THE_INN:
                bd[S.G_CARD_PC] = 80
                ask(st, t, np.int64(S.D_INN), a, np.int64(2))
                return False
        elif pc == 2:
            card_fin(st, c)
            return True
        elif pc == 10:  # Bathroom: discard any number (D_BATHROOM), then draw as many
            if S.free_cards(st, a) > 0:
                bd[S.G_CARD_PC] = 11
                bd[S.G_SUB] = bd[S.G_CARD_K]
                ask(st, a, np.int64(S.D_BATHROOM), np.int64(-1), np.int64(0))
                return False
            bd[S.G_CARD_J] = 0
            pc = 12
        elif pc == 11:
            d = bd[S.G_ANS]
            if d == S.NO_CARD or d < 0 or not S.can_part(st, a, d):
                bd[S.G_CARD_J] = 0
                pc = 12
            else:
                discard_from_hand(st, a, d, np.int64(2))
                bd[S.G_CARD_K] += 1
                pc = 10
        elif pc == 12:
            if bd[S.G_CARD_J] < bd[S.G_CARD_K]:
                bd[S.G_CARD_J] += 1
                bd[S.G_CARD_PC] = 12
                call_draw(st, a)
                if not s_draw(tb, st):
                    return False
                pc = 12
            else:
                pc = 2
        elif pc == 20:  # Guestroom: the card discarded, then one drawn
            discard_from_hand(st, a, bd[S.G_ANS], np.int64(2))
            bd[S.G_CARD_PC] = 2
            call_draw(st, a)
            if not s_draw(tb, st):
                return False
            pc = 2
        elif pc == 30:
            bd[S.G_CARD_PC] = 31
            call_window(st, a, np.int64(-1), np.int64(0), np.int64(EF_STUN), t)
            if not s_window(tb, st):
                return False
            pc = 31
        elif pc == 31:
            stun_with(st, a, t, c)
            ret(st, -1, 0)
            return True
        elif pc == 40:  # Candle: the card into hand chosen, then the one on top
            k = bd[S.G_CARD_K]
            i = bd[S.G_ANS]
            bd[S.G_CARD_X] = bd[S.B_PICK + i]
            bd[S.B_PICK + i] = bd[S.B_PICK + k - 1]
            k -= 1
            bd[S.G_CARD_K] = k
            bd[S.G_CARD_J] = -1
            if k > 0:
                bd[S.G_CARD_PC] = 41
                ask(st, a, np.int64(S.D_CANDLE_TOP), np.int64(-1), k)
                return False
            pc = 42
        elif pc == 41:
            k = bd[S.G_CARD_K]
            j = bd[S.G_ANS]
            bd[S.G_CARD_J] = bd[S.B_PICK + j]
            bd[S.B_PICK + j] = bd[S.B_PICK + k - 1]
            bd[S.G_CARD_K] = k - 1
            pc = 42
        elif pc == 42:
            k = bd[S.G_CARD_K]
            top = bd[S.G_CARD_J]
            x = bd[S.G_CARD_X]
            # the rest under the deck, then the chosen one on top
            n = bd[S.G_DECK_N]
            for m in range(n - 1, -1, -1):
                st.deck[m + k] = st.deck[m]
            for m in range(k):
                st.deck[m] = bd[S.B_PICK + m]
            n += k
            if top >= 0:
                st.deck[n] = top
                n += 1
            bd[S.G_DECK_N] = n
            if x == T.FEATHER and st.pl[a, S.PL_CHAR] != T.RAVEN:
                S.discard_card(st, x)  # RM-26
                st.pl[a, S.PL_FEATHER_DISC] += 1
                S.emit(st, S.E_FEATHER, a, 0, 0, 0, 0, 0, 0)
            else:
                S.add_hand(st, a, x)
                S.emit(st, S.E_PICK, a, x, T.CANDLE, 0, 0, 0, 0)
            pc = 2
        elif pc == 50:  # Backpack: store up to its slots (D_STORE)
            if bd[S.G_CARD_J] >= tb.params[T.P_BACKPACK]:
                ret(st, -1, 0)
                return True
            bd[S.G_CARD_J] += 1
            k = np.int64(0)
            for x in range(T.NC):
                if S.can_part(st, a, x):
                    bd[S.B_PICK + k] = x
                    k += 1
            if k == 0:
                ret(st, -1, 0)
                return True
            bd[S.G_CARD_PC] = 51
            ask(st, a, np.int64(S.D_STORE), np.int64(-1), k)
            return False
        elif pc == 51:
            i = bd[S.G_ANS]
            if i >= bd[S.G_NOPT]:
                ret(st, -1, 0)
                return True
            x = bd[S.B_PICK + i]
            S.take_hand(st, a, x)
            st.pl[a, S.PL_BP + x] += 1
            st.pl[a, S.PL_BP_N] += 1
            S.emit(st, S.E_BACKPACK, a, x, 1, 0, 0, 0, 0)
            pc = 50
        elif pc == 60:  # Torch, Abandoned Mine: the cards kept (D_TORCH, D_MINE)
            keep = 1 if c == T.TORCH else tb.params[T.P_MINE_KEEP]
            if bd[S.G_CARD_J] >= keep or bd[S.G_CARD_K] == 0:
                pc = 62
            else:
                bd[S.G_CARD_J] += 1
                bd[S.G_CARD_PC] = 61
                kind = S.D_TORCH if c == T.TORCH else S.D_MINE
                ask(st, a, np.int64(kind), np.int64(-1), bd[S.G_CARD_K])
                return False
        elif pc == 61:
            i = bd[S.G_ANS]
            k = bd[S.G_CARD_K]
            x = bd[S.B_PICK + i]
            to_hand_public(st, a, x)
            if x != T.FEATHER or st.pl[a, S.PL_CHAR] == T.RAVEN:  # RM-26: else discarded
                S.emit(st, S.E_PICK, a, x, c, 0, 0, 0, 0)
            bd[S.B_PICK + i] = bd[S.B_PICK + k - 1]
            bd[S.G_CARD_K] = k - 1
            pc = 60
        elif pc == 62:
            for m in range(bd[S.G_CARD_K]):
                S.discard_card(st, bd[S.B_PICK + m])
            if c == T.ABANDONED_MINE and bd[S.B_INPLAY + c] > 0:
                bd[S.B_INPLAY + c] -= 1
                bd[S.B_REMOVED + c] += 1
                S.emit(st, S.E_INPLAY, a, c, 0, 0, 0, 0, 0)
            if c == T.ABANDONED_MINE:
                ret(st, -1, 0)
                return True
            pc = 2
        elif pc == 70:  # Forest: the consent answered
            s = bd[S.G_CARD_X]
            yes = bd[S.G_ANS] != 0
            S.emit(st, S.E_CONSENT, a, s, 1 if yes else 0, 0, 0, 0, 0)
            if yes:
                st.pl[s, S.PL_SKIP] = 1
                bd[S.G_CARD_PC] = 71
                call_kill(st, a, t, np.int64(T.D_KILL))
                if not s_kill(tb, st):
                    return False
                pc = 71
            pc = 71
        elif pc == 71:
            bd[S.G_OVER] = 1  # RM-20
            pc = 2
        elif pc == 80:  # The Inn: the consent answered
            yes = bd[S.G_ANS] != 0
            S.emit(st, S.E_CONSENT, a, t, 1 if yes else 0, 1, 0, 0, 0)
            if yes and S.free_cards(st, a) > 0:
                bd[S.G_CARD_PC] = 81
                ask(st, a, np.int64(S.D_GIVE), t, np.int64(0))
                return False
            pc = 2
        else:  # 81: the card given at The Inn
            x = bd[S.G_ANS]
            give_card(st, a, t, x)
            S.emit(st, S.E_XCHG, a, t, x, -1, 2, 0, 0)
            if x == T.FEATHER:
                feather_given(st, a, t)
            elif x == T.PILLOW:
                bd[S.G_CARD_PC] = 2
                call_pillow(st, a, t)
                if not s_pillow(tb, st):
                    return False
                pc = 2
            pc = 2


@njit(cache=True, _nrt=False, forceinline=False)
def s_chain(tb, st):
    """P_CHAIN: ``c`` and the cards its effect plays in turn (Manor Plan's Room, Compass's
    Location, Coast's Treasure Map), each with its own window; ``entering``: a Room or Location
    ``c`` comes into play (from hand, or played by an effect: Groguś, Guardian Eagle), else it is
    used where it lies in play."""
    bd = st.board
    pc = bd[S.G_CHAIN_PC]
    a = bd[S.G_CHAIN_A]
    while True:
        if pc == 0:
            bd[S.G_CHAIN_IT] = 0
            pc = 1
        elif pc == 1:
            if bd[S.G_CHAIN_IT] >= 4:
                ret(st, 0, 0)
                return True
            bd[S.G_CHAIN_IT] += 1
            bd[S.G_CARD_A] = a
            bd[S.G_CARD_C] = bd[S.G_CHAIN_C]
            bd[S.G_CARD_T] = bd[S.G_CHAIN_T]
            bd[S.G_CARD_O] = bd[S.G_CHAIN_O]
            bd[S.G_CARD_FH] = bd[S.G_CHAIN_FH]
            bd[S.G_CARD_ENT] = bd[S.G_CHAIN_ENT]
            bd[S.G_CARD_LIVING] = bd[S.G_CHAIN_LIVING]
            bd[S.G_CHAIN_PC] = 2
            push(st, np.int64(P_CARD), np.int64(S.G_CARD_PC))
            return False  # run starts s_card (module docstring: compile time)
        elif pc == 2:
            nxt = bd[S.G_RV]
            if nxt < 0 or bd[S.G_END] != 0:
                ret(st, 0, 0)
                return True
            bd[S.G_CHAIN_C] = nxt
            bd[S.G_CHAIN_FH] = 0
            bd[S.G_CHAIN_ENT] = 1
            bd[S.G_CHAIN_PC] = 3
            call_use(st, a, nxt, bd[S.G_CHAIN_LIVING])
            if not s_use(tb, st):
                return False
            pc = 3
        else:
            t = bd[S.G_RV]
            if t == -2:  # no legal use: a Room or Location still enters play
                c = bd[S.G_CHAIN_C]
                if is_place(c):
                    bd[S.B_INPLAY + c] += 1
                    S.emit(st, S.E_INPLAY, a, c, 1, 0, 0, 0, 0)
                else:
                    S.discard_card(st, c)
                ret(st, 0, 0)
                return True
            bd[S.G_CHAIN_T] = t
            bd[S.G_CHAIN_O] = bd[S.G_RV2]
            pc = 1


# ---------------------------------------------------------------------------------------------
# Death abilities (RM-5, RM-21, RM-23, RM-24)


@njit(cache=True, _nrt=False, forceinline=False)
def s_weapon(tb, st):
    """P_WEAPON: Captain Pike, Lumbearjack, Wolf Brother: the card from the deck, else the discard
    pile, used on any chosen player (D_KILL_TARGET, RM-23); the card then goes to the discard."""
    bd = st.board
    pc = bd[S.G_WEAP_PC]
    v = bd[S.G_WEAP_V]
    card = bd[S.G_WEAP_CARD]
    while True:
        t = bd[S.G_WEAP_T]
        if pc == 0:
            if not find_card(st, v, card, np.int64(1)):
                ret(st, 0, 0)
                return True
            if target_mask(st, v, np.int64(1), np.int64(0)) == 0:
                S.discard_card(st, card)
                ret(st, 0, 0)
                return True
            bd[S.G_WEAP_PC] = 1
            ask(st, v, np.int64(S.D_KILL_TARGET), np.int64(-1), S.n_players(st))
            return False
        elif pc == 1:
            t = bd[S.G_ANS]
            bd[S.G_WEAP_T] = t
            S.emit(st, S.E_ABILITY, v, bd[S.G_WEAP_CH], t, card, 0, 0, 0)  # ch: the card it died as
            bd[S.G_WEAP_PC] = 2
            call_window(st, v, np.int64(-1), np.int64(0), np.int64(EF_KILL), t)
            if not s_window(tb, st):
                return False
            pc = 2
        elif pc == 2:
            bd[S.G_WEAP_PC] = 3
            call_kill(st, v, t, np.int64(T.D_ABILITY))
            if not s_kill(tb, st):
                return False
            pc = 3
        elif pc == 3:
            if card == T.HARPOON:  # RM-21: the stun is answered on its own
                bd[S.G_WEAP_PC] = 4
                call_window(st, v, np.int64(-1), np.int64(0), np.int64(EF_STUN), t)
                if not s_window(tb, st):
                    return False
                pc = 4
            else:
                S.discard_card(st, card)
                ret(st, 0, 0)
                return True
        else:
            stun_with(st, v, t, card)
            ret(st, 0, 0)
            return True


@njit(cache=True, _nrt=False, forceinline=False)
def ask_target(st, v, kind, living_only):
    """Ask ``v`` for the target of its death ability (``kind``) if it has one; False if none."""
    if target_mask(st, v, living_only, np.int64(0)) == 0:
        return False
    ask(st, v, kind, np.int64(-1), S.n_players(st))
    return True


@njit(cache=True, _nrt=False, forceinline=False)
def s_death(tb, st):
    """P_DEATH: the death ability of character ``ch``, which ``v`` held when it died (RM-5: its
    choices are ``v``'s)."""
    bd = st.board
    pc = bd[S.G_DEATH_PC]
    v = bd[S.G_DEATH_V]
    ch = bd[S.G_DEATH_CH]
    t = bd[S.G_DEATH_T]
    n = S.n_players(st)
    while True:
        if pc == 0:
            if ch == T.BOAR or ch == T.DOC:
                bd[S.G_DEATH_PC] = 10
                if not ask_target(st, v, np.int64(S.D_KILL_TARGET), np.int64(1)):
                    ret(st, 0, 0)
                    return True
                return False
            elif ch == T.PIKE or ch == T.LUMBEARJACK or ch == T.WOLF:
                bd[S.G_WEAP_V] = v
                bd[S.G_WEAP_CH] = ch
                bd[S.G_WEAP_CARD] = (
                    T.HARPOON if ch == T.PIKE else (T.AXE if ch == T.LUMBEARJACK else T.RIFLE)
                )
                bd[S.G_DEATH_PC] = 99
                push(st, np.int64(P_WEAPON), np.int64(S.G_WEAP_PC))
                if not s_weapon(tb, st):
                    return False
                pc = 99
            elif ch == T.ANGLER:
                bd[S.G_DEATH_PC] = 20
                if not ask_target(st, v, np.int64(S.D_LOOK_TARGET), np.int64(0)):
                    ret(st, 0, 0)
                    return True
                return False
            elif ch == T.BUNNY:
                bd[S.G_DEATH_PC] = 30
                if not ask_target(st, v, np.int64(S.D_SWAP_TARGET), np.int64(0)):
                    ret(st, 0, 0)
                    return True
                return False
            elif ch == T.CATFISH:
                bd[S.G_DEATH_PC] = 40
                if not ask_target(st, v, np.int64(S.D_REVEAL_TARGET), np.int64(0)):
                    ret(st, 0, 0)
                    return True
                return False
            elif ch == T.CRAYFISH:
                bd[S.G_DEATH_PC] = 50
                if not ask_target(st, v, np.int64(S.D_STUN_SWAP_TARGET), np.int64(0)):
                    ret(st, 0, 0)
                    return True
                return False
            elif ch == T.EEL:
                S.emit(st, S.E_ABILITY, v, ch, -1, 0, 0, 0, 0)
                bd[S.G_DEATH_I] = 1
                pc = 60
            elif ch == T.GROGUS:  # as if alive (rulebook FAQ)
                k = np.int64(0)
                for c in range(T.NC):
                    if bd[S.B_DISC + c] > 0 and not (T.REACT0 <= c < T.REACT1) and c != T.PILLOW:
                        if c != T.FEATHER:
                            k = enum_card(tb, st, v, c, np.int64(pol.K_FREE), np.int64(1), k)
                if k == 0:
                    ret(st, 0, 0)
                    return True
                bd[S.G_DEATH_PC] = 70
                ask(st, v, np.int64(S.D_GROGUS), np.int64(-1), k)
                return False
            elif ch == T.WHALE:
                bd[S.G_DEATH_PC] = 80
                if not ask_target(st, v, np.int64(S.D_WHALE_TARGET), np.int64(0)):
                    ret(st, 0, 0)
                    return True
                return False
            elif ch == T.MAYOR:  # RM-24
                bd[S.G_DEATH_PC] = 90
                if not ask_target(st, v, np.int64(S.D_KILL_TARGET), np.int64(1)):
                    ret(st, 0, 0)
                    return True
                return False
            elif ch == T.SQUIRREL:
                S.emit(st, S.E_ABILITY, v, ch, -1, T.ROD, 0, 0, 0)
                search_to_hand(st, v, np.int64(T.ROD), np.int64(1))
                bd[S.G_DEATH_PC] = 100
                if not ask_target(st, v, np.int64(S.D_LOOK_TARGET), np.int64(0)):
                    ret(st, 0, 0)
                    return True
                return False
            elif ch == T.ALLIGATOR:
                S.emit(st, S.E_ABILITY, v, ch, -1, T.TREASURE_MAP, 0, 0, 0)
                if find_card(st, v, np.int64(T.TREASURE_MAP), np.int64(1)):
                    bd[S.G_DEATH_PC] = 110
                    call_use(st, v, np.int64(T.TREASURE_MAP), np.int64(0))
                    if not s_use(tb, st):
                        return False
                    pc = 110
                else:
                    ret(st, 0, 0)
                    return True
            else:
                ret(st, 0, 0)
                return True
        elif pc == 10:  # Boar, Doc: the kill
            t = bd[S.G_ANS]
            bd[S.G_DEATH_T] = t
            S.emit(st, S.E_ABILITY, v, ch, t, 0, 0, 0, 0)
            bd[S.G_DEATH_PC] = 11
            call_window(st, v, np.int64(-1), np.int64(0), np.int64(EF_KILL), t)
            if not s_window(tb, st):
                return False
            pc = 11
        elif pc == 11:
            bd[S.G_DEATH_PC] = 99
            call_kill(st, v, t, np.int64(T.D_ABILITY))
            if not s_kill(tb, st):
                return False
            pc = 99
        elif pc == 20:  # Angler: the target, then a look at its character or its hand
            t = bd[S.G_ANS]
            bd[S.G_DEATH_T] = t
            if S.hand_n(st, t) == 0:
                bd[S.G_DEATH_MINE] = 1
                pc = 22
            else:
                bd[S.G_DEATH_PC] = 21
                ask(st, v, np.int64(S.D_ANGLER_LOOK), t, np.int64(2))
                return False
        elif pc == 21:
            bd[S.G_DEATH_MINE] = 1 if bd[S.G_ANS] != 0 else 0
            pc = 22
        elif pc == 22:
            look = bd[S.G_DEATH_MINE] != 0
            S.emit(st, S.E_ABILITY, v, ch, t, 0 if look else 1, 0, 0, 0)
            if look:
                look_char(st, v, t)
                ret(st, 0, 0)
                return True
            bd[S.G_DEATH_PC] = 99
            call_drink(st, v, t)
            if not s_drink(tb, st):
                return False
            pc = 99
        elif pc == 30:  # Bunny
            t = bd[S.G_ANS]
            bd[S.G_DEATH_T] = t
            S.emit(st, S.E_ABILITY, v, ch, t, 0, 0, 0, 0)
            bd[S.G_DEATH_PC] = 31
            call_window(st, v, np.int64(-1), np.int64(0), np.int64(EF_SWAP), t)
            if not s_window(tb, st):
                return False
            pc = 31
        elif pc == 31:
            if not bd[S.G_RV] & AVOIDED:
                swap_seats(st, v, t)
            ret(st, 0, 0)
            return True
        elif pc == 40:  # Catfish
            t = bd[S.G_ANS]
            S.emit(st, S.E_ABILITY, v, ch, t, 0, 0, 0, 0)
            S.reveal_hand(st, t)
            S.emit(st, S.E_SHOW, t, -1, S.hand_n(st, t), 0, 0, 0, 0)
            ret(st, 0, 0)
            return True
        elif pc == 50:  # Crayfish: two effects, each answered on its own (as Harpoon's, RM-21)
            t = bd[S.G_ANS]
            bd[S.G_DEATH_T] = t
            S.emit(st, S.E_ABILITY, v, ch, t, 0, 0, 0, 0)
            bd[S.G_DEATH_PC] = 51
            call_window(st, v, np.int64(-1), np.int64(0), np.int64(EF_STUN), t)
            if not s_window(tb, st):
                return False
            pc = 51
        elif pc == 51:
            stun(st, v, t, np.int64(-1))
            bd[S.G_DEATH_PC] = 52
            call_window(st, v, np.int64(-1), np.int64(0), np.int64(EF_XCHG), t)
            if not s_window(tb, st):
                return False
            pc = 52
        elif pc == 52:
            if not bd[S.G_RV] & AVOIDED:
                swap_hands(st, v, t)
            ret(st, 0, 0)
            return True
        elif pc == 60:  # Eel: each other seat in turn order chooses (D_EEL)
            i = bd[S.G_DEATH_I]
            if i >= n:
                ret(st, 0, 0)
                return True
            q = S.seat_at(st, st.pl[v, S.PL_POS] + i)
            bd[S.G_DEATH_PC] = 61
            ask(st, q, np.int64(S.D_EEL), v, np.int64(2))
            return False
        elif pc == 61:
            q = bd[S.G_ACTOR]
            if bd[S.G_ANS] != 0:
                S.emit(st, S.E_EEL, q, 0, 0, 0, 0, 0, 0)
                stun(st, np.int64(-1), q, np.int64(-1))
            else:
                S.emit(st, S.E_EEL, q, 1, 0, 0, 0, 0, 0)
                for c in range(T.NC):  # rulebook FAQ: Feathers stay in hand
                    if c != T.FEATHER:
                        while st.pl[q, S.PL_HAND + c] > 0:
                            discard_from_hand(st, q, c, np.int64(2))
            bd[S.G_DEATH_I] += 1
            pc = 60
        elif pc == 70:  # Groguś: the card of the discard pile chosen
            b = S.B_CAND + 4 * bd[S.G_ANS]
            c = bd[b + 1]
            t = bd[b + 2]
            o = bd[b + 3]
            bd[S.B_DISC + c] -= 1
            bd[S.G_DISC_N] -= 1
            S.emit(st, S.E_ABILITY, v, ch, t, c, 0, 0, 0)
            S.tele(st, v, T.TE_PLAYED + c, 1)
            bd[S.G_DEATH_PC] = 99
            call_chain(st, v, c, t, o, np.int64(0), np.int64(1), np.int64(1))
            return False  # run starts s_chain (module docstring: compile time)
        elif pc == 80:  # Lady Whale
            t = bd[S.G_ANS]
            S.emit(st, S.E_ABILITY, v, ch, t, 0, 0, 0, 0)
            whale_swap(st, v, t)
            ret(st, 0, 0)
            return True
        elif pc == 90:  # Mayor: the target, then the votes (D_VOTE), its own first
            t = bd[S.G_ANS]
            bd[S.G_DEATH_T] = t
            bd[S.G_DEATH_KILLS] = 0
            bd[S.G_DEATH_PC] = 91
            ask(st, v, np.int64(S.D_VOTE), t, np.int64(2))
            return False
        elif pc == 91:
            bd[S.G_DEATH_MINE] = 1 if bd[S.G_ANS] != 0 else 0
            bd[S.G_DEATH_I] = 0
            pc = 92
        elif pc == 92:
            i = bd[S.G_DEATH_I]
            while i < n and i == v:
                bd[S.G_DEATH_KILLS] += bd[S.G_DEATH_MINE]
                i += 1
            bd[S.G_DEATH_I] = i
            if i < n:
                bd[S.G_DEATH_PC] = 93
                ask(st, i, np.int64(S.D_VOTE), t, np.int64(2))
                return False
            kills = bd[S.G_DEATH_KILLS]
            mine = bd[S.G_DEATH_MINE] != 0
            stuns = n - kills
            do_kill = kills > stuns or (kills == stuns and mine)
            S.emit(st, S.E_VOTE, v, t, kills, stuns, 0 if do_kill else 1, 0, 0)
            if do_kill:
                bd[S.G_DEATH_PC] = 94
                call_window(st, v, np.int64(-1), np.int64(0), np.int64(EF_KILL), t)
                if not s_window(tb, st):
                    return False
                pc = 94
            else:
                bd[S.G_DEATH_PC] = 95
                call_window(st, v, np.int64(-1), np.int64(0), np.int64(EF_STUN), t)
                if not s_window(tb, st):
                    return False
                pc = 95
        elif pc == 93:
            if bd[S.G_ANS] != 0:
                bd[S.G_DEATH_KILLS] += 1
            bd[S.G_DEATH_I] += 1
            pc = 92
        elif pc == 94:
            bd[S.G_DEATH_PC] = 99
            call_kill(st, v, t, np.int64(T.D_VOTE))
            if not s_kill(tb, st):
                return False
            pc = 99
        elif pc == 95:
            stun(st, v, t, np.int64(-1))
            ret(st, 0, 0)
            return True
        elif pc == 100:  # Squirrel: the look
            look_char(st, v, bd[S.G_ANS])
            ret(st, 0, 0)
            return True
        elif pc == 110:  # Alligator: the Treasure Map's use
            t = bd[S.G_RV]
            o = bd[S.G_RV2]
            bd[S.G_DEATH_PC] = 99
            call_chain(st, v, np.int64(T.TREASURE_MAP), t, o, np.int64(0), np.int64(1), np.int64(0))
            return False  # run starts s_chain (module docstring: compile time)
        else:
            ret(st, 0, 0)
            return True


@njit(cache=True, _nrt=False, forceinline=True)
def s_deaths(tb, st):
    """P_DEATHS: ENGINE-7: the queued death abilities, in the order of the deaths."""
    bd = st.board
    if bd[S.G_DEATHS_PC] == 1 and bd[S.G_DEPTH] == bd[S.G_DEATHS_N]:
        check_end(st)
    if bd[S.G_DEPTH] < bd[S.G_DEATHS_N] and bd[S.G_END] == 0:
        i = bd[S.G_DEPTH]
        bd[S.G_DEPTH] = i + 1
        bd[S.G_DEATH_V] = bd[S.B_DEATHS + 2 * i]
        bd[S.G_DEATH_CH] = bd[S.B_DEATHS + 2 * i + 1]
        bd[S.G_DEATHS_PC] = 1
        push(st, np.int64(P_DEATH), np.int64(S.G_DEATH_PC))
        return False  # run starts s_death, then resumes this (module docstring: compile time)
    check_end(st)
    ret(st, 0, 0)
    return True


# ---------------------------------------------------------------------------------------------
# The turn


@njit(cache=True, _nrt=False, forceinline=True)
def s_action(tb, st):
    """P_ACTION: the action ``kind`` (card ``c``, target ``t``, option ``o``) of ``a``."""
    bd = st.board
    pc = bd[S.G_ACT_PC]
    a = bd[S.G_ACT_A]
    c = bd[S.G_ACT_C]
    t = bd[S.G_ACT_T]
    o = bd[S.G_ACT_O]
    while True:
        if pc == 0:
            kind = bd[S.G_ACT_KIND]
            living = np.int64(st.pl[a, S.PL_ALIVE])
            S.emit(st, S.E_ACTION, a, kind, c, t, o, 0, 0)
            if bd[S.G_BELIEFS] != 0:  # every seat sees the action (RM-4): soft evidence
                B.observe_if(tb, st, a, B.action_class(kind, c, t, o), t)
            if kind == pol.K_PLAY:
                S.take_hand(st, a, c)
                S.tele(st, a, T.TE_PLAYED + c, 1)
                bd[S.G_ACT_PC] = 99
                call_chain(st, a, c, t, o, np.int64(1), np.int64(1), living)
                return False  # run starts s_chain (module docstring: compile time)
            elif kind == pol.K_USE:
                bd[S.G_ACT_PC] = 99
                call_chain(st, a, c, t, o, np.int64(0), np.int64(0), living)
                return False  # run starts s_chain (module docstring: compile time)
            elif kind == pol.K_CYCLE:  # RM-4: discard 2 to draw 1
                bd[S.G_ACT_J] = 0
                pc = 10
            elif kind == pol.K_EAGLE:  # RM-27
                die(st, a, np.int64(T.D_EAGLE), np.int64(-1))
                if bd[S.G_END] == 0 and find_card(st, a, o, np.int64(0)):
                    bd[S.G_ACT_PC] = 20
                    call_use(st, a, o, np.int64(0))
                    if not s_use(tb, st):
                        return False
                    pc = 20
                else:
                    ret(st, 0, 0)
                    return True
            elif kind == pol.K_BREAK:  # RM-17: the Axe or Rifle spent on a Barricade
                S.take_hand(st, a, c)
                S.tele(st, a, T.TE_PLAYED + c, 1)
                bd[S.G_ACT_PC] = 30
                call_window(st, a, c, np.int64(1), np.int64(0), np.int64(-1))
                if not s_window(tb, st):
                    return False
                pc = 30
            else:  # K_PASS, RM-29: show the hand to the next player
                q = S.left(st, a)
                S.show_hand(st, q, a)
                S.emit(st, S.E_SHOW, a, q, S.hand_n(st, a), 0, 0, 0, 0)
                ret(st, 0, 0)
                return True
        elif pc == 10:
            if bd[S.G_ACT_J] < tb.params[T.P_DISCARD_DRAW] and S.free_cards(st, a) > 0:
                bd[S.G_ACT_J] += 1
                bd[S.G_ACT_PC] = 11
                bd[S.G_SUB] = 1
                ask(st, a, np.int64(S.D_DISCARD), np.int64(-1), np.int64(0))
                return False
            bd[S.G_ACT_PC] = 99
            call_draw(st, a)
            if not s_draw(tb, st):
                return False
            pc = 99
        elif pc == 11:
            discard_from_hand(st, a, bd[S.G_ANS], np.int64(1))
            pc = 10
        elif pc == 20:
            t2 = bd[S.G_RV]
            o2 = bd[S.G_RV2]
            if t2 == -2:
                bd[S.B_INPLAY + o] += 1
                S.emit(st, S.E_INPLAY, a, o, 1, 0, 0, 0, 0)
                ret(st, 0, 0)
                return True
            bd[S.G_ACT_PC] = 99
            call_chain(st, a, o, t2, o2, np.int64(0), np.int64(1), np.int64(0))
            return False  # run starts s_chain (module docstring: compile time)
        elif pc == 30:
            status = bd[S.G_RV]
            if not status & CANCELLED and bd[S.B_BARR + t] > 0:
                bd[S.B_BARR + t] -= 1
                S.discard_card(st, T.BARRICADE)
                S.emit(st, S.E_BARRICADE, a, t, 0, 0, 0, 0, 0)
            S.discard_card(st, c)
            ret(st, 0, 0)
            return True
        else:
            ret(st, 0, 0)
            return True


@njit(cache=True, _nrt=False, forceinline=True)
def s_exch(tb, st):
    """P_EXCH: RM-4 (2), RM-29: exchange with the next player in turn order who is not
    stunned."""
    bd = st.board
    if bd[S.G_EXCH_PC] != 0:
        ret(st, 0, 0)
        return True
    a = bd[S.G_EXCH_A]
    n = S.n_players(st)
    q = -1
    for i in range(1, n):
        x = S.seat_at(st, st.pl[a, S.PL_POS] + i)
        if st.pl[x, S.PL_STUNNED] == 0:
            q = x
            break
    if q < 0:
        ret(st, 0, 0)
        return True
    if S.free_cards(st, a) == 0 or S.free_cards(st, q) == 0:
        S.show_hand(st, q, a)
        S.emit(st, S.E_SHOW, a, q, S.hand_n(st, a), 0, 0, 0, 0)
        ret(st, 0, 0)
        return True
    bd[S.G_EXCH_PC] = 1
    call_trade(st, a, np.int64(q), np.int64(0))
    if not s_trade(tb, st):
        return False
    ret(st, 0, 0)
    return True


@njit(cache=True, _nrt=False, forceinline=False)
def claims(st, a, opts):
    """The codes of ``a``'s claims (ENGINE-15) into ``opts``, in order: say nothing, "I am
    Family", "I saw a Feather in x's hand" for each other living x, "x is evil" for each; their
    count."""
    k = S.claim_count(st, a)
    for i in range(k):
        opts[i] = S.claim_at(st, a, i)
    return k


@njit(cache=True, _nrt=False, forceinline=False)
def say(tb, st, a, code):
    """``a`` says claim ``code`` at the table (ENGINE-15): logged, remembered (PL_SAID: public),
    and weighed by every reasoning seat (beliefs.hear). Saying nothing changes nothing."""
    if code == S.CLAIM_NONE:
        return
    S.emit(st, S.E_CLAIM, a, code, 0, 0, 0, 0, 0)
    bit = np.int64(1) << (code - 1)
    repeated = st.pl[a, S.PL_SAID] & bit != 0
    st.pl[a, S.PL_SAID] |= bit
    if st.board[S.G_BELIEFS] != 0 and not repeated:  # a claim said again tells nothing new
        B.hear_if(tb, st, a, code)


@njit(cache=True, _nrt=False, forceinline=True)
def s_turn(tb, st, work):
    """P_TURN: turns from ``a``'s on (RM-4): its action (D_ACTION), the death abilities, the
    exchange with the next player, the draw or discard to the hand size; then, with G_TURN_LOOP
    set, the next seat's turn until a side wins or the turn cap (RM-10), the trajectory's point
    at the end of each round (``trace_point``)."""
    bd = st.board
    pc = bd[S.G_TURN_PC]
    a = bd[S.G_TURN_A]
    while True:
        if pc == 0:
            bd[S.G_ACTIVE] = a
            bd[S.G_OVER] = 0
            bd[S.G_NEXT] = -1
            S.emit(
                st,
                S.E_TURN,
                a,
                bd[S.G_TURN],
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
                pc = 99
            elif st.pl[a, S.PL_SKIP] != 0:
                st.pl[a, S.PL_SKIP] = 0
                S.emit(st, S.E_SKIP, a, 1, 0, 0, 0, 0, 0)
                pc = 99
            elif tb.params[T.P_TALK] != 0:  # ENGINE-15: a claim first, then the action
                bd[S.G_TURN_PC] = 7
                ask(st, a, np.int64(S.D_CLAIM), np.int64(-1), S.claim_count(st, a))
                return False
            else:
                n = enum_actions(tb, st, a)
                bd[S.G_TURN_PC] = 1
                ask(st, a, np.int64(S.D_ACTION), np.int64(-1), n)
                return False
        elif pc == 7:
            say(tb, st, a, bd[S.G_ANS])
            n = enum_actions(tb, st, a)
            bd[S.G_TURN_PC] = 1
            ask(st, a, np.int64(S.D_ACTION), np.int64(-1), n)
            return False
        elif pc == 1:
            b = S.B_CAND + 4 * bd[S.G_ANS]
            bd[S.G_ACT_A] = a
            bd[S.G_ACT_KIND] = bd[b]
            bd[S.G_ACT_C] = bd[b + 1]
            bd[S.G_ACT_T] = bd[b + 2]
            bd[S.G_ACT_O] = bd[b + 3]
            bd[S.G_TURN_PC] = 2
            push(st, np.int64(P_ACTION), np.int64(S.G_ACT_PC))
            return False  # run starts s_action (module docstring: compile time)
        elif pc == 2 or pc == 4:
            nxt = 3 if pc == 2 else 6
            if bd[S.G_DEPTH] < bd[S.G_DEATHS_N] and bd[S.G_END] == 0:
                bd[S.G_TURN_PC] = nxt
                call_deaths(st)
                return False  # run starts s_deaths (module docstring: compile time)
            check_end(st)  # s_deaths with nothing queued
            pc = nxt
        elif pc == 3:
            if bd[S.G_END] != 0:
                pc = 99
            elif bd[S.G_OVER] == 0 and st.pl[a, S.PL_STUNNED] != 0:
                # RM-4: stunned during its own turn (a death ability it triggered), it "cannot
                # participate in Trades": no end-of-turn exchange; it still draws or discards
                S.emit(st, S.E_SKIP, a, 2, 0, 0, 0, 0, 0)
                pc = 5
            elif bd[S.G_OVER] == 0:  # RM-4 (2), RM-29: the next player who is not stunned
                n = S.n_players(st)
                q = -1
                for i in range(1, n):
                    x = S.seat_at(st, st.pl[a, S.PL_POS] + i)
                    if st.pl[x, S.PL_STUNNED] == 0:
                        q = x
                        break
                pc = 4
                if q >= 0:
                    if S.free_cards(st, a) == 0 or S.free_cards(st, q) == 0:
                        S.show_hand(st, q, a)
                        S.emit(st, S.E_SHOW, a, q, S.hand_n(st, a), 0, 0, 0, 0)
                    else:
                        bd[S.G_TURN_PC] = 4
                        call_trade(st, a, np.int64(q), np.int64(0))
                        if not s_trade(tb, st):
                            return False
            else:
                pc = 5
        elif pc == 6:
            pc = 99 if bd[S.G_END] != 0 else 5
        elif pc == 5:
            bd[S.G_REFILL_P] = a
            bd[S.G_TURN_PC] = 99
            push(st, np.int64(P_REFILL), np.int64(S.G_REFILL_PC))
            if not s_refill(tb, st):
                return False
            pc = 99
        else:  # the turn is over
            if bd[S.G_TURN_LOOP] == 0:
                ret(st, 0, 0)
                return True
            bd[S.G_TURN] += 1
            if bd[S.G_TURN] % bd[S.G_N] == 0:  # a round's end: the trajectory's point
                trace_point(st, work, bd[S.G_TURN] // bd[S.G_N])
            if bd[S.G_END] == 0 and bd[S.G_TURN] >= tb.params[T.P_TURN_CAP]:  # RM-10
                bd[S.G_END] = S.END_CAP
            if bd[S.G_END] != 0:
                ret(st, 0, 0)
                return True
            nxt = bd[S.G_NEXT]
            a = nxt if nxt >= 0 else S.left(st, a)
            bd[S.G_TURN_A] = a
            pc = 0


@njit(cache=True, _nrt=False, forceinline=False)
def s_game(tb, st, work):
    """P_GAME: the opening, then turns until a side wins or the turn cap (RM-10)."""
    bd = st.board
    pc = bd[S.G_GAME_PC]
    while True:
        if pc == 0:
            bd[S.G_GAME_PC] = 1
            push(st, np.int64(P_OPENING), np.int64(S.G_OPEN_PC))
            return False  # run starts s_opening (module docstring: compile time)
        elif pc == 1:
            bd[S.G_GAME_A] = bd[S.G_FIRST]
            check_end(st)
            pc = 2
        elif pc == 2:
            if bd[S.G_END] != 0:
                pc = 9
            else:  # the turns, until the end (s_turn with G_TURN_LOOP)
                trace_point(st, work, np.int64(0))  # after the opening, before the first turn
                bd[S.G_TURN_A] = bd[S.G_GAME_A]
                bd[S.G_TURN_LOOP] = 1
                bd[S.G_GAME_PC] = 9
                push(st, np.int64(P_TURN), np.int64(S.G_TURN_PC))
                return False  # the interpreter runs the turns (s_turn is inlined there only)
        else:
            S.emit(st, S.E_END, bd[S.G_END], bd[S.G_TURN], 0, 0, 0, 0, 0)
            ret(st, 0, 0)
            return True


# ---------------------------------------------------------------------------------------------
# The interface: start, advance, legal, apply, play_game, record


@njit(cache=True, _nrt=False, inline="always")
def run(tb, st, work):
    """Run the procedures on the call stack until a decision is pending (returns its seat) or the
    stack is empty (returns -1)."""
    bd = st.board
    while True:
        if bd[S.G_KIND] >= 0:
            return np.int64(bd[S.G_ACTOR])
        sp = bd[S.G_SP]
        if sp == 0:
            return np.int64(-1)
        proc = bd[S.B_CALL + sp - 1]
        if proc == P_TRADE:
            s_trade(tb, st)
        elif proc == P_TURN:
            s_turn(tb, st, work)
        elif proc == P_REFILL:
            s_refill(tb, st)
        elif proc == P_EXCH:
            s_exch(tb, st)
        elif proc == P_GAME:
            s_game(tb, st, work)
        elif proc == P_WINDOW:
            s_window(tb, st)
        elif proc == P_CARD:
            s_card(tb, st)
        elif proc == P_CHAIN:
            s_chain(tb, st)
        elif proc == P_ACTION:
            s_action(tb, st)
        elif proc == P_DEATHS:
            s_deaths(tb, st)
        elif proc == P_DRAW:
            s_draw(tb, st)
        elif proc == P_KILL:
            s_kill(tb, st)
        elif proc == P_DEATH:
            s_death(tb, st)
        elif proc == P_USE:
            s_use(tb, st)
        elif proc == P_PILLOW:
            s_pillow(tb, st)
        elif proc == P_DRINK:
            s_drink(tb, st)
        elif proc == P_MOUNTAINS:
            s_mountains(tb, st)
        elif proc == P_WEAPON:
            s_weapon(tb, st)
        elif proc == P_FIX:
            s_fix(tb, st)
        else:
            s_opening(tb, st)


@njit(cache=True, _nrt=False, forceinline=False)
def start(tb, st, seed, game, work):
    """Reset ``st`` to the start of game ``game`` of run ``seed`` (the characters dealt, the deck
    shuffled); no decision is pending yet (``advance`` plays the opening, RM-3)."""
    deal(tb, st, seed, game, work.pick)
    st.board[S.G_SP] = 0
    if tb.params[T.P_BELIEFS] != 0:  # a reasoning seat: beliefs from the deal (beliefs.py)
        st.board[S.G_BELIEFS] = 1
        for p in range(S.n_players(st)):
            st.pl[p, S.PL_REASON] = 1 if B.kind_now(tb, st, p) == T.POL_REASONING else 0
        B.start_if(tb, st)
    push(st, np.int64(P_GAME), np.int64(S.G_GAME_PC))


@njit(cache=True, _nrt=False, inline="always")
def advance(tb, st, work):
    """Play chance and every forced step until a decision is pending: its seat, or -1 when the
    game is over (the outcome and the E_END event are then in the State)."""
    return run(tb, st, work)


@njit(cache=True, _nrt=False, inline="always")
def apply(tb, st, work, code):
    """Carry out option ``code`` of the pending decision (the engine reads it when ``advance``
    resumes the procedure that asked; nothing is pending until then). No validation."""
    st.board[S.G_ANS] = code
    st.board[S.G_KIND] = -1


@njit(cache=True, _nrt=False, forceinline=False)
def legal(tb, st, work, opts):
    """The codes of the pending decision's options into ``opts`` (int64[MAX_OPTIONS]) in the
    canonical order of docs/rules/raven_manor.md "## Decisions"; returns their count (0 when
    nothing is pending)."""
    bd = st.board
    kind = bd[S.G_KIND]
    if kind < 0:
        return np.int64(0)
    p = bd[S.G_ACTOR]
    n = bd[S.G_NOPT]
    k = np.int64(0)
    if kind == S.D_ACTION or kind == S.D_USE or kind == S.D_GROGUS:
        for i in range(n):
            opts[i] = i
        return np.int64(n)
    if kind == S.D_REACT:
        for i in range(n):
            opts[i] = bd[S.B_OPTS + i]
        opts[n] = S.NO_CARD
        return np.int64(n + 1)
    if kind == S.D_MOUNTAINS_EVADE:
        opts[0] = T.EVADE
        opts[1] = S.NO_CARD
        return np.int64(2)
    if S.D_MOUNTAINS_BACK <= kind <= S.D_VOTE:
        opts[0] = 0
        opts[1] = 1
        return np.int64(2)
    if kind == S.D_DISCARD or kind == S.D_GIVE or kind == S.D_BATHROOM:
        for c in range(T.NC):
            if S.can_part(st, p, c):
                opts[k] = c
                k += 1
        if kind == S.D_BATHROOM:
            opts[k] = S.NO_CARD
            k += 1
        return k
    if S.D_CANDLE_KEEP <= kind <= S.D_DRINK:
        for i in range(n):
            opts[i] = i
        if kind == S.D_STORE or kind == S.D_TAKE:
            opts[n] = n
            return np.int64(n + 1)
        return np.int64(n)
    if kind == S.D_CLAIM:
        return claims(st, p, opts)
    for q in range(S.n_players(st)):  # the targets
        if bd[S.B_MASK + q] != 0:
            opts[k] = q
            k += 1
    return k


@njit(cache=True, _nrt=False, forceinline=False)
def play_game(tb, st, seed, game, work):
    """Play one whole game into ``st`` with the scratch ``work`` (``state.alloc_work``)."""
    start(tb, st, seed, game, work)
    while advance(tb, st, work) >= 0:
        apply(tb, st, work, pol.choose(tb, st, work))


@njit(cache=True, _nrt=False, forceinline=False)
def record(tb, st, work, g, score, rank, turns, end, order, team, role, extra, tele, clipped):
    """Row ``g`` of the outputs for the ended game in ``st`` (``clipped``: the block's row of
    clip counts, ``_kit.tally_clipped``)."""
    n = tb.params[T.P_PLAYERS]
    turns[g] = st.board[S.G_TURN]
    end[g] = st.board[S.G_END] - 1
    first = st.board[S.G_FIRST]
    for p in range(n):
        s, r = outcome(st, p)
        score[g, p] = s
        rank[g, p] = r
        order[g, p] = (p - first) % n
        team[g, p] = st.pl[p, S.PL_SIDE]
        role[g, p] = st.pl[p, S.PL_DEALT]
        extra[g, p, 0] = st.pl[p, S.PL_ALIVE]
        extra[g, p, 1] = st.pl[p, S.PL_DEATH_TURN]
        extra[g, p, 2] = st.pl[p, S.PL_POSS_TURN]
        extra[g, p, 3] = st.pl[p, S.PL_KILLS]
        extra[g, p, 4] = st.pl[p, S.PL_STUNS]
        seen = 0
        for j in range(T.N_TELE):
            v = st.pl[p, S.PL_TELE + j]
            tele[g, p, j] = kit.clip_u8(v)
            seen |= v
        if seen > kit.U8_MAX:
            for j in range(T.N_TELE):
                kit.tally_clipped(st.pl[p, S.PL_TELE + j], clipped, j)


@njit(cache=True, _nrt=False, forceinline=True)
def trace_measures(st, row):
    """Each seat's state.TRACE_MEASURES now into ``row`` (int64 or int16[P, N_TRACE]): alive,
    its side (RM-22) and whether it holds an evil character card (all of them 0..3: no clip)."""
    for p in range(S.n_players(st)):
        row[p, S.TR_ALIVE] = st.pl[p, S.PL_ALIVE]
        row[p, S.TR_TEAM] = st.pl[p, S.PL_SIDE]
        row[p, S.TR_EVIL] = 1 if S.evil(st.pl[p, S.PL_CHAR]) else 0


@njit(cache=True, _nrt=False, forceinline=False)
def trace_point(st, work, k):
    """Point ``k`` of the game's trajectory (0: after the opening; k: the end of round k, turn
    k * players) into ``work.trace`` (a game never has more rows than it holds: trace_cap)."""
    if k < work.trace.shape[0]:
        trace_measures(st, work.trace[k])


@njit(cache=True, _nrt=False, forceinline=True)
def record_trace(tb, st, work, g, trace, points):
    """Row ``g`` of the trajectory outputs (kit.Outputs' ``trace`` and ``points``) for the ended
    game in ``st``: the points ``work.trace`` holds (the opening's and each round's ended before
    the end), then the end's, from ``st`` itself; 1 + the rounds begun, ceil(turns / players)
    (nothing when the outputs keep no trajectory: position.py's row)."""
    if points.shape[0] <= g:
        return
    n = S.n_players(st)
    k = 1 + (st.board[S.G_TURN] + n - 1) // n
    # trace_cap: never cut in a real game
    k = min(k, trace.shape[0] // points.shape[0], work.trace.shape[0])
    s = kit.trace_row(g, k, points)
    for i in range(k - 1):
        for p in range(n):
            for m in range(S.N_TRACE):
                trace[s + i, p, m] = work.trace[i, p, m]
    trace_measures(st, trace[s + k - 1])


@njit(cache=True, nogil=True, forceinline=False)
def play_batch(tb, seed, first_game, n_games, out, b0, b1):
    """Play the games of blocks b0 to b1 - 1 (of ``S.BLOCK_GAMES`` games each) of
    [first_game, first_game + n_games) into row i of the outputs ``out``
    (``_kit.Outputs``); block b counts the telemetry cells it clipped at 255 in row b of
    ``out.clipped`` (per column). ``kit.in_threads`` runs the blocks over the threads (``play``)."""
    score, rank, turns, end, order, team, role, extra, tele, clipped, trace, points = out
    for blk in range(b0, b1):
        st = S.alloc_state(tb, 0)
        work = S.alloc_work(tb)
        clip = clipped[blk]
        lo = blk * S.BLOCK_GAMES
        hi = min(n_games, lo + S.BLOCK_GAMES)
        for gi in range(lo, hi):
            play_game(tb, st, seed, first_game + gi, work)
            record(tb, st, work, gi, score, rank, turns, end, order, team, role, extra, tele, clip)
            record_trace(tb, st, work, gi, trace, points)


def play(
    compiled: T.Compiled,
    seed: int,
    first_game: int,
    n_games: int,
    batch: Any = None,
    block: int = S.BLOCK_GAMES,
) -> Chunk:
    """Play a chunk of games (``_kit.play_chunk``: the checks, the outputs, the Chunk)."""
    return kit.play_chunk(
        play_batch if batch is None else batch,
        compiled.tb,
        seed,
        first_game,
        n_games,
        players=compiled.players,
        n_tele=T.N_TELE,
        block=block,
        extra_names=S.EXTRA_COLUMNS,
        trace_cap=S.trace_cap(compiled.tb),
        n_measures=len(S.TRACE_MEASURES),
        team=True,
        role=True,
    )


# ---------------------------------------------------------------------------------------------
# One procedure at a time (the rule tests: a hand-built position, one step of the rules)


@njit(cache=True, forceinline=False)
def drive(tb, st):
    """Run the procedure just pushed on an empty call stack to its end, every decision made by
    the seats' policies."""
    work = S.alloc_work(tb)
    st.board[S.G_KIND] = -1
    while run(tb, st, work) >= 0:
        apply(tb, st, work, pol.choose(tb, st, work))


@njit(cache=True, forceinline=False)
def setup(tb, st, seed, game, pick):
    """RM-2, RM-3: ``st`` at the start of game ``game`` of run ``seed``, the opening played."""
    deal(tb, st, seed, game, pick)
    st.board[S.G_SP] = 0
    push(st, np.int64(P_OPENING), np.int64(S.G_OPEN_PC))
    drive(tb, st)


@njit(cache=True, forceinline=False)
def opening(tb, st, pick):
    st.board[S.G_SP] = 0
    push(st, np.int64(P_OPENING), np.int64(S.G_OPEN_PC))
    drive(tb, st)


@njit(cache=True, forceinline=False)
def refill(tb, st, p, pick):
    st.board[S.G_SP] = 0
    st.board[S.G_REFILL_P] = p
    push(st, np.int64(P_REFILL), np.int64(S.G_REFILL_PC))
    drive(tb, st)


@njit(cache=True, forceinline=False)
def end_exchange(tb, st, a):
    st.board[S.G_SP] = 0
    st.board[S.G_EXCH_A] = a
    push(st, np.int64(P_EXCH), np.int64(S.G_EXCH_PC))
    drive(tb, st)


@njit(cache=True, forceinline=False)
def kill(tb, st, killer, t, cause):
    st.board[S.G_SP] = 0
    call_kill(st, killer, t, cause)
    drive(tb, st)
    return st.board[S.G_RV] != 0


@njit(cache=True, forceinline=False)
def trade(tb, st, a, b, kind):
    st.board[S.G_SP] = 0
    call_trade(st, a, b, kind)
    drive(tb, st)


@njit(cache=True, forceinline=False)
def resolve_deaths(tb, st, stack, opts, pick, mask):
    st.board[S.G_SP] = 0
    call_deaths(st)
    drive(tb, st)


@njit(cache=True, forceinline=False)
def do_action(tb, st, a, kind, c, t, o, stack, opts, pick):
    bd = st.board
    bd[S.G_SP] = 0
    bd[S.G_ACT_A] = a
    bd[S.G_ACT_KIND] = kind
    bd[S.G_ACT_C] = c
    bd[S.G_ACT_T] = t
    bd[S.G_ACT_O] = o
    push(st, np.int64(P_ACTION), np.int64(S.G_ACT_PC))
    drive(tb, st)


@njit(cache=True, forceinline=False)
def play_turn(tb, st, a, stack, opts, pick, mask):
    st.board[S.G_SP] = 0
    st.board[S.G_TURN_A] = a
    st.board[S.G_TURN_LOOP] = 0
    push(st, np.int64(P_TURN), np.int64(S.G_TURN_PC))
    drive(tb, st)
