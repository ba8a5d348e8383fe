"""Five Ravens rule engine: numba kernels over plain arrays (rulebooks/five-ravens.txt).

Follows rulings FR-1..FR-15 of shared/RULINGS.md. Where both are silent, or where the engine
had to choose, it reads as follows (docs/rules/five_ravens.md, "Engine readings", explains each;
code and tests cite them as ENGINE-n):

- ENGINE-1 Dealing stops when the relic deck is empty; the last relic dealt is the face-down one.
- ENGINE-2 A Raven played for its action is in no pile while it resolves and goes to the discard
  after (rulebook, Eight): a 9 cannot discard itself, an 8 cannot stack itself.
- ENGINE-3 FR-6 protects the last Raven in hand from every effect that would take it out of the
  hand other than playing it as thief: the 9's discard, the 4's set-aside, and also the 8's
  stacking and the 5's capture. A player who had a Raven can therefore always play a thief.
- ENGINE-4 A relic thief (FR-7, ``thief_relics``) has rank 0: it steals after every Raven thief
  and before the thief-less seats.
- ENGINE-5 "Resolve as much as you are able": a played action with a legal target must take one
  (the 5 must capture, the 6 must flip, the 7 must look and then bury or swap, the 1 must
  replace); only the 6's shuffle, the 8's cards and the 4's set-aside may be none.
- ENGINE-6 An action switched off in the config (``rules.ravens.<rank>.action: false``) can still
  be played and does nothing; a capture effect switched off does nothing when captured (5, 6,
  7) or at scoring (4, 8, 9), and gives no turn action (3, 1) or bottom steal (2).
- ENGINE-7 In the Theft each seat's steal, the capture of its thief and a 7's rescue resolve
  together, in steal order, before the next seat steals.
- ENGINE-8 Unclaimed centre relics go to the bottom of the relic deck one by one in slot order.
- ENGINE-9 A player is held to at most ``MAX_ROUND_TURNS`` (40) mission turns a round; after that
  only a thief (or nothing) is legal. No legal sequence reaches it: it guards the kernel.
- ENGINE-10 "The player who stole last" is the last seat that took a relic; if nobody took one,
  the first player stays.
- ENGINE-11 The 1 puts the old relic under the relic deck before it takes the top one: with an
  empty relic deck the same relic comes straight back, face up.
- ENGINE-12 The 4's set-aside cards are in no pile while it draws (they cannot be reshuffled into
  the deck), and are discarded after.
- ENGINE-13 Knowledge (FR-15) as the engine keeps it: a relic a 6 turns face down stays known to
  every seat; a relic a 7 buries is known at the bottom to its player only, one it swaps in is
  known to its player only, and the swapped-out one goes under unexamined; after a 6's shuffle
  no seat knows which face-down relic is where; a relic put in by a 1 is face up (public).
- ENGINE-14 Chance: the shuffles and the first player come from the game's own random stream,
  each seat's random choices from a stream of its own, all seeded by (run seed, game index,
  stream): game ``i`` of a seed is the same game whatever the policies, threads or chunks.
- ENGINE-15 ``rules.handicap`` (not in the rulebook) adds its entry for the seat's place in the
  first round's turn order to its FR-13 score before FR-14 ranks the seats.
- ENGINE-16 What a search may assume a seat knows (knowledge.py): besides ENGINE-13, each other
  seat's hand, deck and face-down thief as one set, not which card is where; no other memory.
- ENGINE-17 Decision points: a rule with nothing to choose asks nothing; the 8's stacking and the
  4's set-aside are asked a card at a time ("which card next, or stop").

Decision points (docs/rules/five_ravens.md, "Decisions"): ``start`` resets the State,
``advance`` plays to the next decision (state.pending), ``legal`` lists its option codes,
``apply`` carries one out; ``play_game`` plays them all with policies.choose. The game's
continuation (stage, Mission position, steal order, the Raven resolving, ...) is on the board.

State layout (one game; allocated once per block of games and reset per game). ``P`` seats,
``CAP = 9 + n_relics`` slots per pile; card ids are 0..8 for Ravens of rank 1..9 and 9 + i for
relic instance i; piles are arrays with a count, the top of a deck is its last element.
"""

from __future__ import annotations

from typing import Any

from numba import njit

from balance.games import _kit as kit
from balance.games.base import Chunk
from balance.games.five_ravens import policies as pol
from balance.games.five_ravens import state as S
from balance.games.five_ravens import tables as T
from balance.rng import below, seed_stream


@njit(cache=True, _nrt=False, forceinline=True)
def reveal_slot(tb, st, slot):
    """A centre relic turns face up: public, and locked at once if cursed (FR-4)."""
    st.r.board[S.B_FACE + slot] = 1
    for s in range(S.n_seats(tb)):
        st.r.pl[s, S.PL_CKNOWN + slot] = 1
    if tb.r.cards[T.C_KIND, S.rtype(tb, st.r.board[S.B_CENTRE + slot])] == T.K_CURSED:
        st.r.board[S.B_LOCK + slot] = 1


# ---------------------------------------------------------------- drawing


@njit(cache=True, _nrt=False, forceinline=False)
def draw(tb, st, p):
    """Draw one card into hand; FR-4: an empty deck is rebuilt from the shuffled discard pile."""
    return _draw(tb, st, p)


@njit(cache=True, _nrt=False, inline="always")
def _draw(tb, st, p):
    """draw, inlined in the Prelude (16 draws a round, each call passing ~70 array fields)."""
    if st.r.pl[p, S.PL_DECK_N] == 0:
        n = st.r.pl[p, S.PL_DISC_N]
        if n == 0:
            return -1
        for i in range(n):
            st.r.pile[p, S.PILE_DECK, i] = st.r.pile[p, S.PILE_DISC, i]
        st.r.pl[p, S.PL_DISC_N] = 0
        kit.shuffle(st.r.pile[p, S.PILE_DECK], n, st.r.rng[0])
        st.r.pl[p, S.PL_DECK_N] = n
        st.r.pl[p, S.PL_DECK_KNOWN] = 0
        S.emit(st, S.E_SHUFFLE, p, n, 0, 0, 0, 0, 0)
    n = st.r.pl[p, S.PL_DECK_N] - 1
    c = st.r.pile[p, S.PILE_DECK, S.nn(n)]
    st.r.pl[p, S.PL_DECK_N] = n
    if st.r.pl[p, S.PL_DECK_KNOWN] > 0:
        st.r.pl[p, S.PL_DECK_KNOWN] -= 1
    S.hand_push(st, p, c)
    S.count(tb, st, p, T.EV_DRAWN, c)
    S.emit(st, S.E_DRAW, p, c, 0, 0, 0, 0, 0)
    return c


# ---------------------------------------------------------------- setup and prelude


@njit(cache=True, _nrt=False, forceinline=False)
def setup(tb, st, seed, game):
    """Reset ``st`` to the start of game ``game`` of run ``seed`` (rulebook Setup, FR-1..FR-3)."""
    P = S.n_seats(tb)
    for s in range(1 + P):  # ENGINE-14: stream 0 the game's chance, 1 + p seat p's choices
        seed_stream(st.r.rng[s], seed, game, s)
    st.r.board[: S.N_G_RESET] = 0
    st.r.pl[:P, : S.seat_width(tb)] = 0
    for p in range(P):
        st.r.pl[p, S.PL_HAND_N] = 0
        st.r.pl[p, S.PL_DISC_N] = 0
        st.r.pl[p, S.PL_CAPT_N] = 0
        st.r.pl[p, S.PL_DECK_KNOWN] = 0
        st.r.pl[p, S.PL_DOUBLED] = -1
        st.r.pl[p, S.PL_THIEF] = -1
        st.r.pl[p, S.PL_RD_TOP] = -1
        st.r.pl[p, S.PL_RD_BOT] = -1
        st.r.board[S.B_CENTRE + p] = -1
        st.r.board[S.B_FACE + p] = 0
        st.r.board[S.B_LOCK + p] = 0
        for r in range(T.N_RAVENS):
            st.r.pile[p, S.PILE_DECK, r] = r
        st.r.pl[p, S.PL_DECK_N] = T.N_RAVENS
        kit.shuffle(st.r.pile[p, S.PILE_DECK], T.N_RAVENS, st.r.rng[0])
    n = tb.r.params[T.P_N_RELICS]
    for i in range(n):
        st.r.board[S.B_RDECK + i] = T.N_RAVENS + i
    kit.shuffle(st.r.board[S.B_RDECK :], n, st.r.rng[0])
    st.r.board[S.G_RD_BOT] = 0
    st.r.board[S.G_RD_N] = n
    # FR-3: relics removed unseen (8 in a two-player game).
    for _ in range(min(tb.r.params[T.P_REMOVED], n)):
        x = S.rd_pop_top(st)
        S.emit(st, S.E_REMOVED, x, 0, 0, 0, 0, 0, 0)
    first = below(st.r.rng[0], P)  # ENGINE-14: the first player, from the game's stream
    st.r.board[S.G_FIRST] = first
    st.r.board[S.G_START] = first
    st.r.board[S.G_STAGE] = S.STAGE_ROUND
    st.r.board[S.G_KIND] = -1
    st.r.board[S.G_ACTOR] = -1
    st.r.board[S.G_PLAYED] = -1
    st.r.board[S.G_SEEN] = -1


@njit(cache=True, _nrt=False, inline="always")
def prelude(tb, st):
    """Deal the centre and draw hands (rulebook Prelude, FR-4, FR-7)."""
    P = S.n_seats(tb)
    first = st.r.board[S.G_FIRST]
    S.emit(st, S.E_ROUND, st.r.board[S.G_ROUND], first, 0, 0, 0, 0, 0)
    dealt = min(P, st.r.board[S.G_RD_N])  # ENGINE-1: dealing stops with the relic deck
    for slot in range(P):
        st.r.board[S.B_LOCK + slot] = 0
        st.r.board[S.B_FACE + slot] = 0
        for s in range(P):
            st.r.pl[s, S.PL_CKNOWN + slot] = 0
        if slot < dealt:
            st.r.board[S.B_CENTRE + slot] = S.rd_pop_top(st)
            if slot < dealt - 1:  # FR-4, ENGINE-1: the last relic dealt is face down
                reveal_slot(tb, st, slot)
            S.emit(
                st,
                S.E_DEAL,
                slot,
                st.r.board[S.B_CENTRE + slot],
                st.r.board[S.B_FACE + slot],
                st.r.board[S.B_LOCK + slot],
                0,
                0,
                0,
            )
        else:
            st.r.board[S.B_CENTRE + slot] = -1
    for k in range(P):
        p = S.clockwise(first, k, P)
        for _ in range(tb.r.params[T.P_HAND]):
            _draw(tb, st, p)
    for p in range(P):
        st.r.pl[p, S.PL_THIEF] = -1
        st.r.pl[p, S.PL_STATUS] = S.ST_ACTIVE
        st.r.pl[p, S.PL_USED3] = 0
        st.r.pl[p, S.PL_USED1] = 0
        st.r.pl[p, S.PL_TURNS] = 0
        st.r.pl[p, S.PL_NO_THIEF] = 1 if S.ravens_in_hand(st, p) == 0 else 0
        if st.r.pl[p, S.PL_NO_THIEF]:
            S.emit(st, S.E_NOTHIEF, p, 0, 0, 0, 0, 0, 0)


# ---------------------------------------------------------------- legality


@njit(cache=True, _nrt=False, inline="always")
def legal_moves(tb, st, p, moves):
    """Fill ``moves`` (int32[k, 2]: move, card) with the seat's legal turns; returns k (FR-5)."""
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


# ---------------------------------------------------------------- actions (FR-8)


# ---------------------------------------------------------------- what a point may offer
# How many options a decision point would have: the engine asks only when there is one at least
# (a rule with nothing to choose does nothing, as the policies' -1 did), so that every pending
# point has a legal option and no policy draws for a point that has none.


@njit(cache=True, _nrt=False, inline="always")
def n_handable(st, p):  # ENGINE-17: the engine asks only when a point has an option
    """Hand cards the seat may take out of its hand by an effect: all but a last Raven (FR-6,
    ENGINE-3)."""
    n = st.r.pl[p, S.PL_HAND_N]
    if S.ravens_in_hand(st, p) == 1:
        n -= 1
    return n


@njit(cache=True, _nrt=False, inline="always")
def n_slots(tb, st, face):
    """Unlocked centre relics face down (0), face up (1) or either (2) (policies.count_slots)."""
    n = 0
    for s in range(S.n_seats(tb)):
        if st.r.board[S.B_CENTRE + s] >= 0 and st.r.board[S.B_LOCK + s] == 0:
            if face == 2 or st.r.board[S.B_FACE + s] == face:
                n += 1
    return n


@njit(cache=True, _nrt=False, inline="always")
def n_borrowable(st, p):
    n = 0
    for i in range(st.r.pl[p, S.PL_CAPT_N]):
        c = st.r.pile[p, S.PILE_CAPT, i]
        if c < T.N_RAVENS and c != T.TWO:
            n += 1
    return n


@njit(cache=True, _nrt=False, inline="always")
def bottom_ok(tb, st, p):
    """A captured 2 lets the seat steal the relic deck's bottom instead (FR-9)."""
    return (
        tb.r.params[T.P_CAPTURE + T.TWO] == 1
        and S.has_captured(st, p, T.TWO)
        and st.r.board[S.G_RD_N] > 0
    )


@njit(cache=True, _nrt=False, inline="always")
def n_steal(tb, st, p):
    n = 1 if bottom_ok(tb, st, p) else 0
    for s in range(S.n_seats(tb)):
        if st.r.board[S.B_CENTRE + s] >= 0:
            n += 1
    return n


@njit(cache=True, _nrt=False, inline="always")
def has_turn(tb, st, p):
    """The seat has a legal Mission turn (legal_moves would list one, FR-5, FR-7, ENGINE-9)."""
    if st.r.pl[p, S.PL_NO_THIEF] == 0:  # a Raven or a thief relic in hand: a thief (early out)
        if S.ravens_in_hand(st, p) > 0:
            return True
        if tb.r.params[T.P_RELIC_THIEVES] != 0:
            for i in range(st.r.pl[p, S.PL_HAND_N]):
                c = st.r.pile[p, S.PILE_HAND, i]
                if c >= T.N_RAVENS and tb.r.cards[T.C_THIEF, S.rtype(tb, c)] == 1:
                    return True
    if st.r.pl[p, S.PL_TURNS] >= S.MAX_ROUND_TURNS:
        return False
    return S.ravens_in_hand(st, p) >= 2 or S.can_capt3(tb, st, p) or S.can_capt1(tb, st, p)


# ---------------------------------------------------------------- actions (FR-8)
# Each action starts with act_*: the steps before its choice, then it asks (S.ask) for its
# decision, or ends if there is nothing to choose; apply_sub carries out the choice (take_*).
# The Raven played (G_PLAYED) goes to the discard when its action asks nothing more (apply).


@njit(cache=True, _nrt=False, forceinline=False)
def act_nine(tb, st, p):
    """9: draw two cards, then discard one (not the last Raven, FR-6)."""
    p = S.seat_ix(p)
    for _ in range(2):  # one inlined copy of _draw
        _draw(tb, st, p)
    if n_handable(st, p) > 0:
        S.ask(st, S.D_DISCARD, p)


@njit(cache=True, _nrt=False, forceinline=True)
def take_discard(tb, st, p, c):
    S.hand_remove(st, p, c)
    S.disc_push(st, p, c)
    S.emit(st, S.E_DISCARD, p, c, 0, 0, 0, 0, 0)


@njit(cache=True, _nrt=False, inline="always")
def n_stackable(st, p):
    return n_handable(st, p) + st.r.pl[p, S.PL_DISC_N]


@njit(cache=True, _nrt=False, forceinline=False)
def act_eight(tb, st, p):
    """8: put any cards from hand and/or discard on top of the deck, in any order: one point per
    card ("which card goes on top next, or stop")."""
    p = S.seat_ix(p)
    st.r.board[S.G_SEQ] = 0
    st.r.board[S.G_PLANNED] = 0
    if n_stackable(st, p) > 0:
        S.ask(st, S.D_STACK, p)


@njit(cache=True, _nrt=False, forceinline=True)
def take_stack(tb, st, p, c):
    if c == S.OPT_NONE:
        return
    j = S.find(st.r.pile[p, S.PILE_HAND], st.r.pl[p, S.PL_HAND_N], c)
    if j >= 0:
        S.hand_take_at(st, p, j)
    else:
        j = S.find(st.r.pile[p, S.PILE_DISC], st.r.pl[p, S.PL_DISC_N], c)
        st.r.pl[p, S.PL_DISC_N] = S.remove_at(st.r.pile[p, S.PILE_DISC], st.r.pl[p, S.PL_DISC_N], j)
    S.deck_push_top(st, p, c)
    S.emit(st, S.E_TOP, p, c, 0, 0, 0, 0, 0)
    st.r.board[S.G_SEQ] += 1
    if n_stackable(st, p) > 0:
        S.ask(st, S.D_STACK, p)


@njit(cache=True, _nrt=False, forceinline=False)
def act_seven(tb, st, p):
    """7: look at the top relic (G_SEEN, in no pile meanwhile); then bury it, or swap it with an
    unlocked face-down centre relic."""
    p = S.seat_ix(p)
    x = S.rd_pop_top(st)
    if x < 0:
        return
    st.r.board[S.G_SEEN] = x
    S.ask(st, S.D_SEVEN, p)


@njit(cache=True, _nrt=False, forceinline=True)
def take_seven(tb, st, p, code):
    x = st.r.board[S.G_SEEN]
    st.r.board[S.G_SEEN] = -1
    if code == S.OPT_NONE:
        S.rd_push_bottom(st, x, 1 << p)
        S.emit(st, S.E_SEVEN, p, x, -1, -1, 0, 0, 0)
    else:
        slot = code
        y = st.r.board[S.B_CENTRE + slot]
        knowers = S.slot_knowers(st, slot)
        st.r.board[S.B_CENTRE + slot] = x
        for s in range(S.n_seats(tb)):
            st.r.pl[s, S.PL_CKNOWN + slot] = 0
        st.r.pl[p, S.PL_CKNOWN + slot] = 1
        S.rd_push_bottom(st, y, knowers)  # ENGINE-13: the swapped relic goes under unexamined
        S.emit(st, S.E_SEVEN, p, x, slot, y, 0, 0, 0)


@njit(cache=True, _nrt=False, forceinline=False)
def act_six(tb, st, p):
    """6: flip one unlocked centre relic; then optionally shuffle the face-down ones."""
    p = S.seat_ix(p)
    if n_slots(tb, st, 2) > 0:
        S.ask(st, S.D_FLIP, p)


@njit(cache=True, _nrt=False, inline="always")
def shuffle_slots(tb, st, out):
    """The unlocked face-down centre slots, into ``out``; returns how many."""
    n = 0
    for s in range(S.n_seats(tb)):
        if (
            st.r.board[S.B_CENTRE + s] >= 0
            and st.r.board[S.B_FACE + s] == 0
            and st.r.board[S.B_LOCK + s] == 0
        ):
            out[n] = s
            n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=True)
def take_flip(tb, st, p, slot):
    if st.r.board[S.B_FACE + slot]:
        st.r.board[S.B_FACE + slot] = 0  # ENGINE-13: everyone saw it face up, everyone knows it
    else:
        reveal_slot(tb, st, slot)
    S.emit(
        st, S.E_FLIP, p, slot, st.r.board[S.B_CENTRE + slot], st.r.board[S.B_FACE + slot], 0, 0, 0
    )
    if shuffle_slots(tb, st, st.aux[S.AUX_TMP2]) >= 2:
        S.ask(st, S.D_SHUFFLE, p)


@njit(cache=True, _nrt=False, forceinline=True)
def take_shuffle(tb, st, p, yes):
    if yes == 0:
        return
    n = shuffle_slots(tb, st, st.aux[S.AUX_TMP2])
    for i in range(n):
        st.aux[S.AUX_TMP][i] = st.r.board[S.B_CENTRE + st.aux[S.AUX_TMP2][i]]
    kit.shuffle(st.aux[S.AUX_TMP], n, st.r.rng[0])
    for i in range(n):
        slot = st.aux[S.AUX_TMP2][i]
        st.r.board[S.B_CENTRE + slot] = st.aux[S.AUX_TMP][i]
        for s in range(S.n_seats(tb)):
            st.r.pl[s, S.PL_CKNOWN + slot] = 0
    P = S.n_seats(tb)
    S.emit(
        st,
        S.E_SHUFFLE_CENTRE,
        p,
        n,
        st.r.board[S.B_CENTRE + 0],
        st.r.board[S.B_CENTRE + 1],
        st.r.board[S.B_CENTRE + 2] if P > 2 else -1,
        st.r.board[S.B_CENTRE + 3] if P > 3 else -1,
        0,
    )


@njit(cache=True, _nrt=False, forceinline=False)
def act_five(tb, st, p):
    """5: capture a Raven or relic from hand or discard; a captured 7 rescues at once."""
    p = S.seat_ix(p)
    if n_stackable(st, p) > 0:
        S.ask(st, S.D_CAPTURE, p)


@njit(cache=True, _nrt=False, forceinline=True)
def take_capture(tb, st, p, c):
    j = S.find(st.r.pile[p, S.PILE_HAND], st.r.pl[p, S.PL_HAND_N], c)
    if j >= 0:
        S.hand_take_at(st, p, j)
    else:
        j = S.find(st.r.pile[p, S.PILE_DISC], st.r.pl[p, S.PL_DISC_N], c)
        st.r.pl[p, S.PL_DISC_N] = S.remove_at(st.r.pile[p, S.PILE_DISC], st.r.pl[p, S.PL_DISC_N], j)
    S.capt_push(tb, st, p, c)
    S.count(tb, st, p, T.EV_CAPTURED, c)
    S.emit(st, S.E_CAPTURE5, p, c, 0, 0, 0, 0, 0)
    # FR-8: a 7 captured this way rescues at once
    if c == T.SEVEN and tb.r.params[T.P_CAPTURE + T.SEVEN] == 1:
        rescue(tb, st, p)


@njit(cache=True, _nrt=False, forceinline=False)
def act_four(tb, st, p):
    """4: set aside other cards from hand (one point per card: "which next, or stop"), draw as
    many, then discard the set-aside cards (in no pile while it draws, ENGINE-12)."""
    p = S.seat_ix(p)
    st.r.board[S.G_SEQ] = 0
    st.r.board[S.G_PLANNED] = 0
    if n_handable(st, p) > 0:
        S.ask(st, S.D_SET_ASIDE, p)
    else:
        end_four(tb, st, p)


@njit(cache=True, _nrt=False, forceinline=True)
def take_set_aside(tb, st, p, c):
    if c != S.OPT_NONE:
        S.hand_remove(st, p, c)
        st.r.board[S.B_ASIDE + S.nn(st.r.board[S.G_SEQ])] = c
        st.r.board[S.G_SEQ] += 1
        if n_handable(st, p) > 0:
            S.ask(st, S.D_SET_ASIDE, p)
            return
    end_four(tb, st, p)


@njit(cache=True, _nrt=False, forceinline=True)
def end_four(tb, st, p):
    n = st.r.board[S.G_SEQ]
    S.emit(st, S.E_SET_ASIDE, p, n, 0, 0, 0, 0, 0)
    for _ in range(n):
        _draw(tb, st, p)
    for i in range(n):
        c = st.r.board[S.B_ASIDE + i]
        S.disc_push(st, p, c)
        S.emit(st, S.E_DISCARD, p, c, 0, 0, 0, 0, 0)


@njit(cache=True, _nrt=False, forceinline=False)
def act_three(tb, st, p):
    """3: look at one unlocked face-down centre relic."""
    p = S.seat_ix(p)
    if n_slots(tb, st, 0) > 0:
        S.ask(st, S.D_EXAMINE, p)


@njit(cache=True, _nrt=False, forceinline=True)
def take_examine(tb, st, p, slot):
    st.r.pl[p, S.PL_CKNOWN + slot] = 1
    S.emit(st, S.E_EXAMINE, p, slot, st.r.board[S.B_CENTRE + slot], 0, 0, 0, 0)


@njit(cache=True, _nrt=False, forceinline=False)
def act_two(tb, st, p):
    """2: resolve the action text of one of your captured Ravens (not another 2)."""
    p = S.seat_ix(p)
    if n_borrowable(st, p) > 0:
        S.ask(st, S.D_BORROW, p)


@njit(cache=True, _nrt=False, forceinline=True)
def take_borrow(tb, st, p, c):
    if c == S.OPT_NONE:  # none (the greedy 2 when every action it could borrow is off)
        return
    S.emit(st, S.E_ACTION, p, c, 1, 0, 0, 0, 0)
    if tb.r.params[T.P_ACTION + c] == 1:
        resolve_other(tb, st, p, c)


@njit(cache=True, _nrt=False, forceinline=False)
def act_one(tb, st, p):
    """1: put an unlocked face-up centre relic on the bottom, replace it with the top relic."""
    p = S.seat_ix(p)
    if n_slots(tb, st, 1) > 0:
        S.ask(st, S.D_REPLACE, p)


@njit(cache=True, _nrt=False, forceinline=True)
def take_replace(tb, st, p, slot):
    old = st.r.board[S.B_CENTRE + slot]
    # ENGINE-11: under first, then the top: an empty relic deck gives the same relic back
    S.rd_push_bottom(st, old, (1 << S.n_seats(tb)) - 1)
    st.r.board[S.B_CENTRE + slot] = S.rd_pop_top(st)
    reveal_slot(tb, st, slot)
    S.emit(
        st,
        S.E_REPLACE,
        p,
        slot,
        old,
        st.r.board[S.B_CENTRE + slot],
        st.r.board[S.B_LOCK + slot],
        0,
        0,
    )


@njit(cache=True, _nrt=False, inline="always")
def resolve_other(tb, st, p, c):
    """Start the action text of Raven ``c``, any rank but 2 (so the 2 never recurses)."""
    if c == T.NINE:
        act_nine(tb, st, p)
    elif c == T.EIGHT:
        act_eight(tb, st, p)
    elif c == T.SEVEN:
        act_seven(tb, st, p)
    elif c == T.SIX:
        act_six(tb, st, p)
    elif c == T.FIVE:
        act_five(tb, st, p)
    elif c == T.FOUR:
        act_four(tb, st, p)
    elif c == T.THREE:
        act_three(tb, st, p)
    elif c == T.ONE:
        act_one(tb, st, p)


@njit(cache=True, _nrt=False, inline="always")
def resolve_action(tb, st, p, c):
    """Start the action text of Raven ``c`` for seat ``p`` (does nothing if switched off)."""
    if tb.r.params[T.P_ACTION + c] == 0:  # ENGINE-6: played, switched off: nothing
        return
    if c == T.TWO:
        act_two(tb, st, p)
    else:
        resolve_other(tb, st, p, c)


@njit(cache=True, _nrt=False, forceinline=False)
def capt3_action(tb, st, p):
    """Captured 3, once a round: look at the top or the bottom relic of the relic deck."""
    p = S.seat_ix(p)
    st.r.pl[p, S.PL_USED3] = 1
    S.ask(st, S.D_PEEK_END, p)


@njit(cache=True, _nrt=False, forceinline=True)
def take_peek_end(tb, st, p, bottom):
    x = S.rd_bottom_card(st) if bottom else S.rd_top_card(st)
    if bottom:
        st.r.pl[p, S.PL_RD_BOT] = x
    else:
        st.r.pl[p, S.PL_RD_TOP] = x
    S.emit(st, S.E_CAPT3, p, bottom, x, 0, 0, 0, 0)


@njit(cache=True, _nrt=False, forceinline=False)
def capt1_action(tb, st, p):
    """Captured 1, once a round: lock one centre relic until the round ends."""
    p = S.seat_ix(p)
    st.r.pl[p, S.PL_USED1] = 1
    if n_slots(tb, st, 2) > 0:
        S.ask(st, S.D_LOCK, p)


@njit(cache=True, _nrt=False, forceinline=True)
def take_lock(tb, st, p, slot):
    st.r.board[S.B_LOCK + slot] = 1
    S.emit(
        st,
        S.E_LOCK,
        p,
        slot,
        st.r.board[S.B_CENTRE + slot],
        st.r.board[S.B_FACE + slot],
        0,
        0,
        0,
    )


@njit(cache=True, _nrt=False, forceinline=True)
def play_turn(tb, st, p, move, c, i):
    """Start one Mission turn (FR-5): ``c`` is at index ``i`` of the hand (or ``i`` is -1: look
    it up). A Raven played for its action is G_PLAYED until its action is over (apply)."""
    st.r.board[S.G_TURNS] += 1
    st.r.pl[p, S.PL_TURNS] += 1
    if move == S.M_ACTION or move == S.M_THIEF:
        if i < 0:
            i = S.find(st.r.pile[p, S.PILE_HAND], st.r.pl[p, S.PL_HAND_N], c)
        S.hand_take_at(st, p, i)
    if move == S.M_ACTION:  # ENGINE-2: the card is in no pile while it resolves
        S.count(tb, st, p, T.EV_PLAYED, c)
        S.emit(st, S.E_ACTION, p, c, 0, 0, 0, 0, 0)
        st.r.board[S.G_PLAYED] = c
        resolve_action(tb, st, p, c)
    elif move == S.M_CAPT3:
        capt3_action(tb, st, p)
    elif move == S.M_CAPT1:
        capt1_action(tb, st, p)
    elif move == S.M_THIEF:
        st.r.pl[p, S.PL_THIEF] = c
        st.r.pl[p, S.PL_STATUS] = S.ST_THIEF
        S.count(tb, st, p, T.EV_THIEF, c)
        S.emit(st, S.E_THIEF, p, c, 0, 0, 0, 0, 0)


@njit(cache=True, _nrt=False, inline="always")
def turn_code(st, p, move, c, i):
    """The option code of the turn (move, card ``c`` at hand index ``i``, or -1: look it up)."""
    if move == S.M_CAPT3:
        return S.OPT_CAPT3
    if move == S.M_CAPT1:
        return S.OPT_CAPT1
    if i < 0:
        i = S.find(st.r.pile[p, S.PILE_HAND], st.r.pl[p, S.PL_HAND_N], c)
    return 2 * i + (1 if move == S.M_THIEF else 0)


@njit(cache=True, _nrt=False, inline="always")
def take_turn(tb, st, p, code):
    """Start the turn of option ``code`` (S.OPT_* / 2 * hand index + thief)."""
    if code < S.OPT_CAPT3:
        i = code >> 1
        c = st.r.pile[p, S.PILE_HAND, S.nn(i)]
        play_turn(tb, st, p, S.M_THIEF if code & 1 else S.M_ACTION, c, i)
    elif code == S.OPT_CAPT3:
        play_turn(tb, st, p, S.M_CAPT3, -1, -1)
    else:
        play_turn(tb, st, p, S.M_CAPT1, -1, -1)


@njit(cache=True, _nrt=False, inline="always")
def mission_next(tb, st):
    """The Mission (FR-5): turns clockwise from the first player until every seat has a thief or
    is done. Stops at the next seat with a legal turn (returns it; a seat with none is done), or
    returns -1 when a whole pass played no turn."""
    P = S.n_seats(tb)
    first = st.r.board[S.G_FIRST]
    k = st.r.board[S.G_MK]
    while True:
        if k >= P:
            if st.r.board[S.G_ACTED] == 0:
                return -1
            k = 0
            st.r.board[S.G_ACTED] = 0
        p = S.clockwise(first, k, P)
        if st.r.pl[p, S.PL_STATUS] == S.ST_ACTIVE:
            if has_turn(tb, st, p):
                st.r.board[S.G_MK] = k
                S.ask(st, S.D_TURN, p)
                return p
            st.r.pl[p, S.PL_STATUS] = S.ST_DONE
            S.emit(st, S.E_DONE, p, 0, 0, 0, 0, 0, 0)
        k += 1


# ---------------------------------------------------------------- theft and capture (FR-9..FR-11)


@njit(cache=True, _nrt=False, forceinline=False)
def thief_rank(c):
    """Steal-order key of a thief: the Raven's rank, 0 for a relic thief (ENGINE-4), -1 for none
    (FR-9)."""
    if c < 0:
        return -1
    if c < T.N_RAVENS:
        return c + 1
    return 0


@njit(cache=True, _nrt=False, forceinline=False)
def steal_order(tb, st, order):
    """Fill ``order`` with seats in steal order: rank high to low, ties clockwise from the first
    player, thief-less seats last (FR-9)."""
    P = S.n_seats(tb)
    first = st.r.board[S.G_FIRST]
    for k in range(P):  # clockwise from the first player, then a stable insertion sort by rank
        p = S.clockwise(first, k, P)
        r = thief_rank(st.r.pl[p, S.PL_THIEF])
        j = k
        while j > 0 and thief_rank(st.r.pl[order[j - 1], S.PL_THIEF]) < r:
            order[j] = order[j - 1]
            j -= 1
        order[j] = p
    return P


@njit(cache=True, _nrt=False, forceinline=False)
def rescue(tb, st, p):
    """FR-11: asks the seat to move one captured card other than the 7 (the one rescuing) to the
    top of its deck, if it has one."""
    p = S.seat_ix(p)
    for i in range(st.r.pl[p, S.PL_CAPT_N]):
        if st.r.pile[p, S.PILE_CAPT, i] != T.SEVEN:
            S.ask(st, S.D_RESCUE, p)
            return


@njit(cache=True, _nrt=False, forceinline=True)
def take_rescue(tb, st, p, c):
    S.capt_take(tb, st, p, c)
    S.deck_push_top(st, p, c)
    if c == T.SIX or c == st.r.pl[p, S.PL_DOUBLED]:  # a rescued 6 or chest is no longer doubled
        st.r.pl[p, S.PL_DOUBLED] = -1
        st.r.pl[p, S.PL_RESCUE_OK] = 0
    S.emit(st, S.E_RESCUE, p, c, 0, 0, 0, 0, 0)


@njit(cache=True, _nrt=False, inline="always")
def steal(tb, st, p, choice):
    """Seat ``p`` takes centre slot ``choice`` (or -1: the relic deck's bottom, captured 2) and
    places it by FR-10. Returns the relic instance card id, or -1 if nothing was taken."""
    c = st.r.pl[p, S.PL_THIEF]
    if choice < 0:
        x = S.rd_pop_bottom(st)
    else:
        x = st.r.board[S.B_CENTRE + choice]
        st.r.board[S.B_CENTRE + choice] = -1
    if x < 0:
        return -1
    S.count(tb, st, p, T.EV_STOLEN, x)
    t = S.rtype(tb, x)
    if tb.r.cards[T.C_KIND, t] == T.K_GEM:
        st.r.pl[p, S.PL_GEMS] += 1
    st.r.pl[p, S.PL_PTS] += tb.r.cards[T.C_T_OWN, t]
    where = 0
    if (
        c == T.FIVE and tb.r.params[T.P_CAPTURE + T.FIVE] == 1
    ):  # FR-10: stolen with the 5 -> captured
        where = 1
    elif (
        c == T.SIX
        and tb.r.params[T.P_CAPTURE + T.SIX] == 1
        and tb.r.cards[T.C_KIND, t] == T.K_CHEST
        and tb.r.cards[T.C_VALUE, t] <= tb.r.params[T.P_SIX_MAX]
    ):  # FR-10: a chest stolen with the 6 is captured with it and doubled
        where = 2
        st.r.pl[p, S.PL_DOUBLED] = x
        st.r.pl[p, S.PL_RESCUE_OK] = 0
    if where == 0:
        S.disc_push(st, p, x)
    else:
        S.capt_push(tb, st, p, x)
        S.count(tb, st, p, T.EV_CAPTURED, x)
    S.emit(st, S.E_STEAL, p, c, x, choice, where, 0, 0)
    return x


@njit(cache=True, _nrt=False, forceinline=True)
def thief_captured(tb, st, p):
    """FR-11: the seat's revealed thief is captured, before the next steal (ENGINE-7); a 7
    rescues."""
    c = st.r.pl[p, S.PL_THIEF]
    if c >= 0:
        S.capt_push(tb, st, p, c)
        S.count(tb, st, p, T.EV_CAPTURED, c)
        S.emit(st, S.E_CAPTURED, p, c, 0, 0, 0, 0, 0)
        if c == T.SEVEN and tb.r.params[T.P_CAPTURE + T.SEVEN] == 1:
            rescue(tb, st, p)


@njit(cache=True, _nrt=False, forceinline=True)
def take_steal(tb, st, p, code):
    x = steal(tb, st, p, -1 if code == S.OPT_NONE else code)
    if x >= 0:  # ENGINE-10: stealing last is taking a relic last
        st.r.board[S.G_LAST] = p
    thief_captured(tb, st, p)


@njit(cache=True, _nrt=False, forceinline=True)
def theft_begin(tb, st):
    """The Theft (FR-9): the steal order, into B_ORDER."""
    steal_order(tb, st, st.r.board[S.B_ORDER : S.B_ORDER + S.MAX_SLOTS])
    st.r.board[S.G_TI] = 0


@njit(cache=True, _nrt=False, forceinline=True)
def theft_next(tb, st):
    """The Theft and Capture phases (FR-9..FR-11), seat by seat in steal order: stops at the next
    seat that can steal (returns it), or at a rescue; -1 when every seat is done."""
    P = S.n_seats(tb)
    while st.r.board[S.G_TI] < P:
        p = S.seat_ix(st.r.board[S.B_ORDER + st.r.board[S.G_TI]])
        if n_steal(tb, st, p) > 0:
            S.ask(st, S.D_STEAL, p)
            return p
        st.r.board[S.G_TI] += 1
        thief_captured(tb, st, p)
        if st.r.board[S.G_KIND] >= 0:
            return p
    return -1


@njit(cache=True, _nrt=False, forceinline=True)
def theft_end(tb, st):
    """Unclaimed relics go under the relic deck in slot order (ENGINE-8)."""
    for slot in range(S.n_seats(tb)):
        x = st.r.board[S.B_CENTRE + slot]
        if x >= 0:
            S.rd_push_bottom(st, x, S.slot_knowers(st, slot))
            st.r.board[S.B_CENTRE + slot] = -1
            S.emit(st, S.E_UNCLAIMED, slot, x, 0, 0, 0, 0, 0)


@njit(cache=True, _nrt=False, inline="always")
def epilogue(tb, st):
    """FR-12: the last stealer becomes first player; hands are discarded; next Clock."""
    P = S.n_seats(tb)
    st.r.board[S.G_FIRST] = st.r.board[S.G_LAST]
    for p in range(P):
        for i in range(st.r.pl[p, S.PL_HAND_N]):
            S.disc_push(st, p, st.r.pile[p, S.PILE_HAND, i])
        st.r.pl[p, S.PL_HAND_N] = 0
        st.r.pl[p, S.PL_NRAV] = 0
        st.r.pl[p, S.PL_THIEF] = -1
    st.r.board[S.G_ROUND] += 1
    S.emit(st, S.E_EPILOGUE, st.r.board[S.G_ROUND], st.r.board[S.G_FIRST], 0, 0, 0, 0, 0)


@njit(cache=True, _nrt=False, forceinline=False)
def round_begin(tb, st):
    """A round's Prelude; the Mission starts at the first player."""
    st.r.board[S.G_LAST] = st.r.board[S.G_FIRST]  # nobody steals: the first stays (ENGINE-10)
    prelude(tb, st)
    st.r.board[S.G_MK] = 0
    st.r.board[S.G_ACTED] = 0


# ---------------------------------------------------------------- scoring (FR-13, FR-14)


@njit(cache=True, _nrt=False, inline="always")
def _score_pile(tb, st, p, pile, n, captured, sb, cursed):
    """Add the relics of one pile to ``sb`` and, captured, to ``cursed`` by type. Sums of
    per-card-id numbers (tables.C_CHEST_V, ...: 0 for a Raven), not a branch on each card's kind,
    which the random order of the piles makes a coin toss for the predictor."""
    cards = tb.r.cards
    doubled = st.r.pl[p, S.PL_DOUBLED] if captured else -1
    hollow = tb.r.params[T.P_HOLLOW_CAPT] if captured else tb.r.params[T.P_HOLLOW]
    mult = tb.r.params[T.P_SIX_MULT]
    chests = 0
    gems = 0
    hollows = 0
    for i in range(n):
        c = S.nn(pile[i])
        v = cards[T.C_CHEST_V, c]
        chests += v * mult if c == doubled else v
        gems += cards[T.C_IS_GEM, c]
        hollows += cards[T.C_IS_HOLLOW, c]
        if captured:
            t = cards[T.C_TYPEOF, c] - T.N_RAVENS
            cursed[max(t, 0)] += cards[T.C_IS_CURSED, c]  # a Raven adds 0 (to type 0)
    sb[S.SB_CHESTS] += chests
    sb[S.SB_N_GEMS] += gems
    sb[S.SB_HOLLOWS] += hollows * hollow


@njit(cache=True, _nrt=False, inline="always")
def score_breakdown(tb, st, p, sb, cursed):
    """Fill ``sb`` (int32[8], SB_*) with seat ``p``'s final score by FR-13."""
    sb[:] = 0
    cursed[:] = 0
    # one inlined copy for the four piles (integer sums: the order does not matter)
    for k in range(4):
        _score_pile(
            tb, st, p, st.r.pile[p, k], st.r.pl[p, S.PL_DECK_N + k], k == S.PILE_CAPT, sb, cursed
        )
    k = tb.r.params[T.P_GEM_N] - 1
    sb[S.SB_GEMS] = tb.r.params[T.P_GEM + min(sb[S.SB_N_GEMS], k)]
    for t in range(cursed.shape[0]):
        if cursed[t] >= tb.r.params[T.P_CURSED_SET]:
            sb[S.SB_CURSED] += tb.r.params[T.P_CURSED_BONUS]
    # recounted from the captured pile, not from the seat's cached counts: its relics and
    # whether it holds the 4, the 8 and the 9, in one pass (the trajectory scores every seat
    # each round: engine.trace_point)
    capt = st.r.pile[p, S.PILE_CAPT]
    n_relics = 0
    four = eight = nine = False
    for i in range(st.r.pl[p, S.PL_CAPT_N]):
        c = capt[i]
        n_relics += c >= T.N_RAVENS
        four |= c == T.FOUR
        eight |= c == T.EIGHT
        nine |= c == T.NINE
    if tb.r.params[T.P_CAPTURE + T.FOUR] and four and n_relics >= tb.r.params[T.P_FOUR_MIN]:
        sb[S.SB_FOUR] = tb.r.params[T.P_FOUR_BONUS]
    if tb.r.params[T.P_CAPTURE + T.EIGHT] and eight:
        sb[S.SB_PENALTY] -= tb.r.params[T.P_EIGHT_PEN]
    if tb.r.params[T.P_CAPTURE + T.NINE] and nine:
        sb[S.SB_PENALTY] -= tb.r.params[T.P_NINE_PEN]
    sb[S.SB_TOTAL] = (
        sb[S.SB_CHESTS]
        + sb[S.SB_GEMS]
        + sb[S.SB_HOLLOWS]
        + sb[S.SB_CURSED]
        + sb[S.SB_FOUR]
        + sb[S.SB_PENALTY]
    )
    return sb[S.SB_TOTAL]


@njit(cache=True, _nrt=False, inline="always")
def rank_seats(score, capt_n, rank):
    """FR-14: rank 1 is best; higher score, then fewer captured cards; full ties share a rank."""
    P = score.shape[0]
    for p in range(P):
        r = 1
        for q in range(P):
            if score[q] > score[p] or (score[q] == score[p] and capt_n[q] < capt_n[p]):
                r += 1
        rank[p] = r


@njit(cache=True, _nrt=False, inline="always")
def handicap(tb, st, p):
    """ENGINE-15: the points ``rules.handicap`` adds to seat ``p``'s score: the entry of its place in the
    turn order of round 1 (the dataset's ``order``; FR-12 moves the first player later)."""
    k = p - st.r.board[S.G_START]  # (p - start) mod P, without a division
    return tb.r.params[T.P_HANDICAP + (k + S.n_seats(tb) if k < 0 else k)]


@njit(cache=True, _nrt=False, inline="always")
def standing(tb, st, p, sb, cursed):
    """Seat ``p``'s score if the game were scored now: its FR-13 score of the position plus its
    handicap (ENGINE-15); ``sb`` holds the breakdown. At the end, the dataset's score."""
    return score_breakdown(tb, st, p, sb, cursed) + handicap(tb, st, p)


@njit(cache=True, _nrt=False, inline="always")
def standing_counted(tb, st, p):
    """:func:`standing` of seat ``p`` from the seat's counts, without a look at its piles. A relic
    comes to a seat only by its steal (FR-10) and never leaves it (ENGINE-11 and ENGINE-13 send
    the centre's relics under the relic deck, never a seat's), so what its relics score by type
    is kept as they come: the steal adds the type's points (tables.C_T_OWN) to PL_PTS and a gem
    to PL_GEMS, a capture or a rescue of a relic adds or takes its type's extra points
    (C_T_CAPT) and a set's bonus as the set fills or breaks (C_T_SET; state._captured_changed).
    The doubled chest (PL_DOUBLED) is captured while it is set (a rescue of it or of the 6
    clears it). The trajectory takes each seat's standing at every round (trace_point) in a few
    loads instead of a sum over four piles. tests/games/five_ravens/test_trace.py holds it to
    :func:`standing` at every decision of many games."""
    cards = tb.r.cards
    params = tb.r.params
    total = st.r.pl[p, S.PL_PTS]  # the relics by their counts
    doubled = st.r.pl[p, S.PL_DOUBLED]
    if doubled >= 0:
        total += cards[T.C_CHEST_V, doubled] * (params[T.P_SIX_MULT] - 1)
    total += params[T.P_GEM + min(st.r.pl[p, S.PL_GEMS], params[T.P_GEM_N] - 1)]
    if (
        params[T.P_CAPTURE + T.FOUR]
        and S.has_captured(st, p, T.FOUR)
        and S.captured_relics(st, p) >= params[T.P_FOUR_MIN]
    ):
        total += params[T.P_FOUR_BONUS]
    if params[T.P_CAPTURE + T.EIGHT] and S.has_captured(st, p, T.EIGHT):
        total -= params[T.P_EIGHT_PEN]
    if params[T.P_CAPTURE + T.NINE] and S.has_captured(st, p, T.NINE):
        total -= params[T.P_NINE_PEN]
    return total + handicap(tb, st, p)


@njit(cache=True, _nrt=False, forceinline=False)
def final_scores(tb, st, score, rank, sb, cursed):
    """Fill ``score`` with each seat's FR-13 score plus its handicap, logged as its breakdown
    (without the handicap, which the replay adds from the tables), and ``rank`` by FR-14: the
    handicapped scores decide, then fewer captured cards."""
    P = S.n_seats(tb)
    for p in range(P):
        score[p] = standing(tb, st, p, sb, cursed)
        S.emit(
            st,
            S.E_SCORE,
            p,
            sb[S.SB_CHESTS],
            sb[S.SB_GEMS],
            sb[S.SB_HOLLOWS],
            sb[S.SB_CURSED],
            sb[S.SB_FOUR],
            sb[S.SB_PENALTY],
        )
    rank_seats(score, st.r.pl[:, S.PL_CAPT_N], rank)


# ---------------------------------------------------------------- the trajectory


@njit(cache=True, _nrt=False, forceinline=False)
def trace_point(tb, st, work):
    """Point ``G_ROUND`` of the trajectory (state.TRACE_MEASURES), taken as a round begins: each
    seat's standing (what it would score if the game were scored now) and captured cards. The
    last point, at the end, end_game writes from the final scores."""
    k = S.nn(st.r.board[S.G_ROUND])
    for p in range(S.n_seats(tb)):
        # Point 0 is the set-up, where a seat's piles are its nine Ravens (FR-1): no relic and
        # no captured card, so its standing is the handicap alone
        score = handicap(tb, st, p) if k == 0 else standing_counted(tb, st, p)
        work.tr[k, p, S.TR_SCORE] = score
        work.tr[k, p, S.TR_CAPTURED] = st.r.pl[p, S.PL_CAPT_N]


# ---------------------------------------------------------------- decision points


@njit(cache=True, _nrt=False, forceinline=True)
def start(tb, st, seed, game, work):
    """Reset ``st`` to the start of game ``game`` of run ``seed``; no decision is pending yet."""
    setup(tb, st, seed, game)


@njit(cache=True, _nrt=False, forceinline=True)
def end_game(tb, st, work):
    """Final scores (FR-13, ENGINE-15) and ranks (FR-14) into the seat rows and the trajectory's
    last point; logs them."""
    final_scores(tb, st, work.score, work.rank, work.sb, work.cursed)
    k = S.nn(st.r.board[S.G_ROUND])  # the trajectory's last point: the final position
    for p in range(S.n_seats(tb)):
        st.r.pl[p, S.PL_SCORE] = work.score[p]
        st.r.pl[p, S.PL_RANK] = work.rank[p]
        work.tr[k, p, S.TR_SCORE] = work.score[p]
        work.tr[k, p, S.TR_CAPTURED] = st.r.pl[p, S.PL_CAPT_N]
    st.r.board[S.G_STAGE] = S.STAGE_OVER


@njit(cache=True, _nrt=False, forceinline=True)
def advance(tb, st, work):
    """Play chance and every forced step until a decision is pending; returns its seat, or -1
    when the game is over (the outcome is then in PL_SCORE and PL_RANK)."""
    while True:
        if st.r.board[S.G_KIND] >= 0:  # asked by the last option applied
            st.r.board[S.G_PENDING] = 1
            return st.r.board[S.G_ACTOR]
        stage = st.r.board[S.G_STAGE]
        if stage == S.STAGE_MISSION:
            p = mission_next(tb, st)
            if p >= 0:
                st.r.board[S.G_PENDING] = 1
                return p
            theft_begin(tb, st)
            st.r.board[S.G_STAGE] = S.STAGE_THEFT
        elif stage == S.STAGE_THEFT:
            if theft_next(tb, st) < 0:
                theft_end(tb, st)
                epilogue(tb, st)
                st.r.board[S.G_STAGE] = S.STAGE_ROUND
        elif stage == S.STAGE_ROUND:
            if st.r.board[S.G_ROUND] >= tb.r.params[T.P_ROUNDS]:
                end_game(tb, st, work)
                return -1
            trace_point(tb, st, work)
            round_begin(tb, st)
            st.r.board[S.G_STAGE] = S.STAGE_MISSION
        else:
            return -1


@njit(cache=True, _nrt=False, forceinline=True)
def apply_sub(tb, st, p, kind, code):
    """Carry out option ``code`` of a decision of ``kind`` other than a turn (the kinds in order
    of how often a game meets them)."""
    if kind == S.D_STEAL:
        st.r.board[S.G_TI] += 1
        take_steal(tb, st, p, code)
    elif kind == S.D_STACK:
        take_stack(tb, st, p, code)
    elif kind == S.D_SET_ASIDE:
        take_set_aside(tb, st, p, code)
    elif kind == S.D_EXAMINE:
        take_examine(tb, st, p, code)
    elif kind == S.D_REPLACE:
        take_replace(tb, st, p, code)
    elif kind == S.D_CAPTURE:
        take_capture(tb, st, p, code)
    elif kind == S.D_BORROW:
        take_borrow(tb, st, p, code)
    elif kind == S.D_DISCARD:
        take_discard(tb, st, p, code)
    elif kind == S.D_SEVEN:
        take_seven(tb, st, p, code)
    elif kind == S.D_LOCK:
        take_lock(tb, st, p, code)
    elif kind == S.D_RESCUE:
        take_rescue(tb, st, p, code)
    elif kind == S.D_FLIP:
        take_flip(tb, st, p, code)
    elif kind == S.D_SHUFFLE:
        take_shuffle(tb, st, p, code)
    else:
        take_peek_end(tb, st, p, code)


@njit(cache=True, _nrt=False, inline="always")
def action_over(st, p):
    """If nothing more is asked, the Raven played is discarded (ENGINE-2)."""
    c = st.r.board[S.G_PLAYED]
    if st.r.board[S.G_KIND] < 0 and c >= 0:
        S.disc_push(st, p, c)
        st.r.board[S.G_PLAYED] = -1


@njit(cache=True, _nrt=False, forceinline=True)
def apply_as(tb, st, p, kind, code):
    """:func:`apply` for the pending decision's seat ``p`` (seat_ix'd) and ``kind``, which the
    caller has read (play_game keeps them in registers)."""
    st.r.board[S.G_KIND] = -1
    st.r.board[S.G_PENDING] = 0
    if kind == S.D_TURN:
        st.r.board[S.G_MK] += 1  # the Mission goes on with the next seat
        st.r.board[S.G_ACTED] = 1
        take_turn(tb, st, p, code)
    else:
        apply_sub(tb, st, p, kind, code)
    action_over(st, p)


@njit(cache=True, _nrt=False, forceinline=True)
def apply(tb, st, work, code):
    """Carry out option ``code`` of the pending decision (no validation: see legal); then nothing
    is pending until the next advance."""
    apply_as(tb, st, S.seat_ix(st.r.board[S.G_ACTOR]), st.r.board[S.G_KIND], code)


@njit(cache=True, _nrt=False, forceinline=False)
def legal(tb, st, work, opts):
    """Fill ``opts`` (int64[MAX_OPTIONS]) with the option codes of the pending decision, in the
    canonical order of docs/rules/five_ravens.md ("Decisions"); returns how many (0 if none is
    pending)."""
    if st.r.board[S.G_PENDING] == 0:
        return 0
    kind = st.r.board[S.G_KIND]
    p = S.seat_ix(st.r.board[S.G_ACTOR])
    P = S.n_seats(tb)
    n = 0
    nh = st.r.pl[p, S.PL_HAND_N]
    hand = st.r.pile[p, S.PILE_HAND]
    keep = S.ravens_in_hand(st, p) == 1  # FR-6, ENGINE-3: the last Raven stays in hand
    if kind == S.D_TURN:
        capped = st.r.pl[p, S.PL_TURNS] >= S.MAX_ROUND_TURNS  # ENGINE-9
        n_rav = S.ravens_in_hand(st, p)
        for i in range(nh):
            c = hand[i]
            if not capped and c < T.N_RAVENS and n_rav >= 2:
                opts[n] = 2 * i
                n += 1
            if S.can_thief(tb, st, p, c):
                opts[n] = 2 * i + 1
                n += 1
        if not capped and S.can_capt3(tb, st, p):
            opts[n] = S.OPT_CAPT3
            n += 1
        if not capped and S.can_capt1(tb, st, p):
            opts[n] = S.OPT_CAPT1
            n += 1
    elif kind == S.D_DISCARD or kind == S.D_STACK or kind == S.D_CAPTURE or kind == S.D_SET_ASIDE:
        for i in range(nh):
            if not (keep and hand[i] < T.N_RAVENS):
                opts[n] = hand[i]
                n += 1
        if kind == S.D_STACK or kind == S.D_CAPTURE:
            for i in range(st.r.pl[p, S.PL_DISC_N]):
                opts[n] = st.r.pile[p, S.PILE_DISC, i]
                n += 1
        if kind == S.D_STACK or kind == S.D_SET_ASIDE:
            opts[n] = S.OPT_NONE
            n += 1
    elif kind == S.D_SHUFFLE or kind == S.D_PEEK_END:
        opts[0] = 0
        opts[1] = 1
        n = 2
    elif kind == S.D_BORROW or kind == S.D_RESCUE:
        for i in range(st.r.pl[p, S.PL_CAPT_N]):
            c = st.r.pile[p, S.PILE_CAPT, i]
            if (kind == S.D_BORROW and c < T.N_RAVENS and c != T.TWO) or (
                kind == S.D_RESCUE and c != T.SEVEN
            ):
                opts[n] = c
                n += 1
        if kind == S.D_BORROW:
            opts[n] = S.OPT_NONE
            n += 1
    else:  # slot decisions
        if kind == S.D_SEVEN:
            opts[n] = S.OPT_NONE
            n += 1
        for s in range(P):
            x = st.r.board[S.B_CENTRE + s]
            if x < 0:
                continue
            free = st.r.board[S.B_LOCK + s] == 0
            face = st.r.board[S.B_FACE + s]
            if (
                ((kind == S.D_SEVEN or kind == S.D_EXAMINE) and free and face == 0)
                or ((kind == S.D_FLIP or kind == S.D_LOCK) and free)
                or (kind == S.D_REPLACE and free and face == 1)
                or kind == S.D_STEAL
            ):
                opts[n] = s
                n += 1
        if kind == S.D_STEAL and bottom_ok(tb, st, p):
            opts[n] = S.OPT_NONE
            n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def play_game(tb, st, seed, game, work):
    """Play one whole game into ``st`` through its decision points, every choice by the seat's
    configured policy."""
    start(tb, st, seed, game, work)
    while True:
        p = advance(tb, st, work)
        if p < 0:
            break
        # choose then apply (the same calls), the seat and kind read once and a turn, half of
        # all decisions, told from the rest by one branch instead of two jump tables
        p = S.seat_ix(p)
        kind = st.r.board[S.G_KIND]
        if kind == S.D_TURN:
            apply_as(tb, st, p, S.D_TURN, pol.choose_turn_point(tb, st, work, p))
        else:
            apply_as(tb, st, p, kind, pol.choose_sub(tb, st, p, kind))


@njit(cache=True, _nrt=False, forceinline=True)
def record(tb, st, work, g, score, rank, turns, end, order, team, role, extra, tele, clipped):
    """Write the ended game of ``st`` into row ``g`` of the output arrays (kit.Outputs' fields;
    ``clipped`` is the row of the block, int64[C]). ``end`` stays 0 (END_CLOCKS: every game ends
    so); no teams, no roles (``team``, ``role`` are not written)."""
    P = S.n_seats(tb)
    ncol = tb.r.params[T.P_N_TELE]
    nct = T.N_RAVENS + tb.r.params[T.P_N_TYPES]
    turns[g] = st.r.board[S.G_TURNS]
    start_seat = st.r.board[S.G_START]
    for p in range(P):
        score[g, p] = st.r.pl[p, S.PL_SCORE]
        rank[g, p] = st.r.pl[p, S.PL_RANK]
        order[g, p] = (p - start_seat + P) % P
        extra[g, p, S.X_CAPTURED] = st.r.pl[p, S.PL_CAPT_N]
    seen = 0  # the OR of every count of the row (clip_u8)
    for j in range(ncol):  # a column's place in the seat rows, once for every seat
        col = S.nn(S.PL_TELE + tb.r.cards[T.C_TEV, j] * nct + tb.r.cards[T.C_TCARD, j])
        for p in range(P):
            v = st.r.pl[p, col]
            tele[g, p, j] = kit.clip_u8(v)
            seen |= v
    if seen > kit.U8_MAX:  # some count passed 255: count the clipped cells per column
        for p in range(P):
            for j in range(ncol):
                v = st.r.pl[p, S.PL_TELE + tb.r.cards[T.C_TEV, j] * nct + tb.r.cards[T.C_TCARD, j]]
                kit.tally_clipped(v, clipped, j)


@njit(cache=True, _nrt=False, inline="always")
def _clip_i16(v):
    """``v`` within int16 (the trajectory's cells), saturating."""
    return max(-32768, min(32767, v))


@njit(cache=True, _nrt=False, forceinline=True)
def record_trace(tb, st, work, g, trace, points):
    """Row ``g`` of the trajectory outputs (kit.Outputs' ``trace`` and ``points``) for the ended
    game in ``st``: state.TRACE_MEASURES at each of its ``rounds + 1`` points (Work.tr), as int16
    (a standing past int16 saturates: no shipped config comes near). Outputs that keep no
    trajectory (no rows) are left alone."""
    if points.shape[0] <= g:
        return
    n = min(S.trace_points(st), trace.shape[0] // points.shape[0])
    s = kit.trace_row(g, n, points)
    for k in range(n):
        for p in range(S.n_seats(tb)):
            for m in range(len(S.TRACE_MEASURES)):
                trace[s + k, p, m] = _clip_i16(work.tr[k, p, m])


@njit(cache=True, nogil=True, forceinline=False)
def play_batch(tables, seed, first_game, n_games, out, b0, b1):
    """Play the games of blocks b0 to b1 - 1 (of ``S.BLOCK_GAMES`` games each) of
    [first_game, first_game + n_games) into row i of the output arrays ``out``
    (kit.Outputs) with play_game and record; block b counts the telemetry cells it clipped at 255
    in row b of ``out.clipped`` (per column). ``out.end`` stays 0 (END_CLOCKS: every game ends
    so) and ``out.extra[i, p, X_CAPTURED]`` is the seat's captured cards; no teams, no roles.

    ``tables`` is the one-element TABLES_DTYPE array of the Tables record; each block makes its
    own Tables. ``kit.in_threads`` runs the blocks over the threads (``play``)."""
    score, rank, turns, end, order, team, role, extra, tele, clipped, trace, points = out
    for b in range(b0, b1):
        tb = T.Tables(tables[0])
        s, aux = S.alloc_state(tb, 0)
        st = S.State(s[0], aux)  # the record: s stays alive to the end of the block (below)
        work = S.alloc_work(tb)
        lo = b * S.BLOCK_GAMES
        hi = min(n_games, lo + S.BLOCK_GAMES)
        for i in range(lo, hi):
            play_game(tb, st, seed, first_game + i, work)
            record(
                tb, st, work, i, score, rank, turns, end, order, team, role, extra, tele, clipped[b]
            )
            record_trace(tb, st, work, i, trace, points)
        s[0].board[S.G_LOG_N] = 0  # a use of s after the games: st.r points into it


def play(
    compiled: T.Compiled,
    seed: int,
    first_game: int,
    n_games: int,
    batch: Any = None,
    block: int = S.BLOCK_GAMES,
) -> Chunk:
    """Play a chunk of games: the batch kernel on the record's one-element array (play_batch)."""
    tb = compiled.tb
    return kit.play_chunk(
        play_batch if batch is None else batch,
        tb.r.base,
        seed,
        first_game,
        n_games,
        players=int(tb.params[T.P_PLAYERS]),
        n_tele=int(tb.params[T.P_N_TELE]),
        block=block,
        extra_names=S.EXTRA_COLUMNS,
        trace_cap=S.trace_cap(tb),
        n_measures=len(S.TRACE_MEASURES),
    )


# ---------------------------------------------------------------- whole phases with the policies
# (scenario tests: a phase of a built position played through the same decision points)


@njit(cache=True, _nrt=False, forceinline=False)
def settle(tb, st, work):
    """Answer every decision the last step asked, with the seats' policies, until none is asked."""
    while st.r.board[S.G_KIND] >= 0:
        st.r.board[S.G_PENDING] = 1
        apply(tb, st, work, pol.choose(tb, st, work))


@njit(cache=True, _nrt=False, forceinline=False)
def turn(tb, st, work, p, move, c):
    """Seat ``p`` plays the turn (move, card ``c``) and its action to the end with its policy."""
    st.r.board[S.G_KIND] = -1
    play_turn(tb, st, p, move, c, -1)
    action_over(st, p)
    settle(tb, st, work)


@njit(cache=True, _nrt=False, forceinline=False)
def mission(tb, st, work):
    """The whole Mission from the first player, every turn by the seats' policies (FR-5)."""
    st.r.board[S.G_KIND] = -1
    st.r.board[S.G_MK] = 0
    st.r.board[S.G_ACTED] = 0
    while mission_next(tb, st) >= 0:
        settle(tb, st, work)


@njit(cache=True, _nrt=False, forceinline=False)
def theft(tb, st, work):
    """The whole Theft and Capture (FR-9..FR-11) and the unclaimed relics (ENGINE-8)."""
    st.r.board[S.G_KIND] = -1
    theft_begin(tb, st)
    while True:
        settle(tb, st, work)
        if theft_next(tb, st) < 0:
            break
    theft_end(tb, st)


@njit(cache=True, _nrt=False, forceinline=False)
def play_round(tb, st, work):
    """One whole round (Prelude, Mission, Theft, Epilogue) with the seats' policies."""
    round_begin(tb, st)
    mission(tb, st, work)
    theft(tb, st, work)
    epilogue(tb, st)
