"""``balance watch`` (issue 33): its figures are the project's own on the same games, its
stopping rule is fixed in advance, a bad save keeps the last figures, the files a config extends
are watched, and its command line refuses bad input in one line.

The page in a real browser is tests/test_watch_browser.py."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from balance import experiments, live, live_server, runner, stats
from balance.cli import app
from balance.config import load_config
from balance.errors import BalanceError
from balance.report.numbers import comparison_rows
from balance.results import open_results

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "configs" / "five_ravens" / "base.yaml"
NO_SEVEN = ROOT / "configs" / "five_ravens" / "no_seven.yaml"


def _version(path: Path, number: int = 1) -> live.Version:
    return live.Version(number, load_config(path), f"version {number}", (str(path),))


def _session(cur: Path, ref: Path | None, games: int, half_width: float = 1e-9) -> dict:
    board = live.Board()
    reference = None if ref is None else _version(ref, 1)
    with runner.numba_threads(None):
        return live.Session(_version(cur, 2), reference, games=games, half_width=half_width).run(
            board, lambda: False
        )


def test_the_change_is_compares_table_on_the_same_games():
    """The paired change of a session is `balance compare`'s table of the same games, row for
    row: differences, intervals and the one rule's q-values (it plays in growing chunks, compare
    in one; the games are the same)."""
    games = live.FIRST_CHUNK * 3
    snap = _session(BASE, NO_SEVEN, games)
    assert snap["final"] and snap["games"] == games
    a, b = load_config(NO_SEVEN), load_config(BASE)
    table = comparison_rows(experiments.compare(a, b, games=games))  # the rows it shows
    rows = snap["change"]["rows"]
    assert len(rows) == table.height
    by_key = {
        live.row_words((r["metric"], r["kind"], str(r["group"]))): r for r in table.to_dicts()
    }
    for r in rows:
        t = by_key[r["label"]]
        for k, tk in (("a", "a"), ("b", "b"), ("diff", "diff"), ("lo", "lo"), ("hi", "hi")):
            assert r[k] == pytest.approx(t[tk], rel=1e-12, abs=1e-12), (r["label"], k)
        assert r["q"] == pytest.approx(t["q_value"], rel=1e-9)
        assert r["significant"] == t["significant"]
    assert rows[0]["headline"] and rows[0]["label"] == "win share of the 1st player"
    assert any(r["significant"] for r in rows)  # no seven: the scores move


def test_the_headline_and_the_verdict_are_the_datasets(tmp_path):
    """The headline and every axis of a session equal what the dataset of the same games gives
    (`balance simulate`, then stats.balance_axes on its rows)."""
    games = live.FIRST_CHUNK * 3
    snap = _session(BASE, None, games)
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app, ["simulate", str(BASE), "--games", str(games), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    _, rows = open_results(out)
    rows = rows.collect()
    first = rows.filter(pl.col("order") == 0)["win"].to_numpy()
    assert snap["headline"]["value"] == pytest.approx(first.mean(), abs=1e-12)
    half = snap["headline"]["half"]
    se = first.std(ddof=1) / np.sqrt(games)
    assert half == pytest.approx(se * 1.9604, rel=1e-3)  # a t-interval over games
    cfg = load_config(BASE)
    axes = stats.balance_axes(rows, tolerance=cfg.report.tolerance.axes(), level=0.95)
    assert [a["kind"] for a in snap["axes"]] == [a.kind for a in axes]
    for got, want in zip(snap["axes"], axes, strict=True):
        assert got["verdict"] == want.verdict
        for g, w in zip(got["rows"], want.rows.iter_rows(named=True), strict=True):
            assert g["dev"] == pytest.approx(w["dev"], abs=1e-12)
            assert g["lo"] == pytest.approx(w["lo"], abs=1e-12)
    assert snap["change"] is None  # the first version has nothing to be paired with


def test_the_stopping_rule_is_the_half_width_or_the_budget():
    """Met at the first chunk with a wide target; else the budget, exactly, in growing chunks;
    only the last snapshot is final (the ones before are previews)."""
    wide = _session(BASE, None, 100_000, half_width=0.5)
    assert wide["final"] and wide["games"] == live.FIRST_CHUNK
    board, seen = live.Board(), []
    session = live.Session(_version(BASE), None, games=7_000, half_width=1e-9)
    orig = board.publish

    def publish(**fields):
        seen.append((fields["games"], fields["final"]))
        orig(**fields)

    board.publish = publish  # type: ignore[method-assign]
    with runner.numba_threads(None):
        session.run(board, lambda: False)
    assert seen == [(2_000, False), (6_000, False), (7_000, True)]


def test_a_newer_save_cancels_the_session_between_chunks():
    board = live.Board()
    session = live.Session(_version(BASE), None, games=50_000, half_width=1e-9)
    with runner.numba_threads(None), pytest.raises(live.Cancelled):
        session.run(board, lambda: board.rev > 0)  # cancelled once the first chunk is shown
    assert board.get()["games"] == live.FIRST_CHUNK and not board.get()["final"]


def _watch(path: Path, against: Path | None = None, games: int = 4_000) -> live_server.Watch:
    said: list[str] = []
    w = live_server.Watch(
        path, sets=None, against=against, games=games, half_width=1e-9, seed=None, threads=None,
        say=said.append,
    )  # fmt: skip
    w.said = said  # type: ignore[attr-defined]
    return w


def _play_pending(w: live_server.Watch) -> None:
    job, w.pending = w.pending, None
    assert job is not None
    with runner.numba_threads(None):
        w._play(*job)


def test_a_bad_save_is_one_line_and_keeps_the_last_figures(tmp_path):
    """A save that does not validate: its error on the board and the terminal, naming the file
    and key, and version 1's figures stay; the next good save is version 2, paired with 1."""
    cfg = tmp_path / "watched.yaml"
    cfg.write_text(f"extends: {BASE}\nrules: {{hand_size: 4}}\n")
    w = _watch(cfg)
    w.first_load()
    _play_pending(w)
    shown = w.board.get()
    assert shown["version_label"] == "version 1" and shown["final"]
    cfg.write_text(f"extends: {BASE}\nrules: {{hand_size: -3}}\n")
    assert not w.load()
    after = w.board.get()
    assert "watched.yaml" in after["error"] and "rules.hand_size" in after["error"]
    assert "\n" not in after["error"]
    assert after["headline"] == shown["headline"] and after["version_label"] == "version 1"
    assert w.said[-1].startswith("error: ") and "keeps the last good figures" in w.said[-1]
    assert w.pending is None  # nothing to play
    cfg.write_text(f"extends: {BASE}\nrules: {{hand_size: 3}}\n")
    assert w.load()
    version, reference = w.pending
    assert (version.number, reference.number) == (2, 1)
    _play_pending(w)
    snap = w.board.get()
    assert snap["error"] is None and snap["change"]["against"] == "version 1"
    assert [h["version"] for h in snap["history"]] == ["version 1", "version 2"]


def test_a_new_player_count_is_shown_without_a_change(tmp_path):
    cfg = tmp_path / "watched.yaml"
    cfg.write_text(f"extends: {BASE}\n")
    w = _watch(cfg)
    w.first_load()
    w.pending = None
    cfg.write_text(f"extends: {BASE}\nplayers: 3\n")
    assert w.load()
    version, reference = w.pending
    assert version.number == 2 and reference is None
    assert "same number of players" in w.said[-1]


def test_a_save_of_a_file_it_extends_is_a_new_version(tmp_path):
    """watchfiles on the directories of the extends chain: an edit of the parent (written to a
    new file and renamed over the old one, as editors save) is seen."""
    parent, child = tmp_path / "parent.yaml", tmp_path / "sub" / "child.yaml"
    child.parent.mkdir()
    parent.write_text(f"extends: {BASE}\nrules: {{hand_size: 4}}\n")
    child.write_text("extends: ../parent.yaml\n")
    w = _watch(child)
    w.first_load()
    assert len(w.files) == 3
    t = threading.Thread(target=live_server.watch_files, args=(w,), daemon=True)
    t.start()
    try:
        time.sleep(0.5)  # the watcher is up
        new = tmp_path / "parent.yaml.tmp"
        new.write_text(f"extends: {BASE}\nrules: {{hand_size: 3}}\n")
        new.replace(parent)
        deadline = time.monotonic() + 20
        while w.count < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert w.count == 2
        assert w.pending[0].config.rules.hand_size == 3
    finally:
        w.stop.set()
        t.join(10)
    assert not t.is_alive()


def test_once_prints_the_figures_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        app, ["watch", str(BASE), "--against", str(NO_SEVEN), "--once", "--games", "4000"]
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "4,000 games, stopped at the budget of 4,000 games" in out
    assert "headline: win share of the 1st player " in out
    assert "verdict: Turn order" in out
    assert "change against " in out and "4,000 paired games, same seeds" in out
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--games", "0"], "--games must be from 1 to 1,000,000, got 0"),
        (["--games", "2000000"], "--games must be from 1 to 1,000,000"),
        (["--half-width", "0"], "--half-width must be above 0"),
        (["--half-width", "nan"], "--half-width must be above 0"),
        (["--port", "70000"], "--port must be from 0 to 65535"),
        (["--threads", "0"], "threads"),
        (
            ["--against", str(ROOT / "configs/five_ravens/two_players.yaml")],
            "same number of players",
        ),
        (["--against", str(ROOT / "configs/raven_order/base.yaml")], "same game"),
        (["--set", "rules.hand_size=-1"], "rules.hand_size"),
    ],
)
def test_bad_input_is_one_line(args, words):
    result = CliRunner().invoke(app, ["watch", str(BASE), "--once", *args])
    assert result.exit_code == 1, result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
    assert words in result.stderr


def test_a_taken_port_is_one_line():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(BalanceError, match=rf"^--port {port}: .*in use"):
            live_server.bind(port)


def test_the_missing_extra_is_named(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "uvicorn" else real(name, *a)
    )
    result = CliRunner().invoke(app, ["watch", str(BASE)])
    assert result.exit_code == 1
    assert result.stderr == "error: balance watch needs uvicorn: pip install 'balance[live]'\n"


@pytest.mark.slow
def test_a_planted_null_stars_nothing_at_the_stop_in_95_percent_of_sessions():
    """The stopping rule keeps the level: sessions whose B is other games of A's config (every
    row a true null), played in the watch's chunks and stopped by its rule, star something in at
    most 5 % of them (plus Monte Carlo error). The target is the median half-width at the first
    chunk, so about half the sessions stop there and the rest play on: the stop depends on the
    data, as it does in a watch."""
    from balance.config.overrides import parse_overrides
    from balance.experiments.play import Runs

    replicates, budget = 200, live.FIRST_CHUNK * 2
    cfg = load_config(BASE, parse_overrides(["players=2", "seats=random"]))
    runs = Runs([cfg], 5)
    lineup = runs.lineups[0]
    parts = [c for [c] in runs.play(seed=5, games=2 * replicates * budget, chunk_size=200_000)]
    arrays = stats.GameArrays(
        0,
        *(
            None if x[0] is None else np.concatenate(x)
            for x in list(zip(*parts, strict=True))[1:-1]
        ),
    )
    grps = stats.groups(lineup)
    first = [g for g in grps if (g.kind, g.name) == ("order", "0")]

    def half(block: stats.GameArrays) -> float:
        win, _ = stats.group_values(block, first)
        return live._interval(stats.moments(win), 0.95)["half"]

    def block(i: int, lo: int, hi: int) -> stats.GameArrays:
        return arrays.rows(slice(i * budget + lo, i * budget + hi))

    target = float(
        np.median([half(block(2 * i + 1, 0, live.FIRST_CHUNK)) for i in range(replicates)])
    )
    starred, stopped_early = 0, 0
    for i in range(replicates):
        acc, moments, done = stats.PairedAccumulator(grps, grps), None, 0
        for n in live.chunks(budget):
            a, b = block(2 * i, done, done + n), block(2 * i + 1, done, done + n)
            acc.add(a, b)
            win, _ = stats.group_values(b, first)
            moments = stats.merge_moments(moments, stats.moments(win))
            done += n
            if live.stops(done, budget, live._interval(moments, 0.95)["half"], target):
                break
        stopped_early += done < budget
        starred += bool(acc.table(repeats=lineup.repeats())["significant"].any())
    assert 40 <= stopped_early <= 160  # the stop did depend on the games
    assert starred <= 17, f"{starred} of {replicates} null sessions have a star"


def test_the_page_gets_json_without_nan():
    """A snapshot's NaN or infinite floats (an interval of a constant, a share with no games)
    reach the page as null, which it shows as n/a: JSON has no NaN."""
    snap = {
        "headline": {"value": 0.5, "half": float("inf"), "lo": float("nan")},
        "rows": [1.0, float("-inf")],
    }
    assert live_server.finite(snap) == {
        "headline": {"value": 0.5, "half": None, "lo": None},
        "rows": [1.0, None],
    }
