"""The ladder directory written by ``balance ladder`` and read by its page.

One module owns the format, as balance/sweep_file.py owns the sweep's, so that the ladder that
writes it (balance/experiments/ladder.py) and the page that reads it (balance/report/) agree
without the report importing the experiments. A ladder directory is a sweep directory (its
``sweep.json`` and a results directory per point) with ``ladder.json`` beside it: the rungs
(name and policy entry, weakest first), the games and seed, the config's ``report:`` section (the
findings' tolerances and targets) and per point its directory, kind (``mirror``, ``depth``,
``luck``), rung, the rung below and the seat.

The readers return the statistics of balance/stats/ladder.py: the skill depth, luck against
skill and the findings across the rungs, from the finished points (:class:`LadderError`, one
line, while a point is missing).
"""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from balance.errors import BalanceError
from balance.stats import ladder as depth_stats

LADDER_MANIFEST = "ladder.json"


class LadderError(BalanceError):
    """A ladder that cannot be played as asked, or read back (one line)."""


def is_ladder(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a ladder directory (it holds a ladder manifest)."""
    return (Path(path) / LADDER_MANIFEST).is_file()


def read_manifest(out: str | os.PathLike[str]) -> dict[str, Any]:
    """``ladder.json`` of a ladder directory (LadderError, one line, when there is none)."""
    file = Path(out) / LADDER_MANIFEST
    try:
        data = json.loads(file.read_text())
    except FileNotFoundError:
        raise LadderError(f"{out}: not a ladder directory (no {LADDER_MANIFEST})") from None
    except (OSError, ValueError) as e:
        raise LadderError(f"{file}: unreadable ({e})") from None
    if not isinstance(data, dict) or data.get("kind") != "ladder":
        raise LadderError(f"{file}: kind: not a ladder manifest")
    return data


def point_wins(path: Path) -> np.ndarray:
    """float64[games, players]: each seat's win in each game of a finished point."""
    from balance.results import open_results

    manifest, rows = open_results(path)
    frame = rows.select("game", "seat", "win").sort("game", "seat").collect()
    players = int(manifest["players"])
    return frame["win"].to_numpy().astype(np.float64).reshape(-1, players)


def mirror_arrays(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """(win float[G, P], order int[G, P], team str[G, P], role str[G, P] or None) of a point."""
    from balance.results import open_results

    manifest, rows = open_results(path)
    names = rows.collect_schema().names()
    cols = ["game", "seat", "win", "order", "team", *(["role"] if "role" in names else [])]
    frame = rows.select(cols).sort("game", "seat").collect()
    players = int(manifest["players"])

    def grid(name: str) -> np.ndarray:
        return frame[name].to_numpy().reshape(-1, players)

    role = grid("role").astype(str) if "role" in cols else None
    return grid("win").astype(np.float64), grid("order"), grid("team").astype(str), role


def _finished(out: Path) -> tuple[dict[str, Any], dict[str, Path]]:
    """The ladder's manifest and every point's directory, all finished (else LadderError)."""
    from balance.sweep_file import open_sweep

    manifest = read_manifest(out)
    run = open_sweep(out)
    status = {p.path.name: p.status for p in run.points}
    pts = manifest["points"]
    left = [p["dir"] for p in pts if status.get(p["dir"]) != "complete"]
    if left:
        raise LadderError(
            f"{out}: the ladder is not finished ({len(left)} of {len(pts)} points to play); "
            "run the same command again to resume it"
        )
    return manifest, {p["dir"]: out / p["dir"] for p in pts}


def read_depth(out: str | os.PathLike[str]) -> depth_stats.Depth:
    """The ladder's skill depth (balance/stats/ladder.py) from its finished points."""
    out = Path(out)
    manifest, dirs = _finished(out)
    pts = manifest["points"]
    names = [r["name"] for r in manifest["rungs"]]
    mirrors = {p["rung"]: point_wins(dirs[p["dir"]]) for p in pts if p["kind"] == "mirror"}
    rotations = [
        _rotations(pts, dirs, "depth", upper, lower) for lower, upper in itertools.pairwise(names)
    ]
    return depth_stats.depth(names, [mirrors[n] for n in names[:-1]], rotations)


def _rotations(pts: list[dict[str, Any]], dirs: dict[str, Path], kind: str, upper: str,
               lower: str) -> np.ndarray:  # fmt: skip
    """float[G, P]: column ``s`` the win of seat ``s`` in the point that put ``upper`` there
    among ``lower``."""
    seats = sorted(
        (p for p in pts if p["kind"] == kind and p["rung"] == upper and p["below"] == lower),
        key=lambda p: p["seat"],
    )
    return np.stack([point_wins(dirs[p["dir"]])[:, p["seat"]] for p in seats], axis=1)


def read_luck(out: str | os.PathLike[str]) -> depth_stats.Luck:
    """Luck against skill (balance/stats/ladder.py): the top rung among the first, and how much
    of who wins the deal decides whatever the players."""
    out = Path(out)
    manifest, dirs = _finished(out)
    pts = manifest["points"]
    names = [r["name"] for r in manifest["rungs"]]
    bottom, top = names[0], names[-1]
    kind = "luck" if len(names) > 2 else "depth"
    mirror = {p["rung"]: dirs[p["dir"]] for p in pts if p["kind"] == "mirror"}
    return depth_stats.luck(
        bottom, top, point_wins(mirror[bottom]), point_wins(mirror[top]),
        _rotations(pts, dirs, kind, top, bottom),
    )  # fmt: skip


def read_findings(out: str | os.PathLike[str]) -> list[depth_stats.Finding]:
    """Every verdict axis' group measured in every mirror and classified across the rungs
    (balance/stats/ladder.py), with the config's tolerances and targets."""
    from balance.config.headline import ReportSettings

    out = Path(out)
    manifest, dirs = _finished(out)
    settings = ReportSettings.model_validate(manifest.get("report") or {})
    tol = settings.tolerance.axes()
    tolerance = {"order": tol.place, "seat": tol.seat, "team": tol.team, "role": tol.role}
    targets = dict(settings.targets.team or {})
    per_rung = []
    for name in [r["name"] for r in manifest["rungs"]]:
        point = next(p for p in manifest["points"] if p["kind"] == "mirror" and p["rung"] == name)
        win, order, team, role = mirror_arrays(dirs[point["dir"]])
        per_rung.append(depth_stats.finding_values(win, order, team, role, targets=targets))
    return depth_stats.classify(per_rung, tolerance)


def headline_key(headline: Any) -> tuple[str, str] | None:
    """The finding (axis, group) of a config's ``report.headline`` (metric, kind, group): a win
    share of a place, chair, side or role; None for another metric."""
    metric, kind, group = headline
    if metric != "win_share" or kind not in ("order", "seat", "team", "role"):
        return None
    return (kind, str(int(group) + 1)) if kind in ("order", "seat") else (kind, str(group))


def read_impacts(out: str | os.PathLike[str]) -> list[tuple[dict[str, Any], depth_stats.Finding]]:
    """Each variant's causal change of the config's headline at every rung: per game, the
    headline finding's value with every seat that rung under the variant minus without it (the
    same games), classified across the rungs like a finding (balance/stats/ladder.py), with BH
    over the variants' trends. Returns (the variant's manifest entry, its Finding) pairs."""
    from balance.config.headline import ReportSettings

    out = Path(out)
    manifest, dirs = _finished(out)
    key = headline_key(manifest.get("headline") or ("win_share", "order", "0"))
    variants = manifest.get("variants") or []
    if key is None or not variants:
        return []
    settings = ReportSettings.model_validate(manifest.get("report") or {})
    tol = settings.tolerance.axes()
    tolerance = {"order": tol.place, "seat": tol.seat, "team": tol.team, "role": tol.role}
    targets = dict(settings.targets.team or {})
    names = [r["name"] for r in manifest["rungs"]]
    pts = manifest["points"]

    def values(point: dict[str, Any]) -> dict[Any, Any]:
        win, order, team, role = mirror_arrays(dirs[point["dir"]])
        return depth_stats.finding_values(win, order, team, role, targets=targets)

    mirror = {p["rung"]: values(p) for p in pts if p["kind"] == "mirror"}
    per_rung: list[dict[Any, Any]] = [{} for _ in names]
    for v in variants:
        for k, rung in enumerate(names):
            point = next(
                p for p in pts if p["kind"] == "impact" and p["rung"] == rung
                and p.get("variant") == v["name"]
            )  # fmt: skip
            changed = values(point).get(key)
            base = mirror[rung].get(key)
            if changed is None or base is None:
                continue
            per_rung[k][(f"impact {v['name']}", key[1])] = (changed[0] - base[0], True)
    axis_tol = {f"impact {v['name']}": tolerance[key[0]] for v in variants}
    found = depth_stats.classify(per_rung, axis_tol)
    by_name = {f.axis.removeprefix("impact "): f for f in found}
    return [(v, by_name[v["name"]]) for v in variants if v["name"] in by_name]
