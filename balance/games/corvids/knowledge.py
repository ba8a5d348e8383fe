"""What a Corvids seat may know (CV-12), as a flat observation, and the re-deal of what it may not.

CV-12: the pile (every piece's position, angle, height, and the side each card shows), every
collected face-up card and the revealed birds are public; a seat knows its own bird and its own
cards (face-down ones included, and both sides of every card it took: it holds them). Besides,
what it has seen: both sides of a card a peck turned over (everyone saw it, ``CC_SEEN`` bit
``SEEN_ALL``), a card it stole (CV-11: "the thief may look at it"; bit seat), and the nests that
have been uncovered (``G_NESTS_OPENED``: a hidden bird's nest never was, or its bird would have
been revealed, CV-6). Whether a card is single- or double-sided shows from its item (CV-2:
string, ticket and coin are single-sided and no side of a double-sided card is one of them; a
blank back is a single-sided card face down).

``observe(tb, st, seat, obs)`` fills ``obs`` (int32[obs_size(tb)]) with, in this order (offsets
declared once with kit.Offsets: ``O_*`` the header, then ``MAXP`` seat rows of ``N_SO`` (``SO_*``),
one row per card of ``N_CO`` (``CO_*``), one per feather of ``N_FO`` (``FO_*``), and the nests'
card counts)::

    header  O_SEAT, O_PLAYERS, O_TURN, O_ACTIVE, O_FIRST, O_ACTOR and O_KIND (the pending
            decision, -1 none), O_END (G_END), O_CARD (the card whose ability resolves, -1),
            O_PECK_CARD (D_AIM's card, -1), O_AIM_NAMED, O_STEAL_CARD (D_STRING's, -1), O_STRING
            (the string D_STRING offers, to its actor only, else -1), O_NUT_TOOK, O_TK_FLIPPED,
            O_PILE_CARDS, O_PILE_FEATHERS, O_NESTS_OPENED (bits)
    seat    SO_BIRD (own or revealed, else -1), SO_REVEALED (turn + 1, 0), SO_FEATHERS, SO_CARDS,
            SO_STEALS (this turn's), SO_HIDDEN (its face-down single-sided cards); -1 past the
            players
    card    CO_LOC (the seat holding it, MAXP in the pile, MAXP + 1 out of play), CO_SHOWS (the
            item up: on the pile as it lies, collected as it counts; NI for a blank back), CO_OTHER
            (the other side when the seat knows it: an item, NI for a blank back; -1 unknown),
            CO_FACE (1 up), CO_USED, CO_TURN (the turn it was collected, -1), CO_X and CO_Y
            (its centre in 0.1 mm from the mat's corner), CO_ANGLE (0.1 degree, 0-3599), CO_H (its
            height x 100); the geometry -1 when it is not in the pile
    feather FO_ON, FO_X, FO_Y, FO_H (as for cards; -1 off the pile)
    nests   the cards covering each nest (pile.ncount)

``determinize(tb, st, seat, rng)`` re-deals, in place, everything ``seat`` cannot know,
uniformly among the worlds consistent with what it knows (the rules' own chances: a uniform deal
of birds, a shuffled deck, sides drawn by ``item_weight``): the hidden seats' birds among the
birds neither known nor with a nest ever uncovered (a uniform injective deal); the identities of
the single-sided cards it has not seen (face down in the pile, out of play, or another seat's
face-down cards: a uniform shuffle of their items among them; the seats' item counts follow);
the unseen side of every double-sided card (drawn anew by ``item_weight``, CV-2). Positions,
faces, owners and everything public stay. Two exceptions keep the pending decision as it is:
a ticket decision of another seat keeps that seat's face-down cards, a string decision keeps
its string (the decision itself shows that they exist). The re-deal is canonical: every pool
is laid out in an order ``seat`` knows (birds by index, the hidden single-sided items by item,
cards by index) before it is shuffled, so its result is a function of what ``seat`` knows and
of ``rng`` alone, the same from the true state as from any re-deal of it. ``forget`` then resets
what was worked out from or records the true cards and that no play reads: the policies' memo
(a cache), a policy's plan of ticket flips (kept at a ticket decision, its actor's own), the
telemetry and the event log (the world's count from the re-deal on) and the pile's scratch;
every random stream is re-seeded from ``rng`` (uint64[1], the searcher's), the only randomness
used.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from balance.games._kit import Offsets
from balance.games.corvids import engine as E
from balance.games.corvids import physics as ph
from balance.games.corvids import state as S
from balance.games.corvids import tables as T
from balance.rng import below, next_u64, splitmix64

_o = Offsets()
O_SEAT = _o(1)
O_PLAYERS = _o(1)
O_TURN = _o(1)
O_ACTIVE = _o(1)
O_FIRST = _o(1)
O_ACTOR = _o(1)
O_KIND = _o(1)
O_END = _o(1)
O_CARD = _o(1)
O_PECK_CARD = _o(1)
O_AIM_NAMED = _o(1)
O_STEAL_CARD = _o(1)
O_STRING = _o(1)
O_NUT_TOOK = _o(1)
O_TK_FLIPPED = _o(1)
O_PILE_CARDS = _o(1)
O_PILE_FEATHERS = _o(1)
O_NESTS_OPENED = _o(1)
O_SEATS = _o(0)  # MAXP rows of N_SO follow
N_HEAD = _o.end

_so = Offsets()
SO_BIRD = _so(1)
SO_REVEALED = _so(1)
SO_FEATHERS = _so(1)
SO_CARDS = _so(1)
SO_STEALS = _so(1)
SO_HIDDEN = _so(1)
N_SO = _so.end

_co = Offsets()
CO_LOC = _co(1)
CO_SHOWS = _co(1)
CO_OTHER = _co(1)
CO_FACE = _co(1)
CO_USED = _co(1)
CO_TURN = _co(1)
CO_X = _co(1)
CO_Y = _co(1)
CO_ANGLE = _co(1)
CO_H = _co(1)
N_CO = _co.end

_fo = Offsets()
FO_ON = _fo(1)
FO_X = _fo(1)
FO_Y = _fo(1)
FO_H = _fo(1)
N_FO = _fo.end

LOC_PILE = T.MAXP  # CO_LOC of a card in the pile
LOC_OUT = T.MAXP + 1  # ... out of play


def obs_size(tb) -> int:
    """The length of ``observe``'s vector for ``tb``'s game."""
    nc = int(tb.params[T.P_DECK_N])
    nf = int(tb.params[T.P_FEATHERS])
    return N_HEAD + T.MAXP * N_SO + nc * N_CO + nf * N_FO + ph.N_NESTS


@njit(cache=True, _nrt=False, forceinline=False)
def knows_both(st, seat, c):
    """Whether ``seat`` knows both sides of card ``c`` (its own, seen turned over, or taken)."""
    return (
        st.cc[c, S.CC_OWNER] == seat
        or (st.cc[c, S.CC_SEEN] >> seat) & 1 == 1
        or (st.cc[c, S.CC_SEEN] >> S.SEEN_ALL) & 1 == 1
    )


@njit(cache=True, _nrt=False, forceinline=False)
def up_face(st, c):
    """The face card ``c`` shows (1 up): as it lies, or as it was taken (a ticket or string used
    is face up)."""
    if st.cc[c, S.CC_OWNER] >= 0:
        return st.cc[c, S.CC_TAKEN_FACE]
    return st.pile.cst[c, ph.CS_FACE]


@njit(cache=True, _nrt=False, forceinline=False)
def _code(item):
    return np.int32(T.NI if item == T.BLANK else item)


@njit(cache=True, _nrt=False, forceinline=False)
def observe(tb, st, seat, obs):
    """Fill ``obs`` with what ``seat`` may know (the module docstring's encoding)."""
    b = st.board
    pile = st.pile
    nc = pile.cards.shape[0]
    nf = pile.feathers.shape[0]
    n = b[S.G_N]
    actor, kind = S.pending(st)
    obs[O_SEAT] = seat
    obs[O_PLAYERS] = n
    obs[O_TURN] = b[S.G_TURN]
    obs[O_ACTIVE] = b[S.G_ACTIVE]
    obs[O_FIRST] = b[S.G_FIRST]
    obs[O_ACTOR] = actor
    obs[O_KIND] = kind
    obs[O_END] = b[S.G_END]
    ab = kind == S.D_ACORN or kind == S.D_EARRING or kind == S.D_PAPERCLIP
    obs[O_CARD] = b[S.G_CARD] if ab or kind == S.D_FEATHER else -1
    obs[O_PECK_CARD] = b[S.G_PECK_CARD] if kind == S.D_AIM else -1
    obs[O_AIM_NAMED] = b[S.G_AIM_NAMED] if kind == S.D_AIM else 0
    obs[O_STEAL_CARD] = b[S.G_STEAL_CARD] if kind == S.D_STRING else -1
    obs[O_STRING] = b[S.G_STRING] if (kind == S.D_STRING and actor == seat) else -1
    obs[O_NUT_TOOK] = b[S.G_NUT_TOOK] if kind == S.D_FEATHER else 0
    obs[O_TK_FLIPPED] = b[S.G_TK_FLIPPED] if kind == S.D_TICKET else 0
    obs[O_PILE_CARDS] = pile.n_on[0]
    obs[O_PILE_FEATHERS] = pile.n_on[1]
    obs[O_NESTS_OPENED] = b[S.G_NESTS_OPENED]
    for q in range(T.MAXP):
        r = O_SEATS + q * N_SO
        if q >= n:
            for k in range(N_SO):
                obs[r + k] = -1
            continue
        known = q == seat or st.pl[q, S.PL_REVEALED] != 0
        obs[r + SO_BIRD] = st.pl[q, S.PL_BIRD] if known else -1
        obs[r + SO_REVEALED] = st.pl[q, S.PL_REVEALED]
        obs[r + SO_FEATHERS] = st.pl[q, S.PL_FEATHERS]
        obs[r + SO_CARDS] = st.pl[q, S.PL_CARDS]
        obs[r + SO_STEALS] = st.pl[q, S.PL_STEALS]
        obs[r + SO_HIDDEN] = 0
    c0 = O_SEATS + T.MAXP * N_SO
    hw = 5.0 * tb.physics[ph.PH_MAT_W]  # half the mat in 0.1 mm
    hh = 5.0 * tb.physics[ph.PH_MAT_H]
    for c in range(nc):
        r = c0 + c * N_CO
        owner = st.cc[c, S.CC_OWNER]
        face = up_face(st, c)
        single = st.item[c, 1] == T.BLANK
        shows = st.item[c, 1 - face]  # face 1: side 0 (a single-sided card face down: BLANK)
        other = st.item[c, face]  # the side down
        if single:
            if face == 1:
                other = T.BLANK
            else:
                other = st.item[c, 0]
        if owner >= 0:
            obs[r + CO_LOC] = owner
            obs[O_SEATS + owner * N_SO + SO_HIDDEN] += np.int32(single and face == 0)
        elif owner == S.OWN_PILE:
            obs[r + CO_LOC] = LOC_PILE
        else:
            obs[r + CO_LOC] = LOC_OUT
        obs[r + CO_SHOWS] = _code(shows)
        see = (single and face == 1) or knows_both(st, seat, c)
        obs[r + CO_OTHER] = _code(other) if see else -1
        obs[r + CO_FACE] = face
        obs[r + CO_USED] = st.cc[c, S.CC_USED]
        obs[r + CO_TURN] = st.cc[c, S.CC_TURN]
        if pile.cst[c, ph.CS_ON] == 1:
            obs[r + CO_X] = np.int32(round(10.0 * pile.cards[c, ph.CD_X] + hw))
            obs[r + CO_Y] = np.int32(round(10.0 * pile.cards[c, ph.CD_Y] + hh))
            deg = np.int64(round(math.degrees(pile.cards[c, ph.CD_A]) * 10.0)) % 3600
            obs[r + CO_ANGLE] = deg
            obs[r + CO_H] = np.int32(round(100.0 * pile.cards[c, ph.CD_H]))
        else:
            obs[r + CO_X] = -1
            obs[r + CO_Y] = -1
            obs[r + CO_ANGLE] = -1
            obs[r + CO_H] = -1
    f0 = c0 + nc * N_CO
    for f in range(nf):
        r = f0 + f * N_FO
        if pile.fst[f, ph.FS_ON] == 1:
            obs[r + FO_ON] = 1
            obs[r + FO_X] = np.int32(round(10.0 * pile.feathers[f, ph.FT_X] + hw))
            obs[r + FO_Y] = np.int32(round(10.0 * pile.feathers[f, ph.FT_Y] + hh))
            obs[r + FO_H] = np.int32(round(100.0 * pile.feathers[f, ph.FT_H]))
        else:
            obs[r + FO_ON] = 0
            obs[r + FO_X] = -1
            obs[r + FO_Y] = -1
            obs[r + FO_H] = -1
    n0 = f0 + nf * N_FO
    for k in range(ph.N_NESTS):
        obs[n0 + k] = pile.ncount[k]


@njit(cache=True, _nrt=False, forceinline=False)
def kept_for_pending(tb, st, seat, c):
    """Whether card ``c`` keeps its identity for the pending decision: another seat's ticket
    decision keeps that seat's cards, a string decision its string (the module docstring)."""
    actor, kind = S.pending(st)
    if actor == seat or actor < 0:
        return False
    if kind == S.D_TICKET:
        return st.cc[c, S.CC_OWNER] == actor
    if kind == S.D_STRING:
        return c == st.board[S.G_STRING]
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def hidden_single(tb, st, seat, c):
    """Whether single-sided card ``c``'s item is unknown to ``seat`` (and may be re-dealt)."""
    if st.item[c, 1] != T.BLANK or up_face(st, c) == 1 or knows_both(st, seat, c):
        return False
    return not kept_for_pending(tb, st, seat, c)


@njit(cache=True, _nrt=False, forceinline=False)
def determinize(tb, st, seat, rng):
    """Re-deal, in place, everything ``seat`` cannot know (the module docstring), and re-seed
    every random stream of ``st`` from ``rng``. Canonical: every pool is laid out in an order
    ``seat`` knows before it is shuffled (birds and items by index, cards by index), so the
    result is the same from the true state and from any re-deal of it (the search's leak test)."""
    b = st.board
    n = b[S.G_N]
    nc = st.item.shape[0]
    buf = st.pile.buf  # scratch of the pile (as long as its pieces): free between calls
    # the hidden seats' birds: a uniform injective deal of the birds no one is known to hold
    # and whose nest has never been uncovered, listed by bird index
    nb = tb.params[T.P_BIRDS_N]
    k = np.int64(0)
    for bird in range(nb):
        taken = False
        for q in range(n):
            if (q == seat or st.pl[q, S.PL_REVEALED] != 0) and st.pl[q, S.PL_BIRD] == bird:
                taken = True
        nest = tb.params[T.P_BIRD_NEST + bird]
        if not taken and (b[S.G_NESTS_OPENED] >> nest) & 1 == 0:
            buf[k] = bird
            k += 1
    i = np.int64(0)
    for q in range(n):
        if q != seat and st.pl[q, S.PL_REVEALED] == 0:
            j = i + below(rng, k - i)
            t = buf[i]
            buf[i] = buf[j]
            buf[j] = t
            st.pl[q, S.PL_BIRD] = buf[i]
            i += 1
    # the single-sided cards it has not seen: their items shuffled among them. The pool is
    # counted by item and laid out in item order, not in the order the hidden cards truly hold
    # them: its multiset is the deck's single-sided cards less those ``seat`` knows (CV-2, public),
    # so the shuffle's outcome depends on nothing hidden.
    m = np.int64(0)
    for it in range(T.NI):
        for c in range(nc):
            if st.item[c, 0] == it and hidden_single(tb, st, seat, c):
                buf[m] = it
                m += 1
    for t in range(m - 1, 0, -1):
        j = below(rng, t + 1)
        x = buf[t]
        buf[t] = buf[j]
        buf[j] = x
    t = np.int64(0)
    for c in range(nc):
        if hidden_single(tb, st, seat, c):
            st.item[c, 0] = buf[t]
            t += 1
    # the unseen side of every double-sided card (CV-2: drawn by item_weight), by card index
    for c in range(nc):
        if st.item[c, 1] == T.BLANK or knows_both(st, seat, c):
            continue
        if kept_for_pending(tb, st, seat, c):
            continue
        st.item[c, up_face(st, c)] = E.draw_item(tb, rng)  # face 1: side 1 is down
    # the seats' counts of what they hold follow the cards
    for q in range(T.MAXP):
        for it in range(T.NI):
            st.pl[q, S.PL_HELD + it] = 0
    for c in range(nc):
        q = st.cc[c, S.CC_OWNER]
        if q >= 0:
            st.pl[q, S.PL_HELD + S.counts_as(st, c)] += 1
    forget(tb, st, seat)
    reseed(tb, st, rng)


@njit(cache=True, _nrt=False, forceinline=False)
def forget(tb, st, seat):
    """What ``determinize`` resets besides the cards and birds: what was worked out from, or
    records, the true hidden cards, none of which the game's play reads (so the reset changes
    nothing the game does) and none of which a re-deal can re-derive.

    - the policies' memo (a cache keyed by what it depends on: worked out again as needed);
    - a policy's plan of ticket flips, except at a ticket decision, where it is read and is its
      actor's own (``seat``'s, or another seat's whose cards the re-deal keeps): elsewhere it
      is read by no one before the next turn sets it anew (engine.advance, PH_TURN);
    - the telemetry (the item of every card taken face down, stolen or knocked off, hidden
      ones included): the world's telemetry counts from the re-deal on;
    - the event log (every bird dealt, every card's item): the world's log starts at the
      re-deal, with room for no more rows than its own state has;
    - the pile's scratch ``buf`` (free between calls: the pools above were laid out in it).

    The other seats' knowledge memory (``CC_SEEN`` bits other than ``seat``'s and SEEN_ALL) is
    kept: it is set by public events (a card taken, stolen, pecked over: CV-11, CV-12), the
    re-deal does not read it, and in the re-dealt world it says what it says in the true one
    (that seat saw that card, whatever the card now is)."""
    b = st.board
    st.memo[:, :] = 0.0
    if b[S.G_KIND] != S.D_TICKET:
        b[S.G_TK_PLAN] = -1
    for q in range(T.MAXP):
        for j in range(T.N_TELE):
            st.pl[q, S.PL_TELE + j] = 0
    b[S.G_LOG_N] = 0
    b[S.G_LOG_CAP] = min(b[S.G_LOG_CAP], st.log.shape[0] - b[S.G_LOG0])
    st.pile.buf[:] = 0


@njit(cache=True, _nrt=False, forceinline=False)
def reseed(tb, st, rng):
    """Seed every random stream of ``st`` again from ``rng``, the searcher's own: the same world
    with fresh chance (determinize's last step; the search's ``redeal_every``)."""
    for s in range(st.rng.shape[0]):
        z = splitmix64(next_u64(rng))
        st.rng[s, 0] = z if z != np.uint64(0) else np.uint64(0x9E3779B97F4A7C15)
