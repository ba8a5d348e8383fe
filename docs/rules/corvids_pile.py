"""Draw the Corvids pile after set-up as an SVG picture for docs/rules/corvids.md.

Plays the set-up of game 0 of ``configs/corvids/base.yaml`` (its seed) through the engine
(``engine.setup``: the sides drawn, the stack order shuffled, the cards scattered onto the mat
and pushed over the nests the scatter left bare until every nest is completely covered, the
feathers dropped, the birds dealt) and writes
``docs/rules/corvids-pile.svg``: the mat, the eight nests labelled with their bird (and the seat
it was dealt to), the cards as turned rectangles drawn lowest first, each coloured and labelled by
the item it shows, and the feathers as discs. Plain string building, no dependency beyond the
project's own.

Run from the repository's root::

    python docs/rules/corvids_pile.py [CONFIG] [--game I] [--out FILE]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from balance.config import load_config
from balance.games.corvids import engine, physics, state, tables
from balance.games.corvids.schema import ITEM_NAMES

ROOT = Path(__file__).resolve().parents[2]
MARGIN = 12.0  # mm around the mat
LEGEND_H = 40.0  # mm below the mat for the legend
TITLE_H = 14.0  # mm above the mat for the title

# one colour per item (tables' item order) and the blank back of a single-sided card: the colours
# of the replay's pictures (balance/games/corvids/pictures.py, ColorBrewer Set3)
COLOURS = {
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


def f(x: float) -> str:
    """A coordinate, rounded to 0.1 mm (so that the file is the same on every machine)."""
    s = f"{x:.1f}"
    return "0.0" if s == "-0.0" else s


def pile_svg(config_path: Path, game: int) -> str:
    config = load_config(config_path)
    compiled = tables.compile_tables(config)
    tb = compiled.tb
    st = state.alloc_replay_state(tb, 0)
    ib = state.alloc_work(tb).ib
    ok = engine.setup(tb, st, np.int64(config.seed), np.int64(game), ib)
    ph = tb.physics
    w, h = ph[physics.PH_MAT_W], ph[physics.PH_MAT_H]
    cw, ch = ph[physics.PH_CARD_W], ph[physics.PH_CARD_H]
    fr, nr = ph[physics.PH_FEATHER_R], ph[physics.PH_NEST_R]
    width = w + 2 * MARGIN
    height = TITLE_H + h + 2 * MARGIN + LEGEND_H

    def sx(x: float) -> float:  # mat x (mm, centred) to picture x
        return MARGIN + w / 2 + x

    def sy(y: float) -> float:  # mat y (mm, centred, up) to picture y (down)
        return TITLE_H + MARGIN + h / 2 - y

    pile = st.pile
    nc = pile.cards.shape[0]
    nf = pile.feathers.shape[0]
    n = compiled.players
    seat_of_bird = {int(st.pl[p, state.PL_BIRD]): p for p in range(n)}
    path = config_path.resolve()
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else config_path
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {f(width)} {f(height)}" '
        f'width="{f(width * 1.6)}" height="{f(height * 1.6)}" '
        'font-family="DejaVu Sans, Helvetica, Arial, sans-serif">',
        f"<title>Corvids: the pile after set-up, game {game} of {rel} (seed {config.seed})</title>",
        f'<rect x="0" y="0" width="{f(width)}" height="{f(height)}" fill="#ffffff"/>',
        f'<text x="{f(MARGIN)}" y="{f(TITLE_H - 3)}" font-size="8">Corvids, game {game} of '
        f"{rel} (seed {config.seed}): the pile after set-up"
        f"{'' if ok else ' (set-up failed)'} (scattered {int(st.board[state.G_RETRIES]) + 1} "
        f"{'time' if int(st.board[state.G_RETRIES]) == 0 else 'times'}, "
        f"{int(st.board[state.G_PUSHES])} cards pushed over bare nests)</text>",
        # the mat
        f'<rect x="{f(sx(-w / 2))}" y="{f(sy(h / 2))}" width="{f(w)}" height="{f(h)}" '
        'fill="#d8cfae" stroke="#6b5f3a" stroke-width="1"/>',
    ]
    # the nests, under the cards (the pile covers them all after set-up)
    centres = physics.nest_centres(ph)
    for k in range(physics.N_NESTS):
        x, y = centres[k]
        out.append(
            f'<circle cx="{f(sx(x))}" cy="{f(sy(y))}" r="{f(nr)}" fill="#b9ad82" '
            'stroke="#6b5f3a" stroke-width="0.8"/>'
        )
    # every piece, lowest first (cards and feathers by height: the stack order)
    pieces = [
        (pile.cards[c, physics.CD_H], 0, c) for c in range(nc) if pile.cst[c, physics.CS_ON] == 1
    ]
    pieces += [
        (pile.feathers[g, physics.FT_H], 1, g) for g in range(nf) if pile.fst[g, physics.FS_ON] == 1
    ]
    for _, kind, i in sorted(pieces):
        if kind == 0:
            up = 1 if pile.cst[i, physics.CS_FACE] == 1 else 0
            shown = int(st.item[i, 0] if up else st.item[i, 1])
            name = "blank" if shown == tables.BLANK else ITEM_NAMES[shown]
            deg = -math.degrees(pile.cards[i, physics.CD_A])  # the picture's y points down
            # the label turned with the card, but never upside down
            flip = ' transform="rotate(180)"' if 90.0 < (-deg) % 360.0 < 270.0 else ""
            x, y = pile.cards[i, physics.CD_X], pile.cards[i, physics.CD_Y]
            out.append(
                f'<g transform="translate({f(sx(x))} {f(sy(y))}) rotate({f(deg)})">'
                f'<rect x="{f(-cw / 2)}" y="{f(-ch / 2)}" width="{f(cw)}" height="{f(ch)}" '
                f'rx="3" fill="{COLOURS[name]}" stroke="#333333" stroke-width="0.6"/>'
                f"<g{flip}>"
                f'<text x="0" y="3" font-size="8.5" text-anchor="middle" fill="#222222">'
                f"{name}</text>"
                f'<text x="0" y="{f(ch / 2 - 5)}" font-size="5" text-anchor="middle" '
                f'fill="#555555">#{i}</text></g></g>'
            )
        else:
            x, y = pile.feathers[i, physics.FT_X], pile.feathers[i, physics.FT_Y]
            out.append(
                f'<circle cx="{f(sx(x))}" cy="{f(sy(y))}" r="{f(fr)}" fill="#3b3f5c" '
                'fill-opacity="0.9" stroke="#ffffff" stroke-width="0.8"/>'
            )
    # the nests' outlines and birds on top, so that they show through the pile
    for k in range(physics.N_NESTS):
        x, y = centres[k]
        out.append(
            f'<circle cx="{f(sx(x))}" cy="{f(sy(y))}" r="{f(nr)}" fill="none" '
            'stroke="#7a2e12" stroke-width="1" stroke-dasharray="3 2"/>'
        )
        b = int(tb.params[tables.P_NEST_BIRD + k])
        label = f"nest {k}" if b < 0 else compiled.bird_names[b]
        if b in seat_of_bird:
            label += f" (seat {seat_of_bird[b]})"
        ly = sy(y) - nr - 3 if y >= 0 else sy(y) + nr + 8
        out.append(
            f'<text x="{f(sx(x))}" y="{f(ly)}" font-size="7" text-anchor="middle" '
            'fill="#7a2e12" stroke="#ffffff" stroke-width="2" paint-order="stroke">'
            f"{label}</text>"
        )
    # the legend
    y0 = TITLE_H + h + 2 * MARGIN
    for j, (name, colour) in enumerate(COLOURS.items()):
        x0 = MARGIN + (j % 5) * 110
        y = y0 + (j // 5) * 11
        text = "blank back" if name == "blank" else name
        out.append(
            f'<rect x="{f(x0)}" y="{f(y)}" width="12" height="8" fill="{colour}" '
            f'stroke="#333333" stroke-width="0.5"/><text x="{f(x0 + 15)}" y="{f(y + 7)}" '
            f'font-size="7">{text}</text>'
        )
    x0 = MARGIN
    y = y0 + 22
    out.append(
        f'<circle cx="{f(x0 + 6)}" cy="{f(y + 4)}" r="4" fill="#3b3f5c"/>'
        f'<text x="{f(x0 + 15)}" y="{f(y + 7)}" font-size="7">feather</text>'
        f'<circle cx="{f(x0 + 116)}" cy="{f(y + 4)}" r="4" fill="none" stroke="#7a2e12" '
        f'stroke-dasharray="2 1"/><text x="{f(x0 + 125)}" y="{f(y + 7)}" font-size="7">'
        "a nest (its circle, drawn through the pile) and its bird; #n: the card's row</text>"
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config", nargs="?", default=str(ROOT / "configs/corvids/base.yaml"))
    ap.add_argument("--game", type=int, default=0)
    ap.add_argument("--out", default=str(ROOT / "docs/rules/corvids-pile.svg"))
    args = ap.parse_args()
    Path(args.out).write_text(pile_svg(Path(args.config), args.game))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
