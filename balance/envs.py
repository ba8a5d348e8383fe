"""Every game as a PettingZoo AEC environment, over the decision-point interface (docs/envs.md).

``balance.env(config, seed=...)`` plays the config's game decision by decision
(:class:`balance.games.position.Position`): the agents are seats (``seat_0``, ...); at each
decision the acting seat chooses among the legal options, so the action space is
``Discrete(MAX_OPTIONS)`` with an action mask whose first ``n`` entries (the ``n`` legal options,
in the game's canonical order) are 1, given as the acting agent's ``info["action_mask"]``
(PettingZoo's convention for a flat observation); each agent observes only what its seat may
know (the game's ``knowledge.observe``: a flat int32 vector, a ``Box``, documented in
docs/rules/<game>.md); the
rewards are the dataset's ``win`` column, given when the game ends (1 for a win, 1/k for a win
shared among k teams, 0 otherwise; every step before is 0). ``render()`` narrates the events so
far. Seats not in ``learners`` are played by the config's policies, exactly as the batch kernel
plays them, so a learner can sit at one seat against the shipped bots.

Episodes: ``reset(seed=s)`` starts game 0 of run ``s``; ``reset()`` without a seed starts the
run's next game, so with every seat left to the config's policies episode ``k`` after
``reset(seed=s)`` is game ``k`` of ``balance simulate --seed s``. ``options={"game": k}`` starts
game ``k``; other keys of ``options`` are ignored (PettingZoo's reset contract passes its own).

PettingZoo and gymnasium are an optional extra: ``pip install 'balance[env]'``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("balance's environments need PettingZoo: pip install 'balance[env]'") from exc

from balance import games
from balance.games.position import Position

INT32 = np.iinfo(np.int32)


def env(
    config: Any,
    seed: int | None = None,
    *,
    learners: Sequence[int] | None = None,
    render_mode: str | None = None,
    overrides: Sequence[str] = (),
) -> BalanceEnv:
    """The PettingZoo AEC environment of ``config`` (a config file's path or a loaded
    ``RunConfig``; ``overrides`` are ``--set`` style ``key=value`` strings for a path).

    ``seed``: the run seed of the first episode (default: the config's ``seed``).
    ``learners``: the seats that are agents (default: every seat); the others are played by the
    config's policies. ``render_mode``: "ansi" (``render()`` returns the narration) or "human"
    (prints it)."""
    if isinstance(config, (str, os.PathLike)):
        from balance.config import load_config

        config = load_config(config, list(overrides))
    elif overrides:
        raise ValueError("overrides apply to a config file's path, not a loaded config")
    return BalanceEnv(config, seed=seed, learners=learners, render_mode=render_mode)


class BalanceEnv(AECEnv):
    """One game of ``balance`` as an AEC environment (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human"], "is_parallelizable": False}
    LOG_CAP = 1 << 14  # event-log rows kept for render(); a longer game narrates its start only

    def __init__(
        self,
        config: Any,
        *,
        seed: int | None = None,
        learners: Sequence[int] | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {', '.join(self.metadata['render_modes'])} "
                f"or None, got {render_mode!r}"
            )
        self.config = config
        self.game = games.get(config.game)
        from balance.search import SearchTables

        compiled = self.game.compile(config)
        # a search seat left to the config plays its search (with its keyed stream, as in the
        # dataset); the position itself runs on the tables its rollouts use
        self.search = compiled if isinstance(compiled, SearchTables) else None
        self.compiled = compiled.inner if self.search is not None else compiled
        self._streams: dict[int, np.ndarray] = {}
        self.metadata = dict(self.metadata, name=f"balance_{config.game}_v0")
        self.render_mode = render_mode
        players = len(config.seats)
        seats = list(range(players)) if learners is None else sorted({int(s) for s in learners})
        if not seats:
            raise ValueError("learners must name at least one seat")
        if seats[0] < 0 or seats[-1] >= players:
            raise ValueError(f"learners must be seats 0..{players - 1}, got {list(learners)}")
        self.seats = seats
        self.possible_agents = [f"seat_{s}" for s in seats]
        self._agent_seat = {a: s for a, s in zip(self.possible_agents, seats)}
        self.teams = list(config.teams) if config.teams else None
        self.run_seed = int(config.seed if seed is None else seed)
        self.next_game = 0
        state = self.game.module("state")
        self.max_options = int(state.MAX_OPTIONS)
        width = int(self.game.module("knowledge").obs_size(self.compiled.tb))
        obs_space = spaces.Box(INT32.min, INT32.max, (width,), np.int32)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.max_options) for a in self.possible_agents}
        self.position: Position | None = None

    # ------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------ the AEC protocol

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self.run_seed = int(seed)
            self.next_game = 0
        if options and "game" in options:
            self.next_game = int(options["game"])
        self.position = Position(
            self.game,
            self.compiled,
            self.run_seed,
            self.next_game,
            log_cap=self.LOG_CAP if self.render_mode else 0,
            teams=self.teams,
        )
        if self.search is not None:
            from balance.search import search_streams

            self._streams = search_streams(
                self.search, self.run_seed, self.next_game, skip=self.seats
            )
        self.next_game += 1
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._play_bots()
        self._after_move()

    def observe(self, agent: str) -> np.ndarray:
        return self._pos().observe(self._agent_seat[agent])

    def action_mask(self, agent: str) -> np.ndarray:
        """int8[MAX_OPTIONS]: 1 for each legal action of ``agent`` (all 0 unless it acts)."""
        pos = self._pos()
        mask = np.zeros(self.max_options, np.int8)
        if not pos.done and pos.actor == self._agent_seat[agent]:
            mask[: len(pos.options())] = 1
        return mask

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        pos = self._pos()
        legal = pos.options()
        i = int(action)
        if not 0 <= i < len(legal):
            raise ValueError(
                f"action {i} is not legal for {agent}'s {pos.kind} decision: "
                f"the mask allows 0..{len(legal) - 1}"
            )
        self._cumulative_rewards[agent] = 0.0
        pos.apply(int(legal[i]))
        self._play_bots()
        self._after_move()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() without a render_mode: pass render_mode='ansi'")
            return None
        text = "\n".join(self._pos().events())
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.position = None

    # ------------------------------------------------------------ helpers

    def option_words(self, action: int) -> str:
        """Action ``action`` (an index of the mask) of the pending decision in words."""
        pos = self._pos()
        return pos.words(int(pos.options()[int(action)]))

    def _pos(self) -> Position:
        if self.position is None:
            raise RuntimeError("call reset() before using the environment")
        return self.position

    def _play_bots(self) -> None:
        """Play the config's policies for every seat that is not an agent."""
        pos = self._pos()
        from balance.search import play_move

        while not pos.done and pos.actor not in self._agent_seat.values():
            play_move(pos, self.search, self._streams)

    def _after_move(self) -> None:
        """Select the agent to act, or end the episode with the dataset's ``win`` values."""
        pos = self._pos()
        self._clear_rewards()
        if pos.done:
            wins = pos.wins()
            for a in self.agents:
                self.rewards[a] = float(wins[self._agent_seat[a]])
                self.terminations[a] = True
                self.infos[a] = {}
            self._accumulate_rewards()
            self.agent_selection = self.agents[0]
            return
        seat = pos.actor
        agent = f"seat_{seat}"
        for a in self.agents:
            self.infos[a] = {}
        self.infos[agent] = {"decision": pos.kind, "action_mask": self.action_mask(agent)}
        self.agent_selection = agent
