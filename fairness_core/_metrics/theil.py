"""Theil indices of the benefit b = y_pred - y_true + 1 (Speicher et al. 2018), from rows.

The functions here validate the rows, count the confusion cells once (:class:`ConfusionCounts`
in :mod:`fairness_core._counts`) and call the table's methods; the indices themselves are computed from the
counts in :mod:`fairness_core._disparity.inequality`, which also holds :class:`TheilResult`.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from .._stats.bootstrap import Atoms
from .._data.checks import as_binary, check_length
from .._counts.confusion import ConfusionCounts
from .._counts.weights import check_sample_weight
# Re-exported here too (the tests and ``_integrations.sklearn_scorer`` import them from this module).
from .._disparity.inequality import (DISTANCE_MESSAGE, OVERLAP_MESSAGE, ZERO_MEAN_NOTE, TheilResult,  # noqa: F401
                          check_distance_measure, individual_theil_of, theil_of_counts,
                          theil_replicates)


def individual_theil_index(y_true, y_pred, *, subgroups=None, ci=None, n_boot: int = 1000, random_state=0,
                           sample_weight=None):
    """Individual Theil index of the benefit b = y_pred - y_true + 1 over all rows.

    T = (1 / n) * sum_i (b_i / mu) * ln(b_i / mu), with mu the mean benefit and 0 * ln 0 = 0.
    The benefit of a row is 0 for a false negative, 1 for a true negative or true positive and
    2 for a false positive, so T is computed from the four confusion counts. Perfect predictions
    give 0 (every benefit is 1); larger is more unequal (at most ln n).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1 (or False / True).
    y_pred : array-like of shape (n_samples,)
        Binary predictions, 0 or 1 (or False / True).
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes, optional
        Used only to stratify the bootstrap (the index itself is over all rows).
    ci : float in (0, 1) or None, default=None
        Confidence level of a percentile bootstrap interval. The bootstrap is a multinomial draw
        of the confusion counts (TN, FP, FN, TP), exactly the counts of a resample of rows: with
        `subgroups`, stratified by membership pattern (the confusion cells of each pattern of
        subgroup memberships are redrawn with the pattern's size fixed, as every other interval
        here); without, one draw over all rows. Rows are never resampled.
    n_boot : int >= 100, default=1000
        Bootstrap replicates.
    random_state : int, numpy Generator or None, default=0
        Seed: the same seed gives the same interval.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row: each confusion cell is the sum of its rows' weights, so
        the index is the weighted Theil index T = sum_i (w_i / W) (b_i / mu) ln(b_i / mu) with mu the
        weighted mean benefit. With `ci`, the bootstrap deals the rows with their weights into buckets
        and reweights the buckets (``_stats.bootstrap.BucketSplit.of_rows``), the percentile interval
        of its replicates.

    Returns
    -------
    float, or TheilResult when `ci` is given
        The Theil index; NaN when there are no rows or the mean benefit is 0 (every row a false
        negative), where it is undefined. With `ci`, a :class:`TheilResult` (``value, ci_low,
        ci_high, level, n_boot, n_boot_undefined, note``; ``float(result)`` is the value): the
        float return without `ci` is kept for backward compatibility.

    Raises
    ------
    ValueError
        If a label or prediction is not 0/1, the lengths differ, `ci` is outside (0, 1) or
        `n_boot` < 100.

    References
    ----------
    Speicher et al. (2018), "A Unified Approach to Quantifying Algorithmic Unfairness: Measuring
    Individual & Group Unfairness via Inequality Indices", KDD; Oracle AutoMLx.
    Efron & Tibshirani (1993), "An Introduction to the Bootstrap", ch. 13 (percentile interval).

    Examples
    --------
    One false positive (benefit 2) and three correct rows (benefit 1): mu = 5/4, so
    T = (3 * 0.8 * ln 0.8 + 1.6 * ln 1.6) / 4.

    >>> round(individual_theil_index([0, 0, 1, 1], [1, 0, 1, 1]), 6)
    0.054115
    >>> individual_theil_index([0, 1, 1], [0, 1, 1])
    0.0
    >>> r = individual_theil_index([0, 0, 1, 1] * 25, [1, 0, 1, 0] * 25, ci=0.95)
    >>> r.ci_low <= r.value <= r.ci_high, r.n_boot
    (True, 1000)
    """
    func = "individual_theil_index"
    if subgroups is not None:
        return _count(y_true, y_pred, subgroups, func, sample_weight).individual_theil_index(
            ci=ci, n_boot=n_boot, random_state=random_state)
    y = as_binary(y_true, "y_true", func)
    p = as_binary(y_pred, "y_pred", func)
    check_length(p, len(y), "y_pred", func)
    w = check_sample_weight(sample_weight, len(y), func)
    counts = np.bincount((2 * y + p).astype(np.intp), weights=w, minlength=4).astype(np.float64)
    if ci is None:
        return float(theil_of_counts(counts)[0])
    # One stratum: every row in the same (empty) membership pattern.
    none = np.zeros((1, 0), dtype=bool)
    rows = None if w is None else (np.zeros(len(y), np.intp), (2 * y + p).astype(np.intp), w)   # weighted: by rows
    whole = ConfusionCounts([], np.zeros((0, 4)), np.zeros((0, 4)), counts, 0,
                            atoms=Atoms(counts[None], none, none, rows=rows))
    return individual_theil_of(whole, ci=ci, n_boot=n_boot, random_state=random_state, func=func)


def _count(y_true, y_pred, subgroups, func, sample_weight=None):
    return ConfusionCounts.compute(y_true, y_pred, subgroups, sample_weight=sample_weight, func=func)


def between_group_theil_index(y_true, y_pred, subgroups, *, ci=None, n_boot: int = 1000, random_state=0,
                              sample_weight=None):
    """Between-group Theil index: the Theil index after replacing each benefit by its subgroup's mean.

    With subgroup sizes n_g, mean benefits mu_g and overall mean benefit mu:
    T_between = sum_g (n_g / n) (mu_g / mu) ln(mu_g / mu), with 0 * ln 0 = 0. It is the part of
    :func:`individual_theil_index` explained by the subgroups (the rest is the size- and
    benefit-weighted sum of the within-subgroup indices). Perfect predictions give 0.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_pred : array-like of shape (n_samples,)
        Binary predictions, 0 or 1.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
        Disjoint subgroups that cover every row: attribute values or their intersections
        (protected attributes passed directly are intersected). Identity indicator subgroups or
        several attributes with ``intersect=False`` are refused. Small subgroups count fully:
        they are part of the population.
    ci : float in (0, 1) or None, default=None
        Confidence level of a percentile bootstrap interval: the confusion counts of every
        subgroup (for disjoint subgroups, each membership pattern is one subgroup) are redrawn
        from a multinomial with the subgroup's size fixed, so n_g never changes and only the
        mean benefits mu_g vary.
    n_boot : int >= 100, default=1000
    random_state : int, numpy Generator or None, default=0
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row: each confusion cell is the sum of its rows' weights, so
        the index is the weighted Theil index T = sum_i (w_i / W) (b_i / mu) ln(b_i / mu) with mu the
        weighted mean benefit;
        each subgroup's share n_g / n is its share of the weight. With `ci`, the bootstrap of the
        rows with their weights dealt into buckets, each replicate with its own shares of the weight.

    Returns
    -------
    float, or TheilResult when `ci` is given
        NaN when there are no rows or the overall mean benefit is 0. With `ci`, a
        :class:`TheilResult` (``value, ci_low, ci_high, level, n_boot, n_boot_undefined,
        note``); without, the float as before.

    Raises
    ------
    ValueError
        If the subgroups may overlap or leave rows out (``OVERLAP_MESSAGE``), labels /
        predictions are not 0/1, or for bad `ci` / `n_boot`.

    References
    ----------
    Speicher et al. (2018), KDD, section on the between-group component; Oracle AutoMLx.

    Examples
    --------
    Group a gets benefits (1, 1), group b (2, 0): equal means, so no between-group inequality.

    >>> between_group_theil_index([0, 1, 0, 1], [0, 1, 1, 0], ["a", "a", "b", "b"])
    0.0
    """
    return _count(y_true, y_pred, subgroups, "between_group_theil_index",
                  sample_weight).between_group_theil_index(
        ci=ci, n_boot=n_boot, random_state=random_state)


def theil_index(y_true, y_pred, subgroups, *, distance_measure=None, reduction: Optional[str] = "mean",
                reference: str = "rest", include_small: bool = False, ci=None, n_boot: int = 1000,
                random_state=0, adjust: Optional[str] = None, sample_weight=None):
    """Two-group between-group Theil index of each subgroup against its reference, then reduced.

    For each comparison the rows are split into two groups, the subgroup (n1 rows, mean benefit
    mu1) and its reference (n2, mu2), and the between-group Theil index of that split is

        T = sum_{g=1,2} (n_g / (n1 + n2)) (mu_g / mu) ln(mu_g / mu),  mu = (n1 mu1 + n2 mu2) / (n1 + n2),

    with benefit b = y_pred - y_true + 1 (0 for a false negative, 1 when correct, 2 for a false
    positive) and 0 * ln 0 = 0. It is 0 when both groups have the same mean benefit (perfect
    predictions give 0 everywhere) and grows as their error profiles diverge.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_pred : array-like of shape (n_samples,)
        Binary predictions, 0 or 1.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    distance_measure : None
        Accepted only as None: the Theil index is itself the disparity (Oracle AutoMLx raises too).
    reduction : {'max', 'mean'} or None, default='mean'
        Over comparisons with a defined index (NaN ones are counted in ``n_undefined``); None
        returns the table.
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name, default='rest'
        The second group: the subgroup's background (``"rest"``); all rows (``"overall"``, the
        whole population taken as the second group, so n2 = n); the other subgroup of every
        unordered pair (``"pairwise"``, only the two subgroups' rows); or a named subgroup.
    include_small : bool, default=False
        Whether comparisons involving a small subgroup enter the reduction.
    ci : float in (0, 1) or None, default=None
        Confidence level of intervals. A stratified multinomial bootstrap redraws the confusion
        counts of every membership pattern (rows are never resampled; n1 and n2 stay fixed), and
        every comparison's index, both mean benefits and the reduced value are recomputed on
        each replicate. ``disparity_ci_low/high`` is the percentile interval of the index's
        replicates. The index is never below 0, so its interval cannot straddle parity; the test
        of parity uses the signed difference of the mean benefits mu1 - mu2 instead (T = 0
        exactly when mu1 = mu2): ``excludes_parity`` says whether its percentile interval
        excludes 0, and ``p_value`` is its bootstrap p-value. Where parity is not excluded,
        ``disparity_ci_low`` is 0. ``subgroup_value_ci_low/high`` and
        ``reference_value_ci_low/high`` are percentile intervals of the two mean benefits from
        the same replicates.
    n_boot : int >= 100, default=1000
        Bootstrap replicates.
    random_state : int, numpy Generator or None, default=0
        Seed of the bootstrap: the same seed gives the same intervals.
    adjust : {None, 'bonferroni', 'holm', 'fdr_bh'}, default=None
        Multiple-comparison adjustment of the per-comparison intervals and ``excludes_parity``,
        as in :func:`rate_disparity`.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row: each confusion cell is the sum of its rows' weights, so
        the index is the weighted Theil index T = sum_i (w_i / W) (b_i / mu) ln(b_i / mu) with mu the
        weighted mean benefit;
        each side's share is its share of the weight, while ``size`` and ``reference_size``
        show effective sample sizes. With `ci`, the bootstrap of the rows with their weights dealt
        into buckets (each replicate's sides weigh by their own sums of weights); the percentile
        intervals and parity test as without weights.

    Returns
    -------
    DisparityResult, or DataFrame when ``reduction=None``
        The table has columns ``subgroup, reference, size, reference_size, subgroup_value,
        reference_value, disparity, small, note``: ``subgroup_value`` and ``reference_value``
        are the two mean benefits and ``disparity`` is T. With `ci` each value is followed by
        ``<value>_ci_low, <value>_ci_high``, and ``disparity`` by ``disparity_ci_low,
        disparity_ci_high, p_value, excludes_parity``; the result carries ``ci_low, ci_high,
        level, n_boot, n_boot_undefined, adjust``. ``DisparityResult.distance_measure`` is None.

    Raises
    ------
    ValueError
        If `distance_measure` is not None (``DISTANCE_MESSAGE``), or for an unknown reduction,
        reference or adjustment, non-binary labels / predictions, or bad `ci` / `n_boot`.

    Notes
    -----
    A comparison is NaN (with a ``note``) when a side has no rows or when both sides are all
    false negatives (pooled mean benefit 0). Oracle AutoMLx's pairwise code adds
    ln(n / (n_i + n_j)) to every pair's index, so its value is never 0 with three or more
    subgroups; ours is the index of the two-group split itself and is 0 for perfect predictions,
    as Oracle AutoMLx's definition says.

    References
    ----------
    Speicher et al. (2018), "A Unified Approach to Quantifying Algorithmic Unfairness", KDD;
    Oracle AutoMLx ``theil_index`` / ``TheilIndexScorer``.

    Examples
    --------
    Group a: one true negative and one false positive (mean benefit 3/2); group b: two true
    positives (mean 1). T = 1/2 (6/5) ln(6/5) + 1/2 (4/5) ln(4/5).

    >>> r = theil_index([0, 0, 1, 1], [0, 1, 1, 1], ["a", "a", "b", "b"], reduction="max")
    >>> round(r.value, 6), r.worst
    (0.020136, ('a', 'rest'))
    """
    check_distance_measure(distance_measure)
    counts = _count(y_true, y_pred, subgroups, "theil_index", sample_weight)
    return counts.theil_index(reduction=reduction, reference=reference, include_small=include_small, ci=ci,
                              n_boot=n_boot, random_state=random_state, adjust=adjust)
