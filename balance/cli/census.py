"""``balance census``: a sample of games replayed decision by decision (turns, dead turns and
kingmaking, with intervals)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from balance.cli._app import SeedOpt, SetOpt, _load, command
from balance.errors import BalanceError


@command()
def census(
    source: Annotated[
        Path,
        typer.Argument(
            help="YAML config file, or a results directory (its run's games: the resolved "
            "config and seed its manifest recorded).",
            show_default=False,
            metavar="CONFIG|RESULTS",
        ),
    ],
    games: Annotated[
        int, typer.Option(metavar="N", help="Games replayed: games 0 to N - 1 of the run.")
    ] = 200,
    seed: SeedOpt = None,
    sets: SetOpt = None,
    kingmaking: Annotated[
        bool,
        typer.Option(
            help="Test the last decisions of the seats that lost for kingmaking (most of the "
            "time a census takes: each tested option is played to the end --replays times)."
        ),
    ] = True,
    window: Annotated[
        float,
        typer.Option(metavar="F", help="Share of each game's decisions, from its end, tested."),
    ] = 1.0 / 3.0,
    alternatives: Annotated[
        int, typer.Option(metavar="K", help="Other options tried at a tested decision, at most.")
    ] = 4,
    replays: Annotated[
        int,
        typer.Option(metavar="R", help="Games played from each tried option, chance re-seeded."),
    ] = 3,
    out: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="Parquet file to write the census to, one row per game and seat (default "
            "with RESULTS: RESULTS/census.parquet, which its report reads).",
        ),
    ] = None,
) -> None:
    """Replay games 0 to N - 1 of a run decision by decision, and print turns per place in the
    turn order, dead turns (no choice) and kingmaking, with intervals over games."""
    from balance import census as cs
    from balance.terminal import census_tables, print_table, progress_bar

    if source.is_dir():
        if sets:
            raise BalanceError(
                f"--set {sets[0]}: {source} is a results directory, whose games were played "
                "with its recorded config; give a CONFIG file to take a changed one's census"
            )
        cfg, seed = cs.results_run(source, games, seed)
        out = source / cs.CENSUS_FILE if out is None else out
    else:
        cfg = _load(source, sets)
        seed = cfg.seed if seed is None else seed
    if out is not None:
        cs.check_out(out, source)
    with progress_bar("census") as bar:
        settings = cs.Settings(kingmaking, window, alternatives, replays)
        c = cs.take_census(cfg, seed, games, settings, progress=bar)
    for line in census_tables(c):
        print_table(line) if not isinstance(line, str) else typer.echo(line)
    if out is not None:
        typer.echo(f"census -> {cs.write_census(c, out)}")
