"""Every knob of every config section, read from the config models (``balance games``).

Generated from the pydantic models of each game's ``rules:`` and ``policies:`` sections, so it
is always complete: a field's path, type with its limits, default as YAML, and description.
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import yaml
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from balance.config.lineup import LINEUP_RULES
from balance.config.model import is_model, unwrap_type


def describe_game(plugin: Any) -> list[str]:
    """Every knob of a game's config sections, as ``balance games NAME`` prints it: the rules
    model and each policy kind's model, field by field with type, limits, default and text."""
    lines = [
        f"{plugin.name}: {plugin.title}, {plugin.min_players}-{plugin.max_players} players",
        f"  end reasons: {', '.join(plugin.end_reasons)}",
        f"  ready-made policies: {', '.join(plugin.default_policies)}",
        f"  seats (and teams): {LINEUP_RULES}",
        "  rules:",
        *_describe_model(plugin.rules_model, indent="    "),
    ]
    for kind, model in plugin.policy_kinds.items():
        lines += [f"  policies.<name> (kind: {kind}):", *_describe_model(model, indent="    ")]
    return lines


def _describe_model(model: type[BaseModel], *, indent: str, prefix: str = "") -> Iterator[str]:
    """Every field of ``model`` as ``path: type = default`` and its description; nested models
    (also inside a dict or list) are flattened to dotted paths, e.g. ``relics.<name>.count``."""
    for name, field in model.model_fields.items():
        path = prefix + name
        ann = unwrap_type(field.annotation)
        if is_model(ann):  # a section: its description, then its fields
            if field.description:
                yield f"{indent}{path}:"
                yield f"{indent}    {field.description}"
            yield from _describe_model(ann, indent=indent, prefix=path + ".")
            continue
        limits = [
            f"{symbol} {getattr(m, attr)}"
            for m in field.metadata
            for attr, symbol in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<"))
            if getattr(m, attr, None) is not None
        ]
        type_ = _type_name(ann) + (f" ({', '.join(limits)})" if limits else "")
        default = _default(field)
        if len(default) > 120:  # a whole table (Raven Order's buildings, runes): its keys
            factory = field.default_factory
            value = factory() if callable(factory) else field.default
            keys = ", ".join(str(k) for k in value) if isinstance(value, dict) else ""
            # a table of models (buildings, runes) is described below; a table of numbers (Raven
            # Manor's card counts) is its keys and the description
            models = isinstance(value, dict) and any(
                isinstance(v, BaseModel) for v in value.values()
            )
            tail = " (each with the fields below)" if models else ""
            default = f"{{{keys}}}{tail}" if keys else default[:117] + "..."
        yield f"{indent}{path}: {type_} = {default}"
        if field.description:
            yield f"{indent}    {field.description}"
        item = unwrap_type(get_args(ann)[-1]) if get_origin(ann) in (dict, list) else None
        if is_model(item):
            inner = f"{path}.<name>." if get_origin(ann) is dict else f"{path}[i]."
            yield from _describe_model(item, indent=indent, prefix=inner)


def _type_name(tp: Any) -> str:
    """A type as a designer reads it: ``int``, ``list[str]``, ``'chest' | 'gem'``."""
    origin, args = get_origin(tp), get_args(tp)
    if origin is Annotated:
        return _type_name(args[0])
    if origin is Literal:
        return " | ".join(repr(a) for a in args)
    if origin in (Union, types.UnionType):
        return " | ".join(_type_name(a) for a in args)
    if origin is not None:
        return f"{getattr(origin, '__name__', origin)}[{', '.join(_type_name(a) for a in args)}]"
    return "None" if tp is type(None) else getattr(tp, "__name__", str(tp))


def _default(field: Any) -> str:
    """The default as it would be written in YAML (flow style)."""
    if field.is_required():
        return "(required)"
    try:
        value = field.get_default(call_default_factory=True, validated_data={})
    except TypeError:  # pragma: no cover - pydantic < 2.10
        value = field.get_default(call_default_factory=True)
    text = yaml.safe_dump(_plain(value), default_flow_style=True, sort_keys=False, width=10**9)
    return text.removesuffix("\n").removesuffix("\n...").strip()


def _plain(value: Any) -> Any:
    """``value`` as YAML-safe data, keeping int mapping keys (``{2: 8}``, not ``{'2': 8}``)."""
    if isinstance(value, BaseModel):
        value = dict(value)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return to_jsonable_python(value)
