"""Replaying one game of a run: in words (:func:`narrate`) or as the game's page of pictures.

A game is played again from the config, its index and the seed, the same game the run played;
nothing is read from a results directory.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from balance import games as registry
from balance import results
from balance.runner.play import RunnerError, _check_seed


def check_game(game: int, players: int) -> None:
    """``--game`` of a replay: an index a run of ``players`` could have (simulate's bound)."""
    if game < 0:
        raise RunnerError(f"--game must be >= 0, got {game}")
    if game >= (limit := results.max_games(players)):
        raise RunnerError(
            f"--game {game:,} is beyond any run: a results dataset holds at most {limit:,} "
            f"games of {players} players ({results.ROW_LIMIT_TEXT})"
        )


def narrate(config: Any, *, game: int, seed: int | None = None) -> list[str]:
    """Game ``game`` of the run seeded with ``seed`` (default: the config's), in words."""
    check_game(game, config.players)
    seed = config.seed if seed is None else seed
    _check_seed(seed)
    plugin = registry.get(config.game)
    return list(plugin.narrate(plugin.compile(config), seed, game))


def pictured_games() -> list[str]:
    """The games that draw replay pictures (``Game.draws_pictures``)."""
    return [name for name in registry.names() if registry.get(name).draws_pictures]


def replay_page(config: Any, *, game: int, seed: int | None = None) -> str:
    """Game ``game`` of the run seeded with ``seed`` (default: the config's) as the game's HTML
    page of pictures; RunnerError (one line naming the games that have pictures) for a game
    without them, before anything is compiled or played."""
    check_game(game, config.players)
    seed = config.seed if seed is None else seed
    _check_seed(seed)
    plugin = registry.get(config.game)
    page = None
    if plugin.draws_pictures:
        page = plugin.replay_page(plugin.compile(config), seed, game)
    if page is None:
        pictured = pictured_games()
        raise RunnerError(
            f"{config.game} has no replay pictures; --html is for "
            + (", ".join(pictured) or "no game yet")
        )
    return page


def write_replay_page(
    config: Any, out: str | os.PathLike[str], *, game: int, seed: int | None = None
) -> Path:
    """Write ``replay_page(config, game=, seed=)`` to ``out`` (parents created), atomically
    (balance/outputs.py: a temporary file renamed into place, so that a failure in the game or
    while writing leaves no partial file and an earlier ``out`` as it was); ``out`` is checked
    before the game is played (a directory, FIFO or device is refused, one line)."""
    from balance import outputs

    outputs.check_output_file(out, "--html")
    html = replay_page(config, game=game, seed=seed)
    return outputs.write_atomic(out, html)
