"""Planted datasets: rows of a results dataset built from known numbers, so a test knows the
answer (seat 1 wins 31 % of 10,000 games; the first player 30 %; winners stole the gem), and a
planted impact table (variant "gem +1" moves seat 0 by +5 points, "mask off" by +0.1)."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from balance.report.numbers import DatasetStats, analyse_rows
from balance.results import BASE_SCHEMA

TELEMETRY = ["drawn__gem", "stolen__gem", "played__seven"]


def planted_rows(
    *,
    games: int = 10_000,
    wins: tuple[int, ...] = (2_200, 3_100, 2_200, 2_500),
    policies: tuple[str, ...] = ("greedy",) * 4,
    first_player_wins: int = 3_000,
) -> pl.DataFrame:
    """``games`` 4-seat games: seat s wins exactly ``wins[s]`` of them, the first player wins
    exactly ``first_player_wins`` and the other places share the other wins equally (to within a
    game); every winner and no loser stole the gem; every seat drew it."""
    p = len(wins)
    assert sum(wins) == games
    winner = np.repeat(np.arange(p), wins)
    # Choose each game's first player so that exactly first_player_wins winners moved first.
    # The other games' winners sit 1, 2, ..., p - 1 places after the first player in turn.
    behind = 1 + np.arange(games) % (p - 1)
    first = (winner - behind) % p
    first[:first_player_wins] = winner[:first_player_wins]
    seat = np.tile(np.arange(p), games)
    game = np.repeat(np.arange(games), p)
    won = seat == np.repeat(winner, p)
    order = (seat - np.repeat(first, p)) % p
    score = np.where(won, 20, 10 + seat)
    turns = np.repeat(30 + np.arange(games) % 11, p)
    frame = pl.DataFrame(
        {
            "game": game.astype(np.int64),
            "seat": seat.astype(np.int8),
            "policy": [policies[s] for s in seat],
            "team": [str(s) for s in seat],
            "score": score.astype(np.int32),
            "rank": np.where(won, 1, 2).astype(np.int8),
            "win": won.astype(np.float64),
            "shared": np.zeros(games * p, dtype=bool),
            "turns": turns.astype(np.int32),
            "end_reason": ["clocks"] * (games * p),
            "order": order.astype(np.int8),
            "drawn__gem": np.ones(games * p, dtype=np.uint8),
            "stolen__gem": won.astype(np.uint8),
            "played__seven": (game % 2).astype(np.uint8),
        },
        schema_overrides={**BASE_SCHEMA, **dict.fromkeys(TELEMETRY, pl.UInt8())},
    )
    return frame


def planted_manifest(rows: pl.DataFrame, **extra: Any) -> dict[str, Any]:
    """A manifest for planted rows; ``report=`` is the config's report: section."""
    games = int(rows["game"].max()) + 1
    seats = rows.filter(pl.col("game") == 0)["policy"].to_list()
    config = {"game": "planted", "players": len(seats), "seats": seats, "rules": {"x": 1}}
    if "report" in extra:
        config["report"] = extra.pop("report")
    return {
        "version": "0.1.0",
        "game": "planted",
        "config_path": "planted.yaml",
        "config": config,
        "config_hash": "0123456789abcdef",
        "seed": 1,
        "games_requested": games,
        "games_done": games,
        "players": len(seats),
        "seats": seats,
        "teams": [str(i) for i in range(len(seats))],
        "threads": 2,
        "status": "complete",
        "started": "2026-01-01T00:00:00+00:00",
        "finished": "2026-01-01T00:00:01+00:00",
        "wall_time_s": 1.0,
        "games_per_s": float(games),
        "telemetry_columns": TELEMETRY,
        **extra,
    }


def planted_stats(rows: pl.DataFrame, label: str = "planted", **manifest: Any) -> DatasetStats:
    return analyse_rows(planted_manifest(rows, **manifest), rows, label=label, path=label)


def planted_impact_table() -> pl.DataFrame:
    """Two variants of a 2-seat game on 1,000 games: "gem +1" moves seat 0 by +5 points (and
    seat 1 by -5) and the first player (the headline metric) by +3, "mask off" by +0.1 and
    +0.06; intervals are ±1 point."""
    rows = []
    for v, d in (("gem +1", 0.05), ("mask off", 0.001)):
        rows.append(("win_share", "order", "0", 0.55, 0.55 + 0.6 * d, 0.6 * d, v))
        for seat in range(2):
            rows.append(
                (
                    "win_share",
                    "seat",
                    str(seat),
                    0.5,
                    0.5 + d * (1 - 2 * seat),
                    d * (1 - 2 * seat),
                    v,
                )
            )
        rows.append(("mean_score", "policy", "greedy", 7.0, 7.0 + d, d, v))
        rows.append(("mean_turns", "game", "all", 60.0, 60.0, 0.0, v))
    t = pl.DataFrame(
        rows, schema=["metric", "kind", "group", "a", "b", "diff", "variant"], orient="row"
    )
    return t.with_columns(
        description=pl.lit("x"),
        games=pl.lit(1000),
        lo=pl.col("diff") - 0.01,
        hi=pl.col("diff") + 0.01,
        p_value=pl.when(pl.col("diff").abs() > 0.01).then(1e-6).otherwise(0.9),
    )
