"""Five Ravens invariants under hypothesis: random seeds, player counts, seat mixes and rule tweaks.

After every round (the test drives ``engine.setup`` + ``engine.play_round`` itself) every card is
in exactly one place, the seat caches agree with the piles, and a replay of the round's event log
finds only legal turns and effects (FR-4..FR-12) and ends in the state the engine reached. After
the game the score equals an independent FR-13 recount written here, and the ranks follow FR-14.

Determinism: the batch kernel plays the single-game kernel's games, and a game's cards do not
depend on the seats' policies (ENGINE-14).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from balance.config import config_from_dict, load_config
from balance.config.loading import load_yaml
from balance.games.five_ravens import PLUGIN, engine
from balance.games.five_ravens.state import (
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
    G_LOG_N,
    PL_GEMS,
    PL_RESCUE_OK,
    clone_state,
    new_state,
    recount,
    alloc_work,
)
from balance.games.five_ravens.tables import compile_tables
from balance.games.position import Position

from .helpers import (
    CONFIGS,
    all_relics,
    centre,
    config,
    events,
    log,
    moves_buffer,
    pile_cards,
    play_one,
    relic_deck,
    relic_name,
)

PILE_NAMES = ("deck", "hand", "discard", "captured")
RAVEN_NAMES = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
SEVEN, SIX, TWO = 6, 5, 1  # card ids of the 7, 6 and 2


# ---------------------------------------------------------------- configs


@st.composite
def games(draw):
    """(config, seed, first game index): 2-4 players, random/greedy seats, rule variations."""
    players = draw(st.integers(2, 4))
    seats = draw(
        st.lists(st.sampled_from(["random", "greedy"]), min_size=players, max_size=players)
    )
    relics = {
        f"chest_{v}": {"kind": "chest", "count": draw(st.integers(0, 2)), "value": v}
        for v in (1, 3, 5)
    }
    relics["gem"] = {"kind": "gem", "count": draw(st.integers(0, 6))}
    relics["hollow"] = {"kind": "hollow", "count": draw(st.integers(0, 5))}
    for cursed in ("skull", "mask"):
        relics[cursed] = {"kind": "cursed", "count": draw(st.integers(0, 4))}
    relics["idol"] = {"kind": "cursed", "count": draw(st.integers(1, 4))}
    n_relics = sum(r["count"] for r in relics.values())
    switches = {
        name: {"action": draw(st.booleans()), "capture": draw(st.booleans())}
        for name in draw(st.lists(st.sampled_from(RAVEN_NAMES), max_size=3, unique=True))
    }
    rules = {
        "rounds": draw(st.integers(1, 6)),
        "hand_size": draw(st.integers(1, 7)),
        "relics": relics,
        "removed_relics": {2: draw(st.integers(0, n_relics - 1))},
        "thief_relics": draw(st.lists(st.sampled_from(sorted(relics)), max_size=2, unique=True)),
        "ravens": switches,
        "scoring": {
            "gem_table": draw(st.lists(st.integers(0, 20), min_size=1, max_size=6)),
            "six_max_chest": draw(st.integers(0, 5)),
            "four_threshold": draw(st.integers(0, 4)),
        },
    }
    data, _ = load_yaml(CONFIGS / "base.yaml")
    data = {**data, "players": players, "seats": seats, "rules": {**data["rules"], **rules}}
    cfg = config_from_dict(data, "hypothesis")
    return cfg, draw(st.integers(0, 2**63 - 1)), draw(st.integers(0, 10**6))


# ---------------------------------------------------------------- card conservation


def check_conservation(c, st_, removed):
    """Every seat holds exactly its nine Ravens; every relic is in exactly one place."""
    P = st_.pl.shape[0]
    where = Counter()
    for p in range(P):
        ravens = []
        for name in PILE_NAMES:
            for x in pile_cards(st_, p, name):
                if x < 9:
                    ravens.append(x)
                else:
                    where[x] += 1
        assert sorted(ravens) == list(range(9)), (p, ravens)
    for x in relic_deck(st_):
        where[x] += 1
    for x, _, _ in centre(st_):
        if x >= 0:
            where[x] += 1
    for x in removed:
        where[x] += 1
    assert sorted(where.elements()) == all_relics(c)


def check_caches(c, st_, skip=()):
    """The seat's cached counts (gems, captured cards, Ravens in hand, relic points) are what the
    piles say. PL_RESCUE_OK is not a count but a flag that State.fv's rescue value is current:
    recount() clears it (the value is worked out again), so it is left out, as are the columns
    of ``skip``."""
    fresh = clone_state(st_)
    recount(c.tb, fresh)
    for col in (PL_RESCUE_OK, *skip):
        fresh.pl[:, col] = st_.pl[:, col]
    assert np.array_equal(fresh.pl, st_.pl)


@settings(max_examples=12, deadline=None)
@given(case=games())
def test_cached_counts_follow_the_piles_at_every_decision(case):
    """The seat rows' caches (PL_NRAV the Ravens in hand, PL_PTS its relics' points by their
    counts, PL_GEMS, the captured counts and mask) are what a recount from the piles gives at
    every decision of a game, hands full or not, and in the acting seat's re-deal of the position
    (knowledge.determinize re-deals the hands it cannot see). PL_GEMS, the gems the seat owns,
    also counts a gem in no pile for a while (set aside by the 4, ENGINE-12, or played as a
    thief until it is captured, FR-7), which recount() does not see: it is compared at round
    ends (test_every_round_conserves_cards_and_replays_legally)."""
    cfg, seed, game = case
    c = compile_tables(cfg)
    pos = Position(PLUGIN, c, seed, game)
    k = 0
    while not pos.done:
        check_caches(c, pos.state, skip=(PL_GEMS,))
        if k % 7 == 0:
            check_caches(c, pos.determinize(pos.actor, k).state, skip=(PL_GEMS,))
        pos.play_policy()
        k += 1
    check_caches(c, pos.state)


# ---------------------------------------------------------------- replay of one round's log


class Action:
    """A Raven action being resolved: what its seat could do when it began and what it did."""

    def __init__(self, p, card, pre):
        self.p, self.card, self.pre = p, card, pre
        self.borrowed = None  # the captured Raven whose action a 2 resolves
        self.effects = Counter()  # event code -> count, while the action resolves
        self.set_aside = 0


# events that can only happen inside a Raven's action
ACTION_EFFECTS = (
    E_DISCARD, E_TOP, E_SEVEN, E_FLIP, E_SHUFFLE_CENTRE, E_CAPTURE5, E_SET_ASIDE, E_EXAMINE,
    E_REPLACE,
)  # fmt: skip


class Round:
    """Replays one round's log against a model of what the rules allow (FR-4..FR-12), starting
    from the state before ``play_round``; ``replay`` ends by comparing the model with the state
    the engine reached."""

    def __init__(self, c, cfg, st_):
        self.c, self.rules, self.P = c, cfg.rules, cfg.players
        self.deck = relic_deck(st_)  # bottom first
        self.capt = [Counter(pile_cards(st_, p, "captured")) for p in range(self.P)]
        self.first = int(st_.board[G_FIRST])
        self.n_deck = [len(pile_cards(st_, p, "deck")) for p in range(self.P)]
        self.n_disc = [len(pile_cards(st_, p, "discard")) for p in range(self.P)]
        self.drawable = [self.n_deck[p] + self.n_disc[p] for p in range(self.P)]
        self.relics_at_start = len(self.deck)
        self.hand = [[] for _ in range(self.P)]
        self.slot = [-1] * self.P  # card in each centre slot, -1 empty (the log names them all)
        self.face = [0] * self.P
        self.lock = [0] * self.P
        self.used3 = [False] * self.P
        self.used1 = [False] * self.P
        self.nothief = set()
        self.prelude_draws = Counter()
        self.dealt = []  # face up flags in dealing order
        self.act = None  # the Action resolving now
        self.expect_rescue = None  # (seat, must rescue) right after a 7 is captured
        self.turns = []  # ("turn" | "thief" | "done", seat) in mission order
        self.thieves = {}
        self.captured_thieves = {}
        self.steals = []  # (seat, thief) in steal order

    # ---------------------------------------------------------------- what the model knows

    def kind(self, x):
        return self.rules.relics[relic_name(self.c, x)].kind

    def switch(self, card):
        return getattr(self.rules.ravens, RAVEN_NAMES[card])

    def ravens(self, p):
        return sum(1 for x in self.hand[p] if x < 9)

    def centre_cards(self):
        return {x for x in self.slot if x >= 0}

    def slots(self, face=None):
        """Unlocked centre slots holding a relic (face up / face down / any)."""
        return [
            s
            for s in range(self.P)
            if self.slot[s] >= 0 and not self.lock[s] and (face is None or self.face[s] == face)
        ]

    def preconditions(self, p):
        return {
            "drawable": self.n_deck[p] + self.n_disc[p],
            "relics": len(self.deck),
            "flippable": bool(self.slots()),
            "examinable": bool(self.slots(face=0)),
            "replaceable": bool(self.slots(face=1)),
            # FR-6: the last Raven in hand may not be captured (ENGINE-3)
            "capturable": self.n_disc[p] > 0
            or any(x >= 9 for x in self.hand[p])
            or self.ravens(p) >= 2,
            # a 2 need not borrow a captured Raven whose action is switched off: it would do
            # nothing (ENGINE-6)
            "borrowable": any(
                x < 9 and x != TWO and n and self.switch(x).action for x, n in self.capt[p].items()
            ),
        }

    def any_legal_turn(self, p):
        """FR-5: a Raven action, a captured 3 or 1 action, or a thief."""
        thief = p not in self.nothief and any(
            x < 9 or relic_name(self.c, x) in self.rules.thief_relics for x in self.hand[p]
        )
        capt3 = self.rules.ravens.three.capture and self.capt[p][2] and not self.used3[p]
        capt1 = self.rules.ravens.one.capture and self.capt[p][0] and not self.used1[p]
        return thief or self.ravens(p) >= 2 or capt3 or (capt1 and bool(self.slots()))

    def leave_hand(self, p, x, why):
        """``x`` leaves the hand by an effect: FR-6 keeps the last Raven."""
        assert not (x < 9 and self.ravens(p) == 1), f"FR-6: {why} took the last Raven"
        self.hand[p].remove(x)

    # ---------------------------------------------------------------- the replay

    def replay(self, rows, st_):
        rows = list(rows)
        assert rows[0][0] == E_ROUND and rows[0][2] == self.first
        prelude = True
        for i, (code, *a) in enumerate(rows[1:], start=1):
            if prelude and code not in (E_DEAL, E_DRAW, E_SHUFFLE, E_NOTHIEF):
                prelude = False
                self.end_prelude()
            if self.expect_rescue is not None:
                p, must = self.expect_rescue
                self.expect_rescue = None
                rescued = code == E_RESCUE and a[0] == p
                assert rescued == must, "FR-11: a captured 7 rescues one other card, if any"
            opens_turn = code in (E_CAPT3, E_LOCK, E_THIEF, E_DONE, E_STEAL, E_EPILOGUE)
            if self.act is not None and (opens_turn or (code == E_ACTION and not a[2])):
                self.close_action()
            if code in ACTION_EFFECTS:
                assert self.act is not None and self.act.p == a[0], (
                    f"event {code} outside an action"
                )
                self.act.effects[code] += 1
            getattr(self, f"on_{code}", self.unknown)(code, a, rows, i)
        assert self.act is None and self.expect_rescue is None
        self.check_turn_order()
        self.check_steal_order()
        assert self.captured_thieves == self.thieves, "FR-11: every revealed thief is captured"
        assert self.deck == relic_deck(st_), "replayed relic deck"
        for p in range(self.P):
            assert self.capt[p] == Counter(pile_cards(st_, p, "captured")), "replayed captures"
            assert self.n_deck[p] == len(pile_cards(st_, p, "deck")), "replayed deck size"
            assert self.n_disc[p] == len(pile_cards(st_, p, "discard")), "replayed discard size"

    def unknown(self, code, a, rows, i):
        raise AssertionError(f"unexpected event {code} {a}")

    # ---------------------------------------------------------------- prelude (FR-4, FR-7)

    def end_prelude(self):
        dealt = min(self.P, self.relics_at_start)
        assert self.dealt == [1] * (dealt - 1) + [0] * (dealt > 0), "FR-4: the last is face down"
        for p in range(self.P):
            assert self.prelude_draws[p] == min(self.rules.hand_size, self.drawable[p]), "FR-4"
        # FR-7: exactly the seats without a Raven are flagged
        assert self.nothief == {p for p in range(self.P) if self.ravens(p) == 0}

    def on_deal(self, code, a, rows, i):
        slot, x, face, lock = a[:4]
        assert slot == len(self.dealt)
        assert x == self.deck.pop(), "FR-4: dealt from the top"
        self.dealt.append(face)
        self.slot[slot], self.face[slot], self.lock[slot] = x, face, lock
        assert lock == (face and self.kind(x) == "cursed"), "FR-4: face-up cursed locks"

    def on_draw(self, code, a, rows, i):
        p, x = a[:2]
        assert self.n_deck[p] > 0
        self.n_deck[p] -= 1
        self.hand[p].append(x)
        if self.act is not None:
            self.act.effects[E_DRAW] += 1
        else:
            self.prelude_draws[p] += 1

    def on_shuffle(self, code, a, rows, i):
        p, n = a[:2]
        assert self.n_deck[p] == 0 and n == self.n_disc[p] > 0, "FR-4: shuffle an empty deck"
        self.n_deck[p], self.n_disc[p] = n, 0

    def on_nothief(self, code, a, rows, i):
        self.nothief.add(a[0])

    # ---------------------------------------------------------------- mission (FR-5, FR-6, FR-8)

    def on_action(self, code, a, rows, i):
        p, x, borrowed = a[:3]
        if borrowed:
            act = self.act
            assert act is not None and act.card == TWO and act.borrowed is None
            assert x < 9 and x != TWO and self.capt[p][x], "FR-8: the 2 borrows a captured Raven"
            act.borrowed = x
            return
        self.turns.append(("turn", p))
        assert x < 9 and x in self.hand[p], "actions come from the hand"
        assert self.ravens(p) >= 2, "FR-6: the last Raven played for its action"
        self.hand[p].remove(x)  # in no pile while it resolves
        self.act = Action(p, x, self.preconditions(p))

    def close_action(self):
        """Check what the action did against what it had to do ("as much as you are able",
        ENGINE-5)."""
        act, self.act = self.act, None
        p, pre, done = act.p, act.pre, act.effects
        rank = act.card
        if rank == TWO and self.switch(TWO).action:
            if act.borrowed is None:
                assert not pre["borrowable"], "FR-8: the 2 must borrow if able"
            rank = act.borrowed
        if rank is None or rank == TWO or not self.switch(rank).action:
            assert not done, "a switched-off action does nothing"
        else:
            self.check_effect(rank + 1, pre, done, act)
        self.n_disc[p] += 1  # the played Raven, after its action (rulebook, Eight)

    def check_effect(self, r, pre, done, act):
        allowed = {
            9: {E_DRAW, E_DISCARD},
            8: {E_TOP},
            7: {E_SEVEN},
            6: {E_FLIP, E_SHUFFLE_CENTRE},
            5: {E_CAPTURE5},
            4: {E_SET_ASIDE, E_DRAW, E_DISCARD},
            3: {E_EXAMINE},
            1: {E_REPLACE},
        }[r]
        assert set(done) <= allowed, (r, done)
        if r == 9:
            assert done[E_DRAW] == min(2, pre["drawable"]), "FR-8: the 9 draws 2"
            hand = self.hand[act.p]
            if not done[E_DISCARD]:
                assert self.ravens(act.p) == len(hand) <= 1, "FR-8: the 9 discards 1 if able"
            assert done[E_DISCARD] <= 1
        elif r == 7:
            assert done[E_SEVEN] == (pre["relics"] > 0), "FR-8: the 7 looks at the top relic"
        elif r == 6:
            assert done[E_FLIP] == pre["flippable"], "FR-8: the 6 flips one if able"
            assert done[E_SHUFFLE_CENTRE] <= 1
        elif r == 5:
            assert done[E_CAPTURE5] == pre["capturable"], "FR-8: the 5 captures one if able"
        elif r == 4:
            assert done[E_SET_ASIDE] == 1
            assert done[E_DRAW] == min(act.set_aside, pre["drawable"]), "FR-8: the 4 draws as many"
            assert done[E_DISCARD] == act.set_aside
        elif r == 3:
            assert done[E_EXAMINE] == pre["examinable"], "FR-8: the 3 examines one if able"
        elif r == 1:
            assert done[E_REPLACE] == pre["replaceable"], "FR-8: the 1 replaces one if able"

    def on_discard(self, code, a, rows, i):
        p, x = a[:2]
        self.n_disc[p] += 1
        if self.act.set_aside:
            return  # the 4's set-aside cards, already out of the hand
        self.leave_hand(p, x, "the 9's discard")

    def on_set_aside(self, code, a, rows, i):
        p, n = a[:2]
        later = [r[2] for r in rows[i + 1 :] if r[0] == E_DISCARD and r[1] == p][:n]
        assert len(later) == n
        for x in later:
            self.hand[p].remove(x)
        assert self.ravens(p) >= 1, "FR-6: the 4 set aside the last Raven"
        self.act.set_aside = n

    def on_top(self, code, a, rows, i):
        p, x = a[:2]
        if x in self.hand[p]:
            self.leave_hand(p, x, "the 8")
        else:
            assert self.n_disc[p] > 0
            self.n_disc[p] -= 1
        self.n_deck[p] += 1

    def on_capture5(self, code, a, rows, i):
        p, x = a[:2]
        if x in self.hand[p]:
            self.leave_hand(p, x, "the 5")
        else:
            assert self.n_disc[p] > 0
            self.n_disc[p] -= 1
        self.capt[p][x] += 1
        if x == SEVEN and self.switch(SEVEN).capture:  # FR-8: it rescues at once
            self.expect_rescue = (p, sum(self.capt[p].values()) > 1)

    def on_seven(self, code, a, rows, i):
        _, x, slot, y = a[:4]
        assert x == self.deck.pop(), "FR-8: the 7 looks at the top relic"
        if slot < 0:
            self.deck.insert(0, x)
            return
        assert not self.face[slot] and not self.lock[slot], "FR-8: swap an unlocked face-down"
        assert self.slot[slot] == y >= 0
        self.slot[slot] = x
        self.deck.insert(0, y)

    def on_flip(self, code, a, rows, i):
        _, slot, x, face = a[:4]
        assert not self.lock[slot], "FR-8: locked relics cannot be flipped"
        assert self.slot[slot] == x >= 0
        assert face == 1 - self.face[slot]
        self.face[slot] = face
        self.lock[slot] = int(face and self.kind(x) == "cursed")  # FR-4

    def on_shuffle_centre(self, code, a, rows, i):
        after = a[2:6]
        moved = self.slots(face=0)
        assert len(moved) == a[1] >= 2
        assert sorted(after[s] for s in moved) == sorted(self.slot[s] for s in moved)
        for s in range(self.P):
            if s not in moved:
                assert after[s] == self.slot[s], "FR-8: only unlocked face-down relics move"
            self.slot[s] = after[s]

    def on_examine(self, code, a, rows, i):
        _, slot, x = a[:3]
        assert not self.face[slot] and not self.lock[slot], "FR-8: examine unlocked face-down"
        assert self.slot[slot] == x >= 0

    def on_replace(self, code, a, rows, i):
        _, slot, old, new, lock = a[:5]
        assert self.face[slot] and not self.lock[slot], "FR-8: replace an unlocked face-up"
        assert self.slot[slot] == old >= 0
        self.deck.insert(0, old)
        assert new == self.deck.pop()
        self.slot[slot] = new
        self.lock[slot] = int(self.kind(new) == "cursed")  # FR-4
        assert lock == self.lock[slot]

    def on_capt3(self, code, a, rows, i):
        p, bottom, x = a[:3]
        self.turns.append(("turn", p))
        assert self.rules.ravens.three.capture and self.capt[p][2], "needs a captured 3"
        assert not self.used3[p], "FR-8: captured 3 once a round"
        self.used3[p] = True
        assert x == ((self.deck[0] if bottom else self.deck[-1]) if self.deck else -1)

    def on_lock(self, code, a, rows, i):
        p, slot, x = a[:3]
        self.turns.append(("turn", p))
        assert self.rules.ravens.one.capture and self.capt[p][0], "needs a captured 1"
        assert not self.used1[p], "FR-8: captured 1 once a round"
        assert not self.lock[slot] and self.slot[slot] == x >= 0
        self.used1[p] = True
        self.lock[slot] = 1

    def on_thief(self, code, a, rows, i):
        p, x = a[:2]
        self.turns.append(("thief", p))
        assert p not in self.nothief, "FR-7: no thief without a Raven after the Prelude"
        assert x in self.hand[p]
        assert x < 9 or relic_name(self.c, x) in self.rules.thief_relics, "FR-7: thief card"
        self.hand[p].remove(x)
        self.thieves[p] = x

    def on_done(self, code, a, rows, i):
        p = a[0]
        self.turns.append(("done", p))
        assert not self.any_legal_turn(p), "FR-5: done while a turn was legal"

    # ---------------------------------------------------------------- theft (FR-9..FR-11)

    def on_steal(self, code, a, rows, i):
        p, thief, x, slot, where = a[:5]
        self.steals.append((p, thief))
        assert thief == self.thieves.get(p, -1)
        if slot >= 0:
            assert self.slot[slot] == x >= 0
            self.slot[slot] = -1
        else:
            assert self.rules.ravens.two.capture and self.capt[p][TWO], "FR-9: bottom needs a 2"
            assert x == self.deck.pop(0), "FR-9: the bottom relic"
        relic = self.rules.relics[relic_name(self.c, x)]
        sc = self.rules.scoring
        if thief == 4 and self.switch(4).capture:
            assert where == 1, "FR-10: stolen with the 5, captured"
        elif thief == SIX and self.switch(SIX).capture and relic.kind == "chest":
            assert where == 2 * (relic.value <= sc.six_max_chest), "FR-10: the 6's chest"
        else:
            assert where == 0, "FR-10: to the discard"
        if where:
            self.capt[p][x] += 1
        else:
            self.n_disc[p] += 1

    def on_captured(self, code, a, rows, i):
        p, x = a[:2]
        assert p not in self.captured_thieves
        self.captured_thieves[p] = x
        self.capt[p][x] += 1
        if x == SEVEN and self.switch(SEVEN).capture:
            self.expect_rescue = (p, sum(self.capt[p].values()) > 1)

    def on_rescue(self, code, a, rows, i):
        p, x = a[:2]
        assert self.capt[p][x], "FR-11: rescue a captured card"
        assert x != SEVEN, "FR-11: the 7 rescues another card"
        self.capt[p][x] -= 1
        self.n_deck[p] += 1  # to the top of the deck

    def on_unclaimed(self, code, a, rows, i):
        slot, x = a[:2]
        assert self.slot[slot] == x >= 0
        self.slot[slot] = -1
        self.deck.insert(0, x)

    def on_epilogue(self, code, a, rows, i):
        assert not self.centre_cards(), "FR-9: every centre relic is stolen or goes under"
        last = self.steals[-1][0] if self.steals else self.first
        assert a[1] == last, "FR-12: the last stealer becomes first player"
        for p in range(self.P):  # FR-12: unplayed hand cards are discarded
            self.n_disc[p] += len(self.hand[p])
            self.hand[p] = []

    def check_turn_order(self):
        """FR-5: turns clockwise from the first player; thieves and done seats are skipped."""
        active = set(range(self.P))
        it = iter(self.turns)
        while active:
            for k in range(self.P):
                p = (self.first + k) % self.P
                if p in active:
                    kind, q = next(it)
                    assert q == p, ("FR-5: turn order", self.first, self.turns)
                    if kind != "turn":
                        active.discard(p)
        assert next(it, None) is None

    def check_steal_order(self):
        """FR-9: by rank high to low, ties clockwise from the first player, thief-less last."""

        def rank(t):
            return -1 if t < 0 else (t + 1 if t < 9 else 0)

        keys = [(-rank(t), (p - self.first) % self.P) for p, t in self.steals]
        assert keys == sorted(keys), ("FR-9: steal order", self.first, self.steals)
        thiefless = {p for p, t in self.steals if t < 0}
        assert thiefless <= self.nothief


for _code, _name in {
    E_DEAL: "deal", E_DRAW: "draw", E_SHUFFLE: "shuffle", E_NOTHIEF: "nothief",
    E_ACTION: "action", E_DISCARD: "discard", E_SET_ASIDE: "set_aside", E_TOP: "top",
    E_CAPTURE5: "capture5", E_SEVEN: "seven", E_FLIP: "flip", E_SHUFFLE_CENTRE: "shuffle_centre",
    E_EXAMINE: "examine", E_REPLACE: "replace", E_CAPT3: "capt3", E_LOCK: "lock",
    E_THIEF: "thief", E_DONE: "done", E_STEAL: "steal", E_CAPTURED: "captured",
    E_RESCUE: "rescue", E_UNCLAIMED: "unclaimed", E_EPILOGUE: "epilogue",
}.items():  # fmt: skip
    setattr(Round, f"on_{_code}", getattr(Round, f"on_{_name}"))


@settings(max_examples=30, deadline=None)
@given(case=games())
def test_every_round_conserves_cards_and_replays_legally(case):
    """Every action resolves as much as it is able (ENGINE-5): cards are conserved and every logged
    step is legal."""
    cfg, seed, game0 = case
    c = compile_tables(cfg)
    tb = c.tb
    P = cfg.players
    for game in (game0, game0 + 1):
        st_ = new_state(tb, log_cap=4000)
        moves = moves_buffer(c)
        order = np.zeros(P, np.int32)
        engine.setup(tb, st_, seed, game)
        removed = [x for (x,) in events(st_, E_REMOVED)]
        assert len(removed) == (min(cfg.rules.removed_relics.get(P, 0), len(all_relics(c))))
        check_conservation(c, st_, removed)
        for _ in range(cfg.rules.rounds):
            model = Round(c, cfg, st_)
            n0 = int(st_.board[G_LOG_N])
            engine.play_round(tb, st_, alloc_work(tb))
            assert st_.board[G_LOG_N] < 4000
            check_conservation(c, st_, removed)
            check_caches(c, st_)
            model.replay(log(st_)[n0:], st_)
            assert all(pile_cards(st_, p, "hand") == [] for p in range(P))  # FR-12
        # FR-1: the game is over after exactly `rounds` rounds
        assert len(events(st_, E_ROUND)) == len(events(st_, E_EPILOGUE)) == cfg.rules.rounds


# ---------------------------------------------------------------- scoring recount (FR-13, FR-14)


def recount_score(c, cfg, st_, p):
    """FR-13 from the final piles; the 6's doubled chest (FR-10, FR-11) from the event log."""
    sc, sw = cfg.rules.scoring, cfg.rules.ravens
    doubled = None
    for code, *a in log(st_):
        if code == E_STEAL and a[0] == p:
            thief, x = a[1], a[2]
            relic = cfg.rules.relics[relic_name(c, x)]
            six = thief == SIX and sw.six.capture
            if six and relic.kind == "chest" and relic.value <= sc.six_max_chest:
                doubled = x
        elif code == E_RESCUE and a[0] == p and a[1] in (SIX, doubled):
            doubled = None
    captured = pile_cards(st_, p, "captured")
    owned = [(x, False) for name in PILE_NAMES[:3] for x in pile_cards(st_, p, name)]
    owned += [(x, True) for x in captured]
    points, gems, cursed = 0, 0, Counter()
    for x, is_captured in owned:
        if x < 9:
            continue
        name = relic_name(c, x)
        relic = cfg.rules.relics[name]
        if relic.kind == "chest":
            both = is_captured and x == doubled and SIX in captured
            points += relic.value * (sc.six_multiplier if both else 1)
        elif relic.kind == "gem":
            gems += 1
        elif relic.kind == "hollow":
            points += sc.hollow_captured if is_captured else sc.hollow
        elif is_captured:
            cursed[name] += 1
    if gems:
        points += sc.gem_table[min(gems, len(sc.gem_table)) - 1]
    points += sc.cursed_set_bonus * sum(n >= sc.cursed_set_size for n in cursed.values())
    if sw.four.capture and 3 in captured and sum(x >= 9 for x in captured) >= sc.four_threshold:
        points += sc.four_bonus
    if sw.eight.capture and 7 in captured:
        points -= sc.eight_penalty
    if sw.nine.capture and 8 in captured:
        points -= sc.nine_penalty
    return points


@settings(max_examples=30, deadline=None)
@given(case=games())
def test_final_score_equals_an_independent_recount(case):
    cfg, seed, game0 = case
    c = compile_tables(cfg)
    P = cfg.players
    for game in range(game0, game0 + 3):
        st_, score, rank = play_one(c, seed, game, log_cap=4000)
        assert score == [recount_score(c, cfg, st_, p) for p in range(P)]
        assert [e[0] for e in events(st_, E_SCORE)] == list(range(P))
        capt = [len(pile_cards(st_, p, "captured")) for p in range(P)]
        for p in range(P):  # FR-14
            better = sum(
                score[q] > score[p] or (score[q] == score[p] and capt[q] < capt[p])
                for q in range(P)
            )
            assert rank[p] == 1 + better
        assert len(events(st_, E_ROUND)) == cfg.rules.rounds


@settings(max_examples=10, deadline=None)
@given(case=games())
def test_play_game_is_setup_then_rounds(case):
    """play_game is exactly setup + `rounds` x play_round + scoring (so the per-round invariants
    above hold for the games the batch kernel plays)."""
    cfg, seed, game = case
    c = compile_tables(cfg)
    st_, _, _ = play_one(c, seed, game, log_cap=4000)
    mine = new_state(c.tb, log_cap=4000)
    engine.setup(c.tb, mine, seed, game)
    for _ in range(cfg.rules.rounds):
        engine.play_round(c.tb, mine, alloc_work(c.tb))
    rows = log(st_)
    assert rows[: len(log(mine))] == log(mine)
    assert [r[0] for r in rows[len(log(mine)) :]] == [E_SCORE] * cfg.players
    assert np.array_equal(mine.pile, st_.pile)


def test_the_replay_sees_every_kind_of_event():
    """The shipped configs, replayed round by round: every event code the engine logs occurs, so
    the checks above are exercised (and not vacuously true)."""
    seen = Counter()
    for players in (2, 3, 4):
        for seats in (["random"] * players, ["greedy"] * players):
            cfg = config(players, seats)
            c = compile_tables(cfg)
            for game in range(40):
                st_ = new_state(c.tb, log_cap=4000)
                engine.setup(c.tb, st_, 17, game)
                removed = [x for (x,) in events(st_, E_REMOVED)]
                for _ in range(cfg.rules.rounds):
                    model = Round(c, cfg, st_)
                    n0 = int(st_.board[G_LOG_N])
                    engine.play_round(c.tb, st_, alloc_work(c.tb))
                    rows = log(st_)[n0:]
                    model.replay(rows, st_)
                    check_conservation(c, st_, removed)
                    seen.update(r[0] for r in rows)
                    seen.update("bottom steal" for r in rows if r[0] == E_STEAL and r[4] < 0)
    missing = [code for code in range(26) if hasattr(Round, f"on_{code}") and not seen[code]]
    assert missing == [] and seen["bottom steal"] > 0


# ================================================================ determinism
# Row i of the batch kernel's chunk is the single-game kernel's game first_game + i, and its
# turns, opening order, captured counts and telemetry agree with that game's event log.
#
# What holds for every game (same games whatever the chunking or thread count, same seed same
# games, play's input checks, plain-Python kernels, simulate's dataset) is in
# tests/games/test_contract.py.


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
        return c.card_type_name(x if x < 9 else 9 + int(c.tb.cards[0, x - 9]))

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


def test_the_cards_dealt_do_not_depend_on_the_seats_policies():
    """ENGINE-14: setup shuffles the decks and the relic deck and draws the first player from the
    game's own stream: the same game with other policies is dealt the same cards, and the first
    player is uniform over the seats (400 games: each seat 100 expected, sd 8.7)."""
    greedy = compile_tables(config(4))
    mixed = compile_tables(config(4, ["random", "greedy", "random", "random"]))
    firsts = Counter()
    for game in range(400):
        a = new_state(greedy.tb)
        engine.setup(greedy.tb, a, 7, game)
        b = new_state(mixed.tb)
        engine.setup(mixed.tb, b, 7, game)
        assert np.array_equal(a.pile, b.pile) and np.array_equal(a.board, b.board)
        assert np.array_equal(a.rng[0], b.rng[0])
        firsts[int(a.board[G_FIRST])] += 1
    assert sorted(firsts) == [0, 1, 2, 3] and min(firsts.values()) > 60
