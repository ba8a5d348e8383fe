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
  (KN_HAND), received from p (KN_RECV) and gave p (KN_GAVE), NC each; then the claims p made at
  the table (PL_SAID, ENGINE-15: public);
- ``O_PUBLIC``: the discard pile, the Rooms and Locations in play, the Barricades, the removed
  cards and the public misses of searches (B_MISS), NC each; the ring (seat at each position).

``determinize(tb, st, seat, rng)`` re-deals, in place, what ``seat`` cannot know (RM-2, RM-6,
RM-9, RM-11, RM-13, RM-16, RM-22, RM-26, RM-29), as a function of what it knows and of ``rng``
alone (canonical: the true state and any re-deal of it re-deal alike; every pool is built in
the pool's or the card types' order, no true order or place is read):

- the characters it does not know (KN_CHAR < 0; revealed ones are known to everyone): the
  always-dealt characters it does not know and characters of the pool it does not know, drawn
  uniformly (which characters are in the game is hidden too, RM-2), dealt to those seats; a
  deal that would have ended the game (no living evil character, Cthulhu alone: RM-22) is
  drawn again;
- the cards of the other seats' hands, their Backpacks and the deck, counted per type and dealt
  again in the same sizes: a hand keeps the copies ``seat`` saw in it or gave it since
  (KN_HAND), as far as the hidden cards and its size allow; a card type a search of the deck
  missed since the last reshuffle (B_MISS, RM-9) is dealt outside the deck; the deck's order is
  new;
- possession (RM-6, RM-22), except ``seat``'s own: another seat is possessed when it holds a
  Feather in the re-dealt world, its card is not immune and a possessor lives (the possessor
  ``seat`` is, if it gave that seat the Feather; by a coin when the Raven and the Horseman both
  live), and a possessor never has won already (the game goes on, which is public);
- what the other seats know (``kn[x]``, hidden from ``seat``): rebuilt from the re-dealt world
  (own character, revealed ones, its possessor's when possessed) and the mirror of ``seat``'s
  memory of them (what they exchanged); the rest of their memories is forgotten, and their
  policy memo (PL_KE) recomputed, their telemetry cleared;
- the first side's chosen card of an exchange while the second chooses (RM-16), chosen again
  from the re-dealt hand;
- every random stream of the state (the characters', the deck's and every seat's policy stream)
  is seeded again from ``rng`` (``reseed``), the only randomness it uses;
- for a seat that keeps beliefs (beliefs.py), the characters, hands and possession are drawn
  again until a world passes its soft evidence (``belief_weight``: rejection sampling, at most
  ``MAX_BELIEF_TRIES`` worlds), so that the worlds follow its belief, not the deal alone.

Kept as they are: everything public and ``seat``'s own; for a seat that is not the one deciding,
the cards of another seat's pending pick (a Candle's) and the procedures' registers but the
exchange's; the event log (no rule reads it).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from balance.games import _kit as kit
from balance.games.raven_manor import beliefs as B
from balance.games.raven_manor import policies as P
from balance.games.raven_manor import state as S
from balance.games.raven_manor import tables as T
from balance.rng import below, next_u64, uniform

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
N_SEAT_OBS = 15 + 3 + 3 * T.NC + 1
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
        obs[b + 18 + 3 * T.NC] = pl[p, S.PL_SAID]
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
def _hidden_char(st, seat, p):
    """Is ``p``'s character card hidden from ``seat``? (RM-11: its own, the revealed ones and the
    ones it looked at or learned by possession are known, ``kn[seat, p, KN_CHAR]``.)"""
    return p != seat and st.pl[p, S.PL_REVEALED] == 0 and st.kn[seat, p, S.KN_CHAR] < 0


@njit(cache=True, _nrt=False, forceinline=False)
def _over(st):
    """Would the game be over in this world by (a) no living evil character or (c) Cthulhu alone
    (RM-10, RM-22)? A re-deal is consistent only with a game still being played, which is public."""
    evil_alive = 0
    living = 0
    last = -1
    for p in range(S.n_players(st)):
        if S.alive(st, p):
            living += 1
            last = p
            if S.evil(st.pl[p, S.PL_CHAR]):
                evil_alive += 1
    return evil_alive == 0 or (living == 1 and st.pl[last, S.PL_CHAR] == T.CTHULHU)


@njit(cache=True, forceinline=False)
def _deal_chars(tb, st, seat, rng, buf):
    """RM-2, RM-11: deal the hidden seats (``_hidden_char``) characters afresh: the always-dealt
    characters ``seat`` does not know are among them, the other hidden seats get characters of
    the pool it does not know, drawn uniformly (which characters are in the game is hidden too,
    not only where they sit). Lists are built in the pool's order, so the deal depends only on
    what ``seat`` knows and on ``rng``. Returns False when this deal ends the game (rejected)."""
    n = S.n_players(st)
    u = np.int64(0)  # buf[0:MAXP]: the hidden seats, in seat order
    for p in range(n):
        if _hidden_char(st, seat, p):
            buf[u] = p
            u += 1
    if u == 0:
        return True
    m = np.int64(0)  # buf[MAXP:2 MAXP]: the characters dealt, must ones first
    o = np.int64(0)  # buf[2 MAXP:]: the optional candidates
    n_pool = tb.params[T.P_POOL_N]
    for i in range(n_pool):
        ch = tb.params[T.P_POOL + i]
        known = False
        for p in range(n):
            if not _hidden_char(st, seat, p) and S.known_char(st, seat, p) == ch:
                known = True
        if known:
            continue
        if i < tb.params[T.P_ALWAYS_N] and m < u:
            buf[T.MAXP + m] = ch
            m += 1
        else:
            buf[2 * T.MAXP + o] = ch
            o += 1
    kit.shuffle(buf[2 * T.MAXP :], o, rng)
    k = m
    for i in range(min(u - m, o)):
        buf[T.MAXP + k] = buf[2 * T.MAXP + i]
        k += 1
    kit.shuffle(buf[T.MAXP :], k, rng)
    for i in range(u):
        p = buf[i]
        ch = buf[T.MAXP + i] if i < k else st.pl[p, S.PL_CHAR]  # (a pool too small: kept)
        st.pl[p, S.PL_CHAR] = ch
        st.pl[p, S.PL_DEALT] = ch
    return not _over(st)


@njit(cache=True, forceinline=False)
def _deal_cards(tb, st, seat, rng, cnt, keep, pool):
    """RM-11, RM-9: the other seats' hand cards ``seat`` has not seen, their Backpacks and the
    deck, dealt afresh from the multiset of those cards (counted per type: no true order is
    read). A hand keeps the copies ``seat`` saw in it or gave it since (``KN_HAND``), as far as
    the hidden cards and the hand's size allow (in seat, then card order); a card type that a
    search of the deck missed since the last reshuffle (B_MISS, public) is not in the deck."""
    n = S.n_players(st)
    for c in range(T.NC):
        cnt[c] = 0
    for p in range(n):
        if p == seat:
            continue
        for c in range(T.NC):
            cnt[c] += st.pl[p, S.PL_HAND + c] + st.pl[p, S.PL_BP + c]
    deck_n = st.board[S.G_DECK_N]
    for i in range(deck_n):
        cnt[st.deck[i]] += 1
    slots = np.int64(0)
    for p in range(n):
        room = st.pl[p, S.PL_HAND_N]
        for c in range(T.NC):
            keep[p, c] = 0
            if p == seat:
                continue
            k = min(max(st.kn[seat, p, S.KN_HAND + c], 0), cnt[c], room)
            keep[p, c] = k
            cnt[c] -= k
            room -= k
        if p != seat:
            slots += room + st.pl[p, S.PL_BP_N]
    # pool[0:mm]: the missed types (they cannot be in the deck); pool[mm:mm+r]: the rest
    gen1 = st.board[S.G_GEN] + 1
    mm = np.int64(0)
    for c in range(T.NC):
        if st.board[S.B_MISS + c] == gen1:
            for _ in range(cnt[c]):
                if mm < slots:
                    pool[mm] = c
                    mm += 1
    r = np.int64(0)
    base = mm
    for c in range(T.NC):
        extra = cnt[c]
        if st.board[S.B_MISS + c] == gen1:
            extra = 0
            for i in range(mm):
                if pool[i] == c:
                    extra -= 1
            extra += cnt[c]  # copies beyond the hands' room (inconsistent worlds only)
        for _ in range(extra):
            pool[base + r] = c
            r += 1
    kit.shuffle(pool[base:], r, rng)  # the rest: the first ones join the missed in the hands
    kit.shuffle(pool, slots, rng)
    j = np.int64(0)
    for p in range(n):
        if p == seat:
            continue
        for c in range(T.NC):
            st.pl[p, S.PL_HAND + c] = keep[p, c]
            st.pl[p, S.PL_BP + c] = 0
        for _ in range(st.pl[p, S.PL_HAND_N] - keep[p].sum()):
            st.pl[p, S.PL_HAND + pool[j]] += 1
            j += 1
        for _ in range(st.pl[p, S.PL_BP_N]):
            st.pl[p, S.PL_BP + pool[j]] += 1
            j += 1
    for i in range(deck_n):
        st.deck[i] = pool[j]
        j += 1


@njit(cache=True, _nrt=False, forceinline=False)
def _deal_possession(st, seat, rng):
    """RM-6, RM-11, RM-22: who is possessed, by whom, re-dealt from the re-dealt world (only
    ``seat``'s own status is known to it): a seat holding a Feather is possessed when its card
    is not immune and a possessor lives (the Raven's or the Horseman's side, by a coin when both
    live; the possessor's when ``seat`` is that possessor and gave it the Feather); no other seat
    is. A possessor that would have won already (RM-22 (b): the game is not over, which is
    public) loses its last possessed seats."""
    n = S.n_players(st)
    lr = S.living_possessor(st, np.int64(T.S_RAVEN))
    lh = S.living_possessor(st, np.int64(T.S_HORSEMAN))
    for p in range(n):
        if p == seat:
            continue
        ch = st.pl[p, S.PL_CHAR]
        side = np.int64(-1)
        if not S.immune(ch) and st.pl[p, S.PL_HAND + T.FEATHER] > 0:
            if (seat == lr or seat == lh) and st.kn[seat, p, S.KN_GAVE + T.FEATHER] > 0:
                side = S.own_side(st.pl[seat, S.PL_CHAR])
            elif lr >= 0 and lh >= 0:
                side = T.S_RAVEN if below(rng, 2) == 0 else T.S_HORSEMAN
            elif lr >= 0:
                side = T.S_RAVEN
            elif lh >= 0:
                side = T.S_HORSEMAN
        st.pl[p, S.PL_POSSESSED] = side
        st.pl[p, S.PL_SIDE] = side if side >= 0 else S.own_side(ch)
        st.pl[p, S.PL_POSS_TURN] = st.board[S.G_TURN] if side >= 0 else -1
    for x in range(n):  # RM-22 (b): no possessor has won yet
        ch = st.pl[x, S.PL_CHAR]
        if not (S.alive(st, x) and S.possessor(ch)):
            continue
        side = S.own_side(ch)
        while True:
            won = True
            for q in range(n):
                if q != x and S.alive(st, q):
                    if st.pl[q, S.PL_SIDE] != side or S.immune(st.pl[q, S.PL_CHAR]):
                        won = False
            if not won:
                break
            freed = False
            for q in range(n - 1, -1, -1):
                if q != seat and q != x and S.alive(st, q) and st.pl[q, S.PL_POSSESSED] == side:
                    st.pl[q, S.PL_POSSESSED] = -1
                    st.pl[q, S.PL_SIDE] = S.own_side(st.pl[q, S.PL_CHAR])
                    st.pl[q, S.PL_POSS_TURN] = -1
                    freed = True
                    break
            if not freed:
                break


@njit(cache=True, _nrt=False, forceinline=False)
def _rebuild_knowledge(st, seat):
    """RM-11: what the other seats know, re-derived from the re-dealt world and what ``seat``
    knows of it (their true memories are hidden from it): each knows its own character, the
    revealed ones and, possessed, its possessor's (RM-6); of ``seat``, the cards it received
    from and gave it (the mirror of ``seat``'s own memory: it holds what ``seat`` got from it),
    and a Feather ``seat`` gave it. Everything else they saw (looks, shown hands, other
    exchanges) is forgotten: ``seat`` cannot tell what they saw. The policies' memo of known
    enemies (PL_KE) follows, and other seats' telemetry (read by no rule) is cleared."""
    n = S.n_players(st)
    for x in range(n):
        if x == seat:
            continue
        for p in range(T.MAXP):
            for f in range(S.N_KN):
                st.kn[x, p, f] = 0
            st.kn[x, p, S.KN_CHAR] = -1
        st.kn[x, x, S.KN_CHAR] = st.pl[x, S.PL_CHAR]
        for p in range(n):
            if st.pl[p, S.PL_REVEALED] != 0:
                st.kn[x, p, S.KN_CHAR] = st.pl[p, S.PL_CHAR]
        side = st.pl[x, S.PL_POSSESSED]
        if side >= 0:
            q = S.living_possessor(st, side)
            if q >= 0:
                st.kn[x, q, S.KN_CHAR] = st.pl[q, S.PL_CHAR]
                st.kn[x, q, S.KN_GAVE_F] = 1
                st.kn[x, q, S.KN_FEATHER] = 1
        for c in range(T.NC):
            st.kn[x, seat, S.KN_RECV + c] = st.kn[seat, x, S.KN_GAVE + c]
            st.kn[x, seat, S.KN_GAVE + c] = st.kn[seat, x, S.KN_RECV + c]
            st.kn[x, seat, S.KN_HAND + c] = st.kn[seat, x, S.KN_RECV + c]
        if st.kn[seat, x, S.KN_GAVE + T.FEATHER] > 0:
            st.kn[x, seat, S.KN_GAVE_F] = 1
            st.kn[x, seat, S.KN_FEATHER] = 1
        for j in range(T.N_TELE):
            st.pl[x, S.PL_TELE + j] = 0
    for x in range(n):
        if x != seat:
            st.pl[x, S.PL_KE] = P.knows_enemy(st, x)


@njit(cache=True, _nrt=False, forceinline=False)
def _redeal_trade(st, seat, rng):
    """RM-16: at the second D_GIVE of an exchange, the first side's card is chosen but not yet
    seen (G_TRADE_CA); for any seat but that side it is hidden, so it is chosen again, uniformly
    among the cards that side may part with in the re-dealt hand (none: it shows its hand)."""
    bd = st.board
    if bd[S.G_KIND] != S.D_GIVE or bd[S.G_TRADE_PC] != 3 or bd[S.G_ACTOR] != bd[S.G_TRADE_B]:
        return
    a = bd[S.G_TRADE_A]
    if a == seat or bd[S.G_TRADE_CA] < 0:
        return
    m = S.free_cards(st, a)
    if m <= 0:
        bd[S.G_TRADE_CA] = -1
        return
    k = below(rng, m)
    for c in range(T.NC):
        if S.can_part(st, a, c):
            k -= st.pl[a, S.PL_HAND + c]
            if k < 0:
                bd[S.G_TRADE_CA] = c
                return


@njit(cache=True, _nrt=False, forceinline=False)
def _u64(rng):
    return next_u64(rng)


MAX_BELIEF_TRIES = 64  # worlds drawn for one belief-weighted re-deal before the last is kept


@njit(cache=True, _nrt=False, forceinline=False)
def belief_weight(st, seat):
    """The log of ``seat``'s soft evidence (beliefs.py) for the world in ``st``, against the best
    state of each seat (<= 0; 0 when ``seat`` keeps no beliefs): the acceptance of a re-dealt
    world in a belief-weighted re-deal."""
    if st.board[S.G_BELIEFS] == 0 or st.pl[seat, S.PL_REASON] == 0:
        return 0.0
    bel = B.bel(st)
    total = 0.0
    for p in range(S.n_players(st)):
        if p == seat:
            continue
        top = bel[seat, p, S.KN_BEL]
        for s in range(1, B.NB):
            top = max(top, bel[seat, p, S.KN_BEL + s])
        total += bel[seat, p, S.KN_BEL + B.true_state(st, p)] - top
    return total


@njit(cache=True, forceinline=False)
def determinize(tb, st, seat, rng):
    """Re-deal, in place, everything ``seat`` cannot know (the module docstring), as a function
    of what it knows and of ``rng`` (uint64[1]) alone: the same output from the true state and
    from any re-deal of it; every random stream is seeded again from ``rng``.

    A seat that keeps beliefs (a reasoning policy, or a search whose rollouts reason) draws
    worlds from its belief: each re-dealt world (which already respects its hard facts) is kept
    with probability ``exp(belief_weight)``, its soft evidence against the most believed state
    of every seat (rejection sampling: the worlds kept follow the prior of the deal times the
    evidence), the last of ``MAX_BELIEF_TRIES`` kept whatever its weight."""
    buf = np.zeros(3 * T.MAXP + 2 * T.NCH, np.int64)
    cnt = np.zeros(T.NC, np.int64)
    keep = np.zeros((T.MAXP, T.NC), np.int64)
    pool = np.zeros(st.deck.shape[0] + T.MAXP * 2 * 64 + 64, np.int64)
    for attempt in range(MAX_BELIEF_TRIES):
        for _ in range(64):  # RM-22: the game is not over (rejection; ends after 64 tries)
            if _deal_chars(tb, st, seat, rng, buf):
                break
        _deal_cards(tb, st, seat, rng, cnt, keep, pool)
        _deal_possession(st, seat, rng)
        w = belief_weight(st, seat)
        if w >= 0.0 or attempt == MAX_BELIEF_TRIES - 1 or uniform(rng) < np.exp(w):
            break
    _rebuild_knowledge(st, seat)
    _redeal_trade(st, seat, rng)
    reseed(tb, st, rng)


@njit(cache=True, _nrt=False, forceinline=False)
def reseed(tb, st, rng):
    """Seed every random stream of ``st`` again from ``rng``, the searcher's own: the same world
    with fresh chance (determinize's last step; the search's ``redeal_every``)."""
    for s in range(st.rng.shape[0]):
        st.rng[s, 0] = _u64(rng) | np.uint64(1)
