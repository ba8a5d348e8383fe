"""How a Corvids seat plays, beyond winning: tickets, strings and its own nest.

Plays deals [0, --games) of a config twice, one decision at a time (``Position``): as the config
says (its search seat searching with its keyed stream, as the batch does) and with every seat on
the heuristic (the search seat on its rollout policy), and counts for the watched seat (the
search seat; ``--seat`` otherwise) per game:

- tickets used (``ability__ticket``: a ticket flipped to steal, CV-9) and steals made;
- strings collected (``picked__string``) and used (``ability__string``);
- own-nest re-covers: decisions of the seat before which its own nest was uncovered (CV-6) and
  after which (its move played out, chance included) it is covered again.

    python benchmarks/corvids_habits.py configs/corvids/search_vs_greedy.yaml --games 30
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np


def watch(plugin: Any, tables: Any, seed: int, game: int, seat: int) -> dict[str, float]:
    from balance.games.corvids import state as S
    from balance.games.position import Position
    from balance.search import SearchTables, play_move, search_streams

    inner = tables.inner if isinstance(tables, SearchTables) else tables
    pos = Position(plugin, inner, seed, game)
    streams = search_streams(tables, seed, game) if isinstance(tables, SearchTables) else {}
    recover = opened = 0
    while not pos.done:
        mine = pos.actor == seat
        before = bool(S.nest_open(pos._tb, pos.state, np.int64(seat))) if mine else False
        if streams:
            play_move(pos, tables, streams)
        else:
            pos.play_policy()
        if mine and before:
            opened += 1
            if not bool(S.nest_open(pos._tb, pos.state, np.int64(seat))):
                recover += 1
    row = pos.row()
    cols = plugin.telemetry_columns(inner)
    tele = row.telemetry[0, seat].astype(float)

    def col(name: str) -> float:
        return float(tele[cols.index(name)])

    steals = sum(col(c) for c in cols if c.startswith("stole__"))
    return {
        "tickets_used": col("ability__ticket"),
        "tickets_picked": col("picked__ticket"),
        "steals": steals,
        "strings_picked": col("picked__string"),
        "strings_used": col("ability__string"),
        "decisions_with_own_nest_open": float(opened),
        "own_nest_recovered": float(recover),
        "won": float(row.rank[0, seat] == 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("config")
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--seat", type=int)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()

    from balance import bench, games
    from balance.config import load_config
    from balance.search import search_seats

    cfg = load_config(args.config)
    plugin = games.get(cfg.game)
    seat = args.seat if args.seat is not None else search_seats(cfg)[0]
    out = {}
    for label, c in (("config", cfg), ("heuristic", bench.heuristic_config(cfg))):
        tables = plugin.compile(c)
        rows = []
        t0 = time.perf_counter()
        for g in range(args.first, args.first + args.games):
            rows.append(watch(plugin, tables, c.seed, g, seat))
            print(f"  {label}: game {g}, {time.perf_counter() - t0:,.0f} s", flush=True)
        out[label] = {k: sum(r[k] for r in rows) for k in rows[0]}
        out[label]["games"] = len(rows)
        print(label, json.dumps(out[label]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
