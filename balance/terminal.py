"""What the CLI draws on the terminal: result tables and the progress bar (rich).

The numbers come from the library (experiments, bench); this module only lays them out, so the
CLI stays a parser and a printer and every table is formatted in one place.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from balance.fmt import grouped


class _RateColumn(ProgressColumn):
    def render(self, task: Any) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f} games/s" if speed else "- games/s", style="progress.data.speed")


# Off a terminal (a log, CI), a run's progress is a line at most this often (seconds).
PLAIN_EVERY_S = 30.0


class _LoadColumn(ProgressColumn):
    """Seconds since the load began, and a compile's expected time on this machine."""

    def render(self, task: Any) -> Text:
        expected = task.fields.get("expected")
        elapsed = f"{task.elapsed or 0.0:.1f} s"
        return Text(f"{elapsed}, {expected}" if expected else elapsed, style="progress.elapsed")


@contextlib.contextmanager
def _show_load(load: Any, after: Callable[[], None] | None = None) -> Iterator[None]:
    """The "compiling"/"loading" display of one game's kernels (a runner.KernelLoad), while
    they load: a spinner with the elapsed time on a terminal, else a line before and a line
    after with the measured time. It ends when the loading ends: the run's own progress bar
    follows; ``after()`` is called when the kernels have loaded."""
    if load.cold:
        what = f"compiling {load.game} kernels (first run on this machine or after an update)"
        done, expected = f"compiled {load.game} kernels", load.expected
    else:
        what, done, expected = f"loading {load.game} kernels", f"loaded {load.game} kernels", ""
    console = Console(stderr=True)
    t0 = time.perf_counter()
    if not console.is_terminal:
        typer.echo(f"{what}, {expected}" if expected else what, err=True)
        yield
        typer.echo(f"{done} in {time.perf_counter() - t0:.1f} s", err=True)
        if after is not None:
            after()
        return
    columns = (SpinnerColumn(), TextColumn("{task.description}:"), _LoadColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        bar.add_task(what, total=None, expected=expected)
        yield
    console.print(f"{done} in {time.perf_counter() - t0:.1f} s", highlight=False)
    if after is not None:
        after()


@contextlib.contextmanager
def kernel_loading(after: Callable[[], None] | None = None) -> Iterator[None]:
    """In the block, each game's first kernel load shows the display of :func:`_show_load`;
    ``after()`` once it has loaded."""
    from balance import runner

    def show(load: Any) -> contextlib.AbstractContextManager[None]:
        return _show_load(load, after)

    with runner.showing_loads(show):
        yield


class _Bar:
    """A progress bar on stderr that appears with the run's first report, after the kernels
    loaded (their display has ended by then: one live display at a time); off a terminal, a
    line at most every PLAIN_EVERY_S seconds."""

    def __init__(self, description: str) -> None:
        self.description = description
        self.console = Console(stderr=True)
        columns = (
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            _RateColumn(),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
        )
        self.progress = Progress(*columns, console=self.console)
        self.task: Any = None
        self.started = self.last_line = self.last_report = time.perf_counter()

    def loaded(self) -> None:
        """The kernels have loaded: the games start now (the rate counts from here)."""
        self.started = self.last_line = self.last_report = time.perf_counter()

    def update(self, done: int, total: int, description: str | None = None) -> None:
        now = time.perf_counter()
        if description is not None and description != self.description:
            self.description = description  # a new stage: it began with the last report
            self.started = self.last_line = self.last_report
            if self.task is not None:  # a new stage (check's next check): its own rate and ETA
                self.progress.reset(self.task, total=total, description=description)
        if self.console.is_terminal:
            if self.task is None:
                self.progress.start()
                self.task = self.progress.add_task(self.description, total=total)
            self.progress.update(self.task, completed=done, total=total)
        elif 0 < done < total and now - self.last_line >= PLAIN_EVERY_S:
            self.last_line = now
            rate = done / max(now - self.started, 1e-9)
            typer.echo(
                f"{self.description}: {done:,} of {total:,} games ({done / total:.0%}), "
                f"{rate:,.0f} games/s, eta {(total - done) / rate:.0f} s",
                err=True,
            )
        self.last_report = now

    def stop(self) -> None:
        if self.task is not None:
            self.progress.stop()


@contextlib.contextmanager
def progress_bar(description: str = "simulating") -> Iterator[Callable[[int, int], None]]:
    """A progress callback ``(games done, total)`` for runner.run, impact and compare: the
    kernels' "compiling"/"loading" display first (:func:`kernel_loading`), then a bar of the
    run's own games with rate and ETA from the first report on."""
    bar = _Bar(description)
    with kernel_loading(bar.loaded):
        try:
            yield bar.update
        finally:
            bar.stop()


@contextlib.contextmanager
def check_progress() -> Iterator[Callable[[str, int, int], None]]:
    """A progress callback ``(check name, games done, cap)`` for ``balance check``: as
    :func:`progress_bar`, one bar per check, up to its current cap."""
    bar = _Bar("check")

    def update(name: str, done: int, cap: int) -> None:
        bar.update(done, max(cap, done), description=f"check {name}")

    with kernel_loading(bar.loaded):
        try:
            yield update
        finally:
            bar.stop()


@contextlib.contextmanager
def sweep_progress() -> Iterator[Callable[[str, int, int], None]]:
    """A progress callback ``(point label, games done, games total)`` for ``balance sweep``: as
    :func:`progress_bar`, one bar over the games of every point the sweep plays, its label the
    point being played (``sweep, point 2/3 players=3``); the rate and ETA are the whole sweep's."""
    bar = _Bar("sweep")

    def update(label: str, done: int, total: int) -> None:
        if label != bar.description:  # the next point: same bar, same rate, its own label
            bar.description = label
            if bar.task is not None:
                bar.progress.update(bar.task, description=label)
        bar.update(done, total)

    with kernel_loading(bar.loaded):
        try:
            yield update
        finally:
            bar.stop()


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
    # a team or role no variant has a row of (never dealt: Raven Manor's characters outside the
    # line-up) gets no column of dashes; the lines under the table name them (left_out_words)
    shown = {(k, g) for _, k, g in cells}
    columns = [c for c in columns if (c[0], c[1]) in shown or c[0] in ("seat", "order")]
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


def plays_table(result: Any) -> Any:
    """How the games played (stats/plays.py), paired B - A per metric (``result.plays``)."""
    from balance.stats.plays import METRICS

    rates = {n for n, (kind, _) in METRICS.items() if kind == "rate"}
    return paired_metrics_table(
        result.plays, result.level, "How the game plays (paired B - A)", rates
    )


def census_compare_table(result: Any) -> Any:
    """Turns, dead turns and kingmaking of the census of both, paired B - A (``result.census``,
    balance/stats/census.py ``paired_summary``)."""
    frame = result.census
    rates = set(frame.filter(frame["kind"] == "rate")["metric"].to_list())
    title = "Turns, dead turns and kingmaking (census, paired B - A)"
    return paired_metrics_table(frame, result.level, title, rates)


def paired_metrics_table(frame: Any, level: float, title: str, rates: set[str]) -> Any:
    """A paired B - A table of metrics (``metric``, ``words``, ``games``, ``a``, ``b``,
    ``diff``, ``lo``, ``hi``, ``q_value``, ``significant``): a rate in percent and points."""
    from rich import box
    from rich.table import Table

    shown = f"{level * 100:g} %"
    table = Table(box=box.SIMPLE_HEAD, title=title)
    for name in ("metric", "games", "A", "B", "B - A", f"{shown} interval", "q (BH)", ""):
        table.add_column(name, justify="left" if name in ("metric", "") else "right")
    for r in frame.iter_rows(named=True):
        if r["metric"] in rates:
            a, b = f"{r['a'] * 100:.2f} %", f"{r['b'] * 100:.2f} %"
            d, ci = f"{r['diff'] * 100:+.2f} pt", f"[{r['lo'] * 100:+.2f}, {r['hi'] * 100:+.2f}]"
        else:
            a, b, d = f"{r['a']:.3f}", f"{r['b']:.3f}", f"{r['diff']:+.3f}"
            ci = f"[{r['lo']:+.3f}, {r['hi']:+.3f}]"
        table.add_row(
            r["words"],
            f"{r['games']:,}",
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

    table = Table(title=f"balance bench {result.game} ({result.title}, {result.config})")
    for name in ("measurement", "games", "seconds", "games/s", "ns/game", "ratio"):
        table.add_column(name, justify="left" if name in ("measurement", "ratio") else "right")
    s = result.startup
    first = (
        f"start to first chunk of {s.first_chunk_games:,} games (~{s.first_chunk_play_s:.2f} s "
        f"of play) - imports ({s.imports_s:.2f} s)"
    )
    cold = "skipped (--no-cold)" if s.cold_s is None else first
    table.add_row("compile, cold (empty cache)", "", grouped(s.cold_s, 2), "", "", cold)
    table.add_row("compile, warm (cache)", "", grouped(s.warm_s, 2), "", "", first)
    table.add_row(
        "warm start: balance simulate",
        f"{s.cli_games:,}",
        grouped(s.cli_warm_start_s, 2),
        "",
        "",
        f"wall time of `{s.cli_command}`",
    )
    for r in result.throughput:
        ratio = "" if r.speedup is None else f"{r.speedup:.2f}x 1 thread"
        table.add_row(
            f"{r.lineup}, {r.threads} thread{'s' if r.threads > 1 else ''}",
            f"{r.games:,}",
            grouped(r.seconds, 2),
            grouped(r.games_per_s),
            grouped(r.ns_per_game),
            ratio,
        )
    for r in getattr(result, "search", []):
        table.add_row(
            f"{r.lineup}, {r.iterations:,} iterations, {r.threads} "
            f"thread{'s' if r.threads > 1 else ''}",
            f"{r.games:,}",
            grouped(r.seconds, 2),
            grouped(r.games_per_s, 2),
            grouped(1e9 / r.games_per_s),
            f"{r.searches:,} searches: {r.searches_per_s:,.1f}/s, {r.ms_per_search:,.2f} ms a "
            "search on one thread",
        )
    ss = getattr(result, "search_startup", None)
    if ss is not None:
        what = (
            f"start to the end of one game at {ss.iterations:,} iterations - imports - "
            f"the game (~{ss.play_s:.2f} s)"
        )
        cold_row = "skipped (--no-cold)" if ss.cold_s is None else what
        table.add_row("search player, compile cold", "", grouped(ss.cold_s, 2), "", "", cold_row)
        table.add_row("search player, compile warm", "", grouped(ss.warm_s, 2), "", "", what)
    e = getattr(result, "end_to_end", None)
    if e is None:
        table.add_row("balance simulate writing parquet", "", "", "", "", "skipped")
    else:
        table.add_row(
            f"{e.lineup}, {e.threads} thread{'s' if e.threads > 1 else ''}, end to end",
            f"{e.games:,}",
            grouped(e.seconds, 2),
            grouped(e.games_per_s),
            grouped(1e9 / e.games_per_s if e.games_per_s else None),
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
            grouped(p.seconds, 2),
            grouped(p.games_per_s),
            grouped(p.ns_per_game),
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


def ladder_depth_table(depth: Any) -> Any:
    """Each step of a skill ladder: the stronger seat's share, the lower rung's in the same
    seats, and the edge with its simultaneous interval."""
    from rich import box
    from rich.table import Table

    from balance import fmt

    table = Table(
        box=box.SIMPLE_HEAD,
        title=f"skill depth: each rung in one seat among the rung below, seats rotated "
        f"({fmt.level(depth.level)} intervals, simultaneous over the {len(depth.steps)} steps)",
    )
    for name in ("step", "games", "its share", "the rung below there", "edge"):
        table.add_column(name, justify="left" if name == "step" else "right", no_wrap=True)
    for s in depth.steps:
        table.add_row(
            f"{s.upper} over {s.lower}",
            fmt.grouped(s.games),
            fmt.pct(s.share),
            fmt.pct(s.yardstick),
            fmt.points(s.edge, s.lo, s.hi) + ("*" if s.lo > 0 or s.hi < 0 else " "),
        )
    from balance.report.ladder_page import depth_sentence

    table.caption = depth_sentence(depth) + " * an interval that excludes 0."
    return table


def _calls_table(title: str, first: str, rows: list[tuple[str, Any]], rungs: list[str]) -> Any:
    """A finding (or a card impact) per row: its value at every rung, its trend per rung and its
    call across the rungs (balance/stats/ladder.py's Finding)."""
    from rich import box
    from rich.table import Table

    from balance import fmt

    table = Table(box=box.SIMPLE_HEAD, title=title)
    table.add_column(first, no_wrap=True)
    for r in rungs:
        table.add_column(r, justify="right", no_wrap=True)
    table.add_column("trend per rung", justify="right", no_wrap=True)
    table.add_column("call", no_wrap=True)
    for label, f in rows:
        cells = [
            fmt.signed(v, lo, hi, 100) if f.reference else fmt.estimate(v, lo, hi, 100, " %")
            for v, lo, hi in zip(f.value, f.lo, f.hi, strict=True)
        ]
        trend = fmt.signed(f.slope, f.slope_lo, f.slope_hi, 100)
        table.add_row(label, *cells, trend + ("*" if f.q_value < 0.05 else " "), f.call)
    return table


def ladder_findings_table(findings: Any, rungs: list[str]) -> Any:
    """Each finding at every rung (a mirror each) and its call across the rungs."""
    names = {"order": "place", "seat": "chair", "team": "side", "role": "role"}
    return _calls_table(
        "findings at every rung (every seat that rung), in points: a place's, chair's or role's "
        "win share minus the mean seat win, a side's minus its target or fair share (a dealt side "
        "without a target: its share); intervals simultaneous over each axis' groups and the "
        "rungs; the trend per rung on the same games, * q < 0.05 (BH over the findings)",
        "finding",
        [(f"{names.get(f.axis, f.axis)} {f.group}", f) for f in findings],
        rungs,
    )


def ladder_impacts_table(impacts: Any, rungs: list[str], headline: Any) -> Any:
    """Each variant's change of the headline at every rung and its call across the rungs."""
    metric, kind, group = headline
    what = f"{kind} {group}" if kind not in ("order",) else f"place {int(group) + 1}"
    return _calls_table(
        f"card impact at every rung: each variant's change of the headline ({metric}, {what}) "
        "in points, every seat that rung, on the same games; intervals simultaneous over the "
        "rungs; * q < 0.05 (BH over the variants' trends)",
        "variant",
        [(v["name"], f) for v, f in impacts],
        rungs,
    )


def ladder_matrix_table(m: Any) -> Any:
    """A game of sides: the headline side's share with the Family played by each rung (rows)
    and the evil side by each rung (columns), simultaneous intervals."""
    from rich import box
    from rich.table import Table

    from balance import fmt

    table = Table(
        box=box.SIMPLE_HEAD,
        title=f"the {m.side} side's win share, the Family played by each rung (rows) against the "
        f"evil side played by each rung (columns); {fmt.level(m.level)} intervals, simultaneous "
        f"over the {len(m.cells)} cells; the diagonal: every seat that rung",
    )
    table.add_column("Family \\ evil", no_wrap=True)
    for r in m.rungs:
        table.add_column(r, justify="right", no_wrap=True)
    for f in m.rungs:
        row = [m.cell(f, e) for e in m.rungs]
        table.add_row(f, *(fmt.estimate(c.share, c.lo, c.hi, 100, " %") for c in row))
    return table


def census_tables(c: Any, level: float = 0.95) -> list[Any]:
    """What ``balance census`` prints: who played, the summary with intervals, the table by
    place in the turn order (simultaneous intervals) and the sentences (stats/census.py)."""
    from rich import box
    from rich.table import Table

    from balance.fmt import pct
    from balance.stats import census as sc

    summary = sc.summary(c.frame, level, kingmaking=c.kingmaking)
    places = sc.by(c.frame, "order", level)
    seats = ", ".join(c.seats) if len(set(c.seats)) > 1 else f"every seat {c.seats[0]}"
    head = (
        f"Census of games 0 to {c.games - 1:,} of seed {c.seed} ({c.game}, {len(c.seats)} "
        f"players: {seats}), replayed decision by decision"
    )
    if c.kingmaking:
        head += (
            f"; kingmaking tested on the last {pct(c.settings.window, 0)} of each game's decisions, "
            f"{c.settings.max_alternatives} other options at most, {c.settings.replays} replays each"
        )
    lv = f"{level * 100:g} %"
    t1 = Table(box=box.SIMPLE_HEAD, title="The game's decisions")
    for name in ("measure", "games", "value", f"{lv} interval"):
        t1.add_column(name, justify="left" if name == "measure" else "right")
    for r in summary.iter_rows(named=True):
        if r["kind"] == "rate":
            v, ci = pct(r["mean"], 2), f"[{pct(r['lo'], 2)}, {pct(r['hi'], 2)}]"
        else:
            v, ci = f"{r['mean']:+.3f}", f"[{r['lo']:+.3f}, {r['hi']:+.3f}]"
            if r["metric"] == "turns":
                v, ci = f"{r['mean']:.2f}", f"[{r['lo']:.2f}, {r['hi']:.2f}]"
        t1.add_row(r["words"], f"{r['games']:,}", v, ci)
    t2 = Table(
        box=box.SIMPLE_HEAD,
        title=f"By place in the turn order ({lv} intervals, simultaneous over the places)",
    )
    for name in ("place", "turns", "interval", "dead turns", "interval", "win share", "interval"):
        t2.add_column(name, justify="right")
    km = c.kingmaking
    if km:
        t2.add_column("kingmaking a game", justify="right")
        t2.add_column("interval", justify="right")
    for r in places.iter_rows(named=True):
        cells = [
            str(r["order"] + 1),
            f"{r['turns']:.2f}",
            f"[{r['turns_lo']:.2f}, {r['turns_hi']:.2f}]",
            pct(r["dead_share"], 1),
            f"[{pct(r['dead_lo'], 1)}, {pct(r['dead_hi'], 1)}]",
            pct(r["win_share"], 1),
            f"[{pct(r['win_lo'], 1)}, {pct(r['win_hi'], 1)}]",
        ]
        if km:
            cells += [
                f"{r['kingmaking']:.3f}",
                f"[{r['kingmaking_lo']:.3f}, {r['kingmaking_hi']:.3f}]",
            ]
        t2.add_row(*cells)
    said = sc.sentences(summary, places, kingmaking=km, window=c.settings.window)
    tables: list[Any] = [head, t1, t2]
    kinds = sc.by_kind(c.kinds, c.games, level) if km else None
    if kinds is not None and kinds.height:
        t3 = Table(
            box=box.SIMPLE_HEAD,
            title=f"Kingmaking by decision kind (simultaneous {lv} intervals)",
        )
        for name in ("decision", "tested", "kingmaking", "games", "share", "interval"):
            t3.add_column(name, justify="left" if name == "decision" else "right")
        for r in kinds.iter_rows(named=True):
            t3.add_row(
                r["kind"],
                f"{r['tested']:,}",
                f"{r['kingmaking']:,}",
                f"{r['games']:,}",
                pct(r["share"], 1),
                f"[{pct(r['lo'], 1)}, {pct(r['hi'], 1)}]",
            )
        tables.append(t3)
    return [*tables, *said]
