"""Seeded bootstrap over sufficient statistics, stratified by subgroup membership (§5.6).

Rows are never resampled. Every row has a *pattern* (which subgroups it belongs to, and of which
it is background) and a *cell* (its confusion cell, label, calibration bin, ...). The counts per
(pattern, cell), the *atoms*, determine every per-subgroup table: member counts are
``membership.T @ atoms``, background counts ``background.T @ atoms``, overall counts the column
sums. A bootstrap replicate draws, for each pattern p with n_p rows, new cell counts from
Multinomial(n_p, atoms[p] / n_p): exactly the distribution of the cell counts of a stratified
resample of rows (n_p rows drawn with replacement from pattern p). Stratifying by pattern keeps
every subgroup's size fixed, so a tiny subgroup is never resampled out of existence. The draws
for all replicates are one ``Generator.multinomial`` call (large tables: a few blocks drawn in
parallel threads, see :meth:`Atoms.replicates`); every statistic is then computed on arrays with
a leading replicate axis, never in a Python loop over replicates.
"""

from __future__ import annotations

import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .intervals import check_ci

N_BOOT_MESSAGE = "The 'n_boot' parameter of {func} must be an int >= 100. Got {got!r} instead."
SEED_MESSAGE = (
    "The 'random_state' parameter of {func} must be None, an int >= 0 or a numpy Generator. Got {got!r} instead."
)
# Cells (replicates x patterns x cells) drawn per block: bounds the memory of the draws.
BLOCK_CELLS = 2_000_000
# At most this many threads draw blocks at once.
MAX_WORKERS = 4


def _workers() -> int:
    """Threads for the draws: the CPUs this process may use, at most ``MAX_WORKERS``."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, cpus))


def check_n_boot(n_boot, func: str) -> int:
    """`n_boot` as an int >= 100, or ValueError (``N_BOOT_MESSAGE``)."""
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 100:
        raise ValueError(N_BOOT_MESSAGE.format(func=func, got=n_boot))
    return int(n_boot)


def rng_of(random_state, func: str) -> np.random.Generator:
    """A numpy Generator from None, a non-negative int seed or a Generator."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)) or random_state < 0:
        raise ValueError(SEED_MESSAGE.format(func=func, got=random_state))
    return np.random.default_rng(int(random_state))


@dataclass(frozen=True)
class Atoms:
    """Counts per (row pattern, cell) and the subgroup masks of each pattern.

    Attributes
    ----------
    counts : ndarray of float, shape (n_patterns, n_cells)
        Rows of each pattern in each cell. Patterns without rows are dropped.
    member : ndarray of bool, shape (n_patterns, n_subgroups)
        ``member[p, j]``: rows of pattern p belong to subgroup j.
    background : ndarray of bool, shape (n_patterns, n_subgroups)
        ``background[p, j]``: rows of pattern p are in the background of subgroup j.
    """

    counts: np.ndarray
    member: np.ndarray
    background: np.ndarray

    @classmethod
    def of(cls, subgroups, cell: np.ndarray, n_cells: int) -> "Atoms":
        """Atoms of rows with cell index `cell` (shape (n_samples,), values in [0, n_cells))."""
        codes, member, background = subgroups.patterns
        n_patterns = member.shape[0]
        counts = np.bincount(codes * n_cells + cell, minlength=n_patterns * n_cells)
        counts = counts.reshape(n_patterns, n_cells).astype(np.float64)
        keep = counts.sum(axis=1) > 0
        return cls(counts[keep], member[keep], background[keep])

    def tables(self, counts: np.ndarray | None = None):
        """(member, background, overall) counts from atoms of shape (..., n_patterns, n_cells).

        Returns arrays of shape (..., n_subgroups, n_cells), (..., n_subgroups, n_cells) and
        (..., n_cells).
        """
        c = self.counts if counts is None else counts
        # One matrix product per replicate (masks.T (k, P) @ counts (P, cells)): with a replicate
        # axis this is most of a bootstrap's work, and BLAS does it many times faster than
        # ``einsum``'s loops; sums of integer counts are exact in any order.
        m = np.matmul(self.member.T.astype(np.float64), c)
        b = np.matmul(self.background.T.astype(np.float64), c)
        return m, b, c.sum(axis=-2)

    def replicates(self, n_boot: int, rng: np.random.Generator):
        """Yield blocks of resampled atoms, shape (block, n_patterns, n_cells), n_boot rows in all.

        Small tables (at most ``BLOCK_CELLS`` cells over all replicates) are drawn from `rng` in one
        call. Larger ones are split into blocks of equal size, a multiple of the worker threads in
        number (a multiple of ``MAX_WORKERS``), each drawn from its own child generator
        (``rng.spawn``) in a thread pool (numpy releases the GIL while it draws), at most one block
        per worker ahead of the consumer. The draws depend only on `rng`, `n_boot` and the table's
        shape: never on the machine's CPUs or the timing of the threads.
        """
        n = self.counts.sum(axis=1).astype(np.int64)
        pvals = self.counts / np.maximum(n, 1)[:, None]
        cells = max(1, self.counts.size) * n_boot
        if cells <= BLOCK_CELLS:
            yield rng.multinomial(n, pvals, size=(n_boot, len(n))).astype(np.float64)
            return
        workers = _workers()
        # A number of blocks that depends on the size alone (so a seed gives the same draws on any
        # machine), a multiple of MAX_WORKERS so that the threads finish together.
        n_blocks = min(n_boot, MAX_WORKERS * -(-cells // (MAX_WORKERS * BLOCK_CELLS)))
        sizes = np.diff(np.linspace(0, n_boot, n_blocks + 1).round().astype(int))

        def draw(gen, size):
            return gen.multinomial(n, pvals, size=(int(size), len(n))).astype(np.float64)

        with ThreadPoolExecutor(max_workers=workers) as pool:
            pending = deque()
            for gen, size in zip(rng.spawn(n_blocks), sizes):
                pending.append(pool.submit(draw, gen, size))
                if len(pending) > workers:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()


def replicate_stat(atoms: Atoms, stat: Callable, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Evaluate ``stat(member, background, overall)`` on every replicate -> shape (n_boot, ...).

    `stat` takes counts with a leading replicate axis (see :meth:`Atoms.tables`) and returns an
    array whose first axis is that replicate axis.
    """
    return np.concatenate([np.asarray(stat(*atoms.tables(block))) for block in atoms.replicates(n_boot, rng)])


def percentile_interval(samples: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Percentile interval along axis 0, ignoring NaN (undefined replicates).

    Returns (low, high, n_undefined), each of shape ``samples.shape[1:]``. Infinite values take
    part (a ratio with a zero rate). Where fewer than 2 replicates are defined, the bounds are NaN.
    """
    samples = np.asarray(samples, dtype=np.float64)
    undefined = np.isnan(samples).sum(axis=0)
    alpha = (1.0 - level) / 2.0
    low = np.full(samples.shape[1:], np.nan)
    high = np.full(samples.shape[1:], np.nan)
    ok = (samples.shape[0] - undefined) >= 2
    if np.any(ok):
        # Sort with NaN last; the defined replicates of each column are its first n_ok entries.
        s = np.sort(samples, axis=0)
        n_ok = samples.shape[0] - undefined
        for q, out in ((alpha, low), (1.0 - alpha, high)):
            pos = q * (np.maximum(n_ok, 1) - 1)
            lo_i = np.floor(pos).astype(np.intp)
            hi_i = np.minimum(lo_i + 1, np.maximum(n_ok - 1, 0))
            frac = pos - lo_i
            a = np.take_along_axis(s, lo_i[None], axis=0)[0]
            b = np.take_along_axis(s, hi_i[None], axis=0)[0]
            with np.errstate(invalid="ignore"):
                val = np.where(frac > 0, a + frac * (b - a), a)
            val = np.where(np.isinf(a) & (a == b), a, val)
            out[...] = np.where(ok, val, np.nan)
    return low, high, undefined


def bootstrap_p_values(signed: np.ndarray) -> np.ndarray:
    """Two-sided bootstrap p-values of H0 "signed = 0", per column of `signed` (n_boot, m).

    p = min(1, 2 (1 + min(#{s <= 0}, #{s >= 0})) / (1 + B)) over the B defined replicates; NaN
    where none is defined.
    """
    s = np.asarray(signed, dtype=np.float64)
    defined = ~np.isnan(s)
    b = defined.sum(axis=0)
    le = ((s <= 0) & defined).sum(axis=0)
    ge = ((s >= 0) & defined).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.minimum(1.0, 2.0 * (1.0 + np.minimum(le, ge)) / (1.0 + b))
    return np.where(b > 0, p, np.nan)


def check_boot_options(ci, n_boot, random_state, func: str):
    """Validate (ci, n_boot, random_state) -> (level or None, n_boot, Generator or None)."""
    level = check_ci(ci, func)
    if level is None:
        return None, 0, None
    return level, check_n_boot(n_boot, func), rng_of(random_state, func)

