"""``balance impact``: every variant against the base config on the same seeds (causal impact).

Chunks are the outer loop (the base chunk is played once and paired with every variant's), so
memory holds one chunk per run at a time. The file it writes is balance/impact_file.py's.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

import polars as pl

from balance import impact_file, runner, stats
from balance.config import RunConfig
from balance.config.headline import headline_of
from balance.experiments.compare import Seated, check_pairable, leave_out
from balance.experiments.play import Progress, Runs
from balance.experiments.variants import (
    REPORT_VARIANTS_FILE,
    Variant,
    apply_patch,
)
from balance.outputs import check_output_file
from balance.runner import CHUNK, RunnerError


class Impact(NamedTuple):
    """Interventional impact: every variant against the base config on the same seeds.

    ``table`` is long: one row per (variant, metric, group) with the columns of
    stats.PairedAccumulator.table (a = base, b = variant, diff = variant - base) plus
    ``variant`` and ``description``; ``q_value`` is Benjamini-Hochberg over every row of every
    variant and ``significant`` is q < 0.05 (balance/stats/multiple.py), the rule every star,
    colour and sentence uses. ``summary`` has one row per variant: its change of the config's
    headline metric (balance/impact_file.py, ``impact_summary``).
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
    headline: tuple[str, str, str] = impact_file.DEFAULT_HEADLINE  # what the summary ranks by
    # per variant (its name), the teams and roles its table leaves out, as compare's
    # (kind, group, why): balance/experiments/compare.py's ``leave_out``
    left_out: Mapping[str, tuple[tuple[str, str, str], ...]] = MappingProxyType({})


IMPACT_GAMES_IN_MEMORY = 1 << 19  # games held at once over all configs (one chunk each)


def impact_chunk(configs: int) -> int:
    """Games per chunk when ``configs`` runs are played side by side: a power of two that keeps
    about IMPACT_GAMES_IN_MEMORY games in memory (the runner's CHUNK at most, 1,024 at least).
    Game i is the same game whatever the chunk, so the table does not depend on it."""
    per = max(1024, IMPACT_GAMES_IN_MEMORY // max(configs, 1))
    return min(CHUNK, 1 << (per.bit_length() - 1))


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
    chunk_size: int | None = None,
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
    if chunk_size is None:
        chunk_size = impact_chunk(1 + len(configs))
    runner.check_options(
        games=games, seed=seed, chunk_size=chunk_size, threads=threads, players=config.players
    )  # the same bound as simulate's
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

        def played(n: int) -> None:  # after each config's chunk: progress through the variants
            nonlocal done
            done += n
            report(done, total)

        seated = [Seated(line) for line in runs.lineups]
        report(0, total)  # the kernels are loaded: the games start
        for arrays in runs.play(seed=seed, games=games, chunk_size=chunk_size, played=played):
            base = arrays[0]
            for acc, arr in zip(accs, arrays[1:], strict=True):
                acc.add(base, arr)
            for seat, arr in zip(seated, arrays, strict=True):
                seat.add(arr)
    # A group no game of both configs holds (a Raven Manor character outside the line-up, or
    # dealt in one config only) has no paired difference: no row, rather than a "0 change" of 0
    # games that the impact file's reader refuses (games >= 1); named as `compare` names them.
    tables, left_out = [], {}
    for v, acc, seat in zip(variants, accs, seated[1:], strict=True):
        kept, left_out[v.name] = leave_out(acc.raw_table(level), seated[0], seat)
        kept = kept.filter(pl.col("games") > 0)  # and any other row no game pairs
        tables.append(kept.with_columns(variant=pl.lit(v.name), description=pl.lit(v.description)))
    table = pl.concat(tables).select("variant", "description", pl.exclude("variant", "description"))
    # One family: every row of every variant (balance/stats/multiple.py).
    table = stats.adjust(table, repeats=base_line.repeats(), within=("variant",))
    headline = headline_of(config)
    return Impact(
        config_path=config_path,
        config=config,
        variants=list(variants),
        games=accs[0].games,
        seed=seed,
        level=level,
        method=stats.METHOD,
        table=table,
        summary=impact_file.impact_summary(table, headline),
        headline=headline,
        wall_time_s=time.perf_counter() - t0,
        lineup=base_line,
        left_out=left_out,
    )


def check_impact_out(
    path: str | os.PathLike[str],
    *,
    inputs: dict[str | os.PathLike[str], str] | None = None,
    option: str = "--out",
) -> None:
    """Refuse a bad ``--out`` before minutes of games rather than after them: one that cannot be
    written (balance/outputs.py; not a device, FIFO or directory), one of the command's
    ``inputs`` (the config, the variants file) or not a ``.json`` or ``.parquet`` file."""
    check_output_file(path, option, inputs=inputs)
    impact_file.check_out(path)


def check_report_variants(results_dir: str | os.PathLike[str], *, skip: str) -> None:
    """Refuse, before any game, a results directory where the report's card impact
    (``<results_dir>/variants.json``, :func:`play_report_variants`) could not be written;
    ``skip`` says how to leave the card impact out (``--no-impact``)."""
    check_output_file(
        Path(results_dir) / REPORT_VARIANTS_FILE,
        fix=f"the report's card impact is written there (leave it out with {skip})",
    )


def write_impact(
    result: Impact, path: str | os.PathLike[str], *, featured: Sequence[str] = ()
) -> Path:
    """Write the impact table: ``.parquet`` (the long table) or ``.json`` (provenance, summary
    and the long table); the format is balance/impact_file.py's."""
    provenance = {
        "config_path": result.config_path,
        "config": result.config.resolved_dict(),
        "overrides": list(result.config.overrides),  # --set KEY=VALUE, as written
        "games": result.games,
        "seed": result.seed,
        "level": result.level,
        "method": result.method,
        "headline": list(result.headline),
        "variants": [v._asdict() for v in result.variants],
        "featured": list(featured),  # variants every reader asks about (the report says each)
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
    featured: Sequence[str] = (),
) -> Path:
    """Play the game's report variants (``report_variants(plugin, config)``, e.g. The Raven Order
    without the second player's compensation) on a run's seed and games into
    ``<results_dir>/variants.json``, which the report of that directory reads.

    The directory's writer lock is held meanwhile (results.one_writer): while a run writes there,
    or another report plays its variants, this fails at once, one line, before any game."""
    from balance import results

    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(results.one_writer(results_dir, what="results directory"))
        except results.Busy as e:
            raise results.Busy(f"{e}; or report it without card impact (--no-impact)") from None
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
        return write_impact(result, Path(results_dir) / REPORT_VARIANTS_FILE, featured=featured)


PAIRED_COST = 1.5  # a config's game in `impact`, in games of a plain `simulate`


def _round_125(n: int) -> int:
    """The largest 1, 2 or 5 x 10^k not above ``n`` (0 for n < 1)."""
    if n < 1:
        return 0
    scale = 10 ** (len(str(n)) - 1)
    return max(m * scale for m in (1, 2, 5) if m * scale <= n)


class ReportImpactPlan(NamedTuple):
    """What ``simulate --report`` plays for the report's causal card impact."""

    variants: list[Variant]  # the game's report variants, then its default impact variants
    featured: list[str]  # the names of the game's report variants (the page says each)
    games: int  # per variant (the run's first games, on its seed); 0: none fit the budget
    budget_s: float
    reason: str  # why ``games`` is what it is, for the progress line and the page


def plan_report_impact(
    config: RunConfig, plugin: object, *, games_done: int, games_per_s: float
) -> ReportImpactPlan:
    """The variants and games per variant that fit the config's ``report.impact_seconds``: the
    card impact plays 1 + len(variants) configs a game, each at about 1/PAIRED_COST of the run's
    own speed."""
    from balance.experiments.variants import distinct_variants, report_variants

    settings = config.report
    featured = [v.name for v in report_variants(plugin, config)]
    chosen = distinct_variants(plugin, config)  # each change once, the report's first
    budget = float(settings.impact_seconds)
    if not chosen or budget <= 0:
        why = "no variants" if not chosen else "report.impact_seconds is 0"
        return ReportImpactPlan(chosen, featured, 0, budget, why)
    # a paired game of two configs costs about 1.5 plain ones (pairing, per-game group values):
    # measured, 1M Five Ravens games with 33 variants
    if settings.impact_games is not None:  # fixed: the same page on any machine
        games = min(games_done, settings.impact_games)
        return ReportImpactPlan(
            chosen,
            featured,
            games,
            budget,
            f"{len(chosen)} variants x {games:,} games (the run's first games, same seeds; "
            "report.impact_games)",
        )
    fit = int(budget * max(games_per_s, 0.0) / (PAIRED_COST * (1 + len(chosen))))
    # down to 1, 2 or 5 times a power of ten, so that a little more or less speed seldom changes
    # the games (and so the page); report.impact_games fixes them outright
    games = min(games_done, _round_125(fit))
    if games < settings.impact_min_games:
        return ReportImpactPlan(
            chosen,
            featured,
            0,
            budget,
            f"{len(chosen)} variants would get {games:,} games in {budget:g} s, fewer than "
            f"report.impact_min_games ({settings.impact_min_games:,})",
        )
    why = (
        f"{len(chosen)} variants x {games:,} games (the run's first games, same seeds) to fit "
        f"report.impact_seconds = {budget:g} s at {games_per_s:,.0f} games/s"
    )
    return ReportImpactPlan(chosen, featured, games, budget, why)
