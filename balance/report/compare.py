"""The page of a ``balance compare``: what B changed against A, paired game by game.

``render_comparison`` takes an ``experiments.Comparison`` (its table of paired differences and
both configs); the rows shown come from numbers.py (``comparison_rows``), the words from
sentences.py (``comparison_sentences``), tables and figure slots from sections.py.
"""

from __future__ import annotations

from html import escape
from typing import Any

import polars as pl

import balance
from balance import stats
from balance.report import figures
from balance.report.numbers import comparison_rows, config_diff
from balance.report.sections import (
    SAME_CONFIGS,
    Column,
    Page,
    config_yaml,
    differences_columns,
    facts,
    headline,
    significant,
    table_html,
)
from balance.report.sentences import comparison_sentences
from balance.report.template import fill
from balance.stats import KINDS


def render_comparison(comparison: Any, *, cdn: bool = False, generated: str | None = None) -> str:
    """The page of a ``balance compare`` (an ``experiments.Comparison``) as one HTML string:
    sentences, provenance of both configs and their differences, paired differences of win
    share, mean score and game length with intervals, the full table and the method."""
    c = comparison
    page = Page()
    t = comparison_rows(c)
    kinds = [k for k in KINDS if t.filter(pl.col("kind") == k).height]
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
    level = f"{c.level:.0%}"
    parts = [
        (
            "summary",
            "What B changes",
            headline(comparison_sentences(c))
            + f'<p class="note">Paired over {c.games:,} games; [ ] are {level} intervals; '
            "a change is named only when it is significant (" + escape(stats.RULE) + ").</p>",
        ),
        ("provenance", "Provenance", _provenance(c)),
        ("wins", "Win share", figs[0]),
        ("scores", "Mean score", figs[1]),
        ("length", "Game length", figs[2]),
        (
            "table",
            "All differences",
            table_html(
                t.to_dicts(), differences_columns("A", "B"), sortable=True, mark=significant
            ),
        ),
        ("method", "Method", _method(c, n_rows=t.height)),
    ]
    return fill(
        title=f"Balance compare: {c.a_path} vs {c.b_path}",
        subtitle=(
            f"{c.a_config.game}: A = {c.a_path}, B = {c.b_path}; {c.games:,} paired games "
            f"(seed {c.seed})"
        ),
        nav=" ".join(f'<a href="#{key}">{escape(name.lower())}</a>' for key, name, _ in parts),
        body="\n".join(
            f'<section id="{key}"><h2>{escape(name)}</h2>{html}</section>'
            for key, name, html in parts
        ),
        cdn=cdn,
        generated=generated,
    )


def _provenance(c: Any) -> str:
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
        diff = SAME_CONFIGS
    yamls = "".join(
        config_yaml(f"config {name}: {path} (fully resolved, YAML)", cfg.resolved_dict())
        for name, path, cfg in (("A", c.a_path, a), ("B", c.b_path, b))
    )
    return facts(items) + diff + yamls


def _method(c: Any, *, n_rows: int) -> str:
    return (
        f"<p>Both configs play the same {c.games:,} games (seed {escape(str(c.seed))}): game "
        "<i>i</i> draws the same random numbers under A and B (common random numbers), so each "
        "game gives one paired difference B − A, and most of the luck cancels. Intervals: "
        f"{escape(c.method)}, at the {c.level:.0%} level (per row). A change is called "
        "significant, marked red and put into words only when its q-value is below 0.05: the "
        f"Benjamini-Hochberg q-value within its metric's rows of the {n_rows} (win share, mean "
        "score, game length), times the number of metrics. Among the changes so named, the "
        "expected share that are not real is then at most 5 %, and if B changed nothing the "
        "chance of naming any change is at most 5 %. A row that repeats another (a one-seat team or "
        "policy repeats its seat) takes that row's q-value; a share the rules fix has no "
        "test.</p>"
    )
