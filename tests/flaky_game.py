"""A game plugin that plays a real game but fails the first time it plays each chunk.

Registered in place of a real game (``games._GAMES[name] = "flaky_game"``, with
``FLAKY_GAME=<name>`` and ``FLAKY_DIR=<dir>`` in the environment of the process and of the Ray
workers), it delegates everything to that game's plugin; its ``play`` raises once per chunk
(a marker file per first game in FLAKY_DIR says the chunk failed already), so a Ray run's
tasks each fail once and are retried; with ``FLAKY_TRIES=k``, the first k tries of each chunk. Games are the real game's: the dataset must be the one
a local run of the real game writes.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any

REAL = {
    "five_ravens": "balance.games.five_ravens",
    "raven_order": "balance.games.raven_order",
}


class FlakyChunk(RuntimeError):
    """The failure a flaky chunk's first try raises."""


class _Flaky:
    @property
    def real(self) -> Any:
        return importlib.import_module(REAL[os.environ["FLAKY_GAME"]]).PLUGIN

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.real, name)

    def play(self, tables: Any, seed: int, first_game: int, n_games: int) -> Any:
        if n_games:
            for attempt in range(int(os.environ.get("FLAKY_TRIES", "1"))):
                marker = Path(os.environ["FLAKY_DIR"]) / f"chunk-{first_game}-{attempt}"
                try:
                    marker.touch(exist_ok=False)
                except FileExistsError:
                    continue
                raise FlakyChunk(f"games from {first_game}: first try fails")
        return self.real.play(tables, seed, first_game, n_games)


PLUGIN = _Flaky()
