"""``balance watch`` in a real headless Chromium (issue 33, acceptance): the page shows the first
version's figures; a value changed in the YAML shows the new figures and the paired change
within 10 s of the save; a bad edit shows its one-line error on the page and keeps the last
figures; Ctrl-C stops the command cleanly (exit 130 and one line, as for every command).

The browser is the report tests' harness (tests/report/browser.py), with loopback open: the
page is the local server's, every other address stays closed."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.report.browser import offline_chromium, require_browser, severe

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "configs" / "five_ravens" / "base.yaml"
SAVE_TO_FIGURES_S = 10.0  # the bound, from the save to the new figures on the page

pytestmark = pytest.mark.slow


def _wait(driver, test, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = driver.execute_script(test)
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(
        f"{what}: not within {seconds} s; page: {driver.find_element('tag name', 'body').text[:600]}"
    )


def _save(path: Path, text: str) -> None:
    """Save as an editor does: a new file renamed over the old one."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def test_watch_shows_a_saved_change_within_10_seconds_and_keeps_figures_on_a_bad_edit(tmp_path):
    require_browser()
    cfg = tmp_path / "watched.yaml"
    cfg.write_text(f"extends: {BASE}\nrules: {{hand_size: 4}}\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "balance", "watch", str(cfg), "--no-open", "--games", "60000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        url, said = None, []
        while url is None:  # the address comes once the server is up (before any game)
            line = proc.stdout.readline()
            assert line, "".join(said) + proc.stderr.read()
            said.append(line)
            url = re.search(r"page: (http://127\.0\.0\.1:\d+/)", line)
        with offline_chromium(tmp_path / "profile", "1280,1400", loopback=True) as driver:
            driver.get(url.group(1))
            _wait(driver, "return document.body.dataset.final === '1'", 600, "version 1's figures")
            assert "version 1" in driver.find_element("id", "version").text
            first = driver.find_element("id", "headline-value").text
            assert re.fullmatch(r"\d+\.\d %", first), first

            saved = time.monotonic()
            _save(cfg, f"extends: {BASE}\nrules: {{hand_size: 3}}\n")
            _wait(
                driver,
                "return document.getElementById('version').textContent.startsWith('version 2')"
                " && document.getElementById('change-headline').textContent.length > 0",
                SAVE_TO_FIGURES_S,
                "version 2's figures and its paired change",
            )
            took = time.monotonic() - saved
            assert took <= SAVE_TO_FIGURES_S
            change = driver.find_element("id", "change-headline").text
            assert change.startswith("win share of the 1st player: "), change
            assert "points [" in change
            assert "against A = version 1" in driver.find_element("id", "against").text
            rows = driver.find_elements("css selector", "#change tbody tr")
            assert len(rows) >= 10  # every seat, place and the game's length
            _wait(driver, "return document.body.dataset.final === '1'", 60, "version 2 final")
            kept = driver.find_element("id", "headline-value").text
            driver.save_screenshot(str(tmp_path / "watch.png"))

            _save(cfg, f"extends: {BASE}\nrules: {{hand_size: -3}}\n")
            _wait(
                driver,
                "return getComputedStyle(document.getElementById('error')).display === 'block'",
                SAVE_TO_FIGURES_S,
                "the bad edit's error",
            )
            error = driver.find_element("id", "error").text
            assert "watched.yaml" in error and "rules.hand_size" in error, error
            assert driver.find_element("id", "headline-value").text == kept
            assert "version 2" in driver.find_element("id", "version").text
            assert severe(driver) == []
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 130, err  # Ctrl-C, as for every command
    assert "Traceback" not in err
    assert err.endswith("interrupted: the watch is over, nothing was written\n"), err
    errors = [e for e in err.splitlines() if e.startswith("error: ")]
    assert len(errors) == 1 and "rules.hand_size" in errors[0], err
