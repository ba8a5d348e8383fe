"""How strong the search player is: its win share against the heuristics it rolls out with.

For a config with one search seat (the shipped ``configs/<game>/search_vs_<heuristic>.yaml``),
at each budget of ``--budgets`` this plays deals [0, n) of the config's seed once per seat the
search can sit in (seats rotated: the search seat moves round the table, the same deals each
time, so the rotations compare like with like), and the same deals with every seat playing the
heuristic (the baseline, free of search). It prints, per budget:

- the search seat's win share over deals and rotations, with a 95 % interval whose unit is the
  deal (the rotations of one deal share its cards: they are averaged first, then the deals'
  spread gives the interval, Wilson on the effective number of games), and the fair share;
- the baseline: the same seats on the same deals played by the heuristic, and the paired
  difference (search minus heuristic, per deal) with a 95 % t interval.

``--below`` plays each budget against the one below instead: the other seats are search players
too, at the previous budget of the list (or a tenth of the first), and the share is against
fair; in a game that deals teams (Raven Manor, where a seat's share depends on its role) against
every seat at the lower budget on the same deals, with the paired difference. A config whose search is limited to sides (Raven Manor's ``sides``), or whose every seat is
a search seat, is not rotated, and its share is the team's of ``--team`` (e.g. family).

Results are appended to ``--json`` a chunk at a time, so a long run can be stopped and read.

    python benchmarks/search_strength.py configs/five_ravens/search_vs_greedy.yaml \\
        --budgets 100,1000,10000 --games 400,200,40 --json strength-fr.json
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def wins(chunk: Any, players: int, team_of: Any = None) -> np.ndarray:
    """float64[n, P]: each seat's win as the dataset counts it (1/k for a seat of rank 1, k the
    number of teams among the rank-1 seats; each seat its own team unless the game deals teams)."""
    rank = chunk.rank
    team = chunk.team if chunk.team is not None else np.tile(np.arange(players), (len(rank), 1))
    out = np.zeros(rank.shape, np.float64)
    for g in range(len(rank)):
        top = {int(team[g, p]) for p in range(players) if rank[g, p] == 1}
        for p in range(players):
            if rank[g, p] == 1:
                out[g, p] = 1.0 / len(top)
    return out


def team_wins(chunk: Any, team: int) -> np.ndarray:
    """float64[n]: the team's win (1/k when k teams share rank 1)."""
    out = np.zeros(len(chunk.rank), np.float64)
    for g in range(len(chunk.rank)):
        top = {int(t) for t, r in zip(chunk.team[g], chunk.rank[g], strict=True) if r == 1}
        out[g] = 1.0 / len(top) if team in top else 0.0
    return out


def interval(per_deal: np.ndarray) -> tuple[float, float, float]:
    """Share and 95 % Wilson interval over deals (effective games from the deals' spread)."""
    from balance.stats.winrates import effective_games, wilson_interval

    n = len(per_deal)
    share = float(per_deal.mean())
    var = float(per_deal.var(ddof=1)) if n > 1 else math.nan
    eff = effective_games(np.array([share]), np.array([n]), np.array([var]))
    lo, hi = wilson_interval(np.array([share]), eff)
    return share, float(lo[0]), float(hi[0])


def paired(diff: np.ndarray) -> tuple[float, float, float]:
    """Mean difference and its 95 % t interval over deals."""
    from scipy import stats

    n = len(diff)
    m = float(diff.mean())
    if n < 2:
        return m, math.nan, math.nan
    half = float(stats.t.ppf(0.975, n - 1) * diff.std(ddof=1) / math.sqrt(n))
    return m, m - half, m + half


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("config")
    ap.add_argument("--budgets", default="100,1000,10000")
    ap.add_argument("--games", default="400,200,40", help="deals per budget")
    ap.add_argument("--below", action="store_true", help="each budget against the one below")
    ap.add_argument("--team", help="the team whose share counts (all seats searching)")
    ap.add_argument("--chunk", type=int, default=8, help="deals per kernel call")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()

    from balance import bench, games
    from balance.config import config_from_dict, load_config
    from balance.search import search_seats

    base = load_config(args.config)
    plugin = games.get(base.game)
    budgets = [int(x) for x in args.budgets.split(",")]
    deals = [int(x) for x in args.games.split(",")]
    players = base.players
    searched = search_seats(base)
    rotate = len(searched) == 1
    name = base.seats[searched[0]]
    plain = bench.heuristic_config(base)
    team = None
    if args.team:
        team = plugin.team_names(plugin.compile(plain)).index(args.team)
    results: list[dict[str, Any]] = []
    if args.json and args.json.exists():
        results = json.loads(args.json.read_text())

    def play(cfg: Any, n: int, label: str) -> list[Any]:
        tables = plugin.compile(cfg)
        out = []
        t0 = time.perf_counter()
        for lo in range(0, n, args.chunk):
            out.append(plugin.play(tables, cfg.seed, lo, min(args.chunk, n - lo)))
            done = lo + len(out[-1].rank)
            print(f"  {label}: {done}/{n} deals, {time.perf_counter() - t0:,.0f} s", flush=True)
        return out

    def concat(chunks: list[Any]) -> Any:
        class C:
            rank = np.concatenate([c.rank for c in chunks])
            team = None if chunks[0].team is None else np.concatenate([c.team for c in chunks])
            telemetry = np.concatenate([c.telemetry for c in chunks]).astype(np.float64)

        return C

    for i, (b, n) in enumerate(zip(budgets, deals, strict=True)):
        low = budgets[i - 1] if i else max(1, b // 10)
        seat_wins = np.zeros((n, players if rotate else 1))
        tele = []  # the search seat's telemetry rows, every rotation
        t0 = time.perf_counter()
        for r in range(players if rotate else 1):
            data = base.resolved_dict()
            for entry in data["policies"].values():
                if entry["kind"] == "search":
                    entry["iterations"] = b
            if rotate:
                seats = [s for s in base.seats if s != name] if not args.below else None
                if args.below:
                    data["policies"]["below"] = {**data["policies"][name], "iterations": low}
                    seats = ["below"] * (players - 1)
                seats.insert(r, name)
                data["seats"] = seats
            data.pop("report", None)
            cfg = config_from_dict(data, file=f"{base.game} at {b} iterations, rotation {r}")
            chunk = concat(play(cfg, n, f"{b} iterations, search seat {r if rotate else 'all'}"))
            if team is not None:
                seat_wins[:, 0] = team_wins(chunk, team)
            else:
                seat_wins[:, r] = wins(chunk, players)[:, r]
            tele.append(chunk.telemetry[:, r] if rotate else chunk.telemetry.mean(axis=1))
        seconds = time.perf_counter() - t0
        per_deal = seat_wins.mean(axis=1)
        share, lo_, hi_ = interval(per_deal)
        row: dict[str, Any] = {
            "config": args.config,
            "budget": b,
            "against": f"search at {low} iterations" if args.below else "heuristic",
            "deals": n,
            "rotations": players if rotate else 1,
            "share": share,
            "lo": lo_,
            "hi": hi_,
            "fair": 1.0 / players if rotate else None,
            "seconds": seconds,
        }
        if args.below and rotate and chunk.team is not None:
            # A game that deals teams (Raven Manor): a seat's share depends on the role it is
            # dealt, so the yardstick is the lower budget in every seat on the same deals.
            data = base.resolved_dict()
            data["policies"][name] = {**data["policies"][name], "iterations": low}
            data["seats"] = [name] * players
            data.pop("report", None)
            low_chunk = concat(
                play(config_from_dict(data, file="every seat below"), n, f"every seat at {low}")
            )
            base_deal = wins(low_chunk, players).mean(axis=1)
            bshare, blo, bhi = interval(base_deal)
            d, dlo, dhi = paired(per_deal - base_deal)
            row.update(fair=None, baseline=bshare, baseline_lo=blo, baseline_hi=bhi, diff=d,
                       diff_lo=dlo, diff_hi=dhi)  # fmt: skip
        if not args.below:
            data = plain.resolved_dict()
            data.pop("report", None)
            base_chunk = concat(
                play(config_from_dict(data, file="baseline"), n, "baseline, heuristic seats")
            )
            if team is not None:
                base_deal = team_wins(base_chunk, team)
            else:
                w = wins(base_chunk, players)
                base_deal = w[:, : seat_wins.shape[1]].mean(axis=1) if rotate else w[:, 0]
            columns = plugin.telemetry_columns(plugin.compile(plain))
            mine = np.concatenate(tele).mean(axis=0)
            theirs = base_chunk.telemetry.mean(axis=(0, 1))
            row["telemetry"] = {
                c: [round(float(a), 3), round(float(b), 3)]
                for c, a, b in zip(columns, mine, theirs, strict=True)
            }  # per game: the search seat (or all seats), the heuristic's seat
            bshare, blo, bhi = interval(base_deal)
            d, dlo, dhi = paired(per_deal - base_deal)
            row.update(baseline=bshare, baseline_lo=blo, baseline_hi=bhi, diff=d, diff_lo=dlo,
                       diff_hi=dhi)  # fmt: skip
        results.append(row)
        print(json.dumps(row), flush=True)
        if args.json:
            args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
