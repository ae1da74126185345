# More than 500 lines: one concept (the level histograms of the AUC family and what is read off them), unweighted and weighted.
"""AucCounts: negatives and positives per score level of every subgroup, its background and all rows.

The AUC family (subgroup, BPSN, BNSP and the overall AUC) is a function of these histograms alone:
with P[t], N[t] the positives and negatives at level t (levels in increasing score order),

    AUC(P, N) = sum_t P[t] (N[< t] + N[t] / 2) / (|P| |N|)

(``_metrics.auc_ranking._twice_u``). A level is either one distinct score (``edges=None``: exact, equal to
``bias_auc_table``) or one bin of B monotone bins (``edges`` of shape (B + 1,)), which is what an
engine that cannot keep every distinct score returns (``fairness_core.engines``). Binning only
turns pairs of a positive and a negative in the same bin into ties, so

    |AUC_B - AUC| <= delta_B = 1/2 sum_b (P_b / |P|) (N_b / |N|),

which the table reports as ``max_binning_error`` (0 when exact), computed from the counts themselves.

The histograms are sparse (scipy.sparse CSR, one row per subgroup: the negatives' levels, then the
positives'), so exact levels cost memory in proportion to the subgroups' rows, not to
subgroups x distinct scores.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

import numpy as np
import pandas as pd

from .auc import BiasAucResult, summarize_bias_auc
from .auc_ranking import _auc_from_hists
from .auc_table import auc_frame
from .auc_weighted import level_sides, weighted_auc_table, weighted_level_tables
from .._counts.weights import check_sample_weight
from .._stats.auc_bootstrap import AUC_COLUMNS, level_atoms, replicates_of
from .._stats.bootstrap import check_boot_options
from .._data.checks import as_binary, as_scores, check_int, check_length
from .._stats.delong import auc_interval, delong_variance, interval_of
from .._subgroups.subgroups import as_subgroups

BINS_MESSAGE = (
    "The 'bins' parameter of {func} must be \"exact\" or an integer number of bins >= 2 (e.g. 10000). "
    "Got {got!r} instead."
)
EDGE_MESSAGE = (
    "AucCounts.confusion_at: the threshold {threshold!r} is not a bin edge, so the counts cannot say which "
    "rows of its bin reach it. Tip: choose one of the edges (AucCounts.edges), use exact levels "
    "(bins=\"exact\"), or count the confusion table at this threshold directly."
)
BOUND_NOTE = "binned: |AUC - exact AUC| <= max_binning_error"
# Levels x AUCs whose dense histograms AucCounts.table builds at once (2^22: 32 MiB of int64 per side).
DENSE_CELLS = 2 ** 22


def uniform_score_bins(low: float, high: float, n_bins: int) -> tuple[float, float]:
    """Start and width of `n_bins` equal bins over [low, high]: edge i is ``low + i * step``.

    A constant score (low == high) gets one bin of width 1, so every row falls in bin 0.
    """
    step = (high - low) / n_bins
    return float(low), float(step) if step > 0 and np.isfinite(step) else 1.0


def bin_edges_of(low: float, step: float, n_bins: int, high: float) -> np.ndarray:
    """Edges ``low + i * step`` for i < n_bins, and the largest score as the last (closed) edge."""
    return np.concatenate([low + np.arange(n_bins, dtype=np.float64) * step, [max(high, low + (n_bins - 1) * step)]])


def score_bin(score: np.ndarray, low: float, step: float, n_bins: int) -> np.ndarray:
    """Bin of each score among `n_bins` bins with edges ``low + i * step``; the last bin is closed.

    Bin b holds exactly the scores with ``edge(b) <= score < edge(b + 1)`` (b < n_bins - 1): the
    bin is guessed as ``floor((score - low) / step)`` and moved by one where rounding put it on the
    wrong side of an edge, computed as ``low + b * step`` exactly as the engines' SQL computes it,
    so both paths agree row by row and a threshold on an edge is read off the counts exactly.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        guess = np.floor((score - low) / step)
    b = np.clip(np.nan_to_num(guess, nan=0.0, posinf=n_bins - 1, neginf=0.0), 0, n_bins - 1).astype(np.int64)
    b -= (b > 0) & (score < low + b * step)
    b += (b < n_bins - 1) & (score >= low + (b + 1) * step)
    return b


@dataclass(frozen=True, eq=False)
class AucCounts:
    """Negatives and positives per score level of every subgroup, its background and all rows.

    Build it with :func:`auc_counts` (rows in memory) or ``fairness_core.engines.scored_counts`` (rows
    where they live); both give the same table, and every number after the counts comes from its
    methods.

    Attributes
    ----------
    names : list of str
        Subgroup labels, in table order.
    levels : ndarray of float, shape (n_levels,)
        The distinct scores (exact), or the lower edge of each bin (binned).
    edges : ndarray of float, shape (n_levels + 1,) or None
        Bin edges (``edges[b] <= score < edges[b + 1]``; the last bin is closed and its upper edge is
        the largest score); None when each level is one distinct score.
    member, background : scipy.sparse.csr_matrix of int64, shape (n_subgroups, 2 * n_levels)
        Per subgroup (row), the negatives at each level (columns ``0 .. n_levels - 1``) and then the
        positives (columns ``n_levels ..``), among the subgroup's rows and among its background's.
    overall : ndarray of int64, shape (2, n_levels)
        Negatives and positives per level over all rows.
    min_size : int
        Subgroups with fewer rows are flagged small.
    disjoint : bool
        True when the subgroups are disjoint and cover every row.
    patterns : (Atoms, int), WeightedLevelAtoms or None
        What the bootstrap resamples: the counts per (row membership pattern, merged level group,
        label), with the patterns' subgroup masks, and the number of level groups (adjacent levels
        merged into at most 256 groups of about equal rows, 64 above 200 patterns,
        ``_stats.auc_bootstrap.level_atoms``). With sample weights a
        ``_stats.auc_draws.WeightedLevelAtoms`` (sums of weights and of squared weights per pattern, level
        group and label), from which the replicates are drawn (``_stats.auc_draws``). Set by
        :func:`auc_counts` and by an engine asked for intervals; None: no intervals of the power means.
    member_sq, background_sq : scipy.sparse.csr_matrix of float, shape (n_subgroups, 2 * n_levels), or None
        With sample weights (`member`, `background` and `overall` then hold sums of weights, as
        floats): the sums of squared weights in the same layout, behind the effective sample sizes.
    overall_sq : ndarray of float, shape (2, n_levels), or None
        The same over all rows.
    """

    names: list
    levels: np.ndarray
    edges: Optional[np.ndarray]
    member: object = field(repr=False)
    background: object = field(repr=False)
    overall: np.ndarray = field(repr=False)
    min_size: int = 30
    disjoint: bool = False
    patterns: Optional[tuple] = field(default=None, repr=False)
    member_sq: object = field(default=None, repr=False)
    background_sq: object = field(default=None, repr=False)
    overall_sq: Optional[np.ndarray] = field(default=None, repr=False)

    @classmethod
    def compute(cls, y_true, y_score, subgroups, *, bins: Union[int, str] = "exact", sample_weight=None,
                func: str = "auc_counts") -> "AucCounts":
        """Count the rows (or sum their weights) per level; see :func:`auc_counts`."""
        return _auc_counts(y_true, y_score, subgroups, bins=bins, sample_weight=sample_weight, func=func)

    @property
    def weighted(self) -> bool:
        """True when the histograms are sums of sample weights."""
        return self.member_sq is not None

    @property
    def exact(self) -> bool:
        """True when every level is one distinct score."""
        return self.edges is None

    def _sides(self, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(member negatives, member positives, background negatives, background positives) of subgroup k."""
        n = len(self.levels)
        m = self.member.getrow(k).toarray().reshape(2, n)
        b = self.background.getrow(k).toarray().reshape(2, n)
        return m[0], m[1], b[0], b[1]

    def table(self, ci: Optional[float] = None, *, n_boot: int = 1000, random_state=0) -> pd.DataFrame:
        """The per-subgroup AUC table, as :func:`bias_auc_table`, plus ``max_binning_error``.

        Parameters
        ----------
        ci : float in (0, 1) or None, default=None
            Confidence level of DeLong's intervals (computed from the level histograms, as
            :func:`auc_interval`; with binned levels they are the intervals of the binned AUCs).
        n_boot : int >= 100, default=1000
            Bootstrap replicates behind the intervals of the power means and the bias AUC score (with
            `ci`, when the counts hold their ``patterns``): the stratified multinomial bootstrap of
            :func:`bias_auc_table`, from the counts per membership pattern. With exact levels and the
            same seed the replicates are those of :func:`bias_auc_table`.
        random_state : int, numpy Generator or None, default=0
            Seed of the bootstrap.

        Returns
        -------
        DataFrame
            The columns of :func:`bias_auc_table` followed by ``max_binning_error`` (shape (k, 3)
            flattened to three columns ``subgroup_auc_max_binning_error``, ``bpsn_auc_...``,
            ``bnsp_auc_...``: delta_B of each AUC, 0 when exact, NaN where the AUC is undefined).
            ``attrs``: ``overall_auc``, ``overall_auc_max_binning_error``, ``ci``, ``exact``, and with
            `ci` ``overall_auc_ci``, ``overall_auc_ci_note`` and, when the counts hold their
            ``patterns``, ``replicates`` (an ``AucReplicates``, centred on the table's AUCs; without
            patterns :meth:`summarize` gives no intervals).

        Raises
        ------
        ValueError
            If `ci` is not None or a number strictly between 0 and 1, `n_boot` is not an int >= 100 or
            `random_state` is not a seed.
        """
        level, n_boot, rng = check_boot_options(ci, n_boot, random_state, "AucCounts.table")
        if self.weighted:
            return self._weighted_table(level, n_boot, rng)
        k, n_levels = len(self.names), len(self.levels)
        n, sizes = np.zeros((k, 4), dtype=np.int64), np.zeros((k, 3, 2), dtype=np.int64)
        aucs, var, bound = np.zeros((k, 3)), np.zeros((k, 3)), np.zeros((k, 3))
        # The dense histograms of a few subgroups at a time (at most DENSE_CELLS levels in all): with exact levels
        # (a level per distinct score) those of every subgroup at once took several times the rows' memory.
        step = max(1, DENSE_CELLS // max(3 * n_levels, 1))
        for start in range(0, k, step):
            chunk = range(start, min(k, start + step))
            pos = np.zeros((len(chunk), 3, n_levels), dtype=np.int64)
            neg = np.zeros_like(pos)
            for i, j in enumerate(chunk):
                mn, mp, bn, bp = self._sides(j)
                pos[i] = mp, bp, mp   # subgroup, BPSN, BNSP: whose positives ...
                neg[i] = mn, mn, bn   # ... against whose negatives
            flat_pos, flat_neg = pos.reshape(-1, n_levels), neg.reshape(-1, n_levels)
            sizes[chunk, :, 0], sizes[chunk, :, 1] = (flat_pos.sum(axis=1).reshape(-1, 3),
                                                      flat_neg.sum(axis=1).reshape(-1, 3))
            n[chunk] = np.column_stack([sizes[chunk, 0, 0], sizes[chunk, 0, 1], sizes[chunk, 1, 0],
                                        sizes[chunk, 2, 1]])
            aucs[chunk] = np.array([_auc_from_hists(p, q) for p, q in zip(flat_pos, flat_neg)]).reshape(-1, 3)
            if level is not None:
                var[chunk] = delong_variance(flat_pos, flat_neg)[1].reshape(-1, 3)
            bound[chunk] = _binning_bound(flat_pos, flat_neg, self.exact).reshape(-1, 3)
            del pos, neg, flat_pos, flat_neg
        interval = None
        if level is not None:
            interval = [a.reshape(k, 3) for a in interval_of(
                aucs.ravel(), var.ravel(), sizes[:, :, 0].ravel(), sizes[:, :, 1].ravel(), level)]
        table = auc_frame(list(self.names), n, aucs, self.min_size, interval)
        for i, column in enumerate(AUC_COLUMNS):
            table[f"{column}_max_binning_error"] = np.where(np.isnan(aucs[:, i]), np.nan, bound[:, i])
        if not self.exact:
            binned = [BOUND_NOTE if not note else f"{note}; {BOUND_NOTE}" for note in table["note"]]
            table["note"] = binned
        neg_all, pos_all = self.overall
        table.attrs["overall_auc"] = _auc_from_hists(pos_all, neg_all)
        table.attrs["n_positive"], table.attrs["n_negative"] = int(pos_all.sum()), int(neg_all.sum())
        table.attrs["overall_auc_max_binning_error"] = float(_binning_bound(pos_all[None], neg_all[None],
                                                                           self.exact)[0])
        table.attrs["ci"] = level
        table.attrs["exact"] = self.exact
        if level is not None:
            low, high, why = auc_interval(pos_all, neg_all, level)
            table.attrs["overall_auc_ci"] = (low, high)
            table.attrs["overall_auc_ci_note"] = why
            if self.patterns is not None:
                table.attrs["replicates"] = replicates_of(*self.patterns, aucs, table.attrs["overall_auc"],
                                                          n_boot=n_boot, rng=rng)
        return table

    def _weighted_table(self, level: Optional[float], n_boot: int, rng) -> pd.DataFrame:
        """:meth:`table` of weighted histograms: weighted AUCs, effective sizes, the binning bounds and with `level`
        the intervals of :func:`~fairness_core._metrics.auc_weighted.weighted_auc_table` (replicates drawn when
        the counts hold their ``patterns``)."""
        sides = level_sides(self.member, self.background, self.member_sq, self.background_sq, self.overall,
                            self.overall_sq)
        table, bound = weighted_auc_table(list(self.names), sides, self.overall, self.overall_sq, self.min_size,
                                          level=level, patterns=self.patterns, n_boot=n_boot, rng=rng)
        k = len(self.names)
        aucs = table[list(AUC_COLUMNS)].to_numpy(dtype=np.float64).reshape(k, 3)
        bound = bound.reshape(k, 3) if not self.exact else np.zeros((k, 3))
        for i, column in enumerate(AUC_COLUMNS):
            table[f"{column}_max_binning_error"] = np.where(np.isnan(aucs[:, i]), np.nan, bound[:, i])
        if not self.exact:
            table["note"] = [BOUND_NOTE if not note else f"{note}; {BOUND_NOTE}" for note in table["note"]]
        neg_all, pos_all = self.overall
        table.attrs["overall_auc_max_binning_error"] = float(_binning_bound(pos_all[None], neg_all[None],
                                                                           self.exact)[0])
        table.attrs["exact"] = self.exact
        return table

    def summarize(self, *, p: float = -5.0, overall_weight: float = 0.25, include_small: bool = False,
                  ci: Optional[float] = None, n_boot: int = 1000, random_state=0) -> BiasAucResult:
        """Power means of each AUC column and the bias AUC score (:func:`summarize_bias_auc` of :meth:`table`).

        score = w * AUC_overall + (1 - w) * mean(M_p(subgroup AUCs), M_p(BPSN AUCs), M_p(BNSP AUCs))

        Parameters
        ----------
        p : float, default=-5
        overall_weight : float in [0, 1], default=0.25
        include_small : bool, default=False
        ci, n_boot, random_state
            As :meth:`table`: with `ci` and the counts' ``patterns``, bootstrap intervals of the power
            means and the score.

        Returns
        -------
        BiasAucResult
            With binned levels, each AUC is within its ``max_binning_error`` of the exact one, and so
            (power means being monotone in each value) is every power mean within the largest bound
            of its column.
        """
        return summarize_bias_auc(self.table(ci, n_boot=n_boot, random_state=random_state), p=p,
                                  overall_weight=overall_weight, include_small=include_small)

    def reads(self, threshold: float) -> bool:
        """Whether the counts give the confusion counts at `threshold` exactly: always with exact levels; with
        binned levels, for a bin edge, or a threshold at or below the smallest score or above the largest."""
        t = float(threshold)
        return bool(self.exact or t <= self.edges[0] or t > self.edges[-1] or t in self.edges[1:-1])

    def _first(self, thresholds, func: str) -> np.ndarray:
        """Per threshold, the first level at or above it (its rows are predicted positive)."""
        from .._counts.thresholds import _check_thresholds

        t = np.asarray(thresholds, dtype=np.float64).reshape(-1)
        _check_thresholds(t, func)
        if self.exact:
            return np.searchsorted(self.levels, t, side="left")
        unread = [x for x in t if not self.reads(x)]
        if unread:
            raise ValueError(EDGE_MESSAGE.format(threshold=unread[0]))
        first = np.searchsorted(self.edges, t, side="left")   # an edge i > 0 starts bin i
        return np.where(t > self.edges[-1], len(self.levels), np.minimum(first, len(self.levels)))

    def _split(self, first: np.ndarray, squares: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(member, background, overall) confusion cells TN, FP, FN, TP with levels >= `first` predicted
        positive: shapes (T, k, 4), (T, k, 4), (T, 4), from cumulative sums of each row's sparse counts
        (of the squared weights with `squares`)."""
        n = len(self.levels)
        member, background, overall_counts = ((self.member_sq, self.background_sq, self.overall_sq) if squares
                                              else (self.member, self.background, self.overall))

        def cells(below_neg, total_neg, below_pos, total_pos):
            return np.stack([below_neg, total_neg - below_neg, below_pos, total_pos - below_pos], axis=-1)

        def of(matrix) -> np.ndarray:
            m = matrix.tocsr(copy=True)
            m.sort_indices()
            out = np.zeros((len(first), m.shape[0], 4))
            for g in range(m.shape[0]):   # subgroups, not rows
                cols = m.indices[m.indptr[g]:m.indptr[g + 1]]
                cumulative = np.concatenate([[0.0], np.cumsum(m.data[m.indptr[g]:m.indptr[g + 1]], dtype=np.float64)])
                sides = []
                for side in (0, 1):   # negatives, positives
                    lo, hi = np.searchsorted(cols, [side * n, side * n + n])
                    below = cumulative[np.searchsorted(cols, side * n + first)] - cumulative[lo]
                    sides += [below, np.full(len(first), cumulative[hi] - cumulative[lo])]
                out[:, g, :] = cells(*sides)
            return out

        cumulative = np.concatenate([np.zeros((2, 1)), np.cumsum(overall_counts, axis=1, dtype=np.float64)], axis=1)
        overall = cells(cumulative[0, first], cumulative[0, -1], cumulative[1, first], cumulative[1, -1])
        return of(member), of(background), overall

    def _squares(self, first: np.ndarray) -> dict:
        """With sample weights, the ``member_sq, background_sq, overall_sq`` of the ConfusionCounts at `first`."""
        if not self.weighted:
            return {}
        member_sq, background_sq, overall_sq = self._split(first, squares=True)
        return dict(member_sq=member_sq, background_sq=background_sq, overall_sq=overall_sq)

    def confusion_at(self, threshold: float):
        """The :class:`ConfusionCounts` of ``score >= threshold``, read off the level counts.

        Exact for any threshold with exact levels, and for a threshold the counts read
        (:meth:`reads`: a bin edge) with binned levels; other thresholds raise (the counts
        cannot split a bin).

        Returns
        -------
        ConfusionCounts
            Without bootstrap atoms (Wilson intervals of the rates still work).

        Raises
        ------
        ValueError
            For a NaN threshold, or one inside a bin of binned levels (``EDGE_MESSAGE``).
        """
        from .._counts.confusion import ConfusionCounts

        first = self._first([threshold], "AucCounts.confusion_at")
        member, background, overall = self._split(first)
        squares = {key: value[0] for key, value in self._squares(first).items()}
        return ConfusionCounts(list(self.names), member[0], background[0], overall[0], self.min_size,
                               disjoint=self.disjoint, **squares)

    at = confusion_at

    def counts_at(self, thresholds=None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Confusion counts per subgroup at many thresholds at once, as ``ThresholdCounts.counts_at``
        (so the threshold explorer works from these counts).

        Parameters
        ----------
        thresholds : array-like of shape (n_thresholds,), optional
            Default: every level (exact: each distinct score; binned: each bin's lower edge).

        Returns
        -------
        thresholds : ndarray of shape (n_thresholds,)
        member, background : ndarray of shape (n_thresholds, n_subgroups, 4)
            TN, FP, FN, TP of each subgroup (and its background) at each threshold.
        overall : ndarray of shape (n_thresholds, 4)

        Raises
        ------
        ValueError
            For a NaN threshold, or one the counts do not read (:meth:`reads`).
        """
        t = self.levels if thresholds is None else np.asarray(thresholds, dtype=np.float64).reshape(-1)
        member, background, overall = self._split(self._first(t, "AucCounts.counts_at"))
        return t, member, background, overall

    def squares_at(self, thresholds) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """With sample weights, the sums of squared weights of :meth:`counts_at`'s cells at each threshold
        (as ``ThresholdCounts.squares_at``); ValueError for unweighted counts."""
        if not self.weighted:
            raise ValueError("AucCounts.squares_at: these counts have no sample weights; "
                             "the sums of squared weights are the counts themselves (counts_at).")
        return self._split(self._first(thresholds, "AucCounts.squares_at"), squares=True)

    def at_each(self, thresholds):
        """The confusion counts when each subgroup's rows are predicted at their own threshold, as
        ``ThresholdCounts.at_each`` (disjoint subgroups that cover every row; no bootstrap atoms).

        Raises
        ------
        ValueError
            As ``ThresholdCounts.at_each``, or for a threshold the counts do not read (:meth:`reads`).
        """
        from .._counts.confusion import ConfusionCounts
        from .._counts.thresholds import subgroup_thresholds

        values = subgroup_thresholds(list(self.names), self.disjoint, thresholds, "AucCounts.at_each")
        first = self._first(values, "AucCounts.at_each")
        member, _, _ = self._split(first)
        k = len(self.names)
        member = member[np.arange(k), np.arange(k)]   # subgroup g at its own threshold g
        overall = member.sum(axis=0)
        squares = {}
        if self.weighted:
            member_sq = self._split(first, squares=True)[0][np.arange(k), np.arange(k)]
            overall_sq = member_sq.sum(axis=0)
            squares = dict(member_sq=member_sq, background_sq=overall_sq[None, :] - member_sq, overall_sq=overall_sq)
        return ConfusionCounts(list(self.names), member, overall[None, :] - member, overall, self.min_size,
                               disjoint=True, **squares)


def _binning_bound(pos: np.ndarray, neg: np.ndarray, exact: bool) -> np.ndarray:
    """delta_B = 1/2 sum_b (P_b / |P|) (N_b / |N|) of each row of (k, n_levels) histograms; 0 when exact."""
    n_pos, n_neg = pos.sum(axis=1).astype(np.float64), neg.sum(axis=1).astype(np.float64)
    if exact:
        return np.where((n_pos > 0) & (n_neg > 0), 0.0, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        return 0.5 * (pos.astype(np.float64) * neg).sum(axis=1) / (n_pos * n_neg)


def auc_counts(y_true, y_score, subgroups, *, bins: Union[int, str] = "exact", sample_weight=None) -> AucCounts:
    """Count negatives and positives per score level for every subgroup, its background and all rows.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_score : array-like of shape (n_samples,)
        Scores on any scale.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    bins : "exact" or int >= 2, default="exact"
        "exact": one level per distinct score (the AUCs equal :func:`bias_auc_table`). An integer B:
        B equal bins between the smallest and the largest score (:func:`score_bin`, the same bins
        ``fairness_core.engines`` computes in SQL), with ``max_binning_error`` bounding each AUC's
        error.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row. The histograms then hold the sums of the weights per
        level (and ``member_sq``, ``background_sq``, ``overall_sq`` the sums of squared weights),
        so each AUC is the weighted Mann-Whitney statistic
        sum_t P_w[t] (N_w[< t] + N_w[t] / 2) / (sum P_w sum N_w), equal to
        ``sklearn.metrics.roc_auc_score(..., sample_weight=w)``, and sizes are Kish's effective
        sample sizes (sum w)^2 / sum w^2; ``patterns`` holds the weighted atoms (``_stats.auc_draws``).

    Returns
    -------
    AucCounts

    Raises
    ------
    ValueError
        For bad labels, scores, subgroups, `bins` or weights (negative, NaN, infinite, wrong length).

    Notes
    -----
    One pass of ``np.unique`` over (membership pattern, label, level) keys, then one sparse product
    with the pattern masks: no subgroup is sorted or scanned on its own.

    References
    ----------
    Borkan et al. (2019); Jigsaw Unintended Bias benchmark. The binning bound: a pair in one bin is counted as a tie (1/2)
    whatever its true order, so the error is at most half the share of such pairs.
    """
    return _auc_counts(y_true, y_score, subgroups, bins=bins, sample_weight=sample_weight, func="auc_counts")


def _auc_counts(y_true, y_score, subgroups, *, bins, sample_weight, func: str) -> AucCounts:
    """:func:`auc_counts`, naming `func` in its errors."""
    from scipy import sparse

    y = as_binary(y_true, "y_true", func).astype(np.int64)
    s = as_scores(y_score, "y_score", func)
    check_length(s, len(y), "y_score", func)
    w = check_sample_weight(sample_weight, len(y), func)
    groups = as_subgroups(subgroups, len(y), func)
    if isinstance(bins, str) and bins == "exact":
        levels, level = np.unique(s, return_inverse=True)
        edges = None
    else:
        if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)):
            raise ValueError(BINS_MESSAGE.format(func=func, got=bins))
        n_bins = check_int(bins, 2, "bins", func)
        low, step = uniform_score_bins(float(s.min()) if len(s) else 0.0, float(s.max()) if len(s) else 1.0, n_bins)
        edges = bin_edges_of(low, step, n_bins, float(s.max()) if len(s) else low)
        levels, level = edges[:-1], score_bin(s, low, step, n_bins)
    n_levels = len(levels)
    codes, member, background = groups.patterns
    if w is not None:
        return _weighted_auc_counts(groups, y, level.reshape(-1), levels, edges, w)
    keys, counts = np.unique((codes.astype(np.int64) * 2 + y) * n_levels + level.reshape(-1), return_counts=True)
    pattern, cell = np.divmod(keys, 2 * n_levels)
    atoms = sparse.csr_matrix((counts.astype(np.int64), (pattern, cell)), shape=(member.shape[0], 2 * n_levels))
    overall = np.asarray(atoms.sum(axis=0)).reshape(2, n_levels).astype(np.int64)
    to_sparse = lambda masks: sparse.csr_matrix(masks.T.astype(np.int64))  # noqa: E731 (subgroups x patterns)
    return AucCounts(list(groups.names), levels, edges, (to_sparse(member) @ atoms).tocsr(),
                     (to_sparse(background) @ atoms).tocsr(), overall, groups.min_size,
                     disjoint=groups.codes is not None, patterns=level_atoms(atoms, member, background))


def _weighted_auc_counts(groups, y: np.ndarray, level: np.ndarray, levels: np.ndarray, edges, w: np.ndarray) -> AucCounts:
    """The weighted level histograms (:func:`~fairness_core._metrics.auc_weighted.weighted_level_tables`), as
    AucCounts."""
    (m, b, o), (m_sq, b_sq, o_sq), patterns = weighted_level_tables(groups, y, level, len(levels), w)
    return AucCounts(list(groups.names), levels, edges, m, b, o, groups.min_size, disjoint=groups.codes is not None,
                     patterns=patterns, member_sq=m_sq, background_sq=b_sq, overall_sq=o_sq)
