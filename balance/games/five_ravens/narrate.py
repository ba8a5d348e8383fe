"""Five Ravens replay: one game of a run, told event by event for a designer (``balance replay``).

``play_logged(compiled, seed, game)`` plays game ``game`` of the run seeded with ``seed`` with the
batch kernel's own per-game function (``engine.play_game`` with the Work ``engine.play_batch``
gives it, on a fresh State that keeps an event log), so the replay is the dataset's game;
``tell`` turns the log into lines (``Game.replay``, balance/games/base.py, puts them together
with the outcome). It is a designer's view, not a player's: hidden cards (face-down relics,
hands, thieves, relics looked at) are named, and marked "face down" where they were face down.

Log rows are ``(code, a, b, c, d, e, f, h)`` exactly as ``engine.py`` passes them to ``emit``.
Besides the lines, the narrator keeps a shadow of every seat's piles, the centre and the relic
deck count, built from the events alone. It uses it to say where a card came from (hand or
discard), which unplayed cards the Epilogue discards, and where a 6's shuffle put the face-down
relics (the log gives only their number; their places are read from the next event that names
each slot). The narrator is a ``_tell.Narrator``: one handler per event code here, and ``finish``
comparing the shadow with the engine's final state (piles, doubled chests, the relic deck, the
Clocks, the first player, the score rows) through ``check``; a replay prints any disagreement as
a WARNING line (the tests assert there is none), and an unknown event code raises. The shadow and
its words (card names, the lines built from clauses, the header, the final scores, that final
check) are ``narrate_words.py``'s :class:`~balance.games.five_ravens.narrate_words.Words`, which
the narrator subclasses.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from balance.games import _kit as kit
from balance.games._kit import Logged
from balance.games._tell import Told
from balance.games.five_ravens import engine
from balance.games.five_ravens import state as S
from balance.games.five_ravens import tables as T
from balance.games.five_ravens.narrate_words import Act, Line, ShuffleNote, Slot, Words

LOG_CAP = kit.LOG_CAP  # log rows of a first try; a game that fills them is replayed with more

# Events that belong to the Raven action being resolved (they continue its line).
_IN_ACTION = {
    S.E_DRAW,
    S.E_SHUFFLE,
    S.E_DISCARD,
    S.E_TOP,
    S.E_SEVEN,
    S.E_FLIP,
    S.E_SHUFFLE_CENTRE,
    S.E_CAPTURE5,
    S.E_SET_ASIDE,
    S.E_EXAMINE,
    S.E_REPLACE,
    S.E_RESCUE,
}

# What a played action did when it logged nothing (the rulebook's "as much as you are able").
_NO_EFFECT = {
    9: "draws nothing (deck and discard are empty)",
    8: "puts nothing on its deck",
    7: "the relic deck is empty: nothing to look at",
    6: "no relic can be flipped",
    5: "nothing to capture",
    4: "sets nothing aside",
    3: "no face-down relic can be examined",
    2: "no captured Raven's action to use",
    1: "no face-up relic can be replaced",
}


def play_logged(compiled: T.Compiled, seed: int, game: int) -> Logged:
    """Play game ``game`` of run ``seed`` exactly as ``engine.play_batch`` does, keeping the log."""
    from balance.search import SearchTables

    if isinstance(compiled, SearchTables):  # search seats: the game they played (balance/search.py)
        from balance import games
        from balance.search import play_logged as search_logged

        return search_logged(games.get("five_ravens"), compiled, seed, game).logged
    tb = compiled.tb

    def play(cap: int) -> Logged:
        st = S.new_state(tb, log_cap=cap)
        work = S.alloc_work(tb)
        engine.play_game(tb, st, np.int64(seed), np.int64(game), work)
        turns = int(st.board[S.G_TURNS])
        score = st.pl[:, S.PL_SCORE].copy()
        rank = st.pl[:, S.PL_RANK].copy()
        P, K = S.n_seats(tb), len(S.TRACE_MEASURES)
        trace = kit.one_trace(engine.record_trace, tb, st, work, S.trace_cap(tb), P, K)
        return Logged(S.log_rows(st), st, score, rank, turns, S.END_CLOCKS, trace)

    return kit.play_logged(play, seed, game, LOG_CAP)


def tell(compiled: T.Compiled, logged: Logged, seed: int, game: int) -> Told:
    """The lines of a logged game; raises ValueError on an event code it does not know."""
    n = _Narrator(compiled, logged, seed, game)
    n.run()
    return n.told()


def event_lines(compiled: T.Compiled, log: np.ndarray, seed: int = 0, game: int = 0) -> list[str]:
    """The lines of the events of ``log`` alone (a game in progress, or a hand-built position's
    log), without the final position or any check; raises ValueError on an unknown event code."""
    n = _Narrator(compiled, None, seed, game)
    for i, raw in enumerate(log):
        n.row = i
        handler = n.handlers.get(int(raw[0]))
        if handler is None:
            raise ValueError(f"event log row {i}: unknown event code {int(raw[0])}")
        handler(tuple(int(x) for x in raw[1:]))
    return [str(x) for x in n.out]


def option_words(compiled: T.Compiled, st: S.State, code: int) -> str:
    """One short phrase for option ``code`` of the pending decision of ``st``."""
    w = Words(compiled, None, 0, 0)
    b = st.r["board"]
    kind = int(b[S.G_KIND])
    p = int(b[S.G_ACTOR])
    code = int(code)
    none = code == S.OPT_NONE
    if kind == S.D_TURN:
        if code == S.OPT_CAPT3:
            return "use the captured 3: look at the top or the bottom of the relic deck"
        if code == S.OPT_CAPT1:
            return "use the captured 1: lock a centre relic"
        c = int(st.pile[p, S.PILE_HAND, code >> 1])
        if code & 1:
            return f"play {w.thief_card(c)} as thief"
        return f"play {w.the(c)} for its action"
    if kind == S.D_DISCARD:
        return f"discard {w.the(code)}"
    if kind == S.D_STACK:
        return "stop putting cards on the deck" if none else f"put {w.the(code)} on top of the deck"
    if kind == S.D_SEVEN:
        seen = w.name(int(b[S.G_SEEN]))
        if none:
            return f"bury {seen} under the relic deck"
        return f"swap {seen} with the face-down relic in slot {code}"
    if kind == S.D_FLIP:
        return f"flip the relic in slot {code}"
    if kind == S.D_SHUFFLE:
        return "shuffle the face-down relics" if code else "leave the face-down relics in place"
    if kind == S.D_CAPTURE:
        return f"capture {w.the(code)}"
    if kind == S.D_SET_ASIDE:
        return "stop setting cards aside" if none else f"set {w.the(code)} aside"
    if kind == S.D_EXAMINE:
        return f"look at the face-down relic in slot {code}"
    if kind == S.D_BORROW:
        return "borrow no action" if none else f"resolve the action of the captured {code + 1}"
    if kind == S.D_REPLACE:
        return f"replace the relic in slot {code} with the top relic"
    if kind == S.D_PEEK_END:
        return "look at the bottom relic of the relic deck" if code else "look at the top relic"
    if kind == S.D_LOCK:
        return f"lock the relic in slot {code}"
    if kind == S.D_STEAL:
        return "steal the relic deck's bottom relic" if none else f"steal from slot {code}"
    if kind == S.D_RESCUE:
        return f"rescue {w.the(code)} to the top of the deck"
    raise ValueError(f"no decision is pending (kind {kind})")


class _Narrator(Words):
    """The narration of one logged game: a handler per event code on top of
    ``narrate_words.Words`` (the shadow of the game built from the events, and its words), and
    ``finish`` comparing the shadow with the engine's final state."""

    def __init__(self, compiled: T.Compiled, logged: Logged, seed: int, game: int) -> None:
        super().__init__(compiled, logged, seed, game)
        self.act: Act | None = None
        self.centre_line: Line | None = None
        self.theft: list[int] | None = None  # seats still to steal this round, in order
        self.theft_line: tuple[int, Line] | None = None
        handlers = {
            S.E_ROUND: self.ev_round,
            S.E_DEAL: self.ev_deal,
            S.E_DRAW: self.ev_draw,
            S.E_SHUFFLE: self.ev_shuffle,
            S.E_ACTION: self.ev_action,
            S.E_DISCARD: self.ev_discard,
            S.E_TOP: self.ev_top,
            S.E_SEVEN: self.ev_seven,
            S.E_FLIP: self.ev_flip,
            S.E_SHUFFLE_CENTRE: self.ev_shuffle_centre,
            S.E_CAPTURE5: self.ev_capture5,
            S.E_SET_ASIDE: self.ev_set_aside,
            S.E_EXAMINE: self.ev_examine,
            S.E_REPLACE: self.ev_replace,
            S.E_CAPT3: self.ev_capt3,
            S.E_LOCK: self.ev_lock,
            S.E_THIEF: self.ev_thief,
            S.E_DONE: self.ev_done,
            S.E_STEAL: self.ev_steal,
            S.E_CAPTURED: self.ev_captured,
            S.E_RESCUE: self.ev_rescue,
            S.E_UNCLAIMED: self.ev_unclaimed,
            S.E_EPILOGUE: self.ev_epilogue,
            S.E_SCORE: self.ev_score,
            S.E_REMOVED: self.ev_removed,
            S.E_NOTHIEF: self.ev_nothief,
        }
        self.handlers = {code: self.step(code, ev) for code, ev in handlers.items()}

    def step(self, code: int, ev: Any) -> Any:
        """The handler of ``code``: ends the Prelude's centre line, and the Raven action being
        told, unless this event continues them; then tells the event (``ev(*row)``)."""

        def handler(row: tuple[int, ...]) -> None:
            if code != S.E_DEAL and self.centre_line is not None:
                self.end_centre()
            in_action = code in _IN_ACTION or (code == S.E_ACTION and row[2] == 1)
            if self.act is not None and (not in_action or row[0] != self.act.p):
                self.end_action()
            ev(*row)

        return handler

    # ------------------------------------------------------------ setup and prelude

    def ev_removed(self, x: int, *_: int) -> None:
        self.removed.append(x)
        self.rd_n -= 1

    def ev_round(self, r: int, first: int, *_: int) -> None:
        if r != self.round + 1:
            self.problem(f"round {r + 1} follows round {self.round + 1}")
        self.round, self.first, self.last = r, first, first
        self.stole = False
        self.theft = None
        self.theft_line = None
        for s in self.seats:
            s.thief = -1
            s.no_thief = False
        self.centre = [None] * self.P
        self.out.append(f"Round {r + 1} of {self.rounds} — Seat {first} is first player")
        self.open = None
        self.centre_line = self.line(("centre", r), "Centre", ": ")

    def ev_deal(self, slot: int, x: int, face: int, lock: int, *_: int) -> None:
        self.centre[slot] = Slot(x, bool(face), bool(lock))
        self.rd_n -= 1
        state = ("face up" if face else "face down") + (", locked" if lock else "")
        assert self.centre_line is not None
        self.centre_line.add(f"[{slot}] {self.name(x)} ({state})", tag="deal")

    def end_centre(self) -> None:
        ln = self.centre_line
        assert ln is not None
        dealt = sum(s is not None for s in self.centre)
        if dealt == 0:
            ln.add("nothing dealt: the relic deck is empty")
        elif dealt < self.P:
            ln.add(f"only {dealt} dealt: the relic deck ran out")
        ln.add(f"relic deck {self.rd_n} left")
        self.centre_line = None
        self.open = None

    def draw_line(self, p: int) -> Line:
        if self.act is not None and self.act.p == p:
            return self.act.line
        return self.line(("draw", p, self.round), f"Seat {p}", sep=" ")

    def ev_draw(self, p: int, c: int, *_: int) -> None:
        s = self.seats[p]
        self.take(s.deck, c, f"Seat {p}'s deck")
        s.hand.append(c)
        self.draw_line(p).add(self.name(c), tag="draw", prefix="draws ")

    def ev_shuffle(self, p: int, n: int, *_: int) -> None:
        s = self.seats[p]
        if n != len(s.disc) or s.deck:
            self.problem(f"Seat {p} reshuffles {n} cards; shadow: {len(s.disc)} in discard")
        s.deck += s.disc
        s.disc = []
        self.draw_line(p).add(f"shuffles its {n} discards into a new deck")

    def ev_nothief(self, p: int, *_: int) -> None:
        s = self.seats[p]
        s.no_thief = True
        self.say(
            f"Seat {p} drew no Raven: reveals its hand ({self.cards(s.hand)}), cannot play a "
            "thief and will steal after every thief"
        )

    # ------------------------------------------------------------ mission

    def ev_action(self, p: int, c: int, borrowed: int, *_: int) -> None:
        s = self.seats[p]
        if borrowed:
            a = self.act
            if a is None or a.p != p or a.rank != 2 or a.inner >= 0:
                self.problem(f"Seat {p} uses a captured {c + 1}'s action outside a 2's action")
                self.say(f"Seat {p} uses its captured {c + 1}'s action")
                return
            if c not in s.capt:
                self.problem(f"Seat {p} uses the {c + 1}'s action but has not captured it")
            a.inner, a.inner_at = c + 1, len(a.line.clauses)
            a.line.head += f": uses its captured {c + 1}'s action"
            if not self.action_on(c):
                a.line.add("its action is switched off in this config")
            return
        self.take(s.hand, c, f"Seat {p}'s hand")
        s.pending = c
        self.open = None
        ln = Line(f"Seat {p} plays the {c + 1} for its action")
        self.out.append(ln)
        self.act = Act(p, c + 1, ln)
        if not self.action_on(c):
            ln.add("its action is switched off in this config: no effect")

    def end_action(self) -> None:
        a = self.act
        if a is None:
            return
        self.act = None
        if a.inner >= 0:
            if len(a.line.clauses) == a.inner_at:
                a.line.add(_NO_EFFECT[a.inner])
        elif not a.line.clauses:
            a.line.add(_NO_EFFECT[a.rank])
        if a.aside is not None:
            a.line.add("discards the set-aside cards")
        s = self.seats[a.p]
        s.disc.append(s.pending)  # the played Raven goes to the discard once resolved
        s.pending = -1
        self.open = None

    def act_line(self, p: int, what: str) -> Line:
        if self.act is None or self.act.p != p:
            self.problem(f"{what} by Seat {p} outside a Raven action")
            self.say(f"Seat {p} (outside any action):")
            return self.line(("stray", p, len(self.out)), f"Seat {p}")
        return self.act.line

    def ev_discard(self, p: int, c: int, *_: int) -> None:
        s = self.seats[p]
        self.take(s.hand, c, f"Seat {p}'s hand")
        s.disc.append(c)
        a = self.act
        if a is not None and a.p == p and a.aside is not None:
            if a.aside[2] == ["?"]:
                a.aside[2] = []
            a.aside[2].append(self.name(c))
            return
        self.act_line(p, "a discard").add(self.name(c), tag="discard", prefix="discards ")

    def ev_top(self, p: int, c: int, *_: int) -> None:
        s = self.seats[p]
        if c in s.hand:
            s.hand.remove(c)
            src = "hand"
        elif c in s.disc:
            s.disc.remove(c)
            src = "discard"
        else:
            self.problem(f"Seat {p} stacks {self.name(c)}, which is in neither hand nor discard")
            src = "?"
        s.deck.append(c)
        self.act_line(p, "stacking").add(
            f"{self.name(c)} from {src}", tag="top", prefix="stacks on its deck, last on top: "
        )

    def ev_seven(self, p: int, x: int, slot: int, y: int, *_: int) -> None:
        ln = self.act_line(p, "a 7's look")
        if slot < 0:
            ln.add(f"looks at the top relic, {self.name(x)}, and buries it under the relic deck")
            return
        s = self.slot_is(slot, y, "7 swap")
        if s is not None:
            s.card = x
        ln.add(
            f"looks at the top relic, {self.name(x)}, and swaps it with the face-down "
            f"{self.name(y)} in slot {slot} ({self.name(y)} goes under the relic deck unseen)"
        )

    def ev_flip(self, p: int, slot: int, x: int, face: int, *_: int) -> None:
        s = self.slot_is(slot, x, "6 flip")
        locked = False
        if s is not None:
            if s.lock:
                self.problem(f"slot {slot} is flipped while locked")
            s.face = bool(face)
            if face and x >= T.N_RAVENS and self.kind(x) == T.K_CURSED:
                s.lock = locked = True
        text = f"flips {self.name(x)} in slot {slot} face {'up' if face else 'down'}"
        self.act_line(p, "a flip").add(text + (" (cursed: now locked)" if locked else ""))

    def ev_shuffle_centre(self, p: int, n: int, *arrangement: int) -> None:
        slots = [
            i for i, s in enumerate(self.centre) if s is not None and not s.face and not s.lock
        ]
        if len(slots) != n:
            self.problem(f"6 shuffles {n} face-down relics; shadow has {len(slots)}")
        pool: list[int] = []
        earlier: set[int] = set()
        for i in slots:
            s = self.centre[i]
            assert s is not None
            if s.card >= 0:
                pool.append(s.card)
            elif s.note is not None and id(s.note) not in earlier:
                earlier.add(id(s.note))
                pool += s.note.pool  # placed by an earlier shuffle nobody has looked at since
        note = ShuffleNote(slots, pool, self.name)
        for i in slots:
            s = self.centre[i]
            assert s is not None
            s.card, s.note = -1, note
        # Should the engine log the new places (args 3..6 = slots 0..3), they are used directly.
        if all(arrangement[i] >= T.N_RAVENS for i in slots if i < len(arrangement)) and slots:
            for i in slots:
                self.slot_is(i, arrangement[i], "6 shuffle")
        self.act_line(p, "a centre shuffle").add(
            note, prefix=f"shuffles the {n} face-down relics: "
        )

    def ev_capture5(self, p: int, c: int, *_: int) -> None:
        s = self.seats[p]
        if c in s.hand:
            s.hand.remove(c)
            src = "hand"
        elif c in s.disc:
            s.disc.remove(c)
            src = "discard"
        else:
            self.problem(f"Seat {p} captures {self.name(c)}, which is in neither hand nor discard")
            src = "?"
        s.capt.append(c)
        ln = self.act_line(p, "a 5's capture")
        ln.add(f"captures {self.the(c)} from its {src}")
        if c == T.SEVEN and self.capture_on(T.SEVEN) and len(s.capt) == 1:
            ln.extend_last(" (nothing else captured to rescue)")

    def ev_set_aside(self, p: int, n: int, *_: int) -> None:
        ln = self.act_line(p, "a 4's set-aside")
        if n == 0:
            ln.add("sets nothing aside")
            return
        clause = ln.add("?", prefix="sets aside ")
        if self.act is not None:
            self.act.aside = clause  # named by the discards that follow the draws

    def ev_examine(self, p: int, slot: int, x: int, *_: int) -> None:
        self.slot_is(slot, x, "3 examine")
        self.act_line(p, "an examine").add(
            f"examines the face-down relic in slot {slot}: {self.name(x)}"
        )

    def ev_replace(self, p: int, slot: int, old: int, new: int, lock: int, *_: int) -> None:
        self.slot_is(slot, old, "1 replace")
        self.centre[slot] = Slot(new, True, bool(lock))
        text = (
            f"puts the face-up {self.name(old)} from slot {slot} under the relic deck and "
            f"replaces it with the top relic, {self.name(new)}, face up"
        )
        self.act_line(p, "a replace").add(text + (" and locked (cursed)" if lock else ""))

    def ev_capt3(self, p: int, bottom: int, x: int, *_: int) -> None:
        end = "bottom" if bottom else "top"
        seen = self.name(x) if x >= 0 else "the relic deck is empty"
        self.say(
            f"Seat {p} uses its captured 3 to look at the {end} relic of the relic deck: {seen}"
        )

    def ev_lock(self, p: int, slot: int, x: int, face: int, *_: int) -> None:
        s = self.slot_is(slot, x, "captured 1 lock")
        if s is not None:
            s.lock = True
        state = "face up" if face else "face down"
        self.say(f"Seat {p} uses its captured 1 to lock slot {slot} ({self.name(x)}, {state})")

    def ev_thief(self, p: int, c: int, *_: int) -> None:
        s = self.seats[p]
        self.take(s.hand, c, f"Seat {p}'s hand")
        s.thief = c
        self.say(f"Seat {p} plays its thief face down: {self.thief_card(c)}")

    def ev_done(self, p: int, *_: int) -> None:
        why = "cannot play a thief" if self.seats[p].no_thief else "has no legal move"
        self.say(f"Seat {p} {why} and is done for the round")

    # ------------------------------------------------------------ theft and capture

    def start_theft(self) -> None:
        """Reveal the thieves and fix the steal order (FR-9) the first time the Theft is told."""
        if self.theft is not None:
            return

        def rank(c: int) -> int:
            return -1 if c < 0 else (c + 1 if c < T.N_RAVENS else 0)

        order = [
            p
            for r in range(T.N_RAVENS, -2, -1)
            for p in ((self.first + k) % self.P for k in range(self.P))
            if rank(self.seats[p].thief) == r
        ]
        shown = []
        for p in order:
            c = self.seats[p].thief
            shown.append(f"Seat {p} {self.thief_card(c)}" if c >= 0 else f"Seat {p} no thief")
        self.out.append("Theft — thieves revealed, in steal order: " + ", ".join(shown))
        self.open = None
        self.theft = order

    def theft_seat(self, p: int) -> Line:
        """The line of seat ``p``'s steal; seats before it in the order that logged nothing took
        nothing (an empty centre)."""
        self.start_theft()
        if self.theft_line is not None and self.theft_line[0] == p:
            return self.theft_line[1]
        self.theft_line = None
        assert self.theft is not None
        if p not in self.theft:
            self.problem(f"Seat {p} steals out of the steal order")
        else:
            while self.theft[0] != p:
                self.steals_nothing(self.theft.pop(0))
            self.theft.pop(0)
        ln = Line(f"Seat {p} ({self.thief_label(self.seats[p].thief)})", sep=" ")
        self.out.append(ln)
        self.open = None
        self.theft_line = (p, ln)
        return ln

    def steals_nothing(self, p: int) -> None:
        c = self.seats[p].thief
        text = f"Seat {p} ({self.thief_label(c)}) steals nothing: nothing is left to take"
        if c >= 0:
            self.problem(f"Seat {p}'s thief {self.name(c)} was not captured")
        self.say(text)

    def finish_theft(self) -> None:
        if self.theft is None:
            return
        while self.theft:
            self.steals_nothing(self.theft.pop(0))
        self.theft_line = None

    def ev_steal(self, p: int, c: int, x: int, choice: int, where: int, *_: int) -> None:
        s = self.seats[p]
        if c != s.thief:
            self.problem(f"Seat {p} steals with {self.name(c)}; its thief is {self.name(s.thief)}")
        ln = self.theft_seat(p)
        if choice >= 0:
            slot = self.slot_is(choice, x, "steal")
            face = "face up" if slot is not None and slot.face else "face down"
            src = f"from slot {choice} ({face})"
            self.centre[choice] = None
        else:
            self.rd_n -= 1
            src = "from the bottom of the relic deck (captured 2)"
        if where == 0:
            s.disc.append(x)
            dest = "discard"
        else:
            s.capt.append(x)
            if where == 2:
                s.doubled = x
                dest = "captured with the 6, worth double"
            else:
                dest = "captured (stolen with the 5)"
        ln.add(f"steals {self.name(x)} {src} → {dest}")
        self.last = p
        self.stole = True

    def ev_captured(self, p: int, c: int, *_: int) -> None:
        s = self.seats[p]
        ln = self.theft_seat(p)
        if not ln.clauses:
            ln.add("steals nothing: nothing is left to take")
        if c != s.thief:
            self.problem(f"Seat {p} has {self.name(c)} captured; its thief is {self.name(s.thief)}")
        s.capt.append(c)
        text = f"{self.thief_card(c)} is captured"
        if c == T.SEVEN and self.capture_on(T.SEVEN) and len(s.capt) == 1:
            text += " (nothing else captured to rescue)"
        ln.add(text)

    def ev_rescue(self, p: int, c: int, *_: int) -> None:
        s = self.seats[p]
        self.take(s.capt, c, f"Seat {p}'s captured cards")
        s.deck.append(c)
        text = f" and rescues {self.the(c)} to the top of its deck"
        if s.doubled >= 0 and (c == T.SIX or c == s.doubled):
            text += f" ({self.name(s.doubled)} is no longer doubled)"
            s.doubled = -1
        if self.act is not None and self.act.p == p:
            self.act.line.extend_last(text)
        elif self.theft_line is not None and self.theft_line[0] == p:
            self.theft_line[1].extend_last(text)
        else:
            self.problem(f"Seat {p} rescues {self.name(c)} outside a capture")
            self.say(f"Seat {p} rescues {self.the(c)} to the top of its deck")

    def ev_unclaimed(self, slot: int, x: int, *_: int) -> None:
        self.start_theft()
        self.finish_theft()
        s = self.slot_is(slot, x, "unclaimed")
        face = "face up" if s is not None and s.face else "face down"
        self.centre[slot] = None
        self.rd_n += 1
        self.line(("unclaimed", self.round), "Unclaimed, to the bottom of the relic deck").add(
            f"[{slot}] {self.name(x)} ({face})", tag="unclaimed"
        )

    # ------------------------------------------------------------ epilogue and scores

    def ev_epilogue(self, r: int, first: int, *_: int) -> None:
        self.start_theft()
        self.finish_theft()
        if any(s is not None for s in self.centre):
            self.problem("relics left in the centre after the Theft")
        if first != self.last:
            self.problem(f"Seat {first} becomes first player; Seat {self.last} stole last")
        self.clocks, self.next_first = r, first
        if self.stole:
            head = f"Epilogue: Seat {first} stole last and becomes first player"
        else:
            head = f"Epilogue: nobody stole; Seat {first} stays first player"
        ln = Line(head, sep="; ", indent="")
        self.out.append(ln)
        self.open = None
        hands = []
        for p, s in enumerate(self.seats):
            if s.hand:
                hands.append(f"Seat {p} ({self.cards(s.hand)})")
            s.disc += s.hand
            s.hand = []
        if hands:
            ln.add(", ".join(hands), prefix="unplayed cards discarded: ")
        if r >= self.rounds:
            ln.add("the last Clock is removed: game over")
        else:
            ln.add(f"Clock {r} removed, {self.rounds - r} left")
        self.theft = None

    def ev_score(self, p: int, *fields: int) -> None:
        self.score_rows[p] = fields[:6]

    def finish(self) -> None:
        """After the last event: the shadow against the engine's final state."""
        self.end_action()
        self.finish_theft()
        self.check_final()
