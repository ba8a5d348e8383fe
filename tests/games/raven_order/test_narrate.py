"""The Raven Order replay (narrate.py): the replayed game is the dataset's game, its lines tell the
builds, the battles and the winner, and the narration's shadow of the events agrees with the
engine's final state (a log with an event dropped or changed does not)."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from balance import results, runner
from balance.cli import app
from balance.config import load_config
from balance.games import get
from balance.games import get as get_game
from balance.games.raven_order import narrate, state

from .helpers import BASE, compiled

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


# ---------------------------------------------------------------- the narration's shadow


def logged_games(c, seed: int, games: range):
    for game in games:
        yield game, narrate.play_logged(c, seed, game)


@pytest.mark.parametrize(
    ("name", "seats"),
    [
        ("base.yaml", None),  # heuristic against heuristic
        ("economy_vs_random.yaml", None),
        ("rush_vs_random.yaml", None),
        ("mirror.yaml", None),
        ("rune_mixes/paint_heavy.yaml", None),  # druids painted, Corruption, Spirit Runes
        ("rune_mixes/double_deck.yaml", ["random", "random"]),
    ],
)
def test_the_events_agree_with_the_final_state(name, seats):
    """The shadow the narration keeps of the events (gold, workers, runes in hand, the deck,
    buildings and their runes, units by type and rune) agrees with every turn's opening event and
    with the engine's final state, game after game: no problems."""
    c = compiled(seats, name=name)
    for game, logged in logged_games(c, 5, range(25)):
        told = narrate.tell(c, logged, 5, game)
        assert told.problems == [], (name, game, told.problems[:3])


def test_told_lines_are_the_replays(base):
    """Game.replay adds nothing to the narration's lines when the events agree."""
    logged = narrate.play_logged(base, 11, 4)
    told = narrate.tell(base, logged, 11, 4)
    assert get_game("raven_order").replay(base, 11, 4).lines == told.lines
    assert told.lines[-5] == "Final position"
    # event_lines: the same words for the events, without the final position and checks
    assert narrate.event_lines(base, logged.log, 11, 4) == told.lines[:-5]


def _damaged(c, code: int, seed: int = 5) -> tuple:
    """A logged game with an event of ``code`` and the index of its first such row."""
    for game, logged in logged_games(c, seed, range(200)):
        rows = np.flatnonzero(logged.log[:, 0] == code)
        if rows.size:
            return game, logged, int(rows[len(rows) // 2])
    raise AssertionError(f"no game logs event {code}")


@pytest.mark.parametrize(
    "code", [state.E_BUILD, state.E_DEATH, state.E_DESTROY, state.E_TRAIN, state.E_RUNE]
)
def test_a_log_without_one_event_is_out_of_step(base, code):
    """Drop one build, kill, razing, training or rune from the log: the narration says where it
    disagrees with the engine (and Game.replay puts that under the lines as a warning)."""
    game, logged, row = _damaged(base, code)
    assert narrate.tell(base, logged, 5, game).problems == []
    cut = logged._replace(log=np.delete(logged.log, row, axis=0))
    problems = narrate.tell(base, cut, 5, game).problems
    assert problems, (code, game, row)


def test_an_altered_event_is_out_of_step(base):
    """One number of the log changed (the gold of a harvest, the victim of a kill): a problem."""
    game, logged, row = _damaged(base, state.E_HARVEST)
    log = logged.log.copy()
    log[row, 2] += 1  # one more gold harvested
    problems = narrate.tell(base, logged._replace(log=log), 5, game).problems
    assert problems and problems[0].startswith(f"row {row}: ")
    game, logged, row = _damaged(base, state.E_DEATH)
    log = logged.log.copy()
    log[row, 1] = 1 - log[row, 1]  # the other seat's unit dies
    assert narrate.tell(base, logged._replace(log=log), 5, game).problems


def test_an_unknown_event_code_is_an_error(base):
    logged = narrate.play_logged(base, 5, 0)
    log = logged.log.copy()
    log[3, 0] = 99
    with pytest.raises(ValueError, match="unknown event code 99"):
        narrate.tell(base, logged._replace(log=log), 5, 0)


def test_replay_warns_under_a_damaged_narration(base, monkeypatch):
    """Game.replay prints the narration's problems as warnings under its lines."""
    game, logged, row = _damaged(base, state.E_BUILD)
    cut = logged._replace(log=np.delete(logged.log, row, axis=0))
    monkeypatch.setattr(narrate, "play_logged", lambda c, seed, g: cut)
    lines = get_game("raven_order").replay(base, 5, game).lines
    assert any(
        line.startswith("WARNING: narration out of step with the engine: ") for line in lines
    )
