"""The atoms of weighted counts where the rows live: sums of weights per (membership pattern, cell, bucket).

In memory, weighted confusion counts keep each row's (pattern, cell, weight) (``Atoms.rows``), and the bucket
bootstrap of the rate disparities, equalized odds and the dataset's statistical parity deals the rows into
buckets. Here the engine deals them (``_buckets``: a hash of each row's identity) and returns SUM(w) and
SUM(w * w) per (pattern, cell, bucket), one GROUP BY per table; the atoms hold those entries as their rows,
``(pattern, cell, sum of weights, bucket)``, which ``Atoms.replicates`` splits with
``BucketSplit.of_buckets``. The other weighted tables have no atoms in memory (their intervals come from
their counts: Wilson's on effective sizes, the AUCs' linearized DeLong variance), so none are counted.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Optional

import numpy as np
import pandas as pd

from . import _sql
from .._counts.confusion import ConfusionCounts, base_rate_counts
from .._counts.patterns import over_patterns
from .._stats.bootstrap import Atoms
from ._atoms import _Keys, _pattern_of


class _WeightedAtomQueries:
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
    buckets : {"ordered", "indexed", "hashed"}
        How rows get their buckets (``_buckets``, ``_sql.pattern_query``).
    """

    def __init__(self, run: Callable, plan: _sql.Plan, m, binned: dict, with_missing: list, buckets: str):
        self.run, self.plan, self.m, self.binned, self.with_missing = run, plan, m, binned, with_missing
        self.buckets = buckets

    def n_patterns(self) -> int:
        """The distinct membership keys of the kept rows (``_sql.pattern_count_query``): at least the patterns."""
        frame = self.run(_sql.pattern_count_query(self.plan, with_missing=self.with_missing))
        return int(frame["__fc_n"].iloc[0])

    def _confusion(self, score: Optional[str], cells: list, cell: Callable[[pd.DataFrame], np.ndarray]):
        """Weighted ConfusionCounts of one bucketed pattern query, atoms included: `cell` maps its rows to the
        confusion cell (0..3) of each."""
        frame = self.run(_sql.pattern_query(self.plan, score, cells, with_missing=self.with_missing,
                                            buckets=self.buckets))
        keys = _Keys(frame, self.m, self.binned)
        pattern, (member, background) = _pattern_of(keys, keys.key, frame, self.with_missing)
        cells_of_rows = np.asarray(cell(frame), dtype=np.int64)
        weight, squares = (frame[c].to_numpy(dtype=np.float64) for c in ("__fc_n", "__fc_ss"))
        bucket = frame["__fc_b"].to_numpy(dtype=np.int64)
        index = pattern * 4 + cells_of_rows
        shape = (len(member), 4)
        sums, square_sums = (np.bincount(index, weights=v, minlength=shape[0] * 4).reshape(shape)
                             for v in (weight, squares))
        atoms = Atoms(sums, member, background, rows=(pattern, cells_of_rows, weight, bucket))
        return weighted_confusion(keys.names, atoms, square_sums, self.m.min_size, keys.disjoint)

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
        pattern, cell, weight, bucket = a.rows
        atoms = Atoms(counts, a.member, a.background, rows=(pattern, 3 * (cell >= 2), weight, bucket))
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
