"""Five Ravens replay (narrate.py): it is the dataset's game, it tells every event, and its shadow
of the piles agrees with the engine's final state."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from balance import results, runner
from balance.cli import app
from balance.config import config_from_dict, load_config
from balance.config.loading import load_yaml
from balance.games import get as get_game
from balance.games.five_ravens import PLUGIN, narrate, narrate_words, state, tables
from balance.games.five_ravens.state import E_DRAW, E_SHUFFLE_CENTRE, G_START, G_TURNS

BASE = Path(__file__).resolve().parents[3] / "configs" / "five_ravens" / "base.yaml"
EVENTS = {getattr(state, n): n for n in dir(state) if n.startswith("E_")}
SCORE_LINE = re.compile(
    r"^  Seat (\d) \(\w+\): (-?\d+) = chests -?\d+ \+ gems \d+ \+ hollows \d+ \+ cursed sets \d+ "
    r"\+ captured 4 \d+ - penalties \d+   \(rank (\d)(?:, winner|, shared win)?; (\d+) captured"
)


def compiled(players: int, seats: list[str], **rules: object) -> tables.Compiled:
    data, _ = load_yaml(BASE)
    data.update(players=players, seats=seats)
    data["rules"].update(rules)
    return tables.compile_tables(config_from_dict(data))


@pytest.fixture(scope="module")
def base() -> tuple[object, tables.Compiled]:
    cfg = load_config(BASE)
    return cfg, tables.compile_tables(cfg)


def final_lines(lines: list[str]) -> dict[int, tuple[int, int, int]]:
    """Seat -> (score, rank, captured cards) as printed under "Final scores"."""
    out = {}
    for line in lines[lines.index("Final scores") + 1 :]:
        m = SCORE_LINE.match(line)
        if m:
            out[int(m[1])] = (int(m[2]), int(m[3]), int(m[4]))
    return out


def test_replay_is_the_dataset_game(base, tmp_path):
    cfg, comp = base
    seed = 11
    # Small chunks: the replayed games sit at other offsets of their chunk and block than 0.
    runner.run(cfg, config_path=BASE, out=tmp_path / "run", games=50, seed=seed, chunk_size=16)
    _, frame = results.open_results(tmp_path / "run")
    rows = frame.collect()
    for game in (0, 1, 17, 33, 49):
        got = rows.filter(pl.col("game") == game).sort("seat")
        rep = get_game("five_ravens").replay(comp, seed, game)
        assert rep.score.tolist() == got["score"].to_list()
        assert rep.rank.tolist() == got["rank"].to_list()
        printed = final_lines(rep.lines)
        assert printed == {
            s: (sc, rk, ca)
            for s, sc, rk, ca in zip(
                got["seat"], got["score"], got["rank"], got["captured"], strict=True
            )
        }
        logged = narrate.play_logged(comp, seed, game)
        assert int(logged.state.board[G_TURNS]) == got["turns"][0]
        first = int(logged.state.board[G_START])
        assert got.filter(pl.col("order") == 0)["seat"].to_list() == [first]
        assert f"Round 1 of 5 — Seat {first} is first player" in rep.lines
        assert not [line for line in rep.lines if line.startswith("WARNING")]


def test_narrate_is_the_plugin_and_runner_entry(base):
    cfg, comp = base
    lines = runner.narrate(cfg, game=5, seed=3)
    assert lines == PLUGIN.narrate(comp, 3, 5)
    assert lines[0] == "Game 5 of seed 3: 4 players (greedy, greedy, greedy, greedy)"
    assert PLUGIN.narrate(comp, 3, 5) == lines  # deterministic


SETUPS = [
    (2, ["random", "greedy"], {}),
    (3, ["greedy", "random", "random"], {}),
    (4, ["random", "greedy", "random", "greedy"], {}),
    (4, ["random", "random", "random", "random"], {}),
]


@pytest.mark.parametrize(("players", "seats", "rules"), SETUPS)
def test_every_event_is_told_and_the_shadow_matches_the_engine(players, seats, rules):
    """50 games per setup, 200 in all: no unknown event (tell raises), no disagreement between
    the events and the engine's final piles, relic deck and scores."""
    comp = compiled(players, seats, **rules)
    seen: set[int] = set()
    for game in range(50):
        logged = narrate.play_logged(comp, 7, game)
        seen |= {int(c) for c in logged.log[:, 0]}
        told = narrate.tell(comp, logged, 7, game)
        assert told.problems == []
        assert not [line for line in told.lines if "unknown" in line]
        assert sum(line.startswith("Round ") for line in told.lines) == 5
        assert final_lines(told.lines).keys() == set(range(players))
    assert seen <= set(EVENTS)
    assert len(seen) >= 18, sorted(EVENTS[c] for c in seen)  # the sample reaches most of the game


def test_all_event_codes_occur_and_are_told():
    """Small hands make the rare events happen (FR-7: a seat that drew no Raven, FR-5: done)."""
    seen: set[int] = set()
    for players, seats, rules in [*SETUPS, (2, ["random", "random"], {"hand_size": 1})]:
        comp = compiled(players, seats, **rules)
        for game in range(60):
            logged = narrate.play_logged(comp, 2, game)
            seen |= {int(c) for c in logged.log[:, 0]}
            assert narrate.tell(comp, logged, 2, game).problems == []
    assert sorted(EVENTS[c] for c in set(EVENTS) - seen) == []


def test_relic_thieves_and_switched_off_actions_are_told():
    ravens = load_yaml(BASE)[0]["rules"]["ravens"]
    ravens["six"] = {"action": False, "capture": True}
    comp = compiled(3, ["random", "random", "random"], thief_relics=["gem", "skull"], ravens=ravens)
    lines = []
    for game in range(60):
        told = narrate.tell(comp, narrate.play_logged(comp, 4, game), 4, game)
        assert told.problems == []
        lines += told.lines
    assert any("its action is switched off in this config" in line for line in lines)
    assert any(re.search(r"the (gem|skull) thief is captured", line) for line in lines)


def test_unknown_event_code_raises(base):
    _, comp = base
    logged = narrate.play_logged(comp, 1, 0)
    bad = np.vstack([logged.log, np.array([[99, 0, 0, 0, 0, 0, 0, 0]], np.int32)])
    with pytest.raises(ValueError, match="unknown event code 99"):
        narrate.tell(comp, logged._replace(log=bad), 1, 0)


def test_a_log_out_of_step_with_the_engine_is_flagged(base):
    _, comp = base
    logged = narrate.play_logged(comp, 1, 0)
    draws = np.flatnonzero(logged.log[:, 0] == E_DRAW)
    cut = np.delete(logged.log, draws[5], axis=0)  # one card never reaches the hand
    told = narrate.tell(comp, logged._replace(log=cut), 1, 0)
    assert told.problems
    assert get_game("five_ravens").replay(comp, 1, 0).lines == PLUGIN.narrate(comp, 1, 0)


def test_a_full_log_is_replayed_with_more_room(base, monkeypatch):
    _, comp = base
    lines = PLUGIN.narrate(comp, 1, 2)
    monkeypatch.setattr(narrate, "LOG_CAP", 8)
    assert PLUGIN.narrate(comp, 1, 2) == lines


def test_two_players_name_the_relics_removed_unseen():
    comp = compiled(2, ["greedy", "greedy"])
    head = PLUGIN.narrate(comp, 1, 0)[0]
    assert head.startswith(
        "Game 0 of seed 1: 2 players (greedy, greedy); 8 relics removed unseen: "
    )


def test_cli_replay():
    cli = CliRunner()
    result = cli.invoke(app, ["replay", str(BASE), "--game", "3"])
    assert result.exit_code == 0, result.output
    out = result.stdout.splitlines()
    assert out[0] == "Game 3 of seed 1: 4 players (greedy, greedy, greedy, greedy)"
    rounds = [line.split(" — ")[0] for line in out if line.startswith("Round ")]
    assert rounds == [f"Round {r} of 5" for r in range(1, 6)]
    assert "Final scores" in out
    assert len(final_lines(out)) == 4
    assert not [line for line in out if line.startswith("WARNING")]


def test_cli_replay_rejects_a_negative_game():
    result = CliRunner().invoke(app, ["replay", str(BASE), "--game", "-1"])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert "--game must be >= 0, got -1" in result.stderr


def test_a_logged_shuffle_arrangement_is_used():
    """If engine.py logs where a 6's shuffle put the relics (args 3..6 = slots 0..3, proposed),
    the narration reads them and tells the same game."""
    comp = compiled(4, ["random"] * 4)
    found = 0
    for game in range(40):
        logged = narrate.play_logged(comp, 7, game)
        rows = np.flatnonzero(logged.log[:, 0] == E_SHUFFLE_CENTRE)
        if not len(rows):
            continue
        n = narrate._Narrator(comp, logged, 7, game)
        n.run()
        notes = [
            item
            for line in n.out
            if isinstance(line, narrate_words.Line)
            for _, _, items in line.clauses
            for item in items
            if isinstance(item, narrate_words.ShuffleNote)
        ]
        log = logged.log.copy()
        for row, note in zip(rows, notes, strict=True):
            if len(note.place) < len(note.slots):
                continue  # shuffled again before anything named a slot
            for slot, card in note.place.items():
                log[row, 3 + slot] = card
        told = narrate.tell(comp, logged._replace(log=log), 7, game)
        assert told.problems == []
        assert told.lines == narrate.tell(comp, logged, 7, game).lines
        found += 1
    assert found >= 3
