"""Content hashes of the datasets of shipped configs: a refactoring must leave every game alone.

For each config this plays ``--games`` games (default 20,000) with ``balance.runner.run`` into a
temporary directory, reads the dataset back with polars, and hashes every column's values in
(game, seat) order after casting them to a canonical type (integers to Int64, floats to Float64,
strings and categoricals to String), so a change of storage type that keeps the values keeps the
hash. It prints one line per config with the combined hash and, with ``--columns``, one line per
column; ``--json FILE`` keeps them, and ``--against FILE`` compares with a file written before a
change and exits 1 on any difference, naming the configs and columns that moved (a column only
one side has is listed, not counted as a difference: a new column is a new column). Configs with
a search seat (docs/search.md) are skipped unless ``--search`` is given: their games cost a
thousand rollouts a decision.

    python benchmarks/dataset_hash.py --json before.json                 # on the old code
    python benchmarks/dataset_hash.py --against before.json              # on the new code
    python benchmarks/dataset_hash.py configs/five_ravens/base.yaml --games 5000
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parent.parent


def shipped_configs() -> list[Path]:
    """Every game config under configs/ (check specs under configs/ci/ are not configs)."""
    import yaml

    out = []
    for path in sorted((ROOT / "configs").rglob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        if isinstance(data, dict) and "checks" not in data:
            out.append(path)
    return out


def has_search_seat(path: Path) -> bool:
    """Whether a seat of the config at ``path`` plays a search policy (docs/search.md)."""
    from balance.config import load_config
    from balance.search import search_seats

    return bool(search_seats(load_config(path)))


def canonical(series: pl.Series) -> bytes:
    if series.dtype in (pl.String, pl.Categorical) or isinstance(series.dtype, pl.Enum):
        text = series.cast(pl.String).fill_null("\x00null")
        return "\x1f".join(text.to_list()).encode()
    if series.dtype.is_float():
        return series.cast(pl.Float64).to_numpy().tobytes()
    if series.dtype == pl.Boolean:
        return series.cast(pl.Int8).to_numpy().tobytes()
    return series.cast(pl.Int64).to_numpy().tobytes()


def hash_config(path: Path, games: int) -> dict[str, str]:
    from balance.config import load_config
    from balance.runner import run

    cfg = load_config(path)
    with tempfile.TemporaryDirectory() as tmp:
        run(cfg, config_path=path, out=Path(tmp) / "run", games=games)
        # the parts (their trajectories, trace-*.parquet beside them, are other files)
        df = pl.read_parquet(Path(tmp) / "run" / "games" / "part-*.parquet").sort("game", "seat")
    hashes = {c: hashlib.sha256(canonical(df[c])).hexdigest()[:16] for c in df.columns}
    total = hashlib.sha256("".join(f"{c}={h};" for c, h in sorted(hashes.items())).encode())
    return {"_rows": str(df.height), "_all": total.hexdigest()[:16], **hashes}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("configs", nargs="*", type=Path, help="default: every shipped config")
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--columns", action="store_true", help="print every column's hash")
    ap.add_argument("--json", type=Path, help="write the hashes to this file")
    ap.add_argument("--against", type=Path, help="compare with hashes written earlier")
    ap.add_argument(
        "--search", action="store_true", help="also hash configs with a search seat (slow)"
    )
    args = ap.parse_args()
    configs = args.configs or shipped_configs()
    found: dict[str, dict[str, str]] = {}
    for path in configs:
        if not args.search and has_search_seat(path):
            # a search seat's games cost a thousand rollouts a decision: 20,000 of them take
            # hours; its own tests hold its games (tests/games/test_search.py)
            print(f"skipped           {path} (a search seat; --search hashes it too)")
            continue
        key = (
            str(path.resolve().relative_to(ROOT))
            if path.resolve().is_relative_to(ROOT)
            else str(path)
        )
        found[key] = h = hash_config(path, args.games)
        print(f"{h['_all']}  {key} ({int(h['_rows']):,} rows)", flush=True)
        if args.columns:
            for c, v in h.items():
                if not c.startswith("_"):
                    print(f"    {v}  {c}")
    if args.json:
        args.json.write_text(json.dumps({"games": args.games, "hashes": found}, indent=1) + "\n")
    if args.against is None:
        return 0
    before = json.loads(args.against.read_text())
    if before["games"] != args.games:
        print(f"error: {args.against} holds {before['games']} games, not {args.games}")
        return 1
    bad = 0
    for key, h in found.items():
        old = before["hashes"].get(key)
        if old is None:
            print(f"new config (no hash before): {key}")
            continue
        common = sorted((set(h) & set(old)) - {"_all"})
        moved = [c for c in common if h[c] != old[c]]
        added = sorted(set(h) - set(old))
        gone = sorted(set(old) - set(h))
        if moved:
            bad += 1
            print(f"DIFFERENT {key}: {', '.join(moved)}")
        else:
            print(f"same      {key}: {len(common) - 1} columns identical")
        if added or gone:
            print(f"          columns only after: {added or '-'}; only before: {gone or '-'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
