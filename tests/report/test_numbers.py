"""numbers.py: what a report computes before it writes a word (differences, the first player's
edge in an impact file, the rows of a compare page), and the impact files it reads."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import polars as pl
import pytest
from stats.helpers import reference_q

from balance import stats
from balance.impact_file import ImpactFile, ImpactFileError, read_impact
from balance.report import numbers
from balance.report.numbers import ReportError, analyse_rows

from .planted import planted_impact_table, planted_manifest, planted_rows, planted_stats


@pytest.fixture(scope="module")
def planted() -> numbers.DatasetStats:
    return planted_stats(planted_rows())


def test_planted_numbers(planted):
    assert planted.shares.games == 10_000 and planted.impact_by is None
    assert planted.shares.by_seat["share"].to_list() == pytest.approx([0.22, 0.31, 0.22, 0.25])
    assert planted.advantage.first_player_share == pytest.approx(0.30)
    assert planted.score_by_policy is None  # one policy holds every seat


def test_paired_differences_against_a_baseline_of_the_same_seed_and_games(planted):
    rows_b = planted_rows(wins=(2_000, 3_500, 2_000, 2_500))
    b = planted_stats(rows_b, label="changed")
    d = numbers.differences(b, planted, rows=rows_b.lazy(), base_rows=planted_rows().lazy())
    assert d.paired and d.games == 10_000
    seat1 = d.table.filter((pl.col("metric") == "win_share") & (pl.col("kind") == "seat")).row(
        1, named=True
    )
    assert (seat1["a"], seat1["b"]) == (pytest.approx(0.31), pytest.approx(0.35))
    assert seat1["diff"] == pytest.approx(0.04) and seat1["significant"]
    assert "team" not in d.table["kind"].to_list()  # one seat per team: the seats again


def test_unpaired_differences_when_the_seeds_differ(planted):
    rows_b = planted_rows(wins=(2_000, 3_500, 2_000, 2_500))
    b = analyse_rows(planted_manifest(rows_b, seed=2), rows_b, label="other seed")
    d = numbers.differences(b, planted, rows=rows_b.lazy(), base_rows=planted_rows().lazy())
    assert not d.paired and "seed" in d.why
    t = d.table.filter((pl.col("metric") == "win_share") & (pl.col("kind") == "seat"))
    lo, hi = stats.newcombe_interval(0.35, 10_000, 0.31, 10_000)
    row = t.row(1, named=True)
    assert row["diff"] == pytest.approx(0.04)
    assert (row["lo"], row["hi"]) == (pytest.approx(float(lo)), pytest.approx(float(hi)))
    turns = d.table.filter(pl.col("metric") == "mean_turns").row(0, named=True)
    assert turns["diff"] == 0 and not turns["significant"]
    assert set(d.table["metric"]) == {"win_share", "mean_score", "mean_turns"}


def test_config_changes_list_every_changed_key():
    a = {"games": 10, "seed": 1, "rules": {"gem": {"value": 3, "count": 4}}, "seats": ["g", "g"]}
    b = {"games": 99, "seed": 2, "rules": {"gem": {"value": 4, "count": 4}}, "seats": ["g", "r"]}
    assert numbers.config_changes(a, b) == ["rules.gem.value: 3 -> 4", "seats: [g, g] -> [g, r]"]
    assert numbers.config_diff({"x": 1}, {"y": [1, 2]}) == [
        ("x", "1", "(absent)"),
        ("y", "(absent)", "[1, 2]"),
    ]


def test_read_impact_parquet_and_json(tmp_path):
    table = planted_impact_table()
    table.write_parquet(tmp_path / "i.parquet")
    data = {"config_path": "c.yaml", "games": 1000, "seed": 7, "level": 0.95, "method": "m"}
    data["table"] = [
        {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in r.items()}
        for r in table.to_dicts()
    ]
    (tmp_path / "i.json").write_text(json.dumps(data))
    for name in ("i.parquet", "i.json"):
        imp = read_impact(tmp_path / name)
        assert imp.summary["variant"].to_list() == ["gem +1", "mask off"]
        # Ranked by the headline metric (the first player's win share by default), not by
        # whichever row moved most (seat 0's +5 points).
        top = imp.summary.row(0, named=True)
        assert (top["kind"], top["group"], top["diff"]) == ("order", "0", pytest.approx(0.03))
        assert top["significant"] and not imp.summary.row(1, named=True)["significant"]
        assert imp.summary["changes"].to_list() == [4, 0]  # order 0, both seats, the score
        # q-values: Benjamini-Hochberg within each metric over both variants, times 3 metrics
        q = reference_q(imp.table["p_value"], imp.table["metric"])
        np.testing.assert_allclose(imp.table["q_value"].to_numpy(), q)
    assert imp.games == 1000 and imp.seed == 7 and imp.config_path == "c.yaml"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.json", None, "no such impact file"),
        ("bad.json", "{", "invalid JSON"),
        ("other.json", '{"a": 1}', "not an impact file"),
        ("x.csv", "a,b", "ends in .json or .parquet"),
        ("cols.json", '{"table": [{"variant": "v"}]}', r"cols.json: table\[0\].metric: missing"),
        ("deep.json", "[" * 100_000 + "]" * 100_000, "not an impact file"),
        ("games.json", '{"games": "abc", "table": []}', "games: input should be a valid integer"),
        ("level.json", '{"level": 95, "table": []}', "level: input should be less than 1, got 95"),
        ("empty.json", '{"table": []}', "table: list should have at least 1 item"),
        (
            "text.json",
            '{"table": [{"variant": "v", "metric": "m", "kind": "k", "group": "g", "a": "x", '
            '"b": 1, "diff": 1, "lo": 0, "hi": 2}]}',
            r"table\[0\].a: input should be a valid number",
        ),
        (
            "num.json",
            '{"table": [{"variant": "v", "metric": "m", "kind": "k", "group": 0, "a": 1, '
            '"b": 1, "diff": 1, "lo": 0, "hi": 2}]}',
            r"table\[0\].group: input should be a valid string",
        ),
    ],
)
def test_bad_impact_files_are_one_line_errors(tmp_path, name, content, message):
    if content is not None:
        (tmp_path / name).write_text(content)
    with pytest.raises(ImpactFileError, match=message) as e:
        read_impact(tmp_path / name)
    assert "\n" not in str(e.value)


def test_first_player_rows_give_the_edge_against_a_fair_share():
    t = pl.DataFrame(
        {
            "variant": ["v", "v", "v"],
            "description": ["d"] * 3,
            "metric": ["win_share", "win_share", "mean_score"],
            "kind": ["order", "order", "order"],
            "group": ["0", "1", "0"],
            "a": [0.60, 0.40, 7.0],
            "b": [0.55, 0.45, 7.5],
            "diff": [-0.05, 0.05, 0.5],
            "lo": [-0.06, 0.04, 0.4],
            "hi": [-0.04, 0.06, 0.6],
        }
    )
    imp = ImpactFile("i.json", "c.yaml", 100, 1, 0.95, "m", t, pl.DataFrame())
    [row] = numbers.first_player_rows(imp)
    assert row["fair"] == 0.5
    assert (row["edge_a"], row["edge_b"]) == (pytest.approx(0.10), pytest.approx(0.05))
    no_order = imp._replace(table=t.filter(pl.col("group") == "0"))
    assert numbers.first_player_rows(no_order) == []  # one place: no turn order to speak of


def test_comparison_rows_drop_rows_that_repeat_or_cannot_move():
    t = pl.DataFrame(
        {
            "metric": ["win_share"] * 4,
            "kind": ["seat", "seat", "team", "policy"],
            "group": ["0", "1", "0", "greedy"],
        }
    )

    def comparison(teams, team_names=()):
        line = stats.config_lineup(["greedy", "greedy"], teams, team_names)
        return SimpleNamespace(table=t, a_lineup=line, b_lineup=line)

    # one seat per team (given or by default) and one policy: only the seats are left
    assert numbers.comparison_rows(comparison(None))["kind"].to_list() == ["seat", "seat"]
    assert numbers.comparison_rows(comparison(["x", "y"]))["kind"].to_list() == ["seat", "seat"]
    shared = numbers.comparison_rows(comparison(["x", "x"]))
    assert shared["kind"].to_list() == ["seat", "seat", "team"]
    # teams the game deals per game (Raven Manor) are never "the seats again"
    dealt = numbers.comparison_rows(comparison(None, ("family", "raven")))
    assert dealt["kind"].to_list() == ["seat", "seat", "team"]


def test_an_empty_dataset_is_an_error():
    rows = planted_rows().head(0)
    with pytest.raises(ReportError, match="holds no games"):
        analyse_rows(planted_manifest(planted_rows()), rows, label="empty", path="results/empty")


def test_the_variants_first_player_edge_is_against_the_mean_seat_win_of_each_config():
    # dealt sides: the places win 70, 60, 60 and 50 % (mean seat win 60 %) in A, 5 points more
    # each in B: the first player's edge is +10 points in both, not +45 against 1/4
    from types import SimpleNamespace

    from balance.report.numbers import first_player_rows

    table = pl.DataFrame(
        {
            "metric": ["win_share"] * 4,
            "kind": ["order"] * 4,
            "group": ["0", "1", "2", "3"],
            "a": [0.7, 0.6, 0.6, 0.5],
            "b": [0.75, 0.65, 0.65, 0.55],
            "variant": ["v"] * 4,
        }
    )
    (row,) = first_player_rows(SimpleNamespace(table=table))
    assert row["edge_a"] == pytest.approx(0.1) and row["edge_b"] == pytest.approx(0.1)
    assert row["fair"] == pytest.approx(0.6)
