"""Five Ravens replay, its words and its shadow: what ``narrate.py``'s narrator is built on.

``narrate._Narrator`` (one handler per event code) subclasses :class:`Words`, which holds the
shadow of the game the events build (every seat's piles, the centre, the relic deck count, the
Clocks, the score rows) and everything that turns it into text: a card's name in a list or in a
sentence, the lines built from clauses (:class:`Line`; :class:`ShuffleNote` for where a 6's
shuffle put the face-down relics), the header and the final scores. ``check_final`` compares the
shadow with the engine's final state (piles, doubled chests, the relic deck, the Clocks, the
first player, the score rows) through ``check``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from balance.games._kit import Logged
from balance.games._tell import Narrator
from balance.games.five_ravens import state as S
from balance.games.five_ravens import tables as T


class Line:
    """A line built from clauses: ``indent + head + sep + "; ".join(clauses)``.

    A clause is ``[tag, prefix, items]``; consecutive clauses with the same mergeable tag share
    one prefix (``draws 7, 2, gem``). Items may be objects rendered at the end (``ShuffleNote``).
    """

    def __init__(self, head: str, sep: str = ": ", indent: str = "  ") -> None:
        self.head = head
        self.sep = sep
        self.indent = indent
        self.clauses: list[list[Any]] = []

    def add(self, text: Any, tag: str | None = None, prefix: str = "") -> list[Any]:
        if tag is not None and self.clauses and self.clauses[-1][0] == tag:
            self.clauses[-1][2].append(text)
            return self.clauses[-1]
        clause: list[Any] = [tag, prefix, [text]]
        self.clauses.append(clause)
        return clause

    def extend_last(self, text: str) -> None:
        self.clauses[-1][2][-1] = f"{self.clauses[-1][2][-1]}{text}"

    def __str__(self) -> str:
        parts = [p + ", ".join(str(i) for i in items) for _, p, items in self.clauses]
        return self.indent + self.head + (self.sep + "; ".join(parts) if parts else "")


class ShuffleNote:
    """Where a 6's shuffle put the face-down relics, filled in as later events name each slot."""

    def __init__(self, slots: list[int], pool: list[int], name: Any) -> None:
        self.slots = slots
        self.pool = pool  # cards not yet placed
        self.place: dict[int, int] = {}  # slot -> card; a slot shuffled again unseen stays ?
        self.name = name

    def __str__(self) -> str:
        def one(s: int) -> str:
            if s in self.place:
                return f"[{s}] {self.name(self.place[s])}"
            return f"[{s}] ?"

        return "now " + ", ".join(one(s) for s in self.slots)


@dataclass
class Slot:
    card: int  # -1: unknown since a shuffle (see note)
    face: bool
    lock: bool
    note: ShuffleNote | None = None


@dataclass
class Seat:
    deck: list[int]
    hand: list[int] = field(default_factory=list)
    disc: list[int] = field(default_factory=list)
    capt: list[int] = field(default_factory=list)
    pending: int = -1  # Raven played for its action, in no pile until it resolves
    thief: int = -1
    doubled: int = -1
    no_thief: bool = False


@dataclass
class Act:
    p: int
    rank: int
    line: Line
    inner: int = -1  # rank of the captured Raven whose action a 2 uses
    inner_at: int = 0  # clauses before the 2's borrowed action began
    aside: list[Any] | None = None  # the 4's set-aside clause, filled by its discards


class Words(Narrator):
    """The shadow of one logged game and its words (``_tell.Narrator``): ``narrate._Narrator``
    adds a handler per event code."""

    def __init__(self, compiled: T.Compiled, logged: Logged, seed: int, game: int) -> None:
        super().__init__(logged)
        self.c = compiled
        self.tb = compiled.tb
        self.seed = seed
        self.game = game
        self.P = int(self.tb.params[T.P_PLAYERS])
        self.rounds = int(self.tb.params[T.P_ROUNDS])
        self.out: list[Any] = []
        self.seats = [Seat(deck=list(range(T.N_RAVENS))) for _ in range(self.P)]
        self.centre: list[Slot | None] = [None] * self.P
        self.rd_n = int(self.tb.params[T.P_N_RELICS])
        self.removed: list[int] = []
        self.round = -1
        self.first = 0
        self.last = 0
        self.stole = False
        self.open: tuple[Any, Line] | None = None
        self.score_rows: dict[int, tuple[int, ...]] = {}
        self.clocks = 0  # Clocks removed (Epilogues told)
        self.next_first = -1  # the first player the last Epilogue named

    # ------------------------------------------------------------ names

    def name(self, c: int) -> str:
        """A card in a list: ``7`` for a Raven, ``chest 3`` for a relic."""
        if c < 0:
            return "nothing"
        if c < T.N_RAVENS:
            return str(c + 1)
        t = int(self.tb.cards[T.C_INST, c - T.N_RAVENS])
        label = self.c.relic_names[t].replace("_", " ")
        value = int(self.tb.cards[T.C_VALUE, t])
        if self.tb.cards[T.C_KIND, t] == T.K_CHEST and str(value) not in label.split():
            label += f" (chest {value})"
        return label

    def the(self, c: int) -> str:
        """A card in a sentence: ``the 7`` for a Raven, ``chest 3`` for a relic."""
        return f"the {c + 1}" if 0 <= c < T.N_RAVENS else self.name(c)

    def thief_card(self, c: int) -> str:
        """A thief in a sentence: ``the 7``, or ``the gem thief`` for a relic (FR-7)."""
        return f"the {self.name(c)}" + ("" if c < T.N_RAVENS else " thief")

    def thief_label(self, c: int) -> str:
        return "no thief" if c < 0 else self.name(c)

    def cards(self, cs: list[int]) -> str:
        return ", ".join(self.name(c) for c in cs) if cs else "none"

    def kind(self, c: int) -> int:
        return int(self.tb.cards[T.C_KIND, self.tb.cards[T.C_INST, c - T.N_RAVENS]])

    def action_on(self, c: int) -> bool:
        return bool(self.tb.params[T.P_ACTION + c])

    def capture_on(self, c: int) -> bool:
        return bool(self.tb.params[T.P_CAPTURE + c])

    # ------------------------------------------------------------ output

    def problem(self, text: str) -> None:
        """The events disagree with themselves (``check``), told with the game and round."""
        self.check(False, f"game {self.game}, round {self.round + 1}: {text}")

    def say(self, text: str, indent: str = "  ") -> None:
        self.out.append(indent + text)
        self.open = None

    def line(self, key: Any, head: str, sep: str = ": ", indent: str = "  ") -> Line:
        """The open line ``key`` if the previous output was it, else a new one."""
        if self.open is not None and self.open[0] == key:
            return self.open[1]
        ln = Line(head, sep, indent)
        self.out.append(ln)
        self.open = (key, ln)
        return ln

    # ------------------------------------------------------------ shadow piles

    def take(self, pile: list[int], c: int, what: str) -> None:
        if c in pile:
            pile.remove(c)
        else:
            self.problem(f"{self.name(c)} is not in {what}")

    def slot_is(self, slot: int, x: int, what: str) -> Slot | None:
        """Check that centre ``slot`` holds ``x`` (placing it if a shuffle hid the slot)."""
        if not 0 <= slot < self.P or self.centre[slot] is None:
            self.problem(f"{what}: centre slot {slot} is empty")
            return None
        s = self.centre[slot]
        assert s is not None
        if s.card >= 0:
            if s.card != x:
                self.problem(f"{what}: slot {slot} holds {self.name(s.card)}, not {self.name(x)}")
            return s
        note = s.note
        assert note is not None
        s.card, s.note = x, None
        note.place[slot] = x
        if x in note.pool:
            note.pool.remove(x)
        else:
            self.problem(f"{what}: {self.name(x)} was not among the shuffled relics")
        hidden = [i for i, o in enumerate(self.centre) if o is not None and o.note is note]
        if len(hidden) == 1 and len(note.pool) == 1:  # the last one is where the rest are not
            self.slot_is(hidden[0], note.pool[0], what)
        return s

    # ------------------------------------------------------------ the final state

    def check_final(self) -> None:
        """After the last event: the shadow against the engine's final state."""
        st = self.logged.state
        piles = (
            ("deck", S.PILE_DECK, S.PL_DECK_N),
            ("hand", S.PILE_HAND, S.PL_HAND_N),
            ("discard", S.PILE_DISC, S.PL_DISC_N),
            ("captured", S.PILE_CAPT, S.PL_CAPT_N),
        )
        for p, s in enumerate(self.seats):
            mine = {"deck": s.deck, "hand": s.hand, "discard": s.disc, "captured": s.capt}
            for what, pile, count in piles:
                real = sorted(int(c) for c in st.pile[p, pile, : st.pl[p, count]])
                self.check(
                    sorted(mine[what]) == real,
                    f"Seat {p}'s {what}: narrated {self.cards(sorted(mine[what]))}, "
                    f"engine {self.cards(real)}",
                )
            doubled = int(st.pl[p, S.PL_DOUBLED])
            self.check(
                s.doubled == doubled,
                f"Seat {p}'s doubled chest: narrated {self.name(s.doubled)}, "
                f"engine {self.name(doubled)}",
            )
        rd_n = int(st.board[S.G_RD_N])
        self.check(self.rd_n == rd_n, f"relic deck: narrated {self.rd_n} left, engine {rd_n}")
        clocks = int(st.board[S.G_ROUND])
        self.check(
            self.clocks == clocks, f"Clocks removed: narrated {self.clocks}, engine {clocks}"
        )
        first = int(st.board[S.G_FIRST])
        self.check(
            self.clocks == 0 or self.next_first == first,
            f"first player at the end: narrated Seat {self.next_first}, engine Seat {first}",
        )
        self.check(
            sorted(self.score_rows) == list(range(self.P)),
            f"score rows for seats {sorted(self.score_rows)}",
        )
        for p, row in self.score_rows.items():
            total = sum(row) + self.handicap(p)
            score = int(self.logged.score[p])
            self.check(
                total == score, f"Seat {p}'s score rows sum to {total}, the kernel says {score}"
            )

    # ------------------------------------------------------------ rendering

    def header(self) -> list[str]:
        policies = ", ".join(self.c.seat_policies)
        head = f"Game {self.game} of seed {self.seed}: {self.P} players ({policies})"
        if self.removed:
            n = len(self.removed)
            head += f"; {n} relic{'s' if n != 1 else ''} removed unseen: {self.cards(self.removed)}"
        return [head]

    def final(self) -> list[str]:
        st = self.logged.state
        scores, ranks = self.logged.score, self.logged.rank
        out = ["Final scores"]
        winners = [p for p in range(self.P) if ranks[p] == 1]
        for p in range(self.P):
            row = self.score_rows.get(p)
            if row is None:
                continue
            chests, gems, hollows, cursed, four, penalty = row
            hc = self.handicap(p)
            n_capt = int(st.pl[p, S.PL_CAPT_N])
            place = f"rank {ranks[p]}"
            if ranks[p] == 1:
                place += ", winner" if len(winners) == 1 else ", shared win"
            out.append(
                f"  Seat {p} ({self.c.seat_policies[p]}): {scores[p]} = chests {chests} + gems "
                f"{gems} + hollows {hollows} + cursed sets {cursed} + captured 4 {four} "
                f"- penalties {-penalty}{f' {hc:+d} handicap' if hc else ''}   ({place}; "
                f"{n_capt} captured card"
                f"{'s' if n_capt != 1 else ''})"
            )
            owned = sorted(
                int(c)
                for pile, count in (
                    (S.PILE_DECK, S.PL_DECK_N),
                    (S.PILE_DISC, S.PL_DISC_N),
                    (S.PILE_HAND, S.PL_HAND_N),
                )
                for c in st.pile[p, pile, : st.pl[p, count]]
                if c >= T.N_RAVENS
            )
            doubled = int(st.pl[p, S.PL_DOUBLED])
            capt = [
                self.name(int(c)) + (" (doubled)" if c == doubled else "")
                for c in sorted(st.pile[p, S.PILE_CAPT, : st.pl[p, S.PL_CAPT_N]])
            ]
            out.append(f"    relics: {self.cards(owned)}; captured: {', '.join(capt) or 'none'}")
        best = [f"Seat {p}" for p in winners]
        if len(winners) == 1:
            out.append(f"Winner: {best[0]} with {scores[winners[0]]}")
        elif winners:
            out.append(f"Shared win: {', '.join(best)} with {scores[winners[0]]}")
        return out

    def handicap(self, p: int) -> int:
        """The points ``rules.handicap`` adds to seat ``p``'s score (engine.handicap): the entry
        of its place in round 1's turn order; the score rows leave it out."""
        place = (p - int(self.logged.state.board[S.G_START])) % self.P
        return int(self.tb.params[T.P_HANDICAP + place])

    def render(self) -> list[str]:
        body = [str(x) for x in self.out]
        return self.header() + body + self.final()
