"""``balance sweep``: play a config at every value of a knob (balance/experiments/sweep.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from balance.cli._app import (
    AddressOpt,
    BackendOpt,
    ConfigArg,
    CsvOpt,
    SeedOpt,
    SetOpt,
    ThreadsOpt,
    XlsxOpt,
    _confirm_costs,
    _shown,
    _with_sets,
    _write_sweep_report,
    _write_tables,
    command,
    playing_points,
)
from balance.errors import BalanceError


@command()
def sweep(
    config: ConfigArg,
    over: Annotated[
        list[str],
        typer.Option(
            "--over",
            metavar="KEY=VALUES",
            show_default=False,
            help="A knob and its values: KEY=V1,V2,... (each a YAML value, as --set reads it) "
            "or KEY=lo..hi[:step] (integers; reals need the step). Several --over make a grid "
            "of every combination, the first knob on the report's x-axis.",
        ),
    ],
    sets: SetOpt = None,
    games: Annotated[
        int | None,
        typer.Option(
            help="Games per point, the same seeds at every point (default: the config's)."
        ),
    ] = None,
    seed: SeedOpt = None,
    out: Annotated[
        Path | None,
        typer.Option(
            metavar="DIR",
            help="Sweep directory, a results directory per point inside (default: "
            "results/<game>-<config stem>-sweep-<date>-<time>). The same sweep again with the "
            "same DIR resumes it: points complete with the same config, games, seed and version "
            "are kept, the others played.",
        ),
    ] = None,
    threads: ThreadsOpt = None,
    chunk_size: Annotated[int, typer.Option(help="Games per chunk (one parquet part).")] = 65536,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Replace --out if it holds another sweep (or start this one over)."
        ),
    ] = False,
    report_file: Annotated[
        Path | None,
        typer.Option(
            "--report",
            metavar="FILE",
            help="Also write the sweep's HTML report to this file (as `balance report DIR`).",
        ),
    ] = None,
    csv: CsvOpt = None,
    xlsx: XlsxOpt = None,
    yes: Annotated[
        bool,
        typer.Option(
            "--yes",
            "-y",
            help="Run without asking even when the sweep is expected to take more than an hour "
            "or to need more disk than is free (off a terminal such a sweep is refused "
            "without --yes).",
        ),
    ] = False,
    backend: BackendOpt = "local",
    address: AddressOpt = None,
    census: Annotated[
        int,
        typer.Option(
            metavar="N",
            help="Also take the census of games 0 to N - 1 of each point (as `balance census "
            "DIR/<point>` does, its default settings): the report and the tables then show the "
            "turns of the first place over the last, dead turns and kingmaking at each point.",
        ),
    ] = 0,
) -> None:
    """Play CONFIG at every value of a knob (or a grid of knobs), every point on the same seeds.

    Each point is a results directory under DIR (`balance report DIR/<point>` reports one);
    DIR/sweep.json records the knobs, the points and how each stands. Every point's config is
    validated before any game is played. Ctrl-C keeps the finished points: run the same sweep
    with the same --out to resume it. `balance report DIR` draws every metric against the knob
    with intervals and says where the curve moves significantly between neighbouring points and
    whether it trends across all of them (a slope over the knob's values, on the same games)."""
    from balance import runner, sheets
    from balance.experiments import sweep as sweep_lib

    plan = sweep_lib.plan_sweep(
        config, over, sets=sets or [], games=games, seed=seed, config_path=_shown(config)
    )
    dirs = [] if out is None else [out]  # the default DIR is new: no file of it is given
    checks: dict[str, Any] = {"inputs": {config: "the config"}, "results_dirs": dirs}
    if report_file is not None:
        from balance.report import check_output

        check_output(report_file, "--report", **checks)  # before the games, not after them
    tables = sheets.check_tables(csv, xlsx, "sweep", **checks)
    chosen = out is not None
    out = out or sweep_lib.default_out(plan)
    runner.check_options(games=plan.games, seed=plan.seed, chunk_size=chunk_size, threads=threads)
    sweep_lib.check_out(out, plan, force=force)  # another sweep in the way: before any question
    _check_census(plan, census)
    _confirm_costs(sweep_lib.sweep_costs(plan, out=out, threads=threads), yes=yes)
    _say_plan(plan, out=out, sets=sets)
    again = "run the same command again" if chosen else f"run the same command with --out {out}"
    with playing_points(
        resume=again, backend=backend, address=address, threads=threads
    ) as progress:
        summary = sweep_lib.run_sweep(
            plan,
            out=out,
            threads=threads,
            chunk_size=chunk_size,
            force=force,
            progress=progress,
            on_point=_point_line(out),
        )
    _say_summary(summary)
    _take_censuses(summary, census)
    stats = _analysis(summary.out)  # once, for the page and the tables
    if report_file is not None:
        _write_sweep_report(summary.out, out=report_file, cdn=False, stats=stats())
    _write_tables(tables, lambda: sheets.sweep_tables(summary.out, stats()))


def _analysis(out: Path) -> Callable[[], Any]:
    """The sweep's analysis (report/numbers.py ``analyse_sweep``), made on first use only."""
    import functools

    from balance.report.numbers import analyse_sweep

    return functools.cache(lambda: analyse_sweep(_shown(out)))


def _check_census(plan: Any, games: int) -> None:
    """Refuse ``--census N`` before any game: N beyond the points' games or the census's bound,
    or a line-up whose census cannot be taken (search seats)."""
    from balance import census as cs

    if games == 0:
        return
    top = min(plan.games, cs.MAX_GAMES)
    if not 1 <= games <= top:
        raise BalanceError(f"--census {games}: must be between 1 and {top:,} (games per point)")
    for cfg in plan.configs:
        cs.censusable(cfg)


def _take_censuses(summary: Any, games: int) -> None:
    """The census of each point (``--census``), kept when an earlier run took the same one."""
    from balance import census as cs
    from balance.terminal import progress_bar

    if not games:
        return
    for r in summary.points:
        with progress_bar(f"census {r.point.name}") as bar:
            _, kept = cs.census_results(r.out, games, progress=bar)
        said = "kept (the same census)" if kept else f"games 0 to {games - 1:,}"
        typer.echo(
            f"  census {r.position}/{r.total} {r.point.name}: {said} -> {r.out}/{cs.CENSUS_FILE}"
        )


def _say_plan(plan: Any, *, out: Path, sets: list[str] | None) -> None:
    knobs_ = "; ".join(f"{a.key} = {', '.join(a.labels)}" for a in plan.axes)
    typer.echo(
        f"sweep {plan.config_path}{_with_sets(sets)}: {len(plan.points)} points ({knobs_}), "
        f"{plan.games:,} games each on seed {plan.seed} -> {out}"
    )


def _point_line(out: Path) -> Callable[[Any], None]:
    """What the sweep says as each point ends (played, or kept from an earlier run)."""

    def say(r: Any) -> None:
        where = f"{out}/{r.point.dir}"
        if r.status == "kept":
            typer.echo(f"  {r.position}/{r.total} {r.point.name}: kept (complete) -> {where}")
            return
        typer.echo(
            f"  {r.position}/{r.total} {r.point.name}: {r.games:,} games in "
            f"{r.wall_time_s:.2f} s ({r.games_per_s:,.0f} games/s) -> {where}"
        )

    return say


def _say_summary(summary: Any) -> None:
    played = [r for r in summary.points if r.status == "played"]
    kept_n = len(summary.points) - len(played)
    kept = f"; {kept_n} of {len(summary.points)} points kept from an earlier run" if kept_n else ""
    typer.echo(
        f"sweep: {summary.played_games:,} games at {len(played)} points in "
        f"{summary.wall_time_s:.1f} s{kept} -> {summary.out}"
    )
