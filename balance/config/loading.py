"""Reading a config's YAML within bounds, and merging ``extends`` chains with the file of each key.

:class:`Provenance` records the file that set each key path.

``extends`` merges mappings key by key; lists and scalars replace. Every problem raises a
one-line :class:`ConfigError` naming the file (balance/config/oneline.py).

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

import os
import stat
from typing import Any

import yaml

from balance.config.oneline import KeyPath, _error, _show
from balance.errors import ConfigError

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

    Once overrides are written in (:func:`balance.config.overrides.apply_to`), ``overrides`` holds
    them and ``before`` the document and provenance they were applied to: an error in a key a file
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
