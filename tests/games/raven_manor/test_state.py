"""Raven Manor's state layout (state.py): the names every game's state gives the same things
(``BLOCK_GAMES``, ``State`` with ``pl`` and ``board``, ``Work`` and ``alloc_work``,
``END_REASONS``, ``EXTRA_COLUMNS``; balance/games/_kit.py) and the rows they describe."""

from __future__ import annotations

import numpy as np

from balance import games
from balance.games.raven_manor import engine, state, tables

from .helpers import compile_for


def test_the_board_holds_the_scalars_then_the_pieces():
    """G_* scalars first (the reset ones before the log's), then the B_* pieces, N_BOARD wide."""
    scalars = sorted(v for k, v in vars(state).items() if k.startswith("G_"))
    pieces = sorted(v for k, v in vars(state).items() if k.startswith("B_"))
    assert scalars == list(range(len(scalars)))
    assert state.N_G_RESET == state.G_LOG_CAP < state.B_DISC == len(scalars) == pieces[0]
    assert state.B_TMP + state.N_TMP == state.N_BOARD
    assert state.B_CAND + 4 * state.MAX_CAND == state.B_TMP


def test_alloc_state_and_alloc_work_are_int64_rows_of_the_layout():
    c = compile_for(5)
    st = state.alloc_state(c.tb, 16)
    assert st._fields == ("pl", "board", "deck", "kn", "rng", "log")
    assert st.kn.shape == (tables.MAXP, tables.MAXP, state.KN_BEL + state.N_BEL)
    assert st.pl.shape == (tables.MAXP, state.N_PL) and st.board.shape == (state.N_BOARD,)
    assert st.pl.dtype == st.board.dtype == st.kn.dtype == np.int64
    assert st.log.shape == (16, 8) and st.log.dtype == np.int32
    work = state.alloc_work(c.tb)
    assert isinstance(work, state.Work)
    assert work.stack.shape == (state.MAX_STACK, 5) and work.mask.shape == (tables.MAXP,)
    assert all(a.dtype == np.int64 for a in work)


def test_end_reasons_and_extra_columns_name_the_chunk():
    """Chunk.end_reason indexes END_REASONS (board[G_END] - 1 = END_* - 1); Chunk.extra's columns
    are EXTRA_COLUMNS; the plugin reads both from state.py."""
    codes = (state.END_FAMILY, state.END_RAVEN, state.END_HORSEMAN, state.END_CTHULHU)
    assert [state.END_REASONS[e - 1] for e in (*codes, state.END_CAP)] == [
        "family",
        "raven",
        "horseman",
        "cthulhu",
        "turn_cap",
    ]
    plugin = games.get("raven_manor")
    assert tuple(plugin.end_reasons) == state.END_REASONS
    assert "end_reasons" not in vars(type(plugin))
    chunk = engine.play(compile_for(5), 1, 0, 3)
    assert tuple(chunk.extra) == state.EXTRA_COLUMNS
    assert chunk.end_reason.min() >= 0 and chunk.end_reason.max() < len(state.END_REASONS)
    assert chunk.team is not None and chunk.role is not None
