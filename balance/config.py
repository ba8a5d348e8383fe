"""Run configs: YAML loading with ``extends``, validation, and one-line error messages.

A run config is a YAML mapping (DESIGN.md, Config)::

    extends: base.yaml        # optional; path relative to this file; chains allowed
    game: five_ravens         # a registered game (balance.games.names())
    players: 4
    seats: [greedy, random, greedy, random]   # or one name for every seat, or a rule
    teams: [a, b, a, b]       # optional, default one team per seat; a list or a rule too
    games: 100000
    seed: 1
    rules: {...}              # validated by the game's rules_model
    policies: {...}           # merged over the game's default_policies

``extends`` merges mappings key by key; lists and scalars replace. ``seats:`` and ``teams:`` may
be one name for every seat or a rule resolved at the player count (``{cycle: [a, b]}``,
``{first: a, rest: b}``, ``{0: a, last: c, rest: b}``; see ``LINEUP_RULES``): the model holds
the resolved lists and remembers the rule (``RunConfig.lineup_rules``). ``load_config``'s
``overrides`` (``--set KEY=VALUE``, balance/overrides.py) are written into the merged YAML before
validation; in an error they cause, the override stands where a file name would.

Every problem raises :class:`ConfigError` whose message is one line,
``<file>: <key.path>: <problem>`` (or ``<file>: <problem>`` when no key is at fault), naming the
file where the offending key was written.

Game schemas report cross-field problems by raising ``ValueError("<key.path>: <problem>")`` from a
model validator, with the key path relative to that model (``thief_relics[0]: ...``); this module
prefixes the model's own path (``rules.thief_relics[0]: ...``). Keys that are each fine but
disagree raise :class:`balance.errors.KeyConflict` with a problem per key: when a config and its
parent wrote them, the message is about the key written nearest the file the user gave, in that
file, and names where the others were set (``three.yaml: players: 3 does not match the 4 seats
(seats set in base.yaml)``). A check that needs both the line-up and the rules (Raven Manor: a
character for every player) is the plugin's ``check_config(config)``, called with the validated
RunConfig; it raises the same way, with key paths from the top (``rules.deck``, ``players``).

Bad input never hangs or crashes the loader: a file is at most ``MAX_BYTES``; its document, with
every alias expanded, at most ``MAX_VALUES`` values nested ``MAX_DEPTH`` deep (an alias bomb
stops at the alias that crosses the bound, in microseconds); an alias inside the value it names,
an integer of more than 4300 digits, a tag PyYAML cannot read (``!!float ""``) and a lone
surrogate escape are one-line "invalid YAML" errors; ``extends`` chains hold at most
``MAX_EXTENDS`` files. Everything after loading (merging, validation, hashing) is linear in that.
Only regular files are read (after symlinks): a FIFO, a device or a directory is refused before
it is opened. An ``extends:`` to something that is no YAML config (missing, a directory, a
device, binary, not a mapping) is the error of the file that extends, at its ``extends`` key,
naming the target without quoting any of it.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import os
import re
import stat
import types
from collections.abc import Sequence
from typing import Annotated, Any, Union, get_args, get_origin

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializeAsAny,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from balance import games as registry
from balance.errors import ConfigError, KeyConflict  # ConfigError lived here: still importable
from balance.headline import ReportSettings

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


# ---------------------------------------------------------------------------------------- YAML


# Bounds on one YAML file, far above any real config (the largest shipped one is 4 kB and 401
# values, nested 6 deep) and low enough that a bad file fails in a second or so instead of
# hanging: an alias copies what it names, so nested anchors can make a few lines mean billions of
# values ("billion laughs"), and every later step (merging, validation, hashing) walks them all.
# PyYAML reads 50-200 kB/s of dense YAML on a slow machine: hence the bound on the text as well.
MAX_BYTES = 64 << 10  # 64 KiB
MAX_VALUES = 100_000  # scalars, lists and mappings, counting every copy an alias makes
MAX_DEPTH = 64  # lists and mappings inside each other, aliases expanded
MAX_INT_DIGITS = 4300  # Python's own limit for reading an int from text
MAX_EXTENDS = 32  # files in one extends chain


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return node.value
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


class _Loader(yaml.SafeLoader):
    """SafeLoader that rejects a key written twice in one mapping (PyYAML silently keeps the last,
    which hides a designer's edit), an alias inside the collection it names (a recursive value),
    and a document larger or deeper than ``MAX_VALUES`` and ``MAX_DEPTH`` once its aliases are
    expanded, counted while composing: a bad file stops at the alias that crosses the bound."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._values = 0  # values composed so far, every alias's copy included
        self._depth = 0  # nesting of the node being composed
        self._open: set[str] = set()  # anchors of the collections being composed
        self._sizes: dict[int, tuple[int, int]] = {}  # id(node) -> (values, depth) expanded
        self._flattened: set[int] = set()

    def _measure(self, root: yaml.Node) -> tuple[int, int]:
        """Values and depth of ``root`` with its aliases expanded (iteratively: the expanded
        depth is not bounded yet; shared nodes are measured once)."""
        sizes = self._sizes
        stack = [(root, False)]
        while stack:
            node, ready = stack.pop()
            if id(node) in sizes:
                continue
            kids = _children(node)
            if ready:
                sizes[id(node)] = (
                    1 + sum(sizes[id(k)][0] for k in kids),
                    1 + max((sizes[id(k)][1] for k in kids), default=0),
                )
            else:
                stack.append((node, True))
                stack.extend((k, False) for k in kids if id(k) not in sizes)
        return sizes[id(root)]

    def _count(self, values: int, depth: int, mark: Any, alias: str | None = None) -> None:
        """Add a value (or an alias's copy, ``values`` of them ``depth`` deep) at this place."""
        self._values += values
        what = f"alias *{alias} makes the document" if alias else "the document is"
        if self._values > MAX_VALUES:
            raise yaml.composer.ComposerError(
                None,
                None,
                f"{what} more than {MAX_VALUES:,} values (a config needs far fewer)",
                mark,
            )
        if self._depth + depth > MAX_DEPTH:
            raise yaml.composer.ComposerError(
                None, None, f"{what} nested more than {MAX_DEPTH} levels deep", mark
            )

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            if event.anchor in self._open:
                raise yaml.composer.ComposerError(
                    None,
                    None,
                    f"alias *{event.anchor} is inside the value it names (a recursive value)",
                    event.start_mark,
                )
            node = super().compose_node(parent, index)
            self._count(*self._measure(node), event.start_mark, alias=event.anchor)
            return node
        self._count(1, 1, event.start_mark)
        self._depth += 1
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            self._open.add(anchor)
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1
            self._open.discard(anchor)

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, IndexError, KeyError, AttributeError, OverflowError):
            # PyYAML's constructors crash on a tag they cannot read: `!!float ""`, `!!int x`,
            # `!!timestamp 2001-13-45`, `!!bool maybe`
            tag = node.tag.replace("tag:yaml.org,2002:", "!!")
            what = _show(node.value) if isinstance(node, yaml.ScalarNode) else "this value"
            raise yaml.constructor.ConstructorError(
                None, None, f"{what} is not a valid {tag}", node.start_mark
            ) from None

    def construct_scalar(self, node: yaml.ScalarNode) -> Any:
        value = super().construct_scalar(node)
        if isinstance(value, str) and not value.isprintable():
            bad = next((c for c in value if 0xD800 <= ord(c) <= 0xDFFF), None)
            if bad is not None:  # from an escape such as "\ud800"; no file or terminal takes it
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"{repr(bad)[1:-1]} is not a character (a UTF-16 surrogate); write the"
                    " character itself or \\U and its code point",
                    node.start_mark,
                )
        return value

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        if len(node.value) > MAX_INT_DIGITS:
            raise yaml.constructor.ConstructorError(
                None, None, f"an integer of more than {MAX_INT_DIGITS} digits", node.start_mark
            )
        value = super().construct_yaml_int(node)
        if abs(value) >= 10**MAX_INT_DIGITS:  # 0x..., 0b... or 1:2:3 reach it with fewer
            raise yaml.constructor.ConstructorError(
                None, None, f"an integer of more than {MAX_INT_DIGITS} digits", node.start_mark
            )
        return value

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        # Before PyYAML copies the pairs of merged mappings (`<<: *base`) into this one, where a
        # key the mapping overrides would look written twice. A merged mapping is flattened
        # (and checked) here too, before the mapping that merges it is checked.
        if id(node) not in self._flattened:
            self._flattened.add(id(node))
            seen = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                except TypeError:  # unhashable; the base class reports it
                    continue
                if duplicate:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {_show(key)}", key_node.start_mark
                    )
                seen.add(key)
        super().flatten_mapping(node)
        # Keep each key's last pair: a mapping's own keys come after the ones it merges, and
        # YAML's merge lets them win. PyYAML 6.0.4 keeps the *first* of equal keys when it merges
        # a mapping that was flattened already (`top: {<<: *mid}` with `mid: {<<: *base, a: 2}`
        # would read mid's a from base); 6.0.3 kept both, and the last won.
        last: dict[Any, int] = {}
        for i, (key_node, _) in enumerate(node.value):
            key = (key_node.tag, key_node.value) if isinstance(key_node, yaml.ScalarNode) else i
            last[key] = i
        if len(last) < len(node.value):
            keep = sorted(last.values())
            node.value = [node.value[i] for i in keep]


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)


class _NotAFile(Exception):
    """The path names something other than a regular file; ``args[0]`` says what."""


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
# Opened without blocking (a FIFO put in place between the stat and the open would otherwise
# wait for a writer), never as a controlling terminal, and not inherited by a child process.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


def _check_regular(mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise _NotAFile(next((what for test, what in _KINDS if test(mode)), "not a regular file"))


def _read_text(open_path: str) -> str:
    """The first ``MAX_BYTES + 1`` characters of the regular file at ``open_path``.

    Anything else is refused before it is opened (``stat`` follows symlinks): reading a FIFO
    waits for a writer that may never come, a device never ends or answers only once. The file
    is then opened without blocking and checked again, in case the path changed in between."""
    _check_regular(os.stat(open_path).st_mode)
    fd = os.open(open_path, _OPEN_FLAGS | getattr(os, "O_CLOEXEC", 0))
    try:
        _check_regular(os.fstat(fd).st_mode)
        with open(fd, encoding="utf-8", closefd=False) as f:
            return f.read(MAX_BYTES + 1)
    finally:
        os.close(fd)


def _what(value: Any) -> str:
    """The kind of a YAML document's top level, without quoting any of it."""
    if value is None:
        return "an empty file"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string of text"
    return _show(value)  # a mapping, a list, or another type's name


def _read(open_path: str, shown: str, named_by: str | None, mapping: bool = True) -> Any:
    """The YAML document in ``open_path`` (shown as ``shown``), or a one-line ConfigError.

    When ``named_by`` (a config) extends ``shown``, an error that ``shown`` is no YAML config
    at all (missing, a directory, a device, binary, too large, text that is not YAML, not a
    mapping) is the error of ``named_by``'s ``extends`` key: that is the line to fix. It names
    ``shown`` but never quotes it (``extends: /etc/passwd`` must not print the password file).
    Only a file named ``*.yaml``/``*.yml`` with invalid YAML is blamed itself, at a line."""

    def refuse(problem: str, of_extends: str) -> ConfigError:
        # problem: said of a file given by its user; of_extends: said of an extends target
        if named_by is None:
            return _error(shown, problem)
        return _error(named_by, of_extends, key="extends")

    try:
        text = _read_text(open_path)
    except FileNotFoundError:
        raise refuse("file not found", f"file not found: {shown}") from None
    except _NotAFile as e:
        what = e.args[0]
        raise refuse(f"is {what}, not a YAML file", f"{shown} is {what}, not a YAML file") from None
    except UnicodeDecodeError as e:
        raise refuse(
            f"not UTF-8 text (byte {e.start})",
            f"{shown} is not UTF-8 text (byte {e.start}), so not a YAML config",
        ) from None
    except OSError as e:
        why = e.strerror or e
        raise refuse(f"cannot read: {why}", f"cannot read {shown}: {why}") from None
    except ValueError as e:  # a NUL byte in the name
        raise refuse(f"cannot read: {e}", f"cannot read {shown}: {e}") from None
    if len(text) > MAX_BYTES:
        limit = f"larger than {MAX_BYTES >> 10} KiB; a config is a few kB"
        raise refuse(limit, f"{shown} is {limit}")
    try:
        data = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as e:
        mark = e.problem_mark or e.context_mark if isinstance(e, yaml.MarkedYAMLError) else None
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        if named_by is not None and not shown.endswith((".yaml", ".yml")):
            raise refuse("", f"{shown} is not a YAML config (invalid YAML{where})") from None
        if isinstance(e, yaml.MarkedYAMLError):
            raise _error(shown, f"invalid YAML{where}: {e.problem or e.context}") from None
        raise _error(shown, f"invalid YAML: {e}") from None
    if mapping and not isinstance(data, dict):
        if named_by is not None:
            raise refuse(
                "", f"{shown} is not a config: its top level must be a mapping, got {_what(data)}"
            )
        got = "an empty file" if data is None else _show(data)
        raise _error(shown, f"top level must be a mapping, got {got}")
    return data


def read_yaml(path: str | os.PathLike) -> Any:
    """The YAML document in ``path`` as it is (any top level), with the config's one-line
    errors: file not found, not UTF-8, invalid YAML at line/column, a key written twice."""
    shown = os.fspath(path)
    return _read(shown, shown, None, mapping=False)


def _record(value: Any, path: KeyPath, file: str, prov: dict[KeyPath, str]) -> None:
    prov[path] = file
    if isinstance(value, dict):
        for k, v in value.items():
            _record(v, (*path, k), file, prov)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _record(v, (*path, i), file, prov)


def _forget(value: Any, path: KeyPath, prov: dict[KeyPath, str]) -> None:
    """Drop the provenance of ``value``, which is at ``path`` and is being replaced: the paths
    recorded under it are those of its own keys and items (a walk of it, not a scan of every path
    recorded, which made merging quadratic in the size of a config)."""
    prov.pop(path, None)
    if isinstance(value, dict):
        for k, v in value.items():
            _forget(v, (*path, k), prov)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _forget(v, (*path, i), prov)


def _merge(base: dict, over: dict, file: str, path: KeyPath, prov: dict[KeyPath, str]) -> dict:
    """``over`` on top of ``base``: mappings merge key by key, lists and scalars replace."""
    out = dict(base)
    for k, v in over.items():
        p = (*path, k)
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            prov[p] = file
            out[k] = _merge(out[k], v, file, p, prov)
        else:
            if k in out:
                _forget(out[k], p, prov)
            out[k] = v
            _record(v, p, file, prov)
    return out


class Provenance(dict):
    """Key path -> the file that set it (mapping keys as written, list indices as int), and
    ``files``: the files of the ``extends`` chain, the one the user gave first.

    Once overrides are written in (:func:`balance.overrides.apply_to`), ``overrides`` holds them
    and ``before`` the document and provenance they were applied to: an error in a key a file
    wrote may be the fault of an override of another key (``--set game=raven_order`` makes the
    file's ``rules.rounds`` unknown), and :func:`config_from_dict` finds which."""

    def __init__(self, *args: Any, files: list[str] | None = None) -> None:
        super().__init__(*args)
        self.files = files or []
        self.overrides: tuple[Any, ...] = ()
        self.before: tuple[dict, Provenance] | None = None

    def copy(self) -> Provenance:
        """A copy that the overrides of another attempt may change."""
        out = Provenance(self, files=list(self.files))
        out.overrides, out.before = self.overrides, self.before
        return out


def _load_chain(
    open_path: str, shown: str, chain: list[tuple[str, str]], named_by: str | None
) -> tuple[dict, Provenance]:
    try:
        real = os.path.realpath(open_path)
    except (OSError, ValueError) as e:  # a NUL byte in the name
        raise _error(shown, f"cannot read: {e}") from None
    seen = [r for r, _ in chain]
    if real in seen:
        cycle = [s for _, s in chain[seen.index(real) :]] + [shown]
        raise _error(str(named_by), "extends cycle: " + " -> ".join(cycle))
    if len(chain) >= MAX_EXTENDS:
        raise _error(str(named_by), f"a chain of more than {MAX_EXTENDS} files", key="extends")
    raw = _read(open_path, shown, named_by)
    base: dict = {}
    prov = Provenance()
    if "extends" in raw:
        parent = raw.pop("extends")
        if not isinstance(parent, str) or not parent.strip() or "\0" in parent:
            raise _error(shown, f"expected a file name, got {_show(parent)}", key="extends")
        base, prov = _load_chain(
            os.path.join(os.path.dirname(open_path), parent),
            os.path.normpath(os.path.join(os.path.dirname(shown), parent)),
            [*chain, (real, shown)],
            named_by=shown,
        )
    prov.files.insert(0, shown)
    return _merge(base, raw, shown, (), prov), prov


def load_yaml(path: str | os.PathLike) -> tuple[dict, Provenance]:
    """The mapping in ``path`` with its ``extends`` chain merged in, and the file that set each
    key path (:class:`Provenance`)."""
    shown = os.fspath(path)
    return _load_chain(shown, shown, [], None)


# ---------------------------------------------------------------------------------- the model

_POLICY_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


@functools.cache
def _policy_adapter(model: type[BaseModel]) -> TypeAdapter:
    # Validating {name: entry} puts the policy name in the error's key path.
    return TypeAdapter(dict[str, model])


def _resolve_policies(plugin: Any, given: Any) -> dict[str, dict[str, Any]]:
    """The game's default policies with the config's ``policies:`` merged over them."""
    if given is None:
        given = {}
    if not isinstance(given, dict):
        raise ValueError(f"expected a mapping, got {_show(given)}")
    kinds = ", ".join(plugin.policy_kinds)
    merged = {name: dict(entry) for name, entry in plugin.default_policies.items()}
    for name, entry in given.items():
        if not isinstance(name, str) or not _POLICY_NAME.fullmatch(name):
            raise ValueError(
                f"policy name {_show(name)} must start with a letter and hold only letters,"
                " digits, _ and -"
            )
        entry = {} if entry is None else entry
        if not isinstance(entry, dict):
            raise ValueError(f"{name}: expected a mapping, got {_show(entry)}")
        base = merged.get(name)
        if "kind" not in entry:
            if base is None:
                raise ValueError(f"{name}.kind: a new policy needs a kind (one of: {kinds})")
            entry = {**base, **entry}
        elif base is not None and entry["kind"] == base.get("kind"):
            entry = {**base, **entry}
        merged[name] = entry
    resolved = {}
    for name, entry in merged.items():
        kind = entry.get("kind")
        if not isinstance(kind, str) or kind not in plugin.policy_kinds:
            raise ValueError(f"{name}.kind: unknown policy kind {_show(kind)} (one of: {kinds})")
        model = plugin.policy_kinds[kind]
        resolved[name] = _policy_adapter(model).validate_python({name: entry})[name].model_dump()
    return resolved


# ------------------------------------------------------------------ line-ups of any player count

LINEUP_KEYS = ("seats", "teams")  # per-seat lists that may be written as one name or a rule
_RULE_FILLS = ("cycle", "rest")  # a rule has exactly one: what the seats it does not pin get
_RULE_PINS = ("first", "last")  # ... and may pin seats by these names or by seat number
LINEUP_RULES = (
    "one name for every seat, a list of one name per seat, or a rule: {cycle: [A, B]} (seat i "
    "gets item i mod its length) or {rest: A}, either with first: B, last: C or a seat number "
    "(0: B) for single seats"
)


def _lineup_problem(value: Any, what: str) -> tuple[str, str] | None:
    """What is wrong with a one-name or rule ``seats``/``teams`` (key path relative to it, and
    the problem), or None. Lists are validated by the model's own ``list[str]``."""
    if isinstance(value, str):
        return None
    if not isinstance(value, dict):
        return "", f"expected {LINEUP_RULES}; got {_show(value)}"
    if not value:
        return "", f"an empty rule: expected {LINEUP_RULES}"
    for key, name in value.items():
        shown = _key_text(key)
        if isinstance(key, bool) or not isinstance(key, int | str):
            return (
                "",
                f"bad key {shown} in a rule: expected cycle, rest, first, last or a seat number",
            )
        if isinstance(key, int):
            if key < 0:
                return shown, "seats are numbered from 0 (write last: for the last seat)"
        elif key not in (*_RULE_FILLS, *_RULE_PINS):
            close = difflib.get_close_matches(key, [*_RULE_FILLS, *_RULE_PINS], n=1, cutoff=0.6)
            hint = (
                f"did you mean '{close[0]}'?"
                if close
                else "expected cycle, rest, first, last or a seat number"
            )
            return shown, f"unknown key in a rule ({hint})"
        if key == "cycle":
            if not isinstance(name, list) or not name:
                return shown, f"expected a non-empty list of {what} names, got {_show(name)}"
            for i, item in enumerate(name):
                if not isinstance(item, str):
                    return f"{shown}[{i}]", f"expected a {what} name, got {_show(item)}"
        elif not isinstance(name, str):
            return shown, f"expected a {what} name, got {_show(name)}"
    fills = [k for k in _RULE_FILLS if k in value]
    if len(fills) != 1:
        why = "has both cycle and rest" if fills else "names no cycle or rest"
        return "", (
            f"a rule {why}: give exactly one, for the seats it does not pin (e.g. "
            "{first: random, rest: greedy})"
        )
    return None


def _lineup(written: Any, players: int, key: str) -> list[tuple[Any, str]]:
    """Each seat's name in a line-up of ``players`` seats written as ``written`` (one name, a
    list or a rule, already checked by :func:`_lineup_problem`), with the key path that named
    it. Raises ValueError("<key.path>: <problem>") or KeyConflict (a pinned seat the player
    count lacks), key paths from the top."""
    if isinstance(written, str):
        return [(written, key)] * players
    if isinstance(written, list):
        return [(name, f"{key}[{i}]") for i, name in enumerate(written)]
    if "cycle" in written:
        cycle = written["cycle"]
        out = [(cycle[i % len(cycle)], f"{key}.cycle[{i % len(cycle)}]") for i in range(players)]
    else:
        out = [(written["rest"], f"{key}.rest")] * players
    pinned: dict[int, str] = {}
    for k, name in written.items():
        if k in _RULE_FILLS:
            continue
        seat = 0 if k == "first" else players - 1 if k == "last" else k
        label = f"{key}.{k}"
        if seat >= players:
            raise KeyConflict(
                {
                    label: f"no seat {seat} with {players} players (seats 0-{players - 1})",
                    "players": f"{players} players have no seat {seat}",
                }
            )
        if seat in pinned:
            last = (
                f" (the last of {players})" if "last" in (k, pinned[seat].rsplit(".")[-1]) else ""
            )
            raise ValueError(f"{label}: seat {seat}{last} is also set by {pinned[seat]}")
        pinned[seat] = label
        out[seat] = (name, label)
    return out


def resolve_lineup(written: Any, players: int, *, key: str = "seats") -> list[str]:
    """The per-seat list that ``written`` (``seats:`` or ``teams:`` as a config writes it: one
    name, a list, or a rule, see ``LINEUP_RULES``) means with ``players`` players. Raises
    ValueError("<key.path>: <problem>") for a bad rule or one the player count cannot meet."""
    problem = _lineup_problem(written, "policy" if key == "seats" else "team")
    if isinstance(written, list):
        bad = next((i for i, v in enumerate(written) if not isinstance(v, str)), None)
        if bad is not None:
            raise ValueError(f"{key}[{bad}]: expected a string, got {_show(written[bad])}")
    elif problem is not None:
        where, what = problem
        raise ValueError(f"{key}.{where}: {what}" if where else f"{key}: {what}")
    return [name for name, _ in _lineup(written, players, key)]


def _lineup_field(value: Any, handler: ValidatorFunctionWrapHandler, what: str) -> Any:
    """A ``seats``/``teams`` value: a list as the model's type says, or one name or a rule, kept
    as written (checked here; resolved per player count by RunConfig._cross_check)."""
    if isinstance(value, list) or value is None:
        return handler(value)
    problem = _lineup_problem(value, what)
    if problem is not None:
        where, text = problem
        raise ValueError(f"{where}: {text}" if where else text)
    return value


class RunConfig(BaseModel):
    """A validated, fully resolved run config (see the module docstring).

    ``rules`` is an instance of the game's ``rules_model``; ``policies`` holds every policy the
    seats may name (the game's defaults plus the config's), as plain dicts with their ``kind``
    and every setting filled in; ``teams`` is filled in too (one team per seat by default).
    """

    model_config = ConfigDict(extra="forbid", strict=True)

    game: str = Field(description="game to play, one of `balance games`")
    players: int = Field(description="number of players, within the game's range")
    seats: list[str] = Field(
        description="policy name of each seat, in seat order; or one name for every seat, or "
        "a rule resolved per player count ({cycle: [a, b]}, {first: a, rest: b}, {0: a, rest: b})"
    )
    teams: list[str] | None = Field(
        None,
        description="team of each seat (a list, or a rule as for seats); by default every seat "
        "is its own team",
    )
    games: int = Field(100_000, gt=0, description="number of games to play")
    seed: int = Field(
        0, ge=0, lt=2**63, description="run seed; game i of seed s is always the same"
    )
    description: str = Field("", description="free text shown in reports")
    rules: SerializeAsAny[BaseModel] = Field(
        None, validate_default=True, description="the game's rules, validated by its rules_model"
    )
    policies: dict[str, dict[str, Any]] = Field(
        None, validate_default=True, description="policy name -> settings, including kind"
    )
    report: ReportSettings = Field(
        default_factory=ReportSettings,
        description="what reports lead with, declared before the games (changes no game)",
    )

    # Line-ups as written when they were not a list (one name or a rule), and the overrides that
    # made this config (``--set``): what a manifest records beside the resolved lists.
    _written_lineups: dict[str, Any] = PrivateAttr(default_factory=dict)
    _overrides: tuple[str, ...] = PrivateAttr(default=())

    @field_validator("seats", mode="wrap")
    @classmethod
    def _seats_written(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        return _lineup_field(value, handler, "policy")

    @field_validator("teams", mode="wrap")
    @classmethod
    def _teams_written(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        return _lineup_field(value, handler, "team")

    @property
    def lineup_rules(self) -> dict[str, Any]:
        """``seats``/``teams`` as the config wrote them, when that was one name or a rule (the
        model holds the resolved lists); {} when both were lists."""
        return dict(self._written_lineups)

    @property
    def overrides(self) -> tuple[str, ...]:
        """The ``KEY=VALUE`` overrides (``--set`` and the like) applied to the file, as written."""
        return self._overrides

    @field_validator("game")
    @classmethod
    def _registered(cls, game: str) -> str:
        if game not in registry.names():
            raise ValueError(f"unknown game {_show(game)} (one of: {', '.join(registry.names())})")
        return game

    @field_validator("rules", mode="plain")
    @classmethod
    def _game_rules(cls, rules: Any, info: ValidationInfo) -> Any:
        if "game" not in info.data:  # the game's own error is reported instead
            return rules
        model = registry.get(info.data["game"]).rules_model
        return model.model_validate({} if rules is None else rules)

    @field_validator("policies", mode="plain")
    @classmethod
    def _game_policies(cls, policies: Any, info: ValidationInfo) -> Any:
        if "game" not in info.data:
            return policies
        return _resolve_policies(registry.get(info.data["game"]), policies)

    @model_validator(mode="after")
    def _cross_check(self) -> RunConfig:
        plugin = registry.get(self.game)
        lo, hi = plugin.min_players, plugin.max_players
        if not lo <= self.players <= hi:
            raise KeyConflict(
                {
                    "players": f"{self.game} is for {lo}-{hi} players, got {self.players}",
                    "game": f"{self.game} is for {lo}-{hi} players, not {self.players}",
                }
            )
        sources = {}  # seat -> the key path that named its policy
        for key in LINEUP_KEYS:
            written = getattr(self, key)
            if written is None or isinstance(written, list):
                continue
            lineup = _lineup(written, self.players, key)
            self._written_lineups[key] = written
            setattr(self, key, [name for name, _ in lineup])
            if key == "seats":
                sources = {i: where for i, (_, where) in enumerate(lineup)}
        if len(self.seats) != self.players:
            raise KeyConflict(
                {
                    "seats": f"expected {self.players} seats (one per player),"
                    f" got {len(self.seats)}",
                    "players": f"{self.players} does not match the {len(self.seats)} seats",
                }
            )
        for i, name in enumerate(self.seats):
            if name not in self.policies:
                raise ValueError(
                    f"{sources.get(i, f'seats[{i}]')}: no policy named {_show(name)}"
                    f" (defined: {', '.join(self.policies)})"
                )
        if self.teams is None:
            self.teams = [str(seat) for seat in range(self.players)]
        elif len(self.teams) != self.players:
            raise KeyConflict(
                {
                    "teams": f"expected {self.players} teams (one per seat), got {len(self.teams)}",
                    "players": f"{self.players} does not match the {len(self.teams)} teams",
                }
            )
        self._check_headline(plugin)
        # The game's own checks of keys that need both the line-up and the rules (Raven Manor:
        # a character for every player, a deck large enough to deal). It raises KeyConflict or
        # ValueError("<key.path>: <problem>") with paths from the top (``rules.deck``), as the
        # schema validators do, so the error is one line naming the file and the key.
        plugin.check_config(self)
        return self

    def _check_headline(self, plugin: Any) -> None:
        """The report's headline names a group this line-up has (teams a game deals and roles
        are named by its compiled tables, so they are not checked here)."""
        h = self.report.headline
        for key in ("seat", "order"):
            value = getattr(h, key)
            if value is not None and value >= self.players:
                raise KeyConflict(
                    {
                        f"report.headline.{key}": f"{key} {value} does not exist with "
                        f"{self.players} players (0..{self.players - 1})",
                        "players": f"{self.players} players have no {key} {value}",
                    }
                )
        if h.policy is not None and h.policy not in self.seats:
            raise KeyConflict(
                {
                    "report.headline.policy": f"no seat plays {_show(h.policy)} "
                    f"(seats: {', '.join(dict.fromkeys(self.seats))})",
                    "seats": f"no seat plays the headline policy {_show(h.policy)}",
                }
            )
        if h.team is not None and not plugin.deals_teams and h.team not in self.teams:
            raise KeyConflict(
                {
                    "report.headline.team": f"no team named {_show(h.team)} "
                    f"(teams: {', '.join(dict.fromkeys(self.teams))})",
                    "teams": f"no team named {_show(h.team)} for the headline",
                }
            )

    def resolved_dict(self) -> dict[str, Any]:
        """The whole resolved config as plain JSON-able data (for the manifest)."""
        return self.model_dump(mode="json")


def config_hash(cfg: RunConfig) -> str:
    """First 16 hex digits of the sha256 of the resolved config as canonical JSON, without its
    ``report:`` section (what a report leads with changes no game)."""
    data = cfg.resolved_dict()
    data.pop("report", None)
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# ------------------------------------------------------------------------ errors, in one line

# "<key.path>: <problem>" at the start of a schema's ValueError (see the module docstring).
_PREFIXED = re.compile(r"(?P<path>[^\s.\[\]:]+(?:\.[^\s.\[\]:]+|\[\d+\])*): (?P<problem>.+)", re.S)
_SEGMENT = re.compile(r"\.?([^\s.\[\]:]+)|\[(\d+)\]")
_MISSING = object()


def unwrap_type(tp: Any) -> Any:
    """``tp`` without Annotated metadata and without ``| None``."""
    while True:
        origin = get_origin(tp)
        if origin is Annotated:
            tp = get_args(tp)[0]
        elif origin in (Union, types.UnionType):
            args = [a for a in get_args(tp) if a is not type(None)]
            if len(args) != 1:
                return tp
            tp = args[0]
        else:
            return tp


def is_model(tp: Any) -> bool:
    """Whether ``tp`` is a pydantic model class."""
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _allowed_keys(data: Any, loc: KeyPath, root: Any = None) -> list[str]:
    """The keys a mapping at ``loc`` accepts, when it is a model; [] when unknown. ``root`` is
    the type of the whole document (default: RunConfig)."""
    root = RunConfig if root is None else root
    game = data.get("game") if isinstance(data, dict) and root is RunConfig else None
    plugin = registry.get(game) if game in registry.names() else None
    tp: Any = root
    node: Any = data
    for seg in loc:
        node = node.get(seg, _MISSING) if isinstance(node, dict) else _MISSING
        if tp is RunConfig and seg in ("rules", "policies"):
            if plugin is None:
                return []
            tp = plugin.rules_model if seg == "rules" else "policies"
        elif tp == "policies":
            kind = node.get("kind") if isinstance(node, dict) else None
            kind = kind or plugin.default_policies.get(seg, {}).get("kind")
            tp = plugin.policy_kinds.get(kind) if isinstance(kind, str) else None
        elif is_model(tp) and seg in tp.model_fields:
            tp = unwrap_type(tp.model_fields[seg].annotation)
        elif get_origin(tp) in (list, dict):
            tp = unwrap_type(get_args(tp)[-1])
        else:
            return []
    if not is_model(tp):
        return []
    return [*tp.model_fields, "extends"] if tp is RunConfig else list(tp.model_fields)


def _resolve(data: dict, segments: list[tuple[Any, bool | None]]) -> list[tuple[Any, bool]]:
    """Segments (key, is_index or None if unknown) matched against the data as written, so that
    YAML's ``2:`` key and a list index print as ``.2`` and ``[2]``."""
    out: list[tuple[Any, bool]] = []
    node: Any = data
    for seg, is_index in segments:
        if isinstance(node, dict):
            # the key as written: pydantic reports a key `true` as 1, a key `2` as "2"
            key = next((k for k in node if k == seg), _MISSING) if seg in node else _MISSING
            if key is _MISSING:
                key = next((k for k in node if str(k) == str(seg)), seg)
            out.append((key, False))
            node = node.get(key, _MISSING)
        elif isinstance(node, list) and isinstance(seg, int | str) and str(seg).isdigit():
            i = int(seg)
            out.append((i, True))
            node = node[i] if i < len(node) else _MISSING
        elif isinstance(node, str):  # `seats: greedy` stands for a list; stop at the key
            break
        else:
            out.append((seg, is_index if is_index is not None else isinstance(seg, int)))
            node = _MISSING
    return out


def _key_text(key: Any) -> str:
    """A mapping key as YAML writes it (``true``, ``null``), not as Python prints it."""
    return _show(key) if key is None or isinstance(key, bool) else str(key)


def _dotted(path: list[tuple[Any, bool]]) -> str:
    text = ""
    for key, is_index in path:
        text += f"[{key}]" if is_index else f".{_key_text(key)}" if text else _key_text(key)
    return text


_EXPECTED = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "a string",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
}
_BOUNDS = {
    "greater_than_equal": ("ge", ">="),
    "greater_than": ("gt", ">"),
    "less_than_equal": ("le", "<="),
    "less_than": ("lt", "<"),
}


def _problem(err: dict, data: Any, loc: KeyPath, root: Any = None) -> str:
    kind, ctx, value = err["type"], err.get("ctx") or {}, err.get("input")
    if kind == "extra_forbidden":
        allowed = _allowed_keys(data, loc[:-1], root)
        close = difflib.get_close_matches(str(loc[-1]), allowed, n=1, cutoff=0.6)
        if close:
            return f"unknown key (did you mean '{close[0]}'?)"
        return f"unknown key (expected one of: {', '.join(allowed)})" if allowed else "unknown key"
    if kind == "missing":
        return "required key is missing"
    if kind == "invalid_key":
        return f"bad key: expected a string, got {_show(value)}"
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {_show(value)}"
    if kind in _BOUNDS:
        name, sign = _BOUNDS[kind]
        return f"must be {sign} {ctx[name]}, got {_show(value)}"
    if kind == "finite_number":
        return f"must be a finite number, got {_show(value)}"
    if kind == "literal_error":
        return f"must be one of {ctx['expected']}, got {_show(value)}"
    if kind in ("too_short", "too_long"):
        least = "at least" if kind == "too_short" else "at most"
        bound = ctx["min_length" if kind == "too_short" else "max_length"]
        return (
            f"must have {least} {bound} item{'s' if bound != 1 else ''}, got {ctx['actual_length']}"
        )
    if kind in ("value_error", "assertion_error") and "error" in ctx:
        return str(ctx["error"])
    return err["msg"]


def _locate(
    err: dict, data: Any, root: Any = None, prefix: KeyPath = ()
) -> tuple[list[tuple[Any, bool | None]], str]:
    """The error's key path (segments) and problem, with a schema's ``key.path: `` prefix moved
    from the message into the path."""
    loc = (*prefix, *(seg for seg in err["loc"] if not str(seg).startswith("function-")))
    is_key = bool(loc) and loc[-1] == "[key]"
    if is_key:
        loc = loc[:-1]
    problem = _problem(err, data, loc, root)
    segments: list[tuple[Any, bool | None]] = [(seg, None) for seg in loc]
    if err["type"] in ("value_error", "assertion_error"):
        m = _PREFIXED.fullmatch(problem)
        if m:
            parsed = [(int(i), True) if i else (k, False) for k, i in _SEGMENT.findall(m["path"])]
            node = _node(data, loc)
            first = str(parsed[0][0])
            known = {str(k) for k in node} if isinstance(node, dict) else set()
            if first in known or first in _allowed_keys(data, loc, root):
                segments += parsed
                problem = m["problem"]
    if is_key:
        problem = f"bad key: {problem}"
    return segments, problem


def _node(data: Any, loc: KeyPath) -> Any:
    for seg in loc:
        if isinstance(data, dict):
            data = data.get(seg, _MISSING)
        elif isinstance(data, list) and isinstance(seg, int) and seg < len(data):
            data = data[seg]
        else:
            return _MISSING
    return data


def _translate(
    e: ValidationError,
    data: Any,
    prov: dict[KeyPath, str],
    top: str,
    root: Any = None,
    prefix: KeyPath = (),
) -> ConfigError:
    return _placed(e, data, prov, top, root, prefix)[0]


def _placed(
    e: ValidationError,
    data: Any,
    prov: dict[KeyPath, str],
    top: str,
    root: Any = None,
    prefix: KeyPath = (),
) -> tuple[ConfigError, str | None]:
    """:func:`_translate`'s error, and the file that wrote its key (None when no file did: a
    required key is missing; or when the error already says where each of its keys was set)."""
    errors = e.errors(include_url=False)
    # A misspelt key also makes its true spelling "missing": the typo is the one to report.
    err = next((x for x in errors if x["type"] == "extra_forbidden"), errors[0])
    segments, problem = _locate(err, data, root, prefix)
    path = _resolve(data, segments)
    keys = tuple(key for key, _ in path)
    written = next((prov[keys[:n]] for n in range(len(keys), 0, -1) if keys[:n] in prov), None)
    conflict = (err.get("ctx") or {}).get("error")
    if isinstance(conflict, KeyConflict) and prov:
        found = _conflict(conflict, err, data, prov, top, prefix)
        if found is not None:
            return found, None
    return _error(written or top, problem, key=_dotted(path) or None), written


def _conflict(
    conflict: KeyConflict,
    err: dict,
    data: Any,
    prov: dict[KeyPath, str],
    top: str,
    prefix: KeyPath,
) -> ConfigError | None:
    """The error of keys that disagree, when different files wrote them: about the key written
    nearest the file the user gave, in that file, naming where the others were set. None when
    one file wrote them all (the first problem is the message, as for a plain ValueError)."""
    model = (*prefix, *(seg for seg in err["loc"] if not str(seg).startswith("function-")))
    files_order = [*getattr(prov, "files", []), top]

    def rank(f: str) -> int:
        return files_order.index(f) if f in files_order else len(files_order)

    involved = []  # (key path as shown, problem, files that wrote the key or a part of it)
    for key, problem in conflict.problems.items():
        parsed = [(int(i), True) if i else (k, False) for k, i in _SEGMENT.findall(key)]
        path = _resolve(data, [(seg, None) for seg in model] + parsed)
        keys = tuple(k for k, _ in path)
        n = len(keys)
        files = sorted({f for p, f in prov.items() if p[:n] == keys}, key=rank)
        involved.append((_dotted(path), problem, files))
    if len({f for *_, files in involved for f in files}) < 2:
        return None
    lead = min((x for x in involved if x[2]), key=lambda x: rank(x[2][0]))
    file = lead[2][0]
    where: dict[str, list[str]] = {}  # "set in a.yaml and b.yaml" -> the keys set there
    for shown, _, files in involved:
        others = [f for f in files if f != file]
        if others:
            also = "also " if shown == lead[0] else ""
            where.setdefault(f"{also}set in {' and '.join(others)}", []).append(shown)
    said = "; ".join(f"{' and '.join(keys)} {place}" for place, keys in where.items())
    return _error(file, f"{lead[1]} ({said})", key=lead[0] or None)


def validation_error(
    e: ValidationError,
    data: Any,
    file: str,
    model: Any,
    prefix: KeyPath = (),
    provenance: dict[KeyPath, str] | None = None,
) -> ConfigError:
    """A pydantic error of validating ``data`` (the document of ``file``, or its item at
    ``prefix``) against ``model`` as the one-line ``<file>: <key.path>: <problem>`` that config
    errors have, with the same wording, "did you mean" and key paths. With the ``provenance`` of
    :func:`load_yaml`, an error in a key that an ``extends`` parent wrote names the parent."""
    root = list[model] if prefix and isinstance(prefix[0], int) else model
    return _translate(e, data, provenance or {}, file, root=root, prefix=prefix)


def _validated(data: dict, file: str, prov: dict[KeyPath, str]) -> tuple[RunConfig | None, Any]:
    """The config, or None and (the error, the file that wrote its key) as :func:`_placed`."""
    try:
        return RunConfig.model_validate(data), None
    except ValidationError as e:
        return None, _placed(e, data, prov, file)


def _blame_override(
    error: ConfigError, written: str | None, prov: Provenance, file: str
) -> ConfigError:
    """``error`` (of a config with ``prov.overrides`` written in) as the error of the override
    that caused it, when it is about a key a file wrote; ``error`` itself when an override's key
    is at fault already, or when the file has the same problem without any override.

    The override at fault is the first whose absence leaves a valid config; else the first whose
    absence changes the problem (another error masked it: ``--set rules=null --set
    game=raven_order`` is game's fault, though rules=null alone brings the error of five_ravens'
    policies); else the first that brings the problem when the ones before it are written in."""
    labels = {o.label for o in prov.overrides}
    if error.file in labels or prov.before is None:
        return error
    from balance.overrides import apply_to

    data, before = prov.before
    overrides = prov.overrides

    def outcome(some: Sequence[Any]) -> str:
        attempt = before.copy()
        try:
            applied = apply_to(data, some, attempt) if some else data
        except ConfigError:  # a line-up resolved at another player count, say
            return "other"
        cfg, failed = _validated(applied, file, attempt)
        if cfg is not None:
            return "valid"
        return (
            "same" if (failed[0].key, failed[0].problem) == (error.key, error.problem) else "other"
        )

    if outcome(()) == "same":
        return error
    culprit = overrides[-1]
    if len(overrides) > 1:
        without = [outcome([*overrides[:i], *overrides[i + 1 :]]) for i in range(len(overrides))]
        found = [i for i, r in enumerate(without) if r == "valid"] or [
            i for i, r in enumerate(without) if r == "other"
        ]
        if found:
            culprit = overrides[found[0]]
        else:
            k = next(
                k
                for k in range(1, len(overrides) + 1)
                if k == len(overrides) or outcome(overrides[:k]) == "same"
            )
            culprit = overrides[k - 1]
    where = f" ({error.key} set in {written})" if written and error.key else ""
    return _error(culprit.label, f"{error.problem}{where}", key=error.key)


def config_from_dict(
    data: dict, file: str = "<config>", provenance: dict[KeyPath, str] | None = None
) -> RunConfig:
    """Validate an already merged mapping; errors name ``file`` or the file in ``provenance``,
    or the override that made a file's key wrong (see :class:`Provenance`)."""
    cfg, failed = _validated(data, file, provenance or {})
    if cfg is not None:
        return cfg
    error, written = failed
    if isinstance(provenance, Provenance) and provenance.overrides:
        error = _blame_override(error, written, provenance, file)
    raise error


def load_config(path: str | os.PathLike, overrides: Sequence[Any] = ()) -> RunConfig:
    """Load, merge and validate the config at ``path``; raises only :class:`ConfigError`.

    ``overrides`` (:class:`balance.overrides.Override`, e.g. from ``--set``) are written into the
    merged YAML, after ``extends`` and before validation, so they are validated like the file;
    an error they cause names the override (``--set players=99: players: ...``). The config
    records them (``RunConfig.overrides``), and so does a run's manifest."""
    data, provenance = load_yaml(path)
    if overrides:
        from balance.overrides import apply_to

        data = apply_to(data, overrides, provenance)
    cfg = config_from_dict(data, os.fspath(path), provenance)
    cfg._overrides = tuple(o.text for o in overrides)
    return cfg
