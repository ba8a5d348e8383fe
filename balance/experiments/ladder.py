"""The skill ladder's plan: which players make its rungs, and which games each rung plays.

A **rung** is one kind of player, weakest first: ``random``, the game's heuristic (the policy its
search player rolls out with: Five Ravens' and Corvids' ``greedy``, The Raven Order's
``economy``, Raven Manor's ``basic``), then search players at growing budgets (``search_250``:
the config's search settings at 250 iterations a decision, rolling out with the heuristic).
``--rungs`` names them: ``random``, any policy of the config, or ``search_<iterations>``.

The ladder plays **points**, each a config played on the run's seed, so that game ``i`` of
every point is dealt the same cards (common random numbers):

- **mirror** ``R``: every seat plays rung ``R``. Its games re-measure the config's findings
  (the headline and every verdict axis) among players of that strength.
- **depth** ``R`` over ``Q`` (``Q`` the rung below), one per seat ``s``: seat ``s`` plays ``R``,
  every other seat ``Q``. The stronger seat's win share, its seat rotated round the table on the
  same deals, against the mirror of ``Q`` in the same seats, says how much the step from ``Q``
  to ``R`` wins: whether the ladder is still a ladder there.

Also the top rung among the first (luck against skill), each chosen card impact at every rung
and, in a game of sides, every Family rung against every other evil rung (the matrix). By
default each point's games are sized from a pilot for the statistic it serves
(:func:`size_points`).

**On disk a ladder is a sweep** (balance/sweep_file.py) whose one categorical knob, ``ladder``,
takes a value per point: every point a results directory written by ``runner.run``, the same
resuming, Ctrl-C, backends and ``balance verify``; beside ``sweep.json``, ``ladder.json``
records the rungs and what each point is (its kind, rung, the rung below and the seat).

Nothing here prints; errors are :class:`LadderError` (one line).
"""

from __future__ import annotations

import itertools
import math
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl
from scipy import stats as sps

import balance
from balance import games as registry
from balance import runner
from balance.config import ConfigError, RunConfig, config_from_dict, load_config
from balance.config.overrides import override, parse_overrides
from balance.experiments import sweep

# The directory's format and its reading have their own module (the report reads them too); re-exported here.
from balance.ladder_file import (  # noqa: F401
    LADDER_MANIFEST,
    LadderError,
    load,
    mirror_arrays,
    point_wins,
    read_depth,
    read_findings,
    read_impacts,
    read_luck,
    read_manifest,
    read_matrix,
)
from balance.sweep_file import Axis

SOURCE = "--rungs"
SEARCH = re.compile(r"search_(?P<n>[1-9][0-9]*)")
MAX_RUNGS = 8  # a longer ladder is a typo, and its depth points grow with every rung
# The default ladder's search budgets per game, each 4x the last, chosen so that the base
# config's default ladder (each point sized from its pilot, the top three card impacts, in Raven
# Manor the Family x evil matrix) takes about half an hour on a 2-core machine: a search decision
# costs its iterations times a rest-of-game, so the slow games' rungs start low. In Five Ravens
# 20 iterations play even with greedy (8 lose to it by 10 points, 80 beat 20 by 17); in The Raven
# Order search needs far more than these to beat the economy heuristic (2 iterations win 2 %
# against it), so its ladder's search rungs climb from below it. Corvids and Raven Manor get two
# search rungs, not three: at 2 iterations, the least at which a search is not a random pick,
# their ladders with a third (search_32) took 47 and 66 minutes, its points three fifths of each
# (docs/commands/ladder.md gives each game's measured time; ``--rungs`` adds the rung back).
BUDGETS = {
    "five_ravens": (20, 80, 320),
    "raven_order": (2, 8, 32),
    "raven_manor": (2, 8),
    "corvids": (2, 8),
}
AXIS = "ladder"  # the sweep knob whose values are the ladder's points
HALF_WIDTH = 0.02  # default target: a step's edge within +-2 points at 95 %
LEVEL = 0.95


class Rung(NamedTuple):
    """One player kind of the ladder: its name (the seats' policy name in every point's config)
    and its policy entry."""

    name: str
    entry: dict[str, Any]


class LadderPoint(NamedTuple):
    """One config the ladder plays: a mirror of ``rung``, or ``rung`` in seat ``seat`` among
    ``below``."""

    kind: str  # "mirror", "depth" (a step), "luck" (the top rung among the first), "impact"
    rung: str
    below: str | None  # depth, luck: the rung of every other seat
    seat: int | None  # depth, luck: where ``rung`` sits
    config: RunConfig
    variant: str | None = None  # impact: the variant played by every seat of ``rung``
    evil: str | None = None  # matrix: the evil side's rung (``rung`` is the Family's)

    @property
    def name(self) -> str:
        if self.kind == "mirror":
            return f"every seat {self.rung}"
        if self.kind == "impact":
            return f"every seat {self.rung}, variant {self.variant}"
        if self.kind == "matrix":
            return f"Family {self.rung}, evil side {self.evil}"
        return f"{self.rung} in seat {self.seat + 1} among {self.below}"

    @property
    def dir(self) -> str:
        if self.kind == "mirror":
            return f"mirror-{self.rung}"
        if self.kind == "impact":
            return f"impact-{_slug(self.variant or '')}-{self.rung}"
        if self.kind == "matrix":
            return f"matrix-family-{self.rung}-evil-{self.evil}"
        return f"{self.kind}-{self.rung}-over-{self.below}-seat{self.seat + 1}"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._=+-]+", "-", text).strip("-")[:60] or "variant"


def heuristic(config: RunConfig) -> str:
    """The game's heuristic: the policy its search player rolls out with by default."""
    model = registry.get(config.game).policy_kinds.get("search")
    if model is None:
        raise _problem(
            f"{config.game} has no search player: name the rungs (its policies: "
            f"{', '.join(sorted(config.policies))})"
        )
    return str(model.model_fields["rollout"].default)


def default_rungs(config: RunConfig, budgets: Sequence[int] | None = None) -> list[str]:
    """``random``, the game's heuristic, then a search rung per budget (the game's
    :data:`BUDGETS` by default)."""
    top = heuristic(config)
    budgets = BUDGETS.get(config.game, ()) if budgets is None else budgets
    if not budgets:
        raise _problem(f"{config.game} has no default search budgets: name the rungs")
    return ["random", top, *(f"search_{b}" for b in budgets)]


def default_rungs_of(config: str | os.PathLike[str], sets: Sequence[str] = ()) -> list[str]:
    """:func:`default_rungs` of the config file (with its ``--set`` overrides)."""
    return default_rungs(load_config(config, parse_overrides(sets, source="--set")))


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
        entry.pop("iterations_by_side", None)  # and the same budget on every side
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


def lineup_config(
    config: RunConfig, seats: Sequence[Rung], *, what: str, extra: dict[str, Any] | None = None
) -> RunConfig:
    """``config`` with each seat playing its rung (the rungs and ``extra`` are its only
    policies), validated: a rung the game cannot play (a search rung's rollout missing) is one
    line naming ``what``."""
    data = config.resolved_dict()
    data["policies"] = {**(extra or {}), **{r.name: r.entry for r in seats}}
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


def plan_points(
    config: RunConfig, rungs: Sequence[Rung], variants: Sequence[Any] = (), matrix: bool = False
) -> list[LadderPoint]:
    """Every mirror, then every step with its seats rotated, then (with 3 rungs or more) the
    top rung among the first, rotated, then each variant (experiments/variants.py) at every
    rung, then (``matrix``, a game of sides) every Family rung against every other evil rung:
    each config validated."""
    players = config.players
    out = [
        LadderPoint("mirror", r.name, None, None,
                    lineup_config(config, [r] * players, what=f"every seat {r.name}"))
        for r in rungs
    ]  # fmt: skip
    pairs = [("depth", below, upper) for below, upper in itertools.pairwise(rungs)]
    if len(rungs) > 2:  # with 2 rungs the one step is already the top among the first
        pairs.append(("luck", rungs[0], rungs[-1]))
    for kind, below, upper in pairs:
        for s in range(players):
            seats = [below] * players
            seats[s] = upper
            what = f"{upper.name} in seat {s + 1} among {below.name}"
            config_s = lineup_config(config, seats, what=what)
            out.append(LadderPoint(kind, upper.name, below.name, s, config_s))
    from balance.experiments.variants import apply_patch

    mirrors = {p.rung: p.config for p in out if p.kind == "mirror"}
    for v in variants:
        for r in rungs:
            patched = apply_patch(mirrors[r.name], v, source=f"{IMPACT} {v.name}")
            out.append(LadderPoint("impact", r.name, None, None, patched, v.name))
    if matrix:
        for fam, evil in itertools.permutations(rungs, 2):
            seat, extra = side_rung(config, fam, evil)
            what = f"a {fam.name} Family against a {evil.name} evil side"
            cfg = lineup_config(config, [seat] * players, what=what, extra=extra)
            out.append(LadderPoint("matrix", fam.name, None, None, cfg, evil=evil.name))
    return out


# ========================================================================= sides: the matrix
#
# In a game that deals sides (Raven Manor: the Family against the Raven's side), a seat does not
# know its side before the deal, so "a search Family against a random Raven" cannot be written
# as seats. Every seat plays one policy that acts as the Family's rung while its seat is on the
# Family's side and as the evil rung while it is on an evil side (a possessed seat changes side
# and knows it: RM-6, RM-11): the game's ``by_side`` policy for two heuristic rungs, a search
# limited to one side (``sides``) whose rollout policy is such a ``by_side`` for a search rung
# against a heuristic one, and a search whose budget depends on the side (``iterations_by_side``)
# for two search rungs. The matrix of the Raven's side's share, Family rung by evil rung, is the
# 2025 Tabletop Games Balancing Competition's picture of an asymmetric game.

SIDES = ("family", "evil")
SIDE_ROLLOUT = "side_rollout"  # the by_side policy a one-sided search rolls out (and plays) with


def has_sides(config: RunConfig) -> bool:
    """Whether ``config``'s game deals sides a policy can be split by (Raven Manor)."""
    plugin = registry.get(config.game)
    search = plugin.policy_kinds.get("search")
    return "by_side" in plugin.policy_kinds and tuple(getattr(search, "side_names", ())) == SIDES


def _heuristic_of(r: Rung, rollout: dict[str, Any] | None = None) -> str:
    """``random`` or ``basic``: what a heuristic rung (or a search rung's rollout) plays."""
    entry = rollout if r.entry["kind"] == "search" else r.entry
    kind = (entry or {}).get("kind")
    if kind not in ("random", "basic"):
        raise _problem(
            f"{r.name!r}: the Family x evil matrix splits random, basic and search rungs by "
            f"side, not a {kind} policy (--no-matrix plays the ladder without it)"
        )
    return str(kind)


def side_rung(config: RunConfig, family: Rung, evil: Rung) -> tuple[Rung, dict[str, Any]]:
    """The one policy every seat plays for a ``family`` Family against an ``evil`` evil side,
    and the policies it needs beside it (its rollout)."""
    name = f"family_{family.name}_evil_{evil.name}"
    fs, es = (r.entry["kind"] == "search" for r in (family, evil))
    rollouts = {r.name: config.policies.get(r.entry.get("rollout", ""), {"kind": "basic"})
                for r in (family, evil)}  # fmt: skip
    basic = next((dict(r.entry) for r in (family, evil) if r.entry["kind"] == "basic"),
                 next((dict(v) for v in rollouts.values() if v.get("kind") == "basic"), {}))  # fmt: skip
    basic.pop("kind", None)

    def by_side(fam: str, ev: str) -> dict[str, Any]:
        return {**basic, "kind": "by_side", "family": fam, "evil": ev}

    if not fs and not es:
        return Rung(name, by_side(_heuristic_of(family), _heuristic_of(evil))), {}
    if fs and es:
        entry = {**family.entry, "iterations": max(family.entry["iterations"],
                                                   evil.entry["iterations"]),
                 "iterations_by_side": {"family": family.entry["iterations"],
                                        "evil": evil.entry["iterations"]}}  # fmt: skip
        entry.pop("sides", None)  # it searches on both sides, each at its rung's budget
        return Rung(name, entry), {}
    searcher, side = (family, "family") if fs else (evil, "evil")
    own = _heuristic_of(searcher, rollouts[searcher.name])
    other = _heuristic_of(evil if fs else family)
    rollout = by_side(own, other) if fs else by_side(other, own)
    entry = {**searcher.entry, "sides": [side], "rollout": SIDE_ROLLOUT}
    return Rung(name, entry), {SIDE_ROLLOUT: rollout}


# ============================================================================ card impacts

IMPACT = "--impact"
TOP = 3  # variants the default keeps: the report's top three


def choose_variants(
    config: RunConfig,
    spec: str,
    *,
    games: int,
    seed: int,
    threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Any]:
    """The variants whose causal card impact the ladder re-measures at every rung (``--impact``):
    ``none``; variant names of the game (its impact and report variants), comma-separated; or
    ``top`` (the default): the three distinct changes (experiments.distinct_variants: two
    names for one config count once) whose change of the config's headline is largest, as a
    report's card impact ranks them (experiments/impact.py), measured with the config's own
    line-up on ``games`` games of seed ``seed + 1``: other games than the ladder's, so that the
    ladder's measure of the chosen three is not the one that chose them."""
    from balance.experiments.impact import impact
    from balance.experiments.variants import all_variants, distinct_variants

    text = spec.strip()
    if text == "none":
        return []
    plugin = registry.get(config.game)
    candidates = all_variants(plugin, config)
    known: dict[str, Any] = {}
    for v in candidates:  # a name given twice means its first (distinct_variants keeps it too)
        known.setdefault(v.name, v)
    if text != "top":
        names = [n.strip() for n in text.split(",")]
        bad = [n for n in names if n not in known]
        if bad or not names:
            listed = ", ".join(sorted(known)) or "none"
            raise LadderError(
                f"{IMPACT}: {bad[0] if bad else text!r} is not a variant of {config.game} "
                f"(top, none, or names among: {listed})"
            )
        return [known[n] for n in dict.fromkeys(names)]
    # top: each change once, not twice by name
    distinct = distinct_variants(plugin, config, candidates)
    if not distinct:
        return []
    screen = (seed + 1) % 2**63
    measured = impact(
        config, distinct, games=games, seed=screen, threads=threads, progress=progress
    )
    top = measured.summary.filter(pl.col("effect").is_not_null()).head(TOP)
    return [known[n] for n in top["variant"].to_list()]


# =================================================================================== sizing


def games_for(half_width: float = HALF_WIDTH, level: float = LEVEL) -> int:
    """Games a point so that a share's 95 % interval is at most +-``half_width`` wide whatever
    the share (a win's variance is at most 1/4): 2,401 at +-2 points."""
    if not 0 < half_width < 0.5:
        raise LadderError(f"--half-width: must be between 0 and 0.5, got {half_width}")
    z = float(sps.norm.ppf(0.5 + level / 2))
    return math.ceil(z * z * 0.25 / (half_width * half_width))


# A ladder's points do not need the same games: a step's stronger seat, averaged over its
# rotations on the same deal, varies far less from game to game than one seat's win, and a card
# impact measured on common deals less than either share. By default the ladder sizes each
# point from a pilot (``size_points``): ``pilot`` games of every point on seed + 2 (neither the
# ladder's games nor those that chose its card impacts, so the intervals never see the games
# that sized them), the per-game variance of the statistic each point serves, and
# ``n = z^2 var / h^2`` games for a 95 % interval of +-h, at least MIN_GAMES and at most the
# worst case of :func:`games_for`. Points read together share their count: the rotations of a
# step, the rotations of the top among the first, a variant at every rung (its trend is paired
# across the rungs); the mirrors take the most of all (every other statistic is read against a
# mirror's first games, and the findings are paired across the mirrors).
PILOT = 100  # games of each point the sizing plays
MIN_GAMES = 300  # a sized point's fewest games: the t-interval's normal approximation holds


def pilot_seed(seed: int) -> int:
    """The seed of the sizing pilot's games: other games than the ladder's (seed) and the card
    impacts' choice (seed + 1)."""
    return (seed + 2) % 2**63


class Sizing(NamedTuple):
    """Each point's games, chosen from a pilot (:func:`size_points`)."""

    point_games: tuple[int, ...]
    sd: tuple[float, ...]  # per point: the per-game standard deviation it was sized for
    estimate: Estimate  # the sized ladder at the pilot's speed


def _pilot(
    plan: LadderPlan, games: int, threads: int | None, progress: Callable[[int, int], None] | None
) -> tuple[list[tuple[Any, ...]], list[float]]:
    """Every point's (win, order, team, role) arrays (:func:`mirror_arrays`) over ``games``
    games of the pilot's seed, and the seconds each took (the kernels loaded first)."""
    import time

    from balance import results
    from balance.ladder_file import grids
    from balance.runner import numba_threads

    seed = pilot_seed(plan.seed)
    arrays, seconds = [], []
    with numba_threads(threads):
        for k, cfg in enumerate(plan.sweep.configs):
            run = runner.prepare(cfg, seed=seed)
            t0 = time.perf_counter()
            chunks = [c[0] for c in runner.play_chunks([run], seed=seed, games=games)]
            seconds.append(time.perf_counter() - t0)
            frame = pl.concat(
                results.chunk_frame(
                    c,
                    seats=list(cfg.seats),
                    teams=list(cfg.teams) if cfg.teams else [str(i) for i in range(cfg.players)],
                    end_reasons=run.plugin.end_reasons,
                    telemetry_columns=run.telemetry,
                    team_names=run.team_names,
                    role_names=run.role_names,
                )
                for c in chunks
            )
            arrays.append(grids(frame, cfg.players))
            if progress is not None:
                progress(k + 1, len(plan.sweep.configs))
    return arrays, seconds


def point_sd(plan: LadderPlan, arrays: Sequence[tuple[Any, ...]]) -> list[float]:
    """Per point, the per-game standard deviation of the statistic it serves, from its
    ``arrays`` (:func:`mirror_arrays`, all over the same games): a mirror's largest over its
    findings (balance/stats/ladder.py's ``finding_values``) and, for the weakest and strongest,
    the deal's hold; a rotation's, its step's edge; a variant's, its change of the headline."""
    import numpy as np

    from balance.ladder_file import headline_key, report_settings
    from balance.stats import ladder as st

    def sd(values: Any) -> float:
        v = np.asarray(values, np.float64)
        v = v[np.isfinite(v)]
        return float(v.std(ddof=1)) if len(v) > 1 else 0.0

    _, targets = report_settings(plan.report)
    pts = plan.points
    mirror = {p.rung: k for k, p in enumerate(pts) if p.kind == "mirror"}
    found = {r: st.finding_values(*arrays[k], targets=targets) for r, k in mirror.items()}
    key = headline_key(plan.headline)
    out = [0.0] * len(pts)
    for r, k in mirror.items():
        out[k] = max((sd(v) for v, _ in found[r].values()), default=0.0)
    steps = {(p.kind, p.rung, p.below) for p in pts if p.kind in ("depth", "luck")}
    for kind, upper, lower in steps:
        ks = sorted((k for k, p in enumerate(pts) if (p.kind, p.rung, p.below) ==
                     (kind, upper, lower)), key=lambda k: pts[k].seat)  # fmt: skip
        rotations = np.stack([arrays[k][0][:, pts[k].seat] for k in ks], axis=1)
        _, _, edge = st.step_edge(arrays[mirror[lower]][0], rotations)
        for k in ks:
            out[k] = sd(edge)
        if kind == "luck":  # the deal's hold is read from the two mirrors alone
            same, chance = st.hold_values(arrays[mirror[lower]][0], arrays[mirror[upper]][0])
            for r in (lower, upper):
                out[mirror[r]] = max(out[mirror[r]], sd(same - chance))
    for k, p in enumerate(pts):
        if p.kind == "matrix" and key is not None:
            cell = st.finding_values(*arrays[k], targets=targets).get(key)
            out[k] = sd(cell[0]) if cell is not None else 0.0
        if p.kind == "impact" and key is not None:
            changed = st.finding_values(*arrays[k], targets=targets).get(key)
            base = found[p.rung].get(key)
            if changed is not None and base is not None:
                out[k] = sd(changed[0] - base[0])
    return out


def sized_games(
    plan: LadderPlan, sds: Sequence[float], *, half_width: float = HALF_WIDTH, level: float = LEVEL
) -> tuple[int, ...]:
    """Each point's games from its statistic's per-game standard deviation (above)."""
    cap = games_for(half_width, level)
    z = float(sps.norm.ppf(0.5 + level / 2))

    def need(s: float) -> int:
        return min(cap, max(MIN_GAMES, math.ceil((z * s / half_width) ** 2)))

    def group(p: LadderPoint) -> tuple[Any, ...]:
        if p.kind == "impact":
            return ("impact", p.variant)
        if p.kind == "matrix":  # a cell is read alone
            return ("matrix", p.rung, p.evil)
        return (p.kind, p.rung, p.below) if p.kind != "mirror" else ("mirror",)

    most: dict[tuple[Any, ...], int] = {}
    for p, s in zip(plan.points, sds, strict=True):
        most[group(p)] = max(most.get(group(p), 0), need(s))
    mirrors = max(n for g, n in most.items() if g[0] != "matrix")
    return tuple(mirrors if p.kind == "mirror" else most[group(p)] for p in plan.points)


def size_points(
    plan: LadderPlan,
    *,
    half_width: float = HALF_WIDTH,
    level: float = LEVEL,
    threads: int | None = None,
    pilot: int = PILOT,
    progress: Callable[[int, int], None] | None = None,
) -> Sizing:
    """Size every point of ``plan`` from a pilot of ``pilot`` games of each (module comment
    above); played here, never on a backend. ``progress(done, points)``."""
    arrays, seconds = _pilot(plan, pilot, threads, progress)
    sds = point_sd(plan, arrays)
    games = sized_games(plan, sds, half_width=half_width, level=level)
    per_point = tuple(t / pilot * n for t, n in zip(seconds, games, strict=True))
    return Sizing(games, tuple(sds), Estimate(sum(per_point), per_point, pilot, sum(seconds),
                                              "point"))  # fmt: skip


# ================================================================================= the plan


class LadderPlan(NamedTuple):
    """A ladder whose every point's config is validated: ready to play (``sweep`` plays it)."""

    rungs: tuple[Rung, ...]
    points: tuple[LadderPoint, ...]
    sweep: sweep.Plan
    report: dict[str, Any] | None  # the config's report section: the findings' tolerances
    variants: tuple[Any, ...] = ()  # the card impacts re-measured at every rung
    headline: tuple[str, str, str] = ("win_share", "order", "0")  # the config's

    @property
    def games(self) -> int:
        """Games a point (the most, when the points are sized: :func:`size_points`)."""
        return self.sweep.games

    @property
    def seed(self) -> int:
        return self.sweep.seed

    def manifest(self) -> dict[str, Any]:
        """``ladder.json``: the rungs and what each point is."""
        return {
            "kind": "ladder",
            "version": balance.__version__,
            "game": self.sweep.game,
            "config_path": self.sweep.config_path,
            "rungs": [{"name": r.name, "policy": r.entry} for r in self.rungs],
            "games": self.games,
            "point_games": list(self.sweep.point_games) or None,
            "seed": self.seed,
            "report": self.report,
            "headline": list(self.headline),
            "variants": [
                {"name": v.name, "description": v.description, "patch": v.patch}
                for v in self.variants
            ],
            "points": [
                {
                    "dir": sp.dir,
                    "kind": p.kind,
                    "rung": p.rung,
                    "below": p.below,
                    "seat": p.seat,
                    "variant": p.variant,
                    "evil": p.evil,
                    "games": self.sweep.games_at(k),
                }
                for k, (p, sp) in enumerate(zip(self.points, self.sweep.points, strict=True))
            ],
        }


def plan_ladder(
    config: str | os.PathLike[str],
    rungs: str | Sequence[str],
    *,
    sets: Sequence[str] = (),
    games: int | None = None,
    seed: int | None = None,
    config_path: str | None = None,
    variants: Sequence[Any] = (),
    point_games: Sequence[int] = (),
    matrix: bool | None = None,
) -> LadderPlan:
    """Every point of the ladder of ``rungs`` over ``config`` (with ``--set`` overrides),
    validated, as a sweep of one categorical knob. ``games`` a point: :func:`games_for` by
    default; ``point_games``: each point's own (:func:`size_points`), at most ``games``;
    ``seed``: the config's; ``matrix``: the Family x evil matrix (by default when the game
    deals sides)."""
    sets_ = parse_overrides(sets, source="--set")
    base = load_config(config, sets_)
    parsed = parse_rungs(base, rungs)
    pts = plan_points(base, parsed, variants, has_sides(base) if matrix is None else matrix)
    games = games_for() if games is None else games
    seed = base.seed if seed is None else seed
    runner.check_options(games=games, seed=seed, players=base.players)
    names = tuple(p.name for p in pts)
    text = f"--rungs {','.join(r.name for r in parsed)}"
    axis = Axis(text=text, key=AXIS, path=(AXIS,), values=names, labels=names)
    width = max(2, len(str(len(pts) - 1)))
    points = tuple(
        sweep.Point(
            index=i,
            name=p.name,
            dir=f"{i:0{width}d}-{p.dir}",
            values=(p.name,),
            labels=(p.name,),
            overrides=(
                override("policies", p.config.resolved_dict()["policies"], source=SOURCE),
                override("seats", list(p.config.seats), source=SOURCE),
            ),
        )
        for i, p in enumerate(pts)
    )
    configs = tuple(p.config.model_copy(update={"games": games, "seed": seed}) for p in pts)
    plan = sweep.Plan(
        config_path=config_path if config_path is not None else os.fspath(config),
        game=base.game,
        sets=tuple(sets_),
        axes=(axis,),
        points=points,
        configs=configs,
        games=games,
        seed=seed,
    )
    from balance.config.headline import headline_of

    out = LadderPlan(
        tuple(parsed), tuple(pts), plan, base.resolved_dict().get("report"), tuple(variants),
        headline_of(base),
    )  # fmt: skip
    return with_games(out, point_games) if point_games else out


def with_games(plan: LadderPlan, point_games: Sequence[int]) -> LadderPlan:
    """``plan`` with each point's own games (:func:`size_points`), each at most ``plan.games``."""
    if len(point_games) != len(plan.points):
        raise LadderError(f"a ladder of {len(plan.points)} points was sized for {len(point_games)}")
    bad = [n for n in point_games if not 1 <= n <= plan.games]
    if bad:
        raise LadderError(
            f"a ladder point was sized for {bad[0]:,} games; a point plays 1 to {plan.games:,}"
        )
    games = tuple(int(n) for n in point_games)
    configs = tuple(
        c.model_copy(update={"games": n}) for c, n in zip(plan.sweep.configs, games, strict=True)
    )
    return plan._replace(sweep=plan.sweep._replace(configs=configs, point_games=games))


def run_ladder(
    plan: LadderPlan,
    *,
    out: str | os.PathLike[str],
    threads: int | None = None,
    chunk_size: int = runner.CHUNK,
    force: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
    on_point: Callable[[Any], None] | None = None,
) -> sweep.SweepSummary:
    """Play every point into ``out`` (``sweep.run_sweep``: the same resuming and Ctrl-C), with
    ``ladder.json`` beside the sweep manifest."""
    out = Path(out)
    sweep.check_out(out, plan.sweep, force=force)
    summary = sweep.run_sweep(
        plan.sweep,
        out=out,
        threads=threads,
        chunk_size=chunk_size,
        force=force,
        progress=progress,
        on_point=lambda r: (_write_manifest(out, plan), on_point and on_point(r)),
    )
    _write_manifest(out, plan)
    return summary


def _write_manifest(out: Path, plan: LadderPlan) -> None:
    from balance.results import writer

    writer._write_json(out / LADDER_MANIFEST, plan.manifest())


# =============================================================================== the estimate


class Estimate(NamedTuple):
    """What the ladder will take, from a pilot of a few games of each distinct line-up."""

    seconds: float  # every point's games, at the pilot's speed
    per_point: tuple[float, ...]  # seconds per point
    pilot_games: int  # games the pilot played of each line-up
    pilot_seconds: float  # what the pilot took (kernels loaded first, not counted)
    of: str = "line-up"  # what the pilot played its games of: each line-up, or each point

    def text(self, threads: int | None) -> str:
        where = f"{threads} thread{'s' if threads != 1 else ''}" if threads else "all cores"
        most = _duration(self.seconds * (1 + PACE))
        return (
            f"about {_duration(self.seconds)} on {where}, up to {most} should the machine run "
            f"{PACE * 100:.0f} % slower than during the pilot (a pilot of {self.pilot_games} games of "
            f"each {self.of} took {self.pilot_seconds:.1f} s)"
        )


# How much slower a long run may go than the pilot that timed it, on a shared machine: the
# default ladders, measured end to end on 2 shared cores, took 0.84 to 1.04 times their estimate
# (docs/commands/ladder.md), and the machine's speed drifts by 10 % or more within an hour.
PACE = 0.15


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def estimate(
    plan: LadderPlan,
    *,
    threads: int | None = None,
    pilot: int = 0,
    out: str | os.PathLike[str] | None = None,
) -> Estimate:
    """Time every line-up of the ladder on a few games (``pilot``: by default one per thread,
    at least 4) and scale to the plan's games. A step's rotations play alike and are timed
    once; the points already complete in ``out`` (a ladder resumed) cost nothing and are not
    timed. Games are played here, never on a backend: the estimate is of this machine."""
    import time

    from balance.runner import numba_threads

    plugin = registry.get(plan.sweep.game)
    done = [False] * len(plan.points) if out is None else remaining(plan, out)
    with numba_threads(threads):
        import numba

        n = pilot or max(4, numba.get_num_threads())
        timed: dict[tuple[str, str | None], float] = {}
        spent = 0.0
        for p, kept in zip(plan.points, done, strict=True):
            key = (p.kind, p.rung, p.below, p.variant, p.evil)
            if kept or key in timed:
                continue
            tables = plugin.compile(p.config)
            plugin.play(tables, plan.seed, 0, 0)  # load (or compile) the kernels
            t0 = time.perf_counter()
            plugin.play(tables, plan.seed, 0, n)
            took = time.perf_counter() - t0
            spent += took
            timed[key] = took / n
    per_point = tuple(
        0.0
        if kept
        else timed[(p.kind, p.rung, p.below, p.variant, p.evil)] * plan.sweep.games_at(k)
        for k, (p, kept) in enumerate(zip(plan.points, done, strict=True))
    )
    return Estimate(sum(per_point), per_point, n, spent)


def remaining(plan: LadderPlan, out: str | os.PathLike[str]) -> list[bool]:
    """Per point, whether ``out`` already holds it complete (the same config, games, seed and
    version: what the ladder keeps when it resumes)."""
    return [
        sweep._is_complete(Path(out) / sp.dir, cfg, plan.sweep.games_at(k), plan.sweep)
        for k, (sp, cfg) in enumerate(zip(plan.sweep.points, plan.sweep.configs, strict=True))
    ]


# ================================================================================== resuming


class Recorded(NamedTuple):
    """What a ladder directory records of the command that plays it (``--resume``)."""

    config: str  # the config file as the ladder recorded it
    sets: list[str]
    rungs: list[str]
    games: int
    seed: int
    impact: str  # the variants' names, comma-separated, or "none"
    point_games: list[int]  # each point's games when they were sized (else empty)
    matrix: bool  # the Family x evil matrix was played


def recorded(out: str | os.PathLike[str]) -> Recorded:
    """The ladder in ``out`` as its command gave it (LadderError, one line, when ``out`` holds
    no ladder or a damaged one)."""
    from balance.sweep_file import SweepError, read_sweep_manifest

    manifest = read_manifest(out)
    try:
        overrides = [str(o) for o in read_sweep_manifest(out).get("overrides") or []]
        variants = [str(v["name"]) for v in manifest.get("variants") or []]
        return Recorded(
            config=str(manifest["config_path"]),
            sets=overrides,
            rungs=[str(r["name"]) for r in manifest["rungs"]],
            games=int(manifest["games"]),
            seed=int(manifest["seed"]),
            impact=",".join(variants) or "none",
            point_games=[int(n) for n in manifest.get("point_games") or []],
            matrix=any(p.get("kind") == "matrix" for p in manifest["points"]),
        )
    except SweepError as e:
        raise LadderError(str(e)) from None
    except (KeyError, TypeError, ValueError) as e:
        raise LadderError(
            f"{Path(out) / LADDER_MANIFEST}: damaged ({e!r} missing or wrong)"
        ) from None
