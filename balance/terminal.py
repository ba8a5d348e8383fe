"""What the CLI draws on the terminal: result tables and the progress bar (rich).

The numbers come from the library (experiments, bench); this module only lays them out, so the
CLI stays a parser and a printer and every table is formatted in one place.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class _RateColumn(ProgressColumn):
    def render(self, task: Any) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f} games/s" if speed else "- games/s", style="progress.data.speed")


@contextlib.contextmanager
def progress_bar() -> Iterator[Callable[[int, int], None]]:
    """A progress callback for runner.run; draws on stderr only when it is a terminal."""
    console = Console(stderr=True)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _RateColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, disable=not console.is_terminal) as bar:
        # Until the first report the kernels load from numba's cache, or compile on the first
        # run after an install or upgrade, which takes about a minute: say so, not a frozen bar.
        task = bar.add_task("loading kernels (first run compiles, ~1 min)", total=None)
        started = False

        def update(done: int, total: int) -> None:
            nonlocal started
            if not started:  # rate and ETA start with the games, not with the compile
                bar.reset(task, total=total, description="simulating")
                started = True
            bar.update(task, completed=done)

        yield update


def print_table(table: Any) -> None:
    """A rich table on stdout without trailing blanks; in a log or a pipe, one line per row
    however many columns."""
    console = Console()
    if not console.is_terminal:
        console.width = max(console.width, 200)
    with console.capture() as capture:
        console.print(table)
    lines = [line.rstrip() for line in capture.get().splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    typer.echo("\n".join(lines))


def _pp(diff: float, lo: float, hi: float, significant: bool) -> str:
    """A change in win share, in percentage points, with its interval half-width."""
    return f"{diff * 100:+.2f}±{(hi - lo) * 50:.2f}" + ("*" if significant else " ")


def impact_table(result: Any) -> Any:
    import polars as pl
    from rich import box
    from rich.table import Table

    line = result.lineup
    shares = result.table.filter(pl.col("metric") == "win_share")
    columns = [("seat", str(s), f"seat {s}") for s in range(line.players)]
    columns.append(("order", "0", "1st player"))
    if len(line.policies) > 1:
        columns += [("policy", p, p) for p in line.policies]
    if not line.teams_are_seats:
        columns += [("team", t, f"team {t}") for t in line.teams]
    columns += [("role", r, f"role {r}") for r in line.roles]
    cells = {
        (r["variant"], r["kind"], r["group"]): _pp(r["diff"], r["lo"], r["hi"], r["significant"])
        for r in shares.iter_rows(named=True)
    }
    table = Table(box=box.SIMPLE_HEAD)
    table.add_column("variant", no_wrap=True)
    for _, _, header in columns:
        table.add_column(header, justify="right", no_wrap=True)
    table.add_column("turns", justify="right", no_wrap=True)
    turns_sig = {
        r["variant"]: r["significant"]
        for r in result.table.filter(pl.col("metric") == "mean_turns").iter_rows(named=True)
    }
    for r in result.summary.iter_rows(named=True):
        sig_t = turns_sig.get(r["variant"], False)
        turns = f"{r['turns_diff']:+.2f}±{(r['turns_hi'] - r['turns_lo']) / 2:.2f}"
        table.add_row(
            r["variant"],
            *(cells.get((r["variant"], k, g), "-") for k, g, _ in columns),
            turns + ("*" if sig_t else " "),
        )
    return table


def _q(q: float | None) -> str:
    """A q-value cell: '0.012', '<0.001', '<1e-300' (underflowed), '-' (no test)."""
    if q is None or q != q:
        return "-"
    if q == 0:
        return "<1e-300"
    return "<0.001" if q < 0.001 else f"{q:.2g}"


def compare_table(result: Any) -> Any:
    from rich import box
    from rich.table import Table

    skip_teams = result.a_lineup.teams_are_seats and result.b_lineup.teams_are_seats
    level = f"{result.level * 100:g} %"
    table = Table(box=box.SIMPLE_HEAD)
    for name in ("metric", "group", "A", "B", "B - A", f"{level} interval", "q (BH)", ""):
        table.add_column(name, justify="left" if name in ("metric", "group", "") else "right")
    names = {"win_share": "win share", "mean_score": "mean score", "mean_turns": "mean turns"}
    # Different player counts (independent samples): share / fair per place, the first
    # player's edge (share - 1/n, in points) and the mean score of all seat-games.
    names |= {"normalised_share": "share / fair", "first_edge": "edge over fair"}
    for r in result.table.iter_rows(named=True):
        if skip_teams and r["kind"] == "team":
            continue
        if r["metric"] in ("win_share", "first_edge"):
            a, b = f"{r['a'] * 100:.2f} %", f"{r['b'] * 100:.2f} %"
            if r["metric"] == "first_edge":
                a, b = f"{r['a'] * 100:+.2f} pt", f"{r['b'] * 100:+.2f} pt"
            d = f"{r['diff'] * 100:+.2f} pt"
            ci = f"[{r['lo'] * 100:+.2f}, {r['hi'] * 100:+.2f}]"
        else:
            a, b, d = f"{r['a']:.3f}", f"{r['b']:.3f}", f"{r['diff']:+.3f}"
            ci = f"[{r['lo']:+.3f}, {r['hi']:+.3f}]"
        group = "all games" if r["kind"] == "game" else f"{r['kind']} {r['group']}"
        if r["kind"] == "all":
            group = "all seat-games"
        if r["kind"] == "order":
            group = "1st player" if r["group"] == "0" else f"order {r['group']}"
        table.add_row(
            names[r["metric"]],
            group,
            a,
            b,
            d,
            ci,
            _q(r["q_value"]),
            "*" if r["significant"] else "",
        )
    return table


def bench_table(result: Any) -> Any:
    from rich.table import Table

    from balance import bench as bench_lib

    def num(value: float | None, digits: int = 0) -> str:
        return "-" if value is None else f"{value:,.{digits}f}"

    table = Table(title=f"balance bench {result.game} ({result.title}, {result.config})")
    for name in ("measurement", "games", "seconds", "games/s", "ns/game", "ratio"):
        table.add_column(name, justify="left" if name in ("measurement", "ratio") else "right")
    s = result.startup
    first = (
        f"start to first chunk of {s.first_chunk_games:,} games (~{s.first_chunk_play_s:.2f} s "
        f"of play) - imports ({s.imports_s:.2f} s)"
    )
    cold = "skipped (--no-cold)" if s.cold_s is None else first
    table.add_row("compile, cold (empty cache)", "", num(s.cold_s, 2), "", "", cold)
    table.add_row("compile, warm (cache)", "", num(s.warm_s, 2), "", "", first)
    table.add_row(
        "warm start: balance simulate",
        f"{bench_lib.CLI_GAMES:,}",
        num(s.cli_warm_start_s, 2),
        "",
        "",
        f"wall time of `simulate <config> --games {bench_lib.CLI_GAMES}`",
    )
    for r in result.throughput:
        ratio = "" if r.speedup is None else f"{r.speedup:.2f}x 1 thread"
        table.add_row(
            f"{r.lineup}, {r.threads} thread{'s' if r.threads > 1 else ''}",
            f"{r.games:,}",
            num(r.seconds, 2),
            num(r.games_per_s),
            num(r.ns_per_game),
            ratio,
        )
    e = getattr(result, "end_to_end", None)
    if e is None:
        table.add_row("balance simulate writing parquet", "", "", "", "", "skipped")
    else:
        table.add_row(
            f"{e.lineup}, {e.threads} thread{'s' if e.threads > 1 else ''}, end to end",
            f"{e.games:,}",
            num(e.seconds, 2),
            num(e.games_per_s),
            num(1e9 / e.games_per_s if e.games_per_s else None),
            f"{e.ratio:.0%} of the kernels ({e.kernel_games_per_s:,.0f} games/s): simulate "
            "writing parquet",
        )
    p = result.python
    if p is None:
        table.add_row("plain Python (NUMBA_DISABLE_JIT=1)", "", "", "", "", "skipped")
    else:
        table.add_row(
            f"{p.lineup}, plain Python, 1 thread",
            f"{p.games:,}",
            num(p.seconds, 2),
            num(p.games_per_s),
            num(p.ns_per_game),
            f"compiled 1 thread = {p.ratio:,.0f}x plain Python",
        )
    return table


def bench_targets(result: Any) -> Any:
    from rich.table import Table

    table = Table(title=f"targets for {result.title}")
    for name in ("target", "measured", "required", "met"):
        table.add_column(name, justify="right" if name in ("measured", "required") else "left")
    for t in result.targets:
        digits = 2 if t.unit == "s" else 0
        measured = "-" if t.measured is None else f"{t.measured:,.{digits}f} {t.unit}"
        required = f"{'>=' if t.at_least else '<='} {t.threshold:,.{digits}f} {t.unit}"
        met = "not measured" if t.met is None else "yes" if t.met else "NO"
        table.add_row(t.label, measured, required, met)
    return table
