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
``play_batch`` it played other games than when called alone (numba's IR inlining inside a parfor). Every integer argument is int64, never a literal constant (``np.int64(K_PLAY)`` at
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

from balance.games._kit import (
    U8_MAX,
    check_play,
    clip_u8,
    saturated,
    saturation_rows,
    shuffle,
    tally_clipped,
)
from balance.games.base import Chunk
from balance.games.raven_manor.policies import (
    K_BREAK,
    K_CYCLE,
    K_EAGLE,
    K_FREE,
    K_PASS,
    K_PLAY,
    K_USE,
    PK_DRINK,
    PK_HAND,
    PK_MINE,
    PK_STORE,
    PK_TAKE,
    PK_TOP,
    T_KILL,
    T_LOOK_CHAR,
    T_REVEAL_HAND,
    T_STUN_SWAP,
    T_SWAP,
    T_WHALE,
    Y_ANGLER_LOOK,
    Y_BLUFF,
    Y_EEL_STUN,
    Y_FOREST,
    Y_INN,
    Y_MOUNTAIN_EVADE,
    Y_MULLIGAN,
    Y_PILLOW,
    Y_SACRIFICE,
    Y_VOTE_KILL,
    choose_action,
    choose_bathroom,
    choose_discard,
    choose_give,
    choose_pick,
    choose_reaction,
    choose_target,
    choose_yes,
)
from balance.games.raven_manor.state import (
    BLOCK_GAMES,
    E_ABILITY,
    E_ACTION,
    E_BACKPACK,
    E_BARRICADE,
    E_CANCEL,
    E_CONSENT,
    E_DEAL,
    E_DEATH,
    E_DISCARD,
    E_DRAW,
    E_EEL,
    E_END,
    E_FEATHER,
    E_FREED,
    E_INPLAY,
    E_KILL_SAVED,
    E_LOOK_CHAR,
    E_OPEN,
    E_PICK,
    E_PILLOW,
    E_POSSESS,
    E_REACT,
    E_SACRIFICE,
    E_SEARCH,
    E_SHOW,
    E_SIDE,
    E_SKIP,
    E_START,
    E_STUN,
    E_SWAP,
    E_TAKE,
    E_TURN,
    E_VOTE,
    E_WHALE,
    E_XCHG,
    G_ACTIVE,
    G_BARR,
    G_CAND,
    G_DEATHS,
    G_DEATHS_N,
    G_DECK_N,
    G_DEPTH,
    G_DISC,
    G_DISC_N,
    G_END,
    G_FIRST,
    G_GEN,
    G_HOLD,
    G_INPLAY,
    G_LOG_CAP,
    G_MISS,
    G_N,
    G_NEXT,
    G_OVER,
    G_REMOVED,
    G_RESP,
    G_RING,
    G_TURN,
    KN_CHAR,
    KN_FEATHER,
    KN_GAVE,
    KN_GAVE_F,
    KN_HAND,
    KN_RECV,
    MAX_CAND,
    MAX_STACK,
    PL_ALIVE,
    PL_BACKPACKS,
    PL_BP,
    PL_BP_N,
    PL_CAUSE,
    PL_CHAR,
    PL_DEALT,
    PL_DEATH_TURN,
    PL_EVIL_LOST,
    PL_FEATHER_DISC,
    PL_HAND,
    PL_HAND_N,
    PL_KILLS,
    PL_POS,
    PL_POSS_TURN,
    PL_POSSESSED,
    PL_REVEALED,
    PL_SAFE_KILL,
    PL_SAFE_STUN,
    PL_SIDE,
    PL_SKIP,
    PL_STUN_CARD,
    PL_STUNNED,
    PL_STUNS,
    PL_TELE,
    add_hand,
    adjacent,
    alive,
    alloc_scratch,
    alloc_state,
    can_part,
    discard_card,
    emit,
    evil,
    free_cards,
    hand_n,
    has,
    immune,
    left,
    living_possessor,
    n_players,
    own_side,
    possessor,
    reveal_char,
    reveal_hand,
    seat_at,
    show_hand,
    take_hand,
    tele,
)
from balance.games.raven_manor.tables import (
    ABANDONED_MINE,
    ALLIGATOR,
    ANGLER,
    AVOID,
    AXE,
    BACKPACK,
    BARRICADE,
    BASEMENT,
    BATHROOM,
    BEDROOM,
    BOAR,
    BOTTLE,
    BROKEN_BOTTLE,
    BUNNY,
    CABIN,
    CANDLE,
    CATFISH,
    CAVE,
    COAST,
    COMPASS,
    CRAYFISH,
    CTHULHU,
    D_ABILITY,
    D_EAGLE,
    D_KILL,
    D_MOUNTAINS,
    D_PILLOW,
    D_SACRIFICE,
    D_VOTE,
    D_WHALE,
    DINING_ROOM,
    DOC,
    DODGE,
    DRINK,
    EAGLE,
    EEL,
    END_CAP,
    END_CTHULHU,
    END_FAMILY,
    END_HORSEMAN,
    END_RAVEN,
    EVADE,
    EXCHANGE,
    EXTRA_COLUMNS,
    FAMILY,
    FATHERS_STUDY,
    FEATHER,
    FOREST,
    GET_OVER_HERE,
    GROGUS,
    GUESTROOM,
    HARPOON,
    HAYMAKER,
    KITCHEN,
    KNIFE,
    LIBRARY,
    LIFEBUOY,
    LOC0,
    LOC1,
    LUMBEARJACK,
    MANOR_PLAN,
    MAXP,
    MAYOR,
    MOUNTAINS,
    N_TELE,
    NC,
    P_ALWAYS_N,
    P_BACKPACK,
    P_CANDLE,
    P_COUNT,
    P_DISCARD_DRAW,
    P_FEATHER_REDRAW,
    P_HAND,
    P_MINE_KEEP,
    P_MINE_REVEAL,
    P_MULLIGANS,
    P_OPEN_HAND,
    P_PLAYERS,
    P_POOL,
    P_POOL_N,
    P_TORCH,
    P_TURN_CAP,
    PIKE,
    PILLOW,
    RAT_TREACHERY,
    RAVEN,
    REACT0,
    REACT1,
    RIFLE,
    ROD,
    ROOM0,
    ROOM1,
    S_CTHULHU,
    S_HORSEMAN,
    S_RAVEN,
    SHARK,
    SQUIRREL,
    TE_DIED,
    TE_DRAWN,
    TE_PLAYED,
    TE_RECEIVED,
    TE_USED,
    THE_INN,
    TORCH,
    TREASURE_MAP,
    VASE,
    WHALE,
    WOLF,
    ZAKUS_CAMERA,
    Compiled,
)
from balance.rng import below, seed_stream

# Window effects (what a card does to its target, for the answers that fit: RM-19).
EF_KILL, EF_STUN, EF_XCHG, EF_SWAP = 1, 2, 4, 8
CANCELLED, AVOIDED = 1, 2


# ---------------------------------------------------------------------------------------------
# The deck


@njit(cache=True, _nrt=False, forceinline=False)
def reshuffle(st):
    """The discard pile becomes the deck, shuffled (rulebook, Turn Order)."""
    n = st.g[G_DECK_N]
    for c in range(NC):
        k = st.g[G_DISC + c]
        for _ in range(k):
            st.deck[n] = c
            n += 1
        st.g[G_DISC + c] = 0
    st.g[G_DISC_N] = 0
    st.g[G_DECK_N] = n
    st.g[G_GEN] += 1
    shuffle(st.deck, n, st.rng[1])


@njit(cache=True, _nrt=False, forceinline=False)
def pop_deck(st):
    """The top card of the deck (reshuffling the discard pile when the deck is empty), -1 none."""
    if st.g[G_DECK_N] == 0:
        reshuffle(st)
        if st.g[G_DECK_N] == 0:
            return -1
    n = st.g[G_DECK_N] - 1
    st.g[G_DECK_N] = n
    return np.int64(st.deck[n])


@njit(cache=True, _nrt=False, forceinline=False)
def take_from_deck(st, c):
    """Remove one card ``c`` from the deck (True if there was one)."""
    n = st.g[G_DECK_N]
    for i in range(n):
        if st.deck[i] == c:
            st.deck[i] = st.deck[n - 1]
            st.g[G_DECK_N] = n - 1
            return True
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def find_card(st, p, c, discard_too):
    """RM-9, RM-23: search the deck (then the discard pile if the card says so) for ``c``,
    revealed; the deck is shuffled. True if found (the card is then in nobody's place: the
    caller puts it somewhere)."""
    found = take_from_deck(st, c)
    if not found:
        st.g[G_MISS + c] = st.g[G_GEN] + 1
    where = 0
    if not found and discard_too and st.g[G_DISC + c] > 0:
        st.g[G_DISC + c] -= 1
        st.g[G_DISC_N] -= 1
        found = True
        where = 1
    shuffle(st.deck, st.g[G_DECK_N], st.rng[1])
    emit(st, E_SEARCH, p, c, 1 if found else 0, where, 0, 0, 0)
    return found


@njit(cache=True, _nrt=False, forceinline=False)
def to_hand_public(st, p, c):
    """A revealed card into ``p``'s hand; RM-26: a Feather goes to the discard pile instead unless
    ``p`` is a possessor."""
    if c == FEATHER and st.pl[p, PL_CHAR] != RAVEN:
        discard_card(st, c)
        st.pl[p, PL_FEATHER_DISC] += 1
        emit(st, E_FEATHER, p, 0, 0, 0, 0, 0, 0)
    else:
        add_hand(st, p, c)


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
        if st.pl[p, PL_BP_N] > 0:
            k = np.int64(0)
            for c in range(NC):
                if st.pl[p, PL_BP + c] > 0:
                    pick[k] = c
                    k += 1
            i = choose_pick(tb, st, p, pick, k, np.int64(PK_TAKE))
            if i >= 0:
                c = pick[i]
                st.pl[p, PL_BP + c] -= 1
                st.pl[p, PL_BP_N] -= 1
                add_hand(st, p, c)
                emit(st, E_BACKPACK, p, c, 0, 0, 0, 0, 0)
                return c
        c = pop_deck(st)
        if c < 0:
            return -1
        tele(st, p, TE_DRAWN + c, 1)
        if c == FEATHER:
            if st.pl[p, PL_CHAR] != RAVEN:  # RM-6: the Horseman uses only Feathers received
                discard_card(st, c)
                st.pl[p, PL_FEATHER_DISC] += 1
                emit(st, E_FEATHER, p, 0, 0, 0, 0, 0, 0)
                continue
            if choose_yes(tb, st, p, np.int64(-1), np.int64(Y_BLUFF)):
                discard_card(st, c)
                st.pl[p, PL_FEATHER_DISC] += 1
                emit(st, E_FEATHER, p, 1, 0, 0, 0, 0, 0)
                continue
        add_hand(st, p, c)
        emit(st, E_DRAW, p, c, 0, 0, 0, 0, 0)
        return c
    return -1


@njit(cache=True, _nrt=False, forceinline=False)
def discard_from_hand(st, p, c, why):
    take_hand(st, p, c)
    discard_card(st, c)
    emit(st, E_DISCARD, p, c, why, 0, 0, 0, 0)


@njit(cache=True, _nrt=False, forceinline=False)
def refill(tb, st, p, pick):
    """RM-4 (3): draw or discard to exactly the hand size (ENGINE-14)."""
    h = tb.params[P_HAND]
    while hand_n(st, p) < h:
        if draw_card(tb, st, p, pick) < 0:
            break
    while hand_n(st, p) > h and free_cards(st, p) > 0:
        discard_from_hand(st, p, choose_discard(tb, st, p), np.int64(0))


# ---------------------------------------------------------------------------------------------
# Setup and the opening


@njit(cache=True, _nrt=False, forceinline=False)
def setup(tb, st, seed, game, pick):
    """RM-2, RM-3: reset ``st`` to the start of game ``game`` of run ``seed``."""
    for s in range(st.rng.shape[0]):
        seed_stream(st.rng[s], seed, game, s)
    cap = st.g[G_LOG_CAP]
    st.g[:] = 0
    st.g[G_LOG_CAP] = cap
    st.g[G_NEXT] = -1
    st.pl[:, :] = 0
    st.kn[:, :, :] = 0
    st.kn[:, :, KN_CHAR] = -1
    n = tb.params[P_PLAYERS]
    st.g[G_N] = n
    # RM-2: the always-dealt characters, then the rest drawn from the pool, all from stream 0 so
    # that configs with the same pool deal the same characters (common random numbers).
    n_pool = tb.params[P_POOL_N]
    n_always = tb.params[P_ALWAYS_N]
    for i in range(n_pool):
        pick[i] = tb.params[P_POOL + i]
    for i in range(n_always, n):  # a partial Fisher-Yates over the optional characters
        j = i + below(st.rng[0], n_pool - i)
        t = pick[i]
        pick[i] = pick[j]
        pick[j] = t
    shuffle(pick, n, st.rng[0])
    first = below(st.rng[0], n)
    st.g[G_FIRST] = first
    for p in range(n):
        ch = pick[p]
        st.pl[p, PL_CHAR] = ch
        st.pl[p, PL_DEALT] = ch
        st.pl[p, PL_ALIVE] = 1
        st.pl[p, PL_SIDE] = own_side(ch)
        st.pl[p, PL_POSSESSED] = -1
        st.pl[p, PL_POSS_TURN] = -1
        st.pl[p, PL_DEATH_TURN] = -1
        st.pl[p, PL_STUN_CARD] = -1
        st.pl[p, PL_POS] = p
        st.g[G_RING + p] = p
        st.kn[p, p, KN_CHAR] = ch
        emit(st, E_DEAL, p, ch, p, 0, 0, 0, 0)
    k = np.int64(0)
    for c in range(NC):
        for _ in range(tb.params[P_COUNT + c]):
            st.deck[k] = c
            k += 1
    st.g[G_DECK_N] = k
    shuffle(st.deck, k, st.rng[1])
    emit(st, E_START, n, first, k, 0, 0, 0, 0)
    opening(tb, st, pick)


@njit(cache=True, _nrt=False, forceinline=False)
def deal_open(tb, st, p):
    for _ in range(tb.params[P_OPEN_HAND]):
        c = pop_deck(st)
        if c < 0:
            return
        tele(st, p, TE_DRAWN + c, 1)
        add_hand(st, p, c)


@njit(cache=True, _nrt=False, forceinline=False)
def fix_feathers(tb, st, p):
    """RM-3: a non-Raven discards every Feather and draws again until none is left; the Raven
    may discard its Feathers too (RM-18: the bluff). Returns the Feathers discarded."""
    k = np.int64(0)
    for _ in range(st.deck.shape[0] + 2):
        if st.pl[p, PL_HAND + FEATHER] == 0:
            break
        if st.pl[p, PL_CHAR] == RAVEN:
            if not choose_yes(tb, st, p, np.int64(-1), np.int64(Y_BLUFF)):
                break
        elif tb.params[P_FEATHER_REDRAW] == 0:
            break
        take_hand(st, p, FEATHER)
        discard_card(st, FEATHER)
        st.pl[p, PL_FEATHER_DISC] += 1
        k += 1
        c = pop_deck(st)
        if c < 0:
            break
        tele(st, p, TE_DRAWN + c, 1)
        add_hand(st, p, c)
    return k


@njit(cache=True, _nrt=False, forceinline=False)
def opening(tb, st, pick):
    """RM-3: deal, Feathers redrawn, one mulligan each, then the discards go back in the deck."""
    n = n_players(st)
    first = st.g[G_FIRST]
    for i in range(n):
        deal_open(tb, st, seat_at(st, first + i))
    for i in range(n):
        p = seat_at(st, first + i)
        k = fix_feathers(tb, st, p)
        m = np.int64(0)
        for _ in range(tb.params[P_MULLIGANS]):
            if not choose_yes(tb, st, p, np.int64(-1), np.int64(Y_MULLIGAN)):
                break
            for c in range(NC):
                while st.pl[p, PL_HAND + c] > 0:
                    take_hand(st, p, c)
                    discard_card(st, c)
            deal_open(tb, st, p)
            k += fix_feathers(tb, st, p)
            m += 1
        emit(st, E_OPEN, p, k, m, 0, 0, 0, 0)
    reshuffle(st)


# ---------------------------------------------------------------------------------------------
# Response windows (RM-19)


@njit(cache=True, _nrt=False, forceinline=False)
def is_action_card(c):
    return EXCHANGE <= c < REACT0


@njit(cache=True, _nrt=False, forceinline=False)
def fitting(st, r, lvl, stack, from_hand, eff, t, opts):
    """The reactions of ``r``'s hand that fit the top of the window stack (RM-7, RM-19)."""
    if st.pl[r, PL_STUNNED] != 0:
        return 0
    n = np.int64(0)
    turn1 = st.g[G_TURN] + 1
    if lvl == 0:
        card = stack[0, 0]
        # RM-28: the target's Evade against Mountains is its own duel (mountains_duel)
        if card != MOUNTAINS and eff & EF_KILL and t == r and alive(st, r):
            if st.pl[r, PL_SAFE_KILL] != turn1 and has(st, r, EVADE):
                opts[n] = EVADE
                n += 1
        if eff & EF_STUN and t == r and st.pl[r, PL_SAFE_STUN] != turn1:
            if has(st, r, DODGE):
                opts[n] = DODGE
                n += 1
        if eff & (EF_XCHG | EF_SWAP) and t == r and stack[0, 3] & AVOIDED == 0:
            if has(st, r, AVOID):
                opts[n] = AVOID
                n += 1
        if t >= 0 and t != r and has(st, r, LIFEBUOY):
            k = eff & EF_KILL and alive(st, t) and st.pl[t, PL_SAFE_KILL] != turn1
            s = eff & EF_STUN and st.pl[t, PL_SAFE_STUN] != turn1
            if k or s:
                opts[n] = LIFEBUOY
                n += 1
        if from_hand and card >= 0:
            if is_action_card(card) and has(st, r, ROD):
                opts[n] = ROD
                n += 1
            if has(st, r, RAT_TREACHERY):
                opts[n] = RAT_TREACHERY
                n += 1
    else:
        if has(st, r, ROD):
            opts[n] = ROD
            n += 1
        if has(st, r, RAT_TREACHERY):
            opts[n] = RAT_TREACHERY
            n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def window(tb, st, a, card, from_hand, eff, t, stack, opts):
    """RM-19: the window of ``card`` (-1: a death ability's effect) played by ``a`` at ``t``.
    Returns CANCELLED | AVOIDED bits; Evade, Dodge and Lifebuoy leave their mark on the players
    they protect (PL_SAFE_*, ENGINE-4)."""
    n = n_players(st)
    k = np.int64(0)
    if t >= 0:
        st.g[G_RESP] = t
        k = 1
    for i in range(n):
        q = seat_at(st, st.pl[a, PL_POS] + i)
        if q != t:
            st.g[G_RESP + k] = q
            k += 1
    stack[0, 0] = card
    stack[0, 1] = a
    stack[0, 2] = 0
    stack[0, 3] = 0
    stack[0, 4] = t
    turn1 = st.g[G_TURN] + 1
    lvl = np.int64(0)
    while True:
        played = False
        while stack[lvl, 2] < k:
            r = st.g[G_RESP + stack[lvl, 2]]
            stack[lvl, 2] += 1
            if lvl > 0 and r == stack[lvl, 1]:
                continue
            n_opts = fitting(st, r, lvl, stack, from_hand, eff, t, opts)
            if n_opts == 0:
                continue
            protects = t if lvl == 0 else stack[lvl, 4]
            c = choose_reaction(tb, st, r, opts, n_opts, stack, lvl, protects)
            if c < 0 or lvl + 1 >= MAX_STACK:
                continue
            take_hand(st, r, c)
            tele(st, r, TE_PLAYED + c, 1)
            emit(st, E_REACT, r, c, lvl, stack[lvl, 0], stack[lvl, 1], 0, 0)
            lvl += 1
            stack[lvl, 0] = c
            stack[lvl, 1] = r
            stack[lvl, 2] = 0
            stack[lvl, 3] = 0
            if c == EVADE or c == DODGE or c == AVOID:
                stack[lvl, 4] = r
            elif c == LIFEBUOY:
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
        discard_card(st, c)
        lvl -= 1
        if c == ROD or c == RAT_TREACHERY:
            stack[lvl, 3] |= CANCELLED
            emit(st, E_CANCEL, stack[lvl, 1], stack[lvl, 0], c, 0, 0, 0, 0)
            if c == RAT_TREACHERY:  # RM-7, RM-20, ENGINE-6
                st.g[G_OVER] = 1
                st.g[G_NEXT] = r
        elif c == EVADE:
            st.pl[r, PL_SAFE_KILL] = turn1
        elif c == DODGE:
            st.pl[r, PL_SAFE_STUN] = turn1
        elif c == AVOID:
            stack[0, 3] |= AVOIDED
        elif c == LIFEBUOY:
            st.pl[tgt, PL_SAFE_KILL] = turn1
            st.pl[tgt, PL_SAFE_STUN] = turn1
        while lvl > 0 and stack[lvl, 3] & CANCELLED:  # a cancelled reaction has no effect
            discard_card(st, stack[lvl, 0])
            lvl -= 1
        if lvl == 0 and stack[0, 3] & CANCELLED:
            break
    return stack[0, 3]


# ---------------------------------------------------------------------------------------------
# Deaths, sides and the end (RM-5, RM-10, RM-21, RM-22)


@njit(cache=True, _nrt=False, forceinline=False)
def check_end(st):
    """RM-22: set G_END when a side has won (simultaneous ends go to the Family)."""
    if st.g[G_END] != 0 or st.g[G_HOLD] != 0:
        return
    n = n_players(st)
    evil_alive = 0
    living = 0
    last = -1
    for p in range(n):
        if alive(st, p):
            living += 1
            last = p
            if evil(st.pl[p, PL_CHAR]):
                evil_alive += 1
    if evil_alive == 0:
        st.g[G_END] = END_FAMILY
        return
    if living == 1 and st.pl[last, PL_CHAR] == CTHULHU:
        st.g[G_END] = END_CTHULHU
        return
    for x in range(n):
        ch = st.pl[x, PL_CHAR]
        if not (alive(st, x) and possessor(ch)):
            continue
        side = own_side(ch)
        won = True
        for q in range(n):
            if q == x or not alive(st, q):
                continue
            if st.pl[q, PL_SIDE] != side or immune(st.pl[q, PL_CHAR]):
                won = False
                break
        if won:
            st.g[G_END] = END_RAVEN if side == S_RAVEN else END_HORSEMAN
            return


@njit(cache=True, _nrt=False, forceinline=False)
def possess(st, b, side, giver):
    """RM-6: ``b`` now serves ``side``; it knows who possessed it (RM-11)."""
    st.pl[b, PL_POSSESSED] = side
    st.pl[b, PL_SIDE] = side
    if st.pl[b, PL_POSS_TURN] < 0:
        st.pl[b, PL_POSS_TURN] = st.g[G_TURN]
    if giver >= 0:
        st.kn[b, giver, KN_CHAR] = st.pl[giver, PL_CHAR]
    emit(st, E_POSSESS, b, side, giver, 0, 0, 0, 0)
    check_end(st)


@njit(cache=True, _nrt=False, forceinline=False)
def random_feather_moved(st, a, b):
    """ENGINE-9, RM-6: after a random move of cards from ``a`` to ``b`` (Cave, a hand exchange),
    ``b`` holding a Feather is possessed and ``a`` left with none is freed. The caller holds the
    end (``random_move_begin`` .. ``random_move_end``): the possession's own check would see ``a``
    still possessed."""
    if st.pl[b, PL_HAND + FEATHER] > 0 and alive(st, b) and not immune(st.pl[b, PL_CHAR]):
        side = -1
        if living_possessor(st, np.int64(S_RAVEN)) >= 0:
            side = S_RAVEN
        elif living_possessor(st, np.int64(S_HORSEMAN)) >= 0:
            side = S_HORSEMAN
        if side >= 0 and st.pl[b, PL_POSSESSED] != side:
            possess(st, b, side, np.int64(-1))
    if (
        st.pl[a, PL_POSSESSED] >= 0
        and st.pl[a, PL_HAND + FEATHER] == 0
        and not immune(st.pl[a, PL_CHAR])
    ):
        st.pl[a, PL_POSSESSED] = -1
        st.pl[a, PL_SIDE] = FAMILY
        emit(st, E_FREED, a, 0, 0, 0, 0, 0, 0)


@njit(cache=True, _nrt=False, forceinline=False)
def random_move_begin(st):
    """RM-6: a random effect that may move Feathers starts; the end waits until it is over (the
    holder "at the end of the interaction" is possessed, the one who lost it freed first).
    Returns the hold to restore."""
    hold = st.g[G_HOLD]
    st.g[G_HOLD] = 1
    return hold


@njit(cache=True, _nrt=False, forceinline=False)
def random_move_end(st, hold):
    """RM-6: the random effect is over; victory is checked now, unless death abilities are still
    queued (they resolve first, RM-5, RM-21; ``resolve_deaths`` checks after them)."""
    st.g[G_HOLD] = hold
    if hold == 0 and st.g[G_DEPTH] == st.g[G_DEATHS_N]:
        check_end(st)


@njit(cache=True, _nrt=False, forceinline=False)
def has_death_ability(ch):
    return (
        ch == ANGLER
        or ch == BOAR
        or ch == BUNNY
        or ch == PIKE
        or ch == CATFISH
        or ch == CRAYFISH
        or ch == DOC
        or ch == EEL
        or ch == GROGUS
        or ch == WHALE
        or ch == LUMBEARJACK
        or ch == MAYOR
        or ch == SQUIRREL
        or ch == ALLIGATOR
        or ch == WOLF
    )


@njit(cache=True, _nrt=False, forceinline=False)
def die(st, v, cause, killer):
    """RM-5: ``v`` dies: its character is revealed, its death ability queued (ENGINE-7)."""
    if not alive(st, v) or st.g[G_END] != 0:
        return
    st.pl[v, PL_ALIVE] = 0
    st.pl[v, PL_DEATH_TURN] = st.g[G_TURN]
    st.pl[v, PL_CAUSE] = cause
    tele(st, v, TE_DIED + cause - 1, 1)
    if st.pl[v, PL_STUNNED] != 0:  # rulebook FAQ: the stun is removed
        st.pl[v, PL_STUNNED] = 0
        if st.pl[v, PL_STUN_CARD] >= 0:
            discard_card(st, st.pl[v, PL_STUN_CARD])
            st.pl[v, PL_STUN_CARD] = -1
    reveal_char(st, v)
    ch = st.pl[v, PL_CHAR]
    emit(st, E_DEATH, v, ch, cause, killer, st.g[G_TURN], 0, 0)
    others = False  # another evil character lives: the game goes on (RM-22)
    for q in range(n_players(st)):
        if q != v and alive(st, q) and evil(st.pl[q, PL_CHAR]):
            others = True
    if evil(ch) and others:  # RM-22: it joins the Family, its possessed serve the other possessor
        st.pl[v, PL_EVIL_LOST] = 1
        side = own_side(ch)
        other = -1
        if side == S_RAVEN and living_possessor(st, np.int64(S_HORSEMAN)) >= 0:
            other = S_HORSEMAN
        elif side == S_HORSEMAN and living_possessor(st, np.int64(S_RAVEN)) >= 0:
            other = S_RAVEN
        for q in range(n_players(st)):
            if q != v and st.pl[q, PL_POSSESSED] == side:
                if other >= 0:
                    st.pl[q, PL_POSSESSED] = other
                    st.pl[q, PL_SIDE] = other
                else:
                    st.pl[q, PL_POSSESSED] = -1
                    st.pl[q, PL_SIDE] = FAMILY
                emit(st, E_SIDE, q, st.pl[q, PL_SIDE], 0, 0, 0, 0, 0)
    elif evil(ch):
        st.pl[v, PL_EVIL_LOST] = 1
    if cause != D_EAGLE and has_death_ability(ch):
        i = st.g[G_DEATHS_N]
        if i < 2 * MAXP:
            st.g[G_DEATHS + 2 * i] = v
            st.g[G_DEATHS + 2 * i + 1] = ch
            st.g[G_DEATHS_N] = i + 1
    if st.g[G_DEPTH] == st.g[G_DEATHS_N] and st.g[G_HOLD] == 0:
        check_end(st)  # else after the death abilities (RM-5, RM-21: they resolve at once)


@njit(cache=True, _nrt=False, forceinline=False)
def kill(tb, st, killer, t, cause):
    """RM-21: a kill of ``t`` resolves (after its window); Shark Bouncer may die in its place."""
    if st.g[G_END] != 0:
        return False
    if not alive(st, t):
        emit(st, E_KILL_SAVED, t, 1, 0, 0, 0, 0, 0)
        return False
    if st.pl[t, PL_SAFE_KILL] == st.g[G_TURN] + 1:
        emit(st, E_KILL_SAVED, t, 0, 0, 0, 0, 0, 0)
        return False
    victim = t
    if cause != D_PILLOW:
        for s in range(n_players(st)):
            if s != t and st.pl[s, PL_CHAR] == SHARK and alive(st, s):
                if choose_yes(tb, st, s, t, np.int64(Y_SACRIFICE)):
                    victim = s
                    cause = D_SACRIFICE
                    emit(st, E_SACRIFICE, s, t, 0, 0, 0, 0, 0)
                break
    if killer >= 0:
        st.pl[killer, PL_KILLS] += 1
    die(st, victim, cause, killer)
    return True


@njit(cache=True, _nrt=False, forceinline=False)
def stun(st, src, t, card):
    """A stun of ``t`` resolves (after its window). True if ``card`` now lies before ``t``."""
    if st.g[G_END] != 0 or st.pl[t, PL_SAFE_STUN] == st.g[G_TURN] + 1:
        return False
    if src >= 0:
        st.pl[src, PL_STUNS] += 1
    emit(st, E_STUN, t, src, card, 0, 0, 0, 0)
    if st.pl[t, PL_STUNNED] != 0:
        return False
    st.pl[t, PL_STUNNED] = 1
    if card >= 0:
        st.pl[t, PL_STUN_CARD] = card
        return True
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def stun_with(st, src, t, card):
    """A stun by a card: the card lies before ``t`` when it took, else it is discarded."""
    if not stun(st, src, t, card):
        discard_card(st, card)


# ---------------------------------------------------------------------------------------------
# Exchanges and swaps


@njit(cache=True, _nrt=False, forceinline=False)
def give_card(st, a, b, c):
    """``a`` passes card ``c`` to ``b`` in an exchange (RM-6, RM-11, RM-16)."""
    take_hand(st, a, c)
    add_hand(st, b, c)
    tele(st, b, TE_RECEIVED + c, 1)
    st.kn[a, b, KN_GAVE + c] += 1
    st.kn[a, b, KN_HAND + c] += 1
    st.kn[b, a, KN_RECV + c] += 1
    if c == FEATHER:
        st.kn[b, a, KN_GAVE_F] = 1
        st.kn[b, a, KN_FEATHER] = st.g[G_TURN] + 1


@njit(cache=True, _nrt=False, forceinline=False)
def feather_given(st, a, b):
    """RM-6: a Feather from a possessor possesses a living, non-immune receiver."""
    ch = st.pl[a, PL_CHAR]
    if possessor(ch) and alive(st, a) and alive(st, b) and not immune(st.pl[b, PL_CHAR]):
        possess(st, b, own_side(ch), a)


@njit(cache=True, _nrt=False, forceinline=False)
def pillow_check(tb, st, giver, receiver):
    """RM-8: the giver of a Pillow may reveal it; the receiver dies (ENGINE-8)."""
    if not alive(st, giver) or not alive(st, receiver) or st.g[G_END] != 0:
        return
    if not has(st, receiver, PILLOW):
        return
    if choose_yes(tb, st, giver, receiver, np.int64(Y_PILLOW)):
        take_hand(st, receiver, PILLOW)
        discard_card(st, PILLOW)
        tele(st, giver, TE_PLAYED + PILLOW, 1)
        emit(st, E_PILLOW, giver, receiver, 0, 0, 0, 0, 0)
        st.pl[giver, PL_KILLS] += 1
        die(st, receiver, np.int64(D_PILLOW), giver)


@njit(cache=True, _nrt=False, forceinline=False)
def trade(tb, st, a, b, kind):
    """``a`` and ``b`` exchange one card each (RM-16: chosen before either is seen); ENGINE-12."""
    ca = choose_give(tb, st, a, b) if free_cards(st, a) > 0 else -1
    cb = choose_give(tb, st, b, a) if free_cards(st, b) > 0 else -1
    if ca < 0 or cb < 0:
        if ca < 0:
            show_hand(st, b, a)
            emit(st, E_SHOW, a, b, hand_n(st, a), 0, 0, 0, 0)
        if cb < 0:
            show_hand(st, a, b)
            emit(st, E_SHOW, b, a, hand_n(st, b), 0, 0, 0, 0)
        return
    give_card(st, a, b, ca)
    give_card(st, b, a, cb)
    emit(st, E_XCHG, a, b, ca, cb, kind, 0, 0)
    if ca == FEATHER:
        feather_given(st, a, b)
    if cb == FEATHER:
        feather_given(st, b, a)
    if ca == PILLOW:
        pillow_check(tb, st, a, b)
    if cb == PILLOW:
        pillow_check(tb, st, b, a)


@njit(cache=True, _nrt=False, forceinline=False)
def swap_seats(st, a, b):
    """SWAP: ``a`` and ``b`` change places on the ring (RM-12)."""
    pa = st.pl[a, PL_POS]
    pb = st.pl[b, PL_POS]
    st.pl[a, PL_POS] = pb
    st.pl[b, PL_POS] = pa
    st.g[G_RING + pb] = a
    st.g[G_RING + pa] = b
    emit(st, E_SWAP, a, b, pb, pa, 0, 0, 0)


@njit(cache=True, _nrt=False, forceinline=False)
def swap_hands(st, a, b):
    """Crayfish Docker: the two hands change owners (a random effect for Feathers: ENGINE-9)."""
    for c in range(NC):
        x = st.pl[a, PL_HAND + c]
        st.pl[a, PL_HAND + c] = st.pl[b, PL_HAND + c]
        st.pl[b, PL_HAND + c] = x
    x = st.pl[a, PL_HAND_N]
    st.pl[a, PL_HAND_N] = st.pl[b, PL_HAND_N]
    st.pl[b, PL_HAND_N] = x
    show_hand(st, a, a)
    for c in range(NC):  # each now knows the other's hand (its own old one)
        st.kn[a, b, KN_HAND + c] = st.pl[b, PL_HAND + c]
        st.kn[b, a, KN_HAND + c] = st.pl[a, PL_HAND + c]
    emit(st, E_XCHG, a, b, -1, -1, 3, 0, 0)
    hold = random_move_begin(st)
    random_feather_moved(st, a, b)
    random_feather_moved(st, b, a)
    random_move_end(st, hold)


@njit(cache=True, _nrt=False, forceinline=False)
def random_take(st, a, t):
    """Cave: a random card of ``t``'s hand goes to ``a`` (Feathers included: RM-26)."""
    n = hand_n(st, t)
    if n == 0:
        return
    k = below(st.rng[1], n)
    c = -1
    for x in range(NC):
        k -= st.pl[t, PL_HAND + x]
        if k < 0:
            c = x
            break
    take_hand(st, t, c)
    add_hand(st, a, c)
    st.kn[t, a, KN_HAND + c] += 1
    emit(st, E_TAKE, a, t, c, 0, 0, 0, 0)
    hold = random_move_begin(st)
    random_feather_moved(st, t, a)
    random_move_end(st, hold)


@njit(cache=True, _nrt=False, forceinline=False)
def discard_chosen(tb, st, a, t, pick):
    """Drink, Zaku's Camera, Angler Photographer: ``a`` looks at ``t``'s hand and chooses a card
    that is not a Feather (RM-26); ``t`` discards it."""
    show_hand(st, a, t)
    k = np.int64(0)
    for c in range(NC):
        if c != FEATHER and st.pl[t, PL_HAND + c] > 0:
            pick[k] = c
            k += 1
    if k == 0:
        return
    i = choose_pick(tb, st, a, pick, k, np.int64(PK_DRINK))
    discard_from_hand(st, t, pick[i], np.int64(2))


@njit(cache=True, _nrt=False, forceinline=False)
def look_char(st, a, t):
    st.kn[a, t, KN_CHAR] = st.pl[t, PL_CHAR]
    emit(st, E_LOOK_CHAR, a, t, st.pl[t, PL_CHAR], 0, 0, 0, 0)


# ---------------------------------------------------------------------------------------------
# Candidate actions (what the policies choose among)


@njit(cache=True, _nrt=False, inline="always")
def add_cand(st, n, kind, c, t, o):
    if n >= MAX_CAND:
        return n
    b = G_CAND + 4 * n
    st.g[b] = kind
    st.g[b + 1] = c
    st.g[b + 2] = t
    st.g[b + 3] = o
    return n + 1


@njit(cache=True, _nrt=False, forceinline=False)
def is_place(c):
    return ROOM0 <= c < ROOM1 or LOC0 <= c < LOC1


@njit(cache=True, _nrt=False, forceinline=False)
def enum_card(tb, st, p, c, kind, living, n):
    """Append the legal (target, option) uses of card ``c`` by ``p`` (``living``: ``p`` may kill,
    RM-14) as candidates of ``kind``; returns the new count."""
    np_ = n_players(st)
    if c == AXE or c == BROKEN_BOTTLE or c == KNIFE or c == MOUNTAINS:
        if living:
            for t in range(np_):
                if adjacent(st, p, t) and alive(st, t):
                    n = add_cand(st, n, kind, c, t, 0)
    elif c == RIFLE or c == HARPOON:
        if living:
            for t in range(np_):
                if t != p and alive(st, t):
                    n = add_cand(st, n, kind, c, t, 0)
    elif c == FOREST:
        if living and np_ >= 3:
            nxt = left(st, p)
            s = left(st, nxt)
            if s != p and nxt != p and alive(st, nxt):
                n = add_cand(st, n, kind, c, nxt, 0)
    elif c == VASE:
        for t in range(np_):
            if t != p:
                n = add_cand(st, n, kind, c, t, 0)
    elif c == HAYMAKER or c == BOTTLE:
        for t in range(np_):
            if adjacent(st, p, t):
                n = add_cand(st, n, kind, c, t, 0)
    elif c == EXCHANGE or c == THE_INN:
        if free_cards(st, p) > (1 if kind == K_PLAY else 0):  # the card itself is not given
            for t in range(np_):
                if t != p and st.pl[t, PL_STUNNED] == 0:
                    n = add_cand(st, n, kind, c, t, 0)
    elif c == DINING_ROOM:
        if free_cards(st, p) > (1 if kind == K_PLAY else 0):
            for t in range(np_):
                if t != p and st.pl[t, PL_STUNNED] == 0:
                    n = add_cand(st, n, kind, c, t, 0)
        for t in range(np_):
            if adjacent(st, p, t):
                n = add_cand(st, n, kind, c, t, 1)
    elif c == GET_OVER_HERE:
        for t in range(np_):
            if t != p:
                n = add_cand(st, n, kind, c, t, 0)
                n = add_cand(st, n, kind, c, t, 1)
    elif c == LIBRARY or c == DRINK or c == CAVE:
        for t in range(np_):
            if t != p and (c == LIBRARY or hand_n(st, t) > 0):
                n = add_cand(st, n, kind, c, t, 0)
    elif c == ZAKUS_CAMERA:
        for t in range(np_):
            if t != p:
                n = add_cand(st, n, kind, c, t, 0)
                if hand_n(st, t) > 0:
                    n = add_cand(st, n, kind, c, t, 1)
    elif c == BASEMENT:
        n = add_cand(st, n, kind, c, -1, AXE)
        n = add_cand(st, n, kind, c, -1, BOTTLE)
        n = add_cand(st, n, kind, c, -1, BROKEN_BOTTLE)
    elif c == BEDROOM:
        n = add_cand(st, n, kind, c, -1, PILLOW)
        n = add_cand(st, n, kind, c, -1, CANDLE)
    elif c == FATHERS_STUDY:
        n = add_cand(st, n, kind, c, -1, RIFLE)
        n = add_cand(st, n, kind, c, -1, BOTTLE)
        n = add_cand(st, n, kind, c, -1, MANOR_PLAN)
    elif c == KITCHEN:
        n = add_cand(st, n, kind, c, -1, KNIFE)
        n = add_cand(st, n, kind, c, -1, BOTTLE)
    elif c == CABIN:
        n = add_cand(st, n, kind, c, -1, AXE)
        n = add_cand(st, n, kind, c, -1, BOTTLE)
        n = add_cand(st, n, kind, c, -1, RIFLE)
    elif c == GUESTROOM:
        n = add_cand(st, n, kind, c, -1, 0)
        if free_cards(st, p) > (1 if kind == K_PLAY else 0):
            n = add_cand(st, n, kind, c, -1, 1)
    elif c == MANOR_PLAN:
        for r in range(ROOM0, ROOM1):
            n = add_cand(st, n, kind, c, -1, r)
    elif c == COMPASS:
        for r in range(LOC0, LOC1):
            n = add_cand(st, n, kind, c, -1, r)
    elif c == TREASURE_MAP:
        for r in range(NC):
            n = add_cand(st, n, kind, c, -1, r)
    elif c == BARRICADE:
        for r in range(ROOM0, ROOM1):
            if st.g[G_INPLAY + r] - st.g[G_BARR + r] > 0:
                n = add_cand(st, n, kind, c, r, 0)
    elif (
        c == BATHROOM
        or c == CANDLE
        or c == TORCH
        or c == BACKPACK
        or c == ABANDONED_MINE
        or c == COAST
    ):
        n = add_cand(st, n, kind, c, -1, 0)
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def enum_actions(tb, st, p):
    """RM-4 (1): every legal action of ``p`` as candidates; returns their count."""
    living = np.int64(st.pl[p, PL_ALIVE])
    n = np.int64(0)
    for c in range(NC):
        if st.pl[p, PL_HAND + c] > 0 and not (REACT0 <= c < REACT1):
            n = enum_card(tb, st, p, c, np.int64(K_PLAY), living, n)
            if (c == AXE or c == RIFLE) and n < MAX_CAND:  # RM-17: break a Barricade
                for r in range(ROOM0, ROOM1):
                    if st.g[G_BARR + r] > 0:
                        n = add_cand(st, n, K_BREAK, c, r, 0)
    for c in range(NC):
        if not is_place(c) or st.g[G_INPLAY + c] - st.g[G_BARR + c] <= 0:
            continue
        n = enum_card(tb, st, p, c, np.int64(K_USE), living, n)
    if free_cards(st, p) >= tb.params[P_DISCARD_DRAW]:
        n = add_cand(st, n, K_CYCLE, -1, -1, 0)
    if st.pl[p, PL_CHAR] == EAGLE and living:  # RM-27
        for r in range(LOC0, LOC1):
            n = add_cand(st, n, K_EAGLE, -1, -1, r)
    if n == 0:
        n = add_cand(st, n, K_PASS, -1, -1, 0)
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def choose_use(tb, st, p, c, living):
    """A policy's target and option for card ``c`` played by an effect (Manor Plan's Room,
    Compass's Location, Coast's Treasure Map, Groguś); (-2, 0) when it has no legal use."""
    n = enum_card(tb, st, p, c, np.int64(K_FREE), living, np.int64(0))
    if n == 0:
        return -2, 0
    i = choose_action(tb, st, p, n)
    b = G_CAND + 4 * i
    return st.g[b + 2], st.g[b + 3]


# ---------------------------------------------------------------------------------------------
# Cards


@njit(cache=True, _nrt=False, forceinline=False)
def card_effects(c, o):
    if c == AXE or c == RIFLE or c == BROKEN_BOTTLE or c == KNIFE:
        return EF_KILL
    if c == FOREST or c == MOUNTAINS:
        return EF_KILL
    if c == HARPOON:  # its stun is answered in a window of its own (RM-21)
        return EF_KILL
    if c == VASE or c == HAYMAKER or c == BOTTLE:
        return EF_STUN
    if c == EXCHANGE:
        return EF_XCHG
    if c == DINING_ROOM:
        return EF_XCHG if o == 0 else EF_SWAP
    if c == GET_OVER_HERE:
        return EF_SWAP if o == 0 else 0
    return 0


@njit(cache=True, _nrt=False, forceinline=False)
def mountains_duel(tb, st, a, t, opts, stack):
    """RM-28: the target may Evade; then the attacker may Evade too, and both die."""
    if not alive(st, t) or st.g[G_END] != 0:
        return
    if st.pl[t, PL_SAFE_KILL] == st.g[G_TURN] + 1:
        emit(st, E_KILL_SAVED, t, 0, 0, 0, 0, 0, 0)
        return
    evaded = False
    if st.pl[t, PL_STUNNED] == 0 and has(st, t, EVADE):
        opts[0] = EVADE
        stack[1, 0] = MOUNTAINS
        stack[1, 1] = a
        stack[1, 4] = t
        if choose_reaction(tb, st, t, opts, np.int64(1), stack, np.int64(1), t) == EVADE:
            evaded = True
            st.pl[t, PL_SAFE_KILL] = st.g[G_TURN] + 1  # ENGINE-4
            take_hand(st, t, EVADE)
            discard_card(st, EVADE)
            tele(st, t, TE_PLAYED + EVADE, 1)
            emit(st, E_REACT, t, EVADE, 0, MOUNTAINS, a, 0, 0)
    if not evaded:
        kill(tb, st, a, t, np.int64(D_MOUNTAINS))
        return
    if (
        st.pl[a, PL_STUNNED] == 0
        and has(st, a, EVADE)
        and choose_yes(tb, st, a, t, np.int64(Y_MOUNTAIN_EVADE))
    ):
        take_hand(st, a, EVADE)
        discard_card(st, EVADE)
        tele(st, a, TE_PLAYED + EVADE, 1)
        emit(st, E_REACT, a, EVADE, 0, MOUNTAINS, t, 0, 0)
        st.pl[a, PL_KILLS] += 1
        st.g[G_HOLD] = 1  # both die at once: the end is judged after both (RM-22: the Family)
        die(st, t, np.int64(D_MOUNTAINS), a)
        die(st, a, np.int64(D_MOUNTAINS), a)
        st.g[G_HOLD] = 0
        if st.g[G_DEPTH] == st.g[G_DEATHS_N]:
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
                discard_card(st, c)  # RM-19: a cancelled Room or Location goes to the discard
                return -1
            st.g[G_INPLAY + c] += 1
            emit(st, E_INPLAY, a, c, 1, 0, 0, 0, 0)
        if status & CANCELLED:
            return -1
        u = c - ROOM0 if c < ROOM1 else (ROOM1 - ROOM0) + (c - LOC0)
        tele(st, a, TE_USED + u, 1)
    elif status & CANCELLED:
        discard_card(st, c)
        return -1
    avoided = status & AVOIDED
    nxt = -1
    if c == BASEMENT or c == BEDROOM or c == FATHERS_STUDY or c == KITCHEN:
        search_to_hand(st, a, o, np.int64(0))
    elif c == CABIN:
        search_to_hand(st, a, o, np.int64(1))
    elif c == BATHROOM:
        k = np.int64(0)
        while free_cards(st, a) > 0:
            d = choose_bathroom(tb, st, a, k)
            if d < 0 or not can_part(st, a, d):
                break
            discard_from_hand(st, a, d, np.int64(2))
            k += 1
        for _ in range(k):
            draw_card(tb, st, a, pick)
    elif c == DINING_ROOM:
        if not avoided:
            if o == 0:
                trade(tb, st, a, t, np.int64(1))
            else:
                swap_seats(st, a, t)
    elif c == GUESTROOM:
        if o == 0:
            search_to_hand(st, a, np.int64(PILLOW), np.int64(0))
        elif free_cards(st, a) > 0:
            discard_from_hand(st, a, choose_discard(tb, st, a), np.int64(2))
            draw_card(tb, st, a, pick)
    elif c == LIBRARY:
        show_hand(st, a, t)
        emit(st, E_SHOW, t, a, hand_n(st, t), 0, 0, 0, 0)
    elif c == EXCHANGE:
        if not avoided:
            trade(tb, st, a, t, np.int64(1))
    elif c == GET_OVER_HERE:
        if o == 1:
            show_hand(st, a, t)
            emit(st, E_SHOW, t, a, hand_n(st, t), 0, 0, 0, 0)
        elif not avoided:
            swap_seats(st, a, t)
    elif c == VASE or c == HAYMAKER:
        stun_with(st, a, t, c)
        return -1
    elif c == BOTTLE:
        placed = stun(st, a, t, c)
        search_to_hand(st, a, np.int64(BROKEN_BOTTLE), np.int64(0))
        if not placed:
            discard_card(st, c)
        return -1
    elif c == AXE or c == BROKEN_BOTTLE or c == KNIFE or c == RIFLE:
        kill(tb, st, a, t, np.int64(D_KILL))
    elif c == HARPOON:  # RM-21: kill, then stun, each answered on its own; Rod or Rat
        kill(tb, st, a, t, np.int64(D_KILL))  # Treachery in the first window cancels both
        window(tb, st, a, np.int64(-1), np.int64(0), np.int64(EF_STUN), t, stack, opts)
        stun_with(st, a, t, c)
        return -1
    elif c == CANDLE:
        k = np.int64(0)
        for _ in range(tb.params[P_CANDLE]):
            x = pop_deck(st)
            if x < 0:
                break
            pick[k] = x
            k += 1
        if k > 0:
            i = choose_pick(tb, st, a, pick, k, np.int64(PK_HAND))
            x = pick[i]
            pick[i] = pick[k - 1]
            k -= 1
            top = -1
            if k > 0:
                j = choose_pick(tb, st, a, pick, k, np.int64(PK_TOP))
                top = pick[j]
                pick[j] = pick[k - 1]
                k -= 1
            # the rest under the deck, then the chosen one on top
            n = st.g[G_DECK_N]
            for m in range(n - 1, -1, -1):
                st.deck[m + k] = st.deck[m]
            for m in range(k):
                st.deck[m] = pick[m]
            n += k
            if top >= 0:
                st.deck[n] = top
                n += 1
            st.g[G_DECK_N] = n
            if x == FEATHER and st.pl[a, PL_CHAR] != RAVEN:
                discard_card(st, x)  # RM-26
                st.pl[a, PL_FEATHER_DISC] += 1
                emit(st, E_FEATHER, a, 0, 0, 0, 0, 0, 0)
            else:
                add_hand(st, a, x)
                emit(st, E_PICK, a, x, CANDLE, 0, 0, 0, 0)
    elif c == MANOR_PLAN or c == COMPASS:
        if find_card(st, a, o, np.int64(0)):
            nxt = o
    elif c == BACKPACK:
        st.pl[a, PL_BACKPACKS] += 1
        for _ in range(tb.params[P_BACKPACK]):
            k = np.int64(0)
            for x in range(NC):
                if can_part(st, a, x):
                    pick[k] = x
                    k += 1
            if k == 0:
                break
            i = choose_pick(tb, st, a, pick, k, np.int64(PK_STORE))
            if i < 0:
                break
            x = pick[i]
            take_hand(st, a, x)
            st.pl[a, PL_BP + x] += 1
            st.pl[a, PL_BP_N] += 1
            emit(st, E_BACKPACK, a, x, 1, 0, 0, 0, 0)
        return -1
    elif c == BARRICADE:
        st.g[G_BARR + t] += 1
        emit(st, E_BARRICADE, a, t, 1, 0, 0, 0, 0)
        return -1
    elif c == DRINK:
        discard_chosen(tb, st, a, t, pick)
    elif c == TORCH or c == ABANDONED_MINE:
        k = reveal_top(st, tb.params[P_TORCH if c == TORCH else P_MINE_REVEAL], pick)
        keep = 1 if c == TORCH else tb.params[P_MINE_KEEP]
        for _ in range(keep):
            if k == 0:
                break
            i = choose_pick(tb, st, a, pick, k, PK_HAND if c == TORCH else PK_MINE)
            to_hand_public(st, a, pick[i])
            if pick[i] != FEATHER or st.pl[a, PL_CHAR] == RAVEN:  # RM-26: else discarded, public
                emit(st, E_PICK, a, pick[i], c, 0, 0, 0, 0)
            pick[i] = pick[k - 1]
            k -= 1
        for m in range(k):
            discard_card(st, pick[m])
        if c == ABANDONED_MINE and st.g[G_INPLAY + c] > 0:
            st.g[G_INPLAY + c] -= 1
            st.g[G_REMOVED + c] += 1
            emit(st, E_INPLAY, a, c, 0, 0, 0, 0, 0)
        if c == ABANDONED_MINE:
            return -1
    elif c == TREASURE_MAP:
        search_to_hand(st, a, o, np.int64(1))
    elif c == ZAKUS_CAMERA:
        if o == 0:
            look_char(st, a, t)
        else:
            discard_chosen(tb, st, a, t, pick)
    elif c == CAVE:
        random_take(st, a, t)
    elif c == COAST:
        if has(st, a, BOTTLE):
            discard_from_hand(st, a, np.int64(BOTTLE), np.int64(2))
        if find_card(st, a, np.int64(TREASURE_MAP), np.int64(0)):
            nxt = TREASURE_MAP
    elif c == FOREST:  # RM-24: the other neighbour of the next player consents
        s = left(st, t)
        yes = choose_yes(tb, st, s, t, np.int64(Y_FOREST))
        emit(st, E_CONSENT, a, s, 1 if yes else 0, 0, 0, 0, 0)
        if yes:
            st.pl[s, PL_SKIP] = 1
            kill(tb, st, a, t, np.int64(D_KILL))
        st.g[G_OVER] = 1  # RM-20
    elif c == MOUNTAINS:
        mountains_duel(tb, st, a, t, opts, stack)
    elif c == THE_INN:
        yes = choose_yes(tb, st, t, a, np.int64(Y_INN))
        emit(st, E_CONSENT, a, t, 1 if yes else 0, 1, 0, 0, 0)
        if yes and free_cards(st, a) > 0:
            x = choose_give(tb, st, a, t)
            give_card(st, a, t, x)
            emit(st, E_XCHG, a, t, x, -1, 2, 0, 0)
            if x == FEATHER:
                feather_given(st, a, t)
            elif x == PILLOW:
                pillow_check(tb, st, a, t)
    if not place:
        discard_card(st, c)
    return nxt


@njit(cache=True, _nrt=False, forceinline=False)
def play_chain(tb, st, a, c, t, o, from_hand, entering, living, stack, opts, pick):
    """``c`` and the cards its effect plays in turn (Manor Plan's Room, Compass's Location,
    Coast's Treasure Map), each with its own window; ``entering``: a Room or Location ``c`` comes
    into play (from hand, or played by an effect: Groguś, Guardian Eagle), else it is used where
    it lies in play."""
    for _ in range(4):
        nxt = apply_card(tb, st, a, c, t, o, from_hand, entering, living, stack, opts, pick)
        if nxt < 0 or st.g[G_END] != 0:
            return
        c = nxt
        from_hand = 0
        entering = 1
        t, o = choose_use(tb, st, a, c, living)
        if t == -2:  # no legal use: a Room or Location still enters play
            if is_place(c):
                st.g[G_INPLAY + c] += 1
                emit(st, E_INPLAY, a, c, 1, 0, 0, 0, 0)
            else:
                discard_card(st, c)
            return


# ---------------------------------------------------------------------------------------------
# Death abilities (RM-5, RM-21, RM-23, RM-24)


@njit(cache=True, _nrt=False, forceinline=False)
def target_mask(st, v, living_only, not_stunned, mask):
    n = n_players(st)
    k = np.int64(0)
    for q in range(n):
        ok = q != v and (alive(st, q) or not living_only)
        if ok and not_stunned and st.pl[q, PL_STUNNED] != 0:
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
        discard_card(st, card)
        return
    t = choose_target(tb, st, v, np.int64(T_KILL), mask, n_players(st))
    emit(st, E_ABILITY, v, ch, t, card, 0, 0, 0)  # ch: the card it died as (Lady Whale)
    window(tb, st, v, np.int64(-1), np.int64(0), np.int64(EF_KILL), t, stack, opts)
    kill(tb, st, v, t, np.int64(D_ABILITY))
    if card == HARPOON:  # RM-21: the stun is answered on its own
        window(tb, st, v, np.int64(-1), np.int64(0), np.int64(EF_STUN), t, stack, opts)
        stun_with(st, v, t, card)
    else:
        discard_card(st, card)


@njit(cache=True, _nrt=False, forceinline=False)
def whale_swap(st, v, t):
    """RM-15, ENGINE-13: Lady Whale exchanges character cards with ``t``."""
    cv = st.pl[v, PL_CHAR]
    ct = st.pl[t, PL_CHAR]
    n = n_players(st)
    for q in range(n):  # what others knew of t's card is now what they know of v's
        if q != v and q != t:
            st.kn[q, v, KN_CHAR] = st.kn[q, t, KN_CHAR]
    st.pl[v, PL_CHAR] = ct
    st.pl[t, PL_CHAR] = cv
    st.kn[v, v, KN_CHAR] = ct
    st.kn[t, t, KN_CHAR] = cv
    st.kn[t, v, KN_CHAR] = ct
    st.kn[v, t, KN_CHAR] = cv
    emit(st, E_WHALE, v, t, ct, 0, 0, 0, 0)
    if alive(st, t):
        st.pl[v, PL_ALIVE] = 1
        st.pl[v, PL_DEATH_TURN] = -1
        st.pl[v, PL_CAUSE] = 0
        st.pl[v, PL_REVEALED] = 0
        st.pl[v, PL_EVIL_LOST] = 0
        st.pl[t, PL_ALIVE] = 0
        st.pl[t, PL_DEATH_TURN] = st.g[G_TURN]
        st.pl[t, PL_CAUSE] = D_WHALE
        tele(st, t, TE_DIED + D_WHALE - 1, 1)
        if st.pl[t, PL_STUNNED] != 0:
            st.pl[t, PL_STUNNED] = 0
            if st.pl[t, PL_STUN_CARD] >= 0:
                discard_card(st, st.pl[t, PL_STUN_CARD])
                st.pl[t, PL_STUN_CARD] = -1
    reveal_char(st, t)
    for k in range(2):
        p = v if k == 0 else t
        ch = ct if k == 0 else cv
        if immune(ch) or st.pl[p, PL_POSSESSED] < 0:
            st.pl[p, PL_POSSESSED] = -1
            st.pl[p, PL_SIDE] = own_side(ch)
    check_end(st)


@njit(cache=True, _nrt=False, forceinline=False)
def death_ability(tb, st, v, ch, stack, opts, pick, mask):
    """The death ability of character ``ch``, which ``v`` held when it died (RM-5: its choices
    are ``v``'s)."""
    n = n_players(st)
    if ch == BOAR or ch == DOC:
        if target_mask(st, v, np.int64(1), np.int64(0), mask) > 0:
            t = choose_target(tb, st, v, np.int64(T_KILL), mask, n)
            emit(st, E_ABILITY, v, ch, t, 0, 0, 0, 0)
            window(tb, st, v, np.int64(-1), np.int64(0), np.int64(EF_KILL), t, stack, opts)
            kill(tb, st, v, t, np.int64(D_ABILITY))
    elif ch == PIKE:
        ability_weapon(tb, st, v, ch, np.int64(HARPOON), stack, opts, pick, mask)
    elif ch == LUMBEARJACK:
        ability_weapon(tb, st, v, ch, np.int64(AXE), stack, opts, pick, mask)
    elif ch == WOLF:
        ability_weapon(tb, st, v, ch, np.int64(RIFLE), stack, opts, pick, mask)
    elif ch == ANGLER:
        if target_mask(st, v, np.int64(0), np.int64(0), mask) > 0:
            t = choose_target(tb, st, v, np.int64(T_LOOK_CHAR), mask, n)
            look = hand_n(st, t) == 0 or choose_yes(tb, st, v, t, np.int64(Y_ANGLER_LOOK))
            emit(st, E_ABILITY, v, ch, t, 0 if look else 1, 0, 0, 0)
            if look:
                look_char(st, v, t)
            else:
                discard_chosen(tb, st, v, t, pick)
    elif ch == BUNNY:
        if target_mask(st, v, np.int64(0), np.int64(0), mask) > 0:
            t = choose_target(tb, st, v, np.int64(T_SWAP), mask, n)
            emit(st, E_ABILITY, v, ch, t, 0, 0, 0, 0)
            if (
                not window(tb, st, v, np.int64(-1), np.int64(0), np.int64(EF_SWAP), t, stack, opts)
                & AVOIDED
            ):
                swap_seats(st, v, t)
    elif ch == CATFISH:
        if target_mask(st, v, np.int64(0), np.int64(0), mask) > 0:
            t = choose_target(tb, st, v, np.int64(T_REVEAL_HAND), mask, n)
            emit(st, E_ABILITY, v, ch, t, 0, 0, 0, 0)
            reveal_hand(st, t)
            emit(st, E_SHOW, t, -1, hand_n(st, t), 0, 0, 0, 0)
    elif ch == CRAYFISH:
        if target_mask(st, v, np.int64(0), np.int64(0), mask) > 0:
            t = choose_target(tb, st, v, np.int64(T_STUN_SWAP), mask, n)
            emit(st, E_ABILITY, v, ch, t, 0, 0, 0, 0)
            # two effects, each answered on its own (as Harpoon's, RM-21): Dodge, then Avoid
            window(tb, st, v, np.int64(-1), np.int64(0), np.int64(EF_STUN), t, stack, opts)
            stun(st, v, t, np.int64(-1))
            status = window(tb, st, v, np.int64(-1), np.int64(0), np.int64(EF_XCHG), t, stack, opts)
            if not status & AVOIDED:
                swap_hands(st, v, t)
    elif ch == EEL:
        emit(st, E_ABILITY, v, ch, -1, 0, 0, 0, 0)
        for i in range(1, n):
            q = seat_at(st, st.pl[v, PL_POS] + i)
            if choose_yes(tb, st, q, v, np.int64(Y_EEL_STUN)):
                emit(st, E_EEL, q, 0, 0, 0, 0, 0, 0)  # E_EEL
                stun(st, np.int64(-1), q, np.int64(-1))
            else:
                emit(st, E_EEL, q, 1, 0, 0, 0, 0, 0)
                for c in range(NC):  # rulebook FAQ: Feathers stay in hand
                    if c != FEATHER:
                        while st.pl[q, PL_HAND + c] > 0:
                            discard_from_hand(st, q, c, np.int64(2))
    elif ch == GROGUS:  # as if alive (rulebook FAQ)
        k = np.int64(0)
        for c in range(NC):
            if st.g[G_DISC + c] > 0 and not (REACT0 <= c < REACT1) and c != PILLOW:
                if c != FEATHER:
                    k = enum_card(tb, st, v, c, np.int64(K_FREE), np.int64(1), k)
        if k > 0:
            i = choose_action(tb, st, v, k)
            b = G_CAND + 4 * i
            c = st.g[b + 1]
            t = st.g[b + 2]
            o = st.g[b + 3]
            st.g[G_DISC + c] -= 1
            st.g[G_DISC_N] -= 1
            emit(st, E_ABILITY, v, ch, t, c, 0, 0, 0)
            tele(st, v, TE_PLAYED + c, 1)
            play_chain(tb, st, v, c, t, o, np.int64(0), np.int64(1), np.int64(1), stack, opts, pick)
    elif ch == WHALE:
        if target_mask(st, v, np.int64(0), np.int64(0), mask) > 0:
            t = choose_target(tb, st, v, np.int64(T_WHALE), mask, n)
            emit(st, E_ABILITY, v, ch, t, 0, 0, 0, 0)
            whale_swap(st, v, t)
    elif ch == MAYOR:  # RM-24
        if target_mask(st, v, np.int64(1), np.int64(0), mask) > 0:
            t = choose_target(tb, st, v, np.int64(T_KILL), mask, n)
            kills = 0
            mine = choose_yes(tb, st, v, t, np.int64(Y_VOTE_KILL))
            for q in range(n):
                if q == v:
                    kills += 1 if mine else 0
                elif choose_yes(tb, st, q, t, np.int64(Y_VOTE_KILL)):
                    kills += 1
            stuns = n - kills
            do_kill = kills > stuns or (kills == stuns and mine)
            emit(st, E_VOTE, v, t, kills, stuns, 0 if do_kill else 1, 0, 0)
            if do_kill:
                window(tb, st, v, np.int64(-1), np.int64(0), np.int64(EF_KILL), t, stack, opts)
                kill(tb, st, v, t, np.int64(D_VOTE))
            else:
                window(tb, st, v, np.int64(-1), np.int64(0), np.int64(EF_STUN), t, stack, opts)
                stun(st, v, t, np.int64(-1))
    elif ch == SQUIRREL:
        emit(st, E_ABILITY, v, ch, -1, ROD, 0, 0, 0)
        search_to_hand(st, v, np.int64(ROD), np.int64(1))
        if target_mask(st, v, np.int64(0), np.int64(0), mask) > 0:
            t = choose_target(tb, st, v, np.int64(T_LOOK_CHAR), mask, n)
            look_char(st, v, t)
    elif ch == ALLIGATOR:
        emit(st, E_ABILITY, v, ch, -1, TREASURE_MAP, 0, 0, 0)
        if find_card(st, v, np.int64(TREASURE_MAP), np.int64(1)):
            t, o = choose_use(tb, st, v, np.int64(TREASURE_MAP), np.int64(0))
            play_chain(
                tb,
                st,
                v,
                np.int64(TREASURE_MAP),
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
    while st.g[G_DEPTH] < st.g[G_DEATHS_N] and st.g[G_END] == 0:
        i = st.g[G_DEPTH]
        st.g[G_DEPTH] = i + 1
        death_ability(
            tb, st, st.g[G_DEATHS + 2 * i], st.g[G_DEATHS + 2 * i + 1], stack, opts, pick, mask
        )
        if st.g[G_DEPTH] == st.g[G_DEATHS_N]:
            check_end(st)
    check_end(st)


# ---------------------------------------------------------------------------------------------
# The turn


@njit(cache=True, _nrt=False, inline="always")
def do_action(tb, st, a, kind, c, t, o, stack, opts, pick):
    living = np.int64(st.pl[a, PL_ALIVE])
    emit(st, E_ACTION, a, kind, c, t, o, 0, 0)
    if kind == K_PLAY:
        take_hand(st, a, c)
        tele(st, a, TE_PLAYED + c, 1)
        play_chain(tb, st, a, c, t, o, np.int64(1), np.int64(1), living, stack, opts, pick)
    elif kind == K_USE:
        play_chain(tb, st, a, c, t, o, np.int64(0), np.int64(0), living, stack, opts, pick)
    elif kind == K_CYCLE:  # RM-4: discard 2 to draw 1
        for _ in range(tb.params[P_DISCARD_DRAW]):
            if free_cards(st, a) == 0:
                break
            discard_from_hand(st, a, choose_discard(tb, st, a), np.int64(1))
        draw_card(tb, st, a, pick)
    elif kind == K_EAGLE:  # RM-27
        die(st, a, np.int64(D_EAGLE), np.int64(-1))
        if st.g[G_END] == 0 and find_card(st, a, o, np.int64(0)):
            t2, o2 = choose_use(tb, st, a, o, np.int64(0))
            if t2 == -2:
                st.g[G_INPLAY + o] += 1
                emit(st, E_INPLAY, a, o, 1, 0, 0, 0, 0)
            else:
                play_chain(
                    tb, st, a, o, t2, o2, np.int64(0), np.int64(1), np.int64(0), stack, opts, pick
                )
    elif kind == K_BREAK:  # RM-17: the Axe or Rifle spent on a Barricade
        take_hand(st, a, c)
        tele(st, a, TE_PLAYED + c, 1)
        status = window(tb, st, a, c, np.int64(1), np.int64(0), np.int64(-1), stack, opts)
        if not status & CANCELLED and st.g[G_BARR + t] > 0:
            st.g[G_BARR + t] -= 1
            discard_card(st, BARRICADE)
            emit(st, E_BARRICADE, a, t, 0, 0, 0, 0, 0)
        discard_card(st, c)
    else:  # K_PASS, RM-29: show the hand to the next player
        q = left(st, a)
        show_hand(st, q, a)
        emit(st, E_SHOW, a, q, hand_n(st, a), 0, 0, 0, 0)


@njit(cache=True, _nrt=False, inline="always")
def end_exchange(tb, st, a):
    """RM-4 (2), RM-29: exchange with the next player in turn order who is not stunned."""
    n = n_players(st)
    q = -1
    for i in range(1, n):
        x = seat_at(st, st.pl[a, PL_POS] + i)
        if st.pl[x, PL_STUNNED] == 0:
            q = x
            break
    if q < 0:
        return
    if free_cards(st, a) == 0 or free_cards(st, q) == 0:
        show_hand(st, q, a)
        emit(st, E_SHOW, a, q, hand_n(st, a), 0, 0, 0, 0)
        return
    trade(tb, st, a, q, np.int64(0))


@njit(cache=True, _nrt=False, inline="always")
def play_turn(tb, st, a, stack, opts, pick, mask):
    """One turn of ``a`` (RM-4)."""
    st.g[G_ACTIVE] = a
    st.g[G_OVER] = 0
    st.g[G_NEXT] = -1
    emit(
        st,
        E_TURN,
        a,
        st.g[G_TURN],
        hand_n(st, a),
        st.pl[a, PL_ALIVE],
        st.pl[a, PL_SIDE],
        st.pl[a, PL_STUNNED],
        0,
    )
    if st.pl[a, PL_STUNNED] != 0:  # ENGINE-1
        st.pl[a, PL_STUNNED] = 0
        if st.pl[a, PL_STUN_CARD] >= 0:
            discard_card(st, st.pl[a, PL_STUN_CARD])
            st.pl[a, PL_STUN_CARD] = -1
        emit(st, E_SKIP, a, 0, 0, 0, 0, 0, 0)
        return
    if st.pl[a, PL_SKIP] != 0:
        st.pl[a, PL_SKIP] = 0
        emit(st, E_SKIP, a, 1, 0, 0, 0, 0, 0)
        return
    n = enum_actions(tb, st, a)
    i = choose_action(tb, st, a, n)
    b = G_CAND + 4 * i
    do_action(tb, st, a, st.g[b], st.g[b + 1], st.g[b + 2], st.g[b + 3], stack, opts, pick)
    resolve_deaths(tb, st, stack, opts, pick, mask)
    if st.g[G_END] != 0:
        return
    if st.g[G_OVER] == 0 and st.pl[a, PL_STUNNED] != 0:
        # RM-4: stunned during its own turn (a death ability it triggered), it "cannot
        # participate in Trades": no end-of-turn exchange; it still draws or discards to 4
        emit(st, E_SKIP, a, 2, 0, 0, 0, 0, 0)
    elif st.g[G_OVER] == 0:
        end_exchange(tb, st, a)
        resolve_deaths(tb, st, stack, opts, pick, mask)
        if st.g[G_END] != 0:
            return
    refill(tb, st, a, pick)


@njit(cache=True, _nrt=False, forceinline=False)
def play_game(tb, st, seed, game, stack, opts, pick, mask):
    """Play one whole game into ``st``."""
    setup(tb, st, seed, game, pick)
    a = np.int64(st.g[G_FIRST])
    cap = tb.params[P_TURN_CAP]
    check_end(st)
    while st.g[G_END] == 0:
        play_turn(tb, st, a, stack, opts, pick, mask)
        st.g[G_TURN] += 1
        if st.g[G_END] != 0:
            break
        if st.g[G_TURN] >= cap:  # RM-10
            st.g[G_END] = END_CAP
            break
        nxt = st.g[G_NEXT]
        a = np.int64(nxt) if nxt >= 0 else left(st, a)
    emit(st, E_END, st.g[G_END], st.g[G_TURN], 0, 0, 0, 0, 0)


@njit(cache=True, _nrt=False, forceinline=False)
def side_left(st, side):
    """RM-10, RM-22: is ``side`` still in a capped game (the Family always is)?"""
    if side == FAMILY:
        return True
    if side == S_RAVEN:
        return living_possessor(st, np.int64(S_RAVEN)) >= 0
    if side == S_HORSEMAN:
        return living_possessor(st, np.int64(S_HORSEMAN)) >= 0
    for p in range(n_players(st)):
        if st.pl[p, PL_CHAR] == CTHULHU and alive(st, p):
            return True
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def outcome(st, p):
    """(score, rank) of seat ``p`` after a game (ENGINE-2, ENGINE-3)."""
    score = 1 if alive(st, p) else 0
    if st.pl[p, PL_EVIL_LOST] != 0:
        return score, 2
    side = st.pl[p, PL_SIDE]
    end = st.g[G_END]
    if end == END_CAP:
        return score, 1 if side_left(st, side) else 2
    won = (
        (end == END_FAMILY and side == FAMILY)
        or (end == END_RAVEN and side == S_RAVEN)
        or (end == END_HORSEMAN and side == S_HORSEMAN)
        or (end == END_CTHULHU and side == S_CTHULHU)
    )
    return score, 1 if won else 2


@njit(cache=True, forceinline=False)
def alloc_work():
    stack, pick = alloc_scratch()
    opts = np.zeros(8, np.int64)
    mask = np.zeros(MAXP, np.int64)
    return stack, opts, pick, mask


@njit(cache=True, parallel=True, forceinline=False)
def play_batch(
    tb,
    seed,
    first_game,
    n_games,
    out_score,
    out_rank,
    out_turns,
    out_end,
    out_order,
    out_team,
    out_role,
    out_extra,
    out_tele,
    out_clipped,
):
    """Play games [first_game, first_game + n_games) into row i of the output arrays; block b
    counts the telemetry cells it clipped at 255 in row b of ``out_clipped`` (per column)."""
    n_blocks = (n_games + BLOCK_GAMES - 1) // BLOCK_GAMES
    n = tb.params[P_PLAYERS]
    for blk in prange(n_blocks):
        st = alloc_state(tb, 0)
        stack, opts, pick, mask = alloc_work()
        clipped = out_clipped[blk]
        lo = blk * BLOCK_GAMES
        hi = min(n_games, lo + BLOCK_GAMES)
        for gi in range(lo, hi):
            play_game(tb, st, seed, first_game + gi, stack, opts, pick, mask)
            out_turns[gi] = st.g[G_TURN]
            out_end[gi] = st.g[G_END] - 1
            first = st.g[G_FIRST]
            for p in range(n):
                s, r = outcome(st, p)
                out_score[gi, p] = s
                out_rank[gi, p] = r
                out_order[gi, p] = (p - first) % n
                out_team[gi, p] = st.pl[p, PL_SIDE]
                out_role[gi, p] = st.pl[p, PL_DEALT]
                out_extra[gi, p, 0] = st.pl[p, PL_ALIVE]
                out_extra[gi, p, 1] = st.pl[p, PL_DEATH_TURN]
                out_extra[gi, p, 2] = st.pl[p, PL_POSS_TURN]
                out_extra[gi, p, 3] = st.pl[p, PL_KILLS]
                out_extra[gi, p, 4] = st.pl[p, PL_STUNS]
                seen = 0
                for j in range(N_TELE):
                    v = st.pl[p, PL_TELE + j]
                    out_tele[gi, p, j] = clip_u8(v)
                    seen |= v
                if seen > U8_MAX:
                    for j in range(N_TELE):
                        tally_clipped(st.pl[p, PL_TELE + j], clipped, j)


def play(compiled: Compiled, seed: int, first_game: int, n_games: int) -> Chunk:
    """Play a chunk of games; the Python layer of the batch kernel (checks, allocation)."""
    check_play(seed, first_game, n_games)
    tb = compiled.k
    p = compiled.players
    score = np.zeros((n_games, p), np.int32)
    rank = np.zeros((n_games, p), np.int32)
    turns = np.zeros(n_games, np.int32)
    end = np.zeros(n_games, np.int32)
    order = np.zeros((n_games, p), np.int32)
    team = np.zeros((n_games, p), np.int32)
    role = np.zeros((n_games, p), np.int32)
    extra = np.zeros((n_games, p, len(EXTRA_COLUMNS)), np.int32)
    tel = np.zeros((n_games, p, N_TELE), np.uint8)
    clipped = saturation_rows(n_games, BLOCK_GAMES, N_TELE)
    play_batch(
        tb,
        np.int64(seed),
        np.int64(first_game),
        np.int64(n_games),
        score,
        rank,
        turns,
        end,
        order,
        team,
        role,
        extra,
        tel,
        clipped,
    )
    return Chunk(
        first_game=first_game,
        score=score,
        rank=rank,
        turns=turns,
        end_reason=end,
        order=order,
        telemetry=tel,
        extra={name: np.ascontiguousarray(extra[:, :, k]) for k, name in enumerate(EXTRA_COLUMNS)},
        team=team,
        role=role,
        saturated=saturated(clipped),
    )
