"""End-to-end games/s of ``balance simulate`` (writing parquet) against the kernels alone.

For each config, interleaved ``--rounds`` times (the machine is shared and drifts, so A and B
alternate instead of running back to back):

- **kernel**: a fresh process plays ``--games`` games with ``plugin.play`` in chunks of 65,536 on
  all threads and discards them (what ``balance bench`` calls the all-threads figure);
- **end to end**: what ``balance simulate CONFIG --games N --out TMP`` runs
  (``balance.runner.run``) in a fresh process; its rate is the manifest's ``games_per_s``
  (simulating and writing, after compiling) and, as a whole-process check, games over the
  process's wall time minus its compile time (so imports count against it);
- with ``--polars``, the same again with polars' ``write_parquet`` of a DataFrame per part (the
  previous release's writer), for an A/B in the same round.

Then, in this process and sequentially (so no thread steals from another), the CPU time per game
of each step of one chunk: ``play`` (all threads), building the columns, and writing the part.
CPU time does not depend on the neighbours' load the way wall time does: the end-to-end ratio is
about play / (play + columns + write) when the writer shares the kernel threads' cores.

    python benchmarks/end_to_end.py                          # both base configs, 1,000,000 games
    python benchmarks/end_to_end.py configs/raven_order/base.yaml --games 500000 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = [ROOT / "configs/five_ravens/base.yaml", ROOT / "configs/raven_order/base.yaml"]

KERNEL = """
import sys, time
from balance import games
from balance.config import load_config
cfg = load_config(sys.argv[1]); n = int(sys.argv[2])
plugin = games.get(cfg.game); tables = plugin.compile(cfg); plugin.play(tables, cfg.seed, 0, 1024)
t0 = time.perf_counter()
for first in range(0, n, 65536):
    plugin.play(tables, cfg.seed, first, min(65536, n - first))
print(n / (time.perf_counter() - t0))
"""


def kernel_rate(config: Path, games: int) -> float:
    out = subprocess.run(
        [sys.executable, "-c", KERNEL, str(config), str(games)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout.split()[-1])


SIMULATE = """
import sys, json
from pathlib import Path
from balance import results, runner
from balance.config import load_config
if sys.argv[4] == "polars":  # the previous release's writer: a DataFrame, polars' write_parquet
    def write_table(path, columns, **kwargs):
        results.columns_frame(columns).write_parquet(path, compression="zstd")
    results.writer.parquet.write_table = write_table
cfg = load_config(sys.argv[1])
s = runner.run(cfg, config_path=sys.argv[1], out=Path(sys.argv[3]), games=int(sys.argv[2]))
print(json.dumps({"games_per_s": s.games_per_s, "compile_time_s": s.compile_time_s}))
"""


def end_to_end_rate(config: Path, games: int, writer: str = "balance") -> tuple[float, float]:
    """(manifest games/s, games / (process wall - compile time)) of one run of what
    ``balance simulate CONFIG --games N --out TMP`` runs, in a fresh process; ``writer="polars"``
    writes the parts with polars' write_parquet instead, as the previous release did."""
    with tempfile.TemporaryDirectory(prefix="balance-e2e-") as tmp:
        cmd = [sys.executable, "-c", SIMULATE, str(config), str(games), f"{tmp}/run", writer]
        t0 = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, check=True)
        wall = time.perf_counter() - t0
    found = json.loads(out.stdout.strip().splitlines()[-1])
    return found["games_per_s"], games / (wall - found["compile_time_s"])


def steps(config: Path, games: int) -> dict[str, float]:
    """CPU ns per game of play (all threads), building the columns, writing the part."""
    from balance import games as registry
    from balance import results
    from balance.config import load_config

    cfg = load_config(config)
    plugin = registry.get(cfg.game)
    tables = plugin.compile(cfg)
    seats = list(cfg.seats)
    kw = {
        "seats": seats,
        "teams": list(cfg.teams) if cfg.teams else [str(i) for i in range(len(seats))],
        "end_reasons": plugin.end_reasons,
        "telemetry_columns": list(plugin.telemetry_columns(tables)),
    }
    n = min(games, 65536)
    plugin.play(tables, cfg.seed, 0, 1024)
    found: dict[str, list[float]] = {"play": [], "columns": [], "write": []}
    with tempfile.TemporaryDirectory(prefix="balance-e2e-") as tmp:
        writer = results.ResultsWriter(Path(tmp) / "run", {})
        for k in range(4):
            c = time.process_time()
            chunk = plugin.play(tables, cfg.seed, k * n, n)
            found["play"].append(time.process_time() - c)
            c = time.process_time()
            columns = results.chunk_columns(chunk, **kw)
            found["columns"].append(time.process_time() - c)
            c = time.process_time()
            writer.write_part(columns, first_game=k * n, n_games=n)
            found["write"].append(time.process_time() - c)
    return {k: 1e9 * min(v[1:]) / n for k, v in found.items()}  # the first chunk warms up


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("configs", nargs="*", type=Path, default=CONFIGS)
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", type=Path, help="write the figures to this file")
    ap.add_argument(
        "--polars",
        action="store_true",
        help="also run each round with polars' parquet writer (the previous release's)",
    )
    args = ap.parse_args()
    report = {}
    for config in args.configs:
        kernel, manifest, whole, old = [], [], [], []
        for r in range(args.rounds):
            kernel.append(kernel_rate(config, args.games))
            m, w = end_to_end_rate(config, args.games)
            manifest.append(m)
            whole.append(w)
            line = (
                f"{config.parent.name}/{config.name} round {r + 1}: kernel {kernel[-1]:,.0f}, "
                f"end to end {m:,.0f} (whole process {w:,.0f}) games/s, "
                f"ratio {m / kernel[-1]:.2f}"
            )
            if args.polars:
                old.append(end_to_end_rate(config, args.games, "polars")[0])
                line += f"; polars' writer {old[-1]:,.0f}, ratio {old[-1] / kernel[-1]:.2f}"
            print(line, flush=True)
        cpu = steps(config, args.games)
        ratios = [m / k for m, k in zip(manifest, kernel, strict=True)]
        report[str(config)] = {
            "kernel_games_per_s": kernel,
            "end_to_end_games_per_s": manifest,
            "whole_process_games_per_s": whole,
            "polars_writer_games_per_s": old,
            "ratio_median": statistics.median(ratios),
            "cpu_ns_per_game": cpu,
            "cpu_bound_ratio": cpu["play"] / sum(cpu.values()),
        }
        print(
            f"{config}: median ratio {statistics.median(ratios):.2f}; CPU ns/game "
            + ", ".join(f"{k} {v:,.0f}" for k, v in cpu.items())
            + f"; play / all = {report[str(config)]['cpu_bound_ratio']:.2f}",
            flush=True,
        )
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
