"""The fault suite (issue 26): real runs stopped in every way a process is stopped, two writers at
once, a full disk, and flipped bytes.

Nothing lost, nothing silently wrong:

- **Kills.** ``balance simulate``, ``balance sweep`` and ``balance simulate --resume`` of Five
  Ravens run as subprocesses and get SIGKILL, SIGTERM or SIGHUP after a seeded random delay.
  After each, the exit code is the signal's (143, 129) or 0 (the run had finished first); the
  manifest is truthful (``interrupted`` with an end time and ``stopped_by``; after SIGKILL the
  readers say ``killed``); every kept part verifies; and resuming (a sweep: the same command
  again) ends with the parts of an uninterrupted run of the same config, seed, games and chunk
  size, byte for byte.
- **Two writers.** A second ``simulate`` into a live run's directory (same seed or another),
  ``--force`` over it, or a second ``--resume`` fails at once with one line naming the live
  process; the first ends as if alone. A lock left by a process killed outright never blocks.
- **A full disk.** A run into a 2 MB tmpfs (where this test may mount one) and an ENOSPC injected
  in-process fail with one line; the manifest says what was kept, and after space is freed
  ``--resume`` ends byte-identical.
- **Flipped bytes.** One byte at a time, at hundreds of seeded positions of every part and of the
  manifest: each is refused (ResultsError) or changes nothing that is read; none is read as other
  numbers.

Bad input to every option of every command is tests/test_bad_input_matrix.py.

By default each matrix runs a seeded sample (a couple of minutes once the Five Ravens kernels are
compiled); ``BALANCE_FAULTS=all`` (what ``nox -s faults`` sets) runs every case. A case that finds
a bug stays here as a strict xfail naming the symptom, and is always in the sample.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from balance import parquet, results, runner
from balance.cli import app
from balance.experiments import sweep as sweep_lib

ROOT = Path(__file__).resolve().parent.parent
CONFIG = "configs/five_ravens/base.yaml"  # relative to ROOT, as the manifests record it
OTHER_CONFIG = "configs/five_ravens/no_seven.yaml"
GAMES, CHUNK = 40_000, 2_000  # 20 parts, about a second of play here
SEED, OTHER_SEED = 7, 8
FULL = os.environ.get("BALANCE_FAULTS") == "all"
HOST = socket.gethostname()
SIGNALS = {"SIGKILL": signal.SIGKILL, "SIGTERM": signal.SIGTERM, "SIGHUP": signal.SIGHUP}

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="signals, flock, FIFOs and /proc: Linux"
)


def sample(cases: list[Any], n: int, *, seed: int, always: tuple[Any, ...] = ()) -> list[Any]:
    """Every case with BALANCE_FAULTS=all; else ``n`` of them drawn with ``seed``, and the
    ``always`` ones (the known bugs' cases, so that their strict xfail notices a fix)."""
    if FULL:
        return list(cases)
    picked = random.Random(seed).sample(list(cases), min(n, len(cases)))
    return picked + [c for c in always if c not in picked]


# =============================================================== real runs, as subprocesses


def _env() -> dict[str, str]:
    env = dict(os.environ)  # NUMBA_CACHE_DIR included: the kernels compiled once are reused
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


ENV = _env()


def start(*args: object) -> subprocess.Popen[str]:
    """``python -m balance ARGS`` from the repository root, in its own session."""
    return subprocess.Popen(
        [sys.executable, "-m", "balance", *map(str, args)],
        cwd=ROOT,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def finish(proc: subprocess.Popen[str], timeout: float = 600) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``proc``; a process that does not end is a failure."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"no end in {timeout} s: {proc.args}\n{err}")
    return proc.returncode, out, err


def balance(*args: object, timeout: float = 600) -> tuple[int, str, str]:
    return finish(start(*args), timeout)


def said(stderr: str) -> list[str]:
    """stderr's lines but the kernels' loading/compiling lines every start prints."""
    kernel = ("loading ", "loaded ", "compiling ", "compiled ")
    return [line for line in stderr.splitlines() if not line.startswith(kernel)]


FOLDERS = ("games", "trajectories")  # a run's parts and their trajectories (Five Ravens)


def simulate_args(out: Path, seed: int = SEED) -> tuple[object, ...]:
    return ("simulate", CONFIG, "--games", GAMES, "--chunk-size", CHUNK, "--seed", seed,
            "--out", out)  # fmt: skip


def sweep_args(out: Path) -> tuple[object, ...]:
    return ("sweep", CONFIG, "--over", "players=2,3", "--games", GAMES, "--chunk-size", CHUNK,
            "--seed", SEED, "--out", out)  # fmt: skip


def same_run(out: Path, reference: Path) -> None:
    """``out`` holds the dataset of ``reference``: the same files in games/ and trajectories/,
    byte for byte, the same manifest but for how the run went (runner.RUN_SPECIFIC), and nothing
    else: no lock, no temporary file."""
    folders = [f for f in FOLDERS if (reference / f).is_dir()]  # a fake game keeps no trace
    for folder in folders:
        names = sorted(p.name for p in (out / folder).iterdir())
        assert names == sorted(p.name for p in (reference / folder).iterdir())
        for name in names:
            assert (out / folder / name).read_bytes() == (reference / folder / name).read_bytes(), (
                f"{out}/{folder}/{name} differs from the uninterrupted run's"
            )
    mine, theirs = (json.loads((d / "manifest.json").read_text()) for d in (out, reference))
    for m in (mine, theirs):
        for key in runner.RUN_SPECIFIC:
            m.pop(key, None)
    assert mine == theirs
    assert sorted(p.name for p in out.iterdir()) == sorted([*folders, "manifest.json"])
    assert results.verify(out)[1] == []


def partial_copy(reference: Path, out: Path, parts: int) -> bytes:
    """``out``: the reference run as Ctrl-C leaves it after its first ``parts`` parts (status
    ``interrupted``, the later parts gone); returns the manifest's bytes."""
    shutil.copytree(reference, out)
    manifest = json.loads((out / "manifest.json").read_text())
    for part in manifest["parts"][parts:]:
        (out / "games" / part["file"]).unlink()
        (out / "trajectories" / part["trace"]["file"]).unlink()
    manifest["parts"] = manifest["parts"][:parts]
    manifest.update(
        status="interrupted",
        games_done=sum(p["games"] for p in manifest["parts"]),
        stopped_by="SIGINT",
    )
    text = json.dumps(results.seal(manifest), indent=2) + "\n"
    (out / "manifest.json").write_text(text)
    return text.encode()


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    """Five Ravens' kernels compiled (a minute the first time in this NUMBA_CACHE_DIR)."""
    out = tmp_path_factory.mktemp("warm") / "run"
    code, _, err = balance("simulate", CONFIG, "--games", 100, "--out", out, timeout=900)
    assert code == 0, err


def writing(command: str, out: Path, before: bytes | None = None) -> Callable[[], bool]:
    """Whether ``command`` (simulate, sweep, resume) into ``out`` has begun writing its run: its
    manifest is there, a sweep's first point's is, a resumed run's has changed (from
    ``before``)."""
    if command == "sweep":
        return (out / "00-players=2" / "manifest.json").exists
    file = out / "manifest.json"
    if command == "resume":
        return lambda: file.read_bytes() != before
    return file.exists


def until(proc: subprocess.Popen[str], ready: Callable[[], bool]) -> float:
    """Seconds until ``ready()`` held (or ``proc`` ended), polling every few milliseconds."""
    t0 = time.monotonic()
    while proc.poll() is None and not ready():
        time.sleep(0.002)
    return time.monotonic() - t0


def timed(args: tuple[object, ...], ready: Callable[[], bool]) -> tuple[float, float]:
    """Run ``balance ARGS`` to its end: (seconds until ``ready()``, i.e. until the run began
    writing, seconds until the process ended)."""
    proc = start(*args)
    t0 = time.monotonic()
    begins = until(proc, ready)
    code, _, err = finish(proc)
    ends = time.monotonic() - t0
    assert code == 0, err
    return begins, ends


class References:
    """Uninterrupted runs, played once per module when first asked for: what every stopped run
    must end as; and when each command begins writing and ends here (``window``: seconds from
    its start), the times the kills are spread over."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.window: dict[str, tuple[float, float]] = {}
        self._made: set[Path] = set()

    def simulate(self, seed: int = SEED) -> Path:
        out = self.folder / f"simulate-{seed}"
        if out not in self._made:
            window = timed(simulate_args(out, seed), writing("simulate", out))
            self.window.setdefault("simulate", window)
            self._made.add(out)
        return out

    def sweep(self) -> Path:
        out = self.folder / "sweep"
        if out not in self._made:
            self.window["sweep"] = timed(sweep_args(out), writing("sweep", out))
            self._made.add(out)
        return out

    def resume_window(self) -> tuple[float, float]:
        """When a --resume from the second part on begins writing and ends (and it ends as the
        reference run)."""
        if "resume" not in self.window:
            out = self.folder / "resumed"
            before = partial_copy(self.simulate(), out, parts=1)
            self.window["resume"] = timed(
                ("simulate", "--resume", out), writing("resume", out, before)
            )
            same_run(out, self.simulate())
        return self.window["resume"]


@pytest.fixture(scope="module")
def refs(kernels, tmp_path_factory):
    return References(tmp_path_factory.mktemp("references"))


# ----------------------------------------------------------------- 1. killed at random moments

KILL_TRIALS = 4  # per command and signal: one while the process starts, three while it writes
KILLS = [
    (command, sig, k)
    for command in ("simulate", "sweep", "resume")
    for sig in SIGNALS
    for k in range(KILL_TRIALS)
]


def _kill_sample() -> list[tuple[str, str, int]]:
    """By default one trial per signal, each on another command, while the run writes."""
    if FULL:
        return KILLS
    rng = random.Random(26)
    commands = ["simulate", "sweep", "resume"]
    rng.shuffle(commands)
    return [(c, s, rng.randrange(1, KILL_TRIALS)) for c, s in zip(commands, SIGNALS, strict=True)]


def _stop_after(proc: subprocess.Popen[str], delay: float, sig: int) -> None:
    """Send ``sig`` after ``delay`` seconds, unless the process ended first."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=delay)
        return
    proc.send_signal(sig)


def _nothing_written(out: Path, sig: int, code: int, before: set[str]) -> None:
    """Stopped before its run started: ``out`` as it was (SIGKILL may leave its lock file)."""
    left = set(os.listdir(out)) if out.exists() else set()
    assert left - before <= ({results.LOCK} if sig == signal.SIGKILL else set()), left
    assert code in (-sig, 128 + sig), code  # -sig: before the CLI set its handlers (stop_codes)


# While the interpreter starts (before the CLI sets its handlers) and after a command ended (as
# Python shuts down, its handlers gone), SIGTERM and SIGHUP end the process by the signal itself:
# Popen says -15, a shell 143, the code a handled stop exits with. Then nothing was being written.
def stop_codes(sig: int, status: str) -> tuple[int, ...]:
    """The exit codes a command stopped by ``sig`` may end with, its run's ``status`` after."""
    if sig == signal.SIGKILL:
        return (-sig, 0)
    return (0, 128 + sig, -sig) if status == "complete" else (128 + sig,)


def check_stopped_run(out: Path, sig: int, code: int, stderr: str, *, before: bytes | None) -> str:
    """What a run stopped by ``sig`` left in ``out`` is truthful and sound; returns how it
    ended. ``before``: the manifest's bytes before the command (a resumed run), else None."""
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    name = signal.Signals(sig).name
    file = out / "manifest.json"
    if not file.exists() or (before is not None and file.read_bytes() == before):
        _nothing_written(out, sig, code, {*FOLDERS, "manifest.json"} if before else set())
        return "nothing written"
    manifest = results.read_manifest(out)
    status = manifest["status"]
    assert code in stop_codes(sig, status), (code, status, stderr)
    if sig == signal.SIGKILL:
        assert status in ("killed", "complete"), status
        if status == "killed":
            assert manifest["finished"] is None
    else:
        assert status in ("interrupted", "complete"), status
        if status == "interrupted":
            assert manifest["finished"] is not None
            assert manifest["stopped_by"] == name
            done = manifest["games_done"]
            assert said(stderr) == [f"interrupted by {name}: kept {done:,} complete games in {out}"]
            assert not list(out.rglob("*.tmp"))
        assert not (out / results.LOCK).exists()
    if status == "complete":
        assert manifest["games_done"] == GAMES
    if before is not None:  # the session it resumed is on record
        assert [s["status"] for s in manifest["sessions"]] == ["interrupted"]
    assert results.verify(out)[1] == []
    done = manifest["games_done"]
    kept = results.open_results(out)[1].select("game").collect()["game"]
    assert kept.len() == done * manifest["players"] and (done == 0 or kept.max() == done - 1)
    return status


@pytest.mark.slow
@pytest.mark.parametrize(
    ("command", "signame", "trial"),
    [pytest.param(*case, id="-".join(map(str, case))) for case in _kill_sample()],
)
def test_a_run_stopped_at_a_random_moment_resumes_to_the_same_parts(
    refs, tmp_path, command, signame, trial
):
    sig = SIGNALS[signame]
    rng = random.Random(f"{command}-{signame}-{trial}")
    out = tmp_path / "run"
    before = None
    if command == "simulate":
        reference, args = refs.simulate(), simulate_args(out)
    elif command == "resume":
        reference, args = refs.simulate(), ("simulate", "--resume", out)
        refs.resume_window()
        before = partial_copy(reference, out, parts=rng.randint(1, GAMES // CHUNK // 2))
    else:
        reference, args = refs.sweep(), sweep_args(out)
    begins, ends = refs.window[command]
    proc = start(*args)
    if trial == 0:  # while the process starts: imports, config, kernels
        delay = rng.uniform(0, begins)
    else:  # in the k-th third of the run's writing (the last one up to a tenth past its end)
        until(proc, writing(command, out, before))
        delay = (ends - begins) * rng.uniform(trial - 1, trial + 0.3) / (KILL_TRIALS - 1)
    _stop_after(proc, delay, sig)
    code, _, err = finish(proc)

    if command == "sweep":
        ended = check_stopped_sweep(out, sig, code, err)
        again = sweep_args(out)
    else:
        ended = check_stopped_run(out, sig, code, err, before=before)
        again = ("simulate", "--resume", out) if (out / "manifest.json").exists() else args
    print(f"stopped by {signame} after {delay:.2f} s: {ended} (exit {code})")  # pytest -rP
    code, _, err = balance(*again)
    assert code == 0, (ended, err)
    if command == "sweep":
        for point in ("00-players=2", "01-players=3"):
            same_run(out / point, reference / point)
    else:
        same_run(out, reference)


def check_stopped_sweep(out: Path, sig: int, code: int, stderr: str) -> str:
    """What a sweep stopped by ``sig`` left in ``out`` is truthful and sound; returns how it
    ended."""
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    name = signal.Signals(sig).name
    if not (out / sweep_lib.SWEEP_MANIFEST).exists():
        _nothing_written(out, sig, code, set())
        return "nothing written"
    sweep = sweep_lib.read_sweep_manifest(out)
    status = sweep["status"]
    assert code in stop_codes(sig, status), (code, status, stderr)
    if sig == signal.SIGKILL:
        assert status in ("killed", "complete"), status
    else:
        assert status in ("interrupted", "complete") and sweep["finished"] is not None, status
        if status == "interrupted":
            assert said(stderr)[-1].startswith(f"interrupted by {name}: "), stderr
    for point in sweep["points"]:
        path = out / point["dir"]
        if not (path / "manifest.json").exists():
            continue
        manifest = results.read_manifest(path)
        if sig == signal.SIGKILL:
            assert manifest["status"] in ("killed", "complete"), (point, manifest["status"])
        else:
            assert manifest["status"] in ("interrupted", "complete"), manifest["status"]
            if manifest["status"] == "interrupted":
                assert manifest["stopped_by"] == name and manifest["finished"] is not None
            # sweep.json says the same of the point (pending: stopped before its first part)
            told = "pending" if manifest["games_done"] == 0 else manifest["status"]
            assert point["status"] == told, (point, manifest["status"])
        assert results.verify(path)[1] == []
    return status


# ----------------------------------------------------------------------- 2. two writers at once


def hold(proc: subprocess.Popen[str], out: Path, moment: str) -> None:
    """Wait until ``proc`` holds the writer lock of ``out`` (``moment`` "lock"), or has written
    two parts of its run ("running"), then stop it there (SIGSTOP) for as long as a test needs."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and proc.poll() is None:
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            if moment == "lock":
                holder = json.loads((out / results.LOCK).read_text())
                if holder["pid"] == proc.pid:
                    break
            else:
                manifest = json.loads((out / "manifest.json").read_text())
                mine = manifest["process"]["pid"] == proc.pid and manifest["status"] == "running"
                if mine and manifest["games_done"] >= 2 * CHUNK:
                    break
        time.sleep(0.005)
    assert proc.poll() is None, f"the first writer ended before the test could stop it: {proc.args}"
    os.kill(proc.pid, signal.SIGSTOP)


@contextlib.contextmanager
def stopped(proc: subprocess.Popen[str], out: Path, moment: str) -> Iterator[None]:
    try:
        hold(proc, out, moment)
        yield
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGCONT)


def busy_line(out: Path, pid: int) -> str:
    return f"error: {out}: another balance process is writing this run (pid {pid} on host {HOST}, "


WRITERS = [
    (second, moment)
    for second in ("another seed", "the same seed", "--force", "a second --resume")
    for moment in ("lock", "running")
]


# The cases that found bugs (fixed): always sampled, so that they stay fixed.
NOT_BUSY = (
    "a plain second simulate into a live run's directory is refused with `error: DIR: output "
    "directory exists and is not empty; choose another --out or pass --force to replace it` "
    "(runner.write._check_out runs before the lock), not `another balance process is writing this run "
    "(pid N ...)`; the --force it suggests then fails as busy"
)
KNOWN_WRITERS: dict[tuple[str, str], str] = {
    ("another seed", "running"): NOT_BUSY,
    ("the same seed", "running"): NOT_BUSY,
}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("second", "moment"),
    [
        pytest.param(
            *case,
            id=f"{case[0]} at {case[1]}",
        )
        for case in sample(WRITERS, 3, seed=2, always=tuple(KNOWN_WRITERS))
    ],
)
def test_two_writers_one_run(refs, tmp_path, second, moment):
    out = tmp_path / "run"
    if second == "a second --resume":
        partial_copy(refs.simulate(), out, parts=1)
        first = ("simulate", "--resume", out)
        reference, args = refs.simulate(), first
    else:
        first = simulate_args(out, SEED)
        reference = refs.simulate(SEED)
        args = {
            "another seed": simulate_args(out, OTHER_SEED),
            "the same seed": simulate_args(out, SEED),
            "--force": (*simulate_args(out, OTHER_SEED), "--force"),
        }[second]
    proc = start(*first)
    try:
        with stopped(proc, out, moment):
            code, stdout, stderr = balance(*args)
        first_code, _, first_err = finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert (code, stdout) == (1, ""), stderr
    assert stderr.count("\n") == 1 and stderr.startswith("error: "), stderr
    assert first_code == 0, first_err
    same_run(out, reference)  # the first writer's run, whole: the second wrote nothing
    assert stderr.startswith(busy_line(out, proc.pid)), stderr  # last: the known bug's symptom


@pytest.mark.slow
@pytest.mark.parametrize("moment", sample(["lock", "running"], 1, seed=3))
def test_a_lock_left_by_a_killed_process_never_blocks(refs, tmp_path, moment):
    out = tmp_path / "run"
    proc = start(*simulate_args(out))
    try:
        hold(proc, out, moment)
        proc.kill()  # SIGKILL: no handler runs, the lock file stays
        finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    holder = json.loads((out / results.LOCK).read_text())
    assert holder["pid"] == proc.pid  # what a stale lock looks like: the dead writer's file
    resumable = (out / "manifest.json").exists()
    again = ("simulate", "--resume", out) if resumable else simulate_args(out)
    code, _, err = balance(*again)
    assert code == 0, err
    same_run(out, refs.simulate())


# ------------------------------------------------------------------------------- 3. disk full


@dataclasses.dataclass
class DiskFull:
    """What a run that filled its disk left: its exit code and stderr, and its directory as
    read right after it (the manifest, verify's problems, temporary files left)."""

    mount: Path | None
    out: Path
    code: int
    stderr: str
    manifest: dict[str, Any]
    problems: list[str]
    leftovers: list[str]


def _after_disk_full(mount: Path | None, out: Path, code: int, stderr: str) -> DiskFull:
    manifest = results.read_manifest(out)
    return DiskFull(
        mount=mount,
        out=out,
        code=code,
        stderr=stderr,
        manifest=manifest,
        problems=results.verify(out)[1],
        leftovers=sorted(str(p.relative_to(out)) for p in out.rglob("*.tmp")),
    )


def _mount(folder: Path, size: str, *, remount: bool = False) -> bool:
    options = f"remount,size={size}" if remount else f"size={size}"
    command = ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)]
    try:
        return subprocess.run(command, capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@pytest.fixture(scope="module")
def small_disk(kernels, tmp_path_factory):
    """A Five Ravens run into a 2 MB tmpfs (its 20 parts need 2.4 MB): the disk fills."""
    mount = tmp_path_factory.mktemp("tmpfs")
    if not _mount(mount, "2m"):
        pytest.skip("cannot mount a tmpfs here (needs root): see the injected disk-full tests")
    try:
        out = mount / "run"
        code, _, err = balance(*simulate_args(out), "--yes")  # --yes: it would not fit, we know
        yield _after_disk_full(mount, out, code, err)
    finally:
        if subprocess.run(["umount", str(mount)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def check_disk_full(full: DiskFull, ended: tuple[str, ...] = ("failed", "interrupted")) -> None:
    """The run failed with one line and no traceback; its manifest says what it kept (status
    one of ``ended``), and what it kept is sound."""
    assert "Traceback" not in full.stderr
    assert full.code == 1, full.stderr
    lines = said(full.stderr)
    assert len(lines) == 1 and lines[0].startswith("error: "), full.stderr
    manifest = full.manifest
    assert manifest["status"] in ended, manifest["status"]
    assert (manifest["finished"] is None) == (manifest["status"] == "killed")
    assert manifest["games_done"] == sum(p["games"] for p in manifest["parts"])
    assert manifest["games_done"] < manifest["games_requested"]
    assert full.problems == []
    assert full.leftovers == []


@pytest.mark.slow
def test_a_full_disk_fails_in_one_line_and_keeps_what_fit(small_disk):
    check_disk_full(small_disk)
    assert 0 < small_disk.manifest["games_done"] < GAMES  # some parts fit, not all


@pytest.mark.slow
def test_after_a_full_disk_is_freed_resume_ends_byte_identical(small_disk, refs):
    assert small_disk.mount is not None and _mount(small_disk.mount, "16m", remount=True)
    code, _, err = balance("simulate", "--resume", small_disk.out)
    assert code == 0, err
    same_run(small_disk.out, refs.simulate())


# Found by this suite: disk full printed only `error: [Errno 28] No space left on device`,
# neither the path nor the games kept.


@pytest.mark.slow
def test_a_full_disk_is_named_with_what_was_kept(small_disk):
    (line,) = said(small_disk.stderr)
    assert str(small_disk.out) in line
    assert f"{small_disk.manifest['games_done']:,}" in line


def _invoke(*args: object) -> Any:
    return CliRunner().invoke(app, [str(a) for a in args])


INJECTED = ["the first part", "the third part", "a manifest, once", "every manifest from the third"]


def inject_disk_full(where: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on the disk is full when balance writes ``where`` (a part fails half-written; a
    manifest fails before its temporary file is complete)."""
    parts, manifests = [0], [0]
    write_table, write_json = parquet.write_table, results.writer._write_json

    def part(path: Path, columns: Any, **options: Any) -> str:
        parts[0] += 1
        if parts[0] >= {"the first part": 1, "the third part": 3}.get(where, 10**9):
            Path(path).write_bytes(b"PAR1" + bytes(1000))  # what fitted
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return write_table(path, columns, **options)

    def manifest(path: Path, data: dict[str, Any]) -> None:
        manifests[0] += 1
        n = manifests[0]
        if (where == "a manifest, once" and n == 3) or (
            where == "every manifest from the third" and n >= 3
        ):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        write_json(path, data)

    monkeypatch.setattr(parquet, "write_table", part)
    monkeypatch.setattr(results.writer, "_write_json", manifest)


@pytest.mark.parametrize("where", INJECTED)
def test_an_injected_disk_full_keeps_what_fit_and_resumes(
    where, fake_config, tmp_path, monkeypatch
):
    reference, out = tmp_path / "reference", tmp_path / "run"
    assert _invoke("simulate", fake_config, "--chunk-size", 10, "--out", reference).exit_code == 0
    with monkeypatch.context() as disk:
        inject_disk_full(where, disk)
        result = _invoke("simulate", fake_config, "--chunk-size", 10, "--out", out)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    if where == "every manifest from the third":
        # The end could not be recorded either: the manifest says running, and once its
        # process is gone (here: as a later process sees it) the readers say killed.
        monkeypatch.setattr(results.lock, "_process_alive", lambda process: False)
        check_disk_full(_after_disk_full(None, out, result.exit_code, result.stderr), ("killed",))
    else:
        check_disk_full(_after_disk_full(None, out, result.exit_code, result.stderr))
    result = _invoke("simulate", "--resume", out)
    assert result.exit_code == 0, result.output
    same_run(out, reference)


@pytest.mark.parametrize("where", ["the third part", "a manifest, once"])
def test_an_injected_disk_full_is_named_with_what_was_kept(
    where, fake_config, tmp_path, monkeypatch
):
    out = tmp_path / "run"
    inject_disk_full(where, monkeypatch)
    result = _invoke("simulate", fake_config, "--chunk-size", 10, "--out", out)
    monkeypatch.undo()
    kept = results.read_manifest(out)["games_done"]
    assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.output
    assert str(out) in result.stderr and f"{kept:,}" in result.stderr


# ------------------------------------------------------------------------------ 4. byte flips

FLIPS = 2000 if FULL else 400


@pytest.fixture(scope="module")
def small_run(kernels, tmp_path_factory):
    """A complete 2,000-game Five Ravens run in 4 parts."""
    out = tmp_path_factory.mktemp("small") / "run"
    code, _, err = balance("simulate", CONFIG, "--games", 2000, "--chunk-size", 500, "--seed", 3,
                           "--out", out)  # fmt: skip
    assert code == 0, err
    return out


def _read(run: Path) -> tuple[dict[str, Any], Any]:
    """What a reader gets from ``run``: the manifest's numbers and every row."""
    manifest, rows = results.open_results(run)
    numbers = {
        k: manifest[k]
        for k in ("status", "games_done", "games_requested", "players", "seed", "run_id", "seats")
    }
    numbers["parts"] = [(p["file"], p["first_game"], p["games"]) for p in manifest["parts"]]
    return numbers, rows.collect()


def flips(run: Path, n: int, seed: int) -> list[tuple[Path, int, int]]:
    """``n`` single-byte changes (file, offset, xor mask), as many in each part and in the
    manifest, at seeded random offsets."""
    files = [*sorted((run / "games").iterdir()), run / "manifest.json"]
    rng = random.Random(seed)
    return [
        (file, rng.randrange(file.stat().st_size), rng.randrange(1, 256))
        for i in range(n)
        for file in [files[i % len(files)]]
    ]


@contextlib.contextmanager
def flipped(file: Path, offset: int, mask: int) -> Iterator[None]:
    data = file.read_bytes()
    changed = bytearray(data)
    changed[offset] ^= mask
    file.write_bytes(bytes(changed))
    try:
        yield
    finally:
        file.write_bytes(data)


def classify(run: Path, before: tuple[dict[str, Any], Any]) -> str:
    """``detected`` (a ResultsError), ``harmless`` (the same numbers and rows), or what went
    wrong."""
    try:
        numbers, frame = _read(run)
    except results.ResultsError:
        return "detected"
    except BaseException as e:  # polars' PanicException is a BaseException
        return f"crashed: {type(e).__name__}: {e}"
    if numbers == before[0] and frame.equals(before[1]):
        return "harmless"
    return "silently wrong"


@pytest.mark.slow
def test_every_flipped_byte_is_detected_or_harmless(small_run):
    before = _read(small_run)
    tally: Counter[str] = Counter()
    wrong = []
    for file, offset, mask in flips(small_run, FLIPS, seed=26):
        with flipped(file, offset, mask):
            outcome = classify(small_run, before)
        tally[outcome.split(":")[0]] += 1
        if outcome not in ("detected", "harmless"):
            wrong.append((file.name, offset, mask, outcome))
    assert wrong == [], (tally, wrong[:10])
    assert tally["detected"] >= FLIPS * 0.9, tally  # a part's every byte is in its SHA-256
    assert _read(small_run)[1].equals(before[1])  # restored


@pytest.mark.slow
def test_balance_verify_sees_every_flip_a_reader_sees(small_run):
    before = _read(small_run)
    for file, offset, mask in flips(small_run, 40 if FULL else 12, seed=27):
        with flipped(file, offset, mask):
            expected = classify(small_run, before)
            result = _invoke("verify", small_run)
        where = (file.name, offset, mask, expected, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), where
        if expected == "detected":
            assert result.exit_code == 1 and result.stdout == "", where
            assert all(line.startswith("error: ") for line in result.stderr.splitlines()), where
        else:
            assert expected == "harmless" and result.exit_code == 0, where
            assert result.stdout.startswith(f"ok: {small_run} (2,000 games in 4 parts"), where
