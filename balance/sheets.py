"""Tables for spreadsheets: a command's result tables as CSV files or one Excel workbook
(``--csv FILE``, ``--xlsx FILE``), and a results directory's per-game rows (``balance export``).

A table file holds the numbers themselves, not the rounded strings a terminal table shows: one
row per row of the result's polars frame, with its column names (a share is a fraction, 0.25 for
25 %; a missing value is empty). A command with several tables (:data:`TABLES`) writes them so:

- ``--csv FILE``: the first table to FILE, every other one to ``STEM.NAME.csv`` beside it
  (``--csv cmp.csv`` writes ``cmp.csv`` and ``cmp.plays.csv``); a table this result does not
  have is not written, and an old file of that name beside FILE is removed, so that the files
  beside FILE are all of one run.
- ``--xlsx FILE``: one workbook, a sheet per table named as above (an Excel table with a filter
  on each column, the header row frozen); NaN (no value, e.g. a share the rules fix has no
  p-value) is an empty cell. Needs xlsxwriter: ``pip install 'balance[sheets]'``.

:func:`check_tables` refuses a bad FILE before any game is played (one line naming the option
and the file: a wrong suffix, a missing directory, a directory, a FIFO or device, one of the
command's inputs or a file a results directory keeps; xlsxwriter missing); :func:`write_tables`
writes each file atomically (balance/outputs.py). The ``*_tables`` functions turn each command's
result into its named frames.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl

from balance.errors import BalanceError
from balance.outputs import OutputError, check_output_file, write_atomic, write_atomic_with

# The tables each command writes, the first to FILE itself (docs/commands/<command>.md,
# "Tables for spreadsheets", says their columns).
TABLES: dict[str, tuple[str, ...]] = {
    "compare": ("comparison", "plays", "census"),
    "impact": ("impact", "summary"),
    "sweep": ("curve", "steps", "trends"),
    "tune": ("answer", "points", "trials"),
    "ladder": ("depth", "luck", "findings", "impacts", "matrix"),
}
SUFFIXES = {"--csv": ".csv", "--xlsx": ".xlsx"}
XLSX_ROWS = 1_048_575  # an Excel sheet's 1,048,576 rows, less the header
SHEETS_EXTRA = "pip install 'balance[sheets]'"


class TableFiles(NamedTuple):
    """Where a command writes its tables (checked: :func:`check_tables`)."""

    csv: Path | None
    xlsx: Path | None
    names: tuple[str, ...]  # the command's tables, the first in FILE itself

    def csv_path(self, name: str) -> Path:
        """The CSV file of table ``name``: FILE for the first table, else ``STEM.NAME.csv``."""
        assert self.csv is not None
        return self.csv if name == self.names[0] else sibling(self.csv, name)

    def write(self, tables: Mapping[str, pl.DataFrame | None]) -> list[Path]:
        """:func:`write_tables`."""
        return write_tables(self, tables)


def sibling(path: Path, name: str) -> Path:
    """``STEM.NAME.SUFFIX`` beside ``path``: where the table ``name`` goes."""
    return path.with_name(f"{path.stem}.{name}{path.suffix}")


def check_file(
    path: Path,
    option: str,
    *,
    inputs: Mapping[str | os.PathLike[str], str] | None = None,
    results_dirs: Iterable[str | os.PathLike[str]] = (),
) -> Path:
    """Refuse ``path`` for ``option`` now, before any work: not ending in the option's suffix
    (:data:`SUFFIXES`), in a directory that does not exist, or anything balance/outputs.py's
    ``check_output_file`` refuses. Returns ``path``."""
    check_output_file(path, option, inputs=inputs, results_dirs=results_dirs)
    return _named_in_a_folder(path, option, SUFFIXES[option])


def _named_in_a_folder(path: Path, option: str, suffix: str, why: str = "") -> Path:
    """``path``, unless its name does not end in ``suffix`` (``why``: the reason, said after)
    or its directory does not exist: then one line naming ``option``."""
    if path.suffix.lower() != suffix:
        raise OutputError(f"{option} {path}: the file's name must end in {suffix}{why}")
    if not path.parent.is_dir():
        raise OutputError(
            f"{option} {path}: no such directory {path.parent}; create it or choose another "
            f"{option}"
        )
    return path


def need_xlsxwriter(option: str, path: Path) -> None:
    """One line naming the extra when xlsxwriter is not installed."""
    try:
        import xlsxwriter  # noqa: F401
    except ImportError:
        raise BalanceError(
            f"{option} {path}: writing .xlsx needs the xlsxwriter package: {SHEETS_EXTRA}"
        ) from None


def check_tables(
    csv: Path | None,
    xlsx: Path | None,
    command: str,
    *,
    inputs: Mapping[Any, str] | None = None,
    results_dirs: Iterable[Any] = (),
) -> TableFiles | None:
    """The checked ``--csv`` and ``--xlsx`` files of ``command`` (and every CSV file beside
    ``--csv`` its other tables go to); None when neither is given. Call it before any game."""
    if csv is None and xlsx is None:
        return None
    names = TABLES[command]
    dirs = [d for d in results_dirs if d is not None]
    if xlsx is not None:
        check_file(xlsx, "--xlsx", inputs=inputs, results_dirs=dirs)
        need_xlsxwriter("--xlsx", xlsx)
    files = TableFiles(csv, xlsx, names)
    if csv is not None:
        check_file(csv, "--csv", inputs=inputs, results_dirs=dirs)
        for name in names[1:]:
            check_output_file(files.csv_path(name), "--csv", inputs=inputs, results_dirs=dirs)
    return files


def write_tables(files: TableFiles, tables: Mapping[str, pl.DataFrame | None]) -> list[Path]:
    """Write ``tables`` (name -> frame, None: this result has no such table) to ``files``, in
    the order of ``files.names``; returns the files written."""
    frames = {n: tables[n] for n in files.names if tables.get(n) is not None}
    written: list[Path] = []
    if files.csv is not None:
        for name in files.names:
            path = files.csv_path(name)
            frame = frames.get(name)
            if frame is not None:
                written.append(write_atomic(path, frame.write_csv()))
            elif path != files.csv and path.is_file():  # an earlier run's: not of this one
                path.unlink()
    if files.xlsx is not None:
        written.append(write_xlsx(files.xlsx, frames))
    return written


def write_xlsx(path: Path, frames: Mapping[str, pl.DataFrame]) -> Path:
    """One workbook at ``path``, a sheet per frame (written atomically)."""

    def write(tmp: Path) -> None:
        import xlsxwriter

        with xlsxwriter.Workbook(str(tmp), {"nan_inf_to_errors": True}) as book:
            for name, frame in frames.items():
                floats = [c for c, t in frame.schema.items() if t.is_float()]
                frame.with_columns(pl.col(floats).fill_nan(None)).write_excel(
                    book,
                    name,
                    dtype_formats={pl.Float32: "General", pl.Float64: "General"},
                    freeze_panes=(1, 0),
                    autofit=frame.height <= 10_000,  # autofit reads every cell
                )

    return write_atomic_with(path, write)


# ======================================================================== each command's tables


def compare_tables(result: Any) -> dict[str, pl.DataFrame | None]:
    """``balance compare``: its table (``Comparison.table``), how the games played
    (``Comparison.plays``, when both runs kept trajectories) and the paired census
    (``Comparison.census``, with ``--census N``)."""
    return {"comparison": result.table, "plays": result.plays, "census": result.census}


def impact_tables(result: Any) -> dict[str, pl.DataFrame | None]:
    """``balance impact``: the long table (every variant's rows) and the summary (a row per
    variant, its change of the headline)."""
    return {"impact": result.table, "summary": result.summary}


def sweep_tables(path: str | os.PathLike[str], stats: Any = None) -> dict[str, pl.DataFrame | None]:
    """``balance sweep``: the tables its report reads (balance/report/numbers.py,
    ``analyse_sweep``, or ``stats`` when the caller has it already): every point's curve rows,
    the steps between neighbouring points and the trends along the first knob."""
    from balance.report.numbers import analyse_sweep

    ss = analyse_sweep(path) if stats is None else stats
    return {"curve": ss.curve, "steps": ss.steps, "trends": ss.trends}


_SIDES = {-1: "below", 0: "undecided", 1: "above"}


def tune_tables(result: Any) -> dict[str, pl.DataFrame | None]:
    """``balance tune`` (balance/experiments/tune.py's TuneResult): the answer, a row per
    target; the bisection's points, or the search's trials."""
    keys = [p.key for p in result.params]
    answer = dict(zip(keys, result.answer, strict=True))
    root, dist = result.root, result.distance
    rows = [
        {
            "target": v.target.label,
            "goal": v.target.value,
            "weight": v.target.weight,
            **answer,
            "mean": v.mean,
            "lo": v.lo,
            "hi": v.hi,
            "level": v.level,
            "games": v.games,
            "counted": v.counted,
            "fresh_from": result.fresh_from,
            "method": result.method,
            "crossing_estimate": None if root is None else root.estimate,
            "crossing_lo": None if root is None else root.lo,
            "crossing_hi": None if root is None else root.hi,
            "crossing_level": None if root is None else root.level,
            "stop": None if root is None else root.stop,
            "distance": None if dist is None else dist[0],
            "distance_lo": None if dist is None else dist[1],
            "distance_hi": None if dist is None else dist[2],
            "games_played": result.games,
            "budget": result.budget,
            "seed": result.seed,
        }
        for v in result.at_answer
    ]
    tables: dict[str, pl.DataFrame | None] = {
        "answer": _frame(rows, _ANSWER_SCHEMA, keys),
        "points": None,
        "trials": None,
    }
    if root is not None:
        inside = {p.x for p in root.bracket}
        points = [
            {keys[0]: p.x, "games": p.games, "counted": p.counted, "mean": p.mean, "lo": p.lo,
             "hi": p.hi, "level": root.point_level, "side": _SIDES[p.side],
             "in_interval": p.x in inside}
            for p in root.points
        ]  # fmt: skip
        tables["points"] = _frame(points, _POINTS_SCHEMA, keys[:1])
    else:
        tables["trials"] = _frame(
            [
                *_trial_rows(result.trials, keys, result.targets, "search"),
                *_trial_rows(result.refined, keys, result.targets, "replayed"),
            ],
            _TRIALS_SCHEMA,
            keys,
        )
    return tables


def _trial_rows(
    trials: Sequence[Any], keys: list[str], targets: Sequence[Any], stage: str
) -> Iterator[dict[str, Any]]:
    """A row per trial and target: the trial's number in its stage, its values, its distance and
    the target's mean (with its interval over the trial's games when it was measured)."""
    for i, t in enumerate(trials, start=1):
        measured = t.measured or [None] * len(targets)
        for target, mean, m in zip(targets, t.means, measured, strict=True):
            yield {
                "stage": stage,
                "trial": i,
                **dict(zip(keys, t.values, strict=True)),
                "games": t.games,
                "distance": t.distance,
                "target": target.label,
                "goal": target.value,
                "mean": mean,
                "lo": None if m is None else m.lo,
                "hi": None if m is None else m.hi,
                "level": None if m is None else m.level,
                "counted": None if m is None else m.counted,
            }


_F, _I, _S, _B = pl.Float64, pl.Int64, pl.String, pl.Boolean
_ANSWER_SCHEMA = {
    "target": _S, "goal": _F, "weight": _F, "mean": _F, "lo": _F, "hi": _F, "level": _F,
    "games": _I, "counted": _I, "fresh_from": _I, "method": _S, "crossing_estimate": _F,
    "crossing_lo": _F, "crossing_hi": _F, "crossing_level": _F, "stop": _S, "distance": _F,
    "distance_lo": _F, "distance_hi": _F, "games_played": _I, "budget": _I, "seed": _I,
}  # fmt: skip
_POINTS_SCHEMA = {
    "games": _I, "counted": _I, "mean": _F, "lo": _F, "hi": _F, "level": _F, "side": _S,
    "in_interval": _B,
}  # fmt: skip
_TRIALS_SCHEMA = {
    "stage": _S, "trial": _I, "games": _I, "distance": _F, "target": _S, "goal": _F, "mean": _F,
    "lo": _F, "hi": _F, "level": _F, "counted": _I,
}  # fmt: skip


def _frame(
    rows: Sequence[dict[str, Any]], schema: dict[str, Any], knobs: list[str]
) -> pl.DataFrame:
    """``rows`` as a frame with the types of ``schema``, the knobs' columns typed from their
    values (an integer knob stays integer); no rows: the columns of ``schema`` and the knobs."""
    if not rows:
        return pl.DataFrame(schema={**dict.fromkeys(knobs, pl.Float64), **schema})
    typed = {c: t for c, t in schema.items() if c in rows[0]}
    return pl.DataFrame(rows, schema_overrides=typed, infer_schema_length=None)


def ladder_tables(
    depth: Any,
    luck: Any,
    findings: Sequence[Any],
    impacts: Sequence[Any],
    matrix: Any,
    *,
    headline: Sequence[str] = ("win_share", "order", "0"),
) -> dict[str, pl.DataFrame | None]:
    """``balance ladder`` (balance/stats/ladder.py, read by balance/ladder_file.py): the skill
    depth (a row per step), luck against skill (one row), the findings and the card impacts on
    the config's ``headline`` (a row per finding, or variant, and rung), and in a game of sides
    the matrix (a row per cell)."""
    from balance.ladder_file import headline_key

    axis = (headline_key(tuple(headline)) or ("",))[0]
    steps = [{**s._asdict(), "level": depth.level} for s in depth.steps]
    s = luck.step
    luck_row = {
        "bottom": luck.bottom, "top": luck.top, "games": s.games, "share": s.share,
        "yardstick": s.yardstick, "edge": s.edge, "edge_lo": s.lo, "edge_hi": s.hi,
        "edge_p_value": s.p_value, "same": luck.same, "chance": luck.chance, "hold": luck.hold,
        "hold_lo": luck.lo, "hold_hi": luck.hi,
    }  # fmt: skip
    rungs = _rungs(depth)
    variants = [
        {"variant": v["name"], "description": v.get("description"), **r, "axis": axis}
        for v, f in impacts
        for r in _calls(f, rungs)
    ]
    cells = [] if matrix is None else matrix.cells
    return {
        "depth": pl.DataFrame(steps, schema=_DEPTH_SCHEMA),
        "luck": pl.DataFrame([luck_row], schema=_LUCK_SCHEMA),
        "findings": pl.DataFrame(
            [r for f in findings for r in _calls(f, rungs)], schema=_FINDINGS_SCHEMA
        ),
        # none without card impacts (--impact none, a game without variants) or a matrix
        "impacts": pl.DataFrame(variants, schema=_IMPACTS_SCHEMA) if impacts else None,
        "matrix": None
        if matrix is None
        else pl.DataFrame(
            [{"side": matrix.side, **c._asdict(), "level": matrix.level} for c in cells],
            schema=_MATRIX_SCHEMA,
        ),
    }


def _rungs(depth: Any) -> list[str]:
    """The rungs of a ladder, weakest first, from its steps."""
    if not depth.steps:
        return []
    return [depth.steps[0].lower, *(s.upper for s in depth.steps)]


def _calls(f: Any, rungs: list[str]) -> Iterator[dict[str, Any]]:
    """A finding's rows: one per rung."""
    for rung, value, lo, hi, games in zip(rungs, f.value, f.lo, f.hi, f.games, strict=True):
        yield {
            "axis": f.axis, "group": f.group, "reference": f.reference, "rung": rung,
            "value": value, "lo": lo, "hi": hi, "games": games, "slope": f.slope,
            "slope_lo": f.slope_lo, "slope_hi": f.slope_hi, "p_value": f.p_value,
            "q_value": f.q_value, "call": f.call,
        }  # fmt: skip


_DEPTH_SCHEMA = {
    "lower": _S, "upper": _S, "games": _I, "share": _F, "yardstick": _F, "edge": _F, "lo": _F,
    "hi": _F, "p_value": _F, "level": _F,
}  # fmt: skip
_LUCK_SCHEMA = {
    "bottom": _S, "top": _S, "games": _I, "share": _F, "yardstick": _F, "edge": _F,
    "edge_lo": _F, "edge_hi": _F, "edge_p_value": _F, "same": _F, "chance": _F, "hold": _F,
    "hold_lo": _F, "hold_hi": _F,
}  # fmt: skip
_FINDINGS_SCHEMA = {
    "axis": _S, "group": _S, "reference": _B, "rung": _S, "value": _F, "lo": _F, "hi": _F,
    "games": _I, "slope": _F, "slope_lo": _F, "slope_hi": _F, "p_value": _F, "q_value": _F,
    "call": _S,
}  # fmt: skip
_IMPACTS_SCHEMA = {"variant": _S, "description": _S, **_FINDINGS_SCHEMA}
_MATRIX_SCHEMA = {
    "side": _S, "family": _S, "evil": _S, "games": _I, "share": _F, "lo": _F, "hi": _F,
    "level": _F,
}  # fmt: skip


# ================================================================== balance export: the rows


FORMATS = ("csv", "xlsx")
ROWS_FILE = "rows"  # RESULTS/rows.csv, RESULTS/rows.xlsx: export's default


def export_format(fmt: str | None, out: Path | None) -> str:
    """``--format`` as given, else the suffix of ``--out``, else csv."""
    if fmt is None:
        suffix = out.suffix.lower().lstrip(".") if out is not None and str(out) != "-" else ""
        fmt = suffix if suffix in FORMATS else "csv"
    if fmt not in FORMATS:
        raise BalanceError(f"--format {fmt!r}: expected csv or xlsx")
    return fmt


def open_rows(results: Path) -> tuple[dict[str, Any], pl.LazyFrame]:
    """(manifest, rows) of the results directory ``results`` (balance/results/, its one-line
    ResultsError if it is not one); a sweep or ladder directory names its points instead."""
    from balance.results import open_results
    from balance.sweep_file import is_sweep, open_sweep

    if is_sweep(results) and not (results / "manifest.json").is_file():
        points = [p.path for p in open_sweep(results).points]
        first = f", e.g. {points[0]}" if points else ""
        kind = "ladder" if (results / "ladder.json").is_file() else "sweep"
        raise BalanceError(f"{results}: a {kind} directory: export one of its points{first}")
    return open_results(results)


def check_export(results: Path, out: Path | None, fmt: str) -> Path | None:
    """The checked output of ``balance export`` (default ``RESULTS/rows.<fmt>``; None for ``-``,
    stdout), before any row is read."""
    if out is not None and str(out) == "-":
        if fmt != "csv":
            raise BalanceError("--out -: an xlsx workbook cannot go to stdout; name a FILE.xlsx")
        return None
    out = results / f"{ROWS_FILE}.{fmt}" if out is None else out
    option = "--out"
    check_output_file(
        out, option, inputs={results: "the results directory"}, suggest=f"{ROWS_FILE}.{fmt}"
    )
    _named_in_a_folder(out, option, f".{fmt}", f" (--format {fmt})")
    if fmt == "xlsx":
        need_xlsxwriter(option, out)
    return out


def export_rows(rows: pl.LazyFrame, out: Path | None, fmt: str, *, stdout: Any = None) -> int:
    """Write a results directory's ``rows`` to ``out`` (None: ``stdout``, a binary stream):
    CSV streamed from the parts, or one XLSX sheet ``rows`` written row by row (xlsxwriter's
    constant memory mode); memory stays flat either way. Returns the number of rows."""
    n = int(rows.select(pl.len()).collect().item())
    if fmt == "xlsx":
        if n > XLSX_ROWS:
            raise BalanceError(
                f"{n:,} rows do not fit an Excel sheet (at most {XLSX_ROWS:,} rows under its "
                "header); export --format csv"
            )
        assert out is not None
        write_atomic_with(out, lambda tmp: _rows_xlsx(rows, tmp))
    elif out is None:
        try:
            rows.sink_csv(stdout)
        except OSError as e:  # polars' own, without an errno: `balance export R --out - | head`
            if e.errno == errno.EPIPE or "os error 32" in str(e):
                raise BrokenPipeError(errno.EPIPE, "Broken pipe") from None
            raise
    else:
        write_atomic_with(out, lambda tmp: rows.sink_csv(tmp, check_extension=False))
    return n


def _rows_xlsx(rows: pl.LazyFrame, tmp: Path) -> None:
    """``rows`` as the sheet ``rows`` of a new workbook ``tmp``, batch by batch (NaN: empty)."""
    import xlsxwriter

    schema = rows.collect_schema()
    floats = [c for c, t in schema.items() if t.is_float()]
    with xlsxwriter.Workbook(str(tmp), {"constant_memory": True}) as book:
        sheet = book.add_worksheet(ROWS_FILE)
        sheet.write_row(0, 0, schema.names())
        r = 0
        for batch in rows.with_columns(pl.col(floats).fill_nan(None)).collect_batches():
            for row in batch.iter_rows():
                r += 1
                sheet.write_row(r, 0, row)
        sheet.autofilter(0, 0, r, len(schema) - 1)
        sheet.freeze_panes(1, 0)
