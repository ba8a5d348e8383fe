"""Corvids replay: one game of a run, told event by event (``balance replay``), and the pile after
every turn for its pictures (``views/pictures.py``).

``play_logged(compiled, seed, game)`` plays game ``game`` of the run seeded with ``seed`` with the
batch kernel's own per-game function (``engine.play_game``) on a state that keeps an event log and
the pile after set-up and after every turn, so the replay is the dataset's game; ``tell`` puts it
in words (``Game.replay``, balance/games/base.py, calls the two). It is a designer's view with the
hidden information shown: every seat's bird from the start, the item of every face-down card
taken.

Log rows are ``(code, a, b, c, d, e, f, h)`` as ``engine.py`` passes them to ``emit`` (state.E_*
says what each integer is). ``Narrator`` has one handler per event code (balance/games/_tell.py)
and keeps a shadow of the game as the events tell it: every seat's feathers and cards (which
ones), the birds revealed, the scores, the turns, the pecks and the pieces that left the mat. It
checks the shadow against each turn's event and, at the end, against the engine's final state; a
disagreement is a problem (a WARNING line under the replay; the tests assert there is none). An
unknown event code raises ValueError.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from balance.games import _kit as kit
from balance.games import _tell
from balance.games._kit import Logged
from balance.games.corvids import engine
from balance.games.corvids import physics as ph
from balance.games.corvids import state as S
from balance.games.corvids import tables as T
from balance.games.corvids.schema import ITEM_NAMES
from balance.games.corvids.tables import Compiled

LOG_CAP = kit.LOG_CAP


def play_logged(compiled: Compiled, seed: int, game: int) -> Logged:
    """Play game ``game`` of run ``seed`` exactly as ``engine.play_batch`` does, keeping the log
    and the pile after every turn (``Logged.state.snap``)."""
    from balance.search import SearchTables

    if isinstance(compiled, SearchTables):  # search seats: the game they played (balance/search.py)
        from balance import games
        from balance.search import play_logged as search_logged

        return search_logged(games.get("corvids"), compiled, seed, game).logged
    tb = compiled.tb
    n = compiled.players

    def play(cap: int) -> Logged:
        st = S.alloc_replay_state(tb, cap)
        work = S.alloc_work(tb)
        engine.play_game(tb, st, np.int64(seed), np.int64(game), work)
        sc = work.score
        rk = work.rank
        engine.ranks(tb, st, sc, rk)
        trace = kit.one_trace(engine.record_trace, tb, st, work, S.trace_cap(tb), n, S.N_TRACE)
        return Logged(
            S.log_rows(st),
            st,
            sc[:n].astype(np.int32),
            rk[:n].astype(np.int32),
            int(st.board[S.G_TURN]),
            int(st.board[S.G_END]) - 1,
            trace,
        )

    return kit.play_logged(play, seed, game, LOG_CAP)


def item(i: int) -> str:
    return "blank back" if i == T.BLANK else ITEM_NAMES[i]


def a_item(i: int) -> str:
    """Item ``i`` with its article: "an acorn", "an earring", "a key", "a blank back"."""
    name = item(i)
    return ("an " if name[0] in "aeiou" else "a ") + name


def _plural(k: int, word: str) -> str:
    return f"{k} {word}" if k == 1 else f"{k} {word}s"


def card_words(st: S.State, c: int) -> str:
    """Card ``c`` named by both its sides (``#7 key/nut``; a single-sided card: ``#7 coin``)."""
    front, back = int(st.item[c, 0]), int(st.item[c, 1])
    return f"#{c} {ITEM_NAMES[front]}" + ("" if back == T.BLANK else f"/{ITEM_NAMES[back]}")


ABILITY_WORDS = {
    "acorn": "pecks again",
    "earring": "takes another uncovered earring",
    "nut": "takes feathers from the pile",
    "paperclip": "takes a card touching it",
}
HOW_TAKEN = ("picks", "takes with the earring", "takes with the paperclip")  # S.TAKE_*


class Narrator(_tell.Narrator):
    """Tells a logged game event by event, keeping a shadow of what the events say: each seat's
    feathers and cards (and which cards), the birds revealed, the pieces that left the mat, the
    pecks, the turns, and the scores, which ``finish`` checks against the engine's final state."""

    def __init__(self, compiled: Compiled, logged: Logged, seed: int, game: int) -> None:
        super().__init__(logged)
        self.compiled = compiled
        self.seed = seed
        self.game = game
        self.st = logged.state
        self.birds = compiled.bird_names
        n = self.n = compiled.players
        self.names = [f"seat {p} ({compiled.seat_policies[p]})" for p in range(n)]
        # the shadow
        self.feathers = [0] * n
        self.cards = [0] * n
        self.owner: dict[int, int] = {}  # card -> seat holding it, as the events tell
        self.revealed: set[int] = set()  # seats whose nest was uncovered
        self.scored: dict[int, int] = {}  # seat -> its points, handicap included (E_SCORE)
        self.turns = 0  # E_TURN events
        self.pecks = 0
        self.cards_off = 0  # cards knocked off the mat
        self.feathers_removed = 0  # feathers knocked off the mat or isolated
        self.end: tuple[int, int] | None = None  # (turns, G_END) of E_END
        self.handlers = {
            S.E_START: self.ev_start,
            S.E_BIRD: self.ev_bird,
            S.E_TURN: self.ev_turn,
            S.E_TICKET: self.ev_ticket,
            S.E_PECK: self.ev_peck,
            S.E_MOVED: self.ev_moved,
            S.E_OFF: self.ev_off,
            S.E_PICK: self.ev_pick,
            S.E_ABILITY: self.ev_ability,
            S.E_NUT: self.ev_nut,
            S.E_STEAL: self.ev_steal,
            S.E_NEST: self.ev_nest,
            S.E_ISOLATED: self.ev_isolated,
            S.E_SCORE: self.ev_score,
            S.E_END: self.ev_end,
        }

    def say(self, line: str) -> None:
        self.lines.append(line)

    def card(self, c: int) -> str:
        return card_words(self.st, c) if self.st is not None else f"#{c}"

    # ------------------------------------------------------------ the events

    def ev_start(self, row: tuple[int, ...]) -> None:
        _, first, n_cards, n_feathers, tries, redraws, pushes = row
        self.say(
            f"Corvids, game {self.game} of seed {self.seed}: {self.n} players, {n_cards} trash "
            f"cards and {_plural(n_feathers, 'feather')}; seat {first} plays first."
        )
        if tries < 0:
            self.say(
                "Set-up failed: no scatter put every card on the mat with every nest covered "
                "(rules.physics.setup_retries; ENGINE-8). The game is not played."
            )
        elif self.compiled.tb.physics[ph.PH_NEST_COVER] == ph.NEST_COMPLETE:
            self.say(
                f"Set-up: the pile was scattered {_plural(tries + 1, 'time')}, "
                f"{_plural(redraws, 'card')} that landed off the mat redrawn one at a time, and "
                f"{_plural(pushes, 'card')} pushed over the nests it left bare until every nest "
                "was completely covered (CV-8, PHYS-4); the feathers were dropped onto it."
            )
        else:
            self.say(
                f"Set-up: the pile was scattered {_plural(tries + 1, 'time')} until a card "
                f"overlapped every nest, {_plural(redraws, 'card')} that landed off the mat "
                "redrawn one at a time (nest_cover: overlap; PHYS-4); the feathers were dropped "
                "onto it."
            )

    def ev_bird(self, row: tuple[int, ...]) -> None:
        p, b, nest = row[:3]
        self.say(
            f"{self.names[p]} is the {self.birds[b]} (nest {nest}; hidden until it is uncovered)."
        )
        if self.st is not None:
            self.check(
                int(self.st.pl[p, S.PL_BIRD]) == b,
                f"seat {p} is dealt bird {b}, the engine says {int(self.st.pl[p, S.PL_BIRD])}",
            )

    def ev_turn(self, row: tuple[int, ...]) -> None:
        p, turn, feathers, cards = row[:4]
        self.say(
            f"Turn {turn + 1}: {self.names[p]} ({_plural(feathers, 'feather')}, {_plural(cards, 'card')})"
        )
        if (feathers, cards) != (self.feathers[p], self.cards[p]):
            self.problems.append(
                f"turn {turn + 1}: seat {p} holds {feathers} feathers and {cards} cards, the "
                f"events say {self.feathers[p]} and {self.cards[p]}"
            )
        self.check(turn == self.turns, f"turn {turn + 1} is told as turn {self.turns + 1}")
        self.turns += 1

    def ev_ticket(self, row: tuple[int, ...]) -> None:
        p, c = row[:2]
        self.say(f"  flips ticket #{c} face up: one more steal this turn")
        self.check(self.owner.get(c) == p, f"seat {p} flips ticket #{c}, which it does not hold")

    def ev_peck(self, row: tuple[int, ...]) -> None:
        _, c, up, moved, off, ax, ay = row
        moved_words = (
            f"{_plural(moved, 'piece')} resting on it moved" if moved else "nothing rested on it"
        )
        off_words = f"; {_plural(off, 'piece')} went off the mat" if off else ""
        self.say(
            f"  pecks {self.card(c)} at ({ax}, {ay}) mm: it now shows {item(up)}; "
            f"{moved_words}{off_words}"
        )
        self.pecks += 1

    def ev_moved(self, row: tuple[int, ...]) -> None:
        c, x, y, up = row[:4]
        self.say(f"    {self.card(c)} ({item(up)} up) moved to ({x}, {y}) mm")

    def ev_off(self, row: tuple[int, ...]) -> None:
        kind, k, up = row[:3]
        if kind == 0:
            self.say(f"  {self.card(k)} ({item(up)} up) is off the mat: out of play")
            self.cards_off += 1
        else:
            self.say("  a feather is off the mat: out of play")
            self.feathers_removed += 1

    def ev_pick(self, row: tuple[int, ...]) -> None:
        p, c, counts, face, gained, how = row[:6]
        face_words = "face up" if face == 1 else "face down"
        gain = f", with {_plural(gained, 'feather')}" if gained else ""
        self.say(f"  {HOW_TAKEN[how]} {self.card(c)} {face_words}: {a_item(counts)}{gain}")
        self.check(
            c not in self.owner, f"seat {p} takes #{c}, which seat {self.owner.get(c)} holds"
        )
        self.cards[p] += 1
        self.feathers[p] += gained
        self.owner[c] = p

    def ev_ability(self, row: tuple[int, ...]) -> None:
        name = ITEM_NAMES[row[1]]
        self.say(f"  {name} ability: {ABILITY_WORDS.get(name, '')}")

    def ev_nut(self, row: tuple[int, ...]) -> None:
        p, took = row[:2]
        self.say(f"  takes {_plural(took, 'feather')} from the pile")
        self.feathers[p] += took

    def ev_steal(self, row: tuple[int, ...]) -> None:
        thief, victim, c, string, paid, counts = row[:6]
        pay = f"paying {_plural(paid, 'feather')}"
        self.feathers[thief] -= paid
        self.check(
            self.owner.get(c) == victim,
            f"seat {thief} steals #{c} from seat {victim}, the events give it to "
            f"{self.owner.get(c)}",
        )
        if string >= 0:
            self.say(
                f"  tries to steal {self.card(c)} from {self.names[victim]}, {pay}: "
                f"{self.names[victim]} flips string #{string} face up and keeps it"
            )
            self.check(
                self.owner.get(string) == victim,
                f"seat {victim} flips string #{string}, which it does not hold",
            )
        else:
            self.say(f"  steals {self.card(c)} ({a_item(counts)}) from {self.names[victim]}, {pay}")
            self.cards[thief] += 1
            self.cards[victim] -= 1
            self.owner[c] = thief

    def ev_nest(self, row: tuple[int, ...]) -> None:
        p, nest, b = row[:3]
        self.say(
            f"  {self.names[p]}'s nest {nest} is uncovered: the {self.birds[b]} is revealed, and "
            "it can be stolen from while the nest stays open"
        )
        self.check(p not in self.revealed, f"seat {p}'s nest is uncovered twice")
        self.revealed.add(p)

    def ev_isolated(self, row: tuple[int, ...]) -> None:
        n_cards, n_feathers = row[:2]
        self.say(
            f"  end of turn: {_plural(n_cards, 'card')} and {_plural(n_feathers, 'feather')} "
            "touching nothing are removed"
        )
        self.feathers_removed += n_feathers

    def ev_score(self, row: tuple[int, ...]) -> None:
        p, points, bird, sets, feathers, cards, rank = row
        st = self.st
        if st is None:  # a partial log (event_lines): the events alone
            self.say(
                f"{self.names[p]}: {points} points before any handicap (bird bonus {bird}, set "
                f"bonus {sets}), {_plural(feathers, 'feather')}, {_plural(cards, 'card')}, rank "
                f"{rank}"
            )
            self.scored[p] = points
            return
        hc = handicap(self.compiled, st, p)  # the event's points are CV-3's, without it
        self.say(
            f"{self.names[p]}: {points + hc} points ({f'{hc:+d} handicap, ' if hc else ''}"
            f"bird bonus {bird}, set bonus {sets}), "
            f"{_plural(feathers, 'feather')}, {_plural(cards, 'card')}, rank {rank}"
            f"{' (wins)' if rank == 1 else ''}: {held_words(st, p)}"
        )
        if points + hc != self.logged.score[p]:
            self.problems.append(
                f"the end: seat {p} scores {points} + handicap {hc}, the kernel says "
                f"{self.logged.score[p]}"
            )
        if (feathers, cards) != (self.feathers[p], self.cards[p]):
            self.problems.append(
                f"the end: seat {p} holds {feathers} feathers and {cards} cards, the events say "
                f"{self.feathers[p]} and {self.cards[p]}"
            )
        self.check(
            rank == int(self.logged.rank[p]),
            f"the end: seat {p} ranks {rank}, the kernel says {int(self.logged.rank[p])}",
        )
        self.scored[p] = points + hc

    def ev_end(self, row: tuple[int, ...]) -> None:
        turns, end, winners = row[:3]
        if end == S.END_SETUP:
            self.say("The game ends before its first turn; every seat shares the win.")
        else:
            self.say(
                f"The pile holds no card after {_plural(turns, 'turn')}: the game is over "
                f"({_plural(winners, 'winner')})."
            )
        self.end = (turns, end)

    # ------------------------------------------------------------ the shadow against the engine

    def finish(self) -> None:
        """The events' shadow against the engine's final state: every seat's feathers, cards
        (which ones) and revealed bird, its score and rank, the turns and how the game ended,
        the pecks and the pieces that left the mat."""
        st = self.st
        logged = self.logged
        board = st.board
        for p in range(self.n):
            feathers = int(st.pl[p, S.PL_FEATHERS])
            cards = int(st.pl[p, S.PL_CARDS])
            self.check(
                (self.feathers[p], self.cards[p]) == (feathers, cards),
                f"at the end seat {p} holds {feathers} feathers and {cards} cards, the events "
                f"say {self.feathers[p]} and {self.cards[p]}",
            )
            held = {int(c) for c in np.flatnonzero(st.cc[:, S.CC_OWNER] == p)}
            told = {c for c, q in self.owner.items() if q == p}
            self.check(
                held == told,
                f"at the end seat {p} holds cards {sorted(held)}, the events say {sorted(told)}",
            )
            revealed = int(st.pl[p, S.PL_REVEALED]) != 0
            self.check(
                revealed == (p in self.revealed),
                f"seat {p}'s bird revealed: the engine says {revealed}, the events "
                f"{p in self.revealed}",
            )
            self.check(
                self.scored.get(p) == int(logged.score[p]),
                f"seat {p} scores {int(logged.score[p])}, the events say {self.scored.get(p)}",
            )
        self.check(
            self.end == (logged.turns, logged.end_reason + 1),
            f"the game ends after {logged.turns} turns ({logged.end_reason + 1}), the events say "
            f"{self.end}",
        )
        self.check(
            self.turns == logged.turns,
            f"the game lasts {logged.turns} turns, the events tell {self.turns}",
        )
        for what, told, kept in (
            ("pecks", self.pecks, int(board[S.G_PECKS])),
            ("cards off the mat", self.cards_off, int(board[S.G_OFF_MAT])),
            ("feathers removed", self.feathers_removed, int(board[S.G_F_REMOVED])),
        ):
            self.check(told == kept, f"{what}: the engine counts {kept}, the events {told}")


def tell(compiled: Compiled, logged: Logged, seed: int, game: int) -> _tell.Told:
    """The lines of a logged game: a header, the birds, every turn, the end and each seat's score
    with its breakdown, and where the events disagree with themselves or the engine's final
    state (``Told.problems``); raises ValueError on an event code it does not know."""
    narrator = Narrator(compiled, logged, seed, game)
    narrator.run()
    return narrator.told()


def event_lines(compiled: Compiled, log: np.ndarray, seed: int = 0, game: int = 0) -> list[str]:
    """The lines of the events of ``log`` alone (a game in progress, or a hand-built position):
    no final position, no checks against the engine; a card is named by its index."""
    logged = Logged(np.asarray(log), None, np.zeros(0, np.int32), np.zeros(0, np.int32), 0, 0)
    narrator = Narrator(compiled, logged, seed, game)
    for i, raw in enumerate(logged.log):
        handler = narrator.handlers.get(int(raw[0]))
        if handler is None:
            raise ValueError(f"event log row {i}: unknown event code {int(raw[0])}")
        handler(tuple(int(x) for x in raw[1:]))
    return narrator.lines


AIM_WORDS = {
    S.AIM_OUTWARD: "a little outward of its centre",
    S.AIM_CENTRE: "its centre",
    S.AIM_Q0: "its quarter point",
    S.AIM_Q1: "its quarter point",
    S.AIM_Q2: "its quarter point",
    S.AIM_Q3: "its quarter point",
    S.AIM_NAMED: "the point named",
}


def shown(st: S.State, c: int) -> str:
    """What card ``c`` shows to every seat: in the pile its up side, collected as it counts (a
    face-down single-sided card: its blank back)."""
    owner = int(st.cc[c, S.CC_OWNER])
    face = int(st.cc[c, S.CC_TAKEN_FACE]) if owner >= 0 else int(st.pile.cst[c, ph.CS_FACE])
    return a_item(int(st.item[c, 1 - face]))


def option_words(compiled: Compiled, st: S.State, code: int) -> str:
    """One short phrase for option ``code`` of ``st``'s pending decision (what every seat sees:
    a card by its index and the side it shows)."""
    kind = int(st.board[S.G_KIND])
    code = int(code)
    no = code == S.C_NO
    if kind == S.D_TICKET:
        return "flip no more tickets" if no else f"flip ticket #{code} face up for one more steal"
    if kind == S.D_PECK:
        return f"peck #{code} ({shown(st, code)} up)"
    if kind == S.D_AIM:
        c = int(st.board[S.G_PECK_CARD])
        if code == S.AIM_RANDOM:
            return f"peck #{c} at a random point of it"
        ax, ay = aim_xy(compiled, st, c, code)
        return f"peck #{c} at ({round(ax)}, {round(ay)}): {AIM_WORDS[code]}"
    if kind == S.D_PICK:
        return f"pick #{code} ({shown(st, code)} up)"
    if kind == S.D_ACORN:
        return "decline the acorn's peck" if no else f"peck #{code} with the acorn"
    if kind == S.D_EARRING:
        return "take no second earring" if no else f"take earring #{code} too"
    if kind == S.D_FEATHER:
        return "take no more feathers" if no else f"take feather {code} with the nut"
    if kind == S.D_PAPERCLIP:
        return "take no card with the paperclip" if no else f"take #{code} with the paperclip"
    if kind == S.D_STEAL:
        if no:
            return "steal nothing"
        return f"steal #{code} ({shown(st, code)}) from seat {int(st.cc[code, S.CC_OWNER])}"
    if kind == S.D_STRING:
        return "let the card go" if no else f"flip string #{code} to keep the card"
    raise ValueError(f"no decision is pending (kind {kind})")


def aim_xy(compiled: Compiled, st: S.State, c: int, code: int) -> tuple[float, float]:
    """The point of a fixed aim (every D_AIM code but AIM_RANDOM) at card ``c``: engine.apply_aim
    without its draw."""
    if code == S.AIM_NAMED:
        return float(st.fx[S.FX_AIM_X]), float(st.fx[S.FX_AIM_Y])
    prm = compiled.tb.physics
    cards = st.pile.cards
    x, y = float(cards[c, ph.CD_X]), float(cards[c, ph.CD_Y])
    if code == S.AIM_OUTWARD:
        d = (x * x + y * y) ** 0.5
        if d > 1e-9:
            k = 0.25 * min(prm[ph.PH_CARD_W], prm[ph.PH_CARD_H]) / d
            return x + k * x, y + k * y
        return x, y
    if code == S.AIM_CENTRE:
        return x, y
    q = code - S.AIM_Q0
    lx = prm[ph.PH_CARD_W] * (0.5 * (q % 2) - 0.25)
    ly = prm[ph.PH_CARD_H] * (0.5 * (q // 2) - 0.25)
    cs, sn = float(cards[c, ph.CD_C]), float(cards[c, ph.CD_S])
    return x + cs * lx - sn * ly, y + sn * lx + cs * ly


def handicap(compiled: Compiled, st: S.State, p: int) -> int:
    """The points ``rules.handicap`` adds to seat ``p``'s score (engine.ranks): the entry of its
    place in the turn order; none in a game whose set-up failed."""
    if int(st.board[S.G_END]) == S.END_SETUP:
        return 0
    place = (p - int(st.board[S.G_FIRST])) % compiled.players
    return int(compiled.tb.params[T.P_HANDICAP + place])


def held_words(st: S.State, p: int) -> str:
    """Seat ``p``'s collected cards by what they count as (a face-down coin said apart)."""
    counts: Counter[str] = Counter()
    for c in range(st.cc.shape[0]):
        if int(st.cc[c, S.CC_OWNER]) != p:
            continue
        i = int(S.counts_as(st, c))
        down = int(st.cc[c, S.CC_TAKEN_FACE]) == 0 and int(st.item[c, 1]) == T.BLANK
        label = ITEM_NAMES[i] + (" (face down)" if down and i == T.COIN else "")
        counts[label] += 1
    if not counts:
        return "no cards"
    return ", ".join(f"{k} {name}" for name, k in sorted(counts.items()))
