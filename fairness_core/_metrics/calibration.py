"""Calibration per subgroup from rows: reliability diagrams, ECE, MCE, Brier score and their disparity.

Sufficient statistic: for every subgroup, its background and all rows, and for every bin, the
row count, the sum of predicted probabilities, the sum of labels and the sum of squared errors,
held by :class:`CalibrationCounts` in :mod:`fairness_core._counts` (one bin index per row, one crosstab). The
errors and the ECE disparity are computed from it in :mod:`fairness_core._disparity.calibration_errors`. The functions
here validate the rows, count once and call the table's methods. ECE = sum_b |sum_y_b - sum_p_b| / n,
which equals sum_b (n_b / n) * |fraction_positive_b - mean_predicted_b|.

Intervals: a stratified multinomial bootstrap over *calibration atoms*, never over rows.
An atom is a (membership pattern, sub-bin, label) cell: each bin is split into ``SUB_BINS``
equal-width sub-bins, and every cell keeps its row count and its mean predicted probability and
mean squared error. A replicate redraws each pattern's cell counts from
Multinomial(n_pattern, counts / n_pattern) (``_bootstrap.Atoms``), and rebuilds each bin's sums
as resampled count x the cell's mean; see :meth:`CalibrationCounts.error_table`. With sample weights the
atoms keep their rows, which the bootstrap deals with their weights into buckets, and the reliability
diagram's intervals are Wilson's on each bin's effective sample size.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

# Re-exported here too (the tests import them from this module).
from .._disparity.calibration_errors import (THRESHOLD_MESSAGE, CalibrationDisparityResult, _errors,  # noqa: F401
                                  calibration_rule)
from .._data.checks import as_binary
from .._counts.binning import SUB_BINS, Strategy
from .._counts.calibration import (CALIBRATION_NO_ATOMS_MESSAGE as NO_ATOMS_MESSAGE, CalibrationAtoms,
    CalibrationCounts, calibration_counts)
from .._stats.intervals import check_ci


def reliability_diagram(y_true, y_prob, subgroups, *, n_bins: int = 10, strategy: Strategy = "uniform",
                        ci: Optional[float] = None, sample_weight=None) -> pd.DataFrame:
    """Reliability-diagram data per subgroup and bin.

    Bins are [low, high) except the last, which is closed, so a score of exactly 1.0 is counted.
    Uniform edges are exact (``arange(n_bins + 1) / n_bins``), so a score exactly on an inner edge
    i / n_bins (0.3 with ten bins, say) goes to the upper bin, bin i. Bin b of a subgroup holds
    ``count`` rows, ``mean_predicted`` (mean probability, the confidence) and
    ``fraction_positive`` (share of positive labels, the accuracy); both NaN for an empty bin.
    With `ci`, the Wilson score interval of fraction_positive = positives / count,

        centre = (k + z^2 / 2) / (n + z^2),  half-width = z / (n + z^2) * sqrt(k (n - k) / n + z^2 / 4)

    with k the positives and n the rows in the bin and z = ``norm.ppf(1 - (1 - ci) / 2)``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_prob : array-like of shape (n_samples,)
        Predicted probabilities in [0, 1].
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    n_bins : int >= 1, default=10
    strategy : {'uniform', 'quantile'}, default='uniform'
    ci : float in (0, 1) or None, default=None
        Confidence level of the Wilson interval of ``fraction_positive``, e.g. 0.95; None adds no
        interval columns.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row: every bin sum is weighted (the bin's mass sum w, the
        weighted mean score and weighted share of positives), sizes and small flags use Kish's
        effective sample size (see :func:`calibration_counts`). With `ci`, Wilson's interval of
        the weighted share on the bin's effective sample size
        (``_stats.intervals.weighted_wilson_interval``; unit weights give Wilson's).

    Returns
    -------
    DataFrame with n_subgroups * n_bins rows and columns ``subgroup, bin, bin_lower, bin_upper,
    count, mean_predicted, fraction_positive``; with `ci`, also ``fraction_positive_ci_low,
    fraction_positive_ci_high`` (NaN for an empty bin), and the level in ``attrs["ci"]``. With
    `sample_weight`, ``count`` is the bin's sum of weights, ``mean_predicted`` = sum w p / sum w and
    ``fraction_positive`` = sum w y / sum w.

    Raises
    ------
    ValueError
        If a score is outside [0, 1], an option is invalid, `ci` is not None or a level
        strictly between 0 and 1 (``CI_MESSAGE``), or a weight is bad.

    References
    ----------
    Guo et al. (2017), "On Calibration of Modern Neural Networks"; ExFairness
    Calibration; the bins of ``sklearn.calibration.calibration_curve`` (which puts a score on an
    inner edge in the lower bin). Wilson (1927), "Probable inference, the law of succession, and
    statistical inference", JASA 22(158).

    Examples
    --------
    A score of exactly 0.3 sits on the edge 3 / 10 and goes to bin 3, [0.3, 0.4):

    >>> table = reliability_diagram([1, 0], [0.3, 0.7], ["a", "a"], ci=0.95)
    >>> table.loc[table["count"] > 0, ["bin", "bin_lower", "count", "fraction_positive"]]
       bin  bin_lower  count  fraction_positive
    3    3        0.3      1                1.0
    7    7        0.7      1                0.0
    >>> round(float(table.loc[3, "fraction_positive_ci_low"]), 4)  # Wilson, 1 of 1
    0.2065
    """
    level = check_ci(ci, "reliability_diagram")
    return CalibrationCounts.compute(y_true, y_prob, subgroups, n_bins=n_bins, strategy=strategy,
                                     sample_weight=sample_weight,
                                     func="reliability_diagram").reliability_table(ci=level)


def calibration_errors(y_true, y_prob, subgroups, *, n_bins: int = 10, strategy: Strategy = "uniform",
                       min_per_group: int = 5, ci: Optional[float] = None, n_boot: int = 1000,
                       random_state=0, sample_weight=None) -> pd.DataFrame:
    """Per-subgroup expected calibration error (plug-in and ℓ2), MCE and Brier score, with optional intervals.

    ECE = sum_b (n_b / n) * |fraction_positive_b - mean_predicted_b| (the plug-in, ExFairness);
    squared_ce = sum_b (n_b / n) [(fraction_positive_b - mean_predicted_b) ** 2 -
    fraction_positive_b (1 - fraction_positive_b) / (n_b - 1)] over bins of two rows or more, the
    debiased squared calibration error (unbiased whatever the true miscalibration, so often below
    0 for a calibrated group); l2_ece = sqrt(max(squared_ce, 0)); MCE = the largest gap over
    non-empty bins; Brier = mean((y_prob - y_true) ** 2).

    Parameters
    ----------
    y_true, y_prob, subgroups, n_bins, strategy
        As in :func:`reliability_diagram`.
    min_per_group : int, default=5
        A subgroup with fewer rows gets NaN ECE, ℓ2 ECE and MCE with a note.
    ci : float in (0, 1) or None, default=None
        Confidence level of bootstrap intervals (e.g. 0.95) of the squared error (studentized; its
        low end the smallest squared error a test of its size does not reject, 0 unless perfect
        calibration is rejected: ``_disparity.calibration_errors.calibrated_low``),
        the ℓ2 ECE (its square root) and the Brier score (percentile), from a seeded multinomial
        bootstrap over (membership pattern, bin, sub-bin, label) counts, stratified by membership
        pattern, so subgroup sizes stay fixed. The plug-in ECE and the MCE have none (both lie
        above their truth by the bins' noise; their intervals covered 0 % and 0-9 % of calibrated
        groups). See :meth:`CalibrationCounts.error_table`.
    n_boot : int >= 100, default=1000
        Bootstrap replicates.
    random_state : int, numpy Generator or None, default=0
        Seed of the bootstrap: the same seed gives the same intervals.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row: every bin sum is weighted (the bin's mass sum w, the
        weighted mean score and weighted share of positives), sizes and small flags use Kish's
        effective sample size (see :func:`calibration_counts`).
        Then ECE = sum_b |sum w y - sum w p| / sum w (bins weighted by their mass), the squared
        error's variance term counts each bin as its Kish effective rows, MCE the largest weighted
        gap, Brier = sum w (p - y)^2 / sum w (``sklearn.metrics.brier_score_loss`` with
        ``sample_weight``); `min_per_group` is compared with the effective size. With `ci`, the
        bootstrap deals the rows with their weights into buckets.

    Returns
    -------
    DataFrame, one row per subgroup: ``subgroup, size, n_positive, n_negative, small,
    small_reason, ece, l2_ece, squared_ce, mce, brier_score, note``; with `ci`, ``<col>_ci_low,
    <col>_ci_high`` after each of ``l2_ece, squared_ce, brier_score`` and the level in
    ``attrs["ci"]``.

    Raises
    ------
    ValueError
        If a score is outside [0, 1] or an option is invalid.

    References
    ----------
    Naeini et al. (2015); Guo et al. (2017); Brier (1950); Kumar, Liang & Ma (2019), "Verified
    uncertainty calibration"; Efron & Tibshirani (1993), *An Introduction to the Bootstrap*.
    """
    return CalibrationCounts.compute(y_true, y_prob, subgroups, n_bins=n_bins, strategy=strategy,
                                     sample_weight=sample_weight, func="calibration_errors").error_table(
        min_per_group=min_per_group, ci=ci, n_boot=n_boot, random_state=random_state)


def expected_calibration_error(y_true, y_prob, *, n_bins: int = 10, strategy: Strategy = "uniform",
                               sample_weight=None) -> float:
    """Expected calibration error ECE = sum_b (n_b / n) * |fraction_positive_b - mean_predicted_b|.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_prob : array-like of shape (n_samples,)
        Predicted probabilities in [0, 1].
    n_bins : int >= 1, default=10
    strategy : {'uniform', 'quantile'}, default='uniform'
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0: ECE = sum_b |sum_{i in b} w_i (y_i - p_i)| / sum w, each bin weighed by
        its mass.

    Returns
    -------
    float
        In [0, 1]; 0 is perfect calibration. NaN for no rows (or weights summing to 0).

    Raises
    ------
    ValueError
        For bad labels, scores, options or weights.

    References
    ----------
    Naeini et al. (2015); Guo et al. (2017); ExFairness.

    Examples
    --------
    >>> expected_calibration_error([0, 1], [0.25, 0.75], n_bins=2)
    0.25
    """
    y = as_binary(y_true, "y_true", "expected_calibration_error")
    counts = CalibrationCounts.compute(y, y_prob, np.zeros(len(y)), n_bins=n_bins, strategy=strategy,
                                       sample_weight=sample_weight, func="expected_calibration_error")
    return float(_errors(counts.overall[None], 1, _overall_size(counts))[0][0])


def _overall_size(counts):
    """The effective size of all rows, as `_errors` takes it, with weights; None without."""
    return np.array([counts.overall_size]) if counts.weighted else None


def maximum_calibration_error(y_true, y_prob, *, n_bins: int = 10, strategy: Strategy = "uniform",
                              sample_weight=None) -> float:
    """Maximum calibration error MCE = max over non-empty bins of |fraction_positive_b - mean_predicted_b|.

    Parameters
    ----------
    y_true, y_prob, n_bins, strategy
        As in :func:`expected_calibration_error`.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0: each bin's gap is |sum w y - sum w p| / sum w.

    Returns
    -------
    float
        In [0, 1]; NaN for no rows (or weights summing to 0).

    Raises
    ------
    ValueError
        For bad labels, scores, options or weights.

    References
    ----------
    Naeini et al. (2015); ExFairness.
    """
    y = as_binary(y_true, "y_true", "maximum_calibration_error")
    counts = CalibrationCounts.compute(y, y_prob, np.zeros(len(y)), n_bins=n_bins, strategy=strategy,
                                       sample_weight=sample_weight, func="maximum_calibration_error")
    return float(_errors(counts.overall[None], 1, _overall_size(counts))[1][0])


def calibration_disparity(y_true, y_prob, subgroups, *, n_bins: int = 10, strategy: Strategy = "uniform",
                          threshold: Optional[float] = None, min_per_group: int = 5, distance_measure: str = "diff",
                          reduction: Optional[str] = "max", reference: str = "rest", include_small: bool = False,
                          ci: Optional[float] = None, n_boot: int = 1000, random_state=0,
                          adjust: Optional[str] = None, debias: bool = True, sample_weight=None):
    """Disparity of the expected calibration error between subgroups, with its policy verdict.

    Each subgroup's calibration error is compared with its reference's; the comparisons are
    reduced, and the reduced value is judged by a policy rule. The plug-in ECE of a small group is
    biased upwards (roughly by sqrt(bins / n): every bin's |gap| grows with its noise), so by
    default a difference compares *debiased squared calibration errors* (Kumar, Liang & Ma 2019;
    :func:`fairness_core._disparity.calibration_errors.squared_errors`),

        CE² = Σ_b (n_b / n) [(ȳ_b − p̄_b)² − ȳ_b (1 − ȳ_b) / (n_b − 1)],

    unbiased for the binned squared calibration error whatever the true miscalibration (0 in
    expectation for a calibrated group of any size, the true squared gap for a miscalibrated
    one). Each side is shown as its ℓ2 ECE sqrt(max(CE², 0)), and a comparison as the *excess ℓ2
    ECE* sign(d) sqrt(|d|) of the difference d = CE²_a − CE²_b: a subgroup whose squared error
    exceeds a calibrated reference's by e² has an excess of e, so the rule's 0.1 keeps the scale of
    an ECE, and a verdict on the excess is exactly one on d. With ``debias=False`` (and always for
    ``"ratio"``) the comparison is ExFairness's plug-in one: for two groups exactly |ECE_A − ECE_B|.
    The reduced value is judged by a policy rule in the units of the distance
    (:func:`calibration_rule`): by default, for ``"diff"``, 0.1 (``DEFAULT_RULES``'
    ``calibration_diff``, ExFairness); for ``"ratio"`` no rule applies unless a `threshold` >= 1 is
    given. A ratio is never judged against a difference bound. With intervals the verdict is
    'pass' (the whole interval within the bound), 'fail' (the whole interval beyond it) or
    'inconclusive' (the interval straddles it); without, the point estimate decides.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_prob : array-like of shape (n_samples,)
        Predicted probabilities in [0, 1].
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    n_bins : int >= 1, default=10
    strategy : {'uniform', 'quantile'}, default='uniform'
    threshold : float or None, default=None
        Largest acceptable disparity, in the units of `distance_measure`: in [0, 1] for
        ``"diff"`` (None: 0.1), >= 1 for ``"ratio"`` (None: no verdict).
    min_per_group : int, default=5
        A side with fewer rows has an undefined ECE; its comparisons are left out (and counted).
    distance_measure : {'diff', 'ratio'}, default='diff'
    reduction : {'max', 'mean'} or None, default='max'
        None returns the comparison table.
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name, default='rest'
    include_small : bool, default=False
        Whether comparisons with a subgroup of fewer than ``min_size`` rows enter the reduction.
    ci : float in (0, 1) or None, default=None
        Confidence level of intervals (e.g. 0.95), from a seeded, stratified multinomial bootstrap
        over (membership pattern, bin, sub-bin, label) counts (rows are never resampled; see
        :meth:`CalibrationCounts.error_table` for what is resampled and the approximation it
        makes). Debiased errors and their differences take the studentized bootstrap's interval
        (each replicate's deviation from the bootstrap's truth, the resampled rows' plug-in, over
        its own standard error, times the estimate's; a difference's variance the sum of its
        sides'), a debiased error's low end from a test of its size (``calibrated_low``); plug-in
        ECEs the percentile interval. A ratio of ECEs has none (NaN, and ``table.attrs
        ['no_interval']`` says why: its bootstrap interval covered 0-92 % at 95 %), so a bound on
        it is judged on the point value. ``excludes_parity`` says whether
        the interval of the signed distance excludes 0, and ``p_value`` is the bootstrap p-value of
        parity; where parity is not excluded, ``disparity_ci_low`` is the parity value (0 or 1).
        Replicates in which the reduced value is undefined are left out of its interval and
        counted in ``n_boot_undefined``.
    n_boot : int >= 100, default=1000
        Bootstrap replicates.
    random_state : int, numpy Generator or None, default=0
        Seed of the bootstrap: the same seed gives the same intervals.
    adjust : {None, 'bonferroni', 'holm', 'fdr_bh'}, default=None
        Multiple-comparison adjustment of the per-comparison intervals and ``excludes_parity``.
    debias : bool, default=True
        Compare debiased squared calibration errors on the ℓ2 scale (a difference only).
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row: weighted ECEs (each bin weighed by its mass, see
        :func:`calibration_errors`), ``size``/``reference_size`` and small flags as Kish's effective
        sample sizes, and `min_per_group` compared with the effective size. The debiased error
        counts each bin as its Kish effective number of rows n*_b = (Σw)² / Σw² in its variance
        term, so unit weights give the unweighted value and integer weights are not repeated rows.
        With `ci`, the bootstrap deals the rows with their weights into buckets
        (:meth:`CalibrationCounts.error_table`).

    Returns
    -------
    CalibrationDisparityResult, or DataFrame when ``reduction=None``: columns ``subgroup,
    reference, size, reference_size, subgroup_value, reference_value, disparity, small, note,
    small_reason, passes, verdict`` (the values are ℓ2 ECEs when ``debias``, with
    ``subgroup_squared, reference_squared``, the debiased squared errors, after them, and
    ``disparity`` the excess ℓ2 ECE; plug-in ECEs otherwise; ``passes`` is the point estimate
    within the bound, ``verdict`` the rule's status; both None when no rule applies); with `ci`
    also ``subgroup_value_ci_low/high, reference_value_ci_low/high, disparity_ci_low/high,
    p_value, excludes_parity``. ``table.attrs["debiased"]`` says which comparison was made.

    Raises
    ------
    ValueError
        If a score is outside [0, 1] (a 1-10 risk score is not a probability), an option is
        invalid, or `threshold` is not in the units of `distance_measure` (``THRESHOLD_MESSAGE``:
        e.g. 0.1 with ``"ratio"``).

    References
    ----------
    Pleiss et al. (2017), "On Fairness and Calibration"; Kleinberg et al. (2017); ExFairness
    (ExFairness.Metrics.Calibration). The debiased squared calibration error: Kumar, Liang & Ma
    (2019), "Verified uncertainty calibration", NeurIPS; Roelofs et al. (2022), "Mitigating bias in
    calibration error estimation". The studentized bootstrap: Efron & Tibshirani (1993), *An
    Introduction to the Bootstrap*, ch. 12.

    Examples
    --------
    Subgroup a (scores 0.1, 0.3, 0.7, 0.9 with labels 0, 0, 1, 1) has ECE 0.2; subgroup b (score
    0.4, three in four positive) has ECE |0.75 - 0.4| = 0.35:

    >>> y = [0, 0, 1, 1] * 10 + [0, 1, 1, 1] * 10
    >>> p = [0.1, 0.3, 0.7, 0.9] * 10 + [0.4] * 40
    >>> groups = ["a"] * 40 + ["b"] * 40
    >>> plug_in = calibration_disparity(y, p, groups, n_bins=5, debias=False)
    >>> round(plug_in.value, 3), plug_in.verdict.status
    (0.15, 'fail')

    Debiased: b's one bin has (0.75 - 0.4)² - 0.75 · 0.25 / 39 = 0.1177; a's four bins of ten rows
    of one label each have no label variance and gaps of 0.1, 0.3, 0.3 and 0.1, so 0.05: ℓ2 ECEs of
    0.224 and 0.343 and an excess of sqrt(0.1177 - 0.05) = 0.260:

    >>> result = calibration_disparity(y, p, groups, n_bins=5)
    >>> result.errors[["subgroup", "ece", "l2_ece", "squared_ce"]].round(4).values.tolist()
    [['a', 0.2, 0.2236, 0.05], ['b', 0.35, 0.3431, 0.1177]]
    >>> round(result.value, 3), result.verdict.status
    (0.26, 'fail')
    >>> ratio = calibration_disparity(y, p, groups, distance_measure="ratio")
    >>> round(ratio.value, 3), ratio.verdict  # no default bound on a ratio of ECEs
    (1.75, None)
    >>> calibration_disparity(y, p, groups, distance_measure="ratio", threshold=2.0).verdict.status
    'pass'
    """
    counts = CalibrationCounts.compute(y_true, y_prob, subgroups, n_bins=n_bins, strategy=strategy,
                                       sample_weight=sample_weight, func="calibration_disparity")
    return counts.disparity(threshold=threshold, min_per_group=min_per_group, distance_measure=distance_measure,
                            reduction=reduction, reference=reference, include_small=include_small, ci=ci,
                            n_boot=n_boot, random_state=random_state, adjust=adjust, debias=debias)
