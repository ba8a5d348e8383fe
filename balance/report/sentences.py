"""The report's words: labels and the summary sentences, from numbers.py's NamedTuples (nothing
here reads a dataset or draws).

The verdict a page opens with is verdict.py's, built on the labels here. ``summary_sentences``
says what matters most about one dataset (with its baseline differences and
interventional impact, if any); ``comparison_sentences`` what B changed against A in a
``balance compare``. Numbers are written by balance/fmt.py (``pct``, ``share_pm``, ``points``:
one significant digit of an interval's half-width, so a share is never written more precisely
than it is known).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import polars as pl

from balance.fmt import (  # digits: balance/games/corvids/views/report.py imports it from here
    digits,  # noqa: F401
    estimate,
    fair_pct,
    finite,
    p_text,
    pct,
    pct_digits,
    points,
    q_text,
    share_pm,
    signed,
)
from balance.impact_file import ImpactFile
from balance.report.numbers import (
    DatasetStats,
    Differences,
    comparison_rows,
    config_diff,
    first_player_rows,
)
from balance.stats import KINDS, RULE

# ===================================================================================== labels


def ordinal(k: int) -> str:
    """0 -> '1st' (places in the turn order are 0-based in the data, 1st.. for readers)."""
    n = k + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def difference_label(kind: str, group: str) -> str:
    """'seat 1', '1st player', 'policy greedy', 'game length' for a row of a differences table."""
    if kind == "order":
        return f"{ordinal(int(group))} player"
    if kind == "game":
        return "game length"
    return f"{kind} {group}"


def _excludes(lo: float, hi: float, x: float = 0.0) -> bool:
    return finite(lo) and finite(hi) and bool(lo > x or hi < x)


# ==================================================================================== dataset


def tolerance_text(tol: float) -> str:
    """'±2 points', '±1 point', '±0.5 points'."""
    return f"±{tol * 100:g} point{'s' * (tol != 0.01)}"


def deviation_text(row: dict[str, Any]) -> str:
    return points(row["dev"], row["lo"], row["hi"])


def _ceil(x: float, decimals: int) -> str:
    """``x`` rounded *up* at ``decimals``: a bound said in fewer digits never claims more than
    was computed (1.04 points is 'within ±1.1', never 'within ±1.0')."""
    scale = 10**decimals
    return f"{math.ceil(x * scale - 1e-9) / scale:.{decimals}f}"


def seat_bound(ws: Any, level: float = 0.95) -> tuple[float, float]:
    """(x, level): with simultaneous ``level`` intervals (Bonferroni over the seats: each seat's
    Wilson interval at 1 - (1 - level)/players), every seat's share is within ±x of fair."""
    lo, hi = ws.simultaneous_intervals(level)
    fair = ws.by_seat["fair"].to_numpy()
    return float(max((hi - fair).max(), (fair - lo).max())), level


def summary_sentences(
    ds: DatasetStats,
    *,
    diff: Differences | None = None,
    impact: ImpactFile | None = None,
) -> list[str]:
    """A few plain sentences on what matters most in ``ds``, from its numbers."""
    out: list[str] = []
    ws, adv = ds.shares, ds.advantage
    players = ws.players
    fair = adv.fair
    n_games = f"{ws.games:,} games"

    # Who wins: policies first when the line-up mixes them, else seats.
    if ws.by_policy.height > 1:
        pol = ws.by_policy.sort("share", descending=True).to_dicts()
        first, rest = pol[0], pol[1:]
        others = ", ".join(f"{pct(r['share'])} for {r['policy']}" for r in rest)
        out.append(
            f"{first['policy'].capitalize()} seats win {share_pm(first['share'], first['lo'], first['hi'])} "
            f"of their seat-games against {others} (fair: {fair_pct(fair)}; {n_games})."
        )
    seat_axis = next((a for a in ds.axes if a.kind == "seat"), None)
    if adv.symmetric and adv.p_value is not None and adv.p_value >= 0.05:
        # the verdict's own simultaneous intervals, so that the two never disagree
        bound, level = (
            (seat_axis.bound, seat_axis.level) if seat_axis is not None else seat_bound(ws)
        )
        k = pct_digits(bound / 2)
        out.append(
            f"No seat wins more or less often than a fair {fair_pct(fair)} beyond chance "
            f"(χ² = {adv.chi2:.2f}, {p_text(adv.p_value)} over {n_games}); with simultaneous "
            f"{level * 100:g} % intervals every seat is within ±{_ceil(bound * 100, k)} points "
            "of fair."
        )
    elif seat_axis is not None:  # with mixed policies, seats differ by policy (said above)
        far = max(seat_axis.rows.to_dicts(), key=lambda r: abs(r["dev"]))
        chi = f"; χ² = {adv.chi2:.1f}, {p_text(adv.p_value)}" if adv.symmetric else ""
        tol = tolerance_text(seat_axis.tolerance)
        judged = {
            "within": f"within {tol} of it",
            "outside": f"off by more than {tol}",
            "undetermined": f"whether within {tol} not determined at {n_games}",
        }[far["verdict"]]
        out.append(
            f"The seat farthest from the mean seat win ({pct(far['ref'])}) is seat "
            f"{far['group']}, at {pct(far['share'])}: {deviation_text(far)} (simultaneous "
            f"{seat_axis.level * 100:g} % over {players} seats; {judged}{chi})."
        )
    teams = ws.by_team
    if teams.height and int(teams["seats"].max()) > 1:
        t = (
            teams.with_columns(dev=(pl.col("share") - pl.col("fair")).abs())
            .sort("dev", descending=True)
            .row(0, named=True)
        )
        if finite(t["fair"]):
            out.append(
                f"Team {t['team']} wins {share_pm(t['share'], t['lo'], t['hi'])} of games against "
                f"a fair {fair_pct(t['fair'])}."
            )
        else:  # dealt teams (Raven Manor): no share is fair by construction; say them all
            rows = teams.sort("share", descending=True).to_dicts()
            said = "; ".join(
                f"team {r['team']} {share_pm(r['share'], r['lo'], r['hi'])}" for r in rows
            )
            out.append(
                f"Sides are dealt, so no team has a fair share by construction: {said} of games."
            )

    # Turn order.
    fair_words = (
        f"a fair {fair_pct(fair)}"
        if ws.teams_fixed
        else f"the mean seat win of these games ({pct(fair)})"
    )
    if finite(adv.first_player_share) and players > 1:
        share = adv.first_player_share
        order0 = adv.by_order.filter(pl.col("order") == 0).row(0, named=True)
        if _excludes(adv.edge_lo, adv.edge_hi):
            out.append(
                f"The first player wins {share_pm(share, order0['lo'], order0['hi'])} of games against "
                f"{fair_words}: an edge of {points(adv.first_player_edge, adv.edge_lo, adv.edge_hi)}."
            )
        else:
            half = max(abs(adv.edge_lo), abs(adv.edge_hi))
            bound_pts = f"{half * 100:.{pct_digits(half / 2)}f}"
            out.append(
                f"The first player wins {share_pm(share, order0['lo'], order0['hi'])} of games "
                f"against {fair_words}: an edge of "
                f"{points(adv.first_player_edge, adv.edge_lo, adv.edge_hi)}, not "
                f"distinguishable from 0 at {n_games} (it lies within ±{bound_pts} points, "
                f"{adv.level * 100:g} %)."
            )

    if impact is not None:
        out += impact_sentences(impact)
    if diff is not None:
        out += difference_sentences(diff)

    # Observational associations last: diagnostics, never the lead, and never an outcome of play
    # (a building lost) passed off as a card.
    outcomes = list(ds.manifest.get("outcome_events") or ())
    cards = ds.impact.table.filter(~pl.col("event").is_in(outcomes))
    t = cards.filter(pl.col("significant") & pl.col("diff").is_not_nan())
    if t.height:
        r = t.with_columns(a=pl.col("diff").abs()).sort("a", descending=True).row(0, named=True)
        who = f"{r['policy']} seat-games" if ds.impact_by == "policy" else "Seat-games"
        out.append(
            f"Strongest card association (a diagnostic, not an effect): {who} with "
            f"“{r['event']} {r['card']}” win {pct(r['share_with'])} against {pct(r['share_without'])} "
            f"without ({points(r['diff'])}, {q_text(r['q_value'])}); {t.height} of "
            f"{cards.filter(pl.col('diff').is_not_nan()).height} card events differ "
            f"significantly."
        )
    elif cards.height:
        out.append("No card event is associated with winning beyond chance (BH q ≥ 0.05).")

    d = ds.dist
    q05, q95 = d.turns.quantiles.get(0.05, math.nan), d.turns.quantiles.get(0.95, math.nan)
    out.append(
        f"Games last {d.turns.mean:.1f} turns on average (90 % between {q05:g} and {q95:g}); "
        f"a seat scores {d.score.mean:.2f} on average (median {d.score.quantiles.get(0.5, math.nan):g})."
    )
    reasons = d.end_reasons.sort("games", descending=True).to_dicts()
    if len(reasons) > 1:
        listed = ", ".join(f"{r['end_reason']} {pct(r['share'])}" for r in reasons)
        out.append(
            f"Games end by {listed}. A game whose first place is shared (a draw) gives each of "
            "its k seats 1/k of a win in every win share above."
        )
    return out


def impact_sentences(impact: ImpactFile) -> list[str]:
    """The variants ranked by their change of the headline metric (declared in the config before
    the games), and with a report's own few variants what each does to the first player's
    edge."""
    s = impact.summary
    if s.height == 0:
        return []
    edges = []
    featured = set(impact.featured) if impact.featured else None
    if featured or s.height <= 3:  # a game's own report variants: what each does to the edge
        for r in first_player_rows(impact):
            if featured is not None and r["variant"] not in featured:
                continue
            edges.append(
                f"The first player's edge is {points(r['edge_a'])} in this config and "
                f"{points(r['edge_b'])} with “{r['variant']}” ({r['description']}): a paired "
                f"change of {points(r['diff'], r['lo'], r['hi'])} on the same {impact.games:,} "
                "games."
            )
    metric, kind, group = impact.headline
    what = f"the {difference_label(kind, group)}'s {metric.replace('_', ' ')}"
    if kind == "game":
        what = "game length"
    ranked = s.filter(pl.col("diff").is_not_null())
    if ranked.height == 0:
        return [f"Interventional impact: no variant has a {what} row to rank by.", *edges]
    top = ranked.row(0, named=True)
    n_sig = int(ranked["significant"].sum())
    change = headline_change(metric, kind, top)
    rule = f"{RULE}, over every variant"
    if s.height == 1:
        sig = "significant" if top["significant"] else "not significant"
        first = (
            f"Interventional impact (on the same {impact.games:,} games): “{top['variant']}” "
            f"changes {what} by {change}, {q_text(top['q_value'])} ({sig}; {rule})."
        )
    else:
        first = (
            f"Interventional impact ({s.height} variants, each on the same {impact.games:,} "
            f"games), ranked by {what} (the headline metric, declared in advance): "
            f"“{top['variant']}” changes it most, by {change}, {q_text(top['q_value'])}; "
            f"{n_sig} of {s.height} variants {'changes' if n_sig == 1 else 'change'} it "
            f"significantly ({rule})."
        )
    return [first, *edges]


def headline_change(metric: str, kind: str, r: dict[str, Any]) -> str:
    if metric == "win_share":
        return points(r["diff"], r["lo"], r["hi"])
    unit = " turns" if kind == "game" else ""
    return signed(r["diff"], r["lo"], r["hi"], 1, unit)


def difference_sentences(diff: Differences) -> list[str]:
    """The largest significant change of a win share against the baseline (or that none is)."""
    shares = diff.table.filter(pl.col("metric") == "win_share").with_columns(
        a_=pl.col("diff").abs()
    )
    how = "paired over" if diff.paired else "independent samples,"
    head = f"Against baseline {diff.baseline} ({how} {diff.games:,} games): "
    sig = shares.filter(pl.col("significant")).sort("a_", descending=True)
    if sig.height:
        r = sig.row(0, named=True)
        return [
            head + f"the largest significant change is {difference_label(r['kind'], r['group'])}'s "
            f"win share, {pct(r['a'])} → {pct(r['b'])} ({points(r['diff'], r['lo'], r['hi'])}); "
            f"{sig.height} of {shares.height} win shares changed significantly."
        ]
    if shares.height == 0:
        return [head + "no seat, policy or team in common to compare."]
    r = shares.sort("a_", descending=True).row(0, named=True)
    return [
        head + "no win share changed significantly (largest: "
        f"{difference_label(r['kind'], r['group'])} {points(r['diff'], r['lo'], r['hi'])})."
    ]


# ================================================================================ compare A B


def left_out_words(left_out: Sequence[tuple[str, str, str]]) -> list[str]:
    """Sentences on the groups a comparison's table leaves out (``Comparison.left_out``, from
    balance/experiments/compare.py's ``leave_out``): '2 teams and 19 roles never dealt in these
    games are not shown.'"""

    def counted(items: list[tuple[str, str, str]]) -> str:
        parts = []
        for kind in ("team", "role"):  # the groups a game can deal anew every game
            n = sum(1 for k, _, _ in items if k == kind)
            if n:
                parts.append(f"{n} {kind}{'s' * (n != 1)}")
        return " and ".join(parts)

    def named(items: list[tuple[str, str, str]]) -> str:
        return ", ".join(f"{k} {g} (dealt {why})" for k, g, why in items)

    never = [x for x in left_out if x[2] == "never dealt"]
    roles = [x for x in left_out if x[2] != "never dealt" and x[0] == "role"]
    teams = [x for x in left_out if x[2] != "never dealt" and x[0] == "team"]
    out = []
    if never:
        verb = "is" if len(never) == 1 else "are"
        out.append(f"{counted(never)} never dealt in these games {verb} not shown.")
    if roles:
        one = len(roles) == 1
        out.append(
            f"{named(roles)[:1].upper()}{named(roles)[1:]} {'is' if one else 'are'} not shown: "
            f"no game deals {'it' if one else 'them'} in both A and B, so nothing pairs "
            f"{'it' if one else 'them'}."
        )
    if teams:
        one = len(teams) == 1
        out.append(
            f"{named(teams)[:1].upper()}{named(teams)[1:]}: win share only (0 in a game "
            f"without {'it' if one else 'them'}); no game seats {'it' if one else 'them'} in "
            f"both A and B, so {'its' if one else 'their'} mean score has no paired difference."
        )
    return out


def _by(d: float, lo: float, hi: float, scale: float, unit: str) -> str:
    """'3.8 turns [3.7, 3.9]': the size of a change and its interval, signs dropped (the verb
    says the direction)."""
    if d < 0:
        d, lo, hi = -d, -hi, -lo
    # scaled before the digits are chosen, as this page always has
    return estimate(d * scale, lo * scale, hi * scale, 1.0, unit)


def listing(items: Sequence[str], most: int = 4) -> str:
    """'a, b and c', the first ``most`` and 'n more'."""
    items = list(items)
    if len(items) > most:
        items = [*items[:most], f"{len(items) - most} more"]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _nobody(kind: str) -> str:
    if kind == "order":
        return "no place in the turn order wins significantly more or less often"
    return f"no {kind}'s win share changes significantly"


def _share_clause(t: pl.DataFrame, kind: str) -> str | None:
    rows = t.filter((pl.col("metric") == "win_share") & (pl.col("kind") == kind))
    if rows.height == 0:
        return None
    rows = rows.with_columns(_abs=pl.col("diff").abs()).sort("_abs", descending=True)
    sig = rows.filter(pl.col("significant"))
    if sig.height:
        parts = [
            f"{'raises' if r['diff'] > 0 else 'lowers'} "
            f"{'the ' * (kind == 'order')}{difference_label(r['kind'], r['group'])}'s "
            "win share by "
            f"{_by(r['diff'], r['lo'], r['hi'], 100, ' points')} "
            f"({pct(r['a'])} → {pct(r['b'])})"
            for r in sig.iter_rows(named=True)
        ]
        return "B " + listing(parts)
    r = rows.row(0, named=True)
    return (
        f"{_nobody(kind)} (largest: {difference_label(r['kind'], r['group'])} "
        f"{signed(r['diff'], r['lo'], r['hi'], 100, ' points')})"
    )


def _length_clause(t: pl.DataFrame) -> str:
    r = t.filter(pl.col("metric") == "mean_turns").row(0, named=True)
    d, lo, hi = r["diff"], r["lo"], r["hi"]
    if d == 0 and lo == 0 and hi == 0:
        return f"B leaves the length of every game unchanged ({r['a']:.1f} turns on average)"
    if r["significant"]:
        verb = "lengthens" if d > 0 else "shortens"
        return (
            f"B {verb} games by {_by(d, lo, hi, 1, ' turns')} "
            f"({r['a']:.1f} → {r['b']:.1f} turns on average)"
        )
    return f"B does not change game length significantly ({signed(d, lo, hi, 1, ' turns')})"


def comparison_sentences(comparison: Any) -> list[str]:
    """What B changed against A, in words: game length and every significant change of a win
    share or mean score (significant: balance.stats.RULE; no other change is named as one)."""
    t = comparison_rows(comparison)
    changes = config_diff(comparison.a_config.resolved_dict(), comparison.b_config.resolved_dict())
    changes = [c for c in changes if c[0] != "description"]  # words, not rules (in the table)
    out = []
    if changes:
        listed = listing([f"{k} ({va} → {vb})" for k, va, vb in changes], most=3)
        out.append(f"B differs from A in {listed}.")
    else:
        out.append("A and B are the same config (apart from games and seed).")
    first = [_length_clause(t), _share_clause(t, "seat")]
    out.append("; ".join(c for c in first if c) + ".")
    for kind in (k for k in KINDS if k != "seat"):  # seats: in the sentence above
        clause = _share_clause(t, kind)
        if clause:
            out.append(clause[0].upper() + clause[1:] + ".")
    scores = t.filter((pl.col("metric") == "mean_score") & pl.col("significant"))
    n_scores = t.filter(pl.col("metric") == "mean_score").height
    if scores.height:
        scores = scores.with_columns(_abs=pl.col("diff").abs()).sort("_abs", descending=True)
        parts = [
            f"{difference_label(r['kind'], r['group'])} "
            f"{signed(r['diff'], r['lo'], r['hi'])} ({r['a']:.2f} → {r['b']:.2f})"
            for r in scores.iter_rows(named=True)
        ]
        out.append(
            f"Mean score changes significantly for {scores.height} of {n_scores} groups: "
            f"{listing(parts)}."
        )
    elif n_scores:
        out.append("No mean score changes significantly.")
    return out
