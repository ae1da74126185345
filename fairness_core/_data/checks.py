"""Argument checks shared by the public functions, with their message templates.

Every message names the parameter, what was expected and what was received. Tests assert
against these templates, so they are module constants.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

OPTION_MESSAGE = "The '{param}' parameter of {func} must be one of {allowed}. Got {got!r} instead."
INT_MESSAGE = "The '{param}' parameter of {func} must be an int >= {low}. Got {got!r} instead."
LENGTH_MESSAGE = (
    "{func}: '{param}' has {got} rows but y_true has {expected}. "
    "Tip: pass arrays that describe the same rows, in the same order."
)
BINARY_MESSAGE = (
    "The '{param}' parameter of {func} must hold only 0 and 1 (or False and True). "
    "Got the values {got} instead. Tip: map the positive class to 1 first, e.g. (y == 'yes')."
)
NUMERIC_MESSAGE = (
    "The '{param}' parameter of {func} must be numeric and finite. Got {got} instead."
)
PROBABILITY_MESSAGE = (
    "The '{param}' parameter of {func} must hold probabilities in [0, 1]; the values range from "
    "{low:g} to {high:g}. Tip: calibration needs predicted probabilities; a risk score on another "
    "scale (such as 1-10) cannot be assessed for calibration."
)


def check_option(value: Any, allowed: Iterable[Any], param: str, func: str) -> Any:
    """Return `value` if it is one of `allowed`, else raise ValueError with the template."""
    allowed = list(allowed)
    if not any(value is a or (a is not None and value == a) for a in allowed):
        raise ValueError(OPTION_MESSAGE.format(param=param, func=func, allowed=allowed, got=value))
    return value


def check_int(value: Any, low: int, param: str, func: str) -> int:
    """Return `value` as int if it is an integer >= `low`, else raise ValueError."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(INT_MESSAGE.format(param=param, func=func, low=low, got=value))
    return int(value)


def as_binary(y: Any, param: str, func: str) -> np.ndarray:
    """Return a 1-D int8 array of 0/1 from `y`, or raise ValueError naming the bad values."""
    arr = np.asarray(y)
    if arr.ndim != 1:
        arr = arr.reshape(-1)
    if arr.dtype == bool:
        return arr.astype(np.int8)
    # The common case without a sort of the values: integers within [0, 1] (two reductions), or
    # floats that are all 0 or 1. Only a bad input pays for np.unique, to name its values.
    if arr.dtype.kind in "iu" and (arr.size == 0 or (arr.min() >= 0 and arr.max() <= 1)):
        return arr.astype(np.int8)
    if arr.dtype.kind == "f" and bool(((arr == 0) | (arr == 1)).all()):
        return arr.astype(np.int8)
    try:
        values = np.unique(arr)
    except TypeError:
        values = np.array(sorted({repr(v) for v in arr.tolist()}), dtype=object)
    if not np.isin(values, [0, 1]).all() or arr.dtype.kind not in "biuf":
        shown = ", ".join(repr(v) for v in values[:6].tolist()) + (", ..." if len(values) > 6 else "")
        raise ValueError(BINARY_MESSAGE.format(param=param, func=func, got=shown))
    return arr.astype(np.int8)


def as_scores(y: Any, param: str, func: str) -> np.ndarray:
    """Return a 1-D float64 array of finite scores, or raise ValueError."""
    arr = np.asarray(y)
    if arr.ndim != 1:
        arr = arr.reshape(-1)
    if arr.dtype.kind not in "biuf":
        raise ValueError(NUMERIC_MESSAGE.format(param=param, func=func, got=f"dtype {arr.dtype}"))
    arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        raise ValueError(
            NUMERIC_MESSAGE.format(
                param=param, func=func, got=f"{int((~np.isfinite(arr)).sum())} missing or infinite values"
            )
        )
    return arr


def as_probabilities(y: Any, param: str, func: str) -> np.ndarray:
    """Return scores checked to lie in [0, 1], or raise ValueError with PROBABILITY_MESSAGE."""
    arr = as_scores(y, param, func)
    if arr.size and (arr.min() < 0.0 or arr.max() > 1.0):
        raise ValueError(PROBABILITY_MESSAGE.format(param=param, func=func, low=arr.min(), high=arr.max()))
    return arr


def check_length(arr: np.ndarray, n: int, param: str, func: str) -> None:
    """Raise ValueError when `arr` does not have `n` rows."""
    if len(arr) != n:
        raise ValueError(LENGTH_MESSAGE.format(func=func, param=param, got=len(arr), expected=n))


def model_columns(models, n: int, convert, param: str, func: str) -> dict:
    """Each model's column of a ``{name: values}`` mapping, converted and checked: ``{str(name): array}``.

    `convert` is one of :func:`as_binary`, :func:`as_scores`, :func:`as_probabilities`; a column's errors
    name it as ``param[name]``; every column must have `n` rows.
    """
    columns = {}
    for name, values in models.items():
        column = convert(values, f"{param}[{name!r}]", func)
        check_length(column, n, f"{param}[{name!r}]", func)
        columns[str(name)] = column
    return columns
