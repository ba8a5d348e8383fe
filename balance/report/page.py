"""The report page of one or more datasets: its sections in order, put in the page shell.

``render`` takes numbers only (numbers.py's ``DatasetStats`` and ``Differences``, an
``ImpactFile``); the sentences come from sentences.py and verdict.py, the sections from
sections.py (built from blocks.py), the shell from template.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from balance.impact_file import ImpactFile
from balance.report import blocks, ladder_page, sections
from balance.report.numbers import DatasetStats, Differences, report_settings
from balance.report.sentences import summary_sentences
from balance.report.template import fill
from balance.report.verdict import verdict_sentences


def render(
    datasets: Sequence[DatasetStats],
    *,
    baseline: DatasetStats | None = None,
    diffs: Sequence[Differences | None] = (),
    impact: ImpactFile | None = None,
    ladder: Any = None,
    cdn: bool = False,
    generated: str | None = None,
) -> str:
    """The report page of ``datasets`` (with their ``diffs`` against ``baseline``, the
    interventional ``impact`` and a skill ``ladder`` (ladder_page.LadderStats), if any) as one
    HTML string."""
    page = blocks.Page()
    diffs = list(diffs) or [None] * len(datasets)
    many = len(datasets) > 1
    games = sorted({str(d.manifest.get("game", "?")) for d in datasets})
    labels = ", ".join(d.label for d in datasets)
    title = f"Balance report: {', '.join(games)}" + (f" — {labels}" if labels != games[0] else "")
    nav = ['<a href="#summary">summary</a>']
    body = []

    # The verdict first: is it balanced, from which seat and strategy does it lean, which changes
    # move the headline metric (causally), and what these games leave open.
    verdicts = []
    for i, ds in enumerate(datasets):
        head = f"<h3>{escape(ds.label)}</h3>" if many else ""
        said = verdict_sentences(ds, impact if i == 0 else None)
        if ladder is not None and i == 0:
            headline_key = report_settings(ds.manifest).headline.key()
            skill = ladder_page.skill_sentence(ladder, headline_key, ds.manifest)
            said = [*said, skill] if skill else said
        verdicts.append(
            head + blocks.headline(said) + sections.players_note(ds) + sections.verdict_table(ds)
        )
    body.append(
        '<section id="verdict"><h2>Verdict</h2>'
        + "".join(verdicts)
        + '<p class="note">Built from the numbers below and their 95 % intervals; tolerances, '
        "targets and the headline metric come from the config's <code>report:</code> "
        "section.</p></section>"
    )
    nav.insert(0, '<a href="#verdict">verdict</a>')
    headline = []
    for i, (ds, diff) in enumerate(zip(datasets, diffs, strict=True)):
        sentences = summary_sentences(ds, diff=diff, impact=impact if i == 0 else None)
        head = f"<h3>{escape(ds.label)}</h3>" if many else ""
        headline.append(head + blocks.headline(sentences))
    body.append(f'<section id="summary"><h2>What matters most</h2>{"".join(headline)}</section>')

    if ladder is not None:  # how far the verdict holds for stronger players
        body.append(
            '<section id="skill"><h2>Skill: the findings from weak players to strong</h2>'
            f"{ladder_page.skill_section(page, ladder)}</section>"
        )
        nav.append('<a href="#skill">skill</a>')

    if impact is not None:  # causal card impact before the datasets' observational diagnostics
        body.append(
            '<section id="impact"><h2>Card impact: causal (each change played on the same '
            f"games)</h2>{sections.variants_section(page, impact)}</section>"
        )
        nav.append('<a href="#impact">card impact</a>')

    if many:
        overview = sections.overview_section(page, datasets)
        body.append(f'<section id="overview"><h2>All datasets</h2>{overview}</section>')
        nav.append('<a href="#overview">overview</a>')

    for i, (ds, diff) in enumerate(zip(datasets, diffs, strict=True)):
        sid = f"d{i + 1}-{_slug(ds.label)}"
        luck = ladder_page.luck_sentences(ladder.luck) if ladder is not None and i == 0 else ()
        subs = sections.dataset_sections(page, ds, diff, baseline, luck)
        inner = "".join(
            f'<section id="{sid}-{key}"><h3>{escape(name)}</h3>{html}</section>'
            for key, name, html in subs
        )
        body.append(f'<section id="{sid}"><h2>Dataset {escape(ds.label)}</h2>{inner}</section>')
        if many:
            nav.append(f'<a href="#{sid}">{escape(ds.label)}</a>')
        else:
            nav += [
                f'<a href="#{sid}-{key}">{escape(name.split(":")[0].lower())}</a>'
                for key, name, _ in subs
            ]

    stats_s = sum(d.seconds for d in datasets)
    subtitle = (
        f"{len(datasets)} dataset{'s' * many}, "
        f"{sum(d.shares.games for d in datasets):,} games; statistics computed in {stats_s:.1f} s"
    )
    return fill(
        title=title,
        subtitle=subtitle,
        nav=" ".join(nav),
        body="\n".join(body),
        cdn=cdn,
        generated=generated,
    )


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text).strip("-").lower() or "dataset"
