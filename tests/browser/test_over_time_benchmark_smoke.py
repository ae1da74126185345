"""The browser benchmark's Over time steps (``benchmarks/browser.py --over-time``) at 3,000 rows, one repeat, so that
they cannot rot, and the merge of their steps into an earlier run's results (the other pages' steps kept, an earlier
Over time run's replaced). Asserted: every step recorded with a positive, finite time to idle and a load average.
Never a time's size."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from tests.browser.conftest import CHROMIUM
from tests.browser.test_browser_benchmark_smoke import _benchmark_module
from tests.support import ROOT, fail_or_skip

pytestmark = pytest.mark.browser
OWN_SERVER = True   # its own server and browser, no timing bound: may run beside the other browser tests

STEPS = {"first visit: Over time (24 months)": "first visit", "Over time: model change (24 months)": "control",
         "Over time: period change (month to quarter)": "control", "Over time: rate change (charts only)": "control",
         "Over time: revisit": "control"}


def _step(name: str, seconds: float) -> dict:
    """A step of an earlier run, as benchmarks/browser.py records it."""
    return {"step": name, "kind": "control", "runs": [{"seconds": seconds}], "median_seconds": seconds,
            "median_server_seconds": seconds, "median_server_cpu_seconds": seconds,
            "median_browser_cpu_seconds": 0.1, "load_averages": [1.0], "target_seconds": 0.5,
            "target_met": seconds <= 0.5}


def test_over_time_steps_are_recorded_and_merged_into_an_earlier_run(tmp_path):
    if not CHROMIUM.exists():
        fail_or_skip(f"Chromium not found at {CHROMIUM}. Install it with: sudo apt-get install chromium")
    out = tmp_path / "results-browser.json"
    earlier = {"rows": 2000, "csv_bytes": 1, "repeats": 1, "quick": True, "page_errors": [], "exceptions": [],
               "environment": {}, "steps": [_step("first visit: Overview", 1.0), _step("Over time: model change", 9.0)]}
    out.write_text(json.dumps(earlier))
    done = subprocess.run([sys.executable, "-W", "error", str(ROOT / "benchmarks" / "browser.py"), "--rows", "3000",
                           "--quick", "--over-time", "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(out.read_text())
    run = results["over_time_run"]
    assert run["rows"] == 3000 and run["repeats"] == 1 and run["csv_bytes"] > 0
    assert not run["page_errors"] and not run["exceptions"], (run["page_errors"], run["exceptions"])
    assert results["rows"] == 2000   # the earlier run's own description is kept
    steps = {s["step"]: s for s in results["steps"]}
    assert set(steps) == set(STEPS) | {"first visit: Overview"}, sorted(steps)
    assert steps["first visit: Overview"] == _step("first visit: Overview", 1.0)
    for name, kind in STEPS.items():
        step = steps[name]
        assert step["kind"] == kind and len(step["runs"]) == 1, step
        for one in step["runs"]:
            assert math.isfinite(one["seconds"]) and one["seconds"] > 0 and one["script_runs"] >= 1, (name, one)
            assert math.isfinite(one["load_average"]) and one["load_average"] >= 0, (name, one)
    assert "| Over time: model change (24 months) |" in done.stdout


def test_a_first_over_time_run_makes_the_file():
    bench = _benchmark_module()
    over = {"rows": 10, "csv_bytes": 5, "repeats": 1, "quick": True, "page_errors": [], "exceptions": [],
            "environment": {"cpus": 2}, "steps": [_step("Over time: revisit", 0.3)]}
    made = bench.merged(None, over)
    assert made["steps"] == over["steps"] and made["rows"] == 10 and made["over_time_run"]["environment"] == {"cpus": 2}
    counted = {"rows": "logs/*.parquet", "steps": [_step("Rate disparities: a scan", 1.0)]}
    assert bench.merged(counted, over)["steps"] == over["steps"]   # a counted run's file is not mixed with rows
