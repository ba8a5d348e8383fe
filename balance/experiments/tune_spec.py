"""The grammar of ``balance tune``'s ``--param`` and ``--target``, with their one-line errors.

They parse into :class:`Param` and :class:`Target` (balance/experiments/tune.py searches;
balance/experiments/tune_answer.py words and writes the answer).

**Knobs** are ``--param KEY=lo..hi[:step]``: a config key (dotted, as ``--set`` writes it) and
the range searched. An integer key searches the integers lo, lo + step, ..., hi (step 1 by
default); a real key searches multiples of the step (default (hi - lo) / 100), which is the
tolerance of the answer. The key's type is the config's: ``policies.greedy.action_threshold``
is real even when written ``-1..1``. ``game``, ``games`` and ``seed`` cannot be tuned.

**Targets** are ``--target 'METRIC[SELECTOR]=VALUE[@WEIGHT]'``, the metrics of ``balance
check`` specs (balance/experiments/check.py) in one string:

- ``win_share[seat=0]``, ``win_share[order=0]`` (the first player), ``win_share[policy=greedy]``,
  ``win_share[team=raven]``, ``win_share[role=...]``: the group's win per game (1, 1/k of a win
  shared among k teams, 0; a policy's or role's: the mean over its seats that game);
- ``mean_score`` (every seat) or ``mean_score[seat=1]`` and the like: the group's mean score;
- ``mean_turns``: game length;
- how each game plays, from its trajectory (balance/stats/plays.py): ``lead_changes``,
  ``comeback_half``, ``comeback_two_thirds``, ``max_deficit``, ``decided_at``, ``margin``,
  ``close``, whole games (no selector but ``decided``), a winner's metric over the games with
  one winner (``comeback_half=0.25``: a quarter of the winners were behind at half time);
- ``decided`` in the selector (``win_share[order=0,decided]``) counts only the games one team
  won alone (no shared first place: in The Raven Order, no turn-cap draw), so "the first player
  wins half the decided games" is ``win_share[order=0,decided]=0.5``.
"""

from __future__ import annotations

import difflib
import math
import os
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from balance import stats
from balance.config import load_config
from balance.config.overrides import Override, override
from balance.errors import BalanceError
from balance.experiments.check import DEFAULT_DELTA
from balance.experiments.check_spec import CENSUS, PLAYS, PLAYS_RATES
from balance.fmt import num
from balance.stats import rootfind

PARAM = "--param"
TARGET = "--target"
METRICS = ("win_share", "mean_score", "mean_turns", *PLAYS)
WHOLE_GAMES = ("mean_turns", *PLAYS)  # metrics of whole games: no group
UNIT = {m: DEFAULT_DELTA[m] for m in METRICS}  # the distance's unit of each metric
FIXED_KEYS = {
    "game": "a tune plays one game",
    "games": "the budget is --games",
    "seed": "every value plays the same seed: give --seed",
}
DEFAULT_STEPS = 100  # a real knob's default step: its range over this

_NUMBER = r"[-+]?(?:\d+\.\d*|\d+|\.\d+)(?:[eE][-+]?\d+)?"
_RANGE = re.compile(
    rf"\s*(?P<lo>{_NUMBER})\s*\.\.\s*(?P<hi>{_NUMBER})\s*(?::\s*(?P<step>{_NUMBER}))?\s*"
)
_INT = re.compile(r"[-+]?\d+")
_TARGET = re.compile(
    r"\s*(?P<metric>[A-Za-z_][A-Za-z0-9_]*)\s*(?:\[(?P<sel>[^\]]*)\])?\s*=\s*(?P<value>[^@]+?)"
    r"\s*(?:@\s*(?P<weight>\S+))?\s*"
)
_TARGET_FORM = "METRIC[SELECTOR]=VALUE, e.g. win_share[order=0]=0.5 or mean_score=8"


class TuneError(BalanceError):
    """A tune cannot start or its target is not in reach; one line naming the option."""


class Param(NamedTuple):
    """One ``--param``: a config key and the grid of values searched."""

    text: str  # as given (stripped), e.g. "rules.compensation.gold=0..8"
    key: str
    path: tuple[str | int, ...]
    lo: float
    hi: float
    step: float
    integer: bool
    values: np.ndarray  # the grid (balance.stats.rootfind.grid)

    @property
    def label(self) -> str:
        return f"{PARAM} {self.text}"

    def override(self, value: Any) -> Override:
        return override(self.key, value, source=PARAM)

    def describe(self) -> str:
        kind = "integers" if self.integer else f"reals to {num(self.step)}"
        step = f" step {num(self.step)}" if self.integer and self.step != 1 else ""
        n = len(self.values)
        return f"{self.key} in {num(self.lo)}..{num(self.hi)} ({kind}{step}, {n} values)"


class Target(NamedTuple):
    """One ``--target``: a metric of a group of seats (or of games), its value and weight."""

    text: str
    metric: str  # one of METRICS
    kind: str | None  # seat, order, policy, team, role; None: all seats (or games)
    name: str | None
    decided: bool  # only games one team won alone
    value: float
    weight: float

    @property
    def label(self) -> str:
        """The metric as written back: ``win_share[order=0,decided]``."""
        sel = [f"{self.kind}={self.name}"] if self.kind else []
        sel += ["decided"] if self.decided else []
        return self.metric + (f"[{','.join(sel)}]" if sel else "")

    @property
    def unit(self) -> float:
        return UNIT[self.metric]


def param_error(text: str, problem: str) -> TuneError:
    """The error of a ``--param``: ``--param TEXT: PROBLEM``."""
    return TuneError(f"{PARAM} {text}: {problem}")


def target_error(text: str, problem: str) -> TuneError:
    """The error of a ``--target``: ``--target TEXT: PROBLEM``."""
    return TuneError(f"{TARGET} {text}: {problem}")


def parse_target(text: str) -> Target:
    """``METRIC[SELECTOR]=VALUE[@WEIGHT]`` as a :class:`Target` (module docstring); bad syntax,
    an unknown metric or selector, a share outside [0, 1] raise one line naming it."""
    text = text.strip()
    m = _TARGET.fullmatch(text)
    if m is None:
        raise target_error(text, f"expected {_TARGET_FORM}")
    metric = m["metric"]
    if metric in CENSUS:
        raise target_error(
            text,
            f"{metric} is measured by a census (each game replayed decision by decision, 10 ms "
            "to 1 s), too slow for the games a tune plays: sweep the knob with `balance sweep "
            "--over KEY=VALUES --census N` and read its curve, or gate it with `balance check`",
        )
    if metric not in METRICS:
        close = difflib.get_close_matches(metric, METRICS, n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        raise target_error(text, f"unknown metric '{metric}' ({hint}metrics: {', '.join(METRICS)})")
    kind = name = None
    decided = False
    for item in (m["sel"] or "").split(",") if m["sel"] is not None else []:
        item = item.strip()
        if item == "decided":
            if decided:
                raise target_error(text, "decided is given twice")
            decided = True
            continue
        key, eq, val = item.partition("=")
        key, val = key.strip(), val.strip()
        if not eq or not val:
            raise target_error(
                text,
                f"bad selector {item!r}: expected KIND=NAME (one of {', '.join(stats.KINDS)}) "
                "or decided",
            )
        if key not in stats.KINDS:
            close = difflib.get_close_matches(key, [*stats.KINDS, "decided"], n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise target_error(
                text, f"unknown selector '{key}' ({hint}one of {', '.join(stats.KINDS)}, decided)"
            )
        if kind is not None:
            raise target_error(text, f"give at most one group, got {kind} and {key}")
        if key in ("seat", "order") and not re.fullmatch(r"\d+", val):
            raise target_error(text, f"{key}: expected a number from 0, got {val!r}")
        kind, name = key, str(int(val)) if key in ("seat", "order") else val
    if metric == "win_share" and kind is None:
        raise target_error(
            text,
            "win_share needs a group: [seat=N], [order=N] (0 = first player), [policy=NAME], "
            "[team=NAME] or [role=NAME]",
        )
    if metric in WHOLE_GAMES and kind is not None:
        raise target_error(text, f"{kind}: {metric} is about whole games, not a {kind}")
    value = _float(m["value"], text, "value")
    if metric == "win_share" and not 0 <= value <= 1:
        raise target_error(text, f"a win share is in [0, 1], got {num(value)}")
    if metric in (*PLAYS_RATES, "decided_at") and not 0 <= value <= 1:
        hint = (
            f" ({num(value)} looks like a percentage: write {num(value / 100)})"
            if value > 1
            else ""
        )
        raise target_error(text, f"{metric} is a share of games in [0, 1], got {num(value)}{hint}")
    weight = 1.0 if m["weight"] is None else _float(m["weight"], text, "weight")
    if not weight > 0:
        raise target_error(text, f"the weight must be > 0, got {num(weight)}")
    target = Target(text, metric, kind, name, decided, value, weight)
    return target._replace(
        text=f"{target.label}={num(value)}" + (f"@{num(weight)}" if m["weight"] else "")
    )


def _float(raw: str, text: str, what: str) -> float:
    try:
        x = float(raw.strip())
    except ValueError:
        raise target_error(text, f"the {what} must be a number, got {raw.strip()!r}") from None
    if not math.isfinite(x):
        raise target_error(text, f"the {what} must be finite, got {raw.strip()}")
    return x


def parse_param(text: str) -> tuple[str, tuple[str | int, ...], str, str, str | None]:
    """``KEY=lo..hi[:step]`` as (key, path, lo, hi, step) texts; bad syntax or a key that
    cannot be tuned raise one line naming the ``--param``."""
    text = text.strip()
    key, eq, raw = (part.strip() for part in text.partition("="))
    if not eq:
        raise param_error(text, "expected KEY=lo..hi[:step] (e.g. rules.compensation.gold=0..8)")
    m = _RANGE.fullmatch(raw)
    if m is None:
        raise param_error(
            text,
            f"expected a range lo..hi or lo..hi:step after '=', got {raw!r} "
            "(e.g. rules.compensation.gold=0..8, policies.greedy.action_threshold=-1..1:0.05)",
        )
    path = override(key, 0, source=PARAM).path  # checks the key's syntax
    if len(path) == 1 and path[0] in FIXED_KEYS:
        raise param_error(text, f"{key} cannot be tuned: {FIXED_KEYS[str(path[0])]}")
    return key, path, m["lo"], m["hi"], m["step"]


def _value_at(data: Any, path: Sequence[str | int]) -> Any:
    """The value at a key path of a resolved config's data (mapping keys matched as text), or
    a sentinel when the path is not there."""
    node = data
    for seg in path:
        if isinstance(seg, int) and isinstance(node, list) and seg < len(node):
            node = node[seg]
        elif isinstance(node, dict):
            match = [k for k in node if k == seg or str(k) == str(seg)]
            if not match:
                return _MISSING
            node = node[match[0]]
        else:
            return _MISSING
    return node


_MISSING = object()


def _check_list_item(text: str, path: Sequence[str | int], resolved: Any) -> None:
    """One line for a ``--param`` into an item a list of the config lacks: ``--set`` writes the
    list first (``rules.handicap`` is empty by default, so ``rules.handicap[0]`` needs
    ``--set 'rules.handicap=[0]'``). Without it the override would report the missing list as
    the mapping it creates on its way."""
    for depth, seg in enumerate(path):
        node = _value_at(resolved, path[:depth])
        if isinstance(seg, int) and isinstance(node, list) and seg >= len(node):
            shown = "".join(
                f"[{k}]" if isinstance(k, int) else f".{k}" if i else k
                for i, k in enumerate(path[:depth])
            )
            items = f"{len(node) or 'no'} item{'' if len(node) == 1 else 's'}"
            problem = f"{shown} has {items} in the config, so [{seg}] does not exist"
            if all(isinstance(v, int | float) and not isinstance(v, bool) for v in node):
                padded = ", ".join(str(v) for v in [*node, *[0] * (seg + 1 - len(node))])
                problem += f": give the list with --set first (e.g. --set '{shown}=[{padded}]')"
            raise param_error(text, problem)


def resolve_param(text: str, config: str | os.PathLike[str], sets: Sequence[Override]) -> Param:
    """A ``--param`` with its grid, typed by the config's value at its key; both ends of its
    range are validated as configs (an error names the ``--param`` and the key)."""
    key, path, lo_t, hi_t, step_t = parse_param(text)
    ints = all(t is None or _INT.fullmatch(t) for t in (lo_t, hi_t, step_t))
    lo_v: Any = int(lo_t) if _INT.fullmatch(lo_t) else float(lo_t)
    hi_v: Any = int(hi_t) if _INT.fullmatch(hi_t) else float(hi_t)
    if not float(hi_v) > float(lo_v):
        raise param_error(text, f"an empty range: {hi_t} is not above {lo_t}")
    resolved = load_config(config, sets).resolved_dict()
    current = _value_at(resolved, path)
    if current is _MISSING:
        _check_list_item(text, path, resolved)
    if isinstance(current, bool) or (
        current is not _MISSING and not isinstance(current, int | float)
    ):
        raise param_error(
            text, f"{key} is {current!r} in the config, not a number: nothing to tune"
        )
    integer = isinstance(current, int) if current is not _MISSING else ints
    if integer and not ints:
        raise param_error(
            text, f"{key} is an integer: give integer bounds and step (e.g. {key}=0..8)"
        )
    if integer:
        step: float = int(step_t) if step_t is not None else 1
    else:
        lo_v, hi_v = float(lo_v), float(hi_v)
        step = float(step_t) if step_t is not None else (hi_v - lo_v) / DEFAULT_STEPS
    if not step > 0:
        raise param_error(text, f"the step must be > 0, got {step_t}")
    try:
        values = rootfind.grid(lo_v, hi_v, step, integer=integer)
    except ValueError as e:
        raise param_error(text, str(e)) from None
    for end in (values[0], values[-1]):  # both ends validate as configs
        load_config(config, [*sets, override(key, plain_value(end), source=PARAM)])
    return Param(
        text=f"{key}={lo_t}..{hi_t}" + (f":{step_t}" if step_t is not None else ""),
        key=key,
        path=path,
        lo=lo_v,
        hi=hi_v,
        step=step,
        integer=integer,
        values=values,
    )


def plain_value(v: Any) -> Any:
    """A grid value as the plain int or float a config validates."""
    return int(v) if isinstance(v, np.integer | int) else float(v)
