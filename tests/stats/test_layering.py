"""DESIGN.md, Dependency direction: stats read datasets and never import a game."""

from __future__ import annotations

import subprocess
import sys


def test_stats_import_no_game_and_no_terminal_code():
    code = (
        "import sys, balance.stats; "
        "bad = [m for m in sys.modules if m.startswith(('balance.games', 'balance.cli', 'rich'))]; "
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
