"""The README and the docs site (issue 27, item 6): the site builds with `mkdocs build --strict`
(a broken link or anchor fails it), every link to a repository file exists, the README lists every
command, and every example that claims an output still prints it.

An example claims an output when an HTML comment marks it (docs/development.md, "Examples that
claim an output", says how to write one):

- ``<!-- check-output -->`` above a ```` ```console ```` block: each ``$ `` line is run with bash
  (a line ending in ``\\`` goes on to the next) and what it prints, stdout and stderr together,
  must be the lines below it up to the next ``$ ``; a line ``...`` stands for any number of lines.
  Above a ```` ```python ```` block: the code is run and must print the ```` ```text ```` block
  that follows it.
- ``<!-- write-file: PATH -->`` above a fenced block: its text is written to PATH first (a file
  the page tells the reader to create).
- ``<!-- check-page: FILE -->`` above a quote (``> - ...`` lines): every quoted sentence must be
  in FILE's text, an HTML page written by the page's commands or a published one under reports/;
  ``[...]`` in a sentence stands for any text.

A page's examples run in order in one fresh directory holding a copy of configs/, so that the
files one command writes are there for the next and nothing is written into the repository. Both
sides are masked alike before they are compared, and only for what varies by machine: durations
(``2.43 s``, ``44-185 s``), rates (``149,789 games/s``) and file sizes (``5.0 MB``), and the lines
of stderr that report kernel loading and off-terminal progress. Every other character, every win
share and interval of a fixed seed included, must match exactly.
"""

from __future__ import annotations

import html
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted([ROOT / "README.md", *DOCS.rglob("*.md")])


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# --- the site ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_site_builds_strict(tmp_path):
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip("mkdocs-material is not installed: pip install -e '.[docs]'")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "NO_MKDOCS_2_WARNING": "1",  # material's banner about MkDocs 2.0, not about this site
    }
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    site = tmp_path / "site"
    simulate = _page_text(site / "commands" / "simulate" / "index.html")
    # The generated reference is there: an option, its default and an example of the epilog.
    assert "--chunk-size" in simulate and "65536" in simulate
    assert "balance simulate --resume results/five_ravens" in simulate
    architecture = _page_text(site / "architecture" / "index.html")
    for game in ("five_ravens", "raven_order", "raven_manor", "corvids"):
        assert f"{game}/" in architecture


# --- links -------------------------------------------------------------------------------------

LINK = re.compile(r"(?<!\!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1\s*$", re.S | re.M)


def _links(path: Path) -> list[str]:
    text = FENCE.sub("", path.read_text())
    text = re.sub(r"`[^`\n]*`", "", text)
    return [a or b for a, b in LINK.findall(text)]


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_link_to_a_repository_file_exists(page):
    missing = []
    for target in _links(page):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.split("#")[0]).resolve()
        if not path.exists():
            missing.append(target)
    assert not missing, f"{_rel(page)} links to missing files: {missing}"


def test_the_readme_stays_short_and_lists_every_command():
    import typer

    from balance.cli import app

    readme = (ROOT / "README.md").read_text()
    assert 150 <= len(readme.splitlines()) <= 250
    group = typer.main.get_command(app)
    names = group.list_commands(group.context_class(group, info_name="balance"))
    listed = re.findall(r"^\| \[`balance ([a-z-]+)", readme, re.M)
    assert sorted(listed) == sorted(names)
    for name in names:
        assert (DOCS / "commands" / f"{name}.md").is_file()


def test_the_readme_test_command_is_what_ci_runs():
    """.ci/run runs the README's test command after installing the test extra."""
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    m = re.search(r"^python -m pip install -e '\.\[test\]' && (python -m pytest.*)$", readme, re.M)
    assert m, "the README shows no test command"
    assert "python -m pip install -e '.[test]'" in ci
    assert re.search(rf"^{re.escape(m.group(1))}$", ci, re.M), m.group(1)


# --- examples that claim an output ---------------------------------------------------------------

MARK = re.compile(r"^<!-- (check-output|write-file: (\S+)|check-page: (\S+)) -->\s*$")
OPEN = re.compile(r"^(```+|~~~+)\s*([\w-]*)")


@dataclass
class Step:
    kind: str  # "console", "python", "write" or "page"
    line: int  # where the example starts in its page (1-based)
    body: list[str]
    expected: list[str] = field(default_factory=list)
    path: str = ""


def _block(lines: list[str], i: int) -> tuple[str, list[str], int]:
    """The fenced block opening at or after line i: (language, its lines, the line after it)."""
    while not lines[i].strip():
        i += 1
    m = OPEN.match(lines[i])
    assert m, f"line {i + 1}: a fenced block must follow the marker"
    fence, lang = m.group(1), m.group(2)
    end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith(fence))
    return lang, lines[i + 1 : end], end + 1


def _steps(page: Path) -> list[Step]:
    lines = page.read_text().splitlines()
    steps, i = [], 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if not m:
            i += 1
            continue
        start = i + 1
        if m.group(2):
            _, body, i = _block(lines, i + 1)
            steps.append(Step("write", start, body, path=m.group(2)))
        elif m.group(3):
            j = i + 1
            while not lines[j].startswith(">"):
                j += 1
            sentences: list[str] = []
            while j < len(lines) and lines[j].startswith(">"):
                line = lines[j][1:].strip()
                if line.startswith("- ") or not sentences:
                    sentences.append(line.removeprefix("- "))
                else:
                    sentences[-1] += " " + line
                j += 1
            steps.append(Step("page", start, sentences, path=m.group(3)))
            i = j
        else:
            lang, body, i = _block(lines, i + 1)
            if lang == "console":
                steps.append(Step("console", start, body))
            elif lang == "python":
                out_lang, expected, i = _block(lines, i)
                assert out_lang == "text", (
                    f"{_rel(page)}:{start}: python needs a text block after it"
                )
                steps.append(Step("python", start, body, expected))
            else:
                raise AssertionError(f"{_rel(page)}:{start}: check-output on a {lang!r} block")
    return steps


def _checked_pages() -> list[Path]:
    return [p for p in PAGES if any(MARK.match(line) for line in p.read_text().splitlines())]


# Lines that report how a run goes on this machine, not what it found (balance/terminal.py).
PROGRESS = [
    re.compile(r"^(compiling|loading) \S+( and search player)? kernels\b.*$"),
    re.compile(r"^(compiled|loaded) \S+( and search player)? kernels in [\d.]+ s$"),
    re.compile(r"^.+: [\d,]+ of [\d,]+ games \(\d+%\), [\d,]+ games/s, eta \d+ s$"),
]
MASKS = [
    (re.compile(r"\b\d[\d,]*(?:\.\d+)? games/s\b"), "N games/s"),
    (re.compile(r"\b\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)? s\b"), "T s"),
    (re.compile(r"\b\d+(?:\.\d+)? MB\b"), "N MB"),
]


def _mask(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        if any(p.match(line) for p in PROGRESS):
            continue
        for pattern, repl in MASKS:
            line = pattern.sub(repl, line)
        out.append(line.rstrip())
    while out and not out[-1]:
        out.pop()
    return out


def _matches(expected: list[str], actual: list[str]) -> bool:
    """Line by line; an expected line ``...`` (indented or not) matches any number of lines."""
    if not expected:
        return not actual
    if expected[0].strip() == "...":
        return any(_matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and _matches(expected[1:], actual[1:])


def _commands(body: list[str]) -> list[tuple[str, list[str]]]:
    """A console block's commands, each with the output lines shown under it."""
    runs: list[tuple[str, list[str]]] = []
    lines = iter(body)
    for line in lines:
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\"):
                command = command[:-1] + next(lines).strip()
            runs.append((command, []))
        else:
            assert runs, f"output before the first command: {line!r}"
            runs[-1][1].append(line)
    return runs


def _page_text(path: Path) -> str:
    text = path.read_text()
    text = re.sub(r"<script.*?</script>|<style.*?</style>", " ", text, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


@pytest.fixture
def page_dir(tmp_path):
    """A fresh directory with a copy of configs/, and `balance` and `python` on PATH running
    this repository's code with this interpreter."""
    shutil.copytree(ROOT / "configs", tmp_path / "configs")
    bin_dir = tmp_path / ".bin"
    bin_dir.mkdir()
    (bin_dir / "balance").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m balance "$@"\n')
    (bin_dir / "balance").chmod(0o755)
    (bin_dir / "python").symlink_to(sys.executable)
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "FORCE_COLOR")}
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env['PATH']}",
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
    )
    return tmp_path, env


@pytest.mark.slow
@pytest.mark.parametrize("page", _checked_pages(), ids=_rel)
def test_the_examples_print_what_the_docs_say(page, page_dir):
    cwd, env = page_dir
    steps = _steps(page)
    assert steps
    where = _rel(page)
    for step in steps:
        at = f"{where}:{step.line}"
        if step.kind == "write":
            target = cwd / step.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("\n".join(step.body) + "\n")
        elif step.kind == "page":
            found = cwd / step.path if (cwd / step.path).exists() else ROOT / step.path
            assert found.is_file(), f"{at}: no page {step.path}"
            text = _page_text(found)
            for sentence in step.body:
                pattern = r"\s*".join(
                    r".*?" if part == "[...]" else re.escape(part)
                    for part in re.split(r"(\[\.\.\.\])", " ".join(sentence.split()))
                    if part
                )
                assert re.search(pattern, text), f"{at}: {step.path} does not say: {sentence}"
        elif step.kind == "python":
            run = subprocess.run(
                [sys.executable, "-c", "\n".join(step.body)],
                cwd=cwd,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=600,
            )
            got = run.stdout.splitlines()
            assert _matches(_mask(step.expected), _mask(got)), (
                f"{at}: the code printed\n" + run.stdout
            )
        else:
            for command, expected in _commands(step.body):
                run = subprocess.run(
                    ["bash", "-c", command],
                    cwd=cwd,
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                    timeout=600,
                )
                got = run.stdout.splitlines()
                assert _matches(_mask(expected), _mask(got)), (
                    f"{at}: `{command}` printed\n{run.stdout}"
                )


def test_the_output_check_reads_what_it_should():
    """The masks and the matcher: the varying parts go, everything else must be equal."""
    shown = ["20,000 games in 0.27 s (73,892 games/s), 80,000 rows -> results/first"]
    got = [
        "loading five_ravens kernels",
        "loaded five_ravens kernels in 0.3 s",
        "20,000 games in 2.43 s (8,218 games/s), 80,000 rows -> results/first",
    ]
    assert _matches(_mask(shown), _mask(got))
    other = ["20,001 games in 2.43 s (8,218 games/s), 80,000 rows -> results/first"]
    assert not _matches(_mask(shown), _mask(other))
    assert not _matches(_mask(["seat 0: 25.12 %"]), _mask(["seat 0: 25.13 %"]))
    assert _matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert _matches(["a", "...", "d"], ["a", "d"])
    assert not _matches(["a", "...", "d"], ["a", "b"])
    assert _commands(["$ a \\", "  b", "out", "$ c"]) == [("a b", ["out"]), ("c", [])]
