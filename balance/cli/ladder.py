"""``balance ladder``: the config's findings at every skill (balance/experiments/ladder.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from balance import terminal
from balance.cli._app import (
    AddressOpt,
    BackendOpt,
    CsvOpt,
    SeedOpt,
    SetOpt,
    ThreadsOpt,
    XlsxOpt,
    _confirm_costs,
    _shown,
    _with_sets,
    _write_ladder_report,
    _write_tables,
    command,
    playing_points,
)
from balance.cli.sweep import _point_line
from balance.errors import BalanceError

LONG_S = 3600  # past this the ladder asks first (refused off a terminal without --yes)


@command()
def ladder(
    config: Annotated[
        Path | None,
        typer.Argument(
            help="YAML config file (with --resume: optional, the ladder's own by default).",
            show_default=False,
            metavar="CONFIG",
        ),
    ] = None,
    rungs: Annotated[
        str | None,
        typer.Option(
            metavar="R1,R2,...",
            show_default=False,
            help="The rungs, weakest first: random, any policy of the config, or "
            "search_<iterations> (the config's search settings at that budget, rolling out "
            "with the game's heuristic). Default: random, the game's heuristic and search budgets "
            "each 4x the last (three; two in Corvids and Raven Manor), chosen per game for a "
            "base config's ladder of about half an hour on 2 cores (docs/commands/ladder.md "
            "gives each game's time).",
        ),
    ] = None,
    sets: SetOpt = None,
    games: Annotated[
        int | None,
        typer.Option(
            help="Games per point, every point the same games (default: each point sized from "
            "a pilot for --half-width).",
        ),
    ] = None,
    half_width: Annotated[
        float,
        typer.Option(
            help="Default games: a pilot of 100 games of each point (seed + 2) sizes it for its "
            "statistic's 95 % interval to be this wide either side (0.02: ±2 points), at least "
            "300 games and at most a share's worst case (2,401 at ±2 points).",
        ),
    ] = 0.02,
    seed: SeedOpt = None,
    out: Annotated[
        Path | None,
        typer.Option(
            metavar="DIR",
            help="Ladder directory, a results directory per point inside (default: "
            "results/<game>-<config stem>-ladder-<date>-<time>). The same ladder again with "
            "the same DIR resumes it.",
        ),
    ] = None,
    threads: ThreadsOpt = None,
    chunk_size: Annotated[int, typer.Option(help="Games per chunk (one parquet part).")] = 65536,
    force: Annotated[
        bool,
        typer.Option("--force", help="Replace --out if it holds another ladder or sweep."),
    ] = False,
    yes: Annotated[
        bool,
        typer.Option(
            "--yes",
            "-y",
            help="Run without asking when the estimate passes an hour (off a terminal such a "
            "ladder is refused without --yes).",
        ),
    ] = False,
    impact: Annotated[
        str,
        typer.Option(
            "--impact",
            metavar="top|none|V1,V2,...",
            help="Card impacts re-measured at every rung: each variant played with every seat "
            "each rung, its change of the config's headline on the same games. top: the three "
            "that move the headline most with the config's own line-up, chosen on other games "
            "(seed + 1) than the ladder's; or the game's variant names (balance impact lists "
            "them); none.",
        ),
    ] = "top",
    matrix: Annotated[
        bool,
        typer.Option(
            "--matrix/--no-matrix",
            help="In a game that deals sides (Raven Manor): also play every Family rung against "
            "every other evil rung, for the matrix of the Raven's side's share.",
        ),
    ] = True,
    report_file: Annotated[
        Path | None,
        typer.Option(
            "--report",
            metavar="FILE",
            help="Also write the ladder's HTML page to this file (as `balance report DIR`).",
        ),
    ] = None,
    csv: CsvOpt = None,
    xlsx: XlsxOpt = None,
    resume: Annotated[
        Path | None,
        typer.Option(
            "--resume",
            metavar="DIR",
            help="Go on with the ladder in DIR (stopped, killed or failed): its config, --set, "
            "rungs, games, seed and card impacts as recorded; its finished points are kept.",
        ),
    ] = None,
    backend: BackendOpt = "local",
    address: AddressOpt = None,
) -> None:
    """Play CONFIG's players from weak to strong and re-measure its findings at every rung.

    Points on the same seeds: every seat one rung (a mirror per rung: the places in the turn
    order, chairs, sides and roles at that skill); each rung in one seat among the rung below,
    rotated through every seat (skill depth: how much each step wins); the card impacts at
    every rung; in Raven Manor every Family rung against every evil rung. A pilot sizes each
    point for its statistic and says how long the ladder will take. It prints the depth of
    every step (simultaneous intervals) and each finding across the rungs: holds, grows,
    shrinks, flips or not determined. Ctrl-C keeps the finished points: run the same command
    again to resume."""
    from balance import runner, sheets
    from balance.experiments import ladder as lib
    from balance.experiments import sweep as sweep_lib

    default, sized = games is None and resume is None, ()
    if resume is not None:
        config, sets, rungs, games, seed, impact, out, matrix, sized = _recorded(
            resume, config, sets, rungs, games, seed, impact, out, matrix
        )
    plan = _plan(config, rungs, sets or [], games, half_width, seed, matrix)
    if report_file is not None:
        from balance.report import check_output

        check_output(report_file, "--report", inputs={config: "the config"})  # before the games
    tables = sheets.check_tables(
        csv, xlsx, "ladder", inputs={config: "the config"}, results_dirs=[out]
    )
    chosen = out is not None
    out = out or runner.default_out(plan.sweep.configs[0], f"{Path(config).stem}-ladder")
    runner.check_options(games=plan.games, seed=plan.seed, chunk_size=chunk_size, threads=threads)
    sweep_lib.check_out(out, plan.sweep, force=True)  # a file or a foreign directory: now
    plan = _with_impacts(plan, config, sets or [], impact, sized, threads=threads)
    plan, estimate = _sized(plan, out, half_width, default, force=force, threads=threads, yes=yes)
    sweep_lib.check_out(out, plan.sweep, force=force)  # another ladder there: with its impacts
    _say_plan(plan, out=out, sets=sets, half_width=half_width if default else None)
    _confirm(plan, estimate, out=out, threads=threads, yes=yes)
    again = "run the same command again" if chosen else f"run the same command with --out {out}"
    with playing_points(
        resume=again, backend=backend, address=address, threads=threads
    ) as progress:
        summary = lib.run_ladder(
            plan,
            out=out,
            threads=threads,
            chunk_size=chunk_size,
            force=force,
            progress=progress,
            on_point=_point_line(out),
        )
    found = _say_results(summary, plan)
    if report_file is not None:
        _write_ladder_report(summary.out, out=report_file, cdn=False)
    _write_tables(tables, lambda: sheets.ladder_tables(*found, headline=plan.headline))


def _plan(config: Path | None, rungs: str | None, sets: list[str], games: int | None,
          half_width: float, seed: int | None, matrix: bool) -> Any:  # fmt: skip
    """The ladder without its card impacts yet (they are chosen once --out is known good)."""
    from balance.experiments import ladder as lib

    sized = lib.games_for(half_width)  # checked even when --games decides
    if config is None:
        raise BalanceError("give a CONFIG (or --resume DIR)")
    return lib.plan_ladder(
        config,
        rungs if rungs is not None else lib.default_rungs_of(config, sets),
        sets=sets,
        games=sized if games is None else games,
        seed=seed,
        config_path=_shown(config),
        matrix=None if matrix else False,
    )


def _recorded(resume: Path, config: Path | None, *given: Any) -> tuple[Any, ...]:
    """The ladder command recorded in ``resume`` (CONFIG may be given to locate the config
    file; any other choice of the ladder may not)."""
    from balance.experiments import ladder as lib

    names = ("--set", "--rungs", "--games", "--seed", "--impact", "--out", "--no-matrix")
    defaults = (None, None, None, None, "top", None, True)
    clash = [n for n, v, d in zip(names, given, defaults, strict=True) if v not in (d, [])]
    if clash:
        raise BalanceError(
            f"--resume {resume}: takes the ladder's own choices; drop {', '.join(clash)}"
        )
    r = lib.recorded(resume)
    return (config or Path(r.config), r.sets, ",".join(r.rungs), r.games, r.seed, r.impact,
            resume, r.matrix, tuple(r.point_games))  # fmt: skip


def _with_impacts(plan: Any, config: Path, sets: list[str], impact: str,
                  sized: tuple[int, ...] = (), *, threads: Any) -> Any:  # fmt: skip
    """``plan`` with the card impacts of ``--impact`` (the top three chosen on other games: say
    which) and, resuming a sized ladder, its points' recorded games."""
    from balance.config import load_config
    from balance.config.overrides import parse_overrides
    from balance.experiments import ladder as lib

    cfg = load_config(config, parse_overrides(sets, source="--set"))
    chosen = lib.choose_variants(cfg, impact, games=plan.games, seed=plan.seed, threads=threads)
    if impact.strip() == "top":
        names = ", ".join(v.name for v in chosen) or "none (the game has no variants)"
        typer.echo(
            f"card impact: the {len(chosen)} variants that move the headline most with the "
            f"config's line-up (on {plan.games:,} games of seed {(plan.seed + 1) % 2**63}): "
            f"{names}"
        )
    if not chosen and not sized:
        return plan
    return lib.plan_ladder(
        config, [r.name for r in plan.rungs], sets=sets, games=plan.games, seed=plan.seed,
        config_path=plan.sweep.config_path, variants=chosen, point_games=sized,
        matrix=any(p.kind == "matrix" for p in plan.points),
    )  # fmt: skip


def _sized(plan: Any, out: Path, half_width: float, default: bool, *, force: bool,
           threads: int | None, yes: bool) -> tuple[Any, Any]:  # fmt: skip
    """The default ladder with each point's games from a pilot (or, when ``out`` holds this
    same ladder, the sizes it recorded: nothing is played again), and its estimate; any other
    ladder as it is (its estimate is timed later)."""
    from balance.experiments import ladder as lib

    if not default:
        return plan, None
    recorded = None if force else _recorded_sizes(out, plan.sweep.definition())
    if recorded is not None and len(recorded) == len(plan.points):
        typer.echo(f"sizes: as {out} recorded them (the pilot is not played again)")
        return lib.with_games(plan, recorded), None  # timed for the points left to play
    rough = lib.estimate(plan, threads=threads, pilot=4)
    pilot = rough.seconds * lib.PILOT / plan.games
    typer.echo(
        f"sizing: {lib.PILOT} games of each of the {len(plan.points)} points on seed "
        f"{lib.pilot_seed(plan.seed)} (about {lib._duration(pilot)})"
    )
    if pilot > LONG_S:
        _confirm_costs([f"sizing the ladder takes about {lib._duration(pilot)}"], yes=yes)
    with terminal.progress_bar("sizing") as bar:
        sizing = lib.size_points(plan, half_width=half_width, threads=threads,
                                 progress=lambda d, t: bar(d * lib.PILOT, t * lib.PILOT))  # fmt: skip
    resized = lib.with_games(plan, sizing.point_games)
    return resized, sizing.estimate


def _recorded_sizes(out: Path, definition: dict[str, Any]) -> list[int] | None:
    """The points' games the sweep in ``out`` recorded, when it is this same ladder sized."""
    from balance.sweep_file import SweepError, read_sweep_manifest

    try:
        theirs = dict(read_sweep_manifest(out).get("definition") or {})
    except (SweepError, OSError):
        return None
    sizes = theirs.pop("point_games", None)
    return sizes if sizes and theirs == definition else None


def _say_plan(plan: Any, *, out: Path, sets: list[str] | None, half_width: float | None) -> None:
    names = " < ".join(r.name for r in plan.rungs)
    why = f" (±{half_width * 100:g} points at 95 %)" if half_width is not None else ""
    counts = sorted(set(plan.sweep.point_games)) or [plan.games]
    each = (
        f"{counts[0]:,} games each" if len(counts) == 1
        else f"{counts[0]:,} to {counts[-1]:,} games a point, {plan.sweep.total_games:,} in all"
    )  # fmt: skip
    typer.echo(
        f"ladder {plan.sweep.config_path}{_with_sets(sets)}: {names}; {len(plan.points)} points, "
        f"{each}{why} on seed {plan.seed} -> {out}"
    )


def _confirm(plan: Any, estimate: Any, *, out: Path, threads: int | None, yes: bool) -> None:
    """Say how long the ladder takes (``estimate``, or a few games of each line-up timed now)
    and ask (refuse off a terminal without --yes) past an hour or past the free disk."""
    from balance import runner
    from balance.experiments import ladder as lib

    estimate = estimate or lib.estimate(plan, threads=threads, out=out)
    left = sum(t > 0 for t in estimate.per_point)
    if left == 0:
        return  # every point is kept: nothing to play, nothing to estimate
    typer.echo(f"estimate: {estimate.text(threads)}")
    reasons = [f"the ladder takes {estimate.text(threads)}"] if estimate.seconds > LONG_S else []
    widest = plan.sweep.configs[0]  # every point seats the config's players
    reasons += runner.disk_costs(widest, games=plan.sweep.total_games, out=out)
    _confirm_costs(reasons, yes=yes)


def _say_results(summary: Any, plan: Any) -> tuple[Any, ...]:
    """Print what the ladder found; returns it: its depth, luck, findings, card impacts and
    matrix (None without one)."""
    from balance.experiments import ladder as lib
    from balance.report.ladder_page import luck_sentences

    typer.echo(
        f"ladder: {summary.played_games:,} games in {summary.wall_time_s:.1f} s -> {summary.out}"
    )
    ld = lib.load(summary.out)  # every point read once
    depth, luck = lib.read_depth(ld), lib.read_luck(ld)
    terminal.print_table(terminal.ladder_depth_table(depth))
    typer.echo("\n".join(luck_sentences(luck)))
    rungs = [r.name for r in plan.rungs]
    findings = lib.read_findings(ld)
    terminal.print_table(terminal.ladder_findings_table(findings, rungs))
    impacts = lib.read_impacts(ld)
    if impacts:
        terminal.print_table(terminal.ladder_impacts_table(impacts, rungs, plan.headline))
    sides = lib.read_matrix(ld)
    if sides is not None:
        terminal.print_table(terminal.ladder_matrix_table(sides))
    return depth, luck, findings, impacts, sides
