"""Invariants of whole Raven Manor games over seeds, shipped configs, player counts and policies
(hypothesis: a couple of hundred games), checked after every turn of a game driven turn by turn from
Python exactly as ``engine.play_game`` drives it (``play_stepwise``):

- every card is in exactly one place and none is lost or made (``state.card_counts`` per card
  type is the config's deck, ``state.cards_total`` its size; every count is >= 0 and every
  ``*_N`` is the sum of its place);
- every seat is on one side (``PL_SIDE`` in 0..3: the side of its possessor while possessed, else
  its character's own side), the ring is a permutation (``B_RING`` and ``PL_POS`` agree, RM-12);
  a possessed player is not immune and holds a Feather (RM-6, RM-22, ENGINE-9);
- a dead player is revealed to everyone and kills no one (RM-5, RM-14): a seat dead at the start
  of a turn gains no kill in it unless that turn's log shows its own death ability (E_ABILITY);
- the active player ends a turn it played with exactly the hand size (RM-4), unless the deck and
  the discard pile hold nothing it can draw or the excess are the Feathers a possessed player
  must keep (ENGINE-14); skipped turns (a stun, the Forest: ENGINE-1) and a turn that ends the
  game (no draw after the end) are exempt;
- the turn's action (E_ACTION in the log) was one of ``engine.enum_actions``' candidates at the
  start of the turn, and is legal by the rules read here independently (the card was in hand or in
  play and not barricaded, kills only by the living at living targets, adjacency, no exchange with
  a stunned player, a pass only when nothing else is legal: RM-4, RM-12, RM-14, RM-17, RM-23,
  RM-27, RM-29, ENGINE-11);
- no scripted value was bad (``G_BAD_SCRIPT`` 0) and every game ends (a side wins or the turn cap
  of RM-10) within the cap; the batch kernel plays the same game (turns, end, outcome, telemetry).

Reactions, picks and yes/no answers inside a turn are not checked one by one here: the engine asks
the policies only among the options it built (``fitting``, the pick lists), and the conservation
count after the turn catches a reaction card played from nowhere.

``test_determinism`` covers what tests/games/test_contract.py does not: configs other than
base.yaml and the stepwise driver itself (the same seed and game give the same log).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hs

from balance import games
from balance.config import config_from_dict
from balance.config.loading import load_yaml
from balance.games.raven_manor import engine, state
from balance.games.raven_manor.policies import K_BREAK, K_CYCLE, K_EAGLE, K_PASS, K_PLAY, K_USE
from balance.games.raven_manor.state import (
    B_BARR,
    B_CAND,
    B_DISC,
    B_INPLAY,
    B_REMOVED,
    B_RING,
    E_ABILITY,
    E_ACTION,
    E_SKIP,
    END_CAP,
    G_BAD_SCRIPT,
    G_DECK_N,
    G_DISC_N,
    G_END,
    G_FIRST,
    G_LOG_N,
    G_N,
    G_NEXT,
    G_TURN,
    KN_CHAR,
    PL_ALIVE,
    PL_BACKPACKS,
    PL_BP,
    PL_BP_N,
    PL_CHAR,
    PL_DEALT,
    PL_DEATH_TURN,
    PL_HAND,
    PL_HAND_N,
    PL_KILLS,
    PL_POS,
    PL_POSS_TURN,
    PL_POSSESSED,
    PL_REVEALED,
    PL_SIDE,
    PL_SKIP,
    PL_STUN_CARD,
    PL_STUNNED,
    PL_STUNS,
    PL_TELE,
    State,
)
from balance.games.raven_manor.tables import (
    AXE,
    BARRICADE,
    BOTTLE,
    BROKEN_BOTTLE,
    DINING_ROOM,
    EAGLE,
    EXCHANGE,
    FEATHER,
    FOREST,
    HARPOON,
    HAYMAKER,
    KNIFE,
    LOC0,
    LOC1,
    MOUNTAINS,
    N_TELE,
    NC,
    P_COUNT,
    P_DECK_N,
    P_DISCARD_DRAW,
    P_HAND,
    P_PLAYERS,
    P_TURN_CAP,
    REACT0,
    REACT1,
    RIFLE,
    ROOM0,
    ROOM1,
    THE_INN,
    Compiled,
)

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = ROOT / "configs" / "raven_manor"
SHIPPED = (
    "base.yaml",
    "all_cards.yaml",
    "gore.yaml",
    "dont_trust_anyone.yaml",
    "two_players.yaml",
    *(f"players_{n}.yaml" for n in range(3, 11)),
    "twelve_players.yaml",
    "random.yaml",
    "random_vs_basic.yaml",
)
SEAT_KINDS = ("basic", "random", "basic_family", "basic_evil")
LOG_CAP = 4096  # rows for one turn's events (the driver empties the log before every turn)

KILLS = (AXE, BROKEN_BOTTLE, KNIFE, MOUNTAINS, RIFLE, HARPOON, FOREST)  # RM-14: not by the dead
ADJACENT = (AXE, BROKEN_BOTTLE, KNIFE, MOUNTAINS, HAYMAKER, BOTTLE)  # RM-12, RM-23


# ---------------------------------------------------------------- configs


@functools.cache
def compiled(name: str, players: int | None = None, seats: tuple[str, ...] | None = None):
    """configs/raven_manor/``name``, with ``players`` and ``seats`` overridden when given."""
    data, _ = load_yaml(CONFIGS / name)
    data = copy.deepcopy(data)
    if players is not None:
        data["players"] = players
    if seats is not None:
        data["seats"] = list(seats)
    return games.get("raven_manor").compile(config_from_dict(data, f"test:{name}"))


# ---------------------------------------------------------------- the driver


def copy_of(st: State) -> State:
    return State(*(a.copy() for a in st))


def play_stepwise(
    c: Compiled,
    seed: int,
    game: int,
    on_turn: Callable[[State, int, State, np.ndarray, bool], None] | None = None,
    log_cap: int = LOG_CAP,
) -> State:
    """Game ``game`` of run ``seed`` as ``engine.play_game`` plays it, one ``engine.play_turn`` at
    a time (the turn count, the cap of RM-10, Rat Treachery's ``G_NEXT`` and the ring's next seat
    as there). After each turn ``on_turn(st, a, before, rows, ended)``: the state, the seat whose
    turn it was, a copy of the state before the turn, the turn's log rows and whether the turn
    itself ended the game (not the cap)."""
    tb = c.tb
    st = state.alloc_state(tb, log_cap)
    work = state.alloc_work(tb)
    stack, opts, pick, mask = work.stack, work.opts, work.pick, work.mask
    engine.setup(tb, st, seed, game, pick)
    if on_turn is not None:
        check_position(c, st)
    a = int(st.board[G_FIRST])
    cap = int(tb.params[P_TURN_CAP])
    engine.check_end(st)
    while st.board[G_END] == 0:
        st.board[G_LOG_N] = 0
        before = copy_of(st) if on_turn is not None else st
        engine.play_turn(tb, st, a, stack, opts, pick, mask)
        assert st.board[G_LOG_N] < log_cap, "the log of one turn overflowed"
        ended = st.board[G_END] != 0
        st.board[G_TURN] += 1
        if not ended and st.board[G_TURN] >= cap:
            st.board[G_END] = END_CAP
        if on_turn is not None:
            on_turn(st, a, before, state.log_rows(st), ended)
        if st.board[G_END] != 0:
            break
        nxt = int(st.board[G_NEXT])
        a = nxt if nxt >= 0 else int(state.left(st, a))
    return st


# ---------------------------------------------------------------- the checks


def check_position(c: Compiled, st: State) -> None:
    """What holds between any two turns (module docstring: cards, sides, the ring, possession,
    the dead)."""
    tb = c.tb
    n = int(st.board[G_N])
    assert n == int(tb.params[P_PLAYERS])
    # every card in one place, none lost or made
    counts = state.card_counts(st)
    np.testing.assert_array_equal(counts, tb.params[P_COUNT : P_COUNT + NC])
    assert int(state.cards_total(st)) == int(tb.params[P_DECK_N])
    assert 0 <= st.board[G_DECK_N] <= st.deck.shape[0]
    assert (
        (st.deck[: int(st.board[G_DECK_N])] >= 0) & (st.deck[: int(st.board[G_DECK_N])] < NC)
    ).all()
    for at in (B_DISC, B_INPLAY, B_BARR, B_REMOVED):
        assert (st.board[at : at + NC] >= 0).all()
    assert st.board[G_DISC_N] == st.board[B_DISC : B_DISC + NC].sum()
    inplay = st.board[B_INPLAY : B_INPLAY + NC]
    barr = st.board[B_BARR : B_BARR + NC]
    assert (barr <= inplay).all(), "a Barricade on a Room not in play (RM-17)"
    assert not barr[:ROOM0].any() and not barr[ROOM1:].any(), "Barricades lie on Rooms only"
    places = np.zeros(NC, bool)
    places[ROOM0:ROOM1] = places[LOC0:LOC1] = True
    assert not inplay[~places].any(), "only Rooms and Locations are in play"
    # the ring (RM-12)
    ring = st.board[B_RING : B_RING + n]
    assert sorted(ring.tolist()) == list(range(n))
    for p in range(n):
        assert ring[st.pl[p, PL_POS]] == p
    for p in range(n):
        hand = st.pl[p, PL_HAND : PL_HAND + NC]
        bp = st.pl[p, PL_BP : PL_BP + NC]
        assert (hand >= 0).all() and (bp >= 0).all()
        assert st.pl[p, PL_HAND_N] == hand.sum()
        assert st.pl[p, PL_BP_N] == bp.sum()
        assert st.pl[p, PL_BACKPACKS] >= 0 and (
            st.pl[p, PL_BP_N] == 0 or st.pl[p, PL_BACKPACKS] > 0
        )
        ch = int(st.pl[p, PL_CHAR])
        side = int(st.pl[p, PL_SIDE])
        poss = int(st.pl[p, PL_POSSESSED])
        assert side in (0, 1, 2, 3), f"seat {p} on side {side}"
        if poss >= 0:  # RM-6, RM-22: serving its possessor, holding the Feather
            assert side == poss, f"seat {p} possessed by {poss} but on side {side}"
            assert not state.immune(ch), f"seat {p} possessed though immune"
            assert st.pl[p, PL_HAND + FEATHER] > 0, f"seat {p} possessed without a Feather"
            assert st.pl[p, PL_POSS_TURN] >= 0
        else:
            assert side == state.own_side(ch), f"seat {p} unpossessed, not on its card's side"
        if st.pl[p, PL_STUN_CARD] >= 0:
            assert st.pl[p, PL_STUNNED] == 1, f"seat {p}: a stunning card but not stunned"
        assert st.pl[p, PL_STUNNED] in (0, 1)
        assert 0 <= st.pl[p, PL_DEALT] < 29 and 0 <= ch < 29
        if st.pl[p, PL_ALIVE]:
            assert st.pl[p, PL_DEATH_TURN] == -1
        else:  # RM-5: the dead reveal their character
            assert st.pl[p, PL_REVEALED] == 1, f"dead seat {p} not revealed"
            assert (st.kn[:n, p, KN_CHAR] == ch).all(), f"dead seat {p}'s card not known to all"
            assert 0 <= st.pl[p, PL_DEATH_TURN] <= st.board[G_TURN]
        assert st.kn[p, p, KN_CHAR] == ch, f"seat {p} does not know its own card"
        assert st.pl[p, PL_KILLS] >= 0 and st.pl[p, PL_STUNS] >= 0
        assert (st.pl[p, PL_TELE : PL_TELE + N_TELE] >= 0).all()
    assert st.board[G_BAD_SCRIPT] == 0


def candidates(c: Compiled, before: State, a: int) -> set[tuple[int, int, int, int]]:
    """``engine.enum_actions`` of ``a`` in (a copy of) ``before``."""
    st = copy_of(before)
    n = int(engine.enum_actions(c.tb, st, a))
    return {tuple(int(x) for x in st.board[B_CAND + 4 * i : B_CAND + 4 * i + 4]) for i in range(n)}


def check_legal(c: Compiled, st: State, a: int, action: tuple[int, int, int, int]) -> None:
    """The action ``a`` took in position ``st`` is legal by the rules (module docstring)."""
    kind, card, t, o = action
    n = int(st.board[G_N])
    living = bool(st.pl[a, PL_ALIVE])
    what = f"seat {a} {action}"
    if kind in (K_PLAY, K_BREAK):
        assert 0 <= card < NC and st.pl[a, PL_HAND + card] > 0, f"{what}: card not in hand"
        assert not REACT0 <= card < REACT1, f"{what}: a reaction as the action"
        assert card != FEATHER, f"{what}: a Feather is not played"
    if kind == K_USE:
        assert ROOM0 <= card < ROOM1 or LOC0 <= card < LOC1, f"{what}: not a place"
        free = st.board[B_INPLAY + card] - st.board[B_BARR + card]
        assert free > 0, f"{what}: not in play or barricaded (RM-17)"
    if kind in (K_PLAY, K_USE):
        if card in KILLS:
            assert living, f"{what}: a dead player kills (RM-14)"
            assert 0 <= t < n and t != a and st.pl[t, PL_ALIVE], f"{what}: kill of the dead"
        if card in ADJACENT:
            assert state.adjacent(st, a, t), f"{what}: target not adjacent (RM-12)"
        if card == FOREST:
            assert t == state.left(st, a), f"{what}: Forest kills the next player (RM-24)"
        if card in (EXCHANGE, THE_INN) or (card == DINING_ROOM and o == 0):
            assert st.pl[t, PL_STUNNED] == 0, f"{what}: exchange with a stunned player"
        if card == BARRICADE:  # RM-17: on a Room in play, not yet barricaded
            assert ROOM0 <= t < ROOM1 and st.board[B_INPLAY + t] > st.board[B_BARR + t], what
        elif t >= 0:
            assert t < n and t != a, f"{what}: target is not another seat"
    elif kind == K_CYCLE:
        assert state.free_cards(st, a) >= c.tb.params[P_DISCARD_DRAW], f"{what}: RM-4"
    elif kind == K_EAGLE:
        assert st.pl[a, PL_CHAR] == EAGLE and living and LOC0 <= o < LOC1, f"{what}: RM-27"
    elif kind == K_BREAK:
        assert card in (AXE, RIFLE) and st.board[B_BARR + t] > 0, f"{what}: RM-17"
    else:
        assert kind == K_PASS, f"{what}: unknown kind"


def hand_ok(c: Compiled, st: State, a: int) -> bool:
    """RM-4 (3), ENGINE-14: ``a``'s hand after its refill."""
    h = int(c.tb.params[P_HAND])
    k = int(st.pl[a, PL_HAND_N])
    if k == h:
        return True
    if k > h:  # only the Feathers a possessed player must keep (RM-6)
        return state.keeps_feathers(st, a) and st.pl[a, PL_HAND + FEATHER] == k
    # short: nothing left to draw but Feathers it discards or bluffs away (RM-6, RM-18)
    left = (
        np.bincount(st.deck[: int(st.board[G_DECK_N])], minlength=NC)
        + st.board[B_DISC : B_DISC + NC]
    )
    return int(left.sum() - left[FEATHER]) == 0  # (it may leave its Backpack's cards: RM-25)


class Checker:
    """``on_turn`` for ``play_stepwise``: every invariant of the module docstring."""

    def __init__(self, c: Compiled) -> None:
        self.c = c
        self.turns: list[int] = []
        self.ended = False

    def __call__(self, st: State, a: int, before: State, rows: np.ndarray, ended: bool) -> None:
        c = self.c
        n = int(st.board[G_N])
        self.turns.append(a)
        assert not self.ended, "a turn after the end"
        self.ended = bool(st.board[G_END])
        check_position(c, st)
        codes = rows[:, 0]
        skipped = bool(before.pl[a, PL_STUNNED] or before.pl[a, PL_SKIP])
        actions = [tuple(int(x) for x in r[2:6]) for r in rows if r[0] == E_ACTION]
        if skipped:  # ENGINE-1: no action, no exchange, no draw
            assert not actions and (codes == E_SKIP).sum() == 1
            if before.pl[a, PL_STUNNED]:  # the stun ends (a Forest skip waits for the next turn)
                assert st.pl[a, PL_STUNNED] == 0 and st.pl[a, PL_STUN_CARD] == -1
            else:
                assert st.pl[a, PL_SKIP] == 0
        else:
            assert [r[1] for r in rows if r[0] == E_ACTION] == [a]
            cands = candidates(c, before, a)
            assert actions[0] in cands, f"seat {a} took {actions[0]}, not a candidate"
            check_legal(c, before, a, actions[0])
            if actions[0][0] == K_PASS:
                assert len(cands) == 1, "a pass with another legal action (RM-29)"
            if not ended:
                assert hand_ok(c, st, a), (
                    f"seat {a} ends its turn with {int(st.pl[a, PL_HAND_N])} cards "
                    f"({st.pl[a, PL_HAND : PL_HAND + NC].nonzero()[0].tolist()}), deck "
                    f"{int(st.board[G_DECK_N])}, discard {int(st.board[G_DISC_N])}"
                )
        # RM-14: the dead kill only by their own death ability
        abilities = {int(r[1]) for r in rows if r[0] == E_ABILITY}
        for p in range(n):
            if not before.pl[p, PL_ALIVE] and st.pl[p, PL_KILLS] > before.pl[p, PL_KILLS]:
                assert p in abilities, f"dead seat {p} killed in turn {int(before.board[G_TURN])}"
        assert (st.pl[:n, PL_KILLS] >= before.pl[:n, PL_KILLS]).all()
        # the dead stay dead, but for Lady Whale's swap (RM-15)
        for p in range(n):
            if not before.pl[p, PL_ALIVE] and st.pl[p, PL_ALIVE]:
                assert state.E_WHALE in codes and any(
                    r[0] == state.E_WHALE and r[1] == p for r in rows
                ), f"dead seat {p} alive again"


def check_game(c: Compiled, seed: int, game: int) -> State:
    """One game played stepwise with every check."""
    checker = Checker(c)
    st = play_stepwise(c, seed, game, checker)
    cap = int(c.tb.params[P_TURN_CAP])
    assert st.board[G_END] != 0 and len(checker.turns) == st.board[G_TURN] <= cap
    if st.board[G_END] == END_CAP:
        assert st.board[G_TURN] == cap
    return st


# ---------------------------------------------------------------- the tests


@settings(max_examples=200, deadline=None)
@given(
    seed=hs.integers(0, 2**63 - 1),
    game=hs.integers(0, 10**6),
    name=hs.sampled_from(SHIPPED),
)
def test_every_turn_of_a_shipped_config_keeps_the_invariants(seed, game, name):
    check_game(compiled(name), seed, game)


@settings(max_examples=150, deadline=None)
@given(
    seed=hs.integers(0, 2**63 - 1),
    game=hs.integers(0, 10**6),
    seats=hs.lists(hs.sampled_from(SEAT_KINDS), min_size=2, max_size=12),
    cap=hs.sampled_from([300, 25]),
)
def test_every_turn_at_any_player_count_keeps_the_invariants(seed, game, seats, cap):
    """all_cards.yaml (every card, all 29 characters) at 2 to 12 players (RM-30), each seat's
    policy drawn, and a short turn cap so that capped games are checked too (RM-10)."""
    c = compiled_capped("all_cards.yaml", len(seats), tuple(seats), cap)
    check_game(c, seed, game)


@functools.cache
def compiled_capped(name: str, players: int, seats: tuple[str, ...], cap: int) -> Compiled:
    c = compiled(name, players, seats)
    params = c.tb.params.copy()
    params[P_TURN_CAP] = cap
    return Compiled(
        tb=c.tb._replace(params=params),
        seat_policies=c.seat_policies,
        columns=c.columns,
        players=c.players,
    )


DETERMINISM = ("all_cards.yaml", "gore.yaml", "two_players.yaml", "twelve_players.yaml")


def test_determinism():
    """The same seed and game give the same game: twice stepwise (the whole log), and game ``i``
    of a run is the same in chunks of 1, 7 and 64 games (configs beyond the contract test's
    base.yaml)."""
    for name in DETERMINISM:
        c = compiled(name)
        for game in (0, 5):
            logs = []
            for _ in range(2):
                rows: list[Any] = []
                play_stepwise(c, 3, game, lambda st, a, b, r, e, rows=rows: rows.append(r))
                logs.append(np.concatenate(rows))
            np.testing.assert_array_equal(logs[0], logs[1], err_msg=name)
        whole = arrays(engine.play(c, 11, 0, 64))
        for size in (1, 7):
            parts = [arrays(engine.play(c, 11, a, min(size, 64 - a))) for a in range(0, 64, size)]
            for k, v in whole.items():
                got = np.concatenate([p[k] for p in parts])
                np.testing.assert_array_equal(got, v, err_msg=f"{name} {k} chunks of {size}")
        again = arrays(engine.play(c, 11, 0, 64))
        for k, v in whole.items():
            np.testing.assert_array_equal(again[k], v, err_msg=f"{name} {k} again")


def arrays(chunk: Any) -> dict[str, np.ndarray]:
    out = {k: getattr(chunk, k) for k in ("score", "rank", "turns", "end_reason", "order")}
    out.update(telemetry=chunk.telemetry, team=chunk.team, role=chunk.role)
    out.update({f"extra_{k}": v for k, v in chunk.extra.items()})
    return out


BATCH_GAMES = (
    ("base.yaml", range(12)),
    ("all_cards.yaml", range(8)),
    ("random.yaml", range(8)),
    ("two_players.yaml", range(4)),
    ("twelve_players.yaml", range(4)),
)


def test_the_batch_kernel_plays_the_stepwise_games():
    """Row ``i`` of ``engine.play`` is game ``i`` played turn by turn (``play_stepwise``): turns,
    end, score and rank, side, character dealt, the extra columns and telemetry."""
    for name, gamelist in BATCH_GAMES:
        c = compiled(name)
        chunk = engine.play(c, 5, 0, max(gamelist) + 1)
        for game in gamelist:
            st = play_stepwise(c, 5, game)
            n = int(st.board[G_N])
            what = f"{name} game {game}"
            assert int(chunk.turns[game]) == int(st.board[G_TURN]), what
            assert int(chunk.end_reason[game]) == int(st.board[G_END]) - 1, what
            out = [tuple(int(x) for x in engine.outcome(st, p)) for p in range(n)]
            rows = list(zip(chunk.score[game].tolist(), chunk.rank[game].tolist(), strict=True))
            assert rows == out, what
            assert chunk.team[game].tolist() == st.pl[:n, PL_SIDE].tolist(), what
            assert chunk.role[game].tolist() == st.pl[:n, PL_DEALT].tolist(), what
            for col, field in zip(
                ("alive", "death_turn", "possessed_turn", "kills", "stuns"),
                (PL_ALIVE, PL_DEATH_TURN, PL_POSS_TURN, PL_KILLS, PL_STUNS),
                strict=True,
            ):
                assert chunk.extra[col][game].tolist() == st.pl[:n, field].tolist(), what
            tele = np.minimum(st.pl[:n, PL_TELE : PL_TELE + N_TELE], 255)
            np.testing.assert_array_equal(chunk.telemetry[game], tele, err_msg=what)
