"""Session fixtures for the Five Ravens engine tests: configs and compiled tables shared by every
test (compiling tables is cheap; the numba kernels are compiled once and cached on disk)."""

from __future__ import annotations

import pytest

from balance.games.five_ravens.tables import Compiled, compile_tables

from .helpers import config, scripted


@pytest.fixture(scope="session")
def fr2() -> Compiled:
    """Two scripted seats, RULINGS.md defaults."""
    return scripted(config(2))


@pytest.fixture(scope="session")
def fr3() -> Compiled:
    """Three scripted seats, RULINGS.md defaults."""
    return scripted(config(3))


@pytest.fixture(scope="session")
def fr4() -> Compiled:
    """Four scripted seats, RULINGS.md defaults."""
    return scripted(config(4))


@pytest.fixture(scope="session")
def random4() -> Compiled:
    """Four random seats."""
    return compile_tables(config(4, ["random"] * 4))


@pytest.fixture(scope="session")
def greedy4() -> Compiled:
    """Four greedy seats (configs/five_ravens/base.yaml)."""
    return compile_tables(config(4))
