"""The numbers a report shows, computed before anything is drawn or written.

``analyse`` reads a results directory and computes its statistics (balance/stats) into a
``DatasetStats``; ``differences`` compares a dataset with a baseline (paired game by game when
both ran the same seed and games, else as two independent samples); ``first_player_rows`` reads
the first player's edge out of an impact file (balance/impact_file.py owns that format; the
significance rule, ``significant``, is balance/stats/multiple.py's); ``comparison_rows`` picks the rows of a ``balance compare`` worth
showing. sentences.py says these numbers in words, sections.py lays them out.

The numbers of a ``balance sweep``'s page are here too: ``analyse_sweep(path)`` reads a sweep
directory (balance/sweep_file.py) into a ``SweepStats``: the curve rows of every finished
point, the table of neighbouring steps (balance/stats/curves.py) and the table of trends, the
least-squares slope of every metric on a numeric knob across all the points of a curve
(balance/stats/trend.py), with q-values for the steps and trends of the whole sweep as one
table; ``METRICS`` says which rows each figure of that page draws (``metric_rows``) and which
steps test them (``step_rows``). sweep_sentences.py says them in words, sweep_figures.py draws
them, sweep_page.py lays out the page.

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
from balance.results import open_results, open_trace
from balance.stats import curves, trend
from balance.sweep_file import Axis, SweepRun, open_sweep


class ReportError(BalanceError):
    """A report cannot be made; the message is one line naming the path and the fix."""


class Plays(NamedTuple):
    """How the games of a dataset played (stats/plays.py), from its trajectories."""

    standing: str  # the measure a leader is decided by (the game's first trace measure)
    summary: pl.DataFrame  # plays.summary: one row per metric
    curve: pl.DataFrame  # plays.winner_leads: the winner's lead at each tenth of the game
    unit: str = "seat"  # who leads and wins: "seat", or "side" (a game that deals sides)


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
    # how the games played, from their trajectories (None: the run recorded none)
    plays: Plays | None = None
    # its games replayed decision by decision (``balance census RESULTS``; None: not taken)
    census: Any = None


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
        plays=game_plays(manifest, path, lf, level=level),
        census=run_census(path, manifest) if path else None,
    )


def game_plays(
    manifest: dict[str, Any], path: str, rows: pl.LazyFrame, *, level: float = 0.95
) -> Plays | None:
    """How the games of the dataset at ``path`` played (stats/plays.py), when its run recorded
    trajectories: by seat, or by side for a game that deals sides and records each seat's."""
    from balance.stats import plays

    metrics = run_plays(manifest, path, rows)
    if metrics is None:
        return None
    return Plays(
        manifest["trace_measures"][0],
        plays.summary(metrics, level),
        plays.winner_leads(metrics, level),
        "side" if manifest.get("team_names") else "seat",
    )


def run_census(path: str, manifest: dict[str, Any]) -> Any:
    """The census taken of this run (``RESULTS/census.parquet``, balance/census.py), or None."""
    from balance import census

    return census.run_census(path, manifest)


def run_plays(manifest: dict[str, Any], path: str | os.PathLike[str], rows: pl.LazyFrame) -> Any:
    """The per-game plays metrics (stats/plays.py ``GameMetrics``) of the dataset at ``path``,
    every game it holds, or None when its run recorded no trajectory to read them from."""
    from balance.stats import plays

    measures = manifest.get("trace_measures") or []
    sides = plays.units(measures, manifest.get("team_names"))
    if not path or sides is None:
        return None
    _, trace = open_trace(path)
    games = int(manifest["games_done"])
    return plays.run_metrics(trace, rows, measures[0], games, sides=sides)


def report_settings(manifest: dict[str, Any]) -> Any:
    """The run's ``report:`` section (its defaults for a run recorded without one)."""
    from balance.config.headline import ReportSettings

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


# ====================================================================================== sweeps


class SweepStats(NamedTuple):
    """Everything the sweep page shows."""

    path: str
    run: SweepRun
    axes: tuple[Axis, ...]
    # the curve rows of every finished point (stats.curves.CURVE_COLUMNS) with: point (index),
    # x (the first knob's label), x_value, x_pos (its position among the knob's values),
    # series (the other knobs' labels, "" with one knob), players
    curve: pl.DataFrame
    # neighbouring steps (stats.curves.STEP_COLUMNS, q_value, significant) with step_label
    steps: pl.DataFrame
    # trends along the first knob, one per curve (stats.trend.TREND_COLUMNS, q_value,
    # significant) with first_label, last_label (the knob's first and last values as written);
    # empty for a knob whose values are not numbers or a curve of fewer than 3 points
    trends: pl.DataFrame
    identical: bool  # along the first knob, every curve's points played identical games
    headline: tuple[str, str, str]  # the config's report.headline (metric, kind, group)
    players: dict[int, int]  # point index -> players
    teams_are_seats: bool  # at every point: team rows would repeat the seats
    missing: list[str]  # points not finished, with their status
    manifests: dict[int, dict[str, Any]]  # point index -> its results manifest
    level: float
    seconds: float

    @property
    def players_vary(self) -> bool:
        return len(set(self.players.values())) > 1

    @property
    def series(self) -> list[str]:
        return list(dict.fromkeys(self.curve["series"].to_list()))


def _series_label(axes: Sequence[Axis], labels: Sequence[str]) -> str:
    return ", ".join(f"{a.key}={v}" for a, v in zip(axes[1:], labels[1:], strict=True))


def analyse_sweep(path: str | os.PathLike[str], *, level: float = 0.95) -> SweepStats:
    """The numbers of the sweep page: every finished point's curve rows, and each pair of
    neighbouring finished points (along the first knob, within each value of the others)
    compared, with the one significance rule over the whole sweep."""
    t0 = time.perf_counter()
    run = open_sweep(path)
    done = run.complete
    if not done:
        states = ", ".join(f"{p.name} {p.status}" for p in run.points)
        raise ReportError(f"{path}: no point of the sweep is finished yet ({states})")
    axes = run.axes
    first = axes[0]
    by_series: dict[str, list[Any]] = {}
    for p in done:
        by_series.setdefault(_series_label(axes, p.labels), []).append(p)
    curve_parts, step_parts, trend_parts, players, manifests = [], [], [], {}, {}
    teams_are_seats = True
    identical = True
    step = 0
    for series, pts in by_series.items():
        pts.sort(key=lambda p: first.labels.index(p.labels[0]))
        previous = None
        # A trend needs every point of its curve at once (its per-game contrast): about 80
        # bytes a game per point at four players.
        curve_points: list[curves.PointData] = []
        for p in pts:
            manifest, rows = open_results(p.path)
            how = run_plays(manifest, p.path, rows)
            c = run_census(p.path, manifest)
            data = curves.point_data(
                rows,
                manifest,
                level=level,
                how=how,
                census=None if c is None else c.frame,
                kingmaking=c is not None and c.kingmaking,
            )
            manifests[p.index] = manifest
            players[p.index] = data.players
            teams_are_seats &= data.lineup.teams_are_seats
            x_pos = first.labels.index(p.labels[0])
            curve_parts.append(
                data.curve.with_columns(
                    point=pl.lit(p.index, dtype=pl.Int64),
                    x=pl.lit(p.labels[0]),
                    x_value=pl.lit(float(p.values[0]) if first.numeric else float(x_pos)),
                    x_pos=pl.lit(x_pos, dtype=pl.Int64),
                    series=pl.lit(series),
                    players=pl.lit(data.players, dtype=pl.Int64),
                )
            )
            if previous is not None:
                q, dq = previous
                rows_ = curves.neighbour_rows(
                    dq, data, step=step, a_point=q.index, b_point=p.index, level=level
                )
                label = f"{first.key}={q.labels[0]} → {p.labels[0]}"
                step_parts.append(
                    rows_.with_columns(
                        step_label=pl.lit(label + (f" ({series})" if series else "")),
                        series=pl.lit(series),
                    )
                )
                step += 1
            previous = (p, data)
            curve_points.append(data)
        identical &= trend.identical_points(curve_points)
        if first.numeric and len(pts) >= trend.MIN_POINTS:
            rows_ = trend.trend_rows(
                [float(p.values[0]) for p in pts], curve_points, series=series, level=level
            )
            trend_parts.append(
                rows_.with_columns(
                    first_label=pl.lit(pts[0].labels[0]), last_label=pl.lit(pts[-1].labels[0])
                )
            )
        del curve_points
    curve = pl.concat(curve_parts)
    trends = (
        pl.concat(trend_parts)
        if trend_parts
        else trend.empty_trends().with_columns(
            first_label=pl.lit(None, dtype=pl.String), last_label=pl.lit(None, dtype=pl.String)
        )
    )
    if step_parts:
        steps, trends = trend.adjust_sweep(pl.concat(step_parts, how="diagonal_relaxed"), trends)
    else:
        steps = pl.DataFrame(
            schema={
                **dict.fromkeys(curves.STEP_COLUMNS, pl.String),
                "step": pl.Int64,
                "diff": pl.Float64,
                "lo": pl.Float64,
                "hi": pl.Float64,
                "a": pl.Float64,
                "b": pl.Float64,
                "p_value": pl.Float64,
                "q_value": pl.Float64,
                "significant": pl.Boolean,
                "step_label": pl.String,
                "series": pl.String,
            }
        )
        trends = trends.with_columns(
            q_value=pl.lit(None, dtype=pl.Float64), significant=pl.lit(False)
        )  # a trend has at least 3 points, so steps too
    missing = [
        f"{p.name} ({p.status}{f', {p.games_done:,} games' if p.games_done else ''})"
        for p in run.points
        if p.status != "complete"
    ]
    return SweepStats(
        path=os.fspath(path),
        run=run,
        axes=axes,
        curve=curve,
        steps=steps,
        trends=trends,
        identical=identical,
        headline=report_settings(manifests[min(manifests)]).headline.key(),
        players=players,
        teams_are_seats=teams_are_seats,
        missing=missing,
        manifests=manifests,
        level=level,
        seconds=time.perf_counter() - t0,
    )


# ----------------------------------------------------------------- what each sweep figure shows


class Metric(NamedTuple):
    """One figure of the page: which curve rows, which step rows test them, how to say them."""

    key: str  # section id
    heading: str
    metric: str  # curve metric
    kinds: tuple[str, ...]  # curve kinds drawn (a trace per group)
    what: str  # "the first player's edge", in sentences
    unit: str  # unit of a value or a change in words: " points", " turns", ""
    scale: float  # value -> shown (100 for shares in points)


METRICS = (
    Metric("edge", "First player's edge", "first_edge", ("order",), "the first player's edge",
           " points", 100.0),
    Metric("seats", "Win share per seat", "win_share", ("seat",), "a seat's win share",
           " points", 100.0),
    Metric("order", "Win share per place in the turn order", "win_share", ("order",),
           "a place's win share", " points", 100.0),
    Metric("policy", "Win share per policy", "win_share", ("policy",), "a policy's win share",
           " points", 100.0),
    Metric("team", "Win share per team", "win_share", ("team",), "a team's win share",
           " points", 100.0),
    Metric("role", "Win share per role", "win_share", ("role",), "a role's win share",
           " points", 100.0),
    Metric("score", "Mean score", "mean_score", ("all", "policy"), "the mean score", "", 1.0),
    Metric("length", "Game length", "mean_turns", ("game",), "game length", " turns", 1.0),
    Metric("ends", "End reasons", "end_reason", ("reason",), "an end reason's share of games",
           " points", 100.0),
    # how the game plays (stats/plays.py): a run that recorded trajectories
    Metric("leads", "Lead changes", "lead_changes", ("game",), "lead changes per game", "", 1.0),
    Metric("comeback", "Comebacks", "comeback_half", ("game",),
           "the share of games whose winner was behind at half time", " points", 100.0),
    Metric("decided", "When the game is decided", "decided_at", ("game",),
           "the share of the game before the winner led for good", " points", 100.0),
    Metric("margin", "Margin of victory", "margin", ("game",), "the margin of victory", "", 1.0),
    # how the game is taken (stats/census.py SWEPT): the points whose census was taken
    Metric("turn_gap", "Turns of the first place over the last", "first_minus_last", ("game",),
           "the turns the first place takes more than the last", " turns", 1.0),
    Metric("dead", "Dead turns", "dead_turns", ("game",),
           "the share of turns in which the seat had no choice", " points", 100.0),
    Metric("kingmaking", "Kingmaking", "kingmaking_games", ("game",),
           "the share of games with a kingmaking decision", " points", 100.0),
)  # fmt: skip


def metric_rows(ss: SweepStats, m: Metric) -> pl.DataFrame:
    """The curve rows a figure draws ([] when the metric says nothing here: one policy holding
    every seat, teams that are the seats, a single end reason)."""
    t = ss.curve.filter((pl.col("metric") == m.metric) & pl.col("kind").is_in(list(m.kinds)))
    if m.key == "policy" and t.filter(~pl.col("exact")).height == 0:
        return t.clear()
    if m.key == "team" and ss.teams_are_seats:
        return t.clear()
    if m.key == "ends" and t["group"].n_unique() <= 1:
        return t.clear()
    return t


def step_rows(ss: SweepStats, m: Metric, kind: str | None = None) -> pl.DataFrame:
    """The step rows that test a figure's curves (a place's share: the paired win share, or
    share / fair across player counts)."""
    s = ss.steps
    kinds = [kind] if kind is not None else list(m.kinds)
    metrics = [m.metric]
    if m.metric == "win_share" and "order" in kinds:
        metrics.append("normalised_share")
    return s.filter(pl.col("metric").is_in(metrics) & pl.col("kind").is_in(kinds))


HEADLINE_SHARE = Metric("headline", "", "win_share", (), "", " points", 100.0)
HEADLINE_SCORE = Metric("headline", "", "mean_score", (), "", "", 1.0)
