"""The runner: determinism across chunking and threads, output-dir safety, interrupts."""

from __future__ import annotations

import json
import os
import signal
import threading

import numba
import numpy as np
import polars as pl
import pytest

from balance import results, runner
from balance.config import load_config
from balance.games.base import Chunk
from balance.runner import run

THREADS = min(2, numba.config.NUMBA_NUM_THREADS)


def _run(config_path, out, **options):
    from balance.config import load_config

    return runner.run(load_config(config_path), config_path=config_path, out=out, **options)


def test_content_depends_only_on_config_seed_and_games(fake_config, tmp_path):
    a = _run(fake_config, tmp_path / "a", games=100, chunk_size=7, threads=1)
    b = _run(fake_config, tmp_path / "b", games=100, chunk_size=64, threads=THREADS)
    assert (a.parts, b.parts) == (15, 2)
    manifest_a, rows_a = results.open_results(a.out)
    manifest_b, rows_b = results.open_results(b.out)
    assert rows_a.collect().equals(rows_b.collect())
    assert rows_a.collect().height == 300
    assert manifest_a["config_hash"] == manifest_b["config_hash"]
    c = _run(fake_config, tmp_path / "c", games=100, seed=8)
    assert not results.open_results(c.out)[1].collect().equals(rows_a.collect())


def test_summary_and_manifest(fake_config, tmp_path):
    summary = _run(fake_config, tmp_path / "run", games=20, seed=3, chunk_size=8, threads=1)
    assert (summary.status, summary.games_done, summary.rows, summary.parts) == (
        "complete",
        20,
        60,
        3,
    )
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert (manifest["games_requested"], manifest["games_done"], manifest["seed"]) == (20, 20, 3)
    # The recorded config is what ran: overrides applied.
    assert (manifest["config"]["games"], manifest["config"]["seed"]) == (20, 3)
    assert manifest["seats"] == ["plain", "skilled", "plain"]
    assert manifest["teams"] == ["0", "1", "2"]
    assert manifest["telemetry_columns"] == [
        "drawn__ace",
        "drawn__king",
        "played__ace",
        "played__king",
    ]
    assert manifest["config_path"] == str(fake_config)
    assert set(manifest["versions"]) >= {"numba", "numpy", "polars"}
    assert manifest["threads"] == 1 and manifest["chunk_size"] == 8


def test_progress_reports_written_games(fake_config, tmp_path):
    calls = []
    _run(
        fake_config,
        tmp_path / "run",
        games=20,
        chunk_size=8,
        progress=lambda d, t: calls.append((d, t)),
    )
    assert calls == [(0, 20), (8, 20), (16, 20), (20, 20)]


def test_refuses_a_non_empty_output_dir(fake_game, fake_config, tmp_path):
    out = tmp_path / "run"
    (out / "games").mkdir(parents=True)
    (out / "manifest.json").write_text("{}")
    with pytest.raises(runner.RunnerError) as info:
        _run(fake_config, out)
    assert str(info.value) == (
        f"{out}: output directory exists and is not empty; "
        "choose another --out or pass --force to replace it"
    )
    assert fake_game.compiled == 0  # refused before any work


def test_an_empty_output_dir_is_fine(fake_config, tmp_path):
    (tmp_path / "run").mkdir()
    assert _run(fake_config, tmp_path / "run").games_done == 50


def test_force_replaces_an_earlier_run(fake_config, tmp_path):
    out = tmp_path / "run"
    _run(fake_config, out, games=30, chunk_size=7)
    assert len(list((out / "games").iterdir())) == 5
    _run(fake_config, out, games=10, chunk_size=64, force=True)
    assert results.read_manifest(out)["games_done"] == 10
    assert [p.name for p in (out / "games").iterdir()] == ["part-00000.parquet"]


def test_force_never_removes_a_directory_that_is_not_a_run(fake_config, tmp_path):
    (tmp_path / "notes.txt").write_text("precious")
    with pytest.raises(runner.RunnerError, match="not a results directory"):
        _run(fake_config, tmp_path, force=True)
    assert (tmp_path / "notes.txt").read_text() == "precious"


def test_force_keeps_the_old_run_when_the_config_fails_to_compile(fake_game, fake_config, tmp_path):
    out = tmp_path / "run"
    _run(fake_config, out, games=10)

    def broken(config):
        raise ValueError("bad tables")

    fake_game.compile = broken
    try:
        with pytest.raises(ValueError, match="bad tables"):
            _run(fake_config, out, force=True)
    finally:
        del fake_game.compile
    assert results.open_results(out)[0]["games_done"] == 10


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"games": 0}, "--games must be at least 1, got 0"),
        ({"games": -5}, "--games must be at least 1, got -5"),
        ({"seed": -1}, "--seed must be between 0 and 2\\*\\*63 - 1, got -1"),
        ({"chunk_size": 0}, "--chunk-size must be between 1 and 4,194,304 games"),
        ({"chunk_size": 2**22 + 1}, "--chunk-size must be between 1 and 4,194,304 games"),
        ({"threads": 0}, f"--threads must be between 1 and {numba.config.NUMBA_NUM_THREADS}"),
    ],
)
def test_bad_options(fake_config, tmp_path, options, message):
    with pytest.raises(runner.RunnerError, match=f"^{message}"):
        _run(fake_config, tmp_path / "run", **options)
    assert not (tmp_path / "run").exists()


def test_interrupted_run_keeps_the_written_parts(fake_game, fake_config, tmp_path):
    out = tmp_path / "run"
    fake_game.interrupt_at = 3  # KeyboardInterrupt while simulating the 3rd chunk
    with pytest.raises(runner.Interrupted) as info:
        _run(fake_config, out, games=50, chunk_size=10)
    assert (info.value.games_done, info.value.out) == (20, out)
    manifest, rows = results.open_results(out)
    assert manifest["status"] == "interrupted"
    assert manifest["games_done"] == 20
    assert [p["file"] for p in manifest["parts"]] == ["part-00000.parquet", "part-00001.parquet"]
    frame = rows.collect()
    assert frame["game"].unique().sort().to_list() == list(range(20))


# ---- Ctrl-C: a real SIGINT at the worst moments (tests/test_interrupts.py: in a subprocess) ----

needs_sigint = pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread()
    or signal.getsignal(signal.SIGINT) is not signal.default_int_handler,
    reason="SIGINT is not Python's default handler here, so the runner leaves it alone",
)


def _consistent(out):
    """The run ended in order: an end time, the parts it lists and nothing else on disk."""
    manifest, rows = results.open_results(out)
    assert manifest["finished"] is not None
    files = sorted(p.name for p in (out / results.PARTS_DIR).iterdir())
    assert files == [p["file"] for p in manifest["parts"]]
    assert not list(out.rglob("*.tmp"))
    assert rows.collect().height == manifest["games_done"] * manifest["players"]
    return manifest


@needs_sigint
def test_ctrl_c_stops_between_chunks_and_records_the_end(fake_config, tmp_path):
    def progress(done, total):
        if done == 20:
            os.kill(os.getpid(), signal.SIGINT)  # handled at once, on this (the main) thread

    with pytest.raises(runner.Interrupted) as info:
        _run(fake_config, tmp_path / "run", games=50, chunk_size=10, progress=progress)
    manifest = _consistent(tmp_path / "run")
    # The chunk played while the signal came is written too: it holds complete games.
    assert manifest["status"] == "interrupted"
    assert manifest["games_done"] == info.value.games_done == 30
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # given back


@needs_sigint
def test_ctrl_c_over_and_over_while_writing_still_ends_in_order(fake_config, tmp_path, monkeypatch):
    save = results.ResultsWriter._save

    def interrupted_save(self):  # on the writer thread for parts, the main one for the end
        os.kill(os.getpid(), signal.SIGINT)
        save(self)
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(results.ResultsWriter, "_save", interrupted_save)
    with pytest.raises(runner.Interrupted):
        _run(fake_config, tmp_path / "run", games=50, chunk_size=10)
    monkeypatch.setattr(results.ResultsWriter, "_save", save)  # (undo() would drop the game)
    manifest = _consistent(tmp_path / "run")
    assert manifest["status"] == "interrupted"
    assert 0 < manifest["games_done"] < 50


@needs_sigint
def test_ctrl_c_as_the_run_starts_still_ends_it_in_order(fake_config, tmp_path, monkeypatch):
    clear = runner.write._clear_out

    def interrupted_clear(out):
        os.kill(os.getpid(), signal.SIGINT)  # after the handler went in: deferred
        clear(out)

    monkeypatch.setattr(runner.write, "_clear_out", interrupted_clear)
    with pytest.raises(runner.Interrupted) as info:
        _run(fake_config, tmp_path / "run", games=50, chunk_size=10)
    assert info.value.games_done == 10  # the first chunk was already playing
    assert _consistent(tmp_path / "run")["status"] == "interrupted"


def test_ctrl_c_while_the_kernels_load_leaves_an_old_run_alone(fake_game, fake_config, tmp_path):
    out = tmp_path / "run"
    _run(fake_config, out, games=20)
    before = (out / results.MANIFEST).read_text()
    play = type(fake_game).play

    def interrupted_load(tables, seed, first_game, n_games):
        if n_games == 0:  # the runner's warm-up, before it touches --out
            raise KeyboardInterrupt
        return play(fake_game, tables, seed, first_game, n_games)

    fake_game.play = interrupted_load
    try:
        with pytest.raises(KeyboardInterrupt) as info:
            _run(fake_config, out, games=20, force=True)
    finally:
        del fake_game.play
    assert not isinstance(info.value, runner.Interrupted)
    assert (out / results.MANIFEST).read_text() == before


def test_a_run_off_the_main_thread_leaves_signals_alone(fake_config, tmp_path):
    summaries = []
    worker = threading.Thread(target=lambda: summaries.append(_run(fake_config, tmp_path / "r")))
    worker.start()
    worker.join()
    assert summaries[0].status == "complete"


def test_a_plugin_error_marks_the_run_failed(fake_game, fake_config, tmp_path):
    play = type(fake_game).play

    def failing(tables, seed, first_game, n_games):
        if n_games == 0:  # the warm-up succeeds; the first real chunk fails
            return play(fake_game, tables, seed, first_game, n_games)
        raise RuntimeError("kernel bug")

    fake_game.play = failing
    try:
        with pytest.raises(RuntimeError, match="kernel bug"):
            _run(fake_config, tmp_path / "run")
    finally:
        del fake_game.play
    assert results.read_manifest(tmp_path / "run")["status"] == "failed"


def test_a_plugin_that_reuses_its_output_arrays_is_caught(fake_game, fake_config, tmp_path):
    play = type(fake_game).play
    kept: list[Chunk] = []

    def reusing(tables, seed, first_game, n_games):
        chunk = play(fake_game, tables, seed, first_game, n_games)
        if n_games == 0:  # the runner's warm-up
            return chunk
        if kept:  # write into the first chunk's arrays, like a kernel with persistent buffers
            old = kept[0]
            old.score[...] = chunk.score
            chunk.score = old.score
        kept.append(chunk)
        return chunk

    fake_game.play = reusing
    try:
        with pytest.raises(RuntimeError, match="reused the previous chunk's output arrays"):
            _run(fake_config, tmp_path / "run", games=20, chunk_size=10)
    finally:
        del fake_game.play


def test_narrate(fake_config):
    from balance.config import load_config

    lines = runner.narrate(load_config(fake_config), game=3)
    assert lines[0] == "game 3 of seed 7"
    assert runner.narrate(load_config(fake_config), game=3, seed=7) == lines
    with pytest.raises(runner.RunnerError, match="--game must be >= 0, got -1"):
        runner.narrate(load_config(fake_config), game=-1)


def test_seat_scores_match_the_plugin(fake_game, fake_config, tmp_path):
    from balance.config import load_config

    config = load_config(fake_config)
    _run(fake_config, tmp_path / "run", games=12, chunk_size=5)
    frame = results.open_results(tmp_path / "run")[1].collect()
    chunk = fake_game.play(fake_game.compile(config), 7, 0, 12)
    assert frame["score"].to_list() == chunk.score.ravel().tolist()
    assert (
        frame.filter(pl.col("rank") == 1).group_by("game").agg(pl.col("win").sum())["win"].to_list()
        == [1.0] * 12
    )


def test_clipped_telemetry_is_counted_in_the_manifest(fake_roles_game, tmp_path, monkeypatch):
    # The game says, per chunk, how many telemetry cells it clipped at 255; the manifest sums them
    # per column and names the column, instead of the dataset clipping silently.
    from kit.fake_game import roles as script

    play = fake_roles_game.play

    def clipping_play(tables, seed, first_game, n_games):
        chunk = play(tables, seed, first_game, n_games)
        chunk.saturated = np.array([n_games // 10], dtype=np.int64)
        return chunk

    monkeypatch.setattr(fake_roles_game, "play", clipping_play)
    cfg = load_config(script.write_config(tmp_path / "a.yaml", games=250))
    run(cfg, config_path="a.yaml", out=tmp_path / "r", chunk_size=100)
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["telemetry_saturated"] == {"possessed__seat": 10 + 10 + 5}
