"""``balance replay``: one game of a run, turn by turn, in words or as a page of pictures."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from balance.cli._app import SetOpt, _load, command
from balance.errors import BalanceError


@command()
def replay(
    source: Annotated[
        Path,
        typer.Argument(
            help="YAML config file, or a results directory (its run's resolved config and seed).",
            show_default=False,
            metavar="CONFIG|RESULTS",
        ),
    ],
    game: Annotated[
        int, typer.Option("--game", metavar="I", help="Game index (0 = first game of the run).")
    ],
    seed: Annotated[
        int | None, typer.Option(help="Run seed (default: the config's or the run's).")
    ] = None,
    sets: SetOpt = None,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            metavar="FILE",
            help="Write the game as one self-contained HTML page instead of printing it: the "
            "pile after set-up and after every turn on a slider, each turn in words beside it "
            "(plotly.js inlined: opens offline). Games with pictures: corvids.",
        ),
    ] = None,
) -> None:
    """Print one game of a run turn by turn: same config, seed and index, same game.

    With --html, write it as a page of pictures instead (for games that draw them)."""
    from balance import runner, runs
    from balance.outputs import check_output_file

    if html is not None:  # before the kernels load and the game plays
        check_output_file(
            html, "--html", inputs={source: "the config being replayed"}, suggest="game.html"
        )
    if source.is_dir():
        if sets:
            raise BalanceError(
                f"--set {sets[0]}: {source} is a results directory, whose games were played with "
                "its recorded config; give a CONFIG file to replay a changed one"
            )
        cfg, seed = runs.recorded_run(source, game=game, seed=seed)
    else:
        cfg = _load(source, sets)
    if html is not None:
        path = runner.write_replay_page(cfg, html, game=game, seed=seed)
        typer.echo(f"replay page -> {path} ({path.stat().st_size / 1e6:.1f} MB)")
        return
    lines = runner.narrate(cfg, game=game, seed=seed)
    for line in lines:
        typer.echo(line)
