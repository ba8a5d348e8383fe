"""The HTML building blocks of every report page: tables and their cell formats, figure slots,
headline lists, fact lists, a folded resolved config and the bot-play box.

sections.py (one dataset's sections), compare.py, sweep_page.py and a game's own sections
(``Game.report_sections``) build their pages from these. Every text that comes from data is
escaped here; numbers in cells are written with ``format`` specs (``fmt``) or balance/fmt.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape
from typing import Any, NamedTuple

import numpy as np
import plotly.graph_objects as go
import yaml

from balance import stats
from balance.fmt import finite
from balance.report.figures import POINTS
from balance.report.sentences import difference_label

SAME_CONFIGS = "<p>The two resolved configs are identical (apart from games and seed).</p>"

# ===================================================================================== tables


class Column(NamedTuple):
    header: str
    value: Callable[[dict[str, Any]], Any]
    fmt: Callable[[Any], str] = str
    numeric: bool = False
    tip: str = ""


def _num(x: Any) -> str:
    """A numeric cell's ``data-v``, which the page's script sorts on."""
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


def fmt(spec: str, scale: float = 1.0) -> Callable[[Any], str]:
    """A cell format: ``format(x, spec)``, '–' for no value; ``scale`` multiplies first
    (``fmt("+.2f", PTS)``: a difference of shares in percentage points, never "%")."""

    def cell(x: Any) -> str:
        if x is None or (isinstance(x, float) and not finite(x)):
            return "–"
        return format(x * scale if scale != 1.0 else x, spec)

    return cell


PTS = POINTS  # a difference of shares is printed in percentage points


def seats_cell(x: Any) -> str:
    """A group's seats: a count ('3'), or the mean per game of a team or role dealt per game
    ('2.96', never the float's repr '2.9579900000000003')."""
    if x is None or not finite(float(x)):
        return "–"
    return str(int(x)) if float(x).is_integer() else format(float(x), ".3g")


def pvalue(x: Any) -> str:
    if not finite(x):
        return "–"
    return "< 1e-300" if x == 0 else format(x, ".2g")  # 0: below what a double holds


def interval(
    lo_key: str, hi_key: str, spec: str = ".2%", scale: float = 1.0, unit: str = ""
) -> Column:
    def cell(r: Any) -> str:
        lo, hi = r
        if not (finite(lo) and finite(hi)):
            return "–"
        return f"[{format(lo * scale, spec)}, {format(hi * scale, spec)}]"

    header = "95 % interval" + (f" ({unit})" if unit else "")
    return Column(header, lambda r: (r[lo_key], r[hi_key]), cell)


def significant(r: dict[str, Any]) -> bool:
    """Rows marked red: their ``significant`` flag."""
    return bool(r.get("significant"))


# ============================================================================== page pieces


class Page:
    """Numbers the figures of one page (``fig-1``, ``fig-2``, ...) while its body is written."""

    def __init__(self) -> None:
        self.n_figures = 0

    def figure(self, fig: go.Figure, note: str = "") -> str:
        """A figure's slot: its div and its plotly JSON, which the page's script draws."""
        self.n_figures += 1
        fid = f"fig-{self.n_figures}"
        spec = fig.to_json().replace("</", "<\\/")  # never close the <script> early
        caption = f'<p class="note">{note}</p>' if note else ""
        return (
            f'<div class="figure" id="{fid}" data-figure></div>'
            f'<script type="application/json" id="{fid}-data">{spec}</script>{caption}'
        )


def headline(sentences: Sequence[str]) -> str:
    items = "".join(f"<li>{escape(s)}</li>" for s in sentences)
    return f'<ul class="headline">{items}</ul>'


def facts(items: Sequence[tuple[str, Any]]) -> str:
    """A provenance list: ``name: value`` pairs."""
    dl = "".join(f"<dt>{escape(k)}</dt><dd>{escape(str(v))}</dd>" for k, v in items)
    return f'<dl class="prov">{dl}</dl>'


def config_yaml(summary: str, config: dict[str, Any]) -> str:
    """A resolved config as YAML, folded under ``summary``."""
    text = yaml.safe_dump(config, sort_keys=False, allow_unicode=True)
    return f"<details><summary>{escape(summary)}</summary><pre>{escape(text)}</pre></details>"


def differences_columns(a_name: str = "baseline", b_name: str = "this run") -> list[Column]:
    """The columns of a long differences table (metric, kind, group, a, b, diff, lo, hi, ...)."""

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
        Column("group", lambda r: difference_label(r["kind"], r["group"])),
        Column(a_name, lambda r: r, lambda r: fmt_value(r, "a")),
        Column(b_name, lambda r: r, lambda r: fmt_value(r, "b")),
        Column("difference", lambda r: r, fmt_diff),
        Column("diff", lambda r: r["diff"], fmt("+.4f"), True, "for sorting"),
        Column("p", lambda r: r["p_value"], pvalue, True),
        Column("q", lambda r: r.get("q_value"), pvalue, True, stats.RULE),
    ]


BOT_CAVEAT = (
    "Every figure on this page describes games between these players, not between people. "
    "Weak or one-sided players can move a headline more than the cards do (the same Raven "
    "Manor rules give the Raven's side 91.6 % with basic players and 28.4 % with random "
    "ones), so read a verdict as what these bots do with these rules: how far it holds for "
    "skilled human play is not measured here."
)


def players_box(
    manifests: Sequence[dict[str, Any]],
    *,
    players: Sequence[tuple[str, str, str]] | None = None,
) -> str:
    """The bot-play box of a page made of the runs of ``manifests`` (a sweep's points, a
    compare's two configs): every policy of their line-ups in the game's words, with its seats
    when there is one line-up; ``players`` when already known (numbers.players_of)."""
    from balance.report.numbers import players_of

    if players is None:
        players = list(dict.fromkeys(p for m in manifests for p in players_of(m)))
    if not players:
        return ""
    seats = [str(p) for p in manifests[0].get("seats") or ()] if len(manifests) == 1 else []
    items = []
    for name, kind, words in players:
        where = [str(i) for i, p in enumerate(seats) if p == name]
        at = f", seat{'s' * (len(where) != 1)} {', '.join(where)}" if where else ""
        kind_text = f" ({kind})" if kind != name else ""
        items.append(
            f"<li><b>{escape(name)}</b>{escape(kind_text)}{escape(at)}: "
            f"{escape(words or 'a policy of this game')}</li>"
        )
    return (
        f'<div class="caveat"><p><b>Bot play.</b> {escape(BOT_CAVEAT)}</p>'
        f"<ul>{''.join(items)}</ul></div>"
    )
