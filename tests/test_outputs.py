"""Every single-file output of every command (balance/outputs.py), as a user meets it.

A path that is no place for a file (a directory, a FIFO, a device, a path under a regular file)
is refused with one line naming the option and the path, exit 1 (2 for ``check``), before any
kernel loads or game plays: ``runner.prepare`` and ``runner.play_chunks`` fail the test if
called, and the fake game counts its games. A FIFO is never opened (a deadline turns a hang into
a failure), a device node is never replaced (it is still a device afterwards: the tests run as
root, who could replace it). A full disk is one line that names the path and keeps the old file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from kit import fake_game as fake
from typer.testing import CliRunner

from balance import outputs, runner
from balance.cli import app
from balance.outputs import OutputError, check_output_file, write_atomic

ROOT = Path(__file__).parent.parent
CI_SPEC = ROOT / "configs" / "ci" / "five_ravens.yaml"
DEVICE = Path("/dev/null")


class _Hang(BaseException):
    """A command still running at its deadline (blocked opening a FIFO, say). Not an Exception,
    so that no handler of the command turns it into an error line."""


@contextlib.contextmanager
def deadline(seconds: int = 60):
    """Raise _Hang in the test if the block runs longer than ``seconds`` (an open() blocked on a
    FIFO is interrupted by the alarm)."""

    def hang(signum, frame):
        raise _Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def cli(*args: object):
    with deadline():
        result = CliRunner().invoke(app, [str(a) for a in args])
    assert not result.exception or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


@pytest.fixture
def no_games(monkeypatch, fake_game):
    """From here on, loading kernels or playing a game fails the test."""
    tried: list[str] = []

    def refuse(name):
        def call(*args, **kwargs):
            tried.append(name)
            raise AssertionError(f"runner.{name} was called: a game was about to be played")

        return call

    # Where the commands look them up: the runner's API, and a run's own module.
    for module in (runner, runner.write):
        monkeypatch.setattr(module, "prepare", refuse("prepare"))
        monkeypatch.setattr(module, "play_chunks", refuse("play_chunks"))
    fake_game.reset()
    yield tried
    assert tried == [] and fake_game.calls == 0 and fake_game.compiled == 0


@pytest.fixture
def results(fake_config, tmp_path):
    """A 200-game results directory of the fake game."""
    out = tmp_path / "run"
    result = cli("simulate", fake_config, "--games", 200, "--out", out)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def inputs(fake_config, tmp_path):
    """The other files the commands read: a second config, a check spec, a variants file."""
    fake.write_config(tmp_path / "bonus.yaml", rules="{bonus: 2}")
    (tmp_path / "spec.yaml").write_text(
        "batch: 200\nmax_games: 2000\nchecks:\n  - config: fake.yaml\n    assertions:\n"
        "      - {metric: mean_turns, within: [19.5, 1]}\n"
    )
    (tmp_path / "v.yaml").write_text("- {name: big, patch: {rules: {bonus: 2}}}\n")
    return tmp_path


# Each command's output option: (its command line before the output path, {t} the test's
# folder; the option as messages name it; the suffix the output must have; a user error's exit
# code).
COMMANDS = {
    "report -o": ("report {t}/run -o", "--out", ".html", 1),
    "simulate --report": (
        "simulate {t}/fake.yaml --games 200 --out {t}/new --report",
        "--report",
        ".html",
        1,
    ),
    "sweep --report": (
        "sweep {t}/fake.yaml --over rules.bonus=0,5 --games 200 --out {t}/sw --report",
        "--report",
        ".html",
        1,
    ),
    "compare --report": (
        "compare {t}/fake.yaml {t}/bonus.yaml --games 200 --report",
        "--report",
        ".html",
        1,
    ),
    "impact --out": (
        "impact {t}/fake.yaml --variants {t}/v.yaml --games 200 --out",
        "--out",
        ".json",
        1,
    ),
    "bench --json": (
        "bench five_ravens --games 1000 --no-cold --repeats 1 --json",
        "--json",
        ".json",
        1,
    ),
    "check --junit": ("check {t}/spec.yaml --junit", "--junit", ".xml", 2),
    "replay --html": ("replay {t}/fake.yaml --game 0 --html", "--html", ".html", 1),
    "tune --out": (
        "tune {t}/fake.yaml --param rules.bonus=0..5 --target mean_score=3 --games 3000 --out",
        "--out",
        ".yaml",
        1,
    ),
}


def _args(command: str, t: Path) -> list[str]:
    return COMMANDS[command][0].format(t=t).split()


def _directory(t: Path, suffix: str) -> Path:
    (t / f"dir{suffix}").mkdir()
    return t / f"dir{suffix}"


def _fifo(t: Path, suffix: str) -> Path:
    os.mkfifo(t / f"fifo{suffix}")
    return t / f"fifo{suffix}"


def _device(t: Path, suffix: str) -> Path:
    """The device itself, or a symlink to it with the suffix the option asks for."""
    link = t / f"device{suffix}"
    link.symlink_to(DEVICE)
    return link


def _under_a_file(t: Path, suffix: str) -> Path:
    (t / "somefile").write_text("a regular file\n")
    return t / "somefile" / f"x{suffix}"


BAD_PATHS = {
    "directory": (_directory, "is a directory; name a file to write"),
    "fifo": (_fifo, "is a FIFO (named pipe), not a regular file; name a file to write"),
    "device": (_device, "is a character device, not a regular file; name a file to write"),
    "under a file": (_under_a_file, "cannot write: {t}/somefile is not a directory"),
}


def _tree(t: Path) -> dict[str, float]:
    return {str(p.relative_to(t)): p.lstat().st_mtime for p in [t, *t.rglob("*")]}


@pytest.mark.parametrize("bad", BAD_PATHS)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_bad_output_path_is_refused_before_any_game(
    command, bad, results, inputs, tmp_path, request
):
    _, option, suffix, code = COMMANDS[command]
    make, problem = BAD_PATHS[bad]
    out = make(tmp_path, suffix)
    before = _tree(tmp_path)
    request.getfixturevalue("no_games")
    result = cli(*_args(command, tmp_path), out)
    assert (result.exit_code, result.stdout) == (code, ""), result.output
    assert result.stderr.startswith(f"error: {option} {out}: {problem.format(t=tmp_path)}")
    assert result.stderr.count("\n") == 1 and result.stderr.endswith("\n")
    assert _tree(tmp_path) == before  # nothing written, nothing removed
    assert stat.S_ISCHR(DEVICE.lstat().st_mode)  # the device node is still one
    if bad == "device":
        assert out.is_symlink() and os.readlink(out) == str(DEVICE)


@pytest.mark.parametrize("command", ["report -o", "check --junit", "replay --html"])
def test_a_device_given_directly_is_refused_and_stays_a_device(command, results, inputs, no_games):
    _, option, _, code = COMMANDS[command]
    for device in (Path("/dev/full"), DEVICE):
        result = cli(*_args(command, inputs), device)
        assert result.exit_code == code
        assert result.stderr == (
            f"error: {option} {device}: is a character device, not a regular file; "
            "name a file to write\n"
        )
        assert stat.S_ISCHR(device.lstat().st_mode)


def test_a_results_directory_and_its_own_files_are_no_outputs(results, inputs, no_games):
    t = inputs
    result = cli("report", results, "-o", results)
    assert result.stderr == (
        f"error: --out {results}: is a results directory; name a file to write, "
        f"e.g. {results}/report.html\n"
    )
    for own in (results / "manifest.json", results / "games" / "part-00000.parquet"):
        kept = own.read_bytes()
        result = cli("report", results, "-o", own)
        assert result.exit_code == 1
        assert result.stderr == (
            f"error: --out {own}: is a file the results directory {results} keeps; "
            "name another file to write\n"
        )
        assert own.read_bytes() == kept
    # a run about to be made: its report may not take the directory's place or its manifest
    new = t / "new"
    for page in (new, new / "manifest.json"):
        result = cli("simulate", t / "fake.yaml", "--games", 200, "--out", new, "--report", page)
        assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.stderr
        assert result.stderr.startswith(f"error: --report {page}: is ")
    assert not new.exists()


@pytest.mark.parametrize(
    ("args", "output", "what"),
    [
        (["check", "{t}/spec.yaml", "--junit"], "{t}/spec.yaml", "the check spec"),
        (["check", "{t}/spec.yaml", "--junit"], "{t}/fake.yaml", "a config the spec names"),
        (["impact", "{t}/fake.yaml", "--out"], "{t}/link.json", "the config ({t}/fake.yaml)"),
        (
            ["impact", "{t}/fake.yaml", "--variants", "{t}/v.yaml", "--out"],
            "{t}/v.yaml",
            "the variants file --variants",
        ),
        (["compare", "{t}/fake.yaml", "{t}/bonus.yaml", "--report"], "{t}/bonus.yaml", "config B"),
        (
            [
                "tune",
                "{t}/child.yaml",
                "--param",
                "rules.bonus=0..5",
                "--target",
                "mean_score=3",
                "--out",
            ],
            "{t}/fake.yaml",
            "a config the tuned one extends",
        ),
        (["report", "{t}/run", "--impact", "{t}/i.json", "-o"], "{t}/i.json", "the impact file"),
        (["report", "{t}/run", "-o"], "{t}/run/variants.json", "the card impact the report reads"),
        (
            ["simulate", "{t}/fake.yaml", "--out", "{t}/new", "--report"],
            "{t}/new/variants.json",
            "the card impact the report reads",
        ),
        (
            ["bench", "five_ravens", "--config", "{t}/fake.yaml", "--json"],
            "{t}/fake.yaml",
            "the base config",
        ),
    ],
)
def test_an_input_is_no_output(args, output, what, results, inputs, no_games):
    t = inputs
    (t / "link.json").symlink_to(t / "fake.yaml")  # the same file by another name
    (t / "child.yaml").write_text("extends: fake.yaml\nplayers: 2\nseats: [plain, skilled]\n")
    (t / "i.json").write_text("{}\n")
    kept = {p: p.read_bytes() for p in t.glob("*.*") if p.is_file()}
    out = output.format(t=t)
    result = cli(*[a.format(t=t) for a in args], out)
    option = "--out" if args[-1] == "-o" else args[-1]
    assert result.exit_code == (2 if args[0] == "check" else 1), result.output
    assert result.stderr.startswith(f"error: {option} {out}: is {what.format(t=t)}")
    assert result.stderr.endswith("; name another file to write\n")
    assert {p: p.read_bytes() for p in kept} == kept


def _unwritable(monkeypatch, directory: Path) -> None:
    """``directory`` may not be written (as on a read-only mount: chmod does not stop root)."""
    access = os.access

    def no_writes(path, mode, **kwargs):
        return access(path, mode, **kwargs) and not (Path(path) == directory and mode & os.W_OK)

    monkeypatch.setattr(os, "access", no_writes)


def test_reports_variants_file_is_checked_before_its_games(results, monkeypatch, no_games):
    """`balance report RESULTS -o elsewhere` plays the card impact into RESULTS/variants.json: a
    results directory it cannot write (read-only, say) is refused before the games, with the
    option that leaves the card impact out, which then works."""
    _unwritable(monkeypatch, results)
    page = results.parent / "page.html"
    result = cli("report", results, "-o", page)
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {results}/variants.json: cannot write: permission denied in {results}; the "
        "report's card impact is written there (leave it out with --no-impact)\n"
    )
    assert not page.exists()
    assert cli("report", results, "-o", page, "--no-impact").exit_code == 0
    assert page.is_file()


def test_simulate_report_checks_the_variants_file_of_a_resumed_run(results, monkeypatch, no_games):
    _unwritable(monkeypatch, results)
    result = cli("simulate", "--resume", results, "--report", results.parent / "page.html")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {results}/variants.json: cannot write: ")
    assert result.stderr.endswith("(leave it out with --set report.impact_seconds=0)\n")


# ---- writing ------------------------------------------------------------------------------------


def _full_disk(monkeypatch, code: int = errno.ENOSPC):
    """os.write into a temporary output file writes half, then fails with ``code``."""
    write = os.write

    def full(fd, data):
        if ".tmp" not in os.readlink(f"/proc/self/fd/{fd}"):
            return write(fd, data)
        write(fd, bytes(data[: len(data) // 2]))
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "write", full)


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (errno.ENOSPC, "disk full (No space left on device)"),
        (errno.EDQUOT, "disk quota exceeded (Disk quota exceeded)"),
        (errno.EROFS, "read-only file system (Read-only file system)"),
        (errno.EACCES, "permission denied (Permission denied)"),
        (errno.EIO, "cannot write (Input/output error)"),
    ],
)
def test_a_failed_write_keeps_the_old_file_and_says_why(tmp_path, monkeypatch, code, words):
    out = tmp_path / "x.html"
    out.write_text("the old page")
    _full_disk(monkeypatch, code)
    with pytest.raises(OutputError) as e:
        write_atomic(out, "a new page" * 10_000)
    assert str(e.value) == (
        f"{out}: {words} while writing; nothing was written, the old file is kept"
    )
    assert out.read_text() == "the old page"
    assert sorted(tmp_path.iterdir()) == [out]  # no temporary file left behind
    new = tmp_path / "new.html"
    with pytest.raises(OutputError) as e:
        write_atomic(new, "a new page")
    assert str(e.value) == f"{new}: {words} while writing; nothing was written"
    assert sorted(tmp_path.iterdir()) == [out]


def test_a_full_disk_at_the_end_of_a_check_is_one_line_and_keeps_the_old_junit(inputs, monkeypatch):
    junit = inputs / "check.xml"
    junit.write_text("<old/>\n")
    _full_disk(monkeypatch)
    result = cli("check", inputs / "spec.yaml", "--junit", junit)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        f"error: {junit}: disk full (No space left on device) while writing; nothing was "
        "written, the old file is kept"
    )
    assert junit.read_text() == "<old/>\n"
    assert sorted(p.name for p in inputs.iterdir() if p.name.startswith(".")) == []


def test_write_atomic_replaces_whole_files_and_keeps_links_and_modes(tmp_path):
    out = tmp_path / "deep" / "er" / "x.json"
    assert write_atomic(out, "text é") == out  # parents created
    assert out.read_bytes() == "text é".encode()
    out.chmod(0o640)
    write_atomic(out, b"\x00bytes")
    assert out.read_bytes() == b"\x00bytes" and stat.S_IMODE(out.stat().st_mode) == 0o640
    link = tmp_path / "link.json"
    link.symlink_to(out)
    write_atomic(link, "through the link")
    assert link.is_symlink() and out.read_text() == "through the link"
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "elsewhere" / "y.json")
    write_atomic(dangling, "made")
    assert dangling.is_symlink() and (tmp_path / "elsewhere" / "y.json").read_text() == "made"


def test_write_atomic_checks_the_temporary_file_before_the_rename(tmp_path):
    out = tmp_path / "x.yaml"
    out.write_text("old\n")
    seen = []

    def check(tmp: Path) -> None:
        seen.append(tmp.read_text())
        raise OutputError("refused")

    with pytest.raises(OutputError, match="refused"):
        write_atomic(out, "new\n", check=check)
    assert seen == ["new\n"] and out.read_text() == "old\n"
    assert sorted(tmp_path.iterdir()) == [out]


def test_write_atomic_refuses_what_appeared_since_the_check(tmp_path):
    """A FIFO or a device put where the output goes after the command started is neither
    opened nor replaced."""
    fifo = tmp_path / "fifo.html"
    os.mkfifo(fifo)
    link = tmp_path / "dev.html"
    link.symlink_to(DEVICE)
    with deadline():
        for path, kind in ((fifo, "a FIFO (named pipe)"), (link, "a character device")):
            with pytest.raises(OutputError) as e:
                write_atomic(path, "page")
            assert str(e.value) == f"{path}: is {kind}, not a regular file; nothing was written"
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and stat.S_ISCHR(DEVICE.lstat().st_mode)


def test_check_output_file_names_what_is_wrong(tmp_path, monkeypatch):
    ok = tmp_path / "new" / "dir" / "x.html"
    assert check_output_file(ok, "--out") == ok  # parents are created on writing
    assert not (tmp_path / "new").exists()
    sock_path = tmp_path / "s.html"
    import socket

    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(sock_path))
        with pytest.raises(OutputError, match=r"^--out .*s\.html: is a socket, not a regular"):
            check_output_file(sock_path, "--out")
    loop = tmp_path / "loop.html"
    loop.symlink_to(loop)
    with pytest.raises(OutputError, match=r"loop\.html: cannot write: Too many levels"):
        check_output_file(loop, "--out")
    monkeypatch.setattr(os, "statvfs", lambda p: type("Vfs", (), {"f_flag": os.ST_RDONLY})())
    monkeypatch.setattr(os, "access", lambda p, mode: False)
    with pytest.raises(OutputError) as e:
        check_output_file(ok, "--report")
    assert str(e.value) == f"--report {ok}: cannot write: read-only file system in {tmp_path}"
    with pytest.raises(OutputError) as e:
        check_output_file(ok, "", fix="pass --no-impact")
    assert (
        str(e.value) == f"{ok}: cannot write: read-only file system in {tmp_path}; pass --no-impact"
    )


def test_no_module_writes_an_output_but_through_outputs():
    """Each command's single files go through write_atomic: no other module of those it owns
    opens one for writing or renames one into place."""
    owners = [
        "report/write.py", "report/sweep_page.py", "experiments/junit.py", "bench.py",
        "experiments/impact.py", "experiments/tune.py", "experiments/tune_answer.py",
        "impact_file.py", "runs.py",
    ]  # fmt: skip
    owners += [f"cli/{p.name}" for p in sorted((ROOT / "balance" / "cli").glob("*.py"))]
    for name in owners:
        text = (ROOT / "balance" / name).read_text()
        for call in (
            "write_text(",
            "write_bytes(",
            "os.replace(",
            '"w"',
            "'w'",
            "write_parquet(tmp",
        ):
            assert call not in text, f"balance/{name} writes with {call}"
    assert outputs.write_atomic is write_atomic


# ---- as the issue typed it ----------------------------------------------------------------------


def _balance(*args: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real command in its own process, killed after 120 s (a hang fails, not blocks)."""
    return subprocess.run(
        ["timeout", "120", sys.executable, "-m", "balance", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )


def test_check_junit_fifo_and_report_dev_full_in_a_process(tmp_path, results):
    fifo = tmp_path / "check.xml"
    os.mkfifo(fifo)
    done = _balance("check", CI_SPEC, "--junit", fifo, cwd=tmp_path)
    assert done.returncode == 2, done.stderr  # 124 if it hung
    assert done.stderr == (
        f"error: --junit {fifo}: is a FIFO (named pipe), not a regular file; name a file to write\n"
    )
    assert done.stdout == "" and stat.S_ISFIFO(fifo.lstat().st_mode)
    done = _balance("report", results, "-o", "/dev/full", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stderr == (
        "error: --out /dev/full: is a character device, not a regular file; name a file to write\n"
    )
    assert stat.S_ISCHR(Path("/dev/full").lstat().st_mode)
