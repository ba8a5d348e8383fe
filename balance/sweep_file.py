"""The sweep directory written by ``balance sweep`` and read by its report.

One module owns the format, as balance/impact_file.py owns the impact file, so that the sweep
that writes it (balance/experiments/sweep.py) and the report that reads it
(balance/report/numbers.py) agree without the report importing the experiments. Layout of
``results/<sweep>/``::

    sweep.json                      the sweep manifest (below); rewritten after every point
    00-players=2/manifest.json      each point is a normal results directory (balance/results/),
    00-players=2/games/part-*.parquet  written by runner.run, so `balance report` reads one point
    01-players=3/...

The sweep manifest (``kind: sweep``, ``format``) records the config path, the ``--set``
overrides, the knobs (``axes``: key, values, their labels as written, the ``--over`` text) and
their values, the games and seed, and per point its index, name, directory, values, labels,
overrides, config hash, games (a sized ladder's points differ), status, games done and
timings; and the writing process, as a results manifest does (a sweep whose process died
reads as ``killed``).

``read_sweep_manifest`` checks a manifest (one line naming the file and key when it is not a
sweep's, or a newer format's); ``open_sweep`` reads it back as a :class:`SweepRun`, each point's
status from its own results manifest.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from balance import results
from balance.errors import BalanceError, validation_line

SWEEP_MANIFEST = "sweep.json"
FORMAT = 1  # bump when the layout or a field's meaning changes


class SweepError(BalanceError):
    """A sweep cannot start or be read; the message is one line naming the option or path."""


class Axis(NamedTuple):
    """One ``--over``: a key and the values it takes, in order."""

    text: str  # as given, e.g. "players=2,3,4"
    key: str  # "players"
    path: tuple[str | int, ...]
    values: tuple[Any, ...]  # typed YAML values
    labels: tuple[str, ...]  # each value as written (a range's values as numbers)

    @property
    def numeric(self) -> bool:
        """Every value is a number (not a bool): the knob can be drawn on a numeric axis."""
        return all(isinstance(v, int | float) and not isinstance(v, bool) for v in self.values)


def is_sweep(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a sweep directory (it holds a sweep manifest)."""
    return (Path(path) / SWEEP_MANIFEST).is_file()


def read_sweep_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The sweep manifest of ``path``; SweepError (one line) if it is not one. A sweep recorded
    as ``running`` whose process is gone reads as ``killed`` (as a results manifest does)."""
    path = Path(path)
    file = path / SWEEP_MANIFEST
    if not path.is_dir():
        raise SweepError(f"{path}: no such sweep directory")
    try:
        manifest = json.loads(file.read_text())
    except FileNotFoundError:
        raise SweepError(f"{path}: not a sweep directory (no {SWEEP_MANIFEST})") from None
    except (OSError, UnicodeDecodeError) as e:
        raise SweepError(f"{file}: cannot read: {e}") from None
    except json.JSONDecodeError as e:
        raise SweepError(f"{file}: invalid JSON: {e.msg} at line {e.lineno}") from None
    except RecursionError:
        raise SweepError(f"{file}: not a balance sweep manifest (nested too deeply)") from None
    if not isinstance(manifest, dict) or manifest.get("kind") != "sweep":
        raise SweepError(f"{file}: not a balance sweep manifest")
    if not isinstance(manifest.get("points"), list) or not isinstance(manifest.get("axes"), list):
        raise SweepError(f"{file}: not a balance sweep manifest (no points or axes)")
    fmt = manifest.get("format", FORMAT)
    if not isinstance(fmt, int) or isinstance(fmt, bool) or fmt < 1:
        raise SweepError(f"{file}: format: {fmt!r} is not a format of balance sweeps ({FORMAT})")
    if fmt <= FORMAT:
        _check_sweep_manifest(manifest, file)
    if fmt > FORMAT:
        raise SweepError(
            f"{file}: written by a newer balance (format {manifest['format']}); upgrade balance"
        )
    results.lock._effective_status(manifest)
    return manifest


class _SweepAxisEntry(BaseModel):
    model_config = ConfigDict(extra="allow")
    key: StrictStr
    values: list[Any]
    labels: list[Any] | None = None
    text: StrictStr | None = None


class _SweepPointEntry(BaseModel):
    model_config = ConfigDict(extra="allow")
    index: Annotated[StrictInt, Field(ge=0)]
    name: StrictStr
    dir: Annotated[StrictStr, Field(pattern=r"^[^/\\]+$")]  # a folder in the sweep's
    labels: list[Any]
    values: list[Any]
    games: Annotated[StrictInt, Field(ge=1)] | None = None  # when points differ (a sized ladder)


class _SweepManifest(BaseModel):
    model_config = ConfigDict(extra="allow")
    kind: Literal["sweep"]
    games: Annotated[StrictInt, Field(ge=1)]
    seed: Annotated[StrictInt, Field(ge=0, le=2**63 - 1)]
    status: Literal["running", "complete", "interrupted", "failed"]
    process: dict[str, Any] | None = None
    axes: Annotated[list[_SweepAxisEntry], Field(min_length=1)]
    points: Annotated[list[_SweepPointEntry], Field(min_length=1)]


def _check_sweep_manifest(manifest: dict[str, Any], file: Path) -> None:
    """SweepError (one line naming the file and the key) unless ``manifest`` is a sweep's."""
    try:
        _SweepManifest.model_validate(manifest)
    except ValidationError as e:
        raise SweepError(f"{file}: {validation_line(e)}") from None
    dirs = [p["dir"] for p in manifest["points"]]
    for k, d in enumerate(dirs):
        if d in (".", ".."):
            raise SweepError(f"{file}: points[{k}].dir: {d!r} is not a folder of the sweep")
    if len(set(dirs)) != len(dirs):
        raise SweepError(f"{file}: points: a point's dir is listed twice")


class SweepPoint(NamedTuple):
    """A point of a sweep on disk: its manifest entry, its results directory and how it
    stands (its own results manifest decides: ``complete`` only when all its games are in)."""

    index: int
    name: str
    labels: tuple[str, ...]
    values: tuple[Any, ...]
    path: Path
    status: str  # complete, interrupted, killed, running, failed, pending (not played)
    games_done: int


class SweepRun(NamedTuple):
    """A sweep directory as read back: its manifest, its knobs and its points."""

    path: Path
    manifest: dict[str, Any]
    axes: tuple[Axis, ...]
    points: tuple[SweepPoint, ...]

    @property
    def complete(self) -> list[SweepPoint]:
        return [p for p in self.points if p.status == "complete"]


def open_sweep(path: str | os.PathLike[str]) -> SweepRun:
    """The sweep at ``path`` with each point's status read from its own results manifest."""
    path = Path(path)
    manifest = read_sweep_manifest(path)
    file = path / SWEEP_MANIFEST
    try:
        axes = tuple(
            Axis(
                text=str(a.get("text", a["key"])),
                key=str(a["key"]),
                path=(),
                values=tuple(a["values"]),
                labels=tuple(str(x) for x in a.get("labels") or a["values"]),
            )
            for a in manifest["axes"]
        )
        games = int(manifest["games"])
        pts = []
        for e in manifest["points"]:
            point_dir = path / str(e["dir"])
            status, done = "pending", 0
            if (point_dir / results.MANIFEST).is_file():
                m = results.read_manifest(point_dir)
                done = int(m.get("games_done") or 0)
                status = str(m.get("status"))
                if status == "complete" and done != int(e.get("games") or games):
                    status = "interrupted"
            pts.append(
                SweepPoint(
                    index=int(e["index"]),
                    name=str(e["name"]),
                    labels=tuple(str(x) for x in e["labels"]),
                    values=tuple(e["values"]),
                    path=point_dir,
                    status=status,
                    games_done=done,
                )
            )
    except (KeyError, TypeError, ValueError) as e:
        raise SweepError(f"{file}: not a balance sweep manifest ({e})") from None
    return SweepRun(path, manifest, axes, tuple(pts))
