"""Forest plots of differences: each row a change with its interval, drawn around 0.

``plot_card_impact`` draws the observational card impact (balance/stats ``CardImpact``: win
share with an event minus without), ``plot_differences`` any long differences table of
balance/stats/paired.py (``metric, kind, group, a, b, diff, lo, hi, ...``: a baseline, a
``balance compare``), ``plot_impact_variants`` the interventional impact of a file of variants
(the headline metric's change per variant, mean score and game length beside it). Differences
of shares are drawn in percentage points. Drawing only, in figures.py's style (its layout,
palette and error bars); the title states the finding from the ``significant`` column.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np
import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from balance.fmt import points, q_text
from balance.report.figures import (
    BLUE,
    GREY,
    PALETTE,
    POINTS,
    RED,
    ROW_PX,
    capitalised,
    empty,
    error_bars,
    layout,
    rows_range,
)
from balance.report.sentences import difference_label
from balance.stats import KINDS, CardImpact


def impact_label(row: dict[str, object], by: str | None = None) -> str:
    """'stolen skull' or 'greedy: stolen skull' for a row of CardImpact.table."""
    text = f"{row['event']} {row['card']}".strip()
    return f"{row[by]}: {text}" if by else text


def _largest(diff: np.ndarray) -> int:
    return int(np.nanargmax(np.abs(diff)))


def plot_card_impact(
    impact: CardImpact,
    by: str | None = None,
    outcomes: Collection[str] = (),
    players: str = "",
) -> go.Figure:
    """Forest plot of the observational card impact: win share with the event minus without
    (percentage points), game-clustered Newcombe intervals, significant rows (``significant``:
    BH q < 0.05) in red. Rows without a contrast (every or no seat-game had the event) are left
    out. Rows of an ``outcomes`` event (the game's ``outcome_events``: what play did to a seat,
    such as a building lost) are not cards: they are drawn below the cards, marked as outcomes,
    and never name the title's largest difference. ``players`` (``lineup_words``) says who
    played, in the second line."""
    t = impact.table.filter(pl.col("diff").is_not_nan() & pl.col("diff").is_not_null())
    outcome = pl.col("event").is_in(list(outcomes))
    # Bottom to top: the outcomes, then the cards, each by its difference.
    t = pl.concat([t.filter(outcome).sort("diff"), t.filter(~outcome).sort("diff")])
    rows = t.to_dicts()
    is_outcome = [r["event"] in outcomes for r in rows]
    labels = [
        impact_label(r, by) + (" (outcome)" if o else "")
        for r, o in zip(rows, is_outcome, strict=True)
    ]
    fig = go.Figure()
    context = (
        f"Card impact{', ' + players if players else ''}, observational (a diagnostic, not "
        "causal): win share of seat-games with the event minus without, "
        f"{impact.level * 100:g} % intervals; red: BH q < 0.05"
    )
    if any(is_outcome):
        context += "; ✕ below: outcomes of play, not cards"
    if not rows:
        layout(fig, title="No card event to compare", context=context)
        return empty(fig, "every seat-game had each event, or none did")
    for sig, colour, name in ((False, GREY, "q ≥ 0.05"), (True, RED, "q < 0.05 (BH)")):
        for out in (False, True):
            part = [
                i
                for i, r in enumerate(rows)
                if bool(r["significant"]) is sig and is_outcome[i] is out
            ]
            if not part:
                continue
            sub = t[part]
            fig.add_trace(
                go.Scatter(
                    x=sub["diff"].to_numpy() * POINTS,
                    y=[labels[i] for i in part],
                    mode="markers",
                    name=f"outcome of play, {name}" if out else name,
                    marker={"color": colour, "size": 7, "symbol": "x" if out else "circle"},
                    error_x=error_bars(sub, "diff", POINTS) | {"width": 3},
                    customdata=[  # q as words: 'q < 1e-300' for one that underflowed, never 0
                        [
                            r["share_with"],
                            r["share_without"],
                            r["n_with"],
                            r["n_without"],
                            q_text(r["q_value"]),
                            r["lo"] * POINTS,
                            r["hi"] * POINTS,
                        ]
                        for r in sub.iter_rows(named=True)
                    ],
                    hovertemplate="%{y}: %{x:+.2f} points [%{customdata[5]:+.2f}, "
                    "%{customdata[6]:+.2f}]<br>with %{customdata[0]:.2%} (n %{customdata[2]:,}), "
                    "without %{customdata[1]:.2%} (n %{customdata[3]:,})"
                    "<br>%{customdata[4]} (BH)<extra></extra>",
                )
            )
    fig.add_vline(x=0, line={"color": "black", "width": 1})
    diff = t["diff"].to_numpy()
    cards = [i for i, o in enumerate(is_outcome) if not o]
    n_out = len(rows) - len(cards)
    below = f"; {n_out} outcome{'s' * (n_out > 1)} below" if n_out else ""
    if cards:
        i = cards[_largest(diff[cards])]
        n_sig = sum(bool(rows[j]["significant"]) for j in cards)
        title = (
            f"“{labels[i]}” goes with the largest difference: {points(diff[i])} "
            f"({n_sig} of {len(cards)} {'cards ' * bool(n_out)}differ significantly{below}; "
            "diagnostic, not an effect)"
        )
    else:
        title = (
            f"No card event to compare, only {n_out} outcome{'s' * (n_out > 1)} of play "
            "(how losing looks, not what a card is worth)"
        )
    tall = len(rows) > 25
    layout(
        fig,
        title=title,
        context=context,
        height=max(320, 170 + ROW_PX * len(rows)),
        showlegend=True,
        xaxis_title="win share with the event − without (percentage points)",
        yaxis_title=f"{by}: event and card" if by else "event and card",
        margin={"t": 125} if tall else {},
    )
    fig.update_xaxes(tickformat="+.0f", tick0=0)
    fig.update_yaxes(categoryorder="array", categoryarray=labels, range=rows_range(labels))
    if tall:  # a tall plot repeats its axis on top, where the reader starts
        _top_axis(fig, t, labels[-1])
    return fig


def _top_axis(fig: go.Figure, t: pl.DataFrame, label: str) -> None:
    lo, hi = float(np.nanmin(t["lo"].to_numpy())), float(np.nanmax(t["hi"].to_numpy()))
    fig.add_trace(
        go.Scatter(
            x=[lo * POINTS, hi * POINTS],
            y=[label, label],
            xaxis="x2",
            mode="markers",
            marker={"opacity": 0},
            hoverinfo="skip",
            showlegend=False,
        )
    )
    fig.update_layout(
        xaxis2={
            "overlaying": "x",
            "side": "top",
            "matches": "x",
            "tickformat": "+.0f",
            "tick0": 0,
            "ticks": "outside",
            "automargin": True,
        },
    )


def _unit(metric: str) -> tuple[float, str, str]:
    """(scale, unit words, tick format) of a metric's differences."""
    if metric == "win_share":
        return POINTS, "points", "+.2~f"
    if metric == "mean_turns":
        return 1.0, "turns", "+.3~f"
    return 1.0, metric.replace("mean_", "").replace("_", " "), "+.3~f"


def _change_words(label: str, d: float, lo: float, hi: float, unit: str) -> str:
    """'seat 0 +5.0 points [+4.0, +6.0]': one more decimal than the half-width's first digit
    needs, so the title is never more precise than the interval."""
    half = round(abs(hi - lo) / 2, 9)
    k = 1 if not np.isfinite(half) or half >= 1 else 2 if half >= 0.1 else 3
    return f"{label} {d:+.{k}f} {unit} [{lo:+.{k}f}, {hi:+.{k}f}]"


def plot_differences(
    table: pl.DataFrame,
    *,
    metric: str = "win_share",
    kinds: Sequence[str] = KINDS,
    title: str = "Differences against the baseline",
    a_name: str = "baseline",
    b_name: str = "this",
) -> go.Figure:
    """Forest plot of the rows of one ``metric`` of a paired/unpaired differences table
    (diff = this run - baseline, with lo, hi); significant rows (``significant``) in red.
    ``title`` (what is compared) is the figure's second line, under the finding. ``a_name`` and
    ``b_name`` name the two sides in the hover text (``A``, ``B`` for compare)."""
    t = table.filter((pl.col("metric") == metric) & pl.col("kind").is_in(list(kinds)))
    labels = [difference_label(k, g) for k, g in zip(t["kind"], t["group"], strict=True)]
    share = metric == "win_share"
    scale, unit, tickformat = _unit(metric)
    fig = go.Figure()
    what = "win share" if share else metric.replace("_", " ")
    if t.height == 0:
        layout(fig, title=f"No {what} rows to compare", context=title)
        return empty(fig, "no rows")
    sig = t["significant"].fill_null(False).to_numpy()
    # The colour is the multiplicity rule's verdict (``significant``: BH q < 0.05), not whether
    # the row's own unadjusted interval holds 0: a 95 % interval may exclude 0 with q >= 0.05.
    for flag, colour, name in (
        (False, GREY, "not significant (q ≥ 0.05)"),
        (True, RED, "significant (q < 0.05)"),
    ):
        idx = np.flatnonzero(sig == flag)
        if not len(idx):
            continue
        sub = t[idx.tolist()]
        fig.add_trace(
            go.Scatter(
                x=sub["diff"].to_numpy() * scale,
                y=[labels[i] for i in idx],
                mode="markers",
                name=name,
                marker={"color": colour, "size": 8},
                error_x=error_bars(sub, "diff", scale) | {"width": 3},
                customdata=np.column_stack([sub["a"].to_numpy(), sub["b"].to_numpy()]),
                hovertemplate=(
                    f"%{{y}}: %{{x:+.2f}} points<br>{a_name} %{{customdata[0]:.2%}}, "
                    f"{b_name} %{{customdata[1]:.2%}}<extra></extra>"
                    if share
                    else f"%{{y}}: %{{x:+.3f}} {unit}<br>{a_name} %{{customdata[0]:.3f}}, "
                    f"{b_name} %{{customdata[1]:.3f}}<extra></extra>"
                ),
            )
        )
    fig.add_vline(x=0, line={"color": "black", "width": 1})
    d, lo, hi = (t[c].to_numpy().astype(np.float64) * scale for c in ("diff", "lo", "hi"))
    n_sig = int(sig.sum())
    if n_sig:
        i = int(np.argmax(np.where(sig, np.abs(d), -1.0)))
        finding = (
            f"{capitalised(_change_words(labels[i], d[i], lo[i], hi[i], unit))} changes most; "
            f"{n_sig} of {len(d)} differ significantly"
        )
    else:
        i = _largest(d)
        finding = (
            f"No {what} difference is significant (largest: "
            f"{_change_words(labels[i], d[i], lo[i], hi[i], unit)})"
        )
    x_title = {
        "win_share": "difference in win share (percentage points)",
        "mean_turns": "difference in game length (turns)",
    }.get(metric, f"difference in {what}")
    layout(
        fig,
        title=finding,
        context=title,
        height=max(280, 170 + ROW_PX * len(labels)),
        showlegend=True,
        xaxis_title=x_title,
        yaxis_title="compared group",
    )
    fig.update_xaxes(tickformat=tickformat, tick0=0)
    fig.update_yaxes(
        categoryorder="array", categoryarray=labels[::-1], range=rows_range(set(labels))
    )
    return fig


def _headline(summary: pl.DataFrame) -> tuple[str, str]:
    """('1st player', 'win_share'): what the summary's headline rows measure."""
    rows = summary.filter(pl.col("kind").is_not_null())
    if rows.height == 0:
        return "headline", "win_share"
    r = rows.row(0, named=True)
    return difference_label(r["kind"], r["group"]), str(r.get("metric") or "win_share")


def plot_impact_variants(summary: pl.DataFrame, table: pl.DataFrame) -> go.Figure:
    """Interventional impact, one row per variant (``summary`` of balance/impact_file.py:
    variant, kind, group, diff, lo, hi, ``significant`` (BH q < 0.05), sorted by the size of the
    headline change), in up to three panels, each with its own x-axis: the change of the
    headline metric (declared in advance, the same for every variant); the mean-score change per
    policy; the game-length change. A panel without rows is left out. ``table`` is the long
    table (variant, metric, kind, group, diff, lo, hi, ...)."""
    variants = summary["variant"].to_list()
    who, metric = _headline(summary)
    scale, unit, tickformat = _unit(metric)
    what = metric.replace("_", " ")
    score = table.filter((pl.col("metric") == "mean_score") & (pl.col("kind") == "policy"))
    score = score.join(summary.select("variant"), on="variant", how="semi")
    turns = table.filter(pl.col("metric") == "mean_turns").join(
        summary.select("variant"), on="variant", how="semi"
    )
    head = summary.filter(pl.col("diff").is_not_null() & pl.col("diff").is_not_nan())
    panels = [("head", f"{who} {what}", f"change in {who} {what} ({unit})", 0.42)]
    if score.height:
        panels.append(("score", "mean score, by policy", "change in mean score", 0.33))
    if turns.height:
        panels.append(("turns", "game length", "change in game length (turns)", 0.25))
    widths = np.array([p[3] for p in panels])
    fig = make_subplots(
        rows=1,
        cols=len(panels),
        shared_yaxes=True,
        horizontal_spacing=0.06,
        column_widths=(widths / widths.sum()).tolist(),
        subplot_titles=[p[1] for p in panels],
    )
    col = {p[0]: i + 1 for i, p in enumerate(panels)}
    sig = head["significant"].fill_null(False).to_numpy() if head.height else np.array([])
    for flag, colour, name in ((False, GREY, "not significant"), (True, RED, "significant (BH)")):
        idx = np.flatnonzero(sig == flag)
        if not len(idx):
            continue
        sub = head[idx.tolist()]
        fig.add_trace(
            go.Scatter(
                x=sub["diff"].to_numpy() * scale,
                y=sub["variant"].to_list(),
                mode="markers",
                name=f"{who}: {name}",
                legendgroup=name,
                marker={"color": colour, "size": 8},
                error_x=error_bars(sub, "diff", scale) | {"width": 3},
                hovertemplate=f"%{{y}}: {who} %{{x:+.2f}} {unit}<extra></extra>",
            ),
            row=1,
            col=1,
        )
    if not head.height:  # no variant has the headline's row: say so in its panel
        fig.add_trace(
            go.Scatter(
                x=[0],
                y=variants[:1],
                mode="markers",
                marker={"opacity": 0},
                showlegend=False,
                hoverinfo="skip",
            ),
            row=1,
            col=1,
        )
        fig.add_annotation(
            text="no variant has this row",
            showarrow=False,
            xref="x domain",
            yref="y domain",
            x=0.5,
            y=0.5,
        )
    for i, ((policy,), g) in enumerate(score.group_by("group", maintain_order=True)):
        fig.add_trace(
            go.Scatter(
                x=g["diff"].to_numpy(),
                y=g["variant"].to_list(),
                mode="markers",
                name=f"mean score: {policy}",
                marker={"color": PALETTE[(i + 4) % len(PALETTE)], "size": 7, "symbol": "diamond"},
                error_x=error_bars(g, "diff") | {"width": 3},
                hovertemplate=f"%{{y}}: {policy} score %{{x:+.3f}}<extra></extra>",
            ),
            row=1,
            col=col["score"],
        )
    if turns.height:
        fig.add_trace(
            go.Scatter(
                x=turns["diff"].to_numpy(),
                y=turns["variant"].to_list(),
                mode="markers",
                name="game length",
                marker={"color": BLUE, "size": 7, "symbol": "square"},
                error_x=error_bars(turns, "diff") | {"width": 3},
                hovertemplate="%{y}: %{x:+.3f} turns<extra></extra>",
            ),
            row=1,
            col=col["turns"],
        )
    for c in range(1, len(panels) + 1):
        fig.add_vline(x=0, line={"color": "black", "width": 1}, row=1, col=c)
    # The finding: the variant that moves the headline most, and how many do significantly.
    if head.height:
        d, lo, hi = (head[c].to_numpy().astype(np.float64) * scale for c in ("diff", "lo", "hi"))
        i = _largest(d)
        n_sig = int(sig.sum())
        change = f"{d[i]:+.2f} {unit} [{lo[i]:+.2f}, {hi[i]:+.2f}]"
        name = head["variant"][i]
        if n_sig:
            title = (
                f"“{name}” moves the {who}'s {what} most: {change}; "
                f"{n_sig} of {len(variants)} variants change it significantly"
            )
        else:
            title = (
                f"No variant changes the {who}'s {what} significantly (largest: “{name}” {change})"
            )
    else:
        title = f"No variant has the headline row ({who} {what})"
    layout(
        fig,
        title=title,
        context="Card impact, interventional: each variant minus the base config, same seeds "
        "(causal); red: BH q < 0.05",
        height=max(340, 200 + ROW_PX * len(variants)),
        showlegend=True,
    )
    for (key, _, x_title, _), c in zip(panels, range(1, len(panels) + 1), strict=True):
        fig.update_xaxes(
            title_text=x_title,
            tickformat=tickformat if key == "head" else "+.3~f",
            nticks=6,
            row=1,
            col=c,
        )
    fig.update_yaxes(
        categoryorder="array", categoryarray=variants[::-1], range=rows_range(variants)
    )
    for c in range(2, len(panels) + 1):  # shared rows: the variant names once, on the left
        fig.update_yaxes(showticklabels=False, row=1, col=c)
    fig.update_yaxes(title_text="variant", row=1, col=1)
    return fig
