"""Instructions and mispredicted branches per game, per numba function, with valgrind's callgrind.

Unlike `benchmarks/profile.py` (perf time samples, noisy on a shared machine), this counts: the
same run gives the same figures, so a change to a kernel can be judged by its instructions and
its mispredicted branches (valgrind's simple predictor, an upper bound for a real CPU) per game
before any timing. numba's JIT code has no symbols, so `run` keeps the object code numba loads
from its cache and writes where each function landed; `report` maps callgrind's per-instruction
costs onto them (functions LLVM inlined are counted in their caller).

valgrind cannot run AVX-512 code and numba compiles for the host CPU, so compile for a CPU it
can run, natively first (the cache is keyed by the CPU, so the run under valgrind loads it
instead of compiling for an hour). Name the cache folder by the sources' hash, as balance does
for its own: numba keys a file's cached code by that file alone, so after an edit of the
policies a fixed folder would hand the engine's old callers back with the old policy inlined:

    export NUMBA_CACHE_DIR=/tmp/cg-cache-$(python -c \\
        "from balance._cache import source_hash; print(source_hash())")
    export NUMBA_CPU_NAME=haswell NUMBA_CPU_FEATURES=\\
    +64bit,+avx,+avx2,+bmi,+bmi2,+cmov,+cx16,+f16c,+fma,+fxsr,+lzcnt,+mmx,+movbe,+popcnt,\\
    +sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+xsave
    python benchmarks/callgrind.py run configs/five_ravens/base.yaml 10 /tmp/cg-syms.json
    valgrind --tool=callgrind --branch-sim=yes --dump-instr=yes \\
        --callgrind-out-file=/tmp/cg.out \\
        python benchmarks/callgrind.py run configs/five_ravens/base.yaml 3000 /tmp/cg-syms.json
    python benchmarks/callgrind.py report /tmp/cg.out /tmp/cg-syms.json 3010

(`python` must be the interpreter itself, not a pyenv shim: callgrind does not follow children.
`report` divides by the games played, here 3000 plus the 10 of the warm-up.) Measured on
2026-11-30 for Five Ravens' 4 greedy players: about 115,000 instructions and 2,100 mispredicted
branches a game, half of both in the mission (the greedy turns); on 2026-12-01 for Corvids' (the
same commands with configs/corvids/base.yaml): about 984,000 instructions and 8,900 mispredicted
branches a game, 3,450 of them in the greedy peck and 2,200 in the peck's physics.
"""

from __future__ import annotations

import bisect
import collections
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

EVENTS_OF_INTEREST = ("Ir", "Bc", "Bcm", "Bi", "Bim")
_NAME = re.compile(r"(engine|policies|state|rng|physics)\d+([a-z_0-9]+?)(?:B\d|\$|_\d)")


def short_name(symbol: str) -> str:
    found = _NAME.search(symbol)
    if found:
        return f"{found.group(1)}.{found.group(2)}"
    return "parfor gufunc" if "parfor_gufunc" in symbol else symbol[:50]


def run(config_path: str, n_games: int, out_json: str) -> None:
    """Play ``n_games`` after a warm-up and write where each loaded function's code is."""
    from numba.core import codegen

    loaded: list[tuple[object, bytes]] = []
    original = codegen.CPUCodeLibrary._set_compiled_object

    def keep(self, value):  # the object code of every library numba loads from its cache
        loaded.append((self, bytes(value)))
        return original(self, value)

    codegen.CPUCodeLibrary._set_compiled_object = keep
    import numba

    from balance import games
    from balance.config import load_config

    numba.set_num_threads(1)
    config = load_config(config_path)
    plugin = games.get(config.game)
    tables = plugin.compile(config)
    plugin.play(tables, 1, 0, 10)
    if n_games:
        plugin.play(tables, 1, 0, n_games)
    symbols = {}
    with tempfile.TemporaryDirectory() as tmp:
        for k, (library, obj) in enumerate(loaded):
            path = Path(tmp) / f"lib{k}.o"
            path.write_bytes(obj)
            nm = subprocess.run(["nm", "-S", str(path)], capture_output=True, text=True, check=True)
            for line in nm.stdout.splitlines():
                parts = line.split()
                if len(parts) == 4 and parts[2] in "TtWw":
                    address = library.get_pointer_to_function(parts[3])
                    if address:
                        symbols[parts[3]] = (address, int(parts[1], 16))
    Path(out_json).write_text(json.dumps(symbols))
    if not symbols:
        print(
            "no code came from numba's cache (this run compiled the kernels and filled it);"
            " run again to map them",
            file=sys.stderr,
        )


def _self_costs(callgrind_out: str) -> tuple[list[str], dict[int, list[int]]]:
    """Self cost per instruction address (lines after ``calls=`` are a call's inclusive cost)."""
    events: list[str] = []
    costs: dict[int, list[int]] = collections.defaultdict(lambda: [0] * len(events))
    last = 0
    skip = False
    with open(callgrind_out) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
                continue
            if line.startswith("calls="):
                skip = True
                continue
            if not line or not (line[0].isdigit() or line[0] in "+-*"):
                continue
            parts = line.split()
            token = parts[0]
            if token.startswith("0x"):
                last = int(token, 16)
            elif token[0] == "+":
                last += int(token[1:], 0)
            elif token[0] == "-":
                last -= int(token[1:], 0)
            elif token != "*":
                last = int(token, 0)
            if skip:
                skip = False
                continue
            values = [int(v) for v in parts[2:]]  # positions: instr line
            row = costs[last]
            for i, v in enumerate(values):
                row[i] += v
    return events, costs


def report(callgrind_out: str, symbols_json: str, n_games: float) -> None:
    symbols = json.loads(Path(symbols_json).read_text())
    ranges = sorted((a, a + size, name) for name, (a, size) in symbols.items())
    starts = [r[0] for r in ranges]
    events, costs = _self_costs(callgrind_out)
    index = {e: events.index(e) for e in EVENTS_OF_INTEREST if e in events}
    per_function: dict[str, list[int]] = collections.defaultdict(lambda: [0] * len(events))
    for address, row in costs.items():
        i = bisect.bisect_right(starts, address) - 1
        if i >= 0 and address < ranges[i][1]:
            total = per_function[short_name(ranges[i][2])]
            for j, v in enumerate(row):
                total[j] += v
    shown = [e for e in EVENTS_OF_INTEREST if e in index]
    print(f"{'per game':28s}" + "".join(f"{e:>10s}" for e in shown))
    grand = [0] * len(events)
    for name, row in sorted(per_function.items(), key=lambda kv: -kv[1][index["Ir"]]):
        grand = [g + v for g, v in zip(grand, row, strict=True)]
        print(f"{name:28s}" + "".join(f"{row[index[e]] / n_games:10.0f}" for e in shown))
    print(f"{'total':28s}" + "".join(f"{grand[index[e]] / n_games:10.0f}" for e in shown))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "run":
        run(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) == 5 and sys.argv[1] == "report":
        report(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    else:
        sys.exit(__doc__)
