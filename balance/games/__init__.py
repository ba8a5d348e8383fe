"""Registry of games: name -> plugin module (see base.GamePlugin)."""

from __future__ import annotations

import importlib
from typing import Any

# name -> module path; modules are imported lazily so that `balance --help` stays fast.
_GAMES = {
    "five_ravens": "balance.games.five_ravens",
    "raven_order": "balance.games.raven_order",
    "raven_manor": "balance.games.raven_manor",
    "corvids": "balance.games.corvids",
}


def names() -> list[str]:
    return list(_GAMES)


def get(name: str) -> Any:
    """The plugin for ``name``; KeyError if unknown."""
    return importlib.import_module(_GAMES[name]).PLUGIN
