"""Where a game's cold compile goes: per numba function and compile stage, in a fresh cache.

Runs itself in a subprocess with ``NUMBA_CACHE_DIR`` pointed at an empty temp dir (unless
``--warm DIR`` names a cache to reuse), loads the game's base config, calls ``plugin.play(n=0)``
(what every run does first) and, with ``--narrate``, ``plugin.narrate`` of one game, and
attributes the time with numba's event API (``numba:run_pass`` events, nested: a callee is
compiled while its caller is typed, so each pass's own time is its time minus its callees').
Prints the process's wall and CPU time (``resource.getrusage``: less sensitive to a busy machine
than wall time), then one line per compiled function: specialisations, its own time in the
numba ``InlineInlinables`` pass (``inline="always"``: the callee's front end is run again and its
IR copied in at every call site, so *runs* counts the sites plus one), in lowering plus LLVM
(``native_lowering``, which optimises and links the function's module with its callees'), and in
the rest (typing, SSA, rewrites).

    python benchmarks/compile_time.py five_ravens [--narrate] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _child(game: str, config: str | None, narrate: bool) -> dict:
    t_start = time.perf_counter()
    import numba.core.event as ev

    from balance import _cache, games
    from balance.config import load_config

    _cache.configure()
    own = defaultdict(lambda: defaultdict(float))  # qualname -> stage -> own seconds
    own_cpu = defaultdict(float)
    runs = defaultdict(int)  # qualname -> front ends run (1 + the sites it is inlined at)
    stack: list[list] = []  # [qualname, stage, t0, cpu0, child_wall, child_cpu]

    class Passes(ev.Listener):
        def on_start(self, event):
            d = event.data
            name = d["name"].split(" [", 1)[0]
            if name == "translate_bytecode":
                runs[d["qualname"]] += 1
            stack.append([d["qualname"], name, time.perf_counter(), time.process_time(), 0.0, 0.0])

        def on_end(self, event):
            q, name, t0, c0, cw, cc = stack.pop()
            wall = time.perf_counter() - t0
            cpu = time.process_time() - c0
            own[q][name] += wall - cw
            own_cpu[q] += cpu - cc
            if stack:
                stack[-1][4] += wall
                stack[-1][5] += cpu

    # inline="always": time each copy of a callee's IR into a caller (InlineWorker.inline_ir)
    from numba.core import inline_closurecall as icc

    copies = defaultdict(lambda: [0, 0.0, 0])  # callee -> [sites, seconds, blocks]
    inline_ir = icc.InlineWorker.inline_ir

    def timed_inline_ir(self, caller_ir, block, i, callee_ir, *args, **kwargs):
        t = time.process_time()
        out = inline_ir(self, caller_ir, block, i, callee_ir, *args, **kwargs)
        c = copies[callee_ir.func_id.func_qualname]
        c[0] += 1
        c[1] += time.process_time() - t
        c[2] = len(callee_ir.blocks)
        return out

    icc.InlineWorker.inline_ir = timed_inline_ir

    plugin = games.get(game)
    cfg = load_config(config or ROOT / "configs" / game / "base.yaml")
    tables = plugin.compile(cfg)
    t_imports = time.perf_counter() - t_start
    ru0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    with ev.install_listener("numba:run_pass", Passes()):
        plugin.play(tables, 1, 0, 0)
        t_play = time.perf_counter() - t0
        if narrate:
            plugin.narrate(tables, 1, 0)
    wall = time.perf_counter() - t0
    ru1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)

    # specialisations of every dispatcher in the game's modules
    import numba.core.registry  # noqa: F401
    from numba.core.dispatcher import Dispatcher

    sigs = {}
    for modname, mod in list(sys.modules.items()):
        if not modname.startswith(("balance.games", "balance.rng")):
            continue
        for obj in vars(mod).values():
            if isinstance(obj, Dispatcher) and obj.__module__ == modname:
                key = obj.py_func.__qualname__
                if obj.signatures:
                    sigs[f"{modname.rsplit('.', 1)[-1]}.{key}"] = [str(s) for s in obj.signatures]
    rows = []
    for q, stages in own.items():
        lower = stages.get("native_lowering", 0.0) + stages.get("native_parfor_lowering", 0.0)
        inline = stages.get("inline_inlinables", 0.0)
        total = sum(stages.values())
        rows.append(
            {
                "qualname": q,
                "total": total,
                "cpu": own_cpu[q],
                "runs": runs[q],
                "lowering_llvm": lower,
                "inline": inline,
                "other": total - lower - inline,
                "top_stages": sorted(stages.items(), key=lambda kv: -kv[1])[:4],
            }
        )
    rows.sort(key=lambda r: -r["total"])
    return {
        "game": game,
        "imports_s": t_imports,
        "play0_s": t_play,
        "wall_s": wall,
        "cpu_s": cpu,
        "maxrss_mb": ru1.ru_maxrss / 1024,
        "functions": rows,
        "signatures": sigs,
        "inline_copies": sorted(
            ({"callee": k, "sites": v[0], "cpu": v[1], "blocks": v[2]} for k, v in copies.items()),
            key=lambda c: -c["cpu"],
        ),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("game")
    ap.add_argument("--config")
    ap.add_argument("--narrate", action="store_true", help="also narrate one game")
    ap.add_argument("--warm", help="reuse this cache dir (default: a fresh empty one)")
    ap.add_argument("--json")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(_child(a.game, a.config, a.narrate)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=a.warm or tmp)
        cmd = [sys.executable, __file__, a.game, "--child"]
        if a.config:
            cmd += ["--config", a.config]
        if a.narrate:
            cmd.append("--narrate")
        t0 = time.perf_counter()
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        total = time.perf_counter() - t0
    if out.returncode:
        sys.exit(out.stderr)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    r["process_wall_s"] = total
    print(
        f"{r['game']}: compile {r['wall_s']:.1f} s wall (play(n=0) {r['play0_s']:.1f} s), "
        f"{r['cpu_s']:.1f} s CPU; imports {r['imports_s']:.1f} s; process {total:.1f} s; "
        f"max RSS {r['maxrss_mb']:.0f} MB"
    )
    print(
        f"{'function (own time, s)':40} {'runs':>4} {'wall':>7} {'cpu':>7} "
        f"{'inlining':>8} {'lower+llvm':>10} {'other':>7}"
    )
    for f in r["functions"][: a.top]:
        print(
            f"{f['qualname'][:40]:40} {f['runs']:4} {f['total']:7.2f} {f['cpu']:7.2f} "
            f"{f['inline']:8.2f} {f['lowering_llvm']:10.2f} {f['other']:7.2f}"
        )
    fs = r["functions"]
    tot = {k: sum(f[k] for f in fs) for k in ("total", "cpu", "inline", "lowering_llvm", "other")}
    print(
        f"{'all':40} {'':4} {tot['total']:7.2f} {tot['cpu']:7.2f} {tot['inline']:8.2f} "
        f"{tot['lowering_llvm']:10.2f} {tot['other']:7.2f}"
    )
    print(f"{'inlined callee: copies into callers':40} {'sites':>5} {'cpu':>7} {'blocks':>6}")
    for c in r["inline_copies"][: a.top]:
        print(f"{c['callee'][:40]:40} {c['sites']:5} {c['cpu']:7.2f} {c['blocks']:6}")
    multi = {k: v for k, v in r["signatures"].items() if len(v) > 1}
    n_sig = sum(len(v) for v in r["signatures"].values())
    print(f"{len(r['signatures'])} dispatchers compiled, {n_sig} specialisations")
    for k, v in multi.items():
        print(f"  {k}: {len(v)} specialisations")
        for sig in v:
            print(f"    {sig[-150:]}")
    if a.json:
        Path(a.json).write_text(json.dumps(r, indent=1))


if __name__ == "__main__":
    main()
