"""Five Ravens: card drafting of relics over five rounds (rulebooks/five-ravens.txt, FR-1..FR-15)."""

from __future__ import annotations

from typing import ClassVar

from balance.games.base import BenchSpec, Game
from balance.games.five_ravens import schema
from balance.search import search_policy


class FiveRavens(Game):
    name = "five_ravens"
    title = "Five Ravens"
    min_players = 2
    max_players = 4
    policy_kinds: ClassVar = {
        "random": schema.RandomPolicy,
        "greedy": schema.GreedyPolicy,
        "search": search_policy("greedy"),
    }
    check_config = staticmethod(schema.check_config)  # rules.handicap against players
    # `balance bench`: the headline line-up's games/s on all threads (the performance issue's
    # target); every game also has BenchSpec's common targets.
    bench = BenchSpec(speed=("4 greedy players, all threads", 150_000))


PLUGIN = FiveRavens()
