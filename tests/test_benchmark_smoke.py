"""The benchmark (benchmarks/run.py) at 20,000 rows, so that it cannot rot.

It runs in a child process with warnings as errors, as the suite does, using only the peers
importable here (the literal reference code, scikit-learn and pandas are always there). Asserted: every
agreement check passed and the JSON has every section and row. Never a time.
"""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Side-by-side rows: (operation, peer) -> the module the peer needs (None: always available).
ROWS = {
    ("AUC family, 8 identity columns, untied scores", "literal Jigsaw Unintended Bias benchmark code (roc_auc_score per mask)"): None,
    ("AUC family, race x sex (8 subgroups), untied scores", "literal Jigsaw Unintended Bias benchmark code (one-hot race x sex)"): None,
    ("AUC family, race x sex (8 subgroups), tied scores (2 decimals)", "literal Jigsaw Unintended Bias benchmark code (one-hot race x sex)"):
        None,
    ("7 rates x 8 subgroups, one call per rate (pairwise, diff, mean)", "guardian-ai (category dtype)"): "guardian_ai",
    ("calibration per subgroup (race x sex), 10 uniform bins", "calibration_curve per mask"): None,
    ("calibration, two groups (sex): ECE, MCE, disparity", "ExFairness-style literal (masks per bin)"): None,
    ("unweighted average bias by race (3 classes, F-score, std)", "audmetric"): "audmetric",
    ("smoothed EDF, race x sex", "guardian-ai (integer-coded categories)"): "guardian_ai",
    ("between-group Theil index by race", "aif360 ClassificationMetric"): "aif360",
    ("consistency (2 features, k = 5)", "aif360 consistency (n_neighbors = 6: self included)"): "aif360",
    ("3 rates by race, one call", "fairlearn MetricFrame"): "fairlearn",
    ("3 rates by race, one call", "plain pandas groupby"): None,
    ("7 rates by race x sex from raw columns, one call", "plain pandas groupby of the same counts"): None,
    ("p% and equal opportunity scores, sex", "scikit-lego"): "sklego",
    ("Subgroups.from_attributes, race x sex", "pandas groupby(...).ngroup()"): None,
}
PAGES = ["subgroup_aucs", "rate_disparities", "calibration", "classwise", "dataset_metrics", "definitions"]


def test_benchmark_runs_and_every_pair_agrees(tmp_path):
    out = tmp_path / "results.json"
    done = subprocess.run([sys.executable, "-W", "error", str(ROOT / "benchmarks" / "run.py"), "--rows", "20000",
                           "--subgroups", "8", "--quick", "--out", str(out)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(out.read_text())

    checks = results["agreement"]
    assert checks and all(c["passed"] for c in checks), [c for c in checks if not c["passed"]]
    assert "| operation | peer |" in done.stdout and "checks passed" in done.stdout

    rows = {(r["operation"], r["peer"]): r for r in results["side_by_side"]}
    assert set(rows) == set(ROWS)
    for key, module in ROWS.items():
        present = module is None or importlib.util.find_spec(module) is not None
        assert ("skipped" not in rows[key]) == present, (key, rows[key].get("skipped"))
        if present:
            assert rows[key]["ratio"] > 0 and rows[key]["ours"]["cpu_runs"] and rows[key]["agreement_checks"] >= 1

    # The library's speed targets, each reported with the ratio this run measured (met or not: never asserted) and the load.
    assert [r["goal"] for r in results["targets"]] == [">= 50x", ">= 1.2x", ">= 3x", "<= 0.7 s"]
    assert all(isinstance(r["met"], bool) and r["measured"] for r in results["targets"])
    assert results["import"]["fairness_core"]["wall_runs"] and results["import"]["ratio_wall"] > 0
    assert "Targets of the library's speed" in done.stdout and len(results["meta"]["load_start"]) == 3

    assert len(results["intervals"]) == 9
    assert [r["step"] for r in results["audit"]][0].startswith("full audit")
    changes = [r["change"] for r in results["incremental"]]
    assert len(changes) == 12 and changes[0].startswith("threshold change: confusion counts from the sorted scores")
    assert changes[-2].startswith("threshold suggestion: the rate rules' verdicts at 101 thresholds")
    assert [r["format"] for r in results["loading"]] == ["CSV", "Parquet"]
    assert results["end_to_end"]["rows"] == 20000

    app = results["app"]
    assert not app.get("error") and not app["errors"] and not app["shown_errors"], app
    steps = {s["step"] for s in app["steps"]}
    assert {"upload and parse the CSV", "add a protected attribute (race, sex)",
            "Rate disparities: threshold change"} <= steps
    assert {f"first run: pages/{page}.py" for page in PAGES} <= steps
    assert {"first run: pages/overview.py (after every other page)",
            "first run: pages/overview.py (straight after the Data page)"} <= steps


def test_engine_benchmark_runs_and_agrees_with_the_library(tmp_path):
    out = tmp_path / "engines.json"
    done = subprocess.run([sys.executable, "-W", "error", str(ROOT / "benchmarks" / "run.py"), "--engine", "duckdb",
                           "--rows", "40000", "--files", "2", "--sample", "20000", "--data", str(tmp_path / "logs"),
                           "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(out.read_text())
    assert results["rows"] == 40000 and results["check"]["sample_rows"] == 20000
    assert results["check"]["max_relative_count_difference"] < 1e-12
    assert results["check"]["binned_aucs_within_bound"] is True
    assert 0 < results["max_binning_error"] < 1e-3


def test_weights_benchmark_runs_and_reports_each_step_weighted_and_not():
    """benchmarks/weights.py --quick (20,000 rows): its unit-weight check passes, and it reports every step with
    both paths' times and their ratio (asserted present and positive, never compared with a target)."""
    done = subprocess.run([sys.executable, "-W", "error", str(ROOT / "benchmarks" / "weights.py"), "--quick"],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["rows"] == 20_000 and report["target_ratio"] == 1.5
    assert [s["step"] for s in report["steps"]] == ["count tables of one score", "review without intervals",
                                                    "review with intervals (1,000 replicates)"]
    for step in report["steps"]:
        assert step["unweighted_cpu_s"] > 0 and step["weighted_cpu_s"] > 0
        assert step["ratio_cpu"] == step["weighted_cpu_s"] / step["unweighted_cpu_s"]
