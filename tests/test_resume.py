"""`balance simulate --resume DIR`: a run stopped in any way (Ctrl-C, kill -9, a failed chunk)
goes on from its finished chunks and ends with the dataset of an uninterrupted run: the same
parts byte for byte and the same manifest but for how the run went (runner.RUN_SPECIFIC)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from balance import results, runner
from balance.cli import app
from balance.config import load_config

ROOT = Path(__file__).parent.parent
FIVE_RAVENS = ROOT / "configs" / "five_ravens" / "base.yaml"


def same_dataset(a: Path, b: Path) -> None:
    """``a`` and ``b`` hold the same dataset: every part equal byte for byte, the manifests equal
    but for the keys that say how a run went."""
    parts_a = sorted(p.name for p in (a / "games").iterdir())
    parts_b = sorted(p.name for p in (b / "games").iterdir())
    assert parts_a == parts_b
    for name in parts_a:
        assert (a / "games" / name).read_bytes() == (b / "games" / name).read_bytes(), name
    ma, mb = (json.loads((d / "manifest.json").read_text()) for d in (a, b))
    for m in (ma, mb):
        for key in runner.RUN_SPECIFIC:
            m.pop(key, None)
    assert ma == mb
    assert sorted(p.name for p in a.iterdir()) == sorted(p.name for p in b.iterdir())


def _run(config, out, **options):
    return runner.run(load_config(config), config_path=str(config), out=out, **options)


@pytest.fixture
def cli():
    runner_ = CliRunner()

    def invoke(*args: object):
        result = runner_.invoke(app, [str(a) for a in args])
        assert not result.exception or isinstance(result.exception, SystemExit), result.exception
        return result

    return invoke


# ------------------------------------------------------------------ stopped, then resumed


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(games=st.integers(1, 60), chunk=st.integers(1, 25), data=st.data())
def test_interrupted_at_any_chunk_and_resumed_equals_an_uninterrupted_run(
    fake_game, fake_config, tmp_path_factory, games, chunk, data
):
    tmp = tmp_path_factory.mktemp("resume")
    _run(fake_config, tmp / "full", games=games, chunk_size=chunk)
    chunks = -(-games // chunk)
    stop_at = data.draw(st.integers(1, chunks), label="interrupted at play() call")
    fake_game.reset()
    fake_game.interrupt_at = stop_at
    with pytest.raises(runner.Interrupted) as info:
        _run(fake_config, tmp / "part", games=games, chunk_size=chunk)
    assert info.value.games_done == (stop_at - 1) * chunk
    fake_game.reset()
    summary = runner.resume(tmp / "part")
    assert (summary.status, summary.games_kept, summary.games_done) == (
        "complete",
        (stop_at - 1) * chunk,
        games,
    )
    same_dataset(tmp / "full", tmp / "part")
    assert fake_game.calls == chunks - (stop_at - 1)  # only the missing chunks were played
    sessions = results.read_manifest(tmp / "part")["sessions"]
    assert [(s["status"], s["games_done"]) for s in sessions] == [
        ("interrupted", (stop_at - 1) * chunk)
    ]


def test_a_killed_run_with_its_leftovers_resumes_to_the_same_dataset(
    fake_game, fake_config, tmp_path
):
    """What kill -9 leaves: a manifest that says running for a dead process, a part renamed into
    place that the manifest never listed, and temporary files."""
    _run(fake_config, tmp_path / "full", games=50, chunk_size=8)
    killed = tmp_path / "killed"
    _run(fake_config, killed, games=50, chunk_size=8)
    manifest = json.loads((killed / "manifest.json").read_text())
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], text=True,
                          capture_output=True, check=True)  # fmt: skip
    manifest.update(
        status="running",
        finished=None,
        games_done=24,
        parts=manifest["parts"][:3],
        process={**manifest["process"], "pid": int(dead.stdout), "start_ticks": 1},
    )
    (killed / "manifest.json").write_text(json.dumps(results.seal(manifest)))
    for name in ("part-00004.parquet", "part-00005.parquet", "part-00006.parquet"):
        (killed / "games" / name).unlink()  # part 3 stays: renamed, never listed
    (killed / "games" / ".part-00004.parquet.tmp").write_bytes(b"PAR1 half")
    (killed / ".manifest.json.tmp").write_text("{")
    assert results.read_manifest(killed)["status"] == "killed"
    fake_game.reset()
    summary = runner.resume(killed)
    assert (summary.games_kept, summary.games_done, fake_game.calls) == (24, 50, 4)
    same_dataset(tmp_path / "full", killed)
    assert results.read_manifest(killed)["sessions"][0]["status"] == "killed"


def test_a_failed_run_resumes(fake_game, fake_config, tmp_path, monkeypatch):
    _run(fake_config, tmp_path / "full", games=40, chunk_size=6)
    play = type(fake_game).play
    calls = []

    def failing(self, tables, seed, first, n):
        calls.append(first)
        if first == 18:
            raise ValueError("the table broke")
        return play(self, tables, seed, first, n)

    monkeypatch.setattr(type(fake_game), "play", failing)
    with pytest.raises(ValueError, match="the table broke"):
        _run(fake_config, tmp_path / "failed", games=40, chunk_size=6)
    m = results.read_manifest(tmp_path / "failed")
    assert (m["status"], m["games_done"]) == ("failed", 18)
    monkeypatch.setattr(type(fake_game), "play", play)
    runner.resume(tmp_path / "failed", chunk_size=6, games=40, seed=7)
    same_dataset(tmp_path / "full", tmp_path / "failed")


def test_resuming_twice_and_a_complete_run(fake_game, fake_config, tmp_path):
    _run(fake_config, tmp_path / "full", games=30, chunk_size=4)
    out = tmp_path / "run"
    fake_game.reset()
    fake_game.interrupt_at = 2
    with pytest.raises(runner.Interrupted):
        _run(fake_config, out, games=30, chunk_size=4)
    fake_game.reset()
    fake_game.interrupt_at = 3
    with pytest.raises(runner.Interrupted) as info:
        runner.resume(out)
    assert info.value.games_done == 12
    fake_game.reset()
    runner.resume(out)
    same_dataset(tmp_path / "full", out)
    assert [s["games_done"] for s in results.read_manifest(out)["sessions"]] == [4, 12]
    before = (out / "manifest.json").read_bytes()
    fake_game.reset()
    summary = runner.resume(out)
    assert (summary.games_kept, summary.games_done, fake_game.calls) == (30, 30, 0)
    assert (out / "manifest.json").read_bytes() == before


# ------------------------------------------------------------------ the CLI


def test_cli_resume_with_and_without_the_config(cli, fake_game, fake_config, tmp_path):
    for out in ("full", "a", "b"):
        first = cli("simulate", fake_config, "--games", 50, "--chunk-size", 8, "--out",
                    tmp_path / out)  # fmt: skip
        assert first.exit_code == 0, first.output
    for out in ("a", "b"):
        m = json.loads((tmp_path / out / "manifest.json").read_text())
        m.update(status="interrupted", games_done=16, parts=m["parts"][:2])
        (tmp_path / out / "manifest.json").write_text(json.dumps(results.seal(m)))
    a = cli("simulate", "--resume", tmp_path / "a")
    assert a.exit_code == 0, a.output
    assert f"resumed {tmp_path / 'a'} at game 16: played 34 more" in a.stderr
    assert "50 games in " in a.stdout and a.stdout.rstrip().endswith(f"-> {tmp_path / 'a'}")
    b = cli("simulate", fake_config, "--resume", tmp_path / "b", "--games", 50, "--seed", 7)
    assert b.exit_code == 0, b.output
    same_dataset(tmp_path / "full", tmp_path / "a")
    same_dataset(tmp_path / "full", tmp_path / "b")
    done = cli("simulate", "--resume", tmp_path / "a")
    assert done.exit_code == 0
    assert done.stdout == f"already complete: 50 games in {tmp_path / 'a'}; nothing to play\n"


def _stopped(cli, fake_config, out):
    assert (
        cli("simulate", fake_config, "--games", 50, "--chunk-size", 8, "--out", out).exit_code == 0
    )
    m = json.loads((out / "manifest.json").read_text())
    m.update(status="interrupted", games_done=8, parts=m["parts"][:1])
    (out / "manifest.json").write_text(json.dumps(results.seal(m)))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games", 60], "--games 60: the run in {out} has --games 50; --resume continues it as it was started"),
        (["--seed", 1], "--seed 1: the run in {out} has --seed 7; --resume continues it as it was started"),
        (["--chunk-size", 9], "--chunk-size 9: the run in {out} has --chunk-size 8; --resume continues it as it was started"),
        (["--set", "rules.bonus=2", "CONFIG"], "{config}: rules.bonus: 2 here, 0 in the run in {out} (its manifest.json); --resume continues that run with its own config"),
        (["--set", "players=2"], "--set players=2: --resume without CONFIG plays the run's recorded config"),
        (["--out", "elsewhere"], "--out: --resume {out} writes into the run's directory"),
        (["--force"], "--force: --resume {out} writes into the run's directory"),
        (["--address", "x:1"], "--address x:1: is for --backend ray"),
    ],
)  # fmt: skip
def test_cli_resume_bad_input_is_one_line_and_changes_nothing(
    cli, fake_game, fake_config, tmp_path, args, message
):
    out = tmp_path / "run"
    _stopped(cli, fake_config, out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    args = [fake_config if a == "CONFIG" else a for a in args]
    result = cli("simulate", *args, "--resume", out)
    assert result.exit_code == 1
    assert result.stderr == "error: " + message.format(out=out, config=fake_config) + "\n"
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_cli_resume_refuses_what_it_cannot_continue(cli, fake_game, fake_config, tmp_path):
    assert cli("simulate").stderr == (
        "error: give a CONFIG file to play (or --resume DIR to continue a run)\n"
    )
    nothing = cli("simulate", "--resume", tmp_path / "nope")
    assert (nothing.exit_code, nothing.stderr) == (
        1,
        f"error: {tmp_path / 'nope'}: no such results directory\n",
    )
    out = tmp_path / "run"
    _stopped(cli, fake_config, out)
    m = json.loads((out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps(results.seal({**m, "status": "running", "process": {
        **m["process"], "pid": os.getpid(), "start_ticks": results.lock._start_ticks(os.getpid())}})))  # fmt: skip
    running = cli("simulate", "--resume", out)
    assert running.exit_code == 1
    assert running.stderr == f"error: {out}: running: the run is still being written there\n"
    older = {**m, "version": "0.0.1"}
    (out / "manifest.json").write_text(json.dumps(older))  # the version edited by hand
    edited = cli("simulate", "--resume", out)
    assert edited.stderr.startswith(f"error: {out / 'manifest.json'}: changed since balance wrote")
    (out / "manifest.json").write_text(json.dumps(results.seal(older)))  # and its checksum too
    edited = cli("simulate", "--resume", out)
    assert edited.stderr.startswith(f"error: {out / 'manifest.json'}: run_id: {m['run_id']} is not")
    older["run_id"] = results.run_id(older)  # as an older balance would have written it
    (out / "manifest.json").write_text(json.dumps(results.seal(older)))
    old = cli("simulate", "--resume", out)
    assert old.stderr.startswith(f"error: {out / 'manifest.json'}: written by balance 0.0.1, ")
    (out / "manifest.json").write_text(json.dumps(m))
    (out / "games" / "part-00000.parquet").write_bytes(b"not parquet")
    damaged = cli("simulate", "--resume", out)
    assert damaged.exit_code == 1
    assert "part-00000.parquet: damaged or truncated parquet file" in damaged.stderr


# ------------------------------------------------------------------ kill -9, for real


def test_five_ravens_killed_at_random_moments_and_resumed(tmp_path):
    """A real run killed with SIGKILL at a random moment after its first part, then resumed
    (three times): every time the dataset of the uninterrupted run."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    common = ["--games", "40000", "--chunk-size", "2500", "--seed", "5"]
    cmd = [sys.executable, "-m", "balance", "simulate", str(FIVE_RAVENS), *common]
    subprocess.run([*cmd, "--out", str(tmp_path / "full")], env=env, check=True,
                   capture_output=True)  # fmt: skip
    rng = random.Random(18)
    for trial in range(3):
        out = tmp_path / f"killed-{trial}"
        proc = subprocess.Popen([*cmd, "--out", str(out)], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)  # fmt: skip
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if (out / "games" / "part-00000.parquet").exists():
                break
            time.sleep(0.01)
        time.sleep(rng.uniform(0, 0.3))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        resumed = subprocess.run([sys.executable, "-m", "balance", "simulate", "--resume",
                                  str(out)], env=env, capture_output=True, text=True)  # fmt: skip
        assert resumed.returncode == 0, resumed.stderr
        same_dataset(tmp_path / "full", out)


def test_resume_refuses_a_recorded_config_edited_with_its_hash_kept(
    cli, fake_game, fake_config, tmp_path
):
    """Issue 26: a recorded config edited by hand (the manifest resealed, its config_hash kept)
    was resumed as if nothing happened, and the parts after the edit were other games."""
    out = tmp_path / "run"
    _stopped(cli, fake_config, out)
    m = json.loads((out / "manifest.json").read_text())
    m["config"]["rules"]["bonus"] = 5  # the hash still says bonus 0
    (out / "manifest.json").write_text(json.dumps(results.seal(m)))
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    result = cli("simulate", "--resume", out)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {out / 'manifest.json'}: config: edited after the run")
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_a_run_whose_hash_covered_every_policy_reads_and_resumes(
    cli, fake_game, tmp_path, monkeypatch
):
    """Runs written while the config hash covered every policy (before Raven Manor's reasoning
    players were added as default policies) stored that hash: this release reads, reports and
    resumes them to the games of an uninterrupted run, rather than calling them edited."""
    from kit import fake_game as fake

    import balance.config as config_package
    from balance.config import recorded_hashes

    config = fake.write_config(tmp_path / "fake.yaml", policies={"spare": {"kind": "plain"}})
    assert (
        cli(
            "simulate", config, "--games", 50, "--chunk-size", 8, "--out", tmp_path / "full"
        ).exit_code
        == 0
    )
    with monkeypatch.context() as m:
        m.setattr(
            config_package, "config_hash", lambda cfg: recorded_hashes(cfg.resolved_dict())[1]
        )
        _stopped(cli, config, tmp_path / "old")
    manifest = results.read_manifest(tmp_path / "old")
    now, every = recorded_hashes(manifest["config"])
    assert manifest["config_hash"] == every != now
    resumed = cli("simulate", "--resume", tmp_path / "old")
    assert resumed.exit_code == 0, resumed.stderr
    assert cli("simulate", "--resume", tmp_path / "old", config).exit_code == 0  # complete: kept
    games = [results.open_results(d)[1].collect() for d in (tmp_path / "full", tmp_path / "old")]
    assert games[0].equals(games[1])
    assert cli("report", tmp_path / "old", "--out", tmp_path / "old.html").exit_code == 0
