"""Corvids: a dexterity game over a messy pile of trash cards, played on a 2-D physical model of
the pile (rulebooks/corvids.txt, CV-1..CV-12; physics.py)."""

from __future__ import annotations

from typing import Any, ClassVar

from balance.games.base import BenchSpec, Game, ReportSection
from balance.games.corvids import schema
from balance.games.corvids.schema import BIRD_NAMES
from balance.search import search_policy


class Corvids(Game):
    name = "corvids"
    title = "Corvids"
    min_players = 2
    max_players = 8  # CV-1: eight bird cards
    policy_kinds: ClassVar = {
        "random": schema.RandomPolicy,
        "greedy": schema.GreedyPolicy,
        "search": search_policy("greedy"),
    }
    # `balance bench`: the targets, four greedy players on all threads and 100x (not
    # 80x) for compiled vs plain Python
    bench = BenchSpec(
        speed=("4 greedy players (base game), all threads", 10_000),
        players=(2, 4, 8),
        headline_players=4,
        python_ratio=100,
    )
    # what a seat lost, had stolen or removed: results of play, not cards it holds
    outcome_events = ("stolen", "lost")
    check_config = staticmethod(schema.check_config)

    def role_names(self, tables: Any) -> tuple[str, ...]:
        """A seat's role is the bird it was dealt: the config's birds in order (the default
        eight without tables)."""
        return BIRD_NAMES if tables is None else tuple(tables.bird_names)

    def replay_page(self, tables: Any, seed: int, game: int) -> str | None:
        """The pile after set-up and after every turn, with each turn in words
        (views/pictures.py)."""
        from balance.games.corvids.views import pictures
        from balance.search import SearchTables, play_logged, reason_lines

        if isinstance(tables, SearchTables):  # the search seats' game, and why they chose
            searched = play_logged(self, tables, seed, game)
            return pictures.replay_page(
                tables,
                seed,
                game,
                logged=searched.logged,
                reasons=reason_lines(searched, tables),
            )
        return pictures.replay_page(tables, seed, game)

    def report_sections(
        self, manifest: dict[str, Any], rows: Any, *, level: float = 0.95
    ) -> list[ReportSection]:
        """A starting pile and the pile's events per game (views/report.py)."""
        from balance.games.corvids.views import report

        return report.report_sections(manifest, rows, level=level)


PLUGIN = Corvids()
