"""Shared fixtures: the fake game plugins (tests/kit/fake_game.py) and the xdist compile lock."""

from __future__ import annotations

import contextlib
import os
import warnings
from pathlib import Path

import pytest
from kit import fake_game as fake

from balance import games

# When a hypothesis test fails, its pytest plugin imports hypothesis.extra._patching, which imports
# libcst, which raises a DeprecationWarning (mypy_extensions.TypedDict); with the project's
# `filterwarnings = error` that turns a readable failure into an INTERNALERROR that hides it.
# Importing it once here, with that warning ignored, keeps failures readable.
with warnings.catch_warnings(), contextlib.suppress(ImportError):
    warnings.simplefilter("ignore", DeprecationWarning)
    import hypothesis.extra._patching  # noqa: F401


@pytest.fixture(scope="session", autouse=True)
def _kernels_compiled_once():
    """Under xdist, compile each game's kernels in one worker, not in every one.

    The workers share numba's cache folder, and a cold cache made every worker compile every
    game at the same time (a minute of CPU per game and worker). Each worker first loads or
    compiles the games' batch kernels, narration, decision-point kernels (Position) and search
    kernels (see ``_warm``) under a file lock per game in that folder,
    starting from a different game (gw0 the first, gw1 the second, ...): the workers compile
    different games side by side, and a worker that finds a game's lock taken goes on to the
    next game, coming back to it at the end (then it waits, and loads that game from the cache).
    With a warm cache this costs each worker a second.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        yield
        return
    try:
        import fcntl
    except ImportError:  # no flock (Windows): every worker compiles, as before
        yield
        return
    import numba

    root = Path(__file__).resolve().parent.parent
    names = games.names()
    k = int(worker.removeprefix("gw") or 0) % len(names)
    folder = Path(numba.config.CACHE_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    pending = names[k:] + names[:k]
    while pending:
        # A game whose lock another worker holds is left for later (not waited on) while any
        # other game is still to do: a worker that blocked on it sat idle for that game's
        # whole compile, with one of CI's two cores doing nothing.
        for i, name in enumerate(pending):
            lock = open(folder / f"compiling-{name}.lock", "w")  # noqa: SIM115
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | (fcntl.LOCK_NB if i < len(pending) - 1 else 0))
            except BlockingIOError:
                lock.close()
                continue
            try:
                _warm(root, name)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
                lock.close()
            del pending[i]
            break
    yield


def _warm(root: Path, name: str) -> None:
    """Load or compile every kernel of one game the suite calls: those of its base config and of
    its first search config, then those of any shipped config whose tables are of another type
    (Raven Manor's reasoning line-ups compile kernels of their own, ``ReasoningTables``), so that
    one worker compiles them, under the game's lock, and the other never compiles them too."""
    from balance.config import load_config
    from balance.config.overrides import parse_overrides

    plugin = games.get(name)
    folder = root / "configs" / name
    warmed = set()
    for path in [folder / "base.yaml", *sorted(folder.glob("*.yaml"))]:
        search = path.name.startswith("search_")
        tables = plugin.compile(load_config(path, parse_overrides(SMALL if search else [])))
        key = (search, type(getattr(tables, "inner", tables).tb))
        if key in warmed:
            continue
        warmed.add(key)
        if search:
            _search_kernels(plugin, tables)
        else:
            plugin.play(tables, 1, 0, 0)
            plugin.narrate(tables, 1, 0)
            _decision_kernels(plugin, tables)


SMALL = ["policies.mcts.iterations=2"]  # the search kernels' types, not their games


def _decision_kernels(plugin, tables) -> None:
    """Compile (or load) the kernels a Position calls: many tests of both workers step games
    decision by decision, and two workers compiling the same kernel at once pay for it twice."""
    from balance.games.position import Position

    pos = Position(plugin, tables, 1, 0)
    pos.observe(0)
    pos.determinize(pos.actor, 7)
    for _ in range(3):
        if pos.done:
            break
        pos.apply(int(pos.options()[0]))
        if not pos.done:
            pos.play_policy()


def _search_kernels(plugin, tables) -> None:
    """Compile (or load) a game's search kernels: its batch (one game at 2 iterations) and the
    search of one decision (``decide``, which replay and the leak tests call)."""
    from balance.games.position import Position
    from balance.search import decide, search_stream, searching

    plugin.play(tables, 1, 0, 1)
    pos = Position(plugin, tables.inner, 1, 0)
    while not pos.done and not searching(pos, tables):
        pos.play_policy()
    if not pos.done:
        decide(pos, tables, search_stream(1, 0, pos.actor))


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
def fake_traced_game(monkeypatch):
    """Register the hashed game with trajectories (``fake.traced_game``) as ``fake_traced``;
    yields its plugin (fresh counters)."""
    monkeypatch.setitem(games._GAMES, "fake_traced", fake.traced_game.__name__)
    fake.traced_game.PLUGIN.reset()
    yield fake.traced_game.PLUGIN
    fake.traced_game.PLUGIN.reset()


@pytest.fixture
def fake_roles_game(monkeypatch):
    """Register the scripted game whose teams and roles change per game (``fake.roles``, see
    tests/kit/fake_game.py) as ``fake_roles``; yields its plugin."""
    monkeypatch.setitem(games._GAMES, "fake_roles", fake.roles.__name__)
    yield fake.roles.PLUGIN
