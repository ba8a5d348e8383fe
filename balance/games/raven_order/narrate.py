"""The Raven Order replay: one game of a run, told event by event (``balance replay``).

``narrate(compiled, seed, game)`` replays game ``game`` of the run seeded with ``seed`` with the
batch kernel's own per-game function (``engine.play_game``, with the arguments ``play_batch``
gives it) on a state that keeps an event log, so the replay is the dataset's game, and turns the
log into lines: gold, builds, training, runes, each battle with its powers and deaths, and razed
buildings. It is a designer's view: the runes in both hands are named.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from balance.games.raven_order import engine as e
from balance.games.raven_order.schema import BUILDING_NAMES, RUNE_NAMES, UNIT_NAMES
from balance.games.raven_order.state import (
    CAPU,
    G_LOG0,
    G_LOG_N,
    LOG_WIDTH,
    PL_BRUNE,
    PL_BUILT,
    PL_CNT,
    PL_GOLD,
    PL_HAND,
    PL_WORKERS,
    alloc_state,
)
from balance.games.raven_order.tables import STATUE_CHOICES, Compiled

LOG_CAP = 4096  # log rows of a first try; a game that fills them is replayed with more


class Replay(NamedTuple):
    """One game told in lines, with the kernel's scores, ranks, turns and end reason."""

    lines: list[str]
    scores: np.ndarray  # int32[2]
    ranks: np.ndarray  # int32[2]
    turns: int
    end_reason: int  # index into the plugin's end_reasons


def narrate(compiled: Compiled, seed: int, game: int) -> list[str]:
    """Game ``game`` of the run seeded with ``seed``, event by event, in words."""
    return replay(compiled, seed, game).lines


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


def replay(compiled: Compiled, seed: int, game: int) -> Replay:
    """Replay game ``game`` of run ``seed``: its lines and outcome (as in the dataset)."""
    if game < 0:
        raise ValueError(f"game must be >= 0, got {game}")
    if not 0 <= seed < 2**63:
        raise ValueError(f"seed must be in [0, 2**63), got {seed}")
    tb = compiled.k
    cap = LOG_CAP
    while True:
        st = alloc_state(tb, cap)
        act = np.zeros(3, np.int32)
        group = np.zeros(CAPU, np.int32)
        powers = np.zeros(CAPU, np.int32)
        kills = np.zeros(CAPU, np.int32)
        e.play_game(tb, st, np.int64(seed), np.int64(game), act, group, powers, kills)
        n = int(st.board[G_LOG_N])
        if n < cap:
            break
        cap *= 4
    log0 = int(st.board[G_LOG0])
    log = st.aux[log0 : log0 + n, :LOG_WIDTH]
    scores = np.zeros(2, np.int32)
    ranks = np.zeros(2, np.int32)
    for p in range(2):
        s, r = e.outcome(st, p)
        scores[p], ranks[p] = s, r
    turns = int(st.board[e.G_TURN]) + 1
    end_reason = int(st.board[e.G_END]) - 1
    lines = _tell(compiled, log, seed, game)
    lines += _final(compiled, st, scores, ranks)
    return Replay(lines, scores, ranks, turns, end_reason)


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
            for t in (1, 2, 3)
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
        if code == e.E_START:
            out.append(
                f"Game {game} of seed {seed}: seat 0 plays {seats[0]}, seat 1 plays {seats[1]}; "
                f"seat {a} goes first; the rune deck holds {b} runes."
            )
        elif code == e.E_TURN:
            out.append("")
            out.append(
                f"Turn {b + 1}, seat {a} ({seats[a]}): {c} gold, {d} workers, {f} buildings, "
                f"{g} units, {h} runes in hand."
            )
        elif code == e.E_HARVEST:
            parts = [f"+{b} gold" if b >= 0 else f"{b} gold", f"+{c} worker{'s' if c != 1 else ''}"]
            if d:
                parts.append(f"draws {d} rune{'s' if d != 1 else ''}")
            out.append(f"  Harvest: {', '.join(parts)} (gold {f}).")
        elif code == e.E_BUILD:
            out.append(f"  Builds {_bld(b)} for {c} gold (gold {d}).")
        elif code == e.E_STATUE:
            what = STATUE_CHOICES[b]
            text = {
                "workers": f"takes {c} workers",
                "runes": f"draws {c} rune{'s' if c != 1 else ''}",
                "builds": f"may build {c} more buildings this turn",
            }[what]
            out.append(f"    The Statue: {text}.")
        elif code == e.E_TRAIN:
            out.append(f"  Trains a {_unit(b)} for {c} gold (gold {d}).")
        elif code == e.E_SELL:
            out.append(f"  Sells a worker for {b} gold (gold {c}).")
        elif code == e.E_RUNE:
            host = "a druid" if c < 0 else f"the {_bld(d)}"
            out.append(f"  Plays {_rune(b)} on {host}.")
        elif code == e.E_CORRUPT:
            if b < 0:
                out.append("    Corruption finds no enemy unit to take.")
            else:
                rune = f" painted with {_rune(c)}" if c >= 0 else ""
                out.append(
                    f"    Corruption takes an enemy {_unit(b)}{rune}; it cannot attack this turn."
                )
        elif code == e.E_ATTACK:
            rune = f", {_rune(d)}" if d >= 0 else ""
            out.append(f"  War: a {_unit(b)} attacks (power {c}{rune}).")
        elif code == e.E_CANINE:
            out.append(f"    Canine: one rider gains +{b} power.")
        elif code == e.E_CONQUEST:
            out.append(f"    Conquest: +{b} worker{'s' if b != 1 else ''}.")
        elif code == e.E_PREKILL:
            out.append(f"    {_rune(b)} kills an enemy {_unit(c)} before the battle.")
        elif code == e.E_BATTLE:
            verdict = "the attacker dies" if g else "the attacker survives"
            out.append(
                f"  Battle: a {_unit(b)} of power {c} against {f} blocker{'s' if f != 1 else ''}"
                f" of total power {d}: {verdict}."
            )
        elif code == e.E_DEATH:
            rune = f" (its {_rune(c)} is lost)" if c >= 0 else ""
            out.append(f"    Seat {a}'s {_unit(b)} dies{rune}.")
        elif code == e.E_SQUIRE:
            out.append("    Squire: a worker dies in the rider's place.")
        elif code == e.E_LOOT:
            out.append(f"    Looting: +{b} gold.")
        elif code == e.E_POISON:
            out.append(f"    Poisons: {b} more blocker{'s' if b != 1 else ''} die.")
        elif code == e.E_DESTROY:
            out.append(f"  An unblocked attacker destroys seat {1 - a}'s {_bld(b)}.")
        elif code == e.E_END:
            out.append("")
            if a == 1:
                out.append(
                    f"Seat {b} ({seats[b]}) wins: seat {1 - b} has no building left "
                    f"after {c} turns."
                )
            else:
                out.append(f"Draw: the turn cap ends the game after {c} turns.")
        else:
            raise ValueError(f"unknown event code {code}")
    return out
