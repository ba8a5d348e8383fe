"""The page of a ``balance sweep``: every metric against the knob, with intervals, where the
curve moves significantly between neighbouring points, and its trend across all its points.

In the report's layers: numbers.py (``analyse_sweep`` -> ``SweepStats``), then
sweep_sentences.py (``sweep_sentences``), then sweep_figures.py (``plot_metric``) and the
sections here (the headline at each point, the trends' and the steps' tables, provenance and
method), then ``render_sweep``, which puts them in the page shell (template.py).
write.py's ``write_sweep_report`` writes the file, as ``balance report SWEEP_DIR`` and
``balance sweep --report FILE`` do.
"""

from __future__ import annotations

import os
from html import escape
from pathlib import Path
from typing import Any

import polars as pl

from balance.fmt import digits
from balance.report.blocks import (
    Column,
    Page,
    config_yaml,
    facts,
    fmt,
    headline,
    interval,
    players_box,
    pvalue,
    significant,
    table_html,
)
from balance.report.numbers import (
    HEADLINE_SCORE,
    HEADLINE_SHARE,
    METRICS,
    Metric,
    SweepStats,
    config_diff,
    metric_rows,
)
from balance.report.sentences import difference_label, listing
from balance.report.sweep_figures import plot_metric
from balance.report.sweep_sentences import (
    at_end,
    axes_words,
    change,
    count,
    group_words,
    headline_value,
    level_text,
    per_unit,
    slope_text,
    sweep_sentences,
    trend_method_sentence,
)
from balance.report.template import fill_sections
from balance.results import status_text
from balance.stats import RULE, trend

# The q-value column of the steps' and the trends' tables: one family per metric over both.
Q_COLUMN = Column(
    "q",
    lambda r: r["q_value"],
    pvalue,
    True,
    "Benjamini-Hochberg within each metric over every step and trend of the sweep, times the "
    "number of metrics; a repeat row takes the q of the row it repeats",
)


def _provenance(ss: SweepStats) -> str:
    m = ss.run.manifest
    overrides = ", ".join(m.get("overrides") or []) or "(none)"
    played = [p for p in m.get("points", []) if p.get("wall_time_s")]
    wall = sum(float(p["wall_time_s"]) for p in played)
    games = sum(int(p.get("games_done") or 0) for p in played)
    rate = f"{games / wall:,.0f} games/s over the points played" if wall > 0 else "–"
    items = [
        ("sweep", ss.path),
        ("game", m.get("game", "?")),
        ("config", m.get("config_path", "?")),
        ("--set", overrides),
        *((f"--over {a.key}", ", ".join(a.labels)) for a in ss.axes),
        ("games per point", f"{int(m['games']):,} (the same seeds at every point)"),
        ("seed", m.get("seed", "?")),
        ("status", status_text(m)),
        ("tool version", f"balance {m.get('version', '?')}"),
        ("date", f"{m.get('started', '?')} to {m.get('finished') or '(unfinished)'}"),
        (
            "speed",
            f"{float(m.get('wall_time_s') or 0):.1f} s for the sweep; "
            f"{wall:.1f} s playing ({rate})",
        ),
    ]
    entries = {int(e["index"]): e for e in m.get("points", [])}
    rows = []
    for p in ss.run.points:
        e = entries.get(p.index, {})
        pm = ss.manifests.get(p.index, {})
        rows.append(
            {
                "point": p.name,
                "status": p.status + (" (kept from an earlier run)" if e.get("kept") else ""),
                "players": pm.get("players", e.get("players")),
                "games": p.games_done,
                "hash": pm.get("config_hash") or e.get("config_hash") or "",
                "seconds": e.get("wall_time_s"),
                "rate": e.get("games_per_s"),
                "dir": p.path.name,
            }
        )
    table = table_html(
        rows,
        [
            Column("point", lambda r: r["point"]),
            Column("status", lambda r: r["status"]),
            Column("players", lambda r: r["players"], fmt("d"), True),
            Column("games", lambda r: r["games"], fmt(","), True),
            Column("seconds", lambda r: r["seconds"], fmt(".2f"), True, "simulating and writing"),
            Column("games/s", lambda r: r["rate"], fmt(",.0f"), True),
            Column("config hash", lambda r: r["hash"]),
            Column("results directory", lambda r: r["dir"]),
        ],
    )
    configs = {i: pm.get("config") or {} for i, pm in ss.manifests.items()}
    diff = ""
    if configs:
        first = min(configs)
        keys = sorted(
            {k for cfg in configs.values() for k, _, _ in config_diff(configs[first], cfg)}
        )
        keys = [k for k in keys if k != "description"]
        if keys:
            diff = (
                "<p>Resolved config keys that differ between the points: "
                + escape(", ".join(keys))
                + " (each point's results directory holds its whole config).</p>"
            )
        yaml_part = config_yaml(
            f"config of point {ss.run.points[first].name} (fully resolved, YAML)",
            configs[first],
        )
    else:
        yaml_part = ""
    warn = ""
    if ss.missing:
        warn = (
            f'<p class="caveat">This sweep is <b>{escape(status_text(m))}</b>: '
            f"{len(ss.missing)} of {len(ss.run.points)} points are not finished and are left "
            f"out ({escape(listing(ss.missing, most=6))}). Run the same sweep again with the "
            "same --out to play them.</p>"
        )
    return warn + facts(items) + table + diff + yaml_part


def _step_columns(ss: SweepStats) -> list[Column]:
    names = {
        "win_share": "win share",
        "normalised_share": "share / fair",
        "first_edge": "first player's edge",
        "mean_score": "mean score",
        "mean_turns": "game length",
        "end_reason": "end reason share",
    }
    unit = {m.metric: m for m in METRICS}

    def metric_of(r: dict[str, Any]) -> Metric:
        return unit.get(r["metric"], METRICS[1])

    def value(key: str) -> Any:
        def cell(r: dict[str, Any]) -> str:
            v = r[key]
            if v is None or v != v:
                return "–"
            if r["metric"] in ("win_share", "end_reason"):
                return f"{v:.2%}"
            if r["metric"] == "first_edge":
                return f"{v * 100:+.2f} pt"
            return f"{v:.3f}"

        return cell

    return [
        Column("step", lambda r: r["step_label"]),
        Column("pairing", lambda r: "paired" if r["paired"] else "independent"),
        Column("metric", lambda r: names.get(r["metric"], r["metric"])),
        Column("group", lambda r: group_words(r["kind"], r["group"])),
        Column("before", lambda r: r, value("a")),
        Column("after", lambda r: r, value("b")),
        Column("change", lambda r: r, lambda r: change(r, metric_of(r))),
        Column("diff", lambda r: r["diff"], fmt("+.4f"), True, "for sorting"),
        Column("games", lambda r: r["games"], fmt(","), True),
        Column("p", lambda r: r["p_value"], pvalue, True),
        Q_COLUMN,
    ]


def _steps_section(ss: SweepStats) -> str:
    s = ss.steps
    if s.height == 0:
        return (
            "<p>Only one point per curve is finished: there are no neighbouring points to "
            "compare.</p>"
        )
    shown = s.filter(pl.col("repeat_metric").is_null() | (pl.col("metric") == "first_edge"))
    sig = shown.filter(pl.col("significant")).sort("step", "metric", "kind", "group")
    cols = _step_columns(ss)
    head = (
        f"<p>{sig.height} of {count(shown.height, 'row')} "
        f"{'changes' if sig.height == 1 else 'change'} significantly between neighbouring "
        "points (red). Each row is the value at the later point minus the earlier one, with its "
        f"{level_text(ss)} interval over games.</p>"
    )
    if sig.height:
        head += table_html(sig.to_dicts(), cols, sortable=True, mark=significant)
    return head + (
        "<details><summary>every step of every metric</summary>"
        + table_html(
            shown.sort("step").to_dicts(),
            cols,
            sortable=True,
            mark=significant,
            scroll=True,
            table_id="steps-table",  # the section is "steps": ids are unique
        )
        + "</details>"
    )


def _trend_columns(ss: SweepStats) -> list[Column]:
    names = {
        "win_share": "win share",
        "normalised_share": "share / fair",
        "first_edge": "first player's edge",
        "mean_score": "mean score",
        "mean_turns": "game length",
        "end_reason": "end reason share",
    }
    unit = {m.metric: m for m in METRICS}
    per = per_unit(ss)

    def at(end: str) -> Any:
        def cell(r: dict[str, Any]) -> str:
            m = unit.get(r["metric"], METRICS[1])
            value = at_end(ss, r, m, end, signed=r["metric"] == "first_edge")
            return f"{r[f'{end}_label']}: {value}"

        return cell

    return [
        Column("curve", lambda r: r["series"] or "–"),
        Column("pairing", lambda r: "paired" if r["paired"] else "independent"),
        Column("metric", lambda r: names.get(r["metric"], r["metric"])),
        Column("group", lambda r: group_words(r["kind"], r["group"])),
        Column("points", lambda r: r["points"], fmt("d"), True),
        Column("games", lambda r: r["games"], fmt(","), True),
        Column("first point", lambda r: r, at("first")),
        Column("last point", lambda r: r, at("last")),
        Column(
            f"slope {per}",
            lambda r: r,
            lambda r: slope_text(r, unit.get(r["metric"], METRICS[1]), per).replace(f" {per}", ""),
        ),
        Column("slope", lambda r: r["slope"], fmt("+.5f"), True, "for sorting"),
        Column("p", lambda r: r["p_value"], pvalue, True),
        Q_COLUMN,
    ]


def _headline_table(ss: SweepStats) -> str:
    """The headline metric at each point, as the summary says it."""
    metric, kind, group = ss.headline
    t = ss.curve.filter(
        (pl.col("metric") == metric) & (pl.col("kind") == kind) & (pl.col("group") == group)
    ).sort("series", "x_pos")
    if t.height == 0 or metric == "mean_turns":
        return ""
    m = HEADLINE_SHARE if metric == "win_share" else HEADLINE_SCORE
    k = digits(float((t["hi"] - t["lo"]).max()) * m.scale / 2, none=2)
    cols = [
        *([Column("curve", lambda r: r["series"])] if len(ss.axes) > 1 else []),
        Column(ss.axes[0].key, lambda r: r["x"]),
        Column("value", lambda r: headline_value(r, m)),
        interval("lo", "hi", f".{k}f", scale=m.scale),
        Column("games", lambda r: r["games"], fmt(","), True),
    ]
    what = f"{difference_label(kind, group)}'s {metric.replace('_', ' ')}"
    return (
        f"<h3>The headline at each point: {escape(what)}</h3>"
        f'<p class="note">The config\'s report.headline, {level_text(ss)} intervals over games.</p>'
        + table_html(t.to_dicts(), cols)
    )


def _trends_section(ss: SweepStats) -> str:
    t = ss.trends
    head = _headline_table(ss)
    why = trend_method_sentence(ss) or "Only one point per curve is finished."
    if t.height == 0:
        return head + f"<p>{escape(why)}</p>"
    shown = t.filter(pl.col("repeat_metric").is_null() | (pl.col("metric") == "first_edge"))
    tested = shown.filter(pl.col("q_value").is_not_nan())
    sig = tested.filter(pl.col("significant")).sort("series", "metric", "kind", "group")
    cols = _trend_columns(ss)
    intro = (
        f"<p>{escape(why)} {sig.height} of {count(tested.height, 'tested trend')} "
        f"{'is' if sig.height == 1 else 'are'} significant (red): {escape(RULE)}, "
        "counted with the steps. The slope is the change of the metric "
        f"{escape(per_unit(ss))}, with its {level_text(ss)} interval; the first and last points' "
        "values are the trend's own estimates over the games it uses.</p>"
    )
    if sig.height:
        intro += table_html(sig.to_dicts(), cols, sortable=True, mark=significant)
    return (
        head
        + intro
        + "<details><summary>the trend of every metric</summary>"
        + table_html(
            shown.sort("series").to_dicts(),
            cols,
            sortable=True,
            mark=significant,
            scroll=True,
            table_id="trends-table",
        )
        + "</details>"
    )


def _method(ss: SweepStats) -> str:
    m = ss.run.manifest
    return (
        f"<p>Every point plays games 0 to {int(m['games']) - 1:,} of seed "
        f"{escape(str(m['seed']))}: game <i>i</i> of every point draws the same random numbers "
        "(common random numbers). Each point's values are estimated over its games, the "
        "independent unit (the seats of one game are not independent): a seat's or place's win "
        "share with the Wilson interval over games; a policy's, team's or role's with the Wilson "
        "interval at its effective number of games; the first player's edge as its share minus "
        "a fair share; mean score as the mean over games of each game's mean seat score, and "
        "game length, with t-intervals over games; end reasons as shares of games (Wilson). "
        "Neighbouring points (along the first knob, within each value of the others) with the "
        "same number of players are compared game by game: the per-game difference's mean with "
        "its t-interval over games (balance/stats/paired.py). Points with different numbers of "
        "players deal different games, so they are independent samples: Welch intervals of "
        "share / fair per place in the turn order, the first player's edge, mean score per "
        "seat-game and game length (balance/stats/across.py), and of end-reason shares. A step is "
        "significant, red and put into words only when its q-value is below 0.05: the "
        "Benjamini-Hochberg q-value within its metric over every step and group of the sweep, "
        "times the number of metrics; among the steps so named the expected share of false ones "
        "is at most 5 %, and if the knob moved nothing the chance of naming any step is at "
        "most 5 %. A row that repeats another of its step (the first player's edge at one "
        "player count is the first player's share; a one-seat policy is its seat) is not "
        f"counted and takes that row's q-value. All intervals are at the {level_text(ss)} level, "
        "one point, one step or one trend at a time.</p>"
        "<p>A trend is tested along a knob whose values are numbers, across the points of each "
        f"curve of at least {trend.MIN_POINTS} points: the least-squares slope of the metric on "
        "the knob's values, with every point weighted equally (the line through the drawn "
        "points; its coefficients are fixed by the knob's values, not by estimated variances, "
        "and the variance below is right for any fixed weights). The slope is a linear contrast "
        "of the points' values, sum<sub>i</sub> c<sub>i</sub> m<sub>i</sub> with c<sub>i</sub> "
        "= (x<sub>i</sub> − x̄) / Σ(x<sub>j</sub> − x̄)². Points of one player count play the "
        "same games, so their values are correlated: the contrast is taken game by game, "
        "y<sub>g</sub> = Σ c<sub>i</sub> x<sub>i,g</sub>, and its interval is the t-interval "
        "over games of y (exact for the paired design; adding the points' variances as if they "
        "were independent would be wrong). Points with different player counts are independent "
        "samples: variance Σ c<sub>i</sub>² s<sub>i</sub>² / n<sub>i</sub>, Welch-Satterthwaite "
        "degrees of freedom, on share / fair per place, the first player's edge, mean score and "
        "game length. Trend rows join the steps' table for the one rule: each metric's family "
        "holds its steps and its trends (balance/stats/trend.py). A knob whose values are not "
        "numbers has no trend.</p>"
    )


def render_sweep(ss: SweepStats, *, cdn: bool = False, generated: str | None = None) -> str:
    """The sweep page as one HTML string (module docstring)."""
    page = Page()
    parts = [
        (
            "summary",
            "What the sweep shows",
            headline(sweep_sentences(ss))
            + f'<p class="note">[ ] are {level_text(ss)} intervals over games; statistics '
            f"computed in {ss.seconds:.1f} s.</p>"
            + players_box([ss.manifests[i] for i in sorted(ss.manifests)]),
        )
    ]
    for m in METRICS:
        if metric_rows(ss, m).height:
            parts.append((m.key, m.heading, page.figure(plot_metric(ss, m))))
    parts += [
        ("trends", "Trends across the points", _trends_section(ss)),
        ("steps", "Between neighbouring points", _steps_section(ss)),
        ("provenance", "Provenance", _provenance(ss)),
        ("method", "Method", _method(ss)),
    ]
    manifest = ss.run.manifest
    subtitle = (
        f"{manifest.get('game', '?')}: {manifest.get('config_path', '?')}, "
        f"{axes_words(ss.axes)}; {int(manifest['games']):,} games per point (seed "
        f"{manifest['seed']})"
    )
    return fill_sections(
        title=f"Balance sweep: {Path(os.path.abspath(ss.path)).name}",
        subtitle=subtitle,
        parts=parts,
        cdn=cdn,
        generated=generated,
    )
