"""Attribute binning: numeric protected attributes cut into quantile bins, with readable bin labels."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .patterns import MISSING


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
