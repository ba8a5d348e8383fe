"""Playing several configs on common seeds, reduced chunk by chunk to per-game arrays.

The games themselves are played by the runner's one function (``runner.play_chunks``); this
module turns each chunk into the per-game win, score, length and group codes that the paired
statistics reduce, so nothing is written to disk and memory stays flat.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from balance import results, runner, stats
from balance.config import RunConfig
from balance.games.base import Chunk
from balance.runner import CHUNK
from balance.stats import plays

Progress = Callable[[int, int], None]  # progress(done, total), called after each chunk


def lineup(run: runner.Prepared) -> stats.Lineup:
    """The groups a prepared run's games can have (its policies, teams and roles)."""
    cfg = run.config
    return stats.config_lineup(cfg.seats, cfg.teams, run.team_names, run.role_names)


def chunk_arrays(chunk: Chunk, run: runner.Prepared, line: stats.Lineup) -> stats.GameArrays:
    """A chunk's outcomes as per-game arrays: ``win`` as in the results dataset (1/k over the
    distinct winning teams), and each seat's policy, team and role codes of every game."""
    policy, team = stats.seat_codes(line, chunk.n_games)  # team: None when the game deals them
    if team is None:
        team, _ = results.team_codes(chunk, (), run.team_names)
    win, _ = results.win_values(chunk.rank, team)
    return stats.GameArrays(
        first_game=chunk.first_game,
        win=win,
        score=chunk.score.astype(np.float64),
        turns=chunk.turns.astype(np.float64),
        order=chunk.order,
        policy=policy,
        team=team,
        role=chunk.role,
        plays=_plays(run, chunk),
    )


def _plays(run: Any, chunk: Any) -> Any:
    """How the chunk's games played (stats/plays.py): by seat, or by side for a game that deals
    sides (its trace's ``team`` measure); None for a game that keeps no trajectory."""
    measures = run.plugin.trace_measures
    sides = plays.units(measures, run.team_names)
    if sides is None:
        return None
    return plays.chunk_metrics(chunk, sides, measures.index(plays.SIDE) if sides else -1)


class Runs:
    """Configs prepared to play on common seeds, with their line-ups."""

    def __init__(self, configs: Sequence[RunConfig], seed: int, *, load: bool = True) -> None:
        self.runs = [runner.prepare(cfg, seed=seed, load=load) for cfg in configs]
        self.lineups = [lineup(r) for r in self.runs]

    def load(self, seed: int) -> None:
        """Load the kernels of runs prepared with ``load=False``."""
        self.runs = [runner.load(r, seed=seed) for r in self.runs]

    def play(
        self,
        *,
        seed: int,
        games: int,
        first_game: int = 0,
        chunk_size: int = CHUNK,
        played: Callable[[int], None] | None = None,
    ) -> Iterator[list[stats.GameArrays]]:
        """Per-game arrays of every run for each chunk of games (the same games for all);
        ``played(n)`` after each run's chunk of ``n`` games (runner.play_chunks)."""
        for chunks in runner.play_chunks(
            self.runs,
            seed=seed,
            games=games,
            first_game=first_game,
            chunk_size=chunk_size,
            played=played,
        ):
            yield [
                chunk_arrays(c, r, line)
                for c, r, line in zip(chunks, self.runs, self.lineups, strict=True)
            ]


def play_paired(
    configs: Sequence[RunConfig],
    *,
    games: int,
    seed: int,
    threads: int | None = None,
    chunk_size: int = CHUNK,
) -> Iterator[list[stats.GameArrays]]:
    """Play ``games`` games of every config on seed ``seed``, yielding the per-game arrays of
    each chunk (one per config, the same games for all)."""
    runner.check_options(
        games=games,
        seed=seed,
        chunk_size=chunk_size,
        threads=threads,
        players=max(c.players for c in configs),  # the same bound as simulate's
    )
    with runner.numba_threads(threads):
        yield from Runs(configs, seed).play(seed=seed, games=games, chunk_size=chunk_size)
