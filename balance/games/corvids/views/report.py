"""Corvids' own sections of a report (``Corvids.report_sections``): a starting pile, and what the
pile did per game.

``pile_events(rows)`` computes the numbers from a results dataset: per game, the cards knocked off
the mat (``game_off_mat``), the pieces removed as isolated at the ends of turns
(``game_isolated``), the set-up's re-scatters (``game_setup_retries``) and the turn the first
seat's nest was uncovered (``game_first_nest``); per seat, the turn its nest was uncovered
(``nest_turn``). The ``game_*`` columns repeat the game's value on every seat's row, so they are
read from one row per game (the first player's, ``order == 0``), and a mean is over games.

Every number comes with its interval: a mean with the t-interval over games
(``stats.mean_interval``), a share of games with the Wilson interval (``stats.wilson_interval``).
The engine counts turns from 0 (``nest_turn`` 0: during the game's first turn; -1 never); the
report says turn numbers as ``balance replay`` does, from 1, all seats' turns counted. Games
whose set-up failed (ENGINE-8: no pile, no turn) are left out of every figure and said so.

``report_sections`` lays them out (tables from balance/report/sections.py, the histograms from
balance/report/figures.py) with the pile after set-up of the run's first game
(``pictures.pile_figure``), compiled by the game's own ``tables.compile_tables``.
"""

from __future__ import annotations

from html import escape
from typing import Any, NamedTuple

import numpy as np
import polars as pl

from balance import stats
from balance.config import config_from_dict
from balance.errors import BalanceError
from balance.games.base import ReportSection
from balance.games.corvids import narrate
from balance.games.corvids import state as S
from balance.games.corvids.tables import compile_tables
from balance.games.corvids.views import pictures
from balance.report import figures
from balance.report.sections import Column, fmt, table_html
from balance.report.sentences import digits, pct

GAME_COLUMNS = (
    "game_off_mat",
    "game_isolated",
    "game_setup_retries",
    "game_setup_redraws",
    "game_first_nest",
)
# columns of later engines: a dataset written before them reads as zeros
LATER_COLUMNS = ("game_setup_pushes",)
SETUP_FAILED = S.END_REASONS[S.END_SETUP - 1]


class Mean(NamedTuple):
    """A mean over ``n`` games with its t-interval."""

    n: int
    mean: float
    lo: float
    hi: float


class Share(NamedTuple):
    """``k`` of ``n`` games, with the share's Wilson interval."""

    n: int
    k: int
    share: float
    lo: float
    hi: float


class PileEvents(NamedTuple):
    level: float
    games: int  # games counted: the ones whose set-up succeeded
    failed: int  # games whose set-up failed, left out
    off_mat: Mean
    isolated: Mean
    retries: Mean
    redraws: Mean  # cards drawn again at set-up for landing off the mat (PHYS-4)
    pushes: Mean  # cards pushed over a bare nest at set-up (CV-8)
    never: Share  # games in which no seat's nest was uncovered
    first_turn: Mean  # turn of the first uncovered seat's nest, over the games with one
    seats: list[dict[str, Any]]  # seat, policy, never (Share), turn (Mean among uncovered)
    counts: dict[str, tuple[np.ndarray, np.ndarray]]  # column -> (values, games)


def mean_of(values: np.ndarray, level: float) -> Mean:
    v = np.asarray(values, dtype=np.float64)
    if len(v) == 0:
        return Mean(0, float("nan"), float("nan"), float("nan"))
    m = stats.mean_interval(stats.moments(v[:, None]), level)
    return Mean(len(v), float(m.mean[0]), float(m.lo[0]), float(m.hi[0]))


def share_of(k: int, n: int, level: float) -> Share:
    if n == 0:
        return Share(0, 0, float("nan"), float("nan"), float("nan"))
    lo, hi = stats.wilson_interval(k / n, n, level)
    return Share(n, k, k / n, float(lo), float(hi))


def _counts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    v, c = np.unique(np.asarray(values, dtype=np.int64), return_counts=True)
    return v, c


def pile_events(rows: pl.LazyFrame | pl.DataFrame, *, level: float = 0.95) -> PileEvents | None:
    """The pile's events per game of a Corvids dataset; None when its rows lack the columns
    (a dataset written before the engine kept them)."""
    lf = rows.lazy() if isinstance(rows, pl.DataFrame) else rows
    names = set(lf.collect_schema().names())
    if not {*GAME_COLUMNS, "nest_turn", "order", "end_reason"} <= names:
        return None
    games = (
        lf.filter(pl.col("order") == 0)
        .select("game", "end_reason", *GAME_COLUMNS, *(c for c in LATER_COLUMNS if c in names))
        .collect()
        .sort("game")
    )
    ok = games.filter(pl.col("end_reason") != SETUP_FAILED)
    failed = games.height - ok.height
    first = ok["game_first_nest"].to_numpy()
    uncovered = first >= 0
    seats = []
    per_seat = (
        lf.filter(pl.col("end_reason") != SETUP_FAILED)
        .select("seat", "policy", "nest_turn")
        .collect()
        .sort("seat")
    )
    for (seat,), g in per_seat.group_by("seat", maintain_order=True):
        turn = g["nest_turn"].to_numpy()
        open_ = turn >= 0
        seats.append(
            {
                "seat": int(seat),
                "policy": ", ".join(sorted(set(g["policy"].to_list()))),
                "never": share_of(int((~open_).sum()), len(turn), level),
                "turn": mean_of(turn[open_] + 1, level),
            }
        )
    return PileEvents(
        level=level,
        games=ok.height,
        failed=failed,
        off_mat=mean_of(ok["game_off_mat"].to_numpy(), level),
        isolated=mean_of(ok["game_isolated"].to_numpy(), level),
        retries=mean_of(ok["game_setup_retries"].to_numpy(), level),
        redraws=mean_of(ok["game_setup_redraws"].to_numpy(), level),
        pushes=mean_of(_column(ok, "game_setup_pushes"), level),
        never=share_of(int((~uncovered).sum()), ok.height, level),
        first_turn=mean_of(first[uncovered] + 1, level),
        seats=seats,
        counts={
            "game_off_mat": _counts(ok["game_off_mat"].to_numpy()),
            "game_isolated": _counts(ok["game_isolated"].to_numpy()),
            "game_setup_retries": _counts(ok["game_setup_retries"].to_numpy()),
            "game_first_nest": _counts(first[uncovered] + 1),
        },
    )


# ================================================================================ words


def _level(level: float) -> str:
    return f"{level * 100:g} %"


def _mean_texts(m: Mean) -> tuple[str, str]:
    """(mean, [lo, hi]) with the decimals that show one significant digit of the interval's
    half-width (sentences.digits); ("–", "–") without games."""
    if m.n == 0 or not np.isfinite(m.mean):
        return "–", "–"
    k = digits((m.hi - m.lo) / 2)
    if not (np.isfinite(m.lo) and np.isfinite(m.hi)):  # one game: no interval
        return f"{m.mean:.{k}f}", "–"
    return f"{m.mean:.{k}f}", f"[{m.lo:.{k}f}, {m.hi:.{k}f}]"


def _share_texts(s: Share) -> tuple[str, str]:
    if s.n == 0:
        return "–", "–"
    k = digits((s.hi - s.lo) / 2 * 100)
    return pct(s.share, k), f"[{s.lo * 100:.{k}f}, {s.hi * 100:.{k}f}] %"


def mean_words(m: Mean, level: float = 0.95) -> str:
    """``0.35 (95 % interval 0.28 to 0.42)``; ``1.0 (the same in every game)``."""
    value, _ = _mean_texts(m)
    if m.n == 0:
        return "– (no games)"
    if m.lo == m.hi:
        return f"{value} (the same in every game)"
    if not (np.isfinite(m.lo) and np.isfinite(m.hi)):
        return f"{value} (one game: no interval)"
    k = digits((m.hi - m.lo) / 2)
    return f"{value} ({_level(level)} interval {m.lo:.{k}f} to {m.hi:.{k}f})"


def share_words(s: Share, level: float = 0.95) -> str:
    if s.n == 0:
        return "– (no games)"
    k = digits((s.hi - s.lo) / 2 * 100)
    return f"{pct(s.share, k)} ({_level(level)} interval {pct(s.lo, k)} to {pct(s.hi, k)})"


def _column(frame: Any, name: str) -> Any:
    """A game column as an array; zeros for a dataset written before the column existed."""
    if name in frame.columns:
        return frame[name].to_numpy()
    return np.zeros(frame.height, dtype=np.int64)


def event_sentences(ev: PileEvents) -> list[str]:
    """The pile events in words, each number with its interval."""
    lv = ev.level
    out = [
        f"Over the {ev.games:,} games whose set-up succeeded, a game knocked "
        f"{mean_words(ev.off_mat, lv)} cards off the mat on average and removed "
        f"{mean_words(ev.isolated, lv)} pieces (cards and feathers) as isolated at the ends of "
        f"turns; its set-up re-scattered the pile {mean_words(ev.retries, lv)} times, drew "
        f"{mean_words(ev.redraws, lv)} single cards again for landing off the mat (PHYS-4: the "
        "same piles as re-scattering everything until every card is on it) and pushed "
        f"{mean_words(ev.pushes, lv)} cards over nests the scatter left bare (CV-8).",
    ]
    first = ""
    if ev.first_turn.n:
        first = (
            f"; over the {ev.first_turn.n:,} games where one was, the first was uncovered on "
            f"turn {mean_words(ev.first_turn, lv)} on average (all seats' turns counted from 1, "
            "as in balance replay)"
        )
    out.append(
        f"No seat's nest was ever uncovered in {share_words(ev.never, lv)} of the games{first}."
    )
    return out


# ============================================================================== sections


def _event_rows(ev: PileEvents) -> list[dict[str, Any]]:
    def mean_row(what: str, m: Mean, estimate: str, over: str) -> dict[str, Any]:
        value, interval = _mean_texts(m)
        return {
            "what": what,
            "estimate": estimate,
            "over": over,
            "n": m.n,
            "text": value,
            "interval": interval,
        }

    value, interval = _share_texts(ev.never)
    return [
        mean_row("cards knocked off the mat", ev.off_mat, "mean per game", "games"),
        mean_row(
            "pieces removed as isolated (cards and feathers)",
            ev.isolated,
            "mean per game",
            "games",
        ),
        mean_row("set-up re-scatters (a nest uncovered)", ev.retries, "mean per game", "games"),
        mean_row("set-up cards drawn again (off the mat)", ev.redraws, "mean per game", "games"),
        mean_row("set-up cards pushed over a bare nest", ev.pushes, "mean per game", "games"),
        {
            "what": "no seat's nest ever uncovered",
            "estimate": "share of games",
            "over": "games",
            "n": ev.never.n,
            "text": value,
            "interval": interval,
        },
        mean_row(
            "turn the first seat's nest was uncovered",
            ev.first_turn,
            "mean turn",
            "games with one uncovered",
        ),
    ]


def _seat_rows(ev: PileEvents) -> list[dict[str, Any]]:
    out = []
    for r in ev.seats:
        never: Share = r["never"]
        turn: Mean = r["turn"]
        never_text, never_ci = _share_texts(never)
        turn_text, turn_ci = _mean_texts(turn)
        out.append(
            {
                "seat": r["seat"],
                "policy": r["policy"],
                "games": never.n,
                "never": never.share,
                "never_text": never_text,
                "never_ci": never_ci,
                "uncovered": turn.n,
                "turn": turn.mean,
                "turn_text": turn_text,
                "turn_ci": turn_ci,
            }
        )
    return out


def events_section(ev: PileEvents) -> ReportSection:
    level = _level(ev.level)
    note = (
        f"<p class=\"note\">One value per game (a game's counts repeat on every seat's row of the "
        f"dataset, so they are read once per game). Means with {level} t-intervals over games; "
        f"shares of games with {level} Wilson intervals. Turns are numbered as in "
        "<code>balance replay</code>: from 1, every seat's turns counted. The mean turn of the "
        "first uncovered nest is over the games where one was uncovered, not over all games."
        + (
            f" Left out: {ev.failed:,} games whose set-up failed (ENGINE-8: no pile, no turn)."
            if ev.failed
            else ""
        )
        + "</p>"
    )
    words = "".join(f"<li>{escape(s)}</li>" for s in event_sentences(ev))
    table = table_html(
        _event_rows(ev),
        [
            Column("pile event", lambda r: r["what"]),
            Column("estimate", lambda r: r["estimate"]),
            Column("over", lambda r: r["over"]),
            Column("n", lambda r: r["n"], fmt(","), True, "games the estimate is over"),
            Column("value", lambda r: r["text"]),
            Column(f"{level} interval", lambda r: r["interval"]),
        ],
    )
    seats = table_html(
        _seat_rows(ev),
        [
            Column("seat", lambda r: r["seat"], str, True),
            Column("policy", lambda r: r["policy"]),
            Column("games", lambda r: r["games"], fmt(","), True),
            Column("nest never uncovered", lambda r: r["never_text"], tip="share of games"),
            Column(f"{level} interval", lambda r: r["never_ci"]),
            Column("games uncovered", lambda r: r["uncovered"], fmt(","), True),
            Column("mean turn uncovered", lambda r: r["turn_text"]),
            Column(f"{level} interval", lambda r: r["turn_ci"]),
        ],
    )

    def panel(key: str, name: str, m: Mean, x_title: str) -> tuple[str, str, Any, Any]:
        values, counts = ev.counts[key]
        value, interval = _mean_texts(m)
        title = f"{name}: mean {value} {interval if interval != '–' else ''}".rstrip()
        return (title, x_title, values, counts)

    fig = figures.plot_count_panels(
        [
            panel("game_off_mat", "Cards off the mat", ev.off_mat, "cards off the mat in a game"),
            panel("game_isolated", "Isolated pieces", ev.isolated, "pieces removed in a game"),
            panel("game_setup_retries", "Set-up re-scatters", ev.retries, "re-scatters"),
            panel(
                "game_first_nest",
                "First nest uncovered",
                ev.first_turn,
                "turn (games with a nest uncovered)",
            ),
        ],
        title=f"Pile events per game, {ev.games:,} games",
        context=f"Number of games with each count; panel titles: means with {level} t-intervals",
    )
    return ReportSection(
        key="pile-events",
        heading="Pile events per game",
        parts=(
            f'<ul class="headline">{words}</ul>',
            note,
            fig,
            table,
            "<h4>Each seat's nest</h4>"
            '<p class="note">The nest of the bird a seat was dealt (CV-6, ENGINE-7): the share of '
            f"games in which it was never uncovered ({level} Wilson interval), and the mean turn "
            f"it was first uncovered over the games in which it was ({level} t-interval).</p>",
            seats,
        ),
    )


def starting_pile_section(manifest: dict[str, Any]) -> ReportSection | None:
    """The pile after set-up of the run's first game, drawn as ``balance replay --html`` draws
    it; None if the manifest records no config."""
    recorded = manifest.get("config")
    if not isinstance(recorded, dict):
        return None
    seed = int(manifest.get("seed", recorded.get("seed", 0)))
    try:
        cfg = config_from_dict(recorded, "manifest.json")
        compiled = compile_tables(cfg)
        logged = narrate.play_logged(compiled, seed, 0)
    except BalanceError as e:
        return ReportSection(
            key="pile-start",
            heading="A typical starting pile",
            parts=(f'<p class="note">The starting pile cannot be drawn: {escape(str(e))}</p>',),
        )
    st = logged.state
    nc = st.item.shape[0]
    cards, feathers = pictures.pile_counts(st.snap[0], nc)
    retries = next((int(r[5]) for r in logged.log if int(r[0]) == 0), 0)  # E_START's re-scatters
    redraws = next((int(r[6]) for r in logged.log if int(r[0]) == 0), 0)  # ... and cards redrawn
    pushes = next((int(r[7]) for r in logged.log if int(r[0]) == 0), 0)  # ... and cards pushed
    failed = retries < 0
    fig = pictures.pile_figure(
        compiled,
        logged,
        0,
        title=f"Game 0 of seed {seed} after set-up: {cards} cards and {feathers} feathers"
        '<br><span style="font-size:12px;color:#555">millimetres; each card labelled with its '
        "number and the item face up, higher cards over lower ones; dotted circles: the nests"
        "</span>",
    )
    how = (
        "its set-up failed (no scatter covered every nest with every card on the mat)"
        if failed
        else f"the pile was scattered {retries + 1} time{'s' if retries else ''}, "
        f"{redraws} card{'' if redraws == 1 else 's'} that landed off the mat redrawn one at a "
        f"time (PHYS-4) and {pushes} card{'' if pushes == 1 else 's'} pushed over the nests it "
        "left bare (CV-8), then the feathers were dropped onto it"
    )
    note = (
        f'<p class="note">One example, not an average: the run\'s first game (game 0 of seed '
        f"{seed}) as it was set up; {escape(how)}. "
        f"<code>balance replay RESULTS --game 0 --html FILE</code> draws it turn by turn.</p>"
    )
    return ReportSection(key="pile-start", heading="A typical starting pile", parts=(fig, note))


def report_sections(
    manifest: dict[str, Any], rows: pl.LazyFrame | pl.DataFrame, *, level: float = 0.95
) -> list[ReportSection]:
    """A typical starting pile and the pile events per game (``Corvids.report_sections``)."""
    out = []
    start = starting_pile_section(manifest)
    if start is not None:
        out.append(start)
    ev = pile_events(rows, level=level)
    if ev is not None and ev.games:
        out.append(events_section(ev))
    elif ev is not None:
        out.append(
            ReportSection(
                key="pile-events",
                heading="Pile events per game",
                parts=(
                    f"<p>The set-up of every game failed ({ev.failed:,} games; ENGINE-8: no "
                    "scatter within <code>rules.physics.setup_retries</code> put every card on "
                    "the mat with every nest covered): no game had a pile to play, so there are "
                    "no pile events.</p>",
                ),
            )
        )
    return out
