"""Membership codes and patterns: attribute values coded, combined and packed into patterns of membership."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd


MISSING = "(missing)"


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
        if seen.all():   # every value observed: the codes are the keys
            return key.astype(np.intp), n_keys
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


def _value_label(value: Any) -> str:
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)
