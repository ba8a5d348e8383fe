"""The one error type of everything a user can get wrong.

Library code raises a subclass of :class:`BalanceError` whose message is one line naming the file,
key or option and the fix (``configs/x.yaml: rules.deck.rifle: count must be >= 0, got -1``). The
CLI has one handler for all of them: it prints ``error: <message>`` on stderr and exits with the
command's code for user errors (1, or 2 for ``balance check``, whose 1 means "balance broke").
Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


class BalanceError(Exception):
    """A problem the user can fix; the message is one line."""


class KeyConflict(ValueError):
    """Raised by a config model's validator when keys that are each fine disagree (``players: 3``
    against four ``seats``), so that the one-line error can name the file of each key: a child
    config and its ``extends`` parent may have written them.

    ``problems`` maps each key path involved (relative to the model that raises, as in the
    ``"<key.path>: <problem>"`` of a plain ``ValueError``) to the problem as said about that key::

        raise KeyConflict({
            "seats": f"expected {players} seats (one per player), got {len(seats)}",
            "players": f"{players} does not match the {len(seats)} seats",
        })

    When one file wrote every key (or only defaults are involved), the first entry is the message,
    as if ``ValueError("seats: expected ...")`` had been raised. Otherwise (balance.config) the
    message is about the key written nearest the file the user gave, in that file, and names
    where the others were set: ``three.yaml: players: 3 does not match the 4 seats (seats set in
    base.yaml)``.
    """

    def __init__(self, problems: dict[str, str]) -> None:
        if not problems:
            raise TypeError("KeyConflict needs at least one key")
        self.problems = dict(problems)
        key, problem = next(iter(self.problems.items()))
        super().__init__(f"{key}: {problem}")


# ---- Ctrl-C ------------------------------------------------------------------------------------


def raises_keyboard_interrupt(handler: object) -> bool:
    """Whether SIGINT ``handler`` is Python's default or :func:`interruptible`'s: Ctrl-C raises
    KeyboardInterrupt (the runner then defers it while a run writes, and restores the handler)."""
    import signal

    return handler is signal.default_int_handler or getattr(
        handler, "raises_keyboard_interrupt", False
    )


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """For the block, Ctrl-C raises KeyboardInterrupt, as usual, even where a library would turn
    it into something else: a KeyboardInterrupt raised inside a callback from native code is
    wrapped in the library's error (pydantic) or printed as "Exception ignored ..." with a
    traceback and dropped (ctypes callbacks, ``__del__``, in numba's LLVM). After a Ctrl-C, such
    an error is raised as KeyboardInterrupt, the "Exception ignored" traceback is not printed,
    and a dropped KeyboardInterrupt is raised when the block ends. Off the main thread, or when
    SIGINT has a handler of its own, nothing changes."""
    import signal
    import sys
    import threading

    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not raises_keyboard_interrupt(
        previous
    ):
        yield
        return
    hit = [False]

    def handler(signum: int, frame: object) -> None:
        hit[0] = True
        raise KeyboardInterrupt

    handler.raises_keyboard_interrupt = True  # type: ignore[attr-defined]
    previous_hook = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            previous_hook(unraisable)

    signal.signal(signal.SIGINT, handler)
    sys.unraisablehook = hook
    try:
        yield
    except KeyboardInterrupt:
        raise
    except BaseException:
        if hit[0]:  # whatever it became, it was Ctrl-C
            raise KeyboardInterrupt from None
        raise
    finally:
        signal.signal(signal.SIGINT, previous)
        sys.unraisablehook = previous_hook
    if hit[0]:  # a callback dropped it
        raise KeyboardInterrupt
