"""`--backend ray` on a real local Ray cluster: the same datasets, byte for byte, as local runs.

One cluster per test session and xdist worker (``ray start --head --block`` on loopback with 2
CPUs, its own temporary folder and its own free ports, so that two workers never share a port).
Every test here is in one xdist group (``--dist loadgroup`` in pyproject's addopts), so that
``pytest -n 2`` runs them on one worker against one cluster: two clusters and their drivers on
a two-core machine starved each other (a driver crashed one run in three). The cluster is
stopped at the end whatever happens: the ``--block`` process stops every Ray process it started
when it gets SIGTERM, and its process group is killed after it. Without Ray installed these
tests skip with the reason, unless CI is set: then they fail.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from test_resume import same_dataset

from balance import games, results, runner
from balance.config import load_config

ROOT = Path(__file__).parent.parent
TESTS = Path(__file__).parent
pytestmark = pytest.mark.xdist_group("ray")
CONFIGS = {
    "five_ravens": ROOT / "configs" / "five_ravens" / "base.yaml",
    "raven_order": ROOT / "configs" / "raven_order" / "base.yaml",
}
HAVE_RAY = importlib.util.find_spec("ray") is not None


def _free_ports(n: int) -> list[int]:
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _reachable(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        return True
    return False


@pytest.fixture(scope="session")
def ray_cluster():
    """The address of a 2-CPU Ray cluster on loopback, started for this session (and this
    xdist worker) and stopped at its end."""
    if not HAVE_RAY and not os.environ.get("CI"):
        pytest.skip(
            "ray is not installed (pip install -e '.[test]' installs it); with CI set, fails"
        )
    assert HAVE_RAY, "CI is set but ray is not installed: .ci/run installs the test extra"
    ray_bin = Path(sys.executable).with_name("ray")
    ray_cmd = [str(ray_bin)] if ray_bin.exists() else [sys.executable, "-m", "ray.scripts.scripts"]
    # Ray's sockets live in the temporary folder: a short path (a unix socket path is short).
    temp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    gcs, node, objects, agent, agent_grpc, metrics, env_agent = _free_ports(7)
    cmd = [
        *ray_cmd, "start", "--head", "--block", "--num-cpus", "2",
        "--node-ip-address", "127.0.0.1", "--port", str(gcs),
        "--node-manager-port", str(node), "--object-manager-port", str(objects),
        "--dashboard-agent-listen-port", str(agent),
        "--dashboard-agent-grpc-port", str(agent_grpc), "--metrics-export-port", str(metrics),
        "--runtime-env-agent-port", str(env_agent),
        # every driver (each balance command a test runs) and worker holds one of these ports,
        # and Ray frees a port some time after its process ends: room for the whole session
        "--worker-port-list", ",".join(str(p) for p in _free_ports(64)),
        "--include-dashboard", "false", "--disable-usage-stats",
        "--object-store-memory", str(300 * 2**20), "--temp-dir", temp,
    ]  # fmt: skip
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    log = open(Path(temp) / "ray-start.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not _reachable(gcs):
            if proc.poll() is not None or time.monotonic() > deadline:
                log.flush()
                pytest.fail("ray start failed:\n" + (Path(temp) / "ray-start.log").read_text())
            time.sleep(0.2)
        yield f"127.0.0.1:{gcs}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)  # --block stops the processes it started
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # and whatever is left of the group
        proc.wait()
        log.close()
        shutil.rmtree(temp, ignore_errors=True)


def balance_cli(*args: object, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "balance", *(str(a) for a in args)],
        capture_output=True,
        text=True,
        env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"},
    )
    if check:
        assert result.returncode == 0, result.stderr
    return result


# ------------------------------------------------------------------ simulate


@pytest.mark.parametrize("game", ["five_ravens", "raven_order"])
def test_simulate_on_ray_writes_the_local_dataset(ray_cluster, tmp_path, game):
    common = [CONFIGS[game], "--games", 24_000, "--chunk-size", 3000, "--seed", 11]
    balance_cli("simulate", *common, "--out", tmp_path / "local")
    on_ray = balance_cli("simulate", *common, "--out", tmp_path / "ray", "--backend", "ray",
                         "--address", ray_cluster)  # fmt: skip
    same_dataset(tmp_path / "local", tmp_path / "ray")
    backend = results.read_manifest(tmp_path / "ray")["backend"]
    assert (backend["name"], backend["cpus"], backend["tasks"]) == ("ray", 2, 8)
    assert sum(w["chunks"] for w in backend["workers"]) == 8
    assert all(w["load_s"] is not None for w in backend["workers"])  # each loaded its kernels
    assert f"ray: 8 tasks on {len(backend['workers'])} worker" in on_ray.stderr
    assert "24,000 games in" in on_ray.stdout


@pytest.fixture
def flaky(ray_cluster, monkeypatch, tmp_path):
    """Register tests/flaky_game.py in place of a game, here and on the Ray workers: every
    chunk's first ``tries`` tries fail."""

    def setup(game: str, tries: int = 1) -> runner.Backend:
        from balance import ray_backend

        marks = tmp_path / f"flaky-{tries}"
        marks.mkdir()
        env = {"FLAKY_GAME": game, "FLAKY_DIR": str(marks), "FLAKY_TRIES": str(tries)}
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        monkeypatch.setitem(games._GAMES, game, "flaky_game")
        pythonpath = os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
        return ray_backend.RayBackend(
            ray_cluster,
            runtime_env={"env_vars": {**env, "PYTHONPATH": pythonpath}},
        )

    return setup


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_tasks_that_fail_once_are_retried_and_change_nothing(tmp_path, flaky):
    cfg = load_config(CONFIGS["raven_order"])
    runner.run(cfg, config_path="x.yaml", out=tmp_path / "local", games=9000, chunk_size=1500)
    backend = flaky("raven_order")
    try:
        with runner.using_backend(backend):
            summary = runner.run(
                load_config(CONFIGS["raven_order"]),
                config_path="x.yaml",
                out=tmp_path / "ray",
                games=9000,
                chunk_size=1500,
            )
    finally:
        backend.close()
    assert summary.games_done == 9000
    assert len(list((tmp_path / "flaky-1").iterdir())) == 6  # every chunk failed once
    assert backend.describe()["retried"] == 6
    same_dataset(tmp_path / "local", tmp_path / "ray")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_a_chunk_that_keeps_failing_is_one_line_and_the_run_resumes(tmp_path, flaky, monkeypatch):
    cfg = load_config(CONFIGS["five_ravens"])
    runner.run(cfg, config_path="x.yaml", out=tmp_path / "local", games=6000, chunk_size=1000)
    backend = flaky("five_ravens", tries=3)  # one more than Ray retries: the chunk fails
    try:
        with runner.using_backend(backend), pytest.raises(Exception) as info:
            runner.run(cfg, config_path="x.yaml", out=tmp_path / "ray", games=6000,
                       chunk_size=1000)  # fmt: skip
        assert str(info.value) == (
            "games 0 to 999 failed on Ray after 3 tries: FlakyChunk: games from 0: first try fails"
        )
        m = results.read_manifest(tmp_path / "ray")
        assert (m["status"], m["games_done"]) == ("failed", 0)
    finally:
        backend.close()
    monkeypatch.setenv("FLAKY_TRIES", "0")  # the game is well again: the run resumes, here
    runner.resume(tmp_path / "ray")
    same_dataset(tmp_path / "local", tmp_path / "ray")


def test_a_run_stopped_locally_resumes_on_ray(ray_cluster, tmp_path):
    common = [CONFIGS["five_ravens"], "--games", 12_000, "--chunk-size", 2000]
    balance_cli("simulate", *common, "--out", tmp_path / "full")
    balance_cli("simulate", *common, "--out", tmp_path / "run")
    m = json.loads((tmp_path / "run" / "manifest.json").read_text())
    m.update(status="interrupted", games_done=4000, parts=m["parts"][:2])
    (tmp_path / "run" / "manifest.json").write_text(json.dumps(m))
    for name in ("part-00002.parquet", "part-00003.parquet"):
        (tmp_path / "run" / "games" / name).unlink()
    resumed = balance_cli("simulate", "--resume", tmp_path / "run", "--backend", "ray",
                          "--address", ray_cluster)  # fmt: skip
    assert "at game 4,000: played 8,000 more" in resumed.stderr
    same_dataset(tmp_path / "full", tmp_path / "run")


# ------------------------------------------------------------------ the other commands


def test_sweep_on_ray_equals_the_local_sweep(ray_cluster, tmp_path):
    common = [CONFIGS["five_ravens"], "--over", "players=2,3", "--games", 6000,
              "--chunk-size", 1500]  # fmt: skip
    balance_cli("sweep", *common, "--out", tmp_path / "local")
    balance_cli("sweep", *common, "--out", tmp_path / "ray", "--backend", "ray",
                "--address", ray_cluster)  # fmt: skip
    for point in ("0-players=2", "1-players=3"):
        name = next(p.name for p in (tmp_path / "local").iterdir() if p.name.endswith(point[2:]))
        same_dataset(tmp_path / "local" / name, tmp_path / "ray" / name)
    a, b = (json.loads((tmp_path / d / "sweep.json").read_text()) for d in ("local", "ray"))
    assert a["definition"] == b["definition"]
    assert [p["config_hash"] for p in a["points"]] == [p["config_hash"] for p in b["points"]]
    assert {p["status"] for p in b["points"]} == {"complete"}


def _without_timings(text: str) -> str:
    import re

    return re.sub(r" in \d+(\.\d+)? s", " in T s", text)


def test_compare_and_impact_on_ray_print_what_they_print_locally(ray_cluster):
    a, b = CONFIGS["five_ravens"], ROOT / "configs" / "five_ravens" / "no_seven.yaml"
    ray_opts = ["--backend", "ray", "--address", ray_cluster]
    for args in (["compare", a, b, "--games", 4000], ["impact", a, "--games", 1500]):
        local = balance_cli(*args)
        on_ray = balance_cli(*args, *ray_opts)
        assert _without_timings(on_ray.stdout) == _without_timings(local.stdout)


def test_tune_on_ray_finds_what_it_finds_locally(ray_cluster, tmp_path):
    # tune plays many small batches (each value, each round): on Ray each is a chunk task, and
    # the games, the decisions and the tuned config are the same
    args = ["tune", CONFIGS["five_ravens"], "--param", "rules.relics.chest_5.value=0..20",
            "--target", "mean_score=8", "--games", 6000]  # fmt: skip
    local = balance_cli(*args, "--out", tmp_path / "local.yaml")
    on_ray = balance_cli(*args, "--out", tmp_path / "ray.yaml", "--backend", "ray",
                         "--address", ray_cluster)  # fmt: skip
    assert _without_timings(on_ray.stdout).replace("ray.yaml", "X") == _without_timings(
        local.stdout
    ).replace("local.yaml", "X")
    body = [(tmp_path / f).read_text().split("extends:", 1)[1] for f in ("local.yaml", "ray.yaml")]
    assert body[0] == body[1]


def test_ray_bad_input_is_one_line(ray_cluster):
    bad = balance_cli("simulate", CONFIGS["five_ravens"], "--games", 100, "--backend", "ray",
                      "--address", ray_cluster, "--threads", 1, check=False)  # fmt: skip
    assert (bad.returncode, bad.stderr.splitlines()[-1:]) == (
        1,
        ["error: --threads 1: is for --backend local; on Ray each chunk is a one-CPU task "
         "(size the cluster instead)"],
    )  # fmt: skip
    nobody = balance_cli("simulate", CONFIGS["five_ravens"], "--games", 100, "--backend", "ray",
                         "--address", f"127.0.0.1:{_free_ports(1)[0]}", check=False)  # fmt: skip
    assert nobody.returncode == 1
    assert (
        nobody.stderr.startswith("error: --address 127.0.0.1:") and nobody.stderr.count("\n") == 1
    )
    other = balance_cli("simulate", CONFIGS["five_ravens"], "--backend", "spark", check=False)
    assert other.stderr == "error: --backend spark: expected local or ray\n"


def test_without_ray_the_backend_says_how_to_install(monkeypatch, tmp_path):
    from typer.testing import CliRunner

    from balance.cli import app

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    result = CliRunner().invoke(app, ["simulate", str(CONFIGS["five_ravens"]), "--games", "10",
                                      "--out", str(tmp_path / "x"), "--backend", "ray"])  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr == (
        "error: --backend ray needs Ray, which is not installed: pip install 'balance[ray]'\n"
    )
    assert not (tmp_path / "x").exists()
