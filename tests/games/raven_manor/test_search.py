"""Raven Manor's search player (balance/games/raven_manor/search.py) and the re-deal it stands on
(``knowledge.determinize``; docs/rules/raven_manor.md "What a seat knows"):

- the search finds the move a position makes plain: a Family seat that knows who the Raven is
  (RM-11) and holds a weapon kills it and wins at once (RM-10, RM-22);
- the re-deal is **canonical**: it reads only what the seat knows, so the true state and any
  re-deal of it, re-dealt again with the same stream, give the very same State (every array,
  the streams included); planted: a re-deal that keeps one hidden thing true is caught;
- possession is re-dealt (RM-6, RM-11): a seat's own status stays, a status it cannot know
  varies between re-deals, and a re-dealt possessed seat holds a Feather and is not immune.
"""

from __future__ import annotations

import numpy as np
import pytest

from balance.games.raven_manor import engine, knowledge, policies, state
from balance.games.raven_manor import tables as T
from balance.games.raven_manor.state import (
    B_CAND,
    G_TURN_A,
    G_TURN_PC,
    KN_CHAR,
    KN_HAND,
    PL_CHAR,
    PL_HAND,
    PL_POSSESSED,
    PL_SIDE,
)
from balance.search import search_stream
from tests.games.test_decisions import _same_state
from tests.kit.decisions import compiled, positions


def _stream(seed: int) -> np.ndarray:
    return np.array([np.uint64(seed * 2654435761 + 1)], np.uint64)


def _search(tb, st, work, seat: int, iterations: int, key: int):
    """The search's pick for ``seat`` at the decision pending in ``st`` (every seat's rollout
    plays the tables' own policy), with its root: (code, stats, means)."""
    from balance.games import _search
    from balance.games.raven_manor import search

    players = int(st.board[state.G_N])
    sp = np.zeros((players, _search.N_SP), np.float64)
    sp[seat, _search.SP_ON] = 1
    sp[seat, _search.SP_ITERS] = iterations
    sp[seat, _search.SP_C] = 0.7
    sp[seat, _search.SP_REDEAL] = 1
    return search.search_at(
        tb,
        st,
        work,
        np.int64(seat),
        sp,
        search_stream(key, 0, seat),
        np.int64(len(state.EXTRA_COLUMNS)),
        np.int64(T.N_TELE),
    )


def _turn(s) -> None:
    """Seat 0's turn starts: its action is the pending decision (RM-4)."""
    bd = s.board
    bd[state.G_SP] = 0
    bd[G_TURN_A] = 0
    engine.push(s.st, np.int64(engine.P_TURN), np.int64(G_TURN_PC))
    assert engine.advance(s.tb, s.st, s.work) == 0
    assert tuple(state.pending(s.st)) == (0, state.D_ACTION)


def test_a_family_seat_that_knows_the_raven_and_holds_an_axe_kills_it(build):
    """RM-10, RM-11, RM-22: seat 0 (Aunt Cat) looked at seat 1's card, the Raven, the only evil
    character in the game (seat 2's Mayor is dead, revealed); it holds an Axe and seat 1 is
    adjacent. The hidden cards are all Kitchens (nothing answers a kill), so the Axe at seat 1
    wins every re-deal: the search plays it, its mean win is 1, and it beats every other option
    (an option that waits lets the Raven act)."""
    pad = [T.KITCHEN] * 12
    s = build(
        [T.AUNT_CAT, T.RAVEN, T.MAYOR],
        hands={0: [T.AXE, T.KITCHEN], 1: [T.KITCHEN] * 3, 2: [T.KITCHEN]},
        deck=pad,
        dead=(2,),
    )
    s.know(0, 1)
    _turn(s)
    n = int(s.board[state.G_NOPT])
    kill = [
        i
        for i in range(n)
        if tuple(int(x) for x in s.board[B_CAND + 4 * i : B_CAND + 4 * i + 3])
        == (policies.K_PLAY, T.AXE, 1)
    ]
    assert len(kill) == 1 and n > 2
    code, stats, means = _search(s.tb, s.st, s.work, 0, iterations=300, key=5)
    assert code == kill[0]
    row = list(stats[:, 0]).index(kill[0])
    assert means[row] == 1.0
    assert stats[row, 1] == stats[:, 1].max() and stats[:, 1].sum() == 300
    # the same search from a re-deal of the position is the same search (nothing leaks)
    twin = state.alloc_state(s.tb, 0)
    state.copy_state(s.st, twin)
    knowledge.determinize(s.tb, twin, np.int64(0), _stream(3))
    code2, stats2, means2 = _search(s.tb, twin, s.work, 0, iterations=300, key=5)
    assert code2 == code
    np.testing.assert_array_equal(stats2, stats)
    np.testing.assert_array_equal(means2, means)


# ---------------------------------------------------------------- the canonical re-deal


def _canonical_misses(pos, seat: int, key: int, redeal) -> int:
    """1 if ``redeal(world, seat, key)`` differs between the true state and a re-deal of it (a
    function of more than what ``seat`` knows), else 0."""
    a = redeal(pos, seat, key)
    b = redeal(pos.determinize(seat, seed=900_001 + key), seat, key)
    same = _same_state(a.state, b.state) and np.array_equal(a.state.rng, b.state.rng)
    return 0 if same else 1


def _honest(pos, seat, key):
    return pos.determinize(seat, seed=key)


def _keeps_the_deck(pos, seat, key):
    """Planted: a re-deal that keeps the deck's true order (the only change: one hidden thing)."""
    out = pos.determinize(seat, seed=key)
    n = int(pos.state.board[state.G_DECK_N])
    out.state.deck[:n] = pos.state.deck[:n]
    return out


def _keeps_possession(pos, seat, key):
    """Planted: a re-deal that keeps the other seats' true possession (the old re-deal)."""
    out = pos.determinize(seat, seed=key)
    for p in range(pos.players):
        if p != seat:
            for f in (PL_POSSESSED, PL_SIDE):
                out.state.pl[p, f] = pos.state.pl[p, f]
    return out


def test_the_redeal_is_a_function_of_what_the_seat_knows_and_a_leaky_one_is_caught():
    """The true state and a re-deal of it re-deal to the same State with the same stream, on 300
    decision states (the deciding seat and, every third state, another one); planted: keeping
    the deck's order or the true possession is caught."""
    plugin, tables, _ = compiled("configs/raven_manor/base.yaml")
    rng = np.random.default_rng(3)
    misses = deck = poss = checked = 0
    for i, pos in enumerate(positions(plugin, tables, seed=61, n=300, every=5)):
        seat = pos.actor if i % 3 else int(rng.integers(pos.players))
        misses += _canonical_misses(pos, seat, i, _honest)
        if pos.state.board[state.G_DECK_N] > 1:
            deck += _canonical_misses(pos, seat, i, _keeps_the_deck)
        if any(pos.state.pl[p, PL_POSSESSED] >= 0 for p in range(pos.players) if p != seat):
            poss += _canonical_misses(pos, seat, i, _keeps_possession)
        checked += 1
    assert checked == 300
    assert misses == 0
    assert deck > 250  # planted: the deck's true order shows (a deck of 2+ cards)
    assert poss > 0  # planted: a true possession shows


# ---------------------------------------------------------------- possession re-dealt


def test_possession_is_re_dealt_as_the_seat_knows_it(build):
    """RM-6, RM-11: seat 0 (Aunt Cat) was possessed by the Raven (seat 1, whose card it learned
    then); seat 2 was possessed too, which seat 0 cannot know. Over 600 re-deals for seat 0: it
    stays possessed by the Raven's side, seat 1 keeps the Raven (immune, never possessed), seat
    2 is possessed in some worlds and free in others, and every possessed seat holds a Feather
    and is not immune. For the Raven (seat 1), which gave seat 2 its Feather, seat 2 is
    possessed whenever its re-dealt card can be."""
    s = build(
        [T.AUNT_CAT, T.RAVEN, T.MOTHER_HEN, T.DOC, T.BOAR],
        hands={
            0: [T.FEATHER, T.KITCHEN],
            1: [T.FEATHER, T.AXE],
            2: [T.FEATHER, T.KITCHEN],
            3: [T.KITCHEN, T.VASE],
            4: [T.FEATHER, T.VASE],
        },
        deck=[T.KITCHEN, T.VASE, T.FEATHER, T.AXE] * 4,
        possessed={0: 1, 2: 1},
    )
    s.kn[1, 2, KN_HAND + T.FEATHER] = 1  # the Raven gave seat 2 the Feather it holds (RM-16)
    twin = state.alloc_state(s.tb, 0)
    seen = {True: 0, False: 0}
    raven_sure = 0
    for i in range(600):
        seat = 0 if i < 400 else 1
        state.copy_state(s.st, twin)
        knowledge.determinize(s.tb, twin, np.int64(seat), _stream(11 + i))
        pl = twin.pl
        for p in range(5):
            if pl[p, PL_POSSESSED] >= 0:
                assert pl[p, PL_HAND + T.FEATHER] > 0, (i, p)
                assert not state.immune(int(pl[p, PL_CHAR])), (i, p)
                assert pl[p, PL_SIDE] == pl[p, PL_POSSESSED]
        if seat == 0:
            assert pl[0, PL_POSSESSED] == T.S_RAVEN and pl[0, PL_SIDE] == T.S_RAVEN
            assert pl[1, PL_CHAR] == T.RAVEN and pl[1, PL_POSSESSED] < 0
            assert twin.kn[0, 1, KN_CHAR] == T.RAVEN
            seen[bool(pl[2, PL_POSSESSED] >= 0)] += 1
        else:
            can = not state.immune(int(pl[2, PL_CHAR]))
            assert (pl[2, PL_POSSESSED] == T.S_RAVEN) == can, i
            raven_sure += can
    assert seen[True] > 20 and seen[False] > 20, seen
    assert raven_sure > 100


@pytest.mark.parametrize("seat", [0, 2])
def test_what_other_seats_know_is_rebuilt_from_the_redealt_world(build, seat):
    """RM-11: another seat's memory is hidden from the seat re-dealing: after the re-deal, each
    other seat knows its own (re-dealt) character, the revealed ones and, possessed, its
    possessor's; and of the re-dealing seat, what they exchanged (the mirror of its memory)."""
    s = build(
        [T.AUNT_CAT, T.RAVEN, T.MOTHER_HEN, T.BOAR],
        hands={0: [T.KITCHEN], 1: [T.FEATHER], 2: [T.FEATHER], 3: [T.VASE]},
        deck=[T.KITCHEN, T.VASE] * 5,
        possessed={2: 1},
        dead=(3,),
    )
    s.kn[0, 2, state.KN_GAVE + T.VASE] = 1
    s.kn[2, 0, state.KN_RECV + T.VASE] = 1
    s.kn[2, 1, KN_HAND + T.AXE] = 1  # seat 2 saw an Axe in the Raven's hand
    twin = state.alloc_state(s.tb, 0)
    state.copy_state(s.st, twin)
    knowledge.determinize(s.tb, twin, np.int64(seat), _stream(5))
    for x in range(4):
        if x == seat:
            np.testing.assert_array_equal(twin.kn[x], s.kn[x])
            continue
        assert twin.kn[x, x, KN_CHAR] == twin.pl[x, PL_CHAR]
        assert twin.kn[x, 3, KN_CHAR] == T.BOAR
        if twin.pl[x, PL_POSSESSED] >= 0:
            q = int(state.living_possessor(twin, np.int64(twin.pl[x, PL_POSSESSED])))
            assert twin.kn[x, q, KN_CHAR] == twin.pl[q, PL_CHAR]
        assert twin.kn[x, 1, KN_HAND + T.AXE] == 0  # forgotten: the seat cannot know it
        np.testing.assert_array_equal(
            twin.kn[x, seat, state.KN_RECV : state.KN_RECV + T.NC],
            s.kn[seat, x, state.KN_GAVE : state.KN_GAVE + T.NC],
        )


@pytest.mark.parametrize(("sides", "family"), [("family", True), ("evil", False)])
def test_a_search_limited_to_a_side_searches_only_there(sides, family):
    """``sides: [family]`` (or ``[evil]``): a seat searches exactly the decisions it takes on that
    side (the Raven's and a possessed seat's are evil, RM-6), plays basic on the other, and the
    batch plays the Python loop's games; the counts of searches agree with the loop's."""
    from balance import games
    from balance.games.position import Position
    from balance.search import play_counted, play_move, search_streams, searching

    plugin, tables, _ = compiled(
        "configs/raven_manor/search_family_vs_basic_evil.yaml",
        ("policies.mcts.iterations=3", f"policies.mcts.sides=[{sides}]"),
    )
    chunk, counts = play_counted(plugin, tables, 3, 0, 3)
    seen = {True: 0, False: 0}
    for g in range(3):
        pos = Position(plugin, tables.inner, 3, g)
        streams = search_streams(tables, 3, g)
        searches = 0
        while not pos.done:
            on_family = int(pos.state.pl[pos.actor, PL_SIDE]) == T.FAMILY
            assert searching(pos, tables) == (on_family == family)
            seen[on_family] += 1
            if searching(pos, tables) and len(pos.options()) > 1:
                searches += 1
            play_move(pos, tables, streams)
        np.testing.assert_array_equal(pos.row().rank[0], chunk.rank[g])
        np.testing.assert_array_equal(pos.row().telemetry[0], chunk.telemetry[g])
        assert counts[g, 0] == searches and counts[g, 1] == 3 * searches
    assert seen[True] > 0 and seen[False] > 0  # both sides decided something
    assert games.get("raven_manor").policy_kinds["search"].side_names == ("family", "evil")


def test_sides_is_a_raven_manor_key_and_names_a_side():
    """A game without sides has no ``sides`` key; a side that is not one is named in one line."""
    from balance.config import config_from_dict
    from balance.errors import ConfigError

    bad = {"kind": "search", "iterations": 10, "sides": ["raven"]}
    with pytest.raises(
        ConfigError,
        match=r"x\.yaml: policies\.mcts\.sides\[0\]: must be one of .family. or .evil., got .raven.",
    ):
        config_from_dict(
            {"game": "raven_manor", "players": 5, "seats": "mcts", "policies": {"mcts": bad}},
            file="x.yaml",
        )
    fr = {"kind": "search", "iterations": 10, "sides": ["family"]}
    with pytest.raises(ConfigError, match=r"policies\.mcts\.sides"):
        config_from_dict(
            {"game": "five_ravens", "players": 4, "seats": "mcts", "policies": {"mcts": fr}},
            file="x.yaml",
        )


# ---------------------------------------------------------------- a budget by side


@pytest.mark.parametrize(
    ("sides", "by_side", "budget"),
    [
        ("[family, evil]", "{family: 3, evil: 7}", {True: 3, False: 7}),
        ("[family, evil]", "{evil: 7}", {True: 5, False: 7}),  # family: iterations
        ("[evil]", "{family: 3, evil: 7}", {True: None, False: 7}),  # family never searches
    ],
)
def test_iterations_by_side_gives_each_side_its_budget(sides, by_side, budget):
    """``iterations_by_side``: every search a seat makes on the Family's side (or an evil one:
    the Raven's, possessed, RM-6) plays that side's iterations (``iterations`` for a side it
    does not name; none on a side ``sides`` does not search): each root's visits sum to the
    budget of the side the seat is on, the batch plays the Python loop's games, and its counts
    (searches, iterations) are the loop's."""
    from balance.games.position import Position
    from balance.search import decide, play_counted, search_streams, searching

    plugin, tables, _ = compiled(
        "configs/raven_manor/search_family_vs_basic_evil.yaml",
        (
            "policies.mcts.iterations=5",
            f"policies.mcts.sides={sides}",
            f"policies.mcts.iterations_by_side={by_side}",
        ),
    )
    chunk, counts = play_counted(plugin, tables, 3, 0, 2)
    searched = {True: 0, False: 0}
    for g in range(2):
        pos = Position(plugin, tables.inner, 3, g)
        streams = search_streams(tables, 3, g)
        n = iters = 0
        while not pos.done:
            family = int(pos.state.pl[pos.actor, PL_SIDE]) == T.FAMILY
            if not searching(pos, tables):
                assert budget[family] is None
                pos.play_policy()
                continue
            code, stats, _ = decide(pos, tables, streams[pos.actor])
            if len(stats) > 1:  # a forced move is played without a search
                assert stats[:, 1].sum() == budget[family], (g, family)
                searched[family] += 1
                n += 1
                iters += budget[family]
            pos.apply(code)
        np.testing.assert_array_equal(pos.row().rank[0], chunk.rank[g])
        np.testing.assert_array_equal(pos.row().telemetry[0], chunk.telemetry[g])
        assert (counts[g, 0], counts[g, 1]) == (n, iters)
    assert searched[False] > 0  # an evil seat searched
    assert (searched[True] > 0) == (budget[True] is not None)


def test_iterations_by_side_at_the_iterations_plays_the_same_games():
    """A budget by side equal to ``iterations`` on both sides plays the very games (every
    output column, and the searches' counts) of the same config without it."""
    from balance.games import _search
    from balance.search import play_counted
    from tests.games.test_decisions import _equal_chunks

    small = ("policies.mcts.iterations=4", "seats=mcts")
    plugin, plain, config = compiled("configs/raven_manor/search_vs_basic.yaml", small)
    _, same, with_key = compiled(
        "configs/raven_manor/search_vs_basic.yaml",
        (*small, "policies.mcts.iterations_by_side={family: 4, evil: 4}"),
    )
    assert "iterations_by_side" not in config.policies["mcts"]  # resolved as before the key
    assert with_key.policies["mcts"]["iterations_by_side"] == {"family": 4, "evil": 4}
    assert (same.search[:, _search.SP_BY_SIDE : _search.SP_BY_SIDE + 2] == 4).all()
    a, counts_a = play_counted(plugin, plain, 8, 0, 2)
    b, counts_b = play_counted(plugin, same, 8, 0, 2)
    _equal_chunks(a, b)
    np.testing.assert_array_equal(counts_a, counts_b)
    assert counts_a[:, 0].sum() > 0


@pytest.mark.parametrize(
    ("by_side", "message"),
    [
        (
            {"raven": 3},
            r"x\.yaml: policies\.mcts\.iterations_by_side\.raven: bad key: must be one of"
            r" .family. or .evil., got .raven.",
        ),
        ({"family": 0}, r"x\.yaml: policies\.mcts\.iterations_by_side\.family: must be >= 1"),
        ({"evil": 1_000_001}, r"policies\.mcts\.iterations_by_side\.evil: must be <= 1000000"),
        ({}, r"policies\.mcts\.iterations_by_side: must have at least 1 item"),
        ([8, 32], r"policies\.mcts\.iterations_by_side: expected a mapping"),
    ],
)
def test_iterations_by_side_names_a_side_and_a_budget(by_side, message):
    """A side that is not the game's, a budget out of 1..MAX_ITERATIONS, an empty or non-mapping
    value: one line naming the file and the key; a game without sides has no such key."""
    from balance.config import config_from_dict
    from balance.errors import ConfigError

    bad = {"kind": "search", "iterations": 10, "iterations_by_side": by_side}
    with pytest.raises(ConfigError, match=message) as caught:
        config_from_dict(
            {"game": "raven_manor", "players": 5, "seats": "mcts", "policies": {"mcts": bad}},
            file="x.yaml",
        )
    assert "\n" not in str(caught.value)
    fr = {"kind": "search", "iterations": 10, "iterations_by_side": {"family": 3}}
    with pytest.raises(ConfigError, match=r"x\.yaml: policies\.mcts\.iterations_by_side: unknown"):
        config_from_dict(
            {"game": "five_ravens", "players": 4, "seats": "mcts", "policies": {"mcts": fr}},
            file="x.yaml",
        )
