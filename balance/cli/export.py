"""``balance export``: a results directory's per-game rows as CSV or XLSX (balance/sheets.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from balance.cli._app import command


@command()
def export(
    results: Annotated[
        Path,
        typer.Argument(
            help="Results directory (written by balance simulate).",
            show_default=False,
            metavar="RESULTS",
        ),
    ],
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            metavar="csv|xlsx",
            show_default=False,
            help="csv (streamed: any number of rows) or xlsx (one sheet `rows`, at most "
            "1,048,575 rows; needs xlsxwriter: pip install 'balance\\[sheets]'). Default: the "
            "suffix of --out, else csv.",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            show_default=False,
            help="File to write (default: RESULTS/rows.csv or RESULTS/rows.xlsx); - writes the "
            "CSV to stdout.",
        ),
    ] = None,
) -> None:
    """Write the per-game rows of a results directory as one CSV file (or an Excel sheet): a
    row per game and seat, the dataset's columns under their own names, in the dataset's order.

    The rows are those of the parts the manifest lists: a run stopped early exports its complete
    games (the line after says so). The CSV is streamed from the parquet parts, so memory stays
    flat for millions of rows, and written atomically (a temporary file renamed)."""
    from balance import sheets

    kind = sheets.export_format(fmt, out)
    manifest, rows = sheets.open_rows(results)  # a bad RESULTS: its one line, before any check
    path = sheets.check_export(results, out, kind)
    n = sheets.export_rows(rows, path, kind, stdout=sys.stdout.buffer)
    done, asked, status = (manifest.get(k) for k in ("games_done", "games_requested", "status"))
    stopped = "" if status == "complete" else f"; the run is {status}: {done:,} of {asked:,} games"
    said = f"{n:,} rows x {len(rows.collect_schema())} columns{stopped}"
    if path is None:
        if stopped:
            typer.echo(f"export: {said}", err=True)
        return
    typer.echo(f"rows -> {path} ({said})")
