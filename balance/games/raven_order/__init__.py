"""The Raven Order: two-player economy and war with rune cards (rulebooks/raven-order.txt,
RO-1..RO-10)."""

from __future__ import annotations

from typing import ClassVar

from balance.games.base import BenchSpec, Game
from balance.games.raven_order import schema
from balance.search import search_policy


class RavenOrder(Game):
    name = "raven_order"
    title = "The Raven Order"
    min_players = 2
    max_players = 2
    policy_kinds: ClassVar = {
        "random": schema.RandomPolicy,
        "heuristic": schema.HeuristicPolicy,
        "search": search_policy("economy"),
    }
    # `balance bench`: the headline line-up's games/s on all threads (the performance issue's
    # target); every game also has BenchSpec's common targets.
    bench = BenchSpec(speed=("heuristic vs heuristic, all threads", 20_000))
    # `lost__<building or unit>`: what a seat lost to attacks, a result of the war, not a card
    outcome_events = ("lost",)


PLUGIN = RavenOrder()
