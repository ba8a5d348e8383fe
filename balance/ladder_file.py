"""The ladder directory written by ``balance ladder`` and read by its page.

One module owns the format, as balance/sweep_file.py owns the sweep's, so that the ladder that
writes it (balance/experiments/ladder.py) and the page that reads it (balance/report/) agree
without the report importing the experiments. A ladder directory is a sweep directory (its
``sweep.json`` and a results directory per point) with ``ladder.json`` beside it: the rungs
(name and policy entry, weakest first), the games and seed, the config's ``report:`` section (the
findings' tolerances and targets) and per point its directory, kind (``mirror``, ``depth``,
``luck``, ``impact``, ``matrix``), rung, the rung below, the seat, the variant and the evil
side's rung.

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
    return grids(rows.select(cols).sort("game", "seat").collect(), int(manifest["players"]))


def grids(frame: Any, players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """:func:`mirror_arrays` of a frame of rows (game-major, then seat), e.g. a pilot's."""

    def grid(name: str) -> np.ndarray:
        return frame[name].to_numpy().reshape(-1, players)

    role = grid("role").astype(str) if "role" in frame.columns else None
    return grid("win").astype(np.float64), grid("order"), grid("team").astype(str), role


def report_settings(report: dict[str, Any] | None) -> tuple[dict[str, float], dict[str, float]]:
    """(tolerance per finding axis, target share per side) of a config's ``report:`` section."""
    from balance.config.headline import ReportSettings

    settings = ReportSettings.model_validate(report or {})
    tol = settings.tolerance.axes()
    tolerance = {"order": tol.place, "seat": tol.seat, "team": tol.team, "role": tol.role}
    return tolerance, dict(settings.targets.team or {})


class Ladder:
    """A finished ladder directory, read once: its manifest, its points, and each point's
    arrays loaded on first use and kept (the readers below share one, so that a page reads
    every parquet file once). LadderError (one line) while a point is missing."""

    def __init__(self, out: str | os.PathLike[str]) -> None:
        from balance.sweep_file import open_sweep

        self.out = Path(out)
        self.manifest = read_manifest(self.out)
        status = {p.path.name: p.status for p in open_sweep(self.out).points}
        self.points: list[dict[str, Any]] = self.manifest["points"]
        left = [p["dir"] for p in self.points if status.get(p["dir"]) != "complete"]
        if left:
            raise LadderError(
                f"{self.out}: the ladder is not finished ({len(left)} of {len(self.points)} "
                "points to play); run the same command again to resume it"
            )
        self.rungs = [str(r["name"]) for r in self.manifest["rungs"]]
        self.tolerance, self.targets = report_settings(self.manifest.get("report"))
        self._arrays: dict[str, Any] = {}

    def arrays(self, point: dict[str, Any]) -> tuple[Any, ...]:
        """(win, order, team, role) of a point (:func:`mirror_arrays`), read once."""
        d = point["dir"]
        if d not in self._arrays:
            self._arrays[d] = mirror_arrays(self.out / d)
        return self._arrays[d]

    def wins(self, point: dict[str, Any]) -> np.ndarray:
        return self.arrays(point)[0]

    def findings(self, point: dict[str, Any]) -> dict[Any, Any]:
        """balance/stats/ladder.py's ``finding_values`` of a point, with the config's targets."""
        return depth_stats.finding_values(*self.arrays(point), targets=self.targets)

    def mirror(self, rung: str) -> dict[str, Any]:
        return next(p for p in self.points if p["kind"] == "mirror" and p["rung"] == rung)

    def rotations(self, kind: str, upper: str, lower: str) -> np.ndarray:
        """float[G, P]: column ``s`` the win of seat ``s`` in the point that put ``upper``
        there among ``lower``."""
        seats = sorted(
            (p for p in self.points
             if p["kind"] == kind and p["rung"] == upper and p["below"] == lower),
            key=lambda p: p["seat"],
        )  # fmt: skip
        return np.stack([self.wins(p)[:, p["seat"]] for p in seats], axis=1)


def load(out: str | os.PathLike[str] | Ladder) -> Ladder:
    """``out`` read as a :class:`Ladder` (one already read is returned as it is)."""
    return out if isinstance(out, Ladder) else Ladder(out)


Source = str | os.PathLike[str] | Ladder  # a ladder directory, or one already read


def read_depth(out: Source) -> depth_stats.Depth:
    """The ladder's skill depth (balance/stats/ladder.py) from its finished points."""
    ld = load(out)
    names = ld.rungs
    rotations = [ld.rotations("depth", upper, lower) for lower, upper in itertools.pairwise(names)]
    # a sized ladder's step may play fewer games than the mirrors: their first ones (the same)
    below = [ld.wins(ld.mirror(n))[: len(r)] for n, r in zip(names, rotations, strict=False)]
    return depth_stats.depth(names, below, rotations)


def read_luck(out: Source) -> depth_stats.Luck:
    """Luck against skill (balance/stats/ladder.py): the top rung among the first, and how much
    of who wins the deal decides whatever the players."""
    ld = load(out)
    bottom, top = ld.rungs[0], ld.rungs[-1]
    rotations = ld.rotations("luck" if len(ld.rungs) > 2 else "depth", top, bottom)
    n = len(rotations)  # the mirrors' first games, when the ladder was sized
    return depth_stats.luck(
        bottom, top, ld.wins(ld.mirror(bottom))[:n], ld.wins(ld.mirror(top))[:n], rotations
    )


def read_findings(out: Source) -> list[depth_stats.Finding]:
    """Every verdict axis' group measured in every mirror and classified across the rungs
    (balance/stats/ladder.py), with the config's tolerances and targets."""
    ld = load(out)
    return depth_stats.classify([ld.findings(ld.mirror(r)) for r in ld.rungs], ld.tolerance)


def read_matrix(out: Source) -> depth_stats.Matrix | None:
    """The share of the headline's side with the Family played by each rung and the evil side
    by each rung (balance/stats/ladder.py), the mirrors on the diagonal; None for a ladder
    without the matrix (a game without sides, or ``--no-matrix``)."""
    ld = load(out)
    key = headline_key(ld.manifest.get("headline") or ("win_share", "order", "0"))
    if key is None or key[0] != "team" or not any(p["kind"] == "matrix" for p in ld.points):
        return None

    def share(point: dict[str, Any]) -> np.ndarray:
        win, _, team, _ = ld.arrays(point)
        mine = team == key[1]
        return np.where(mine.any(axis=1), np.where(mine, win, 0.0).max(axis=1), np.nan)

    values = {}
    for p in ld.points:
        if p["kind"] == "mirror":
            values[(p["rung"], p["rung"])] = share(p)
        elif p["kind"] == "matrix":
            values[(p["rung"], p["evil"])] = share(p)
    return depth_stats.matrix(key[1], ld.rungs, values)


def headline_key(headline: Any) -> tuple[str, str] | None:
    """The finding (axis, group) of a config's ``report.headline`` (metric, kind, group): a win
    share of a place, chair, side or role; None for another metric."""
    metric, kind, group = headline
    if metric != "win_share" or kind not in ("order", "seat", "team", "role"):
        return None
    return (kind, str(int(group) + 1)) if kind in ("order", "seat") else (kind, str(group))


def read_impacts(out: Source) -> list[tuple[dict[str, Any], depth_stats.Finding]]:
    """Each variant's causal change of the config's headline at every rung: per game, the
    headline finding's value with every seat that rung under the variant minus without it (the
    same games), classified across the rungs like a finding (balance/stats/ladder.py), with BH
    over the variants' trends. Returns (the variant's manifest entry, its Finding) pairs."""
    ld = load(out)
    key = headline_key(ld.manifest.get("headline") or ("win_share", "order", "0"))
    variants = ld.manifest.get("variants") or []
    if key is None or not variants:
        return []
    mirror = {r: ld.findings(ld.mirror(r)) for r in ld.rungs}
    per_rung: list[dict[Any, Any]] = [{} for _ in ld.rungs]
    for v in variants:
        for k, rung in enumerate(ld.rungs):
            point = next(
                p for p in ld.points if p["kind"] == "impact" and p["rung"] == rung
                and p.get("variant") == v["name"]
            )  # fmt: skip
            changed = ld.findings(point).get(key)
            base = mirror[rung].get(key)
            if changed is None or base is None:
                continue
            n = len(changed[0])  # the mirror's first games, when the ladder was sized
            per_rung[k][(f"impact {v['name']}", key[1])] = (changed[0] - base[0][:n], True)
    axis_tol = {f"impact {v['name']}": ld.tolerance[key[0]] for v in variants}
    found = depth_stats.classify(per_rung, axis_tol)
    by_name = {f.axis.removeprefix("impact "): f for f in found}
    return [(v, by_name[v["name"]]) for v in variants if v["name"] in by_name]
