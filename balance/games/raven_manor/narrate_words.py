"""Raven Manor replay, its words and its shadow: what ``narrate.py``'s narrator is built on.

``narrate._Narrator`` (the run, and the ``ev_*`` methods of what resolves) subclasses
:class:`Words`, which holds the shadow of the game the events tell (every seat's hand and
Backpack, character, side, possession, stun and position, and the seating ring) and everything
that turns it into text: the names of cards, characters and sides, a seat with the character it
holds, a hand as the shadow knows it, what a card or a death ability is used for, the lines
(``say``, and ``extend`` for a line later events add to) and each seat's final standing
(``_final``). The events that only change the shadow (seats swapped, hands exchanged, cards
taken, characters exchanged, sides and possession) are told here too, by ``ev_*`` methods the
narrator's ``handlers`` name. ``check_final`` compares the shadow with the engine's final state
through ``check``.
"""

from __future__ import annotations

import numpy as np

from balance.games import _kit as kit
from balance.games._tell import Narrator
from balance.games.raven_manor import state as S
from balance.games.raven_manor import tables as T
from balance.games.raven_manor.schema import CARD_NAMES, CHARACTER_NAMES

# ---------------------------------------------------------------- names

_CARD_TITLE = {
    "fathers_study": "Father's Study",
    "get_over_here": "Get Over Here!",
    "zakus_camera": "Zaku's Camera",
    "the_inn": "The Inn",
}
_CHAR_TITLE = {"grogus": "Groguś"}
SIDE_WORDS = {
    T.FAMILY: "the Family",
    T.S_RAVEN: "the Raven",
    T.S_HORSEMAN: "the Headless Horseman",
    T.S_CTHULHU: "Cthulhu Gentleman",
}


def card(c: int) -> str:
    name = CARD_NAMES[c]
    return _CARD_TITLE.get(name, name.replace("_", " ").title())


def char(ch: int) -> str:
    name = CHARACTER_NAMES[ch]
    return _CHAR_TITLE.get(name, name.replace("_", " ").title())


def is_place(c: int) -> bool:
    return T.ROOM0 <= c < T.ROOM1 or T.LOC0 <= c < T.LOC1


def own_side(ch: int) -> int:  # state.own_side, in Python
    return {T.RAVEN: T.S_RAVEN, T.HORSEMAN: T.S_HORSEMAN, T.CTHULHU: T.S_CTHULHU}.get(ch, T.FAMILY)


def immune(ch: int) -> bool:  # state.immune
    return ch in (T.RAVEN, T.HORSEMAN, T.CTHULHU, T.DOC)


def plural(k: int, word: str) -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


# the death abilities that search for a card and then use it (RM-23)
WEAPON = {T.PIKE: T.HARPOON, T.LUMBEARJACK: T.AXE, T.WOLF: T.RIFLE}
_KILLS = (T.AXE, T.BROKEN_BOTTLE, T.KNIFE, T.RIFLE)

# how a game ends (state.END_*), in a sentence
END_WORDS = {
    S.END_FAMILY: "the Family wins: every evil character is dead",
    S.END_RAVEN: "the Raven wins: every other living player is possessed",
    S.END_HORSEMAN: "the Headless Horseman wins: every other living player is possessed",
    S.END_CTHULHU: "Cthulhu Gentleman wins: the last one standing",
    S.END_CAP: "the turn cap is reached: no side has won",
}


class Words(Narrator):
    """The shadow of the game the events tell (hands, Backpacks, characters, sides, stuns, the
    ring), its words and the lines; ``check_final`` sets it against the engine's final state."""

    def __init__(
        self, compiled: T.Compiled, logged: kit.Logged, seed: int, game: int, hands: np.ndarray
    ) -> None:
        super().__init__(logged)
        self.c = compiled
        self.final = logged.state
        self.seed = seed
        self.game = game
        self.params = compiled.tb.params
        n = compiled.players
        self.n = n
        # the shadow
        self.hand = [[int(x) for x in hands[p]] for p in range(n)]
        self.unseen = [0] * n  # cards of the hand the log never named (Candle, Torch, Mine)
        self.bp = [[0] * T.NC for _ in range(n)]
        self.char = [-1] * n
        self.alive = [True] * n
        self.side = [T.FAMILY] * n
        self.possessed = [-1] * n
        self.stunned = [False] * n
        self.stun_card = [-1] * n
        self.pos = list(range(n))
        self.ring = list(range(n))
        self.turn = 0  # the turn being told (``problem`` names it)
        self.merge: tuple | None = None  # key of the last line, when later events extend it

    # ------------------------------------------------------------ helpers

    def s(self, p: int) -> str:
        """``seat 3 (Aunt Cat)``: a seat with the character card it holds now."""
        if p < 0:
            return "nobody"
        return f"seat {p} ({char(self.char[p])})"

    def the(self, c: int) -> str:
        """``the Rifle`` (one copy in the deck, or a Room or Location), ``a Bottle``."""
        name = card(c)
        if c == T.THE_INN:
            return name
        if is_place(c) or self.params[T.P_COUNT + c] <= 1:
            return f"the {name}"
        return f"{'an' if name[0] in 'AEIOU' else 'a'} {name}"

    def cards(self, p: int) -> str:
        """The hand of ``p`` as the shadow knows it."""
        names = [card(c) for c in range(T.NC) for _ in range(self.hand[p][c])]
        names += ["?"] * self.unseen[p]
        return ", ".join(names) if names else "no cards"

    def size(self, p: int) -> int:
        return sum(self.hand[p]) + self.unseen[p]

    def say(self, text: str) -> None:
        self.merge = None
        body = text.lstrip(" ")
        self.lines.append(text[: len(text) - len(body)] + body[:1].upper() + body[1:])

    def extend(self, key: tuple, head: str, item: str) -> None:
        """Add ``item`` to the last line when it has ``key`` (one line of draws, of discards)."""
        if self.merge == key:
            self.lines[-1] += f", {item}"
        else:
            self.lines.append(head + item)
            self.merge = key

    def problem(self, text: str) -> None:
        """The events disagree with the shadow (``check``, at the turn being told)."""
        self.check(False, f"turn {self.turn}: {text}")

    def take(self, p: int, c: int) -> None:
        """Card ``c`` leaves ``p``'s hand."""
        if self.hand[p][c] > 0:
            self.hand[p][c] -= 1
        elif self.unseen[p] > 0:
            self.unseen[p] -= 1  # it was the unseen card
        else:
            self.problem(f"seat {p} parts with {card(c)}, which its hand does not hold")

    def add(self, p: int, c: int) -> None:
        self.hand[p][c] += 1

    def order(self) -> str:
        return " → ".join(str(q) for q in self.ring)

    def ind(self, depth: int = 0) -> str:
        return "    " + "  " * depth

    def render(self) -> list[str]:
        return self.lines + _final(self.c, self.logged)

    # ------------------------------------------------------------ what a card is used for

    def purpose(self, c: int, t: int, o: int) -> str:
        """What a Room or Location is used for."""
        if c in (T.BASEMENT, T.BEDROOM, T.FATHERS_STUDY, T.KITCHEN):
            return f" to search the deck for {self.the(o)}"
        if c == T.CABIN:
            return f" to search the deck and the discard pile for {self.the(o)}"
        if c == T.BATHROOM:
            return " to discard cards and draw as many"
        if c == T.DINING_ROOM:
            return (
                f" to exchange a card with {self.s(t)}"
                if o == 0
                else f" to swap places with {self.s(t)}"
            )
        if c == T.GUESTROOM:
            return " to search the deck for a Pillow" if o == 0 else " to discard a card and draw"
        if c == T.LIBRARY:
            return f" to look at {self.s(t)}'s hand"
        if c == T.ABANDONED_MINE:
            return (
                f" to reveal the top {self.params[T.P_MINE_REVEAL]} cards and keep "
                f"{self.params[T.P_MINE_KEEP]}"
            )
        if c == T.CAVE:
            return f" to take a random card from {self.s(t)}'s hand"
        if c == T.COAST:
            return " to discard a Bottle and search the deck for the Treasure Map"
        if c == T.FOREST:
            return f" to kill {self.s(t)}, if its other neighbour consents (the turn ends)"
        if c == T.MOUNTAINS:
            return f" to kill {self.s(t)} (a duel of Evades)"
        if c == T.THE_INN:
            return f" to give {self.s(t)} a card face down, if it consents"
        return ""

    def card_use(self, c: int, t: int, o: int) -> str:
        """What an Action card is played for."""
        if is_place(c):
            return self.purpose(c, t, o)
        if c in _KILLS or c in (T.VASE, T.HAYMAKER):
            return f" at {self.s(t)}"
        if c == T.HARPOON:
            return f" at {self.s(t)} (kill, then stun)"
        if c == T.BOTTLE:
            return f" at {self.s(t)} (stun, then search for {self.the(T.BROKEN_BOTTLE)})"
        if c == T.EXCHANGE:
            return f" to exchange a card with {self.s(t)}"
        if c == T.GET_OVER_HERE:
            return (
                f" to swap places with {self.s(t)}" if o == 0 else f" to look at {self.s(t)}'s hand"
            )
        if c == T.CANDLE:
            return f" (the top {self.params[T.P_CANDLE]}: one to hand, one on top, the rest below)"
        if c in (T.MANOR_PLAN, T.COMPASS):
            return f" to search the deck for {self.the(o)} and play it"
        if c == T.TREASURE_MAP:
            return f" naming {self.the(o)}"
        if c == T.DRINK:
            return f" on {self.s(t)} (looks at its hand and discards a card of it)"
        if c == T.ZAKUS_CAMERA:
            if o == 0:
                return f" to look at {self.s(t)}'s character"
            return f" to look at {self.s(t)}'s hand and discard a card of it"
        if c == T.BARRICADE:
            return f" on {self.the(t)}"
        if c == T.TORCH:
            return f" (reveals the top {self.params[T.P_TORCH]}, keeps one)"
        if t >= 0:
            return f" at {self.s(t)}"
        return ""

    def ability_use(self, ch: int, t: int, o: int) -> str:
        """What the death ability of character ``ch`` does, at ``t`` with option ``o``."""
        if ch in (T.BOAR, T.DOC):
            return f"kill {self.s(t)}"
        if ch in WEAPON:
            return f"uses {self.the(o)} on {self.s(t)}"
        if ch == T.ANGLER:
            return (
                f"look at {self.s(t)}'s character"
                if o == 0
                else f"look at {self.s(t)}'s hand and have it discard a card"
            )
        if ch == T.BUNNY:
            return f"swap places with {self.s(t)}"
        if ch == T.CATFISH:
            return f"{self.s(t)} reveals its hand"
        if ch == T.CRAYFISH:
            return f"stun {self.s(t)} and exchange hands with it"
        if ch == T.EEL:
            return "every other player chooses: be stunned or discard its hand"
        if ch == T.GROGUS:
            at = f" at {self.s(t)}" if t >= 0 else ""
            return f"plays {card(o)} from the discard pile{at} (as if alive)"
        if ch == T.WHALE:
            return f"exchange character cards with {self.s(t)}"
        if ch == T.SQUIRREL:
            return "search the deck and the discard pile for the Rod, then look at a character"
        if ch == T.ALLIGATOR:
            return "search the deck and the discard pile for the Treasure Map and play it"
        return f"target {self.s(t)}"

    # ------------------------------------------------------------ the shadow's own events
    # (seats, characters, sides and cards changing hands: told by what they change)

    def ev_deal(self, p: int, ch: int, pos: int, *_: int) -> None:
        self.char[p] = ch
        self.side[p] = own_side(ch)
        self.pos[p] = pos
        self.ring[pos] = p

    def ev_swap(self, a: int, b: int, pa: int, pb: int, *_: int) -> None:
        self.pos[a], self.pos[b] = pa, pb
        self.ring[pa], self.ring[pb] = a, b
        self.say(
            f"{self.ind()}{self.s(a)} and {self.s(b)} swap places (seat {a} now at position "
            f"{pa}, seat {b} at {pb}; order {self.order()})."
        )

    def ev_xchg(self, a: int, b: int, ca: int, cb: int, kind: int, *_: int) -> None:
        if kind == 3:  # Crayfish Docker: the whole hands
            self.hand[a], self.hand[b] = self.hand[b], self.hand[a]
            self.unseen[a], self.unseen[b] = self.unseen[b], self.unseen[a]
            self.say(
                f"{self.ind()}{self.s(a)} and {self.s(b)} exchange hands: seat {a} now holds "
                f"{self.cards(a)}; seat {b} {self.cards(b)}."
            )
            return
        self.take(a, ca)
        self.add(b, ca)
        if kind == 2:
            self.say(f"{self.ind()}The Inn: {self.s(a)} gives {self.s(b)} {card(ca)} face down.")
            return
        self.take(b, cb)
        self.add(a, cb)
        if kind == 0:
            self.say(
                f"  End-of-turn exchange with {self.s(b)}: gives {card(ca)}, receives {card(cb)}."
            )
        else:
            self.say(
                f"{self.ind()}{self.s(a)} exchanges with {self.s(b)}: gives {card(ca)}, "
                f"receives {card(cb)}."
            )

    def ev_look_char(self, q: int, p: int, ch: int, *_: int) -> None:
        self.say(f"{self.ind()}{self.s(q)} looks at seat {p}'s character: {char(ch)}.")

    def ev_possess(self, p: int, side: int, giver: int, *_: int) -> None:
        again = self.possessed[p] == side
        self.possessed[p] = side
        self.side[p] = side
        who = SIDE_WORDS[side]
        if giver >= 0:
            how = f"seat {giver} gave the Feather"
        else:
            how = "it now holds a Feather taken at random or in a hand exchange"
        verb = "stays possessed" if again else "is possessed"
        self.say(f"{self.ind()}{self.s(p)} {verb} by {who} ({how}).")

    def ev_freed(self, p: int, *_: int) -> None:
        self.possessed[p] = -1
        self.side[p] = T.FAMILY
        self.say(
            f"{self.ind()}{self.s(p)} has no Feather left: no longer possessed, back with the "
            "Family."
        )

    def ev_pillow(self, giver: int, receiver: int, *_: int) -> None:
        self.take(receiver, T.PILLOW)
        self.say(f"{self.ind()}{self.s(giver)} reveals the Pillow it passed to {self.s(receiver)}.")

    def ev_take(self, a: int, t: int, c: int, *_: int) -> None:
        self.take(t, c)
        self.add(a, c)
        self.say(f"{self.ind()}{self.s(a)} takes a random card from {self.s(t)}: {card(c)}.")

    def ev_whale(self, v: int, t: int, ct: int, *_: int) -> None:
        cv = self.char[v]
        before_v, before_t = self.s(v), self.s(t)
        self.char[v], self.char[t] = ct, cv
        if self.alive[t]:
            self.alive[v] = True
            self.alive[t] = False
            self.stunned[t] = False
            self.stun_card[t] = -1
            more = f"seat {v} lives again as {char(ct)}; seat {t} is now the dead {char(cv)}"
        else:
            more = f"seat {v} now holds {char(ct)}; seat {t} holds {char(cv)}"
        for p in (v, t):  # as engine.whale_swap: sides follow the cards (RM-15)
            if immune(self.char[p]) or self.possessed[p] < 0:
                self.possessed[p] = -1
                self.side[p] = own_side(self.char[p])
        self.say(
            f"{self.ind()}{before_v} exchanges character cards with {before_t}: {more} (ENGINE-13)."
        )

    def ev_side(self, p: int, side: int, *_: int) -> None:
        self.side[p] = side
        self.possessed[p] = side if side != T.FAMILY else -1
        if side == T.FAMILY:
            self.say(f"{self.ind()}{self.s(p)} is no longer possessed: back with the Family.")
        else:
            self.say(f"{self.ind()}{self.s(p)} now serves {SIDE_WORDS[side]} (RM-22).")

    # ------------------------------------------------------------ the final state

    def check_final(self) -> None:
        """The shadow against the engine's final state: every seat's hand, Backpack, character,
        life, side and position."""
        st = self.final
        for p in range(self.n):
            hand = [int(x) for x in st.pl[p, S.PL_HAND : S.PL_HAND + T.NC]]
            over = [card(c) for c in range(T.NC) if self.hand[p][c] > hand[c]]
            self.check(
                not over and sum(hand) == self.size(p),
                f"seat {p} ends with {sum(hand)} cards, the shadow {self.size(p)}"
                + (f" (too many {', '.join(over)})" if over else ""),
            )
            bp = [int(x) for x in st.pl[p, S.PL_BP : S.PL_BP + T.NC]]
            self.check(bp == self.bp[p], f"seat {p}'s Backpack differs from the shadow")
            ch = int(st.pl[p, S.PL_CHAR])
            self.check(ch == self.char[p], f"seat {p} ends as {char(ch)}")
            alive = int(st.pl[p, S.PL_ALIVE])
            self.check(bool(alive) == self.alive[p], f"seat {p} alive={alive} at the end")
            side = int(st.pl[p, S.PL_SIDE])
            self.check(side == self.side[p], f"seat {p} ends on side {T.TEAM_NAMES[side]}")
            pos = int(st.pl[p, S.PL_POS])
            self.check(pos == self.pos[p], f"seat {p} ends at position {pos}")


def _final(compiled: T.Compiled, logged: kit.Logged) -> list[str]:
    """Each seat at the end, from the final state: dealt and held character, side, life, kills,
    stuns, score and rank (turns numbered as the Turn lines)."""
    st = logged.state
    out = ["", "Final standing (turns numbered as above):"]
    for p in range(compiled.players):
        pl = st.pl[p]
        dealt, held = int(pl[S.PL_DEALT]), int(pl[S.PL_CHAR])
        chars = f"dealt {char(dealt)}" + (f", ends as {char(held)}" if held != dealt else "")
        side = T.TEAM_NAMES[int(pl[S.PL_SIDE])]
        if int(pl[S.PL_POSSESSED]) >= 0:
            side += f" (possessed since turn {int(pl[S.PL_POSS_TURN]) + 1})"
        elif int(pl[S.PL_POSS_TURN]) >= 0:
            side += f" (possessed on turn {int(pl[S.PL_POSS_TURN]) + 1}, freed since)"
        if int(pl[S.PL_EVIL_LOST]):
            side += ", an evil character that died: cannot win"
        if int(pl[S.PL_ALIVE]):
            life = "alive"
        else:
            cause = int(pl[S.PL_CAUSE])
            why = T.DEATH_CAUSES[cause - 1] if cause > 0 else "?"
            life = f"dead since turn {int(pl[S.PL_DEATH_TURN]) + 1} ({why})"
        rank = int(logged.rank[p])
        out.append(
            f"  Seat {p} ({compiled.seat_policies[p]}): {chars}; side {side}; {life}; "
            f"{plural(int(pl[S.PL_KILLS]), 'kill')}, {plural(int(pl[S.PL_STUNS]), 'stun')}; "
            f"score {int(logged.score[p])}, rank {rank}"
        )
    return out
