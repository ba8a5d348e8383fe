"""Corvids replay pictures (balance/games/corvids/views/pictures.py) and ``balance replay --html``: the
page holds the pile after set-up and after every turn on a slider, each step draws exactly the
pieces of that snapshot (height order, labelled and coloured by the item face up), the nests of
revealed birds are labelled from the turn their nest was uncovered, each step has that turn's
words, plotly.js is inlined once; the CLI writes the page atomically and says so in one line for
a game without pictures or a file it cannot write."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from balance import runner
from balance.cli import app
from balance.config import load_config
from balance.games.corvids import PLUGIN, narrate
from balance.games.corvids import state as S
from balance.games.corvids.schema import ITEM_NAMES
from balance.games.corvids.tables import BLANK
from balance.games.corvids.views import pictures

ROOT = Path(__file__).resolve().parents[3]
CONFIG = ROOT / "configs" / "corvids" / "base.yaml"
FIVE_RAVENS = ROOT / "configs" / "five_ravens" / "base.yaml"
SEED, GAME = 1, 0


@pytest.fixture(scope="module")
def compiled():
    return PLUGIN.compile(load_config(CONFIG))


@pytest.fixture(scope="module")
def logged(compiled):
    return narrate.play_logged(compiled, SEED, GAME)


@pytest.fixture(scope="module")
def page(compiled) -> str:
    return pictures.replay_page(compiled, SEED, GAME)


def _script(page: str, sid: str):
    m = re.search(rf'<script type="application/json" id="{sid}">(.*?)</script>', page, re.S)
    assert m, sid
    return json.loads(m.group(1))


@pytest.fixture(scope="module")
def spec(page):
    return _script(page, "pile-data")


@pytest.fixture(scope="module")
def steps(spec):
    (slider,) = spec["layout"]["sliders"]
    return slider["steps"]


@pytest.fixture(scope="module")
def words(page):
    return _script(page, "pile-words")


def _cli(*args: object):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert not result.exception or isinstance(result.exception, SystemExit), result.exception
    return result


# ------------------------------------------------------------------------------ the figure


def test_the_slider_has_a_step_for_the_set_up_and_every_turn(logged, steps, spec):
    turns = logged.turns
    assert turns > 5
    assert [s["value"] for s in steps] == [str(t) for t in range(turns + 1)]
    assert steps[0]["label"] == "set-up" and steps[-1]["label"] == str(turns)
    assert {s["method"] for s in steps} == {"relayout"}
    # the figure opens on the set-up
    assert spec["layout"]["sliders"][0]["active"] == 0
    assert spec["layout"]["shapes"] == steps[0]["args"][0]["shapes"]
    # equal axes, in millimetres
    assert spec["layout"]["yaxis"]["scaleanchor"] == "x"
    assert spec["layout"]["yaxis"]["scaleratio"] == 1


def _cards_and_feathers(shapes):
    cards = [s for s in shapes if s["type"] == "path"]
    feathers = [s for s in shapes if s["type"] == "circle"]
    assert len(cards) + len(feathers) == len(shapes)
    return cards, feathers


def test_each_step_draws_exactly_the_pieces_in_that_snapshot(logged, steps):
    st = logged.state
    nc = st.item.shape[0]
    assert st.snap.shape[0] >= logged.turns + 1
    counts = []
    for t, step in enumerate(steps):
        snap = st.snap[t]
        on = snap[:, S.SN_ON] == 1
        cards, feathers = _cards_and_feathers(step["args"][0]["shapes"])
        assert len(cards) == on[:nc].sum(), t
        assert len(feathers) == on[nc:].sum(), t
        counts.append(len(cards))
    assert counts[0] == nc and counts[-1] == 0  # every card at set-up; none once the game ends
    assert len(set(counts)) > 3  # the pile shrinks turn by turn


def test_pieces_are_drawn_lowest_first_labelled_and_coloured_by_the_item_face_up(logged, steps):
    st = logged.state
    nc = st.item.shape[0]
    seen_back = seen_blank = False
    for t in (0, len(steps) // 2):
        snap = st.snap[t]
        on = np.flatnonzero(snap[:, S.SN_ON] == 1)
        by_height = on[np.argsort(snap[on, S.SN_H], kind="stable")]
        shapes = steps[t]["args"][0]["shapes"]
        assert [s["type"] == "path" for s in shapes] == [k < nc for k in by_height]
        for k, shape in zip(by_height, shapes, strict=True):
            if k >= nc:
                assert shape["fillcolor"] == pictures.FEATHER_COLOUR
                continue
            face = int(snap[k, S.SN_FACE])
            i = int(st.item[k, 0] if face == 1 else st.item[k, 1])
            name = "blank" if i == BLANK else ITEM_NAMES[i]
            assert shape["label"]["text"] == f"#{k} {name}"
            assert shape["fillcolor"] == pictures.ITEM_COLOURS[name]
            seen_back |= face == 0 and i != BLANK
            seen_blank |= i == BLANK
    assert seen_back and seen_blank  # both kinds of down face occur in this game


def test_a_card_is_its_rotated_rectangle(compiled, logged, steps):
    """The corners of a card's path are physics.rect_corners' (to the 0.1 mm drawn)."""
    from balance.games.corvids import physics

    st = logged.state
    p = compiled.tb.physics
    snap = st.snap[0]
    shapes = steps[0]["args"][0]["shapes"]
    on = np.flatnonzero(snap[:, S.SN_ON] == 1)
    lowest = on[np.argsort(snap[on, S.SN_H], kind="stable")][0]
    out = np.zeros((4, 2))
    physics.rect_corners(*snap[lowest, [S.SN_X, S.SN_Y, S.SN_A]], p[physics.PH_CARD_W],
                         p[physics.PH_CARD_H], out)  # fmt: skip
    drawn = np.array(
        [[float(v) for v in xy.split(",")] for xy in shapes[0]["path"][1:-1].split("L")]
    )
    assert np.abs(drawn - out).max() <= 0.051


def test_the_legend_names_each_item_of_the_deck_and_the_feathers(logged, spec):
    legend = [t["name"] for t in spec["data"] if t.get("showlegend", True) is not False]
    assert legend[-1] == "feather"
    assert legend[:-1] == pictures.deck_items(logged.state.item)
    assert "blank" in legend and set(legend[:-2]) <= set(ITEM_NAMES)
    colours = {t["name"]: t["marker"]["color"] for t in spec["data"] if t["name"] in legend}
    assert all(colours[n] == pictures.ITEM_COLOURS[n] for n in legend[:-1])


def test_a_nest_is_labelled_from_the_turn_its_bird_is_revealed(compiled, logged, steps, words):
    """The E_NEST events of each turn against the labels of its step and its words."""
    reveal = {}  # nest -> (turn, seat)
    turn = 0
    for row in logged.log:
        if row[0] == S.E_TURN:
            turn = int(row[2]) + 1
        elif row[0] == S.E_NEST:
            reveal.setdefault(int(row[2]), (turn, int(row[1]), int(row[3])))
    assert reveal, "no nest uncovered in this game: pick another"
    for t, step in enumerate(steps):
        notes = step["args"][0]["annotations"]
        expected = sorted(
            f"<b>{compiled.bird_names[b]}</b> (seat {p})"
            for k, (when, p, b) in reveal.items()
            if when <= t
        )
        assert sorted(n["text"] for n in notes) == expected, t
    for nest, (when, _, _) in reveal.items():
        assert any(f"nest {nest} is uncovered" in line for line in words[when]["lines"])


# ------------------------------------------------------------------------------- the words


def test_each_step_tells_its_turn_and_the_last_the_scores(compiled, logged, words):
    lines = narrate.tell(compiled, logged, SEED, GAME).lines
    assert len(words) == logged.turns + 1
    assert [line for w in words for line in w["lines"]] == lines  # every line, once, in order
    assert words[0]["title"] == "Set-up and birds"
    assert words[0]["lines"][0].startswith(f"Corvids, game {GAME} of seed {SEED}")
    assert sum(" is the " in line for line in words[0]["lines"]) == compiled.players
    for t in range(1, logged.turns + 1):
        assert words[t]["lines"][0].startswith(f"Turn {t}: ")
        assert sum(line.startswith("Turn ") for line in words[t]["lines"]) == 1
    last = words[-1]["lines"]
    assert sum(": " in line and " points (" in line for line in last) == compiled.players
    assert last[-1].startswith("The pile holds no card after")
    assert words[0]["pile"] == "The pile after set-up: 40 cards and 15 feathers."


def test_turn_words_splits_at_the_turn_lines():
    lines = ["head", "birds", "Turn 1: a", "  x", "Turn 2: b", "  y", "seat 0: 3 points", "end"]
    assert pictures.turn_words(lines, 2) == [
        ["head", "birds"],
        ["Turn 1: a", "  x"],
        ["Turn 2: b", "  y", "seat 0: 3 points", "end"],
    ]
    assert pictures.turn_words(["head", "failed", "scores"], 0) == [["head", "failed", "scores"]]


# -------------------------------------------------------------------------------- the page


def test_the_page_inlines_plotly_once_and_loads_nothing(page):
    import plotly.offline

    js = plotly.offline.get_plotlyjs()
    assert page.count(js[:300]) == 1
    assert re.search(r"<script[^>]+src=", page) is None
    assert "plotly_sliderchange" in page  # the words follow the slider
    assert len(page.encode()) < len(js) + 400_000  # the pile's pictures stay small


def test_the_plugin_hook_is_the_page(compiled, page):
    assert PLUGIN.replay_page(compiled, SEED, GAME) == page


def test_the_pile_figure_of_one_snapshot(compiled, logged):
    fig = pictures.pile_figure(compiled, logged, 0)
    cards, feathers = _cards_and_feathers([s.to_plotly_json() for s in fig.layout.shapes])
    assert (len(cards), len(feathers)) == (40, 15)
    assert fig.layout.title.text == "The pile after set-up: 40 cards and 15 feathers"


# -------------------------------------------------------------------------------- the CLI


def test_replay_html_writes_the_page(tmp_path, compiled, page):
    out = tmp_path / "pages" / "game0.html"
    result = _cli("replay", CONFIG, "--game", GAME, "--html", out)
    assert result.exit_code == 0, result.output
    assert result.stdout == f"replay page -> {out} ({out.stat().st_size / 1e6:.1f} MB)\n"
    assert out.read_text(encoding="utf-8") == page
    assert sorted(p.name for p in out.parent.iterdir()) == ["game0.html"]  # no temporary file


def test_replay_without_html_still_prints_the_words(compiled):
    result = _cli("replay", CONFIG, "--game", GAME)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == PLUGIN.narrate(compiled, SEED, GAME)


def test_a_game_without_pictures_is_one_line(tmp_path):
    out = tmp_path / "five_ravens.html"
    result = _cli("replay", FIVE_RAVENS, "--game", 0, "--html", out)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == "error: five_ravens has no replay pictures; --html is for corvids\n"
    assert not out.exists() and list(tmp_path.iterdir()) == []
    assert runner.pictured_games() == ["corvids"]


def test_a_directory_is_no_page(tmp_path):
    result = _cli("replay", CONFIG, "--game", GAME, "--html", tmp_path)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: --html {tmp_path}: is a directory")
    assert list(tmp_path.iterdir()) == []


def test_a_failing_write_leaves_no_partial_file(tmp_path, monkeypatch, page):
    out = tmp_path / "game0.html"
    out.write_text("an earlier page")
    from balance import outputs

    real = os.write

    def full(fd, data):  # takes half the page, then fails as a full disk does
        real(fd, bytes(data[: len(data) // 2]))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(outputs.os, "write", full)
    result = _cli("replay", CONFIG, "--game", GAME, "--html", out)
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {out}: disk full (No space left on device) while writing; nothing was written, "
        "the old file is kept\n"
    )
    assert out.read_text() == "an earlier page"  # the old file as it was
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game0.html"]  # and no partial one


def test_a_failing_rename_leaves_no_file(tmp_path, monkeypatch, page):
    """(``page``: the kernels are loaded before os.replace is broken.)"""
    out = tmp_path / "new" / "game0.html"

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    result = _cli("replay", CONFIG, "--game", GAME, "--html", out)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {out}: ")
    assert "Permission denied" in result.stderr and result.stderr.count("\n") == 1
    assert list(out.parent.iterdir()) == []
