"""The period query of fairness over time: the kept rows counted per (period, membership pattern, label, predictions).

Written once in DuckDB's dialect, as the other queries of ``_sql`` (transpiled by SQLGlot for Spark and an ibis
table's backend, run as written by polars' SQL context). A row's period is the first day of its calendar period, by
SQL date truncation of its time in its own zone's wall clock, as ``_data.periods.assign_periods`` cuts them with
pandas' ``to_period``: a day (``CAST(t AS DATE)``), a week from Monday to Sunday (``DATE_TRUNC('week', t)``: weeks end
on Sunday, pandas' ``'W'``), a month or a quarter (``DATE_TRUNC``). Times with a zone are first read on that zone's
wall clock (``t AT TIME ZONE 'zone'``), ISO 8601 text is cast to a timestamp; a row without a time has no period
(NULL). One GROUP BY of the protected keys, the identity columns' membership words (``_sql.membership_words``), the
label, the period and each model's prediction returns a few rows per (period, pattern): every period's atoms.
"""

from __future__ import annotations

from typing import Optional, Sequence

from ._sql import Plan, ident, kept_rows, literal, membership_words, row_columns

PERIOD_UNITS = ("day", "week", "month", "quarter")
TIME_KINDS = ("date", "naive", "zoned", "text")


def period_key(column: str, period: str, kind: str, zone: Optional[str] = None) -> str:
    """SQL of a row's period: the first day of its calendar period as a DATE (NULL without a time).

    Parameters
    ----------
    column : str
        The time column.
    period : {'day', 'week', 'month', 'quarter'}
    kind : {'date', 'naive', 'zoned', 'text'}
        How the engine holds the times: dates, timestamps without a zone, timestamps with one, or ISO 8601 text.
    zone : str or None
        With ``kind='zoned'``: the zone whose wall clock cuts the periods (an IANA name such as 'Europe/Paris').

    Returns
    -------
    str
        A SQL expression of DuckDB's dialect over the source's columns.

    Raises
    ------
    ValueError
        For another period or kind, or a zoned kind without a zone.
    """
    if period not in PERIOD_UNITS:
        raise ValueError(f"The period must be one of {list(PERIOD_UNITS)}. Got {period!r} instead.")
    if kind not in TIME_KINDS:
        raise ValueError(f"The kind of times must be one of {list(TIME_KINDS)}. Got {kind!r} instead.")
    time = ident(column)
    if kind == "text":
        time = f"CAST({time} AS TIMESTAMP)"
    elif kind == "zoned":
        if not zone:
            raise ValueError("Times with a time zone need the zone whose calendar cuts the periods.")
        time = f"({time} AT TIME ZONE {literal(str(zone))})"   # the zone's wall clock, without a zone
    if period == "day":
        return f"CAST({time} AS DATE)"
    return f"CAST(DATE_TRUNC({literal(period)}, {time}) AS DATE)"


def period_query(plan: Plan, period: str, predictions: Sequence[str], with_missing: Sequence[bool] = ()) -> str:
    """Rows per (protected values, membership words, label, period, predictions) of the kept rows.

    Parameters
    ----------
    plan : Plan
    period : str
        The SQL of a row's period (:func:`period_key`), returned as ``__fc_period``.
    predictions : sequence of str
        SQL of each model's prediction (0/1) over the source's columns, returned as ``__fc_c{i}``: a score at its
        threshold (:func:`score_prediction`), or the predicted label column's positive value (``__fc_given``).
    with_missing : sequence of bool, one per identity column

    Returns
    -------
    str
        Columns: the protected keys, the words ``__fc_w{i}``, ``__fc_y``, ``__fc_period``, ``__fc_c{i}`` and the
        rows ``__fc_n``; one row per distinct combination (a few per period and pattern).
    """
    keys = [ident(c) for c in plan.protected]
    words, bits = membership_words(plan, with_missing)
    columns = row_columns(plan, None, members=False)
    cells = [f"{p} AS __fc_c{i}" for i, p in enumerate(predictions)]
    ctes = kept_rows(plan, columns + words + [f"{period} AS __fc_period"] + cells)
    by = keys + bits + ["__fc_y", "__fc_period"] + [f"__fc_c{i}" for i in range(len(predictions))]
    group = ", ".join(str(i) for i in range(1, len(by) + 1))
    return f"WITH {', '.join(ctes)} SELECT {', '.join(by)}, COUNT(*) AS __fc_n FROM __fc_kept GROUP BY {group}"


def score_prediction(score: str, threshold: float) -> str:
    """SQL of the prediction of `score` at `threshold`: 1 where ``score >= threshold`` (as a DOUBLE), else 0."""
    return f"CAST(CAST({ident(score)} AS DOUBLE) >= {literal(float(threshold))} AS INT)"


def given_prediction(plan: Plan) -> str:
    """SQL of the predicted label column's prediction: 1 where it holds its positive value (0 without one)."""
    if plan.predicted_positive is None:
        return "0"
    return f"CAST({ident(plan.predicted)} = {literal(plan.predicted_positive)} AS INT)"
