"""The Raven Order's search player (balance/games/raven_order/search.py) and its re-deal.

- **It finds what the heuristic misses**: a hand-built position from the rulebook where seat 0
  wins at once by training its sentry into a rider that Horses lets attack the turn it is trained
  (RO-5, RO-10) and razing the opponent's last building (RO-9), and loses next turn otherwise;
  the economy heuristic holds its gold for its next building instead (its ``save_turns``), the
  search (a small budget, a fixed stream) trains.
- **A canonical re-deal** (knowledge.determinize): re-dealing the true state and re-dealing any
  consistent re-deal of it with the same stream give the same State (every array but the log),
  on a few hundred decision states, so nothing of how the hidden runes truly lie survives a
  re-deal; planted: the old pool (the deck in its true order, then the hand) and a re-deal that
  keeps the policies' scratch are caught.
- **Clearing is harmless**: what the re-deal clears (knowledge._forget) changes nothing a game
  does: a game played on from a state and from the same state cleared draws the same numbers and
  ends the same.
"""

from __future__ import annotations

import numpy as np
import pytest

from balance import games
from balance.games import _kit as kit
from balance.games.position import Position
from balance.games.raven_order import engine, knowledge
from balance.games.raven_order import state as S
from balance.games.raven_order import tables as T
from balance.rng import seed_stream
from balance.search import SearchTables, decide, search_stream
from tests.kit.decisions import compiled as compiled_file
from tests.kit.decisions import positions

from .helpers import blank, compiled, resume, seat

SEARCH_CONFIG = "configs/raven_order/search_vs_economy.yaml"
PLUGIN = games.get("raven_order")
N_STATES = 300  # decision states of the canonical re-deal check


def _rng(seed: int) -> np.ndarray:
    r = np.zeros(1, np.uint64)
    seed_stream(r, np.int64(seed), np.int64(0), np.int64(77))
    return r


def _copy(st: S.State) -> S.State:
    return S.State(*(a.copy() for a in st))


def engine_work(c):
    """The engine's and policies' scratch (state.alloc_work)."""
    return S.alloc_work(c.tb)


# ---------------------------------------------------------------- a position the search wins


def _horses_position(c) -> S.State:
    """Seat 0 (economy when it does not search) in Construction, turn 10: Camp, Armory, Citadel,
    Shrine with Horses (RO-10: its riders may attack the turn they are trained), Academy Lv. 1;
    1 gold, one sentry, no workers, no runes. Seat 1: only its Camp (RO-9: razing it wins), no
    workers, and seven riders that attacked last turn, so none can block now (RO-5) and all can
    attack next turn, more than seat 0 has buildings and blockers (RO-7, RO-9)."""
    st = blank(c, deck=[T.MEDICINE, T.CLOAKING, T.CANINE, T.LOOTING])
    seat(
        st,
        0,
        buildings=(T.CAMP, T.ARMORY, T.CITADEL, T.SHRINE, T.ACAD1),
        gold=1,
        units=[T.SENTRY],
        brunes={T.SHRINE: T.HORSES},
    )
    rows = seat(st, 1, buildings=(T.CAMP,), units=[T.RIDER] * 7, hand=[T.FROST, T.SQUIRE])
    for i in rows:
        st.units[1, i, S.U_TIRED] = st.board[S.G_TURN] - 1
    resume(st, 0, S.PH_CONSTRUCT)
    engine.advance(c.tb, st, engine_work(c))
    return st


def _play_out(c, st, code: int) -> S.State:
    """``st`` after seat 0 plays ``code`` and the seats' policies play on to the end."""
    out = _copy(st)
    w = engine_work(c)
    engine.apply(c.tb, out, w, np.int64(code))
    engine.play_out(c.tb, out, w)
    return out


def test_the_search_trains_the_rider_that_wins_at_once_where_the_heuristic_saves_its_gold():
    plugin, tables, _ = compiled_file(SEARCH_CONFIG, ("policies.mcts.iterations=48",))
    assert isinstance(tables, SearchTables) and tables.search_seats == [0]
    c = tables.inner
    st = _horses_position(c)
    pos = Position(plugin, c, 0, 0, _state=st)
    assert (pos.actor, pos.kind) == (0, "action")
    train = S.AC_TRAIN + T.SENTRY  # a sentry becomes a rider (RO-4)
    opts = pos.options().tolist()
    assert train in opts and S.AC_END in opts
    economy = pos.copy().choose()
    assert economy != train  # it keeps its gold for the Town (save_turns)
    # the known answer: training wins this very turn (the rider razes the Camp, RO-9), the
    # heuristic's move loses to the seven riders next turn
    won = _play_out(c, st, train)
    assert (won.board[S.G_WINNER], won.board[S.G_TURN]) == (0, st.board[S.G_TURN])
    lost = _play_out(c, st, economy)
    assert lost.board[S.G_END] == S.END_DESTRUCTION and lost.board[S.G_WINNER] == 1
    code, stats, means = decide(pos, tables, search_stream(3, 0, 0))
    assert code == train
    by_code = {int(s[0]): (int(s[1]), float(m)) for s, m in zip(stats, means, strict=True)}
    # nearly every rollout through it won (the tree also tries its later choices, such as not
    # attacking), nearly none through the heuristic's move
    assert by_code[train][1] > 0.8 and by_code[economy][1] < 0.2
    assert by_code[train][0] == max(v for v, _ in by_code.values())


# ---------------------------------------------------------------- the canonical re-deal


def _python_redeal(st: S.State, s: int, gen: np.random.Generator) -> S.State:
    """A re-deal for seat ``s`` written apart from knowledge.py: the unseen runes (the deck and
    the opponent's hand, less a rune it has announced) permuted with numpy, the opponent's drawn
    telemetry following its hand, and other policy scratch (A_TMP, where a random policy lists
    the runes of its hand among its options) as a world with another hand would hold it."""
    out = _copy(st)
    o = 1 - s
    b = out.board
    top = int(b[S.G_DECK_TOP])
    deck = [int(x) for x in b[S.B_DECK + top :] if x >= 0]
    fixed = int(b[S.G_ARG]) if (b[S.G_PKIND], b[S.G_PACTOR]) == (S.D_RUNE_HOST, o) else -1
    hand = out.pl[o, S.PL_HAND : S.PL_HAND + T.NR].copy()
    pool = list(deck)
    for r in range(T.NR):
        pool += [r] * (int(hand[r]) - (1 if r == fixed else 0))
    pool = [int(x) for x in gen.permutation(pool)]
    h = len(pool) - len(deck)
    new = np.bincount(pool[:h], minlength=T.NR).astype(np.int32)
    if fixed >= 0:
        new[fixed] += 1
    out.pl[o, S.PL_HAND : S.PL_HAND + T.NR] = new
    S.sync_held(out, o)
    out.pl[o, S.PL_TELE + T.TE_DRAWN : S.PL_TELE + T.TE_DRAWN + T.NR] += new - hand
    b[S.B_DECK + top : S.B_DECK + top + len(deck)] = pool[h:]
    out.aux[S.A_TMP : S.A_TMP + 3] = gen.integers(-1, 20, size=(3, out.aux.shape[1]))
    return out


def _same(a: S.State, b: S.State) -> bool:
    """Every array of the two States equal, but the log rows."""
    return (
        np.array_equal(a.pl, b.pl)
        and np.array_equal(a.units, b.units)
        and np.array_equal(a.board, b.board)
        and np.array_equal(a.rng, b.rng)
        and np.array_equal(a.aux[: S.AUX_LOG], b.aux[: S.AUX_LOG])
    )


def _states(n: int):
    """``n`` decision states: random seats (whose scratch lists the runes of their hands), the
    base line-up, and economy against random with more Spirit Runes; every third decision."""
    configs = [
        compiled(["random", "random"]),
        compiled(),
        compiled(["economy", "random"], {"runes": {"spirit_rune": {"count": 3}}}),
    ]
    out = []
    for k, c in enumerate(configs):
        m = n // len(configs) + (1 if k < n % len(configs) else 0)
        out += [(c, p) for p in positions(PLUGIN, c, seed=29 + k, n=m, every=3)]
    return out


def _misses(det, states) -> tuple[int, int]:
    """(states whose re-deal by ``det`` differs between the true state and a consistent re-deal
    of it, states with hidden runes): the true state and two re-deals of it (one by
    knowledge.determinize, one by numpy), each re-dealt again by ``det`` with the same stream."""
    gen = np.random.default_rng(5)
    misses = hidden = 0
    for i, (c, pos) in enumerate(states):
        st = pos.state
        s = pos.actor if i % 4 else 1 - pos.actor  # the deciding seat, and at times the other
        o = 1 - s
        top = int(st.board[S.G_DECK_TOP])
        hidden += int(st.pl[o, S.PL_HAND_N] > 0 or (st.board[S.B_DECK + top :] >= 0).any())
        other = _copy(st)
        knowledge.determinize(c.tb, other, np.int64(s), _rng(10_000 + i))
        worlds = [_copy(st), other, _python_redeal(st, s, gen)]
        for w in worlds:
            det(c.tb, w, np.int64(s), _rng(i))
        misses += not all(_same(worlds[0], w) for w in worlds[1:])
    return misses, hidden


@pytest.fixture(scope="module")
def states():
    return _states(N_STATES)


def test_a_re_deal_depends_only_on_what_the_seat_knows(states):
    misses, hidden = _misses(knowledge.determinize, states)
    assert len(states) == N_STATES
    assert hidden > N_STATES // 2  # most states hide runes: the check has something to move
    assert misses == 0


def _old_pool(tb, st, s, rng):
    """Planted: the re-deal as it was, its pool the deck in its true order, then the hand."""
    o = 1 - s
    b = st.board
    top = int(b[S.G_DECK_TOP])
    deck = [int(x) for x in b[S.B_DECK + top :] if x >= 0]
    fixed = int(b[S.G_ARG]) if (b[S.G_PKIND], b[S.G_PACTOR]) == (S.D_RUNE_HOST, o) else -1
    old = st.pl[o, S.PL_HAND : S.PL_HAND + T.NR].copy()
    pool = list(deck)
    for r in range(T.NR):
        pool += [r] * (int(old[r]) - (1 if r == fixed else 0))
    arr = np.array([*pool, 0], np.int32)
    kit.shuffle(arr, np.int64(len(pool)), rng)
    h = len(pool) - len(deck)
    new = np.bincount(arr[:h], minlength=T.NR).astype(np.int32)
    if fixed >= 0:
        new[fixed] += 1
    st.pl[o, S.PL_HAND : S.PL_HAND + T.NR] = new
    S.sync_held(st, o)
    st.pl[o, S.PL_TELE + T.TE_DRAWN : S.PL_TELE + T.TE_DRAWN + T.NR] += new - old
    b[S.B_DECK + top : S.B_DECK + top + len(deck)] = arr[h : len(pool)]
    knowledge._forget(st)
    knowledge.reseed(tb, st, rng)


def _keeps_scratch(tb, st, s, rng):
    """Planted: the canonical re-deal, but the policies' scratch left as it was."""
    tmp = st.aux[S.A_TMP : S.A_TMP + 3].copy()
    knowledge.determinize(tb, st, s, rng)
    st.aux[S.A_TMP : S.A_TMP + 3] = tmp


@pytest.mark.parametrize("planted", [_old_pool, _keeps_scratch])
def test_planted_the_check_catches_a_re_deal_that_reads_the_hidden_runes(states, planted):
    misses, _ = _misses(planted, states[:90])  # the random seats' states
    assert misses > 10, misses


def test_clearing_what_nothing_reads_changes_nothing_a_game_does(states):
    """knowledge._forget clears plans and scratch that no rule and no policy reads again: on the
    same decision states, a game played on by the policies from the state and from the state
    cleared takes the same draws (every stream ends equal) and ends the same."""
    cleared = 0
    for c, pos in states[::2]:
        a = _copy(pos.state)
        b = _copy(pos.state)
        knowledge._forget(b)
        cleared += not _same(a, b)
        w = engine_work(c)
        engine.play_out(c.tb, a, w)
        engine.play_out(c.tb, b, w)
        np.testing.assert_array_equal(a.rng, b.rng)
        np.testing.assert_array_equal(a.pl, b.pl)
        np.testing.assert_array_equal(a.units, b.units)
        np.testing.assert_array_equal(a.board[: S.G_PLAN], b.board[: S.G_PLAN])
        np.testing.assert_array_equal(a.board[S.B_DECK :], b.board[S.B_DECK :])
    assert cleared > len(states) // 4, cleared  # it had something to clear
