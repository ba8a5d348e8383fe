"""``balance check``: the CI balance gate (balance/experiments/check.py), whose errors exit 2."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from balance import terminal
from balance.cli._app import AddressOpt, BackendOpt, ThreadsOpt, _backend, _GateCommand, command


@command(cls=_GateCommand)
def check(
    spec: Annotated[
        Path, typer.Argument(help="Check spec (YAML).", show_default=False, metavar="SPEC")
    ],
    junit: Annotated[
        Path | None, typer.Option(help="Also write the verdicts as JUnit XML to this file.")
    ] = None,
    threads: ThreadsOpt = None,
    sets: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="KEY=VALUE",
            show_default=False,
            help="Change one value of every config the spec names (baselines too) as if their "
            "files said it (repeatable), e.g. rules.relics.gem.count=3 to gate a proposed change "
            "before writing it; a key a config lacks is an error naming that config.",
        ),
    ] = None,
    backend: BackendOpt = "local",
    address: AddressOpt = None,
) -> None:
    """CI balance gate: decide each claim of SPEC with sequential tests (as few games as needed).

    Each assertion promises P(pass | off by delta/2) <= alpha and P(fail | holds with delta/2 to spare) <= beta (per assertion, not for the whole gate); its interval is a confidence sequence, valid when the test stops. A max_games too small for a delta is a warning (stderr).

    Exit 0: every assertion passes; 1: one fails or is inconclusive; 2: a bad spec, config or option (one line).
    """
    from balance import experiments
    from balance.config.overrides import parse_overrides
    from balance.experiments.junit import check_junit, format_summary, write_junit

    overrides = parse_overrides(sets)
    parsed = experiments.load_spec(spec)
    if junit is not None:  # before the games: a FIFO would block the gate at its end
        check_junit(junit, spec_path=spec, spec=parsed)
    with _backend(backend, address, threads), terminal.check_progress() as progress:
        result = experiments.check(
            parsed, spec_path=spec, threads=threads, progress=progress, overrides=overrides
        )
    if junit is not None:
        write_junit(result, junit)
    for a in result.assertions:
        typer.echo(experiments.format_line(a, result.level))
    for warning in result.warnings():
        typer.echo(f"warning: {warning}", err=True)
    typer.echo(format_summary(result) + (f"; JUnit -> {junit}" if junit is not None else ""))
    if not result.passed:
        raise typer.Exit(1)
