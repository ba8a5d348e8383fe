"""Shared fixtures: the fake game plugin (tests/fake_game.py) registered as game ``fake``."""

from __future__ import annotations

import contextlib
import warnings

import fake_game as fake
import pytest

from balance import games

# When a hypothesis test fails, its pytest plugin imports hypothesis.extra._patching, which imports
# libcst, which raises a DeprecationWarning (mypy_extensions.TypedDict); with the project's
# `filterwarnings = error` that turns a readable failure into an INTERNALERROR that hides it.
# Importing it once here, with that warning ignored, keeps failures readable.
with warnings.catch_warnings(), contextlib.suppress(ImportError):
    warnings.simplefilter("ignore", DeprecationWarning)
    import hypothesis.extra._patching  # noqa: F401


@pytest.fixture
def fake_game(monkeypatch):
    """Register the fake game as ``fake`` for one test; yields its plugin (fresh counters)."""
    monkeypatch.setitem(games._GAMES, "fake", fake.__name__)
    fake.PLUGIN.reset()
    yield fake.PLUGIN
    fake.PLUGIN.reset()


@pytest.fixture
def fake_config(fake_game, tmp_path):
    """Path of a valid 3-player, 50-game config of the fake game."""
    return fake.write_config(tmp_path / "fake.yaml")


@pytest.fixture
def fake_roles_game(monkeypatch):
    """Register the scripted game whose teams and roles change per game (tests/fake_roles_game.py)
    as ``fake_roles``; yields its plugin."""
    import fake_roles_game

    monkeypatch.setitem(games._GAMES, "fake_roles", fake_roles_game.__name__)
    yield fake_roles_game.PLUGIN
