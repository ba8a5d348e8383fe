"""Variants: a named change to a config, merged into the resolved config as a patch.

A game proposes its default variants (``impact_variants``: one small change per card or rule)
and the variants every report of it answers for (``report_variants``); a user may write their
own as a YAML list of ``{name, description, patch}``.
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from balance.config import ConfigError, RunConfig, config_from_dict
from balance.config.loading import read_yaml
from balance.config.translate import validation_error


class Variant(NamedTuple):
    """A named change to a config: ``patch`` is merged into the resolved config."""

    name: str
    description: str
    patch: dict[str, Any]


def merge_patch(base: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """``patch`` over ``base``: mappings merge key by key, lists and scalars replace (as
    ``extends`` does)."""
    out = dict(base)
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge_patch(out[key], value)
        else:
            out[key] = value
    return out


def apply_patch(config: RunConfig, variant: Variant, *, source: str = "variants") -> RunConfig:
    """``config`` with ``variant.patch`` merged in, validated; a bad patch raises a one-line
    ConfigError naming ``source``, the variant and the key."""
    where = f"{source} (variant {variant.name!r})"
    if not isinstance(variant.patch, dict):
        raise ConfigError(f"{where}: patch: expected a mapping", file=where, key="patch")
    for key in ("game", "seed", "games"):
        if key in variant.patch:
            # Pairing needs the same game and seeds; the number of games is the experiment's.
            raise ConfigError(
                f"{where}: {key}: a variant may not change {key}", file=where, key=key
            )
    data = merge_patch(config.resolved_dict(), variant.patch)
    return config_from_dict(data, where)


def default_variants(plugin: Any, config: RunConfig) -> list[Variant]:
    """The variants a game proposes for ``config`` (its ``impact_variants(config)`` hook, a list
    of ``{name, description, patch}``; [] for none)."""
    return [
        _variant(v, f"{plugin.name}.impact_variants", i)
        for i, v in enumerate(plugin.impact_variants(config))
    ]


def report_variants(plugin: Any, config: RunConfig) -> list[Variant]:
    """The variants a report of ``config`` always sets beside it (the game's
    ``report_variants(config)`` hook; [] for none)."""
    return [
        _variant(v, f"{plugin.name}.report_variants", i)
        for i, v in enumerate(plugin.report_variants(config))
    ]


def all_variants(plugin: Any, config: RunConfig) -> list[Variant]:
    """The game's report variants, then its default impact variants, for ``config``."""
    return [*report_variants(plugin, config), *default_variants(plugin, config)]


def distinct_variants(
    plugin: Any, config: RunConfig, variants: list[Variant] | None = None
) -> list[Variant]:
    """``variants`` (default :func:`all_variants`: the report's, then the default impact
    variants) each change once: a variant that makes the same config as one before it, or that
    repeats an earlier name, is the same change under another name and is left out (The Raven
    Order's "no second-player sentry" is "no compensation" when the sentry is all the second
    player's compensation)."""
    out: list[Variant] = []
    made: list[dict[str, Any]] = []
    names: set[str] = set()
    for v in all_variants(plugin, config) if variants is None else variants:
        if v.name in names:
            continue
        resolved = apply_patch(config, v, source="variants").resolved_dict()
        if resolved not in made:
            out.append(v)
            made.append(resolved)
            names.add(v.name)
    return out


REPORT_VARIANTS_FILE = "variants.json"  # in a results directory, beside manifest.json


class _VariantModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(min_length=1)
    description: str = ""
    patch: dict[str, Any]


def _variant(data: Any, source: str, index: int, whole: Any = None) -> Variant:
    try:
        v = _VariantModel.model_validate(data)
    except ValidationError as e:
        doc = whole if whole is not None else [data] * (index + 1)
        raise validation_error(e, doc, source, _VariantModel, prefix=(index,)) from None
    return Variant(v.name, v.description, v.patch)


def load_variants(path: str | os.PathLike[str]) -> list[Variant]:
    """Variants from a YAML file: a list of ``{name, description, patch}`` (or a mapping with
    that list under ``variants:``)."""
    shown = os.fspath(path)
    data = _read_yaml_list(shown)
    variants = [_variant(v, shown, i, data) for i, v in enumerate(data)]
    seen: set[str] = set()
    for i, v in enumerate(variants):
        if v.name in seen:
            raise ConfigError(f"{shown}: [{i}].name: duplicate variant name {v.name!r}")
        seen.add(v.name)
    return variants


def chosen_variants(
    plugin: Any, config: RunConfig, path: str | os.PathLike[str] | None = None
) -> tuple[list[Variant], str]:
    """The variants ``balance impact`` measures and where they come from: the YAML file
    ``path`` (:func:`load_variants`), else the game's default variants; a game without any is
    an error that names ``--variants``."""
    if path is not None:
        return load_variants(path), os.fspath(path)
    chosen = default_variants(plugin, config)
    if not chosen:
        from balance.runner import RunnerError

        raise RunnerError(f"{config.game} proposes no default variants; pass --variants FILE.yaml")
    return chosen, f"{config.game} default variants"


def _read_yaml_list(shown: str) -> list[Any]:
    data = read_yaml(shown)
    if isinstance(data, dict) and set(data) == {"variants"}:
        data = data["variants"]
    if not isinstance(data, list) or not data:
        raise ConfigError(
            f"{shown}: expected a non-empty list of variants ({{name, description, patch}})",
            file=shown,
        )
    return data
