"""``balance compare``: differences B - A of two configs run on the same seeds.

Same game and player count: paired game by game (common random numbers). Different player
counts of one game: the same seeds give different games, so the runs are compared as
independent samples, and only on what means the same at both counts (balance/stats/across.py:
share / fair per place in the turn order, the first player's edge, mean score per seat-game,
game length)."""

from __future__ import annotations

import time
from typing import NamedTuple

import polars as pl

from balance import games as registry
from balance import runner, stats
from balance.config import RunConfig, plugin_deals_teams
from balance.experiments.play import Progress, Runs
from balance.runner import CHUNK, RunnerError
from balance.stats import across


class Comparison(NamedTuple):
    """Differences B - A of two configs run on the same seeds (report: draw ``table``): paired
    game by game (``paired``) or, across player counts, independent (balance/stats/across.py)."""

    a_path: str
    b_path: str
    a_config: RunConfig
    b_config: RunConfig
    games: int
    seed: int
    level: float
    method: str  # how the intervals are made
    table: pl.DataFrame  # stats.PairedAccumulator.table: metric, kind, group, a, b, diff, lo, hi...
    wall_time_s: float
    a_lineup: stats.Lineup | None = None  # the groups each run has (policies, teams, roles)
    b_lineup: stats.Lineup | None = None
    paired: bool = True  # False: different player counts, independent samples (stats.across)

    @property
    def samples(self) -> str:
        """How the games are compared, in words for tables and pages."""
        return "paired: same seeds" if self.paired else across.SAMPLES


def check_pairable(a: RunConfig, b: RunConfig, what: str) -> None:
    if a.players != b.players:
        raise RunnerError(
            f"{what} needs the same number of players, got {a.players} and {b.players}"
        )
    check_same_game(a, b, what)


def check_same_game(a: RunConfig, b: RunConfig, what: str) -> None:
    if a.game != b.game:
        raise RunnerError(f"{what} needs configs of the same game, got {a.game} and {b.game}")


def compare(
    a: RunConfig,
    b: RunConfig,
    *,
    a_path: str = "A",
    b_path: str = "B",
    games: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    level: float = 0.95,
    chunk_size: int = CHUNK,
    progress: Progress | None = None,
) -> Comparison:
    """Run A and B on the same seeds (default: A's games and seed) and pair them game by game;
    with different player counts, compare them as independent samples (stats.across)."""
    games = a.games if games is None else games
    seed = a.seed if seed is None else seed
    check_same_game(a, b, "compare")
    paired = a.players == b.players
    runner.check_options(games=games, seed=seed, chunk_size=chunk_size, threads=threads)
    report = progress or (lambda done, total: None)
    t0 = time.perf_counter()
    with runner.numba_threads(threads):
        runs = Runs([a, b], seed)
        acc: stats.PairedAccumulator | across.AcrossAccumulator
        if paired:
            acc = stats.PairedAccumulator(*stats.common_groups(*runs.lineups))
        else:
            dealt = plugin_deals_teams(registry.get(a.game))  # no fair 1/n (stats.across)
            acc = across.AcrossAccumulator(a.players, b.players, dealt=dealt)
        report(0, games)  # the kernels are loaded: the games start
        for arr_a, arr_b in runs.play(seed=seed, games=games, chunk_size=chunk_size):
            acc.add(arr_a, arr_b)
            report(acc.games, games)
    if isinstance(acc, stats.PairedAccumulator):
        method, table = stats.METHOD, acc.table(level, repeats=runs.lineups[0].repeats())
    else:
        method = across.METHOD_DEALT if acc.dealt else across.METHOD
        table = acc.table(level)
    return Comparison(
        a_path=a_path,
        b_path=b_path,
        a_config=a,
        b_config=b,
        games=acc.games,
        seed=seed,
        level=level,
        method=method,
        table=table,
        wall_time_s=time.perf_counter() - t0,
        a_lineup=runs.lineups[0],
        b_lineup=runs.lineups[1],
        paired=paired,
    )
