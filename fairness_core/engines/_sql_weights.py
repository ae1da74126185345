"""The weight column in the queries of ``_sql``: its sums, its exclusion reasons and its checks' SQL.

A leaf module (``_sql`` imports it), so the plan's weighted sums are written in one place: each count of a
GROUP BY becomes SUM(w), with SUM(w * w) beside it.
"""

from __future__ import annotations


def weight_sums(plan, factors: dict) -> dict:
    """Per quantity, the factor of a row in its sum: a quantity q with factor f is ``SUM(1 f)`` over a group.

    Without a weight column the factors as given; with one, each times the row's weight w (``__fc_wt``), so
    a count becomes SUM(w) and a sum of p SUM(w p), and the sum of squared weights ``ss`` = SUM(w²) is added
    (what Kish's effective sizes (Σw)² / Σw² and the weighted intervals need).

    Parameters
    ----------
    plan : _sql.Plan
    factors : dict of str -> str
        Quantity name -> SQL appended to the summand (``""`` for a count, ``" * __fc_p"`` for a sum of scores).

    Returns
    -------
    dict of str -> str
        The same layout, weighted (``ss`` last) when the plan has a weight column.
    """
    if not plan.weighted:
        return dict(factors)
    return {**{q: " * __fc_wt" + f for q, f in factors.items()}, "ss": " * __fc_wt * __fc_wt"}


def total(factor: str) -> str:
    """The aggregate over a group of the summand 1 `factor` (see :func:`weight_sums`): ``COUNT(*)`` for no factor."""
    return f"SUM({factor[3:]})" if factor else "COUNT(*)"


def weight_reasons(plan) -> tuple[int, int]:
    """The reason codes of ``_sql.reason_case`` for a missing weight and a weight of 0."""
    missing = len(plan.scores) + 2 + (plan.predicted is not None)
    return missing, missing + 1


def infinite(expr: str) -> str:
    """SQL that is TRUE exactly when the DOUBLE `expr` is +inf or -inf (NULL for NULL; NaN is neither). The
    infinity is an overflow, ``1e308 * 10``: SQLite reads ``CAST('inf' AS REAL)`` as 0."""
    inf = "(CAST(1e308 AS DOUBLE) * 10)"
    return f"({expr} = {inf} OR {expr} = -{inf})"


def mapped_columns(plan) -> list:
    """Every column the plan reads (label, scores, protected attributes, identity columns, predicted label,
    weight), each once: what identifies a row to the hashed buckets (``_buckets``)."""
    columns = [plan.label, *plan.scores, *plan.protected, *plan.indicators, plan.predicted, plan.weight]
    return list(dict.fromkeys(c for c in columns if c is not None))
