"""The verdict a report page opens with, in words: every axis of balance judged against the
config's tolerances with simultaneous intervals (balance/stats/axes.py), which strategy or side
leads, the changes that move the headline metric (causal, from an impact file) and what these
games leave undetermined.

``verdict_sentences`` takes numbers.py's ``DatasetStats`` (and an ``ImpactFile``); nothing here
reads a dataset or draws. The labels and formats are sentences.py's and balance/fmt.py's;
sections.py's verdict table shows the numbers behind each sentence.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl
from scipy import stats as sps

from balance.fmt import fair_pct, finite, pct, points, share_pm
from balance.impact_file import ImpactFile
from balance.report.numbers import DatasetStats
from balance.report.sentences import (
    deviation_text,
    difference_label,
    headline_change,
    listing,
    ordinal,
    tolerance_text,
)
from balance.stats import RULE


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'s' * (n != 1)}"


def about_games(n: int | None) -> str:
    """'about 47,000 games' (two significant digits, rounded up), or that no number would."""
    if n is None:
        return "no practical number of games (the estimate sits on the tolerance)"
    k = max(0, len(str(int(n))) - 2)
    up = -(-int(n) // 10**k) * 10**k
    return f"about {up:,} games"


# the axis, its groups' noun, its tolerance's key and what each group is measured against
_AXIS_WORDS = {
    "order": ("Turn order", "place", "report.tolerance.place"),
    "seat": ("Seats (chairs)", "seat", "report.tolerance.seat"),
    "policy_order": ("Policy by turn order", "policy-place pair", "report.tolerance.policy_order"),
    "team": ("Sides", "side", "report.tolerance.team"),
    "role": ("Roles", "role", "report.tolerance.role"),
}
# the subject of "... is / are (not) balanced"
_AXIS_SUBJECT = {
    "order": "Turn order is",
    "seat": "The seats (chairs) are",
    "policy_order": "Each policy's turn order is",
    "team": "The sides are",
    "role": "The roles are",
}


def axis_group_label(kind: str, row: dict[str, Any]) -> str:
    """'the 2nd player', 'seat 3', 'economy as 1st player', 'team raven', 'role crow'."""
    g = row["group"]
    if kind == "order":
        return f"the {ordinal(int(g))} player"
    if kind == "seat":
        return f"seat {g}"
    if kind == "policy_order":
        return f"{row['policy']} as {ordinal(int(g))} player"
    return f"{kind} {g}"


def _reference_text(axis: Any, row: dict[str, Any]) -> str:
    """What a group of an axis is measured against, with its value."""
    if row.get("target"):
        return f"its target of {pct(row['ref'])} (report.targets.{axis.kind})"
    if axis.kind == "policy_order":
        return f"{row['policy']}'s own {pct(row['ref'])} over every place"
    if axis.kind == "team":
        return f"its seats' part of the table ({pct(row['ref'])})"
    if axis.kind == "role" and axis.sides:
        return f"the mean seat win of its side's roles ({pct(row['ref'])})"
    return f"the mean seat win of these games ({pct(row['ref'])})"


def _against(axis: Any, rows: list[dict[str, Any]]) -> tuple[list[str], str]:
    """Each row as 'the 1st player wins 27.9 % (+2.9 points [+2.2, +3.7])' and, when every row
    has the same reference, that reference said once ('' otherwise: each row says its own); a
    policy's places together: 'economy wins 41.6 % as 1st player (−17.6 points [...]) and
    76.6 % as 2nd (+17.4 points [...]) against its own 59.2 % over every place'."""
    if axis.kind == "policy_order":
        parts = []
        for policy in dict.fromkeys(r["policy"] for r in rows):
            mine = sorted((r for r in rows if r["policy"] == policy), key=lambda r: int(r["group"]))
            places = [
                f"{pct(r['share'])} as {ordinal(int(r['group']))} player ({deviation_text(r)})"
                for r in mine
            ]
            parts.append(
                f"{policy} wins {listing(places)} against its own {pct(mine[0]['ref'])} "
                "over every place"
            )
        return parts, ""
    refs = [_reference_text(axis, r) for r in rows]
    once = len(set(refs)) == 1
    parts = [
        f"{axis_group_label(axis.kind, r)} wins {pct(r['share'])} ({deviation_text(r)}"
        + ("" if once else f" against {ref}")
        + ")"
        for r, ref in zip(rows, refs, strict=True)
    ]
    return parts, (f" against {refs[0]}" if once and refs else "")


def _join(axis: Any, parts: list[str]) -> str:
    """Rows of one sentence: a policy's places are already a list, so policies take ';'."""
    return "; ".join(parts) if axis.kind == "policy_order" else listing(parts, most=4)


def axis_sentence(axis: Any) -> tuple[str, str | None]:
    """The verdict's sentence on one axis (balance/stats/axes.py) and, when the axis is not
    decided, the open question for the closing 'not determined' sentence."""
    name, noun, key = _AXIS_WORDS[axis.kind]
    tol = tolerance_text(axis.tolerance)
    rows = axis.rows.to_dicts()
    judged = [r for r in rows if r["verdict"] != "no reference"]
    how = f"simultaneous {axis.level * 100:g} % intervals over {_count(len(judged), noun)}"
    alone = ""
    unjudged = [r for r in rows if r["verdict"] == "no reference"]
    if axis.kind == "role" and unjudged:
        alone = (
            f" ({listing([str(r['group']) for r in unjudged])} "
            f"{'is' if len(unjudged) == 1 else 'are'} alone on {'its side' if len(unjudged) == 1 else 'their sides'}, "
            "see the sides)"
        )
    if axis.kind == "team" and unjudged:
        said = "; ".join(
            f"team {r['group']} {_share_se(r)}" for r in sorted(unjudged, key=lambda r: -r["share"])
        )
        note = (
            f"Sides are dealt, and no target is declared for "
            f"{'them' if not judged else listing([str(r['group']) for r in unjudged])} "
            f"(report.targets.team), so the verdict gives their shares without judging them: "
            f"{said} of games."
        )
        if not judged:
            return note, None
        rows = judged
    else:
        note = ""
    if not judged:
        return "", None
    far = max(judged, key=lambda r: abs(r["dev"]))
    verdict = axis.verdict
    lead = f"{note} " if note else ""
    if verdict == "within":
        parts, against = _against(axis, [far])
        return (
            f"{lead}{_AXIS_SUBJECT[axis.kind]} balanced within {tol}{alone}: every {noun} is "
            "within it of its "
            f"reference, with {how} ({key}; farthest: {parts[0]}{against}).",
            None,
        )
    if verdict == "outside":
        off = sorted((r for r in judged if r["verdict"] == "outside"), key=lambda r: -abs(r["dev"]))
        parts, against = _against(axis, off)
        rest = [r for r in judged if r["verdict"] == "undetermined"]
        tail = ""
        if rest:
            tail = (
                f"; {_count(len(rest), 'other ' + noun)} not determined at {axis.games:,} "
                f"games ({about_games(axis.games_needed)} would decide "
                f"{'it' if len(rest) == 1 else 'them'})"
            )
        label = f"{_AXIS_SUBJECT[axis.kind]} not balanced"
        return (
            f"{lead}{label}{alone}: {_join(axis, parts)}{against}, off by more than {tol} "
            f"({key}; {how}){tail}.",
            None,
        )
    parts, against = _against(axis, [far])
    return (
        f"{lead}{name}{alone}: whether every {noun} is within {tol} of its reference is not "
        f"determined at {axis.games:,} games (farthest: {parts[0]}{against}; {how}); "
        f"{about_games(axis.games_needed)} would decide it at this spread.",
        f"whether every {noun} is within {tol}",
    )


def _share_se(r: dict[str, Any]) -> str:
    """A share ± its 95 % half-width from its standard error."""
    half = 1.959963984540054 * r["se"]
    return share_pm(r["share"], r["share"] - half, r["share"] + half)


def verdict_sentences(ds: DatasetStats, impact: ImpactFile | None = None) -> list[str]:
    """The verdict a page opens with: every axis of balance judged against the config's
    tolerances with simultaneous intervals (each place in the turn order, the chairs, each policy
    at each place, the sides and the roles: balance/stats/axes.py), which strategy leads, the
    changes that move the headline metric most (causal, from ``impact``) and what these games
    leave undetermined. Every number is on the page below (the verdict table)."""
    ws = ds.shares
    out: list[str] = []
    open_questions: list[str] = []
    for axis in ds.axes:
        sentence, question = axis_sentence(axis)
        if sentence:
            out.append(sentence)
        if question:
            open_questions.append(question)
    lead = _leader(ws, sides=any(a.kind == "team" for a in ds.axes))
    if lead:
        out.append(lead)
    impact_open: list[str] = []
    if impact is not None and impact.summary.height:
        out += _causal_verdict(impact, impact_open)
        adv = ds.advantage
        if impact.headline == ("win_share", "order", "0") and finite(adv.first_player_edge):
            out.append(_toward_fair(impact, adv.first_player_edge))
    if open_questions:
        out.append(f"Not determined at {ws.games:,} games: {listing(open_questions, most=3)}.")
    if impact_open:
        out.append(
            f"Not determined at {impact.games:,} games per variant: "  # type: ignore[union-attr]
            f"{listing(impact_open, most=3)}."
        )
    return out


def _leader(ws: Any, *, sides: bool = False) -> str | None:
    """Which strategy (or team of several seats) leads, by how much, with intervals (teams
    not when the verdict's ``sides`` axis has said them already)."""
    if ws.by_policy.height > 1:
        pol = ws.by_policy.sort("share", descending=True).to_dicts()
        a, b = pol[0], pol[1]
        sep = "ahead of" if a["lo"] > b["hi"] else "level with (intervals overlap)"
        return (
            f"Strategy: {a['policy']} leads, {share_pm(a['share'], a['lo'], a['hi'])} of its "
            f"seat-games, {sep} {b['policy']} at {share_pm(b['share'], b['lo'], b['hi'])} "
            f"(fair {fair_pct(a['fair'])})."
        )
    teams = ws.by_team
    if not sides and teams.height > 1 and not ws.by_team["seats"].cast(pl.Float64).eq(1).all():
        t = teams.sort("share", descending=True).to_dicts()
        a, b = t[0], t[1]
        sep = "ahead of" if a["lo"] > b["hi"] else "level with (intervals overlap)"
        return (
            f"Sides: team {a['team']} wins {share_pm(a['share'], a['lo'], a['hi'])} of games, "
            f"{sep} team {b['team']} at {share_pm(b['share'], b['lo'], b['hi'])}."
        )
    return None


def _causal_verdict(impact: ImpactFile, open_questions: list[str]) -> list[str]:
    metric, kind, group = impact.headline
    what = f"the {difference_label(kind, group)}'s {metric.replace('_', ' ')}"
    if kind == "game":
        what = "game length"
    s = impact.summary.filter(pl.col("diff").is_not_null())
    sig = s.filter(pl.col("significant"))
    hint = impact_games_hint(impact)
    if sig.height == 0:
        open_questions.append(f"which of the {s.height} tested changes moves {what}")
        return [
            f"No tested change of a card or rule moves {what} significantly at "
            f"{impact.games:,} games per variant ({RULE}).{hint}"
        ]
    top = sig.head(3).to_dicts()
    parts = [f"“{r['variant']}” {headline_change(metric, kind, r)}" for r in top]
    return [
        f"What moves {what} most, causally (each change played on the same "
        f"{impact.games:,} games): {listing(parts)}; {sig.height} of {s.height} tested changes "
        f"{'moves' if sig.height == 1 else 'move'} it significantly.{hint}"
    ]


def impact_games_hint(impact: ImpactFile) -> str:
    """When the card impact's games per variant cannot yet resolve a change of one unit of the
    headline (a point of a win share, one point of score, one turn), how many would, at the
    spread its variants show: ' About 40,000 games per variant would resolve a 1-point change
    (report.impact_games: 40000).' ('' when its games already do)."""
    metric = impact.headline[0]
    unit = 0.01 if metric == "win_share" else 1.0
    rows = impact.summary.filter(pl.col("diff").is_not_null() & pl.col("lo").is_not_null())
    if rows.height == 0 or impact.games <= 0:
        return ""
    z = stats_z(impact.level)
    se = ((rows["hi"] - rows["lo"]) / (2 * z)).to_numpy()
    se = se[np.isfinite(se) & (se > 0)]
    if len(se) == 0:
        return ""
    # every variant's change judged at once: Bonferroni over the variants is the rule's worst
    zm = stats_z(1 - (1 - impact.level) / rows.height)
    need = impact.games * (zm * float(np.median(se)) / unit) ** 2
    if need <= impact.games:
        return ""
    n = math.ceil(need / 1000) * 1000
    what = {"win_share": "a 1-point change", "mean_score": "a change of 1 in the mean score"}
    return (
        f" About {n:,} games per variant would resolve {what.get(metric, 'a change of 1 turn')}"
        f" of it at this spread (report.impact_games: {n})."
    )


def stats_z(level: float) -> float:
    """The two-sided normal quantile of a ``level`` interval."""
    return float(sps.norm.ppf(0.5 + level / 2))


def _toward_fair(impact: ImpactFile, edge: float) -> str:
    """The tested changes that move the first player's share significantly toward fair."""
    s = impact.summary.filter(pl.col("significant") & pl.col("diff").is_not_null())
    # closer to fair, not past it by more than it was off
    toward = s.filter((pl.col("diff") + edge).abs() < abs(edge)).head(2).to_dicts()
    if not toward:
        return (
            "To reduce the first player's edge: none of the tested changes brings it "
            "significantly closer to fair."
        )
    parts = [
        f"“{r['variant']}” ({points(r['diff'], r['lo'], r['hi'])}, to an edge of "
        f"about {points(edge + r['diff'])})"
        for r in toward
    ]
    verb = "brings" if len(parts) == 1 else "bring"
    return f"To reduce the first player's edge: {listing(parts)} {verb} it closer to fair."
