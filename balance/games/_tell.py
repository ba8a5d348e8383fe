"""The one shape of every game's narration (``narrate.tell``), in plain Python.

A game's ``narrate.py`` subclasses :class:`Narrator`: it maps each event code of its ``state.E_*``
to a handler (``self.handlers = {S.E_DRAW: self.ev_draw, ...}``), keeps a shadow of the game as
the events tell it, and, in ``finish``, compares that shadow with the engine's final state
(``Logged.state``), so that a narration out of step with the engine says so instead of telling a
different game. ``Game.replay`` (balance/games/base.py) puts the first of those disagreements
under the lines as warnings; the tests assert there are none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

MAX_WARNINGS = 5  # disagreements a replay prints before it only counts the rest


class Told(NamedTuple):
    """A logged game in words (``narrate.tell``)."""

    lines: list[str]
    problems: list[str]  # where the events disagree with themselves or with the final state


def warnings(problems: list[str]) -> list[str]:
    """The lines a replay prints under a narration whose events disagree with the engine."""
    out = [f"WARNING: narration out of step with the engine: {p}" for p in problems[:MAX_WARNINGS]]
    if len(problems) > MAX_WARNINGS:
        out.append(f"WARNING: {len(problems) - MAX_WARNINGS} more disagreements")
    return out


class Narrator:
    """Base of a game's narrator: one handler per event code, the lines, the problems.

    ``run`` calls ``handlers[code](row)`` for each log row (``row``: the seven integers after the
    code, as Python ints), then ``finish()``; ``told()`` is the result. A code without a handler
    is a ValueError: the engine logs something the narration cannot tell.
    """

    handlers: dict[int, Callable[[tuple[int, ...]], None]]

    def __init__(self, logged: Any) -> None:
        self.logged = logged
        self.lines: list[str] = []
        self.problems: list[str] = []
        self.row = -1  # the log row being told

    def run(self) -> None:
        for i, raw in enumerate(self.logged.log):
            self.row = i
            code = int(raw[0])
            handler = self.handlers.get(code)
            if handler is None:
                raise ValueError(f"event log row {i}: unknown event code {code}")
            handler(tuple(int(x) for x in raw[1:]))
        self.row = -1
        self.finish()

    def finish(self) -> None:
        """After the last event: the shadow against the final state (``check``), last lines."""

    def check(self, ok: bool, problem: str) -> None:
        """Note ``problem`` unless ``ok``: the events disagree with themselves or the engine."""
        if not ok:
            self.problems.append(problem if self.row < 0 else f"row {self.row}: {problem}")

    def render(self) -> list[str]:
        """The lines (a narrator that builds them lazily overrides this)."""
        return self.lines

    def told(self) -> Told:
        return Told(self.render(), self.problems)
