"""Five Ravens: card drafting of relics over five rounds (rulebooks/five-ravens.txt, FR-1..FR-15)."""

from __future__ import annotations

from typing import Any, ClassVar

from balance.games.base import Chunk
from balance.games.five_ravens import schema


class _FiveRavens:
    name = "five_ravens"
    title = "Five Ravens"
    min_players = 2
    max_players = 4
    rules_model = schema.Rules
    policy_kinds: ClassVar = {"random": schema.RandomPolicy, "greedy": schema.GreedyPolicy}
    default_policies = schema.DEFAULT_POLICIES
    end_reasons = ("clocks",)

    # The engine imports numba; it is loaded on first use so that `validate` and `--help` stay fast.
    def compile(self, config: Any) -> Any:
        from balance.games.five_ravens import tables

        return tables.compile_tables(config)

    def telemetry_columns(self, tables: Any) -> list[str]:
        from balance.games.five_ravens import tables as t

        return t.telemetry_columns(tables)

    def play(self, tables: Any, seed: int, first_game: int, n_games: int) -> Chunk:
        from balance.games.five_ravens import engine

        return engine.play(tables, seed, first_game, n_games)

    def impact_variants(self, config: Any) -> list[dict[str, Any]]:
        from balance.games.five_ravens import variants

        return variants.impact_variants(config)

    def report_variants(self, config: Any) -> list[dict[str, Any]]:
        return []  # every Five Ravens rule is in `balance impact`; none is asked about by default

    def narrate(self, tables: Any, seed: int, game: int) -> list[str]:
        from balance.games.five_ravens import narrate

        return narrate.narrate(tables, seed, game)


PLUGIN = _FiveRavens()
