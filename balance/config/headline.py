"""The config's ``report:`` section: what a report leads with, declared before the games.

A designer who scans a dozen rows for the one that moved most will always find one: the largest
of many noisy changes is biased away from 0. So the metric a variant is ranked by, and that the
summary leads with, is declared in the config, before any game is played::

    report:
      headline: {metric: win_share, order: 0}    # the first player's win share (the default)
      # or {metric: win_share, seat: 1}, {metric: win_share, team: raven},
      #    {metric: mean_score, policy: greedy}, {metric: mean_turns}
      tolerance: {place: 0.02, seat: 0.01, team: 0.02, role: 0.02, policy_order: 0.02}
      targets: {team: {raven: 0.5}}             # a side's (or role's) intended win share

The verdict judges every axis (each place in the turn order, chair, side, role and policy at
each place: balance/stats/axes.py) against its tolerance, and a side or role with a target
against the target instead of the mean seat win.

``Headline.key()`` is the (metric, kind, group) row of a differences table it names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

if TYPE_CHECKING:
    from balance.stats.axes import Tolerances as AxisTolerances

GROUP_KEYS = ("seat", "order", "policy", "team", "role")


class Headline(BaseModel):
    """One row of a differences table: a metric of one seat, place in the turn order, policy,
    team or role (none for ``mean_turns``)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    metric: Literal["win_share", "mean_score", "mean_turns"] = Field(
        "win_share", description="win_share, mean_score or mean_turns"
    )
    seat: int | None = Field(None, ge=0, description="a seat (0 = the first listed)")
    order: int | None = Field(
        None, ge=0, description="a place in the opening turn order (0 = first player)"
    )
    policy: str | None = Field(None, description="a policy name of the config's seats")
    team: str | None = Field(None, description="a team name")
    role: str | None = Field(None, description="a role the game deals")

    @model_validator(mode="after")
    def _one_group(self) -> Headline:
        given = [k for k in GROUP_KEYS if getattr(self, k) is not None]
        if self.metric == "mean_turns":
            if given:
                raise ValueError(f"mean_turns is per game: remove {given[0]}")
            return self
        if not given:
            object.__setattr__(self, "order", 0)  # the first player, by default
        elif len(given) > 1:
            raise ValueError(f"name one group, not {' and '.join(given)}")
        return self

    def key(self) -> tuple[str, str, str]:
        """(metric, kind, group) as in a differences table."""
        if self.metric == "mean_turns":
            return ("mean_turns", "game", "all")
        for kind in GROUP_KEYS:
            value = getattr(self, kind)
            if value is not None:
                return (self.metric, kind, str(value))
        return (self.metric, "order", "0")


class Tolerances(BaseModel):
    """How far from its reference each axis of the verdict still calls balanced (in shares: 0.02
    = 2 points); balance/stats/axes.py says what each axis is measured against."""

    model_config = ConfigDict(extra="forbid", strict=True)

    first_player_edge: float = Field(
        0.02, gt=0, le=1, allow_inf_nan=False,
        description="largest |first player's win share - the mean seat win| called balanced; "
        "also every other place's unless `place` is given",
    )  # fmt: skip
    place: float | None = Field(
        None, gt=0, le=1, allow_inf_nan=False,
        description="largest |a place's win share - the mean seat win of the same games| "
        "called balanced, for every place in the turn order (default: first_player_edge)",
    )  # fmt: skip
    seat: float = Field(
        0.01, gt=0, le=1, allow_inf_nan=False,
        description="largest |a seat's (chair's) win share - the mean seat win| called balanced "
        "(line-ups where every seat plays the same policy)",
    )  # fmt: skip
    team: float = Field(
        0.02, gt=0, le=1, allow_inf_nan=False,
        description="largest |a side's win share - its target (report.targets.team), or its "
        "seats' part of the table for a team fixed for the run| called balanced",
    )  # fmt: skip
    role: float = Field(
        0.02, gt=0, le=1, allow_inf_nan=False,
        description="largest |a role's win share - the mean seat win (or its target, "
        "report.targets.role)| called balanced",
    )  # fmt: skip
    policy_order: float = Field(
        0.02, gt=0, le=1, allow_inf_nan=False,
        description="largest |a policy's win share at a place - its share over every place| "
        "called balanced (line-ups that mix policies)",
    )  # fmt: skip

    def axes(self) -> AxisTolerances:
        """The tolerance of each axis of balance/stats/axes.py."""
        from balance.stats.axes import Tolerances as AxisTolerances

        return AxisTolerances(
            place=self.place if self.place is not None else self.first_player_edge,
            seat=self.seat,
            team=self.team,
            role=self.role,
            policy_order=self.policy_order,
        )


Share = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]


class Targets(BaseModel):
    """Win shares the designer intends for a side or a role (e.g. the Raven's side at 0.5); the
    verdict judges them against these instead of the mean seat win."""

    model_config = ConfigDict(extra="forbid", strict=True)

    team: dict[str, Share] = Field(
        default_factory=dict, description="a side's intended win share per game, by team name"
    )
    role: dict[str, Share] = Field(
        default_factory=dict,
        description="a role's intended win share per seat-game, by role name",
    )

    @field_validator("team", "role", mode="before")
    @classmethod
    def _shares(cls, value: object) -> object:
        if isinstance(value, dict):
            for name, share in value.items():
                if isinstance(share, int | float) and not isinstance(share, bool) and share > 1:
                    raise ValueError(
                        f"{name}: {share:g} looks like a percentage; a share is between 0 and 1 "
                        f"(write {share / 100:g})"
                    )
        return value


class ReportSettings(BaseModel):
    """The ``report:`` section of a config (it changes no game)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    headline: Headline = Field(
        default_factory=Headline,
        description="the metric variants are ranked by and the summary leads with "
        "(default: the first player's win share)",
    )
    tolerance: Tolerances = Field(
        default_factory=Tolerances, description="what the verdict calls balanced"
    )
    targets: Targets = Field(
        default_factory=Targets,
        description="intended win shares of sides and roles that the verdict judges against",
    )
    impact_seconds: float = Field(
        40.0, ge=0, le=86_400, allow_inf_nan=False,
        description="time budget of `simulate --report`'s causal card impact (0: none); the "
        "variants get as many games as fit, at most the run's own",
    )  # fmt: skip
    impact_games: int | None = Field(
        None, ge=100, le=10**9,
        description="games per variant of that card impact, whatever the time (at most the "
        "run's own): the same report on any machine; by default the budget decides",
    )  # fmt: skip
    impact_min_games: int = Field(
        2_000, ge=100, le=10**9,
        description="fewest games per variant; below that the card impact is left out",
    )  # fmt: skip


DEFAULT = ReportSettings()


def headline_of(config: object) -> tuple[str, str, str]:
    """The headline (metric, kind, group) of a RunConfig (the default when it has none)."""
    settings = getattr(config, "report", None) or DEFAULT
    return settings.headline.key()
