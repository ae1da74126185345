"""Resources and isolation in the real server: two sessions never show each other's names or numbers; a
pathological upload in one session never stalls another; five sessions at once on 10^5-row files render every
page within a stated memory bound, and are released when they end.

A stall is judged by the server's CPU seconds, which the machine's load does not change, never by wall-clock time:
the stalls these tests guard against each held the GIL for a CPU-minute or more. How long the health endpoint and a
page switch take as felt is printed (and measured in benchmarks/browser.py), not asserted.

One streamlit server for the module, its own (so its memory is this module's alone), with a short
``server.disconnectedSessionTTL`` so that the release of ended sessions is seen within the test.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
import time
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Page, expect

from fairness_core._data.reading import REPEATED_NAMES_MESSAGE
from tests.browser.conftest import ARTIFACTS, CHROMIUM, ConsoleLog, _tail, load_factor, serve_app, scaled_ms
from tests.browser.test_app_browser import (EXCEPTION, PLOT, assert_no_exception, chips, go_to, open_app, screenshot,
                                            settle, wait_for_plot)
from tests.support import fail_or_skip
from fairness_dashboard import navigation

pytestmark = pytest.mark.browser

N_ROWS = 100_000
N_CONTEXTS = 5
TTL = 4  # seconds a disconnected session is kept (server.disconnectedSessionTTL); the sweep runs every TTL/2
MB = 2 ** 20
# The server's peak resident memory while five sessions upload 10^5-row files and visit their pages at once,
# measured on this 2-core machine (Streamlit 1.67, Python 3.11): 470-510 MiB (about 210 MiB for a fresh server,
# 270-290 MiB once every page's modules are imported, 430-445 MiB after the last page; 345-360 MiB once the
# sessions are released). The bound leaves about 25 % for the variance between runs.
RSS_BOUND = 640 * MB
WAIT = 60_000  # ms: five sessions share two cores
LOG = ARTIFACTS / "streamlit-load-server.log"
RELEASED = "Released the ended session"  # the server's log line for each session the sweep releases (fairness_dashboard.session.memo)
ALL_RELEASED = re.compile(RELEASED + r" .*\(0 sessions left\)")  # ... when it was the last session the server held


def all_released_after(offset: int) -> bool:
    """Whether the server logged, after its log's first `offset` characters, the release of its last session: every
    session closed by then (this test's and any earlier test's still within its TTL) has been released."""
    return bool(ALL_RELEASED.search(LOG.read_text(errors="replace")[offset:]))
# What each page shows once rendered: a chart, else a table; the Overview its tiles; the definitions their sections.
CONTENT = {"Data": "[data-testid='stDataFrame']", "Overview": "[data-testid='stMetric']", "Subgroup AUCs": PLOT,
           "Rate disparities": PLOT, "Calibration": PLOT, "Class-wise bias": PLOT, "Dataset metrics": PLOT,
           "Discover subgroups": PLOT,   # the search over the protected attributes, its chart
           "Over time": "[data-testid='stAlertContentInfo']",   # these files have no time column: it says so
           "Metric definitions": "[data-testid='stMain'] h2"}


@pytest.fixture(scope="module")
def server():
    """(base URL, process id) of a streamlit server of this module's own, stopped at the end of the module."""
    if not CHROMIUM.exists():
        fail_or_skip("Chromium not found at /usr/bin/chromium.")
    with serve_app(LOG.name, "--server.disconnectedSessionTTL", str(TTL)) as (base, process):
        yield base, process.pid


_WARM: list = []  # not empty once a session of the server has visited every page (every page's modules imported)


@pytest.fixture
def warm_server(server, browser):
    """The module's server, once every page's modules are imported (a session visits each page, unless one did)."""
    if not _WARM:
        context, page, log = new_page(browser)
        open_app(page, server[0])
        for title in navigation.TITLES[1:]:
            go_to(page, title)
        log.assert_clean()
        context.close()
        _WARM.append(True)
    return server


def rss(pid: int) -> int:
    """Resident memory in bytes of process `pid` and its children (VmRSS in /proc)."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            total += int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M).group(1)) * 1024
            for task in Path(f"/proc/{current}/task").iterdir():
                pending += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, AttributeError):
            continue
    return total


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds so far of process `pid` (every thread; utime and stime in /proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# CPU seconds the server may spend on a hostile file's refusal, with another session's page switch beside it where
# a test has one. Measured here: 0.07-0.31 s for the refusals, 0.57 s with the switch to Subgroup AUCs; each stall
# these tests guard against held the GIL for 38-69 CPU-seconds (or grew by a structure per item for minutes).
STALL_CPU = 10.0


class PeakRSS:
    """The highest resident memory of a process tree, sampled every 0.1 s on a thread while in a `with` block."""

    def __init__(self, pid: int):
        self.pid, self.peak, self._stop = pid, 0, threading.Event()

    def __enter__(self):
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, rss(self.pid))
            self._stop.wait(0.1)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def scored_csv(path: Path, n_rows: int, tag: str, values: tuple, seed: int) -> Path:
    """A CSV of `n_rows`: a 0/1 outcome, a score and two protected attributes, every column name ending in
    `tag`; `values` = (the first attribute's values, the second's). Subgroups differ in base rate."""
    rng = np.random.default_rng(seed)
    first = rng.choice(np.array(values[0]), n_rows)
    second = rng.choice(np.array(values[1]), n_rows)
    shift = (first == values[0][0]) * 0.6 - (second == values[1][0]) * 0.4
    logit = rng.normal(shift, 1.2)
    frame = pd.DataFrame({
        f"outcome_{tag}": (rng.random(n_rows) < 1 / (1 + np.exp(-logit))).astype(int),
        f"score_{tag}": np.round(1 / (1 + np.exp(-(logit + rng.normal(0, 0.9, n_rows)))), 4),
        f"race_{tag}": first, f"sex_{tag}": second})
    frame.to_csv(path, index=False)
    return path


def new_page(browser) -> tuple:
    """(context, page, console log) of a fresh 1400x1000 browser context."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(scaled_ms(WAIT))
    page = context.new_page()
    log = ConsoleLog.of(page)
    return context, page, log


def start_upload(page: Page, path: Path) -> None:
    """Choose Upload a file and hand `path` to the uploader (without waiting for it to load)."""
    page.get_by_test_id("stRadio").filter(has_text="Source").get_by_text("Upload a file", exact=True).click()
    file_input = page.locator("input[type=file]")
    expect(file_input).to_be_attached(timeout=scaled_ms(WAIT))
    file_input.set_input_files(path)


def loaded(page: Page, name: str, n_rows: int, attributes: list[str]) -> None:
    """Wait for the Data page to show the file `name` with `n_rows` rows, mapped on both `attributes`."""
    expect(page.get_by_text(re.compile(rf"{re.escape(name)}: {n_rows:,} rows"))).to_be_visible(timeout=scaled_ms(WAIT))
    settle(page, timeout_s=WAIT / 1000)
    assert chips(page, "Protected attributes") == attributes  # the first guess maps both attributes
    expect(page.get_by_test_id("stMetric").filter(has_text="Rows used")).to_contain_text(f"{n_rows:,}")


def click_page(page: Page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()


def rendered(page: Page, title: str) -> None:
    """The page titled `title` has finished its run and shows its content (``CONTENT``), and no exception."""
    expect(page.get_by_role("heading", name=title, level=1)).to_be_visible(timeout=scaled_ms(WAIT))
    settle(page, timeout_s=WAIT / 1000)
    expect(page.locator(CONTENT[title]).first).to_be_visible(timeout=scaled_ms(WAIT))
    if CONTENT[title] == PLOT:
        expect(page.locator(PLOT).first.locator(".main-svg").first).to_be_attached(timeout=scaled_ms(WAIT))
    assert_no_exception(page)


def body_text(page: Page) -> str:
    """Every text of the page's DOM, hidden or not (chart labels in SVG included)."""
    return page.locator("body").text_content()


# Tests -------------------------------------------------------------------------------------------------------

ISOLATED = {  # two files that share no column name, subgroup name or row count
    "amber": dict(n_rows=4_321, values=(["Nordmark", "Sudland", "Ostwick"], ["Cohort-Alpha", "Cohort-Beta"]), seed=11),
    "blue": dict(n_rows=6_789, values=(["Westerby", "Lakeside"], ["Tier-Gold", "Tier-Iron", "Tier-Lead"]), seed=12),
}


def test_two_sessions_never_show_each_others_names_or_numbers(server, browser, tmp_path, screenshot_dir):
    base, _ = server
    files = {tag: scored_csv(tmp_path / f"{tag}.csv", spec["n_rows"], tag, spec["values"], spec["seed"])
             for tag, spec in ISOLATED.items()}
    own = {tag: [f"{tag}.csv", f"{spec['n_rows']:,}", *(f"{c}_{tag}" for c in ("outcome", "score", "race", "sex")),
                 *spec["values"][0], *spec["values"][1]] for tag, spec in ISOLATED.items()}
    sessions = {tag: new_page(browser) for tag in ISOLATED}
    for tag, (_, page, _) in sessions.items():
        open_app(page, base)
        start_upload(page, files[tag])
    for tag, (_, page, _) in sessions.items():
        loaded(page, f"{tag}.csv", ISOLATED[tag]["n_rows"], [f"race_{tag}", f"sex_{tag}"])
    for title in navigation.TITLES:
        if title != "Data":
            for _, page, _ in sessions.values():  # both switch at once
                click_page(page, title)
        for tag, (_, page, _) in sessions.items():
            rendered(page, title)
            shown = body_text(page)
            other = next(t for t in ISOLATED if t != tag)
            leaked = [word for word in own[other] if word in shown]
            assert not leaked, f"{title} of the {tag} session shows the {other} file's {leaked}"
            if title in ("Data", "Overview", "Subgroup AUCs"):
                assert own[tag][0] in shown and f"race_{tag}" in shown  # the page does show its own file
    go_to(sessions["blue"][1], "Subgroup AUCs")
    wait_for_plot(sessions["blue"][1])
    screenshot(sessions["blue"][1], screenshot_dir / "isolation_blue_subgroup_aucs.png")
    for context, _, log in sessions.values():
        log.assert_clean()
        context.close()
    _WARM.append(True)


TARGET = "Subgroup AUCs"  # the page the other session switches to: a chart and a table


def switch_seconds(page: Page, title: str) -> float:
    """Seconds from a click on `title` in the sidebar to that page's heading and first chart drawn."""
    started = time.monotonic()
    click_page(page, title)
    expect(page.get_by_role("heading", name=title, level=1)).to_be_visible(timeout=scaled_ms(WAIT))
    expect(page.locator(PLOT).first.locator(".main-svg").first).to_be_attached(timeout=scaled_ms(WAIT))
    return time.monotonic() - started


def test_a_pathological_upload_never_stalls_another_session(server, browser, tmp_path):
    # 64 KB of '",': csv.Sniffer backtracked on it for about a minute holding the GIL, stalling every session.
    stall = tmp_path / "stall.csv"
    stall.write_bytes(b'",' * 32768)
    base, _ = server
    (uploader_context, uploader, uploader_log), (other_context, other, other_log) = new_page(browser), new_page(browser)
    open_app(uploader, base)
    open_app(other, base)  # the bundled sample, mapped
    go_to(other, TARGET)  # its first run in the server (imports, counts), not part of the measure
    wait_for_plot(other)
    go_to(other, "Data")
    quiet = switch_seconds(other, TARGET)  # the same switch with nothing else running
    go_to(other, "Data")
    _, pid = server
    cpu = cpu_seconds(pid)
    start_upload(uploader, stall)
    switch = switch_seconds(other, TARGET)   # the other session's page is drawn while the upload is handled
    message = REPEATED_NAMES_MESSAGE.format(name="stall.csv", count=16_383, example=",")
    expect(uploader.get_by_test_id("stAlertContentError").filter(has_text=message[:60]).first).to_be_visible()
    spent = cpu_seconds(pid) - cpu
    print(f"\npage switch: {quiet:.2f} s alone, {switch:.2f} s during the pathological upload; server CPU for the "
          f"upload's refusal and the switch {spent:.2f} s")
    assert spent < STALL_CPU, f"the server spent {spent:.1f} CPU-s refusing a 64 KB file beside a page switch"
    expect(uploader.locator(EXCEPTION)).to_have_count(0)
    for context, log in ((uploader_context, uploader_log), (other_context, other_log)):
        log.assert_clean()
        context.close()


@contextlib.contextmanager
def polled_health(base: str):
    """Yield the list of latencies (s) of the server's ``/_stcore/health``, polled every 50 ms until the block ends.

    Health is answered by the server's event loop: a computation that holds the GIL (a quadratic regex, a
    backtracking sniffer) delays it, whichever session caused it.
    """
    import urllib.request

    latencies, done = [], threading.Event()

    def poll():
        while not done.is_set():
            started = time.monotonic()
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=30) as answer:
                assert answer.status == 200
            latencies.append(time.monotonic() - started)
            done.wait(0.05)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    try:
        yield latencies
    finally:
        done.set()
        poller.join()


# Restore files that once held the GIL or grew the server without bound, each with the start of the message refusing it.
HOSTILE_RESTORES = {
    # 714 KB of opening tags without a close made the lazy regex that found a report's embedded
    # configuration quadratic, holding the GIL for 69 s.
    "tags.html": (lambda: b'<script type="application/json" id="review-config">' * 100_000, "neither a configuration"),
    # 3,000,000 {} in a slice's values; jsonschema kept an error per item (4.5 GB after 9 minutes).
    "items.json": (lambda: json.dumps({"version": 1, "mapping": {"label": "repaid", "positive_label": 1},
                                       "slice": [{"column": "a", "values": [{}] * 3_000_000}]}).encode(),
                   "larger than a configuration can be"),
}


@contextlib.contextmanager
def hostile_session(server, browser, tmp_path, name: str, data: bytes):
    """(path, page): `data` written to ``tmp_path / name`` and a new session on the module's server; on leaving,
    the page shows no exception and the console is clean."""
    path = tmp_path / name
    path.write_bytes(data)
    context, page, log = new_page(browser)
    open_app(page, server[0])
    yield path, page
    expect(page.locator(EXCEPTION)).to_have_count(0)
    log.assert_clean()
    context.close()


@pytest.mark.parametrize("name", list(HOSTILE_RESTORES))
def test_a_hostile_restore_file_never_stalls_the_server(server, browser, tmp_path, name):
    # The server's health answers within 1 s throughout, and its memory grows by little more than the file's bytes.
    content, message = HOSTILE_RESTORES[name]
    data = content()
    base, pid = server
    with hostile_session(server, browser, tmp_path, name, data) as (hostile, page):
        restore = page.get_by_test_id("stExpander").filter(has_text="Restore a saved review")
        restore.locator("summary").click()
        file_input = restore.locator("input[type=file]")
        expect(file_input).to_be_attached(timeout=scaled_ms(WAIT))
        before, cpu = rss(pid), cpu_seconds(pid)
        with polled_health(base) as latencies, PeakRSS(pid) as peak:
            file_input.set_input_files(hostile)
            expect(page.get_by_test_id("stAlertContentError").filter(has_text=message)).to_be_visible(
                timeout=scaled_ms(WAIT))
        grown, spent = (peak.peak - before) / MB, cpu_seconds(pid) - cpu
        print(f"\nhealth during the hostile restore {name}: {len(latencies)} answers, slowest {max(latencies):.3f} s; "
              f"server CPU {spent:.2f} s; peak memory {grown:+.0f} MiB for a file of {len(data) / MB:.1f} MiB")
        assert len(latencies) >= 2, latencies   # the server answered while it read the file
        assert spent < STALL_CPU, f"the server spent {spent:.1f} CPU-s refusing {name}"   # the stall: 69 CPU-s
        assert grown < 4 * len(data) / MB + 50, grown   # the upload held by Streamlit, not a structure per item


def zero_bomb(size: int) -> bytes:
    """Gzip data of `size` NUL bytes, compressed 1 MiB at a time (the test never holds the decompressed bytes)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(MB)
    return b"".join([compressor.compress(block) for _ in range(size // MB)] + [compressor.flush()])


# Uploads that once held the GIL or the memory for seconds to minutes, each with the start of the message
# refusing it.
HOSTILE_UPLOADS = {
    # M6: one data row of 16,385 quoted fields under a two-name header became a 16,383-level index (38 s).
    "shifted.csv": (lambda: b"a,b\n" + b',"' * 32768 + b"\n", "has more fields in its first data row"),
    # L4: a gzip bomb (here 256 KB of gzip, 256 MiB of NUL bytes) was decompressed up to 1 GiB before its refusal.
    "bomb.csv.gz": (lambda: zero_bomb(256 * MB), "once decompressed it runs for more than"),
}


@pytest.mark.parametrize("name", list(HOSTILE_UPLOADS))
def test_a_hostile_upload_never_stalls_the_server(server, browser, tmp_path, name):
    content, message = HOSTILE_UPLOADS[name]
    base, pid = server
    with hostile_session(server, browser, tmp_path, name, content()) as (hostile, page):
        cpu = cpu_seconds(pid)
        with polled_health(base) as latencies:
            start_upload(page, hostile)
            expect(page.get_by_test_id("stAlertContentError").filter(has_text=message).first).to_be_visible(
                timeout=scaled_ms(WAIT))
        spent = cpu_seconds(pid) - cpu
        print(f"\nhealth during the upload of {name}: {len(latencies)} answers, slowest {max(latencies):.3f} s; "
              f"server CPU {spent:.2f} s")
        assert len(latencies) >= 2, latencies   # the server answered while it read the file
        assert spent < STALL_CPU, f"the server spent {spent:.1f} CPU-s refusing {name}"   # the stall: 38 CPU-s


def visits(i: int, n_rounds: int = 2) -> list[str]:
    """The pages context `i` visits after Data: two of the others, all of them among the five contexts while they
    are at most ten (round r: page (i + 5r) modulo their number), each context on a different page in every round."""
    others = navigation.TITLES[1:]
    return [others[(i + 5 * r) % len(others)] for r in range(n_rounds)]


def released_rss(pid: int, ceiling: int) -> int:
    """The server's RSS once it is at most `ceiling`, or after 4 TTLs (the sweep releases ended sessions)."""
    deadline = time.monotonic() + 4 * TTL   # a measure, not a wait on an event: the same span on any machine
    while rss(pid) > ceiling and time.monotonic() < deadline:
        time.sleep(0.2)
    return rss(pid)


def load_files(folder: Path) -> list[Path]:
    """The five sessions' 10^5-row files (``load_<i>.csv``, each with its own column and subgroup names), written to
    `folder` once for both rounds of the test."""
    return [scored_csv(folder / f"load_{i}.csv", N_ROWS, f"s{i}",
                       ([f"Group{i}A", f"Group{i}B", f"Group{i}C"], [f"Kind{i}X", f"Kind{i}Y"]), seed=i)
            for i in range(N_CONTEXTS)]


def five_sessions(base: str, pid: int, browser, files: list[Path], screenshot_dir, *, steady: bool) -> tuple[int, int]:
    """Five sessions at once upload `files` (10^5 rows each, :func:`load_files`) and visit their pages, then close;
    (RSS before, RSS once the sweep released them), with the peak asserted, and the release too once the server is
    `steady` (a first round's release varies with what the allocators keep the first time: 20-70 % of what it took
    was returned)."""
    baseline = rss(pid)

    sessions = [new_page(browser) for _ in range(N_CONTEXTS)]
    started = time.monotonic()
    with PeakRSS(pid) as peak:
        for _, page, _ in sessions:
            open_app(page, base)
        for (_, page, _), path in zip(sessions, files):  # five uploads at once
            start_upload(page, path)
        for i, (_, page, _) in enumerate(sessions):
            loaded(page, f"load_{i}.csv", N_ROWS, [f"race_s{i}", f"sex_s{i}"])
            rendered(page, "Data")
        for r in range(len(visits(0))):  # five page switches at once, each context to its own page
            for i, (_, page, _) in enumerate(sessions):
                click_page(page, visits(i)[r])
            for i, (_, page, _) in enumerate(sessions):
                rendered(page, visits(i)[r])
        elapsed = time.monotonic() - started
        settled = rss(pid)
    screenshot(sessions[0][1], screenshot_dir / f"load_five_sessions_{navigation.slug(visits(0)[-1])}.png")
    for context, _, log in sessions:
        log.assert_clean()
    closed = len(LOG.read_text(errors="replace"))  # the five are still open: a release logged from here is later
    for context, _, _ in sessions:
        context.close()
    print(f"\nfive sessions, 10^5 rows each, {1 + len(visits(0))} pages each, in {elapsed:.0f} s; server RSS "
          f"{baseline / MB:.0f} MiB before, peak {peak.peak / MB:.0f} MiB, {settled / MB:.0f} MiB after the last page")
    assert peak.peak < RSS_BOUND, f"peak RSS {peak.peak / MB:.0f} MiB over the bound of {RSS_BOUND / MB:.0f} MiB"

    # Ended sessions are released: once their browsers are gone for the TTL, the sweep releases each (its log
    # line), and memory goes back to the system (measured: about half of what the five took; the rest stays with
    # the allocators and Streamlit's own caches; without the release, a fifth).
    deadline = time.monotonic() + 4 * TTL * load_factor()   # the sweep runs every TTL/2, later on a busy machine
    while not all_released_after(closed) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert all_released_after(closed), _tail(LOG)
    released = released_rss(pid, settled - (settled - baseline) // 4)
    print(f"{released / MB:.0f} MiB once the five browsers had been closed for the TTL ({TTL} s) and a sweep")
    assert not steady or released <= settled - (settled - baseline) // 4, (
        f"RSS {released / MB:.0f} MiB: less than a quarter of the {(settled - baseline) / MB:.0f} MiB the five "
        f"sessions took was returned after they ended")
    return baseline, released


def test_five_sessions_on_large_files_render_every_page_within_the_memory_bound(warm_server, browser, tmp_path,
                                                                              screenshot_dir):
    """Twice: the second round's sessions are released as the first's were, so nothing grows with the sessions a
    server has served (once 1.97 GB more than at start after eight sessions, most of it from one restore
    file's validation errors, N1). Measured here: 273-289 MiB at start, 324-383 MiB once the first round was
    released (431-473 MiB in full runs beside the other worker: what stays is the allocators' and the libraries'
    own), 336-365 MiB after the second (495 MiB in CI, 64 MiB more than after the first, which had kept 119 MiB).
    What the allocators keep shrinks from round to round as their arenas are reused; a leak keeps as much each
    round. So the second round may keep at most half what the first kept, plus a fifth of the start-up size for
    the measurement's noise: a leak of more than about 26 MiB a session fails (L5's was about 250 MiB)."""
    base, pid = warm_server
    assert {t for i in range(N_CONTEXTS) for t in visits(i)} == set(navigation.TITLES[1:])
    files = load_files(tmp_path)   # the same files in both rounds (written before the first RSS is read)
    start, first = five_sessions(base, pid, browser, files, screenshot_dir, steady=False)
    _, second = five_sessions(base, pid, browser, files, screenshot_dir, steady=True)
    print(f"rounds of five sessions: {start / MB:.0f} MiB at start, {first / MB:.0f} MiB after the first, "
          f"{second / MB:.0f} MiB after the second")
    assert second - first <= (first - start) // 2 + start // 5, (
        f"the second round's sessions kept {(second - first) / MB:.0f} MiB, the first's {(first - start) / MB:.0f} MiB:"
        f" memory grows with the sessions served")


def test_a_refused_large_upload_is_given_back_when_its_session_ends(warm_server, browser, tmp_path):
    # After a refused 1 GB upload the server kept about 1 GB more than before for minutes after the
    # session ended. At a smaller scale: a 60 MB CSV of 21 million cells, over fairness_dashboard.data.loading.MAX_CELLS, refused once its
    # first 20 million are parsed. Once the browser has been closed for the TTL, the sweep releases the session, its
    # uploaded bytes and what the refusal allocated, and gives the memory back to the system.
    base, pid = warm_server
    refused = tmp_path / "refused.csv"
    refused.write_bytes(b"label,score,group\n" + b"1,0.5,A\n0,0.25,B\n" * 3_500_000)
    baseline = rss(pid)
    context, page, log = new_page(browser)
    open_app(page, base)
    with PeakRSS(pid) as peak:
        start_upload(page, refused)
        expect(page.get_by_test_id("stAlertContentError").filter(has_text="too large to analyse").first).to_be_visible(
            timeout=scaled_ms(WAIT))
    expect(page.locator(EXCEPTION)).to_have_count(0)
    log.assert_clean()
    closed = len(LOG.read_text(errors="replace"))
    context.close()
    deadline = time.monotonic() + 4 * TTL * load_factor()   # the sweep runs every TTL/2, later on a busy machine
    while not all_released_after(closed) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert all_released_after(closed), _tail(LOG)
    # Measured here: 287 MiB before, a peak of 858 MiB, 398 MiB once released (four fifths given back; what stays is
    # the allocators' and pyarrow's pools and the modules the refusal imported). Bound: two thirds given back.
    kept = baseline + (peak.peak - baseline) // 3
    released = released_rss(pid, kept)
    print(f"\nrefused 60 MB upload: server RSS {baseline / MB:.0f} MiB before, peak {peak.peak / MB:.0f} MiB, "
          f"{released / MB:.0f} MiB once the session was released")
    assert peak.peak - baseline > 100 * MB   # the upload and the refusal did take memory
    assert released <= kept, (f"RSS {released / MB:.0f} MiB: more than a third of the "
                              f"{(peak.peak - baseline) / MB:.0f} MiB the refused upload took is still held")
