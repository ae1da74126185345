"""Per-subgroup thresholds on rows they were not fitted on (generated data): 20 random halvings, fitted on one half
and judged on the other, as benchmarks/group_thresholds_holdout.py judges them on the shipped and real data sets
(where they are also compared with Fairlearn's ThresholdOptimizer)."""

from __future__ import annotations

import numpy as np
import pytest

import fairness_core as fc
from fairness_core._review.group_thresholds import CONSTRAINTS

TOLERANCE = 0.05
HALVINGS = 20


def generated(seed: int = 11, n: int = 20_000):
    """Three subgroups (50, 30, 20 % of the rows) with different base rates and score distributions: a single
    threshold selects them at rates 0.1-0.2 apart."""
    rng = np.random.default_rng(seed)
    g = rng.choice(np.array(["a", "b", "c"]), n, p=[0.5, 0.3, 0.2])
    shift = np.select([g == "a", g == "b"], [0.0, 0.5], -0.4)
    y = (rng.random(n) < 1 / (1 + np.exp(-(0.8 * shift - 0.2)))).astype(int)
    s = 1 / (1 + np.exp(-(1.6 * (y - 0.5) + shift + rng.normal(0, 1.0, n))))
    return y, s, g


def held_out_gap(y, pred, g, constraint: str) -> float:
    """The largest difference between two subgroups' constrained rates, from the masks (an independent count)."""
    gaps = []
    for rate in CONSTRAINTS[constraint]:
        rows = {"selection_rate": np.ones(len(y), bool), "true_positive_rate": y == 1,
                "false_positive_rate": y == 0}[rate]
        values = [pred[(g == k) & rows].mean() for k in np.unique(g)]
        gaps.append(max(values) - min(values))
    return max(gaps)


def balanced_accuracy(y, pred) -> float:
    from sklearn.metrics import balanced_accuracy_score

    return float(balanced_accuracy_score(y, pred))


@pytest.mark.full   # 120 fits of 10,000 rows and their judgement (about 30 CPU-s)
@pytest.mark.parametrize("constraint", list(CONSTRAINTS))
def test_the_tolerance_holds_on_the_held_out_half(constraint):
    """The thresholds keep the tolerance on the held-out half in at least 80 % of 20 halvings: measured 18, 18 and
    19 of 20 (demographic parity, equal opportunity, equalized odds); with a true share of 0.9, 14 or fewer of 20
    has a chance of 1.1 %, so at least 15 are asserted. Fitted on the half alone (no margin) they keep it in 12, 10
    and 13 of 20. The margin costs little at these sizes (subgroups of 2,000-5,000 rows in a half): the held-out
    balanced accuracy within 0.01 of the fit without margins, on average (measured 0.780 against 0.781, 0.784
    against 0.784, 0.777 against 0.784). The gap they say to expect on new rows (``expected_gap``, an 80th
    percentile) is above the held-out gap in most halvings; the in-sample gap (``gap``) is below it, never the
    promise."""
    y, s, g = generated()
    rng = np.random.default_rng(0)
    within, within_alone, below_expected, ba, ba_alone = 0, 0, 0, [], []
    for _ in range(HALVINGS):
        fit = rng.random(len(y)) < 0.5
        held = ~fit
        counts = fc.threshold_counts(y[fit], s[fit], g[fit])
        found = fc.group_thresholds(counts, constraint, tolerance=TOLERANCE)
        alone = fc.group_thresholds(counts, constraint, tolerance=TOLERANCE, held_out=None)
        assert found.kept and found.note == "" and found.gap <= TOLERANCE + 1e-12
        assert found.gap < found.expected_gap   # new rows stray further than the fitted ones
        for result, tally in ((found, "margin"), (alone, "alone")):
            pred = (s[held] >= np.array([result.thresholds[k] for k in g[held]])).astype(int)
            gap = held_out_gap(y[held], pred, g[held], constraint)
            if tally == "margin":
                within += gap <= TOLERANCE + 1e-12
                below_expected += gap <= found.expected_gap
                ba.append(balanced_accuracy(y[held], pred))
            else:
                within_alone += gap <= TOLERANCE + 1e-12
                ba_alone.append(balanced_accuracy(y[held], pred))
    assert within >= 15, (within, within_alone)
    assert within_alone < within
    assert np.mean(ba) >= np.mean(ba_alone) - 0.01, (np.mean(ba), np.mean(ba_alone))
    assert below_expected >= 14, below_expected
