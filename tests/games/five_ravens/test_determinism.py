"""Game i of seed s is the same game whatever the chunking, the thread count or the backend
(DESIGN.md, Determinism)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from itertools import pairwise

import numba
import numpy as np
import pytest

from balance.config import load_config
from balance.games.five_ravens import engine
from balance.games.five_ravens.state import (
    E_ACTION,
    E_CAPT3,
    E_CAPTURE5,
    E_CAPTURED,
    E_DRAW,
    E_LOCK,
    E_ROUND,
    E_STEAL,
    E_THIEF,
)
from balance.games.five_ravens.tables import compile_tables

from .helpers import CONFIGS, ROOT, log, pile_cards, play_one

FIELDS = ("score", "rank", "turns", "end_reason", "order", "telemetry")


def arrays(chunk) -> dict[str, np.ndarray]:
    out = {f: getattr(chunk, f) for f in FIELDS}
    out.update({f"extra_{k}": v for k, v in chunk.extra.items()})
    return out


def assert_same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> None:
    assert a.keys() == b.keys()
    for k in a:
        assert a[k].dtype == b[k].dtype, k
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


@pytest.fixture(scope="module")
def mixed():
    return compile_tables(load_config(CONFIGS / "random_vs_greedy.yaml"))


def test_same_games_whatever_the_chunking(mixed):
    whole = arrays(engine.play(mixed, 7, 0, 700))
    bounds = [0, 1, 300, 556, 700]  # uneven, across the kernel's 256-game blocks
    parts = [arrays(engine.play(mixed, 7, a, b - a)) for a, b in pairwise(bounds)]
    joined = {k: np.concatenate([p[k] for p in parts]) for k in whole}
    assert_same(whole, joined)
    # a chunk's first_game offsets the game index: games 300.. of the run, not games 0..
    late = engine.play(mixed, 7, 300, 10)
    assert late.first_game == 300
    np.testing.assert_array_equal(late.score, whole["score"][300:310])


def test_same_games_whatever_the_thread_count(mixed):
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = arrays(engine.play(mixed, 11, 5, 800))
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = arrays(engine.play(mixed, 11, 5, 800))
    finally:
        numba.set_num_threads(before)
    assert_same(one, two)


def test_same_seed_same_games_other_seed_other_games(mixed):
    a = engine.play(mixed, 3, 0, 300)
    b = engine.play(mixed, 3, 0, 300)
    c = engine.play(mixed, 4, 0, 300)
    assert_same(arrays(a), arrays(b))
    assert not np.array_equal(a.score, c.score)
    assert not np.array_equal(a.telemetry, c.telemetry)
    # and games within a run differ from each other
    assert len({tuple(row) for row in a.score}) > 100


def test_play_checks_its_inputs(mixed):
    with pytest.raises(ValueError, match="n_games"):
        engine.play(mixed, 1, 0, -1)
    with pytest.raises(ValueError, match="seed"):
        engine.play(mixed, -1, 0, 10)
    with pytest.raises(ValueError, match="seed"):
        engine.play(mixed, 2**63, 0, 10)
    empty = engine.play(mixed, 1, 0, 0)
    assert empty.n_games == 0


@pytest.mark.parametrize(
    "name", ["random_vs_greedy.yaml", "two_players.yaml", "three_players.yaml"]
)
def test_the_batch_kernel_plays_the_single_game_kernels_games(name):
    """Row i of ``engine.play`` is ``play_game`` of game first_game + i: same scores and ranks,
    and the turns, opening order, captured counts and telemetry counts agree with its event log."""
    cfg = load_config(CONFIGS / name)
    c = compile_tables(cfg)
    P = cfg.players
    chunk = engine.play(c, 5, 100, 60)
    col = {name: j for j, name in enumerate(c.columns)}

    def type_name(x):
        return c.card_type_name(x if x < 9 else 9 + int(c.k.cards[0, x - 9]))

    for i in range(60):
        st_, score, rank = play_one(c, 5, 100 + i)
        assert chunk.score[i].tolist() == score and chunk.rank[i].tolist() == rank
        tele = np.zeros((P, len(col)), np.int64)
        turns = 0
        for code, *a in log(st_):
            counted = []
            if code == E_DRAW:
                counted = [("drawn", a[1])]
            elif code == E_ACTION and not a[2]:
                counted = [("played", a[1])]
            elif code == E_THIEF:
                counted = [("thief", a[1])]
            elif code == E_STEAL:
                counted = [("stolen", a[2])] + [("captured", a[2])] * (a[4] > 0)
            elif code in (E_CAPTURED, E_CAPTURE5):
                counted = [("captured", a[1])]
            for event, card in counted:
                tele[a[0], col[f"{event}__{type_name(card)}"]] += 1
            turns += code in (E_CAPT3, E_LOCK, E_THIEF) or (code == E_ACTION and not a[2])
        np.testing.assert_array_equal(chunk.telemetry[i], np.minimum(tele, 255))
        assert chunk.turns[i] == turns
        captured = [len(pile_cards(st_, p, "captured")) for p in range(P)]
        assert chunk.extra["captured"][i].tolist() == captured
        _, _, first = next(e for e in log(st_) if e[0] == E_ROUND)  # round 0's first player
        assert chunk.order[i].tolist() == [(p - first) % P for p in range(P)]


PLAIN_PYTHON = textwrap.dedent(
    """
    import sys

    import numpy as np

    np.seterr(over="ignore")  # uint64 arithmetic wraps by design in the RNG

    from balance.config import load_config
    from balance.games.five_ravens import engine
    from balance.games.five_ravens.tables import compile_tables

    out = {}
    for i, path in enumerate(sys.argv[2:]):
        chunk = engine.play(compile_tables(load_config(path)), 2024, 1000, 100)
        for name in ("score", "rank", "turns", "end_reason", "order", "telemetry"):
            out[f"{i}_{name}"] = getattr(chunk, name)
        for name, v in chunk.extra.items():
            out[f"{i}_extra_{name}"] = v
    np.savez(sys.argv[1], **out)
    """
)


@pytest.mark.slow
def test_plain_python_kernels_play_the_same_games(tmp_path):
    """NUMBA_DISABLE_JIT=1 runs the kernels as plain Python: same games, bit for bit."""
    configs = [
        CONFIGS / n for n in ("random_vs_greedy.yaml", "two_players.yaml", "three_players.yaml")
    ]
    out = tmp_path / "plain.npz"
    script = tmp_path / "plain.py"
    script.write_text(PLAIN_PYTHON)
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run(
        [sys.executable, str(script), str(out), *map(str, configs)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    plain = np.load(out)
    for i, path in enumerate(configs):
        jit = arrays(engine.play(compile_tables(load_config(path)), 2024, 1000, 100))
        assert_same(jit, {k: plain[f"{i}_{k}"] for k in jit})
