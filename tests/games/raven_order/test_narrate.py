"""The Raven Order replay (narrate.py): the replayed game is the dataset's game, and its lines tell
the builds, the battles and the winner."""

from __future__ import annotations

import re

import polars as pl
import pytest
from typer.testing import CliRunner

from balance import results, runner
from balance.cli import app
from balance.config import load_config
from balance.games import get
from balance.games import get as get_game

from .helpers import BASE

END_LINE = re.compile(
    r"^Seat (\d) \((\w+)\) wins: seat (\d) has no building left after (\d+) turns\.$"
)
DRAW_LINE = re.compile(r"^Draw: the turn cap ends the game after (\d+) turns\.$")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    cfg = load_config(BASE)
    out = tmp_path_factory.mktemp("narrate") / "run"
    # small chunks: the replayed games sit at other offsets of their chunk than 0
    runner.run(cfg, config_path=BASE, out=out, games=40, seed=11, chunk_size=16)
    _, frame = results.open_results(out)
    return frame.collect()


def test_replay_is_the_dataset_game(base, run):
    reasons = get("raven_order").end_reasons
    for game in (0, 1, 17, 33, 39):
        got = run.filter(pl.col("game") == game).sort("seat")
        rep = get_game("raven_order").replay(base, 11, game)
        assert rep.score.tolist() == got["score"].to_list()
        assert rep.rank.tolist() == got["rank"].to_list()
        assert rep.turns == got["turns"][0]
        assert reasons[rep.end_reason] == got["end_reason"][0]
        first = got.filter(pl.col("order") == 0)["seat"].to_list()
        assert f"seat {first[0]} goes first" in rep.lines[0]


def test_lines_tell_builds_battles_and_the_winner(base):
    found = 0
    for game in range(30):
        rep = get_game("raven_order").replay(base, 11, game)
        text = "\n".join(rep.lines)
        assert rep.lines[0].startswith(
            f"Game {game} of seed 11: seat 0 plays economy, seat 1 plays rush;"
        )
        assert "  Builds " in text and "  Harvest: " in text
        turns = [line for line in rep.lines if line.startswith("Turn ")]
        assert len(turns) == rep.turns
        end = rep.lines[rep.lines.index("Final position") - 1]
        m = END_LINE.match(end)
        if rep.end_reason == 0:
            assert m, end
            w, loser, n = int(m[1]), int(m[3]), int(m[4])
            assert rep.rank[w] == 1 and rep.rank[loser] == 2 and loser == 1 - w
            assert rep.score[loser] == 0 and n == rep.turns
            assert m[2] == ("economy", "rush")[w]
            # the last building fell to an unblocked attacker of the winner
            razes = [line for line in rep.lines if "An unblocked attacker destroys" in line]
            assert razes and f"seat {loser}'s" in razes[-1]
            # the final position: the loser has nothing standing, the winner its score
            final = rep.lines[rep.lines.index("Final position") + 1 :]
            assert final[2 * loser].endswith("loser): score 0 = 0 buildings standing: none")
            assert f"winner): score {rep.score[w]} = {rep.score[w]} buildings" in final[2 * w]
        else:
            assert DRAW_LINE.match(end)
        if "  Battle: " in text:
            found += 1
    assert found >= 10


def test_cli_replay():
    result = CliRunner().invoke(app, ["replay", str(BASE), "--game", "3"])
    assert result.exit_code == 0, result.output
    out = result.stdout.splitlines()
    assert out[0].startswith("Game 3 of seed 1: seat 0 plays economy, seat 1 plays rush;")
    assert any(END_LINE.match(line) or DRAW_LINE.match(line) for line in out[-7:])
    assert out[-5] == "Final position"
