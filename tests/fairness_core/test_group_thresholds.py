"""Per-group thresholds: the optimum over every combination of thresholds (brute force), and on
the held-out rows of two real datasets the constraint gap within the tolerance, with a balanced accuracy no worse
than Fairlearn's ThresholdOptimizer (randomised decisions) by more than 0.01."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

import fairness_core as fc
from fairness_core._review.group_thresholds import LATTICE
from tests.support import three_groups

TOLERANCE = 0.05
RATES = {"demographic_parity": (None,), "equal_opportunity": (1,), "equalized_odds": (1, 0)}
FAIRLEARN = {"demographic_parity": "demographic_parity", "equal_opportunity": "true_positive_rate_parity",
             "equalized_odds": "equalized_odds"}


def gap(pred, y, g, constraint: str) -> float:
    """The largest difference between two groups' selection rate (label None), TPR (1) or FPR (0)."""
    out = []
    for label in RATES[constraint]:
        rows = np.ones(len(y), bool) if label is None else y == label
        values = [pred[(g == k) & rows].mean() for k in np.unique(g) if ((g == k) & rows).any()]
        out.append(max(values) - min(values))
    return max(out)


def balanced_accuracy(pred, y) -> float:
    return 0.5 * (pred[y == 1].mean() + 1 - pred[y == 0].mean())


def brute_force(y, s, g, constraint: str, tolerance: float):
    """The best balanced accuracy over every combination of the groups' thresholds (every distinct score)."""
    names, levels = list(np.unique(g)), np.unique(s)
    best = (-np.inf, None)
    for combo in itertools.product(levels, repeat=len(names)):
        own = dict(zip(names, combo))
        pred = s >= np.array([own[k] for k in g])
        if gap(pred, y, g, constraint) <= tolerance + 1e-12:
            value = balanced_accuracy(pred, y)
            if value > best[0] + 1e-12:
                best = (value, own)
    return best


@pytest.fixture(scope="module")
def small():
    """Three groups with different score distributions, scores on 8 levels: 512 combinations."""
    return three_groups(7)


@pytest.mark.parametrize("constraint", list(RATES))
def test_the_optimum_over_every_combination_of_thresholds(small, constraint):
    y, s, g = small
    found = fc.group_thresholds(fc.threshold_counts(y, s, g), constraint, tolerance=TOLERANCE)
    pred = s >= np.array([found.thresholds[k] for k in g])
    assert gap(pred, y, g, constraint) <= TOLERANCE + 1e-12
    assert found.gap == pytest.approx(gap(pred, y, g, constraint), abs=1e-12)
    assert found.value == pytest.approx(balanced_accuracy(pred, y), abs=1e-12)
    best, _ = brute_force(y, s, g, constraint, TOLERANCE)
    if constraint == "equalized_odds":   # windows on a lattice: at least the optimum of a tolerance one step tighter
        tighter, _ = brute_force(y, s, g, constraint, TOLERANCE - TOLERANCE / LATTICE)
        assert tighter - 1e-12 <= found.value <= best + 1e-12
    else:
        assert found.value == pytest.approx(best, abs=1e-12)
    table = found.table.set_index("subgroup")
    assert list(table.index) == ["a", "b", "c", "All rows"]
    assert table.loc["All rows", "balanced_accuracy"] == pytest.approx(found.value)
    assert table.loc["All rows", "size"] == len(y)


class Passthrough(BaseEstimator, ClassifierMixin):
    """A fitted "model" whose prediction is the score column itself (ThresholdOptimizer with prefit=True)."""

    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.asarray(X)[:, 0]


def held_out(y, s, g):
    """Fit on a random half of the rows (seed 0); the other half judges."""
    train = np.random.default_rng(0).random(len(y)) < 0.5
    return train, ~train


@pytest.fixture(scope="module")
def datasets(compas_csv, adult_two_models_csv):
    adult = pd.read_csv(adult_two_models_csv)
    compas = pd.read_csv(compas_csv)
    compas = compas[compas["race"].isin(["African-American", "Caucasian"])]   # the two groups large enough to judge
    return {"adult": (adult["y_true"].to_numpy(), adult["p_hgb"].to_numpy(), adult["sex"].to_numpy()),
            "compas": (compas["two_year_recid"].to_numpy(), compas["decile_score"].to_numpy(dtype=float),
                       compas["race"].to_numpy())}


@pytest.mark.parametrize("name", ["adult", "compas"])
@pytest.mark.parametrize("constraint", list(RATES))
def test_held_out_gap_within_the_tolerance_and_fairlearn_no_better(datasets, name, constraint):
    from fairlearn.postprocessing import ThresholdOptimizer

    y, s, g = datasets[name]
    train, test = held_out(y, s, g)
    # Fitted to the rows alone (held_out=None): the balanced accuracy Fairlearn's randomised thresholds reach.
    found = fc.group_thresholds(fc.threshold_counts(y[train], s[train], g[train]), constraint, tolerance=TOLERANCE,
                                held_out=None)
    ours = s[test] >= np.array([found.thresholds[k] for k in g[test]])
    optimizer = ThresholdOptimizer(estimator=Passthrough(), constraints=FAIRLEARN[constraint],
                                   objective="balanced_accuracy_score", prefit=True, predict_method="predict")
    with warnings.catch_warnings():   # Fairlearn's own warnings (e.g. on pandas), not ours
        warnings.simplefilter("ignore")
        optimizer.fit(pd.DataFrame({"s": s[train]}), y[train], sensitive_features=g[train])
        theirs = optimizer.predict(pd.DataFrame({"s": s[test]}), sensitive_features=g[test],
                                   random_state=0).astype(bool)
    single = s[test] >= (0.5 if s.max() <= 1 else 5.0)
    assert gap(single, y[test], g[test], constraint) > TOLERANCE   # the single threshold breaks the constraint
    assert gap(ours, y[test], g[test], constraint) <= TOLERANCE
    assert balanced_accuracy(ours, y[test]) >= balanced_accuracy(theirs, y[test]) - 0.01


def test_what_cannot_be_asked():
    y, s = np.array([0, 1, 1, 0]), np.array([0.1, 0.9, 0.8, 0.2])
    with pytest.raises(ValueError, match="needs subgroups that do not overlap"):
        overlapping = fc.Subgroups.from_indicators(pd.DataFrame({"x": [1, 1, 0, 0], "z": [1, 0, 1, 0]}), ["x", "z"])
        fc.group_thresholds(fc.threshold_counts(y, s, overlapping))
    counts = fc.threshold_counts(y, s, ["a", "a", "b", "b"])
    with pytest.raises(ValueError, match="'tolerance' parameter of group_thresholds must be a number in \\[0, 1\\]"):
        fc.group_thresholds(counts, tolerance=2)
    with pytest.raises(ValueError, match="constraint"):
        fc.group_thresholds(counts, "parity")
    # one threshold on the grid (0.85: a predicts 1 of 2, b none): no way to close the gap of 0.5
    none = fc.group_thresholds(counts, "demographic_parity", tolerance=0.1, thresholds=[0.85])
    assert none.thresholds == {} and np.isnan(none.value) and none.note.startswith(
        "No thresholds on the grid of 1 keep the selection_rate of every subgroup within 0.1")


def _two_groups(rng, n):
    """Scores and labels of two groups of `n` rows whose score distributions differ (a single threshold selects
    them at different rates)."""
    g = np.repeat(np.array(["a", "b"]), n)
    y = (rng.random(2 * n) < np.where(g == "a", 0.5, 0.35)).astype(int)
    s = np.clip(rng.normal(0.35 + 0.3 * y + np.where(g == "a", 0.05, 0.0), 0.2), 0, 1)
    return y, s, g


@pytest.mark.parametrize("constraint", list(RATES))
def test_the_margins_keep_the_tolerance_on_new_rows(constraint):
    # Fitted on one sample, judged on 50 new samples of the same sizes: measured within the tolerance in 81, 95 and
    # 87 % of 100 (demographic parity, equal opportunity, equalized odds; the thresholds chosen for a small gap on
    # the fitted rows are a little optimistic), asserted at 70 % to leave room for the samples' own noise.
    rng = np.random.default_rng(3)
    y, s, g = _two_groups(rng, 1500)
    found = fc.group_thresholds(fc.threshold_counts(y, s, g), constraint, tolerance=TOLERANCE)
    assert found.kept and found.note == "" and found.gap <= TOLERANCE
    assert found.gap < found.expected_gap <= TOLERANCE + 0.02
    within = 0
    for _ in range(50):
        y2, s2, g2 = _two_groups(rng, 1500)
        pred = s2 >= np.array([found.thresholds[k] for k in g2])
        within += gap(pred, y2, g2, constraint) <= TOLERANCE
    assert within >= 35, within


def test_subgroups_too_small_for_the_tolerance_are_said_so():
    rng = np.random.default_rng(4)
    y, s, g = _two_groups(rng, 60)
    found = fc.group_thresholds(fc.threshold_counts(y, s, g), "demographic_parity", tolerance=0.02)
    assert found.thresholds and not found.kept and found.gap <= 0.02
    assert found.expected_gap > 0.02
    assert found.note.startswith("These thresholds keep the tolerance of 0.02 on the rows they were fitted on only")
    with pytest.raises(ValueError, match="'held_out' parameter of group_thresholds"):
        fc.group_thresholds(fc.threshold_counts(y, s, g), held_out=0.3)


KEPT = {"selection_rate": lambda pred, y: pred.mean(), "true_positive_rate": lambda pred, y: pred[y == 1].mean(),
        "true_negative_rate": lambda pred, y: 1 - pred[y == 0].mean()}


@pytest.mark.parametrize("levels, groups", [(12, ("a", "b", "c")), (40, ("a", "b"))])
@pytest.mark.parametrize("constraint", list(RATES))
@pytest.mark.parametrize("measure", list(KEPT))
def test_a_kept_rate_is_kept_as_closely_as_any_combination_keeps_it(levels, groups, constraint, measure):
    """Against every combination of thresholds: the kept rate as close to its value at the single threshold as any
    combination that meets the constraint brings it, and where some come within 0.005 of it, the best balanced
    accuracy among them."""
    from fairness_core._review.group_thresholds import KEEP_WITHIN

    y, s, g = three_groups(levels)
    rows = np.isin(g, groups)
    y, s, g = y[rows], s[rows], g[rows]
    kept = KEPT[measure]
    target = kept(s >= 0.5, y)
    found = fc.group_thresholds(fc.threshold_counts(y, s, g), constraint, tolerance=TOLERANCE, measure=measure,
                                single=0.5, held_out=None)
    pred = s >= np.array([found.thresholds[k] for k in g])
    assert found.value == pytest.approx(kept(pred, y), abs=1e-12)
    assert found.single_value == pytest.approx(target, abs=1e-12)
    assert gap(pred, y, g, constraint) <= TOLERANCE + 1e-12
    # every combination at once, from each group's counts at each distinct score (masks on the rows)
    levels_ = np.unique(s)
    count = {k: np.array([[((g == k) & (s >= t) & (y == v)).sum() for v in (0, 1)] for t in levels_]) for k in groups}
    size = {k: np.array([((g == k) & (y == v)).sum() for v in (0, 1)]) for k in groups}
    combos = np.array(list(itertools.product(range(len(levels_)), repeat=len(groups))))        # (C, groups)
    picked = np.stack([count[k][combos[:, j]] for j, k in enumerate(groups)], axis=1)      # (C, groups, 2)
    sizes = np.stack([size[k] for k in groups])                                              # (groups, 2)
    rates = {None: picked.sum(axis=2) / sizes.sum(axis=1), 1: picked[..., 1] / sizes[:, 1],
             0: picked[..., 0] / sizes[:, 0]}
    spread = np.max([rates[label].max(axis=1) - rates[label].min(axis=1) for label in RATES[constraint]], axis=0)
    total = picked.sum(axis=1)                                                               # (C, 2): FP, TP
    value = {"selection_rate": total.sum(axis=1) / len(y), "true_positive_rate": total[:, 1] / (y == 1).sum(),
             "true_negative_rate": 1 - total[:, 0] / (y == 0).sum()}[measure]
    accuracy = 0.5 * (total[:, 1] / (y == 1).sum() + 1 - total[:, 0] / (y == 0).sum())
    meets = spread <= TOLERANCE - TOLERANCE / LATTICE * (constraint == "equalized_odds") + 1e-12
    distance = np.abs(value - target)
    closest = distance[meets].min()
    within = meets & (distance <= KEEP_WITHIN)
    best_within = accuracy[within].max() if within.any() else -np.inf
    ours = abs(found.value - target)
    if np.isfinite(best_within):
        assert ours <= KEEP_WITHIN and balanced_accuracy(pred, y) >= best_within - 1e-12
        assert found.note == ""
    else:
        assert ours <= closest + 1e-12
        assert f"not within {KEEP_WITHIN:g} of its {target:.3f} at the single threshold" in found.note
    with pytest.raises(ValueError, match="keeps the .* of all rows at its value at the single threshold: give single="):
        fc.group_thresholds(fc.threshold_counts(y, s, g), constraint, measure=measure)
