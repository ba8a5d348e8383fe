"""The grammar of a ``balance check`` spec: what an assertion may claim and how it is written, and
loading a spec file (``load_spec``). check.py runs a loaded spec; its docstring says what each
metric measures and what a verdict promises.

A spec is YAML (``extends`` as in a config): ``alpha``, ``beta``, ``batch``, ``max_games``,
``seed``, ``level`` and ``checks``, each a config (and a baseline for the ``*_shift`` metrics)
with its ``assertions``: ``{metric: win_share, seat: 0, within: [0.25, 0.02]}``. Validation
refuses what cannot be tested before any game: more than one bound or group, a share-valued
number outside the shares' range (a percentage, most often: the message says so), a delta that
leaves nothing between the SPRT's hypotheses, ``inconclusive: pass``. Problems raise one-line
``ConfigError``s naming the key.
"""

from __future__ import annotations

import os
from typing import Any, Literal

import numpy as np
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from balance import fmt, stats
from balance.config.loading import load_yaml
from balance.config.translate import validation_error
from balance.stats import plays
from balance.stats.census import PER_GAME as CENSUS

# The metrics of a game's trajectory (stats/plays.py's, but ``points``): whole games, no group;
# the winner's metrics are taken over the games with one winner.
PLAYS = tuple(m for m in plays.METRICS if m != "points")
# The plays metrics whose per-game value is 0 or 1 (the Bernoulli likelihood)
PLAYS_RATES = tuple(m for m in PLAYS if plays.METRICS[m][0] == "rate")
# The census's measures (stats/census.py ``per_game_values``): whole games replayed decision by
# decision; ``kingmaking_games`` is 0 or 1 a game (the Bernoulli likelihood)
CENSUS_SHARES = ("dead_turns", "forced", "kingmaking_games")
Metric = Literal[  # type: ignore[valid-type]
    (
        "win_share",
        "mean_score",
        "mean_turns",
        "win_share_shift",
        "mean_score_shift",
        "mean_turns_shift",
        "max_seat_shift",
        "first_player_edge",
        "max_role_shift",
        *PLAYS,  # how the game plays, per game from its trajectory
        *CENSUS,  # how the game is taken, per game from its census (balance/census.py)
    )
]
# Metrics that compare the config with a baseline, game by game (max_role_shift does not: its
# "shift" is a role's deviation from the average seat of the same games).
PAIRED = ("win_share_shift", "mean_score_shift", "mean_turns_shift", "max_seat_shift")
# Metrics whose values are shares (of the games won, in [0, 1]) or differences of shares (in
# [-1, 1]): a bound, a centre, a tolerance or a delta beyond those is a mistake, usually a
# percentage ("within: [50, 10]" for 0.5 ± 0.1).
SHARES = ("win_share", *PLAYS_RATES, "decided_at", *CENSUS_SHARES)
SHARE_DIFFERENCES = ("win_share_shift", "max_seat_shift", "first_player_edge", "max_role_shift")
_GROUP_KEYS = stats.KINDS
# Default indifference width delta of the SPRT, by the quantity a metric measures.
DEFAULT_DELTA = {"win_share": 0.01, "mean_score": 0.5, "mean_turns": 1.0}
DEFAULT_DELTA |= dict.fromkeys((*PLAYS_RATES, "decided_at"), 0.02)
DEFAULT_DELTA |= {"lead_changes": 0.1, "max_deficit": 0.5, "margin": 0.5}
# a census replays its games in Python (0.01 to 1 s a game): wider defaults, fewer games
DEFAULT_DELTA |= {"dead_turns": 0.05, "forced": 0.05, "kingmaking_games": 0.1}
DEFAULT_DELTA |= {"first_minus_last": 0.5}
# Metrics measured on the shares' scale (their default delta is a share's).
_ON_SHARE_SCALE = ("max_seat_shift", "first_player_edge", "max_role_shift")
_STRICT = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
MAX_BATCH = 1_000_000  # games per batch: more only delays the first look
MAX_CENSUS_BATCH = 10_000  # games per census look (a census replays 1 to 100 games a second)
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
        for c in assertion_claims(self, 1):
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
    **dict.fromkeys(PLAYS, "is about how whole games play (their trajectories), not a {}"),
    **dict.fromkeys(CENSUS, "is about whole games (their census), not a {}"),
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
    players: str | None = Field(
        None,
        description="a rung of the skill ladder every seat plays instead of the config's "
        "line-up (the baseline's too): random, a policy of the config or search_<iterations>",
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
    census_batch: int = Field(
        100,
        ge=10,
        le=MAX_CENSUS_BATCH,
        description="games per look of the census metrics' SPRTs (each game replayed decision "
        "by decision)",
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


def _default_delta(metric: str) -> float:
    return DEFAULT_DELTA[
        "win_share" if metric in _ON_SHARE_SCALE else metric.removesuffix("_shift")
    ]


def assertion_claims(a: AssertionSpec, columns: int) -> list[stats.Claim]:
    delta = a.delta if a.delta is not None else _default_delta(a.metric)
    if a.metric in MAX_METRICS:
        return [c for j in range(columns) for c in stats.within(j, 0.0, a.below, delta)]
    if a.within is not None:
        return stats.within(0, a.within[0], a.within[1], delta)
    side = "above" if a.above is not None else "below"
    return [stats.Claim(0, side, a.above if a.above is not None else a.below, delta)]


MAX_METRICS = ("max_seat_shift", "max_role_shift")
