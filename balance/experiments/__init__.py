"""Runs that combine several simulations: compare, interventional card impact, check.

Every experiment here plays two or more configs on the same seeds and game indices. By the
runner's common random numbers (DESIGN.md) game ``i`` of seed ``s`` draws the same random numbers
under every config, so the per-game difference between two configs carries only the effect of
the change plus the chaos it causes, and a paired t-interval over games (balance/stats/paired.py)
needs far fewer games than comparing two independent runs.

Games are played through the runner's one function (``runner.play_chunks``), chunk by chunk, and
each chunk is reduced at once to per-game arrays and then to running moments: nothing is written
to disk and memory stays flat however many games run.

- variants.py: named patches of a config (the game's defaults, or a YAML file of them);
- play.py: configs prepared to play on common seeds, chunks as per-game arrays;
- compare.py: ``compare(a, b)``, the paired differences B - A;
- impact.py: ``impact(config, variants)``, each variant's paired change (the file format and its
  significance rule are balance/impact_file.py's);
- check.py: ``check(spec)``, the SPRT balance gate (its spec's grammar and ``load_spec``:
  check_spec.py); junit.py: its verdicts as lines and JUnit.

Nothing here prints: progress goes through a ``progress(done, total)`` callback and errors are
raised (``ConfigError`` for a bad variant, spec or config, ``RunnerError`` for bad options).
"""

from __future__ import annotations

from balance.experiments.check import AssertionResult, CheckResult, Verdict, check
from balance.experiments.check_spec import (
    DEFAULT_DELTA,
    AssertionSpec,
    CheckSpec,
    Spec,
    load_spec,
)
from balance.experiments.compare import Comparison, check_pairable, compare
from balance.experiments.impact import (
    Impact,
    ReportImpactPlan,
    check_impact_out,
    impact,
    plan_report_impact,
    play_report_variants,
    write_impact,
)
from balance.experiments.junit import format_line, junit_xml
from balance.experiments.play import Progress, Runs, chunk_arrays, lineup, play_paired
from balance.experiments.variants import (
    REPORT_VARIANTS_FILE,
    Variant,
    all_variants,
    apply_patch,
    chosen_variants,
    default_variants,
    distinct_variants,
    load_variants,
    merge_patch,
    report_variants,
)
from balance.runner import CHUNK, RunnerError

__all__ = [
    "CHUNK",
    "DEFAULT_DELTA",
    "REPORT_VARIANTS_FILE",
    "AssertionResult",
    "AssertionSpec",
    "CheckResult",
    "CheckSpec",
    "Comparison",
    "Impact",
    "Progress",
    "ReportImpactPlan",
    "RunnerError",
    "Runs",
    "Spec",
    "Variant",
    "Verdict",
    "all_variants",
    "apply_patch",
    "check",
    "check_impact_out",
    "check_pairable",
    "chosen_variants",
    "chunk_arrays",
    "compare",
    "default_variants",
    "distinct_variants",
    "format_line",
    "impact",
    "junit_xml",
    "lineup",
    "load_spec",
    "load_variants",
    "merge_patch",
    "plan_report_impact",
    "play_paired",
    "play_report_variants",
    "report_variants",
    "write_impact",
]
