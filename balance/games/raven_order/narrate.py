"""The Raven Order replay: one game of a run, told event by event (``balance replay``).

``play_logged(compiled, seed, game)`` plays game ``game`` of the run seeded with ``seed`` with the
batch kernel's own per-game function (``engine.play_game``, with the arguments ``play_batch``
gives it) on a state that keeps an event log, so the replay is the dataset's game; ``tell`` turns
the log into lines (``Narration``, a ``_tell.Narrator``): gold, builds, training, runes, each
battle with its powers and deaths, razed buildings, then each seat's final position. It is a
designer's view: the runes in both hands are named.

The narration keeps a shadow of what the events tell (``SeatShadow``: gold, workers, runes in
hand, the deck, buildings standing and the rune on each, units in play by type and rune),
compares it with what each turn's event says it starts from, and, in ``finish``, with the
engine's final state, so that a log out of step with the engine says so (``Told.problems``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from balance.games import _kit as kit
from balance.games import _tell
from balance.games.raven_order import engine
from balance.games.raven_order import state as S
from balance.games.raven_order import tables as T
from balance.games.raven_order.schema import BUILDING_NAMES, RUNE_NAMES, UNIT_NAMES

LOG_CAP = kit.LOG_CAP  # log rows of a first try; a game that fills them is replayed with more
ARMY = (T.SENTRY, T.RIDER, T.DRUID)  # the unit types that are rows of State.units


def play_logged(compiled: T.Compiled, seed: int, game: int) -> kit.Logged:
    """Play game ``game`` of run ``seed`` exactly as ``engine.play_batch`` does, keeping the log."""
    from balance.search import SearchTables

    if isinstance(compiled, SearchTables):  # search seats: the game they played (balance/search.py)
        from balance import games
        from balance.search import play_logged as search_logged

        return search_logged(games.get("raven_order"), compiled, seed, game).logged
    tb = compiled.tb

    def play(cap: int) -> kit.Logged:
        st = S.alloc_state(tb, cap)
        work = S.alloc_work(tb)
        engine.play_game(tb, st, np.int64(seed), np.int64(game), work)
        score = np.zeros(2, np.int32)
        rank = np.zeros(2, np.int32)
        for p in range(2):
            score[p], rank[p] = engine.outcome(st, p)
        # as play_batch writes turns, end_reason and the trajectory
        turns = int(st.board[S.G_TURN]) + 1
        trace = kit.one_trace(engine.record_trace, tb, st, work, S.trace_cap(tb), 2, S.N_TRACE)
        return kit.Logged(
            S.log_rows(st),
            st,
            score,
            rank,
            turns,
            int(st.board[S.G_END]) - 1,
            trace,
        )

    return kit.play_logged(play, seed, game, LOG_CAP)


def tell(compiled: T.Compiled, logged: kit.Logged, seed: int, game: int) -> _tell.Told:
    """The lines of a logged game: its events, then each seat's final position, with the places
    where the events disagree with themselves or with the final state; raises ValueError on an
    event code it does not know."""
    narration = Narration(compiled, logged, seed, game)
    narration.run()
    return narration.told()


def event_lines(compiled: T.Compiled, log: np.ndarray, seed: int = 0, game: int = 0) -> list[str]:
    """The lines of the events of ``log`` alone, without the final position or any check: the
    log of a hand-built position (tests), which starts in the middle of a game."""
    narration = Narration(compiled, None, seed, game)
    for i, raw in enumerate(log):
        handler = narration.handlers.get(int(raw[0]))
        if handler is None:
            raise ValueError(f"event log row {i}: unknown event code {int(raw[0])}")
        handler(tuple(int(x) for x in raw[1:]))
    return narration.lines


# ---------------------------------------------------------------- names


def _rune(r: int) -> str:
    return RUNE_NAMES[r].replace("_", " ").title()


def _bld(b: int) -> str:
    return BUILDING_NAMES[b].replace("_", " ").title().replace("Academy ", "Academy Lv. ")


def _unit(t: int, plural: bool = False) -> str:
    name = UNIT_NAMES[t]
    if plural:
        return "sentries" if name == "sentry" else name + "s"
    return name


def _s(n: int) -> str:
    return "s" if n != 1 else ""


# ---------------------------------------------------------------- the shadow


@dataclass
class SeatShadow:
    """What the events tell of one seat: the engine's ``State.pl`` row as far as the log shows."""

    gold: int = 0
    workers: int = 0
    hand: int = 0  # runes in hand (which ones the log does not say until they are played)
    built: dict[int, int] = field(default_factory=dict)  # building standing -> its rune, -1 none
    units: Counter[tuple[int, int]] = field(default_factory=Counter)  # (type, rune) -> in play

    def n_units(self) -> int:
        return sum(self.units.values())


class Narration(_tell.Narrator):
    """The Raven Order's narrator: one handler per ``state.E_*`` event, a ``SeatShadow`` per seat.

    ``logged`` may be None (``event_lines``): the handlers then only tell, and nothing is checked
    against a final state.
    """

    def __init__(
        self, compiled: T.Compiled, logged: kit.Logged | None, seed: int, game: int
    ) -> None:
        super().__init__(logged)
        self.compiled = compiled
        self.tb = compiled.tb
        self.names = compiled.seat_policies
        self.seed = seed
        self.game = game
        self.seat = [SeatShadow(), SeatShadow()]
        self.first = -1  # the first player (E_START)
        self.deck_n = 0  # runes the deck was dealt from
        self.deck = 0  # runes left in it
        self.turns = 0  # E_TURN events told
        self.end: tuple[int, int, int] | None = None  # E_END's reason, winner, turns
        self.handlers = {
            S.E_START: self.ev_start,
            S.E_TURN: self.ev_turn,
            S.E_HARVEST: self.ev_harvest,
            S.E_BUILD: self.ev_build,
            S.E_STATUE: self.ev_statue,
            S.E_TRAIN: self.ev_train,
            S.E_SELL: self.ev_sell,
            S.E_RUNE: self.ev_rune,
            S.E_CORRUPT: self.ev_corrupt,
            S.E_ATTACK: self.ev_attack,
            S.E_CANINE: self.ev_canine,
            S.E_CONQUEST: self.ev_conquest,
            S.E_PREKILL: self.ev_prekill,
            S.E_BATTLE: self.ev_battle,
            S.E_DEATH: self.ev_death,
            S.E_SQUIRE: self.ev_squire,
            S.E_LOOT: self.ev_loot,
            S.E_POISON: self.ev_poison,
            S.E_DESTROY: self.ev_destroy,
            S.E_END: self.ev_end,
        }

    def say(self, line: str) -> None:
        self.lines.append(line)

    # ------------------------------------------------------------ shadow changes

    def draw(self, p: int, n: int = 1) -> None:
        """``n`` runes from the deck to ``p``'s hand (as many as the events say were drawn)."""
        self.check(n <= self.deck, f"seat {p} draws {n} runes from a deck of {self.deck}")
        self.deck -= n
        self.seat[p].hand += n

    def gold_is(self, p: int, gold: int, what: str) -> None:
        """The gold an event says ``p`` has now, against the shadow's."""
        have = self.seat[p].gold
        self.check(
            have == gold, f"seat {p}'s gold after {what}: the event says {gold}, the events {have}"
        )

    def lose_worker(self, p: int, what: str) -> None:
        self.check(self.seat[p].workers > 0, f"seat {p} loses a worker it does not have ({what})")
        self.seat[p].workers -= 1

    def lose_unit(self, p: int, t: int, r: int, what: str) -> None:
        """Unit (type ``t``, rune ``r``) of ``p`` leaves play (a worker: one fewer)."""
        if t == T.WORKER:
            self.lose_worker(p, what)
            return
        units = self.seat[p].units
        unit = _unit(t) + (f" with {_rune(r)}" if r >= 0 else "")
        self.check(units[(t, r)] > 0, f"seat {p} loses a {unit} it does not have ({what})")
        units[(t, r)] -= 1

    # ------------------------------------------------------------ handlers (one per E_*)

    def ev_start(self, row: tuple[int, ...]) -> None:
        first, n = row[0], row[1]
        self.say(
            f"Game {self.game} of seed {self.seed}: seat 0 plays {self.names[0]}, seat 1 plays "
            f"{self.names[1]}; seat {first} goes first; the rune deck holds {n} runes."
        )
        # engine.setup after the deck is shuffled (RO-1, ENGINE-3)
        params = self.tb.params
        self.first, self.deck_n, self.deck = first, n, n
        self.seat = [SeatShadow(), SeatShadow()]
        for p in (first, 1 - first):
            s = self.seat[p]
            s.gold = int(params[T.P_START_GOLD])
            s.built = {b: -1 for b in range(T.NB) if params[T.P_START_BLD + b] != 0}
            self.draw(p, min(int(params[T.P_START_HAND]), self.deck))
        second = self.seat[1 - first]
        second.units[(T.SENTRY, -1)] += int(params[T.P_COMP_SENTRIES])
        second.workers += int(params[T.P_COMP_WORKERS])
        second.gold += int(params[T.P_COMP_GOLD])

    def ev_turn(self, row: tuple[int, ...]) -> None:
        p, turn, gold, workers, nbld, units, hand = row
        self.say("")
        self.say(
            f"Turn {turn + 1}, seat {p} ({self.names[p]}): {gold} gold, {workers} workers, "
            f"{nbld} buildings, {units} units, {hand} runes in hand."
        )
        s = self.seat[p]
        told = (turn, p, gold, workers, nbld, units, hand)
        mover = self.first if self.turns % 2 == 0 else 1 - self.first
        shadow = (self.turns, mover, s.gold, s.workers, len(s.built), s.n_units(), s.hand)
        self.check(
            told == shadow,
            f"turn {turn + 1} starts from (turn, seat, gold, workers, buildings, units, hand) "
            f"{told}, the events before it tell {shadow}",
        )
        self.turns += 1

    def ev_harvest(self, row: tuple[int, ...]) -> None:
        p, gained, workers, drawn, gold = row[:5]
        parts = [
            f"+{gained} gold" if gained >= 0 else f"{gained} gold",
            f"+{workers} worker{_s(workers)}",
        ]
        if drawn:
            parts.append(f"draws {drawn} rune{_s(drawn)}")
        self.say(f"  Harvest: {', '.join(parts)} (gold {gold}).")
        s = self.seat[p]
        s.gold += gained
        s.workers += workers
        self.draw(p, drawn)
        self.gold_is(p, gold, "the harvest")

    def ev_build(self, row: tuple[int, ...]) -> None:
        p, b, cost, gold = row[:4]
        self.say(f"  Builds {_bld(b)} for {cost} gold (gold {gold}).")
        s = self.seat[p]
        self.check(b not in s.built, f"seat {p} builds its {_bld(b)}, which stands")
        self.check(cost == self.tb.bld[b, T.BD_COST], f"the {_bld(b)} costs {cost}")
        s.built[b] = -1
        s.gold -= cost
        self.gold_is(p, gold, f"building the {_bld(b)}")

    def ev_statue(self, row: tuple[int, ...]) -> None:
        p, choice, n = row[:3]
        what = T.STATUE_CHOICES[choice]
        text = {
            "workers": f"takes {n} workers",
            "runes": f"draws {n} rune{_s(n)}",
            "builds": f"may build {n} more buildings this turn",
        }[what]
        self.say(f"    The Statue: {text}.")
        if choice == T.STATUE_WORKERS:
            self.seat[p].workers += n
        elif choice == T.STATUE_RUNES:
            self.draw(p, n)

    def ev_train(self, row: tuple[int, ...]) -> None:
        p, to, cost, gold = row[:4]
        self.say(f"  Trains a {_unit(to)} for {cost} gold (gold {gold}).")
        s = self.seat[p]
        self.lose_unit(p, to - 1, -1, f"training a {_unit(to)}")  # only druids carry runes
        s.units[(to, -1)] += 1
        s.gold -= cost
        self.gold_is(p, gold, f"training a {_unit(to)}")

    def ev_sell(self, row: tuple[int, ...]) -> None:
        p, price, gold = row[:3]
        self.say(f"  Sells a worker for {price} gold (gold {gold}).")
        self.lose_worker(p, "selling it")
        self.seat[p].gold += price
        self.gold_is(p, gold, "selling a worker")

    def ev_rune(self, row: tuple[int, ...]) -> None:
        p, r, on_druid, host = row[0], row[1], row[2] < 0, row[3]
        self.say(f"  Plays {_rune(r)} on {'a druid' if on_druid else f'the {_bld(host)}'}.")
        s = self.seat[p]
        self.check(s.hand > 0, f"seat {p} plays {_rune(r)} from an empty hand")
        s.hand -= 1
        if on_druid:
            self.lose_unit(p, T.DRUID, -1, f"painting it with {_rune(r)}")
            s.units[(T.DRUID, r)] += 1
        else:
            self.check(
                s.built.get(host) == -1,
                f"seat {p} plays {_rune(r)} on its {_bld(host)}, which does not stand bare",
            )
            s.built[host] = r

    def ev_corrupt(self, row: tuple[int, ...]) -> None:
        p, t, r = row[:3]
        if t < 0:
            self.say("    Corruption finds no enemy unit to take.")
            return
        rune = f" painted with {_rune(r)}" if r >= 0 else ""
        self.say(f"    Corruption takes an enemy {_unit(t)}{rune}; it cannot attack this turn.")
        self.lose_unit(1 - p, t, r, "Corruption")
        if t == T.WORKER:
            self.seat[p].workers += 1
        else:
            self.seat[p].units[(t, r)] += 1

    def ev_attack(self, row: tuple[int, ...]) -> None:
        p, t, power, r = row[:4]
        self.say(f"  War: a {_unit(t)} attacks (power {power}{f', {_rune(r)}' if r >= 0 else ''}).")
        self.check(self.seat[p].units[(t, r)] > 0, f"seat {p} attacks with a {_unit(t)} it lacks")

    def ev_canine(self, row: tuple[int, ...]) -> None:
        self.say(f"    Canine: one rider gains +{row[1]} power.")

    def ev_conquest(self, row: tuple[int, ...]) -> None:
        p, w = row[:2]
        self.say(f"    Conquest: +{w} worker{_s(w)}.")
        self.seat[p].workers += w

    def ev_prekill(self, row: tuple[int, ...]) -> None:
        killer, source, t, r, saved = row[:5]
        victim = f"seat {1 - killer}'s {_unit(t)}"
        if saved:
            self.say(
                f"    {_rune(source)} would kill {victim} before the battle; Squire: a worker "
                "dies in its place."
            )
            self.lose_worker(1 - killer, "Squire")
        else:
            rune = f" (its {_rune(r)} is lost)" if r >= 0 else ""
            self.say(f"    {_rune(source)} kills {victim} before the battle{rune}.")
            self.lose_unit(1 - killer, t, r, _rune(source))

    def ev_battle(self, row: tuple[int, ...]) -> None:
        t, power, against, blockers, dies = row[1:6]
        verdict = "the attacker dies" if dies else "the attacker survives"
        self.say(
            f"  Battle: a {_unit(t)} of power {power} against {blockers} blocker{_s(blockers)}"
            f" of total power {against}: {verdict}."
        )

    def ev_death(self, row: tuple[int, ...]) -> None:
        owner, t, r = row[:3]
        rune = f" (its {_rune(r)} is lost)" if r >= 0 else ""
        self.say(f"    Seat {owner}'s {_unit(t)} dies{rune}.")
        self.lose_unit(owner, t, r, "a battle")

    def ev_squire(self, row: tuple[int, ...]) -> None:
        self.say("    Squire: a worker dies in the rider's place.")
        self.lose_worker(row[0], "Squire")

    def ev_loot(self, row: tuple[int, ...]) -> None:
        p, gold = row[:2]
        self.say(f"    Looting: +{gold} gold.")
        self.seat[p].gold += gold

    def ev_poison(self, row: tuple[int, ...]) -> None:
        p, t, r = row[:3]
        rune = f" (its {_rune(r)} is lost)" if r >= 0 else ""
        self.say(f"    Poisons kills seat {1 - p}'s {_unit(t)}{rune}.")
        self.lose_unit(1 - p, t, r, "Poisons")

    def ev_destroy(self, row: tuple[int, ...]) -> None:
        p, b = row[:2]
        self.say(f"  An unblocked attacker destroys seat {1 - p}'s {_bld(b)}.")
        built = self.seat[1 - p].built
        self.check(b in built, f"seat {p} destroys seat {1 - p}'s {_bld(b)}, which does not stand")
        built.pop(b, None)

    def ev_end(self, row: tuple[int, ...]) -> None:
        reason, winner, turns = row[:3]
        self.say("")
        if reason == S.END_DESTRUCTION:
            self.say(
                f"Seat {winner} ({self.names[winner]}) wins: seat {1 - winner} has no building "
                f"left after {turns} turns."
            )
            left = sorted(self.seat[1 - winner].built)
            self.check(not left, f"seat {1 - winner} loses with buildings standing: {left}")
        else:
            self.say(f"Draw: the turn cap ends the game after {turns} turns.")
        self.check(
            turns == self.turns, f"the game ends after {turns} turns, the log tells {self.turns}"
        )
        self.end = (reason, winner, turns)

    # ------------------------------------------------------------ the end

    def finish(self) -> None:
        """The shadow against the engine's final state, then each seat's final position."""
        logged = self.logged
        if logged is None:
            return
        st = logged.state
        board = st.board
        self.check(self.end is not None, "the log has no end of the game")
        if self.end is not None:
            reason = self.end[0]
            engine_end = (int(board[S.G_END]), int(board[S.G_WINNER]), logged.turns)
            self.check(
                self.end == engine_end,
                f"the log ends the game with (reason, winner, turns) {self.end}, the engine"
                f" with {engine_end}",
            )
            self.check(reason - 1 == logged.end_reason, f"end reason {logged.end_reason}")
        self.check(self.first == board[S.G_FIRST], f"the log's first player is {self.first}")
        drawn = int(board[S.G_DECK_TOP])
        self.check(
            self.deck_n - self.deck == drawn,
            f"the events draw {self.deck_n - self.deck} runes, the engine {drawn}",
        )
        for p, s in enumerate(self.seat):
            self.check_seat(p, s, st, int(logged.score[p]))
        self.lines.extend(self.final_position(st, logged.score, logged.rank))

    def check_seat(self, p: int, s: SeatShadow, st: Any, score: int) -> None:
        pl = st.pl[p]
        engine_built = {b: int(pl[S.PL_BRUNE + b]) for b in range(T.NB) if pl[S.PL_BUILT + b] != 0}
        rows = range(int(pl[S.PL_NU]))
        engine_units = Counter(
            (int(st.units[p, i, S.U_TYPE]), int(st.units[p, i, S.U_RUNE]))
            for i in rows
            if st.units[p, i, S.U_DEAD] == 0
        )
        in_play = Counter(r for r in s.built.values() if r >= 0)
        for (_, r), n in s.units.items():
            if r >= 0:
                in_play[r] += n
        pairs = [
            ("gold", s.gold, int(pl[S.PL_GOLD])),
            ("workers", s.workers, int(pl[S.PL_WORKERS])),
            ("runes in hand", s.hand, int(pl[S.PL_HAND_N])),
            ("buildings and their runes", s.built, engine_built),
            ("score (buildings standing)", len(s.built), score),
            ("units (type, rune)", +s.units, engine_units),
            ("unit rows", s.n_units(), int(pl[S.PL_NU])),
            (
                "sentries, riders, druids",
                [sum(n for (t, _), n in s.units.items() if t == u) for u in ARMY],
                [int(pl[S.PL_CNT + u]) for u in ARMY],
            ),
            (
                "runes in play",
                +in_play,
                Counter({r: int(pl[S.PL_INPLAY + r]) for r in range(T.NR) if pl[S.PL_INPLAY + r]}),
            ),
        ]
        for what, told, final in pairs:
            self.check(
                told == final, f"seat {p}'s {what}: the events tell {told}, the engine has {final}"
            )

    def final_position(self, st: Any, scores: np.ndarray, ranks: np.ndarray) -> list[str]:
        """Each seat's final position (the engine's): buildings (with runes), units, workers,
        gold, runes in hand."""
        out = ["Final position"]
        for p in range(2):
            blds = []
            for b, _ in enumerate(BUILDING_NAMES):
                if st.pl[p, S.PL_BUILT + b]:
                    r = int(st.pl[p, S.PL_BRUNE + b])
                    blds.append(_bld(b) + (f" ({_rune(r)})" if r >= 0 else ""))
            units = ", ".join(
                f"{int(st.pl[p, S.PL_CNT + t])} {_unit(t, plural=int(st.pl[p, S.PL_CNT + t]) != 1)}"
                for t in ARMY
            )
            hand = [
                _rune(r)
                for r in range(len(RUNE_NAMES))
                for _ in range(int(st.pl[p, S.PL_HAND + r]))
            ]
            place = (
                "winner"
                if ranks[p] == 1 and ranks[1 - p] != 1
                else ("draw" if ranks[p] == ranks[1 - p] else "loser")
            )
            out.append(
                f"  Seat {p} ({self.names[p]}, {place}): score {int(scores[p])} = "
                f"{len(blds)} buildings standing: {', '.join(blds) or 'none'}"
            )
            out.append(
                f"    units: {units}, {int(st.pl[p, S.PL_WORKERS])} workers; "
                f"{int(st.pl[p, S.PL_GOLD])} gold; hand: {', '.join(hand) or 'empty'}"
            )
        return out


# ---------------------------------------------------------------- decision options


def _row(st: S.State, p: int, i: int) -> str:
    """Unit row ``i`` of seat ``p`` in words: "druid 3 (Frost Mark)"."""
    t = int(st.units[p, i, S.U_TYPE])
    r = int(st.units[p, i, S.U_RUNE])
    return f"{_unit(t)} {i}" + (f" ({_rune(r)})" if r >= 0 else "")


def option_words(compiled: T.Compiled, st: S.State, code: int) -> str:
    """One short phrase for option ``code`` of the pending decision of ``st`` (engine.legal's
    codes): "build the Armory", "train a sentry into a rider", "block rider 4 (attacker 1)" ..."""
    b = st.board
    kind = int(b[S.G_PKIND])
    actor = int(b[S.G_PACTOR])
    p = int(b[S.G_ACTIVE])
    q = 1 - p
    code = int(code)
    if kind < 0:
        raise ValueError("no decision is pending")
    if kind == S.D_ACTION:
        if code == S.AC_END:
            return "end Construction"
        if code < S.AC_TRAIN:
            return f"build the {_bld(code - S.AC_BUILD)}"
        if code < S.AC_SELL:
            f = code - S.AC_TRAIN
            return f"train a {_unit(f)} into a {_unit(f + 1)}"
        if code == S.AC_SELL:
            return "sell a worker"
        return f"play the {_rune(code - S.AC_RUNE)}"
    if kind == S.D_STATUE:
        return ("take the Statue's workers", "draw the Statue's runes", "take the Statue's builds")[
            code
        ]
    if kind == S.D_TRAIN_UNIT:
        return f"train {_row(st, p, code)}"
    if kind == S.D_RUNE_HOST:
        r = int(b[S.G_ARG])
        if compiled.tb.rune[r, T.RN_TARGET] == T.T_DRUID:
            return f"paint {_row(st, p, code)}"
        return f"put it on the {_bld(code)}"
    if kind in (S.D_CORRUPTION, S.D_DAWN_RAID, S.D_SPIRIT_ATTACK, S.D_SPIRIT_BLOCK):
        verb = "take" if kind == S.D_CORRUPTION else "kill"
        other = 1 - actor
        if code == S.TG_WORKER:
            return f"{verb} a worker of seat {other}"
        return f"{verb} {_row(st, other, code)} of seat {other}"
    if kind == S.D_ATTACK:
        unit = _row(st, p, int(b[S.G_I]))
        return f"attack with {unit}" if code else f"keep {unit} home"
    if kind == S.D_CANINE:
        return f"strengthen {_row(st, p, int(st.aux[S.A_ATK, code]))} with the Canine"
    if kind == S.D_SQUIRE:
        return "a worker dies in the rider's place" if code else "the rider dies"
    if kind == S.D_BLOCK:
        unit = _row(st, q, int(b[S.G_I]))
        if code == 0:
            return f"{unit} does not block"
        return f"{unit} blocks {_row(st, p, int(st.aux[S.A_ATK, code - 1]))} (attacker {code - 1})"
    if kind == S.D_WORKER_BLOCK:
        if code == 0:
            return "no more workers block"
        return (
            f"a worker blocks {_row(st, p, int(st.aux[S.A_ATK, code - 1]))} (attacker {code - 1})"
        )
    if kind == S.D_KILL:
        unit = _row(st, q, int(st.aux[S.A_GROUP, int(b[S.G_K])]))
        return f"kill {unit}" if code else f"spare {unit}"
    if kind == S.D_DESTROY:
        return f"destroy the {_bld(code)}"
    raise ValueError(f"unknown decision kind {kind}")
