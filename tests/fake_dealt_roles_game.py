"""A fake game that deals roles at random, whose roles are equal by construction unless a rule
plants an edge, for the error rates of ``max_role_shift`` (tests/test_check_metrics.py).

Four seats, each its own team, are dealt four of the six roles ``r0`` ... ``r5`` (a uniformly
random arrangement, so each role is dealt in 2/3 of the games, to one seat). One seat wins each
game. Without an edge the winner is uniform and independent of the deal: every role wins 1/4 of
the games it is dealt in, as the average seat does, so every role's shift is exactly 0.

``rules.edge`` = e plants one: in a game that deals ``r0``, its seat wins with chance 1/4 + e and
each other seat with (3/4 - e)/3. Then ``r0``'s shift is exactly +e, and every other role's is
-e/5 (it meets ``r0`` in 3/5 of its games, where it wins e/3 less).

``rules.late_role`` = g: ``r5`` is dealt in no game before game g (four of the other five are),
for the roles that a check's first chunk of games does not see.

Every number is a hash of (seed, game), so game ``i`` is the same whatever the chunking.
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from balance.games.base import Chunk, Game

PLAYERS = 4
ROLES = ("r0", "r1", "r2", "r3", "r4", "r5")


class Rules(BaseModel):
    model_config = ConfigDict(extra="forbid")
    edge: float = Field(0.0, ge=0, le=0.75, description="extra chance of r0's seat to win")
    late_role: int = Field(0, ge=0, description="r5 is not dealt before this game")


class PlainPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: str = "plain"


class Tables(NamedTuple):
    edge: float
    late_role: int


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser on uint64 arrays (array arithmetic wraps silently)."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _uniform(h: np.ndarray) -> np.ndarray:
    """uint64 hashes as floats in [0, 1)."""
    return (h >> np.uint64(11)).astype(np.float64) / float(2**53)


def deal(seed: int, first_game: int, n_games: int, edge: float, late_role: int = 0):
    """(role int32[n, 4], winner int64[n], first player int64[n]) of games
    [first_game, first_game + n_games) of seed ``seed``."""
    game = np.arange(first_game, first_game + n_games, dtype=np.uint64)
    g = _mix(game + _mix(np.array([seed], dtype=np.uint64)))
    keys = _uniform(_mix(g[:, None] + np.arange(1, 7, dtype=np.uint64)[None, :]))  # [n, 6]
    keys[:, 5] = np.where(game < np.uint64(late_role), 2.0, keys[:, 5])  # r5 sorted last
    roles = np.argsort(keys, axis=1, kind="stable")[:, :PLAYERS].astype(np.int32)
    u = _uniform(_mix(g + np.uint64(7)))
    start = (_mix(g + np.uint64(11)) % np.uint64(PLAYERS)).astype(np.int64)
    uniform = np.minimum((u * PLAYERS).astype(np.int64), PLAYERS - 1)
    winner = uniform
    if edge:
        has0 = (roles == 0).any(axis=1)
        seat0 = np.argmax(roles == 0, axis=1)
        p0 = 0.25 + edge
        other = np.minimum(((u - p0) / (1 - p0) * 3).astype(np.int64), 2)  # 0..2 of the others
        others = np.where(other >= seat0, other + 1, other)
        winner = np.where(has0, np.where(u < p0, seat0, others), uniform)
    return roles, winner, start


class _FakeDealtRolesGame(Game):
    name = "fake_dealt_roles"
    title = "Fake Dealt Roles Game"
    min_players = PLAYERS
    max_players = PLAYERS
    rules_model = Rules
    policy_kinds: ClassVar = {"plain": PlainPolicy}
    default_policies: ClassVar = {"plain": {"kind": "plain"}}
    end_reasons = ("victory",)

    def layout_problems(self) -> list[str]:
        return []  # one module, not a game package: it defines every hook the modules would

    def compile(self, config: Any) -> Tables:
        return Tables(edge=float(config.rules.edge), late_role=int(config.rules.late_role))

    def telemetry_columns(self, tables: Tables) -> list[str]:
        return []

    def role_names(self, tables: Tables) -> tuple[str, ...]:
        return ROLES

    def play(self, tables: Tables, seed: int, first_game: int, n_games: int) -> Chunk:
        roles, winner, start = deal(seed, first_game, n_games, tables.edge, tables.late_role)
        seats = np.arange(PLAYERS)[None, :]
        won = seats == winner[:, None]
        order = ((seats - start[:, None]) % PLAYERS).astype(np.int32)
        return Chunk(
            first_game=first_game,
            score=won.astype(np.int32),
            rank=np.where(won, 1, 2).astype(np.int32),
            turns=np.full(n_games, 10, dtype=np.int32),
            end_reason=np.zeros(n_games, dtype=np.int32),
            order=order,
            telemetry=np.zeros((n_games, PLAYERS, 0), dtype=np.uint8),
            role=roles,
            saturated=np.zeros(0, np.int64),
        )

    def impact_variants(self, config: Any) -> list[dict[str, Any]]:
        return []

    def report_variants(self, config: Any) -> list[dict[str, Any]]:
        return []

    def narrate(self, tables: Tables, seed: int, game: int) -> list[str]:
        roles, winner, _ = deal(seed, game, 1, tables.edge, tables.late_role)
        return [f"game {game}: roles {[ROLES[r] for r in roles[0]]}, seat {winner[0]} wins"]


PLUGIN = _FakeDealtRolesGame()


def write_config(path, *, games: int = 1000, seed: int = 3, edge: float = 0.0, late_role=0):
    """A valid YAML config of this game; returns its path."""
    path.write_text(
        "game: fake_dealt_roles\nplayers: 4\nseats: plain\n"
        f"games: {games}\nseed: {seed}\nrules: {{edge: {edge}, late_role: {late_role}}}\n"
    )
    return path
