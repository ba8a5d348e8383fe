"""Corvids' default variants for ``balance impact``: one small change per scoring rule (issue 16).

``impact_variants(config)`` returns ``[{name, description, patch}]``; each patch is merged into the
resolved config and played on the same seeds (balance/experiments). One variant per:

- item the deck can hold: its value - 1 (CV-3), for values of at least 1; a face-down coin too;
- set bonus: off (CV-3: the set written null is taken out);
- bird: its bonus off (CV-3, CV-10), for birds with a bonus.
"""

from __future__ import annotations

from typing import Any

from balance.games.corvids.schema import DOUBLE_ITEMS, ITEM_NAMES, SINGLE_ITEMS


def _a(name: str) -> str:
    """The article of an item's name: "an acorn", "a key"."""
    return "an" if name[0] in "aeiou" else "a"


def _in_deck(rules: Any) -> set[str]:
    items = set(rules.cards.double_sided.items) if rules.cards.double_sided.count else set()
    return items | {i for i in SINGLE_ITEMS if getattr(rules.cards.single_sided, i) > 0}


def impact_variants(config: Any) -> list[dict[str, Any]]:
    """The default variants of a validated Corvids ``RunConfig``."""
    rules = config.rules
    scoring = rules.scoring
    deck = _in_deck(rules)
    out: list[dict[str, Any]] = []
    for name in ITEM_NAMES:
        v = getattr(scoring.values, name)
        if name in deck and v >= 1:
            side = "up side" if name in DOUBLE_ITEMS else ("face up" if name == "coin" else "")
            out.append(
                {
                    "name": f"{name} value -1",
                    "description": f"{_a(name)} {name}{' (' + side + ')' if side else ''} "
                    f"worth {v - 1} instead of {v} (CV-3)",
                    "patch": {"rules": {"scoring": {"values": {name: v - 1}}}},
                }
            )
    if "coin" in deck and scoring.coin_face_down >= 1:
        v = scoring.coin_face_down
        out.append(
            {
                "name": "face-down coin value -1",
                "description": f"a coin collected face down worth {v - 1} instead of {v} (CV-3)",
                "patch": {"rules": {"scoring": {"coin_face_down": v - 1}}},
            }
        )
    for name, bonus in scoring.sets.items():
        out.append(
            {
                "name": f"{name} set off",
                "description": f"no set bonus for {name}s ({bonus.size} for {bonus.points} "
                "taken out; CV-3)",
                "patch": {"rules": {"scoring": {"sets": {name: None}}}},
            }
        )
    for name, bird in rules.birds.items():
        if bird.bonus_per_card != 0:
            out.append(
                {
                    "name": f"{name} bonus off",
                    "description": f"the {name}'s bonus for {bird.favourite}s off "
                    f"({bird.bonus_per_card} a card -> 0; CV-3, CV-10)",
                    "patch": {"rules": {"birds": {name: {"bonus_per_card": 0}}}},
                }
            )
    return out


def report_variants(config: Any) -> list[dict[str, Any]]:
    """Variants a report always sets beside the config: none (the impact variants already turn
    every scoring rule off or down)."""
    return []
