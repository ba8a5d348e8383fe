"""``balance watch``: a local page that plays CONFIG again at every save (balance/live.py,
balance/live_server.py, balance/live_page.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from balance.cli._app import SetOpt, ThreadsOpt, _error, command, stopping

WatchGamesOpt = Annotated[
    int,
    typer.Option(
        "--games",
        help="Game budget of each saved version: its figures stop refining here (at most "
        "1,000,000; `balance simulate` is for bigger runs).",
    ),
]
HalfWidthOpt = Annotated[
    float,
    typer.Option(
        help="Stop a version's games once the headline's 95 % interval is at most this on "
        "each side, in the headline's units: a share for a win share (0.005 = half a point), "
        "turns or points otherwise.",
    ),
]


@command()
def watch(
    config: Annotated[
        Path, typer.Argument(help="Config to watch; the files it extends are watched too.")
    ],
    against: Annotated[
        Path | None,
        typer.Option(
            help="Compare every version with this config (default: with the version saved "
            "before it). Same game and player count.",
            metavar="BASE",
        ),
    ] = None,
    sets: SetOpt = None,
    games: WatchGamesOpt = 200_000,
    half_width: HalfWidthOpt = 0.005,
    seed: Annotated[int | None, typer.Option(help="Run seed (default: the config's).")] = None,
    threads: ThreadsOpt = None,
    port: Annotated[
        int, typer.Option(help="Port on 127.0.0.1 (0: a free one). Never other interfaces.")
    ] = 0,
    open_page: Annotated[
        bool,
        typer.Option("--open/--no-open", help="Open the page in a browser, if one is available."),
    ] = True,
    once: Annotated[
        bool,
        typer.Option(
            "--once",
            help="No page and no watching: play the config as saved now to its stopping rule, "
            "print the headline, the verdict and the change against BASE, and exit.",
        ),
    ] = False,
) -> None:
    """Serve a local page that plays CONFIG again whenever it or a file it extends is saved:
    the headline, the verdict on every axis and the paired change against the version saved
    before (or --against BASE), on common seeds, refined as the games accumulate. A bad edit
    is shown in one line, on the page and here, and the last good figures stay. Ctrl-C stops
    (exit 130, as for every command)."""
    from balance import live, live_server, runner

    if (missing := live_server.missing_extra()) is not None:
        _error(missing)
        raise typer.Exit(1)
    if not 1 <= games <= live.MAX_GAMES:
        raise runner.RunnerError(f"--games must be from 1 to {live.MAX_GAMES:,}, got {games:,}")
    if not 0 < half_width <= live.MAX_HALF_WIDTH:
        raise runner.RunnerError(
            f"--half-width must be above 0 and at most {live.MAX_HALF_WIDTH:g}, got {half_width:g}"
        )
    if not 0 <= port <= 65535:
        raise runner.RunnerError(f"--port must be from 0 to 65535, got {port}")
    runner.check_options(games=games, seed=0 if seed is None else seed, threads=threads)
    say = lambda text: typer.echo(text, err=text.startswith("error"))  # noqa: E731
    w = live_server.Watch(
        config, sets=sets, against=against, games=games, half_width=half_width, seed=seed,
        threads=threads, say=say,
    )  # fmt: skip
    w.first_load()
    if once:
        for line in w.once():
            typer.echo(line)
        return
    with stopping(nothing=": the watch is over, nothing was written"):
        live_server.run(w, port=port, open_page=open_page, echo=typer.echo)
