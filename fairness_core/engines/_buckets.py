"""The bootstrap's buckets dealt where the rows live: a bucket per row from a hash of its identity.

With sample weights the bucket bootstrap of the rate disparities deals each row, with its weight, into
one of ``BUCKETS`` = K buckets (``_stats.bootstrap.ROW_BUCKETS``, the buckets of weighted rows; ``BucketSplit.of_rows``
deals them uniformly at random in memory).
An engine cannot draw per row reproducibly, and must not send the rows to Python, so each row's bucket is
a hash of its identity modulo K, and the engine returns SUM(w) per (pattern, cell, bucket)
(``BucketSplit.of_buckets``). The intervals then differ from in-memory ones only by that assignment. Counts of rows
with more membership patterns than ``ScoredCounts.with_atoms`` reads get the same buckets: per-bucket tables, each
identity column summed (``_bucket_atoms``, ``_stats.bootstrap.BucketTables``).

Two identities:

* ``ordered`` (DuckDB, an ibis table of a SQL database) and ``indexed`` (polars): the row's position in the
  source plus one, r = ``ROW_NUMBER() OVER ()`` (DuckDB numbers a file's rows in their order, streaming), or
  read from the row index polars adds to the scan (``_sql.SOURCE_ROWS``: polars' ``ROW_NUMBER() OVER ()``
  would hold the rows in memory), mixed by :func:`bucket_of` in plain BIGINT arithmetic (every
  intermediate below 2^62, so no engine overflows)::

      h1 = ((r mod P0) * A + C1 + seed) mod P1,   h2 = (h1^2 + C2) mod P2,   h3 = (h2^2 + C3) mod P3,
      bucket = h3 mod K,

  the same bucket in every engine for the same row (DuckDB and polars give identical replicates), with
  consecutive rows' buckets as good as independent draws (tested: the bucket counts of runs of sorted
  rows vary as multinomial ones).
* ``hashed`` (Spark, which numbers no rows without a sort): ``xxhash64`` of the row's mapped columns, of
  its rank among the rows equal to it in all of them (``ROW_NUMBER() OVER (PARTITION BY ...)``: equal rows
  are interchangeable, so any order among them gives the same buckets) and of the seed, modulo K. One
  shuffle of the rows by their mapped columns; deterministic across runs, not equal to the ordered buckets.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .._stats.bootstrap import ROW_BUCKETS as BUCKETS

# The hash's primes and constants (all below 2^31, so a product of two stays below 2^62) and its seed.
P0, A, C1, P1 = 2_147_483_647, 1_103_515_245, 12_345, 2_147_483_629
C2, P2, C3, P3 = 1_013_904_223, 2_147_483_587, 362_436_069, 2_147_483_563
SEED = 0


def bucket_of(row: np.ndarray, n_buckets: int = BUCKETS, seed: int = SEED) -> np.ndarray:
    """The bucket of each 1-based row number `row` (int64): the ordered identity's hash in numpy, exactly as
    :func:`bucket_ctes` computes it in SQL (the in-memory check of the engines' buckets).

    Parameters
    ----------
    row : array-like of int, shape (n,)
        Row numbers r >= 1 (a row's position in the source, plus one).
    n_buckets : int, default=BUCKETS
    seed : int in [0, 2^30), default=SEED

    Returns
    -------
    ndarray of int64, shape (n,)
        Buckets in [0, `n_buckets`).
    """
    h = np.asarray(row, dtype=np.int64) % P0
    h = (h * A + C1 + int(seed)) % P1
    h = (h * h + C2) % P2
    h = (h * h + C3) % P3
    return h % int(n_buckets)


def row_identity(how: str, columns: Sequence[str], row_index: str) -> list:
    """The SQL of a row's identity: columns of the first CTE, before any row is filtered out.

    Parameters
    ----------
    how : {"ordered", "indexed", "hashed"}
        "ordered": ``__fc_r`` is the row's position plus one, numbered by ``ROW_NUMBER() OVER ()``;
        "indexed": read from the source's 0-based row index column `row_index`; "hashed": its rank among
        the rows equal to it in every one of `columns`, with those columns as ``__fc_id0``, ``__fc_id1``, ...
    columns : sequence of str
        SQL of the source's mapped columns (hashed only).
    row_index : str
        The row index column (indexed only).

    Returns
    -------
    list of str
        SELECT items.
    """
    if how == "ordered":
        return ["CAST(ROW_NUMBER() OVER () AS BIGINT) AS __fc_r"]
    if how == "indexed":
        return [f"CAST({row_index} AS BIGINT) + 1 AS __fc_r"]
    names = ", ".join(columns)
    return [f"{c} AS __fc_id{i}" for i, c in enumerate(columns)] + [
        f"ROW_NUMBER() OVER (PARTITION BY {names} ORDER BY {columns[0]}) AS __fc_r"]


def bucket_ctes(ordered: bool, n_columns: int, last: str, n_buckets: int = BUCKETS,
                seed: int = SEED) -> tuple[list, str]:
    """The SQL adding each row's bucket ``__fc_b`` to the rows of the CTE `last`.

    Parameters
    ----------
    ordered : bool
        True: ``__fc_r`` is the row's position plus one, and the bucket :func:`bucket_of` of it (three CTEs
        of BIGINT arithmetic). False: the bucket is ``xxhash64(__fc_id0, ..., __fc_r, seed)`` modulo
        `n_buckets`, made non-negative (Spark).
    n_columns : int
        The identity columns ``__fc_id{i}`` of :func:`row_identity` (hashed only).
    last : str
        The CTE holding the columns of :func:`row_identity`.
    n_buckets : int, default=BUCKETS
    seed : int, default=SEED

    Returns
    -------
    (list of str, str)
        The CTEs (``name AS (SELECT ...)``) and the name of the last, whose rows have ``__fc_b``.
    """
    k = int(n_buckets)
    if not ordered:
        h = f"XXHASH64({', '.join(f'__fc_id{i}' for i in range(n_columns))}, __fc_r, {int(seed)})"
        return [f"__fc_bucket AS (SELECT *, ((({h}) % {k}) + {k}) % {k} AS __fc_b FROM {last})"], "__fc_bucket"
    steps = [f"((__fc_r % {P0}) * {A} + {C1 + int(seed)}) % {P1}", f"(__fc_h0 * __fc_h0 + {C2}) % {P2}",
             f"(__fc_h1 * __fc_h1 + {C3}) % {P3}"]
    ctes = [f"__fc_hash{i} AS (SELECT *, CAST({step} AS BIGINT) AS __fc_h{i} FROM "
            f"{last if i == 0 else f'__fc_hash{i - 1}'})" for i, step in enumerate(steps)]
    ctes.append(f"__fc_bucket AS (SELECT *, __fc_h{len(steps) - 1} % {k} AS __fc_b FROM __fc_hash{len(steps) - 1})")
    return ctes, "__fc_bucket"
