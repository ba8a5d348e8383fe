"""Live mode (``balance watch``): a config played in growing chunks, its figures refined as the
games accumulate, and each saved version compared with the one before it on common seeds.

A *version* is one successfully loaded state of the config (its file and every file it extends).
A *session* plays one version against its reference (the version saved before it, or the fixed
``--against BASE``): the same games of both, game 0 first, in chunks that double in size (2,000
games, then 4,000, ...), so the first figures come within a second or two of a save and later
ones refine them. After each chunk it publishes a *snapshot* (a plain dict, what the page shows):

- the headline the config declares (``report.headline``) with its t-interval over games;
- every axis of the verdict (balance/stats/axes.py) with its sentence (balance/report/verdict.py);
- the paired change B - A of every row of ``balance compare``'s table, with the one
  significance rule's q-values (balance/stats/multiple.py).

**When the figures are claims.** A session stops at a rule fixed before its first game: the
headline's interval is at most ``half_width`` wide on each side, or ``games`` (the budget) are
played. Neither looks at a difference's size, so the final intervals keep their level. A
snapshot before the stop is a preview: the page greys its verdicts and stars and says "so far".
Stopping at the first preview whose interval excluded 0 would not keep the level; nothing here
does.

Nothing here serves, watches files or prints: balance/cli/watch.py does, with balance/live_page.py.
The session checks ``cancelled()`` between chunks, so a newer save stops it within one chunk.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, NamedTuple

import numpy as np
import polars as pl

from balance import runner, stats
from balance.config import RunConfig
from balance.experiments.compare import Seated, check_pairable, paired_table
from balance.experiments.play import Runs
from balance.report.numbers import comparison_rows

FIRST_CHUNK = 2_000  # games of the first chunk: figures within a second or two of a save
MAX_CHUNK = 65_536  # the runner's usual chunk (balance/runner: CHUNK)
MAX_GAMES = 1_000_000  # a watch's budget at most: the rows of the axes stay in memory
MAX_HALF_WIDTH = 1e6  # --half-width at most (turns or points; a share's is at most 1 anyway)
METRIC_WORDS = {"win_share": "win share", "mean_score": "mean score", "mean_turns": "game length"}


class Version(NamedTuple):
    """One loaded state of the watched config."""

    number: int  # 1 for the first load, then one more for each good save
    config: RunConfig
    label: str  # "version 3 (saved 14:02:11)" or the --against file's name
    files: tuple[str, ...]  # the config's file and the files it extends
    saved: str = ""  # the clock time it was loaded at, for the page


class Board:
    """The latest snapshot, for the page's readers (server threads); ``rev`` grows by one with
    each publish, so a reader sends only what changed."""

    def __init__(self, **fields: Any) -> None:
        self._lock = threading.Lock()
        self._snap: dict[str, Any] = {"rev": 0, **fields}

    def publish(self, **fields: Any) -> None:
        with self._lock:
            self._snap = {**self._snap, **fields, "rev": self._snap["rev"] + 1}

    def get(self) -> dict[str, Any]:
        with self._lock:
            return self._snap

    @property
    def rev(self) -> int:
        return self.get()["rev"]


class Cancelled(Exception):
    """A newer save (or the end of the watch) stopped a session between chunks."""


def headline_words(key: tuple[str, str, str]) -> str:
    """'win share of the 1st player', 'mean score of policy greedy', 'game length'."""
    from balance.report.sentences import ordinal

    metric, kind, group = key
    if metric == "mean_turns":
        return "game length (turns)"
    who = f"the {ordinal(int(group))} player" if kind == "order" else f"{kind} {group}"
    return f"{METRIC_WORDS[metric]} of {who}"


def row_words(key: tuple[str, str, str]) -> str:
    """A row of compare's table in words: its game and all-seat rows too."""
    metric, kind, _ = key
    if kind == "game":
        return "game length (turns)"
    if kind == "all":
        return f"{METRIC_WORDS[metric]} of all seat-games"
    return headline_words(key)


def lineup_words(config: RunConfig) -> str:
    """Who plays: '4 × greedy' or 'economy, rush' (every figure names its players)."""
    seats = list(config.seats)
    if len(set(seats)) == 1:
        return f"{len(seats)} × {seats[0]}"
    return ", ".join(seats)


def pairable(a: RunConfig, b: RunConfig) -> str | None:
    """Why versions a and b cannot be paired game by game (None: they can)."""
    try:
        check_pairable(a, b, "a paired change")
    except runner.RunnerError as e:
        return str(e)
    return None


def chunks(budget: int) -> list[int]:
    """The games of each chunk: FIRST_CHUNK, then twice the last, at most MAX_CHUNK, until the
    budget (the last one may be smaller)."""
    out, size, done = [], FIRST_CHUNK, 0
    while done < budget:
        out.append(min(size, budget - done))
        done += out[-1]
        size = min(2 * size, MAX_CHUNK)
    return out


def stops(done: int, budget: int, half: float, target: float) -> bool:
    """The stopping rule, fixed before the first game: the budget is played, or the headline's
    interval is at most ``target`` on each side. It reads no difference and no mean (the
    half-width is the headline's spread over the games so far), so the intervals at the stop
    keep their level (tests/test_watch.py plants nulls to check it)."""
    return done >= budget or half <= target


class Session:
    """One version played (against its reference) until its stopping rule."""

    def __init__(
        self,
        current: Version,
        reference: Version | None,
        *,
        games: int,
        half_width: float,
        seed: int | None = None,
        level: float = 0.95,
    ) -> None:
        self.current, self.reference = current, reference
        self.budget, self.half_width, self.level = games, half_width, level
        self.seed = current.config.seed if seed is None else seed
        cfg = current.config
        self.headline = cfg.report.headline.key()
        self.settings = cfg.report

    def run(self, board: Board, cancelled: Callable[[], bool]) -> dict[str, Any]:
        """Play until the stopping rule, publishing a snapshot after each chunk; the last
        snapshot. Raises Cancelled when ``cancelled()`` turns true between chunks, and the
        project's one-line errors (BalanceError) as they come."""
        configs = [self.current.config]
        if self.reference is not None:
            configs.insert(0, self.reference.config)
        runs = Runs(configs, self.seed)  # loads (or compiles) kernels the first time
        cur_line = runs.lineups[-1]
        plugin = runs.runs[-1].plugin
        acc = (
            stats.PairedAccumulator(*stats.common_groups(*runs.lineups))
            if len(configs) == 2
            else None
        )
        seated = [Seated(line) for line in runs.lineups]
        head = _headline_group(self.headline, cur_line)
        moments: stats.Moments | None = None
        frames: list[pl.DataFrame] = []
        done, t0 = 0, time.perf_counter()
        snap: dict[str, Any] = {}
        for n in chunks(self.budget):
            if cancelled():
                raise Cancelled
            for arrays in runs.play(seed=self.seed, games=n, first_game=done, chunk_size=n):
                cur = arrays[-1]
                for s, a in zip(seated, arrays, strict=True):
                    s.add(a)
                if acc is not None:
                    acc.add(arrays[0], cur)
                values = _head_values(cur, head, self.headline[0])
                moments = stats.merge_moments(moments, stats.moments(values))
                frames.append(_axis_rows(cur, cur_line))
            done += n
            head_iv = _interval(moments, self.level)
            final = stops(done, self.budget, head_iv["half"], self.half_width)
            snap = self._snapshot(
                done, time.perf_counter() - t0, head_iv, frames, plugin, acc, seated, final
            )
            board.publish(**snap)
            if final:
                break
        return snap

    def _snapshot(
        self, done, seconds, head_iv, frames, plugin, acc, seated, final
    ) -> dict[str, Any]:  # type: ignore[no-untyped-def]
        rows = pl.concat(frames, rechunk=False) if len(frames) > 1 else frames[0]
        frames[:] = [rows]
        axes = stats.balance_axes(
            rows,
            tolerance=self.settings.tolerance.axes(),
            targets=self.settings.targets.model_dump(),
            level=self.level,
            role_sides=plugin.role_sides() or None,
        )
        change = None
        if acc is not None:
            change = _change(acc, seated, self.level, self.headline)
            change["against"] = self.reference.label if self.reference else ""
        return {
            "status": "done" if final else "playing",
            "final": final,
            "version": self.current.number,
            "version_label": self.current.label,
            "saved": self.current.saved,
            "game": self.current.config.game,
            "players": self.current.config.players,
            "lineup": lineup_words(self.current.config),
            "seed": self.seed,
            "games": done,
            "budget": self.budget,
            "half_width_target": self.half_width,
            "seconds": round(seconds, 2),
            "games_per_s": round(done / seconds) if seconds > 0 else None,
            "headline": {"label": headline_words(self.headline), **head_iv},
            "axes": [_axis_dict(a) for a in axes],
            "change": change,
        }


def _headline_group(key: tuple[str, str, str], line: stats.Lineup) -> stats.Group | None:
    """The headline's group in the current line-up (None for game length)."""
    metric, kind, group = key
    if metric == "mean_turns":
        return None
    names = line.names(kind)
    if group not in names:  # the config's validation refuses this; kept as a plain error
        raise runner.RunnerError(f"report.headline: {kind} {group} is not in this line-up")
    return stats.Group(kind, group, names.index(group))


def _head_values(arrays: stats.GameArrays, head: stats.Group | None, metric: str) -> np.ndarray:
    """The headline's value in each game of ``arrays`` (float64[n, 1]): the group's win or
    mean score, or the game's length."""
    if head is None:
        return arrays.turns.reshape(-1, 1)
    win, score = stats.group_values(arrays, [head])
    return win if metric == "win_share" else score


def _interval(m: stats.Moments | None, level: float) -> dict[str, Any]:
    """The headline's mean and t-interval over games, as the page's numbers."""
    iv = stats.mean_interval(m, level)  # type: ignore[arg-type]
    mean, lo, hi = float(iv.mean[0]), float(iv.lo[0]), float(iv.hi[0])
    half = (hi - lo) / 2 if math.isfinite(hi - lo) else math.inf
    return {"value": mean, "lo": lo, "hi": hi, "half": half}


def _axis_rows(arrays: stats.GameArrays, line: stats.Lineup) -> pl.DataFrame:
    """The rows (game, seat) the verdict's axes read, from a chunk's per-game arrays."""
    n, p = arrays.win.shape
    cols: dict[str, Any] = {
        "game": np.repeat(np.arange(arrays.first_game, arrays.first_game + n, dtype=np.int64), p),
        "seat": np.tile(np.arange(p, dtype=np.int64), n),
        "order": np.asarray(arrays.order, dtype=np.int64).ravel(),
        "win": np.asarray(arrays.win, dtype=np.float64).ravel(),
        "policy": _named(arrays.policy, line.policies),
        "team": _named(arrays.team, line.teams),
    }
    if arrays.role is not None and line.roles:
        cols["role"] = _named(arrays.role, line.roles)
    return pl.DataFrame(cols)


def _named(codes: np.ndarray | None, names: tuple[str, ...]) -> pl.Series:
    """Codes as their names (a negative or unknown code: null)."""
    c = np.asarray(codes).ravel().astype(np.int64)
    ok = (c >= 0) & (c < len(names))
    return pl.Series([*names, None], dtype=pl.String).gather(np.where(ok, c, len(names)))


def _axis_dict(axis: stats.Axis) -> dict[str, Any]:
    from balance.report.verdict import axis_sentence

    sentence, _ = axis_sentence(axis)
    return {
        "kind": axis.kind,
        "verdict": axis.verdict,
        "sentence": sentence,
        "bound": axis.bound if math.isfinite(axis.bound) else None,
        "tolerance": axis.tolerance,
        "rows": [
            {
                "group": str(r["group"])
                if r.get("policy") is None
                else f"{r['policy']} {r['group']}",
                "dev": _num(r["dev"]),
                "lo": _num(r["lo"]),
                "hi": _num(r["hi"]),
                "verdict": r["verdict"],
            }
            for r in axis.rows.iter_rows(named=True)
        ],
    }


def _num(x: Any) -> float | None:
    return float(x) if x is not None and math.isfinite(float(x)) else None


def _change(acc, seated, level, headline) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """The paired change B - A: every row of compare's table, the headline's row first."""
    table, left = paired_table(acc, seated, level)
    shown = SimpleNamespace(table=table, a_lineup=seated[0].line, b_lineup=seated[1].line)
    table = comparison_rows(shown)  # the rows `balance compare --report` shows
    rows = []
    for r in table.iter_rows(named=True):
        key = (r["metric"], r["kind"], str(r["group"]))
        rows.append(
            {
                "label": row_words(key),
                "metric": r["metric"],
                "headline": key == tuple(headline),
                "a": _num(r["a"]),
                "b": _num(r["b"]),
                "diff": _num(r["diff"]),
                "lo": _num(r["lo"]),
                "hi": _num(r["hi"]),
                "q": _num(r["q_value"]),
                "significant": bool(r["significant"]),
            }
        )
    rows.sort(key=lambda r: not r["headline"])
    return {"games": acc.games, "rows": rows, "left_out": [list(x) for x in left]}
