"""The one sort of a score column behind the AUC family: rows in score order from one sort of 64-bit keys.

``score_order`` gives what ``np.argsort`` gives (the rows in increasing score order; tied rows in any order, which
no count of the AUC family depends on) from ``np.sort`` of integer keys that carry the row index in their low bits.
"""

from __future__ import annotations

import numpy as np


# The sign bit of a 64-bit float, and the largest row index whose bits are packed into a sort key (above it, argsort).
_SIGN = np.uint64(1 << 63)
_PACKED_INDEX_BITS = 40


def score_order(y_score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows in increasing score order (tied rows in any order) and the scores in that order.

    Equal to ``order = np.argsort(y_score); (order, y_score[order])`` up to the order of tied rows,
    which no count of the AUC family depends on. A float64 column is sorted as one array of 64-bit
    keys (``np.sort`` of integers, which numpy runs on its SIMD sorting networks, faster than
    ``argsort``): each key is the score's bits mapped to an unsigned integer of the same order
    (negative numbers' bits inverted, the sign bit of the others set), whose lowest
    ceil(log2 n) bits are replaced by the row index, which the sorted keys give back. Scores that
    differ only in those low bits (relative differences below about 2^(b - 52) for b index
    bits) may come out in row order instead of score order; they lie within one run of equal high
    bits, and such runs are sorted again by score (``np.lexsort``), so the result is always in
    score order. Other dtypes, or more than 2^40 rows, use ``np.argsort``.

    Parameters
    ----------
    y_score : ndarray of shape (n_samples,)
        Finite scores (float64 for the packed sort).

    Returns
    -------
    order : ndarray of intp, shape (n_samples,)
        Row indices, scores non-decreasing.
    ordered : ndarray of shape (n_samples,)
        ``y_score[order]``.

    References
    ----------
    The order-preserving map of IEEE 754 bits to unsigned integers is that of radix sorts of floats
    (Terdiman 2000, "Radix sort revisited"; Herf 2001, "Radix tricks").
    """
    n = len(y_score)
    bits = max(1, (n - 1).bit_length())
    if y_score.dtype != np.float64 or n < 2 or bits > _PACKED_INDEX_BITS:
        order = np.argsort(y_score)
        return order, y_score[order]
    key = _ordered_bits(y_score)
    low = np.uint64((1 << bits) - 1)
    key &= ~low
    key |= np.arange(n, dtype=np.uint64)
    key.sort()
    key &= low
    order = key.view(np.intp)                   # the row indices (below 2^40), in place
    ordered = y_score[order]
    if np.less(ordered[1:], ordered[:-1]).any():   # scores equal in their high bits, out of order
        _reorder_runs(_ordered_bits(ordered) >> np.uint64(bits), order, ordered)
    return order, ordered


def _ordered_bits(values: np.ndarray) -> np.ndarray:
    """The bits of float64 `values` as unsigned integers in the same order (a new array): a negative number's bits
    inverted, the sign bit of the others set (-0.0 just below +0.0)."""
    raw = np.ascontiguousarray(values).view(np.uint64)
    key = raw >> np.uint64(63)                  # 1 for a negative number
    np.negative(key, out=key)                   # all bits set for a negative number, none otherwise
    key |= _SIGN
    key ^= raw                                  # negative: ~raw; otherwise raw with the sign bit set
    return key


def _reorder_runs(high: np.ndarray, order: np.ndarray, ordered: np.ndarray) -> None:
    """Sort by score, in place, the runs of equal `high` bits (sorted, one per position) that hold a pair out of
    score order (see :func:`score_order`); each such run is found by a binary search of `high`."""
    runs = np.unique(high[1:][ordered[1:] < ordered[:-1]])
    starts = np.searchsorted(high, runs, side="left")
    sizes = np.searchsorted(high, runs, side="right") - starts
    run = np.repeat(np.arange(len(runs)), sizes)
    at = np.arange(len(run)) + np.repeat(starts - (np.cumsum(sizes) - sizes), sizes)
    again = at[np.lexsort((ordered[at], run))]
    order[at], ordered[at] = order[again], ordered[again]
