"""Games/s of one game's batch kernel alone, in one process: for A/B timings of two checkouts.

Loads the game's shipped base config (or ``--config``), loads the kernels (``play`` of no games:
the compile, or the cache's load, is not timed), then plays ``--games`` games in chunks of
65,536 with ``plugin.play`` and prints the rate. It uses only the plugin API that every release
has, so the same script times an older checkout too: run it with ``PYTHONPATH`` pointing at
either tree and a numba cache of each's own, alternating A and B (the machine drifts):

    PYTHONPATH=/path/to/old NUMBA_CACHE_DIR=/tmp/numba-old NUMBA_NUM_THREADS=1 \
        python benchmarks/kernel_play.py five_ravens --games 400000

A whole-process timer around it (``/usr/bin/time -v``, or any A B A B runner) gives CPU and wall
seconds whose ratio is the kernels' speed ratio once the games dominate the fixed start-up.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHUNK = 65_536


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--config", help="default: configs/GAME/base.yaml")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    from balance import games
    from balance.config import load_config

    config = load_config(args.config or ROOT / "configs" / args.game / "base.yaml")
    plugin = games.get(config.game)
    tables = plugin.compile(config)
    plugin.play(tables, args.seed, 0, 0)  # load the kernels
    start = time.perf_counter()
    done = 0
    while done < args.games:
        n = min(CHUNK, args.games - done)
        plugin.play(tables, args.seed, done, n)
        done += n
    seconds = time.perf_counter() - start
    print(f"{config.game}: {done:,} games in {seconds:.2f} s = {done / seconds:,.0f} games/s")


if __name__ == "__main__":
    main()
