"""Config errors name the culprit (issue 26): a ``--set`` is blamed for its own value, also when
the key at fault is one the file wrote (``--set game=raven_order`` makes base.yaml's
``rules.rounds`` unknown); an ``extends:`` to something that is no YAML config is the error of the
file that extends, naming the target without quoting it; a FIFO or a device is refused before it
is opened, as a config, as an ``extends:`` target and as any YAML file read through
balance/config/."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kit.configs import write
from test_config import VALID
from typer.testing import CliRunner

from balance.cli import app
from balance.config import ConfigError, config_from_dict, load_config, loading
from balance.config.loading import Provenance, load_yaml, read_yaml
from balance.config.overrides import apply_to, parse_override

ROOT = Path(__file__).resolve().parent.parent.parent
BASE = "configs/five_ravens/base.yaml"  # as a user in the checkout types it
SECRET = "s3cret-hash-do-not-print"


def run(*args: object):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert not result.exception or isinstance(result.exception, SystemExit), result.exception
    return result


def refused(tmp_path: Path, command: str, config: object, *sets: str) -> str:
    """The one line that ``command`` prints for ``config``, checked to be the whole of stderr,
    with exit 1, no traceback and nothing written; the message after ``error: ``."""
    out = tmp_path / "out"
    extra = ["--out", out, "--games", 10] if command == "simulate" else []
    result = run(command, config, *(a for s in sets for a in ("--set", s)), *extra)
    assert result.exit_code == 1, result.output
    assert result.stdout == "" and "Traceback" not in result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert not out.exists()
    return result.stderr.removeprefix("error: ").removesuffix("\n")


def error(path: object, *sets: str) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path, [parse_override(s) for s in sets])
    message = str(info.value)
    assert "\n" not in message
    return message


# ------------------------------------------------------------------------ --set blamed for itself


@pytest.mark.parametrize("command", ["validate", "simulate"])
def test_set_game_is_blamed_not_the_file(tmp_path, monkeypatch, command):
    monkeypatch.chdir(ROOT)
    assert refused(tmp_path, command, BASE, "game=raven_order") == (
        "--set game=raven_order: rules.rounds: unknown key (did you mean 'runes'?) "
        f"(rules.rounds set in {BASE})"
    )


@pytest.mark.parametrize(
    ("sets", "message"),
    [
        (
            ["game=raven_manor"],
            "--set game=raven_manor: rules.rounds: unknown key (expected one of: ",
        ),
        (["game=nope"], "--set game=nope: game: unknown game 'nope' (one of: "),
        (
            ["players=5"],
            f"--set players=5: players: five_ravens is for 2-4 players, got 5 (game set in {BASE})",
        ),
        (
            ["seats=[greedy]"],
            "--set seats=[greedy]: seats: expected 4 seats (one per player), got 1 "
            f"(players set in {BASE})",
        ),
        (
            ["report.headline.seat=7"],
            "--set report.headline.seat=7: report.headline.seat: seat 7 does not exist with 4 "
            "players",
        ),
        (["rules.hand_size=30"], "--set rules.hand_size=30: rules.hand_size: must be <= 20"),
        (
            ["policies.greedy.kind=bogus"],
            "--set policies.greedy.kind=bogus: policies.greedy.kind: unknown policy kind 'bogus'",
        ),
        # the override at fault among others that are fine
        (["seed=3", "game=raven_order"], "--set game=raven_order: rules.rounds: unknown key"),
        (["players=3", "game=raven_order"], "--set game=raven_order: rules.rounds: unknown key"),
        # rules=null hides the error of rules.rounds, but alone it is fine: game is at fault
        (
            ["rules=null", "game=raven_order"],
            "--set game=raven_order: policies.greedy.kind: unknown policy kind 'greedy' (one of:"
            " random, heuristic, search) (policies.greedy.kind set in configs/five_ravens/base.yaml)",
        ),
        (
            ["game=raven_order", "players=2", "rules=null"],
            "--set game=raven_order: policies.greedy.kind: unknown policy kind 'greedy'",
        ),
    ],
)
def test_a_wrong_value_is_blamed_on_its_override(monkeypatch, sets, message):
    monkeypatch.chdir(ROOT)
    got = error(BASE, *sets)
    assert got.startswith(message), got


def test_the_file_is_blamed_when_it_is_wrong_without_any_override(tmp_path):
    path = write(tmp_path, "x.yaml", VALID + "games: 0\n")
    assert error(path, "seed=5") == f"{path}: games: must be > 0, got 0"
    assert error(path, "seed=5", "players=3") == f"{path}: games: must be > 0, got 0"


def test_loading_the_yaml_once_blames_the_override_too(monkeypatch):
    """tune loads the YAML once and applies each point's overrides to a copy of its provenance
    (balance/experiments/tune.py): the same message as load_config."""
    monkeypatch.chdir(ROOT)
    data, prov = load_yaml(BASE)
    for _ in range(2):  # the loaded document and provenance are not changed by an attempt
        copy = Provenance(dict(prov), files=list(prov.files))
        overrides = [parse_override("seed=2"), parse_override("game=raven_order")]
        with pytest.raises(ConfigError) as info:
            config_from_dict(apply_to(data, overrides, copy), BASE, copy)
        assert str(info.value) == error(BASE, "seed=2", "game=raven_order")
    assert data["game"] == "five_ravens" and prov.overrides == () and prov.before is None


def test_extends_cannot_be_set(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert error(BASE, "extends=/etc/passwd") == (
        "--set extends=/etc/passwd: extends: only a config file may extend another; write it there"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("teams[0]=a", "--set teams[0]=a: teams[0]: teams is not set, so it has no item [0]"),
        ("rules.foo[1]=2", "--set rules.foo[1]=2: rules.foo[1]: rules.foo is not set, so it has"),
        ("policies.x.y[0]=1", "--set policies.x.y[0]=1: policies.x.y[0]: policies.x.y is not"),
        # present but a mapping: the message it always had
        ("rules[0]=1", "--set rules[0]=1: rules[0]: rules is a mapping, not a list"),
    ],
)
def test_an_item_of_an_absent_key(monkeypatch, text, message):
    monkeypatch.chdir(ROOT)
    got = error(BASE, text)
    assert got.startswith(message), got


def test_an_item_of_null_seats(tmp_path):
    path = write(tmp_path, "x.yaml", "game: five_ravens\nplayers: 4\nseats:\n")
    assert error(path, "seats[1]=random") == (
        "--set seats[1]=random: seats[1]: seats is not set, so it has no item [1]"
    )


# --------------------------------------------------------------- extends: that is no YAML config


def _binary(tmp_path: Path) -> str:
    (tmp_path / "blob.bin").write_bytes(bytes(range(256)) * 4)
    return "blob.bin"


def _passwd(tmp_path: Path) -> str:
    (tmp_path / "passwd").write_text(f"root:x:0:0:{SECRET}:/root:/bin/bash\n")
    return "passwd"


def _text(tmp_path: Path) -> str:
    (tmp_path / "notes.txt").write_text(f"key: value: {SECRET}\n")
    return "notes.txt"


def _list(tmp_path: Path) -> str:
    write(tmp_path, "list.yaml", f"- {SECRET}\n")
    return "list.yaml"


def _large(tmp_path: Path) -> str:
    (tmp_path / "big.log").write_text(SECRET * 4000)
    return "big.log"


def _directory(tmp_path: Path) -> str:
    (tmp_path / "sub").mkdir()
    return "sub"


@pytest.mark.parametrize(
    ("target", "problem"),
    [
        (_directory, "{t} is a directory, not a YAML file"),
        (_passwd, "{t} is not a config: its top level must be a mapping, got a string of text"),
        (_binary, "{t} is not UTF-8 text (byte 128), so not a YAML config"),
        (_text, "{t} is not a YAML config (invalid YAML at line 1, column 11)"),
        (_list, "{t} is not a config: its top level must be a mapping, got a list"),
        (_large, "{t} is larger than 64 KiB; a config is a few kB"),
        (lambda _: "nope.yaml", "file not found: {t}"),
        (lambda _: "/dev/zero", "{t} is a character device, not a YAML file"),
        (lambda _: "/dev/null", "{t} is a character device, not a YAML file"),
    ],
    ids=["directory", "passwd", "binary", "text", "list", "large", "missing", "zero", "null"],
)
@pytest.mark.parametrize("command", ["validate", "simulate"])
def test_extends_names_the_file_that_extends(tmp_path, command, target, problem):
    name = target(tmp_path)
    path = write(tmp_path, "x.yaml", f"extends: {name}\nseed: 2\n")
    shown = name if name.startswith("/") else str(tmp_path / name)
    message = refused(tmp_path, command, path)
    assert message == f"{path}: extends: {problem.format(t=shown)}"
    assert SECRET not in message


@pytest.mark.skipif(not Path("/etc/passwd").is_file(), reason="no /etc/passwd")
def test_extends_etc_passwd_quotes_none_of_it(tmp_path):
    path = write(tmp_path, "x.yaml", "extends: /etc/passwd\n")
    message = refused(tmp_path, "validate", path)
    assert message.startswith(f"{path}: extends: /etc/passwd is not ")
    said = message.split("/etc/passwd", 1)[1]
    assert "root" not in said and ":x:" not in said
    assert Path("/etc/passwd").read_text()[:20] not in message


def test_extends_itself_and_a_cycle(tmp_path):
    path = write(tmp_path, "self.yaml", VALID + "extends: self.yaml\n")
    assert refused(tmp_path, "validate", path) == f"{path}: extends cycle: {path} -> {path}"
    a = write(tmp_path, "a.yaml", "extends: b.yaml\n")
    b = write(tmp_path, "b.yaml", "extends: a.yaml\n")
    assert refused(tmp_path, "simulate", a) == f"{b}: extends cycle: {a} -> {b} -> {a}"


def test_a_yaml_parent_with_a_typo_is_still_blamed_at_its_line(tmp_path):
    """A file named .yaml that fails to parse is a config with a mistake: its own line."""
    parent = write(tmp_path, "parent.yaml", VALID + "seed: [1\n")
    path = write(tmp_path, "x.yaml", "extends: parent.yaml\n")
    assert refused(tmp_path, "validate", path).startswith(f"{parent}: invalid YAML at line 5")


# ---------------------------------------------------------------- FIFOs and devices, never opened


def cli(*args: object) -> subprocess.CompletedProcess:
    """The ``balance`` command in a process of its own, killed if it blocks."""
    return subprocess.run(
        [sys.executable, "-m", "balance", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.yaml"
    os.mkfifo(path)
    return path


def finishes(fn: Callable[..., Any], *args: Any, fifo: Path) -> Any:
    """``fn(*args)``, which must not wait for a writer of ``fifo``; if it does, it is given one
    (an empty write) so that the thread ends, and the test fails."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as e:  # handed back to the test
            box["error"] = e

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(60)
    if thread.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(10)
        pytest.fail(f"{fn.__name__} opened the FIFO {fifo} and waited for a writer")
    if "error" in box:
        raise box["error"]
    return box.get("value")


@pytest.mark.parametrize("command", ["validate", "simulate"])
def test_a_fifo_as_the_config_is_refused_at_once(tmp_path, fifo, command):
    out = tmp_path / "out"
    extra = ["--out", out, "--games", 10] if command == "simulate" else []
    proc = cli(command, fifo, *extra)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == f"error: {fifo}: is a FIFO (named pipe), not a YAML file\n"
    assert not out.exists()


def test_a_symlink_to_a_fifo_and_an_extends_of_a_fifo(tmp_path, fifo):
    link = tmp_path / "link.yaml"
    link.symlink_to(fifo)
    child = write(tmp_path, "child.yaml", "extends: pipe.yaml\n")
    proc = cli("validate", link)
    assert (proc.returncode, proc.stderr) == (
        1,
        f"error: {link}: is a FIFO (named pipe), not a YAML file\n",
    )
    proc = cli("validate", child)
    assert (proc.returncode, proc.stderr) == (
        1,
        f"error: {child}: extends: {fifo} is a FIFO (named pipe), not a YAML file\n",
    )


def test_a_device_as_the_config(tmp_path):
    assert refused(tmp_path, "validate", "/dev/zero") == (
        "/dev/zero: is a character device, not a YAML file"
    )
    assert refused(tmp_path, "simulate", "/dev/null") == (
        "/dev/null: is a character device, not a YAML file"
    )


@pytest.mark.parametrize("read", [read_yaml, load_yaml, load_config], ids=lambda f: f.__name__)
def test_every_reader_refuses_a_fifo(fifo, read):
    """read_yaml serves the variants files, load_yaml the check specs (and tune's YAML)."""
    with pytest.raises(
        ConfigError, match=r"pipe\.yaml: is a FIFO \(named pipe\), not a YAML file$"
    ):
        finishes(read, fifo, fifo=fifo)


def test_a_fifo_swapped_in_after_the_check_is_refused_too(tmp_path, fifo, monkeypatch):
    """The path is checked again once opened (without blocking), not only before: a FIFO put in
    place between the two never makes the loader wait."""
    regular = write(tmp_path, "real.yaml", VALID)

    class Swapped:  # os, but whose stat sees the regular file that was there a moment ago
        def __getattr__(self, name: str) -> Any:
            return getattr(os, name)

        @staticmethod
        def stat(path: Any) -> os.stat_result:
            return os.stat(regular)

    monkeypatch.setattr(loading, "os", Swapped())
    with pytest.raises(
        ConfigError, match=r"pipe\.yaml: is a FIFO \(named pipe\), not a YAML file$"
    ):
        finishes(load_config, fifo, fifo=fifo)
