"""DESIGN.md, Dependency direction: the layers import downwards only.

A game's rules (every module of its package but ``views/``, the plugin ``__init__`` included)
know nothing of analysis, drawing, configs or the command line; stats never import a game; the
report never imports the experiments. Each check imports in a fresh interpreter and reads
``sys.modules``, so what an import pulls in indirectly counts too.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from balance import games

# What a game's rule modules must never pull in, directly or not.
NOT_UNDER_RULES = (
    "balance.stats",
    "balance.report",
    "balance.cli",
    "balance.config",
    "balance.experiments",
    "balance.runner",
    "plotly",
    "polars",
)

_IMPORT_AND_LIST = """
import importlib, json, pkgutil, sys
names = {names!r}
for name in names:
    importlib.import_module(name)
print(json.dumps(sorted(sys.modules)))
"""

_RULE_MODULES = """
import importlib, json, pkgutil, sys
pkg = importlib.import_module({package!r})
names = [pkg.__name__] + [
    f"{{pkg.__name__}}.{{m.name}}" for m in pkgutil.iter_modules(pkg.__path__) if m.name != "views"
]
for name in names:
    importlib.import_module(name)
print(json.dumps({{"imported": names, "modules": sorted(sys.modules)}}))
"""


def _imports(path: Path) -> list[tuple[str, bool]]:
    """Every module a source file imports, anywhere in it (in a function too), with whether the
    import is at the top level of the module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = set(map(id, tree.body))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, id(node) in top) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found += [(node.module, id(node) in top)]
            found += [(f"{node.module}.{a.name}", id(node) in top) for a in node.names]
    return found


def _run(code: str) -> dict | list:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _under(modules: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes)]


@pytest.mark.slow
@pytest.mark.parametrize("name", games.names())
def test_a_games_rules_import_no_analysis_drawing_config_or_cli(name):
    package = games._GAMES[name]
    found = _run(_RULE_MODULES.format(package=package))
    # the standard modules are all there (a rename cannot empty the check)
    assert {f"{package}.{m}" for m in ("schema", "tables", "engine", "narrate")} <= set(
        found["imported"]
    )
    assert _under(found["modules"], NOT_UNDER_RULES) == []
    assert _under(found["modules"], (f"{package}.views",)) == []


@pytest.mark.parametrize("name", games.names())
def test_no_rule_module_names_analysis_drawing_config_or_cli_even_in_a_function(name):
    """What a call would import later counts too: only the plugin (``__init__``) may reach the
    game's views, and only from inside a hook (so importing the plugin loads none of them)."""
    package = games._GAMES[name]
    folder = Path(importlib.util.find_spec(package).origin).parent
    bad = []
    for path in sorted(folder.glob("*.py")):
        for module, at_top in _imports(path):
            views = _under([module], (f"{package}.views",))
            if _under([module], NOT_UNDER_RULES) or (views and (path.stem != "__init__" or at_top)):
                bad.append(f"{path.name}: {module}")
    assert bad == []


def test_stats_import_no_game_and_no_terminal_code():
    modules = _run(_IMPORT_AND_LIST.format(names=["balance.stats"]))
    assert _under(modules, ("balance.games", "balance.cli", "rich")) == []


def test_the_report_imports_no_experiment():
    modules = _run(
        _IMPORT_AND_LIST.format(names=[f"balance.report.{m}" for m in _report_modules()])
    )
    assert _under(modules, ("balance.experiments", "balance.cli")) == []


def _report_modules() -> list[str]:
    import pkgutil

    import balance.report

    return [m.name for m in pkgutil.iter_modules(balance.report.__path__)]
