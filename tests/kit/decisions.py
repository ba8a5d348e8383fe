"""Decision states of real games, for the tests of the decision-point interface and re-deals.

:func:`positions` plays games of a config through :class:`balance.games.position.Position` with
the config's policies and yields a copy of the position at every ``every``-th decision (and at
the first one of every game), so that the states a test checks come from every phase of play,
not only from openings.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from balance import games
from balance.config import load_config
from balance.config.overrides import parse_overrides
from balance.games.position import Position

ROOT = Path(__file__).resolve().parents[2]


def compiled(config_path: str | Path, overrides: tuple[str, ...] = ()) -> tuple[Any, Any, Any]:
    """(plugin, compiled tables, config) of a config file (relative to the repository root)."""
    config = load_config(ROOT / config_path, parse_overrides(list(overrides)) if overrides else ())
    plugin = games.get(config.game)
    return plugin, plugin.compile(config), config


def positions(
    plugin: Any,
    tables: Any,
    *,
    seed: int,
    n: int,
    every: int = 7,
    first_game: int = 0,
    teams: Any = None,
) -> Iterator[Position]:
    """``n`` decision states (copies) from games ``first_game, first_game + 1, ...`` of run
    ``seed``, played with the config's policies: every ``every``-th decision of each game."""
    got = 0
    g = first_game
    while got < n:
        pos = Position(plugin, tables, seed, g, teams=teams)
        k = 0
        while not pos.done and got < n:
            if k % every == 0:
                yield pos.copy()
                got += 1
            pos.play_policy()
            k += 1
        g += 1
