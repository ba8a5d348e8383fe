"""Replay checks over every shipped Raven Manor config (configs/raven_manor/*.yaml): each game is
played as the dataset plays it, with its event log (``narrate.play_logged``), and the log and the
final state are read against the rulings, independently of the engine's own bookkeeping:

- the end is the one RM-10 and RM-22 give for the final position: a Raven or Headless Horseman
  win only with every other living player possessed by that possessor and none of them immune
  (so no free Family player alive); a Family win only with every evil character dead; Cthulhu
  Gentleman's only as the last one alive; a capped game only at the cap and with no side's
  condition met (a missed end);
- a possessed player holds a Feather and is not immune (RM-6, RM-22, ENGINE-9), at the end;
- no end-of-turn exchange by a player stunned during its own turn, and none with a stunned
  partner (RM-4, RM-29);
- the stuns the log tells (E_STUN, the skipped turn, a death) are the ones each turn starts with
  (E_TURN's flag): the check above reads the right stuns;
- E_POSSESS names only living, non-immune players (RM-6, RM-14, RM-22).

The tests play a few hundred games of every config; ``python -m tests.games.raven_manor.
test_invariants_replay GAMES`` runs the same checks over ``GAMES`` games of each and prints the
count of violations. (test_invariants.py checks every turn of games driven from Python; these
checks read the dataset's own games from their logs.)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from balance import games
from balance.config import load_config
from balance.config.loading import load_yaml
from balance.config.overrides import parse_overrides
from balance.games import _kit as kit
from balance.games.position import Position
from balance.games.raven_manor import narrate, state
from balance.games.raven_manor.state import (
    E_DEAL,
    E_DEATH,
    E_END,
    E_POSSESS,
    E_SKIP,
    E_STUN,
    E_TURN,
    E_WHALE,
    E_XCHG,
    END_CAP,
    END_CTHULHU,
    END_FAMILY,
    END_HORSEMAN,
    END_RAVEN,
    PL_ALIVE,
    PL_CHAR,
    PL_HAND,
    PL_POSSESSED,
)
from balance.games.raven_manor.tables import (
    CTHULHU,
    FEATHER,
    HORSEMAN,
    P_TURN_CAP,
    RAVEN,
    S_HORSEMAN,
    S_RAVEN,
    Compiled,
)
from balance.search import SearchTables, play_move, search_streams

pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = sorted((ROOT / "configs" / "raven_manor").glob("*.yaml"))
GAMES = 200  # per config in the tests
SEED = 3

EVIL = (RAVEN, HORSEMAN, CTHULHU)


def immune(ch: int) -> bool:
    return bool(state.immune(ch))


def possessor_wins(pl: np.ndarray, n: int, side: int) -> bool:
    """RM-22 (b): a living possessor of ``side`` has every other living player possessed by it,
    none of them immune."""
    ch = RAVEN if side == S_RAVEN else HORSEMAN
    seats = [p for p in range(n) if pl[p, PL_CHAR] == ch and pl[p, PL_ALIVE]]
    if not seats:
        return False
    return all(
        pl[q, PL_POSSESSED] == side and not immune(int(pl[q, PL_CHAR]))
        for q in range(n)
        if q != seats[0] and pl[q, PL_ALIVE]
    )


def check_end(pl: np.ndarray, n: int, end: int, turns: int, cap: int) -> list[str]:
    """RM-10, RM-22: the end fits the final position."""
    living = [p for p in range(n) if pl[p, PL_ALIVE]]
    evil_alive = [p for p in living if int(pl[p, PL_CHAR]) in EVIL]
    out = []
    if end in (END_RAVEN, END_HORSEMAN):
        side = S_RAVEN if end == END_RAVEN else S_HORSEMAN
        if not possessor_wins(pl, n, side):
            free = [
                q for q in living if pl[q, PL_POSSESSED] < 0 and int(pl[q, PL_CHAR]) not in EVIL
            ]
            out.append(f"end {end} (a possessor's win) with free players alive: seats {free}")
    elif end == END_FAMILY:
        if evil_alive:
            out.append(f"a Family win with evil seats {evil_alive} alive")
    elif end == END_CTHULHU:
        if len(living) != 1 or int(pl[living[0], PL_CHAR]) != CTHULHU:
            out.append(f"a Cthulhu win with seats {living} alive")
    elif end == END_CAP:
        if turns != cap:
            out.append(f"capped after {turns} turns, the cap is {cap}")
        met = (
            not evil_alive
            or possessor_wins(pl, n, S_RAVEN)
            or possessor_wins(pl, n, S_HORSEMAN)
            or (len(living) == 1 and int(pl[living[0], PL_CHAR]) == CTHULHU)
        )
        if met:
            out.append("capped although a side's end was met (a missed end)")
    else:
        out.append(f"end reason {end}")
    for p in range(n):  # RM-6, RM-22, ENGINE-9
        if pl[p, PL_POSSESSED] >= 0:
            if immune(int(pl[p, PL_CHAR])):
                out.append(f"seat {p} possessed though immune")
            if pl[p, PL_HAND + FEATHER] == 0:
                out.append(f"seat {p} possessed without a Feather")
    return out


def check_log(log: np.ndarray, n: int) -> list[str]:
    """RM-4, RM-29, RM-6: the exchanges and possessions the log tells, with a shadow of every
    seat's stun, life and character kept from the log itself."""
    stunned = [False] * n
    alive = [True] * n
    char = [-1] * n
    active = -1
    turn = -1
    out = []
    for row in log:
        code, a, b, c, d, e, f, _ = (int(x) for x in row)
        if code == E_DEAL:
            char[a] = b
        elif code == E_TURN:
            active, turn = a, b  # E_TURN: p, turn, hand size, alive, side, stunned
            if bool(f) != stunned[a]:
                out.append(
                    f"turn {turn}: seat {a} starts stunned={f}, the log's stuns {stunned[a]}"
                )
                stunned[a] = bool(f)
            if bool(d) != alive[a]:
                out.append(f"turn {turn}: seat {a} alive={d}, the log's deaths {alive[a]}")
                alive[a] = bool(d)
        elif code == E_SKIP and b == 0:
            stunned[a] = False
        elif code == E_STUN:
            stunned[a] = True
        elif code == E_DEATH:
            alive[a] = False
            stunned[a] = False  # rulebook FAQ: dying removes the stun
        elif code == E_WHALE:  # RM-15, ENGINE-13: the cards swap; a living other player dies
            char[a], char[b] = c, char[a]
            if alive[b]:
                alive[a], alive[b] = True, False
                stunned[b] = False
        elif code == E_XCHG and e == 0:  # the end-of-turn exchange (RM-4, RM-29)
            if a != active:
                out.append(f"turn {turn}: an end-of-turn exchange by seat {a}, not the active one")
            if stunned[a]:
                out.append(f"turn {turn}: seat {a}, stunned in its own turn, exchanges (RM-4)")
            if stunned[b]:
                out.append(f"turn {turn}: seat {a} exchanges with the stunned seat {b} (RM-29)")
        elif code == E_POSSESS:
            if not alive[a] or immune(char[a]):
                out.append(f"turn {turn}: seat {a} possessed, alive={alive[a]}, {char[a]}")
        elif code == E_END:
            break
    return out


def check_game(compiled: Compiled, seed: int, game: int) -> list[str]:
    """Every check of the module docstring for one game; the violations, each a line."""
    if isinstance(compiled, SearchTables):
        logged = play_search_logged(compiled, seed, game)
    else:
        logged = narrate.play_logged(compiled, seed, game)
    n = compiled.players
    st = logged.state
    cap = int(compiled.tb.params[P_TURN_CAP])
    out = check_end(st.pl, n, logged.end_reason + 1, logged.turns, cap)
    out += check_log(logged.log, n)
    return [f"game {game}: {v}" for v in out]


SEARCH_LOG_CAP = 1 << 16  # event rows of one game (the longest capped game logs far fewer)


def play_search_logged(tables: SearchTables, seed: int, game: int) -> kit.Logged:
    """Game ``game`` of a config with a search seat, as the batch plays it (a search seat
    searches with its keyed stream, the others play their policies; test_search.py holds that
    this loop is the batch's game), with its event log: narrate's replay plays only the
    policies, so it would check games the config never plays."""
    pos = Position(games.get("raven_manor"), tables.inner, seed, game, log_cap=SEARCH_LOG_CAP)
    streams = search_streams(tables, seed, game)
    while not pos.done:
        play_move(pos, tables, streams)
    st = pos.state
    assert int(st.board[state.G_LOG_N]) < SEARCH_LOG_CAP
    row = pos.row()
    return kit.Logged(
        state.log_rows(st),
        st,
        row.score[0],
        row.rank[0],
        int(st.board[state.G_TURN]),
        int(st.board[state.G_END]) - 1,
    )


# A search config's games are played with its search at SEARCH_ITERATIONS a decision
# (the checks read the rules, which hold whatever the search picks; 1,000 iterations would
# take hours) and fewer of them: each search decision is a Python call.
SEARCH_ITERATIONS = 4
SEARCH_GAMES = 40


def compile_config(path: Path) -> Compiled | SearchTables:
    """The config's tables; each search policy's budget lowered (``policies.<name>.iterations``,
    as ``--set`` would)."""
    policies = load_yaml(path)[0].get("policies", {})
    lower = [
        f"policies.{name}.iterations={SEARCH_ITERATIONS}"
        for name, entry in policies.items()
        if isinstance(entry, dict) and entry.get("kind") == "search"
    ]
    overrides = parse_overrides(lower) if lower else ()
    return games.get("raven_manor").compile(load_config(path, overrides))


def games_of(compiled: Compiled | SearchTables, n: int) -> int:
    return min(n, SEARCH_GAMES) if isinstance(compiled, SearchTables) else n


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_every_shipped_config_keeps_the_replay_checks(path):
    """RM-4, RM-6, RM-10, RM-22, RM-29 over ``GAMES`` games of each shipped config
    (``SEARCH_GAMES`` of a config with a search seat)."""
    compiled = compile_config(path)
    if "search" in path.stem:
        assert isinstance(compiled, SearchTables), "a search config is played with its search"
    bad = [v for game in range(games_of(compiled, GAMES)) for v in check_game(compiled, SEED, game)]
    assert not bad, "\n".join(bad[:10])


def main(argv: list[str]) -> int:
    n = int(argv[0]) if argv else 2000
    total = 0
    for path in CONFIGS:
        compiled = compile_config(path)
        bad = [v for game in range(games_of(compiled, n)) for v in check_game(compiled, SEED, game)]
        total += len(bad)
        print(f"{path.name}: {len(bad)} violations over {n} games", *bad[:3], sep="\n  ")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
