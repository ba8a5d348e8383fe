"""The decision-point interface, held the same way in every game (docs/decisions.md).

One engine, not two: a game played one decision at a time through ``Position`` with the config's
policies is the batch kernel's game, row for row; the policies only ever choose legal options; a
copy resumes the same game. Hidden information re-dealt honestly (``knowledge.determinize``):
what the seat knows (its observation and, when it acts, its legal options) is the same in the
true world and in every re-deal, on at least 10,000 decision states a game; the re-deal reads no
stream of the game (two states that differ only in their streams re-deal alike) and re-seeds
every one; and it does re-deal (a planted check that the invariance is not a no-op). Each game's
own tests check that hidden cards are spread as chance spreads them (goodness of fit) and the
rulings' scenarios.
"""

from __future__ import annotations

import numpy as np
import pytest

from balance import games
from balance.games.position import Position
from tests.kit.decisions import compiled, positions

# A config of every game, and one with random seats where the game ships one: the interface is
# held with every kind of policy the shipped configs use.
CONFIGS = {
    "five_ravens": ("configs/five_ravens/base.yaml", "configs/five_ravens/random_vs_greedy.yaml"),
    "raven_order": ("configs/raven_order/base.yaml", "configs/raven_order/economy_vs_random.yaml"),
    "raven_manor": ("configs/raven_manor/base.yaml", "configs/raven_manor/random_vs_basic.yaml"),
    "corvids": ("configs/corvids/base.yaml", "configs/corvids/random_vs_greedy.yaml"),
}
ALL_CONFIGS = [(g, c) for g, cs in CONFIGS.items() for c in cs]
BASE = [(g, cs[0]) for g, cs in CONFIGS.items()]


def test_every_registered_game_is_here():
    assert sorted(CONFIGS) == sorted(games.names())


REDEALS = 10_000  # decision states a game whose re-deal keeps what the seat knows (issue 28)


def _equal_chunks(a, b) -> None:
    for name in ("score", "rank", "turns", "end_reason", "order", "telemetry", "saturated"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    for name in ("team", "role"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None), name
        if x is not None:
            np.testing.assert_array_equal(x, y, err_msg=name)
    assert a.extra.keys() == b.extra.keys()
    for k in a.extra:
        np.testing.assert_array_equal(a.extra[k], b.extra[k], err_msg=k)


def _state_arrays(st) -> list[np.ndarray]:
    """Every array of a state but its random streams (Five Ravens keeps a record)."""
    out = []
    for name, value in zip(st._fields, st):
        if name == "rng":
            continue
        names = getattr(getattr(value, "dtype", None), "names", None)
        if names:  # a structured record (Five Ravens): its fields
            out += [np.asarray(value[f]) for f in names if f != "rng"]
        elif isinstance(value, np.ndarray):
            out.append(value)
    return out


def _same_state(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(_state_arrays(a), _state_arrays(b)))


@pytest.mark.parametrize("game,config", ALL_CONFIGS)
def test_a_game_played_decision_by_decision_is_the_batch_kernels_game(game, config):
    plugin, tables, cfg = compiled(config)
    seed = 20261205
    batch = plugin.play(tables, seed, 0, 12)
    for g in range(12):
        pos = Position(plugin, tables, seed, g, teams=cfg.teams)
        pos.play_out()
        one = plugin.play(tables, seed, g, 1)
        _equal_chunks(pos.row(), one)
        np.testing.assert_array_equal(pos.row().score[0], batch.score[g])


@pytest.mark.parametrize("game,config", ALL_CONFIGS)
def test_the_policies_choose_only_legal_options(game, config):
    plugin, tables, _ = compiled(config)
    kinds = set()
    for pos in positions(plugin, tables, seed=7, n=1500, every=3):
        legal = pos.options()
        assert 1 <= len(legal) <= plugin.module("state").MAX_OPTIONS
        assert len(set(legal.tolist())) == len(legal), f"{pos.kind}: an option is listed twice"
        code = pos.copy().choose()
        assert code in legal, f"{pos.kind}: the policy chose {code}, legal {legal}"
        kinds.add(pos.kind)
    assert len(kinds) >= 2


@pytest.mark.parametrize("game,config", BASE)
def test_a_copy_resumes_the_same_game(game, config):
    plugin, tables, cfg = compiled(config)
    rng = np.random.default_rng(3)
    for g in range(6):
        pos = Position(plugin, tables, 11, g, teams=cfg.teams)
        stop = int(rng.integers(0, 40))
        for _ in range(stop):
            if pos.done:
                break
            pos.play_policy()
        twin = pos.copy()
        assert _same_state(twin.state, pos.state)
        pos.play_out()
        twin.play_out()
        _equal_chunks(pos.row(), twin.row())
        _equal_chunks(pos.row(), plugin.play(tables, 11, g, 1))


@pytest.mark.parametrize("game,config", BASE)
def test_an_illegal_option_is_refused_and_changes_nothing(game, config):
    plugin, tables, _ = compiled(config)
    pos = Position(plugin, tables, 5, 0)
    before = pos.copy()
    bad = int(pos.options().max()) + 1_000_003
    with pytest.raises(ValueError, match="not a legal option"):
        pos.apply(bad)
    assert _same_state(pos.state, before.state)
    with pytest.raises(ValueError, match="seat must be"):
        pos.observe(99)
    pos.play_out()
    with pytest.raises(ValueError, match="over"):
        pos.apply(0)
    assert pos.options().size == 0 and pos.actor == -1 and pos.kind == ""


def _redeal_checks(plugin, tables, n: int, seed: int) -> tuple[int, int, int]:
    """Check ``n`` states: the re-deal keeps the seat's observation (and legal options when it
    acts); every 40th re-dealt state plays to the end. Returns how many re-deals changed the
    state, how many changed another seat's observation (the planted leaks the check would
    catch), and how many states were checked."""
    rng = np.random.default_rng(seed)
    changed = other_moved = checked = 0
    for i, pos in enumerate(positions(plugin, tables, seed=seed, n=n, every=5)):
        players = pos.players
        seat = pos.actor if i % 3 else int(rng.integers(players))
        det = pos.determinize(seat, seed=1_000_000 + i)
        np.testing.assert_array_equal(
            det.observe(seat), pos.observe(seat), err_msg=f"{pos.kind}: seat {seat}'s view moved"
        )
        if seat == pos.actor:
            np.testing.assert_array_equal(det.options(), pos.options(), err_msg=pos.kind)
            assert det.actor == pos.actor and det.kind == pos.kind
        changed += not _same_state(det.state, pos.state)
        other = (seat + 1 + int(rng.integers(players - 1))) % players
        other_moved += not np.array_equal(det.observe(other), pos.observe(other))
        if i % 40 == 0:
            det.play_out()
            ranks = det.row().rank[0]
            assert ranks.min() == 1 and ranks.max() <= players
        checked += 1
    return changed, other_moved, checked


@pytest.mark.parametrize("game,config", BASE)
def test_a_redeal_keeps_what_the_seat_knows_quick(game, config):
    plugin, tables, _ = compiled(config)
    changed, other_moved, checked = _redeal_checks(plugin, tables, 400, seed=17)
    assert checked == 400
    # planted: the invariance is not a no-op; a re-deal moves hidden things, and another seat's
    # view, which the check would flag if it were the seat's own
    assert changed > checked // 2
    assert other_moved > checked // 10


@pytest.mark.slow
@pytest.mark.parametrize("game,config", BASE)
def test_a_redeal_keeps_what_the_seat_knows_on_ten_thousand_states(game, config):
    plugin, tables, _ = compiled(config)
    changed, other_moved, checked = _redeal_checks(plugin, tables, REDEALS, seed=29)
    assert checked == REDEALS
    assert changed > checked // 2 and other_moved > checked // 10


@pytest.mark.parametrize("game,config", BASE)
def test_a_redeal_reads_no_stream_of_the_game_and_reseeds_them_all(game, config):
    plugin, tables, _ = compiled(config)
    for pos in positions(plugin, tables, seed=23, n=30, every=11):
        seat = pos.actor
        twin = pos.copy()
        twin.state.rng[:] = twin.state.rng[::-1] + np.uint64(12345)  # other streams, same game
        a = pos.determinize(seat, seed=77)
        b = twin.determinize(seat, seed=77)
        assert _same_state(a.state, b.state), "the re-deal read the game's streams"
        np.testing.assert_array_equal(a.state.rng, b.state.rng)
        assert not np.any(a.state.rng == pos.state.rng), "a stream was not re-seeded"
        c = pos.determinize(seat, seed=77)
        assert _same_state(a.state, c.state)  # the searcher's seed alone decides the re-deal
