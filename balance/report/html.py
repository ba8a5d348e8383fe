"""Assemble a self-contained HTML report from results datasets: numbers first, then the page.

``analyse`` reads a results directory and computes its statistics (balance/stats) into a
``DatasetStats``; ``differences`` compares a dataset with a baseline (paired game by game when
both ran the same seed and games, else as two independent samples); ``read_impact`` loads the
file ``balance impact --out`` writes; ``summary_sentences`` says in words what matters most.
``render`` only lays these out: figures come from figures.py, the page shell from template.py.

Nothing here prints or exits: problems raise ``ReportError`` (one line naming the path and fix)
or the ``ResultsError`` of balance/results.py.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import plotly.graph_objects as go
import polars as pl
import yaml

import balance
from balance import stats
from balance.report import figures
from balance.report.template import CSS, PAGE, SCRIPT
from balance.results import open_results

CDN = "https://cdn.plot.ly/plotly-{version}.min.js"


class ReportError(Exception):
    """A report cannot be made; the message is one line naming the path and the fix."""


# ======================================================================================= numbers


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


def analyse_rows(
    manifest: dict[str, Any],
    rows: pl.LazyFrame | pl.DataFrame,
    *,
    label: str,
    path: str = "",
    level: float = 0.95,
) -> DatasetStats:
    """The statistics of one dataset given as (manifest, rows)."""
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
    )


def analyse(path: str | os.PathLike[str], *, level: float = 0.95) -> DatasetStats:
    """The statistics of results directory ``path`` (ResultsError if it is not one)."""
    manifest, rows = open_results(path)
    return analyse_rows(manifest, rows, label=_label(path), path=os.fspath(path), level=level)


def _label(path: str | os.PathLike[str]) -> str:
    return Path(os.path.abspath(path)).name


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
    if _teams_are_seats(base) and _teams_are_seats(ds):
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


class ImpactFile(NamedTuple):
    """The interventional impact written by ``balance impact --out`` (balance/experiments.py)."""

    path: str
    config_path: str
    games: int
    seed: int | None
    level: float
    method: str
    table: pl.DataFrame  # variant, description, metric, kind, group, games, a, b, diff, lo, hi, ...
    summary: pl.DataFrame  # one row per variant, by effect: see impact_summary


IMPACT_COLUMNS = ("variant", "metric", "kind", "group", "a", "b", "diff", "lo", "hi")


def read_impact(path: str | os.PathLike[str]) -> ImpactFile:
    """Load a ``balance impact --out`` file: ``.json`` (provenance and table) or ``.parquet``."""
    shown = os.fspath(path)
    p = Path(path)
    if not p.is_file():
        raise ReportError(
            f"{shown}: no such impact file; write one with `balance impact CONFIG --out FILE.json`"
        )
    meta: dict[str, Any] = {}
    try:
        if p.suffix == ".parquet":
            table = pl.read_parquet(p)
        elif p.suffix == ".json":
            meta = json.loads(p.read_text())
            if not isinstance(meta, dict) or not isinstance(meta.get("table"), list):
                raise ReportError(f"{shown}: not an impact file (no 'table' list)")
            table = pl.DataFrame(meta["table"], infer_schema_length=None)
        else:
            raise ReportError(f"{shown}: an impact file ends in .json or .parquet")
    except (OSError, UnicodeDecodeError, pl.exceptions.PolarsError) as e:
        raise ReportError(f"{shown}: cannot read: {str(e).splitlines()[0]}") from None
    except json.JSONDecodeError as e:
        raise ReportError(f"{shown}: invalid JSON: {e.msg} at line {e.lineno}") from None
    missing = [c for c in IMPACT_COLUMNS if c not in table.columns]
    if missing or table.height == 0:
        what = f"columns {', '.join(missing)} missing" if missing else "no rows"
        raise ReportError(f"{shown}: not an impact table ({what})")
    floats = [
        c
        for c in ("a", "b", "diff", "sd", "se", "lo", "hi", "p_value", "q_value")
        if c in table.columns
    ]
    table = table.with_columns(pl.col(floats).cast(pl.Float64).fill_null(float("nan")))
    if "description" not in table.columns:
        table = table.with_columns(description=pl.lit(""))
    if "q_value" not in table.columns:
        shares = (table["metric"] == "win_share").to_numpy()
        q = np.full(table.height, np.nan)
        q[shares] = stats.bh_qvalues(
            table.filter(pl.col("metric") == "win_share")["p_value"].to_numpy()
        )
        table = table.with_columns(q_value=pl.Series(q))
    level = float(meta.get("level", 0.95))
    games = meta.get("games") or (int(table["games"].max()) if "games" in table.columns else 0)
    return ImpactFile(
        path=shown,
        config_path=str(meta.get("config_path", "")),
        games=int(games),
        seed=meta.get("seed"),
        level=level,
        method=str(meta.get("method", stats.METHOD)),
        table=table,
        summary=impact_summary(table, level),
    )


def impact_summary(table: pl.DataFrame, level: float = 0.95) -> pl.DataFrame:
    """One row per variant: the win-share row (seat, order, policy or team) that moved most, its
    q-value (BH over all win-share rows) and ``significant`` (q < 1 - level), the change in game
    length; sorted by the size of that change."""
    shares = table.filter(pl.col("metric") == "win_share").with_columns(effect=pl.col("diff").abs())
    top = (
        shares.sort("effect", descending=True, nulls_last=True, maintain_order=True)
        .group_by("variant", maintain_order=True)
        .first()
        .select("variant", "description", "effect", "kind", "group", "diff", "lo", "hi", "q_value")
        .with_columns(significant=(pl.col("q_value") < 1 - level).fill_null(False))
    )
    turns = table.filter(pl.col("metric") == "mean_turns").select(
        "variant", turns_diff="diff", turns_lo="lo", turns_hi="hi"
    )
    out = top.join(turns, on="variant", how="left", maintain_order="left")
    return out.sort("effect", descending=True, nulls_last=True, maintain_order=True)


# ================================================================================ the sentences


def finite(x: Any) -> bool:
    """A real number (not None, which polars uses for "no value", nor NaN or inf)."""
    return x is not None and math.isfinite(x)


def pct(x: float, decimals: int = 1) -> str:
    return "n/a" if not finite(x) else f"{x * 100:.{decimals}f} %"


def _decimals(half: float) -> int:
    """Decimals of a percentage so that its ± half-width shows one significant digit (1..3)."""
    if not finite(half) or half == 0:
        return 1
    h = abs(half) * 100
    if h <= 0:
        return 1
    return int(min(3, max(1, math.ceil(-math.log10(h)))))


def share_pm(share: float, lo: float, hi: float) -> str:
    """'28.1 % ± 0.2 %' (half the width of the interval)."""
    half = (hi - lo) / 2
    d = _decimals(half)
    return f"{share * 100:.{d}f} % ± {half * 100:.{d}f} %"


def points(d: float, lo: float | None = None, hi: float | None = None) -> str:
    """'+3.0 points' or '+3.0 points [+2.9, +3.1]' for a difference of shares."""
    if not finite(d):
        return "n/a"
    dec = _decimals((hi - lo) / 2) if lo is not None and hi is not None else 1
    text = f"{d * 100:+.{dec}f} points"
    if lo is not None and hi is not None:
        text += f" [{lo * 100:+.{dec}f}, {hi * 100:+.{dec}f}]"
    return text.replace("-", "−")


def _fair(x: float) -> str:
    return f"{x * 100:.3g} %"


def _p(p: float | None) -> str:
    if not finite(p):
        return "n/a"
    return "p < 0.001" if p < 0.001 else f"p = {p:.2g}"


def _q(q: float) -> str:
    if not finite(q):
        return "n/a"
    return "q < 0.001" if q < 0.001 else f"q = {q:.2g}"


def _excludes(lo: float, hi: float, x: float = 0.0) -> bool:
    return finite(lo) and finite(hi) and bool(lo > x or hi < x)


def summary_sentences(
    ds: DatasetStats,
    *,
    diff: Differences | None = None,
    impact: ImpactFile | None = None,
) -> list[str]:
    """A few plain sentences on what matters most in ``ds``, from its numbers."""
    out: list[str] = []
    ws, adv = ds.shares, ds.advantage
    seat = ws.by_seat
    players = ws.players
    fair = 1.0 / players
    n_games = f"{ws.games:,} games"

    # Who wins: policies first when the line-up mixes them, else seats.
    if ws.by_policy.height > 1:
        pol = ws.by_policy.sort("share", descending=True).to_dicts()
        first, rest = pol[0], pol[1:]
        others = ", ".join(f"{pct(r['share'])} for {r['policy']}" for r in rest)
        out.append(
            f"{first['policy'].capitalize()} seats win {share_pm(first['share'], first['lo'], first['hi'])} "
            f"of their seat-games against {others} (fair: {_fair(fair)}; {n_games})."
        )
    dev = seat.with_columns(dev=(pl.col("share") - pl.col("fair")).abs()).sort(
        "dev", descending=True
    )
    worst = dev.row(0, named=True)
    if adv.symmetric and adv.p_value is not None and adv.p_value >= 0.05:
        within = worst["dev"] * 100
        digits = _decimals((worst["hi"] - worst["lo"]) / 2)
        out.append(
            f"Seats are balanced: every seat wins within {within:.{digits}f} points of a fair "
            f"{_fair(fair)} (χ² = {adv.chi2:.2f}, {_p(adv.p_value)} over {n_games})."
        )
    elif ws.by_policy.height == 1:  # with mixed policies, seats differ by policy (said above)
        verdict = "" if _excludes(worst["lo"], worst["hi"], worst["fair"]) else " (within noise)"
        chi = f"; χ² = {adv.chi2:.1f}, {_p(adv.p_value)}" if adv.symmetric else ""
        out.append(
            f"Seat {worst['seat']} wins {share_pm(worst['share'], worst['lo'], worst['hi'])} against "
            f"a fair {_fair(worst['fair'])}{verdict}{chi}."
        )
    teams = ws.by_team
    if teams.height and int(teams["seats"].max()) > 1:
        t = (
            teams.with_columns(dev=(pl.col("share") - pl.col("fair")).abs())
            .sort("dev", descending=True)
            .row(0, named=True)
        )
        out.append(
            f"Team {t['team']} wins {share_pm(t['share'], t['lo'], t['hi'])} of games against a fair "
            f"{_fair(t['fair'])}."
        )

    # Turn order.
    if finite(adv.first_player_share) and players > 1:
        share = adv.first_player_share
        order0 = adv.by_order.filter(pl.col("order") == 0).row(0, named=True)
        if _excludes(adv.edge_lo, adv.edge_hi):
            out.append(
                f"The first player wins {share_pm(share, order0['lo'], order0['hi'])} of games against "
                f"a fair {_fair(fair)}: an edge of {points(adv.first_player_edge, adv.edge_lo, adv.edge_hi)}."
            )
        else:
            out.append(
                f"The first player has no measurable edge: {share_pm(share, order0['lo'], order0['hi'])} "
                f"against a fair {_fair(fair)}."
            )

    # Strongest observational association.
    t = ds.impact.table.filter(pl.col("significant") & pl.col("diff").is_not_nan())
    if t.height:
        r = t.with_columns(a=pl.col("diff").abs()).sort("a", descending=True).row(0, named=True)
        who = f"{r['policy']} seat-games" if ds.impact_by == "policy" else "Seat-games"
        out.append(
            f"Strongest card association (a diagnostic, not an effect): {who} with "
            f"“{r['event']} {r['card']}” win {pct(r['share_with'])} against {pct(r['share_without'])} "
            f"without ({points(r['diff'])}, {_q(r['q_value'])}); {t.height} of "
            f"{ds.impact.table.filter(pl.col('diff').is_not_nan()).height} card events differ "
            f"significantly."
        )
    elif ds.impact.table.height:
        out.append("No card event is associated with winning beyond chance (BH q ≥ 0.05).")

    if impact is not None:
        out += impact_sentences(impact)
    if diff is not None:
        out += difference_sentences(diff)

    d = ds.dist
    q05, q95 = d.turns.quantiles.get(0.05, math.nan), d.turns.quantiles.get(0.95, math.nan)
    out.append(
        f"Games last {d.turns.mean:.1f} turns on average (90 % between {q05:g} and {q95:g}); "
        f"a seat scores {d.score.mean:.2f} on average (median {d.score.quantiles.get(0.5, math.nan):g})."
    )
    reasons = d.end_reasons.sort("games", descending=True).to_dicts()
    if len(reasons) > 1:
        listed = ", ".join(f"{r['end_reason']} {pct(r['share'])}" for r in reasons)
        out.append(
            f"Games end by {listed}. A game whose first place is shared (a draw) gives each of "
            "its k seats 1/k of a win in every win share above."
        )
    return out


def first_player_rows(impact: ImpactFile) -> list[dict[str, Any]]:
    """Per variant: the first player's win share and edge in the base config (``a``) and in the
    variant (``b``), and the paired change with its interval; [] without turn-order rows."""
    t = impact.table.filter((pl.col("kind") == "order") & (pl.col("metric") == "win_share"))
    places = t["group"].n_unique() if t.height else 0
    if places < 2:
        return []
    fair = 1.0 / places
    rows = []
    for r in t.filter(pl.col("group") == "0").to_dicts():
        rows.append({**r, "edge_a": r["a"] - fair, "edge_b": r["b"] - fair, "fair": fair})
    return rows


def impact_sentences(impact: ImpactFile) -> list[str]:
    s = impact.summary
    if s.height == 0:
        return []
    edges = []
    if s.height <= 3:  # a report's own variants: say what each does to the first player's edge
        for r in first_player_rows(impact):
            edges.append(
                f"The first player's edge is {points(r['edge_a'])} in this config and "
                f"{points(r['edge_b'])} with “{r['variant']}” ({r['description']}): a paired "
                f"change of {points(r['diff'], r['lo'], r['hi'])} on the same {impact.games:,} "
                "games."
            )
    top = s.row(0, named=True)
    n_sig = int(s["significant"].sum())
    what = figures.difference_label(top["kind"], top["group"])
    if s.height == 1:
        sig = "significant" if n_sig else "not significant"
        first = (
            f"Interventional impact (each on the same {impact.games:,} games): “{top['variant']}” "
            f"moves win share most for {what}: {points(top['diff'], top['lo'], top['hi'])}, "
            f"{_q(top['q_value'])} ({sig} at BH q < {1 - impact.level:.2g})."
        )
    else:
        first = (
            f"Interventional impact ({s.height} variants, each on the same {impact.games:,} games): "
            f"“{top['variant']}” moves win share most ({what} {points(top['diff'], top['lo'], top['hi'])}, "
            f"{_q(top['q_value'])}); {n_sig} of {s.height} variants "
            f"{'changes' if n_sig == 1 else 'change'} a win share significantly "
            f"(BH q < {1 - impact.level:.2g})."
        )
    return [
        first,
        *edges,
    ]


def difference_sentences(diff: Differences) -> list[str]:
    shares = diff.table.filter(pl.col("metric") == "win_share").with_columns(
        a_=pl.col("diff").abs()
    )
    how = "paired over" if diff.paired else "independent samples,"
    head = f"Against baseline {diff.baseline} ({how} {diff.games:,} games): "
    sig = shares.filter(pl.col("significant")).sort("a_", descending=True)
    if sig.height:
        r = sig.row(0, named=True)
        return [
            head
            + f"the largest significant change is {figures.difference_label(r['kind'], r['group'])}'s "
            f"win share, {pct(r['a'])} → {pct(r['b'])} ({points(r['diff'], r['lo'], r['hi'])}); "
            f"{sig.height} of {shares.height} win shares changed significantly."
        ]
    if shares.height == 0:
        return [head + "no seat, policy or team in common to compare."]
    r = shares.sort("a_", descending=True).row(0, named=True)
    return [
        head + "no win share changed significantly (largest: "
        f"{figures.difference_label(r['kind'], r['group'])} {points(r['diff'], r['lo'], r['hi'])})."
    ]


# ==================================================================================== the page


class Column(NamedTuple):
    header: str
    value: Callable[[dict[str, Any]], Any]
    fmt: Callable[[Any], str] = str
    numeric: bool = False
    tip: str = ""


def _num(x: Any) -> str:
    if x is None:
        return ""
    if isinstance(x, bool):
        return "1" if x else "0"
    if isinstance(x, int | np.integer):
        return str(int(x))
    x = float(x)
    return "" if not finite(x) else repr(x)


def table_html(
    rows: Sequence[dict[str, Any]],
    columns: Sequence[Column],
    *,
    sortable: bool = False,
    mark: Callable[[dict[str, Any]], bool] | None = None,
    scroll: bool = False,
    table_id: str | None = None,
) -> str:
    head = "".join(
        f"<th{' data-type=num' if c.numeric else ' class=text'}"
        f"{f' title={_attr(c.tip)}' if c.tip else ''}>{escape(c.header)}</th>"
        for c in columns
    )
    body = []
    for r in rows:
        cells = []
        for c in columns:
            v = c.value(r)
            text = escape(c.fmt(v))
            if c.numeric:
                cells.append(f'<td data-v="{_num(v)}">{text}</td>')
            else:
                cells.append(f'<td class="text">{text}</td>')
        cls = ' class="sig"' if mark is not None and mark(r) else ""
        body.append(f"<tr{cls}>{''.join(cells)}</tr>")
    attrs = (f' id="{table_id}"' if table_id else "") + (' class="sortable"' if sortable else "")
    html = f"<table{attrs}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    return f'<div class="scroll">{html}</div>' if scroll else html


def _attr(text: str) -> str:
    return '"' + escape(text, quote=True) + '"'


def _f(spec: str) -> Callable[[Any], str]:
    def fmt(x: Any) -> str:
        if x is None or (isinstance(x, float) and not finite(x)):
            return "–"
        return format(x, spec)

    return fmt


def _pvalue(x: Any) -> str:
    if not finite(x):
        return "–"
    return "< 1e-300" if x == 0 else format(x, ".2g")  # 0: below what a double holds


def _interval(lo_key: str, hi_key: str, spec: str = ".2%") -> Column:
    def fmt(r: Any) -> str:
        lo, hi = r
        if not (finite(lo) and finite(hi)):
            return "–"
        return f"[{format(lo, spec)}, {format(hi, spec)}]"

    return Column("95 % interval", lambda r: (r[lo_key], r[hi_key]), fmt)


class _Page:
    """Collects figures (numbered divs + JSON) and sections while the body is written."""

    def __init__(self) -> None:
        self.n_figures = 0

    def figure(self, fig: go.Figure, note: str = "") -> str:
        self.n_figures += 1
        fid = f"fig-{self.n_figures}"
        spec = fig.to_json().replace("</", "<\\/")  # never close the <script> early
        caption = f'<p class="note">{note}</p>' if note else ""
        return (
            f'<div class="figure" id="{fid}" data-figure></div>'
            f'<script type="application/json" id="{fid}-data">{spec}</script>{caption}'
        )


def _provenance(ds: DatasetStats) -> str:
    m = ds.manifest
    seats = m.get("seats") or []
    teams = m.get("teams") or []
    status = m.get("status", "?")
    games = f"{int(m.get('games_done', 0)):,}"
    if m.get("games_requested") and m.get("games_requested") != m.get("games_done"):
        games += f" of {int(m['games_requested']):,} requested"
    versions = ", ".join(f"{k} {v}" for k, v in (m.get("versions") or {}).items())
    items = [
        ("results", ds.path or ds.label),
        ("game", m.get("game", "?")),
        ("config", f"{m.get('config_path') or '(none)'} (hash {m.get('config_hash', '?')})"),
        ("seed", m.get("seed", "?")),
        ("games", f"{games} ({status})"),
        ("line-up", ", ".join(f"seat {i}: {p}" for i, p in enumerate(seats))),
        ("teams", ", ".join(f"seat {i}: {t}" for i, t in enumerate(teams))),
        ("tool version", f"balance {m.get('version', '?')}"),
        ("date", f"{m.get('started', '?')} to {m.get('finished') or '(unfinished)'}"),
        (
            "speed",
            f"{float(m.get('games_per_s', 0)):,.0f} games/s on {m.get('threads', '?')} threads "
            f"({float(m.get('wall_time_s', 0)):.1f} s; kernels loaded in "
            f"{float(m.get('compile_time_s', 0)):.1f} s)",
        ),
        ("libraries", versions),
    ]
    dl = "".join(f"<dt>{escape(k)}</dt><dd>{escape(str(v))}</dd>" for k, v in items)
    config = yaml.safe_dump(m.get("config") or {}, sort_keys=False, allow_unicode=True)
    warn = ""
    if status != "complete":
        warn = (
            f'<p class="caveat">This run is <b>{escape(str(status))}</b>: the statistics cover the '
            f"{games} games it kept.</p>"
        )
    return (
        f'{warn}<dl class="prov">{dl}</dl>'
        f"<details><summary>config (fully resolved, YAML)</summary><pre>{escape(config)}</pre></details>"
    )


def _share_columns(first: Column, *extra: Column) -> list[Column]:
    return [
        first,
        *extra,
        Column("n", lambda r: r["n"], _f(","), True, "rows (games for a team)"),
        Column("wins", lambda r: r["wins"], _f(",.1f"), True, "shared wins count 1/k"),
        Column("win share", lambda r: r["share"], _f(".2%"), True),
        _interval("lo", "hi"),
        Column("fair", lambda r: r["fair"], _f(".1%"), True),
        Column("share / fair", lambda r: r["normalised"], _f(".3f"), True, "1.000 = fair"),
    ]


def _win_section(page: _Page, ds: DatasetStats) -> str:
    ws = ds.shares
    parts = [
        page.figure(figures.plot_win_shares(ws, "seat")),
        table_html(
            ws.by_seat.to_dicts(),
            _share_columns(
                Column("seat", lambda r: r["seat"], str, True),
                Column("policy", lambda r: r["policy"]),
                Column("team", lambda r: r["team"]),
            ),
            sortable=True,
        ),
    ]
    if ws.by_policy.height > 1:
        parts += [
            page.figure(figures.plot_win_shares(ws, "policy")),
            table_html(
                ws.by_policy.to_dicts(),
                _share_columns(
                    Column("policy", lambda r: r["policy"]),
                    Column("seats", lambda r: r["seats"], str, True),
                ),
                sortable=True,
            ),
        ]
    if ws.by_team.height and int(ws.by_team["seats"].max()) > 1:
        parts += [
            page.figure(figures.plot_win_shares(ws, "team")),
            table_html(
                ws.by_team.to_dicts(),
                _share_columns(
                    Column("team", lambda r: r["team"]),
                    Column("seats", lambda r: r["seats"], str, True),
                ),
                sortable=True,
            ),
        ]
    note = (
        "A seat's win share is its wins per game, a k-way shared win counting 1/k; bars show "
        f"{ws.level:.0%} Wilson intervals, the dashed line the fair share."
    )
    return f'<p class="note">{note}</p>' + "".join(parts)


def _advantage_section(page: _Page, ds: DatasetStats) -> str:
    adv = ds.advantage
    if adv.symmetric:
        tests = (
            f"Seats against equal shares: χ² = {adv.chi2:.2f} ({adv.dof} d.f.), {_p(adv.p_value)}. "
            f"Places in the turn order against equal shares: χ² = {adv.order_chi2:.2f}, "
            f"{_p(adv.order_p_value)}."
        )
    else:
        tests = (
            "The line-up is not symmetric (seats play different policies or share teams), so no "
            "chi-square test of equal shares is made: seat differences mix position and policy."
        )
    edge = (
        f"First player's edge: {points(adv.first_player_edge, adv.edge_lo, adv.edge_hi)} "
        f"(wins {pct(adv.first_player_share, 2)} against a fair {_fair(1 / adv.players)})."
    )
    rows = adv.by_order.to_dicts()
    table = table_html(
        rows,
        _share_columns(Column("place", lambda r: figures.ordinal(int(r["order"])), str)),
        sortable=True,
    )
    return (
        f"<p>{escape(tests)}</p><p>{escape(edge)}</p>"
        + page.figure(figures.plot_seat_advantage(adv))
        + table
    )


def _summary_rows(label: str, s: stats.Summary) -> dict[str, Any]:
    return {
        "what": label,
        "n": s.n,
        "mean": s.mean,
        "sd": s.sd,
        "min": s.min,
        **{f"q{round(q * 100):02d}": v for q, v in s.quantiles.items()},
        "max": s.max,
    }


def _distribution_section(page: _Page, ds: DatasetStats) -> str:
    d = ds.dist
    rows = [
        _summary_rows("score (seat-games)", d.score),
        _summary_rows("game length (turns)", d.turns),
    ]
    for r in d.score_by_seat.to_dicts():
        rows.append({**r, "what": f"score, seat {r['seat']}", "min": None, "max": None})
    if d.score_by_policy.height > 1:
        for r in d.score_by_policy.to_dicts():
            rows.append({**r, "what": f"score, {r['policy']}", "min": None, "max": None})
    qs = [f"q{round(q * 100):02d}" for q in stats.QUANTILES]
    cols = [
        Column("", lambda r: r["what"]),
        Column("n", lambda r: r["n"], _f(","), True),
        Column("mean", lambda r: r["mean"], _f(".2f"), True),
        Column("sd", lambda r: r["sd"], _f(".2f"), True),
        Column("min", lambda r: r.get("min"), _f("g"), True),
        *(Column(q, lambda r, q=q: r.get(q), _f("g"), True, f"{q[1:]} % quantile") for q in qs),
        Column("max", lambda r: r.get("max"), _f("g"), True),
    ]
    reasons = table_html(
        d.end_reasons.to_dicts(),
        [
            Column("end reason", lambda r: r["end_reason"]),
            Column("games", lambda r: r["games"], _f(","), True),
            Column("share", lambda r: r["share"], _f(".2%"), True),
        ],
    )
    return (
        page.figure(figures.plot_score_distribution(d, ds.score_by_policy))
        + page.figure(figures.plot_length_distribution(d))
        + table_html(rows, cols)
        + reasons
    )


def _impact_section(page: _Page, ds: DatasetStats) -> str:
    imp = ds.impact
    t = imp.table
    if t.height == 0:
        return "<p>This dataset has no telemetry columns.</p>"
    no_contrast = t.filter(pl.col("diff").is_nan() | pl.col("diff").is_null())
    # Largest differences first; rows without a contrast (NaN or null) last.
    t = t.with_columns(_abs=pl.col("diff").abs().fill_nan(None)).sort(
        "_abs", descending=True, nulls_last=True
    )
    by = ds.impact_by
    cols = [
        *([Column(by, lambda r: r[by])] if by else []),
        Column("event", lambda r: r["event"]),
        Column("card", lambda r: r["card"]),
        Column("n with", lambda r: r["n_with"], _f(","), True),
        Column("n without", lambda r: r["n_without"], _f(","), True),
        Column("share with", lambda r: r["share_with"], _f(".2%"), True),
        Column("share without", lambda r: r["share_without"], _f(".2%"), True),
        Column("diff", lambda r: r["diff"], _f("+.2%"), True, "share with - share without"),
        _interval("lo", "hi", "+.2%"),
        Column("p", lambda r: r["p_value"], _pvalue, True, "two-proportion z-test"),
        Column("q (BH)", lambda r: r["q_value"], _pvalue, True, "Benjamini-Hochberg, whole table"),
    ]
    caveat = (
        f'<p class="caveat"><b>Observational diagnostics, not effects</b> ({escape(imp.caveat)}). '
        f"Win share of the seat-games with the event (count &gt; 0) minus those without, "
        f"{imp.level:.0%} Newcombe intervals; rows in red differ with Benjamini-Hochberg q &lt; "
        f"{1 - imp.level:.2g} over the whole table. Click a column header to sort.</p>"
    )
    skipped = ""
    if no_contrast.height:
        names = ", ".join(sorted(set(no_contrast["column"].to_list())))
        skipped = (
            f'<p class="note">Not plotted ({no_contrast.height} rows): events that every seat-game '
            f"or none had, so there is nothing to compare: {escape(names)}.</p>"
        )
    return (
        caveat
        + page.figure(figures.plot_card_impact(imp, by))
        + skipped
        + table_html(
            t.to_dicts(),
            cols,
            sortable=True,
            mark=lambda r: bool(r["significant"]),
            scroll=True,
            table_id=f"impact-{escape(ds.label)}",
        )
    )


def _differences_columns(a_name: str = "baseline", b_name: str = "this run") -> list[Column]:
    def fmt_value(r: dict[str, Any], key: str) -> str:
        v = r[key]
        if not finite(v):
            return "–"
        return f"{v:.2%}" if r["metric"] == "win_share" else f"{v:.3f}"

    def fmt_diff(r: dict[str, Any]) -> str:
        d, lo, hi = r["diff"], r["lo"], r["hi"]
        if not finite(d):
            return "–"
        if r["metric"] == "win_share":
            return f"{d * 100:+.2f} [{lo * 100:+.2f}, {hi * 100:+.2f}] points"
        return f"{d:+.3f} [{lo:+.3f}, {hi:+.3f}]"

    return [
        Column("metric", lambda r: r["metric"].replace("_", " ")),
        Column("group", lambda r: figures.difference_label(r["kind"], r["group"])),
        Column(a_name, lambda r: r, lambda r: fmt_value(r, "a")),
        Column(b_name, lambda r: r, lambda r: fmt_value(r, "b")),
        Column("difference", lambda r: r, fmt_diff),
        Column("diff", lambda r: r["diff"], _f("+.4f"), True, "for sorting"),
        Column("p", lambda r: r["p_value"], _pvalue, True),
    ]


def _differences_section(
    page: _Page, diff: Differences, ds: DatasetStats, base: DatasetStats
) -> str:
    bm = base.manifest
    changes = (
        "<ul>"
        + "".join(f"<li><code>{escape(c)}</code></li>" for c in diff.config_changes)
        + "</ul>"
        if diff.config_changes
        else "<p>The two resolved configs are identical (apart from games and seed).</p>"
    )
    intro = (
        f"<p>Baseline <b>{escape(diff.baseline)}</b> ({escape(base.path)}: "
        f"{escape(str(bm.get('config_path')))}, seed {escape(str(bm.get('seed')))}, "
        f"{int(bm.get('games_done', 0)):,} games). {escape(diff.why)}. Intervals: "
        f"{escape(diff.method)}. Differences are this run minus the baseline.</p>"
        f"<p>Config changes against the baseline:</p>{changes}"
    )
    t = diff.table
    shares = t.filter(pl.col("metric") == "win_share")
    kinds = [
        k for k in ("seat", "order", "policy", "team") if shares.filter(pl.col("kind") == k).height
    ]
    figs = page.figure(
        figures.plot_differences(
            t,
            metric="win_share",
            kinds=kinds,
            title=f"Win share: {diff.label} minus {diff.baseline}",
        )
    ) + page.figure(
        figures.plot_differences(
            t,
            metric="mean_score",
            kinds=[k for k in kinds if k != "team"],
            title=f"Mean score: {diff.label} minus {diff.baseline}",
        )
    )
    table = table_html(
        t.to_dicts(), _differences_columns(), sortable=True, mark=lambda r: bool(r["significant"])
    )
    return intro + figs + table


def _teams_are_seats(ds: DatasetStats) -> bool:
    teams = ds.manifest.get("teams") or []
    return len(set(teams)) == len(teams)


def _impact_variants_section(page: _Page, impact: ImpactFile) -> str:
    s = impact.summary
    intro = (
        f"<p>From <code>{escape(impact.path)}</code>: {s.height} variants of "
        f"<code>{escape(impact.config_path or '(config not recorded)')}</code>, each played on "
        f"the same {impact.games:,} games"
        + (f" (seed {escape(str(impact.seed))})" if impact.seed is not None else "")
        + " as the config. "
        f"Intervals: {escape(impact.method)}. These are causal effects of each change, unlike "
        "the observational diagnostics above. Red: BH q &lt; "
        f"{1 - impact.level:.2g} over all win-share rows.</p>"
    )
    cols = [
        Column("variant", lambda r: r["variant"]),
        Column("change", lambda r: r["description"]),
        Column("moved most", lambda r: figures.difference_label(r["kind"], r["group"])),
        Column("win share diff", lambda r: r["diff"], _f("+.2%"), True),
        _interval("lo", "hi", "+.2%"),
        Column("q (BH)", lambda r: r["q_value"], _pvalue, True),
        Column("turns diff", lambda r: r["turns_diff"], _f("+.3f"), True),
    ]
    first = first_player_rows(impact)
    if first:
        fair = first[0]["fair"]
        intro += (
            "<h4>First player's edge in each variant</h4>"
            + f'<p class="note">Edge: the first player\'s win share minus a fair {_fair(fair)}; '
            "the change is paired over the same games.</p>"
            + table_html(
                first,
                [
                    Column("variant", lambda r: r["variant"]),
                    Column("change", lambda r: r["description"]),
                    Column("first player wins, config", lambda r: r["a"], _f(".2%"), True),
                    Column("edge, config", lambda r: r["edge_a"], _f("+.2%"), True),
                    Column("first player wins, variant", lambda r: r["b"], _f(".2%"), True),
                    Column("edge, variant", lambda r: r["edge_b"], _f("+.2%"), True),
                    Column("change", lambda r: r["diff"], _f("+.2%"), True),
                    _interval("lo", "hi", "+.2%"),
                ],
                sortable=True,
                mark=lambda r: bool(r.get("significant")),
            )
        )
    policy_rows = impact.table.filter(pl.col("kind") == "policy")
    metrics = ["mean_score"]
    if policy_rows["group"].n_unique() > 1:  # one policy holds every seat: its share is fixed
        metrics.insert(0, "win_share")
    policy_rows = policy_rows.filter(pl.col("metric").is_in(metrics))
    detail = ""
    if policy_rows.height:
        detail = (
            "<h4>Per policy</h4>"
            + (
                '<p class="note">Red: the interval excludes 0 (not adjusted for multiple '
                "comparisons).</p>"
            )
            + table_html(
                policy_rows.to_dicts(),
                [
                    Column("variant", lambda r: r["variant"]),
                    Column("metric", lambda r: r["metric"].replace("_", " ")),
                    Column("policy", lambda r: r["group"]),
                    Column("base", lambda r: r["a"], _f(".4g"), True),
                    Column("variant value", lambda r: r["b"], _f(".4g"), True),
                    Column("diff", lambda r: r["diff"], _f("+.4f"), True),
                    _interval("lo", "hi", "+.4f"),
                    Column("p", lambda r: r["p_value"], _pvalue, True),
                ],
                sortable=True,
                mark=lambda r: bool(r.get("significant")),
                scroll=True,
            )
        )
    return (
        intro
        + page.figure(figures.plot_impact_variants(s, impact.table))
        + table_html(s.to_dicts(), cols, sortable=True, mark=lambda r: bool(r["significant"]))
        + detail
    )


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text).strip("-").lower() or "dataset"


def _plotly(cdn: bool) -> tuple[str, str]:
    """The plotly.js ``<script>`` (inlined, or the CDN's with its SRI hash) and a footer note."""
    import plotly.offline

    if cdn:
        version = plotly.offline.get_plotlyjs_version()
        sri = (
            "sha384-"
            + base64.b64encode(
                hashlib.sha384(plotly.offline.get_plotlyjs().encode("utf-8")).digest()
            ).decode()
        )
        plotly_tag = (
            f'<script charset="utf-8" src="{CDN.format(version=version)}" integrity="{sri}" '
            'crossorigin="anonymous"></script>'
        )
        note = f"Figures need plotly.js {version} from the CDN (this file was made with --cdn)."
    else:
        plotly_tag = f'<script charset="utf-8">{plotly.offline.get_plotlyjs()}</script>'
        note = "plotly.js is inlined: this file opens offline."
    return plotly_tag, note


def render(
    datasets: Sequence[DatasetStats],
    *,
    baseline: DatasetStats | None = None,
    diffs: Sequence[Differences | None] = (),
    impact: ImpactFile | None = None,
    cdn: bool = False,
    generated: str | None = None,
) -> str:
    """The report page of ``datasets`` (with their ``diffs`` against ``baseline`` and the
    interventional ``impact``, if any) as one HTML string."""
    page = _Page()
    diffs = list(diffs) or [None] * len(datasets)
    many = len(datasets) > 1
    games = sorted({str(d.manifest.get("game", "?")) for d in datasets})
    labels = ", ".join(d.label for d in datasets)
    title = f"Balance report: {', '.join(games)}" + (f" — {labels}" if labels != games[0] else "")
    nav = ['<a href="#summary">summary</a>']
    body = []

    headline = []
    for i, (ds, diff) in enumerate(zip(datasets, diffs, strict=True)):
        sentences = summary_sentences(ds, diff=diff, impact=impact if i == 0 else None)
        items = "".join(f"<li>{escape(s)}</li>" for s in sentences)
        head = f"<h3>{escape(ds.label)}</h3>" if many else ""
        headline.append(f'{head}<ul class="headline">{items}</ul>')
    body.append(f'<section id="summary"><h2>What matters most</h2>{"".join(headline)}</section>')

    if many:
        rows = [
            {
                "label": d.label,
                "game": d.manifest.get("game"),
                "players": d.shares.players,
                "games": d.shares.games,
                "first": d.advantage.first_player_share,
                "edge": d.advantage.first_player_edge,
                "turns": d.dist.turns.mean,
                "score": d.dist.score.mean,
            }
            for d in datasets
        ]
        overview = table_html(
            rows,
            [
                Column("dataset", lambda r: r["label"]),
                Column("game", lambda r: r["game"]),
                Column("players", lambda r: r["players"], str, True),
                Column("games", lambda r: r["games"], _f(","), True),
                Column("first player wins", lambda r: r["first"], _f(".2%"), True),
                Column("first-player edge", lambda r: r["edge"], _f("+.2%"), True),
                Column("mean turns", lambda r: r["turns"], _f(".2f"), True),
                Column("mean score", lambda r: r["score"], _f(".2f"), True),
            ],
            sortable=True,
        )
        fig = page.figure(
            figures.plot_overview([d.label for d in datasets], [d.shares for d in datasets])
        )
        body.append(f'<section id="overview"><h2>All datasets</h2>{fig}{overview}</section>')
        nav.append('<a href="#overview">overview</a>')

    for i, (ds, diff) in enumerate(zip(datasets, diffs, strict=True)):
        sid = f"d{i + 1}-{_slug(ds.label)}"
        subs = [
            ("provenance", "Provenance", _provenance(ds)),
            ("wins", "Win shares", _win_section(page, ds)),
            ("seats", "Seat advantage and turn order", _advantage_section(page, ds)),
            ("scores", "Score and game-length distributions", _distribution_section(page, ds)),
            ("cards", "Card impact: observational diagnostics", _impact_section(page, ds)),
        ]
        if diff is not None and baseline is not None:
            subs.append(
                (
                    "baseline",
                    f"Differences against {diff.baseline}",
                    _differences_section(page, diff, ds, baseline),
                )
            )
        inner = "".join(
            f'<section id="{sid}-{key}"><h3>{escape(name)}</h3>{html}</section>'
            for key, name, html in subs
        )
        heading = f"Dataset {escape(ds.label)}"
        body.append(f'<section id="{sid}"><h2>{heading}</h2>{inner}</section>')
        if many:
            nav.append(f'<a href="#{sid}">{escape(ds.label)}</a>')
        else:
            nav += [
                f'<a href="#{sid}-{key}">{escape(name.split(":")[0].lower())}</a>'
                for key, name, _ in subs
            ]

    if impact is not None:
        body.append(
            '<section id="impact"><h2>Card impact: interventional (variants on the same seeds)</h2>'
            f"{_impact_variants_section(page, impact)}</section>"
        )
        nav.append('<a href="#impact">variants</a>')

    plotly_tag, note = _plotly(cdn)
    stats_s = sum(d.seconds for d in datasets)
    subtitle = (
        f"{len(datasets)} dataset{'s' * many}, "
        f"{sum(d.shares.games for d in datasets):,} games; statistics computed in {stats_s:.1f} s"
    )
    return PAGE.substitute(
        title=escape(title),
        subtitle=escape(subtitle),
        version=escape(balance.__version__),
        css=CSS,
        plotly=plotly_tag,
        plotly_note=escape(note),
        nav=" ".join(nav),
        body="\n".join(body),
        generated=escape(generated or datetime.now(UTC).isoformat(timespec="seconds")),
        script=SCRIPT,
    )


# ============================================================================ compare A B


def comparison_rows(comparison: Any) -> pl.DataFrame:
    """The rows of a ``Comparison`` table worth showing: team rows go when every team is one seat
    (they repeat the seats), policy rows when one policy holds every seat (its share is fixed)."""
    t = comparison.table
    a, b = comparison.a_config, comparison.b_config
    if _one_seat_teams(a) and _one_seat_teams(b):
        t = t.filter(pl.col("kind") != "team")
    if t.filter(pl.col("kind") == "policy")["group"].n_unique() <= 1:
        t = t.filter(pl.col("kind") != "policy")
    return t


def _one_seat_teams(config: Any) -> bool:
    teams = list(config.teams or range(config.players))
    return len(set(teams)) == len(teams)


def _digits(half: float) -> int:
    """Decimals that show one significant digit of an interval's half-width (1..3)."""
    if not finite(half) or half <= 0:
        return 2
    return int(min(3, max(1, math.ceil(-math.log10(half)))))


def _by(d: float, lo: float, hi: float, scale: float, unit: str) -> str:
    """'3.8 turns [3.7, 3.9]': the size of a change and its interval, signs dropped (the verb
    says the direction)."""
    if d < 0:
        d, lo, hi = -d, -hi, -lo
    d, lo, hi = d * scale, lo * scale, hi * scale
    k = _digits((hi - lo) / 2)
    return f"{d:.{k}f}{unit} [{lo:.{k}f}, {hi:.{k}f}]".replace("-", "−")


def _signed(d: float, lo: float, hi: float, scale: float = 1.0, unit: str = "") -> str:
    k = _digits((hi - lo) * scale / 2)
    return f"{d * scale:+.{k}f}{unit} [{lo * scale:+.{k}f}, {hi * scale:+.{k}f}]".replace("-", "−")


def _listing(items: Sequence[str], most: int = 4) -> str:
    items = list(items)
    if len(items) > most:
        items = [*items[:most], f"{len(items) - most} more"]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


_NOBODY = {
    "seat": "no seat's win share changes significantly",
    "order": "no place in the turn order wins significantly more or less often",
    "policy": "no policy's win share changes significantly",
    "team": "no team's win share changes significantly",
}


def _share_clause(t: pl.DataFrame, kind: str) -> str | None:
    rows = t.filter((pl.col("metric") == "win_share") & (pl.col("kind") == kind))
    if rows.height == 0:
        return None
    rows = rows.with_columns(_abs=pl.col("diff").abs()).sort("_abs", descending=True)
    sig = rows.filter(pl.col("significant"))
    if sig.height:
        parts = [
            f"{'raises' if r['diff'] > 0 else 'lowers'} "
            f"{'the ' * (kind == 'order')}{figures.difference_label(r['kind'], r['group'])}'s "
            "win share by "
            f"{_by(r['diff'], r['lo'], r['hi'], 100, ' points')} "
            f"({pct(r['a'])} → {pct(r['b'])})"
            for r in sig.iter_rows(named=True)
        ]
        return "B " + _listing(parts)
    r = rows.row(0, named=True)
    return (
        f"{_NOBODY[kind]} (largest: {figures.difference_label(r['kind'], r['group'])} "
        f"{_signed(r['diff'], r['lo'], r['hi'], 100, ' points')})"
    )


def _length_clause(t: pl.DataFrame) -> str:
    r = t.filter(pl.col("metric") == "mean_turns").row(0, named=True)
    d, lo, hi = r["diff"], r["lo"], r["hi"]
    if d == 0 and lo == 0 and hi == 0:
        return f"B leaves the length of every game unchanged ({r['a']:.1f} turns on average)"
    if r["significant"]:
        verb = "lengthens" if d > 0 else "shortens"
        return (
            f"B {verb} games by {_by(d, lo, hi, 1, ' turns')} "
            f"({r['a']:.1f} → {r['b']:.1f} turns on average)"
        )
    return f"B does not change game length significantly ({_signed(d, lo, hi, 1, ' turns')})"


def comparison_sentences(comparison: Any) -> list[str]:
    """What B changed against A, in words: game length and every significant change of a win
    share or mean score (significant: the interval excludes 0)."""
    t = comparison_rows(comparison)
    changes = config_diff(comparison.a_config.resolved_dict(), comparison.b_config.resolved_dict())
    changes = [c for c in changes if c[0] != "description"]  # words, not rules (in the table)
    out = []
    if changes:
        listed = _listing([f"{k} ({va} → {vb})" for k, va, vb in changes], most=3)
        out.append(f"B differs from A in {listed}.")
    else:
        out.append("A and B are the same config (apart from games and seed).")
    first = [_length_clause(t), _share_clause(t, "seat")]
    out.append("; ".join(c for c in first if c) + ".")
    for kind in ("order", "policy", "team"):
        clause = _share_clause(t, kind)
        if clause:
            out.append(clause[0].upper() + clause[1:] + ".")
    scores = t.filter((pl.col("metric") == "mean_score") & pl.col("significant"))
    n_scores = t.filter(pl.col("metric") == "mean_score").height
    if scores.height:
        scores = scores.with_columns(_abs=pl.col("diff").abs()).sort("_abs", descending=True)
        parts = [
            f"{figures.difference_label(r['kind'], r['group'])} "
            f"{_signed(r['diff'], r['lo'], r['hi'])} ({r['a']:.2f} → {r['b']:.2f})"
            for r in scores.iter_rows(named=True)
        ]
        out.append(
            f"Mean score changes significantly for {scores.height} of {n_scores} groups: "
            f"{_listing(parts)}."
        )
    elif n_scores:
        out.append("No mean score changes significantly.")
    return out


def _comparison_provenance(c: Any) -> str:
    a, b = c.a_config, c.b_config
    rate = 2 * c.games / c.wall_time_s if c.wall_time_s > 0 else float("nan")
    items = [
        ("A (reference)", c.a_path),
        ("B (the change)", c.b_path),
        ("game", a.game),
        ("players", a.players),
        ("line-up A", ", ".join(f"seat {i}: {p}" for i, p in enumerate(a.seats))),
        ("line-up B", ", ".join(f"seat {i}: {p}" for i, p in enumerate(b.seats))),
        ("games", f"{c.games:,} of each config, paired game by game"),
        ("seed", c.seed),
        ("tool version", f"balance {balance.__version__}"),
        ("speed", f"{c.wall_time_s:.1f} s for both configs ({rate:,.0f} games/s)"),
    ]
    dl = "".join(f"<dt>{escape(k)}</dt><dd>{escape(str(v))}</dd>" for k, v in items)
    changes = config_diff(a.resolved_dict(), b.resolved_dict())
    if changes:
        diff = "<p>Resolved config keys that differ:</p>" + table_html(
            [{"key": k, "a": va, "b": vb} for k, va, vb in changes],
            [
                Column("key", lambda r: r["key"]),
                Column("A", lambda r: r["a"]),
                Column("B", lambda r: r["b"]),
            ],
        )
    else:
        diff = "<p>The two resolved configs are identical (apart from games and seed).</p>"
    yamls = "".join(
        f"<details><summary>config {name}: {escape(path)} (fully resolved, YAML)</summary>"
        f"<pre>{escape(yaml.safe_dump(cfg.resolved_dict(), sort_keys=False, allow_unicode=True))}"
        "</pre></details>"
        for name, path, cfg in (("A", c.a_path, a), ("B", c.b_path, b))
    )
    return f'<dl class="prov">{dl}</dl>{diff}{yamls}'


def _comparison_method(c: Any) -> str:
    n_rows = comparison_rows(c).height
    return (
        f"<p>Both configs play the same {c.games:,} games (seed {escape(str(c.seed))}): game "
        "<i>i</i> draws the same random numbers under A and B (common random numbers), so each "
        "game gives one paired difference B − A, and most of the luck cancels. Intervals: "
        f"{escape(c.method)}, at the {c.level:.0%} level. A change is called significant when "
        f"its interval excludes 0; the {n_rows} rows are not adjusted for multiple comparisons, "
        f"so about {1 - c.level:.0%} of unchanged rows are flagged by chance.</p>"
    )


def render_comparison(comparison: Any, *, cdn: bool = False, generated: str | None = None) -> str:
    """The page of a ``balance compare`` (an ``experiments.Comparison``) as one HTML string:
    sentences, provenance of both configs and their differences, paired differences of win
    share, mean score and game length with intervals, the full table and the method."""
    c = comparison
    page = _Page()
    t = comparison_rows(c)
    kinds = [k for k in KINDS_SHOWN if t.filter(pl.col("kind") == k).height]
    figs = [
        page.figure(
            figures.plot_differences(
                t, metric=metric, kinds=kinds_, title=title, a_name="A", b_name="B"
            )
        )
        for metric, kinds_, title in (
            ("win_share", kinds, "Win share: B minus A"),
            ("mean_score", kinds, "Mean score: B minus A"),
            ("mean_turns", ["game"], "Game length (turns): B minus A"),
        )
    ]
    items = "".join(f"<li>{escape(s)}</li>" for s in comparison_sentences(c))
    level = f"{c.level:.0%}"
    sections = [
        (
            "summary",
            "What B changes",
            f'<ul class="headline">{items}</ul>'
            f'<p class="note">Paired over {c.games:,} games; [ ] are {level} intervals; '
            "significant: the interval excludes 0.</p>",
        ),
        ("provenance", "Provenance", _comparison_provenance(c)),
        ("wins", "Win share", figs[0]),
        ("scores", "Mean score", figs[1]),
        ("length", "Game length", figs[2]),
        (
            "table",
            "All differences",
            table_html(
                t.to_dicts(),
                _differences_columns("A", "B"),
                sortable=True,
                mark=lambda r: bool(r["significant"]),
            ),
        ),
        ("method", "Method", _comparison_method(c)),
    ]
    body = "\n".join(
        f'<section id="{key}"><h2>{escape(name)}</h2>{html}</section>'
        for key, name, html in sections
    )
    nav = " ".join(f'<a href="#{key}">{escape(name.lower())}</a>' for key, name, _ in sections)
    plotly_tag, note = _plotly(cdn)
    return PAGE.substitute(
        title=escape(f"Balance compare: {c.a_path} vs {c.b_path}"),
        subtitle=escape(
            f"{c.a_config.game}: A = {c.a_path}, B = {c.b_path}; {c.games:,} paired games "
            f"(seed {c.seed})"
        ),
        version=escape(balance.__version__),
        css=CSS,
        plotly=plotly_tag,
        plotly_note=escape(note),
        nav=nav,
        body=body,
        generated=escape(generated or datetime.now(UTC).isoformat(timespec="seconds")),
        script=SCRIPT,
    )


KINDS_SHOWN = ("seat", "order", "policy", "team")


# ================================================================================ entry points


class ReportInfo(NamedTuple):
    path: Path
    bytes: int
    stats_seconds: float  # reading the datasets and computing the statistics
    seconds: float  # everything


def check_output(out: str | os.PathLike[str]) -> None:
    """Raise ReportError now if ``out`` cannot be written (before a long run or analysis)."""
    p = Path(out)
    if p.is_dir():
        raise ReportError(
            f"{out}: is a directory; give the report a file name, e.g. {Path(out) / 'report.html'}"
        )
    parent = p.parent if str(p.parent) else Path(".")
    probe = parent
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise ReportError(f"{out}: cannot write: {probe} is not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise ReportError(f"{out}: cannot write: permission denied in {probe}")


def build_report(
    results: Sequence[str | os.PathLike[str]],
    *,
    baseline: str | os.PathLike[str] | None = None,
    impact: str | os.PathLike[str] | None = None,
    cdn: bool = False,
    level: float = 0.95,
) -> tuple[str, float]:
    """(HTML, seconds spent on statistics) of a report on ``results`` directories.

    Without ``impact``, a single results directory's own ``variants.json`` (the game's report
    variants, written by ``simulate --report``) is used when there is one."""
    if not results:
        raise ReportError("give at least one results directory")
    if impact is None and len(results) == 1:
        own = Path(results[0]) / "variants.json"
        if own.is_file():
            impact = own
    t0 = time.perf_counter()
    opened = [(p, *open_results(p)) for p in results]
    datasets = [
        analyse_rows(m, rows, label=_label(p), path=os.fspath(p), level=level)
        for p, m, rows in opened
    ]
    base = None
    diffs: list[Differences | None] = []
    if baseline is not None:
        bm, brows = open_results(baseline)
        base = analyse_rows(
            bm, brows, label=_label(baseline), path=os.fspath(baseline), level=level
        )
        diffs = [
            differences(ds, base, rows=rows, base_rows=brows, level=level)
            for ds, (_, _, rows) in zip(datasets, opened, strict=True)
        ]
    impact_file = read_impact(impact) if impact is not None else None
    stats_s = time.perf_counter() - t0
    html = render(datasets, baseline=base, diffs=diffs, impact=impact_file, cdn=cdn)
    return html, stats_s


def write_report(
    results: Sequence[str | os.PathLike[str]],
    *,
    out: str | os.PathLike[str],
    baseline: str | os.PathLike[str] | None = None,
    impact: str | os.PathLike[str] | None = None,
    cdn: bool = False,
    level: float = 0.95,
) -> ReportInfo:
    """Write the report on ``results`` to ``out`` (parents created; replaced atomically)."""
    t0 = time.perf_counter()
    check_output(out)
    html, stats_s = build_report(results, baseline=baseline, impact=impact, cdn=cdn, level=level)
    path = _write_html(out, html)
    return ReportInfo(path, path.stat().st_size, stats_s, time.perf_counter() - t0)


def write_comparison(
    comparison: Any, *, out: str | os.PathLike[str], cdn: bool = False
) -> ReportInfo:
    """Write the page of a ``balance compare`` to ``out`` (parents created; replaced atomically).
    Call ``check_output(out)`` before playing the games."""
    t0 = time.perf_counter()
    check_output(out)
    path = _write_html(out, render_comparison(comparison, cdn=cdn))
    seconds = time.perf_counter() - t0
    return ReportInfo(path, path.stat().st_size, seconds, seconds)


def _write_html(out: str | os.PathLike[str], html: str) -> Path:
    path = Path(out)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(html, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise ReportError(f"{out}: cannot write: {e.strerror or e}") from None
    return path
