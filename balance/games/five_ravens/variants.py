"""Five Ravens' default variants for ``balance impact``: one small change per card.

``impact_variants(config)`` returns ``[{name, description, patch}]``; each patch is merged into
the resolved config (mappings merge, scalars replace) and played on the same seeds as the config
(balance/experiments.py). One variant per:

- relic type: one copy fewer (FR-2), when the deck keeps enough relics for the FR-3 removal;
- chest: value - 1 (FR-13), for chests worth at least 1;
- Raven: its action off (FR-8), and its capture effect off (FR-8, FR-10, FR-11, FR-13), for the
  switches that are on.
"""

from __future__ import annotations

from typing import Any

from balance.games.five_ravens.schema import RAVEN_NAMES

_DIGITS = dict(zip(RAVEN_NAMES, range(1, 10), strict=True))


def impact_variants(config: Any) -> list[dict[str, Any]]:
    """The default variants of a validated Five Ravens ``RunConfig``."""
    rules = config.rules
    total = rules.total_relics()
    removed = rules.removed_relics.get(config.players, 0)
    out: list[dict[str, Any]] = []
    for name, relic in rules.relics.items():
        # The deck must keep at least one relic beyond those FR-3 removes unseen.
        if relic.count >= 1 and total - 1 > removed:
            out.append(
                {
                    "name": f"{name} -1 copy",
                    "description": f"one {name} fewer in the relic deck ({relic.count} -> "
                    f"{relic.count - 1}; FR-2)",
                    "patch": {"rules": {"relics": {name: {"count": relic.count - 1}}}},
                }
            )
    for name, relic in rules.relics.items():
        if relic.kind == "chest" and relic.count >= 1 and relic.value >= 1:
            out.append(
                {
                    "name": f"{name} value -1",
                    "description": f"{name} worth {relic.value - 1} instead of {relic.value} "
                    "(FR-13)",
                    "patch": {"rules": {"relics": {name: {"value": relic.value - 1}}}},
                }
            )
    for raven in RAVEN_NAMES:
        switch = getattr(rules.ravens, raven)
        digit = _DIGITS[raven]
        if switch.action:
            out.append(
                {
                    "name": f"{raven} action off",
                    "description": f"the {digit}'s action does nothing (FR-8)",
                    "patch": {"rules": {"ravens": {raven: {"action": False}}}},
                }
            )
        if switch.capture:
            out.append(
                {
                    "name": f"{raven} capture off",
                    "description": f"a captured {digit} has no effect",
                    "patch": {"rules": {"ravens": {raven: {"capture": False}}}},
                }
            )
    return out


def report_variants(config: Any) -> list[dict[str, Any]]:
    """Variants a report always sets beside the config: none (every Five Ravens rule is in
    ``balance impact``, and none is asked about by default)."""
    return []
