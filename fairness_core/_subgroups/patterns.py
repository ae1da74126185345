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


# Arrow text columns: the byte features that may tell the distinct values apart, tried in this order. Each is
# (name, the features it combines); a feature of a row is read from the column's offsets and bytes without
# hashing the row's text.
_TEXT_FEATURES = (("length",), ("first",), ("last",), ("length", "first"), ("length", "last"), ("first", "last"),
                  ("length", "first", "last"))
# More distinct values than this (or as many among as many first rows): factorized, without looking for features.
_TEXT_MAX_VALUES = 4096


def _text_codes(values: pd.Series) -> tuple[np.ndarray, list] | None:
    """Each row's rank among the sorted distinct values of an Arrow-backed text column, and those values.

    The distinct values are found once (``pyarrow.compute.unique``: one pass of hashing). When some
    byte features -- the length in bytes, the first byte, the last byte, or a combination of them --
    differ between every two distinct values, each row's value is known exactly from its features, which
    are read from the column's offsets and bytes with no hashing of text: every row holds one of the
    distinct values, and only one of them has those features. Otherwise None (the caller factorizes).

    Parameters
    ----------
    values : Series
        Any column; only one stored as Arrow strings (``str`` with the pyarrow storage, or
        ``string[pyarrow]``) is coded here.

    Returns
    -------
    (codes, uniques) or None
        `codes` (int64, shape (n_samples,)) indexes the sorted distinct values, a missing value being
        ``len(uniques)``; `uniques` are the distinct non-missing values, sorted.
    """
    dtype = values.dtype
    if not (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow") or not len(values):
        return None
    import pyarrow as pa
    import pyarrow.compute as pc

    chunked = values.array.__arrow_array__()
    if isinstance(chunked, pa.Array):
        chunked = pa.chunked_array([chunked])
    if not (pa.types.is_string(chunked.type) or pa.types.is_large_string(chunked.type)):
        return None
    if len(pc.unique(chunked.slice(0, _TEXT_MAX_VALUES))) >= _TEXT_MAX_VALUES:   # many values: factorized
        return None
    distinct = pc.unique(chunked)
    if len(distinct) > _TEXT_MAX_VALUES:
        return None
    uniques = sorted(v for v in distinct.to_pylist() if v is not None)
    encoded = [u.encode("utf-8") for u in uniques]
    features = _text_feature_choice(encoded)
    if features is None:
        return None
    unique_key = _text_key(_unique_features(encoded), features)
    table = np.zeros(int(unique_key.max()) + 1, dtype=np.int64)   # features -> rank; only the values' entries read
    table[unique_key] = np.arange(len(uniques))
    out, start = np.empty(len(values), dtype=np.int64), 0
    offset_type = np.int64 if pa.types.is_large_string(chunked.type) else np.int32
    for chunk in chunked.chunks:
        stop = start + len(chunk)
        _, offset_buffer, data_buffer = chunk.buffers()
        offsets = np.frombuffer(offset_buffer, dtype=offset_type)[chunk.offset:chunk.offset + len(chunk) + 1]
        data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(1, np.uint8)
        # A missing value's offsets may point past the bytes: clipped, and its code replaced below.
        row = {"length": np.diff(offsets) if "length" in features else None,
               "first": data.take(offsets[:-1], mode="clip") if "first" in features else None,
               "last": data.take(offsets[1:] - 1, mode="clip") if "last" in features else None}
        key = _text_key(row, features)
        if chunk.null_count:
            valid = chunk.is_valid().to_numpy(zero_copy_only=False)
            key = np.where(valid, key, 0)
            table.take(key, out=out[start:stop])
            out[start:stop][~valid] = len(uniques)
        else:
            table.take(key, out=out[start:stop])
        start = stop
    return out, uniques


def _unique_features(encoded: list[bytes]) -> dict:
    """The length, first and last byte of each of the `encoded` distinct values (0 for the empty text's bytes)."""
    return {"length": np.array([len(b) for b in encoded], dtype=np.int64),
            "first": np.array([b[0] if b else 0 for b in encoded], dtype=np.int64),
            "last": np.array([b[-1] if b else 0 for b in encoded], dtype=np.int64)}


def _text_feature_choice(encoded: list[bytes]) -> tuple[str, ...] | None:
    """The first of ``_TEXT_FEATURES`` that differs between every two of the `encoded` values (and whose key,
    ``_text_key``, stays below 2**20), or None."""
    if not encoded:
        return None
    empty = any(not b for b in encoded)
    values = _unique_features(encoded)
    for features in _TEXT_FEATURES:
        if empty and features != ("length",):   # the empty text has no first or last byte
            continue
        key = _text_key(values, features)
        if len(np.unique(key)) == len(encoded) and int(key.max()) < 1 << 20:
            return features
    return None


def _text_key(parts: dict, features: tuple[str, ...]) -> np.ndarray:
    """One integer per row from its `features` (each byte a base-256 digit after the length)."""
    key = None
    for name in features:
        part = parts[name]
        key = part if key is None else key.astype(np.int64, copy=False) * 256 + part
    return key


def _indicator_bits(arrays: list[np.ndarray], threshold: float, chunk: int = 30_000):
    """The membership mask of indicator columns, each column's extremes, and each row's pattern key, in one pass.

    Rows are taken in chunks, so that each chunk of every column is read once from memory while it is
    compared and its minimum and maximum are taken; the chunk's bits, written column by column, are
    then transposed into the rows of the mask, and shifted into each row's key. (The chunk is not a
    power of two: rows of bits a power of two apart share cache sets, which makes the transposition
    several times slower.)

    Parameters
    ----------
    arrays : list of ndarray of float, each of shape (n_samples,)
    threshold : float
        A row is a member where its value is >= `threshold`.
    chunk : int, default=30_000

    Returns
    -------
    membership : ndarray of bool, shape (n_samples, len(arrays))
    low, high : ndarray of float, shape (len(arrays),)
        ``min(0, min(column))`` and ``max(0, max(column))``: NaN where the column holds a missing value.
    key : ndarray of int64, shape (n_samples,), or None
        Each row's membership bits as an integer, the first column most significant (None with 63 columns
        or more).
    """
    n, k = len(arrays[0]), len(arrays)
    membership = np.empty((n, k), dtype=bool)
    n_chunks = -(-n // chunk)
    lows, highs = np.zeros((n_chunks + 1, k)), np.zeros((n_chunks + 1, k))   # row 0: the initial 0
    key = np.empty(n, dtype=np.int64) if k < 63 else None
    bits = np.empty((k, min(chunk, n)), dtype=bool)
    word = np.empty(min(chunk, n), dtype=np.uint32 if k <= 32 else np.int64)   # a chunk's keys
    for c, start in enumerate(range(0, n, chunk), start=1):
        stop = min(start + chunk, n)
        part_bits = bits[:, :stop - start]
        for j, values in enumerate(arrays):
            part = values[start:stop]
            lows[c, j], highs[c, j] = part.min(), part.max()
            np.greater_equal(part, threshold, out=part_bits[j])
        membership[start:stop] = part_bits.T
        if key is not None:
            part_word, part_bytes = word[:stop - start], part_bits.view(np.uint8)
            np.copyto(part_word, part_bytes[0])
            for j in range(1, k):
                np.left_shift(part_word, 1, out=part_word)
                np.bitwise_or(part_word, part_bytes[j], out=part_word)
            key[start:stop] = part_word
    return membership, lows.min(axis=0), highs.max(axis=0), key


def _combine(codes: np.ndarray, n_codes: int, more: np.ndarray, n_more: int) -> tuple[np.ndarray, int]:
    """Codes of the observed pairs (codes, more), numbered in lexicographic order -> (codes, count)."""
    return _compact(codes.astype(np.int64, copy=False) * n_more + more, n_codes * n_more)


def _compact(key: np.ndarray, n_keys: int) -> tuple[np.ndarray, int]:
    """The observed values of `key` (integers in [0, n_keys)) numbered 0, 1, ... in increasing order -> (codes, count).

    The codes may be `key` itself (when every value is observed and `key` is of type intp).
    """
    codes, observed = _compact_observed(key, n_keys)
    return codes, len(observed)


def _compact_observed(key: np.ndarray, n_keys: int) -> tuple[np.ndarray, np.ndarray]:
    """As ``_compact``, but with the observed values themselves (increasing) instead of their count."""
    if n_keys <= max(4 * len(key), 1 << 16):
        seen = np.bincount(key, minlength=n_keys) > 0
        observed = np.flatnonzero(seen)
        if len(observed) == n_keys:   # every value observed: the codes are the keys
            return key.astype(np.intp, copy=False), observed
        return (np.cumsum(seen) - 1).astype(np.intp)[key], observed
    key_codes, uniques = pd.factorize(key, sort=True)
    return key_codes.astype(np.intp, copy=False), np.asarray(uniques)


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
