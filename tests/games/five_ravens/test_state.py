"""Five Ravens state layout (state.py): the record's fields and views, the scratch of play_game,
the names the dialect gives them, and the largest config the fixed-size record holds."""

from __future__ import annotations

import numpy as np
import pytest

from balance.games.five_ravens import PLUGIN, schema, state
from balance.games.five_ravens.tables import N_RAVENS, P_N_RELICS, P_N_TYPES, compile_tables

from . import helpers


def test_the_state_record_holds_seat_rows_board_and_streams() -> None:
    c = compile_tables(helpers.config(3))
    st = state.new_state(c.tb)
    assert st.r.dtype.names == ("pile", "pl", "board", "rng", "fv")
    cap = N_RAVENS + int(c.tb.params[P_N_RELICS])
    assert st.pile.shape == (3, state.N_PILES, cap)
    n_types = int(c.tb.params[P_N_TYPES])
    assert st.pl.shape == (3, state.PL_TELE + 5 * (N_RAVENS + n_types) + n_types)
    assert st.pl.shape[1] <= state.N_PL and st.r.pl.shape == (4, state.N_PL)
    assert st.r.board.shape == (state.N_BOARD,) and st.board.shape[0] <= state.N_BOARD
    assert st.rng.shape == (4, 1)
    twin = state.clone_state(st)
    twin.pl[0, state.PL_GEMS] = 7
    assert st.pl[0, state.PL_GEMS] == 0  # a copy shares nothing


def test_work_is_the_scratch_of_play_game() -> None:
    c = compile_tables(helpers.config(2))
    work = state.alloc_work(c.tb)
    assert isinstance(work, state.Work) and work._fields == (
        "moves",
        "order",
        "score",
        "rank",
        "sb",
        "cursed",
        "tr",
    )
    cap = N_RAVENS + int(c.tb.params[P_N_RELICS])
    assert work.moves.shape == (2 * cap + 2, 2)
    assert work.order.shape == work.score.shape == work.rank.shape == (2,)
    assert work.sb.shape == (state.N_SB,) and work.cursed.shape == (int(c.tb.params[P_N_TYPES]),)
    assert work.tr.shape == (state.trace_cap(c.tb), 2, len(state.TRACE_MEASURES))
    assert all(a.dtype == np.int32 for a in work)


def test_end_reasons_and_extra_columns_are_the_states() -> None:
    assert state.END_REASONS == ("clocks",) and state.END_CLOCKS == 0
    assert PLUGIN.end_reasons == state.END_REASONS
    assert state.EXTRA_COLUMNS == ("captured",) and state.X_CAPTURED == 0
    chunk = PLUGIN.play(PLUGIN.compile(helpers.config(2)), 1, 0, 30)
    assert list(chunk.extra) == ["captured"] and chunk.extra["captured"].dtype == np.int32
    assert not chunk.end_reason.any() and chunk.team is None and chunk.role is None


@pytest.mark.parametrize("seats", [["greedy"] * 4, ["random"] * 4])
def test_the_largest_config_the_state_holds_plays(seats: list[str]) -> None:
    """48 relic types and 200 relics (schema's limits) fill the kernels' fixed-size arrays
    (tables.MAX_TYPES, MAX_CAP, CARDS_W; state.N_PL): games play and every relic counts."""
    extra = {f"x{i}": {"kind": "hollow", "count": 5 if i < 34 else 2} for i in range(38)}
    cfg = helpers.config(players=4, seats=seats, rules={"relics": extra, "thief_relics": ["x0"]})
    assert len(cfg.rules.relics) == schema.MAX_RELIC_TYPES == 48
    assert cfg.rules.total_relics() == schema.MAX_RELICS
    compiled = PLUGIN.compile(cfg)
    chunk = PLUGIN.play(compiled, 3, 0, 40)
    assert chunk.telemetry.shape == (40, 4, len(compiled.columns))
    assert (chunk.turns > 0).all()
    stolen = [j for j, name in enumerate(compiled.columns) if name.startswith("stolen__")]
    assert chunk.telemetry[:, :, stolen].sum() > 0
