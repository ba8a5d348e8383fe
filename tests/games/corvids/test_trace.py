"""Corvids' trajectory (issue 32; docs/rules/corvids.md, How a game went): every seat's standing
(``score``: CV-3's points of the cards held now plus the place's handicap, CV-7) and its
feathers held (CV-7's tie-break) at point 0 (after set-up), at the end of every round (every
seat's turn once, from the first player) and at the game's end (CV-7: the pile empty).

- **The last point is the dataset**: for every game of runs of the smallest (2) and largest (8)
  player counts, the base config and a handicapped one, the last point's score and feathers are
  the dataset's ``score`` and ``feathers`` exactly, and rank by (score, feathers) gives ``rank``
  (CV-7); ``points`` is 1 + the rounds the game began (its turns); point 0 is the handicap alone.
- **Every point, independently**: games played one decision at a time from Python, each seat's
  standing computed by ``schema.score_cards`` (CV-3's Python mirror) at each round's end.
- **A hand-built game known by hand**: seven turns of two scripted seats, a face-down coin (CV-3),
  sets that overtake (CV-3), a handicap (CV-7), a feather taken with a card (ENGINE-2), a card
  left alone removed (CV-5, PHYS-8) which empties the pile and ends the game mid-round (CV-7).
- **The logged replay** (``narrate.play_logged``) has the batch's trace; the **search player's
  batch** fills it too; **trace_cap** is never exceeded: every turn lowers (cards in the pile +
  feathers in play) by one at least (ENGINE-4), on clumsy small-mat games where pieces fall off.
"""

from __future__ import annotations

import numpy as np
import pytest

from balance.games import _kit as kit
from balance.games.corvids import engine, narrate, policies, state, tables
from balance.games.corvids import physics as ph
from balance.games.corvids.schema import ITEM_NAMES, score_cards
from balance.games.corvids.state import (
    CC_OWNER,
    CC_TAKEN_FACE,
    G_ACTIVE,
    G_ACTOR,
    G_END,
    G_FIRST,
    G_KIND,
    G_N,
    G_PHASE,
    G_STOP,
    G_TURN,
    PL_BIRD,
    PL_FEATHERS,
)
from balance.games.corvids.tables import BLANK, BUTTON, COIN, KEY, P_HANDICAP
from tests.kit.decisions import compiled as compiled_config

from .helpers import Card, Feather, build, steady

SEED = 7
SEARCH = "configs/corvids/search_vs_greedy.yaml"
HANDICAP = ("rules.handicap=[3, 0, -2, 1]",)
SCORING = (
    "rules.cards.single_sided={string: 2, ticket: 2, coin: 12}",
    "rules.scoring.values.coin=2",
    "rules.scoring.coin_face_down=5",
    "rules.scoring.sets.coin={size: 2, points: 7}",
    "rules.handicap=[0, 2]",
)


def _play(path: str, overrides: tuple[str, ...] = (), n: int = 1000, seed: int = SEED):
    plugin, c, cfg = compiled_config(path, overrides)
    return plugin, c, cfg, plugin.play(c, seed, 0, n)


def ceil_div(a, b):
    return -(-a // b)


def test_the_measures_and_the_bound():
    """The standing first (score), then the tie-break (feathers); trace_cap is 1 + ceil((cards
    + feathers) / players) (ENGINE-4), the scratch's rows the same."""
    assert state.TRACE_MEASURES == ("score", "feathers")
    for path, cap in [
        ("configs/corvids/two_players.yaml", 1 + 28),  # 55 turns at most, 2 a round
        ("configs/corvids/base.yaml", 1 + 14),
        ("configs/corvids/eight_players.yaml", 1 + 7),
    ]:
        _, c, _ = compiled_config(path)
        assert state.trace_cap(c.tb) == cap
        assert state.alloc_work(c.tb).trace.shape[:2] == (cap, tables.MAXP)


@pytest.mark.parametrize(
    ("path", "overrides", "n"),
    [
        ("configs/corvids/two_players.yaml", (), 1500),
        ("configs/corvids/base.yaml", HANDICAP, 1500),
        ("configs/corvids/eight_players.yaml", (), 600),
    ],
)
def test_the_last_point_is_the_datasets_score_and_feathers(path, overrides, n):
    """CV-7: at the last point each seat's standing is the dataset's score (handicap included)
    and its second measure its feathers; ranking seats by (score, feathers) gives the dataset's
    rank exactly (ties shared). points = 1 + ceil(turns / players) (a game ending at a round's end
    has that round's point as its last), never more than trace_cap; the rows after it are 0.
    Point 0 (after set-up): no card and no feather held, so the place's handicap alone."""
    plugin, c, _cfg, ch = _play(path, overrides, n)
    p = c.players
    assert plugin.trace_measures == ("score", "feathers")
    assert ch.trace.shape == (n, state.trace_cap(c.tb), p, 2) and ch.trace.dtype == np.int16
    assert (ch.points == 1 + ceil_div(ch.turns, p)).all()
    assert ch.points.max() <= state.trace_cap(c.tb)
    g = np.arange(n)
    last = ch.trace[g, ch.points - 1].astype(np.int64)
    assert (last[:, :, 0] == ch.score).all()
    assert (last[:, :, 1] == ch.extra["feathers"]).all()
    score, feathers = last[:, :, 0], last[:, :, 1]
    better = (score[:, None, :] > score[:, :, None]) | (
        (score[:, None, :] == score[:, :, None]) & (feathers[:, None, :] > feathers[:, :, None])
    )
    assert (1 + better.sum(axis=2) == ch.rank).all()
    handicap = c.tb.params[P_HANDICAP : P_HANDICAP + p]
    assert (ch.trace[:, 0, :, 0] == handicap[ch.order]).all()
    assert (ch.trace[:, 0, :, 1] == 0).all()
    for k in range(ch.trace.shape[1]):
        after = ch.points <= k
        assert (ch.trace[after, k] == 0).all()
    # the games are not all alike: the trace shows a game going somewhere
    assert (ch.points >= 3).all() and len(set(ch.points.tolist())) >= 2


def standings(c, cfg, st) -> list[tuple[int, int]]:
    """Each seat's (score, feathers) now, by the Python mirror of CV-3 (schema.score_cards, the
    bird's bonus included) plus its place's handicap (CV-7)."""
    n = int(st.board[G_N])
    first = int(st.board[G_FIRST])
    out = []
    for p in range(n):
        cards = [
            (ITEM_NAMES[state.counts_as(st, k)], int(st.cc[k, CC_TAKEN_FACE]) == 0)
            for k in range(st.cc.shape[0])
            if st.cc[k, CC_OWNER] == p
        ]
        bird = c.bird_names[int(st.pl[p, PL_BIRD])]
        extra = int(c.tb.params[P_HANDICAP + (p - first) % n])
        out.append((score_cards(cfg.rules, cards, bird) + extra, int(st.pl[p, PL_FEATHERS])))
    return out


def in_play(st) -> int:
    """Cards in the pile + feathers in play (in the pile or held): ENGINE-4's measure."""
    n = int(st.board[G_N])
    return int(st.pile.cst[:, ph.CS_ON].sum() + st.pile.fst[:, ph.FS_ON].sum()) + int(
        st.pl[:n, PL_FEATHERS].sum()
    )


def stepwise(c, cfg, seed: int, game: int) -> tuple[np.ndarray, int]:
    """Game ``game`` one decision at a time from Python, its standings taken at the start, every
    round's end (G_TURN a multiple of the players: the next turn's first decision is pending and
    nothing has moved since the end of the turn) and the end; checks every turn lowers
    ``in_play`` (ENGINE-4: so turns <= cards + feathers, trace_cap's bound). Returns int[points,
    P, 2] and the turns."""
    tb = c.tb
    st = state.alloc_state(tb, 0)
    work = state.alloc_work(tb)
    engine.start(tb, st, np.int64(seed), np.int64(game), work)
    n = int(st.board[G_N])
    rows = [standings(c, cfg, st)]
    turn, phi = 0, in_play(st)
    while engine.advance(tb, st, work) >= 0:
        if int(st.board[G_TURN]) != turn:
            assert int(st.board[G_TURN]) == turn + 1  # a turn always has a decision (its peck)
            turn += 1
            assert in_play(st) < phi, "a turn took no card and knocked nothing off (ENGINE-4)"
            phi = in_play(st)
            if turn % n == 0:
                rows.append(standings(c, cfg, st))
        engine.apply(tb, st, work, policies.choose(tb, st, work))
    # the last turn ended inside the last advance, and the game with it (CV-7): one point, the
    # end's, whether or not it is a round's end
    assert int(st.board[G_TURN]) == turn + 1 and int(st.board[G_END]) == state.END_EMPTY
    assert in_play(st) < phi
    turn += 1
    rows.append(standings(c, cfg, st))
    return np.array(rows, np.int64), turn


@pytest.mark.parametrize(
    ("path", "overrides", "games"),
    [
        ("configs/corvids/base.yaml", HANDICAP, 3),
        ("configs/corvids/two_players.yaml", (), 2),
        ("configs/corvids/eight_players.yaml", (), 2),
        # clumsy seats on a small mat: pieces knocked off, turns that take no card
        ("configs/corvids/small_mat.yaml", ("seats=[clumsy, greedy, random, clumsy]",), 3),
        # twelve coins, worth 2, 5 face down, a set of two worth 7
        # (CV-3: a set takes the coins worth least), strong birds: every branch of the scoring
        ("configs/corvids/strong_birds.yaml", SCORING, 3),
    ],
)
def test_every_point_is_the_standing_at_its_rounds_end(path, overrides, games):
    """The batch's trace, point by point, is the standings a Python driver takes at the start,
    each round's end and the game's end, by schema.score_cards (CV-3) plus the handicap (CV-7);
    every turn lowers cards in the pile + feathers in play (ENGINE-4, so trace_cap holds)."""
    _plugin, c, cfg, ch = _play(path, overrides, games, seed=3)
    for g in range(games):
        rows, turns = stepwise(c, cfg, 3, g)
        assert turns == ch.turns[g] and len(rows) == ch.points[g]
        assert np.array_equal(ch.trace[g, : ch.points[g]], rows)


def test_a_hand_built_game_known_by_hand():
    """Two scripted seats (handicap [0, 1]: seat 1, second in the turn order, +1, CV-7) and a
    chain of eight cards #0..#7 left to right, each lying on its left neighbour, so that the right
    end is always the one card with no card on top. Each turn pecks the right-end card at its
    centre (flipped in place: steady pecks move nothing, CV-9) and picks it (CV-5):

    - t0 seat 0: #7, a face-up coin, pecked face down, taken with the feather lying on it
      (ENGINE-2): a face-down coin scores 3 (CV-3); t1 seat 1: #6 turned to a key (1);
      round 1 ends: (3, 1 feather) against (1 + 1, its 1 feather);
    - t2 seat 0: a button (4); t3 seat 1: a second key (2 + 1): (4, 1) against (3, 1);
    - t4 seat 0: a second button (5); t5 seat 1: a third key, a set of 5 (CV-3): 6 with its
      handicap, seat 1 leads: (5, 1) against (6, 1);
    - t6 seat 0: a third button, a set (5) + the coin (3) = 8; card #0, touching nothing now,
      is removed at the end of the turn (CV-5, PHYS-8), the pile is empty and the game ends
      (CV-7) mid-round: the fifth point, 1 + ceil(7 / 2), is the end: (8, 1) against (6, 1).
    """
    xs = [-140.0 + 40.0 * k for k in range(8)]  # 40 mm apart: neighbours overlap (63 mm wide)
    cards = {k: Card(xs[k], 0.0, 10.0 + k, KEY, BUTTON, face=1 - k % 2) for k in range(7)}
    cards[7] = Card(xs[7], 0.0, 17.0, COIN, BLANK, face=1)
    scripts = {
        0: [v for k in (7, 5, 3, 1) for v in (k, xs[k], 0.0, k)],
        1: [v for k in (6, 4, 2) for v in (k, xs[k], 0.0, k)],
    }
    s = build(
        steady(2, {"handicap": [0, 1]}),
        cards,
        {0: Feather(160.0, 0.0, 20.0)},  # on #7's right end only
        seat_feathers={1: 1},
        birds={0: "magpie", 1: "jackdaw"},  # favourites earring, paperclip: no bonus (CV-10)
        open_nests=(0, 1),  # no nest covers: the chain is the whole pile
        scripts=scripts,
        turn=0,
    )
    b = s.st.board
    b[G_ACTIVE], b[G_PHASE], b[G_KIND], b[G_ACTOR] = 0, state.PH_TURN, -1, -1
    b[G_STOP], b[G_END] = state.NO_STOP, 0
    engine.trace_point(s.tb, s.st, s.work)  # point 0, as engine.start keeps it
    while engine.advance(s.tb, s.st, s.work) >= 0:
        engine.apply(s.tb, s.st, s.work, policies.choose(s.tb, s.st, s.work))
    assert int(b[G_TURN]) == 7 and int(b[G_END]) == state.END_EMPTY
    cap = state.trace_cap(s.tb)
    trace = kit.one_trace(engine.record_trace, s.tb, s.st, s.work, cap, 2, 2)  # as the batch's
    assert len(trace) == 5
    expected = [
        [(0, 0), (1, 1)],
        [(3, 1), (2, 1)],
        [(4, 1), (3, 1)],
        [(5, 1), (6, 1)],
        [(8, 1), (6, 1)],
    ]
    assert trace.tolist() == [[list(x) for x in row] for row in expected]
    s.check()


def test_the_logged_replay_has_the_batchs_trace():
    """narrate.play_logged's Logged.trace is the batch's row of the same game; its points are
    1 + ceil(the turns the log tells (E_TURN) / players)."""
    _plugin, c, _, ch = _play("configs/corvids/random_vs_greedy.yaml", (), 4, seed=5)
    for g in range(4):
        logged = narrate.play_logged(c, 5, g)
        assert logged.trace.dtype == np.int16
        assert np.array_equal(logged.trace, ch.trace[g, : ch.points[g]])
        turns = int((logged.log[:, 0] == state.E_TURN).sum())
        assert len(logged.trace) == 1 + ceil_div(turns, c.players)
        assert np.array_equal(logged.trace[-1, :, 0], logged.score)


def test_a_failed_set_up_is_one_point_of_zeros():
    """ENGINE-8: a set-up that cannot cover the nests is not played: one point (the start is the
    end), every seat at 0 points and 0 feathers, the handicap not given."""
    plugin, _c, _, ch = _play(
        "configs/corvids/two_players.yaml",
        (
            "rules.handicap=[2, 3]",
            "rules.physics.setup_retries=1",
            "rules.cards.double_sided.count=1",
            "rules.cards.single_sided={string: 0, ticket: 0, coin: 0}",
        ),
        8,
    )
    assert (ch.end_reason == plugin.end_reasons.index("setup_failed")).all()
    assert (ch.points == 1).all() and not ch.trace.any()


def test_the_search_players_batch_fills_the_trace():
    """search_vs_greedy.yaml at 4 iterations a decision: the search batch's trace ends at the
    dataset's scores, with 1 + ceil(turns / 4) points."""
    plugin, st_tables, _ = compiled_config(SEARCH, ("policies.mcts.iterations=4",))
    ch = plugin.play(st_tables, 5, 0, 2)
    assert (ch.points == 1 + ceil_div(ch.turns, 4)).all()
    last = ch.trace[np.arange(2), ch.points - 1]
    assert (last[:, :, 0] == ch.score).all() and (last[:, :, 1] == ch.extra["feathers"]).all()
    assert (ch.trace[:, 0] == 0).all()
