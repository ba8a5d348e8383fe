"""Five Ravens: card drafting of relics over five rounds (rulebooks/five-ravens.txt, FR-1..FR-15)."""

from __future__ import annotations

from typing import ClassVar

from balance.games.base import Game
from balance.games.five_ravens import schema


class FiveRavens(Game):
    name = "five_ravens"
    title = "Five Ravens"
    min_players = 2
    max_players = 4
    end_reasons = ("clocks",)
    policy_kinds: ClassVar = {"random": schema.RandomPolicy, "greedy": schema.GreedyPolicy}
    # Targets from the performance issue.
    bench_targets = (
        dict(
            key="games_per_s",
            label="4 greedy players, all threads",
            threshold=150_000,
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


PLUGIN = FiveRavens()
