"""How a config problem is written: one line, ``<file>: <key.path>: <problem>``.

Values and keys are shown as a designer wrote them in YAML (``null``, ``true``, ``'greedy'``),
every character printable.

Every module of balance/config/ builds its :class:`ConfigError` with :func:`_error`.
"""

from __future__ import annotations

from typing import Any

from balance.errors import ConfigError

KeyPath = tuple  # mapping keys as written in YAML, list indices as int


def _printable(text: str) -> str:
    """``text`` with every character that is not printable (a line break, a tab, a control
    character, a lone surrogate from a ``"\\ud800"`` escape) written as its escape, so that a
    message is one line that any terminal can print."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _error(file: str, problem: str, key: str | None = None) -> ConfigError:
    problem = _printable(" ".join(str(problem).splitlines()))
    file = _printable(str(file))
    key = _printable(key) if key else key
    message = f"{file}: {key}: {problem}" if key else f"{file}: {problem}"
    return ConfigError(message, file=file, key=key, problem=problem)


def _show(value: Any) -> str:
    """A value as a designer wrote it in YAML, short."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:37] + "...")
    if isinstance(value, int) and abs(value) >= 10**40:
        return f"a {len(str(abs(value)))}-digit integer"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"a {type(value).__name__}"


def _key_text(key: Any) -> str:
    """A mapping key as YAML writes it (``true``, ``null``), not as Python prints it."""
    return _show(key) if key is None or isinstance(key, bool) else str(key)
