"""Scenario helpers for The Raven Order engine tests: build a position by hand (buildings, gold,
workers, units with their runes, hands), call one rule of ``engine``, and read the state back, so
that a test reads like the rulebook (rulebooks/raven-order.txt, RULINGS.md RO-1..RO-10).

Seats in the hand-built positions use the ``POL_SCRIPT`` policy kind: their construction phase
ends at once and every other choice (attackers, blocks, kills, victims, razing) is the heuristic's
deterministic one, so a scenario's outcome is exact. Tests that need a particular choice fill the
war's arrays themselves (``fight``). A part of a turn runs through the engine's decision points
(``drive``: ``engine.run_until`` a phase, each pending decision answered by ``policies.choose``).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np

from balance.config import RunConfig, config_from_dict
from balance.config.loading import load_yaml
from balance.games.raven_order import engine, policies, state
from balance.games.raven_order import tables as state_tables
from balance.games.raven_order.state import (
    A_ATK,
    A_AWK,
    A_BLK,
    B_DECK,
    G_DECK_TOP,
    G_END,
    G_TURN,
    G_WINNER,
    PL_ACAD,
    PL_BRUNE,
    PL_BUILDS,
    PL_BUILT,
    PL_GOLD,
    PL_HAND,
    PL_HAND_N,
    PL_INPLAY,
    PL_NBLD,
    PL_NU,
    PL_WORKERS,
    U_DEAD,
    U_FRESH,
    U_NOATK,
    U_RUNE,
    U_TIRED,
    U_TYPE,
    State,
    Work,
    add_unit,
    alloc_state,
    alloc_work,
    recount,
)
from balance.games.raven_order.tables import (
    NB,
    NR,
    POL_SCRIPT,
    Compiled,
    compile_tables,
    with_seat_kinds,
)

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = ROOT / "configs" / "raven_order"
BASE = CONFIGS / "base.yaml"
TURN = 10  # the turn of a hand-built position (far from NEVER and from 0)


# ---------------------------------------------------------------- configs and tables


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def config(
    seats: list[str] | None = None,
    rules: dict[str, Any] | None = None,
    policies: dict[str, Any] | None = None,
    name: str = "base.yaml",
) -> RunConfig:
    """A shipped config with ``seats``, ``rules`` and ``policies`` overrides merged in."""
    data, _ = load_yaml(CONFIGS / name)
    data = copy.deepcopy(data)
    if seats is not None:
        data["seats"] = seats
    if rules:
        data["rules"] = _merge(data.get("rules", {}), rules)
    if policies:
        data["policies"] = _merge(data.get("policies", {}), policies)
    return config_from_dict(data, "test")


def compiled(
    seats: list[str] | None = None, rules: dict[str, Any] | None = None, **kw: Any
) -> Compiled:
    return compile_tables(config(seats, rules, **kw))


def scripted(c: Compiled) -> Compiled:
    """Both seats POL_SCRIPT: no construction of their own, heuristic choices elsewhere."""
    return with_seat_kinds(c, [POL_SCRIPT, POL_SCRIPT])


# ---------------------------------------------------------------- building a position


def work(c: Compiled) -> Work:
    """The kernels' scratch (state.alloc_work)."""
    return alloc_work(c.tb)


def blank(c: Compiled, turn: int = TURN, log_cap: int = 0, deck: list[int] = ()) -> State:
    """An empty position: no buildings, gold, workers, units or runes for either seat, one build
    allowed this turn, ``deck`` (rune ids, top first) as the rune deck."""
    st = alloc_state(c.tb, log_cap)
    st.pl[:] = 0
    st.units[:] = 0
    for p in range(2):
        st.pl[p, PL_BRUNE : PL_BRUNE + NB] = -1
        st.pl[p, PL_BUILDS] = 1
    st.board[G_TURN] = turn
    st.board[B_DECK:] = -1
    st.board[B_DECK : B_DECK + len(deck)] = deck
    st.board[G_DECK_TOP] = 0
    st.aux[A_BLK] = -1
    st.aux[A_AWK] = 0
    st.board[state.G_PKIND] = -1
    st.board[state.G_PACTOR] = -1
    st.rng[:, 0] = np.arange(3, dtype=np.uint64) * np.uint64(7919) + np.uint64(12345)
    return st


def seat(
    st: State,
    p: int,
    buildings: tuple[int, ...] | list[int] = (),
    gold: int = 0,
    workers: int = 0,
    units: list[Any] = (),
    hand: dict[int, int] | list[int] = (),
    brunes: dict[int, int] | None = None,
) -> list[int]:
    """Give seat ``p`` its position; ``units`` are types or (type, rune) pairs; ``brunes`` maps a
    building to the rune on it. Returns the unit rows in the order given."""
    for b in buildings:
        st.pl[p, PL_BUILT + b] = 1
    for b, r in (brunes or {}).items():
        assert st.pl[p, PL_BUILT + b] == 1
        st.pl[p, PL_BRUNE + b] = r
    st.pl[p, PL_GOLD] = gold
    st.pl[p, PL_WORKERS] = workers
    rows = []
    for u in units:
        t, r = (u, -1) if isinstance(u, int) else u
        i = add_unit(st, p, t)
        st.units[p, i, U_RUNE] = r
        rows.append(i)
    if isinstance(hand, dict):
        for r, n in hand.items():
            st.pl[p, PL_HAND + r] = n
    else:
        for r in hand:
            st.pl[p, PL_HAND + r] += 1
    recount(st)
    return rows


# ---------------------------------------------------------------- reading a position


def alive(st: State, p: int) -> list[tuple[int, int]]:
    """(type, rune) of each living unit row of ``p``, sorted."""
    return sorted(
        (int(st.units[p, i, U_TYPE]), int(st.units[p, i, U_RUNE]))
        for i in range(int(st.pl[p, PL_NU]))
        if st.units[p, i, U_DEAD] == 0
    )


def types(st: State, p: int) -> list[int]:
    return [t for t, _ in alive(st, p)]


def built(st: State, p: int) -> list[int]:
    return [b for b in range(NB) if st.pl[p, PL_BUILT + b]]


def gold(st: State, p: int) -> int:
    return int(st.pl[p, PL_GOLD])


def workers(st: State, p: int) -> int:
    return int(st.pl[p, PL_WORKERS])


def hand(st: State, p: int) -> dict[int, int]:
    return {r: int(st.pl[p, PL_HAND + r]) for r in range(NR) if st.pl[p, PL_HAND + r]}


def inplay(st: State, p: int) -> dict[int, int]:
    return {r: int(st.pl[p, PL_INPLAY + r]) for r in range(NR) if st.pl[p, PL_INPLAY + r]}


def check_counts(st: State) -> None:
    """The cached counts agree with the position (what ``recount`` would rebuild)."""
    pl = st.pl.copy()
    recount(st)
    np.testing.assert_array_equal(st.pl, pl)
    st.pl[:] = pl


# ---------------------------------------------------------------- parts of a turn


def drive(c: Compiled, st: State, stop: int) -> int:
    """Run ``st`` through its decision points, each answered by the seats' policies, until the
    game reaches phase ``stop`` (state.PH_*; returns -2) or ends (-1)."""
    w = work(c)
    while True:
        a = int(engine.run_until(c.tb, st, w, stop))
        if a < 0:
            return a
        engine.apply(c.tb, st, w, policies.choose(c.tb, st, w))


def resume(st: State, p: int, phase: int) -> None:
    """Seat ``p``'s turn resumes at ``phase``, nothing pending."""
    st.board[state.G_ACTIVE] = p
    st.board[state.G_PHASE] = phase
    st.board[state.G_PKIND] = -1
    st.board[state.G_PACTOR] = -1


def build(c: Compiled, st: State, p: int, b: int, statue_choice: int = -1) -> bool:
    """RO-3: ``p`` builds ``b`` (engine.build); a Statue then takes ``statue_choice`` (the seat's
    policy's when -1). False, changing nothing, when it may not."""
    if not engine.build(c.tb, st, p, b):
        return False
    if b == state_tables.STATUE:
        if statue_choice < 0:
            statue_choice = int(policies.choose_statue(c.tb, st, p))
        engine.statue(c.tb, st, p, statue_choice)
    return True


def play_rune(c: Compiled, st: State, p: int, r: int, host: int) -> bool:
    """RO-6: ``p`` plays rune ``r`` on ``host`` (engine.play_rune); Corruption then takes the
    enemy unit the seat's policy picks (its ``corruption`` decision)."""
    if not engine.play_rune(c.tb, st, p, r, host):
        return False
    if r == state_tables.CORRUPTION:
        v = int(policies.choose_enemy_unit(c.tb, st, p, False))
        if engine.take_unit(c.tb, st, p, v) < 0:
            state.emit(st, state.E_CORRUPT, p, -1, -1, 0, 0, 0, 0)
    return True


def construction(c: Compiled, st: State, p: int) -> None:
    """Seat ``p``'s Construction phase with its own choices (one build allowed, RO-3)."""
    resume(st, p, state.PH_CONSTRUCT)
    drive(c, st, state.PH_WAR)


def declare(c: Compiled, st: State, p: int, n: int) -> None:
    """The attackers in aux[A_ATK][:n] of ``p`` attack (RO-7); Canine, Conquest, Dawn Raid and
    attacking Spirit Runes act (ENGINE-4) with the seats' choices."""
    st.board[state.G_NATK] = n
    resume(st, p, state.PH_DECLARE)
    drive(c, st, state.PH_APOW)


def fight(
    c: Compiled,
    st: State,
    p: int,
    attackers: list[int],
    blocks: dict[int, int] | None = None,
    wblocks: dict[int, int] | None = None,
) -> int:
    """Seat ``p`` attacks with unit rows ``attackers``; the defender's unit row i blocks attacker
    index ``blocks[i]`` and ``wblocks[a]`` workers block attacker a. Declares (RO-7; Canine,
    Conquest, Dawn Raid, attacking Spirit Runes), then resolves (RO-8, RO-9). Returns the number
    of unblocked attackers; the dead are swept (rows move)."""
    n = len(attackers)
    st.aux[A_ATK, :n] = attackers
    declare(c, st, p, n)
    st.aux[A_BLK] = -1
    st.aux[A_AWK] = 0
    for i, a in (blocks or {}).items():
        st.aux[A_BLK, i] = a
    for a, w in (wblocks or {}).items():
        st.aux[A_AWK, a] = w
    resume(st, p, state.PH_RESOLVE)
    drive(c, st, state.PH_TURN_END)
    return int(st.aux[state.A_FREE, :n].sum())


def war(c: Compiled, st: State, p: int) -> None:
    """Seat ``p``'s whole War phase with the seats' own choices."""
    resume(st, p, state.PH_WAR)
    drive(c, st, state.PH_TURN_END)


def play_turn(c: Compiled, st: State, p: int) -> bool:
    """One turn of ``p``: Harvest, Construction, War; True if the game ended with it (RO-9)."""
    resume(st, p, state.PH_TURN)
    drive(c, st, state.PH_TURN_END)
    if st.pl[1 - p, PL_NBLD] == 0:
        st.board[G_END] = state.END_DESTRUCTION
        st.board[G_WINNER] = p
        return True
    return False


__all__ = [
    "BASE",
    "CONFIGS",
    "G_END",
    "G_WINNER",
    "PL_ACAD",
    "PL_HAND_N",
    "PL_NBLD",
    "TURN",
    "U_FRESH",
    "U_NOATK",
    "U_TIRED",
    "state",
]


# ---------------------------------------------------------------- whole games, turn by turn


def play_stepwise(c: Compiled, seed: int, game: int, on_turn=None) -> State:
    """Game ``game`` of run ``seed`` as ``engine.play_game`` plays it, through its decision points,
    calling ``on_turn(st, p)`` after each turn's War (before RO-9 and the turn cap are checked)."""
    tb = c.tb
    st = alloc_state(tb, 0)
    engine.start(tb, st, seed, game, work(c))
    while True:
        p = int(st.board[state.G_ACTIVE])
        drive(c, st, state.PH_TURN_END)
        if on_turn is not None:
            on_turn(st, p)
        if drive(c, st, state.PH_TURN) == -1:
            return st
