"""The game kit (balance/games/_kit.py) and the plugin base (balance.games.base.Game): the helpers
every game uses, and the standard layout the base enforces."""

from __future__ import annotations

import inspect
import sys
import textwrap
from typing import ClassVar

import numpy as np
import pytest
from numba import njit

from balance import games
from balance.games import _kit as kit
from balance.games.base import STANDARD_MODULES, Game, GameLayoutError, GamePlugin

# ---------------------------------------------------------------- offsets


def test_offsets_follow_the_declared_widths():
    at = kit.Offsets()
    assert [at(1), at(4), at(0), at(2)] == [0, 1, 5, 5]
    assert at.end == 7
    assert kit.Offsets(10)(3) == 10
    with pytest.raises(ValueError, match="width"):
        at(-1)


# ---------------------------------------------------------------- event log


@njit(cache=False)
def _log_three(board, aux):
    for k in range(3):
        kit.log_event(board, aux, 0, 1, 2, 7 + k, k, 2, 3, 4, 5, 6, 7)


def test_the_log_keeps_rows_while_it_has_room_and_counts_them():
    board = np.array([0, 2, 1], np.int32)  # n, cap, first row
    aux = np.zeros((4, 8), np.int32)
    _log_three(board, aux)
    assert board[0] == 2  # the third event found the log full
    assert aux[1].tolist() == [7, 0, 2, 3, 4, 5, 6, 7]
    assert aux[2].tolist() == [8, 1, 2, 3, 4, 5, 6, 7]
    assert not aux[0].any() and not aux[3].any()
    assert kit.copy_log(aux, 1, 2).tolist() == aux[1:3].tolist()


def test_play_logged_plays_again_with_more_room_until_the_log_fits():
    caps = []

    def play(cap: int) -> kit.Logged:
        caps.append(cap)
        rows = min(cap, 100)  # a game of 100 events: a log of fewer rows is full
        return kit.Logged(np.zeros((rows, 8), np.int32), None, np.zeros(2), np.zeros(2), 3, 0)

    logged = kit.play_logged(play, 1, 0, cap=8)
    assert caps == [8, 32, 128] and logged.log.shape[0] == 100


def test_replay_arguments_are_checked_before_playing():
    def play(cap: int) -> kit.Logged:
        raise AssertionError("played")

    with pytest.raises(ValueError, match="game must be >= 0, got -1"):
        kit.play_logged(play, 1, -1)
    with pytest.raises(ValueError, match=r"seed must be in \[0, 2\*\*63\)"):
        kit.play_logged(play, 2**63, 0)


# ---------------------------------------------------------------- shuffle


def test_shuffle_is_a_permutation_and_the_same_for_the_same_stream():
    from balance.rng import seed_stream

    def shuffled(seed: int) -> list[int]:
        rng = np.zeros(1, np.uint64)
        seed_stream(rng, seed, 3, 0)
        a = np.arange(10, dtype=np.int32)
        kit.shuffle(a, 8, rng)  # only the first 8 move
        return a.tolist()

    a = shuffled(1)
    assert sorted(a[:8]) == list(range(8)) and a[8:] == [8, 9]
    assert shuffled(1) == a and shuffled(2) != a


# ---------------------------------------------------------------- telemetry clipping


@njit(cache=False)
def _clip_rows(values, clipped, out):
    """The batch kernels' pattern: store clipped, OR the counts, tally only a row past 255."""
    for i in range(values.shape[0]):
        seen = 0
        for j in range(values.shape[1]):
            out[i, j] = kit.clip_u8(values[i, j])
            seen |= values[i, j]
        if seen > kit.U8_MAX:
            for j in range(values.shape[1]):
                kit.tally_clipped(values[i, j], clipped, j)


def test_clipped_cells_are_counted_per_column():
    values = np.array([[0, 255, 256, 9000], [300, 1, 255, 256], [7, 0, 255, 3]], np.int32)
    clipped = np.zeros(4, np.int64)
    out = np.zeros(values.shape, np.uint8)
    _clip_rows(values, clipped, out)
    assert out.tolist() == [[0, 255, 255, 255], [255, 1, 255, 255], [7, 0, 255, 3]]
    assert clipped.tolist() == [1, 0, 1, 2]  # 255 itself is not clipped


def test_clip_u8_and_tally_clipped_as_plain_functions():
    assert [kit.clip_u8(v) for v in (0, 255, 256, 10**6)] == [0, 255, 255, 255]
    clipped = np.zeros(2, np.int64)
    for v in (255, 256, 0, 1000):
        kit.tally_clipped(v, clipped, 1)
    assert clipped.tolist() == [0, 2]


def test_saturation_rows_are_one_per_block_and_sum_to_the_chunk():
    rows = kit.saturation_rows(n_games=513, block=256, n_columns=3)
    assert rows.shape == (3, 3) and rows.dtype == np.int64 and not rows.any()
    rows[0, 1], rows[2, 1], rows[1, 2] = 2, 5, 1
    total = kit.saturated(rows)
    assert total.dtype == np.int64 and total.tolist() == [0, 7, 1]
    assert kit.saturated(kit.saturation_rows(0, 64, 4)).tolist() == [0, 0, 0, 0]


# ---------------------------------------------------------------- play() checks


@pytest.mark.parametrize(
    ("seed", "first", "n", "message"),
    [
        (1, 0, -1, "first_game and n_games must be >= 0"),
        (1, -1, 10, "first_game and n_games must be >= 0"),
        (-1, 0, 10, r"seed must be in \[0, 2\*\*63\), got -1"),
        (2**63, 0, 10, r"seed must be in \[0, 2\*\*63\)"),
    ],
)
def test_check_play_rejects_bad_arguments(seed, first, n, message):
    with pytest.raises(ValueError, match=message):
        kit.check_play(seed, first, n)


def test_check_play_accepts_the_edges():
    kit.check_play(0, 0, 0)
    kit.check_play(2**63 - 1, 10**9, 1)


# ---------------------------------------------------------------- the plugin base


@pytest.mark.parametrize("name", games.names())
def test_every_built_game_has_the_standard_layout(name):
    plugin = games.get(name)
    assert isinstance(plugin, Game)
    assert plugin.layout_problems() == []
    # Raven Manor: sides change in play and characters are dealt; Corvids: birds are dealt
    assert bool(plugin.team_names(None)) == (name == "raven_manor")
    assert bool(plugin.role_names(None)) == (name in ("raven_manor", "corvids"))
    targets = {t.key: t for t in plugin.bench.targets()}
    assert list(targets) == ["games_per_s", "python_ratio", "warm_start_s"]  # a speed target each
    # the 100x for the two games whose kernels are the most work, 80x for the others
    assert targets["python_ratio"].threshold == (100 if name in ("corvids", "raven_manor") else 80)


def _declared(cls: type) -> set[str]:
    """The public names a class declares: its annotations, methods and properties."""
    names = set(inspect.get_annotations(cls))
    names |= {n for n, v in vars(cls).items() if callable(v) or isinstance(v, property)}
    return {n for n in names if not n.startswith("_")}


def test_the_protocol_lists_exactly_what_game_declares():
    """One plugin surface: every hook the rest of the tool calls is on both, with its default
    on Game (``layout_problems`` and ``module`` are the base's own loading of the modules)."""
    assert _declared(GamePlugin) == _declared(Game) - {"layout_problems", "module"}


def test_no_caller_asks_whether_a_plugin_has_a_hook():
    """Every hook has a default on Game, so the tool calls it directly (issue 27, item 3)."""
    import re
    from pathlib import Path

    import balance

    asks = re.compile(r"(getattr|hasattr)\((type\()?(self\.|run\.)?(plugin|game)\b")
    root = Path(balance.__file__).parent
    found = [
        f"{path.relative_to(root)}:{i}"
        for path in sorted(root.rglob("*.py"))
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if asks.search(line)
    ]
    assert found == []


def test_the_optional_hooks_have_their_defaults():
    class Bare(Game):  # a game that overrides none of them
        name, title, min_players, max_players, end_reasons = "bare", "Bare", 2, 2, ("over",)
        policy_kinds: ClassVar = {}

        def layout_problems(self) -> list[str]:
            return []

    plugin = Bare()
    assert plugin.check_config(None) is None
    assert plugin.replay_page(None, 1, 0) is None
    assert plugin.report_sections({}, None) == []
    assert (plugin.team_names(None), plugin.role_names(None), plugin.role_sides()) == ((), (), {})
    assert (plugin.deals_teams, plugin.draws_pictures) == (False, False)
    assert (plugin.outcome_events, plugin.describe_policy("random")) == ((), "")
    assert [t.key for t in plugin.bench.targets()] == ["python_ratio", "warm_start_s"]
    # and the games that override them say so
    assert [n for n in games.names() if games.get(n).deals_teams] == ["raven_manor"]
    assert [n for n in games.names() if games.get(n).draws_pictures] == ["corvids"]


def test_loading_the_registry_imports_no_numba():
    import subprocess

    code = (
        "import sys; from balance import games; "
        "[(games.get(n).rules_model, games.get(n).default_policies) for n in games.names()]; "
        "print('numba' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def _game_package(tmp_path, monkeypatch, name: str, modules: list[str], engine: str = "") -> None:
    pkg = tmp_path / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        textwrap.dedent(
            """
            from balance.games.base import Game


            class G(Game):
                name = "NAME"
                title = "A game"
                min_players = 2
                max_players = 2
                end_reasons = ("over",)
                policy_kinds = {}


            PLUGIN = G()
            """
        ).replace("NAME", name)
    )
    for m in modules:
        (pkg / f"{m}.py").write_text(engine if m == "engine" else "")
    monkeypatch.syspath_prepend(str(tmp_path))


def test_a_game_without_a_standard_module_fails_at_registration(tmp_path, monkeypatch):
    _game_package(tmp_path, monkeypatch, "half_game", ["schema", "tables", "state", "engine"])
    with pytest.raises(GameLayoutError) as err:
        __import__("half_game")
    message = str(err.value)
    assert "game 'half_game'" in message
    assert "has no policies.py, knowledge.py, narrate.py, search.py, variants.py" in message
    assert "every game has schema.py, tables.py, state.py" in message


def test_a_standard_module_without_its_standard_names_fails_when_loaded(tmp_path, monkeypatch):
    _game_package(tmp_path, monkeypatch, "bare_game", list(STANDARD_MODULES), "def play(): ...\n")
    plugin = __import__("bare_game").PLUGIN
    with pytest.raises(GameLayoutError, match=r"bare_game\.engine does not define play_batch"):
        plugin.play(None, 1, 0, 0)
    with pytest.raises(KeyError, match="not a standard game module"):
        plugin.module("physics")


def test_outputs_make_the_chunk_a_game_returns():
    """play_chunk's outputs: teams and roles only for a game that deals them, extra columns by
    name and contiguous, one saturation row per block."""
    from balance.games._kit import alloc_outputs, to_chunk

    out = alloc_outputs(5, 3, 4, 2, 2, role=True)
    out.extra[:, :, 1] = 7
    out.clipped[2, 3] = 1
    chunk = to_chunk(out, 10, ("a", "b"), role=True)
    assert chunk.first_game == 10 and chunk.n_games == 5
    assert chunk.team is None and chunk.role.shape == (5, 3)
    assert chunk.extra["b"].flags.c_contiguous and (chunk.extra["b"] == 7).all()
    assert out.clipped.shape == (3, 4) and chunk.saturated.tolist() == [0, 0, 0, 1]
    assert chunk.telemetry.shape == (5, 3, 4) and chunk.telemetry.dtype == np.uint8


# ---------------------------------------------------------------- threads


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
@pytest.mark.parametrize("units", [0, 1, 5, 64, 257])
def test_in_threads_runs_every_unit_once_on_at_most_the_threads_asked(threads, units):
    import threading

    seen: list[tuple[int, int, int]] = []
    lock = threading.Lock()

    def call(lo, hi):
        with lock:
            seen.append((lo, hi, threading.get_ident()))

    kit.in_threads(call, units, threads)
    if not units:  # one empty call: a chunk of no games still loads the kernel
        assert [(lo, hi) for lo, hi, _ in seen] == [(0, 0)]
        return
    covered = sorted(u for lo, hi, _ in seen for u in range(lo, hi))
    assert covered == list(range(units))  # every unit once, none twice
    assert all(lo < hi for lo, hi, _ in seen)  # no empty piece
    assert len({t for *_, t in seen}) <= max(1, min(threads, units))
    assert len(seen) <= max(1, kit.PIECES_PER_THREAD * threads)


def test_in_threads_takes_the_thread_count_numba_is_set_to():
    import numba

    calls: list[tuple[int, int]] = []
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        kit.in_threads(lambda lo, hi: calls.append((lo, hi)), 100)
    finally:
        numba.set_num_threads(before)
    assert calls == [(0, 100)]  # one thread: one call, in this thread


def test_an_error_in_a_thread_stops_the_others_and_is_raised_once_they_stop():
    import threading
    import time

    started: list[int] = []
    running = threading.Event()

    def call(lo, hi):
        started.append(lo)
        if lo == 0:
            running.wait(5)  # another thread is in a piece
            time.sleep(0.05)
            raise RuntimeError("unit 0 failed")
        running.set()
        time.sleep(0.2)  # still in its piece when unit 0 fails: it is waited for

    with pytest.raises(RuntimeError, match="unit 0 failed"):
        kit.in_threads(call, 160, 2)
    assert len(started) < 16  # no piece was taken after the failure but the ones running
