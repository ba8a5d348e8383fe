"""``balance sweep``: one config played at every value of one or more knobs, on common seeds.

A sweep is a list of **points**, each the config with one value per knob written in as an
override (``--over KEY=V1,V2,...`` or ``KEY=lo..hi[:step]``; several ``--over`` make the grid of
every combination, the first knob varying slowest). Every point plays the same games of the
same seed, so game ``i`` of every point draws the same random numbers (common random numbers,
DESIGN.md): neighbouring points of the same player count are compared game by game.

Each point is a results directory inside the sweep's, beside the sweep manifest ``sweep.json``
(the layout and the reading are balance/sweep_file.py's, which the report reads too).

**Validation first.** Every point's config is loaded and validated before any game is played,
so a bad value in point 5 fails at once: one line naming the ``--over`` key and value
(``--over players=5: players: five_ravens is for 2-4 players, got 5``).

**Kernels load once.** Values live in tables (DESIGN.md, Kernels), so the points compile their
tables (milliseconds) and reuse the kernels the first point loaded: a sweep of N points costs
about N runs' games.

**Interrupted sweeps resume.** Ctrl-C stops the point being played after its finished chunks
(runner.run keeps them, its manifest says ``interrupted``) and marks the sweep ``interrupted``;
the points already finished are complete results directories. Running the same sweep again with
the same ``--out`` keeps every point that is complete with the same config hash, games, seed
and balance version, and plays the others. Another sweep in the same ``--out`` is refused
unless ``--force`` (which replaces it).

Nothing here prints: progress goes through ``progress(label, done, total)`` and each finished
point through ``on_point(PointResult)``; errors are ``SweepError`` or ``ConfigError`` (one line).
"""

from __future__ import annotations

import contextlib
import decimal
import itertools
import os
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import balance
from balance import results, runner
from balance.config import ConfigError, RunConfig, config_hash, load_config
from balance.config.overrides import Override, override, parse_override, parse_overrides

# The directory's format has its own module (the report reads it); re-exported here, where it
# was defined before.
from balance.sweep_file import (
    FORMAT,
    SWEEP_MANIFEST,
    Axis,
    SweepError,
    SweepPoint,
    SweepRun,
    is_sweep,
    open_sweep,
    read_sweep_manifest,
)

MAX_POINTS = 1000  # a sweep of more points is almost surely a typo in a range
SOURCE = "--over"
# Keys a sweep cannot vary: it plays one game, and the same games of the same seed at every point.
FIXED_KEYS = {
    "game": "a sweep plays one game",
    "games": "every point plays the same games: give --games",
    "seed": "every point plays the same seed: give --seed",
}

_NUMBER = r"[-+]?(?:\d+\.\d+|\d+|\.\d+)(?:[eE][-+]?\d+)?"
_RANGE = re.compile(
    rf"\s*(?P<lo>{_NUMBER})\s*\.\.\s*(?P<hi>{_NUMBER})\s*(?::\s*(?P<step>{_NUMBER}))?\s*"
)
_DIR_CHARS = re.compile(r"[^A-Za-z0-9._=+-]+")


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a sweep: ``done`` of ``total`` points are complete in ``out`` (the sweep
    manifest says ``interrupted``); ``partial`` names the point left with some of its games."""

    def __init__(self, out: Path, done: int, total: int, partial: str | None = None) -> None:
        super().__init__(f"interrupted: {done} of {total} points complete in {out}")
        self.out = out
        self.done = done
        self.total = total
        self.partial = partial


# ===================================================================================== knobs


def _error(text: str, problem: str) -> SweepError:
    return SweepError(f"{SOURCE} {text}: {problem}")


def _split_values(raw: str, text: str) -> list[str]:
    """Comma-separated YAML values; commas inside [...], {...} or quotes stay in their value."""
    parts, depth, quote, start = [], 0, "", 0
    for i, c in enumerate(raw):
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(raw[start:i])
            start = i + 1
    parts.append(raw[start:])
    parts = [p.strip() for p in parts]
    if any(not p for p in parts):
        raise _error(text, "an empty value between commas (expected KEY=V1,V2,...)")
    return parts


def _range_values(m: re.Match[str], text: str) -> list[tuple[Any, str]]:
    """The values of ``lo..hi[:step]``: integers when lo, hi and step are; reals need a step."""
    lo_t, hi_t, step_t = m["lo"], m["hi"], m["step"]
    ints = all(t is None or re.fullmatch(r"[-+]?\d+", t) for t in (lo_t, hi_t, step_t))
    if not ints and step_t is None:
        raise _error(text, "a range of reals needs a step: lo..hi:step (e.g. 0.5..2:0.25)")
    dec = decimal.Decimal
    lo, hi, step = dec(lo_t), dec(hi_t), dec(step_t or "1")
    if step <= 0:
        raise _error(text, f"the step must be > 0, got {step_t}")
    if hi < lo:
        raise _error(text, f"an empty range: {hi_t} is below {lo_t}")
    count = int((hi - lo) / step) + 1
    if count > MAX_POINTS:
        raise _error(text, f"{count:,} values; a sweep holds at most {MAX_POINTS:,} points")
    values = [lo + i * step for i in range(count)]
    if ints:
        return [(int(v), str(int(v))) for v in values]
    # Labels with the decimals the range was written with: 1..2:0.5 -> 1.0, 1.5, 2.0.
    exponent = min(int(x.as_tuple().exponent) for x in (lo, step))
    quantum = dec(1).scaleb(min(exponent, -1))
    return [(float(v), format(v.quantize(quantum), "f")) for v in values]


def parse_over(text: str) -> Axis:
    """``KEY=V1,V2,...`` or ``KEY=lo..hi[:step]`` as an :class:`Axis` (numbers in increasing
    order, other values as given); bad syntax, a key a sweep cannot vary or a repeated value
    raise one line naming the ``--over``."""
    text = text.strip()
    if "=" not in text:
        raise _error(text, "expected KEY=V1,V2,... or KEY=lo..hi[:step] (e.g. players=2,3,4)")
    key, raw = (part.strip() for part in text.split("=", 1))
    if not raw:
        raise _error(text, "no values after '=' (expected KEY=V1,V2,... or KEY=lo..hi[:step])")
    m = _RANGE.fullmatch(raw)
    if m is not None:
        pairs = _range_values(m, text)
        first = override(key, pairs[0][0], source=SOURCE)  # checks the key's syntax
    else:
        items = _split_values(raw, text)
        parsed = [parse_override(f"{key}={item}", source=SOURCE) for item in items]
        first = parsed[0]
        pairs = [(o.value, item) for o, item in zip(parsed, items, strict=True)]
    if first.path[0] in FIXED_KEYS and len(first.path) == 1:
        raise _error(text, f"{first.key} cannot be swept: {FIXED_KEYS[str(first.path[0])]}")
    seen: dict[tuple[str, str], str] = {}
    for value, label in pairs:
        ident = (type(value).__name__, repr(value))
        if ident in seen:
            raise _error(text, f"the value {label} is given twice")
        seen[ident] = label
    if len(pairs) > MAX_POINTS:
        raise _error(text, f"{len(pairs):,} values; a sweep holds at most {MAX_POINTS:,} points")
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v, _ in pairs):
        pairs = sorted(pairs, key=lambda pair: pair[0])  # a curve runs along its numeric axis
    return Axis(
        text=f"{first.key}={raw}",
        key=first.key,
        path=first.path,
        values=tuple(v for v, _ in pairs),
        labels=tuple(label for _, label in pairs),
    )


def parse_axes(texts: Sequence[str], sets: Sequence[Override] = ()) -> list[Axis]:
    """Every ``--over``; a key given twice, or also given with ``--set``, is an error."""
    if not texts:
        raise SweepError(f"give at least one {SOURCE} KEY=V1,V2,... (e.g. {SOURCE} players=2,3,4)")
    axes = [parse_over(t) for t in texts]
    keys: dict[tuple[str | int, ...], Axis] = {}
    for axis in axes:
        if axis.path in keys:
            raise _error(
                axis.text, f"{axis.key} is swept twice (also {SOURCE} {keys[axis.path].text})"
            )
        keys[axis.path] = axis
        for s in sets:
            if s.path == axis.path:
                raise _error(
                    axis.text, f"{axis.key} is also set by {s.label}; give it in one place"
                )
    count = 1
    for axis in axes:
        count *= len(axis.values)
    if count > MAX_POINTS:
        raise SweepError(
            f"{SOURCE}: the grid has {count:,} points; a sweep holds at most {MAX_POINTS:,}"
        )
    return axes


# ==================================================================================== points


class Point(NamedTuple):
    """One point of a sweep: a value for each knob."""

    index: int
    name: str  # "players=2" or "players=2, rules.relics.gem.count=3"
    dir: str  # its results directory inside the sweep's, e.g. "00-players=2"
    values: tuple[Any, ...]  # one per axis
    labels: tuple[str, ...]  # each value as written
    overrides: tuple[Override, ...]


def points(axes: Sequence[Axis]) -> list[Point]:
    """Every combination of the axes' values, the first axis varying slowest."""
    combos = list(itertools.product(*(range(len(a.values)) for a in axes)))
    width = len(str(max(len(combos) - 1, 0)))
    width = max(width, 2)
    out = []
    for i, combo in enumerate(combos):
        values = tuple(a.values[j] for a, j in zip(axes, combo, strict=True))
        labels = tuple(a.labels[j] for a, j in zip(axes, combo, strict=True))
        parts = [f"{a.key}={label}" for a, label in zip(axes, labels, strict=True)]
        slug = _DIR_CHARS.sub("-", "_".join(parts)).strip("-")[:120] or "point"
        out.append(
            Point(
                index=i,
                name=", ".join(parts),
                dir=f"{i:0{width}d}-{slug}",
                values=values,
                labels=labels,
                overrides=tuple(
                    override(a.key, v, source=SOURCE)._replace(text=f"{a.key}={label}")
                    for a, v, label in zip(axes, values, labels, strict=True)
                ),
            )
        )
    return out


class Plan(NamedTuple):
    """A sweep whose every point's config has been validated: ready to play."""

    config_path: str
    game: str
    sets: tuple[Override, ...]
    axes: tuple[Axis, ...]
    points: tuple[Point, ...]
    configs: tuple[RunConfig, ...]  # per point, with the sweep's games and seed
    games: int  # per point (the most, when ``point_games`` sizes each)
    seed: int
    point_games: tuple[int, ...] = ()  # games of each point when they differ (a sized ladder)

    def games_at(self, k: int) -> int:
        """Games of point ``k``: games ``[0, n)`` of the seed, so that any two points share
        the first games of the one with fewer (common random numbers)."""
        return self.point_games[k] if self.point_games else self.games

    @property
    def total_games(self) -> int:
        return sum(self.games_at(k) for k in range(len(self.points)))

    def definition(self) -> dict[str, Any]:
        """What makes two sweeps the same sweep (a re-run with the same --out resumes it)."""
        out = {
            "game": self.game,
            "config_path": self.config_path,
            "overrides": [o.text for o in self.sets],
            "axes": [{"key": a.key, "values": list(a.labels)} for a in self.axes],
            "games": self.games,
            "seed": self.seed,
        }
        if self.point_games:
            out["point_games"] = list(self.point_games)
        return out


def plan_sweep(
    config: str | os.PathLike[str],
    overs: Sequence[str],
    *,
    sets: Sequence[str] = (),
    games: int | None = None,
    seed: int | None = None,
    config_path: str | None = None,
) -> Plan:
    """Parse the knobs and validate every point's config (the ``--set`` overrides, then the
    point's ``--over`` values) before anything is played; ``games`` and ``seed`` default to the
    config's (with ``--set``). Raises ConfigError or SweepError, one line."""
    sets_ = parse_overrides(sets, source="--set")
    axes = parse_axes(overs, sets_)
    base = load_config(config, sets_)
    games = base.games if games is None else games
    seed = base.seed if seed is None else seed
    runner.check_options(games=games, seed=seed)
    pts = points(axes)
    configs = []
    for p in pts:
        cfg = load_config(config, [*sets_, *p.overrides])
        if cfg.game != base.game:  # pragma: no cover - FIXED_KEYS refuses `game`
            raise _error(p.name, "a sweep plays one game")
        try:
            runner.check_options(games=games, seed=seed, players=len(cfg.seats))
        except runner.RunnerError as e:
            raise SweepError(f"{SOURCE} {p.name}: {e}") from None
        configs.append(cfg.model_copy(update={"games": games, "seed": seed}))
    return Plan(
        config_path=config_path if config_path is not None else os.fspath(config),
        game=base.game,
        sets=tuple(sets_),
        axes=tuple(axes),
        points=tuple(pts),
        configs=tuple(configs),
        games=games,
        seed=seed,
    )


# =================================================================================== playing


class PointResult(NamedTuple):
    """What happened to one point: ``played`` now, or ``kept`` from an earlier run."""

    point: Point
    out: Path
    status: str  # "played" or "kept"
    games: int
    wall_time_s: float  # simulating and writing (runner.run's), 0 for a kept point
    games_per_s: float
    compile_time_s: float  # compiling the tables and loading the kernels (first point: a load)
    position: int  # 1-based among the points of the sweep
    total: int


class SweepSummary(NamedTuple):
    out: Path
    points: list[PointResult]
    games: int  # per point
    seed: int
    played_games: int  # games played by this run (kept points excluded)
    wall_time_s: float  # the whole sweep, validation to the last manifest


def default_out(plan: Plan, *, now: Any = None) -> Path:
    """``results/<game>-<config stem>-sweep-<date>-<time>`` (``-2``... when taken)."""
    stem = Path(plan.config_path).stem
    return runner.default_out(plan.configs[0], f"{stem}-sweep", now=now)


def sweep_costs(plan: Plan, *, out: Path, threads: int | None = None) -> list[str]:
    """runner.run_costs for the whole sweep: every point's games at the largest player count
    (an upper bound on the time at the game's benchmark speed and on the disk it writes)."""
    widest = max(plan.configs, key=lambda c: len(c.seats))
    return runner.run_costs(widest, games=plan.total_games, out=out, threads=threads)


def _is_complete(point_dir: Path, cfg: RunConfig, games: int, plan: Plan) -> bool:
    """The point's directory holds this point's finished run (same config hash, games, seed and
    balance version), readable."""
    if not (point_dir / results.MANIFEST).is_file():
        return False
    try:
        m = results.read_manifest(point_dir)
        ran = results.check_config(m, point_dir)
    except (results.ResultsError, ConfigError):
        return False
    return (
        m.get("status") == "complete"
        and config_hash(ran) == config_hash(cfg)  # the policies played, as this release reads them
        and m.get("games_done") == games
        and m.get("seed") == plan.seed
        and m.get("version") == balance.__version__
    )


def check_out(out: str | os.PathLike[str], plan: Plan, *, force: bool) -> dict[str, Any] | None:
    """The earlier manifest of this same sweep in ``out`` (to resume), None for a fresh start;
    SweepError when ``out`` holds something else (another sweep: unless ``force``). Nothing is
    written: :func:`run_sweep` calls it too."""
    out = Path(out)
    if not out.exists() or (out.is_dir() and not results.entries(out)):
        return None
    if not out.is_dir():
        raise SweepError(f"{out}: exists and is not a directory; choose another --out")
    file = out / SWEEP_MANIFEST
    if not file.is_file():
        raise SweepError(
            f"{out}: exists and is not a sweep directory (no {SWEEP_MANIFEST}); refusing to "
            "replace it even with --force, choose another --out"
        )
    try:
        earlier = read_sweep_manifest(out)
    except SweepError:
        if force:
            return None
        raise
    if force:
        return None
    before = earlier.get("definition") or {}
    now = plan.definition()
    if before != now:
        differ = [k for k in now if before.get(k) != now[k]] or ["definition"]
        raise SweepError(
            f"{out}: holds another sweep (its {', '.join(differ)} differ); choose another "
            "--out or pass --force to replace it"
        )
    if earlier.get("status") == "running":  # its process lives (or runs on another host)
        raise SweepError(f"{out}: {results.status_text(earlier)}: a sweep is being played there")
    return earlier


def run_sweep(
    plan: Plan,
    *,
    out: str | os.PathLike[str],
    threads: int | None = None,
    chunk_size: int = runner.CHUNK,
    force: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
    on_point: Callable[[PointResult], None] | None = None,
) -> SweepSummary:
    """Play every point of ``plan`` into ``out/<point dir>/`` (each a results directory written
    by runner.run) and keep ``out/sweep.json`` current; see the module docstring for resuming.

    ``progress(label, done, total)`` counts the games of the points played by this call (kept
    points excluded); ``on_point`` is called after each point. Ctrl-C raises
    :class:`SweepInterrupted` once the sweep manifest says ``interrupted``."""
    out = Path(out)
    runner.check_options(games=plan.games, seed=plan.seed, chunk_size=chunk_size, threads=threads)
    results.check_not_busy(out, what="sweep")
    check_out(out, plan, force=force)  # a file or a foreign directory in the way: said first
    # One writer per sweep: a second sweep into the same directory fails at once, naming the
    # live process (each point's run also takes its own directory's lock).
    with results.one_writer(out, what="sweep"):
        return _run_sweep(
            plan,
            out=out,
            threads=threads,
            chunk_size=chunk_size,
            force=force,
            progress=progress,
            on_point=on_point,
        )


def _run_sweep(
    plan: Plan,
    *,
    out: Path,
    threads: int | None,
    chunk_size: int,
    force: bool,
    progress: Callable[[str, int, int], None] | None,
    on_point: Callable[[PointResult], None] | None,
) -> SweepSummary:
    """:func:`run_sweep`, holding the sweep directory's writer lock."""
    t0 = time.perf_counter()
    earlier = check_out(out, plan, force=force)
    if earlier is None and out.exists() and results.entries(out):
        results.clear(out)  # --force over an earlier sweep (every point validated by now)
    out.mkdir(parents=True, exist_ok=True)
    total = len(plan.points)
    kept = [
        _is_complete(out / p.dir, cfg, plan.games_at(k), plan)
        for k, (p, cfg) in enumerate(zip(plan.points, plan.configs, strict=True))
    ]
    manifest = _manifest(plan, kept, threads=threads)
    _save(out, manifest, t0)
    games_total = sum(plan.games_at(k) for k in range(total) if not kept[k])
    played_before = 0
    done: list[PointResult] = []
    report = progress or (lambda label, d, t: None)
    current: int | None = None
    try:
        for k, (p, cfg) in enumerate(zip(plan.points, plan.configs, strict=True)):
            entry = manifest["points"][k]
            if kept[k]:
                m = results.read_manifest(out / p.dir)
                result = PointResult(
                    p, out / p.dir, "kept", plan.games_at(k), 0.0,
                    float(m.get("games_per_s") or 0.0),
                    0.0, k + 1, total,
                )  # fmt: skip
                done.append(result)
                if on_point is not None:
                    on_point(result)
                continue
            current = k
            entry["status"] = "running"
            _save(out, manifest, t0)
            label = f"sweep, point {k + 1}/{total} {p.name}"
            base = played_before

            def point_progress(d: int, t: int, label: str = label, base: int = base) -> None:
                report(label, base + d, games_total)

            summary = runner.run(
                cfg,
                config_path=plan.config_path,
                out=out / p.dir,
                games=plan.games_at(k),
                seed=plan.seed,
                threads=threads,
                chunk_size=chunk_size,
                force=True,
                progress=point_progress,
            )
            played_before += summary.games_done
            entry.update(
                status="complete",
                games_done=summary.games_done,
                wall_time_s=round(summary.wall_time_s, 6),
                games_per_s=round(summary.games_per_s, 1),
                compile_time_s=round(summary.compile_time_s, 6),
            )
            current = None
            _save(out, manifest, t0)
            result = PointResult(
                p, summary.out, "played", summary.games_done, summary.wall_time_s,
                summary.games_per_s, summary.compile_time_s, k + 1, total,
            )  # fmt: skip
            done.append(result)
            if on_point is not None:
                on_point(result)
    except KeyboardInterrupt as e:
        partial = None
        if current is not None:
            entry = manifest["points"][current]
            kept_games = e.games_done if isinstance(e, runner.Interrupted) else 0
            entry.update(status="interrupted" if kept_games else "pending", games_done=kept_games)
            if kept_games:
                partial = f"{plan.points[current].name} at {kept_games:,} games"
        manifest["status"] = "interrupted"
        _save(out, manifest, t0, finished=True)
        raise SweepInterrupted(out, len(done), total, partial) from None
    except BaseException:
        if current is not None:
            manifest["points"][current]["status"] = "failed"
        manifest["status"] = "failed"
        with contextlib.suppress(OSError):
            _save(out, manifest, t0, finished=True)
        raise
    manifest["status"] = "complete"
    _save(out, manifest, t0, finished=True)
    return SweepSummary(
        out=out,
        points=done,
        games=plan.games,
        seed=plan.seed,
        played_games=played_before,
        wall_time_s=time.perf_counter() - t0,
    )


def _manifest(plan: Plan, kept: Sequence[bool], *, threads: int | None) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "kind": "sweep",
        "version": balance.__version__,
        "game": plan.game,
        "config_path": plan.config_path,
        "overrides": [o.text for o in plan.sets],
        "axes": [
            {"key": a.key, "values": list(a.values), "labels": list(a.labels), "text": a.text}
            for a in plan.axes
        ],
        "games": plan.games,
        "seed": plan.seed,
        "threads": threads,
        "definition": plan.definition(),
        "status": "running",
        "process": results.process_identity(),
        "started": results.layout._now(),
        "finished": None,
        "wall_time_s": 0.0,
        "points": [
            {
                "index": p.index,
                "name": p.name,
                "dir": p.dir,
                "values": list(p.values),
                "labels": list(p.labels),
                "overrides": [o.text for o in p.overrides],
                "config_hash": config_hash(cfg),
                "players": len(cfg.seats),
                "games": plan.games_at(i),
                "status": "complete" if k else "pending",
                "kept": bool(k),
                "games_done": plan.games_at(i) if k else 0,
                "wall_time_s": None,
                "games_per_s": None,
                "compile_time_s": None,
            }
            for i, (p, cfg, k) in enumerate(zip(plan.points, plan.configs, kept, strict=True))
        ],
    }


def _save(out: Path, manifest: dict[str, Any], t0: float, *, finished: bool = False) -> None:
    manifest["wall_time_s"] = round(time.perf_counter() - t0, 6)
    if finished:
        manifest["finished"] = results.layout._now()
    results.writer._write_json(out / SWEEP_MANIFEST, manifest)


__all__ = [
    "FIXED_KEYS",
    "MAX_POINTS",
    "SWEEP_MANIFEST",
    "Axis",
    "ConfigError",
    "Plan",
    "Point",
    "PointResult",
    "SweepError",
    "SweepInterrupted",
    "SweepPoint",
    "SweepRun",
    "SweepSummary",
    "check_out",
    "default_out",
    "is_sweep",
    "open_sweep",
    "parse_axes",
    "parse_over",
    "plan_sweep",
    "points",
    "read_sweep_manifest",
    "run_sweep",
    "sweep_costs",
]
