"""The threshold explorer's curves, disparity curves and rule bands against thresholding row by row."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import confusion_matrix

import fairness_core as fc
from fairness_core._counts.rates import RATE_NAMES


@pytest.fixture(scope="module")
def scored():
    rng = np.random.default_rng(3)
    n = 3000
    race = rng.choice(["A", "B", "C", "D"], size=n, p=[0.5, 0.3, 0.17, 0.03])
    sex = rng.choice(["F", "M"], size=n)
    score = np.round(rng.beta(2, 3, n) + np.where(race == "B", 0.1, 0.0), 3)   # ties, values above 1
    y = (rng.random(n) < np.clip(score, 0, 1)).astype(int)
    frame = pd.DataFrame({"race": race, "sex": sex, "score": score, "y": y})
    groups = fc.Subgroups.from_attributes(frame, ["race", "sex"], min_size=60)
    return frame, groups, fc.threshold_counts(y, score, groups)


def _literal_rate(y, pred, name):
    tn, fp, fn, tp = confusion_matrix(y, pred, labels=[0, 1]).ravel()
    num, den = {"selection_rate": (fp + tp, tn + fp + fn + tp), "true_positive_rate": (tp, tp + fn),
                "false_positive_rate": (fp, fp + tn), "false_negative_rate": (fn, fn + tp),
                "false_omission_rate": (fn, fn + tn), "false_discovery_rate": (fp, fp + tp),
                "error_rate": (fp + fn, tn + fp + fn + tp)}[name]
    return (num / den if den else np.nan), num, den


THRESHOLDS = np.linspace(-0.05, 1.2, 20)  # below every score, inside, above every score


def test_curves_equal_rates_from_thresholding_each_row(scored):
    frame, groups, tc = scored
    curves = fc.threshold_curves(tc, RATE_NAMES, THRESHOLDS)
    assert len(curves) == len(RATE_NAMES) * (len(groups.names) + 1) * len(THRESHOLDS)
    y, score = frame["y"].to_numpy(), frame["score"].to_numpy()
    masks = {name: groups.membership[:, j] for j, name in enumerate(groups.names)} | {"All rows": np.ones(len(y), bool)}
    for row in curves.itertuples():
        mask = masks[row.subgroup]
        value, num, den = _literal_rate(y[mask], (score[mask] >= row.threshold).astype(int), row.metric)
        assert (row.numerator, row.denominator) == (num, den)
        np.testing.assert_equal(row.value, value)
    assert set(curves.loc[curves["scope"] == "overall", "subgroup"]) == {"All rows"}
    assert not curves.loc[curves["scope"] == "overall", "small"].any()


CASES = [(metric, distance, reduction, reference)
         for metric in ("statistical_parity", "false_positive_rate", "false_discovery_rate", "equalized_odds")
         for distance in ("diff", "ratio") for reduction in ("max", "mean")
         for reference in ("rest", "overall", "pairwise", "race=A, sex=F")]
CASES += [("p_percent_score", "diff", "max", "rest"), ("equal_opportunity_score", "diff", "max", "rest")]


@pytest.mark.parametrize("metric, distance, reduction, reference", CASES)
@pytest.mark.parametrize("include_small", [False, True])
def test_disparity_curve_equals_the_page_at_each_threshold(scored, metric, distance, reduction, reference,
                                                           include_small):
    frame, groups, tc = scored
    curve = fc.disparity_curve(tc, metric, THRESHOLDS, distance_measure=distance, reduction=reduction,
                               reference=reference, include_small=include_small)
    y, score = frame["y"].to_numpy(), frame["score"].to_numpy()
    for row in curve.itertuples():
        counts = fc.confusion_counts(y, (score >= row.threshold).astype(int), groups)
        if metric == "equalized_odds":
            result = counts.equalized_odds(distance_measure=distance, reduction=reduction, reference=reference,
                                           include_small=include_small)
        elif metric.endswith("_score"):
            rate = "selection_rate" if metric == "p_percent_score" else "true_positive_rate"
            result = counts.ratio_scores(rate, include_small=include_small)
        else:
            result = counts.disparity(metric, distance_measure=distance, reduction=reduction, reference=reference,
                                      include_small=include_small)
        np.testing.assert_allclose(row.value, result.value, rtol=1e-12, atol=0)  # a mean: summation order
        assert row.n_used == result.n_used
        assert row.n_undefined == result.n_undefined
        assert row.n_small_excluded == result.n_small_excluded


def test_rule_band_marks_where_the_bound_holds(scored):
    frame, groups, tc = scored
    rule = fc.Rule(metric="false_positive_rate", distance_measure="diff", bound=0.1)
    band = fc.rule_band(tc, rule, THRESHOLDS)
    curve = fc.disparity_curve(tc, "false_positive_rate", THRESHOLDS, reduction="max")
    np.testing.assert_array_equal(band["holds"], (curve["value"] <= 0.1).to_numpy())
    assert band["holds"].any() and not band["holds"].all()   # this data has both
    four_fifths = fc.rule_band(tc, fc.Rule(metric="p_percent_score", bound=0.8), THRESHOLDS)
    score = fc.disparity_curve(tc, "p_percent_score", THRESHOLDS)["value"].to_numpy()
    np.testing.assert_array_equal(four_fifths["holds"], np.nan_to_num(score, nan=-1) >= 0.8)
    with pytest.raises(ValueError, match="calibration_disparity"):
        fc.rule_band(tc, fc.Rule(metric="calibration_disparity", distance_measure="diff", bound=0.1), THRESHOLDS)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("metric, rate", [("p_percent_score", "selection_rate"),
                                          ("equal_opportunity_score", "true_positive_rate")])
def test_with_an_adverse_outcome_the_scores_compare_the_favourable_prediction(scored, metric, rate, weighted):
    """Deny = 1: the four-fifths rule is judged on the rate of *not* being predicted 1 (and among the 0 labels),
    as the verdicts judge it; the rates' disparities stay on the prediction itself."""
    frame, groups, _ = scored
    y, score = frame["y"].to_numpy(), frame["score"].to_numpy()
    weight = np.random.default_rng(0).integers(1, 4, len(y)).astype(float) if weighted else None
    tc = fc.threshold_counts(y, score, groups, sample_weight=weight)
    curve = fc.disparity_curve(tc, metric, THRESHOLDS, positive_outcome="adverse")
    plain = fc.disparity_curve(tc, metric, THRESHOLDS)
    assert not np.allclose(curve["value"], plain["value"], equal_nan=True)
    for row in curve.itertuples():
        flipped = 1 - y, (score < row.threshold).astype(int)   # the favourable label and prediction as literal 1s
        literal = fc.confusion_counts(*flipped, groups, sample_weight=weight).ratio_scores(rate)
        counts = fc.confusion_counts(y, (score >= row.threshold).astype(int), groups, sample_weight=weight)
        assert literal.value == pytest.approx(counts.favourable("adverse").ratio_scores(rate).value, nan_ok=True)
        np.testing.assert_allclose(row.value, literal.value, rtol=1e-12, atol=0)
        assert (row.n_used, row.n_small_excluded) == (literal.n_used, literal.n_small_excluded)
    band = fc.rule_band(tc, fc.Rule(metric=metric, bound=0.8), THRESHOLDS, positive_outcome="adverse")
    np.testing.assert_array_equal(band["holds"], np.nan_to_num(curve["value"].to_numpy(), nan=-1) >= 0.8)
    same = fc.disparity_curve(tc, "false_positive_rate", THRESHOLDS, positive_outcome="adverse")
    pd.testing.assert_frame_equal(same, fc.disparity_curve(tc, "false_positive_rate", THRESHOLDS))


def test_default_thresholds_are_the_levels_or_an_even_grid(scored):
    _, _, tc = scored
    few = fc.threshold_counts([0, 1, 1, 0], [0.2, 0.7, 0.4, 0.9], ["a", "a", "b", "b"])
    np.testing.assert_array_equal(fc.explorer_thresholds(few), [0.2, 0.4, 0.7, 0.9])
    grid = fc.explorer_thresholds(tc, 11, include=[0.5123])
    assert len(grid) == 12 and 0.5123 in grid and grid[0] == tc.levels[0] and grid[-1] == tc.levels[-1]
    assert np.all(np.diff(grid) > 0)
    with pytest.raises(ValueError, match="n_points"):
        fc.explorer_thresholds(tc, 1)
    with pytest.raises(ValueError, match="threshold_counts"):
        fc.threshold_curves(fc.confusion_counts([0, 1], [0, 1], ["a", "b"]))


def test_per_subgroup_thresholds_equal_thresholding_each_row_at_its_own(scored):
    frame, groups, tc = scored
    y, score = frame["y"].to_numpy(), frame["score"].to_numpy()
    chosen = {name: 0.3 + 0.05 * j for j, name in enumerate(groups.names)}
    per_row = np.array([chosen[name] for name in groups.names])[groups.codes]
    expected = fc.confusion_counts(y, (score >= per_row).astype(int), groups)
    counts = tc.at_each(chosen)
    np.testing.assert_array_equal(counts.member, expected.member)
    np.testing.assert_array_equal(counts.background, expected.background)
    np.testing.assert_array_equal(counts.overall, expected.overall)
    a = counts.disparity("false_positive_rate", reduction="max", ci=0.9, n_boot=200)
    b = expected.disparity("false_positive_rate", reduction="max", ci=0.9, n_boot=200)
    assert (a.value, a.ci_low, a.ci_high) == (b.value, b.ci_low, b.ci_high)   # the same atoms: the same intervals
    same = tc.at_each([0.5] * len(groups.names))
    np.testing.assert_array_equal(same.member, tc.at(0.5).member)
    with pytest.raises(ValueError, match="do not exist"):
        tc.at_each({"nobody": 0.5})
    overlapping = fc.threshold_counts(y, score, fc.Subgroups.from_attributes(frame, ["race", "sex"], intersect=False))
    with pytest.raises(ValueError, match="do not overlap"):
        overlapping.at_each([0.5] * 6)
