"""Raven Manor's default variants for ``balance impact``: one small change per card.

``impact_variants(config)`` returns ``[{name, description, patch}]``; each patch is merged into the
resolved config and played on the same seeds (balance/experiments). One variant per card type the
deck holds: one copy fewer (RM-1). Feathers go down to one fewer too: how many Feathers the Raven
can pass is the first thing a Raven Manor designer asks about.
"""

from __future__ import annotations

from typing import Any

from balance.games.raven_manor.schema import CARD_NAMES


def impact_variants(config: Any) -> list[dict[str, Any]]:
    """The default variants of a validated Raven Manor ``RunConfig``."""
    deck = config.rules.deck
    out: list[dict[str, Any]] = []
    for name in CARD_NAMES:
        n = int(deck.get(name, 0))
        if n >= 1:
            out.append(
                {
                    "name": f"{name} -1 copy",
                    "description": f"one {name} fewer in the deck ({n} -> {n - 1}; RM-1)",
                    "patch": {"rules": {"deck": {name: n - 1}}},
                }
            )
    return out


def report_variants(config: Any) -> list[dict[str, Any]]:
    """Variants a report always sets beside the config: none; the Raven's win rate per deck and
    player count is the config's own headline (``report.headline``)."""
    return []
