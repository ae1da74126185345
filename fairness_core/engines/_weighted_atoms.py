"""The atoms of weighted counts where the rows live: sums of weights per (membership pattern, cell, bucket).

In memory, weighted confusion counts keep each row's (pattern, cell, weight) (``Atoms.rows``), and the bucket
bootstrap of the rate disparities, equalized odds and the dataset's statistical parity deals the rows into
buckets. Here the engine deals them (``_buckets``: a hash of each row's identity) and returns SUM(w) and
SUM(w * w) per (pattern, cell, bucket), one GROUP BY per table; the atoms hold those entries as their rows,
``(pattern, cell, sum of weights, bucket, rows)``, which ``Atoms.replicates`` splits with
``BucketSplit.of_buckets``. The other weighted tables have no atoms in memory (their intervals come from
their counts: Wilson's on effective sizes, the AUCs' linearized DeLong variance), but for the AUCs' weighted
level atoms (``_stats.auc_draws.WeightedLevelAtoms``: SUM(w) and SUM(w * w) per pattern, merged level group and
label, one GROUP BY per score), from which the power means' replicates are drawn.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Optional

import numpy as np
import pandas as pd

from . import _sql, _sql_counts, _sql_patterns
from .._counts.binning import SUB_BINS
from .._counts.calibration import CalibrationAtoms, CalibrationCounts
from .._counts.confusion import ConfusionCounts, base_rate_counts
from .._counts.patterns import over_patterns
from .._metrics.auc_counts import AucCounts
from .._stats.auc_bootstrap import level_groups
from .._stats.auc_draws import WeightedLevelAtoms
from .._stats.bootstrap import Atoms
from ._atoms import _AtomQueries
from ._keys import _Keys, _atoms_of, _pattern_of


class _WeightedAtomQueries(_AtomQueries):
    """The bucketed pattern queries behind ``ScoredCounts.with_atoms`` of weighted counts.

    Parameters
    ----------
    run : callable
        Runs a query (``_runners``).
    plan : _sql.Plan
        With its weight column.
    m : ColumnMapping
    binned : dict
        Numeric protected attributes cut into bins, with their edges.
    with_missing : list of bool
        Per identity column, whether it has missing values among the kept rows.
    auc_bins : int or None
        The AUC counts' bins (None: exact levels).
    ranges : dict of str -> (float, float)
        Each score's smallest and largest kept score.
    buckets : {"ordered", "indexed", "hashed"}
        How rows get their buckets (``_buckets``, ``_sql_patterns.pattern_query``).
    """

    def __init__(self, run: Callable, plan: _sql.Plan, m, binned: dict, with_missing: list, auc_bins: Optional[int],
                 ranges: dict, buckets: str):
        super().__init__(run, plan, m, binned, with_missing, auc_bins, ranges, None)
        self.buckets = buckets

    @staticmethod
    def _starts(counts: AucCounts, n_patterns: int) -> tuple[int, np.ndarray]:
        """(number of level groups, the first level of each group but the first): ``level_groups`` of the weight
        per level scaled to 2^40, floored, as ``_stats.auc_draws.weighted_level_atoms`` merges levels."""
        per_level = np.asarray(counts.overall, dtype=np.float64).sum(axis=0)
        total = per_level.sum()
        scaled = np.floor(per_level * (2.0 ** 40 / total)) if total > 0 else np.zeros(len(per_level))
        group = level_groups(scaled, n_patterns) if len(per_level) else np.zeros(0, np.int64)
        return (int(group[-1]) + 1 if len(group) else 0), np.flatnonzero(np.diff(group)) + 1

    def auc(self, score: str, counts: AucCounts, n_patterns: int) -> AucCounts:
        """`counts` with their weighted level atoms (``WeightedLevelAtoms``): SUM(w) and SUM(w * w) per pattern,
        merged level group and label, the groups those of `n_patterns` patterns (counted again with the
        patterns read, should they be fewer and choose other groups)."""
        n_merged, group, bins = self._grouping(score, counts, n_patterns)
        frame = self.run(_sql_patterns.pattern_query(self.plan, score, [group], bins=bins,
                                                     with_missing=self.with_missing))
        keys = _Keys(frame, self.m, self.binned)
        cell = 2 * frame["__fc_c0"].to_numpy(dtype=np.int64) + _y(frame)
        atoms, summed = _atoms_of(keys, keys.key, frame, cell, 2 * n_merged, self.with_missing)
        if self._starts(counts, len(atoms.counts))[0] != n_merged:   # fewer patterns than keys: other groups
            return self.auc(score, counts, len(atoms.counts))
        return dataclasses.replace(counts, patterns=WeightedLevelAtoms(atoms.counts, summed("__fc_ss"), atoms.member,
                                                                       atoms.background, n_merged))

    def _confusion(self, score: Optional[str], cells: list, cell: Callable[[pd.DataFrame], np.ndarray]):
        """Weighted ConfusionCounts of one bucketed pattern query, atoms included: `cell` maps its rows to the
        confusion cell (0..3) of each."""
        frame = self.run(_sql_patterns.pattern_query(self.plan, score, cells, with_missing=self.with_missing,
                                            buckets=self.buckets))
        keys = _Keys(frame, self.m, self.binned)
        pattern, (member, background) = _pattern_of(keys, keys.key, frame, self.with_missing)
        cells_of_rows = np.asarray(cell(frame), dtype=np.int64)
        weight, squares = (frame[c].to_numpy(dtype=np.float64) for c in ("__fc_n", "__fc_ss"))
        bucket, rows = (frame[c].to_numpy(dtype=np.int64) for c in ("__fc_b", "__fc_r"))
        index = pattern * 4 + cells_of_rows
        shape = (len(member), 4)
        sums, square_sums = (np.bincount(index, weights=v, minlength=shape[0] * 4).reshape(shape)
                             for v in (weight, squares))
        atoms = Atoms(sums, member, background, rows=(pattern, cells_of_rows, weight, bucket, rows))
        return weighted_confusion(keys.names, atoms, square_sums, self.m.min_size, keys.disjoint)

    def calibration(self, score: str, edges: np.ndarray, strategy: str) -> CalibrationCounts:
        """Weighted calibration counts with `edges`, atoms included: sums of w, w p, w (p - y)^2 and w^2 per
        (pattern, bin, sub-bin, label, bucket), the atoms' rows the bucketed entries (as :meth:`_confusion`),
        so the calibration errors and their disparity get the in-memory weighted bootstrap up to the buckets."""
        nb = len(edges) - 1
        n_cells = nb * SUB_BINS * 2
        cells = ["__fc_cal", _sql_counts.sub_bin(edges, SUB_BINS)]
        frame = self.run(_sql_patterns.pattern_query(self.plan, score, cells, cal_edges=edges,
                                                     with_missing=self.with_missing, buckets=self.buckets))
        keys = _Keys(frame, self.m, self.binned)
        pattern, (member, background) = _pattern_of(keys, keys.key, frame, self.with_missing)
        cell = ((frame["__fc_c0"].to_numpy(dtype=np.int64) * SUB_BINS + frame["__fc_c1"].to_numpy(dtype=np.int64)) * 2
                + _y(frame))
        index = pattern * n_cells + cell
        weight, squares, sum_p, sum_sq = (
            np.bincount(index, weights=frame[c].to_numpy(dtype=np.float64),
                        minlength=len(member) * n_cells).reshape(len(member), n_cells)
            for c in ("__fc_n", "__fc_ss", "__fc_sp", "__fc_sq"))
        bucket, rows = (frame[c].to_numpy(dtype=np.int64) for c in ("__fc_b", "__fc_r"))
        atoms = Atoms(weight, member, background,
                      rows=(pattern, cell, frame["__fc_n"].to_numpy(dtype=np.float64), bucket, rows))
        cal = CalibrationAtoms.of_sums(atoms, sum_p, sum_sq, nb, squares=squares)
        counts = CalibrationCounts.of_atoms(keys.names, np.asarray(edges, dtype=np.float64), strategy, cal, sum_p,
                                            sum_sq, self.m.min_size)
        per_bin = squares.reshape(len(member), nb, -1).sum(axis=-1)
        m_sq, b_sq = (over_patterns(masks, per_bin) for masks in (member, background))
        return dataclasses.replace(counts, member_sq=m_sq, background_sq=b_sq, overall_sq=per_bin.sum(axis=0))

    def confusion(self, score: str, threshold: float) -> ConfusionCounts:
        """Weighted confusion counts of ``score >= threshold``, atoms included."""
        return self._confusion(score, [f"CAST(__fc_p >= {_sql.literal(float(threshold))} AS INT)"],
                               lambda f: 2 * _y(f) + f["__fc_c0"].to_numpy(dtype=np.int64))

    def given(self) -> ConfusionCounts:
        """Weighted confusion counts of the predicted label column, atoms included."""
        return self._confusion(None, ["__fc_given"], lambda f: 2 * _y(f) + f["__fc_c0"].to_numpy(dtype=np.int64))

    def labels(self, confusion: Optional[ConfusionCounts] = None) -> ConfusionCounts:
        """The labels counted against themselves (TN = negatives, TP = positives), atoms included: from the atoms of
        `confusion` (over every kept row, no scan) when given, else one query."""
        if confusion is None or confusion.atoms is None:
            return self._confusion(None, [], lambda f: 3 * _y(f))
        a = confusion.atoms
        counts = np.zeros_like(a.counts)
        counts[:, 0], counts[:, 3] = a.counts[:, 0] + a.counts[:, 1], a.counts[:, 2] + a.counts[:, 3]
        pattern, cell, *rest = a.rows
        atoms = Atoms(counts, a.member, a.background, rows=(pattern, 3 * (cell >= 2), *rest))
        return dataclasses.replace(base_rate_counts(confusion), atoms=atoms)


def _y(frame: pd.DataFrame) -> np.ndarray:
    return frame["__fc_y"].to_numpy(dtype=np.int64)


def weighted_confusion(names: list, atoms: Atoms, squares: np.ndarray, min_size: int,
                       disjoint: bool) -> ConfusionCounts:
    """Weighted ConfusionCounts from atoms of sums of weights, atoms kept.

    member = member_masks.T @ sums, background = background_masks.T @ sums, overall their column sums, and
    the same of `squares` (``member_sq``, ``background_sq``, ``overall_sq``).

    Parameters
    ----------
    names : list of str
    atoms : Atoms
        Sums of weights per (pattern, cell TN, FP, FN, TP), shape (n_patterns, 4), with the patterns' masks
        (and the bucketed entries as ``rows``).
    squares : ndarray of shape (n_patterns, 4)
        Sums of squared weights of the same (pattern, cell).
    min_size : int
    disjoint : bool

    Returns
    -------
    ConfusionCounts
    """
    member, background, member_sq, background_sq = (over_patterns(masks, values) for masks, values in (
        (atoms.member, atoms.counts), (atoms.background, atoms.counts), (atoms.member, squares),
        (atoms.background, squares)))
    return ConfusionCounts(list(names), member, background, atoms.counts.sum(axis=0), min_size, disjoint=disjoint,
                           atoms=atoms, member_sq=member_sq, background_sq=background_sq,
                           overall_sq=squares.sum(axis=0))
