"""Row encoding for the class counts: true and predicted classes and protected values checked and coded."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._subgroups.subgroups import Subgroups, as_subgroups


# ============================================================================================
# Class counts
# ============================================================================================

DIMENSION_MESSAGE = (
    "The '{param}' parameter of {func} must be one-dimensional (one class value per row). "
    "Got an array of shape {shape} instead."
)
CLASS_LENGTH_MESSAGE = (
    "{func}: '{param}' has {got} rows but 'truth' has {expected}. "
    "Tip: pass arrays that describe the same rows, in the same order."
)
LABELS_TYPE_MESSAGE = (
    "The 'labels' parameter of {func} must be a list of class values. Got {got!r} instead. "
    "Tip: for a single class write labels=[{got!r}]."
)
LABELS_EMPTY_MESSAGE = "The 'labels' parameter of {func} must list at least one class. Got an empty list instead."
LABELS_DUPLICATE_MESSAGE = (
    "The 'labels' parameter of {func} must list each class once. Got {dups} more than once."
)
SUBGROUPS_TYPE_MESSAGE = (
    "The 'subgroups' parameter of {func} must be a list of subgroup names. Got {got!r} instead. "
    "Tip: write subgroups=[{got!r}, ...]."
)
SUBGROUPS_UNKNOWN_MESSAGE = (
    "The 'subgroups' parameter of {func} names subgroups that are not in the data: {unknown}. "
    "Subgroups: {names}."
)
SUBGROUPS_DUPLICATE_MESSAGE = (
    "The 'subgroups' parameter of {func} must name each subgroup once. Got {dups} more than once."
)


def _as_values(values: Any, param: str, func: str):
    """1-D class values: numpy arrays and pandas objects as given (their codes are read, not their text).

    Lists and other sequences become object arrays, so ``[1, "a"]`` keeps an int and a string.
    """
    if not isinstance(values, (np.ndarray, pd.Series, pd.Index, pd.api.extensions.ExtensionArray)):
        values = np.asarray(values, dtype=object)
    if np.ndim(values) != 1:
        raise ValueError(DIMENSION_MESSAGE.format(param=param, func=func, shape=np.shape(values)))
    return values


def _objects(values: Sequence) -> np.ndarray:
    """`values` as a 1-D object array, element by element (tuples stay elements)."""
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def _factorize(values) -> tuple[np.ndarray, np.ndarray]:
    """(code of each row, -1 when missing; the distinct values as objects, in order of appearance).

    ``pandas.factorize`` hashes the values in their own dtype (integer codes of a categorical,
    Arrow dictionary encoding of strings), never converting every row to a Python object.
    """
    codes, uniques = pd.factorize(values.array if isinstance(values, pd.Series) else values)
    return codes, _objects(np.asarray(uniques, dtype=object))


def _sorted_labels(values: np.ndarray) -> list:
    """Distinct non-missing values, sorted (by their text when the types cannot be compared)."""
    uniques = pd.unique(values[~pd.isna(values)]) if len(values) else []
    try:
        return sorted(uniques)
    except TypeError:
        return sorted(uniques, key=str)


def _check_labels(labels: Any, func: str) -> list:
    if isinstance(labels, (str, bytes)) or not isinstance(labels, (Sequence, np.ndarray, pd.Index, pd.Series)):
        raise TypeError(LABELS_TYPE_MESSAGE.format(func=func, got=labels))
    labels = list(labels)
    if not labels:
        raise ValueError(LABELS_EMPTY_MESSAGE.format(func=func))
    index = pd.Index(labels, dtype=object)
    if not index.is_unique:
        dups = ", ".join(repr(v) for v in pd.unique(index[index.duplicated()].to_numpy(dtype=object)))
        raise ValueError(LABELS_DUPLICATE_MESSAGE.format(func=func, dups=dups))
    return labels


def _n_rows(obj: Any) -> int:
    if isinstance(obj, Subgroups):
        return obj.n_samples
    return len(obj) if hasattr(obj, "__len__") else len(np.asarray(obj))


@dataclass(frozen=True)
class _Rows:
    """Encoded rows: class codes (-1 = missing / not among the labels), subgroups and labels."""

    truth: np.ndarray
    prediction: np.ndarray
    t_code: np.ndarray
    p_code: np.ndarray
    groups: Subgroups
    labels: list

    @property
    def included(self) -> np.ndarray:
        return (self.t_code >= 0) & (self.p_code >= 0)


def _encode(truth, prediction, protected, labels, func: str) -> _Rows:
    t = _as_values(truth, "truth", func)
    p = _as_values(prediction, "prediction", func)
    for param, obj in (("prediction", p), ("protected", protected)):
        if _n_rows(obj) != len(t):
            raise ValueError(CLASS_LENGTH_MESSAGE.format(func=func, param=param, got=_n_rows(obj), expected=len(t)))
    groups = as_subgroups(protected, len(t), func)
    # Each column is factorized once (hashing in its own dtype); the labels are matched against its
    # few distinct values, and every row's class is then a lookup of its code.
    (t_rows, t_values), (p_rows, p_values) = _factorize(t), _factorize(p)
    if labels is None:
        labels = _sorted_labels(np.concatenate([t_values, p_values]))
    else:
        labels = _check_labels(labels, func)
    index = pd.Index(_objects(labels), dtype=object)
    # Missing values (code -1) are never a class, even when a label compares equal to them.
    t_code, p_code = (np.append(index.get_indexer(values), -1)[rows]
                      for rows, values in ((t_rows, t_values), (p_rows, p_values)))
    return _Rows(t, p, t_code, p_code, groups, labels)
