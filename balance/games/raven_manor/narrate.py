"""Raven Manor replay: one game of a run, told event by event (``balance replay``).

``play_logged(compiled, seed, game)`` plays game ``game`` of the run seeded with ``seed`` again
with the batch kernel's own per-game function (``engine.play_game``) on a state that keeps an
event log, so the replay is the dataset's game, and ``tell`` turns the log into lines
(``Game.replay``, balance/games/base.py, puts the two together).
It is a designer's view with the hidden information shown: every seat's character and hand, what
each exchange passed, who answered each window, who is possessed and by whom.

Log rows are ``(code, a, b, c, d, e, f, h)`` as ``engine.py`` passes them to ``emit`` (state.E_*
says what each integer is). The log does not hold the opening hands: ``tell`` deals them again
with ``engine.setup`` (the same function ``play_game`` starts with). From them and the events the
narrator keeps a shadow of every hand and Backpack, character, side, stun and the seating ring, to
name the cards of a hand that is shown or swapped and to label each seat with the character it
holds. The cards a Candle, Torch or Abandoned Mine puts into a hand are named by E_PICK events (a
card the log did not name would be shown as ``?``). The narrator is a ``_tell.Narrator``: one
``ev_*`` method per event code (``handlers``); the shadow is checked (``check``) against the hand
size and the side of every turn's event and, in ``finish``, against the final state; a
disagreement is a problem, which the replay prints as a WARNING line (the tests assert there is
none). An unknown event code raises ValueError.

This module tells what resolves: turns, actions and their windows, kills and stuns, draws,
discards and searches, death abilities, the end. The shadow and its words are
``narrate_words.py`` (:class:`~balance.games.raven_manor.narrate_words.Words`, which the narrator
subclasses): card, character and side names, what a card or death ability is used for, the lines,
the events that only change the shadow (seats swapped, hands exchanged, characters, sides,
possession), the final check and each seat's final standing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from balance.games import _kit as kit
from balance.games._tell import Told
from balance.games.raven_manor import engine
from balance.games.raven_manor import policies as pol
from balance.games.raven_manor import state as S
from balance.games.raven_manor import tables as T
from balance.games.raven_manor.narrate_words import (
    END_WORDS,
    SIDE_WORDS,
    WEAPON,
    Words,
    card,
    char,
    is_place,
    plural,
)

LOG_CAP = kit.LOG_CAP


def play_logged(compiled: T.Compiled, seed: int, game: int) -> kit.Logged:
    """Play game ``game`` of run ``seed`` exactly as ``engine.play_batch`` does, keeping the log."""
    from balance.search import SearchTables

    if isinstance(compiled, SearchTables):  # search seats: the game they played (balance/search.py)
        from balance import games
        from balance.search import play_logged as search_logged

        return search_logged(games.get("raven_manor"), compiled, seed, game).logged
    tb = compiled.tb
    n = compiled.players

    def play(cap: int) -> kit.Logged:
        st = S.alloc_state(tb, cap)
        work = S.alloc_work(tb)
        engine.play_game(tb, st, np.int64(seed), np.int64(game), work)
        score = np.zeros(n, np.int32)
        rank = np.zeros(n, np.int32)
        for p in range(n):
            score[p], rank[p] = engine.outcome(st, p)
        trace = kit.one_trace(engine.record_trace, tb, st, work, S.trace_cap(tb), n, S.N_TRACE)
        return kit.Logged(
            S.log_rows(st),
            st,
            score,
            rank,
            int(st.board[S.G_TURN]),
            int(st.board[S.G_END]) - 1,
            trace,
        )

    return kit.play_logged(play, seed, game, LOG_CAP)


def opening_hands(compiled: T.Compiled, seed: int, game: int) -> np.ndarray:
    """Every seat's hand after the opening (int64[players, NC]): the log does not hold it, so
    the game's setup (``engine.setup``, the start of ``play_game``) is played again."""
    st = S.alloc_state(compiled.tb, 0)
    pick = S.alloc_work(compiled.tb).pick
    engine.setup(compiled.tb, st, np.int64(seed), np.int64(game), pick)
    n = compiled.players
    return np.asarray(st.pl[:n, S.PL_HAND : S.PL_HAND + T.NC], np.int64).copy()


def tell(compiled: T.Compiled, logged: kit.Logged, seed: int, game: int) -> Told:
    """The lines of a logged game: a header, the characters, the opening, every turn, the end and
    each seat's final standing; raises ValueError on an event code it does not know."""
    n = _Narrator(compiled, logged, seed, game, opening_hands(compiled, seed, game))
    n.run()
    return n.told()


def event_lines(compiled: T.Compiled, log: np.ndarray, seed: int = 0, game: int = 0) -> list[str]:
    """The lines of the events of ``log`` (rows from the start of game ``game`` of run ``seed``,
    e.g. the log of a game in progress), without the final checks."""
    st = S.alloc_state(compiled.tb, 0)
    logged = kit.Logged(np.asarray(log), st, None, None, 0, -1)
    n = _Narrator(compiled, logged, seed, game, opening_hands(compiled, seed, game))
    for i, raw in enumerate(log):
        n.row = i
        handler = n.handlers.get(int(raw[0]))
        if handler is None:
            raise ValueError(f"event log row {i}: unknown event code {int(raw[0])}")
        handler(tuple(int(x) for x in raw[1:]))
    n.settle_pick(-1, [])
    return n.lines  # no final position: the game may be in progress (render() adds it)


_YES_WORDS = {
    S.D_MOUNTAINS_BACK: ("Evade back: both die", "do not Evade back"),
    S.D_MULLIGAN: ("take a mulligan", "keep the hand"),
    S.D_BLUFF: ("discard the Feather (bluff)", "keep the Feather"),
    S.D_SACRIFICE: ("die in the target's place", "do not sacrifice"),
    S.D_PILLOW: ("reveal the Pillow", "keep the Pillow hidden"),
    S.D_FOREST: ("consent to the kill", "refuse"),
    S.D_INN: ("accept the card", "refuse the card"),
    S.D_ANGLER_LOOK: ("look at the character", "look at the hand"),
    S.D_EEL: ("be stunned", "discard the hand"),
    S.D_VOTE: ("vote to kill", "vote to stun"),
}
_ACTION_WORDS = {
    pol.K_CYCLE: "discard to draw a card",
    pol.K_PASS: "pass (show the hand to the next player)",
}


def option_words(compiled: T.Compiled, st: S.State, code: int) -> str:
    """A short phrase for option ``code`` of the pending decision of ``st``."""
    bd = st.board
    kind = int(bd[S.G_KIND])
    if kind < 0:
        return "no decision is pending"
    code = int(code)
    q = int(bd[S.G_Q])
    if kind in (S.D_ACTION, S.D_USE, S.D_GROGUS):
        b = S.B_CAND + 4 * code
        k, c, t, o = (int(x) for x in bd[b : b + 4])
        if k in _ACTION_WORDS:
            return _ACTION_WORDS[k]
        if k == pol.K_EAGLE:
            return f"die as the Guardian Eagle to play {card(o)}"
        verb = {pol.K_PLAY: "play", pol.K_USE: "use", pol.K_BREAK: "break a Barricade with"}.get(
            k, "play"
        )
        if k == pol.K_BREAK:
            return f"break the Barricade on {card(t)} with {card(c)}"
        text = f"{verb} {card(c)}"
        if t >= 0:
            text += f" on seat {t}"
        if c in (
            T.BASEMENT,
            T.BEDROOM,
            T.FATHERS_STUDY,
            T.KITCHEN,
            T.CABIN,
            T.MANOR_PLAN,
            T.COMPASS,
            T.TREASURE_MAP,
        ):
            text += f" for {card(o)}"
        elif o and c in (T.DINING_ROOM, T.GET_OVER_HERE, T.ZAKUS_CAMERA, T.GUESTROOM):
            text += " (its second use)"
        return text
    if kind in (S.D_REACT, S.D_MOUNTAINS_EVADE):
        return "do not react" if code == S.NO_CARD else f"react with {card(code)}"
    if kind in _YES_WORDS:
        yes, no = _YES_WORDS[kind]
        return yes if code else no
    if kind == S.D_DISCARD:
        return f"discard {card(code)}"
    if kind == S.D_BATHROOM:
        return "stop discarding" if code == S.NO_CARD else f"discard {card(code)}"
    if kind == S.D_GIVE:
        return f"give {card(code)} to seat {q}"
    if S.D_CANDLE_KEEP <= kind <= S.D_DRINK:
        if code >= int(bd[S.G_NOPT]):
            return "draw instead" if kind == S.D_TAKE else "store nothing more"
        c = card(int(bd[S.B_PICK + code]))
        return {
            S.D_CANDLE_KEEP: f"take {c} into the hand",
            S.D_CANDLE_TOP: f"put {c} back on top of the deck",
            S.D_TORCH: f"take {c} into the hand",
            S.D_MINE: f"take {c} into the hand",
            S.D_STORE: f"store {c} in the Backpack",
            S.D_TAKE: f"take {c} from the Backpack",
            S.D_DRINK: f"make seat {q} discard {c}",
        }[kind]
    if kind == S.D_CLAIM:
        return claim_words(code)
    what = {
        S.D_KILL_TARGET: "kill",
        S.D_LOOK_TARGET: "look at the character of",
        S.D_SWAP_TARGET: "swap seats with",
        S.D_REVEAL_TARGET: "reveal the hand of",
        S.D_STUN_SWAP_TARGET: "stun and swap hands with",
        S.D_WHALE_TARGET: "swap characters with",
    }[kind]
    return f"{what} seat {code}"


def claim_words(code: int) -> str:
    """What claim ``code`` says at the table (ENGINE-15)."""
    if code == S.CLAIM_NONE:
        return "say nothing"
    if code == S.CLAIM_FAMILY:
        return 'say "I am Family"'
    if code < S.CLAIM_EVIL:
        return f'say "I saw a Feather in seat {code - S.CLAIM_FEATHER}\'s hand"'
    return f'say "seat {code - S.CLAIM_EVIL} is evil"'


# ---------------------------------------------------------------- narration

_PICKS = (T.CANDLE, T.TORCH, T.ABANDONED_MINE)  # they put cards into a hand without an event
# events that may come between a stun card's window and its stun (a Harpoon's kill first)
_BEFORE_STUN = (S.E_REACT, S.E_CANCEL, S.E_STUN, S.E_KILL_SAVED, S.E_DEATH, S.E_SACRIFICE, S.E_SIDE)


@dataclass
class _Effect:
    """The card or death ability being resolved: whose, at whom, its window's reactions."""

    seat: int
    source: str  # what searches and effects are credited to ("Father's Study", "Wolf Brother")
    card: int = -1  # the card resolving (-1: a death ability or no card)
    target: int = -1
    option: int = 0
    kind: int = pol.K_PLAY
    reacts: list[tuple[int, int, int]] = field(default_factory=list)  # (seat, card, level)
    depth: int = 0  # 1: a death ability's (its lines are indented one step more)
    shown: bool = False  # a pass: its hand was shown (a later show is the end-of-turn one)


class _Narrator(Words):
    """The events told one by one (an ``ev_*`` method per code) on top of ``narrate_words.Words``
    (the shadow of the game and its words), and in ``finish`` the shadow against the engine's
    final state."""

    def __init__(
        self, compiled: T.Compiled, logged: kit.Logged, seed: int, game: int, hands: np.ndarray
    ) -> None:
        super().__init__(compiled, logged, seed, game, hands)
        self.opened: list[tuple[int, int, int]] = []
        # what is resolving
        self.active = -1
        self.effect: _Effect | None = None
        self.play_next: dict[tuple[int, int], str] = {}  # (seat, card) a search will play
        self.pick: list[int] | None = None  # [seat, card, cards still to credit] of a pick
        self.pick_armed = False
        self.eel_discard = -1  # seat whose Eel Fella discards are told in one line
        self.eel_stun = -1
        self.saved = -1  # the seat a Shark Bouncer dies for
        self.expect_stun = -1  # the target of a stun still to come (none: it failed)
        events: dict[int, Callable[..., None]] = {
            S.E_START: self.ev_start,
            S.E_DEAL: self.ev_deal,
            S.E_OPEN: self.ev_open,
            S.E_TURN: self.ev_turn,
            S.E_SKIP: self.ev_skip,
            S.E_ACTION: self.ev_action,
            S.E_REACT: self.ev_react,
            S.E_CANCEL: self.ev_cancel,
            S.E_KILL_SAVED: self.ev_kill_saved,
            S.E_DEATH: self.ev_death,
            S.E_SACRIFICE: self.ev_sacrifice,
            S.E_STUN: self.ev_stun,
            S.E_SWAP: self.ev_swap,
            S.E_XCHG: self.ev_xchg,
            S.E_SHOW: self.ev_show,
            S.E_LOOK_CHAR: self.ev_look_char,
            S.E_POSSESS: self.ev_possess,
            S.E_FREED: self.ev_freed,
            S.E_PILLOW: self.ev_pillow,
            S.E_DRAW: self.ev_draw,
            S.E_FEATHER: self.ev_feather,
            S.E_DISCARD: self.ev_discard,
            S.E_SEARCH: self.ev_search,
            S.E_TAKE: self.ev_take,
            S.E_INPLAY: self.ev_inplay,
            S.E_BARRICADE: self.ev_barricade,
            S.E_ABILITY: self.ev_ability,
            S.E_VOTE: self.ev_vote,
            S.E_EEL: self.ev_eel,
            S.E_CONSENT: self.ev_consent,
            S.E_BACKPACK: self.ev_backpack,
            S.E_WHALE: self.ev_whale,
            S.E_SIDE: self.ev_side,
            S.E_END: self.ev_end,
            S.E_PICK: self.ev_pick,
            S.E_CLAIM: self.ev_claim,
        }
        self.handlers = {code: partial(self.step, code, ev) for code, ev in events.items()}

    # ------------------------------------------------------------ the run

    def step(self, code: int, ev: Callable[..., None], row: tuple[int, ...]) -> None:
        """One log row: what the event closes first (``before``), then its ``ev_*`` method with
        the row's integers as arguments."""
        self.before(code, list(row))
        ev(*row)

    def finish(self) -> None:
        self.settle_pick(-1, [])
        self.check_final()

    def before(self, code: int, args: list[int]) -> None:
        """Bookkeeping that an event closes: a pick's unseen cards, the Eel Fella's lines."""
        self.settle_pick(code, args)
        if self.expect_stun >= 0 and code not in _BEFORE_STUN:
            t, self.expect_stun = self.expect_stun, -1
            if code != S.E_END:
                self.say(f"{self.ind()}The stun fails: {self.s(t)} cannot be stunned this turn.")
        if code != S.E_DISCARD:
            self.eel_discard = -1
        if code != S.E_STUN and self.eel_stun >= 0:
            t, self.eel_stun = self.eel_stun, -1  # ENGINE-4: safe from stuns this turn
            self.say(f"{self.ind(1)}The stun fails: {self.s(t)} cannot be stunned this turn.")

    def settle_pick(self, code: int, args: list[int]) -> None:
        """RM-26: a Candle, Torch or Abandoned Mine puts cards into its player's hand without an
        event, except a Feather, which is discarded (E_FEATHER). The cards are credited as unseen
        once the effect has begun (its window closed) and its Feathers have been told."""
        if self.pick is None:
            return
        seat, c, left = self.pick
        if code in (S.E_REACT, S.E_CANCEL) and not self.pick_armed:
            return  # the card's window: its effect has not begun
        if code == S.E_INPLAY and args[:3] == [seat, c, 1]:
            return  # a Location entering play; its effect follows
        self.pick_armed = True
        if code == S.E_FEATHER and args[0] == seat and args[1] == 0 and left > 0:
            self.pick[2] -= 1
            return
        if code == S.E_PICK and args[0] == seat and left > 0:  # the card kept, named
            self.pick[2] -= 1
            return
        if left > 0:
            self.unseen[seat] += left
            what = "card" if left == 1 else "cards"
            self.say(f"{self.ind()}It takes {left} {what} into its hand (? below: not in the log).")
        self.pick = None

    def ev_claim(self, p: int, code: int, *_: int) -> None:
        """``p``'s claim at the table (ENGINE-15): words only, no card is shown."""
        words = claim_words(code).removeprefix("say ")
        self.say(f"{self.ind()}{self.s(p)} says {words}.")

    def ev_pick(self, p: int, c: int, source: int, *_: int) -> None:
        """A card a Candle, Torch or Abandoned Mine put into ``p``'s hand."""
        self.add(p, c)
        self.say(f"{self.ind()}{self.s(p)} takes {card(c)} into its hand.")

    def begin(self, eff: _Effect) -> None:
        """``eff`` starts resolving (its window comes first)."""
        self.effect = eff
        if eff.card in (T.VASE, T.HAYMAKER, T.BOTTLE, T.HARPOON):
            self.expect_stun = eff.target
        if eff.card in (T.MANOR_PLAN, T.COMPASS):  # the card found is played (-1: any, Groguś)
            self.play_next[(eff.seat, eff.option)] = card(eff.card)
        elif eff.card == T.COAST:
            self.play_next[(eff.seat, T.TREASURE_MAP)] = card(T.COAST)
        if eff.card in _PICKS:
            keep = self.params[T.P_MINE_KEEP] if eff.card == T.ABANDONED_MINE else 1
            self.pick = [eff.seat, eff.card, int(keep)]
            self.pick_armed = False

    # ------------------------------------------------------------ setup and turns

    def ev_start(self, n: int, first: int, deck: int, *_: int) -> None:
        pols = self.c.seat_policies
        who = f"all {pols[0]}" if len(set(pols)) == 1 else ", ".join(pols)
        self.say(
            f"Game {self.game} of seed {self.seed}: {n} players ({who}); seat {first} goes "
            f"first; the deck holds {deck} cards."
        )
        self.say("Characters:")
        for p in range(n):
            pol = "" if len(set(pols)) == 1 else f", {pols[p]}"
            self.say(f"  Seat {p}: {char(self.char[p])} ({T.TEAM_NAMES[self.side[p]]}{pol})")

    def ev_open(self, p: int, feathers: int, mulligan: int, *_: int) -> None:
        if not self.opened:
            self.say("Opening (in turn order):")
        self.opened.append((p, feathers, mulligan))
        notes = []
        if feathers:
            notes.append(f"{plural(feathers, 'Feather')} discarded and redrawn")
        if mulligan:
            notes.append("mulligan" if mulligan == 1 else f"{mulligan} mulligans")
        note = f" ({'; '.join(notes)})" if notes else ""
        self.say(f"  Seat {p}{note}: {self.cards(p)}")

    def ev_turn(
        self, p: int, turn: int, size: int, alive: int, side: int, stunned: int, *_
    ) -> None:
        self.turn = turn + 1
        self.active = p
        self.effect = None
        self.play_next.clear()
        if size != self.size(p):
            self.problem(f"seat {p} holds {size} cards, the shadow {self.size(p)}")
        if bool(alive) != self.alive[p]:
            self.problem(f"seat {p} alive={alive}, the shadow {self.alive[p]}")
        if side != self.side[p]:
            self.problem(
                f"seat {p} side {T.TEAM_NAMES[side]}, the shadow {T.TEAM_NAMES[self.side[p]]}"
            )
        if bool(stunned) != self.stunned[p]:
            self.problem(f"seat {p} stunned={stunned}, the shadow {self.stunned[p]}")
        status = []
        if self.possessed[p] >= 0:
            status.append(f"possessed by {SIDE_WORDS[self.possessed[p]]}")
        if not alive:
            status.append("dead")
        if stunned:
            status.append("stunned")
        tag = f" [{', '.join(status)}]" if status else ""
        stored = [card(c) for c in range(T.NC) for _ in range(self.bp[p][c])]
        bp = f"; Backpack: {', '.join(stored)}" if stored else ""
        self.say(f"Turn {self.turn}: {self.s(p)}{tag}; hand: {self.cards(p)}{bp}")

    def ev_skip(self, p: int, why: int, *_: int) -> None:
        if why == 0:
            c = self.stun_card[p]
            lying = f" (the {card(c)} in front of it goes to the discard pile)" if c >= 0 else ""
            self.say(f"  Stunned: the turn is skipped{lying}.")
            self.stunned[p] = False
            self.stun_card[p] = -1
        elif why == 1:
            self.say("  It consented to a Forest kill: the turn is skipped.")
        else:
            self.say("  Stunned during its own turn: no end-of-turn exchange (RM-4).")

    def ev_action(self, a: int, kind: int, c: int, t: int, o: int, *_: int) -> None:
        who = f"  Seat {a} ({char(self.char[a])})"
        if kind == pol.K_PLAY:
            self.take(a, c)
            self.begin(_Effect(a, card(c), c, t, o, kind))
            self.say(f"{who} plays {card(c)}{self.card_use(c, t, o)}.")
        elif kind == pol.K_USE:
            self.begin(_Effect(a, card(c), c, t, o, kind))
            self.say(f"{who} uses {self.the(c)} in play{self.purpose(c, t, o)}.")
        elif kind == pol.K_CYCLE:
            self.effect = _Effect(a, "the discard", -1, -1, 0, kind)
            k = self.params[T.P_DISCARD_DRAW]
            self.say(f"{who} discards {k} cards to draw one.")
        elif kind == pol.K_EAGLE:
            self.effect = _Effect(a, "Guardian Eagle", -1, -1, o, kind)
            self.play_next[(a, o)] = "Guardian Eagle"
            self.say(f"{who} reveals its card to search the deck for {self.the(o)} and play it.")
        elif kind == pol.K_BREAK:
            self.take(a, c)
            self.begin(_Effect(a, card(c), c, -1, 0, kind))
            self.say(f"{who} spends {card(c)} to break the Barricade on {self.the(t)}.")
        elif kind == pol.K_PASS:
            self.effect = _Effect(a, "the pass", -1, -1, 0, kind)
            self.say(f"{who} passes: it has no action it can take.")
        else:
            raise ValueError(f"unknown action kind {kind}")

    # ------------------------------------------------------------ windows

    def ev_react(self, r: int, c: int, lvl: int, ans: int, against: int, *_: int) -> None:
        self.take(r, c)
        eff = self.effect
        pad = self.ind(lvl + (eff.depth if eff is not None else 0))
        if eff is not None:
            eff.reacts.append((r, c, lvl))
        if c == T.EVADE and ans == T.MOUNTAINS and eff is not None and r == eff.seat:
            self.say(f"{pad}{self.s(r)} Evades back: both die (RM-28).")
            return
        if c in (T.ROD, T.RAT_TREACHERY):
            what = f"{self.s(against)}'s {card(ans)}" if ans >= 0 else "the death ability"
            self.say(f"{pad}{self.s(r)} answers {what} with {card(c)}.")
        elif c == T.LIFEBUOY:
            t = eff.target if eff is not None else -1
            self.say(f"{pad}{self.s(r)} plays Lifebuoy to protect {self.s(t)}.")
        else:
            self.say(f"{pad}{self.s(r)} answers with {card(c)}.")

    def ev_cancel(self, p: int, c: int, by: int, *_: int) -> None:
        eff = self.effect
        main = eff is not None and eff.card == c and eff.seat == p and c >= 0
        if main:
            self.expect_stun = -1
            if self.pick is not None and not self.pick_armed:
                self.pick = None  # a cancelled Candle, Torch or Mine takes nothing
        reacts = eff.reacts if eff is not None else []
        depth = eff.depth if eff is not None else 0
        # the line goes under the reaction that cancels it (the last one of its card)
        r, lvl = next(((q, k) for q, x, k in reversed(reacts) if x == by), (-1, 0))
        what = f"{self.s(p)}'s {card(c)}" if c >= 0 else f"{self.s(p)}'s death ability"
        text = f"{self.ind(lvl + 1 + depth)}{what} is cancelled: no effect"
        if main and is_place(c) and eff is not None and eff.kind == pol.K_PLAY:
            text += f" (the {card(c)} goes to the discard pile)"
        if by == T.RAT_TREACHERY:
            text += f"; Rat Treachery ends the turn, {self.s(r)} plays next (RM-20)"
        self.say(text + ".")

    # ------------------------------------------------------------ kills and stuns

    def ev_kill_saved(self, t: int, why: int, *_: int) -> None:
        if why == 0:
            self.say(f"{self.ind()}{self.s(t)} cannot be killed this turn: the kill fails.")
        else:
            self.say(f"{self.ind()}{self.s(t)} is already dead: the kill does nothing.")

    def ev_death(self, v: int, ch: int, cause: int, killer: int, turn: int, *_: int) -> None:
        if ch != self.char[v]:
            self.problem(f"seat {v} dies as {char(ch)}, the shadow holds {char(self.char[v])}")
            self.char[v] = ch
        by = self.s(killer)
        how = {
            T.D_KILL: f"killed by {by}",
            T.D_PILLOW: f"smothered with the Pillow by {by} (RM-8: it cannot be prevented)",
            T.D_MOUNTAINS: "dies too" if killer == v else f"killed in the Mountains by {by}",
            T.D_SACRIFICE: f"in the place of {self.s(self.saved)}, killed by {by}",
            T.D_ABILITY: f"killed by {by}'s death ability",
            T.D_VOTE: f"killed by {by}'s vote",
            T.D_EAGLE: "Guardian Eagle revealed, it counts as dead from now on (RM-27)",
        }.get(cause, T.DEATH_CAUSES[cause - 1])
        note = ""
        if ch in WEAPON and cause != T.D_EAGLE:  # RM-23: the weapon it searches for is used
            self.play_next[(v, WEAPON[ch])] = f"{self.s(v)}'s death ability"
        if ch in (T.RAVEN, T.HORSEMAN, T.CTHULHU):
            note = "; an evil character dies: it joins the Family but cannot win (RM-22)"
        self.say(f"{self.ind()}✝ {self.s(v)} dies — {how}{note}.")
        self.alive[v] = False
        self.stunned[v] = False
        self.stun_card[v] = -1

    def ev_sacrifice(self, s: int, t: int, *_: int) -> None:
        self.saved = t
        self.say(f"{self.ind()}{self.s(s)} chooses to die in {self.s(t)}'s place.")

    def ev_stun(self, t: int, by: int, c: int, *_: int) -> None:
        self.expect_stun = -1
        if self.eel_stun == t:
            self.eel_stun = -1
            if self.stunned[t]:
                self.lines[-1] = self.lines[-1][:-1] + " (it is stunned already)."
            else:
                self.stunned[t] = True
            return
        src = ""
        if by >= 0:
            src = f" by {self.s(by)}" + (f"'s {card(c)}" if c >= 0 else "'s death ability")
        if self.stunned[t]:
            self.say(f"{self.ind()}{self.s(t)} is stunned already{src}: no further effect.")
            return
        self.stunned[t] = True
        self.stun_card[t] = c
        self.say(f"{self.ind()}{self.s(t)} is stunned{src}: it skips its next turn.")

    # ------------------------------------------------------------ hands shown

    def ev_show(self, p: int, to: int, n: int, *_: int) -> None:
        if n != self.size(p):
            self.problem(f"seat {p} shows {n} cards, the shadow {self.size(p)}")
        eff = self.effect
        hand = self.cards(p)
        looking = (
            eff is not None
            and eff.seat == to
            and eff.target in (p, -1)
            and (eff.card == T.LIBRARY or (eff.card == T.GET_OVER_HERE and eff.option != 0))
        )
        if to < 0:
            self.say(f"{self.ind()}{self.s(p)} reveals its hand to everyone: {hand}.")
        elif looking:
            self.say(f"{self.ind()}{self.s(to)} sees {self.s(p)}'s hand: {hand}.")
        elif eff is not None and eff.kind == pol.K_PASS and eff.seat == p and not eff.shown:
            eff.shown = True  # RM-29: the pass's show; the exchange's, if any, is told below
            self.say(f"{self.ind()}It shows its hand to {self.s(to)}: {hand}.")
        else:
            self.say(
                f"{self.ind()}No exchange is possible: {self.s(p)} shows its hand to "
                f"{self.s(to)}: {hand}."
            )

    # ------------------------------------------------------------ draws, discards, searches

    def ev_draw(self, p: int, c: int, *_: int) -> None:
        self.add(p, c)
        self.extend(("draw", p), f"  Seat {p} draws ", card(c))

    def ev_feather(self, p: int, bluff: int, *_: int) -> None:
        if bluff:
            self.extend(("draw", p), f"  Seat {p} draws ", "a Feather (discarded: a bluff)")
        elif self.merge == ("search feather", p):  # RM-26: not kept, discarded instead
            self.take(p, T.FEATHER)
            self.lines[-1] = self.lines[-1][:-1] + " (a Feather: discarded instead, RM-26)."
        elif self.pick is not None and self.pick[0] == p:
            self.say(f"{self.ind()}It takes a Feather: discarded (RM-26).")
        else:
            self.extend(("draw", p), f"  Seat {p} draws ", "a Feather (discarded, draws again)")

    def ev_discard(self, p: int, c: int, why: int, *_: int) -> None:
        if self.eel_discard == p:
            self.take(p, c)
            return
        eff = self.effect
        if why == 2 and eff is not None and eff.seat != p:  # Drink, Zaku's Camera, Angler
            hand = self.cards(p)
            self.take(p, c)
            self.say(
                f"{self.ind()}{self.s(eff.seat)} sees {self.s(p)}'s hand ({hand}) and has it "
                f"discard {card(c)}."
            )
            return
        self.take(p, c)
        if why == 0:
            self.extend(
                ("refill", p), f"  Seat {p} discards down to {self.params[T.P_HAND]}: ", card(c)
            )
        else:
            self.extend(("discard", p), f"{self.ind()}Seat {p} discards ", card(c))

    def ev_search(self, p: int, c: int, found: int, where: int, *_: int) -> None:
        key = (p, c) if (p, c) in self.play_next else (p, -1)
        source = self.play_next.pop(key, None)
        plays = source is not None
        if source is None:
            source = self.effect.source if self.effect is not None else "a search"
        if not found:
            self.say(f"{self.ind()}{source}: searches for {self.the(c)} — not found.")
            return
        place = " in the discard pile" if where == 1 else ""
        if plays:
            weapon = source.endswith("death ability")  # E_ABILITY tells its use
            used = "" if weapon else ", played"
            self.say(f"{self.ind()}{source}: searches for {self.the(c)} — found{place}{used}.")
            if not weapon:
                self.begin(_Effect(p, card(c), c, -1, -1, pol.K_USE))  # target, option not logged
            return
        whose = "to hand" if p == self.active else f"to seat {p}'s hand"
        self.say(f"{self.ind()}{source}: searches for {self.the(c)} — found{place}, {whose}.")
        self.add(p, c)
        if c == T.FEATHER:  # an E_FEATHER next says it was discarded instead (RM-26)
            self.merge = ("search feather", p)

    def ev_inplay(self, p: int, c: int, entering: int, *_: int) -> None:
        if entering:
            self.say(f"{self.ind()}{self.the(c)[0].upper()}{self.the(c)[1:]} enters play.")
            eff = self.effect
            if eff is not None and eff.card == c:
                eff.source = card(c)
        else:
            self.say(f"{self.ind()}The {card(c)} is removed from the game.")

    def ev_barricade(self, p: int, room: int, placed: int, *_: int) -> None:
        if placed:
            self.say(f"{self.ind()}A Barricade now blocks {self.the(room)} (RM-17).")
        else:
            self.say(f"{self.ind()}The Barricade on {self.the(room)} is broken.")

    def ev_backpack(self, p: int, c: int, stored: int, *_: int) -> None:
        if stored:
            self.take(p, c)
            self.bp[p][c] += 1
            self.extend(("store", p), f"{self.ind()}Stores in the Backpack: ", card(c))
        else:
            if self.bp[p][c] > 0:
                self.bp[p][c] -= 1
            else:
                self.problem(f"seat {p} takes {card(c)} from a Backpack that does not hold it")
            self.add(p, c)
            self.extend(("draw", p), f"  Seat {p} draws ", f"{card(c)} (from its Backpack)")

    # ------------------------------------------------------------ death abilities

    def ev_ability(self, v: int, ch: int, t: int, o: int, *_: int) -> None:
        head = f"{self.ind()}{self.s(v)}'s death ability:"
        src = char(ch)
        eff = _Effect(v, src, -1, t, o, pol.K_PLAY, depth=1)
        if ch == T.GROGUS:
            eff = _Effect(v, card(o), o, t, -1, pol.K_PLAY, depth=1)  # its option is not logged
        elif ch == T.ALLIGATOR:
            self.play_next[(v, T.TREASURE_MAP)] = src
        text = self.ability_use(ch, t, o)
        self.begin(eff)
        if ch == T.CRAYFISH or (ch in WEAPON and o == T.HARPOON):
            self.expect_stun = t
        self.say(f"{head} {text}.")

    def ev_vote(self, m: int, t: int, kills: int, stuns: int, result: int, *_: int) -> None:
        self.effect = _Effect(m, "Mayor Groundhog", -1, t, 0, pol.K_PLAY, depth=1)
        if result == 1:
            self.expect_stun = t
        self.say(
            f"{self.ind()}{self.s(m)}'s death ability: everyone votes on {self.s(t)}: "
            f"{kills} to kill, {stuns} to stun — {'kill' if result == 0 else 'stun'} "
            "(a tie goes the Mayor's way)."
        )

    def ev_eel(self, q: int, choice: int, *_: int) -> None:
        if choice == 0:
            self.say(f"{self.ind(1)}{self.s(q)} chooses to be stunned.")
            self.eel_stun = q
        else:
            kept = self.hand[q][T.FEATHER]
            hand = [card(c) for c in range(T.NC) if c != T.FEATHER for _ in range(self.hand[q][c])]
            hand += ["?"] * self.unseen[q]
            keep = f" (keeps {plural(kept, 'Feather')})" if kept else ""
            self.say(
                f"{self.ind(1)}{self.s(q)} discards its hand: {', '.join(hand) or 'nothing'}{keep}."
            )
            self.eel_discard = q

    def ev_consent(self, asker: int, asked: int, yes: int, kind: int, *_: int) -> None:
        eff = self.effect
        t = eff.target if eff is not None else -1
        if kind == 0:
            if yes:
                self.say(
                    f"{self.ind()}{self.s(asked)} consents to the kill of {self.s(t)} and will "
                    "skip its next turn."
                )
            else:
                self.say(f"{self.ind()}{self.s(asked)} refuses: no kill; the turn ends anyway.")
        else:
            self.say(f"{self.ind()}{self.s(asked)} {'accepts' if yes else 'refuses'} the card.")

    # ------------------------------------------------------------ the end

    def ev_end(self, reason: int, turns: int, *_: int) -> None:
        text = END_WORDS[reason]
        self.say("")
        self.say(f"End after {turns} turns: {text} (end reason {S.END_REASONS[reason - 1]}).")
