"""A two-player game whose metrics are known functions of its rules, for ``balance tune``.

Every number is a hash of (seed, game index), so game ``i`` of seed ``s`` draws the same numbers
under every config (common random numbers, like a real plugin), and:

- the game is a draw (a shared first place) with probability ``rules.draw``, whatever the rest;
- otherwise the first player (a fair coin picks the seat) wins with probability ``rules.edge``:
  ``win_share[order=0,decided]`` is exactly ``edge``, and ``win_share[order=0]`` is
  ``draw / 2 + (1 - draw) * edge``;
- each seat scores ``rules.points`` plus a noise of -1, 0 or +1 (each a third), so ``mean_score``
  is exactly ``points``; the winner gets ``rules.bonus`` more.

Register it with the ``fake_tune_game`` fixture of tests/test_tune.py.
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from balance.games.base import Chunk, Game


class Rules(BaseModel):
    model_config = ConfigDict(extra="forbid")
    edge: float = Field(0.5, ge=0, le=1, description="the first player's chance in a decided game")
    draw: float = Field(0.0, ge=0, le=0.9, description="chance that a game is a draw")
    points: int = Field(5, ge=0, le=100, description="each seat's mean score")
    bonus: int = Field(0, ge=0, le=10, description="points the winner gets on top")


class PlainPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: str = "plain"


class Tables(NamedTuple):
    edge: float
    draw: float
    points: int
    bonus: int


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser on uint64 arrays (array arithmetic wraps silently)."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _uniform(h: np.ndarray) -> np.ndarray:
    return (h >> np.uint64(11)).astype(np.float64) / 2.0**53


class _FakeTuneGame(Game):
    name = "fake_tune"
    title = "Fake Tune Game"
    min_players = 2
    max_players = 2
    rules_model = Rules
    policy_kinds: ClassVar = {"plain": PlainPolicy}
    default_policies: ClassVar = {"plain": {"kind": "plain"}}
    end_reasons = ("win", "draw")

    def layout_problems(self) -> list[str]:
        return []  # one module, not a game package: it defines every hook the modules would

    def compile(self, config: Any) -> Tables:
        r = config.rules
        return Tables(float(r.edge), float(r.draw), int(r.points), int(r.bonus))

    def telemetry_columns(self, tables: Tables) -> list[str]:
        return []

    def play(self, tables: Tables, seed: int, first_game: int, n_games: int) -> Chunk:
        game = np.arange(first_game, first_game + n_games, dtype=np.uint64)
        g = _mix(game + _mix(np.array([seed], dtype=np.uint64)))
        draw = _uniform(_mix(g + np.uint64(1))) < tables.draw
        first = (_mix(g + np.uint64(2)) & np.uint64(1)).astype(np.int64)  # seat that starts
        first_wins = _uniform(_mix(g + np.uint64(3))) < tables.edge
        winner = np.where(first_wins, first, 1 - first)
        seats = np.arange(2)[None, :]
        order = ((seats - first[:, None]) % 2).astype(np.int32)
        noise = np.stack(
            [(_mix(g + np.uint64(4 + s)) % np.uint64(3)).astype(np.int32) - 1 for s in range(2)],
            axis=1,
        )
        won = (seats == winner[:, None]) & ~draw[:, None]
        score = tables.points + noise + np.where(won, tables.bonus, 0).astype(np.int32)
        rank = np.where(draw[:, None] | won, 1, 2).astype(np.int32)
        return Chunk(
            first_game=first_game,
            score=score.astype(np.int32),
            rank=rank,
            turns=np.full(n_games, 10, dtype=np.int32),
            end_reason=draw.astype(np.int32),
            order=order,
            telemetry=np.zeros((n_games, 2, 0), dtype=np.uint8),
            extra={},
        )

    def impact_variants(self, config: Any) -> list[dict[str, Any]]:
        return []

    def report_variants(self, config: Any) -> list[dict[str, Any]]:
        return []

    def narrate(self, tables: Tables, seed: int, game: int) -> list[str]:
        chunk = self.play(tables, seed, game, 1)
        return [f"game {game} of seed {seed}: ranks {chunk.rank[0].tolist()}"]


PLUGIN = _FakeTuneGame()


def write_config(path, **rules: Any):
    """A valid config of the fake tune game with these rules; returns its path."""
    lines = ["game: fake_tune", "players: 2", "seats: plain", "games: 4000", "seed: 3"]
    if rules:
        lines.append("rules: {" + ", ".join(f"{k}: {v}" for k, v in rules.items()) + "}")
    path.write_text("\n".join(lines) + "\n")
    return path
