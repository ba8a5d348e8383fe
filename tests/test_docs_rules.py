"""docs/rules/ explains every ruling the engines cite (issue 14, part 5): a user who sees `FR-10`
in `balance games` or a replay can look it up in the repository, without any file outside it; and
every ruling and engine reading a game's page lists is cited by a test of that game (one test id
per game of the registry)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from balance import games

ROOT = Path(__file__).resolve().parent.parent
ID = re.compile(r"\b(?:[A-Z]{2}|ENGINE)-\d+\b")


@pytest.mark.parametrize("name", games.names())
def test_every_ruling_a_game_cites_is_explained_in_its_rules_page(name):
    doc = ROOT / "docs" / "rules" / f"{name}.md"
    assert doc.is_file(), f"docs/rules/{name}.md is missing"
    text = doc.read_text()
    cited = set()
    for path in (ROOT / "balance" / "games" / name).glob("*.py"):
        cited |= set(ID.findall(path.read_text()))
    assert cited, f"{name} cites no ruling"
    missing = sorted(i for i in cited if not re.search(rf"\b{re.escape(i)}\b", text))
    assert not missing, f"docs/rules/{name}.md does not explain {', '.join(missing)}"


def test_the_rules_index_lists_every_game():
    index = (ROOT / "docs" / "rules" / "README.md").read_text()
    for name in games.names():
        assert f"{name}.md" in index


# The rulings and the engine's readings each game's rules page lists (``FR-3``, ``ENGINE-2``):
# every one is cited, by its id, in the name or the docstring of a test under tests/games/<game>/
# (``test_fr_3_...`` or "ENGINE-2: ..."), so that a reading the engine makes is one a test pins.
# A game whose page has no ENGINE-n reading yet (Five Ravens, until its readings are numbered)
# is checked on its rulings alone.
DOC_ID = re.compile(r"\b([A-Z]{2}|ENGINE)-(\d+)\b")
# Cited ids still missing, per game: strict xfails, so that citing them fails until the entry
# goes.
UNCITED: dict[str, str] = {}  # game -> why its uncited ids are accepted (strict xfail)


def _documented_ids(name: str) -> set[str]:
    """``prefix-n`` (lower case) of every ruling and engine reading of docs/rules/<name>.md."""
    text = (ROOT / "docs" / "rules" / f"{name}.md").read_text()
    return {f"{p.lower()}-{int(n)}" for p, n in DOC_ID.findall(text)}


def _cited_ids(name: str, prefixes: set[str]) -> set[str]:
    """``prefix-n`` of every id of ``prefixes`` the tests of tests/games/<name>/ cite in a test's
    name or docstring (``test_cv_3_...``, ``CV-3``, ``engine 2``)."""
    cited: set[str] = set()
    pattern = re.compile(rf"\b({'|'.join(sorted(prefixes))})[- ]?(\d+)\b")
    for path in sorted((ROOT / "tests" / "games" / name).glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
                "test_"
            ):
                text = f"{node.name} {ast.get_docstring(node) or ''}".lower().replace("_", " ")
                cited |= {f"{p}-{int(n)}" for p, n in pattern.findall(text)}
    return cited


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(reason=UNCITED[n], strict=True))
        if n in UNCITED
        else n
        for n in games.names()
    ],
)
def test_every_ruling_and_engine_reading_is_cited_by_a_test(name):
    documented = _documented_ids(name)
    assert documented, f"docs/rules/{name}.md lists no ruling"
    prefixes = {i.rsplit("-", 1)[0] for i in documented}
    uncited = documented - _cited_ids(name, prefixes)
    order = sorted(uncited, key=lambda i: (i.rsplit("-", 1)[0], int(i.rsplit("-", 1)[1])))
    assert not order, f"no test under tests/games/{name}/ cites {', '.join(order).upper()}"


@pytest.mark.parametrize("name", games.names())
def test_the_engine_lists_the_readings_its_rules_page_numbers(name):
    """The ENGINE-n readings of a game's engine.py docstring are exactly those its rules page
    numbers, so that neither can gain or drop one alone."""
    import importlib

    engine = importlib.import_module(f"balance.games.{name}.engine")
    in_code = {f"engine-{int(n)}" for n in re.findall(r"ENGINE-(\d+)", engine.__doc__ or "")}
    in_docs = {i for i in _documented_ids(name) if i.startswith("engine-")}
    assert in_code == in_docs
