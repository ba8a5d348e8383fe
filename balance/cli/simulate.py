"""``balance simulate``: play a config's games into a results directory, or resume a stopped run
(balance/runs.py decides which and plays it; balance/runner/write.py writes the dataset)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from balance import terminal
from balance.cli._app import (
    AddressOpt,
    BackendOpt,
    SeedOpt,
    SetOpt,
    ThreadsOpt,
    _backend,
    _confirm_costs,
    _play_card_impact,
    _say_backend,
    _shown,
    _write_report,
    command,
    stopping,
)


@command()
def simulate(
    config: Annotated[
        Path | None,
        typer.Argument(
            help="YAML config file (with --resume: optional, checked against the run's).",
            show_default=False,
            metavar="CONFIG",
        ),
    ] = None,
    sets: SetOpt = None,
    games: Annotated[
        int | None, typer.Option(help="Games to play (default: the config's).")
    ] = None,
    seed: SeedOpt = None,
    out: Annotated[
        Path | None,
        typer.Option(
            metavar="DIR",
            help="Results directory (default: results/<game>-<config stem>-<date>-<time>).",
        ),
    ] = None,
    threads: ThreadsOpt = None,
    chunk_size: Annotated[
        int | None,
        typer.Option(
            help="Games per chunk (one parquet part) \\[default: 65536; --resume: the run's]."
        ),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace --out if it holds an earlier run.")
    ] = False,
    resume: Annotated[
        Path | None,
        typer.Option(
            "--resume",
            metavar="DIR",
            help="Continue the run in DIR (interrupted, killed or failed) from its finished "
            "chunks, with its config, games, seed and chunk size (any given must match its "
            "manifest); the dataset ends as an uninterrupted run's.",
        ),
    ] = None,
    backend: BackendOpt = "local",
    address: AddressOpt = None,
    report_file: Annotated[
        Path | None,
        typer.Option(
            "--report",
            metavar="FILE",
            help="Also write an HTML report of the run to this file (after playing the game's "
            "report variants, if any, on the same games: RESULTS/variants.json).",
        ),
    ] = None,
    ladder: Annotated[
        Path | None,
        typer.Option(
            metavar="DIR",
            help="With --report: a skill ladder of the same game (`balance ladder --out DIR`); "
            "the report gains its Skill section and the verdict says how the headline moves "
            "with skill.",
        ),
    ] = None,
    yes: Annotated[
        bool,
        typer.Option(
            "--yes",
            "-y",
            help="Run without asking even when the run is expected to take more than an hour "
            "or to need more disk than is free (off a terminal such a run is refused "
            "without --yes).",
        ),
    ] = False,
) -> None:
    """Play the games of CONFIG and write one row per game and seat to a results directory.

    A run stopped by Ctrl-C, kill or a failure goes on with `balance simulate --resume DIR`."""
    from balance import runs

    plan = runs.plan_run(
        config,
        sets,
        config_path=None if config is None else _shown(config),
        out=out,
        resume=resume,
        force=force,
        games=games,
        seed=seed,
        chunk_size=chunk_size,
    )
    if report_file is not None or ladder is not None:  # before the run, not after minutes of it
        _check_simulate_report(report_file, config=config, out=resume or out, fresh=force,
                               ladder=ladder, game=_game(plan))  # fmt: skip
    with _backend(backend, address, threads):
        _confirm_costs(runs.run_costs(plan, threads=threads), yes=yes)
        with stopping(nothing=_nothing_played(plan)), terminal.progress_bar() as progress:
            summary = runs.play_run(plan, threads=threads, progress=progress)
        if plan.resumed and summary.games_kept == summary.games_requested:
            typer.echo(
                f"already complete: {summary.games_done:,} games in {plan.out}; nothing to play"
            )
            return
        if plan.resumed:
            typer.echo(
                f"resumed {plan.out} at game {summary.games_kept:,}: played "
                f"{summary.games_done - summary.games_kept:,} more",
                err=True,
            )
        _say_backend(summary.backend)
        typer.echo(
            f"{summary.games_done:,} games in {summary.wall_time_s:.2f} s "
            f"({summary.games_per_s:,.0f} games/s), {summary.rows:,} rows -> {summary.out}"
        )
        if report_file is not None:
            # Card impact by default: the game's report and impact variants on the run's first
            # games (same seeds), as many games as fit the config's report.impact_seconds.
            impact = runs.run_impact(plan, summary)
            impact_file = _play_card_impact(impact, threads=threads, label="card impact")
            _write_report([summary.out], out=report_file, impact=impact_file, ladder=ladder)


def _game(plan: Any) -> str:
    """The game ``plan`` plays: its config's, or the resumed run's recorded one."""
    if plan.config is not None:
        return str(plan.config.game)
    from balance.results import read_manifest

    return str(read_manifest(plan.out).get("game"))


def _nothing_played(plan: Any) -> str:
    """What a stop before the first game of ``plan`` says after ``interrupted``."""
    if plan.resumed:
        return f" before the first game of this session: {plan.out} as it was"
    return f" before the first game: nothing written to {plan.out}"


def _check_simulate_report(
    report_file: Path | None,
    *,
    config: Path | None,
    out: Path | None,
    fresh: bool,
    ladder: Path | None,
    game: str,
) -> None:
    """``simulate --report``: the page, and the card impact it plays into the results directory
    (RESULTS/variants.json, unless --force clears the directory first), can be written; a
    ``--ladder`` is a finished ladder of the same game."""
    from balance.errors import BalanceError
    from balance.experiments.impact import check_report_variants
    from balance.report import check_output

    if ladder is not None:
        from balance.ladder_file import read_depth, read_manifest

        if report_file is None:
            raise BalanceError("--ladder: goes with --report FILE (the page it adds a section to)")
        if read_manifest(ladder).get("game") != game:
            raise BalanceError(f"--ladder {ladder}: is a ladder of another game than {game}")
        read_depth(ladder)  # finished: else one line now, not after the run

    inputs: dict[Any, str] = {config: "the config"} if config is not None else {}
    if out is not None:
        inputs[out / "variants.json"] = "the card impact the report reads"
    check_output(
        report_file, "--report", inputs=inputs, results_dirs=[out] if out is not None else []
    )
    if out is not None and not fresh:
        check_report_variants(out, skip="--set report.impact_seconds=0")
