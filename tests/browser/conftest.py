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


def scaled_ms(ms: float) -> float:
    """`ms` milliseconds times :func:`load_factor` now: the bound of a wait on an event (it ends as soon as the event
    happens; only a failing wait takes the whole bound)."""
    return ms * load_factor()


# Playwright's expect() waits 5 s by default; a first page run with intervals on a busy CI machine (make test runs
# one pytest worker per CPU and one more) can take longer, so every assertion waits up to 20 s times the load when
# the browser tests are collected (it passes as soon as it holds).
expect.set_options(timeout=scaled_ms(20_000))

# Installed in every page of a context made by the `browser` fixture's Chromium, before Streamlit's own code: counts
# the script runs the page asks for and the server's answers, read from the top-level fields of the protobuf
# messages on Streamlit's websocket (BackMsg.rerun_script = 11; ForwardMsg.new_session = 4, sent when a run starts,
# and script_finished = 6, with 2 = FINISHED_EARLY_FOR_RERUN when a rerun replaces the run). A rerun asked for by a
# click starts only after a round trip to the server, so the page's idle state alone cannot say that the click's run
# is over; these counts can (:data:`SCRIPT_IDLE`).
SCRIPT_RUNS = """(() => {
  const runs = window.__scriptRuns = {requested: 0, startedAfter: -1, open: false};
  const fields = (data) => {
    const bytes = data instanceof ArrayBuffer ? new Uint8Array(data)
      : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const out = [];
    let i = 0;
    const varint = () => {
      let value = 0, scale = 1, byte;
      do { byte = bytes[i++]; value += (byte & 0x7f) * scale; scale *= 128; } while (byte & 0x80 && i < bytes.length);
      return value;
    };
    while (i < bytes.length) {
      const tag = varint(), type = tag % 8;
      let value = null;
      if (type === 0) value = varint();
      else if (type === 2) { const length = varint(); i += length; }  // (not i += varint(): i is read first)
      else if (type === 1) i += 8;
      else if (type === 5) i += 4;
      else break;
      out.push([Math.floor(tag / 8), value]);
    }
    return out;
  };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => {
        if (typeof event.data === 'string') return;
        for (const [field, value] of fields(event.data)) {
          if (field === 4) { runs.startedAfter = runs.requested; runs.open = true; }
          if (field === 6 && value !== 2) runs.open = false;
        }
      });
    }
    send(data) {
      if (typeof data !== 'string' && fields(data).some(([field]) => field === 11)) runs.requested += 1;
      return super.send(data);
    }
  };
})();"""

# True once Streamlit has finished every run the page asked for: a run started after the last request and has
# finished (not replaced by a rerun), the app says it is not running, and no element is left stale from an earlier
# run. A page without the counts (made outside the `browser` fixture) is an error, not a wait.
SCRIPT_IDLE = """() => {
  const runs = window.__scriptRuns;
  if (!runs) throw new Error('no script-run counts in this page: make its context with the browser fixture');
  const app = document.querySelector('[data-testid="stApp"]');
  return !!app && app.dataset.testScriptState === 'notRunning'
    && (runs.requested === 0 || runs.startedAfter === runs.requested) && !runs.open
    && !document.querySelector('[data-testid="stStatusWidget"]') && !document.querySelector('[data-stale="true"]');
}"""


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
    """The base URL of the session's app server (see :func:`serve_app`); under xdist each worker that runs browser
    tests has its own, with its own log (streamlit-server-gw<n>.log)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    with serve_app(f"streamlit-server-{worker}.log" if worker else "streamlit-server.log") as (base, _):
        yield base


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, launched by Playwright (never a downloaded browser). Every context it makes counts its
    pages' script runs (SCRIPT_RUNS), which test_app_browser.settle waits on."""
    if not CHROMIUM.exists():
        fail_or_skip("Chromium not found at /usr/bin/chromium. Install it with: "
                     "sudo apt-get install chromium chromium-driver fonts-liberation libatomic1")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        new_context = chromium.new_context

        def counting_context(**options):
            """A new context whose pages count their script runs (SCRIPT_RUNS) for test_app_browser.settle."""
            context = new_context(**options)
            context.add_init_script(SCRIPT_RUNS)
            return context

        chromium.new_context = counting_context
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
    context.set_default_timeout(scaled_ms(20_000))
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
