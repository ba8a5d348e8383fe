"""What a Raven Manor seat may know: its observation vector and the worlds consistent with it.

``observe(tb, st, seat, obs)`` fills ``obs`` (int32[obs_size(tb)]) with everything ``seat`` may
know (RM-11, RM-13, RM-26, RM-29) and nothing else, at the offsets declared below (one
``kit.Offsets`` list; -1 where a value is unknown or absent):

- ``O_HEAD``: players, turns played, the active seat, the first seat, the end (0 playing),
  cards in the deck, in the discard pile, reshuffles so far (G_GEN), the turn cap;
- ``O_PENDING``: the pending decision's kind (-1 none), its seat, the seat it is about, the size
  of its list, its detail (G_SUB), 1 if ``seat`` is the one deciding; then the pick list
  ``O_PICK`` (MAX_PICK cards, -1 past its end) and the reactions ``O_OPTS`` it offers, both only
  for the deciding seat (a Candle's cards are seen by its player alone), the targets' mask
  ``O_MASK`` and the window stack ``O_STACK`` with its level (public: every card of a window is
  played face up);
- ``O_SELF``: the seat's own character, side, possessor's side (-1 none), its hand ``O_HAND``
  (copies per card type) and its Backpack ``O_BP``;
- ``O_SEAT`` + ``N_SEAT_OBS`` * p, for every seat p (players beyond the table: -1): alive,
  character revealed, the character ``seat`` knows it holds (KN_CHAR, -1 unknown), stunned, the
  card lying in front of it (-1), its ring position, hand size, cards in Backpacks, Backpacks,
  Feathers it discarded publicly (RM-13), death turn, cause of death, safe from kills this turn,
  safe from stuns this turn, skips its next turn (the Forest's consent is public), then
  ``seat``'s memory of p: KN_FEATHER, KN_GAVE_F, KN_SEEN and the copies it saw in p's hand
  (KN_HAND), received from p (KN_RECV) and gave p (KN_GAVE), NC each;
- ``O_PUBLIC``: the discard pile, the Rooms and Locations in play, the Barricades, the removed
  cards and the public misses of searches (B_MISS), NC each; the ring (seat at each position).

``determinize(tb, st, seat, rng)`` re-deals, in place, what ``seat`` cannot know, uniformly among
the re-deals that keep what it knows (RM-11, RM-13, RM-26, RM-29):

- the characters it does not know (KN_CHAR < 0; revealed ones are known to everyone) are
  permuted among their seats, possessed seats among possessed seats and the others among the
  others (possession is kept, so that a possessed seat never gets an immune card, RM-22); a
  seat's side follows its new card unless possessed; what third seats knew of a card moves with
  it;
- the cards of the other seats' hands it has not seen (a hand keeps the copies ``seat`` saw in it
  or gave it since, KN_HAND, capped by what it holds; a possessed seat keeps its Feathers, RM-6),
  the other seats' Backpacks and the deck are shuffled together and dealt back in the same sizes
  (so the deck order is new too);
- every random stream of the state (the characters', the deck's and every seat's policy stream)
  is seeded again from ``rng``, the only randomness it uses.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from balance.games import _kit as kit
from balance.games.raven_manor import state as S
from balance.games.raven_manor import tables as T
from balance.rng import below, next_u64

_o = kit.Offsets()
O_HEAD = _o(9)
O_PENDING = _o(6)
O_PICK = _o(S.MAX_PICK)
O_OPTS = _o(S.MAX_REACT)
O_MASK = _o(T.MAXP)
O_STACK = _o(5 * S.MAX_STACK + 1)
O_SELF = _o(3)
O_HAND = _o(T.NC)
O_BP = _o(T.NC)
N_SEAT_OBS = 15 + 3 + 3 * T.NC
O_SEAT = _o(N_SEAT_OBS * T.MAXP)
O_PUBLIC = _o(5 * T.NC + T.MAXP)
N_OBS = _o.end


def obs_size(tb) -> int:
    """The length of ``observe``'s vector (the same for every config)."""
    return N_OBS


@njit(cache=True, _nrt=False, forceinline=False)
def observe(tb, st, seat, obs):
    """Fill ``obs`` with what ``seat`` may know (the module docstring's layout)."""
    bd = st.board
    pl = st.pl
    n = S.n_players(st)
    for i in range(N_OBS):
        obs[i] = -1
    h = O_HEAD
    obs[h] = n
    obs[h + 1] = bd[S.G_TURN]
    obs[h + 2] = bd[S.G_ACTIVE]
    obs[h + 3] = bd[S.G_FIRST]
    obs[h + 4] = bd[S.G_END]
    obs[h + 5] = bd[S.G_DECK_N]
    obs[h + 6] = bd[S.G_DISC_N]
    obs[h + 7] = bd[S.G_GEN]
    obs[h + 8] = tb.params[T.P_TURN_CAP]
    kind = bd[S.G_KIND]
    h = O_PENDING
    if kind >= 0:
        actor = bd[S.G_ACTOR]
        obs[h] = kind
        obs[h + 1] = actor
        obs[h + 2] = bd[S.G_Q]
        obs[h + 3] = bd[S.G_NOPT]
        obs[h + 4] = bd[S.G_SUB]
        obs[h + 5] = 1 if actor == seat else 0
        if actor == seat:
            if S.D_CANDLE_KEEP <= kind <= S.D_DRINK:
                for i in range(bd[S.G_NOPT]):
                    obs[O_PICK + i] = bd[S.B_PICK + i]
            if kind == S.D_REACT or kind == S.D_MOUNTAINS_EVADE:
                m = bd[S.G_NOPT] if kind == S.D_REACT else 1
                for i in range(m):
                    obs[O_OPTS + i] = bd[S.B_OPTS + i]
        if kind >= S.D_KILL_TARGET:
            for q in range(n):
                obs[O_MASK + q] = bd[S.B_MASK + q]
        if kind == S.D_REACT or kind == S.D_MOUNTAINS_EVADE:
            lvl = bd[S.G_WIN_LVL] if kind == S.D_REACT else 1
            for i in range(5 * (lvl + 1)):
                obs[O_STACK + i] = bd[S.B_STACK + i]
            obs[O_STACK + 5 * S.MAX_STACK] = lvl
    obs[O_SELF] = pl[seat, S.PL_CHAR]
    obs[O_SELF + 1] = pl[seat, S.PL_SIDE]
    obs[O_SELF + 2] = pl[seat, S.PL_POSSESSED]
    for c in range(T.NC):
        obs[O_HAND + c] = pl[seat, S.PL_HAND + c]
        obs[O_BP + c] = pl[seat, S.PL_BP + c]
    turn1 = bd[S.G_TURN] + 1
    for p in range(n):
        b = O_SEAT + N_SEAT_OBS * p
        obs[b] = pl[p, S.PL_ALIVE]
        obs[b + 1] = pl[p, S.PL_REVEALED]
        obs[b + 2] = st.kn[seat, p, S.KN_CHAR]
        obs[b + 3] = pl[p, S.PL_STUNNED]
        obs[b + 4] = pl[p, S.PL_STUN_CARD]
        obs[b + 5] = pl[p, S.PL_POS]
        obs[b + 6] = pl[p, S.PL_HAND_N]
        obs[b + 7] = pl[p, S.PL_BP_N]
        obs[b + 8] = pl[p, S.PL_BACKPACKS]
        obs[b + 9] = pl[p, S.PL_FEATHER_DISC]
        obs[b + 10] = pl[p, S.PL_DEATH_TURN]
        obs[b + 11] = pl[p, S.PL_CAUSE]
        obs[b + 12] = 1 if pl[p, S.PL_SAFE_KILL] == turn1 else 0
        obs[b + 13] = 1 if pl[p, S.PL_SAFE_STUN] == turn1 else 0
        obs[b + 14] = pl[p, S.PL_SKIP]
        obs[b + 15] = st.kn[seat, p, S.KN_FEATHER]
        obs[b + 16] = st.kn[seat, p, S.KN_GAVE_F]
        obs[b + 17] = st.kn[seat, p, S.KN_SEEN]
        for c in range(T.NC):
            obs[b + 18 + c] = st.kn[seat, p, S.KN_HAND + c]
            obs[b + 18 + T.NC + c] = st.kn[seat, p, S.KN_RECV + c]
            obs[b + 18 + 2 * T.NC + c] = st.kn[seat, p, S.KN_GAVE + c]
    h = O_PUBLIC
    for c in range(T.NC):
        obs[h + c] = bd[S.B_DISC + c]
        obs[h + T.NC + c] = bd[S.B_INPLAY + c]
        obs[h + 2 * T.NC + c] = bd[S.B_BARR + c]
        obs[h + 3 * T.NC + c] = bd[S.B_REMOVED + c]
        obs[h + 4 * T.NC + c] = bd[S.B_MISS + c]
    for i in range(n):
        obs[h + 5 * T.NC + i] = bd[S.B_RING + i]


@njit(cache=True, _nrt=False, forceinline=False)
def _permute_chars(st, seat, possessed, rng, idx):
    """Permute the characters ``seat`` does not know among the seats of one group (possessed or
    not), uniformly (Fisher-Yates on ``rng``)."""
    n = S.n_players(st)
    k = np.int64(0)
    for p in range(n):
        if p == seat or st.kn[seat, p, S.KN_CHAR] >= 0 or st.pl[p, S.PL_REVEALED] != 0:
            continue
        if (st.pl[p, S.PL_POSSESSED] >= 0) != possessed:
            continue
        idx[k] = p
        k += 1
    if k < 2:
        return
    # chars[i] := (char, dealt) of idx[perm[i]]
    for i in range(k):
        idx[T.MAXP + i] = st.pl[idx[i], S.PL_CHAR]
        idx[2 * T.MAXP + i] = st.pl[idx[i], S.PL_DEALT]
        idx[3 * T.MAXP + i] = i
    for i in range(k - 1, 0, -1):
        j = below(rng, i + 1)
        t = idx[3 * T.MAXP + i]
        idx[3 * T.MAXP + i] = idx[3 * T.MAXP + j]
        idx[3 * T.MAXP + j] = t
    # what third seats knew of each card moves with it
    for i in range(k):
        src = idx[idx[3 * T.MAXP + i]]
        for x in range(n):
            idx[4 * T.MAXP + i * T.MAXP + x] = st.kn[x, src, S.KN_CHAR]
    for i in range(k):
        p = idx[i]
        src_i = idx[3 * T.MAXP + i]
        ch = idx[T.MAXP + src_i]
        st.pl[p, S.PL_CHAR] = ch
        st.pl[p, S.PL_DEALT] = idx[2 * T.MAXP + src_i]
        if st.pl[p, S.PL_POSSESSED] < 0:
            st.pl[p, S.PL_SIDE] = S.own_side(ch)
        for x in range(n):
            if x != seat and x != p:
                st.kn[x, p, S.KN_CHAR] = idx[4 * T.MAXP + i * T.MAXP + x]
        st.kn[p, p, S.KN_CHAR] = ch


@njit(cache=True, _nrt=False, forceinline=False)
def _u64(rng):
    return next_u64(rng)


@njit(cache=True, forceinline=False)
def determinize(tb, st, seat, rng):
    """Re-deal, in place, everything ``seat`` cannot know (the module docstring); every random
    stream is seeded again from ``rng`` (uint64[1])."""
    n = S.n_players(st)
    idx = np.zeros(4 * T.MAXP + T.MAXP * T.MAXP, np.int64)
    _permute_chars(st, seat, True, rng, idx)
    _permute_chars(st, seat, False, rng, idx)
    # the hidden cards: others' unseen hand cards, their Backpacks, the deck
    keep = np.zeros((T.MAXP, T.NC), np.int64)
    pool = np.zeros(st.deck.shape[0] + T.MAXP * 2 * 64 + 64, np.int64)
    m = np.int64(0)
    for p in range(n):
        if p == seat:
            continue
        for c in range(T.NC):
            h = st.pl[p, S.PL_HAND + c]
            seen = st.kn[seat, p, S.KN_HAND + c]
            k = min(h, seen) if seen > 0 else 0
            if c == T.FEATHER and S.keeps_feathers(st, p):  # RM-6: it holds them
                k = h
            keep[p, c] = k
            for _ in range(h - k):
                pool[m] = c
                m += 1
            for _ in range(st.pl[p, S.PL_BP + c]):
                pool[m] = c
                m += 1
    for i in range(st.board[S.G_DECK_N]):
        pool[m] = st.deck[i]
        m += 1
    kit.shuffle(pool, m, rng)
    j = np.int64(0)
    for p in range(n):
        if p == seat:
            continue
        for c in range(T.NC):
            st.pl[p, S.PL_HAND + c] = keep[p, c]
        for _ in range(st.pl[p, S.PL_HAND_N] - keep[p].sum()):
            st.pl[p, S.PL_HAND + pool[j]] += 1
            j += 1
        for c in range(T.NC):
            st.pl[p, S.PL_BP + c] = 0
        for _ in range(st.pl[p, S.PL_BP_N]):
            st.pl[p, S.PL_BP + pool[j]] += 1
            j += 1
    for i in range(st.board[S.G_DECK_N]):
        st.deck[i] = pool[j]
        j += 1
    reseed(tb, st, rng)


@njit(cache=True, _nrt=False, forceinline=False)
def reseed(tb, st, rng):
    """Seed every random stream of ``st`` again from ``rng``, the searcher's own: the same world
    with fresh chance (determinize's last step; the search's ``redeal_every``)."""
    for s in range(st.rng.shape[0]):
        st.rng[s, 0] = _u64(rng) | np.uint64(1)
