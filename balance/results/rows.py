"""The rows of a results dataset: a played chunk as the columns of its parquet part.

One row per game and seat, game-major, as arrays (:func:`chunk_columns`) or as a polars
DataFrame (:func:`chunk_frame`), with ``win`` and ``team`` worked out from the chunk's ranks and
team codes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl
from numba import njit

from balance import parquet
from balance.games.base import Chunk
from balance.results.layout import BASE_SCHEMA


def team_codes(
    chunk: Chunk, teams: Sequence[str], team_names: Sequence[str]
) -> tuple[np.ndarray, list[str]]:
    """Each seat's team in each game as int32[n, P] codes, and the names of the codes.

    From the chunk when the game returns teams (``team_names`` non-empty), else from the config's
    ``teams`` (one name per seat, the same in every game; a broadcast view, no copy)."""
    n, p = chunk.score.shape
    if team_names:
        if chunk.team is None:
            raise ValueError("the game names teams but its Chunk.team is None")
        return chunk.team, list(team_names)
    names = list(dict.fromkeys(teams))
    code = np.array([names.index(t) for t in teams], dtype=np.int32)
    return np.broadcast_to(code, (n, p)), names


def win_values(rank: np.ndarray, team: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``win`` and ``shared`` of each seat: rank-1 seats get 1/k, where k is the number of
    distinct teams among the rank-1 seats of the game, the others 0; ``shared`` when k > 1.

    A Family victory is a full win for every Family seat; a two-way tie between one-seat teams
    is half a win each (DESIGN.md, The game protocol)."""
    won = rank == 1
    p = rank.shape[1]
    first = won.copy()  # a winning seat whose team no earlier winning seat has
    for s in range(1, p):
        for q in range(s):
            first[:, s] &= ~(won[:, q] & (team[:, q] == team[:, s]))
    k = first.sum(axis=1, keepdims=True)
    win = np.where(won, 1.0 / np.maximum(k, 1), 0.0)
    return win, won & (k > 1)


def chunk_columns(
    chunk: Chunk,
    *,
    seats: Sequence[str],
    teams: Sequence[str],
    end_reasons: Sequence[str],
    telemetry_columns: Sequence[str],
    team_names: Sequence[str] = (),
    role_names: Sequence[str] = (),
) -> dict[str, np.ndarray | parquet.Codes | parquet.Block]:
    """The columns of one chunk's rows (game-major, then seat) in file order, as arrays: strings
    as :class:`~balance.parquet.Codes`, and the telemetry as one row-major
    :class:`~balance.parquet.Block` under the key ``"telemetry"`` (its columns are named by
    ``telemetry_columns``). :func:`chunk_frame` is the same rows as a polars DataFrame.

    ``seats`` and ``teams`` are the config's policy and team of each seat; ``team_names`` and
    ``role_names`` the plugin's names of ``Chunk.team`` and ``Chunk.role`` codes (empty when the
    game returns none: the team is the config's, and there is no ``role`` column)."""
    n, p = chunk.n_games, len(seats)
    _check_chunk(chunk, p, len(end_reasons), len(telemetry_columns), team_names, role_names)
    seat = np.tile(np.arange(p, dtype=np.int8), n)
    rank = chunk.rank.astype(np.int8)
    team, names = team_codes(chunk, teams, team_names)
    win, shared = win_values(rank, team)
    policies = list(dict.fromkeys(seats))
    policy_code = np.array([policies.index(s) for s in seats], dtype=np.int8)
    columns: dict[str, np.ndarray | parquet.Codes | parquet.Block] = {
        "game": np.repeat(np.arange(chunk.first_game, chunk.first_game + n, dtype=np.int64), p),
        "seat": seat,
        "policy": parquet.Codes(np.tile(policy_code, n), policies),
        "team": parquet.Codes(team.ravel(), names),
    }
    if role_names:
        columns["role"] = parquet.Codes(chunk.role.ravel(), list(role_names))
    columns |= {
        "score": chunk.score.astype(np.int32, copy=False).ravel(),
        "rank": rank.ravel(),
        "win": win.ravel(),
        "shared": shared.ravel(),
        "turns": np.repeat(chunk.turns.astype(np.int32, copy=False), p),
        "end_reason": parquet.Codes(np.repeat(chunk.end_reason, p), list(end_reasons)),
        "order": chunk.order.astype(np.int8).ravel(),
    }
    for name, values in chunk.extra.items():
        columns[name] = values.astype(np.int32, copy=False).ravel()
    telemetry = chunk.telemetry.astype(np.uint8, copy=False).reshape(n * p, len(telemetry_columns))
    columns["telemetry"] = parquet.Block(telemetry, list(telemetry_columns))
    return columns


def trace_columns(chunk: Chunk, measures: Sequence[str]) -> dict[str, Any]:
    """The rows of one chunk's trajectories (``Chunk.trace_rows``) in file order: one row per
    game, recorded point and seat (game-major, then point, then seat), with ``game`` (int64),
    ``point`` (int16: 0 the start, one a round, the last the end), ``seat`` (int8) and one int16
    column per measure (the plugin's ``trace_measures``). Points a game did not record are not
    rows. The index columns come with their ranges and the measures as one row-major block
    (parquet.Ranged, parquet.Block), so that writing them is one pass each."""
    rows, points = chunk.trace_rows, chunk.points
    if rows is None or points is None:
        raise ValueError("the chunk keeps no trajectory (Chunk.trace_rows is None)")
    n, p = chunk.n_games, chunk.score.shape[1]
    if points.shape != (n,) or rows.shape[1:] != (p, len(measures)):
        raise ValueError(
            f"Chunk.trace_rows has shape {rows.shape} and points {points.shape}; expected "
            f"(R, {p}, {len(measures)}) and ({n},) for measures {list(measures)}"
        )
    points = points.astype(np.int64)
    if n and points.min() < 1:
        raise ValueError("Chunk.points must be at least 1 (point 0, the start)")
    if int(points.sum()) != rows.shape[0]:
        raise ValueError(f"Chunk.points sum to {int(points.sum())}, not the {rows.shape[0]} rows")
    point, seat = _trace_index(points, p)
    top = int(points.max()) - 1 if n else 0
    games = np.arange(chunk.first_game, chunk.first_game + n, dtype=np.int64)
    return {
        "game": parquet.Runs(games, points * p),
        "point": parquet.Ranged(point, 0, top),
        "seat": parquet.Ranged(seat, 0, p - 1),
        "measures": parquet.Block(rows.reshape(-1, len(measures)), list(measures)),
    }


def trace_frame(chunk: Chunk, measures: Sequence[str]) -> pl.DataFrame:
    """:func:`trace_columns` as a DataFrame: the rows a part's trajectory file holds."""
    cols = trace_columns(chunk, measures)
    block = cols.pop("measures")
    game = cols.pop("game")
    return pl.DataFrame(
        {
            "game": np.repeat(game.values, game.lengths),
            **{name: c.values for name, c in cols.items()},
            **{name: block.values[:, j] for j, name in enumerate(block.names)},
        }
    )


@njit(cache=True, nogil=True)
def _trace_index(points, players):  # pragma: no cover - compiled
    """The ``point`` (int16) and ``seat`` (int8) of every row of a chunk's trajectories in file
    order, in one pass."""
    total = 0
    for g in range(points.shape[0]):
        total += points[g] * players
    point = np.empty(total, np.int16)
    seat = np.empty(total, np.int8)
    i = 0
    for g in range(points.shape[0]):
        for k in range(points[g]):
            for s in range(players):
                point[i] = k
                seat[i] = s
                i += 1
    return point, seat


def chunk_frame(
    chunk: Chunk,
    *,
    seats: Sequence[str],
    teams: Sequence[str],
    end_reasons: Sequence[str],
    telemetry_columns: Sequence[str],
    team_names: Sequence[str] = (),
    role_names: Sequence[str] = (),
) -> pl.DataFrame:
    """The rows of one chunk, game-major then seat, built from its arrays without a row loop
    (the columns of :func:`chunk_columns`, the same arguments)."""
    columns = chunk_columns(
        chunk,
        seats=seats,
        teams=teams,
        end_reasons=end_reasons,
        telemetry_columns=telemetry_columns,
        team_names=team_names,
        role_names=role_names,
    )
    return columns_frame(columns)


def columns_frame(columns: dict[str, np.ndarray | parquet.Codes | parquet.Block]) -> pl.DataFrame:
    """The polars DataFrame of :func:`chunk_columns`' columns."""
    series = []
    for name, column in columns.items():
        if isinstance(column, parquet.Block):
            series += [pl.Series(c, column.values[:, j]) for j, c in enumerate(column.names)]
        elif isinstance(column, parquet.Codes):
            codes = pl.Series(name, column.codes.astype(np.int32, copy=False))
            series.append(
                codes.replace_strict(
                    range(len(column.names)), list(column.names), return_dtype=pl.String
                )
            )
        else:
            series.append(pl.Series(name, column))
    return pl.DataFrame(series)


def frame_columns(frame: pl.DataFrame) -> dict[str, np.ndarray | parquet.Codes]:
    """A DataFrame's columns as :func:`balance.parquet.write_table` takes them."""
    columns: dict[str, np.ndarray | parquet.Codes] = {}
    for s in frame.iter_columns():
        if s.dtype == pl.String:
            names = s.unique(maintain_order=True)
            codes = s.replace_strict(names, range(len(names)), return_dtype=pl.Int32)
            columns[s.name] = parquet.Codes(codes.to_numpy(), names.to_list())
        else:
            columns[s.name] = s.to_numpy()
    return columns


def _check_chunk(
    chunk: Chunk,
    p: int,
    n_reasons: int,
    n_telemetry: int,
    team_names: Sequence[str] = (),
    role_names: Sequence[str] = (),
) -> None:
    """Shape checks, so a plugin bug fails here with a message instead of as a garbled dataset."""
    n = chunk.n_games
    for what, codes, names in (("team", chunk.team, team_names), ("role", chunk.role, role_names)):
        if names and codes is None:
            raise ValueError(f"the game names {what}s but Chunk.{what} is None")
        if codes is not None and not names:
            raise ValueError(f"Chunk.{what} is given but the game names no {what}s")
        if codes is not None:
            if codes.shape != (n, p):
                raise ValueError(f"Chunk.{what} has shape {codes.shape}, expected {(n, p)}")
            if n and (codes.min() < 0 or codes.max() >= len(names)):
                raise ValueError(f"Chunk.{what} has codes outside 0..{len(names) - 1}")
    shapes = {
        "score": (chunk.score, (n, p)),
        "rank": (chunk.rank, (n, p)),
        "turns": (chunk.turns, (n,)),
        "end_reason": (chunk.end_reason, (n,)),
        "order": (chunk.order, (n, p)),
        "telemetry": (chunk.telemetry, (n, p, n_telemetry)),
        **{f"extra[{name!r}]": (a, (n, p)) for name, a in chunk.extra.items()},
    }
    for name, (array, shape) in shapes.items():
        if array.shape != shape:
            raise ValueError(f"Chunk.{name} has shape {array.shape}, expected {shape}")
    clash = set(chunk.extra) & {*BASE_SCHEMA, "role"}
    if clash:
        raise ValueError(f"Chunk.extra columns {sorted(clash)} clash with the base columns")
    if n and (chunk.end_reason.min() < 0 or chunk.end_reason.max() >= n_reasons):
        raise ValueError(f"Chunk.end_reason has codes outside 0..{n_reasons - 1}")
