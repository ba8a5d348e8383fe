"""A first run that tells the truth (issue 14, part 6): cold or warm kernels, the expected compile
time from the ones measured on this machine, and a run's own progress after the loading display.

Nothing here compiles a kernel (a minute per game): the pieces are tested on a fake cache folder,
a kernel that is defined but never called, and the fake game (tests/kit/fake_game.py).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from balance import _kernels, runner, terminal
from balance.cli import app

KERNELS = """\
import numba


@numba.njit(cache=True)
def twice(x):
    return 2 * x


@numba.njit
def uncached(x):
    return x
"""


@pytest.fixture
def kernel_package(tmp_path, monkeypatch):
    """A package ``fr_kernels`` with one cached kernel (never compiled) and numba's cache folder
    pointed at ``tmp_path / "cache"``; yields (package name, cache folder)."""
    import numba

    folder = tmp_path / "cache"
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(folder))
    src = tmp_path / "src" / "fr_kernels"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "engine.py").write_text(KERNELS)
    (src / "plain.py").write_text("def f(x):\n    return x\n")
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    yield "fr_kernels", folder
    for name in [m for m in sys.modules if m == "fr_kernels" or m.startswith("fr_kernels.")]:
        del sys.modules[name]


def test_cold_until_the_cache_folder_holds_the_kernels_index(kernel_package):
    package, folder = kernel_package
    assert _kernels.kernels_cached(package, folder) is False  # imports its modules, compiles none
    [index] = _kernels.index_files(package, folder)
    engine = importlib.import_module(f"{package}.engine")
    assert index == Path(engine.twice._cache._cache_file._index_path)
    assert index.name.startswith("engine.twice-4.py") and index.suffix == ".nbi"
    assert not engine.twice.signatures  # nothing was compiled to find out
    index.parent.mkdir(parents=True, exist_ok=True)
    index.write_bytes(b"")
    assert _kernels.kernels_cached(package, folder) is True
    assert _kernels.kernels_cached(package, folder.parent / "elsewhere") is False


def test_a_package_without_cached_kernels_is_neither(kernel_package):
    package, folder = kernel_package
    assert _kernels.kernels_cached(f"{package}.plain", folder) is None
    assert _kernels.kernels_cached("kit.fake_game", folder) is None  # the fake game: numpy only


def test_expected_range_from_the_measured_compile_times():
    assert _kernels.expected_text([]) == "expected about a minute, first time measured now"
    assert _kernels.expected_text([52.4]) == "expected about 52 s (measured once)"
    assert _kernels.expected_text([52.4, 51.8]) == "expected about 52 s"
    assert _kernels.expected_text([61.2, 48.4, 55.0]) == "expected 48-61 s"


def test_measured_compiles_are_recorded_next_to_the_cache_folders(tmp_path):
    folder = tmp_path / "balance" / "numba-0123456789abcdef"
    path = _kernels.times_path(folder)
    assert path == tmp_path / "balance" / "compile_times.json"  # outlives a version's folder
    assert _kernels.times_path(tmp_path / "mine") == tmp_path / "mine" / "compile_times.json"
    assert _kernels.compile_times("five_ravens", folder) == []
    _kernels.record_compile_time("five_ravens", 52.123, folder)
    _kernels.record_compile_time("raven_order", 40, folder)
    _kernels.record_compile_time("five_ravens", 48, folder)
    assert json.loads(path.read_text()) == {"five_ravens": [52.12, 48.0], "raven_order": [40.0]}
    assert _kernels.compile_times("five_ravens", folder) == [52.12, 48.0]
    assert _kernels.expected_text(_kernels.compile_times("five_ravens", folder)) == (
        "expected 48-52 s"
    )
    for i in range(_kernels.KEEP_TIMES + 3):
        _kernels.record_compile_time("raven_order", 100 + i, folder)
    kept = _kernels.compile_times("raven_order", folder)
    assert len(kept) == _kernels.KEEP_TIMES and kept[-1] == 100 + _kernels.KEEP_TIMES + 2
    path.write_text("{not json")
    assert _kernels.compile_times("five_ravens", folder) == []  # unreadable: no estimate
    _kernels.record_compile_time("five_ravens", 50, folder)  # and it starts over
    assert _kernels.compile_times("five_ravens", folder) == [50.0]


@pytest.fixture
def first_load(monkeypatch, tmp_path):
    """This process has loaded no game's kernels yet, the fake game's are in the cache (as if it
    had compiled ones) and compile times go to ``tmp_path``; yields the times file."""
    monkeypatch.setattr(runner.play, "_LOADED", set())
    monkeypatch.setattr(_kernels, "cache_dir", lambda: tmp_path / "numba-cafe")
    monkeypatch.setattr(_kernels, "kernels_cached", lambda package, folder=None: True)
    return tmp_path / "compile_times.json"


def test_a_game_without_compiled_kernels_shows_no_loading(
    fake_game, fake_config, monkeypatch, tmp_path
):
    monkeypatch.setattr(runner.play, "_LOADED", set())
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["simulate", str(fake_config), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""  # the fake game is numpy: nothing to compile or load


def test_a_cold_load_is_shown_as_a_compile_and_its_time_recorded(
    fake_game, fake_config, first_load, monkeypatch
):
    from balance.config import load_config

    monkeypatch.setattr(_kernels, "kernels_cached", lambda package, folder=None: False)
    shown = []

    def display(load):
        shown.append(load)
        return contextlib.nullcontext()

    with runner.showing_loads(display):
        runner.prepare(load_config(fake_config))
        runner.prepare(load_config(fake_config))  # loaded in this process: instant, not shown
    assert shown == [
        runner.KernelLoad("fake", True, "expected about a minute, first time measured now")
    ]
    assert list(json.loads(first_load.read_text())) == ["fake"]
    runner.prepare(load_config(fake_config))  # no display outside showing_loads
    assert len(shown) == 1


def _lines(result) -> list[str]:
    return result.stderr.splitlines()


def test_impact_shows_loading_once_then_its_own_progress(
    fake_game, fake_config, first_load, monkeypatch, tmp_path
):
    monkeypatch.setattr(terminal, "PLAIN_EVERY_S", 0.0)  # a progress line at every report
    variants = tmp_path / "v.yaml"
    variants.write_text(
        "- {name: bonus 3, description: planted, patch: {rules: {bonus: 3}}}\n"
        "- {name: nothing, description: empty patch, patch: {}}\n"
    )
    args = ["impact", str(fake_config), "--variants", str(variants), "--games", "100"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    lines = _lines(result)
    assert lines[0] == "loading fake kernels"  # off a terminal: a line before...
    assert lines[1].startswith("loaded fake kernels in ") and lines[1].endswith(" s")  # ...after
    progress = lines[2:]
    # three configs (base and two variants) of 100 games: a line after each config's chunk
    assert [line.split(",")[0] for line in progress] == [
        "impact of 2 variants: 100 of 300 games (33%)",
        "impact of 2 variants: 200 of 300 games (67%)",
    ]
    assert all("games/s, eta" in line for line in progress)
    assert not any("load" in line or "compil" in line for line in progress)
    assert result.stdout.startswith("impact on ")
    assert not first_load.exists()  # a warm load is not a compile


def test_a_cold_impact_says_compiling_with_the_range_measured_here(
    fake_game, fake_config, first_load, monkeypatch, tmp_path
):
    monkeypatch.setattr(_kernels, "kernels_cached", lambda package, folder=None: False)
    variants = tmp_path / "v.yaml"
    variants.write_text("- {name: nothing, description: empty patch, patch: {}}\n")
    args = ["impact", str(fake_config), "--variants", str(variants), "--games", "60"]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    assert _lines(first)[0] == (
        "compiling fake kernels (first run on this machine or after an update), "
        "expected about a minute, first time measured now"
    )
    assert _lines(first)[1].startswith("compiled fake kernels in ")
    assert len(json.loads(first_load.read_text())["fake"]) == 1  # the compile just measured
    first_load.write_text(json.dumps({"fake": [61.3, 48.2]}))  # as if compiles of a minute
    runner.play._LOADED.clear()  # a new process
    second = CliRunner().invoke(app, args)
    assert second.exit_code == 0, second.output
    assert _lines(second)[0].endswith(", expected 48-61 s")
    assert len(json.loads(first_load.read_text())["fake"]) == 3


def test_check_shows_loading_then_each_checks_progress(
    fake_game, fake_config, first_load, monkeypatch, tmp_path
):
    monkeypatch.setattr(terminal, "PLAIN_EVERY_S", 0.0)
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "batch: 200\nmax_games: 600\nchecks:\n  - config: fake.yaml\n    assertions:\n"
        "      - {metric: mean_turns, above: 19.5, delta: 0.01}\n"
    )
    result = CliRunner().invoke(app, ["check", str(spec)])
    assert result.exit_code in (0, 1), result.output
    lines = _lines(result)
    assert lines[0] == "loading fake kernels" and lines[1].startswith("loaded fake kernels in ")
    progress = [line for line in lines[2:] if not line.startswith("warning: ")]
    assert [line.split(",")[0] for line in progress] == [
        "check fake: 200 of 600 games (33%)",
        "check fake: 400 of 600 games (67%)",
    ]
    rate = float(progress[0].split(", ")[1].removesuffix(" games/s").replace(",", ""))
    assert rate < 1e9  # counted from the end of loading, not from the first report
