"""``balance tune``: find the value of a knob that brings a metric to its target
(balance/experiments/tune.py)."""

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
    SeedOpt,
    SetOpt,
    ThreadsOpt,
    XlsxOpt,
    _backend,
    _shown,
    _with_sets,
    _write_tables,
    command,
    stopping,
)


@command()
def tune(
    config: ConfigArg,
    param: Annotated[
        list[str],
        typer.Option(
            "--param",
            metavar="KEY=lo..hi[:step]",
            show_default=False,
            help="A knob and the range searched: an integer key searches lo, lo + step, ... hi "
            "(step 1 by default), a real key multiples of the step (its tolerance; default "
            "(hi - lo)/100). Several --param are searched together.",
        ),
    ],
    target: Annotated[
        list[str],
        typer.Option(
            "--target",
            metavar="METRIC=VALUE",
            show_default=False,
            help="The metric and its target, named as in check specs: win_share\\[seat=0], "
            "win_share\\[order=0] (first player), win_share\\[policy=NAME], "
            "win_share\\[team=NAME], win_share\\[role=NAME], mean_score (or "
            "mean_score\\[seat=1] ...), mean_turns, or how the game plays: lead_changes, "
            "comeback_half, comeback_two_thirds, max_deficit, decided_at, margin, close; add "
            "decided to count only games one team "
            "won alone (win_share\\[order=0,decided]=0.5); @WEIGHT weighs a target in the "
            "distance of a search (repeatable).",
        ),
    ],
    sets: SetOpt = None,
    games: Annotated[
        int | None,
        typer.Option(
            help="Budget: games played in all, a fifth kept for a fresh look at the answer "
            "(default: the config's)."
        ),
    ] = None,
    seed: SeedOpt = None,
    threads: ThreadsOpt = None,
    out: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="Write the tuned config to FILE.yaml: it extends CONFIG and sets the tuned "
            "values (and the --set ones), with a comment saying how they were found.",
        ),
    ] = None,
    trials: Annotated[
        int,
        typer.Option(
            help="Several --param or --target: points searched (every point of the grid when "
            "it has no more; else optuna's TPE sampler)."
        ),
    ] = 60,
    csv: CsvOpt = None,
    xlsx: XlsxOpt = None,
    backend: BackendOpt = "local",
    address: AddressOpt = None,
) -> None:
    """Find the value of a knob that brings a metric to its target, on common seeds.

    One --param and one --target: noisy bisection with confidence sequences; it prints the value with a 95 % interval (the metric crosses the target inside it), the games spent and the metric at the answer on fresh games. Several: a search of the weighted distance to the targets, the best point re-measured on fresh games."""
    from balance import sheets
    from balance.experiments import tune as tune_lib
    from balance.experiments import tune_answer

    if out is not None:
        tune_answer.check_out(out, config)  # before the games, not after them
    tables = sheets.check_tables(csv, xlsx, "tune", inputs={config: "the config being tuned"})
    nothing = ": nothing written" + (f" to {out}" if out else "")
    with (
        stopping(nothing=nothing),
        _backend(backend, address, threads),
        terminal.progress_bar("tune") as progress,
    ):
        result = tune_lib.tune(
            config,
            param,
            target,
            sets=sets or [],
            games=games,
            seed=seed,
            threads=threads,
            trials=trials,
            config_path=_shown(config),
            progress=progress,
        )
    what = ", ".join(p.describe() for p in result.params)
    goals = ", ".join(t.text for t in result.targets)
    typer.echo(f"tune {result.config_path}{_with_sets(sets)}: {what}; target {goals}")
    for line in tune_answer.summary_lines(result):
        typer.echo(f"  {line}")
    typer.echo(f"  in {result.wall_time_s:.1f} s")
    if out is not None:
        path = tune_answer.write_tuned(result, out, command=_command_line(config, result))
        typer.echo(f"tuned config -> {path}")
    _write_tables(tables, lambda: sheets.tune_tables(result))


def _command_line(config: Path, result: Any) -> str:
    """The ``balance tune`` command that finds ``result`` again (the tuned config's comment)."""
    return " ".join(
        ["balance tune", _shown(config)]
        + [f"--param {p.text}" for p in result.params]
        + [f"--target '{t.text}'" for t in result.targets]
        + [f"--set {s}" for s in result.sets]
        + [f"--games {result.budget}", f"--seed {result.seed}"]
    )
