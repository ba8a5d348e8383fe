"""The Corvids replay (narrate.py) through the CLI: ``balance replay configs/corvids/base.yaml
--game 3`` tells the dataset's game 3 (the batch kernel's row: its turns, scores and ranks), with one
"Turn" line per turn, the seats' birds named, and no WARNING (the narrator's shadow of every
seat's cards, feathers, bird and score agrees with the engine's final state, ``Told.problems``).
A damaged log (a row removed or altered) is a problem; an unknown event code is an error."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from balance import games
from balance.cli import app
from balance.config import load_config
from balance.games import get as get_game
from balance.games._kit import Logged
from balance.games.corvids import narrate, state, tables
from balance.games.corvids.schema import ITEM_NAMES

from .helpers import compiled

ROOT = Path(__file__).resolve().parents[3]
BASE = ROOT / "configs" / "corvids" / "base.yaml"
GAME = 3
TURN_LINE = re.compile(r"^Turn (\d+): seat (\d) \(")
SCORE_LINE = re.compile(r"^seat (\d) \(\w+\): (-?\d+) points .*, rank (\d+)")


@pytest.fixture(scope="module")
def base():
    cfg = load_config(BASE)
    return cfg, games.get("corvids").compile(cfg)


@pytest.fixture(scope="module")
def printed() -> list[str]:
    result = CliRunner().invoke(app, ["replay", str(BASE), "--game", str(GAME)])
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def test_cli_replay_tells_the_datasets_game(base, printed):
    """The replay is row 3 of the dataset: as many "Turn" lines as the batch kernel's game has
    turns, numbered 1, 2, ... in seat order from the first player, and the scores and ranks of its
    row; no WARNING line."""
    cfg, c = base
    assert not [line for line in printed if "WARNING" in line]
    chunk = games.get("corvids").play(c, cfg.seed, GAME, 1)
    turns = [TURN_LINE.match(line) for line in printed]
    turns = [m for m in turns if m]
    assert len(turns) == int(chunk.turns[0]) > 0
    assert [int(m[1]) for m in turns] == list(range(1, len(turns) + 1))
    n = c.players
    first = int(turns[0][2])
    assert [int(m[2]) for m in turns] == [(first + t) % n for t in range(len(turns))]
    assert chunk.order[0].tolist() == [(p - first) % n for p in range(n)]
    scores = [SCORE_LINE.match(line) for line in printed]
    scores = [m for m in scores if m]
    assert [int(m[1]) for m in scores] == list(range(n))
    assert [int(m[2]) for m in scores] == chunk.score[0].tolist()
    assert [int(m[3]) for m in scores] == chunk.rank[0].tolist()
    assert printed[0].startswith(f"Corvids, game {GAME} of seed {cfg.seed}: 4 players")
    assert any(line.startswith("The pile holds no card after ") for line in printed)
    # and the replay's own outcome is the row's
    rep = get_game("corvids").replay(c, cfg.seed, GAME)
    assert rep.lines == printed
    assert rep.score.tolist() == chunk.score[0].tolist()
    assert rep.rank.tolist() == chunk.rank[0].tolist()
    assert rep.turns == int(chunk.turns[0]) and rep.end_reason == int(chunk.end_reason[0])


def test_cli_replay_names_every_seats_bird(base, printed):
    """CV-10: the replay shows the hidden information: every seat's bird, by its name, with its
    nest."""
    cfg, c = base
    logged = narrate.play_logged(c, cfg.seed, GAME)
    birds = logged.state.pl[: c.players, state.PL_BIRD].tolist()
    for p, b in enumerate(birds):
        nest = int(c.tb.params[tables.P_BIRD_NEST + b])
        line = f"seat {p} (greedy) is the {c.bird_names[b]} (nest {nest}; "
        assert any(x.startswith(line) for x in printed), line
    assert len({c.bird_names[b] for b in birds}) == c.players


def test_replays_of_other_games_agree_with_the_batch_kernel(base):
    """Replay ``i`` is row ``i`` of a chunk starting elsewhere than game 0, and its lines hold no
    WARNING (the narrator's shadow of the seats' cards and feathers agrees)."""
    cfg, c = base
    chunk = games.get("corvids").play(c, cfg.seed, 5, 6)
    for game in (5, 7, 10):
        rep = get_game("corvids").replay(c, cfg.seed, game)
        row = game - chunk.first_game
        assert rep.score.tolist() == chunk.score[row].tolist()
        assert rep.rank.tolist() == chunk.rank[row].tolist()
        assert rep.turns == int(chunk.turns[row])
        assert not [line for line in rep.lines if "WARNING" in line]
        assert sum(bool(TURN_LINE.match(line)) for line in rep.lines) == rep.turns


def test_an_unknown_event_code_raises(base):
    """narrate.tell raises ValueError on an event code it does not know."""
    cfg, c = base
    logged = narrate.play_logged(c, cfg.seed, GAME)
    bad = logged.log.copy()
    bad[3, 0] = 99
    broken = Logged(bad, logged.state, logged.score, logged.rank, logged.turns, logged.end_reason)
    with pytest.raises(ValueError, match="unknown event code 99"):
        narrate.tell(c, broken, cfg.seed, GAME)


def test_a_failed_set_up_is_told(base):
    """ENGINE-8: a game whose set-up failed is told as such, with no turn."""
    rules = {
        "physics": {
            "scatter_sd_x": 0.0,
            "scatter_sd_y": 0.0,
            "setup_retries": 2,
            "nest_cover": "overlap",
        }
    }
    c = compiled(4, rules, seats="greedy")
    rep = get_game("corvids").replay(c, 1, 0)
    assert any(line.startswith("Set-up failed") for line in rep.lines)
    assert not [line for line in rep.lines if TURN_LINE.match(line)]
    assert rep.lines[-1] == "The game ends before its first turn; every seat shares the win."
    assert (rep.rank == 1).all() and (rep.score == 0).all() and rep.end_reason == 1
    assert not [line for line in rep.lines if "WARNING" in line]


def test_the_set_up_line_says_how_the_nests_were_covered(base, printed):
    """CV-8: the replay's set-up line says the pile was scattered once and how many cards were
    pushed over the nests it left bare until every nest was completely covered (the event's
    counts); with the looser reading, that the pile was scattered until a card overlapped every
    nest."""
    cfg, c = base
    logged = narrate.play_logged(c, cfg.seed, GAME)
    start = [int(v) for v in logged.log[0]]
    assert start[0] == state.E_START and start[5] == 0
    line = next(x for x in printed if x.startswith("Set-up: "))
    pushed = start[7]
    assert line.startswith("Set-up: the pile was scattered 1 time, ")
    word = "card" if pushed == 1 else "cards"
    assert f" and {pushed} {word} pushed over the nests it left bare until every nest was " in line
    assert "completely covered (CV-8, PHYS-4)" in line
    loose = compiled(4, {"physics": {"nest_cover": "overlap"}}, seats="greedy")
    lines = get_game("corvids").replay(loose, cfg.seed, GAME).lines
    line = next(x for x in lines if x.startswith("Set-up: "))
    assert "until a card overlapped every nest" in line and "pushed" not in line


@pytest.mark.parametrize(
    ("i", "words"),
    [(i, ("an " if name[0] in "aeiou" else "a ") + name) for i, name in enumerate(ITEM_NAMES)]
    + [(tables.BLANK, "a blank back")],
)
def test_items_are_told_with_their_article(i, words):
    """Every card name takes its own article in the replay: "an acorn", "an earring", "a key"."""
    assert narrate.a_item(i) == words


def test_a_replay_never_says_a_before_a_vowel(base):
    """Over the picks and steals of a few replays, no "a acorn" / "a earring" (issue 25)."""
    cfg, c = base
    told = []
    for game in range(8):
        told += get_game("corvids").replay(c, cfg.seed, game).lines
    assert not [x for x in told if re.search(r"\ba (acorn|earring)\b", x)]
    assert [x for x in told if re.search(r"\ban (acorn|earring)\b", x)]


# ---------------------------------------------------------------- the shadow against the engine

SHADOW_CONFIGS = ("base", "random_vs_greedy", "eight_players", "two_players", "small_mat")


@pytest.mark.parametrize("name", SHADOW_CONFIGS)
def test_the_narrators_shadow_agrees_with_the_engine_in_every_game(name):
    """``tell``'s problems are none over many games of shipped configs: the events' feathers,
    cards (which ones), revealed birds, scores, ranks, turns, pecks and pieces off the mat are
    the engine's final state's (Narrator.finish)."""
    c = tables.compile_tables(load_config(ROOT / "configs" / "corvids" / f"{name}.yaml"))
    for game in range(12):
        logged = narrate.play_logged(c, 11, game)
        told = narrate.tell(c, logged, 11, game)
        assert told.problems == [], (name, game, told.problems[:3])


def damaged(logged: Logged, log: np.ndarray) -> Logged:
    return logged._replace(log=log)


def told_problems(c, logged: Logged, seed: int) -> list[str] | None:
    """The problems of telling ``logged``; None when telling it raises ValueError."""
    try:
        return narrate.tell(c, logged, seed, GAME).problems
    except ValueError:
        return None


def test_a_log_with_a_row_removed_is_a_problem(base):
    """Removing any one event that changes the shadow (a pick, a peck, a steal, a nest
    uncovered, a piece off the mat, a nut, a score, the end) is a problem or a ValueError."""
    cfg, c = base
    logged = narrate.play_logged(c, cfg.seed, GAME)
    assert narrate.tell(c, logged, cfg.seed, GAME).problems == []
    shadowed = {
        state.E_PICK,
        state.E_PECK,
        state.E_STEAL,
        state.E_NEST,
        state.E_OFF,
        state.E_NUT,
        state.E_SCORE,
        state.E_END,
        state.E_TURN,
        state.E_ISOLATED,
    }
    tried = 0
    for i, row in enumerate(logged.log):
        if int(row[0]) not in shadowed:
            continue
        if int(row[0]) == state.E_ISOLATED and int(row[2]) == 0:
            continue  # no feather removed: nothing of the shadow changes
        log = np.delete(logged.log, i, axis=0)
        problems = told_problems(c, damaged(logged, log), cfg.seed)
        assert problems is None or problems, (i, tuple(int(x) for x in row))
        tried += 1
    assert tried > 20


@pytest.mark.parametrize(
    ("code", "column", "delta"),
    [
        (state.E_PICK, 5, 1),  # one feather more with a pick
        (state.E_PICK, 1, 1),  # another seat picks
        (state.E_PICK, 2, 1),  # another card
        (state.E_BIRD, 2, 1),  # another bird dealt
        (state.E_TURN, 2, 1),  # another turn number
        (state.E_SCORE, 2, 1),  # another score
        (state.E_SCORE, 7, 1),  # another rank
        (state.E_END, 1, 1),  # another number of turns
    ],
)
def test_a_log_with_a_row_altered_is_a_problem(base, code, column, delta):
    """Altering one integer of an event the shadow keeps is a problem (or a ValueError)."""
    cfg, c = base
    logged = narrate.play_logged(c, cfg.seed, GAME)
    rows = np.flatnonzero(logged.log[:, 0] == code)
    assert len(rows)
    log = logged.log.copy()
    log[rows[0], column] += delta
    wrap = {  # a seat, a card and a bird stay ones the game has
        (state.E_PICK, 1): c.players,
        (state.E_PICK, 2): logged.state.cc.shape[0],
        (state.E_BIRD, 2): len(c.bird_names),
    }.get((code, column))
    if wrap:
        log[rows[0], column] %= wrap
    problems = told_problems(c, damaged(logged, log), cfg.seed)
    assert problems is None or problems


def test_every_event_code_has_a_handler(base):
    """The narrator tells every event the engine logs: one handler per state.E_* code."""
    cfg, c = base
    logged = narrate.play_logged(c, cfg.seed, GAME)
    codes = {v for k, v in vars(state).items() if k.startswith("E_") and isinstance(v, int)}
    assert set(narrate.Narrator(c, logged, cfg.seed, GAME).handlers) == codes
