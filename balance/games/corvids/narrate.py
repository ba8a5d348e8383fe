"""Corvids replay: one game of a run, told event by event (``balance replay``), and the pile after
every turn for its pictures (``pictures.py``).

``replay(compiled, seed, game)`` plays game ``game`` of the run seeded with ``seed`` with the batch
kernel's own per-game function (``engine.play_game``) on a state that keeps an event log and the
pile after set-up and after every turn (``play_logged``), so the replay is the dataset's game. It
is a designer's view with the hidden information shown: every seat's bird from the start, the
item of every face-down card taken.

Log rows are ``(code, a, b, c, d, e, f, h)`` as ``engine.py`` passes them to ``emit`` (state.E_*
says what each integer is). The narrator recounts every seat's cards and feathers from the
events and checks them against each turn's event and the final state; a disagreement is a WARNING
line (the tests assert there is none). An unknown event code raises ValueError.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from balance.games import _kit as kit
from balance.games._kit import Logged
from balance.games._tell import Told
from balance.games.corvids import engine
from balance.games.corvids import physics as ph
from balance.games.corvids import state as S
from balance.games.corvids.schema import ITEM_NAMES
from balance.games.corvids.tables import BLANK, COIN, MAXP, P_HANDICAP, Compiled

LOG_CAP = kit.LOG_CAP


def play_logged(compiled: Compiled, seed: int, game: int) -> Logged:
    """Play game ``game`` of run ``seed`` exactly as ``engine.play_batch`` does, keeping the log
    and the pile after every turn (``Logged.state.snap``)."""
    tb = compiled.k
    n = compiled.players

    def play(cap: int) -> Logged:
        st = S.alloc_state(tb, cap, True)
        ib, fb = S.alloc_scratch(tb)
        engine.play_game(tb, st, np.int64(seed), np.int64(game), ib, fb)
        sc = np.zeros(MAXP, np.int64)
        rk = np.zeros(MAXP, np.int64)
        engine.ranks(tb, st, sc, rk)
        return Logged(
            S.log_rows(st),
            st,
            sc[:n].astype(np.int32),
            rk[:n].astype(np.int32),
            int(st.g[S.G_TURN]),
            int(st.g[S.G_END]) - 1,
        )

    return kit.play_logged(play, seed, game, LOG_CAP)


def item(i: int) -> str:
    return "blank back" if i == BLANK else ITEM_NAMES[i]


def a_item(i: int) -> str:
    """Item ``i`` with its article: "an acorn", "an earring", "a key", "a blank back"."""
    name = item(i)
    return ("an " if name[0] in "aeiou" else "a ") + name


def _plural(k: int, word: str) -> str:
    return f"{k} {word}" if k == 1 else f"{k} {word}s"


def card_words(st: S.State, c: int) -> str:
    """Card ``c`` named by both its sides (``#7 key/nut``; a single-sided card: ``#7 coin``)."""
    front, back = int(st.item[c, 0]), int(st.item[c, 1])
    return f"#{c} {ITEM_NAMES[front]}" + ("" if back == BLANK else f"/{ITEM_NAMES[back]}")


def tell(compiled: Compiled, logged: Logged, seed: int, game: int) -> Told:
    """The lines of a logged game: a header, the birds, every turn, the end and each seat's score
    with its breakdown; raises ValueError on an event code it does not know."""
    st = logged.state
    birds = compiled.bird_names
    seats = compiled.seat_policies
    n = compiled.players
    lines: list[str] = []
    problems: list[str] = []
    feathers = [0] * n
    cards = [0] * n
    names = [f"seat {p} ({seats[p]})" for p in range(n)]
    for row in logged.log:
        code, a, b, c, d, e, f, h = (int(x) for x in row)
        if code == S.E_START:
            lines.append(
                f"Corvids, game {game} of seed {seed}: {n} players, {c} trash cards and "
                f"{_plural(d, 'feather')}; seat {b} plays first."
            )
            if e < 0:
                lines.append(
                    "Set-up failed: no scatter put every card on the mat with every nest covered "
                    "(rules.physics.setup_retries; ENGINE-8). The game is not played."
                )
            elif compiled.k.physics[ph.PH_NEST_COVER] == ph.NEST_COMPLETE:
                lines.append(
                    f"Set-up: the pile was scattered {_plural(e + 1, 'time')}, "
                    f"{_plural(f, 'card')} that landed off the mat redrawn one at a time, and "
                    f"{_plural(h, 'card')} pushed over the nests it left bare until every nest "
                    "was completely covered (CV-8, PHYS-4); the feathers were dropped onto it."
                )
            else:
                lines.append(
                    f"Set-up: the pile was scattered {_plural(e + 1, 'time')} until a card "
                    f"overlapped every nest, {_plural(f, 'card')} that landed off the mat redrawn "
                    "one at a time (nest_cover: overlap; PHYS-4); the feathers were dropped onto "
                    "it."
                )
        elif code == S.E_BIRD:
            lines.append(f"{names[a]} is the {birds[b]} (nest {c}; hidden until it is uncovered).")
        elif code == S.E_TURN:
            lines.append(
                f"Turn {b + 1}: {names[a]} ({_plural(c, 'feather')}, {_plural(d, 'card')})"
            )
            if (c, d) != (feathers[a], cards[a]):
                problems.append(
                    f"turn {b + 1}: seat {a} holds {c} feathers and {d} cards, the events say "
                    f"{feathers[a]} and {cards[a]}"
                )
        elif code == S.E_TICKET:
            lines.append(f"  flips ticket #{b} face up: one more steal this turn")
        elif code == S.E_PECK:
            moved = f"{_plural(d, 'piece')} resting on it moved" if d else "nothing rested on it"
            off = f"; {_plural(e, 'piece')} went off the mat" if e else ""
            lines.append(
                f"  pecks {card_words(st, b)} at ({f}, {h}) mm: it now shows {item(c)}; "
                f"{moved}{off}"
            )
        elif code == S.E_MOVED:
            lines.append(f"    {card_words(st, a)} ({item(d)} up) moved to ({b}, {c}) mm")
        elif code == S.E_OFF:
            if a == 0:
                lines.append(f"  {card_words(st, b)} ({item(c)} up) is off the mat: out of play")
            else:
                lines.append("  a feather is off the mat: out of play")
        elif code == S.E_PICK:
            how = ("picks", "takes with the earring", "takes with the paperclip")[f]
            face = "face up" if d == 1 else "face down"
            gain = f", with {_plural(e, 'feather')}" if e else ""
            lines.append(f"  {how} {card_words(st, b)} {face}: {a_item(c)}{gain}")
            cards[a] += 1
            feathers[a] += e
        elif code == S.E_ABILITY:
            what = {
                "acorn": "pecks again",
                "earring": "takes another uncovered earring",
                "nut": "takes feathers from the pile",
                "paperclip": "takes a card touching it",
            }.get(ITEM_NAMES[b], "")
            lines.append(f"  {ITEM_NAMES[b]} ability: {what}")
        elif code == S.E_NUT:
            lines.append(f"  takes {_plural(b, 'feather')} from the pile")
            feathers[a] += b
        elif code == S.E_STEAL:
            pay = f"paying {_plural(e, 'feather')}"
            feathers[a] -= e
            if d >= 0:
                lines.append(
                    f"  tries to steal {card_words(st, c)} from {names[b]}, {pay}: "
                    f"{names[b]} flips string #{d} face up and keeps it"
                )
            else:
                lines.append(f"  steals {card_words(st, c)} ({a_item(f)}) from {names[b]}, {pay}")
                cards[a] += 1
                cards[b] -= 1
        elif code == S.E_NEST:
            lines.append(
                f"  {names[a]}'s nest {b} is uncovered: the {birds[c]} is revealed, and it can "
                "be stolen from while the nest stays open"
            )
        elif code == S.E_ISOLATED:
            lines.append(
                f"  end of turn: {_plural(a, 'card')} and {_plural(b, 'feather')} touching "
                "nothing are removed"
            )
        elif code == S.E_SCORE:
            hc = handicap(compiled, st, a)  # the event's points are CV-3's, without it
            lines.append(
                f"{names[a]}: {b + hc} points ({f'{hc:+d} handicap, ' if hc else ''}"
                f"bird bonus {c}, set bonus {d}), "
                f"{_plural(e, 'feather')}, {_plural(f, 'card')}, rank {h}"
                f"{' (wins)' if h == 1 else ''}: {held_words(st, a)}"
            )
            if b + hc != logged.score[a]:
                problems.append(
                    f"the end: seat {a} scores {b} + handicap {hc}, the kernel says "
                    f"{logged.score[a]}"
                )
            if (e, f) != (feathers[a], cards[a]):
                problems.append(
                    f"the end: seat {a} holds {e} feathers and {f} cards, the events say "
                    f"{feathers[a]} and {cards[a]}"
                )
        elif code == S.E_END:
            if b == engine.END_SETUP:
                lines.append("The game ends before its first turn; every seat shares the win.")
            else:
                lines.append(
                    f"The pile holds no card after {_plural(a, 'turn')}: the game is over "
                    f"({_plural(c, 'winner')})."
                )
        else:
            raise ValueError(f"unknown Corvids event code {code}")
    return Told(lines, problems)


def handicap(compiled: Compiled, st: S.State, p: int) -> int:
    """The points ``rules.handicap`` adds to seat ``p``'s score (engine.ranks): the entry of its
    place in the turn order; none in a game whose set-up failed."""
    if int(st.g[S.G_END]) == engine.END_SETUP:
        return 0
    place = (p - int(st.g[S.G_FIRST])) % compiled.players
    return int(compiled.k.params[P_HANDICAP + place])


def held_words(st: S.State, p: int) -> str:
    """Seat ``p``'s collected cards by what they count as (a face-down coin said apart)."""
    counts: Counter[str] = Counter()
    for c in range(st.cc.shape[0]):
        if int(st.cc[c, S.CC_OWNER]) != p:
            continue
        i = int(S.counts_as(st, c))
        down = int(st.cc[c, S.CC_TAKEN_FACE]) == 0 and int(st.item[c, 1]) == BLANK
        label = ITEM_NAMES[i] + (" (face down)" if down and i == COIN else "")
        counts[label] += 1
    if not counts:
        return "no cards"
    return ", ".join(f"{k} {name}" for name, k in sorted(counts.items()))
