"""Raven Manor beliefs: what each seat believes about every other seat's side, by Bayes' rule.

A seat of a ``reasoning`` policy (policies.py) keeps a belief over the hidden worlds that matter:
which seat holds each evil character of the line-up (the Raven, the Headless Horseman, Cthulhu
Gentleman) and which of the others are possessed, and for whom. Every seat ``p`` is, in a world,
in one of ``NB`` states:

    B_FAM     a Family character, not possessed
    B_POSS_R  a Family character possessed for the Raven's side (RM-6)
    B_POSS_H  a Family character possessed for the Headless Horseman's side
    B_RAVEN   the Raven
    B_HORSE   the Headless Horseman
    B_CTHULHU Cthulhu Gentleman

**The model** (one per observer ``q``; the exact-belief test enumerates it world by world):

- *prior*: each evil character ``e`` of the line-up is in the game with chance ``dealt[e]`` (1 for
  one the config always deals; the share of the pool's random draws otherwise, RM-2), at a seat
  drawn uniformly, never two at one seat; every other seat is possessed for the Raven with chance
  ``pi_r`` (when the Raven is in the game), for the Horseman with chance ``pi_h`` (when he is),
  else a plain Family member. ``pi_r`` and ``pi_h`` grow with the turn: the shares of possessed
  seats in self-play (fitted with the likelihoods);
- *evidence*: a factor ``g[p, s]`` per seat and state, the product of
  - **hard facts** (RM-11, RM-13): ``q``'s own state exactly; a character ``q`` knows (revealed
    at death, looked at, learned by possession) pins ``p`` to that character's states, and an
    immune one (Doc) to the plain Family; a Feather ``q`` saw in ``p``'s hand or received from
    ``p`` makes a plain Family member unlikely (only a Doc, one of the pool's Family characters, or
    a dead possessor's Feather, ``HARD_FEATHER``, explains it), and one received rules out the
    possessed (who cannot give theirs away, RM-6); a Feather ``q``, a possessor, passed to ``p`` makes ``p`` its
    possessed; a Feather ``p`` discarded face up on drawing (RM-13) multiplies the Raven's state
    by the Raven's bluff chance (the fitted bluff rate);
  - **soft evidence**: each public action of ``p`` (a kill, a stun, a look, a swap, an exchange
    offered, a Pillow revealed, ... with its target) multiplies each of ``p``'s states by how
    often a player of that side takes such an action on a target of that relation (its own side
    or another) in self-play (the fitted tables, ``lik``), averaged over ``q``'s belief about the target's
    side at the time, and clipped to a likelihood ratio of at most ``CLIP`` per action. These
    factors accumulate in ``q``'s belief about ``p``, fields ``:NB`` (logs).

The posterior over worlds is the prior times the evidence, and each seat's marginal over its
states is computed exactly from it (:func:`marginals`): with the evil characters placed, the
other seats' states are independent, so the worlds are enumerated placement by placement (``n``
placements for the Raven alone, about ``n ** 3`` for three evil characters) rather than one by
one (``n * 2 ** (n - 1)`` for the Raven alone).

Approximations, said plainly: sides are taken as they are now (an action taken before its
seat was possessed counts as evidence of the side it is on now), the soft evidence of an action is
averaged over the observer's belief about its target at the time (not over the joint), and the
likelihood tables are self-play frequencies, not a model of any one player.

The beliefs live in ``State.kn[q, p, KN_BEL:]`` as float64 bits (:func:`bel`); field ``NB + s``
caches ``q``'s marginals (:func:`refresh`, called when ``q`` decides and at the start of the
game), ``BE_ENEMY`` and ``BE_TRUST`` the policy's reading of them (1.0 or 0.0), which
``policies.enemy`` and ``policies.trusted`` read.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.extending import overload

from balance.games.raven_manor import state as S
from balance.games.raven_manor import tables as T

# A seat's states in a world (module docstring).
B_FAM, B_POSS_R, B_POSS_H, B_RAVEN, B_HORSE, B_CTHULHU = range(6)
NB = 6
# State.bel[q, p, *]: the evidence's logs [0, NB), the marginals [NB, 2 NB), then the policy's
# flags (1.0 / 0.0) and the probability that p is on another side than q.
BE_ENEMY = 2 * NB
BE_TRUST = 2 * NB + 1
BE_OTHER = 2 * NB + 2
BE_EXPOSED = 2 * NB + 3  # bel[q, p, BE_EXPOSED]: 1.0 once p looked at q while q showed its side
BE_G = 2 * NB + 4  # + s: refresh's scratch, q's evidence on p (the ``g`` of marginals)
BE_M = 3 * NB + 4  # + combo: marginals' scratch for p (4 combos of possessors present)
N_BEL = 3 * NB + 8


# Hard facts that are near-certain rather than certain (a Doc, a dead possessor's Feather, a
# character swapped by Lady Whale since it was seen): a factor, never 0, so that no belief is
# ever stuck on a wrong world.
HARD_FEATHER = 1e-3
HARD_CHAR = 1e-4
CLIP = 4.0  # the largest likelihood ratio one action may carry
POSS_FLOOR = 0.01  # the least chance of a possessed seat in the prior

# Action classes of the soft evidence (Tables.lik's first index) and the target's relation.
# The last three are claims at the table (ENGINE-15): "I am Family", "I saw a Feather in x's
# hand", "x is evil".
C_KILL, C_STUN, C_LOOK, C_SWAP, C_TRADE, C_TARGET, C_NONE = range(7)
C_SAY_FAMILY, C_SAY_FEATHER, C_SAY_EVIL = range(7, T.N_CLS)
CLASS_NAMES = (
    "kill", "stun", "look", "swap", "trade", "other_target", "no_target",
    "say_family", "say_feather", "say_evil",
)  # fmt: skip
REL_NONE, REL_SAME, REL_OTHER = range(T.N_REL)
N_POSS_T = T.N_POSS_T  # possession prior: per round of the table, the last for every later one
assert N_BEL == S.N_BEL


@njit(cache=True, _nrt=False, inline="always")
def belief_table(tb, i):
    """Entry ``i`` of the flattened belief tables (tables.BEL_*), in ``Tables.values``' rows
    after the seats'."""
    return tb.values[T.MAXP + i // T.NC, i % T.NC]


@njit(cache=True, _nrt=False, inline="always")
def lik(tb, cls, ev, rel):
    """The self-play rate of an action of class ``cls`` by a seat of side ``ev`` (0 Family, 1
    evil) on a target of relation ``rel`` (REL_*), per opportunity."""
    return belief_table(tb, T.BEL_LIK + (cls * 2 + ev) * T.N_REL + rel)


@njit(cache=True, _nrt=False, inline="always")
def bel(st):
    """The beliefs as float64[MAXP, MAXP, N_KN]: ``bel(st)[q, p, S.KN_BEL + k]`` is field ``k``
    (BE_*, or a state's evidence or marginal) of what seat ``q`` believes of seat ``p``; they
    live in ``State.kn`` (state.py, KN_BEL) as float64 bits."""
    return st.kn.view(np.float64)


@njit(cache=True, _nrt=False, forceinline=False)
def kind_now(tb, st, p):
    """The policy kind (tables.POL_*) seat ``p`` plays now: a by_side seat's half for the side
    it is on (it knows it: RM-6, RM-11)."""
    k = tb.seat[p, T.SP_KIND]
    if k == T.POL_BY_SIDE:
        return (
            tb.seat[p, T.SP_FAMILY_KIND]
            if st.pl[p, S.PL_SIDE] == T.FAMILY
            else tb.seat[p, T.SP_EVIL_KIND]
        )
    return k


@njit(cache=True, _nrt=False, forceinline=False)
def state_side(s):
    """The side (tables.FAMILY, S_RAVEN, ...) a seat in state ``s`` is on."""
    if s == B_FAM:
        return T.FAMILY
    if s == B_POSS_R or s == B_RAVEN:
        return T.S_RAVEN
    if s == B_POSS_H or s == B_HORSE:
        return T.S_HORSEMAN
    return T.S_CTHULHU


@njit(cache=True, _nrt=False, forceinline=False)
def true_state(st, p):
    """The state seat ``p`` is in (what ``p`` itself knows: RM-6, RM-11)."""
    ch = st.pl[p, S.PL_CHAR]
    if ch == T.RAVEN:
        return B_RAVEN
    if ch == T.HORSEMAN:
        return B_HORSE
    if ch == T.CTHULHU:
        return B_CTHULHU
    if st.pl[p, S.PL_POSSESSED] == T.S_RAVEN:
        return B_POSS_R
    if st.pl[p, S.PL_POSSESSED] == T.S_HORSEMAN:
        return B_POSS_H
    return B_FAM


# ------------------------------------------------------------------ the exact marginals


@njit(cache=True, _nrt=False, forceinline=False)
def marginals(n, g, d_r, d_h, d_c, pi_r, pi_h, out, m):
    """Each seat's marginal over its states under the model of the module docstring: ``g``
    float64[>= n, NB] the evidence (any scale per seat), ``d_r``, ``d_h``, ``d_c`` the chances
    that the Raven, the Horseman and Cthulhu are in the game (0: not in the line-up), ``pi_r``
    and ``pi_h`` the chances of a possessed seat; ``m`` float64[>= n, 4] scratch. Writes
    ``out[:n, :NB]`` (each row sums to 1); returns the evidence of the worlds (0.0 when no world
    fits it: ``out`` is then the plain Family for every seat)."""
    for p in range(n):
        for s in range(NB):
            out[p, s] = 0.0
    for combo in range(4):  # per possessors present (bit 0 the Raven, bit 1 the Horseman)
        rp = 1.0 if combo & 1 else 0.0
        hp = 1.0 if combo & 2 else 0.0
        for p in range(n):
            m[p, combo] = (
                g[p, B_FAM] * (1.0 - pi_r * rp - pi_h * hp)
                + g[p, B_POSS_R] * pi_r * rp
                + g[p, B_POSS_H] * pi_h * hp
            )
    total = 0.0
    # each evil character at a seat, or absent (-1) when the line-up may leave it out
    r_lo = -1 if d_r < 1.0 else 0
    h_lo = -1 if d_h < 1.0 else 0
    c_lo = -1 if d_c < 1.0 else 0
    r_hi = n - 1 if d_r > 0.0 else -1
    h_hi = n - 1 if d_h > 0.0 else -1
    c_hi = n - 1 if d_c > 0.0 else -1
    for r in range(r_lo, r_hi + 1):
        wr = (1.0 - d_r) if r < 0 else d_r / n * g[r, B_RAVEN]
        if d_r <= 0.0:
            wr = 1.0
        for h in range(h_lo, h_hi + 1):
            if h >= 0 and h == r:
                continue
            wh = (1.0 - d_h) if h < 0 else d_h / n * g[h, B_HORSE]
            if d_h <= 0.0:
                wh = 1.0
            for c in range(c_lo, c_hi + 1):
                if c >= 0 and (c == r or c == h):
                    continue
                wc = (1.0 - d_c) if c < 0 else d_c / n * g[c, B_CTHULHU]
                if d_c <= 0.0:
                    wc = 1.0
                combo = (1 if r >= 0 else 0) + (2 if h >= 0 else 0)
                w = wr * wh * wc
                for p in range(n):
                    if p != r and p != h and p != c:
                        w *= m[p, combo]
                if w <= 0.0:
                    continue
                total += w
                rp = 1.0 if r >= 0 else 0.0
                hp = 1.0 if h >= 0 else 0.0
                for p in range(n):
                    if p == r:
                        out[p, B_RAVEN] += w
                    elif p == h:
                        out[p, B_HORSE] += w
                    elif p == c:
                        out[p, B_CTHULHU] += w
                    else:
                        k = w / m[p, combo]
                        out[p, B_FAM] += k * g[p, B_FAM] * (1.0 - pi_r * rp - pi_h * hp)
                        out[p, B_POSS_R] += k * g[p, B_POSS_R] * pi_r * rp
                        out[p, B_POSS_H] += k * g[p, B_POSS_H] * pi_h * hp
    if total <= 0.0:
        for p in range(n):
            out[p, B_FAM] = 1.0
        return 0.0
    for p in range(n):
        for s in range(NB):
            out[p, s] /= total
    return total


# ------------------------------------------------------------------ the prior and hard facts


@njit(cache=True, _nrt=False, forceinline=False)
def dealt_chances(tb, st, q):
    """(d_r, d_h, d_c): the chance that the Raven, the Horseman and Cthulhu are in the game, as
    ``q`` knows the deal (RM-2: the config's always-dealt characters, then a uniform draw from
    the rest of the pool; ``q``'s own character is one of the draws)."""
    n = S.n_players(st)
    pool_n = tb.params[T.P_POOL_N]
    always_n = tb.params[T.P_ALWAYS_N]
    own = st.pl[q, S.PL_DEALT]
    own_drawn = 1
    for i in range(always_n):
        if tb.params[T.P_POOL + i] == own:
            own_drawn = 0
    slots = n - always_n - own_drawn
    left = pool_n - always_n - own_drawn
    draw = min(1.0, max(0.0, slots / left)) if left > 0 else 0.0
    d_r = 0.0
    d_h = 0.0
    d_c = 0.0
    for i in range(pool_n):
        ch = tb.params[T.P_POOL + i]
        d = 1.0 if i < always_n or ch == own else draw
        if ch == T.RAVEN:
            d_r = d
        elif ch == T.HORSEMAN:
            d_h = d
        elif ch == T.CTHULHU:
            d_c = d
    return d_r, d_h, d_c


@njit(cache=True, _nrt=False, forceinline=False)
def possession_prior(tb, st):
    """(pi_r, pi_h): the self-play share of Family seats possessed for the Raven and for the
    Horseman at this point of the game (Tables.poss, by round of the table), at least
    ``POSS_FLOOR``."""
    n = S.n_players(st)
    r = min(st.board[S.G_TURN] // max(n, 1), N_POSS_T - 1)
    k = min(n, T.MAXP)
    # never 0: a round self-play never saw a possession in still allows one (the worlds of a
    # possessed observer, or of a Feather seen, must keep some weight)
    at = T.BEL_POSS + (k * N_POSS_T + r) * 2
    return max(belief_table(tb, at), POSS_FLOOR), max(belief_table(tb, at + 1), POSS_FLOOR)


@njit(cache=True, _nrt=False, forceinline=False)
def evidence(tb, st, q, g):
    """``g[p, s]``: ``q``'s evidence on each seat's states, the soft factors of ``State.bel``
    times the hard facts (module docstring)."""
    n = S.n_players(st)
    own = true_state(st, q)
    # a plain Family member holding a Feather: a Doc (one of the pool's Family characters), or
    # the rare Feather of a dead possessor
    doc = HARD_FEATHER
    family_n = 0
    has_doc = False
    for i in range(tb.params[T.P_POOL_N]):
        ch = tb.params[T.P_POOL + i]
        if not S.evil(ch):
            family_n += 1
            has_doc = has_doc or ch == T.DOC
    if has_doc and family_n > 0:
        doc = max(doc, 1.0 / family_n)
    for p in range(n):
        if p == q:
            for s in range(NB):
                g[p, s] = 1.0 if s == own else 0.0
            continue
        top = bel(st)[q, p, S.KN_BEL + 0]
        for s in range(1, NB):
            top = max(top, bel(st)[q, p, S.KN_BEL + s])
        for s in range(NB):
            g[p, s] = np.exp(bel(st)[q, p, S.KN_BEL + s] - top)
        ch = S.known_char(st, q, p)
        if ch >= 0:
            pin = B_RAVEN if ch == T.RAVEN else B_HORSE if ch == T.HORSEMAN else -1
            if ch == T.CTHULHU:
                pin = B_CTHULHU
            sure = p == q or st.pl[p, S.PL_REVEALED] != 0
            off = 0.0 if sure else HARD_CHAR
            for s in range(NB):
                if pin >= 0:
                    fits = s == pin
                elif S.immune(ch):
                    fits = s == B_FAM
                else:
                    fits = s == B_FAM or s == B_POSS_R or s == B_POSS_H
                if not fits:
                    g[p, s] *= off
        if st.kn[q, p, S.KN_FEATHER] > 0 or st.kn[q, p, S.KN_GAVE_F] > 0:
            g[p, B_FAM] *= doc  # only a Doc (immune, RM-22), or a dead possessor's Feather
        if st.kn[q, p, S.KN_GAVE_F] > 0:  # the possessed cannot give theirs away (RM-6)
            g[p, B_POSS_R] *= HARD_FEATHER
            g[p, B_POSS_H] *= HARD_FEATHER
        if st.kn[q, p, S.KN_GAVE + T.FEATHER] > 0 and (own == B_RAVEN or own == B_HORSE):
            mine = B_POSS_R if own == B_RAVEN else B_POSS_H
            for s in range(NB):
                if s != mine and s < B_RAVEN:
                    g[p, s] *= HARD_FEATHER
        k = st.pl[p, S.PL_FEATHER_DISC]
        if k > 0:
            g[p, B_RAVEN] *= belief_table(tb, T.BEL_BLUFF) ** k


@njit(cache=True, _nrt=False, forceinline=False)
def refresh(tb, st, q):
    """Compute ``q``'s marginals into its beliefs' NB..2NB fields, the chance that each seat is
    on another side than ``q``'s, and the reasoning policy's reading of them (BE_ENEMY: above its
    suspicion threshold, which falls as the evil side it believes in grows; BE_TRUST: on its side
    with at least its trust)."""
    n = S.n_players(st)
    row = bel(st)[q]
    g = row[:, S.KN_BEL + BE_G : S.KN_BEL + BE_G + NB]
    out = row[:, S.KN_BEL + NB : S.KN_BEL + 2 * NB]
    evidence(tb, st, q, g)
    d_r, d_h, d_c = dealt_chances(tb, st, q)
    pi_r, pi_h = possession_prior(tb, st)
    marginals(n, g, d_r, d_h, d_c, pi_r, pi_h, out, row[:, S.KN_BEL + BE_M : S.KN_BEL + BE_M + 4])
    mine = state_side(true_state(st, q))
    evil_n = 0.0
    living = 0
    for p in range(n):
        other = 0.0
        for s in range(NB):
            if state_side(s) != mine:
                other += out[p, s]
        bel(st)[q, p, S.KN_BEL + BE_OTHER] = other
        if p != q and S.alive(st, p):
            living += 1
            evil_n += 1.0 - out[p, B_FAM]
    share = evil_n / living if living > 0 else 0.0
    threshold = tb.weights[q, T.W_SUSPECT] - tb.weights[q, T.W_SUSPECT_SLOPE] * share
    trust = tb.weights[q, T.W_TRUST]
    family = mine == T.FAMILY  # the reading is the Family's: an evil side knows its own
    for p in range(n):
        other = bel(st)[q, p, S.KN_BEL + BE_OTHER]
        enemy = family and p != q and other >= threshold
        trusted = family and p != q and 1.0 - other >= trust
        bel(st)[q, p, S.KN_BEL + BE_ENEMY] = 1.0 if enemy else 0.0
        bel(st)[q, p, S.KN_BEL + BE_TRUST] = 1.0 if trusted else 0.0
        st.kn[q, p, S.KN_SUSPECT] = 1 if enemy else -1 if trusted else 0


# ------------------------------------------------------------------ the soft evidence


@njit(cache=True, _nrt=False, forceinline=False)
def action_class(kind, c, t, o):
    """The class (C_*) of a turn's action (policies.K_* ``kind``, card ``c``, target ``t``,
    option ``o``) as every seat sees it (RM-4: actions are public)."""
    if t < 0:
        return C_NONE
    if (
        c == T.AXE
        or c == T.KNIFE
        or c == T.BROKEN_BOTTLE
        or c == T.RIFLE
        or c == T.HARPOON
        or c == T.MOUNTAINS
        or c == T.FOREST
    ):
        return C_KILL
    if c == T.VASE or c == T.HAYMAKER or c == T.BOTTLE:
        return C_STUN
    if c == T.EXCHANGE or c == T.THE_INN or (c == T.DINING_ROOM and o == 0):
        return C_TRADE
    if c == T.DINING_ROOM or (c == T.GET_OVER_HERE and o == 0):
        return C_SWAP
    if c == T.LIBRARY or c == T.GET_OVER_HERE or c == T.ZAKUS_CAMERA or c == T.DRINK:
        return C_LOOK
    return C_TARGET


@njit(cache=True, _nrt=False, forceinline=False)
def rate(tb, st, q, cls, s, t):
    """The self-play rate of an action of class ``cls`` on ``t`` (-1 none) by a player in state
    ``s``, averaged over ``q``'s belief about ``t``'s side (its cached marginals)."""
    ev = 0 if state_side(s) == T.FAMILY else 1
    if t < 0 or cls == C_NONE:
        return lik(tb, cls, ev, REL_NONE)
    side = state_side(s)
    v = 0.0
    for u in range(NB):
        pu = bel(st)[q, t, S.KN_BEL + NB + u]
        if pu > 0.0:
            v += pu * lik(tb, cls, ev, REL_SAME if state_side(u) == side else REL_OTHER)
    return v


@njit(cache=True, _nrt=False, forceinline=False)
def in_lineup(tb, s):
    """Can a seat be in state ``s`` in this config (its character in the pool)? The clip of one
    piece of evidence is taken against the states that can be, not against a side the line-up
    never deals."""
    if s == B_FAM:
        return True
    ch = T.RAVEN if s == B_POSS_R or s == B_RAVEN else T.HORSEMAN
    if s == B_CTHULHU:
        ch = T.CTHULHU
    for i in range(tb.params[T.P_POOL_N]):
        if tb.params[T.P_POOL + i] == ch:
            return True
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def _add_clipped(tb, st, q, row, r):
    """Add to seat ``row``'s states in ``q``'s evidence the log of each state's rate in ``r`` (one
    per state, B_*) over the largest of them among the states the line-up can deal
    (:func:`in_lineup`), each ratio at least ``1 / CLIP``. Nothing when no such state has a rate:
    the evidence tells nothing."""
    top = 0.0
    for s in range(NB):
        if in_lineup(tb, s):
            top = max(top, r[s])
    if top <= 0.0:
        return
    for s in range(NB):
        bel(st)[q, row, S.KN_BEL + s] += np.log(max(r[s] / top, 1.0 / CLIP))


@njit(cache=True, _nrt=False, forceinline=False)
def _weigh(tb, st, q, row, cls, t):
    """Multiply seat ``row``'s states in ``q``'s evidence by :func:`rate` of an action of class
    ``cls`` on ``t``, as ``q`` sees ``t``, the ratio between states clipped to ``CLIP``. (The
    states go as int64, not as the module's constants: numba compiles a function again for each
    literal it is called with, six copies of ``rate`` and of ``rate_about``.)"""
    r = (
        rate(tb, st, q, cls, np.int64(B_FAM), t),
        rate(tb, st, q, cls, np.int64(B_POSS_R), t),
        rate(tb, st, q, cls, np.int64(B_POSS_H), t),
        rate(tb, st, q, cls, np.int64(B_RAVEN), t),
        rate(tb, st, q, cls, np.int64(B_HORSE), t),
        rate(tb, st, q, cls, np.int64(B_CTHULHU), t),
    )
    _add_clipped(tb, st, q, row, r)


@njit(cache=True, _nrt=False, forceinline=False)
def observe(tb, st, a, cls, t):
    """Every reasoning seat but ``a`` weighs ``a``'s public action of class ``cls`` on target
    ``t`` (-1 none): each of ``a``'s states times the self-play rate of such an action by a
    player of that side (:func:`rate`), the ratio between states clipped to ``CLIP``. A
    reasoning ``a`` keeps the same record of itself (``bel[a, a]``, as it sees ``t``): what its
    own actions have told the table (:func:`suspicion`). A look at a seat that holds a Feather
    or an evil character shows its side: the seat looked at knows it is exposed to ``a``."""
    n = S.n_players(st)
    for q in range(n):
        if st.pl[q, S.PL_REASON] != 0 and (q != a or cls != C_NONE):
            _weigh(tb, st, q, a, cls, t)
    if cls == C_LOOK and 0 <= t < n and t != a:
        if st.pl[t, S.PL_HAND + T.FEATHER] > 0 or S.evil(st.pl[t, S.PL_CHAR]):
            bel(st)[t, a, S.KN_BEL + BE_EXPOSED] = 1.0


@njit(cache=True, _nrt=False, forceinline=False)
def claim_class(code):
    """The class (C_SAY_*) of claim ``code`` (state.CLAIM_*, not CLAIM_NONE)."""
    if code == S.CLAIM_FAMILY:
        return C_SAY_FAMILY
    return C_SAY_FEATHER if code < S.CLAIM_EVIL else C_SAY_EVIL


@njit(cache=True, _nrt=False, forceinline=False)
def claim_target(code):
    """The seat claim ``code`` is about (-1: "I am Family", or none)."""
    if code < S.CLAIM_FEATHER:
        return -1
    return code - S.CLAIM_FEATHER if code < S.CLAIM_EVIL else code - S.CLAIM_EVIL


@njit(cache=True, _nrt=False, forceinline=False)
def rate_about(tb, st, q, cls, a, u):
    """The self-play rate at which a speaker makes a claim of class ``cls`` about a seat in state
    ``u``, averaged over ``q``'s belief about the speaker ``a``'s side (its cached marginals):
    cheap talk is weighed by who says it."""
    side = state_side(u)
    v = 0.0
    for s in range(NB):
        ps = bel(st)[q, a, S.KN_BEL + NB + s]
        if ps > 0.0:
            ev = 0 if state_side(s) == T.FAMILY else 1
            v += ps * lik(tb, cls, ev, REL_SAME if state_side(s) == side else REL_OTHER)
    return v


@njit(cache=True, _nrt=False, forceinline=False)
def hear(tb, st, a, code):
    """Every reasoning seat weighs ``a``'s claim ``code`` (ENGINE-15), said for the first time: as
    evidence of the speaker's side, like an action of its class on its target (:func:`observe`),
    and as evidence of the target's: each of the target's states times :func:`rate_about` (how
    often a speaker makes that claim about a seat in that state, averaged over the listener's
    belief about the speaker), the ratio between states clipped to ``CLIP``. A reasoning target
    keeps the same record of itself (what the table heard about it: :func:`suspicion`).
    Approximation: the speaker's and the target's factors are each averaged over the belief
    about the other, not weighed jointly."""
    cls = claim_class(code)
    t = claim_target(code)
    observe(tb, st, a, cls, t)
    if t < 0:
        return
    for q in range(S.n_players(st)):
        if st.pl[q, S.PL_REASON] == 0 or q == a:
            continue
        r = (
            rate_about(tb, st, q, cls, a, np.int64(B_FAM)),
            rate_about(tb, st, q, cls, a, np.int64(B_POSS_R)),
            rate_about(tb, st, q, cls, a, np.int64(B_POSS_H)),
            rate_about(tb, st, q, cls, a, np.int64(B_RAVEN)),
            rate_about(tb, st, q, cls, a, np.int64(B_HORSE)),
            rate_about(tb, st, q, cls, a, np.int64(B_CTHULHU)),
        )
        _add_clipped(tb, st, q, t, r)


@njit(cache=True, _nrt=False, forceinline=False)
def prior_evil(tb, st, p):
    """The prior chance, from public facts, that a seat is on an evil side: the evil characters
    of the line-up and the possessed of self-play, over the seats (as ``p`` knows the deal)."""
    n = S.n_players(st)
    d_r, d_h, d_c = dealt_chances(tb, st, p)
    pi_r, pi_h = possession_prior(tb, st)
    return min(max((d_r + d_h + d_c) / n + pi_r + pi_h, 0.01), 0.99)


@njit(cache=True, _nrt=False, forceinline=False)
def suspicion(st, p, own, prior, extra):
    """How likely the table thinks seat ``p``, in state ``own`` on an evil side, is on an evil
    side, from public evidence alone: the odds of ``prior`` (:func:`prior_evil`) times what
    ``p``'s public actions and claims said (``bel[p, p]``, its own state against the plain
    Family), times ``exp(extra)`` (the log ratio of an action it considers)."""
    ell = bel(st)[p, p, S.KN_BEL + own] - bel(st)[p, p, S.KN_BEL + B_FAM] + extra
    odds = prior / (1.0 - prior) * np.exp(min(ell, 50.0))
    return odds / (1.0 + odds)


@njit(cache=True, _nrt=False, forceinline=False)
def exposure_cost(tb, st, p, cls, t):
    """How much an action of class ``cls`` on ``t`` would raise the table's suspicion of ``p``
    (:func:`suspicion` after it less before; 0 for an action without a class or target)."""
    if cls == C_NONE:
        return 0.0
    own = true_state(st, p)
    if own == B_FAM:
        return 0.0
    r_own = rate(tb, st, p, cls, own, t)
    r_fam = rate(tb, st, p, cls, np.int64(B_FAM), t)  # an int64, not a literal: one compile
    if r_own <= 0.0 or r_fam <= 0.0:
        return 0.0
    extra = min(max(np.log(r_own / r_fam), -np.log(CLIP)), np.log(CLIP))
    prior = prior_evil(tb, st, p)  # once for both
    return suspicion(st, p, own, prior, extra) - suspicion(st, p, own, prior, 0.0)


@njit(cache=True, _nrt=False, forceinline=False)
def start(tb, st):
    """A new game: no evidence yet (the deal cleared ``kn``); each reasoning seat's marginals
    from the deal alone."""
    for q in range(S.n_players(st)):
        if st.pl[q, S.PL_REASON] != 0:
            refresh(tb, st, q)


# ---------------------------------------------------------------- compiled where a seat reasons


def only_reasoning(fn, none):
    """``fn``, called with the Tables first, compiled only into kernels whose Tables are
    ``tables.ReasoningTables`` (a line-up with a reasoning seat). Elsewhere the call is
    ``none``: numba picks the implementation when it types the call, so a basic kernel never
    compiles the beliefs (about 7 CPU s of a cold compile). The engine and ``policies.choose``
    call the gates only where ``G_BELIEFS`` is set, which such a kernel never sets, so ``none``
    is never what a game runs; the reasoning policy reaches ``exposure_cost`` through one too,
    from functions only a reasoning seat calls. (Gating the policy's own functions instead,
    ``_evil_reasoning``, ``_claim_value`` and the like, took as much off the compile but made the
    basic kernel 13 % slower, LLVM inlining the policies differently; measured.)"""

    def gate(*args):
        return fn(*args) if isinstance(args[0], T.ReasoningTables) else none

    @overload(gate, jit_options={"_nrt": False})
    def _typed(*args):
        if getattr(args[0], "instance_class", None) is T.ReasoningTables:
            return lambda *args: fn(*args)
        return lambda *args: none

    gate.__name__ = gate.__qualname__ = f"{fn.__name__}_if"
    gate.__doc__ = (
        f"``{fn.__name__}`` in a kernel of ReasoningTables, else ``{none}`` (only_reasoning)."
    )
    return gate


observe_if = only_reasoning(observe, None)
hear_if = only_reasoning(hear, None)
refresh_if = only_reasoning(refresh, None)
start_if = only_reasoning(start, None)
exposure_cost_if = only_reasoning(exposure_cost, 0.0)
