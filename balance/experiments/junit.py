"""The verdicts of ``balance check`` as lines and as JUnit XML for CI systems."""

from __future__ import annotations

from xml.etree import ElementTree as ET

import numpy as np

from balance.experiments.check import AssertionResult, CheckResult


def junit_xml(result: CheckResult) -> str:
    """The check as JUnit XML: a testsuite per check, a testcase per assertion; a FAIL (or an
    INCONCLUSIVE counted as fail) is a ``<failure>``."""
    root = ET.Element(
        "testsuites",
        name="balance check",
        tests=str(len(result.assertions)),
        failures=str(sum(not a.passed for a in result.assertions)),
        time=f"{result.wall_time_s:.3f}",
    )
    suites: dict[str, ET.Element] = {}
    for a in result.assertions:
        suite = suites.get(a.check)
        if suite is None:
            suite = ET.SubElement(root, "testsuite", name=a.check, tests="0", failures="0")
            ET.SubElement(
                ET.SubElement(suite, "properties"), "property", name="config", value=a.config
            )
            suites[a.check] = suite
        suite.set("tests", str(int(suite.get("tests", "0")) + 1))
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"balance.check.{a.check}",
            name=a.label,
            time=f"{a.seconds:.3f}",
        )
        line = format_line(a, result.level)
        if not a.passed:
            suite.set("failures", str(int(suite.get("failures", "0")) + 1))
            ET.SubElement(case, "failure", message=line, type=a.verdict).text = a.detail
        ET.SubElement(case, "system-out").text = f"{line}\n{a.detail}"
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def format_line(a: AssertionResult, level: float = 0.95) -> str:
    """One line per assertion: verdict, what, estimate, interval, games."""
    pct = f"{level * 100:g} %"
    return (
        f"{a.verdict:<12} {a.check}: {a.label}: {_fmt(a.estimate)} "
        f"[{_fmt(a.lo)}, {_fmt(a.hi)}] ({pct}), {a.games:,} games"
    )


def _fmt(x: float) -> str:
    if not np.isfinite(x):
        return "nan"
    return f"{x:.4f}" if abs(x) < 10 else f"{x:.2f}"
