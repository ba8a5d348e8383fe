"""One game, decision by decision: the Python face of every game's decision-point interface.

Every engine is a sequence of decision points (docs/decisions.md): at each one a seat must pick one
of an enumerated list of legal options (int64 codes, at most ``state.MAX_OPTIONS``); between them
the engine plays chance and every forced step. The compiled interface, the same names in every
game, is

- ``state.pending(st) -> (actor, kind)``, ``state.DECISIONS`` (the kinds' names),
  ``state.MAX_OPTIONS``, ``state.alloc_state(tb, log_cap)`` (and ``state.new_state(tb,
  log_cap)``, its Python entry), ``state.copy_state(src, dst)``;
- ``engine.start(tb, st, seed, game, work)``, ``engine.advance(tb, st, work) -> actor or -1``,
  ``engine.legal(tb, st, work, opts) -> n``, ``engine.apply(tb, st, work, code)``,
  ``engine.record(tb, st, work, g, score, rank, turns, end, order, team, role, extra, tele,
  clipped)`` (an ended game's dataset row), and the batch kernel's ``play_game``, which is
  ``start``, then ``apply(choose)`` at every point ``advance`` stops at;
- ``policies.choose(tb, st, work) -> code``: what the acting seat's configured policy picks;
- ``knowledge.obs_size(tb)``, ``knowledge.observe(tb, st, seat, obs)`` and
  ``knowledge.determinize(tb, st, seat, rng)``: what a seat may know, and a world re-dealt
  consistently with it;
- ``narrate.option_words(compiled, st, code)`` and ``narrate.event_lines(compiled, log)``.

:class:`Position` wraps them for Python callers (the environments of balance/envs.py, tests,
notebooks): it checks every code it is given against the legal list, so a bad code is a
ValueError, never a corrupted game. The state is a handful of flat arrays, so ``copy()`` is cheap
and a copy resumes from the same decision. Played with the configured policies at every point,
a Position is the very game the batch kernel plays for the same ``(seed, game)``: ``row()`` is
then the dataset's row (the tests hold every game to it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from balance import rng as streams
from balance.games import _kit as kit
from balance.games.base import Chunk


class Shape:
    """What the rest of a game's outputs look like, from its batch kernel's empty chunk."""

    def __init__(self, game: Any, compiled: Any) -> None:
        empty: Chunk = game.play(compiled, 0, 0, 0)
        self.players = int(empty.score.shape[1])
        self.n_tele = int(empty.telemetry.shape[2])
        self.extra_names = tuple(empty.extra)
        self.team = empty.team is not None
        self.role = empty.role is not None
        self.obs_size = int(game.module("knowledge").obs_size(compiled.tb))
        # the trajectory's room (state.trace_cap) and measures, as the batch allocates them
        self.n_measures = len(game.trace_measures)
        self.trace_cap = int(game.module("state").trace_cap(compiled.tb)) if self.n_measures else 0


class Position:
    """Game ``game`` of run ``seed`` of ``compiled`` (a game's compiled config), stopped at its
    next decision (or ended). ``log_cap`` > 0 keeps that many event-log rows (``events``);
    ``replay`` keeps what the game's HTML replay draws (Corvids' pile after every turn)."""

    def __init__(
        self,
        game: Any,
        compiled: Any,
        seed: int = 0,
        game_index: int = 0,
        *,
        log_cap: int = 0,
        teams: Sequence[str] | None = None,
        replay: bool = False,
        _state: Any = None,
        _shape: Shape | None = None,
    ) -> None:
        kit.check_replay(seed, game_index)
        self.game = game
        self.compiled = compiled
        self.seed = int(seed)
        self.game_index = int(game_index)
        self.log_cap = int(log_cap)
        self.teams = None if teams is None else tuple(teams)  # the config's, for ``wins``
        self._S = game.module("state")
        self._E = game.module("engine")
        self._P = game.module("policies")
        self._K = game.module("knowledge")
        self._shape = _shape
        self._obs_size: int | None = None if _shape is None else _shape.obs_size
        tb = compiled.tb
        self._tb = tb
        self.work = self._S.alloc_work(tb)
        self._opts = np.zeros(int(self._S.MAX_OPTIONS), np.int64)
        # a replay's State: what the game's HTML replay draws too (Corvids' pile after every
        # turn), where its state.py has ``new_replay_state``
        make = getattr(self._S, "new_replay_state", None) if replay else None
        self.state = (make or self._S.new_state)(tb, self.log_cap)
        if _state is None:
            self._E.start(tb, self.state, np.int64(self.seed), np.int64(self.game_index), self.work)
            self._E.advance(tb, self.state, self.work)
        else:
            self._S.copy_state(_state, self.state)

    # ------------------------------------------------------------ where the game stands

    @property
    def actor(self) -> int:
        """The seat that must decide, or -1 once the game is over."""
        return int(self._S.pending(self.state)[0])

    @property
    def kind(self) -> str:
        """The name of the pending decision's kind (``state.DECISIONS``), "" once over."""
        k = int(self._S.pending(self.state)[1])
        return self._S.DECISIONS[k] if k >= 0 else ""

    @property
    def done(self) -> bool:
        return self.actor < 0

    def options(self) -> np.ndarray:
        """The legal option codes of the pending decision, in the game's canonical order
        (empty once the game is over)."""
        if self.done:
            return np.zeros(0, np.int64)
        n = int(self._E.legal(self._tb, self.state, self.work, self._opts))
        return self._opts[:n].copy()

    def words(self, code: int) -> str:
        """Option ``code`` of the pending decision in a few words."""
        return self.game.module("narrate").option_words(self.compiled, self.state, int(code))

    # ------------------------------------------------------------ moving on

    def apply(self, code: int) -> None:
        """Carry out option ``code`` (one of ``options()``), then play on to the next decision."""
        if self.done:
            raise ValueError("the game is over: there is no decision to apply an option to")
        legal = self.options()
        if int(code) not in legal:
            raise ValueError(
                f"{int(code)} is not a legal option of this {self.kind} decision "
                f"(seat {self.actor}; legal: {', '.join(str(int(c)) for c in legal)})"
            )
        self._E.apply(self._tb, self.state, self.work, np.int64(code))
        self._E.advance(self._tb, self.state, self.work)

    def choose(self) -> int:
        """The code the acting seat's configured policy picks here. It draws that seat's random
        stream as the batch kernel would (and may note a plan in the state), so call it to play
        its answer (``apply``), not to peek: use ``copy().choose()`` for that."""
        if self.done:
            raise ValueError("the game is over: there is no decision to choose")
        return int(self._P.choose(self._tb, self.state, self.work))

    def play_policy(self) -> int:
        """Play the configured policy's choice at the pending decision; returns its code."""
        code = self.choose()
        self._E.apply(self._tb, self.state, self.work, np.int64(code))
        self._E.advance(self._tb, self.state, self.work)
        return code

    def play_out(self) -> None:
        """Play the configured policies at every decision until the game is over."""
        while not self.done:
            self.play_policy()

    # ------------------------------------------------------------ copies and hidden information

    def copy(self) -> Position:
        """An independent copy that resumes from the same decision."""
        return Position(
            self.game,
            self.compiled,
            self.seed,
            self.game_index,
            log_cap=self.log_cap,
            teams=self.teams,
            _state=self.state,
            _shape=self.shape,
        )

    def observe(self, seat: int) -> np.ndarray:
        """int32[obs_size]: everything seat ``seat`` may know, in the game's documented flat
        encoding (knowledge.py)."""
        self._check_seat(seat)
        obs = np.zeros(self.obs_size, np.int32)
        self._K.observe(self._tb, self.state, np.int64(seat), obs)
        return obs

    @property
    def obs_size(self) -> int:
        if self._obs_size is None:
            self._obs_size = self.shape.obs_size
        return self._obs_size

    def determinize(self, seat: int, seed: int) -> Position:
        """A copy in which everything seat ``seat`` cannot know is re-dealt consistently with
        what it knows, and every random stream re-seeded, from the stream keyed by ``seed``
        alone (never the game's own streams)."""
        self._check_seat(seat)
        out = self.copy()
        stream = np.zeros(1, np.uint64)
        streams.seed_stream(stream, np.int64(seed), np.int64(0), np.int64(0))
        self._K.determinize(self._tb, out.state, np.int64(seat), stream)
        return out

    def _check_seat(self, seat: int) -> None:
        if not 0 <= int(seat) < self.players:
            raise ValueError(f"seat must be in 0..{self.players - 1}, got {seat}")

    # ------------------------------------------------------------ the outcome

    @property
    def shape(self) -> Shape:
        """The output shapes (and observation size), worked out once per game and its copies."""
        if self._shape is None:
            self._shape = Shape(self.game, self.compiled)
        return self._shape

    @property
    def players(self) -> int:
        return self.shape.players

    def row(self) -> Chunk:
        """The ended game as the batch kernel's one-game Chunk: the dataset's row of every seat."""
        if not self.done:
            raise ValueError("the game is not over yet")
        sh = self.shape
        out = kit.alloc_outputs(
            1,
            sh.players,
            sh.n_tele,
            1,
            len(sh.extra_names),
            team=sh.team,
            role=sh.role,
            trace_cap=sh.trace_cap,
            n_measures=sh.n_measures,
        )
        score, rank, turns, end, order, team, role, extra, tele, clipped, trace, points = out
        self._E.record(
            self._tb,
            self.state,
            self.work,
            np.int64(0),
            score,
            rank,
            turns,
            end,
            order,
            team,
            role,
            extra,
            tele,
            clipped[0],
        )
        self._E.record_trace(self._tb, self.state, self.work, np.int64(0), trace, points)
        return kit.to_chunk(out, self.game_index, sh.extra_names, team=sh.team, role=sh.role)

    def wins(self) -> np.ndarray:
        """float64[P]: each seat's ``win`` value of the ended game (1, 1/k of a shared win, 0),
        with the teams the game deals or, if it deals none, the config's ``teams``."""
        from balance.results.rows import team_codes, win_values

        chunk = self.row()
        teams = self.teams or [str(s) for s in range(self.players)]
        team, _ = team_codes(chunk, teams, self.game.team_names(self.compiled))
        return win_values(chunk.rank, team)[0][0]

    def events(self) -> list[str]:
        """The game so far in words (the event log; needs ``log_cap`` > 0)."""
        log = self._S.log_rows(self.state)
        return self.game.module("narrate").event_lines(
            self.compiled, log, self.seed, self.game_index
        )
