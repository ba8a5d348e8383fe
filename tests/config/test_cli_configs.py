"""Every bad config through the command line, as a user meets it (issue 2: exact message, exit 1,
no traceback, nothing written), and the shipped Five Ravens configs end to end."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from kit.configs import write
from test_config import BAD, DATA
from typer.testing import CliRunner

from balance import results
from balance.cli import app

ROOT = Path(__file__).parent.parent.parent
SHIPPED = sorted((ROOT / "configs" / "five_ravens").glob("*.yaml"))


def run(*args: object):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert not result.exception or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.mark.parametrize(("text", "expected"), BAD.values(), ids=BAD.keys())
@pytest.mark.parametrize("command", ["validate", "simulate"])
def test_bad_config_is_one_line_exit_1_and_writes_nothing(tmp_path, command, text, expected):
    path = write(tmp_path, "x.yaml", text)
    out = tmp_path / "out"
    args = [command, path] + (["--out", out, "--games", 10] if command == "simulate" else [])
    result = run(*args)
    assert result.exit_code == 1
    assert result.stderr == f"error: {path}: {expected}\n"
    assert "Traceback" not in result.output
    assert not out.exists()


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("malformed.yaml", "invalid YAML at line"),
        ("cycle_a.yaml", "extends cycle: "),
        ("extends_missing.yaml", "extends: file not found: "),
    ],
)
def test_bad_files_through_the_cli(name, expected):
    result = run("validate", DATA / name)
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and expected in result.stderr


def test_missing_config_file(tmp_path):
    result = run("simulate", tmp_path / "nope.yaml", "--games", 5)
    assert (result.exit_code, result.stderr) == (
        1,
        f"error: {tmp_path / 'nope.yaml'}: file not found\n",
    )


def test_bad_config_never_touches_an_existing_run(tmp_path):
    """--force with a bad config must not remove the old results (nothing written is lost)."""
    good = ROOT / "configs" / "five_ravens" / "two_players.yaml"
    out = tmp_path / "run"
    assert run("simulate", good, "--games", 20, "--out", out).exit_code == 0
    before = sorted(p.name for p in (out / "games").iterdir())
    bad = write(tmp_path, "bad.yaml", BAD["zero games"][0])
    result = run("simulate", bad, "--out", out, "--force")
    assert result.exit_code == 1
    assert sorted(p.name for p in (out / "games").iterdir()) == before
    assert results.read_manifest(out)["status"] == "complete"


@pytest.mark.parametrize("config", SHIPPED, ids=lambda p: p.name)
def test_shipped_configs_validate(config):
    result = run("validate", config)
    assert result.exit_code == 0 and result.stdout.startswith(f"ok: {config}")


def test_simulate_real_game_dataset(tmp_path):
    """One row per (game, seat) with the DESIGN.md columns and per-card telemetry."""
    out = tmp_path / "run"
    result = run("simulate", ROOT / "configs/five_ravens/base.yaml", "--games", 300, "--out", out)
    assert result.exit_code == 0, result.output
    manifest, lazy = results.open_results(out)
    df = lazy.collect()
    assert df.height == 1200 and manifest["games_done"] == 300
    for col in ["game", "seat", "policy", "team", "score", "rank", "win", "turns", "end_reason"]:
        assert col in df.columns
    for col in ["drawn__seven", "played__seven", "thief__nine", "stolen__gem", "captured__six"]:
        assert df[col].dtype == pl.UInt8
    wins = df.group_by("game").agg(pl.col("win").sum())
    assert wins["win"].min() == pytest.approx(1.0) and wins["win"].max() == pytest.approx(1.0)


@pytest.mark.parametrize(("threads", "chunk"), [(1, 64), (2, 37), (2, 1000)])
def test_dataset_is_the_same_whatever_threads_and_chunks(tmp_path, threads, chunk):
    """DESIGN.md determinism: game i of seed s is the same game for any chunking or threads."""
    config = ROOT / "configs/five_ravens/random_vs_greedy.yaml"
    ref = tmp_path / "ref"
    assert run("simulate", config, "--games", 200, "--seed", 7, "--out", ref).exit_code == 0
    out = tmp_path / "out"
    result = run(
        "simulate",
        config,
        "--games",
        200,
        "--seed",
        7,
        "--out",
        out,
        "--threads",
        threads,
        "--chunk-size",
        chunk,
    )
    assert result.exit_code == 0, result.output
    a = results.open_results(ref)[1].collect()
    b = results.open_results(out)[1].collect()
    assert a.equals(b)
    other = tmp_path / "other"
    assert run("simulate", config, "--games", 200, "--seed", 8, "--out", other).exit_code == 0
    assert not a.equals(results.open_results(other)[1].collect())
