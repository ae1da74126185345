"""The unweighted average bias of class counts: per class, the spread of a score across subgroups, averaged.

Every function here reads a ``ClassCounts`` (per-subgroup K x K confusion matrices) and never the
rows: per-class recall, precision or F-score per subgroup, their reduction across the subgroups
taking part (std, or the signed or absolute difference of two), and the unweighted mean over
classes, with bootstrap intervals from the class counts' atoms. ``ClassCounts.unweighted_average_bias`` calls them; the public
function that takes rows (and a metric callable, which needs the rows) is in :mod:`fairness_core._metrics.classwise`.
This module never imports the count tables' module (no import cycle).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Optional

import numpy as np
import pandas as pd

from .._stats.bootstrap import percentile_interval
from .._data.checks import check_option
from .._stats.result import ValueResult

METRICS = ("recall", "precision", "fscore")
REDUCTIONS = ("std", "difference", "absolute_difference")
DIFFERENCES = ("difference", "absolute_difference")
REDUCTION_TYPE_MESSAGE = (
    "The 'reduction' parameter of {func} must be 'std', 'difference', 'absolute_difference' or a callable "
    "taking the list of scores (in subgroup order) and returning a float. Got {got} instead."
)
CALLABLE_CI_MESSAGE = (
    "{func} cannot give an interval for a {what} callable: the bootstrap resamples the per-subgroup "
    "confusion matrices and evaluates every replicate at once, which a Python callable cannot take part "
    "in. Tip: use metric='recall', 'precision' or 'fscore' and reduction='std' or 'difference', or ci=None."
)
DIFFERENCE_MESSAGE = (
    "reduction={reduction!r} of {func} compares exactly two subgroups, but {n} take part: {names}. "
    "Tip: pass subgroups=[a, b] to choose the two and their order (the result is a minus b), "
    "or use reduction='std'."
)


@dataclass(frozen=True)
class UnweightedAverageBiasResult(ValueResult):
    """Unweighted average bias with its per-class spreads and the per-subgroup scores behind them.

    Attributes
    ----------
    value : float
        The unweighted mean of the per-class reductions; NaN (see `reason`) when no class has
        at least two defined subgroup scores.
    per_class : DataFrame
        One row per class, in label order: ``class``, ``value`` (the reduction of that class's
        scores, NaN when skipped), ``n_subgroups`` (defined scores that entered it), ``note``
        (why a class was skipped). With intervals, ``value_ci_low, value_ci_high`` follow
        ``value`` and ``n_boot_undefined`` (replicates in which the class had fewer than two
        defined scores) follows ``n_subgroups``.
    table : DataFrame
        One row per (subgroup, class) for the chosen subgroups in their order: the columns of
        :meth:`ClassCounts.table` (with its interval columns when intervals were asked for) plus
        ``score`` (the chosen metric; with intervals followed by ``score_ci_low, score_ci_high``)
        and ``used`` (whether the score entered the reduction).
    metric : str
        ``'recall'``, ``'precision'``, ``'fscore'``, or the callable's name.
    reduction : str
        ``'std'``, ``'difference'``, ``'absolute_difference'``, or the callable's name.
    subgroups : tuple of str
        The subgroups that took part, in order (small ones left out unless included).
    n_classes_used : int
        Classes that entered the mean.
    n_excluded : int
        Rows left out because their truth or prediction is missing or not among the labels.
    reason : str
        Why `value` is NaN; empty otherwise.
    ci_low, ci_high : float
        Bootstrap interval of `value` (NaN unless an interval was asked for, or when `value` is
        NaN): for 'difference' the percentile interval of the resampled means; for 'std' and
        'absolute_difference' a mean of spreads whose low end counts only the classes whose spread
        is distinguishable from 0 at the classes' simultaneous level (see :func:`unweighted_average_bias`).
    level : float or None
        Confidence level of the intervals (None: no intervals).
    n_boot : int
        Bootstrap replicates drawn (0: none).
    n_boot_undefined : int
        Replicates in which the value was undefined (no class with two defined scores); they are
        left out of the interval.
    """

    value: float
    per_class: pd.DataFrame
    table: pd.DataFrame
    metric: str
    reduction: str
    subgroups: tuple
    n_classes_used: int
    n_excluded: int
    reason: str
    ci_low: float = float("nan")
    ci_high: float = float("nan")
    level: Optional[float] = None
    n_boot: int = 0
    n_boot_undefined: int = 0


def _name(obj: Any) -> str:
    return obj if isinstance(obj, str) else getattr(obj, "__name__", repr(obj))


def check_reduction(reduction: Any, func: str):
    """`reduction` if it is a callable or one of ``REDUCTIONS``, else TypeError / ValueError."""
    if callable(reduction):
        return reduction
    if isinstance(reduction, str):
        return check_option(reduction, REDUCTIONS, "reduction", func)
    raise TypeError(REDUCTION_TYPE_MESSAGE.format(func=func, got=repr(reduction)))


def _participants(counts, order: list[int], include_small: bool) -> np.ndarray:
    """Which of the chosen subgroups take part in the reduction (small ones only when included)."""
    return np.ones(len(order), bool) if include_small else ~counts.small[order]


def reduce_scores(counts, scores: np.ndarray, order: list[int], metric: Any, reduction: Any,
                  include_small: bool, func: str, table: Optional[pd.DataFrame] = None) -> UnweightedAverageBiasResult:
    """Reduce per-(chosen subgroup, class) `scores` (shape (len(order), n_classes)) across subgroups.

    `table` is the full per-(subgroup, class) table (default ``counts.table()``).
    """
    reduction = check_reduction(reduction, func)
    part = _participants(counts, order, include_small)
    part_names = [counts.names[i] for i, ok in zip(order, part) if ok]
    if reduction in DIFFERENCES and len(part_names) > 2:
        raise ValueError(DIFFERENCE_MESSAGE.format(func=func, reduction=reduction, n=len(part_names),
                                                   names=", ".join(map(repr, part_names))))
    metric_name = _name(metric)
    values, n_sub, notes, kept = [], [], [], []
    used = np.zeros_like(scores, dtype=bool)
    for c in range(len(counts.labels)):
        defined = part & ~np.isnan(scores[:, c])
        got = [float(v) for v in scores[defined, c]]
        n_sub.append(len(got))
        kept.append(len(got) >= 2)
        if len(got) < 2:
            values.append(np.nan)
            notes.append(f"skipped: {len(got)} subgroup(s) with a defined {metric_name}; at least two are needed")
            continue
        used[:, c] = defined
        if reduction == "std":
            value = float(np.std(got))
        elif reduction == "difference":
            value = got[0] - got[1]
        elif reduction == "absolute_difference":
            value = abs(got[0] - got[1])
        else:
            value = float(reduction(got))
        values.append(value)
        notes.append("" if not np.isnan(value) else "the reduction returned NaN")
    values = np.asarray(values, dtype=np.float64)
    kept = np.asarray(kept, dtype=bool)
    if kept.any():
        value, reason = float(np.mean(values[kept])), ""
        if np.isnan(value):
            reason = "the reduction returned NaN for a class"
    else:
        value = float("nan")
        reason = (f"no class has a defined {metric_name} in at least two of the subgroups taking part "
                  f"({len(part_names)}: {', '.join(part_names) or 'none'})")
    table = counts.table() if table is None else table
    attrs = dict(table.attrs)
    c = len(counts.labels)
    rows = (np.asarray(order, dtype=np.intp)[:, None] * c + np.arange(c)[None, :]).reshape(-1)
    table = table.iloc[rows].reset_index(drop=True)
    table["score"] = scores.reshape(-1)
    table["used"] = used.reshape(-1)
    table.attrs = attrs
    per_class = pd.DataFrame({
        "class": pd.Series(np.asarray(counts.labels, dtype=object), dtype=object).infer_objects(),
        "value": values, "n_subgroups": np.asarray(n_sub, dtype=np.int64), "note": notes,
    })
    return UnweightedAverageBiasResult(value=value, per_class=per_class, table=table, metric=metric_name,
                                       reduction=_name(reduction), subgroups=tuple(part_names),
                                       n_classes_used=int(kept.sum()), n_excluded=counts.n_excluded,
                                       reason=reason)


def _reduce_replicates(samples: np.ndarray, reduction: str) -> tuple[np.ndarray, np.ndarray]:
    """The reduction of every bootstrap replicate, as arrays (no loop over replicates or classes).

    Parameters
    ----------
    samples : ndarray of shape (n_boot, n_participants, n_classes)
        Scores of the subgroups taking part, in their order; NaN where undefined.
    reduction : {'std', 'difference', 'absolute_difference'}

    Returns
    -------
    per_class : ndarray of shape (n_boot, n_classes)
        Per class: the population standard deviation of the defined scores, or first minus second
        (its absolute value for 'absolute_difference'; at most two subgroups take part); NaN with
        fewer than two defined scores.
    value : ndarray of shape (n_boot,)
        Mean of the defined per-class values; NaN when no class has two defined scores.
    """
    x = np.asarray(samples, dtype=np.float64)
    defined = ~np.isnan(x)
    n = defined.sum(axis=1)
    if reduction == "std":
        filled = np.where(defined, x, 0.0)
        mean = filled.sum(axis=1) / np.maximum(n, 1)
        dev = np.where(defined, x - mean[:, None, :], 0.0)
        per_class = np.sqrt((dev * dev).sum(axis=1) / np.maximum(n, 1))
    elif x.shape[1] == 2:
        per_class = x[:, 0, :] - x[:, 1, :]
        if reduction == "absolute_difference":
            per_class = np.abs(per_class)
    else:
        per_class = np.full((x.shape[0], x.shape[2]), np.nan)
    kept = n >= 2
    per_class = np.where(kept, per_class, np.nan)
    n_kept = kept.sum(axis=1)
    value = np.where(n_kept > 0, np.where(kept, per_class, 0.0).sum(axis=1) / np.maximum(n_kept, 1), np.nan)
    return per_class, value


def _contain(low, high, value):
    """Widen a percentile interval to contain its estimate (NaN estimate: NaN interval)."""
    value = np.asarray(value, dtype=np.float64)
    low, high = np.fmin(low, value), np.fmax(high, value)
    return np.where(np.isnan(value), np.nan, low), np.where(np.isnan(value), np.nan, high)


def _absolute_interval(samples: np.ndarray, estimate: np.ndarray, level: float):
    """Per-class interval of |first - second| from the interval of the signed difference.

    The percentile interval [l, h] of the signed replicates (widened to contain the signed
    estimate) is folded onto |d|: [l, h] when l > 0, [-h, -l] when h < 0, and [0, max(-l, h)]
    when it straddles 0, so the lower end is the parity value 0 exactly when the signed interval
    does not exclude parity (as for the rate disparities |a - b|).
    """
    signed, _ = _reduce_replicates(samples, "difference")
    low, high, undefined = percentile_interval(signed, level)
    point, _ = _reduce_replicates(np.asarray(estimate, dtype=np.float64)[None], "difference")
    low, high = _contain(low, high, point[0])
    folded_low = np.where(low > 0, low, np.where(high < 0, -high, 0.0))
    folded_high = np.fmax(np.abs(low), np.abs(high))
    nan = np.isnan(low) | np.isnan(high)
    return np.where(nan, np.nan, folded_low), np.where(nan, np.nan, folded_high), undefined


def _std_interval(samples: np.ndarray, estimate: np.ndarray, level: float):
    """Per-class interval of the standard deviation of the scores across subgroups.

    The percentile interval of the replicates' standard deviations (widened to contain the
    estimate), whose lower end is set to 0 where a bootstrap test of equal scores does not reject
    at 1 - `level`: the null replicates are the standard deviations of the centred scores
    s*_g - s_g (their spread when every subgroup has the same true score), and the p-value is
    (1 + #{null >= estimate}) / (1 + defined null replicates). A standard deviation is never
    below 0 and its replicates lie above the estimate's truth, so a percentile interval alone
    never holds a true value of 0 (``benchmarks/coverage.py`` measured 0 % coverage there).

    Parameters
    ----------
    samples : ndarray of shape (n_boot, n_participants, n_classes)
    estimate : ndarray of shape (n_participants, n_classes)
        The estimated scores (NaN where undefined).
    level : float in (0, 1)

    Returns
    -------
    low, high, n_undefined : ndarrays of shape (n_classes,)
    """
    per_class, _ = _reduce_replicates(samples, "std")
    point, _ = _reduce_replicates(np.asarray(estimate, dtype=np.float64)[None], "std")
    low, high, undefined = percentile_interval(per_class, level)
    low, high = _contain(low, high, point[0])
    null, _ = _reduce_replicates(samples - np.asarray(estimate, dtype=np.float64)[None], "std")
    defined = ~np.isnan(null)
    p = (1.0 + np.sum(defined & (null >= point[0] - 1e-12), axis=0)) / (1.0 + defined.sum(axis=0))
    low = np.where(p > 1.0 - level, np.where(np.isnan(low), np.nan, 0.0), low)
    return low, high, undefined


def _class_interval(samples: np.ndarray, estimate: np.ndarray, level: float, reduction: str):
    """Per-class interval of `reduction` at `level`: (low, high, n_undefined), each of shape (n_classes,)."""
    if reduction == "absolute_difference":
        return _absolute_interval(samples, estimate, level)
    if reduction == "std":
        return _std_interval(samples, estimate, level)
    per_class, _ = _reduce_replicates(samples, reduction)
    point, _ = _reduce_replicates(np.asarray(estimate, dtype=np.float64)[None], reduction)
    low, high, undefined = percentile_interval(per_class, level)
    low, high = _contain(low, high, point[0])
    return low, high, undefined


def _joined_interval(samples: np.ndarray, estimate: np.ndarray, level: float, reduction: str,
                     values: np.ndarray) -> tuple[float, float]:
    """Interval of the mean over classes of a spread that is never negative (std, absolute difference).

    The construction of the mean of rate disparities (``_disparity.compare.reduced_interval``): with
    L the simultaneous level of the K classes (``_stats.simultaneous.simultaneous_level`` of their
    signed differences, or of their standard deviations), the classes whose interval at L excludes 0
    count with their replicates in the low end and at 0 otherwise; the high end is the upper
    percentile of the replicates' mean spread. Its lower end is 0 when no class's spread is
    distinguishable from 0. A percentile interval of resampled means of spreads never holds a true
    value of 0; joining the classes' intervals at the Bonferroni level covered 99-100 %.
    """
    from .._stats.simultaneous import simultaneous_level
    from .compare import mean_interval

    used = ~np.isnan(values)
    if not used.any():
        return np.nan, np.nan
    per_class, _ = _reduce_replicates(samples, reduction)
    ranked = _reduce_replicates(samples, "difference")[0] if reduction == "absolute_difference" else per_class
    joint = simultaneous_level(ranked[:, used], level)
    low_joint = _class_interval(samples, estimate, joint, reduction)[0][used]
    low, high, _ = _class_interval(samples, estimate, level, reduction)
    low, high = low[used], high[used]
    if np.isnan(low).any() or np.isnan(high).any() or np.isnan(low_joint).any():
        return np.nan, np.nan
    return mean_interval(low_joint, low, high, per_class[:, used], 0.0, level)


def unweighted_average_bias_of(counts, metric: str, reduction: Any, order: list[int], include_small: bool,
                               level: Optional[float], n_boot: int, rng, func: str) -> UnweightedAverageBiasResult:
    """Unweighted average bias of a built-in metric, with bootstrap intervals when `level` is set."""
    scores = counts.scores()[metric][order]
    if level is None:
        return reduce_scores(counts, scores, order, metric, reduction, include_small, func)
    reduction = check_reduction(reduction, func)
    reps = counts._replicates(tuple(dict.fromkeys((metric, "fscore"))), n_boot, rng, func)
    table = counts._table(level, percentile_interval(reps["fscore"], level)[:2])
    result = reduce_scores(counts, scores, order, metric, reduction, include_small, func, table=table)
    part = _participants(counts, order, include_small)
    samples = reps[metric][:, np.asarray(order, dtype=np.intp)[part]]
    _, value_reps = _reduce_replicates(samples, reduction)
    values = result.per_class["value"].to_numpy(dtype=np.float64)
    low, high, undefined = _class_interval(samples, scores[part], level, reduction)
    per_class = result.per_class.copy()
    at = per_class.columns.get_loc("value") + 1
    per_class.insert(at, "value_ci_low", low)
    per_class.insert(at + 1, "value_ci_high", high)
    per_class.insert(per_class.columns.get_loc("n_subgroups") + 1, "n_boot_undefined", undefined.astype(np.int64))
    per_class.attrs["ci"] = level
    table = result.table.copy()
    at = table.columns.get_loc("score") + 1
    table.insert(at, "score_ci_low", table[f"{metric}_ci_low"].to_numpy())
    table.insert(at + 1, "score_ci_high", table[f"{metric}_ci_high"].to_numpy())
    table.attrs["ci"] = level
    v_low, v_high, v_undefined = percentile_interval(value_reps[:, None], level)
    if reduction != "difference":
        v_low[0], v_high[0] = _joined_interval(samples, scores[part], level, reduction, values)
    v_low, v_high = _contain(v_low, v_high, [result.value])
    return replace(result, per_class=per_class, table=table, ci_low=float(v_low[0]), ci_high=float(v_high[0]),
                   level=level, n_boot=n_boot, n_boot_undefined=int(v_undefined[0]))
