"""CLI polish (issue 14, part 7 and part of 6): help without Python-type metavars and with real
examples, `report` without -o, `replay` of a results directory, default output names, and the
checks before a run that is too big, too long or too large for the disk."""

from __future__ import annotations

import json
import re
import shlex
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

import pytest
import typer
from typer.testing import CliRunner

from balance import results, runner
from balance.cli import EXAMPLES, _app, app
from balance.games.base import BenchSpec

ROOT = Path(__file__).parent.parent
GROUP = typer.main.get_command(app)
COMMANDS = sorted(GROUP.commands)

# typer's type labels (core.py display_type): <int>, <bool>, <path>, <list[Path]>, <a|b>, ...
TYPE_METAVAR = re.compile(
    r"<(?:int|float|str|bool|path|file|directory|datetime|uuid|list\[[^>]*\]|[^<>]* range"
    r"|[\w.]+\|[\w.|]+)(?:\.\.\.)?>"
)


@pytest.fixture
def cli():
    runner_ = CliRunner()

    def invoke(*args: object, input: str | None = None):
        result = runner_.invoke(app, [str(a) for a in args], input=input)
        assert not result.exception or isinstance(result.exception, SystemExit), result.exception
        return result

    return invoke


def _help(cli, *args: str) -> str:
    result = cli(*args, "--help")
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_shows_no_python_type_metavars(cli, command):
    text = _help(cli, *([command] if command else []))
    assert not TYPE_METAVAR.search(text), TYPE_METAVAR.search(text).group()
    if command == "simulate":  # the plain ones instead
        assert "INTEGER" in text and "DIR" in text and "--yes" in text


def test_every_command_has_examples():
    assert sorted(EXAMPLES) == COMMANDS


@pytest.mark.parametrize("command", COMMANDS)
def test_help_ends_with_examples_that_parse(cli, command):
    text = _help(cli, command)
    flat = " ".join(text.split())
    assert "Example" in text
    assert flat.index("Example") > flat.index("--help")  # after the options: at the end
    written = {  # the results directories the simulate examples write
        a.split()[a.split().index("--out") + 1] for a in EXAMPLES["simulate"] if "--out" in a
    }
    for example in EXAMPLES[command]:
        assert " ".join(example.split()) in flat
        prog, name, *args = shlex.split(example)
        assert (prog, name) == ("balance", command)
        # parse exactly as `balance` would, without running: types, required options, counts
        ctx = GROUP.commands[name].make_context(name, list(args))
        assert ctx.params
        for arg in args:
            if arg.startswith("configs/"):
                assert (ROOT / arg).is_file(), f"{example}: {arg} is not a shipped config"
            elif arg.startswith("results/") and command in ("replay", "report"):
                assert arg in written, f"{example}: no simulate example writes {arg}"


# ------------------------------------------------------------------- report without -o


@pytest.fixture
def run(cli, fake_config, tmp_path):
    out = tmp_path / "run"
    assert cli("simulate", fake_config, "--games", 40, "--seed", 9, "--out", out).exit_code == 0
    return out


def test_report_defaults_to_results_report_html(cli, run):
    result = cli("report", run)
    assert result.exit_code == 0, result.output
    assert (run / "report.html").is_file()
    assert result.stdout.startswith(f"report -> {run / 'report.html'} (")


def test_report_of_several_results_needs_o(cli, run, fake_config, tmp_path):
    other = tmp_path / "other"
    assert cli("simulate", fake_config, "--games", 20, "--out", other).exit_code == 0
    result = cli("report", run, other)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == "error: 2 results directories: name the report with -o FILE.html\n"


# ------------------------------------------------------------------- replay of a results dir


def test_replay_a_results_directory(cli, run, fake_config):
    from_run = cli("replay", run, "--game", 4)
    assert from_run.exit_code == 0, from_run.output
    assert from_run.stdout.splitlines()[0] == "game 4 of seed 9"  # the run's seed, not the config's
    assert from_run.stdout == cli("replay", fake_config, "--game", 4, "--seed", 9).stdout


def test_replay_of_a_results_directory_uses_the_resolved_config(cli, run, fake_config):
    """The manifest's config, not the file's present contents."""
    fake_config.write_text("this: [is no longer the config")
    assert cli("replay", run, "--game", 2).stdout.startswith("game 2 of seed 9\n")


def test_replay_beyond_the_run_is_one_line(cli, run):
    result = cli("replay", run, "--game", 40)
    assert (result.exit_code, result.stderr) == (
        1,
        f"error: --game 40: {run} holds games 0 to 39\n",
    )


def test_replay_of_a_directory_that_is_no_run(cli, tmp_path):
    result = cli("replay", tmp_path, "--game", 0)
    assert result.exit_code == 1
    assert result.stderr == f"error: {tmp_path}: not a results directory (no manifest.json)\n"


# ------------------------------------------------------------------- default output and paths


def test_default_out_names_the_game_the_config_and_the_minute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = SimpleNamespace(game="five_ravens")
    at = datetime(2026, 12, 1, 13, 30)
    out = runner.default_out(cfg, "configs/five_ravens/base.yaml", now=at)
    assert out == Path("results/five_ravens-base-20261201-1330")
    out.mkdir(parents=True)
    assert runner.default_out(cfg, "base.yaml", now=at) == out  # empty: still free
    (out / "x").write_text("")
    assert runner.default_out(cfg, "base.yaml", now=at) == Path(f"{out}-2")


def test_config_path_is_recorded_relative_to_the_working_directory(
    cli, fake_config, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    assert cli("simulate", fake_config.resolve(), "--games", 5, "--out", "r").exit_code == 0
    assert json.loads((tmp_path / "r" / "manifest.json").read_text())["config_path"] == "fake.yaml"


# ------------------------------------------------------------------- too many, too long, too big


def test_games_beyond_the_dataset_index_are_refused(cli, fake_config, tmp_path):
    limit = results.max_games(3)
    result = cli("simulate", fake_config, "--games", limit + 1, "--out", tmp_path / "r", "--yes")
    assert result.exit_code == 1
    assert result.stderr.startswith(
        f"error: --games {limit + 1:,} is more than a results dataset can index: at most "
        f"{limit:,} games of 3 players ("
    )
    assert result.stderr.count("\n") == 1
    assert not (tmp_path / "r").exists()


def test_max_games_follows_the_row_index():
    import polars as pl

    rows = 2**32 - 1 if pl.get_index_type() == pl.UInt32() else 2**63 - 1
    assert results.max_games(4) == rows // 4
    assert results.max_games(1) <= 2**63 - 1  # the Int64 game column (and the RNG's game index)


@pytest.fixture
def slow_game(fake_game, monkeypatch):
    """The fake game at 1 game/s: 4,000 games take 1.1 h."""
    monkeypatch.setattr(type(fake_game), "bench", BenchSpec(speed=("test", 1.0)))
    return fake_game


def test_a_run_longer_than_an_hour_is_refused_off_a_terminal(cli, slow_game, fake_config, tmp_path):
    out = tmp_path / "r"
    result = cli("simulate", fake_config, "--games", 4000, "--out", out)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "error: 4,000 games of fake take about 1.1 h at 1 games/s; pass --yes to run anyway\n"
    )
    assert not out.exists()
    assert cli("simulate", fake_config, "--games", 4000, "--out", out, "--yes").exit_code == 0


def test_a_run_longer_than_an_hour_asks_on_a_terminal(
    cli, slow_game, fake_config, tmp_path, monkeypatch
):
    monkeypatch.setattr(_app, "_interactive", lambda: True)
    out = tmp_path / "r"
    declined = cli("simulate", fake_config, "--games", 4000, "--out", out, input="n\n")
    assert declined.exit_code == 1 and "Run anyway?" in declined.stdout
    assert declined.stderr == "error: aborted\n"
    assert not out.exists()
    accepted = cli("simulate", fake_config, "--games", 4000, "--out", out, input="y\n")
    assert accepted.exit_code == 0, accepted.output
    assert results.read_manifest(out)["games_done"] == 4000


def test_a_run_bigger_than_the_free_disk_is_refused(cli, fake_config, tmp_path, monkeypatch):
    monkeypatch.setattr(
        runner.write.shutil, "disk_usage", lambda p: SimpleNamespace(total=10**6, used=0, free=1000)
    )
    out = tmp_path / "sub" / "r"
    result = cli("simulate", fake_config, "--games", 50, "--out", out)
    assert result.exit_code == 1
    need = 50 * 3 * runner.BYTES_PER_ROW
    assert result.stderr == (
        f"error: 50 games write about {runner.write._size(need)}, more than the 0.0 MB free in "
        f"{tmp_path}; pass --yes to run anyway\n"
    )
    assert cli("simulate", fake_config, "--games", 50, "--out", out, "--yes").exit_code == 0


def test_a_small_run_asks_nothing(fake_game):
    from balance.config import load_config

    cfg = load_config(ROOT / "configs" / "five_ravens" / "base.yaml")
    assert runner.run_costs(cfg, games=100_000, out=Path("results/x")) == []
    [hours] = runner.run_costs(cfg, games=10**9, out=Path("results/x"))[:1]
    assert hours.startswith("1,000,000,000 games of five_ravens take about ")


def test_the_reports_session_regenerates_the_published_reports():
    text = (ROOT / "noxfile.py").read_text()
    assert "def reports(" in text
    for game, (config, games, impact) in {
        "five_ravens": ("configs/five_ravens/base.yaml", 1_000_000, 100_000),
        "raven_order": ("configs/raven_order/base.yaml", 200_000, 200_000),
    }.items():
        assert f'"{game}": ("{config}", {games:_}, {impact:_})' in text
        assert (ROOT / config).is_file()
    assert '"--ladder", str(ladder)' in text  # each report's Skill section


def test_a_report_carries_relative_paths_only(cli, fake_config, tmp_path, monkeypatch):
    """Paths under the working directory are recorded and shown relative to it, however given
    (what `nox -s reports` relies on for the published reports)."""
    monkeypatch.chdir(tmp_path)
    report = tmp_path / "page.html"
    result = cli(
        "simulate",
        fake_config.resolve(),
        "--games",
        50,
        "--out",
        tmp_path / "run",
        "--report",
        report,
    )
    assert result.exit_code == 0, result.output
    html = report.read_text()
    assert str(tmp_path) not in html
    assert "<dd>run</dd>" in html and "fake.yaml (hash" in html
    assert cli("report", (tmp_path / "run").resolve(), "-o", report).exit_code == 0
    assert str(tmp_path) not in report.read_text()
