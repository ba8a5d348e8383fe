"""Trajectories (issue 32): a game's ``Chunk.trace`` stored beside each part as
``games/trace-NNNNN.parquet`` (one row per game, point and seat), listed with its SHA-256 in the
manifest, read by ``results.open_trace``, checked by ``verify``, and kept byte for byte by a run
that is interrupted and resumed. The fake game ``fake_traced`` (tests/kit/fake_game.py) plants
trajectories whose every value is known: game ``i`` records ``2 + i % 4`` points and a seat's
standing at point k of R is ``score * k // R``."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from balance import results, runner
from balance.config import load_config
from kit import fake_game as fake
from test_resume import same_dataset


def _run(config, out, **options):
    return runner.run(load_config(config), config_path=str(config), out=out, **options)


@pytest.fixture
def traced_config(fake_traced_game, tmp_path):
    return fake.traced_game.write_config(tmp_path / "traced.yaml", games=50)


def test_trace_columns_are_the_recorded_points_game_then_point_then_seat():
    tables = fake.traced_game.PLUGIN.tables(players=3)
    chunk = fake.traced(tables, 7, 10, 6)
    frame = results.trace_frame(chunk, fake.TRACE_MEASURES)
    points = 2 + np.arange(10, 16) % 4
    assert frame.height == 3 * points.sum()
    assert frame.schema == {
        "game": pl.Int64, "point": pl.Int16, "seat": pl.Int8, "standing": pl.Int16,
        "round": pl.Int16,
    }  # fmt: skip
    assert frame.select("game", "point", "seat").is_duplicated().sum() == 0
    assert frame.sort("game", "point", "seat").equals(frame)  # already in file order
    last = frame.filter(pl.col("point") == pl.col("point").max().over("game"))
    assert last["standing"].to_list() == chunk.score.ravel().tolist()
    assert (frame.filter(pl.col("point") == 0)["standing"] == 0).all()


def test_trace_columns_refuse_a_trace_that_does_not_fit():
    tables = fake.traced_game.PLUGIN.tables(players=3)
    chunk = fake.traced(tables, 7, 0, 4)
    with pytest.raises(ValueError, match="measures"):
        results.trace_columns(chunk, ("standing",))
    bad = fake.dataclasses.replace(chunk, points=chunk.points + 9)
    with pytest.raises(ValueError, match="points sum to .*, not the .* rows"):
        results.trace_columns(bad, fake.TRACE_MEASURES)
    bad = fake.dataclasses.replace(chunk, points=chunk.points * 0)
    with pytest.raises(ValueError, match="at least 1"):
        results.trace_columns(bad, fake.TRACE_MEASURES)


def test_a_run_stores_each_parts_trajectories_beside_it(traced_config, tmp_path):
    out = tmp_path / "run"
    _run(traced_config, out, games=50, chunk_size=16)
    manifest, rows = results.open_results(out)
    assert manifest["trace_measures"] == ["standing", "round"]
    files = sorted(p.name for p in (out / "games").iterdir())
    assert files == [f"part-{i:05d}.parquet" for i in range(4)]  # games/*.parquet: the rows only
    files = sorted(p.name for p in (out / "trajectories").iterdir())
    assert files == [f"trace-{i:05d}.parquet" for i in range(4)]
    for i, part in enumerate(manifest["parts"]):
        assert part["trace"]["file"] == f"trace-{i:05d}.parquet"
    _, trace = results.open_trace(out)
    trace = trace.collect()
    points = 2 + np.arange(50) % 4
    assert trace.height == 3 * points.sum()
    assert trace.group_by("game").agg(pl.col("point").max())["point"].sort().to_list() == sorted(
        (points - 1).tolist()
    )
    ends = trace.filter(pl.col("point") == pl.col("point").max().over("game"))
    joined = ends.join(rows.collect(), on=["game", "seat"])
    assert joined.height == 150
    assert (joined["standing"] == joined["score"]).all()  # the last point is the final score


def test_verify_names_a_damaged_or_missing_trace_file(traced_config, tmp_path):
    out = tmp_path / "run"
    _run(traced_config, out, games=50, chunk_size=16)
    assert results.verify(out)[1] == []
    trace = out / "trajectories" / "trace-00001.parquet"
    data = bytearray(trace.read_bytes())
    data[40] ^= 0xFF
    trace.write_bytes(bytes(data))
    problems = results.verify(out)[1]
    assert len(problems) == 1 and "trace-00001.parquet" in problems[0]
    with pytest.raises(results.ResultsError, match="trace-00001.parquet"):
        results.open_trace(out)
    trace.unlink()
    assert "trace-00001.parquet: listed in manifest.json but missing" in results.verify(out)[1][0]


def test_a_run_of_a_game_without_trajectories_says_so_in_one_line(fake_game, fake_config, tmp_path):
    out = tmp_path / "run"
    _run(fake_config, out, games=10)
    assert results.read_manifest(out)["trace_measures"] == []
    assert not list((out / "trajectories").glob("trace-*"))
    with pytest.raises(results.ResultsError, match="no trajectories") as info:
        results.open_trace(out)
    assert "\n" not in str(info.value)


def test_interrupted_and_resumed_keeps_the_trajectories_byte_for_byte(
    fake_traced_game, traced_config, tmp_path
):
    _run(traced_config, tmp_path / "full", games=50, chunk_size=8)
    fake_traced_game.reset()
    fake_traced_game.interrupt_at = 4
    with pytest.raises(runner.Interrupted):
        _run(traced_config, tmp_path / "part", games=50, chunk_size=8)
    # what a kill between a trace file's rename and its part's leaves: a trace never listed
    (tmp_path / "part" / "trajectories" / "trace-00003.parquet").write_bytes(b"PAR1 half")
    fake_traced_game.reset()
    summary = runner.resume(tmp_path / "part")
    assert summary.status == "complete"
    same_dataset(tmp_path / "full", tmp_path / "part")  # every part and trace file, byte for byte


def test_a_manifest_whose_parts_and_trace_measures_disagree_is_refused(traced_config, tmp_path):
    out = tmp_path / "run"
    _run(traced_config, out, games=20, chunk_size=8)
    manifest = json.loads((out / "manifest.json").read_text())
    del manifest["parts"][1]["trace"]
    (out / "manifest.json").write_text(json.dumps(results.seal(manifest)))
    with pytest.raises(results.ResultsError, match=r"parts\[1\].trace: has no trace"):
        results.open_results(out)


def test_the_report_of_a_traced_run_says_how_the_game_plays(traced_config, tmp_path):
    from html import escape

    from balance.report.numbers import analyse
    from balance.report.sections import plays_sentences
    from balance.report.write import write_report
    from balance.stats import plays

    out = tmp_path / "run"
    _run(traced_config, out, games=400, chunk_size=128)
    ds = analyse(out)
    assert ds.plays is not None and ds.plays.standing == "standing"
    _, trace = results.open_trace(out)
    _, rows = results.open_results(out)
    direct = plays.summary(plays.game_metrics(trace.collect(), rows.collect(), "standing"))
    assert ds.plays.summary.equals(direct)  # read a slice at a time: the same numbers
    page = write_report([out], out=tmp_path / "page.html").path.read_text()
    assert "How the game plays" in page
    for sentence in plays_sentences(ds.plays):
        assert escape(sentence) in page
    assert "Half way through, the eventual winner leads alone in" in page


def test_a_report_of_a_run_without_trajectories_has_no_such_section(
    fake_game, fake_config, tmp_path
):
    from balance.report.write import write_report

    out = tmp_path / "run"
    _run(fake_config, out, games=100)
    page = write_report([out], out=tmp_path / "page.html").path.read_text()
    assert "How the game plays" not in page


def test_compare_pairs_each_metric_game_by_game(fake_traced_game, tmp_path):
    """B gives the first player a bonus: the paired change of each metric is the mean over games
    of B's value minus A's, taken from the two runs' own trajectories."""
    from typer.testing import CliRunner

    from balance.cli import app
    from balance.experiments.compare import compare
    from balance.stats import plays

    a_cfg = fake.traced_game.write_config(tmp_path / "a.yaml", games=3000)
    b_cfg = fake.traced_game.write_config(tmp_path / "b.yaml", games=3000, rules={"bonus": 2})
    result = compare(load_config(a_cfg), load_config(b_cfg), chunk_size=700)
    table = result.plays
    assert table is not None and set(table["metric"]) == set(plays.METRICS)
    per = []
    for cfg, name in ((a_cfg, "a"), (b_cfg, "b")):
        _run(cfg, tmp_path / name, games=3000)
        _, trace = results.open_trace(tmp_path / name)
        _, rows = results.open_results(tmp_path / name)
        per.append(plays.game_metrics(trace.collect(), rows.collect(), "standing"))
    for r in table.iter_rows(named=True):
        va, vb = per[0].values[r["metric"]], per[1].values[r["metric"]]
        both = ~(np.isnan(va) | np.isnan(vb))
        assert r["games"] == both.sum()
        assert r["diff"] == pytest.approx((vb - va)[both].mean(), abs=1e-12)
        assert r["lo"] < r["diff"] < r["hi"] or r["lo"] == r["hi"]
    margin = table.filter(pl.col("metric") == "margin").row(0, named=True)
    assert margin["significant"] and margin["diff"] > 0  # the bonus widens the first's wins
    page = tmp_path / "compare.html"
    out = CliRunner().invoke(
        app, ["compare", str(a_cfg), str(b_cfg), "--games", "600", "--report", str(page)]
    )
    assert out.exit_code == 0, out.output
    assert "How the game plays (paired B - A)" in out.output
    assert "margin of victory" in out.output
    html = page.read_text()
    assert "How the game plays" in html and "margin of victory" in html


# ------------------------------------------------------------------ the gate on how games play


def _spec(folder, config, *assertions, head="batch: 2000\n"):
    path = folder / "spec.yaml"
    lines = "".join(f"      - {a}\n" for a in assertions)
    path.write_text(f"{head}checks:\n  - config: {config}\n    assertions:\n{lines}")
    return path


def test_a_gate_on_the_comeback_rate_decides_on_the_planted_rate(fake_traced_game, tmp_path):
    """Planted: a comeback game with chance 0.4, behind at half in 3 of its 4 lengths, so the
    comeback rate among games with one winner is 0.3 (up to the hash's independence)."""
    from balance import experiments as ex

    fake.traced_game.write_config(tmp_path / "c.yaml", games=100, rules={"comeback": 0.4})
    path = _spec(
        tmp_path,
        "c.yaml",
        "{metric: comeback_half, above: 0.2}",
        "{metric: comeback_half, below: 0.2}",
        "{metric: comeback_half, within: [0.3, 0.05]}",
        "{metric: lead_changes, below: 1}",
    )
    result = ex.check(ex.load_spec(path), spec_path=path)
    above, below, within, changes = result.assertions
    assert (above.verdict, below.verdict, within.verdict) == ("PASS", "FAIL", "PASS")
    assert above.estimate == pytest.approx(0.3, abs=0.03)
    assert changes.verdict == "PASS"  # a planted comeback changes the lead at most twice


@pytest.mark.parametrize(("truth", "promise"), [(0.28, "alpha"), (0.32, "beta")])
def test_the_comeback_gate_keeps_its_error_rates(truth, promise):
    """The claim 'comeback rate above 0.3' (delta 0.04) at the edges of its indifference zone,
    on planted 0/1 per-game values: with the rate 0.28 it passes in at most alpha of 1,000
    replicates, with 0.32 it fails or stays undecided in at most beta (the SPRT on a rate)."""
    from balance import experiments as ex
    from balance.experiments.check import assertion_test, feed_values
    from balance.stats import sequential as seq
    from experiments.test_check_metrics import ALPHA, BETA, upper_ok

    a = {"metric": "comeback_half", "above": 0.3, "delta": 0.04}
    spec = ex.Spec.model_validate({"checks": [{"config": "x.yaml", "assertions": [a]}]})
    reps, batch = 1000, 500
    test = assertion_test(ex.AssertionSpec.model_validate(a), spec, model="bernoulli", reps=reps)
    rng = np.random.default_rng(3 if promise == "alpha" else 4)
    while (test.states == seq.OPEN).any():
        feed_values(test, (rng.random((reps, batch)) < truth).astype(np.float64))
    n = {k: int((test.states == v).sum()) for k, v in (("pass", 1), ("fail", -1), ("cap", 2))}
    if promise == "alpha":
        assert upper_ok(n["pass"], reps, ALPHA), n
    else:
        assert upper_ok(n["fail"] + n["cap"], reps, BETA), n


def test_a_plays_metric_on_a_game_without_trajectories_is_one_line(fake_game, tmp_path):
    from balance import experiments as ex
    from balance.config import ConfigError

    fake.write_config(tmp_path / "f.yaml")
    path = _spec(tmp_path, "f.yaml", "{metric: comeback_half, above: 0.1}")
    with pytest.raises(ConfigError, match=r"checks\[0\].assertions\[0\].metric: .*no trajectory"):
        ex.check(ex.load_spec(path), spec_path=path)
    bad = _spec(tmp_path, "f.yaml", "{metric: comeback_half, seat: 0, above: 0.1}")
    with pytest.raises(ConfigError, match="seat: comeback_half is about how whole games play"):
        ex.load_spec(bad)
    pct = _spec(tmp_path, "f.yaml", "{metric: close, above: 30}")
    with pytest.raises(ConfigError, match="looks like a percentage"):
        ex.load_spec(pct)


# ------------------------------------------------------------------ tune and sweep


def test_tune_brings_the_planted_comeback_rate_to_its_target(fake_traced_game, tmp_path):
    """The planted comeback rate among games with one winner is 3/4 of ``rules.comeback``
    (fake_traced: behind at half in 3 of its 4 lengths), so a target of 0.3 is met at 0.4."""
    from balance.experiments import tune as tune_lib

    cfg = fake.traced_game.write_config(tmp_path / "c.yaml", games=100)
    r = tune_lib.tune(cfg, ["rules.comeback=0..1"], ["comeback_half=0.3"], games=40000, seed=3)
    assert r.root is not None and r.root.lo <= 0.4 <= r.root.hi
    assert r.root.hi - r.root.lo < 0.15
    (v,) = r.at_answer
    assert v.lo <= 0.3 <= v.hi and v.counted < v.games  # shared wins do not count
    with pytest.raises(tune_lib.TuneError, match=r"comeback_half is a share of games .* 0\.3"):
        tune_lib.tune(cfg, ["rules.comeback=0..1"], ["comeback_half=30"], games=100)
    with pytest.raises(tune_lib.TuneError, match="margin is about whole games"):
        tune_lib.tune(cfg, ["rules.comeback=0..1"], ["margin[seat=0]=1"], games=100)


def test_tune_on_a_game_without_trajectories_is_one_line(fake_game, tmp_path):
    from balance.experiments import tune as tune_lib

    fake.write_config(tmp_path / "f.yaml")
    with pytest.raises(tune_lib.TuneError, match="--target margin=1: .*records no trajectory"):
        tune_lib.tune(tmp_path / "f.yaml", ["rules.bonus=0..3"], ["margin=1"], games=3000)


def test_a_sweep_pairs_each_plays_metric_step_by_step(fake_traced_game, tmp_path):
    """A sweep over the planted comeback chance: each point's curve rows carry the plays
    metrics (their means as the point's own trajectories give them), each step pairs them game
    by game, and how the game plays is a family of its own under the one rule (its q-values
    are those of its rows alone)."""
    from balance.experiments import sweep as sw
    from balance.report.numbers import analyse_sweep
    from balance.stats import plays
    from balance.stats.multiple import adjust

    cfg = fake.traced_game.write_config(tmp_path / "s.yaml", games=2000)
    plan = sw.plan_sweep(cfg, ["rules.comeback=0,0.5,1"], games=2000)
    sw.run_sweep(plan, out=tmp_path / "sw")
    ss = analyse_sweep(tmp_path / "sw")
    curve = ss.curve.filter(pl.col("metric") == "comeback_half").sort("x_pos")
    assert curve.height == 3 and (curve["kind"] == "game").all()
    for r, p in zip(curve.iter_rows(named=True), ss.run.complete, strict=False):
        _, trace = results.open_trace(p.path)
        _, rows = results.open_results(p.path)
        m = plays.game_metrics(trace.collect(), rows.collect(), "standing")
        v = m.values["comeback_half"]
        assert r["value"] == pytest.approx(np.nanmean(v))
    assert curve["value"].to_list()[0] == 0 and curve["value"].to_list()[2] > 0.6
    steps = ss.steps.filter(pl.col("metric").is_in(list(plays.METRICS)))
    assert set(steps["metric"]) == set(plays.METRICS) and steps["paired"].all()
    come = steps.filter(pl.col("metric") == "comeback_half").sort("step")
    assert come["significant"].all() and (come["diff"] > 0).all()
    alone = adjust(steps.select("metric", "p_value"))["q_value"].to_numpy()
    np.testing.assert_allclose(steps["q_value"].to_numpy(), alone, equal_nan=True)


# ------------------------------------------------------------------ the kernels' ragged rows


@pytest.mark.parametrize(
    "config",
    [
        "configs/five_ravens/base.yaml",
        "configs/raven_order/base.yaml",
        "configs/raven_manor/base.yaml",
        "configs/corvids/base.yaml",
    ],
)
def test_a_chunks_rows_are_each_games_own_whatever_the_blocks(config):
    """Each block of a batch packs its games' points from the start of its room, game after
    game (kit.trace_row): the rows of a chunk of 150 games (several blocks, a partial last one)
    are game for game those of the same games played one at a time, and the dense view holds
    them with zeros past each game's points."""
    from tests.kit.decisions import compiled

    plugin, tables, _ = compiled(config)
    ch = plugin.play(tables, 11, 3, 150)
    assert ch.trace_rows.shape[0] == ch.points.sum() and ch.trace_cap >= ch.points.max()
    start = ch.trace_start
    for g in (0, 1, 63, 64, 65, 127, 128, 149):
        one = plugin.play(tables, 11, 3 + g, 1)
        n = int(ch.points[g])
        assert int(one.points[0]) == n
        np.testing.assert_array_equal(ch.trace_rows[start[g] : start[g] + n], one.trace_rows)
        np.testing.assert_array_equal(ch.trace[g, :n], one.trace_rows)
        assert not ch.trace[g, n:].any()


def test_the_room_of_a_chunks_trajectories_is_small_pages_touched_only_where_written():
    """kit.trace_room: a large room is an anonymous mapping (zero pages, no huge pages asked
    for), writable, and packed rows read back through the Chunk without the gaps."""
    from balance.games import _kit as kit

    kit._SPARE.clear()  # a room an earlier test of this process gave back holds its old rows
    room = kit.trace_room(1 << 20, 4, 2)
    assert room.shape == (1 << 20, 4, 2) and room.dtype == np.int16 and not room[::4096].any()
    assert room.flags.writeable and isinstance(room.base.base.obj, kit.mmap.mmap)
    small = kit.trace_room(10, 2, 2)
    assert small.shape == (10, 2, 2) and not small.any()
    points = kit.trace_points(5, 2, 3)  # blocks of two games, room for three points a game
    assert points[:, 1].tolist() == [0, -1, 6, -1, 12]


@settings(max_examples=60, deadline=None)
@given(
    counts=st.lists(st.integers(1, 6), min_size=1, max_size=40),
    block=st.integers(1, 9),
    cap=st.integers(6, 8),
)
def test_a_chunks_rows_are_gathered_run_by_run_as_row_by_row(counts, block, cap):
    """kit._gather copies a block's packed rows as one run; it gives what indexing each game's
    rows one by one gives, in blocks of any size, a room by game (block 1) included."""
    from balance.games import _kit as kit
    from balance.games.base import point_index

    n = len(counts)
    points = kit.trace_points(n, block, cap)
    for g, k in enumerate(counts):  # what trace_row records, game after game
        if points[g, 1] < 0:
            points[g, 1] = points[g - 1, 1] + points[g - 1, 0]
        points[g, 0] = k
    trace = np.arange(n * cap * 2 * 3, dtype=np.int16).reshape(n * cap, 2, 3)
    first, k = points[:, 1], points[:, 0]
    want = trace[np.repeat(first, k) + point_index(k)]
    got = kit._gather(trace, first, k)
    np.testing.assert_array_equal(got, want)
    assert not np.shares_memory(got, trace)


def test_a_room_given_back_is_used_again_and_its_old_rows_never_show():
    """kit.give_back keeps a chunk's room (its rows copied out) for the next chunk: the next
    play reuses its pages as they are, and its Chunk is the same as from a fresh room."""
    from balance.games import _kit as kit
    from tests.kit.decisions import compiled

    plugin, tables, _ = compiled("configs/raven_order/base.yaml")
    kit._SPARE.clear()
    first = plugin.play(tables, 5, 0, 5000)
    assert len(kit._SPARE) == 1  # the room of 5,000 games (6 MB: a mapped room) kept
    room = kit._SPARE[0]
    again = plugin.play(tables, 6, 0, 5000)  # other games in the same room
    assert len(kit._SPARE) == 1 and kit._SPARE[0] is room
    kit._SPARE.clear()
    fresh = plugin.play(tables, 6, 0, 5000)
    np.testing.assert_array_equal(again.trace_rows, fresh.trace_rows)
    np.testing.assert_array_equal(again.points, fresh.points)
    assert not np.array_equal(first.points, again.points)
