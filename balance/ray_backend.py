"""Ray as a backend: every chunk of games becomes a Ray task, and the results come back in order.

The driver (the process that runs ``balance``) validates the config and compiles its tables
exactly as a local run does, but loads no kernel. Each chunk ``[start, start + n)`` is one task
(:func:`play_task`): on its worker it looks the game's plugin up by module name, compiles the
config's tables (once per worker), loads the compiled kernels once per worker process (from
numba's cache on that node, or compiling them there under a file lock, so that the workers of a
node compile once; the time comes back with the worker's first chunk) and returns the chunk's
outcome arrays. Game ``i`` depends only on ``(seed, i)`` and the tables, so a task gives the same
arrays on any worker; the driver yields the chunks in game order (a window of tasks ahead, so at
most ``window`` chunks are alive), and the runner writes the same parquet parts and manifest as a
local run, whatever order the tasks finish in.

A task that fails (its worker crashed, its node died, the plugin raised) is retried
``RETRIES`` times by Ray; a chunk that still fails is a :class:`RayChunkError`, one line naming
its games and the cause. The runner then records the run as ``failed`` with every chunk before
it written, and ``balance simulate --resume DIR`` goes on from there.

Joining: the cluster is the one ``--address`` names (``HOST:PORT``; ``auto`` is RAY_ADDRESS,
else the cluster ``ray start --head`` recorded on this machine), by default the same, else a Ray
instance started for the command. Before ``ray.init`` the driver asks the cluster's GCS for its
id: no answer, a cluster that asks for a token when this machine has none, and a refused token
are each one line that says so and how to fix it; a cluster that asks for a token gets the one
Ray finds here (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH, ``~/.ray/auth_token``), a cluster that does
not gets none (:func:`_reach`).

Every worker must run the same balance, numba and numpy as the driver (the same kernels): a task
checks, and a mismatch is an error that names the versions.

Nothing here prints; ``ray`` is imported only when a command asks for ``--backend ray``.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import pickle
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from balance.errors import BalanceError
from balance.games.base import Chunk

RETRIES = 2  # a chunk's task is tried up to 1 + RETRIES times before the run fails
INSTALL = "pip install 'balance[ray]'"


class RayError(BalanceError):
    """Ray is missing, or its cluster cannot be reached; one line naming the fix."""


class RayChunkError(BalanceError):
    """A chunk's task failed on every try; the message names the games and the cause."""


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayError(f"--backend ray needs Ray, which is not installed: {INSTALL}") from None
    return ray


# ============================================================================ worker side

_WORKER_LOADED: set[str] = set()  # plugin modules whose kernels this worker process has loaded


def _versions() -> dict[str, str]:
    import numba
    import numpy as np

    import balance

    return {"balance": balance.__version__, "numba": numba.__version__, "numpy": np.__version__}


def _load_on_worker(module: str, plugin: Any, tables: Any, seed: int) -> float | None:
    """Load (or compile) a plugin's kernels in this worker; the seconds it took the first time
    in this process, None after. Workers of one node share numba's cache folder: a file lock per
    game there makes one of them compile while the others wait and then load."""
    if module in _WORKER_LOADED:
        return None
    from balance import _kernels

    t0 = time.perf_counter()
    folder = _kernels.cache_dir()
    try:
        import fcntl

        folder.mkdir(parents=True, exist_ok=True)
        lock: Any = open(folder / f"compiling-{module}.lock", "w")  # noqa: SIM115
    except (ImportError, OSError):  # no flock, or a read-only cache: every worker loads alone
        fcntl, lock = None, None
    try:
        if lock is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        plugin.play(tables, seed, 0, 0)
    finally:
        if lock is not None:
            fcntl.flock(lock, fcntl.LOCK_UN)
            lock.close()
    _WORKER_LOADED.add(module)
    return time.perf_counter() - t0


_WORKER_TABLES: dict[bytes, list[tuple[str, Any, Any]]] = {}  # shipped -> (module, plugin, tables)


def _worker_tables(shipped: bytes) -> list[tuple[str, Any, Any]]:
    """The runs of ``shipped`` (pickled ``(plugin module, RunConfig)`` pairs) with their tables
    compiled here, once per worker and run."""
    if shipped not in _WORKER_TABLES:
        runs = []
        for module, config in pickle.loads(shipped):
            plugin = importlib.import_module(module).PLUGIN
            runs.append((module, plugin, plugin.compile(config)))
        _WORKER_TABLES.clear()  # one command's runs at a time: memory stays flat
        _WORKER_TABLES[shipped] = runs
    return _WORKER_TABLES[shipped]


def play_task(
    shipped: bytes,
    seed: int,
    start: int,
    n: int,
    driver_versions: dict[str, str],
) -> tuple[list[Chunk], dict[str, Any]]:
    """The body of a chunk's task: games ``[start, start + n)`` of every run in ``shipped``,
    and who played them (node, pid, the kernels' first load time on this worker).

    The configs travel, not the driver's tables: a game's tables may hold views that pickling
    does not keep (Five Ravens' record and its one-element array), while compiling a config is a
    pure function of it and takes milliseconds."""
    import numba

    mine = _versions()
    if mine != driver_versions:
        differ = ", ".join(
            f"{k} {mine.get(k)} here, {v} on the driver"
            for k, v in driver_versions.items()
            if mine.get(k) != v
        )
        raise RuntimeError(f"this worker runs other versions than the driver: {differ}")
    numba.set_num_threads(1)  # a task holds one CPU of the cluster
    chunks, loads = [], {}
    for module, plugin, tables in _worker_tables(shipped):
        load_s = _load_on_worker(module, plugin, tables, seed)
        if load_s is not None:
            loads[module] = load_s
        chunks.append(plugin.play(tables, seed, start, n))
    worker = {"node": _node(), "pid": os.getpid(), "loads": loads}
    return chunks, worker


def _node() -> str:
    import ray

    try:
        return str(ray.util.get_node_ip_address())
    except Exception:  # pragma: no cover - outside a worker
        import socket

        return socket.gethostname()


# ============================================================================ driver side


class RayBackend:
    """The runner's backend on a Ray cluster (runner.Backend); connects on first use
    (:func:`backend` joins at once)."""

    remote = True

    def __init__(
        self,
        address: str | None = None,
        *,
        window: int | None = None,
        runtime_env: dict[str, Any] | None = None,
    ) -> None:
        self.address = address
        self.window = window  # chunks in flight at most (default: twice the cluster's CPUs)
        self.runtime_env = runtime_env  # Ray's runtime_env of this driver's job (env_vars, ...)
        self._ray: Any = None
        self._task: Any = None
        self._connected_here = False
        self._token_set = False  # this process turned Ray's token mode on (undone by close)
        self.joined: str | None = None  # the cluster's address as resolved (GCS), once joined
        self.connect_s = 0.0
        self.resources: dict[str, float] = {}
        self.nodes = 0
        self.workers: dict[tuple[str, int], dict[str, Any]] = {}
        self.tasks = 0
        self.retried = 0  # failed tries that Ray retried

    # ---- connecting

    def connect(self) -> None:
        """Join the cluster at ``address`` (default: RAY_ADDRESS, else the cluster started on
        this machine with ``ray start --head``, else a Ray instance started for this process),
        with the cluster's token when it asks for one (Ray's token authentication)."""
        if self._ray is not None:
            return
        ray = _import_ray()
        t0 = time.perf_counter()
        quiet: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.ERROR}
        if self.runtime_env is not None:
            quiet["runtime_env"] = self.runtime_env
        if not ray.is_initialized():  # else a caller's own ray.init: use it as it is
            address, named = _target(self.address)
            self.joined = address
            if address is None:
                ray.init(include_dashboard=False, **quiet)  # a local instance for this command
            else:
                if "://" not in address:  # a ray:// client address is left to Ray
                    self._token_set = _reach(address, named)
                try:
                    ray.init(address=address, **quiet)
                except (ConnectionError, ValueError, RuntimeError) as e:
                    raise RayError(
                        f"{named}: no Ray cluster answers there ({_first_line(e)}); "
                        "start one with `ray start --head` or give its address"
                    ) from None
            self._connected_here = True
        self._ray = ray
        self._hush_task_errors()
        self._task = ray.remote(num_cpus=1, max_retries=RETRIES, retry_exceptions=True)(play_task)
        self.resources = {k: float(v) for k, v in ray.cluster_resources().items()}
        self.nodes = sum(1 for n in ray.nodes() if n.get("Alive"))
        if self.joined is None:  # a local instance, or a caller's own ray.init
            with contextlib.suppress(Exception):
                self.joined = str(ray.get_runtime_context().gcs_address)
        self.connect_s = time.perf_counter() - t0

    def _hush_task_errors(self) -> None:
        """Ray's driver prints every failed try of a task on stdout (a traceback per retry),
        even with ``log_to_driver=False``; a retried chunk is counted here instead (the
        manifest's ``retried``), and a chunk that fails for good is one line (RayChunkError)."""
        try:
            import ray._private.worker as driver
        except ImportError:  # pragma: no cover - Ray moved it: its messages show, nothing breaks
            return
        show = driver.print_to_stdstream
        if getattr(show, "balance_hush", False):
            show = show.balance_show

        def hush(data: dict[str, Any], ignore_prefix: bool) -> None:
            if data.get("pid") != "raylet":
                show(data, ignore_prefix)
            elif any("will be retried" in str(line) for line in data.get("lines", ())):
                self.retried += 1

        hush.balance_hush = True  # type: ignore[attr-defined]
        hush.balance_show = show  # type: ignore[attr-defined]
        driver.print_to_stdstream = hush

    def close(self) -> None:
        if self._ray is not None and self._connected_here:
            with contextlib.suppress(Exception):
                self._ray.shutdown()
        self._ray = None
        if self._token_set:
            _token_mode(None)
            self._token_set = False

    @property
    def cpus(self) -> int:
        return max(1, int(self.resources.get("CPU", 1)))

    # ---- playing

    def play_chunks(
        self,
        runs: Sequence[Any],
        *,
        seed: int,
        games: int,
        first_game: int,
        chunk_size: int,
        played: Callable[[int], None] | None,
        stop: Callable[[], bool] | None,
    ) -> Iterator[list[Chunk]]:
        from balance import games as registry
        from balance.runner.play import _check_chunk_range

        self.connect()
        ray = self._ray
        shipped = ray.put(
            pickle.dumps([(registry._GAMES[r.config.game], r.config) for r in runs], protocol=5)
        )
        versions = _versions()
        starts = list(range(first_game, first_game + games, chunk_size))
        window = self.window or 2 * self.cpus
        in_flight: dict[int, Any] = {}
        submitted = written = 0
        try:
            while written < len(starts):
                while submitted < len(starts) and submitted < written + window:
                    start = starts[submitted]
                    n = min(chunk_size, first_game + games - start)
                    in_flight[submitted] = self._task.remote(shipped, seed, start, n, versions)
                    submitted += 1
                    self.tasks += 1
                ref = in_flight[written]
                ready, _ = ray.wait([ref], timeout=0.2)
                if stop is not None and stop():
                    return
                if not ready:
                    continue
                start = starts[written]
                n = min(chunk_size, first_game + games - start)
                try:
                    chunks, worker = ray.get(ref)
                except Exception as e:  # RayTaskError, WorkerCrashedError, NodeDiedError...
                    raise RayChunkError(
                        f"games {start:,} to {start + n - 1:,} failed on Ray after "
                        f"{1 + RETRIES} tries: {_cause(e)}"
                    ) from None
                del in_flight[written]
                self._saw(worker)
                for chunk in chunks:
                    _check_chunk_range(chunk, start, n)
                    if played is not None:
                        played(n)
                written += 1
                yield chunks
        finally:
            # The tasks still in flight are left to finish and their results dropped, not
            # cancelled: cancelling a task while Ray retries it aborts the driver (Ray 2.60,
            # task_manager.cc "Tried to complete task that was not pending"); a failing chunk's
            # retries in tests/test_ray.py made it happen now and then.
            in_flight.clear()

    def _saw(self, worker: dict[str, Any]) -> None:
        key = (str(worker["node"]), int(worker["pid"]))
        entry = self.workers.setdefault(
            key, {"node": key[0], "pid": key[1], "load_s": None, "chunks": 0}
        )
        entry["chunks"] += 1
        if worker.get("loads"):
            entry["load_s"] = round((entry["load_s"] or 0.0) + sum(worker["loads"].values()), 3)

    def describe(self) -> dict[str, Any]:
        return {
            "name": "ray",
            "address": self.joined or self.address or os.environ.get("RAY_ADDRESS") or "auto",
            "nodes": self.nodes,
            "cpus": self.cpus,
            "connect_s": round(self.connect_s, 3),
            "tasks": self.tasks,
            "retries": RETRIES,
            "retried": self.retried,
            "workers": sorted(self.workers.values(), key=lambda w: (w["node"], w["pid"])),
        }


def describe_line(info: dict[str, Any]) -> str:
    """What a command says of a Ray run: the cluster, its workers and their kernel loads."""
    workers = info.get("workers") or []
    loads = [w["load_s"] for w in workers if w.get("load_s") is not None]
    load = ""
    if loads:
        low, high = min(loads), max(loads)
        span = f"{low:.1f} s" if round(low, 1) == round(high, 1) else f"{low:.1f}-{high:.1f} s"
        load = f"; kernels loaded on {len(loads)} worker{'s' * (len(loads) != 1)} in {span}"
    retried = info.get("retried") or 0
    if retried:
        load += f"; {retried} failed tr{'ies' if retried != 1 else 'y'} retried"
    return (
        f"ray: {info.get('tasks', 0)} tasks on {len(workers)} worker"
        f"{'s' * (len(workers) != 1)}, {info.get('nodes', 0)} node"
        f"{'s' * (info.get('nodes') != 1)} with {info.get('cpus', 0)} CPUs at "
        f"{info.get('address')}{load}"
    )


@contextlib.contextmanager
def backend(address: str | None = None) -> Iterator[RayBackend]:
    """In the block, every command's games are played on Ray (runner.using_backend); the
    driver leaves the cluster at the end (a cluster it started for itself stops). The cluster
    is joined on entry: one that cannot be reached (or refuses this process) is an error
    before a command writes anything."""
    from balance import runner

    _import_ray()  # a missing Ray is an error before anything else happens
    ray_backend = RayBackend(address)
    try:
        ray_backend.connect()
        with runner.using_backend(ray_backend):
            yield ray_backend
    finally:
        ray_backend.close()


# ---------------------------------------------------------------- finding and joining a cluster

START = "start one with `ray start --head` or give its address"
TOKEN_HOWTO = (
    "give this machine the cluster's token (`ray get-auth-token` on its head node prints it) "
    "in ~/.ray/auth_token, RAY_AUTH_TOKEN or a file named by RAY_AUTH_TOKEN_PATH"
)


def _target(address: str | None) -> tuple[str | None, str]:
    """The cluster to join and how the user named it (for messages): ``--address HOST:PORT``
    as given; ``auto`` is RAY_ADDRESS, else the cluster ``ray start --head`` started on this
    machine; no address is the same, else ``(None, ...)``: a Ray instance for this command.

    ``auto`` is resolved here rather than by Ray so that the cluster can be checked first (it
    answers, it wants a token, the token is right), and each way of naming it joins the same way."""
    env = os.environ.get("RAY_ADDRESS") or None
    if address is not None and address != "auto":
        return address, f"--address {address}"
    if env is not None:
        return env, f"--address auto (RAY_ADDRESS={env})" if address else f"RAY_ADDRESS={env}"
    here = _local_cluster()
    named = f"the cluster `ray start --head` started on this machine ({here})"
    if address == "auto":
        if here is None:
            raise RayError(
                "--address auto: no Ray cluster on this machine (RAY_ADDRESS is unset and "
                f"`ray start --head` has not recorded one in {_record_file()}); {START}"
            )
        return here, f"--address auto, {named}"
    if here is not None and _answers(here):
        return here, named
    return None, "a Ray instance for this command"  # none recorded, or it was stopped


def _reach(address: str, named: str) -> bool:
    """Check that the cluster at ``address`` answers and lets this process in, turning Ray's
    token mode on when the cluster asks for a token and this machine has one; whether it did.
    Each way it cannot is a RayError that says which and how to fix it.

    Ray 2.60 sends a token only when RAY_AUTH_MODE=token is set, or when ``ray.init`` finds a
    local cluster by itself (address None or "auto"); given an address, it sends none, and a
    cluster started by a plain ``ray start --head`` on a machine with a token in
    ``~/.ray/auth_token`` (written by any earlier ``ray.init()``) refuses it after 20 s of
    retries, each logged on stderr. Asking the cluster's GCS for its id first answers in
    milliseconds, and the token is sent only to a cluster that asks for one."""
    if not _answers(address):
        raise RayError(f"{named}: no Ray cluster answers there; {START}")
    try:
        from ray.exceptions import AuthenticationError
    except ImportError:  # a Ray before token authentication (2.52): nothing to agree on
        return False
    mode = (os.environ.get("RAY_AUTH_MODE") or "").lower()
    source = _token_source() if mode == "token" else None
    if mode == "token" and source is None:
        raise RayError(f"{named}: RAY_AUTH_MODE=token is set but no token is found; {TOKEN_HOWTO}")
    refused = _probe(address)
    if refused is None:
        return False
    if not isinstance(refused, AuthenticationError):
        raise RayError(
            f"{named}: something answers there but not as a Ray cluster ({_cause(refused)})"
        )
    if mode == "token":
        raise RayError(f"{named}: the cluster refuses the token in {source}; {TOKEN_HOWTO}")
    if mode:
        raise RayError(
            f"{named}: the cluster asks for a token (Ray's token authentication) and "
            f"RAY_AUTH_MODE={os.environ['RAY_AUTH_MODE']} here sends none; unset it and "
            f"{TOKEN_HOWTO}"
        )
    source = _token_source()
    if source is None:
        raise RayError(
            f"{named}: the cluster asks for a token (Ray's token authentication) and this "
            f"machine has none; {TOKEN_HOWTO}"
        )
    _token_mode("token")
    refused = _probe(address)
    if refused is None:
        return True
    _token_mode(None)
    if isinstance(refused, AuthenticationError):
        raise RayError(f"{named}: the cluster refuses the token in {source}; {TOKEN_HOWTO}")
    raise RayError(f"{named}: the cluster does not let this process in ({_cause(refused)})")


def _answers(address: str, timeout: float = 3.0) -> bool:
    """Whether something listens at ``host:port`` (Ray itself retries a dead address for many
    minutes)."""
    import socket

    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def _probe(address: str) -> BaseException | None:
    """Ask the GCS at ``address`` for its cluster id, as ``ray.init`` first does, with this
    process's auth mode and token: None if it answers, else what Ray raised
    (``AuthenticationError`` for a missing or wrong token). Ray's C++ client logs a refusal on
    the process's stderr (file descriptor 2, below Python): it is caught here, since the error
    this module raises says it in one line."""
    try:
        from ray._raylet import GcsClient
    except ImportError:  # pragma: no cover - Ray moved it: ray.init says what goes wrong
        return None
    with _stderr_caught():
        try:
            GcsClient(address=address)
        except Exception as e:
            return e
    return None


@contextlib.contextmanager
def _stderr_caught() -> Iterator[None]:
    """In the block, what anything in this process writes on file descriptor 2 is dropped."""
    import sys
    import tempfile

    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with tempfile.TemporaryFile() as caught:
            os.dup2(caught.fileno(), 2)
            try:
                yield
            finally:
                os.dup2(saved, 2)
    finally:
        os.close(saved)


def _token_source() -> str | None:
    """Where Ray reads this machine's token, in Ray's order (RAY_AUTH_TOKEN, the file named by
    RAY_AUTH_TOKEN_PATH, ~/.ray/auth_token), or None. A RAY_AUTH_TOKEN_PATH that names no
    readable token is an error here: Ray aborts the process on it."""
    from pathlib import Path

    if os.environ.get("RAY_AUTH_TOKEN", "").strip():
        return "RAY_AUTH_TOKEN"
    named = os.environ.get("RAY_AUTH_TOKEN_PATH")
    if named:
        try:
            if Path(named).expanduser().read_text().strip():
                return f"RAY_AUTH_TOKEN_PATH ({named})"
            reason = "the file is empty"
        except OSError as e:
            reason = e.strerror or type(e).__name__
        except UnicodeDecodeError:
            reason = "not text"
        raise RayError(f"RAY_AUTH_TOKEN_PATH={named}: no token there ({reason})")
    default = Path.home() / ".ray" / "auth_token"
    with contextlib.suppress(OSError, UnicodeDecodeError):
        if default.read_text().strip():
            return str(default)
    return None


def _token_mode(mode: str | None) -> None:
    """Turn Ray's token mode on (``"token"``) or back to unset (None) in this process, as Ray
    does when ``ray.init`` finds a local cluster with a token: the environment variable, then
    Ray's cached config and token (both C++ singletons)."""
    if mode is None:
        os.environ.pop("RAY_AUTH_MODE", None)
    else:
        os.environ["RAY_AUTH_MODE"] = mode
    with contextlib.suppress(ImportError, AttributeError):
        from ray._raylet import AuthenticationTokenLoader, Config

        Config.initialize("")
        AuthenticationTokenLoader.instance().reset_cache()


def _record_file() -> str:
    """Where ``ray start --head`` records its cluster's address: ``ray_current_cluster`` in
    Ray's default temporary folder (RAY_TMPDIR, else TMPDIR on Linux, else /tmp; as Ray's
    ``get_default_ray_temp_dir``)."""
    import sys
    import tempfile

    if "RAY_TMPDIR" in os.environ:
        base = os.environ["RAY_TMPDIR"]
    elif sys.platform.startswith("linux") and "TMPDIR" in os.environ:
        base = os.environ["TMPDIR"]
    elif sys.platform.startswith(("linux", "darwin")):
        base = "/tmp"
    else:
        base = tempfile.gettempdir()
    return os.path.join(base, "ray", "ray_current_cluster")


def _local_cluster() -> str | None:
    """The address of the cluster ``ray start --head`` last started on this machine (Ray's own
    record of it), or None."""
    try:
        with open(_record_file()) as f:
            return f.read().strip() or None
    except OSError:
        return None


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _cause(e: BaseException) -> str:
    """The one-line cause of a failed task: the worker's exception, not Ray's wrapping."""
    cause = getattr(e, "cause", None)
    if isinstance(cause, BaseException):
        return f"{type(cause).__name__}: {_first_line(cause)}"
    return f"{type(e).__name__}: {_first_line(e)}"
