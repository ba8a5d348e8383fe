"""What a seat of The Raven Order may know: its observation vector and the re-deal of the rest.

Everything on the table is public (RO-1..RO-10: buildings and their runes, units with their runes
and timings, gold, workers, runes in play, the size of each hand and of the deck, the war's
attackers, blocks and battles); the opponent's rune hand and the order of the deck are not (the
policies' docstring; no ruling makes any of it public). A seat knows its own hand. A rune leaves the
opponent's hand only by being played, face up, so the seat's knowledge of the opponent's hand is
exactly: how many runes it holds, drawn from the runes it has not seen (the deck plus that hand).
The one exception is a rune the opponent has chosen to play and is placing (a pending
``rune_host`` decision of the opponent): it is announced, so it stays in that hand.

``observe(tb, st, seat, obs)`` fills ``obs`` (int32[obs_size(tb)]) with, at these offsets
(``kit.Offsets``, in this order; every value is a small non-negative int or -1):

- O_SEAT: the observing seat; O_PKIND, O_PACTOR: the pending decision's kind (state.D_*) and
  seat, -1 none; O_TURN, O_ACTIVE, O_FIRST; O_END (state.END_*) and O_WINNER (-1 while the game
  goes on, or for a draw); O_DECK_N: runes left in the deck; O_PHASE (state.PH_*).
- O_CONT: the continuation's public scalars, CONT_FIELDS in order (attackers, point indices, the
  rune or type being placed, a kill before the battles with its victim as a target code, riders,
  workers left to block, the battle in progress).
- O_SEATS: per seat (seat 0 then 1), SEAT_OBS wide: gold, workers, unit rows, builds left,
  buildings, academies, runes in hand (the count), actions taken; then per building: standing (0/1)
  and its rune (-1 none); then per rune the copies in play; then per unit type the living units.
- O_HAND: per rune, the copies in the observing seat's own hand.
- O_UNITS: per seat, per unit row (state.CAPU rows), UNIT_OBS wide: type, rune, 1 if it became a
  rider this turn (RO-5), 0 / 1 attacked this turn / 2 attacked last turn, 1 if Corruption took it
  this turn, state.DEAD / KILLED or 0; -1 for rows not in use.
- O_WAR: rows of CAPU: the attackers' unit rows, their powers as the defender sees them, Canine's
  bonus, workers blocking each, 1 if unengaged; the attacker each defender row blocks (-1); the
  battle's blockers, their powers and the attacker's kills so far. Entries past their count are -1.

``determinize(tb, st, seat, rng)`` re-deals, in place, what ``seat`` cannot know: the runes it
has not seen (the deck and the opponent's hand, less an announced rune) are shuffled together with
``rng`` (a uint64[1] balance.rng stream, the only randomness used), the opponent gets back as many
as it held and the deck the rest in the shuffled order, so every split and order consistent with
the seat's knowledge is equally likely; the opponent's drawn-rune telemetry follows its new hand
(drawn = played + in hand). The re-deal is canonical: the unseen runes are pooled by their counts
in rune order before the shuffle, and what the state keeps of earlier hidden choices (policy
scratch, plans no longer pending) is cleared, so the result depends only on what the seat knows
and on ``rng``, and any consistent re-deal of a state re-deals to the same world. Every random
stream of the state (the game's and both policies') is then re-seeded from ``rng``, so a search
never reads or draws the game's own streams.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from balance.games import _kit as kit
from balance.games.raven_order import engine as E
from balance.games.raven_order import policies as pol
from balance.games.raven_order import state as S
from balance.games.raven_order import tables as T
from balance.rng import next_u64

CAPU = S.CAPU
# The continuation's public scalars (board offsets), in O_CONT's order.
CONT_FIELDS = (
    S.G_NATK,
    S.G_I,
    S.G_A,
    S.G_K,
    S.G_ARG,
    S.G_KILLER,
    S.G_VICTIM,  # as a target code: a unit row, or state.TG_WORKER
    S.G_SRC,
    S.G_RIDERS,
    S.G_WLEFT,
    S.G_BN,
    S.G_BA,
    S.G_BWK,
    S.G_BDIES,
    S.G_BLEFT,
)
N_CONT = len(CONT_FIELDS)
_CONT = np.array(CONT_FIELDS, np.int64)
I_VICTIM = CONT_FIELDS.index(S.G_VICTIM)

# per seat: scalars, then per building (standing, rune), per rune in play, per unit type
_sp = kit.Offsets()
SO_GOLD = _sp(1)
SO_WORKERS = _sp(1)
SO_NU = _sp(1)
SO_BUILDS = _sp(1)
SO_NBLD = _sp(1)
SO_ACAD = _sp(1)
SO_HAND_N = _sp(1)
SO_ACTIONS = _sp(1)
SO_BUILT = _sp(T.NB)
SO_BRUNE = _sp(T.NB)
SO_INPLAY = _sp(T.NR)
SO_CNT = _sp(T.NU)
SEAT_OBS = _sp.end
UNIT_OBS = 6  # type, rune, fresh, tired, noatk, dead
# war rows (each CAPU wide)
(W_ATK, W_APOW, W_BONUS, W_AWK, W_FREE, W_BLK, W_GROUP, W_GPOW, W_KILL) = range(9)
N_WAR = 9

_o = kit.Offsets()
O_SEAT = _o(1)
O_PKIND = _o(1)
O_PACTOR = _o(1)
O_TURN = _o(1)
O_ACTIVE = _o(1)
O_FIRST = _o(1)
O_END = _o(1)
O_WINNER = _o(1)
O_DECK_N = _o(1)
O_PHASE = _o(1)
O_CONT = _o(N_CONT)
O_SEATS = _o(2 * SEAT_OBS)
O_HAND = _o(T.NR)
O_UNITS = _o(2 * CAPU * UNIT_OBS)
O_WAR = _o(N_WAR * CAPU)
N_OBS = _o.end


def obs_size(tb) -> int:
    """The length of the observation vector (the same for every config)."""
    return N_OBS


@njit(cache=True, _nrt=False, forceinline=False)
def deck_left(st):
    """Runes left in the deck."""
    n = 0
    for i in range(st.board[S.G_DECK_TOP], st.board.shape[0] - S.B_DECK):
        if st.board[S.B_DECK + i] >= 0:
            n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def observe(tb, st, seat, obs):
    """Fill ``obs`` with everything ``seat`` may know (the module docstring's layout)."""
    b = st.board
    turn = b[S.G_TURN]
    obs[O_SEAT] = seat
    obs[O_PKIND] = b[S.G_PKIND]
    obs[O_PACTOR] = b[S.G_PACTOR]
    obs[O_TURN] = turn
    obs[O_ACTIVE] = b[S.G_ACTIVE]
    obs[O_FIRST] = b[S.G_FIRST]
    obs[O_END] = b[S.G_END]
    obs[O_WINNER] = b[S.G_WINNER] if b[S.G_END] == S.END_DESTRUCTION else -1
    obs[O_DECK_N] = deck_left(st)
    obs[O_PHASE] = b[S.G_PHASE]
    for k in range(N_CONT):
        obs[O_CONT + k] = b[_CONT[k]]
    if b[S.G_VICTIM] == -2:
        obs[O_CONT + I_VICTIM] = S.TG_WORKER
    for p in range(2):
        o = O_SEATS + p * SEAT_OBS
        obs[o + SO_GOLD] = st.pl[p, S.PL_GOLD]
        obs[o + SO_WORKERS] = st.pl[p, S.PL_WORKERS]
        obs[o + SO_NU] = st.pl[p, S.PL_NU]
        obs[o + SO_BUILDS] = st.pl[p, S.PL_BUILDS]
        obs[o + SO_NBLD] = st.pl[p, S.PL_NBLD]
        obs[o + SO_ACAD] = st.pl[p, S.PL_ACAD]
        obs[o + SO_HAND_N] = st.pl[p, S.PL_HAND_N]
        obs[o + SO_ACTIONS] = st.pl[p, S.PL_ACTIONS]
        for x in range(T.NB):
            obs[o + SO_BUILT + x] = st.pl[p, S.PL_BUILT + x]
            obs[o + SO_BRUNE + x] = st.pl[p, S.PL_BRUNE + x] if st.pl[p, S.PL_BUILT + x] else -1
        for r in range(T.NR):
            obs[o + SO_INPLAY + r] = st.pl[p, S.PL_INPLAY + r]
        for t in range(T.NU):
            obs[o + SO_CNT + t] = st.pl[p, S.PL_CNT + t]
        for i in range(CAPU):
            u = O_UNITS + (p * CAPU + i) * UNIT_OBS
            if i >= st.pl[p, S.PL_NU]:
                for f in range(UNIT_OBS):
                    obs[u + f] = -1
                continue
            obs[u] = st.units[p, i, S.U_TYPE]
            obs[u + 1] = st.units[p, i, S.U_RUNE]
            obs[u + 2] = 1 if st.units[p, i, S.U_FRESH] == turn else 0
            tired = st.units[p, i, S.U_TIRED]
            obs[u + 3] = 1 if tired == turn else (2 if tired == turn - 1 else 0)
            obs[u + 4] = 1 if st.units[p, i, S.U_NOATK] == turn else 0
            obs[u + 5] = st.units[p, i, S.U_DEAD]
    for r in range(T.NR):
        obs[O_HAND + r] = st.pl[seat, S.PL_HAND + r]
    natk = b[S.G_NATK]
    q = 1 - b[S.G_ACTIVE]
    bn = b[S.G_BN]
    for j in range(CAPU):
        w = O_WAR + j
        if j < natk:
            obs[w + W_ATK * CAPU] = st.aux[S.A_ATK, j]
            obs[w + W_APOW * CAPU] = st.aux[S.A_APOW, j]
            obs[w + W_BONUS * CAPU] = st.aux[S.A_BONUS, j]
            obs[w + W_AWK * CAPU] = st.aux[S.A_AWK, j]
            obs[w + W_FREE * CAPU] = st.aux[S.A_FREE, j]
        else:
            for row in range(W_BLK):
                obs[w + row * CAPU] = -1
        obs[w + W_BLK * CAPU] = st.aux[S.A_BLK, j] if natk > 0 and j < st.pl[q, S.PL_NU] else -1
        if j < bn:
            obs[w + W_GROUP * CAPU] = st.aux[S.A_GROUP, j]
            obs[w + W_GPOW * CAPU] = st.aux[S.A_GPOW, j]
            obs[w + W_KILL * CAPU] = st.aux[S.A_KILL, j] if j < b[S.G_K] else -1
        else:
            obs[w + W_GROUP * CAPU] = -1
            obs[w + W_GPOW * CAPU] = -1
            obs[w + W_KILL * CAPU] = -1


@njit(cache=True, forceinline=False)
def determinize(tb, st, seat, rng):
    """Re-deal what ``seat`` cannot know and re-seed every stream from ``rng`` (module docstring).

    Canonical: the result is a function of what ``seat`` knows and of ``rng`` only, never of how
    the hidden runes truly lie, so every consistent re-deal of a state re-deals to the same world
    (a search's root is the same from any of them: tests/games/test_search.py). The pool is built
    from per-rune counts, in rune order, before the shuffle (never in the true deck order), and
    the state's leftovers of hidden choices are cleared (``_forget``)."""
    o = 1 - seat
    b = st.board
    top = b[S.G_DECK_TOP]
    size = b.shape[0] - S.B_DECK
    fixed = -1  # an announced rune (the opponent is placing it) stays in its hand
    if b[S.G_PKIND] == S.D_RUNE_HOST and b[S.G_PACTOR] == o:
        fixed = b[S.G_ARG]
    unseen = np.zeros(T.NR, np.int32)  # per rune: copies in the deck or the opponent's hand
    n_deck = 0
    for i in range(top, size):
        r = b[S.B_DECK + i]
        if r >= 0:
            unseen[r] += 1
            n_deck += 1
    old = np.zeros(T.NR, np.int32)
    for r in range(T.NR):
        c = st.pl[o, S.PL_HAND + r]
        old[r] = c
        unseen[r] += c - 1 if r == fixed else c
        st.pl[o, S.PL_HAND + r] = 0
    pool = np.empty(n_deck + st.pl[o, S.PL_HAND_N] + 1, np.int32)
    n = 0
    for r in range(T.NR):  # rune order: the same pool for every consistent re-deal
        for _ in range(unseen[r]):
            pool[n] = r
            n += 1
    h = n - n_deck
    kit.shuffle(pool, n, rng)
    if fixed >= 0:
        st.pl[o, S.PL_HAND + fixed] = 1
    for k in range(h):
        st.pl[o, S.PL_HAND + pool[k]] += 1
    for k in range(n_deck):
        b[S.B_DECK + top + k] = pool[h + k]
    for r in range(T.NR):  # drawn = played + in hand
        st.pl[o, S.PL_TELE + T.TE_DRAWN + r] += st.pl[o, S.PL_HAND + r] - old[r]
    S.sync_held(st, o)
    _forget(st)
    reseed(tb, st, rng)


@njit(cache=True, _nrt=False, forceinline=False)
def _forget(st):
    """Clear what the state keeps of choices no rule and no policy reads again, since some of it
    was drawn from hidden things (a random policy lists its options, runes of its hand among
    them, in the A_TMP rows, and leaves one such row's entry in G_PLAN_ARG after an action that
    takes none). Clearing changes nothing a game does:

    - A_TMP: policy scratch, filled within one ``policies.choose``; the random policy's action
      reads a stale entry only into the part of an action that the action does not use (the
      host of a build, a sale or the end), which lands in G_PLAN_ARG (below);
    - the plans (A_PATK; A_PBLK and A_PAWK; A_PKILL; G_PLAN): a compound choice is planned at its
      first point, after the engine clears G_PLAN (PH_WAR, PH_APOW, each battle's start), and
      planning writes every entry it reads; only the plan of the compound choice now pending is
      kept (G_PLAN set and the pending kind its own). That plan is the deciding seat's: the
      search re-deals only for it;
    - G_PLAN_ARG when G_PLAN_ACT is not a training or a rune (``policies._sub_action`` reads it
      only after one); G_PLAN_ACT itself is the action last chosen by a policy and played, face
      up, so it stays."""
    b = st.board
    kind = b[S.G_PKIND]
    live = b[S.G_PLAN] != 0
    keep_atk = live and kind == S.D_ATTACK
    keep_blk = live and (kind == S.D_BLOCK or kind == S.D_WORKER_BLOCK)
    keep_kill = live and kind == S.D_KILL
    if not (keep_atk or keep_blk or keep_kill):
        b[S.G_PLAN] = 0
    w = st.aux.shape[1]
    for j in range(w):
        for t in range(3):
            st.aux[S.A_TMP + t, j] = 0
        if not keep_atk:
            st.aux[S.A_PATK, j] = 0
        if not keep_blk:
            st.aux[S.A_PBLK, j] = 0
            st.aux[S.A_PAWK, j] = 0
        if not keep_kill:
            st.aux[S.A_PKILL, j] = 0
    act = b[S.G_PLAN_ACT]
    if not (S.AC_TRAIN <= act < S.AC_SELL or act >= S.AC_RUNE):
        b[S.G_PLAN_ARG] = -1


@njit(cache=True, forceinline=False)
def probe(tb, seed, first_game, n_games, every, rng, min_cap):
    """For tests: play games through the decision points and, at every ``every``-th decision,
    determinize a copy of the state for each seat and compare what that seat observes and the
    legal options before and after. Returns (states checked, observations that differ, legal
    lists that differ, copies whose game stream was not re-seeded)."""
    st = S.alloc_state(tb, min_cap)
    cp = S.alloc_state(tb, min_cap)
    work = S.alloc_work(tb)
    oa = np.zeros(N_OBS, np.int32)
    ob = np.zeros(N_OBS, np.int32)
    la = np.zeros(S.MAX_OPTIONS, np.int64)
    lb = np.zeros(S.MAX_OPTIONS, np.int64)
    checked = 0
    bad_obs = 0
    bad_legal = 0
    same_rng = 0
    k = 0
    for g in range(first_game, first_game + n_games):
        E.start(tb, st, seed, g, work)
        while E.advance(tb, st, work) >= 0:
            if k % every == 0:
                for seat in range(2):
                    S.copy_state(st, cp)
                    observe(tb, st, seat, oa)
                    na = E.legal(tb, st, work, la)
                    determinize(tb, cp, seat, rng)
                    observe(tb, cp, seat, ob)
                    nb = E.legal(tb, cp, work, lb)
                    checked += 1
                    for x in range(N_OBS):
                        if oa[x] != ob[x]:
                            bad_obs += 1
                            break
                    if seat != st.board[S.G_PACTOR]:
                        pass  # the options of the other seat's decision may depend on its hand
                    elif na != nb:
                        bad_legal += 1
                    else:
                        for x in range(na):
                            if la[x] != lb[x]:
                                bad_legal += 1
                                break
                    if cp.rng[0, 0] == st.rng[0, 0]:
                        same_rng += 1
            k += 1
            E.apply(tb, st, work, pol.choose(tb, st, work))
    return checked, bad_obs, bad_legal, same_rng


@njit(cache=True, _nrt=False, forceinline=False)
def reseed(tb, st, rng):
    """Seed every random stream of ``st`` again from ``rng``, the searcher's own: the same world
    with fresh chance (determinize's last step; the search's ``redeal_every``)."""
    for s in range(st.rng.shape[0]):
        z = next_u64(rng)
        if z == np.uint64(0):
            z = np.uint64(0x9E3779B97F4A7C15)
        st.rng[s, 0] = z
