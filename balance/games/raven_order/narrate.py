"""The Raven Order replay: one game of a run, told event by event (``balance replay``).

``replay(compiled, seed, game)`` replays game ``game`` of the run seeded with ``seed`` with the
batch kernel's own per-game function (``engine.play_game``, with the arguments ``play_batch``
gives it) on a state that keeps an event log (``play_logged``), so the replay is the dataset's
game, turns the log into lines (``tell``): gold, builds, training, runes, each battle with its
powers and deaths, and razed buildings, and returns them with the outcome as a ``base.Replay``;
the plugin's ``narrate`` is its lines. It is a designer's view: the runes in both hands are named.
"""

from __future__ import annotations

import numpy as np

from balance.games import _kit as kit
from balance.games._kit import Logged
from balance.games._tell import Told
from balance.games.raven_order import engine, state
from balance.games.raven_order.schema import BUILDING_NAMES, RUNE_NAMES, UNIT_NAMES
from balance.games.raven_order.state import (
    END_DESTRUCTION,
    G_END,
    G_TURN,
    PL_BRUNE,
    PL_BUILT,
    PL_CNT,
    PL_GOLD,
    PL_HAND,
    PL_WORKERS,
    alloc_scratch,
    alloc_state,
    log_rows,
)
from balance.games.raven_order.tables import DRUID, RIDER, SENTRY, STATUE_CHOICES, Compiled

LOG_CAP = kit.LOG_CAP  # log rows of a first try; a game that fills them is replayed with more


def play_logged(compiled: Compiled, seed: int, game: int) -> Logged:
    """Play game ``game`` of run ``seed`` exactly as ``engine.play_batch`` does, keeping the log."""
    tb = compiled.k

    def play(cap: int) -> Logged:
        st = alloc_state(tb, cap)
        act, group, powers, kills = alloc_scratch()
        engine.play_game(tb, st, np.int64(seed), np.int64(game), act, group, powers, kills)
        score = np.zeros(2, np.int32)
        rank = np.zeros(2, np.int32)
        for p in range(2):
            score[p], rank[p] = engine.outcome(st, p)
        # as play_batch writes turns and end_reason
        turns = int(st.board[G_TURN]) + 1
        return Logged(log_rows(st), st, score, rank, turns, int(st.board[G_END]) - 1)

    return kit.play_logged(play, seed, game, LOG_CAP)


def tell(compiled: Compiled, logged: Logged, seed: int, game: int) -> Told:
    """The lines of a logged game: its events, then each seat's final position; raises
    ValueError on an event code it does not know."""
    lines = _tell(compiled, logged.log, seed, game)
    return Told(lines + _final(compiled, logged.state, logged.score, logged.rank), [])


def _rune(r: int) -> str:
    return RUNE_NAMES[r].replace("_", " ").title()


def _bld(b: int) -> str:
    return BUILDING_NAMES[b].replace("_", " ").title().replace("Academy ", "Academy Lv. ")


def _unit(t: int, plural: bool = False) -> str:
    name = UNIT_NAMES[t]
    if plural:
        return "sentries" if name == "sentry" else name + "s"
    return name


def _seat(p: int) -> str:
    return f"seat {p}"


def _final(compiled: Compiled, st, scores: np.ndarray, ranks: np.ndarray) -> list[str]:
    """Each seat's final position: buildings (with runes), units, workers, gold, runes in hand."""
    out = ["Final position"]
    for p in range(2):
        blds = []
        for b, _ in enumerate(BUILDING_NAMES):
            if st.pl[p, PL_BUILT + b]:
                r = int(st.pl[p, PL_BRUNE + b])
                blds.append(_bld(b) + (f" ({_rune(r)})" if r >= 0 else ""))
        units = ", ".join(
            f"{int(st.pl[p, PL_CNT + t])} {_unit(t, plural=int(st.pl[p, PL_CNT + t]) != 1)}"
            for t in (SENTRY, RIDER, DRUID)
        )
        hand = [_rune(r) for r in range(len(RUNE_NAMES)) for _ in range(int(st.pl[p, PL_HAND + r]))]
        place = (
            "winner"
            if ranks[p] == 1 and ranks[1 - p] != 1
            else ("draw" if ranks[p] == ranks[1 - p] else "loser")
        )
        out.append(
            f"  Seat {p} ({compiled.seat_policies[p]}, {place}): score {int(scores[p])} = "
            f"{len(blds)} buildings standing: {', '.join(blds) or 'none'}"
        )
        out.append(
            f"    units: {units}, {int(st.pl[p, PL_WORKERS])} workers; "
            f"{int(st.pl[p, PL_GOLD])} gold; hand: {', '.join(hand) or 'empty'}"
        )
    return out


def _tell(compiled: Compiled, log: np.ndarray, seed: int, game: int) -> list[str]:
    seats = compiled.seat_policies
    out: list[str] = []
    for row in log:
        code, a, b, c, d, f, g, h = (int(x) for x in row)
        if code == state.E_START:
            out.append(
                f"Game {game} of seed {seed}: seat 0 plays {seats[0]}, seat 1 plays {seats[1]}; "
                f"seat {a} goes first; the rune deck holds {b} runes."
            )
        elif code == state.E_TURN:
            out.append("")
            out.append(
                f"Turn {b + 1}, seat {a} ({seats[a]}): {c} gold, {d} workers, {f} buildings, "
                f"{g} units, {h} runes in hand."
            )
        elif code == state.E_HARVEST:
            parts = [f"+{b} gold" if b >= 0 else f"{b} gold", f"+{c} worker{'s' if c != 1 else ''}"]
            if d:
                parts.append(f"draws {d} rune{'s' if d != 1 else ''}")
            out.append(f"  Harvest: {', '.join(parts)} (gold {f}).")
        elif code == state.E_BUILD:
            out.append(f"  Builds {_bld(b)} for {c} gold (gold {d}).")
        elif code == state.E_STATUE:
            what = STATUE_CHOICES[b]
            text = {
                "workers": f"takes {c} workers",
                "runes": f"draws {c} rune{'s' if c != 1 else ''}",
                "builds": f"may build {c} more buildings this turn",
            }[what]
            out.append(f"    The Statue: {text}.")
        elif code == state.E_TRAIN:
            out.append(f"  Trains a {_unit(b)} for {c} gold (gold {d}).")
        elif code == state.E_SELL:
            out.append(f"  Sells a worker for {b} gold (gold {c}).")
        elif code == state.E_RUNE:
            host = "a druid" if c < 0 else f"the {_bld(d)}"
            out.append(f"  Plays {_rune(b)} on {host}.")
        elif code == state.E_CORRUPT:
            if b < 0:
                out.append("    Corruption finds no enemy unit to take.")
            else:
                rune = f" painted with {_rune(c)}" if c >= 0 else ""
                out.append(
                    f"    Corruption takes an enemy {_unit(b)}{rune}; it cannot attack this turn."
                )
        elif code == state.E_ATTACK:
            rune = f", {_rune(d)}" if d >= 0 else ""
            out.append(f"  War: a {_unit(b)} attacks (power {c}{rune}).")
        elif code == state.E_CANINE:
            out.append(f"    Canine: one rider gains +{b} power.")
        elif code == state.E_CONQUEST:
            out.append(f"    Conquest: +{b} worker{'s' if b != 1 else ''}.")
        elif code == state.E_PREKILL:
            victim = f"seat {1 - a}'s {_unit(c)}"
            if f:
                out.append(
                    f"    {_rune(b)} would kill {victim} before the battle; Squire: a worker "
                    "dies in its place."
                )
            else:
                rune = f" (its {_rune(d)} is lost)" if d >= 0 else ""
                out.append(f"    {_rune(b)} kills {victim} before the battle{rune}.")
        elif code == state.E_BATTLE:
            verdict = "the attacker dies" if g else "the attacker survives"
            out.append(
                f"  Battle: a {_unit(b)} of power {c} against {f} blocker{'s' if f != 1 else ''}"
                f" of total power {d}: {verdict}."
            )
        elif code == state.E_DEATH:
            rune = f" (its {_rune(c)} is lost)" if c >= 0 else ""
            out.append(f"    Seat {a}'s {_unit(b)} dies{rune}.")
        elif code == state.E_SQUIRE:
            out.append("    Squire: a worker dies in the rider's place.")
        elif code == state.E_LOOT:
            out.append(f"    Looting: +{b} gold.")
        elif code == state.E_POISON:
            rune = f" (its {_rune(c)} is lost)" if c >= 0 else ""
            out.append(f"    Poisons kills seat {1 - a}'s {_unit(b)}{rune}.")
        elif code == state.E_DESTROY:
            out.append(f"  An unblocked attacker destroys seat {1 - a}'s {_bld(b)}.")
        elif code == state.E_END:
            out.append("")
            if a == END_DESTRUCTION:
                out.append(
                    f"Seat {b} ({seats[b]}) wins: seat {1 - b} has no building left "
                    f"after {c} turns."
                )
            else:
                out.append(f"Draw: the turn cap ends the game after {c} turns.")
        else:
            raise ValueError(f"unknown event code {code}")
    return out
