"""The numbers a report shows, computed before anything is drawn or written.

``analyse`` reads a results directory and computes its statistics (balance/stats) into a
``DatasetStats``; ``differences`` compares a dataset with a baseline (paired game by game when
both ran the same seed and games, else as two independent samples); ``first_player_rows`` reads
the first player's edge out of an impact file (balance/impact_file.py owns that format; the
significance rule, ``significant``, is balance/stats/multiple.py's); ``comparison_rows`` picks the rows of a ``balance compare`` worth
showing. sentences.py says these numbers in words, sections.py lays them out.

Nothing here prints or exits: problems raise ``ReportError`` (one line naming the path and fix)
or the ``ResultsError`` of balance/results/.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl
import yaml

from balance import stats
from balance.errors import BalanceError
from balance.games.base import ReportSection
from balance.impact_file import ImpactFile
from balance.results import open_results


class ReportError(BalanceError):
    """A report cannot be made; the message is one line naming the path and the fix."""


class DatasetStats(NamedTuple):
    """Everything the report shows about one results dataset."""

    label: str  # the directory's name
    path: str
    manifest: dict[str, Any]
    shares: stats.WinShares
    advantage: stats.SeatAdvantage
    dist: stats.Distributions
    impact: stats.CardImpact  # split by policy when the line-up mixes policies
    impact_by: str | None  # "policy" or None
    score_by_policy: pl.DataFrame | None  # policy, score, n (mixed line-ups only)
    seconds: float  # time spent computing the statistics
    # the game's own sections (its plugin's ``report_sections``: balance/games/base.py)
    game_sections: tuple[ReportSection, ...] = ()
    # every axis of balance judged against the config's report.tolerance (stats/axes.py)
    axes: tuple[stats.Axis, ...] = ()
    # one line per policy of the line-up: its name, kind and what it does (from the game)
    players: tuple[tuple[str, str, str], ...] = ()


def analyse_rows(
    manifest: dict[str, Any],
    rows: pl.LazyFrame | pl.DataFrame,
    *,
    label: str,
    path: str = "",
    level: float = 0.95,
    game_sections: bool = True,
) -> DatasetStats:
    """The statistics of one dataset given as (manifest, rows); with ``game_sections``, the
    sections its game adds to a report of it (``game_report_sections``)."""
    t0 = time.perf_counter()
    lf = rows.lazy() if isinstance(rows, pl.DataFrame) else rows
    shares = stats.win_shares(lf, level=level)
    if shares.games == 0:
        raise ReportError(f"{path or label}: the dataset holds no games; run more games first")
    advantage = stats.seat_advantage(lf, level=level, shares=shares)
    dist = stats.distributions(lf)
    by = "policy" if shares.by_policy.height > 1 else None
    impact = stats.card_impact(lf, manifest, by=by, level=level)
    score_by_policy = None
    if by:
        score_by_policy = (
            lf.group_by("policy", "score")
            .agg(pl.len().alias("n"))
            .sort("policy", "score")
            .collect()
        )
    own = tuple(game_report_sections(manifest, lf, level=level)) if game_sections else ()
    plugin = game_plugin(manifest)
    settings = report_settings(manifest)
    targets = settings.targets.model_dump()
    axes = stats.balance_axes(
        lf,
        tolerance=settings.tolerance.axes(),
        targets=targets,
        level=level,
        role_sides=None if plugin is None else plugin.role_sides(),
    )
    return DatasetStats(
        label=label,
        path=path,
        manifest=manifest,
        shares=shares,
        advantage=advantage,
        dist=dist,
        impact=impact,
        impact_by=by,
        score_by_policy=score_by_policy,
        seconds=time.perf_counter() - t0,
        game_sections=own,
        axes=tuple(axes),
        players=tuple(players_of(manifest)),
    )


def report_settings(manifest: dict[str, Any]) -> Any:
    """The run's ``report:`` section (its defaults for a run recorded without one)."""
    from balance.headline import ReportSettings

    given = (manifest.get("config") or {}).get("report")
    try:
        return ReportSettings.model_validate(given) if given else ReportSettings()
    except ValueError:  # written by another version: the defaults, rather than no page
        return ReportSettings()


def game_plugin(manifest: dict[str, Any]) -> Any:
    """The dataset's game plugin (balance.games.base.Game); None when the registry no longer
    knows the game."""
    from balance import games as registry

    try:
        return registry.get(str(manifest.get("game")))
    except KeyError:
        return None


def players_of(manifest: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(name, kind, what it does) of each policy of the run's line-up, in seat order: the
    game's own words for the policy's kind (``Game.describe_policy``); a game the registry no
    longer knows says nothing more than the kind."""
    config = manifest.get("config") or {}
    policies = config.get("policies") or {}
    plugin = game_plugin(manifest)
    out = []
    for name in dict.fromkeys(str(p) for p in manifest.get("seats") or ()):
        kind = str((policies.get(name) or {}).get("kind", name))
        out.append((name, kind, "" if plugin is None else plugin.describe_policy(kind)))
    return out


def game_report_sections(
    manifest: dict[str, Any], rows: pl.LazyFrame, *, level: float = 0.95
) -> list[ReportSection]:
    """The sections the dataset's game adds to its report (``Game.report_sections``; a game
    the registry no longer knows adds none)."""
    plugin = game_plugin(manifest)
    return [] if plugin is None else list(plugin.report_sections(manifest, rows, level=level))


def analyse(path: str | os.PathLike[str], *, level: float = 0.95) -> DatasetStats:
    """The statistics of results directory ``path`` (ResultsError if it is not one)."""
    manifest, rows = open_results(path)
    return analyse_rows(manifest, rows, label=label(path), path=os.fspath(path), level=level)


def label(path: str | os.PathLike[str]) -> str:
    """A dataset's name on the page: its directory's name."""
    return Path(os.path.abspath(path)).name


def one_seat_per_team(teams: Sequence[Any]) -> bool:
    """Every team is a single seat, so team rows would only repeat the seat rows."""
    return len(set(teams)) == len(teams)


# =================================================================================== baseline


class Differences(NamedTuple):
    """A dataset against a baseline: rows of ``metric, kind, group, games, a (baseline), b (this
    dataset), diff (b - a), lo, hi, p_value, significant`` as in balance/stats/paired.py."""

    label: str
    baseline: str
    paired: bool
    method: str
    why: str  # why paired or not
    games: int
    table: pl.DataFrame
    config_changes: list[str]  # "rules.x.y: 1 -> 2" between the two resolved configs


UNPAIRED_METHOD = stats.UNPAIRED_METHOD


def differences(
    ds: DatasetStats,
    base: DatasetStats,
    *,
    rows: pl.LazyFrame | None = None,
    base_rows: pl.LazyFrame | None = None,
    level: float = 0.95,
) -> Differences:
    """``ds`` minus ``base``: paired game by game when both ran the same game, players, seed and
    games (common random numbers) and the rows are given, else unpaired."""
    m, b = ds.manifest, base.manifest
    same = {
        "game": m.get("game") == b.get("game"),
        "players": m.get("players") == b.get("players"),
        "seed": m.get("seed") == b.get("seed"),
        "games": m.get("games_done") == b.get("games_done"),
    }
    changes = config_changes(b.get("config") or {}, m.get("config") or {})
    if all(same.values()) and rows is not None and base_rows is not None:
        p = stats.paired_differences(base_rows, rows, a_manifest=b, b_manifest=m, level=level)
        why = f"same seed ({m.get('seed')}) and games 0..{p.games - 1}: compared game by game"
        paired, method, games, table = True, p.method, p.games, p.table
    else:
        differ = ", ".join(k for k, ok in same.items() if not ok) or "rows not given"
        why = f"not paired ({differ} differ): compared as independent samples"
        paired, method = False, UNPAIRED_METHOD
        games = min(ds.shares.games, base.shares.games)
        table = stats.unpaired_differences(base.shares, base.dist, ds.shares, ds.dist, level=level)
    if all(one_seat_per_team(x.get("teams") or []) and not x.get("team_names") for x in (m, b)):
        table = table.filter(pl.col("kind") != "team")  # one seat per team: the seats again
    return Differences(ds.label, base.label, paired, method, why, games, table, changes)


def config_diff(
    a: dict[str, Any], b: dict[str, Any], prefix: str = ""
) -> list[tuple[str, str, str]]:
    """Keys whose values differ between two resolved configs, as ``(key.path, a, b)`` with the
    values in YAML flow style (``(absent)`` for a key one side lacks); games and seed, the run's
    size, are left out."""
    out = []
    for key in list(dict.fromkeys([*a, *b])):
        if key in ("games", "seed") and not prefix:
            continue  # the run's size, not a rule
        path = f"{prefix}{key}"
        va, vb = a.get(key, "(absent)"), b.get(key, "(absent)")
        if isinstance(va, dict) and isinstance(vb, dict):
            out += config_diff(va, vb, path + ".")
        elif va != vb:
            out.append((path, _flow(va), _flow(vb)))
    return out


def config_changes(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """Keys whose values differ between two resolved configs, as ``key.path: a -> b``."""
    return [f"{key}: {va} -> {vb}" for key, va, vb in config_diff(a, b)]


def _flow(value: Any) -> str:
    if value == "(absent)":
        return value
    text = yaml.safe_dump(value, default_flow_style=True, width=10**9)
    return text.removesuffix("\n").removesuffix("\n...").strip()


# ===================================================================== interventional impact


def first_player_rows(impact: ImpactFile) -> list[dict[str, Any]]:
    """Per variant: the first player's win share and edge in the base config (``a``) and in the
    variant (``b``), and the paired change with its interval; [] without turn-order rows. The
    rows keep the table's order of variants."""
    t = impact.table.filter((pl.col("kind") == "order") & (pl.col("metric") == "win_share"))
    places = t["group"].n_unique() if t.height else 0
    if places < 2:
        return []
    # A fair place wins the mean seat win of the same games: the mean over the places of their
    # shares (every game has every place). That is 1/places when one seat wins each game, and
    # what the average seat wins when several win together (dealt sides), in either config.
    fair = t.group_by("variant").agg(
        pl.col("a").mean().alias("fair_a"), pl.col("b").mean().alias("fair_b")
    )
    rows = []
    first = t.filter(pl.col("group") == "0").join(
        fair, on="variant", how="left", maintain_order="left"
    )
    for r in first.to_dicts():
        fa, fb = r.pop("fair_a"), r.pop("fair_b")
        rows.append({**r, "edge_a": r["a"] - fa, "edge_b": r["b"] - fb, "fair": fa})
    return rows


# ================================================================================ compare A B


def comparison_rows(comparison: Any) -> pl.DataFrame:
    """The rows of a ``Comparison`` table worth showing: team rows go when every team is one seat
    (they repeat the seats), policy rows when one policy holds every seat (its share is fixed)."""
    t = comparison.table
    lineups = (comparison.a_lineup, comparison.b_lineup)
    if all(line is not None and line.teams_are_seats for line in lineups):
        t = t.filter(pl.col("kind") != "team")
    if t.filter(pl.col("kind") == "policy")["group"].n_unique() <= 1:
        t = t.filter(pl.col("kind") != "policy")
    return t
