"""The headless-Chromium harness of the browser tests (tests/report/test_browser.py,
tests/games/corvids/test_views_browser.py): Debian's ``chromium`` and ``chromium-driver``,
driven by selenium, offline.

In CI (``CI`` set; ``.ci/run`` installs the browser) a missing browser FAILS a test, it never
skips; on a machine without Chromium it skips with the reason. Selenium never downloads a
browser or a driver: both paths are given, and ``SE_OFFLINE`` forbids Selenium Manager.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
COMMAND_TIMEOUT = 600  # seconds a page load or a driver command may take


def require_browser() -> None:
    """Skip (fail in CI) unless Chromium, its driver and selenium are installed."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package (pip install -e '.[test]')")
    if not missing:
        return
    reason = (
        f"the browser test needs {', '.join(missing)}; install with "
        "`apt-get install chromium chromium-driver`"
    )
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set: this test must run, not skip)")
    pytest.skip(reason)


@contextmanager
def offline_chromium(
    profile: Path, window: str = "1280,1000", *, loopback: bool = False
) -> Iterator[object]:
    """A headless Chromium (a selenium driver) with no network, its profile in ``profile``,
    logging the pages' console; quit at the end. With ``loopback``, pages may still reach
    127.0.0.1 (a local server's page, `balance watch`); every other address stays closed."""
    from selenium import webdriver

    saved = os.environ.get("SE_OFFLINE")
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must never fetch a browser or driver
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--window-size={window}",
        f"--user-data-dir={profile}",
        # No network: every request that leaves the machine goes to a closed port...
        "--proxy-server=http://127.0.0.1:9",
        # (loopback too, unless the page is a local server's: Chromium bypasses the proxy
        # for loopback by itself, and ``<-loopback>`` takes that away)
        *(() if loopback else ("--proxy-bypass-list=<-loopback>",)),
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(executable_path=CHROMEDRIVER)
    browser = webdriver.Chrome(service=service, options=options)
    # A loaded CI machine (the other test worker compiling kernels on the second core) can keep a
    # 5 MB report's first paint past selenium's 120 s per request; a hung browser still fails, later.
    _long_requests(browser)
    browser.set_page_load_timeout(COMMAND_TIMEOUT)
    browser.set_script_timeout(COMMAND_TIMEOUT)
    try:
        # ...and the browser itself is told it is offline (which would close loopback too).
        browser.execute_cdp_cmd("Network.enable", {})
        if not loopback:
            browser.execute_cdp_cmd(
                "Network.emulateNetworkConditions",
                {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
            )
        yield browser
    finally:
        browser.quit()
        if saved is None:
            os.environ.pop("SE_OFFLINE", None)
        else:
            os.environ["SE_OFFLINE"] = saved


def _long_requests(browser) -> None:
    """Let each driver request take COMMAND_TIMEOUT: through the connection's client config
    (selenium 4.26 and later), or the connection class's timeout (before)."""
    config = getattr(browser.command_executor, "_client_config", None)
    if config is not None and hasattr(config, "timeout"):
        config.timeout = COMMAND_TIMEOUT
        return
    from selenium.webdriver.remote.remote_connection import RemoteConnection

    RemoteConnection.set_timeout(COMMAND_TIMEOUT)


def open_page(driver, path: Path) -> None:
    """Open ``path`` from a file:// URL, dropping what earlier pages logged, and wait until the
    browser shows it: one driver opening big pages in a row sometimes returned from ``get`` on
    the previous page still, and a test then counted the previous page's figures."""
    from selenium.webdriver.support.ui import WebDriverWait

    uri = path.resolve().as_uri()
    driver.get_log("browser")
    driver.get(uri)
    WebDriverWait(driver, COMMAND_TIMEOUT).until(
        lambda d: (
            d.execute_script("return [document.URL, document.readyState]") == [uri, "complete"]
        )
    )


def severe(driver) -> list:
    """The browser console's errors since the page was opened."""
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def fetched_elsewhere(driver) -> list[str]:
    """Every resource the page loaded from anywhere but the file itself or a data: URL."""
    urls = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    return [u for u in urls if not u.startswith(("file:", "data:"))]
