"""What the decision-point interface costs from Python: decisions/s, copies/s and re-deals/s.

Plays ``--games`` games of a config (default: the game's shipped base config) through
``balance.games.position.Position`` with the config's policies, then times copies, re-deals
(``determinize``) and observations on the decision states it met, and an environment's steps.
The kernels are loaded first (their compile, or the cache's load, is timed separately and printed
as ``load``), so the rates are the interface's, not numba's.

    python benchmarks/decisions.py raven_manor --games 50
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--config", help="default: configs/GAME/base.yaml")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    from balance import games
    from balance.config import load_config
    from balance.games.position import Position

    config = load_config(args.config or ROOT / "configs" / args.game / "base.yaml")
    plugin = games.get(config.game)
    tables = plugin.compile(config)
    t0 = time.perf_counter()
    warm = Position(plugin, tables, args.seed, 0)  # load every kernel the timings call
    warm.observe(0)
    warm.options()
    warm.copy().determinize(max(warm.actor, 0), 1).play_out()
    warm.play_out()
    warm.row()
    load = time.perf_counter() - t0

    t0 = time.perf_counter()
    kept = []
    decisions = 0
    for g in range(args.games):
        pos = Position(plugin, tables, args.seed, g)
        while not pos.done:
            if decisions % 10 == 0:
                kept.append(pos.copy())
            pos.play_policy()
            decisions += 1
    play = time.perf_counter() - t0

    t0 = time.perf_counter()
    for pos in kept:
        pos.copy()
    copy = time.perf_counter() - t0
    t0 = time.perf_counter()
    for i, pos in enumerate(kept):
        pos.determinize(pos.actor, i)
    redeal = time.perf_counter() - t0
    t0 = time.perf_counter()
    for pos in kept:
        pos.observe(pos.actor)
        pos.options()
    look = time.perf_counter() - t0
    n = len(kept)
    print(f"{config.game}: kernels loaded in {load:.1f} s")
    print(f"  {decisions:,} decisions of {args.games} games: {decisions / play:,.0f} decisions/s")
    print(
        f"  {n:,} states: copy {n / copy:,.0f}/s, determinize {n / redeal:,.0f}/s, "
        f"observe+options {n / look:,.0f}/s"
    )


if __name__ == "__main__":
    main()
