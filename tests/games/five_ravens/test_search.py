"""The search player in Five Ravens (balance/games/_search.py bound by five_ravens/search.py): a
rulebook position whose right move is known, and the canonical re-deal it relies on (FR-15,
ENGINE-16; knowledge.determinize): the world re-dealt for a seat is the same from the true state
as from any consistent re-deal of it, with a planted leak that the check catches."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from balance import games
from balance.games import _search
from balance.games.five_ravens import engine, knowledge
from balance.games.five_ravens import policies as pol
from balance.games.five_ravens import state as S
from balance.games.five_ravens import tables as T
from balance.rng import seed_stream
from balance.search import SearchTables, play_params, search_module, search_stream

from .helpers import blank, config, raven, relic_id, set_centre, set_relic_deck, set_seat

OPTS = np.zeros(S.MAX_OPTIONS, np.int64)


def stream(seed: int) -> np.ndarray:
    r = np.zeros(1, np.uint64)
    seed_stream(r, seed, 0, 7)
    return r


@pytest.fixture(scope="module")
def search3() -> SearchTables:
    """Three seats, the search in seat 0 (its rollouts play greedy), from the shipped config."""
    tables = games.get("five_ravens").compile(
        config(3, ["mcts", "greedy", "greedy"], name="search_vs_greedy.yaml")
    )
    assert isinstance(tables, SearchTables) and tables.search_seats == [0]
    return tables


# ---------------------------------------------------------------- a steal that decides the game


def last_round_steal(c):
    """The last round's Theft (FR-9), seat 0 to steal: seat 1 (thief 6) stole chest_5 already,
    seat 0's thief is a 5 (FR-10: the relic it steals is captured) and it has one Skull captured,
    seat 2 has no thief and takes what is left. The centre: chest_4 (slot 0) and a Skull (slot 1),
    face up.

    Taking chest_4 (captured, 4 points) ties seat 1 at 5 and loses the tie on captured cards
    (FR-14: 3 against 1); taking the Skull completes a captured cursed set (FR-13, +5) and wins
    6 to 5. The hidden cards (the decks, the relic deck, the relics removed unseen) change
    nothing of this."""
    R = partial(relic_id, c)
    # no event log: the search's scratch States have none, and copy_state copies the log's size
    st = blank(c, log_cap=0)

    def ravens_but(*ranks):
        return [raven(r) for r in range(1, 10) if r not in ranks]

    set_seat(c, st, 0, deck=ravens_but(5), discard=[R("chest_1")], captured=[R("skull", 0)])
    set_seat(c, st, 1, deck=ravens_but(6), discard=[R("chest_5")], captured=[raven(6)])
    set_seat(c, st, 2, deck=ravens_but())
    set_centre(st, [(R("chest_4"), True), (R("skull", 1), True), None])
    set_relic_deck(st, [R("hollow"), R("gem")])
    st.pl[0, S.PL_THIEF] = raven(5)
    st.pl[1, S.PL_THIEF] = raven(6)  # captured in the Theft, still named (FR-11)
    st.pl[0, S.PL_STATUS] = st.pl[1, S.PL_STATUS] = S.ST_THIEF
    st.pl[2, S.PL_STATUS] = S.ST_DONE
    st.board[S.G_ROUND] = int(c.tb.params[T.P_ROUNDS]) - 1  # the last Clock (FR-12)
    st.board[S.G_STAGE] = S.STAGE_THEFT
    st.board[S.B_ORDER : S.B_ORDER + 3] = [1, 0, 2]  # FR-9: the 6, the 5, no thief last
    st.board[S.G_TI] = 1
    S.ask(st, S.D_STEAL, 0)
    return st


def test_the_search_takes_the_steal_that_wins_the_game(search3):
    c = search3.inner
    tb = c.tb
    st = last_round_steal(c)
    w = S.alloc_work(tb)
    assert engine.advance(tb, st, w) == 0 and S.pending(st) == (0, S.D_STEAL)
    n = engine.legal(tb, st, w, OPTS)
    assert OPTS[:n].tolist() == [0, 1]
    # the scenario is what its docstring says: the Skull wins, chest_4 loses
    for slot, rank, score in ((0, 2, 5), (1, 1, 6)):
        x = S.clone_state(st)
        xw = S.alloc_work(tb)
        engine.apply(tb, x, xw, slot)
        while engine.advance(tb, x, xw) >= 0:
            engine.apply(tb, x, xw, pol.choose(tb, x, xw))
        assert (int(x.pl[0, S.PL_RANK]), int(x.pl[0, S.PL_SCORE])) == (rank, score)
        assert int(x.pl[1, S.PL_SCORE]) == 5
    mod = search_module(games.get("five_ravens"))
    sp = play_params(search3)
    for iterations in (4, 12):
        sp[0, _search.SP_ITERS] = iterations
        before = S.clone_state(st)
        code, stats, means = mod.search_at(
            tb,
            st,
            w,
            np.int64(0),
            sp,
            search_stream(3, 0, 0),
            np.int64(len(S.EXTRA_COLUMNS)),
            np.int64(tb.params[T.P_N_TELE]),
        )
        assert code == 1, (iterations, stats, means)
        by_slot = {int(o): (int(v), float(m)) for (o, v, _), m in zip(stats, means, strict=True)}
        assert by_slot[1][1] == 1.0 and by_slot[0][1] == 0.0  # every rollout agrees
        assert by_slot[1][0] > by_slot[0][0] and by_slot[1][0] + by_slot[0][0] == iterations
        assert np.array_equal(before.r["board"], st.r["board"])  # the search copies, only


# ---------------------------------------------------------------- the canonical re-deal


def _states(c, n: int, seed: int):
    """(state, seat) at ``n`` decision points of greedy games: the actor, or another seat."""
    tb = c.tb
    w = S.alloc_work(tb)
    pick = np.random.default_rng(seed)
    players = int(tb.params[T.P_PLAYERS])
    out = []
    g = 0
    while len(out) < n:
        st = S.new_state(tb, 0)
        engine.start(tb, st, np.int64(seed), np.int64(g), w)
        k = 0
        while engine.advance(tb, st, w) >= 0 and len(out) < n:
            if k % 3 == 0:
                actor = int(S.pending(st)[0])
                out.append((S.clone_state(st), actor if k % 2 else int(pick.integers(players))))
            engine.apply(tb, st, w, pol.choose(tb, st, w))
            k += 1
        g += 1
    return out


def _arrays(st) -> list[np.ndarray]:
    """Every array of the State but the event log: the record's and the aux rows before the log."""
    r = st.r
    return [r["pile"], r["pl"], r["board"], r["rng"], r["fv"], st.aux[: int(st.board[S.G_LOG0])]]


def _same(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(_arrays(a), _arrays(b), strict=True))


def _canonical_misses(c, states, redeal) -> int:
    """How many states ``redeal(tb, st, seat, rng)`` re-deals differently from the true state and
    from a consistent re-deal of it (knowledge.determinize with another stream) with one stream."""
    tb = c.tb
    misses = 0
    for i, (st, seat) in enumerate(states):
        world = S.clone_state(st)
        knowledge.determinize(tb, world, np.int64(seat), stream(10_000 + i))
        a = S.clone_state(st)
        b = S.clone_state(world)
        redeal(tb, a, np.int64(seat), stream(i))
        redeal(tb, b, np.int64(seat), stream(i))
        misses += not _same(a, b)
    return misses


def _scrambled(st, seat: int, seed: int):
    """``st`` with what the seat cannot know of the game's past changed as another history would
    have left it: the greedy scratch values, a plan, the aux scratch rows, other seats' draws."""
    x = S.clone_state(st)
    rng = np.random.default_rng(seed)
    x.r["fv"][:] = rng.normal(size=x.r["fv"].shape)
    x.pl[:, S.PL_RESCUE_OK] = 1  # the seats of the config
    b = x.r["board"]
    b[S.B_PLAN : S.B_PLAN + T.MAX_CAP] = rng.integers(0, 9, T.MAX_CAP)
    b[S.G_PLAN_N] = 3
    x.aux[S.AUX_TMP : S.AUX_TMP2 + 1] = rng.integers(0, 20, x.aux[:2].shape)
    P = x.pl.shape[0]
    for q in range(P):
        if q != seat:
            x.pl[q, S.PL_TELE : S.PL_TELE + T.N_RAVENS] += rng.integers(0, 3, T.N_RAVENS)
    return x


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_redeal_is_the_same_from_the_truth_and_from_any_consistent_redeal(players):
    """ENGINE-16: determinize of the true state and of a re-dealt one with the same stream give
    identical States (every array but the log), on 600 states over 2, 3 and 4 seats; so does the
    true state with the scratch and the telemetry another history would have left."""
    from balance.games.five_ravens.tables import compile_tables

    c = compile_tables(config(players, ["greedy"] * players))
    states = _states(c, 200, seed=players)
    assert _canonical_misses(c, states, knowledge.determinize) == 0
    tb = c.tb
    for i, (st, seat) in enumerate(states[:60]):
        a = S.clone_state(st)
        b = _scrambled(st, seat, i)
        knowledge.determinize(tb, a, np.int64(seat), stream(i))
        knowledge.determinize(tb, b, np.int64(seat), stream(i))
        assert _same(a, b), i


def test_a_redeal_that_keeps_a_hidden_card_in_place_is_caught():
    """Planted: a re-deal that puts one of another seat's true hand cards back in its place
    (the order the pools were shuffled from, before they were sorted, leaked this way), and the
    re-deal for another seat (which moves what the seat knows), are both flagged."""
    from balance.games.five_ravens.tables import compile_tables

    c = compile_tables(config(3, ["greedy"] * 3))
    states = _states(c, 200, seed=11)

    def keeps_a_card(tb, st, seat, rng):
        q = (int(seat) + 1) % 3
        true = int(st.pile[q, S.PILE_HAND, 0]) if st.pl[q, S.PL_HAND_N] > 0 else -1
        knowledge.determinize(tb, st, seat, rng)
        if true >= 0:  # swap it back to hand index 0, wherever the re-deal put it in q's cards
            for k in (S.PILE_HAND, S.PILE_DECK):
                row = st.pile[q, k, : st.pl[q, S.PL_DECK_N + k]]
                hit = np.flatnonzero(row == true)
                if hit.size:
                    row[hit[0]] = st.pile[q, S.PILE_HAND, 0]
                    st.pile[q, S.PILE_HAND, 0] = true

    def for_another_seat(tb, st, seat, rng):
        knowledge.determinize(tb, st, np.int64((int(seat) + 1) % 3), rng)

    assert _canonical_misses(c, states, keeps_a_card) > len(states) // 10
    assert _canonical_misses(c, states, for_another_seat) > len(states) // 10
