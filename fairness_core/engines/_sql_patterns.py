"""The pattern queries: the bootstrap's atoms per membership pattern, and the number of membership keys.

Written once in DuckDB's dialect, as the other queries of ``_sql`` (transpiled by SQLGlot for the other engines). A
pattern is the protected values with each identity column's membership and missing flag, packed as bits of BIGINT
words (``_sql.membership_words``); ``_atoms`` and ``_weighted_atoms`` read the results.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from ._sql import SOURCE, Plan, ident, kept_rows, key_columns, literal, membership_words, reason_case, row_columns
from ._sql_counts import score_level
from ._sql_weights import total, weight_sums


def pattern_query(plan: Plan, score: Optional[str], cells: Sequence[str], *, bins: Optional[tuple] = None,
                  cal_edges: Optional[np.ndarray] = None, with_missing: Sequence[bool] = (),
                  buckets: Optional[str] = None) -> str:
    """Rows per (membership pattern, label, `cells`) of the kept rows: the atoms the bootstrap resamples.

    A pattern is the protected values (the GROUP BY keys of ``_sql.key_columns``) with each identity
    column's membership and, where it has missing values, its missing flag, packed as bits of the words
    ``__fc_w{i}`` (``_sql.membership_bits``): rows of one pattern are members and background of the same
    subgroups. Where ``_sql_counts.counts_query``
    sums the identity columns per group, this groups by them, so the result has a row per pattern and
    cell (a few per pattern: ask it only for coarse cells).

    Parameters
    ----------
    plan : Plan
    score : str or None
        The score column (``__fc_p``); None for cells of the label and the predicted label alone.
    cells : sequence of str
        SQL expressions over ``__fc_y``, ``__fc_p``, ``__fc_level`` (the AUC level of `bins`),
        ``__fc_cal`` (the calibration bin of `cal_edges`), ``__fc_given`` (1 where the predicted
        label column holds its positive value) and ``__fc_t``, ``__fc_q`` (the label and the predicted
        label as stored), each returned as ``__fc_c{i}``.
    bins : (low, step, n_bins) or None
        The AUC bins behind ``__fc_level`` (None: the score itself).
    cal_edges : ndarray of shape (n_bins + 1,) or None
        Calibration edges behind ``__fc_cal``; with them the result also holds ``__fc_sp`` (sum of
        scores) and ``__fc_sq`` (sum of squared errors (score - label) ** 2) per group.
    with_missing : sequence of bool, one per identity column
    buckets : {"ordered", "indexed", "hashed"} or None
        Also group by each row's bootstrap bucket ``__fc_b`` (``_buckets``: a hash of the row's position,
        numbered by ``ROW_NUMBER() OVER ()`` or read from ``SOURCE_ROWS``, or of its mapped columns and rank among
        equal rows), the last key after the cells.

    With a weight column (``plan.weight``) every sum is weighted: ``__fc_n`` is the sum of weights, ``__fc_ss``
    the sum of squared weights (``_sql_weights.weight_sums``), and with `buckets` ``__fc_r`` counts the rows.
    """
    keys = [ident(c) for c in plan.protected]
    expressions, bits = membership_words(plan, with_missing)
    columns = row_columns(plan, score, with_missing, given=True, members=False)
    ctes = kept_rows(plan, columns + expressions, buckets)
    level, last = score_level(ctes, bins) if score is not None else ("0", "__fc_kept")
    cal = "0" if cal_edges is None else (" + ".join(
        f"CAST(__fc_p >= {literal(float(e))} AS INT)" for e in cal_edges[1:-1]) or "0")
    ctes.append(f"__fc_cells AS (SELECT *, {level} AS __fc_level, {cal} AS __fc_cal FROM {last})")
    by = keys + bits + ["__fc_y"] + [f"{c} AS __fc_c{i}" for i, c in enumerate(cells)] + (
        ["__fc_b"] if buckets is not None else [])
    sums = weight_sums(plan, {"n": ""})
    select = by + [f"{total(factor)} AS __fc_{q}" for q, factor in sums.items()]
    select += ["COUNT(*) AS __fc_r"] if buckets is not None and plan.weighted else []   # rows behind an entry
    if cal_edges is not None:
        w = " * __fc_wt" if plan.weighted else ""
        select += [f"SUM(__fc_p{w}) AS __fc_sp", f"SUM((__fc_p - __fc_y) * (__fc_p - __fc_y){w}) AS __fc_sq"]
    group = ", ".join(str(i) for i in range(1, len(by) + 1))
    return f"WITH {', '.join(ctes)} SELECT {', '.join(select)} FROM __fc_cells GROUP BY {group}"


def pattern_count_query(plan: Plan, with_missing: Sequence[bool] = ()) -> str:
    """The number of distinct membership keys of the kept rows (column ``__fc_n``): the protected values (binned as
    in ``_sql.key_columns``) with each identity column's membership and missing flag, as :func:`pattern_query`
    groups them. It is the number of membership patterns, or more where two keys give one pattern: one number,
    counted where the data lies, so a bound on patterns is checked before any pattern is read."""
    expressions, bits = membership_words(plan, with_missing)
    kept = key_columns(plan) + expressions
    if not kept:
        return f"SELECT CAST(COUNT(*) > 0 AS INT) AS __fc_n FROM {SOURCE} WHERE {reason_case(plan)} = 0"
    names = [ident(c) for c in plan.protected] + bits
    return (f"WITH __fc_kept AS (SELECT {', '.join(kept)} FROM {SOURCE} WHERE {reason_case(plan)} = 0) "
            f"SELECT COUNT(*) AS __fc_n FROM (SELECT DISTINCT {', '.join(names)} FROM __fc_kept) AS __fc_keys")
