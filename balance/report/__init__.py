"""HTML reports of results datasets, in layers: numbers → sentences → sections → page.

- ``numbers.py``: the numbers a page shows (``analyse`` → ``DatasetStats``, ``differences``
  against a baseline, ``comparison_rows``, a sweep's ``analyse_sweep`` → ``SweepStats``); no
  HTML. Impact files are balance/impact_file.py's (``read_impact``, re-exported here).
- ``sentences.py``: labels and the summary sentences from those numbers (numbers are written by
  balance/fmt.py); ``verdict.py``: the verdict a page opens with; ``sweep_sentences.py``: a
  sweep's words.
- ``blocks.py``: tables, cell formats and figure slots every page builds with;
  ``sections.py``: the sections of one dataset's page.
- ``page.py``: the page of one or more datasets (``render``); ``compare.py``: the page of a
  ``balance compare`` (``render_comparison``); ``sweep_page.py``: the page of a ``balance sweep``
  (``render_sweep``); ``template.py``: the shell they fill.
- ``figures.py``: plotly figures only (and their shared style); ``forest.py``: the forest plots
  of differences and card impact; ``sweep_figures.py``: a sweep's curves; ``write.py``: the
  entry points below, which write files.
- A game adds sections of its own (Corvids: a starting pile, the pile's events per game) through
  its plugin's ``report_sections`` (balance/games/base.py, ``ReportSection``): ``analyse_rows``
  collects them, ``sections.dataset_sections`` puts them after the distributions.

``write_report(["results/run"], out="reports/run.html")`` writes one self-contained file
(plotly.js inlined, so it opens offline; ``cdn=True`` for a small file that loads plotly.js from
its CDN). See ``balance report --help``. ``write_comparison(comparison, out=...)`` writes the
page of a ``balance compare`` (``render_comparison``), ``write_sweep_report(sweep_dir, out=...)``
the page of a ``balance sweep``.
"""

from __future__ import annotations

from balance.impact_file import ImpactFile, read_impact
from balance.report.compare import render_comparison
from balance.report.numbers import DatasetStats, Differences, ReportError, analyse, differences
from balance.report.page import render
from balance.report.sentences import comparison_sentences, summary_sentences
from balance.report.write import (
    ReportInfo,
    build_report,
    check_output,
    write_comparison,
    write_report,
    write_sweep_report,
)

__all__ = [
    "DatasetStats",
    "Differences",
    "ImpactFile",
    "ReportError",
    "ReportInfo",
    "analyse",
    "build_report",
    "check_output",
    "comparison_sentences",
    "differences",
    "read_impact",
    "render",
    "render_comparison",
    "summary_sentences",
    "write_comparison",
    "write_report",
    "write_sweep_report",
]
