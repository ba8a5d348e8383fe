"""The plugin protocol that every game implements.

The runner, results, stats and report code only ever talk to a game through this protocol, so a
new game plugs in by adding a folder under ``balance/games/`` and one line to the registry.

A plugin turns a validated config into *tables* (a NamedTuple of numpy arrays, the only thing its
numba kernels see) and plays games ``[first_game, first_game + n_games)`` of a run seeded with
``seed`` into a :class:`Chunk` of outcome arrays. Game ``i`` of seed ``s`` must be the same game
whatever the chunk boundaries or thread count (DESIGN.md, Determinism).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import inspect
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, ClassVar, NamedTuple, Protocol

import numpy as np
from pydantic import BaseModel


@dataclass
class Chunk:
    """Outcomes of ``n`` consecutive games for ``P`` seats, as returned by a game kernel."""

    first_game: int
    score: np.ndarray  # int32[n, P]; final score of each seat
    rank: np.ndarray  # int32[n, P]; 1 = winner; seats that share a place share a rank
    turns: np.ndarray  # int32[n]; game length in turns (all seats' turns)
    end_reason: np.ndarray  # int32[n]; index into GamePlugin.end_reasons
    order: np.ndarray  # int32[n, P]; seat's place in the opening turn order (0 = first player)
    telemetry: np.ndarray  # uint8[n, P, C]; counts, columns named by telemetry_columns()
    extra: dict[str, np.ndarray] = field(default_factory=dict)  # more int32[n, P] columns
    # Games whose sides change during play (Raven Manor: possession) or whose seats are dealt
    # roles also return, per game and seat, the team the seat *ends* on and the role it was
    # dealt, as indices into the plugin's team_names(tables) / role_names(tables). None: the
    # game has no such thing, and the team of a seat comes from the config's ``teams:``.
    team: np.ndarray | None = None  # int32[n, P]
    role: np.ndarray | None = None  # int32[n, P]
    # Telemetry counts are uint8 and saturate at 255; the kernel counts, per telemetry column,
    # the cells it clipped, so that the manifest can say so instead of clipping silently.
    saturated: np.ndarray | None = None  # int64[C]
    # The trajectory of each game (the plugin's trace_measures: docs/rules/<game>.md, How a game
    # went), ragged: game g recorded points[g] points (point 0 the start, one point per round,
    # the last the end), rows trace_start[g] .. + points[g] of trace_rows, each the seats'
    # measures (trace_rows[trace_start[g] + k, p, m]: seat p's measure m at point k); games in
    # order, no gaps. None: the game keeps no trajectory. ``trace`` is the dense game-major view
    # (built on first use), ``trace_cap`` the most points a game of the config can record.
    trace_rows: np.ndarray | None = None  # int16[sum(points), P, K]
    points: np.ndarray | None = None  # int32[n]
    trace_cap: int = 0

    @property
    def n_games(self) -> int:
        return int(self.score.shape[0])

    @property
    def trace_start(self) -> np.ndarray | None:
        """int64[n]: the first row of each game's points in ``trace_rows``."""
        if self.points is None:
            return None
        return np.cumsum(self.points, dtype=np.int64) - self.points

    @functools.cached_property
    def trace(self) -> np.ndarray | None:
        """int16[n, M, P, K], M = trace_cap (or the most points a game recorded): the trajectory
        dense and game-major, trace[g, k] point k of game g, zeros past its points (a copy,
        made once: readers of whole runs read ``trace_rows``)."""
        if self.trace_rows is None or self.points is None:
            return None
        n = self.n_games
        m = max(self.trace_cap, int(self.points.max()) if n else 0)
        out = np.zeros((n, m, *self.trace_rows.shape[1:]), np.int16)
        game = np.repeat(np.arange(n), self.points)
        out[game, point_index(self.points)] = self.trace_rows
        return out


def point_index(points: np.ndarray) -> np.ndarray:
    """int64[sum(points)]: each ragged row's point within its game (0, 1, ..., points[g] - 1
    for each game g in turn)."""
    points = np.asarray(points, np.int64)
    first = np.cumsum(points) - points
    return np.arange(int(points.sum()), dtype=np.int64) - np.repeat(first, points)


def with_trace(chunk: Chunk, trace: np.ndarray, points: np.ndarray) -> Chunk:
    """``chunk`` with trajectories given dense and game-major (int16[n, M, P, K], of which
    ``points[g]`` recorded for game g): the Chunk's ragged rows of them."""
    points = np.asarray(points, np.int32)
    game = np.repeat(np.arange(chunk.n_games), points)
    rows = np.ascontiguousarray(trace[game, point_index(points)], dtype=np.int16)
    return dataclasses.replace(chunk, trace_rows=rows, points=points, trace_cap=trace.shape[1])


class Replay(NamedTuple):
    """One game told in words, with the outcome the kernel gave it (row ``game`` of a dataset)."""

    lines: list[str]
    score: np.ndarray  # int32[P]
    rank: np.ndarray  # int32[P]
    turns: int
    end_reason: int  # index into GamePlugin.end_reasons


class ReportSection(NamedTuple):
    """A section a game adds to the report of a dataset of it (``Game.report_sections``)."""

    key: str  # the section's id on the page: lower-case letters, digits and "-"
    heading: str
    parts: tuple[Any, ...]  # in page order: HTML strings (data already escaped), plotly figures


@dataclass(frozen=True)
class TargetSpec:
    """A figure `balance bench` measures against a threshold (balance/bench.py)."""

    key: str  # "games_per_s", "python_ratio" or "warm_start_s" (see BenchResult.figure)
    label: str
    threshold: float
    at_least: bool  # True: measured >= threshold; False: measured <= threshold
    unit: str


class BenchSpec(NamedTuple):
    """What `balance bench` plays of a game and the targets it must meet (``Game.bench``)."""

    # (label, games/s) the headline line-up must reach on all threads; None: no speed target
    # (and no "longer than an hour" estimate before a long run)
    speed: tuple[str, float] | None = None
    # the player counts its line-ups play (None: min_players and max_players) and the headline's
    # (None: max_players); a game whose base config cannot seat its maximum (Raven Manor: ten
    # starter characters for at most ten players) names its own
    players: tuple[int, ...] | None = None
    headline_players: int | None = None
    # targets every game's kernels must meet (the performance issue's)
    python_ratio: float = 80  # compiled (1 thread) vs plain Python, at least this many times
    warm_start_s: float = 3.0  # `balance simulate` to its first game, at most

    def targets(self) -> tuple[TargetSpec, ...]:
        speed = ()
        if self.speed is not None:
            label, threshold = self.speed
            speed = (TargetSpec("games_per_s", label, threshold, True, "games/s"),)
        return (
            *speed,
            TargetSpec(
                "python_ratio", "compiled (1 thread) vs plain Python", self.python_ratio, True, "x"
            ),
            TargetSpec(
                "warm_start_s", "warm start to first simulated game", self.warm_start_s, False, "s"
            ),
        )


class GamePlugin(Protocol):
    """What a game gives the rest of the tool: exactly what :class:`Game` declares (a test checks
    that the two list the same names). The runner, config, report and bench call these and
    nothing else, directly: an optional hook has its default on ``Game``, so no caller asks
    whether a plugin has it."""

    name: str  # registry key and config ``game:`` value, e.g. "five_ravens"
    title: str  # human name, e.g. "Five Ravens"
    min_players: int
    max_players: int
    rules_model: type[BaseModel]  # pydantic model of the ``rules:`` section
    policy_kinds: dict[str, type[BaseModel]]  # policy kind -> pydantic model of its settings
    default_policies: dict[str, dict[str, Any]]  # ready-made policy names -> settings
    end_reasons: tuple[str, ...]
    trace_measures: tuple[str, ...]  # each seat's measures in a game's trajectory (Chunk.trace)
    outcome_events: tuple[str, ...]  # telemetry events that are outcomes of play, not cards
    bench: BenchSpec  # `balance bench`'s line-ups and targets
    deals_teams: bool  # the game returns each seat's team (Chunk.team), not the config's
    draws_pictures: bool  # replay_page draws this game (``balance replay --html``)

    def check_config(self, config: Any) -> None:
        """The game's checks of a validated RunConfig that need both the line-up and the rules;
        raises KeyConflict or ValueError("<key.path>: <problem>") (balance/config/translate.py)."""

    def compile(self, config: Any) -> Any:
        """Validated RunConfig -> tables (NamedTuple of numpy arrays)."""

    def telemetry_columns(self, tables: Any) -> list[str]:
        """Names of the telemetry columns, ``<event>__<card>``, in Chunk.telemetry order."""

    def team_names(self, tables: Any) -> tuple[str, ...]:
        """Names of the values of ``Chunk.team``; ``()`` when the game returns no teams (each
        seat's team is then the config's ``teams:`` entry, fixed for the whole run)."""

    def role_names(self, tables: Any) -> tuple[str, ...]:
        """Names of the values of ``Chunk.role``; ``()`` when seats are dealt no roles."""

    def role_sides(self) -> dict[str, str]:
        """The side each role starts the game on; {} when every role is on one footing."""

    def describe_policy(self, kind: str) -> str:
        """What a policy of ``kind`` does, in one paragraph; '' for a kind the game lacks."""

    def play(self, tables: Any, seed: int, first_game: int, n_games: int) -> Chunk:
        """Play games [first_game, first_game + n_games) of the run seeded with ``seed``.

        Called with ``n_games == 0`` before a run to load (or compile) the kernels, so that
        start-up is timed apart from simulation. Must return fresh arrays on every call.
        """

    def narrate(self, tables: Any, seed: int, game: int) -> list[str]:
        """Game ``game`` of the run seeded with ``seed``, turn by turn, in words."""

    def replay(self, tables: Any, seed: int, game: int) -> Replay:
        """Game ``game`` of the run seeded with ``seed`` in words, with its outcome: the same
        game as row ``game`` of a dataset of that seed (the contract test checks it)."""

    def replay_page(self, tables: Any, seed: int, game: int) -> str | None:
        """Game ``game`` of the run seeded with ``seed`` as one HTML page of pictures; None:
        the game draws none."""

    def impact_variants(self, config: Any) -> list[dict[str, Any]]:
        """Default variants for ``balance impact``: ``[{name, description, patch}]``, one small
        change per card (a patch merges into the resolved config; balance/experiments.py)."""

    def report_variants(self, config: Any) -> list[dict[str, Any]]:
        """Variants a report of this config always sets beside it, as ``impact_variants``: a rule
        whose worth every reader asks about (The Raven Order: the second player's compensation).
        ``simulate --report`` plays them on the same seeds and games; ``[]`` for none."""

    def report_sections(
        self, manifest: dict[str, Any], rows: Any, *, level: float = 0.95
    ) -> list[ReportSection]:
        """The game's own sections of the report of a dataset; [] for none."""


# The standard modules of a game package, and what each must define (DESIGN.md, Layout). The plugin
# base loads them by these names, so a game folder that lacks one fails at registration, not when
# a command first needs it.
STANDARD_MODULES: dict[str, tuple[str, ...]] = {
    "schema": ("Rules", "DEFAULT_POLICIES"),  # the ``rules:`` and ``policies:`` models
    "tables": ("compile_tables",),  # config -> tables, whose ``.columns`` name the telemetry
    # the layout and the vocabulary every game shares (balance/games/_kit.py's docstring)
    "state": (
        "BLOCK_GAMES",
        "State",
        "alloc_state",
        "Work",
        "alloc_work",
        "emit",
        "END_REASONS",
        "EXTRA_COLUMNS",
        # the decision points (docs/decisions.md, balance/games/position.py)
        "DECISIONS",
        "MAX_OPTIONS",
        "pending",
        "new_state",
        "copy_state",
    ),
    # play_game(tb, st, seed, game, work), play_batch(tb, seed, first_game, n_games, out, b0, b1)
    # (the games of blocks b0 to b1 - 1), play;
    # the decision points: start, advance, legal, apply, and record (an ended game's row)
    "engine": ("play", "play_batch", "play_game", "start", "advance", "legal", "apply", "record"),
    "policies": ("choose",),  # the configured policy's pick at the pending decision
    # what a seat may know; the re-deal; fresh chance for a re-dealt world (the search player)
    "knowledge": ("obs_size", "observe", "determinize", "reseed"),
    # one game played with its log, and told (_tell.py); a log in progress; an option in words
    "narrate": ("play_logged", "tell", "event_lines", "option_words"),
    # the search player: balance/games/_search.py bound to the game (docs/search.md)
    "search": ("play", "search_at", "searching", "play_batch_search"),
    "variants": ("impact_variants", "report_variants"),
}


class GameLayoutError(ImportError):
    """A game package does not have the standard modules (or one lacks a standard name)."""


class Game:
    """Base of the games in ``balance/games/``: a subclass, in the game package's ``__init__.py``,
    holds only the game's data; everything else comes from its standard modules, loaded by name
    on first use (numba is imported by ``engine`` and ``state``, never by ``balance validate`` or
    ``--help``).

    Creating the plugin checks that the package has every standard module (without importing
    them); loading one checks that it defines its standard names (STANDARD_MODULES).

    Every hook the rest of the tool calls is declared here (GamePlugin lists the same): the
    required ones come from the standard modules, the optional ones (``check_config``,
    ``team_names``, ``role_names``, ``role_sides``, ``replay_page``, ``report_sections``,
    ``outcome_events``, ``bench``) have their defaults, which a game overrides. A game that is
    one module rather than a package (the tests' fakes) defines the required hooks itself and
    overrides ``layout_problems``.
    """

    name: ClassVar[str]  # registry key and config ``game:`` value, e.g. "five_ravens"
    title: ClassVar[str]  # human name, e.g. "Five Ravens"
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    policy_kinds: ClassVar[dict[str, type[BaseModel]]]  # kind -> schema model of its settings
    # Telemetry events that describe an outcome of play (a building lost, a unit killed), not a
    # card a seat holds or plays: the report labels them as outcomes, never as card effects.
    outcome_events: ClassVar[tuple[str, ...]] = ()
    # `balance bench`: its line-ups and targets (the defaults: every game's common targets)
    bench: ClassVar[BenchSpec] = BenchSpec()

    def __init__(self) -> None:
        self.package = type(self).__module__
        self._modules: dict[str, ModuleType] = {}
        problems = self.layout_problems()
        if problems:
            raise GameLayoutError(f"game {self.name!r}: " + "; ".join(problems))

    def layout_problems(self) -> list[str]:
        """What the game package lacks of the standard layout (module files only; [] if none)."""
        try:
            missing = [
                f"{m}.py"
                for m in STANDARD_MODULES
                if importlib.util.find_spec(f"{self.package}.{m}") is None
            ]
        except ModuleNotFoundError:  # the plugin is not defined in a package
            return [f"{self.package} is not a package with the standard modules"]
        if not missing:
            return []
        return [
            f"{self.package.replace('.', '/')}/ has no {', '.join(missing)} (every game has "
            f"{', '.join(f'{m}.py' for m in STANDARD_MODULES)}: DESIGN.md, Layout)"
        ]

    def module(self, name: str) -> ModuleType:
        """The game's standard module ``name``, imported on first use and checked."""
        mod = self._modules.get(name)
        if mod is not None:
            return mod
        if name not in STANDARD_MODULES:
            raise KeyError(
                f"{name!r} is not a standard game module ({', '.join(STANDARD_MODULES)})"
            )
        mod = importlib.import_module(f"{self.package}.{name}")
        lacking = [a for a in STANDARD_MODULES[name] if not hasattr(mod, a)]
        if lacking:
            raise GameLayoutError(
                f"game {self.name!r}: {mod.__name__} does not define {', '.join(lacking)}"
            )
        self._modules[name] = mod
        return mod

    @property
    def end_reasons(self) -> tuple[str, ...]:
        """Names of the values of ``Chunk.end_reason``: the game's ``state.END_REASONS``, where
        its kernels' ``END_*`` codes are (a one-module game, the tests' fakes, sets its own)."""
        return tuple(self.module("state").END_REASONS)

    @property
    def trace_measures(self) -> tuple[str, ...]:
        """Names of each seat's measures at each point of ``Chunk.trace``, the first its standing
        (the game's ``state.TRACE_MEASURES``; ``()``: the game keeps no trajectory)."""
        return tuple(getattr(self.module("state"), "TRACE_MEASURES", ()))

    @property
    def rules_model(self) -> type[BaseModel]:
        return self.module("schema").Rules

    @property
    def default_policies(self) -> dict[str, dict[str, Any]]:
        return self.module("schema").DEFAULT_POLICIES

    def compile(self, config: Any) -> Any:
        """The config's tables; with search seats, the tables of its rollout policies and the
        search settings beside them (balance/search.py), so a config without a search seat
        compiles no search code."""
        from balance.search import compile_search

        searched = compile_search(self, config)
        if searched is not None:
            return searched
        return self.module("tables").compile_tables(config)

    def telemetry_columns(self, tables: Any) -> list[str]:
        return list(tables.columns)

    def team_names(self, tables: Any) -> tuple[str, ...]:
        return ()

    @property
    def deals_teams(self) -> bool:
        """Whether the game names its own teams (it overrides ``team_names``: Raven Manor's
        possession), rather than taking each seat's from the config's ``teams:``."""
        return type(self).team_names is not Game.team_names

    @property
    def draws_pictures(self) -> bool:
        """Whether the game draws replay pictures (it overrides ``replay_page``)."""
        return type(self).replay_page is not Game.replay_page

    def check_config(self, config: Any) -> None:
        """The game's own checks of keys that need both the line-up and the rules (Raven Manor: a
        character for every player), called with the validated RunConfig: raise KeyConflict or
        ValueError("<key.path>: <problem>") with paths from the top (``rules.deck``). None (the
        default): the schema's checks are all."""
        return None

    def role_sides(self) -> dict[str, str]:
        """The side each role starts the game on, for a game whose roles belong to sides (Raven
        Manor: the Raven's side and the Family's); the verdict compares a role with the other
        roles of its side. {} when every role is on one footing (Corvids' birds)."""
        return {}

    def describe_policy(self, kind: str) -> str:
        """What a policy of ``kind`` does, in one paragraph: its settings model's docstring (the
        report says which players produced its numbers); '' for a kind the game does not have."""
        model = self.policy_kinds.get(kind)
        doc = inspect.getdoc(model) if model is not None else None
        words = " ".join((doc or "").split("\n\n")[0].split())
        # sentences that name the code (``tables.BASIC_WEIGHTS``) are for developers
        return " ".join(x for x in re.split(r"(?<=\.) ", words) if "``" not in x)

    def role_names(self, tables: Any) -> tuple[str, ...]:
        return ()

    def play(self, tables: Any, seed: int, first_game: int, n_games: int) -> Chunk:
        from balance.search import SearchTables, play_params

        if isinstance(tables, SearchTables):
            search = self.module("search")
            return search.play(tables.inner, play_params(tables), seed, first_game, n_games)
        return self.module("engine").play(tables, seed, first_game, n_games)

    def replay(self, tables: Any, seed: int, game: int) -> Replay:
        """The game played again with its event log (``narrate.play_logged``) and told
        (``narrate.tell``), with a warning under the lines for each place where the narration
        disagrees with the engine (balance/games/_tell.py)."""
        from balance.games._tell import warnings
        from balance.search import SearchTables, reason_lines
        from balance.search import play_logged as search_logged

        narrate = self.module("narrate")
        reasons: list[str] = []
        if isinstance(tables, SearchTables):  # the search seats' own game, and why they chose
            searched = search_logged(self, tables, seed, game)
            logged, reasons = searched.logged, reason_lines(searched, tables)
            tables = tables.inner
        else:
            logged = narrate.play_logged(tables, seed, game)
        told = narrate.tell(tables, logged, seed, game)
        return Replay(
            [*told.lines, *warnings(told.problems), *reasons],
            logged.score,
            logged.rank,
            logged.turns,
            logged.end_reason,
        )

    def narrate(self, tables: Any, seed: int, game: int) -> list[str]:
        return self.replay(tables, seed, game).lines

    def impact_variants(self, config: Any) -> list[dict[str, Any]]:
        return self.module("variants").impact_variants(config)

    # A game draws what only it can by overriding these (the defaults: nothing to draw).

    def replay_page(self, tables: Any, seed: int, game: int) -> str | None:
        """Game ``game`` of the run seeded with ``seed`` as one self-contained HTML page of
        pictures (``balance replay --html``), the same game as ``replay``; None: this game draws
        no pictures (the default)."""
        return None

    def report_sections(
        self, manifest: dict[str, Any], rows: Any, *, level: float = 0.95
    ) -> list[ReportSection]:
        """The game's own sections of the report of a dataset (its ``manifest`` and rows, a
        polars LazyFrame), shown after the score and length distributions; every number in
        them with its ``level`` interval. [] (the default): none."""
        return []

    def report_variants(self, config: Any) -> list[dict[str, Any]]:
        return self.module("variants").report_variants(config)


def check_handicap(players: int, handicap: Sequence[int]) -> None:
    """A scored game's ``rules.handicap`` (points per place in the turn order, FR-14 / CV-7) has
    at most one entry per place: KeyConflict naming both keys (``players`` and the handicap may
    come from different files)."""
    from balance.errors import KeyConflict

    if len(handicap) > players:
        raise KeyConflict(
            {
                "rules.handicap": f"{len(handicap)} entries, one per place in the turn order, are"
                f" more than the {players} players",
                "players": f"{players} players have {players} places in the turn order;"
                f" rules.handicap gives {len(handicap)}",
            }
        )
