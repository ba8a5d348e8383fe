"""A scripted fake game whose teams and roles change from game to game, for hand-computed answers.

Three seats play a cycle of four scripted games (game ``i`` of seed ``s`` is script game
``(i + s) % 4``), shaped like Raven Manor: one seat is dealt the ``raven`` role, and possession
can move a Family seat to the Raven's team. Teams are ``family`` and ``raven``; roles ``doc``,
``mayor`` and ``raven``. Every seat of the winning team has rank 1 (a full win), a draw gives
rank 1 to all.

====  ========================  ========================  ==========  =========
game  roles (seat 0, 1, 2)      teams it ends on          winner      scores
====  ========================  ========================  ==========  =========
0     raven, doc, mayor         raven, family, family     family      0, 2, 2
1     doc, raven, mayor         family, raven, raven (*)  raven       1, 3, 3
2     mayor, doc, raven         family, family, raven     raven       0, 0, 4
3     raven, mayor, doc         raven, raven, family (*)  draw        1, 1, 1
====  ========================  ========================  ==========  =========

(*) a Family seat possessed. Per cycle of four games the hand-computed win shares are: team
family 1.5/4, team raven 2.5/4; role raven 2.5/4, doc 1.5/4, mayor 2.5/4; seat 0 0.5/4, seat 1
2.5/4, seat 2 3.5/4. ``rules.flip: 1`` makes the Family win script game 2 instead (ranks 1, 1, 2),
which moves team raven by -1/4 a game on average. The first player is seat ``i % 3``.
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from balance.games.base import Chunk, Game, Replay

TEAMS = ("family", "raven")
ROLES = ("doc", "mayor", "raven")
F, R = 0, 1
DOC, MAYOR, RAVEN = 0, 1, 2
SCRIPT_ROLE = np.array(
    [[RAVEN, DOC, MAYOR], [DOC, RAVEN, MAYOR], [MAYOR, DOC, RAVEN], [RAVEN, MAYOR, DOC]]
)
SCRIPT_TEAM = np.array([[R, F, F], [F, R, R], [F, F, R], [R, R, F]])
SCRIPT_RANK = np.array([[2, 1, 1], [2, 1, 1], [2, 2, 1], [1, 1, 1]])
FLIPPED_RANK_2 = np.array([1, 1, 2])  # script game 2 won by the Family
SCRIPT_SCORE = np.array([[0, 2, 2], [1, 3, 3], [0, 0, 4], [1, 1, 1]])


class Rules(BaseModel):
    model_config = ConfigDict(extra="forbid")
    flip: int = Field(0, ge=0, le=1, description="1: the Family wins script game 2")


class PlainPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: str = "plain"


class Tables(NamedTuple):
    flip: int
    players: int


class _FakeRolesGame(Game):
    name = "fake_roles"
    title = "Fake Roles Game"
    min_players = 3
    max_players = 3
    rules_model = Rules
    policy_kinds: ClassVar = {"plain": PlainPolicy}
    default_policies: ClassVar = {"plain": {"kind": "plain"}, "other": {"kind": "plain"}}
    end_reasons = ("victory", "draw")

    def layout_problems(self) -> list[str]:
        return []  # one module, not a game package: it defines every hook the modules would

    def compile(self, config: Any) -> Tables:
        return Tables(flip=int(config.rules.flip), players=config.players)

    def telemetry_columns(self, tables: Tables) -> list[str]:
        return ["possessed__seat"]

    def team_names(self, tables: Tables) -> tuple[str, ...]:
        return TEAMS

    def role_names(self, tables: Tables) -> tuple[str, ...]:
        return ROLES

    def play(self, tables: Tables, seed: int, first_game: int, n_games: int) -> Chunk:
        game = np.arange(first_game, first_game + n_games, dtype=np.int64)
        k = (game + seed) % 4
        rank = SCRIPT_RANK[k].astype(np.int32)
        if tables.flip:
            rank[k == 2] = FLIPPED_RANK_2
        team = SCRIPT_TEAM[k].astype(np.int32)
        role = SCRIPT_ROLE[k].astype(np.int32)
        start = game % 3
        order = ((np.arange(3)[None, :] - start[:, None]) % 3).astype(np.int32)
        possessed = ((team == R) & (role != RAVEN)).astype(np.uint8)
        return Chunk(
            first_game=first_game,
            score=SCRIPT_SCORE[k].astype(np.int32),
            rank=rank,
            turns=(10 + k).astype(np.int32),
            end_reason=(k == 3).astype(np.int32),
            order=order,
            telemetry=possessed[:, :, None].copy(),
            team=team,
            role=role,
            saturated=np.zeros(1, np.int64),
        )

    def replay(self, tables: Tables, seed: int, game: int) -> Replay:
        c = self.play(tables, seed, game, 1)
        lines = [f"game {game}: script game {(game + seed) % 4}"]
        return Replay(lines, c.score[0], c.rank[0], int(c.turns[0]), int(c.end_reason[0]))

    def narrate(self, tables: Tables, seed: int, game: int) -> list[str]:
        return self.replay(tables, seed, game).lines

    def impact_variants(self, config: Any) -> list[dict[str, Any]]:
        return [
            {
                "name": "flip",
                "description": "the Family wins game 2",
                "patch": {"rules": {"flip": 1}},
            }
        ]

    def report_variants(self, config: Any) -> list[dict[str, Any]]:
        return []


PLUGIN = _FakeRolesGame()


def write_config(path, *, games: int = 400, seed: int = 0, flip: int = 0, **extra: Any):
    """A valid YAML config of the scripted game; returns its path."""
    lines = [
        "game: fake_roles",
        "players: 3",
        "seats: [plain, plain, other]",
        f"games: {games}",
        f"seed: {seed}",
        f"rules: {{flip: {flip}}}",
        *(f"{k}: {v}" for k, v in extra.items()),
    ]
    path.write_text("\n".join(lines) + "\n")
    return path
