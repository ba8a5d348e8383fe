"""balance tune: noisy root finding on common seeds (balance/stats/rootfind.py), the search of
several knobs, the tuned config, and bad input.

The planted answers come from curves whose crossing is known: synthetic ones on common random
numbers (a share u_i < p(x) and a score f(x) + z_i of hashed uniforms), the fake game of
``fake_tune`` of tests/kit/fake_game.py (its first player's share of decided games is ``rules.edge``, its mean
score ``rules.points``), and real games whose crossing was measured once on many games.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from kit.fake_game import tune as ftg
from typer.testing import CliRunner

from balance import games
from balance.cli import app
from balance.config import config_hash, load_config
from balance.config.overrides import override
from balance.errors import BalanceError
from balance.experiments import tune as tune_lib
from balance.experiments import tune_spec
from balance.stats import rootfind

ROOT = Path(__file__).parent.parent.parent


# ------------------------------------------------------------------ synthetic curves on CRN


def _mix(x: np.ndarray) -> np.ndarray:
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _uniform(seed: int, first: int, n: int, salt: int = 0) -> np.ndarray:
    """Game i's uniform of seed ``seed``: the same at every value of the knob (CRN)."""
    g = np.arange(first, first + n, dtype=np.uint64)
    h = _mix(g + _mix(np.array([seed * 7919 + salt], dtype=np.uint64)))
    return (h >> np.uint64(11)).astype(np.float64) / 2.0**53


def _share(p, values, seed):
    """A win share p(x) seen as u_i < p(x), game by game."""
    return lambda k, first, n: (_uniform(seed, first, n) < p(values[k])).astype(np.float64)


def _score(f, values, seed, sd=3.0):
    """A mean f(x) seen as f(x) + sd * z_i (Box-Muller of two hashed uniforms)."""

    def ev(k, first, n):
        u1 = np.maximum(_uniform(seed, first, n), 1e-300)
        z = np.sqrt(-2 * np.log(u1)) * np.cos(2 * np.pi * _uniform(seed, first, n, 1))
        return f(values[k]) + sd * z

    return ev


CURVES = {
    # name: (grid, model, make(values, seed), target, truth)
    "share, real knob": (
        rootfind.grid(0.0, 1.0, 0.01, integer=False),
        "bernoulli",
        lambda v, s: _share(lambda x: 0.3 + 0.4 * x**1.5, v, s),
        0.5,
        0.5 ** (1 / 1.5),
    ),
    "score, real knob": (
        rootfind.grid(0.0, 1.0, 0.01, integer=False),
        "normal",
        lambda v, s: _score(lambda x: 10 * (0.3 + 0.4 * x**1.5), v, s),
        5.0,
        0.5 ** (1 / 1.5),
    ),
    "share, integer knob hitting the target": (
        rootfind.grid(0, 20, 1, integer=True),
        "bernoulli",
        lambda v, s: _share(lambda x: 0.2 + 0.03 * x, v, s),
        0.5,
        10,
    ),
    "score, decreasing": (
        rootfind.grid(-2.0, 2.0, 0.05, integer=False),
        "normal",
        lambda v, s: _score(lambda x: -2.0 * x, v, s, sd=4.0),
        1.3,
        -0.65,
    ),
}


@pytest.mark.parametrize("name", list(CURVES))
def test_the_interval_covers_a_planted_crossing_in_19_of_20_seeds(name):
    values, model, make, target, truth = CURVES[name]
    covered, widths = 0, []
    for seed in range(20):
        root = rootfind.find_root(values, target, make(values, seed), budget=10_000, model=model)
        covered += root.lo <= truth <= root.hi
        widths.append(root.hi - root.lo)
        assert root.lo <= root.estimate <= root.hi
        assert root.games <= 10_000
    assert covered >= 19, (name, covered)
    span = float(values[-1] - values[0])
    assert np.mean(widths) < 0.3 * span  # it narrows the range, not only brackets it
    assert CURVES[name][0] is values


def test_the_search_spends_its_games_near_the_crossing():
    values, model, make, target, truth = CURVES["share, real knob"]
    root = rootfind.find_root(values, target, make(values, 1), budget=20_000, model=model)
    far = [p for p in root.points if abs(p.x - truth) > 0.25]
    near = [p for p in root.points if abs(p.x - truth) <= 0.15]
    assert far and near
    assert max(p.games for p in far) <= 1_500  # decided in a few looks
    assert sum(p.games for p in near) > 0.75 * root.games
    assert {p.side for p in far} <= {-1, 1}


def test_a_decreasing_metric_is_bracketed_the_other_way():
    values, model, make, target, _ = CURVES["score, decreasing"]
    root = rootfind.find_root(values, target, make(values, 3), budget=10_000, model=model)
    assert not root.increasing
    ends = {p.x: p.side for p in root.points}
    assert ends[root.lo] == 1 and ends[root.hi] == -1  # above the target left, below right


def test_a_target_out_of_reach_or_at_an_end_is_no_crossing():
    values = rootfind.grid(0.0, 1.0, 0.1, integer=False)
    with pytest.raises(rootfind.NoCrossing, match="same side") as e:
        rootfind.find_root(values, 0.9, _share(lambda x: 0.2 + 0.3 * x, values, 1), budget=4000)
    assert e.value.why == "same side" and e.value.ends[0].side == e.value.ends[1].side == -1
    with pytest.raises(rootfind.NoCrossing, match="undecided") as e:  # the answer is at lo
        rootfind.find_root(
            values, 0.3, _share(lambda x: 0.3 + 0.4 * x, values, 1), budget=4000, model="bernoulli"
        )
    assert e.value.ends[0].side == 0 and e.value.ends[1].side == 1


def test_grid_values():
    assert rootfind.grid(0, 8, 1, integer=True).tolist() == list(range(9))
    assert rootfind.grid(0, 10, 4, integer=True).tolist() == [0, 4, 8, 10]
    reals = rootfind.grid(0.0, 1.0, 0.1, integer=False)
    assert len(reals) == 11 and reals[3] == 0.3 and reals[-1] == 1.0
    assert rootfind.grid(0.0, 1.0, 0.3, integer=False).tolist() == [0.0, 0.3, 0.6, 0.9, 1.0]
    for bad in ((1, 1, 1), (2, 1, 1), (0, 1, 0)):
        with pytest.raises(ValueError):
            rootfind.grid(*bad, integer=True)
    with pytest.raises(ValueError, match="at most"):
        rootfind.grid(0.0, 1.0, 1e-9, integer=False)


@settings(max_examples=40, deadline=None)
@given(
    slope=st.floats(0.2, 5).map(lambda s: s) | st.floats(-5, -0.2),
    crossing=st.floats(-0.8, 0.8),
    sd=st.floats(0.1, 3.0),
    integer=st.booleans(),
    seed=st.integers(0, 10_000),
)
def test_search_invariants(slope, crossing, sd, integer, seed):
    """Whatever the curve: the interval's ends are decided on opposite sides with the estimate
    between them, every point's side agrees with its sequence, the games add up and stay in
    the budget, and the fresh games start after every game a point played."""
    if integer:
        values = rootfind.grid(-10, 10, 1, integer=True)
        scale = 10.0
    else:
        values = rootfind.grid(-1.0, 1.0, 0.02, integer=False)
        scale = 1.0
    f = lambda x: slope * (x / scale - crossing)  # noqa: E731
    try:
        root = rootfind.find_root(values, 0.0, _score(f, values, seed, sd), budget=6000)
    except rootfind.NoCrossing as e:  # a steep end near 0, or sd too large for the budget
        assert e.why == "undecided"
        return
    assert root.lo < root.hi and root.lo <= root.estimate <= root.hi
    assert root.increasing == (slope > 0)
    sides = {p.x: p for p in root.points}
    lo, hi = sides[root.lo], sides[root.hi]
    assert lo.side == -hi.side != 0 and (lo.side < 0) == root.increasing
    for p in root.points:
        if p.side < 0:
            assert p.hi < 0
        elif p.side > 0:
            assert p.lo > 0
    assert root.games == sum(p.games for p in root.points) <= 6000
    assert root.fresh_from == max(p.games for p in root.points)
    assert root.stop in ("resolution", "noise", "budget")


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(1, 200_000),
    share=st.floats(0, 1),
    target=st.floats(0.001, 0.999),
    grid=st.integers(2, 1001),
)
def test_a_share_is_decided_exactly_when_its_sequence_leaves_the_target(n, share, target, grid):
    """The search decides a share from the mixture's evidence at the target alone; that is the
    sequence's own ends (balance.stats.sequential.bernoulli_cs) on the side of the mean."""
    values = rootfind.grid(0, grid - 1, 1, integer=True)
    search = rootfind.RootSearch(
        values, target, lambda k, f, m: np.zeros(m), budget=10_000, model="bernoulli"
    )
    m = rootfind.Moments(np.array([float(n)]), np.array([round(share * n) / n]), np.zeros(1))
    lo, hi = rootfind.bernoulli_cs(m.mean * n, n, search.point_level, search.cs_games)
    assert lo[()] <= m.mean[0] <= hi[()]
    margin = 1e-6  # the ends are found by bisection to about 1e-18; keep away from them
    if hi[()] < target - margin or lo[()] > target + margin:
        assert search._excludes_target(m)
    elif lo[()] + margin < target < hi[()] - margin:
        assert not search._excludes_target(m)


# ------------------------------------------------------------------------------ the options


@pytest.mark.parametrize(
    ("text", "label", "kind", "decided", "weight"),
    [
        ("win_share[order=0]=0.5", "win_share[order=0]", "order", False, 1.0),
        ("win_share[ order=0 , decided ]=0.5", "win_share[order=0,decided]", "order", True, 1.0),
        ("win_share[decided,seat=1]=0.25@3", "win_share[seat=1,decided]", "seat", True, 3.0),
        ("mean_score=8", "mean_score", None, False, 1.0),
        ("mean_score[policy=greedy]=7.5", "mean_score[policy=greedy]", "policy", False, 1.0),
        ("mean_turns=30@0.5", "mean_turns", None, False, 0.5),
        ("win_share[team=raven]=0.5", "win_share[team=raven]", "team", False, 1.0),
    ],
)
def test_targets_parse(text, label, kind, decided, weight):
    t = tune_spec.parse_target(text)
    assert (t.label, t.kind, t.decided, t.weight) == (label, kind, decided, weight)
    assert tune_spec.parse_target(t.text) == t  # the text it shows reads back the same


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("win_shar[order=0]=0.5", "unknown metric 'win_shar' (did you mean 'win_share'?"),
        ("win_share=0.5", "win_share needs a group"),
        ("win_share[order=0]=1.5", "a win share is in [0, 1], got 1.5"),
        ("win_share[sate=0]=0.5", "unknown selector 'sate' (did you mean 'seat'?"),
        ("win_share[seat=x]=0.5", "seat: expected a number from 0"),
        ("win_share[seat=0,order=1]=0.5", "give at most one group"),
        ("mean_turns[seat=0]=30", "seat: mean_turns is about whole games"),
        ("mean_score=eight", "the value must be a number, got 'eight'"),
        ("mean_score=8@0", "the weight must be > 0"),
        ("mean_score=nan", "must be finite"),
        ("mean_score", "expected METRIC[SELECTOR]=VALUE"),
    ],
)
def test_bad_targets_are_one_line(text, problem):
    with pytest.raises(tune_spec.TuneError) as e:
        tune_spec.parse_target(text)
    assert str(e.value).startswith(f"--target {text.strip()}: ")
    assert problem in str(e.value) and "\n" not in str(e.value)


# ------------------------------------------------------------------ the fake game end to end


@pytest.fixture
def fake_tune_game(monkeypatch):
    """Register ``fake_tune`` (tests/kit/fake_game.py) as ``fake_tune`` for one test."""
    monkeypatch.setitem(games._GAMES, "fake_tune", ftg.__name__)
    return ftg.PLUGIN


@pytest.fixture
def base(fake_tune_game, tmp_path):
    """A fake tune config where a fifth of the games are draws."""
    return ftg.write_config(tmp_path / "base.yaml", draw=0.2)


def test_tune_finds_a_planted_edge_and_covers_it_in_19_of_20_seeds(base):
    """The first player's share of decided games is rules.edge exactly: the target 0.37 is
    reached at edge 0.37."""
    covered, near = 0, 0
    for seed in range(20):
        r = tune_lib.tune(
            base, ["rules.edge=0..1"], ["win_share[order=0,decided]=0.37"], games=6000, seed=seed
        )
        covered += r.root.lo <= 0.37 <= r.root.hi
        near += abs(r.answer[0] - 0.37) <= 0.06
        assert r.games <= 6000 and r.root.games + r.fresh_games == r.games
        assert r.fresh_from == r.root.fresh_from >= max(p.games for p in r.root.points)
        (v,) = r.at_answer
        assert v.counted < v.games  # draws are left out
        assert v.lo <= v.mean <= v.hi
    assert covered >= 19
    assert near >= 18


def test_an_integer_knob_that_hits_the_target(base):
    r = tune_lib.tune(base, ["rules.points=0..30"], ["mean_score=7"], games=8000, seed=2)
    assert r.answer == (7,) and r.root.lo <= 7 <= r.root.hi and r.root.hi - r.root.lo <= 2
    assert r.params[0].integer and isinstance(r.answer[0], int)
    (v,) = r.at_answer
    assert v.lo <= 7 <= v.hi


def test_win_share_of_all_games_counts_draws_as_half(base):
    """Without ``decided``, the first player's share is draw/2 + (1 - draw)·edge: 0.3 at
    edge 0.25 when a fifth of the games are draws."""
    r = tune_lib.tune(base, ["rules.edge=0..1"], ["win_share[order=0]=0.3"], games=8000, seed=4)
    assert r.root.lo <= 0.25 <= r.root.hi
    assert r.at_answer[0].counted == r.at_answer[0].games


def test_a_real_knob_written_with_integers_is_searched_as_reals(base):
    r = tune_lib.tune(base, ["rules.edge=0..1"], ["win_share[order=0,decided]=0.5"], games=3000)
    assert not r.params[0].integer and len(r.params[0].values) == 101
    assert r.params[0].values[1] == 0.01


def test_same_seed_same_answer(base):
    args = (base, ["rules.edge=0..1:0.05"], ["win_share[order=0,decided]=0.6"])
    a = tune_lib.tune(*args, games=5000, seed=11)
    b = tune_lib.tune(*args, games=5000, seed=11)
    assert (a.answer, a.root, a.at_answer, a.games) == (b.answer, b.root, b.at_answer, b.games)


def test_several_knobs_search_towards_the_weighted_distance(base):
    """Two targets met exactly at edge 0.25, points 5 (on the grid): every point of the
    small grid is played and the answer is that point."""
    r = tune_lib.tune(
        base,
        ["rules.edge=0..1:0.25", "rules.points=2..8"],
        ["win_share[order=0,decided]=0.25", "mean_score=5"],
        games=40_000,
        seed=5,
    )
    assert r.method == "grid" and len(r.trials) == 5 * 7
    assert r.answer == (0.25, 5)
    assert len({t.values for t in r.trials}) == len(r.trials)
    assert r.refined and all(t.games > r.trial_games for t in r.refined)
    assert r.fresh_from == r.refined[0].games and r.games <= 40_000
    d, lo, hi = r.distance
    assert lo <= d <= hi and lo == 0.0  # both targets inside their intervals
    assert [v.level for v in r.at_answer] == [0.975, 0.975]  # Bonferroni over two targets


def test_a_large_space_is_searched_by_tpe(base):
    r = tune_lib.tune(
        base,
        ["rules.edge=0..1", "rules.points=0..30"],
        ["win_share[order=0,decided]=0.25", "mean_score=5@4"],
        games=60_000,
        seed=1,
        trials=60,
    )
    assert r.method == "tpe" and len(r.trials) == 60
    edge, points = r.answer
    assert points == 5 and abs(edge - 0.25) <= 0.05
    best_search = min(r.trials, key=lambda t: t.distance)
    assert best_search.values in {t.values for t in r.refined}


# ----------------------------------------------------------------------------------- the CLI


@pytest.fixture
def cli():
    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(app, ["tune", *[str(a) for a in args]])

    return invoke


def test_cli_prints_the_answer_and_writes_a_config_that_extends_the_original(cli, base, tmp_path):
    (tmp_path / "tuned").mkdir()
    out = tmp_path / "tuned" / "edge.yaml"
    result = cli(
        base, "--param", "rules.edge=0..1", "--target", "win_share[order=0,decided]=0.37",
        "--set", "rules.bonus=2", "--games", 6000, "--seed", 3, "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "95 % interval [" in result.stdout and f"tuned config -> {out}" in result.stdout
    assert "at the answer:" in result.stdout and "games: " in result.stdout
    text = out.read_text()
    doc = yaml.safe_load(text)
    assert doc["extends"] == "../base.yaml"
    assert doc["rules"]["bonus"] == 2
    edge = doc["rules"]["edge"]
    assert 0.25 <= edge <= 0.5
    assert text.startswith("# Tuned by balance ")
    assert "--param rules.edge=0..1 --target 'win_share[order=0,decided]=0.37'" in text
    assert "--set rules.bonus=2" in text
    header = text.split("extends:")[0]
    assert all(line.startswith("#") for line in header.splitlines())
    tuned = load_config(out)
    expected = load_config(
        base,
        [
            override("rules.bonus", 2, source="--set"),
            override("rules.edge", edge, source="--param"),
        ],
    )
    assert config_hash(tuned) == config_hash(expected)
    assert not list(out.parent.glob(".*tmp*"))


def test_cli_several_knobs_write_every_value(cli, base, tmp_path):
    out = tmp_path / "both.yaml"
    result = cli(
        base, "--param", "rules.edge=0..1:0.25", "--param", "rules.points=2..8",
        "--target", "win_share[order=0,decided]=0.25", "--target", "mean_score=5",
        "--games", 40_000, "--seed", 5, "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "rules.edge = 0.25, rules.points = 5" in result.stdout
    assert "distance at the answer on fresh games" in result.stdout
    tuned = load_config(out)
    assert (tuned.rules.edge, tuned.rules.points) == (0.25, 5)
    assert yaml.safe_load(out.read_text())["extends"] == "base.yaml"


BAD = [
    (["--param", "rules.egde=0..1"], "--param rules.egde=0: rules.egde: unknown key (did you mean 'edge'?)"),
    (["--param", "rules.edge=0..2"], "--param rules.edge=2.0: rules.edge: must be <= 1"),
    (["--param", "rules.edge=1..0"], "--param rules.edge=1..0: an empty range"),
    (["--param", "rules.points=0.5..3"], "--param rules.points=0.5..3: rules.points is an integer"),
    (["--param", "seed=1..5"], "--param seed=1..5: seed cannot be tuned"),
    (["--param", "rules.edge"], "--param rules.edge: expected KEY=lo..hi[:step]"),
    (["--param", "rules.edge=a..b"], "--param rules.edge=a..b: expected a range lo..hi"),
    (["--param", "rules.edge=0..1:0"], "the step must be > 0"),
    (["--param", "rules.edge=0..1", "--param", "rules.edge=0..0.5"], "rules.edge is tuned twice"),
    (["--param", "rules.edge=0..1", "--set", "rules.edge=0.3"], "rules.edge is also set by --set rules.edge=0.3"),
    (["--target", "win_share[seat=5]=0.5"], "--target win_share[seat=5]=0.5: seat: no seat 5 with 2 players (0-1)"),
    (["--target", "win_share[policy=greedy]=0.5"], "no seat plays policy 'greedy' (policies: plain)"),
    (["--target", "win_shar[order=0]=0.5"], "unknown metric 'win_shar'"),
    (["--target", "win_share[order=0]=2"], "a win share is in [0, 1], got 2"),
    (["--target", "mean_score=200"], "not reached in rules.edge = 0..1: mean_score is below 200 at both ends"),
    (["--set", "rules.draw=0.95"], "--set rules.draw=0.95: rules.draw:"),
    (["--games", "900"], "--games 900 is too few for a search"),
    (["--threads", "99"], "--threads must be between 1 and"),
    (["--out", "tuned.txt"], "--out tuned.txt: the tuned config is YAML"),
    (["--out", "nodir/tuned.yaml"], "--out nodir/tuned.yaml: no directory nodir"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "problem"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_is_one_line_and_writes_nothing(cli, base, tmp_path, monkeypatch, args, problem):
    monkeypatch.chdir(tmp_path)
    previous = "# an earlier file\n"
    (tmp_path / "kept.yaml").write_text(previous)
    defaults = {"--param": ["--param", "rules.edge=0..1"], "--target": ["--target", "mean_score=5"]}
    given_ = [a for a in args if a.startswith("--")]
    full = [*args]
    for option, pair in defaults.items():
        if option not in given_:
            full += pair
    if "--out" not in given_:
        full += ["--out", "kept.yaml"]
    result = cli(base, "--games", 3000, *full) if "--games" not in given_ else cli(base, *full)
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert problem in lines[0]
    assert "Traceback" not in result.output
    assert (tmp_path / "kept.yaml").read_text() == previous  # nothing written over it


def test_out_may_not_be_the_config_itself(cli, base):
    result = cli(base, "--param", "rules.edge=0..1", "--target", "mean_score=5", "--out", base)
    assert result.exit_code == 1 and "is the config being tuned" in result.stderr


def test_trials_must_be_positive(cli, base):
    result = cli(
        base, "--param", "rules.edge=0..1", "--param", "rules.points=0..9",
        "--target", "mean_score=5", "--trials", 0,
    )  # fmt: skip
    assert (
        result.exit_code == 1 and "--trials must be between 1 and 100,000, got 0" in result.stderr
    )


# ----------------------------------------------------------------------------- real games


def test_five_ravens_chest_value_for_a_mean_score():
    """Measured once over 75,500 games at each value: mean score 7.75 with the chest 5 worth
    7, 8.01 at 8, 8.25 at 9; the crossing of 8 lies at 8."""
    r = tune_lib.tune(
        ROOT / "configs/five_ravens/base.yaml",
        ["rules.relics.chest_5.value=0..40"],
        ["mean_score=8"],
        games=6000,
        seed=1,
    )
    assert r.root.lo <= 8 <= r.root.hi <= 12
    assert r.root.increasing


def test_raven_order_compensation_counts_decided_games():
    """Economy against rush without the sentry: the first player wins 59 % of the decided
    games with 1 gold of compensation and 32 % with 2 (20,000 games each)."""
    r = tune_lib.tune(
        ROOT / "configs/raven_order/base.yaml",
        ["rules.compensation.gold=0..8"],
        ["win_share[order=0,decided]=0.5"],
        sets=["rules.compensation.sentries=0"],
        games=8000,
        seed=1,
    )
    assert r.root.lo <= 1 and r.root.hi >= 2 and not r.root.increasing
    (v,) = r.at_answer
    assert v.counted < v.games  # turn-cap draws are left out


def _an_integer_rule(path: Path) -> tuple[str, int]:
    """The first top-level integer rule of a config that validates one higher too."""
    cfg = load_config(path)
    for key, value in cfg.resolved_dict()["rules"].items():
        if type(value) is int:
            try:
                load_config(path, [override(f"rules.{key}", value + 1, source="--param")])
            except BalanceError:
                continue
            return f"rules.{key}", value
    raise AssertionError(f"{path}: no integer rule to tune")


@pytest.mark.parametrize("game", games.names())
def test_tune_plays_every_registered_game(game):
    """The search of several targets on any game (one that is added later too): an integer
    rule of its base config and one above it, every point of that grid, the answer re-measured
    on fresh games and written back as a config that extends the base."""
    path = ROOT / "configs" / game / "base.yaml"
    key, value = _an_integer_rule(path)
    r = tune_lib.tune(
        path,
        [f"{key}={value}..{value + 1}"],
        ["mean_turns=20", "win_share[order=0]=0.5", "mean_score=1@0.5"],
        games=3000,
        seed=2,
    )
    assert r.method == "grid" and {t.values for t in r.trials} == {(value,), (value + 1,)}
    assert r.answer[0] in (value, value + 1) and r.games <= 3000
    assert all(v.counted > 0 and v.lo <= v.mean <= v.hi for v in r.at_answer)
    assert r.distance[1] <= r.distance[0] <= r.distance[2]
    assert config_hash(r.config) == config_hash(
        load_config(path, [override(key, r.answer[0], source="--param")])
    )


def test_ctrl_c_writes_nothing_and_exits_130(cli, base, tmp_path, fake_tune_game, monkeypatch):
    out = tmp_path / "tuned.yaml"
    out.write_text("# an earlier tune\n")
    calls = []
    play = fake_tune_game.play

    def interrupted(*args):
        calls.append(1)
        if len(calls) > 5:
            raise KeyboardInterrupt
        return play(*args)

    monkeypatch.setattr(fake_tune_game, "play", interrupted)
    target = "win_share[order=0,decided]=0.3"
    result = cli(base, "--param", "rules.edge=0..1", "--target", target, "--out", out)
    assert result.exit_code == 130 and len(calls) == 6
    assert result.stderr.strip().splitlines()[-1] == f"interrupted: nothing written to {out}"
    assert out.read_text() == "# an earlier tune\n"


def test_without_optuna_a_large_search_says_how_to_install_it(cli, base, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "optuna", None)  # import optuna fails
    args = ["--param", "rules.edge=0..1", "--param", "rules.points=0..30", "--target"]
    result = cli(base, *args, "mean_score=5", "--target", "win_share[order=0]=0.3")
    assert result.exit_code == 1
    assert "pip install 'balance[tune]'" in result.stderr and len(result.stderr.splitlines()) == 1
    small = cli(base, "--param", "rules.points=4..6", "--target", "mean_score=5", "--target",
                "win_share[order=0]=0.5", "--games", 4000)  # fmt: skip
    assert small.exit_code == 0, small.output  # a grid played whole needs no optuna
