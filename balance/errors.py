"""The one error type of everything a user can get wrong.

Library code raises a subclass of :class:`BalanceError` whose message is one line naming the file,
key or option and the fix (``configs/x.yaml: rules.deck.rifle: count must be >= 0, got -1``). The
CLI has one handler for all of them: it prints ``error: <message>`` on stderr and exits with the
command's code for user errors (1, or 2 for ``balance check``, whose 1 means "balance broke").
Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations


class BalanceError(Exception):
    """A problem the user can fix; the message is one line."""
