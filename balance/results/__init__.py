"""The results dataset: parquet parts of one row per (game, seat), and a manifest.

Layout of ``results/<run>/``::

    manifest.json             provenance and progress (see ResultsWriter); rewritten after every part
    games/part-00000.parquet  games [0, n0), game-major then seat
    games/part-00001.parquet  games [n0, n0 + n1), ...

Every part is written under a temporary name, flushed to disk and renamed, and the manifest is
replaced the same way after each part, so a killed run (even by a power cut) leaves a readable
dataset: the parts the manifest lists are complete, and ``games_done`` says how many games they
hold (always games ``[0, games_done)``). The manifest records the writing process (pid, host, start
time), so that a reader can tell a run in progress from one whose process died without recording
its end (:func:`read_manifest`, status ``killed``). :func:`open_results` checks each part's footer
before handing out the rows: a truncated or overwritten part is a one-line ResultsError naming it.

Its public API is here; each job has its own module:

- ``layout.py``: file names, base columns, run id, manifest checksum, ResultsError;
- ``rows.py``: a played chunk as the rows of a part (:func:`chunk_columns`, :func:`chunk_frame`);
- ``lock.py``: the writing process, whether it still runs, one writer per directory
  (:func:`one_writer`);
- ``writer.py``: :class:`ResultsWriter`, parts and manifest written atomically;
- ``read.py``: :func:`read_manifest`, :func:`open_results`, :func:`verify`, :func:`find_damaged`.
"""

from balance.results.layout import (
    BASE_SCHEMA,
    FIRST_GAME_KEY,
    FORMAT,
    MANIFEST,
    PARTS_DIR,
    ROW_LIMIT_TEXT,
    RUN_ID_KEY,
    TRACE_BASE,
    TRACE_DIR,
    ResultsError,
    empty_schema,
    manifest_checksum,
    max_games,
    part_name,
    run_id,
    seal,
    trace_name,
)
from balance.results.lock import (
    LOCK,
    Busy,
    check_not_busy,
    clear,
    entries,
    one_writer,
    process_identity,
)
from balance.results.read import (
    check_config,
    check_part,
    check_trace,
    damaged,
    find_damaged,
    open_results,
    open_trace,
    read_manifest,
    status_phrase,
    status_text,
    verify,
)
from balance.results.rows import (
    chunk_columns,
    chunk_frame,
    columns_frame,
    frame_columns,
    team_codes,
    trace_columns,
    trace_frame,
    win_values,
)
from balance.results.writer import ResultsWriter

__all__ = [
    "BASE_SCHEMA",
    "FIRST_GAME_KEY",
    "FORMAT",
    "LOCK",
    "MANIFEST",
    "PARTS_DIR",
    "ROW_LIMIT_TEXT",
    "RUN_ID_KEY",
    "TRACE_BASE",
    "TRACE_DIR",
    "Busy",
    "ResultsError",
    "ResultsWriter",
    "check_config",
    "check_not_busy",
    "check_part",
    "check_trace",
    "chunk_columns",
    "chunk_frame",
    "clear",
    "columns_frame",
    "damaged",
    "empty_schema",
    "entries",
    "find_damaged",
    "frame_columns",
    "manifest_checksum",
    "max_games",
    "one_writer",
    "open_results",
    "open_trace",
    "part_name",
    "process_identity",
    "read_manifest",
    "run_id",
    "seal",
    "status_phrase",
    "status_text",
    "team_codes",
    "trace_columns",
    "trace_frame",
    "trace_name",
    "verify",
    "win_values",
]
