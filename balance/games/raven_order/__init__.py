"""The Raven Order: two-player economy and war with rune cards (rulebooks/raven-order.txt,
RO-1..RO-10)."""

from __future__ import annotations

from typing import ClassVar

from balance.games.base import Game
from balance.games.raven_order import schema


class RavenOrder(Game):
    name = "raven_order"
    title = "The Raven Order"
    min_players = 2
    max_players = 2
    end_reasons = ("destruction", "draw")
    policy_kinds: ClassVar = {"random": schema.RandomPolicy, "heuristic": schema.HeuristicPolicy}
    # Targets from the performance issue.
    bench_targets = (
        dict(
            key="games_per_s",
            label="heuristic vs heuristic, all threads",
            threshold=20_000,
            at_least=True,
            unit="games/s",
        ),
        dict(
            key="python_ratio",
            label="compiled (1 thread) vs plain Python",
            threshold=80,
            at_least=True,
            unit="x",
        ),
        dict(
            key="warm_start_s",
            label="warm start to first simulated game",
            threshold=3.0,
            at_least=False,
            unit="s",
        ),
    )


PLUGIN = RavenOrder()
