"""Corvids rules engine (rulebooks/corvids.txt, RULINGS CV-1..CV-12), numba-compiled, on the
physical model of ``physics`` (PHYS-1..8).

A game: set-up (CV-1, CV-2, CV-8, CV-10) from stream 0: the sides of the double-sided cards are
drawn, the deck's rows shuffled (their stack order), the pile scattered with every card on the
mat and cards pushed until every nest is completely covered (PHYS-4; or scattered again until
every nest is overlapped, the looser reading ``rules.physics.nest_cover: overlap``), the
feathers dropped onto it, one bird dealt to each seat, the first player drawn. Then turns
clockwise until the pile holds no card (CV-7):

1. tickets: the seat may flip face-down tickets it holds for one more steal each (CV-4);
2. peck (CV-5, CV-9): a visible card is flipped; pieces off the mat are removed and end the turn;
3. pick (CV-5): a card with no card on top, with every feather touching it;
4. resolve (CV-4, optional): the picked card's ability, chained through paperclips; then at most
   one steal, more from tickets (CV-11), each answered perhaps by the victim's face-down string;
5. end of turn (CV-5): every piece touching no other is removed.

A bird is revealed the moment its seat's nest is uncovered (CV-6), checked after every change to
the pile. Scores are counted at the end (CV-3, ``score``); ties by feathers, then shared (CV-7).

The game is a sequence of decision points (issue 28; docs/rules/corvids.md, Decisions): ``start``
sets a game up, ``advance`` plays chance and every forced step until a seat must decide
(``state.pending``: the seat and the kind, state.DECISIONS), ``legal`` lists the options,
``apply`` carries one out, and ``play_game`` is that loop with ``policies.choose`` answering.
The continuation (the phase of the turn and the rest, state.G_PHASE ...) is in the State, so a
copied state (``state.copy_state``) resumes the same game. ``record`` writes an ended game's
dataset row, for ``play_batch`` and for a game played from Python alike.

Readings where the rules leave a choice (cite as ENGINE-n):

- ENGINE-1 Pick (CV-5 as amended): only a *card* on top keeps a card from being picked (the
  rulebook: "cannot have another card on top of it, not even a little"); a feather on it does not
  block it, and comes with it (ENGINE-2). The same holds for the earring's "completely uncovered
  earring", which it takes "including feathers". The pick is mandatory and the highest card of
  the pile always qualifies.
- ENGINE-2 Every card taken from the pile (pick, earring, paperclip) comes with every feather of
  the pile touching it, above or below (rulebook, Pick; the earring's "including feathers").
- ENGINE-3 Abilities are the seat's choice (rulebook: "Resolve ... (optional)"; CV-5): it may
  decline an earring, a paperclip's card, a nut's feathers or an acorn's peck
  (``policies.choose_acorn``); an acorn's peck taken is a peck like the first (a piece off the
  mat ends the turn at once, with no more abilities and no steal). Only a
  paperclip chains (CV-4); an earring taken by an earring does not take another. A paperclip's
  "touching" is judged where it lay when it was taken.
- ENGINE-4 A turn either takes a card from the pile or knocks a piece off the mat, and a piece
  off the mat never comes back, so a game lasts at most (cards + feathers) turns: no cap needed.
- ENGINE-5 A face-down string or ticket keeps its later use however it came (picked, taken by an
  ability, or stolen face down: the rulebook's "can be used if face-down tickets/string"); a
  ticket collected this turn waits for a later turn's start (CV-4). Using one flips it face up
  for good; it still scores as its item (CV-3).
- ENGINE-6 A steal needs the thief's steal.cost feathers and a card in the pile to drop them on
  (CV-11: "touching cards"); the victim is any other seat whose nest is uncovered at that moment
  and who holds a card. A string kept card still costs the payment and uses up the steal.
- ENGINE-7 A seat's nest is the nest of its bird; the first nest uncovered (G_FIRST_NEST) counts
  seats' nests only. Nests of birds left in the box matter to no one.
- ENGINE-8 A set-up whose ``setup_retries`` scatters all fail (a config whose pile cannot cover
  every nest on the mat) is not played: the game ends at once as "setup_failed", every seat
  scoring 0 and sharing the win (the report counts such games among the end reasons).

Compile-time notes (Raven Manor's engine docstring): integers are int64, every constant passed
to a kernel is wrapped (``np.int64(K)``), tiny helpers are ``inline="always"``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from balance.games import _kit as kit
from balance.games.base import Chunk
from balance.games.corvids import physics as ph
from balance.games.corvids import policies as pol
from balance.games.corvids import state as S
from balance.games.corvids import tables as T
from balance.games.corvids.tables import Compiled
from balance.rng import below, seed_stream, uniform

# ---------------------------------------------------------------- set-up


@njit(cache=True, _nrt=False, forceinline=False)
def draw_item(tb, rng):
    """A double-sided card's side: an item drawn by ``item_weight`` (CV-2)."""
    u = uniform(rng)
    acc = 0.0
    last = np.int64(0)
    for i in range(T.NI):
        w = tb.item_weight[i]
        if w > 0.0:
            last = np.int64(i)
            acc += w
            if u < acc:
                return np.int64(i)
    return last


@njit(cache=True, _nrt=False, forceinline=False)
def setup(tb, st, seed, game, ib):
    """CV-1, CV-2, CV-8, CV-10: reset ``st`` to the start of game ``game`` of run ``seed``.
    Returns False if the pile could not be set up (ENGINE-8)."""
    for s in range(st.rng.shape[0]):
        seed_stream(st.rng[s], seed, game, s)
    cap = st.board[S.G_LOG_CAP]
    st.board[:] = 0
    st.board[S.G_LOG_CAP] = cap
    st.pl[:, :] = 0
    n = tb.params[T.P_PLAYERS]
    st.board[S.G_N] = n
    pile = st.pile
    nc = pile.cards.shape[0]
    nf = pile.feathers.shape[0]
    r0 = st.rng[0]
    # CV-2: the deck, sides drawn anew every game, then its rows shuffled: row order is the
    # order the cards are scattered in, so their stack order (PHYS-4)
    k = np.int64(0)
    for _ in range(tb.params[T.P_DOUBLE_N]):
        st.item[k, 0] = draw_item(tb, r0)
        st.item[k, 1] = draw_item(tb, r0)
        k += 1
    for i in range(T.NI):
        for _ in range(tb.params[T.P_SINGLE_N + i]):
            st.item[k, 0] = i
            st.item[k, 1] = T.BLANK
            k += 1
    for i in range(nc - 1, 0, -1):
        j = below(r0, np.int64(i + 1))
        a0 = st.item[i, 0]
        a1 = st.item[i, 1]
        st.item[i, 0] = st.item[j, 0]
        st.item[i, 1] = st.item[j, 1]
        st.item[j, 0] = a0
        st.item[j, 1] = a1
    for c in range(nc):
        st.cc[c, S.CC_OWNER] = S.OWN_PILE
        st.cc[c, S.CC_TAKEN_FACE] = 0
        st.cc[c, S.CC_USED] = 0
        st.cc[c, S.CC_TURN] = -1
        st.cc[c, S.CC_SEEN] = 0
    pile.fst[:, :] = 0
    for f in range(nf):
        pile.feathers[f, ph.FT_H] = 0.0
    tries, redraws, pushes = ph.scatter_counted(tb.physics, pile.cards, pile.cst, np.int64(nc), r0)
    st.board[S.G_RETRIES] = tries
    st.board[S.G_REDRAWS] = redraws
    st.board[S.G_PUSHES] = pushes
    ph.rebuild(tb.physics, pile)
    for f in range(nf):  # CV-1: every feather dropped onto the pile
        ph.pile_drop(tb.physics, pile, np.int64(f), r0)
    # CV-10: one bird each from the config's birds (a partial Fisher-Yates over ib[S.IB_OFFER])
    nb = tb.params[T.P_BIRDS_N]
    for b in range(nb):
        ib[S.IB_OFFER, b] = b
    for p in range(n):
        j = p + below(r0, nb - p)
        t = ib[S.IB_OFFER, p]
        ib[S.IB_OFFER, p] = ib[S.IB_OFFER, j]
        ib[S.IB_OFFER, j] = t
        st.pl[p, S.PL_BIRD] = ib[S.IB_OFFER, p]
    first = below(r0, n)
    st.board[S.G_FIRST] = first
    S.emit(st, S.E_START, n, first, nc, nf, tries, redraws, pushes)
    for p in range(n):
        b = st.pl[p, S.PL_BIRD]
        S.emit(st, S.E_BIRD, p, b, tb.params[T.P_BIRD_NEST + b], 0, 0, 0, 0)
    snapshot(st)
    if tries < 0:
        return False
    check_nests(tb, st)
    return True


@njit(cache=True, _nrt=False, forceinline=False)
def snapshot(st):
    """Keep the pile as it lies now in ``st.snap`` row ``G_TURN`` (replays only)."""
    t = st.board[S.G_TURN]
    if t >= st.snap.shape[0]:
        return
    pile = st.pile
    nc = pile.cards.shape[0]
    for c in range(nc):
        st.snap[t, c, S.SN_X] = pile.cards[c, ph.CD_X]
        st.snap[t, c, S.SN_Y] = pile.cards[c, ph.CD_Y]
        st.snap[t, c, S.SN_A] = pile.cards[c, ph.CD_A]
        st.snap[t, c, S.SN_H] = pile.cards[c, ph.CD_H]
        st.snap[t, c, S.SN_ON] = pile.cst[c, ph.CS_ON]
        st.snap[t, c, S.SN_FACE] = pile.cst[c, ph.CS_FACE]
    for f in range(pile.feathers.shape[0]):
        st.snap[t, nc + f, S.SN_X] = pile.feathers[f, ph.FT_X]
        st.snap[t, nc + f, S.SN_Y] = pile.feathers[f, ph.FT_Y]
        st.snap[t, nc + f, S.SN_A] = 0.0
        st.snap[t, nc + f, S.SN_H] = pile.feathers[f, ph.FT_H]
        st.snap[t, nc + f, S.SN_ON] = pile.fst[f, ph.FS_ON]
        st.snap[t, nc + f, S.SN_FACE] = 0.0


# ---------------------------------------------------------------- the pile changes


@njit(cache=True, _nrt=False, forceinline=False)
def check_nests(tb, st):
    """CV-6: reveal the bird of every seat whose nest is now uncovered (once, for good); remember
    every nest uncovered (a hidden bird's nest never was: knowledge.determinize)."""
    opened = st.board[S.G_NESTS_OPENED]
    for k in range(ph.N_NESTS):
        opened |= np.int64(st.pile.ncount[k] == 0) << k
    st.board[S.G_NESTS_OPENED] = opened
    for p in range(st.board[S.G_N]):
        if st.pl[p, S.PL_REVEALED] != 0:
            continue
        b = st.pl[p, S.PL_BIRD]
        k = tb.params[T.P_BIRD_NEST + b]
        if st.pile.ncount[k] == 0:
            st.pl[p, S.PL_REVEALED] = st.board[S.G_TURN] + 1
            if st.board[S.G_FIRST_NEST] == 0:
                st.board[S.G_FIRST_NEST] = st.board[S.G_TURN] + 1
            S.emit(st, S.E_NEST, p, k, b, 0, 0, 0, 0)


@njit(cache=True, _nrt=False, inline="always")
def nest_open(tb, st, p):
    """Whether seat ``p``'s nest is uncovered now (CV-6, CV-11)."""
    return st.pile.ncount[tb.params[T.P_BIRD_NEST + st.pl[p, S.PL_BIRD]]] == 0


@njit(cache=True, _nrt=False, forceinline=False)
def remove_card(st, c):
    """Card ``c`` leaves play (off the mat, isolated)."""
    ph.take_out(st.pile, c)
    st.cc[c, S.CC_OWNER] = S.OWN_REMOVED


@njit(cache=True, _nrt=False, forceinline=False)
def remove_feather(st, f):
    ph.take_out(st.pile, np.int64(st.pile.cards.shape[0] + f))
    st.board[S.G_F_REMOVED] += 1


@njit(cache=True, _nrt=False, forceinline=False)
def take_card(tb, st, p, c, how):
    """Seat ``p`` takes card ``c`` from the pile with every feather touching it (ENGINE-2): it
    keeps its orientation (CV-3). Returns the feathers gained."""
    pile = st.pile
    # the feathers touching it, gathered without a branch per feather (backwards through the
    # list, the order they are taken out in), then taken out
    gained = np.int64(0)
    for t in range(pile.n_on[1] - 1, -1, -1):
        j = pile.lst[1, t]
        pile.buf[gained] = j
        gained += np.int64(pile.ov[c, j])
    for t in range(gained):
        ph.take_out(pile, pile.buf[t])
    face = pile.cst[c, ph.CS_FACE]
    # the cards it touches as it lies, for a paperclip (its overlaps go with it)
    k = np.int64(0)
    for t in range(pile.n_on[0]):
        j = pile.lst[0, t]
        st.touch[k + 1] = j
        k += np.int64(pile.ov[c, j])
    st.touch[0] = k
    ph.take_out(pile, c)
    st.cc[c, S.CC_OWNER] = p
    st.cc[c, S.CC_TAKEN_FACE] = face
    st.cc[c, S.CC_TURN] = st.board[S.G_TURN]
    st.cc[c, S.CC_SEEN] |= np.int64(1) << p  # its taker looks at it (CV-12)
    item = S.counts_as(st, c)
    st.pl[p, S.PL_HELD + item] += 1
    st.pl[p, S.PL_CARDS] += 1
    st.pl[p, S.PL_FEATHERS] += gained
    S.tele(st, p, T.TE_PICKED + item, 1)
    S.tele(st, p, T.TE_FEATHERS_GAINED, gained)
    S.emit(st, S.E_PICK, p, c, item, face, gained, how, 0)
    return gained


@njit(cache=True, _nrt=False, forceinline=False)
def remove_off_mat(st, p):
    """Remove every piece the last peck marked off the mat (CV-5, CV-9)."""
    pile = st.pile
    nc = pile.cards.shape[0]
    for c in range(nc):
        if pile.cst[c, ph.CS_MARK] == 1:
            item = S.up_item(st, c)
            S.emit(st, S.E_OFF, 0, c, item, p, 0, 0, 0)
            remove_card(st, c)
            st.board[S.G_OFF_MAT] += 1
            # a card counts by its up side as it falls (a blank back: its item)
            S.tele(st, p, T.TE_LOST + (item if item != T.BLANK else st.item[c, 0]), 1)
    for f in range(pile.feathers.shape[0]):
        if pile.fst[f, ph.FS_MARK] == 1:
            S.emit(st, S.E_OFF, 1, f, 0, p, 0, 0, 0)
            remove_feather(st, f)
            st.board[S.G_FEATHERS_OFF] += 1


@njit(cache=True, _nrt=False, forceinline=False)
def peck_card(tb, st, p, c, ax, ay):
    """CV-9: seat ``p`` pecks card ``c`` aiming at ``(ax, ay)``; returns True if a piece went off
    the mat (the turn ends)."""
    pile = st.pile
    pile.cst[c, ph.CS_FACE] = 1 - pile.cst[c, ph.CS_FACE]
    st.cc[c, S.CC_SEEN] |= np.int64(1) << S.SEEN_ALL  # both its sides shown (CV-12)
    off, moved = ph.pile_peck(tb.physics, pile, c, ax, ay, tb.weights[p, T.W_CLUMSY], st.rng[1])
    st.board[S.G_PECKS] += 1
    S.emit(
        st, S.E_PECK, p, c, S.up_item(st, c), moved, off, np.int64(round(ax)), np.int64(round(ay))
    )
    if st.board[S.G_LOG_CAP] > 0:  # a replay: where each card that rested on it went
        for j in range(pile.cards.shape[0]):
            if pile.cst[j, ph.CS_MOVED] == 1:
                x = np.int64(round(pile.cards[j, ph.CD_X]))
                y = np.int64(round(pile.cards[j, ph.CD_Y]))
                S.emit(st, S.E_MOVED, j, x, y, S.up_item(st, j), 0, 0, 0)
    if off > 0:
        remove_off_mat(st, p)
    check_nests(tb, st)
    return off > 0


# ---------------------------------------------------------------- helpers of the turn


@njit(cache=True, _nrt=False, forceinline=False)
def pay_feathers(tb, st, p, cost):
    """Seat ``p`` drops ``cost`` of its feathers onto the pile (CV-11, PHYS-5). Held feathers are
    not rows of their own: any row out of the pile and not removed from play is one of them."""
    pile = st.pile
    paid = np.int64(0)
    for f in range(pile.feathers.shape[0]):
        if paid == cost:
            break
        if pile.fst[f, ph.FS_ON] == 0 and ph.pile_drop(tb.physics, pile, f, st.rng[1]) == 1:
            paid += 1
    st.pl[p, S.PL_FEATHERS] -= paid
    return paid


@njit(cache=True, _nrt=False, forceinline=False)
def end_of_turn(tb, st):
    """CV-5, PHYS-8: every piece touching no other is removed."""
    a, b = ph.pile_isolated(st.pile)
    if a + b == 0:
        return
    pile = st.pile
    for c in range(pile.cards.shape[0]):
        if pile.cst[c, ph.CS_MARK] == 1:
            st.cc[c, S.CC_OWNER] = S.OWN_REMOVED
    st.board[S.G_F_REMOVED] += b
    st.board[S.G_ISOLATED] += a + b
    st.board[S.G_CARDS_ISOLATED] += a
    S.emit(st, S.E_ISOLATED, a, b, 0, 0, 0, 0, 0)
    check_nests(tb, st)


@njit(cache=True, _nrt=False, forceinline=False)
def stealing(tb, st, p, c, kept):
    """The steal of card ``c`` by seat ``p`` ends: kept by the victim's string ``kept`` (-1: the
    card changes hands, and the thief looks at it: CV-11)."""
    v = st.cc[c, S.CC_OWNER]
    item = S.counts_as(st, c)
    if kept >= 0:
        st.cc[kept, S.CC_USED] = 1
        st.cc[kept, S.CC_TAKEN_FACE] = 1
        S.tele(st, v, T.TE_ABILITY + T.STRING, 1)
    else:
        st.cc[c, S.CC_OWNER] = p
        st.cc[c, S.CC_SEEN] |= np.int64(1) << p
        st.pl[v, S.PL_HELD + item] -= 1
        st.pl[v, S.PL_CARDS] -= 1
        st.pl[p, S.PL_HELD + item] += 1
        st.pl[p, S.PL_CARDS] += 1
        S.tele(st, p, T.TE_STOLE + item, 1)
        S.tele(st, v, T.TE_STOLEN + item, 1)
    S.emit(st, S.E_STEAL, p, v, c, kept, st.board[S.G_STEAL_PAID], item, 0)


@njit(cache=True, _nrt=False, inline="always")
def pend(st, kind, p):
    st.board[S.G_KIND] = kind
    st.board[S.G_ACTOR] = p
    return p


@njit(cache=True, _nrt=False, inline="always")
def set_ability(st, c):
    """The ability of card ``c`` resolves next (-1: none, the steals come next)."""
    st.board[S.G_CARD] = c
    st.board[S.G_NUT_TOOK] = 0
    st.board[S.G_NUT_STOP] = 0
    st.board[S.G_PHASE] = S.PH_ABILITY


# ---------------------------------------------------------------- decision points


@njit(cache=True, _nrt=False, forceinline=False)
def start(tb, st, seed, game, work):
    """Reset ``st`` to the start of game ``game`` of run ``seed`` (set-up, CV-1, CV-2, CV-8,
    CV-10); no decision is pending yet (``advance``)."""
    st.memo[:, :] = 0.0  # the policies' values, kept within a game (a new game)
    ok = setup(tb, st, seed, game, work.ib)
    st.board[S.G_KIND] = -1
    st.board[S.G_ACTOR] = -1
    st.board[S.G_ACTIVE] = st.board[S.G_FIRST]
    st.board[S.G_PHASE] = S.PH_TURN if ok else S.PH_FAILED
    st.board[S.G_STOP] = S.NO_STOP
    trace_point(tb, st, work)  # point 0: the standing after set-up


@njit(cache=True, _nrt=False, inline="always")
def advance(tb, st, work):
    """Play chance and every forced step until a decision is pending: returns the acting seat, or
    -1 when the game is over (its outcome final, the end logged). The peck, its aim and the pick,
    the points of every turn, are reached here; the rest of the turn in ``advance_loop`` (one
    call a turn: a small function inlined into ``play_game`` and a call to a large one cost the
    kernel less, to run and to compile, than a large one called or inlined)."""
    b = st.board
    if b[S.G_KIND] >= 0:
        return b[S.G_ACTOR]
    phase = b[S.G_PHASE]
    p = b[S.G_ACTIVE]
    if phase < b[S.G_STOP]:
        if phase == S.PH_AIM:
            return pend(st, np.int64(S.D_AIM), p)
        if st.pile.n_on[0] > 0:
            if phase == S.PH_PECK:
                return pend(st, np.int64(S.D_PECK), p)
            if phase == S.PH_PICK:  # the highest card always qualifies (ENGINE-1)
                return pend(st, np.int64(S.D_PICK), p)
    return advance_loop(tb, st, work)


@njit(cache=True, _nrt=False, forceinline=True)
def advance_loop(tb, st, work):
    """``advance`` through every phase."""
    b = st.board
    if b[S.G_KIND] >= 0:
        return b[S.G_ACTOR]
    p = b[S.G_ACTIVE]
    out = work.ib[S.IB_OFFER]
    while True:
        phase = b[S.G_PHASE]
        if phase >= b[S.G_STOP]:  # a test driver's wall (run_part)
            return np.int64(-1)
        if phase == S.PH_PECK:
            if st.pile.n_on[0] > 0:
                return pend(st, np.int64(S.D_PECK), p)
            b[S.G_PHASE] = S.PH_PICK
        elif phase == S.PH_AIM:
            return pend(st, np.int64(S.D_AIM), p)
        elif phase == S.PH_PICK:
            if st.pile.n_on[0] > 0:  # the highest card always qualifies (ENGINE-1)
                return pend(st, np.int64(S.D_PICK), p)
            b[S.G_PHASE] = S.PH_END_TURN
        elif phase == S.PH_TURN:
            S.emit(
                st, S.E_TURN, p, b[S.G_TURN], st.pl[p, S.PL_FEATHERS], st.pl[p, S.PL_CARDS], 0, 0, 0
            )
            st.pl[p, S.PL_STEALS] = 1
            b[S.G_TK_FLIPPED] = 0
            b[S.G_TK_PLAN] = -1
            b[S.G_AIM_NAMED] = 0
            b[S.G_PHASE] = S.PH_TICKETS
        elif phase == S.PH_TICKETS:
            if st.pl[p, S.PL_HELD + T.TICKET] > 0 and S.ticket_offers(st, p, out) > 0:
                return pend(st, np.int64(S.D_TICKET), p)
            b[S.G_PHASE] = S.PH_PECK
        elif phase == S.PH_ABILITY:
            c = b[S.G_CARD]
            if c < 0 or (st.pile.cst[c, ph.CS_FACE] == 0 and st.item[c, 1] == T.BLANK):
                # none, or a face-down single-sided card: its use comes later (CV-4)
                b[S.G_PHASE] = S.PH_STEALS
                continue
            item = S.counts_as(st, c)
            if item == T.ACORN:
                if st.pile.n_on[0] > 0:  # an acorn taken last has nothing to peck
                    return pend(st, np.int64(S.D_ACORN), p)
            elif item == T.EARRING:
                if S.earring_offers(st, out) > 0:
                    return pend(st, np.int64(S.D_EARRING), p)
            elif item == T.NUT:
                took = b[S.G_NUT_TOOK]
                if b[S.G_NUT_STOP] == 0 and took < 2 and st.pile.n_on[1] > 0:
                    return pend(st, np.int64(S.D_FEATHER), p)
                if took > 0:
                    S.tele(st, p, T.TE_ABILITY + T.NUT, 1)
                    S.emit(st, S.E_ABILITY, p, item, c, 0, 0, 0, 0)
                    S.emit(st, S.E_NUT, p, took, 0, 0, 0, 0, 0)
            elif item == T.PAPERCLIP:
                if S.paperclip_offers(st, out) > 0:
                    return pend(st, np.int64(S.D_PAPERCLIP), p)
            set_ability(st, np.int64(-1))
        elif phase == S.PH_STEALS:
            if (
                st.pl[p, S.PL_STEALS] > 0
                and st.pl[p, S.PL_FEATHERS] >= tb.params[T.P_STEAL_COST]
                and S.steal_offers(tb, st, p, out) > 0
            ):
                return pend(st, np.int64(S.D_STEAL), p)
            b[S.G_PHASE] = S.PH_END_TURN
        elif phase == S.PH_STRING:
            return pend(st, np.int64(S.D_STRING), st.cc[b[S.G_STEAL_CARD], S.CC_OWNER])
        elif phase == S.PH_END_TURN:
            end_of_turn(tb, st)
            b[S.G_TURN] += 1
            snapshot(st)
            p = (p + 1) % b[S.G_N]
            b[S.G_ACTIVE] = p
            if st.pile.n_on[0] > 0:
                b[S.G_PHASE] = S.PH_TURN
                if b[S.G_TURN] % b[S.G_N] == 0:  # a round's end: a point of the trajectory
                    trace_point(tb, st, work)
            else:
                b[S.G_END] = S.END_EMPTY
                b[S.G_PHASE] = S.PH_OVER
                trace_point(tb, st, work)  # the last point: the end (CV-7)
                finish(tb, st, work)
        elif phase == S.PH_FAILED:
            b[S.G_END] = S.END_SETUP
            b[S.G_PHASE] = S.PH_OVER
            trace_point(tb, st, work)  # point 0 again, as the end scores it (ENGINE-8)
            finish(tb, st, work)
        else:  # PH_OVER (or no game started)
            return np.int64(-1)


@njit(cache=True, _nrt=False, forceinline=False)
def visible_cards(tb, st, opts):
    """The pile's visible cards (PHYS-3) by index into ``opts``; returns how many."""
    n = np.int64(0)
    for c in range(st.pile.cards.shape[0]):
        if st.pile.att[c] == 1 and ph.visible(tb.physics, st.pile, c):
            opts[n] = c
            n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def sorted_with_no(out, n, opts, no):
    """``out[:n]`` sorted into ``opts`` (then ``C_NO`` if ``no``); returns the count."""
    for k in range(n):
        opts[k] = out[k]
    for k in range(1, n):  # insertion sort: a handful of cards
        v = opts[k]
        j = k - 1
        while j >= 0 and opts[j] > v:
            opts[j + 1] = opts[j]
            j -= 1
        opts[j + 1] = v
    if no:
        opts[n] = S.C_NO
        n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def legal(tb, st, work, opts):
    """Fill ``opts`` (int64[MAX_OPTIONS]) with the pending decision's option codes in the
    canonical order (cards and feathers by index, then ``C_NO``; aims by code); returns how many
    (0: nothing pending). docs/rules/corvids.md, Decisions."""
    p, kind = S.pending(st)
    out = work.ib[S.IB_OFFER]
    b = st.board
    if kind == S.D_PECK:
        return visible_cards(tb, st, opts)
    if kind == S.D_ACORN:
        n = visible_cards(tb, st, opts)
        opts[n] = S.C_NO
        return n + 1
    if kind == S.D_AIM:
        for k in range(S.AIM_NAMED):
            opts[k] = k
        if b[S.G_AIM_NAMED] == 1:
            opts[S.AIM_NAMED] = S.AIM_NAMED
            return np.int64(S.N_AIMS)
        return np.int64(S.AIM_NAMED)
    if kind == S.D_PICK:
        return sorted_with_no(out, S.pick_offers(st, out), opts, False)
    if kind == S.D_TICKET:
        return sorted_with_no(out, S.ticket_offers(st, p, out), opts, True)
    if kind == S.D_EARRING:
        return sorted_with_no(out, S.earring_offers(st, out), opts, True)
    if kind == S.D_PAPERCLIP:
        return sorted_with_no(out, S.paperclip_offers(st, out), opts, True)
    if kind == S.D_FEATHER:
        return sorted_with_no(out, S.feather_offers(st, out), opts, True)
    if kind == S.D_STEAL:
        return sorted_with_no(out, S.steal_offers(tb, st, b[S.G_ACTIVE], out), opts, True)
    if kind == S.D_STRING:
        opts[0] = b[S.G_STRING]
        opts[1] = S.C_NO
        return np.int64(2)
    return np.int64(0)


@njit(cache=True, _nrt=False, inline="always")
def apply(tb, st, work, code):
    """Carry out option ``code`` of the pending decision (no validation: the Python layer's);
    nothing is pending until the next ``advance``."""
    b = st.board
    p, kind = S.pending(st)
    b[S.G_KIND] = -1
    b[S.G_ACTOR] = -1
    if kind == S.D_PECK:
        b[S.G_PECK_CARD] = code
        b[S.G_PECK_ACORN] = 0
        b[S.G_PHASE] = S.PH_AIM
    elif kind == S.D_AIM:
        apply_aim(tb, st, p, code)
    else:
        apply_rest(tb, st, p, kind, code)


@njit(cache=True, _nrt=False, forceinline=True)
def apply_aim(tb, st, p, code):
    """D_AIM: seat ``p`` pecks G_PECK_CARD at aim ``code`` (CV-9)."""
    b = st.board
    c = b[S.G_PECK_CARD]
    # the point of aim ``code`` (narrate.aim_xy says it in Python; AIM_RANDOM draws two uniforms
    # from the seat's stream, as the random policy always has)
    pile = st.pile
    x = pile.cards[c, ph.CD_X]
    y = pile.cards[c, ph.CD_Y]
    if code == S.AIM_OUTWARD:
        d = math.sqrt(x * x + y * y)
        ax = x
        ay = y
        if d > 1e-9:
            k = 0.25 * min(tb.physics[ph.PH_CARD_W], tb.physics[ph.PH_CARD_H]) / d
            ax = x + k * x
            ay = y + k * y
    elif code == S.AIM_NAMED:
        ax = st.fx[S.FX_AIM_X]
        ay = st.fx[S.FX_AIM_Y]
    elif code == S.AIM_CENTRE:
        ax = x
        ay = y
    else:
        if code == S.AIM_RANDOM:
            r = st.rng[2 + p]
            lx = tb.physics[ph.PH_CARD_W] * (uniform(r) - 0.5)
            ly = tb.physics[ph.PH_CARD_H] * (uniform(r) - 0.5)
        else:
            q = code - S.AIM_Q0
            lx = tb.physics[ph.PH_CARD_W] * (0.5 * (q % 2) - 0.25)
            ly = tb.physics[ph.PH_CARD_H] * (0.5 * (q // 2) - 0.25)
        cs = pile.cards[c, ph.CD_C]
        sn = pile.cards[c, ph.CD_S]
        ax = x + cs * lx - sn * ly
        ay = y + sn * lx + cs * ly
    b[S.G_AIM_NAMED] = 0
    if peck_card(tb, st, p, c, ax, ay):
        b[S.G_PHASE] = S.PH_END_TURN  # a piece off the mat ends the turn (CV-5)
    elif b[S.G_PECK_ACORN] == 1:
        set_ability(st, np.int64(-1))
    else:
        b[S.G_PHASE] = S.PH_PICK


@njit(cache=True, _nrt=False, forceinline=True)
def apply_rest(tb, st, p, kind, code):
    """``apply`` of every kind but the peck and its aim."""
    b = st.board
    if kind == S.D_PICK:
        take_card(tb, st, p, code, np.int64(S.TAKE_PICK))
        check_nests(tb, st)
        set_ability(st, code)
    elif kind == S.D_TICKET:
        if code == S.C_NO:
            b[S.G_PHASE] = S.PH_PECK
        else:
            st.cc[code, S.CC_USED] = 1
            st.cc[code, S.CC_TAKEN_FACE] = 1
            st.pl[p, S.PL_STEALS] += 1
            b[S.G_TK_FLIPPED] += 1
            S.tele(st, p, T.TE_ABILITY + T.TICKET, 1)
            S.emit(st, S.E_TICKET, p, code, 0, 0, 0, 0, 0)
    elif kind == S.D_ACORN:
        c = b[S.G_CARD]
        if code == S.C_NO:
            set_ability(st, np.int64(-1))
        else:
            S.tele(st, p, T.TE_ABILITY + T.ACORN, 1)
            S.emit(st, S.E_ABILITY, p, T.ACORN, c, 0, 0, 0, 0)
            b[S.G_PECK_CARD] = code
            b[S.G_PECK_ACORN] = 1
            b[S.G_PHASE] = S.PH_AIM
    elif kind == S.D_EARRING:
        if code != S.C_NO:
            S.tele(st, p, T.TE_ABILITY + T.EARRING, 1)
            S.emit(st, S.E_ABILITY, p, T.EARRING, b[S.G_CARD], 0, 0, 0, 0)
            take_card(tb, st, p, code, np.int64(S.TAKE_EARRING))
            check_nests(tb, st)
        set_ability(st, np.int64(-1))  # an earring taken by an earring takes none (ENGINE-3)
    elif kind == S.D_PAPERCLIP:
        if code == S.C_NO:
            set_ability(st, np.int64(-1))
        else:
            S.tele(st, p, T.TE_ABILITY + T.PAPERCLIP, 1)
            S.emit(st, S.E_ABILITY, p, T.PAPERCLIP, b[S.G_CARD], 0, 0, 0, 0)
            take_card(tb, st, p, code, np.int64(S.TAKE_PAPERCLIP))
            check_nests(tb, st)
            set_ability(st, code)  # only a paperclip chains (CV-4)
    elif kind == S.D_FEATHER:
        if code == S.C_NO:
            b[S.G_NUT_STOP] = 1
        else:
            ph.take_out(st.pile, np.int64(st.pile.cards.shape[0] + code))
            st.pl[p, S.PL_FEATHERS] += 1
            S.tele(st, p, T.TE_FEATHERS_GAINED, 1)
            b[S.G_NUT_TOOK] += 1
    elif kind == S.D_STEAL:
        if code == S.C_NO:
            b[S.G_PHASE] = S.PH_END_TURN
        else:
            v = st.cc[code, S.CC_OWNER]
            st.pl[p, S.PL_STEALS] -= 1
            # the payment: each feather dropped onto a random point of a card of the pile (CV-11)
            paid = pay_feathers(tb, st, p, tb.params[T.P_STEAL_COST])
            S.tele(st, p, T.TE_FEATHERS_PAID, paid)
            b[S.G_STEAL_PAID] = paid
            b[S.G_STEAL_CARD] = code
            # the victim may flip a face-down string to keep the card (CV-4): its first one
            s = np.int64(-1)
            for j in range(st.cc.shape[0] if st.pl[v, S.PL_HELD + T.STRING] > 0 else 0):
                if st.cc[j, S.CC_OWNER] == v and S.usable(st, j, np.int64(T.STRING)):
                    s = np.int64(j)
                    break
            if s >= 0:
                b[S.G_STRING] = s
                b[S.G_PHASE] = S.PH_STRING
            else:
                stealing(tb, st, p, code, np.int64(-1))
    elif kind == S.D_STRING:
        thief = b[S.G_ACTIVE]
        stealing(tb, st, thief, b[S.G_STEAL_CARD], code if code != S.C_NO else np.int64(-1))
        b[S.G_PHASE] = S.PH_STEALS


@njit(cache=True, _nrt=False, forceinline=False)
def play_game(tb, st, seed, game, work):
    """Play one whole game into ``st`` with the scratch ``work`` (state.alloc_work): every choice
    through the decision points."""
    start(tb, st, seed, game, work)
    while advance(tb, st, work) >= 0:
        apply(tb, st, work, pol.choose(tb, st, work))


# ---------------------------------------------------------------- drivers of part of a turn (tests)


@njit(cache=True, _nrt=False, forceinline=False)
def run_part(tb, st, p, work, phase, stop):
    """Seat ``p``'s turn from phase ``phase`` on ``st`` as it stands, every decision by the
    configured policies, until the phase reaches ``stop`` (PH_*, a wall ``advance`` does not
    cross); returns the card whose ability was due then (G_CARD)."""
    b = st.board
    b[S.G_ACTIVE] = p
    b[S.G_PHASE] = phase
    b[S.G_KIND] = -1
    b[S.G_ACTOR] = -1
    b[S.G_STOP] = stop
    while advance(tb, st, work) >= 0:
        apply(tb, st, work, pol.choose(tb, st, work))
    b[S.G_STOP] = S.NO_STOP
    return b[S.G_CARD] if b[S.G_PHASE] == S.PH_ABILITY else np.int64(-1)


@njit(cache=True, _nrt=False, forceinline=False)
def play_turn(tb, st, p, work):
    """The whole turn of seat ``p`` (CV-5) from its start, the end of turn included, without
    moving the turn on (tests' scenes)."""
    run_part(tb, st, p, work, np.int64(S.PH_TURN), np.int64(S.PH_END_TURN))
    end_of_turn(tb, st)
    st.board[S.G_PHASE] = S.PH_IDLE


@njit(cache=True, _nrt=False, forceinline=False)
def pick(tb, st, p, work):
    """Seat ``p``'s pick alone (CV-5): returns the card taken (-1 none)."""
    st.board[S.G_CARD] = -1
    return run_part(tb, st, p, work, np.int64(S.PH_PICK), np.int64(S.PH_ABILITY))


@njit(cache=True, _nrt=False, forceinline=False)
def use_tickets(tb, st, p, work):
    """Seat ``p``'s tickets at the start of its turn alone (CV-4); its steals this turn are reset
    to one first, as the turn does."""
    st.pl[p, S.PL_STEALS] = 1
    st.board[S.G_TK_FLIPPED] = 0
    st.board[S.G_TK_PLAN] = -1
    run_part(tb, st, p, work, np.int64(S.PH_TICKETS), np.int64(S.PH_PECK))


@njit(cache=True, _nrt=False, forceinline=False)
def steals(tb, st, p, work):
    """Seat ``p``'s steals alone (CV-5, CV-11, ENGINE-6)."""
    run_part(tb, st, p, work, np.int64(S.PH_STEALS), np.int64(S.PH_END_TURN))


# ---------------------------------------------------------------- scoring


@njit(cache=True, _nrt=False, forceinline=False)
def score(tb, st, p):
    """CV-3 (schema.score_cards): seat ``p``'s points, of which its bird's bonus and its sets'
    bonus (set points in place of the cards' values). The cards' values come from the seat's
    counts by item (``PL_HELD``: what its cards count as, CV-3); only a seat holding a coin has
    its cards looked at, for the coins it holds face down (engine.trace_point scores every seat
    at every round's end: no pass over the deck for the rest)."""
    total = np.int64(0)
    for i in range(T.NI):
        total += st.pl[p, S.PL_HELD + i] * tb.params[T.P_VALUE + i]
    coins_down = np.int64(0)
    if st.pl[p, S.PL_HELD + T.COIN] > 0:
        for c in range(st.cc.shape[0]):
            if (
                st.cc[c, S.CC_OWNER] == p
                and st.cc[c, S.CC_TAKEN_FACE] == 0
                and S.counts_as(st, c) == T.COIN
            ):
                coins_down += 1
        total += coins_down * (tb.params[T.P_COIN_DOWN] - tb.params[T.P_VALUE + T.COIN])
    coins_up = st.pl[p, S.PL_HELD + T.COIN] - coins_down
    sets = np.int64(0)
    for i in range(T.NI):
        size = tb.params[T.P_SET_SIZE + i]
        if size <= 0:
            continue
        held = st.pl[p, S.PL_HELD + i]
        full = held // size
        if full == 0:
            continue
        need = full * size
        if i == T.COIN:  # the set's cards are its lowest-valued ones (score_cards)
            v_up = tb.params[T.P_VALUE + T.COIN]
            v_down = tb.params[T.P_COIN_DOWN]
            if v_up <= v_down:
                up = min(coins_up, need)
                in_sets = up * v_up + (need - up) * v_down
            else:
                down = min(coins_down, need)
                in_sets = down * v_down + (need - down) * v_up
        else:
            in_sets = need * tb.params[T.P_VALUE + i]
        sets += full * tb.params[T.P_SET_POINTS + i] - in_sets
    b = st.pl[p, S.PL_BIRD]
    bird = tb.params[T.P_BIRD_BONUS + b] * st.pl[p, S.PL_HELD + tb.params[T.P_BIRD_FAV + b]]
    return total + sets + bird, bird, sets


@njit(cache=True, _nrt=False, inline="always")
def standing(tb, st, p):
    """CV-7: seat ``p``'s score as the end counts it, were the game to end now: CV-3's points of
    the cards it holds (``score``) plus the ``rules.handicap`` entry of its place in the turn
    order; a game whose set-up failed (ENGINE-8) gets no handicap."""
    n = st.board[S.G_N]
    played = st.board[S.G_END] != S.END_SETUP
    place = (p - st.board[S.G_FIRST]) % n
    return score(tb, st, p)[0] + played * tb.params[T.P_HANDICAP + place]


@njit(cache=True, _nrt=False, forceinline=False)
def ranks(tb, st, out_score, out_rank):
    """CV-7: scores, and ranks by score then feathers (1 = winner; ties shared). A score is
    CV-3's plus the ``rules.handicap`` entry of the seat's place in the turn order (the
    dataset's ``order``), so the handicapped scores decide and a tie after them goes to feathers.
    A game whose set-up failed was never played: no handicap, every seat shares the win."""
    n = st.board[S.G_N]
    for p in range(n):
        out_score[p] = standing(tb, st, p)
    for p in range(n):
        r = 1
        for q in range(n):
            if out_score[q] > out_score[p] or (
                out_score[q] == out_score[p] and st.pl[q, S.PL_FEATHERS] > st.pl[p, S.PL_FEATHERS]
            ):
                r += 1
        out_rank[p] = r


@njit(cache=True, _nrt=False, forceinline=False)
def finish(tb, st, work):
    """Log the scores and the end (replays)."""
    if st.board[S.G_LOG_CAP] == 0:
        return
    n = st.board[S.G_N]
    sc = work.score
    rk = work.rank
    ranks(tb, st, sc, rk)
    winners = np.int64(0)
    for p in range(n):
        total, bird, sets = score(tb, st, p)
        if rk[p] == 1:
            winners += 1
        S.emit(
            st,
            S.E_SCORE,
            p,
            total,
            bird,
            sets,
            st.pl[p, S.PL_FEATHERS],
            st.pl[p, S.PL_CARDS],
            rk[p],
        )
    S.emit(st, S.E_END, st.board[S.G_TURN], st.board[S.G_END], winners, 0, 0, 0, 0)


# ---------------------------------------------------------------- the trajectory (issue 32)


@njit(cache=True, _nrt=False, forceinline=False)
def trace_point(tb, st, work):
    """Keep every seat's standing as it stands now (state.TRACE_MEASURES: ``standing``, feathers
    held) as trajectory point ceil(G_TURN / players) in ``work.trace``: point 0 at the start, k at
    the end of round k (turn k * players), the last at the game's end (docs/rules/corvids.md,
    How a game went). Called at those moments only (``start``, ``advance_loop``)."""
    n = st.board[S.G_N]
    k = (st.board[S.G_TURN] + n - 1) // n
    if k >= work.trace.shape[0]:  # never, by ENGINE-4's bound (state.trace_cap)
        return
    row = work.trace[k]
    for p in range(n):
        row[p, S.TR_SCORE] = standing(tb, st, p)
        row[p, S.TR_FEATHERS] = st.pl[p, S.PL_FEATHERS]


# ---------------------------------------------------------------- the batch kernel


@njit(cache=True, _nrt=False, forceinline=False)
def record(tb, st, work, g, score_, rank, turns, end, order, team, role, extra, tele, clipped):
    """Write the ended game's row ``g`` into the output arrays (kit.Outputs' fields; ``team``
    is not written: Corvids deals no teams; ``clipped``: the block's row of clip counts, int64[C])."""
    n = tb.params[T.P_PLAYERS]
    sc = work.score
    rk = work.rank
    board = st.board
    turns[g] = board[S.G_TURN]
    end[g] = board[S.G_END] - 1
    first = board[S.G_FIRST]
    ranks(tb, st, sc, rk)
    for p in range(n):
        score_[g, p] = sc[p]
        rank[g, p] = rk[p]
        order[g, p] = (p - first) % n
        role[g, p] = st.pl[p, S.PL_BIRD]
        _, bird, sets = score(tb, st, p)
        extra[g, p, 0] = st.pl[p, S.PL_FEATHERS]
        extra[g, p, 1] = st.pl[p, S.PL_CARDS]
        extra[g, p, 2] = bird
        extra[g, p, 3] = sets
        extra[g, p, 4] = st.pl[p, S.PL_REVEALED] - 1
        extra[g, p, 5] = board[S.G_OFF_MAT]
        extra[g, p, 6] = board[S.G_ISOLATED]
        extra[g, p, 7] = board[S.G_RETRIES]
        extra[g, p, 8] = board[S.G_FIRST_NEST] - 1
        extra[g, p, 9] = board[S.G_REDRAWS]
        extra[g, p, 10] = board[S.G_PUSHES]
        seen = 0
        for j in range(T.N_TELE):
            v = st.pl[p, S.PL_TELE + j]
            tele[g, p, j] = kit.clip_u8(v)
            seen |= v
        if seen > 255:
            for j in range(T.N_TELE):
                kit.tally_clipped(st.pl[p, S.PL_TELE + j], clipped, j)


@njit(cache=True, _nrt=False, forceinline=True)
def record_trace(tb, st, work, g, trace, points):
    """Row ``g`` of the trajectory outputs (kit.Outputs' ``trace`` and ``points``) for the ended
    game in ``st``: state.TRACE_MEASURES at each of its 1 + ceil(turns / players) points, as
    ``trace_point`` kept them in ``work``, each clipped to int16 (a score can pass 32,767 only in
    a config of 200 cards worth 100 points each). Nothing when ``points`` has no row ``g`` (a
    one-game row that keeps no trajectory: balance/games/position.py)."""
    if points.shape[0] <= g:
        return
    n = st.board[S.G_N]
    # the min: never binds
    m = min((st.board[S.G_TURN] + n - 1) // n + 1, trace.shape[0] // points.shape[0])
    s = kit.trace_row(g, m, points)
    for k in range(m):
        for p in range(n):
            for j in range(S.N_TRACE):
                trace[s + k, p, j] = min(max(work.trace[k, p, j], -32768), 32767)


@njit(cache=True, nogil=True, forceinline=False)
def play_batch(tb, seed, first_game, n_games, out, b0, b1):
    """Play the games of blocks b0 to b1 - 1 (of ``S.BLOCK_GAMES`` games each) of
    [first_game, first_game + n_games) into row i of the output arrays (``out``:
    kit.Outputs); block b counts the telemetry cells it clipped at 255 in row b of ``clipped``
    (per column). ``kit.in_threads`` runs the blocks over the threads (``play``)."""
    score_, rank, turns, end, order, team, role, extra, tele, clipped, trace, points = out
    for blk in range(b0, b1):
        st = S.alloc_state(tb, 0)
        work = S.alloc_work(tb)
        clip = clipped[blk]
        lo = blk * S.BLOCK_GAMES
        hi = min(n_games, lo + S.BLOCK_GAMES)
        for gi in range(lo, hi):
            play_game(tb, st, seed, first_game + gi, work)
            record(tb, st, work, gi, score_, rank, turns, end, order, team, role, extra, tele, clip)
            record_trace(tb, st, work, gi, trace, points)


def play(
    compiled: Compiled,
    seed: int,
    first_game: int,
    n_games: int,
    batch: Any = None,
    block: int = S.BLOCK_GAMES,
) -> Chunk:
    """Play a chunk of games: the batch kernel's Python layer (kit.play_chunk). A seat's role is
    the bird it was dealt; Corvids deals no teams."""
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
        role=True,
    )
