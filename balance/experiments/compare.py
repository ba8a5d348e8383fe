"""``balance compare``: differences B - A of two configs run on the same seeds.

Same game and player count: paired game by game (common random numbers). Different player
counts of one game: the same seeds give different games, so the runs are compared as
independent samples, and only on what means the same at both counts (balance/stats/across.py:
share / fair per place in the turn order, the first player's edge, mean score per seat-game,
game length)."""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np
import polars as pl

from balance import games as registry
from balance import runner, stats
from balance.config import RunConfig
from balance.experiments.play import Progress, Runs
from balance.runner import CHUNK, RunnerError
from balance.stats import across, plays


class Comparison(NamedTuple):
    """Differences B - A of two configs run on the same seeds (report: draw ``table``): paired
    game by game (``paired``) or, across player counts, independent (balance/stats/across.py)."""

    a_path: str
    b_path: str
    a_config: RunConfig
    b_config: RunConfig
    games: int
    seed: int
    level: float
    method: str  # how the intervals are made
    table: pl.DataFrame  # stats.PairedAccumulator.table: metric, kind, group, a, b, diff, lo, hi...
    wall_time_s: float
    a_lineup: stats.Lineup | None = None  # the groups each run has (policies, teams, roles)
    b_lineup: stats.Lineup | None = None
    paired: bool = True  # False: different player counts, independent samples (stats.across)
    # (kind, group, why) of the teams and roles whose rows are left out of ``table`` (why:
    # "never dealt" in either run, "only in A", "only in B"): see ``leave_out``.
    left_out: tuple[tuple[str, str, str], ...] = ()
    # how the games played (stats/plays.py), paired B - A per metric with its q-value: games of
    # the same player count whose game keeps trajectories; None otherwise
    plays: pl.DataFrame | None = None
    # turns, dead turns and kingmaking (balance/census.py) of games 0 to N - 1 of both, paired
    # B - A per measure (stats/census.py ``paired_summary``): ``compare --census N``; else None
    census: pl.DataFrame | None = None

    @property
    def samples(self) -> str:
        """How the games are compared, in words for tables and pages."""
        return "paired: same seeds" if self.paired else across.SAMPLES


def check_pairable(a: RunConfig, b: RunConfig, what: str) -> None:
    """RunnerError unless ``a`` and ``b`` play the same game with the same players (the game
    first: across games a player count means nothing)."""
    check_same_game(a, b, what)
    if a.players != b.players:
        raise RunnerError(
            f"{what} needs the same number of players, got {a.players} and {b.players}"
        )


def check_same_game(a: RunConfig, b: RunConfig, what: str) -> None:
    if a.game != b.game:
        raise RunnerError(f"{what} needs configs of the same game, got {a.game} and {b.game}")


def compare(
    a: RunConfig,
    b: RunConfig,
    *,
    a_path: str = "A",
    b_path: str = "B",
    games: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    level: float = 0.95,
    chunk_size: int = CHUNK,
    progress: Progress | None = None,
    census: int = 0,
) -> Comparison:
    """Run A and B on the same seeds (default: A's games and seed) and pair them game by game;
    with different player counts, compare them as independent samples (stats.across). With
    ``census`` N, also replay games 0 to N - 1 of both decision by decision (balance/census.py)
    and pair their turns, dead turns and kingmaking."""
    games = a.games if games is None else games
    seed = a.seed if seed is None else seed
    check_same_game(a, b, "compare")
    paired = a.players == b.players
    if census:
        check_census(a, b, census, games, paired)
    runner.check_options(
        games=games,
        seed=seed,
        chunk_size=chunk_size,
        threads=threads,
        players=max(a.players, b.players),  # the same bound as simulate's
    )
    report = progress or (lambda done, total: None)
    t0 = time.perf_counter()
    with runner.numba_threads(threads):
        runs = Runs([a, b], seed)
        acc: stats.PairedAccumulator | across.AcrossAccumulator
        if paired:
            acc = stats.PairedAccumulator(*stats.common_groups(*runs.lineups))
        else:
            dealt = registry.get(a.game).deals_teams  # no fair 1/n (stats.across)
            acc = across.AcrossAccumulator(a.players, b.players, dealt=dealt)
        seated = [Seated(line) for line in runs.lineups]
        how = plays.PairedPlays() if paired else None
        report(0, games)  # the kernels are loaded: the games start
        for arr_a, arr_b in runs.play(seed=seed, games=games, chunk_size=chunk_size):
            acc.add(arr_a, arr_b)
            seated[0].add(arr_a)
            seated[1].add(arr_b)
            if how is not None and arr_a.plays is not None and arr_b.plays is not None:
                how.add(arr_a.plays, arr_b.plays)
            report(acc.games, games)
    left_out: tuple[tuple[str, str, str], ...] = ()
    if isinstance(acc, stats.PairedAccumulator):
        method = stats.METHOD
        table, left_out = paired_table(acc, seated, level)
    else:
        method = across.METHOD_DEALT if acc.dealt else across.METHOD
        table = acc.table(level)
    return Comparison(
        a_path=a_path,
        b_path=b_path,
        a_config=a,
        b_config=b,
        games=acc.games,
        seed=seed,
        level=level,
        method=method,
        table=table,
        wall_time_s=time.perf_counter() - t0,
        a_lineup=runs.lineups[0],
        b_lineup=runs.lineups[1],
        paired=paired,
        left_out=left_out,
        plays=None if how is None or how.table(level).is_empty() else how.table(level),
        census=paired_census(a, b, seed, census, level) if census else None,
    )


def check_census(a: RunConfig, b: RunConfig, games: int, played: int, paired: bool) -> None:
    """``--census N``: one line, before any game, when it cannot be taken of A and B."""
    from balance import census as cs

    if not paired:
        raise RunnerError("--census pairs the same games of A and B: it needs the same players")
    if not 1 <= games <= min(played, cs.MAX_GAMES):
        raise RunnerError(
            f"--census {games:,}: must be between 1 and the games compared ({played:,}, at "
            f"most {cs.MAX_GAMES:,})"
        )
    cs.censusable(a)
    cs.censusable(b)


def paired_census(a: RunConfig, b: RunConfig, seed: int, games: int, level: float) -> pl.DataFrame:
    """B - A of the census measures of games 0 to ``games`` - 1 of both (same seed: the same
    games, decision by decision), each with its interval and the one rule's q-value."""
    from balance import census as cs
    from balance.stats.census import paired_summary

    ca, cb = (cs.take_census(c, seed, games) for c in (a, b))
    return paired_summary(ca.frame, cb.frame, level)


KINDS_DEALT = ("team", "role")  # the groups whose seats a game can deal anew every game


class Seated:
    """Seat-games of each team and role of one run, counted chunk by chunk (codes index the
    run's line-up names): a group with none was never dealt in these games."""

    def __init__(self, line: stats.Lineup) -> None:
        self.line = line
        self.counts = {kind: np.zeros(len(line.names(kind)), np.int64) for kind in KINDS_DEALT}

    def add(self, arrays: stats.GameArrays) -> None:
        for kind, counts in self.counts.items():
            codes = getattr(arrays, kind)
            if codes is None or not len(counts):
                continue
            c = np.asarray(codes).ravel()
            counts += np.bincount(c[(c >= 0) & (c < len(counts))], minlength=len(counts))

    def count(self, kind: str, name: str) -> int:
        names = self.line.names(kind)
        return int(self.counts[kind][names.index(name)]) if name in names else 0


def paired_table(
    acc: stats.PairedAccumulator, seated: list[Seated], level: float
) -> tuple[pl.DataFrame, tuple[tuple[str, str, str], ...]]:
    """The paired table of A and B so far (the one rule's q-values, A's line-up naming the rows
    that repeat a seat's) without the groups no game pairs (:func:`leave_out`), and those groups."""
    table = acc.table(level, repeats=seated[0].line.repeats())
    return leave_out(table, *seated)


def leave_out(
    table: pl.DataFrame, a: Seated, b: Seated
) -> tuple[pl.DataFrame, tuple[tuple[str, str, str], ...]]:
    """``table`` without the rows of teams and roles that no game of A or B dealt (a game's
    names list every character, and a config deals a few: Raven Manor's starter game leaves 19
    of its roles out), and without the rows that no game pairs (a team or role dealt only in A
    or only in B has no per-game difference: its interval would print as [nan, nan]); and the
    (kind, group, why) of each group left out, why one of "never dealt", "only in A", "only in
    B". A group dealt in only one run keeps its rows that every game pairs (a team's win share,
    0 in the games it is not dealt: a real change). Neither kind of row has a p-value, so the
    q-values of the rows kept do not change."""
    out: list[tuple[str, str, str]] = []
    for kind, group in table.select("kind", "group").unique(maintain_order=True).iter_rows():
        if kind not in KINDS_DEALT:
            continue
        na, nb = a.count(kind, group), b.count(kind, group)
        if na and nb:
            continue
        out.append(
            (kind, group, "never dealt" if not (na or nb) else "only in B" if nb else "only in A")
        )
    if not out:
        return table, ()
    never = {(k, g) for k, g, why in out if why == "never dealt"}
    one_side = {(k, g) for k, g, why in out if why != "never dealt"}
    gone = [
        (k, g) in never or ((k, g) in one_side and n == 0)
        for k, g, n in table.select("kind", "group", "games").iter_rows()
    ]
    return table.filter(~pl.Series(gone, dtype=pl.Boolean)), tuple(out)
