"""ThresholdCounts: scores sorted once per (membership pattern, label) cell, so the ConfusionCounts at any
threshold is a few array lookups.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

import numpy as np

from .._data.checks import as_binary, as_scores, check_length
from .._stats.bootstrap import Atoms
from .._subgroups.subgroups import as_subgroups
from .confusion import PER_SUBGROUP_MESSAGE, ConfusionCounts
from .patterns import over_patterns
from .weights import check_sample_weight


# ============================================================================================
# Confusion counts at any threshold
# ============================================================================================


@dataclass(frozen=True, eq=False)
class ThresholdCounts:
    """The scores of one column sorted once: the confusion counts at any threshold from array lookups.

    Predictions are ``y_score >= threshold``. Every row has a membership pattern p (``Subgroups.patterns``),
    a label y and a *level*, the rank of its score among the distinct scores. The rows are counted
    once per (p, y) cell, and the keys ``(2 p + y) * n_levels + level`` are sorted once, so for a
    threshold whose first level at or above it is i, the rows of cell c predicted negative are
    ``searchsorted(keys, c * n_levels + i) - start[c]``: one ``searchsorted`` of the levels and one of
    2 x n_patterns keys give the atoms (TN, FP, FN, TP per pattern), and the per-subgroup tables are
    the pattern masks times the atoms. The result equals ``confusion_counts(y_true, y_score >= t,
    subgroups)`` exactly, atoms included (so intervals work), for any t: below the smallest score
    every row is predicted positive, above the largest none is.

    Build it with :func:`threshold_counts` once per (score column, subgroups), and call :meth:`at`
    for each threshold (about a millisecond at 10^6 rows, against a pass over the rows), or
    :meth:`counts_at` for many thresholds at once (a threshold explorer: counts per subgroup at
    every level, or on a grid). The app should keep one per (data, score column, slice) and call
    ``.at(threshold)`` wherever it now calls ``confusion_counts(y_true, y_pred(score, threshold),
    subgroups)``.

    Attributes
    ----------
    names : list of str
        Subgroup labels, as ``Subgroups.names``.
    levels : ndarray of float, shape (n_levels,)
        The distinct scores, ascending.
    min_size : int
        Subgroups with fewer rows are flagged small.
    disjoint : bool
        True when the subgroups are disjoint and cover every row (``Subgroups.codes`` is set).
    member, background : ndarray of bool, shape (n_patterns, n_subgroups)
        The membership and background masks of each pattern.
    keys : ndarray of int64, shape (n_samples,)
        ``(2 * pattern + label) * n_levels + level`` of every row, sorted.
    start : ndarray of int64, shape (2 * n_patterns,)
        Position in `keys` of the first row of each (pattern, label) cell.
    size : ndarray of int64, shape (2 * n_patterns,)
        Rows in each (pattern, label) cell.
    cum_weight, cum_square : ndarray of float, shape (n_samples + 1,), or None
        With sample weights: the cumulative sums of the rows' weights (and squared weights) in the
        order of `keys`, starting at 0, so the weight of the rows between two positions of `keys` is
        a difference of two entries; None without weights.
    weight, order : ndarray of shape (n_samples,), or None
        With sample weights: each row's weight, in the input's order, and the input position of each
        entry of `keys`: what the bootstrap of the confusion counts at a threshold deals into buckets
        (``Atoms.rows``, in the input's order, so its intervals are those of ``confusion_counts`` of the
        same predictions); None without weights.
    """

    names: list
    levels: np.ndarray
    min_size: int
    disjoint: bool
    member: np.ndarray = field(repr=False)
    background: np.ndarray = field(repr=False)
    keys: np.ndarray = field(repr=False)
    start: np.ndarray = field(repr=False)
    size: np.ndarray = field(repr=False)
    cum_weight: Optional[np.ndarray] = field(default=None, repr=False)
    cum_square: Optional[np.ndarray] = field(default=None, repr=False)
    weight: Optional[np.ndarray] = field(default=None, repr=False)
    order: Optional[np.ndarray] = field(default=None, repr=False)

    @classmethod
    def compute(cls, y_true, y_score, subgroups, *, sample_weight=None,
                func: str = "threshold_counts") -> "ThresholdCounts":
        """Sort the scores once and count each (pattern, label) cell; see :func:`threshold_counts`."""
        y = as_binary(y_true, "y_true", func)
        score = as_scores(y_score, "y_score", func)
        check_length(score, len(y), "y_score", func)
        w = check_sample_weight(sample_weight, len(y), func)
        groups = as_subgroups(subgroups, len(y), func)
        codes, member, background = groups.patterns
        levels, level = np.unique(score, return_inverse=True)
        n_cells = 2 * member.shape[0]
        cell = 2 * codes.astype(np.int64) + y
        size = np.bincount(cell, minlength=n_cells).astype(np.int64)
        start = np.concatenate([[0], np.cumsum(size)[:-1]]).astype(np.int64)
        if w is None:
            keys = np.sort(cell * len(levels) + level.reshape(-1))
            return cls(list(groups.names), levels, groups.min_size, groups.codes is not None, member, background,
                       keys, start, size)
        keys = cell * len(levels) + level.reshape(-1)
        order = np.argsort(keys)   # any order of the rows within a key: queries read only its boundaries
        ws = w[order]
        cum_weight, cum_square = (np.concatenate([[0.0], np.cumsum(v)]) for v in (ws, ws * ws))
        return cls(list(groups.names), levels, groups.min_size, groups.codes is not None, member, background,
                   keys[order], start, size, cum_weight, cum_square, w, order)

    @property
    def weighted(self) -> bool:
        """True when the counts are sums of sample weights."""
        return self.cum_weight is not None

    def _weighted_atoms(self, thresholds: np.ndarray, cumulative: np.ndarray) -> np.ndarray:
        """Sums of weights (or squared weights: `cumulative`) per (threshold, pattern, cell), shape (T, P, 4)."""
        first = np.searchsorted(self.levels, thresholds, side="left")
        n_cells = len(self.size)
        queries = np.arange(n_cells, dtype=np.int64)[None, :] * len(self.levels) + first[:, None]
        split = np.searchsorted(self.keys, queries)                       # (T, 2P): first predicted positive
        start, end = self.start[None, :], (self.start + self.size)[None, :]
        negative = (cumulative[split] - cumulative[start]).reshape(len(thresholds), -1, 2)
        positive = (cumulative[end] - cumulative[split]).reshape(len(thresholds), -1, 2)
        return np.stack([negative[..., 0], positive[..., 0], negative[..., 1], positive[..., 1]], axis=-1)

    def _rows_at(self, first: np.ndarray) -> tuple:
        """Each row's (pattern, confusion cell, weight), in the input's order, when the rows of pattern p are
        predicted positive from level ``first[p]`` on (`first` of shape (n_patterns,)): the rows the bootstrap of
        weighted confusion counts deals into buckets (``Atoms.rows``), as ``confusion_counts`` keeps them."""
        cell, level = np.divmod(self.keys, len(self.levels))
        pattern, label = np.divmod(cell, 2)
        rows_pattern, rows_cell = np.empty_like(pattern), np.empty_like(pattern)
        rows_pattern[self.order] = pattern
        rows_cell[self.order] = 2 * label + (level >= first[pattern])
        return rows_pattern, rows_cell, self.weight

    def _weighted_counts(self, atoms: np.ndarray, squares: np.ndarray, background=None, rows=None) -> ConfusionCounts:
        """Weighted ConfusionCounts from weight and squared-weight atoms (P, 4), with bootstrap atoms when `rows`
        (:meth:`_rows_at`) are given."""
        member, member_sq = over_patterns(self.member, atoms), over_patterns(self.member, squares)
        if background is None:
            background, background_sq = over_patterns(self.background, atoms), over_patterns(self.background, squares)
        else:   # disjoint subgroups: the background is all rows but the subgroup's
            background, background_sq = (v.sum(axis=0)[None, :] - m for v, m in ((atoms, member), (squares, member_sq)))
        return ConfusionCounts(list(self.names), member, background, atoms.sum(axis=0), self.min_size,
                               disjoint=self.disjoint, member_sq=member_sq, background_sq=background_sq,
                               overall_sq=squares.sum(axis=0),
                               atoms=None if rows is None else Atoms(atoms, self.member, self.background, rows=rows))

    def _atoms(self, thresholds: np.ndarray) -> np.ndarray:
        """Counts per (threshold, pattern, confusion cell), shape (n_thresholds, n_patterns, 4)."""
        first = np.searchsorted(self.levels, thresholds, side="left")  # levels below each threshold
        n_cells = len(self.size)
        queries = np.arange(n_cells, dtype=np.int64)[None, :] * len(self.levels) + first[:, None]
        negative = np.searchsorted(self.keys, queries) - self.start[None, :]  # (T, 2P): predicted negative
        negative = negative.reshape(len(thresholds), -1, 2)
        size = self.size.reshape(-1, 2)
        # Cells in the order of ConfusionCounts: TN, FP (label 0), FN, TP (label 1).
        return np.stack([negative[..., 0], size[None, :, 0] - negative[..., 0],
                         negative[..., 1], size[None, :, 1] - negative[..., 1]], axis=-1).astype(np.float64)

    def at(self, threshold: float) -> ConfusionCounts:
        """The confusion counts of the predictions ``y_score >= threshold``.

        Parameters
        ----------
        threshold : float
            Any number (not NaN); below the smallest score every row is predicted positive, above
            the largest none is.

        Returns
        -------
        ConfusionCounts
            Equal to ``confusion_counts(y_true, y_score >= threshold, subgroups)``, with its atoms.
        """
        _check_thresholds(np.array([threshold], dtype=np.float64), "ThresholdCounts.at")
        if self.weighted:
            t = np.array([threshold], dtype=np.float64)
            first = np.full(len(self.member), np.searchsorted(self.levels, threshold, side="left"))
            return self._weighted_counts(self._weighted_atoms(t, self.cum_weight)[0],
                                         self._weighted_atoms(t, self.cum_square)[0], rows=self._rows_at(first))
        atoms = self._atoms(np.array([threshold], dtype=np.float64))[0]
        member, background = over_patterns(self.member, atoms), over_patterns(self.background, atoms)
        keep = atoms.sum(axis=1) > 0
        return ConfusionCounts(list(self.names), member, background, atoms.sum(axis=0), self.min_size,
                               disjoint=self.disjoint,
                               atoms=Atoms(atoms[keep], self.member[keep], self.background[keep]))

    def at_each(self, thresholds) -> ConfusionCounts:
        """The confusion counts when each subgroup's rows are predicted at their own threshold.

        Row i of subgroup g is predicted positive when ``y_score[i] >= thresholds[g]``. Every metric
        of the result (rates, disparities, performance, intervals) then shows the effect of
        per-subgroup thresholds, as the What-If Tool offered for live models (Hardt et al. 2016:
        group-specific thresholds can equalize odds). Only for disjoint subgroups that cover every
        row, where each row has exactly one threshold.

        Parameters
        ----------
        thresholds : mapping of str to float, or sequence of float of length n_subgroups
            A threshold for every subgroup, by name or in order; not NaN.

        Returns
        -------
        ConfusionCounts
            Equal to ``confusion_counts(y_true, y_pred, subgroups)`` with those predictions, atoms
            included (so intervals work).

        Raises
        ------
        ValueError
            If the subgroups overlap or leave rows out (``PER_SUBGROUP_MESSAGE``), or for a
            threshold of an unknown subgroup or a wrong number of thresholds.
        """
        values = subgroup_thresholds(self.names, self.disjoint, thresholds, "ThresholdCounts.at_each")
        k = len(self.names)
        if self.weighted:
            at = np.arange(k)
            # disjoint subgroups: pattern g is subgroup g, predicted from its own threshold's level on
            first = np.searchsorted(self.levels, np.asarray(values, dtype=np.float64), side="left")
            return self._weighted_counts(self._weighted_atoms(values, self.cum_weight)[at, at],
                                         self._weighted_atoms(values, self.cum_square)[at, at], background=True,
                                         rows=self._rows_at(first))
        # Disjoint subgroups: pattern p is subgroup p (``member`` is the identity), so subgroup g's
        # atoms are those of pattern g at threshold g.
        atoms = self._atoms(values)[np.arange(k), np.arange(k)]          # (k, 4)
        member = over_patterns(self.member, atoms)
        overall = atoms.sum(axis=0)
        keep = atoms.sum(axis=1) > 0
        return ConfusionCounts(list(self.names), member, overall[None, :] - member, overall, self.min_size,
                               disjoint=True, atoms=Atoms(atoms[keep], self.member[keep], self.background[keep]))

    def counts_at(self, thresholds=None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Confusion counts per subgroup at many thresholds at once (for a threshold explorer).

        Parameters
        ----------
        thresholds : array-like of shape (n_thresholds,), optional
            Default: every level (``levels``), i.e. every distinct score as the threshold. Memory
            and time grow as n_thresholds x n_patterns: with untied scores at 10^6 rows pass a grid
            (e.g. ``numpy.linspace(0, 1, 101)``) instead.

        Returns
        -------
        thresholds : ndarray of shape (n_thresholds,)
        member, background : ndarray of shape (n_thresholds, n_subgroups, 4)
            TN, FP, FN, TP of each subgroup (and its background) at each threshold; row t is
            ``at(thresholds[t]).member`` (``.background``).
        overall : ndarray of shape (n_thresholds, 4)
        """
        thresholds = self.levels if thresholds is None else np.asarray(thresholds, dtype=np.float64).reshape(-1)
        _check_thresholds(thresholds, "ThresholdCounts.counts_at")
        atoms = (self._weighted_atoms(thresholds, self.cum_weight) if self.weighted else self._atoms(thresholds))
        atoms = np.moveaxis(atoms, 0, 1)  # (n_patterns, n_thresholds, 4)
        member, background = (np.moveaxis(over_patterns(masks, atoms), 0, 1)
                              for masks in (self.member, self.background))
        return thresholds, member, background, atoms.sum(axis=0)


    def squares_at(self, thresholds) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """With sample weights, the sums of squared weights of :meth:`counts_at`'s cells at each threshold.

        Returns
        -------
        member, background : ndarray of shape (n_thresholds, n_subgroups, 4)
        overall : ndarray of shape (n_thresholds, 4)

        Raises
        ------
        ValueError
            For unweighted counts (each row's weight is 1: the squares are the counts themselves).
        """
        if not self.weighted:
            raise ValueError("ThresholdCounts.squares_at: these counts have no sample weights; "
                             "the sums of squared weights are the counts themselves (counts_at).")
        thresholds = np.asarray(thresholds, dtype=np.float64).reshape(-1)
        _check_thresholds(thresholds, "ThresholdCounts.squares_at")
        atoms = np.moveaxis(self._weighted_atoms(thresholds, self.cum_square), 0, 1)
        member, background = (np.moveaxis(over_patterns(masks, atoms), 0, 1)
                              for masks in (self.member, self.background))
        return member, background, atoms.sum(axis=0)


def subgroup_thresholds(names: list, disjoint: bool, thresholds, func: str) -> np.ndarray:
    """One threshold per subgroup, in `names` order, from a mapping by name or a sequence in order.

    Raises
    ------
    ValueError
        If the subgroups are not disjoint (``PER_SUBGROUP_MESSAGE``), for an unknown or missing
        subgroup, a wrong number of thresholds, or a NaN.
    """
    if not disjoint:
        raise ValueError(PER_SUBGROUP_MESSAGE)
    if isinstance(thresholds, Mapping):
        unknown = [name for name in thresholds if name not in names]
        if unknown:
            raise ValueError(f"Thresholds given for subgroups that do not exist: {unknown}. The subgroups are: {names}.")
        missing = [name for name in names if name not in thresholds]
        if missing:
            raise ValueError(f"Give a threshold for every subgroup; missing: {missing}.")
        values = np.array([float(thresholds[name]) for name in names])
    else:
        values = np.asarray(thresholds, dtype=np.float64).reshape(-1)
        if len(values) != len(names):
            raise ValueError(f"Give one threshold per subgroup ({len(names)}); got {len(values)}.")
    _check_thresholds(values, func)
    return values


def _check_thresholds(values: np.ndarray, func: str) -> None:
    """Thresholds must be numbers: NaN would silently predict no row positive."""
    if np.isnan(values).any():
        raise ValueError(f"{func}: a decision threshold is NaN; give a number (predictions are score >= threshold).")


def threshold_counts(y_true, y_score, subgroups, *, sample_weight=None) -> ThresholdCounts:
    """Sort one score column once, so that the confusion counts at any threshold cost array lookups.

    With `sample_weight`, the cumulative sums of the weights (and of their squares) along the sorted
    keys are kept, so a cell's count at any threshold is the difference of two cumulative sums: the
    sum of the weights of its rows, as in ``confusion_counts(..., sample_weight=...)``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_score : array-like of shape (n_samples,)
        Finite scores on any scale; predictions are ``y_score >= threshold``.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row; None counts rows.

    Returns
    -------
    ThresholdCounts
        ``.at(t)`` is ``confusion_counts(y_true, y_score >= t, subgroups)`` (atoms included; with
        weights, the weighted counts with their sums of squared weights, equal up to rounding of the
        sums, and atoms that keep their rows, so the rate disparities get intervals); ``.counts_at(thresholds)`` gives the per-subgroup counts at many
        thresholds at once.

    Raises
    ------
    ValueError
        For labels that are not 0/1, scores that are not finite numbers, lengths that differ, or
        weights that are negative, NaN, infinite or of the wrong length.

    Examples
    --------
    >>> tc = threshold_counts([0, 1, 1, 0], [0.2, 0.7, 0.4, 0.9], ["a", "a", "b", "b"])
    >>> tc.at(0.5).member.tolist()  # a: TN, TP; b: FP, FN
    [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0]]
    """
    return ThresholdCounts.compute(y_true, y_score, subgroups, sample_weight=sample_weight)
