"""`balance report` and `balance simulate --report` as a user sees them (fake game: no numba)."""

from __future__ import annotations

import re

import pytest
from kit import fake_game as fake
from typer.testing import CliRunner

from balance.cli import app

CDN_URL = re.compile(r'<script charset="utf-8" src="https://cdn\.plot\.ly/plotly-[\d.]+\.min\.js"')


@pytest.fixture
def cli():
    runner = CliRunner()

    def invoke(*args):
        result = runner.invoke(app, [str(a) for a in args])
        assert not result.exception or isinstance(result.exception, SystemExit), result.exception
        return result

    return invoke


@pytest.fixture
def run(cli, fake_config, tmp_path):
    """A 200-game results directory of the fake game (seed 7)."""
    out = tmp_path / "run"
    assert cli("simulate", fake_config, "--games", 200, "--out", out).exit_code == 0
    return out


def test_report_inlines_plotly_and_opens_offline(cli, run, tmp_path):
    out = tmp_path / "reports" / "fake.html"  # parent created
    result = cli("report", run, "-o", out)
    assert result.exit_code == 0, result.output
    assert re.fullmatch(
        rf"report -> {re.escape(str(out))} \(\d+\.\d MB; statistics \d+\.\d s, total \d+\.\d s\)\n",
        result.stdout,
    )
    page = out.read_text()
    assert "plotly.js v" in page and not CDN_URL.search(page)
    assert not re.search(r"<script[^>]+src=", page)  # nothing to fetch
    assert 4_000_000 < out.stat().st_size < 15_000_000
    for section in (
        "Verdict",
        "What matters most",
        "Provenance",
        "Win shares",
        "Seat advantage",
        "Score and game-length distributions",
        "Card diagnostics: observational",
    ):
        assert section in page
    assert "game: fake" in page  # the config as YAML


def test_cdn_report_is_small_and_references_the_cdn(cli, run, tmp_path):
    out = tmp_path / "fake.html"
    assert cli("report", run, "-o", out, "--cdn").exit_code == 0
    page = out.read_text()
    assert out.stat().st_size < 500_000
    assert CDN_URL.search(page) and 'integrity="sha384-' in page
    assert "plotly.js v" not in page


def test_several_datasets_and_a_baseline(cli, fake_config, run, tmp_path):
    other = tmp_path / "other"
    assert cli("simulate", fake_config, "--games", 200, "--seed", 8, "--out", other).exit_code == 0
    out = tmp_path / "both.html"
    result = cli("report", run, other, "--baseline", run, "-o", out)
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert "All datasets" in page
    assert "Differences against run" in page
    assert "same seed (7) and games 0..199: compared game by game" in page  # run vs itself
    assert "not paired (seed differ): compared as independent samples" in page


def test_missing_results_dir_is_one_line_exit_1(cli, tmp_path):
    result = cli("report", tmp_path / "nope", "-o", tmp_path / "r.html")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"error: {tmp_path / 'nope'}: no such results directory\n"
    assert not (tmp_path / "r.html").exists()


def test_unwritable_output_is_one_line_exit_1(cli, run, tmp_path):
    (tmp_path / "file").write_text("not a directory")
    out = tmp_path / "file" / "r.html"
    result = cli("report", run, "-o", out)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"error: --out {out}: cannot write: {tmp_path / 'file'} is not a directory\n"
    )


def test_missing_impact_file_is_one_line_exit_1(cli, run, tmp_path):
    result = cli("report", run, "--impact", tmp_path / "i.json", "-o", tmp_path / "r.html")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {tmp_path / 'i.json'}: no such impact file")
    assert result.stderr.count("\n") == 1


def test_simulate_report_writes_the_report_after_the_run(cli, fake_config, tmp_path):
    out, report = tmp_path / "run", tmp_path / "run.html"
    result = cli("simulate", fake_config, "--games", 100, "--out", out, "--report", report)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].endswith(f"300 rows -> {out}")
    assert lines[1].startswith(f"report -> {report} (")
    assert "100 games" in report.read_text()


def test_simulate_report_checks_the_output_before_playing(cli, fake_game, fake_config, tmp_path):
    (tmp_path / "file").write_text("x")
    result = cli(
        "simulate", fake_config, "--out", tmp_path / "run", "--report", tmp_path / "file" / "r.html"
    )
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and "is not a directory" in result.stderr
    assert not (tmp_path / "run").exists() and fake_game.calls == 0


def test_report_of_a_mixed_line_up_talks_about_policies(cli, fake_game, tmp_path):
    config = fake.write_config(tmp_path / "mixed.yaml", players=4, games=400)
    out = tmp_path / "run"
    assert cli("simulate", config, "--out", out).exit_code == 0
    assert cli("report", out, "-o", tmp_path / "r.html").exit_code == 0
    page = (tmp_path / "r.html").read_text()
    assert re.search(
        r"Skilled seats win [\d.]+ % ± [\d.]+ % of their seat-games against [\d.]+ % for plain",
        page,
    )
    assert "Win share per seat-game, by policy" in page
