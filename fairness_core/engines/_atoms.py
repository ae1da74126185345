"""The atom queries of scored_counts and the count tables assembled from their rows."""

from __future__ import annotations

import dataclasses
from typing import Callable, Optional

import numpy as np
import pandas as pd

from . import _sql
from .._counts.binning import SUB_BINS
from .._counts.calibration import CalibrationAtoms, CalibrationCounts
from .._counts.classes import ClassCounts
from .._counts.confusion import ConfusionCounts
from .._counts.patterns import over_patterns
from .._counts.scored_data import MAX_SUBGROUPS, ColumnMapping, _as_text
from .._metrics.auc_counts import AucCounts, uniform_score_bins
from .._stats.auc_bootstrap import _merged_levels
from .._stats.bootstrap import Atoms
from .._subgroups.subgroups import Subgroups


class _AtomQueries:
    """The pattern queries behind :meth:`ScoredCounts.with_atoms`: each table's counts per (membership pattern,
    cell), numbered as ``Subgroups.patterns`` numbers the patterns of rows in memory."""

    def __init__(self, run: Callable, plan: _sql.Plan, m: ColumnMapping, binned: dict, with_missing: list,
                 auc_bins: Optional[int], ranges: dict):
        self.run, self.plan, self.m, self.binned, self.with_missing = run, plan, m, binned, with_missing
        self.auc_bins, self.ranges = auc_bins, ranges

    def _atoms(self, score: Optional[str], cells: list, cell: Callable, **kw):
        """(keys, Atoms, sums) of one pattern query: `cell` maps its frame to (each row's cell, number of cells);
        ``sums(column)`` adds up another column of the result per (pattern, cell)."""
        frame = self.run(_sql.pattern_query(self.plan, score, cells, with_missing=self.with_missing, **kw))
        keys = _Keys(frame, self.m, self.binned)
        n = len(frame)
        member, background = [np.zeros((n, 0), dtype=bool)], [np.zeros((n, 0), dtype=bool)]
        if keys.prot is not None:
            key = keys.index(frame)
            member.append(np.asarray(keys.prot.membership, dtype=bool)[key])
            background.append(np.asarray(keys.prot.background, dtype=bool)[key])
        for j in range(len(self.m.indicators)):
            inside = frame[f"__fc_m{j}"].to_numpy(dtype=np.int64) == 1
            missing = (frame[f"__fc_x{j}"].to_numpy(dtype=np.int64) == 1) if f"__fc_x{j}" in frame else False
            member.append(inside[:, None])
            background.append((~inside & ~missing)[:, None])
        member, background = np.hstack(member), np.hstack(background)
        if keys.disjoint:   # a pattern per subgroup, in subgroup order (Subgroups.patterns)
            present, pattern = np.unique(np.argmax(member, axis=1), return_inverse=True)
            eye = np.eye(len(keys.names), dtype=bool)[present]
            masks = (eye, ~eye)
        else:               # the distinct [member | background] bit rows, in increasing order (Subgroups.patterns)
            bits, pattern = np.unique(np.hstack([member, background]), axis=0, return_inverse=True)
            k = member.shape[1]
            masks = (bits[:, :k], bits[:, k:])
        pattern = pattern.reshape(-1)
        n_patterns = len(masks[0])
        cell_of_row, n_cells = cell(frame)
        index = pattern * n_cells + cell_of_row

        def summed(column: str) -> np.ndarray:
            return np.bincount(index, weights=frame[column].to_numpy(dtype=np.float64),
                               minlength=n_patterns * n_cells).reshape(n_patterns, n_cells)

        return keys, Atoms(summed("__fc_n"), *masks), summed

    def _confusion(self, score: Optional[str], cells: list, cell: Callable) -> ConfusionCounts:
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
                               lambda f: 2 * self._y(f) + f["__fc_c0"].to_numpy(dtype=np.int64))

    def n_patterns(self) -> int:
        """The distinct membership keys of the kept rows (``_sql.pattern_count_query``): at least the patterns."""
        frame = self.run(_sql.pattern_count_query(self.plan, with_missing=self.with_missing))
        return int(frame["__fc_n"].iloc[0])

    def labels(self) -> ConfusionCounts:
        """The labels counted against themselves (TN = negatives, TP = positives), atoms included."""
        return self._confusion(None, [], lambda f: 3 * self._y(f))

    def given(self) -> ConfusionCounts:
        """Confusion counts of the predicted label column, atoms included."""
        return self._confusion(None, ["__fc_given"], lambda f: 2 * self._y(f) + f["__fc_c0"].to_numpy(dtype=np.int64))

    def auc(self, score: str, counts: AucCounts) -> AucCounts:
        """`counts` with its ``patterns``: per pattern, label and group of merged levels (``_stats.auc_bootstrap``)."""
        group = _merged_levels(counts.overall.sum(axis=0))
        n_merged = int(group[-1]) + 1 if len(group) else 0
        starts = np.flatnonzero(np.diff(group)) + 1   # the first level of each group but the first
        bins = None
        if counts.exact:
            expr, bounds = "__fc_p", counts.levels[starts]
        else:
            low, high = self.ranges[score]
            start, step = uniform_score_bins(low, high, self.auc_bins)
            bins, expr, bounds = (start, step, self.auc_bins), "__fc_level", starts
        _, atoms, _ = self._atoms(score, [_sql.count_at_or_below(expr, bounds)],
                                  lambda f: (2 * f["__fc_c0"].to_numpy(dtype=np.int64) + self._y(f), 2 * n_merged),
                                  bins=bins)
        return dataclasses.replace(counts, patterns=(atoms, n_merged))

    def calibration(self, score: str, edges: np.ndarray, strategy: str) -> CalibrationCounts:
        """Calibration counts with `edges`, atoms included: per pattern, bin, sub-bin and label."""
        nb = len(edges) - 1

        def cell(f: pd.DataFrame):
            return ((f["__fc_c0"].to_numpy(dtype=np.int64) * SUB_BINS + f["__fc_c1"].to_numpy(dtype=np.int64)) * 2
                    + self._y(f)), nb * SUB_BINS * 2

        keys, atoms, summed = self._atoms(score, ["__fc_cal", _sql.sub_bin(edges, SUB_BINS)], cell, cal_edges=edges)
        sum_p, sum_sq = summed("__fc_sp"), summed("__fc_sq")
        return CalibrationCounts.of_atoms(keys.names, np.asarray(edges, dtype=np.float64), strategy,
                                          CalibrationAtoms.of_sums(atoms, sum_p, sum_sq, nb), sum_p, sum_sq,
                                          self.m.min_size)


class _Keys:
    """The distinct protected-attribute values of the kept rows and their subgroups (the in-memory rules).

    The subgroups are built by ``Subgroups.from_attributes`` on one row per distinct combination of
    values, so names, order and missing values follow the in-memory library exactly; identity columns
    follow as subgroups of their own.
    """

    def __init__(self, frame: pd.DataFrame, m: ColumnMapping, bins: Optional[dict] = None):
        self.m = m
        self.prot = None
        self.frame = pd.DataFrame(index=[0])
        if m.protected:
            key = frame.groupby(list(m.protected), dropna=False, sort=False).ngroup().to_numpy()
            first = pd.Series(np.arange(len(key))).groupby(key).first().to_numpy()
            self.frame = frame.loc[first, list(m.protected)].reset_index(drop=True)
            self.prot = Subgroups.from_attributes(self.frame, list(m.protected), intersect=m.intersect, bin_edges=bins,
                                                  min_size=m.min_size, n_bins=m.n_bins,
                                                  max_subgroups=MAX_SUBGROUPS - len(m.indicators))
        self.names = (list(self.prot.names) if self.prot is not None else []) + list(m.indicators)
        if len(self.names) > MAX_SUBGROUPS:
            from .._subgroups.subgroups import TOO_MANY_MESSAGE
            raise ValueError(TOO_MANY_MESSAGE.format(n=len(self.names), max=MAX_SUBGROUPS))
        self.disjoint = self.prot is not None and self.prot.codes is not None and not m.indicators

    def index(self, frame: pd.DataFrame) -> np.ndarray:
        """The key number of each row of a query result (its protected values among ``self.frame``'s)."""
        if self.prot is None:
            return np.zeros(len(frame), dtype=np.int64)
        cols = list(self.m.protected)
        numbered = self.frame.assign(__fc_key=np.arange(len(self.frame)))
        merged = frame[cols].merge(numbered, on=cols, how="left", sort=False)
        return merged["__fc_key"].to_numpy(dtype=np.int64)

    def tables(self, frame: pd.DataFrame, cell: np.ndarray, n_cells: int, weights: dict) -> tuple[dict, dict, dict]:
        """Per quantity q of `weights`: member (k, n_cells), background (k, n_cells) and overall (n_cells,) sums.

        Protected subgroups: the sums per key times the membership (background) masks of the keys.
        Identity column j: its member sums ``__fc_m{q}{j}``; its background is every row minus the
        members minus the rows where it is missing (``__fc_x{q}{j}``).
        """
        from scipy import sparse

        key = self.index(frame)
        member, background, overall = {}, {}, {}
        for q, w in weights.items():
            by_key = sparse.csr_matrix((w, (key, cell)), shape=(len(self.frame), n_cells))
            total = np.asarray(by_key.sum(axis=0)).reshape(-1)
            rows_m, rows_b = [], []
            if self.prot is not None:
                rows_m.append((sparse.csr_matrix(self.prot.membership.T.astype(np.float64)) @ by_key).toarray())
                rows_b.append((sparse.csr_matrix(self.prot.background.T.astype(np.float64)) @ by_key).toarray())
            for j in range(len(self.m.indicators)):
                mem = np.bincount(cell, weights=frame[f"__fc_m{q}{j}"].to_numpy(dtype=np.float64), minlength=n_cells)
                missing = f"__fc_x{q}{j}"
                mis = (np.bincount(cell, weights=frame[missing].to_numpy(dtype=np.float64), minlength=n_cells)
                       if missing in frame else 0.0)
                rows_m.append(mem[None])
                rows_b.append((total - mem - mis)[None])
            member[q] = np.vstack(rows_m) if rows_m else np.zeros((0, n_cells))
            background[q] = np.vstack(rows_b) if rows_b else np.zeros((0, n_cells))
            overall[q] = total
        return member, background, overall


def _assemble(frame: pd.DataFrame, m: ColumnMapping, bins, attribute_bins: Optional[dict] = None):
    """The keys, ConfusionCounts and AucCounts from the rows of the counts query."""
    from scipy import sparse

    y = frame["__fc_y"].to_numpy(dtype=np.int64)
    n = frame["__fc_n"].to_numpy(dtype=np.float64)
    keys = _Keys(frame, m, attribute_bins)
    cm, cb, co = keys.tables(frame, 2 * y + frame["__fc_pred"].to_numpy(dtype=np.int64), 4, {"n": n})
    confusion = ConfusionCounts(keys.names, cm["n"], cb["n"], co["n"], m.min_size, disjoint=keys.disjoint)
    if bins is None:   # exact levels: the distinct scores
        levels, level = np.unique(frame["__fc_level"].to_numpy(dtype=np.float64), return_inverse=True)
        edges = None
    else:
        edges = bins[3]
        levels, level = edges[:-1], frame["__fc_level"].to_numpy(dtype=np.int64)
    n_levels = len(levels)
    am, ab, ao = keys.tables(frame, y * n_levels + level.reshape(-1), 2 * n_levels, {"n": n})
    auc = AucCounts(keys.names, levels, edges, sparse.csr_matrix(am["n"].astype(np.int64)),
                    sparse.csr_matrix(ab["n"].astype(np.int64)), ao["n"].reshape(2, n_levels).astype(np.int64),
                    m.min_size, disjoint=keys.disjoint)
    return keys, confusion, auc


def _given_counts(frame: pd.DataFrame, m: ColumnMapping, binned: dict) -> ConfusionCounts:
    """ConfusionCounts of the predicted label column from the rows of the given-predictions query."""
    keys = _Keys(frame, m, binned)
    cell = 2 * frame["__fc_y"].to_numpy(dtype=np.int64) + frame["__fc_pred"].to_numpy(dtype=np.int64)
    member, background, overall = keys.tables(frame, cell, 4, {"n": frame["__fc_n"].to_numpy(dtype=np.float64)})
    return ConfusionCounts(keys.names, member["n"], background["n"], overall["n"], m.min_size, disjoint=keys.disjoint)


def _class_counts(frame: pd.DataFrame, m: ColumnMapping, binned: dict) -> ClassCounts:
    """ClassCounts from the rows of the classes query: classes are the kept rows' label and predicted values as
    text, sorted (``ScoredData``'s vocabulary), each cell ``true * K + predicted``."""
    true, predicted = (np.asarray(_as_text(frame[c].tolist()), dtype=object) for c in ("__fc_t", "__fc_q"))
    vocabulary = sorted(set(true.tolist()) | set(predicted.tolist()))
    position = {text: i for i, text in enumerate(vocabulary)}
    k = len(vocabulary)
    cell = np.array([position[t] * k + position[p] for t, p in zip(true, predicted)], dtype=np.int64)
    keys = _Keys(frame, m, binned)
    member, _, overall = keys.tables(frame, cell, k * k, {"n": frame["__fc_n"].to_numpy(dtype=np.float64)})
    return ClassCounts(keys.names, vocabulary, member["n"].reshape(-1, k, k), overall["n"].reshape(k, k),
                       np.zeros(len(keys.names)), 0, m.min_size)


def _calibration(frame: pd.DataFrame, keys: _Keys, cal_edges: np.ndarray, strategy: str) -> CalibrationCounts:
    """CalibrationCounts from the rows of the calibration query (grouped by calibration bin and label)."""
    y = frame["__fc_y"].to_numpy(dtype=np.int64)
    cal = frame["__fc_cal"].to_numpy(dtype=np.int64)
    nb = len(cal_edges) - 1
    sums = {q: frame[f"__fc_{q}"].to_numpy(dtype=np.float64) for q in ("n", "sp", "spp")}
    tables = keys.tables(frame, 2 * cal + y, 2 * nb, sums)

    def stats(t: dict) -> np.ndarray:   # (..., 2 * n_bins) by (bin, label) -> (..., 4, n_bins)
        cnt, s1, s2 = (t[q].reshape(*t[q].shape[:-1], nb, 2) for q in ("n", "sp", "spp"))
        sq = s2.sum(-1) - 2 * s1[..., 1] + cnt[..., 1]   # sum of (p - y)^2 = sum p^2 - 2 sum_{y=1} p + n_{y=1}
        return np.stack([cnt.sum(-1), s1.sum(-1), cnt[..., 1], sq], axis=-2)

    return CalibrationCounts(keys.names, np.asarray(cal_edges, dtype=np.float64), strategy,
                             *(stats(t) for t in tables), keys.m.min_size)
