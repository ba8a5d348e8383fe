"""Resuming a run: continue a results directory stopped by Ctrl-C, a kill or a failure.

The run goes on from its finished chunks, checked against the manifest, and ends with the dataset
an uninterrupted run writes: the same parts, byte for byte, and the same manifest but for
:data:`RUN_SPECIFIC`. The games are written by balance/runner/write.py, as a new run's are.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import balance
from balance import results
from balance.errors import interruptible
from balance.runner.play import RunnerError, check_options, check_threads
from balance.runner.write import RunSummary, _prepare_here_or_there, _run_threads, _write_run

# the same config, seed, games and chunk size, here or on Ray, interrupted and resumed or not,
# have the same parts byte for byte and the same manifest but for these.
RUN_SPECIFIC = (
    "process",
    "started",
    "finished",
    "wall_time_s",
    "games_per_s",
    "compile_time_s",
    "threads",
    "backend",
    "sessions",
    "stopped_by",
    "checksum",  # of the manifest's content, timings included
)

RESUMABLE = ("interrupted", "killed", "failed")


class _ResumedWriter(results.ResultsWriter):
    """A ResultsWriter that goes on with the manifest of an earlier session of the same run: its
    parts, ``games_done`` and telemetry counts are kept, the wall time goes on from where it
    stopped (so games/s stays the run's), and ``sessions`` records each earlier session."""

    def __init__(self, out: Path, manifest: dict[str, Any], *, ended: str) -> None:
        self.out = Path(out)
        self._version = manifest.get("version", "")
        self._t0 = time.perf_counter() - float(manifest.get("wall_time_s") or 0.0)
        earlier = {
            "status": ended,  # as a reader saw it: a killed session is "killed"
            **{k: manifest.get(k) for k in ("process", "started", "finished", "games_done")},
            "backend": manifest.get("backend") or {"name": "local"},
        }
        if manifest.get("stopped_by"):
            earlier["stopped_by"] = manifest["stopped_by"]
        self.manifest = {
            **{k: v for k, v in manifest.items() if k != "stopped_by"},
            "status": "running",
            "process": results.process_identity(),
            "finished": None,
            "sessions": [*manifest.get("sessions", ()), earlier],
        }
        (self.out / results.PARTS_DIR).mkdir(parents=True, exist_ok=True)
        if manifest.get("trace_measures"):
            (self.out / results.TRACE_DIR).mkdir(exist_ok=True)
        self._save()


def resume(
    out: str | os.PathLike[str],
    *,
    config: Any = None,
    config_label: str | None = None,
    games: int | None = None,
    seed: int | None = None,
    chunk_size: int | None = None,
    threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RunSummary:
    """Continue the run in ``out`` (stopped by Ctrl-C, killed, or failed) from its finished
    chunks, and end with the dataset an uninterrupted run writes: the same parts, byte for byte,
    and the same manifest but for timings, the process and ``sessions``.

    ``config`` (with ``--set`` applied; ``config_label`` names it in errors), ``games``, ``seed``
    and ``chunk_size``, when given, must be the run's (checked against its manifest); by default
    the manifest's resolved config is played. A complete run returns at once (nothing played).
    Raises RunnerError or ResultsError (one line) before anything is written."""
    out = Path(out)
    threads = _run_threads(threads)
    check_threads(threads)
    results.read_manifest(out)  # a results directory, before its lock is taken in it
    with results.one_writer(out):
        return _resume_locked(
            out,
            config=config,
            config_label=config_label,
            games=games,
            seed=seed,
            chunk_size=chunk_size,
            threads=threads,
            progress=progress,
        )


def _resume_locked(
    out: Path,
    *,
    config: Any,
    config_label: str | None,
    games: int | None,
    seed: int | None,
    chunk_size: int | None,
    threads: int,
    progress: Callable[[int, int], None] | None,
) -> RunSummary:
    """:func:`resume`, holding the directory's writer lock."""
    from balance.config import config_hash

    manifest = results.read_manifest(out)
    file = out / results.MANIFEST
    status = manifest.get("status")
    if status == "running":
        raise RunnerError(
            f"{out}: {results.status_text(manifest)}: the run is still being written there"
        )
    if status not in (*RESUMABLE, "complete"):
        raise RunnerError(f"{file}: status {status!r} is not a run that can be resumed")
    if manifest.get("version") != balance.__version__:
        raise RunnerError(
            f"{file}: written by balance {manifest.get('version')}, this is "
            f"{balance.__version__}: resume it with that version, or re-run with --force"
        )
    recorded = manifest.get("config")
    if not isinstance(recorded, dict):
        raise RunnerError(f"{file}: records no config to resume")
    ran = results.check_config(manifest, out)  # its hash recomputed: an edited config is refused
    if config is not None:
        mine = config.model_copy(update={"games": ran.games, "seed": ran.seed})
        if config_hash(mine) != config_hash(ran):  # as this release reads it (the policies played)
            where = _first_difference(mine.resolved_dict(), recorded)
            raise RunnerError(
                f"{config_label or 'CONFIG'}: {where} in the run in {out} (its "
                f"{results.MANIFEST}); --resume continues that run with its own config"
            )
    expected = {
        "--games": (games, manifest.get("games_requested")),
        "--seed": (seed, manifest.get("seed")),
        "--chunk-size": (chunk_size, manifest.get("chunk_size")),
    }
    for option, (given, theirs) in expected.items():
        if given is not None and given != theirs:
            raise RunnerError(
                f"{option} {given}: the run in {out} has {option} {theirs}; "
                "--resume continues it as it was started"
            )
    games, seed, chunk_size = (int(manifest[k]) for k in ("games_requested", "seed", "chunk_size"))
    check_options(
        games=games, seed=seed, chunk_size=chunk_size, threads=None, players=len(ran.seats)
    )
    kept = _finished_parts(out, manifest, chunk_size)
    earlier = dict(manifest)
    for k in ("recorded_status", "status_detail"):  # a reader's annotations, not the file's
        earlier.pop(k, None)
    earlier["status"] = manifest.get("recorded_status", status)
    done = sum(p["games"] for p in kept)
    if status == "complete" and done == games:
        return RunSummary(
            out=out,
            status="complete",
            games_requested=games,
            games_done=games,
            rows=games * len(ran.seats),
            parts=len(kept),
            seed=seed,
            threads=int(manifest.get("threads") or threads),
            compile_time_s=0.0,
            wall_time_s=0.0,
            games_per_s=0.0,
            games_kept=games,
            backend=dict(manifest.get("backend") or {"name": "local"}),
        )
    earlier["parts"], earlier["games_done"] = kept, done
    with interruptible():
        prepared = _prepare_here_or_there(ran, seed)
    earlier["threads"] = threads

    def writer() -> results.ResultsWriter:
        _clear_leftovers(out, kept)
        return _ResumedWriter(out, earlier, ended=str(status))

    return _write_run(
        prepared,
        writer,
        out=out,
        seed=seed,
        games=games,
        first_game=done,
        chunk_size=chunk_size,
        threads=threads,
        progress=progress,
    )


def recorded_config(out: str | os.PathLike[str]) -> Any:
    """The resolved config the manifest of results directory ``out`` recorded (what ran)."""
    from balance.config import config_from_dict

    manifest = results.read_manifest(out)
    if not isinstance(manifest.get("config"), dict):
        raise RunnerError(f"{Path(out) / results.MANIFEST}: records no config")
    return config_from_dict(manifest["config"], str(Path(out) / results.MANIFEST))


def recorded_path(out: str | os.PathLike[str]) -> str | None:
    """The config path the manifest of ``out`` recorded (None for a run without one)."""
    return results.read_manifest(out).get("config_path")


def _finished_parts(out: Path, manifest: dict[str, Any], chunk_size: int) -> list[dict[str, Any]]:
    """The manifest's parts, checked: each holds the next ``chunk_size`` games (the layout an
    uninterrupted run writes) and has its parquet footer; ResultsError names one that is not."""
    file = out / results.MANIFEST
    kept, at = [], 0
    for i, part in enumerate(manifest["parts"]):
        if not isinstance(part, dict) or part.get("file") != results.part_name(i):
            raise RunnerError(f"{file}: parts[{i}] is not {results.part_name(i)}; re-run --force")
        if part.get("first_game") != at or part.get("games") != min(
            chunk_size, int(manifest["games_requested"]) - at
        ):
            raise RunnerError(
                f"{file}: parts[{i}] holds games from {part.get('first_game')} "
                f"({part.get('games')} games), not the chunk of --chunk-size {chunk_size} from "
                f"game {at}; re-run with --force"
            )
        path = out / results.PARTS_DIR / part["file"]
        if not path.is_file():
            raise results.ResultsError(f"{path}: listed in {results.MANIFEST} but missing")
        results.check_part(path, manifest, part)
        if part.get("trace"):  # the part's trajectories, beside it
            trace = out / results.TRACE_DIR / part["trace"]["file"]
            if not trace.is_file():
                raise results.ResultsError(f"{trace}: listed in {results.MANIFEST} but missing")
            results.check_trace(trace, manifest, part)
        kept.append(dict(part))
        at += part["games"]
    if at != int(manifest.get("games_done") or 0):
        raise RunnerError(
            f"{file}: games_done is {manifest.get('games_done')}, its parts hold {at} games; "
            "re-run with --force"
        )
    return kept


def _clear_leftovers(out: Path, kept: list[dict[str, Any]]) -> None:
    """Remove what a killed session left beside its listed parts: temporary files, and a part
    (or its trajectories) renamed into place whose manifest entry was never written (it is
    played again)."""
    listed = {p["file"] for p in kept}
    for path in (out / results.PARTS_DIR).iterdir():
        if path.name not in listed:
            path.unlink()
    traced = {p["trace"]["file"] for p in kept if p.get("trace")}
    if (out / results.TRACE_DIR).is_dir():
        for path in (out / results.TRACE_DIR).iterdir():
            if path.name not in traced:
                path.unlink()
    for path in out.glob(".*.tmp"):
        path.unlink()


def _first_difference(mine: Any, theirs: Any, path: str = "") -> str:
    """The first dotted key where two resolved configs differ, with both values."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        keys = [*mine, *(k for k in theirs if k not in mine)]
        for key in sorted(keys, key=lambda k: k == "description"):  # a rule before the words
            if key == "report":
                continue
            if mine.get(key) != theirs.get(key):
                return _first_difference(
                    mine.get(key), theirs.get(key), f"{path}.{key}".lstrip(".")
                )
    if isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        for i, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            if a != b:
                return _first_difference(a, b, f"{path}[{i}]")
    return f"{path or 'config'}: {json.dumps(mine)} here, {json.dumps(theirs)}"
