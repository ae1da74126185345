"""Sample weights: their checks, and Kish's effective sample size of weighted counts.

With ``sample_weight`` every count of a count table is the sum of the weights of its rows (a row of
weight 0 takes no part), and every size a table reports (``size``, ``reference_size`` and the small-subgroup
flag) is Kish's effective sample size of the rows behind it,

    n_eff = (sum w)^2 / sum w^2,

which is the number of rows when every weight is 1 (and 0 for rows whose weights are all 0). The tables
therefore keep, beside the sums of weights, the sums of squared weights of the same cells.
A weighted proportion's Wilson interval (the rates, the performance table's proportions, base rates,
reliability bins, class-wise recall and precision) takes its effective sample size, at most its rows
(``_stats.intervals.weighted_wilson_interval``); the bootstrap intervals (rate disparities, equalized odds,
F1, Theil indices, ratio scores, calibration errors and disparity, class-wise F-score and average bias,
smoothed EDF) resample the rows with their weights (``Atoms.rows``) and the AUCs take the linearized variance
(``_stats.delong.weighted_auc_variance``). Still refused with weights (:func:`check_no_intervals`): the power
means and the bias AUC score, the correlation score, and counts that keep no weighted rows.
"""

from __future__ import annotations

from typing import Optional

import numpy as np


WEIGHT_TIP = ("Tip: weights must be finite and >= 0, one per row (a weight of 0 leaves the row out); "
              "e.g. pass the survey weight column, or sample_weight=None for unweighted counts.")
WEIGHT_LENGTH_MESSAGE = ("{func}: sample_weight has {got:,} values but the data has {expected:,} rows. "
                         "Tip: pass one weight per row, in the same order as y_true.")
WEIGHT_SHAPE_MESSAGE = ("{func}: sample_weight must be one-dimensional (one weight per row). Got an array of "
                        "shape {shape} instead. " + WEIGHT_TIP)
WEIGHT_TYPE_MESSAGE = "{func}: sample_weight must hold numbers. Got values of dtype {dtype} instead. " + WEIGHT_TIP
WEIGHT_VALUE_MESSAGE = "{func}: sample_weight has {n:,} {what} (first at row {first}). " + WEIGHT_TIP
# A table's weight column (ColumnMapping.weight).
WEIGHT_TYPE = ("The weight column {col!r} must hold numbers (it has dtype {dtype}). Tip: choose a column of "
               "survey or importance weights, or no weight column.")
WEIGHT_VALUES = ("The weight column {col!r} has {n:,} {what} (first at row {first}). Weights must be finite and "
                 ">= 0. Tip: fix or drop those rows, or choose another weight column.")
# Weights whose squares leave the range of a float (their sums, and Kish's effective size, would be infinite or 0).
WEIGHT_RANGE = (1e-150, 1e150)   # (smallest, largest) positive weight: squares of 10^6 rows stay normal floats
WEIGHT_SCALE = ("{what} has weights as {extreme} as {value:.3g}: their sums of squares "
                "{flow} a floating-point number, so no weighted count could be computed. Tip: rescale the column (e.g. "
                "divide it by its mean); weighted rates, AUCs and disparities do not change with the scale of the "
                "weights.")
WEIGHT_INTERVAL_MESSAGE = (
    "{func}: intervals with sample weights are not available yet (here they would resample rows or need rows "
    "these counts do not keep; with weights: the rates, disparities and equalized odds, the performance table, "
    "ratio scores, Theil indices, base rates, dataset parity, smoothed EDF, calibration, class-wise scores, the "
    "AUC table and the bias AUC score, from the count tables of the rows, an engine's ScoredCounts.with_atoms() or "
    "the metric functions). Tip: pass ci=None to get the weighted point estimates.")


def check_sample_weight(sample_weight, n: int, func: str) -> Optional[np.ndarray]:
    """`sample_weight` as a float64 array of `n` finite weights >= 0, or None when it is None.

    Raises
    ------
    ValueError
        For a weight array that is not one-dimensional, not numeric or of the wrong length, that
        holds negative, NaN or infinite values (the message counts them and gives the first row), or
        whose squares overflow or underflow a float (``WEIGHT_SCALE``).
    """
    if sample_weight is None:
        return None
    arr = np.asarray(sample_weight)
    if arr.ndim != 1:
        raise ValueError(WEIGHT_SHAPE_MESSAGE.format(func=func, shape=arr.shape))
    if arr.dtype.kind not in "biuf":
        raise ValueError(WEIGHT_TYPE_MESSAGE.format(func=func, dtype=arr.dtype))
    if len(arr) != n:
        raise ValueError(WEIGHT_LENGTH_MESSAGE.format(func=func, got=len(arr), expected=n))
    w = arr.astype(np.float64)
    for bad, what in ((np.isnan(w), "NaN values"), (np.isinf(w), "infinite values"),
                      (w < 0, "negative values")):
        if bad.any():
            raise ValueError(WEIGHT_VALUE_MESSAGE.format(func=func, n=int(bad.sum()), what=what,
                                                         first=int(np.argmax(bad))))
    check_weight_scale(w, f"{func}: sample_weight")
    return w


def check_weight_scale(w: np.ndarray, what: str) -> None:
    """Refuse weights whose squares overflow or underflow a float (``WEIGHT_SCALE``).

    Kish's effective size and the weighted variances take sums of squared weights: a positive weight
    outside ``WEIGHT_RANGE`` (1e-150 to 1e150) makes them infinite or 0 (e.g. every weight 1e308, or
    1e-320).

    Parameters
    ----------
    w : ndarray of shape (n_samples,)
        Weights, finite and >= 0 (NaN, for a missing weight, is ignored).
    what : str
        What the message calls them, e.g. ``"The weight column 'w'"`` or ``"metric: sample_weight"``.

    Raises
    ------
    ValueError
        ``WEIGHT_SCALE``, naming the largest (or smallest positive) weight and the fix.
    """
    positive = w[w > 0]
    if not positive.size:
        return
    low, high = float(positive.min()), float(positive.max())
    if high > WEIGHT_RANGE[1]:
        raise ValueError(WEIGHT_SCALE.format(what=what, extreme="large", value=high, flow="overflow"))
    if low < WEIGHT_RANGE[0]:
        raise ValueError(WEIGHT_SCALE.format(what=what, extreme="small", value=low, flow="underflow"))


def check_no_intervals(weighted: bool, ci, func: str) -> None:
    """Raise ValueError when intervals (`ci` not None) are asked for together with sample weights."""
    if weighted and ci is not None:
        raise ValueError(WEIGHT_INTERVAL_MESSAGE.format(func=func))


def effective_size(total, squares) -> np.ndarray:
    """Kish's effective sample size of sums of weights.

    n* = (sum w)^2 / sum w^2, the number of rows of equal weight that carry as much information as
    the weighted rows (Kish 1965); with every weight 1 it is the number of rows.

    Parameters
    ----------
    total, squares : array-like of float, any shape (broadcast together)
        The sums of weights, and of squared weights, of the same rows.

    Returns
    -------
    ndarray of float
        n*, 0 where the sum of squares is 0 (no row, or only rows of weight 0).

    References
    ----------
    Kish, L. (1965), Survey Sampling, Wiley, section 11.7.
    """
    total = np.asarray(total, dtype=np.float64)
    squares = np.asarray(squares, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(squares > 0, total * total / np.where(squares > 0, squares, 1.0), 0.0)


def row_counts(atoms) -> Optional[np.ndarray]:
    """Rows of weight > 0 per (pattern, cell) of weighted atoms (``_stats.bootstrap.Atoms`` with ``rows``), shape
    of ``atoms.counts``: what a weighted proportion's effective size is truncated at. None for counts of rows.

    The rows are each row's (pattern, cell, weight), or an engine's bucketed entries (pattern, cell, sum of
    weights, bucket, rows of weight > 0), whose fifth array counts the rows behind each entry."""
    if atoms is None or atoms.rows is None:
        return None
    pattern, cell, weight = atoms.rows[:3]
    index = np.asarray(pattern, dtype=np.int64) * atoms.counts.shape[1] + np.asarray(cell, dtype=np.int64)
    held = np.asarray(weight) > 0
    rows = None if len(atoms.rows) < 5 else np.asarray(atoms.rows[4], dtype=np.float64)[held]
    return np.bincount(index[held], weights=rows, minlength=atoms.counts.size).reshape(
        atoms.counts.shape).astype(np.float64)


def size_text(n) -> str:
    """A size for a message: an integer count as ``1,234``, an effective size as ``12.3``."""
    n = float(n)
    return f"{int(n):,}" if n == int(n) else f"{n:,.1f}"


def weight_column(column, col: str) -> np.ndarray:
    """A table's weight column `column` (a pandas Series named `col`) as float64, NaN for a missing weight.

    Raises
    ------
    ValueError
        For a column that is not numeric (``WEIGHT_TYPE``), holds negative or infinite weights
        (``WEIGHT_VALUES``, with their count and the first row), or weights whose squares overflow or
        underflow a float (``WEIGHT_SCALE``).
    """
    import pandas as pd

    if column.dtype == bool or not pd.api.types.is_numeric_dtype(column) or pd.api.types.is_complex_dtype(column):
        raise ValueError(WEIGHT_TYPE.format(col=col, dtype=column.dtype))
    w = column.to_numpy(dtype=np.float64, na_value=np.nan)
    for bad, what in ((np.isinf(w), "infinite weights"), (w < 0, "negative weights")):
        if bad.any():
            raise ValueError(WEIGHT_VALUES.format(col=col, n=int(bad.sum()), what=what, first=int(np.argmax(bad))))
    check_weight_scale(w, f"The weight column {col!r}")
    return w
