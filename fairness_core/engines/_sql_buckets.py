"""The per-bucket query: the bootstrap's tables per (bucket, protected key, label, cells), each identity column summed.

Written once in DuckDB's dialect, as the other queries of ``_sql`` (transpiled by SQLGlot for the other engines); the
rows' buckets are ``_buckets``'. ``_bucket_atoms`` reads its result into ``_stats.bootstrap.BucketTables``.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from .._stats.bootstrap import BUCKETS
from ._sql import Plan, ident, identity_tags, kept_rows, row_columns
from ._sql_counts import count_at_or_below, score_level
from ._sql_weights import total, weight_sums


def bucket_query(plan: Plan, score: Optional[str], cells: Sequence[str], *, buckets: str, bins: Optional[tuple] = None,
                 cal_edges: Optional[np.ndarray] = None, with_missing: Sequence[bool] = (),
                 n_buckets: int = BUCKETS) -> str:
    """Rows per (bootstrap bucket, protected key, label, `cells`) of the kept rows, each identity column summed.

    The bucket bootstrap's tables counted where the rows live (``_stats.bootstrap.BucketTables``): where
    ``_sql_patterns.pattern_query`` groups by each identity column's membership (a row per membership pattern and cell, as
    many as the patterns), this groups by each row's bucket ``__fc_b`` (``_buckets``) and sums the memberships,
    as ``_sql_counts.counts_query`` does: buckets x keys x cells rows whatever the patterns.

    Parameters
    ----------
    plan : Plan
    score : str or None
        The score column (``__fc_p``); None for cells of the label and the predicted label alone.
    cells : sequence of str
        SQL over the columns ``_sql_patterns.pattern_query`` names, each returned as ``__fc_c{i}``.
    buckets : {"ordered", "indexed", "hashed"}
        How rows get their bucket (``_buckets.row_identity``).
    bins : (low, step, n_bins) or None
        The AUC bins behind ``__fc_level``.
    cal_edges : ndarray of shape (n_bins + 1,) or None
        Calibration edges behind ``__fc_cal``; with them each group also holds ``__fc_sp`` (sum of scores) and
        ``__fc_sq`` (sum of squared errors (score - label) ** 2), and each identity column's the same sums over
        its members (``__fc_msp{j}``, ``__fc_msq{j}``) and missing rows (``__fc_xsp{j}``, ``__fc_xsq{j}``).
    with_missing : sequence of bool, one per identity column
    n_buckets : int, default=BUCKETS
        The buckets K (``_stats.bootstrap.BUCKETS``, the unweighted bucket bootstrap's).

    Returns
    -------
    str
        SQL with columns: the protected keys, ``__fc_y``, ``__fc_c{i}``, ``__fc_b``, ``__fc_n`` (rows, or SUM(w)
        with ``__fc_ss`` = SUM(w²) with a weight column), and per identity column j ``__fc_mn{j}`` (its members)
        and, where it has missing values, ``__fc_xn{j}`` (its missing rows), weighted alike; with a weight column
        also the rows, ``__fc_r``, ``__fc_mr{j}`` and ``__fc_xr{j}``.
    """
    keys = [ident(c) for c in plan.protected]
    tags = identity_tags(plan, with_missing)
    ctes = kept_rows(plan, row_columns(plan, score, with_missing, given=True), buckets, n_buckets)
    level, last = score_level(ctes, bins) if score is not None else ("0", "__fc_kept")
    cal = "0" if cal_edges is None else count_at_or_below("__fc_p", cal_edges[1:-1])
    ctes.append(f"__fc_cells AS (SELECT *, {level} AS __fc_level, {cal} AS __fc_cal FROM {last})")
    by = keys + ["__fc_y"] + [f"{c} AS __fc_c{i}" for i, c in enumerate(cells)] + ["__fc_b"]
    factors = {"n": ""}
    if cal_edges is not None:
        factors |= {"sp": " * __fc_p", "sq": " * (__fc_p - __fc_y) * (__fc_p - __fc_y)"}
    sums = weight_sums(plan, factors)
    select = by + [f"{total(factor)} AS __fc_{q}" for q, factor in sums.items()]
    for j, tag in tags:
        select += [f"SUM(__fc_{tag}{j}{factor}) AS __fc_{tag}{q}{j}" for q, factor in sums.items()]
    if plan.weighted:   # the rows behind each sum of weights, at which effective sizes are truncated
        select += ["COUNT(*) AS __fc_r"] + [f"SUM(__fc_{tag}{j}) AS __fc_{tag}r{j}" for j, tag in tags]
    group = ", ".join(str(i) for i in range(1, len(by) + 1))
    return f"WITH {', '.join(ctes)} SELECT {', '.join(select)} FROM __fc_cells GROUP BY {group}"
