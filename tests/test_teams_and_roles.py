"""Teams and roles that change from game to game (Raven Manor's possession), end to end.

Every answer here is worked out by hand from the script of tests/kit/fake_game.py (the
comment above ``scripted`` has the table): four games a cycle, so 400 games hold 100 cycles and every share is
exact. The old rules would get them wrong: a Family victory of two seats is a full win for each
(not half), a team's share is counted per game (not per row), and a seat counts for the team it
ended on (not the config's line-up).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from kit.fake_game import roles as script
from scipy import stats as sps

from balance import experiments, stats
from balance.config import ConfigError, load_config
from balance.results import open_results
from balance.runner import run

GAMES = 400  # 100 cycles of the four scripted games


@pytest.fixture
def dataset(fake_roles_game, tmp_path):
    cfg = load_config(script.write_config(tmp_path / "a.yaml", games=GAMES))
    run(cfg, config_path="a.yaml", out=tmp_path / "a")
    return open_results(tmp_path / "a")


def test_rows_hold_the_team_each_seat_ended_on_and_its_role(dataset):
    manifest, rows = dataset
    df = rows.collect()
    assert df.columns[:5] == ["game", "seat", "policy", "team", "role"]
    assert manifest["team_names"] == ["family", "raven"]
    assert manifest["role_names"] == ["doc", "mayor", "raven"]
    first = df.filter(pl.col("game") < 4)
    assert first["team"].to_list() == [
        "raven", "family", "family",
        "family", "raven", "raven",  # seat 2 possessed: it ends on the Raven's team
        "family", "family", "raven",
        "raven", "raven", "family",
    ]  # fmt: skip
    assert first["role"].to_list()[:3] == ["raven", "doc", "mayor"]
    # game 0: two Family seats win: a full win each; game 3: a draw between two teams: 1/2 each
    assert first["win"].to_list() == [0, 1, 1, 0, 1, 1, 0, 0, 1, 0.5, 0.5, 0.5]
    assert first["shared"].to_list() == [False] * 9 + [True] * 3


def test_win_shares_by_team_role_seat_and_policy_are_per_game(dataset):
    _, rows = dataset
    ws = stats.win_shares(rows)
    share = {r["team"]: r["share"] for r in ws.by_team.iter_rows(named=True)}
    assert share == {"family": pytest.approx(1.5 / 4), "raven": pytest.approx(2.5 / 4)}
    assert ws.by_team["n"].to_list() == [GAMES, GAMES]  # per game, not per row
    role = {r["role"]: r["share"] for r in ws.by_role.iter_rows(named=True)}
    assert role == pytest.approx({"doc": 1.5 / 4, "mayor": 2.5 / 4, "raven": 2.5 / 4})
    assert ws.by_role["n"].to_list() == [GAMES] * 3  # one seat of each role a game
    assert ws.by_seat["share"].to_list() == pytest.approx([0.5 / 4, 2.5 / 4, 3.5 / 4])
    policy = {r["policy"]: r["share"] for r in ws.by_policy.iter_rows(named=True)}
    assert policy == pytest.approx({"plain": 3 / 8, "other": 3.5 / 4})
    # teams dealt per game have no fair share by construction; the line-up is not symmetric
    assert ws.by_team["fair"].is_nan().all()
    assert not ws.teams_fixed and ws.by_seat["team"].is_null().all()
    assert stats.seat_advantage(rows, shares=ws).symmetric is False


def test_a_fair_place_wins_what_the_average_seat_game_wins_when_teams_are_dealt(dataset):
    """Several seats win one game together, so 1/players is no fair share: a fair seat or place
    wins the average seat-game's win (6.5 wins a cycle of 4 games x 3 seats), and the first
    player's edge is the per-game difference (its win minus its game's mean seat win), with an
    interval over games because that fair share comes from the same games."""
    _, rows = dataset
    ws = stats.win_shares(rows)
    fair = 6.5 / 12
    assert ws.by_seat["fair"].to_list() == pytest.approx([fair] * 3)
    assert ws.by_order["fair"].to_list() == pytest.approx([fair] * 3)
    df = rows.collect()
    per_game = (
        df.group_by("game")
        .agg((pl.col("win").filter(pl.col("order") == 0).sum() - pl.col("win").mean()).alias("d"))[
            "d"
        ]
        .to_numpy()
    )
    adv = stats.seat_advantage(rows, shares=ws)
    assert adv.first_player_edge == pytest.approx(per_game.mean())
    half = sps.norm.ppf(0.975) * per_game.std(ddof=1) / np.sqrt(len(per_game))
    assert (adv.edge_lo, adv.edge_hi) == pytest.approx(
        (per_game.mean() - half, per_game.mean() + half)
    )
    assert adv.fair == pytest.approx(adv.first_player_share - per_game.mean())


def _flip_d() -> np.ndarray:
    """Hand-computed per-game change of team raven's win when script game 2 flips: -1 there."""
    return np.tile([0.0, 0.0, -1.0, 0.0], GAMES // 4)


def _t(d: np.ndarray) -> tuple[float, float]:
    return sps.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=sps.sem(d))


def _row(table: pl.DataFrame, metric: str, kind: str, group: str) -> dict:
    return table.row(
        by_predicate=(pl.col("metric") == metric)
        & (pl.col("kind") == kind)
        & (pl.col("group") == group),
        named=True,
    )


def test_paired_differences_of_two_datasets_follow_the_teams(fake_roles_game, tmp_path, dataset):
    cfg = load_config(script.write_config(tmp_path / "b.yaml", games=GAMES, flip=1))
    run(cfg, config_path="b.yaml", out=tmp_path / "b")
    a_manifest, a_rows = dataset
    b_manifest, b_rows = open_results(tmp_path / "b")
    p = stats.paired_differences(a_rows, b_rows, a_manifest=a_manifest, b_manifest=b_manifest)
    r = _row(p.table, "win_share", "team", "raven")
    lo, hi = _t(_flip_d())
    assert (r["a"], r["b"], r["diff"]) == pytest.approx((2.5 / 4, 1.5 / 4, -0.25))
    assert (r["lo"], r["hi"]) == (pytest.approx(lo), pytest.approx(hi))
    # the mayor is seat 0 in script game 2, and it now wins: +1 there
    assert _row(p.table, "win_share", "role", "mayor")["diff"] == pytest.approx(0.25)


def test_compare_pairs_teams_and_roles_game_by_game(fake_roles_game, tmp_path):
    a = load_config(script.write_config(tmp_path / "a.yaml", games=GAMES))
    b = load_config(script.write_config(tmp_path / "b.yaml", games=GAMES, flip=1))
    c = experiments.compare(a, b, chunk_size=64)
    lo, hi = _t(_flip_d())
    raven = _row(c.table, "win_share", "team", "raven")
    assert raven["diff"] == pytest.approx(-0.25)
    assert (raven["lo"], raven["hi"]) == (pytest.approx(lo), pytest.approx(hi))
    family = _row(c.table, "win_share", "team", "family")
    assert family["diff"] == pytest.approx(0.25)
    role = _row(c.table, "win_share", "role", "raven")
    assert (role["a"], role["diff"]) == pytest.approx((2.5 / 4, -0.25))
    assert c.a_lineup.teams == ("family", "raven") and not c.a_lineup.teams_are_seats


def test_impact_measures_the_games_own_variant_on_teams(fake_roles_game, tmp_path):
    cfg = load_config(script.write_config(tmp_path / "a.yaml", games=GAMES))
    plugin = fake_roles_game
    result = experiments.impact(cfg, experiments.default_variants(plugin, cfg))
    raven = result.table.filter(
        (pl.col("metric") == "win_share")
        & (pl.col("kind") == "team")
        & (pl.col("group") == "raven")
    )
    assert raven["diff"].to_list() == pytest.approx([-0.25])
    assert raven["significant"].to_list() == [True]
    assert set(result.table["kind"]) >= {"seat", "order", "policy", "team", "role"}


def test_check_decides_claims_about_teams_and_roles(fake_roles_game, tmp_path):
    script.write_config(tmp_path / "a.yaml", games=GAMES)
    script.write_config(tmp_path / "b.yaml", games=GAMES, flip=1)
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "batch: 400\n"
        "max_games: 40000\n"
        "checks:\n"
        "  - config: a.yaml\n"
        "    assertions:\n"
        "      - {metric: win_share, team: raven, above: 0.55}\n"  # 0.625: holds
        "      - {metric: win_share, team: family, above: 0.45}\n"  # 0.375: broken
        "      - {metric: win_share, role: mayor, within: [0.625, 0.05]}\n"  # holds
        "  - config: b.yaml\n"
        "    baseline: a.yaml\n"
        "    assertions:\n"
        "      - {metric: win_share_shift, team: raven, below: -0.2}\n"  # -0.25: holds
    )
    result = experiments.check(experiments.load_spec(spec), spec_path=spec)
    assert [a.verdict for a in result.assertions] == ["PASS", "FAIL", "PASS", "PASS"]
    assert result.assertions[0].estimate == pytest.approx(0.625, abs=0.01)
    assert result.assertions[3].estimate == pytest.approx(-0.25, abs=0.01)


def test_check_names_a_role_the_game_does_not_deal(fake_roles_game, tmp_path):
    script.write_config(tmp_path / "a.yaml", games=GAMES)
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "checks:\n  - config: a.yaml\n    assertions:\n"
        "      - {metric: win_share, role: thief, above: 0.1}\n"
    )
    with pytest.raises(
        ConfigError, match=r"checks\[0\]\.assertions\[0\]\.role: no seat plays role 'thief'"
    ):
        experiments.check(experiments.load_spec(spec), spec_path=spec)


def test_teams_dealt_per_game_make_no_line_up_symmetric(fake_roles_game, tmp_path):
    # Every seat plays the same policy, but the game deals the teams: no seat is "its own team".
    path = script.write_config(tmp_path / "a.yaml", games=GAMES)
    path.write_text(path.read_text().replace("[plain, plain, other]", "plain"))
    run(load_config(path), config_path=path, out=tmp_path / "sym")
    _, rows = open_results(tmp_path / "sym")
    sa = stats.seat_advantage(rows)
    assert sa.symmetric is False and sa.chi2 is None


@pytest.mark.parametrize("name", ["five_ravens", "raven_order"])
def test_one_seat_per_team_keeps_todays_win_rule(name):
    """The built games have one seat per team: win is still 1/k over the k rank-1 seats, so
    their datasets are unchanged (benchmarks/dataset_hash.py checks every column at scale)."""
    from balance import runner
    from balance.results import team_codes, win_values

    cfg = load_config(f"configs/{name}/base.yaml")
    prep = runner.prepare(cfg, seed=3)
    [chunk] = next(runner.play_chunks([prep], seed=3, games=3000))
    team, _ = team_codes(chunk, cfg.teams, prep.team_names)
    win, shared = win_values(chunk.rank, team)
    won = chunk.rank == 1
    k = won.sum(axis=1, keepdims=True)
    assert prep.team_names == () and prep.role_names == ()
    np.testing.assert_array_equal(win, np.where(won, 1.0 / k, 0.0))
    np.testing.assert_array_equal(shared, won & (k > 1))
    assert (k > 1).any()  # shared wins occur (Five Ravens ties, The Raven Order draws)
