"""Raven Manor: a hidden-role game in which the Raven possesses players by passing them Feathers
while the Family tries to find and kill it (rulebooks/raven-manor.txt, RM-1..RM-30)."""

from __future__ import annotations

from typing import Any, ClassVar

from balance.games.base import Game
from balance.games.raven_manor import schema
from balance.games.raven_manor.schema import CHARACTER_NAMES, END_REASONS, TEAM_NAMES


class RavenManor(Game):
    name = "raven_manor"
    title = "Raven Manor"
    min_players = 2
    max_players = 12  # RM-30: the 12 order tokens
    end_reasons = END_REASONS
    policy_kinds: ClassVar = {
        "random": schema.RandomPolicy,
        "basic": schema.BasicPolicy,
        "by_side": schema.BySidePolicy,
    }
    # `balance bench`: the headline line-up's games/s on all threads (the target)
    speed_target = ("5 basic players (starter game), all threads", 20_000)
    # the starter pool seats at most 10 (RM-30); the speed target is at 5 players
    bench_players = (2, 5, 10)
    bench_headline_players = 5
    # `died__<cause>`: how a seat died, a result of play, not a card it holds
    outcome_events = ("died",)
    check_config = staticmethod(schema.check_config)

    @property
    def bench_targets(self) -> tuple[dict[str, Any], ...]:
        """The common targets, with the issue's 100x (not 80x) for compiled vs plain Python."""
        return tuple(
            {**t, "threshold": 100} if t["key"] == "python_ratio" else t
            for t in super().bench_targets
        )

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
