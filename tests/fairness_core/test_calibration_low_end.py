"""The low end of the ℓ2 ECE's interval (a test of perfect calibration inverted) and the ratio of ECEs, which has no
interval.

The bootstrap-t low end of a calibrated group's ℓ2 ECE was above 0 in under 1 % of calibrated data sets (coverage
99.4 % at 95 %); :func:`calibrated_low` makes it the smallest squared error a one-sided test does not reject, so it
excludes a true 0 in about 5 % of calibrated groups. The ratio of plug-in ECEs covered 0-92 %: it is shown without
an interval.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit, logit

import fairness_core as fc
from fairness_core._review.result_findings import disparity_findings
from fairness_core._disparity.calibration_errors import NO_RATIO_INTERVAL_NOTE, calibrated_low, squared_errors

N_BINS = 10


def group_stats(rng, n_groups: int, rows: int, shift: float) -> np.ndarray:
    """Calibration sums (n_groups, 4, N_BINS) of groups of `rows` rows, scores ~ Beta(2, 3), labels ~
    Bernoulli(expit(logit(score) + shift)) (shift 0: perfectly calibrated)."""
    score = rng.beta(2.0, 3.0, size=(n_groups, rows))
    y = rng.random((n_groups, rows)) < expit(logit(score) + shift)
    bins = np.minimum((score * N_BINS).astype(int), N_BINS - 1)
    stats = np.zeros((n_groups, 4, N_BINS))
    for g in range(n_groups):
        stats[g, 0] = np.bincount(bins[g], minlength=N_BINS)
        stats[g, 1] = np.bincount(bins[g], score[g], minlength=N_BINS)
        stats[g, 2] = np.bincount(bins[g], y[g], minlength=N_BINS)
        stats[g, 3] = np.bincount(bins[g], (y[g] - score[g]) ** 2, minlength=N_BINS)
    return stats


@pytest.mark.parametrize("rows", [60, 600])
def test_the_low_end_excludes_a_true_zero_at_the_nominal_rate(rows):
    # 400 calibrated groups: the low end is above 0 (the test rejects perfect calibration) in about 5 % of them;
    # the binomial standard error of a 5 % rate over 400 groups is 1.1 %, so 1.5-9 % is a 3-sigma band.
    rng = np.random.default_rng(rows)
    stats = group_stats(rng, 400, rows, 0.0)
    estimate = squared_errors(stats)[0]
    low = calibrated_low(stats, estimate, 0.95, np.random.default_rng(1), n_draws=400)
    assert 0.015 <= np.mean(low > 0) <= 0.09
    assert (low >= 0).all() and (low <= np.maximum(estimate, 0) + 1e-15).all()
    # Where the test does not reject, the low end is exactly 0; where the estimate is at most 0, it never rejects.
    assert (low[estimate <= 0] == 0).all()


def test_the_low_end_finds_a_miscalibrated_group_and_stays_below_its_truth():
    # 200 groups of 1,000 rows off by one logit: true squared error ~0.03 (ℓ2 ECE ~0.18). The low end is above 0 in
    # every group, and above the truth in about 2.5 % of them (at most 6 % here: 3 standard errors).
    rng = np.random.default_rng(3)
    stats = group_stats(rng, 200, 1000, 1.0)
    big = group_stats(np.random.default_rng(4), 1, 400_000, 1.0)[0]
    truth = float(np.sum(big[0] / big[0].sum() * (big[2] / big[0] - big[1] / big[0]) ** 2))
    assert 0.02 < truth < 0.05
    low = calibrated_low(stats, squared_errors(stats)[0], 0.95, np.random.default_rng(5), n_draws=400)
    assert (low > 0).all()
    assert np.mean(low > truth) <= 0.06


def test_nan_estimates_and_seeds():
    stats = group_stats(np.random.default_rng(6), 3, 200, 0.5)
    estimate = squared_errors(stats)[0]
    estimate[1] = np.nan
    low = calibrated_low(stats, estimate, 0.9, np.random.default_rng(7), n_draws=200)
    assert np.isnan(low[1]) and not np.isnan(low[[0, 2]]).any()
    again = calibrated_low(stats, estimate, 0.9, np.random.default_rng(7), n_draws=200)
    np.testing.assert_array_equal(low, again)


def test_errors_table_uses_the_low_end():
    # A large calibrated group and a clearly miscalibrated one: the first's ℓ2 ECE interval starts at 0, the
    # second's above 0 and below its estimate; the disparity's errors table has the same intervals.
    rng = np.random.default_rng(8)
    score = rng.beta(2.0, 3.0, 3000)
    g = np.where(np.arange(3000) < 2000, "calibrated", "off")
    y = rng.random(3000) < np.where(g == "off", expit(logit(score) + 1.0), score)
    errors = fc.calibration_errors(y, score, g, ci=0.95, n_boot=300).set_index("subgroup")
    assert errors.loc["off", "l2_ece_ci_low"] > 0.05
    assert errors.loc["off", "l2_ece_ci_low"] < errors.loc["off", "l2_ece"] < errors.loc["off", "l2_ece_ci_high"]
    assert errors.loc["off", "squared_ce_ci_low"] == pytest.approx(errors.loc["off", "l2_ece_ci_low"] ** 2)
    if errors.loc["calibrated", "squared_ce"] <= 0:
        assert errors.loc["calibrated", "l2_ece_ci_low"] == 0.0
    result = fc.calibration_disparity(y, score, g, ci=0.95, n_boot=300)
    np.testing.assert_allclose(result.errors.set_index("subgroup")["l2_ece_ci_low"], errors["l2_ece_ci_low"])
    table = result.table.set_index("subgroup")
    # The rest of "calibrated" is "off": the comparison's reference side has the same low end as "off"'s own.
    assert table.loc["calibrated", "reference_value_ci_low"] > 0.05


def test_ratio_of_eces_has_no_interval():
    rng = np.random.default_rng(9)
    score = rng.beta(2.0, 3.0, 2000)
    g = rng.choice(["a", "b", "c"], 2000)
    y = rng.random(2000) < np.where(g == "c", expit(logit(score) + 1.0), score)
    result = fc.calibration_disparity(y, score, g, distance_measure="ratio", threshold=1.5, ci=0.95, n_boot=200)
    table = result.table
    assert table[["disparity_ci_low", "disparity_ci_high", "p_value", "subgroup_value_ci_low",
                  "reference_value_ci_high"]].isna().all().all()
    assert table["excludes_parity"].isna().all()
    assert table.attrs["no_interval"] == NO_RATIO_INTERVAL_NOTE
    assert np.isnan(result.ci_low) and np.isnan(result.ci_high)
    # c is off by a logit: its ECE is several times the rest's, and the point value decides the verdict.
    assert result.value > 2.0
    assert result.verdict.status == "fail"
    assert "no interval was available" in result.verdict.sentence
    assert "No interval is given for a ratio of ECEs" in result.interpretation
    # The findings name the largest ratio and claim nothing about parity (there is no interval to claim it).
    findings = [f.sentence for f in disparity_findings(result.disparity, "expected calibration error")]
    assert findings and "ratio" in findings[0]
    assert not any("distinguishable" in f for f in findings)
    # The per-subgroup errors keep their intervals, and the difference keeps its interval.
    assert result.errors["l2_ece_ci_high"].notna().all()
    diff = fc.calibration_disparity(y, score, g, ci=0.95, n_boot=200)
    assert diff.ci_low <= diff.value <= diff.ci_high
    assert "no_interval" not in diff.table.attrs
