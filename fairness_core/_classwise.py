"""Class-wise bias: per-class recall, precision and F-score per subgroup, and their spread (§5.4).

The sufficient statistic is a K x K confusion matrix (true class x predicted class) for every
subgroup, taken with one crosstab of the cell ``t * K + p``. Every per-class score, every choice
of subgroups and every reduction is computed from it; only a user-supplied metric callable needs
the rows again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np
import pandas as pd

from ._checks import check_option
from ._subgroups import Subgroups, _value_label, as_subgroups

METRICS = ("recall", "precision", "fscore")
REDUCTIONS = ("std", "difference")

DIMENSION_MESSAGE = (
    "The '{param}' parameter of {func} must be one-dimensional (one class value per row). "
    "Got an array of shape {shape} instead."
)
LENGTH_MESSAGE = (
    "{func}: '{param}' has {got} rows but 'truth' has {expected}. "
    "Tip: pass arrays that describe the same rows, in the same order."
)
LABELS_TYPE_MESSAGE = (
    "The 'labels' parameter of {func} must be a list of class values. Got {got!r} instead. "
    "Tip: for a single class write labels=[{got!r}]."
)
LABELS_EMPTY_MESSAGE = "The 'labels' parameter of {func} must list at least one class. Got an empty list instead."
LABELS_DUPLICATE_MESSAGE = (
    "The 'labels' parameter of {func} must list each class once. Got {dups} more than once."
)
METRIC_TYPE_MESSAGE = (
    "The 'metric' parameter of {func} must be 'recall', 'precision', 'fscore' or a callable "
    "(truth, prediction, labels) -> dict of class -> score. Got {got} instead."
)
METRIC_RESULT_MESSAGE = (
    "The 'metric' callable of {func} must return a dict that maps each class to a score. "
    "Got {got} instead. Tip: return e.g. dict(zip(labels, sklearn.metrics.recall_score(truth, "
    "prediction, labels=labels, average=None, zero_division=numpy.nan)))."
)
REDUCTION_TYPE_MESSAGE = (
    "The 'reduction' parameter of {func} must be 'std', 'difference' or a callable taking the list "
    "of scores (in subgroup order) and returning a float. Got {got} instead."
)
SUBGROUPS_TYPE_MESSAGE = (
    "The 'subgroups' parameter of {func} must be a list of subgroup names. Got {got!r} instead. "
    "Tip: write subgroups=[{got!r}, ...]."
)
SUBGROUPS_UNKNOWN_MESSAGE = (
    "The 'subgroups' parameter of {func} names subgroups that are not in the data: {unknown}. "
    "Subgroups: {names}."
)
SUBGROUPS_DUPLICATE_MESSAGE = (
    "The 'subgroups' parameter of {func} must name each subgroup once. Got {dups} more than once."
)
DIFFERENCE_MESSAGE = (
    "reduction='difference' of {func} compares exactly two subgroups, but {n} take part: {names}. "
    "Tip: pass subgroups=[a, b] to choose the two and their order (the result is a minus b), "
    "or use reduction='std'."
)


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------


def _as_values(values: Any, param: str, func: str) -> np.ndarray:
    """A 1-D object array of class values (any hashable), keeping ints, strings and bools as given."""
    if isinstance(values, (pd.Series, pd.Index)):
        arr = values.to_numpy(dtype=object)
    else:
        arr = np.asarray(values, dtype=object)
    if arr.ndim != 1:
        raise ValueError(DIMENSION_MESSAGE.format(param=param, func=func, shape=arr.shape))
    return arr


def _sorted_labels(values: np.ndarray) -> list:
    """Distinct non-missing values, sorted (by their text when the types cannot be compared)."""
    uniques = pd.unique(values[~pd.isna(values)]) if len(values) else []
    try:
        return sorted(uniques)
    except TypeError:
        return sorted(uniques, key=str)


def _check_labels(labels: Any, func: str) -> list:
    if isinstance(labels, (str, bytes)) or not isinstance(labels, (Sequence, np.ndarray, pd.Index, pd.Series)):
        raise TypeError(LABELS_TYPE_MESSAGE.format(func=func, got=labels))
    labels = list(labels)
    if not labels:
        raise ValueError(LABELS_EMPTY_MESSAGE.format(func=func))
    index = pd.Index(labels, dtype=object)
    if not index.is_unique:
        dups = ", ".join(repr(v) for v in pd.unique(index[index.duplicated()].to_numpy(dtype=object)))
        raise ValueError(LABELS_DUPLICATE_MESSAGE.format(func=func, dups=dups))
    return labels


def _n_rows(obj: Any) -> int:
    if isinstance(obj, Subgroups):
        return obj.n_samples
    return len(obj) if hasattr(obj, "__len__") else len(np.asarray(obj))


@dataclass(frozen=True)
class _Rows:
    """Encoded rows: class codes (-1 = missing / not among the labels), subgroups and labels."""

    truth: np.ndarray
    prediction: np.ndarray
    t_code: np.ndarray
    p_code: np.ndarray
    groups: Subgroups
    labels: list

    @property
    def included(self) -> np.ndarray:
        return (self.t_code >= 0) & (self.p_code >= 0)


def _encode(truth, prediction, protected, labels, func: str) -> _Rows:
    t = _as_values(truth, "truth", func)
    p = _as_values(prediction, "prediction", func)
    for param, obj in (("prediction", p), ("protected", protected)):
        if _n_rows(obj) != len(t):
            raise ValueError(LENGTH_MESSAGE.format(func=func, param=param, got=_n_rows(obj), expected=len(t)))
    groups = as_subgroups(protected, len(t), func)
    labels = _sorted_labels(np.concatenate([t, p])) if labels is None else _check_labels(labels, func)
    index = pd.Index(labels, dtype=object)
    t_code = index.get_indexer(t)
    p_code = index.get_indexer(p)
    # Missing values are never a class, even when a label compares equal to them.
    t_code[pd.isna(t)] = -1
    p_code[pd.isna(p)] = -1
    return _Rows(t, p, t_code, p_code, groups, labels)


# --------------------------------------------------------------------------------------------
# The sufficient statistic
# --------------------------------------------------------------------------------------------


def _divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


@dataclass(frozen=True)
class ClassCounts:
    """Per-subgroup confusion matrices of a (multi-class) classifier, behind every class-wise score.

    Build it with :func:`class_counts`; then call :meth:`table` for per-class recall, precision
    and F-score per subgroup, or :meth:`unweighted_average_bias` with any metric, subgroups and
    reduction, without touching the rows again.

    Attributes
    ----------
    names : list of str, length n_subgroups
        Subgroup labels, in ``Subgroups.names`` order.
    labels : list, length n_classes
        The classes, in the order of the matrices' rows and columns.
    member : ndarray of float, shape (n_subgroups, n_classes, n_classes)
        ``member[g, i, j]``: rows of subgroup g whose true class is ``labels[i]`` and whose
        predicted class is ``labels[j]``.
    overall : ndarray of float, shape (n_classes, n_classes)
        The same over all rows.
    excluded : ndarray of float, shape (n_subgroups,)
        Rows of each subgroup left out because their truth or prediction is missing or not among
        `labels`.
    n_excluded : int
        Rows left out in total (counted once even when subgroups overlap).
    min_size : int
        Subgroups with fewer counted rows are flagged small.
    """

    names: list
    labels: list
    member: np.ndarray
    overall: np.ndarray
    excluded: np.ndarray
    n_excluded: int
    min_size: int

    @classmethod
    def _from_rows(cls, rows: _Rows) -> "ClassCounts":
        k = len(rows.labels)
        cell = np.where(rows.included, rows.t_code * k + rows.p_code, k * k).astype(np.intp)
        member, _ = rows.groups.crosstab(cell, k * k + 1)
        overall = np.bincount(cell, minlength=k * k + 1).astype(np.float64)
        names = list(rows.groups.names)
        return cls(names, list(rows.labels), member[:, :k * k].reshape(len(names), k, k),
                   overall[:k * k].reshape(k, k), member[:, k * k], int(overall[k * k]), rows.groups.min_size)

    @property
    def sizes(self) -> np.ndarray:
        """Counted rows per subgroup, shape (n_subgroups,)."""
        return self.member.sum(axis=(1, 2))

    @property
    def small(self) -> np.ndarray:
        """Flag per subgroup: fewer counted rows than ``min_size``."""
        return self.sizes < self.min_size

    def scores(self) -> dict:
        """Per-class counts and scores, each an array of shape (n_subgroups, n_classes).

        Keys: ``n_true`` (TP + FN), ``n_predicted`` (TP + FP), ``tp``, ``recall``,
        ``precision``, ``fscore``.
        """
        tp = np.diagonal(self.member, axis1=1, axis2=2)
        n_true = self.member.sum(axis=2)
        n_pred = self.member.sum(axis=1)
        return {"n_true": n_true, "n_predicted": n_pred, "tp": tp, "recall": _divide(tp, n_true),
                "precision": _divide(tp, n_pred), "fscore": _divide(2 * tp, n_true + n_pred)}

    def table(self) -> pd.DataFrame:
        """Tidy per-(subgroup, class) table of counts, recall, precision and F-score.

        Returns
        -------
        DataFrame with one row per (subgroup, class), subgroups in ``names`` order and classes in
        ``labels`` order; columns ``subgroup, class, size, n_true, n_predicted, tp, recall,
        precision, fscore, small, note``. ``size`` is the subgroup's counted rows; ``note`` says
        why a score is NaN.
        """
        k, c = len(self.names), len(self.labels)
        s = self.scores()
        notes = np.full((k, c), "", dtype=object)
        for key, why in (("recall", "recall undefined: class never true here"),
                         ("precision", "precision undefined: class never predicted here"),
                         ("fscore", "fscore undefined: class neither true nor predicted here")):
            notes = np.where(np.isnan(s[key]), np.where(notes == "", why, notes + "; " + why), notes)
        return pd.DataFrame({
            "subgroup": np.repeat(np.asarray(self.names, dtype=object), c),
            "class": pd.Series(np.tile(np.asarray(self.labels, dtype=object), k), dtype=object).infer_objects(),
            "size": np.repeat(self.sizes, c).astype(np.int64),
            "n_true": s["n_true"].reshape(-1).astype(np.int64),
            "n_predicted": s["n_predicted"].reshape(-1).astype(np.int64),
            "tp": s["tp"].reshape(-1).astype(np.int64),
            "recall": s["recall"].reshape(-1),
            "precision": s["precision"].reshape(-1),
            "fscore": s["fscore"].reshape(-1),
            "small": np.repeat(self.small, c),
            "note": notes.reshape(-1),
        })

    def select(self, subgroups: Optional[Sequence[Any]] = None, *,
               func: str = "unweighted_average_bias") -> list[int]:
        """Indices of the named subgroups, in the order given (all, in ``names`` order, when None).

        A name matches a subgroup label exactly or by its text (``1`` matches ``"1"``).

        Raises
        ------
        TypeError
            If `subgroups` is a single string.
        ValueError
            If a name is unknown or repeated.
        """
        if subgroups is None:
            return list(range(len(self.names)))
        if isinstance(subgroups, (str, bytes)):
            raise TypeError(SUBGROUPS_TYPE_MESSAGE.format(func=func, got=subgroups))
        position = {name: i for i, name in enumerate(self.names)}
        chosen, unknown = [], []
        for s in subgroups:
            key = s if s in position else _value_label(s)
            (chosen if key in position else unknown).append(position.get(key, s))
        if unknown:
            shown = ", ".join(map(repr, self.names[:20])) + (", ..." if len(self.names) > 20 else "")
            raise ValueError(SUBGROUPS_UNKNOWN_MESSAGE.format(
                func=func, unknown=", ".join(map(repr, unknown)), names=shown))
        if len(set(chosen)) != len(chosen):
            dups = sorted({self.names[i] for i in chosen if chosen.count(i) > 1})
            raise ValueError(SUBGROUPS_DUPLICATE_MESSAGE.format(func=func, dups=", ".join(map(repr, dups))))
        return chosen

    def unweighted_average_bias(self, *, metric: str = "fscore", reduction: Union[str, Callable] = "std",
                                subgroups: Optional[Sequence[Any]] = None,
                                include_small: bool = False) -> "UnweightedAverageBiasResult":
        """Unweighted average bias from the counts; see :func:`unweighted_average_bias`.

        Here `metric` is one of ``'recall'``, ``'precision'``, ``'fscore'`` (a metric callable
        needs the rows; pass it to :func:`unweighted_average_bias`).
        """
        func = "ClassCounts.unweighted_average_bias"
        check_option(metric, METRICS, "metric", func)
        order = self.select(subgroups, func=func)
        return _reduce(self, self.scores()[metric][order], order, metric, reduction, include_small, func)


def class_counts(truth, prediction, subgroups, *, labels: Optional[Sequence[Any]] = None) -> ClassCounts:
    """Per-subgroup K x K confusion matrices (true class x predicted class).

    The sufficient statistic of class-wise bias: one crosstab of the cell ``t * K + p``, where t
    and p are the positions of a row's true and predicted class in `labels` and K is the number
    of labels. Rows whose truth or prediction is missing or not among `labels` are left out and
    counted (``excluded``, ``n_excluded``).

    Parameters
    ----------
    truth : array-like of shape (n_samples,)
        True classes: any hashable values (strings, ints, bools); multi-class is fine.
    prediction : array-like of shape (n_samples,)
        Predicted classes, the same kind of values.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes, n_samples rows
        Attributes mean their observed value combinations, nothing flagged small (min_size=1).
    labels : sequence, optional
        The classes, in the order of the tables. Default: the distinct non-missing values of
        `truth` and `prediction`, sorted (by their text when the types are mixed).

    Returns
    -------
    ClassCounts

    Raises
    ------
    ValueError
        If the inputs have different lengths or are not one-dimensional, or `labels` is empty or
        repeats a class.
    TypeError
        If `labels` is a single string or not a sequence.

    References
    ----------
    Seed 002 (audmetric, ``unweighted_average_bias``).

    Examples
    --------
    >>> counts = class_counts(["a", "b", "b"], ["a", "a", "b"], ["x", "x", "y"])
    >>> counts.member[0].tolist()  # subgroup x: rows true a / true b, columns predicted a / b
    [[1.0, 0.0], [1.0, 0.0]]
    >>> counts.table()[["subgroup", "class", "recall", "precision", "fscore"]]
      subgroup class  recall  precision    fscore
    0        x     a     1.0        0.5  0.666667
    1        x     b     0.0        NaN  0.000000
    2        y     a     NaN        NaN       NaN
    3        y     b     1.0        1.0  1.000000
    """
    return ClassCounts._from_rows(_encode(truth, prediction, subgroups, labels, "class_counts"))


# --------------------------------------------------------------------------------------------
# Unweighted average bias
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UnweightedAverageBiasResult:
    """Unweighted average bias with its per-class spreads and the per-subgroup scores behind them.

    Attributes
    ----------
    value : float
        The unweighted mean of the per-class reductions; NaN (see `reason`) when no class has
        at least two defined subgroup scores.
    per_class : DataFrame
        One row per class, in label order: ``class``, ``value`` (the reduction of that class's
        scores, NaN when skipped), ``n_subgroups`` (defined scores that entered it), ``note``
        (why a class was skipped).
    table : DataFrame
        One row per (subgroup, class) for the chosen subgroups in their order: the columns of
        :meth:`ClassCounts.table` plus ``score`` (the chosen metric) and ``used`` (whether the
        score entered the reduction).
    metric : str
        ``'recall'``, ``'precision'``, ``'fscore'``, or the callable's name.
    reduction : str
        ``'std'``, ``'difference'``, or the callable's name.
    subgroups : tuple of str
        The subgroups that took part, in order (small ones left out unless included).
    n_classes_used : int
        Classes that entered the mean.
    n_excluded : int
        Rows left out because their truth or prediction is missing or not among the labels.
    reason : str
        Why `value` is NaN; empty otherwise.
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

    def __float__(self) -> float:
        return float(self.value)


def _name(obj: Any) -> str:
    return obj if isinstance(obj, str) else getattr(obj, "__name__", repr(obj))


def _check_reduction(reduction: Any, func: str):
    if callable(reduction):
        return reduction
    if isinstance(reduction, str):
        return check_option(reduction, REDUCTIONS, "reduction", func)
    raise TypeError(REDUCTION_TYPE_MESSAGE.format(func=func, got=repr(reduction)))


def _reduce(counts: ClassCounts, scores: np.ndarray, order: list[int], metric: Any, reduction: Any,
            include_small: bool, func: str) -> UnweightedAverageBiasResult:
    """Reduce per-(chosen subgroup, class) `scores` (shape (len(order), n_classes)) across subgroups."""
    reduction = _check_reduction(reduction, func)
    small = counts.small[order]
    part = np.ones(len(order), bool) if include_small else ~small
    part_names = [counts.names[i] for i, ok in zip(order, part) if ok]
    if reduction == "difference" and len(part_names) > 2:
        raise ValueError(DIFFERENCE_MESSAGE.format(func=func, n=len(part_names),
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
    table = counts.table()
    c = len(counts.labels)
    rows = (np.asarray(order, dtype=np.intp)[:, None] * c + np.arange(c)[None, :]).reshape(-1)
    table = table.iloc[rows].reset_index(drop=True)
    table["score"] = scores.reshape(-1)
    table["used"] = used.reshape(-1)
    per_class = pd.DataFrame({
        "class": pd.Series(np.asarray(counts.labels, dtype=object), dtype=object).infer_objects(),
        "value": values, "n_subgroups": np.asarray(n_sub, dtype=np.int64), "note": notes,
    })
    return UnweightedAverageBiasResult(value=value, per_class=per_class, table=table, metric=metric_name,
                                       reduction=_name(reduction), subgroups=tuple(part_names),
                                       n_classes_used=int(kept.sum()), n_excluded=counts.n_excluded,
                                       reason=reason)


def _callable_scores(rows: _Rows, order: list[int], metric: Callable, func: str) -> np.ndarray:
    """Scores of a metric callable per chosen subgroup (a loop over subgroups, not rows)."""
    included = rows.included
    out = np.full((len(order), len(rows.labels)), np.nan)
    for a, j in enumerate(order):
        mask = rows.groups.membership[:, j] & included
        got = metric(rows.truth[mask], rows.prediction[mask], list(rows.labels))
        if not hasattr(got, "get"):
            raise TypeError(METRIC_RESULT_MESSAGE.format(func=func, got=type(got).__name__))
        for c, label in enumerate(rows.labels):
            v = got.get(label)
            out[a, c] = np.nan if v is None else float(v)
    return out


def unweighted_average_bias(truth, prediction, protected, *, labels: Optional[Sequence[Any]] = None,
                            subgroups: Optional[Sequence[Any]] = None,
                            metric: Union[str, Callable] = "fscore", reduction: Union[str, Callable] = "std",
                            include_small: bool = False) -> UnweightedAverageBiasResult:
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
        are left out and counted (``n_excluded``), as in seed 002 ("the bias is computed only on
        the specified labels").
    subgroups : sequence of subgroup names, optional
        Selects the subgroups and fixes their order (which decides the sign of
        ``'difference'``). Default: all subgroups, in ``Subgroups.names`` order.
    metric : {'fscore', 'recall', 'precision'} or callable, default='fscore'
        A callable is called once per subgroup as ``metric(truth_g, prediction_g, labels)`` on
        the subgroup's counted rows and must return a dict mapping each class to a score (a
        missing key or NaN means undefined).
    reduction : {'std', 'difference'} or callable, default='std'
        ``'std'``: population standard deviation (ddof=0) of the defined scores.
        ``'difference'``: first minus second defined score in subgroup order; at most two
        subgroups may take part. A callable receives the list of defined scores in subgroup order
        (at least two) and returns a float.
    include_small : bool, default=False
        Whether small subgroups (fewer counted rows than ``min_size`` of a `Subgroups`) take part.

    Returns
    -------
    UnweightedAverageBiasResult
        ``value`` (also ``float(result)``), ``per_class`` (``class, value, n_subgroups, note``)
        and ``table`` (``subgroup, class, size, n_true, n_predicted, tp, recall, precision,
        fscore, small, note, score, used``).

    Raises
    ------
    ValueError
        If the inputs differ in length, `labels` is empty or repeats a class, `subgroups` names
        an unknown subgroup, `metric` or `reduction` is an unknown name, or
        ``reduction='difference'`` would compare more than two subgroups (``DIFFERENCE_MESSAGE``).
    TypeError
        If `metric` or `reduction` is neither a name nor a callable, a metric callable does not
        return a dict, or `labels` / `subgroups` is a single string.

    Notes
    -----
    The F-score is the scikit-learn definition 2TP / (2TP + FP + FN). It is 0, not NaN, for a
    subgroup where the class is true but never predicted (precision undefined, recall 0):
    computing F as the harmonic mean 2PR / (P + R) of an undefined P would give NaN there and
    drop that subgroup from the class's spread, hiding exactly the failure a bias metric must
    show. (Seed 002's reference code special-cases P = 0 or R = 0 with the other undefined to 0
    and agrees with this definition.) Classes with fewer than two defined scores are skipped and
    listed in ``per_class`` with the reason. Unlike ``sklearn.metrics`` with ``labels=``, rows
    of classes outside `labels` do not count as errors; to count them, map those values to one
    label such as ``"other"`` and list it.

    References
    ----------
    Seed 002: audmetric ``unweighted_average_bias`` (equalized odds across classes and
    subgroups). Hardt et al. (2016), "Equality of Opportunity in Supervised Learning".

    Examples
    --------
    The four examples of seed 002:

    >>> unweighted_average_bias([1, 1], [1, 0], ["male", "female"]).value
    0.5
    >>> unweighted_average_bias([1, 1], [1, 0], ["male", "female"], subgroups=["female", "male"],
    ...                         reduction=lambda x: x[0] - x[1]).value
    -1.0
    >>> unweighted_average_bias([0, 1], [1, 0], ["male", "female"], metric="recall").value
    nan
    >>> unweighted_average_bias([0, 0, 0, 0], [1, 1, 0, 0], ["a", "b", "c", "d"], metric="recall").value
    0.5
    """
    func = "unweighted_average_bias"
    if not callable(metric):
        if not isinstance(metric, str):
            raise TypeError(METRIC_TYPE_MESSAGE.format(func=func, got=repr(metric)))
        check_option(metric, METRICS, "metric", func)
    _check_reduction(reduction, func)
    rows = _encode(truth, prediction, protected, labels, func)
    counts = ClassCounts._from_rows(rows)
    order = counts.select(subgroups, func=func)
    if callable(metric):
        scores = _callable_scores(rows, order, metric, func)
    else:
        scores = counts.scores()[metric][order]
    return _reduce(counts, scores, order, metric, reduction, include_small, func)
