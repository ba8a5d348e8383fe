"""The line-up grammar of ``seats:`` and ``teams:``: one name, a list, or a rule per player count.

A rule is resolved at the player count (``{cycle: [a, b]}``, ``{first: a, rest: b}``,
``{0: a, last: c, rest: b}``; see ``LINEUP_RULES``).

The model (balance/config/model.py) checks a rule with :func:`_lineup_field` and resolves it
with :func:`_lineup`; ``--set seats[1]=...`` (balance/config/overrides.py) resolves it first with
:func:`resolve_lineup`.
"""

from __future__ import annotations

import difflib
from typing import Any

from pydantic import ValidatorFunctionWrapHandler

from balance.config.oneline import _key_text, _show
from balance.errors import KeyConflict

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
