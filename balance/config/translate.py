"""Error translation: a pydantic validation error as one line naming the file and the key.

The error of a config (or of any YAML file validated against a model) becomes
``<file>: <key.path>: <problem>``, naming the file where the offending key was written.

Game schemas report cross-field problems by raising ``ValueError("<key.path>: <problem>")`` from a
model validator, with the key path relative to that model (``thief_relics[0]: ...``); this module
prefixes the model's own path (``rules.thief_relics[0]: ...``). Keys that are each fine but
disagree raise :class:`balance.errors.KeyConflict` with a problem per key: when a config and its
parent wrote them, the message is about the key written nearest the file the user gave, in that
file, and names where the others were set (``three.yaml: players: 3 does not match the 4 seats
(seats set in base.yaml)``).
"""

from __future__ import annotations

import difflib
import re
from typing import Any, get_args, get_origin

from pydantic import ValidationError

from balance import games as registry
from balance.config.model import RunConfig, is_model, unwrap_type
from balance.config.oneline import KeyPath, _error, _key_text, _show
from balance.errors import ConfigError, KeyConflict

# "<key.path>: <problem>" at the start of a schema's ValueError (see the module docstring).
_PREFIXED = re.compile(r"(?P<path>[^\s.\[\]:]+(?:\.[^\s.\[\]:]+|\[\d+\])*): (?P<problem>.+)", re.S)
_SEGMENT = re.compile(r"\.?([^\s.\[\]:]+)|\[(\d+)\]")
_MISSING = object()


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
