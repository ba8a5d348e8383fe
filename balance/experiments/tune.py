"""``balance tune``: the value of a knob that brings a metric to its target, on common seeds.

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
- ``decided`` in the selector (``win_share[order=0,decided]``) counts only the games one team
  won alone (no shared first place: in The Raven Order, no turn-cap draw), so "the first player
  wins half the decided games" is ``win_share[order=0,decided]=0.5``.

**One knob, one target: noisy root finding** (balance/stats/rootfind.py, where the method and
its interval are stated in full). Every value looked at plays games 0, 1, 2, ... of the seed,
the same games at every value; a value is played until its anytime-valid confidence sequence
(level 1 - alpha/N over the N values of the grid) says on which side of the target the metric
lies, so values far from the answer cost a few hundred games and the games go where the side
is still uncertain. The interval [L, R] is the nearest pair of values decided on the two sides:
with probability at least 95 % the metric crosses the target between L and R, and if it is
monotone in the knob, the value sought lies in [L, R]. The answer is the grid value nearest
where the line through the bracket's values meets the target; the metric there is then measured
on **fresh games** (games no value of the search played), with a fixed-size 95 % interval over
games, so that it is not flattered by the games that chose it.

**Several knobs or several targets: a search** of the weighted distance

    D = sqrt(sum over targets of weight * ((metric - value) / unit)^2)

where ``unit`` is the metric's default indifference width in ``balance check`` (0.01 for a
share, 0.5 points for a mean score, 1 turn for game length), so that one point of win share
weighs like half a point of score. Every trial plays the same games (common random numbers: the
search sees a deterministic function of the knobs and compares trials on the same games). When
the grid of every knob's values has at most ``trials`` points, every point is played; otherwise
optuna's TPE sampler (seeded) picks them: it handles integer and real knobs together and needs
no gradients, and common games make the distance it sees a deterministic function, which is
what such a sampler assumes. The best five are replayed on more of the same games, so that the
pick is less a matter of luck; the best of them is the answer, **re-evaluated on fresh games**:
the best of many noisy trials looks better on its own games than it is (the winner's curse). Each
target's interval there has level 1 - alpha/T (T targets, Bonferroni), so all hold at once with
95 %, and the distance's interval is the range of D over that box. optuna is an extra, needed
only for a grid larger than ``trials``: ``pip install 'balance[tune]'``.

**Budget.** ``games`` bounds every game played. One knob: a fifth is kept for the fresh look at
the answer, which gets that or, if more, as many games as the most-played value of the search
(within what the search left); a search that stops early leaves the rest unplayed. Several:
a fifth for the fresh look (and whatever the trials left), three tenths to replay the best five
trials on more games, the rest shared by the trials.

``--out FILE`` writes the tuned config: it ``extends`` the original (a path relative to FILE)
and sets the tuned values and the ``--set`` overrides, with a comment saying how they were
found. It is written only after the search, to a temporary file that is checked to load as the
tuned config and then renamed.

Nothing here prints: progress goes through ``progress(done, total)``; errors are ``TuneError``
or ``ConfigError`` (one line naming the option and the key).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import difflib
import itertools
import math
import os
import re
import textwrap
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import yaml

import balance
from balance import runner, stats
from balance.config import (
    Provenance,
    RunConfig,
    config_from_dict,
    config_hash,
    load_config,
    load_yaml,
)
from balance.errors import BalanceError
from balance.experiments.check import DEFAULT_DELTA
from balance.experiments.play import chunk_arrays, lineup
from balance.outputs import check_output_file, target_of, write_atomic
from balance.overrides import Override, apply_overrides, apply_to, override, parse_overrides
from balance.runner import CHUNK
from balance.stats import rootfind
from balance.stats.paired import Moments, mean_interval, merge_moments, moments
from balance.stats.winrates import wilson_interval

PARAM = "--param"
TARGET = "--target"
METRICS = ("win_share", "mean_score", "mean_turns")
UNIT = {m: DEFAULT_DELTA[m] for m in METRICS}  # the distance's unit of each metric
FIXED_KEYS = {
    "game": "a tune plays one game",
    "games": "the budget is --games",
    "seed": "every value plays the same seed: give --seed",
}
DEFAULT_STEPS = 100  # a real knob's default step: its range over this
FRESH_SHARE = 5  # a 1/FRESH_SHARE of the budget is kept for the fresh look at the answer
DEFAULT_TRIALS = 60
MAX_TRIALS = 100_000  # each trial plays at least MIN_TRIAL_GAMES games
REFINE_SHARE = 30  # percent of the budget for playing the best trials on more games
REFINE_LEADERS = 5  # trials refined
MIN_TRIAL_GAMES = 200  # a trial with fewer games says nothing
LEVEL = 0.95

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


# ================================================================================ the options


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
        kind = "integers" if self.integer else f"reals to {_num(self.step)}"
        step = f" step {_num(self.step)}" if self.integer and self.step != 1 else ""
        n = len(self.values)
        return f"{self.key} in {_num(self.lo)}..{_num(self.hi)} ({kind}{step}, {n} values)"


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


def _num(x: float) -> str:
    return f"{x:g}" if float(x) != int(x) or abs(x) >= 1e15 else str(int(x))


def _perr(text: str, problem: str) -> TuneError:
    return TuneError(f"{PARAM} {text}: {problem}")


def _terr(text: str, problem: str) -> TuneError:
    return TuneError(f"{TARGET} {text}: {problem}")


def parse_target(text: str) -> Target:
    """``METRIC[SELECTOR]=VALUE[@WEIGHT]`` as a :class:`Target` (module docstring); bad syntax,
    an unknown metric or selector, a share outside [0, 1] raise one line naming it."""
    text = text.strip()
    m = _TARGET.fullmatch(text)
    if m is None:
        raise _terr(text, f"expected {_TARGET_FORM}")
    metric = m["metric"]
    if metric not in METRICS:
        close = difflib.get_close_matches(metric, METRICS, n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        raise _terr(text, f"unknown metric '{metric}' ({hint}metrics: {', '.join(METRICS)})")
    kind = name = None
    decided = False
    for item in (m["sel"] or "").split(",") if m["sel"] is not None else []:
        item = item.strip()
        if item == "decided":
            if decided:
                raise _terr(text, "decided is given twice")
            decided = True
            continue
        key, eq, val = item.partition("=")
        key, val = key.strip(), val.strip()
        if not eq or not val:
            raise _terr(
                text,
                f"bad selector {item!r}: expected KIND=NAME (one of {', '.join(stats.KINDS)}) "
                "or decided",
            )
        if key not in stats.KINDS:
            close = difflib.get_close_matches(key, [*stats.KINDS, "decided"], n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise _terr(
                text, f"unknown selector '{key}' ({hint}one of {', '.join(stats.KINDS)}, decided)"
            )
        if kind is not None:
            raise _terr(text, f"give at most one group, got {kind} and {key}")
        if key in ("seat", "order") and not re.fullmatch(r"\d+", val):
            raise _terr(text, f"{key}: expected a number from 0, got {val!r}")
        kind, name = key, str(int(val)) if key in ("seat", "order") else val
    if metric == "win_share" and kind is None:
        raise _terr(
            text,
            "win_share needs a group: [seat=N], [order=N] (0 = first player), [policy=NAME], "
            "[team=NAME] or [role=NAME]",
        )
    if metric == "mean_turns" and kind is not None:
        raise _terr(text, f"{kind}: mean_turns is about whole games, not a {kind}")
    value = _float(m["value"], text, "value")
    if metric == "win_share" and not 0 <= value <= 1:
        raise _terr(text, f"a win share is in [0, 1], got {_num(value)}")
    weight = 1.0 if m["weight"] is None else _float(m["weight"], text, "weight")
    if not weight > 0:
        raise _terr(text, f"the weight must be > 0, got {_num(weight)}")
    target = Target(text, metric, kind, name, decided, value, weight)
    return target._replace(
        text=f"{target.label}={_num(value)}" + (f"@{_num(weight)}" if m["weight"] else "")
    )


def _float(raw: str, text: str, what: str) -> float:
    try:
        x = float(raw.strip())
    except ValueError:
        raise _terr(text, f"the {what} must be a number, got {raw.strip()!r}") from None
    if not math.isfinite(x):
        raise _terr(text, f"the {what} must be finite, got {raw.strip()}")
    return x


def parse_param(text: str) -> tuple[str, tuple[str | int, ...], str, str, str | None]:
    """``KEY=lo..hi[:step]`` as (key, path, lo, hi, step) texts; bad syntax or a key that
    cannot be tuned raise one line naming the ``--param``."""
    text = text.strip()
    key, eq, raw = (part.strip() for part in text.partition("="))
    if not eq:
        raise _perr(text, "expected KEY=lo..hi[:step] (e.g. rules.compensation.gold=0..8)")
    m = _RANGE.fullmatch(raw)
    if m is None:
        raise _perr(
            text,
            f"expected a range lo..hi or lo..hi:step after '=', got {raw!r} "
            "(e.g. rules.compensation.gold=0..8, policies.greedy.action_threshold=-1..1:0.05)",
        )
    path = override(key, 0, source=PARAM).path  # checks the key's syntax
    if len(path) == 1 and path[0] in FIXED_KEYS:
        raise _perr(text, f"{key} cannot be tuned: {FIXED_KEYS[str(path[0])]}")
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
            raise _perr(text, problem)


def resolve_param(text: str, config: str | os.PathLike[str], sets: Sequence[Override]) -> Param:
    """A ``--param`` with its grid, typed by the config's value at its key; both ends of its
    range are validated as configs (an error names the ``--param`` and the key)."""
    key, path, lo_t, hi_t, step_t = parse_param(text)
    ints = all(t is None or _INT.fullmatch(t) for t in (lo_t, hi_t, step_t))
    lo_v: Any = int(lo_t) if _INT.fullmatch(lo_t) else float(lo_t)
    hi_v: Any = int(hi_t) if _INT.fullmatch(hi_t) else float(hi_t)
    if not float(hi_v) > float(lo_v):
        raise _perr(text, f"an empty range: {hi_t} is not above {lo_t}")
    resolved = load_config(config, sets).resolved_dict()
    current = _value_at(resolved, path)
    if current is _MISSING:
        _check_list_item(text, path, resolved)
    if isinstance(current, bool) or (
        current is not _MISSING and not isinstance(current, int | float)
    ):
        raise _perr(text, f"{key} is {current!r} in the config, not a number: nothing to tune")
    integer = isinstance(current, int) if current is not _MISSING else ints
    if integer and not ints:
        raise _perr(text, f"{key} is an integer: give integer bounds and step (e.g. {key}=0..8)")
    if integer:
        step: float = int(step_t) if step_t is not None else 1
    else:
        lo_v, hi_v = float(lo_v), float(hi_v)
        step = float(step_t) if step_t is not None else (hi_v - lo_v) / DEFAULT_STEPS
    if not step > 0:
        raise _perr(text, f"the step must be > 0, got {step_t}")
    try:
        values = rootfind.grid(lo_v, hi_v, step, integer=integer)
    except ValueError as e:
        raise _perr(text, str(e)) from None
    for end in (values[0], values[-1]):  # both ends validate as configs
        load_config(config, [*sets, override(key, _plain(end), source=PARAM)])
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


def _plain(v: Any) -> Any:
    """A grid value as the plain int or float a config validates."""
    return int(v) if isinstance(v, np.integer | int) else float(v)


# ========================================================================= playing the values


class _Run(NamedTuple):
    values: tuple[Any, ...]
    config: RunConfig
    prepared: runner.Prepared
    lineup: stats.Lineup
    groups: tuple[stats.Group | None, ...]  # per target


class _Space:
    """The config at any values of the knobs: each loaded, validated and compiled once (its
    tables; the kernels load once for all), and played on games of the common seed."""

    def __init__(
        self,
        config: str | os.PathLike[str],
        sets: Sequence[Override],
        params: Sequence[Param],
        targets: Sequence[Target],
        seed: int,
    ) -> None:
        self.config = config
        self.sets = list(sets)
        self.params = list(params)
        self.targets = list(targets)
        self.seed = seed
        self._runs: dict[tuple[Any, ...], _Run] = {}
        self._yaml: tuple[dict[str, Any], Provenance] | None = None
        self.games = 0

    def load(self, overrides: Sequence[Override]) -> RunConfig:
        """``load_config(config, overrides)`` without reading the file again (its YAML is read
        once: at hundreds of points, parsing it was a fifth of a tune's time)."""
        if self._yaml is None:
            self._yaml = load_yaml(self.config)
        data, prov = self._yaml
        prov = Provenance(dict(prov), files=list(prov.files))
        return config_from_dict(apply_to(data, overrides, prov), os.fspath(self.config), prov)

    def overrides(self, values: Sequence[Any]) -> list[Override]:
        return [
            *self.sets,
            *(p.override(_plain(v)) for p, v in zip(self.params, values, strict=True)),
        ]

    def run(self, values: Sequence[Any]) -> _Run:
        key = tuple(_plain(v) for v in values)
        if key not in self._runs:
            cfg = self.load(self.overrides(key))
            prepared = runner.prepare(cfg, seed=self.seed)
            line = lineup(prepared)
            groups = tuple(self._group(t, line, key) for t in self.targets)
            self._runs[key] = _Run(key, cfg, prepared, line, groups)
        return self._runs[key]

    def _group(self, t: Target, line: stats.Lineup, values: tuple[Any, ...]) -> stats.Group | None:
        if t.kind is None:
            return None
        for g in stats.groups(line, [t.kind]):
            if g.name == t.name:
                return g
        at = ", ".join(f"{p.key}={_num(v)}" for p, v in zip(self.params, values, strict=True))
        if t.kind in ("seat", "order"):
            problem = f"no {t.kind} {t.name} with {line.players} players (0-{line.players - 1})"
        elif t.kind == "role" and not line.roles:
            problem = "this game deals no roles"
        else:
            names = ", ".join(line.names(t.kind)) or "none"
            plural = {"policy": "policies", "team": "teams", "role": "roles"}[t.kind]
            problem = f"no seat plays {t.kind} {t.name!r} ({plural}: {names})"
        raise _terr(t.text, f"{t.kind}: {problem} at {at}")

    def model(self, t: Target, run: _Run) -> stats.sequential.Model:
        """Bernoulli for one seat's or one team's win (values 0, 1/k, 1), else normal."""
        g = run.groups[self.targets.index(t)]
        if t.metric != "win_share" or g is None:
            return "normal"
        if g.kind in ("seat", "order", "team"):
            return "bernoulli"
        seats = run.lineup.fixed_seats(g.kind, g.name)
        return "bernoulli" if seats is not None and len(seats) == 1 else "normal"

    def play(self, run: _Run, first_game: int, n: int) -> np.ndarray:
        """float[n, targets]: each target's per-game value in games [first_game, + n) (NaN for a
        game that does not count: not decided, or the group has no seat in it)."""
        out = np.empty((n, len(self.targets)))
        row = 0
        for (chunk,) in runner.play_chunks(
            [run.prepared], seed=self.seed, games=n, first_game=first_game, chunk_size=CHUNK
        ):
            arrays = chunk_arrays(chunk, run.prepared, run.lineup)
            rows = slice(row, row + arrays.n_games)
            for j, (t, g) in enumerate(zip(self.targets, run.groups, strict=True)):
                out[rows, j] = _values(t, g, arrays)
            row += arrays.n_games
        self.games += n
        return out


def _values(t: Target, g: stats.Group | None, arrays: stats.GameArrays) -> np.ndarray:
    if t.metric == "mean_turns":
        v = arrays.turns.astype(np.float64)
    elif g is None:
        v = arrays.score.mean(axis=1)
    else:
        win, score = stats.group_values(arrays, [g])
        v = (win if t.metric == "win_share" else score)[:, 0].copy()
    if t.decided:  # one team won alone: its seats' win is 1 (a shared first place gives 1/k)
        v = np.where(arrays.win.max(axis=1) >= 1.0, v, np.nan)
    return v


class TargetValue(NamedTuple):
    """A target's metric measured at one point, with its interval over games."""

    target: Target
    mean: float
    lo: float
    hi: float
    games: int  # games played
    counted: int  # of them, those that count (decided games, games with the group)
    level: float


def _measure(t: Target, values: np.ndarray, model: str, level: float) -> TargetValue:
    """Mean of the counted games with a fixed-size interval over games: Wilson for one seat's
    or team's win, a t-interval otherwise."""
    return _from_moments(t, moments(values[:, None]), len(values), model, level)


def _from_moments(t: Target, m: Moments, games: int, model: str, level: float) -> TargetValue:
    n = int(m.n[0])
    if n == 0:
        nan = float("nan")
        return TargetValue(t, nan, nan, nan, games, 0, level)
    mean = float(m.mean[0])
    if model == "bernoulli":
        lo, hi = wilson_interval(mean, n, level)
    else:
        ci = mean_interval(m, level)
        lo, hi = ci.lo[0], ci.hi[0]
    return TargetValue(t, mean, float(lo), float(hi), games, n, level)


# ==================================================================================== results


class Trial(NamedTuple):
    """One point of a search, on games 0 .. games - 1 of the seed."""

    values: tuple[Any, ...]
    distance: float
    means: tuple[float, ...]  # per target
    games: int
    measured: tuple[TargetValue, ...] = ()  # per target, with its interval over these games


class TuneResult(NamedTuple):
    config_path: str
    sets: tuple[str, ...]
    params: tuple[Param, ...]
    targets: tuple[Target, ...]
    seed: int
    budget: int
    method: str  # "bisection", "grid" or "tpe"
    answer: tuple[Any, ...]  # a value per param
    config: RunConfig  # the config at the answer
    root: rootfind.Root | None  # the root search (bisection)
    trials: tuple[Trial, ...]  # the search's points (grid, tpe), in the order played
    trial_games: int  # games each trial played (grid, tpe)
    refined: tuple[Trial, ...]  # the best trials played on more games, the answer among them
    at_answer: tuple[TargetValue, ...]  # on fresh games
    fresh_from: int  # the fresh games: [fresh_from, fresh_from + fresh_games)
    fresh_games: int
    distance: tuple[float, float, float] | None  # D at the answer on fresh games, its interval
    games: int  # every game played
    wall_time_s: float
    level: float

    @property
    def search_games(self) -> int:
        return self.games - self.fresh_games


def distance(targets: Sequence[Target], means: Sequence[float]) -> float:
    """The weighted distance of the module docstring."""
    return float(
        math.sqrt(
            sum(
                t.weight * ((m - t.value) / t.unit) ** 2
                for t, m in zip(targets, means, strict=True)
            )
        )
    )


def distance_interval(targets: Sequence[Target], box: Sequence[TargetValue]) -> tuple[float, float]:
    """The smallest and largest distance over the box of the targets' intervals."""
    near, far = [], []
    for t, v in zip(targets, box, strict=True):
        near.append(min(max(t.value, v.lo), v.hi))
        far.append(v.lo if abs(v.lo - t.value) > abs(v.hi - t.value) else v.hi)
    return distance(targets, near), distance(targets, far)


# ==================================================================================== tuning

Progress = Callable[[int, int], None]


def tune(
    config: str | os.PathLike[str],
    params: Sequence[str],
    targets: Sequence[str],
    *,
    sets: Sequence[str] = (),
    games: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    trials: int = DEFAULT_TRIALS,
    config_path: str | None = None,
    progress: Progress | None = None,
) -> TuneResult:
    """Tune ``config`` (module docstring): the ``--param`` and ``--target`` texts, the ``--set``
    overrides, a budget of ``games`` (default: the config's), the seed (default: the
    config's). Every option and both ends of every range are checked before any game."""
    t0 = time.perf_counter()
    shown = config_path or os.fspath(config)
    overrides = parse_overrides(sets)
    if not params:
        raise TuneError(
            f"give at least one {PARAM} KEY=lo..hi (e.g. {PARAM} rules.compensation.gold=0..8)"
        )
    if not targets:
        raise TuneError(
            f"give at least one {TARGET} METRIC=VALUE (e.g. {TARGET} 'win_share[order=0]=0.5')"
        )
    parsed = [resolve_param(p, config, overrides) for p in params]
    seen: dict[tuple[str | int, ...], Param] = {}
    for p in parsed:
        if p.path in seen:
            raise _perr(p.text, f"{p.key} is tuned twice (also {seen[p.path].label})")
        seen[p.path] = p
        for s in overrides:
            if s.path == p.path:
                raise _perr(p.text, f"{p.key} is also set by {s.label}; give it in one place")
    goals = [parse_target(t) for t in targets]
    base = load_config(config, overrides)
    budget = base.games if games is None else games
    seed = base.seed if seed is None else seed
    runner.check_options(games=budget, seed=seed, threads=threads, players=base.players)
    if not 1 <= trials <= MAX_TRIALS:
        raise TuneError(f"--trials must be between 1 and {MAX_TRIALS:,}, got {trials:,}")
    _check_budget(parsed, goals, budget, trials)  # before the kernels load, not after
    space = _Space(config, overrides, parsed, goals, seed)
    for values in ((p.values[0] for p in parsed), (p.values[-1] for p in parsed)):
        space.run(tuple(values))  # the groups exist at both ends, and the kernels are loaded
    with runner.numba_threads(threads):
        if len(parsed) == 1 and len(goals) == 1:
            out = _tune_root(space, budget, progress)
        else:
            out = _tune_search(space, budget, trials, progress)
    return out._replace(
        config_path=shown,
        sets=tuple(o.text for o in overrides),
        seed=seed,
        budget=budget,
        games=space.games,
        wall_time_s=time.perf_counter() - t0,
    )


def _blank(space: _Space, **fields: Any) -> TuneResult:
    defaults: dict[str, Any] = dict(
        config_path="",
        sets=(),
        params=tuple(space.params),
        targets=tuple(space.targets),
        seed=space.seed,
        budget=0,
        root=None,
        trials=(),
        trial_games=0,
        refined=(),
        distance=None,
        games=0,
        wall_time_s=0.0,
        level=LEVEL,
    )
    return TuneResult(**{**defaults, **fields})


def _fresh(space: _Space, run: _Run, first: int, n: int, level: float) -> tuple[TargetValue, ...]:
    values = space.play(run, first, n)
    return tuple(
        _measure(t, values[:, j], space.model(t, run), level) for j, t in enumerate(space.targets)
    )


def _tune_root(space: _Space, budget: int, progress: Progress | None) -> TuneResult:
    (param,) = space.params
    (target,) = space.targets
    model = space.model(target, space.run((param.values[0],)))
    reserve = budget // FRESH_SHARE
    _check_budget(space.params, space.targets, budget, 1)

    def evaluate(k: int, first: int, n: int) -> np.ndarray:
        return space.play(space.run((param.values[k],)), first, n)[:, 0]

    def searching(done: int, _total: int) -> None:
        if progress is not None:
            progress(done, budget)

    try:
        root = rootfind.find_root(
            param.values,
            target.value,
            evaluate,
            budget=budget - reserve,
            model=model,
            level=LEVEL,
            progress=searching,
        )
    except rootfind.NoCrossing as e:
        raise _no_crossing(param, target, e) from None
    k = int(np.argmin(np.abs(param.values.astype(np.float64) - root.estimate)))
    answer = _plain(param.values[k])
    run = space.run((answer,))
    n = min(budget - root.games, max(reserve, max(p.games for p in root.points)))
    at = _fresh(space, run, root.fresh_from, n, LEVEL)
    if progress is not None:
        progress(root.games + n, budget)
    return _blank(
        space,
        method="bisection",
        answer=(answer,),
        config=run.config,
        root=root,
        at_answer=at,
        fresh_from=root.fresh_from,
        fresh_games=n,
    )


def _no_crossing(param: Param, target: Target, e: rootfind.NoCrossing) -> TuneError:
    lo, hi = e.ends

    def at(p: rootfind.RootPoint) -> str:
        return f"{_fmt(p.mean)} [{_fmt(p.lo)}, {_fmt(p.hi)}] at {_num(p.x)} ({p.counted:,} games)"

    if e.why == "same side":
        side = "above" if lo.side > 0 else "below"
        return _terr(
            target.text,
            f"not reached in {param.key} = {_num(param.lo)}..{_num(param.hi)}: {target.label} is "
            f"{side} {_num(target.value)} at both ends ({at(lo)}; {at(hi)}); widen the range",
        )
    end = lo if lo.side == 0 else hi
    return _terr(
        target.text,
        f"{target.label} cannot be told from {_num(target.value)} at the end {param.key} = "
        f"{_num(end.x)} ({at(end)}): the answer may lie at or beyond it; widen the range or give "
        "more --games",
    )


def _check_budget(params: Sequence[Param], targets: Sequence[Any], budget: int, trials: int) -> None:
    """TuneError unless ``budget`` games leave enough for the search ``params`` and ``targets``
    make (bisection for one of each, else a search of ``trials`` points or the whole grid)."""
    if len(params) == 1 and len(targets) == 1:
        if budget - budget // FRESH_SHARE < 4 * 500:
            raise TuneError(
                f"--games {budget:,} is too few for a search: give at least {5 * 500:,} (a fifth "
                "is kept for a fresh look at the answer)"
            )
        return
    size = math.prod(len(p.values) for p in params)
    if size > trials:
        try:
            import optuna  # noqa: F401
        except ImportError:  # the extra is not installed
            raise TuneError(
                f"a grid of {size:,} points is searched with optuna, which is not installed: "
                "pip install 'balance[tune]' (or give at least as many --trials)"
            ) from None
    n_trials = size if size <= trials else trials
    fresh = budget // FRESH_SHARE
    refine = budget * REFINE_SHARE // 100
    per = (budget - fresh - refine) // n_trials
    if per < MIN_TRIAL_GAMES:
        need = -(-MIN_TRIAL_GAMES * n_trials * 100 // (100 - 100 // FRESH_SHARE - REFINE_SHARE))
        raise TuneError(
            f"--games {budget:,} leaves {per:,} games for each of {n_trials:,} trials: give at "
            f"least {need:,} (or fewer --trials)"
        )


def _tune_search(space: _Space, budget: int, trials: int, progress: Progress | None) -> TuneResult:
    params, targets = space.params, space.targets
    size = math.prod(len(p.values) for p in params)
    exhaustive = size <= trials
    if not exhaustive:
        try:
            import optuna
        except ImportError:  # the extra is not installed
            raise TuneError(
                f"a grid of {size:,} points is searched with optuna, which is not installed: "
                "pip install 'balance[tune]' (or give at least as many --trials)"
            ) from None
        optuna.logging.set_verbosity(optuna.logging.WARNING)
    n_trials = size if exhaustive else trials
    fresh = budget // FRESH_SHARE
    refine = budget * REFINE_SHARE // 100
    per = (budget - fresh - refine) // n_trials
    _check_budget(params, targets, budget, trials)
    seen: dict[tuple[Any, ...], tuple[Moments, int]] = {}  # per point: moments, games
    order: list[Trial] = []

    def play(values: tuple[Any, ...], first: int, n: int) -> Trial:
        run = space.run(values)
        before, games = seen.get(values, (None, 0))
        m = merge_moments(before, moments(space.play(run, first, n)))
        seen[values] = (m, games + n)
        column = [Moments(*(a[j : j + 1] for a in m)) for j in range(len(targets))]
        measured = tuple(
            _from_moments(t, c, games + n, space.model(t, run), LEVEL)
            for t, c in zip(targets, column, strict=True)
        )
        means = tuple(v.mean for v in measured)
        d = distance(targets, means)
        if progress is not None:
            progress(space.games, budget)
        return Trial(values, d if math.isfinite(d) else float("inf"), means, games + n, measured)

    def objective(trial: Any) -> float:
        index = [trial.suggest_int(p.key, 0, len(p.values) - 1) for p in params]
        values = tuple(_plain(p.values[i]) for p, i in zip(params, index, strict=True))
        if values not in seen:  # a sampler may propose a point again: it costs no games
            order.append(play(values, 0, per))
        return next(t for t in order if t.values == values).distance

    if exhaustive:  # every point of the grid, in order
        for index in itertools.product(*(range(len(p.values)) for p in params)):
            values = tuple(_plain(p.values[i]) for p, i in zip(params, index, strict=True))
            order.append(play(values, 0, per))
    else:
        sampler = optuna.samplers.TPESampler(seed=space.seed)
        study = optuna.create_study(direction="minimize", sampler=sampler)
        attempts = 0
        while len(order) < n_trials and attempts < 20 * n_trials:
            trial = study.ask()  # ask and tell: an error (or Ctrl-C) is raised, not logged
            study.tell(trial, objective(trial))
            attempts += 1
    # Refine: the best few on more of the same games, so that the pick is less a matter of luck.
    leaders = sorted(order, key=lambda t: t.distance)[:REFINE_LEADERS]
    more = refine // len(leaders)
    refined = tuple(play(t.values, per, more) for t in leaders) if more else tuple(leaders)
    best = min(refined, key=lambda t: t.distance)
    run = space.run(best.values)
    first = per + (more if refined is not leaders else 0)
    n = budget - space.games
    alpha = 1 - LEVEL
    at = _fresh(space, run, first, n, 1 - alpha / len(targets))
    d = distance(targets, [v.mean for v in at])
    lo, hi = distance_interval(targets, at)
    if progress is not None:
        progress(space.games, budget)
    return _blank(
        space,
        method="grid" if exhaustive else "tpe",
        answer=best.values,
        config=run.config,
        trials=tuple(order),
        trial_games=per,
        refined=refined,
        at_answer=at,
        fresh_from=first,
        fresh_games=n,
        distance=(d, lo, hi),
    )


# ================================================================================ the output


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


def _fmt(x: float) -> str:
    if not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return f"{x:.4f}" if abs(x) < 10 else f"{x:.2f}"


def _pct(level: float) -> str:
    return f"{level * 100:.4g} %"


def answer_text(result: TuneResult) -> str:
    return ", ".join(
        f"{p.key} = {_num(v)}" for p, v in zip(result.params, result.answer, strict=True)
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
            f"{answer_text(result)}; {_pct(r.level)} interval [{_num(r.lo)}, {_num(r.hi)}]: "
            f"{t.label} crosses {_num(t.value)} between {_num(r.lo)} and {_num(r.hi)} "
            "(if it is monotone in the knob, the value sought lies there)"
        )
        inside = sorted(r.bracket, key=lambda q: q.x)
        lines.append(
            "in the interval (the metric [its confidence sequence], games): "
            + "; ".join(
                f"{_num(q.x)}: {_fmt(q.mean)} [{_fmt(q.lo)}, {_fmt(q.hi)}] "
                f"{_SIDES[q.side]}, {q.counted:,}"
                for q in inside
            )
        )
        lines.append(
            f"bisection with confidence sequences on common seeds: {len(r.points)} of "
            f"{r.grid_size} values played, {r.games:,} games (each value's sequence at "
            f"{_pct(r.point_level)}: {_pct(r.level)} over the whole grid); stopped: "
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
                    f"({', '.join(_num(v) for v in t.values)}) "
                    + ", ".join(
                        (f"{v.target.label} " if len(t.measured) > 1 else "")
                        + f"{_fmt(v.mean)} [{_fmt(v.lo)}, {_fmt(v.hi)}]"
                        for v in t.measured
                    )
                    for t in sorted(result.refined, key=lambda t: t.distance)
                )
            )
        lines.append(
            f"distance at the answer on fresh games: {d:.3g} [{lo:.3g}, {hi:.3g}] "
            f"({_pct(LEVEL)}: the range over the targets' simultaneous intervals)"
        )
    for v in result.at_answer:
        lines.append(
            f"{v.target.label} at the answer: {_fmt(v.mean)} [{_fmt(v.lo)}, {_fmt(v.hi)}] "
            f"({_pct(v.level)}, target {_num(v.target.value)}) over {_counted(v)} fresh games "
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
