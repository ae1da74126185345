"""A weight column where the rows live: its checks, with ``ScoredData``'s messages.

``ScoredData.from_frame`` refuses a weight column that is not numeric (``WEIGHT_TYPE``) or holds infinite or
negative weights (``WEIGHT_VALUES``, with the count and the first such row), and excludes rows with a missing
weight or a weight of 0 (``MISSING_WEIGHT``, ``ZERO_WEIGHT``: ``_sql.reason_case``). Here the type is read off
the preview's column, the counts of bad weights off the profile query (no extra scan), and the first bad row's
position, on the error path only, from one more scan that numbers the rows (``ROW_NUMBER() OVER ()``) where the
engine keeps the source's order; elsewhere (Spark) the message gives the count without a row.
"""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np
import pandas as pd

from . import _sql
from .._counts.weights import WEIGHT_TYPE, WEIGHT_VALUES, check_weight_scale

# WEIGHT_VALUES without the row, for an engine that numbers no rows (Spark): the same meaning, the count alone.
WEIGHT_VALUES_UNPLACED = WEIGHT_VALUES.replace(" (first at row {first})", "")


def check_weight_type(preview: pd.DataFrame, col: str) -> None:
    """Refuse a weight column that is not numeric, as ``ScoredData.from_frame`` does.

    Parameters
    ----------
    preview : DataFrame
        The first rows of the source, the weight column among them (the engine's own types, as pandas reads
        them: a text column is object or str, a boolean one bool).
    col : str
        The weight column.

    Raises
    ------
    ValueError
        ``WEIGHT_TYPE`` for a boolean, text or complex column.
    """
    column = preview[col]
    if (pd.api.types.is_bool_dtype(column) or not pd.api.types.is_numeric_dtype(column)
            or pd.api.types.is_complex_dtype(column)):
        raise ValueError(WEIGHT_TYPE.format(col=col, dtype=column.dtype))


def check_weight_values(profile: pd.DataFrame, col: str, first_row: Optional[Callable[[str], int]]) -> None:
    """Refuse infinite, then negative weights, then weights out of a float's range for their squares, as
    ``ScoredData.from_frame`` does (over every row).

    Parameters
    ----------
    profile : DataFrame
        The rows of ``_sql.profile_query`` (one per exclusion reason), with ``weight_infinite`` and
        ``weight_negative``: the rows of each reason with such a weight; ``weight_low``, ``weight_high``: the
        smallest and largest positive weight.
    col : str
        The weight column.
    first_row : callable or None
        ``first_row(condition)``: the 0-based position in the source of the first row where the SQL
        `condition` holds (:func:`first_row_query`); None where the engine keeps no order of the rows.

    Raises
    ------
    ValueError
        ``WEIGHT_VALUES`` with the count of such weights and the first row (``WEIGHT_VALUES_UNPLACED``,
        the count alone, without `first_row`); ``WEIGHT_SCALE`` for weights whose squares overflow or underflow.
    """
    w = f"CAST({_sql.ident(col)} AS DOUBLE)"
    for name, what, condition in (("weight_infinite", "infinite weights", _sql.infinite(w)),
                                  ("weight_negative", "negative weights", f"{w} < 0")):
        n = int(pd.to_numeric(profile[name]).fillna(0).sum())
        if n:
            if first_row is None:
                raise ValueError(WEIGHT_VALUES_UNPLACED.format(col=col, n=n, what=what))
            raise ValueError(WEIGHT_VALUES.format(col=col, n=n, what=what, first=first_row(condition)))
    extremes = pd.to_numeric(pd.concat([profile["weight_low"], profile["weight_high"]]), errors="coerce").dropna()
    check_weight_scale(extremes.to_numpy(dtype=np.float64), f"The weight column {col!r}")   # infinite weights were refused above


def first_row_query(condition: str, indexed: bool = False) -> str:
    """The SQL of the 0-based position of the first row of the source where `condition` holds.

    Parameters
    ----------
    condition : str
        SQL over the source's columns.
    indexed : bool, default=False
        Read the positions from the row index of ``_sql.SOURCE_ROWS`` (polars) instead of numbering the rows
        in the source's order (``ROW_NUMBER() OVER ()``: DuckDB numbers a file's rows in order).

    Returns
    -------
    str
        SQL giving one row with the column ``first`` (NULL when no row matches).
    """
    if indexed:
        return f"SELECT MIN({_sql.ROW_INDEX}) AS first FROM {_sql.SOURCE_ROWS} WHERE {condition}"
    return (f"SELECT MIN(__fc_r) AS first FROM (SELECT ROW_NUMBER() OVER () - 1 AS __fc_r, "
            f"CASE WHEN {condition} THEN 1 ELSE 0 END AS __fc_bad FROM {_sql.SOURCE}) AS __fc_rows "
            "WHERE __fc_bad = 1")
