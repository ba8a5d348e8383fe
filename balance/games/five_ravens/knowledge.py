"""What a Five Ravens seat may know (FR-15, ENGINE-13, ENGINE-16): its observation and the
re-deal of everything it cannot know (docs/rules/five_ravens.md, "What a seat knows").

``observe(tb, st, seat, obs)`` fills ``obs`` (int32[obs_size(tb)]) with the pieces declared
below in order (``O_*`` offsets, fixed sizes: a card list is ``T.MAX_CAP`` long, padded with -1;
a per-card flag row is indexed by card id, 0/1; seat rows are indexed by seat, -1 for a seat the
config does not have):

- header ``O_*`` scalars: the seat, seats, round, rounds, mission turns so far, first player,
  first player of the game, stage (state.STAGE_*), the pending decision's kind and seat (-1, -1
  if none), the relic the 7 shows the seat (-1 unless it is the seat's own pending 7), the steps
  of its own 8 or 4 sequence, the Raven being resolved (public, -1), relics in the relic deck and
  the ones this seat knows at its top and bottom (-1 unknown);
- the centre, ``MAX_SLOTS`` rows of (relic or -1 if empty or unknown to the seat, occupied, face
  up, locked, the seat knows it);
- per seat: status, thief (-1: none, or hidden until the Theft reveals it; the seat's own
  always), a thief was played, no-thief (FR-7, public), captured 3 / 1 used, turns this round,
  doubled relic, the counts of hand, deck, discard and captured cards, final score and rank;
- per seat: its discard pile and its captured cards (public, in order), and the flags of the
  cards that are in its hand, deck or face-down thief (public as a set: every card reaches a
  seat's hand or deck from a public place, its own Ravens from the start);
- the seat's own hand (in order), the known top of its own deck (top first, PL_DECK_KNOWN
  cards, FR-15: an 8 or a 7's rescue put them there), the flags of its deck's cards (its
  composition, FR-15), and the cards its own 4 set aside so far.

``determinize(tb, st, seat, rng)`` re-deals, in place, what ``seat`` cannot know, uniformly
among the worlds its knowledge allows (ENGINE-16): each other seat's hand, deck and face-down
thief from that seat's pool (a valid thief, FR-7; no Raven in hand for a seat without a thief,
FR-7; a Raven in hand for an active seat that may still play one, ENGINE-3; the cards an active
4 set aside too); the unknown order of its own deck below the known top; the relics it has not
seen (face-down centre relics it does not know, the relic deck but for the ends it looked at,
the relic a 7 of another seat is looking at, and the relics removed unseen, FR-3) among their
places. Then every random stream of the state is seeded again from ``rng``.

The re-deal is **canonical**: its result is a function of what ``seat`` knows and of ``rng``
only, never of how the hidden cards truly lie, so the search (balance/games/_search.py) builds the
same world from the true state as from any consistent re-deal of it (tests/games/test_search.py).
Every pool of hidden cards is sorted before it is shuffled (the true order of a hand, a deck or
the relic deck would otherwise carry through the shuffle into the world), and what else in the
State depends on hidden cards without being re-dealt is derived again from the new deal or reset
to what the engine would recompute anyway (``_forget``): another seat's knowledge of the relic
deck's ends follows the new deal, and the other seats' other knowledge rows are public counts and
flags (which centre slot a seat examined, how many cards of its deck it put on top) that the
re-deal does not read; a policy's plan of the 8 or the 4 is made again; the greedy scratch values
``fv`` and the cached rescue values are reset (written before they are read); the aux scratch
rows are cleared; another seat's telemetry follows its re-dealt thief and forgets its draws
(telemetry is written to the dataset only, never read by play).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from balance.games import _kit as kit
from balance.games.five_ravens import state as S
from balance.games.five_ravens import tables as T
from balance.rng import below, next_u64, seed_stream

NS = T.MAX_SEATS
CAP = T.MAX_CAP

_o = kit.Offsets()
O_SEAT = _o(1)
O_SEATS = _o(1)
O_ROUND = _o(1)
O_ROUNDS = _o(1)
O_TURNS = _o(1)
O_FIRST = _o(1)
O_START = _o(1)
O_STAGE = _o(1)
O_KIND = _o(1)
O_ACTOR = _o(1)
O_SEEN = _o(1)
O_SEQ = _o(1)
O_PLAYED = _o(1)
O_RD_N = _o(1)
O_RD_TOP = _o(1)
O_RD_BOT = _o(1)
# centre: MAX_SLOTS rows of C_W
C_CARD, C_OCC, C_FACE, C_LOCK, C_KNOWN, C_W = range(6)
O_CENTRE = _o(S.MAX_SLOTS * C_W)
# seats: NS rows of Q_W
(
    Q_STATUS,
    Q_THIEF,
    Q_HAS_THIEF,
    Q_NO_THIEF,
    Q_USED3,
    Q_USED1,
    Q_TURNS,
    Q_DOUBLED,
    Q_HAND_N,
    Q_DECK_N,
    Q_DISC_N,
    Q_CAPT_N,
    Q_SCORE,
    Q_RANK,
    Q_W,
) = range(15)
O_SEATROW = _o(NS * Q_W)
O_DISC = _o(NS * CAP)  # + q * CAP: seat q's discard, bottom first
O_CAPT = _o(NS * CAP)  # + q * CAP: seat q's captured cards
O_POOL = _o(NS * CAP)  # + q * CAP + card: the card is in seat q's hand, deck or hidden thief
O_HAND = _o(CAP)  # own hand
O_DECK_TOP = _o(CAP)  # own deck's known top, top first
O_DECK = _o(CAP)  # + card: the card is in the own deck
O_ASIDE = _o(CAP)  # own 4's set-aside so far
OBS_SIZE = _o.end


def obs_size(tb: T.Tables) -> int:
    """The length of the observation vector (the same for every config: fixed-size pieces)."""
    return OBS_SIZE


@njit(cache=True, forceinline=False)
def thief_hidden(st, q, seat):
    """Seat ``q``'s thief is face down to ``seat``: played this Mission, not yet revealed."""
    return q != seat and st.r.board[S.G_STAGE] == S.STAGE_MISSION and st.r.pl[q, S.PL_THIEF] >= 0


@njit(cache=True, forceinline=False)
def aside_of(st):
    """The seat whose 4 has set cards aside now (in no pile, ENGINE-12), -1 if none."""
    b = st.r.board
    if b[S.G_KIND] == S.D_SET_ASIDE and b[S.G_SEQ] > 0:
        return b[S.G_ACTOR]
    return -1


@njit(cache=True, forceinline=False)
def observe(tb, st, seat, obs):
    """Fill ``obs`` (int32[obs_size]) with what ``seat`` may know (module docstring)."""
    obs[:] = -1
    b = st.r.board
    P = S.n_seats(tb)
    s = S.seat_ix(seat)
    obs[O_SEAT] = s
    obs[O_SEATS] = P
    obs[O_ROUND] = b[S.G_ROUND]
    obs[O_ROUNDS] = tb.r.params[T.P_ROUNDS]
    obs[O_TURNS] = b[S.G_TURNS]
    obs[O_FIRST] = b[S.G_FIRST]
    obs[O_START] = b[S.G_START]
    obs[O_STAGE] = b[S.G_STAGE]
    if b[S.G_PENDING]:
        obs[O_KIND] = b[S.G_KIND]
        obs[O_ACTOR] = b[S.G_ACTOR]
    own = b[S.G_KIND] >= 0 and b[S.G_ACTOR] == s
    if own and b[S.G_KIND] == S.D_SEVEN:
        obs[O_SEEN] = b[S.G_SEEN]
    seq = own and (b[S.G_KIND] == S.D_STACK or b[S.G_KIND] == S.D_SET_ASIDE)
    obs[O_SEQ] = b[S.G_SEQ] if seq else 0
    obs[O_PLAYED] = b[S.G_PLAYED]
    obs[O_RD_N] = b[S.G_RD_N]
    obs[O_RD_TOP] = st.r.pl[s, S.PL_RD_TOP]
    obs[O_RD_BOT] = st.r.pl[s, S.PL_RD_BOT]
    for slot in range(S.MAX_SLOTS):
        o = O_CENTRE + slot * C_W
        x = b[S.B_CENTRE + slot] if slot < P else -1
        known = x >= 0 and (b[S.B_FACE + slot] == 1 or st.r.pl[s, S.PL_CKNOWN + slot] == 1)
        obs[o + C_CARD] = x if known else -1
        obs[o + C_OCC] = 1 if x >= 0 else 0
        obs[o + C_FACE] = b[S.B_FACE + slot] if x >= 0 else 0
        obs[o + C_LOCK] = b[S.B_LOCK + slot] if slot < P else 0
        obs[o + C_KNOWN] = 1 if known else 0
    for q in range(P):
        o = O_SEATROW + q * Q_W
        pl = st.r.pl[q]
        obs[o + Q_STATUS] = pl[S.PL_STATUS]
        obs[o + Q_THIEF] = -1 if thief_hidden(st, q, s) else pl[S.PL_THIEF]
        obs[o + Q_HAS_THIEF] = 1 if pl[S.PL_THIEF] >= 0 else 0
        obs[o + Q_NO_THIEF] = pl[S.PL_NO_THIEF]
        obs[o + Q_USED3] = pl[S.PL_USED3]
        obs[o + Q_USED1] = pl[S.PL_USED1]
        obs[o + Q_TURNS] = pl[S.PL_TURNS]
        obs[o + Q_DOUBLED] = pl[S.PL_DOUBLED]
        obs[o + Q_HAND_N] = pl[S.PL_HAND_N]
        obs[o + Q_DECK_N] = pl[S.PL_DECK_N]
        obs[o + Q_DISC_N] = pl[S.PL_DISC_N]
        obs[o + Q_CAPT_N] = pl[S.PL_CAPT_N]
        over = b[S.G_STAGE] == S.STAGE_OVER
        obs[o + Q_SCORE] = pl[S.PL_SCORE] if over else -1
        obs[o + Q_RANK] = pl[S.PL_RANK] if over else -1
        for i in range(pl[S.PL_DISC_N]):
            obs[O_DISC + q * CAP + i] = st.r.pile[q, S.PILE_DISC, i]
        for i in range(pl[S.PL_CAPT_N]):
            obs[O_CAPT + q * CAP + i] = st.r.pile[q, S.PILE_CAPT, i]
        op = O_POOL + q * CAP
        obs[op : op + CAP] = 0
        for i in range(pl[S.PL_HAND_N]):
            obs[op + st.r.pile[q, S.PILE_HAND, i]] = 1
        for i in range(pl[S.PL_DECK_N]):
            obs[op + st.r.pile[q, S.PILE_DECK, i]] = 1
        if thief_hidden(st, q, s):
            obs[op + pl[S.PL_THIEF]] = 1
        if aside_of(st) == q:
            for i in range(b[S.G_SEQ]):
                obs[op + b[S.B_ASIDE + i]] = 1
    for i in range(st.r.pl[s, S.PL_HAND_N]):
        obs[O_HAND + i] = st.r.pile[s, S.PILE_HAND, i]
    nd = st.r.pl[s, S.PL_DECK_N]
    for i in range(min(st.r.pl[s, S.PL_DECK_KNOWN], nd)):
        obs[O_DECK_TOP + i] = st.r.pile[s, S.PILE_DECK, nd - 1 - i]
    obs[O_DECK : O_DECK + CAP] = 0
    for i in range(nd):
        obs[O_DECK + st.r.pile[s, S.PILE_DECK, i]] = 1
    if aside_of(st) == s:
        for i in range(b[S.G_SEQ]):
            obs[O_ASIDE + i] = b[S.B_ASIDE + i]


@njit(cache=True, forceinline=False)
def _shuffle(a, n, rng):
    kit.shuffle(a, n, rng)


@njit(cache=True, _nrt=False, forceinline=False)
def _sort(a, n):
    """Sort ``a[:n]`` in place (insertion sort: a pool is at most MAX_CAP cards): the canonical
    order a pool of hidden cards is shuffled from, so the re-deal does not depend on the true one."""
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


@njit(cache=True, forceinline=False)
def _thief_ok(tb, c):
    return c < T.N_RAVENS or tb.r.cards[T.C_THIEF, S.rtype(tb, c)] == 1


@njit(cache=True, _nrt=False, forceinline=False)
def _count_thief(tb, st, q, d):
    """Add ``d`` to seat ``q``'s telemetry count of thieves of its thief's card type (the count
    engine.play_turn made when the thief was played face down)."""
    nct = T.N_RAVENS + tb.r.params[T.P_N_TYPES]
    st.r.pl[q, S.PL_TELE + T.EV_THIEF * nct + S.card_type(tb, st.r.pl[q, S.PL_THIEF])] += d


@njit(cache=True, forceinline=False)
def _redeal_seat(tb, st, q, seat, rng, pool):
    """Re-deal seat ``q``'s hand, deck, hidden thief and set-aside cards from their pool."""
    b = st.r.board
    pl = st.r.pl[q]
    nh = pl[S.PL_HAND_N]
    nd = pl[S.PL_DECK_N]
    hidden_thief = thief_hidden(st, q, seat)
    na = b[S.G_SEQ] if aside_of(st) == q else 0
    n = 0
    if hidden_thief:
        pool[n] = pl[S.PL_THIEF]
        n += 1
        _count_thief(tb, st, q, -1)  # its telemetry count follows the re-dealt thief (below)
    for i in range(nh):
        pool[n] = st.r.pile[q, S.PILE_HAND, i]
        n += 1
    for i in range(na):
        pool[n] = b[S.B_ASIDE + i]
        n += 1
    for i in range(nd):
        pool[n] = st.r.pile[q, S.PILE_DECK, i]
        n += 1
    _sort(pool, n)  # the pool as a set (ENGINE-16): which card was where must not show through
    t0 = 1 if hidden_thief else 0
    if pl[S.PL_NO_THIEF] == 1:
        # FR-7: no Raven in hand since the Prelude (no thief, no action): the hand is a uniform
        # draw from the pool's other cards
        k = 0
        for i in range(n):  # the non-Ravens first
            if pool[i] >= T.N_RAVENS:
                x = pool[k]
                pool[k] = pool[i]
                pool[i] = x
                k += 1
        _shuffle(pool, k, rng)
        # the hand: the first nh of the non-Ravens; then the rest of the pool in a random order
        rest = pool[nh:n]
        _shuffle(rest, n - nh, rng)
    else:
        need_raven = b[S.G_STAGE] == S.STAGE_MISSION and pl[S.PL_STATUS] == S.ST_ACTIVE
        for _ in range(100000):
            _shuffle(pool, n, rng)
            ok = True
            if hidden_thief and not _thief_ok(tb, pool[0]):
                ok = False
            if ok and need_raven:
                ok = False
                for i in range(t0, t0 + nh):
                    if pool[i] < T.N_RAVENS:
                        ok = True
                        break
            if ok:
                break
    i = 0
    if hidden_thief:
        pl[S.PL_THIEF] = pool[0]
        _count_thief(tb, st, q, 1)
        i = 1
    for j in range(nh):
        st.r.pile[q, S.PILE_HAND, j] = pool[i]
        i += 1
    S.sync_hand(st, q)
    for j in range(na):
        b[S.B_ASIDE + j] = pool[i]
        i += 1
    for j in range(nd):
        st.r.pile[q, S.PILE_DECK, j] = pool[i]
        i += 1


@njit(cache=True, forceinline=False)
def determinize(tb, st, seat, rng):
    """Re-deal, in place, everything ``seat`` cannot know (module docstring), then seed every
    random stream of ``st`` again from ``rng`` (uint64[1]; the only randomness used)."""
    b = st.r.board
    P = S.n_seats(tb)
    s = S.seat_ix(seat)
    cap = T.N_RAVENS + tb.r.params[T.P_N_RELICS]
    pool = np.zeros(CAP + 8, np.int32)
    # the own deck: its order below the known top (FR-15)
    unknown = st.r.pl[s, S.PL_DECK_N] - st.r.pl[s, S.PL_DECK_KNOWN]
    if unknown > 1:
        _sort(st.r.pile[s, S.PILE_DECK], unknown)  # the deck's composition, not its order
        _shuffle(st.r.pile[s, S.PILE_DECK], unknown, rng)
    for q in range(P):
        if q != s:
            _redeal_seat(tb, st, q, s, rng, pool)
    # the relics the seat has not seen: where they are, and the removed ones (FR-3)
    present = np.zeros(CAP, np.uint8)
    for q in range(P):
        for k in range(S.N_PILES):
            for i in range(st.r.pl[q, S.PL_DECK_N + k]):
                present[st.r.pile[q, k, i]] = 1
        if st.r.pl[q, S.PL_THIEF] >= 0:
            present[st.r.pl[q, S.PL_THIEF]] = 1
    a = aside_of(st)
    if a >= 0:
        for i in range(b[S.G_SEQ]):
            present[b[S.B_ASIDE + i]] = 1
    # places: centre slot (code slot), relic deck index from the bottom (code 8 + k), seen (4)
    places = np.zeros(CAP + 8, np.int64)
    n_places = 0
    n = 0
    for slot in range(P):
        x = b[S.B_CENTRE + slot]
        if x >= 0:
            present[x] = 1
            if b[S.B_FACE + slot] == 0 and st.r.pl[s, S.PL_CKNOWN + slot] == 0:
                places[n_places] = slot
                n_places += 1
                pool[n] = x
                n += 1
    rd_n = b[S.G_RD_N]
    for k in range(rd_n):
        x = b[S.B_RDECK + S.rd_index(st, k)]
        present[x] = 1
        if k == rd_n - 1 and st.r.pl[s, S.PL_RD_TOP] >= 0:
            continue
        if k == 0 and st.r.pl[s, S.PL_RD_BOT] >= 0:
            continue
        places[n_places] = 8 + k
        n_places += 1
        pool[n] = x
        n += 1
    seen = b[S.G_SEEN]
    if seen >= 0:
        present[seen] = 1
        if not (b[S.G_KIND] == S.D_SEVEN and b[S.G_ACTOR] == s):
            places[n_places] = S.MAX_SLOTS
            n_places += 1
            pool[n] = seen
            n += 1
    for c in range(T.N_RAVENS, cap):  # removed unseen: in no place
        if present[c] == 0:
            pool[n] = c
            n += 1
    _sort(pool, n)  # the unseen relics as a set, not in the order of their true places
    _shuffle(pool, n, rng)
    for i in range(n_places):
        w = places[i]
        if w < S.MAX_SLOTS:
            b[S.B_CENTRE + w] = pool[i]
        elif w == S.MAX_SLOTS:
            b[S.G_SEEN] = pool[i]
        else:
            b[S.B_RDECK + S.rd_index(st, w - 8)] = pool[i]
    # what the other seats knew of the relic deck's ends follows the new deal
    for q in range(P):
        if st.r.pl[q, S.PL_RD_TOP] >= 0:
            st.r.pl[q, S.PL_RD_TOP] = S.rd_top_card(st)
        if st.r.pl[q, S.PL_RD_BOT] >= 0:
            st.r.pl[q, S.PL_RD_BOT] = S.rd_bottom_card(st)
    _forget(tb, st, s)
    reseed(tb, st, rng)


@njit(cache=True, _nrt=False, forceinline=False)
def _forget(tb, st, seat):
    """Reset what depends on the hidden cards without being re-dealt (module docstring), to what
    the game would work out again before reading it, so that the re-dealt world is the same from
    any true state ``seat`` cannot tell apart: a plan, the greedy scratch, the aux scratch rows,
    and the other seats' telemetry of hidden events."""
    b = st.r.board
    P = S.n_seats(tb)
    # a policy's plan of the 8 or the 4 may name re-dealt cards: made again from the point
    # reached (policies.choose_planned reads B_PLAN only below G_PLAN_N of a plan it made)
    b[S.G_PLANNED] = 0
    b[S.G_PLAN_N] = 0
    b[S.G_PLAN_AT] = 0
    b[S.B_PLAN : S.B_PLAN + T.MAX_CAP] = 0
    # the greedy turn's values (policies._greedy_turn) hold the last hand it valued: every one is
    # written before it is read, but for the relics' fixed ones (state.alloc_state_script) and
    # the rescue values, which PL_RESCUE_OK = 0 has worked out again
    fv = st.r.fv
    fv[:] = 0.0
    fv[S.V_ACT + T.N_RAVENS : S.V_ACT + T.MAX_CAP] = -np.inf
    fv[S.V_THIEF + T.N_RAVENS : S.V_THIEF + T.MAX_CAP] = T.NEG
    for q in range(P):
        st.r.pl[q, S.PL_RESCUE_OK] = 0
    # the aux scratch rows (the 6's shuffle writes them before it reads them)
    st.aux[S.AUX_TMP, :] = 0
    st.aux[S.AUX_TMP2, :] = 0
    # telemetry (the dataset's only, never read by play): another seat's draws are hidden from
    # the seat and cannot follow the re-deal, so they are forgotten (the world counts its own
    # from here); its face-down thief's count followed the re-deal (_redeal_seat)
    d0 = S.PL_TELE + T.EV_DRAWN * (T.N_RAVENS + tb.r.params[T.P_N_TYPES])
    for q in range(P):
        if q != seat:
            st.r.pl[q, d0 : d0 + T.N_RAVENS + tb.r.params[T.P_N_TYPES]] = 0


@njit(cache=True, _nrt=False, forceinline=False)
def reseed(tb, st, rng):
    """Seed every random stream of ``st`` (ENGINE-14's) again from ``rng``, the searcher's own:
    the same world with fresh chance (determinize's last step; the search's ``redeal_every``)."""
    for i in range(1 + S.n_seats(tb)):
        seed_stream(st.r.rng[i], next_u64(rng), below(rng, 1 << 30), i)
