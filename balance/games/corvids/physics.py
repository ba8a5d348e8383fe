"""Corvids physical model of the trash pile (RULINGS CV-5, CV-6, CV-8, CV-9): numba kernels over
plain arrays that the engine will hold in its state.

Coordinates are millimetres with the origin at the centre of the mat, x along its width and y
along its height; the mat is ``[-W/2, W/2] x [-H/2, H/2]``. A card is a ``CARD_W x CARD_H``
rectangle turned by its angle (radians, counter-clockwise; at angle 0 its width lies along x); a
feather is a disc. Nest ``k`` (0-7) is a circle centred at angle ``2 pi k / 8 + NEST_PHASE`` on the
ellipse of semi-axes ``NEST_AX * W`` and ``NEST_AY * H`` (``nest_xy``, ``nest_centres``).

::

    params    float64[N_PH]            every physical number (PH_*, ``default_params``)
    cards     float64[MAXC, N_CD]      per card: CD_X, CD_Y (centre), CD_A (angle), CD_H (height)
    cst       int64[MAXC, N_CS]        per card: CS_ON (1 in the pile), CS_FACE (1 up, 0 down),
                                       CS_MARK (set by the last peck / remove_isolated call:
                                       off the mat / removed; set-up's pushes use it for the
                                       nests each card overlaps, and clear it), CS_MOVED
                                       (displaced by the last peck)
    feathers  float64[MAXF, N_FT]      per feather: FT_X, FT_Y (centre), FT_H (height)
    fst       int64[MAXF, N_FS]        per feather: FS_ON, FS_MARK, FS_MOVED (as for cards)
    rng       uint64[1]                the pile's random stream (balance.rng)

Rows ``[0, n_cards)`` and ``[0, n_feathers)`` are the pieces of the game; a piece is in the pile
while its ``ON`` flag is 1 and every kernel ignores the others. Heights are stack order: a piece
placed or landing anew gets ``new_height`` = 1 + the highest height of *any* row (in the pile or
not), so heights only ever grow and a higher piece is always the later placed.

Readings where CV-8 / CV-9 leave a choice (cite as PHYS-n):

- PHYS-1 Outlines are closed and tolerant: two outlines overlap ("touch", CV-8) when they are
  within ``PH_EPS`` (default 1e-6 mm) of each other, so pieces that only abut touch, and a piece
  abutting a lower card is on top of it. Continuous placements abut with probability 0.
- PHYS-2 "Covered" (CV-8) counts cards and feathers: card ``i`` is covered when any higher card
  or feather overlaps it (``covered``, ``COV_ANY``). What the rules ask of a card is narrower:
  only a higher *card* keeps it from being picked or taken by an earring (CV-5: a feather on it
  does not block, and comes with it; ``COV_CARDS``), only cards cover nests (CV-6) and only
  cards hide a card ("any part visible", CV-8): a feather lying on a card does not stop it being
  pecked.
- PHYS-3 "Any part visible" is sampled: a grid of ``PH_VIS_NX x PH_VIS_NY`` points spanning the
  card edge to edge (corners and, with odd counts, edge midpoints included) and ``PH_VIS_EDGE``
  more points along each edge; a point is visible when no higher card contains it (closed, with
  ``PH_EPS``). A card called visible is truly visible; a card whose visible part falls between
  the points is missed. Measured against shapely (the area of the card outside the union of the
  higher cards > 1e-6 mm²) on 3,000 scattered piles of 40 cards (108,864 truly visible cards):
  the default 7 x 9 grid + 16 points an edge (127 points) misses 2.0 % of the visible cards, each
  showing less than 270 mm² (5 % of a card); 13 x 17 + 32 (349 points) misses 1.1 %, each below
  56 mm²; 5 x 7 alone misses 4.4 %, below 470 mm². None was falsely called visible.
- PHYS-4 Set-up (CV-8) places the cards in row order (height 1, 2, ...; shuffle the rows first for
  another order), each centre normal around the mat centre (sd ``PH_SCATTER_SD_X`` and
  ``PH_SCATTER_SD_Y``), angle uniform in [0, 2 pi), face up or down with even odds; a card that
  lands partly off the mat is drawn again on its own (measured: 3.3 % of draws with the
  defaults). Then every nest must be covered, by the reading ``PH_NEST_COVER`` names:

  * ``NEST_COMPLETE`` (the rulebook, the default): no point of the circle bare, judged exactly
    (``nest_complete``) with ``COVER_MARGIN`` to spare. A scatter alone almost never does it
    (measured on 300,000 scatters that overlap every nest: 16.7 % of nests are completely
    covered, seven of the eight in 5 scatters, all eight in none), and the rulebook's players
    do not scatter again: they "mix the cards and push them around". So set-up pushes cards
    (``cover_nests``): each nest in turn left not completely covered gets the card nearest to
    it among those overlapping no other nest, slid over it keeping its place in the stack
    (uniform turn, the circle inside it at a uniform place; drawn again while it would stick
    out of the mat). Such a card leaves every nest done before as it was, so one pass covers
    all eight; measured with the defaults: 6.7 cards pushed and no scatter redone a set-up. The
    whole pile is scattered again only when no card can be pushed (a deck too small).
  * ``NEST_OVERLAP`` (the looser reading): some card overlaps each circle. The whole pile is
    scattered again while a nest is left uncovered; since the cards are drawn independently,
    drawing a card off the mat again on its own gives exactly the piles of re-scattering
    everything until both hold (conditioning a product of independent draws on an event about
    each draw is drawing each conditioned), at a fifth of the draws (all 40 stay on 26 % of the
    time, every nest is overlapped 43 % of the time).

  ``scatter_counted`` returns the scatters redone, the cards drawn again and the cards pushed;
  at most ``PH_SCATTER_TRIES`` scatters and as many draws of one card.
- PHYS-5 A feather (CV-1, CV-11) drops onto a uniform point of a uniformly chosen card of the pile
  and lies on top of everything (``new_height``); a drop whose disc would stick out of the mat is
  drawn again (card and point; the rulebook: feathers "stay on the mat"), at most
  ``PH_DROP_TRIES`` times, and then lies at the centre of the last card drawn (on the mat, as
  every card of the pile is, unless the feather is wider than half a card).
- PHYS-6 The peck (CV-9): the pieces resting on card ``i`` are the pieces higher than it and
  overlapping it when it is lifted (directly or through another piece that also overlaps ``i``;
  a piece lying only on a displaced piece stays put). Card ``i`` is set back down with a normal
  offset (sd ``PH_PECK_OFFSET_SD`` on each axis) and turn (sd ``PH_PECK_TURN_SD``) and, being set
  down from above, on top of what it now overlaps (``new_height``). The caller turns its face.
  Then each resting piece, lowest first, moves in the direction from the aim point to its centre
  turned by a normal angle (sd ``PH_DISPLACE_DIR_SD``; a uniform direction if it lies on the aim
  point) by a half-normal distance of scale ``PH_DISPLACE_SD * clumsiness``; a card also turns by
  a normal angle of sd ``PH_DISPLACE_TURN_SD * clumsiness``; it lands on top (``new_height``).
- PHYS-7 Off the mat (CV-5, CV-9): a card with a corner beyond an edge of the mat, a feather whose
  disc is not inside it (a piece exactly on the edge is on the mat). ``peck`` marks every piece
  of the pile off the mat and returns how many; the engine removes them.
- PHYS-8 End of turn (CV-5): every piece of the pile touching no other piece of the pile is
  removed, judged for all pieces at once (a piece left alone by a removal stays until the next
  end of turn).

Every kernel is ``@njit(cache=True, _nrt=False)``: no allocation, float64 and int64 only (uint8
for the cache's flags), and integer arguments are int64 values (``np.int64(0)``, not ``0``, where
a constant is passed). Only ``new_pile`` and ``vis_points``, which make the arrays of a new game's
state, allocate.

The engine asks its questions of a cache of the pile (``Pile``, at the end of this module), kept
piece by piece as pieces move; the kernels above, which answer from the geometry alone, are the
reference the tests hold against shapely, and the cache is held against them after every turn.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic, overload

from balance.games._kit import Offsets
from balance.rng import below, uniform

N_NESTS = 8  # one nest per bird (CV-10)

# params[PH_*]
_ph = Offsets()
PH_MAT_W = _ph(1)  # mat width (x), mm
PH_MAT_H = _ph(1)  # mat height (y), mm
PH_NEST_R = _ph(1)  # nest circle radius, mm
PH_NEST_AX = _ph(1)  # nest ellipse semi-axis along x, as a fraction of the mat width
PH_NEST_AY = _ph(1)  # nest ellipse semi-axis along y, as a fraction of the mat height
PH_NEST_PHASE = _ph(1)  # angle of nest 0 on the ellipse, rad
PH_CARD_W = _ph(1)  # card width, mm
PH_CARD_H = _ph(1)  # card height, mm
PH_FEATHER_R = _ph(1)  # feather radius, mm
PH_SCATTER_SD_X = _ph(1)  # set-up spread of card centres along x, mm (PHYS-4)
PH_SCATTER_SD_Y = _ph(1)  # ... along y, mm
PH_SCATTER_TRIES = _ph(1)  # scatters at most before giving up (scatter returns -1)
PH_DROP_TRIES = _ph(1)  # draws of a feather drop before it lies where it last fell (PHYS-5)
PH_PECK_OFFSET_SD = _ph(1)  # peck: offset of the set-back card on each axis, mm (PHYS-6)
PH_PECK_TURN_SD = _ph(1)  # peck: turn of the set-back card, rad
PH_DISPLACE_SD = _ph(1)  # peck: scale of a resting piece's displacement at clumsiness 1, mm
PH_DISPLACE_DIR_SD = _ph(1)  # peck: spread of its direction around "away from the aim", rad
PH_DISPLACE_TURN_SD = _ph(1)  # peck: turn of a displaced card at clumsiness 1, rad
PH_VIS_NX = _ph(1)  # visibility sample grid: points across the card width (PHYS-3)
PH_VIS_NY = _ph(1)  # ... along the card height
PH_VIS_EDGE = _ph(1)  # ... and more points on each edge of the outline
PH_EPS = _ph(1)  # outline tolerance, mm (PHYS-1)
PH_NEST_COVER = _ph(1)  # set-up: NEST_COMPLETE or NEST_OVERLAP (CV-8, PHYS-4)
N_PH = _ph.end

# PH_NEST_COVER: what set-up asks of each nest (CV-8). The rulebook: "all eight nests are
# completely covered" (no point of the circle visible); the looser reading: some card overlaps it.
NEST_OVERLAP = 0.0
NEST_COMPLETE = 1.0
# A nest counts as completely covered when the circle this much wider is (PHYS-4): a margin, so
# that another geometry (shapely's polygon of the circle, rounding) finds no point of it bare.
COVER_MARGIN = 0.05  # mm

# cards[c, CD_*]
_cd = Offsets()
CD_X = _cd(1)
CD_Y = _cd(1)
CD_A = _cd(1)
CD_H = _cd(1)
CD_C = _cd(1)  # cos(CD_A), kept by every kernel that turns a card (``set_angle``)
CD_S = _cd(1)  # sin(CD_A)
N_CD = _cd.end

# cst[c, CS_*]
_cs = Offsets()
CS_ON = _cs(1)
CS_FACE = _cs(1)
CS_MARK = _cs(1)
CS_MOVED = _cs(1)
N_CS = _cs.end

# feathers[f, FT_*]
_ft = Offsets()
FT_X = _ft(1)
FT_Y = _ft(1)
FT_H = _ft(1)
N_FT = _ft.end

# fst[f, FS_*]
_fs = Offsets()
FS_ON = _fs(1)
FS_MARK = _fs(1)
FS_MOVED = _fs(1)
N_FS = _fs.end

# piece kinds (touching)
K_CARD = 0
K_FEATHER = 1

_TWO_PI = 2.0 * math.pi


def default_params() -> np.ndarray:
    """The CV-8 defaults: a 560 x 380 mm mat, nests of radius 22 mm on the ellipse of semi-axes
    0.35 W and 0.32 H, 63 x 88 mm cards, feathers of radius 9 mm; the spreads are this model's."""
    p = np.zeros(N_PH, dtype=np.float64)
    p[PH_MAT_W] = 560.0
    p[PH_MAT_H] = 380.0
    p[PH_NEST_R] = 22.0
    p[PH_NEST_AX] = 0.35
    p[PH_NEST_AY] = 0.32
    p[PH_NEST_PHASE] = math.pi / 8.0
    p[PH_CARD_W] = 63.0
    p[PH_CARD_H] = 88.0
    p[PH_FEATHER_R] = 9.0
    p[PH_SCATTER_SD_X] = 95.0
    p[PH_SCATTER_SD_Y] = 60.0
    p[PH_SCATTER_TRIES] = 10000.0
    p[PH_DROP_TRIES] = 100.0
    p[PH_PECK_OFFSET_SD] = 3.0
    p[PH_PECK_TURN_SD] = 0.05
    p[PH_DISPLACE_SD] = 30.0
    p[PH_DISPLACE_DIR_SD] = 0.5
    p[PH_DISPLACE_TURN_SD] = 0.3
    p[PH_VIS_NX] = 7.0
    p[PH_VIS_NY] = 9.0
    p[PH_VIS_EDGE] = 16.0
    p[PH_EPS] = 1e-6
    p[PH_NEST_COVER] = NEST_COMPLETE
    return p


def nest_centres(params: np.ndarray) -> np.ndarray:
    """float64[N_NESTS, 2]: the centres of the nests (``nest_xy``)."""
    out = np.zeros((N_NESTS, 2), dtype=np.float64)
    for k in range(N_NESTS):
        out[k, 0], out[k, 1] = nest_xy(params, np.int64(k))
    return out


def new_state(max_cards: int, max_feathers: int) -> tuple[np.ndarray, ...]:
    """Empty ``cards, cst, feathers, fst`` arrays for up to ``max_cards`` and ``max_feathers``."""
    return (
        np.zeros((max_cards, N_CD), dtype=np.float64),
        np.zeros((max_cards, N_CS), dtype=np.int64),
        np.zeros((max_feathers, N_FT), dtype=np.float64),
        np.zeros((max_feathers, N_FS), dtype=np.int64),
    )


# ---------------------------------------------------------------- random numbers


@njit(cache=True, _nrt=False, forceinline=False)
def normal(rng, sd):
    """A normal number of mean 0 and standard deviation ``sd`` (Box-Muller, one of the pair)."""
    u1 = 1.0 - uniform(rng)  # (0, 1]
    u2 = uniform(rng)
    return sd * math.sqrt(-2.0 * math.log(u1)) * math.cos(_TWO_PI * u2)


@njit(cache=True, _nrt=False, forceinline=False)
def normal_pair(rng, sd_x, sd_y):
    """Two independent normal numbers of mean 0 and standard deviations ``sd_x`` and ``sd_y``
    (Box-Muller, both of the pair: one logarithm for two numbers)."""
    u1 = 1.0 - uniform(rng)  # (0, 1]
    u2 = uniform(rng)
    r = math.sqrt(-2.0 * math.log(u1))
    t = _TWO_PI * u2
    return sd_x * r * math.cos(t), sd_y * r * math.sin(t)


@njit(cache=True, _nrt=False, inline="always")
def set_angle(cards, i, a):
    """Turn card ``i`` to angle ``a`` (rad, taken modulo 2 pi), keeping its cached cos and sin."""
    a = a % _TWO_PI
    cards[i, CD_A] = a
    cards[i, CD_C] = math.cos(a)
    cards[i, CD_S] = math.sin(a)


# ---------------------------------------------------------------- geometry


@njit(cache=True, _nrt=False, forceinline=False)
def nest_xy(params, k):
    """The centre of nest ``k`` (PH_NEST_*)."""
    t = _TWO_PI * k / N_NESTS + params[PH_NEST_PHASE]
    return (
        params[PH_NEST_AX] * params[PH_MAT_W] * math.cos(t),
        params[PH_NEST_AY] * params[PH_MAT_H] * math.sin(t),
    )


@njit(cache=True, _nrt=False, forceinline=False)
def rect_corners(cx, cy, ang, w, h, out):
    """The corners of the ``w x h`` rectangle centred at ``(cx, cy)`` turned by ``ang`` into
    ``out`` (float64[4, 2]), counter-clockwise from the one at local ``(-w/2, -h/2)``."""
    c = math.cos(ang)
    s = math.sin(ang)
    hw = 0.5 * w
    hh = 0.5 * h
    for k in range(4):
        lx = hw if (k == 1 or k == 2) else -hw
        ly = hh if k >= 2 else -hh
        out[k, 0] = cx + c * lx - s * ly
        out[k, 1] = cy + s * lx + c * ly


@njit(cache=True, _nrt=False, forceinline=False)
def rects_overlap(ax, ay, aa, aw, ah, bx, by, ba, bw, bh, eps):
    """Whether two turned rectangles overlap (PHYS-1: closed outlines, gap <= ``eps`` counts).

    Exact separating-axis test: two convex polygons are apart exactly when their projections on
    one of their edge normals are apart, and a rectangle has two normals."""
    return rects_overlap_cs(
        ax, ay, math.cos(aa), math.sin(aa), aw, ah, bx, by, math.cos(ba), math.sin(ba), bw, bh, eps
    )


@njit(cache=True, _nrt=False, inline="always")
def rects_overlap_cs(ax, ay, ca, sa, aw, ah, bx, by, cb, sb, bw, bh, eps):
    """``rects_overlap`` given the cosines and sines of the two angles."""
    tx = bx - ax
    ty = by - ay
    ahw = 0.5 * aw
    ahh = 0.5 * ah
    bhw = 0.5 * bw
    bhh = 0.5 * bh
    # cosines between the axes: ua=(ca,sa), va=(-sa,ca), ub=(cb,sb), vb=(-sb,cb)
    uu = abs(ca * cb + sa * sb)  # ua.ub = va.vb
    uv = abs(-ca * sb + sa * cb)  # ua.vb = va.ub (up to sign)
    # axis ua
    if abs(tx * ca + ty * sa) > ahw + bhw * uu + bhh * uv + eps:
        return False
    # axis va
    if abs(-tx * sa + ty * ca) > ahh + bhw * uv + bhh * uu + eps:
        return False
    # axis ub
    if abs(tx * cb + ty * sb) > bhw + ahw * uu + ahh * uv + eps:
        return False
    # axis vb
    return abs(-tx * sb + ty * cb) <= bhh + ahw * uv + ahh * uu + eps


@njit(cache=True, _nrt=False, forceinline=False)
def disc_rect_overlap(px, py, r, cx, cy, ang, w, h, eps):
    """Whether the disc of radius ``r`` at ``(px, py)`` overlaps the turned rectangle (exact: the
    nearest point of the rectangle to the centre is within ``r + eps``)."""
    return disc_rect_overlap_cs(px, py, r, cx, cy, math.cos(ang), math.sin(ang), w, h, eps)


@njit(cache=True, _nrt=False, inline="always")
def disc_rect_overlap_cs(px, py, r, cx, cy, c, s, w, h, eps):
    """``disc_rect_overlap`` given the rectangle's cosine and sine."""
    dx = px - cx
    dy = py - cy
    lx = c * dx + s * dy
    ly = -s * dx + c * dy
    hw = 0.5 * w
    hh = 0.5 * h
    qx = min(max(lx, -hw), hw)
    qy = min(max(ly, -hh), hh)
    ex = lx - qx
    ey = ly - qy
    rr = r + eps
    return ex * ex + ey * ey <= rr * rr


@njit(cache=True, _nrt=False, forceinline=False)
def disc_disc_overlap(ax, ay, ar, bx, by, br, eps):
    """Whether two discs overlap (centres within ``ar + br + eps``)."""
    dx = bx - ax
    dy = by - ay
    rr = ar + br + eps
    return dx * dx + dy * dy <= rr * rr


@njit(cache=True, _nrt=False, forceinline=False)
def point_in_rect(px, py, cx, cy, ang, w, h, eps):
    """Whether ``(px, py)`` lies in the turned rectangle or within ``eps`` of it."""
    c = math.cos(ang)
    s = math.sin(ang)
    dx = px - cx
    dy = py - cy
    lx = c * dx + s * dy
    ly = -s * dx + c * dy
    return abs(lx) <= 0.5 * w + eps and abs(ly) <= 0.5 * h + eps


# ---------------------------------------------------------------- pieces


@njit(cache=True, _nrt=False, forceinline=False)
def cards_overlap(params, cards, i, j):
    """Whether the outlines of cards ``i`` and ``j`` overlap."""
    w = params[PH_CARD_W]
    h = params[PH_CARD_H]
    return rects_overlap(
        cards[i, CD_X], cards[i, CD_Y], cards[i, CD_A], w, h,
        cards[j, CD_X], cards[j, CD_Y], cards[j, CD_A], w, h,
        params[PH_EPS],
    )  # fmt: skip


@njit(cache=True, _nrt=False, forceinline=False)
def card_feather_overlap(params, cards, i, feathers, f):
    """Whether card ``i`` and feather ``f`` overlap."""
    return disc_rect_overlap(
        feathers[f, FT_X], feathers[f, FT_Y], params[PH_FEATHER_R],
        cards[i, CD_X], cards[i, CD_Y], cards[i, CD_A], params[PH_CARD_W], params[PH_CARD_H],
        params[PH_EPS],
    )  # fmt: skip


@njit(cache=True, _nrt=False, forceinline=False)
def feathers_overlap(params, feathers, f, g):
    """Whether feathers ``f`` and ``g`` overlap."""
    r = params[PH_FEATHER_R]
    return disc_disc_overlap(
        feathers[f, FT_X], feathers[f, FT_Y], r, feathers[g, FT_X], feathers[g, FT_Y], r,
        params[PH_EPS],
    )  # fmt: skip


@njit(cache=True, _nrt=False, forceinline=False)
def card_on_top_of(params, cards, i, j):
    """Whether card ``j`` is on top of card ``i``: higher and overlapping (CV-8)."""
    return i != j and cards[j, CD_H] > cards[i, CD_H] and cards_overlap(params, cards, i, j)


@njit(cache=True, _nrt=False, forceinline=False)
def feather_on_top_of(params, cards, i, feathers, f):
    """Whether feather ``f`` is on top of card ``i``: higher and overlapping (CV-8)."""
    return feathers[f, FT_H] > cards[i, CD_H] and card_feather_overlap(
        params, cards, i, feathers, f
    )


@njit(cache=True, _nrt=False, forceinline=False)
def covered(params, cards, cst, n_cards, feathers, fst, n_feathers, i):
    """Whether card ``i`` is covered: a card or feather of the pile is on top of it (PHYS-2)."""
    for j in range(n_cards):
        if cst[j, CS_ON] == 1 and card_on_top_of(params, cards, i, j):
            return True
    for f in range(n_feathers):
        if fst[f, FS_ON] == 1 and feather_on_top_of(params, cards, i, feathers, f):
            return True
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def point_hidden(params, cards, cst, n_cards, i, px, py):
    """Whether ``(px, py)`` lies under a card of the pile higher than card ``i``."""
    hi = cards[i, CD_H]
    w = params[PH_CARD_W]
    h = params[PH_CARD_H]
    eps = params[PH_EPS]
    for j in range(n_cards):
        if (
            cst[j, CS_ON] == 1
            and cards[j, CD_H] > hi
            and point_in_rect(px, py, cards[j, CD_X], cards[j, CD_Y], cards[j, CD_A], w, h, eps)
        ):
            return True
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def any_part_visible(params, cards, cst, n_cards, i):
    """Whether some part of card ``i`` is not under a higher card (CV-5 Peck; PHYS-2, PHYS-3:
    sampled on the ``PH_VIS_NX x PH_VIS_NY`` grid, never a false "visible")."""
    nx = np.int64(params[PH_VIS_NX])
    ny = np.int64(params[PH_VIS_NY])
    w = params[PH_CARD_W]
    h = params[PH_CARD_H]
    c = math.cos(cards[i, CD_A])
    s = math.sin(cards[i, CD_A])
    cx = cards[i, CD_X]
    cy = cards[i, CD_Y]
    for a in range(nx):
        lx = w * (a / (nx - 1) - 0.5) if nx > 1 else 0.0
        for b in range(ny):
            ly = h * (b / (ny - 1) - 0.5) if ny > 1 else 0.0
            px = cx + c * lx - s * ly
            py = cy + s * lx + c * ly
            if not point_hidden(params, cards, cst, n_cards, i, px, py):
                return True
    # the outline, PH_VIS_EDGE points per edge between the grid's own points
    ne = np.int64(params[PH_VIS_EDGE])
    for e in range(4):
        for k in range(ne):
            t = (k + 0.5) / ne - 0.5
            if e == 0:
                lx = w * t
                ly = -0.5 * h
            elif e == 1:
                lx = 0.5 * w
                ly = h * t
            elif e == 2:
                lx = -w * t
                ly = 0.5 * h
            else:
                lx = -0.5 * w
                ly = -h * t
            px = cx + c * lx - s * ly
            py = cy + s * lx + c * ly
            if not point_hidden(params, cards, cst, n_cards, i, px, py):
                return True
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def nest_uncovered(params, cards, cst, n_cards, k):
    """Whether no card of the pile overlaps the circle of nest ``k`` (CV-6)."""
    nx, ny = nest_xy(params, k)
    r = params[PH_NEST_R]
    w = params[PH_CARD_W]
    h = params[PH_CARD_H]
    eps = params[PH_EPS]
    for j in range(n_cards):
        if cst[j, CS_ON] == 1 and disc_rect_overlap(
            nx, ny, r, cards[j, CD_X], cards[j, CD_Y], cards[j, CD_A], w, h, eps
        ):
            return False
    return True


@njit(cache=True, _nrt=False, forceinline=False)
def touching(params, cards, feathers, kind_a, a, kind_b, b):
    """Whether piece ``a`` of ``kind_a`` (K_CARD, K_FEATHER) touches piece ``b`` of ``kind_b``:
    their outlines overlap (CV-8). A piece does not touch itself."""
    if kind_a == K_CARD:
        if kind_b == K_CARD:
            return a != b and cards_overlap(params, cards, a, b)
        return card_feather_overlap(params, cards, a, feathers, b)
    if kind_b == K_CARD:
        return card_feather_overlap(params, cards, b, feathers, a)
    return a != b and feathers_overlap(params, feathers, a, b)


@njit(cache=True, _nrt=False, forceinline=False)
def touches_any(params, cards, cst, n_cards, feathers, fst, n_feathers, kind, a):
    """Whether piece ``a`` of ``kind`` touches some other piece of the pile."""
    for j in range(n_cards):
        if cst[j, CS_ON] == 1 and touching(params, cards, feathers, kind, a, K_CARD, j):
            return True
    for f in range(n_feathers):
        if fst[f, FS_ON] == 1 and touching(params, cards, feathers, kind, a, K_FEATHER, f):
            return True
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def card_outside_mat(params, cards, i):
    """Whether a corner of card ``i`` lies beyond an edge of the mat (PHYS-7)."""
    c = math.cos(cards[i, CD_A])
    s = math.sin(cards[i, CD_A])
    hw = 0.5 * params[PH_CARD_W]
    hh = 0.5 * params[PH_CARD_H]
    # half-extents of the turned card's bounding box: its corners reach exactly these
    ex = hw * abs(c) + hh * abs(s)
    ey = hw * abs(s) + hh * abs(c)
    return (
        abs(cards[i, CD_X]) + ex > 0.5 * params[PH_MAT_W]
        or abs(cards[i, CD_Y]) + ey > 0.5 * params[PH_MAT_H]
    )


@njit(cache=True, _nrt=False, forceinline=False)
def card_off_mat(params, cards, i):
    """``card_outside_mat`` from the cached trig."""
    ex = 0.5 * params[PH_CARD_W] * abs(cards[i, CD_C]) + 0.5 * params[PH_CARD_H] * abs(
        cards[i, CD_S]
    )
    ey = 0.5 * params[PH_CARD_W] * abs(cards[i, CD_S]) + 0.5 * params[PH_CARD_H] * abs(
        cards[i, CD_C]
    )
    return (
        abs(cards[i, CD_X]) + ex > 0.5 * params[PH_MAT_W]
        or abs(cards[i, CD_Y]) + ey > 0.5 * params[PH_MAT_H]
    )


@njit(cache=True, _nrt=False, forceinline=False)
def feather_outside_mat(params, feathers, f):
    """Whether the disc of feather ``f`` is not inside the mat (PHYS-7)."""
    r = params[PH_FEATHER_R]
    return (
        abs(feathers[f, FT_X]) + r > 0.5 * params[PH_MAT_W]
        or abs(feathers[f, FT_Y]) + r > 0.5 * params[PH_MAT_H]
    )


@njit(cache=True, _nrt=False, forceinline=False)
def outside_mat(params, cards, cst, n_cards, feathers, fst, n_feathers):
    """Mark (CS_MARK, FS_MARK = 1; others 0) the pieces of the pile with any part off the mat and
    return how many there are."""
    n = 0
    for j in range(n_cards):
        cst[j, CS_MARK] = 0
        if cst[j, CS_ON] == 1 and card_outside_mat(params, cards, j):
            cst[j, CS_MARK] = 1
            n += 1
    for f in range(n_feathers):
        fst[f, FS_MARK] = 0
        if fst[f, FS_ON] == 1 and feather_outside_mat(params, feathers, f):
            fst[f, FS_MARK] = 1
            n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=False)
def new_height(cards, n_cards, feathers, n_feathers):
    """1 + the highest height of any card or feather row (in the pile or not): the height of a
    piece placed now, above every other."""
    top = 0.0
    for j in range(n_cards):
        top = max(top, cards[j, CD_H])
    for f in range(n_feathers):
        top = max(top, feathers[f, FT_H])
    return top + 1.0


# ---------------------------------------------------------------- set-up


@njit(cache=True, _nrt=False, forceinline=False)
def scatter(params, cards, cst, n_cards, rng):
    """Set-up (CV-8, PHYS-4): scatter cards ``[0, n_cards)`` over the mat until every card is
    fully on it and every nest is covered (completely, or overlapped: ``PH_NEST_COVER``). Returns
    the scatters redone (0: the first one held), or -1 if ``PH_SCATTER_TRIES`` scatters all
    failed (the last one is left in place)."""
    tries, _, _ = scatter_counted(params, cards, cst, n_cards, rng)
    return tries


@njit(cache=True, _nrt=False, forceinline=False)
def scatter_counted(params, cards, cst, n_cards, rng):
    """``scatter``, returning ``(scatters redone, cards drawn again for landing off the mat,
    cards pushed onto a nest)``; ``(-1, draws, pushes)`` if set-up failed (PHYS-4)."""
    tries = np.int64(params[PH_SCATTER_TRIES])
    sdx = params[PH_SCATTER_SD_X]
    sdy = params[PH_SCATTER_SD_Y]
    w = params[PH_CARD_W]
    h = params[PH_CARD_H]
    r = params[PH_NEST_R]
    eps = params[PH_EPS]
    complete = params[PH_NEST_COVER] == NEST_COMPLETE
    redraws = np.int64(0)
    pushes = np.int64(0)
    for t in range(tries):
        for j in range(n_cards):
            for d in range(tries):  # a card off the mat is drawn again on its own
                cards[j, CD_X], cards[j, CD_Y] = normal_pair(rng, sdx, sdy)
                set_angle(cards, j, _TWO_PI * uniform(rng))
                if not card_off_mat(params, cards, j):
                    break
                redraws += 1
                if d == tries - 1:
                    return np.int64(-1), redraws, pushes
            cards[j, CD_H] = j + 1.0
            cst[j, CS_ON] = 1
            cst[j, CS_FACE] = below(rng, np.int64(2))
            cst[j, CS_MARK] = 0
            cst[j, CS_MOVED] = 0
        if complete:
            # the players push cards around until every nest is completely covered
            pushes, more = cover_nests(params, cards, cst, n_cards, rng)
            redraws += more
            if pushes >= 0:
                return np.int64(t), redraws, pushes
            pushes = np.int64(0)
            continue
        ok = True
        for k in range(N_NESTS):
            nx, ny = nest_xy(params, np.int64(k))
            hit = False
            for j in range(n_cards):
                if disc_rect_overlap_cs(
                    nx, ny, r, cards[j, CD_X], cards[j, CD_Y], cards[j, CD_C], cards[j, CD_S],
                    w, h, eps,
                ):  # fmt: skip
                    hit = True
                    break
            if not hit:
                ok = False
                break
        if ok:
            return np.int64(t), redraws, pushes
    return np.int64(-1), redraws, pushes


@njit(cache=True, _nrt=False, forceinline=False)
def nest_bits(params, cards, j):
    """The nests card ``j`` overlaps, as bits (bit k: nest k; PHYS-1's tolerance)."""
    w = params[PH_CARD_W]
    h = params[PH_CARD_H]
    r = params[PH_NEST_R]
    eps = params[PH_EPS]
    reach = 0.5 * math.sqrt(w * w + h * h) + r + eps
    out = np.int64(0)
    for m in range(N_NESTS):
        mx, my = nest_xy(params, np.int64(m))
        dx = cards[j, CD_X] - mx
        dy = cards[j, CD_Y] - my
        if dx * dx + dy * dy <= reach * reach and disc_rect_overlap_cs(
            mx, my, r, cards[j, CD_X], cards[j, CD_Y], cards[j, CD_C], cards[j, CD_S], w, h, eps
        ):
            out |= np.int64(1) << m
    return out


@njit(cache=True, _nrt=False, forceinline=False)
def cover_nests(params, cards, cst, n_cards, rng):
    """Set-up's pushes (CV-8, PHYS-4): for each nest in turn that the pile does not cover
    completely (``nest_complete``), the card nearest to it among those overlapping no other nest
    is slid over it, keeping its place in the stack: a uniform turn, and its centre where the
    nest's circle (``COVER_MARGIN`` wider) lies inside it, uniformly; drawn again while the card
    would stick out of the mat. A card overlapping no other nest leaves the nests done before as
    covered as they were. Returns ``(cards pushed, draws redone for landing off the mat)``, or
    ``(-1, draws)`` when no card can be pushed or none lands on the mat in ``PH_SCATTER_TRIES``
    draws (the caller scatters again). Uses CS_MARK for the nests each card overlaps (cleared
    after)."""
    tries = np.int64(params[PH_SCATTER_TRIES])
    w = params[PH_CARD_W]
    h = params[PH_CARD_H]
    r = params[PH_NEST_R]
    # where the nest's centre may lie in the card's own frame, the wider circle inside it
    # (two margins: rounding never puts it out)
    ux = max(0.0, 0.5 * w - r - 2.0 * COVER_MARGIN)
    uy = max(0.0, 0.5 * h - r - 2.0 * COVER_MARGIN)
    pushes = np.int64(0)
    redraws = np.int64(0)
    # the nests each card overlaps (nest by nest: each centre worked out once)
    eps = params[PH_EPS]
    reach = 0.5 * math.sqrt(w * w + h * h) + r + eps
    for j in range(n_cards):
        cst[j, CS_MARK] = 0
    for m in range(N_NESTS):
        mx, my = nest_xy(params, np.int64(m))
        for j in range(n_cards):
            dx = cards[j, CD_X] - mx
            dy = cards[j, CD_Y] - my
            if (
                cst[j, CS_ON] == 1
                and dx * dx + dy * dy <= reach * reach
                and disc_rect_overlap_cs(
                    mx, my, r, cards[j, CD_X], cards[j, CD_Y], cards[j, CD_C], cards[j, CD_S],
                    w, h, eps,
                )
            ):  # fmt: skip
                cst[j, CS_MARK] |= np.int64(1) << m
    for k in range(N_NESTS):
        if nest_complete(params, cards, cst, n_cards, np.int64(k)):
            continue
        nx, ny = nest_xy(params, np.int64(k))
        others = ~(np.int64(1) << k)
        best = np.int64(-1)
        best_d = math.inf
        for j in range(n_cards):
            dx = cards[j, CD_X] - nx
            dy = cards[j, CD_Y] - ny
            d = dx * dx + dy * dy
            if cst[j, CS_ON] == 1 and (cst[j, CS_MARK] & others) == 0 and d < best_d:
                best_d = d
                best = np.int64(j)
        if best < 0:
            pushes = np.int64(-1)
            break
        for d in range(tries):
            set_angle(cards, best, _TWO_PI * uniform(rng))
            lx = ux * (2.0 * uniform(rng) - 1.0)
            ly = uy * (2.0 * uniform(rng) - 1.0)
            c = cards[best, CD_C]
            s = cards[best, CD_S]
            cards[best, CD_X] = nx - (c * lx - s * ly)
            cards[best, CD_Y] = ny - (s * lx + c * ly)
            if not card_off_mat(params, cards, best):
                break
            redraws += 1
            if d == tries - 1:
                pushes = np.int64(-1)
        if pushes < 0:
            break
        cst[best, CS_MARK] = nest_bits(params, cards, best)
        pushes += 1
    for j in range(n_cards):
        cst[j, CS_MARK] = 0
    return pushes, redraws


@njit(cache=True, _nrt=False, inline="always")
def _slab(a, b, half, lo, hi):
    """``(lo, hi)`` narrowed to the ``t`` where ``|a + b t| <= half``."""
    if abs(b) < 1e-300:
        if abs(a) > half:
            return math.inf, -math.inf
        return lo, hi
    t0 = (-half - a) / b
    t1 = (half - a) / b
    if t0 > t1:
        t0, t1 = t1, t0
    return max(lo, t0), min(hi, t1)


@njit(cache=True, _nrt=False, forceinline=False)
def _edge_inside_others(params, cards, cst, n_cards, skip, x0, y0, x1, y1, t0, t1, nx, ny, rr):
    """Whether every point ``(x0, y0) + t (x1 - x0, y1 - y0)``, ``t0 <= t <= t1`` (points of the
    circle of radius ``rr`` around ``(nx, ny)``), lies ``COVER_MARGIN`` or more inside some card
    of the pile other than ``skip``: a sweep along the segment, each step to the farthest end of
    a card holding the point reached (each card is the best at most once: at most ``n_cards``
    steps). Cards too far from the circle to reach it are passed over."""
    far = 0.5 * math.sqrt(params[PH_CARD_W] ** 2 + params[PH_CARD_H] ** 2) + rr
    far2 = far * far
    hw = 0.5 * params[PH_CARD_W] - COVER_MARGIN
    hh = 0.5 * params[PH_CARD_H] - COVER_MARGIN
    dx = x1 - x0
    dy = y1 - y0
    cur = t0
    for _ in range(n_cards + 1):
        reach = cur
        for j in range(n_cards):
            ox = cards[j, CD_X] - nx
            oy = cards[j, CD_Y] - ny
            if j == skip or cst[j, CS_ON] == 0 or ox * ox + oy * oy > far2:
                continue
            c = cards[j, CD_C]
            s = cards[j, CD_S]
            px = x0 - cards[j, CD_X]
            py = y0 - cards[j, CD_Y]
            lo, hi = _slab(c * px + s * py, c * dx + s * dy, hw, -math.inf, math.inf)
            lo, hi = _slab(-s * px + c * py, -s * dx + c * dy, hh, lo, hi)
            if lo <= cur and hi > reach:
                reach = hi
        if reach <= cur:
            return False
        if reach >= t1:
            return True
        cur = reach
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def nest_complete(params, cards, cst, n_cards, k):
    """Whether the cards of the pile cover nest ``k``'s circle completely, no point of it bare
    (CV-8), with ``COVER_MARGIN`` to spare: exact, not sampled, and never a false "complete".

    The circle D (radius + margin) lies in the union U of the cards exactly when its centre is
    in U and every point of a card's outline inside D lies inside another card (the margin deep).
    Were a point p of D bare, the bare part of D around p would have an edge point q in D that
    is in U but inside no card, so on the outline of a card, against the test; and if all of D
    were bare, its centre would be. Outline points exactly where two cards abut count as bare,
    as do those within the margin of another card's edge: the test errs only towards "not
    complete"."""
    nx, ny = nest_xy(params, k)
    rr = params[PH_NEST_R] + COVER_MARGIN
    w = params[PH_CARD_W]
    h = params[PH_CARD_H]
    hw = 0.5 * w
    hh = 0.5 * h
    centre_in = False
    for j in range(n_cards):
        if cst[j, CS_ON] == 0:
            continue
        c = cards[j, CD_C]
        s = cards[j, CD_S]
        dx = nx - cards[j, CD_X]
        dy = ny - cards[j, CD_Y]
        lx = abs(c * dx + s * dy)
        ly = abs(-s * dx + c * dy)
        if lx + rr <= hw and ly + rr <= hh:
            return True  # one card holds the whole circle
        if lx <= hw - COVER_MARGIN and ly <= hh - COVER_MARGIN:
            centre_in = True
    if not centre_in:
        return False
    for j in range(n_cards):
        if cst[j, CS_ON] == 0:
            continue
        c = cards[j, CD_C]
        s = cards[j, CD_S]
        cx = cards[j, CD_X]
        cy = cards[j, CD_Y]
        if not disc_rect_overlap_cs(nx, ny, rr, cx, cy, c, s, w, h, 0.0):
            continue
        for e in range(4):  # edge e from corner e to corner e + 1, counter-clockwise
            ax = hw if (e == 1 or e == 2) else -hw
            ay = hh if e >= 2 else -hh
            bx = hw if (e == 0 or e == 1) else -hw
            by = hh if (e == 1 or e == 2) else -hh
            x0 = cx + c * ax - s * ay
            y0 = cy + s * ax + c * ay
            x1 = cx + c * bx - s * by
            y1 = cy + s * bx + c * by
            # the part of the edge inside the circle: |(x0, y0) - n + t d| <= rr
            ex = x1 - x0
            ey = y1 - y0
            fx = x0 - nx
            fy = y0 - ny
            qa = ex * ex + ey * ey
            qb = 2.0 * (fx * ex + fy * ey)
            qc = fx * fx + fy * fy - rr * rr
            disc = qb * qb - 4.0 * qa * qc
            if disc <= 0.0:
                continue
            sq = math.sqrt(disc)
            t0 = max(0.0, (-qb - sq) / (2.0 * qa))
            t1 = min(1.0, (-qb + sq) / (2.0 * qa))
            if t0 > t1:
                continue
            if not _edge_inside_others(
                params, cards, cst, n_cards, j, x0, y0, x1, y1, t0, t1, nx, ny, rr
            ):
                return False
    return True


@njit(cache=True, _nrt=False, forceinline=False)
def nth_on_pile(cst, n_cards, k):
    """The row of the ``k``-th card of the pile (from 0), -1 if there are fewer."""
    for j in range(n_cards):
        if cst[j, CS_ON] == 1:
            if k == 0:
                return j
            k -= 1
    return np.int64(-1)


@njit(cache=True, _nrt=False, forceinline=False)
def drop_feather(params, cards, cst, n_cards, feathers, fst, n_feathers, f, rng):
    """Drop feather ``f`` (a row of ``[0, n_feathers)``) onto the pile (CV-1, CV-11, PHYS-5): onto
    a uniform point of a uniform card of the pile, on top of everything. Returns 1, or 0 if the
    pile holds no card (then the feather is not placed)."""
    n_on = np.int64(0)
    for j in range(n_cards):
        n_on += cst[j, CS_ON]
    if n_on == 0:
        return np.int64(0)
    w = params[PH_CARD_W]
    h = params[PH_CARD_H]
    tries = max(np.int64(params[PH_DROP_TRIES]), np.int64(1))
    for t in range(tries):
        j = nth_on_pile(cst, n_cards, below(rng, n_on))
        lx = w * (uniform(rng) - 0.5)
        ly = h * (uniform(rng) - 0.5)
        c = math.cos(cards[j, CD_A])
        s = math.sin(cards[j, CD_A])
        feathers[f, FT_X] = cards[j, CD_X] + c * lx - s * ly
        feathers[f, FT_Y] = cards[j, CD_Y] + s * lx + c * ly
        if not feather_outside_mat(params, feathers, f):
            break
        if t == tries - 1:
            feathers[f, FT_X] = cards[j, CD_X]
            feathers[f, FT_Y] = cards[j, CD_Y]
    feathers[f, FT_H] = new_height(cards, n_cards, feathers, n_feathers)
    fst[f, FS_ON] = 1
    fst[f, FS_MARK] = 0
    fst[f, FS_MOVED] = 0
    return np.int64(1)


@njit(cache=True, _nrt=False, forceinline=False)
def drop_feathers(params, cards, cst, n_cards, feathers, fst, n_feathers, rng):
    """Set-up (CV-1): drop every feather ``[0, n_feathers)`` onto the pile in row order
    (``drop_feather``). Returns the feathers dropped (0 if the pile holds no card)."""
    n = np.int64(0)
    for f in range(n_feathers):
        n += drop_feather(params, cards, cst, n_cards, feathers, fst, n_feathers, f, rng)
    return n


# ---------------------------------------------------------------- the peck


@njit(cache=True, _nrt=False, forceinline=False)
def _away(rng, params, px, py, aim_x, aim_y, clumsiness):
    """A resting piece's displacement (PHYS-6): ``(dx, dy)``."""
    dx = px - aim_x
    dy = py - aim_y
    if dx * dx + dy * dy > 1e-18:
        t = math.atan2(dy, dx) + normal(rng, params[PH_DISPLACE_DIR_SD])
    else:
        t = _TWO_PI * uniform(rng)
    d = abs(normal(rng, params[PH_DISPLACE_SD] * clumsiness))
    return d * math.cos(t), d * math.sin(t)


@njit(cache=True, _nrt=False, forceinline=False)
def peck(params, cards, cst, n_cards, feathers, fst, n_feathers, i, aim_x, aim_y, clumsiness, rng):
    """Peck card ``i`` aiming at ``(aim_x, aim_y)`` (CV-9, PHYS-6; the caller turns its face).

    Marks CS_MOVED / FS_MOVED = 1 on the pieces that rested on it and moved, and CS_MARK /
    FS_MARK = 1 on every piece of the pile now off the mat (``outside_mat``); returns how many are
    off (the engine removes them and ends the turn). The engine's ``Pile`` does the same with its
    cache (``pile_peck``)."""
    # the pieces resting on i, judged before it moves
    for j in range(n_cards):
        cst[j, CS_MOVED] = 0
        if cst[j, CS_ON] == 1 and card_on_top_of(params, cards, i, j):
            cst[j, CS_MOVED] = 1
    for f in range(n_feathers):
        fst[f, FS_MOVED] = 0
        if fst[f, FS_ON] == 1 and feather_on_top_of(params, cards, i, feathers, f):
            fst[f, FS_MOVED] = 1
    peck_moves(
        params, cards, cst, n_cards, feathers, fst, n_feathers, i, aim_x, aim_y, clumsiness, rng
    )
    return outside_mat(params, cards, cst, n_cards, feathers, fst, n_feathers)


@njit(cache=True, _nrt=False, forceinline=True)
def set_back(params, cards, n_cards, feathers, n_feathers, i, rng):
    """PHYS-6: the pecked card ``i`` set back down on top, a little off and turned."""
    cards[i, CD_X] += normal(rng, params[PH_PECK_OFFSET_SD])
    cards[i, CD_Y] += normal(rng, params[PH_PECK_OFFSET_SD])
    set_angle(cards, i, cards[i, CD_A] + normal(rng, params[PH_PECK_TURN_SD]))
    top = new_height(cards, n_cards, feathers, n_feathers)
    cards[i, CD_H] = top
    return top


@njit(cache=True, _nrt=False, forceinline=True)
def displace(params, cards, feathers, k, n_cards, top, aim_x, aim_y, clumsiness, rng):
    """PHYS-6: resting piece ``k`` (a card, or feather ``k - n_cards``) displaced away from the
    aim and landing at height ``top``."""
    if k < n_cards:
        dx, dy = _away(rng, params, cards[k, CD_X], cards[k, CD_Y], aim_x, aim_y, clumsiness)
        cards[k, CD_X] += dx
        cards[k, CD_Y] += dy
        turn = normal(rng, params[PH_DISPLACE_TURN_SD] * clumsiness)
        set_angle(cards, k, cards[k, CD_A] + turn)
        cards[k, CD_H] = top
    else:
        f = k - n_cards
        dx, dy = _away(rng, params, feathers[f, FT_X], feathers[f, FT_Y], aim_x, aim_y, clumsiness)
        feathers[f, FT_X] += dx
        feathers[f, FT_Y] += dy
        feathers[f, FT_H] = top


@njit(cache=True, _nrt=False, forceinline=False)
def peck_moves(
    params, cards, cst, n_cards, feathers, fst, n_feathers, i, aim_x, aim_y, clumsiness, rng
):
    """The moves of a peck of card ``i`` whose resting pieces are marked CS_MOVED / FS_MOVED = 1
    (PHYS-6): ``i`` set back down on top, then each resting piece, lowest first, displaced and
    landing on top. (``pile_peck`` makes the same moves from its list of the resting pieces.)"""
    top = set_back(params, cards, n_cards, feathers, n_feathers, i, rng)
    # the resting pieces move, lowest first, each landing on top; a landed one is marked 2
    while True:
        best_h = math.inf
        best = np.int64(-1)
        for j in range(n_cards):
            if cst[j, CS_MOVED] == 1 and cards[j, CD_H] < best_h:
                best_h = cards[j, CD_H]
                best = j
        for f in range(n_feathers):
            if fst[f, FS_MOVED] == 1 and feathers[f, FT_H] < best_h:
                best_h = feathers[f, FT_H]
                best = n_cards + f
        if best < 0:
            break
        top += 1.0
        displace(params, cards, feathers, best, n_cards, top, aim_x, aim_y, clumsiness, rng)
        if best < n_cards:
            cst[best, CS_MOVED] = 2
        else:
            fst[best - n_cards, FS_MOVED] = 2
    for j in range(n_cards):
        if cst[j, CS_MOVED] == 2:
            cst[j, CS_MOVED] = 1
    for f in range(n_feathers):
        if fst[f, FS_MOVED] == 2:
            fst[f, FS_MOVED] = 1


# ---------------------------------------------------------------- end of turn


@njit(cache=True, _nrt=False, forceinline=False)
def remove_isolated(params, cards, cst, n_cards, feathers, fst, n_feathers):
    """End of turn (CV-5, PHYS-8): take out of the pile every piece touching no other piece of it,
    all judged at once. Marks them (CS_MARK / FS_MARK = 1, others 0) and returns
    ``(cards removed, feathers removed)``."""
    for j in range(n_cards):
        cst[j, CS_MARK] = 0
        if cst[j, CS_ON] == 1 and not touches_any(
            params, cards, cst, n_cards, feathers, fst, n_feathers, np.int64(K_CARD), j
        ):
            cst[j, CS_MARK] = 1
    for f in range(n_feathers):
        fst[f, FS_MARK] = 0
        if fst[f, FS_ON] == 1 and not touches_any(
            params, cards, cst, n_cards, feathers, fst, n_feathers, np.int64(K_FEATHER), f
        ):
            fst[f, FS_MARK] = 1
    nc = np.int64(0)
    nf = np.int64(0)
    for j in range(n_cards):
        if cst[j, CS_MARK] == 1:
            cst[j, CS_ON] = 0
            nc += 1
    for f in range(n_feathers):
        if fst[f, FS_MARK] == 1:
            fst[f, FS_ON] = 0
            nf += 1
    return nc, nf


# ---------------------------------------------------------------- the engine's pile (cached)
#
# The kernels above answer each question from the geometry, which is what the tests hold against
# shapely. A game asks them thousands of times a turn, so the engine keeps a ``Pile``: the same
# four arrays plus what they imply, kept up to date piece by piece as pieces move (``attach`` /
# ``detach``), so that a question costs a lookup instead of a pass over the pile:
#
#     ov      uint8[M, M]        ov[a, b] = 1: pieces a and b of the pile overlap (pieces are the
#                                cards 0..nc-1, then the feathers nc..nc+nf-1)
#     cov     int64[M, N_COV]    per piece: pieces on top of it (COV_ANY), cards on top of it
#                                (COV_CARDS), pieces it touches (COV_DEG), feathers it
#                                touches (COV_FEATHERS, cards only)
#     att     uint8[M]           1: the piece is in the pile and counted in ov / cov / nest
#     nest    uint8[8, nc]       nest[k, c] = 1: card c overlaps nest k's circle
#     ncount  int64[8]           cards of the pile overlapping nest k (0: uncovered, CV-6)
#     nsum    int64[8]           the sum of their indices: the card itself when ncount is 1
#     nm      int64[nc]          nest as bits: bit k of nm[c] is nest[k, c]
#     nb      uint64[8, W]       nest as bits the other way: nest k's cards, as in ob
#     h       float64[M]         each piece's height as it was attached (``piece_h``: one load,
#                                where reading cards or feathers by the index is a branch)
#     nxy     float64[8, 2]      the nests' centres
#     vis     int64[nc]          "any part visible", cached: VIS_UNKNOWN, VIS_HIDDEN, VIS_SHOWN
#     pts     float64[NP, 2]     the visibility sample points in a card's own frame (PHYS-3),
#                                corners and edges first (a visible card usually shows an edge)
#     buf     int64[M]           scratch
#     n_on    int64[2]           cards and feathers in the pile (attached)
#     lst     int64[2, ...]      the pieces in the pile: lst[0, :n_on[0]] its cards and
#                                lst[1, :n_on[1]] its feathers (as piece indices), in no order;
#                                the loops over the pile go through them, not every row
#     pos     int64[M]           a piece's place in its list
#     mv      int64[M]           scratch: the pieces a peck moves
#     ob      uint64[M, W]       ov as bits (piece j is bit j % 64 of word j // 64), so that a
#                                pass over the pieces a piece touches costs its few neighbours
#                                (``next_bit``), not a pass over the pile
#
# The tests check that every cached answer equals the kernels' above after every turn.

COV_ANY = 0
COV_CARDS = 1
COV_DEG = 2
COV_FEATHERS = 3  # a card's: feathers of the pile touching it
N_COV = 4
VIS_UNKNOWN = -2
VIS_HIDDEN = -1
VIS_SHOWN = 1


class Pile(NamedTuple):
    cards: np.ndarray
    cst: np.ndarray
    feathers: np.ndarray
    fst: np.ndarray
    ov: np.ndarray
    cov: np.ndarray
    att: np.ndarray
    nest: np.ndarray
    ncount: np.ndarray
    nxy: np.ndarray
    vis: np.ndarray
    pts: np.ndarray
    buf: np.ndarray
    n_on: np.ndarray
    lst: np.ndarray
    pos: np.ndarray
    mv: np.ndarray
    nsum: np.ndarray
    ob: np.ndarray
    nm: np.ndarray
    nb: np.ndarray
    h: np.ndarray


@njit(cache=True, forceinline=False)
def vis_points(params):
    """The sample points of PHYS-3 in a card's own frame: the grid's corners, then the rest of its
    outline and the edge points, then its inside (the same set ``any_part_visible`` tests)."""
    nx = np.int64(params[PH_VIS_NX])
    ny = np.int64(params[PH_VIS_NY])
    ne = np.int64(params[PH_VIS_EDGE])
    w = params[PH_CARD_W]
    h = params[PH_CARD_H]
    out = np.zeros((nx * ny + 4 * ne, 2), np.float64)
    k = np.int64(0)
    for rank in range(3):  # 0 corners, 1 the rest of the outline, 2 inside
        for a in range(nx):
            for b in range(ny):
                ex = a == 0 or a == nx - 1
                ey = b == 0 or b == ny - 1
                r = 0 if (ex and ey) else (1 if (ex or ey) else 2)
                if r != rank:
                    continue
                out[k, 0] = w * (a / (nx - 1) - 0.5) if nx > 1 else 0.0
                out[k, 1] = h * (b / (ny - 1) - 0.5) if ny > 1 else 0.0
                k += 1
        if rank == 1:
            for e in range(4):
                for j in range(ne):
                    t = (j + 0.5) / ne - 0.5
                    if e == 0:
                        out[k, 0] = w * t
                        out[k, 1] = -0.5 * h
                    elif e == 1:
                        out[k, 0] = 0.5 * w
                        out[k, 1] = h * t
                    elif e == 2:
                        out[k, 0] = -w * t
                        out[k, 1] = 0.5 * h
                    else:
                        out[k, 0] = -0.5 * w
                        out[k, 1] = -h * t
                    k += 1
    return out


@njit(cache=True, forceinline=False)
def new_pile(params, n_cards, n_feathers):
    """An empty ``Pile`` for ``n_cards`` cards and ``n_feathers`` feathers."""
    m = n_cards + n_feathers
    nxy = np.zeros((N_NESTS, 2), np.float64)
    for k in range(N_NESTS):
        nxy[k, 0], nxy[k, 1] = nest_xy(params, np.int64(k))
    return Pile(
        np.zeros((n_cards, N_CD), np.float64),
        np.zeros((n_cards, N_CS), np.int64),
        np.zeros((n_feathers, N_FT), np.float64),
        np.zeros((n_feathers, N_FS), np.int64),
        np.zeros((m, m), np.uint8),
        np.zeros((m, N_COV), np.int64),
        np.zeros(m, np.uint8),
        np.zeros((N_NESTS, n_cards), np.uint8),
        np.zeros(N_NESTS, np.int64),
        nxy,
        np.full(n_cards, VIS_UNKNOWN, np.int64),
        vis_points(params),
        np.zeros(m, np.int64),
        np.zeros(2, np.int64),
        np.zeros((2, max(n_cards, n_feathers)), np.int64),
        np.zeros(m, np.int64),
        np.zeros(m, np.int64),
        np.zeros(N_NESTS, np.int64),
        np.zeros((m, (m + 63) // 64), np.uint64),
        np.zeros(n_cards, np.int64),
        np.zeros((N_NESTS, (m + 63) // 64), np.uint64),
        np.zeros(m, np.float64),
    )


@intrinsic
def _cttz(typingctx, x):
    """The number of trailing zero bits of a uint64 (LLVM's cttz; ``x`` must not be 0)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return types.uint64(types.uint64), codegen


def low_bit(x):
    """The index of the lowest set bit of ``x`` (uint64, not 0); compiled, one instruction."""
    v = int(x)
    return np.int64((v & -v).bit_length() - 1)


@overload(low_bit, inline="always")
def _low_bit_compiled(x):
    return lambda x: np.int64(_cttz(x))


@njit(cache=True, _nrt=False, inline="always")
def drop_low_bit(x):
    """``x`` without its lowest set bit."""
    return x & (x - np.uint64(1))


@njit(cache=True, _nrt=False, inline="always")
def bit(j):
    """Piece ``j``'s bit in its word of ``Pile.ob``."""
    return np.uint64(1) << np.uint64(j & 63)


@njit(cache=True, _nrt=False, inline="always")
def piece_h(pile, k):
    """The height of piece ``k`` of the pile (as attached)."""
    return pile.h[k]


@njit(cache=True, _nrt=False, forceinline=True)
def detach(pile, k):
    """Take piece ``k`` out of the cache (before it moves or leaves the pile)."""
    if pile.att[k] == 0:
        return
    nc = pile.cards.shape[0]
    hk = piece_h(pile, k)
    is_card = np.int64(1) if k < nc else np.int64(0)
    kw = k >> 6
    kb = bit(k)
    for wd in range(pile.ob.shape[1]):
        x = pile.ob[k, wd]
        pile.ob[k, wd] = 0
        while x != 0:
            j = wd * 64 + low_bit(x)
            x = drop_low_bit(x)
            pile.ov[k, j] = 0
            pile.ov[j, k] = 0
            pile.ob[j, kw] &= ~kb
            pile.cov[j, COV_DEG] -= 1
            if is_card == 0 and j < nc:
                pile.cov[j, COV_FEATHERS] -= 1
            if hk > piece_h(pile, j):
                pile.cov[j, COV_ANY] -= 1
                pile.cov[j, COV_CARDS] -= is_card
            if j < nc and is_card == 1:
                pile.vis[j] = VIS_UNKNOWN  # k may have hidden part of it, or shown it
    pile.cov[k, COV_ANY] = 0
    pile.cov[k, COV_CARDS] = 0
    pile.cov[k, COV_DEG] = 0
    pile.cov[k, COV_FEATHERS] = 0
    if is_card == 1:
        pile.vis[k] = VIS_UNKNOWN
        x = pile.nm[k]
        pile.nm[k] = 0
        while x != 0:  # the nests it covers
            n = low_bit(np.uint64(x))
            x &= x - 1
            pile.nest[n, k] = 0
            pile.nb[n, k >> 6] &= ~bit(k)
            pile.ncount[n] -= 1
            pile.nsum[n] -= k
    # out of its list: the last one takes its place
    li = np.int64(0) if is_card == 1 else np.int64(1)
    last = pile.lst[li, pile.n_on[li] - 1]
    pile.lst[li, pile.pos[k]] = last
    pile.pos[last] = pile.pos[k]
    pile.n_on[li] -= 1
    pile.att[k] = 0


@njit(cache=True, _nrt=False, inline="always")
def _link(pile, k, j, hk, is_card, nc):
    """Count the overlap of pieces ``k`` (being attached) and ``j``."""
    pile.ov[k, j] = 1
    pile.ov[j, k] = 1
    pile.ob[k, j >> 6] |= bit(j)
    pile.ob[j, k >> 6] |= bit(k)
    pile.cov[j, COV_DEG] += 1
    pile.cov[k, COV_DEG] += 1
    if is_card == 0 and j < nc:
        pile.cov[j, COV_FEATHERS] += 1
    elif is_card == 1 and j >= nc:
        pile.cov[k, COV_FEATHERS] += 1
    if hk > piece_h(pile, j):
        pile.cov[j, COV_ANY] += 1
        pile.cov[j, COV_CARDS] += is_card
        if j < nc and is_card == 1:
            pile.vis[j] = VIS_UNKNOWN
    else:
        pile.cov[k, COV_ANY] += 1
        if j < nc:
            pile.cov[k, COV_CARDS] += 1


@njit(cache=True, _nrt=False, forceinline=True)
def attach(params, pile, k):
    """Count piece ``k`` (in the pile, where it now lies) in the cache."""
    cards = pile.cards
    fe = pile.feathers
    nc = cards.shape[0]
    hk = cards[k, CD_H] if k < nc else fe[k - nc, FT_H]
    pile.h[k] = hk
    w = params[PH_CARD_W]
    h = params[PH_CARD_H]
    eps = params[PH_EPS]
    r = params[PH_FEATHER_R]
    half = 0.5 * math.sqrt(w * w + h * h)
    if k < nc:
        is_card = np.int64(1)
        x = cards[k, CD_X]
        y = cards[k, CD_Y]
        c = cards[k, CD_C]
        s = cards[k, CD_S]
        reach_c = 2.0 * half + eps  # the circles around two cards
        reach_f = half + r + eps
    else:
        is_card = np.int64(0)
        x = fe[k - nc, FT_X]
        y = fe[k - nc, FT_Y]
        c = 1.0
        s = 0.0
        reach_c = half + r + eps
        reach_f = 2.0 * r + eps
    rc2 = reach_c * reach_c
    rf2 = reach_f * reach_f
    # closer than this, the discs inside the two outlines meet: they overlap, no test needed
    inner = 0.5 * min(w, h)
    sure = (2.0 * inner) if is_card == 1 else (inner + r)  # from k to a card
    sure2 = sure * sure
    sure_f2 = (inner + r) * (inner + r)  # from a card k to a feather
    # first the pieces within reach, without a branch per piece (which way it goes is a coin
    # toss the processor cannot predict), then the exact tests on those few, in the same order
    buf = pile.buf
    m = np.int64(0)
    for t in range(pile.n_on[0]):
        j = pile.lst[0, t]
        dx = cards[j, CD_X] - x
        dy = cards[j, CD_Y] - y
        buf[m] = j
        m += np.int64((dx * dx + dy * dy <= rc2) & (j != k))
    for t in range(m):
        j = buf[t]
        dx = cards[j, CD_X] - x
        dy = cards[j, CD_Y] - y
        if dx * dx + dy * dy <= sure2:
            hit = True
        elif is_card == 1:
            hit = rects_overlap_cs(
                x, y, c, s, w, h, cards[j, CD_X], cards[j, CD_Y], cards[j, CD_C], cards[j, CD_S],
                w, h, eps,
            )  # fmt: skip
        else:
            hit = disc_rect_overlap_cs(
                x, y, r, cards[j, CD_X], cards[j, CD_Y], cards[j, CD_C], cards[j, CD_S], w, h,
                eps,
            )  # fmt: skip
        if hit:
            _link(pile, k, j, hk, is_card, nc)
    m = np.int64(0)
    for t in range(pile.n_on[1]):
        j = pile.lst[1, t]
        f = j - nc
        dx = fe[f, FT_X] - x
        dy = fe[f, FT_Y] - y
        buf[m] = j
        m += np.int64((dx * dx + dy * dy <= rf2) & (j != k))
    for t in range(m):
        j = buf[t]
        f = j - nc
        if is_card == 1:
            dx = fe[f, FT_X] - x
            dy = fe[f, FT_Y] - y
            if dx * dx + dy * dy > sure_f2 and not disc_rect_overlap_cs(
                fe[f, FT_X], fe[f, FT_Y], r, x, y, c, s, w, h, eps
            ):
                continue
        # else two discs within reach, or a disc reaching a card's inner disc: they overlap
        _link(pile, k, j, hk, is_card, nc)
    if is_card == 1:
        pile.vis[k] = VIS_UNKNOWN
        # the nests within reach (branch-free, as above), then the exact test on those
        nr = params[PH_NEST_R]
        rn2 = (half + nr + eps) * (half + nr + eps)
        m = np.int64(0)
        for n in range(N_NESTS):
            dx = pile.nxy[n, 0] - x
            dy = pile.nxy[n, 1] - y
            buf[m] = n
            m += np.int64(dx * dx + dy * dy <= rn2)
        for t in range(m):
            n = buf[t]
            if disc_rect_overlap_cs(pile.nxy[n, 0], pile.nxy[n, 1], nr, x, y, c, s, w, h, eps):
                pile.nest[n, k] = 1
                pile.nm[k] |= np.int64(1) << n
                pile.nb[n, k >> 6] |= bit(k)
                pile.ncount[n] += 1
                pile.nsum[n] += k
    li = np.int64(0) if is_card == 1 else np.int64(1)
    pile.lst[li, pile.n_on[li]] = k
    pile.pos[k] = pile.n_on[li]
    pile.n_on[li] += 1
    pile.att[k] = 1


@njit(cache=True, _nrt=False, forceinline=False)
def rebuild(params, pile):
    """Fill the cache from the four arrays (after set-up)."""
    pile.ov[:, :] = 0
    pile.ob[:, :] = 0
    pile.cov[:, :] = 0
    pile.att[:] = 0
    pile.nest[:, :] = 0
    pile.ncount[:] = 0
    pile.nsum[:] = 0
    pile.nm[:] = 0
    pile.nb[:, :] = 0
    pile.n_on[:] = 0
    pile.vis[:] = VIS_UNKNOWN
    nc = pile.cards.shape[0]
    for c in range(nc):
        if pile.cst[c, CS_ON] == 1:
            attach(params, pile, c)
    for f in range(pile.feathers.shape[0]):
        if pile.fst[f, FS_ON] == 1:
            attach(params, pile, nc + f)


@njit(cache=True, _nrt=False, forceinline=True)
def take_out(pile, k):
    """Piece ``k`` leaves the pile (picked, off the mat, isolated)."""
    detach(pile, k)
    nc = pile.cards.shape[0]
    if k < nc:
        pile.cst[k, CS_ON] = 0
    else:
        pile.fst[k - nc, FS_ON] = 0


@njit(cache=True, _nrt=False, forceinline=False)
def visible(params, pile, i):
    """``any_part_visible`` of card ``i`` (PHYS-3), from the cache: a card under no card is
    visible, a card inside one higher card (its four corners are) is hidden, and the points are
    tested only against the higher cards that overlap it."""
    v = pile.vis[i]
    if v != VIS_UNKNOWN:
        return v == VIS_SHOWN
    if pile.cov[i, COV_CARDS] == 0:
        pile.vis[i] = VIS_SHOWN
        return True
    cards = pile.cards
    hi = cards[i, CD_H]
    nc = cards.shape[0]
    k = np.int64(0)
    for wd in range(pile.ob.shape[1]):
        x = pile.ob[i, wd]
        while x != 0:
            j = wd * 64 + low_bit(x)
            x = drop_low_bit(x)
            if j < nc and cards[j, CD_H] > hi:
                pile.buf[k] = j
                k += 1
    w = params[PH_CARD_W]
    h = params[PH_CARD_H]
    eps = params[PH_EPS]
    c = cards[i, CD_C]
    s = cards[i, CD_S]
    cx = cards[i, CD_X]
    cy = cards[i, CD_Y]
    hw = 0.5 * w + eps
    hh = 0.5 * h + eps
    # a higher card holding all four corners holds the whole card (both are convex): hidden
    for t in range(k):
        j = pile.buf[t]
        inside = True
        for q in range(4):
            lx = (q % 2 - 0.5) * w
            ly = (q // 2 - 0.5) * h
            dx = cx + c * lx - s * ly - cards[j, CD_X]
            dy = cy + s * lx + c * ly - cards[j, CD_Y]
            if not (
                abs(cards[j, CD_C] * dx + cards[j, CD_S] * dy) <= hw
                and abs(-cards[j, CD_S] * dx + cards[j, CD_C] * dy) <= hh
            ):
                inside = False
                break
        if inside:
            pile.vis[i] = VIS_HIDDEN
            return False
    for q in range(pile.pts.shape[0]):
        lx = pile.pts[q, 0]
        ly = pile.pts[q, 1]
        px = cx + c * lx - s * ly
        py = cy + s * lx + c * ly
        hidden = False
        for t in range(k):
            j = pile.buf[t]
            dx = px - cards[j, CD_X]
            dy = py - cards[j, CD_Y]
            if (
                abs(cards[j, CD_C] * dx + cards[j, CD_S] * dy) <= hw
                and abs(-cards[j, CD_S] * dx + cards[j, CD_C] * dy) <= hh
            ):
                hidden = True
                break
        if not hidden:
            pile.vis[i] = VIS_SHOWN
            return True
    pile.vis[i] = VIS_HIDDEN
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def pile_peck(params, pile, i, aim_x, aim_y, clumsiness, rng):
    """``peck`` on the cached pile: the same moves from the same random numbers, the cache kept
    up to date. Marks as ``peck`` does and returns the pieces now off the mat and the pieces it
    moved (those that rested on ``i``)."""
    cards = pile.cards
    cst = pile.cst
    fst = pile.fst
    nc = cards.shape[0]
    nf = pile.feathers.shape[0]
    hi = cards[i, CD_H]
    cst[:, CS_MOVED] = 0
    fst[:, FS_MOVED] = 0
    # the pieces resting on i, in piece order (cards, then feathers): peck_moves moves them and
    # they are counted again in that order
    mv = pile.mv
    n_mv = np.int64(0)
    for wd in range(pile.ob.shape[1]):
        x = pile.ob[i, wd]
        while x != 0:
            j = wd * 64 + low_bit(x)
            x = drop_low_bit(x)
            if piece_h(pile, j) > hi:
                mv[n_mv] = j
                n_mv += 1
                if j < nc:
                    cst[j, CS_MOVED] = 1
                else:
                    fst[j - nc, FS_MOVED] = 1
    detach(pile, i)
    for t in range(n_mv):
        detach(pile, mv[t])
    # peck_moves' moves: i set back, then the resting pieces lowest first (a stable insertion
    # sort of the list by height, in buf; ties, if any, in piece order as peck_moves takes them)
    feathers = pile.feathers
    order = pile.buf
    for t in range(n_mv):
        k = mv[t]
        h = piece_h(pile, k)
        u = t
        while u > 0 and piece_h(pile, order[u - 1]) > h:
            order[u] = order[u - 1]
            u -= 1
        order[u] = k
    top = set_back(params, cards, nc, feathers, nf, i, rng)
    for t in range(n_mv):
        top += 1.0
        displace(params, cards, feathers, order[t], nc, top, aim_x, aim_y, clumsiness, rng)
    attach(params, pile, i)
    for t in range(n_mv):
        attach(params, pile, mv[t])
    # only the pieces that moved can have left the mat (every piece of the pile lies on it:
    # set-up and drops put them there, and the engine removes any a peck puts off)
    cst[:, CS_MARK] = 0
    fst[:, FS_MARK] = 0
    n = np.int64(0)
    if card_off_mat(params, cards, i):
        cst[i, CS_MARK] = 1
        n += 1
    for t in range(n_mv):
        j = mv[t]
        if j < nc:
            if card_off_mat(params, cards, j):
                cst[j, CS_MARK] = 1
                n += 1
        elif feather_outside_mat(params, pile.feathers, j - nc):
            fst[j - nc, FS_MARK] = 1
            n += 1
    return n, n_mv


@njit(cache=True, _nrt=False, forceinline=False)
def pile_drop(params, pile, f, rng):
    """``drop_feather`` of feather ``f`` onto the cached pile; returns 1, or 0 (no card)."""
    nc = pile.cards.shape[0]
    nf = pile.feathers.shape[0]
    done = drop_feather(params, pile.cards, pile.cst, nc, pile.feathers, pile.fst, nf, f, rng)
    if done == 1:
        attach(params, pile, nc + f)
    return done


@njit(cache=True, _nrt=False, forceinline=False)
def pile_isolated(pile):
    """``remove_isolated`` on the cached pile: marks and takes out every piece touching no other
    (judged at once); returns (cards, feathers) removed."""
    nc = pile.cards.shape[0]
    nf = pile.feathers.shape[0]
    # marked and counted without a branch per piece; most turns nothing is isolated
    a = np.int64(0)
    b = np.int64(0)
    for j in range(nc):
        m = np.int64((pile.att[j] == 1) & (pile.cov[j, COV_DEG] == 0))
        pile.cst[j, CS_MARK] = m
        a += m
    for f in range(nf):
        k = nc + f
        m = np.int64((pile.att[k] == 1) & (pile.cov[k, COV_DEG] == 0))
        pile.fst[f, FS_MARK] = m
        b += m
    for j in range(nc if a > 0 else 0):
        if pile.cst[j, CS_MARK] == 1:
            take_out(pile, j)
    for f in range(nf if b > 0 else 0):
        if pile.fst[f, FS_MARK] == 1:
            take_out(pile, nc + f)
    return a, b
