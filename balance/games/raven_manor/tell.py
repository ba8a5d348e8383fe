"""Placeholder words for the Raven Manor log (replaced by narrate's full telling)."""

from __future__ import annotations


def tell_log(compiled, logged, seed, game):
    return [f"game {game} of seed {seed}: {len(logged.log)} events"]
