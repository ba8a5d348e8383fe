"""The Raven Order: two-player economy and war with rune cards (rulebooks/raven-order.txt,
RO-1..RO-10)."""

from __future__ import annotations

from typing import Any, ClassVar

from balance.games.base import Chunk
from balance.games.raven_order import schema


class _RavenOrder:
    name = "raven_order"
    title = "The Raven Order"
    min_players = 2
    max_players = 2
    rules_model = schema.Rules
    policy_kinds: ClassVar = {"random": schema.RandomPolicy, "heuristic": schema.HeuristicPolicy}
    default_policies = schema.DEFAULT_POLICIES
    end_reasons = ("destruction", "draw")

    # The engine imports numba; it is loaded on first use so that `validate` and `--help` stay fast.
    def compile(self, config: Any) -> Any:
        from balance.games.raven_order import tables

        return tables.compile_tables(config)

    def telemetry_columns(self, tables: Any) -> list[str]:
        return list(tables.columns)

    def play(self, tables: Any, seed: int, first_game: int, n_games: int) -> Chunk:
        from balance.games.raven_order import engine

        return engine.play(tables, seed, first_game, n_games)

    def impact_variants(self, config: Any) -> list[dict[str, Any]]:
        from balance.games.raven_order import variants

        return variants.impact_variants(config)

    def report_variants(self, config: Any) -> list[dict[str, Any]]:
        from balance.games.raven_order import variants

        return variants.report_variants(config)

    def narrate(self, tables: Any, seed: int, game: int) -> list[str]:
        from balance.games.raven_order import narrate

        return narrate.narrate(tables, seed, game)


PLUGIN = _RavenOrder()
