"""The page of a ``balance compare``: what B changed against A, paired game by game.

Configs of one game with different player counts are compared as independent samples, and only
on what means the same at both counts (balance/stats/across.py); ``_render_across`` makes that
page, which says so at the top.

``render_comparison`` takes an ``experiments.Comparison`` (its table of paired differences and
both configs); the rows shown come from numbers.py (``comparison_rows``), the words from
sentences.py (``comparison_sentences``), tables and figure slots from blocks.py.
"""

from __future__ import annotations

from html import escape
from typing import Any

import polars as pl

import balance
from balance import stats
from balance.fmt import fair_pct, signed
from balance.report import forest
from balance.report.blocks import (
    SAME_CONFIGS,
    Column,
    Page,
    config_yaml,
    differences_columns,
    facts,
    fmt,
    headline,
    players_box,
    pvalue,
    significant,
    table_html,
)
from balance.report.numbers import comparison_rows, config_diff
from balance.report.sentences import comparison_sentences, left_out_words, ordinal
from balance.report.template import fill_sections
from balance.stats import KINDS, across


def _players(c: Any) -> str:
    """The bot-play box of both configs' line-ups."""
    return players_box(
        [
            {"game": cfg.game, "seats": list(cfg.seats), "config": cfg.resolved_dict()}
            for cfg in (c.a_config, c.b_config)
        ]
    )


def render_comparison(comparison: Any, *, cdn: bool = False, generated: str | None = None) -> str:
    """The page of a ``balance compare`` (an ``experiments.Comparison``) as one HTML string:
    sentences, provenance of both configs and their differences, paired differences of win
    share, mean score and game length with intervals, the full table and the method."""
    c = comparison
    if not getattr(c, "paired", True):
        return _render_across(c, cdn=cdn, generated=generated)
    page = Page()
    t = comparison_rows(c)
    kinds = [k for k in KINDS if t.filter(pl.col("kind") == k).height]
    figs = [
        page.figure(
            forest.plot_differences(
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
    left_out = _left_out_note(c)
    parts = [
        (
            "summary",
            "What B changes",
            headline(comparison_sentences(c))
            + f'<p class="note">Paired over {c.games:,} games; [ ] are {level} intervals; '
            "a change is named only when it is significant ("
            + escape(stats.RULE)
            + ").</p>"
            + left_out
            + _players(c),
        ),
        ("provenance", "Provenance", _provenance(c)),
        ("wins", "Win share", figs[0]),
        ("scores", "Mean score", figs[1]),
        ("length", "Game length", figs[2]),
        (
            "table",
            "All differences",
            table_html(t.to_dicts(), differences_columns("A", "B"), sortable=True, mark=significant)
            + left_out,
        ),
        *(
            [("plays", "How the game plays", _plays_table(c))]
            if getattr(c, "plays", None) is not None
            else []
        ),
        ("method", "Method", _method(c, n_rows=t.height)),
    ]
    subtitle = (
        f"{c.a_config.game}: A = {c.a_path}, B = {c.b_path}; {c.games:,} paired games "
        f"(seed {c.seed})"
    )
    return _page(c, parts, subtitle, cdn=cdn, generated=generated)


def _plays_table(c: Any) -> str:
    """How the games played (stats/plays.py), paired B - A per metric, each with its q-value by
    the one rule across these metrics."""
    from balance.stats.plays import METRICS

    def cell(r: dict[str, Any], key: str) -> str:
        v = r[key]
        return f"{v:.2%}" if METRICS[r["metric"]][0] == "rate" else f"{v:.3f}"

    def diff(r: dict[str, Any]) -> str:
        k = 100 if METRICS[r["metric"]][0] == "rate" else 1
        unit = " points" if k == 100 else ""
        return f"{r['diff'] * k:+.3f} [{r['lo'] * k:+.3f}, {r['hi'] * k:+.3f}]{unit}"

    cols = [
        Column("metric", lambda r: r["words"]),
        Column("games", lambda r: r["games"], fmt(","), True),
        Column("A", lambda r: r, lambda r: cell(r, "a")),
        Column("B", lambda r: r, lambda r: cell(r, "b")),
        Column("difference", lambda r: r, diff),
        Column("q", lambda r: r.get("q_value"), pvalue, True, "the one rule across these metrics"),
    ]
    return (
        "<p>Per game, from its trajectory (docs/statistics.md, How the game plays); a metric of "
        "the winner over the games where both runs have one winner; paired t-intervals over "
        "games; q: the one significance rule across these metrics.</p>"
        + table_html(c.plays.to_dicts(), cols, sortable=True, mark=significant)
    )


def _left_out_note(c: Any) -> str:
    """Which teams and roles the comparison's table leaves out and why (none dealt in these
    games: no numbers to compare), named, or nothing."""
    left_out = getattr(c, "left_out", ())
    if not left_out:
        return ""
    words = " ".join(left_out_words(left_out))
    names = ", ".join(f"{k} {g}" for k, g, why in left_out if why == "never dealt")
    return f'<p class="note">{escape(words)}' + (
        f" Never dealt: {escape(names)}.</p>" if names else "</p>"
    )


def _page(
    c: Any, parts: list[tuple[str, str, str]], subtitle: str, *, cdn: bool, generated: str | None
) -> str:
    """A compare page's shell: its sections (id, heading, html) in order, with their nav."""
    return fill_sections(
        title=f"Balance compare: {c.a_path} vs {c.b_path}",
        subtitle=subtitle,
        parts=parts,
        cdn=cdn,
        generated=generated,
    )


def _provenance(c: Any) -> str:
    a, b = c.a_config, c.b_config
    paired = getattr(c, "paired", True)
    rate = 2 * c.games / c.wall_time_s if c.wall_time_s > 0 else float("nan")

    def sets(cfg: Any) -> str:  # the --set overrides it was loaded with, as written
        o = getattr(cfg, "overrides", ())
        return f" with {', '.join(o)}" if o else ""

    items = [
        ("A (reference)", f"{c.a_path}{sets(a)}"),
        ("B (the change)", f"{c.b_path}{sets(b)}"),
        ("game", a.game),
        ("players", a.players if paired else f"A: {a.players}, B: {b.players}"),
        ("line-up A", ", ".join(f"seat {i}: {p}" for i, p in enumerate(a.seats))),
        ("line-up B", ", ".join(f"seat {i}: {p}" for i, p in enumerate(b.seats))),
        (
            "games",
            f"{c.games:,} of each config, " + ("paired game by game" if paired else across.SAMPLES),
        ),
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


# ================================================================== different player counts

_ACROSS_RULE = (
    "q < 0.05: Benjamini-Hochberg within each metric (share / fair, edge, mean score, game "
    "length), times the number of metrics"
)  # stats.RULE with this table's metrics
_ACROSS_UNIT = {
    "normalised_share": ("share / fair", "{:.3f}", "{:+.3f}", 1.0),
    "first_edge": ("edge over fair", "{:+.2f} pt", "{:+.2f} pt", 100.0),
    "mean_score": ("mean score", "{:.3f}", "{:+.3f}", 1.0),
    "mean_turns": ("mean turns", "{:.3f}", "{:+.3f}", 1.0),
}


def _across_label(r: dict[str, Any]) -> str:
    if r["kind"] == "order":
        return f"{ordinal(int(r['group']))} player"
    return "all seat-games" if r["kind"] == "all" else "all games"


def _across_columns() -> list[Column]:
    def value(key: str) -> Column:
        def cell(r: dict[str, Any]) -> str:
            _, spec, _, scale = _ACROSS_UNIT[r["metric"]]
            return spec.format(r[key] * scale)

        return Column(key.upper(), lambda r: r, cell)

    def diff(r: dict[str, Any]) -> str:
        _, _, spec, scale = _ACROSS_UNIT[r["metric"]]
        lo, hi = (spec.format(r[k] * scale).removesuffix(" pt") for k in ("lo", "hi"))
        return f"{spec.format(r['diff'] * scale)} [{lo}, {hi}]"

    return [
        Column("metric", lambda r: _ACROSS_UNIT[r["metric"]][0]),
        Column("group", _across_label),
        value("a"),
        value("b"),
        Column("difference", lambda r: r, diff),
        Column("diff", lambda r: r["diff"], lambda x: f"{x:+.4f}", True, "for sorting"),
        Column("p", lambda r: r["p_value"], _p, True),
        Column("q", lambda r: r["q_value"], _p, True, _ACROSS_RULE),
    ]


def _p(x: Any) -> str:
    if x is None or x != x:
        return "–"
    return "< 1e-300" if x == 0 else format(x, ".2g")


def across_sentences(c: Any) -> list[str]:
    """What B changes against A across player counts, in words (significant: stats.RULE)."""
    t = c.table
    na, nb = c.a_config.players, c.b_config.players
    row = {(r["metric"], r["group"]): r for r in t.iter_rows(named=True)}
    dealt = c.method == across.METHOD_DEALT  # no fair 1/n: a place against the mean seat win
    fair = (
        "a place's win over the mean seat win of the same games, the sides being dealt"
        if dealt
        else "share × players"
    )
    out = [
        f"A has {na} players and B {nb}: the same seeds deal different games, so A and B are "
        f"compared as independent samples, on share / fair ({fair}) per place in the "
        "turn order, the first player's edge over fair, mean score and game length; per-seat "
        "win shares are not compared."
    ]
    e = row[("first_edge", "0")]
    words = "significantly" if e["significant"] else "not significantly"
    fa, fb = ("", "") if dealt else (f" (fair {fair_pct(1 / na)})", f" (fair {fair_pct(1 / nb)})")
    out.append(
        f"The first player's edge over a fair share is {e['a'] * 100:+.2f} points with {na} "
        f"players{fa} and {e['b'] * 100:+.2f} points with {nb}{fb}: {words} different "
        f"({signed(e['diff'], e['lo'], e['hi'], 100, ' points')})."
    )
    f = row[("normalised_share", "0")]
    out.append(
        f"The first player wins {f['a']:.3f} × a fair share with {na} players and "
        f"{f['b']:.3f} × with {nb} ({signed(f['diff'], f['lo'], f['hi'])}"
        + (", significant" if f["significant"] else ", not significant")
        + ")."
    )
    g = row[("mean_turns", "all")]
    out.append(
        f"Games last {g['a']:.1f} turns with {na} players and {g['b']:.1f} with {nb} "
        f"({signed(g['diff'], g['lo'], g['hi'], 1, ' turns')})."
    )
    return out


def _render_across(c: Any, *, cdn: bool, generated: str | None) -> str:
    page = Page()
    t = c.table
    edge = t.filter(pl.col("metric") == "first_edge").with_columns(metric=pl.lit("win_share"))
    figs = [
        page.figure(
            forest.plot_differences(
                tab, metric=metric, kinds=kinds, title=title, a_name="A", b_name="B"
            )
        )
        for tab, metric, kinds, title in (
            (
                t,
                "normalised_share",
                ["order"],
                "Share / fair per place in the turn order: B minus A",
            ),
            (edge, "win_share", ["order"], "First player's edge over fair: B minus A"),
            (t, "mean_score", ["all"], "Mean score per seat-game: B minus A"),
            (t, "mean_turns", ["game"], "Game length (turns): B minus A"),
        )
    ]
    level = f"{c.level:.0%}"
    parts = [
        (
            "summary",
            "What B changes",
            headline(across_sentences(c))
            + f'<p class="note">{escape(across.SAMPLES[0].upper() + across.SAMPLES[1:])}: '
            f"{c.games:,} games of each config; [ ] are {level} intervals; "
            "a change is significant only when " + escape(_ACROSS_RULE) + ".</p>" + _players(c),
        ),
        ("provenance", "Provenance", _provenance(c)),
        ("places", "Share / fair per place", figs[0]),
        ("edge", "First player's edge", figs[1]),
        ("scores", "Mean score", figs[2]),
        ("length", "Game length", figs[3]),
        (
            "table",
            "All differences",
            table_html(t.to_dicts(), _across_columns(), sortable=True, mark=significant),
        ),
        (
            "method",
            "Method",
            f"<p>A has {c.a_config.players} players and B {c.b_config.players}. Both play "
            f"{c.games:,} games on seed {escape(str(c.seed))}, but a game of one player count "
            "is not the game of another, so nothing pairs them: "
            f"{escape(c.method)}, at the {c.level:.0%} level (per row). Only what means the "
            "same at both counts is compared: share / fair (share × players; 1 = fair) per "
            "place in the turn order that both counts have, the first player's edge (share − "
            "1/players), mean score per seat-game (over games: the seats of a game are not "
            "independent) and game length; a seat's raw win share is not. A change is called "
            f"significant when its q-value is below 0.05: {escape(_ACROSS_RULE)} (the "
            f"{t['metric'].n_unique()} metrics of the {t.height} rows).</p>",
        ),
    ]
    subtitle = (
        f"{c.a_config.game}: A = {c.a_path} ({c.a_config.players} players), B = {c.b_path} "
        f"({c.b_config.players} players); {c.games:,} games each, {across.SAMPLES} "
        f"(seed {c.seed})"
    )
    return _page(c, parts, subtitle, cdn=cdn, generated=generated)
