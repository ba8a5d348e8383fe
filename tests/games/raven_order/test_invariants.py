"""Invariants of whole games over seeds, rune mixes and policies (hypothesis, few examples): every
turn leaves a legal position, every game ends (victory or the cap, RO-9), and the batch kernel's
rows agree with the games played turn by turn."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hs

from balance.config import config_from_dict, load_config
from balance.games.raven_order import engine, state
from balance.games.raven_order.schema import BUILDING_NAMES
from balance.games.raven_order.state import (
    B_DECK,
    CAPU,
    END_DESTRUCTION,
    END_DRAW,
    G_DECK_TOP,
    G_END,
    G_TURN,
    G_WINNER,
    PL_ACAD,
    PL_BRUNE,
    PL_BUILT,
    PL_GOLD,
    PL_HAND,
    PL_HAND_N,
    PL_HELD,
    PL_INPLAY,
    PL_NBLD,
    PL_NU,
    PL_TELE,
    PL_WORKERS,
    U_DEAD,
    U_RUNE,
    U_TYPE,
)
from balance.games.raven_order.tables import (
    ACAD1,
    ACAD3,
    DRUID,
    NB,
    NR,
    RN_TARGET,
    SENTRY,
    T_ANY,
    T_DRUID,
    TE_DRAWN,
    compile_tables,
)

from .helpers import CONFIGS, check_counts, compiled, play_stepwise

SEATS = ["economy", "rush", "random"]
MIXES = [None, "double_deck", "no_runes", "paint_heavy", "tech_heavy", "tradition_heavy"]
_CACHE: dict = {}


def tables_for(seats: tuple[str, str], mix: str | None, cap: int):
    key = (seats, mix, cap)
    if key not in _CACHE:
        if mix is None:
            c = compiled(list(seats), {"turn_cap": cap})
        else:
            cfg = load_config(CONFIGS / "rune_mixes" / f"{mix}.yaml")
            data = cfg.model_dump(mode="json")
            data["seats"] = list(seats)
            data["rules"]["turn_cap"] = cap
            c = compile_tables(config_from_dict(data, "test"))
        _CACHE[key] = c
    return _CACHE[key]


def check_position(c, st, p):
    """A legal position after seat ``p``'s turn."""
    tb = c.tb
    deck_n = int(tb.params[11])
    for q in range(2):
        assert st.pl[q, PL_GOLD] >= 0
        assert st.pl[q, PL_WORKERS] >= 0
        flags = st.pl[q, PL_BUILT : PL_BUILT + NB]
        assert set(flags.tolist()) <= {0, 1}  # RO-3: one of each type at most
        assert st.pl[q, PL_NBLD] == flags.sum()
        assert st.pl[q, PL_ACAD] == flags[ACAD1 : ACAD3 + 1].sum()
        for b in range(NB):
            r = int(st.pl[q, PL_BRUNE + b])
            if not flags[b]:
                assert r == -1
            elif r >= 0:  # RO-6: the rune's named building, or any for Canine
                assert tb.rune[r, RN_TARGET] in (b, T_ANY)
        n = int(st.pl[q, PL_NU])
        assert 0 <= n <= CAPU
        for i in range(n):
            assert SENTRY <= st.units[q, i, U_TYPE] <= DRUID
            assert st.units[q, i, U_DEAD] == 0  # the dead are swept
            r = int(st.units[q, i, U_RUNE])
            if r >= 0:  # RO-6: paint on druids only
                assert st.units[q, i, U_TYPE] == DRUID
                assert tb.rune[r, RN_TARGET] == T_DRUID
        assert (st.pl[q, PL_HAND : PL_HAND + NR] >= 0).all()
        assert (st.pl[q, PL_INPLAY : PL_INPLAY + NR] >= 0).all()
        assert st.pl[q, PL_HAND_N] == st.pl[q, PL_HAND : PL_HAND + NR].sum()
        held_bits = sum(1 << r for r in range(NR) if st.pl[q, PL_HAND + r] > 0)
        assert st.pl[q, PL_HELD] == held_bits  # the policies' summary of the hand
    check_counts(st)  # in-play counts, academies, buildings as recount would rebuild them
    # runes are drawn from the deck, never made: in hands and in play <= drawn
    drawn = int(st.board[G_DECK_TOP])
    assert 0 <= drawn <= deck_n
    assert (st.board[B_DECK : B_DECK + drawn] == -1).all()
    held = sum(
        int(st.pl[q, PL_HAND : PL_HAND + NR].sum() + st.pl[q, PL_INPLAY : PL_INPLAY + NR].sum())
        for q in range(2)
    )
    assert held <= drawn
    tele_drawn = sum(
        int(st.pl[q, PL_TELE + TE_DRAWN : PL_TELE + TE_DRAWN + NR].sum()) for q in (0, 1)
    )
    assert tele_drawn == drawn
    assert st.board[G_END] in (0, END_DESTRUCTION)  # a draw is only declared by the cap


@settings(max_examples=30, deadline=None)
@given(
    seed=hs.integers(0, 2**63 - 1),
    game=hs.integers(0, 10**6),
    seats=hs.tuples(hs.sampled_from(SEATS), hs.sampled_from(SEATS)),
    mix=hs.sampled_from(MIXES),
    cap=hs.sampled_from([200, 30]),
)
def test_every_turn_leaves_a_legal_position_and_every_game_ends(seed, game, seats, mix, cap):
    c = tables_for(seats, mix, cap)
    turns = []

    def on_turn(st, p):
        check_position(c, st, p)
        turns.append(p)

    st = play_stepwise(c, seed, game, on_turn)
    # seats alternate, and the game ends by RO-9 within the cap (ENGINE-1)
    assert all(a != b for a, b in itertools.pairwise(turns))
    assert len(turns) == st.board[G_TURN] + 1 <= cap
    if st.board[G_END] == END_DESTRUCTION:
        w = int(st.board[G_WINNER])
        assert st.pl[1 - w, PL_NBLD] == 0 and st.pl[w, PL_NBLD] >= 1
        assert turns[-1] == w  # a player wins in their own war
    else:
        assert st.board[G_END] == END_DRAW and len(turns) == cap
        assert st.pl[0, PL_NBLD] >= 1 and st.pl[1, PL_NBLD] >= 1
    # the batch kernel plays the same game
    chunk = engine.play(c, seed, game, 1)
    assert chunk.turns[0] == len(turns)
    assert chunk.end_reason[0] == st.board[G_END] - 1
    assert chunk.score[0].tolist() == [int(st.pl[0, PL_NBLD]), int(st.pl[1, PL_NBLD])]
    assert [chunk.extra[k][0].tolist() for k in ("units", "workers", "gold")] == [
        [int(st.pl[q, f]) for q in (0, 1)] for f in (PL_NU, PL_WORKERS, PL_GOLD)
    ]


@settings(max_examples=8, deadline=None)
@given(
    seed=hs.integers(0, 2**63 - 1),
    seats=hs.tuples(hs.sampled_from(SEATS), hs.sampled_from(SEATS)),
    mix=hs.sampled_from(MIXES),
)
def test_chunk_rows_are_consistent(seed, seats, mix):
    """Ranks agree with the end reason (ENGINE-2), scores are the buildings standing (the Camp of
    RO-1 plus builds minus losses, from telemetry), and the first player is seat order 0."""
    c = tables_for(seats, mix, 200)
    ch = engine.play(c, seed, 0, 150)
    col = {n: j for j, n in enumerate(c.columns)}
    for g in range(150):
        rank, score = ch.rank[g].tolist(), ch.score[g].tolist()
        if ch.end_reason[g] == 0:  # destruction: one winner, the loser has no building
            assert sorted(rank) == [1, 2]
            assert score[rank.index(2)] == 0 and score[rank.index(1)] >= 1
        else:
            assert ch.end_reason[g] == 1 and rank == [1, 1]
            assert ch.turns[g] == 200 and min(score) >= 1
        assert 1 <= ch.turns[g] <= 200
        assert sorted(ch.order[g].tolist()) == [0, 1]
        for p in range(2):
            tel = ch.telemetry[g, p]
            builds = sum(int(tel[col[f"built__{b}"]]) for b in BUILDING_NAMES)
            lost = sum(int(tel[col[f"lost__{b}"]]) for b in BUILDING_NAMES)
            if builds < 255 and lost < 255:
                assert score[p] == 1 + builds - lost
    assert (ch.extra["gold"] >= 0).all() and (ch.extra["workers"] >= 0).all()


def test_the_second_player_starts_with_a_sentry_and_both_with_five_runes(base):
    """RO-1, ENGINE-3: Camp, 5 runes each (first player dealt first), 0 gold, 1 sentry for the
    second player."""
    st = state.alloc_state(base.tb, 0)
    firsts = set()
    for game in range(20):
        engine.setup(base.tb, st, 9, game)
        first = int(st.board[state.G_FIRST])
        firsts.add(first)
        for q in (0, 1):
            assert st.pl[q, PL_BUILT : PL_BUILT + NB].tolist() == [1] + [0] * (NB - 1)
            assert st.pl[q, PL_GOLD] == 0 and st.pl[q, PL_WORKERS] == 0
            assert st.pl[q, PL_HAND_N] == 5
        assert st.pl[first, PL_NU] == 0
        assert st.pl[1 - first, PL_NU] == 1 and st.units[1 - first, 0, U_TYPE] == SENTRY
        assert st.board[G_DECK_TOP] == 10
        deck = st.board[B_DECK : B_DECK + 19]
        assert (deck[:10] == -1).all() and sorted(deck[10:].tolist()) != []
        # the 19 runes, one copy each (RO-1): dealt + left = all of them
        dealt = st.pl[0, PL_HAND : PL_HAND + NR] + st.pl[1, PL_HAND : PL_HAND + NR]
        left = np.bincount(deck[10:], minlength=NR)
        assert (dealt + left == 1).all()
    assert firsts == {0, 1}
