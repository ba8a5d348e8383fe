"""``balance bench``: how fast a game's kernels start and run on this machine.

Game-generic: it uses only the plugin protocol (balance/games/base.py) and the game's base config
(``configs/<game>/base.yaml`` unless another is given). It measures

- **start-up**, each in a fresh subprocess: compiling the kernels from scratch (``NUMBA_CACHE_DIR``
  pointed at an empty temp dir) and with the normal, populated cache, both as the wall time from
  process start to the end of the first chunk minus the wall time of the same subprocess that
  stops after its imports; and the wall time of the real CLI,
  ``balance simulate <base config> --games 1000 --out <tmp>``, with a warm cache;
- **throughput** of ``runner.play_chunks`` in chunks of 65,536 games (what the runner does, minus
  writing) on 1 thread and on all threads, for every line-up "each seat plays policy X" with X in
  ``plugin.default_policies``, at the game's minimum and maximum player counts, built from the base
  config (its policy settings and rules) with ``balance.config.config_from_dict``;
- **plain Python**: the headline line-up (maximum players, the base config's policy) with
  ``NUMBA_DISABLE_JIT=1`` in a subprocess, against the compiled kernel on 1 thread.

Every timing is the best of ``repeats`` (noisy neighbours only ever make a run slower), except
the cold compile, which runs once (it takes about a minute).

Nothing here prints; :func:`run` returns a :class:`BenchResult` and reports what it is doing through
an optional ``progress(message)`` callback. The subprocesses run this module
(``python -m balance.bench <json spec>``, see :func:`_child_main`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import json
import math
import os
import pkgutil
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from balance.errors import BalanceError

CHUNK = 65536  # games per plugin.play call, as in the runner's default
CLI_GAMES = 1000  # games of the `balance simulate` warm-start measurement


class BenchError(BalanceError):
    """The benchmark cannot run; the message is one line."""


@dataclass(frozen=True)
class Lineup:
    label: str  # e.g. "4 greedy", or "economy vs rush" for a mixed line-up
    players: int
    policy: str  # every seat plays this policy ("economy+rush" for a mixed line-up)
    mixed: tuple[str, ...] = ()  # the seats of a mixed line-up (the base config's)

    @property
    def seats(self) -> list[str]:
        return list(self.mixed) if self.mixed else [self.policy] * self.players


@dataclass(frozen=True)
class Throughput:
    lineup: str
    players: int
    policy: str
    threads: int
    games: int  # games per repeat
    seconds: float  # best repeat
    games_per_s: float
    ns_per_game: float  # wall-clock ns per game (all threads together)
    speedup: float | None  # games/s against the same line-up on 1 thread (None for 1 thread)


@dataclass(frozen=True)
class Startup:
    imports_s: float  # baseline: the subprocess doing just the imports
    first_chunk_games: int
    first_chunk_play_s: float  # of which playing the chunk, estimated from the throughput rows
    warm_s: float  # warm cache: start to first chunk finished, minus imports_s
    warm_total_s: float  # the same without subtracting the baseline
    cold_s: float | None  # empty cache (None: not measured), minus imports_s
    cold_total_s: float | None
    cli_warm_start_s: float  # `balance simulate <config> --games 1000 --out <tmp>`, warm cache
    cli_command: str
    cli_games: int = CLI_GAMES  # 1 for a config with search seats (at its smallest budget)


@dataclass(frozen=True)
class PlainPython:
    lineup: str
    games: int
    seconds: float  # best repeat
    games_per_s: float
    ns_per_game: float
    compiled_1_thread_games_per_s: float
    ratio: float  # compiled 1 thread / plain Python


@dataclass(frozen=True)
class EndToEnd:
    """``balance simulate`` of the headline line-up writing parquet, against the kernels alone."""

    lineup: str
    games: int
    threads: int
    seconds: float  # best repeat: simulating and writing, after compiling (the manifest's wall)
    games_per_s: float
    kernel_games_per_s: float  # the throughput row of the same line-up and thread count
    ratio: float  # games_per_s / kernel_games_per_s


@dataclass(frozen=True)
class SearchSpeed:
    """The config's own line-up, search seats included, at one search budget (docs/search.md):
    games [0, games) of the config's seed, so every budget plays the same deals."""

    lineup: str
    iterations: int  # per decision, every search seat
    threads: int
    games: int
    seconds: float
    searches: int  # decisions searched (one with a single option is played without a search)
    iterations_run: int
    games_per_s: float
    searches_per_s: float  # wall clock, all threads together
    ms_per_search: float  # one thread's milliseconds a search: threads * seconds / searches


@dataclass(frozen=True)
class SearchStartup:
    """Compiling the search player's kernels (with the game's), from process start to the end of
    one game with search seats at ``iterations``, minus the imports and the game's own time."""

    iterations: int
    play_s: float  # the game's time, from the 1-thread search row at that budget
    warm_s: float
    cold_s: float | None  # None: --no-cold


MAX_PYTHON_GAMES = 100_000  # plain Python plays ~1,000 games/s at best: under two minutes
MAX_REPEATS = 100
END_TO_END_RATIO = 0.8  # end to end at least 80 % of the kernels' all-threads games/s


@dataclass(frozen=True)
class Target:
    key: str
    label: str
    threshold: float
    at_least: bool
    unit: str
    measured: float | None  # None: not measured in this run
    met: bool | None


@dataclass(frozen=True)
class BenchResult:
    game: str
    title: str
    config: str
    seed: int
    threads: int  # the "all threads" count
    repeats: int
    headline: str  # label of the headline line-up
    startup: Startup
    throughput: list[Throughput]
    python: PlainPython | None
    end_to_end: EndToEnd | None
    targets: list[Target]
    machine: dict[str, Any]
    search: list[SearchSpeed] = dataclasses.field(default_factory=list)
    search_startup: SearchStartup | None = None

    def row(self, lineup: str, threads: int) -> Throughput | None:
        return next(
            (t for t in self.throughput if (t.lineup, t.threads) == (lineup, threads)), None
        )

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def default_config(game: str) -> Path:
    """``configs/<game>/base.yaml`` in the working directory, else in the source checkout."""
    here = Path("configs") / game / "base.yaml"
    if here.is_file():
        return here
    checkout = Path(__file__).resolve().parents[1] / "configs" / game / "base.yaml"
    return checkout if checkout.is_file() else here


def lineups(plugin: Any, base: Any) -> tuple[list[Lineup], Lineup]:
    """Every seat the same policy, for each of the game's ready-made policies, at its minimum and
    maximum player counts (or the game's ``bench.players``); and the headline line-up (maximum
    players or ``bench.headline_players``, the base config's policy).
    When the base config's seats play different policies (The Raven Order: economy vs rush), its
    own line-up is measured too and is the headline."""
    names = list(plugin.default_policies)
    counts = list(plugin.bench.players or sorted({plugin.min_players, plugin.max_players}))
    top = plugin.bench.headline_players or plugin.max_players
    if len(set(base.seats)) > 1 and base.players == top:
        same = [Lineup(f"{p} {name}", p, name) for p in counts for name in names]
        mixed = Lineup(
            " vs ".join(base.seats), base.players, "+".join(base.seats), tuple(base.seats)
        )
        return [mixed, *same], mixed
    lead = base.seats[0] if base.seats[0] in names else names[-1]
    names = [lead] + [n for n in names if n != lead]
    found = [Lineup(f"{p} {name}", p, name) for p in counts for name in names]
    headline = next(x for x in found if (x.players, x.policy) == (top, lead))
    return found, headline


def lineup_config(base: Any, lineup: Lineup) -> Any:
    """``base`` with the players and seats of ``lineup`` (teams back to one per seat)."""
    from balance.config import config_from_dict

    data = base.resolved_dict()
    data.update(players=lineup.players, seats=lineup.seats, teams=None)
    return config_from_dict(data, file=f"{base.game} line-up {lineup.label!r}")


def heuristic_config(base: Any) -> Any:
    """``base`` with every search seat playing its rollout policy (the heuristic line-ups)."""
    from balance.config import config_from_dict

    data = base.resolved_dict()
    pol = data["policies"]
    data["seats"] = [pol[s]["rollout"] if pol[s]["kind"] == "search" else s for s in base.seats]
    data["policies"] = {k: v for k, v in pol.items() if v["kind"] != "search"}
    report = data.get("report") or {}
    head = report.get("headline") or {}
    if head.get("policy") in pol and pol[head["policy"]]["kind"] == "search":
        del report["headline"]  # the game's own headline
    return config_from_dict(data, file=f"{base.game} heuristic line-up")


def with_iterations(base: Any, iterations: int) -> Any:
    """``base`` with every search policy at ``iterations`` a decision (on every side: a budget
    by side, ``iterations_by_side``, is dropped)."""
    from balance.config import config_from_dict

    data = base.resolved_dict()
    for entry in data["policies"].values():
        if entry["kind"] == "search":
            entry["iterations"] = iterations
            entry.pop("iterations_by_side", None)
    return config_from_dict(data, file=f"{base.game} search at {iterations} iterations")


def _search_play(plugin: Any, tables: Any, seed: int, n: int) -> tuple[float, np.ndarray]:
    """Seconds to play games [0, n) with search seats, and their searches and iterations."""
    from balance.search import play_counted

    t0 = time.perf_counter()
    _, counted = play_counted(plugin, tables, seed, 0, n)
    return time.perf_counter() - t0, counted


def _search_speed(
    plugin: Any,
    tables: Any,
    cfg: Any,
    iterations: int,
    threads: int,
    seed: int,
    games: int,
    seconds: float,
) -> SearchSpeed:
    """One search row: a game a thread, then enough games (at most ``games``) for about
    ``seconds`` of work."""
    n = min(games, threads)
    took, counted = _search_play(plugin, tables, seed, n)
    for _ in range(3):  # games differ in length: grow until a run takes long enough
        if took >= 0.8 * seconds or n >= games:
            break
        n = min(games, max(n + threads, math.ceil(n * 1.1 * seconds / max(took, 1e-6))))
        took, counted = _search_play(plugin, tables, seed, n)
    searches = int(counted[:, 0].sum())
    return SearchSpeed(
        lineup=" vs ".join(_runs(cfg.seats)),
        iterations=iterations,
        threads=threads,
        games=n,
        seconds=took,
        searches=searches,
        iterations_run=int(counted[:, 1].sum()),
        games_per_s=n / took,
        searches_per_s=searches / took,
        ms_per_search=1000.0 * threads * took / max(searches, 1),
    )


def _runs(seats: list[str]) -> list[str]:
    """Seats as runs: ["mcts", "3 greedy"] for mcts, greedy, greedy, greedy."""
    out: list[str] = []
    i = 0
    while i < len(seats):
        j = i
        while j < len(seats) and seats[j] == seats[i]:
            j += 1
        out.append(seats[i] if j - i == 1 else f"{j - i} {seats[i]}")
        i = j
    return out


def run(
    game: str,
    *,
    config: str | os.PathLike[str] | None = None,
    games: int = 1_000_000,
    threads: int | None = None,
    python_games: int = 200,
    repeats: int = 3,
    cold: bool = True,
    end_to_end: bool = True,
    min_seconds: float = 2.0,
    iterations: list[int] | None = None,
    search_seconds: float = 10.0,
    progress: Callable[[str], None] | None = None,
) -> BenchResult:
    """Measure ``game`` on this machine (see the module docstring).

    ``games`` is the number of games per repeat for the headline line-up; the other line-ups play
    at most that many, scaled down to about ``min_seconds`` of work. ``python_games`` = 0 skips the
    plain-Python run, ``cold=False`` the cold compile, ``end_to_end=False`` the ``balance
    simulate``-equivalent run of ``games`` games of the headline line-up writing parquet. Raises BenchError (and ConfigError for a
    bad base config) before measuring anything.

    A config with search seats (docs/search.md) is measured twice over: its heuristic line-ups as
    above, every search seat playing its rollout policy, and its own line-up with the search at
    each budget of ``iterations`` (default: the config's), 1 thread and all threads, for about
    ``search_seconds`` each: games/s, searches/s and milliseconds a search; with the search
    kernels' compile, warm and cold.
    """
    import numba

    from balance import games as registry
    from balance import runner
    from balance.config import load_config

    say = progress or (lambda message: None)
    if game not in registry.names():
        raise BenchError(f"unknown game {game!r} (one of: {', '.join(registry.names())})")
    max_threads = numba.config.NUMBA_NUM_THREADS
    threads = max_threads if threads is None else threads
    runner.check_threads(threads)
    if games < 1:
        raise BenchError(f"--games must be at least 1, got {games}")
    if not 0 <= python_games <= min(games, MAX_PYTHON_GAMES):
        raise BenchError(
            f"--python-games must be between 0 and {min(games, MAX_PYTHON_GAMES):,} (plain Python "
            f"plays about a thousandth as fast, and at most --games), got {python_games:,}"
        )
    if not 1 <= repeats <= MAX_REPEATS:
        raise BenchError(f"--repeats must be between 1 and {MAX_REPEATS}, got {repeats:,}")
    config_path = Path(config) if config is not None else default_config(game)
    if not config_path.is_file():
        raise BenchError(f"{config_path}: base config not found (pass --config)")
    base = load_config(config_path)
    if base.game != game:
        raise BenchError(f"{config_path}: is a config of {base.game!r}, not {game!r}")
    plugin = registry.get(game)
    from balance.search import search_seats

    searched = search_seats(base)
    if iterations is not None:
        if not searched:
            raise BenchError(f"--iterations: {config_path} has no search seat (docs/search.md)")
        from balance.search import MAX_ITERATIONS

        bad = [b for b in iterations if not 1 <= b <= MAX_ITERATIONS]
        if bad or not iterations:
            raise BenchError(
                f"--iterations must be between 1 and {MAX_ITERATIONS:,} each, got "
                f"{','.join(map(str, iterations)) or 'none'}"
            )
    budgets = sorted(
        set(iterations or [int(base.policies[base.seats[i]]["iterations"]) for i in searched])
    )
    plain = heuristic_config(base) if searched else base
    found, headline = lineups(plugin, plain)
    configs = {x.label: lineup_config(plain, x) for x in found}
    seed = base.seed
    most = max(len(c.seats) for c in configs.values())
    runner.check_options(games=games, seed=seed, players=most)  # simulate's bound on --games

    # -- throughput, in this process (its first call also fills the kernel cache if it is empty)
    say("compiling or loading the kernels")
    tables = {label: runner.prepare(cfg, seed=seed, load=False) for label, cfg in configs.items()}
    _play(tables[headline.label], seed, min(games, 256))
    rows: list[Throughput] = []
    counts = sorted({1, threads})
    previous_threads = numba.get_num_threads()
    try:
        for lineup in found:
            one_thread: float | None = None
            for t in counts:
                say(f"throughput: {lineup.label}, {t} thread{'s' if t > 1 else ''}")
                numba.set_num_threads(t)
                tb = tables[lineup.label]
                n, first_s = _size(tb, seed, games, min_seconds, lineup == headline)
                best = min([first_s] + [_play(tb, seed, n) for _ in range(repeats - 1)])
                rate = n / best
                rows.append(
                    Throughput(
                        lineup=lineup.label,
                        players=lineup.players,
                        policy=lineup.policy,
                        threads=t,
                        games=n,
                        seconds=best,
                        games_per_s=rate,
                        ns_per_game=1e9 / rate,
                        speedup=None if one_thread is None else rate / one_thread,
                    )
                )
                if t == 1:
                    one_thread = rate
    finally:
        numba.set_num_threads(previous_threads)

    # -- the search player: the config's own line-up at each budget
    speeds: list[SearchSpeed] = []
    for b in budgets:
        cfg = with_iterations(base, b)
        say(f"search: {b:,} iterations, compiling or loading")
        tables_b = plugin.compile(cfg)
        _search_play(plugin, tables_b, seed, 1)  # the kernels, compiled or loaded
        try:
            for t in counts:
                say(f"search: {b:,} iterations, {t} thread{'s' if t > 1 else ''}")
                numba.set_num_threads(t)
                speeds.append(
                    _search_speed(plugin, tables_b, cfg, b, t, seed, games, search_seconds)
                )
        finally:
            numba.set_num_threads(previous_threads)

    # -- end to end: what `balance simulate` does (the runner, writing parquet), in this process
    e2e = None
    if end_to_end:
        say(f"end to end: {headline.label}, {games:,} games written as parquet")
        e2e = _end_to_end(configs[headline.label], headline.label, games, threads, repeats, rows)

    # -- start-up, in subprocesses
    first = min(games, CHUNK)
    spec = {
        "game": game,
        "config": str(config_path),
        "players": headline.players,
        "policy": headline.policy,
        "seats": headline.seats,
        "games": first,
        "repeats": 1,
        "heuristic": bool(searched),  # the search seats play their rollout policies
    }
    say("start-up: imports only")
    imports_s = min(_child_wall({**spec, "mode": "imports"}) for _ in range(repeats))
    say("start-up: warm cache to first chunk")
    warm_total = min(_child_wall({**spec, "mode": "first_chunk"}) for _ in range(repeats))
    # a search config's own games cost seconds each: one game at the smallest budget
    cli_games = 1 if searched else CLI_GAMES
    sets = [
        x
        for name, entry in base.policies.items()
        if entry["kind"] == "search"
        for x in ("--set", f"policies.{name}.iterations={budgets[0]}")
    ]
    args = ["simulate", str(config_path), "--games", str(cli_games), *sets, "--out"]
    say(f"start-up: balance simulate --games {cli_games}")
    cli = cli_command()
    with tempfile.TemporaryDirectory(prefix="balance-bench-") as tmp:
        cli_s = min(_wall([*cli, *args, str(Path(tmp) / f"run{i}")]) for i in range(repeats))

    # -- plain Python, in a subprocess
    python = None
    if python_games:
        say(f"plain Python: {headline.label}, {python_games} games")
        out = _child(
            {**spec, "mode": "python", "games": python_games, "repeats": repeats},
            env={"NUMBA_DISABLE_JIT": "1"},
        )
        rate = python_games / out["best_s"]
        compiled = _one_thread_rate(rows, headline.label)
        python = PlainPython(
            lineup=headline.label,
            games=python_games,
            seconds=out["best_s"],
            games_per_s=rate,
            ns_per_game=1e9 / rate,
            compiled_1_thread_games_per_s=compiled,
            ratio=compiled / rate,
        )

    # -- cold compile, last: about a minute of one core
    cold_total = None
    if cold:
        say("start-up: compiling from scratch (about a minute)")
        with tempfile.TemporaryDirectory(prefix="balance-bench-cache-") as cache:
            cold_total = _child_wall(
                {**spec, "mode": "first_chunk"}, env={"NUMBA_CACHE_DIR": cache}
            )

    search_startup = None
    if speeds:
        low = speeds[0]  # the smallest budget, 1 thread
        sspec = {**spec, "players": base.players, "policy": "", "seats": list(base.seats)}
        sspec.update(games=1, iterations=low.iterations, heuristic=False)
        play_s = low.seconds / low.games
        say("start-up: the search player, warm cache")
        swarm = min(_child_wall({**sspec, "mode": "first_chunk"}) for _ in range(repeats))
        scold = None
        if cold:
            say("start-up: the search player, compiling from scratch (minutes)")
            with tempfile.TemporaryDirectory(prefix="balance-bench-cache-") as cache:
                scold = _child_wall(
                    {**sspec, "mode": "first_chunk"}, env={"NUMBA_CACHE_DIR": cache}
                )
        search_startup = SearchStartup(
            iterations=low.iterations,
            play_s=play_s,
            warm_s=max(0.0, swarm - imports_s - play_s),
            cold_s=None if scold is None else max(0.0, scold - imports_s - play_s),
        )

    headline_row = rows[[(r.lineup, r.threads) for r in rows].index((headline.label, threads))]
    startup = Startup(
        imports_s=imports_s,
        first_chunk_games=first,
        first_chunk_play_s=first / headline_row.games_per_s,
        warm_s=max(0.0, warm_total - imports_s),
        warm_total_s=warm_total,
        cold_s=None if cold_total is None else max(0.0, cold_total - imports_s),
        cold_total_s=cold_total,
        cli_warm_start_s=cli_s,
        cli_games=cli_games,
        cli_command=" ".join(["balance", *args, "<tmp>"]),
    )
    figures = {
        "games_per_s": headline_row.games_per_s,
        "python_ratio": None if python is None else python.ratio,
        "warm_start_s": startup.cli_warm_start_s,
    }
    targets = [
        Target(
            key=s.key,
            label=s.label,
            threshold=s.threshold,
            at_least=s.at_least,
            unit=s.unit,
            measured=figures[s.key],
            met=None
            if figures[s.key] is None
            else (figures[s.key] >= s.threshold if s.at_least else figures[s.key] <= s.threshold),
        )
        for s in plugin.bench.targets()
    ]
    return BenchResult(
        game=game,
        title=plugin.title,
        config=str(config_path),
        seed=seed,
        threads=threads,
        repeats=repeats,
        headline=headline.label,
        startup=startup,
        throughput=rows,
        python=python,
        end_to_end=e2e,
        targets=[*targets, *_end_to_end_targets(e2e)],
        machine=_machine(max_threads),
        search=speeds,
        search_startup=search_startup,
    )


def check_json(
    path: str | os.PathLike[str], *, game: str, config: str | os.PathLike[str] | None = None
) -> None:
    """Refuse a ``--json`` file that cannot be written before measuring anything (minutes), not
    after (balance/outputs.py); it must not be the base config either."""
    from balance.outputs import check_output_file

    base = config if config is not None else default_config(game)
    check_output_file(path, "--json", inputs={base: "the base config"})


def write_json(result: BenchResult, path: str | os.PathLike[str]) -> None:
    """Every figure of ``result`` as JSON (for CI artefacts), written atomically."""
    from balance.outputs import write_atomic

    write_atomic(path, json.dumps(result.to_dict(), indent=2) + "\n")


# ---- helpers ------------------------------------------------------------------------------------


def _end_to_end(
    config: Any, label: str, games: int, threads: int, repeats: int, rows: list[Throughput]
) -> EndToEnd:
    """Best of ``repeats`` runs of ``balance.runner.run`` (what ``balance simulate`` calls) of
    ``games`` games into a temporary directory; its rate is the manifest's, simulating and writing
    after compiling."""
    from balance import runner

    best = math.inf
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="balance-bench-") as tmp:
            summary = runner.run(
                config, config_path=None, out=Path(tmp) / "run", games=games, threads=threads
            )
        best = min(best, summary.wall_time_s)
    kernel = next(r.games_per_s for r in rows if (r.lineup, r.threads) == (label, threads))
    return EndToEnd(
        lineup=label,
        games=games,
        threads=threads,
        seconds=best,
        games_per_s=games / best,
        kernel_games_per_s=kernel,
        ratio=games / best / kernel,
    )


def _end_to_end_targets(e2e: EndToEnd | None) -> list[Target]:
    """The end-to-end figure beside the kernel one, as a target row of the bench output."""
    if e2e is None:
        return []
    return [
        Target(
            key="end_to_end_ratio",
            label=(
                f"balance simulate writing parquet, {e2e.lineup}: {e2e.games_per_s:,.0f} vs "
                f"kernels {e2e.kernel_games_per_s:,.0f} games/s"
            ),
            threshold=100 * END_TO_END_RATIO,
            at_least=True,
            unit="%",
            measured=100 * e2e.ratio,
            met=e2e.ratio >= END_TO_END_RATIO,
        )
    ]


def _play(run: Any, seed: int, n: int) -> float:
    """Seconds to play games [0, n) of a prepared run through the runner's one function, in
    chunks of CHUNK (outputs discarded)."""
    from balance import runner

    t0 = time.perf_counter()
    for _ in runner.play_chunks([run], seed=seed, games=n, chunk_size=CHUNK):
        pass
    return time.perf_counter() - t0


def _size(run: Any, seed: int, games: int, min_seconds: float, full: bool) -> tuple[int, float]:
    """Games per repeat and the first repeat's seconds: ``games`` if ``full``, else enough for
    about ``min_seconds`` of work (at most ``games``), grown until a repeat takes that long."""
    if full:
        return games, _play(run, seed, games)
    n = min(games, CHUNK // 4)
    seconds = _play(run, seed, n)  # also a warm-up; it does not count
    while True:
        n = min(games, max(n, math.ceil(n * 1.1 * min_seconds / max(seconds, 1e-6))))
        seconds = _play(run, seed, n)
        if n >= games or seconds >= 0.8 * min_seconds:
            return n, seconds


def _one_thread_rate(rows: list[Throughput], label: str) -> float:
    return next(r.games_per_s for r in rows if (r.lineup, r.threads) == (label, 1))


def _env(extra: dict[str, str] | None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("NUMBA_DISABLE_JIT", None)
    env.update(extra or {})
    return env


def _run(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    """Wall seconds of ``cmd`` and its stdout; BenchError if it fails."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=_env(env), check=False)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        last = lines[-1] if lines else "no output"
        raise BenchError(f"{' '.join(cmd[:4])} ... failed (exit {proc.returncode}): {last}")
    return wall, proc.stdout


def _wall(cmd: list[str], env: dict[str, str] | None = None) -> float:
    return _run(cmd, env)[0]


def _child_cmd(spec: dict[str, Any]) -> list[str]:
    return [sys.executable, "-m", "balance.bench", json.dumps(spec)]


def _child_wall(spec: dict[str, Any], env: dict[str, str] | None = None) -> float:
    return _wall(_child_cmd(spec), env)


def _child(spec: dict[str, Any], env: dict[str, str] | None = None) -> dict[str, Any]:
    _, stdout = _run(_child_cmd(spec), env)
    return json.loads(stdout.strip().splitlines()[-1])


def cli_command() -> list[str]:
    """The installed ``balance`` script of this interpreter (or its module, if not installed)."""
    script = Path(sys.executable).with_name("balance")
    if script.is_file():
        return [str(script)]
    found = shutil.which("balance")
    if found:
        return [found]
    return [sys.executable, "-c", "from balance.cli import app; app()"]


def _machine(max_threads: int) -> dict[str, Any]:
    import numba
    import numpy as np

    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "numba_threads": max_threads,
        "python": platform.python_version(),
        "numba": numba.__version__,
        "numpy": np.__version__,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def _import_game(plugin: Any) -> None:
    """Import the plugin's package and every module in it (kernels compile lazily, on first call,
    so this is the imports without the compiling)."""
    package = importlib.import_module(type(plugin).__module__)
    for info in pkgutil.walk_packages(getattr(package, "__path__", []), package.__name__ + "."):
        with contextlib.suppress(ImportError):  # an optional extra the kernels do not need
            importlib.import_module(info.name)


def _child_main(spec: dict[str, Any]) -> dict[str, Any]:
    """The subprocess side: ``mode`` "imports" stops after the imports; "first_chunk" also plays
    the first ``games`` games; "python" times ``games`` games ``repeats`` times (run it with
    ``NUMBA_DISABLE_JIT=1``). Returns its own timings (the parent measures wall time)."""
    t0 = time.perf_counter()
    import numba  # noqa: F401 - part of what every run imports
    import numpy as np

    from balance import games as registry
    from balance.config import load_config

    plugin = registry.get(spec["game"])
    _import_game(plugin)
    out: dict[str, Any] = {"imports_s": time.perf_counter() - t0}
    if spec["mode"] == "imports":
        return out
    lineup = Lineup("", spec["players"], spec["policy"], tuple(spec.get("seats") or ()))
    cfg = load_config(spec["config"])
    cfg = lineup_config(heuristic_config(cfg) if spec.get("heuristic") else cfg, lineup)
    if "iterations" in spec:
        cfg = with_iterations(cfg, spec["iterations"])
    from balance import runner

    run = runner.prepare(cfg, seed=cfg.seed, load=False)
    if spec["mode"] == "first_chunk":
        t1 = time.perf_counter()
        _play(run, cfg.seed, spec["games"])
        out["first_chunk_s"] = time.perf_counter() - t1
    elif spec["mode"] == "python":
        np.seterr(over="ignore")  # the RNG's uint64 arithmetic wraps by design
        out["best_s"] = min(_play(run, cfg.seed, spec["games"]) for _ in range(spec["repeats"]))
    else:
        raise ValueError(f"unknown mode {spec['mode']!r}")
    out["total_s"] = time.perf_counter() - t0
    return out


if __name__ == "__main__":
    print(json.dumps(_child_main(json.loads(sys.argv[1]))))
