"""The schema of a results directory's ``manifest.json``, checked before anything trusts it.

A manifest is written by :class:`balance.results.ResultsWriter`, but it is a text file that people
edit, copy and merge: a wrong type, an unknown format, a part listed twice or missing, a count
no run could have, must be one line naming the file and the key, never a traceback deep in a
report nor a dataset read with 2,500 games of a 2,000-game run. :func:`check` validates the
parsed JSON with pydantic (as configs are) and checks what ties the keys together: the parts are
``part-00000.parquet, part-00001...`` holding consecutive games from game 0, as many as
``games_done``, within ``games_requested``; ``seats`` and ``teams`` have one entry per player.

Keys the schema does not know are kept (a newer balance of the same format may add some).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, ValidationError

from balance.errors import BalanceError, validation_line

FORMAT = 2  # 2: parts carry a SHA-256 in the manifest and the run's id in their footer
MAX_PLAYERS = 127  # the seat column is an int8
MAX_INT64 = 2**63 - 1
_HEX64 = re.compile(r"[0-9a-f]{64}")


class ManifestError(BalanceError):
    """A manifest that cannot be trusted; one line naming the file and the key."""


Count = Annotated[StrictInt, Field(ge=0, le=MAX_INT64)]
Positive = Annotated[StrictInt, Field(ge=1, le=MAX_INT64)]
Seconds = Annotated[StrictFloat | StrictInt, Field(ge=0)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)


class TracePart(_Model):
    """The trajectories of a part's games (``trajectories/trace-NNNNN.parquet``)."""

    file: str
    rows: Count
    sha256: Annotated[str, Field(pattern=_HEX64.pattern)]


class Part(_Model):
    file: str
    first_game: Count
    games: Positive
    sha256: Annotated[str, Field(pattern=_HEX64.pattern)]
    trace: TracePart | None = None


class Manifest(_Model):
    format: Literal[2]
    checksum: Annotated[str, Field(pattern=_HEX64.pattern)]
    version: str
    game: str
    run_id: Annotated[str, Field(min_length=1)]
    status: Literal["running", "complete", "interrupted", "failed"]
    config_path: str | None = None
    config: dict[str, Any]
    config_hash: str
    seed: Count
    games_requested: Positive
    chunk_size: Positive
    players: Annotated[StrictInt, Field(ge=1, le=MAX_PLAYERS)]
    seats: list[str]
    teams: list[str]
    team_names: list[str] = []
    role_names: list[str] = []
    end_reasons: list[str]
    telemetry_columns: list[str]
    extra_columns: list[str] | None = None
    trace_measures: list[str] = []  # the measures of the parts' trajectories (none: no trace)
    games_done: Count
    parts: list[Part]
    threads: Annotated[StrictInt, Field(ge=1)] | None = None
    wall_time_s: Seconds = 0.0
    games_per_s: Seconds = 0.0
    compile_time_s: Seconds = 0.0
    started: str | None = None
    finished: str | None = None
    process: dict[str, Any] | None = None
    telemetry_saturated: dict[str, Count] = {}


def check(data: Any, file: Path | str) -> None:
    """Raise ManifestError (one line: ``FILE: key: problem``) unless ``data`` (the parsed JSON
    of manifest ``file``) is a manifest this balance can trust."""
    if not isinstance(data, dict):
        raise ManifestError(f"{file}: not a balance manifest (a JSON object is expected)")
    fmt = data.get("format")
    if isinstance(fmt, int) and not isinstance(fmt, bool) and fmt > FORMAT:
        raise ManifestError(f"{file}: written by a newer balance (format {fmt}); upgrade balance")
    if isinstance(fmt, int) and not isinstance(fmt, bool) and fmt < FORMAT:
        raise ManifestError(
            f"{file}: format {fmt}, written by a balance before parts carried checksums; "
            "re-run the simulation with --force to check what it holds"
        )
    try:
        m = Manifest.model_validate(data)
    except ValidationError as e:
        raise ManifestError(f"{file}: {validation_line(e)}") from None
    _check_together(m, file)


def _check_together(m: Manifest, file: Path | str) -> None:
    def bad(key: str, problem: str) -> ManifestError:
        return ManifestError(f"{file}: {key}: {problem}")

    for key in ("seats", "teams"):
        if len(getattr(m, key)) != m.players:
            raise bad(key, f"{len(getattr(m, key))} entries for {m.players} players")
    at = 0
    for i, part in enumerate(m.parts):
        name = f"part-{i:05d}.parquet"
        if part.file != name:
            seen = [p.file for p in m.parts[:i]]
            problem = (
                "listed twice" if part.file in seen else f"is {part.file!r}, expected {name!r}"
            )
            raise bad(f"parts[{i}].file", problem)
        if part.trace is not None and part.trace.file != f"trace-{i:05d}.parquet":
            raise bad(
                f"parts[{i}].trace.file",
                f"is {part.trace.file!r}, expected 'trace-{i:05d}.parquet'",
            )
        if (part.trace is None) == bool(m.trace_measures):
            has = "has no trace" if part.trace is None else "has a trace"
            raise bad(f"parts[{i}].trace", f"{has}, but trace_measures is {m.trace_measures}")
        if part.first_game != at:
            raise bad(
                f"parts[{i}].first_game", f"{part.first_game}, expected {at} (no gap, no overlap)"
            )
        at += part.games
    if at != m.games_done:
        raise bad("games_done", f"{m.games_done:,}, but its parts hold {at:,} games")
    if m.games_done > m.games_requested:
        raise bad(
            "games_done", f"{m.games_done:,} is more than games_requested {m.games_requested:,}"
        )
    if m.status == "complete" and m.games_done != m.games_requested:
        raise bad("status", f"complete with {m.games_done:,} of {m.games_requested:,} games")
