"""The runner: play games chunk by chunk and stream the outcomes to a results directory.

Its public API is here; each job has its own module:

- ``play.py``: the one place that plays games (:func:`prepare`, :func:`play_chunks`,
  :func:`numba_threads`, the backends of :func:`using_backend`, the shared option checks);
- ``write.py``: a run into a results directory (:func:`run`, Ctrl-C between chunks, a failed
  write said in one line, :func:`default_out`, :func:`run_costs`);
- ``resuming.py``: continuing a stopped run (:func:`resume`, :data:`RUN_SPECIFIC`);
- ``replay.py``: one game replayed in words or pictures (:func:`narrate`, :func:`replay_page`).

The flow is CLI -> balance/runs.py -> runner -> games. Nothing here prints.
"""

from balance.runner.play import (
    CHUNK,
    MAX_CHUNK,
    Backend,
    KernelLoad,
    LoadDisplay,
    Prepared,
    RunnerError,
    check_options,
    check_threads,
    current_backend,
    load,
    numba_threads,
    play_chunks,
    prepare,
    showing_loads,
    using_backend,
)
from balance.runner.replay import (
    check_game,
    narrate,
    pictured_games,
    replay_page,
    write_replay_page,
)
from balance.runner.resuming import (
    RESUMABLE,
    RUN_SPECIFIC,
    recorded_config,
    recorded_path,
    resume,
)
from balance.runner.write import (
    BYTES_PER_ROW,
    LONG_RUN_S,
    Interrupted,
    RunSummary,
    default_out,
    disk_costs,
    run,
    run_costs,
)

__all__ = [
    "BYTES_PER_ROW",
    "CHUNK",
    "LONG_RUN_S",
    "MAX_CHUNK",
    "RESUMABLE",
    "RUN_SPECIFIC",
    "Backend",
    "Interrupted",
    "KernelLoad",
    "LoadDisplay",
    "Prepared",
    "RunSummary",
    "RunnerError",
    "check_game",
    "check_options",
    "check_threads",
    "current_backend",
    "default_out",
    "disk_costs",
    "load",
    "narrate",
    "numba_threads",
    "pictured_games",
    "play_chunks",
    "prepare",
    "recorded_config",
    "recorded_path",
    "replay_page",
    "resume",
    "run",
    "run_costs",
    "showing_loads",
    "using_backend",
    "write_replay_page",
]
