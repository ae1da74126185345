"""ClassCounts: per-subgroup K x K confusion matrices of true against predicted classes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np
import pandas as pd

from .._data.checks import check_option
from .._disparity.average_bias import (CALLABLE_CI_MESSAGE, METRICS, UnweightedAverageBiasResult, check_reduction,
    unweighted_average_bias_of)
from .._stats.bootstrap import Atoms, check_boot_options, percentile_interval, replicate_stat
from .._stats.intervals import effective_counts, wilson_interval
from .._subgroups.patterns import _value_label
from .patterns import over_patterns
from .rows import SUBGROUPS_DUPLICATE_MESSAGE, SUBGROUPS_TYPE_MESSAGE, SUBGROUPS_UNKNOWN_MESSAGE, _Rows, _encode
from .weights import check_sample_weight, effective_size, row_counts, size_text


CLASS_NO_ATOMS_MESSAGE = (
    "{func} cannot compute intervals from ClassCounts built by hand: the bootstrap needs the counts per "
    "membership pattern. Tip: build them with class_counts(truth, prediction, subgroups)."
)


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
        intervals). With sample weights, sums of weights that keep their rows (``Atoms.rows``).
    member_sq : ndarray of float, shape (n_subgroups, n_classes, n_classes), or None
        With sample weights (`member`, `overall` and `excluded` then hold sums of weights): the
        sums of squared weights of the same cells, behind the effective sample sizes and the
        intervals. None for unweighted counts.
    """

    names: list
    labels: list
    member: np.ndarray
    overall: np.ndarray
    excluded: np.ndarray
    n_excluded: int
    min_size: int
    atoms: object = field(default=None, repr=False, compare=False)
    member_sq: Optional[np.ndarray] = field(default=None, repr=False, compare=False)

    @classmethod
    def _from_rows(cls, rows: _Rows, sample_weight=None, func: str = "class_counts") -> "ClassCounts":
        k = len(rows.labels)
        cell = np.where(rows.included, rows.t_code * k + rows.p_code, k * k).astype(np.intp)
        w = check_sample_weight(sample_weight, len(cell), func)
        if w is not None:
            return cls._weighted(rows, cell, w)
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

    @classmethod
    def _weighted(cls, rows: _Rows, cell: np.ndarray, w: np.ndarray) -> "ClassCounts":
        """Sums of weights per (subgroup, true class, predicted class), one bincount of w and of w^2 over
        (membership pattern, cell); the atoms keep the counted rows with their weights for the bootstrap
        (``Atoms.rows``). ``n_excluded`` stays a count of rows."""
        k = len(rows.labels)
        n_cells = k * k + 1
        codes, member, background = rows.groups.patterns
        key = codes * n_cells + cell
        sums = np.bincount(key, weights=w, minlength=member.shape[0] * n_cells).reshape(-1, n_cells)
        squares = np.bincount(key, weights=w * w, minlength=member.shape[0] * n_cells).reshape(-1, n_cells)
        m = over_patterns(member, sums)
        m_sq = over_patterns(member, squares[:, :k * k])
        overall = sums.sum(axis=0)
        names = list(rows.groups.names)
        counted = cell < k * k
        atoms = Atoms(sums[:, :k * k], member, background, rows=(codes[counted], cell[counted], w[counted]))
        return cls(names, list(rows.labels), m[:, :k * k].reshape(len(names), k, k), overall[:k * k].reshape(k, k),
                   m[:, k * k], int((cell == k * k).sum()), rows.groups.min_size, atoms=atoms,
                   member_sq=m_sq.reshape(len(names), k, k))

    @property
    def weighted(self) -> bool:
        """True when the matrices hold sums of sample weights."""
        return self.member_sq is not None

    @property
    def sizes(self) -> np.ndarray:
        """Counted rows per subgroup, shape (n_subgroups,); with sample weights Kish's effective sample
        size (sum w)^2 / sum w^2 of the counted rows."""
        if self.weighted:
            return effective_size(self.member.sum(axis=(1, 2)), self.member_sq.sum(axis=(1, 2)))
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
            :meth:`unweighted_average_bias`). None adds no interval columns. With sample weights,
            Wilson's interval on the effective counts of each proportion
            (``_stats.intervals.effective_counts``: the weighted share on its effective sample
            size, at most its rows; unit weights give Wilson's), and the F-score's bootstrap deals the rows with their
            weights into buckets.
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
        With sample weights the counts are sums of weights and ``size`` the effective sample size.

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
        if self.weighted:
            reasons = np.array([f"{size_text(n)} effective rows < minimum {self.min_size}" if n < self.min_size
                                else "" for n in sizes], dtype=object)
        else:
            reasons = np.array([f"{int(n):,} rows < minimum {self.min_size}" if n < self.min_size else ""
                                for n in sizes], dtype=object)
        as_count = (lambda a: a) if self.weighted else (lambda a: a.astype(np.int64))
        columns = {
            "subgroup": np.repeat(np.asarray(self.names, dtype=object), c),
            "class": pd.Series(np.tile(np.asarray(self.labels, dtype=object), k), dtype=object).infer_objects(),
            "size": as_count(np.repeat(sizes, c)),
            "n_true": as_count(s["n_true"].reshape(-1)),
            "n_predicted": as_count(s["n_predicted"].reshape(-1)),
            "tp": as_count(s["tp"].reshape(-1)),
        }
        bounds = {}
        if level is not None:
            rows = row_counts(self.atoms) if self.weighted else None
            rows = None if rows is None else over_patterns(self.atoms.member, rows).reshape(self.member.shape)
            for key, total, axis in (("recall", "n_true", -1), ("precision", "n_predicted", -2)):
                counts = (s["tp"], s[total])
                if self.weighted:   # on the effective counts: TP's squares against the rest of its row / column
                    tp_sq = np.diagonal(self.member_sq, axis1=-2, axis2=-1)
                    counts = effective_counts(*counts, tp_sq, np.maximum(self.member_sq.sum(axis=axis) - tp_sq, 0.0),
                                              None if rows is None else rows.sum(axis=axis))
                bounds[key] = wilson_interval(*counts, level)
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
            raise ValueError(CLASS_NO_ATOMS_MESSAGE.format(func=func))
        return self.atoms

    def _replicates(self, metrics: Sequence[str], n_boot: int, rng: np.random.Generator, func: str) -> dict:
        """Bootstrap replicates of per-(subgroup, class) scores: metric -> array (n_boot, n_subgroups, K).

        Stratified multinomial over the counted rows of each membership pattern (see
        ``_bootstrap.Atoms``; with sample weights the counted rows dealt with their weights into buckets): all
        replicates are drawn and scored as arrays, never in a loop.
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
        check_reduction(reduction, func)
        level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
        if level is not None and callable(reduction):
            raise ValueError(CALLABLE_CI_MESSAGE.format(func=func, what="reduction"))
        order = self.select(subgroups, func=func)
        return unweighted_average_bias_of(self, metric, reduction, order, include_small, level, n_boot, rng, func)


def class_counts(truth, prediction, subgroups, *, labels: Optional[Sequence[Any]] = None,
                 sample_weight=None) -> ClassCounts:
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
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row: each matrix cell is the sum of its rows' weights (so
        recall, precision and F-score are weighted, as scikit-learn's with ``sample_weight``),
        ``excluded`` the weight left out, and sizes Kish's effective sample sizes of the counted
        rows; the intervals are then those of weighted rows (see :meth:`ClassCounts.table`).

    Returns
    -------
    ClassCounts

    Raises
    ------
    ValueError
        If the inputs have different lengths or are not one-dimensional, `labels` is empty or
        repeats a class, or a weight is negative, NaN, infinite or of the wrong length.
    TypeError
        If `labels` is a single string or not a sequence.

    References
    ----------
    audmetric, ``unweighted_average_bias``.

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
    return ClassCounts._from_rows(_encode(truth, prediction, subgroups, labels, "class_counts"), sample_weight)
