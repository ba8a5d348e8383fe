"""The verdicts of ``balance check`` as lines and as JUnit XML for CI systems."""

from __future__ import annotations

import os
from pathlib import Path
from xml.etree import ElementTree as ET

from balance import fmt
from balance.experiments.check import AssertionResult, CheckResult
from balance.experiments.check_spec import Spec
from balance.outputs import check_output_file, write_atomic


def guarantee(result: CheckResult) -> str:
    """What the gate promises, honestly: per assertion, not for the gate as a whole."""
    text = (
        f"each assertion: P(pass | off by delta/2) <= {fmt.level(result.alpha)}, "
        f"P(fail | holds with delta/2 to spare) <= {fmt.level(result.beta)} "
        "(per assertion, not for the whole gate)"
    )
    short = len(result.warnings())
    if short:
        text += (
            f"; beta not kept by the {short} assertion{'s' if short > 1 else ''} whose "
            "max_games is too small (see the warnings)"
        )
    return text


def junit_xml(result: CheckResult) -> str:
    """The check as JUnit XML: a testsuite per check, a testcase per assertion; a FAIL or an
    INCONCLUSIVE is a ``<failure>``. Each testcase's properties hold its cap, the error rates'
    guarantee, the interval's kind and, when there is one, its indifference-zone note and its
    warning (which its system-out repeats)."""
    root = ET.Element(
        "testsuites",
        name="balance check",
        tests=str(len(result.assertions)),
        failures=str(sum(not a.passed for a in result.assertions)),
        time=f"{result.wall_time_s:.3f}",
    )
    promise = guarantee(result)
    suites: dict[str, ET.Element] = {}
    for a in result.assertions:
        suite = suites.get(a.check)
        if suite is None:
            suite = ET.SubElement(root, "testsuite", name=a.check, tests="0", failures="0")
            props = ET.SubElement(suite, "properties")
            ET.SubElement(props, "property", name="config", value=a.config)
            ET.SubElement(props, "property", name="guarantee", value=promise)
            suites[a.check] = suite
        suite.set("tests", str(int(suite.get("tests", "0")) + 1))
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"balance.check.{a.check}",
            name=a.label,
            time=f"{a.seconds:.3f}",
        )
        props = ET.SubElement(case, "properties")
        ET.SubElement(props, "property", name="games", value=str(a.games))
        ET.SubElement(props, "property", name="cap", value=str(a.cap))
        if a.zone:
            ET.SubElement(props, "property", name="indifference_zone", value=a.zone)
        if a.warning:
            ET.SubElement(props, "property", name="warning", value=a.warning)
        line = format_line(a, result.level)
        if not a.passed:
            suite.set("failures", str(int(suite.get("failures", "0")) + 1))
            ET.SubElement(case, "failure", message=line, type=a.verdict).text = a.detail
        ET.SubElement(case, "system-out").text = f"{line}\n{a.detail}"
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def check_junit(
    path: str | os.PathLike[str], *, spec_path: str | os.PathLike[str], spec: Spec | None = None
) -> None:
    """Refuse a ``--junit`` file that cannot be written before any game (balance/outputs.py): a
    FIFO would block the gate at its end, a device would be replaced by a file. Nor may it be a
    file the check reads: the spec or a config or baseline it names."""
    inputs: dict[str, str] = {os.fspath(spec_path): "the check spec"}
    spec_dir = os.path.dirname(os.fspath(spec_path))
    for c in spec.checks if spec is not None else []:
        named = [c.config, c.baseline, *(a.baseline for a in c.assertions)]
        for name in filter(None, named):
            inputs.setdefault(
                os.path.normpath(os.path.join(spec_dir, name)), "a config the spec names"
            )
    check_output_file(path, "--junit", inputs=inputs)


def write_junit(result: CheckResult, path: str | os.PathLike[str]) -> Path:
    """Write the check as JUnit XML (:func:`junit_xml`) to ``path``, atomically."""
    return write_atomic(path, junit_xml(result))


def format_line(a: AssertionResult, level: float = 0.95) -> str:
    """One line per assertion: verdict, what, estimate, confidence sequence, games, and whether
    the estimate stopped inside a claim's indifference zone."""
    line = (
        f"{a.verdict:<12} {a.check}: {a.label}: {fmt.fixed(a.estimate)} "
        f"[{fmt.fixed(a.lo)}, {fmt.fixed(a.hi)}] ({fmt.level(level)} CS), {a.games:,} games"
    )
    if a.zone:
        line += f"; in the indifference zone ({a.zone})"
    return line


def format_summary(result: CheckResult) -> str:
    """The closing line: counts, games, time, outcome and the guarantee."""
    n = result.counts()
    return (
        f"check: {n['PASS']} PASS, {n['FAIL']} FAIL, {n['INCONCLUSIVE']} INCONCLUSIVE; "
        f"{result.games:,} games in {result.wall_time_s:.1f} s -> "
        f"{'ok' if result.passed else 'FAILED'}; {guarantee(result)}"
    )
