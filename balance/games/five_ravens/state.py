"""Five Ravens game state: array layout and the small pile operations shared by rules and policies.

``P`` seats, ``CAP = 9 + n_relics`` slots per pile. Card ids are 0..8 for the Ravens of rank
1..9 and 9 + i for relic instance i. Piles are arrays with a count; the top of a deck is its last
element; cards leave a pile by swapping the last card into their place. Everything lives in
plain arrays so that a search policy can copy a state (``copy_state``) and resample hidden cards.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from balance.games.five_ravens.tables import N_RAVENS, P_N_RELICS, P_N_TYPES, P_PLAYERS, Tables
from balance.rng import below

MAX_ROUND_TURNS = 40
LOG_WIDTH = 8
BLOCK = 256  # games per block of the batch kernel (state is allocated once per block)

# Seat status during the Mission (FR-5).
ST_ACTIVE, ST_THIEF, ST_DONE = 0, 1, 2

# Scalars in State.g.
G_FIRST, G_ROUND, G_TURNS, G_RD_BOT, G_RD_N, G_LAST, G_LOG_N, G_START, G_SCRIPT = range(9)
N_G = 9

# Turn moves (FR-5): play a Raven for its action, captured 3 / captured 1 turn action, thief.
M_ACTION, M_CAPT3, M_CAPT1, M_THIEF, M_NONE = 0, 1, 2, 3, 4

# Event codes of the game log (narrate.py turns them into words); row: code, then 7 ints.
(
    E_ROUND,
    E_DEAL,
    E_DRAW,
    E_SHUFFLE,
    E_ACTION,
    E_DISCARD,
    E_TOP,
    E_SEVEN,
    E_FLIP,
    E_SHUFFLE_CENTRE,
    E_CAPTURE5,
    E_SET_ASIDE,
    E_EXAMINE,
    E_REPLACE,
    E_CAPT3,
    E_LOCK,
    E_THIEF,
    E_DONE,
    E_STEAL,
    E_CAPTURED,
    E_RESCUE,
    E_UNCLAIMED,
    E_EPILOGUE,
    E_SCORE,
    E_REMOVED,
    E_NOTHIEF,
) = range(26)

# Score breakdown fields (score_breakdown).
SB_CHESTS, SB_GEMS, SB_HOLLOWS, SB_CURSED, SB_FOUR, SB_PENALTY, SB_TOTAL = range(7)


class State(NamedTuple):
    deck: np.ndarray  # int32[P, CAP]; own Raven deck, top = deck[p, deck_n[p] - 1]
    deck_n: np.ndarray  # int32[P]
    hand: np.ndarray  # int32[P, CAP]
    hand_n: np.ndarray  # int32[P]
    disc: np.ndarray  # int32[P, CAP]; discard pile
    disc_n: np.ndarray  # int32[P]
    capt: np.ndarray  # int32[P, CAP]; captured cards (public)
    capt_n: np.ndarray  # int32[P]
    deck_known: np.ndarray  # int32[P]; top cards of own deck the owner knows (8, 7-rescue; FR-15)
    thief: np.ndarray  # int32[P]; card played as thief this round, -1 none
    status: np.ndarray  # int32[P]; ST_*
    no_thief: np.ndarray  # int32[P]; FR-7: no Raven in hand when the Prelude ended
    used3: np.ndarray  # int32[P]; captured 3 used this round
    used1: np.ndarray  # int32[P]; captured 1 used this round
    round_turns: np.ndarray  # int32[P]; mission turns taken this round
    doubled: np.ndarray  # int32[P]; relic instance captured with the 6 (FR-10), -1 none
    centre: np.ndarray  # int32[P]; relic instance per centre slot, -1 empty
    face_up: np.ndarray  # int32[P]
    locked: np.ndarray  # int32[P]
    cknown: np.ndarray  # int32[P, P]; [seat, slot] seat knows the relic in the slot (FR-15)
    rdeck: np.ndarray  # int32[RCAP]; relic deck, circular: bottom at g[G_RD_BOT], g[G_RD_N] cards
    rd_top: np.ndarray  # int32[P]; relic instance the seat knows is on top, -1 unknown
    rd_bot: np.ndarray  # int32[P]; relic instance the seat knows is at the bottom, -1 unknown
    g: np.ndarray  # int32[N_G]; scalars, G_*
    tele: np.ndarray  # int32[P, 5, n_card_types]; telemetry counts
    rng: np.ndarray  # uint64[1 + P, 1]; stream 0: the game's chance, 1 + s: seat s's policy
    log: np.ndarray  # int32[log_cap, LOG_WIDTH]; event log (log_cap 0 in batch runs)
    script: np.ndarray  # int32[n]; scripted choices for POL_SCRIPT seats (tests)
    tmp: np.ndarray  # int32[2 * CAP]; scratch
    tmp2: np.ndarray  # int32[2 * CAP]; scratch


def new_state(tb: Tables, log_cap: int = 0, script: np.ndarray | None = None) -> State:
    """Allocate a State for the config's player count (Python entry; see alloc_state)."""
    if script is None:
        script = np.zeros(0, np.int32)
    return alloc_state(tb, log_cap, script)


@njit(cache=True)
def alloc_state(tb, log_cap, script):
    P = tb.params[P_PLAYERS]
    cap = N_RAVENS + tb.params[P_N_RELICS]
    rcap = 1
    while rcap < tb.params[P_N_RELICS] + 1:
        rcap *= 2
    nct = N_RAVENS + tb.params[P_N_TYPES]
    return State(
        np.zeros((P, cap), np.int32),
        np.zeros(P, np.int32),
        np.zeros((P, cap), np.int32),
        np.zeros(P, np.int32),
        np.zeros((P, cap), np.int32),
        np.zeros(P, np.int32),
        np.zeros((P, cap), np.int32),
        np.zeros(P, np.int32),
        np.zeros(P, np.int32),
        np.zeros(P, np.int32),
        np.zeros(P, np.int32),
        np.zeros(P, np.int32),
        np.zeros(P, np.int32),
        np.zeros(P, np.int32),
        np.zeros(P, np.int32),
        np.zeros(P, np.int32),
        np.zeros(P, np.int32),
        np.zeros(P, np.int32),
        np.zeros(P, np.int32),
        np.zeros((P, P), np.int32),
        np.zeros(rcap, np.int32),
        np.zeros(P, np.int32),
        np.zeros(P, np.int32),
        np.zeros(N_G, np.int32),
        np.zeros((P, 5, nct), np.int32),
        np.zeros((1 + P, 1), np.uint64),
        np.zeros((log_cap, LOG_WIDTH), np.int32),
        script,
        np.zeros(2 * cap, np.int32),
        np.zeros(2 * cap, np.int32),
    )


@njit(cache=True)
def copy_state(st):
    """An independent copy of a State (for search policies that clone and resample)."""
    return State(
        st.deck.copy(),
        st.deck_n.copy(),
        st.hand.copy(),
        st.hand_n.copy(),
        st.disc.copy(),
        st.disc_n.copy(),
        st.capt.copy(),
        st.capt_n.copy(),
        st.deck_known.copy(),
        st.thief.copy(),
        st.status.copy(),
        st.no_thief.copy(),
        st.used3.copy(),
        st.used1.copy(),
        st.round_turns.copy(),
        st.doubled.copy(),
        st.centre.copy(),
        st.face_up.copy(),
        st.locked.copy(),
        st.cknown.copy(),
        st.rdeck.copy(),
        st.rd_top.copy(),
        st.rd_bot.copy(),
        st.g.copy(),
        st.tele.copy(),
        st.rng.copy(),
        st.log.copy(),
        st.script.copy(),
        st.tmp.copy(),
        st.tmp2.copy(),
    )


# ---------------------------------------------------------------- small helpers


@njit(cache=True)
def emit(st, code, a, b, c, d, e, f, h):
    n = st.g[G_LOG_N]
    if n < st.log.shape[0]:
        row = st.log[n]
        row[0] = code
        row[1] = a
        row[2] = b
        row[3] = c
        row[4] = d
        row[5] = e
        row[6] = f
        row[7] = h
        st.g[G_LOG_N] = n + 1


@njit(cache=True)
def card_type(tb, c):
    """Telemetry card type of card id ``c``: its rank index, or 9 + its relic type."""
    if c < N_RAVENS:
        return c
    return N_RAVENS + tb.inst_type[c - N_RAVENS]


@njit(cache=True)
def count(tb, st, p, ev, c):
    st.tele[p, ev, card_type(tb, c)] += 1


@njit(cache=True)
def find(pile, n, c):
    for i in range(n):
        if pile[i] == c:
            return i
    return -1


@njit(cache=True)
def remove_at(pile, n, i):
    """Remove pile[i] by moving the last card into its place; returns the new count."""
    pile[i] = pile[n - 1]
    return n - 1


@njit(cache=True)
def hand_remove(st, p, c):
    i = find(st.hand[p], st.hand_n[p], c)
    st.hand_n[p] = remove_at(st.hand[p], st.hand_n[p], i)


@njit(cache=True)
def disc_push(st, p, c):
    st.disc[p, st.disc_n[p]] = c
    st.disc_n[p] += 1


@njit(cache=True)
def capt_push(st, p, c):
    st.capt[p, st.capt_n[p]] = c
    st.capt_n[p] += 1


@njit(cache=True)
def deck_push_top(st, p, c):
    st.deck[p, st.deck_n[p]] = c
    st.deck_n[p] += 1
    st.deck_known[p] += 1  # FR-15: the owner knows what they put on top


@njit(cache=True)
def ravens_in_hand(st, p):
    k = 0
    for i in range(st.hand_n[p]):
        if st.hand[p, i] < N_RAVENS:
            k += 1
    return k


@njit(cache=True)
def has_captured(st, p, c):
    return find(st.capt[p], st.capt_n[p], c) >= 0


@njit(cache=True)
def captured_relics(st, p):
    k = 0
    for i in range(st.capt_n[p]):
        if st.capt[p, i] >= N_RAVENS:
            k += 1
    return k


@njit(cache=True)
def shuffle(a, n, rng):
    """Fisher-Yates shuffle of a[:n] with the stream ``rng`` (uint64[1])."""
    for i in range(n - 1, 0, -1):
        j = below(rng, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t


# ---------------------------------------------------------------- relic deck (circular)


@njit(cache=True)
def rd_index(st, k):
    """Physical index of the k-th relic from the bottom."""
    return (st.g[G_RD_BOT] + k) & (st.rdeck.shape[0] - 1)


@njit(cache=True)
def rd_top_card(st):
    n = st.g[G_RD_N]
    if n == 0:
        return -1
    return st.rdeck[rd_index(st, n - 1)]


@njit(cache=True)
def rd_bottom_card(st):
    if st.g[G_RD_N] == 0:
        return -1
    return st.rdeck[st.g[G_RD_BOT]]


@njit(cache=True)
def rd_pop_top(st):
    n = st.g[G_RD_N]
    if n == 0:
        return -1
    x = st.rdeck[rd_index(st, n - 1)]
    st.g[G_RD_N] = n - 1
    for s in range(st.rd_top.shape[0]):
        st.rd_top[s] = -1
        if n == 1:
            st.rd_bot[s] = -1
    return x


@njit(cache=True)
def rd_pop_bottom(st):
    n = st.g[G_RD_N]
    if n == 0:
        return -1
    x = st.rdeck[st.g[G_RD_BOT]]
    st.g[G_RD_BOT] = rd_index(st, 1)
    st.g[G_RD_N] = n - 1
    for s in range(st.rd_bot.shape[0]):
        st.rd_bot[s] = -1
        if n == 1:
            st.rd_top[s] = -1
    return x


@njit(cache=True)
def rd_push_bottom(st, x, knowers):
    """Put relic ``x`` at the bottom; seats whose bit is set in ``knowers`` know it is there."""
    b = (st.g[G_RD_BOT] - 1) & (st.rdeck.shape[0] - 1)
    st.rdeck[b] = x
    st.g[G_RD_BOT] = b
    st.g[G_RD_N] += 1
    for s in range(st.rd_bot.shape[0]):
        st.rd_bot[s] = x if (knowers >> s) & 1 else -1
        if st.g[G_RD_N] == 1:
            st.rd_top[s] = st.rd_bot[s]


@njit(cache=True)
def slot_knowers(st, slot):
    m = 0
    for s in range(st.cknown.shape[0]):
        if st.cknown[s, slot]:
            m |= 1 << s
    return m


