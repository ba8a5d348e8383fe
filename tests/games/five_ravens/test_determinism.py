"""Row i of the batch kernel's chunk is the single-game kernel's game first_game + i, and its
turns, opening order, captured counts and telemetry agree with that game's event log.

What holds for every game (same games whatever the chunking or thread count, same seed same
games, play's input checks, plain-Python kernels, simulate's dataset) is in
tests/games/test_contract.py."""

from __future__ import annotations

import numpy as np
import pytest

from balance.config import load_config
from balance.games.five_ravens import engine
from balance.games.five_ravens.state import (
    E_ACTION,
    E_CAPT3,
    E_CAPTURE5,
    E_CAPTURED,
    E_DRAW,
    E_LOCK,
    E_ROUND,
    E_STEAL,
    E_THIEF,
)
from balance.games.five_ravens.tables import compile_tables

from .helpers import CONFIGS, log, pile_cards, play_one


@pytest.mark.parametrize(
    "name", ["random_vs_greedy.yaml", "two_players.yaml", "three_players.yaml"]
)
def test_the_batch_kernel_plays_the_single_game_kernels_games(name):
    """Row i of ``engine.play`` is ``play_game`` of game first_game + i: same scores and ranks,
    and the turns, opening order, captured counts and telemetry counts agree with its event log."""
    cfg = load_config(CONFIGS / name)
    c = compile_tables(cfg)
    P = cfg.players
    chunk = engine.play(c, 5, 100, 60)
    col = {name: j for j, name in enumerate(c.columns)}

    def type_name(x):
        return c.card_type_name(x if x < 9 else 9 + int(c.k.cards[0, x - 9]))

    for i in range(60):
        st_, score, rank = play_one(c, 5, 100 + i)
        assert chunk.score[i].tolist() == score and chunk.rank[i].tolist() == rank
        tele = np.zeros((P, len(col)), np.int64)
        turns = 0
        for code, *a in log(st_):
            counted = []
            if code == E_DRAW:
                counted = [("drawn", a[1])]
            elif code == E_ACTION and not a[2]:
                counted = [("played", a[1])]
            elif code == E_THIEF:
                counted = [("thief", a[1])]
            elif code == E_STEAL:
                counted = [("stolen", a[2])] + [("captured", a[2])] * (a[4] > 0)
            elif code in (E_CAPTURED, E_CAPTURE5):
                counted = [("captured", a[1])]
            for event, card in counted:
                tele[a[0], col[f"{event}__{type_name(card)}"]] += 1
            turns += code in (E_CAPT3, E_LOCK, E_THIEF) or (code == E_ACTION and not a[2])
        np.testing.assert_array_equal(chunk.telemetry[i], np.minimum(tele, 255))
        assert chunk.turns[i] == turns
        captured = [len(pile_cards(st_, p, "captured")) for p in range(P)]
        assert chunk.extra["captured"][i].tolist() == captured
        _, _, first = next(e for e in log(st_) if e[0] == E_ROUND)  # round 0's first player
        assert chunk.order[i].tolist() == [(p - first) % P for p in range(P)]
