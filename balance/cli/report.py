"""``balance report``: one self-contained HTML page of results directories or of a sweep."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from balance.cli._app import (
    _error,
    _play_card_impact,
    _write_ladder_report,
    _write_report,
    _write_sweep_report,
    command,
)


@command()
def report(
    results: Annotated[
        list[Path],
        typer.Argument(
            help="Results directories (one section each), or one sweep directory (its curves), "
            "or one ladder directory (its rungs).",
            show_default=False,
            metavar="RESULTS",
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="FILE",
            help="HTML file to write, e.g. reports/NAME.html (default with one results "
            "directory: RESULTS/report.html).",
        ),
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option(
            help="Results directory to compare with (paired game by game when it ran the same "
            "seed and games)."
        ),
    ] = None,
    impact: Annotated[
        Path | None,
        typer.Option(help="Interventional impact file written by `balance impact --out`."),
    ] = None,
    ladder: Annotated[
        Path | None,
        typer.Option(
            metavar="DIR",
            help="A skill ladder of the same game (`balance ladder --out DIR`): the page gains "
            "its Skill section, and the verdict says how the headline moves with skill.",
        ),
    ] = None,
    cdn: Annotated[
        bool,
        typer.Option(
            "--cdn",
            help="Load plotly.js from its CDN (small file, needs the network) instead "
            "of inlining it.",
        ),
    ] = False,
    no_impact: Annotated[
        bool,
        typer.Option(
            "--no-impact",
            help="Do not play the causal card impact a single results directory lacks "
            "(RESULTS/variants.json); by default it is played within the config's "
            "report.impact_seconds and kept there.",
        ),
    ] = False,
) -> None:
    """Write one self-contained HTML report of RESULTS (to RESULTS/report.html by default).

    Provenance, win shares, seat advantage, score and length distributions, card impact, and
    differences against --baseline. A sweep directory (`balance sweep`) gets the sweep's page:
    every metric against the knob, with intervals, the steps between neighbouring points and
    the trend across them; a ladder directory (`balance ladder`) the ladder's: skill depth,
    luck against skill and every finding at every rung. The page opens with a verdict on every axis of balance (each place
    in the turn order, chair, side, role and policy at each place) against the config's
    report.tolerance and report.targets."""
    from balance.ladder_file import is_ladder
    from balance.report import check_output
    from balance.sweep_file import is_sweep

    option = "--out" if out is not None else ""
    if any(is_sweep(r) for r in results):
        if len(results) > 1 or baseline is not None or impact is not None or ladder is not None:
            _error(
                "a sweep or ladder directory is reported alone (no other RESULTS, --baseline, "
                "--impact or --ladder)"
            )
            raise typer.Exit(1)
        out = out or results[0] / "report.html"
        check_output(out, option)  # before the analysis
        if is_ladder(results[0]):
            _write_ladder_report(results[0], out=out, cdn=cdn)
        else:
            _write_sweep_report(results[0], out=out, cdn=cdn)
        return
    if out is None:
        if len(results) > 1:
            _error(f"{len(results)} results directories: name the report with -o FILE.html")
            raise typer.Exit(1)
        out = results[0] / "report.html"
    if impact is not None:
        inputs = {impact: "the impact file --impact"}
    else:  # a single results directory's own card impact, read (or played) for the page
        inputs = {r / "variants.json": "the card impact the report reads" for r in results[:1]}
    check_output(out, option, inputs=inputs)  # before any game or analysis
    if ladder is not None:  # a finished ladder, before the card impact's games
        from balance.ladder_file import read_depth

        read_depth(ladder)
    if impact is None and len(results) == 1 and not no_impact:
        from balance import runs

        card_impact = runs.results_impact(results[0])  # None: there already, or no run
        if card_impact is not None:
            _play_card_impact(card_impact)
    _write_report(results, out=out, baseline=baseline, impact=impact, ladder=ladder, cdn=cdn)
