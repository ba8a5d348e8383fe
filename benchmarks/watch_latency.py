"""How long `balance watch` takes from a save to the page's new figures, per game.

For each game: a config extending its base config is loaded as version 1 and played to its
stopping rule; then one rule value is changed and saved (written and renamed over, as editors
do), and the script times, from the save, the first snapshot of version 2 with its paired change
(what the page draws first) and the final one. The file watcher, the worker thread and the
sessions are balance/live_server.py's own; only the HTTP server is left out (it forwards each
snapshot within 0.1 s). Kernels are loaded before the save, as in a watch that has played its
first version.

    python benchmarks/watch_latency.py [GAME ...] [--games N] [--half-width H]
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from pathlib import Path

from balance import live_server

ROOT = Path(__file__).resolve().parent.parent
EDITS = {  # game: (the rule as version 1 has it, the same rule after the save)
    "five_ravens": ("rules: {hand_size: 4}", "rules: {hand_size: 3}"),
    "raven_order": ("rules: {starting_hand: 5}", "rules: {starting_hand: 4}"),
    "raven_manor": ("rules: {hand_size: 4}", "rules: {hand_size: 5}"),
    "corvids": ("rules: {feathers: 15}", "rules: {feathers: 12}"),
}


def measure(game: str, games: int, half_width: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "watched.yaml"
        base = ROOT / "configs" / game / "base.yaml"
        before, after = EDITS[game]
        cfg.write_text(f"extends: {base}\n{before}\n")
        w = live_server.Watch(
            cfg, sets=None, against=None, games=games, half_width=half_width, seed=None,
            threads=None, say=lambda text: None,
        )  # fmt: skip
        w.first_load()
        worker = threading.Thread(target=w.work, daemon=True)
        watcher = threading.Thread(target=live_server.watch_files, args=(w,), daemon=True)
        worker.start()
        watcher.start()
        try:
            _until(lambda: w.board.get().get("final") and w.board.get().get("version") == 1, 900)
            time.sleep(0.5)  # the watcher is up
            new = cfg.with_suffix(".tmp")
            new.write_text(f"extends: {base}\n{after}\n")
            t0 = time.perf_counter()
            new.replace(cfg)
            first = _until(lambda: (w.board.get().get("change") or {}).get("games"), 120, t0)
            snap_first = w.board.get()
            final = _until(
                lambda: w.board.get().get("final") and w.board.get()["version"] == 2, 900, t0
            )
            snap = w.board.get()
        finally:
            w.stop.set()
            worker.join(30)
            watcher.join(30)
    return {
        "first_s": first,
        "first_games": snap_first["games"],
        "final_s": final,
        "final_games": snap["games"],
        "games_per_s": snap["games_per_s"],
    }


def _until(test, seconds: float, t0: float | None = None) -> float:
    start = time.perf_counter() if t0 is None else t0
    while time.perf_counter() - start < seconds:
        if test():
            return time.perf_counter() - start
        time.sleep(0.01)
    raise TimeoutError(f"not within {seconds} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games_", nargs="*", metavar="GAME", default=list(EDITS))
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--half-width", type=float, default=0.005)
    args = parser.parse_args()
    print(
        f"{'game':<12} {'first figures':>14} {'games':>7} {'final':>8} {'games':>8} {'paired games/s':>15}"
    )
    for game in args.games_:
        m = measure(game, args.games, args.half_width)
        print(
            f"{game:<12} {m['first_s']:>12.2f} s {m['first_games']:>7,} {m['final_s']:>6.1f} s "
            f"{m['final_games']:>8,} {m['games_per_s']:>15,}"
        )


if __name__ == "__main__":
    main()
