"""What a tune found, in words and as the tuned config that ``--out`` writes.

The CLI prints :func:`summary_lines`; balance/experiments/tune.py finds the answer.

``--out FILE`` writes the tuned config: it ``extends`` the original (a path relative to FILE)
and sets the tuned values and the ``--set`` overrides, with a comment saying how they were
found. It is written only after the search, to a temporary file that is checked to load as the
tuned config and then renamed.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

import balance
from balance.config import config_hash, load_config
from balance.config.loading import load_yaml
from balance.config.overrides import apply_overrides, parse_overrides
from balance.errors import BalanceError
from balance.experiments.tune import LEVEL, TargetValue, TuneResult
from balance.experiments.tune_spec import TuneError
from balance.fmt import fixed, level, num
from balance.outputs import check_output_file, target_of, write_atomic


def check_out(out: str | os.PathLike[str], config: str | os.PathLike[str]) -> None:
    """``--out`` can be written (before any game): a YAML file in an existing directory, not
    the config itself or a file it extends, nor a directory, FIFO or device
    (balance/outputs.py)."""
    path = Path(out)
    if path.suffix not in (".yaml", ".yml"):
        raise TuneError(f"--out {out}: the tuned config is YAML: name it FILE.yaml")
    inputs: dict[str | os.PathLike[str], str] = {config: "the config being tuned"}
    chain: list[str] = []
    # The tuned file extends them all: replacing one would make it extend itself. A config that
    # does not load (or is no regular file, which could block) is said by the tuning itself.
    if os.path.isfile(config):
        with contextlib.suppress(BalanceError, OSError):
            chain = load_yaml(config)[1].files[1:]
    inputs.update(dict.fromkeys(chain, "a config the tuned one extends"))
    check_output_file(out, "--out", inputs=inputs)
    if not path.parent.is_dir() and str(path.parent) not in ("", "."):
        raise TuneError(f"--out {out}: no directory {path.parent}")


def _yaml_key(data: Any, path: Sequence[str | int]) -> list[Any]:
    """The keys of ``path`` as the merged data holds them (a YAML ``2:`` key is the int 2)."""
    keys, node = [], data
    for seg in path:
        if isinstance(node, dict) and seg not in node:
            seg = next((k for k in node if str(k) == str(seg)), seg)
        keys.append(seg)
        node = node[seg] if isinstance(node, dict | list) else None
    return keys


def tuned_document(result: TuneResult) -> dict[str, Any]:
    """The tuned config's mapping below ``extends``: every ``--set`` and tuned value (a key
    inside a list writes the whole list, since ``extends`` replaces lists)."""
    overrides = [
        *parse_overrides(result.sets),
        *(p.override(v) for p, v in zip(result.params, result.answer, strict=True)),
    ]
    data, _ = load_yaml(result.config_path)
    merged = apply_overrides(data, overrides)
    doc: dict[str, Any] = {}
    for o in overrides:
        keys = _yaml_key(merged, o.path)
        cut = next((i for i, k in enumerate(o.path) if isinstance(k, int)), len(keys))
        cut = max(cut, 1)
        node: Any = doc
        for k in keys[: cut - 1]:
            node = node.setdefault(k, {})
        value = merged
        for k in keys[:cut]:
            value = value[k]
        node[keys[cut - 1]] = value
    return doc


def write_tuned(result: TuneResult, out: str | os.PathLike[str], *, command: str = "") -> Path:
    """Write the tuned config to ``out`` (module docstring); returns its path. The file is
    checked to load as the config at the answer before it replaces anything."""
    path = Path(out)
    where = target_of(path).parent  # a symlinked --out: extends from the file it points to
    rel = os.path.relpath(result.config_path, start=where or ".").replace(os.sep, "/")
    lines = []
    for i, line in enumerate(how_found(result, command)):
        if command and i == 1:  # the command stays on one line, to be copied
            lines.append(f"# {line}")
            continue
        lines += textwrap.wrap(line, 98, initial_indent="# ", subsequent_indent="#   ")
    body = yaml.safe_dump(
        {"extends": rel, **tuned_document(result)}, sort_keys=False, default_flow_style=False
    )
    text = "\n".join(lines) + "\n" + body

    def loads_as_tuned(tmp: Path) -> None:  # before it replaces anything
        back = load_config(tmp)
        if config_hash(back) != config_hash(result.config):  # pragma: no cover - a bug if so
            raise TuneError(f"--out {out}: the written config does not load as the tuned one")

    return write_atomic(path, text, check=loads_as_tuned)


def answer_text(result: TuneResult) -> str:
    return ", ".join(
        f"{p.key} = {num(v)}" for p, v in zip(result.params, result.answer, strict=True)
    )


def how_found(result: TuneResult, command: str = "") -> list[str]:
    """The comment that heads a tuned config: the command, the answer with its interval, how
    it was found and the metrics at the answer on fresh games."""
    today = dt.date.today().isoformat()
    lines = [f"Tuned by balance {balance.__version__} on {today}" + (":" if command else ".")]
    if command:
        lines.append(f"  {command}")
    lines += summary_lines(result)
    return lines


def summary_lines(result: TuneResult) -> list[str]:
    """What a tune found, in a few lines (the CLI prints them; the tuned config's comment holds
    them)."""
    lines = []
    if result.root is not None:
        r = result.root
        (t,) = result.targets
        lines.append(
            f"{answer_text(result)}; {level(r.level)} interval [{num(r.lo)}, {num(r.hi)}]: "
            f"{t.label} crosses {num(t.value)} between {num(r.lo)} and {num(r.hi)} "
            "(if it is monotone in the knob, the value sought lies there)"
        )
        inside = sorted(r.bracket, key=lambda q: q.x)
        lines.append(
            "in the interval (the metric [its confidence sequence], games): "
            + "; ".join(
                f"{num(q.x)}: {fixed(q.mean)} [{fixed(q.lo)}, {fixed(q.hi)}] "
                f"{_SIDES[q.side]}, {q.counted:,}"
                for q in inside
            )
        )
        lines.append(
            f"bisection with confidence sequences on common seeds: {len(r.points)} of "
            f"{r.grid_size} values played, {r.games:,} games (each value's sequence at "
            f"{level(r.point_level)}: {level(r.level)} over the whole grid); stopped: "
            + _STOPS[r.stop]
        )
    else:
        d, lo, hi = result.distance or (float("nan"),) * 3
        how = (
            f"every one of the {len(result.trials)} points of the grid"
            if result.method == "grid"
            else f"{len(result.trials)} trials of optuna's TPE sampler"
        )
        lines.append(
            f"{answer_text(result)}: the smallest weighted distance to the targets among {how} "
            f"({result.trial_games:,} games each on common seeds)"
        )
        if result.refined and result.refined[0].games > result.trial_games:
            lines.append(
                f"the best {len(result.refined)} replayed on games 0-"
                f"{result.refined[0].games - 1:,} (95 % intervals over these games, which "
                "picked them): "
                + "; ".join(
                    f"({', '.join(num(v) for v in t.values)}) "
                    + ", ".join(
                        (f"{v.target.label} " if len(t.measured) > 1 else "")
                        + f"{fixed(v.mean)} [{fixed(v.lo)}, {fixed(v.hi)}]"
                        for v in t.measured
                    )
                    for t in sorted(result.refined, key=lambda t: t.distance)
                )
            )
        lines.append(
            f"distance at the answer on fresh games: {d:.3g} [{lo:.3g}, {hi:.3g}] "
            f"({level(LEVEL)}: the range over the targets' simultaneous intervals)"
        )
    for v in result.at_answer:
        lines.append(
            f"{v.target.label} at the answer: {fixed(v.mean)} [{fixed(v.lo)}, {fixed(v.hi)}] "
            f"({level(v.level)}, target {num(v.target.value)}) over {_counted(v)} fresh games "
            f"{result.fresh_from:,}-{result.fresh_from + result.fresh_games - 1:,}"
        )
    lines.append(f"games: {result.games:,} (budget {result.budget:,}), seed {result.seed}")
    return lines


_SIDES = {-1: "below", 0: "undecided", 1: "above"}
_STOPS = {
    "resolution": "the interval is one step of the grid",
    "noise": "no value inside the interval can be told from the target with the games left",
    "budget": "the budget was spent",
}


def _counted(v: TargetValue) -> str:
    if v.counted == v.games:
        return f"{v.games:,}"
    return f"{v.counted:,} counted of {v.games:,}"
