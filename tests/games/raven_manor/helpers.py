"""Scenario kit for the Raven Manor rule tests: build a hand-made position (characters, hands,
deck, discard pile, Rooms and Locations in play, stuns, deaths, possession, knowledge), make seats'
decisions scripted, call the engine's own functions and read the state and the event log back, so
that a test reads like the rulebook (rulebooks/raven-manor.txt, RULINGS.md RM-1..RM-30, the
engine's readings ENGINE-1..ENGINE-14 in engine.py).

A position starts from ``engine.setup`` (so every array is as a real game has it), then everything a
scenario names is overwritten: the deck holds only the cards given (``deck=[...]`` in the order
they are drawn: the first one is the top), the discard pile only ``discard=``, hands only
``hands=``; the log starts empty. Scripted seats (``scripts={seat: [values]}``,
``tables.with_script``) make the listed decisions in order, then play as ``basic``.

``Scene.check()`` is the end of every scenario: no scripted value was illegal
(``G_BAD_SCRIPT`` stays 0), every scripted value was used (the scenario went through the decisions
it meant to), and no card was lost or made (the conservation count of ``state.cards_total``).
"""

from __future__ import annotations

import copy
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from balance import games
from balance.config import RunConfig, config_from_dict
from balance.config.loading import load_yaml
from balance.games.raven_manor import engine, state
from balance.games.raven_manor.policies import K_CYCLE, K_PASS, K_PLAY, K_USE
from balance.games.raven_manor.state import (
    B_DISC,
    B_INPLAY,
    B_MISS,
    B_REMOVED,
    B_RING,
    G_ACTIVE,
    G_BAD_SCRIPT,
    G_DEATHS_N,
    G_DECK_N,
    G_DEPTH,
    G_DISC_N,
    G_END,
    G_FIRST,
    G_GEN,
    G_LOG_N,
    G_NEXT,
    G_OVER,
    G_TURN,
    KN_CHAR,
    KN_GAVE,
    KN_GAVE_F,
    N_KN,
    PL_ALIVE,
    PL_BACKPACKS,
    PL_BP,
    PL_BP_N,
    PL_CAUSE,
    PL_CHAR,
    PL_DEALT,
    PL_DEATH_TURN,
    PL_EVIL_LOST,
    PL_FEATHER_DISC,
    PL_HAND,
    PL_HAND_N,
    PL_KILLS,
    PL_POS,
    PL_POSS_TURN,
    PL_POSSESSED,
    PL_REVEALED,
    PL_SAFE_KILL,
    PL_SAFE_STUN,
    PL_SCRIPT,
    PL_SIDE,
    PL_SKIP,
    PL_STUN_CARD,
    PL_STUNNED,
    PL_STUNS,
    PL_TELE,
    State,
)
from balance.games.raven_manor.tables import (
    CARD_NAMES,
    CHARACTER_NAMES,
    D_KILL,
    FEATHER,
    N_TELE,
    NC,
    P_PLAYERS,
    SP_SCRIPT_N,
    Compiled,
    with_script,
)

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = ROOT / "configs" / "raven_manor"
ALL_CARDS = CONFIGS / "all_cards.yaml"
BASE = CONFIGS / "base.yaml"
TURN = 10  # the turn of a hand-built position
SEED = 7


# ---------------------------------------------------------------- configs and tables


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def config(
    players: int = 5,
    rules: dict[str, Any] | None = None,
    policies: dict[str, Any] | None = None,
    path: Path = ALL_CARDS,
) -> RunConfig:
    """A shipped config (every card and character by default) for ``players`` basic seats, with
    ``rules`` and ``policies`` overrides merged in."""
    data, _ = load_yaml(path)
    data = copy.deepcopy(data)
    data["players"] = players
    data["seats"] = "basic"
    if rules:
        data["rules"] = _merge(data.get("rules", {}), rules)
    if policies:
        data["policies"] = _merge(data.get("policies", {}), policies)
    return config_from_dict(data, "test")


def compile_for(players: int = 5, **kw: Any) -> Compiled:
    return games.get("raven_manor").compile(config(players, **kw))


class TableCache:
    """Compiled tables of ``all_cards.yaml`` per player count, compiled on first use (the session
    fixture ``manor`` holds one)."""

    def __init__(self) -> None:
        self._by_n: dict[int, Compiled] = {}

    def __call__(self, players: int) -> Compiled:
        if players not in self._by_n:
            self._by_n[players] = compile_for(players)
        return self._by_n[players]


# ---------------------------------------------------------------- reading cards


def cards(*ids: int) -> Counter:
    """A multiset of card ids (what ``Scene.hand`` and ``Scene.discard`` return)."""
    return Counter(ids)


def card_name(c: int) -> str:
    return CARD_NAMES[c]


def char_name(ch: int) -> str:
    return CHARACTER_NAMES[ch]


# ---------------------------------------------------------------- the scene


class Scene:
    """A hand-built position and the engine calls that play it (see the module docstring)."""

    def __init__(self, base: Compiled, scripts: dict[int, list[int]] | None, log_cap: int) -> None:
        self.base = base
        self.scripts = {p: list(v) for p, v in (scripts or {}).items()}
        self.c = with_script(base, self.scripts) if self.scripts else base
        self.tb = self.c.tb
        self.st: State = state.alloc_state(base.tb, log_cap)
        self.work = state.alloc_work(self.tb)
        self.stack, self.opts, self.pick, self.mask = self.work[:4]
        self.total: int | None = None

    # -- state access

    @property
    def pl(self) -> np.ndarray:
        return self.st.pl

    @property
    def board(self) -> np.ndarray:
        return self.st.board

    @property
    def kn(self) -> np.ndarray:
        return self.st.kn

    @property
    def n(self) -> int:
        return int(self.st.board[state.G_N])

    # -- building

    def set_hand(self, p: int, hand: list[int] | tuple[int, ...]) -> None:
        self.pl[p, PL_HAND : PL_HAND + NC] = 0
        for c in hand:
            self.pl[p, PL_HAND + c] += 1
        self.pl[p, PL_HAND_N] = len(hand)

    def set_deck(self, top_first: list[int] | tuple[int, ...]) -> None:
        """The draw deck, ``top_first[0]`` drawn first."""
        k = len(top_first)
        assert k <= self.st.deck.shape[0], "more cards than the deck array holds"
        self.st.deck[:] = 0
        self.st.deck[:k] = list(reversed(top_first))
        self.board[G_DECK_N] = k

    def set_discard(self, pile: list[int] | tuple[int, ...]) -> None:
        self.board[B_DISC : B_DISC + NC] = 0
        for c in pile:
            self.board[B_DISC + c] += 1
        self.board[G_DISC_N] = len(pile)

    def put_in_play(self, *places: int) -> None:
        for c in places:
            self.board[B_INPLAY + c] += 1

    def set_char(self, p: int, ch: int) -> None:
        self.pl[p, PL_CHAR] = ch
        self.pl[p, PL_DEALT] = ch
        self.pl[p, PL_SIDE] = state.own_side(ch)
        self.kn[:, p, KN_CHAR] = -1
        self.kn[p, p, KN_CHAR] = ch

    def kill_now(self, p: int, cause: int = D_KILL) -> None:
        """``p`` starts the scene dead (revealed, no death ability pending)."""
        self.pl[p, PL_ALIVE] = 0
        self.pl[p, PL_DEATH_TURN] = TURN - 1
        self.pl[p, PL_CAUSE] = cause
        self.pl[p, PL_REVEALED] = 1
        self.kn[: self.n, p, KN_CHAR] = self.pl[p, PL_CHAR]

    def stun_now(self, p: int, card: int) -> None:
        """``p`` starts the scene stunned by ``card`` (lying in front of it)."""
        self.pl[p, PL_STUNNED] = 1
        self.pl[p, PL_STUN_CARD] = card

    def possess_now(self, p: int, by: int) -> None:
        """``p`` starts the scene possessed by seat ``by`` (who gave it a Feather; the Feather
        itself must be in ``p``'s hand if the scene needs it)."""
        side = state.own_side(int(self.pl[by, PL_CHAR]))
        self.pl[p, PL_POSSESSED] = side
        self.pl[p, PL_SIDE] = side
        self.pl[p, PL_POSS_TURN] = TURN - 1
        self.kn[p, by, KN_GAVE_F] = 1
        self.kn[p, by, KN_CHAR] = self.pl[by, PL_CHAR]
        self.kn[by, p, KN_GAVE + FEATHER] += 1

    def know(self, q: int, p: int, ch: int | None = None) -> None:
        """Seat ``q`` knows ``p``'s character (``ch``, default the real one)."""
        self.kn[q, p, KN_CHAR] = self.pl[p, PL_CHAR] if ch is None else ch

    def set_ring(self, seats: list[int]) -> None:
        """``seats[i]`` sits at position ``i`` (clockwise)."""
        for pos, p in enumerate(seats):
            self.board[B_RING + pos] = p
            self.pl[p, PL_POS] = pos

    # -- running the engine

    def _begin(self) -> None:
        if self.total is None:
            self.total = int(state.cards_total(self.st))

    def act(self, a: int, kind: int, card: int = -1, target: int = -1, option: int = 0) -> None:
        """Seat ``a`` takes one action (``engine.do_action``), then the death abilities it caused
        resolve (``engine.resolve_deaths``)."""
        self._begin()
        self.board[G_ACTIVE] = a
        engine.do_action(
            self.tb, self.st, a, kind, card, target, option, self.stack, self.opts, self.pick
        )
        self.deaths()

    def play(self, a: int, card: int, target: int = -1, option: int = 0) -> None:
        """``a`` plays ``card`` from hand (it must be there)."""
        assert self.pl[a, PL_HAND + card] > 0, f"seat {a} holds no {card_name(card)}"
        self.act(a, K_PLAY, card, target, option)

    def use(self, a: int, place: int, target: int = -1, option: int = 0) -> None:
        """``a`` uses a Room or Location in play."""
        assert self.board[B_INPLAY + place] > 0, f"{card_name(place)} is not in play"
        self.act(a, K_USE, place, target, option)

    def cycle(self, a: int) -> None:
        self.act(a, K_CYCLE)

    def pass_(self, a: int) -> None:
        self.act(a, K_PASS)

    def deaths(self) -> None:
        self._begin()
        engine.resolve_deaths(self.tb, self.st, self.stack, self.opts, self.pick, self.mask)

    def turn(self, a: int) -> None:
        """One whole turn of ``a`` (``engine.play_turn``), counted as the game loop counts it."""
        self._begin()
        engine.play_turn(self.tb, self.st, a, self.stack, self.opts, self.pick, self.mask)
        self.board[G_TURN] += 1

    def next_seat(self, a: int) -> int:
        """Who plays after ``a``'s turn (as ``engine.play_game`` decides)."""
        nxt = int(self.board[G_NEXT])
        return nxt if nxt >= 0 else int(state.left(self.st, a))

    def kill(self, killer: int, t: int, cause: int = D_KILL) -> bool:
        """A kill of ``t`` resolves (no window), then the death abilities."""
        self._begin()
        out = bool(engine.kill(self.tb, self.st, killer, t, cause))
        self.deaths()
        return out

    def trade(self, a: int, b: int, kind: int = 0) -> None:
        self._begin()
        engine.trade(self.tb, self.st, a, b, kind)
        self.deaths()

    def legal(self, a: int) -> set[tuple[int, int, int, int]]:
        """Every legal action of ``a`` now: (kind, card, target, option)."""
        n = int(engine.enum_actions(self.tb, self.st, a))
        b = state.B_CAND
        return {tuple(int(x) for x in self.board[b + 4 * i : b + 4 * i + 4]) for i in range(n)}

    def check_end(self) -> int:
        engine.check_end(self.st)
        return int(self.board[G_END])

    def outcome(self, p: int) -> tuple[int, int]:
        s, r = engine.outcome(self.st, p)
        return int(s), int(r)

    # -- reading

    def hand(self, p: int) -> Counter:
        return Counter({c: int(k) for c in range(NC) if (k := self.pl[p, PL_HAND + c]) > 0})

    def backpack(self, p: int) -> Counter:
        return Counter({c: int(k) for c in range(NC) if (k := self.pl[p, PL_BP + c]) > 0})

    def discard(self) -> Counter:
        return Counter({c: int(k) for c in range(NC) if (k := self.board[B_DISC + c]) > 0})

    def deck(self) -> list[int]:
        """The draw deck, top first."""
        return [int(c) for c in reversed(self.st.deck[: int(self.board[G_DECK_N])])]

    def in_play(self, c: int) -> int:
        return int(self.board[B_INPLAY + c])

    def alive(self, p: int) -> bool:
        return bool(self.pl[p, PL_ALIVE])

    def living(self) -> list[int]:
        return [p for p in range(self.n) if self.pl[p, PL_ALIVE]]

    def cause(self, p: int) -> int:
        return int(self.pl[p, PL_CAUSE])

    def side(self, p: int) -> int:
        return int(self.pl[p, PL_SIDE])

    def char(self, p: int) -> int:
        return int(self.pl[p, PL_CHAR])

    def possessed(self, p: int) -> int:
        return int(self.pl[p, PL_POSSESSED])

    def stunned(self, p: int) -> bool:
        return bool(self.pl[p, PL_STUNNED])

    def pos(self, p: int) -> int:
        return int(self.pl[p, PL_POS])

    def end(self) -> int:
        return int(self.board[G_END])

    def rows(self) -> list[tuple[int, ...]]:
        return [tuple(int(x) for x in r) for r in state.log_rows(self.st)]

    def ev(self, code: int) -> list[tuple[int, ...]]:
        """The log events ``code`` (state.E_*), each the tuple of its seven integers."""
        return [r[1:] for r in self.rows() if r[0] == code]

    def codes(self) -> list[int]:
        return [r[0] for r in self.rows()]

    def script_used(self, p: int) -> int:
        return int(self.pl[p, PL_SCRIPT])

    def check(self, bad_script: bool = False, all_used: bool = True) -> None:
        """The end of every scenario (module docstring)."""
        assert int(self.board[G_BAD_SCRIPT]) == int(bad_script), "a scripted decision was not legal"
        if all_used:
            for p, values in self.scripts.items():
                assert self.script_used(p) == len(values), (
                    f"seat {p} used {self.script_used(p)} of its {len(values)} scripted values"
                )
        if self.total is not None:
            assert int(state.cards_total(self.st)) == self.total, "a card was lost or made"
        assert all(v >= 0 for v in self.discard().values())
        assert int(self.board[G_DISC_N]) == sum(self.discard().values())
        for p in range(self.n):
            assert int(self.pl[p, PL_HAND_N]) == sum(self.hand(p).values()), f"seat {p} hand"
            assert int(self.pl[p, PL_BP_N]) == sum(self.backpack(p).values())


def scene(
    manor: TableCache,
    chars: list[int],
    hands: dict[int, list[int]] | None = None,
    deck: list[int] | tuple[int, ...] = (),
    discard: list[int] | tuple[int, ...] = (),
    in_play: tuple[int, ...] = (),
    scripts: dict[int, list[int]] | None = None,
    dead: tuple[int, ...] = (),
    stunned: dict[int, int] | None = None,
    possessed: dict[int, int] | None = None,
    ring: list[int] | None = None,
    seed: int = SEED,
    log_cap: int = 4096,
    base: Compiled | None = None,
) -> Scene:
    """A hand-made position of ``len(chars)`` seats: seat ``p`` holds character ``chars[p]`` and
    ``hands[p]`` (empty if not given); ``deck`` is drawn from its first card on; ``dead`` seats
    start dead, ``stunned`` maps seats to the card that stunned them, ``possessed`` maps seats to
    the seat that possessed them; ``ring`` is the seating (default 0, 1, 2, ... clockwise); seat
    ``p`` knows only its own character. Turn ``TURN``, seat 0 first and active."""
    n = len(chars)
    base = base or manor(n)
    assert int(base.tb.params[P_PLAYERS]) == n
    s = Scene(base, scripts, log_cap)
    st = s.st
    engine.setup(base.tb, st, seed, 0, s.pick)  # a real game's arrays (the opening is unscripted)
    board = st.board
    board[G_TURN] = TURN
    board[G_FIRST] = 0
    board[G_ACTIVE] = 0
    board[G_END] = 0
    board[G_OVER] = 0
    board[G_NEXT] = -1
    board[G_DEATHS_N] = 0
    board[G_DEPTH] = 0
    board[G_BAD_SCRIPT] = 0
    board[G_GEN] = 0
    board[B_MISS : B_MISS + NC] = 0
    board[B_INPLAY : B_INPLAY + NC] = 0
    board[state.B_BARR : state.B_BARR + NC] = 0
    board[B_REMOVED : B_REMOVED + NC] = 0
    st.kn[:, :, :] = 0
    st.kn[:, :, KN_CHAR] = -1
    assert st.kn.shape[2] == N_KN
    for p in range(n):
        s.set_char(p, chars[p])
        st.pl[p, PL_ALIVE] = 1
        st.pl[p, PL_REVEALED] = 0
        st.pl[p, PL_POSSESSED] = -1
        st.pl[p, PL_POSS_TURN] = -1
        st.pl[p, PL_DEATH_TURN] = -1
        st.pl[p, PL_CAUSE] = 0
        st.pl[p, PL_KILLS] = 0
        st.pl[p, PL_STUNS] = 0
        st.pl[p, PL_STUNNED] = 0
        st.pl[p, PL_STUN_CARD] = -1
        st.pl[p, PL_SKIP] = 0
        st.pl[p, PL_SAFE_KILL] = 0
        st.pl[p, PL_SAFE_STUN] = 0
        st.pl[p, PL_BP : PL_BP + NC] = 0
        st.pl[p, PL_BP_N] = 0
        st.pl[p, PL_BACKPACKS] = 0
        st.pl[p, PL_FEATHER_DISC] = 0
        st.pl[p, PL_SCRIPT] = 0
        st.pl[p, PL_EVIL_LOST] = 0
        st.pl[p, PL_TELE : PL_TELE + N_TELE] = 0
        s.set_hand(p, (hands or {}).get(p, []))
    s.set_ring(ring if ring is not None else list(range(n)))
    s.set_deck(list(deck))
    s.set_discard(list(discard))
    s.put_in_play(*in_play)
    for p in dead:
        s.kill_now(p)
    for p, card in (stunned or {}).items():
        s.stun_now(p, card)
    for p, by in (possessed or {}).items():
        s.possess_now(p, by)
    for p, values in s.scripts.items():
        assert int(s.tb.seat[p, SP_SCRIPT_N]) == len(values)
    board[G_LOG_N] = 0
    return s


def action(kind: int, card: int = -1, target: int = -1, option: int = 0) -> list[int]:
    """The four scripted values of an action."""
    return [kind, card, target, option]


def play_(card: int, target: int = -1, option: int = 0) -> list[int]:
    """The four scripted values of playing ``card`` from hand."""
    return [K_PLAY, card, target, option]


def use_(place: int, target: int = -1, option: int = 0) -> list[int]:
    """The four scripted values of using a Room or Location in play."""
    return [K_USE, place, target, option]
