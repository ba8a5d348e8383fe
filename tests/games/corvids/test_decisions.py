"""Corvids as decision points (issue 28; docs/rules/corvids.md, Decisions): the rulebook's
choices through ``engine.advance``/``legal``/``apply`` and ``policies.choose``, the Python-driven
game against the batch kernel's row, ``choose`` always legal, and resuming a copied state."""

from __future__ import annotations

import numpy as np
import pytest

from balance.games import _kit as kit
from balance.games.corvids import engine, narrate, policies, schema, state, tables
from balance.games.corvids.state import (
    C_NO,
    D_ACORN,
    D_AIM,
    D_EARRING,
    D_FEATHER,
    D_PECK,
    D_PICK,
    D_STEAL,
    D_STRING,
    D_TICKET,
    G_ACTIVE,
    G_CARD,
    G_KIND,
    G_NUT_STOP,
    G_NUT_TOOK,
    G_PHASE,
    G_STOP,
    PL_STEALS,
)
from balance.games.corvids.tables import ACORN, EARRING, KEY, NUT, STRING, TICKET

from .helpers import (
    CONFIGS,
    TURN,
    Card,
    Feather,
    Held,
    build,
    check_places,
    compiled,
    steady,
)

PLAIN = {
    0: Card(0.0, 0.0, 10.0, KEY, NUT),
    1: Card(40.0, 0.0, 11.0, NUT, KEY),
    2: Card(-40.0, 0.0, 12.0, KEY, NUT),
}


def at(s, phase: int, p: int = 0, stop: int = state.PH_END_TURN) -> tuple[int, int]:
    """Put the scene's continuation at ``phase`` of seat ``p``'s turn, with a wall at ``stop``,
    and advance: the pending (actor, kind)."""
    b = s.st.board
    b[G_ACTIVE] = p
    b[G_PHASE] = phase
    b[G_KIND] = -1
    b[state.G_ACTOR] = -1
    b[G_STOP] = stop
    engine.advance(s.tb, s.st, s.work)
    return tuple(int(v) for v in state.pending(s.st))


def options(s) -> list[int]:
    opts = np.zeros(state.MAX_OPTIONS, np.int64)
    n = engine.legal(s.tb, s.st, s.work, opts)
    return [int(v) for v in opts[:n]]


def step(s, code: int) -> tuple[int, int]:
    engine.apply(s.tb, s.st, s.work, np.int64(code))
    engine.advance(s.tb, s.st, s.work)
    return tuple(int(v) for v in state.pending(s.st))


def test_bounds_agree_with_the_schema():
    """MAX_OPTIONS bounds every point of every config the schema accepts: a card choice lists at
    most the deck and "no", a feather choice the feathers and "stop"."""
    assert state.MAX_CARDS == schema.MAX_CARDS and state.MAX_FEATHERS == schema.MAX_FEATHERS
    assert state.MAX_OPTIONS >= max(schema.MAX_CARDS, schema.MAX_FEATHERS) + 1
    assert state.MAX_OPTIONS >= state.N_AIMS and C_NO >= schema.MAX_CARDS
    assert len(state.DECISIONS) == 10 and state.DECISIONS[D_STRING] == "string"


def test_cv5_engine1_the_pick_offers_the_cards_with_no_card_on_top():
    """CV-5 (amended), ENGINE-1: card 1 lies on card 0, a feather lies on card 1: the pick offers
    card 1 and every card under no card (the nest covers' upper cards), never card 0; the peck
    offers every visible card, then the engine's candidate aims (CV-9)."""
    cards = {0: Card(0.0, 0.0, 10.0, KEY, NUT), 1: Card(30.0, 0.0, 11.0, NUT, KEY)}
    s = build(steady(), cards, {0: Feather(30.0, 0.0, 12.0)})
    uppers = {b for _, b in s.covers.values()}
    assert at(s, state.PH_PICK, stop=state.PH_ABILITY) == (0, D_PICK)
    assert options(s) == sorted({1} | uppers)
    assert narrate.option_words(s.c, s.st, 1) == "pick #1 (a nut up)"
    assert at(s, state.PH_PECK) == (0, D_PECK)
    on = [k for k in range(s.nc) if s.on(k)]
    assert options(s) == on  # every card shows some part here
    assert step(s, 1) == (0, D_AIM)
    assert options(s) == list(range(state.AIM_NAMED))  # no named aim: a policy's seat
    assert narrate.option_words(s.c, s.st, state.AIM_CENTRE) == "peck #1 at (30, 0): its centre"


def test_cv9_a_scripted_seat_names_its_aim():
    """CV-9: "the pecking seat names a visible card and where it aims": a seat that named a point
    with its card (a scripted seat) has that point as one more candidate aim, and takes it."""
    s = build(steady(), PLAIN, scripts={0: [1, 40.0, 30.0]})
    assert at(s, state.PH_PECK) == (0, D_PECK)
    assert policies.choose(s.tb, s.st, s.work) == 1
    assert step(s, 1) == (0, D_AIM)
    assert options(s) == list(range(state.N_AIMS))
    assert policies.choose(s.tb, s.st, s.work) == state.AIM_NAMED
    assert (
        narrate.option_words(s.c, s.st, state.AIM_NAMED) == "peck #1 at (40, 30): the point named"
    )


def test_cv4_engine5_tickets_one_flip_at_a_time():
    """CV-4, ENGINE-5: a face-down ticket collected before this turn may be flipped (one point per
    ticket, or stop); one collected this turn waits; a ticket flipped adds a steal."""
    held = {0: {20: Held(TICKET, face=0), 21: Held(TICKET, face=0, turn=TURN), 22: Held(TICKET)}}
    s = build(steady(), PLAIN, held=held)
    assert at(s, state.PH_TURN) == (0, D_TICKET)
    assert options(s) == [20, C_NO]
    assert narrate.option_words(s.c, s.st, 20) == "flip ticket #20 face up for one more steal"
    assert step(s, 20) == (0, D_PECK)  # no usable ticket left: the peck
    assert s.st.pl[0, PL_STEALS] == 2 and s.st.cc[20, state.CC_USED] == 1
    s.check()


def test_cv11_cv4_a_steal_then_the_victims_string():
    """CV-11, ENGINE-6: seat 0 (2 feathers) may steal any card of seat 1 (nest open) or nothing;
    CV-4: seat 1, holding a face-down string, then decides whether to flip it (its first one) to
    keep the card; the thief has paid either way."""
    held = {1: {10: Held(KEY, NUT), 11: Held(STRING, face=0), 12: Held(STRING, face=0)}}
    s = build(steady(), PLAIN, held=held, seat_feathers={0: 2}, open_nests=(1,))
    s.st.pl[0, PL_STEALS] = 1  # the turn's one steal (the turn's start gives it)
    assert at(s, state.PH_STEALS) == (0, D_STEAL)
    assert options(s) == [10, 11, 12, C_NO]
    assert narrate.option_words(s.c, s.st, 10) == "steal #10 (a key) from seat 1"
    assert step(s, 10) == (1, D_STRING)
    assert options(s) == [11, C_NO]
    assert s.st.pl[0, state.PL_FEATHERS] == 0  # paid
    assert step(s, 11) == (-1, -1)  # no steal left: the turn's end (the wall)
    assert s.owner(10) == 1 and s.st.cc[11, state.CC_USED] == 1
    s.check()


def test_cv4_the_nut_takes_feathers_one_point_each():
    """CV-4: a nut takes up to two feathers from the pile: two points, each offering the pile's
    feathers and "stop"."""
    feathers = {0: Feather(0.0, 0.0, 13.0), 1: Feather(40.0, 0.0, 13.0), 2: Feather(-40.0, 0, 13.0)}
    s = build(steady(), PLAIN, feathers, held={0: {10: Held(NUT, KEY)}})
    b = s.st.board
    b[G_CARD] = 10
    b[G_NUT_TOOK] = 0
    b[G_NUT_STOP] = 0
    assert at(s, state.PH_ABILITY, stop=state.PH_STEALS) == (0, D_FEATHER)
    on = [f for f in range(s.pile.feathers.shape[0]) if s.feather_on(f)]
    assert options(s) == [*on, C_NO]
    assert step(s, 1) == (0, D_FEATHER)
    assert options(s) == [*(f for f in on if f != 1), C_NO]
    assert step(s, 0) == (-1, -1)  # two taken: the steals (the wall)
    assert s.feathers(0) == 2 and s.events(state.E_NUT)[0][1:3] == (0, 2)
    s.check()


def test_cv4_engine3_acorn_and_earring_may_be_declined():
    """CV-4, ENGINE-3: an acorn offers a peck at any visible card or "no"; an earring offers every
    completely uncovered earring of the pile or "no"."""
    s = build(steady(), PLAIN, held={0: {10: Held(ACORN, KEY)}})
    s.st.board[G_CARD] = 10
    assert at(s, state.PH_ABILITY, stop=state.PH_STEALS) == (0, D_ACORN)
    assert options(s) == [*(k for k in range(s.nc) if s.on(k)), C_NO]
    assert step(s, C_NO) == (-1, -1)
    cards = {
        **PLAIN,
        3: Card(0.0, 100.0, 14.0, EARRING, KEY),
        4: Card(0.0, -100, 5.0, KEY, EARRING, 0),
    }
    s = build(steady(), cards, held={0: {10: Held(EARRING, KEY)}})
    s.st.board[G_CARD] = 10
    assert at(s, state.PH_ABILITY, stop=state.PH_STEALS) == (0, D_EARRING)
    assert options(s) == [3, 4, C_NO]
    assert narrate.option_words(s.c, s.st, C_NO) == "take no second earring"


# ---------------------------------------------------------------- whole games


def play_python(c, seed: int, game: int, log_cap: int = 0, check: bool = False):
    """One game one call at a time (start, advance, choose, apply); ``check``: every code
    ``choose`` returns is one of ``legal``'s."""
    tb = c.tb
    st = state.alloc_state(tb, log_cap)
    work = state.alloc_work(tb)
    opts = np.zeros(state.MAX_OPTIONS, np.int64)
    engine.start(tb, st, np.int64(seed), np.int64(game), work)
    points = 0
    while engine.advance(tb, st, work) >= 0:
        code = policies.choose(tb, st, work)
        if check:
            n = engine.legal(tb, st, work, opts)
            assert n >= 1 and code in opts[:n], (state.pending(st), code, opts[:n])
        engine.apply(tb, st, work, code)
        points += 1
    return st, work, points


def row_of(c, st, work) -> kit.Outputs:
    out = kit.alloc_outputs(
        1, c.players, tables.N_TELE, state.BLOCK_GAMES, len(state.EXTRA_COLUMNS), role=True
    )
    engine.record(
        c.tb, st, work, np.int64(0), out.score, out.rank, out.turns, out.end, out.order,
        out.team, out.role, out.extra, out.tele, out.clipped[0],
    )  # fmt: skip
    return out


KINDS = {
    "greedy": lambda: compiled(4, seats="greedy"),
    "random": lambda: compiled(4, seats="random"),
    "script": lambda: tables.with_script(compiled(3, seats="greedy"), {1: [0.0, 0.0, 0.0, 1, 1]}),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_python_games_give_the_batch_kernels_rows(kind):
    """A game played through Python gives the very row the batch kernel writes, for every policy
    kind (a scripted seat's nonsense values are taken as the first legal ones, as ever)."""
    c = KINDS[kind]()
    seed = 7
    chunk = engine.play(c, seed, 0, 6)
    for g in range(6):
        st, work, _ = play_python(c, seed, g, check=True)
        out = row_of(c, st, work)
        assert (out.score[0] == chunk.score[g]).all() and (out.rank[0] == chunk.rank[g]).all()
        assert out.turns[0] == chunk.turns[g] and out.end[0] == chunk.end_reason[g]
        assert (out.order[0] == chunk.order[g]).all() and (out.role[0] == chunk.role[g]).all()
        assert (out.tele[0] == chunk.telemetry[g]).all()
        for k, name in enumerate(state.EXTRA_COLUMNS):
            assert (out.extra[0, :, k] == chunk.extra[name][g]).all()


@pytest.mark.parametrize("path", ["base", "random_vs_greedy", "eight_players", "small_mat"])
def test_choose_is_always_legal(path):
    """Every code the configured policies choose is among the legal options, at every point of
    whole games of shipped configs (greedy and random seats)."""
    from balance.config import load_config
    from balance import games

    c = games.get("corvids").compile(load_config(CONFIGS / f"{path}.yaml"))
    points = 0
    for g in range(8):
        points += play_python(c, 3, g, check=True)[2]
    assert points > 200


def test_resume_a_copied_state_plays_the_same_game():
    """copy_state at a random decision: both copies, played on with the configured policies, end
    with identical outcomes and logs."""
    c = compiled(4, seats=["greedy", "random", "greedy", "random"])
    tb = c.tb
    rng = np.random.default_rng(3)
    for g in range(6):
        st = state.alloc_state(tb, 4096)
        work = state.alloc_work(tb)
        engine.start(tb, st, np.int64(5), np.int64(g), work)
        stop = int(rng.integers(1, 60))
        k = 0
        while engine.advance(tb, st, work) >= 0 and k < stop:
            engine.apply(tb, st, work, policies.choose(tb, st, work))
            k += 1
        twin = state.alloc_state(tb, 4096)
        state.copy_state(st, twin)
        ends = []
        for s in (st, twin):
            while engine.advance(tb, s, work) >= 0:
                engine.apply(tb, s, work, policies.choose(tb, s, work))
            ends.append((row_of(c, s, work), state.log_rows(s)))
        (a, la), (b, lb) = ends
        assert (a.score == b.score).all() and (a.tele == b.tele).all() and a.turns == b.turns
        assert np.array_equal(la, lb)
        check_places(c, twin)


def test_event_lines_tell_a_game_in_progress():
    """narrate.event_lines: the lines of a partial log (no final checks)."""
    c = compiled(2, seats="greedy")
    st = state.alloc_state(c.tb, 4096)
    work = state.alloc_work(c.tb)
    engine.start(c.tb, st, np.int64(1), np.int64(0), work)
    for _ in range(5):
        engine.advance(c.tb, st, work)
        engine.apply(c.tb, st, work, policies.choose(c.tb, st, work))
    lines = narrate.event_lines(c, state.log_rows(st), 1, 0)
    assert lines[0].startswith("Corvids, game 0 of seed 1") and any("pecks #" in x for x in lines)
