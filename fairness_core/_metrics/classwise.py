"""Class-wise bias from rows: per-class recall, precision and F-score per subgroup, and their spread.

The sufficient statistic is a K x K confusion matrix (true class x predicted class) for every
subgroup, :class:`ClassCounts` in :mod:`fairness_core._counts`, taken with one count of the cell ``t * K + p``
per membership pattern. Every per-class score, every choice of subgroups and every reduction is
computed from it (the reduction in :mod:`fairness_core._disparity.average_bias`); only a user-supplied metric callable
needs the rows again, which is why :func:`unweighted_average_bias` lives here. Intervals resample
the same counts: a stratified multinomial bootstrap per membership pattern (``_bootstrap.Atoms``),
every replicate scored and reduced as arrays.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Union

import numpy as np
import pandas as pd

# Re-exported here too (the tests import them from this module).
from .._disparity.average_bias import (CALLABLE_CI_MESSAGE, DIFFERENCE_MESSAGE, METRICS, REDUCTION_TYPE_MESSAGE,  # noqa: F401
                            UnweightedAverageBiasResult, check_reduction, reduce_scores, unweighted_average_bias_of)
from .._stats.bootstrap import check_boot_options
from .._data.checks import check_int, check_option
from .._counts.classes import CLASS_NO_ATOMS_MESSAGE as NO_ATOMS_MESSAGE, ClassCounts, class_counts
from .._counts.rows import (CLASS_LENGTH_MESSAGE as LENGTH_MESSAGE, LABELS_DUPLICATE_MESSAGE, LABELS_TYPE_MESSAGE,
    SUBGROUPS_UNKNOWN_MESSAGE, _encode, _Rows)

METRIC_TYPE_MESSAGE = (
    "The 'metric' parameter of {func} must be 'recall', 'precision', 'fscore' or a callable "
    "(truth, prediction, labels) -> dict of class -> score. Got {got} instead."
)
METRIC_RESULT_MESSAGE = (
    "The 'metric' callable of {func} must return a dict that maps each class to a score. "
    "Got {got} instead. Tip: return e.g. dict(zip(labels, sklearn.metrics.recall_score(truth, "
    "prediction, labels=labels, average=None, zero_division=numpy.nan)))."
)


def _callable_scores(rows: _Rows, order: list[int], metric: Callable, func: str) -> np.ndarray:
    """Scores of a metric callable per chosen subgroup (a loop over subgroups, not rows)."""
    included = rows.included
    # The callable gets the values as objects (ints, strings and bools as given), as always.
    truth, prediction = (values.to_numpy(dtype=object) if isinstance(values, (pd.Series, pd.Index))
                         else np.asarray(values, dtype=object) for values in (rows.truth, rows.prediction))
    out = np.full((len(order), len(rows.labels)), np.nan)
    for a, j in enumerate(order):
        mask = rows.groups.membership[:, j] & included
        got = metric(truth[mask], prediction[mask], list(rows.labels))
        if not hasattr(got, "get"):
            raise TypeError(METRIC_RESULT_MESSAGE.format(func=func, got=type(got).__name__))
        for c, label in enumerate(rows.labels):
            v = got.get(label)
            out[a, c] = np.nan if v is None else float(v)
    return out


def unweighted_average_bias(truth, prediction, protected, *, labels: Optional[Sequence[Any]] = None,
                            subgroups: Optional[Sequence[Any]] = None,
                            metric: Union[str, Callable] = "fscore", reduction: Union[str, Callable] = "std",
                            include_small: bool = False, ci: Optional[float] = None, n_boot: int = 1000,
                            random_state=0, sample_weight=None) -> UnweightedAverageBiasResult:
    """Unweighted average bias: how much per-class performance varies across subgroups, averaged over classes.

    For every class c, the metric is computed on each subgroup's rows; the scores of the
    subgroups taking part that are defined (not NaN) are reduced to one number B_c; the result
    is the unweighted mean of B_c over the classes that have at least two defined scores:

        UAB = (1 / |C'|) * sum_{c in C'} reduction(score_c(g_1), score_c(g_2), ...)

    Per class and subgroup (TP, FP, FN counted one class against the rest):
    recall = TP / (TP + FN), NaN when the class is never true in the subgroup;
    precision = TP / (TP + FP), NaN when it is never predicted;
    fscore = 2 TP / (2 TP + FP + FN), NaN only when it is neither true nor predicted.

    Parameters
    ----------
    truth : array-like of shape (n_samples,)
        True classes: any hashable values; multi-class is fine.
    prediction : array-like of shape (n_samples,)
        Predicted classes.
    protected : Subgroups, or DataFrame / Series / array of protected attributes, n_samples rows
        Attributes mean their observed value combinations, nothing flagged small (min_size=1).
    labels : sequence, optional
        The classes to score, in preferred order. Default: the distinct values of `truth` and
        `prediction`, sorted. Rows whose truth or prediction is missing or not among `labels`
        are left out and counted (``n_excluded``), as in audmetric ("the bias is computed only on
        the specified labels").
    subgroups : sequence of subgroup names, optional
        Selects the subgroups and fixes their order (which decides the sign of
        ``'difference'``). Default: all subgroups, in ``Subgroups.names`` order.
    metric : {'fscore', 'recall', 'precision'} or callable, default='fscore'
        A callable is called once per subgroup as ``metric(truth_g, prediction_g, labels)`` on
        the subgroup's counted rows and must return a dict mapping each class to a score (a
        missing key or NaN means undefined).
    reduction : {'std', 'difference', 'absolute_difference'} or callable, default='std'
        ``'std'``: population standard deviation (ddof=0) of the defined scores.
        ``'difference'``: first minus second defined score in subgroup order (audmetric's
        signed difference); at most two subgroups may take part. Signed per-class differences
        of opposite sign cancel in the mean over classes: a class where the first subgroup
        scores 0.2 higher and one where it scores 0.2 lower give 0, the perfect value.
        ``'absolute_difference'``: |first - second| per class, so that no such cancelling
        happens; the value is then the mean absolute gap over classes (perfect 0, never
        negative), and a per-class interval's lower end is 0 exactly when the interval of the
        signed difference includes 0. A callable receives the list of defined scores in
        subgroup order (at least two) and returns a float.
    include_small : bool, default=False
        Whether small subgroups (fewer counted rows than ``min_size`` of a `Subgroups`) take part.
    ci : float in (0, 1) or None, default=None
        Confidence level of intervals (e.g. 0.95); None computes none. Per (subgroup, class):
        Wilson score intervals for recall and precision (proportions of TP + FN and TP + FP rows)
        and percentile bootstrap intervals for the F-score. Per class and for the result:
        percentile intervals of a stratified multinomial bootstrap. The counted rows of each
        membership pattern (the subgroups a row belongs to) keep their number; their cells
        (true class x predicted class) are redrawn from Multinomial(n_p, counts_p / n_p), which is
        exactly a resample of rows within each pattern, so subgroup sizes stay fixed and a tiny
        subgroup is never resampled away. Each replicate is reduced as the estimate is: a class
        enters a replicate's mean when two of its scores are defined in that replicate; a
        replicate with no such class is undefined, left out and counted (``n_boot_undefined``).
        The std of scores (and any spread) is biased upwards under resampling, so the interval of
        a value is widened where needed to contain the estimate, and a spread's interval holds 0
        when 0 cannot be told apart: a class's std interval has its lower end at 0 where a
        bootstrap test of equal scores (the std of the centred replicates s*_g - s_g) does not
        reject at 1 - `ci`, and an absolute difference's where the signed interval holds 0. For
        'std' and 'absolute_difference' the interval of the mean over the K classes used counts,
        in its low end, only the classes whose spread is distinguishable from 0 at the
        simultaneous level of the K classes (the others at 0), and its high end is the upper
        percentile of the resampled mean spreads (as for the mean of rate disparities:
        ``reduction="mean"`` of :func:`rate_disparity`); for 'difference' it is the percentile
        interval of the resampled means. Coverage measured in
        ``benchmarks/coverage.py`` (docs/coverage.md). Not available with a callable
        `metric` or `reduction` (``CALLABLE_CI_MESSAGE``).
    n_boot : int >= 100, default=1000
        Bootstrap replicates.
    random_state : int, numpy Generator or None, default=0
        Seed of the bootstrap: the same seed gives the same intervals.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row: weighted recall, precision and F-score (each count a sum
        of weights, :func:`class_counts`), small flags from effective sample sizes. Only with a
        named `metric` (a metric callable takes rows). With `ci`, the same intervals from the
        bootstrap that deals the rows with their weights into buckets (and the recall and
        precision columns of the table Wilson's on their effective counts, see
        :meth:`ClassCounts.table`).

    Returns
    -------
    UnweightedAverageBiasResult
        ``value`` (also ``float(result)``), ``per_class`` (``class, value, n_subgroups, note``)
        and ``table`` (``subgroup, class, size, n_true, n_predicted, tp, recall, precision,
        fscore, small, small_reason, note, score, used``). With `ci`: ``ci_low, ci_high, level,
        n_boot, n_boot_undefined``; ``per_class`` adds ``value_ci_low, value_ci_high,
        n_boot_undefined``; ``table`` adds ``<score>_ci_low, <score>_ci_high`` after each of
        ``recall, precision, fscore, score``.

    Raises
    ------
    ValueError
        If the inputs differ in length, `labels` is empty or repeats a class, `subgroups` names
        an unknown subgroup, `metric` or `reduction` is an unknown name,
        ``reduction='difference'`` or ``'absolute_difference'`` would compare more than two
        subgroups (``DIFFERENCE_MESSAGE``),
        `ci`, `n_boot` or `random_state` is invalid, or `ci` is asked for with a callable
        `metric` or `reduction` (``CALLABLE_CI_MESSAGE``).
    TypeError
        If `metric` or `reduction` is neither a name nor a callable, a metric callable does not
        return a dict, or `labels` / `subgroups` is a single string.

    Notes
    -----
    The F-score is the scikit-learn definition 2TP / (2TP + FP + FN). It is 0, not NaN, for a
    subgroup where the class is true but never predicted (precision undefined, recall 0):
    computing F as the harmonic mean 2PR / (P + R) of an undefined P would give NaN there and
    drop that subgroup from the class's spread, hiding exactly the failure a bias metric must
    show. (audmetric's reference code special-cases P = 0 or R = 0 with the other undefined to 0
    and agrees with this definition.) Classes with fewer than two defined scores are skipped and
    listed in ``per_class`` with the reason. Unlike ``sklearn.metrics`` with ``labels=``, rows
    of classes outside `labels` do not count as errors; to count them, map those values to one
    label such as ``"other"`` and list it.

    References
    ----------
    audmetric: audmetric ``unweighted_average_bias`` (equalized odds across classes and
    subgroups). Hardt et al. (2016), "Equality of Opportunity in Supervised Learning".
    Wilson (1927), JASA 22(158); Efron & Tibshirani (1993), "An Introduction to the Bootstrap"
    (percentile intervals).

    Examples
    --------
    The four examples of audmetric:

    >>> unweighted_average_bias([1, 1], [1, 0], ["male", "female"]).value
    0.5
    >>> unweighted_average_bias([1, 1], [1, 0], ["male", "female"], subgroups=["female", "male"],
    ...                         reduction=lambda x: x[0] - x[1]).value
    -1.0
    >>> unweighted_average_bias([0, 1], [1, 0], ["male", "female"], metric="recall").value
    nan
    >>> unweighted_average_bias([0, 0, 0, 0], [1, 1, 0, 0], ["a", "b", "c", "d"], metric="recall").value
    0.5

    Opposite differences cancel in the signed mean; the absolute difference shows them (x has
    recall 1 on class a and 0.5 on b, y the reverse):

    >>> truth, prediction = ["a", "a", "b", "b"] * 2, ["a", "a", "b", "a", "a", "b", "b", "b"]
    >>> groups = ["x"] * 4 + ["y"] * 4
    >>> unweighted_average_bias(truth, prediction, groups, metric="recall", reduction="difference").value
    0.0
    >>> unweighted_average_bias(truth, prediction, groups, metric="recall", reduction="absolute_difference").value
    0.5

    With an interval (a stratified bootstrap of 1,000 replicates, seed 0):

    >>> r = unweighted_average_bias(["a", "b"] * 20, ["a", "b", "b", "b"] * 10, ["x"] * 20 + ["y"] * 20, ci=0.95)
    >>> r.ci_low <= r.value <= r.ci_high
    True
    """
    func = "unweighted_average_bias"
    if not callable(metric):
        if not isinstance(metric, str):
            raise TypeError(METRIC_TYPE_MESSAGE.format(func=func, got=repr(metric)))
        check_option(metric, METRICS, "metric", func)
    check_reduction(reduction, func)
    level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
    if level is not None and (callable(metric) or callable(reduction)):
        raise ValueError(CALLABLE_CI_MESSAGE.format(func=func, what="metric" if callable(metric) else "reduction"))
    if sample_weight is not None:
        if callable(metric):
            raise ValueError(f"{func}: a metric callable cannot take sample_weight (it is given the rows). "
                             "Tip: use metric='recall', 'precision' or 'fscore' with weights.")
    rows = _encode(truth, prediction, protected, labels, func)
    counts = ClassCounts._from_rows(rows, sample_weight, func)
    order = counts.select(subgroups, func=func)
    if callable(metric):
        return reduce_scores(counts, _callable_scores(rows, order, metric, func), order, metric, reduction,
                       include_small, func)
    return unweighted_average_bias_of(counts, metric, reduction, order, include_small, level, n_boot, rng, func)


# --------------------------------------------------------------------------------------------
# Findings in plain words
# --------------------------------------------------------------------------------------------

METRIC_TEXT = {"recall": "recall", "precision": "precision", "fscore": "F-score"}


def _number(v: float) -> str:
    return "undefined" if v is None or np.isnan(v) else f"{v:.3f}"


def _range(low: float, high: float, level: float) -> str:
    """'95 % interval 0.012–0.043' ('... -0.020 to 0.043' when the low end is negative)."""
    joiner = " to " if low < 0 else "–"
    return f"{level * 100:g} % interval {_number(low)}{joiner}{_number(high)}"


def _score_text(row: pd.Series, metric: str, level: Optional[float]) -> str:
    """'0.612 (95 % interval 0.57–0.65; 251 of 410 rows truly of class late)' for one table row."""
    cls = row["class"]
    if metric == "recall":
        counted = f"{int(row['tp']):,} of {int(row['n_true']):,} rows truly of class {cls}"
    elif metric == "precision":
        counted = f"{int(row['tp']):,} of {int(row['n_predicted']):,} rows predicted as {cls}"
    else:
        counted = f"{int(row['n_true']):,} rows truly of class {cls}, {int(row['n_predicted']):,} predicted as it"
    parts = [counted]
    if level is not None and "score_ci_low" in row and not np.isnan(row["score_ci_low"]):
        parts.insert(0, _range(float(row["score_ci_low"]), float(row["score_ci_high"]), level))
    return f"{_number(float(row['score']))} ({'; '.join(parts)})"


def classwise_findings(result: UnweightedAverageBiasResult, *, limit: int = 3) -> list[str]:
    """The class-wise disparities in plain sentences: the classes whose scores differ most, and what was left out.

    For the `limit` classes with the largest absolute reduced value (per_class ``value``): the
    spread (or the difference of the two subgroups) with its interval, then the subgroups with
    the lowest and the highest score, each with its score, interval and the rows behind it
    (the true rows of the class for recall, the rows predicted as it for precision, both for
    the F-score). For ``reduction='difference'`` or ``'absolute_difference'`` (worded "differ
    by") with an interval, the sentence says whether the interval excludes 0 (parity) or the
    difference is "not distinguishable from parity at this sample size". A standard deviation
    is never below 0 and its bootstrap is biased upwards, so no parity statement is made for it. Then one sentence each, when they apply: the classes
    skipped (fewer than two defined scores), the small subgroups left out of the reduction, and
    the resamples in which the value was undefined.

    Parameters
    ----------
    result : UnweightedAverageBiasResult
        From :func:`unweighted_average_bias` or :meth:`ClassCounts.unweighted_average_bias`,
        with or without intervals.
    limit : int >= 1, default=3
        At most this many class sentences.

    Returns
    -------
    list of str
        Plain text (not Markdown or HTML: escape it before rendering). When the value is
        undefined, one sentence saying why.

    Raises
    ------
    TypeError
        If `result` is not an UnweightedAverageBiasResult.
    ValueError
        If `limit` is not an int >= 1.

    Examples
    --------
    >>> truth = ["a", "a", "b", "b"] * 4
    >>> prediction = ["a", "b", "b", "b"] * 2 + ["a", "a", "b", "b"] * 2
    >>> r = unweighted_average_bias(truth, prediction, ["x"] * 8 + ["y"] * 8, metric="recall")
    >>> for sentence in classwise_findings(r):
    ...     print(sentence)  # doctest: +NORMALIZE_WHITESPACE
    Class a: the recall varies across 2 subgroups with a standard deviation of 0.250; lowest in x:
    0.500 (2 of 4 rows truly of class a), highest in y: 1.000 (4 of 4 rows truly of class a).
    Class b: the recall varies across 2 subgroups with a standard deviation of 0.000; 1.000 in every
    subgroup taking part.
    """
    if not isinstance(result, UnweightedAverageBiasResult):
        raise TypeError(f"classwise_findings needs an UnweightedAverageBiasResult. Got {type(result).__name__} "
                        "instead. Tip: pass the result of unweighted_average_bias(...).")
    limit = check_int(limit, 1, "limit", "classwise_findings")
    metric = METRIC_TEXT.get(result.metric, result.metric)
    level = result.level
    if np.isnan(result.value):
        return [f"The unweighted average bias is undefined: {result.reason}."]
    sentences = []
    per, table = result.per_class, result.table
    defined = per[per["value"].notna()]
    ranked = defined.loc[defined["value"].abs().sort_values(ascending=False, kind="stable").index]
    for _, row in ranked.head(limit).iterrows():
        cls = row["class"]
        rows = table[(table["class"] == cls) & table["used"].astype(bool)]
        value = _number(float(row["value"]))
        if result.reduction == "std":
            head = (f"Class {cls}: the {metric} varies across {int(row['n_subgroups'])} subgroups with a standard "
                    f"deviation of {value}")
        elif result.reduction == "difference":
            first, second = rows["subgroup"].iloc[0], rows["subgroup"].iloc[1]
            head = f"Class {cls}: the {metric} of {first} minus that of {second} is {value}"
        elif result.reduction == "absolute_difference":
            first, second = rows["subgroup"].iloc[0], rows["subgroup"].iloc[1]
            head = f"Class {cls}: the {metric} of {first} and that of {second} differ by {value}"
        else:
            head = (f"Class {cls}: the {result.reduction} of the {metric} across {int(row['n_subgroups'])} "
                    f"subgroups is {value}")
        if level is not None and not np.isnan(row["value_ci_low"]):
            low, high = float(row["value_ci_low"]), float(row["value_ci_high"])
            head += f" ({_range(low, high, level)})"
            if result.reduction in ("difference", "absolute_difference"):
                head += ("; not distinguishable from parity at this sample size" if low <= 0 <= high
                         else "; the interval excludes 0 (parity)")
        lo = rows.loc[rows["score"].astype(float).idxmin()]
        hi = rows.loc[rows["score"].astype(float).idxmax()]
        if float(lo["score"]) == float(hi["score"]):
            sentences.append(f"{head}; {_number(float(lo['score']))} in every subgroup taking part.")
            continue
        sentences.append(f"{head}; lowest in {lo['subgroup']}: {_score_text(lo, result.metric, level)}, "
                         f"highest in {hi['subgroup']}: {_score_text(hi, result.metric, level)}.")
    skipped = per[per["value"].isna()]
    if len(skipped):
        names = ", ".join(str(c) for c in skipped["class"])
        sentences.append(f"{len(skipped)} class{'es' if len(skipped) != 1 else ''} skipped ({names}): fewer than "
                         f"two subgroups have a defined {metric}.")
    small = table[table["small"].astype(bool) & ~table["subgroup"].isin(result.subgroups)].drop_duplicates("subgroup")
    if len(small):
        names = ", ".join(f"{s} ({int(n):,} rows)" for s, n in zip(small["subgroup"], small["size"]))
        sentences.append(f"Left out of the reduction as small: {names}.")
    if level is not None and result.n_boot_undefined:
        sentences.append(f"In {result.n_boot_undefined:,} of {result.n_boot:,} resamples no class had two defined "
                         f"scores; they are left out of the interval.")
    return sentences
