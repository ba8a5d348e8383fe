"""The Corvids policies (policies.py): what a seat decides depends only on what it knows (CV-12).

Mid-game states of real games are copied with everything hidden from the deciding seat drawn
anew; the seat must decide the same.
"""

from __future__ import annotations

import numpy as np
import pytest

from balance.games.corvids import engine, state, tables
from balance.games.corvids import physics as ph
from balance.games.corvids.state import (
    CC_OWNER,
    CC_TAKEN_FACE,
    E_NEST,
    E_PECK,
    E_PICK,
    E_TICKET,
    G_FIRST,
    G_N,
    G_TURN,
    PL_BIRD,
    PL_HELD,
    PL_REVEALED,
)
from balance.games.corvids.tables import (
    ACORN,
    BLANK,
    BUTTON,
    COIN,
    EARRING,
    KEY,
    NUT,
    PAPERCLIP,
    STRING,
    TICKET,
)

from .helpers import SEED, clone, compiled

# ---------------------------------------------------------------- knowledge (CV-12)


DOUBLE = (ACORN, EARRING, NUT, PAPERCLIP, KEY, BUTTON)
SINGLE = (STRING, TICKET, COIN)


def hide_otherwise(tb, st, p: int, keep: int, rng: np.random.Generator) -> state.State:
    """A copy of ``st`` whose information hidden from seat ``p`` is drawn anew: the down side of
    every pile card but ``keep`` (a single-sided card face down: which of string, ticket or coin
    it is), the other seats' face-down single-sided cards, and the birds of the other seats still
    hidden (swapped with birds in the box whose nests are covered)."""
    b = clone(st)
    pile = b.pile
    for c in range(pile.cards.shape[0]):
        if pile.cst[c, ph.CS_ON] == 0 or c == keep:
            continue
        up = int(pile.cst[c, ph.CS_FACE])
        if b.item[c, 1] == BLANK:
            if up == 0:
                b.item[c, 0] = rng.choice(SINGLE)
        else:
            b.item[c, 1 if up == 1 else 0] = rng.choice(DOUBLE)
    n = int(b.board[G_N])
    for c in range(b.cc.shape[0]):
        q = int(b.cc[c, CC_OWNER])
        if 0 <= q != p and b.item[c, 1] == BLANK and b.cc[c, CC_TAKEN_FACE] == 0:
            b.pl[q, PL_HELD + b.item[c, 0]] -= 1
            b.item[c, 0] = rng.choice(SINGLE)
            b.pl[q, PL_HELD + b.item[c, 0]] += 1
    dealt = set(b.pl[:n, PL_BIRD].tolist())
    box = [
        x
        for x in range(int(tb.params[tables.P_BIRDS_N]))
        if x not in dealt and pile.ncount[tb.params[tables.P_BIRD_NEST + x]] > 0
    ]
    for q in range(n):
        if q != p and b.pl[q, PL_REVEALED] == 0 and box:
            k = int(rng.integers(len(box)))
            box[k], b.pl[q, PL_BIRD] = int(b.pl[q, PL_BIRD]), box[k]
    return b


def first_choices(tb, st, p, work):
    """Play seat ``p``'s turn on ``st``; its opening choices as the log shows them: tickets, the
    first peck, and the first pick (None if a nest was uncovered before it: then the seat knows
    more)."""
    n0 = int(st.board[state.G_LOG_N])
    engine.play_turn(tb, st, np.int64(p), work)
    rows = [tuple(int(v) for v in r) for r in state.log_rows(st)[n0:]]
    tickets = [r for r in rows if r[0] == E_TICKET]
    peck = next(r for r in rows if r[0] == E_PECK)
    pick = None
    for r in rows:
        if r[0] == E_NEST:
            break
        if r[0] == E_PICK:
            pick = (r[2], r[4], r[6])
            break
    return tickets, peck, pick


@pytest.mark.parametrize("seats", ["greedy", "random"])
def test_cv12_policies_do_not_read_what_their_seat_cannot_know(seats):
    """CV-12: a seat's choices depend only on what it knows. Mid-game, the hidden sides of the
    pile's cards, the other seats' face-down single-sided cards and their hidden birds are drawn
    anew: the seat flips the same tickets, pecks the same card at the same point, and (unless a
    nest was uncovered in between) picks the same card."""
    c = compiled(4, seats=seats)
    tb = c.tb
    rng = np.random.default_rng(5)
    compared = 0
    for game in range(4):
        st = state.alloc_state(tb, 4096)
        work = state.alloc_work(tb)
        ib = work.ib
        assert engine.setup(tb, st, np.int64(SEED), np.int64(game), ib)
        a = int(st.board[G_FIRST])
        for turn in range(14):
            if state.pile_cards(st) == 0:
                break
            if turn % 3 == 2:
                base = clone(st)
                got = first_choices(tb, clone(st), a, work)
                keep = got[1][2]
                for _ in range(2):
                    other = hide_otherwise(tb, base, a, keep, rng)
                    assert first_choices(tb, other, a, work) == got
                    compared += 1
            engine.play_turn(tb, st, np.int64(a), work)
            st.board[G_TURN] += 1
            a = (a + 1) % 4
    assert compared >= 16
