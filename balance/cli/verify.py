"""``balance verify``: check results datasets in full, as every reader does."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from balance.cli._app import _error, _one_line, command
from balance.errors import BalanceError


@command()
def verify(
    dirs: Annotated[
        list[Path],
        typer.Argument(
            help="Results directories (or sweep directories: every point).",
            show_default=False,
            metavar="RESULTS",
        ),
    ],
) -> None:
    """Check results datasets as every reader does, in full: each manifest against its schema
    and recorded config, each part against the SHA-256 recorded when it was written and the run
    id in its footer. `ok` for a sound dataset; one line per bad part (with the command that
    rewrites it), exit 1, otherwise."""
    from balance import results
    from balance.experiments import sweep

    bad = 0
    for d in dirs:
        try:
            targets = (
                [p.path for p in sweep.open_sweep(d).points if p.status != "pending"]
                if sweep.is_sweep(d)
                else [d]
            )
        except BalanceError as e:
            _error(e)
            bad += 1
            continue
        if not targets:
            typer.echo(f"ok: {d} (a sweep with no point played yet: nothing to verify)")
        for target in targets:
            try:
                manifest, problems = results.verify(target)
            except (BalanceError, OSError) as e:
                _error(_one_line(e))
                bad += 1
                continue
            for problem in problems:
                _error(problem)
            bad += bool(problems)
            if not problems:
                parts = len(manifest["parts"])
                typer.echo(
                    f"ok: {target} ({manifest['games_done']:,} games in {parts} "
                    f"part{'s' * (parts != 1)}, {results.status_text(manifest)})"
                )
    if bad:
        raise typer.Exit(1)
