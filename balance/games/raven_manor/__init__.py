"""Raven Manor: a hidden-role game in which the Raven possesses players by passing them Feathers
while the Family tries to find and kill it (rulebooks/raven-manor.txt, RM-1..RM-30)."""

from __future__ import annotations

from typing import Any, ClassVar

from balance.games.base import BenchSpec, Game
from balance.games.raven_manor import schema
from balance.games.raven_manor.schema import CHARACTER_NAMES, TEAM_NAMES
from balance.search import search_policy


class RavenManor(Game):
    name = "raven_manor"
    title = "Raven Manor"
    min_players = 2
    max_players = 12  # RM-30: the 12 order tokens
    policy_kinds: ClassVar = {
        "random": schema.RandomPolicy,
        "basic": schema.BasicPolicy,
        "by_side": schema.BySidePolicy,
        "reasoning": schema.ReasoningPolicy,
        "search": search_policy("basic", sides=("family", "evil")),
    }
    # `balance bench`: the headline line-up's games/s on all threads (the target, at 5
    # players: the starter pool seats at most 10, RM-30) and 100x (not 80x) for compiled vs
    # plain Python
    bench = BenchSpec(
        speed=("5 basic players (starter game), all threads", 20_000),
        players=(2, 5, 10),
        headline_players=5,
        python_ratio=100,
    )
    # `died__<cause>`: how a seat died, a result of play, not a card it holds
    outcome_events = ("died",)
    check_config = staticmethod(schema.check_config)

    def team_names(self, tables: Any) -> tuple[str, ...]:
        return TEAM_NAMES

    def role_names(self, tables: Any) -> tuple[str, ...]:
        return CHARACTER_NAMES

    def role_sides(self) -> dict[str, str]:
        """RM-22: the evil characters lead their own sides; every other character starts in
        the Family."""
        evil = {"raven": "raven", "headless_horseman": "horseman", "cthulhu_gentleman": "cthulhu"}
        return {c: evil.get(c, "family") for c in CHARACTER_NAMES}


PLUGIN = RavenManor()
