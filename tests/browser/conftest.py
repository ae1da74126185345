"""Browser-test fixtures: the real app served by `streamlit run`, and Debian's Chromium via Playwright.

Plain `playwright.sync_api.sync_playwright` (not pytest-playwright). A missing Chromium or a missing
real dataset fails the run when the environment variable CI is set, and is a skip elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.support import ROOT, fail_or_skip

ARTIFACTS = ROOT / "test-artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# Seconds a server may take to answer its health check on a quiet machine; the wait scales with the machine's load
# (load average per CPU), so a busy machine gets as long as it needs (startup_allowance).
STARTUP_TIMEOUT = 30.0


def load_factor() -> float:
    """The machine's load average per CPU, at least 1: what a wait or a bound on a stall is scaled by, so that a
    busy machine (CI beside another job) never fails a test that a quiet one passes."""
    return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


def startup_allowance() -> float:
    """STARTUP_TIMEOUT times :func:`load_factor`: the wait for a server on this machine now."""
    return STARTUP_TIMEOUT * load_factor()

# Playwright's expect() waits 5 s by default; a first page run with intervals on a busy CI machine (make test runs
# one pytest worker per CPU) can take longer, so every assertion waits up to 20 s (it passes as soon as it holds).
expect.set_options(timeout=20_000)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError as exc:
        return f"(could not read {path}: {exc})"


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200 and response.read().decode().strip() == "ok"
    except (urllib.error.URLError, OSError):
        return False


@contextlib.contextmanager
def serve_app(log_name: str, *extra: str):
    """Serve app.py with `streamlit run` on a free port; yield (base URL, process); stop it on exit.

    `extra` adds server options (e.g. ``--server.disconnectedSessionTTL 5``); the log goes to
    ARTIFACTS / `log_name`.
    """
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    log_path = ARTIFACTS / log_name
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
               "--server.port", str(port), "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none", *extra]  # an edited file never leaves a test waiting on a rerun
    # Truncated, then opened for appending: a server of an earlier fixture instance that is still shutting down (a
    # module-scoped fixture set up again) appends after this one's lines instead of writing at its old offset, which
    # left a hole of NULs and lines out of order that tests reading the log past an offset could never see.
    log_path.write_bytes(b"")
    with open(log_path, "ab") as log:
        process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        started = time.monotonic()
        while not _healthy(base + "/_stcore/health"):
            if process.poll() is not None:
                pytest.fail(f"streamlit exited with code {process.returncode} before answering "
                            f"/_stcore/health. Server log ({log_path}):\n{_tail(log_path)}")
            if time.monotonic() - started > startup_allowance():
                pytest.fail(f"streamlit did not answer {base}/_stcore/health with 'ok' within "
                            f"{startup_allowance():.0f} s. Server log ({log_path}):\n{_tail(log_path)}")
            time.sleep(0.2)
        yield base, process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


@pytest.fixture(scope="session")
def app_url():
    """The base URL of the session's app server (see :func:`serve_app`)."""
    with serve_app("streamlit-server.log") as (base, _):
        yield base


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, launched by Playwright (never a downloaded browser)."""
    if not CHROMIUM.exists():
        fail_or_skip("Chromium not found at /usr/bin/chromium. Install it with: "
                     "sudo apt-get install chromium chromium-driver fonts-liberation libatomic1")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


class ConsoleLog:
    """Console messages of type 'error' and uncaught page errors seen by one page."""

    def __init__(self):
        self.errors: list[str] = []

    @classmethod
    def of(cls, page) -> "ConsoleLog":
        """A log listening to `page`."""
        log = cls()
        page.on("console", log.on_console)
        page.on("pageerror", log.on_pageerror)
        return log

    def on_console(self, message) -> None:
        if message.type == "error":
            location = message.location or {}
            self.errors.append(f"console.error: {message.text} "
                               f"({location.get('url', '?')}:{location.get('lineNumber', '?')})")

    def on_pageerror(self, error) -> None:
        self.errors.append(f"pageerror: {error}")

    def assert_clean(self) -> None:
        assert not self.errors, "Browser console errors / page errors:\n" + "\n".join(self.errors)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test item, so fixtures can tell whether the test failed."""
    report = yield
    setattr(item, "rep_" + report.when, report)
    return report


@pytest.fixture
def app_page(browser, app_url, request):
    """A fresh browser context and page (1400x1000) with console and page errors collected.

    Yields ``(page, console_log)``; each test asserts ``console_log.assert_clean()`` at its end.
    When the test fails, a screenshot of the page is saved as test-artifacts/failure-<test>.png.
    """
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(20_000)
    pg = context.new_page()
    log = ConsoleLog.of(pg)
    try:
        yield pg, log
    finally:
        report = getattr(request.node, "rep_call", None)
        if report is not None and report.failed:
            try:
                pg.screenshot(path=str(ARTIFACTS / f"failure-{request.node.name}.png"), full_page=True)
            except Exception as exc:  # the page may be gone; the test's own failure matters more
                print(f"Could not save a failure screenshot: {exc}")
        context.close()


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
