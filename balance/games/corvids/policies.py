"""Corvids policies: every choice CV-5 and CV-4 leave to a seat, from what the seat knows (CV-12).

``choose(tb, st, work)`` answers the pending decision point (state.DECISIONS; engine.advance
makes them) with the acting seat's configured policy, drawing from that seat's stream exactly as
the policies always have: the offers are listed in the orders they always drew from, a peck is
its card here and its aim at the next point (the random seat's uniform point is drawn when the
engine applies it), and a ticket count is planned at the turn's first ticket point and kept in
the state (G_TK_PLAN). The values a seat works out are kept within a game in ``State.memo``
(``fb`` below), a cache keyed by what they depend on.

A policy sees the pile as it lies (positions, what lies on what, the up side of every card: a
single-sided card face down shows its blank back), every collected card's up side except the
other seats' face-down single-sided cards (which of string, ticket or coin they are is theirs),
revealed birds, its own bird and its own cards. It never reads a pile card's hidden side
(``State.item`` beyond ``up_item``) nor another seat's hidden bird; what it does not know it
values by the config's proportions (public: the deck is in the rules).

- ``random`` (POL_RANDOM): uniform over the legal choices: a visible card to peck (rejection
  sampling over the pile's cards, so exactly uniform) at a uniform point of it, a card with no
  card on top to pick (CV-5), and for every optional step the options and "no" alike (an acorn's
  peck: yes or no on an even draw, then a peck as any other). Every draw is from its seat's own
  stream.
- ``greedy`` (POL_GREEDY): one-step weighted values (``Tables.weights``, schema.GreedyPolicy):

  * a card's worth to the seat: its points (own_value), its bird's bonus (bird_bonus) and the
    part of a set it brings (set_progress: a set's extra over its cards' values, shared over the
    cards of the set in proportion 1 : 2 : ... : size, the completing card's share the largest);
    what its ability would bring (ability_value: a paperclip's or an earring's best extra card, a
    nut's two feathers, a face-down string's or ticket's later use); the feathers touching it (feather_value each); and the nests taking it
    would uncover: its own (minus keep_nest_covered) or a rival's (plus uncover_rivals, times the
    chance the nest is a rival's when its bird is hidden).
  * the pick and the abilities take the card worth most (declining what is worth less than 0);
    a card is pickable when no card lies on it (CV-5: a feather on it does not block, and comes
    with it, so the feathers touching it count in its worth).
  * an acorn's peck (optional, CV-4) is taken only when it may uncover a nest worth something to
    it before its steal (``greedy_acorn``): no pick follows it.
  * the peck weighs a few candidates: the card on top of the pile (always visible), the cards
    it wants most (pecking one sheds what lies on it and flips it: shed_pieces is the chance it
    ends uncovered), the cards that what covers a wanted card rests on (expose_wanted: the chance
    the wanted card ends uncovered), uncovered cards whose other side is worth more (a face-up
    coin pecked face down is worth 3), and the cards under a card that alone covers a rival's
    nest. Each is valued as the best pick after it, times the chance nothing falls off the mat
    (from the pieces' distances to the edge and its clumsiness), plus half the value of the nests
    its displaced cards alone cover; the best visible one is pecked, aiming a little outward of
    its centre so that what moves tends towards the middle of the mat.
  * it flips tickets for as many extra steals as its feathers pay for when a rival's nest is open;
    steals the card worth most to it (times the chance no string keeps it) when that beats the
    feathers paid by steal_margin; keeps a card with a string whenever it is worth anything.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from balance.games._kit import Offsets
from balance.games.corvids import physics as ph
from balance.games.corvids import state as S
from balance.games.corvids import tables as T
from balance.rng import below

_NEG = -1e18
# (a flag passed as np.bool_(True), not True: numba compiles a function again for each literal
# it is called with, and these helpers were compiled twice or three times into every kernel)
N_NESTS = ph.N_NESTS


@njit(cache=True, _nrt=False, inline="always")
def is_random(tb, p):
    return tb.seat[p, T.SP_KIND] == T.POL_RANDOM


@njit(cache=True, _nrt=False, inline="always")
def prng(st, p):
    return st.rng[2 + p]


# ---------------------------------------------------------------- scripts (tests)
#
# A scripted seat (tables.with_script) takes its decisions from Tables.script in order: a peck
# three values (card, aim x, aim y), any other decision one (the card, feather or count, -1 for
# none, 0 / 1 for a string); then it plays greedy.


@njit(cache=True, _nrt=False, inline="always")
def scripted(tb, st, p, k):
    return (
        tb.seat[p, T.SP_KIND] == T.POL_SCRIPT
        and st.pl[p, S.PL_SCRIPT] + k <= tb.seat[p, T.SP_SCRIPT_N]
    )


@njit(cache=True, _nrt=False, inline="always")
def next_value(tb, st, p):
    v = tb.script[p, st.pl[p, S.PL_SCRIPT]]
    st.pl[p, S.PL_SCRIPT] += 1
    return v


@njit(cache=True, _nrt=False, forceinline=False)
def scripted_index(tb, st, p, ib, n, allow_none):
    """The index in ``ib[IB_OFFER, :n]`` of the scripted value, -1 for a scripted -1
    (``allow_none``);
    anything else is not legal: the first candidate, and G_SCRIPT_BAD is set."""
    v = np.int64(next_value(tb, st, p))
    if v < 0 and allow_none:
        return np.int64(-1)
    for k in range(n):
        if ib[S.IB_OFFER, k] == v:
            return np.int64(k)
    st.board[S.G_SCRIPT_BAD] = 1
    return np.int64(0)


# ---------------------------------------------------------------- what a card is worth


@njit(cache=True, _nrt=False, forceinline=False)
def worth(tb, st, p, item, down):
    """What a card counting as ``item`` (``down``: face down) is worth to seat ``p`` now."""
    w = tb.weights[p]
    pts = tb.params[T.P_COIN_DOWN] if (item == T.COIN and down) else tb.params[T.P_VALUE + item]
    b = st.pl[p, S.PL_BIRD]
    bird = tb.params[T.P_BIRD_BONUS + b] if tb.params[T.P_BIRD_FAV + b] == item else 0
    v = w[T.W_OWN] * pts + w[T.W_BIRD] * bird
    size = tb.params[T.P_SET_SIZE + item]
    if size > 0:
        extra = tb.params[T.P_SET_POINTS + item] - size * tb.params[T.P_VALUE + item]
        # the k-th card of a set (from 1) gets k / (1 + ... + size) of its extra: the shares add
        # up to the whole extra, the completing card's the largest
        k = st.pl[p, S.PL_HELD + item] % size
        v += w[T.W_SET] * extra * 2.0 * (k + 1) / (size * (size + 1))
    return v


@njit(cache=True, _nrt=False, forceinline=False)
def later_use(tb, p, item):
    """The later use of a face-down string (keeps a card) or ticket (one more steal)."""
    if item == T.STRING:
        return tb.weights[p, T.W_ABILITY] * 1.0
    if item == T.TICKET:
        return tb.weights[p, T.W_ABILITY] * 0.5
    return 0.0


@njit(cache=True, _nrt=False, forceinline=False)
def hidden_single(tb, st, p, up):
    """Expected worth of a single-sided card whose item seat ``p`` cannot see (a blank back up),
    by the deck's proportions of string, ticket and coin; ``up``: valued face up (it will be
    flipped) instead of face down."""
    tot = 0.0
    acc = 0.0
    for item in (T.STRING, T.TICKET, T.COIN):
        n = tb.params[T.P_SINGLE_N + item]
        if n <= 0:
            continue
        tot += n
        v = worth(tb, st, p, np.int64(item), not up)
        if not up:
            v += later_use(tb, p, np.int64(item))
        acc += n * v
    return acc / tot if tot > 0 else 0.0


@njit(cache=True, _nrt=False, forceinline=False)
def double_back(tb, st, p):
    """Expected worth of a double-sided card's unseen side (CV-2: drawn by the config's list)."""
    acc = 0.0
    for i in range(T.NI):
        wt = tb.item_weight[i]
        if wt > 0.0:
            acc += wt * worth(tb, st, p, np.int64(i), np.bool_(False))
    return acc


# A decision's worths (``prepare``) in fb[FB_WORTH]: per item face up, per item face down (with
# a string's or ticket's later use), then the expected worths of what is not seen. They depend on
# the seat's cards alone, so each seat keeps its own in fb[FB_SEAT + seat] and they are worked
# out again only when its cards change.
_fv = Offsets()
FV_UP = _fv(T.NI)  # + item: face up
FV_DOWN = _fv(T.NI)  # + item: face down
FV_BACK = _fv(1)  # a double-sided card's unseen side
FV_SINGLE_DOWN = _fv(1)  # a single-sided card showing its blank back, taken so
FV_SINGLE_UP = _fv(1)  # ... once flipped face up
N_WORTHS = _fv.end
FV_PILE_FEATHERS = _fv(1)  # feathers in the pile
FV_ONE_NESTS = _fv(1)  # how many nests one card alone covers (of some worth to the seat),
FV_NEST0 = _fv(N_NESTS)  # ... and those nests
FV_KEY = _fv(1)  # whose worths these are (seat, cards held): reused if so
FV_NEST_KEY = _fv(1)  # whose nest values fb[FB_NEST] holds (seat, birds revealed)
FV_TAKE = _fv(T.NI + 1)  # greedy_peck: + 1 + up item (BLANK too): its worth and ability,
FV_FLIP = _fv(T.NI + 1)  # ... and its worth once flipped (flipped_worth)
# a seat's row fb[FB_SEAT + seat] holds its worths (FV_UP ... FV_SINGLE_UP, FV_KEY) and, after
# them, its nest values (nest_values) with their key
_sv = Offsets(FV_KEY + 1)
SV_NEST0 = _sv(N_NESTS)
SV_NEST_KEY = _sv(1)

# fb[FB_NEST]: the deciding seat's nest values (seat_nest_values), then greedy_peck's candidates'
# peck values, one per card in ib[IB_CAND] (add_candidate), to the end of the row
_nv = Offsets()
NV_NEST = _nv(16)  # + nest (N_NESTS of the 16 used)
NV_CAND = _nv.end  # + candidate

# fb[FB_RISK] (string_risks): each seat's chance of an unused face-down string, then the count of
# hidden cards per owner, from OWN_REMOVED up (OWN_REMOVED, OWN_PILE, the seats)
_sr = Offsets()
SR_CHANCE = _sr(T.MAXP)  # + seat
SR_HIDDEN = _sr(T.MAXP - S.OWN_REMOVED)  # + owner - OWN_REMOVED
SR_SEAT0 = SR_HIDDEN - S.OWN_REMOVED  # owner o's count at SR_SEAT0 + o


@njit(cache=True, _nrt=False, forceinline=True)
def held_key(st, p):
    """A number that says which cards seat ``p`` holds, as far as its worths go (its count of
    each item; exact in a float64: 40 cards at most a seat, 9 items), and the seat."""
    key = np.int64(0)
    for i in range(T.NI - 1, -1, -1):
        key = key * 41 + st.pl[p, S.PL_HELD + i]
    return (key + 1) * 8 + p


@njit(cache=True, _nrt=False, forceinline=True)
def prepare(tb, st, p, fb, nestv):
    """Fill fb[FB_WORTH] with seat ``p``'s worths for this decision (FV_*), after
    ``nest_values``."""
    v = fb[S.FB_WORTH]
    n = 0
    for k in range(N_NESTS):
        if st.pile.ncount[k] == 1 and nestv[k] != 0.0:
            v[FV_NEST0 + n] = k
            n += 1
    v[FV_ONE_NESTS] = n
    v[FV_PILE_FEATHERS] = st.pile.n_on[1]
    key = held_key(st, p)
    if v[FV_KEY] == key:
        return
    own = fb[S.FB_SEAT + p]
    if own[FV_KEY] != key:
        for i in range(T.NI):
            own[FV_UP + i] = worth(tb, st, p, np.int64(i), np.bool_(False))
            own[FV_DOWN + i] = worth(tb, st, p, np.int64(i), np.bool_(True)) + later_use(
                tb, p, np.int64(i)
            )
        own[FV_BACK] = double_back(tb, st, p)
        own[FV_SINGLE_DOWN] = hidden_single(tb, st, p, np.bool_(False))
        own[FV_SINGLE_UP] = hidden_single(tb, st, p, np.bool_(True))
        own[FV_KEY] = key
    for i in range(N_WORTHS):
        v[i] = own[i]
    v[FV_KEY] = key


@njit(cache=True, _nrt=False, inline="always")
def shown_item_worth(fb, u):
    """Worth of a pile card showing item ``u`` (a blank back: expected), after ``prepare``."""
    if u == T.BLANK:
        return fb[S.FB_WORTH, FV_SINGLE_DOWN]
    return fb[S.FB_WORTH, FV_UP + u]


@njit(cache=True, _nrt=False, inline="always")
def shown_worth(st, fb, c):
    """Worth of pile card ``c`` as it shows (its up side; a blank back: expected), after
    ``prepare``."""
    return shown_item_worth(fb, S.up_item(st, c))


@njit(cache=True, _nrt=False, inline="always")
def flipped_worth(st, fb, c):
    """Expected worth of pile card ``c`` once a peck has turned it over, after ``prepare``."""
    return flipped_item_worth(fb, S.up_item(st, c))


@njit(cache=True, _nrt=False, inline="always")
def flipped_item_worth(fb, u):
    """Expected worth of a pile card showing item ``u`` once a peck has turned it over."""
    if u == T.BLANK:
        return fb[S.FB_WORTH, FV_SINGLE_UP]
    if u >= T.STRING:  # string, ticket, coin: single-sided (CV-2), so its back is blank
        return fb[S.FB_WORTH, FV_DOWN + u]
    return fb[S.FB_WORTH, FV_BACK]


@njit(cache=True, _nrt=False, forceinline=False)
def nest_values(tb, st, p, out):
    """``out[k]``: what uncovering nest ``k`` is worth to seat ``p`` (CV-6, CV-11)."""
    w = tb.weights[p]
    n = st.board[S.G_N]
    own = tb.params[T.P_BIRD_NEST + st.pl[p, S.PL_BIRD]]
    hidden = 0
    known = np.int64(0)  # bit b: bird b is another seat's, revealed
    for q in range(n):
        if q != p:
            if st.pl[q, S.PL_REVEALED] != 0:
                known |= np.int64(1) << st.pl[q, S.PL_BIRD]
            else:
                hidden += 1
    for k in range(N_NESTS):
        out[k] = 0.0
    candidates = 0
    for b in range(tb.params[T.P_BIRDS_N]):
        k = tb.params[T.P_BIRD_NEST + b]
        if k == own:
            continue
        if (known >> b) & 1:
            out[k] = w[T.W_UNCOVER]
        else:
            candidates += 1
    # the nests of birds not seen: a rival's with chance hidden / candidates (revealed birds
    # whose seat is known are out; the seat's own bird is out)
    share = hidden / candidates if candidates > 0 else 0.0
    for b in range(tb.params[T.P_BIRDS_N]):
        k = tb.params[T.P_BIRD_NEST + b]
        if k != own and not (known >> b) & 1:
            out[k] = w[T.W_UNCOVER] * share
    out[own] = -w[T.W_KEEP_NEST]


@njit(cache=True, _nrt=False, forceinline=True)
def seat_nest_values(tb, st, p, fb):
    """``nest_values`` of seat ``p`` in fb[FB_NEST, NV_NEST:]. Each seat keeps its own in its row
    (SV_NEST0), worked out again only when more birds are revealed (they stay revealed, so
    within a game their number says which ones are; ``play_game`` clears fb for each game)."""
    revealed = 0
    for q in range(st.board[S.G_N]):
        if st.pl[q, S.PL_REVEALED] != 0:
            revealed += 1
    key = p * 64 + revealed + 1
    if fb[S.FB_WORTH, FV_NEST_KEY] == key:
        return
    own = fb[S.FB_SEAT + p]
    if own[SV_NEST_KEY] != revealed + 1:
        nest_values(tb, st, p, own[SV_NEST0 : SV_NEST0 + N_NESTS])
        own[SV_NEST_KEY] = revealed + 1
    for k in range(N_NESTS):
        fb[S.FB_NEST, NV_NEST + k] = own[SV_NEST0 + k]
    fb[S.FB_WORTH, FV_NEST_KEY] = key


@njit(cache=True, _nrt=False, forceinline=True)
def taking_nests(st, fb, c, nestv):
    """The value of the nests card ``c`` alone covers (taking it uncovers them), after
    ``prepare``."""
    v = 0.0
    for t in range(np.int64(fb[S.FB_WORTH, FV_ONE_NESTS])):
        k = np.int64(fb[S.FB_WORTH, FV_NEST0 + t])
        if st.pile.nest[k, c] == 1:
            v += nestv[k]
    return v


@njit(cache=True, _nrt=False, forceinline=True)
def item_ability(tb, p, fb, u):
    """What the ability of a pile card showing item ``u`` would bring seat ``p`` (CV-4), as a flat
    guess for an earring's or paperclip's extra card."""
    a = tb.weights[p, T.W_ABILITY]
    if u == T.ACORN:
        return a * 0.25
    if u == T.NUT:
        return a * tb.weights[p, T.W_FEATHER] * min(2.0, fb[S.FB_WORTH, FV_PILE_FEATHERS])
    if u in (T.EARRING, T.PAPERCLIP):
        return a * 0.5
    return 0.0


@njit(cache=True, _nrt=False, forceinline=True)
def ability_worth(tb, st, p, fb, c, exact):
    """What the ability of pile card ``c``'s up side would bring seat ``p`` (CV-4); ``exact``:
    look at the extra card a paperclip or earring would take (else a flat guess)."""
    u = S.up_item(st, c)
    if not exact or u not in (T.EARRING, T.PAPERCLIP):
        return item_ability(tb, p, fb, u)
    pile = st.pile
    best = 0.0
    for t in range(pile.n_on[0]):
        j = pile.lst[0, t]
        if j == c:
            continue
        if u == T.PAPERCLIP:
            ok = pile.ov[c, j] == 1
        else:
            ok = pile.cov[j, ph.COV_CARDS] == 0 and S.up_item(st, j) == T.EARRING  # CV-5
        if ok:
            best = max(best, shown_worth(st, fb, j))
    return tb.weights[p, T.W_ABILITY] * best


@njit(cache=True, _nrt=False, forceinline=True)
def take_value(tb, st, p, fb, c, nestv, exact):
    """Everything taking pile card ``c`` brings seat ``p`` (see the module docstring), after
    ``prepare``."""
    return (
        shown_worth(st, fb, c)
        + ability_worth(tb, st, p, fb, c, exact)
        + tb.weights[p, T.W_FEATHER] * st.pile.cov[c, ph.COV_FEATHERS]
        + taking_nests(st, fb, c, nestv)
    )


@njit(cache=True, _nrt=False, forceinline=False)
def held_worth(tb, st, p, c):
    """Worth to seat ``p`` of collected card ``c`` as ``p`` sees it (another seat's face-down
    single-sided card: expected)."""
    owner = st.cc[c, S.CC_OWNER]
    down = st.cc[c, S.CC_TAKEN_FACE] == 0
    if st.item[c, 1] == T.BLANK:
        if down and owner != p:
            return hidden_single(tb, st, p, np.bool_(False))
        item = st.item[c, 0]
        v = worth(tb, st, p, item, down)
        if down and st.cc[c, S.CC_USED] == 0:
            v += later_use(tb, p, item)
        return v
    item = st.item[c, 0] if st.cc[c, S.CC_TAKEN_FACE] == 1 else st.item[c, 1]
    return worth(tb, st, p, item, np.bool_(False))


# ---------------------------------------------------------------- the peck


@njit(cache=True, _nrt=False, forceinline=True)
def peck_risk(tb, st, p, i, nestv):
    """For pecking card ``i``, in one pass over the pieces touching it: a rough chance that the
    peck knocks something off the mat (the greedy policy's guess: each piece resting on ``i``,
    its distance to the nearest edge against the displacement's scale), and half the value of
    the nests that only cards resting on ``i`` cover.

    Written for the branch predictor: whether a neighbour rests on ``i`` is a coin toss, so it
    is a select (a bit in ``above``, and an infinite distance), and the one branch left is
    "resting, and near an edge", rarely taken."""
    prm = tb.physics
    pile = st.pile
    nc = pile.cards.shape[0]
    sd = prm[ph.PH_DISPLACE_SD] * tb.weights[p, T.W_CLUMSY]
    hx = 0.5 * prm[ph.PH_MAT_W]
    hy = 0.5 * prm[ph.PH_MAT_H]
    hw = 0.5 * prm[ph.PH_CARD_W]
    hh = 0.5 * prm[ph.PH_CARD_H]
    fr = prm[ph.PH_FEATHER_R]
    hi = pile.cards[i, ph.CD_H]
    keep = 1.0
    two = 2.0 * sd * sd
    near = 3.0 * sd if sd > 0.0 else -1.0  # farther, the chance is below 0.6 %: counted as none
    bad = np.int64(0)  # bit k: a card covering nest k does not rest on i
    zero = np.uint64(0)
    for wd in range(pile.ob.shape[1]):  # the pieces touching i, in piece order
        x = pile.ob[i, wd]
        above = zero
        while x != 0:
            j = wd * 64 + ph.low_bit(x)
            x = ph.drop_low_bit(x)
            up = pile.h[j] > hi
            above |= ph.bit(j) if up else zero
            if j < nc:
                c = pile.cards[j, ph.CD_C]
                s = pile.cards[j, ph.CD_S]
                ex = hw * abs(c) + hh * abs(s)
                ey = hw * abs(s) + hh * abs(c)
                px = pile.cards[j, ph.CD_X]
                py = pile.cards[j, ph.CD_Y]
            else:
                ex = fr
                ey = fr
                px = pile.feathers[j - nc, ph.FT_X]
                py = pile.feathers[j - nc, ph.FT_Y]
            d = max(0.0, min(hx - abs(px) - ex, hy - abs(py) - ey))
            far = d + (0.0 if up else math.inf)  # a piece not resting on i counts as far
            if far < near:
                keep *= 1.0 - 0.5 * math.exp(-d * d / two)
        for k in range(N_NESTS):
            missing = (pile.nb[k, wd] & ~above) != zero
            bad |= np.int64(missing) << k
    v = 0.0
    for k in range(N_NESTS):
        only = (pile.ncount[k] > 0) & (nestv[k] != 0.0) & (((bad >> k) & 1) == 0)
        v += 0.5 * nestv[k] if only else 0.0
    return 1.0 - keep, v


@njit(cache=True, _nrt=False, forceinline=True)
def all_rest_on(st, w, y):
    """Whether every card on top of card ``w`` (what keeps it from being picked, CV-5) also
    rests on card ``y``."""
    pile = st.pile
    nc = pile.cards.shape[0]
    hw = pile.cards[w, ph.CD_H]
    hy = pile.cards[y, ph.CD_H]
    for wd in range(pile.ob.shape[1]):
        x = pile.ob[w, wd]
        while x != 0:  # the pieces touching w
            j = wd * 64 + ph.low_bit(x)
            x = ph.drop_low_bit(x)
            if j >= nc:
                return True  # the feathers come after the cards
            h = ph.piece_h(pile, j)
            if h > hw and (pile.ov[y, j] == 0 or h <= hy):
                return False
    return True


@njit(cache=True, _nrt=False, forceinline=True)
def peck_value(tb, st, p, fb, i, target, base, base_not_i, nestv):
    """The greedy value of pecking card ``i``, perhaps to expose card ``target`` (-1 none)."""
    w = tb.weights[p]
    pile = st.pile
    b = base_not_i if pile.cov[i, ph.COV_CARDS] == 0 else base
    # i is set down on top: certain to end pickable if no card rests on it (CV-5: feathers
    # landing on it do not block)
    shed = 1.0 if pile.cov[i, ph.COV_CARDS] == 0 else w[T.W_SHED]
    gain = shed * max(0.0, flipped_worth(st, fb, i) - b)
    if target >= 0 and all_rest_on(st, target, i):
        gain = max(
            gain,
            w[T.W_EXPOSE] * max(0.0, take_value(tb, st, p, fb, target, nestv, np.bool_(False)) - b),
        )
    if pile.cov[i, ph.COV_ANY] == 0:  # nothing rests on it: nothing moves but i itself
        return b + gain
    risk, nests = peck_risk(tb, st, p, i, nestv)
    return (1.0 - risk) * (b + gain) + nests


@njit(cache=True, _nrt=False, forceinline=True)
def add_candidate(ib, fb, n, c, target, v):
    """Add (or better) candidate card ``c`` in ib[IB_CAND], ib[IB_TARGET] / fb[FB_NEST, NV_CAND:],
    returning the count."""
    for k in range(n):
        if ib[S.IB_CAND, k] == c:
            if v > fb[S.FB_NEST, NV_CAND + k]:
                fb[S.FB_NEST, NV_CAND + k] = v
                ib[S.IB_TARGET, k] = target
            return n
    if NV_CAND + n >= fb.shape[1]:
        return n
    ib[S.IB_CAND, n] = c
    ib[S.IB_TARGET, n] = target
    fb[S.FB_NEST, NV_CAND + n] = v
    return n + 1


@njit(cache=True, _nrt=False, forceinline=True)
def support(st, wc):
    """A card that the lowest card on top of card ``wc`` (what keeps it from being picked, CV-5)
    rests on (not ``wc``), -1 none."""
    pile = st.pile
    nc = pile.cards.shape[0]
    hw = pile.cards[wc, ph.CD_H]
    lo = np.int64(-1)
    lo_h = math.inf
    for wd in range(pile.ob.shape[1]):
        x = pile.ob[wc, wd]
        while x != 0:  # the cards touching wc (the feathers come after them)
            j = wd * 64 + ph.low_bit(x)
            x = ph.drop_low_bit(x)
            if j >= nc:
                break
            h = ph.piece_h(pile, j)
            if hw < h < lo_h:
                lo_h = h
                lo = np.int64(j)
    if lo < 0:
        return lo
    return card_under(pile, lo, lo_h, wc)


@njit(cache=True, _nrt=False, forceinline=True)
def card_under(pile, k, hk, skip):
    """The first card (by index) under piece ``k`` (at height ``hk``) that touches it, other than
    ``skip``; -1 none."""
    nc = pile.cards.shape[0]
    for wd in range(pile.ob.shape[1]):
        x = pile.ob[k, wd]
        while x != 0:
            y = wd * 64 + ph.low_bit(x)
            x = ph.drop_low_bit(x)
            if y >= nc:
                return np.int64(-1)  # the feathers come after the cards
            if y != skip and pile.cards[y, ph.CD_H] < hk:
                return y
    return np.int64(-1)


@njit(cache=True, _nrt=False, forceinline=False)
def greedy_peck(tb, st, p, ib, fb):
    pile = st.pile
    nestv = fb[S.FB_NEST, NV_NEST : NV_NEST + N_NESTS]
    seat_nest_values(tb, st, p, fb)
    prepare(tb, st, p, fb, nestv)
    # one pass: the cheap value of taking each card, the top card, the best two uncovered
    # cards, the three cards it wants most, and uncovered cards worth more the other way up (a
    # face-up coin) as candidates
    top = np.int64(-1)
    top_h = -1.0
    best1 = 0.0
    best2 = 0.0
    best1_c = np.int64(-1)
    w0 = np.int64(-1)
    w1 = np.int64(-1)
    w2 = np.int64(-1)
    v0 = _NEG
    v1 = _NEG
    v2 = _NEG
    n = np.int64(0)
    # take_value(..., exact=False) in parts: the worth and ability of each up side (BLANK too)
    # once, the feathers, and the nests a card alone covers added to that card only
    take = fb[S.FB_WORTH, FV_TAKE : FV_TAKE + T.NI + 1]
    flip = fb[S.FB_WORTH, FV_FLIP : FV_FLIP + T.NI + 1]
    for u in range(-1, T.NI):
        take[u + 1] = shown_item_worth(fb, u) + item_ability(tb, p, fb, u)
        flip[u + 1] = flipped_item_worth(fb, u)
    wf = tb.weights[p, T.W_FEATHER]
    bonus = fb[S.FB_BONUS]
    for t in range(np.int64(fb[S.FB_WORTH, FV_ONE_NESTS])):
        k = np.int64(fb[S.FB_WORTH, FV_NEST0 + t])
        bonus[pile.nsum[k]] += nestv[k]
    # Whether a card is uncovered, and which is on top, are coin tosses to the processor's branch
    # predictor: they are selects below (`&`, `|` and `x if c else y`, no jumps); the branches
    # left are rarely taken once a few cards have been seen.
    for t in range(pile.n_on[0]):
        c = np.int64(pile.lst[0, t])
        u1 = S.up_item(st, c) + 1
        v = take[u1] + wf * pile.cov[c, ph.COV_FEATHERS] + bonus[c]
        h = pile.cards[c, ph.CD_H]
        higher = h > top_h
        top = c if higher else top
        top_h = h if higher else top_h
        if v > v2:
            if v > v0:
                w2, v2, w1, v1, w0, v0 = w1, v1, w0, v0, c, v
            elif v > v1:
                w2, v2, w1, v1 = w1, v1, c, v
            else:
                w2, v2 = c, v
        # the best two pickable cards, no card on them (CV-5; the first one seen is best1
        # whatever its value)
        free = pile.cov[c, ph.COV_CARDS] == 0
        new1 = free & ((best1_c < 0) | (v > best1))
        new2 = free & (not new1) & (v > best2)
        best2 = (best1 if best1_c >= 0 else best2) if new1 else (v if new2 else best2)
        best1 = v if new1 else best1
        best1_c = c if new1 else best1_c
        if free & (flip[u1] > v + 0.5):
            n = add_candidate(ib, fb, n, c, np.int64(-1), 0.0)
    for t in range(np.int64(fb[S.FB_WORTH, FV_ONE_NESTS])):
        bonus[pile.nsum[np.int64(fb[S.FB_WORTH, FV_NEST0 + t])]] = 0.0
    n = add_candidate(ib, fb, n, top, np.int64(-1), 0.0)
    for r in range(3):
        wc = w0 if r == 0 else (w1 if r == 1 else w2)
        if wc < 0:
            break
        n = add_candidate(ib, fb, n, wc, np.int64(-1), 0.0)
        if pile.cov[wc, ph.COV_CARDS] > 0:
            y = support(st, wc)
            if y >= 0:
                n = add_candidate(ib, fb, n, y, wc, 0.0)
    # a card under the card that alone covers a rival's nest (prepare listed such nests)
    for t in range(np.int64(fb[S.FB_WORTH, FV_ONE_NESTS])):
        k = np.int64(fb[S.FB_WORTH, FV_NEST0 + t])
        if nestv[k] <= 0.0:
            continue
        x = pile.nsum[k]  # the one card covering it
        y = card_under(pile, x, pile.cards[x, ph.CD_H], x)
        if y >= 0:
            n = add_candidate(ib, fb, n, y, np.int64(-1), 0.0)
    for k in range(n):
        c = ib[S.IB_CAND, k]
        base_not_i = best2 if c == best1_c else best1
        fb[S.FB_NEST, NV_CAND + k] = peck_value(
            tb, st, p, fb, c, ib[S.IB_TARGET, k], best1, base_not_i, nestv
        )
    # the best visible candidate (the top card always is)
    while True:
        bk = np.int64(-1)
        bv = _NEG
        for k in range(n):
            if ib[S.IB_CAND, k] >= 0 and fb[S.FB_NEST, NV_CAND + k] > bv:
                bv = fb[S.FB_NEST, NV_CAND + k]
                bk = np.int64(k)
        if bk < 0:
            return top
        c = ib[S.IB_CAND, bk]
        if ph.visible(tb.physics, pile, c):
            return c
        ib[S.IB_CAND, bk] = -1


@njit(cache=True, _nrt=False, forceinline=False)
def choose_peck(tb, st, p, ib, fb):
    """CV-5, CV-9: the card seat ``p`` pecks (D_PECK; its aim is D_AIM's, ``choose_aim``). A
    scripted seat names its aim with the card (G_AIM_NAMED); the random seat draws visible cards
    uniformly (rejection over the pile's cards: exactly uniform)."""
    pile = st.pile
    nc = pile.cards.shape[0]
    if scripted(tb, st, p, 3):
        c = np.int64(next_value(tb, st, p))
        st.fx[S.FX_AIM_X] = next_value(tb, st, p)
        st.fx[S.FX_AIM_Y] = next_value(tb, st, p)
        st.board[S.G_AIM_NAMED] = 1
        if c < 0 or c >= nc or pile.att[c] == 0 or not ph.visible(tb.physics, pile, c):
            st.board[S.G_SCRIPT_BAD] = 1
            c = greedy_peck(tb, st, p, ib, fb)
        return c
    if is_random(tb, p):
        n = pile.n_on[0]
        r = prng(st, p)
        while True:  # rejection: uniform over the visible cards
            c = pile.lst[0, below(r, n)]
            if ph.visible(tb.physics, pile, c):
                return np.int64(c)
    return greedy_peck(tb, st, p, ib, fb)


@njit(cache=True, _nrt=False, forceinline=False)
def choose_aim(tb, st, p):
    """CV-9: where seat ``p`` aims at the card it pecks (D_AIM): the point it named (a scripted
    seat), a uniform point of the card (random: drawn by the engine from the seat's stream), or a
    little outward of its centre, so that what moves (away from the aim) goes towards the middle
    of the mat (greedy)."""
    if st.board[S.G_AIM_NAMED] == 1:
        return np.int64(S.AIM_NAMED)
    if is_random(tb, p):
        return np.int64(S.AIM_RANDOM)
    return np.int64(S.AIM_OUTWARD)


@njit(cache=True, _nrt=False, forceinline=False)
def greedy_acorn(tb, st, p, ib, fb):
    """The card the greedy seat pecks with an acorn, -1 to decline (CV-4, CV-5: resolving is
    optional). No pick follows this peck, so all it can bring the seat this turn is a rival's
    nest uncovered before its steal (or its own nest, against it): it weighs the cards under each
    card that alone covers a nest of some worth to it (those ``greedy_peck`` weighs for a nest),
    each at (1 - the chance something falls off the mat, which ends the turn) x half the value of
    the nests that only the pieces resting on it cover (``peck_risk``), and pecks the best
    visible one if that is worth more than 0. A peck that can uncover nothing only risks its
    turn and rearranges the pile for the next seat: declined."""
    pile = st.pile
    nestv = fb[S.FB_NEST, NV_NEST : NV_NEST + N_NESTS]
    seat_nest_values(tb, st, p, fb)
    prepare(tb, st, p, fb, nestv)
    best = np.int64(-1)
    bv = 0.0
    for t in range(np.int64(fb[S.FB_WORTH, FV_ONE_NESTS])):
        k = np.int64(fb[S.FB_WORTH, FV_NEST0 + t])
        if nestv[k] <= 0.0:
            continue
        x = pile.nsum[k]  # the one card covering it
        y = card_under(pile, x, pile.cards[x, ph.CD_H], x)
        if y < 0:
            continue
        risk, nests = peck_risk(tb, st, p, y, nestv)
        v = (1.0 - risk) * nests
        if v > bv and ph.visible(tb.physics, pile, y):
            bv = v
            best = y
    return best


@njit(cache=True, _nrt=False, forceinline=False)
def choose_acorn(tb, st, p, ib, fb):
    """CV-4, CV-5: whether seat ``p`` uses an acorn's peck and which card it pecks (D_ACORN):
    the card, ``C_NO`` to decline (its aim is D_AIM's). A scripted seat takes one value (1 pecks,
    0 declines) and then its peck's three; the random seat pecks on an even draw of its own
    stream, then as for any peck."""
    if scripted(tb, st, p, 1):
        if next_value(tb, st, p) < 0.5:
            return np.int64(S.C_NO)
        return choose_peck(tb, st, p, ib, fb)
    if is_random(tb, p):
        if below(prng(st, p), np.int64(2)) == 0:
            return np.int64(S.C_NO)
        return choose_peck(tb, st, p, ib, fb)
    c = greedy_acorn(tb, st, p, ib, fb)
    return c if c >= 0 else np.int64(S.C_NO)


# ---------------------------------------------------------------- picks and abilities


@njit(cache=True, _nrt=False, forceinline=False)
def choose_pick(tb, st, p, ib, fb, n):
    """CV-5: which of the ``n`` cards in ``ib[IB_OFFER]`` seat ``p`` picks (an index)."""
    if scripted(tb, st, p, 1):
        return scripted_index(tb, st, p, ib, n, np.bool_(False))
    if is_random(tb, p):
        return below(prng(st, p), n)
    nestv = fb[S.FB_NEST, NV_NEST : NV_NEST + N_NESTS]
    seat_nest_values(tb, st, p, fb)
    prepare(tb, st, p, fb, nestv)
    best = np.int64(0)
    bv = _NEG
    for k in range(n):
        v = take_value(tb, st, p, fb, ib[S.IB_OFFER, k], nestv, np.bool_(True))
        if v > bv:
            bv = v
            best = np.int64(k)
    return best


@njit(cache=True, _nrt=False, forceinline=False)
def choose_take(tb, st, p, ib, fb, n, kind):
    """CV-4: which of the ``n`` cards in ``ib[IB_OFFER]`` an earring or paperclip (``kind``)
    takes, -1 none."""
    if scripted(tb, st, p, 1):
        return scripted_index(tb, st, p, ib, n, np.bool_(True))
    if is_random(tb, p):
        k = below(prng(st, p), n + 1)
        return k if k < n else np.int64(-1)
    nestv = fb[S.FB_NEST, NV_NEST : NV_NEST + N_NESTS]
    seat_nest_values(tb, st, p, fb)
    prepare(tb, st, p, fb, nestv)
    best = np.int64(-1)
    bv = 0.0
    for k in range(n):
        v = take_value(tb, st, p, fb, ib[S.IB_OFFER, k], nestv, np.bool_(True))
        if v >= bv:
            bv = v
            best = np.int64(k)
    return best


@njit(cache=True, _nrt=False, forceinline=False)
def choose_feather(tb, st, p, ib, fb, n, took):
    """CV-4 (nut): which of the ``n`` pile feathers in ``ib[IB_OFFER]`` seat ``p`` takes, -1
    none."""
    if scripted(tb, st, p, 1):
        return scripted_index(tb, st, p, ib, n, np.bool_(True))
    if is_random(tb, p):
        # uniform over how many to take (0, 1 or 2), then over which
        # each feather is drawn uniformly among those left and "no more feathers"
        k = below(prng(st, p), n + 1)
        return k if k < n else np.int64(-1)
    if tb.weights[p, T.W_FEATHER] <= 0.0:
        return np.int64(-1)
    # the highest feather (the easiest to reach)
    pile = st.pile
    best = np.int64(0)
    bh = -1.0
    for k in range(n):
        h = pile.feathers[ib[S.IB_OFFER, k], ph.FT_H]
        if h > bh:
            bh = h
            best = np.int64(k)
    return best


# ---------------------------------------------------------------- tickets and steals


@njit(cache=True, _nrt=False, forceinline=False)
def rival_open(tb, st, p):
    """Whether some other seat holding a card has its nest uncovered now."""
    for q in range(st.board[S.G_N]):
        if q != p and st.pile.ncount[tb.params[T.P_BIRD_NEST + st.pl[q, S.PL_BIRD]]] == 0:
            for c in range(st.cc.shape[0]):
                if st.cc[c, S.CC_OWNER] == q:
                    return True
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def choose_tickets(tb, st, p, ib, fb, n):
    """CV-4: how many of its ``n`` usable tickets seat ``p`` flips at the start of its turn."""
    if scripted(tb, st, p, 1):
        return np.int64(max(0, min(n, np.int64(next_value(tb, st, p)))))
    if is_random(tb, p):
        return below(prng(st, p), n + 1)
    cost = tb.params[T.P_STEAL_COST]
    if not rival_open(tb, st, p):
        return np.int64(0)
    can = st.pl[p, S.PL_FEATHERS] // cost - 1 if cost > 0 else n
    return np.int64(max(0, min(n, can)))


@njit(cache=True, _nrt=False, forceinline=False)
def string_risks(tb, st, p, out):
    """``out[v]``: the chance, as seat ``p`` sees it, that seat ``v`` holds an unused face-down
    string (0 for ``p`` itself), from the deck's proportions, in one pass over the collected
    cards."""
    n = st.board[S.G_N]
    # counted without a branch per card: owners from OWN_REMOVED (-2) up, in out[SR_SEAT0 + owner]
    for v in range(S.OWN_REMOVED, n):
        out[SR_SEAT0 + v] = 0.0
    for c in range(st.cc.shape[0]):
        hidden = (
            (st.item[c, 1] == T.BLANK)
            & (st.cc[c, S.CC_TAKEN_FACE] == 0)
            & (st.cc[c, S.CC_USED] == 0)
        )
        out[SR_SEAT0 + st.cc[c, S.CC_OWNER]] += 1.0 if hidden else 0.0
    for v in range(n):
        out[SR_CHANCE + v] = out[SR_SEAT0 + v]
    tot = tb.params[T.P_SINGLE_N + T.STRING] + tb.params[T.P_SINGLE_N + T.TICKET]
    tot += tb.params[T.P_SINGLE_N + T.COIN]
    q = tb.params[T.P_SINGLE_N + T.STRING] / tot if tot > 0 else 0.0
    for v in range(n):
        m = np.int64(out[SR_CHANCE + v])
        out[SR_CHANCE + v] = 1.0 - (1.0 - q) ** m if v != p else 0.0


@njit(cache=True, _nrt=False, forceinline=False)
def choose_steal(tb, st, p, ib, fb, n):
    """CV-11: which of the ``n`` stealable cards in ``ib[IB_OFFER]`` seat ``p`` steals, -1
    none."""
    if scripted(tb, st, p, 1):
        return scripted_index(tb, st, p, ib, n, np.bool_(True))
    if is_random(tb, p):
        k = below(prng(st, p), n + 1)
        return k if k < n else np.int64(-1)
    w = tb.weights[p]
    best = np.int64(-1)
    bv = _NEG
    string_risks(tb, st, p, fb[S.FB_RISK])  # each victim's chance of a string, once
    seat_nest_values(tb, st, p, fb)
    prepare(tb, st, p, fb, fb[S.FB_NEST, NV_NEST : NV_NEST + N_NESTS])
    for k in range(n):
        c = ib[S.IB_OFFER, k]
        # a rival's face-down single-sided card: expected; else face up as it counts
        # (held_worth of a rival's card, as a select)
        down = (st.item[c, 1] == T.BLANK) & (st.cc[c, S.CC_TAKEN_FACE] == 0)
        hv = fb[S.FB_WORTH, FV_SINGLE_DOWN] if down else fb[S.FB_WORTH, FV_UP + S.counts_as(st, c)]
        v = hv * (1.0 - fb[S.FB_RISK, SR_CHANCE + st.cc[c, S.CC_OWNER]])
        if v > bv:
            bv = v
            best = np.int64(k)
    if best >= 0 and bv - tb.params[T.P_STEAL_COST] * w[T.W_FEATHER] >= w[T.W_STEAL]:
        return best
    return np.int64(-1)


@njit(cache=True, _nrt=False, forceinline=False)
def choose_string(tb, st, v, c, ib, fb):
    """CV-4: whether seat ``v`` flips a face-down string to keep card ``c`` from a thief."""
    if scripted(tb, st, v, 1):
        return next_value(tb, st, v) > 0.5
    if is_random(tb, v):
        return below(prng(st, v), np.int64(2)) == 1
    return held_worth(tb, st, v, c) > 0.0


# ---------------------------------------------------------------- the decision points


@njit(cache=True, _nrt=False, inline="always")
def offered(ib, k):
    """The code of offer ``k`` of ``ib[IB_OFFER]`` (-1: C_NO)."""
    return ib[S.IB_OFFER, k] if k >= 0 else np.int64(S.C_NO)


@njit(cache=True, _nrt=False, inline="always")
def choose(tb, st, work):
    """The code the acting seat's configured policy picks for the pending decision (one of
    ``engine.legal``'s). The offers are listed in the orders the policies have always drawn from
    (the pile's list order, the paperclip's touches), so that every draw is as it was. A small
    function inlined into ``play_game``; the rest in ``choose_rest``."""
    p, kind = S.pending(st)
    if kind == S.D_PECK:
        return choose_peck(tb, st, p, work.ib, st.memo)
    if kind == S.D_AIM:
        if st.board[S.G_AIM_NAMED] == 1:  # choose_aim, inlined
            return np.int64(S.AIM_NAMED)
        if is_random(tb, p):
            return np.int64(S.AIM_RANDOM)
        return np.int64(S.AIM_OUTWARD)
    return choose_rest(tb, st, p, kind, work)


@njit(cache=True, _nrt=False, forceinline=True)
def choose_rest(tb, st, p, kind, work):
    """``choose`` for every kind but the peck and its aim."""
    ib = work.ib
    fb = st.memo
    out = ib[S.IB_OFFER]
    if kind == S.D_PICK:
        pile = st.pile
        n = np.int64(0)
        for t in range(pile.n_on[0]):  # state.pick_offers, written out (one call less a turn)
            c = pile.lst[0, t]
            out[n] = c
            n += np.int64(pile.cov[c, ph.COV_CARDS] == 0)
        return ib[S.IB_OFFER, choose_pick(tb, st, p, ib, fb, n)]
    if kind == S.D_ACORN:
        return choose_acorn(tb, st, p, ib, fb)
    if kind == S.D_EARRING:
        n = S.earring_offers(st, out)
        return offered(ib, choose_take(tb, st, p, ib, fb, n, np.int64(T.EARRING)))
    if kind == S.D_PAPERCLIP:
        n = S.paperclip_offers(st, out)
        return offered(ib, choose_take(tb, st, p, ib, fb, n, np.int64(T.PAPERCLIP)))
    if kind == S.D_FEATHER:
        n = S.feather_offers(st, out)
        return offered(ib, choose_feather(tb, st, p, ib, fb, n, st.board[S.G_NUT_TOOK]))
    if kind == S.D_STEAL:
        n = S.steal_offers(tb, st, p, out)
        return offered(ib, choose_steal(tb, st, p, ib, fb, n))
    if kind == S.D_STRING:
        keep = choose_string(tb, st, p, st.board[S.G_STEAL_CARD], ib, fb)
        return st.board[S.G_STRING] if keep else np.int64(S.C_NO)
    if kind == S.D_TICKET:
        # the count is planned at the turn's first ticket point (G_TK_PLAN), as the policies
        # have always chosen it, then flipped one point at a time, the lowest card first
        n = S.ticket_offers(st, p, out)
        if st.board[S.G_TK_PLAN] < 0:
            st.board[S.G_TK_PLAN] = choose_tickets(tb, st, p, ib, fb, n)
        if st.board[S.G_TK_FLIPPED] < st.board[S.G_TK_PLAN]:
            return ib[S.IB_OFFER, 0]
        return np.int64(S.C_NO)
    return np.int64(-1)
