"""How a game is taken, decision by decision: turns per seat, dead turns and kingmaking.

A *census* plays a sample of a run's games again one decision at a time through the
decision-point interface (balance/games/position.py: the very games of the dataset, same seed and
index) and keeps, for every seat of every game:

- ``turns``: the turns it took (the game's own turn count, the dataset's ``turns`` summed over
  the seats; a turn is the seat's whose turn it is, whoever else decides during it);
- ``dead_turns``: its turns in which it had no choice: no decision of its own during the turn
  offered more than one legal option (a turn without any decision, a stunned or skipped one, is
  dead too);
- ``decisions`` and ``forced``: its decisions, and those with a single legal option;
- ``tested`` and ``kingmaking``: its decisions tested for kingmaking, and those found to be.

**Kingmaking** (the issue's definition: a seat that cannot win changes one decision and the
winner changes). A decision of seat *s* is tested when *s* did not win the game, the decision
offered *s* a choice, and it came in the last ``window`` of the game's decisions (kingmaking is
an end-game act; testing every decision would replay each game hundreds of times). The option
played and up to ``max_alternatives`` others (drawn from a stream of the census's own) are each
applied to a copy of the game at that decision, and each copy is played to its end by the
configured policies ``replays`` times, every chance stream re-seeded each time
(``knowledge.reseed``, from the census's own streams, the same seeds for every option: common
random numbers). The decision is *kingmaking* when

- *s* wins in none of these games (it cannot win from here, whatever it picks), and
- under each option the winners are the same in all its replays (after this choice, chance no
  longer decides who wins), and they differ between two options (this choice does).

So a choice whose only effect is to change what chance deals next (another card drawn, another
shuffle) is not kingmaking: only a choice that settles, by itself, which other seat wins.

Nothing here is a statistic; balance/stats/census.py summarises the frame with intervals.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import polars as pl

from balance.errors import BalanceError

WINDOW = 1.0 / 3.0  # kingmaking: the last third of a game's decisions are tested
MAX_ALTERNATIVES = 4  # other options tried at a tested decision, at most
REPLAYS = 3  # games played from each option of a tested decision, chance re-seeded each time
# bounds of the options: a census replays in Python, a fraction of a second a game
MAX_GAMES, MAX_TRIED, MAX_REPLAYS = 100_000, 64, 100
CENSUS_STREAM = 0x5EED_CE45  # numpy seed salt of the census's own draws (which options to try)

# the kingmaking tests of each game by the kind of decision tested (state.DECISIONS' names)
KINDS_SCHEMA = {"game": pl.Int64, "kind": pl.String, "tested": pl.Int64, "kingmaking": pl.Int64}

COLUMNS = (
    "game",
    "seat",
    "order",
    "won",
    "turns",
    "dead_turns",
    "decisions",
    "forced",
    "tested",
    "kingmaking",
)


class Settings(NamedTuple):
    """How a census tests kingmaking (module docstring): whether it does, on which last share of
    each game's decisions, with how many other options and replays of each."""

    kingmaking: bool = True
    window: float = WINDOW
    max_alternatives: int = MAX_ALTERNATIVES
    replays: int = REPLAYS

    def plain(self) -> Settings:
        """The same settings as plain Python values (a file's provenance; numpy's ints and
        floats do not go to JSON)."""
        return Settings(
            bool(self.kingmaking), float(self.window), int(self.max_alternatives), int(self.replays)
        )

    def check(self) -> None:
        """One line naming the option (the command's flag) that is out of its bounds."""
        for flag, value, top in (
            ("--alternatives", self.max_alternatives, MAX_TRIED),
            ("--replays", self.replays, MAX_REPLAYS),
        ):
            if not 1 <= value <= top:
                raise BalanceError(f"{flag} {value}: must be between 1 and {top:,}")
        if not 0.0 < self.window <= 1.0:
            raise BalanceError(f"--window {self.window}: must be in (0, 1]")


DEFAULT = Settings()  # the command's defaults


@dataclass(frozen=True)
class _Turns:
    """Where a game's state says whose turn it is: the board's turn counter and, for a game
    that logs each turn's start (``E_TURN``, seat in column 1), the log."""

    counter: int  # board index of the turn counter
    e_turn: int  # the E_TURN event code, -1 when the game logs none
    board: Any  # state -> its board array
    log: Any  # state -> (log rows array, first row, rows written)


def _turns_of(game: str) -> _Turns:
    import importlib

    S = importlib.import_module(f"balance.games.{game}.state")
    if game == "five_ravens":  # FR-5: a Mission turn is counted when its seat starts it
        return _Turns(S.G_TURNS, -1, lambda st: st.r.board, None)
    return _Turns(
        S.G_TURN,
        int(S.E_TURN),
        lambda st: st.board,
        lambda st: _log(S, st),
    )


def _log(S: Any, st: Any) -> tuple[np.ndarray, int, int]:
    """(rows, first row, rows written) of a state's event log: its own array, or rows of its
    ``aux`` from ``G_LOG0`` (The Raven Order)."""
    if hasattr(st, "log"):
        return st.log, 0, int(st.board[S.G_LOG_N])
    return st.aux, int(st.board[S.G_LOG0]), int(st.board[S.G_LOG_N])


LOG_CAP = 1 << 14  # event-log rows a census game keeps (the turns' starts are read from it)


class TurnWatch:
    """Whose turns start as a game goes on, read from its state (:func:`_turns_of`): the seats
    whose turns started before the first decision (``opened``) and during one step, the
    decision of ``actor`` and the engine's play to the next one (``stepped``)."""

    def __init__(self, game: str) -> None:
        self.how = _turns_of(game)
        self.log_n = 0
        self.before = 0

    @property
    def decision_opens_turn(self) -> bool:
        """A turn starts with its seat's decision (Five Ravens' Mission turn), not before it."""
        return self.how.e_turn < 0

    @property
    def log_cap(self) -> int:
        return LOG_CAP if self.how.e_turn >= 0 else 0

    def _starts(self, pos: Any) -> list[int]:
        rows, row0, n = self.how.log(pos.state)
        if n >= LOG_CAP:
            raise BalanceError(
                f"game {pos.game_index}: more than {LOG_CAP:,} events; a census cannot follow it"
            )
        new = rows[row0 + self.log_n : row0 + n]
        self.log_n = n
        return [int(r[1]) for r in new if int(r[0]) == self.how.e_turn]

    def opened(self, pos: Any) -> list[int]:
        return self._starts(pos) if self.how.e_turn >= 0 else []

    def stepping(self, pos: Any) -> None:
        self.before = int(self.how.board(pos.state)[self.how.counter])

    def stepped(self, pos: Any, actor: int) -> list[int]:
        if self.how.e_turn >= 0:
            return self._starts(pos)
        # Five Ravens: the decision that starts a Mission turn is its seat's
        return [actor] * (int(self.how.board(pos.state)[self.how.counter]) - self.before)


def census_game(
    plugin: Any,
    compiled: Any,
    seed: int,
    game: int,
    settings: Settings = DEFAULT,
    *,
    teams: Any = None,
) -> dict[str, np.ndarray]:
    """The census of game ``game`` of run ``seed``: one array of P values per column."""
    from balance.games.position import Position

    watch = TurnWatch(plugin.name)
    pos = Position(plugin, compiled, seed, game, log_cap=watch.log_cap, teams=teams)
    return census_of(pos, watch, seed, game, settings)


def census_of(
    pos: Any,
    watch: Any,
    seed: int,
    game: int,
    settings: Settings = DEFAULT,
) -> dict[str, np.ndarray]:
    """The census of the game ``pos`` (a Position at its start, or anything with its methods)
    whose turns ``watch`` follows (a :class:`TurnWatch`)."""
    kingmaking, window, max_alternatives, replays = settings
    P = pos.players
    turns = np.zeros(P, np.int64)
    dead = np.zeros(P, np.int64)
    decisions = np.zeros(P, np.int64)
    forced = np.zeros(P, np.int64)
    owner = -1  # whose turn it is
    chose = False  # the owner had a choice in this turn so far
    stops: list[tuple[Any, int, int, np.ndarray, str]] = []  # (copy, actor, code, options, kind)

    def begin(seats: list[int]) -> None:
        nonlocal owner, chose
        for s in seats:  # turns that started and ended within one step had no decision
            if owner >= 0:
                turns[owner] += 1
                dead[owner] += not chose
            owner, chose = s, False

    begin(watch.opened(pos))
    while not pos.done:
        actor = pos.actor
        kind = pos.kind
        opts = pos.options()
        decisions[actor] += 1
        forced[actor] += len(opts) == 1
        at = pos.copy() if kingmaking and len(opts) > 1 else None
        watch.stepping(pos)
        code = pos.play_policy()
        if at is not None:
            stops.append((at, actor, code, opts, kind))
        started = watch.stepped(pos, actor)
        if watch.decision_opens_turn:  # the decision belongs to the turn it starts
            begin(started)
        if actor == owner and len(opts) > 1:
            chose = True
        if not watch.decision_opens_turn:  # turns that start after it
            begin(started)
    begin([-1])
    row = pos.row()
    won = pos.wins()
    tested = np.zeros(P, np.int64)
    king = np.zeros(P, np.int64)
    kinds: dict[str, list[int]] = {}  # decision kind -> [tested, kingmaking]
    if kingmaking:
        winners = won > 0
        first = int(np.floor(len(stops) * (1.0 - window))) if stops else 0
        draw = np.random.default_rng([CENSUS_STREAM, seed, game])
        for at, actor, code, opts, kind in stops[first:]:
            if winners[actor]:
                continue
            others = opts[opts != code]
            if len(others) > max_alternatives:
                others = draw.choice(others, max_alternatives, replace=False)
            made = _kingmaking(at, actor, [code, *others], draw, replays)
            tested[actor] += 1
            king[actor] += made
            counts = kinds.setdefault(kind, [0, 0])
            counts[0] += 1
            counts[1] += made
    return {
        "game": np.full(P, game, np.int64),
        "seat": np.arange(P, dtype=np.int64),
        "order": row.order[0].astype(np.int64),
        "won": won.astype(np.float64),
        "turns": turns,
        "dead_turns": dead,
        "decisions": decisions,
        "forced": forced,
        "tested": tested,
        "kingmaking": king,
        "kinds": kinds,  # type: ignore[dict-item]
    }


def _kingmaking(
    at: Any, actor: int, codes: list[int], draw: np.random.Generator, replays: int
) -> bool:
    """Whether the decision of ``actor`` at ``at`` (a Position) is kingmaking (module docstring):
    each option of ``codes`` (the one played first) played to the end ``replays`` times with
    chance re-seeded from the same census seeds. Stops as soon as the answer is known: most
    decisions fail at the played option, whose winner chance still moves."""
    seeds = draw.integers(0, 1 << 62, replays)
    outcomes: set[bytes] = set()
    for code in codes:
        seen: bytes | None = None
        for r in range(replays):
            branch = at.copy()
            branch.apply(int(code))
            if not branch.done:
                reseed(branch, int(seeds[r]))
            branch.play_out()
            w = branch.wins() > 0
            if w[actor]:
                return False  # it can still win from here
            key = w.tobytes()
            if seen is not None and key != seen:
                return False  # chance, not this choice, decides the winner
            seen = key
        outcomes.add(seen or b"")
    return len(outcomes) > 1


def reseed(pos: Any, seed: int) -> None:
    """Every chance stream of ``pos`` (and its seats' policy streams) seeded again from the
    census's ``seed`` (``knowledge.reseed``, as the search's ``redeal_every`` does): the same
    game from here with fresh chance. A stand-in game (tests) brings its own ``reseed``."""
    if hasattr(pos, "reseed"):
        pos.reseed(seed)
        return
    from balance import rng as streams

    stream = np.zeros(1, np.uint64)
    streams.seed_stream(stream, np.int64(seed), np.int64(0), np.int64(0))
    pos.game.module("knowledge").reseed(pos.compiled.tb, pos.state, stream)


def censusable(config: Any) -> tuple[Any, Any]:
    """(plugin, compiled tables) of a config a census can replay; one line when it cannot (a
    game without decision points, a line-up with search seats)."""
    from balance import games as registry

    plugin = registry.get(config.game)
    try:
        _turns_of(config.game)
    except (ImportError, AttributeError):
        raise BalanceError(
            f"{config.game}: a census steps through a game's decision points "
            "(docs/decisions.md), which this game does not expose"
        ) from None
    compiled = plugin.compile(config)
    if hasattr(compiled, "inner"):  # search.SearchTables
        raise BalanceError(
            f"{config.game}: a census replays the configured policies decision by decision; "
            "this config has search seats (each of their decisions is a search): take the "
            "census of its non-search players"
        )
    return plugin, compiled


def census(
    config: Any,
    seed: int,
    games: range,
    settings: Settings = DEFAULT,
    *,
    progress: Any = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The census of games ``games`` of run ``seed`` of ``config`` (a validated config): one row
    per game and seat (:data:`COLUMNS`), and one per game and decision kind with a decision
    tested for kingmaking (:data:`KINDS_SCHEMA`)."""
    plugin, compiled = censusable(config)
    teams = getattr(config, "teams", None)
    parts: dict[str, list[np.ndarray]] = {c: [] for c in COLUMNS}
    kinds: list[tuple[int, str, int, int]] = []
    for i, g in enumerate(games):
        one = census_game(plugin, compiled, seed, g, settings, teams=teams)
        for c in COLUMNS:
            parts[c].append(one[c])
        kinds += [(g, k, t, m) for k, (t, m) in sorted(one["kinds"].items())]
        if progress is not None:
            progress(i + 1, len(games))
    frame = pl.DataFrame({c: np.concatenate(parts[c]) if parts[c] else [] for c in COLUMNS})
    return frame, pl.DataFrame(kinds, schema=KINDS_SCHEMA, orient="row")


# ============================================================================= the census file

CENSUS_FILE = "census.parquet"  # a results directory's census (``balance census RESULTS``)
META_KEY = b"balance.census"


class Census(NamedTuple):
    """A census with its provenance: the frame (:data:`COLUMNS`) and what produced it."""

    frame: pl.DataFrame
    kinds: pl.DataFrame  # KINDS_SCHEMA: the tested decisions by kind, game by game
    game: str
    seed: int
    games: int
    seats: tuple[str, ...]  # each seat's policy: the players
    config_hash: str
    settings: Settings

    @property
    def kingmaking(self) -> bool:
        """Whether kingmaking was tested (else the census counts turns only)."""
        return self.settings.kingmaking

    def meta(self) -> dict[str, Any]:
        """The file's provenance: the fields, the settings' flat (the file's keys)."""
        out = {k: v for k, v in self._asdict().items() if k not in ("frame", "kinds", "settings")}
        return {**out, **self.settings._asdict(), "kinds": self.kinds.rows()}


def results_run(path: Path, games: int, seed: int | None) -> tuple[Any, int]:
    """(config, seed) of the run of results directory ``path`` whose games 0 to ``games`` - 1
    a census replays; one line when it holds fewer games or a seed is given."""
    from balance import runs
    from balance.results import read_manifest

    if seed is not None:
        raise BalanceError(
            f"--seed {seed}: {path}'s games are of its run's seed; give a CONFIG file to take "
            "the census of another seed's games"
        )
    config, seed = runs.recorded_run(path)
    done = int(read_manifest(path).get("games_done") or 0)
    if games > done:
        raise BalanceError(f"--games {games:,}: {path} holds {done:,} games")
    return config, seed


def take_census(
    config: Any, seed: int, games: int, settings: Settings = DEFAULT, *, progress: Any = None
) -> Census:
    """The census of games 0 to ``games`` - 1 of run ``seed`` of ``config``."""
    from balance.config.model import config_hash
    from balance.runner.play import _check_seed

    _check_seed(seed)
    if not 1 <= games <= MAX_GAMES:
        raise BalanceError(f"--games {games}: must be between 1 and {MAX_GAMES:,}")
    settings.check()
    frame, kinds = census(config, seed, range(games), settings, progress=progress)
    return Census(
        frame,
        kinds,
        config.game,
        int(seed),
        int(games),
        tuple(str(s) for s in config.seats),
        config_hash(config),
        settings.plain(),
    )


def check_out(out: Path, source: Path) -> Path:
    """Refuse ``--out`` now, before any game is replayed, when it cannot or must not be written
    (balance/outputs.py: a directory, a FIFO, the config read, a file of a results
    directory...), or is not a ``.parquet`` file."""
    from balance.outputs import check_output_file

    if out.suffix != ".parquet":
        raise BalanceError(f"--out {out}: a census file ends in .parquet")
    inputs = {} if source.is_dir() else {source: "the config"}
    return check_output_file(out, "--out", inputs=inputs, suggest=CENSUS_FILE)


def write_census(c: Census, path: str | os.PathLike[str]) -> Path:
    """``path`` (a ``.parquet`` file): the frame, its provenance and its kingmaking by kind in
    the file's metadata; written whole or not at all (outputs.write_atomic)."""
    import io

    import pyarrow.parquet as pq

    from balance.outputs import write_atomic

    table = c.frame.to_arrow()
    table = table.replace_schema_metadata({META_KEY: json.dumps(c.meta()).encode()})
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return write_atomic(path, buffer.getvalue())


def read_census(path: str | os.PathLike[str]) -> Census:
    """A census file written by :func:`write_census`; one line naming the file otherwise."""
    import pyarrow.parquet as pq

    path = Path(path)
    try:
        table = pq.read_table(path)
        meta = json.loads((table.schema.metadata or {})[META_KEY])
        frame = pl.from_arrow(table)
        assert isinstance(frame, pl.DataFrame)
        missing = [c for c in COLUMNS if c not in frame.columns]
        if missing:
            raise KeyError(missing[0])
        kinds = pl.DataFrame([tuple(r) for r in meta["kinds"]], schema=KINDS_SCHEMA, orient="row")
        return Census(
            frame.select(COLUMNS),
            kinds,
            str(meta["game"]),
            int(meta["seed"]),
            int(meta["games"]),
            tuple(meta["seats"]),
            str(meta["config_hash"]),
            Settings(
                meta["kingmaking"], meta["window"], meta["max_alternatives"], meta["replays"]
            ).plain(),
        )
    except FileNotFoundError:
        raise BalanceError(f"{path}: no such census file") from None
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise BalanceError(
            f"{path}: not a census file written by `balance census` ({type(e).__name__}: {e})"
        ) from None


def run_census(path: str | os.PathLike[str], manifest: dict[str, Any]) -> Census | None:
    """The census of the run whose results directory is ``path`` (its ``census.parquet``),
    None when none was taken; one line when the file is of another run (config or seed)."""
    file = Path(path) / CENSUS_FILE
    if not file.exists():
        return None
    c = read_census(file)
    if c.config_hash != manifest.get("config_hash") or c.seed != manifest.get("seed"):
        raise BalanceError(
            f"{file}: a census of another run (seed {c.seed}, config {c.config_hash}); take "
            f"this run's with `balance census {path}`"
        )
    return c


def census_results(
    path: str | os.PathLike[str], games: int, settings: Settings = DEFAULT, *, progress: Any = None
) -> tuple[Census, bool]:
    """The census of games 0 to ``games`` - 1 of the results directory ``path``, written to its
    ``census.parquet`` (as ``balance census RESULTS`` does), and whether it was kept: a census
    already there of the same run, games and settings is not taken again (a sweep resumed)."""
    from balance.results import read_manifest

    path = Path(path)
    try:
        earlier = run_census(path, read_manifest(path))
    except BalanceError:  # another run's census: replaced by this run's
        earlier = None
    if earlier is not None and earlier.games == games and earlier.settings == settings.plain():
        return earlier, True
    config, seed = results_run(path, games, None)
    c = take_census(config, seed, games, settings, progress=progress)
    write_census(c, path / CENSUS_FILE)
    return c, False
