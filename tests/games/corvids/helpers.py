"""Scenario kit for the Corvids engine tests: lay out a trash pile by hand (cards with their
position, height, face and sides; feathers), give the seats their birds, collected cards and
feathers, script their decisions (``tables.with_script``), call the engine's own functions and
read the state and the event log back, so that a test reads like the rulebook
(rulebooks/corvids.txt, RULINGS.md CV-1..CV-12, the engine's readings ENGINE-1..ENGINE-8 and the
model's PHYS-1..PHYS-8).

A scene starts from ``engine.setup`` (so every array and random stream is as a real game has it),
then the pile is emptied and only the pieces the scene names are laid: every other card is out of
play (``OWN_REMOVED``) and every feather not laid nor held is counted removed, so that
``state.places`` still adds up to the deck and the 15 feathers. Each seat's nest is covered by two
overlapping cards of its own (rows from 39 down, away from the middle of the mat where the scenes
lie) unless the scene opens it; a seat whose nest is open starts the scene with its bird
revealed. The log starts empty.

``Scene.check()`` ends every scenario: no scripted value was illegal (``G_SCRIPT_BAD`` 0), every
scripted value was used (the scenario went through the decisions it meant to), the pieces add up
(``state.places``) and the seats' ``PL_HELD`` and ``PL_CARDS`` match the cards they own.
"""

from __future__ import annotations

import copy
import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from balance import games
from balance.config import RunConfig, config_from_dict
from balance.config.loading import load_yaml
from balance.games.corvids import engine, physics, state, tables
from balance.games.corvids import physics as ph
from balance.games.corvids.schema import ITEM_NAMES
from balance.games.corvids.state import (
    CC_OWNER,
    CC_TAKEN_FACE,
    CC_TURN,
    CC_USED,
    G_F_REMOVED,
    G_FIRST,
    G_FIRST_NEST,
    G_LOG_N,
    G_N,
    G_SCRIPT_BAD,
    G_TURN,
    OWN_PILE,
    OWN_REMOVED,
    PL_BIRD,
    PL_CARDS,
    PL_FEATHERS,
    PL_HELD,
    PL_REVEALED,
    PL_SCRIPT,
)
from balance.games.corvids.tables import BLANK, NI, SP_SCRIPT_N, Compiled

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = ROOT / "configs" / "corvids"
BASE = CONFIGS / "base.yaml"
TURN = 5  # the turn a hand-built scene is played in
SEED = 11
LOG_CAP = 4096

# Pecks that move nothing: the pecked card is set back where it lay (no offset, no turn) and a
# seat of clumsiness 0 leaves what rested on it where it was (PHYS-6).
STEADY_RULES: dict[str, Any] = {"physics": {"peck_offset_sd": 0.0, "peck_turn_sd": 0.0}}
POLICIES: dict[str, Any] = {
    "steady": {"kind": "greedy", "clumsiness": 0.0},
    # knocks what rests on the pecked card far, straight away from the aim (with the rules'
    # displacement_direction_sd 0)
    "wild": {"kind": "greedy", "clumsiness": 10.0},
    # barely moves them (a few millimetres)
    "nudge": {"kind": "greedy", "clumsiness": 0.1},
}

# The seats' birds in a scene: their nests lie at the mat's left and right ends, far from the
# middle where the scenes lay their pieces.
SCENE_BIRDS = ("raven", "jackdaw", "magpie", "nutcracker")  # nests 0, 3, 4, 7


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def config(
    players: int = 2,
    rules: dict[str, Any] | None = None,
    seats: str | list[str] = "steady",
    path: Path = BASE,
    policies: dict[str, Any] | None = None,
) -> RunConfig:
    """A shipped config (base.yaml by default) for ``players`` seats of ``seats``, with ``rules``
    merged in and the scene policies (``POLICIES``) added."""
    data, _ = load_yaml(path)
    data = copy.deepcopy(data)
    data["players"] = players
    data["seats"] = seats
    if rules:
        data["rules"] = _merge(data.get("rules", {}), rules)
    data["policies"] = _merge(data.get("policies", {}), {**POLICIES, **(policies or {})})
    return config_from_dict(data, "test")


@functools.cache
def _compiled(players: int, rules: str, seats: str, path: str) -> Compiled:
    seat = json.loads(seats)
    return games.get("corvids").compile(config(players, json.loads(rules), seat, Path(path)))


def compiled(
    players: int = 2,
    rules: dict[str, Any] | None = None,
    seats: str | list[str] = "steady",
    path: Path = BASE,
) -> Compiled:
    """``config(...)`` compiled, cached by its arguments."""
    return _compiled(players, json.dumps(rules or {}, sort_keys=True), json.dumps(seats), str(path))


def steady(players: int = 2, rules: dict[str, Any] | None = None, **kw: Any) -> Compiled:
    """Base rules with pecks that move nothing (STEADY_RULES), steady seats."""
    return compiled(players, _merge(STEADY_RULES, rules or {}), **kw)


# ---------------------------------------------------------------- pieces


@dataclass
class Card:
    """A card laid in the pile: centre (mm), height (stack order), sides, face (1 up), angle."""

    x: float
    y: float
    h: float
    front: int
    back: int = BLANK
    face: int = 1
    a: float = 0.0


@dataclass
class Held:
    """A card a seat collected earlier: its sides, the face it was taken in, the turn taken."""

    front: int
    back: int = BLANK
    face: int = 1
    turn: int = TURN - 1
    used: int = 0


@dataclass
class Feather:
    x: float
    y: float
    h: float


def item_id(name: str) -> int:
    return ITEM_NAMES.index(name)


# ---------------------------------------------------------------- the scene


@dataclass
class Scene:
    """A hand-built position (see the module docstring) and the engine calls that play it."""

    c: Compiled
    st: state.State
    ib: np.ndarray
    work: state.Work
    scripts: dict[int, list[float]] = field(default_factory=dict)
    covers: dict[int, tuple[int, int]] = field(default_factory=dict)  # seat -> nest cover rows

    @property
    def tb(self) -> tables.Tables:
        return self.c.tb

    @property
    def pile(self) -> physics.Pile:
        return self.st.pile

    @property
    def nc(self) -> int:
        return int(self.pile.cards.shape[0])

    def turn(self, p: int) -> None:
        engine.play_turn(self.tb, self.st, np.int64(p), self.work)

    def next_turn(self) -> None:
        self.st.board[G_TURN] += 1

    def events(self, code: int | None = None) -> list[tuple[int, ...]]:
        rows = [tuple(int(v) for v in r) for r in state.log_rows(self.st)]
        return rows if code is None else [r for r in rows if r[0] == code]

    def codes(self) -> list[int]:
        return [r[0] for r in self.events()]

    def clear_log(self) -> None:
        self.st.board[G_LOG_N] = 0

    def on(self, c: int) -> bool:
        return bool(self.pile.cst[c, ph.CS_ON])

    def feather_on(self, f: int) -> bool:
        return bool(self.pile.fst[f, ph.FS_ON])

    def owner(self, c: int) -> int:
        return int(self.st.cc[c, CC_OWNER])

    def feathers(self, p: int) -> int:
        return int(self.st.pl[p, PL_FEATHERS])

    def pile_feathers(self) -> int:
        return int(self.pile.fst[:, ph.FS_ON].sum())

    def tele(self, p: int, column: str) -> int:
        return int(self.st.pl[p, state.PL_TELE + self.c.columns.index(column)])

    def score(self, p: int) -> tuple[int, int, int]:
        return tuple(int(v) for v in engine.score(self.tb, self.st, np.int64(p)))

    def used_all_scripts(self) -> bool:
        return all(
            int(self.st.pl[p, PL_SCRIPT]) == int(self.tb.seat[p, SP_SCRIPT_N]) for p in self.scripts
        )

    def rescript(self, scripts: dict[int, list[float]]) -> None:
        """New scripted decisions for the seats in ``scripts``, from their first value (a later
        turn of the scene)."""
        self.c = tables.with_script(self.c, scripts)
        for p, values in scripts.items():
            self.scripts[p] = list(values)
            self.st.pl[p, PL_SCRIPT] = 0

    def check(self) -> None:
        st = self.st
        assert st.board[G_SCRIPT_BAD] == 0, "a scripted choice was not legal"
        for p, values in self.scripts.items():
            used = int(st.pl[p, PL_SCRIPT])
            assert used == len(values), f"seat {p} used {used} of its {len(values)} values"
        check_places(self.c, st)


def check_places(c: Compiled, st: state.State) -> None:
    """Every card and feather in one place (state.places) and the seats' counts of what they hold
    (PL_HELD by item, PL_CARDS) are the cards they own."""
    n_cards = int(c.tb.params[tables.P_DECK_N])
    n_feathers = int(c.tb.params[tables.P_FEATHERS])
    cp, cc, cr, fp, fh, fr = state.places(st)
    assert cp + cc + cr == n_cards, state.places(st)
    assert fp + fh + fr == n_feathers, state.places(st)
    on = st.pile.cst[:, ph.CS_ON] == 1
    owner = st.cc[:, CC_OWNER]
    assert ((owner == OWN_PILE) == on).all(), "a card in the pile is owned, or one out of it not"
    assert (st.pile.att[:n_cards] == on).all()
    assert (st.pile.att[n_cards:] == (st.pile.fst[:, ph.FS_ON] == 1)).all()
    for p in range(int(st.board[G_N])):
        mine = [k for k in range(n_cards) if owner[k] == p]
        assert st.pl[p, PL_CARDS] == len(mine)
        held = np.zeros(NI, np.int64)
        for k in mine:
            held[state.counts_as(st, k)] += 1
        assert (st.pl[p, PL_HELD : PL_HELD + NI] == held).all(), (p, held)
        assert st.pl[p, PL_FEATHERS] >= 0


def build(
    c: Compiled,
    cards: dict[int, Card] | None = None,
    feathers: dict[int, Feather] | None = None,
    held: dict[int, dict[int, Held]] | None = None,
    seat_feathers: dict[int, int] | None = None,
    birds: dict[int, str] | None = None,
    open_nests: tuple[int, ...] = (),
    scripts: dict[int, list[float]] | None = None,
    turn: int = TURN,
    feathered_covers: bool = False,
) -> Scene:
    """A scene (see the module docstring). ``cards``/``feathers``: row -> piece in the pile;
    ``held``: seat -> {row: Held}; ``seat_feathers``: feathers each seat holds; ``birds``: seat ->
    bird name (default ``SCENE_BIRDS``); ``open_nests``: seats whose nest gets no cover (the scene
    may lay its own cards on it); ``feathered_covers``: a feather on each nest's upper cover card
    too (so that every card of the pile can have a feather on it)."""
    cards = cards or {}
    feathers = feathers or {}
    held = held or {}
    seat_feathers = seat_feathers or {}
    scripts = {p: list(v) for p, v in (scripts or {}).items()}
    cs = tables.with_script(c, scripts) if scripts else c
    tb = cs.tb
    st = state.alloc_state(tb, LOG_CAP)
    work = state.alloc_work(tb)
    ib = work.ib
    assert engine.setup(tb, st, np.int64(SEED), np.int64(0), ib)
    n = int(st.board[G_N])
    pile = st.pile
    nc = pile.cards.shape[0]
    nf = pile.feathers.shape[0]
    # an empty pile
    pile.cst[:, :] = 0
    pile.fst[:, :] = 0
    pile.cards[:, :] = 0.0
    pile.feathers[:, :] = 0.0
    for k in range(nc):
        ph.set_angle(pile.cards, k, 0.0)
    st.item[:, :] = BLANK
    st.item[:, 0] = tables.KEY
    st.cc[:, CC_OWNER] = OWN_REMOVED
    st.cc[:, CC_TAKEN_FACE] = 0
    st.cc[:, CC_USED] = 0
    st.cc[:, CC_TURN] = -1
    st.pl[:, :] = 0
    st.board[G_TURN] = turn
    st.board[G_FIRST] = 0
    st.board[G_FIRST_NEST] = 0
    names = list(c.bird_names)
    scene_birds = birds or {p: SCENE_BIRDS[p] for p in range(n)}
    for p in range(n):
        st.pl[p, PL_BIRD] = names.index(scene_birds[p])
    for k, cd in cards.items():
        lay_card(st, k, cd)
    for f, fe in feathers.items():
        pile.feathers[f, ph.FT_X] = fe.x
        pile.feathers[f, ph.FT_Y] = fe.y
        pile.feathers[f, ph.FT_H] = fe.h
        pile.fst[f, ph.FS_ON] = 1
    for p, mine in held.items():
        for k, hd in mine.items():
            assert k not in cards, f"card {k} is both in the pile and held"
            st.item[k, 0] = hd.front
            st.item[k, 1] = hd.back
            st.cc[k, CC_OWNER] = p
            st.cc[k, CC_TAKEN_FACE] = hd.face
            st.cc[k, CC_TURN] = hd.turn
            st.cc[k, CC_USED] = hd.used
            st.pl[p, PL_HELD + state.counts_as(st, k)] += 1
            st.pl[p, PL_CARDS] += 1
    # two overlapping cards on each seat's nest, unless it is open
    covers: dict[int, tuple[int, int]] = {}
    used_f: set[int] = set()
    free = [k for k in range(nc - 1, -1, -1) if k not in cards and not _held(held, k)]
    centres = ph.nest_centres(tb.physics)
    for p in range(n):
        if p in open_nests:
            continue
        nest = int(tb.params[tables.P_BIRD_NEST + st.pl[p, PL_BIRD]])
        x, y = centres[nest]
        out = 8.0 if x > 0 else -8.0
        a, b = free.pop(0), free.pop(0)
        lay_card(st, a, Card(x, y, 1.0, tables.KEY, tables.BUTTON))
        lay_card(st, b, Card(x + out, y, 2.0, tables.KEY, tables.BUTTON))
        covers[p] = (a, b)
        if feathered_covers:
            f = next(k for k in range(nf - 1, -1, -1) if k not in feathers and k not in used_f)
            used_f.add(f)
            pile.feathers[f, ph.FT_X] = x + out
            pile.feathers[f, ph.FT_Y] = y
            pile.feathers[f, ph.FT_H] = 3.0
            pile.fst[f, ph.FS_ON] = 1
    in_pile = int(pile.fst[:, ph.FS_ON].sum())
    for p, k in seat_feathers.items():
        st.pl[p, PL_FEATHERS] = k
    st.board[G_F_REMOVED] = nf - in_pile - sum(seat_feathers.values())
    assert st.board[G_F_REMOVED] >= 0, "more feathers than the game has"
    ph.rebuild(tb.physics, pile)
    engine.check_nests(tb, st)  # the open nests' birds were revealed before the scene
    for p in range(n):
        if p not in open_nests:
            assert st.pl[p, PL_REVEALED] == 0
    # the nest covers touch nothing of the scene
    cover_rows = {k for ab in covers.values() for k in ab} | {nc + f for f in used_f}
    m = pile.att.shape[0]
    for k in cover_rows:
        for j in range(m):
            if pile.ov[k, j] == 1:
                assert j in cover_rows, f"the nest cover {k} touches piece {j} of the scene"
    st.board[G_LOG_N] = 0
    return Scene(cs, st, ib, work, scripts, covers)


def _held(held: dict[int, dict[int, Held]], k: int) -> bool:
    return any(k in mine for mine in held.values())


def lay_card(st: state.State, k: int, cd: Card) -> None:
    pile = st.pile
    pile.cards[k, ph.CD_X] = cd.x
    pile.cards[k, ph.CD_Y] = cd.y
    pile.cards[k, ph.CD_H] = cd.h
    ph.set_angle(pile.cards, k, cd.a)
    pile.cst[k, ph.CS_ON] = 1
    pile.cst[k, ph.CS_FACE] = cd.face
    st.item[k, 0] = cd.front
    st.item[k, 1] = cd.back
    st.cc[k, CC_OWNER] = OWN_PILE
    st.cc[k, CC_TURN] = -1


def bird_id(c: Compiled, name: str) -> int:
    return list(c.bird_names).index(name)


def clone(st: state.State) -> state.State:
    """A copy of ``st`` sharing no array with it."""
    return state.State(physics.Pile(*(a.copy() for a in st.pile)), *(a.copy() for a in st[1:]))
