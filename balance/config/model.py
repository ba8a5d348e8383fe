"""The run config model: ``RunConfig``, ``config_hash`` and the resolution of policies.

:class:`RunConfig` is validated and fully resolved (the game's rules, its policies with the
config's merged over them, the line-up at the player count); the helpers that read a model's
field types (``unwrap_type``, ``is_model``) serve ``balance games`` and error messages.

A config's keys that are each fine but disagree raise :class:`balance.errors.KeyConflict` with a
problem per key; balance/config/translate.py turns that and every other validation error into
one line. A check that needs both the line-up and the rules (Raven Manor: a character for every
player) is the plugin's ``check_config(config)``, called with the validated RunConfig; it raises
the same way, with key paths from the top (``rules.deck``, ``players``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import types
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializeAsAny,
    TypeAdapter,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from balance import games as registry
from balance.config.headline import ReportSettings
from balance.config.lineup import LINEUP_KEYS, _lineup, _lineup_field
from balance.config.oneline import _show
from balance.errors import KeyConflict

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


class RunConfig(BaseModel):
    """A validated, fully resolved run config (its YAML: balance/config/__init__.py).

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
        from balance.search import check_rollouts

        check_rollouts(self.policies)
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
    """First 16 hex digits of the sha256 of the resolved config as canonical JSON, without what
    changes no game: its ``report:`` section (what a report leads with) and the policies no seat
    plays (a release that adds a default policy, as Raven Manor's ``reasoning``, or a config
    that defines a policy for another run, plays the same games under the same hash)."""
    return resolved_hash(cfg.resolved_dict())


def resolved_hash(data: dict[str, Any]) -> str:
    """:func:`config_hash` of a resolved config as plain data (a manifest's ``config``)."""
    data = {k: v for k, v in data.items() if k != "report"}
    if isinstance(data.get("policies"), dict) and isinstance(data.get("seats"), list):
        data["policies"] = played_policies(data["policies"], data["seats"])
    return _sha16(data)


def played_policies(policies: dict[str, Any], seats: list[Any]) -> dict[str, Any]:
    """The policies of ``policies`` that ``seats`` play, with those they name in turn (a search
    player's ``rollout``), in their order."""
    keep = {s for s in seats if isinstance(s, str)}
    todo = list(keep)
    while todo:
        entry = policies.get(todo.pop())
        for value in entry.values() if isinstance(entry, dict) else ():
            if isinstance(value, str) and value in policies and value not in keep:
                keep.add(value)
                todo.append(value)
    return {name: entry for name, entry in policies.items() if name in keep}


def recorded_hashes(data: dict[str, Any]) -> tuple[str, str]:
    """The hashes a run that recorded resolved config ``data`` may have stored: this release's
    :func:`resolved_hash`, and the one of earlier builds, which hashed every policy (until Raven
    Manor's ``reasoning`` players were added), so that their results still read and resume."""
    return resolved_hash(data), _sha16({k: v for k, v in data.items() if k != "report"})


def _sha16(data: dict[str, Any]) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


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
