"""``balance tune``: the value of a knob that brings a metric to its target, on common seeds.

``--param KEY=lo..hi[:step]`` names a knob and the range searched, ``--target
'METRIC[SELECTOR]=VALUE[@WEIGHT]'`` a metric and its value (their grammar:
balance/experiments/tune_spec.py).

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

``--out FILE`` writes the tuned config (balance/experiments/tune_answer.py, which also words
the answer).

Nothing here prints: progress goes through ``progress(done, total)``; errors are ``TuneError``
or ``ConfigError`` (one line naming the option and the key).
"""

from __future__ import annotations

import itertools
import math
import os
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from balance import runner, stats
from balance.config import RunConfig, config_from_dict, load_config
from balance.config.loading import Provenance, load_yaml
from balance.config.overrides import Override, apply_to, parse_overrides
from balance.experiments.check import keeps_plays
from balance.experiments.check_spec import PLAYS, PLAYS_RATES
from balance.experiments.play import chunk_arrays, lineup
from balance.experiments.tune_spec import (
    PARAM,
    TARGET,
    Param,
    Target,
    TuneError,
    param_error,
    parse_target,
    plain_value,
    resolve_param,
    target_error,
)
from balance.fmt import fixed, num
from balance.runner import CHUNK
from balance.stats import rootfind
from balance.stats.paired import Moments, mean_interval, merge_moments, moments
from balance.stats.winrates import wilson_interval

FRESH_SHARE = 5  # a 1/FRESH_SHARE of the budget is kept for the fresh look at the answer
DEFAULT_TRIALS = 60
MAX_TRIALS = 100_000  # each trial plays at least MIN_TRIAL_GAMES games
REFINE_SHARE = 30  # percent of the budget for playing the best trials on more games
REFINE_LEADERS = 5  # trials refined
MIN_TRIAL_GAMES = 200  # a trial with fewer games says nothing
LEVEL = 0.95

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
            *(p.override(plain_value(v)) for p, v in zip(self.params, values, strict=True)),
        ]

    def run(self, values: Sequence[Any]) -> _Run:
        key = tuple(plain_value(v) for v in values)
        if key not in self._runs:
            cfg = self.load(self.overrides(key))
            prepared = runner.prepare(cfg, seed=self.seed)
            for t in self.targets:
                if t.metric in PLAYS and not keeps_plays(prepared):
                    raise target_error(
                        t.text, f"{cfg.game} records no trajectory (no plays metric to tune)"
                    )
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
        at = ", ".join(f"{p.key}={num(v)}" for p, v in zip(self.params, values, strict=True))
        if t.kind in ("seat", "order"):
            problem = f"no {t.kind} {t.name} with {line.players} players (0-{line.players - 1})"
        elif t.kind == "role" and not line.roles:
            problem = "this game deals no roles"
        else:
            names = ", ".join(line.names(t.kind)) or "none"
            plural = {"policy": "policies", "team": "teams", "role": "roles"}[t.kind]
            problem = f"no seat plays {t.kind} {t.name!r} ({plural}: {names})"
        raise target_error(t.text, f"{t.kind}: {problem} at {at}")

    def model(self, t: Target, run: _Run) -> stats.sequential.Model:
        """Bernoulli for one seat's or one team's win (values 0, 1/k, 1) or a rate of games (a
        comeback, a close game), else normal."""
        g = run.groups[self.targets.index(t)]
        if t.metric in PLAYS_RATES:  # a comeback or a close game: 0 or 1 a game
            return "bernoulli"
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
    elif t.metric in PLAYS:  # NaN in a game without one winner: it does not count
        v = arrays.plays.values[t.metric].copy()
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
            raise param_error(p.text, f"{p.key} is tuned twice (also {seen[p.path].label})")
        seen[p.path] = p
        for s in overrides:
            if s.path == p.path:
                raise param_error(p.text, f"{p.key} is also set by {s.label}; give it in one place")
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
    answer = plain_value(param.values[k])
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
        return f"{fixed(p.mean)} [{fixed(p.lo)}, {fixed(p.hi)}] at {num(p.x)} ({p.counted:,} games)"

    if e.why == "same side":
        side = "above" if lo.side > 0 else "below"
        return target_error(
            target.text,
            f"not reached in {param.key} = {num(param.lo)}..{num(param.hi)}: {target.label} is "
            f"{side} {num(target.value)} at both ends ({at(lo)}; {at(hi)}); widen the range",
        )
    end = lo if lo.side == 0 else hi
    return target_error(
        target.text,
        f"{target.label} cannot be told from {num(target.value)} at the end {param.key} = "
        f"{num(end.x)} ({at(end)}): the answer may lie at or beyond it; widen the range or give "
        "more --games",
    )


def _check_budget(
    params: Sequence[Param], targets: Sequence[Any], budget: int, trials: int
) -> None:
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
        values = tuple(plain_value(p.values[i]) for p, i in zip(params, index, strict=True))
        if values not in seen:  # a sampler may propose a point again: it costs no games
            order.append(play(values, 0, per))
        return next(t for t in order if t.values == values).distance

    if exhaustive:  # every point of the grid, in order
        for index in itertools.product(*(range(len(p.values)) for p in params)):
            values = tuple(plain_value(p.values[i]) for p, i in zip(params, index, strict=True))
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
