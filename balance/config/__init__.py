"""Run configs: a YAML file in, a validated ``RunConfig`` out, every problem as one line.

``load_config`` and ``config_from_dict`` are the one way a config becomes a :class:`RunConfig`.

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
``overrides`` (``--set KEY=VALUE``, balance/config/overrides.py) are written into the merged
YAML before validation; in an error they cause, the override stands where a file name would.

Every problem raises :class:`ConfigError` whose message is one line,
``<file>: <key.path>: <problem>`` (or ``<file>: <problem>`` when no key is at fault), naming the
file where the offending key was written.

The package, a job per module:

- ``loading.py``: reading YAML (the loader's bounds) and ``extends`` chains, with the file that
  set each key (``read_yaml``, ``load_yaml``, ``Provenance``);
- ``lineup.py``: the line-up grammar of ``seats:`` and ``teams:`` (``resolve_lineup``);
- ``model.py``: ``RunConfig``, ``config_hash`` and the policies' resolution;
- ``translate.py``: a validation error as one line (``validation_error``);
- ``oneline.py``: how a problem and a value are written in that line;
- ``overrides.py``: ``--set KEY=VALUE``; ``headline.py``: the ``report:`` section;
  ``knobs.py``: every knob of a game's config sections, for ``balance games``;
- this module: loading, overrides and validation put together, and the override that made a
  file's key wrong found.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from balance.config.loading import Provenance, load_yaml
from balance.config.model import RunConfig, config_hash, recorded_hashes
from balance.config.oneline import KeyPath, _error
from balance.config.overrides import apply_to
from balance.config.translate import _placed
from balance.errors import ConfigError  # ConfigError lived here: still importable

__all__ = [
    "ConfigError",
    "RunConfig",
    "config_from_dict",
    "config_hash",
    "load_config",
    "recorded_hashes",
]


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

    ``overrides`` (:class:`balance.config.overrides.Override`, e.g. from ``--set``) are written
    into the merged YAML, after ``extends`` and before validation, so they are validated like the
    file; an error they cause names the override (``--set players=99: players: ...``). The config
    records them (``RunConfig.overrides``), and so does a run's manifest."""
    data, provenance = load_yaml(path)
    if overrides:
        data = apply_to(data, overrides, provenance)
    cfg = config_from_dict(data, os.fspath(path), provenance)
    cfg._overrides = tuple(o.text for o in overrides)
    return cfg
