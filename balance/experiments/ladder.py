"""The skill ladder's plan: which players make its rungs, and which games each rung plays.

A **rung** is one kind of player, weakest first: ``random``, the game's heuristic (the policy its
search player rolls out with: Five Ravens' and Corvids' ``greedy``, The Raven Order's
``economy``, Raven Manor's ``basic``), then search players at growing budgets (``search_250``:
the config's search settings at 250 iterations a decision, rolling out with the heuristic).
``--rungs`` names them: ``random``, any policy of the config, or ``search_<iterations>``.

The ladder plays two kinds of **points**, each a config played on the run's seed, so that game
``i`` of every point is dealt the same cards (common random numbers):

- **mirror** ``R``: every seat plays rung ``R``. Its games re-measure the config's findings
  (the headline and every verdict axis) among players of that strength.
- **depth** ``R`` over ``Q`` (``Q`` the rung below), one per seat ``s``: seat ``s`` plays ``R``,
  every other seat ``Q``. The stronger seat's win share, its seat rotated round the table on the
  same deals, against the mirror of ``Q`` in the same seats, says how much the step from ``Q``
  to ``R`` wins: whether the ladder is still a ladder there.

Nothing here plays or prints; errors are :class:`LadderError` (one line).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from balance import games
from balance.config import ConfigError, RunConfig, config_from_dict
from balance.errors import BalanceError

SOURCE = "--rungs"
SEARCH = re.compile(r"search_(?P<n>[1-9][0-9]*)")
MAX_RUNGS = 8  # a longer ladder is a typo, and its depth points grow with every rung


class LadderError(BalanceError):
    """A ladder that cannot be played as asked (one line)."""


class Rung(NamedTuple):
    """One player kind of the ladder: its name (the seats' policy name in every point's config)
    and its policy entry."""

    name: str
    entry: dict[str, Any]


class LadderPoint(NamedTuple):
    """One config the ladder plays: a mirror of ``rung``, or ``rung`` in seat ``seat`` among
    ``below``."""

    kind: str  # "mirror" or "depth"
    rung: str
    below: str | None  # depth: the rung of every other seat
    seat: int | None  # depth: where ``rung`` sits
    config: RunConfig

    @property
    def name(self) -> str:
        if self.kind == "mirror":
            return f"every seat {self.rung}"
        return f"{self.rung} in seat {self.seat + 1} among {self.below}"

    @property
    def dir(self) -> str:
        if self.kind == "mirror":
            return f"mirror-{self.rung}"
        return f"depth-{self.rung}-over-{self.below}-seat{self.seat + 1}"


def heuristic(config: RunConfig) -> str:
    """The game's heuristic: the policy its search player rolls out with by default."""
    model = games.get(config.game).policy_kinds["search"]
    return str(model.model_fields["rollout"].default)


def default_rungs(config: RunConfig, budgets: Sequence[int]) -> list[str]:
    """``random``, the game's heuristic, then a search rung per budget."""
    return ["random", heuristic(config), *(f"search_{b}" for b in budgets)]


def _problem(problem: str) -> LadderError:
    return LadderError(f"{SOURCE}: {problem}")


def rung(config: RunConfig, name: str) -> Rung:
    """The rung ``name`` of ``config``'s game (see the module docstring)."""
    policies = config.policies
    if name in policies:
        return Rung(name, dict(policies[name]))
    if name == "random":
        return Rung(name, {"kind": "random"})
    m = SEARCH.fullmatch(name)
    if m is not None:
        searches = [p for p in policies.values() if p["kind"] == "search"]
        entry = dict(searches[0]) if searches else {"kind": "search", "rollout": heuristic(config)}
        entry["iterations"] = int(m["n"])
        entry.pop("time_ms", None)  # a rung is a budget of iterations, the same on any machine
        return Rung(name, entry)
    known = ", ".join(sorted(policies))
    raise _problem(
        f"{name!r} is not a rung: name random, a policy of the config ({known}) or "
        "search_<iterations> (e.g. search_1000)"
    )


def parse_rungs(config: RunConfig, text: str | Sequence[str]) -> list[Rung]:
    """The rungs of ``--rungs`` (comma-separated names, weakest first), each checked."""
    names = [n.strip() for n in text.split(",")] if isinstance(text, str) else list(text)
    if any(not n for n in names):
        raise _problem("an empty rung name (two commas, or one at an end)")
    if len(names) < 2:
        raise _problem(f"a ladder needs at least 2 rungs, got {len(names)}")
    if len(names) > MAX_RUNGS:
        raise _problem(f"at most {MAX_RUNGS} rungs, got {len(names)}")
    seen = {n for n in names if names.count(n) > 1}
    if seen:
        raise _problem(f"{sorted(seen)[0]!r} is named twice")
    return [rung(config, n) for n in names]


def lineup_config(config: RunConfig, seats: Sequence[Rung], *, what: str) -> RunConfig:
    """``config`` with each seat playing its rung (the rungs are its only policies), validated:
    a rung the game cannot play (a search rung's rollout missing) is one line naming ``what``."""
    data = config.resolved_dict()
    data["policies"] = {r.name: r.entry for r in seats}
    for r in seats:
        rollout = r.entry.get("rollout") if r.entry["kind"] == "search" else None
        if rollout is not None and rollout not in data["policies"]:
            data["policies"][rollout] = dict(config.policies.get(rollout) or {"kind": rollout})
    data["seats"] = [r.name for r in seats]
    data.pop("report", None)  # the ladder reads the headline from the config it was given
    try:
        return config_from_dict(data, file=f"{config.game} ladder, {what}")
    except ConfigError as e:
        raise LadderError(f"{SOURCE}: {e}") from None


def plan_points(config: RunConfig, rungs: Sequence[Rung]) -> list[LadderPoint]:
    """Every mirror, then every depth step with its seats rotated, each config validated."""
    players = config.players
    out = [
        LadderPoint("mirror", r.name, None, None,
                    lineup_config(config, [r] * players, what=f"every seat {r.name}"))
        for r in rungs
    ]  # fmt: skip
    for below, upper in itertools.pairwise(rungs):
        for s in range(players):
            seats = [below] * players
            seats[s] = upper
            what = f"{upper.name} in seat {s + 1} among {below.name}"
            out.append(
                LadderPoint(
                    "depth", upper.name, below.name, s, lineup_config(config, seats, what=what)
                )
            )
    return out
