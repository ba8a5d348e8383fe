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
    mirror_arrays,
    point_wins,
    read_depth,
    read_findings,
    read_impacts,
    read_luck,
    read_manifest,
)
from balance.sweep_file import Axis

SOURCE = "--rungs"
SEARCH = re.compile(r"search_(?P<n>[1-9][0-9]*)")
MAX_RUNGS = 8  # a longer ladder is a typo, and its depth points grow with every rung
# The default ladder's search budgets per game, each 4x the last, the lowest a budget at which
# search is still a player of its own (in Five Ravens 8 iterations lose to greedy, 25 win). A
# search decision costs its iterations times a rest-of-game, so the slow games' rungs start low.
# The ladder's own pilot estimates the base configs' default ladders (2,401 games a point,
# --impact top) at 51 (Five Ravens), 81 (The Raven Order), 108 (Raven Manor) and 65 (Corvids)
# minutes on a 2-core machine: above the half-hour aimed at (docs/commands/ladder.md).
BUDGETS = {
    "five_ravens": (25, 100, 400),
    "raven_order": (5, 20, 80),
    "raven_manor": (2, 8, 32),
    "corvids": (2, 8, 32),
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

    @property
    def name(self) -> str:
        if self.kind == "mirror":
            return f"every seat {self.rung}"
        if self.kind == "impact":
            return f"every seat {self.rung}, variant {self.variant}"
        return f"{self.rung} in seat {self.seat + 1} among {self.below}"

    @property
    def dir(self) -> str:
        if self.kind == "mirror":
            return f"mirror-{self.rung}"
        if self.kind == "impact":
            return f"impact-{_slug(self.variant or '')}-{self.rung}"
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


def plan_points(
    config: RunConfig, rungs: Sequence[Rung], variants: Sequence[Any] = ()
) -> list[LadderPoint]:
    """Every mirror, then every step with its seats rotated, then (with 3 rungs or more) the
    top rung among the first, rotated, then each variant (experiments/variants.py) at every
    rung: each config validated."""
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
    return out


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
    ``top`` (the default): the three whose change of the config's headline is largest, as a
    report's card impact ranks them (experiments/impact.py), measured with the config's own
    line-up on ``games`` games of seed ``seed + 1``: other games than the ladder's, so that the
    ladder's measure of the chosen three is not the one that chose them."""
    from balance.experiments.impact import impact
    from balance.experiments.variants import default_variants, report_variants

    text = spec.strip()
    if text == "none":
        return []
    plugin = registry.get(config.game)
    known = {
        v.name: v for v in [*report_variants(plugin, config), *default_variants(plugin, config)]
    }
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
    if not known:
        return []
    screen = (seed + 1) % 2**63
    measured = impact(
        config, list(known.values()), games=games, seed=screen, threads=threads, progress=progress
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
                }
                for p, sp in zip(self.points, self.sweep.points, strict=True)
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
) -> LadderPlan:
    """Every point of the ladder of ``rungs`` over ``config`` (with ``--set`` overrides),
    validated, as a sweep of one categorical knob. ``games`` a point: :func:`games_for` by
    default; ``seed``: the config's."""
    sets_ = parse_overrides(sets, source="--set")
    base = load_config(config, sets_)
    parsed = parse_rungs(base, rungs)
    pts = plan_points(base, parsed, variants)
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

    return LadderPlan(
        tuple(parsed), tuple(pts), plan, base.resolved_dict().get("report"), tuple(variants),
        headline_of(base),
    )  # fmt: skip


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

    def text(self, threads: int | None) -> str:
        where = f"{threads} thread{'s' if threads != 1 else ''}" if threads else "all cores"
        return (
            f"about {_duration(self.seconds)} on {where} (a pilot of {self.pilot_games} games "
            f"of each line-up took {self.pilot_seconds:.1f} s)"
        )


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def estimate(plan: LadderPlan, *, threads: int | None = None, pilot: int = 0) -> Estimate:
    """Time every line-up of the ladder on a few games (``pilot``: by default one per thread,
    at least 4) and scale to the plan's games. A step's rotations play alike and are timed
    once. Games are played here, never on a backend: the estimate is of this machine."""
    import time

    from balance.runner import numba_threads

    plugin = registry.get(plan.sweep.game)
    with numba_threads(threads):
        import numba

        n = pilot or max(4, numba.get_num_threads())
        timed: dict[tuple[str, str | None], float] = {}
        spent = 0.0
        for p in plan.points:
            key = (p.kind == "impact", p.rung, p.below, p.variant)
            if key in timed:
                continue
            tables = plugin.compile(p.config)
            plugin.play(tables, plan.seed, 0, 0)  # load (or compile) the kernels
            t0 = time.perf_counter()
            plugin.play(tables, plan.seed, 0, n)
            took = time.perf_counter() - t0
            spent += took
            timed[key] = took / n
    per_point = tuple(
        timed[(p.kind == "impact", p.rung, p.below, p.variant)] * plan.games for p in plan.points
    )
    return Estimate(sum(per_point), per_point, n, spent)


# ================================================================================== resuming


class Recorded(NamedTuple):
    """What a ladder directory records of the command that plays it (``--resume``)."""

    config: str  # the config file as the ladder recorded it
    sets: list[str]
    rungs: list[str]
    games: int
    seed: int
    impact: str  # the variants' names, comma-separated, or "none"


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
        )
    except SweepError as e:
        raise LadderError(str(e)) from None
    except (KeyError, TypeError, ValueError) as e:
        raise LadderError(
            f"{Path(out) / LADDER_MANIFEST}: damaged ({e!r} missing or wrong)"
        ) from None
