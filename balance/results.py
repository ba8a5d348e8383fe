"""The results dataset: parquet parts of one row per (game, seat), and a manifest.

Layout of ``results/<run>/``::

    manifest.json             provenance and progress (see ResultsWriter); rewritten after every part
    games/part-00000.parquet  games [0, n0), game-major then seat
    games/part-00001.parquet  games [n0, n0 + n1), ...

Every part is written under a temporary name and renamed, and the manifest is replaced atomically
after each part, so a killed run leaves a readable dataset: the parts the manifest lists are
complete, and ``games_done`` says how many games they hold (always games ``[0, games_done)``).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from balance import parquet
from balance.errors import BalanceError
from balance.games.base import Chunk

FORMAT = 1  # bump when the layout or a column's meaning changes
MANIFEST = "manifest.json"
PARTS_DIR = "games"

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


def team_codes(
    chunk: Chunk, teams: Sequence[str], team_names: Sequence[str]
) -> tuple[np.ndarray, list[str]]:
    """Each seat's team in each game as int32[n, P] codes, and the names of the codes.

    From the chunk when the game returns teams (``team_names`` non-empty), else from the config's
    ``teams`` (one name per seat, the same in every game; a broadcast view, no copy)."""
    n, p = chunk.score.shape
    if team_names:
        if chunk.team is None:
            raise ValueError("the game names teams but its Chunk.team is None")
        return chunk.team, list(team_names)
    names = list(dict.fromkeys(teams))
    code = np.array([names.index(t) for t in teams], dtype=np.int32)
    return np.broadcast_to(code, (n, p)), names


def win_values(rank: np.ndarray, team: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``win`` and ``shared`` of each seat: rank-1 seats get 1/k, where k is the number of
    distinct teams among the rank-1 seats of the game, the others 0; ``shared`` when k > 1.

    A Family victory is a full win for every Family seat; a two-way tie between one-seat teams
    is half a win each (DESIGN.md, The game protocol)."""
    won = rank == 1
    p = rank.shape[1]
    first = won.copy()  # a winning seat whose team no earlier winning seat has
    for s in range(1, p):
        for q in range(s):
            first[:, s] &= ~(won[:, q] & (team[:, q] == team[:, s]))
    k = first.sum(axis=1, keepdims=True)
    win = np.where(won, 1.0 / np.maximum(k, 1), 0.0)
    return win, won & (k > 1)


def chunk_columns(
    chunk: Chunk,
    *,
    seats: Sequence[str],
    teams: Sequence[str],
    end_reasons: Sequence[str],
    telemetry_columns: Sequence[str],
    team_names: Sequence[str] = (),
    role_names: Sequence[str] = (),
) -> dict[str, np.ndarray | parquet.Codes | parquet.Block]:
    """The columns of one chunk's rows (game-major, then seat) in file order, as arrays: strings
    as :class:`~balance.parquet.Codes`, and the telemetry as one row-major
    :class:`~balance.parquet.Block` under the key ``"telemetry"`` (its columns are named by
    ``telemetry_columns``). :func:`chunk_frame` is the same rows as a polars DataFrame.

    ``seats`` and ``teams`` are the config's policy and team of each seat; ``team_names`` and
    ``role_names`` the plugin's names of ``Chunk.team`` and ``Chunk.role`` codes (empty when the
    game returns none: the team is the config's, and there is no ``role`` column)."""
    n, p = chunk.n_games, len(seats)
    _check_chunk(chunk, p, len(end_reasons), len(telemetry_columns), team_names, role_names)
    seat = np.tile(np.arange(p, dtype=np.int8), n)
    rank = chunk.rank.astype(np.int8)
    team, names = team_codes(chunk, teams, team_names)
    win, shared = win_values(rank, team)
    policies = list(dict.fromkeys(seats))
    policy_code = np.array([policies.index(s) for s in seats], dtype=np.int8)
    columns: dict[str, np.ndarray | parquet.Codes | parquet.Block] = {
        "game": np.repeat(np.arange(chunk.first_game, chunk.first_game + n, dtype=np.int64), p),
        "seat": seat,
        "policy": parquet.Codes(np.tile(policy_code, n), policies),
        "team": parquet.Codes(team.ravel(), names),
    }
    if role_names:
        columns["role"] = parquet.Codes(chunk.role.ravel(), list(role_names))
    columns |= {
        "score": chunk.score.astype(np.int32, copy=False).ravel(),
        "rank": rank.ravel(),
        "win": win.ravel(),
        "shared": shared.ravel(),
        "turns": np.repeat(chunk.turns.astype(np.int32, copy=False), p),
        "end_reason": parquet.Codes(np.repeat(chunk.end_reason, p), list(end_reasons)),
        "order": chunk.order.astype(np.int8).ravel(),
    }
    for name, values in chunk.extra.items():
        columns[name] = values.astype(np.int32, copy=False).ravel()
    telemetry = chunk.telemetry.astype(np.uint8, copy=False).reshape(n * p, len(telemetry_columns))
    columns["telemetry"] = parquet.Block(telemetry, list(telemetry_columns))
    return columns


def chunk_frame(
    chunk: Chunk,
    *,
    seats: Sequence[str],
    teams: Sequence[str],
    end_reasons: Sequence[str],
    telemetry_columns: Sequence[str],
    team_names: Sequence[str] = (),
    role_names: Sequence[str] = (),
) -> pl.DataFrame:
    """The rows of one chunk, game-major then seat, built from its arrays without a row loop
    (the columns of :func:`chunk_columns`, the same arguments)."""
    columns = chunk_columns(
        chunk,
        seats=seats,
        teams=teams,
        end_reasons=end_reasons,
        telemetry_columns=telemetry_columns,
        team_names=team_names,
        role_names=role_names,
    )
    return columns_frame(columns)


def columns_frame(columns: dict[str, np.ndarray | parquet.Codes | parquet.Block]) -> pl.DataFrame:
    """The polars DataFrame of :func:`chunk_columns`' columns."""
    series = []
    for name, column in columns.items():
        if isinstance(column, parquet.Block):
            series += [pl.Series(c, column.values[:, j]) for j, c in enumerate(column.names)]
        elif isinstance(column, parquet.Codes):
            codes = pl.Series(name, column.codes.astype(np.int32, copy=False))
            series.append(
                codes.replace_strict(
                    range(len(column.names)), list(column.names), return_dtype=pl.String
                )
            )
        else:
            series.append(pl.Series(name, column))
    return pl.DataFrame(series)


def frame_columns(frame: pl.DataFrame) -> dict[str, np.ndarray | parquet.Codes]:
    """A DataFrame's columns as :func:`balance.parquet.write_table` takes them."""
    columns: dict[str, np.ndarray | parquet.Codes] = {}
    for s in frame.iter_columns():
        if s.dtype == pl.String:
            names = s.unique(maintain_order=True)
            codes = s.replace_strict(names, range(len(names)), return_dtype=pl.Int32)
            columns[s.name] = parquet.Codes(codes.to_numpy(), names.to_list())
        else:
            columns[s.name] = s.to_numpy()
    return columns


def _check_chunk(
    chunk: Chunk,
    p: int,
    n_reasons: int,
    n_telemetry: int,
    team_names: Sequence[str] = (),
    role_names: Sequence[str] = (),
) -> None:
    """Shape checks, so a plugin bug fails here with a message instead of as a garbled dataset."""
    n = chunk.n_games
    for what, codes, names in (("team", chunk.team, team_names), ("role", chunk.role, role_names)):
        if names and codes is None:
            raise ValueError(f"the game names {what}s but Chunk.{what} is None")
        if codes is not None and not names:
            raise ValueError(f"Chunk.{what} is given but the game names no {what}s")
        if codes is not None:
            if codes.shape != (n, p):
                raise ValueError(f"Chunk.{what} has shape {codes.shape}, expected {(n, p)}")
            if n and (codes.min() < 0 or codes.max() >= len(names)):
                raise ValueError(f"Chunk.{what} has codes outside 0..{len(names) - 1}")
    shapes = {
        "score": (chunk.score, (n, p)),
        "rank": (chunk.rank, (n, p)),
        "turns": (chunk.turns, (n,)),
        "end_reason": (chunk.end_reason, (n,)),
        "order": (chunk.order, (n, p)),
        "telemetry": (chunk.telemetry, (n, p, n_telemetry)),
        **{f"extra[{name!r}]": (a, (n, p)) for name, a in chunk.extra.items()},
    }
    for name, (array, shape) in shapes.items():
        if array.shape != shape:
            raise ValueError(f"Chunk.{name} has shape {array.shape}, expected {shape}")
    clash = set(chunk.extra) & {*BASE_SCHEMA, "role"}
    if clash:
        raise ValueError(f"Chunk.extra columns {sorted(clash)} clash with the base columns")
    if n and (chunk.end_reason.min() < 0 or chunk.end_reason.max() >= n_reasons):
        raise ValueError(f"Chunk.end_reason has codes outside 0..{n_reasons - 1}")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str) + "\n")
    os.replace(tmp, path)


class ResultsWriter:
    """Writes parts into ``out/games/`` and keeps ``out/manifest.json`` current.

    ``manifest`` holds the run's provenance (the runner fills: version, game, config_path, config,
    config_hash, seed, games_requested, chunk_size, players, seats, teams, threads, end_reasons,
    telemetry_columns, versions, compile_time_s); the writer adds and maintains: format, status,
    started, finished, games_done, parts, extra_columns, wall_time_s, games_per_s.
    Not thread-safe: use it from one thread at a time.
    """

    def __init__(self, out: Path, manifest: dict[str, Any]) -> None:
        self.out = Path(out)
        self._t0 = time.perf_counter()
        self._version = manifest.get("version", "")
        self.manifest: dict[str, Any] = {
            "format": FORMAT,
            **manifest,
            "status": "running",
            "started": _now(),
            "finished": None,
            "wall_time_s": 0.0,
            "games_per_s": 0.0,
            "games_done": 0,
            "extra_columns": None,
            "parts": [],
        }
        (self.out / PARTS_DIR).mkdir(parents=True, exist_ok=True)
        self._save()

    @property
    def games_done(self) -> int:
        return int(self.manifest["games_done"])

    def write_part(
        self,
        rows: pl.DataFrame | dict[str, np.ndarray | parquet.Codes | parquet.Block],
        *,
        first_game: int,
        n_games: int,
    ) -> Path:
        """Append games [first_game, first_game + n_games); they must follow the games written.

        ``rows`` is a chunk's :func:`chunk_columns` (what the runner passes: no DataFrame is built)
        or the same rows as a DataFrame (:func:`chunk_frame`)."""
        if first_game != self.games_done:
            raise ValueError(f"part starts at game {first_game}, expected {self.games_done}")
        columns = frame_columns(rows) if isinstance(rows, pl.DataFrame) else rows
        name = part_name(len(self.manifest["parts"]))
        path = self.out / PARTS_DIR / name
        tmp = path.with_name("." + name + ".tmp")
        try:
            parquet.write_table(tmp, columns, created_by=f"balance {self._version}")
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        os.replace(tmp, path)  # a part is complete or absent
        extra = [
            c
            for c, v in columns.items()
            if c not in BASE_SCHEMA and isinstance(v, np.ndarray) and v.dtype == np.int32
        ]
        self.manifest["extra_columns"] = extra
        self.manifest["parts"].append({"file": name, "first_game": first_game, "games": n_games})
        self.manifest["games_done"] = first_game + n_games
        self._save()
        return path

    def finish(self, status: str) -> dict[str, Any]:
        """Record how the run ended: ``complete``, ``interrupted`` or ``failed``."""
        self.manifest["status"] = status
        self.manifest["finished"] = _now()
        self._save()
        return self.manifest

    def _save(self) -> None:
        wall = time.perf_counter() - self._t0
        self.manifest["wall_time_s"] = round(wall, 6)
        self.manifest["games_per_s"] = round(self.games_done / wall, 1) if wall > 0 else 0.0
        _write_json(self.out / MANIFEST, self.manifest)


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest of results directory ``path``; ResultsError if it is not one."""
    path = Path(path)
    if not path.is_dir():
        raise ResultsError(f"{path}: no such results directory")
    file = path / MANIFEST
    try:
        manifest = json.loads(file.read_text())
    except FileNotFoundError:
        raise ResultsError(f"{path}: not a results directory (no {MANIFEST})") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ResultsError(f"{file}: cannot read: {e}") from None
    except json.JSONDecodeError as e:
        raise ResultsError(f"{file}: invalid JSON: {e.msg} at line {e.lineno}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("parts"), list):
        raise ResultsError(f"{file}: not a balance manifest (no list of parts)")
    if manifest.get("format", FORMAT) > FORMAT:
        raise ResultsError(
            f"{file}: written by a newer balance (format {manifest['format']}); upgrade balance"
        )
    return manifest


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


def open_results(path: str | os.PathLike[str]) -> tuple[dict[str, Any], pl.LazyFrame]:
    """(manifest, rows) of results directory ``path``; only the parts the manifest lists are read.

    The dataset may be incomplete: check ``manifest["status"]`` (``complete``, ``running`` for a
    run in progress or killed, ``interrupted``, ``failed``) and ``manifest["games_done"]``.
    """
    path = Path(path)
    manifest = read_manifest(path)
    files = []
    for part in manifest["parts"]:
        file = path / PARTS_DIR / part["file"]
        if not file.is_file():
            raise ResultsError(f"{file}: listed in {MANIFEST} but missing")
        files.append(file)
    if not files:
        return manifest, pl.LazyFrame(schema=empty_schema(manifest))
    return manifest, pl.scan_parquet(files)
