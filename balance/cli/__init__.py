"""The ``balance`` command line: parse, call the library, print. No logic of its own.

Every error a user can cause (a ``BalanceError`` from the library, a file it cannot read or
write, a bad option) prints one line ``error: <message>`` to stderr, with no traceback, and exits
with the command's code: 1, or 2 for ``balance check``, whose 1 means "balance broke". One
handler does it for every command (``_app._Command.invoke``, and ``_app._OneLineErrors`` for usage
errors); one context, ``_app.stopping``, says what a stopped command kept.
Ctrl-C exits 130 without a traceback, from the first import on.

The package: ``_app.py`` holds the typer/click plumbing, the options several commands share and
the small helpers they call; every other module is one command, a docstring (its ``--help``) and
a short body that calls the library and prints. Tables and progress bars are drawn by
balance/terminal.py. Library modules are imported inside the commands so that ``balance --help``
stays fast.
"""

from __future__ import annotations

import signal
import sys
import threading


def _exit_130(signum: int, frame: object) -> None:
    from balance.errors import stop_exit_code

    raise SystemExit(stop_exit_code())  # 130 after Ctrl-C; 143, 129 after SIGTERM, SIGHUP


# Ctrl-C during the imports below (a fifth of a second) would print the traceback of whichever
# import it hit: exit 130 quietly instead, as typer does once a command runs. (CPython may drop
# the exception of a signal handler that runs inside compile(), while an import compiles a
# changed file: that Ctrl-C is lost, the next one works.)
_QUIET_SIGINT = (
    threading.current_thread() is threading.main_thread()
    and signal.getsignal(signal.SIGINT) is signal.default_int_handler
)
if _QUIET_SIGINT:
    signal.signal(signal.SIGINT, _exit_130)
try:
    from balance.cli._app import EXAMPLES, app

    # Each module registers its command as it is imported: `balance --help` lists them in this
    # order, not the alphabet's.
    # isort: off
    from balance.cli import simulate, validate, verify, games, replay, bench  # noqa: F401
    from balance.cli import impact, compare, check, sweep, report, tune, ladder  # noqa: F401
    from balance.cli import census  # noqa: F401
    from balance.cli import export  # noqa: F401
    from balance.cli import watch  # noqa: F401  (after export: the help lists watch last)
    # isort: on
finally:
    if _QUIET_SIGINT:  # exiting on Ctrl-C: ignore another one; else back to KeyboardInterrupt
        exiting = sys.exc_info()[0] is SystemExit
        signal.signal(signal.SIGINT, signal.SIG_IGN if exiting else signal.default_int_handler)

__all__ = ["EXAMPLES", "app"]
