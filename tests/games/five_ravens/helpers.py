"""Scenario helpers for the Five Ravens engine tests: build a position card by card, call one rule,
read the piles and the event log back, so that a test reads like the rulebook.

Card ids follow state.py: ``raven(r)`` is the Raven of rank ``r`` (id ``r - 1``) and
``relic_id(compiled, "gem", k)`` is the k-th gem instance. Piles are written bottom first; the top
of a deck is the last card.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np

from balance.config import RunConfig, config_from_dict
from balance.config.loading import load_yaml
from balance.games._kit import LOG_WIDTH
from balance.games.five_ravens import engine
from balance.games.five_ravens.state import (
    B_CENTRE,
    B_FACE,
    B_LOCK,
    B_RDECK,
    E_ACTION,
    E_CAPT3,
    E_CAPTURE5,
    E_CAPTURED,
    E_DEAL,
    E_DISCARD,
    E_DONE,
    E_DRAW,
    E_EPILOGUE,
    E_EXAMINE,
    E_FLIP,
    E_LOCK,
    E_NOTHIEF,
    E_REMOVED,
    E_REPLACE,
    E_RESCUE,
    E_ROUND,
    E_SCORE,
    E_SET_ASIDE,
    E_SEVEN,
    E_SHUFFLE,
    E_SHUFFLE_CENTRE,
    E_STEAL,
    E_THIEF,
    E_TOP,
    E_UNCLAIMED,
    G_FIRST,
    G_LAST,
    G_LOG0,
    G_LOG_N,
    G_RD_BOT,
    G_RD_N,
    G_RMASK,
    MAX_SLOTS,
    N_SB,
    PILE_CAPT,
    PILE_DECK,
    PILE_DISC,
    PILE_HAND,
    PL_CKNOWN,
    PL_DECK_KNOWN,
    PL_DECK_N,
    PL_DOUBLED,
    PL_NO_THIEF,
    PL_RD_BOT,
    PL_RD_TOP,
    PL_STATUS,
    PL_THIEF,
    PL_TURNS,
    PL_USED1,
    PL_USED3,
    SB_CHESTS,
    SB_CURSED,
    SB_FOUR,
    SB_GEMS,
    SB_HOLLOWS,
    SB_N_GEMS,
    SB_PENALTY,
    SB_TOTAL,
    ST_ACTIVE,
    State,
    alloc_work,
    new_state,
    recount,
)
from balance.games.five_ravens.tables import (
    C_INST,
    N_RAVENS,
    P_N_RELICS,
    P_N_TYPES,
    P_PLAYERS,
    POL_SCRIPT,
    Compiled,
    compile_tables,
)

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = ROOT / "configs" / "five_ravens"
PILES = {"deck": PILE_DECK, "hand": PILE_HAND, "discard": PILE_DISC, "captured": PILE_CAPT}


# ---------------------------------------------------------------- configs and tables


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def config(
    players: int = 4,
    seats: list[str] | None = None,
    rules: dict[str, Any] | None = None,
    name: str = "base.yaml",
) -> RunConfig:
    """A shipped config with ``players``, ``seats`` and ``rules`` overrides merged in."""
    data, _ = load_yaml(CONFIGS / name)
    data = copy.deepcopy(data)
    data["players"] = players
    data["seats"] = seats if seats is not None else ["greedy"] * players
    if rules:
        data["rules"] = _merge(data.get("rules", {}), rules)
    return config_from_dict(data, name)


def scripted(cfg: RunConfig) -> Compiled:
    """Tables whose every seat reads its choices from the script (greedy once it runs out)."""
    greedy = compile_tables(cfg).tb.weights  # the config's weights, used once the script ends
    return compile_tables(cfg, seat_kinds=[POL_SCRIPT] * cfg.players, weights=greedy)


def players(compiled: Compiled) -> int:
    return int(compiled.tb.params[P_PLAYERS])


# ---------------------------------------------------------------- card ids


def raven(rank: int) -> int:
    """Card id of the Raven of rank ``rank`` (1..9)."""
    assert 1 <= rank <= 9
    return rank - 1


def relic_id(compiled: Compiled, name: str, k: int = 0) -> int:
    """Card id of the k-th instance of relic type ``name``."""
    t = compiled.relic_names.index(name)
    inst = [
        i for i in range(int(compiled.tb.params[P_N_RELICS])) if compiled.tb.cards[C_INST, i] == t
    ]
    return N_RAVENS + inst[k]


def relic_name(compiled: Compiled, card: int) -> str:
    return compiled.relic_names[int(compiled.tb.cards[C_INST, card - N_RAVENS])]


def all_relics(compiled: Compiled) -> list[int]:
    return [N_RAVENS + i for i in range(int(compiled.tb.params[P_N_RELICS]))]


# ---------------------------------------------------------------- building a position


def blank(
    compiled: Compiled,
    script: list[int] | tuple[int, ...] = (),
    first: int = 0,
    seed: int = 0,
    log_cap: int = 2000,
) -> State:
    """A game set up by ``engine.setup`` and then emptied: no cards anywhere, seats active with no
    thief, ``first`` as first player, the log cleared. Tests then place only the cards they need."""
    tb = compiled.tb
    st = new_state(tb, log_cap=log_cap, script=np.asarray(script, np.int32))
    engine.setup(tb, st, seed, 0)
    st.pile[:] = 0
    for p in range(players(compiled)):
        for pile in PILES.values():
            st.pl[p, PL_DECK_N + pile] = 0
        st.pl[p, PL_DECK_KNOWN] = 0
        st.pl[p, PL_THIEF] = -1
        st.pl[p, PL_STATUS] = ST_ACTIVE
        st.pl[p, PL_NO_THIEF] = 0
        st.pl[p, PL_USED1] = 0
        st.pl[p, PL_USED3] = 0
        st.pl[p, PL_TURNS] = 0
        st.pl[p, PL_DOUBLED] = -1
        st.pl[p, PL_RD_TOP] = -1
        st.pl[p, PL_RD_BOT] = -1
        st.pl[p, PL_CKNOWN : PL_CKNOWN + MAX_SLOTS] = 0
    st.board[B_CENTRE : B_CENTRE + MAX_SLOTS] = -1
    st.board[B_FACE : B_FACE + MAX_SLOTS] = 0
    st.board[B_LOCK : B_LOCK + MAX_SLOTS] = 0
    set_relic_deck(st, [])
    recount(tb, st)
    st.board[G_FIRST] = first
    st.board[G_LAST] = first
    st.board[G_LOG_N] = 0
    return st


def set_pile(compiled: Compiled, st: State, p: int, pile: int | str, cards: list[int]) -> None:
    """Seat ``p``'s pile holds exactly ``cards`` (bottom first: the deck's top is the last)."""
    pile = PILES[pile] if isinstance(pile, str) else pile
    st.pile[p, pile, :] = 0
    st.pile[p, pile, : len(cards)] = cards
    st.pl[p, PL_DECK_N + pile] = len(cards)
    recount(compiled.tb, st)  # the seat's cached counts (gems, captured cards) follow the piles


def set_seat(compiled: Compiled, st: State, p: int, **piles: list[int]) -> None:
    """``set_seat(c, st, 0, hand=[...], captured=[...])``."""
    for name, cards in piles.items():
        set_pile(compiled, st, p, name, cards)


def pile_cards(st: State, p: int, pile: int | str) -> list[int]:
    pile = PILES[pile] if isinstance(pile, str) else pile
    return [int(c) for c in st.pile[p, pile, : st.pl[p, PL_DECK_N + pile]]]


def set_centre(st: State, slots: list[Any]) -> None:
    """Centre slots from a list of ``None`` (empty), ``card`` (face down) or ``(card, face_up)``
    or ``(card, face_up, locked)``. Face-up relics are known to every seat (FR-15). Cursed relics
    are not locked automatically: pass ``locked`` to model FR-4."""
    P = st.pl.shape[0]
    for slot in range(MAX_SLOTS):
        spec = slots[slot] if slot < len(slots) else None
        if spec is None:
            card, face, lock = -1, 0, 0
        elif isinstance(spec, tuple):
            card, face, lock = (*spec, 0) if len(spec) == 2 else spec
        else:
            card, face, lock = spec, 0, 0
        st.board[B_CENTRE + slot] = card
        st.board[B_FACE + slot] = int(face)
        st.board[B_LOCK + slot] = int(lock)
        for s in range(P):
            st.pl[s, PL_CKNOWN + slot] = int(bool(face))


def centre(st: State) -> list[tuple[int, int, int]]:
    """(card, face up, locked) of every centre slot of the game (card -1 for an empty slot)."""
    P = st.pl.shape[0]
    return [
        (int(st.board[B_CENTRE + s]), int(st.board[B_FACE + s]), int(st.board[B_LOCK + s]))
        for s in range(P)
    ]


def centre_cards(st: State) -> list[int]:
    return [c for c, _, _ in centre(st)]


def set_relic_deck(st: State, bottom_to_top: list[int]) -> None:
    st.board[G_RD_BOT] = 0
    st.board[G_RD_N] = len(bottom_to_top)
    for i, c in enumerate(bottom_to_top):
        st.board[B_RDECK + i] = c


def relic_deck(st: State) -> list[int]:
    """The relic deck, bottom first."""
    mask = int(st.board[G_RMASK])
    bot = int(st.board[G_RD_BOT])
    return [int(st.board[B_RDECK + ((bot + k) & mask)]) for k in range(int(st.board[G_RD_N]))]


# ---------------------------------------------------------------- the event log


# Meaningful arguments of each event code (the rest of the row is 0), as the engine emits them.
ARITY = {
    E_ROUND: 2,  # round, first player
    E_DEAL: 4,  # slot, relic, face up, locked
    E_DRAW: 2,  # seat, card
    E_SHUFFLE: 2,  # seat, cards shuffled into the deck
    E_ACTION: 3,  # seat, Raven, borrowed by the 2
    E_DISCARD: 2,  # seat, card
    E_TOP: 2,  # seat, card put on top of the deck
    E_SEVEN: 4,  # seat, top relic, slot (-1 bury), relic swapped out
    E_FLIP: 4,  # seat, slot, relic, face up now
    E_SHUFFLE_CENTRE: 6,  # seat, face-down relics shuffled, centre slots 0..3 after (-1 none)
    E_CAPTURE5: 2,  # seat, card
    E_SET_ASIDE: 2,  # seat, cards set aside
    E_EXAMINE: 3,  # seat, slot, relic
    E_REPLACE: 5,  # seat, slot, old relic, new relic, locked
    E_CAPT3: 3,  # seat, bottom, relic seen
    E_LOCK: 4,  # seat, slot, relic, face up
    E_THIEF: 2,  # seat, card
    E_DONE: 1,  # seat
    E_STEAL: 5,  # seat, thief, relic, slot (-1 deck bottom), where (0 discard, 1 five, 2 six)
    E_CAPTURED: 2,  # seat, thief
    E_RESCUE: 2,  # seat, card
    E_UNCLAIMED: 2,  # slot, relic
    E_EPILOGUE: 2,  # round just ended + 1, new first player
    E_SCORE: 7,  # seat, chests, gems, hollows, cursed, four, penalty
    E_REMOVED: 1,  # relic
    E_NOTHIEF: 1,  # seat
}


def log(st: State) -> list[tuple[int, ...]]:
    """Every logged event as a tuple (code, its meaningful arguments)."""
    r0 = int(st.board[G_LOG0])
    n = int(st.board[G_LOG_N])
    rows = [tuple(int(v) for v in st.aux[r0 + i, :LOG_WIDTH]) for i in range(n)]
    return [r[: 1 + ARITY[r[0]]] for r in rows]


def events(st: State, code: int) -> list[tuple[int, ...]]:
    """The arguments of every logged event with this code, in order."""
    return [e[1:] for e in log(st) if e[0] == code]


# ---------------------------------------------------------------- calling rules


def moves_buffer(compiled: Compiled) -> np.ndarray:
    cap = N_RAVENS + int(compiled.tb.params[P_N_RELICS])
    return np.zeros((2 * cap + 2, 2), np.int32)


def legal(compiled: Compiled, st: State, p: int) -> set[tuple[int, int]]:
    """The seat's legal turns as a set of (move, card)."""
    moves = moves_buffer(compiled)
    n = engine.legal_moves(compiled.tb, st, p, moves)
    return {(int(m), int(c)) for m, c in moves[:n]}


def order_of(compiled: Compiled, st: State) -> list[int]:
    order = np.zeros(players(compiled), np.int32)
    n = engine.steal_order(compiled.tb, st, order)
    return [int(s) for s in order[:n]]


def theft(compiled: Compiled, st: State) -> None:
    engine.theft(compiled.tb, st, alloc_work(compiled.tb))


def breakdown(compiled: Compiled, st: State, p: int) -> dict[str, int]:
    """The engine's FR-13 score breakdown of seat ``p``, by field name."""
    sb = np.zeros(N_SB, np.int32)
    cursed = np.zeros(int(compiled.tb.params[P_N_TYPES]), np.int32)
    engine.score_breakdown(compiled.tb, st, p, sb, cursed)
    names = {
        "chests": SB_CHESTS,
        "gems": SB_GEMS,
        "hollows": SB_HOLLOWS,
        "cursed": SB_CURSED,
        "four": SB_FOUR,
        "penalty": SB_PENALTY,
        "total": SB_TOTAL,
        "n_gems": SB_N_GEMS,
    }
    return {k: int(sb[v]) for k, v in names.items()}


def total(compiled: Compiled, st: State, p: int) -> int:
    return breakdown(compiled, st, p)["total"]


def ranks(score: list[int], captured: list[int]) -> list[int]:
    rank = np.zeros(len(score), np.int32)
    engine.rank_seats(np.asarray(score, np.int32), np.asarray(captured, np.int32), rank)
    return [int(r) for r in rank]


def play_one(compiled: Compiled, seed: int, game: int, log_cap: int = 5000):
    """Play one whole game with ``engine.play_game``; returns (state, scores, ranks)."""
    tb = compiled.tb
    st = new_state(tb, log_cap=log_cap)
    work = alloc_work(tb)
    engine.play_game(tb, st, seed, game, work)
    assert st.board[G_LOG_N] < log_cap, "log full: raise log_cap"
    return st, [int(s) for s in work.score], [int(r) for r in work.rank]
