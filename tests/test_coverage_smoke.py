"""The coverage benchmark (benchmarks/coverage.py) on cheap quantities, so that it cannot rot and the intervals it
checks stay honest.

200 data sets of the ``disjoint`` setting (four groups, one of ~3 % of 2,000 rows): the Wilson intervals of the
subgroup rates and DeLong's intervals of the subgroup, BPSN and BNSP AUCs must each cover their true value (computed
from the generating model) 90-99 % of the time at 95 %, with misses on both sides. Intervals at 80 % or 99.9 %, or
shifted to one side, fail these. Also checked: the truth against the library's estimates on a large sample, the
direction of a miss, and the command line end to end on three data sets.
"""

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("coverage_benchmark", ROOT / "benchmarks" / "coverage.py")
cov = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = cov   # before running it: its dataclasses look their module up
_spec.loader.exec_module(cov)

RATES = "Rates and shares (Wilson)"
AUCS = "AUCs (DeLong) and the bias AUC score (bootstrap)"
CHECKED = [(RATES, "selection rate per subgroup"), (RATES, "TPR per subgroup"), (RATES, "FPR per subgroup"),
           (AUCS, "subgroup AUC"), (AUCS, "BPSN AUC"), (AUCS, "BNSP AUC")]


def test_wilson_and_delong_intervals_cover_their_truth_with_misses_on_both_sides():
    intervals, verdicts, problems = cov.simulate("disjoint", 200, n_boot=100, families=("rates", "aucs"))
    assert not problems, problems   # no library error or warning on any data set
    assert not verdicts             # these families judge no rule
    for key in CHECKED:
        s = intervals[key]
        assert s["n"] >= 780 and s["no_interval"] == 0, (key, s)   # 4 subgroups x 200 data sets
        assert 0.90 <= s["coverage"] <= 0.99, (key, s)
        assert s["above"] > 0 and s["below"] > 0, (key, s)          # two-sided: misses on both sides
        assert abs(s["above"] + s["below"] - (1 - s["coverage"])) < 1e-12


def test_the_truth_is_what_the_library_estimates_on_a_large_sample():
    checks = cov.check_truth("disparity", 200_000)
    assert {"rates", "AUCs", "calibration", "Theil", "base rates", "class-wise"} <= set(checks)
    # Sampling error of 200,000 rows: the small group has ~6,000 rows (a rate's standard error is at most ~0.01).
    assert all(diff < 0.04 for diff, _ in checks.values()), checks


def test_a_miss_is_counted_on_its_side():
    c = cov.Collector(small="D")
    c.add(("s", "q"), low=[0.1, 0.5, 0.0, 0.2, np.nan], high=[0.3, 0.6, 0.1, 0.2, 0.5], truth=[0.2, 0.4, 0.2, 0.2, 0.3])
    intervals, _, _ = cov.summarize([c])
    s = intervals[("s", "q")]
    assert s["n"] == 4 and s["no_interval"] == 1
    assert s["coverage"] == 0.5 and s["above"] == 0.25 and s["below"] == 0.25


def test_a_family_claimed_at_once_and_a_false_coverage_rate_are_counted_per_data_set():
    first, second = cov.Collector(small="D"), cov.Collector(small="D")
    # Every interval holds its truth in the first data set; in the second one lies above its truth.
    first.add_together(("s", "together"), low=[0.0, 0.1], high=[0.2, 0.3], truth=[0.1, 0.2])
    second.add_together(("s", "together"), low=[0.0, 0.3], high=[0.2, 0.5], truth=[0.1, 0.2])
    # Two starred intervals in the first data set, one missing its truth (weights 1/2); no star in the second.
    first.add(("s", "starred"), low=[0.1, 0.4], high=[0.3, 0.5], truth=[0.2, 0.2], weight=0.5)
    second.add(("s", "starred"), 0.0, 0.0, 0.0)
    intervals, _, _ = cov.summarize([first, second])
    together, starred = intervals[("s", "together")], intervals[("s", "starred")]
    assert together["n"] == 2 and together["coverage"] == 0.5 and together["above"] == 0.5
    assert together["below"] == 0.0
    assert starred["n"] == 2 and starred["coverage"] == 0.75 and starred["above"] == 0.25   # 1 - (1/2 + 0) / 2
    assert starred["se"] == pytest.approx((0.75 * 0.25 / (4 / 1.5)) ** 0.5)   # Kish: (0.5+0.5+1)^2 / (0.25+0.25+1)


def test_the_command_line_writes_its_table(tmp_path):
    out = tmp_path / "coverage.md"
    done = subprocess.run([sys.executable, "-W", "error", str(ROOT / "benchmarks" / "coverage.py"), "--datasets", "3",
                           "--settings", "disjoint", "--truth-rows", "20000", "--processes", "1", "--n-boot", "100",
                           "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    text = out.read_text()
    assert "benchmarks/coverage.py --datasets 3" in text and "| quantity | disjoint |" in text
    assert "| subgroup AUC |" in text and "## Policy verdicts" in text and "Four-fifths rule" in text
