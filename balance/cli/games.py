"""``balance games``: the games and every knob of their configs."""

from __future__ import annotations

from typing import Annotated

import typer

from balance.cli._app import _error, command
from balance.config import knobs


@command("games")
def list_games(
    name: Annotated[str | None, typer.Argument(help="Show only this game.", metavar="GAME")] = None,
) -> None:
    """List the games and every knob of their configs: rules and policy settings, with defaults."""
    from balance import games as registry

    names = registry.names()
    if name is not None and name not in names:
        _error(f"unknown game {name!r}; known games: {', '.join(names)}")
        raise typer.Exit(1)
    for i, game in enumerate([name] if name else names):
        typer.echo(("\n" if i else "") + "\n".join(knobs.describe_game(registry.get(game))))
