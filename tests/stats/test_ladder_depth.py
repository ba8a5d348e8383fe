"""Skill depth (balance/stats/ladder.py): planted nulls and planted skill, simultaneous."""

from __future__ import annotations

import numpy as np
import pytest

from balance.stats import ladder as L


def _wins(rng, n: int, players: int, p_first: float | None = None, seat: int | None = None):
    """float[n, players]: one winner a game, uniform, or seat ``seat`` with chance p_first
    (and the others alike)."""
    w = rng.integers(players, size=n)
    if seat is not None:
        other = rng.integers(players - 1, size=n)
        other = other + (other >= seat)  # any seat but ``seat``
        w = np.where(rng.random(n) < p_first, seat, other)
    out = np.zeros((n, players))
    out[np.arange(n), w] = 1.0
    return out


def _rotations(rng, n, players, p):
    """Column r: seat r's win in the point that put the stronger rung in seat r."""
    return np.stack([_wins(rng, n, players, p, r)[:, r] for r in range(players)], axis=1)


def test_a_ladder_whose_rungs_are_alike_is_called_a_ladder_in_at_most_5_percent_of_runs():
    """Planted null: every rung plays alike (uniform winners). Over 300 runs of a 4-rung
    ladder, some step's simultaneous interval excludes 0 in at most alpha of them (plus the
    binomial slack of 300 runs), and no run calls it a ladder beyond that."""
    rng = np.random.default_rng(7)
    players, n, runs = 4, 400, 300
    wrong = ladder = 0
    for _ in range(runs):
        mirrors = [_wins(rng, n, players) for _ in range(4)]
        rot = [_rotations(rng, n, players, 0.25) for _ in range(3)]
        d = L.depth(["a", "b", "c", "d"], mirrors, rot)
        wrong += any(s.lo > 0 or s.hi < 0 for s in d.steps)
        ladder += d.ladder
        assert d.level == pytest.approx(1 - 0.05 / 3)
    assert wrong / runs <= 0.082, wrong
    assert ladder == 0


def test_planted_skill_is_a_ladder_and_its_edge_is_measured():
    """Each step wins 40 % in a 4-seat game (fair 25 %): every step's edge covers +15 points."""
    rng = np.random.default_rng(11)
    players, n = 4, 3000
    mirrors = [_wins(rng, n, players) for _ in range(3)]
    rot = [_rotations(rng, n, players, 0.40) for _ in range(2)]
    d = L.depth(["random", "greedy", "search_100"], mirrors, rot)
    assert d.ladder
    for s in d.steps:
        assert s.yardstick == pytest.approx(0.25)  # one winner a game: exactly fair
        assert s.lo < 0.15 < s.hi and s.share == pytest.approx(0.40, abs=0.02)


def test_a_step_that_stops_winning_breaks_the_ladder():
    rng = np.random.default_rng(3)
    players, n = 2, 4000
    mirrors = [_wins(rng, n, players) for _ in range(3)]
    rot = [_rotations(rng, n, players, 0.7), _rotations(rng, n, players, 0.5)]
    d = L.depth(["random", "greedy", "search_100"], mirrors, rot)
    assert d.steps[0].lo > 0 and d.steps[1].lo < 0 < d.steps[1].hi
    assert not d.ladder


def test_in_a_game_of_roles_the_yardstick_is_the_lower_rung_in_the_same_seats():
    """Raven Manor: a seat's chance depends on its role, and a team win counts for every seat of
    the team (the wins of a game add up to more than 1). The yardstick is the mirror's share, not
    1/players; a stronger seat that wins what the weaker one wins there has no edge."""
    rng = np.random.default_rng(5)
    n, players = 2000, 5
    evil = rng.integers(players, size=n)  # the Raven's seat of each game
    raven_wins = rng.random(n) < 0.8
    mirror = np.where(np.arange(players)[None, :] == evil[:, None], raven_wins[:, None],
                      ~raven_wins[:, None]).astype(float)  # fmt: skip
    same = mirror.copy()  # the stronger rung wins exactly what the weaker won, game by game
    d = L.depth(["basic", "search_10"], [mirror], [same])
    s = d.steps[0]
    assert s.yardstick == pytest.approx(mirror.mean()) and abs(s.yardstick - 0.2) > 0.05
    assert s.edge == 0 and s.lo == 0 == s.hi and not d.ladder


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="two \\[games, seats\\] arrays"):
        L.step_edge(np.zeros((3, 2)), np.zeros((3, 4)))
    with pytest.raises(ValueError, match="k - 1 steps"):
        L.depth(["a", "b"], [np.zeros((3, 2))], [])
