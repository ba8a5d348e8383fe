"""Raven Manor replay: one game of a run, told event by event (``balance replay``).

``replay(compiled, seed, game)`` replays game ``game`` of the run seeded with ``seed`` with the
batch kernel's own per-game function (``engine.play_game``) on a state that keeps an event log
(``play_logged``), so the replay is the dataset's game, and turns the log into lines (``tell``).
It is a designer's view with the hidden information shown: every seat's character, what each
exchange passed, who answered each window.
"""

from __future__ import annotations

import numpy as np

from balance.games import _kit as kit
from balance.games._kit import Logged
from balance.games.base import Replay
from balance.games.raven_manor import engine
from balance.games.raven_manor.state import G_END, G_TURN, alloc_state, log_rows
from balance.games.raven_manor.tables import Compiled

LOG_CAP = kit.LOG_CAP


def replay(compiled: Compiled, seed: int, game: int) -> Replay:
    """Game ``game`` of run ``seed`` in lines, with its outcome (row ``game`` of a dataset)."""
    logged = play_logged(compiled, seed, game)
    lines = tell(compiled, logged, seed, game)
    return Replay(lines, logged.score, logged.rank, logged.turns, logged.end_reason)


def play_logged(compiled: Compiled, seed: int, game: int) -> Logged:
    """Play game ``game`` of run ``seed`` exactly as ``engine.play_batch`` does, keeping the log."""
    tb = compiled.k
    n = compiled.players

    def play(cap: int) -> Logged:
        st = alloc_state(tb, cap)
        stack, opts, pick, mask = engine.alloc_work()
        engine.play_game(tb, st, np.int64(seed), np.int64(game), stack, opts, pick, mask)
        score = np.zeros(n, np.int32)
        rank = np.zeros(n, np.int32)
        for p in range(n):
            score[p], rank[p] = engine.outcome(st, p)
        return Logged(log_rows(st), st, score, rank, int(st.g[G_TURN]), int(st.g[G_END]) - 1)

    return kit.play_logged(play, seed, game, LOG_CAP)


def tell(compiled: Compiled, logged: Logged, seed: int, game: int) -> list[str]:
    """The lines of a logged game."""
    from balance.games.raven_manor.tell import tell_log

    return tell_log(compiled, logged, seed, game)
