"""``balance impact``: every variant against the base config on the same seeds (causal impact).

Chunks are the outer loop (the base chunk is played once and paired with every variant's), so
memory holds one chunk per run at a time. The file it writes is balance/impact_file.py's.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import polars as pl

from balance import impact_file, runner, stats
from balance.config import RunConfig
from balance.experiments.compare import check_pairable
from balance.experiments.play import Progress, Runs
from balance.experiments.variants import (
    REPORT_VARIANTS_FILE,
    Variant,
    apply_patch,
)
from balance.runner import CHUNK, RunnerError


class Impact(NamedTuple):
    """Interventional impact: every variant against the base config on the same seeds.

    ``table`` is long: one row per (variant, metric, group) with the columns of
    stats.PairedAccumulator.table (a = base, b = variant, diff = variant - base) plus
    ``variant``, ``description``, ``q_value`` (Benjamini-Hochberg over the win-share rows of
    all variants) and ``flagged`` (q < 0.05; balance/impact_file.py owns the rule).
    ``significant`` is per row (the interval excludes 0); with dozens of variants and groups
    some intervals exclude 0 by chance, and ``flagged`` is the one to show. ``summary`` has one
    row per variant, sorted by ``effect``: the win-share change of the seat, place in the turn
    order, policy, team or role that moved most
    (``kind``, ``group``, ``diff``, ``lo``, ``hi``, ``p_value``, ``q_value``, ``flagged``), and
    the change in game length (``turns_diff``, ``turns_lo``, ``turns_hi``).
    """

    config_path: str
    config: RunConfig
    variants: list[Variant]
    games: int
    seed: int
    level: float
    method: str
    table: pl.DataFrame
    summary: pl.DataFrame
    wall_time_s: float
    lineup: stats.Lineup | None = None  # the base run's groups (policies, teams, roles)


def impact(
    config: RunConfig,
    variants: Sequence[Variant],
    *,
    config_path: str = "config",
    variants_source: str = "variants",
    games: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    level: float = 0.95,
    chunk_size: int = CHUNK,
    progress: Progress | None = None,
) -> Impact:
    """Play ``config`` and each variant on the same seeds; the paired change of each variant.

    Chunks are the outer loop (the base chunk is played once and paired with every variant's),
    so memory holds one chunk per run at a time.
    """
    if not variants:
        raise RunnerError("no variants to measure")
    games = config.games if games is None else games
    seed = config.seed if seed is None else seed
    configs = [apply_patch(config, v, source=variants_source) for v in variants]
    for cfg in configs:
        check_pairable(config, cfg, "a variant")
    runner.check_options(games=games, seed=seed, chunk_size=chunk_size, threads=threads)
    report = progress or (lambda done, total: None)
    total = games * (1 + len(configs))
    t0 = time.perf_counter()
    done = 0
    with runner.numba_threads(threads):
        runs = Runs([config, *configs], seed)
        base_line = runs.lineups[0]
        accs = [
            stats.PairedAccumulator(*stats.common_groups(base_line, line))
            for line in runs.lineups[1:]
        ]
        for arrays in runs.play(seed=seed, games=games, chunk_size=chunk_size):
            base = arrays[0]
            for acc, arr in zip(accs, arrays[1:], strict=True):
                acc.add(base, arr)
            done += base.n_games * len(arrays)
            report(done, total)
    tables = [
        acc.table(level).with_columns(variant=pl.lit(v.name), description=pl.lit(v.description))
        for v, acc in zip(variants, accs, strict=True)
    ]
    table = pl.concat(tables).select("variant", "description", pl.exclude("variant", "description"))
    table = _with_qvalues(table, base_line)
    return Impact(
        config_path=config_path,
        config=config,
        variants=list(variants),
        games=accs[0].games,
        seed=seed,
        level=level,
        method=stats.METHOD,
        table=table,
        summary=impact_file.impact_summary(table),
        wall_time_s=time.perf_counter() - t0,
        lineup=base_line,
    )


def _with_qvalues(table: pl.DataFrame, line: stats.Lineup) -> pl.DataFrame:
    """Benjamini-Hochberg q-values over the win-share changes of all variants, so that a table of
    hundreds of intervals flags few changes by chance. A one-seat team repeats its seat's row: it
    is left out of the family and shares the seat's q-value. ``flagged``: q < impact_file.FLAG_Q."""
    shares = (table["metric"] == "win_share").to_numpy()
    kinds, groups = table["kind"].to_numpy(), table["group"].to_numpy()
    seat_of = {}
    for name in line.teams:
        seats = line.fixed_seats("team", name)
        if seats is not None and len(seats) == 1:
            seat_of[name] = seats[0]
    repeat = shares & np.array(
        [k == "team" and g in seat_of for k, g in zip(kinds, groups, strict=True)]
    )
    family = shares & ~repeat
    q = np.full(table.height, np.nan)
    q[family] = stats.bh_qvalues(table["p_value"].to_numpy()[family])
    table = table.with_columns(q_value=pl.Series(q))
    if repeat.any():
        seat_q = table.filter(pl.col("metric") == "win_share", pl.col("kind") == "seat").select(
            "variant", seat=pl.col("group"), seat_q=pl.col("q_value")
        )
        table = (
            table.with_row_index("_i")
            .with_columns(
                seat=pl.col("group").replace_strict(
                    {k: str(v) for k, v in seat_of.items()}, default=None, return_dtype=pl.String
                )
            )
            .join(seat_q, on=["variant", "seat"], how="left")
            .with_columns(
                q_value=pl.when(pl.Series(repeat))
                .then(pl.col("seat_q"))
                .otherwise(pl.col("q_value"))
            )
            .sort("_i")
            .drop("_i", "seat", "seat_q")
        )
    return impact_file.flag(table)


def check_impact_out(path: str | os.PathLike[str]) -> None:
    """Refuse a bad ``--out`` before minutes of games rather than after them."""
    impact_file.check_out(path)


def write_impact(result: Impact, path: str | os.PathLike[str]) -> Path:
    """Write the impact table: ``.parquet`` (the long table) or ``.json`` (provenance, summary
    and the long table); the format is balance/impact_file.py's."""
    provenance = {
        "config_path": result.config_path,
        "config": result.config.resolved_dict(),
        "games": result.games,
        "seed": result.seed,
        "level": result.level,
        "method": result.method,
        "variants": [v._asdict() for v in result.variants],
    }
    return impact_file.write_impact(
        path, table=result.table, summary=result.summary, provenance=provenance
    )


def play_report_variants(
    config: RunConfig,
    variants: Sequence[Variant],
    *,
    config_path: str,
    results_dir: str | os.PathLike[str],
    games: int,
    seed: int,
    threads: int | None = None,
    progress: Progress | None = None,
) -> Path:
    """Play the game's report variants (``report_variants(plugin, config)``, e.g. The Raven Order
    without the second player's compensation) on a run's seed and games into
    ``<results_dir>/variants.json``, which the report of that directory reads."""
    result = impact(
        config,
        variants,
        config_path=config_path,
        variants_source=f"{config.game} report variants",
        games=games,
        seed=seed,
        threads=threads,
        progress=progress,
    )
    return write_impact(result, Path(results_dir) / REPORT_VARIANTS_FILE)
