"""The page ``balance watch`` serves, and the same figures in words for its terminal.

One self-contained HTML page (no file or script from elsewhere): it reads the snapshot of
balance/live.py from ``/state``, then each new one from the server-sent events of ``/events``,
and redraws. Each interval is drawn as a bar on a scale that holds 0, so a reader sees it shrink
as the games accumulate. Before a session's stopping rule is met, the verdicts and stars are
greyed and marked "so far" (balance/live.py says why); at the stop they are the claims.
"""

from __future__ import annotations

import math
from typing import Any

from balance.fmt import estimate, points


def _value(metric: str, x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x * 100:.1f} %" if metric == "win_share" else f"{x:.3f}"


def headline_text(snap: dict[str, Any]) -> str:
    """'win share of the 1st player 27.8 % [27.5, 28.1]', 'game length (turns) 81.8 [81.6, 82.0]'."""
    h = snap["headline"]
    if h["label"].startswith("win share"):
        return f"{h['label']} {estimate(h['value'], h['lo'], h['hi'], 100, ' %')}"
    return f"{h['label']} {estimate(h['value'], h['lo'], h['hi'])}"


def row_text(r: dict[str, Any]) -> str:
    """A change B - A with its interval: '+0.3 points [−0.1, +0.7]' or '+0.120 [+0.05, +0.19]'."""
    if r["diff"] is None:
        return "n/a"
    if r["metric"] == "win_share":
        return points(r["diff"], r["lo"], r["hi"])
    lo = "n/a" if r["lo"] is None else f"{r['lo']:+.3f}"
    hi = "n/a" if r["hi"] is None else f"{r['hi']:+.3f}"
    return f"{r['diff']:+.3f} [{lo}, {hi}]".replace("-", "−")


def page() -> str:
    """The whole page."""
    return _PAGE


_PAGE = r"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>balance watch</title>
<link rel="icon" href="data:,">
<style>
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:12px 24px;display:flex;gap:18px;align-items:baseline;flex-wrap:wrap}
header h1{font-size:18px;margin:0}
main{max-width:1100px;margin:0 auto;padding:16px 24px 40px}
section{background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:14px 18px;margin:14px 0}
h2{font-size:16px;margin:0 0 8px}
.pill{display:inline-block;padding:1px 9px;border-radius:10px;font-size:13px;font-weight:600}
.st-playing,.st-loading,.st-starting{background:#fff3cd;color:#7a5a00}
.st-done{background:#d9f2e3;color:#135c32}.st-error{background:#fde2e1;color:#8a1c14}
#error{display:none;background:#fde2e1;border:1px solid #f3a49f;color:#8a1c14;padding:10px 14px;border-radius:8px;margin-top:14px;font-weight:600}
#message{display:none;background:#e7f0fd;border:1px solid #a9c6f5;padding:10px 14px;border-radius:8px;margin-top:14px}
.big{font-size:28px;font-weight:700}
.muted{color:#667085}.provisional{color:#8a93a3;font-style:italic}
table{border-collapse:collapse;width:100%}td,th{padding:4px 8px;border-bottom:1px solid #eef0f4;text-align:right;white-space:nowrap}
td:first-child,th:first-child{text-align:left;white-space:normal}
tr.head td{font-weight:700}
.v-within{color:#135c32}.v-outside{color:#8a1c14}.v-undetermined{color:#7a5a00}
.bar{width:220px}
.meter{height:6px;background:#eef0f4;border-radius:3px;overflow:hidden;margin-top:6px}.meter>div{height:6px;background:#3b6fd8}
ul.axes{padding-left:18px;margin:0}ul.axes li{margin:6px 0}
footer{font-size:13px;color:#667085;max-width:1100px;margin:0 auto;padding:0 24px 30px}
</style></head>
<body>
<header><h1>balance watch</h1><span id="config"></span><span id="status" class="pill"></span>
<span id="version"></span><span id="lineup"></span></header>
<main>
<div id="error" role="alert"></div>
<div id="message"></div>
<section><h2>Headline</h2>
<div><span id="headline-label" class="muted"></span></div>
<div><span id="headline-value" class="big">waiting for the first games…</span>
 <span id="headline-interval" class="muted"></span></div>
<div id="progress" class="muted"></div><div class="meter"><div id="meter" style="width:0"></div></div>
</section>
<section><h2>Change <span id="against" class="muted"></span></h2>
<p id="change-headline" class="big"></p>
<div id="change-note" class="muted"></div>
<table id="change"><thead><tr><th>row</th><th>A</th><th>B</th><th>B − A</th><th>interval</th><th class="bar"></th><th>q</th><th></th></tr></thead><tbody></tbody></table>
</section>
<section><h2>Verdict on every axis</h2><ul id="axes" class="axes"></ul></section>
<section><h2>Versions this session</h2>
<table id="history"><thead><tr><th>version</th><th>games</th><th>headline</th><th>change of the headline</th></tr></thead><tbody></tbody></table>
</section>
</main>
<footer id="how"></footer>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]));
const minus = (s) => s.replace(/-/g, "\u2212");
function val(metric, x) {
  if (x === null || x === undefined || !isFinite(x)) return "n/a";
  return metric === "win_share" ? (x * 100).toFixed(1) + " %" : x.toFixed(3);
}
function diff(metric, x) {
  if (x === null || x === undefined || !isFinite(x)) return "n/a";
  const s = (x >= 0 ? "+" : "") + (metric === "win_share" ? (x * 100).toFixed(1) : x.toFixed(3));
  return minus(s) + (metric === "win_share" ? " points" : "");
}
function iv(metric, lo, hi) {
  const f = (x) => x === null ? "n/a" : minus((x >= 0 ? "+" : "") + (metric === "win_share" ? (x * 100).toFixed(1) : x.toFixed(3)));
  return "[" + f(lo) + ", " + f(hi) + "]";
}
function bar(lo, hi, span) {
  if (lo === null || hi === null || !(span > 0)) return "";
  const x = (v) => 110 + 100 * v / span;
  return '<svg width="220" height="14" aria-hidden="true"><line x1="110" y1="0" x2="110" y2="14" stroke="#98a2b3"/>' +
    '<rect x="' + x(lo).toFixed(1) + '" y="4" width="' + Math.max(1.5, x(hi) - x(lo)).toFixed(1) + '" height="6" fill="#3b6fd8"/></svg>';
}
function metricOf(label) { return label.startsWith("win share") ? "win_share" : "other"; }
function render(s) {
  $("config").textContent = s.config || "";
  const st = s.error && !s.games ? "error" : (s.status || "starting");
  $("status").className = "pill st-" + st;
  $("status").textContent = st === "done" ? "final" : st;
  $("version").textContent = s.version_label ? s.version_label + " (saved " + s.saved + ")" : "";
  $("lineup").textContent = s.lineup ? s.game + ", " + s.players + " players: " + s.lineup : "";
  $("error").style.display = s.error ? "block" : "none";
  $("error").textContent = s.error ? "Error in the last save: " + s.error + " \u2014 the figures below are the last good version's." : "";
  $("message").style.display = s.message ? "block" : "none";
  $("message").textContent = s.message ? s.message + " \u2014 a value edit never needs this; a new game or policy may." : "";
  const prov = !s.final;
  if (s.headline) {
    const m = metricOf(s.headline.label);
    $("headline-label").textContent = s.headline.label + " (" + (s.lineup || "") + ")";
    $("headline-value").textContent = val(m, s.headline.value);
    $("headline-interval").textContent = iv(m, s.headline.lo, s.headline.hi).replace(/\+/g, "") + " 95 % t-interval over games";
    $("progress").textContent = s.games.toLocaleString("en") + " of at most " + s.budget.toLocaleString("en") +
      " games (" + (s.games_per_s || 0).toLocaleString("en") + (s.change ? " paired" : "") + " games/s); stops when the headline's half-width is at most " +
      val(m, s.half_width_target).replace(" %", "") + (m === "win_share" ? " points" : "") + " or at the budget" +
      (s.final ? ": stopped, the figures are final." : ": figures so far (a preview).");
    $("meter").style.width = Math.min(100, 100 * s.games / s.budget) + "%";
  }
  const c = s.change;
  const tbody = $("change").querySelector("tbody");
  if (c && c.rows) {
    $("against").textContent = "B = " + (s.version_label || "") + " against A = " + c.against + ", " + c.games.toLocaleString("en") + " paired games (same seeds)";
    const h = c.rows.find((r) => r.headline);
    $("change-headline").innerHTML = h ? esc(h.label) + ": " + esc(diff(h.metric, h.diff)) + ' <span class="muted">' + esc(iv(h.metric, h.lo, h.hi)) + "</span>" +
      (h.significant && !prov ? " *" : "") : "";
    $("change-headline").className = "big" + (prov ? " provisional" : "");
    const spans = {};  // one scale per metric, holding 0 and every interval of it
    for (const r of c.rows) if (r.lo !== null && r.hi !== null) spans[r.metric] = Math.max(spans[r.metric] || 1e-9, Math.abs(r.lo), Math.abs(r.hi));
    tbody.innerHTML = c.rows.map((r) => {
      const span = spans[r.metric];
      return '<tr class="' + (r.headline ? "head" : "") + (prov ? " provisional" : "") + '"><td>' + esc(r.label) + "</td><td>" + esc(val(r.metric, r.a)) +
        "</td><td>" + esc(val(r.metric, r.b)) + "</td><td>" + esc(diff(r.metric, r.diff)) + "</td><td>" + esc(iv(r.metric, r.lo, r.hi)) +
        '</td><td class="bar">' + bar(r.lo, r.hi, span) + "</td><td>" + (r.q === null ? "\u2013" : r.q < 0.001 ? "&lt;0.001" : r.q.toFixed(3)) +
        "</td><td>" + (r.significant && !prov ? "*" : "") + "</td></tr>";
    }).join("");
    $("change-note").textContent = (prov ? "So far: no star before the stop. " : "") +
      "B \u2212 A per game, 95 % t-intervals over games; q: the one significance rule (Benjamini\u2013Hochberg within each metric, times the number of metrics); * q < 0.05.";
  } else {
    $("against").textContent = "";
    $("change-headline").textContent = "";
    $("change-note").textContent = s.games ? "The first version: save the config again (or start with --against BASE) to see the paired change." : "";
    tbody.innerHTML = "";
  }
  $("axes").innerHTML = (s.axes || []).map((a) =>
    '<li class="' + (prov ? "provisional" : "") + '"><b class="v-' + esc(a.verdict) + '">' + (prov ? "so far: " : "") + esc(a.verdict) + "</b> \u2014 " + esc(a.sentence) + "</li>").join("");
  $("history").querySelector("tbody").innerHTML = (s.history || []).map((h) => {
    const m = metricOf(h.headline.label);
    return "<tr><td>" + esc(h.version) + "</td><td>" + h.games.toLocaleString("en") + "</td><td>" + esc(val(m, h.headline.value) + " " + iv(m, h.headline.lo, h.headline.hi).replace(/\+/g, "")) +
      "</td><td>" + (h.change ? esc(diff(h.change.metric, h.change.diff) + " " + iv(h.change.metric, h.change.lo, h.change.hi)) + (h.change.significant ? " *" : "") : "\u2013") + "</td></tr>";
  }).join("");
  $("how").textContent = "Players: " + (s.lineup || "") + ". Every figure is from games between these policies, game 0 onwards on seed " + (s.seed ?? "") +
    ". The stopping rule (the headline's half-width or the game budget) is fixed before the games and never looks at a difference, so the final intervals keep their level; figures before the stop are a preview.";
  document.body.dataset.rev = s.rev;
  document.body.dataset.final = s.final ? "1" : "0";
}
fetch("state").then((r) => r.json()).then(render).catch(() => {});
const source = new EventSource("events");
source.onmessage = (e) => render(JSON.parse(e.data));
</script>
</body></html>
"""
