"""Session fixtures for the Raven Manor engine tests: compiled tables shared by every test, one
set per player count (``helpers.TableCache``), and a ``build`` fixture that makes a hand-built
position from them (``helpers.scene``)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from .helpers import Scene, TableCache, scene


@pytest.fixture(scope="session")
def manor() -> TableCache:
    """configs/raven_manor/all_cards.yaml (every card and character) compiled per player count."""
    return TableCache()


@pytest.fixture
def build(manor: TableCache) -> Callable[..., Scene]:
    """``build(chars, hands=..., deck=..., scripts=..., ...)``: a hand-built position."""
    return functools.partial(scene, manor)


@pytest.fixture(autouse=True)
def _plain_python_wraps() -> Iterator[None]:
    """Under ``NUMBA_DISABLE_JIT=1`` the kernels' uint64 arithmetic runs in NumPy, which warns on
    the wrap-around it relies on (balance/rng.py); compiled, nothing warns."""
    with np.errstate(over="ignore"):
        yield
