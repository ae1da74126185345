"""Performance at the threshold against scikit-learn on masks, and its intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import (accuracy_score, balanced_accuracy_score, confusion_matrix, f1_score, precision_score,
                             recall_score)

import fairness_core as fc
from fairness_core._metrics.performance import balanced_accuracy_interval


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(8)
    n = 2000
    group = rng.choice(["a", "b", "c", "nobody positive"], size=n, p=[0.5, 0.3, 0.18, 0.02])
    y = (rng.random(n) < np.where(group == "nobody positive", 0.0, 0.4)).astype(int)
    score = np.clip(rng.normal(0.3 + 0.3 * y, 0.2), 0, 1)
    return y, score, group


def _sklearn_row(y, pred):
    tn, fp, fn, tp = confusion_matrix(y, pred, labels=[0, 1]).ravel()
    return dict(tn=tn, fp=fp, fn=fn, tp=tp, accuracy=accuracy_score(y, pred),
                precision=precision_score(y, pred, zero_division=np.nan),
                recall=recall_score(y, pred, zero_division=np.nan),
                f1=f1_score(y, pred, zero_division=np.nan), selection_rate=pred.mean(),
                balanced_accuracy=balanced_accuracy_score(y, pred) if 0 < y.sum() < len(y) else np.nan)


@pytest.mark.parametrize("threshold", [0.2, 0.5, 0.8, 1.01])
def test_every_value_equals_scikit_learn_on_the_masks(data, threshold):
    y, score, group = data
    pred = (score >= threshold).astype(int)
    table = fc.performance_table(fc.threshold_counts(y, score, group).at(threshold)).set_index("subgroup")
    assert list(table.index) == ["All rows", "a", "b", "c", "nobody positive"]
    for name in table.index:
        mask = np.ones(len(y), bool) if name == "All rows" else group == name
        expected = _sklearn_row(y[mask], pred[mask])
        for column, value in expected.items():
            np.testing.assert_allclose(table.loc[name, column], value, rtol=1e-12, equal_nan=True, err_msg=column)
    # Undefined values are NaN with their reason, never 0 or 1.
    none = table.loc["nobody positive"]
    assert np.isnan(none["recall"]) and "recall undefined: no positive examples" in none["note"]


def test_intervals_wilson_for_proportions_and_bootstrap_for_f1(data):
    y, score, group = data
    counts = fc.confusion_counts(y, (score >= 0.5).astype(int), group)
    table = fc.performance_table(counts, ci=0.9, n_boot=400)
    assert table.attrs["ci"] == 0.9
    low, high = fc.wilson_interval(table["tp"], table["tp"] + table["fn"], 0.9)
    np.testing.assert_allclose(table["recall_ci_low"], low, equal_nan=True)
    np.testing.assert_allclose(table["recall_ci_high"], high, equal_nan=True)
    defined = table["f1"].notna()
    assert (table.loc[defined, "f1_ci_low"] <= table.loc[defined, "f1"]).all()
    assert (table.loc[defined, "f1"] <= table.loc[defined, "f1_ci_high"]).all()
    # Narrower for the large subgroup than for the small one; the same seed gives the same interval.
    width = (table["f1_ci_high"] - table["f1_ci_low"]).to_numpy()
    assert width[1] < width[3]
    again = fc.performance_table(counts, ci=0.9, n_boot=400)
    pd.testing.assert_frame_equal(table, again)


def test_bad_counts_are_refused():
    with pytest.raises(ValueError, match="confusion_counts"):
        fc.performance_table(pd.DataFrame({"tp": [1]}))


def test_balanced_accuracy_is_half_for_a_model_that_predicts_one_class():
    y = np.array([0] * 88 + [1] * 12)
    table = fc.performance_table(fc.confusion_counts(y, np.zeros(100, int), ["g"] * 100), ci=0.95)
    assert table.loc[0, "accuracy"] == pytest.approx(0.88) and table.loc[0, "balanced_accuracy"] == 0.5
    assert table.loc[0, "balanced_accuracy_ci_low"] < 0.5 < table.loc[0, "balanced_accuracy_ci_high"]


@pytest.mark.full   # a coverage simulation: make test only (tests/tiers.py)
def test_balanced_accuracy_interval_covers_its_truth_with_misses_on_both_sides():
    """MOVER from two Wilson intervals: coverage near the nominal 90 % in simulation, small samples included."""
    rng = np.random.default_rng(0)
    for n_pos, n_neg, tpr, tnr in [(15, 60, 0.7, 0.9), (40, 400, 0.55, 0.8), (300, 700, 0.9, 0.95)]:
        reps = 4000
        tp = rng.binomial(n_pos, tpr, reps)
        tn = rng.binomial(n_neg, tnr, reps)
        low, high = balanced_accuracy_interval(tp, n_pos - tp, tn, n_neg - tn, 0.9)
        truth = (tpr + tnr) / 2
        below, above = np.mean(high < truth), np.mean(low > truth)
        assert 0.87 <= 1 - below - above <= 0.95, (n_pos, n_neg, below, above)
        assert below > 0.005 and above > 0.005, (n_pos, n_neg, below, above)
