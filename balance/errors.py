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


class ConfigError(BalanceError):
    """A config problem, as one line: ``<file>: <key.path>: <problem>`` (balance/config/ adds
    the file; a game's ``compile_tables`` raises it with ``<key.path>: <problem>`` alone)."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        key: str | None = None,
        problem: str | None = None,
    ) -> None:
        super().__init__(message)
        self.file = file
        self.key = key
        self.problem = problem


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


# ---- every way a process is asked to stop: Ctrl-C, SIGTERM, SIGHUP -----------------------------
#
# A timeout, a cancelled CI job or ``docker stop`` sends SIGTERM; a closed terminal or ssh session
# SIGHUP. Both stop a command the way Ctrl-C does (a run keeps its finished chunks and records that
# it was interrupted), and the process exits 128 + the signal's number (130, 143, 129), what a
# shell reports for a process the signal killed.

_stops: list[int] = []  # the stop signals this command received, first first


def stop_signal() -> int:
    """The first stop signal the current command received (SIGINT when none was recorded: a
    KeyboardInterrupt raised by Ctrl-C, or by code)."""
    import signal

    return _stops[0] if _stops else int(signal.SIGINT)


def stop_exit_code() -> int:
    """128 + :func:`stop_signal`: 130 after Ctrl-C, 143 after SIGTERM, 129 after SIGHUP."""
    return 128 + stop_signal()


def stop_name() -> str:
    """``SIGINT``, ``SIGTERM`` or ``SIGHUP``: what stopped the command."""
    import signal

    return signal.Signals(stop_signal()).name


def note_stop(signum: int) -> None:
    """Record that stop signal ``signum`` arrived (the first one decides the exit code)."""
    if not _stops:
        _stops.append(int(signum))


def forget_stops() -> None:
    """A new command starts: no stop signal received yet."""
    _stops.clear()


def _terminate(signum: int, frame: Any) -> None:
    """SIGTERM or SIGHUP: do what Ctrl-C would do at this moment (raise KeyboardInterrupt, set a
    run's stop flag, exit quietly), whichever handler SIGINT has now."""
    import signal

    note_stop(signum)
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
    else:  # SIGINT ignored (a background job): still stop
        raise KeyboardInterrupt


_terminate.raises_keyboard_interrupt = True  # type: ignore[attr-defined]


def stop_on_terminate() -> None:
    """From now on SIGTERM and SIGHUP stop the process like Ctrl-C (:func:`_terminate`). A signal
    the process started with ignored stays ignored (``nohup`` ignores SIGHUP); called off the
    main thread, nothing changes (Python runs handlers on the main thread only)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return
    for sig in terminate_signals():
        if signal.getsignal(sig) is signal.SIG_DFL:
            signal.signal(sig, _terminate)


def terminate_signals() -> tuple[int, ...]:
    """SIGTERM and SIGHUP (SIGHUP where the platform has it)."""
    import signal

    return tuple(
        s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s
    )


def terminates_like_ctrl_c(sig: int) -> bool:
    """Whether ``sig`` (SIGTERM or SIGHUP) currently stops like Ctrl-C (:func:`stop_on_terminate`)."""
    import signal

    return signal.getsignal(sig) is _terminate


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
        note_stop(signum)
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


def validation_line(e: Any) -> str:
    """The first error of a pydantic ValidationError of a data file (a manifest, an impact
    file) as ``key.path[i]: problem, got VALUE`` (the value only when short and plain)."""
    err = e.errors()[0]
    key = "".join(f"[{x}]" if isinstance(x, int) else f".{x}" for x in err["loc"]).lstrip(".")
    key = key or "the file"
    if err["type"] == "missing":
        return f"{key}: missing"
    kinds = {
        "model_type": "an object",
        "model_attributes_type": "an object",
        "dict_type": "an object",
    }
    problem = (
        f"{kinds[err['type']]} is expected"
        if err["type"] in kinds
        else err["msg"][:1].lower() + err["msg"][1:]
    )
    given = err.get("input")
    shown = repr(given) if isinstance(given, str | int | float | bool) or given is None else ""
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return f"{key}: {problem}" + (f", got {shown}" if shown else "")
