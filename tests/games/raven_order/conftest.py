"""Session fixtures for The Raven Order engine tests: compiled tables shared by every test
(compiling tables is cheap; the numba kernels are compiled once and cached on disk)."""

from __future__ import annotations

import pytest

from balance.config import load_config
from balance.games.raven_order.tables import Compiled, compile_tables

from .helpers import BASE, compiled, scripted


@pytest.fixture(scope="session")
def base() -> Compiled:
    """configs/raven_order/base.yaml: economy against rush, RULINGS.md defaults."""
    return compile_tables(load_config(BASE))


@pytest.fixture(scope="session")
def ro() -> Compiled:
    """The base rules with two scripted seats (hand-built scenarios)."""
    return scripted(compiled())


@pytest.fixture(scope="session")
def ro4() -> Compiled:
    """Scripted seats; druids of power 4 and riders of power 3 (the rulebook's battle example)."""
    return scripted(compiled(rules={"units": {"druid": {"power": 4}, "rider": {"power": 3}}}))
