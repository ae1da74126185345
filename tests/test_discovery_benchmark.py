"""benchmarks/discovery.py and the discovery section of benchmarks/coverage.py, on small runs: the section reads the
saved results and states each goal, a fresh simulation fills the same rows, and the peers' worker returns our top."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module   # before running it: its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


cov = load("coverage_benchmark_discovery", ROOT / "benchmarks" / "coverage.py")
disc = load("discovery_benchmark", ROOT / "benchmarks" / "discovery.py")


def test_the_coverage_report_states_the_saved_discovery_goals():
    saved = json.loads(cov.DISCOVERY_RESULTS.read_text())
    rows = cov.discovery_rows()
    goals = [goal for goal, *_ in rows]
    assert any("any discovery ≤ 5 %" in g for g in goals) and any("in the top 3 ≥ 80 %" in g for g in goals)
    runs = sum(b["null"]["runs"] for b in saved["simulation"].values() if "null" in b and "planted" in b)
    null = next(r for r in rows if r[0].startswith("no true disparity"))
    assert null[2] == runs >= 500 and 0 <= null[1] <= 1 and null[3] == (null[1] <= 0.05)
    for quantity in saved.get("scores", {}):
        assert sum(g.startswith(quantity) for g in goals) == 2
    text = cov.discovery_section()
    assert text.startswith("## Subgroup discovery") and "| goal | measured | runs | met |" in text
    assert "| quantity |" not in text   # the app's coverage table is the first one only


@pytest.mark.full   # a simulation: make test only
def test_a_fresh_simulation_fills_the_rows():
    sim = disc.simulation(2, 20_000, 0.10, first_seed=3)
    assert sim["null"]["runs"] == sim["planted"]["runs"] == 2
    assert 0 <= sim["planted"]["planted_in_top_3"] <= 1 and 0 <= sim["null"]["top_coverage"] <= 1
    scores = disc.score_null(1, 20_000)
    assert set(scores) == set(disc.SCORE_QUANTITIES) and all(r["runs"] == 1 for r in scores.values())
    text = disc.report({"simulation": sim, "scores": scores})
    assert "| planted (effect 0.10) | 2 |" in text and "calibration_error, calibrated score" in text


def test_the_peers_worker_returns_our_top_on_the_peers_data():
    result = disc.peer_worker("ours", 30_000, 3, 100, 5)
    assert len(result["top"]) == 5 and result["cpu_s"] >= 0
    x, y_true, y_pred = disc.peer_data(30_000)
    assert x.shape == (30_000, 10) and x.nunique().max() == 10
    planted = ((x.c0 == 1) & (x.c3 == 2) & (x.c7 == 3)).to_numpy()
    assert (y_true != y_pred)[planted].mean() > (y_true != y_pred)[~planted].mean()
