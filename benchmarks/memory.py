"""Peak memory of `balance simulate` for a small and a large run: memory must stay flat.

The runner writes results chunk by chunk (DESIGN.md, Results dataset), so playing four times as
many games must not need much more memory. This script runs

    balance simulate CONFIG --games N --out <temp dir>

in a fresh subprocess for each N (default 1,000,000 and 4,000,000), after a 1,000-game warm-up
run that fills numba's kernel cache (compiling takes memory of its own). It reads each run's peak
resident set size from the kernel (``os.wait4``: the ``ru_maxrss`` of exactly that child, the
figure ``resource.getrusage(RUSAGE_CHILDREN)`` and ``/usr/bin/time -v`` report), prints each peak
and the ratio largest / smallest, and exits 1 if the largest run raised peak memory by 20 % or more.

Run it from the repository root (15-25 s per million Five Ravens games on 2 cores):

    python benchmarks/memory.py configs/five_ravens/base.yaml
    python benchmarks/memory.py configs/five_ravens/base.yaml --games 1000000   # one size only
    python benchmarks/memory.py CONFIG --games 200000 800000 --threads 1

The results directories go to a temporary directory that is deleted afterwards (``--keep DIR``
keeps them in DIR). Linux and macOS only (``os.wait4``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from balance.bench import cli_command

LIMIT = 1.20  # the largest run may use less than 20 % more peak memory than the smallest


def peak_rss(cmd: list[str]) -> tuple[int, float]:
    """Run ``cmd``; its peak RSS in bytes and its wall time in seconds."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:  # no pipe to fill up
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        # wait4 reaps the child and returns the resource usage of that child alone
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode().strip(), err.read().decode().strip()
    if code != 0:
        sys.exit(f"error: {' '.join(cmd)} failed (exit {code}): {stderr}")
    print(f"  {stdout}")
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    return usage.ru_maxrss * scale, wall


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", help="YAML config, e.g. configs/five_ravens/base.yaml")
    parser.add_argument(
        "--games", type=int, nargs="+", default=[1_000_000, 4_000_000], help="run sizes"
    )
    parser.add_argument("--threads", type=int, help="passed to balance simulate")
    parser.add_argument("--keep", type=Path, help="keep the results directories here")
    args = parser.parse_args(argv)

    base = cli_command()
    peaks: list[tuple[int, int]] = []
    with tempfile.TemporaryDirectory(prefix="balance-memory-") as tmp:
        where = args.keep or Path(tmp)
        # A first small run fills numba's kernel cache, so that no measured run pays (and holds
        # the memory of) compiling: compiling alone can take more memory than a whole run.
        out = where / "memory-warm-up"
        cmd = [*base, "simulate", args.config, "--games", "1000", "--out", str(out), "--force"]
        print(f"balance simulate {args.config} --games 1,000 (warm-up: fills the kernel cache) ...")
        peak, wall = peak_rss(cmd)
        print(f"  peak RSS {peak / 2**20:,.1f} MiB (warm-up, not compared; {wall:.1f} s wall)")
        shutil.rmtree(out, ignore_errors=True)
        for n in args.games:
            out = where / f"memory-{n}"
            cmd = [*base, "simulate", args.config, "--games", str(n), "--out", str(out), "--force"]
            if args.threads:
                cmd += ["--threads", str(args.threads)]
            print(f"balance simulate {args.config} --games {n:,} ...", flush=True)
            peak, wall = peak_rss(cmd)
            print(f"  peak RSS {peak / 2**20:,.1f} MiB ({n:,} games, {wall:.1f} s wall)")
            peaks.append((n, peak))
            if not args.keep:
                shutil.rmtree(out, ignore_errors=True)

    print()
    for n, peak in peaks:
        print(f"{n:>12,} games: peak RSS {peak / 2**20:,.1f} MiB")
    if len(peaks) < 2:
        return 0
    (small_n, small), (large_n, large) = min(peaks), max(peaks)
    ratio = large / small
    ok = ratio < LIMIT
    print(
        f"ratio {large_n:,} / {small_n:,} games: {ratio:.4f} "
        f"({(ratio - 1) * 100:+.2f} %; acceptance < {(LIMIT - 1) * 100:.0f} %: "
        f"{'met' if ok else 'NOT met'})"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
