"""Thresholds suggested with their cost: the band where every rate rule passes with its interval
equals a brute-force recomputation (rows thresholded at each threshold, the page's verdicts with their intervals) on
two real datasets, and so do the cost table and the suggested threshold."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import balanced_accuracy_score

import fairness_core as fc
from fairness_core._review.suggest import MEASURES, suggest_threshold
from tests.support import ROOT

N_BOOT = 200


def brute_force(sd: fc.ScoredData, score: str, thresholds, outcome: str) -> pd.DataFrame:
    """Rows thresholded at each threshold, then the Rate disparities page's verdicts (rate_conclusions)."""
    rows = []
    for t in thresholds:
        pred = sd.scores[score] >= t
        counts = fc.confusion_counts(sd.y_true, pred, sd.subgroups)
        mapping = fc.ColumnMapping(label="y", positive_label=1, positive_outcome=outcome)
        verdicts = fc.rate_conclusions(counts, mapping, n_boot=N_BOOT).verdicts
        rows.append({"threshold": t, **{v.rule.name: v.status for v in verdicts},
                     "balanced_accuracy": balanced_accuracy_score(sd.y_true, pred) if 0 < pred.sum() < len(pred)
                     else 0.5, "recall": sd.y_true[pred].sum() / sd.y_true.sum(), "counts": counts})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def compas(compas_csv):
    frame = pd.read_csv(compas_csv)
    mapping = fc.ColumnMapping(label="two_year_recid", positive_label=1, scores=("decile_score",),
                               protected=("race",), positive_outcome="adverse")
    return fc.ScoredData.from_frame(frame, mapping), "decile_score", "adverse", 5.0


@pytest.fixture(scope="module")
def adult(adult_two_models_csv):
    frame = pd.read_csv(adult_two_models_csv)
    mapping = fc.ColumnMapping(label="y_true", positive_label=1, scores=("p_hgb",), protected=("sex",))
    return fc.ScoredData.from_frame(frame, mapping), "p_hgb", "favourable", 0.5


@pytest.mark.parametrize("case", ["compas", "adult"])
def test_band_cost_and_suggestion_equal_a_brute_force_recomputation(case, request):
    sd, score, outcome, current = request.getfixturevalue(case)
    tc = fc.threshold_counts(sd.y_true, sd.scores[score], sd.subgroups)
    grid = None if case == "compas" else np.linspace(0.05, 0.95, 19)   # COMPAS: every distinct score (1-10)
    found = suggest_threshold(tc, outcome, thresholds=grid, current=current, n_boot=N_BOOT)
    thresholds = found.table["threshold"].to_numpy()
    expected = np.arange(1.0, 11.0) if case == "compas" else np.unique(np.append(grid, current))
    np.testing.assert_array_equal(thresholds, expected)
    truth = brute_force(sd, score, thresholds, outcome)
    rules = [c for c in truth.columns if c not in ("threshold", "balanced_accuracy", "recall", "counts")]
    assert len(rules) == 5
    pd.testing.assert_frame_equal(found.table[rules], truth[rules])
    statuses = truth[rules].to_numpy()
    passing = thresholds[(statuses == "pass").all(axis=1)]
    np.testing.assert_array_equal(found.passing, passing)
    assert ((found.table["status"] == "fail") == (statuses == "fail").any(axis=1)).all()
    np.testing.assert_allclose(found.table["balanced_accuracy"], truth["balanced_accuracy"], rtol=0, atol=1e-12)
    # the cost: every subgroup's performance at every threshold, as the rows thresholded give it
    for t, counts in zip(thresholds, truth["counts"]):
        got = found.cost[found.cost["threshold"] == t].drop(columns="threshold").reset_index(drop=True)
        pd.testing.assert_frame_equal(got, fc.performance_table(counts))
    # the suggestion: the passing threshold with the highest balanced accuracy
    best = None if not len(passing) else passing[np.argmax(truth.set_index("threshold").loc[passing,
                                                                                            "balanced_accuracy"])]
    assert found.suggested == best
    # COMPAS passes only where almost nobody is predicted high risk (10); on Adult by sex the four-fifths rule
    # fails at every threshold of the grid (women's selection rate is below 0.8 of men's), so nothing is suggested
    assert (list(passing), found.suggested) == (([10.0], 10.0) if case == "compas" else ([], None))


def test_a_kept_measure_is_kept_closest_to_its_value_at_the_current_threshold():
    # a model with equal error rates in two equal groups: many thresholds pass every rule
    rng = np.random.default_rng(7)
    n = 20_000
    group = rng.choice(["a", "b"], n)
    y = (rng.random(n) < 0.4).astype(int)
    score = np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1).round(3)
    tc = fc.threshold_counts(y, score, group)
    grid = np.linspace(0.1, 0.9, 17)
    found = suggest_threshold(tc, thresholds=grid, current=0.5, measure="recall", n_boot=N_BOOT)
    table = found.table.set_index("threshold")
    assert len(found.passing) >= 5
    target = table.loc[0.5, "recall"]
    gaps = (table.loc[found.passing, "recall"] - target).abs()
    assert found.suggested == gaps.idxmin()
    best = suggest_threshold(tc, thresholds=grid, current=0.5, n_boot=N_BOOT)
    assert best.suggested == table.loc[found.passing, "balanced_accuracy"].idxmax()
    with pytest.raises(ValueError, match="keeps 'recall' at its value at the current threshold: give current="):
        suggest_threshold(tc, thresholds=grid, measure="recall", n_boot=N_BOOT)
    with pytest.raises(ValueError, match="measure"):
        suggest_threshold(tc, thresholds=grid, measure="f1", current=0.5)
    assert set(MEASURES) == {"balanced_accuracy", "accuracy", "recall", "precision", "selection_rate"}


def test_when_nothing_passes_the_best_threshold_where_nothing_fails_is_suggested_as_such():
    """The credit sample by ethnicity (6,000 rows, as the app opens it): no threshold passes every rule with its
    interval, so the
    suggestion is the highest balanced accuracy among the thresholds where no rule fails, said to rest on that,
    with the rows its inconclusive rules would need."""
    frame = fc.read_table(ROOT / "sample_data" / "credit_decisions.csv")
    mapping = fc.ColumnMapping(label="repaid", positive_label=1, scores=("score_logistic",), protected=("ethnicity",))
    sd = fc.ScoredData.from_frame(frame, mapping)
    tc = fc.threshold_counts(sd.y_true, sd.scores["score_logistic"], sd.subgroups)
    found = suggest_threshold(tc, measure="balanced_accuracy", current=0.5, n_boot=N_BOOT)
    assert len(found.passing) == 0 and len(found.inconclusive) > 0
    table = found.table.set_index("threshold")
    no_fail = table[table["status"] == "inconclusive"]
    assert found.basis == "no_fail" and found.suggested == no_fail["balanced_accuracy"].idxmax()
    at = found.verdicts[found.suggested]
    assert {v.status for v in at} <= {"pass", "inconclusive"} and any(v.status == "inconclusive" for v in at)
    assert found.rows_needed == max(v.smallest * v.rows_factor for v in at if v.status == "inconclusive") > 0
    # a suggestion from passing thresholds says so, and has no rows to ask for
    passing = suggest_threshold(tc, measure="balanced_accuracy", current=0.5, ci=None)
    assert passing.basis == "pass" and passing.suggested in passing.passing and np.isnan(passing.rows_needed)


def test_bands_are_runs_of_consecutive_thresholds():
    from fairness_core._review.suggest import ThresholdSuggestion

    table = pd.DataFrame({"threshold": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
                          "status": ["fail", "pass", "pass", "inconclusive", "pass", "fail"]})
    s = ThresholdSuggestion(table, pd.DataFrame(), {}, "balanced_accuracy", None, 0.3)
    assert s.bands() == [(0.2, 0.3), (0.5, 0.5)] and s.bands("inconclusive") == [(0.4, 0.4)]
    np.testing.assert_array_equal(s.passing, [0.2, 0.3, 0.5])


def test_the_command_line_prints_and_writes_the_suggestion(tmp_path, compas_csv):
    out = tmp_path / "review.json"
    run = subprocess.run([sys.executable, "-m", "fairness_core", "metrics", str(compas_csv), "--label",
                          "two_year_recid", "--score", "decile_score", "--protected", "race", "--threshold", "5",
                          "--suggest-threshold", "balanced_accuracy", "--out", str(out)],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 1, run.stderr   # COMPAS fails its rules at 5
    suggestion = json.loads(out.read_text())["models"][0]["suggestion"]
    line = next(x for x in run.stderr.splitlines() if x.startswith("suggested threshold for decile_score: "))
    rows = {r["threshold"]: r for r in suggestion["table"]["data"]} if "data" in suggestion["table"] else None
    assert suggestion["measure"] == "balanced_accuracy" and suggestion["current"] == 5.0
    passing = suggestion["passing"]
    assert line.endswith("every rule passes at: " + (", ".join(
        f"{a:g}" if a == b else f"{a:g} to {b:g}" for a, b in passing) or "none")
        + "; none fails but one is inconclusive at: " + (", ".join(
            f"{a:g}" if a == b else f"{a:g} to {b:g}" for a, b in suggestion["inconclusive"]) or "none"))
    if suggestion["suggested"] is not None:
        assert line.startswith(f"suggested threshold for decile_score: {suggestion['suggested']:g} (balanced_accuracy ")
    assert rows is None or set(rows) == set(np.arange(1.0, 11.0))
