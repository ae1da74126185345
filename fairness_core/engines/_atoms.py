"""The atom queries of scored_counts and the count tables assembled from their rows.

Without identity columns a membership pattern is a protected key, which the counts queries group
by already: the atoms of the tables those queries counted are then summed from their rows (kept as
:class:`_Rows`), and only the other tables (another threshold, other calibration bins, the classes)
are counted again where the data lies.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np
import pandas as pd

from . import _sql, _sql_counts, _sql_patterns
from .._counts.binning import SUB_BINS
from .._counts.calibration import CalibrationAtoms, CalibrationCounts
from .._counts.classes import ClassCounts
from .._counts.confusion import ConfusionCounts
from .._counts.patterns import over_patterns
from .._counts.scored_data import ColumnMapping, _as_text
from .._metrics.auc_counts import AucCounts, uniform_score_bins
from .._stats.auc_bootstrap import level_groups
from .._stats.bootstrap import Atoms
from ._keys import _atoms_of, _Keys


@dataclass(frozen=True, eq=False)
class _Rows:
    """The rows of a counts query kept as arrays: each row's protected key (a row of ``keys.frame``), the
    `columns` the atoms need, and what they were counted with (`at`: the threshold, or the calibration edges)."""

    keys: "_Keys"
    key: np.ndarray
    columns: dict
    at: Any = None

    @classmethod
    def of(cls, keys: "_Keys", key: np.ndarray, frame: pd.DataFrame, names: tuple, at: Any = None,
           **columns) -> "_Rows":
        """The columns `names` of `frame` (and the arrays `columns`), the rows' keys `key` among `keys`."""
        return cls(keys, key, {**{c: frame[c].to_numpy() for c in names}, **columns}, at)


class _AtomQueries:
    """The pattern queries behind :meth:`ScoredCounts.with_atoms`: each table's counts per (membership pattern,
    cell), numbered as ``Subgroups.patterns`` numbers the patterns of rows in memory. `buckets` ({"ordered",
    "indexed", "hashed"}, ``_buckets``) is how the engine deals rows into buckets, for the per-bucket tables that
    replace the patterns past ``with_atoms``' bound (``_bucket_atoms``).

    `counted` holds the rows of the counts queries (:class:`_Rows`: ``("level", score)``, ``("cal", score)``
    and ``"given"``): without identity columns the atoms of those tables are summed from them (no scan).
    """

    def __init__(self, run: Callable, plan: _sql.Plan, m: ColumnMapping, binned: dict, with_missing: list,
                 auc_bins: Optional[int], ranges: dict, counted: Optional[dict] = None, buckets: str = "ordered"):
        self.run, self.plan, self.m, self.binned, self.with_missing = run, plan, m, binned, with_missing
        self.auc_bins, self.ranges = auc_bins, ranges
        self.buckets = buckets   # how rows get the bootstrap's buckets (``_buckets``), for per-bucket tables
        self.counted = {} if m.indicators or counted is None else counted

    def _atoms(self, score: Optional[str], cells: list, cell: Callable, **kw):
        """(keys, Atoms, sums) of one pattern query: `cell` maps its frame to (each row's cell, number of cells);
        ``sums(column)`` adds up another column of the result per (pattern, cell)."""
        frame = self.run(_sql_patterns.pattern_query(self.plan, score, cells, with_missing=self.with_missing, **kw))
        keys = _Keys(frame, self.m, self.binned)
        return (keys, *_atoms_of(keys, keys.key, frame, *cell(frame), self.with_missing))

    def _kept(self, name, at: Any = None) -> Optional[_Rows]:
        """The rows kept of the counts query `name` when they were counted with `at` (None: any), else None."""
        rows = self.counted.get(name)
        if rows is None or (at is not None and not np.array_equal(np.asarray(rows.at), np.asarray(at))):
            return None
        return rows

    def _first_rows(self) -> Optional[_Rows]:
        """Rows kept of any counts query over every kept row (the first score's, or the predicted label's)."""
        return self._kept(("level", self.m.scores[0])) if self.m.scores else self._kept("given")

    def _confusion(self, score: Optional[str], cells: list, cell: Callable, rows: Optional[_Rows] = None,
                   row_cell: Optional[Callable] = None) -> ConfusionCounts:
        if rows is not None:   # summed from the rows of a counts query: no scan
            keys, (atoms, _) = rows.keys, _atoms_of(rows.keys, rows.key, rows.columns, row_cell(rows.columns), 4)
        else:
            keys, atoms, _ = self._atoms(score, cells, lambda f: (cell(f), 4))
        return ConfusionCounts.of_atoms(keys.names, atoms, self.m.min_size, disjoint=keys.disjoint)

    def classes(self) -> ClassCounts:
        """Class-wise counts of the label against the predicted label column (:func:`_class_counts`), atoms
        included."""
        found = {}

        def cell(f: pd.DataFrame):
            true, predicted = (np.asarray(_as_text(f[c].tolist()), dtype=object) for c in ("__fc_c0", "__fc_c1"))
            found["labels"] = vocabulary = sorted(set(true.tolist()) | set(predicted.tolist()))
            position = {text: i for i, text in enumerate(vocabulary)}
            k = len(vocabulary)
            return np.array([position[t] * k + position[p] for t, p in zip(true, predicted)], dtype=np.int64), k * k

        keys, atoms, _ = self._atoms(None, ["__fc_t", "__fc_q"], cell)
        k = len(found["labels"])
        member = over_patterns(atoms.member, atoms.counts).reshape(-1, k, k)
        return ClassCounts(keys.names, found["labels"], member, atoms.counts.sum(axis=0).reshape(k, k),
                           np.zeros(len(keys.names)), 0, self.m.min_size, atoms=atoms)

    @staticmethod
    def _y(frame: pd.DataFrame) -> np.ndarray:
        return frame["__fc_y"].to_numpy(dtype=np.int64)

    def confusion(self, score: str, threshold: float) -> ConfusionCounts:
        """Confusion counts of ``score >= threshold``, atoms included."""
        return self._confusion(score, [f"CAST(__fc_p >= {_sql.literal(float(threshold))} AS INT)"],
                               lambda f: 2 * self._y(f) + f["__fc_c0"].to_numpy(dtype=np.int64),
                               self._kept(("level", score), float(threshold)),
                               lambda c: 2 * c["__fc_y"].astype(np.int64) + c["__fc_pred"])

    def n_patterns(self) -> int:
        """The distinct membership keys of the kept rows (``_sql_patterns.pattern_count_query``): at least the
        patterns."""
        rows = self._first_rows()
        if rows is not None:   # the protected keys the counts query found: the patterns themselves
            return len(rows.keys.frame)
        frame = self.run(_sql_patterns.pattern_count_query(self.plan, with_missing=self.with_missing))
        return int(frame["__fc_n"].iloc[0])

    def labels(self, confusion: Optional[ConfusionCounts] = None) -> ConfusionCounts:
        """The labels counted against themselves (TN = negatives, TP = positives), atoms included.

        From the atoms of `confusion` (a score's confusion counts with atoms, over every kept row: the same
        patterns) when given, with no scan: negatives TN + FP, positives FN + TP of each pattern."""
        if confusion is not None and confusion.atoms is not None:
            c, a = confusion.atoms.counts, confusion.atoms
            counts = np.zeros_like(c)
            counts[:, 0], counts[:, 3] = c[:, 0] + c[:, 1], c[:, 2] + c[:, 3]
            return ConfusionCounts.of_atoms(confusion.names, Atoms(counts, a.member, a.background), self.m.min_size,
                                            disjoint=confusion.disjoint)
        return self._confusion(None, [], lambda f: 3 * self._y(f), self._first_rows(),
                               lambda c: 3 * c["__fc_y"].astype(np.int64))

    def given(self) -> ConfusionCounts:
        """Confusion counts of the predicted label column, atoms included."""
        return self._confusion(None, ["__fc_given"], lambda f: 2 * self._y(f) + f["__fc_c0"].to_numpy(dtype=np.int64),
                               self._kept("given"), lambda c: 2 * c["__fc_y"].astype(np.int64) + c["__fc_pred"])

    def confusion_and_auc(self, score: str, threshold: float, counts: AucCounts,
                          n_patterns: int) -> tuple[ConfusionCounts, AucCounts]:
        """:meth:`confusion` at `threshold` and :meth:`auc` of `score` from one pattern query: per pattern, label,
        prediction and level group (the rows of one group split by the threshold at most), so the two tables cost
        one scan. `n_patterns` (``pattern_count_query``: at least the patterns) chooses the level groups; should
        the patterns read be fewer and choose others (``level_groups``), the AUC atoms are counted again."""
        if self._kept(("level", score)) is not None:   # no identity columns: both summed from the kept rows
            confusion = self.confusion(score, threshold)
            return confusion, self.auc(score, counts, len(confusion.atoms.counts))
        n_merged, group, bins = self._grouping(score, counts, n_patterns)
        predicted = f"CAST(__fc_p >= {_sql.literal(float(threshold))} AS INT)"
        frame = self.run(_sql_patterns.pattern_query(self.plan, score, [predicted, group], bins=bins,
                                            with_missing=self.with_missing))
        keys, y = _Keys(frame, self.m, self.binned), self._y(frame)
        cells = [frame[f"__fc_c{i}"].to_numpy(dtype=np.int64) for i in (0, 1)]
        atoms, _ = _atoms_of(keys, keys.key, frame, 2 * y + cells[0], 4, self.with_missing)
        confusion = ConfusionCounts.of_atoms(keys.names, atoms, self.m.min_size, disjoint=keys.disjoint)
        if self._grouping(score, counts, len(atoms.counts))[0] != n_merged:   # fewer patterns than keys: other groups
            return confusion, self.auc(score, counts, len(atoms.counts))
        levels, _ = _atoms_of(keys, keys.key, frame, 2 * cells[1] + y, 2 * n_merged, self.with_missing)
        return confusion, dataclasses.replace(counts, patterns=(levels, n_merged))

    def _grouping(self, score: str, counts: AucCounts, n_patterns: int) -> tuple[int, str, Optional[tuple]]:
        """(number of level groups, the SQL of a row's group, the AUC bins behind ``__fc_level`` or None) for rows
        with `n_patterns` patterns (``level_groups``)."""
        n_merged, starts = self._starts(counts, n_patterns)
        bins = None
        if counts.exact:
            expr, bounds = "__fc_p", counts.levels[starts]
        else:
            low, high = self.ranges[score]
            start, step = uniform_score_bins(low, high, self.auc_bins)
            bins, expr, bounds = (start, step, self.auc_bins), "__fc_level", starts
        return n_merged, _sql_counts.count_at_or_below(expr, bounds), bins

    @staticmethod
    def _starts(counts: AucCounts, n_patterns: int) -> tuple[int, np.ndarray]:
        """(number of level groups, the first level of each group but the first): :func:`_group_starts`."""
        return _group_starts(counts, n_patterns)

    def auc(self, score: str, counts: AucCounts, n_patterns: int) -> AucCounts:
        """`counts` with its ``patterns``: per pattern, label and group of merged levels (``_stats.auc_bootstrap``,
        ``level_groups`` of the `n_patterns` patterns the kept rows have)."""
        rows = self._kept(("level", score))
        if rows is not None:   # the level of each row of the counts query: its group is the starts at or below it
            n_merged, starts = _group_starts(counts, n_patterns)
            c = rows.columns
            merged = np.searchsorted(starts, c["__fc_level"], side="right")
            atoms, _ = _atoms_of(rows.keys, rows.key, c, 2 * merged + c["__fc_y"], 2 * n_merged)
            return dataclasses.replace(counts, patterns=(atoms, n_merged))
        n_merged, group, bins = self._grouping(score, counts, n_patterns)
        _, atoms, _ = self._atoms(score, [group],
                                  lambda f: (2 * f["__fc_c0"].to_numpy(dtype=np.int64) + self._y(f), 2 * n_merged),
                                  bins=bins)
        return dataclasses.replace(counts, patterns=(atoms, n_merged))

    def calibration(self, score: str, edges: np.ndarray, strategy: str) -> CalibrationCounts:
        """Calibration counts with `edges`, atoms included: per pattern, bin, sub-bin and label."""
        nb = len(edges) - 1

        def cell(f: pd.DataFrame):
            return ((f["__fc_c0"].to_numpy(dtype=np.int64) * SUB_BINS + f["__fc_c1"].to_numpy(dtype=np.int64)) * 2
                    + self._y(f)), nb * SUB_BINS * 2

        rows = self._kept(("cal", score), edges)
        if rows is not None:   # the calibration counts query's rows, per bin and sub-bin
            keys, c = rows.keys, rows.columns
            atoms, summed = _atoms_of(keys, rows.key, c, (c["__fc_cal"].astype(np.int64) * SUB_BINS + c["__fc_sub"]) * 2
                                      + c["__fc_y"], nb * SUB_BINS * 2)
        else:
            keys, atoms, summed = self._atoms(score, ["__fc_cal", _sql_counts.sub_bin(edges, SUB_BINS)], cell,
                                              cal_edges=edges)
        sum_p, sum_sq = summed("__fc_sp"), summed("__fc_sq")
        return CalibrationCounts.of_atoms(keys.names, np.asarray(edges, dtype=np.float64), strategy,
                                          CalibrationAtoms.of_sums(atoms, sum_p, sum_sq, nb), sum_p, sum_sq,
                                          self.m.min_size)


def _group_starts(counts: AucCounts, n_patterns: int) -> tuple[int, np.ndarray]:
    """(number of level groups, the first level of each group but the first) of the AUC atoms of rows with
    `n_patterns` patterns (``level_groups`` of the counts' level totals)."""
    group = level_groups(counts.overall.sum(axis=0), n_patterns)
    return (int(group[-1]) + 1 if len(group) else 0), np.flatnonzero(np.diff(group)) + 1


def _assemble(frame: pd.DataFrame, m: ColumnMapping, bins, attribute_bins: Optional[dict] = None,
              threshold: Optional[float] = None):
    """The keys, ConfusionCounts, AucCounts and the rows kept for the atoms (:class:`_Rows`: each row's key, label,
    level number, prediction at `threshold` and count) from the rows of the counts query."""
    y = frame["__fc_y"].to_numpy(dtype=np.int64)
    n = frame["__fc_n"].to_numpy(dtype=np.float64)
    keys = _Keys(frame, m, attribute_bins)
    key = keys.key
    pred = frame["__fc_pred"].to_numpy(dtype=np.int64)
    sums = _sums(frame)
    cm, cb, co = keys.tables(frame, 2 * y + pred, 4, sums, key)
    confusion = ConfusionCounts(keys.names, cm["n"], cb["n"], co["n"], m.min_size, disjoint=keys.disjoint,
                                **_squares(cm, cb, co))
    if bins is None:   # exact levels: the distinct scores
        levels, level = np.unique(frame["__fc_level"].to_numpy(dtype=np.float64), return_inverse=True)
        edges = None
    else:
        edges = bins[3]
        levels, level = edges[:-1], frame["__fc_level"].to_numpy(dtype=np.int64)
    n_levels = len(levels)
    level = level.reshape(-1)
    am, ab, ao = keys.tables(frame, y * n_levels + level, 2 * n_levels, sums, key, as_sparse=True,
                             dtype=np.float64 if "ss" in sums else np.int64)   # counts of rows: whole numbers
    if "ss" in sums:   # sums of weights and of squared weights, as floats (``auc_counts(sample_weight=)``)
        auc = AucCounts(keys.names, levels, edges, am["n"], ab["n"], ao["n"].reshape(2, n_levels), m.min_size,
                        disjoint=keys.disjoint, member_sq=am["ss"], background_sq=ab["ss"],
                        overall_sq=ao["ss"].reshape(2, n_levels))
    else:
        auc = AucCounts(keys.names, levels, edges, am["n"], ab["n"],
                        ao["n"].reshape(2, n_levels).astype(np.int64), m.min_size, disjoint=keys.disjoint)
    small = {"__fc_y": y.astype(np.int8), "__fc_level": level.astype(np.int32), "__fc_pred": pred.astype(np.int8)}
    rows = _Rows(keys, key.astype(np.int32), {**small, "__fc_n": n}, threshold)   # a row per score level: kept small
    return keys, confusion, auc, rows


def _given_counts(frame: pd.DataFrame, m: ColumnMapping, binned: dict) -> tuple[ConfusionCounts, _Rows]:
    """ConfusionCounts of the predicted label column from the rows of the given-predictions query, and those rows
    kept for the atoms (:class:`_Rows`)."""
    keys = _Keys(frame, m, binned)
    key = keys.key
    cell = 2 * frame["__fc_y"].to_numpy(dtype=np.int64) + frame["__fc_pred"].to_numpy(dtype=np.int64)
    member, background, overall = keys.tables(frame, cell, 4, _sums(frame), key)
    return (ConfusionCounts(keys.names, member["n"], background["n"], overall["n"], m.min_size, disjoint=keys.disjoint,
                            **_squares(member, background, overall)),
            _Rows.of(keys, key, frame, ("__fc_y", "__fc_pred", "__fc_n")))


def _sums(frame: pd.DataFrame) -> dict:
    """The quantities of :meth:`_Keys.tables` in a query's rows: ``n`` (rows, or sums of weights) and, with a weight
    column, ``ss`` (sums of squared weights, ``__fc_ss``)."""
    sums = {"n": frame["__fc_n"].to_numpy(dtype=np.float64)}
    if "__fc_ss" in frame:
        sums["ss"] = frame["__fc_ss"].to_numpy(dtype=np.float64)
    return sums


def _squares(member: dict, background: dict, overall: dict) -> dict:
    """``member_sq, background_sq, overall_sq`` of weighted confusion counts from :meth:`_Keys.tables` of
    :func:`_sums` (none without weights)."""
    if "ss" not in member:
        return {}
    return dict(member_sq=member["ss"], background_sq=background["ss"], overall_sq=overall["ss"])


def _class_counts(frame: pd.DataFrame, m: ColumnMapping, binned: dict) -> ClassCounts:
    """ClassCounts from the rows of the classes query: classes are the kept rows' label and predicted values as
    text, sorted (``ScoredData``'s vocabulary), each cell ``true * K + predicted``."""
    true, predicted = (np.asarray(_as_text(frame[c].tolist()), dtype=object) for c in ("__fc_t", "__fc_q"))
    vocabulary = sorted(set(true.tolist()) | set(predicted.tolist()))
    position = {text: i for i, text in enumerate(vocabulary)}
    k = len(vocabulary)
    cell = np.array([position[t] * k + position[p] for t, p in zip(true, predicted)], dtype=np.int64)
    keys = _Keys(frame, m, binned)
    member, _, overall = keys.tables(frame, cell, k * k, _sums(frame))
    squares = {} if "ss" not in member else {"member_sq": member["ss"].reshape(-1, k, k)}   # per cell
    return ClassCounts(keys.names, vocabulary, member["n"].reshape(-1, k, k), overall["n"].reshape(k, k),
                       np.zeros(len(keys.names)), 0, m.min_size, **squares)


def _calibration(frame: pd.DataFrame, keys: _Keys, cal_edges: np.ndarray, strategy: str,
                 key: Optional[np.ndarray] = None) -> CalibrationCounts:
    """CalibrationCounts from the rows of the calibration query (grouped by calibration bin, its sub-bins and label;
    the sub-bins summed); `key` as in :meth:`_Keys.tables`."""
    y = frame["__fc_y"].to_numpy(dtype=np.int64)
    cal = frame["__fc_cal"].to_numpy(dtype=np.int64)
    nb = len(cal_edges) - 1
    sums = {q: frame[f"__fc_{q}"].to_numpy(dtype=np.float64) for q in ("n", "sp", "spp", "ss") if f"__fc_{q}" in frame}
    tables = keys.tables(frame, 2 * cal + y, 2 * nb, sums, key)

    def stats(t: dict) -> np.ndarray:   # (..., 2 * n_bins) by (bin, label) -> (..., 4, n_bins)
        cnt, s1, s2 = (t[q].reshape(*t[q].shape[:-1], nb, 2) for q in ("n", "sp", "spp"))
        sq = s2.sum(-1) - 2 * s1[..., 1] + cnt[..., 1]   # sum of (p - y)^2 = sum p^2 - 2 sum_{y=1} p + n_{y=1}
        return np.stack([cnt.sum(-1), s1.sum(-1), cnt[..., 1], sq], axis=-2)

    squares = {} if "ss" not in sums else dict(zip(   # per bin, over both labels
        ("member_sq", "background_sq", "overall_sq"), (t["ss"].reshape(*t["ss"].shape[:-1], nb, 2).sum(-1)
                                                       for t in tables)))
    return CalibrationCounts(keys.names, np.asarray(cal_edges, dtype=np.float64), strategy,
                             *(stats(t) for t in tables), keys.m.min_size, **squares)
