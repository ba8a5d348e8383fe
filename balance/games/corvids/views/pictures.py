"""Corvids replay pictures: the pile of one game drawn after set-up and after every turn.

``replay_page(compiled, seed, game)`` plays game ``game`` of the run seeded with ``seed`` as
``balance replay`` does (``narrate.play_logged``: the dataset's own game) and returns one
self-contained HTML page (the report's page shell, balance/report/template.py, with plotly.js
inlined, so it opens offline from a ``file://`` URL): a figure of the pile with a slider over
the pile after set-up (step 0) and after every turn (step t), and beside it what happened in
that turn in words (``narrate.tell``, split at its ``Turn N:`` lines; step 0 tells the set-up
and the birds, the last step ends with the scores).

A picture is drawn in millimetres on equal axes, with the mat's centre at the origin
(physics.py): the mat, its eight nest circles (numbered; a nest whose seat's bird has been
revealed by then, ``E_NEST``, is labelled with the bird and the seat), every card of the pile as
its rotated rectangle labelled with its number and the item it shows (``SN_FACE`` 1: the front,
``state.item[c, 0]``; 0: the back, ``item[c, 1]``, "blank" for a single-sided card's), filled
with that item's colour (``ITEM_COLOURS``, with a legend), and the feathers as small white discs.
Pieces are plotly shapes in increasing height (``SN_H``), so a higher piece covers a lower one.

``pile_figure(compiled, logged, t)`` draws one picture as a plotly figure (the report's starting
pile); ``pile_shapes`` gives the shapes of one snapshot, ``turn_words`` the words of every step.

Only the shapes change from step to step: each slider step relayouts ``shapes`` and
``annotations`` (the page's script updates the words on ``plotly_sliderchange``). Coordinates are
rounded to 0.1 mm, so that a 30-turn game adds about 150 kB to plotly.js's 4.8 MB.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from html import escape
from string import Template
from typing import Any

import numpy as np
import plotly.graph_objects as go

from balance.games._kit import Logged
from balance.games.corvids import narrate, physics
from balance.games.corvids import state as S
from balance.games.corvids.schema import ITEM_NAMES
from balance.games.corvids.tables import BLANK, Compiled
from balance.report import template

# A fixed colour per item (ColorBrewer Set3: light enough for black labels), the blank back of a
# single-sided card, and the feathers.
ITEM_COLOURS: dict[str, str] = {
    "acorn": "#fdb462",
    "earring": "#fccde5",
    "nut": "#bc80bd",
    "paperclip": "#80b1d3",
    "key": "#ffed6f",
    "button": "#b3de69",
    "string": "#8dd3c7",
    "ticket": "#fb8072",
    "coin": "#bebada",
    "blank": "#f7f7f7",
}
assert set(ITEM_COLOURS) == {*ITEM_NAMES, "blank"}
FEATHER_COLOUR = "#ffffff"
MAT_COLOUR = "#e9efe1"
NEST_COLOUR = "#7a6a55"
EDGE_COLOUR = "#3a3a3a"
LABEL_PX = 9  # card labels
MARGIN_MM = 12.0  # room around the mat

_TURN = re.compile(r"^Turn (\d+): ")


def up_name(item: np.ndarray, c: int, face: float) -> str:
    """The item card ``c`` shows with face ``face`` (1 front up, 0 back up): "blank" for the
    blank back of a single-sided card (tables.BLANK)."""
    i = int(item[c, 0] if face >= 0.5 else item[c, 1])
    return "blank" if i == BLANK else ITEM_NAMES[i]


def _plural(k: int, word: str) -> str:
    return f"{k} {word}" + ("" if k == 1 else "s")


def _r(x: float) -> float:
    return round(float(x), 1)


def _card_path(x: float, y: float, a: float, w: float, h: float) -> str:
    """SVG path of the ``w x h`` card centred at (x, y) turned by ``a`` (rad, counter-clockwise);
    the corners as physics.rect_corners orders them."""
    c, s = math.cos(a), math.sin(a)
    pts = []
    for lx, ly in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)):
        pts.append(f"{_r(x + c * lx - s * ly)},{_r(y + s * lx + c * ly)}")
    return "M" + "L".join(pts) + "Z"


def _text_angle(a: float) -> int:
    """Plotly's textangle (degrees clockwise) along the card's width, never upside down."""
    deg = -math.degrees(a) % 360.0
    if deg > 90.0:
        deg -= 180.0
    if deg > 90.0:
        deg -= 180.0
    return round(deg)


def pile_shapes(
    params: np.ndarray, item: np.ndarray, snap: np.ndarray, n_cards: int
) -> list[dict[str, Any]]:
    """The plotly shapes of the pile in ``snap`` (one snapshot, float64[pieces, N_SN]): every card
    and feather with ``SN_ON`` set, lowest first (``SN_H``), cards labelled ``#c item``."""
    w, h = float(params[physics.PH_CARD_W]), float(params[physics.PH_CARD_H])
    r = float(params[physics.PH_FEATHER_R])
    on = np.flatnonzero(snap[:, S.SN_ON] >= 0.5)
    order = on[np.argsort(snap[on, S.SN_H], kind="stable")]
    shapes: list[dict[str, Any]] = []
    for k in order:
        x, y, a = snap[k, S.SN_X], snap[k, S.SN_Y], snap[k, S.SN_A]
        if k < n_cards:
            name = up_name(item, int(k), snap[k, S.SN_FACE])
            shapes.append(
                {
                    "type": "path",
                    "path": _card_path(x, y, a, w, h),
                    "fillcolor": ITEM_COLOURS[name],
                    "label": {"text": f"#{k} {name}", "textangle": _text_angle(a)},
                }
            )
        else:
            shapes.append(
                {
                    "type": "circle",
                    "x0": _r(x - r),
                    "y0": _r(y - r),
                    "x1": _r(x + r),
                    "y1": _r(y + r),
                    "fillcolor": FEATHER_COLOUR,
                }
            )
    return shapes


def revealed_nests(compiled: Compiled, logged: Logged) -> list[dict[int, tuple[int, str]]]:
    """For the set-up (0) and after each turn t (t): nest -> (seat, bird) of every seat whose bird
    has been revealed by then (its nest uncovered, E_NEST events)."""
    out: list[dict[int, tuple[int, str]]] = [{} for _ in range(logged.turns + 1)]
    turn = 0
    for row in logged.log:
        code = int(row[0])
        if code == S.E_TURN:
            turn = int(row[2]) + 1
        elif code == S.E_NEST and turn <= logged.turns:
            seat, nest, bird = int(row[1]), int(row[2]), int(row[3])
            for t in range(turn, logged.turns + 1):
                out[t][nest] = (seat, compiled.bird_names[bird])
    return out


def nest_annotations(params: np.ndarray, revealed: dict[int, tuple[int, str]]) -> list[dict]:
    """A label beside each revealed nest (outwards from the mat's centre): bird and seat."""
    centres = physics.nest_centres(params)
    r = float(params[physics.PH_NEST_R])
    notes = []
    for nest in sorted(revealed):
        seat, bird = revealed[nest]
        x, y = centres[nest]
        up = y >= 0
        notes.append(
            {
                "x": _r(x),
                "y": _r(y + (r + 3) * (1 if up else -1)),
                "text": f"<b>{escape(bird)}</b> (seat {seat})",
                "showarrow": False,
                "yanchor": "bottom" if up else "top",
                "font": {"size": 11, "color": "#3b2f1e"},
                "bgcolor": "rgba(255,255,255,0.85)",
                "bordercolor": NEST_COLOUR,
                "borderwidth": 1,
                "borderpad": 2,
            }
        )
    return notes


def _static_traces(params: np.ndarray, items: list[str]) -> list[go.Scatter]:
    """The mat, the nest circles with their numbers, and the legend (one entry per item of this
    game's deck, then the feathers): traces under the pieces, which are shapes."""
    half_w, half_h = params[physics.PH_MAT_W] / 2, params[physics.PH_MAT_H] / 2
    mat = go.Scatter(
        x=[-half_w, half_w, half_w, -half_w, -half_w],
        y=[-half_h, -half_h, half_h, half_h, -half_h],
        mode="lines",
        fill="toself",
        fillcolor=MAT_COLOUR,
        line={"color": "#8a9a7a", "width": 1.5},
        hoverinfo="skip",
        showlegend=False,
        name="mat",
    )
    centres = physics.nest_centres(params)
    r = float(params[physics.PH_NEST_R])
    angles = np.linspace(0.0, 2 * math.pi, 37)
    xs: list[float | None] = []
    ys: list[float | None] = []
    for cx, cy in centres:
        xs += [_r(cx + r * math.cos(t)) for t in angles] + [None]
        ys += [_r(cy + r * math.sin(t)) for t in angles] + [None]
    nests = go.Scatter(
        x=xs,
        y=ys,
        mode="lines",
        line={"color": NEST_COLOUR, "width": 1.5, "dash": "dot"},
        hoverinfo="skip",
        showlegend=False,
        name="nests",
    )
    numbers = go.Scatter(
        x=[_r(x) for x in centres[:, 0]],
        y=[_r(y) for y in centres[:, 1]],
        mode="text",
        text=[f"nest {k}" for k in range(len(centres))],
        textfont={"size": 9, "color": NEST_COLOUR},
        hovertemplate="%{text}<extra></extra>",
        showlegend=False,
        name="nest numbers",
    )
    legend = [
        go.Scatter(
            x=[None],
            y=[None],
            mode="markers",
            marker={
                "symbol": "square",
                "size": 13,
                "color": ITEM_COLOURS[name],
                "line": {"color": EDGE_COLOUR, "width": 1},
            },
            name=name,
        )
        for name in items
    ]
    legend.append(
        go.Scatter(
            x=[None],
            y=[None],
            mode="markers",
            marker={
                "symbol": "circle",
                "size": 10,
                "color": FEATHER_COLOUR,
                "line": {"color": EDGE_COLOUR, "width": 1},
            },
            name="feather",
        )
    )
    return [mat, nests, numbers, *legend]


def deck_items(item: np.ndarray) -> list[str]:
    """The items on this game's cards (either side), in ITEM_NAMES order, then "blank" if a
    card is single-sided: the legend."""
    present = {int(i) for i in np.asarray(item).ravel()}
    names = [name for i, name in enumerate(ITEM_NAMES) if i in present]
    return names + (["blank"] if BLANK in present else [])


def _layout(params: np.ndarray, *, title: str, height: int) -> dict[str, Any]:
    half_w = float(params[physics.PH_MAT_W]) / 2 + MARGIN_MM
    half_h = float(params[physics.PH_MAT_H]) / 2 + MARGIN_MM
    axis = {
        "zeroline": False,
        "showgrid": False,
        "ticks": "outside",
        "showticklabels": True,
        "tickformat": "d",
        "automargin": True,
    }
    return {
        "title": {"text": title, "x": 0, "xanchor": "left"},
        "height": height,
        "margin": {"l": 60, "r": 20, "t": 70, "b": 110},
        "plot_bgcolor": "#ffffff",
        "paper_bgcolor": "#ffffff",
        "xaxis": {**axis, "range": [-half_w, half_w], "title": {"text": "x (mm)"}},
        "yaxis": {
            **axis,
            "range": [-half_h, half_h],
            "title": {"text": "y (mm)"},
            "scaleanchor": "x",
            "scaleratio": 1,
        },
        "legend": {
            "orientation": "h",
            "yref": "container",
            "y": 0.0,
            "yanchor": "bottom",
            "x": 0.0,
            "xanchor": "left",
            "itemclick": False,
            "itemdoubleclick": False,
        },
        "showlegend": True,
        "hovermode": "closest",
        # every shape's outline and label (pile_shapes leaves them out: they are the same for all)
        "template": {
            "layout": {
                "shapedefaults": {
                    "line": {"color": EDGE_COLOUR, "width": 1},
                    "opacity": 1,
                    "label": {"font": {"size": LABEL_PX, "color": "#111111"}},
                }
            }
        },
    }


def pile_counts(snap: np.ndarray, n_cards: int) -> tuple[int, int]:
    """(cards, feathers) in the pile of one snapshot."""
    on = snap[:, S.SN_ON] >= 0.5
    return int(on[:n_cards].sum()), int(on[n_cards:].sum())


def pile_figure(
    compiled: Compiled,
    logged: Logged,
    t: int = 0,
    *,
    title: str | None = None,
    height: int = 620,
) -> go.Figure:
    """The pile after set-up (``t`` = 0) or after turn ``t`` of a logged game, as one figure."""
    params = compiled.tb.physics
    st = logged.state
    nc = st.item.shape[0]
    snap = st.snap[t]
    cards, feathers = pile_counts(snap, nc)
    what = "after set-up" if t == 0 else f"after turn {t}"
    if title is None:
        title = f"The pile {what}: {cards} cards and {feathers} feathers"
    layout = _layout(params, title=title, height=height)
    layout["shapes"] = pile_shapes(params, st.item, snap, nc)
    layout["annotations"] = nest_annotations(params, revealed_nests(compiled, logged)[t])
    return go.Figure(data=_static_traces(params, deck_items(st.item)), layout=layout)


def turn_words(lines: list[str], turns: int) -> list[list[str]]:
    """``narrate.tell``'s lines split into the set-up (0) and each turn (t = 1..turns): a turn
    starts at its ``Turn t:`` line; what follows the last turn's events (the scores, the end,
    any warning) goes with the last step."""
    steps: list[list[str]] = [[] for _ in range(turns + 1)]
    t = 0
    for line in lines:
        m = _TURN.match(line)
        if m:
            t = min(int(m.group(1)), turns)
        steps[t].append(line)
    return steps


def replay_figure(
    compiled: Compiled, logged: Logged, seed: int, game: int, *, height: int = 720
) -> tuple[go.Figure, list[tuple[int, int]]]:
    """The pile after set-up and after every turn, one slider step each (step t relayouts the
    shapes and nest labels of snapshot t); and (cards, feathers) in the pile at each step."""
    params = compiled.tb.physics
    st = logged.state
    nc = st.item.shape[0]
    turns = logged.turns
    if st.snap.shape[0] < turns + 1:
        raise ValueError(f"the game kept {st.snap.shape[0]} snapshots for {turns} turns")
    revealed = revealed_nests(compiled, logged)
    steps = []
    counts = []
    for t in range(turns + 1):
        snap = st.snap[t]
        counts.append(pile_counts(snap, nc))
        steps.append(
            {
                "method": "relayout",
                "label": "set-up" if t == 0 else str(t),
                "value": str(t),
                "args": [
                    {
                        "shapes": pile_shapes(params, st.item, snap, nc),
                        "annotations": nest_annotations(params, revealed[t]),
                    }
                ],
            }
        )
    players = compiled.players
    title = (
        f"Corvids, game {game} of seed {seed}: {players} players, {turns} turns"
        '<br><span style="font-size:12px;color:#555">the pile in millimetres; cards labelled '
        "with their number and the item face up, higher cards over lower ones</span>"
    )
    layout = _layout(params, title=title, height=height)
    layout["margin"] = {"l": 60, "r": 20, "t": 80, "b": 170}
    layout["legend"] = {**layout["legend"], "y": 0.0}
    layout["shapes"] = steps[0]["args"][0]["shapes"]
    layout["annotations"] = steps[0]["args"][0]["annotations"]
    layout["sliders"] = [
        {
            "active": 0,
            "steps": steps,
            "currentvalue": {"prefix": "pile after turn: ", "font": {"size": 13}},
            "pad": {"t": 40, "b": 10},
            "len": 1.0,
            "x": 0.0,
            "y": 0.0,
            "yanchor": "top",
            "transition": {"duration": 0},
            "font": {"size": 9},
        }
    ]
    fig = go.Figure(data=_static_traces(params, deck_items(st.item)), layout=layout)
    return fig, counts


# ============================================================================ the page

CSS = """
.replay { display: flex; gap: 1.2rem; align-items: flex-start; }
.replay .figure { flex: 1 1 62%; min-width: 0; }
.replay aside { flex: 1 1 38%; max-height: 760px; overflow: auto; background: #fff;
                border: 1px solid var(--line); border-radius: 6px; padding: 0.6rem 0.9rem; }
.replay aside h2 { font-size: 1.1rem; margin: 0.2rem 0 0.1rem; }
.replay aside .pilecount { color: var(--muted); font-size: 0.9rem; margin: 0 0 0.5rem; }
.replay aside .line { white-space: pre-wrap; font: 0.86rem/1.45 ui-monospace, SFMono-Regular,
                      Menlo, Consolas, monospace; }
.replay .steps button { margin-right: 0.4rem; }
main { max-width: 1500px; }
"""

SCRIPT = """
(function () {
  "use strict";
  var div = document.getElementById("pile");
  var words = JSON.parse(document.getElementById("pile-words").textContent);
  var spec = JSON.parse(document.getElementById("pile-data").textContent);
  var steps = spec.layout.sliders[0].steps;
  var current = 0;
  function show(i) {
    current = i;
    var w = words[i];
    document.getElementById("turn-title").textContent = w.title;
    document.getElementById("turn-count").textContent = w.pile;
    var box = document.getElementById("turn-lines");
    box.textContent = "";
    w.lines.forEach(function (line) {
      var p = document.createElement("div");
      p.className = "line";
      p.textContent = line;
      box.appendChild(p);
    });
    div.setAttribute("data-step", String(i));
  }
  function go(i) {
    if (i < 0 || i >= steps.length || i === current) { return; }
    show(i);
    Plotly.relayout(div, Object.assign({}, steps[i].args[0], {"sliders[0].active": i}));
  }
  if (typeof Plotly === "undefined") {
    div.innerHTML = '<p class="failed">plotly.js did not load.</p>';
    return;
  }
  show(0);
  Plotly.newPlot(div, spec.data, spec.layout, {responsive: true, displaylogo: false})
    .then(function () {
      div.classList.add("js-plotly-rendered");
      div.on("plotly_sliderchange", function (e) { show(parseInt(e.step.value, 10)); });
    });
  document.getElementById("prev").addEventListener("click", function () { go(current - 1); });
  document.getElementById("next").addEventListener("click", function () { go(current + 1); });
  document.addEventListener("keydown", function (e) {
    if (e.key === "ArrowLeft") { go(current - 1); }
    if (e.key === "ArrowRight") { go(current + 1); }
  });
})();
"""

# The page's body, in the report's shell (balance/report/template.py); the words beside the
# figure are filled in by SCRIPT from the JSON below.
BODY = Template(
    """<div class="replay">
<div class="figure" id="pile"></div>
<aside>
<p class="steps"><button id="prev" type="button">&#9664; previous</button><button id="next"
type="button">next &#9654;</button> <span class="note">(or the slider, or the arrow keys)</span></p>
<h2 id="turn-title"></h2>
<p class="pilecount" id="turn-count"></p>
<div id="turn-lines"></div>
</aside>
</div>
<script type="application/json" id="pile-data">$figure</script>
<script type="application/json" id="pile-words">$words</script>"""
)


def _json(value: Any) -> str:
    """JSON for a ``<script type="application/json">``: never closes the script early."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/")


def replay_page(
    compiled: Compiled,
    seed: int,
    game: int,
    *,
    logged: Any = None,
    reasons: Sequence[str] = (),
) -> str:
    """Game ``game`` of the run seeded with ``seed`` as one self-contained HTML page: the pile
    after set-up and after every turn on a slider, and each turn's events in words beside it.
    ``logged``: the game already played (a search game's, balance/search.py); ``reasons``: what
    its search seats weighed, shown under the last turn."""
    if logged is None:
        logged = narrate.play_logged(compiled, seed, game)
    lines = narrate.tell(compiled, logged, seed, game).lines
    fig, counts = replay_figure(compiled, logged, seed, game)
    turns = logged.turns
    steps = turn_words(lines, turns)
    words = []
    for t, (step, (cards, feathers)) in enumerate(zip(steps, counts, strict=True)):
        if t == 0:
            head = "Set-up and birds"
        else:
            head = f"Turn {t} of {turns}" + (": the last turn and the scores" if t == turns else "")
        words.append(
            {
                "title": head,
                "pile": f"The pile {'after set-up' if t == 0 else f'after turn {t}'}: "
                f"{_plural(cards, 'card')} and {_plural(feathers, 'feather')}.",
                "lines": step,
            }
        )
    if reasons:
        words[-1]["lines"] = [*words[-1]["lines"], "", *reasons]
    title = f"Corvids replay: game {game} of seed {seed}"
    subtitle = (
        f"{compiled.players} players ({', '.join(compiled.seat_policies)}), {turns} turns. "
        "A designer's view: every seat's bird and every card's two sides are shown."
    )
    body = BODY.substitute(figure=fig.to_json().replace("</", "<\\/"), words=_json(words))
    return template.fill(
        title=title,
        subtitle=subtitle,
        nav="",
        body=body,
        cdn=False,
        generated=None,
        dated=False,
        css=CSS,
        script=SCRIPT,
    )
