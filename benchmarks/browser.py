# More than 500 lines: one concept (the browser benchmark: its steps, the detection of idleness and the report).
"""Benchmark: the felt latency of the app in a real browser. One module for one benchmark:
its steps, the detection of idleness and the report are read together.

    .venv/bin/python benchmarks/browser.py [--rows 1000000] [--repeats 3] [--out benchmarks/results-browser.json]
    .venv/bin/python benchmarks/browser.py --rows 2000 --quick      # a smoke run (tests/browser/...smoke.py)

The app is served by ``streamlit run app.py`` (``tests/browser/conftest.py::serve_app``) and driven by
Playwright in Debian's Chromium (``/usr/bin/chromium``; never a downloaded browser), at the app's defaults
(intervals on). Every figure is a *time to idle*: from the user action (the key press, click or file choice
that commits it) until the app is idle again. What comes before the action is untimed and waited quiet (a drop-down
opened and filtered by the typed option, which draws its options), and the click is then dispatched at once, without
Playwright's actionability waits. The app is idle when all of these hold:

- the server has finished the script run(s) the action caused: the last ``script_finished`` message on the
  app's websocket (read by Playwright, decoded with Streamlit's own ``ForwardMsg`` protobuf) is not a
  ``FINISHED_EARLY_FOR_RERUN`` and no run started after it;
- Streamlit's running indicator ``[data-testid=stStatusWidget]`` is gone and no element is stale
  (``data-stale="true"``);
- every visible Plotly chart has drawn its SVG, and the page's DOM has not changed for ``QUIET_MS``.

The end of the interval is the last of: the last DOM mutation a user can see, the last moment the page was busy,
the last ``script_finished``; the quiet window that proves idleness is not counted. A mutation inside a
``<canvas>`` is one a user cannot see: it is the canvas's fallback content, which the browser never draws; so is a
change of an ARIA attribute (``aria-*``), which only assistive technology reads, and a change inside a live
region (``aria-live``) clipped to a pixel, the screen-reader-only text of announcements (react-aria's announcer
removes a drop-down's "4 options available." 7 s after it was opened, in the middle of a later step). The data grids of ``st.dataframe``
(glide-data-grid) paint their cells on the canvas at once and keep an accessibility copy of them as a table inside
it, which they rebuild 200 ms after the last change (a debounced memo); that rebuild is recorded beside each run
(``hidden_seconds``, the time to the last unseen mutation) and must be quiet too before the app counts as idle, but
it does not end the interval. Each interval is split into the server's part (until the last ``script_finished``)
and the front end's (the rest: rendering the last deltas, Plotly drawing), and the Streamlit server process's CPU
seconds over the interval are read from ``/proc`` (a server part much longer than its CPU seconds is a server
waiting for a core: a loaded machine, or the browser drawing beside it), and so are those of Chromium's processes.
Beside every run: the 1-minute load average (``os.getloadavg``) when it was taken.

Steps (medians of ``--repeats`` runs; each repeat uploads a freshly generated CSV, so first visits are first):

1. upload and parse a CSV of ``--rows`` rows (``tests/app/helpers.py::scored_table``, about 46 bytes a row) on
   the Data page, until the summary line with its row count is shown; then the mapping of the protected
   attributes race and sex (the first guess also takes age, which is removed);
2. the first visit of each metric page in navigation order (Overview, Subgroup AUCs, Rate disparities,
   Calibration, Class-wise bias, Dataset metrics), then a revisit of each;
3. Rate disparities: a Decision threshold, Reference, Distance and Reduction change; the threshold
   explorer's slider (its tab is opened first where the page puts the explorer in a tab);
4. Calibration: a Number of bins change; Subgroup AUCs: a Power mean p change;
5. "Data on this machine": the same rows as a Parquet file read by DuckDB where it lies (a server allowed
   to read the temporary folder through ``FAIRNESS_LOCAL_DATA``), a protected-attribute change in the
   mapping, applied with Apply mapping (the edit itself only waits; the Apply is timed: the count).

With ``--over-time`` it times the Over time page instead, in a session of its own: per repeat a new CSV of ``--rows``
rows (``scored_table`` with a ``decision_date`` column of ISO dates over 24 months) is uploaded and mapped (race,
sex, the time column; untimed), then timed: the page's first visit (24 months, the first score), a model change
(the second score), a period change (month to quarter), a rate change of the subgroups' chart (charts only, the
result memoized) and a revisit; month and the first score are then chosen again, untimed. Its steps are merged into ``--out``: the steps of an earlier run of the other
pages are kept, an earlier Over time run's steps are replaced, and the run's own rows, repeats and environment are
under ``over_time_run``.

With ``--counted GLOB`` it times data counted where it lies instead (e.g. ``benchmarks/engines.py``'s 10⁸-row
logs): the glob on "Data on this machine" (its folder is the server's ``FAIRNESS_LOCAL_DATA``), mapped to
label ``y``, score ``score``, race and sex and the first ``--identities`` identity columns, applied once (the
count and the atoms of the intervals, timed), then on Rate disparities, with intervals on, a threshold between
the counted edges (a scan, timed) and the page's **Use …** button (a threshold on a counted edge, answered from
the counted atoms: timed, target 1 s), ``--repeats`` times.

Control changes use a new value on each repeat (the app caches results per value, so a repeated value
would time a cache hit); Distance has two values, so its repeats alternate. ``--quick`` runs one repeat and
leaves out the revisits. Nothing is asserted: the targets are printed beside the medians.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import math
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from tests.app.helpers import csv_bytes, scored_table  # noqa: E402
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, SCRIPT_RUNS, serve_app  # noqa: E402
from tests.browser.test_app_browser import (  # noqa: E402
    chips, choose, choose_exactly, combobox, go_to, multiselect, open_app, settle,
)
from fairness_dashboard import local_paths  # noqa: E402

QUIET_MS = 400           # the DOM must stay unchanged this long before the app counts as idle
IDLE_TIMEOUT_S = 300.0   # a step that never goes idle fails the run
PREPARED_MS = 200        # the DOM must stay unchanged this long after an untimed preparation before the clock starts
POLL_MS = 50             # how often the page is asked whether it is idle (websocket frames are stamped on arrival)
METRIC_PAGES = ("Overview", "Subgroup AUCs", "Rate disparities", "Calibration", "Class-wise bias", "Dataset metrics")
# The targets for what a user feels (seconds): (kind, target).
TARGETS = {"control": 0.5, "first visit": 1.5, "upload": 3.0, "local mapping": 3.0,
           # On counted data with intervals, a threshold on a counted edge within 1 s; the count and a scan
           # (between edges) have no target of their own (inf: reported, never "not met")
           "counted edge": 1.0, "count": math.inf, "scan": math.inf}
THRESHOLDS = ("0.55", "0.45", "0.6", "0.4", "0.65")
REFERENCES = ("whole population", "every other subgroup (pairwise)", "a chosen subgroup", "rest of the population")
DISTANCES = ("ratio (larger / smaller)", "difference |a - b|")
REDUCTIONS = ("mean", "max")
POWER_PS = ("-3", "-4", "-2", "-6", "-1")
EXPLORER_TAB = "Threshold explorer"
OVER_TIME = "Over time"
TIME_COLUMN = "decision_date"
TIME_DAYS = 730                     # 2023-01-01 to 2024-12-30: 24 months
OVER_TIME_MODELS = ("score_a (score)", "score_b (score)")
OVER_TIME_PERIODS = ("Month", "Quarter")
OVER_TIME_RATES = ("True positive rate", "False positive rate", "False negative rate", "Error rate",
                   "Selection rate")
OVER_TIME_STEPS = ("first visit: Over time", "Over time: ")   # prefixes of its steps' names, replaced on a merge
LOCAL_FILE = "logs/scored.parquet"

# In the page: the last DOM mutation and the last moment Streamlit looked busy (performance.now(), ms).
MONITOR = """() => {
  if (window.__idle) return;
  const busy = () => !!document.querySelector('[data-testid="stStatusWidget"]')
                     || !!document.querySelector('[data-stale="true"]');
  const idle = window.__idle = {mutation: performance.now(), hidden: 0, busy: 0, busyNow: busy, what: ''};
  const where = node => {
    const el = node.nodeType === 1 ? node : node.parentElement;
    const owner = el && el.closest('[data-testid]');
    return owner ? owner.getAttribute('data-testid') : (el ? el.tagName.toLowerCase() : '?');
  };
  // A canvas's children are its fallback content, never drawn (glide-data-grid's accessibility table); the
  // canvas's own attributes (its size) are seen. ARIA attributes are read by assistive technology, never drawn.
  // So is the text of a live region the page clips to a pixel (the screen-reader-only pattern: react-aria's
  // announcer, whose "4 options available." of a drop-down opened seconds earlier is removed 7 s later).
  const clipped = el => {
    for (let a = el; a && a !== document.body; a = a.parentElement) {
      const box = a.getBoundingClientRect();
      if (box.width <= 1 && box.height <= 1) return true;
    }
    return false;
  };
  const hidden = record => {
    if (record.type === 'attributes' && record.attributeName.startsWith('aria-')) return true;
    const el = record.target.nodeType === 1 ? record.target : record.target.parentElement;
    const inside = record.type === 'attributes' ? el && el.parentElement : el;
    if (!inside) return false;
    const live = inside.closest('[aria-live]');
    return !!inside.closest('canvas') || !!(live && clipped(live));
  };
  // From the last record back to the last one seen: one test per batch as a rule (a chart's redraw brings
  // thousands of records at once, and the monitor must not add to the page's work what it measures).
  new MutationObserver(records => {
    const now = performance.now();
    for (let i = records.length - 1; i >= 0; i--) {
      const r = records[i];
      if (hidden(r)) { idle.hidden = now; continue; }
      idle.mutation = now;
      idle.what = `${where(r.target)} (${r.type}${r.attributeName ? ' ' + r.attributeName : ''})`;
      break;
    }
    if (busy()) idle.busy = now;
  }).observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
  setInterval(() => { if (busy()) idle.busy = performance.now(); }, 10);
}"""
STATE = """() => {
  const idle = window.__idle;
  const plots = [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')]
    .filter(p => p.getClientRects().length);
  return {now: performance.now(), mutation: idle.mutation, hidden: idle.hidden, busy: idle.busy, busyNow: idle.busyNow(), what: idle.what,
          undrawn: plots.filter(p => !p.querySelector('.main-svg')).length, plots: plots.length};
}"""


# The websocket ----------------------------------------------------------------------------------

@dataclass
class ScriptRuns:
    """Script starts and ends seen on the app's websocket, stamped with ``time.monotonic()`` on arrival."""

    events: list[tuple[float, str]] = field(default_factory=list)

    def attach(self, page) -> None:
        """Listen to every websocket `page` opens (Streamlit's one ``/_stcore/stream``)."""
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload) -> None:
        if isinstance(payload, str):
            return
        message = ForwardMsg()
        try:
            message.ParseFromString(payload)
        except Exception:  # noqa: BLE001  (a frame that is no ForwardMsg is not ours to time)
            return
        kind = message.WhichOneof("type")
        if kind == "new_session":
            self.events.append((time.monotonic(), "start"))
        elif kind == "script_finished":
            self.events.append((time.monotonic(), ForwardMsg.ScriptFinishedStatus.Name(message.script_finished)))

    def since(self, t0: float) -> list[tuple[float, str]]:
        """The events after `t0`."""
        return [e for e in self.events if e[0] >= t0]


# Measuring --------------------------------------------------------------------------------------

@dataclass
class Run:
    """One timed action: seconds to idle, its server part, the load average when it was taken."""

    seconds: float
    server_seconds: float
    script_runs: int
    load_average: float
    last_change: str
    server_cpu_seconds: float | None
    hidden_seconds: float | None = None   # to the last change of undrawn content (a canvas's fallback), if any
    browser_cpu_seconds: float | None = None   # Chromium's processes (every one named chrom*), over the run


class Meter:
    """Times user actions on one page to idle (see the module docstring) and collects them by step."""

    def __init__(self, page, runs: ScriptRuns, log: Callable[[str], None], server_pid: int | None = None):
        self.page, self.runs, self.log, self.server_pid = page, runs, log, server_pid
        self.steps: dict[str, dict] = {}

    def _clock_offset(self) -> float:
        """monotonic() - performance.now() / 1000, from the midpoint of a round trip."""
        before = time.monotonic()
        now_ms = self.page.evaluate("() => performance.now()")
        after = time.monotonic()
        return (before + after) / 2 - now_ms / 1000

    def _quiet(self, seconds: float) -> None:
        """Wait until the page's DOM has not changed for `seconds` and Streamlit is not busy (untimed)."""
        deadline = time.monotonic() + IDLE_TIMEOUT_S
        while time.monotonic() < deadline:
            self.page.wait_for_timeout(POLL_MS)
            state = self.page.evaluate(STATE)
            if not state["busyNow"] and (state["now"] - max(state["mutation"], state["busy"])) / 1000 >= seconds:
                return
        raise TimeoutError(f"the page did not settle within {IDLE_TIMEOUT_S:.0f} s after the untimed preparation")

    def time(self, step: str, kind: str, prepare: Callable[[], object] | None, act: Callable[[], None],
             done: Callable[[], bool] | None = None) -> Run:
        """Time `act` (the action that commits a change) to idle, after the untimed `prepare`.

        Parameters
        ----------
        step : str
            The step's name in the report; runs of the same name are gathered.
        kind : str
            Its target's key in :data:`TARGETS`.
        prepare : callable or None
            Untimed setup (open a drop-down, type a value); the page is waited quiet after it (``PREPARED_MS``
            without a DOM change: a drop-down filtered by the typed text has drawn its options).
        act : callable
            The action; the clock starts just before it.
        done : callable, optional
            A further condition of idleness, e.g. a text the change must show.

        Returns
        -------
        Run
        """
        page = self.page
        page.evaluate(MONITOR)
        if prepare is not None:
            prepare()
            self._quiet(PREPARED_MS / 1000)
        offset = self._clock_offset()
        cpu0, browser0 = process_cpu_seconds(self.server_pid), browser_cpu_seconds()
        t0 = time.monotonic()
        act()
        deadline = t0 + IDLE_TIMEOUT_S
        while True:
            page.wait_for_timeout(POLL_MS)
            events = self.runs.since(t0)
            state = page.evaluate(STATE)
            now = state["now"] / 1000 + offset
            server_end = events[-1][0] if events else None
            finished = bool(events) and events[-1][1] not in ("start", "FINISHED_EARLY_FOR_RERUN")
            last_change = max(state["mutation"] / 1000 + offset, state["busy"] / 1000 + offset, server_end or t0)
            quiet_since = max(last_change, state["hidden"] / 1000 + offset)
            if (finished and not state["busyNow"] and not state["undrawn"] and now - quiet_since >= QUIET_MS / 1000
                    and (done is None or done())):
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"{step}: the app was not idle within {IDLE_TIMEOUT_S:.0f} s "
                                   f"(script events since the action: {events}, page: {state})")
        end = max(last_change, t0)
        cpu1, browser1 = process_cpu_seconds(self.server_pid), browser_cpu_seconds()
        run = Run(seconds=end - t0, server_seconds=max(0.0, (server_end or t0) - t0),
                  script_runs=sum(1 for e in events if e[1] != "start"), load_average=os.getloadavg()[0],
                  last_change=state["what"] if state["mutation"] / 1000 + offset > t0 else "",
                  server_cpu_seconds=None if cpu0 is None or cpu1 is None else cpu1 - cpu0,
                  browser_cpu_seconds=browser1 - browser0,
                  hidden_seconds=(state["hidden"] / 1000 + offset - t0 if state["hidden"] / 1000 + offset > t0
                                  else None))
        record = self.steps.setdefault(step, {"step": step, "kind": kind, "runs": []})
        record["runs"].append(vars(run))
        cpu = "" if run.server_cpu_seconds is None else f", server CPU {run.server_cpu_seconds:.3f} s"
        cpu += f", browser CPU {run.browser_cpu_seconds:.3f} s"
        cpu += "" if run.hidden_seconds is None else f", last unseen change {run.hidden_seconds:.3f} s"
        self.log(f"{step}: {run.seconds:.3f} s (server {run.server_seconds:.3f} s{cpu}, {run.script_runs} script "
                 f"run(s), load {run.load_average:.2f}; last DOM change: {run.last_change})")
        return run


def process_cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU seconds of process `pid` so far (every thread), from /proc; None where unavailable."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")   # utime, stime (fields 14, 15)


def browser_cpu_seconds() -> float:
    """User + system CPU seconds so far of every process named ``chrom*`` (Chromium's browser, renderer, GPU and
    utility processes; the benchmark's is the only Chromium on the machine), from /proc; processes that end between
    two readings take their seconds with them, so a run's difference can only miss work, never add it."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name, rest = text[text.index("(") + 1:text.rindex(")")], text[text.rindex(")") + 1:].split()
        if name.startswith("chrom"):
            total += int(rest[11]) + int(rest[12])
    return total / os.sysconf("SC_CLK_TCK")


# The app's widgets ------------------------------------------------------------------------------

def open_selectbox(page, label: str, option: str):
    """Open the selectbox `label` and type `option`; return the option to click (the timed action)."""
    box = combobox(page, label)
    box.click()
    box.fill(option)
    return page.get_by_role("option", name=option, exact=True)


def number_box(page, label: str):
    """The input of the number box labelled `label`."""
    return page.get_by_test_id("stNumberInput").filter(has_text=label).locator("input")


def slider_input(page, label: str):
    """The range input of the slider labelled `label` (inside react-aria's thumb)."""
    return page.get_by_test_id("stSlider").filter(has_text=label).locator("input[type=range]")


def time_number(meter: Meter, step: str, label: str, value: str) -> Run:
    """Type `value` into the number box `label` (untimed) and time its Enter."""
    box = number_box(meter.page, label)
    return meter.time(step, "control", lambda: box.fill(value), lambda: box.press("Enter"))


def time_select(meter: Meter, step: str, label: str, option: str) -> Run:
    """Time choosing `option` in the selectbox `label` (the drop-down is opened untimed)."""
    page = meter.page
    holder = {}

    def prepare():
        holder["option"] = open_selectbox(page, label, option)

    # The option is drawn when the page has settled after prepare: the click is dispatched at once (force: no
    # actionability waits of Playwright's, which took up to 0.1 s of the interval, before the user's click).
    return meter.time(step, "control", prepare, lambda: holder["option"].click(force=True),
                      done=lambda: combobox(page, label).input_value() == option)


def time_slider_step(meter: Meter, step: str, label: str) -> Run:
    """Time one ArrowRight on the slider `label` (one step up)."""
    thumb = slider_input(meter.page, label)
    return meter.time(step, "control", lambda: thumb.focus(), lambda: meter.page.keyboard.press("ArrowRight"))


def add_or_remove_chip(page, label: str, value: str, add: bool):
    """Open the multiselect `label` for adding `value` (or find its chip's remove button); returns the click."""
    if add:
        box = combobox(page, label)
        box.click()
        box.fill(value)
        option = page.get_by_role("option", name=value, exact=True)

        def act():
            option.click(force=True)   # drawn: the page has settled after the typing (see time_select)
            page.keyboard.press("Escape")
        return act
    return multiselect(page, label).get_by_role("button", name=f"Remove {value}", exact=True).click


def time_chip(meter: Meter, step: str, kind: str, label: str, value: str, add: bool) -> Run:
    """Time adding `value` to (or removing it from) the multiselect `label`."""
    page = meter.page
    holder = {}

    def prepare():
        holder["act"] = add_or_remove_chip(page, label, value, add)

    return meter.time(step, kind, prepare, lambda: holder["act"](), done=lambda: (value in chips(page, label)) == add)


# The steps --------------------------------------------------------------------------------------

def upload_and_map(meter: Meter, path: Path, n_rows: int, first: bool) -> None:
    """Step 1: upload `path` on the Data page (timed to its summary line), then map race and sex."""
    page = meter.page
    go_to(page, "Data")
    shown = page.get_by_text(re.compile(rf"^{re.escape(path.name)}: {n_rows:,} rows"))

    def prepare():
        if first:
            page.get_by_test_id("stRadio").filter(has_text="Source").get_by_text("Upload a file", exact=True).click()
        else:
            page.get_by_role("button", name="Replace file").click()
        settle(page)

    file_input = page.locator("input[type=file]")
    meter.time("Data: upload and parse the CSV", "upload", prepare, lambda: file_input.set_input_files(path),
               done=lambda: shown.is_visible())
    for value in [v for v in chips(page, "Protected attributes") if v not in ("race", "sex")]:
        time_chip(meter, "Data: map the protected attributes (race, sex)", "control", "Protected attributes", value,
                  add=False)
    for value in [v for v in ("race", "sex") if v not in chips(page, "Protected attributes")]:
        time_chip(meter, "Data: map the protected attributes (race, sex)", "control", "Protected attributes", value,
                  add=True)
    assert chips(page, "Protected attributes") == ["race", "sex"], chips(page, "Protected attributes")
    page.get_by_text("8 subgroups", exact=True).wait_for()


def visit(meter: Meter, title: str, step: str, kind: str) -> None:
    """Time a click on the navigation link of page `title` until the page is idle with its title shown."""
    page = meter.page
    heading = page.get_by_role("heading", name=title, level=1)
    link = page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True)
    meter.time(step, kind, None, link.click, done=heading.is_visible)


def rate_controls(meter: Meter, repeat: int) -> None:
    """Step 3: the Rate disparities controls, each to a value not used before in this session."""
    page = meter.page
    go_to(page, "Rate disparities")
    time_number(meter, "Rate disparities: threshold change", "Decision threshold", THRESHOLDS[repeat])
    time_select(meter, "Rate disparities: Reference change", "Reference", REFERENCES[repeat % len(REFERENCES)])
    time_select(meter, "Rate disparities: Distance change", "Distance", DISTANCES[repeat % len(DISTANCES)])
    time_select(meter, "Rate disparities: Reduction change", "Reduction", REDUCTIONS[repeat % len(REDUCTIONS)])
    tab = page.get_by_role("tab", name=EXPLORER_TAB)
    if tab.count():   # the explorer in a tab computed only when open
        if tab.get_attribute("aria-selected") != "true":
            meter.time("Rate disparities: open the Threshold explorer tab", "control", None, tab.click)
    slider = slider_input(page, "Move the threshold")
    slider.wait_for(state="attached")
    time_slider_step(meter, "Rate disparities: threshold explorer slider (one step)", "Move the threshold")


def other_controls(meter: Meter, repeat: int) -> None:
    """Step 4: Calibration's Number of bins, Subgroup AUCs' Power mean p."""
    page = meter.page
    go_to(page, "Calibration")
    time_slider_step(meter, "Calibration: n_bins change (one step)", "Number of bins")
    go_to(page, "Subgroup AUCs")
    time_number(meter, "Subgroup AUCs: power mean p change", "Power mean p", POWER_PS[repeat])


# Local data: the protected-attribute changes tried in turn (add?, value); each repeat makes the first that
# applies to the current mapping and leads to a mapping not seen before (the counts are cached per mapping).
LOCAL_CHANGES = ((False, "age"), (False, "sex"), (True, "age"), (False, "race"), (True, "sex"), (True, "race"))


def local_mapping(meter: Meter, repeats: int) -> None:
    """Step 5: "Data on this machine" (the Parquet file, counted by DuckDB), protected-attribute changes."""
    page = meter.page
    label = "Protected attributes"
    go_to(page, "Data")
    page.get_by_test_id("stRadio").filter(has_text="Source").get_by_text("Data on this machine", exact=True).click()
    settle(page)
    path = page.get_by_label("Parquet or CSV files: a path, a folder or a glob", exact=True)
    path.fill(LOCAL_FILE)
    path.press("Enter")
    page.get_by_text("every row counted by DuckDB where it lies", exact=False).wait_for(timeout=IDLE_TIMEOUT_S * 1000)
    settle(page)
    seen = {frozenset(chips(page, label))}
    for _ in range(repeats):
        current = set(chips(page, label))
        for add, value in LOCAL_CHANGES:
            after = current | {value} if add else current - {value}
            if (value in current) != add and after and frozenset(after) not in seen:
                break
        else:
            raise RuntimeError(f"no new protected-attribute mapping left after {sorted(current)}")
        seen.add(frozenset(after))
        # An edit of the mapping only waits (one count for any number of edits): what is timed is Apply mapping.
        (add_or_remove_chip(page, label, value, add))()
        pending = page.get_by_text("Mapping not applied yet", exact=False)
        pending.wait_for(timeout=IDLE_TIMEOUT_S * 1000)
        meter.time("Data on this machine: apply a protected attribute change", "local mapping", None,
                   page.get_by_role("button", name="Apply mapping", exact=True).click,
                   done=lambda: not pending.is_visible())


def counted_thresholds(meter: Meter, glob: str, identities: int, repeats: int) -> None:
    """``--counted``: map the logs at `glob` on "Data on this machine", apply (timed), then on Rate disparities a
    threshold between the counted edges (a scan) and a **Use …** button (an edge: no scan), `repeats` times."""
    page = meter.page
    go_to(page, "Data")
    page.get_by_test_id("stRadio").filter(has_text="Source").get_by_text("Data on this machine", exact=True).click()
    settle(page)
    path = page.get_by_label("Parquet or CSV files: a path, a folder or a glob", exact=True)
    counted = page.get_by_text("every row counted by DuckDB where it lies", exact=False)
    meter.time("Data on this machine: the first count (the guessed mapping)", "count", lambda: path.fill(glob),
               lambda: path.press("Enter"), done=counted.is_visible)
    wanted = [f"id_{j:02d}" for j in range(identities)]
    for label, values in (("Label column", None), ("Score column", ["score"]), ("Protected attributes", ["race", "sex"]),
                          ("Identity columns", wanted)):
        if values is not None:
            choose_exactly(page, label, values)
    apply = page.get_by_role("button", name="Apply mapping", exact=True)
    if apply.count():
        pending = page.get_by_text("Mapping not applied yet", exact=False)
        meter.time(f"Data on this machine: apply race, sex and {identities} identity columns (count and atoms)",
                   "count", None, apply.click, done=lambda: not pending.is_visible())
    go_to(page, "Rate disparities")
    box = number_box(page, "Decision threshold")
    for repeat in range(repeats):
        meter.time("Rate disparities: a threshold between counted edges (a scan)", "scan",
                   lambda: box.fill(THRESHOLDS[repeat]), lambda: box.press("Enter"))
        use = page.get_by_role("button", name=re.compile(r"^Use \d")).nth(repeat % 2)
        meter.time("Rate disparities: Use … (a threshold on a counted edge, from the counted atoms)", "counted edge",
                   None, use.click)


def main_select(meter: Meter, step: str, label: str, option: str) -> Run:
    """Time choosing `option` in the selectbox `label` of the page's main area (the sidebar may have one of the
    same label: its Model), as :func:`time_select`."""
    page = meter.page
    main = page.get_by_test_id("stMain")
    box = main.get_by_role("combobox", name=label, exact=True)
    holder = {}

    def prepare():
        box.click()
        box.fill(option)
        holder["option"] = page.get_by_role("option", name=option, exact=True)

    return meter.time(step, "control", prepare, lambda: holder["option"].click(force=True),
                      done=lambda: box.input_value() == option)


def timed_table(n_rows: int, seed: int):
    """``scored_table`` with ``decision_date``: ISO dates drawn evenly over :data:`TIME_DAYS` days (24 months)."""
    import numpy as np
    import pandas as pd

    frame = scored_table(n_rows, seed=seed)
    days = np.random.default_rng(seed + 1000).integers(0, TIME_DAYS, n_rows)
    dates = (pd.Timestamp("2023-01-01") + pd.to_timedelta(np.arange(TIME_DAYS), unit="D")).strftime("%Y-%m-%d")
    frame[TIME_COLUMN] = np.asarray(dates)[days]
    return frame


def upload_with_time(page, path: Path, n_rows: int, first: bool) -> None:
    """Upload `path` on the Data page and map race, sex and its time column (untimed: waited until settled)."""
    go_to(page, "Data")
    if first:
        page.get_by_test_id("stRadio").filter(has_text="Source").get_by_text("Upload a file", exact=True).click()
    else:
        page.get_by_role("button", name="Replace file").click()
    settle(page)
    page.locator("input[type=file]").set_input_files(path)
    page.get_by_text(re.compile(rf"^{re.escape(path.name)}: {n_rows:,} rows")).wait_for(
        timeout=IDLE_TIMEOUT_S * 1000)
    settle(page)
    choose_exactly(page, "Protected attributes", ["race", "sex"])
    page.get_by_text("8 subgroups", exact=True).wait_for()
    choose(page, "Time column", TIME_COLUMN)


def over_time_steps(meter: Meter, path: Path, n_rows: int, repeat: int) -> None:
    """``--over-time``: upload `path` (new rows: nothing of it is memoized), then time the Over time page's first
    visit from the Data page (24 months, the first score), a model change (the second score, 24 months), a period
    change (month to quarter), a rate change and a revisit from the Data page; then go back to month and the first
    score (untimed), so that the next repeat's first visit is that of 24 months again."""
    page = meter.page
    main = page.get_by_test_id("stMain")
    upload_with_time(page, path, n_rows, first=repeat == 0)
    visit(meter, OVER_TIME, "first visit: Over time (24 months)", "first visit")
    assert main.get_by_role("combobox", name="Period", exact=True).input_value() == OVER_TIME_PERIODS[0]
    assert main.get_by_role("combobox", name="Model", exact=True).input_value() == OVER_TIME_MODELS[0]
    main_select(meter, "Over time: model change (24 months)", "Model", OVER_TIME_MODELS[1])
    main_select(meter, "Over time: period change (month to quarter)", "Period", OVER_TIME_PERIODS[1])
    rate = main.get_by_role("combobox", name="Rate", exact=True).input_value()
    main_select(meter, "Over time: rate change (charts only)", "Rate",
                next(r for r in OVER_TIME_RATES[repeat % len(OVER_TIME_RATES):] + OVER_TIME_RATES if r != rate))
    go_to(page, "Data")
    visit(meter, OVER_TIME, "Over time: revisit", "control")
    for label, option in (("Model", OVER_TIME_MODELS[0]), ("Period", OVER_TIME_PERIODS[0])):   # untimed
        box = main.get_by_role("combobox", name=label, exact=True)
        box.click()
        box.fill(option)
        page.get_by_role("option", name=option, exact=True).click()
        settle(page, IDLE_TIMEOUT_S)


# Running ----------------------------------------------------------------------------------------

def make_files(folder: Path, n_rows: int, repeats: int, log) -> list[Path]:
    """A CSV per repeat (seeds 0, 1, ...: new content, so a new upload is parsed) and the Parquet file for
    "Data on this machine" (seed 0's rows) under `folder` / logs."""
    files = []
    for seed in range(repeats):
        frame = scored_table(n_rows, seed=seed)
        path = folder / f"scored-{seed}.csv"
        path.write_bytes(csv_bytes(frame))
        files.append(path)
        if seed == 0:
            (folder / "logs").mkdir()
            frame.to_parquet(folder / LOCAL_FILE, index=False)
        log(f"wrote {path.name} ({path.stat().st_size / 1e6:.1f} MB)")
    return files


@contextlib.contextmanager
def _session(root: Path, log, timeout_ms: int):
    """Serve the app allowed to read `root` (``FAIRNESS_LOCAL_DATA``), open it in Chromium at 1,400 x 1,000 and
    yield (page, meter, page errors); the browser, the server and the variable are restored afterwards."""
    from playwright.sync_api import sync_playwright

    previous = os.environ.get(local_paths.ENV)
    os.environ[local_paths.ENV] = str(root)
    try:
        with serve_app("streamlit-browser-benchmark.log") as (base, server), sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                context.add_init_script(SCRIPT_RUNS)   # what settle (the untimed preparation) waits on
                context.set_default_timeout(timeout_ms)
                page = context.new_page()
                errors: list[str] = []
                page.on("pageerror", lambda error: errors.append(str(error)))
                runs = ScriptRuns()
                runs.attach(page)
                meter = Meter(page, runs, log, server.pid)
                open_app(page, base)
                yield page, meter, errors
                context.close()
            finally:
                browser.close()
    finally:
        if previous is None:
            os.environ.pop(local_paths.ENV, None)
        else:
            os.environ[local_paths.ENV] = previous


def counted_benchmark(glob: str, identities: int, repeats: int, log) -> dict:
    """``--counted``: serve the app with the glob's folder as its local data root and run
    :func:`counted_thresholds`; returns the results as :func:`benchmark` does (``rows`` is the glob)."""
    global IDLE_TIMEOUT_S
    IDLE_TIMEOUT_S = 3600.0   # a count of 10^8 rows and their atoms takes minutes on two cores
    with _session(Path(glob).parent, log, int(IDLE_TIMEOUT_S * 1000)) as (page, meter, errors):
        counted_thresholds(meter, glob, identities, repeats)
        shots = ROOT / "test-artifacts"
        shots.mkdir(exist_ok=True)
        page.screenshot(path=str(shots / "browser-benchmark-counted.png"), full_page=False)
        exceptions = page.get_by_test_id("stException").all_inner_texts()
    return {"rows": glob, "csv_bytes": 0, "repeats": repeats, "quick": False, "steps": _steps(meter),
            "page_errors": errors, "exceptions": exceptions, "environment": environment()}


def _steps(meter: Meter) -> list[dict]:
    """Each step's runs with their median, the medians of the server's part and CPU, and its target."""
    steps = []
    for record in meter.steps.values():
        seconds = [r["seconds"] for r in record["runs"]]
        target = TARGETS[record["kind"]]
        median = statistics.median(seconds)
        steps.append({**record, "median_seconds": median,
                      "median_server_seconds": statistics.median(r["server_seconds"] for r in record["runs"]),
                      "median_server_cpu_seconds": (None if any(r["server_cpu_seconds"] is None for r in record["runs"])
                                                    else statistics.median(r["server_cpu_seconds"]
                                                                           for r in record["runs"])),
                      "median_browser_cpu_seconds": statistics.median(r["browser_cpu_seconds"] for r in record["runs"]),
                      "load_averages": [r["load_average"] for r in record["runs"]],
                      "target_seconds": target, "target_met": median <= target})
    return steps


def benchmark(n_rows: int, repeats: int, quick: bool, log) -> dict:
    """Serve the app, drive it in Chromium through every step, and return the results.

    Parameters
    ----------
    n_rows : int
        Rows of the generated CSV.
    repeats : int
        Runs of each step (medians are reported).
    quick : bool
        Leave out the revisits.
    log : callable
        Progress messages.

    Returns
    -------
    dict
        ``{"rows", "csv_bytes", "repeats", "quick", "steps": [...], "environment"}``; each step has its runs
        (seconds, server seconds, script runs, load average), median, target and whether it was met.
    """
    with tempfile.TemporaryDirectory(prefix="fairness-browser-bench-") as tmp:
        folder = Path(tmp)
        files = make_files(folder, n_rows, repeats, log)
        with _session(folder, log, 120_000) as (page, meter, errors):
            for repeat, path in enumerate(files):
                upload_and_map(meter, path, n_rows, first=repeat == 0)
                for title in METRIC_PAGES:
                    visit(meter, title, f"first visit: {title}", "first visit")
                if not quick:
                    for title in METRIC_PAGES:
                        visit(meter, title, f"revisit: {title}", "control")
            for repeat in range(repeats):
                rate_controls(meter, repeat)
                other_controls(meter, repeat)
            local_mapping(meter, repeats)
            exceptions = page.get_by_test_id("stException").all_inner_texts()
        csv_size = files[0].stat().st_size

    steps = _steps(meter)
    return {"rows": n_rows, "csv_bytes": csv_size, "repeats": repeats, "quick": quick, "steps": steps,
            "page_errors": errors, "exceptions": exceptions, "environment": environment()}


def over_time_benchmark(n_rows: int, repeats: int, log) -> dict:
    """``--over-time``: serve the app and run :func:`over_time_steps` `repeats` times, each on a new CSV; returns
    the results as :func:`benchmark` does."""
    with tempfile.TemporaryDirectory(prefix="fairness-browser-bench-") as tmp:
        files = []
        for seed in range(repeats):
            path = Path(tmp) / f"timed-{seed}.csv"
            path.write_bytes(csv_bytes(timed_table(n_rows, seed)))
            files.append(path)
            log(f"wrote {path.name} ({path.stat().st_size / 1e6:.1f} MB)")
        with _session(Path(tmp), log, 120_000) as (page, meter, errors):
            for repeat, path in enumerate(files):
                over_time_steps(meter, path, n_rows, repeat)
            exceptions = page.get_by_test_id("stException").all_inner_texts()
        csv_size = files[0].stat().st_size
    return {"rows": n_rows, "csv_bytes": csv_size, "repeats": repeats, "quick": repeats == 1, "steps": _steps(meter),
            "page_errors": errors, "exceptions": exceptions, "environment": environment()}


def merged(previous: dict | None, over: dict) -> dict:
    """`previous` results (of the other pages) with the Over time steps of `over` in place of its earlier ones, and
    `over`'s rows, repeats and environment under ``over_time_run``; `over` itself when there are none.

    Parameters
    ----------
    previous : dict or None
        The results in ``--out`` before this run (``None``: no file).
    over : dict
        What :func:`over_time_benchmark` returns.

    Returns
    -------
    dict
    """
    run = {k: over[k] for k in ("rows", "csv_bytes", "repeats", "page_errors", "exceptions", "environment")}
    if previous is None or not isinstance(previous.get("rows"), int):
        return {**over, "over_time_run": run}
    kept = [s for s in previous["steps"] if not s["step"].startswith(OVER_TIME_STEPS)]
    return {**previous, "steps": kept + over["steps"], "over_time_run": run}


def environment() -> dict:
    """Where and with what the benchmark ran."""
    versions = {}
    for name in ("streamlit", "playwright", "pandas", "numpy", "duckdb", "plotly"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
            "load_average_at_end": os.getloadavg(), "versions": versions}


def markdown(results: dict) -> str:
    """The results as a Markdown table: step | median s | runs | load average | target | met.

    Parameters
    ----------
    results : dict
        What :func:`benchmark` returns.

    Returns
    -------
    str
    """
    what = (f"{results['rows']:,} rows ({results['csv_bytes'] / 1e6:.1f} MB CSV)" if isinstance(results["rows"], int)
            else f"{results['rows']} counted where it lies")
    lines = [f"Time to idle in Chromium, {what}, "
             f"median of {results['repeats']} run(s); server = until the last script run finished; "
             "server CPU = the Streamlit process's CPU seconds (every thread) over the run; browser CPU = Chromium's "
             "(every process); load average = 1-minute, at each run.", "",
             "| step | median s | server s | server CPU s | browser CPU s | runs (s) | load average | target s | met |",
             "|---|---:|---:|---:|---:|---|---|---:|---|"]
    for step in results["steps"]:
        runs = ", ".join(f"{r['seconds']:.2f}" for r in step["runs"])
        loads = ", ".join(f"{v:.2f}" for v in step["load_averages"])
        cpu = "" if step["median_server_cpu_seconds"] is None else f"{step['median_server_cpu_seconds']:.2f}"
        lines.append(f"| {step['step']} | {step['median_seconds']:.2f} | {step['median_server_seconds']:.2f} | "
                     f"{cpu} | {step['median_browser_cpu_seconds']:.2f} | {runs} | {loads} | {step['target_seconds']:g} | "
                     f"{'yes' if step['target_met'] else 'no'} |")
    met = sum(s["target_met"] for s in results["steps"])
    if not isinstance(results["rows"], int):
        lines += ["", f"Target: a threshold on a counted edge with intervals on {TARGETS['counted edge']:g} s."]
        return "\n".join(lines)
    lines += ["", f"Targets: control change {TARGETS['control']:g} s, first page visit "
              f"{TARGETS['first visit']:g} s, upload and parse {TARGETS['upload']:g} s, mapping on data on this "
              f"machine {TARGETS['local mapping']:g} s; met by {met} of {len(results['steps'])} steps."]
    if results["page_errors"] or results["exceptions"]:
        lines.append(f"Page errors: {results['page_errors']}; exceptions shown: {results['exceptions']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark from the command line, print the table and write the JSON.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    dict
        The results written to ``--out``.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=str(HERE / "results-browser.json"))
    parser.add_argument("--quick", action="store_true", help="one repeat, no revisits")
    parser.add_argument("--counted", metavar="GLOB",
                        help="time data counted where it lies instead: a glob of Parquet files (see the docstring)")
    parser.add_argument("--identities", type=int, default=0, help="identity columns id_00... mapped with --counted")
    parser.add_argument("--over-time", action="store_true",
                        help="time the Over time page instead, merged into --out (see the docstring)")
    args = parser.parse_args(argv)
    repeats = 1 if args.quick else args.repeats
    if not 1 <= repeats <= len(THRESHOLDS):
        parser.error(f"--repeats must be between 1 and {len(THRESHOLDS)} (a new control value each repeat)")
    if not CHROMIUM.exists():
        parser.error(f"Chromium not found at {CHROMIUM} (sudo apt-get install chromium)")
    started = time.perf_counter()

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - started:6.1f} s] {message}", file=sys.stderr, flush=True)

    try:
        if args.counted:
            results = counted_benchmark(str(Path(args.counted).resolve()), args.identities, repeats, log)
        elif args.over_time:
            out = Path(args.out)
            over = over_time_benchmark(args.rows, repeats, log)
            results = merged(json.loads(out.read_text()) if out.exists() else None, over)
        else:
            results = benchmark(args.rows, repeats, args.quick, log)
    finally:
        # tests/app/helpers.py imports streamlit.testing, whose module-level TemporaryDirectory would otherwise be
        # cleaned up implicitly at exit, with a ResourceWarning (an error under -W error).
        app_test = sys.modules.get("streamlit.testing.v1.app_test")
        if app_test is not None:
            app_test.TMP_DIR.cleanup()
    bad = [s["step"] for s in results["steps"] if not all(math.isfinite(r["seconds"]) for r in s["runs"])]
    Path(args.out).write_text(json.dumps(results, indent=1) + "\n")
    print(markdown(results))
    own = results.get("over_time_run", results) if args.over_time else results
    if bad or own["page_errors"] or own["exceptions"]:
        print(f"Failed: {bad or ''} {own['page_errors']} {own['exceptions']}", file=sys.stderr)
        sys.exit(1)
    return results


if __name__ == "__main__":
    main()
