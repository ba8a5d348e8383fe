"""Ctrl-C at random moments of ``balance simulate``: the dataset must always stay consistent.

Each trial starts ``python -m balance simulate CONFIG --games N --chunk-size C --out DIR`` in a
fresh process and sends it SIGINT after a seeded random delay, and, in about a third of the trials,
a second SIGINT shortly after (a user who presses Ctrl-C twice). The delays are stratified over
the length of one uninterrupted run, measured first (which also warms numba's cache): trial ``i``
of ``n`` waits a random time in the ``i``-th ``n``-th of it, so the interrupts cover the start-up
(the CLI's imports, the config, loading the kernels), the run and its end (a few land after the
run finished).

The clock starts when the CLI's own imports are under way (the process has loaded pydantic_core,
which balance/cli/__init__.py imports after it set its start-up SIGINT handler): before that, the
interpreter starts and ``import balance`` runs (``balance/__init__.py``: hashing the kernel
sources and loading llvmlite, 0.05-0.25 s), where no code of the CLI runs yet and a Ctrl-C gets
Python's own KeyboardInterrupt traceback. ``--from-exec`` counts from the start of the process
instead, to see that window.

A trial passes when:

- the exit code is 130 (or 0, the run having finished first), and stderr holds no traceback nor
  panic, only the one ``interrupted: ...`` line;
- the manifest says ``interrupted`` (or ``complete``: the run finished first, and the exit code
  is 0, or 130 if Ctrl-C came while it printed its summary) with an end time, and ``games_done``
  is what the parts it lists hold, games ``[0, games_done)``, each part complete;
- no ``*.tmp`` file is left and ``games/`` holds only the listed parts;
- ``open_results`` reads the rows (``games_done * players`` of them, game ids ``0..games_done-1``)
  and ``stats.describe`` runs on them;
- or, interrupted before the run started, nothing was written.

    python benchmarks/sigint_torture.py                 # 20 trials, prints the tally
    python benchmarks/sigint_torture.py --trials 50 --seed 7 --keep /tmp/torture

tests/test_interrupts.py runs a few of these trials (it imports this file).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "configs/five_ravens/base.yaml"
GAMES = 200_000
CHUNK = 4_000  # 50 parts: an interrupt often lands while a part or the manifest is written
BAD_STDERR = re.compile(r"Traceback|panicked|PanicException|Exception ignored|Error", re.I)
MARKER = "pydantic_core"  # a shared library balance/cli/ loads inside its guarded imports


class Trial(NamedTuple):
    seed: int
    delay: float  # seconds from the CLI's imports (or the process start) to the first SIGINT
    second: float | None  # seconds from the first SIGINT to a second one, if any
    outcome: str  # "interrupted", "complete", "before the run" or "FAILED"
    games_done: int
    problems: list[str]
    returncode: int
    stderr: str
    out: Path  # the run's results directory


def command(out: Path, *, games: int = GAMES, chunk_size: int = CHUNK) -> list[str]:
    return [
        sys.executable,
        "-m",
        "balance",
        "simulate",
        str(CONFIG),
        "--games",
        str(games),
        "--chunk-size",
        str(chunk_size),
        "--out",
        str(out),
    ]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.pop("COLUMNS", None)
    return env


def _start(out: Path, *, games: int, chunk_size: int, from_exec: bool) -> subprocess.Popen:
    """Start a run; return once the CLI's guarded imports are under way (or at once)."""
    proc = subprocess.Popen(
        command(out, games=games, chunk_size=chunk_size),
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.perf_counter() + 60
    while not from_exec and proc.poll() is None and time.perf_counter() < deadline:
        try:
            if MARKER in Path(f"/proc/{proc.pid}/maps").read_text():
                break
        except OSError:  # no /proc (not Linux): count from the start of the process
            break
        time.sleep(0.002)
    return proc


def warm_up(
    workdir: Path, *, games: int = GAMES, chunk_size: int = CHUNK, from_exec: bool = False
) -> float:
    """Run once without interrupting (compiles the kernels on a cold cache); returns the wall
    time of a second, warm run from where the clock starts: the window the interrupts are
    spread over."""
    for i in range(2):
        out = workdir / f"warm-{i}"
        proc = _start(out, games=games, chunk_size=chunk_size, from_exec=from_exec)
        t0 = time.perf_counter()
        _, stderr = proc.communicate()
        took = time.perf_counter() - t0
        if proc.returncode:
            raise RuntimeError(f"the warm-up run failed: {stderr}")
        shutil.rmtree(out)
    return took


def trial(
    seed: int,
    index: int,
    trials: int,
    window: float,
    workdir: Path,
    *,
    games: int = GAMES,
    chunk_size: int = CHUNK,
    from_exec: bool = False,
) -> Trial:
    """One interrupted run; ``index`` of ``trials`` picks the stratum of ``window`` it lands in."""
    rng = random.Random(f"{seed}-{index}")
    delay = window * (index + rng.random()) / trials
    second = rng.uniform(0.0, 0.3) if rng.random() < 1 / 3 else None
    out = workdir / f"run-{seed}-{index}"
    proc = _start(out, games=games, chunk_size=chunk_size, from_exec=from_exec)
    start = time.perf_counter()
    time.sleep(max(0.0, start + delay - time.perf_counter()))
    proc.send_signal(signal.SIGINT)
    if second is not None:
        time.sleep(second)
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
    try:
        stdout, stderr = proc.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
        return Trial(seed, delay, second, "FAILED", 0, ["hung"], proc.returncode, stderr, out)
    outcome, done, problems = check(out, proc.returncode, stdout, stderr, games=games)
    return Trial(seed, delay, second, outcome, done, problems, proc.returncode, stderr, out)


def check(
    out: Path, returncode: int, stdout: str, stderr: str, *, games: int
) -> tuple[str, int, list[str]]:
    """(outcome, games_done, problems) of a run that was sent SIGINT."""
    problems = []
    if BAD_STDERR.search(stderr):
        problems.append(f"stderr: {stderr.strip()[-2000:]}")
    if returncode not in (0, 130):
        problems.append(f"exit code {returncode}")
    tmp = sorted(str(p.relative_to(out)) for p in out.rglob("*.tmp")) if out.exists() else []
    if tmp:
        problems.append(f"left temporary files: {tmp}")
    if not (out / "manifest.json").exists():
        # Interrupted before the run started: nothing may have been written.
        if out.exists() and any(out.iterdir()):
            problems.append(f"no manifest, but {sorted(os.listdir(out))}")
        if returncode != 130:
            problems.append(f"no manifest and exit code {returncode}")
        return ("FAILED" if problems else "before the run"), 0, problems
    manifest = json.loads((out / "manifest.json").read_text())
    status, done = manifest.get("status"), int(manifest.get("games_done", -1))
    # Exit 130 with a complete run: Ctrl-C came as the finished run printed its summary.
    expected = {"complete"} if returncode == 0 else {"interrupted", "complete"}
    if status not in expected:
        problems.append(f"status {status!r} with exit code {returncode}")
    if not manifest.get("finished"):
        problems.append("no end time")
    parts = manifest.get("parts", [])
    first = 0
    for p in parts:
        if p["first_game"] != first:
            problems.append(f"part {p['file']} starts at {p['first_game']}, expected {first}")
        first = p["first_game"] + p["games"]
    if first != done:
        problems.append(f"games_done {done} but the parts hold {first}")
    if status == "complete" and done != games:
        problems.append(f"complete with {done} of {games} games")
    on_disk = sorted(os.listdir(out / "games")) if (out / "games").is_dir() else []
    if on_disk != sorted(p["file"] for p in parts):
        problems.append(f"games/ holds {on_disk}, the manifest lists {len(parts)} parts")
    if status == "interrupted" and f"kept {done:,} complete games" not in stderr:
        problems.append(f"stderr does not say {done:,} games were kept: {stderr.strip()!r}")
    try:
        from balance import stats
        from balance.results import open_results

        m, rows = open_results(out)
        frame = rows.select("game").collect()
        players = int(m["players"])
        if frame.height != done * players:
            problems.append(f"{frame.height} rows for {done} games of {players} players")
        elif done and (frame["game"].min(), frame["game"].max()) != (0, done - 1):
            problems.append("game ids are not 0..games_done-1")
        if done:
            stats.describe(rows, m)
    except Exception as e:  # any failure to read is what this looks for
        problems.append(f"unreadable: {type(e).__name__}: {e}")
    return ("FAILED" if problems else status), done, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=GAMES)
    parser.add_argument("--chunk-size", type=int, default=CHUNK)
    parser.add_argument("--keep", type=Path, help="keep the runs in this directory")
    parser.add_argument(
        "--from-exec",
        action="store_true",
        help="count the delays from the start of the process, not of the CLI's imports",
    )
    a = parser.parse_args(argv)
    workdir = a.keep or Path(tempfile.mkdtemp(prefix="sigint-torture-"))
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        options = {"games": a.games, "chunk_size": a.chunk_size, "from_exec": a.from_exec}
        window = warm_up(workdir, **options)
        print(f"one warm run: {window:.2f} s; {a.trials} SIGINTs spread over it (seed {a.seed})")
        tally: collections.Counter[str] = collections.Counter()
        for i in range(a.trials):
            t = trial(a.seed, i, a.trials, window, workdir, **options)
            tally[t.outcome] += 1
            twice = f", again after {t.second:.2f} s" if t.second is not None else ""
            print(
                f"{i + 1:3d}. SIGINT at {t.delay:5.2f} s{twice}: exit {t.returncode}, "
                f"{t.outcome}, {t.games_done:,} games kept"
            )
            for p in t.problems:
                print(f"       problem: {p}")
        print("tally: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
        return 1 if tally["FAILED"] else 0
    finally:
        if a.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
