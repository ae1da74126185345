"""Subgroups: which rows belong to which protected subgroup, and which rows form its background."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ._checks import check_int, check_length

MISSING = "(missing)"
COLUMN_MESSAGE = "Subgroups.{func}: column {col!r} is not in the data. Available columns: {available}."
NO_COLUMNS_MESSAGE = "Subgroups.{func}: choose at least one column."
TOO_MANY_MESSAGE = (
    "The chosen columns give {n:,} subgroups (at most {max:,} can be shown). Tip: choose attributes "
    "with fewer distinct values, turn off intersections, or bin numeric columns."
)
INDICATOR_TYPE_MESSAGE = (
    "Subgroups.from_indicators: identity column {col!r} must be numeric (0/1 or a probability); "
    "it holds {dtype} values. Tip: use it as a protected attribute instead."
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
        For disjoint subgroups (intersections of attribute values), the index of each row's
        subgroup; lets counts be taken with one ``np.bincount``. None when subgroups overlap.

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

    @property
    def sizes(self) -> np.ndarray:
        """Rows in each subgroup, shape (n_subgroups,)."""
        return self.sum(np.ones(self.n_samples))

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
        if self.codes is not None and self.membership.shape[0] and bool(
                np.all(self.membership.sum(axis=1) == 1)):
            eye = np.eye(k, dtype=bool)
            return self.codes.astype(np.intp), eye, ~eye
        bits = np.packbits(np.concatenate([self.membership, self.background], axis=1), axis=1)
        keys = np.ascontiguousarray(bits).view(np.dtype((np.void, bits.shape[1]))).reshape(-1)
        _, first, codes = np.unique(keys, return_index=True, return_inverse=True)
        return codes.reshape(-1).astype(np.intp), self.membership[first], self.background[first]

    def crosstab(self, cell: np.ndarray, n_cells: int, weights: np.ndarray | None = None):
        """Counts (or sums of `weights`) per subgroup and cell, for members and for the background.

        This is the one primitive behind every sufficient statistic: confusion cells, calibration
        bins. Disjoint subgroups take one ``np.bincount``; overlapping ones one per subgroup.

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
        coded = [_codes(data[c], n_bins, max_categories) for c in columns]
        n = len(data)
        if intersect:
            if n == 0:
                return cls([], np.zeros((0, 0), bool), np.zeros((0, 0), bool), min_size, np.zeros(0, np.intp))
            stacked = np.column_stack([codes for codes, _ in coded])
            combos, inverse = np.unique(stacked, axis=0, return_inverse=True)
            inverse = inverse.reshape(-1)
            _check_count(len(combos), max_subgroups)
            names = []
            for combo in combos:
                parts = [(col, labels[k]) for col, k, (_, labels) in zip(columns, combo, coded)]
                names.append(parts[0][1] if len(parts) == 1 else ", ".join(f"{c}={v}" for c, v in parts))
            membership = inverse[:, None] == np.arange(len(combos))[None, :]
            return cls(names, membership, ~membership, min_size, inverse.astype(np.intp))
        _check_count(sum(len(np.unique(codes)) for codes, _ in coded), max_subgroups)
        names, masks = [], []
        for col, (codes, labels) in zip(columns, coded):
            for k in np.unique(codes):
                names.append(labels[k] if len(columns) == 1 else f"{col}={labels[k]}")
                masks.append(codes == k)
        membership = np.column_stack(masks) if masks else np.zeros((n, 0), bool)
        codes = coded[0][0].astype(np.intp) if len(columns) == 1 else None
        if codes is not None:  # one column: re-index the observed codes 0..k-1
            codes = np.searchsorted(np.unique(codes), codes)
        return cls(names, membership, ~membership, min_size, codes)

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
        min_size : int, default=30

        Returns
        -------
        Subgroups

        Raises
        ------
        ValueError
            If a column is missing or not numeric.
        """
        columns = _check_columns(data, columns, "from_indicators")
        min_size = check_int(min_size, 1, "min_size", "Subgroups.from_indicators")
        members, backgrounds = [], []
        for col in columns:
            values = data[col]
            if values.dtype == bool:
                values = values.astype(float)
            if not pd.api.types.is_numeric_dtype(values):
                raise ValueError(INDICATOR_TYPE_MESSAGE.format(col=col, dtype=values.dtype))
            arr = values.to_numpy(dtype=np.float64, na_value=np.nan)
            members.append(arr >= threshold)
            backgrounds.append(arr < threshold)
        return cls(list(columns), np.column_stack(members), np.column_stack(backgrounds), min_size)

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
    """Integer code per row (sorted value order, missing last) and the label of each code."""
    missing = values.isna().to_numpy()
    present = values[~missing]
    if (pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
            and present.nunique() > max_categories):
        x = present.to_numpy(dtype=np.float64)
        edges = np.unique(np.quantile(x, np.linspace(0.0, 1.0, n_bins + 1)))
        labels = [f"{'[' if i == 0 else '('}{lo:g}, {hi:g}]" for i, (lo, hi) in enumerate(zip(edges[:-1], edges[1:]))]
        codes = np.full(len(values), len(labels), dtype=np.int64)
        codes[~missing] = np.searchsorted(edges[1:-1], x, side="left")
    else:
        uniques = pd.unique(present)
        try:
            order = sorted(uniques)
        except TypeError:  # mixed types: sort by text
            order = sorted(uniques, key=str)
        labels = [_value_label(v) for v in order]
        codes = np.full(len(values), len(labels), dtype=np.int64)
        if len(order):
            codes[~missing] = pd.Index(order).get_indexer(present)
    return codes, labels + [MISSING]


def text_codes(values) -> tuple[np.ndarray, np.ndarray]:
    """Each row's value as display text, coded: ``(codes, labels)`` with ``labels[codes]`` the text.

    Every distinct value is converted once (1.0 -> '1'); a missing value has code -1, which
    indexes the last label, ``(missing)``.
    """
    codes, uniques = pd.factorize(pd.Series(values, dtype=object) if isinstance(values, list) else values)
    labels = np.array([_value_label(v) for v in uniques] + [MISSING], dtype=object)
    return codes, labels


def _value_label(value: Any) -> str:
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)

