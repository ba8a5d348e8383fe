"""``balance check`` on the census's measures (issue 32: dead turns, forced decisions, the turn gap
between the first and the last place, kingmaking; balance/experiments/check.py
``_census_claims``).

- Each game's value is recomputed here from the census frame with plain polars.
- Planted censuses (``balance.census.census`` replaced by a stand-in whose games have known
  values) give the known verdicts, count the games in ``census_batch`` looks, and show that
  kingmaking is tested only while a kingmaking claim is open.
- A real Corvids gate decides its turn-gap claim on the census of its first games, and prints the
  mean of exactly those games.
- A census claim with a group, on a game without decision points or on search seats is one line
  naming the assertion, before any game.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from kit import fake_game as fake
from typer.testing import CliRunner

from balance import census as cs
from balance import experiments as ex
from balance.cli import app
from balance.config import load_config
from balance.stats import census as sc

ROOT = Path(__file__).parent.parent.parent
CORVIDS = ROOT / "configs" / "corvids" / "base.yaml"
A0 = "checks[0].assertions[0]"


def run(*args: object):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert not result.exception or isinstance(result.exception, SystemExit), result.exception
    return result


def write_spec(folder: Path, config: Path | str, *assertions: str, head: str = "") -> Path:
    path = folder / "spec.yaml"
    lines = "".join(f"      - {a}\n" for a in assertions)
    path.write_text(f"{head}checks:\n  - config: {config}\n    assertions:\n{lines}")
    return path


# ---------------------------------------------------------------- each game's value, recomputed


def test_per_game_values_are_the_games_own_shares_and_gap():
    config = load_config(CORVIDS)
    frame, _ = cs.census(config, 1, range(12), cs.Settings(kingmaking=False))
    got = sc.per_game_values(frame)
    last = frame["order"].max()
    by_game = frame.group_by("game", maintain_order=True).agg(
        (pl.col("dead_turns").sum() / pl.col("turns").sum()).alias("dead"),
        (pl.col("forced").sum() / pl.col("decisions").sum()).alias("forced"),
        (
            pl.col("turns").filter(pl.col("order") == 0).sum()
            - pl.col("turns").filter(pl.col("order") == last).sum()
        ).alias("gap"),
        (pl.col("kingmaking").sum() > 0).cast(pl.Float64).alias("king"),
    )
    by_game = by_game.sort("game")
    np.testing.assert_allclose(got["dead_turns"], by_game["dead"].to_numpy())
    np.testing.assert_allclose(got["forced"], by_game["forced"].to_numpy())
    np.testing.assert_array_equal(got["first_minus_last"], by_game["gap"].to_numpy())
    np.testing.assert_array_equal(got["kingmaking_games"], np.zeros(12))
    assert 0 < got["first_minus_last"].mean() < 2  # Corvids' first place takes more turns (CV-7)


def test_a_game_without_turns_or_decisions_has_no_share():
    frame = pl.DataFrame(
        {
            "game": [0, 0, 1, 1],
            "seat": [0, 1, 0, 1],
            "order": [0, 1, 1, 0],
            "won": [1.0, 0.0, 0.0, 1.0],
            "turns": [0, 0, 3, 2],
            "dead_turns": [0, 0, 1, 1],
            "decisions": [0, 0, 4, 4],
            "forced": [0, 0, 0, 2],
            "tested": [0, 0, 2, 0],
            "kingmaking": [0, 0, 1, 0],
        }
    )
    v = sc.per_game_values(frame)
    assert np.isnan(v["dead_turns"][0]) and np.isnan(v["forced"][0])
    assert v["dead_turns"][1] == pytest.approx(2 / 5) and v["forced"][1] == pytest.approx(2 / 8)
    assert list(v["first_minus_last"]) == [0.0, -1.0]  # game 1: order 0 is seat 1 (2 turns)
    assert list(v["kingmaking_games"]) == [0.0, 1.0]


# ---------------------------------------------------------------------------- planted censuses


class PlantedCensus:
    """Stands in for ``balance.census.census``: game g has 10 turns, ``dead`` of them dead
    (seat 0's), the first place takes ``gap`` more turns than the last, and a kingmaking
    decision when ``g % period == 0`` (every game with period 1, none with period 0). Records
    the games and settings it was asked for. ``alternate``: odd games' gap is 2 more."""

    def __init__(self, dead: int = 0, gap: int = 0, period: int = 0, alternate: bool = False):
        self.dead, self.gap, self.period, self.alternate = dead, gap, period, alternate
        self.calls: list[tuple[range, bool]] = []

    def __call__(self, config, seed, games, settings=cs.DEFAULT, *, progress=None):
        self.calls.append((games, settings.kingmaking))
        rows = []
        for g in games:
            king = int(bool(settings.kingmaking and self.period and g % self.period == 0))
            first = 5 + self.gap // 2 + (g % 2 if self.alternate else 0)
            rows.append((g, 0, 0, 1.0, first, self.dead, first, self.dead, 1, 0))
            rows.append((g, 1, 1, 0.0, 10 - first, 0, 10 - first, 0, 1, king))
        frame = pl.DataFrame(rows, schema=cs.COLUMNS, orient="row")
        return frame, pl.DataFrame(schema=cs.KINDS_SCHEMA)


@pytest.fixture
def planted(monkeypatch):
    def plant(**kw) -> PlantedCensus:
        stand_in = PlantedCensus(**kw)
        monkeypatch.setattr(cs, "census", stand_in)
        return stand_in

    return plant


def test_planted_censuses_give_the_known_verdicts(planted, tmp_path):
    stand_in = planted(dead=3, gap=2, period=1)
    spec = ex.load_spec(
        write_spec(
            tmp_path,
            CORVIDS,
            "{metric: dead_turns, within: [0.3, 0.05]}",  # every game: 3 of 10 turns dead
            "{metric: dead_turns, below: 0.2}",
            "{metric: first_minus_last, within: [2, 0.5]}",
            "{metric: kingmaking_games, above: 0.9}",  # every game kingmade
            "{metric: forced, above: 0.5}",  # 3 of 10 decisions forced
            head="census_batch: 20\n",
        )
    )
    result = ex.check(spec, spec_path=tmp_path / "spec.yaml")
    verdicts = [(a.verdict, a.estimate) for a in result.assertions]
    assert verdicts == [
        ("PASS", pytest.approx(0.3)),
        ("FAIL", pytest.approx(0.3)),
        ("PASS", pytest.approx(2.0)),
        ("PASS", pytest.approx(1.0)),
        ("FAIL", pytest.approx(0.3)),
    ]
    # looks of 20 games, from game 0 on, one after the other
    starts = [games.start for games, _ in stand_in.calls]
    assert starts == list(range(0, 20 * len(starts), 20))
    assert all(len(games) == 20 for games, _ in stand_in.calls)
    # each claim stops at the look it decided at; the last to decide ended the census
    assert all(a.games % 20 == 0 for a in result.assertions)
    assert max(a.games for a in result.assertions) == 20 * len(starts)
    assert result.games == 20 * len(starts)  # no kernel claim: only the census's games
    assert "census: games 0 to" in result.assertions[0].detail
    assert "beta-binomial" in result.assertions[0].detail  # a share: the Bernoulli likelihood


def test_kingmaking_is_tested_only_while_a_kingmaking_claim_is_open(planted, tmp_path):
    stand_in = planted(period=1)
    spec = ex.load_spec(
        write_spec(tmp_path, CORVIDS, "{metric: first_minus_last, within: [0, 0.5]}")
    )
    ex.check(spec, spec_path=tmp_path / "spec.yaml")
    assert stand_in.calls and not any(king for _, king in stand_in.calls)
    stand_in.calls.clear()
    spec = ex.load_spec(
        write_spec(
            tmp_path,
            CORVIDS,
            "{metric: kingmaking_games, above: 0.5, delta: 0.2}",  # decides at once
            # gaps of 0 and 2 (sd 1) against a narrow claim: several looks
            "{metric: first_minus_last, within: [1, 0.3], delta: 0.2}",
            head="census_batch: 10\n",
        )
    )
    stand_in.alternate = True
    result = ex.check(spec, spec_path=tmp_path / "spec.yaml")
    kings = [king for _, king in stand_in.calls]
    assert kings[0] and not kings[-1]  # tested until its claim decided, then no longer
    assert result.assertions[0].games < result.assertions[1].games


def test_a_planted_rate_is_estimated_and_decided(planted, tmp_path):
    planted(period=4)  # a quarter of the games kingmade
    spec = ex.load_spec(
        write_spec(
            tmp_path,
            CORVIDS,
            "{metric: kingmaking_games, within: [0.25, 0.1]}",
            "{metric: kingmaking_games, below: 0.1}",
            head="census_batch: 100\n",
        )
    )
    result = ex.check(spec, spec_path=tmp_path / "spec.yaml")
    assert [a.verdict for a in result.assertions] == ["PASS", "FAIL"]
    for a in result.assertions:
        assert a.lo <= 0.25 <= a.hi


# ------------------------------------------------------------------------------ a real census


def test_the_corvids_turn_gap_is_decided_on_the_census_of_its_first_games(tmp_path):
    path = write_spec(
        tmp_path,
        CORVIDS,
        "{metric: first_minus_last, above: 0.2, delta: 0.4}",
        "{metric: dead_turns, below: 0.2, delta: 0.1}",
        head="census_batch: 20\n",
    )
    result = run("check", path)
    assert result.exit_code == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("PASS") and "first_minus_last above 0.2" in lines[0]
    assert lines[1].startswith("PASS") and "dead_turns below 0.2" in lines[1]
    games = int(lines[0].rsplit(",", 1)[1].split()[0].replace(",", ""))
    assert games % 20 == 0
    frame, _ = cs.census(load_config(CORVIDS), 1, range(games), cs.Settings(kingmaking=False))
    gap = sc.per_game_values(frame)["first_minus_last"].mean()
    assert f"{gap:.4f}" in lines[0]


# --------------------------------------------------------------------------------- bad input

REFUSED = {
    "a census claim with a group": (
        "{metric: dead_turns, seat: 0, below: 0.1}",
        f"{A0}.seat: dead_turns is about whole games (their census), not a seat",
    ),
    "a percentage": (
        "{metric: kingmaking_games, below: 30}",
        f"{A0}.below: 30 is outside [0, 1], the range of a share: 30 looks like a percentage: "
        "write 0.3",
    ),
}


@pytest.mark.parametrize(("assertion", "problem"), REFUSED.values(), ids=REFUSED.keys())
def test_a_census_claim_that_cannot_be_tested_is_one_line(tmp_path, assertion, problem):
    path = write_spec(tmp_path, CORVIDS, assertion)
    result = run("check", path)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"error: {path}: {problem}\n"


def test_a_census_of_a_game_without_decision_points_is_refused(fake_game, tmp_path):
    fake.write_config(tmp_path / "fake.yaml")
    path = write_spec(tmp_path, "fake.yaml", "{metric: dead_turns, below: 0.1}")
    result = run("check", path)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith(f"error: {path}: {A0}.metric: fake.yaml: fake: a census ")
    assert result.stderr.count("\n") == 1
    assert fake_game.calls == 0


def test_a_census_of_search_seats_is_refused_before_any_game(tmp_path):
    path = write_spec(tmp_path, CORVIDS, "{metric: first_minus_last, below: 2}")
    text = path.read_text().replace("    assertions:", "    players: search_8\n    assertions:")
    path.write_text(text)
    result = run("check", path)
    assert (result.exit_code, result.stdout) == (2, "")
    assert f"{A0}.metric: " in result.stderr and "search seats" in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("batch", [9, 10_001])
def test_a_census_batch_out_of_its_bounds_is_one_line(tmp_path, batch):
    path = write_spec(
        tmp_path, CORVIDS, "{metric: dead_turns, below: 0.1}", head=f"census_batch: {batch}\n"
    )
    result = run("check", path)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith(f"error: {path}: census_batch: ")
    assert result.stderr.count("\n") == 1


# ------------------------------------------------- a share of a game keeps the promised rates


def upper_ok(events: int, reps: int, stated: float) -> bool:
    """Whether ``events`` in ``reps`` is consistent with a rate <= ``stated`` (the lower end of
    the one-sided 99 % Clopper-Pearson interval lies below it)."""
    from scipy import stats as sps

    return events == 0 or float(sps.beta.ppf(0.01, events, reps - events + 1)) < stated


@pytest.mark.parametrize(
    ("mean", "promise"),
    [(0.18, "beta"), (0.22, "alpha")],
    ids=["holds with delta/2 to spare", "off by delta/2"],
)
def test_a_share_of_dead_turns_keeps_its_error_rates(mean, promise):
    """Planted games: each has 12 turns, each dead with chance ``mean`` (a game's share is k/12,
    a fraction, where the Bernoulli likelihood is a quasi-likelihood). The claim "below 0.2,
    delta 0.04" must fail (or stop undecided) in at most beta of the replicates when the mean is
    0.18, and pass in at most alpha when it is 0.22."""
    from balance.experiments.check import assertion_test, feed_values
    from balance.stats import sequential as seq

    reps, batch = 1000, 400
    a = {"metric": "dead_turns", "below": 0.2, "delta": 0.04}
    spec = ex.Spec.model_validate({"checks": [{"config": "x.yaml", "assertions": [a]}]})
    test = assertion_test(ex.AssertionSpec.model_validate(a), spec, model="bernoulli", reps=reps)
    draw = np.random.default_rng(32)
    while (test.states == seq.OPEN).any():
        feed_values(test, draw.binomial(12, mean, (reps, batch)) / 12)
    n = {k: int((test.states == v).sum()) for k, v in (("pass", 1), ("fail", -1), ("cap", 2))}
    if promise == "beta":
        assert upper_ok(n["fail"] + n["cap"], reps, 0.05), n
        assert n["pass"] > 0.9 * reps
    else:
        assert upper_ok(n["pass"], reps, 0.05), n
        assert n["fail"] > 0.9 * reps
