"""Dataset metrics: properties of the labels themselves, before any model.

Base rates and the smoothed EDF need only the count of rows and of positive labels per subgroup
(one crosstab), and their bootstrap intervals resample those counts within each membership pattern;
dataset statistical parity is the selection-rate disparity of the labels against themselves (one code
path with :mod:`fairness_core._metrics.rates`, intervals included). Consistency needs the features, and uses
SciPy's k-d tree (scikit-learn's ball tree above 15 features) for the nearest neighbours.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

import numpy as np
import pandas as pd

from .._counts.confusion import ConfusionCounts
from .._data.checks import as_binary
from .._counts.weights import effective_size
from .._stats.intervals import check_ci, weighted_wilson_interval, wilson_interval
from .._subgroups.subgroups import as_subgroups


def _label_counts(y_true, subgroups, func: str):
    """(groups, member (k, 2), background (k, 2), overall (2,)): rows per label 0 / 1."""
    y = as_binary(y_true, "y_true", func)
    groups = as_subgroups(subgroups, len(y), func)
    cell = y.astype(np.intp)
    member, background = groups.crosstab(cell, 2)
    overall = np.bincount(cell, minlength=2).astype(np.float64)
    return groups, member, background, overall


def _base_rate(counts: np.ndarray):
    """Share of positive labels from counts of shape (..., 2) -> (values, notes)."""
    n = counts.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(n > 0, counts[..., 1] / np.where(n > 0, n, 1), np.nan)
    notes = np.where(n > 0, "", "base rate undefined: no rows").astype(object)
    return values, notes


def base_rates(y_true, subgroups, *, ci: Optional[float] = None, sample_weight=None) -> pd.DataFrame:
    """Per-subgroup base rate: the share of positive labels, PL / N.

    With `ci`, the Wilson score interval of PL / N,

        centre = (PL + z^2 / 2) / (N + z^2),  half-width = z / (N + z^2) * sqrt(PL (N - PL) / N + z^2 / 4)

    with z = ``scipy.stats.norm.ppf(1 - (1 - ci) / 2)`` (1.96 for 0.95).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes, n_samples rows
        Attributes mean their observed value combinations, nothing flagged small (min_size=1).
    ci : float in (0, 1) or None, default=None
        Confidence level of the interval, e.g. 0.95; None adds no interval columns.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row: the base rate is sum_{y=1} w / sum w, ``n_positive`` and
        ``n_negative`` are sums of weights, and ``size`` (and ``small``) Kish's effective sample size
        (sum w)^2 / sum w^2. With `ci`, Wilson's interval on the base rate's effective sample size
        (``_stats.intervals.weighted_wilson_interval``: the linearized variance of the weighted share,
        Korn & Graubard 1998; at most the subgroup's rows), which unit weights leave as Wilson's.

    Returns
    -------
    DataFrame, one row per subgroup in ``Subgroups.names`` order, columns ``subgroup, size,
    n_positive, n_negative, base_rate, small, note`` (``note`` says why a rate is NaN: an
    indicator subgroup with no members). With `ci`, ``base_rate_ci_low, base_rate_ci_high``
    follow ``base_rate`` (NaN where the rate is), and ``attrs["ci"]`` holds the level.

    Raises
    ------
    ValueError
        If `y_true` is not binary, the lengths differ, `ci` is not None or a level strictly
        between 0 and 1 (``CI_MESSAGE``), or a weight is bad.

    References
    ----------
    Oracle AutoMLx, "Evaluating a Dataset": statistical parity of a dataset.
    Wilson (1927), "Probable inference, the law of succession, and statistical inference",
    JASA 22(158).

    Examples
    --------
    >>> base_rates([1, 0, 0, 1, 1], ["a", "a", "a", "b", "b"])
      subgroup  size  n_positive  n_negative  base_rate  small note
    0        a     3           1           2   0.333333  False
    1        b     2           2           0   1.000000  False
    >>> base_rates([1, 0, 0, 1, 1], ["a", "a", "a", "b", "b"], ci=0.95)[["base_rate_ci_low", "base_rate_ci_high"]]
       base_rate_ci_low  base_rate_ci_high
    0          0.061492            0.79234
    1          0.342380            1.00000
    """
    level = check_ci(ci, "base_rates")
    if sample_weight is not None:
        counts = ConfusionCounts.compute(y_true, y_true, subgroups, sample_weight=sample_weight, func="base_rates")
        return _base_rate_table(list(counts.names), counts.member[:, [0, 3]], counts.min_size, level,
                                squares=counts.member_sq[:, [0, 3]], rows=counts.row_tables()[0])
    groups, member, _, _ = _label_counts(y_true, subgroups, "base_rates")
    return _base_rate_table(list(groups.names), member, groups.min_size, level)


def base_rates_from_counts(label_counts, *, ci: Optional[float] = None) -> pd.DataFrame:
    """:func:`base_rates` from the labels' count table instead of the rows (e.g. computed by an engine).

    Parameters
    ----------
    label_counts : ConfusionCounts
        The labels counted against themselves, as ``confusion_counts(y_true, y_true, subgroups)``
        (or ``fairness_core.engines.ScoredCounts.label_counts()``): TN are the negatives and TP the
        positives of each subgroup.
    ci : float in (0, 1) or None, default=None
        Confidence level of the Wilson intervals (on the effective sample sizes for weighted counts,
        as :func:`base_rates`).

    Returns
    -------
    DataFrame
        As :func:`base_rates`, equal to it on the same rows.

    Raises
    ------
    ValueError
        For counts with predictions that differ from the labels (FP or FN > 0), or a bad `ci`.
    """
    level = check_ci(ci, "base_rates_from_counts")
    weighted = getattr(label_counts, "weighted", False)
    member = np.asarray(label_counts.member, dtype=np.float64)
    if np.any(member[:, [1, 2]] != 0):
        raise ValueError("base_rates_from_counts needs the labels counted against themselves (no FP or FN). "
                         "Tip: pass confusion_counts(y_true, y_true, subgroups).")
    return _base_rate_table(list(label_counts.names), member[:, [0, 3]], label_counts.min_size, level,
                            squares=np.asarray(label_counts.member_sq)[:, [0, 3]] if weighted else None,
                            rows=label_counts.row_tables()[0] if weighted else None)


def _base_rate_table(names: list, member: np.ndarray, min_size: int, level: Optional[float],
                     squares: Optional[np.ndarray] = None, rows: Optional[np.ndarray] = None) -> pd.DataFrame:
    """The table of :func:`base_rates` from negatives and positives per subgroup, shape (k, 2).

    `squares`: with sample weights (`member` then holds sums of weights), the sums of squared weights of the
    negatives and the positives: sizes are then effective sample sizes, and intervals Wilson's on the rate's,
    truncated at the subgroup's rows when `rows` (the label counts' ``row_tables()[0]``) is given."""
    rate, note = _base_rate(member)
    total = member.sum(axis=1)
    if squares is None:
        sizes, as_count = total, (lambda a: a.astype(np.int64))
    else:
        sizes, as_count = effective_size(total, squares.sum(axis=1)), (lambda a: a)
    columns = {
        "subgroup": names, "size": as_count(sizes),
        "n_positive": as_count(member[:, 1]), "n_negative": as_count(member[:, 0]),
        "base_rate": rate,
    }
    if level is not None:
        columns["base_rate_ci_low"], columns["base_rate_ci_high"] = (
            wilson_interval(member[:, 1], total, level) if squares is None
            else weighted_wilson_interval(member[:, 1], total, squares[:, 1], squares[:, 0], level,
                                          rows=None if rows is None else rows.sum(axis=1)))
    columns.update({"small": sizes < min_size, "note": note})
    table = pd.DataFrame(columns)
    if level is not None:
        table.attrs["ci"] = level  # the level, for chart hovers
    return table


def dataset_statistical_parity(y_true, subgroups, *, distance_measure: str = "diff",
                               reduction: Optional[str] = "mean", reference: str = "rest",
                               include_small: bool = False, ci: Optional[float] = None, n_boot: int = 1000,
                               random_state=0, adjust: Optional[str] = None, sample_weight=None):
    """Statistical parity of a dataset: disparity of the base rates (share of positive labels).

    For each subgroup with base rate a = PL / N and reference base rate b: ``"diff"`` gives
    |a - b| (perfect 0), ``"ratio"`` gives max(a, b) / min(a, b) (perfect 1; both 0 gives 1,
    exactly one 0 gives inf).

    The base rate is the selection rate of the labels taken as predictions, so this is
    :func:`rate_disparity` with ``metric="statistical_parity"`` on ``confusion_counts(y_true,
    y_true, subgroups)`` (one code path for both, intervals included), with the notes worded
    for base rates.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes, n_samples rows
        Attributes mean their observed value combinations, nothing flagged small (min_size=1).
    distance_measure : {'diff', 'ratio'}, default='diff'
    reduction : {'max', 'mean'} or None, default='mean'
        None returns the table of comparisons.
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name, default='rest'
        What each subgroup is compared with: its background, all rows, every other subgroup
        (one row per unordered pair), or one named subgroup.
    include_small : bool, default=False
        Whether comparisons involving a small subgroup enter the reduction (a subgroup, or a
        named or background reference, with fewer rows than ``min_size``).
    ci : float in (0, 1) or None, default=None
        Confidence level of intervals (e.g. 0.95). The subgroup and reference base rates get
        Wilson score intervals; every disparity and the reduced value get percentile intervals
        from a stratified multinomial bootstrap of the label counts of each membership pattern
        (rows are never resampled; subgroup sizes stay fixed, so a tiny subgroup is never
        resampled away). ``excludes_parity`` says whether the interval of the signed distance
        (a - b, or ln(a / b)) excludes 0 and ``p_value`` is the bootstrap p-value of parity;
        where parity is not excluded, ``disparity_ci_low`` is the parity value (0 or 1). The
        interval of a max is widened where needed to contain the estimate.
    n_boot : int >= 100, default=1000
        Bootstrap replicates.
    random_state : int, numpy Generator or None, default=0
        Seed of the bootstrap: the same seed gives the same intervals.
    adjust : {None, 'bonferroni', 'holm', 'fdr_bh'}, default=None
        Multiple-comparison adjustment of the per-comparison intervals and ``excludes_parity``;
        the number of comparisons is in ``table.attrs["n_comparisons"]``.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row: weighted base rates sum_{y=1} w / sum w, numerators and
        denominators as sums of weights, sizes and small flags as Kish's effective sample sizes.
        With `ci`, intervals as :func:`rate_disparity` gives them with weights.

    Returns
    -------
    DisparityResult, or DataFrame when ``reduction=None``. Table columns: ``subgroup,
    reference, size, reference_size, numerator, denominator, reference_numerator,
    reference_denominator, subgroup_value, reference_value, disparity, small, note,
    small_reason`` (numerators are positive labels, denominators rows); with `ci` also
    ``subgroup_value_ci_low/high, reference_value_ci_low/high, disparity_ci_low/high, p_value,
    excludes_parity``. A result with `ci` carries ``ci_low, ci_high, level, n_boot,
    n_boot_undefined, adjust``.

    Raises
    ------
    ValueError
        For non-binary labels, different lengths, an unknown distance, reduction, reference or
        adjustment, or an invalid `ci`, `n_boot` or `random_state`.

    References
    ----------
    Dwork et al. (2012), "Fairness Through Awareness"; Oracle AutoMLx,
    ``dataset_statistical_parity``. Wilson (1927), JASA 22(158).

    Examples
    --------
    >>> y, g = [1, 0, 0, 1, 1], ["a", "a", "a", "b", "b"]
    >>> round(dataset_statistical_parity(y, g, reference="pairwise").value, 6)  # |1/3 - 1|
    0.666667
    >>> dataset_statistical_parity(y, g, distance_measure="ratio", reduction="max").value  # 1 / (1/3)
    3.0
    """
    func = "dataset_statistical_parity"
    counts = ConfusionCounts.compute(y_true, y_true, subgroups, sample_weight=sample_weight, func=func)
    out = counts.disparity("statistical_parity", distance_measure=distance_measure, reduction=reduction,
                           reference=reference, include_small=include_small, ci=ci, n_boot=n_boot,
                           random_state=random_state, adjust=adjust, func=func)
    if isinstance(out, pd.DataFrame):
        return _base_rate_words(out)
    return replace(out, table=_base_rate_words(out.table))


def _base_rate_words(table: pd.DataFrame) -> pd.DataFrame:
    """The comparison table with 'selection rate' written 'base rate' in its notes."""
    table = table.copy()
    for col in ("note", "small_reason"):
        if col in table.columns:
            table[col] = table[col].astype(str).str.replace("selection rate", "base rate", regex=False)
    return table
