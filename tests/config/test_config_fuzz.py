"""Fuzz the config and check-spec loaders (issue 13): whatever the YAML, the outcome is a config
or one line naming a file (a BalanceError, exit 1 from `balance validate`), never a traceback and
never a hang.

Inputs: random YAML documents (nested mappings, lists and scalars of every YAML type, odd keys),
documents written with anchors, aliases and merge keys (recursive ones included), raw YAML-ish
text and bytes, and random mutations of the shipped configs and check specs (a key deleted, a value
of the wrong type, null, huge or negative numbers, NaN, long strings, bad ``extends`` paths and
cycles). The shipped configs are copied to a temporary folder so that ``extends`` resolves.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from balance.cli import app
from balance.config import load_config
from balance.config.loading import read_yaml
from balance.errors import BalanceError
from balance.experiments.check_spec import load_spec

ROOT = Path(__file__).parent.parent.parent
SECONDS = 5.0  # the most any one load may take ("never a hang"); typical: milliseconds

# BALANCE_FUZZ_EXAMPLES=5000 searches longer (the suite's 120 per test take a few seconds in all).
EXAMPLES = int(os.environ.get("BALANCE_FUZZ_EXAMPLES", "120"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,  # timed by `outcome` instead: a loaded machine must not make it flaky
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
_names = itertools.count()


def _shipped() -> tuple[list[Path], list[Path]]:
    configs, specs = [], []
    for path in sorted((ROOT / "configs").rglob("*.yaml")):
        (specs if "checks" in read_yaml(path) else configs).append(path.relative_to(ROOT))
    return configs, specs


CONFIGS, SPECS = _shipped()


def _keys_of(value: Any, out: set[str]) -> set[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(str(k))
            _keys_of(v, out)
    elif isinstance(value, list):
        for v in value:
            _keys_of(v, out)
    return out


KNOWN_KEYS = sorted(
    set().union(*(_keys_of(read_yaml(ROOT / p), set()) for p in CONFIGS + SPECS))
    | {"extends", "teams", "games", "seed", "description", "rules", "policies", "kind"}
)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of configs/ to write fuzzed files into (next to the files they extend)."""
    root = tmp_path_factory.mktemp("fuzz")
    shutil.copytree(ROOT / "configs", root / "configs")
    return root


# Absolute places a mutated ``extends`` may name; an error may name them instead of a fuzzed file.
OUTSIDE = ["/", "/dev/null", "/dev/zero", "/etc/passwd", "/nonexistent/x.yaml"]


def outcome(load: Any, path: Path, root: Path) -> str:
    """Load ``path``: "ok" or the error's one line, which must name a file; anything else fails
    the test (hypothesis prints the input)."""
    start = time.perf_counter()
    try:
        load(path)
        result = "ok"
    except BalanceError as e:
        result = str(e)
        assert len(result.splitlines()) == 1 and result == result.strip(), repr(result)
        named = result.split(": ", 1)[0]
        assert named.startswith(str(root)) or named in OUTSIDE, result
    elapsed = time.perf_counter() - start
    assert elapsed < SECONDS, f"{elapsed:.1f} s to load {path}"
    return result


def write_text(root: Path, folder: str, text: str | bytes) -> Path:
    path = root / folder / f"fuzz_{next(_names)}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return path


# ---------------------------------------------------------------------------------- strategies

NASTY_SCALARS = [
    None, True, False, 0, -1, 1, 2, 3, 4, 5, 64, 65, 2**31, 2**63 - 1, 2**63, -(2**63), 10**30,
    -(10**30), 16**200, math.nan, math.inf, -math.inf, 0.5, -0.0, 1e308, "", " ", "greedy",
    "random", "economy", "rush", "five_ravens", "raven_order", "chest", "gem", "druid", "camp",
    "yes", "~", "0x10", "1e5", "x" * 5000, "a\nb", "\ud800", "\x00", "é", "base.yaml", "[1]",
]  # fmt: skip

scalars = st.one_of(
    st.sampled_from(NASTY_SCALARS),
    st.integers(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(),
    st.text(max_size=12),
    st.sampled_from(KNOWN_KEYS),
)
keys = st.one_of(
    st.sampled_from(KNOWN_KEYS),
    st.text(max_size=8),
    st.integers(min_value=-3, max_value=8),
    st.sampled_from([None, True, False, math.nan, 1.5, "<<", "a b", "a.b", "a[0]", "\ud800"]),
)
values = st.recursive(
    scalars,
    lambda kids: st.lists(kids, max_size=5) | st.dictionaries(keys, kids, max_size=5),
    max_leaves=20,
)
MINIMAL = [
    {"game": "five_ravens", "players": 4, "seats": "greedy"},
    {"game": "five_ravens", "players": 2, "seats": ["greedy", "random"], "teams": ["a", "b"]},
    {"game": "raven_order", "players": 2, "seats": ["economy", "rush"]},
]
documents = st.one_of(
    values,
    st.builds(
        lambda base, extra: {**base, **extra},
        st.sampled_from(MINIMAL),
        st.dictionaries(st.sampled_from(KNOWN_KEYS) | keys, values, max_size=4),
    ),
)


def dump(value: Any) -> str:
    return yaml.safe_dump(value, allow_unicode=True, width=math.inf)


def scalar_text(value: Any) -> str:
    """A scalar as YAML flow text (JSON strings are YAML double-quoted strings)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return (
            ".nan"
            if math.isnan(value)
            else (".inf" if value > 0 else "-.inf")
            if math.isinf(value)
            else repr(value)
        )
    if isinstance(value, int):
        return str(value) if abs(value) < 10**300 else hex(value)
    return json.dumps(str(value))


def with_anchors(value: Any, rnd: random.Random) -> str:
    """``value`` as flow YAML where collections get anchors, and values or merge keys are
    replaced at random by aliases of anchors written before (or still open: a recursion)."""
    done: list[str] = []  # anchors of collections already written
    maps: list[str] = []  # those of them that are mappings (for merge keys)
    open_: list[str] = []  # anchors of collections being written
    counter = itertools.count()

    def alias() -> str | None:
        pool = done + (open_ if rnd.random() < 0.1 else [])
        return f"*{rnd.choice(pool)}" if pool else None

    def emit(v: Any) -> str:
        if rnd.random() < 0.2 and (a := alias()):
            return a
        if not isinstance(v, dict | list):
            return scalar_text(v)
        name = f"a{next(counter)}" if rnd.random() < 0.5 else None
        if name:
            open_.append(name)
        if isinstance(v, dict):
            items = [f"{scalar_text(k)}: {emit(x)}" for k, x in v.items()]
            if maps and rnd.random() < 0.3:
                items.insert(0, f"<<: *{rnd.choice(maps)}")
            elif done and rnd.random() < 0.05:
                items.insert(0, f"<<: *{rnd.choice(done)}")  # maybe not a mapping: an error
            text = "{" + ", ".join(items) + "}"
        else:
            text = "[" + ", ".join(emit(x) for x in v) + "]"
        if name:
            open_.remove(name)
            done.append(name)
            if isinstance(v, dict):
                maps.append(name)
            return f"&{name} {text}"
        return text

    return emit(value) + "\n"


FRAGMENTS = [
    "game: five_ravens\n", "players: 4\n", "seats: greedy\n", "rules:\n", "  ", "- ", "? ",
    ": ", ", ", "[", "]", "{", "}", "&a ", "&b ", "*a", "*b", "<<: ", "!!set ", "!!omap ",
    "!!binary ", "!!timestamp ", "!!python/object:os.system ", "!!float ", "!!int ", "!foo ",
    "2001-12-14", "0x1F", "0o17", "1_000", "1:20", ".nan", "-.inf", "~", "'", '"', "|\n", ">-\n",
    "# c\n", "\t", "\n", "---\n", "...\n", "%YAML 1.1\n", "%TAG ! x\n", "extends: ", "base.yaml",
    "\\u00e9", "\\ud800", "é", "\ufeff", "\x85", "\u2028", "x" * 100,
]  # fmt: skip


# ---------------------------------------------------------------------------------- the loaders


@FUZZ
@given(doc=documents)
def test_random_documents(tree: Path, doc: Any) -> None:
    path = write_text(tree, "random", dump(doc))
    outcome(load_config, path, tree)
    outcome(load_spec, path, tree)


@FUZZ
@given(doc=documents, rnd=st.randoms(use_true_random=False))
def test_documents_with_anchors_aliases_and_merge_keys(
    tree: Path, doc: Any, rnd: random.Random
) -> None:
    path = write_text(tree, "anchors", with_anchors(doc, rnd))
    outcome(load_config, path, tree)
    outcome(load_spec, path, tree)


@FUZZ
@given(
    text=st.one_of(
        st.lists(st.sampled_from(FRAGMENTS), max_size=25).map("".join),
        st.text(max_size=60),
        st.binary(max_size=60),
    )
)
def test_raw_text_and_bytes(tree: Path, text: str | bytes) -> None:
    path = write_text(tree, "raw", text)
    outcome(load_config, path, tree)
    outcome(read_yaml, path, tree)


# ------------------------------------------------------------------- mutations of shipped files


def _paths(value: Any, at: tuple = ()) -> list[tuple]:
    out = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*at, i))
    return out


def _parent(doc: Any, path: tuple) -> Any:
    for seg in path[:-1]:
        doc = doc[seg]
    return doc


EXTENDS = [
    "nope.yaml", "../nope/x.yaml", "", " ", ".", "..", "/", "a\0b", 3, None, [], ["base.yaml"],
    "../five_ravens/base.yaml", "../raven_order/base.yaml", "../ci/five_ravens.yaml",
    "../../../../../../../../../../../etc/passwd", "/dev/null", "/dev/zero",
    "/nonexistent/x.yaml", "x" * 300, "SELF", "CYCLE",
]  # fmt: skip


def mutate(doc: Any, rnd: random.Random, nasty: list[Any], path: Path) -> Any:
    """One random edit of ``doc`` (in place where it can), ``path`` the file it will be."""
    nasty = copy.deepcopy(nasty)  # each edit its own copy: no value may end up inside itself
    targets = _paths(doc)
    at = rnd.choice(targets)
    how = rnd.choice(["delete", "set", "set", "null", "wrap", "unwrap", "add", "extends"])
    if how == "extends" and isinstance(doc, dict):
        target = rnd.choice(EXTENDS)
        if target == "SELF":
            target = path.name
        elif target == "CYCLE":  # a file that extends this one back
            other = path.with_name(path.stem + "_b.yaml")
            other.write_text(f"extends: {path.name}\n")
            target = other.name
        doc["extends"] = target
        return doc
    if not at:  # the whole document
        return rnd.choice([None, [], nasty[0], [doc], "text"]) if how != "add" else doc
    parent = _parent(doc, at)
    key = at[-1]
    old = parent[key]
    if how == "delete":
        del parent[key]
    elif how in ("set", "null"):
        parent[key] = None if how == "null" else nasty[0]
    elif how == "wrap":
        parent[key] = [old]
    elif how == "unwrap":
        if isinstance(old, dict) and old:
            parent[key] = list(old)
        elif isinstance(old, list) and old:
            parent[key] = old[0]
        else:
            parent[key] = str(old)
    elif how == "add" and isinstance(old, dict):
        old[nasty[1] if isinstance(nasty[1], str) else "bogus"] = nasty[0]
    return doc


def mutated(tree: Path, shipped: Path, rnd: random.Random, nasty: list[Any]) -> Path:
    doc = read_yaml(ROOT / shipped)
    path = tree / shipped.parent / f"fuzz_{next(_names)}.yaml"
    for _ in range(rnd.randint(1, 3)):
        doc = mutate(doc, rnd, nasty, path)
    path.write_text(dump(doc), encoding="utf-8", errors="surrogatepass")
    return path


nasties = st.lists(st.one_of(st.sampled_from(NASTY_SCALARS), values), min_size=2, max_size=2)


@FUZZ
@given(shipped=st.sampled_from(CONFIGS), rnd=st.randoms(use_true_random=False), nasty=nasties)
def test_mutated_shipped_configs(
    tree: Path, shipped: Path, rnd: random.Random, nasty: list[Any]
) -> None:
    outcome(load_config, mutated(tree, shipped, rnd, nasty), tree)


@FUZZ
@given(shipped=st.sampled_from(SPECS), rnd=st.randoms(use_true_random=False), nasty=nasties)
def test_mutated_shipped_check_specs(
    tree: Path, shipped: Path, rnd: random.Random, nasty: list[Any]
) -> None:
    outcome(load_spec, mutated(tree, shipped, rnd, nasty), tree)


# ------------------------------------------------------------------------------ the command line


@settings(FUZZ, max_examples=max(1, EXAMPLES // 3))
@given(shipped=st.sampled_from(CONFIGS), rnd=st.randoms(use_true_random=False), nasty=nasties)
def test_validate_is_ok_or_one_line_exit_1(
    tree: Path, shipped: Path, rnd: random.Random, nasty: list[Any]
) -> None:
    path = mutated(tree, shipped, rnd, nasty)
    expected = outcome(load_config, path, tree)
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    if expected == "ok":
        assert (result.exit_code, result.stderr) == (0, "")
        assert result.stdout.startswith(f"ok: {path} (")
    else:
        assert (result.exit_code, result.stdout) == (1, "")
        assert result.stderr == f"error: {expected}\n"


def test_validate_in_a_real_process(tmp_path: Path) -> None:
    """The worst inputs through `python -m balance validate`: each file one line, exit 1, no
    traceback, all of them within seconds."""
    valid = "game: five_ravens\nplayers: 4\nseats: greedy\n"
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]\n"
        for p, n in zip("abcdefgh", "bcdefghi", strict=True)
    )
    bad = {
        "bomb": valid + bomb,
        "deep": valid + "description: " + "[" * 3000 + "]" * 3000 + "\n",
        "recursive": valid + "rules: &r {scoring: *r}\n",
        "bigint": valid + "seed: " + "9" * 5000 + "\n",
        "surrogate": valid + 'description: "\\ud800"\n',
        "newline_key": valid + '"a\\nb": 1\n',
        "nul_extends": 'extends: "a\\0b"\n',
        "dev_zero": "extends: /dev/zero\n",
        "binary": b"\xff\xfe\x00garbage",
        "huge": valid + "description: " + "x" * 300_000 + "\n",
        "cycle": "extends: cycle.yaml\n",
    }
    paths = []
    for name, text in bad.items():
        path = tmp_path / f"{name}.yaml"
        (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)
        paths.append(path)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "balance", "validate", *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert time.perf_counter() - start < 60
    assert proc.returncode == 1 and proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == len(paths), proc.stderr
    for line, path in zip(lines, paths, strict=True):
        named = path
        assert line.startswith(f"error: {named}: "), line
