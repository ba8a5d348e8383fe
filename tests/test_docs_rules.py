"""docs/rules/ explains every ruling the engines cite (issue 14, part 5): a user who sees `FR-10`
in `balance games` or a replay can look it up in the repository, without any file outside it."""

from __future__ import annotations

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
