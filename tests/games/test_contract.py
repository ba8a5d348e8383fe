"""The contracts every registered game keeps (DESIGN.md, The game protocol and Contracts).

Each test runs once per game in the registry, on the game's shipped ``configs/<name>/base.yaml``;
nothing here knows a game's rules. A new game gets all of it by registering.

- Determinism: game ``i`` of seed ``s`` is the same game whatever the chunk size or thread count,
  the same seed plays the same games, another seed other games.
- Common random numbers: a variant of the config (the game's own ``impact_variants``) plays each
  game from the same per-game stream, seen in the opening turn order.
- The protocol's arrays: shapes, dtypes and codes; fresh arrays on every call; ``play(n_games=0)``
  loads the kernels; play's input checks.
- ``replay`` of game ``i`` is row ``i``; compiled kernels equal ``NUMBA_DISABLE_JIT=1``;
  ``balance simulate`` writes the same dataset for any threads and chunk size.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from itertools import combinations, pairwise
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from balance import games, results
from balance.cli import app
from balance.config import RunConfig, load_config
from balance.experiments import Variant, apply_patch
from balance.search import SearchTables

ROOT = Path(__file__).resolve().parents[2]
SEED = 7
N = 700  # games of the shared chunk; spans several of a kernel's blocks of games
FIELDS = ("score", "rank", "turns", "end_reason", "order", "telemetry")
OPTIONAL = ("team", "role", "saturated")  # None when the game has no such thing


class Game(NamedTuple):
    name: str
    plugin: Any
    path: Path  # configs/<name>/base.yaml
    config: RunConfig
    tables: Any


# The registered games, and the tests' fake game (tests/kit/fake_game.py, its instance with an
# impact variant), which keeps the same contract: registered as ``fake`` for its tests, on a
# config of its own.
FAKE = "fake"
# Tests that start a fresh process, where the fake is not registered: it has no kernels to load
# or to run as plain Python anyway (numpy only).
IN_A_FRESH_PROCESS = {
    "test_play_of_no_games_loads_the_kernels",
    "test_compiled_kernels_equal_plain_python",
}


@pytest.fixture(scope="module", params=[*games.names(), FAKE])
def game(request, tmp_path_factory) -> Iterator[Game]:
    """A registered game with its compiled base config (the kernels compile once per process)."""
    name = request.param
    if name != FAKE:
        plugin = games.get(name)
        path = ROOT / "configs" / name / "base.yaml"
        config = load_config(path)
        yield Game(name, plugin, path, config, plugin.compile(config))
        return
    from kit import fake_game

    with pytest.MonkeyPatch.context() as m:
        m.setitem(games._GAMES, FAKE, fake_game.contract.__name__)
        path = fake_game.write_config(tmp_path_factory.mktemp("fake") / "base.yaml")
        config = load_config(path)
        plugin = games.get(FAKE)
        yield Game(FAKE, plugin, path, config, plugin.compile(config))


@pytest.fixture(autouse=True)
def _fake_stays_in_this_process(request):
    callspec = getattr(request.node, "callspec", None)
    game = callspec.params.get("game") if callspec is not None else None
    if game == FAKE and request.node.originalname in IN_A_FRESH_PROCESS:
        pytest.skip("the fake game is registered in this process only and has no kernels")


@pytest.fixture(scope="module")
def whole(game):
    """Games [0, N) of seed SEED in one chunk (read-only: tests share it)."""
    return game.plugin.play(game.tables, SEED, 0, N)


def arrays(chunk) -> dict[str, np.ndarray]:
    """Every array of a chunk by name (extra columns as ``extra_<name>``)."""
    out = {f: getattr(chunk, f) for f in FIELDS}
    out.update({f"extra_{k}": v for k, v in chunk.extra.items()})
    out.update({f: getattr(chunk, f) for f in OPTIONAL if getattr(chunk, f) is not None})
    return out


def assert_same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> None:
    assert a.keys() == b.keys()
    for k in a:
        assert a[k].dtype == b[k].dtype, k
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


def per_game(chunk) -> dict[str, np.ndarray]:
    """The arrays whose first axis is the game (``saturated`` counts over the whole chunk)."""
    return {k: v for k, v in arrays(chunk).items() if k != "saturated"}


@pytest.fixture
def numba_threads() -> Iterator[Any]:
    """numba itself, with its thread count restored after the test."""
    import numba

    before = numba.get_num_threads()
    yield numba
    numba.set_num_threads(before)


# ================================================================================== determinism


def test_same_games_whatever_the_chunk_size(game, whole):
    bounds = [0, 1, 64, 300, 556, N]  # uneven, across the kernels' blocks of games
    chunks = [game.plugin.play(game.tables, SEED, a, b - a) for a, b in pairwise(bounds)]
    parts = [per_game(c) for c in chunks]
    assert_same(per_game(whole), {k: np.concatenate([p[k] for p in parts]) for k in parts[0]})
    if whole.saturated is not None:  # the clipped cells of a run are its chunks' sum
        np.testing.assert_array_equal(sum(c.saturated for c in chunks), whole.saturated)
    # a chunk's first_game offsets the game index: games 300.. of the run, not games 0..
    late = game.plugin.play(game.tables, SEED, 300, 10)
    assert late.first_game == 300
    assert_same(per_game(late), {k: v[300:310] for k, v in per_game(whole).items()})


def test_same_games_whatever_the_thread_count(game, numba_threads):
    numba_threads.set_num_threads(1)
    one = arrays(game.plugin.play(game.tables, 11, 5, 800))
    numba_threads.set_num_threads(min(2, numba_threads.config.NUMBA_NUM_THREADS))
    two = arrays(game.plugin.play(game.tables, 11, 5, 800))
    assert_same(one, two)


def test_same_seed_same_games_other_seed_other_games(game, whole):
    again = game.plugin.play(game.tables, SEED, 0, N)
    other = game.plugin.play(game.tables, SEED + 1, 0, N)
    assert_same(arrays(whole), arrays(again))
    assert not np.array_equal(whole.telemetry, other.telemetry)
    assert not np.array_equal(whole.order, other.order)
    # and the games of one run differ from each other (one stream per game, not one per run)
    assert len(np.unique(whole.telemetry.reshape(N, -1), axis=0)) > N // 2


def test_common_random_numbers_between_two_configs(game, whole):
    """A variant of the config plays game ``i`` from the same stream as the config: some variant
    that changes the games keeps every game's opening turn order (drawn from the game's stream;
    ``test_same_seed_same_games_other_seed_other_games`` shows it is not fixed). Streams that
    depended on the config would share an opening only by chance, never in all N games."""
    kept: dict[str, float] = {}
    for v in game.plugin.impact_variants(game.config):
        variant = Variant(v["name"], v.get("description", ""), v["patch"])
        config = apply_patch(game.config, variant, source=f"{game.name}.impact_variants")
        if config.players != game.config.players:
            continue
        chunk = game.plugin.play(game.plugin.compile(config), SEED, 0, N)
        if np.array_equal(chunk.score, whole.score) and np.array_equal(
            chunk.telemetry, whole.telemetry
        ):
            continue  # not a change these games see
        kept[variant.name] = float((chunk.order == whole.order).all(axis=1).mean())
        if kept[variant.name] == 1.0:
            return
    pytest.fail(f"no variant keeps every opening turn order; share kept by each: {kept}")


# ================================================================================ the protocol


def test_chunk_shapes_dtypes_and_codes(game, whole):
    p, n = game.config.players, N
    columns = game.plugin.telemetry_columns(game.tables)
    c = len(columns)
    assert whole.first_game == 0 and whole.n_games == n
    expected = {
        "score": (np.int32, (n, p)),
        "rank": (np.int32, (n, p)),
        "order": (np.int32, (n, p)),
        "turns": (np.int32, (n,)),
        "end_reason": (np.int32, (n,)),
        "telemetry": (np.uint8, (n, p, c)),
    }
    expected.update({f"extra_{k}": (np.int32, (n, p)) for k in whole.extra})
    for k, (dtype, shape) in expected.items():
        a = arrays(whole)[k]
        assert (a.dtype, a.shape) == (np.dtype(dtype), shape), k
    assert len(set(columns)) == c
    assert set(whole.extra).isdisjoint(columns)
    assert set(whole.end_reason.tolist()) <= set(range(len(game.plugin.end_reasons)))
    # ranks: 1 = winner, every game has one; order: each game's opening order is a permutation
    assert whole.rank.min() >= 1 and whole.rank.max() <= p
    assert (whole.rank.min(axis=1) == 1).all()
    np.testing.assert_array_equal(np.sort(whole.order, axis=1), np.tile(np.arange(p), (n, 1)))
    assert (whole.turns >= 0).all()
    for what in ("team", "role"):
        codes, names = (
            getattr(whole, what),
            tuple(getattr(game.plugin, f"{what}_names")(game.tables)),
        )
        if codes is None:
            assert names == (), f"{what}_names {names} but Chunk.{what} is None"
        else:
            assert names, f"Chunk.{what} given but {what}_names is empty"
            assert (codes.dtype, codes.shape) == (np.dtype(np.int32), (n, p)), what
            assert codes.min() >= 0 and codes.max() < len(names), what
    if whole.saturated is not None:
        assert (whole.saturated.dtype, whole.saturated.shape) == (np.dtype(np.int64), (c,))
        assert (whole.saturated >= 0).all()
        # a column counted as clipped holds a cell at the cap
        at_cap = (whole.telemetry == 255).any(axis=(0, 1))
        assert not (whole.saturated > 0)[~at_cap].any()


def test_fresh_arrays_on_every_call(game):
    """No array of a chunk shares memory with another array of it or of an earlier call's chunk:
    the runner hands a chunk to the writer while the next one is played."""
    chunks = [arrays(game.plugin.play(game.tables, SEED, first, 300)) for first in (0, 0, 300)]
    named = [(i, k, a) for i, chunk in enumerate(chunks) for k, a in chunk.items()]
    for (i, k, a), (j, m, b) in combinations(named, 2):
        assert not np.shares_memory(a, b), f"call {i} {k} and call {j} {m}"


def test_play_checks_its_inputs(game):
    play = game.plugin.play
    for seed, first, n in ((1, 0, -1), (1, -1, 10), (-1, 0, 10), (2**63, 0, 10)):
        with pytest.raises(ValueError):
            play(game.tables, seed, first, n)
    with pytest.raises(ValueError, match="n_games"):
        play(game.tables, 1, 0, -1)
    with pytest.raises(ValueError, match="seed"):
        play(game.tables, 2**63, 0, 10)
    play(game.tables, 2**63 - 1, 0, 2)  # the largest seed is valid


def test_play_of_no_games_is_an_empty_chunk(game, whole):
    empty = game.plugin.play(game.tables, SEED, 5, 0)
    assert empty.n_games == 0 and empty.first_game == 5
    got, full = arrays(empty), arrays(whole)
    assert got.keys() == full.keys()
    for k, a in got.items():
        shape = full[k].shape if k == "saturated" else (0, *full[k].shape[1:])
        assert (a.dtype, a.shape) == (full[k].dtype, shape), k
    if empty.saturated is not None:
        assert not empty.saturated.any()


LOADED = textwrap.dedent(
    """
    import json
    import sys

    from numba.core.dispatcher import Dispatcher

    from balance import games
    from balance.config import load_config


    def loaded():
        # every compiled (or cache-loaded) specialisation of the games' kernels
        return {
            f"{name}.{attr}": [str(s) for s in f.signatures]
            for name, mod in list(sys.modules.items())
            if name.startswith("balance.games")
            for attr, f in vars(mod).items()
            if isinstance(f, Dispatcher) and f.signatures
        }


    plugin = games.get(sys.argv[1])
    tables = plugin.compile(load_config(sys.argv[2]))
    plugin.play(tables, 3, 0, 0)
    after_none = loaded()
    plugin.play(tables, 3, 0, 40)
    print(json.dumps({"after_none": after_none, "after_games": loaded()}))
    """
)


@pytest.mark.slow
def test_play_of_no_games_loads_the_kernels(game, tmp_path):
    """In a fresh process ``play(n_games=0)`` compiles or loads every kernel that playing games
    then runs, so that the runner times start-up apart from the games (no timing asserted)."""
    script = tmp_path / "loaded.py"
    script.write_text(LOADED)
    done = subprocess.run(
        [sys.executable, str(script), game.name, str(game.path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,  # a cold compile, if a kernel source changed since the cache was written
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.splitlines()[-1])
    assert got["after_none"], "play(n_games=0) loaded no kernel"
    assert got["after_games"] == got["after_none"], "kernels loaded only when games were played"


# ================================================================================ replay, plain
# Python, the dataset

REPLAYED = (0, 1, 17, 300, 555, 699)


def test_replay_is_the_game_of_its_row(game, whole):
    """``plugin.replay`` of game ``i`` is row ``i`` of a chunk that holds it, wherever the chunk
    starts (and the dataset's rows are the chunk's: test_simulate_...)."""
    late = game.plugin.play(game.tables, SEED, 250, N - 250)
    for i in REPLAYED:
        chunk = whole if i < 250 else late
        row = i - chunk.first_game
        rep = game.plugin.replay(game.tables, SEED, i)
        assert rep.lines and all(isinstance(line, str) for line in rep.lines), i
        assert np.asarray(rep.score).tolist() == chunk.score[row].tolist(), i
        assert np.asarray(rep.rank).tolist() == chunk.rank[row].tolist(), i
        assert int(rep.turns) == int(chunk.turns[row]), i
        assert int(rep.end_reason) == int(chunk.end_reason[row]), i
    # narrate is the replay's lines, and telling a game twice tells it the same way
    assert game.plugin.narrate(game.tables, SEED, 17) == rep_lines(game, 17)
    assert rep_lines(game, 17) == rep_lines(game, 17)


def rep_lines(game: Game, i: int) -> list[str]:
    return list(game.plugin.replay(game.tables, SEED, i).lines)


def test_replay_checks_its_inputs(game):
    for seed, i in ((1, -1), (-1, 0), (2**63, 0)):
        with pytest.raises(ValueError):
            game.plugin.replay(game.tables, seed, i)


PLAIN_PYTHON = textwrap.dedent(
    """
    import sys

    import numpy as np

    np.seterr(over="ignore")  # uint64 arithmetic wraps by design in the RNG

    from balance import games
    from balance.config import load_config

    name, out, seed, first, n, *paths = sys.argv[1:]
    plugin = games.get(name)
    arrays = {}
    for i, path in enumerate(paths):
        tables = plugin.compile(load_config(path))
        # a config with search seats: its games with every search seat playing its rollout
        # policy (the search's clock, an LLVM intrinsic, has no plain-Python form; its games are
        # tests/games/test_search.py's)
        tables = getattr(tables, "inner", tables)
        chunk = plugin.play(tables, int(seed), int(first), int(n))
        for k in ("score", "rank", "turns", "end_reason", "order", "telemetry"):
            arrays[f"{i}/{k}"] = getattr(chunk, k)
        for k, v in chunk.extra.items():
            arrays[f"{i}/extra_{k}"] = v
        for k in ("team", "role", "saturated"):
            if getattr(chunk, k) is not None:
                arrays[f"{i}/{k}"] = getattr(chunk, k)
    np.savez(out, **arrays)
    """
)
PLAIN_GAMES = 20  # plain-Python kernels are 100-2000x slower than compiled ones


def shipped_configs(name: str) -> list[Path]:
    """The game's ready-made configs (configs/<name>/*.yaml, base.yaml first)."""
    folder = ROOT / "configs" / name
    return sorted(folder.glob("*.yaml"), key=lambda p: (p.name != "base.yaml", p.name))


@pytest.mark.slow
def test_compiled_kernels_equal_plain_python(game, tmp_path):
    """``NUMBA_DISABLE_JIT=1`` runs the kernels as plain Python: the same games, bit for bit, on
    a few games of every shipped config (catches uint64/int64 promotions that differ in NumPy)."""
    paths = shipped_configs(game.name)
    script, out = tmp_path / "plain.py", tmp_path / "plain.npz"
    script.write_text(PLAIN_PYTHON)
    args = [game.name, str(out), str(SEED), "1000", str(PLAIN_GAMES), *map(str, paths)]
    done = subprocess.run(
        [sys.executable, str(script), *args],
        env={**os.environ, "NUMBA_DISABLE_JIT": "1"},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    plain = np.load(out)
    searched = 0
    for i, path in enumerate(paths):
        tables = game.plugin.compile(load_config(path))
        if isinstance(tables, SearchTables):  # compared without the search, as the script does
            tables = tables.inner
            searched += 1
        jit = arrays(game.plugin.play(tables, SEED, 1000, PLAIN_GAMES))
        assert_same(jit, {k: plain[f"{i}/{k}"] for k in jit})
        assert {k for k in plain if k.startswith(f"{i}/")} == {f"{i}/{k}" for k in jit}, path
    # every game ships a search config (its kernels are checked there without the search)
    assert searched >= 1 or game.name == FAKE


SIMULATED = 3000


def simulate(game: Game, out: Path, threads: int, chunk_size: int) -> pl.DataFrame:
    cli = [
        "simulate",
        str(game.path),
        *("--games", str(SIMULATED), "--seed", str(SEED), "--out", str(out)),
        *("--threads", str(threads), "--chunk-size", str(chunk_size)),
    ]
    result = CliRunner().invoke(app, cli)
    assert result.exit_code == 0, result.output
    manifest, rows = results.open_results(out)
    assert manifest["status"] == "complete" and manifest["games_done"] == SIMULATED
    return rows.collect().sort("game", "seat")


def test_simulate_writes_the_same_dataset_for_any_threads_and_chunk_size(
    game, numba_threads, tmp_path
):
    a = simulate(game, tmp_path / "a", 1, 1000)
    b = simulate(game, tmp_path / "b", 2, 4096)
    p = game.config.players
    assert a.height == SIMULATED * p
    assert a.equals(b)
    # and row (i, seat) is seat's row of game i of plugin.play's run
    chunk = game.plugin.play(game.tables, SEED, 0, SIMULATED)
    np.testing.assert_array_equal(a["game"].to_numpy()[::p], np.arange(SIMULATED))
    for k in ("score", "rank", "order"):
        np.testing.assert_array_equal(a[k].to_numpy().reshape(-1, p), getattr(chunk, k))
    np.testing.assert_array_equal(a["turns"].to_numpy()[::p], chunk.turns)
    reasons = np.array(game.plugin.end_reasons)[chunk.end_reason]
    assert a["end_reason"].to_list()[::p] == reasons.tolist()
