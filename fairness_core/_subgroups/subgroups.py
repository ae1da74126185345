"""Subgroups: which rows belong to which protected subgroup, and which rows form its background."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._data.checks import NUMERIC_MESSAGE, check_int, check_length

MISSING = "(missing)"
COLUMN_MESSAGE = "Subgroups.{func}: column {col!r} is not in the data. Available columns: {available}."
NO_COLUMNS_MESSAGE = "Subgroups.{func}: choose at least one column."
TOO_MANY_MESSAGE = (
    "The chosen columns give {n:,} subgroups (at most {max:,} can be shown). Tip: choose attributes "
    "with fewer distinct values, turn off intersections, or bin numeric columns."
)
# crosstab counts a (patterns x cells) table at once when it has at most this many cells, or at
# most twice as many as there are rows; beyond that, one bincount per subgroup.
MAX_PATTERN_CELLS = 1 << 22
# Numeric columns: distinct values looked for in this many leading rows before a full count.
_PEEK_ROWS = 10_000
INDICATOR_TYPE_MESSAGE = (
    "Subgroups.from_indicators: identity column {col!r} must be numeric (0/1 or a probability); "
    "it holds {dtype} values. Tip: use it as a protected attribute instead."
)
INDICATOR_RANGE_MESSAGE = (
    "Subgroups.from_indicators: identity column {col!r} holds values from {low:g} to {high:g}, outside [0, 1]; an "
    "identity indicator is 0/1 or the share of annotators who saw the identity. Tip: use it as a protected "
    "attribute instead."
)


@dataclass(frozen=True, eq=False)
class Subgroups:
    """Protected subgroups of a dataset, as boolean masks over its rows.

    Parameters
    ----------
    names : list of str, length n_subgroups
        Display labels, in the fixed order of every per-subgroup table.
    membership : ndarray of bool, shape (n_samples, n_subgroups)
        ``membership[i, j]`` is True when row i belongs to subgroup j.
    background : ndarray of bool, shape (n_samples, n_subgroups)
        ``background[i, j]`` is True when row i is validly *not* in subgroup j (it may belong to
        other subgroups). Rows in neither mask (a missing indicator value) take no part in the
        metrics of subgroup j.
    min_size : int, default=30
        Subgroups with fewer rows are flagged ``small`` and left out of reductions unless a metric
        is called with ``include_small=True``.
    codes : ndarray of int of shape (n_samples,) or None
        For disjoint subgroups that cover every row (intersections of attribute values, a missing
        value being a value of its own), the index of each row's subgroup, consistent with
        `membership` (``membership[i, codes[i]]`` is the only True of row i); lets counts be taken
        with one ``np.bincount``. None when subgroups overlap or leave rows out.

    Notes
    -----
    Build it with :meth:`from_attributes` or :meth:`from_indicators`; see ARCHITECTURE.md §4.
    """

    names: list[str]
    membership: np.ndarray
    background: np.ndarray
    min_size: int = 30
    codes: np.ndarray | None = field(default=None, repr=False)

    @property
    def n_samples(self) -> int:
        """Number of rows the masks describe."""
        return self.membership.shape[0]

    @cached_property
    def sizes(self) -> np.ndarray:
        """Rows in each subgroup, shape (n_subgroups,) (float, computed once, read-only)."""
        if self.codes is not None:
            sizes = np.bincount(self.codes, minlength=len(self.names)).astype(np.float64)
        else:
            codes, member, _ = self.patterns
            rows = np.bincount(codes, minlength=member.shape[0])
            sizes = (rows @ member).astype(np.float64)  # integer product: exact
        sizes.flags.writeable = False
        return sizes

    @property
    def small(self) -> np.ndarray:
        """Boolean flag per subgroup: fewer rows than ``min_size``."""
        return self.sizes < self.min_size

    @property
    def n_rows_small(self) -> int:
        """Rows that belong to at least one small subgroup (fewer rows than ``min_size``).

        With intersected attributes, many combinations can each be small although together they
        hold a large share of the data; this says how many rows that is. Computed from the
        membership patterns, so it costs one pass over the patterns, not the rows.
        """
        codes, member, _ = self.patterns
        if not len(self.names) or not member.shape[0]:
            return 0
        in_small = (member & self.small[None, :]).any(axis=1)
        return int(np.bincount(codes, minlength=member.shape[0])[in_small].sum())

    def sum(self, values: np.ndarray) -> np.ndarray:
        """Sum `values` (shape (n_samples,)) over the rows of each subgroup -> shape (n_subgroups,)."""
        return self.crosstab(np.zeros(self.n_samples, np.intp), 1, values)[0][:, 0]

    @cached_property
    def patterns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each row's membership pattern, and the masks of each pattern (computed once).

        Rows with the same pattern are members of the same subgroups and background of the same
        subgroups, so every per-subgroup count is a sum over patterns. The bootstrap resamples
        within patterns (see ``_bootstrap.Atoms``).

        Returns
        -------
        codes : ndarray of int, shape (n_samples,)
            Each row's pattern index.
        member, background : ndarray of bool, shape (n_patterns, n_subgroups)
            The membership and background masks of each pattern.
        """
        k = len(self.names)
        if self.codes is not None:  # disjoint subgroups covering every row: a pattern per subgroup
            eye = np.eye(k, dtype=bool)
            return self.codes.astype(np.intp, copy=False), eye, ~eye
        # Patterns are the distinct rows of [membership | background], ordered as their bit
        # strings (first column most significant). The bits are packed into big-endian 64-bit
        # words, and each word is factorized (hashing, not a sort of rows) and combined in turn.
        # Packing each mask on its own pads the membership bits to whole bytes: same order.
        n = self.n_samples
        words = _packed_rows([self.membership, self.background]).view(">u8").astype(np.uint64)
        n_words = words.shape[1]
        codes, n_codes = np.zeros(n, np.intp), 1
        for w in range(n_words):
            word_codes, uniques = pd.factorize(words[:, w], sort=True)
            codes, n_codes = _combine(codes, n_codes, word_codes, len(uniques))
        first = _representatives(codes, n_codes)
        return codes, self.membership[first], self.background[first]

    def crosstab(self, cell: np.ndarray, n_cells: int, weights: np.ndarray | None = None):
        """Counts (or sums of `weights`) per subgroup and cell, for members and for the background.

        This is the one primitive behind every sufficient statistic: confusion cells, calibration
        bins. Disjoint subgroups take one ``np.bincount``; overlapping ones one ``np.bincount`` over
        (membership pattern, cell) and a sum over the patterns of each subgroup (``member.T @ counts``;
        exact for counts), or, for very many patterns (see ``MAX_PATTERN_CELLS``), one bincount
        per subgroup.

        Parameters
        ----------
        cell : ndarray of int, shape (n_samples,)
            Each row's cell index in ``[0, n_cells)``.
        n_cells : int
        weights : ndarray of shape (n_samples,), optional
            Sum these instead of counting rows.

        Returns
        -------
        member, background : ndarray of float, shape (n_subgroups, n_cells)
        """
        k = len(self.names)
        w = None if weights is None else np.asarray(weights, dtype=np.float64)
        if self.codes is not None:
            member = np.bincount(self.codes * n_cells + cell, weights=w, minlength=k * n_cells)
            member = member.reshape(k, n_cells).astype(np.float64)
            total = np.bincount(cell, weights=w, minlength=n_cells).astype(np.float64)
            return member, total[None, :] - member
        codes, member, background = self.patterns
        n_patterns = member.shape[0]
        if n_patterns * n_cells <= max(MAX_PATTERN_CELLS, 2 * self.n_samples):
            counts = np.bincount(codes * n_cells + cell, weights=w, minlength=n_patterns * n_cells)
            counts = counts.reshape(n_patterns, n_cells).astype(np.float64)
            # einsum, not a BLAS product: multi-threaded BLAS on these small tables is slow on a busy machine.
            return (np.einsum("pk,pc->kc", member.astype(np.float64), counts),
                    np.einsum("pk,pc->kc", background.astype(np.float64), counts))
        out = []
        for masks in (self.membership, self.background):
            out.append(np.array([
                np.bincount(cell[masks[:, j]], weights=None if w is None else w[masks[:, j]], minlength=n_cells)
                for j in range(k)], dtype=np.float64).reshape(k, n_cells))
        return out[0], out[1]

    @classmethod
    def from_attributes(
        cls,
        data: pd.DataFrame,
        columns: Sequence[str],
        *,
        intersect: bool = True,
        min_size: int = 30,
        n_bins: int = 4,
        max_categories: int = 10,
        max_subgroups: int | None = None,
        bin_edges: dict | None = None,
    ) -> "Subgroups":
        """Subgroups from categorical protected attributes.

        With ``intersect=True`` the subgroups are the observed combinations of the values of all
        `columns` (disjoint). With ``intersect=False`` every value of every column is a subgroup
        (subgroups of different columns overlap). A missing value is its own value, ``(missing)``.
        A numeric column with more than `max_categories` distinct values is cut into `n_bins`
        quantile bins named by their ranges, e.g. ``(25, 35]``.

        Labels: with one column the value itself (``Female``); otherwise ``column=value`` joined by
        ``", "`` (``race=Black, sex=Female``). Order: combinations sorted by value (bins in
        numeric order, ``(missing)`` last), then columns in the order given.

        Parameters
        ----------
        data : DataFrame of shape (n_samples, n_columns)
        columns : sequence of str
            The protected attribute columns.
        intersect : bool, default=True
        min_size : int, default=30
            Subgroups with fewer rows are flagged small.
        n_bins : int, default=4
            Quantile bins for numeric columns with many values.
        max_categories : int, default=10
            A numeric column with at most this many distinct values is used as categories.
        max_subgroups : int, optional
            Refuse (before any mask is built) to make more subgroups than this.
        bin_edges : dict of str -> ndarray, optional
            Quantile bin edges of numeric columns computed elsewhere (by an engine, over rows that
            are not in `data`: ``quantile_edges_from_counts``); such a column is cut on these edges
            into bins labelled as above, whatever its number of values here.

        Returns
        -------
        Subgroups

        Raises
        ------
        ValueError
            If a column is missing, no column is given, or there would be more than
            `max_subgroups` subgroups (the message is ``TOO_MANY_MESSAGE``).
        """
        columns = _check_columns(data, columns, "from_attributes")
        min_size = check_int(min_size, 1, "min_size", "Subgroups.from_attributes")
        n_bins = check_int(n_bins, 2, "n_bins", "Subgroups.from_attributes")
        edges = bin_edges or {}
        coded = [_cut(data[c], edges[c]) if c in edges else _codes(data[c], n_bins, max_categories) for c in columns]
        n = len(data)
        if intersect:
            if n == 0:
                return cls([], np.zeros((0, 0), bool), np.zeros((0, 0), bool), min_size, np.zeros(0, np.intp))
            # Mixed-radix key of the per-column codes, compacted to the observed combinations
            # (their order is the lexicographic order of the codes: sorted values, missing last).
            inverse, k = coded[0][0].astype(np.intp), len(coded[0][1])  # a fresh array: updated in place
            for codes, labels in coded[1:]:
                if k * len(labels) >= 1 << 62:  # number the observed keys before the radix overflows
                    inverse, k = _compact(inverse, k)
                inverse *= len(labels)
                inverse += codes
                k *= len(labels)
            inverse, k = _compact(inverse, k)
            _check_count(k, max_subgroups)
            first = _representatives(inverse, k)
            names = []
            for combo in zip(*(codes[first] for codes, _ in coded)):
                parts = [(col, labels[c] if isinstance(labels, _BinLabels) or len(columns) == 1
                          else _part(labels[c], columns)) for col, c, (_, labels) in zip(columns, combo, coded)]
                names.append(parts[0][1] if len(parts) == 1 else ", ".join(f"{c}={v}" for c, v in parts))
            return cls(names, *_one_hot(inverse, np.ones(k, bool)), min_size, inverse)
        observed = [np.bincount(codes, minlength=len(labels)) > 0 for codes, labels in coded]
        _check_count(sum(int(seen.sum()) for seen in observed), max_subgroups)
        names = [labels[k] if len(columns) == 1 else f"{col}={labels[k]}"
                 for col, (_, labels), seen in zip(columns, coded, observed) for k in np.flatnonzero(seen)]
        masks = [_one_hot(codes, seen) for (codes, _), seen in zip(coded, observed)]
        membership, background = (np.hstack([m[i] for m in masks]) if masks else np.zeros((n, 0), bool)
                                  for i in (0, 1))
        codes = None
        if len(columns) == 1:  # one column: re-index the observed codes 0..k-1
            codes = (np.cumsum(observed[0]) - 1)[coded[0][0]].astype(np.intp)
        return cls(names, membership, background, min_size, codes)

    @classmethod
    def from_indicators(
        cls,
        data: pd.DataFrame,
        columns: Sequence[str],
        *,
        threshold: float = 0.5,
        min_size: int = 30,
    ) -> "Subgroups":
        """Subgroups from identity indicator columns (the Jigsaw layout).

        Each column is one subgroup: a row is a member when its value is >= `threshold`, in the
        background when it is < `threshold`, and in neither when the value is missing. Subgroups
        may overlap; their order is the column order.

        Parameters
        ----------
        data : DataFrame of shape (n_samples, n_columns)
        columns : sequence of str
            Numeric indicator columns (0/1, or a share of annotators in [0, 1]).
        threshold : float, default=0.5
            A finite number (NaN would make no row a member and no row background, silently).
        min_size : int, default=30

        Returns
        -------
        Subgroups

        Raises
        ------
        ValueError
            If a column is missing, not numeric, or holds values outside [0, 1]
            (``INDICATOR_RANGE_MESSAGE``), or `threshold` is not a finite number (``NUMERIC_MESSAGE``).
        """
        if (isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, (int, float, np.integer, np.floating))
                or not np.isfinite(threshold)):
            raise ValueError(NUMERIC_MESSAGE.format(param="threshold", func="Subgroups.from_indicators",
                                                    got=repr(threshold)))
        columns = _check_columns(data, columns, "from_indicators")
        min_size = check_int(min_size, 1, "min_size", "Subgroups.from_indicators")
        membership = np.empty((len(data), len(columns)), dtype=bool)
        background = np.empty_like(membership)
        missing = []
        for j, col in enumerate(columns):
            values = data[col]
            if values.dtype == bool:
                values = values.astype(float)
            if not pd.api.types.is_numeric_dtype(values):
                raise ValueError(INDICATOR_TYPE_MESSAGE.format(col=col, dtype=values.dtype))
            arr = values.to_numpy(dtype=np.float64, na_value=np.nan)
            low, high = np.nanmin(arr, initial=0.0), np.nanmax(arr, initial=0.0)
            if low < 0 or high > 1:
                raise ValueError(INDICATOR_RANGE_MESSAGE.format(col=col, low=low, high=high))
            np.greater_equal(arr, threshold, out=membership[:, j])
            if np.isnan(arr).any():
                missing.append((j, arr))
        np.logical_not(membership, out=background)  # without a missing value: background = not member
        for j, arr in missing:
            np.less(arr, threshold, out=background[:, j])
        return cls(list(columns), membership, background, min_size)

    def take(self, rows: np.ndarray) -> "Subgroups":
        """The same subgroups restricted to `rows` (a boolean mask or integer index)."""
        codes = None if self.codes is None else self.codes[rows]
        return Subgroups(list(self.names), self.membership[rows], self.background[rows], self.min_size, codes)

    def with_min_size(self, min_size: int) -> "Subgroups":
        """The same subgroups with another small-subgroup threshold."""
        return Subgroups(self.names, self.membership, self.background, min_size, self.codes)


def as_subgroups(subgroups: Any, n: int, func: str) -> Subgroups:
    """Accept a Subgroups, or protected attributes as a DataFrame, Series or array.

    Attributes mean ``Subgroups.from_attributes(df, df.columns, intersect=True, min_size=1)``
    (the seed 004 convention: nothing flagged small).
    """
    if isinstance(subgroups, Subgroups):
        result = subgroups
    else:
        if isinstance(subgroups, pd.DataFrame):
            frame = subgroups
        elif isinstance(subgroups, pd.Series):
            frame = subgroups.to_frame(name=subgroups.name if subgroups.name is not None else "attribute")
        else:
            arr = np.asarray(subgroups, dtype=object)
            if arr.ndim == 1:
                frame = pd.DataFrame({"attribute": arr})
            else:
                frame = pd.DataFrame(arr, columns=[f"attribute_{i}" for i in range(arr.shape[1])])
        frame = frame.reset_index(drop=True)
        result = Subgroups.from_attributes(frame, list(frame.columns), intersect=True, min_size=1,
                                           max_categories=np.iinfo(np.int32).max)
    check_length(result.membership, n, "subgroups", func)
    return result


def _check_count(n: int, max_subgroups: int | None) -> None:
    if max_subgroups is not None and n > max_subgroups:
        raise ValueError(TOO_MANY_MESSAGE.format(n=n, max=max_subgroups))


def _check_columns(data: pd.DataFrame, columns: Sequence[str], func: str) -> list[str]:
    columns = [columns] if isinstance(columns, str) else list(columns)
    if not columns:
        raise ValueError(NO_COLUMNS_MESSAGE.format(func=func))
    for col in columns:
        if col not in data.columns:
            shown = ", ".join(map(repr, list(data.columns)[:20]))
            raise ValueError(COLUMN_MESSAGE.format(func=func, col=col, available=shown))
    return columns


def _codes(values: pd.Series, n_bins: int, max_categories: int) -> tuple[np.ndarray, list[str]]:
    """Integer code per row (sorted value order, missing last) and the label of each code.

    Values are factorized (hashing; a categorical by its integer codes), never sorted row by row;
    only the distinct values are sorted.
    """
    numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
    # Enough distinct values among the first rows already decides binning without a full count.
    binned = numeric and values.iloc[:_PEEK_ROWS].nunique() > max_categories
    if not binned:
        codes = _factorize(values)
        n_values = int(codes.max()) + 1 if len(codes) else 0
        binned = numeric and n_values > max_categories
    if binned:
        return _binned(values, n_bins)
    # Codes number the values in order of first appearance, so the running maximum of the codes
    # steps up exactly at each value's first row; those rows give the values as pd.unique does.
    head = codes[:_PEEK_ROWS]
    scan = head if int(head.max(initial=-1)) + 1 == n_values else codes
    first = np.flatnonzero(np.diff(np.maximum.accumulate(scan), prepend=-1) > 0)
    uniques = list(pd.unique(values.iloc[first]))
    try:
        order = sorted(range(n_values), key=uniques.__getitem__)
    except TypeError:  # mixed types: sort by text
        order = sorted(range(n_values), key=lambda i: str(uniques[i]))
    rank = np.empty(n_values + 1, dtype=np.int64)
    rank[order] = np.arange(n_values)
    rank[-1] = n_values  # code -1 (missing) -> the last label
    return rank[codes], _distinct_labels([uniques[i] for i in order]) + [MISSING]


def _factorize(values: pd.Series) -> np.ndarray:
    """Codes of the distinct values in order of first appearance; -1 for a missing value."""
    if isinstance(values.dtype, pd.CategoricalDtype):  # factorize the small integer codes
        raw = values.cat.codes.to_numpy()
        codes, uniques = pd.factorize(raw)
        na = np.flatnonzero(uniques < 0)
        if len(na):
            codes = np.where(codes == na[0], -1, codes - (codes > na[0]))
        return codes.astype(np.intp, copy=False)
    return pd.factorize(values)[0].astype(np.intp, copy=False)


def _combine(codes: np.ndarray, n_codes: int, more: np.ndarray, n_more: int) -> tuple[np.ndarray, int]:
    """Codes of the observed pairs (codes, more), numbered in lexicographic order -> (codes, count)."""
    return _compact(codes.astype(np.int64, copy=False) * n_more + more, n_codes * n_more)


def _compact(key: np.ndarray, n_keys: int) -> tuple[np.ndarray, int]:
    """The observed values of `key` (integers in [0, n_keys)) numbered 0, 1, ... in increasing order -> (codes, count)."""
    if n_keys <= max(4 * len(key), 1 << 16):
        seen = np.bincount(key, minlength=n_keys) > 0
        return (np.cumsum(seen) - 1).astype(np.intp)[key], int(seen.sum())
    key_codes, uniques = pd.factorize(key, sort=True)
    return key_codes.astype(np.intp, copy=False), len(uniques)


def _packed_rows(masks: list[np.ndarray], chunk: int = 1 << 18) -> np.ndarray:
    """Each row's bits of the boolean `masks` (each of shape (n, k_i)), packed big-endian.

    Each mask is padded to whole bytes and the row to whole 64-bit words: shape
    (n, 8 * n_words), dtype uint8. Rows are packed in chunks through one flat ``np.packbits``
    (much faster than packing along axis 1 when a row is not a whole number of bytes).
    """
    n = masks[0].shape[0]
    widths = [8 * -(-m.shape[1] // 8) for m in masks]
    n_bytes = 8 * max(1, -(-sum(widths) // 64))
    out = np.zeros((n, n_bytes), dtype=np.uint8)
    for start in range(0, n, chunk):
        stop = min(start + chunk, n)
        bits = np.zeros((stop - start, 8 * n_bytes), dtype=bool)
        col = 0
        for mask, width in zip(masks, widths):
            bits[:, col:col + mask.shape[1]] = mask[start:stop]
            col += width
        out[start:stop] = np.packbits(bits.reshape(-1)).reshape(stop - start, n_bytes)
    return out


def _one_hot(codes: np.ndarray, observed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Membership and background masks (n_samples, observed.sum()) of the codes marked `observed`.

    Rows of a small identity matrix taken by code: one gather, much faster than comparing every
    row with every code.
    """
    eye = np.eye(len(observed), dtype=bool)[:, observed]
    return eye.take(codes, axis=0), (~eye).take(codes, axis=0)


def _representatives(codes: np.ndarray, n_codes: int) -> np.ndarray:
    """One row index holding each code in ``0..n_codes-1`` (every code must occur)."""
    rows = np.empty(n_codes, dtype=np.intp)
    rows[codes] = np.arange(len(codes))
    return rows


def text_codes(values) -> tuple[np.ndarray, np.ndarray]:
    """Each row's value as display text, coded: ``(codes, labels)`` with ``labels[codes]`` the text.

    Every distinct value is converted once (1.0 -> '1'); a missing value has code -1, which
    indexes the last label, ``(missing)``.
    """
    codes, uniques = pd.factorize(pd.Series(values, dtype=object) if isinstance(values, list) else values)
    labels = np.array([_value_label(v) for v in uniques] + [MISSING], dtype=object)
    return codes, labels


def _binned(values: pd.Series, n_bins: int) -> tuple[np.ndarray, list[str]]:
    """Quantile bins of a numeric column -> (codes, labels), the missing code last.

    Edges are quantiles of the finite values; -inf and +inf fall in the first and last bins, whose
    labels then say so. Integers beyond 2**53, which float64 cannot tell apart, are binned on their
    exact values (edges are values of the column). Edges are printed with as many significant
    digits as it takes for every label to differ.
    """
    missing = values.isna().to_numpy()
    raw = values[~missing].to_numpy()
    exact = raw.dtype.kind in "iu" and len(raw) and max(abs(int(raw.min())), abs(int(raw.max()))) > 2 ** 53
    x = raw if exact else raw.astype(np.float64)
    finite = x if exact else x[np.isfinite(x)]
    if len(finite):
        qs = np.linspace(0.0, 1.0, n_bins + 1)
        edges = np.unique(np.quantile(finite, qs, method="inverted_cdf") if exact else np.quantile(finite, qs))
    else:
        edges = np.zeros(0)
    if not exact:
        edges = _with_infinite_ends(edges, bool(np.isneginf(x).any()), bool(np.isposinf(x).any()))
    return _cut(values, edges)


def quantile_edges_from_counts(values, counts, n_bins: int) -> np.ndarray:
    """The quantile bin edges ``Subgroups.from_attributes`` would cut a numeric column on, from its distinct
    values and their counts instead of its rows (an engine's GROUP BY).

    Edge j is numpy's linear quantile j / n_bins of the finite values (the two order statistics
    around its position are found in the cumulative counts, then interpolated by ``numpy.quantile``
    itself, so the edges are bit for bit those of the rows); -inf and +inf among the values widen the
    first and last edges as for rows.

    Parameters
    ----------
    values : array-like of float, shape (n_distinct,)
        Distinct non-missing values (NaN is dropped as missing).
    counts : array-like of int, shape (n_distinct,)
        Rows holding each value.
    n_bins : int >= 2

    Returns
    -------
    ndarray of float
        The edges, as ``np.unique`` of the quantiles (fewer when quantiles coincide).
    """
    values = np.asarray(values, dtype=np.float64)
    keep = ~np.isnan(values)
    finite = keep & np.isfinite(values)
    quantiles = quantiles_from_counts(values[finite], np.asarray(counts)[finite], np.linspace(0.0, 1.0, n_bins + 1))
    return _with_infinite_ends(np.unique(quantiles), bool(np.isneginf(values[keep]).any()),
                               bool(np.isposinf(values[keep]).any()))


def quantiles_from_counts(values, counts, qs) -> np.ndarray:
    """``numpy.quantile(rows, qs)`` (linear interpolation) of the rows that hold each of `values` `counts` times,
    without the rows: for each q the two order statistics around its virtual index ``q * (n - 1)`` are found
    in the cumulative counts and interpolated by ``numpy.quantile`` itself, so the result is bit for bit
    numpy's. Empty values give an empty result.

    Parameters
    ----------
    values : array-like of float, shape (n_distinct,)
        Distinct finite values, in any order.
    counts : array-like of int, shape (n_distinct,)
    qs : array-like of float in [0, 1]

    Returns
    -------
    ndarray of float, shape (len(qs),) (or (0,) without values)
    """
    values = np.asarray(values, dtype=np.float64)
    if not len(values):
        return np.zeros(0)
    order = np.argsort(values, kind="stable")
    v, ends = values[order], np.cumsum(np.asarray(counts, dtype=np.int64)[order])   # rows up to each value
    n = int(ends[-1])
    out = []
    for q in np.asarray(qs, dtype=np.float64):
        h = q * (n - 1)                   # numpy's virtual index
        low = int(np.floor(h))
        pair = v[np.searchsorted(ends, [low + 1, min(low + 2, n)], side="left")]
        out.append(float(np.quantile(pair, h - low)))   # numpy's own interpolation of the pair
    return np.asarray(out)


def _with_infinite_ends(edges: np.ndarray, neginf: bool, posinf: bool) -> np.ndarray:
    """Edges widened to -inf / +inf when the column holds them (they fall in the first and last bins)."""
    if neginf:
        edges = np.concatenate([[-np.inf], edges[1:] if len(edges) > 1 else edges])
    if posinf:
        edges = np.concatenate([edges[:-1] if len(edges) > 1 else edges, [np.inf]])
    return edges


def _cut(values: pd.Series, edges: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """(codes, labels) of a numeric column cut on `edges`: ``[lo, hi]`` first, then ``(lo, hi]``; missing last."""
    edges = np.asarray(edges)
    if len(edges) == 1:  # one distinct value: one bin
        edges = np.array([edges[0], edges[0]])
    missing = values.isna().to_numpy()
    x = values[~missing].to_numpy()
    if edges.dtype.kind == "f":   # integer edges: a column of integers beyond 2**53, cut on its exact values
        x = x.astype(np.float64)
    text = _edge_texts(edges)
    labels = [f"{'[' if i == 0 else '('}{lo}, {hi}]" for i, (lo, hi) in enumerate(zip(text[:-1], text[1:]))]
    codes = np.full(len(values), len(labels), dtype=np.int64)
    codes[~missing] = np.searchsorted(edges[1:-1], x, side="left")
    return codes, _BinLabels(labels + [MISSING])


class _BinLabels(list):
    """Labels of quantile bins ("[lo, hi]", "(lo, hi]"): written by us, never quoted inside an intersection."""


def _edge_texts(edges: np.ndarray) -> list[str]:
    """Bin edges as text, with the fewest significant digits (at least 6) that keep distinct edges distinct."""
    if edges.dtype.kind in "iu":
        return [str(int(e)) for e in edges]
    for digits in range(6, 18):
        text = [f"{e:.{digits}g}" for e in edges]
        if len(set(text)) == len(set(edges.tolist())):
            return text
    return [repr(float(e)) for e in edges]


def _distinct_labels(values: list) -> list[str]:
    """Display labels of distinct values, distinct themselves: equal texts of different values (``1`` and
    ``"1"``, or the text ``(missing)`` beside missing values) get their type appended, e.g. ``1 (str)``."""
    labels = [_value_label(v) for v in values]
    counts = pd.Series(labels + [MISSING]).value_counts()
    clashes = set(counts.index[counts > 1])
    return [f"{label} ({type(v).__name__})" if label in clashes else label for label, v in zip(labels, values)]


def _part(label: str, columns) -> str:
    """A value inside an intersection's name, quoted when it could be read as more of the name: when it holds
    ", <column>=" for one of the intersected columns (so ``a="x, b=y"`` never reads as ``a=x, b=y``)."""
    if any(f", {col}=" in label for col in columns) or label.startswith('"'):
        return '"' + label.replace('"', '\\"') + '"'
    return label


def _value_label(value: Any) -> str:
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)

