"""The one fake game of the tests: a plugin of the game protocol in plain numpy (nothing to compile),
whose behaviour is set by the parameters of :class:`FakeGame`.

- ``players``: (min, max) seats; ``end_reasons``; ``policy_kinds`` and ``policies`` (ready-made);
- ``rules``: the pydantic model of its ``rules:`` (the knobs a test turns: a tunable rule);
- ``outcome``: how a chunk of games is played (:data:`HASHED`, :data:`SCRIPTED`, :data:`DEALT`,
  :data:`TUNED`, below), each a pure function of (seed, game index, rules), so game ``i`` of seed
  ``s`` is the same whatever the chunking, like a real plugin's;
- ``teams`` and ``roles``: the names of the teams and roles its games deal (none: the config's
  ``teams:``), ``telemetry``: its telemetry columns, ``variants``: its ``impact_variants``;
- flakiness: ``interrupt_at`` (attribute) makes that ``play`` call (1-based, games > 0) raise
  KeyboardInterrupt; ``calls`` and ``compiled`` count the calls (``reset()`` zeroes them).

Four configured instances are the fakes the tests use, each in its own module (``PLUGIN`` and its
``write_config``), so that the registry loads it like any game:
``monkeypatch.setitem(games._GAMES, name, module.__name__)`` (tests/conftest.py's fixtures):

- this module itself, ``fake`` (the ``fake_game`` fixture): 2-4 seats, hashed scores, two policy
  kinds; :data:`contract` is the same game with one impact variant, the one
  tests/games/test_contract.py holds to every game's contract;
- :data:`roles` (``fake_roles``): three seats play a script of four games whose teams and roles
  change from game to game (answers worked out by hand: :func:`scripted`);
- :data:`dealt` (``fake_dealt_roles``): four seats dealt four of six roles at random, equal by
  construction unless ``rules.edge`` plants one (:func:`dealt_roles`);
- :data:`tune` (``fake_tune``): two seats whose metrics are known functions of the rules
  (:func:`tuned`).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar, NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from balance.games.base import Chunk, Game, Replay, with_trace
from kit.configs import write_config as _write

# ============================================================================= rules and policies


class Deck(BaseModel):
    model_config = ConfigDict(extra="forbid")
    aces: int = Field(4, ge=0, description="Aces in the deck")
    kings: int = Field(4, ge=0, description="Kings in the deck")


class Rules(BaseModel):
    """The hashed game's rules."""

    model_config = ConfigDict(extra="forbid")
    bonus: int = Field(0, ge=0, le=5, description="Points added to the first player's score")
    deck: Deck = Field(default_factory=Deck, description="Deck composition")
    variant: str = Field("classic", description="Rules variant")


class ScriptRules(BaseModel):
    model_config = ConfigDict(extra="forbid")
    flip: int = Field(0, ge=0, le=1, description="1: the Family wins script game 2")


class DealtRules(BaseModel):
    model_config = ConfigDict(extra="forbid")
    edge: float = Field(0.0, ge=0, le=0.75, description="extra chance of r0's seat to win")
    late_role: int = Field(0, ge=0, description="r5 is not dealt before this game")


class TuneRules(BaseModel):
    model_config = ConfigDict(extra="forbid")
    edge: float = Field(0.5, ge=0, le=1, description="the first player's chance in a decided game")
    draw: float = Field(0.0, ge=0, le=0.9, description="chance that a game is a draw")
    points: int = Field(5, ge=0, le=100, description="each seat's mean score")
    bonus: int = Field(0, ge=0, le=10, description="points the winner gets on top")


class PlainPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: str = "plain"


class SkilledPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: str = "skilled"
    skill: int = Field(1, ge=0, le=3, description="Points added to this seat's score")


class Tables(NamedTuple):
    players: int
    skill: np.ndarray  # int32[P]: each seat's policy's ``skill`` (0 without one)
    rules: Any  # the config's validated rules (an instance of the game's rules model)


# ====================================================================================== outcomes


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser on uint64 arrays (array arithmetic wraps silently)."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _uniform(h: np.ndarray) -> np.ndarray:
    """uint64 hashes as floats in [0, 1)."""
    return (h >> np.uint64(11)).astype(np.float64) / float(2**53)


def _streams(seed: int, first_game: int, n_games: int) -> tuple[np.ndarray, np.ndarray]:
    """(game index uint64[n], the game's hash uint64[n]): one stream per (seed, game)."""
    game = np.arange(first_game, first_game + n_games, dtype=np.uint64)
    return game, _mix(game + _mix(np.array([seed], dtype=np.uint64)))


CARDS = ("ace", "king")
EVENTS = ("drawn", "played")
HASHED_COLUMNS = tuple(f"{event}__{card}" for event in EVENTS for card in CARDS)


def hashed(tables: Tables, seed: int, first_game: int, n_games: int) -> Chunk:
    """Every number a hash of (seed, game, seat). Scores take few values (0-3, plus the seat's
    policy's ``skill`` and, for the first player, ``rules.bonus``), so shared wins are common;
    the end reason and the telemetry (columns HASHED_COLUMNS) are hashed too."""
    p = tables.players
    _, g = _streams(seed, first_game, n_games)
    h = _mix(g[:, None] + np.arange(1, p + 1, dtype=np.uint64)[None, :])  # uint64[n, P]
    start = (g % np.uint64(p)).astype(np.int64)  # first player
    order = ((np.arange(p)[None, :] - start[:, None]) % p).astype(np.int32)
    score = (h % np.uint64(4)).astype(np.int32) + tables.skill[None, :]
    score += np.where(order == 0, int(tables.rules.bonus), 0).astype(np.int32)
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


TRACE_MEASURES = ("standing", "round")


class TraceRules(Rules):
    comeback: float = Field(0.0, ge=0, le=1, description="chance of a planted comeback game")


def traced(tables: Tables, seed: int, first_game: int, n_games: int) -> Chunk:
    """:func:`hashed`'s games with a trajectory: game ``i`` lasts ``1 + i % 4`` rounds, so it
    records ``2 + i % 4`` points (room for 5); a seat's standing at point k of R is
    ``score * k // R`` (0 at the start, its score at the end), measure ``round`` is k. With
    chance ``rules.comeback`` (a hash of the game) a game is a planted comeback: its sole
    winner's standing is -1 at every point strictly between the start and the end, so it is
    behind at half time exactly when the game has 2 rounds or more (3 games in 4)."""
    c = hashed(tables, seed, first_game, n_games)
    p = tables.players
    rounds = 1 + np.arange(first_game, first_game + n_games) % 4
    trace = np.zeros((n_games, 5, p, 2), np.int16)
    for k in range(5):
        at = np.minimum(k, rounds)[:, None]
        trace[:, k, :, 0] = c.score * at // rounds[:, None]
        trace[:, k, :, 1] = at
    chance = getattr(tables.rules, "comeback", 0.0)
    if chance:
        _, g = _streams(seed ^ 0x5EED, first_game, n_games)
        first = c.rank == 1
        sole = (first.sum(axis=1) == 1) & (_uniform(g) < chance)
        w = np.argmax(first, axis=1)
        for k in range(1, 4):
            hit = sole & (k < rounds)
            trace[hit, k, w[hit], 0] = -1
    trace[np.arange(5)[None, :] > rounds[:, None]] = 0  # unrecorded points stay 0
    return with_trace(c, trace, (rounds + 1).astype(np.int32))


# The script: three seats play a cycle of four games (game ``i`` of seed ``s`` is script game
# ``(i + s) % 4``), shaped like Raven Manor: one seat is dealt the ``raven`` role, and possession
# can move a Family seat to the Raven's team. Every seat of the winning team has rank 1 (a full
# win), a draw gives rank 1 to all.
#
# ====  ========================  ========================  ==========  =========
# game  roles (seat 0, 1, 2)      teams it ends on          winner      scores
# ====  ========================  ========================  ==========  =========
# 0     raven, doc, mayor         raven, family, family     family      0, 2, 2
# 1     doc, raven, mayor         family, raven, raven (*)  raven       1, 3, 3
# 2     mayor, doc, raven         family, family, raven     raven       0, 0, 4
# 3     raven, mayor, doc         raven, raven, family (*)  draw        1, 1, 1
# ====  ========================  ========================  ==========  =========
#
# (*) a Family seat possessed. Per cycle of four games the hand-computed win shares are: team
# family 1.5/4, team raven 2.5/4; role raven 2.5/4, doc 1.5/4, mayor 2.5/4; seat 0 0.5/4, seat 1
# 2.5/4, seat 2 3.5/4. ``rules.flip: 1`` makes the Family win script game 2 instead (ranks 1, 1,
# 2), which moves team raven by -1/4 a game on average. The first player is seat ``i % 3``.
# A rules model with ``ghost: 1`` deals role 3 (the first role after these three) instead of the
# doc.
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


def scripted(tables: Tables, seed: int, first_game: int, n_games: int) -> Chunk:
    """The script above; telemetry ``possessed__seat`` (1: a Family seat on the Raven's team)."""
    game = np.arange(first_game, first_game + n_games, dtype=np.int64)
    k = (game + seed) % 4
    rank = SCRIPT_RANK[k].astype(np.int32)
    if tables.rules.flip:
        rank[k == 2] = FLIPPED_RANK_2
    team = SCRIPT_TEAM[k].astype(np.int32)
    role = SCRIPT_ROLE[k].astype(np.int32)
    start = game % 3
    order = ((np.arange(3)[None, :] - start[:, None]) % 3).astype(np.int32)
    possessed = ((team == R) & (role != RAVEN)).astype(np.uint8)
    if getattr(tables.rules, "ghost", 0):
        role = np.where(role == DOC, 3, role).astype(np.int32)
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


# Dealt roles: four seats, each its own team, are dealt four of the six roles r0 ... r5 (a
# uniformly random arrangement, so each role is dealt in 2/3 of the games, to one seat). One seat
# wins each game. Without an edge the winner is uniform and independent of the deal: every role
# wins 1/4 of the games it is dealt in, as the average seat does, so every role's shift is
# exactly 0. ``rules.edge`` = e plants one: in a game that deals r0, its seat wins with chance
# 1/4 + e and each other seat with (3/4 - e)/3. Then r0's shift is exactly +e, and every other
# role's is -e/5 (it meets r0 in 3/5 of its games, where it wins e/3 less).
# ``rules.late_role`` = g: r5 is dealt in no game before game g (four of the other five are), for
# the roles that a check's first chunk of games does not see.
DEALT_PLAYERS = 4
DEALT_ROLES = ("r0", "r1", "r2", "r3", "r4", "r5")


def deal(seed: int, first_game: int, n_games: int, edge: float, late_role: int = 0):
    """(role int32[n, 4], winner int64[n], first player int64[n]) of games
    [first_game, first_game + n_games) of seed ``seed``."""
    game, g = _streams(seed, first_game, n_games)
    keys = _uniform(_mix(g[:, None] + np.arange(1, 7, dtype=np.uint64)[None, :]))  # [n, 6]
    keys[:, 5] = np.where(game < np.uint64(late_role), 2.0, keys[:, 5])  # r5 sorted last
    roles = np.argsort(keys, axis=1, kind="stable")[:, :DEALT_PLAYERS].astype(np.int32)
    u = _uniform(_mix(g + np.uint64(7)))
    start = (_mix(g + np.uint64(11)) % np.uint64(DEALT_PLAYERS)).astype(np.int64)
    uniform = np.minimum((u * DEALT_PLAYERS).astype(np.int64), DEALT_PLAYERS - 1)
    winner = uniform
    if edge:
        has0 = (roles == 0).any(axis=1)
        seat0 = np.argmax(roles == 0, axis=1)
        p0 = 0.25 + edge
        other = np.minimum(((u - p0) / (1 - p0) * 3).astype(np.int64), 2)  # 0..2 of the others
        others = np.where(other >= seat0, other + 1, other)
        winner = np.where(has0, np.where(u < p0, seat0, others), uniform)
    return roles, winner, start


def one_winner(first_game: int, winner: np.ndarray, start: np.ndarray, players: int,
               **more: Any) -> Chunk:  # fmt: skip
    """A chunk of games with one winner each (score 1, rank 1; the others 0 and rank 2), each
    game's first player ``start``, ten turns, no telemetry."""
    n = len(winner)
    seats = np.arange(players)[None, :]
    won = seats == winner[:, None]
    return Chunk(
        first_game=first_game,
        score=won.astype(np.int32),
        rank=np.where(won, 1, 2).astype(np.int32),
        turns=np.full(n, 10, dtype=np.int32),
        end_reason=np.zeros(n, dtype=np.int32),
        order=((seats - start[:, None]) % players).astype(np.int32),
        telemetry=np.zeros((n, players, 0), dtype=np.uint8),
        **more,
    )


def dealt_roles(tables: Tables, seed: int, first_game: int, n_games: int) -> Chunk:
    """The deal above: the winner scores 1 and has rank 1, the others 0 and rank 2."""
    rules = tables.rules
    roles, winner, start = deal(seed, first_game, n_games, rules.edge, rules.late_role)
    return one_winner(
        first_game, winner, start, DEALT_PLAYERS, role=roles, saturated=np.zeros(0, np.int64)
    )


def tuned(tables: Tables, seed: int, first_game: int, n_games: int) -> Chunk:
    """Two seats whose metrics are known functions of the rules, for ``balance tune``: the game
    is a draw (a shared first place) with probability ``rules.draw``, whatever the rest;
    otherwise the first player (a fair coin picks the seat) wins with probability ``rules.edge``
    (``win_share[order=0,decided]`` is exactly ``edge``, ``win_share[order=0]`` is
    ``draw / 2 + (1 - draw) * edge``); each seat scores ``rules.points`` plus a noise of -1, 0 or
    +1 (each a third), so ``mean_score`` is exactly ``points``; the winner gets ``rules.bonus``
    more. The numbers are drawn alike under every config (common random numbers)."""
    r = tables.rules
    _, g = _streams(seed, first_game, n_games)
    draw = _uniform(_mix(g + np.uint64(1))) < r.draw
    first = (_mix(g + np.uint64(2)) & np.uint64(1)).astype(np.int64)  # seat that starts
    first_wins = _uniform(_mix(g + np.uint64(3))) < r.edge
    winner = np.where(first_wins, first, 1 - first)
    seats = np.arange(2)[None, :]
    order = ((seats - first[:, None]) % 2).astype(np.int32)
    noise = np.stack(
        [(_mix(g + np.uint64(4 + s)) % np.uint64(3)).astype(np.int32) - 1 for s in range(2)],
        axis=1,
    )
    won = (seats == winner[:, None]) & ~draw[:, None]
    score = int(r.points) + noise + np.where(won, int(r.bonus), 0).astype(np.int32)
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


class SkillRules(BaseModel):
    model_config = ConfigDict(extra="forbid")
    edge_low: float = Field(0.0, ge=-0.3, le=0.3, description="first player's edge, skill 0")
    edge_high: float = Field(0.0, ge=-0.3, le=0.3, description="first player's edge, skill 3")
    gain: float = Field(0.0, ge=0, le=3, description="weight a point of skill adds to a seat")


SKILL_PLAYERS = 3


def skilled(tables: Tables, seed: int, first_game: int, n_games: int) -> Chunk:
    """Three seats, one winner a game, for ``balance ladder``: seat ``s`` wins with chance in
    proportion to ``1 + gain * skill_s``, times a first-player factor chosen so that among
    seats of one skill (a mirror) the first player wins exactly ``1/3 + edge`` with the edge
    moving linearly from ``edge_low`` (skill 0) to ``edge_high`` (skill 3) with the seats' mean
    skill. One uniform number a game picks the winner, the same under every config (common
    random numbers); the first player is ``game % 3``."""
    r, p = tables.rules, SKILL_PLAYERS
    game, g = _streams(seed, first_game, n_games)
    start = (game % np.uint64(p)).astype(np.int64)
    seats = np.arange(p)[None, :]
    order = ((seats - start[:, None]) % p).astype(np.int32)
    skill = tables.skill.astype(np.float64)
    edge = r.edge_low + (r.edge_high - r.edge_low) * float(skill.mean()) / 3.0
    share = 1.0 / p + edge  # the first player's, in a mirror
    boost = (p * share - 1.0) / (1.0 - share)  # (1 + boost) / (p + boost) == share
    weight = (1.0 + r.gain * skill)[None, :] * np.where(order == 0, 1.0 + boost, 1.0)
    cdf = np.cumsum(weight / weight.sum(axis=1, keepdims=True), axis=1)
    u = _uniform(_mix(g + np.uint64(7)))
    winner = np.minimum((u[:, None] >= cdf).sum(axis=1), p - 1)
    return one_winner(first_game, winner, start, p, extra={})


# How each outcome tells a game (``narrate`` and ``replay``'s lines), from its one-game chunk.
Teller = Callable[["FakeGame", Tables, int, int, Chunk], list[str]]


def _tell_scores(game: FakeGame, tables: Tables, seed: int, i: int, c: Chunk) -> list[str]:
    return [f"game {i} of seed {seed}"] + [
        f"seat {s} scores {int(v)}" for s, v in enumerate(c.score[0])
    ]


def _tell_script(game: FakeGame, tables: Tables, seed: int, i: int, c: Chunk) -> list[str]:
    return [f"game {i}: script game {(i + seed) % 4}"]


def _tell_deal(game: FakeGame, tables: Tables, seed: int, i: int, c: Chunk) -> list[str]:
    winner = int(np.argmax(c.rank[0] == 1))
    return [f"game {i}: roles {[game.roles[r] for r in c.role[0]]}, seat {winner} wins"]


def _tell_ranks(game: FakeGame, tables: Tables, seed: int, i: int, c: Chunk) -> list[str]:
    return [f"game {i} of seed {seed}: ranks {c.rank[0].tolist()}"]


class Outcome(NamedTuple):
    play: Callable[[Tables, int, int, int], Chunk]
    tell: Teller


HASHED = Outcome(hashed, _tell_scores)
TRACED = Outcome(traced, _tell_scores)
SCRIPTED = Outcome(scripted, _tell_script)
DEALT = Outcome(dealt_roles, _tell_deal)
TUNED = Outcome(tuned, _tell_ranks)
SKILLED = Outcome(skilled, _tell_ranks)


# ====================================================================================== the game


class FakeGame(Game):
    """The fake game; ``FakeGame()`` is the hashed 2-4 player game registered as ``fake``."""

    name = "fake"
    # Game reads these from a game package's modules (properties); the fake holds them
    end_reasons: ClassVar = ()
    trace_measures: ClassVar = ()
    rules_model: ClassVar = Rules
    default_policies: ClassVar = {}

    def __init__(
        self,
        name: str | None = None,
        *,
        title: str = "Fake Game",
        players: tuple[int, int] = (2, 4),
        end_reasons: Sequence[str] = ("points", "timeout"),
        rules: type[BaseModel] = Rules,
        policy_kinds: dict[str, type[BaseModel]] | None = None,
        policies: dict[str, dict[str, Any]] | None = None,
        outcome: Outcome = HASHED,
        telemetry: Sequence[str] = HASHED_COLUMNS,
        teams: Sequence[str] = (),
        roles: Sequence[str] = (),
        variants: Sequence[dict[str, Any]] = (),
        trace_measures: Sequence[str] = (),
    ) -> None:
        if name is not None:  # a subclass may name itself instead
            self.name = name
        self.title = title
        self.min_players, self.max_players = players
        self.end_reasons = tuple(end_reasons)
        self.rules_model = rules
        self.policy_kinds = policy_kinds or {"plain": PlainPolicy, "skilled": SkilledPolicy}
        self.default_policies = policies or {
            "plain": {"kind": "plain"},
            "skilled": {"kind": "skilled", "skill": 1},
        }
        self.outcome = outcome
        self.telemetry = list(telemetry)
        self.teams, self.roles = tuple(teams), tuple(roles)
        self.variants = [dict(v) for v in variants]
        self.trace_measures = tuple(trace_measures)
        super().__init__()
        self.reset()

    def layout_problems(self) -> list[str]:
        return []  # one module, not a game package: it defines every hook the modules would

    def reset(self) -> None:
        self.calls = 0  # play() calls with games so far (the runner's warm-up is not counted)
        self.interrupt_at: int | None = None  # this play() call (1-based) raises KeyboardInterrupt
        self.compiled = 0

    def tables(self, players: int | None = None, **rules: Any) -> Tables:
        """Tables of these rules without a config (no seat has a skill)."""
        p = self.min_players if players is None else players
        return Tables(p, np.zeros(p, np.int32), self.rules_model(**rules))

    # ---- the protocol

    def compile(self, config: Any) -> Tables:
        self.compiled += 1
        skill = [config.policies[seat].get("skill", 0) for seat in config.seats]
        return Tables(config.players, np.array(skill, dtype=np.int32), config.rules)

    def telemetry_columns(self, tables: Tables) -> list[str]:
        return list(self.telemetry)

    @property
    def deals_teams(self) -> bool:
        return bool(self.teams)

    def team_names(self, tables: Tables) -> tuple[str, ...]:
        return self.teams

    def role_names(self, tables: Tables) -> tuple[str, ...]:
        return self.roles

    def play(self, tables: Tables, seed: int, first_game: int, n_games: int) -> Chunk:
        if n_games < 0:
            raise ValueError(f"n_games must be at least 0, not {n_games}")
        if first_game < 0:
            raise ValueError(f"first_game must be at least 0, not {first_game}")
        if not 0 <= seed < 2**63:
            raise ValueError(f"seed must be in [0, 2**63), not {seed}")
        self.calls += n_games > 0
        if n_games and self.calls == self.interrupt_at:
            raise KeyboardInterrupt
        return self.outcome.play(tables, seed, first_game, n_games)

    def replay(self, tables: Tables, seed: int, game: int) -> Replay:
        c = self.play(tables, seed, game, 1)
        lines = self.outcome.tell(self, tables, seed, game, c)
        return Replay(lines, c.score[0], c.rank[0], int(c.turns[0]), int(c.end_reason[0]))

    def narrate(self, tables: Tables, seed: int, game: int) -> list[str]:
        return self.replay(tables, seed, game).lines

    def impact_variants(self, config: Any) -> list[dict[str, Any]]:
        return [dict(v) for v in self.variants]

    def report_variants(self, config: Any) -> list[dict[str, Any]]:
        return []


# ====================================================================== the configured fakes


PLUGIN = FakeGame()


def write_config(path: Path, *, players: int = 3, games: int = 50, seed: int = 7, **extra: Any):
    """A minimal valid config of ``fake``; returns its path."""
    seats = ["plain", "skilled", "plain", "skilled"][:players]
    return _write(path, "fake", players=players, seats=seats, games=games, seed=seed, **extra)


def _module(name: str, plugin: FakeGame, writer: Callable[..., Path], **names: Any) -> ModuleType:
    """``kit.fake_game.<name>``: a module holding one configured fake as ``PLUGIN`` and its
    ``write_config``, put in sys.modules so that ``games._GAMES[plugin.name] = module.__name__``
    registers it as a game package's ``__init__`` would be."""
    module = ModuleType(f"{__name__}.{name}", plugin.__doc__)
    vars(module).update(PLUGIN=plugin, write_config=writer, **names)
    sys.modules[module.__name__] = module
    return module


def _write_roles(path: Path, *, games: int = 400, seed: int = 0, flip: int = 0, **extra: Any):
    """A valid config of ``fake_roles``; returns its path."""
    return _write(
        path, "fake_roles", players=3, seats=["plain", "plain", "other"], games=games, seed=seed,
        rules={"flip": flip}, **extra,
    )  # fmt: skip


def _write_dealt(path: Path, *, games: int = 1000, seed: int = 3, edge: float = 0.0, late_role=0):
    """A valid config of ``fake_dealt_roles``; returns its path."""
    return _write(
        path, "fake_dealt_roles", players=4, seats="plain", games=games, seed=seed,
        rules={"edge": edge, "late_role": late_role},
    )  # fmt: skip


def _write_tune(path: Path, **rules: Any):
    """A valid config of ``fake_tune`` with these rules; returns its path."""
    return _write(
        path, "fake_tune", players=2, seats="plain", games=4000, seed=3, rules=rules or None
    )


# The same game with one impact variant (the first player's bonus): what the contract test needs
# of a game (tests/games/test_contract.py), that some variant changes the games it plays.
contract = _module(
    "contract",
    FakeGame(
        variants=[
            {"name": "bonus", "description": "first player +1", "patch": {"rules": {"bonus": 1}}}
        ]
    ),
    write_config,
)


def _write_traced(path: Path, *, players: int = 3, games: int = 50, seed: int = 7, **extra: Any):
    """A valid config of ``fake_traced``; returns its path."""
    seats = ["plain", "skilled", "plain", "skilled"][:players]
    return _write(
        path, "fake_traced", players=players, seats=seats, games=games, seed=seed, **extra
    )


# The hashed game with trajectories (the storage of Chunk.trace: tests/test_trace.py).
traced_game = _module(
    "traced",
    FakeGame("fake_traced", outcome=TRACED, rules=TraceRules, trace_measures=TRACE_MEASURES),
    _write_traced,
)
PLAIN = {"plain": PlainPolicy}
roles = _module(
    "roles",
    FakeGame(
        "fake_roles",
        title="Fake Roles Game",
        players=(3, 3),
        end_reasons=("victory", "draw"),
        rules=ScriptRules,
        policy_kinds=PLAIN,
        policies={"plain": {"kind": "plain"}, "other": {"kind": "plain"}},
        outcome=SCRIPTED,
        telemetry=["possessed__seat"],
        teams=TEAMS,
        roles=ROLES,
        variants=[
            {
                "name": "flip",
                "description": "the Family wins game 2",
                "patch": {"rules": {"flip": 1}},
            }
        ],
    ),
    _write_roles,
    TEAMS=TEAMS,
    ROLES=ROLES,
    DOC=DOC,
)
dealt = _module(
    "dealt",
    FakeGame(
        "fake_dealt_roles",
        title="Fake Dealt Roles Game",
        players=(DEALT_PLAYERS, DEALT_PLAYERS),
        end_reasons=("victory",),
        rules=DealtRules,
        policy_kinds=PLAIN,
        policies={"plain": {"kind": "plain"}},
        outcome=DEALT,
        telemetry=[],
        roles=DEALT_ROLES,
    ),
    _write_dealt,
    PLAYERS=DEALT_PLAYERS,
    ROLES=DEALT_ROLES,
)
tune = _module(
    "tune",
    FakeGame(
        "fake_tune",
        title="Fake Tune Game",
        players=(2, 2),
        end_reasons=("win", "draw"),
        rules=TuneRules,
        policy_kinds=PLAIN,
        policies={"plain": {"kind": "plain"}},
        outcome=TUNED,
        telemetry=[],
    ),
    _write_tune,
)


def _write_skill(path: Path, *, games: int = 2000, seed: int = 3, **rules: Any):
    """A config of ``fake_skill`` with rungs ``s0``..``s3`` (skill 0..3) among its policies."""
    policies = {f"s{k}": {"kind": "skilled", "skill": k} for k in range(4)}
    return _write(
        path, "fake_skill", players=SKILL_PLAYERS, seats="s0", games=games, seed=seed,
        rules=rules or None, policies=policies,
    )  # fmt: skip


# The skill ladder's planted games (tests/experiments/test_ladder.py): skill moves the first
# player's edge and each seat's chance by known amounts.
skill = _module(
    "skill",
    FakeGame(
        "fake_skill",
        title="Fake Skill Game",
        players=(SKILL_PLAYERS, SKILL_PLAYERS),
        rules=SkillRules,
        policy_kinds={"plain": PlainPolicy, "skilled": SkilledPolicy},
        policies={"plain": {"kind": "plain"}},
        outcome=SKILLED,
        telemetry=[],
        variants=[
            # no change at all (gain is 0 unless a test sets it): the same games
            {"name": "nothing", "description": "gain 0", "patch": {"rules": {"gain": 0.0}}},
            # the strong first player loses 0.2 of its edge; skill 0 keeps its own
            {
                "name": "turns",
                "description": "edge_high -0.2",
                "patch": {"rules": {"edge_high": -0.2}},
            },
        ],
    ),
    _write_skill,
)
