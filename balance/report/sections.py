"""The sections of one dataset's report page, the overview of several and the variants' and
verdict's tables.

Each section function takes numbers (numbers.py) and returns an HTML string built from
blocks.py's tables and figure slots; figures come from figures.py and forest.py through a
``Page``, which numbers them; words from sentences.py; numbers written by balance/fmt.py.
page.py puts the sections in the page shell (template.py). Every text that comes from data is
escaped here.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

import polars as pl

from balance import stats
from balance.fmt import fair_pct, finite, p_text, pct, points
from balance.games.base import ReportSection
from balance.impact_file import ImpactFile
from balance.report import figures, forest
from balance.report.blocks import (
    PTS,
    SAME_CONFIGS,
    Column,
    Page,
    config_yaml,
    differences_columns,
    facts,
    fmt,
    interval,
    players_box,
    pvalue,
    seats_cell,
    significant,
    table_html,
)
from balance.report.numbers import (
    DatasetStats,
    Differences,
    first_player_rows,
)
from balance.report.sentences import difference_label, ordinal
from balance.report.verdict import about_games, axis_group_label
from balance.stats.plays import CLOSE

# ========================================================================= one dataset's page


def dataset_sections(
    page: Page,
    ds: DatasetStats,
    diff: Differences | None = None,
    baseline: DatasetStats | None = None,
    luck: Sequence[str] = (),
) -> list[tuple[str, str, str]]:
    """The sections of one dataset as ``(id, heading, html)``, in page order; ``luck``: the
    sentences on luck against skill of the ladder given with it (its "How the game plays")."""
    subs = [
        ("provenance", "Provenance", provenance(ds)),
        ("wins", "Win shares", win_section(page, ds)),
        ("seats", "Seat advantage and turn order", advantage_section(page, ds)),
        ("scores", "Score and game-length distributions", distribution_section(page, ds)),
        *(
            [("plays", "How the game plays", plays_section(page, ds) + _luck_part(luck))]
            if ds.plays is not None or ds.census is not None
            else []
        ),
        *((s.key, s.heading, game_section(page, s)) for s in ds.game_sections),
        ("cards", "Card diagnostics: observational, not effects", impact_section(page, ds)),
    ]
    if diff is not None and baseline is not None:
        subs.append(
            (
                "baseline",
                f"Differences against {diff.baseline}",
                differences_section(page, diff, baseline),
            )
        )
    return subs


def game_section(page: Page, section: ReportSection) -> str:
    """A section a game adds (``Game.report_sections``): its HTML parts as they are, its
    figures in slots of the page."""
    return "".join(p if isinstance(p, str) else page.figure(p) for p in section.parts)


def provenance(ds: DatasetStats) -> str:
    m = ds.manifest
    seats = m.get("seats") or []
    teams = m.get("teams") or []
    status = m.get("status", "?")
    games = f"{int(m.get('games_done', 0)):,}"
    if m.get("games_requested") and m.get("games_requested") != m.get("games_done"):
        games += f" of {int(m['games_requested']):,} requested"
    versions = ", ".join(f"{k} {v}" for k, v in (m.get("versions") or {}).items())
    # the KEY=VALUE overrides (--set, a sweep's point) on top of the file; the hash is the result's
    sets = f" with {', '.join(m['overrides'])}" if m.get("overrides") else ""
    items = [
        ("results", ds.path or ds.label),
        ("game", m.get("game", "?")),
        ("config", f"{m.get('config_path') or '(none)'}{sets} (hash {m.get('config_hash', '?')})"),
        ("seed", m.get("seed", "?")),
        ("games", f"{games} ({status})"),
        ("line-up", ", ".join(f"seat {i}: {p}" for i, p in enumerate(seats))),
        ("teams", ", ".join(f"seat {i}: {t}" for i, t in enumerate(teams))),
        ("tool version", f"balance {m.get('version', '?')}"),
        ("date", f"{m.get('started', '?')} to {m.get('finished') or '(unfinished)'}"),
        (
            "speed",
            f"{float(m.get('games_per_s', 0)):,.0f} games/s on {m.get('threads', '?')} threads "
            f"({float(m.get('wall_time_s', 0)):.1f} s; kernels loaded in "
            f"{float(m.get('compile_time_s', 0)):.1f} s)",
        ),
        ("libraries", versions),
    ]
    warn = ""
    if status != "complete":
        from balance.results import status_phrase  # killed: "did not finish (its process ...)"

        stress, rest = status_phrase(m)
        warn = (
            f'<p class="caveat">This run <b>{escape(stress)}</b>{escape(rest)}: the statistics '
            f"cover the {games} games it kept.</p>"
        )
    return warn + facts(items) + config_yaml("config (fully resolved, YAML)", m.get("config") or {})


def _share_interval(r: dict[str, Any]) -> str:
    if r.get("exact"):
        return "exact (every seat)"
    lo, hi = r["lo"], r["hi"]
    return f"[{lo:.2%}, {hi:.2%}]" if finite(lo) and finite(hi) else "–"


def _share_columns(first: Column, *extra: Column) -> list[Column]:
    return [
        first,
        *extra,
        Column("games", lambda r: r["n"], fmt(","), True, "games the share is over"),
        Column("seat-games", lambda r: r["seat_games"], fmt(","), True),
        Column("wins", lambda r: r["wins"], fmt(",.1f"), True, "shared wins count 1/k"),
        Column("win share", lambda r: r["share"], fmt(".2%"), True),
        Column(
            "95 % interval",
            lambda r: r,
            _share_interval,
            tip="over games (a game's seats are not independent)",
        ),
        Column("fair", lambda r: r["fair"], fmt(".1%"), True),
        Column("share / fair", lambda r: r["normalised"], fmt(".3f"), True, "1.000 = fair"),
    ]


def win_section(page: Page, ds: DatasetStats) -> str:
    ws = ds.shares
    parts = [
        page.figure(figures.plot_win_shares(ws, "seat")),
        table_html(
            ws.by_seat.to_dicts(),
            _share_columns(
                Column("seat", lambda r: r["seat"], str, True),
                Column("policy", lambda r: r["policy"]),
                Column("team", lambda r: r["team"] or "–"),  # none: teams change per game
            ),
            sortable=True,
        ),
    ]
    groups = (  # a group is worth its own figure when it is not just one seat again
        ("policy", ws.by_policy, ws.by_policy.height > 1),
        ("team", ws.by_team, ws.by_team.height and int(ws.by_team["seats"].max()) > 1),
        ("role", ws.by_role, ws.by_role.height > 0),
    )
    for kind, frame, shown in groups:
        if shown:
            parts += [
                page.figure(figures.plot_win_shares(ws, kind)),
                table_html(
                    frame.to_dicts(),
                    _share_columns(
                        Column(kind, lambda r, kind=kind: r[kind]),
                        Column(
                            "seats",
                            lambda r: r["seats"],
                            seats_cell,
                            True,
                            "seats per game; the mean over games when they are dealt per game",
                        ),
                    ),
                    sortable=True,
                ),
            ]
    note = (
        "A seat's win share is its wins per game, a k-way shared win counting 1/k. A policy's "
        "or role's share is the mean over games of its seats' wins that game, a team's its win "
        f"per game. Bars show {ws.level:.0%} intervals over games (the seats of one game are not "
        "independent), the dashed line the fair share; a group that holds every seat has its "
        "share fixed by the rules and no interval."
    )
    return f'<p class="note">{note}</p>' + "".join(parts)


def advantage_section(page: Page, ds: DatasetStats) -> str:
    adv = ds.advantage
    if adv.symmetric:
        tests = (
            f"Seats against equal shares: χ² = {adv.chi2:.2f} ({adv.dof} d.f.), "
            f"{p_text(adv.p_value)}. Places in the turn order against equal shares: "
            f"χ² = {adv.order_chi2:.2f}, {p_text(adv.order_p_value)}."
        )
    else:
        tests = (
            "The line-up is not symmetric (seats play different policies or share teams), so no "
            "chi-square test of equal shares is made: seat differences mix position and policy."
        )
    edge = (
        f"First player's edge: {points(adv.first_player_edge, adv.edge_lo, adv.edge_hi)} "
        f"(wins {pct(adv.first_player_share, 2)} against a fair {fair_pct(adv.fair)})."
    )
    table = table_html(
        adv.by_order.to_dicts(),
        _share_columns(Column("place", lambda r: ordinal(int(r["order"])), str)),
        sortable=True,
    )
    return (
        f"<p>{escape(tests)}</p><p>{escape(edge)}</p>"
        + page.figure(figures.plot_seat_advantage(adv))
        + table
    )


def _summary_row(label: str, s: stats.Summary) -> dict[str, Any]:
    return {
        "what": label,
        "n": s.n,
        "mean": s.mean,
        "sd": s.sd,
        "min": s.min,
        **{f"q{round(q * 100):02d}": v for q, v in s.quantiles.items()},
        "max": s.max,
    }


def distribution_section(page: Page, ds: DatasetStats) -> str:
    d = ds.dist
    rows = [
        _summary_row("score (seat-games)", d.score),
        _summary_row("game length (turns)", d.turns),
    ]
    for r in d.score_by_seat.to_dicts():
        rows.append({**r, "what": f"score, seat {r['seat']}", "min": None, "max": None})
    if d.score_by_policy.height > 1:
        for r in d.score_by_policy.to_dicts():
            rows.append({**r, "what": f"score, {r['policy']}", "min": None, "max": None})
    qs = [f"q{round(q * 100):02d}" for q in stats.QUANTILES]
    cols = [
        Column("", lambda r: r["what"]),
        Column("n", lambda r: r["n"], fmt(","), True),
        Column("mean", lambda r: r["mean"], fmt(".2f"), True),
        Column("sd", lambda r: r["sd"], fmt(".2f"), True),
        Column("min", lambda r: r.get("min"), fmt("g"), True),
        *(Column(q, lambda r, q=q: r.get(q), fmt("g"), True, f"{q[1:]} % quantile") for q in qs),
        Column("max", lambda r: r.get("max"), fmt("g"), True),
    ]
    reasons = table_html(
        d.end_reasons.to_dicts(),
        [
            Column("end reason", lambda r: r["end_reason"]),
            Column("games", lambda r: r["games"], fmt(","), True),
            Column("share", lambda r: r["share"], fmt(".2%"), True),
        ],
    )
    return (
        page.figure(figures.plot_score_distribution(d, ds.score_by_policy))
        + page.figure(figures.plot_length_distribution(d))
        + table_html(rows, cols)
        + reasons
    )


def _plays_row(summary: pl.DataFrame, metric: str) -> dict[str, Any]:
    return summary.filter(pl.col("metric") == metric).row(0, named=True)


def plays_sentences(p: Any) -> list[str]:
    """What the trajectories say, one sentence a metric, each with its 95 % interval."""
    row = functools.partial(_plays_row, p.summary)
    unit = p.standing.replace("_", " ")
    side = p.unit == "side"
    who = "side with the most living members" if side else f"seat with the highest {unit}"
    if side:  # a side's standing is the sum of its members' (stats/plays.py, by_side)
        unit = "living members" if p.standing == "alive" else f"{unit} (summed over the side)"
    winner = "winning side" if side else "winner"

    def share(m: str) -> str:
        r = row(m)
        return f"{pct(r['mean'])} [{pct(r['lo'])}, {pct(r['hi'])}]"

    def mean(m: str, f: str = ".2f") -> str:
        r = row(m)
        return f"{r['mean']:{f}} [{r['lo']:{f}}, {r['hi']:{f}}]"

    decided = row("decided_at")
    return [
        f"The lead (the one {who}) changes hands {mean('lead_changes')} times a game on average.",
        f"The eventual {winner} was behind at half time in {share('comeback_half')} of the games "
        f"with one {winner}, and still behind at two thirds in {share('comeback_two_thirds')}.",
        f"The {winner} took the lead for good after {pct(decided['mean'])} of the game on "
        f"average [{pct(decided['lo'])}, {pct(decided['hi'])}]; its largest deficit was "
        f"{mean('max_deficit')} {unit}.",
        f"Margin of victory: {mean('margin')} {unit}; {share('close')} of the games with one "
        f"{winner} were won by at most {CLOSE} {unit}.",
    ]


def _plays_cells(r: dict[str, Any]) -> dict[str, Any]:
    """A metric's row with its mean and interval written as the metric is read: a rate in
    percent, a mean as a number."""
    if r["kind"] == "rate":
        return {**r, "value": pct(r["mean"]), "interval": f"[{pct(r['lo'])}, {pct(r['hi'])}]"}
    return {**r, "value": f"{r['mean']:.2f}", "interval": f"[{r['lo']:.2f}, {r['hi']:.2f}]"}


def _luck_part(luck: Sequence[str]) -> str:
    """Luck against skill, from the ladder the page was given (balance/report/ladder_page.py):
    how much of who wins the deal decides."""
    if not luck:
        return ""
    said = "".join(f"<li>{escape(x)}</li>" for x in luck)
    return (
        "<h4>Luck against skill</h4><p>From the ladder of the Skill section: its weakest and "
        f"strongest rungs on the same deals.</p><ul>{said}</ul>"
    )


def plays_section(page: Page, ds: DatasetStats) -> str:
    """How the game plays (stats/plays.py): sentences, the winner's lead through the game, and
    the table of every metric with its interval."""
    p = ds.plays
    if p is None:
        return census_part(page, ds.census)
    cols = [
        Column("", lambda r: r["words"]),
        Column("games", lambda r: r["games"], fmt(","), True),
        Column("mean", lambda r: r["value"]),
        Column("95 % interval", lambda r: r["interval"]),
    ]
    sides = (
        " Each side's standing is the sum of its members' (a side's living members), the side "
        "a seat is on read at each point (a possession moves a seat to its possessor's side); "
        "the leader is the one side with the most, the winner the side of the winning seats."
        if p.unit == "side"
        else ""
    )
    intro = (
        "<p>From each game's trajectory: every seat's "
        f"{escape(p.standing.replace('_', ' '))} at the start, after each round and at the "
        f"end, in games between the players above.{sides} The definitions and their sources: "
        "docs/statistics.md, How the game plays.</p>"
    )
    said = "".join(f"<li>{escape(x)}</li>" for x in plays_sentences(p))
    return (
        intro
        + f"<ul>{said}</ul>"
        + page.figure(figures.plot_winner_leads(p.curve, p.standing, p.unit))
        + table_html([_plays_cells(r) for r in p.summary.to_dicts()], cols)
        + (census_part(page, ds.census) if ds.census is not None else "")
    )


def census_part(page: Page, c: Any) -> str:
    """Turns, dead turns and kingmaking from the run's census (balance/census.py,
    stats/census.py), or a line saying how to take one."""
    from balance.stats import census as sc

    if c is None:
        return (
            "<p>Turns per place, dead turns and kingmaking come from games replayed decision by "
            "decision: <code>balance census RESULTS</code> takes them, and this page shows "
            "them.</p>"
        )
    summary = sc.summary(c.frame, kingmaking=c.kingmaking)
    places = sc.by(c.frame, "order")
    players = figures.lineup_words(list(c.seats))
    how = (
        f"; kingmaking tested on the last {pct(c.settings.window, 0)} of each game's decisions with a "
        f"choice ({c.settings.max_alternatives} other options at most, {c.settings.replays} replays of each, "
        "chance re-seeded)"
        if c.kingmaking
        else ""
    )
    intro = (
        f"<h3>Turns, dead turns and kingmaking</h3><p>Games 0 to {c.games - 1:,} of the run "
        f"replayed decision by decision ({players}){escape(how)}. A dead turn is one in which "
        "the seat had no choice; a kingmaking decision is one of a seat that could not win "
        "whatever it picked, which alone settled which other seat won (docs/statistics.md, "
        "Turns, dead turns and kingmaking).</p>"
    )
    said = sc.sentences(summary, places, kingmaking=c.kingmaking, window=c.settings.window)
    cols = [
        Column("place", lambda r: r["order"] + 1, fmt("d"), True),
        Column("turns", lambda r: r["turns"], fmt(".2f"), True),
        interval("turns_lo", "turns_hi", ".2f", 1.0, "turns"),
        Column("dead turns", lambda r: r["dead_share"], fmt(".1%"), True),
        interval("dead_lo", "dead_hi", ".1%", 1.0, "share"),
        Column("win share", lambda r: r["win_share"], fmt(".1%"), True),
        interval("win_lo", "win_hi", ".1%", 1.0, "share"),
        *(
            [
                Column("kingmaking a game", lambda r: r["kingmaking"], fmt(".3f"), True),
                interval("kingmaking_lo", "kingmaking_hi", ".3f", 1.0, "decisions"),
            ]
            if c.kingmaking
            else []
        ),
    ]
    kinds = sc.by_kind(c.kinds, c.games) if c.kingmaking else None
    by_kind = ""
    if kinds is not None and kinds.height:
        kcols = [
            Column("decision", lambda r: r["kind"]),
            Column("tested", lambda r: r["tested"], fmt(","), True),
            Column("kingmaking", lambda r: r["kingmaking"], fmt(","), True),
            Column("games with one", lambda r: r["games"], fmt(","), True),
            Column("share of tested", lambda r: r["share"], fmt(".1%"), True),
            interval("lo", "hi", ".1%", 1.0, "share"),
        ]
        by_kind = (
            "<p>Kingmaking by the kind of decision tested; intervals at 95 %, simultaneous "
            "over the kinds.</p>" + table_html(kinds.to_dicts(), kcols)
        )
    return (
        intro
        + "<ul>"
        + "".join(f"<li>{escape(x)}</li>" for x in said)
        + "</ul>"
        + page.figure(figures.plot_census_places(places, players, c.games))
        + "<p>By place in the turn order; intervals at 95 %, simultaneous over the places.</p>"
        + table_html(places.to_dicts(), cols)
        + by_kind
    )


def impact_section(page: Page, ds: DatasetStats) -> str:
    imp = ds.impact
    t = imp.table
    if t.height == 0:
        return "<p>This dataset has no telemetry columns.</p>"
    no_contrast = t.filter(pl.col("diff").is_nan() | pl.col("diff").is_null())
    by = ds.impact_by
    outcomes = set(ds.manifest.get("outcome_events") or ())
    # Cards first, largest differences first; then the outcomes of play (never the lead of a
    # diagnostics table: they say how losing looks, not what a card is worth); rows without a
    # contrast (NaN or null) last.
    t = t.with_columns(
        _abs=pl.col("diff").abs().fill_nan(None),
        _outcome=pl.col("event").is_in(sorted(outcomes)),
    ).sort(pl.col("_abs").is_null(), "_outcome", "_abs", descending=[False, False, True])
    cols = [
        *([Column(by, lambda r: r[by])] if by else []),
        Column(
            "kind",
            lambda r: "outcome" if r["event"] in outcomes else "card",
            tip="outcome: what play did to the seat (a building lost), not a card it held",
        ),
        Column("event", lambda r: r["event"]),
        Column("card", lambda r: r["card"]),
        Column("n with", lambda r: r["n_with"], fmt(","), True),
        Column("n without", lambda r: r["n_without"], fmt(","), True),
        Column("share with", lambda r: r["share_with"], fmt(".2%"), True),
        Column("share without", lambda r: r["share_without"], fmt(".2%"), True),
        Column(
            "diff (points)",
            lambda r: r["diff"],
            fmt("+.2f", PTS),
            True,
            "share with - share without, in percentage points",
        ),
        interval("lo", "hi", "+.2f", PTS, "points"),
        Column("p", lambda r: r["p_value"], pvalue, True, "two-proportion z-test"),
        Column("q (BH)", lambda r: r["q_value"], pvalue, True, "Benjamini-Hochberg, whole table"),
    ]
    caveat = (
        f'<p class="caveat"><b>Observational diagnostics, not effects</b> ({escape(imp.caveat)}). '
        f"Win share of the seat-games with the event (count &gt; 0) minus those without, "
        f"{imp.level:.0%} Newcombe intervals with game-clustered variance (the seat-games of one "
        "game are not independent); rows in red differ with Benjamini-Hochberg q &lt; 0.05 over "
        "the whole table. Click a column header to sort.</p>"
    )
    if outcomes:
        caveat += (
            '<p class="note">Rows of kind <b>outcome</b> ('
            + escape(", ".join(sorted(outcomes)))
            + ") describe what play did to a seat, such as a building it lost: they say how "
            "losing looks, not what a card is worth, and come after the cards.</p>"
        )
    skipped = ""
    if no_contrast.height:
        names = ", ".join(sorted(set(no_contrast["column"].to_list())))
        skipped = (
            f'<p class="note">Not plotted ({no_contrast.height} rows): events that every seat-game '
            f"or none had, so there is nothing to compare: {escape(names)}.</p>"
        )
    return (
        caveat
        + page.figure(
            forest.plot_card_impact(
                imp, by, outcomes, figures.lineup_words(ds.manifest.get("seats") or ())
            )
        )
        + skipped
        + table_html(
            t.to_dicts(),
            cols,
            sortable=True,
            mark=significant,
            scroll=True,
            table_id=f"impact-{escape(ds.label)}",
        )
    )


def differences_section(page: Page, diff: Differences, base: DatasetStats) -> str:
    bm = base.manifest
    changes = (
        "<ul>"
        + "".join(f"<li><code>{escape(c)}</code></li>" for c in diff.config_changes)
        + "</ul>"
        if diff.config_changes
        else SAME_CONFIGS
    )
    intro = (
        f"<p>Baseline <b>{escape(diff.baseline)}</b> ({escape(base.path)}: "
        f"{escape(str(bm.get('config_path')))}, seed {escape(str(bm.get('seed')))}, "
        f"{int(bm.get('games_done', 0)):,} games). {escape(diff.why)}. Intervals: "
        f"{escape(diff.method)}. Differences are this run minus the baseline.</p>"
        f"<p>Config changes against the baseline:</p>{changes}"
    )
    t = diff.table
    shares = t.filter(pl.col("metric") == "win_share")
    kinds = [k for k in stats.KINDS if shares.filter(pl.col("kind") == k).height]
    figs = page.figure(
        forest.plot_differences(
            t,
            metric="win_share",
            kinds=kinds,
            title=f"Win share: {diff.label} minus {diff.baseline}",
        )
    ) + page.figure(
        forest.plot_differences(
            t,
            metric="mean_score",
            kinds=[k for k in kinds if k != "team"],
            title=f"Mean score: {diff.label} minus {diff.baseline}",
        )
    )
    table = table_html(t.to_dicts(), differences_columns(), sortable=True, mark=significant)
    return intro + figs + table


# ============================================================ more than one dataset, variants


def overview_section(page: Page, datasets: Sequence[DatasetStats]) -> str:
    """One row per dataset (players, games, the first player's share against its fair 1/n and
    edge with interval, length, score) and share / fair per place in the turn order and per
    seat, the datasets side by side; the bars of raw win shares only when every dataset has the
    same player count (a fair share is 1/n: raw shares of different counts do not compare)."""
    rows = [
        {
            "label": d.label,
            "game": d.manifest.get("game"),
            "players": d.shares.players,
            "games": d.shares.games,
            "fair": d.advantage.fair,  # 1/n, or the mean seat win where seats win together
            "first": d.advantage.first_player_share,
            "first_norm": d.advantage.first_player_share / d.advantage.fair,
            "edge": d.advantage.first_player_edge,
            "edge_lo": d.advantage.edge_lo,
            "edge_hi": d.advantage.edge_hi,
            "turns": d.dist.turns.mean,
            "score": d.dist.score.mean,
        }
        for d in datasets
    ]
    table = table_html(
        rows,
        [
            Column("dataset", lambda r: r["label"]),
            Column("game", lambda r: r["game"]),
            Column("players", lambda r: r["players"], str, True),
            Column("games", lambda r: r["games"], fmt(","), True),
            Column(
                "fair share",
                lambda r: r["fair"],
                fair_pct,
                True,
                "1 / players, or the mean seat win where seats win together",
            ),
            Column("first player wins", lambda r: r["first"], fmt(".2%"), True),
            Column("first player share / fair", lambda r: r["first_norm"], fmt(".3f"), True),
            Column(
                "first-player edge (points)",
                lambda r: r["edge"],
                fmt("+.2f", PTS),
                True,
                "share - fair, in percentage points",
            ),
            interval("edge_lo", "edge_hi", "+.2f", PTS, "points"),
            Column("mean turns", lambda r: r["turns"], fmt(".2f"), True),
            Column("mean score", lambda r: r["score"], fmt(".2f"), True),
        ],
        sortable=True,
    )
    counts = sorted({d.shares.players for d in datasets})
    side = _normalised_side_by_side(datasets)
    if len(counts) == 1:
        fig = page.figure(
            figures.plot_overview([d.label for d in datasets], [d.shares for d in datasets])
        )
        return fig + table + side
    said = ", ".join(map(str, counts[:-1])) + f" and {counts[-1]}"
    note = (
        f'<p class="note">The datasets have {said} players: a fair share '
        "is 1/players, so raw win shares do not compare across them. Compared here: share / "
        "fair (share × players; 1 = fair) per place in the turn order and per seat, and the "
        "first player's edge (share − 1/players), with 95 % intervals over games.</p>"
    )
    return note + table + side


def _normalised_side_by_side(datasets: Sequence[DatasetStats]) -> str:
    """Share / fair [interval] per place in the turn order and per seat, a column per dataset."""
    cells: dict[tuple[str, int], dict[str, str]] = {}
    for d in datasets:
        for kind, frame in (("order", d.shares.by_order), ("seat", d.shares.by_seat)):
            for r in frame.iter_rows(named=True):
                v, lo, hi = r["normalised"], r["normalised_lo"], r["normalised_hi"]
                text = f"{v:.3f}" + (f" [{lo:.3f}, {hi:.3f}]" if finite(lo) and finite(hi) else "")
                cells.setdefault((kind, int(r[kind])), {})[d.label] = text
    keys = sorted(cells, key=lambda k: (k[0] != "order", k[1]))
    out = [
        {"group": f"{ordinal(k)} player" if kind == "order" else f"seat {k}", **cells[(kind, k)]}
        for kind, k in keys
    ]
    cols = [Column("share / fair", lambda r: r["group"])] + [
        Column(d.label, lambda r, name=d.label: r.get(name, "–")) for d in datasets
    ]
    return (
        "<h4>Share / fair per place in the turn order and per seat</h4>"
        '<p class="note">Win share × players (1 = a fair share), 95 % intervals over games; '
        "– where a dataset has no such place or seat.</p>" + table_html(out, cols)
    )


def _headline_words(impact: ImpactFile) -> str:
    metric, kind, group = impact.headline
    return f"the {difference_label(kind, group)}'s {metric.replace('_', ' ')}"


def impact_source(impact: ImpactFile) -> str:
    """The impact file as a reader can find it again (HTML). A results directory's own report
    variants (``variants.json`` beside its ``manifest.json``, written by ``simulate --report``
    and ``report``) are named so, with the command that writes them: their path is where the
    report was built, often a scratch folder gone by the time the page is read (a published
    report's was ``.nox/reports/tmp/<game>/variants.json``). Any other file by its path."""
    path = Path(impact.path)
    if path.name == "variants.json" and (path.parent / "manifest.json").is_file():
        config = impact.config_path or "CONFIG"
        return (
            "this run's report variants (<code>variants.json</code> in its results directory, "
            f"written by <code>balance simulate {escape(config)} --report FILE.html</code> or "
            "<code>balance report RESULTS</code>)"
        )
    return f"<code>{escape(impact.path)}</code>"


def _headline_diff_columns(impact: ImpactFile) -> list[Column]:
    """The headline change and its interval in the headline metric's unit: a change of a win
    share in percentage points, of a mean score or length in its own unit."""
    metric = impact.headline[0]
    if metric == "win_share":
        return [
            Column("headline diff (points)", lambda r: r["diff"], fmt("+.2f", PTS), True),
            interval("lo", "hi", "+.2f", PTS, "points"),
        ]
    unit = "turns" if metric == "mean_turns" else metric.removeprefix("mean_").replace("_", " ")
    return [
        Column(f"headline diff ({unit})", lambda r: r["diff"], fmt("+.3f"), True),
        interval("lo", "hi", "+.3f", unit=unit),
    ]


def variants_section(page: Page, impact: ImpactFile) -> str:
    """The interventional impact of an impact file's variants (the report's own, or --impact)."""
    s = impact.summary
    intro = (
        f"<p>From {impact_source(impact)}: {s.height} variants of "
        f"<code>{escape(impact.config_path or '(config not recorded)')}</code>, each played on "
        f"the same {impact.games:,} games"
        + (f" (seed {escape(str(impact.seed))})" if impact.seed is not None else "")
        + " as the config. "
        f"Intervals: {escape(impact.method)}. These are causal effects of each change, unlike "
        "the observational diagnostics above. Variants are ranked by their change of the "
        f"headline metric, {escape(_headline_words(impact))}, declared before the games were "
        f"played. Red: {escape(stats.RULE)}, over every variant (intervals are per row).</p>"
    )
    cols = [
        Column("variant", lambda r: r["variant"]),
        Column("change", lambda r: r["description"]),
        *_headline_diff_columns(impact),
        Column("q (BH)", lambda r: r["q_value"], pvalue, True),
        Column("significant rows", lambda r: r["changes"], fmt("d"), True, "BH q < 0.05"),
        Column("turns diff", lambda r: r["turns_diff"], fmt("+.3f"), True),
    ]
    first = first_player_rows(impact)
    edges = ""
    if first:
        # sorted as the ranked table above, so that the two read together
        order = {v: i for i, v in enumerate(s["variant"].to_list())}
        first = sorted(first, key=lambda r: order.get(r["variant"], len(order)))
        edges = (
            "<h4>First player's edge in each variant</h4>"
            + f'<p class="note">Edge: the first player\'s win share minus a fair '
            f"{fair_pct(first[0]['fair'])}; the change is paired over the same games.</p>"
            + table_html(
                first,
                [
                    Column("variant", lambda r: r["variant"]),
                    Column("change", lambda r: r["description"]),
                    Column("first player wins, config", lambda r: r["a"], fmt(".2%"), True),
                    Column("edge, config (points)", lambda r: r["edge_a"], fmt("+.2f", PTS), True),
                    Column("first player wins, variant", lambda r: r["b"], fmt(".2%"), True),
                    Column("edge, variant (points)", lambda r: r["edge_b"], fmt("+.2f", PTS), True),
                    Column("change (points)", lambda r: r["diff"], fmt("+.2f", PTS), True),
                    interval("lo", "hi", "+.2f", PTS, "points"),
                ],
                sortable=True,
                mark=significant,
            )
        )
    policy_rows = impact.table.filter(pl.col("kind") == "policy")
    metrics = ["mean_score"]
    if policy_rows["group"].n_unique() > 1:  # one policy holds every seat: its share is fixed
        metrics.insert(0, "win_share")
    policy_rows = policy_rows.filter(pl.col("metric").is_in(metrics))
    detail = ""
    if policy_rows.height:
        detail = (
            "<h4>Per policy</h4>"
            '<p class="note">Red: Benjamini-Hochberg q &lt; 0.05 over every row of every '
            "variant.</p>"
            + table_html(
                policy_rows.to_dicts(),
                [
                    Column("variant", lambda r: r["variant"]),
                    Column("metric", lambda r: r["metric"].replace("_", " ")),
                    Column("policy", lambda r: r["group"]),
                    Column("base", lambda r: r["a"], fmt(".4g"), True),
                    Column("variant value", lambda r: r["b"], fmt(".4g"), True),
                    Column("diff", lambda r: r["diff"], fmt("+.4f"), True),
                    interval("lo", "hi", "+.4f"),
                    Column("p", lambda r: r["p_value"], pvalue, True),
                ],
                sortable=True,
                mark=significant,
                scroll=True,
            )
        )
    return (
        intro
        + page.figure(forest.plot_impact_variants(s, impact.table))
        + table_html(s.to_dicts(), cols, sortable=True, mark=significant)
        + edges
        + detail
    )


# ============================================================================== the verdict


_AXIS_NAMES = {
    "order": "turn order",
    "seat": "seat (chair)",
    "policy_order": "policy by place",
    "team": "side",
    "role": "role",
}


def verdict_table(ds: DatasetStats) -> str:
    """The numbers behind the verdict: every group of every axis, its share, its reference, its
    deviation with the simultaneous interval of its axis, the tolerance and the verdict."""
    rows = []
    for axis in ds.axes:
        for r in axis.rows.to_dicts():
            need = r["games_needed"]
            rows.append(
                {
                    **r,
                    "axis": _AXIS_NAMES[axis.kind],
                    "label": axis_group_label(axis.kind, r),
                    "tol": axis.tolerance,
                    "need": about_games(need).removeprefix("about ")
                    if r["verdict"] == "undetermined"
                    else "",
                    "ref_kind": "target" if r.get("target") else axis.reference,
                }
            )
    if not rows:
        return ""

    def dev(r: dict[str, Any]) -> str:
        return points(r["dev"], r["lo"], r["hi"]) if finite(r["ref"]) else "–"

    def ref(r: dict[str, Any]) -> str:
        if not finite(r["ref"]):
            return "no target declared"
        what = {"mean": "mean seat win", "policy": "policy, every place", "fair": "seats' part"}
        return f"{r['ref']:.2%} ({what.get(r['ref_kind'], r['ref_kind'])})"

    cols = [
        Column("axis", lambda r: r["axis"]),
        Column("group", lambda r: r["label"]),
        Column("games", lambda r: r["games"], lambda v: f"{v:,}", True),
        Column("win share", lambda r: r["share"], fmt(".2%"), True),
        Column("reference", lambda r: r, ref),
        Column(
            "deviation [simultaneous 95 %]",
            lambda r: r,
            dev,
            tip="share minus reference, in points; intervals hold together over each axis",
        ),
        Column("tolerance", lambda r: r["tol"], lambda v: f"±{v * 100:g} points", True),
        Column("verdict", lambda r: r["verdict"]),
        Column("games to decide", lambda r: r["need"]),
    ]
    return (
        "<details open><summary>The verdict's numbers: every place, seat, side and role "
        "against its reference</summary>"
        + table_html(
            rows, cols, sortable=True, mark=lambda r: r["verdict"] == "outside", scroll=True
        )
        + '<p class="note">A group is <i>within</i> when its whole simultaneous interval lies '
        "inside ± the tolerance, <i>outside</i> when it lies wholly beyond, else not determined "
        "(with the games that would decide it at the observed spread). Each axis' intervals "
        "hold together with 95 % (Bonferroni over its groups), so scanning a table for its "
        "worst row finds no false alarm by chance.</p></details>"
    )


def players_note(ds: DatasetStats) -> str:
    """Which players produced every number of the page, one line each, and how far that
    carries to human play."""
    return players_box([ds.manifest], players=ds.players)
