"""``balance compare``: two configs on the same seeds, B - A (balance/experiments/compare.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from balance import terminal
from balance.cli._app import (
    AddressOpt,
    BackendOpt,
    CsvOpt,
    GamesOpt,
    ThreadsOpt,
    XlsxOpt,
    _backend,
    _error,
    _load,
    _shown,
    _with_sets,
    _write_tables,
    command,
)


@command()
def compare(
    a: Annotated[
        Path, typer.Argument(help="Config A (the reference).", show_default=False, metavar="A")
    ],
    b: Annotated[
        Path, typer.Argument(help="Config B (the change).", show_default=False, metavar="B")
    ],
    sets: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="KEY=VALUE",
            show_default=False,
            help="Change one value of both A and B as if their files said it (repeatable), e.g. "
            "players=3 to compare the change at three players; validated like the files.",
        ),
    ] = None,
    games: GamesOpt = None,
    seed: Annotated[int | None, typer.Option(help="Run seed (default: A's).")] = None,
    threads: ThreadsOpt = None,
    report_file: Annotated[
        Path | None,
        typer.Option("--report", help="Also write the comparison as an HTML page to this file."),
    ] = None,
    cdn: Annotated[
        bool,
        typer.Option(
            "--cdn",
            help="With --report: load plotly.js from its CDN (small file, needs the network) "
            "instead of inlining it.",
        ),
    ] = False,
    census: Annotated[
        int,
        typer.Option(
            metavar="N",
            help="Also replay games 0 to N - 1 of A and B decision by decision (balance census, "
            "kingmaking included: 0.1 to 1 s a game and config) and pair their turns, dead "
            "turns and kingmaking. 0: none.",
        ),
    ] = 0,
    csv: CsvOpt = None,
    xlsx: XlsxOpt = None,
    backend: BackendOpt = "local",
    address: AddressOpt = None,
) -> None:
    """Run A and B on the same seeds and show what changed: B - A per seat, place, policy, team."""
    from balance import experiments, sheets

    if cdn and report_file is None:
        _error("--cdn needs --report FILE")
        raise typer.Exit(1)
    cfg_a, cfg_b = _load(a, sets), _load(b, sets)
    inputs = {a: "config A", b: "config B"}
    if report_file is not None:
        from balance.report import check_output

        check_output(report_file, "--report", inputs=inputs)  # before the games, not after
    tables = sheets.check_tables(csv, xlsx, "compare", inputs=inputs)
    with _backend(backend, address, threads), terminal.progress_bar("compare") as progress:
        result = experiments.compare(
            cfg_a,
            cfg_b,
            a_path=_shown(a),
            b_path=_shown(b),
            games=games,
            seed=seed,
            threads=threads,
            progress=progress,
            census=census,
        )
    typer.echo(_headline(result, sets))
    terminal.print_table(terminal.compare_table(result))
    from balance.report.sentences import left_out_words

    for words in left_out_words(result.left_out):  # teams and roles no game dealt, e.g.
        typer.echo(words)
    typer.echo(_how_to_read(result))
    _print_plays(result)
    if report_file is not None:
        from balance.report import write_comparison

        info = write_comparison(result, out=report_file, cdn=cdn)
        typer.echo(f"report -> {info.path} ({info.bytes / 1e6:.1f} MB, {info.seconds:.1f} s)")
    _write_tables(tables, lambda: sheets.compare_tables(result))


def _headline(result: Any, sets: list[str] | None) -> str:
    """The line above the comparison's table: the configs, the games and how they pair."""
    how = "paired games" if result.paired else "games of each, independent samples"
    players = (
        ""
        if result.paired
        else f", {result.a_config.players} and {result.b_config.players} players"
    )
    return (
        f"compare A = {result.a_path}, B = {result.b_path}{_with_sets(sets, 'both')}: "
        f"{result.games:,} {how} (seed {result.seed}{players}) in {result.wall_time_s:.1f} s"
    )


def _print_plays(result: Any) -> None:
    """How the games played, paired B - A per metric, when both runs kept trajectories; and
    the census of both (``--census``)."""
    if result.plays is not None:
        terminal.print_table(terminal.plays_table(result))
        typer.echo(
            "How the game plays: per game from its trajectory (docs/statistics.md); a winner's "
            "metric over the games both runs have one winner; q: the one rule across these "
            "metrics."
        )
    if result.census is not None:
        terminal.print_table(terminal.census_compare_table(result))
        typer.echo(
            f"Census of games 0 to {result.census['games'][0] - 1:,} of both, replayed decision "
            "by decision (balance census; docs/statistics.md, Turns, dead turns and "
            "kingmaking); q: the one rule across these measures."
        )


def _how_to_read(result: Any) -> str:
    """The line under the comparison's table: its intervals and tests."""
    if result.paired:
        return (
            f"B - A with its {result.level * 100:g} % t-interval over games (paired: same "
            "seeds); q: Benjamini-Hochberg within each metric (win share, mean score, game "
            "length), times the number of metrics; * q < 0.05."
        )
    return (
        f"B - A with its {result.level * 100:g} % Welch interval, independent samples "
        "(different player counts: the same seeds deal different games); share / fair = "
        "share x players per place in the turn order, edge = share - 1/players; no "
        "per-seat rows; q: Benjamini-Hochberg within each metric (share / fair, edge, mean "
        "score, game length), times the number of metrics; * q < 0.05."
    )
