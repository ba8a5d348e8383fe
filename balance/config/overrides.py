"""``--set KEY=VALUE``: change one value of a config from the command line, as if the file said it.

An override is a dotted key path and a YAML value::

    players=3                              # ("players",) -> 3
    rules.relics.gem.count=3               # ("rules", "relics", "gem", "count") -> 3
    seats[1]=random                        # ("seats", 1) -> "random"
    policies.greedy.action_threshold=0.5   # -> 0.5
    seats=[greedy, random]                 # a flow list (or a flow mapping: seats={rest: greedy})

The key ends at the first ``=``; everything after it is the value, read as one YAML value
(``3`` an int, ``0.5`` a float, ``true`` a bool, ``greedy`` a string, ``'3'`` the string "3",
``null`` a null). Spaces around the key and the value are dropped; an empty value is an error
(``players=`` is more likely an unset shell variable than a wish for null).

:func:`apply_overrides` writes each override into the merged YAML of a config (after
``extends``), in order, so a later one wins; :func:`balance.config.load_config` then validates the
result exactly like a file, and an error caused by an override names it where a file name would
be: ``--set players=99: players: five_ravens is for 2-4 players, got 99``; also when the key at
fault is one the file wrote, which the override made wrong: ``--set game=raven_order:
rules.rounds: unknown key (...) (rules.rounds set in base.yaml)``. ``sweep`` and ``tune``
build their overrides with :func:`override` and their own ``source`` (``--over``, ``--param``).

Mappings on the way are created when missing (``policies.cautious.kind=greedy`` adds a policy); a
list index must exist (``seats[4]`` with four seats is an error, so is a key or index through a
number or a string). ``seats`` and ``teams`` written as one name or a rule (``seats: greedy``,
``seats: {cycle: [greedy, random]}``) are first resolved to their list at the config's player
count, so that ``seats[1]=random`` changes one seat of any line-up.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

import yaml

from balance.config.lineup import LINEUP_KEYS, resolve_lineup
from balance.config.loading import Provenance, _forget, _Loader, _record
from balance.config.oneline import KeyPath, _error, _key_text, _show
from balance.errors import ConfigError


class Override(NamedTuple):
    """One ``KEY=VALUE`` of a command line, parsed."""

    text: str  # as the user wrote it (stripped), e.g. "rules.relics.gem.count=3"
    key: str  # "rules.relics.gem.count"
    path: tuple[str | int, ...]  # ("rules", "relics", "gem", "count"); "seats[1]" -> ("seats", 1)
    value: Any  # the YAML value: int, float, bool, str, None, or a flow list / mapping
    source: str  # the option it came from: "--set" (sweep: "--over", tune: "--param")

    @property
    def label(self) -> str:
        """Where the override came from, as config errors name a file: ``--set players=3``."""
        return f"{self.source} {self.text}"


# A key segment is a name (no dots, brackets, '=' or spaces) followed by any number of [index].
_NAME = r"[^\s.\[\]=]+"
_KEY = re.compile(rf"{_NAME}(?:\[\d+\])*(?:\.{_NAME}(?:\[\d+\])*)*")
_PART = re.compile(rf"\.?({_NAME})|\[(\d+)\]")
_SPACE = " \t\r\n"  # what YAML calls white space (a no-break space is part of a value)
_EXAMPLE = "e.g. players=3, rules.relics.gem.count=3 or seats[1]=random"


def _syntax(text: str, source: str, problem: str) -> ConfigError:
    return _error(f"{source} {text}", problem)


def _parse_key(key: str, text: str, source: str) -> tuple[str | int, ...]:
    if not key:
        raise _syntax(text, source, f"no key before '=' ({_EXAMPLE})")
    if not _KEY.fullmatch(key):
        bad = next((c for c in key if c.isspace() or c in "=[]"), None)
        why = (
            "a key path is names joined by '.', with [N] after a name for a list item"
            if bad is None or bad in "[]" or "." in key
            else f"a key may not hold {bad!r}"
        )
        raise _syntax(text, source, f"bad key {key!r}: {why} ({_EXAMPLE})")
    return tuple(int(i) if i else name for name, i in _PART.findall(key))


def _parse_value(raw: str, text: str, source: str) -> Any:
    if not raw:
        raise _syntax(text, source, "no value after '=' (write null for a null)")
    try:
        return yaml.load(raw, Loader=_Loader)
    except yaml.MarkedYAMLError as e:
        raise _syntax(
            text, source, f"invalid YAML value: {e.problem or e.context} (quote a string: 'a: b')"
        ) from None
    except yaml.YAMLError as e:  # pragma: no cover - PyYAML raises marked errors for text
        raise _syntax(text, source, f"invalid YAML value: {e}") from None


def parse_override(text: str, *, source: str = "--set") -> Override:
    """``KEY=VALUE`` as an :class:`Override`; bad syntax raises a one-line ConfigError."""
    text = text.strip(_SPACE)
    if "=" not in text:
        raise _syntax(text, source, f"expected KEY=VALUE ({_EXAMPLE})")
    key, raw = (part.strip(_SPACE) for part in text.split("=", 1))
    path = _parse_key(key, text, source)
    return Override(f"{key}={raw}", key, path, _parse_value(raw, text, source), source)


def _yaml_text(value: Any) -> str:
    """``value`` as one line of YAML that reads back as the same value."""
    if value is None:
        return "null"
    text = yaml.safe_dump(value, default_flow_style=True, width=float("inf"), allow_unicode=True)
    return text.removesuffix("\n").removesuffix("\n...")


def override(key: str, value: Any, *, source: str) -> Override:
    """The override that sets ``key`` (a dotted path as in ``--set``) to an already typed
    ``value``; its ``text`` is ``KEY=VALUE`` with the value as YAML, so that it reads back the
    same (``parse_override(o.text)`` gives ``o``'s key, path and value)."""
    key = key.strip(_SPACE)
    if type(value).__module__ == "numpy" and hasattr(value, "item"):  # np.int64 is not an int
        value = value.item()
    text = f"{key}={_yaml_text(value)}"
    return Override(text, key, _parse_key(key, text, source), value, source)


def parse_overrides(texts: Sequence[str] | None, *, source: str = "--set") -> list[Override]:
    """Every ``KEY=VALUE`` of a repeated option, parsed (the first bad one raises)."""
    return [parse_override(t, source=source) for t in texts or ()]


# ------------------------------------------------------------------------------------- applying


def _shown_path(path: Sequence[str | int]) -> str:
    """The start of an override's key path as the user wrote it."""
    return "".join(
        f"[{p}]" if isinstance(p, int) else f".{p}" if i else p for i, p in enumerate(path)
    )


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    return _show(value)


def _players_after(data: dict, overrides: Sequence[Override]) -> Any:
    """The player count once every override applies (a rule of seats resolves at it)."""
    players = data.get("players")
    for o in overrides:
        if o.path == ("players",):
            players = o.value
    return players


_MAX_SEATS = 10_000  # a player count a line-up is resolved at (validation then checks the game's)


def _lineup_list(data: dict, key: str, o: Override, players: Any, prov: Provenance | None) -> list:
    """``data[key]`` (seats or teams) as its list, resolved from one name or a rule at
    ``players``, so that an index into it means a seat."""
    written = data.get(key)
    if isinstance(written, list):
        return written
    if written is None:
        raise _error(o.label, f"{key} is not set, so it has no item [{o.path[1]}]", key=o.key)
    if type(players) is not int or not 1 <= players <= _MAX_SEATS:
        raise _error(
            o.label,
            f"{key} is {_kind(written)}: it becomes a list only with a number of players, "
            f"and players is {_show(players)}",
            key=o.key,
        )
    try:
        resolved = resolve_lineup(written, players, key=key)
    except ValueError as e:
        raise _error(o.label, str(e).split(": ", 1)[-1], key=str(e).split(": ", 1)[0]) from None
    if prov is not None:
        where = prov.get((key,))
        _forget(written, (key,), prov)
        if where is not None:
            _record(resolved, (key,), where, prov)
    return resolved


def _apply_one(data: dict, o: Override, players: Any, prov: Provenance | None) -> None:
    if o.path[0] == "extends":  # read with the files, before any override applies
        raise _error(o.label, "only a config file may extend another; write it there", key=o.key)
    node: Any = data
    here: KeyPath = ()  # the keys as the data holds them, down to the container being indexed
    for depth, seg in enumerate(o.path):
        if isinstance(seg, int):
            if depth == 1 and o.path[0] in LINEUP_KEYS and not isinstance(node, list):
                node = data[o.path[0]] = _lineup_list(data, o.path[0], o, players, prov)
            if not isinstance(node, list):
                raise _error(
                    o.label,
                    f"{_shown_path(o.path[:depth])} is {_kind(node)}, not a list: it has no "
                    f"item [{seg}]",
                    key=o.key,
                )
            if seg >= len(node):
                items = f"items 0-{len(node) - 1}" if node else "no items"
                raise _error(
                    o.label,
                    f"{_shown_path(o.path[:depth])} has {items}, so [{seg}] does not exist",
                    key=o.key,
                )
            key: Any = seg
        else:
            if node is None and here:  # `policies:` with nothing after it is an empty mapping
                node = {}
                _set(data, here, node)
            if not isinstance(node, dict):
                what = _shown_path(o.path[:depth])
                hint = f"; write {what}[N] for an item" if isinstance(node, list) else ""
                raise _error(
                    o.label,
                    f"{what} is {_kind(node)}, not a mapping: it has no key {seg!r}{hint}",
                    key=o.key,
                )
            # a key YAML read as a number or a bool (`2: 8` under removed_relics) matches its text
            key = seg if seg in node else next((k for k in node if _key_text(k) == seg), seg)
            index = o.path[depth + 1] if depth + 1 < len(o.path) else None
            if isinstance(index, int) and key not in node:  # a new mapping would have no items
                raise _error(
                    o.label,
                    f"{_shown_path(o.path[: depth + 1])} is not set, so it has no item [{index}]",
                    key=o.key,
                )
        if depth == len(o.path) - 1:
            if prov is not None and key in _keys(node):
                _forget(node[key], (*here, key), prov)
            node[key] = copy.deepcopy(o.value)
            if prov is not None:
                _record(o.value, (*here, key), o.label, prov)
            return
        if key not in _keys(node):
            node[key] = {}
            if prov is not None:
                prov[(*here, key)] = o.label
        node = node[key]
        here = (*here, key)


def _keys(node: Any) -> Any:
    return range(len(node)) if isinstance(node, list) else node


def _set(data: dict, path: KeyPath, value: Any) -> None:
    node: Any = data
    for seg in path[:-1]:
        node = node[seg]
    node[path[-1]] = value


def apply_to(
    data: dict, overrides: Sequence[Override], provenance: Provenance | None = None
) -> dict:
    """:func:`apply_overrides`, also recording each override as the source of the key paths it
    wrote in ``provenance`` (updated in place; its ``files`` get each override's label first, as
    the nearest source), so that validation errors name the override. A :class:`Provenance`
    also keeps ``data`` and itself as they were, and the overrides, so that an error in a key a
    file wrote can be traced to the override that caused it (``--set game=raven_order``)."""
    if isinstance(provenance, Provenance) and overrides:
        if provenance.before is None:
            provenance.before = (data, provenance.copy())
        provenance.overrides = (*provenance.overrides, *overrides)
    out = copy.deepcopy(data)
    players = _players_after(data, overrides)
    for o in overrides:
        _apply_one(out, o, players, provenance)
    if provenance is not None:
        provenance.files[:0] = [o.label for o in reversed(overrides)]
    return out


def apply_overrides(data: dict, overrides: Sequence[Override]) -> dict:
    """``data`` (a config's merged YAML) with each override written in, in order: a new dict,
    ``data`` untouched. A path that cannot be written (through a number, past a list's end)
    raises a one-line ConfigError naming the override."""
    return apply_to(data, overrides)
