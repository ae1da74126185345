"""Subgroups: which rows belong to which protected subgroup, and which rows form its background."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._data.checks import NUMERIC_MESSAGE, check_int, check_length
from .binning import _BinLabels, _binned, _cut
from .patterns import (MISSING, _combine, _compact, _compact_observed, _factorize, _indicator_bits, _one_hot,
                       _packed_rows, _representatives, _text_codes, _value_label)


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
    Build it with :meth:`from_attributes` or :meth:`from_indicators`.
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
            # Mixed-radix key of the per-column codes, compacted to the observed combinations (their order is
            # the lexicographic order of the codes: sorted values, missing last). Each column's radix is its
            # largest code + 1: a value not present (such as the missing one) takes no room in the key.
            radix = [int(codes.max()) + 1 for codes, _ in coded]
            inverse, k = coded[0][0].astype(np.intp), radix[0]  # a fresh array: updated in place
            decodable = True   # the key still holds every column's code as a digit
            for (codes, _), size in zip(coded[1:], radix[1:]):
                if k * size >= 1 << 62:  # number the observed keys before the radix overflows
                    (inverse, k), decodable = _compact(inverse, k), False
                inverse *= size
                inverse += codes
                k *= size
            inverse, observed = _compact_observed(inverse, k)
            k = len(observed)
            _check_count(k, max_subgroups)
            if decodable:   # each combination's codes are the digits of its key
                digits = []
                for size in radix[::-1]:
                    observed, digit = np.divmod(observed, size)
                    digits.append(digit)
                combos = zip(*digits[::-1])
            else:
                first = _representatives(inverse, k)
                combos = zip(*(codes[first] for codes, _ in coded))
            names = []
            for combo in combos:
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
        arrays, not_numeric = [], None
        for col in columns:
            values = data[col]
            if values.dtype == bool:
                values = values.astype(float)
            if not pd.api.types.is_numeric_dtype(values):
                not_numeric = ValueError(INDICATOR_TYPE_MESSAGE.format(col=col, dtype=values.dtype))
                break   # raised after the range checks of the columns before it
            arrays.append(values.to_numpy(dtype=np.float64, na_value=np.nan))
        if not arrays:
            raise not_numeric
        # Without a missing value a row's pattern is its membership bits (first column most significant): the key
        # is built from the columns as they are read, so ``patterns`` need not pack and hash the rows again.
        membership, lows, highs, key = _indicator_bits(arrays, threshold)
        missing = []
        for j, (col, arr) in enumerate(zip(columns, arrays)):
            low, high = lows[j], highs[j]   # NaN if a value is missing
            if np.isnan(low):
                low, high = np.nanmin(arr, initial=0.0), np.nanmax(arr, initial=0.0)
                missing.append((j, arr))
            if low < 0 or high > 1:
                raise ValueError(INDICATOR_RANGE_MESSAGE.format(col=col, low=low, high=high))
        if not_numeric is not None:
            raise not_numeric
        background = np.empty_like(membership)
        np.logical_not(membership, out=background)  # without a missing value: background = not member
        for j, arr in missing:
            np.less(arr, threshold, out=background[:, j])
        groups = cls(list(columns), membership, background, min_size)
        if key is not None and not missing:   # the patterns, ordered as ``patterns`` orders them
            codes, n_codes = _compact(key, 1 << len(columns))
            first = _representatives(codes, n_codes)
            groups.__dict__["patterns"] = (codes, membership[first], background[first])
        return groups

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
    (the Oracle AutoMLx convention: nothing flagged small).
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
    text = None if numeric else _text_codes(values)   # Arrow text: coded from its bytes' features when they can
    if text is not None:
        return text[0], _distinct_labels(text[1]) + [MISSING]
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


def _distinct_labels(values: list) -> list[str]:
    """Display labels of distinct values, distinct themselves: equal texts of different values (``1`` and
    ``"1"``, or the text ``(missing)`` beside missing values) get their type appended, e.g. ``1 (str)``."""
    labels = [_value_label(v) for v in values]
    clashes = {label for label, count in Counter(labels + [MISSING]).items() if count > 1}
    return [f"{label} ({type(v).__name__})" if label in clashes else label for label, v in zip(labels, values)]


def _part(label: str, columns) -> str:
    """A value inside an intersection's name, quoted when it could be read as more of the name: when it holds
    ", <column>=" for one of the intersected columns (so ``a="x, b=y"`` never reads as ``a=x, b=y``)."""
    if any(f", {col}=" in label for col in columns) or label.startswith('"'):
        return '"' + label.replace('"', '\\"') + '"'
    return label


