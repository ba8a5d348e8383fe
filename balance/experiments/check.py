"""``balance check``: the CI balance gate. A spec lists configs and claims about them (its grammar
and loading: check_spec.py); games run in batches and every claim's sequential probability ratio
test decides as soon as it can.

What each assertion promises, and how (balance/stats/sequential.py): P(pass | off by delta/2)
<= alpha and P(fail | holds with delta/2 to spare) <= beta, per assertion. Its k one-sided claims
share beta (beta/k each); an undecided assertion at its cap is INCONCLUSIVE and fails, and the
cap is sized so that this does not break beta (3 × the fixed-sample size, or more). A spec's
explicit ``max_games`` below that size gets a warning; ``inconclusive: pass`` is refused. The
printed interval is a confidence sequence, valid at the data-dependent stopping time.

Every claim is about a per-game mean (balance/stats/groups.py's per-game values):

- ``win_share``, ``mean_score``, ``mean_turns``: the group's win or mean score, the game length;
- ``*_shift`` (not ``max_role_shift``): the same, B minus the baseline on the same game;
- ``max_seat_shift``: every seat's win, B minus the baseline, one column per seat;
- ``first_player_edge``: the report's first player's edge (balance/stats/winrates.py
  ``seat_advantage``), per game: the win of the first player (order 0) minus the game's mean seat
  win. Averaged over games this is the first player's share minus a fair place's: 1/players when
  every game's wins add up to 1 (one seat per team), the average seat-game's win of the same
  games when the game deals teams; decided with the normal likelihood, as the report's interval
  over the per-game difference is;
- ``max_role_shift``: per role (Corvids' birds, Raven Manor's characters), in each game it was
  dealt, the mean win of its seats minus the game's mean seat win; averaged over those games,
  the role's share minus the average seat's share in the same games (balance/stats/winrates.py
  ``by_role``). Its claim "no role's deviation reaches ``below``" is the max over roles, not a
  per-game mean, so it is decided as ``max_seat_shift`` is: two one-sided claims per role (above
  -below and below +below), each an SPRT on that role's per-game deviations. The assertion passes
  only if every claim passes: if one role is off by delta/2, its wrong claim passes with chance
  <= alpha, so the assertion does too (an intersection-union test: alpha needs no split). It fails
  when any claim fails: each of the 2R claims gets beta/(2R) (Bonferroni, valid whatever the
  dependence between the roles of one game), so P(fail | every role holds with delta/2 to spare)
  <= beta. A role is dealt in some games only; each claim's SPRT and confidence sequence count the
  games it was dealt in, and the cap counts the games of the role dealt least (each batch adds
  the fewest games any role got in it), so every role reaches the cap its own variance needs
  before the assertion is cut off. This keeps the promised rates with no fixed-sample interval (a
  Bonferroni interval at a fixed n would waste the clear cases' games). The roles are those dealt
  in the check's first chunk of games (the first batch, or 65,536 games): a role the game never
  deals there (not in the config's pool) cannot be decided and is left out; one first dealt later
  is named in the result's detail as not covered.
- ``lead_changes``, ``comeback_half``, ``comeback_two_thirds``, ``max_deficit``, ``decided_at``,
  ``margin``, ``close``: how each game played, from its trajectory (balance/stats/plays.py); the
  winner's metrics are NaN in a game without one winner and left out (as a role not dealt is), so
  they are means over the games with one winner; a comeback or a close game is 0 or 1 (the
  Bernoulli likelihood); a game that deals sides (Raven Manor) has its sides' metrics. A game
  that records no trajectory is refused before any game.
- ``dead_turns``, ``forced``, ``first_minus_last``, ``kingmaking_games``: how each game is
  taken, from its census (balance/census.py: the run's games 0, 1, 2, ... replayed decision by
  decision with the census's default settings; stats/census.py ``per_game_values``): the game's
  share of dead turns and of forced decisions, the turns its first place took more than its
  last, and whether it had a kingmaking decision. The three shares lie in [0, 1] and take the
  Bernoulli likelihood (a quasi-likelihood for a fraction, valid as it is: stats/sequential.py),
  so that a share that is 0 in every game so far still gets an interval of some width. A census
  replays a game in Python (10 ms to 1 s, kingmaking most of it), so these claims look after
  every ``census_batch`` games of their own, once the other claims of the check have decided;
  their SPRTs, caps and promises are the same. Kingmaking is tested only while a
  ``kingmaking_games`` claim is open. A line-up with search seats is refused before any game."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as np

from balance import fmt, runner, stats
from balance.config import ConfigError, load_config
from balance.config.overrides import Override
from balance.experiments.check_spec import (  # DEFAULT_DELTA: tune.py imports it from here
    CENSUS,
    CENSUS_SHARES,
    DEFAULT_DELTA,  # noqa: F401
    MAX_GAMES,
    MAX_METRICS,
    PLAYS,
    PLAYS_RATES,
    AssertionSpec,
    Spec,
    assertion_claims,
)
from balance.experiments.play import Runs
from balance.runner import CHUNK
from balance.stats import plays
from balance.stats import sequential as seq
from balance.stats.census import per_game_values

Verdict = Literal["PASS", "FAIL", "INCONCLUSIVE"]


class AssertionResult(NamedTuple):
    check: str  # the check's name
    config: str  # the config's path as written in the spec
    label: str  # e.g. "win_share seat 0 within 0.25 ± 0.02"
    verdict: Verdict
    passed: bool  # PASS (an INCONCLUSIVE one fails)
    estimate: float  # the measured value (max_seat_shift: the shift of the seat that moved most)
    lo: float  # the estimate's confidence sequence at the spec's level, valid at the stop
    hi: float
    games: int  # games played when it was decided (the cap if inconclusive)
    detail: str  # how it was decided
    seconds: float  # time from the check's start to the decision
    cap: int = 0  # games at which it would have been cut off INCONCLUSIVE
    zone: str = ""  # when the estimate stopped inside a claim's indifference zone: which and where
    warning: str = ""  # when the spec's max_games is too small to keep beta: why and the fix


class CheckResult(NamedTuple):
    spec: str
    alpha: float
    beta: float
    level: float
    assertions: list[AssertionResult]
    games: int  # games played, all configs and checks
    wall_time_s: float

    @property
    def passed(self) -> bool:
        return all(a.passed for a in self.assertions)

    def counts(self) -> dict[str, int]:
        out = {"PASS": 0, "FAIL": 0, "INCONCLUSIVE": 0}
        for a in self.assertions:
            out[a.verdict] += 1
        return out

    def warnings(self) -> list[str]:
        return [a.warning for a in self.assertions if a.warning]


class _Bound(NamedTuple):
    """An assertion made ready to run: where its numbers come from and its SPRTs."""

    spec: AssertionSpec
    index: int
    run: int  # index of the config's run
    base: int | None  # index of the baseline's run
    group_run: list[stats.Group] | None
    group_base: list[stats.Group] | None
    # None only for max_role_shift before the first chunk, whose roles make its columns
    test: stats.SequentialAssertion | None
    labels: list[str]  # what each column is (max_seat_shift: the seats; max_role_shift: roles)
    key: str  # where the spec wrote it: checks[i].assertions[j]
    all_roles: tuple[stats.Group, ...] = ()  # max_role_shift: every role the game names


def _resolve(spec_dir: str, path: str) -> str:
    return os.path.normpath(os.path.join(spec_dir, path))


def _find_group(
    line: stats.Lineup, group: tuple[str, str], file: str, key: str, cfg_path: str
) -> stats.Group:
    kind, name = group
    for g in stats.groups(line, [kind]):
        if g.name == name:
            return g
    if kind in ("seat", "order"):
        problem = f"no {kind} {name} in {cfg_path} ({line.players} players, 0-{line.players - 1})"
    elif kind == "role" and not line.roles:
        problem = f"{cfg_path}: this game deals no roles"
    else:
        names = line.names(kind)
        problem = f"no seat plays {kind} {name!r} in {cfg_path} ({', '.join(names)})"
    return _raise(file, key, problem)


def _raise(file: str, key: str, problem: str) -> Any:
    raise ConfigError(f"{file}: {key}: {problem}", file=file, key=key, problem=problem)


def _on_rung(cfg: Any, name: str, shown: str, key: str) -> Any:
    """``cfg`` with every seat playing the skill ladder's rung ``name`` (its report section
    kept: the check's verdicts are the config's)."""
    from balance.experiments import ladder

    try:
        rung = ladder.rung(cfg, name)
        out = ladder.lineup_config(cfg, [rung] * cfg.players, what=f"every seat {name}")
    except ladder.LadderError as e:
        _raise(shown, f"{key}.players", str(e).removeprefix(f"{ladder.SOURCE}: "))
    return out.model_copy(update={"report": cfg.report})


def first_player_edge(arr: stats.GameArrays) -> np.ndarray:
    """Per game, the first player's (order 0) win minus the game's mean seat win: its mean over
    games is the report's first player's edge (balance/stats/winrates.py ``seat_advantage``)."""
    first = np.argmax(arr.order == 0, axis=1)
    return arr.win[np.arange(arr.n_games), first] - arr.win.mean(axis=1)


def role_shifts(arr: stats.GameArrays, roles: Sequence[stats.Group]) -> np.ndarray:
    """Per game and role (float[n, R]), the mean win of the role's seats minus the game's mean
    seat win; NaN in a game that did not deal the role. A role's mean over the games it was
    dealt in is its win share minus the average seat's share in those games."""
    win, _ = stats.group_values(arr, roles)
    return win - arr.win.mean(axis=1)[:, None]


def _values(b: _Bound, arrays: list[stats.GameArrays]) -> np.ndarray:
    """The per-game numbers of one assertion for one batch (float[n] or float[n, columns]; NaN
    where a group had no seat in a game)."""
    a = b.spec
    if a.metric == "first_player_edge":
        return first_player_edge(arrays[b.run])
    if a.metric in PLAYS:
        return arrays[b.run].plays.values[a.metric]  # NaN: a game without one winner
    if a.metric == "max_role_shift":
        return role_shifts(arrays[b.run], b.group_run or [])

    def one(run: int, grp: list[stats.Group] | None) -> np.ndarray:
        arr = arrays[run]
        metric = a.metric.removesuffix("_shift")
        if metric == "mean_turns" or a.metric == "max_seat_shift":
            return arr.turns if metric == "mean_turns" else arr.win
        if grp is None:  # mean_score of all seats
            return arr.score.mean(axis=1)
        win, score = stats.group_values(arr, grp)
        return (win if metric == "win_share" else score)[:, 0]

    x = one(b.run, b.group_run)
    if b.base is not None:
        x = x - one(b.base, b.group_base)
    return x


def assertion_test(
    a: AssertionSpec,
    spec: Spec,
    *,
    columns: int = 1,
    model: seq.Model = "normal",
    reps: int | None = None,
) -> stats.SequentialAssertion:
    """The sequential test of one assertion, with the spec's error rates, cap and level
    (``reps`` independent copies at once: to check its promises by simulation)."""
    return stats.SequentialAssertion(
        assertion_claims(a, columns),
        alpha=spec.alpha,
        beta=spec.beta,
        model=model,
        max_games=spec.max_games,
        level=spec.level,
        reps=reps,
    )


def check(
    spec: Spec,
    *,
    spec_path: str | os.PathLike[str] = "spec",
    threads: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    overrides: Sequence[Override] = (),
) -> CheckResult:
    """Run every check of ``spec`` in batches until each assertion's SPRT decides or reaches
    its cap (the spec's ``max_games``, else the assertion's own, sized to keep beta).

    Config paths are relative to ``spec_path``; ``overrides`` (``--set``) apply to every config
    the spec names, baselines too. A config that does not load, or an assertion
    that names a seat, policy or team the config lacks, raises ConfigError before any game.
    ``progress(check name, games done, cap)`` is called after each batch (the cap: the largest
    an open assertion has now, which may move while a ``normal`` series' variance is learnt).
    """
    shown = os.fspath(spec_path)
    spec_dir = os.path.dirname(shown)
    t0 = time.perf_counter()
    if threads is not None:
        runner.check_threads(threads)
    prepared = [
        _prepare_check(spec, shown, spec_dir, i, overrides) for i in range(len(spec.checks))
    ]
    results: list[AssertionResult] = []
    played = 0
    with runner.numba_threads(threads):
        for name, cfg_path, runs, seed, bounds in prepared:
            decided_at: dict[int, tuple[int, float]] = {}
            late: dict[int, dict[str, int]] = {}  # max_role_shift: roles first dealt later
            start = time.perf_counter()
            games = 0
            replayed = 0  # the census games the census claims were fed
            if any(b.spec.metric not in CENSUS for b in bounds):
                runs.load(seed)
            while any(b.index not in decided_at for b in bounds if b.spec.metric not in CENSUS):
                n = spec.batch
                if spec.max_games is not None:
                    n = min(n, spec.max_games - games)
                if n <= 0:  # every open assertion is INCONCLUSIVE at the cap by now
                    break
                for arrays in runs.play(
                    seed=seed, games=n, first_game=games, chunk_size=min(n, CHUNK)
                ):
                    done = arrays[0].first_game + arrays[0].n_games  # games played so far
                    for i, b in enumerate(bounds):
                        if b.index in decided_at or b.spec.metric in CENSUS:
                            continue
                        if b.test is None:
                            bounds[i] = b = _deal_roles(b, arrays, spec, shown, cfg_path)
                        elif b.spec.metric == "max_role_shift":
                            _note_late_roles(b, arrays, late)
                        if feed_values(_test(b), _values(b, arrays)) is not None:
                            decided_at[b.index] = (done, time.perf_counter() - start)
                games += n
                played += n * len(runs.runs)
                if progress is not None:
                    open_caps = [
                        _cap_played(_test(b), games)
                        for b in bounds
                        if b.index not in decided_at and b.spec.metric not in CENSUS
                    ]
                    progress(name, games, max(open_caps, default=games))
            elapsed = time.perf_counter() - start
            counted = [b for b in bounds if b.spec.metric in CENSUS]
            if counted:
                replayed = _census_claims(
                    spec, runs.runs[0].config, seed, counted, decided_at, start, name, progress
                )
                played += replayed
                elapsed = time.perf_counter() - start
            for b in bounds:
                results.append(
                    _result(
                        spec,
                        shown,
                        name,
                        cfg_path,
                        b,
                        elapsed,
                        decided_at,
                        replayed if b.spec.metric in CENSUS else games,
                        late,
                    )
                )
    return CheckResult(
        spec=shown,
        alpha=spec.alpha,
        beta=spec.beta,
        level=spec.level,
        assertions=results,
        games=played,
        wall_time_s=time.perf_counter() - t0,
    )


def _census_claims(
    spec: Spec,
    config: Any,
    seed: int,
    bounds: list[_Bound],
    decided_at: dict[int, tuple[int, float]],
    start: float,
    name: str,
    progress: Callable[[str, int, int], None] | None,
) -> int:
    """Feed the census claims of a check (module docstring) the census of games 0, 1, 2, ...
    of ``seed``, ``spec.census_batch`` at a time, until each decides or reaches its cap (or
    the census's bound, census.MAX_GAMES); returns the games replayed."""
    from balance import census as cs

    games = 0
    top = min(spec.max_games or cs.MAX_GAMES, cs.MAX_GAMES)
    while any(b.index not in decided_at for b in bounds):
        n = min(spec.census_batch, top - games)
        if n <= 0:
            break
        king = any(
            b.spec.metric == "kingmaking_games" and b.index not in decided_at for b in bounds
        )
        frame, _ = cs.census(config, seed, range(games, games + n), cs.Settings(kingmaking=king))
        values = per_game_values(frame)
        games += n
        for b in bounds:
            if b.index not in decided_at and feed_values(_test(b), values[b.spec.metric]):
                decided_at[b.index] = (games, time.perf_counter() - start)
        if progress is not None:
            caps = [_cap_played(_test(b), games) for b in bounds if b.index not in decided_at]
            progress(name, games, max(caps, default=games))
    return games


def _censusable(cfg: Any, shown: str, key: str, cfg_path: str) -> None:
    """One line naming the assertion when its config's census cannot be taken (search seats)."""
    from balance import census as cs
    from balance.errors import BalanceError

    try:
        cs.censusable(cfg)
    except BalanceError as e:
        _raise(shown, key, f"{cfg_path}: {e}")


def _test(b: _Bound) -> stats.SequentialAssertion:
    if b.test is None:  # _deal_roles runs before the first games are fed
        raise RuntimeError(f"{b.key}: the roles of max_role_shift are not known yet")
    return b.test


def feed_values(test: stats.SequentialAssertion, values: np.ndarray) -> seq.Verdict | None:
    """Feed the next games' per-game values (float[n] or float[n, k]; with ``reps``,
    float[reps, n] or float[reps, n, k]) to an assertion's test. NaN (a role not dealt in a
    game) is left out of its column, and the games count as the fewest any column got: the
    test's games, its cap and its ``min_games`` are then those of the group observed least, so
    that every column's SPRT reaches the cap its own variance needs (without NaN: every game)."""
    v = np.asarray(values, dtype=np.float64)
    if test.reps is None:
        x = v.reshape(len(v), 1, -1)
    else:
        x = np.moveaxis(v.reshape(test.reps, v.shape[1], -1), 1, 0)
    seen = (~np.isnan(x)).sum(axis=0).min(axis=-1)  # per replicate
    return test.update_moments(stats.moments(x), games=seen)


def _cap_played(test: stats.SequentialAssertion, played: int) -> int:
    """A test's cap in games played: the cap itself when the test saw every game, else scaled
    by the games played per game it counted (a role dealt in half the games: twice the cap)."""
    cap = float(np.max(test.cap_games()))
    seen = int(test.games)
    if 0 < seen < played:
        cap *= played / seen
    return int(min(np.ceil(cap), MAX_GAMES))


def _deal_roles(
    b: _Bound, arrays: list[stats.GameArrays], spec: Spec, shown: str, cfg_path: str
) -> _Bound:
    """max_role_shift's columns: the roles dealt in the first chunk of games (a role of the
    game's list that the config never deals has no games to decide on)."""
    arr = arrays[b.run]
    roles = b.all_roles
    dealt = set(np.unique(arr.role).tolist()) if arr.role is not None else set()
    groups = [g for g in roles if g.code in dealt]
    if not groups:
        _raise(shown, f"{b.key}.metric", f"{cfg_path} dealt no roles in its first games")
    test = assertion_test(b.spec, spec, columns=len(groups), model="normal")
    labels = [f"role {g.name}" for g in groups]
    return b._replace(group_run=groups, test=test, labels=labels)


def _note_late_roles(
    b: _Bound, arrays: list[stats.GameArrays], late: dict[int, dict[str, int]]
) -> None:
    """Record the roles a later chunk deals that the first did not (not covered: no column)."""
    arr = arrays[b.run]
    if arr.role is None:
        return
    known = {g.code for g in b.group_run or []}
    for code in set(np.unique(arr.role).tolist()) - known:
        rows = np.flatnonzero((arr.role == code).any(axis=1))
        first = arr.first_game + int(rows[0])
        name = next((g.name for g in b.all_roles if g.code == code), str(code))
        late.setdefault(b.index, {}).setdefault(name, first)


def _prepare_check(
    spec: Spec, shown: str, spec_dir: str, i: int, overrides: Sequence[Override] = ()
) -> tuple[str, str, Runs, int, list[_Bound]]:
    """A check's configs compiled (not yet their kernels) and its assertions bound to their
    groups, so that a spec naming a seat, policy, team or role the run lacks fails at once."""
    c = spec.checks[i]

    def load(path: str) -> Any:
        """A config of the check, every seat on the check's rung when it names one."""
        cfg = load_config(_resolve(spec_dir, path), overrides)
        return cfg if c.players is None else _on_rung(cfg, c.players, shown, f"checks[{i}]")

    cfg = load(c.config)
    paths = [c.config]
    configs = [cfg]
    for a in c.assertions:
        base_path = a.baseline or c.baseline
        if a.paired and base_path not in paths:
            paths.append(base_path)
            configs.append(load(base_path))
    seed = spec.seed if spec.seed is not None else cfg.seed
    runner.check_options(games=spec.max_games or spec.batch, seed=seed)
    runs = Runs(configs, seed, load=False)
    bounds = []
    for j, a in enumerate(c.assertions):
        key = f"checks[{i}].assertions[{j}]"
        base_idx = None
        base_path = a.baseline or c.baseline
        if a.paired:
            base_idx = paths.index(base_path)
            base_cfg = configs[base_idx]
            if base_cfg.players != cfg.players or base_cfg.game != cfg.game:
                _raise(
                    shown,
                    f"{key}.baseline",
                    f"{base_path} must be the same game with the same number of players as "
                    f"{c.config}",
                )
        group = a.group()
        g_run = g_base = None
        if group is not None:
            gkey = f"{key}.{group[0]}"
            g_run = [_find_group(runs.lineups[0], group, shown, gkey, c.config)]
            if base_idx is not None:
                g_base = [_find_group(runs.lineups[base_idx], group, shown, gkey, base_path)]
        if a.metric == "max_role_shift":
            line = runs.lineups[0]
            if not line.roles:
                _raise(shown, f"{key}.metric", f"{c.config}: {cfg.game} deals no roles")
            # The columns are the roles dealt in the first chunk (_deal_roles).
            roles = tuple(stats.groups(line, ["role"]))
            bounds.append(_Bound(a, j, 0, None, None, None, None, [], key, roles))
            continue
        if a.metric in CENSUS:
            _censusable(cfg, shown, f"{key}.metric", c.config)
        if a.metric in PLAYS and not keeps_plays(runs.runs[0]):
            _raise(
                shown,
                f"{key}.metric",
                f"{c.config}: {cfg.game} records no trajectory (no plays metric to check)",
            )
        columns = cfg.players if a.metric == "max_seat_shift" else 1
        model: seq.Model = "bernoulli" if _bernoulli(a, g_run, runs.lineups[0]) else "normal"
        test = assertion_test(a, spec, columns=columns, model=model)
        labels = [f"seat {s}" for s in range(columns)] if a.metric == "max_seat_shift" else [""]
        bounds.append(_Bound(a, j, 0, base_idx, g_run, g_base, test, labels, key))
    name = c.name or Path(c.config).stem
    return name, c.config, runs, seed, bounds


def keeps_plays(run: Any) -> bool:
    """Whether a prepared run's games give the plays metrics (experiments/play.py
    ``chunk_arrays``): a trajectory, by seat or by the sides it records (stats/plays.py)."""
    return plays.units(run.plugin.trace_measures, run.team_names) is not None


def _bernoulli(a: AssertionSpec, grp: list[stats.Group] | None, line: stats.Lineup) -> bool:
    """Whether the assertion's per-game value is one seat's or one team's win (0, 1/k or 1: the
    Bernoulli likelihood), a rate of games (a comeback, a close game) or a census's share (in
    [0, 1]); a policy of several seats or a role is a mean (normal likelihood)."""
    if a.metric in PLAYS_RATES or a.metric in CENSUS_SHARES:
        return True
    if a.metric != "win_share" or grp is None:
        return False
    g = grp[0]
    if g.kind in ("seat", "order", "team"):
        return True
    seats = line.fixed_seats(g.kind, g.name)
    return seats is not None and len(seats) == 1


def _claim_text(b: _Bound, c: stats.Claim) -> str:
    what = f"{b.labels[c.column]} " if b.labels[c.column] else ""
    return f"{what}{c.side} {fmt.num(c.bound)}"


def cap_warning(test: stats.SequentialAssertion, spec: Spec, played: int | None = None) -> str:
    """Why an explicit ``max_games`` is too small for this assertion's delta, or "".
    ``played``: the games played while the test was fed, when it counted fewer (a role's)."""
    too_small = bool(test.cap_too_small())
    need = test.required_games()
    seen = int(test.games)
    if spec.max_games is not None and played and need and 0 < seen < played:
        need = int(np.ceil(need * played / seen))  # in games played, as max_games is
        too_small = need > spec.max_games
    if not too_small:
        return ""
    delta = test.claims[0].delta
    return (
        f"max_games {spec.max_games:,} is below the {need:,} games that delta {fmt.num(delta)} "
        "needs "
        f"(at least {seq.CAP_FACTOR:g} × the fixed-sample size): a claim that holds may end "
        f"INCONCLUSIVE (a failure) more often than beta {fmt.num(spec.beta)}; raise max_games "
        "(or delete it: each assertion then gets its own) or widen delta"
    )


def _result(
    spec: Spec,
    shown: str,
    name: str,
    cfg_path: str,
    b: _Bound,
    elapsed: float,
    decided_at: dict[int, tuple[int, float]],
    played: int,
    late: dict[int, dict[str, int]],
) -> AssertionResult:
    test = _test(b)
    ci = test.estimate(spec.level)
    j = int(np.nanargmax(np.abs(ci.mean))) if b.spec.metric in MAX_METRICS else 0
    estimate, lo, hi = float(ci.mean[j]), float(ci.lo[j]), float(ci.hi[j])
    lower, upper = test.tests[0].bounds
    llr = test.llr()
    used, seconds = decided_at.get(b.index, (played, elapsed))
    cap = _cap_played(test, used)
    cap_text = f"{cap:,} games"
    if 0 < int(test.games) < used:  # a role's test counts the games the role was dealt in
        own = int(np.max(test.cap_games()))
        fewest = "the role" if b.spec.metric != "max_role_shift" else "the role dealt least"
        cap_text = f"{own:,} games that deal {fewest} (about {cap:,} games played)"
    if test.verdict in (None, "inconclusive"):
        verdict: Verdict = "INCONCLUSIVE"
        detail = (
            f"undecided at the cap of {cap_text} (LLR {_llrs(llr)} within "
            f"[{lower:.2f}, {upper:.2f}]); counts as a failure"
        )
    elif test.verdict == "fail":
        verdict = "FAIL"
        bad = int(np.flatnonzero(test.decisions < 0)[0])
        detail = (
            f"SPRT: {_claim_text(b, test.claims[bad])} rejected (LLR {llr[bad]:.2f} <= {lower:.2f})"
        )
    else:
        verdict = "PASS"
        detail = f"SPRT: every bound accepted (LLR {_llrs(llr)} >= {upper:.2f})"
    if b.spec.metric in MAX_METRICS:
        detail = f"largest shift: {b.labels[j]}; " + detail
    k = len(test.claims)
    detail += (
        f"\nerror rates: alpha {fmt.num(spec.alpha)} per claim, beta {fmt.num(spec.beta)}/{k} = "
        f"{fmt.num(test.claim_beta)} per claim ({k} claim{'s' if k > 1 else ''}); "
        f"cap {cap_text} ({'max_games' if spec.max_games is not None else 'sized to keep beta'})"
        f"\ninterval: {fmt.level(spec.level)} confidence sequence ("
        + (
            "beta-binomial mixture: valid at any stopping time)"
            if test.model == "bernoulli"
            else "normal mixture with the sample sd: valid at any stopping time, asymptotically)"
        )
    )
    if b.spec.metric == "max_role_shift":
        first = min(spec.batch, CHUNK)
        detail += f"\nroles: the {len(b.labels)} dealt in the first {first:,} games"
        missed = late.get(b.index, {})
        if missed:
            named = ", ".join(f"{r} (first dealt in game {g:,})" for r, g in missed.items())
            detail += f"; not covered, dealt only later: {named}"
    if b.spec.metric in CENSUS:
        detail += (
            f"\ncensus: games 0 to {used - 1:,} replayed decision by decision, "
            f"{spec.census_batch:,} a look (balance census: docs/commands/census.md)"
        )
    zone = _zone(b)
    if zone:
        detail += f"\nindifference zone: {zone}"
    warning = cap_warning(test, spec, used)
    if warning:
        warning = f"{shown}: {b.key}: {warning}"
        detail += f"\nwarning: {warning}"
    return AssertionResult(
        check=name,
        config=cfg_path,
        label=b.spec.label(),
        verdict=verdict,
        passed=verdict == "PASS",
        estimate=estimate,
        lo=lo,
        hi=hi,
        games=used,
        detail=detail,
        seconds=seconds,
        cap=cap,
        zone=zone,
        warning=warning,
    )


def _zone(b: _Bound) -> str:
    """The claims that decided the verdict (a FAIL: those that failed; else all) whose estimate
    stopped inside their indifference zone (delta wide around the bound), where the SPRT may
    decide either way: "" when none did."""
    test = _test(b)
    zone = test.in_zone()
    if test.verdict == "fail":  # the claims that failed decided it; the others do not matter
        zone &= test.decisions < 0
    inside = np.flatnonzero(zone)
    if not len(inside):
        return ""
    mean = test.moments.mean
    parts = []
    for i in inside:
        c = test.claims[i]
        lo, hi = sorted(c.hypotheses)
        m = fmt.fixed(float(mean[c.column]))
        parts.append(f"{_claim_text(b, c)}: {m} in [{fmt.fixed(lo)}, {fmt.fixed(hi)}]")
    return "; ".join(parts)


def _llrs(llr: np.ndarray) -> str:
    if len(llr) <= 2:
        return ", ".join(f"{x:.2f}" for x in llr)
    return f"min {llr.min():.2f}"
