"""Where a game's kernels spend their time: perf samples mapped to numba functions.

numba's JIT code has no symbols, so `perf` shows bare addresses. This script compiles the kernels
in-process (a fresh NUMBA_CACHE_DIR: cached code carries no function table), writes
/tmp/perf-<pid>.map with the address of every function linked into the batch kernel (functions
LLVM inlined are counted in their caller), then plays games. Run it under perf and sum the samples
of the mapped functions, ignoring the compile:

    apt-get install linux-perf
    NUMBA_CACHE_DIR=$(mktemp -d) perf record -F 2000 -o /tmp/perf.data \
        python benchmarks/profile.py configs/five_ravens/base.yaml 300000
    perf report -i /tmp/perf.data --no-children --sort symbol -g none 2>/dev/null \
        | grep -E "\\] (engine|policies|state|rng)\\." \
        | awk '{gsub("%","",$1); s[$3]+=$1; t+=$1} END {for (k in s) printf "%6.1f%% %s\\n", 100*s[k]/t, k}' \
        | sort -rn | head -30

One thread, so the samples are not split across numba's workers.
"""

from __future__ import annotations

import os
import re
import sys
import time

import numba

from balance import games
from balance.config import load_config

_NAME = re.compile(r"(engine|policies|state|rng)\d+([a-z_0-9]+?)(?:B\d|\$|_\d)")


def write_perf_map(dispatcher) -> int:
    """Write /tmp/perf-<pid>.map for every function in ``dispatcher``'s compiled libraries."""
    entries = {}
    for cres in dispatcher.overloads.values():
        lib = cres.library
        for fn in lib._final_module.functions:
            if fn.is_declaration:
                continue
            addr = lib.get_pointer_to_function(fn.name)
            if addr:
                found = _NAME.findall(fn.name)
                entries[addr] = f"{found[0][0]}.{found[0][1]}" if found else fn.name[:80]
    ordered = sorted(entries.items())
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as f:
        for i, (addr, name) in enumerate(ordered):
            nxt = ordered[i + 1][0] if i + 1 < len(ordered) else addr + 4096
            f.write(f"{addr:x} {min(nxt - addr, 1 << 20):x} {name}\n")
    return len(ordered)


def main(config_path: str, n_games: int) -> None:
    numba.set_num_threads(1)
    config = load_config(config_path)
    plugin = games.get(config.game)
    tables = plugin.compile(config)
    plugin.play(tables, 1, 0, 10)  # compile
    engine = sys.modules[f"balance.games.{config.game}.engine"]
    n = write_perf_map(engine.play_batch)
    print(f"{n} functions mapped", file=sys.stderr)
    t0 = time.perf_counter()
    plugin.play(tables, 1, 0, n_games)
    dt = time.perf_counter() - t0
    print(
        f"{n_games:,} games in {dt:.2f} s: {n_games / dt:,.0f} games/s on 1 thread", file=sys.stderr
    )


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 300_000)
