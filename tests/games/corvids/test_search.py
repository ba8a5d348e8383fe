"""The search player in Corvids (balance/games/_search.py bound by corvids/search.py) and the
re-deal it starts every iteration from (knowledge.determinize, CV-12).

- **A known best move**: a hand-built last turn in which one pick wins the game and the other
  loses it; the search finds the winning pick with a small budget and a fixed stream.
- **A canonical re-deal**: ``determinize`` of the true state and of a re-deal of it, with the
  same stream, give identical States (every pool laid out in an order the seat knows before it
  is shuffled), on some hundreds of decision states; planted: a re-deal that lets a hidden item
  move its stream is caught. It reads no other seat's memory of cards (CC_SEEN), and what it
  resets (``knowledge.forget``) changes nothing the game does.
- **The shipped search config** plays, at a lowered budget, games whose counts add up.
"""

from __future__ import annotations

import numpy as np
import pytest

from balance import games
from balance.games.corvids import engine, knowledge, state, tables
from balance.games.corvids import physics as ph
from balance.games.corvids.tables import BLANK
from balance.games.position import Position
from balance.rng import next_u64
from balance.search import SearchTables, decide, rollout_config, search_seats, search_stream
from tests.games.test_decisions import _same_state
from tests.kit.decisions import compiled, positions

from .helpers import LOG_CAP, Card, Held, build, config, item_id

SEARCH = "configs/corvids/search_vs_greedy.yaml"
LOW = (
    "policies.mcts.iterations=4",
)  # the shipped 1,000 iterations, lowered where games are played


def _stream(seed: int) -> np.ndarray:
    return search_stream(seed, 0, 0)


# ---------------------------------------------------------------- a move known to win


def _last_turn(iterations: int):
    """Seat 0's pick in a two-seat game's last turn (CV-5, CV-7): two uncovered cards, far apart,
    no feather anywhere; the card not taken touches nothing at the end of the turn and is
    removed (PHYS-8), so the pile is empty and the game ends (CV-7). Seat 0 (raven: +1 a key,
    CV-10) holds two keys face up, seat 1 six acorns. Taking the key completes a set of three
    keys (5 points, CV-3) and scores 5 + 3 = 8 against 6: a win; taking the button scores
    2 + 1 + 2 = 5: a loss. Returns (plugin, SearchTables, Position, key card, button card)."""
    cfg = config(
        2,
        {"physics": {"peck_offset_sd": 0.0, "peck_turn_sd": 0.0}},
        seats=["mcts", "steady"],
        policies={"mcts": {"kind": "search", "iterations": iterations, "rollout": "steady"}},
    )
    plugin = games.get("corvids")
    st_tables = plugin.compile(cfg)
    assert isinstance(st_tables, SearchTables) and st_tables.search_seats == [0]
    key, button = item_id("key"), item_id("button")
    scene = build(
        st_tables.inner,
        cards={
            0: Card(-70.0, 0.0, 1.0, key, item_id("acorn"), face=1),
            1: Card(70.0, 0.0, 2.0, button, item_id("nut"), face=1),
        },
        held={
            0: {10: Held(key, button), 11: Held(key, button)},
            1: {k: Held(item_id("acorn"), item_id("earring")) for k in range(20, 26)},
        },
        open_nests=(0, 1),
    )
    st = scene.st
    b = st.board
    b[state.G_ACTIVE] = 0
    b[state.G_PHASE] = state.PH_PICK
    b[state.G_STOP] = state.NO_STOP
    b[state.G_KIND] = -1
    b[state.G_ACTOR] = -1
    assert engine.advance(st_tables.tb, st, scene.work) == 0
    pos = Position(plugin, st_tables.inner, 11, 0, log_cap=LOG_CAP, _state=st)
    assert pos.kind == "pick" and sorted(pos.options().tolist()) == [0, 1]
    return plugin, st_tables, pos, 0, 1


def test_the_search_takes_the_pick_that_wins_the_last_turn():
    """CV-3, CV-5, CV-7: of two picks, one completes a set of keys and wins, the other loses;
    the search (20 iterations, a fixed stream) takes the key, its root's mean wins are 1 and 0,
    and playing each pick out confirms which one wins."""
    _, st_tables, pos, key_card, button_card = _last_turn(20)
    for card, won in ((key_card, True), (button_card, False)):
        out = pos.copy()
        out.apply(card)
        assert out.done and out.state.board[state.G_END] == state.END_EMPTY
        assert (out.row().rank[0][0] == 1) == won
    code, stats, means = decide(pos, st_tables, _stream(3))
    assert code == key_card
    by_option = {int(o): (int(v), float(m)) for (o, v, _), m in zip(stats, means)}
    assert by_option[key_card][1] == 1.0 and by_option[button_card][1] == 0.0
    assert by_option[key_card][0] > by_option[button_card][0]


def test_a_search_on_a_logged_position_is_the_search_on_an_unlogged_one():
    """The search's scratch States keep no log; a re-deal gives its world no more log room than
    its own rows (``knowledge.forget``), so searching a Position that keeps a log reads and
    writes nothing past them and finds the same root."""
    _, st_tables, pos, _, _ = _last_turn(12)
    bare = Position(pos.game, pos.compiled, 11, 0, log_cap=0, _state=pos.state)
    bare.state.board[state.G_LOG_CAP] = 0
    bare.state.board[state.G_LOG_N] = 0
    a = decide(pos, st_tables, _stream(5))
    b = decide(bare, st_tables, _stream(5))
    assert a[0] == b[0]
    np.testing.assert_array_equal(a[1], b[1])
    np.testing.assert_array_equal(a[2], b[2])


# ---------------------------------------------------------------- the canonical re-deal


def _redeal(pos: Position, seat: int, seed: int) -> Position:
    """A copy of ``pos`` re-dealt for ``seat`` by ``knowledge.determinize`` from stream ``seed``."""
    out = pos.copy()
    knowledge.determinize(pos._tb, out.state, np.int64(seat), _stream(seed))
    return out


def _hidden_single(pos: Position, seat: int) -> int:
    """The first single-sided card whose item ``seat`` does not know (-1 none): the same card in
    the true state and in any re-deal of it (which cards are hidden is public)."""
    for c in range(pos.state.item.shape[0]):
        if knowledge.hidden_single(pos._tb, pos.state, np.int64(seat), np.int64(c)):
            return c
    return -1


def _leaky(pos: Position, seat: int, seed: int) -> Position:
    """Planted: a re-deal whose stream is moved by the true item of a hidden card before the
    deal (as a pool laid out in the true order moves its shuffle)."""
    out = pos.copy()
    rng = _stream(seed)
    c = _hidden_single(out, seat)
    for _ in range(int(out.state.item[c, 0]) if c >= 0 else 0):
        next_u64(rng)
    knowledge.determinize(pos._tb, out.state, np.int64(seat), rng)
    return out


@pytest.mark.parametrize("path", ["configs/corvids/base.yaml", "configs/corvids/two_players.yaml"])
def test_the_redeal_is_the_same_from_the_true_state_and_from_any_redeal_of_it(path):
    """CV-12: on 200 decision states a config, for the acting seat and for another, the re-deal
    (same stream) of the true state and of a consistent re-deal of it are identical States: it
    depends on what the seat knows and on its stream alone. Planted: a re-deal whose stream a
    hidden item moves differs on many of them."""
    plugin, tb_, _ = compiled(path)
    checked = caught = hidden = 0
    for i, pos in enumerate(positions(plugin, tb_, seed=61, n=200, every=3)):
        for seat in {pos.actor, (pos.actor + 1 + i) % pos.players}:
            world = _redeal(pos, seat, 10_000 + i)
            a = _redeal(pos, seat, 20_000 + i)
            b = _redeal(world, seat, 20_000 + i)
            assert _same_state(a.state, b.state), f"state {i}, seat {seat}"
            np.testing.assert_array_equal(a.observe(seat), pos.observe(seat))
            c = _hidden_single(pos, seat)
            if c >= 0 and world.state.item[c, 0] != pos.state.item[c, 0]:
                hidden += 1
                la = _leaky(pos, seat, 20_000 + i)
                lb = _leaky(world, seat, 20_000 + i)
                caught += not _same_state(la.state, lb.state)
            checked += 1
    assert checked >= 200 and hidden >= 20
    assert caught == hidden  # every planted leak whose hidden item moved is caught


def test_the_redeal_reads_no_other_seats_memory_of_cards():
    """CV-11, CV-12: which cards the other seats took or stole (their CC_SEEN bits) is public
    and stays; the re-deal does not read it: with those bits scrambled, the world it deals is
    the same but for them."""
    plugin, tb_, _ = compiled("configs/corvids/base.yaml")
    rng = np.random.default_rng(3)
    mine = 0
    for i, pos in enumerate(positions(plugin, tb_, seed=67, n=150, every=4)):
        seat = pos.actor
        odd = pos.copy()
        seen = odd.state.cc[:, state.CC_SEEN]
        keep = (np.int64(1) << seat) | (np.int64(1) << state.SEEN_ALL)
        seen[:] = (seen & keep) | (rng.integers(0, 1 << tables.MAXP, seen.shape[0]) & ~keep)
        a = _redeal(pos, seat, 30_000 + i)
        b = _redeal(odd, seat, 30_000 + i)
        b.state.cc[:, state.CC_SEEN] = a.state.cc[:, state.CC_SEEN]
        assert _same_state(a.state, b.state), f"state {i}"
        mine += int(((pos.state.cc[:, state.CC_SEEN] & ~keep) != 0).any())
    assert mine > 50  # other seats' memory was there to read


def test_what_the_redeal_forgets_changes_nothing_the_game_does():
    """The policies' memo, a ticket plan outside a ticket decision, the telemetry, the log and
    the pile's scratch (``knowledge.forget``): on 250 decision states of greedy and random
    games, a game played on after forgetting them ends as the game itself does (ranks, scores,
    turns, every card's place and item)."""
    plugin, tb_, _ = compiled("configs/corvids/random_vs_greedy.yaml")
    memo = 0
    for i, pos in enumerate(positions(plugin, tb_, seed=71, n=250, every=6)):
        memo += int(pos.state.memo.any())
        twin = pos.copy()
        knowledge.forget(pos._tb, twin.state, np.int64((pos.actor + i) % pos.players))
        assert not twin.state.memo.any() and not twin.state.pl[:, state.PL_TELE :].any()
        pos.play_out()
        twin.play_out()
        for name in ("rank", "score", "turns", "end_reason"):
            np.testing.assert_array_equal(
                getattr(twin.row(), name), getattr(pos.row(), name), err_msg=f"{i} {name}"
            )
        np.testing.assert_array_equal(twin.state.cc, pos.state.cc)
        np.testing.assert_array_equal(twin.state.item, pos.state.item)
    assert memo > 100  # the memo was there to forget


def test_a_redeal_keeps_a_ticket_plan_at_a_ticket_decision_and_drops_it_elsewhere():
    """CV-4: a policy plans its ticket flips at the turn's first ticket point (G_TK_PLAN) and
    reads the plan only while it decides on tickets: the re-deal keeps it there (the actor's
    own) and resets it elsewhere."""
    plugin, tb_, _ = compiled("configs/corvids/base.yaml")
    kept = dropped = 0
    for i, pos in enumerate(positions(plugin, tb_, seed=73, n=4000, every=1)):
        plan = int(pos.state.board[state.G_TK_PLAN])
        if plan < 0:
            continue
        got = int(_redeal(pos, pos.actor, i).state.board[state.G_TK_PLAN])
        if pos.kind == "ticket":
            assert got == plan
            kept += 1
        else:
            assert got == -1
            dropped += 1
        if kept >= 5 and dropped >= 5:
            break
    assert kept >= 5 and dropped >= 5


# ---------------------------------------------------------------- the shipped search config


def test_the_shipped_search_config_compiles_to_search_tables_of_its_rollout_config():
    """search_vs_greedy.yaml: seat 0 searches (1,000 iterations, greedy rollouts), and its
    tables are the rollout config's (the search seat playing greedy)."""
    plugin, st_tables, cfg = compiled(SEARCH)
    assert isinstance(st_tables, SearchTables) and search_seats(cfg) == [0]
    assert st_tables.search_seats == [0] and st_tables.search[0, 1] == 1000
    inner = tables.compile_tables(rollout_config(cfg))
    for a, b in zip(st_tables.inner.tb, inner.tb):
        np.testing.assert_array_equal(a, b)


def test_the_shipped_search_config_plays_games_whose_counts_add_up():
    """At 4 iterations a decision: eight games of search_vs_greedy.yaml end (CV-7), ranks are
    1..4, and each seat's cards held are what it picked and stole less what was stolen."""
    plugin, st_tables, _ = compiled(SEARCH, LOW)
    assert st_tables.search[0, 1] == 4
    chunk = plugin.play(st_tables, 5, 0, 8)
    names = plugin.telemetry_columns(st_tables)
    tele = chunk.telemetry.astype(np.int64)

    def cols(word: str) -> np.ndarray:
        return tele[:, :, [i for i, n in enumerate(names) if n.startswith(f"{word}__")]].sum(axis=2)

    assert (chunk.rank.min(axis=1) == 1).all() and (chunk.rank <= 4).all()
    assert np.array_equal(cols("picked") + cols("stole") - cols("stolen"), chunk.extra["cards"])
    assert (chunk.turns > 0).all()


def test_a_single_sided_cards_blank_back_is_all_a_redeal_needs_to_know_it_is_single():
    """CV-2: whether a card is single-sided shows (a blank back, or an item that only single-
    sided cards carry); the re-deal never makes a double-sided card single or the reverse."""
    plugin, tb_, _ = compiled("configs/corvids/base.yaml")
    for i, pos in enumerate(positions(plugin, tb_, seed=79, n=60, every=5)):
        w = _redeal(pos, pos.actor, i)
        np.testing.assert_array_equal(w.state.item[:, 1] == BLANK, pos.state.item[:, 1] == BLANK)
        on = pos.state.pile.cst[:, ph.CS_ON] == 1
        np.testing.assert_array_equal(w.state.pile.cst[on], pos.state.pile.cst[on])
