"""Bad input to every option of every command (issue 26): exit 1 (2 for ``balance check``), one
line ``error: ...`` on stderr (a click usage error is one such line too), no traceback, no hang,
nothing written.

The matrix is every parameter of every command (``balance --help`` and each command's
``--help``; ROLES says what each one is, and a test keeps ROLES complete) times the bad values of
its kind: for a number -1, 0, 2**70, 1e999, nan, abc and the empty string; for a file or a
directory a missing one, a directory, /dev/null, a FIFO, an empty file and a binary file; for a
results directory also a hand-broken manifest.json (format "1", parts "x", games_requested "abc",
a part listed twice, each as edited and resealed, and JSON nested 100,000 levels), and for a
sweep directory a broken sweep.json. Each case starts from a quick valid command on the fake game
(tests/kit/fake_game.py), in-process, with one value replaced; a sample runs as real processes on
Five Ravens. A valid value (a seed of 0, a new output file) may succeed; every failure must still
be one line with nothing written.

By default a seeded sample of the cases runs; BALANCE_FAULTS=all (``nox -s faults``) runs every
one. Tests that start real runs and stop them are in tests/test_faults.py.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import shutil
import signal
import stat
import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main
from kit import fake_game as fake
from test_faults import CONFIG, OTHER_CONFIG, balance, kernels, said, sample, small_run
from typer.testing import CliRunner

from balance import games as registry
from balance import results
from balance.cli import app
from balance.experiments import sweep as sweep_lib

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="FIFOs, SIGALRM and /dev/null: Linux"
)
__all__ = ["kernels", "small_run"]  # fixtures of tests/test_faults.py, used here too


def _invoke(*args: object) -> Any:
    return CliRunner().invoke(app, [str(a) for a in args])


NUMBERS = ["-1", "0", str(2**70), "1e999", "nan", "abc", ""]
ZERO_IS_FINE = {"--seed", "--game", "--python-games", "--port", "--census"}  # 0 is a valid value of these
PATHS = ["missing", "a directory", "/dev/null", "a FIFO", "an empty file", "a binary file"]
TEXTS = ["", "abc"]
MANIFESTS = [
    "format '1'",
    "parts 'x'",
    "games_requested 'abc'",
    "a part listed twice",
    "format '1', resealed",
    "games_requested 'abc', resealed",
    "a part listed twice, resealed",
    "nested 100,000 levels",
]
SWEEP_MANIFESTS = ["sweep format '1'", "sweep points 'x'", "sweep games 'abc'",
                   "sweep nested 100,000 levels", "sweep point listed twice"]  # fmt: skip

# Each command's quick valid run on the fake game; {T} is the case's folder (tests/kit/fake_game.py
# configs, a variants file, a check spec, a finished run `res` and a finished sweep `sw`).
BASE = {
    "simulate": "simulate {T}/fake.yaml --games 20 --chunk-size 10 --out {T}/new",
    "simulate --resume": "simulate --resume {T}/res",
    "validate": "validate {T}/fake.yaml",
    "verify": "verify {T}/res",
    "games": "games fake",
    "replay": "replay {T}/fake.yaml --game 0",
    "bench": "bench fake --config {T}/fake.yaml --games 100 --repeats 1 --python-games 0 "
    "--no-cold --no-end-to-end",
    "impact": "impact {T}/fake.yaml --games 20 --variants {T}/variants.yaml",
    "compare": "compare {T}/fake.yaml {T}/b.yaml --games 20",
    "check": "check {T}/spec.yaml",
    "sweep": "sweep {T}/fake.yaml --over rules.bonus=0,1 --games 20 --chunk-size 10 --out {T}/new",
    "report": "report {T}/res -o {T}/report.html --no-impact",
    "tune": "tune {T}/fake.yaml --param rules.bonus=0..5 --target mean_score=3 --games 2500",
    "ladder": "ladder {T}/fake.yaml --rungs plain,skilled --games 20 --chunk-size 10 --out {T}/new",
    # the fake game has no decision points (a census of its run `res` is refused in one line)
    "census": "census {T}/rm.yaml --games 1 --no-kingmaking",
    "export": "export {T}/res --out {T}/rows.csv",
    # --once: the page is not served (a good value would serve until Ctrl-C); its options are
    # checked the same way with or without it
    "watch": "watch {T}/fake.yaml --once --games 20 --no-open",
}

# What each parameter of each command is: a number, an input file, a results directory, an
# output file or directory (with its suffix), or other text. Arguments by name, options by flag.
ROLES: dict[str, dict[str, str]] = {
    "simulate": {"config": "input .yaml", "--set": "text", "--games": "number",
                 "--seed": "number", "--out": "out-dir", "--threads": "number",
                 "--chunk-size": "number", "--resume": "results", "--backend": "text",
                 "--address": "text", "--report": "out-file .html", "--ladder": "results"},
    "validate": {"configs": "input .yaml", "--set": "text"},
    "verify": {"dirs": "results sweep"},
    "games": {"name": "text"},
    "replay": {"source": "input .yaml results", "--game": "number", "--seed": "number",
               "--set": "text", "--html": "out-file .html"},
    "bench": {"game": "text", "--games": "number", "--threads": "number",
              "--python-games": "number", "--json": "out-file .json", "--config": "input .yaml",
              "--repeats": "number", "--iterations": "text"},
    "impact": {"config": "input .yaml", "--set": "text", "--games": "number", "--seed": "number",
               "--variants": "input .yaml", "--out": "out-file .json", "--threads": "number",
               "--csv": "out-file .csv", "--xlsx": "out-file .xlsx", "--backend": "text",
               "--address": "text"},
    "compare": {"a": "input .yaml", "b": "input .yaml", "--set": "text", "--games": "number",
                "--seed": "number", "--threads": "number", "--report": "out-file .html",
                "--census": "number",
                "--csv": "out-file .csv", "--xlsx": "out-file .xlsx", "--backend": "text",
                "--address": "text"},
    "check": {"spec": "input .yaml", "--junit": "out-file .xml", "--threads": "number",
              "--set": "text", "--backend": "text", "--address": "text"},
    "sweep": {"config": "input .yaml", "--over": "text", "--set": "text", "--games": "number",
              "--seed": "number", "--out": "out-dir", "--threads": "number",
              "--chunk-size": "number", "--report": "out-file .html", "--csv": "out-file .csv",
              "--xlsx": "out-file .xlsx", "--backend": "text", "--address": "text",
              "--census": "number"},
    "report": {"results": "results sweep", "--out": "out-file .html", "--baseline": "results",
               "--impact": "input .json", "--ladder": "results"},
    "tune": {"config": "input .yaml", "--param": "text", "--target": "text", "--set": "text",
             "--games": "number", "--seed": "number", "--threads": "number",
             "--out": "out-file .yaml", "--trials": "number", "--csv": "out-file .csv",
             "--xlsx": "out-file .xlsx", "--backend": "text", "--address": "text"},
    "ladder": {"config": "input .yaml", "--rungs": "text", "--set": "text", "--games": "number",
               "--half-width": "number", "--seed": "number", "--out": "out-dir",
               "--threads": "number", "--chunk-size": "number", "--impact": "text",
               "--report": "out-file .html", "--csv": "out-file .csv",
               "--xlsx": "out-file .xlsx", "--resume": "results", "--backend": "text",
               "--address": "text"},
    "census": {"source": "input .yaml results", "--games": "number", "--seed": "number",
               "--set": "text", "--window": "number", "--alternatives": "number",
               "--replays": "number", "--out": "out-file .parquet"},
    "export": {"results": "results", "--format": "text", "--out": "out-file .csv"},
    "watch": {"config": "input .yaml", "--against": "input .yaml", "--set": "text",
              "--games": "number", "--half-width": "number", "--seed": "number",
              "--threads": "number", "--port": "number"},
}  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Case:
    command: str
    param: str  # an argument's name or an option's flag
    value: str  # a number or text as typed, a PATHS kind or a (SWEEP_)MANIFESTS kind
    must_fail: bool  # else success is fine too (a valid value); any failure is still one line

    @property
    def id(self) -> str:
        return f"{self.command} {self.param}={self.value!r}"

    def base(self) -> list[str]:
        key = "simulate --resume" if self.param == "--resume" else self.command
        return BASE[key].split()

    def args(self, folder: Path) -> list[str]:
        """The command line, with the value made (a FIFO, a broken results directory...)."""
        value = _make_value(self, folder)
        args = [a.replace("{T}", str(folder)) for a in self.base()]
        if not self.param.startswith("-"):  # an argument: the n-th word after the command
            names = [p.name for p in _params(self.command) if p.param_type_name == "argument"]
            at = 1 + names.index(self.param)
            args[at] = value
        elif self.param in args:
            args[args.index(self.param) + 1] = value
        else:
            args += [self.param, value]
        return args


def _make_value(case: Case, folder: Path) -> str:
    role = ROLES[case.command][case.param].split()
    suffix = next((r for r in role if r.startswith(".")), "")
    if case.value in MANIFESTS:
        return str(_broken_results(folder, case.value))
    if case.value in SWEEP_MANIFESTS:
        return str(_broken_sweep(folder, case.value))
    if role[0] not in ("input", "results", "out-file", "out-dir"):
        return case.value
    path = folder / f"given{suffix}"
    if case.value == "missing":
        pass
    elif case.value == "a directory":
        path = folder / "a-directory"
        path.mkdir()
    elif case.value == "/dev/null":
        return "/dev/null"
    elif case.value == "a FIFO":
        os.mkfifo(path)
    elif case.value == "an empty file":
        path.write_bytes(b"")
    elif case.value == "a binary file":
        path.write_bytes(bytes(range(256)) * 8)
    return str(path)


def _broken_results(folder: Path, how: str) -> Path:
    """A copy of the finished run ``res`` with its manifest broken by hand."""
    broken = folder / "broken"
    shutil.copytree(folder / "res", broken)
    file = broken / "manifest.json"
    if how.startswith("nested"):
        file.write_text("[" * 100_000 + "]" * 100_000)
        return broken
    manifest = json.loads(file.read_text())
    if how.startswith("format"):
        manifest["format"] = "1"
    elif how.startswith("parts"):
        manifest["parts"] = "x"
    elif how.startswith("games_requested"):
        manifest["games_requested"] = "abc"
    elif how.startswith("a part listed twice"):
        manifest["parts"].insert(1, manifest["parts"][0])
    if how.endswith("resealed"):
        results.seal(manifest)
    file.write_text(json.dumps(manifest, indent=2))
    return broken


def _broken_sweep(folder: Path, how: str) -> Path:
    """A copy of the finished sweep ``sw`` with its sweep.json broken by hand."""
    broken = folder / "broken-sweep"
    shutil.copytree(folder / "sw", broken)
    file = broken / sweep_lib.SWEEP_MANIFEST
    if how.endswith("nested 100,000 levels"):
        file.write_text("[" * 100_000 + "]" * 100_000)
        return broken
    manifest = json.loads(file.read_text())
    if how.endswith("format '1'"):
        manifest["format"] = "1"
    elif how.endswith("points 'x'"):
        manifest["points"] = "x"
    elif how.endswith("games 'abc'"):
        manifest["games"] = "abc"
    elif how.endswith("point listed twice"):
        manifest["points"].insert(1, manifest["points"][0])
    file.write_text(json.dumps(manifest, indent=2))
    return broken


def _params(command: str) -> list[Any]:
    group = typer.main.get_command(app)
    return [p for p in group.commands[command].params if not getattr(p, "is_flag", False)]


def _param_name(p: Any) -> str:
    return p.name if p.param_type_name == "argument" else p.opts[0]


def _must_fail(command: str, param: str, value: str) -> bool:
    role = ROLES[command][param].split()[0]
    if role == "number":
        return not (value == "0" and param in ZERO_IS_FINE)
    if role == "out-file":  # a new file, or one to replace, is where an output goes
        return value in ("a directory", "/dev/null", "a FIFO")
    if role == "out-dir":  # a new or empty directory is where a run goes
        return value not in ("missing", "a directory")
    return role != "text"  # an input file or a results directory that is not one must fail


def _cases() -> list[Case]:
    cases = []
    for command, roles in ROLES.items():
        for param, role in roles.items():
            kind = role.split()
            values = {"number": NUMBERS, "text": TEXTS}.get(kind[0], PATHS)
            if "results" in kind:
                values = [*values, *MANIFESTS]
            if "sweep" in kind:
                values = [*values, *SWEEP_MANIFESTS]
            cases += [Case(command, param, v, _must_fail(command, param, v)) for v in values]
    return cases


CASES = _cases()

# The cases that found bugs (fixed, each reason says what it was): always sampled, so they stay fixed.
HUGE = repr(str(2**70))
UNREADABLE_RUN = (
    "exits 0 and writes a run no reader accepts: `balance verify` then says `manifest.json: "
    "chunk_size: input should be less than or equal to 9223372036854775807, got "
    "1180591620717411303424`"
)
SWEEP_FORMAT = (
    "traceback: TypeError: '>' not supported between instances of 'str' and 'int' "
    "(read_sweep_manifest compares sweep.json's format before checking its type)"
)
SWEEP_NESTED = "traceback: RecursionError while decoding sweep.json (read_sweep_manifest)"
SWEEP_TWICE = (
    "exit 0: sweep.json is not validated; verify prints `ok:` for the point listed twice twice, "
    "and report draws the sweep with the point twice"
)
UNBOUNDED_BENCH = "no answer in 60 s: bench starts measuring without an upper bound on {}"
KNOWN: dict[str, str] = {
    f"simulate --chunk-size={HUGE}": UNREADABLE_RUN,
    f"sweep --chunk-size={HUGE}": UNREADABLE_RUN,
    "verify dirs=\"sweep format '1'\"": SWEEP_FORMAT,
    "report results=\"sweep format '1'\"": SWEEP_FORMAT,
    "verify dirs='sweep nested 100,000 levels'": SWEEP_NESTED,
    "report results='sweep nested 100,000 levels'": SWEEP_NESTED,
    "verify dirs='sweep point listed twice'": SWEEP_TWICE,
    "report results='sweep point listed twice'": SWEEP_TWICE,
    f"bench --games={HUGE}": UNBOUNDED_BENCH.format("--games"),
    f"bench --repeats={HUGE}": UNBOUNDED_BENCH.format("--repeats"),
    f"tune --trials={HUGE}": "exit 0: --trials has no upper bound (unused by a one-knob "
    "search, capped by the grid's size in a search of several)",
}
HANGS = {f"bench --games={HUGE}", f"bench --repeats={HUGE}"}  # hung before: refused at once now


KNOWN_CASES = tuple(c for c in CASES if c.id in KNOWN)


def _case_param(case: Case) -> Any:
    return pytest.param(case, id=case.id)


def test_the_matrix_covers_every_option_of_every_command():
    """A new option or command gets its role in ROLES (and so its bad values) here."""
    group = typer.main.get_command(app)
    assert sorted(group.commands) == sorted(ROLES)
    for name, command in group.commands.items():
        hints = typing.get_type_hints(command.callback)
        params = _params(name)
        assert [_param_name(p) for p in params] == list(ROLES[name]), name
        for p in params:
            role = ROLES[name][_param_name(p)].split()[0]
            hint = hints[p.name]
            kinds = set(typing.get_args(hint)) | {hint}
            kinds |= {a for k in list(kinds) for a in typing.get_args(k)}  # list[Path]
            assert (role == "number") == bool({int, float} & kinds), (name, p.name, hint)
            assert (role in ("input", "results", "out-file", "out-dir")) == (Path in kinds), (
                name,
                p.name,
                hint,
            )


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """The files every case starts from (fake game): configs, a variants file, a check spec, a
    finished run ``res`` and a finished sweep ``sw``."""
    folder = tmp_path_factory.mktemp("pristine")
    with pytest.MonkeyPatch.context() as m:
        m.setitem(registry._GAMES, "fake", fake.__name__)
        fake.write_config(folder / "fake.yaml")
        fake.write_config(folder / "b.yaml", rules="{bonus: 2}")
        root = Path(__file__).resolve().parent.parent
        shutil.copy(root / "configs" / "raven_manor" / "base.yaml", folder / "rm.yaml")
        (folder / "variants.yaml").write_text("- {name: bonus, patch: {rules: {bonus: 2}}}\n")
        (folder / "spec.yaml").write_text(
            f"batch: 200\nmax_games: 2000\nchecks:\n  - config: {folder / 'fake.yaml'}\n"
            "    assertions:\n      - {metric: mean_turns, within: [19.5, 5]}\n"
        )
        for args in (
            ["simulate", folder / "fake.yaml", "--games", 20, "--chunk-size", 10, "--out",
             folder / "res"],
            ["sweep", folder / "fake.yaml", "--over", "rules.bonus=0,1", "--games", 20,
             "--chunk-size", 10, "--out", folder / "sw"],
        ):  # fmt: skip
            result = _invoke(*args)
            assert result.exit_code == 0, result.output
    return folder


class Hung(BaseException):
    """A command gave no answer in time (a BaseException: no handler of the CLI catches it)."""


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    def alarm(signum: int, frame: Any) -> None:
        raise Hung(f"no answer in {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def snapshot(folder: Path) -> dict[str, tuple[Any, ...]]:
    """Every entry under ``folder``: its kind, and a file's size, mtime and SHA-256."""
    state: dict[str, tuple[Any, ...]] = {}
    for path in sorted(folder.rglob("*")):
        st = path.lstat()
        if stat.S_ISREG(st.st_mode):
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            state[str(path.relative_to(folder))] = ("file", st.st_size, st.st_mtime_ns, digest)
        else:
            state[str(path.relative_to(folder))] = (stat.S_IFMT(st.st_mode),)
    return state


def check_outcome(
    code: int, stdout: str, stderr: str, *, must_fail: bool, error_code: int, unchanged: bool
) -> None:
    """Success (when allowed), or exactly one line ``error: ...`` and the error exit code,
    with nothing written; never a traceback."""
    assert "Traceback" not in stdout + stderr, stderr
    if code == 0 and not must_fail:
        return
    assert code == error_code, (code, stderr)
    assert stderr.count("\n") == 1 and stderr.startswith("error: "), stderr
    assert unchanged, "an error, yet something was written"


@pytest.mark.parametrize(
    "case", [_case_param(c) for c in sample(CASES, 60, seed=5, always=KNOWN_CASES)]
)
def test_bad_input_is_one_line_and_writes_nothing(case, pristine, tmp_path, fake_game, monkeypatch):
    folder = tmp_path / "t"
    shutil.copytree(pristine, folder)
    monkeypatch.chdir(folder)  # a default output would land here, and be seen
    args = case.args(folder)
    before = snapshot(folder)
    with deadline(5 if case.id in HANGS else 60):
        result = CliRunner().invoke(app, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{result.exception!r} from {args}"
    )
    check_outcome(
        result.exit_code,
        result.stdout,
        result.stderr,
        must_fail=case.must_fail,
        error_code=2 if case.command == "check" else 1,
        unchanged=snapshot(folder) == before,
    )


# The same, as a user runs it: a real process, the Five Ravens configs, a FIFO given where a
# file is read or written (the process must not block on it), and numbers no run could reach.
PROCESS_CASES: dict[str, tuple[str, int]] = {
    "validate FIFO": ("validate {fifo}", 1),
    "simulate with a FIFO as config": ("simulate {fifo} --games 100 --out {T}/new", 1),
    "check --junit FIFO": ("check configs/ci/five_ravens.yaml --junit {fifo}", 2),
    "report -o FIFO": ("report {run} -o {fifo} --no-impact", 1),
    "simulate --games 2**70": (f"simulate {CONFIG} --games {2**70} --out {{T}}/new", 1),
    "compare --games 2**70": (f"compare {CONFIG} {OTHER_CONFIG} --games {2**70}", 1),
    "impact --games 2**70": (f"impact {CONFIG} --games {2**70}", 1),
    "tune --games 2**70": (
        f"tune {CONFIG} --param rules.relics.chest_5.value=0..40 --target mean_score=8 "
        f"--games {2**70}",
        1,
    ),
    "replay --game 2**70": (f"replay {CONFIG} --game {2**70}", 1),
    "sweep --games nan": (f"sweep {CONFIG} --over players=2,3 --games nan --out {{T}}/new", 1),
    "report -o /dev/null": ("report {run} -o /dev/null --no-impact", 1),
    "verify a manifest nested 100,000 levels": ("verify {nested}", 1),
    "simulate --resume, manifest format '1'": ("simulate --resume {format1}", 1),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sample(list(PROCESS_CASES), 4, seed=6))
def test_bad_input_to_a_real_process(name, small_run, tmp_path):
    command, error_code = PROCESS_CASES[name]
    folder = tmp_path / "t"
    folder.mkdir()
    run = folder / "run"
    shutil.copytree(small_run, run)
    os.mkfifo(folder / "fifo")
    nested = folder / "nested"
    shutil.copytree(small_run, nested)
    (nested / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    format1 = folder / "format1"
    shutil.copytree(small_run, format1)
    manifest = json.loads((format1 / "manifest.json").read_text())
    (format1 / "manifest.json").write_text(json.dumps({**manifest, "format": "1"}))
    args = command.format(T=folder, fifo=folder / "fifo", run=run, nested=nested, format1=format1)
    before = snapshot(folder)
    code, stdout, stderr = balance(*args.split(), timeout=60)
    check_outcome(
        code,
        stdout,
        "".join(f"{line}\n" for line in said(stderr)),
        must_fail=True,
        error_code=error_code,
        unchanged=snapshot(folder) == before,
    )
