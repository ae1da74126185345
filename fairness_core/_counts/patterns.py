"""Membership patterns: sums over the patterns of membership that rows share (the atoms' layout)."""

from __future__ import annotations

import numpy as np


# Patterns x subgroups converted to float at a time by over_patterns (bounds its memory at 8 MiB).
PATTERN_BLOCK = 1 << 20


def over_patterns(masks: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Sum `values` of shape (n_patterns, ...) over the patterns of each subgroup -> (n_subgroups, ...).

    `masks` (n_patterns, n_subgroups) says which patterns make up each subgroup (member or
    background masks of ``Subgroups.patterns``). ``numpy.einsum`` runs its own loops: exact for
    counts, and not a multi-threaded BLAS product, which on a busy machine can take a hundred times
    longer for these small tables. Many patterns are summed in blocks, so the float copy of the
    masks stays small.
    """
    n_patterns, k = masks.shape
    step = max(1, PATTERN_BLOCK // max(k, 1))
    out = np.zeros((k,) + values.shape[1:])
    for start in range(0, n_patterns, step):
        out += np.einsum("pk,p...->k...", masks[start:start + step].astype(np.float64), values[start:start + step])
    return out
