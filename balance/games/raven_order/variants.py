"""The Raven Order's default variants for ``balance impact``: one small change per card.

``impact_variants(config)`` returns ``[{name, description, patch}]``; each patch is merged into
the resolved config and played on the same seeds (balance/experiments.py). One variant per rune in
the mix: every copy of it removed (RO-1); and, when the second player has a compensation, the
second player's sentries removed (RO-1).
"""

from __future__ import annotations

from typing import Any

from balance.games.raven_order.schema import RUNE_NAMES


def impact_variants(config: Any) -> list[dict[str, Any]]:
    """The default variants of a validated Raven Order ``RunConfig``."""
    rules = config.rules
    out: list[dict[str, Any]] = []
    for name in RUNE_NAMES:
        count = rules.runes[name].count
        if count >= 1:
            copies = "its copy" if count == 1 else f"its {count} copies"
            out.append(
                {
                    "name": f"{name} removed",
                    "description": f"{name} taken out of the rune deck ({copies}; RO-1)",
                    "patch": {"rules": {"runes": {name: {"count": 0}}}},
                }
            )
    if rules.compensation.sentries > 0:
        out.append(
            {
                "name": "no second-player sentry",
                "description": f"the second player starts without its "
                f"{rules.compensation.sentries} sentr{'y' if rules.compensation.sentries == 1 else 'ies'} "
                "(RO-1 compensation)",
                "patch": {"rules": {"compensation": {"sentries": 0}}},
            }
        )
    return out


def report_variants(config: Any) -> list[dict[str, Any]]:
    """The second player's compensation (RO-1) is the rule a Raven Order report always answers
    for: the first player's edge with and without it. A config without compensation is set beside
    the rulebook's one sentry instead."""
    comp = config.rules.compensation
    if comp.sentries or comp.workers or comp.gold:
        return [
            {
                "name": "no compensation",
                "description": "the second player starts with nothing extra (no sentry; RO-1)",
                "patch": {"rules": {"compensation": {"sentries": 0, "workers": 0, "gold": 0}}},
            }
        ]
    return [
        {
            "name": "rulebook compensation",
            "description": "the second player starts with 1 sentry (RO-1)",
            "patch": {"rules": {"compensation": {"sentries": 1}}},
        }
    ]
