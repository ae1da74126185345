"""Rates per subgroup, their disparities and equalized odds, from rows.

The sufficient statistic is the confusion matrix (TN, FP, FN, TP) of every subgroup, of its
background and of all rows, held by :class:`ConfusionCounts` in :mod:`fairness_core._counts` (one bincount).
The functions here validate the rows, count once and call the table's methods; every rate,
disparity, reference and reduction is computed from the counts.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

# Re-exported here too (``_review.findings`` and the tests import them from this module).
from .._counts.confusion import ConfusionCounts, confusion_counts
from .. import _registry as registry
from .._counts.rates import DENOMINATOR_NAMES, DISPARITY_METRICS, FN, FP, RATE_NAMES, RATES, TN, TP, Metric, _rate
from .._stats.intervals import check_ci


def group_rates(y_true, y_pred, subgroups, *, ci=None, sample_weight=None) -> pd.DataFrame:
    """Per-subgroup confusion counts and rates, optionally with Wilson intervals.

    selection_rate = (TP + FP) / N, true_positive_rate = TP / (TP + FN),
    false_positive_rate = FP / (FP + TN), false_negative_rate = FN / (FN + TP),
    false_omission_rate = FN / (FN + TN), false_discovery_rate = FP / (FP + TP),
    error_rate = (FP + FN) / N. A zero denominator gives NaN, and ``note`` says which.

    With `ci`, each rate k / n gets Wilson's score interval

        (k + z²/2) / (n + z²) -/+ z / (n + z²) * sqrt(k (n - k) / n + z² / 4),

    z = ``scipy.stats.norm.ppf(1 - (1 - ci) / 2)``, always within [0, 1] (NaN where n = 0);
    equal to ``statsmodels.stats.proportion.proportion_confint(k, n, 1 - ci, method="wilson")``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_pred : array-like of shape (n_samples,)
        Binary predictions, 0 or 1.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    ci : float in (0, 1) or None, default=None
        Confidence level of the intervals, e.g. 0.95; None adds no interval columns.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row. Every count becomes the sum of the weights of its rows
        (a weighted rate), and every size and small-subgroup check uses Kish's effective sample
        size (sum w)^2 / sum w^2 (see :func:`confusion_counts`). With `ci`, each rate's Wilson
        interval is taken on its effective sample size from the linearized variance of the weighted
        share (``weighted_wilson_interval``; Korn & Graubard 1998).

    Returns
    -------
    DataFrame, one row per subgroup, columns ``subgroup, size, n_positive, n_negative, small,
    tp, fp, tn, fn`` and the seven rates above, then ``note``. With `ci`, every rate column is
    followed by ``<rate>_ci_low, <rate>_ci_high`` (e.g. ``false_positive_rate,
    false_positive_rate_ci_low, false_positive_rate_ci_high``). With `sample_weight` the counts
    are sums of weights (floats), ``size`` is the effective sample size, and a ``weight`` column
    (the subgroup's sum of weights) follows it.

    Raises
    ------
    ValueError
        If `ci` is not None or a number strictly between 0 and 1 (``CI_MESSAGE``), for bad
        labels, predictions, subgroups or weights (negative, NaN, infinite, wrong length).

    References
    ----------
    Hardt et al. (2016); Chouldechova (2017); Oracle AutoMLx fairness metrics.
    Wilson, E. B. (1927), "Probable inference, the law of succession, and statistical inference",
    JASA 22(158), 209-212.
    """
    level = check_ci(ci, "group_rates")
    return ConfusionCounts.compute(y_true, y_pred, subgroups, sample_weight=sample_weight,
                                   func="group_rates").table(ci=level)


def rate_disparity(y_true, y_pred, subgroups, *, metric: Metric, distance_measure: str = "diff",
                   reduction: Optional[str] = "mean", reference: str = "rest", include_small: bool = False,
                   ci=None, n_boot: int = 1000, random_state=0, adjust: Optional[str] = None, sample_weight=None):
    """Disparity of a rate between each subgroup and a reference, optionally reduced.

    For each subgroup with rate a and reference rate b: ``"diff"`` gives |a - b| (perfect 0),
    ``"ratio"`` gives max(a, b) / min(a, b) (perfect 1; both 0 gives 1, one 0 gives inf).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels (unused for ``statistical_parity`` but must have the right length).
    y_pred : array-like of shape (n_samples,)
        Binary predictions.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    metric : {'statistical_parity', 'true_positive_rate', 'false_positive_rate',
              'false_negative_rate', 'false_omission_rate', 'false_discovery_rate', 'error_rate'}
    distance_measure : {'diff', 'ratio'}, default='diff'
    reduction : {'max', 'mean'} or None, default='mean'
        None returns the table of comparisons.
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name, default='rest'
        What each subgroup is compared with: its background, all rows, every other subgroup
        (one row per unordered pair), or one named subgroup.
    include_small : bool, default=False
        Whether comparisons involving a small subgroup enter the reduction. A comparison is small
        when a subgroup in it has fewer rows than ``min_size``, or fewer than ``min_size`` rows in
        the rate's denominator (actual positives for TPR/FNR, actual negatives for FPR, predicted
        positives for FDR, predicted negatives for FOR); ``small_reason`` says which.
    ci : float in (0, 1) or None, default=None
        Confidence level of intervals (e.g. 0.95). The subgroup and reference rates get Wilson
        score intervals; every disparity and the reduced value get percentile intervals from a
        stratified multinomial bootstrap over the confusion cells of each membership pattern
        (rows are never resampled; subgroup sizes stay fixed). ``excludes_parity`` says whether
        the interval of the signed distance (a - b, or ln(a / b)) excludes 0; ``p_value`` is the
        bootstrap p-value of parity. Where parity is not excluded, ``disparity_ci_low`` is the
        parity value (0 or 1).
    n_boot : int >= 100, default=1000
        Bootstrap replicates.
    random_state : int, numpy Generator or None, default=0
        Seed of the bootstrap: the same seed gives the same intervals.
    adjust : {None, 'bonferroni', 'holm', 'fdr_bh'}, default=None
        Multiple-comparison adjustment of the per-comparison intervals and ``excludes_parity``
        (see ``_disparity.compare.add_intervals``); the number of comparisons is in ``table.attrs``.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row. Every count becomes the sum of the weights of its rows
        (a weighted rate), and every size and small-subgroup check uses Kish's effective sample
        size (sum w)^2 / sum w^2 (see :func:`confusion_counts`). With `ci`, the bootstrap deals the rows
        with their weights into buckets and the rates' Wilson and MOVER intervals take their effective
        sample sizes (``_stats.intervals.effective_counts``). The table's ``size``, ``reference_size`` are then effective sizes and ``numerator``,
        ``denominator`` (and the reference's) sums of weights.

    Returns
    -------
    DisparityResult, or DataFrame when ``reduction=None`` (columns ``subgroup, reference, size,
    reference_size, numerator, denominator, reference_numerator, reference_denominator,
    subgroup_value, reference_value, disparity, small, note, small_reason``; with `ci` also
    ``subgroup_value_ci_low/high, reference_value_ci_low/high, disparity_ci_low/high, p_value,
    excludes_parity``). A result carries ``ci_low, ci_high, n_boot, n_boot_undefined``.

    Raises
    ------
    ValueError
        For an unknown metric, distance, reduction, reference or adjustment, non-binary labels,
        a `ci` outside (0, 1), bad weights, or `ci` together with `sample_weight`.

    References
    ----------
    Dwork et al. (2012); Hardt et al. (2016); Oracle AutoMLx fairness metrics.
    """
    y_true = np.zeros(len(np.asarray(y_pred)), np.int8) if y_true is None else y_true
    counts = ConfusionCounts.compute(y_true, y_pred, subgroups, sample_weight=sample_weight, func="rate_disparity")
    return counts.disparity(metric, distance_measure=distance_measure, reduction=reduction,
                            reference=reference, include_small=include_small, ci=ci, n_boot=n_boot,
                            random_state=random_state, adjust=adjust)


def _formula(rate: str) -> str:
    """A rate's formula from its cells: 'FP / (FP + TN)'; N for all four cells."""
    names = {TN: "TN", FP: "FP", FN: "FN", TP: "TP"}
    num, den, _ = RATES[rate]
    top, bottom = " + ".join(names[c] for c in num), " + ".join(names[c] for c in den)
    return f"{top if len(num) == 1 else f'({top})'} / {'N' if len(den) == 4 else f'({bottom})'}"


def _shortcut(spec):
    """``spec.function``: ``rate_disparity(..., metric=spec.name)``, with its own numpydoc docstring."""
    metric, rate = spec.name, DISPARITY_METRICS[spec.name]

    def f(y_true, y_pred, subgroups, *, distance_measure="diff", reduction="mean", reference="rest",
          include_small=False, ci=None, n_boot=1000, random_state=0, adjust=None, sample_weight=None):
        return rate_disparity(y_true, y_pred, subgroups, metric=metric, distance_measure=distance_measure,
                              reduction=reduction, reference=reference, include_small=include_small, ci=ci,
                              n_boot=n_boot, random_state=random_state, adjust=adjust,
                              sample_weight=sample_weight)
    f.__name__ = f.__qualname__ = spec.function
    f.__doc__ = f"""Disparity of the {rate.replace('_', ' ')} {_formula(rate)}.

    The same as ``rate_disparity(..., metric={metric!r})``; see :func:`rate_disparity` for the
    parameters (``y_true``, ``y_pred``, ``subgroups``, ``distance_measure``, ``reduction``,
    ``reference``, ``include_small``, ``ci``, ``n_boot``, ``random_state``, ``adjust``,
    ``sample_weight``: weighted rates and effective sample sizes, not with ``ci``) and the
    return value.

    References
    ----------
    Hardt et al. (2016), "Equality of Opportunity in Supervised Learning"; Oracle AutoMLx fairness metrics.
    """
    return f


# The rate disparities of the metric registry named "<rate>_disparity" are generated here, one shortcut each
# (true_positive_rate_disparity, false_positive_rate_disparity, false_negative_rate_disparity,
# false_omission_rate_disparity, false_discovery_rate_disparity, error_rate_disparity); model_statistical_parity,
# which takes y_true=None, is written below.
SHORTCUTS = tuple(spec.function for spec in registry.specs() if spec.module == __name__
                  and spec.name in DISPARITY_METRICS and spec.function == f"{spec.name}_disparity")
globals().update({spec.function: _shortcut(spec) for spec in registry.specs() if spec.function in SHORTCUTS})


def model_statistical_parity(y_true=None, y_pred=None, subgroups=None, *, distance_measure="diff",
                             reduction="mean", reference="rest", include_small=False, ci=None, n_boot=1000,
                             random_state=0, adjust=None, sample_weight=None):
    """Disparity of the selection rate (TP + FP) / N: statistical parity of the model's output.

    `y_true` is not used and may be None. See :func:`rate_disparity` for the parameters and the
    return value; with `sample_weight` (shape (n_samples,), finite and >= 0; not with `ci`) the
    selection rate is sum_{pred=1} w / sum w and sizes are effective sample sizes.

    References
    ----------
    Dwork et al. (2012), "Fairness Through Awareness"; Oracle AutoMLx fairness metrics.
    """
    if y_pred is None or subgroups is None:
        raise ValueError("model_statistical_parity needs y_pred and subgroups. Got None instead.")
    return rate_disparity(y_true, y_pred, subgroups, metric="statistical_parity", distance_measure=distance_measure,
                          reduction=reduction, reference=reference, include_small=include_small, ci=ci,
                          n_boot=n_boot, random_state=random_state, adjust=adjust, sample_weight=sample_weight)


def equalized_odds(y_true, y_pred, subgroups, *, distance_measure: str = "diff", reduction: Optional[str] = "mean",
                   reference: str = "rest", include_small: bool = False, ci=None, n_boot: int = 1000,
                   random_state=0, adjust: Optional[str] = None, sample_weight=None):
    """Equalized odds: per comparison, the larger of the TPR and FPR disparities, then reduced.

    For each subgroup (or pair): max(TPR disparity, FPR disparity) against the same reference;
    the defined one if the other is NaN; NaN if both are. The reduction is taken over these
    per-comparison values. (Oracle's implementation reduces TPR and FPR first and takes the max
    of the two reduced values; for ``"mean"`` that is a different number. Ours follows the
    definition.)

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Binary labels and predictions.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    distance_measure : {'diff', 'ratio'}, default='diff'
    reduction : {'max', 'mean'} or None, default='mean'
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name, default='rest'
    include_small : bool, default=False
    ci, n_boot, random_state, adjust
        Intervals as in :func:`rate_disparity`. TPR and FPR are resampled jointly (the same
        replicates); a replicate's signed distance is that of the larger of the two disparities.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row. Every count becomes the sum of the weights of its rows
        (a weighted rate), and every size and small-subgroup check uses Kish's effective sample
        size (sum w)^2 / sum w^2 (see :func:`confusion_counts`). With `ci`, intervals as
        :func:`rate_disparity` gives them with weights.

    Returns
    -------
    DisparityResult, or DataFrame when ``reduction=None`` (columns ``subgroup, reference, size,
    reference_size, tpr_disparity, fpr_disparity, disparity, small, note, small_reason``, plus the
    interval columns of :func:`rate_disparity` with `ci`).

    References
    ----------
    Hardt et al. (2016), "Equality of Opportunity in Supervised Learning"; Oracle AutoMLx fairness metrics.
    """
    counts = ConfusionCounts.compute(y_true, y_pred, subgroups, sample_weight=sample_weight, func="equalized_odds")
    return counts.equalized_odds(distance_measure=distance_measure, reduction=reduction, reference=reference,
                                 include_small=include_small, ci=ci, n_boot=n_boot, random_state=random_state,
                                 adjust=adjust)
