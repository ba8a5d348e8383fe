"""``balance check``: the CI balance gate. A spec lists configs and claims about them; games run
in batches and every claim's sequential probability ratio test decides as soon as it can.

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
  is named in the result's detail as not covered."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as np
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from balance import fmt, runner, stats
from balance.config import ConfigError, load_config, load_yaml, validation_error
from balance.experiments.play import Runs
from balance.overrides import Override
from balance.runner import CHUNK
from balance.stats import sequential as seq

Metric = Literal[
    "win_share",
    "mean_score",
    "mean_turns",
    "win_share_shift",
    "mean_score_shift",
    "mean_turns_shift",
    "max_seat_shift",
    "first_player_edge",
    "max_role_shift",
]
# Metrics that compare the config with a baseline, game by game (max_role_shift does not: its
# "shift" is a role's deviation from the average seat of the same games).
PAIRED = ("win_share_shift", "mean_score_shift", "mean_turns_shift", "max_seat_shift")
# Metrics whose values are shares (of the games won, in [0, 1]) or differences of shares (in
# [-1, 1]): a bound, a centre, a tolerance or a delta beyond those is a mistake, usually a
# percentage ("within: [50, 10]" for 0.5 ± 0.1).
SHARES = ("win_share",)
SHARE_DIFFERENCES = ("win_share_shift", "max_seat_shift", "first_player_edge", "max_role_shift")
_GROUP_KEYS = stats.KINDS
# Default indifference width delta of the SPRT, by the quantity a metric measures.
DEFAULT_DELTA = {"win_share": 0.01, "mean_score": 0.5, "mean_turns": 1.0}
# Metrics measured on the shares' scale (their default delta is a share's).
_ON_SHARE_SCALE = ("max_seat_shift", "first_player_edge", "max_role_shift")
_STRICT = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
MAX_BATCH = 1_000_000  # games per batch: more only delays the first look
MAX_GAMES = 10**12  # a cap beyond any run (10^12 games is days of CPU)
_NO_INCONCLUSIVE_PASS = (
    "'pass' is not allowed: an assertion left undecided at the cap would pass unseen; delete the "
    "key (INCONCLUSIVE always fails) and give the claim more games (max_games) or a wider delta"
)


class AssertionSpec(BaseModel):
    """One balance claim, e.g. ``{metric: win_share, seat: 0, within: [0.25, 0.02]}``."""

    model_config = _STRICT

    metric: Metric = Field(description="what is measured")
    seat: int | None = Field(None, ge=0, description="the seat (win_share, mean_score)")
    order: int | None = Field(None, ge=0, description="place in the turn order, 0 = first player")
    policy: str | None = Field(None, description="the seats playing this policy")
    team: str | None = Field(None, description="the seats of this team (per game)")
    role: str | None = Field(None, description="the seats dealt this role (per game)")
    above: float | None = Field(None, description="claim: the value is above this")
    below: float | None = Field(None, description="claim: the value is below this")
    within: list[float] | None = Field(
        None, min_length=2, max_length=2, description="claim: [centre, tolerance]"
    )
    delta: float | None = Field(
        None, gt=0, description="SPRT indifference width around each bound (default by metric)"
    )
    baseline: str | None = Field(
        None, description="config the *_shift metrics (but max_role_shift) compare against"
    )
    name: str | None = Field(None, description="label shown instead of the generated one")

    @model_validator(mode="after")
    def _consistent(self) -> AssertionSpec:
        bounds = [k for k in ("above", "below", "within") if getattr(self, k) is not None]
        if len(bounds) != 1:
            raise ValueError("give exactly one of above, below, within")
        if self.within is not None and not self.within[1] > 0:
            raise ValueError(f"within: the tolerance must be > 0, got {self.within[1]}")
        given = [k for k in _GROUP_KEYS if getattr(self, k) is not None]
        if len(given) > 1:
            raise ValueError(
                f"give at most one of seat, order, policy, team, role, got {', '.join(given)}"
            )
        base = self.metric.removesuffix("_shift")
        if base == "win_share" and not given:
            raise ValueError(f"{self.metric} needs one of seat, order, policy, team, role")
        if self.metric in _WHOLE_GAME and given:
            raise ValueError(
                f"{given[0]}: {self.metric} {_WHOLE_GAME[self.metric].format(given[0])}"
            )
        if self.metric in ("max_seat_shift", "max_role_shift"):
            what = "seat" if self.metric == "max_seat_shift" else "role"
            if self.below is None or self.below <= 0:
                raise ValueError(f"{self.metric} takes below: a bound > 0 on every {what}'s shift")
        if self.metric not in PAIRED and self.baseline is not None:
            raise ValueError(
                f"baseline: {self.metric} uses no baseline (only {', '.join(PAIRED)} do)"
            )
        _check_shares(self)
        delta = self.delta if self.delta is not None else _default_delta(self.metric)
        for c in _claims(self, 1):
            mu0, mu1 = c.hypotheses
            if not (np.isfinite(mu0) and np.isfinite(mu1)) or mu0 == mu1:
                raise ValueError(
                    f"delta: {delta:g} around the bound {c.bound:g} leaves nothing to test "
                    "(bound - delta/2 and bound + delta/2 must be two different finite numbers)"
                )
        return self

    @property
    def paired(self) -> bool:
        """Whether the metric compares the config with a baseline, game by game."""
        return self.metric in PAIRED

    def group(self) -> tuple[str, str] | None:
        for k in _GROUP_KEYS:
            value = getattr(self, k)
            if value is not None:
                return k, str(value)
        return None

    def label(self) -> str:
        if self.name:
            return self.name
        group = self.group()
        text = self.metric + (f" {group[0]} {group[1]}" if group else "")
        if self.within is not None:
            text += f" within {fmt.num(self.within[0])} ± {fmt.num(self.within[1])}"
        elif self.above is not None:
            text += f" above {fmt.num(self.above)}"
        else:
            text += f" below {fmt.num(self.below)}"
        return text


_WHOLE_GAME = {
    "mean_turns": "is about whole games, not a {}",
    "mean_turns_shift": "is about whole games, not a {}",
    "max_seat_shift": "is about whole games, not a {}",
    "first_player_edge": "is the first player's (order 0) against the game's average seat: "
    "it takes no {}",
    "max_role_shift": "is about every role the game deals: it takes no {}",
}


def _check_shares(a: AssertionSpec) -> None:
    """Refuse a share-valued number outside the shares' range: [0, 1] for a share's bound or
    centre, [-1, 1] for a difference of shares, (0, 1] for a tolerance, a delta or the
    ``below`` of a max shift. A number in (1, 100] is most likely a percentage: the message
    says so."""
    if a.metric not in SHARES and a.metric not in SHARE_DIFFERENCES:
        return
    low = 0.0 if a.metric in SHARES else -1.0
    what = "a share" if a.metric in SHARES else "a difference of shares"
    # (key, value, lowest and highest allowed, what the value is)
    values: list[tuple[str, float, float, float, str]] = []
    for side in ("above", "below"):
        x = getattr(a, side)
        if x is None:
            continue
        if a.metric.startswith("max_"):
            values.append((side, x, 0.0, 1.0, f"a bound on {what}"))
        else:
            values.append((side, x, low, 1.0, what))
    if a.within is not None:
        values.append(("within", a.within[0], low, 1.0, what))
        values.append(("within", a.within[1], 0.0, 1.0, f"the tolerance of {what}"))
    if a.delta is not None:
        values.append(("delta", a.delta, 0.0, 1.0, f"the indifference width of {what}"))
    for key, x, lo, hi, kind in values:
        if lo <= x <= hi:
            continue
        problem = f"{fmt.num(x)} is outside [{fmt.num(lo)}, {fmt.num(hi)}], the range of {kind}"
        if 1 < abs(x) <= 100:
            problem += f": {fmt.num(x)} looks like a percentage: write {fmt.num(x / 100)}"
        raise ValueError(f"{key}: {problem}")


class CheckSpec(BaseModel):
    """One config and the claims about it."""

    model_config = _STRICT

    name: str | None = Field(None, description="label (default: the config's file name)")
    config: str = Field(description="config file, relative to the spec")
    baseline: str | None = Field(
        None, description="config the *_shift metrics compare against, relative to the spec"
    )
    assertions: list[AssertionSpec] = Field(min_length=1)

    @model_validator(mode="after")
    def _baselines(self) -> CheckSpec:
        for i, a in enumerate(self.assertions):
            if a.paired and not (a.baseline or self.baseline):
                raise ValueError(
                    f"assertions[{i}].baseline: {a.metric} compares against a baseline; "
                    "give baseline: on the assertion or the check"
                )
        return self


class Spec(BaseModel):
    """A ``balance check`` spec: SPRT settings and checks."""

    model_config = _STRICT

    alpha: float = Field(0.05, gt=0, lt=0.5, description="chance of passing a claim delta/2 wrong")
    beta: float = Field(0.05, gt=0, lt=0.5, description="chance of failing a claim that holds")
    batch: int = Field(
        2000, ge=100, le=MAX_BATCH, description="games per batch; SPRTs look after each"
    )
    max_games: int | None = Field(
        None,
        ge=1,
        le=MAX_GAMES,
        description="cap on games per check (default: each assertion's own, sized to keep beta)",
    )
    inconclusive: Literal["fail"] | None = Field(
        None, description="only 'fail' (the default and the only behaviour): kept for old specs"
    )
    seed: int | None = Field(None, ge=0, lt=2**63, description="default: each config's seed")
    level: float = Field(0.95, gt=0, lt=1, description="level of the printed intervals")
    description: str = ""
    checks: list[CheckSpec] = Field(min_length=1)

    @field_validator("inconclusive", mode="before")
    @classmethod
    def _no_silent_pass(cls, value: Any) -> Any:
        if value == "pass":
            raise ValueError(_NO_INCONCLUSIVE_PASS)
        return value

    @model_validator(mode="after")
    def _cap(self) -> Spec:
        if self.max_games is not None and self.max_games < self.batch:
            raise ValueError(f"max_games: must be >= batch ({self.batch}), got {self.max_games}")
        return self


def load_spec(path: str | os.PathLike[str]) -> Spec:
    """Read and validate a check spec; problems raise a one-line ConfigError."""
    shown = os.fspath(path)
    data, provenance = load_yaml(shown)
    try:
        return Spec.model_validate(data)
    except ValidationError as e:  # a key an `extends` parent spec wrote names that parent
        raise validation_error(e, data, shown, Spec, provenance=provenance) from None


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


def _default_delta(metric: str) -> float:
    return DEFAULT_DELTA[
        "win_share" if metric in _ON_SHARE_SCALE else metric.removesuffix("_shift")
    ]


def _claims(a: AssertionSpec, columns: int) -> list[stats.Claim]:
    delta = a.delta if a.delta is not None else _default_delta(a.metric)
    if a.metric in _MAX_METRICS:
        return [c for j in range(columns) for c in stats.within(j, 0.0, a.below, delta)]
    if a.within is not None:
        return stats.within(0, a.within[0], a.within[1], delta)
    side = "above" if a.above is not None else "below"
    return [stats.Claim(0, side, a.above if a.above is not None else a.below, delta)]


_MAX_METRICS = ("max_seat_shift", "max_role_shift")


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
        _claims(a, columns),
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
            runs.load(seed)
            decided_at: dict[int, tuple[int, float]] = {}
            late: dict[int, dict[str, int]] = {}  # max_role_shift: roles first dealt later
            games = 0
            start = time.perf_counter()
            while len(decided_at) < len(bounds):
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
                        if b.index in decided_at:
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
                        _cap_played(_test(b), games) for b in bounds if b.index not in decided_at
                    ]
                    progress(name, games, max(open_caps, default=games))
            elapsed = time.perf_counter() - start
            for b in bounds:
                results.append(
                    _result(spec, shown, name, cfg_path, b, elapsed, decided_at, games, late)
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
    cfg = load_config(_resolve(spec_dir, c.config), overrides)
    paths = [c.config]
    configs = [cfg]
    for a in c.assertions:
        base_path = a.baseline or c.baseline
        if a.paired and base_path not in paths:
            paths.append(base_path)
            configs.append(load_config(_resolve(spec_dir, base_path), overrides))
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
        columns = cfg.players if a.metric == "max_seat_shift" else 1
        model: seq.Model = "bernoulli" if _bernoulli(a, g_run, runs.lineups[0]) else "normal"
        test = assertion_test(a, spec, columns=columns, model=model)
        labels = [f"seat {s}" for s in range(columns)] if a.metric == "max_seat_shift" else [""]
        bounds.append(_Bound(a, j, 0, base_idx, g_run, g_base, test, labels, key))
    name = c.name or Path(c.config).stem
    return name, c.config, runs, seed, bounds


def _bernoulli(a: AssertionSpec, grp: list[stats.Group] | None, line: stats.Lineup) -> bool:
    """Whether the assertion's per-game value is one seat's or one team's win (0, 1/k or 1: the
    Bernoulli likelihood); a policy of several seats or a role is a mean (normal likelihood)."""
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
        f"max_games {spec.max_games:,} is below the {need:,} games that delta {fmt.num(delta)} needs "
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
    j = int(np.nanargmax(np.abs(ci.mean))) if b.spec.metric in _MAX_METRICS else 0
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
    if b.spec.metric in _MAX_METRICS:
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
        parts.append(
            f"{_claim_text(b, c)}: {fmt.fixed(float(mean[c.column]))} in [{fmt.fixed(lo)}, {fmt.fixed(hi)}]"
        )
    return "; ".join(parts)


def _llrs(llr: np.ndarray) -> str:
    if len(llr) <= 2:
        return ", ".join(f"{x:.2f}" for x in llr)
    return f"min {llr.min():.2f}"
