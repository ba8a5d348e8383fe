"""Real signals to real runs: Ctrl-C at random moments, and kill -9.

Each test starts ``python -m balance simulate`` on Five Ravens in a subprocess (numba's cache is
warm after the first, so each takes a few seconds). The SIGINT trials are those of
benchmarks/sigint_torture.py, which runs 20 of them and prints the tally; here a few seeds
spread over one run: the start-up, the run and its end.
"""

from __future__ import annotations

import importlib.util
import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from balance import results
from balance.cli import app

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "configs/five_ravens/base.yaml"
TRIALS = 5
GAMES, CHUNK = 60_000, 1_500  # 40 parts

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="signals to subprocesses, /proc for the timing"
)


def _torture():
    spec = importlib.util.spec_from_file_location(
        "sigint_torture", ROOT / "benchmarks/sigint_torture.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


torture = _torture()


@pytest.fixture(scope="module")
def window(tmp_path_factory):
    """Seconds of one warm run (after a first run that warms numba's cache)."""
    return torture.warm_up(tmp_path_factory.mktemp("warm"), games=GAMES, chunk_size=CHUNK)


@pytest.mark.parametrize("index", range(TRIALS))
def test_ctrl_c_at_any_moment_leaves_a_consistent_dataset(window, index, tmp_path):
    t = torture.trial(7, index, TRIALS, window, tmp_path, games=GAMES, chunk_size=CHUNK)
    assert not t.problems, (t.delay, t.second, t.problems, t.stderr)
    assert t.returncode in (0, 130)
    if t.outcome == "interrupted":
        assert _without_kernel_lines(t.stderr) == (
            f"interrupted: kept {t.games_done:,} complete games in {t.out}\n"
        )


def _cli(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert not result.exception or isinstance(result.exception, SystemExit), result.exception
    return result


def test_a_run_killed_outright_reads_as_did_not_finish(tmp_path):
    out = tmp_path / "run"
    proc = subprocess.Popen(
        torture.command(out, games=10_000_000, chunk_size=CHUNK),
        cwd=ROOT,
        env=torture._env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if json.loads((out / "manifest.json").read_text())["games_done"] >= 3 * CHUNK:
                    break
            except (OSError, ValueError, KeyError):
                pass  # not written yet
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read()
        recorded = json.loads((out / "manifest.json").read_text())
        assert recorded["status"] == "running"
        assert results.read_manifest(out)["status"] == "running"  # alive: running, really
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()

    # The manifest still says running; the readers know better.
    assert json.loads((out / "manifest.json").read_text())["status"] == "running"
    manifest, rows = results.open_results(out)
    process = f"(pid {proc.pid} on host {socket.gethostname()}, started "
    assert manifest["status"] == "killed"
    assert manifest["finished"] is None
    assert results.status_text(manifest).startswith(
        f"did not finish: the writing process {process}"
    )
    done = manifest["games_done"]
    assert done >= 3 * CHUNK
    frame = rows.select("game").collect()
    assert frame.height == done * 4 and frame["game"].max() == done - 1

    # Its partial data makes a report that says so.
    page = tmp_path / "killed.html"
    result = _cli("report", out, "-o", page)
    assert result.exit_code == 0, result.output
    html = page.read_text()
    assert f"This run <b>did not finish</b>, its process {process}" in html
    assert f"{done:,} of 10,000,000 requested (killed)" in html

    # And --force replaces it (a stray temporary part of the killed writer included).
    result = _cli("simulate", CONFIG, "--games", 3000, "--out", out, "--force")
    assert result.exit_code == 0, result.output
    manifest = results.read_manifest(out)
    assert (manifest["status"], manifest["games_done"]) == ("complete", 3000)
    assert not list(out.rglob("*.tmp"))


def test_ctrl_c_while_the_kernels_load_writes_nothing(fake_game, fake_config, tmp_path):
    out = tmp_path / "run"
    assert _cli("simulate", fake_config, "--games", 20, "--out", out).exit_code == 0
    before = (out / "manifest.json").read_text()
    play = type(fake_game).play

    def interrupted_load(tables, seed, first_game, n_games):
        if n_games == 0:  # the warm-up, before --out is touched
            raise KeyboardInterrupt
        return play(fake_game, tables, seed, first_game, n_games)

    fake_game.play = interrupted_load
    try:
        result = _cli("simulate", fake_config, "--out", out, "--force")
    finally:
        del fake_game.play
    assert result.exit_code == 130
    assert _without_kernel_lines(result.stderr) == (
        f"interrupted before the first game: nothing written to {out}\n"
    )
    assert (out / "manifest.json").read_text() == before


def test_ctrl_c_during_the_clis_imports_is_quiet():
    """SIGINT while balance/cli/ imports typer, rich, pydantic...: exit 130, no traceback."""
    script = (
        "import os, signal, sys\n"
        "import balance\n"
        "class Trip:  # SIGINT as the CLI starts importing typer\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'typer':\n"
        "            os.kill(os.getpid(), signal.SIGINT)\n"
        "sys.meta_path.insert(0, Trip())\n"
        "import balance.cli\n"
        "print('imported')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=torture._env(), capture_output=True, text=True
    )
    assert (out.returncode, out.stdout, out.stderr) == (130, "", "")


def _without_kernel_lines(text: str) -> str:
    """stderr without the kernels' loading/compiling lines (what every warm or cold start says)."""
    keep = [
        x
        for x in text.splitlines(keepends=True)
        if not x.startswith(("loading ", "loaded ", "compiling ", "compiled "))
    ]
    return "".join(keep)
