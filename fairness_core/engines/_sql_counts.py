"""The counts queries of ``scored_counts`` and the grouped queries beside them (DuckDB's dialect, see ``_sql``).

``counts_query`` (one per score column): over the kept rows, GROUP BY the protected attributes, the label, the score
level (a distinct score or a bin), the calibration bin and the prediction at the threshold, with the row count, sum of
scores and of squared scores, and per identity column the same three sums over its members and over its rows with a
missing value (the calibration sums in a second, cheaper query per score, by calibration bin and sub-bin). With
``buckets`` each row's bootstrap bucket is one more GROUP BY key: the per-bucket tables of the bucket bootstrap from
the same scan, the plain counts their sum over buckets. ``given_query``, ``classes_query``, ``rows_query`` and
``band_query`` group the kept rows by the protected attributes, the label and a column or two.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional, Sequence

import numpy as np

from ._sql import SOURCE, Plan, finite, ident, identity_tags, kept_rows, key_columns, literal, reason_case, row_columns
from ._sql_weights import total, weight_sums


def counts_query(plan: Plan, score: str, *, threshold: Optional[float], cal_edges: Optional[np.ndarray],
                 bins: Optional[tuple], with_missing: Sequence[bool] = (), by_level: bool = True,
                 buckets: Optional[str] = None, n_buckets: Optional[int] = None) -> str:
    """Sufficient statistics of one score column (see the module docstring).

    Parameters
    ----------
    plan : Plan
    score : str
    threshold : float
        Predicted positive when ``score >= threshold``.
    cal_edges : ndarray of shape (n_bins + 1,) or None
        Calibration bin edges; the bin is ``searchsorted(edges[1:-1], score, side="right")`` as in
        memory. None: no calibration bin and no sums of scores (scores outside [0, 1]).
    bins : (low, step, n_bins) or None
        Uniform score bins of ``_metrics.auc_counts.score_bin``; None keeps each distinct score as its level.
    with_missing : sequence of bool, one per identity column
        Whether the column has missing values among the kept rows (only then are they counted).
    by_level : bool, default=True
        False groups by the calibration bin only (level and prediction 0, `threshold` unused): the
        calibration sums need no more, and a GROUP BY of a few hundred groups is several times
        cheaper than one over every score level. With `cal_edges`, each bin is also split in its
        sub-bins (``__fc_sub``, :func:`sub_bin`) and the squared errors ``(score - label) ** 2`` are
        summed (``__fc_sq``): a few more groups, from which ``ScoredCounts.with_atoms`` sums the
        calibration atoms of a mapping without identity columns, with no second scan.
    buckets : {"ordered", "indexed", "hashed"} or None
        Also group by each row's bootstrap bucket ``__fc_b`` (``_sql.kept_rows``), the last key: the per-bucket
        tables of the bucket bootstrap from this one scan, the counts without buckets their sum over buckets.
    n_buckets : int or None
        The buckets K with `buckets` (None: ``_buckets.BUCKETS``).

    Notes
    -----
    Memberships are computed once per row as 0/1 integers in the first CTE, and every aggregate is a
    plain ``SUM`` of products: several times cheaper in DuckDB than ``FILTER`` or ``CASE`` inside
    the aggregate. With a weight column (``plan.weight``) each sum is weighted in the same query:
    ``__fc_n`` = SUM(w), ``__fc_sp`` = SUM(w p), ``__fc_spp`` = SUM(w p²), ``__fc_sq`` = SUM(w (p - y)²),
    and ``__fc_ss`` = SUM(w²), per identity column too (``__fc_mss{j}``, ...; ``_sql_weights.weight_sums``).
    """
    keys = [ident(c) for c in plan.protected]
    ctes = kept_rows(plan, row_columns(plan, score, with_missing), buckets, n_buckets)
    if not by_level:
        level, last = "0", "__fc_kept"
    else:
        level, last = score_level(ctes, bins)
    cal = "0" if cal_edges is None else count_at_or_below("__fc_p", cal_edges[1:-1])
    sub = []
    if cal_edges is not None and not by_level:   # the bin computed once per row, then its sub-bin from it
        from .._counts.binning import SUB_BINS

        ctes.append(f"__fc_bins AS (SELECT *, {cal} AS __fc_cal FROM {last})")
        cal, last, sub = "__fc_cal", "__fc_bins", [f"{sub_bin(cal_edges, SUB_BINS)} AS __fc_sub"]
    sums = weight_sums(plan, {"n": "", "sp": " * __fc_p", "spp": " * __fc_p * __fc_p"} if cal_edges is not None
                       else {"n": ""})
    select = keys + ["__fc_y", f"{level} AS __fc_level", f"{cal} AS __fc_cal",
                     (f"CAST(__fc_p >= {literal(float(threshold))} AS INT)" if by_level else "0") + " AS __fc_pred",
                     *sub, *(["__fc_b"] if buckets is not None else [])] + [
                         f"{total(factor)} AS __fc_{q}" for q, factor in sums.items()]
    if sub:
        w = " * __fc_wt" if plan.weighted else ""
        select.append(f"SUM((__fc_p - __fc_y) * (__fc_p - __fc_y){w}) AS __fc_sq")
    for j, tag in identity_tags(plan, with_missing):
        select += [f"SUM(__fc_{tag}{j}{factor}) AS __fc_{tag}{q}{j}" for q, factor in sums.items()]
    # the protected attributes, label, level, calibration bin, prediction, sub-bin and bucket
    n_keys = len(keys) + 4 + len(sub) + (buckets is not None)
    group = ", ".join(str(i) for i in range(1, n_keys + 1))
    return f"WITH {', '.join(ctes)} SELECT {', '.join(select)} FROM {last} GROUP BY {group}"


def score_level(ctes: list, bins: Optional[tuple]) -> tuple[str, str]:
    """The score level of the kept rows' scores ``__fc_p``: the score itself (exact levels), or its uniform bin
    (``_metrics.auc_counts.score_bin``: a floor, then one step down or up where rounding put it off).

    Parameters
    ----------
    ctes : list of str
        The CTEs so far, the last ``__fc_kept``; the CTEs the bin needs are appended.
    bins : (low, step, n_bins) or None

    Returns
    -------
    (str, str)
        The level expression and the CTE it reads.
    """
    if bins is None:
        return "__fc_p", "__fc_kept"
    low, step, n_bins = (literal(float(bins[0])), literal(float(bins[1])), int(bins[2]))
    guess = f"LEAST(GREATEST(CAST(FLOOR((__fc_p - {low}) / {step}) AS BIGINT), 0), {n_bins - 1})"
    ctes.append(f"__fc_g0 AS (SELECT *, {guess} AS __fc_g0 FROM __fc_kept)")
    ctes.append("__fc_g1 AS (SELECT *, __fc_g0 - CASE WHEN __fc_g0 > 0 AND "
                f"__fc_p < {low} + __fc_g0 * {step} THEN 1 ELSE 0 END AS __fc_g1 FROM __fc_g0)")
    level = (f"__fc_g1 + CASE WHEN __fc_g1 < {n_bins - 1} AND __fc_p >= {low} + (__fc_g1 + 1) * {step} "
             "THEN 1 ELSE 0 END")
    return level, "__fc_g1"


def count_at_or_below(expr: str, starts: Sequence[float]) -> str:
    """``#{i : starts[i] <= expr}`` for increasing `starts`, as a binary tree of CASE expressions (depth
    log2(len(starts)) + 1: a few comparisons per row, where a sum of comparisons would take one per start)."""
    def tree(lo: int, hi: int) -> str:
        if lo == hi:
            return str(lo)
        mid = (lo + hi) // 2
        return f"CASE WHEN {expr} >= {literal(float(starts[mid]))} THEN {tree(mid + 1, hi)} ELSE {tree(lo, mid)} END"
    return tree(0, len(starts))


def sub_bin(cal_edges: np.ndarray, sub_bins: int) -> str:
    """The calibration sub-bin of ``__fc_p`` in its bin ``__fc_cal`` (``_counts.binning.sub_bin_index``): how many of the
    bin's inner part edges (``_counts.binning.sub_bin_edges``, written as exact literals) the score reaches, so every
    engine puts a score on a part's edge in the same part as numpy does (0 in a bin of no width)."""
    from .._counts.binning import sub_bin_edges

    inner = sub_bin_edges(np.asarray(cal_edges, dtype=np.float64))
    if inner.shape[1] != sub_bins - 1:
        raise ValueError(f"sub_bins must be {inner.shape[1] + 1}, the library's SUB_BINS.")
    whens = []
    for b, row in enumerate(inner):
        parts = [f"CAST(__fc_p >= {literal(float(e))} AS INT)" for e in row if np.isfinite(e)]
        whens.append(f"WHEN {b} THEN {' + '.join(parts) if parts else '0'}")
    return f"CASE __fc_cal {' '.join(whens)} ELSE 0 END"


def given_query(plan: Plan, with_missing: Sequence[bool] = ()) -> str:
    """Rows per (protected values, label, given prediction) of the kept rows: the confusion counts of the
    predicted label column (``__fc_pred`` is 1 where it holds the positive value)."""
    positive = ("0" if plan.predicted_positive is None else
                f"CAST({ident(plan.predicted)} = {literal(plan.predicted_positive)} AS INT)")
    return _grouped(plan, [f"{positive} AS __fc_pred"], f"{reason_case(plan)} = 0", with_missing)


def classes_query(plan: Plan, with_missing: Sequence[bool] = ()) -> str:
    """Rows per (protected values, label, true class, predicted class) of the kept rows: the class-wise counts
    of a multi-class label against the predicted label column (``__fc_t``, ``__fc_q``: the values as stored)."""
    return _grouped(plan, [f"{ident(plan.label)} AS __fc_t", f"{ident(plan.predicted)} AS __fc_q"],
                    f"{reason_case(plan)} = 0", with_missing)


def rows_query(plan: Plan, with_missing: Sequence[bool] = ()) -> str:
    """Rows (counted, weights or not) per (protected values, label) of the kept rows, per identity column too."""
    return _grouped(replace(plan, weight=None), [], f"{reason_case(plan)} = 0", with_missing)


def band_query(plan: Plan, score: str, *, low: float, high: Optional[float], with_missing: Sequence[bool] = ()) -> str:
    """Rows per (protected values, label) whose score is in [low, high) (no upper bound when `high` is None).

    With the AUC counts at the bin edge above a threshold t, these rows (t <= score < edge, all inside
    one bin) are what moves from predicted negative to predicted positive when the threshold goes
    down from the edge to t: a threshold between edges costs one filtered scan, not a full count.
    """
    p = f"CAST({ident(score)} AS DOUBLE)"
    band = f"{p} >= {literal(float(low))}" + ("" if high is None else f" AND {p} < {literal(float(high))}")
    return _grouped(plan, [], f"{reason_case(plan)} = 0 AND {band}", with_missing)


def _grouped(plan: Plan, extra: list, where: str, with_missing: Sequence[bool]) -> str:
    """Rows per (protected values, label, `extra` columns) where `where` holds, with the identity columns'
    members (and missing rows) per group: one scan, no per-row output."""
    t = literal(float(plan.indicator_threshold))
    keys = key_columns(plan)
    w = f"CAST({ident(plan.weight)} AS DOUBLE)" if plan.weighted else ""
    sums = {"n": ""} if not plan.weighted else {"n": f" * {w}", "ss": f" * {w} * {w}"}
    select = keys + [f"CAST({ident(plan.label)} = {literal(plan.positive)} AS INT) AS __fc_y", *extra] + [
        f"{total(factor)} AS __fc_{q}" for q, factor in sums.items()]
    for j, c in enumerate(plan.indicators):
        for q, factor in sums.items():
            select.append(f"SUM(CAST({finite(ident(c))} AND CAST({ident(c)} AS DOUBLE) >= {t} AS INT){factor}) "
                          f"AS __fc_m{q}{j}")
            if j < len(with_missing) and with_missing[j]:
                select.append(f"SUM(CAST(NOT {finite(ident(c))} AS INT){factor}) AS __fc_x{q}{j}")
    group = ", ".join(str(i) for i in range(1, len(keys) + 2 + len(extra)))
    return f"SELECT {', '.join(select)} FROM {SOURCE} WHERE {where} GROUP BY {group}"
