"""Class-wise bias: per-class recall, precision and F-score per subgroup, and their spread (§5.4).

The sufficient statistic is a K x K confusion matrix (true class x predicted class) for every
subgroup, taken with one count of the cell ``t * K + p`` per membership pattern. Every per-class
score, every choice of subgroups and every reduction is computed from it; only a user-supplied
metric callable needs the rows again. Intervals resample the same counts: a stratified multinomial
bootstrap per membership pattern (``_bootstrap.Atoms``), every replicate scored and reduced as arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np
import pandas as pd

from ._bootstrap import Atoms, check_boot_options, percentile_interval, replicate_stat
from ._checks import check_int, check_option
from ._intervals import wilson_interval
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
CALLABLE_CI_MESSAGE = (
    "{func} cannot give an interval for a {what} callable: the bootstrap resamples the per-subgroup "
    "confusion matrices and evaluates every replicate at once, which a Python callable cannot take part "
    "in. Tip: use metric='recall', 'precision' or 'fscore' and reduction='std' or 'difference', or ci=None."
)
NO_ATOMS_MESSAGE = (
    "{func} cannot compute intervals from ClassCounts built by hand: the bootstrap needs the counts per "
    "membership pattern. Tip: build them with class_counts(truth, prediction, subgroups)."
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


def _scores_of(member: np.ndarray) -> dict:
    """Per-class counts and scores from confusion matrices of shape (..., n_subgroups, K, K).

    Returns arrays of shape (..., n_subgroups, K) under ``n_true, n_predicted, tp, recall,
    precision, fscore``; any leading axes (bootstrap replicates) are kept.
    """
    tp = np.diagonal(member, axis1=-2, axis2=-1)
    n_true = member.sum(axis=-1)
    n_pred = member.sum(axis=-2)
    return {"n_true": n_true, "n_predicted": n_pred, "tp": tp, "recall": _divide(tp, n_true),
            "precision": _divide(tp, n_pred), "fscore": _divide(2 * tp, n_true + n_pred)}


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
    atoms : _bootstrap.Atoms or None
        Counted rows per (membership pattern, confusion cell ``t * K + p``): what the bootstrap
        resamples (set by :func:`class_counts`; counts built by hand have none and cannot give
        intervals).
    """

    names: list
    labels: list
    member: np.ndarray
    overall: np.ndarray
    excluded: np.ndarray
    n_excluded: int
    min_size: int
    atoms: object = field(default=None, repr=False, compare=False)

    @classmethod
    def _from_rows(cls, rows: _Rows) -> "ClassCounts":
        k = len(rows.labels)
        cell = np.where(rows.included, rows.t_code * k + rows.p_code, k * k).astype(np.intp)
        full = Atoms.of(rows.groups, cell, k * k + 1)  # the last cell: rows left out
        member, _, overall = full.tables()
        names = list(rows.groups.names)
        # The bootstrap resamples counted rows only: each pattern keeps its number of counted rows.
        counted = full.counts[:, :k * k]
        keep = counted.sum(axis=1) > 0
        atoms = Atoms(counted[keep], full.member[keep], full.background[keep])
        return cls(names, list(rows.labels), member[:, :k * k].reshape(len(names), k, k),
                   overall[:k * k].reshape(k, k), member[:, k * k], int(overall[k * k]), rows.groups.min_size,
                   atoms=atoms)

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
        return _scores_of(self.member)

    def table(self, ci: Optional[float] = None, *, n_boot: int = 1000, random_state=0) -> pd.DataFrame:
        """Tidy per-(subgroup, class) table of counts, recall, precision and F-score.

        Parameters
        ----------
        ci : float in (0, 1) or None, default=None
            Confidence level of the intervals. Recall TP / (TP + FN) and precision TP / (TP + FP)
            are proportions and get Wilson's score interval from those counts; the F-score
            2 TP / (2 TP + FP + FN) is not a proportion of rows and gets the percentile interval of
            a stratified multinomial bootstrap of the confusion cells (see
            :meth:`unweighted_average_bias`). None adds no interval columns.
        n_boot : int >= 100, default=1000
            Bootstrap replicates (F-score intervals).
        random_state : int, numpy Generator or None, default=0
            Seed of the bootstrap: the same seed gives the same intervals.

        Returns
        -------
        DataFrame with one row per (subgroup, class), subgroups in ``names`` order and classes in
        ``labels`` order; columns ``subgroup, class, size, n_true, n_predicted, tp, recall,
        precision, fscore, small, small_reason, note``. ``size`` is the subgroup's counted rows;
        ``small_reason`` says why a subgroup is small; ``note`` says why a score is NaN. With
        `ci`, each of ``recall, precision, fscore`` is followed by ``<score>_ci_low,
        <score>_ci_high`` (NaN where the score is undefined), and ``attrs["ci"]`` holds the level.

        Raises
        ------
        ValueError
            If `ci`, `n_boot` or `random_state` is invalid, or the counts were built by hand
            (``NO_ATOMS_MESSAGE``) and `ci` is given.
        """
        func = "ClassCounts.table"
        level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
        if level is None:
            return self._table()
        reps = self._replicates(("fscore",), n_boot, rng, func)["fscore"]
        return self._table(level, percentile_interval(reps, level)[:2])

    def _table(self, level: Optional[float] = None, fscore_interval=None) -> pd.DataFrame:
        k, c = len(self.names), len(self.labels)
        s = self.scores()
        notes = np.full((k, c), "", dtype=object)
        for key, why in (("recall", "recall undefined: class never true here"),
                         ("precision", "precision undefined: class never predicted here"),
                         ("fscore", "fscore undefined: class neither true nor predicted here")):
            notes = np.where(np.isnan(s[key]), np.where(notes == "", why, notes + "; " + why), notes)
        sizes = self.sizes
        reasons = np.array([f"{int(n):,} rows < minimum {self.min_size}" if n < self.min_size else ""
                            for n in sizes], dtype=object)
        columns = {
            "subgroup": np.repeat(np.asarray(self.names, dtype=object), c),
            "class": pd.Series(np.tile(np.asarray(self.labels, dtype=object), k), dtype=object).infer_objects(),
            "size": np.repeat(sizes, c).astype(np.int64),
            "n_true": s["n_true"].reshape(-1).astype(np.int64),
            "n_predicted": s["n_predicted"].reshape(-1).astype(np.int64),
            "tp": s["tp"].reshape(-1).astype(np.int64),
        }
        bounds = {}
        if level is not None:
            bounds["recall"] = wilson_interval(s["tp"], s["n_true"], level)
            bounds["precision"] = wilson_interval(s["tp"], s["n_predicted"], level)
            bounds["fscore"] = fscore_interval
        for key in METRICS:
            columns[key] = s[key].reshape(-1)
            if key in bounds:
                low, high = bounds[key]
                defined = ~np.isnan(s[key])
                columns[f"{key}_ci_low"] = np.where(defined, low, np.nan).reshape(-1)
                columns[f"{key}_ci_high"] = np.where(defined, high, np.nan).reshape(-1)
        columns.update({"small": np.repeat(self.small, c), "small_reason": np.repeat(reasons, c),
                        "note": notes.reshape(-1)})
        table = pd.DataFrame(columns)
        if level is not None:
            table.attrs["ci"] = level
        return table

    def _atoms(self, func: str) -> Atoms:
        if self.atoms is None:
            raise ValueError(NO_ATOMS_MESSAGE.format(func=func))
        return self.atoms

    def _replicates(self, metrics: Sequence[str], n_boot: int, rng: np.random.Generator, func: str) -> dict:
        """Bootstrap replicates of per-(subgroup, class) scores: metric -> array (n_boot, n_subgroups, K).

        Stratified multinomial over the counted rows of each membership pattern (see
        ``_bootstrap.Atoms``): all replicates are drawn and scored as arrays, never in a loop.
        """
        atoms = self._atoms(func)
        k, c = len(self.names), len(self.labels)
        if atoms.counts.size == 0:  # no counted row: every score is undefined in every replicate
            return {m: np.full((n_boot, k, c), np.nan) for m in metrics}

        def stat(member, background, overall):
            s = _scores_of(member.reshape(member.shape[0], k, c, c))
            return np.stack([s[m] for m in metrics], axis=1)

        out = replicate_stat(atoms, stat, n_boot, rng)
        return {m: out[:, i] for i, m in enumerate(metrics)}

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
                                subgroups: Optional[Sequence[Any]] = None, include_small: bool = False,
                                ci: Optional[float] = None, n_boot: int = 1000,
                                random_state=0) -> "UnweightedAverageBiasResult":
        """Unweighted average bias from the counts; see :func:`unweighted_average_bias`.

        Here `metric` is one of ``'recall'``, ``'precision'``, ``'fscore'`` (a metric callable
        needs the rows; pass it to :func:`unweighted_average_bias`). `ci`, `n_boot` and
        `random_state` give intervals as described there.
        """
        func = "ClassCounts.unweighted_average_bias"
        check_option(metric, METRICS, "metric", func)
        _check_reduction(reduction, func)
        level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
        if level is not None and callable(reduction):
            raise ValueError(CALLABLE_CI_MESSAGE.format(func=func, what="reduction"))
        order = self.select(subgroups, func=func)
        return _uab(self, metric, reduction, order, include_small, level, n_boot, rng, func)


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
        ``'std'``, ``'difference'``, or the callable's name.
    subgroups : tuple of str
        The subgroups that took part, in order (small ones left out unless included).
    n_classes_used : int
        Classes that entered the mean.
    n_excluded : int
        Rows left out because their truth or prediction is missing or not among the labels.
    reason : str
        Why `value` is NaN; empty otherwise.
    ci_low, ci_high : float
        Percentile bootstrap interval of `value` (NaN unless an interval was asked for, or when
        `value` is NaN).
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


def _participants(counts: ClassCounts, order: list[int], include_small: bool) -> np.ndarray:
    """Which of the chosen subgroups take part in the reduction (small ones only when included)."""
    return np.ones(len(order), bool) if include_small else ~counts.small[order]


def _reduce(counts: ClassCounts, scores: np.ndarray, order: list[int], metric: Any, reduction: Any,
            include_small: bool, func: str, table: Optional[pd.DataFrame] = None) -> UnweightedAverageBiasResult:
    """Reduce per-(chosen subgroup, class) `scores` (shape (len(order), n_classes)) across subgroups.

    `table` is the full per-(subgroup, class) table (default ``counts.table()``).
    """
    reduction = _check_reduction(reduction, func)
    part = _participants(counts, order, include_small)
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
    reduction : {'std', 'difference'}

    Returns
    -------
    per_class : ndarray of shape (n_boot, n_classes)
        Per class: the population standard deviation of the defined scores, or first minus second
        (at most two subgroups take part); NaN with fewer than two defined scores.
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


def _uab(counts: ClassCounts, metric: str, reduction: Any, order: list[int], include_small: bool,
         level: Optional[float], n_boot: int, rng, func: str) -> UnweightedAverageBiasResult:
    """Unweighted average bias of a built-in metric, with bootstrap intervals when `level` is set."""
    scores = counts.scores()[metric][order]
    if level is None:
        return _reduce(counts, scores, order, metric, reduction, include_small, func)
    reduction = _check_reduction(reduction, func)
    reps = counts._replicates(tuple(dict.fromkeys((metric, "fscore"))), n_boot, rng, func)
    table = counts._table(level, percentile_interval(reps["fscore"], level)[:2])
    result = _reduce(counts, scores, order, metric, reduction, include_small, func, table=table)
    part = _participants(counts, order, include_small)
    samples = reps[metric][:, np.asarray(order, dtype=np.intp)[part]]
    per_class_reps, value_reps = _reduce_replicates(samples, reduction)
    values = result.per_class["value"].to_numpy(dtype=np.float64)
    low, high, undefined = percentile_interval(per_class_reps, level)
    low, high = _contain(low, high, values)
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
    v_low, v_high = _contain(v_low, v_high, [result.value])
    return replace(result, per_class=per_class, table=table, ci_low=float(v_low[0]), ci_high=float(v_high[0]),
                   level=level, n_boot=n_boot, n_boot_undefined=int(v_undefined[0]))


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
                            include_small: bool = False, ci: Optional[float] = None, n_boot: int = 1000,
                            random_state=0) -> UnweightedAverageBiasResult:
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
        a value is widened where needed to contain the estimate. Not available with a callable
        `metric` or `reduction` (``CALLABLE_CI_MESSAGE``).
    n_boot : int >= 100, default=1000
        Bootstrap replicates.
    random_state : int, numpy Generator or None, default=0
        Seed of the bootstrap: the same seed gives the same intervals.

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
        ``reduction='difference'`` would compare more than two subgroups (``DIFFERENCE_MESSAGE``),
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
    show. (Seed 002's reference code special-cases P = 0 or R = 0 with the other undefined to 0
    and agrees with this definition.) Classes with fewer than two defined scores are skipped and
    listed in ``per_class`` with the reason. Unlike ``sklearn.metrics`` with ``labels=``, rows
    of classes outside `labels` do not count as errors; to count them, map those values to one
    label such as ``"other"`` and list it.

    References
    ----------
    Seed 002: audmetric ``unweighted_average_bias`` (equalized odds across classes and
    subgroups). Hardt et al. (2016), "Equality of Opportunity in Supervised Learning".
    Wilson (1927), JASA 22(158); Efron & Tibshirani (1993), "An Introduction to the Bootstrap"
    (percentile intervals).

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
    _check_reduction(reduction, func)
    level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
    if level is not None and (callable(metric) or callable(reduction)):
        raise ValueError(CALLABLE_CI_MESSAGE.format(func=func, what="metric" if callable(metric) else "reduction"))
    rows = _encode(truth, prediction, protected, labels, func)
    counts = ClassCounts._from_rows(rows)
    order = counts.select(subgroups, func=func)
    if callable(metric):
        return _reduce(counts, _callable_scores(rows, order, metric, func), order, metric, reduction,
                       include_small, func)
    return _uab(counts, metric, reduction, order, include_small, level, n_boot, rng, func)


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
    the F-score). For ``reduction='difference'`` with an interval, the sentence says whether the
    interval excludes 0 (parity) or the difference is "not distinguishable from parity at this
    sample size". A standard deviation is never below 0 and its bootstrap is biased upwards,
    so no parity statement is made for it. Then one sentence each, when they apply: the classes
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
        else:
            head = (f"Class {cls}: the {result.reduction} of the {metric} across {int(row['n_subgroups'])} "
                    f"subgroups is {value}")
        if level is not None and not np.isnan(row["value_ci_low"]):
            low, high = float(row["value_ci_low"]), float(row["value_ci_high"])
            head += f" ({_range(low, high, level)})"
            if result.reduction == "difference":
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
