"""Writing a test's config files: one kit instead of a helper per test file.

:func:`write` writes YAML a test spells out; :func:`write_config` writes one from keys. A config
is written as flow-style YAML lines, a key a line in the order given, each value as the
test gives it: a list becomes ``[a, b]``, a dict ``{k: v}`` (nested as well), anything else its
text, so a string is written as is and can be a YAML snippet (``rules="{bonus: 2}"``).
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any


def flow(value: Any) -> str:
    """``value`` as flow-style YAML text (see the module's docstring)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    return str(value)


def config_text(game: str | None = None, **keys: Any) -> str:
    """The YAML of a config: ``game:`` first (when given), then ``keys`` in order; a key whose
    value is None is left out."""
    lines = [] if game is None else [f"game: {game}"]
    lines += [f"{k}: {flow(v)}" for k, v in keys.items() if v is not None]
    return "\n".join(lines) + "\n"


def write_config(path: Path, game: str | None = None, **keys: Any) -> Path:
    """Write :func:`config_text` to ``path`` (its folder made if missing); returns ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(config_text(game, **keys))
    return path


def write(folder: Path, name: str, text: str) -> Path:
    """Write ``text``, dedented, to ``folder / name`` (its folder made if missing); returns the
    path: a config (or a spec, a variants file) that a test spells out as YAML."""
    path = Path(folder) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path
