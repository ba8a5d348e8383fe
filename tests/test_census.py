"""The census (issue 32): games replayed decision by decision for turns per seat and per place,
dead turns and kingmaking (balance/census.py, stats/census.py, ``balance census``, the report).

Planted games give the known answers: a stand-in game (``Planted`` below, with a Position's
methods) in which the last seat, which can never win, picks the winner with its last decision
(every game kingmade), one in which chance alone picks the winner after that decision (no game
kingmade), and one in which a seat never has a choice (all its turns dead). The real games'
censuses are held to their datasets: the turns the census counts sum to each game's ``turns``
and its ``won`` is the dataset's win."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from balance import census as cs
from balance import games
from balance.cli import app
from balance.config import load_config
from balance.errors import BalanceError
from balance.stats import census as sc

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = {name: ROOT / "configs" / name / "base.yaml" for name in games.names()}

# ------------------------------------------------------------------------------ a planted game


class Planted:
    """Three seats take ``rounds`` rounds of turns 0, 1, 2; each turn is one decision of its
    seat (options 0 and 1; seat ``dull`` has the single option 0). Seat 2's last decision names
    the winner (``how="king"``: seat 0 or 1 as it picks), or a coin drawn after it does
    (``how="chance"``, from the game's chance stream, which ``reseed`` seeds again). The
    policies pick option 0 (the coin: the chance stream's next draw)."""

    players = 3

    def __init__(self, how: str, rounds: int = 3, dull: int = -1, seed: int = 0) -> None:
        self.how, self.rounds, self.dull = how, rounds, dull
        self.step = 0  # decisions taken
        self.picked: list[int] = []
        self.chance = np.random.default_rng(seed)
        self.game_index = 0

    # what a census reads
    @property
    def done(self) -> bool:
        return self.step >= 3 * self.rounds

    @property
    def actor(self) -> int:
        return -1 if self.done else self.step % 3

    @property
    def kind(self) -> str:
        return "" if self.done else ("name" if self.step == 3 * self.rounds - 1 else "turn")

    def options(self) -> np.ndarray:
        return np.array([0] if self.actor == self.dull else [0, 1], np.int64)

    def apply(self, code: int) -> None:
        assert code in self.options()
        self.picked.append(int(code))
        self.step += 1

    def play_policy(self) -> int:
        self.apply(0)
        return 0

    def play_out(self) -> None:
        while not self.done:
            self.play_policy()

    def copy(self) -> Planted:
        out = Planted(self.how, self.rounds, self.dull)
        out.step, out.picked = self.step, list(self.picked)
        out.chance = np.random.default_rng()
        out.chance.bit_generator.state = self.chance.bit_generator.state
        return out

    def reseed(self, seed: int) -> None:
        self.chance = np.random.default_rng(seed)

    def wins(self) -> np.ndarray:
        w = np.zeros(3)
        w[self.picked[-1] if self.how == "king" else int(self.chance.integers(2))] = 1.0
        return w

    def row(self):
        class Row:
            order = np.array([[0, 1, 2]])

        return Row()


class PlantedWatch:
    """Each decision is its own seat's turn, started by it."""

    decision_opens_turn = True

    def opened(self, pos):
        return []

    def stepping(self, pos):
        pass

    def stepped(self, pos, actor):
        return [actor]


def _census(how: str, games: int = 20, **kw) -> list[dict]:
    return [
        cs.census_of(Planted(how, seed=g, **kw), PlantedWatch(), 1, g, cs.Settings(window=1.0))
        for g in range(games)
    ]


def _planted(how: str, games: int = 20, **kw) -> pl.DataFrame:
    parts = _census(how, games, **kw)
    return pl.DataFrame({c: np.concatenate([p[c] for p in parts]) for c in cs.COLUMNS})


def test_the_last_seat_naming_the_winner_is_kingmaking_in_every_game():
    parts = _census("king")
    frame = pl.DataFrame({c: np.concatenate([p[c] for p in parts]) for c in cs.COLUMNS})
    per_seat = frame.group_by("seat").agg(pl.col("kingmaking").sum(), pl.col("tested").sum())
    got = dict(zip(per_seat["seat"], per_seat["kingmaking"], strict=True))
    # seat 2's last decision only: its earlier ones change nothing, seat 1 (a loser) neither
    assert got == {0: 0, 1: 0, 2: 20}
    # by the kind of decision: the last one, seat 2's naming of the winner, every time
    kinds = pl.DataFrame(
        [(g, k, t, m) for g, p in enumerate(parts) for k, (t, m) in sorted(p["kinds"].items())],
        schema=cs.KINDS_SCHEMA,
        orient="row",
    )
    table = sc.by_kind(kinds, 20)
    assert table["kind"].to_list() == ["name", "turn"]
    assert table.row(0, named=True) | {"lo": 0, "hi": 0} == {
        "kind": "name", "tested": 20, "kingmaking": 20, "games": 20, "share": 1.0, "lo": 0,
        "hi": 0,
    }  # fmt: skip
    assert table.row(1, named=True)["kingmaking"] == 0
    row = sc.summary(frame).filter(pl.col("metric") == "kingmaking_games").row(0, named=True)
    assert row["mean"] == 1.0 and row["lo"] > 0.8
    # the winner (seat 0: every policy picks option 0) is never tested
    assert frame.filter(pl.col("seat") == 0)["tested"].sum() == 0


def test_a_winner_chance_picks_after_the_last_decision_is_no_kingmaking():
    frame = _planted("chance", games=60)
    assert frame["tested"].sum() > 0
    assert frame["kingmaking"].sum() == 0


def test_a_seat_without_a_choice_has_only_dead_turns_and_forced_decisions():
    frame = _planted("king", games=5, rounds=4, dull=1)
    assert frame["turns"].to_list() == [4] * 15
    by_seat = frame.group_by("seat").agg(pl.col("dead_turns").sum(), pl.col("forced").sum())
    dead = dict(zip(by_seat["seat"], by_seat["dead_turns"], strict=True))
    assert dead == {0: 0, 1: 20, 2: 0}
    assert dict(zip(by_seat["seat"], by_seat["forced"], strict=True)) == dead
    row = sc.summary(frame).filter(pl.col("metric") == "dead_turns").row(0, named=True)
    assert row["mean"] == pytest.approx(1 / 3)


# ------------------------------------------------------------------------------ the statistics


def test_the_ratio_interval_is_the_game_clustered_delta_method():
    rng = np.random.default_rng(3)
    den = rng.integers(5, 30, 400).astype(float)
    num = rng.binomial(den.astype(int), 0.2).astype(float)
    r, lo, hi = sc.ratio_interval(num, den)
    assert r == pytest.approx(num.sum() / den.sum())
    resid = num - r * den
    se = np.sqrt((resid**2).sum() / (400 * 399)) / den.mean()
    assert (hi - lo) / 2 == pytest.approx(1.9659 * se, rel=1e-3)


def test_no_place_difference_is_claimed_in_more_than_5_percent_of_planted_nulls():
    """Planted null: every place's turns are drawn alike, so the sentence may claim the first
    place takes more or fewer turns only in the 5 % the interval allows."""
    rng = np.random.default_rng(11)
    claims = 0
    runs = 400
    for _ in range(runs):
        n = 60
        turns = rng.poisson(7, (n, 4))
        frame = pl.DataFrame(
            {
                "game": np.repeat(np.arange(n), 4),
                "seat": np.tile(np.arange(4), n),
                "order": np.tile(np.arange(4), n),
                "won": np.tile([1.0, 0, 0, 0], n),
                "turns": turns.ravel(),
                "dead_turns": np.zeros(4 * n, np.int64),
                "decisions": turns.ravel(),
                "forced": np.zeros(4 * n, np.int64),
                "tested": np.zeros(4 * n, np.int64),
                "kingmaking": np.zeros(4 * n, np.int64),
            }
        )
        said = sc.sentences(
            sc.summary(frame, kingmaking=False), sc.by(frame), kingmaking=False, window=1 / 3
        )
        claims += said[0].startswith("The first place")
    assert claims / runs <= 0.05 + 2.6 * np.sqrt(0.05 * 0.95 / runs)


# ------------------------------------------------------------------------------ the real games


@pytest.mark.parametrize("name", games.names())
def test_the_census_counts_each_games_turns_and_winner_as_the_dataset_has_them(name):
    config = load_config(CONFIGS[name])
    plugin = games.get(name)
    chunk = plugin.play(plugin.compile(config), config.seed, 0, 4)
    c = cs.take_census(config, config.seed, 4, cs.Settings(kingmaking=False))
    turns = c.frame.group_by("game").agg(pl.col("turns").sum()).sort("game")["turns"]
    assert turns.to_list() == chunk.turns.tolist()
    assert c.frame["order"].to_list() == chunk.order.ravel().tolist()
    # the winners: a seat wins (alone, shared or with its side) exactly when its rank is 1
    assert (c.frame["won"] > 0).to_list() == (chunk.rank.ravel() == 1).tolist()
    assert (c.frame["decisions"] >= c.frame["forced"]).all()
    assert (c.frame["turns"] >= c.frame["dead_turns"]).all()


def test_a_census_is_the_same_every_time_and_its_file_reads_back(tmp_path):
    config = load_config(CONFIGS["raven_manor"])
    a = cs.take_census(config, 5, 3, cs.Settings(window=0.5, replays=2))
    b = cs.take_census(config, 5, 3, cs.Settings(window=0.5, replays=2))
    assert a.frame.equals(b.frame)
    assert a.frame["tested"].sum() > 0
    back = cs.read_census(cs.write_census(a, tmp_path / "c.parquet"))
    assert back._replace(frame=a.frame, kinds=a.kinds) == a
    assert back.frame.equals(a.frame) and back.kinds.equals(a.kinds)
    assert a.kinds["tested"].sum() == a.frame["tested"].sum()


def test_search_configs_and_bad_options_are_refused_in_one_line():
    search = sorted((CONFIGS["corvids"].parent).glob("search_vs_*.yaml"))[0]
    with pytest.raises(BalanceError, match="search seats"):
        cs.take_census(load_config(search), 1, 1)
    config = load_config(CONFIGS["five_ravens"])
    for kw, says in (
        ({"games": 0}, "--games 0: must be between 1 and 100,000"),
        ({"games": 2**70}, "--games"),
        ({"games": 1, "settings": cs.Settings(replays=0)}, "--replays 0"),
        ({"games": 1, "settings": cs.Settings(max_alternatives=65)}, "--alternatives 65"),
    ):
        with pytest.raises(BalanceError, match=says):
            cs.take_census(config, 1, **kw)
    with pytest.raises(BalanceError, match="--seed"):
        cs.take_census(config, -1, 1)
    with pytest.raises(BalanceError, match="--window"):
        cs.take_census(config, 1, 1, cs.Settings(window=0))


def test_census_command_writes_the_runs_census_and_the_report_shows_it(tmp_path):
    cli = CliRunner()
    out = tmp_path / "run"
    r = cli.invoke(app, ["simulate", str(CONFIGS["corvids"]), "--games", "30", "--out", str(out)])
    assert r.exit_code == 0, r.output
    r = cli.invoke(app, ["census", str(out), "--games", "31"])
    assert r.exit_code == 1 and f"--games 31: {out} holds 30 games" in r.output
    r = cli.invoke(app, ["census", str(out), "--games", "6", "--seed", "3"])
    assert r.exit_code == 1 and "--seed 3" in r.output
    r = cli.invoke(app, ["census", str(out), "--games", "6", "--replays", "1"])
    assert r.exit_code == 0, r.output
    assert "By place in the turn order" in r.output
    assert (out / cs.CENSUS_FILE).exists()
    r = cli.invoke(app, ["report", str(out)])
    assert r.exit_code == 0, r.output
    page = (out / "report.html").read_text()
    assert "Turns, dead turns and kingmaking" in page and "dead turns (no choice)" in page
    assert "Kingmaking by the kind of decision tested" in page
    # a census of another seed is refused by the report in one line
    other = cs.read_census(out / cs.CENSUS_FILE)._replace(seed=99)
    cs.write_census(other, out / cs.CENSUS_FILE)
    r = cli.invoke(app, ["report", str(out)])
    assert r.exit_code == 1 and "a census of another run" in r.output


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--games", "0"], "--games 0"),
        (["--replays", "1000"], "--replays 1000"),
        (["--out", "x.csv"], "ends in .parquet"),
        (["--window", "1.5"], "--window"),
    ],
)
def test_census_command_bad_input_is_one_line(args, says, tmp_path):
    r = CliRunner().invoke(app, ["census", str(CONFIGS["five_ravens"]), *args])
    assert r.exit_code == 1
    assert says in r.output and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1


def test_compare_pairs_the_census_of_both_configs(tmp_path):
    """`balance compare A B --census N`: the census of games 0 to N - 1 of both, paired B - A;
    the table is paired_summary of each config's own census, and goes to --csv beside the
    comparison."""
    from balance import experiments

    b_path = tmp_path / "b.yaml"
    b_path.write_text(f"extends: {CONFIGS['raven_manor']}\nrules: {{hand_size: 5}}\n")
    a, b = load_config(CONFIGS["raven_manor"]), load_config(b_path)
    result = experiments.compare(a, b, games=200, census=6)
    want = sc.paired_summary(cs.take_census(a, a.seed, 6).frame, cs.take_census(b, a.seed, 6).frame)
    assert result.census.equals(want)
    assert result.census["games"].to_list() == [6] * want.height
    r = CliRunner().invoke(
        app,
        ["compare", str(CONFIGS["raven_manor"]), str(b_path), "--games", "200", "--census", "6",
         "--csv", str(tmp_path / "c.csv")],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "Turns, dead turns and kingmaking (census, paired B - A)" in r.output
    assert "Census of games 0 to 5 of both" in r.output
    assert pl.read_csv(tmp_path / "c.census.csv")["metric"].to_list() == want["metric"].to_list()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--census", "-1"], "--census -1: must be between 1 and the games compared (200"),
        (["--census", "201"], "--census 201"),
        (["--census", "2", "--set", "players=4"], None),  # fine: same players in both
    ],
)
def test_compare_census_bad_input_is_one_line(args, says, tmp_path):
    b = tmp_path / "b.yaml"
    b.write_text(f"extends: {CONFIGS['raven_manor']}\n")
    r = CliRunner().invoke(
        app, ["compare", str(CONFIGS["raven_manor"]), str(b), "--games", "200", *args]
    )
    if says is None:
        assert r.exit_code == 0, r.output
        return
    assert r.exit_code == 1, r.output
    assert r.stderr.startswith(f"error: {says}") and r.stderr.count("\n") == 1, r.stderr


def test_compare_census_needs_decision_points_and_the_same_players(tmp_path):
    three = tmp_path / "three.yaml"
    three.write_text(f"extends: {CONFIGS['five_ravens']}\nplayers: 3\n")
    r = CliRunner().invoke(
        app, ["compare", str(CONFIGS["five_ravens"]), str(three), "--census", "2", "--games", "50"]
    )
    assert r.exit_code == 1 and "--census pairs the same games" in r.stderr
