"""The games as PettingZoo AEC environments (balance/envs.py), held to PettingZoo's own tests.

``api_test`` and ``seed_test`` are PettingZoo's (pettingzoo.test); the rest checks what they do
not: a learner seat among the config's bots, the episode as the dataset's game, the rewards as
the ``win`` column, the render, and bad input.
"""

from __future__ import annotations

import numpy as np
import pytest

pettingzoo_test = pytest.importorskip("pettingzoo.test")

import balance  # noqa: E402
from balance import games  # noqa: E402
from balance.config import load_config  # noqa: E402
from balance.envs import BalanceEnv  # noqa: E402
from tests.kit.decisions import ROOT  # noqa: E402

CONFIGS = {
    "five_ravens": "configs/five_ravens/two_players.yaml",
    "raven_order": "configs/raven_order/base.yaml",
    "raven_manor": "configs/raven_manor/players_3.yaml",
    "corvids": "configs/corvids/two_players.yaml",
}


def test_every_registered_game_is_an_environment():
    assert sorted(CONFIGS) == sorted(games.names())


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_pettingzoos_api_test(game):
    env = balance.env(ROOT / CONFIGS[game], seed=1)
    assert isinstance(env, BalanceEnv)
    pettingzoo_test.api_test(env, num_cycles=300)


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_pettingzoos_seed_test(game):
    pettingzoo_test.seed_test(lambda: balance.env(ROOT / CONFIGS[game]), num_cycles=300)


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_a_learner_that_plays_like_the_bots_gets_the_datasets_game(game):
    """One learner seat among the config's policies; the learner plays exactly what its seat's
    policy would: every episode is the dataset's game of the same seed and index, and the
    reward is the seat's ``win`` value."""
    config = load_config(ROOT / CONFIGS[game])
    plugin = games.get(config.game)
    tables = plugin.compile(config)
    seat = len(config.seats) - 1
    env = balance.env(config, seed=99, learners=[seat])
    assert env.possible_agents == [f"seat_{seat}"]
    from balance.results.rows import team_codes, win_values

    for episode in range(3):
        env.reset(seed=99 if episode == 0 else None)
        total = 0.0
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            total += reward
            if term or trunc:
                env.step(None)
                continue
            assert agent == f"seat_{seat}" and info["decision"]
            pos = env.unwrapped.position
            code = pos.copy().choose()
            legal = list(pos.options())
            assert info["action_mask"].sum() == len(legal)
            env.step(legal.index(code))
        chunk = plugin.play(tables, 99, episode, 1)
        teams = config.teams or [str(s) for s in range(len(config.seats))]
        team, _ = team_codes(chunk, teams, plugin.team_names(tables))
        win = win_values(chunk.rank, team)[0][0]
        assert total == pytest.approx(win[seat])


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_render_narrates_the_game_so_far(game):
    env = balance.env(ROOT / CONFIGS[game], seed=3, render_mode="ansi")
    env.reset()
    for _ in range(12):
        _, _, term, trunc, info = env.last()
        if term or trunc:
            break
        env.step(int(np.flatnonzero(info["action_mask"])[0]))
    text = env.render()
    assert isinstance(text, str) and len(text.splitlines()) >= 3
    if not env.terminations[env.agent_selection]:
        assert env.option_words(0).strip()


def test_bad_input_is_one_clear_error():
    env = balance.env(ROOT / CONFIGS["raven_order"], seed=1)
    with pytest.raises(RuntimeError, match="reset"):
        env.observe("seat_0")
    env.reset()
    *_, info = env.last()
    with pytest.raises(ValueError, match="not legal"):
        env.step(int(info["action_mask"].sum()) + 1)
    with pytest.raises(ValueError, match="learners"):
        balance.env(ROOT / CONFIGS["raven_order"], learners=[2])
    with pytest.raises(ValueError, match="learners"):
        balance.env(ROOT / CONFIGS["raven_order"], learners=[])
    with pytest.raises(ValueError, match="render_mode"):
        balance.env(ROOT / CONFIGS["raven_order"], render_mode="rgb_array")


def test_the_observation_is_the_seats_own():
    """Each agent's observation is ``knowledge.observe`` of its seat; only the acting agent has
    legal actions, and only its info carries the mask."""
    env = balance.env(ROOT / CONFIGS["five_ravens"], seed=4)
    env.reset()
    pos = env.unwrapped.position
    for agent in env.agents:
        seat = int(agent.split("_")[1])
        np.testing.assert_array_equal(env.observe(agent), pos.observe(seat))
        assert env.action_mask(agent).any() == (seat == pos.actor)
        assert ("action_mask" in env.infos[agent]) == (seat == pos.actor)


def test_a_search_seat_left_to_the_config_searches_as_in_the_dataset():
    """A learner against a search seat (issue 29): the search seat plays its search with its
    keyed stream, so an episode in which the learner plays its rollout policy's moves is the
    dataset's game of that config."""
    from balance.config.overrides import parse_overrides

    path = ROOT / "configs" / "raven_order" / "search_vs_economy.yaml"
    config = load_config(path, parse_overrides(["policies.mcts.iterations=3"]))
    plugin = games.get(config.game)
    tables = plugin.compile(config)
    env = balance.env(config, seed=7, learners=[1])
    for episode in range(2):
        env.reset(seed=7 if episode == 0 else None)
        total = 0.0
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            total += reward
            if term or trunc:
                env.step(None)
                continue
            pos = env.unwrapped.position
            code = pos.copy().choose()  # seat 1's economy policy
            env.step(list(pos.options()).index(code))
        chunk = plugin.play(tables, 7, episode, 1)
        assert total == pytest.approx(
            1.0
            if chunk.rank[0, 1] == 1 and chunk.rank[0, 0] != 1
            else (0.5 if chunk.rank[0, 1] == 1 else 0.0)
        )
        assert env.unwrapped.position.row().rank.tolist() == chunk.rank.tolist()
