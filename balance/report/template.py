"""The page shell of a report: one ``string.Template``, its CSS and its script (no jinja).

A Python module rather than a ``.html`` file so that it ships with the package without
package-data settings. ``fill`` puts a page's title, navigation and body (page.py, compare.py,
sweep_page.py, and a game's own pages: Corvids' replay pictures, games/corvids/views/pictures.py) in
it with plotly.js, inlined or as the CDN's tag (CSS and SCRIPT go in as values, so they need no
escaping).

Figures are ``<div class="figure" data-figure>`` followed by their plotly JSON in a
``<script type="application/json">``; the script draws each one and marks the div
``js-plotly-rendered`` once plotly has drawn it (the browser test waits for that mark). Tables
with class ``sortable`` sort on a click on their header: numerically on each cell's ``data-v``
when the column is numeric, empty values last, a second click reverses. The navigation sticks to
the top of the window, and a link's target stops just below it (``scroll-margin-top`` of the
navigation's measured height, ``--nav-h``), never under it.
"""

from __future__ import annotations

import base64
import hashlib
from datetime import UTC, datetime
from html import escape
from string import Template

import balance

CDN = "https://cdn.plot.ly/plotly-{version}.min.js"

CSS = """
:root { --ink: #1d2330; --muted: #5f6b7a; --line: #d9dee5; --bg: #f6f7f9; --accent: #1f77b4;
        --nav-h: 2.3rem; }
* { box-sizing: border-box; }
[id] { scroll-margin-top: calc(var(--nav-h) + 0.6rem); }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       color: var(--ink); background: var(--bg); }
header { background: #fff; border-bottom: 1px solid var(--line); padding: 1.2rem 2rem 0.6rem; }
header h1 { margin: 0 0 0.2rem; font-size: 1.6rem; }
header p { margin: 0; color: var(--muted); }
nav { position: sticky; top: 0; z-index: 10; background: #fff; border-bottom: 1px solid var(--line);
      padding: 0.4rem 2rem; font-size: 0.9rem; }
nav a { margin-right: 1.1rem; color: var(--accent); text-decoration: none; white-space: nowrap; }
main { max-width: 1180px; margin: 0 auto; padding: 1rem 2rem 3rem; }
section { background: #fff; border: 1px solid var(--line); border-radius: 6px;
          padding: 1rem 1.4rem; margin: 1.2rem 0; }
section section { border: none; padding: 0; margin: 1.6rem 0 0; }
h2 { margin-top: 0.2rem; font-size: 1.35rem; }
h3 { font-size: 1.1rem; border-bottom: 1px solid var(--line); padding-bottom: 0.2rem; }
.headline li { margin: 0.3rem 0; font-size: 1.02rem; }
.note { color: var(--muted); font-size: 0.9rem; }
.caveat { border-left: 4px solid #e0a800; background: #fff8e1; padding: 0.5rem 0.8rem;
          margin: 0.6rem 0; }
.figure { width: 100%; min-height: 200px; margin: 0.6rem 0; }
.figure .failed { color: #b00020; padding: 1rem; border: 1px dashed #b00020; }
table { border-collapse: collapse; margin: 0.6rem 0; font-size: 0.88rem;
        font-variant-numeric: tabular-nums; }
th, td { padding: 0.25rem 0.6rem; border-bottom: 1px solid var(--line); text-align: right; }
td { white-space: nowrap; }
td.text { white-space: normal; }
th { background: #eef1f5; position: sticky; top: var(--nav-h); }
th:first-child, td:first-child, td.text, th.text { text-align: left; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th::after { content: " \\2195"; color: #a0a8b3; }
table.sortable th[aria-sort="ascending"]::after { content: " \\2191"; color: var(--ink); }
table.sortable th[aria-sort="descending"]::after { content: " \\2193"; color: var(--ink); }
tr.sig td { background: #fdecea; }
.scroll { max-height: 34rem; overflow: auto; border: 1px solid var(--line); }
.scroll table { margin: 0; }
.scroll th { top: 0; }
dl.prov { display: grid; grid-template-columns: max-content 1fr; gap: 0.15rem 1.2rem; margin: 0.4rem 0; }
dl.prov dt { color: var(--muted); }
dl.prov dd { margin: 0; }
pre { background: #f3f5f8; border: 1px solid var(--line); padding: 0.6rem; overflow: auto;
      max-height: 30rem; font-size: 0.82rem; }
footer { color: var(--muted); font-size: 0.85rem; text-align: center; padding: 1rem; }
"""

SCRIPT = """
(function () {
  "use strict";
  function drawFigures() {
    var divs = document.querySelectorAll("div[data-figure]");
    divs.forEach(function (div) {
      var data = document.getElementById(div.id + "-data");
      if (typeof Plotly === "undefined") {
        div.innerHTML = '<p class="failed">plotly.js did not load: this report references the ' +
          'plotly CDN (made with --cdn) and the network is unavailable. Rebuild it without ' +
          '--cdn for a file that opens offline.</p>';
        return;
      }
      var spec = JSON.parse(data.textContent);
      var config = {responsive: true, displaylogo: false};
      Plotly.newPlot(div, spec.data, spec.layout, config).then(function () {
        div.classList.add("js-plotly-rendered");
      });
    });
  }

  function cellValue(row, col, numeric) {
    var cell = row.cells[col];
    var raw = cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent;
    if (!numeric) { return raw.trim().toLowerCase(); }
    var x = parseFloat(raw);
    return isNaN(x) ? null : x;
  }

  function sortTable(table, th, col) {
    var numeric = th.getAttribute("data-type") === "num";
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var keyed = rows.map(function (row, i) {
      return {row: row, key: cellValue(row, col, numeric), i: i};
    });
    keyed.sort(function (a, b) {
      if (a.key === null || b.key === null) {  // empty values last, whatever the direction
        return (a.key === null) - (b.key === null) || a.i - b.i;
      }
      var c = a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
      return (ascending ? c : -c) || a.i - b.i;
    });
    keyed.forEach(function (k) { body.appendChild(k.row); });
  }

  function makeSortable() {
    document.querySelectorAll("table.sortable").forEach(function (table) {
      table.querySelectorAll("thead th").forEach(function (th, col) {
        th.setAttribute("title", "click to sort");
        th.addEventListener("click", function () { sortTable(table, th, col); });
      });
    });
  }

  // The sticky navigation covers the top of the window: a link's target scrolls to just
  // below it (CSS scroll-margin-top), however many lines the navigation wraps to.
  function measureNav() {
    var nav = document.querySelector("nav");
    if (nav) {
      document.documentElement.style.setProperty("--nav-h", nav.offsetHeight + "px");
    }
  }

  measureNav();
  window.addEventListener("resize", measureNav);
  makeSortable();
  drawFigures();
})();
"""

PAGE = Template(
    """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="balance $version">
<title>$title</title>
<link rel="icon" href="data:,">
<style>$css</style>
<script>window.PlotlyConfig = {MathJaxConfig: "local"};</script>
$plotly
</head>
<body>
<header>
<h1>$title</h1>
<p>$subtitle</p>
</header>
$nav
<main>
$body
</main>
<footer>Made by balance $version$generated. $plotly_note</footer>
<script>$script</script>
</body>
</html>
"""
)


def plotly_script(cdn: bool) -> tuple[str, str]:
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
        tag = (
            f'<script charset="utf-8" src="{CDN.format(version=version)}" integrity="{sri}" '
            'crossorigin="anonymous"></script>'
        )
        note = f"Figures need plotly.js {version} from the CDN (this file was made with --cdn)."
    else:
        tag = f'<script charset="utf-8">{plotly.offline.get_plotlyjs()}</script>'
        note = "plotly.js is inlined: this file opens offline."
    return tag, note


def fill(
    *,
    title: str,
    subtitle: str,
    nav: str,
    body: str,
    cdn: bool,
    generated: str | None,
    dated: bool = True,
    css: str = "",
    script: str = "",
) -> str:
    """The page: ``title`` and ``subtitle`` are text (escaped here), ``nav`` and ``body`` HTML
    (no navigation bar when ``nav`` is empty); ``generated`` defaults to now, and ``dated=False``
    leaves the date out (a page that must be the same whenever it is made: a game's replay
    pictures). ``css`` and ``script`` are a page's own, added after the shell's."""
    tag, note = plotly_script(cdn)
    when = generated or datetime.now(UTC).isoformat(timespec="seconds")
    return PAGE.substitute(
        title=escape(title),
        subtitle=escape(subtitle),
        version=escape(balance.__version__),
        css=CSS + css,
        plotly=tag,
        plotly_note=escape(note),
        nav=f"<nav>{nav}</nav>" if nav else "",
        body=body,
        generated=f" on {escape(when)}" if dated else "",
        script=SCRIPT + script,
    )


def fill_sections(
    *,
    title: str,
    subtitle: str,
    parts: list[tuple[str, str, str]],
    cdn: bool,
    generated: str | None,
) -> str:
    """:func:`fill` of a page that is a list of sections ``(id, heading, html)``, in order,
    each linked from the navigation (the compare and sweep pages)."""
    return fill(
        title=title,
        subtitle=subtitle,
        nav=" ".join(f'<a href="#{key}">{escape(name.lower())}</a>' for key, name, _ in parts),
        body="\n".join(
            f'<section id="{key}"><h2>{escape(name)}</h2>{html}</section>'
            for key, name, html in parts
        ),
        cdn=cdn,
        generated=generated,
    )
