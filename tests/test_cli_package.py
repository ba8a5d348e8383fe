"""The CLI package: commands registered in the order the help lists them, short command bodies,
and the one interrupt context (``_app.stopping``) that words every stop."""

from __future__ import annotations

import ast
import json
import signal
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from balance import errors, results, runner
from balance.cli import _app, app
from balance.experiments.sweep import SweepInterrupted

CLI = Path(__file__).resolve().parent.parent / "balance" / "cli"
ORDER = [
    "simulate", "validate", "verify", "games", "replay", "bench",
    "impact", "compare", "check", "sweep", "report", "tune", "ladder", "census", "export", "watch",
]  # fmt: skip
MAX_BODY = 45  # lines of a command's body after its docstring: "about 40"


def test_commands_register_in_the_helps_order():
    assert list(typer.main.get_command(app).commands) == ORDER


def _command_bodies() -> list[tuple[str, int]]:
    """(command, lines of its body after the docstring) for every command module."""
    bodies = []
    for path in sorted(CLI.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and any(
                "command" in ast.unparse(d) for d in node.decorator_list
            ):
                body = node.body[1:] if ast.get_docstring(node) is not None else node.body
                bodies.append((node.name, body[-1].end_lineno - body[0].lineno + 1))
    return bodies


def test_every_command_body_is_short():
    bodies = dict(_command_bodies())
    assert len(bodies) == len(ORDER)
    assert {name: n for name, n in bodies.items() if n > MAX_BODY} == {}


@pytest.fixture
def stop(request):
    """A stop by the signal named in the test's parameter (SIGINT: plain Ctrl-C)."""
    errors.forget_stops()
    errors.note_stop(getattr(request, "param", signal.SIGINT))
    yield
    errors.forget_stops()


def _stopped(raise_, capsys, **options) -> tuple[int, str]:
    with pytest.raises(typer.Exit) as e, _app.stopping(**options):
        raise raise_
    return e.value.exit_code, capsys.readouterr().err


def test_a_run_stopped_while_writing_says_the_games_kept(stop, capsys):
    e = runner.Interrupted(Path("results/r"), 12_345)
    assert _stopped(e, capsys, nothing=": ignored") == (
        130,
        "interrupted: kept 12,345 complete games in results/r\n",
    )


def test_a_sweep_stopped_says_its_points_and_how_to_resume(stop, capsys):
    e = SweepInterrupted(Path("s"), 1, 4, "players=3 at 25 games")
    assert _stopped(e, capsys, resume="run the same command with --out s") == (
        130,
        "interrupted: 1 of 4 points complete in s (players=3 at 25 games kept in its "
        "directory); run the same command with --out s to resume\n",
    )


@pytest.mark.parametrize("stop", [signal.SIGTERM], indirect=True)
def test_a_plain_stop_says_nothing_written_and_names_its_signal(stop, capsys):
    assert _stopped(KeyboardInterrupt(), capsys, nothing=": nothing written to x.yaml") == (
        143,
        "interrupted by SIGTERM: nothing written to x.yaml\n",
    )


def test_a_plain_stop_without_words_only_exits(stop, capsys):
    assert _stopped(KeyboardInterrupt(), capsys) == (130, "")


def test_other_errors_pass_through(capsys):
    with pytest.raises(ValueError), _app.stopping(nothing=": nothing"):
        raise ValueError("not a stop")
    assert capsys.readouterr().err == ""


def test_a_resume_stopped_while_the_kernels_load_leaves_the_run_as_it_was(
    fake_game, fake_config, tmp_path
):
    cli = CliRunner()
    out = tmp_path / "run"
    args = ["simulate", str(fake_config), "--games", "50", "--chunk-size", "8", "--out", str(out)]
    assert cli.invoke(app, args).exit_code == 0
    m = json.loads((out / "manifest.json").read_text())
    m.update(status="interrupted", games_done=8, parts=m["parts"][:1])
    (out / "manifest.json").write_text(json.dumps(results.seal(m)))
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    play = type(fake_game).play

    def interrupted_load(tables, seed, first_game, n_games):
        if n_games == 0:  # the warm-up, before the run's directory is touched
            raise KeyboardInterrupt
        return play(fake_game, tables, seed, first_game, n_games)

    fake_game.play = interrupted_load
    try:
        result = cli.invoke(app, ["simulate", "--resume", str(out)])
    finally:
        del fake_game.play
    assert (result.exit_code, result.stdout) == (130, "")
    assert result.stderr.splitlines()[-1] == (
        f"interrupted before the first game of this session: {out} as it was"
    )
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
