"""The layout of a results directory: its names, base columns, run id and manifest checksum.

Also the most games a dataset holds, a manifest's time stamps and ResultsError. Every other
module of balance/results/ builds on these; nothing here touches a file.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

import polars as pl

from balance import manifest as manifest_schema
from balance.errors import BalanceError

FORMAT = manifest_schema.FORMAT  # bump when the layout or a column's meaning changes
MANIFEST = "manifest.json"
PARTS_DIR = "games"
# The parts' trajectories, a folder of their own beside games/, so that games/*.parquet (the way
# any parquet reader reads the rows) holds the parts alone
TRACE_DIR = "trajectories"

# Columns every game has, in file order (a game with roles has a String ``role`` column after
# ``team``); then Chunk.extra (Int32), then telemetry (UInt8).
BASE_SCHEMA: dict[str, pl.DataType] = {
    "game": pl.Int64(),
    "seat": pl.Int8(),
    "policy": pl.String(),
    "team": pl.String(),
    "score": pl.Int32(),
    "rank": pl.Int8(),  # 1 = winner; seats that share a place share a rank
    "win": pl.Float64(),  # 1/k for each rank-1 seat, k = distinct teams among them, else 0
    "shared": pl.Boolean(),  # this seat won and shared the win with another team
    "turns": pl.Int32(),
    "end_reason": pl.String(),
    "order": pl.Int8(),  # place in the opening turn order, 0 = first player
}


class ResultsError(BalanceError):
    """A results directory is missing or unreadable; the message is one line naming the path."""


def part_name(index: int) -> str:
    return f"part-{index:05d}.parquet"


def trace_name(index: int) -> str:
    """The trajectories of part ``index``'s games (results.trace_columns), in TRACE_DIR."""
    return f"trace-{index:05d}.parquet"


TRACE_BASE: dict[str, pl.DataType] = {"game": pl.Int64(), "point": pl.Int16(), "seat": pl.Int8()}


RUN_ID_KEY = "balance.run_id"  # a part's footer metadata: the run it belongs to
FIRST_GAME_KEY = "balance.first_game"  # and the first game it holds


def run_id(manifest: dict[str, Any]) -> str:
    """The id of the run a manifest describes: a hash of what decides its games (format, version,
    config hash, seed, games, chunk size). Two runs with the same id write the same parts byte
    for byte (here or on Ray, interrupted or not), so a part with another id is from a run that
    played other games: it is refused, whatever its manifest entry says."""
    key = [FORMAT, *(manifest.get(k) for k in ("version", "config_hash", "seed"))]
    key += [manifest.get("games_requested"), manifest.get("chunk_size")]
    return hashlib.sha256(json.dumps(key, default=str).encode()).hexdigest()[:16]


def manifest_checksum(manifest: dict[str, Any]) -> str:
    """The SHA-256 of a manifest's content (canonical JSON, without its ``checksum`` key)."""
    body = {k: v for k, v in manifest.items() if k != "checksum"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def seal(manifest: dict[str, Any]) -> dict[str, Any]:
    """``manifest`` with its ``checksum`` set to :func:`manifest_checksum` (what the writer saves;
    a reader refuses a manifest whose content no longer matches it)."""
    manifest["checksum"] = manifest_checksum(json.loads(json.dumps(manifest, default=str)))
    return manifest


# Polars numbers rows with its index type: UInt32 in the default build (a frame holds at most
# 2**32 - 1 rows), UInt64 with polars' big-index build; the ``game`` column is Int64.
ROW_LIMIT_TEXT = (
    "polars indexes at most 2**32 - 1 rows"
    if pl.get_index_type() == pl.UInt32()
    else "the game column is an int64"
)


def max_games(players: int) -> int:
    """The most games a results dataset of ``players`` seats can hold and be read back: rows
    (games x players) within polars' row index, and game numbers within the Int64 game column
    (which the kernels' RNG also takes as its 64-bit game index)."""
    rows = 2**32 - 1 if pl.get_index_type() == pl.UInt32() else 2**63 - 1
    return min(rows // max(players, 1), 2**63 - 1)


def empty_schema(manifest: dict[str, Any]) -> dict[str, pl.DataType]:
    """The dataset's schema as far as the manifest knows it (extra columns once a part exists)."""
    base = dict(BASE_SCHEMA)
    if manifest.get("role_names"):
        at = list(base).index("team") + 1
        items = list(base.items())
        base = dict([*items[:at], ("role", pl.String()), *items[at:]])
    return {
        **base,
        **dict.fromkeys(manifest.get("extra_columns") or [], pl.Int32()),
        **dict.fromkeys(manifest.get("telemetry_columns") or [], pl.UInt8()),
    }


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
