"""Corvids game state (balance/games/corvids/state.py): the arrays a game is held in, sized from
the config, and the items a card shows and scores as (CV-2, CV-3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from balance.config import load_config
from balance.games.corvids import physics, state, tables

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def tb():
    return tables.compile_tables(load_config(ROOT / "configs" / "corvids" / "base.yaml")).tb


def test_the_state_holds_every_card_and_feather_of_the_config(tb):
    st = state.alloc_replay_state(tb, 16)
    assert st.pile.cards.shape == (40, physics.N_CD) and st.item.shape == (40, 2)
    assert st.pile.feathers.shape == (15, physics.N_FT)
    assert st.pile.ov.shape == (55, 55) and st.pile.lst.shape == (2, 40)
    assert st.pl.shape == (tables.MAXP, state.N_PL) and st.log.shape == (16, 8)
    assert (st.item == tables.BLANK).all() and st.board[state.G_LOG_CAP] == 16
    # a replay keeps the pile after set-up and after each of at most 55 turns (ENGINE-4)
    assert st.snap.shape == (57, 55, state.N_SN)
    assert state.alloc_state(tb, 0).snap.shape[0] == 0


def test_a_card_shows_its_up_side_and_scores_as_it_was_taken(tb):
    """CV-3: a double-sided card counts as the side up when taken; a single-sided one (back
    BLANK) as its item either way."""
    st = state.alloc_state(tb, 0)
    st.item[0] = (tables.KEY, tables.NUT)
    st.item[1] = (tables.COIN, tables.BLANK)
    st.pile.cst[0, physics.CS_FACE] = 0
    st.pile.cst[1, physics.CS_FACE] = 0
    assert state.up_item(st, 0) == tables.NUT and state.up_item(st, 1) == tables.BLANK
    st.cc[0, state.CC_TAKEN_FACE] = 1
    assert state.counts_as(st, 0) == tables.KEY
    st.cc[0, state.CC_TAKEN_FACE] = 0
    assert state.counts_as(st, 0) == tables.NUT
    assert state.counts_as(st, 1) == tables.COIN  # face down, still a coin (worth 3: CV-3)


def test_places_count_the_pile_the_seats_and_the_removed(tb):
    st = state.alloc_state(tb, 0)
    st.board[state.G_N] = 4
    st.pile.cst[:30, physics.CS_ON] = 1
    st.cc[:, state.CC_OWNER] = state.OWN_PILE
    st.cc[30:38, state.CC_OWNER] = 2
    st.cc[38:, state.CC_OWNER] = state.OWN_REMOVED
    st.pile.fst[:10, physics.FS_ON] = 1
    st.pl[1, state.PL_FEATHERS] = 3
    st.board[state.G_F_REMOVED] = 2
    assert state.places(st) == (30, 8, 2, 10, 3, 2)
    assert state.pile_cards(st) == 30
