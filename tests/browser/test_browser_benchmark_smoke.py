"""The browser benchmark (benchmarks/browser.py) at 2,000 rows, one repeat, so that it cannot rot.

It runs in a child process with warnings as errors, as the suite does, serving its own app (with
FAIRNESS_LOCAL_DATA set to its temporary folder) and driving its own Chromium. Asserted: every step was
recorded with a positive, finite time to idle, a load average, and the row count. Never a time's size.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from tests.browser.conftest import CHROMIUM
from tests.support import ROOT, fail_or_skip

pytestmark = pytest.mark.browser
OWN_SERVER = True   # its own server and browser, no timing bound: may run beside the other browser tests

STEPS = {
    "Data: upload and parse the CSV": "upload",
    "Data: map the protected attributes (race, sex)": "control",
    **{f"first visit: {title}": "first visit" for title in ("Overview", "Subgroup AUCs", "Rate disparities",
                                                           "Calibration", "Class-wise bias", "Dataset metrics")},
    "Rate disparities: threshold change": "control",
    "Rate disparities: Reference change": "control",
    "Rate disparities: Distance change": "control",
    "Rate disparities: Reduction change": "control",
    "Rate disparities: threshold explorer slider (one step)": "control",
    "Calibration: n_bins change (one step)": "control",
    "Subgroup AUCs: power mean p change": "control",
    "Data on this machine: apply a protected attribute change": "local mapping",
}
# Present only where Rate disparities puts the threshold explorer in a tab.
OPTIONAL = {"Rate disparities: open the Threshold explorer tab"}


def test_browser_benchmark_records_every_step(tmp_path):
    if not CHROMIUM.exists():
        fail_or_skip(f"Chromium not found at {CHROMIUM}. Install it with: sudo apt-get install chromium")
    out = tmp_path / "results-browser.json"
    done = subprocess.run([sys.executable, "-W", "error", str(ROOT / "benchmarks" / "browser.py"), "--rows", "2000",
                           "--quick", "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(out.read_text())

    assert results["rows"] == 2000 and results["repeats"] == 1 and results["quick"] is True
    assert results["csv_bytes"] > 0
    assert not results["page_errors"] and not results["exceptions"], (results["page_errors"], results["exceptions"])
    steps = {s["step"]: s for s in results["steps"]}
    assert set(STEPS) <= set(steps) <= set(STEPS) | OPTIONAL, sorted(steps)
    for name, step in steps.items():
        assert step["kind"] == STEPS.get(name, "control"), (name, step["kind"])
        # one run each; the mapping has a run per chip it changes (the first guess also takes age)
        assert len(step["runs"]) == 1 or name == "Data: map the protected attributes (race, sex)", step
        for run in step["runs"]:
            assert math.isfinite(run["seconds"]) and run["seconds"] > 0, (name, run)
            assert 0 <= run["server_seconds"] and run["script_runs"] >= 1, (name, run)
            assert math.isfinite(run["load_average"]) and run["load_average"] >= 0, (name, run)
            assert run["hidden_seconds"] is None or run["hidden_seconds"] > 0, (name, run)
        assert step["median_seconds"] > 0 and step["target_seconds"] > 0 and isinstance(step["target_met"], bool)
    assert "| step | median s |" in done.stdout and "| Data: upload and parse the CSV |" in done.stdout


COUNTED_STEPS = {
    "Data on this machine: the first count (the guessed mapping)": "count",
    "Data on this machine: apply race, sex and 2 identity columns (count and atoms)": "count",
    "Rate disparities: a threshold between counted edges (a scan)": "scan",
    "Rate disparities: Use … (a threshold on a counted edge, from the counted atoms)": "counted edge",
}


def test_browser_benchmark_of_counted_data_records_every_step(tmp_path):
    """``browser.py --counted``: benchmarks/engines.py's layout (race, sex, 20 boolean identity columns) in two
    Parquet files of 10,000 rows, mapped with 2 identity columns; every step recorded, the edge's target 1 s."""
    if not CHROMIUM.exists():
        fail_or_skip(f"Chromium not found at {CHROMIUM}. Install it with: sudo apt-get install chromium")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import engines
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    glob = engines.make_files(tmp_path / "logs", 20_000, 2)
    out = tmp_path / "results-browser-counted.json"
    done = subprocess.run([sys.executable, "-W", "error", str(ROOT / "benchmarks" / "browser.py"), "--counted", glob,
                           "--identities", "2", "--repeats", "1", "--out", str(out)], cwd=ROOT, capture_output=True,
                          text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(out.read_text())
    assert results["rows"] == glob and not results["page_errors"] and not results["exceptions"]
    steps = {s["step"]: s for s in results["steps"]}
    assert set(steps) == set(COUNTED_STEPS), sorted(steps)
    for name, step in steps.items():
        assert step["kind"] == COUNTED_STEPS[name] and len(step["runs"]) == 1, (name, step)
        run = step["runs"][0]
        assert math.isfinite(run["seconds"]) and run["seconds"] > 0 and run["script_runs"] >= 1, (name, run)
    assert steps["Rate disparities: Use … (a threshold on a counted edge, from the counted atoms)"]["target_seconds"] == 1
    assert "counted where it lies" in done.stdout and "a threshold on a counted edge with intervals on 1 s" in done.stdout


def _benchmark_module():
    """benchmarks/browser.py as a module (it is a script, not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("browser_benchmark", ROOT / "benchmarks" / "browser.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_idle_monitor_ends_on_what_a_user_can_see(browser):
    """The benchmark's in-page monitor: a change of a canvas's fallback content (glide-data-grid's accessibility
    table), of an ARIA attribute or inside a live region clipped to a pixel (an announcement for screen readers) is
    recorded as unseen and does not move the last visible change; the canvas's own size, a visible live region and
    any other element's content do."""
    bench = _benchmark_module()
    page = browser.new_page()
    try:
        page.set_content('<div data-testid="stMain"><div id="text">a</div>'
                         '<canvas id="grid" width="10"><table><tr><td id="cell">1</td></tr></table></canvas>'
                         '<div id="status" aria-live="polite">shown</div></div>'
                         '<div style="position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)">'
                         '<div id="announce" aria-live="polite"><div>4 options available.</div></div></div>')
        page.evaluate(bench.MONITOR)

        def state():
            # the observer's records are delivered after the script that made them: wait for the next task
            page.evaluate("() => new Promise(done => setTimeout(done, 0))")
            return page.evaluate("() => ({...window.__idle, busyNow: undefined})")

        start = state()
        page.evaluate("() => { document.getElementById('cell').textContent = '2'; }")
        page.evaluate("() => { document.getElementById('text').setAttribute('aria-label', 'x'); }")
        page.evaluate("() => { document.getElementById('announce').firstElementChild.remove(); }")
        unseen = state()
        assert unseen["mutation"] == start["mutation"] and unseen["hidden"] > start["mutation"], unseen
        page.evaluate("() => { document.getElementById('grid').setAttribute('width', '20'); }")
        resized = state()
        assert resized["mutation"] > unseen["hidden"] and resized["what"] == "stMain (attributes width)", resized
        page.evaluate("() => { document.getElementById('text').textContent = 'b'; }")
        changed = state()
        assert changed["mutation"] > resized["mutation"] and changed["what"] == "stMain (childList)", changed
        page.evaluate("() => { document.getElementById('status').textContent = 'done'; }")   # a visible live region
        assert state()["mutation"] > changed["mutation"]
    finally:
        page.close()
