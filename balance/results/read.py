"""Reading a results directory: every check a reader makes before it hands out the rows.

Its manifest checked (schema, checksum, run id, recorded config) with its effective status and
the status in words, the parts it lists checked before their rows are handed out
(:func:`open_results`, :func:`verify`), and the part polars could not decode named afterwards
(:func:`find_damaged`).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import polars as pl

from balance import manifest as manifest_schema
from balance import parquet
from balance.results.layout import (
    FORMAT,
    MANIFEST,
    PARTS_DIR,
    RUN_ID_KEY,
    TRACE_BASE,
    TRACE_DIR,
    ResultsError,
    empty_schema,
    manifest_checksum,
    max_games,
    run_id,
)
from balance.results.lock import _effective_status, _process_words


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest of results directory ``path``; ResultsError if it is not one.

    Its ``status`` is the run's effective status: a run recorded as ``running`` whose writing
    process is gone (same host, and no process with its pid and start time) is ``killed``, with
    ``recorded_status`` and ``status_detail`` (see :func:`status_text`)."""
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
    except RecursionError:
        raise ResultsError(f"{file}: not a balance manifest (nested too deeply)") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("parts"), list):
        raise ResultsError(f"{file}: not a balance manifest (no list of parts)")
    if manifest.get("format") == FORMAT and manifest.get("checksum") != manifest_checksum(manifest):
        raise ResultsError(
            f"{file}: changed since balance wrote it (its checksum does not match its content: "
            f"damaged, or edited by hand); {_rerun(path, manifest)}"
        )
    try:
        manifest_schema.check(manifest, file)
    except manifest_schema.ManifestError as e:
        raise ResultsError(str(e)) from None
    if manifest["games_requested"] > (limit := max_games(manifest["players"])):
        raise ResultsError(
            f"{file}: games_requested: {manifest['games_requested']:,} is more than a results "
            f"dataset of {manifest['players']} players holds ({limit:,})"
        )
    if manifest["run_id"] != run_id(manifest):
        raise ResultsError(
            f"{file}: run_id: {manifest['run_id']} is not the id of the run it describes "
            f"({run_id(manifest)}): its version, config_hash, seed, games_requested or chunk_size "
            f"was edited. {_rerun(path, manifest)}"
        )
    _effective_status(manifest)
    return manifest


def check_config(manifest: dict[str, Any], path: str | os.PathLike[str]) -> Any:
    """The resolved config manifest of results directory ``path`` recorded, after checking that
    it is the config the run played: its hash, recomputed, is the recorded ``config_hash`` (a
    config edited by hand with its hash kept is refused, one line)."""
    from balance.config import config_from_dict, recorded_hashes

    file = Path(path) / MANIFEST
    recorded = manifest["config"]
    hashes = recorded_hashes(recorded) if isinstance(recorded, dict) else ("not a mapping",)
    if manifest["config_hash"] not in hashes:
        raise ResultsError(
            f"{file}: config: edited after the run (its hash is {hashes[0]}, the run "
            f"played {manifest['config_hash']}); {_rerun(Path(path), manifest)}"
        )
    return config_from_dict(recorded, str(file))


def open_results(path: str | os.PathLike[str]) -> tuple[dict[str, Any], pl.LazyFrame]:
    """(manifest, rows) of results directory ``path``; only the parts the manifest lists are read.

    The dataset may be incomplete: check ``manifest["status"]`` (``complete``, ``running`` for a
    run in progress, ``killed`` for one whose process died, ``interrupted``, ``failed``; see
    :func:`read_manifest`) and ``manifest["games_done"]``. Each part's footer is checked first
    (:func:`check_part`), so a truncated part is a ResultsError naming it, not a polars error at
    collect time; a page damaged inside a part surfaces when the rows are collected, and
    :func:`find_damaged` then names the file.
    """
    path = Path(path)
    manifest = read_manifest(path)
    check_config(manifest, path)
    files = []
    columns: list[str] | None = None
    for i, part in enumerate(manifest["parts"]):
        if not isinstance(part, dict) or not isinstance(part.get("file"), str):
            raise ResultsError(f"{path / MANIFEST}: parts[{i}] is not a part (no file name)")
        file = path / PARTS_DIR / part["file"]
        if not file.is_file():
            raise ResultsError(f"{file}: listed in {MANIFEST} but missing")
        footer = check_part(file, manifest, part)
        if columns is None:
            columns = footer.columns
        elif footer.columns != columns:
            raise ResultsError(
                f"{file}: its columns differ from those of {manifest['parts'][0]['file']}; "
                f"it is not a part of this run. {_rerun(path, manifest)}"
            )
        files.append(file)
    _remember(path, manifest, files)
    if not files:
        return manifest, pl.LazyFrame(schema=empty_schema(manifest))
    return manifest, pl.scan_parquet(files)


def check_part(file: Path, manifest: dict[str, Any], part: dict[str, Any]) -> parquet.Footer:
    """Part ``file``'s footer, after checking the part against its manifest entry: its SHA-256
    (every byte as written), the run id in its footer, its row count. ResultsError (one line
    naming the part and the command that rewrites it) if it is damaged, truncated, not parquet,
    or a part of another run."""
    players, games = manifest["players"], part["games"]
    return _check_file(
        file, manifest, part["sha256"], games * players, f"{games:,} games of {players} players"
    )


def check_trace(file: Path, manifest: dict[str, Any], part: dict[str, Any]) -> parquet.Footer:
    """The trajectories beside a part (``part["trace"]``), checked as :func:`check_part` checks
    the part: SHA-256, run id, row count."""
    entry = part["trace"]
    rows = entry["rows"]
    return _check_file(file, manifest, entry["sha256"], rows, f"{rows:,} rows of trajectories")


def _check_file(
    file: Path, manifest: dict[str, Any], sha256: str, rows: int, holds: str
) -> parquet.Footer:
    try:
        with open(file, "rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
        footer = parquet.read_footer(file)
    except parquet.DamagedFile as e:
        raise ResultsError(damaged(file, str(e), manifest)) from None
    except OSError as e:
        raise ResultsError(f"{file}: cannot read: {e.strerror or e}") from None
    theirs = footer.metadata.get(RUN_ID_KEY)
    if theirs != manifest["run_id"]:
        whose = f"run id {theirs}" if theirs else "no run id"
        raise ResultsError(
            f"{file}: a part of another run ({whose}; this run is {manifest['run_id']}); "
            f"{_rerun(file.parent.parent, manifest)}"
        )
    if digest != sha256:
        raise ResultsError(
            damaged(file, "its SHA-256 is not the one recorded when written", manifest)
        )
    if footer.rows != rows:
        raise ResultsError(
            damaged(file, f"it holds {footer.rows:,} rows, {MANIFEST} says {holds}", manifest)
        )
    return footer


def open_trace(path: str | os.PathLike[str]) -> tuple[dict[str, Any], pl.LazyFrame]:
    """(manifest, trajectories) of results directory ``path``: one row per game, point and seat
    (``game``, ``point``, ``seat``, then the manifest's ``trace_measures``), from the trace files
    beside the parts the manifest lists, each checked first (:func:`check_trace`). ResultsError
    for a run that recorded none (a game that keeps none, or a run written before trajectories)."""
    path = Path(path)
    manifest = read_manifest(path)
    check_config(manifest, path)
    measures = manifest.get("trace_measures") or []
    if not measures:
        raise ResultsError(
            f"{path}: its games have no trajectories (the run predates them, or its game keeps "
            f"none); to record them, {_rerun(path, manifest)}"
        )
    files = []
    for part in manifest["parts"]:
        file = path / TRACE_DIR / part["trace"]["file"]
        if not file.is_file():
            raise ResultsError(f"{file}: listed in {MANIFEST} but missing")
        check_trace(file, manifest, part)
        files.append(file)
    _remember(path / "trace", manifest, files)
    if not files:
        schema = {**TRACE_BASE, **dict.fromkeys(measures, pl.Int16())}
        return manifest, pl.LazyFrame(schema=schema)
    return manifest, pl.scan_parquet(files)


def verify(path: str | os.PathLike[str]) -> tuple[dict[str, Any], list[str]]:
    """Check results directory ``path`` as every reader does, in full: its manifest (schema,
    run id, recorded config), then every part (:func:`check_part`). Returns (manifest, one line
    per bad part); a manifest that cannot be trusted raises ResultsError."""
    path = Path(path)
    manifest = read_manifest(path)
    check_config(manifest, path)
    problems = []
    for part in manifest["parts"]:
        file = path / PARTS_DIR / part["file"]
        try:
            if not file.is_file():
                raise ResultsError(
                    f"{file}: listed in {MANIFEST} but missing; {_rerun(path, manifest)}"
                )
            check_part(file, manifest, part)
            if part.get("trace"):
                trace = path / TRACE_DIR / part["trace"]["file"]
                if not trace.is_file():
                    raise ResultsError(
                        f"{trace}: listed in {MANIFEST} but missing; {_rerun(path, manifest)}"
                    )
                check_trace(trace, manifest, part)
        except ResultsError as e:
            problems.append(str(e))
    return manifest, problems


def damaged(file: Path, reason: str, manifest: dict[str, Any]) -> str:
    """The one-line message for a damaged part."""
    return f"{file}: damaged or truncated parquet file ({reason}); {_rerun(file.parent.parent, manifest)}"


def _rerun(path: Path, manifest: dict[str, Any]) -> str:
    config = manifest.get("config_path")
    if not config:
        return "re-run the simulation that wrote it, with --force"
    games, seed = manifest.get("games_requested"), manifest.get("seed")
    options = "".join(f" --{k} {v}" for k, v in (("games", games), ("seed", seed)) if v is not None)
    return f"re-run `balance simulate {config}{options} --out {path} --force`"


# The parts open_results handed out, newest last: a page damaged inside a part makes polars fail
# only when the rows are collected, far from here and without the file's name; find_damaged
# decodes these parts one by one to name it.
_OPENED: dict[Path, tuple[dict[str, Any], list[Path]]] = {}
_OPENED_MAX = 32


def _remember(path: Path, manifest: dict[str, Any], files: list[Path]) -> None:
    _OPENED.pop(path, None)
    _OPENED[path] = (manifest, files)
    while len(_OPENED) > _OPENED_MAX:
        del _OPENED[next(iter(_OPENED))]


def find_damaged() -> ResultsError | None:
    """The ResultsError naming the first part, among those :func:`open_results` opened in this
    process (newest first), that polars cannot decode; None if every part decodes. For a reader
    whose collect failed with a polars error: it reads the parts in full, once, on that error
    path only."""
    for manifest, files in reversed(list(_OPENED.values())):
        for file in files:
            reason = _decode_error(file)
            if reason is not None:
                return ResultsError(damaged(file, reason, manifest))
    return None


def _decode_error(file: Path) -> str | None:
    try:
        pl.read_parquet(file)
    except FileNotFoundError:
        return "it was removed while being read"
    except OSError as e:
        return e.strerror or str(e)
    except pl.exceptions.PolarsError as e:
        return _polars_reason(e)
    except BaseException as e:  # polars' PanicException derives from BaseException
        if type(e).__name__ != "PanicException":
            raise
        return _polars_reason(e)
    return None


def _polars_reason(e: BaseException) -> str:
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return text.split("File out of specification: ")[-1]


def status_text(manifest: dict[str, Any]) -> str:
    """How a run stands, in words: ``complete``, ``interrupted``, ``failed``, ``running``,
    ``running (on host H)`` (a run on another machine: this one cannot tell whether it still
    runs) or ``did not finish: the writing process (pid N on host H, started T) is gone``."""
    status = str(manifest.get("status", "?"))
    detail = manifest.get("status_detail")
    if status == "killed":
        return f"did not finish: {detail}" if detail else "did not finish"
    return f"{status} ({detail})" if detail else status


def status_phrase(manifest: dict[str, Any]) -> tuple[str, str]:
    """(the words to stress, the rest) of "This run ..." for a page: ("is interrupted", ""),
    ("is running", " (on host H)"), ("did not finish", ", its process (pid N on host H, started
    T) is gone")."""
    status = str(manifest.get("status", "?"))
    if status == "killed":
        process = manifest.get("process")
        gone = f", its process {_process_words(process)} is gone" if process else ""
        return "did not finish", gone
    detail = manifest.get("status_detail")
    return f"is {status}", f" ({detail})" if detail else ""
