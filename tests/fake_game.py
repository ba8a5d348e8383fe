"""A tiny game plugin for testing the runner, results and CLI without compiling numba kernels.

Every number is a hash of (seed, game index, seat), computed with numpy on whole chunks, so game
``i`` of seed ``s`` is the same whatever the chunking, like a real plugin. Scores take few values,
so shared wins are common. Register it with the ``fake_game`` fixture (tests/conftest.py).
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from balance.games.base import Chunk, Game

CARDS = ("ace", "king")
EVENTS = ("drawn", "played")


class Deck(BaseModel):
    model_config = ConfigDict(extra="forbid")
    aces: int = Field(4, ge=0, description="Aces in the deck")
    kings: int = Field(4, ge=0, description="Kings in the deck")


class Rules(BaseModel):
    model_config = ConfigDict(extra="forbid")
    bonus: int = Field(0, ge=0, le=5, description="Points added to the first player's score")
    deck: Deck = Field(default_factory=Deck, description="Deck composition")
    variant: str = Field("classic", description="Rules variant")


class PlainPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: str = "plain"


class SkilledPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: str = "skilled"
    skill: int = Field(1, ge=0, le=3, description="Points added to this seat's score")


class Tables(NamedTuple):
    bonus: int
    skill: np.ndarray  # int32[P]


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser on uint64 arrays (array arithmetic wraps silently)."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


class _FakeGame(Game):
    name = "fake"
    title = "Fake Game"
    min_players = 2
    max_players = 4
    rules_model = Rules
    policy_kinds: ClassVar = {"plain": PlainPolicy, "skilled": SkilledPolicy}
    default_policies: ClassVar = {
        "plain": {"kind": "plain"},
        "skilled": {"kind": "skilled", "skill": 1},
    }
    end_reasons = ("points", "timeout")

    def __init__(self) -> None:
        super().__init__()
        self.reset()

    def layout_problems(self) -> list[str]:
        return []  # one module, not a game package: it defines every hook the modules would

    def reset(self) -> None:
        self.calls = 0  # play() calls so far
        self.interrupt_at: int | None = None  # this play() call (1-based) raises KeyboardInterrupt
        self.compiled = 0

    def compile(self, config: Any) -> Tables:
        self.compiled += 1
        skill = [config.policies[seat].get("skill", 0) for seat in config.seats]
        return Tables(bonus=int(config.rules.bonus), skill=np.array(skill, dtype=np.int32))

    def telemetry_columns(self, tables: Tables) -> list[str]:
        return [f"{event}__{card}" for event in EVENTS for card in CARDS]

    def play(self, tables: Tables, seed: int, first_game: int, n_games: int) -> Chunk:
        self.calls += n_games > 0  # the runner's warm-up call (0 games) is not counted
        if n_games and self.calls == self.interrupt_at:
            raise KeyboardInterrupt
        p = len(tables.skill)
        game = np.arange(first_game, first_game + n_games, dtype=np.uint64)
        g = _mix(game + _mix(np.array([seed], dtype=np.uint64)))  # uint64[n]
        h = _mix(g[:, None] + np.arange(1, p + 1, dtype=np.uint64)[None, :])  # uint64[n, P]
        start = (g % np.uint64(p)).astype(np.int64)  # first player
        order = ((np.arange(p)[None, :] - start[:, None]) % p).astype(np.int32)
        score = (h % np.uint64(4)).astype(np.int32) + tables.skill[None, :]
        score += np.where(order == 0, tables.bonus, 0).astype(np.int32)
        rank = 1 + (score[:, None, :] > score[:, :, None]).sum(axis=2).astype(np.int32)
        telemetry = np.stack(
            [((h >> np.uint64(8 * (j + 1))) % np.uint64(3)).astype(np.uint8) for j in range(4)],
            axis=2,
        )
        return Chunk(
            first_game=first_game,
            score=score,
            rank=rank,
            turns=(10 + g % np.uint64(20)).astype(np.int32),
            end_reason=((g >> np.uint64(40)) % np.uint64(2)).astype(np.int32),
            order=order,
            telemetry=telemetry,
            extra={"hand_left": ((h >> np.uint64(48)) % np.uint64(5)).astype(np.int32)},
        )

    def impact_variants(self, config: Any) -> list[dict[str, Any]]:
        return []

    def report_variants(self, config: Any) -> list[dict[str, Any]]:
        return []

    def narrate(self, tables: Tables, seed: int, game: int) -> list[str]:
        chunk = self.play(tables, seed, game, 1)
        lines = [f"game {game} of seed {seed}"]
        lines += [f"seat {s} scores {int(v)}" for s, v in enumerate(chunk.score[0])]
        return lines


PLUGIN = _FakeGame()


def write_config(path, *, players: int = 3, games: int = 50, seed: int = 7, **extra: Any):
    """A minimal valid YAML config for the fake game; returns its path."""
    seats = ["plain", "skilled", "plain", "skilled"][:players]
    lines = [
        "game: fake",
        f"players: {players}",
        f"seats: [{', '.join(seats)}]",
        f"games: {games}",
        f"seed: {seed}",
        *(f"{k}: {v}" for k, v in extra.items()),
    ]
    path.write_text("\n".join(lines) + "\n")
    return path
