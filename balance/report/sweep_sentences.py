"""The words of a ``balance sweep``'s page, from numbers.py's ``SweepStats`` (nothing here reads
a sweep or draws).

``sweep_sentences`` says what the curves show: the config's headline metric at each point, and a
step or a trend named as a change only when the table calls it significant (the project's one
rule, balance/stats/multiple.py); points that played identical games are said to be so. The
helpers above it (``change``, ``slope_text``, ``group_words``, ...) write one step or trend row
as the page's figures and tables also show it.

With different player counts among the points, seats and places are said as share / fair
(share × players; 1 = fair): a raw share means something else at each count.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from balance.fmt import digits, q_text
from balance.report.numbers import (
    HEADLINE_SCORE,
    HEADLINE_SHARE,
    METRICS,
    Metric,
    SweepStats,
    metric_rows,
    step_rows,
)
from balance.report.sentences import difference_label, listing, ordinal
from balance.stats import curves, trend
from balance.sweep_file import Axis

# ============================================================================== one row in words


def shown_scale(row: dict[str, Any], m: Metric) -> tuple[float, str]:
    """(scale, unit) of a step row: share / fair is a ratio, everything else as the metric."""
    if row["metric"] == "normalised_share":
        return 1.0, ""
    return m.scale, m.unit


def row_words(row: dict[str, Any]) -> str:
    """The group a step row is about: '1st player', "1st player's share / fair", 'seat 2'."""
    words = group_words(row["kind"], row["group"])
    return f"{words}'s share / fair" if row["metric"] == "normalised_share" else words


def change(row: dict[str, Any], m: Metric) -> str:
    scale, unit = shown_scale(row, m)
    d, lo, hi = row["diff"] * scale, row["lo"] * scale, row["hi"] * scale
    k = digits((hi - lo) / 2, none=2)
    return f"{d:+.{k}f}{unit} [{lo:+.{k}f}, {hi:+.{k}f}]".replace("-", "−")


def value_text(v: float, lo: float, hi: float, m: Metric, *, signed: bool = False) -> str:
    k = digits((hi - lo) * m.scale / 2, none=2)
    sign = "+" if signed else ""
    return (
        f"{v * m.scale:{sign}.{k}f}{m.unit} [{lo * m.scale:{sign}.{k}f}, {hi * m.scale:{sign}.{k}f}]"
    ).replace("-", "−")


def group_words(kind: str, group: str) -> str:
    if kind == "all":
        return "all seats"
    if kind == "reason":
        return f"end by {group}"
    return difference_label(kind, group)


# ========================================================================= the page's sentences


def level_text(ss: SweepStats) -> str:
    return f"{ss.level * 100:g} %"


def axes_words(axes: Sequence[Axis]) -> str:
    return "; ".join(f"{a.key} over {listing(list(a.labels), most=8)}" for a in axes)


def sweep_sentences(ss: SweepStats) -> list[str]:
    """What the sweep shows, in words a statistician would sign: each value with its interval,
    the config's headline metric at each point, and a change between neighbouring points or a
    trend across the points named only when the table calls it significant; points that played
    identical games said to be so."""
    m = ss.run.manifest
    n_points = len(ss.run.points)
    out = [
        f"{m.get('config_path', '?')} at {n_points} point{'s' * (n_points != 1)} "
        f"({axes_words(ss.axes)}), {int(m['games']):,} games each on the same seeds "
        f"(seed {m['seed']}): game i of every point is dealt from the same random stream."
    ]
    kinds = set(ss.steps["paired"].to_list()) if ss.steps.height else set()
    if True in kinds and False in kinds:
        out.append(
            "Neighbouring points with the same number of players are compared game by game "
            "(paired t-intervals over games); points with different player counts deal "
            "different games, so those are compared as independent samples (Welch intervals), "
            "on share / fair, the first player's edge, mean score and game length only."
        )
    elif False in kinds:
        out.append(
            "The points have different numbers of players, which deal different games from the "
            "same seeds: neighbouring points are compared as independent samples (Welch "
            "intervals over games), on share / fair (share × players) per place in the turn "
            "order, the first player's edge, mean score and game length; seats' raw shares are "
            "not compared."
        )
    elif True in kinds:
        out.append(
            "Neighbouring points are compared game by game, paired on the same games (t-intervals "
            "over games of the per-game difference)."
        )
    method = trend_method_sentence(ss)
    if method:
        out.append(method)
    if ss.identical:
        key = ss.axes[0].key
        out.insert(
            1,
            "The points played identical games: the knob changes nothing in these games."
            if len(ss.axes) == 1
            else f"Along {key}, the points of each curve played identical games: {key} changes "
            "nothing in these games.",
        )
    if ss.missing:
        out.append(
            f"{len(ss.missing)} of {n_points} points are not finished and are left out: "
            f"{listing(ss.missing)}."
        )
    head = _headline_sentence(ss)
    if head:
        out.append(head)
    for key in ("edge", "length", "score"):
        metric = next(x for x in METRICS if x.key == key)
        sentence = _metric_sentence(ss, metric)
        if sentence:
            out.append(sentence)
    out.append(_shares_sentence(ss))
    ends = next(x for x in METRICS if x.key == "ends")
    if metric_rows(ss, ends).height:
        out.append(_shares_sentence(ss, ends))
    if ss.steps.height:
        families = _families(ss)
        n_how = _families(ss, how=True)
        how = (
            f"; how the game plays is a family of its own, times its {n_how} metrics"
            if n_how
            else ""
        )
        n_trends = ss.trends.height
        curves_ = ss.trends["series"].n_unique()
        trends = (
            f" and all {n_trends:,} trend rows of {count(curves_, 'curve')}" if n_trends else ""
        )
        out.append(
            f"A {'step or trend' if n_trends else 'step'} is called significant only when its "
            "q-value is below 0.05: Benjamini-Hochberg within each metric over all "
            f"{ss.steps.height:,} rows of the {ss.steps['step'].n_unique()} steps{trends}, times "
            f"the number of metrics ({families}){how}; every interval is a {level_text(ss)} "
            f"interval of one point{', one step or one trend' if n_trends else ' or one step'}, "
            "not simultaneous."
        )
    return out


def _families(ss: SweepStats, how: bool = False) -> int:
    """The metrics the one rule counts over the steps and trends (rows with a test, not
    repeats): those of win and score, or (``how``) those of how the game plays, a family of
    their own (stats/trend.py adjust_sweep)."""
    counted = [
        t.filter(pl.col("p_value").is_not_nan() & pl.col("repeat_metric").is_null())["metric"]
        for t in (ss.steps, ss.trends)
        if t.height
    ]
    if not counted:
        return 0
    names = pl.concat(counted).unique().to_list()
    return sum((m in curves.HOW) == how for m in names)


def trend_method_sentence(ss: SweepStats) -> str | None:
    """How the trends are tested, or why there are none."""
    axis = ss.axes[0]
    if not ss.steps.height:
        return None
    if not axis.numeric:
        return (
            f"The values of {axis.key} are not numbers: no trend across the points is tested, "
            "only neighbouring steps."
        )
    if ss.trends.height == 0:
        return (
            f"No curve has {trend.MIN_POINTS} or more finished points: no trend across the "
            "points is tested beyond the steps."
        )
    paired = set(ss.trends["paired"].to_list())
    how = (
        "paired over the games every point played (the t-interval over games of each game's "
        "contrast, which keeps the points' correlation)"
        if paired == {True}
        else "from independent samples, the points having different player counts (Welch-"
        "Satterthwaite intervals)"
        if paired == {False}
        else "paired over the games where a curve's points have one player count, else from "
        "independent samples"
    )
    where = "each curve" if ss.trends["series"].n_unique() > 1 else "the curve"
    return (
        f"Across all the points of {where}, each metric's trend is its least-squares slope on "
        f"{axis.key} (the points weighted equally: the line through the drawn points), {how}."
    )


def per_unit(ss: SweepStats) -> str:
    key = ss.axes[0].key
    return "per player" if key == "players" else f"per unit of {key}"


def slope_text(r: dict[str, Any], m: Metric, per: str) -> str:
    """'+0.62 points per unit of rules.hand_size [+0.43, +0.82]'."""
    scale, unit = shown_scale(r, m)
    d, lo, hi = r["slope"] * scale, r["lo"] * scale, r["hi"] * scale
    k = digits((hi - lo) / 2, none=2)
    return f"{d:+.{k}f}{unit} {per} [{lo:+.{k}f}, {hi:+.{k}f}]".replace("-", "−")


def at_end(ss: SweepStats, r: dict[str, Any], m: Metric, end: str, *, signed: bool) -> str:
    """The trend's value at its first or last point, to the digits of that point's interval."""
    label = r[f"{end}_label"]
    c = ss.curve.filter(
        (pl.col("metric") == r["metric"])
        & (pl.col("kind") == r["kind"])
        & (pl.col("group") == r["group"])
        & (pl.col("series") == r["series"])
        & (pl.col("x") == label)
    )
    scale, unit = shown_scale(r, m)
    if r["metric"] in ("win_share", "end_reason"):
        unit = " %"  # a share, where a change of shares is in points
    k = digits((c["hi"][0] - c["lo"][0]) * scale / 2, none=2) if c.height else 2
    return f"{r[end] * scale:{'+' if signed else ''}.{k}f}{unit}".replace("-", "−")


def _trend_words(ss: SweepStats, m: Metric, label: tuple[str, str, str], what: str) -> str:
    """The trend of one row across the points: its ends and its slope with interval and q, in
    the direction it goes only when the table calls it significant."""
    metric, kind, group = label
    t = ss.trends.filter(
        (pl.col("metric") == metric) & (pl.col("kind") == kind) & (pl.col("group") == group)
    ).sort("series")
    t = t.filter(pl.col("q_value").is_not_nan())
    if t.height == 0:
        return ""
    per, key = per_unit(ss), ss.axes[0].key
    signed = metric == "first_edge"
    if t.height == 1:
        r = t.row(0, named=True)
        a = at_end(ss, r, m, "first", signed=signed)
        b = at_end(ss, r, m, "last", signed=signed)
        ends = f"from {a} at {key}={r['first_label']} to {b} at {r['last_label']}"
        slope = f"a slope of {slope_text(r, m, per)}, {q_text(r['q_value'])}"
        if r["significant"]:
            moved = (r["last"] - r["first"]) * r["slope"] > 0
            verb = ("grows" if r["slope"] > 0 else "falls") if moved else "goes"
            return f" Across the {r['points']} points, {what} {verb} {ends}: {slope}."
        return (
            f" Across the {r['points']} points, {what} has no significant trend ({ends}): {slope}."
        )
    parts = [
        f"{slope_text(r, m, per)} with {r['series']} ({q_text(r['q_value'])})"
        for r in t.iter_rows(named=True)
    ]
    k = int(t["significant"].sum())
    return (
        f" Across the points of each curve, the slope of {what} on {key} is "
        f"{listing(parts, most=4)}: significant for {k} of {t.height} curves."
    )


_WHO = {"order": "The {} player", "seat": "Seat {}", "policy": "Policy {}", "team": "Team {}",
        "role": "Role {}", "all": "A seat"}  # fmt: skip


def _headline_sentence(ss: SweepStats) -> str | None:
    """The config's headline metric (report.headline) at each point in words, and its trend
    unless another sentence says it (the first player's edge, game length)."""
    metric, kind, group = ss.headline
    if metric == "mean_turns":
        return None  # the sentence on game length says it at each point
    t = ss.curve.filter(
        (pl.col("metric") == metric) & (pl.col("kind") == kind) & (pl.col("group") == group)
    )
    if t.height == 0:
        return None
    share = metric == "win_share"
    m = HEADLINE_SHARE if share else HEADLINE_SCORE
    who = _WHO.get(kind, "{}").format(ordinal(int(group)) if kind == "order" else group)
    key = ss.axes[0].key
    phrases = []
    for series in ss.series:
        rows = t.filter(pl.col("series") == series).sort("x_pos").to_dicts()
        if not rows:
            continue
        said = [
            f"{headline_value(r, m)} at {f'{key}=' if i == 0 else ''}{r['x']}"
            for i, r in enumerate(rows)
        ]
        if len(rows) > 8:
            lo_r = min(rows, key=lambda r: r["value"])
            hi_r = max(rows, key=lambda r: r["value"])
            text = (
                f"{said[0]} to {said[-1]} (lowest {headline_value(lo_r, m)} at {lo_r['x']}, "
                f"highest {headline_value(hi_r, m)} at {hi_r['x']})"
            )
        else:
            text = listing(said, most=8)
        phrases.append(f"with {series}: {text}" if series else text)
    verb = "wins" if share else "scores"
    text = f"{who} {verb} {'; '.join(phrases)} (the config's headline, report.headline)."
    edge = ss.trends.filter(pl.col("metric") == "first_edge")
    if (
        (metric, kind, group) == ("win_share", "order", "0")
        and edge.height
        and edge["repeat_metric"].eq_missing("win_share").all()  # a null is no repeat
    ):
        return (
            text + " Its trend is the first player's edge's (below): the fair share is the same "
            "at every point."
        )
    whose = f"{'the ' * (kind == 'order')}{difference_label(kind, group)}'s"
    what = (
        f"{whose} {'win share' if share else 'mean score'}" if kind != "all" else "the mean score"
    )
    return text + _trend_words(ss, m, (metric, kind, group), what)


def headline_value(r: dict[str, Any], m: Metric) -> str:
    """A point's headline value to one significant digit of its interval's half-width."""
    k = digits((r["hi"] - r["lo"]) * m.scale / 2, none=2)
    unit = " %" if m.metric == "win_share" else ""
    return f"{r['value'] * m.scale:.{k}f}{unit}".replace("-", "−")


def _metric_sentence(ss: SweepStats, m: Metric) -> str | None:
    t = metric_rows(ss, m)
    if m.key == "score":
        t = t.filter(pl.col("kind") == "all")
    if t.height == 0:
        return None
    signed = m.key == "edge"
    subject = {
        "edge": "The first player's edge over a fair share is",
        "length": "Games last",
        "score": "A seat scores",
    }[m.key]
    rows = t.sort("series", "x_pos").to_dicts()
    if len(rows) <= 6:
        said = [
            f"{value_text(r['value'], r['lo'], r['hi'], m, signed=signed)} at {_point_words(ss, r)}"
            for r in rows
        ]
        text = f"{subject} {listing(said, most=6)}"
    else:
        lo_r = min(rows, key=lambda r: r["value"])
        hi_r = max(rows, key=lambda r: r["value"])
        text = (
            f"{subject} between {value_text(lo_r['value'], lo_r['lo'], lo_r['hi'], m, signed=signed)} "
            f"(at {_point_words(ss, lo_r)}) and "
            f"{value_text(hi_r['value'], hi_r['lo'], hi_r['hi'], m, signed=signed)} "
            f"(at {_point_words(ss, hi_r)})"
        )
    if m.key == "score":
        text += " on average (each game's mean over its seats)"
    label, what = {
        "edge": (("first_edge", "order", "0"), "the first player's edge"),
        "length": (("mean_turns", "game", "all"), "game length"),
        "score": (("mean_score", "all", "seats"), "the mean score"),
    }[m.key]
    return (
        text
        + ". "
        + _steps_words(ss, m, step_rows(ss, m, t["kind"][0]))
        + _trend_words(ss, m, label, what)
    )


def _point_words(ss: SweepStats, r: dict[str, Any]) -> str:
    x = f"{ss.axes[0].key}={r['x']}"
    return f"{x} ({r['series']})" if r["series"] else x


def _steps_words(ss: SweepStats, m: Metric, s: pl.DataFrame) -> str:
    """How many steps move the metric significantly, and the largest (or the largest of none)."""
    tested = s.filter(pl.col("q_value").is_not_nan())
    if tested.height == 0:
        return "No step between neighbouring points tests it."
    n_steps = tested["step"].n_unique()
    sig = tested.filter(pl.col("significant"))
    rank = tested.with_columns(_a=pl.col("diff").abs()).sort("_a", descending=True)
    if sig.height:
        top = rank.filter(pl.col("significant")).row(0, named=True)
        k = sig["step"].n_unique()
        return (
            f"It changes significantly at {k} of {n_steps} step{'s' * (n_steps != 1)} between "
            f"neighbouring points; the largest: {top['step_label']}, {change(top, m)} "
            f"({q_text(top['q_value'])})."
        )
    top = rank.row(0, named=True)
    bound = max(abs(r["lo"]) for r in tested.iter_rows(named=True))
    bound = max(bound, max(abs(r["hi"]) for r in tested.iter_rows(named=True)))
    scale, unit = shown_scale(top, m)
    k = digits(bound * scale / 2, none=2)
    return (
        f"No step between neighbouring points changes it significantly (largest: "
        f"{top['step_label']}, {change(top, m)}, {q_text(top['q_value'])}); each step's change "
        "lies within "
        f"±{bound * scale:.{k}f}{unit} ({level_text(ss)} per step)."
    )


def _shares_sentence(ss: SweepStats, m: Metric | None = None) -> str:
    """The win shares of seats, places, policies, teams and roles (or the end reasons' shares):
    the largest significant step, or that none is."""
    if m is None:
        kinds = [
            k
            for k in ("seat", "order", "policy", "team", "role")
            if metric_rows(
                ss, next(x for x in METRICS if x.key == ("seats" if k == "seat" else k))
            ).height
        ]
        m = Metric("shares", "", "win_share", tuple(kinds), "", " points", 100.0)
        rows_of = (
            pl.col("metric").is_in(["win_share", "normalised_share"])
            & pl.col("kind").is_in(kinds)
            & pl.col("repeat_metric").is_null()
        )
        s = ss.steps.filter(rows_of)
        words = {"seat": "seat", "order": "place in the turn order", "policy": "policy",
                 "team": "team", "role": "role"}  # fmt: skip
        tested_kinds = s.filter(pl.col("q_value").is_not_nan())["kind"].unique(maintain_order=True)
        names = [words[k] for k in kinds if k in tested_kinds.to_list()] or ["seat"]
        what = "the win share of any " + " or ".join(
            [", ".join(names[:-1]), names[-1]] if len(names) > 1 else names
        )
    else:
        s = step_rows(ss, m)
        rows_of = pl.col("metric") == "end_reason"
        what = "the share of games ending for any reason"
    trends = _shares_trends(ss, m, ss.trends.filter(rows_of), what)
    tested = s.filter(pl.col("q_value").is_not_nan())
    if tested.height == 0:
        return f"No step between neighbouring points tests {what}.{trends}"
    sig = tested.filter(pl.col("significant"))
    if sig.height == 0:
        r = (
            tested.with_columns(_a=pl.col("diff").abs())
            .sort("_a", descending=True)
            .row(0, named=True)
        )
        return (
            f"No step between neighbouring points changes {what} significantly (largest: "
            f"{row_words(r)} at {r['step_label']}, {change(r, m)}).{trends}"
        )
    parts = [
        f"{row_words(r)} at {r['step_label']}, {change(r, m)}"
        for r in sig.with_columns(_a=pl.col("diff").abs())
        .sort("_a", descending=True)
        .iter_rows(named=True)
    ]
    # the subject is plural whatever the count, so the verb agrees for every metric
    subject = "The end reasons' shares" if m.key == "ends" else "Win shares"
    return (
        f"{subject} change significantly at {sig.height} of {count(tested.height, 'tested row')}"
        f": {listing(parts, most=3)}.{trends}"
    )


def count(n: int, noun: str) -> str:
    """'1 tested row', '12 tested rows'."""
    return f"{n:,} {noun}{'s' * (n != 1)}"


def _shares_trends(ss: SweepStats, m: Metric, t: pl.DataFrame, what: str) -> str:
    """The significant trends across the points among rows of several groups (the largest
    three), or the largest of none."""
    tested = t.filter(pl.col("q_value").is_not_nan())
    if tested.height == 0:
        return ""
    per = per_unit(ss)

    def said(r: dict[str, Any]) -> str:
        where = f" with {r['series']}" if r["series"] else ""
        return f"{row_words(r)}{where}, {slope_text(r, m, per)} ({q_text(r['q_value'])})"

    rank = tested.with_columns(_a=pl.col("slope").abs()).sort("_a", descending=True)
    sig = rank.filter(pl.col("significant"))
    if sig.height == 0:
        return (
            f" No trend across the points is significant in {what} (largest: "
            f"{said(rank.row(0, named=True))})."
        )
    parts = [said(r) for r in sig.iter_rows(named=True)]
    return (
        f" A trend across the points is significant in {sig.height} of "
        f"{count(tested.height, 'tested row')}: {listing(parts, most=3)}."
    )
