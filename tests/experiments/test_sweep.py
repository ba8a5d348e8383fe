"""``balance sweep`` (balance/experiments/sweep.py) and the numbers of its report
(balance/stats/curves.py, balance/report/sweep.py).

What a sweep promises, each tested against an answer known without it: the knob's values as
written (lists and ranges, typed like ``--set``); every point validated before a game is played;
every point the same games as ``simulate --set KEY=VALUE`` on the same seed (common random
numbers); no kernel compiled again between points; Ctrl-C keeps the finished points and the same
command resumes; curves equal to the project's estimators on each point; neighbouring points of
one player count paired game by game (equal to ``paired_differences`` of the two datasets), of
different counts compared as independent samples; the one significance rule over the whole
sweep. Most tests play the fake game (tests/kit/fake_game.py, no compiling); two play Five Ravens.
"""

from __future__ import annotations

import json
import math
import re
from html import escape
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kit import fake_game as fake
from scipy import stats as sps
from typer.testing import CliRunner

from balance import games as registry
from balance import stats
from balance.cli import app
from balance.config import ConfigError, load_config
from balance.config.overrides import parse_override
from balance.experiments import sweep
from balance.fmt import q_text
from balance.report import numbers, sweep_figures, sweep_page
from balance.report import sweep_sentences as sweep_words
from balance.results import open_results, read_manifest
from balance.stats import across, curves

ROOT = Path(__file__).resolve().parent.parent.parent
FIRST_PLAYER_EDGE = ROOT / "configs" / "five_ravens" / "first_player_edge.yaml"
CYCLE = "seats={cycle: [plain, skilled]}"  # a line-up of any player count for the fake game


def cli(*args: object):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert not result.exception or isinstance(result.exception, SystemExit), result.exception
    return result


def one_line_error(result, *parts: str) -> str:
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    line = result.stderr
    assert line.startswith("error: ") and line.count("\n") == 1, line
    for part in parts:
        assert part in line, line
    return line


# ===================================================================================== knobs


@pytest.mark.parametrize(
    ("text", "values", "labels"),
    [
        ("players=2,3,4", (2, 3, 4), ("2", "3", "4")),
        ("players=2..4", (2, 3, 4), ("2", "3", "4")),
        ("rules.bonus=0..5:2", (0, 2, 4), ("0", "2", "4")),
        ("x=0.5..1.5:0.5", (0.5, 1.0, 1.5), ("0.5", "1.0", "1.5")),
        ("x=-1..1:0.25", (-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0), None),
        ("seats[1]=random, greedy", ("random", "greedy"), ("random", "greedy")),
        ("rules.ravens.seven.action=true,false", (True, False), ("true", "false")),
        ("x='3',3", ("3", 3), ("'3'", "3")),  # typed like --set: a quoted string, an int
        ("seats=[a, b],[b, a]", (["a", "b"], ["b", "a"]), ("[a, b]", "[b, a]")),
        ("seats={rest: a},{cycle: [a, b]}", ({"rest": "a"}, {"cycle": ["a", "b"]}), None),
        (" players = 2 , 3 ", (2, 3), ("2", "3")),
        ("players=4,2,3", (2, 3, 4), ("2", "3", "4")),  # numbers run along their axis
        ("seats[0]=b,a", ("b", "a"), ("b", "a")),  # other values as given
    ],
)
def test_a_knob_takes_its_values_as_written(text, values, labels):
    axis = sweep.parse_over(text)
    assert axis.values == values
    assert [type(v) for v in axis.values] == [type(v) for v in values]
    if labels is not None:
        assert axis.labels == labels
    for v, label in zip(axis.values, axis.labels, strict=True):  # a list's value reads as --set
        if not axis.text.split("=", 1)[1].strip().count(".."):
            assert parse_override(f"{axis.key}={label}").value == v


@settings(max_examples=200, deadline=None)
@given(
    lo=st.integers(-50, 50),
    span=st.integers(0, 60),
    step=st.integers(1, 9),
    scale=st.sampled_from([1, 10, 100]),
)
def test_a_range_is_every_step_from_lo_up_to_hi(lo, span, step, scale):
    """lo..hi:step holds lo, lo + step, ... up to hi, inclusive when hi is on the grid; reals
    (a scale of 10 or 100: 0.1, 0.01 steps) come out exactly as decimals, not 0.30000000000000004."""
    if scale == 1:
        text, lo_v, hi_v, st_v = f"x={lo}..{lo + span}:{step}", lo, lo + span, step
    else:
        lo_v, hi_v, st_v = lo / scale, (lo + span) / scale, step / scale
        digits = len(str(scale)) - 1
        text = f"x={lo_v:.{digits}f}..{hi_v:.{digits}f}:{st_v:.{digits}f}"
    axis = sweep.parse_over(text)
    expected = [lo + i * step for i in range(span // step + 1)]
    assert [round(v * scale) for v in axis.values] == expected
    assert axis.values[0] == lo_v and axis.values[-1] <= hi_v + 1e-12
    assert axis.values[-1] + st_v > hi_v - 1e-12  # nothing on the grid left out
    if scale > 1:
        assert all(v == float(label) for v, label in zip(axis.values, axis.labels, strict=True))
        assert all(type(v) is float for v in axis.values)
    else:
        assert all(type(v) is int for v in axis.values)


@pytest.mark.parametrize(
    ("texts", "message"),
    [
        (["players"], "--over players: expected KEY=V1,V2,... or KEY=lo..hi[:step]"),
        (["players="], "--over players=: no values after '='"),
        (["players=2,,3"], "--over players=2,,3: an empty value between commas"),
        (["x=0.5..2"], "--over x=0.5..2: a range of reals needs a step"),
        (["x=1..3:0"], "--over x=1..3:0: the step must be > 0, got 0"),
        (["x=3..1"], "--over x=3..1: an empty range: 1 is below 3"),
        (["x=0..5000"], "--over x=0..5000: 5,001 values; a sweep holds at most 1,000 points"),
        (["players=2,3,2"], "--over players=2,3,2: the value 2 is given twice"),
        (["games=10,20"], "--over games=10,20: games cannot be swept: every point plays the same"),
        (["seed=1,2"], "--over seed=1,2: seed cannot be swept: every point plays the same seed"),
        (["game=a,b"], "--over game=a,b: game cannot be swept: a sweep plays one game"),
        (["bad key=1,2"], "--over bad key=1: bad key 'bad key'"),
        (["x=[1,2"], "--over x=[1,2: invalid YAML value"),
        (["players=2,3", "players=4"], "--over players=4: players is swept twice"),
        (["a=0..40", "b=0..40"], "--over: the grid has 1,681 points; a sweep holds at most 1,000"),
        ([], "give at least one --over KEY=V1,V2,..."),
    ],
)
def test_a_bad_knob_is_one_line_naming_the_over(texts, message):
    with pytest.raises((sweep.SweepError, ConfigError)) as e:
        sweep.parse_axes(texts)
    assert message in str(e.value)
    assert "\n" not in str(e.value)


def test_a_knob_also_set_by_set_is_refused():
    with pytest.raises(sweep.SweepError, match=r"--over players=2,3: players is also set by "
                       r"--set players=3; give it in one place"):  # fmt: skip
        sweep.parse_axes(["players=2,3"], [parse_override("players=3")])


def test_points_of_a_grid_vary_the_first_knob_slowest_and_name_their_directories():
    axes = sweep.parse_axes(["players=2,3", "seats[1]=random,greedy", "x=0.5..1:0.5"])
    pts = sweep.points(axes)
    assert [p.values for p in pts] == [
        (2, "random", 0.5), (2, "random", 1.0), (2, "greedy", 0.5), (2, "greedy", 1.0),
        (3, "random", 0.5), (3, "random", 1.0), (3, "greedy", 0.5), (3, "greedy", 1.0),
    ]  # fmt: skip
    assert pts[1].name == "players=2, seats[1]=random, x=1.0"
    assert pts[1].dir == "01-players=2_seats-1-=random_x=1.0"
    assert len({p.dir for p in pts}) == len(pts)
    assert [o.text for o in pts[1].overrides] == ["players=2", "seats[1]=random", "x=1.0"]
    assert all(o.source == "--over" for p in pts for o in p.overrides)


# ================================================================================ validation


def test_every_point_is_validated_before_any_game_is_played(fake_config, tmp_path):
    out = tmp_path / "sweep"
    result = cli("sweep", fake_config, "--over", "rules.bonus=0,2,4,6,8", "--out", out)
    one_line_error(result, "--over rules.bonus=6: rules.bonus: must be <= 5, got 6")
    assert fake.PLUGIN.calls == 0  # not one game of the valid points 0, 2, 4
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--over", "players=2,3,9", "--set", CYCLE],
            "--over players=9: players: fake is for 2-4 players, got 9",
        ),
        (["--over", "rules.bonsu=1,2"], "--over rules.bonsu=1: rules.bonsu: unknown key"),
        (
            ["--over", "seats[7]=plain,skilled"],
            "--over seats[7]=plain: seats[7]: seats has items 0-2",
        ),
        (["--over", "rules.bonus=1", "--set", "players=9"], "--set players=9: players:"),
        (["--over", "rules.bonus=1", "--games", "0"], "--games must be at least 1, got 0"),
        (["--over", "rules.bonus=1", "--threads", "99"], "--threads must be between 1 and"),
        (["--over", "players=2,3"], "--over players=2: players: 2 does not match the 3 seats"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(fake_config, tmp_path, args, message):
    out = tmp_path / "sweep"
    one_line_error(cli("sweep", fake_config, *args, "--out", out), message)
    assert not out.exists()
    assert fake.PLUGIN.calls == 0


def test_over_is_required(fake_config):
    result = cli("sweep", fake_config)
    assert result.exit_code == 1
    assert "--over" in result.stderr and result.stderr.count("\n") == 1


# =================================================================================== playing


@pytest.fixture
def bonus_sweep(fake_config, tmp_path):
    """A sweep of the fake game's first-player bonus over 0..3, 300 games each."""
    out = tmp_path / "bonus"
    result = cli("sweep", fake_config, "--over", "rules.bonus=0..3", "--games", 300, "--seed",
                 5, "--out", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    return out, result


def test_every_point_is_the_run_simulate_would_play_with_that_value(bonus_sweep, tmp_path):
    out, result = bonus_sweep
    m = json.loads((out / "sweep.json").read_text())
    assert m["status"] == "complete" and m["games"] == 300 and m["seed"] == 5
    assert [p["dir"] for p in m["points"]] == [f"0{i}-rules.bonus={i}" for i in range(4)]
    assert [p["status"] for p in m["points"]] == ["complete"] * 4
    assert result.stdout.splitlines()[0].startswith(
        f"sweep {m['config_path']}: 4 points (rules.bonus = 0, 1, 2, 3), 300 games each on "
        f"seed 5 -> {out}"
    )
    for k in (0, 3):
        single = tmp_path / f"single{k}"
        config = m["config_path"]
        r = cli("simulate", config, "--set", f"rules.bonus={k}", "--games", 300, "--seed", 5,
                "--out", single)  # fmt: skip
        assert r.exit_code == 0, r.output
        point = out / m["points"][k]["dir"]
        mp, rows = open_results(point)
        ms, srows = open_results(single)
        assert mp["config_hash"] == ms["config_hash"] == m["points"][k]["config_hash"]
        assert mp["overrides"] == [f"rules.bonus={k}"]
        assert rows.collect().equals(srows.collect())  # game i of the point is game i of the run


def test_points_of_one_player_count_are_paired_game_by_game(bonus_sweep):
    out, _ = bonus_sweep
    ss = numbers.analyse_sweep(out)
    for step in range(3):
        a, b = (open_results(out / f"0{k}-rules.bonus={k}") for k in (step, step + 1))
        p = stats.paired_differences(a[1], b[1], a_manifest=a[0], b_manifest=b[0]).table
        mine = ss.steps.filter(pl.col("step") == step)
        assert mine["paired"].all()
        for r in p.filter(pl.col("kind") != "team").iter_rows(named=True):  # teams: the seats
            row = mine.filter(
                (pl.col("metric") == r["metric"])
                & (pl.col("kind") == r["kind"])
                & (pl.col("group") == r["group"])
            )
            if r["kind"] == "policy" and r["group"] == "plain":  # two seats of three: kept
                assert row.height == 1
            if row.height == 0:
                continue
            got = row.row(0, named=True)
            for key in ("a", "b", "diff", "lo", "hi"):
                assert got[key] == pytest.approx(r[key], nan_ok=True), (r, key)
            assert got["p_value"] == pytest.approx(r["p_value"], nan_ok=True)


def test_the_planted_first_player_bonus_raises_the_edge_at_every_step(bonus_sweep):
    """The fake game adds rules.bonus points to the first player's score: the edge must rise
    with it, significantly at every step (300 paired games suffice: a point of 0..3 per seat)."""
    out, _ = bonus_sweep
    ss = numbers.analyse_sweep(out)
    edge = ss.curve.filter(pl.col("metric") == "first_edge").sort("x_pos")
    assert (edge["value"].diff().drop_nulls() > 0).all()
    assert edge["value"][0] == pytest.approx(edge.row(0, named=True)["value"])
    steps = ss.steps.filter(pl.col("metric") == "first_edge").sort("step")
    assert steps.height == 3 and steps["significant"].all() and (steps["diff"] > 0).all()
    # the edge's step is the first player's win share's, counted once: the same q
    order0 = ss.steps.filter(
        (pl.col("metric") == "win_share") & (pl.col("kind") == "order") & (pl.col("group") == "0")
    ).sort("step")
    assert steps["q_value"].to_list() == order0["q_value"].to_list()
    assert steps["repeat_metric"].to_list() == ["win_share"] * 3
    words = sweep_words.sweep_sentences(ss)
    assert any(
        s.startswith("The first player's edge over a fair share is")
        and "It changes significantly at 3 of 3 steps" in s
        for s in words
    ), words


def test_curves_are_the_project_estimators_on_each_point(bonus_sweep):
    out, _ = bonus_sweep
    ss = numbers.analyse_sweep(out)
    for k in range(4):
        _, rows = open_results(out / f"0{k}-rules.bonus={k}")
        ws = stats.win_shares(rows)
        adv = stats.seat_advantage(rows, shares=ws)
        c = ss.curve.filter(pl.col("point") == k)

        def get(metric, kind, group, c=c):
            return c.filter(
                (pl.col("metric") == metric) & (pl.col("kind") == kind) & (pl.col("group") == group)
            ).row(0, named=True)

        for r in ws.by_seat.iter_rows(named=True):
            g = get("win_share", "seat", str(r["seat"]))
            assert (g["value"], g["lo"], g["hi"]) == (r["share"], r["lo"], r["hi"])
        for r in ws.by_policy.iter_rows(named=True):
            g = get("win_share", "policy", r["policy"])
            assert (g["value"], g["lo"], g["hi"]) == (r["share"], r["lo"], r["hi"])
        e = get("first_edge", "order", "0")
        assert (e["value"], e["lo"], e["hi"]) == (
            adv.first_player_edge,
            adv.edge_lo,
            adv.edge_hi,
        )
        df = rows.collect()
        per_game = df.group_by("game").agg(pl.col("score").mean(), pl.col("turns").first())
        for metric, kind, group, col in (
            ("mean_score", "all", "seats", "score"),
            ("mean_turns", "game", "all", "turns"),
        ):
            x = per_game[col].to_numpy().astype(float)
            half = 1.967824 * x.std(ddof=1) / math.sqrt(len(x))  # t(299), 95 %
            g = get(metric, kind, group)
            assert g["value"] == pytest.approx(x.mean())
            assert g["hi"] - g["value"] == pytest.approx(half, rel=1e-4)
        ends = df.filter(pl.col("seat") == 0)["end_reason"].value_counts()
        for r in ends.iter_rows(named=True):
            assert get("end_reason", "reason", r["end_reason"])["value"] == r["count"] / 300


def test_different_player_counts_are_independent_samples(fake_config, tmp_path):
    out = tmp_path / "players"
    result = cli("sweep", fake_config, "--over", "players=2..4", "--set", CYCLE, "--games", 400,
                 "--out", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    assert [read_manifest(out / d)["seats"] for d in ("00-players=2", "02-players=4")] == [
        ["plain", "skilled"],
        ["plain", "skilled", "plain", "skilled"],
    ]
    ss = numbers.analyse_sweep(out)
    assert ss.players_vary and not ss.steps["paired"].any()
    assert set(ss.steps["metric"]) == {
        "normalised_share", "first_edge", "mean_score", "mean_turns", "end_reason",
    }  # fmt: skip
    # each step is stats.across on the two points' games
    a, b = (
        stats.game_arrays(*reversed(open_results(out / d)))
        for d in ("00-players=2", "01-players=3")
    )
    expected = across.across_differences(a[0], b[0])
    mine = ss.steps.filter(pl.col("step") == 0)
    for r in expected.iter_rows(named=True):
        got = mine.filter((pl.col("metric") == r["metric"]) & (pl.col("group") == r["group"])).row(
            0, named=True
        )
        assert (got["diff"], got["lo"], got["hi"]) == pytest.approx((r["diff"], r["lo"], r["hi"]))
    # the seats and places are drawn as share / fair, comparable across player counts
    seats = next(m for m in numbers.METRICS if m.key == "seats")
    fig = sweep_figures.plot_metric(ss, seats)
    assert fig.layout.yaxis.title.text == "share / fair (1 = fair)"
    assert "not compared across player counts" in fig.layout.title.text


def test_the_one_rule_runs_over_the_whole_sweep():
    """adjust_steps is stats.adjust over every step's rows at once, a repeat row left out and
    given the q-value of the row it repeats."""
    rng = np.random.default_rng(3)
    rows = []
    for step in range(4):
        for metric in ("win_share", "mean_turns"):
            for group in ("0", "1", "2"):
                rows.append((step, metric, "seat", group, float(rng.uniform(0, 0.2)), None))
        rows.append((step, "first_edge", "order", "0", 0.5, "win_share"))
        rows.append((step, "win_share", "order", "0", float(rng.uniform(0, 0.01)), None))
    t = pl.DataFrame(
        rows,
        schema=["step", "metric", "kind", "group", "p_value", "repeat_metric"],
        orient="row",
    ).with_columns(
        repeat_kind=pl.when(pl.col("repeat_metric").is_not_null()).then(pl.lit("order")),
        repeat_group=pl.when(pl.col("repeat_metric").is_not_null()).then(pl.lit("0")),
    )
    got = curves.adjust_steps(t)
    plain = t.filter(pl.col("repeat_metric").is_null())
    expected = stats.adjust(plain)
    q = dict(
        zip(
            expected.select("step", "metric", "kind", "group").rows(),
            expected["q_value"],
            strict=True,
        )
    )
    for r in got.iter_rows(named=True):
        key = (r["step"], r["metric"], r["kind"], r["group"])
        if r["repeat_metric"] is None:
            assert r["q_value"] == q[key]
        else:
            assert r["q_value"] == q[(r["step"], "win_share", "order", "0")]
            assert r["p_value"] == 0.5  # its own p is kept
    assert got["significant"].to_list() == (got["q_value"] < 0.05).to_list()


def test_a_grid_pairs_neighbours_along_the_first_knob_within_each_value_of_the_others(
    fake_config, tmp_path
):
    out = tmp_path / "grid"
    result = cli("sweep", fake_config, "--over", "rules.bonus=0,2,4", "--over", "players=2,3",
                 "--set", CYCLE, "--games", 200, "--out", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    ss = numbers.analyse_sweep(out)
    assert ss.series == ["players=2", "players=3"]
    labels = ss.steps.select("step", "step_label").unique().sort("step")["step_label"].to_list()
    assert labels == [
        "rules.bonus=0 → 2 (players=2)",
        "rules.bonus=2 → 4 (players=2)",
        "rules.bonus=0 → 2 (players=3)",
        "rules.bonus=2 → 4 (players=3)",
    ]
    assert ss.steps["paired"].all()  # each curve keeps its player count
    seats = next(m for m in numbers.METRICS if m.key == "seats")
    fig = sweep_figures.plot_metric(ss, seats)  # several groups: a panel per players value
    assert [a.text for a in fig.layout.annotations] == ["players=2", "players=3"]
    edge = next(m for m in numbers.METRICS if m.key == "edge")
    fig = sweep_figures.plot_metric(ss, edge)  # one group: a curve per players value
    assert [t.name for t in fig.data] == ["players=2", "players=3"]
    assert list(fig.layout.xaxis.tickvals) == [0, 2, 4]
    assert list(fig.data[0].x) == pytest.approx([0, 2, 4], abs=0.1)  # side by side at each x


# ============================================================================ kernels, resume


def test_kernels_compile_once_for_every_point(tmp_path):
    """Values live in tables: after the first point, no numba dispatcher of the game gains a
    signature, whatever the player count or rule values of the next points."""
    from numba.core.registry import CPUDispatcher

    from balance import games as registry

    plugin = registry.get("five_ravens")
    from balance import rng
    from balance.games import _kit

    modules = [plugin.module(n) for n in ("engine", "policies", "state")] + [rng, _kit]

    def signatures() -> int:
        return sum(
            len(f.signatures)
            for mod in modules
            for f in vars(mod).values()
            if isinstance(f, CPUDispatcher)
        )

    plan = sweep.plan_sweep(
        FIRST_PLAYER_EDGE, ["players=2,3,4", "rules.relics.gem.count=3,4"], games=200
    )
    counts = []
    summary = sweep.run_sweep(
        plan, out=tmp_path / "s", on_point=lambda r: counts.append(signatures())
    )
    assert len(summary.points) == 6 and counts[0] > 0
    assert counts == [counts[0]] * 6


def test_ctrl_c_keeps_finished_points_and_the_same_command_resumes(fake_config, tmp_path):
    out = tmp_path / "sweep"
    args = ("sweep", fake_config, "--over", "rules.bonus=0..3", "--games", 100, "--chunk-size",
            25, "--out", out)  # fmt: skip
    fake.PLUGIN.interrupt_at = 4 + 2  # point 1: 4 chunks; point 2: Ctrl-C in its second chunk
    result = cli(*args)
    assert result.exit_code == 130, result.output
    assert result.stderr.endswith(
        f"interrupted: 1 of 4 points complete in {out} (rules.bonus=1 at 25 games kept in its "
        "directory); run the same command again to resume\n"
    )
    m = json.loads((out / "sweep.json").read_text())
    assert m["status"] == "interrupted" and m["finished"]
    assert [p["status"] for p in m["points"]] == ["complete", "interrupted", "pending", "pending"]
    assert read_manifest(out / "01-rules.bonus=1")["status"] == "interrupted"
    run = sweep.open_sweep(out)
    assert [p.status for p in run.points] == ["complete", "interrupted", "pending", "pending"]
    first = (out / "00-rules.bonus=0" / "manifest.json").read_text()
    # the page of an unfinished sweep shows the finished point and says what is missing
    page = sweep_page.render_sweep(numbers.analyse_sweep(out))
    assert "3 of 4 points are not finished" in page
    fake.PLUGIN.reset()
    again = cli(*args)
    assert again.exit_code == 0, again.output
    assert "1/4 rules.bonus=0: kept (complete)" in again.stdout
    assert (
        "3 points in" in again.stdout and "1 of 4 points kept from an earlier run" in again.stdout
    )
    assert fake.PLUGIN.calls == 3 * 4  # three points of four chunks; not the kept one
    assert (out / "00-rules.bonus=0" / "manifest.json").read_text() == first
    m = json.loads((out / "sweep.json").read_text())
    assert m["status"] == "complete"
    assert [p["kept"] for p in m["points"]] == [True, False, False, False]


def test_a_stale_point_is_played_again_and_another_sweep_needs_force(fake_config, tmp_path):
    out = tmp_path / "sweep"
    assert cli("sweep", fake_config, "--over", "rules.bonus=0,1", "--games", 50, "--out",
               out).exit_code == 0  # fmt: skip
    # the config changed since: same sweep, points with another hash are played again
    fake.write_config(fake_config, games=50, rules="{variant: other}")
    result = cli("sweep", fake_config, "--over", "rules.bonus=0,1", "--games", 50, "--out", out)
    assert result.exit_code == 0 and "kept" not in result.stdout
    assert read_manifest(out / "00-rules.bonus=0")["config"]["rules"]["variant"] == "other"
    # another sweep in the same directory is refused (nothing touched), --force replaces it
    one_line_error(
        cli("sweep", fake_config, "--over", "rules.bonus=0,2", "--games", 50, "--out", out),
        f"{out}: holds another sweep (its axes differ); choose another --out or pass --force",
    )
    assert (out / "01-rules.bonus=1").is_dir()
    result = cli("sweep", fake_config, "--over", "rules.bonus=0,2", "--games", 50, "--out", out,
                 "--force")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == [
        "00-rules.bonus=0",
        "01-rules.bonus=2",
        "sweep.json",
    ]


def test_a_directory_that_is_not_a_sweep_is_never_replaced(fake_config, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    one_line_error(
        cli("sweep", fake_config, "--over", "rules.bonus=0,1", "--out", out, "--force"),
        f"{out}: exists and is not a sweep directory (no sweep.json); refusing to replace it",
    )
    assert (out / "notes.txt").read_text() == "keep me"


# ==================================================================================== report


def test_report_of_a_sweep_directory_and_its_errors(bonus_sweep, tmp_path):
    out, _ = bonus_sweep
    result = cli("report", out)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"report -> {out / 'report.html'} (")
    html = (out / "report.html").read_text()
    assert html.count("data-figure></div>") == 7  # edge, seat, place, policy, score, length, ends
    for heading in (
        "First player's edge",
        "Win share per seat",
        "Win share per policy",
        "Mean score",
        "Game length",
        "End reasons",
        "Between neighbouring points",
    ):
        assert f"<h2>{escape(heading)}</h2>" in html  # fmt: skip
    assert "Win share per team" not in html  # every team is one seat
    one_line_error(
        cli("report", out, "--baseline", out / "00-rules.bonus=0", "-o", tmp_path / "x.html"),
        "a sweep or ladder directory is reported alone",
    )
    assert not (tmp_path / "x.html").exists()
    # one point is a normal results directory
    point = cli("report", out / "00-rules.bonus=0", "--no-impact", "-o", tmp_path / "p.html")
    assert point.exit_code == 0, point.output


def test_sweep_report_option_writes_the_page(fake_config, tmp_path):
    page = tmp_path / "pages" / "sweep.html"
    result = cli("sweep", fake_config, "--over", "rules.bonus=0,5", "--games", 100, "--out",
                 tmp_path / "s", "--report", page)  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1].startswith(f"report -> {page} (")
    assert "Balance sweep: s" in page.read_text()
    # a report path that cannot be written fails before any game
    fake.PLUGIN.reset()
    (tmp_path / "file").write_text("")
    one_line_error(
        cli(
            "sweep",
            fake_config,
            "--over",
            "rules.bonus=0,5",
            "--out",
            tmp_path / "t",
            "--report",
            tmp_path / "file" / "x.html",
        ),
        "cannot write",
    )
    assert fake.PLUGIN.calls == 0


def test_load_config_of_a_point_matches_the_manifest(bonus_sweep):
    out, _ = bonus_sweep
    m = json.loads((out / "sweep.json").read_text())
    cfg = load_config(m["config_path"], [parse_override("rules.bonus=2")])
    assert (
        read_manifest(out / "02-rules.bonus=2")["config"]["rules"] == cfg.resolved_dict()["rules"]
    )


@pytest.mark.parametrize(
    ("config", "args"),
    [
        (None, ["--over", "players=2..4", "--set", CYCLE, "--games", 300]),  # the fake game
        # Raven Manor deals teams: a fair place wins what the average seat-game wins
        (ROOT / "configs/raven_manor/base.yaml", ["--over", "players=4,5", "--games", 200]),
    ],
)
def test_a_step_across_player_counts_is_the_difference_of_the_curve(
    fake_config, tmp_path, config, args
):
    """Across player counts the edge and share / fair of a step are the curve's values at its
    two points (the same estimators), whether the game fixes teams or deals them."""
    out = tmp_path / "s"
    result = cli("sweep", config or fake_config, *args, "--out", out)
    assert result.exit_code == 0, result.output
    ss = numbers.analyse_sweep(out)
    assert not ss.steps["paired"].any()
    for r in ss.steps.filter(pl.col("metric").is_in(["first_edge", "normalised_share"])).iter_rows(
        named=True
    ):
        metric = "first_edge" if r["metric"] == "first_edge" else "win_share"
        value = "value" if metric == "first_edge" else "norm"
        at = {
            k: ss.curve.filter(
                (pl.col("point") == r[k])
                & (pl.col("metric") == metric)
                & (pl.col("kind") == "order")
                & (pl.col("group") == r["group"])
            )[value][0]
            for k in ("a_point", "b_point")
        }
        assert (r["a"], r["b"]) == pytest.approx((at["a_point"], at["b_point"]))
        assert r["diff"] == pytest.approx(at["b_point"] - at["a_point"])
        assert r["lo"] < r["diff"] < r["hi"]


@pytest.mark.slow
@pytest.mark.parametrize("game", registry.names())
def test_every_registered_game_sweeps_and_reports(game, tmp_path):
    """Nothing in a sweep knows a game: each registered one sweeps its first seat's policy (and,
    where its player count can change, the count too) and gets its page."""
    plugin = registry.get(game)
    policies = list(plugin.default_policies)[:2]
    overs = ["--over", f"seats[0]={','.join(policies)}"]
    if plugin.max_players > plugin.min_players:
        lo = max(plugin.min_players, 3)
        overs = ["--over", f"players={lo},{lo + 1}", *overs]
    out = tmp_path / game
    result = cli("sweep", ROOT / "configs" / game / "base.yaml", *overs, "--games", 100,
                 "--out", out, "--report", tmp_path / f"{game}.html")  # fmt: skip
    assert result.exit_code == 0, result.output
    run = sweep.open_sweep(out)
    assert [p.status for p in run.points] == ["complete"] * len(run.points)
    ss = numbers.analyse_sweep(out)
    assert ss.steps.height and ss.steps["q_value"].is_not_nan().any()
    assert (tmp_path / f"{game}.html").stat().st_size > 1e5


def test_a_sweep_expected_to_take_hours_asks_first(tmp_path):
    """Every point's games at the game's benchmark speed: 3 x 300,000,000 Five Ravens games take
    hours, so off a terminal the sweep is refused without --yes, before anything is written."""
    out = tmp_path / "long"
    result = cli("sweep", FIRST_PLAYER_EDGE, "--over", "players=2,3,4", "--games", 300_000_000,
                 "--out", out)  # fmt: skip
    one_line_error(result, "900,000,000 games of five_ravens take about", "pass --yes")
    assert not out.exists()


# ==================================================================================== trends


def _summary_and_rest(html: str) -> tuple[str, str]:
    """The page's text: its summary, and everything else (tables and method), tags removed."""
    start = html.index('id="summary"')
    end = html.index("<section", start)

    def text(s: str) -> str:
        s = re.sub(r"<script.*?</script>", " ", s, flags=re.S)
        return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", s)).replace("&#x27;", "'")

    return text(html[start:end]), text(html[:start] + html[end:])


def test_the_planted_bonus_is_a_significant_trend_the_least_squares_slope_of_the_curve(
    bonus_sweep,
):
    """The fake game adds rules.bonus to the first player's score: the first player's edge rises
    along 0..3, a trend whose slope is the least-squares line through the curve's points, with
    the per-game contrast's t-interval, and the page says it with numbers of its tables."""
    out, _ = bonus_sweep
    ss = numbers.analyse_sweep(out)
    edge = ss.trends.filter(pl.col("metric") == "first_edge").row(0, named=True)
    curve = ss.curve.filter(pl.col("metric") == "first_edge").sort("x_pos")
    assert edge["points"] == 4 and edge["paired"] and edge["games"] == 300
    assert edge["slope"] == pytest.approx(np.polyfit([0, 1, 2, 3], curve["value"], 1)[0])
    assert (edge["first"], edge["last"]) == pytest.approx((curve["value"][0], curve["value"][3]))
    assert edge["significant"] and edge["lo"] > 0
    # the per-game contrast, written out: sum_i c_i (first player's win at point i - 1/3)
    c = np.array([-1.5, -0.5, 0.5, 1.5]) / 5.0
    wins = []
    for k in range(4):
        _, rows = open_results(out / f"0{k}-rules.bonus={k}")
        df = rows.filter(pl.col("order") == 0).sort("game").collect()
        wins.append(df["win"].to_numpy())
    y = sum(ci * w for ci, w in zip(c, wins, strict=True))
    half = 1.967824 * y.std(ddof=1) / math.sqrt(300)  # t(299), 95 %
    assert edge["hi"] - edge["slope"] == pytest.approx(half, rel=1e-4)
    words = sweep_words.sweep_sentences(ss)
    said = next(s for s in words if s.startswith("The first player's edge over a fair share"))
    assert (
        "Across the 4 points, the first player's edge grows from −2.5 points at rules.bonus=0"
        in said
    )
    assert "per unit of rules.bonus [" in said
    assert not ss.identical  # the bonus changes the games
    # the edge's figure (one curve) gives the trend under its title, as the summary says it
    fig = sweep_figures.plot_metric(ss, next(m for m in numbers.METRICS if m.key == "edge"))
    assert "; trend +" in fig.layout.title.text and " per unit [" in fig.layout.title.text
    # every number of the trend clause is on the page outside the summary (the trends table)
    _, rest = _summary_and_rest(sweep_page.render_sweep(ss))
    clause = said[said.index("Across the 4 points") :]
    for number in re.findall(r"[+−]?\d+(?:\.\d+)?(?:e-\d+)?", clause):
        assert number in rest, (number, clause)


def test_the_headline_is_said_at_each_point_with_its_trend(fake_config, tmp_path):
    """report.headline {metric: win_share, seat: 1}: the summary says seat 1's share at every
    point, as the headline table has them, and its trend (q-value by the one rule)."""
    config = fake.write_config(
        tmp_path / "h.yaml", report="{headline: {metric: win_share, seat: 1}}"
    )
    out = tmp_path / "h"
    result = cli("sweep", config, "--over", "rules.bonus=0..3", "--games", 300, "--out", out)
    assert result.exit_code == 0, result.output
    ss = numbers.analyse_sweep(out)
    assert ss.headline == ("win_share", "seat", "1")
    said = next(s for s in sweep_words.sweep_sentences(ss) if s.startswith("Seat 1 wins "))
    curve = ss.curve.filter(
        (pl.col("metric") == "win_share") & (pl.col("kind") == "seat") & (pl.col("group") == "1")
    ).sort("x_pos")
    first = f"{curve['value'][0] * 100:.1f} % at rules.bonus=0"
    assert said.startswith(f"Seat 1 wins {first}, "), said
    assert "(the config's headline, report.headline)." in said
    assert "Across the 4 points, seat 1's win share " in said
    trend_row = ss.trends.filter(
        (pl.col("metric") == "win_share") & (pl.col("kind") == "seat") & (pl.col("group") == "1")
    ).row(0, named=True)
    assert q_text(trend_row["q_value"]) in said
    _, rest = _summary_and_rest(sweep_page.render_sweep(ss))
    assert "The headline at each point: seat 1's win share" in rest
    for r in curve.iter_rows(named=True):
        assert f"{r['value'] * 100:.1f} %" in rest


def test_a_knob_that_changes_nothing_says_the_points_played_identical_games(fake_config, tmp_path):
    """The fake game never reads rules.deck.aces: every point plays the same games with the
    same outcome, the page says so, and no step or trend is significant (the contrast is 0 in
    every game, exactly)."""
    out = tmp_path / "aces"
    result = cli("sweep", fake_config, "--over", "rules.deck.aces=1..4", "--games", 200,
                 "--out", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    ss = numbers.analyse_sweep(out)
    assert ss.identical
    words = sweep_words.sweep_sentences(ss)
    assert words[1] == "The points played identical games: the knob changes nothing in these games."
    assert not ss.trends["significant"].any() and not ss.steps["significant"].any()
    tested = ss.trends.filter(pl.col("p_value").is_not_nan())
    assert tested.height and (tested["slope"] == 0).all() and (tested["p_value"] == 1).all()


def test_a_categorical_knob_has_steps_but_no_trend(fake_config, tmp_path):
    out = tmp_path / "variant"
    result = cli("sweep", fake_config, "--over", "rules.variant=classic,modern,other",
                 "--games", 100, "--out", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    ss = numbers.analyse_sweep(out)
    assert ss.steps.height and ss.trends.height == 0
    words = sweep_words.sweep_sentences(ss)
    assert (
        "The values of rules.variant are not numbers: no trend across the points is tested, only "
        "neighbouring steps." in words
    )
    assert "no trend across the points is tested" in sweep_page.render_sweep(ss)


def test_trends_across_player_counts_are_independent_samples(fake_config, tmp_path):
    """players=2..4 deal different games: the trend is the same contrast of the points' values
    with variance sum c_i^2 s_i^2 / n_i (Welch-Satterthwaite), on what means the same at every
    count."""
    out = tmp_path / "players"
    result = cli("sweep", fake_config, "--over", "players=2..4", "--set", CYCLE, "--games", 400,
                 "--out", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    ss = numbers.analyse_sweep(out)
    assert not ss.trends["paired"].any()
    assert set(ss.trends["metric"]) == {
        "normalised_share", "first_edge", "mean_score", "mean_turns", "end_reason",
    }  # fmt: skip
    assert set(ss.trends.filter(pl.col("metric") == "normalised_share")["group"]) == {"0", "1"}
    turns = ss.trends.filter(pl.col("metric") == "mean_turns").row(0, named=True)
    per_point = []
    for k in range(3):
        _, rows = open_results(out / f"0{k}-players={k + 2}")
        t = rows.filter(pl.col("seat") == 0).collect()["turns"].to_numpy().astype(float)
        per_point.append(t)
    c = np.array([-0.5, 0.0, 0.5])
    a = np.array([ci * ci * t.var(ddof=1) / t.size for ci, t in zip(c, per_point, strict=True)])
    df = a.sum() ** 2 / (a**2 / 399).sum()
    half = sps.t.ppf(0.975, df) * math.sqrt(a.sum())
    assert turns["slope"] == pytest.approx(
        np.polyfit([2, 3, 4], [t.mean() for t in per_point], 1)[0]
    )
    assert turns["hi"] - turns["slope"] == pytest.approx(half, rel=1e-9)
    edge = ss.trends.filter(pl.col("metric") == "first_edge").row(0, named=True)
    curve = ss.curve.filter(pl.col("metric") == "first_edge").sort("x_pos")["value"]
    assert edge["slope"] == pytest.approx(np.polyfit([2, 3, 4], curve, 1)[0])
    words = " ".join(sweep_words.sweep_sentences(ss))
    assert "from independent samples" in words
    # the fair share is 1/players: the first player's share has no trend the edge would repeat
    assert "The 1st player wins " in words and "the fair share is the same" not in words


def test_a_grid_has_a_trend_per_curve_along_the_first_knob(fake_config, tmp_path):
    out = tmp_path / "grid"
    result = cli("sweep", fake_config, "--over", "rules.bonus=0,2,4", "--over", "players=2,3",
                 "--set", CYCLE, "--games", 200, "--out", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    ss = numbers.analyse_sweep(out)
    assert ss.trends["series"].unique().sort().to_list() == ["players=2", "players=3"]
    assert ss.trends["paired"].all() and (ss.trends["points"] == 3).all()
    for series in ("players=2", "players=3"):
        edge = ss.trends.filter((pl.col("series") == series) & (pl.col("metric") == "first_edge"))
        curve = ss.curve.filter(
            (pl.col("series") == series) & (pl.col("metric") == "first_edge")
        ).sort("x_pos")["value"]
        assert edge["slope"][0] == pytest.approx(np.polyfit([0, 2, 4], curve, 1)[0])
    said = next(
        s for s in sweep_words.sweep_sentences(ss) if s.startswith("The first player's edge")
    )
    assert (
        "Across the points of each curve, the slope of the first player's edge on rules.bonus"
        in said
    )
    assert "with players=2 (q" in said and "with players=3 (q" in said


def test_every_sentence_of_several_rows_agrees_with_its_subject(bonus_sweep):
    """'It change significantly' was the end reasons' sentence: each such sentence has a plural
    subject whatever the count, and a count of one takes the singular."""
    out, _ = bonus_sweep
    ss = numbers.analyse_sweep(out)
    ends = next(m for m in numbers.METRICS if m.key == "ends")
    one = (pl.col("metric") == "end_reason") & (pl.col("step") == 0) & (pl.col("group") == "points")
    marked = ss._replace(
        steps=ss.steps.with_columns(
            significant=pl.when(one).then(True).otherwise(pl.col("significant")),
            q_value=pl.when(one).then(0.001).otherwise(pl.col("q_value")),
        )
    )
    said = sweep_words._shares_sentence(marked, ends)
    assert said.startswith("The end reasons' shares change significantly at 1 of "), said
    assert not re.search(r"\bIt change\b", " ".join(sweep_words.sweep_sentences(marked)))
    html = sweep_page.render_sweep(marked)
    assert " 1 of " in html and "1 of 1 rows" not in html
    for text in sweep_words.sweep_sentences(marked):
        assert " change significantly" not in text or text.startswith(
            ("Win shares", "The end reasons")
        ), text


@pytest.mark.slow
def test_five_ravens_hand_size_2_to_6_is_a_significant_trend_in_the_first_players_edge(tmp_path):
    """Issue 25's acceptance: Five Ravens' hand size over 2..6 (four greedy players, 10,000 games
    a point on seed 1) moves the first player's edge by less than any step can show, but its
    trend across the five points is significant and positive."""
    out = tmp_path / "hand"
    result = cli("sweep", FIRST_PLAYER_EDGE, "--over", "rules.hand_size=2..6", "--games",
                 10_000, "--out", out, "--report", tmp_path / "hand.html")  # fmt: skip
    assert result.exit_code == 0, result.output
    ss = numbers.analyse_sweep(out)
    edge = ss.trends.filter(pl.col("metric") == "first_edge").row(0, named=True)
    assert edge["significant"] and edge["lo"] > 0 and edge["paired"] and edge["points"] == 5
    said = next(s for s in sweep_words.sweep_sentences(ss) if s.startswith("The first player's"))
    assert "Across the 5 points, the first player's edge grows from +" in said


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m.update(format="1"), "format: '1' is not a format of balance sweeps"),
        (lambda m: m.update(points=[1, 2]), "points[0]: an object is expected, got 1"),
        (lambda m: m.update(games="abc"), "games: input should be a valid integer, got 'abc'"),
        (lambda m: m.update(status=7), "status: input should be 'running', 'complete', "),
        (lambda m: m["points"][0].update(dir="../../etc"), "points[0].dir: string should match"),
        (lambda m: m["points"][0].update(dir=".."), "points[0].dir: '..' is not a folder"),
        (lambda m: m["points"][1].update(dir=m["points"][0]["dir"]), "points: a point's dir is"),
        (lambda m: m.clear(), "not a balance sweep manifest"),
    ],
)
def test_a_hand_broken_sweep_manifest_is_one_line(tmp_path, edit, message):
    """Issue 26: every key of sweep.json is checked before a reader trusts it (report, verify)."""
    import json

    from balance.experiments import sweep

    out = tmp_path / "sw"
    out.mkdir()
    manifest = {
        "format": sweep.FORMAT, "kind": "sweep", "games": 10, "seed": 1, "status": "complete",
        "axes": [{"key": "players", "values": [2, 3]}],
        "points": [
            {"index": k, "name": f"players={v}", "dir": f"0{k}-players={v}", "labels": [str(v)],
             "values": [v]} for k, v in enumerate((2, 3))
        ],
    }  # fmt: skip
    edit(manifest)
    (out / "sweep.json").write_text(json.dumps(manifest))
    with pytest.raises(sweep.SweepError) as info:
        sweep.open_sweep(out)
    assert message in str(info.value) and "\n" not in str(info.value)
