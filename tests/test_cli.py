"""The command line, as a user sees it: outputs, one-line errors, exit codes."""

from __future__ import annotations

import re

import pytest
from kit import fake_game as fake
from typer.testing import CliRunner

import balance
from balance import games, results
from balance.cli import app


@pytest.fixture
def cli():
    runner = CliRunner()

    def invoke(*args: str):
        result = runner.invoke(app, [str(a) for a in args])
        assert not result.exception or isinstance(result.exception, SystemExit), result.exception
        return result

    return invoke


def test_version(cli):
    result = cli("--version")
    assert (result.exit_code, result.stdout) == (0, f"balance {balance.__version__}\n")


def test_simulate_writes_a_dataset_and_a_summary(cli, fake_config, tmp_path):
    out = tmp_path / "run"
    result = cli("simulate", fake_config, "--games", 30, "--out", out, "--chunk-size", 8)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("30 games in ")
    assert result.stdout.endswith(f"games/s), 90 rows -> {out}\n")
    manifest, rows = results.open_results(out)
    assert (manifest["status"], rows.collect().height) == ("complete", 90)


def test_simulate_default_out_dir(cli, fake_config, tmp_path, monkeypatch):
    """results/<game>-<config stem>-<date>-<time>; a second run in the same minute gets -2."""
    monkeypatch.chdir(tmp_path)
    assert cli("simulate", fake_config, "--games", 5).exit_code == 0
    assert cli("simulate", fake_config, "--games", 5).exit_code == 0
    first, second = sorted((tmp_path / "results").iterdir(), key=lambda p: len(p.name))
    stem = fake_config.stem
    assert re.fullmatch(rf"fake-{stem}-\d{{8}}-\d{{4}}", first.name), first.name
    # the same minute: "-2"; else the next minute's own name
    assert second.name == first.name + "-2" or re.fullmatch(
        rf"fake-{stem}-\d{{8}}-\d{{4}}", second.name
    )


def test_missing_config_file(cli, fake_game, tmp_path):
    result = cli("simulate", tmp_path / "nope.yaml")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"error: {tmp_path / 'nope.yaml'}: file not found\n"


def test_existing_out_dir(cli, fake_config, tmp_path):
    out = tmp_path / "run"
    assert cli("simulate", fake_config, "--out", out).exit_code == 0
    result = cli("simulate", fake_config, "--out", out)
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {out}: output directory exists and is not empty; "
        "choose another --out or pass --force to replace it\n"
    )
    assert cli("simulate", fake_config, "--out", out, "--force").exit_code == 0


@pytest.mark.parametrize("games", ["0", "-3"])
def test_bad_games(cli, fake_config, tmp_path, games):
    result = cli("simulate", fake_config, "--games", games, "--out", tmp_path / "run")
    assert (result.exit_code, result.stderr) == (
        1,
        f"error: --games must be at least 1, got {games}\n",
    )
    assert not (tmp_path / "run").exists()


def test_a_non_number_is_a_one_line_error(cli, fake_config):
    result = cli("simulate", fake_config, "--games", "many")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: Invalid value for '--games'")
    assert result.stderr.count("\n") == 1


def test_interrupted_simulation(cli, fake_game, fake_config, tmp_path):
    fake_game.interrupt_at = 3
    out = tmp_path / "run"
    result = cli("simulate", fake_config, "--out", out, "--chunk-size", 10)
    assert result.exit_code == 130
    assert result.stderr == f"interrupted: kept 20 complete games in {out}\n"
    assert results.read_manifest(out)["status"] == "interrupted"


def test_validate(cli, fake_game, tmp_path):
    good = fake.write_config(tmp_path / "good.yaml")
    bad = fake.write_config(tmp_path / "bad.yaml", rules="{bonus: 99}")
    result = cli("validate", good, bad, tmp_path / "nope.yaml")
    assert result.exit_code == 1
    assert result.stdout == f"ok: {good} (fake, 3 players, seats: plain, skilled, plain)\n"
    lines = result.stderr.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"error: {bad}: ") and "bonus" in lines[0]
    assert lines[1] == f"error: {tmp_path / 'nope.yaml'}: file not found"
    assert cli("validate", good).exit_code == 0


def test_games_lists_every_knob(cli, fake_game, monkeypatch):
    monkeypatch.setattr(games, "_GAMES", {"fake": fake.__name__})
    result = cli("games")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "fake: Fake Game, 2-4 players"
    for knob in (
        "    bonus: int (>= 0, <= 5) = 0",
        "        Points added to the first player's score",
        "    deck.aces: int (>= 0) = 4",
        "    variant: str = classic",
        "  policies.<name> (kind: skilled):",
        "    skill: int (>= 0, <= 3) = 1",
    ):
        assert knob in lines
    assert cli("games", "fake").stdout == result.stdout


def test_games_unknown_name(cli, fake_game):
    result = cli("games", "chess")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: unknown game 'chess'; known games: ")


def test_replay(cli, fake_config):
    result = cli("replay", fake_config, "--game", 4)
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == "game 4 of seed 7"
    assert cli("replay", fake_config, "--game", 4, "--seed", 9).stdout.startswith(
        "game 4 of seed 9\n"
    )


@pytest.mark.parametrize("module", ["balance", "balance.cli"])
def test_python_dash_m_runs_the_cli(module):
    """`python -m balance` and `python -m balance.cli` behave as the `balance` command."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", module, "--version"], capture_output=True, text=True, check=False
    )
    assert (out.returncode, out.stdout, out.stderr) == (0, f"balance {balance.__version__}\n", "")


def test_simulate_without_a_report_imports_no_statistics(tmp_path):
    """The warm start of `balance simulate` is a target (3 s): scipy.stats and plotly add about a
    second of imports, so only a run with --report may load them."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from balance.cli import app\n"
        f"app(['simulate', 'configs/raven_order/base.yaml', '--games', '20', '--out', "
        f"{str(tmp_path / 'run')!r}], standalone_mode=False)\n"
        "print(sorted(m for m in ('scipy.stats', 'plotly', 'balance.stats', 'balance.report') "
        "if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"
