"""`--backend ray` on real local Ray clusters: the same datasets, byte for byte, as local runs.

Every cluster here is started as docs/ray.md types it, ``ray start --head --num-cpus 2`` (plus
``ray start --address HEAD`` for a second node), with Ray's defaults: nothing about
authentication is passed. What the tests set is where Ray looks on this machine, so that
neither the user's files nor ours are shared: each cluster has its own free ports, its own
``RAY_TMPDIR`` (Ray's temporary folder, where ``ray start --head`` records its address for
``--address auto``) and its own ``HOME`` (where Ray keeps ``~/.ray/auth_token``), and the
commands a test runs get the same. The user's ``RAY_ADDRESS`` and ``RAY_AUTH_*`` variables are
dropped. So a token left in the real ``~/.ray`` by an earlier ``ray.init()`` or a cluster the
user runs cannot change what these tests see.

The session's cluster is started in a HOME with a token in ``~/.ray/auth_token``, as on a
machine where Ray once started a local instance: Ray 2.60 then turns token authentication on,
and a driver given the cluster's address has to send the token (it did not, and this suite did
not see it because its cluster was started differently: issue 26). One test starts a cluster in
a HOME without a token (authentication off), one a cluster of two nodes whose second node is
killed in the middle of a run, one a Ray instance for the command.

The clusters are stopped at the end whatever happens: the ``--block`` process of ``ray start``
stops every Ray process it started when it gets SIGTERM, and its process group is killed after
it. Every test here is in one xdist group (``--dist loadgroup`` in pyproject's addopts), so that
``pytest -n 2`` runs them on one worker: two clusters and their drivers on a two-core machine
starved each other. Without Ray installed these tests skip with the reason, unless CI is set:
then they fail.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import site
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_resume import same_dataset

from balance import _kernels, games, results, runner
from balance.config import load_config

ROOT = Path(__file__).parent.parent
TESTS = Path(__file__).parent
pytestmark = pytest.mark.xdist_group("ray")
CONFIGS = {
    "five_ravens": ROOT / "configs" / "five_ravens" / "base.yaml",
    "raven_order": ROOT / "configs" / "raven_order" / "base.yaml",
}
HAVE_RAY = importlib.util.find_spec("ray") is not None
# What a user's environment may say to Ray about which cluster and which token: never ours.
RAY_VARS = ("RAY_ADDRESS", "RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_TMPDIR")


_GIVEN: set[int] = set()  # every port handed out in this session: Ray binds some only later


def _free_ports(n: int) -> list[int]:
    """``n`` free loopback ports, none handed out before in this session (a node's worker ports
    are bound only when its workers start, so a later probe could return one of them: once, the
    second node's node-manager port was the first's worker port and `ray start` refused)."""
    socks = []
    ports: list[int] = []
    try:
        while len(ports) < n:
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
            port = s.getsockname()[1]
            if port not in _GIVEN:
                ports.append(port)
                _GIVEN.add(port)
        return ports
    finally:
        for s in socks:
            s.close()


def _reachable(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        return True
    return False


def _needs_ray() -> None:
    if not HAVE_RAY and not os.environ.get("CI"):
        pytest.skip(
            "ray is not installed (pip install -e '.[test]' installs it); with CI set, fails"
        )
    assert HAVE_RAY, "CI is set but ray is not installed: .ci/run installs the test extra"


def _home(folder: Path, *, token: bool) -> Path:
    """A HOME for Ray, with a token in ``.ray/auth_token`` or without one."""
    home = folder / "home"
    (home / ".ray").mkdir(parents=True)
    if token:
        (home / ".ray" / "auth_token").write_text(uuid.uuid4().hex)
    return home


def _env(home: Path, ray_tmp: Path, **extra: str | None) -> dict[str, str]:
    """The environment of a cluster and of the commands run against it: this process's (its
    PYTHONPATH, its numba cache, its user site, which a new HOME would move) without the user's
    Ray variables, with Ray's HOME and temporary folder ours; ``extra`` on top (None unsets)."""
    env = {k: v for k, v in os.environ.items() if k not in RAY_VARS}
    env.update(
        HOME=str(home),
        RAY_TMPDIR=str(ray_tmp),
        RAY_USAGE_STATS_ENABLED="0",
        NUMBA_CACHE_DIR=str(_kernels.cache_dir().resolve()),
        PYTHONUSERBASE=site.getuserbase(),
    )
    for key, value in extra.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


@dataclass
class Cluster:
    address: str  # as docs/ray.md types it: 127.0.0.1:PORT
    env: dict[str, str]  # of its nodes and of the commands run against it
    folder: Path
    nodes: list[subprocess.Popen[bytes]]

    def start_node(self, *, cpus: int, head: bool, **env: str | None) -> subprocess.Popen[bytes]:
        """``ray start --head --num-cpus N`` (or ``ray start --address HEAD``) with its own
        ports, blocking in its own process group; returns once the node is up."""
        ray_bin = Path(sys.executable).with_name("ray")
        ray = [str(ray_bin)] if ray_bin.exists() else [sys.executable, "-m", "ray.scripts.scripts"]
        ports = _free_ports(6 + 48)  # one call: distinct from each other and from every earlier
        node, objects, agent, agent_grpc, metrics, env_agent = ports[:6]
        cmd = [*ray, "start", "--block", "--num-cpus", str(cpus),
               "--node-ip-address", "127.0.0.1",
               "--node-manager-port", str(node), "--object-manager-port", str(objects),
               "--dashboard-agent-listen-port", str(agent),
               "--dashboard-agent-grpc-port", str(agent_grpc),
               "--metrics-export-port", str(metrics), "--runtime-env-agent-port", str(env_agent),
               # every driver (each balance command a test runs) and worker holds one of these
               # ports, and Ray frees a port some time after its process ends: room for a session
               "--worker-port-list", ",".join(str(p) for p in ports[6:]),
               "--disable-usage-stats", "--object-store-memory", str(300 * 2**20)]  # fmt: skip
        if head:
            cmd += ["--head", "--port", self.address.rpartition(":")[2],
                    "--include-dashboard", "false"]  # fmt: skip
        else:
            cmd += ["--address", self.address]
        log_path = self.folder / f"ray-start-{len(self.nodes)}.log"
        with open(log_path, "w") as log:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                    env={**self.env, **env}, start_new_session=True)  # fmt: skip
        self.nodes.append(proc)
        record = Path(self.env["RAY_TMPDIR"]) / "ray" / "ray_current_cluster"
        deadline = time.monotonic() + 120
        while not (
            (_reachable(int(self.address.rpartition(":")[2])) and record.exists())
            if head
            else "Ray runtime started" in log_path.read_text()
        ):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"ray start failed:\n{log_path.read_text()}")
            time.sleep(0.2)
        return proc

    def stop(self) -> None:
        for proc in reversed(self.nodes):
            _stop_node(proc)
        self.nodes.clear()

    def balance(self, *args: object, check: bool = True, **env: str | None):
        return balance_cli(*args, check=check, env=_env(
            Path(self.env["HOME"]), Path(self.env["RAY_TMPDIR"]), **env))  # fmt: skip


def _stop_node(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)  # --block stops the processes it started
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # and whatever is left of the group
    proc.wait()


@contextlib.contextmanager
def cluster(*, token: bool, cpus: int = 2) -> Iterator[Cluster]:
    """A one-node cluster of ``cpus`` CPUs in a HOME with or without a token, stopped after."""
    _needs_ray()
    # Ray's sockets live in its temporary folder: a short path (a unix socket path is short).
    folder = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))
    (folder / "tmp").mkdir()
    env = _env(_home(folder, token=token), folder / "tmp")
    c = Cluster(f"127.0.0.1:{_free_ports(1)[0]}", env, folder, [])
    try:
        c.start_node(cpus=cpus, head=True)
        yield c
    finally:
        c.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def ray_cluster():
    """The session's 2-CPU cluster, started in a HOME with a token (so it asks for one)."""
    with cluster(token=True) as c:
        yield c


@pytest.fixture
def in_cluster_env(ray_cluster, monkeypatch):
    """This process sees Ray as the session cluster's commands do (for tests that join it
    from here)."""
    for key in RAY_VARS:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", ray_cluster.env["HOME"])
    monkeypatch.setenv("RAY_TMPDIR", ray_cluster.env["RAY_TMPDIR"])
    return ray_cluster


def _balance(*args: object) -> list[str]:
    """``balance ARGS`` as a user types it: the console script (``python -m balance`` if this
    Python has none on its path)."""
    script = Path(sys.executable).with_name("balance")
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "balance"]
    return [*cmd, *(str(a) for a in args)]


def balance_cli(
    *args: object, check: bool = True, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        _balance(*args),
        capture_output=True,
        text=True,
        env=env or {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"},
    )
    if check:
        assert result.returncode == 0, result.stderr
    return result


# ------------------------------------------------------------------ simulate


@pytest.mark.slow
@pytest.mark.parametrize(("game", "how"), [("five_ravens", "HOST:PORT"), ("raven_order", "auto")])
def test_simulate_on_ray_writes_the_local_dataset(ray_cluster, tmp_path, game, how):
    # docs/ray.md's example on a cluster that asks for a token (the session's HOME has one):
    # the address as printed by `ray start`, or `auto`, and the token found as Ray finds it.
    common = [CONFIGS[game], "--games", 24_000, "--chunk-size", 3000, "--seed", 11]
    balance_cli("simulate", *common, "--out", tmp_path / "local")
    address = ray_cluster.address if how == "HOST:PORT" else "auto"
    on_ray = ray_cluster.balance("simulate", *common, "--out", tmp_path / "ray",
                                 "--backend", "ray", "--address", address)  # fmt: skip
    same_dataset(tmp_path / "local", tmp_path / "ray")
    backend = results.read_manifest(tmp_path / "ray")["backend"]
    assert (backend["name"], backend["cpus"], backend["tasks"]) == ("ray", 2, 8)
    assert sum(w["chunks"] for w in backend["workers"]) == 8
    assert all(w["load_s"] is not None for w in backend["workers"])  # each loaded its kernels
    assert f"ray: 8 tasks on {len(backend['workers'])} worker" in on_ray.stderr
    assert on_ray.stderr.count("\n") == 1  # the ray: line, and nothing of Ray's
    if how == "HOST:PORT":
        assert f"2 CPUs at {ray_cluster.address};" in on_ray.stderr  # the address as typed
    assert "24,000 games in" in on_ray.stdout


@pytest.mark.slow
def test_search_seats_play_the_same_games_on_ray(ray_cluster, tmp_path):
    # a search seat (issue 29) plays inside the workers' batch kernels with its own keyed
    # stream: the same dataset, byte for byte, as a local run
    config = ROOT / "configs" / "raven_order" / "search_vs_economy.yaml"
    common = [config, "--set", "policies.mcts.iterations=3", "--games", 400,
              "--chunk-size", 50, "--seed", 13]  # fmt: skip
    balance_cli("simulate", *common, "--out", tmp_path / "local")
    on_ray = ray_cluster.balance("simulate", *common, "--out", tmp_path / "ray",
                                 "--backend", "ray", "--address", "auto")  # fmt: skip
    same_dataset(tmp_path / "local", tmp_path / "ray")
    assert results.read_manifest(tmp_path / "ray")["backend"]["tasks"] == 8
    assert "400 games in" in on_ray.stdout


@pytest.mark.slow
def test_a_cluster_without_a_token_is_joined_without_one(tmp_path):
    # `ray start --head` in a HOME without a token: authentication off. Its address and
    # `auto` work from a HOME without a token and from one with a token (not needed, not sent).
    common = [CONFIGS["five_ravens"], "--games", 6000, "--chunk-size", 1500]
    balance_cli("simulate", *common, "--out", tmp_path / "local")
    with cluster(token=False) as open_cluster:
        open_cluster.balance("simulate", *common, "--out", tmp_path / "address",
                             "--backend", "ray", "--address", open_cluster.address)  # fmt: skip
        other_home = _home(tmp_path, token=True)
        open_cluster.balance("simulate", *common, "--out", tmp_path / "auto", "--backend", "ray",
                             "--address", "auto", HOME=str(other_home))  # fmt: skip
    for run in ("address", "auto"):
        same_dataset(tmp_path / "local", tmp_path / run)


@pytest.mark.slow
def test_without_a_cluster_ray_starts_an_instance_for_the_command(tmp_path):
    folder = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))
    try:
        (folder / "tmp").mkdir()
        env = _env(_home(folder, token=False), folder / "tmp")
        common = [CONFIGS["five_ravens"], "--games", 4000, "--chunk-size", 2000]
        balance_cli("simulate", *common, "--out", tmp_path / "local")
        on_ray = balance_cli("simulate", *common, "--out", tmp_path / "ray", "--backend", "ray",
                             env=env)  # fmt: skip
        assert "ray: 2 tasks" in on_ray.stderr
        same_dataset(tmp_path / "local", tmp_path / "ray")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _group(pgid: int) -> list[tuple[int, str]]:
    """The processes of process group ``pgid``: pid and command line."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if os.getpgid(int(entry.name)) == pgid:
                    cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                    found.append((int(entry.name), cmd))
    return found


def _children(pid: int) -> list[tuple[int, str]]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                status = (entry / "status").read_text()
                ppid = next(line.split()[1] for line in status.splitlines()
                            if line.startswith("PPid:"))  # fmt: skip
                if int(ppid) == pid:
                    cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                    found.append((int(entry.name), cmd))
    return found


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self").exists(), reason="finds the node's processes in /proc")
def test_a_node_killed_in_the_middle_of_a_run_changes_nothing(tmp_path):
    # A head and a second node of one CPU each on this machine, the cluster asking for a token
    # (a second node joins such a cluster with RAY_AUTH_MODE=token, as Ray documents). The
    # second node is killed (SIGKILL to its raylet and every process of its group) while it
    # plays a chunk: Ray retries that chunk on the head, and the parts are a local run's.
    common = [CONFIGS["five_ravens"], "--games", 120_000, "--chunk-size", 4000]
    balance_cli("simulate", *common, "--out", tmp_path / "local")
    with cluster(token=True, cpus=1) as two:
        second = two.start_node(cpus=1, head=False, RAY_AUTH_MODE="token")
        out = tmp_path / "ray"
        run = subprocess.Popen(
            _balance("simulate", *common, "--out", out, "--backend", "ray", "--address",
                     two.address),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=two.env,
        )  # fmt: skip
        try:
            raylet = next(pid for pid, cmd in _group(second.pid) if "raylet/raylet" in cmd)

            def written() -> int:
                return len(list((out / "games").glob("part-*.parquet")))

            def playing() -> bool:  # a worker of the second node runs a chunk's task now
                return any(cmd.startswith("ray::play_task") for _, cmd in _children(raylet))

            deadline = time.monotonic() + 120
            while not (written() >= 5 and playing()):  # under way, and the node is busy
                assert run.poll() is None, "the run ended before the second node was killed"
                assert time.monotonic() < deadline, "the second node never played a chunk"
                time.sleep(0.02)
            parts = written()
            victims = [pid for pid, _ in _children(raylet)]
            os.killpg(second.pid, signal.SIGKILL)
            for pid in victims:  # its workers, in their own groups
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            stdout, stderr = run.communicate(timeout=300)
        finally:
            if run.poll() is None:
                run.kill()
                run.wait()
    assert run.returncode == 0, stderr
    assert 5 <= parts < 30  # killed in the middle: 30 chunks in all
    same_dataset(tmp_path / "local", out)
    backend = results.read_manifest(out)["backend"]
    assert backend["nodes"] == 2
    assert backend["retried"] >= 1  # the chunk the second node was playing, played again
    assert "120,000 games in" in stdout


@pytest.fixture
def flaky(in_cluster_env, monkeypatch, tmp_path):
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
            in_cluster_env.address,
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
    assert "RAY_AUTH_MODE" not in os.environ  # this process's token mode ends with the backend
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


@pytest.mark.slow
def test_a_run_stopped_locally_resumes_on_the_cluster_started_here(ray_cluster, tmp_path):
    # No --address: the cluster `ray start --head` started on this machine
    common = [CONFIGS["five_ravens"], "--games", 12_000, "--chunk-size", 2000]
    balance_cli("simulate", *common, "--out", tmp_path / "full")
    balance_cli("simulate", *common, "--out", tmp_path / "run")
    m = json.loads((tmp_path / "run" / "manifest.json").read_text())
    m.update(status="interrupted", games_done=4000, parts=m["parts"][:2])
    (tmp_path / "run" / "manifest.json").write_text(json.dumps(results.seal(m)))
    for name in ("part-00002.parquet", "part-00003.parquet"):
        (tmp_path / "run" / "games" / name).unlink()
    resumed = ray_cluster.balance("simulate", "--resume", tmp_path / "run", "--backend", "ray")
    assert "at game 4,000: played 8,000 more" in resumed.stderr
    same_dataset(tmp_path / "full", tmp_path / "run")
    assert results.read_manifest(tmp_path / "run")["backend"]["nodes"] == 1


# ------------------------------------------------------------------ the other commands


@pytest.mark.slow
def test_sweep_on_ray_equals_the_local_sweep(ray_cluster, tmp_path):
    # The cluster named by RAY_ADDRESS
    common = [CONFIGS["five_ravens"], "--over", "players=2,3", "--games", 6000,
              "--chunk-size", 1500]  # fmt: skip
    balance_cli("sweep", *common, "--out", tmp_path / "local")
    ray_cluster.balance("sweep", *common, "--out", tmp_path / "ray", "--backend", "ray",
                        RAY_ADDRESS=ray_cluster.address)  # fmt: skip
    for point in ("0-players=2", "1-players=3"):
        name = next(p.name for p in (tmp_path / "local").iterdir() if p.name.endswith(point[2:]))
        same_dataset(tmp_path / "local" / name, tmp_path / "ray" / name)
    a, b = (json.loads((tmp_path / d / "sweep.json").read_text()) for d in ("local", "ray"))
    assert a["definition"] == b["definition"]
    assert [p["config_hash"] for p in a["points"]] == [p["config_hash"] for p in b["points"]]
    assert {p["status"] for p in b["points"]} == {"complete"}


@pytest.mark.slow
def test_a_ladder_on_ray_prints_and_writes_what_it_does_locally(ray_cluster, tmp_path):
    """A small ladder (issue 30): every point's dataset and the depth and findings tables."""
    common = ["ladder", CONFIGS["five_ravens"], "--rungs", "random,greedy,search_2",
              "--games", 600, "--chunk-size", 300]  # fmt: skip
    local = balance_cli(*common, "--out", tmp_path / "local")
    on_ray = ray_cluster.balance(*common, "--out", tmp_path / "ray", "--backend", "ray",
                                 "--address", ray_cluster.address)  # fmt: skip
    for point in sorted(p.name for p in (tmp_path / "local").iterdir() if p.is_dir()):
        same_dataset(tmp_path / "local" / point, tmp_path / "ray" / point)

    def tables(out: str) -> str:  # from the depth table on: no timings, no paths
        return out[out.index("skill depth") :]

    assert tables(on_ray.stdout) == tables(local.stdout)


def _without_timings(text: str) -> str:
    import re

    return re.sub(r" in \d+(\.\d+)? s", " in T s", text)


@pytest.mark.slow
def test_compare_and_impact_on_ray_print_what_they_print_locally(ray_cluster):
    a, b = CONFIGS["five_ravens"], ROOT / "configs" / "five_ravens" / "no_seven.yaml"
    ray_opts = ["--backend", "ray", "--address", ray_cluster.address]
    for args in (["compare", a, b, "--games", 4000], ["impact", a, "--games", 1500]):
        local = balance_cli(*args)
        on_ray = ray_cluster.balance(*args, *ray_opts)
        assert _without_timings(on_ray.stdout) == _without_timings(local.stdout)


@pytest.mark.slow
def test_tune_on_ray_finds_what_it_finds_locally(ray_cluster, tmp_path):
    # tune plays many small batches (each value, each round): on Ray each is a chunk task, and
    # the games, the decisions and the tuned config are the same
    args = ["tune", CONFIGS["five_ravens"], "--param", "rules.relics.chest_5.value=0..20",
            "--target", "mean_score=8", "--games", 6000]  # fmt: skip
    local = balance_cli(*args, "--out", tmp_path / "local.yaml")
    on_ray = ray_cluster.balance(*args, "--out", tmp_path / "ray.yaml", "--backend", "ray",
                                 "--address", ray_cluster.address)  # fmt: skip
    assert _without_timings(on_ray.stdout).replace("ray.yaml", "X") == _without_timings(
        local.stdout
    ).replace("local.yaml", "X")
    body = [(tmp_path / f).read_text().split("extends:", 1)[1] for f in ("local.yaml", "ray.yaml")]
    assert body[0] == body[1]


# ------------------------------------------------------------------ errors


def _one_line_and_nothing_written(result, out: Path) -> str:
    assert result.returncode == 1, result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
    assert not out.exists()
    return result.stderr.removesuffix("\n")


def test_ray_bad_input_is_one_line(ray_cluster, tmp_path):
    five = CONFIGS["five_ravens"]
    bad = ray_cluster.balance("simulate", five, "--games", 100, "--backend", "ray",
                              "--address", ray_cluster.address, "--threads", 1, check=False)  # fmt: skip
    assert (bad.returncode, bad.stderr.splitlines()[-1:]) == (
        1,
        ["error: --threads 1: is for --backend local; on Ray each chunk is a one-CPU task "
         "(size the cluster instead)"],
    )  # fmt: skip
    out = tmp_path / "out"
    nobody = f"127.0.0.1:{_free_ports(1)[0]}"
    line = _one_line_and_nothing_written(ray_cluster.balance(
        "simulate", five, "--games", 100, "--out", out, "--backend", "ray", "--address", nobody,
        check=False), out)  # fmt: skip
    assert line == (
        f"error: --address {nobody}: no Ray cluster answers there; start one with "
        "`ray start --head` or give its address"
    )
    other = balance_cli("simulate", five, "--backend", "spark", check=False)
    assert other.stderr == "error: --backend spark: expected local or ray\n"


def test_a_cluster_that_asks_for_a_token_names_what_is_missing(ray_cluster, tmp_path):
    # The session's cluster asks for a token (which is what the tests that join it show to work):
    # without one, with a wrong one, or with token mode turned off, a command says which in one
    # line, at once, and writes nothing; likewise `auto` where no cluster was started.
    five, out = CONFIGS["five_ravens"], tmp_path / "out"
    address = ray_cluster.address
    fix = (
        "give this machine the cluster's token (`ray get-auth-token` on its head node prints "
        "it) in ~/.ray/auth_token, RAY_AUTH_TOKEN or a file named by RAY_AUTH_TOKEN_PATH"
    )
    simulate = ["simulate", five, "--games", 100, "--out", out, "--backend", "ray"]
    cases = [
        ({"HOME": str(_home(tmp_path, token=False))}, ["--address", address],
         f"error: --address {address}: the cluster asks for a token (Ray's token "
         f"authentication) and this machine has none; {fix}"),
        ({"RAY_AUTH_TOKEN": "not-the-token"}, ["--address", address],
         f"error: --address {address}: the cluster refuses the token in RAY_AUTH_TOKEN; {fix}"),
        ({"RAY_AUTH_MODE": "disabled"}, [],
         f"error: the cluster `ray start --head` started on this machine ({{here}}): the "
         "cluster asks for a token (Ray's token authentication) and RAY_AUTH_MODE=disabled "
         f"here sends none; unset it and {fix}"),
        ({"RAY_AUTH_TOKEN_PATH": str(tmp_path / "none")}, ["--address", "auto"],
         f"error: RAY_AUTH_TOKEN_PATH={tmp_path / 'none'}: no token there (No such file or "
         "directory)"),
        ({"RAY_TMPDIR": str(tmp_path)}, ["--address", "auto"],
         "error: --address auto: no Ray cluster on this machine (RAY_ADDRESS is unset and "
         f"`ray start --head` has not recorded one in {tmp_path}/ray/ray_current_cluster); "
         "start one with `ray start --head` or give its address"),
    ]  # fmt: skip
    here = (Path(ray_cluster.env["RAY_TMPDIR"]) / "ray" / "ray_current_cluster").read_text()
    for env, options, expected in cases:
        result = ray_cluster.balance(*simulate, *options, check=False, **env)
        assert _one_line_and_nothing_written(result, out) == expected.format(here=here.strip())


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
