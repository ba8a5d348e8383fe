"""Policy sanity: the greedy policy clearly beats random play, and the random policy is uniform
over the legal turns."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from balance.config import load_config
from balance.games.five_ravens import engine
from balance.games.five_ravens import policies as pol
from balance.games.five_ravens.tables import compile_tables

from .helpers import CONFIGS, blank, moves_buffer, raven, relic_id, set_centre, set_seat


def win_share(rank: np.ndarray) -> np.ndarray:
    """FR-14: each of the k seats ranked first gets 1/k of the game."""
    win = (rank == 1).astype(float)
    return win / win.sum(axis=1, keepdims=True)


@pytest.mark.slow
def test_greedy_seats_win_far_more_often_than_random_seats():
    cfg = load_config(CONFIGS / "random_vs_greedy.yaml")
    chunk = engine.play(compile_tables(cfg), cfg.seed, 0, 2000)
    share = win_share(chunk.rank).mean(axis=0)
    assert share.sum() == pytest.approx(1.0)
    greedy = [s for s, name in enumerate(cfg.seats) if name == "greedy"]
    random = [s for s, name in enumerate(cfg.seats) if name == "random"]
    assert greedy and random
    assert share[greedy].mean() > 0.35, share
    assert share[random].mean() < 0.15, share
    assert share[greedy].min() > share[random].max()
    assert chunk.score[:, greedy].mean() > chunk.score[:, random].mean() + 2


def test_random_policy_is_uniform_over_the_legal_turns(random4):
    c = random4
    st = blank(c, seed=3)
    set_seat(c, st, 0, hand=[raven(3), raven(6), raven(9), relic_id(c, "gem")], captured=[raven(3)])
    set_centre(st, [(relic_id(c, "chest_1"), 1)])
    moves = moves_buffer(c)
    n = engine.legal_moves(c.k, st, 0, moves)
    assert n == 7  # three actions, three thieves, captured 3
    picks = Counter(pol.choose_turn(c.k, st, 0, moves, n) for _ in range(2100))
    assert sorted(picks) == list(range(n))
    assert all(220 < k < 380 for k in picks.values()), picks
