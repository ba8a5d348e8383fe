"""The entry points the CLI calls: read results directories, make the page, write the file.

``write_report(["results/run"], out="reports/run.html")`` analyses each directory (numbers.py),
renders the page (page.py) and writes it atomically; ``write_comparison`` does the same for the
page of a ``balance compare`` (compare.py) and ``write_sweep_report`` for the page of a
``balance sweep`` (sweep_page.py). ``check_output`` fails early, before a long run, when
the file cannot be written (balance/outputs.py, which also writes it). Nothing here prints or
exits: problems raise ``ReportError`` and ``OutputError`` (or the ``ResultsError`` and
``ImpactFileError`` of the files it reads).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from balance.impact_file import read_impact
from balance.outputs import check_output_file, write_atomic
from balance.report.compare import render_comparison
from balance.report.numbers import (
    Differences,
    ReportError,
    analyse_rows,
    analyse_sweep,
    differences,
    label,
)
from balance.report.page import render
from balance.report.sweep_page import render_sweep
from balance.results import open_results


class ReportInfo(NamedTuple):
    path: Path
    bytes: int
    stats_seconds: float  # reading the datasets and computing the statistics
    seconds: float  # everything


def check_output(out: str | os.PathLike[str], option: str = "", **checks: Any) -> None:
    """Raise an OutputError now if ``out`` cannot be written (before a long run or analysis):
    balance/outputs.py's ``check_output_file``, ``option`` naming it (``--out``) and ``checks``
    its ``inputs`` and ``results_dirs``."""
    check_output_file(out, option, suggest="report.html", **checks)


def check_one_game(games: Sequence[tuple[str, Any]]) -> None:
    """Raise ReportError (one line naming both) when ``(path, game)`` holds two games: a report
    compares datasets of one game (their seats, shares and lengths mean different things)."""
    first_path, first = games[0]
    for path, game in games[1:]:
        if game != first:
            raise ReportError(
                f"a report compares one game: {first_path} is {first}, {path} is {game}"
            )


def build_report(
    results: Sequence[str | os.PathLike[str]],
    *,
    baseline: str | os.PathLike[str] | None = None,
    impact: str | os.PathLike[str] | None = None,
    ladder: str | os.PathLike[str] | None = None,
    cdn: bool = False,
    level: float = 0.95,
) -> tuple[str, float]:
    """(HTML, seconds spent on statistics) of a report on ``results`` directories.

    Without ``impact``, a single results directory's own ``variants.json`` (the game's report
    variants, written by ``simulate --report``) is used when there is one."""
    if not results:
        raise ReportError("give at least one results directory")
    if impact is None and len(results) == 1:
        own = Path(results[0]) / "variants.json"
        if own.is_file():
            impact = own
    t0 = time.perf_counter()
    opened = [(p, *open_results(p)) for p in results]
    games = [(os.fspath(p), m.get("game")) for p, m, _ in opened]
    if baseline is not None:
        games.append((os.fspath(baseline), open_results(baseline)[0].get("game")))
    skill = None
    if ladder is not None:
        from balance.report.ladder_page import analyse_ladder

        skill = analyse_ladder(ladder)
        games.append((os.fspath(ladder), skill.manifest.get("game")))
    check_one_game(games)
    datasets = [
        analyse_rows(m, rows, label=label(p), path=os.fspath(p), level=level)
        for p, m, rows in opened
    ]
    base = None
    diffs: list[Differences | None] = []
    if baseline is not None:
        bm, brows = open_results(baseline)
        base = analyse_rows(
            bm,
            brows,
            label=label(baseline),
            path=os.fspath(baseline),
            level=level,
            game_sections=False,  # the page shows only the datasets' own
        )
        diffs = [
            differences(ds, base, rows=rows, base_rows=brows, level=level)
            for ds, (_, _, rows) in zip(datasets, opened, strict=True)
        ]
    impact_file = read_impact(impact) if impact is not None else None
    stats_s = time.perf_counter() - t0
    html = render(datasets, baseline=base, diffs=diffs, impact=impact_file, ladder=skill, cdn=cdn)
    return html, stats_s


def write_report(
    results: Sequence[str | os.PathLike[str]],
    *,
    out: str | os.PathLike[str],
    baseline: str | os.PathLike[str] | None = None,
    impact: str | os.PathLike[str] | None = None,
    ladder: str | os.PathLike[str] | None = None,
    cdn: bool = False,
    level: float = 0.95,
) -> ReportInfo:
    """Write the report on ``results`` to ``out`` (parents created; replaced atomically)."""
    t0 = time.perf_counter()
    check_output(out, inputs={impact: "the impact file --impact"} if impact is not None else None)
    html, stats_s = build_report(
        results, baseline=baseline, impact=impact, ladder=ladder, cdn=cdn, level=level
    )
    path = _write_html(out, html)
    return ReportInfo(path, path.stat().st_size, stats_s, time.perf_counter() - t0)


def write_comparison(
    comparison: Any, *, out: str | os.PathLike[str], cdn: bool = False
) -> ReportInfo:
    """Write the page of a ``balance compare`` to ``out`` (parents created; replaced atomically).
    Call ``check_output(out)`` before playing the games."""
    t0 = time.perf_counter()
    check_output(out)
    path = _write_html(out, render_comparison(comparison, cdn=cdn))
    seconds = time.perf_counter() - t0
    return ReportInfo(path, path.stat().st_size, seconds, seconds)


def _write_html(out: str | os.PathLike[str], html: str) -> Path:
    """Replace ``out`` with the page atomically (balance/outputs.py): a failed write leaves no
    partial page and an earlier one as it was."""
    return write_atomic(out, html)


def write_sweep_report(
    path: str | os.PathLike[str],
    *,
    out: str | os.PathLike[str],
    cdn: bool = False,
    level: float = 0.95,
    stats: Any = None,
) -> ReportInfo:
    """Write the page of the sweep at ``path`` to ``out`` (parents created; replaced
    atomically); ``stats``: its ``analyse_sweep`` at ``level`` when the caller has it already
    (``balance sweep --report --csv`` analyses the sweep once for both)."""
    t0 = time.perf_counter()
    check_output(out)
    ss = analyse_sweep(path, level=level) if stats is None else stats
    written = _write_html(out, render_sweep(ss, cdn=cdn))
    return ReportInfo(written, written.stat().st_size, ss.seconds, time.perf_counter() - t0)


def write_ladder_report(
    path: str | os.PathLike[str], *, out: str | os.PathLike[str], cdn: bool = False
) -> ReportInfo:
    """Write the page of the ladder at ``path`` to ``out`` (parents created; replaced
    atomically)."""
    from balance.report.ladder_page import analyse_ladder, render_ladder

    t0 = time.perf_counter()
    check_output(out)
    ls = analyse_ladder(path)
    written = _write_html(out, render_ladder(ls, cdn=cdn))
    return ReportInfo(written, written.stat().st_size, ls.seconds, time.perf_counter() - t0)
