"""``balance impact``: the causal card impact of a config (balance/experiments/impact.py; README
section "Statistics, comparisons and the CI balance gate")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from balance import terminal
from balance.cli._app import (
    AddressOpt,
    BackendOpt,
    ConfigArg,
    CsvOpt,
    GamesOpt,
    SeedOpt,
    SetOpt,
    ThreadsOpt,
    XlsxOpt,
    _backend,
    _load,
    _shown,
    _with_sets,
    _write_tables,
    command,
)


@command()
def impact(
    config: ConfigArg,
    sets: SetOpt = None,
    games: GamesOpt = None,
    seed: SeedOpt = None,
    variants: Annotated[
        Path | None,
        typer.Option(
            help="YAML list of {name, description, patch} to measure instead of the game's "
            "default variants (one per card)."
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Also write the full table to FILE.json or FILE.parquet.")
    ] = None,
    threads: ThreadsOpt = None,
    csv: CsvOpt = None,
    xlsx: XlsxOpt = None,
    backend: BackendOpt = "local",
    address: AddressOpt = None,
) -> None:
    """Causal card impact: CONFIG and one variant per card on the same seeds, paired game by game."""
    from balance import experiments, sheets
    from balance import games as registry

    inputs: dict[Any, str] = {config: "the config"}
    if variants is not None:
        inputs[variants] = "the variants file --variants"
    if out is not None:  # before the games, not after them
        experiments.check_impact_out(out, inputs=inputs)
    tables = sheets.check_tables(csv, xlsx, "impact", inputs=inputs)
    cfg = _load(config, sets)
    chosen, source = experiments.chosen_variants(registry.get(cfg.game), cfg, variants)
    with (
        _backend(backend, address, threads),
        terminal.progress_bar(f"impact of {len(chosen)} variants") as progress,
    ):
        result = experiments.impact(
            cfg,
            chosen,
            config_path=_shown(config),
            variants_source=source,
            games=games,
            seed=seed,
            threads=threads,
            progress=progress,
        )
    if out is not None:
        experiments.write_impact(result, out)
    typer.echo(
        f"impact on {result.config_path}{_with_sets(sets)}: variant - base, "
        f"{result.games:,} paired games "
        f"(seed {result.seed}), {len(result.variants)} variants in {result.wall_time_s:.1f} s"
    )
    terminal.print_table(terminal.impact_table(result))
    for words in _left_out(result):
        typer.echo(words)
    typer.echo(_how_to_read(result))
    if out is not None:
        typer.echo(f"table -> {out}")
    _write_tables(tables, lambda: sheets.impact_tables(result))


def _left_out(result: Any) -> list[str]:
    """The lines naming the teams and roles the table leaves out (as ``compare`` names them):
    once when every variant leaves out the same, else under each variant's name."""
    from balance.report.sentences import left_out_words

    groups = {v: g for v, g in result.left_out.items() if g}
    if len(set(groups.values())) <= 1:
        return left_out_words(next(iter(groups.values()), ()))
    return [f"{v}: {w}" for v, g in groups.items() for w in left_out_words(g)]


def _how_to_read(result: Any) -> str:
    """The line under the impact table."""
    from balance import impact_file

    level = f"{result.level * 100:g} %"
    return (
        f"Change in win share (points) and in mean turns ± the {level} half-width (t-interval "
        "over games), sorted by the size of the headline change "
        f"({impact_file.headline_label(result.headline)}); * q < 0.05: Benjamini-Hochberg within "
        "each metric over every variant, times the number of metrics (intervals are per row)."
    )
