"""Writing a results directory: parquet parts and a manifest, each written atomically.

:class:`ResultsWriter` adds the parts and keeps the manifest current, each file written under a
temporary name, flushed to disk and renamed into place, so a run killed at any moment (even by a
power cut) leaves the parts its manifest lists complete.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from balance import parquet
from balance.outputs import fsync_dir
from balance.results.layout import (
    BASE_SCHEMA,
    FIRST_GAME_KEY,
    FORMAT,
    MANIFEST,
    PARTS_DIR,
    RUN_ID_KEY,
    TRACE_DIR,
    _now,
    part_name,
    run_id,
    seal,
    trace_name,
)
from balance.results.lock import process_identity
from balance.results.rows import frame_columns


class ResultsWriter:
    """Writes parts into ``out/games/`` and keeps ``out/manifest.json`` current.

    ``manifest`` holds the run's provenance (the runner fills: version, game, config_path, config,
    config_hash, seed, games_requested, chunk_size, players, seats, teams, threads, end_reasons,
    telemetry_columns, versions, compile_time_s); the writer adds and maintains: format, status,
    process (the writing process: pid, host, started, and on Linux start_ticks and boot_id),
    started, finished, games_done, parts, extra_columns, wall_time_s, games_per_s.
    Not thread-safe: use it from one thread at a time.
    """

    def __init__(self, out: Path, manifest: dict[str, Any]) -> None:
        self.out = Path(out)
        self._t0 = time.perf_counter()
        self._version = manifest.get("version", "")
        self.manifest: dict[str, Any] = {
            "format": FORMAT,
            "run_id": run_id(manifest),
            **manifest,
            "status": "running",
            "process": process_identity(),
            "started": _now(),
            "finished": None,
            "wall_time_s": 0.0,
            "games_per_s": 0.0,
            "games_done": 0,
            "extra_columns": None,
            "parts": [],
        }
        (self.out / PARTS_DIR).mkdir(parents=True, exist_ok=True)
        if manifest.get("trace_measures"):
            (self.out / TRACE_DIR).mkdir(exist_ok=True)
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
        trace: dict[str, np.ndarray] | None = None,
    ) -> Path:
        """Append games [first_game, first_game + n_games); they must follow the games written.

        ``rows`` is a chunk's :func:`chunk_columns` (what the runner passes: no DataFrame is built)
        or the same rows as a DataFrame (:func:`chunk_frame`); ``trace`` the chunk's
        :func:`trace_columns`, written beside the part first, for a run whose manifest names
        ``trace_measures`` (and only then)."""
        if first_game != self.games_done:
            raise ValueError(f"part starts at game {first_game}, expected {self.games_done}")
        if (trace is None) == bool(self.manifest.get("trace_measures")):
            raise ValueError(
                "a part has a trace exactly when the run's manifest names trace_measures"
            )
        columns = frame_columns(rows) if isinstance(rows, pl.DataFrame) else rows
        index = len(self.manifest["parts"])
        entry: dict[str, Any] = {}
        if trace is not None:
            tname = trace_name(index)
            entry["trace"] = {
                "file": tname,
                "rows": parquet.n_rows(trace),
                "sha256": self._write_file(tname, trace, first_game, TRACE_DIR),
            }
        name = part_name(index)
        path = self.out / PARTS_DIR / name
        sha256 = self._write_file(name, columns, first_game, PARTS_DIR)
        extra = [
            c
            for c, v in columns.items()
            if c not in BASE_SCHEMA and isinstance(v, np.ndarray) and v.dtype == np.int32
        ]
        self.manifest["extra_columns"] = extra
        self.manifest["parts"].append(
            {"file": name, "first_game": first_game, "games": n_games, "sha256": sha256, **entry}
        )
        self.manifest["games_done"] = first_game + n_games
        self._save()
        return path

    def _write_file(self, name: str, columns: dict[str, Any], first_game: int, folder: str) -> str:
        """Write ``columns`` as ``<folder>/<name>`` (under a temporary name, flushed, renamed:
        the file is complete or absent); returns its SHA-256."""
        path = self.out / folder / name
        tmp = path.with_name("." + name + ".tmp")
        try:
            sha256 = parquet.write_table(
                tmp,
                columns,
                created_by=f"balance {self._version}",
                metadata={RUN_ID_KEY: self.manifest["run_id"], FIRST_GAME_KEY: str(first_game)},
            )
            _fsync(tmp)  # on disk before the manifest lists it, even across a power cut
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return sha256

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
        _write_json(self.out / MANIFEST, seal(self.manifest))


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Replace ``path`` atomically: the old or the new content, whatever happens."""
    tmp = path.with_name("." + path.name + ".tmp")
    try:
        with open(tmp, "w") as f:
            f.write(json.dumps(data, indent=2, default=str) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
