"""Tables for spreadsheets (issue 33, part 2; balance/sheets.py).

``--csv FILE`` and ``--xlsx FILE`` on compare, impact, sweep, tune and ladder hold the result's
tables at full precision: each CSV read back equals the result computed here, row for row and
column for column (the first table in FILE, each other one in ``STEM.NAME.csv``), and a workbook
holds the same values, a sheet per table (read with zipfile: no xlsx reader is a dependency).
``balance export`` writes a results directory's rows, equal to ``open_results(...).collect()``.
A bad file is one line on stderr, exit 1, before any game, with nothing written."""

from __future__ import annotations

import io
import json
import math
import sys
import zipfile
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from typer.testing import CliRunner

from balance import experiments, results, sheets
from balance import games as registry
from balance.cli import app
from balance.config import load_config
from balance.experiments import ladder as ladder_lib
from balance.experiments import tune as tune_lib
from balance.report.numbers import analyse_sweep

ROOT = Path(__file__).resolve().parent.parent
FR = ROOT / "configs" / "five_ravens"
BASE, NO_SEVEN, TWO = FR / "base.yaml", FR / "no_seven.yaml", FR / "two_players.yaml"
RAVEN_MANOR = ROOT / "configs" / "raven_manor" / "base.yaml"
KNOB = "rules.relics.chest_5.value"


def cli(*args: object) -> Any:
    return CliRunner().invoke(app, [str(a) for a in args])


def ok(*args: object) -> Any:
    result = cli(*args)
    assert result.exit_code == 0, result.output
    return result


def same_csv(path: Path, frame: pl.DataFrame) -> None:
    """The CSV at ``path`` is ``frame``: its columns, its rows in order, every value exact."""
    back = pl.read_csv(path, schema=frame.schema)
    assert_frame_equal(back, frame, check_exact=True)


def same(a: Any, b: Any) -> bool:
    """Equal values, NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def same_rows(path: Path, expected: list[tuple[Any, ...]], **overrides: Any) -> None:
    got = pl.read_csv(path, schema_overrides=overrides).rows()
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert len(g) == len(e) and all(same(x, y) for x, y in zip(g, e, strict=True)), (g, e)


def snapshot(folder: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None
        for p in sorted(folder.rglob("*"))
    }


# ---------------------------------------------------------------- an xlsx read without a reader

M = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"


def _column(ref: str) -> int:
    n = 0
    for ch in ref:
        if not ch.isalpha():
            break
        n = n * 26 + ord(ch) - ord("A") + 1
    return n - 1


def xlsx_sheets(path: Path) -> dict[str, list[list[Any]]]:
    """Every sheet of a workbook, in order: its rows of cell values (a string, a bool, a float,
    None for an empty cell, ("error", text) for an error cell)."""
    z = zipfile.ZipFile(path)
    strings: list[str] = []
    if "xl/sharedStrings.xml" in z.namelist():
        root = ET.fromstring(z.read("xl/sharedStrings.xml"))
        strings = ["".join(t.text or "" for t in si.iter(f"{M}t")) for si in root.iter(f"{M}si")]
    rels = ET.fromstring(z.read("xl/_rels/workbook.xml.rels"))
    target = {r.get("Id"): r.get("Target") for r in rels}
    sheets_: dict[str, list[list[Any]]] = {}
    for sheet in ET.fromstring(z.read("xl/workbook.xml")).iter(f"{M}sheet"):
        xml = ET.fromstring(z.read("xl/" + target[sheet.get(f"{R}id")].removeprefix("/xl/")))
        rows = []
        for row in xml.iter(f"{M}row"):
            cells: dict[int, Any] = {}
            for c in row.iter(f"{M}c"):
                t, v = c.get("t"), c.find(f"{M}v")
                if t == "s":
                    value: Any = strings[int(v.text)]
                elif t == "inlineStr":
                    value = "".join(x.text or "" for x in c.iter(f"{M}t"))
                elif t == "str":
                    value = v.text
                elif t == "b":
                    value = v.text == "1"
                elif t == "e":
                    value = ("error", v.text)
                else:
                    value = None if v is None else float(v.text)
                cells[_column(c.get("r"))] = value
            rows.append([cells.get(i) for i in range(max(cells, default=-1) + 1)])
        sheets_[sheet.get("name")] = rows
    return sheets_


def same_sheet(rows: list[list[Any]], frame: pl.DataFrame) -> None:
    """A sheet holds ``frame``: its header, then each row (a number as Excel keeps it, 15
    significant digits; NaN and null as an empty cell)."""
    assert rows[0] == frame.columns
    assert len(rows) == frame.height + 1
    for got, want in zip(rows[1:], frame.iter_rows(), strict=True):
        got = got + [None] * (len(want) - len(got))
        for g, w in zip(got, want, strict=True):
            if w is None or (isinstance(w, float) and math.isnan(w)):
                assert g is None, (got, want)
            elif isinstance(w, bool | str):
                assert g == w, (got, want)
            else:
                assert math.isclose(g, w, rel_tol=1e-15, abs_tol=0), (got, want)


# ================================================================================= the commands


def test_compare_writes_its_table_and_plays_as_csv_and_xlsx(tmp_path):
    out, book = tmp_path / "cmp.csv", tmp_path / "cmp.xlsx"
    r = ok("compare", BASE, NO_SEVEN, "--games", 400, "--csv", out, "--xlsx", book)
    want = experiments.compare(load_config(BASE), load_config(NO_SEVEN), games=400)
    assert want.plays is not None
    same_csv(out, want.table)
    same_csv(tmp_path / "cmp.plays.csv", want.plays)
    assert r.stdout.splitlines()[-1] == f"tables -> {out}, {tmp_path / 'cmp.plays.csv'}, {book}"
    workbook = xlsx_sheets(book)
    assert list(workbook) == ["comparison", "plays"]
    same_sheet(workbook["comparison"], want.table)
    same_sheet(workbook["plays"], want.plays)
    # the numbers themselves, not the terminal's: an interval bound has all its digits
    assert max(len(str(x)) for x in pl.read_csv(out)["lo"]) >= 15


def test_a_table_the_result_lacks_is_not_left_from_an_earlier_run(tmp_path):
    out = tmp_path / "cmp.csv"
    ok("compare", BASE, NO_SEVEN, "--games", 300, "--csv", out)
    assert (tmp_path / "cmp.plays.csv").is_file()
    r = ok("compare", TWO, BASE, "--games", 300, "--csv", out)  # independent samples: no plays
    want = experiments.compare(load_config(TWO), load_config(BASE), games=300)
    assert want.plays is None and not want.paired
    same_csv(out, want.table)
    assert not (tmp_path / "cmp.plays.csv").exists()
    assert r.stdout.splitlines()[-1] == f"tables -> {out}"


def test_impact_writes_its_long_table_and_summary(tmp_path):
    out = tmp_path / "impact.csv"
    ok("impact", BASE, "--games", 300, "--csv", out)
    cfg = load_config(BASE)
    chosen, source = experiments.chosen_variants(registry.get(cfg.game), cfg, None)
    want = experiments.impact(cfg, chosen, config_path="x", variants_source=source, games=300)
    same_csv(out, want.table)
    same_csv(tmp_path / "impact.summary.csv", want.summary)


def test_sweep_writes_the_curves_steps_and_trends_its_report_reads(tmp_path):
    out = tmp_path / "sw.csv"
    sweep_dir = tmp_path / "sw"
    ok("sweep", BASE, "--over", "rules.relics.gem.count=2..4", "--games", 300, "--out",
       sweep_dir, "--csv", out)  # fmt: skip
    want = analyse_sweep(sweep_dir)
    assert want.trends.height > 0  # three numeric points: a trend per curve
    same_csv(out, want.curve)
    same_csv(tmp_path / "sw.steps.csv", want.steps)
    same_csv(tmp_path / "sw.trends.csv", want.trends)


def test_a_sweep_with_a_page_and_tables_is_analysed_once(tmp_path, monkeypatch):
    from balance.report import numbers, write

    calls = []
    real = numbers.analyse_sweep
    counted = lambda *a, **k: calls.append(a) or real(*a, **k)  # noqa: E731
    monkeypatch.setattr(numbers, "analyse_sweep", counted)
    monkeypatch.setattr(write, "analyse_sweep", counted)
    out, page = tmp_path / "sw.csv", tmp_path / "sw.html"
    ok("sweep", BASE, "--over", "rules.relics.gem.count=2,3", "--games", 200, "--out",
       tmp_path / "sw", "--csv", out, "--report", page)  # fmt: skip
    assert len(calls) == 1 and page.exists()
    same_csv(out, real(tmp_path / "sw").curve)


def test_tune_by_bisection_writes_its_answer_and_points(tmp_path):
    out = tmp_path / "tune.csv"
    param, target = f"{KNOB}=0..40", "mean_score=8"
    ok("tune", BASE, "--param", param, "--target", target, "--games", 3000, "--csv", out)
    want = tune_lib.tune(BASE, [param], [target], games=3000)
    root, (v,) = want.root, want.at_answer
    answer = pl.read_csv(out).row(0, named=True)
    assert pl.read_csv(out).height == 1
    assert answer["target"] == "mean_score" and answer["goal"] == 8.0
    assert answer[KNOB] == want.answer[0]
    assert (answer["mean"], answer["lo"], answer["hi"], answer["level"]) == (
        v.mean, v.lo, v.hi, v.level
    )  # fmt: skip
    assert (answer["games"], answer["counted"], answer["fresh_from"]) == (
        v.games, v.counted, want.fresh_from
    )  # fmt: skip
    assert (answer["crossing_lo"], answer["crossing_hi"], answer["crossing_estimate"]) == (
        root.lo, root.hi, root.estimate
    )  # fmt: skip
    assert answer["method"] == "bisection" and answer["distance"] is None
    inside = {p.x for p in root.bracket}
    sides = {-1: "below", 0: "undecided", 1: "above"}
    same_rows(
        tmp_path / "tune.points.csv",
        [
            (
                p.x,
                p.games,
                p.counted,
                p.mean,
                p.lo,
                p.hi,
                root.point_level,
                sides[p.side],
                p.x in inside,
            )
            for p in root.points
        ],
    )
    assert not (tmp_path / "tune.trials.csv").exists()


def test_tune_of_several_knobs_writes_its_trials(tmp_path):
    out = tmp_path / "tune.csv"
    params = [f"{KNOB}=0..10:2", "rules.relics.gem.count=2..3"]
    targets = ["mean_score=8", "mean_turns=80"]
    args = [a for p in params for a in ("--param", p)] + [
        a for t in targets for a in ("--target", t)
    ]
    ok("tune", BASE, *args, "--games", 6000, "--csv", out)
    want = tune_lib.tune(BASE, params, targets, games=6000)
    answer = pl.read_csv(out)
    assert answer["target"].to_list() == ["mean_score", "mean_turns"]
    assert answer.select(KNOB, "rules.relics.gem.count").row(0) == tuple(want.answer)
    assert answer["mean"].to_list() == [v.mean for v in want.at_answer]
    assert answer["distance"].to_list() == [want.distance[0]] * 2
    trials = pl.read_csv(tmp_path / "tune.trials.csv")
    assert trials.height == 2 * (len(want.trials) + len(want.refined))
    search = trials.filter(pl.col("stage") == "search")
    assert search.select(KNOB, "rules.relics.gem.count").rows()[::2] == [
        tuple(t.values) for t in want.trials
    ]
    assert search["mean"].to_list() == [m for t in want.trials for m in t.means]
    assert search["distance"].to_list()[::2] == [t.distance for t in want.trials]


def _findings_rows(findings: list[Any], rungs: list[str]) -> list[tuple[Any, ...]]:
    return [
        (f.axis, f.group, f.reference, rung, value, lo, hi, games, f.slope, f.slope_lo,
         f.slope_hi, f.p_value, f.q_value, f.call)
        for f in findings
        for rung, value, lo, hi, games in zip(rungs, f.value, f.lo, f.hi, f.games, strict=True)
    ]  # fmt: skip


def test_ladder_writes_depth_luck_findings_and_card_impacts(tmp_path):
    out, ladder_dir = tmp_path / "ld.csv", tmp_path / "ld"
    ok("ladder", BASE, "--rungs", "random,greedy", "--games", 300, "--out", ladder_dir,
       "--csv", out, "--yes")  # fmt: skip
    ld = ladder_lib.load(ladder_dir)
    depth, luck = ladder_lib.read_depth(ld), ladder_lib.read_luck(ld)
    rungs = ["random", "greedy"]
    same_rows(out, [(*s, depth.level) for s in depth.steps])
    s = luck.step
    same_rows(
        tmp_path / "ld.luck.csv",
        [
            (
                luck.bottom,
                luck.top,
                s.games,
                s.share,
                s.yardstick,
                s.edge,
                s.lo,
                s.hi,
                s.p_value,
                luck.same,
                luck.chance,
                luck.hold,
                luck.lo,
                luck.hi,
            )
        ],
    )
    same_rows(
        tmp_path / "ld.findings.csv",
        _findings_rows(ladder_lib.read_findings(ld), rungs),
        group=pl.String,
    )
    impacts = ladder_lib.read_impacts(ld)
    assert impacts  # the three variants of --impact top
    rows = pl.read_csv(tmp_path / "ld.impacts.csv", schema_overrides={"group": pl.String})
    assert rows["variant"].to_list() == [v["name"] for v, _ in impacts for _ in rungs]
    assert rows["description"].to_list() == [v["description"] for v, _ in impacts for _ in rungs]
    assert set(rows["axis"]) == {"order"}  # the headline: the first place's win share
    want = _findings_rows([f for _, f in impacts], rungs)
    for got, w in zip(rows.drop("variant", "description", "axis").rows(), want, strict=True):
        assert all(same(a, b) for a, b in zip(got, w[1:], strict=True))
    assert not (tmp_path / "ld.matrix.csv").exists()  # Five Ravens has no sides


def test_ladder_of_a_game_of_sides_writes_its_matrix(tmp_path):
    out, book, ladder_dir = tmp_path / "rm.csv", tmp_path / "rm.xlsx", tmp_path / "rm"
    ok("ladder", RAVEN_MANOR, "--rungs", "random,basic", "--games", 300, "--impact", "none",
       "--out", ladder_dir, "--csv", out, "--xlsx", book, "--yes")  # fmt: skip
    m = ladder_lib.read_matrix(ladder_lib.load(ladder_dir))
    assert m is not None and len(m.cells) == 4
    want = [(m.side, c.family, c.evil, c.games, c.share, c.lo, c.hi, m.level) for c in m.cells]
    same_rows(tmp_path / "rm.matrix.csv", want)
    assert not (tmp_path / "rm.impacts.csv").exists()  # --impact none
    workbook = xlsx_sheets(book)
    assert list(workbook) == ["depth", "luck", "findings", "matrix"]
    same_sheet(workbook["matrix"], pl.read_csv(tmp_path / "rm.matrix.csv"))


# ==================================================================================== bad files

COMMANDS = {
    "compare": ["compare", BASE, NO_SEVEN, "--games", 300],
    "impact": ["impact", BASE, "--games", 300],
    "sweep": ["sweep", BASE, "--over", "rules.relics.gem.count=2,3", "--games", 300, "--out",
              "{T}/sw"],
    "tune": ["tune", BASE, "--param", f"{KNOB}=0..40", "--target", "mean_score=8", "--games",
             3000],
    "ladder": ["ladder", BASE, "--rungs", "random,greedy", "--games", 300, "--out", "{T}/ld",
               "--yes"],
}  # fmt: skip


def _bad(kind: str, t: Path) -> tuple[str, Path, str]:
    """(option, file, the error's text after ``OPTION FILE: ``) of a bad file of ``kind``."""
    if kind == "missing directory":
        return (
            "--csv",
            t / "no" / "t.csv",
            f"no such directory {t / 'no'}; create it or " + ("choose another --csv"),
        )
    if kind == "wrong suffix":
        return "--csv", t / "t.txt", "the file's name must end in .csv"
    if kind == "a directory":
        (t / "d.csv").mkdir()
        return "--csv", t / "d.csv", "is a directory; name a file to write"
    if kind == "xlsx wrong suffix":
        return "--xlsx", t / "t.csv", "the file's name must end in .xlsx"
    if kind == "xlsx missing directory":
        return (
            "--xlsx",
            t / "no" / "t.xlsx",
            f"no such directory {t / 'no'}; create it or " + ("choose another --xlsx"),
        )
    raise AssertionError(kind)


KINDS = ["missing directory", "wrong suffix", "a directory", "xlsx wrong suffix",
         "xlsx missing directory"]  # fmt: skip


def one_line_before_any_game(result: Any, folder: Path, before: dict[str, Any], line: str) -> None:
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert result.stderr == f"error: {line}\n"
    assert result.stdout == ""  # not a line of the run: no game was played
    assert snapshot(folder) == before  # nothing written


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_bad_table_file_is_one_line_before_any_game(command, kind, tmp_path):
    option, path, problem = _bad(kind, tmp_path)
    before = snapshot(tmp_path)
    args = [str(a).replace("{T}", str(tmp_path)) for a in COMMANDS[command]]
    result = cli(*args, option, path)
    one_line_before_any_game(result, tmp_path, before, f"{option} {path}: {problem}")


def test_a_directory_where_another_table_goes_is_refused_too(tmp_path):
    (tmp_path / "cmp.plays.csv").mkdir()
    before = snapshot(tmp_path)
    result = cli(*COMMANDS["compare"], "--csv", tmp_path / "cmp.csv")
    one_line_before_any_game(
        result,
        tmp_path,
        before,
        f"--csv {tmp_path / 'cmp.plays.csv'}: is a directory; name a file to write",
    )


def test_xlsx_without_xlsxwriter_names_the_extra_before_any_game(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "xlsxwriter", None)  # `import xlsxwriter` fails
    book = tmp_path / "t.xlsx"
    result = cli(*COMMANDS["compare"], "--xlsx", book)
    line = (
        f"--xlsx {book}: writing .xlsx needs the xlsxwriter package: pip install 'balance[sheets]'"
    )
    one_line_before_any_game(result, tmp_path, {}, line)


# ============================================================================== balance export


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "run"
    ok("simulate", BASE, "--games", 300, "--out", out)
    return out


def test_export_writes_the_datasets_rows_as_csv(run, tmp_path):
    rows = results.open_results(run)[1].collect()
    r = ok("export", run)
    path = run / "rows.csv"  # the default
    same_csv(path, rows)
    assert r.stdout == f"rows -> {path} (1,200 rows x {rows.width} columns)\n"
    out = tmp_path / "rows.csv"
    ok("export", run, "--out", out)
    assert out.read_bytes() == path.read_bytes()


def test_export_to_stdout(run):
    rows = results.open_results(run)[1].collect()
    r = ok("export", run, "--out", "-")
    assert_frame_equal(pl.read_csv(io.BytesIO(r.stdout_bytes), schema=rows.schema), rows)
    assert r.stderr == ""


def test_export_xlsx_is_one_sheet_of_the_rows(run, tmp_path):
    rows = results.open_results(run)[1].collect()
    out = tmp_path / "rows.xlsx"
    r = ok("export", run, "--out", out)  # the format from the suffix
    assert r.stdout == f"rows -> {out} (1,200 rows x {rows.width} columns)\n"
    workbook = xlsx_sheets(out)
    assert list(workbook) == ["rows"]
    same_sheet(workbook["rows"], rows)


def test_export_of_a_stopped_run_writes_its_complete_games_and_says_so(tmp_path):
    stopped = tmp_path / "stopped"
    ok("simulate", BASE, "--games", 300, "--chunk-size", 100, "--out", stopped)
    manifest = json.loads((stopped / "manifest.json").read_text())
    manifest.update(status="interrupted", games_done=100, parts=manifest["parts"][:1])
    (stopped / "manifest.json").write_text(json.dumps(results.seal(manifest)))
    rows = results.open_results(stopped)[1].collect()
    assert rows.height == 400
    r = ok("export", stopped)
    same_csv(stopped / "rows.csv", rows)
    assert r.stdout == (
        f"rows -> {stopped / 'rows.csv'} (400 rows x {rows.width} columns; the run is "
        "interrupted: 100 of 300 games)\n"
    )
    r = ok("export", stopped, "--out", "-")  # stdout holds the rows only: the note on stderr
    assert (
        r.stderr
        == f"export: 400 rows x {rows.width} columns; the run is interrupted: 100 of 300 games\n"
    )


def test_export_refuses_more_rows_than_a_sheet_holds(run, tmp_path, monkeypatch):
    monkeypatch.setattr(sheets, "XLSX_ROWS", 1000)
    out = tmp_path / "rows.xlsx"
    result = cli("export", run, "--out", out)
    line = "1,200 rows do not fit an Excel sheet (at most 1,000 rows under its header); export "
    one_line_before_any_game(result, tmp_path, {}, line + "--format csv")


@pytest.mark.parametrize(
    "case",
    [
        "missing results",
        "a directory",
        "a sweep",
        "missing directory",
        "wrong suffix",
        "out a directory",
        "xlsx to stdout",
        "format abc",
        "manifest",
    ],
)
def test_export_bad_input_is_one_line(case, run, tmp_path):
    source, extra = run, []
    if case == "missing results":
        source, line = tmp_path / "nope", f"{tmp_path / 'nope'}: no such results directory"
    elif case == "a directory":
        (tmp_path / "empty").mkdir()
        source = tmp_path / "empty"
        line = f"{source}: not a results directory (no manifest.json)"
    elif case == "a sweep":
        source = tmp_path / "sw"
        (source / "00-x").mkdir(parents=True)
        points = [{"index": 0, "name": "x", "dir": "00-x"}]
        (source / "sweep.json").write_text(json.dumps({"kind": "sweep", "points": points}))
        line = None  # a one-line error, whatever it says of this hand-made sweep
    elif case == "missing directory":
        extra, line = (
            ["--out", tmp_path / "no" / "r.csv"],
            (
                f"--out {tmp_path / 'no' / 'r.csv'}: no such directory {tmp_path / 'no'}; create it "
                "or choose another --out"
            ),
        )
    elif case == "wrong suffix":
        extra = ["--out", tmp_path / "r.txt"]
        line = f"--out {tmp_path / 'r.txt'}: the file's name must end in .csv (--format csv)"
    elif case == "out a directory":
        (tmp_path / "d.csv").mkdir()
        extra = ["--out", tmp_path / "d.csv"]
        line = (
            f"--out {tmp_path / 'd.csv'}: is a directory; name a file to write, e.g. "
            f"{tmp_path / 'd.csv' / 'rows.csv'}"
        )
    elif case == "xlsx to stdout":
        extra = ["--format", "xlsx", "--out", "-"]
        line = "--out -: an xlsx workbook cannot go to stdout; name a FILE.xlsx"
    elif case == "format abc":
        extra, line = ["--format", "abc"], "--format 'abc': expected csv or xlsx"
    else:
        extra = ["--out", run / "manifest.json"]
        line = (
            f"--out {run / 'manifest.json'}: is a file the results directory {run} keeps; name "
            "another file to write"
        )
    before, run_before = snapshot(tmp_path), snapshot(run)
    result = cli("export", source, *extra)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    if line is not None:
        assert result.stderr == f"error: {line}\n"
    assert result.stdout == ""
    assert snapshot(tmp_path) == before and snapshot(run) == run_before
