"""The bootstrap's per-bucket tables counted where the rows live, at a cost independent of the membership patterns.

The pattern queries (``_atoms``) return a row per (membership pattern, cell): with many overlapping identity columns
the patterns grow with the rows (63,623 at 10^7 rows with 20 identity columns), and past ``max_patterns`` of
``ScoredCounts.with_atoms`` reading them costs about as much as reading the rows. Above
``_stats.bootstrap.BUCKET_PATTERNS`` the bootstrap only reweights per-bucket tables anyway (``BucketDraws``), so the
engine counts those tables directly (``_sql_buckets.bucket_query``): each row dealt into one of ``BUCKETS`` = K = 200
buckets (the unweighted bucket bootstrap's) by a hash of its identity (``_buckets``), GROUP BY (bucket, protected key, label, cells), each identity column
summed (``SUM(identity_j)``) rather than grouped by. The result has K x keys x cells rows whatever the patterns;
identity column j's member table in bucket b is the sum of its ``__fc_mn{j}`` over b's rows, its background the
bucket's rows minus its members minus its missing rows (``__fc_xn{j}``), a protected subgroup's the keys' rows through
the subgroups' masks. Every table is then ``Atoms.of_buckets`` (``_stats.bootstrap.BucketTables``), with the point
estimates the buckets summed (equal to the counts queries').

With a weight column every sum is a sum of weights (``_sql_weights.weight_sums``: SUM(w), with SUM(w²) beside it):
the per-bucket tables of the confusion counts (each score's, the labels', the predicted label's) and of the
calibration are then sums of weights, as ``BucketTables.of_rows`` deals weighted rows in memory, and the point tables
their buckets summed, the squares of the weights summed alike. The weighted AUC counts keep no replicates (their
power means need ``_stats.auc_draws.WeightedLevelAtoms`` per pattern), nor the weighted class-wise counts.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Optional

import numpy as np
import pandas as pd

from . import _sql
from .._counts.calibration import CalibrationAtoms, CalibrationCounts
from .._counts.classes import ClassCounts
from .._counts.confusion import ConfusionCounts
from .._counts.scored_data import _as_text
from .._metrics.auc_counts import AucCounts
from .._stats.bootstrap import BUCKETS, Atoms, BucketTables
from ._atoms import _AtomQueries
from ._keys import _Keys
from ._sql_buckets import bucket_query


def bucket_tables(keys: _Keys, frame: pd.DataFrame, cell: np.ndarray, n_cells: int, quantity: str = "n",
                  n_buckets: int = BUCKETS) -> BucketTables:
    """Per-bucket (member, background, overall) sums of one quantity from the rows of a ``_sql_buckets.bucket_query``.

    Overall: ``bincount`` of the quantity over (bucket, cell). Protected subgroups: the quantity per (key, bucket,
    cell) as a sparse matrix, times the subgroups' membership (background) masks of the keys. Identity column j:
    member = its ``__fc_{quantity}`` sums ``__fc_m{quantity}{j}`` per (bucket, cell); background = overall - member -
    its missing rows' sums ``__fc_x{quantity}{j}`` (0 where it has none), as ``_Keys.tables`` computes the counts.

    Parameters
    ----------
    keys : _Keys
        The protected keys of `frame`'s rows (``keys.key``) and their subgroups.
    frame : DataFrame
        The query's rows: ``__fc_b`` (bucket in [0, `n_buckets`)), ``__fc_{quantity}`` and the identity sums.
    cell : ndarray of int, shape (len(frame),)
        Each row's cell in [0, `n_cells`).
    n_cells : int
    quantity : str, default="n"
        ``n`` (rows, or sums of weights), ``sp`` / ``sq`` (sums of scores, of squared errors) of a calibration
        query, or with a weight column ``ss`` (sums of squared weights) and ``r`` (rows).
    n_buckets : int, default=BUCKETS

    Returns
    -------
    BucketTables
        Shapes (K, k, n_cells), (K, k, n_cells), (K, n_cells), subgroups in ``keys.names`` order.
    """
    from scipy import sparse

    bucket = frame["__fc_b"].to_numpy(dtype=np.int64)
    column = bucket * int(n_cells) + np.asarray(cell, dtype=np.int64)
    size = int(n_buckets) * int(n_cells)
    value = frame[f"__fc_{quantity}"].to_numpy(dtype=np.float64)
    overall = np.bincount(column, weights=value, minlength=size)
    member, background = [], []
    if keys.prot is not None:
        by_key = sparse.csr_matrix((value, (keys.key, column)), shape=(len(keys.frame), size))
        for masks, out in ((keys.prot.membership, member), (keys.prot.background, background)):
            summed = np.asarray((sparse.csr_matrix(np.asarray(masks, dtype=np.float64).T) @ by_key).todense())
            out.append(summed.reshape(-1, int(n_buckets), int(n_cells)).transpose(1, 0, 2))
    for j in range(len(keys.m.indicators)):
        inside = np.bincount(column, weights=frame[f"__fc_m{quantity}{j}"].to_numpy(dtype=np.float64), minlength=size)
        missing = f"__fc_x{quantity}{j}"
        outside = overall - inside - (np.bincount(column, weights=frame[missing].to_numpy(dtype=np.float64),
                                                  minlength=size) if missing in frame else 0.0)
        member.append(inside.reshape(int(n_buckets), 1, int(n_cells)))
        background.append(outside.reshape(int(n_buckets), 1, int(n_cells)))
    empty = np.zeros((int(n_buckets), 0, int(n_cells)))
    return BucketTables(np.concatenate(member, axis=1) if member else empty,
                        np.concatenate(background, axis=1) if background else empty,
                        overall.reshape(int(n_buckets), int(n_cells)))


def _confusion_of(names: list, tables: BucketTables, min_size: int, disjoint: bool,
                  squares: Optional[tuple] = None) -> ConfusionCounts:
    """ConfusionCounts whose tables are `tables`' buckets summed, with the per-bucket tables as its atoms; with
    `squares` (weighted counts: the sums of squared weights, member, background and overall) weighted counts."""
    member, background, overall = (t.sum(axis=0) for t in tables.tables)
    extra = {} if squares is None else dict(zip(("member_sq", "background_sq", "overall_sq"), squares))
    return _BucketConfusion(list(names), member, background, overall, min_size, disjoint=disjoint,
                            atoms=Atoms.of_buckets(tables), **extra)


@dataclasses.dataclass(frozen=True)
class _BucketConfusion(ConfusionCounts):
    """ConfusionCounts with per-bucket tables as atoms (``Atoms.buckets``): :meth:`favourable` reorders the
    buckets' cells with the tables' (the in-memory method rebuilds pattern atoms, which these have none of)."""

    def favourable(self, positive_outcome: str = "favourable") -> ConfusionCounts:
        """The counts with the favourable outcome as "positive" (``ConfusionCounts.favourable``), per-bucket
        tables reordered alike (TN <-> TP, FP <-> FN for ``'adverse'``)."""
        swapped = super().favourable(positive_outcome)
        if positive_outcome == "favourable" or self.atoms is None or self.atoms.buckets is None:
            return swapped
        return dataclasses.replace(swapped, atoms=Atoms.of_buckets(self.atoms.buckets.permuted([3, 2, 1, 0])))


@dataclasses.dataclass(frozen=True)
class _BucketCalibration(CalibrationCounts):
    """Weighted CalibrationCounts with per-bucket tables as atoms: :meth:`reliability_table` takes each bin's sums of
    squared weights of the positives and its rows from the engine (per-bucket tables hold no pattern to sum them
    over, as the in-memory method does).

    Attributes
    ----------
    positives_sq : ndarray of shape (n_subgroups, n_bins)
        Each member bin's sum of squared weights of its positive rows.
    rows : ndarray of shape (n_subgroups, n_bins)
        Each member bin's rows.
    """

    positives_sq: Optional[np.ndarray] = dataclasses.field(default=None, repr=False, compare=False)
    rows: Optional[np.ndarray] = dataclasses.field(default=None, repr=False, compare=False)

    def reliability_table(self, ci: Optional[float] = None) -> pd.DataFrame:
        """The reliability table (``CalibrationCounts.reliability_table``), each bin's interval the weighted Wilson
        interval on its effective size truncated at its rows, as in memory."""
        from .._stats.intervals import check_ci, weighted_wilson_interval

        table = super().reliability_table(None)
        level = check_ci(ci, "reliability_diagram")
        if level is None:
            return table
        count, positives = self.member[:, 0, :], self.member[:, 2, :]
        low, high = weighted_wilson_interval(positives.reshape(-1), count.reshape(-1), self.positives_sq.reshape(-1),
                                             np.maximum(self.member_sq - self.positives_sq, 0.0).reshape(-1), level,
                                             rows=self.rows.reshape(-1))
        table["fraction_positive_ci_low"], table["fraction_positive_ci_high"] = low, high
        table.attrs["ci"] = level
        return table


class _BucketQueries(_AtomQueries):
    """The per-bucket queries behind ``ScoredCounts.with_atoms`` above its bound on membership patterns (counts of
    rows or sums of weights): every table's atoms are :class:`BucketTables` of one ``_sql_buckets.bucket_query`` (see the module
    docstring).

    Parameters
    ----------
    run, plan, m, binned, with_missing, auc_bins, ranges
        As :class:`_AtomQueries`.
    buckets : {"ordered", "indexed", "hashed"}
        How rows get their bucket (``_buckets``).
    """

    per_bucket = True   # ScoredCounts.calibration_at asks these for other bins' tables

    def __init__(self, run: Callable, plan: _sql.Plan, m, binned: dict, with_missing: list, auc_bins: Optional[int],
                 ranges: dict, buckets: str):
        super().__init__(run, plan, m, binned, with_missing, auc_bins, ranges, None)
        self.buckets = buckets

    def _frame(self, score: Optional[str], cells: list, **kw) -> tuple:
        """(keys, rows) of one bucket query."""
        frame = self.run(bucket_query(self.plan, score, cells, buckets=self.buckets,
                                           with_missing=self.with_missing, **kw))
        return _Keys(frame, self.m, self.binned), frame

    def _squares(self, keys: _Keys, frame: pd.DataFrame, cell: np.ndarray, n_cells: int) -> Optional[tuple]:
        """The sums of squared weights (member, background, overall; the buckets summed) of a weighted query's
        rows; None without a weight column."""
        if not self.plan.weighted:
            return None
        return tuple(t.sum(axis=0) for t in bucket_tables(keys, frame, cell, n_cells, "ss").tables)

    def _confusion_tables(self, keys: _Keys, frame: pd.DataFrame, cell: np.ndarray) -> ConfusionCounts:
        """The confusion counts of `frame`'s rows in `cell` (2 * label + prediction), per-bucket tables as atoms."""
        return _confusion_of(keys.names, bucket_tables(keys, frame, cell, 4), self.m.min_size, keys.disjoint,
                             self._squares(keys, frame, cell, 4))

    def _confusion(self, score: Optional[str], cells: list, cell: Callable, rows=None, row_cell=None) -> ConfusionCounts:
        keys, frame = self._frame(score, cells)
        return self._confusion_tables(keys, frame, cell(frame))

    def confusion(self, score: str, threshold: float) -> ConfusionCounts:
        """Confusion counts of ``score >= threshold``, per-bucket tables as atoms."""
        return self._confusion(score, [f"CAST(__fc_p >= {_sql.literal(float(threshold))} AS INT)"],
                               lambda f: 2 * self._y(f) + f["__fc_c0"].to_numpy(dtype=np.int64))

    def given(self) -> ConfusionCounts:
        """Confusion counts of the predicted label column, per-bucket tables as atoms."""
        return self._confusion(None, ["__fc_given"], lambda f: 2 * self._y(f) + f["__fc_c0"].to_numpy(dtype=np.int64))

    def labels(self, confusion: Optional[ConfusionCounts] = None) -> ConfusionCounts:
        """The labels counted against themselves (TN = negatives, TP = positives): from `confusion`'s per-bucket
        tables (TN + FP, FN + TP of each bucket, no scan) when given, else one query."""
        if confusion is None or confusion.atoms is None or confusion.atoms.buckets is None:
            return self._confusion(None, [], lambda f: 3 * self._y(f))
        def as_labels(t: np.ndarray) -> np.ndarray:   # TN + FP as TN, FN + TP as TP
            out = np.zeros_like(t)
            out[..., 0], out[..., 3] = t[..., 0] + t[..., 1], t[..., 2] + t[..., 3]
            return out

        squares = None if not confusion.weighted else tuple(
            as_labels(np.asarray(t, dtype=np.float64))
            for t in (confusion.member_sq, confusion.background_sq, confusion.overall_sq))
        return _confusion_of(confusion.names, BucketTables(*(as_labels(t) for t in confusion.atoms.buckets.tables)),
                             confusion.min_size, confusion.disjoint, squares)

    def confusion_and_auc(self, score: str, threshold: float, counts: AucCounts,
                          n_patterns: int) -> tuple[ConfusionCounts, AucCounts]:
        """:meth:`confusion` at `threshold` and :meth:`auc` of `score` from one bucket query (per prediction and
        merged level group, the groups those of `n_patterns` patterns, ``level_groups``)."""
        n_merged, group, bins = self._grouping(score, counts, n_patterns)
        predicted = f"CAST(__fc_p >= {_sql.literal(float(threshold))} AS INT)"
        keys, frame = self._frame(score, [predicted, group], bins=bins)
        y = self._y(frame)
        cells = [frame[f"__fc_c{i}"].to_numpy(dtype=np.int64) for i in (0, 1)]
        confusion = self._confusion_tables(keys, frame, 2 * y + cells[0])
        if self.plan.weighted:   # the weighted AUCs' replicates need their level atoms per pattern: none here
            return confusion, counts
        levels = bucket_tables(keys, frame, 2 * cells[1] + y, 2 * n_merged)
        return confusion, dataclasses.replace(counts, patterns=(Atoms.of_buckets(levels), n_merged))

    def auc(self, score: str, counts: AucCounts, n_patterns: int) -> AucCounts:
        """`counts` with per-bucket tables per (merged level group, label) as its ``patterns``."""
        n_merged, group, bins = self._grouping(score, counts, n_patterns)
        keys, frame = self._frame(score, [group], bins=bins)
        levels = bucket_tables(keys, frame, 2 * frame["__fc_c0"].to_numpy(dtype=np.int64) + self._y(frame),
                               2 * n_merged)
        return dataclasses.replace(counts, patterns=(Atoms.of_buckets(levels), n_merged))

    def calibration(self, score: str, edges: np.ndarray, strategy: str) -> CalibrationCounts:
        """Calibration counts with `edges`: per bucket, subgroup and bin the rows, the sums of scores, the positives
        and the sums of squared errors (``CalibrationCounts``' layout), their buckets summed the point tables."""
        keys, frame = self._frame(score, ["__fc_cal"], cal_edges=np.asarray(edges, dtype=np.float64))
        return self._calibration_of(keys, frame, 2 * frame["__fc_c0"].to_numpy(dtype=np.int64) + self._y(frame),
                                    edges, strategy)

    def confusion_auc_and_calibration(self, score: str, threshold: float, counts: AucCounts, n_patterns: int,
                                      edges: np.ndarray, strategy: str) -> tuple:
        """:meth:`confusion_and_auc` and :meth:`calibration` of `score` from one bucket query: GROUP BY (bucket, key,
        label, prediction, level group, calibration bin). Level groups and calibration bins both cut the score line
        into intervals, so the pairs that occur are at most their numbers added: a few more rows than the query of
        :meth:`confusion_and_auc` alone, and one scan of the rows instead of two.

        Returns
        -------
        (ConfusionCounts, AucCounts, CalibrationCounts)
        """
        n_merged, group, bins = self._grouping(score, counts, n_patterns)
        predicted = f"CAST(__fc_p >= {_sql.literal(float(threshold))} AS INT)"
        keys, frame = self._frame(score, [predicted, group, "__fc_cal"], bins=bins,
                                  cal_edges=np.asarray(edges, dtype=np.float64))
        y = self._y(frame)
        cells = [frame[f"__fc_c{i}"].to_numpy(dtype=np.int64) for i in (0, 1, 2)]
        confusion = self._confusion_tables(keys, frame, 2 * y + cells[0])
        calibration = self._calibration_of(keys, frame, 2 * cells[2] + y, edges, strategy)
        if self.plan.weighted:   # the weighted AUCs' replicates need their level atoms per pattern: none here
            return confusion, counts, calibration
        levels = bucket_tables(keys, frame, 2 * cells[1] + y, 2 * n_merged)
        return confusion, dataclasses.replace(counts, patterns=(Atoms.of_buckets(levels), n_merged)), calibration

    def _calibration_of(self, keys: _Keys, frame: pd.DataFrame, cell: np.ndarray, edges: np.ndarray,
                        strategy: str) -> CalibrationCounts:
        """The calibration counts of a bucket query's rows, `cell` each row's 2 * calibration bin + label."""
        from .._counts.binning import SUB_BINS

        nb = len(edges) - 1
        n, sp, sq = (bucket_tables(keys, frame, cell, 2 * nb, q).tables for q in ("n", "sp", "sq"))

        def per_bin(i: int) -> np.ndarray:   # (K, [k,] 4, n_bins): rows, sum of p, positives, sum of squared errors
            count, s_p, s_q = (t[i].reshape(*t[i].shape[:-1], nb, 2) for t in (n, sp, sq))
            return np.stack([count.sum(-1), s_p.sum(-1), count[..., 1], s_q.sum(-1)], axis=-2)

        tables = BucketTables(per_bin(0), per_bin(1), per_bin(2))
        empty = np.zeros((0, nb * SUB_BINS * 2))
        member, background, overall = (t.sum(axis=0) for t in tables.tables)
        atoms = CalibrationAtoms(Atoms.of_buckets(tables), empty, empty, nb)
        names, edges = list(keys.names), np.asarray(edges, dtype=np.float64)
        if not self.plan.weighted:
            return CalibrationCounts(names, edges, strategy, member, background, overall, self.m.min_size, atoms=atoms)
        # per (subgroup, bin, label), the buckets summed: the sums of squared weights and the rows behind the sums
        ss, r = (tuple(t.sum(axis=0).reshape(*t.shape[1:-1], nb, 2) for t in bucket_tables(keys, frame, cell, 2 * nb,
                                                                                            q).tables)
                 for q in ("ss", "r"))
        squares = {name: t.sum(-1) for name, t in zip(("member_sq", "background_sq", "overall_sq"), ss)}
        return _BucketCalibration(names, edges, strategy, member, background, overall, self.m.min_size, atoms=atoms,
                                  positives_sq=ss[0][..., 1], rows=r[0].sum(-1), **squares)

    def classes(self) -> ClassCounts:
        """Class-wise counts of the label against the predicted label column, per-bucket tables as atoms."""
        keys, frame = self._frame(None, ["__fc_t", "__fc_q"])
        true, predicted = (np.asarray(_as_text(frame[c].tolist()), dtype=object) for c in ("__fc_c0", "__fc_c1"))
        vocabulary = sorted(set(true.tolist()) | set(predicted.tolist()))
        position = {text: i for i, text in enumerate(vocabulary)}
        k = len(vocabulary)
        cell = np.array([position[t] * k + position[p] for t, p in zip(true, predicted)], dtype=np.int64)
        tables = bucket_tables(keys, frame, cell, k * k)
        member, _, overall = (t.sum(axis=0) for t in tables.tables)
        return ClassCounts(keys.names, vocabulary, member.reshape(-1, k, k), overall.reshape(k, k),
                           np.zeros(len(keys.names)), 0, self.m.min_size, atoms=Atoms.of_buckets(tables))
