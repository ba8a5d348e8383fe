"""HTML reports of results datasets: ``html.py`` assembles the page, ``figures.py`` draws.

``write_report(["results/run"], out="reports/run.html")`` writes one self-contained file
(plotly.js inlined, so it opens offline; ``cdn=True`` for a small file that loads plotly.js from
its CDN). See ``balance report --help``. ``write_comparison(comparison, out=...)`` writes the
page of a ``balance compare`` (``render_comparison``).
"""

from __future__ import annotations

from balance.report.html import (
    DatasetStats,
    Differences,
    ImpactFile,
    ReportError,
    ReportInfo,
    analyse,
    build_report,
    check_output,
    comparison_sentences,
    differences,
    read_impact,
    render_comparison,
    summary_sentences,
    write_comparison,
    write_report,
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
    "render_comparison",
    "summary_sentences",
    "write_comparison",
    "write_report",
]
