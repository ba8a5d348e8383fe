"""`balance bench` on a tiny number of games: every row printed, JSON complete, one-line errors.

The real benchmark (a million games per measurement, the cold compile) is `nox -s bench`.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from balance import bench, games
from balance.cli import app
from balance.config import load_config


def _invoke(*args: object):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert not result.exception or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.mark.slow
def test_bench_tiny_run_prints_every_row_and_writes_json(tmp_path):
    out = tmp_path / "bench.json"
    result = _invoke(
        "bench", "five_ravens", "--games", 2000, "--python-games", 5, "--no-cold",
        "--repeats", 1, "--json", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    text = result.stdout
    threads = json.loads(out.read_text())["threads"]
    rows = [
        "compile, cold (empty cache)",
        "skipped (--no-cold)",
        "compile, warm (cache)",
        "warm start: balance simulate",
        "4 greedy, plain Python, 1 thread",
        "compiled 1 thread =",
        "targets for Five Ravens",
        "4 greedy players, all threads",
        "compiled (1 thread) vs plain Python",
        "warm start to first simulated game",
        "balance simulate writing parquet, 4 greedy",
        f"figures -> {out}",
    ]
    for lineup in ("2 greedy", "2 random", "4 greedy", "4 random"):
        rows.append(f"{lineup}, 1 thread")
        if threads > 1:
            rows.append(f"{lineup}, {threads} threads")
    for row in rows:
        assert row in text, row

    figures = json.loads(out.read_text())
    assert {"game", "config", "threads", "headline", "startup", "throughput", "python", "targets",
            "machine"} <= figures.keys()  # fmt: skip
    assert (figures["game"], figures["headline"]) == ("five_ravens", "4 greedy")
    startup = figures["startup"]
    assert startup["cold_s"] is None and startup["cold_total_s"] is None  # --no-cold
    for key in ("imports_s", "warm_total_s", "cli_warm_start_s"):
        assert startup[key] > 0, key
    assert startup["warm_s"] >= 0
    assert len(figures["throughput"]) == 4 * len({1, threads})
    for row in figures["throughput"]:
        assert row["games"] == 2000
        for key in ("seconds", "games_per_s", "ns_per_game"):
            assert row[key] > 0, key
        assert (row["speedup"] is None) == (row["threads"] == 1)
    python = figures["python"]
    assert python["games"] == 5
    for key in ("seconds", "games_per_s", "ns_per_game", "compiled_1_thread_games_per_s", "ratio"):
        assert python[key] > 0, key
    e2e = figures["end_to_end"]
    assert (e2e["lineup"], e2e["games"], e2e["threads"]) == ("4 greedy", 2000, threads)
    assert e2e["seconds"] > 0
    assert e2e["ratio"] == pytest.approx(e2e["games_per_s"] / e2e["kernel_games_per_s"])
    assert e2e["kernel_games_per_s"] == next(
        r["games_per_s"]
        for r in figures["throughput"]
        if (r["lineup"], r["threads"]) == ("4 greedy", threads)
    )
    assert [t["key"] for t in figures["targets"]] == [
        "games_per_s",
        "python_ratio",
        "warm_start_s",
        "end_to_end_ratio",
    ]
    for target in figures["targets"]:
        assert target["measured"] > 0 and isinstance(target["met"], bool)


def test_unknown_game_is_a_one_line_error():
    result = _invoke("bench", "nope", "--no-cold")
    assert (result.exit_code, result.stdout) == (1, "")
    assert (
        result.stderr
        == "error: unknown game 'nope' (one of: five_ravens, raven_order, raven_manor, corvids)\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--threads", 999], "error: --threads must be between 1 and "),
        (["--games", 0], "error: --games must be at least 1, got 0"),
        (["--python-games", -1], "error: --python-games must be between 0 and "),
        (["--config", "nope.yaml"], "error: nope.yaml: base config not found (pass --config)"),
    ],
)
def test_bad_options_are_one_line_errors(args, message):
    result = _invoke("bench", "five_ravens", *args)
    assert result.exit_code == 1
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1


def test_lineups_are_generic(fake_game, fake_config):
    """Every ready-made policy on every seat, at min and max players; base policy leads."""
    base = load_config(fake_config)  # seats: plain, skilled, plain
    found, headline = bench.lineups(fake_game, base)
    assert [x.label for x in found] == ["2 plain", "2 skilled", "4 plain", "4 skilled"]
    assert headline.label == "4 plain"
    cfg = bench.lineup_config(base, found[3])
    assert (cfg.players, cfg.seats, cfg.teams) == (4, ["skilled"] * 4, ["0", "1", "2", "3"])
    assert (cfg.rules, cfg.seed) == (base.rules, base.seed)


def test_five_ravens_lineups_from_the_base_config():
    base = load_config(bench.default_config("five_ravens"))
    found, headline = bench.lineups(games.get("five_ravens"), base)
    assert [x.label for x in found] == ["2 greedy", "2 random", "4 greedy", "4 random"]
    assert headline.label == "4 greedy"
    two = bench.lineup_config(base, found[1])
    assert (two.players, two.seats) == (2, ["random", "random"])
    assert two.policies == base.policies  # the base config's policy settings are kept


def test_raven_order_headline_is_the_base_configs_mixed_lineup():
    """The Raven Order's base config plays economy against rush: that line-up is measured as it
    is and is the headline (issue 4: heuristic vs heuristic), besides each policy on both seats."""
    base = load_config(bench.default_config("raven_order"))
    found, headline = bench.lineups(games.get("raven_order"), base)
    assert [x.label for x in found] == [
        "economy vs rush",
        "2 random",
        "2 economy",
        "2 rush",
    ]
    assert headline is found[0] and headline.seats == ["economy", "rush"]
    cfg = bench.lineup_config(base, headline)
    assert (cfg.players, cfg.seats) == (2, ["economy", "rush"])
    targets = games.get("raven_order").bench.targets()  # the plugin's, since TARGETS moved there
    assert [t.key for t in targets] == ["games_per_s", "python_ratio", "warm_start_s"]
    assert targets[0].threshold == 20_000


@pytest.mark.slow
def test_bench_of_a_search_config_measures_its_search_at_each_budget():
    """A config with a search seat: the heuristic line-ups play with the search seat on its
    rollout policy, and the config's own line-up is measured at each budget on 1 thread and all
    threads, its searches counted (a search a decision with more than one option)."""
    result = bench.run(
        "five_ravens",
        config="configs/five_ravens/search_vs_greedy.yaml",
        games=12,
        python_games=0,
        repeats=1,
        cold=False,
        end_to_end=False,
        min_seconds=0.05,
        iterations=[2, 5],
        search_seconds=0.2,
    )
    assert {r.lineup for r in result.throughput} >= {"4 greedy", "2 greedy"}
    assert result.headline == "4 greedy"
    rows = {(r.iterations, r.threads) for r in result.search}
    threads = {1, result.threads}
    assert rows == {(b, t) for b in (2, 5) for t in threads}
    for r in result.search:
        assert r.lineup == "mcts vs 3 greedy"
        assert 1 <= r.games <= 12 and r.searches > r.games  # several searches a game
        assert r.iterations_run == r.iterations * r.searches
        assert r.ms_per_search == pytest.approx(1000 * r.threads * r.seconds / r.searches)
    assert result.search_startup.iterations == 2 and result.search_startup.cold_s is None
    assert "--set policies.mcts.iterations=2" in result.startup.cli_command
    assert result.startup.cli_games == 1
    table = bench.BenchResult.to_dict(result)
    assert table["search"] and table["search_startup"]["warm_s"] >= 0


def test_a_budget_is_every_sides_budget():
    """``with_iterations`` (a budget of ``--iterations``) sets every search policy to that budget
    on every side: a Raven Manor search with ``iterations_by_side`` loses it."""
    from balance.config.overrides import parse_overrides

    base = load_config(
        "configs/raven_manor/search_vs_basic.yaml",
        parse_overrides(["policies.mcts.iterations_by_side={family: 3, evil: 7}"]),
    )
    assert base.policies["mcts"]["iterations_by_side"] == {"family": 3, "evil": 7}
    entry = bench.with_iterations(base, 9).policies["mcts"]
    assert entry["iterations"] == 9 and "iterations_by_side" not in entry


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--iterations", "100"], "error: --iterations: configs/five_ravens/base.yaml has no "),
        (["--iterations", "1,x", "--config", "configs/five_ravens/search_vs_greedy.yaml"],
         "error: --iterations: expected whole numbers separated by commas, got '1,x'"),
        (["--iterations", "0", "--config", "configs/five_ravens/search_vs_greedy.yaml"],
         "error: --iterations must be between 1 and 1,000,000 each, got 0"),
    ],
)  # fmt: skip
def test_bad_search_budgets_are_one_line_errors(args, message):
    result = _invoke("bench", "five_ravens", "--no-cold", *args)
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1
