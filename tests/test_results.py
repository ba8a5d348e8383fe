"""The results dataset: row layout, dtypes, shared wins, atomic parts, manifest, readers."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from balance import parquet, results
from balance.games.base import Chunk

SEATS = ["greedy", "random", "greedy"]
TEAMS = ["a", "b", "a"]
TELEMETRY = ["drawn__ace", "played__ace"]
END_REASONS = ("clocks", "deck_out")
ROOT = Path(__file__).resolve().parent.parent


def _meta(**keys: object) -> dict[str, object]:
    """The provenance the runner gives a ResultsWriter (a real config, this file's seats)."""
    import balance
    from balance.config import config_hash, load_config

    cfg = load_config(ROOT / "configs" / "five_ravens" / "base.yaml")
    return {
        "version": balance.__version__,
        "game": cfg.game,
        "config": cfg.resolved_dict(),
        "config_hash": config_hash(cfg),
        "seed": 1,
        "games_requested": 4,
        "chunk_size": 2,
        "players": len(SEATS),
        "seats": SEATS,
        "teams": TEAMS,
        "end_reasons": list(END_REASONS),
        "telemetry_columns": TELEMETRY,
        **keys,
    }


def _chunk(first_game: int = 10) -> Chunk:
    """Two games of three seats: game 10 won by seat 1 alone, game 11 shared by seats 0 and 2."""
    return Chunk(
        first_game=first_game,
        score=np.array([[3, 9, 1], [7, 2, 7]], dtype=np.int32),
        rank=np.array([[2, 1, 3], [1, 3, 1]], dtype=np.int32),
        turns=np.array([20, 31], dtype=np.int32),
        end_reason=np.array([0, 1], dtype=np.int32),
        order=np.array([[0, 1, 2], [2, 0, 1]], dtype=np.int32),
        telemetry=np.arange(12, dtype=np.uint8).reshape(2, 3, 2),
        extra={"gold": np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32)},
    )


def _frame(chunk: Chunk | None = None) -> pl.DataFrame:
    return results.chunk_frame(
        chunk or _chunk(),
        seats=SEATS,
        teams=TEAMS,
        end_reasons=END_REASONS,
        telemetry_columns=TELEMETRY,
    )


def test_rows_are_game_major_then_seat():
    frame = _frame()
    assert frame["game"].to_list() == [10, 10, 10, 11, 11, 11]
    assert frame["seat"].to_list() == [0, 1, 2, 0, 1, 2]
    assert frame["policy"].to_list() == SEATS * 2
    assert frame["team"].to_list() == TEAMS * 2
    assert frame["score"].to_list() == [3, 9, 1, 7, 2, 7]
    assert frame["turns"].to_list() == [20, 20, 20, 31, 31, 31]
    assert frame["end_reason"].to_list() == ["clocks"] * 3 + ["deck_out"] * 3
    assert frame["order"].to_list() == [0, 1, 2, 2, 0, 1]
    assert frame["gold"].to_list() == [1, 2, 3, 4, 5, 6]
    assert frame["drawn__ace"].to_list() == [0, 2, 4, 6, 8, 10]
    assert frame["played__ace"].to_list() == [1, 3, 5, 7, 9, 11]


def test_a_team_that_wins_with_several_seats_wins_fully():
    # Game 11: seats 0 and 2 tie for first, and both are team "a": one team won, so each of its
    # seats gets a full win (DESIGN.md: a Family victory is a full win for every Family seat).
    frame = _frame()
    assert frame["win"].to_list() == [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    assert frame["shared"].to_list() == [False] * 6


def test_a_k_way_shared_win_between_teams_counts_one_over_k():
    # One seat per team: today's rule, 1/k for each of k tied seats.
    frame = results.chunk_frame(
        _chunk(),
        seats=SEATS,
        teams=["x", "y", "z"],
        end_reasons=END_REASONS,
        telemetry_columns=TELEMETRY,
    )
    assert frame["win"].to_list() == [0.0, 1.0, 0.0, 0.5, 0.0, 0.5]
    assert frame["shared"].to_list() == [False, False, False, True, False, True]
    assert frame.group_by("game").agg(pl.col("win").sum())["win"].to_list() == [1.0, 1.0]


def _dealt(chunk: Chunk) -> pl.DataFrame:
    """The rows of a chunk of a game that deals teams and roles."""
    return results.chunk_frame(
        chunk,
        seats=SEATS,
        teams=TEAMS,
        end_reasons=END_REASONS,
        telemetry_columns=TELEMETRY,
        team_names=("family", "raven"),
        role_names=("doc", "raven", "mayor"),
    )


def test_teams_and_roles_from_the_game_replace_the_configs():
    # The game says: in game 10 seats 0, 1 end on team "raven" ... codes index team_names.
    chunk = _chunk()
    chunk.team = np.array([[0, 0, 1], [1, 0, 1]], dtype=np.int32)
    chunk.role = np.array([[2, 0, 1], [1, 2, 0]], dtype=np.int32)
    frame = _dealt(chunk)
    assert frame.columns[:5] == ["game", "seat", "policy", "team", "role"]
    assert frame["team"].to_list() == ["family", "family", "raven", "raven", "family", "raven"]
    assert frame["role"].to_list() == ["mayor", "doc", "raven", "raven", "mayor", "doc"]
    # game 10: seat 1 (family) alone; game 11: seats 0 and 2, both raven: a full win each
    assert frame["win"].to_list() == [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    # a tie between the two teams: half a win to every winning seat of either team
    chunk.rank = np.array([[1, 1, 1], [1, 3, 1]], dtype=np.int32)
    frame = _dealt(chunk)
    assert frame["win"].to_list() == [0.5, 0.5, 0.5, 1.0, 0.0, 1.0]
    assert frame["shared"].to_list() == [True, True, True, False, False, False]


def test_team_or_role_codes_the_game_does_not_name_are_refused():
    chunk = _chunk()
    chunk.team = np.array([[0, 0, 2], [1, 0, 1]], dtype=np.int32)
    with pytest.raises(ValueError, match=r"Chunk\.team has codes outside 0\.\.1"):
        results.chunk_frame(
            chunk,
            seats=SEATS,
            teams=TEAMS,
            end_reasons=END_REASONS,
            telemetry_columns=TELEMETRY,
            team_names=("family", "raven"),
        )
    with pytest.raises(ValueError, match=r"names roles but Chunk\.role is None"):
        results.chunk_frame(
            _chunk(),
            seats=SEATS,
            teams=TEAMS,
            end_reasons=END_REASONS,
            telemetry_columns=TELEMETRY,
            role_names=("doc",),
        )


def test_column_order_and_dtypes():
    assert _frame().schema == pl.Schema(
        {**results.BASE_SCHEMA, "gold": pl.Int32, "drawn__ace": pl.UInt8, "played__ace": pl.UInt8}
    )
    assert list(results.BASE_SCHEMA)[:4] == ["game", "seat", "policy", "team"]


def test_a_chunk_with_a_wrong_shape_is_refused():
    chunk = _chunk()
    chunk.telemetry = chunk.telemetry[:, :, :1]
    with pytest.raises(ValueError, match=r"Chunk.telemetry has shape \(2, 3, 1\), expected"):
        _frame(chunk)


def test_parts_and_manifest_round_trip(tmp_path):
    out = tmp_path / "run"
    writer = results.ResultsWriter(out, _meta())
    assert json.loads((out / "manifest.json").read_text())["status"] == "running"
    writer.write_part(_frame(_chunk(0)), first_game=0, n_games=2)
    writer.write_part(_frame(_chunk(2)), first_game=2, n_games=2)
    writer.finish("complete")

    manifest, rows = results.open_results(out)
    assert manifest["status"] == "complete"
    assert manifest["games_done"] == 4
    assert [{k: v for k, v in p.items() if k != "sha256"} for p in manifest["parts"]] == [
        {"file": "part-00000.parquet", "first_game": 0, "games": 2},
        {"file": "part-00001.parquet", "first_game": 2, "games": 2},
    ]
    for part in manifest["parts"]:  # the SHA-256 of the bytes written, recorded as written
        data = (out / "games" / part["file"]).read_bytes()
        assert part["sha256"] == hashlib.sha256(data).hexdigest()
        footer = parquet.read_footer(out / "games" / part["file"])
        assert footer.metadata["balance.run_id"] == manifest["run_id"]
    assert manifest["extra_columns"] == ["gold"]
    assert manifest["started"] <= manifest["finished"]
    frame = rows.collect()
    assert frame["game"].to_list() == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert frame.schema == _frame().schema
    # No temporary files are left behind.
    assert sorted(p.name for p in out.rglob("*")) == [
        "games",
        "manifest.json",
        "part-00000.parquet",
        "part-00001.parquet",
    ]


def test_parts_must_be_written_in_game_order(tmp_path):
    writer = results.ResultsWriter(tmp_path / "run", _meta())
    with pytest.raises(ValueError, match="part starts at game 2, expected 0"):
        writer.write_part(_frame(_chunk(2)), first_game=2, n_games=2)


def test_a_failed_write_leaves_no_part(tmp_path, monkeypatch):
    out = tmp_path / "run"
    writer = results.ResultsWriter(out, _meta())

    def crash(path, columns, **kwargs):
        path.write_bytes(b"half a parquet file")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(results.writer.parquet, "write_table", crash)
    with pytest.raises(OSError):
        writer.write_part(_frame(_chunk(0)), first_game=0, n_games=2)
    assert list((out / "games").iterdir()) == []  # neither the part nor its temporary file
    manifest, rows = results.open_results(out)
    assert manifest["games_done"] == 0
    assert rows.collect().height == 0


def test_an_empty_dataset_has_the_known_schema(tmp_path):
    results.ResultsWriter(tmp_path / "run", _meta())
    _, rows = results.open_results(tmp_path / "run")
    assert rows.collect_schema().names() == [*results.BASE_SCHEMA, *TELEMETRY]


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda d: None, "{d}: no such results directory"),
        (lambda d: d.mkdir(), "{d}: not a results directory (no manifest.json)"),
        (
            lambda d: (d.mkdir(), (d / "manifest.json").write_text("{oops")),
            "{d}/manifest.json: invalid JSON: Expecting property name enclosed in double quotes"
            " at line 1",
        ),
        (
            lambda d: (d.mkdir(), (d / "manifest.json").write_text("[]")),
            "{d}/manifest.json: not a balance manifest (no list of parts)",
        ),
    ],
    ids=["missing", "no-manifest", "bad-json", "not-a-manifest"],
)
def test_open_results_names_what_is_wrong(tmp_path, setup, message):
    path = tmp_path / "run"
    setup(path)
    with pytest.raises(results.ResultsError) as info:
        results.open_results(path)
    assert str(info.value) == message.format(d=path)


def test_a_missing_part_is_named(tmp_path):
    out = tmp_path / "run"
    writer = results.ResultsWriter(out, _meta())
    writer.write_part(_frame(_chunk(0)), first_game=0, n_games=2)
    (out / "games" / "part-00000.parquet").unlink()
    with pytest.raises(results.ResultsError) as info:
        results.open_results(out)
    assert str(info.value) == f"{out}/games/part-00000.parquet: listed in manifest.json but missing"


def test_a_failed_manifest_save_leaves_the_old_manifest_and_no_temporary_file(
    tmp_path, monkeypatch
):
    out = tmp_path / "run"
    writer = results.ResultsWriter(out, _meta())
    real_fsync = os.fsync

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(results.writer.os, "fsync", full)
    with pytest.raises(OSError):
        writer.finish("complete")
    monkeypatch.setattr(results.writer.os, "fsync", real_fsync)
    assert results.read_manifest(out)["status"] == "running"  # the old manifest, whole
    assert sorted(p.name for p in out.iterdir()) == ["games", "manifest.json"]


# ---- who wrote a run, and is it still running? -------------------------------------------------


def _running(tmp_path, **process):
    """A results directory whose manifest says ``running``, written by ``process``."""
    out = tmp_path / "run"
    writer = results.ResultsWriter(out, _meta())
    writer.manifest["process"] = {**writer.manifest["process"], **process}
    writer._save()
    return out


def test_the_manifest_names_the_writing_process(tmp_path):
    results.ResultsWriter(tmp_path / "run", _meta())
    process = json.loads((tmp_path / "run" / "manifest.json").read_text())["process"]
    assert process["pid"] == os.getpid()
    assert process["host"] == socket.gethostname()
    assert process["started"] <= results.layout._now()
    if sys.platform.startswith("linux"):
        assert process["start_ticks"] > 0 and process["boot_id"]


def test_a_run_whose_process_lives_is_running(tmp_path):
    manifest = results.read_manifest(_running(tmp_path))
    assert (manifest["status"], results.status_text(manifest)) == ("running", "running")
    assert "recorded_status" not in manifest


def _gone_pid() -> int:
    """The pid of a process that has ended (and was reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_run_whose_process_is_gone_is_killed(tmp_path):
    pid = _gone_pid()
    out = _running(tmp_path, pid=pid, started="2026-12-01T10:00:00+00:00")
    manifest, rows = results.open_results(out)
    host = socket.gethostname()
    assert manifest["status"] == "killed"
    assert manifest["recorded_status"] == "running"
    assert manifest["status_detail"] == (
        f"the writing process (pid {pid} on host {host}, started 2026-12-01T10:00:00+00:00) is gone"
    )
    assert results.status_text(manifest) == "did not finish: " + manifest["status_detail"]
    assert results.status_phrase(manifest) == (
        "did not finish",
        f", its process (pid {pid} on host {host}, started 2026-12-01T10:00:00+00:00) is gone",
    )
    assert rows.collect().height == 0
    # The file itself is left as it is: reading never writes.
    assert json.loads((out / "manifest.json").read_text())["status"] == "running"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="start ticks come from /proc")
def test_a_pid_taken_by_a_later_process_is_not_the_writer(tmp_path):
    ticks = results.process_identity()["start_ticks"]
    manifest = results.read_manifest(_running(tmp_path, start_ticks=ticks - 1))
    assert manifest["status"] == "killed"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="boot id comes from /proc")
def test_a_run_from_before_a_reboot_is_killed(tmp_path):
    manifest = results.read_manifest(_running(tmp_path, boot_id="an-earlier-boot"))
    assert manifest["status"] == "killed"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="zombies are seen in /proc")
def test_a_killed_process_not_yet_reaped_is_gone(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        identity = {"pid": proc.pid, "start_ticks": results.lock._start_ticks(proc.pid)}
        out = _running(tmp_path, **identity)
        assert results.read_manifest(out)["status"] == "running"
        proc.kill()
        for _ in range(500):  # dead, not reaped: a zombie
            if (results.lock._proc_stat(proc.pid) or ["Z"])[0] == "Z":
                break
            time.sleep(0.01)
        assert results.read_manifest(out)["status"] == "killed"
    finally:
        proc.kill()
        proc.wait()


def test_a_run_on_another_host_stays_running(tmp_path):
    manifest = results.read_manifest(_running(tmp_path, host="elsewhere", pid=_gone_pid()))
    assert manifest["status"] == "running"
    assert results.status_text(manifest) == "running (on host elsewhere)"
    assert results.status_phrase(manifest) == ("is running", " (on host elsewhere)")


def test_an_older_manifest_without_its_process_stays_running(tmp_path):
    out = _running(tmp_path)
    data = json.loads((out / "manifest.json").read_text())
    del data["process"]
    (out / "manifest.json").write_text(json.dumps(results.seal(data)))
    assert results.status_text(results.read_manifest(out)) == "running"


@pytest.mark.parametrize("status", ["complete", "interrupted", "failed"])
def test_a_finished_run_is_what_it_says_whoever_wrote_it(tmp_path, status):
    out = tmp_path / "run"
    writer = results.ResultsWriter(out, _meta())
    writer.manifest["process"]["pid"] = _gone_pid()
    for first in (0, 2):  # every game of the run: a complete run holds them all
        writer.write_part(_frame(_chunk(first)), first_game=first, n_games=2)
    writer.finish(status)
    manifest = results.read_manifest(out)
    assert (manifest["status"], results.status_text(manifest)) == (status, status)
    assert results.status_phrase(manifest) == (f"is {status}", "")


# ---- the parquet writer (balance/parquet.py): the same dataset in every reader ----------------


def _play_chunk(first_game: int, n: int, seed: int = 7) -> Chunk:
    """n games of three seats with random outcomes, telemetry up to the uint8 limit."""
    rng = np.random.default_rng(seed)
    rank = rng.integers(1, 4, size=(n, 3)).astype(np.int32)
    telemetry = rng.integers(0, 9, size=(n, 3, 2)).astype(np.uint8)
    telemetry[0, 0, 1] = 255
    return Chunk(
        first_game=first_game,
        score=rng.integers(-5, 200_000, size=(n, 3)).astype(np.int32),  # a range > 2**16: PLAIN
        rank=rank,
        turns=rng.integers(5, 300, size=n).astype(np.int32),
        end_reason=rng.integers(0, 2, size=n).astype(np.int32),
        order=np.argsort(rng.random((n, 3)), axis=1).astype(np.int32),
        telemetry=telemetry,
        extra={"gold": np.full((n, 3), 4, dtype=np.int32)},  # one value: a 1-entry dictionary
        team=rng.integers(0, 2, size=(n, 3)).astype(np.int32),
        role=rng.integers(0, 3, size=(n, 3)).astype(np.int32),
    )


def _write_both(tmp_path, chunk: Chunk):
    """The part our writer writes for ``chunk``, and polars' own parquet file of the same rows."""
    kw = {
        "seats": SEATS,
        "teams": TEAMS,
        "end_reasons": END_REASONS,
        "telemetry_columns": TELEMETRY,
        "team_names": ("family", "ravén"),
        "role_names": ("doc", "raven", "mayor"),
    }
    part = tmp_path / "part.parquet"
    parquet.write_table(part, results.chunk_columns(chunk, **kw), created_by="balance test")
    reference = tmp_path / "polars.parquet"
    results.chunk_frame(chunk, **kw).write_parquet(reference)
    return part, reference


@pytest.mark.parametrize("n", [1, 7, 2049, 5003])  # around a group of 8 and a 2,048-row block
def test_parts_read_back_as_polars_own_files_in_polars(tmp_path, n):
    part, reference = _write_both(tmp_path, _play_chunk(1000, n))
    ours, theirs = pl.read_parquet(part), pl.read_parquet(reference)
    assert ours.schema == theirs.schema
    assert ours.equals(theirs)
    # statistics are right: a filter that prunes by them keeps exactly the rows it should
    for expr in (pl.col("game") == 1000 + n // 2, pl.col("score") < 0, pl.col("played__ace") > 7):
        assert pl.scan_parquet(part).filter(expr).collect().equals(theirs.filter(expr))


def test_parts_read_back_the_same_in_pandas_and_duckdb(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    pd = pytest.importorskip("pandas")
    part, reference = _write_both(tmp_path, _play_chunk(0, 3001))
    ours, theirs = pd.read_parquet(part), pd.read_parquet(reference)
    assert ours.dtypes.to_dict() == theirs.dtypes.to_dict()
    pd.testing.assert_frame_equal(ours, theirs)
    assert ours["team"].tolist()[:6] == theirs["team"].tolist()[:6]

    a, b = f"'{part}'", f"'{reference}'"
    assert duckdb.sql(f"select * from {a}").types == duckdb.sql(f"select * from {b}").types
    for x, y in ((a, b), (b, a)):
        assert duckdb.sql(f"select count(*) from (from {x} except all from {y})").fetchall() == [
            (0,)
        ]
    query = "select team, count(*), sum(win) from {} where played__ace >= 3 group by 1 order by 1"
    assert duckdb.sql(query.format(a)).fetchall() == duckdb.sql(query.format(b)).fetchall()


def test_a_dataframe_part_is_written_by_the_same_writer(tmp_path):
    writer = results.ResultsWriter(tmp_path / "run", _meta())
    part = writer.write_part(_frame(_chunk(0)), first_game=0, n_games=2)
    assert pl.read_parquet(part).equals(_frame(_chunk(0)))
    assert writer.manifest["extra_columns"] == ["gold"]


@pytest.mark.parametrize("rows", [1, 7, 9, 2049, 2055])
def test_bit_packing_writes_every_byte_of_the_last_group(rows):
    """A part once failed to read ("Dictionary Index is out-of-bounds") when the padding of its
    last group of 8 keys was whatever the output buffer held: readers decode whole groups. The
    packer must write every byte, whatever the buffer held before."""
    from balance import parquet

    rng = np.random.default_rng(rows)
    a = rng.integers(3, 3 + 200, size=(rows, 2)).astype(np.int64)  # keys 0..199: 8 bits
    a[:, 1] = 5 + a[:, 1] % 5  # keys 0..4: 3 bits
    lo = a.min(axis=0)
    width = np.array([8, 3], dtype=np.int64)
    groups = (rows + 7) // 8
    offset = np.array([0, groups * 8], dtype=np.int64)
    expected = None
    for fill in (0x00, 0xFF):
        out = np.full(groups * 8 + groups * 3, fill, dtype=np.uint8)
        parquet._pack(a, lo, width, offset, out)
        if expected is None:
            expected = out.copy()
        np.testing.assert_array_equal(out, expected)  # nothing of the buffer shows through
    # and the keys read back, with zeros after the last row
    keys = np.unpackbits(expected[: groups * 8], bitorder="little").reshape(-1, 8)
    values = (keys * (1 << np.arange(8))).sum(axis=1)
    np.testing.assert_array_equal(values[:rows], a[:, 0] - lo[0])
    assert not values[rows:].any()


_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.float64]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.integers(1, 3000),
    dtype=st.sampled_from(_DTYPES),
    spread=st.sampled_from([0, 1, 7, 255, 256, 65_535, 65_536, 2**40]),
    seed=st.integers(0, 2**32 - 1),
    names=st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=4, unique=True),
)
def test_the_writer_agrees_with_polars_on_any_column(tmp_path, rows, dtype, spread, seed, names):
    """Any column the writer takes (every supported dtype, ranges that fit a dictionary of 1 to
    16 bits or go PLAIN, negative values, any row count around groups of 8 and blocks of 2,048,
    string codes) reads back in polars exactly as polars' own file of the same values."""
    from balance import parquet

    rng = np.random.default_rng(seed)
    if dtype is np.bool_:
        values = rng.random(rows) < 0.5
    elif dtype is np.float64:
        values = rng.normal(0, spread + 1, rows)
    else:
        info = np.iinfo(dtype)
        lo = max(int(info.min), -(spread // 2))
        hi = min(int(info.max), lo + spread)
        values = rng.integers(lo, hi + 1, rows, dtype=np.int64).astype(dtype)
    codes = rng.integers(0, len(names), rows)
    block = rng.integers(0, 256, (rows, 2)).astype(np.uint8)
    ours = tmp_path / f"ours-{seed}.parquet"
    parquet.write_table(
        ours,
        {
            "x": values,
            "s": parquet.Codes(codes, names),
            "t": parquet.Block(block, ["t0", "t1"]),
        },
    )
    expected = pl.DataFrame(
        {
            "x": values,
            "s": [names[c] for c in codes],
            "t0": block[:, 0],
            "t1": block[:, 1],
        }
    )
    got = pl.read_parquet(ours)
    assert got.equals(expected)
    # statistics: a filter pruned by them keeps exactly what it should
    pivot = values[rows // 2]
    assert (
        pl.scan_parquet(ours)
        .filter(pl.col("x") == pivot)
        .collect()
        .equals(expected.filter(pl.col("x") == pivot))
    )


# ---- one writer per directory (issue 26) --------------------------------------------------------


def _holder(out):
    """A process holding ``out``'s writer lock until its stdin closes; returns (process, pid)."""
    code = (
        "import sys; from balance import results\n"
        f"with results.one_writer({str(out)!r}):\n"
        "    print('held', flush=True); sys.stdin.read()\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline() == "held\n"
    return proc


def test_a_second_writer_fails_at_once_naming_the_first(tmp_path):
    out = tmp_path / "run"
    proc = _holder(out)
    try:
        with pytest.raises(results.Busy) as info, results.one_writer(out):
            pass
        message = str(info.value)
        assert message.startswith(f"{out}: another balance process is writing this run (pid ")
        assert f"pid {proc.pid} on host {socket.gethostname()}, started " in message
        assert "\n" not in message
    finally:
        proc.stdin.close()
        proc.wait()
        proc.stdout.close()
    with results.one_writer(out):  # the holder is gone: the lock is free
        assert (out / results.LOCK).is_file()
    assert not (out / results.LOCK).exists()  # removed at the end


def test_a_lock_left_by_a_killed_process_never_blocks(tmp_path):
    out = tmp_path / "run"
    proc = _holder(out)
    proc.kill()
    proc.wait()
    proc.stdin.close()
    proc.stdout.close()
    assert (out / results.LOCK).is_file()  # SIGKILL left the file, not the lock
    with results.one_writer(out):
        pass


def test_a_directory_made_for_a_run_that_wrote_nothing_is_removed_again(tmp_path):
    out = tmp_path / "new" / "run"
    with pytest.raises(RuntimeError), results.one_writer(out):
        raise RuntimeError("the config did not compile")
    assert not out.exists()
