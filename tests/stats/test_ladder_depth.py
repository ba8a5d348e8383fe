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


# ------------------------------------------------------------------ findings across rungs

TOL = {"order": 0.02, "seat": 0.01, "team": 0.02, "role": 0.02}


def _mirror(rng, n: int, first: float, players: int = 4):
    """Per-game finding values of a mirror whose first player wins ``first`` of the games
    (the others alike); the turn order rotates with the game."""
    seat_first = np.arange(n) % players
    order = (np.arange(players)[None, :] - seat_first[:, None]) % players
    place = np.where(rng.random(n) < first, 0, 1 + rng.integers(players - 1, size=n))
    win = (order == place[:, None]).astype(float)
    team = np.tile(np.arange(players).astype(str), (n, 1))
    return L.finding_values(win, order, team, None)


def _calls(findings, axis="order", group="1"):
    return next(f for f in findings if (f.axis, f.group) == (axis, group))


def test_a_game_where_skill_changes_nothing_is_called_holds_or_not_determined():
    """Planted null: no rung has any seat or place effect. Over 200 ladders of 3 rungs, at most
    5 % (plus slack) call any finding grows, shrinks or flips."""
    rng = np.random.default_rng(21)
    wrong = 0
    for _ in range(200):
        f = L.classify([_mirror(rng, 2000, 0.25) for _ in range(3)], TOL)
        wrong += any(x.call in ("grows", "shrinks", "flips") for x in f)
    assert wrong / 200 <= 0.085, wrong


def test_a_null_place_is_signed_at_every_rung_in_at_most_5_percent_of_runs():
    """Planted null for the page's "positive (negative) at every rung" (``Finding.sign``, said
    of a finding called *not determined*): no place has an edge at any rung. Over 200 ladders
    of 3 rungs, some finding is signed at every rung in at most 5 % (plus slack) of them: its
    intervals are simultaneous over the axis' groups and the rungs, and a sign needs every rung's
    interval on one side of 0."""
    rng = np.random.default_rng(23)
    signed = 0
    for _ in range(200):
        f = L.classify([_mirror(rng, 2000, 0.25) for _ in range(3)], TOL)
        signed += any(x.sign for x in f)
    assert signed / 200 <= 0.085, signed


def test_a_place_ahead_at_every_rung_is_signed_whatever_its_call():
    """Corvids-like: the first place ahead at every rung by a few points, with 2,000 games a
    rung too few to bound its trend within the tolerance: not determined, yet signed +1; the
    other places, behind on average, are not all below 0 and stay unsigned."""
    rng = np.random.default_rng(24)
    f = L.classify([_mirror(rng, 2000, p) for p in (0.31, 0.33, 0.32)], TOL)
    first = _calls(f)
    assert first.call == "not determined" and first.sign == 1
    assert L.one_sign([-0.01, 0.02], [0.03, 0.05]) == 0
    assert L.one_sign([-0.05, -0.04], [-0.01, -0.02]) == -1


def test_with_games_enough_a_null_place_is_shown_to_hold():
    """20,000 games a rung put the first place within its ±2 points at every rung, with a
    trend too small to leave them: holds (2,000 games cannot: not determined)."""
    rng = np.random.default_rng(22)
    calls = [_calls(L.classify([_mirror(rng, 20000, 0.25) for _ in range(3)], TOL)).call
             for _ in range(20)]  # fmt: skip
    assert calls.count("holds") >= 18, calls
    few = _calls(L.classify([_mirror(rng, 2000, 0.25) for _ in range(3)], TOL))
    assert few.call == "not determined"


def test_a_first_player_edge_that_turns_into_a_handicap_flips():
    rng = np.random.default_rng(1)
    f = L.classify([_mirror(rng, 4000, p) for p in (0.40, 0.25, 0.10)], TOL)
    first = _calls(f)
    assert first.call == "flips"
    assert first.lo[0] > 0 and first.hi[2] < 0


@pytest.mark.parametrize(("shares", "call"), [((0.28, 0.33, 0.38), "grows"),
                                              ((0.38, 0.33, 0.28), "shrinks")])  # fmt: skip
def test_an_edge_that_moves_with_skill_grows_or_shrinks(shares, call):
    rng = np.random.default_rng(2)
    first = _calls(L.classify([_mirror(rng, 6000, p) for p in shares], TOL))
    assert first.call == call and first.q_value < 0.05


def test_an_edge_the_same_at_every_rung_holds():
    rng = np.random.default_rng(4)
    first = _calls(L.classify([_mirror(rng, 20000, 0.35) for _ in range(3)], TOL))
    assert first.call == "holds"
    assert all(lo > 0 for lo in first.lo)


def test_a_dealt_side_without_a_target_is_its_share_rising_or_steady():
    """Raven Manor-like: the evil side (one seat, dealt) wins more as skill grows."""
    rng = np.random.default_rng(8)
    n, players = 4000, 5

    def rung(p_evil):
        evil = rng.integers(players, size=n)
        evil_wins = rng.random(n) < p_evil
        is_evil = np.arange(players)[None, :] == evil[:, None]
        win = np.where(is_evil, evil_wins[:, None], ~evil_wins[:, None]).astype(float)
        team = np.where(is_evil, "evil", "family")
        order = np.tile(np.arange(players), (n, 1))
        return L.finding_values(win, order, team, None)

    f = L.classify([rung(p) for p in (0.3, 0.5, 0.7)], TOL)
    evil = _calls(f, "team", "evil")
    assert not evil.reference and evil.call == "grows"
    assert evil.value[0] == pytest.approx(0.3, abs=0.03)


def test_the_deals_hold_is_all_of_it_in_a_game_of_pure_luck_and_none_in_one_of_skill():
    rng = np.random.default_rng(9)
    n, players = 3000, 4
    dealt = _wins(rng, n, players)  # the deal picks the winner whoever plays
    rot = _rotations(rng, n, players, 0.25)
    pure = L.luck("random", "search_400", dealt, dealt.copy(), rot)
    assert pure.same == 1.0 and pure.chance == pytest.approx(0.25, abs=0.02)
    assert pure.lo > 0.7
    skill = L.luck("random", "search_400", _wins(rng, n, players), _wins(rng, n, players), rot)
    assert skill.lo < 0 < skill.hi and skill.same == pytest.approx(0.25, abs=0.03)
