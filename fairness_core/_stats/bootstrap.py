# More than 500 lines: one concept (the bootstrap over atoms: its multinomial draws, its bucket splits of rows in memory, of weighted rows and of rows an engine dealt, the per-bucket tables an engine counted, and its intervals).
"""Seeded bootstrap over sufficient statistics, stratified by subgroup membership.

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

Many patterns (overlapping identity columns: thousands of combinations, most with a few rows) make
that draw cost grow with the patterns, and a stratum of one row has no variance of its own. Above
``BUCKET_PATTERNS`` patterns, :meth:`Atoms.replicates` switches to a *bucket bootstrap* whose cost
does not grow with them (:class:`BucketSplit`, :class:`BucketDraws`): the rows are dealt at random
into ``BUCKETS`` = K buckets (each row independently and uniformly; rows of one atom are
interchangeable, so this is a Multinomial(n_a, 1/K) split of each atom's count n_a, drawn once per
call from the generator), the per-bucket tables T_1..T_K (member, background and overall counts of
each bucket's rows) are summed once, and a replicate is a reweighting of the buckets,

    T* = sum_b w_b T_b,    (w_1, ..., w_K) ~ Multinomial(K, 1/K, ..., 1/K),

the ordinary nonparametric bootstrap with the K buckets as its units (Efron & Tibshirani 1993,
ch. 6; resampling groups of exchangeable rows as in the random-grouping / "bag of little
bootstraps" literature, Kleiner et al. 2014). Bucket totals are sums of iid rows, so the bootstrap
variance of any linear count is (K - 1) / K times its plug-in variance, as a row bootstrap; a
replicate costs K x subgroups x cells whatever the patterns. Subgroup sizes then vary between
replicates (as in a row bootstrap), and a statistic undefined in a replicate (a subgroup absent from
it) is NaN and counted as every undefined replicate is.

With sample weights the counts are sums of weights, which a multinomial cannot redraw: the atoms keep
their rows (``Atoms.rows``), and every bootstrap of them is a bucket bootstrap whose rows are dealt one
by one with their weights into ``ROW_BUCKETS`` buckets (:meth:`BucketSplit.of_rows`).

An engine may also count the per-bucket tables themselves, each row in a bucket of a hash of its position, each
identity column summed per (bucket, key, cell) rather than grouped by (``engines._bucket_atoms``): atoms with
``buckets`` (:class:`BucketTables`, :meth:`Atoms.of_buckets`) and no pattern, whose replicates reweight those
tables; :meth:`BucketTables.of_rows` deals rows in memory by the same buckets, with their weights where the tables
are sums of weights.
"""

from __future__ import annotations

import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Optional

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
# Buckets of the bucket bootstrap, and the patterns above which Atoms.replicates uses it (see the module
# docstring): above about K patterns a replicate of the stratified bootstrap costs more than K bucket tables.
BUCKETS = 200
BUCKET_PATTERNS = 200
KEEP_TABLES_BYTES = 8 * 2 ** 20   # the replicate tables of one draw kept with small atoms (replicate_stat)
# Buckets of weighted rows (Atoms.rows): with 200, a Theil index's percentile interval covered 92.9 % against the
# stratified bootstrap's 94.8 %; 94.2 % with 1,000 (tests/fairness_core/test_weighted_metric_intervals.py).
ROW_BUCKETS = 1000
# Atoms of at most this many rows are split among the buckets row by row (one uniform draw per row); larger
# ones by one multinomial draw each.
_ROW_SPLIT = 64


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
    # With sample weights (counts are then sums of weights): each row's (pattern, cell, weight), which the bucket
    # bootstrap deals into buckets row by row (:meth:`BucketSplit.of_rows`), or an engine's (pattern, cell, weight,
    # bucket, rows) entries, dealt where the rows live (:meth:`BucketSplit.of_buckets`); None for counts of rows.
    rows: Optional[tuple] = field(default=None, compare=False, repr=False)
    # Per-bucket tables counted where the rows live (:class:`BucketTables`: an engine's GROUP BY bucket with each
    # identity column summed, whatever the membership patterns), or dealt in memory by the same buckets
    # (:meth:`BucketTables.of_rows`): the bootstrap reweights them, and ``counts``, ``member`` and ``background``
    # then hold no pattern (shape (0, ...)).
    buckets: Optional["BucketTables"] = field(default=None, compare=False, repr=False)
    # What is derived from these atoms once and reused (the last bucket split drawn, see :meth:`replicates`):
    # not part of the value.
    memo: dict = field(default_factory=dict, init=False, compare=False, repr=False)

    @classmethod
    def of(cls, subgroups, cell: np.ndarray, n_cells: int) -> "Atoms":
        """Atoms of rows with cell index `cell` (shape (n_samples,), values in [0, n_cells))."""
        codes, member, background = subgroups.patterns
        n_patterns = member.shape[0]
        counts = np.bincount(codes * n_cells + cell, minlength=n_patterns * n_cells)
        counts = counts.reshape(n_patterns, n_cells).astype(np.float64)
        keep = counts.sum(axis=1) > 0
        return cls(counts[keep], member[keep], background[keep])

    def tables(self, counts=None):
        """(member, background, overall) counts from atoms of shape (..., n_patterns, n_cells).

        Returns arrays of shape (..., n_subgroups, n_cells), (..., n_subgroups, n_cells) and
        (..., n_cells). `counts` may also be a block of the bucket bootstrap (:class:`BucketDraws`,
        what :meth:`replicates` yields above ``BUCKET_PATTERNS`` patterns): its replicates' tables.
        """
        if isinstance(counts, BucketDraws):
            m, b, o = counts.split.atom_tables(self)
            if b is None:   # every row valid for every subgroup: background = all - member, summed after reweighting
                m, o = counts.reweight((m, o))
                return m, o[..., None, :] - m, o
            return counts.reweight((m, b, o))
        if counts is None and self.buckets is not None:   # the buckets summed: every row's tables
            return tuple(t.sum(axis=0) for t in self.buckets.tables)
        c = self.counts if counts is None else counts
        # One matrix product per replicate (masks.T (k, P) @ counts (P, cells)): with a replicate
        # axis this is most of a bootstrap's work, and BLAS does it many times faster than
        # ``einsum``'s loops; sums of integer counts are exact in any order.
        m = np.matmul(self.member.T.astype(np.float64), c)
        b = np.matmul(self.background.T.astype(np.float64), c)
        return m, b, c.sum(axis=-2)

    @property
    def by_buckets(self) -> bool:
        """Whether :meth:`replicates` draws the bucket bootstrap (above ``BUCKET_PATTERNS`` patterns, weighted rows, or
        per-bucket tables)."""
        return len(self.counts) > BUCKET_PATTERNS or self.rows is not None or self.buckets is not None

    @classmethod
    def of_buckets(cls, tables: "BucketTables") -> "Atoms":
        """Atoms that are per-bucket tables alone (:class:`BucketTables`): no pattern, every replicate a
        reweighting of `tables`' buckets."""
        k, n_cells = tables.member.shape[1], int(np.prod(tables.member.shape[2:], dtype=np.int64))
        return cls(np.zeros((0, n_cells)), np.zeros((0, k), dtype=bool), np.zeros((0, k), dtype=bool), buckets=tables)

    def one_block(self, n_boot: int) -> bool:
        """Whether :meth:`replicates` draws `n_boot` replicates in one block (at most ``BLOCK_CELLS`` cells)."""
        return not self.by_buckets and max(1, self.counts.size) * n_boot <= BLOCK_CELLS

    def replicates(self, n_boot: int, rng: np.random.Generator):
        """Yield blocks of resampled atoms, shape (block, n_patterns, n_cells), n_boot rows in all.

        Small tables (at most ``BLOCK_CELLS`` cells over all replicates) are drawn from `rng` in one
        call. Larger ones are split into blocks of equal size, a multiple of the worker threads in
        number (a multiple of ``MAX_WORKERS``), each drawn from its own child generator
        (``rng.spawn``) in a thread pool (numpy releases the GIL while it draws), at most one block
        per worker ahead of the consumer. The draws depend only on `rng`, `n_boot` and the table's
        shape: never on the machine's CPUs or the timing of the threads.

        With more than ``BUCKET_PATTERNS`` patterns, or with sample weights (``rows``: a multinomial
        redraw of counts has no meaning for sums of weights), the blocks are those of the bucket bootstrap
        instead (:class:`BucketDraws`: bucket weights, see the module docstring), which
        :meth:`tables` and :func:`replicate_stat` turn into tables; the split of the rows among the
        buckets is drawn from `rng` first (an engine's buckets taken as they are), so a seed gives the same
        replicates from the same atoms. The
        split (and the per-bucket tables computed from it) is kept with the atoms (``memo``): another
        statistic of the same atoms from a generator in the same state (the same seed) reuses it, and
        the generator is left in the state the split's draws leave it in, so the replicates are those
        of a split drawn afresh.
        """
        if self.buckets is not None:   # per-bucket tables: nothing to split, the buckets taken as they are
            yield from bucket_replicates(self.counts, n_boot, rng, 2 * self.member.shape[1] + 1, split=self.buckets)
            return
        if self.by_buckets:   # weighted rows: always by buckets
            before = repr(rng.bit_generator.state)
            kept = self.memo.get("split")
            if kept is None or kept[0] != before:   # one split kept per atoms: the memory of one
                split = (BucketSplit(self.counts, BUCKETS, rng) if self.rows is None
                         else BucketSplit.of_buckets(*self.rows[:4], self.counts.shape, ROW_BUCKETS) if len(self.rows) > 3
                         else BucketSplit.of_rows(*self.rows, self.counts.shape, ROW_BUCKETS, rng))
                self.memo["split"] = kept = (before, rng.bit_generator.state, split)
            else:
                rng.bit_generator.state = kept[1]
            yield from bucket_replicates(self.counts, n_boot, rng, 2 * self.member.shape[1] + 1, split=kept[2])
            return
        n = self.counts.sum(axis=1).astype(np.int64)
        pvals = self.counts / np.maximum(n, 1)[:, None]
        cells = max(1, self.counts.size) * n_boot
        if self.one_block(n_boot):
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


def replicate_stat(atoms, stat: Callable, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Evaluate ``stat(member, background, overall)`` on every replicate -> shape (n_boot, ...).

    `stat` takes counts with a leading replicate axis (see :meth:`Atoms.tables`) and returns an
    array whose first axis is that replicate axis. `atoms` is an :class:`Atoms` or any object with
    its ``replicates`` and a ``tables`` linear in the counts (e.g. ``CalibrationAtoms``): blocks of
    the bucket bootstrap reach the latter through :meth:`BucketDraws.reweight` of its per-bucket
    tables, from its ``bucket_tables(split)`` when it has one, else from ``tables`` on the
    buckets' dense counts (:meth:`BucketSplit.dense_tables`).
    """
    def tables(block):
        if isinstance(block, BucketDraws) and hasattr(atoms, "bucket_tables"):   # e.g. CalibrationAtoms
            return block.reweight(block.split.of(atoms, atoms.bucket_tables))
        if isinstance(block, BucketDraws) and not isinstance(atoms, Atoms):
            return block.reweight(block.split.dense_tables(atoms.tables))
        return atoms.tables(block)

    if isinstance(atoms, Atoms) and atoms.one_block(n_boot):
        # One block (see Atoms.replicates): the tables of the last draw are kept with the atoms (one draw, read-only,
        # up to KEEP_TABLES_BYTES), so every statistic of a page (each rate, distance and rule at one threshold, from
        # the same seed) reads the same replicates without drawing them again; the generator is left where the
        # draw leaves it.
        key = (n_boot, repr(rng.bit_generator.state))
        kept = atoms.memo.get("tables")
        if kept is not None and kept[0] == key:
            rng.bit_generator.state = kept[1]
            drawn = kept[2]
        else:
            drawn = tables(next(iter(atoms.replicates(n_boot, rng))))
            if sum(array.nbytes for array in drawn) <= KEEP_TABLES_BYTES:
                for array in drawn:
                    array.flags.writeable = False
                atoms.memo["tables"] = (key, rng.bit_generator.state, drawn)
        return np.concatenate([np.asarray(stat(*drawn))])   # the caller's own array, as below
    return np.concatenate([np.asarray(stat(*tables(block))) for block in atoms.replicates(n_boot, rng)])


class BucketSplit:
    """The rows of atoms dealt at random into K buckets: sparse counts per (bucket, pattern, cell).

    Each atom's n_a rows are split Multinomial(n_a, 1/K, ..., 1/K): exactly the bucket counts of
    rows dealt into buckets independently and uniformly (rows of one atom are interchangeable).
    Atoms of at most ``_ROW_SPLIT`` rows draw a bucket per row, larger ones one multinomial each,
    so the cost is O(min(rows, atoms x K)).

    Attributes
    ----------
    bucket, pattern, cell : ndarray of int, shape (n_entries,)
    count : ndarray of float, shape (n_entries,)
        The rows of each (bucket, pattern, cell) with any (each triple once).
    shape : (n_patterns, n_cells)
    n_buckets : int
    """

    def __init__(self, counts: np.ndarray, n_buckets: int, rng: np.random.Generator):
        counts = np.asarray(counts)
        pattern, cell = np.nonzero(counts)
        flat = pattern * counts.shape[1] + cell                       # each atom's (pattern, cell), flattened
        n = np.rint(counts[pattern, cell]).astype(np.int64)
        small = n <= _ROW_SPLIT
        owner = np.repeat(flat[small], n[small])                      # one entry per row of a small atom
        keys = [owner * n_buckets + rng.integers(0, n_buckets, size=len(owner))]
        values = [np.ones(len(owner))]
        big = np.flatnonzero(~small)
        if len(big):
            split = rng.multinomial(n[big], np.full(n_buckets, 1.0 / n_buckets))   # (big atoms, K)
            i, j = np.nonzero(split)
            keys.append(flat[big[i]] * n_buckets + j)
            values.append(split[i, j].astype(np.float64))
        self._set_entries(counts.shape, n_buckets, np.concatenate(keys), np.concatenate(values))

    @classmethod
    def of_rows(cls, pattern: np.ndarray, cell: np.ndarray, weight: np.ndarray, shape: tuple, n_buckets: int,
                rng: np.random.Generator) -> "BucketSplit":
        """Rows with weights dealt into buckets: each row (its `pattern`, `cell` and `weight`, shape (n_rows,)) to
        a bucket drawn uniformly from `rng`; an entry's count is the sum of its rows' weights. Atoms of
        weighted counts (``Atoms.rows``) are split so: the rows of an atom are not interchangeable."""
        split = cls.__new__(cls)
        flat = np.asarray(pattern, dtype=np.int64) * shape[1] + np.asarray(cell, dtype=np.int64)
        split._set_entries(shape, n_buckets, flat * n_buckets + rng.integers(0, n_buckets, size=len(flat)),
                           np.asarray(weight, dtype=np.float64))
        return split

    @classmethod
    def of_buckets(cls, pattern, cell, weight, bucket, shape: tuple, n_buckets: int) -> "BucketSplit":
        """Rows already dealt into buckets where they live (``engines._buckets``), nothing drawn.

        Parameters
        ----------
        pattern, cell, bucket : ndarray of int, shape (n_entries,)
            Each entry's pattern, cell and bucket (in [0, `n_buckets`)); equal entries are summed.
        weight : ndarray of float, shape (n_entries,)
            The sum of the weights (or the count) of each entry's rows.
        shape : (n_patterns, n_cells)
        n_buckets : int

        Returns
        -------
        BucketSplit
        """
        split = cls.__new__(cls)
        flat = np.asarray(pattern, dtype=np.int64) * shape[1] + np.asarray(cell, dtype=np.int64)
        split._set_entries(shape, n_buckets, flat * n_buckets + np.asarray(bucket, dtype=np.int64),
                           np.asarray(weight, dtype=np.float64))
        return split

    def _set_entries(self, shape: tuple, n_buckets: int, key: np.ndarray, value: np.ndarray) -> None:
        """The entries from keys ``(pattern * n_cells + cell) * K + bucket`` and their values: equal keys summed,
        in key order, hence in pattern order. The keys come in runs of one atom, which numpy's stable sort
        (timsort) merges about ten times faster than the sort of ``np.unique``."""
        self.shape, self.n_buckets = tuple(shape), int(n_buckets)
        order = np.argsort(key, kind="stable")
        key, value = key[order], value[order]
        first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.zeros(0, dtype=np.int64)
        atom, self.bucket = np.divmod(key[first], self.n_buckets)
        self.pattern, self.cell = np.divmod(atom, self.shape[1])
        self.count = np.add.reduceat(value, first) if len(key) else np.zeros(0)
        # Entries in pattern order: column pointers of the sparse (bucket x column, pattern) sums of :meth:`spread`.
        self._column_starts = np.r_[0, np.cumsum(np.bincount(self.pattern, minlength=self.shape[0]))]
        self._cache = None

    def atom_tables(self, atoms: "Atoms") -> tuple:
        """Per-bucket (member, background, overall) counts of `atoms` (shapes (K, k, cells), (K, k, cells),
        (K, cells)): :meth:`spread` of each entry's count in its cell. Background None when every
        pattern is in the background of every subgroup it is not a member of (no missing
        memberships): it is then overall - member, computed after reweighting (half the work)."""
        if self._cache is None or self._cache[0] is not atoms:
            complement = bool(np.array_equal(atoms.background, ~atoms.member))
            self._cache = (atoms, self.spread(self.cell[:, None], self.count[:, None], self.shape[1], atoms.member,
                                              None if complement else atoms.background))
        return self._cache[1]

    def of(self, owner, tables: Callable) -> tuple:
        """``tables(self)`` (per-bucket tables of `owner`), computed once per split."""
        if self._cache is None or self._cache[0] is not owner:
            self._cache = (owner, tables(self))
        return self._cache[1]

    def spread(self, column: np.ndarray, value: np.ndarray, n_columns: int, member: np.ndarray,
               background: Optional[np.ndarray]) -> tuple:
        """Per-bucket sums of entry values over each subgroup's patterns: one sparse product.

        Entry e (a bucket, pattern and cell of the split) adds ``value[e, f]`` to column
        ``column[e, f]`` (both shape (n_entries, F)) of its bucket's table of every subgroup whose
        member (background) its pattern is, and of the overall table. Returns arrays of shape
        (K, k, n_columns), (K, k, n_columns) (None without `background`) and (K, n_columns), each
        C-contiguous; cost O(entries x F x k).
        """
        from scipy import sparse

        k = member.shape[1]
        column, value = np.asarray(column), np.asarray(value, dtype=np.float64)
        masks = [m.astype(np.float64) for m in (member, background) if m is not None]
        sums = [np.zeros((self.n_buckets * n_columns, k)) for _ in masks]
        overall = np.zeros(self.n_buckets * n_columns)
        for f in range(column.shape[1]):   # one value of every entry at a time: the memory of one sparse matrix
            row = self.bucket * n_columns + column[:, f]
            # entries are in pattern order: a CSC matrix straight from them (a product sums repeated rows of a column)
            spread = sparse.csc_matrix((value[:, f], row, self._column_starts),
                                       shape=(self.n_buckets * n_columns, self.shape[0]))
            for total, mask in zip(sums, masks):
                if k:
                    total += np.asarray(spread @ mask)
            overall += np.bincount(row, weights=value[:, f], minlength=self.n_buckets * n_columns)
        out = [np.ascontiguousarray(t.reshape(self.n_buckets, n_columns, k).transpose(0, 2, 1)) for t in sums]
        if background is None:
            out.append(None)
        return (*out, overall.reshape(self.n_buckets, n_columns))

    def dense_tables(self, tables: Callable) -> tuple:
        """Per-bucket tables of any `tables` function linear in counts of shape (..., n_patterns, n_cells)
        (e.g. ``CalibrationAtoms.tables``), evaluated on the buckets' dense counts a few buckets at a time."""
        if self._cache is None or self._cache[0] != tables:   # a bound method: equal, not identical
            n_patterns, n_cells = self.shape
            step = max(1, BLOCK_CELLS // max(1, n_patterns * n_cells))
            parts = []
            for start in range(0, self.n_buckets, step):
                stop = min(start + step, self.n_buckets)
                dense = np.zeros((stop - start, n_patterns, n_cells))
                inside = (self.bucket >= start) & (self.bucket < stop)
                dense[self.bucket[inside] - start, self.pattern[inside], self.cell[inside]] = self.count[inside]
                parts.append(tables(dense))
            self._cache = (tables, tuple(np.concatenate(p) for p in zip(*parts)))
        return self._cache[1]


class BucketTables:
    """Per-bucket (member, background, overall) tables of rows already dealt into K buckets: what a replicate of the
    bucket bootstrap reweights (:class:`BucketDraws`), given directly rather than split from atoms.

    An engine counts them where the rows live, with each row's bucket a hash of its position (``engines._buckets``)
    and each identity column summed per (bucket, protected key, cell) rather than grouped by: its result has
    K x keys x cells rows whatever the number of membership patterns. :meth:`of_rows` deals rows in memory by the
    same buckets, so both give the same replicates from the same seed. Every table is linear in the rows, so a
    replicate ``T* = sum_b w_b T_b`` with ``w ~ Multinomial(K, 1/K, ..., 1/K)`` is the nonparametric bootstrap of
    the K buckets (Efron & Tibshirani 1993, ch. 6), as for :class:`BucketSplit`.

    Parameters
    ----------
    member, background : ndarray of float, shape (K, n_subgroups, ...)
        Each bucket's member and background sums of every subgroup; the trailing axes are the table's cells
        (e.g. (4,) confusion cells, or (4, n_bins) calibration sums).
    overall : ndarray of float, shape (K, ...)
        Each bucket's sums over all its rows.

    Attributes
    ----------
    tables : (member, background, overall)
    n_buckets : int
    """

    def __init__(self, member: np.ndarray, background: np.ndarray, overall: np.ndarray):
        self.member, self.background, self.overall = (np.ascontiguousarray(t, dtype=np.float64)
                                                      for t in (member, background, overall))
        if not (len(self.member) == len(self.background) == len(self.overall)):
            raise ValueError("BucketTables: member, background and overall need one leading entry per bucket.")
        self.n_buckets = len(self.overall)

    @property
    def tables(self) -> tuple:
        """(member, background, overall)."""
        return self.member, self.background, self.overall

    @classmethod
    def of_rows(cls, member: np.ndarray, background: np.ndarray, cell: np.ndarray, n_cells: int,
                bucket: np.ndarray, n_buckets: int, weight: Optional[np.ndarray] = None) -> "BucketTables":
        """The per-bucket tables of rows in memory, each row dealt to its given bucket.

        Parameters
        ----------
        member, background : ndarray of bool, shape (n_rows, n_subgroups)
            Each row's memberships and backgrounds (``Subgroups.membership`` and ``.background``).
        cell : ndarray of int, shape (n_rows,)
            Each row's cell, in [0, `n_cells`).
        n_cells : int
        bucket : ndarray of int, shape (n_rows,)
            Each row's bucket in [0, `n_buckets`): e.g. ``engines._buckets.bucket_of(np.arange(n_rows) + 1)``,
            the buckets an engine deals the same rows into.
        n_buckets : int
        weight : ndarray of float, shape (n_rows,), or None
            Each row's weight: the tables are then sums of weights (an engine's per-bucket tables of a weight
            column). None: counts of rows.

        Returns
        -------
        BucketTables
            Tables of shape (K, k, n_cells), (K, k, n_cells) and (K, n_cells): counts of rows, or sums of `weight`.
        """
        from scipy import sparse

        cell, bucket = np.asarray(cell, dtype=np.int64), np.asarray(bucket, dtype=np.int64)
        n, k = len(cell), np.shape(member)[1]
        index = bucket * int(n_cells) + cell
        size = int(n_buckets) * int(n_cells)
        value = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
        spread = sparse.csr_matrix((value, (index, np.arange(n))), shape=(size, n))
        m, b = (np.asarray(spread @ np.asarray(masks, dtype=np.float64)).reshape(int(n_buckets), int(n_cells), k)
                .transpose(0, 2, 1) for masks in (member, background))
        overall = np.bincount(index, weights=value, minlength=size).astype(np.float64).reshape(int(n_buckets),
                                                                                              int(n_cells))
        return cls(m, b, overall)

    def atom_tables(self, atoms=None) -> tuple:
        """The per-bucket tables (what :meth:`BucketSplit.atom_tables` computes from a split)."""
        return self.tables

    def of(self, owner, tables: Optional[Callable] = None) -> tuple:
        """The per-bucket tables, whoever asks (what :meth:`BucketSplit.of` computes from a split)."""
        return self.tables

    def dense_tables(self, tables: Optional[Callable] = None) -> tuple:
        """The per-bucket tables (what :meth:`BucketSplit.dense_tables` computes from a split)."""
        return self.tables

    def permuted(self, order) -> "BucketTables":
        """The tables with their last axis (the cells) taken in `order` (new cell i is old cell ``order[i]``, as
        ``counts[:, order]`` reorders atoms)."""
        order = np.asarray(order, dtype=np.int64)
        return BucketTables(*(t[..., order] for t in self.tables))

    def whole(self) -> "BucketDraws":
        """One replicate of weight 1 on every bucket: the tables of all the rows (a point estimate's)."""
        return BucketDraws(np.ones((1, self.n_buckets)), self)


@dataclass(frozen=True, eq=False)
class BucketDraws:
    """A block of bucket-bootstrap replicates: weights (n_replicates, K) over the buckets of `split`.

    A replicate's tables are ``weights @ per-bucket tables`` (:meth:`reweight`); see the module
    docstring.
    """

    weights: np.ndarray
    split: BucketSplit

    def __len__(self) -> int:
        return len(self.weights)

    def reweight(self, per_bucket: tuple) -> tuple:
        """The replicates' tables from per-bucket tables (each with a leading axis of K buckets)."""
        return tuple(np.matmul(self.weights, t.reshape(t.shape[0], -1)).reshape((len(self.weights),) + t.shape[1:])
                     for t in per_bucket)   # BLAS: (B, K) @ (K, table cells)


def bucket_replicates(counts: np.ndarray, n_boot: int, rng: np.random.Generator, tables_per_cell: int = 1,
                      split: Optional[BucketSplit] = None):
    """Yield :class:`BucketDraws` blocks, `n_boot` replicates in all, of the atoms `counts` (n_patterns, n_cells).

    The rows are split among ``BUCKETS`` buckets (:class:`BucketSplit`, from `rng`; or `split`, one drawn
    before, with its own number K of buckets), then each replicate draws its bucket weights Multinomial(K, 1/K)
    from `rng` (the counts of K uniform picks); blocks hold at most about ``BLOCK_CELLS`` table cells
    (`tables_per_cell` tables of ``n_cells`` per replicate).
    """
    split = BucketSplit(counts, BUCKETS, rng) if split is None else split
    per_replicate = max(1, tables_per_cell * counts.shape[1])
    block = max(1, min(n_boot, BLOCK_CELLS // per_replicate))
    k = split.n_buckets
    for start in range(0, n_boot, block):
        size = min(block, n_boot - start)
        # Multinomial(K, 1/K) as the counts of K uniform picks: five times faster than rng.multinomial at K = 1,000
        picks = rng.integers(0, k, size=(size, k)) + k * np.arange(size)[:, None]
        yield BucketDraws(np.bincount(picks.ravel(), minlength=size * k).reshape(size, k).astype(np.float64), split)


def percentile_interval(samples: np.ndarray, level) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Percentile interval along axis 0, ignoring NaN (undefined replicates).

    `level` is one confidence level, or one per column (an array of shape ``samples.shape[1:]``).
    Returns (low, high, n_undefined), each of shape ``samples.shape[1:]``. Infinite values take
    part (a ratio with a zero rate). Where fewer than 2 replicates are defined, the bounds are NaN.
    """
    samples = np.asarray(samples, dtype=np.float64)
    undefined = np.isnan(samples).sum(axis=0)
    # Sort with NaN last; the defined replicates of each column are its first n_ok entries.
    s = np.sort(samples, axis=0) if np.any((samples.shape[0] - undefined) >= 2) else samples
    return (*sorted_percentiles(s, undefined, level), undefined)


def sorted_percentiles(s: np.ndarray, undefined: np.ndarray, level) -> tuple[np.ndarray, np.ndarray]:
    """:func:`percentile_interval`'s (low, high) from replicates already sorted along axis 0 (NaN last), with
    `undefined` the count of NaN per column: several levels from one sort."""
    alpha = (1.0 - np.asarray(level, dtype=np.float64)) / 2.0
    low = np.full(s.shape[1:], np.nan)
    high = np.full(s.shape[1:], np.nan)
    ok = (s.shape[0] - undefined) >= 2
    if np.any(ok):
        n_ok = s.shape[0] - undefined
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
    return low, high


def bias_corrected_interval(samples: np.ndarray, estimate: np.ndarray,
                            level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bias-corrected (BC) percentile interval along axis 0, ignoring NaN (undefined replicates).

    For a statistic whose bootstrap distribution is not centred on its estimate (a power mean with p < 0
    of many small subgroups' AUCs behaves like their minimum: each replicate's minimum is pulled down by
    the noise of every AUC), the plain percentile interval sits on the wrong side. With B defined
    replicates θ*_b of an estimate θ̂,

        z0 = Φ⁻¹((#{θ*_b < θ̂} + ½ #{θ*_b = θ̂}) / B),   the share clipped to [1 / (B + 1), B / (B + 1)],
        interval = [percentile Φ(2 z0 + z_{α/2}), percentile Φ(2 z0 + z_{1-α/2})],   α = 1 - level,

    Efron's BC interval (Efron 1981; Efron & Tibshirani 1993, §14.3, BCa with acceleration 0). With z0 = 0
    it is the percentile interval.

    Parameters
    ----------
    samples : ndarray of shape (n_boot, m)
        Replicates of m statistics (NaN: undefined).
    estimate : ndarray of shape (m,)
        Their estimates on the data.
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    (low, high, n_undefined), each of shape (m,); NaN bounds where fewer than 2 replicates or the
    estimate are defined.
    """
    from scipy.stats import norm

    samples = np.asarray(samples, dtype=np.float64)
    estimate = np.asarray(estimate, dtype=np.float64)
    undefined = np.isnan(samples).sum(axis=0)
    low, high = np.full(samples.shape[1:], np.nan), np.full(samples.shape[1:], np.nan)
    z = norm.ppf((1.0 - level) / 2.0)
    for j in range(samples.shape[1]):
        defined = samples[:, j][~np.isnan(samples[:, j])]
        b = len(defined)
        if b < 2 or np.isnan(estimate[j]):
            continue
        share = (np.sum(defined < estimate[j]) + 0.5 * np.sum(defined == estimate[j])) / b
        z0 = norm.ppf(np.clip(share, 1.0 / (b + 1), b / (b + 1.0)))
        q = norm.cdf([2.0 * z0 + z, 2.0 * z0 - z])
        low[j], high[j] = np.quantile(defined, q)
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

