"""Calibration binning: bin edges (uniform or quantile), a row's bin and sub-bin."""

from __future__ import annotations

from typing import Literal

import numpy as np


# ============================================================================================
# Calibration counts
# ============================================================================================

Strategy = Literal["uniform", "quantile"]
STRATEGIES = ("uniform", "quantile")
# Each bin is split into this many equal-width sub-bins for the bootstrap (see CalibrationAtoms).
SUB_BINS = 4


def uniform_edges(n_bins: int) -> np.ndarray:
    """Exact uniform edges ``arange(n_bins + 1) / n_bins``: edge i is the double nearest to i / n_bins.

    ``linspace(0, 1, n_bins + 1)`` computes ``i * (1 / n_bins)`` and stores 0.3 as
    0.30000000000000004 (likewise 0.6 and 0.7 for ten bins), so a score of exactly 0.3 would fall
    in the lower bin while a score of exactly 0.2 falls in the upper one. Dividing the integer i by
    `n_bins` rounds once, so a score written as the same decimal (``0.3 == 3 / 10``) sits exactly
    on its edge and goes to the upper bin.
    """
    return np.arange(n_bins + 1, dtype=np.float64) / n_bins


def bin_edges(y_prob: np.ndarray, n_bins: int, strategy: str) -> np.ndarray:
    """Bin edges over [0, 1]: exact uniform edges (:func:`uniform_edges`) or quantiles of the pooled scores."""
    if strategy == "uniform":
        return uniform_edges(n_bins)
    return np.quantile(y_prob, np.linspace(0.0, 1.0, n_bins + 1))


def weighted_quantile_edges(y_prob: np.ndarray, weights: np.ndarray, n_bins: int) -> np.ndarray:
    """Quantile edges of scores with frequency weights: ``numpy.quantile``'s linear method on the scores each
    repeated `weights` times, for any weights >= 0 (rows of weight 0 take no part).

    The order statistic j (0-based) of the repeated scores is the first sorted score whose cumulative weight
    exceeds j; the virtual index (W - 1) q (W the total weight) and the interpolation between its two order
    statistics are numpy's, so integer weights give exactly the edges of the repeated rows, and unit weights
    those of ``bin_edges(y_prob, n_bins, "quantile")``. Uniform edges when the weights sum to 0.
    """
    order = np.argsort(y_prob, kind="stable")
    x, cumulative = y_prob[order], np.cumsum(weights[order])
    total = float(cumulative[-1]) if len(cumulative) else 0.0
    if total <= 0:
        return uniform_edges(n_bins)
    q = np.linspace(0.0, 1.0, n_bins + 1)
    virtual = (total - 1) * q
    previous = np.floor(virtual)
    following = previous + 1
    above, below = virtual >= total - 1, virtual < 0
    last = np.floor(max(total - 1, 0.0))
    previous[above], following[above] = last, last
    previous[below], following[below] = 0, 0
    gamma = virtual - previous

    def statistic(j):   # the j-th order statistic of the repeated scores
        return x[np.minimum(np.searchsorted(cumulative, j, side="right"), len(x) - 1)]

    a, b = statistic(previous), statistic(following)
    diff = b - a
    out = a + diff * gamma
    return np.where(gamma >= 0.5, b - diff * (1 - gamma), out)


def bin_index(y_prob: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Bin of each score: bins are [low, high) except the last, which is closed (1.0 counts).

    Exactly ``searchsorted(edges[1:-1], y_prob, side="right")``. For uniform edges (scores in
    [0, 1]) the bin is first guessed as ``floor(y_prob * n_bins)``, which rounding can put one bin
    off, and then moved to the bin whose edges hold the score: a few passes over the rows instead of
    a binary search per row.
    """
    n_bins = len(edges) - 1
    if n_bins > 1 and np.array_equal(edges, uniform_edges(n_bins)):
        guess = np.minimum((y_prob * n_bins).astype(np.intp), n_bins - 1)
        guess -= y_prob < edges[guess]
        guess += (guess < n_bins - 1) & (y_prob >= edges[guess + 1])
        return guess
    return np.searchsorted(edges[1:-1], y_prob, side="right").astype(np.intp)


def sub_bin_edges(edges: np.ndarray) -> np.ndarray:
    """The inner edges of each calibration bin's ``SUB_BINS`` equal parts: shape (n_bins, SUB_BINS - 1).

    ``low + k * width / SUB_BINS`` for k = 1 .. SUB_BINS - 1, as float64; +inf in a bin of no width (its
    rows all fall in part 0). Every engine compares scores with these same numbers, so a score on a
    part's edge falls in the same part everywhere (a formula such as ``floor((p - low) / width * 4)``
    can be evaluated in another order by an engine and round the other way).
    """
    low, width = edges[:-1, None], np.diff(edges)[:, None]
    inner = low + np.arange(1, SUB_BINS) * width / SUB_BINS
    return np.where(width > 0, inner, np.inf)


def sub_bin_index(y_prob: np.ndarray, cell: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Sub-bin of each score within its bin: how many of the bin's :func:`sub_bin_edges` it reaches.

    With `cell` the bins of :func:`bin_index`, a number in 0 .. SUB_BINS - 1 (0 in a bin of no width):
    ``Σ_k [y_prob >= e_k]``, the same comparisons the engines' SQL makes (``_sql_counts.sub_bin``).
    """
    inner = sub_bin_edges(edges)                # (n_bins, SUB_BINS - 1)
    index = np.zeros(len(y_prob), dtype=np.intp)
    for k in range(SUB_BINS - 1):               # one gathered edge per row at a time (no (n, SUB_BINS - 1) array)
        index += y_prob >= inner[:, k][cell]
    return index
