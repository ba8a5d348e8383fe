"""``balance bench``: measure a game on this machine (balance/bench.py; see noxfile.py session
"bench")."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from balance import terminal
from balance.cli._app import command


@command()
def bench(
    game: Annotated[
        str, typer.Argument(help="Game to measure (see `balance games`).", metavar="GAME")
    ],
    games: Annotated[
        int,
        typer.Option(
            help="Games per repeat for the headline line-up (most players, the base config's "
            "policy); other line-ups play at most this, about 2 s of work."
        ),
    ] = 1_000_000,
    threads: Annotated[
        int | None, typer.Option(help="Threads for the all-threads rows (default: all cores).")
    ] = None,
    python_games: Annotated[
        int, typer.Option(help="Games for the plain-Python (NUMBA_DISABLE_JIT=1) run; 0 skips it.")
    ] = 200,
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Also write every figure to this JSON file.")
    ] = None,
    config: Annotated[
        Path | None, typer.Option(help="Base config (default: configs/GAME/base.yaml).")
    ] = None,
    repeats: Annotated[int, typer.Option(help="Repeats per measurement; the best counts.")] = 3,
    iterations: Annotated[
        str | None,
        typer.Option(
            help="For a config with search seats (docs/search.md): the search budgets to "
            "measure, comma-separated (e.g. 100,1000,10000); default the config's own. Each "
            "plays the config's line-up for about 10 s a thread count."
        ),
    ] = None,
    cold: Annotated[
        bool,
        typer.Option("--cold/--no-cold", help="Measure compiling from scratch (about a minute)."),
    ] = True,
    end_to_end: Annotated[
        bool,
        typer.Option(
            "--end-to-end/--no-end-to-end",
            help="Also time `balance simulate` writing parquet (the headline line-up, --games "
            "games) against the kernels' all-threads figure.",
        ),
    ] = True,
) -> None:
    """Measure GAME on this machine: compile and start-up times, games/s, plain-Python ratio;
    with a search config, also the search player's searches/s and milliseconds a search."""
    from balance import bench as bench_lib

    budgets = None
    if iterations is not None:
        try:
            budgets = [int(x.replace("_", "")) for x in iterations.split(",")]
        except ValueError:
            raise bench_lib.BenchError(
                f"--iterations: expected whole numbers separated by commas, got {iterations!r}"
            ) from None
    if json_file is not None:  # before minutes of measuring, not after them
        bench_lib.check_json(json_file, game=game, config=config)
    err = Console(stderr=True)
    with contextlib.ExitStack() as stack:
        say = None
        if err.is_terminal:
            status = stack.enter_context(err.status("benchmarking"))
            say = status.update
        result = bench_lib.run(
            game,
            config=config,
            games=games,
            threads=threads,
            python_games=python_games,
            repeats=repeats,
            cold=cold,
            end_to_end=end_to_end,
            iterations=budgets,
            progress=say,
        )
    if result.startup.cold_s is not None:  # a cold compile measured on this machine
        from balance import _kernels

        _kernels.record_compile_time(game, result.startup.cold_s)
    if json_file is not None:
        bench_lib.write_json(result, json_file)
    out = Console()
    if not out.is_terminal:
        out.width = max(out.width, 120)
    out.print(terminal.bench_table(result))
    if result.targets:
        out.print(terminal.bench_targets(result))
    if json_file is not None:
        out.print(f"figures -> {json_file}", highlight=False)
