"""Fuzz the check-spec loader (``balance.experiments.load_spec``): whatever the YAML, the outcome
is a loaded spec or one BalanceError whose message is one line naming the file, never another
exception and never more than a few seconds. A spec that loads must also make every assertion
into its sequential test and take a batch of games without an error (nothing is played: the
batch is synthetic).

Inputs: random YAML documents shaped like specs (mappings with the spec's own keys, lists,
scalars of every type, odd keys), raw YAML-ish text, and random mutations of the shipped
configs/ci/*.yaml specs: a key deleted, null, a value of the wrong type, huge, tiny, negative or
non-finite numbers, long strings, unknown keys, empty or duplicated lists, bad paths (``config``,
``baseline``, ``extends``). No anchors or aliases: the YAML reader's own bounds are fuzzed in
tests/config/test_config_fuzz.py.
"""

from __future__ import annotations

import itertools
import math
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from balance import experiments as ex
from balance.errors import BalanceError
from balance.experiments.check import assertion_test

ROOT = Path(__file__).parent.parent.parent
SECONDS = 3.0  # the most one load may take; typical: a few milliseconds
EXAMPLES = int(os.environ.get("BALANCE_FUZZ_EXAMPLES", "100"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,  # timed in `outcome`: a loaded machine must not make it flaky
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SPECS = [
    p
    for p in sorted((ROOT / "configs" / "ci").glob("*.yaml"))
    if "checks" in yaml.safe_load(p.read_text())
]
SPEC_KEYS = sorted(
    set(ex.Spec.model_fields)
    | set(ex.CheckSpec.model_fields)
    | set(ex.AssertionSpec.model_fields)
    | {"extends"}
)
METRICS = [
    "win_share", "mean_turns", "max_seat_shift", "win_share_shift", "mean_score",
    "first_player_edge", "max_role_shift", "x",
]  # fmt: skip
_names = itertools.count()


class _NoAliases(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def dump(value: Any) -> str:
    return yaml.dump(value, Dumper=_NoAliases, allow_unicode=True, width=math.inf)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where fuzzed specs are written, next to a few files a bad path may name."""
    root = tmp_path_factory.mktemp("specfuzz")
    (root / "empty.yaml").write_text("")
    (root / "binary.yaml").write_bytes(bytes(range(256)) * 4)
    (root / "list.yaml").write_text("- 1\n- 2\n")
    (root / "sub").mkdir()
    return root


def bad_paths(root: Path) -> list[str]:
    return [
        "nope.yaml", "../../nope.yaml", "/nonexistent/x.yaml", "/dev/null", "sub", ".", "",
        "empty.yaml", "binary.yaml", "list.yaml", str(root / "sub"), "x" * 300, "a\x00b",
    ]  # fmt: skip


def write(root: Path, text: str) -> Path:
    path = root / f"spec_{next(_names)}.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return path


def outcome(path: Path, root: Path) -> str:
    """Load ``path``: "ok" (and every assertion's test takes a batch) or the error's one line
    naming a file; anything else fails the test, and hypothesis prints the input."""
    start = time.perf_counter()
    try:
        spec = ex.load_spec(path)
    except BalanceError as e:
        message = str(e)
        assert len(message.splitlines()) == 1 and message == message.strip(), repr(message)
        named = message.split(": ", 1)[0]
        assert named == str(path) or named.startswith(str(root)) or named.startswith("/"), message
        result = message
    else:
        assert isinstance(spec, ex.Spec)
        _run_one_batch(spec)
        result = "ok"
    elapsed = time.perf_counter() - start
    assert elapsed < SECONDS, f"{elapsed:.1f} s to load {path}"
    return result


def _run_one_batch(spec: ex.Spec) -> None:
    """Every assertion as its sequential test, fed one synthetic batch (0/1 wins per seat)."""
    wins = np.random.default_rng(0).random((spec.batch, 4)) < 0.25
    for c in spec.checks:
        for a in c.assertions:
            for model in ("bernoulli", "normal"):
                columns = 4 if a.metric == "max_seat_shift" else 1
                test = assertion_test(a, spec, columns=columns, model=model)
                test.update(wins[:, :columns].astype(np.float64))
                test.estimate(), test.llr(), test.in_zone(), test.cap_too_small()


# ---------------------------------------------------------------------------------- strategies

NASTY = [
    None, True, False, 0, -1, 1, 2, 99, 100, 2000, 2**31, 2**63, -(2**63), 10**30, -(10**30),
    math.nan, math.inf, -math.inf, 0.0, -0.0, 1e-300, 0.05, 0.5, 0.999, 1e308, "", " ", "fail",
    "pass", "win_share", "mean_turns", "x" * 3000, "a\nb", "\ud800", "\x00", "é", [], {}, [1],
    [0.25, 0.01], [0.25, -0.01], [0.25, 0], [1, 2, 3], {"a": 1},
]  # fmt: skip

scalars = st.one_of(
    st.sampled_from(NASTY),
    st.integers(),
    st.floats(),
    st.text(max_size=10),
    st.sampled_from(SPEC_KEYS + METRICS),
)
keys = st.one_of(st.sampled_from(SPEC_KEYS), st.text(max_size=6), st.integers(-2, 5), st.none())
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=5)),
    max_leaves=25,
)
assertion = st.fixed_dictionaries(
    {"metric": st.sampled_from(METRICS)},
    optional={
        k: scalars
        for k in ("seat", "order", "policy", "above", "below", "within", "delta", "baseline")
    },
)
spec_like = st.fixed_dictionaries(
    {},
    optional={
        "alpha": scalars,
        "beta": scalars,
        "batch": scalars,
        "max_games": scalars,
        "inconclusive": scalars,
        "level": scalars,
        "seed": scalars,
        "checks": st.lists(
            st.fixed_dictionaries(
                {"config": scalars},
                optional={
                    "name": scalars,
                    "baseline": scalars,
                    "assertions": st.lists(assertion | values, max_size=3),
                },
            )
            | values,
            max_size=3,
        ),
    },
)


@FUZZ
@given(doc=values | spec_like)
def test_random_documents(folder: Path, doc: Any) -> None:
    outcome(write(folder, dump(doc)), folder)


@FUZZ
@given(text=st.text(max_size=300).map(lambda t: t.replace("&", "").replace("*", "")))
def test_raw_text(folder: Path, text: str) -> None:
    outcome(write(folder, text), folder)


def _places(value: Any, at: tuple = ()) -> list[tuple]:
    """Every key path in ``value`` (mapping keys, list indices)."""
    out = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _places(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _places(v, (*at, i))
    return out


def _get(doc: Any, path: tuple) -> Any:
    for k in path:
        doc = doc[k]
    return doc


MUTATIONS = ["delete", "null", "nasty", "unknown key", "empty", "duplicate", "bad path", "extends"]


def mutate(doc: Any, draw: Any, root: Path) -> Any:
    places = [p for p in _places(doc) if p]
    path = draw(st.sampled_from(places))
    parent, key = _get(doc, path[:-1]), path[-1]
    kind = draw(st.sampled_from(MUTATIONS))
    if kind == "delete":
        del parent[key]
    elif kind == "null":
        parent[key] = None
    elif kind == "nasty":
        parent[key] = draw(scalars | values)
    elif kind == "unknown key" and isinstance(parent, dict):
        parent[draw(st.sampled_from(["alpah", "max_game", "assertion", "withn", "seats", "x"]))] = 1
    elif kind == "empty":
        parent[key] = type(parent[key])() if isinstance(parent[key], list | dict) else []
    elif kind == "duplicate" and isinstance(parent, list):
        parent.append(parent[key])
    elif kind in ("bad path", "extends"):
        target = draw(st.sampled_from([*bad_paths(root), "SELF"]))
        where = doc if kind == "extends" else parent
        name = "extends" if kind == "extends" else draw(st.sampled_from(["config", "baseline"]))
        if isinstance(where, dict):
            where[name] = target
    return doc


@FUZZ
@given(shipped=st.sampled_from(SPECS), data=st.data())
def test_mutated_shipped_specs(folder: Path, shipped: Path, data: st.DataObject) -> None:
    doc = yaml.safe_load(shipped.read_text())
    for _ in range(data.draw(st.integers(1, 4))):
        doc = mutate(doc, data.draw, folder)
    path = folder / f"spec_{next(_names)}.yaml"
    text = dump(doc).replace("SELF", str(path))  # an extends of itself: a cycle
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    outcome(path, folder)


def test_the_shipped_specs_load_and_make_their_tests():
    assert len(SPECS) >= 3
    for path in SPECS:
        spec = ex.load_spec(path)
        assert spec.max_games is None and spec.inconclusive is None  # sized caps, no pass
        _run_one_batch(spec)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("inconclusive: pass\n", "inconclusive: 'pass' is not allowed"),
        ("alpha: .inf\n", "alpha: must be a finite number"),
        ("batch: 100000000\n", "batch: must be <= 1000000"),
        ("max_games: 1e20\n", "max_games: "),
        ("checks: [{config: a.yaml, assertions: [{metric: mean_turns, within: [1, .nan]}]}]\n", ""),
    ],
)
def test_the_fuzzers_findings_are_one_line_errors(folder: Path, text: str, problem: str):
    body = "checks: [{config: a.yaml, assertions: [{metric: mean_turns, below: 3}]}]\n"
    path = write(folder, text if text.startswith("checks") else text + body)
    with pytest.raises(BalanceError) as e:
        ex.load_spec(path)
    assert str(e.value).startswith(f"{path}: {problem}") and "\n" not in str(e.value)
