"""``balance validate``: check config files without playing."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from balance.cli._app import SetOpt, _error, _load, _one_line, command
from balance.errors import BalanceError


@command()
def validate(
    configs: Annotated[
        list[Path], typer.Argument(help="YAML config files.", show_default=False, metavar="CONFIG")
    ],
    sets: SetOpt = None,
) -> None:
    """Check config files without playing: `ok` or the error for each; exit 1 if any is invalid.

    With --set, each file is checked with the overrides applied."""
    from balance.config.overrides import parse_overrides

    parse_overrides(sets)  # a bad --set is one error, not one per file
    invalid = 0
    for path in configs:
        try:
            cfg = _load(path, sets)
        except (BalanceError, OSError) as e:  # each file's own line; then the next file
            _error(_one_line(e))
            invalid += 1
            continue
        seats = ", ".join(cfg.seats)
        typer.echo(f"ok: {path} ({cfg.game}, {cfg.players} players, seats: {seats})")
    if invalid:
        raise typer.Exit(1)
