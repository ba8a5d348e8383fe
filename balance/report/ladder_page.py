"""The page of a ``balance ladder``: how much each step of skill wins, luck against skill, and
every finding at every rung with its call across the rungs.

The numbers are balance/ladder_file.py's (``analyse_ladder`` gathers them); this module writes
the sentences, draws the figures (the depth chart: each step's share against the rung below in
the same seats; small multiples, one panel per finding against the rung, simultaneous intervals
as error bars) and the tables, and puts them in the page shell (template.py). Every sentence
rests on an interval: a step is a win or a loss only when its simultaneous interval excludes 0,
a finding's call is balance/stats/ladder.py's.
"""

from __future__ import annotations

import math
import os
import time
from html import escape
from pathlib import Path
from typing import Any, NamedTuple

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from balance import fmt as f
from balance.report.blocks import Column, Page, facts, headline, players_box, table_html
from balance.report.template import fill_sections

NAMES = {"order": "place", "seat": "chair", "team": "side", "role": "role"}
PANELS_PER_ROW = 4
PANEL_PX = 230


class LadderStats(NamedTuple):
    """Everything the ladder page shows."""

    path: str
    manifest: dict[str, Any]  # ladder.json
    rungs: list[str]
    depth: Any  # balance.stats.ladder.Depth
    luck: Any  # balance.stats.ladder.Luck
    findings: list[Any]  # balance.stats.ladder.Finding
    manifests: list[dict[str, Any]]  # the mirrors' results manifests, weakest rung first
    seconds: float
    impacts: tuple[Any, ...] = ()  # (variant entry, Finding of its change of the headline)
    matrix: Any = None  # balance.stats.ladder.Matrix: a game of sides, Family rung x evil rung


def analyse_ladder(path: str | os.PathLike[str]) -> LadderStats:
    """The numbers of the ladder at ``path`` (LadderError, one line, while it is unfinished)."""
    from balance import ladder_file as lf
    from balance.results import read_manifest

    t0 = time.perf_counter()
    ld = lf.load(path)  # every point's arrays read once, for all the readers
    depth, luck, findings = lf.read_depth(ld), lf.read_luck(ld), lf.read_findings(ld)
    manifests = [read_manifest(Path(path) / ld.mirror(r)["dir"]) for r in ld.rungs]
    impacts, matrix = tuple(lf.read_impacts(ld)), lf.read_matrix(ld)
    return LadderStats(
        os.fspath(path), ld.manifest, ld.rungs, depth, luck, findings, manifests,
        time.perf_counter() - t0, impacts, matrix,
    )  # fmt: skip


def games_words(manifest: dict[str, Any]) -> str:
    """How many games each point played: "2,401 games a point", or a sized ladder's range."""
    sizes = [int(n) for n in manifest.get("point_games") or []]
    if not sizes or min(sizes) == max(sizes):
        return f"{sizes[0] if sizes else int(manifest['games']):,} games a point"
    return f"{min(sizes):,} to {max(sizes):,} games a point (each sized for its statistic)"


# ================================================================================= sentences


def finding_label(finding: Any) -> str:
    return f"{NAMES.get(finding.axis, finding.axis)} {finding.group}"


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def finding_words(finding: Any) -> str:
    """The finding in a sentence: "the 1st player's edge", "the raven side's win share"."""
    g = finding.group
    who = {
        "order": lambda: f"the {_ordinal(int(g))} player" if g.isdigit() else f"place {g}",
        "seat": lambda: f"chair {g}",
        "team": lambda: f"the {g} side",
        "role": lambda: f"the {g} role",
    }.get(finding.axis, lambda: f"{finding.axis} {g}")()
    return f"{who}'s {'edge' if finding.reference else 'win share'}"


def _value(finding: Any, k: int) -> str:
    v, lo, hi = finding.value[k], finding.lo[k], finding.hi[k]
    if finding.reference:
        return f.points(v, lo, hi)
    return f"{f.pct(v)} [{f.pct(lo)}, {f.pct(hi)}]"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def finding_sentence(finding: Any, rungs: list[str], at: int | None = None) -> str:
    """One finding across the rungs, as its call allows; ``at``: the rung that plays a report's
    own line-up, whose value is said too (between the ends, "this report's players")."""
    what = finding_words(finding)
    ends = f"{_value(finding, 0)} among {rungs[0]} players"
    if at is not None and 0 < at < len(rungs) - 1:
        ends += f", {_value(finding, at)} among {rungs[at]} players (this report's)"
    ends += f", {_value(finding, -1)} at {rungs[-1]}"
    trend = f.points(finding.slope, finding.slope_lo, finding.slope_hi)
    q = f.q_text(finding.q_value)
    if finding.call == "flips":
        sides = [
            f"{'above' if lo > 0 else 'below'} 0 at {r}"
            for r, lo, hi in zip(rungs, finding.lo, finding.hi, strict=True)
            if lo > 0 or hi < 0
        ]
        return f"{_cap(what)} flips with skill: {', '.join(sides)} ({ends})."
    if finding.call in ("grows", "shrinks"):
        verb = {"grows": "grows", "shrinks": "shrinks"}[finding.call]
        if not finding.reference:
            verb = "rises" if finding.call == "grows" else "falls"
        return f"{_cap(what)} {verb} with skill: {ends}; {trend} a rung, {q}."
    if finding.call == "holds":
        return f"{_cap(what)} holds at every rung: {ends}; {trend} a rung."
    sign = finding.sign
    if sign:
        return (
            f"{_cap(what)} is {'positive' if sign > 0 else 'negative'} at every rung "
            f"(simultaneous intervals); how it changes with skill is not determined at these "
            f"games ({ends}; {trend} a rung)."
        )
    return f"{_cap(what)}: not determined at these games ({ends})."


def depth_sentence(depth: Any) -> str:
    """Whether the ladder is a ladder, as its simultaneous intervals allow."""
    if depth.ladder:
        return (
            f"Each rung wins more than the rung below up to {depth.steps[-1].upper}: every "
            f"step's lower bound is above 0 ({f.level(depth.level)} intervals, simultaneous "
            "over the steps)."
        )
    said = "; ".join(
        f"{s.upper} over {s.lower}: "
        + ("wins less" if s.hi < 0 else "no edge distinguishable from chance")
        for s in depth.steps
        if s.lo <= 0
    )
    return (
        f"Not a ladder all the way up ({said}; {f.level(depth.level)} intervals, simultaneous "
        "over the steps)."
    )


def luck_sentences(luck: Any) -> list[str]:
    """Luck against skill, in two sentences a statistician would sign (95 % intervals)."""
    s = luck.step
    edge = f.points(s.edge, s.lo, s.hi)
    beats = "more than" if s.lo > 0 else "less than" if s.hi < 0 else "not distinguishable from"
    first = (
        f"Skill against luck: {luck.top} in one seat among {luck.bottom} players wins "
        f"{f.pct(s.share)}, {beats} {luck.bottom} there ({f.pct(s.yardstick)}; {edge})."
    )
    hold = f.points(luck.hold, luck.lo, luck.hi)
    if luck.lo > 0:
        verdict = "the deal alone decides part of who wins"
    elif luck.hi < 0:
        verdict = "the stronger players win against the deal's grain"
    else:
        verdict = "the deal's hold is not distinguishable from chance at these games"
    second = (
        f"The same seats win a game under {luck.bottom} and under {luck.top} players "
        f"{f.pct(luck.same)} of the time, {f.pct(luck.chance)} for games paired at random: "
        f"{hold}, {verdict}."
    )
    return [first, second]


def summary_sentences(ls: LadderStats) -> list[str]:
    """The page's headline: the ladder, luck against skill, the calls that say something."""
    out = [depth_sentence(ls.depth), *luck_sentences(ls.luck)]
    said = [x for x in ls.findings if x.call != "not determined" or x.sign]
    out += [finding_sentence(x, ls.rungs) for x in said]
    for v, x in ls.impacts:
        if x.call != "not determined":
            out.append(impact_sentence(v, x, ls))
    rest = len(ls.findings) - len(said)
    if rest:
        out.append(
            f"{rest} of {len(ls.findings)} findings are not determined at "
            f"{int(ls.manifest['games']):,} games a rung (table below)."
        )
    return out


def headline_words(ls: LadderStats) -> str:
    """The config's headline as the impacts' sentences name it."""
    from balance.ladder_file import headline_key

    key = headline_key(ls.manifest.get("headline") or ("win_share", "order", "0"))
    if key is None:
        return "the headline"
    fake = type("F", (), {"axis": key[0], "group": key[1], "reference": True})
    return finding_words(fake)


def impact_sentence(variant: dict[str, Any], x: Any, ls: LadderStats) -> str:
    """A variant's causal change of the headline across the rungs, as its call allows."""
    ends = f"{_value(x, 0)} among {ls.rungs[0]} players, {_value(x, -1)} at {ls.rungs[-1]}"
    what = f"{variant['name']} ({variant.get('description') or 'a variant'})"
    head = headline_words(ls)
    if x.call == "holds":
        return f"{_cap(what)} changes {head} alike at every rung: {ends}."
    if x.call == "flips":
        return f"{_cap(what)} moves {head} one way among some players and the other way among others: {ends}."
    verb = "more" if x.call == "grows" else "less"
    return (
        f"{_cap(what)} moves {head} {verb} as skill grows: {ends}; "
        f"{f.points(x.slope, x.slope_lo, x.slope_hi)} a rung, {f.q_text(x.q_value)}."
    )


# =================================================================================== figures


def depth_figure(ls: LadderStats) -> go.Figure:
    """Each step: the stronger seat's share and the lower rung's in the same seats."""
    steps = ls.depth.steps
    labels = [f"{s.upper}<br>over {s.lower}" for s in steps]
    fig = go.Figure()
    fig.add_bar(
        x=labels,
        y=[s.yardstick * 100 for s in steps],
        name="the rung below, same seats",
        marker_color="#bbbbbb",
        hovertemplate="%{y:.1f} %<extra>the rung below</extra>",
    )
    fig.add_scatter(
        x=labels,
        y=[s.share * 100 for s in steps],
        mode="markers",
        name=f"the stronger rung in one seat ({f.level(ls.depth.level)} simultaneous)",
        marker={"size": 11, "color": "#1f5fa8"},
        error_y={
            "type": "data",
            "symmetric": False,
            "array": [(s.hi - s.edge) * 100 for s in steps],
            "arrayminus": [(s.edge - s.lo) * 100 for s in steps],
        },
        hovertemplate="%{y:.1f} %<extra>the stronger rung</extra>",
    )
    fig.update_layout(
        title=f"Skill depth: {'a ladder' if ls.depth.ladder else 'not a ladder all the way up'}",
        yaxis_title="win share of the seat (%)",
        height=380,
        margin={"t": 60, "b": 60},
        legend={"orientation": "h", "y": -0.28},
    )
    return fig


def findings_figure(ls: LadderStats) -> go.Figure:
    """One panel per finding: its value at every rung, simultaneous intervals."""
    fs = ls.findings
    cols = min(PANELS_PER_ROW, len(fs))
    rows = math.ceil(len(fs) / cols)
    height = rows * PANEL_PX + 90
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[f"{finding_label(x)}<br><i>{x.call}</i>" for x in fs],
        vertical_spacing=min(0.3, 110 / height),
        horizontal_spacing=0.07,
    )
    x = list(range(len(ls.rungs)))
    for i, fd in enumerate(fs):
        r, c = divmod(i, cols)
        scale = 100.0
        fig.add_scatter(
            x=x,
            y=[v * scale for v in fd.value],
            mode="lines+markers",
            showlegend=False,
            line={"color": "#1f5fa8" if fd.call != "not determined" else "#999999"},
            error_y={
                "type": "data",
                "symmetric": False,
                "array": [(h - v) * scale for v, h in zip(fd.value, fd.hi, strict=True)],
                "arrayminus": [(v - lo) * scale for v, lo in zip(fd.value, fd.lo, strict=True)],
            },
            hovertemplate="%{y:.1f}<extra>" + escape(finding_label(fd)) + "</extra>",
            row=r + 1,
            col=c + 1,
        )
        if fd.reference:
            fig.add_hline(y=0, line={"color": "#cccccc", "width": 1}, row=r + 1, col=c + 1)
    fig.update_xaxes(tickvals=x, ticktext=ls.rungs, tickangle=-30)
    fig.update_yaxes(title_text="points", col=1)
    fig.update_annotations(font_size=11)
    fig.update_layout(height=height, margin={"t": 60, "b": 40})
    return fig


def matrix_figure(ls: LadderStats) -> go.Figure:
    """The headline side's share, the Family's rung (rows) against the evil side's (columns),
    as a heat map with each cell's simultaneous interval written in it."""
    m = ls.matrix
    z = [[m.cell(fr, er).share * 100 for er in m.rungs] for fr in m.rungs]
    text = [
        [f"{c.share * 100:.1f} %<br>[{c.lo * 100:.1f}, {c.hi * 100:.1f}]"
         for c in (m.cell(fr, er) for er in m.rungs)]
        for fr in m.rungs
    ]  # fmt: skip
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=[f"evil: {r}" for r in m.rungs],
            y=[f"Family: {r}" for r in m.rungs],
            text=text,
            texttemplate="%{text}",
            zmin=0,
            zmax=100,
            colorscale="RdBu_r",
            colorbar={"title": {"text": f"{m.side} %"}},
            hovertemplate="%{y}, %{x}: %{text}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(
        title=f"The {m.side} side's win share, Family rung against evil rung",
        height=140 + 70 * len(m.rungs),
        margin={"t": 60, "b": 40},
    )
    return fig


def matrix_sentences(m: Any) -> list[str]:
    """What the matrix says: how far the share moves with each side's skill, from the weakest
    corner to the strongest, each end with its simultaneous interval."""
    lo_r, hi_r = m.rungs[0], m.rungs[-1]
    out = []
    for what, a, b in (
        (f"a stronger evil side (Family {lo_r})", m.cell(lo_r, lo_r), m.cell(lo_r, hi_r)),
        (f"a stronger Family (evil side {lo_r})", m.cell(lo_r, lo_r), m.cell(hi_r, lo_r)),
    ):
        apart = a.hi < b.lo or b.hi < a.lo
        moves = ("raises it" if b.share > a.share else "lowers it") if apart else (
            "moves it by no more than these intervals can tell"
        )  # fmt: skip
        out.append(
            f"With {what}, from {lo_r} to {hi_r}, the {m.side} side's share goes from "
            f"{f.pct(a.share)} [{f.pct(a.lo)}, {f.pct(a.hi)}] to {f.pct(b.share)} "
            f"[{f.pct(b.lo)}, {f.pct(b.hi)}]: skill {moves}."
        )
    return out


def _matrix_section(page: Page, ls: LadderStats) -> str:
    m = ls.matrix
    return headline(matrix_sentences(m)) + page.figure(
        matrix_figure(ls),
        f"Every seat plays the Family's rung while on the Family's side and the evil rung "
        f"while on an evil side (a possessed seat switches); {f.level(m.level)} intervals, "
        f"simultaneous over the {len(m.cells)} cells; the diagonal is each rung's mirror.",
    )


# ==================================================================================== tables


def _cell(finding: Any, k: int) -> str:
    """A finding at rung ``k`` in a table cell: points, or a dealt side's share in %."""
    v, lo, hi = finding.value[k], finding.lo[k], finding.hi[k]
    return f.signed(v, lo, hi, 100) if finding.reference else f.estimate(v, lo, hi, 100, " %")


def _findings_table(ls: LadderStats) -> str:
    cols = [Column("finding", finding_label)]
    for k, rung in enumerate(ls.rungs):
        cols.append(Column(rung, lambda x, k=k: _cell(x, k)))
    cols += [
        Column("trend a rung", lambda x: f.signed(x.slope, x.slope_lo, x.slope_hi, 100)),
        Column("q", lambda x: x.q_value, lambda q: f.q_text(q), True, "BH over the findings"),
        Column("call", lambda x: x.call),
    ]
    return table_html(
        ls.findings, cols, sortable=True, scroll=True, table_id="ladder-findings",
        mark=lambda x: x.call != "not determined",
    )  # fmt: skip


def _impacts_section(page: Page, ls: LadderStats) -> str:
    """Each variant's change of the headline at every rung: a panel each, and the table."""
    fig = go.Figure()
    x = list(range(len(ls.rungs)))
    for v, fd in ls.impacts:
        fig.add_scatter(
            x=x,
            y=[val * 100 for val in fd.value],
            mode="lines+markers",
            name=f"{v['name']}: {fd.call}",
            error_y={
                "type": "data",
                "symmetric": False,
                "array": [(h - val) * 100 for val, h in zip(fd.value, fd.hi, strict=True)],
                "arrayminus": [(val - lo) * 100 for val, lo in zip(fd.value, fd.lo, strict=True)],
            },
        )
    fig.add_hline(y=0, line={"color": "#cccccc", "width": 1})
    fig.update_xaxes(tickvals=x, ticktext=ls.rungs, title_text="every seat this rung")
    fig.update_layout(
        title=f"Each variant's change of {headline_words(ls)}, by rung",
        yaxis_title="points",
        height=420,
        legend={"orientation": "h", "y": -0.3},
        margin={"t": 60, "b": 60},
    )
    cols = [Column("variant", lambda r: r[0]["name"]),
            Column("what it changes", lambda r: r[0].get("description") or "")]  # fmt: skip
    for k, rung in enumerate(ls.rungs):
        cols.append(Column(rung, lambda r, k=k: _cell(r[1], k)))
    cols += [
        Column("trend a rung", lambda r: f.signed(r[1].slope, r[1].slope_lo, r[1].slope_hi, 100)),
        Column("q", lambda r: r[1].q_value, lambda q: f.q_text(q), True, "BH over the variants"),
        Column("call", lambda r: r[1].call),
    ]
    note = (
        '<p class="note">Each variant played with every seat at each rung, on the same games as '
        "that rung's mirror: its change of the headline, in points, game by game. Intervals "
        "simultaneous over the rungs; the trend's q-value is Benjamini-Hochberg over the "
        "variants. The variants were chosen on other games than these (seed + 1) when the "
        "ladder chose them (--impact top).</p>"
    )
    table = table_html(ls.impacts, cols, table_id="ladder-impacts", scroll=True,
                       mark=lambda r: r[1].call != "not determined")  # fmt: skip
    return page.figure(fig) + table + note


def _depth_table(ls: LadderStats) -> str:
    steps = [*ls.depth.steps]
    cols = [
        Column("step", lambda s: f"{s.upper} over {s.lower}"),
        Column("games", lambda s: s.games, lambda n: f.grouped(n), True),
        Column("its share", lambda s: s.share, f.pct, True),
        Column("the rung below there", lambda s: s.yardstick, f.pct, True),
        Column("edge", lambda s: f.points(s.edge, s.lo, s.hi)),
    ]
    return table_html(steps, cols, table_id="ladder-depth", mark=lambda s: s.lo > 0 or s.hi < 0)


def _provenance(ls: LadderStats) -> str:
    m = ls.manifest
    rungs = "; ".join(
        f"{r['name']}: {', '.join(f'{k}={v}' for k, v in r['policy'].items())}" for r in m["rungs"]
    )
    return facts(
        [
            ("ladder", ls.path),
            ("config", m.get("config_path", "?")),
            ("game", m.get("game", "?")),
            ("games a point", f"{int(m['games']):,}"),
            ("seed", m["seed"]),
            ("points", len(m["points"])),
            ("rungs (weakest first)", rungs),
            ("balance", m.get("version", "?")),
        ]
    )


METHOD = (
    "<p>Every point plays the same games of the same seed (common random numbers). "
    "<b>Skill depth</b>: a step's edge is the stronger rung's win in one seat, averaged over the "
    "seats it was rotated to, minus what the lower rung wins in the same seats of the same game; "
    "t-intervals over games, Bonferroni-simultaneous over the steps. <b>Skill against luck</b>: "
    "the top rung among the first, measured as a step (95 %); the deal's hold is the overlap of "
    "the same game's winning seats under the weakest and the strongest rung minus that of games "
    "paired at random (95 % t-interval over games). <b>Findings</b>: each verdict axis' group "
    "(places, chairs, sides, roles) in every mirror, intervals simultaneous over the axis' groups "
    "and the rungs; the trend is the least-squares slope over the rungs' positions, a paired "
    "contrast over games, with Benjamini-Hochberg over the findings; calls as "
    "docs/commands/ladder.md defines them.</p>"
)


def render_ladder(ls: LadderStats, *, cdn: bool = False, generated: str | None = None) -> str:
    """The ladder page as one HTML string."""
    page = Page()
    parts = [
        (
            "summary",
            "What the ladder shows",
            headline(summary_sentences(ls))
            + f'<p class="note">Statistics computed in {ls.seconds:.1f} s.</p>'
            + players_box(ls.manifests),
        ),
        ("depth", "Skill depth", page.figure(depth_figure(ls)) + _depth_table(ls)),
        (
            "findings",
            "Findings at every rung",
            page.figure(
                findings_figure(ls),
                "Each finding in points (a place's, chair's or role's win share minus the mean "
                "seat win; a side's minus its target or fair share, or its share when the game "
                "deals sides and the config names no target), every seat playing the rung; "
                "error bars simultaneous over the axis' groups and the rungs.",
            )
            + _findings_table(ls),
        ),
    ]
    if ls.impacts:
        parts.append(("impact", "Card impact at every rung", _impacts_section(page, ls)))
    if ls.matrix is not None:
        parts.append(("sides", "Family rung against evil rung", _matrix_section(page, ls)))
    parts += [
        ("provenance", "Provenance", _provenance(ls)),
        ("method", "Method", METHOD),
    ]
    m = ls.manifest
    subtitle = (
        f"{m.get('game', '?')}: {m.get('config_path', '?')}, rungs {' < '.join(ls.rungs)}; "
        f"{games_words(m)} (seed {m['seed']})"
    )
    return fill_sections(
        title=f"Skill ladder: {Path(os.path.abspath(ls.path)).name}",
        subtitle=subtitle,
        parts=parts,
        cdn=cdn,
        generated=generated,
    )


# ================================================================ in the main report


def headline_finding(ls: LadderStats, headline: tuple[str, str, str]) -> Any:
    """The ladder's finding of a config's headline (``report.headline``: win share of a place in
    the turn order, a chair, a side or a role), or None."""
    metric, kind, group = headline
    if metric != "win_share":
        return None
    key = (kind, str(int(group) + 1)) if kind in ("order", "seat") else (kind, str(group))
    return next((x for x in ls.findings if (x.axis, x.group) == key), None)


def report_rung(ls: LadderStats, manifest: dict[str, Any]) -> int | None:
    """The rung whose mirror is the run of ``manifest`` (a results manifest) but for its games:
    the same game, rules, seats and seat policies, so its value is the report's own; else
    None (another line-up, or another config than the ladder's)."""

    def key(m: dict[str, Any]) -> Any:
        c = m.get("config") or {}
        seats = list(c.get("seats") or [])
        policies = c.get("policies") or {}
        return (m.get("game"), c.get("rules"), seats, [policies.get(n) for n in seats])

    mine = key(manifest)
    return next((k for k, m in enumerate(ls.manifests) if key(m) == mine), None)


def skill_sentence(
    ls: LadderStats, headline: tuple[str, str, str], manifest: dict[str, Any] | None = None
) -> str | None:
    """The verdict's sentence on the headline across skill: at which skill its claim holds, and
    its value among the report's own players when a rung plays them (``manifest``: the
    report's run)."""
    found = headline_finding(ls, headline)
    if found is None:
        return None
    at = None if manifest is None else report_rung(ls, manifest)
    return f"Across skill ({' < '.join(ls.rungs)}): " + finding_sentence(found, ls.rungs, at)


def skill_section(page: Page, ls: LadderStats) -> str:
    """The main report's "Skill" section: the ladder's sentences, figures and tables."""
    return (
        headline(summary_sentences(ls))
        + f'<p class="note">From the ladder {escape(ls.path)} ({games_words(ls.manifest)}, '
        f"seed {ls.manifest['seed']}; its own page: <code>balance report "
        f"{escape(ls.path)}</code>).</p>"
        + page.figure(depth_figure(ls))
        + _depth_table(ls)
        + page.figure(findings_figure(ls))
        + _findings_table(ls)
        + (_matrix_section(page, ls) if ls.matrix is not None else "")
    )
