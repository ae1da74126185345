"""Slices: metrics on a subset of the rows that the user defines (scikit-lego's ``subset_score``).

A :class:`Slice` is a conjunction of column conditions (values of a categorical column, or a
closed range of a numeric one) that turns a table into a boolean row mask; :func:`subset_score`
applies any metric to the rows of a mask.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np
import pandas as pd

from .patterns import text_codes
from .subgroups import Subgroups, _codes

CONDITION_MESSAGE = (
    "A slice condition on {column!r} needs either values (a categorical condition) or a low and a "
    "high bound (a numeric range). Got values={values!r}, low={low!r}, high={high!r}."
)
SLICE_COLUMN_MESSAGE = "The slice column {column!r} is not in the data. Available columns: {available}."
RANGE_TYPE_MESSAGE = "The slice column {column!r} holds {dtype} values; a range condition needs numbers."
MASK_MESSAGE = (
    "subset_score: 'mask' must be a one-dimensional boolean array; got an array of shape {shape} and "
    "dtype {dtype}. Tip: build it with a comparison such as (frame['region'] == 'North')."
)
EMPTY_SLICE_WARNING = "subset_score: the slice has no rows, so the metric is NaN."


@dataclass(frozen=True)
class Condition:
    """One column condition of a slice.

    Attributes
    ----------
    column : str
        The column it applies to.
    values : tuple of str
        For a categorical condition: the values kept, as their display text (``'1'`` for 1.0,
        ``'(missing)'`` for a missing value). Empty for a range condition.
    low, high : float or None
        For a range condition: keep rows with ``low <= value <= high`` (missing values are left
        out). None for a categorical condition.
    """

    column: str
    values: tuple = ()
    low: Optional[float] = None
    high: Optional[float] = None

    def __post_init__(self):
        is_range = self.low is not None and self.high is not None
        if is_range == bool(self.values) or (not is_range and (self.low is not None or self.high is not None)):
            raise ValueError(CONDITION_MESSAGE.format(column=self.column, values=self.values, low=self.low,
                                                      high=self.high))

    def mask(self, frame: pd.DataFrame) -> np.ndarray:
        """Boolean mask of shape (n_rows,): the rows of `frame` that meet the condition."""
        if self.column not in frame.columns:
            available = ", ".join(map(repr, list(frame.columns)[:20]))
            raise ValueError(SLICE_COLUMN_MESSAGE.format(column=self.column, available=available))
        col = frame[self.column]
        if self.values:
            codes, labels = text_codes(col)
            return np.isin(labels, list(self.values))[codes]
        if col.dtype == bool or not pd.api.types.is_numeric_dtype(col):
            raise ValueError(RANGE_TYPE_MESSAGE.format(column=self.column, dtype=col.dtype))
        x = col.to_numpy(dtype=np.float64, na_value=np.nan)
        return (x >= self.low) & (x <= self.high)

    @staticmethod
    def value_labels(values: pd.Series) -> list:
        """The values a categorical condition on `values` can keep, as display text.

        Sorted as subgroup names are (``(missing)`` last, and only when a value is missing).

        Parameters
        ----------
        values : Series of shape (n_rows,)

        Returns
        -------
        list of str
        """
        codes, labels = _codes(values, 2, np.iinfo(np.int32).max)
        present = np.unique(codes)
        return [labels[k] for k in present]

    def describe(self) -> str:
        """The condition as text, e.g. ``region in {North, South}`` or ``0 <= age <= 30``."""
        if self.values:
            return f"{self.column} in {{{', '.join(self.values)}}}"
        return f"{self.low:g} <= {self.column} <= {self.high:g}"


@dataclass(frozen=True)
class Slice:
    """A subset of rows: those meeting every condition (an empty slice keeps all rows).

    Attributes
    ----------
    conditions : tuple of Condition
        Combined with AND.

    Examples
    --------
    >>> frame = pd.DataFrame({"region": ["N", "S", "N", None], "age": [25, 40, 61, 33]})
    >>> s = Slice((Condition("region", values=("N", "(missing)")), Condition("age", low=20, high=50)))
    >>> s.mask(frame).tolist()
    [True, False, False, True]
    >>> s.describe()
    'region in {N, (missing)} and 20 <= age <= 50'
    """

    conditions: tuple = ()

    def mask(self, frame: pd.DataFrame) -> np.ndarray:
        """Boolean mask of shape (n_rows,): the rows of `frame` in the slice."""
        keep = np.ones(len(frame), dtype=bool)
        for condition in self.conditions:
            keep &= condition.mask(frame)
        return keep

    def describe(self) -> str:
        """The slice as text ("all rows" when it has no condition)."""
        return " and ".join(c.describe() for c in self.conditions) or "all rows"


def subset_score(metric: Callable, mask: Any, /, *args, **kwargs):
    """Apply `metric` to the rows of a slice: ``metric(*args[mask], **kwargs[mask])``.

    Every positional or keyword argument that describes the rows (an array, list, Series or
    DataFrame of length n_samples, or a :class:`Subgroups`) is restricted to the rows where
    `mask` is True; other arguments (options such as ``reduction="max"``) are passed unchanged.

    Parameters
    ----------
    metric : callable
        Any metric of this package (or of scikit-learn), e.g. :func:`rate_disparity`.
    mask : array-like of bool, shape (n_samples,)
        The slice, e.g. ``Slice(...).mask(frame)`` or ``frame["region"] == "North"``.
    *args, **kwargs
        The metric's arguments, on all n_samples rows.

    Returns
    -------
    Whatever `metric` returns on the slice; ``nan`` (with a RuntimeWarning) when the slice is
    empty, as in scikit-lego.

    Raises
    ------
    ValueError
        If `mask` is not a one-dimensional boolean array.

    References
    ----------
    scikit-lego ``subset_score``, which slices with a picker function at scoring
    time; here the slice is a mask, so it also serves the plain functions.

    Examples
    --------
    >>> from sklearn.metrics import accuracy_score
    >>> subset_score(accuracy_score, [True, True, False], [1, 0, 1], [1, 1, 1])
    0.5
    """
    mask = np.asarray(mask.to_numpy() if isinstance(mask, pd.Series) else mask)
    if mask.ndim != 1 or mask.dtype != bool:
        raise ValueError(MASK_MESSAGE.format(shape=mask.shape, dtype=mask.dtype))
    if not mask.any():
        warnings.warn(EMPTY_SLICE_WARNING, RuntimeWarning, stacklevel=2)
        return float("nan")
    rows = np.flatnonzero(mask)
    n = len(mask)
    args = [_take(a, rows, n) for a in args]
    kwargs = {k: _take(v, rows, n) for k, v in kwargs.items()}
    return metric(*args, **kwargs)


def _take(value: Any, rows: np.ndarray, n: int) -> Any:
    if isinstance(value, Subgroups):
        return value.take(rows) if value.n_samples == n else value
    if isinstance(value, (pd.DataFrame, pd.Series)):
        return value.iloc[rows] if len(value) == n else value
    if isinstance(value, (np.ndarray, list, tuple)) and not isinstance(value, str):
        arr = np.asarray(value, dtype=object if isinstance(value, (list, tuple)) else None)
        if arr.ndim >= 1 and len(arr) == n:
            out = arr[rows]
            return out.tolist() if isinstance(value, (list, tuple)) else out
    return value
