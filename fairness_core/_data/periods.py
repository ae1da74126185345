"""Periods of a time column: every row's period (day, week, month, quarter, or between given edges), vectorised.

The times are read as the data gives them: datetimes keep their time zone (a period follows the zone's local
calendar), dates and ISO 8601 text are parsed, integers (a week number, a release) are periods of their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import pandas as pd

PERIODS = {"day": "D", "week": "W", "month": "M", "quarter": "Q"}
PERIOD_MESSAGE = ("The period must be one of {names}, a list of at least two increasing edges, or None for integer "
                  "times (each value a period). Got {got!r} instead.")
TIME_TYPE_MESSAGE = ("The time column {column!r} must hold dates, datetimes, ISO 8601 text or integers. "
                     "Got values such as {example!r}.")
INTEGER_PERIOD_MESSAGE = ("The time column {column!r} holds integers: each value is a period (period=None) or "
                          "give a list of edges; {got!r} needs dates or datetimes.")
NO_TIME = "no time"
OUTSIDE = "time outside the edges"


@dataclass(frozen=True)
class Periods:
    """Every row's period: ``codes`` (position in ``labels``; -1 when the row has none, ``reasons`` says why),
    the periods in time order with their ``starts``, and the time zone the periods were cut in (None: naive)."""

    codes: np.ndarray
    labels: list
    starts: list
    time_zone: Optional[str]
    reasons: dict


def assign_periods(values: pd.Series, period: Any = "month", column: str = "time") -> Periods:
    """Every row's period, without a loop over rows.

    Calendar periods: ``Series.dt.to_period`` of the times in their own zone's local wall clock, every period
    from the first to the last (a period without rows is kept: it is said to have none, never drawn as 0).
    Edges: ``[e_i, e_{i+1})`` by one ``searchsorted`` (``pd.cut(right=False)``). Integers: each distinct value.

    Parameters
    ----------
    values : Series
        The time column of the rows (datetimes, dates, ISO 8601 text or integers).
    period : {'day', 'week', 'month', 'quarter'}, sequence of edges, or None
        Weeks end on Sunday (pandas' ``'W'``). Edges are times (or integers) in increasing order; rows
        outside them have no period. None: integer times, each value a period.
    column : str
        The column's name, for messages.

    Returns
    -------
    Periods

    Raises
    ------
    ValueError
        For times that are neither datetimes nor integers, or a period that does not fit them.
    """
    values = values.reset_index(drop=True)
    integers = pd.api.types.is_integer_dtype(values) or (
        pd.api.types.is_float_dtype(values) and bool(np.all(np.mod(values.dropna(), 1) == 0)))
    if period is not None and not isinstance(period, str):
        return _between(values if integers else _datetimes(values, column), list(period), integers)
    if integers:
        if period is not None:
            raise ValueError(INTEGER_PERIOD_MESSAGE.format(column=column, got=period))
        codes, uniques = pd.factorize(values, sort=True, use_na_sentinel=True)
        ints = [int(v) for v in uniques]
        return Periods(codes.astype(np.intp), [str(v) for v in ints], ints, None, _missing(codes))
    if period not in PERIODS:
        raise ValueError(PERIOD_MESSAGE.format(names=list(PERIODS), got=period))
    times = _datetimes(values, column)
    zone = times.dt.tz
    local = times.dt.tz_localize(None) if zone is not None else times   # the zone's wall clock, zone kept aside
    periods = local.dt.to_period(PERIODS[period])
    present = periods.dropna()
    if present.empty:
        return Periods(np.full(len(values), -1, np.intp), [], [], _zone(zone), _missing(np.full(len(values), -1)))
    every = pd.period_range(present.min(), present.max(), freq=PERIODS[period])
    ordinals = periods.array.asi8
    codes = np.where(periods.isna().to_numpy(), -1, ordinals - every[0].ordinal).astype(np.intp)
    starts = every.start_time if zone is None else every.start_time.tz_localize(zone)
    return Periods(codes, [str(p) for p in every], list(starts), _zone(zone), _missing(codes))


def _between(values: pd.Series, edges: list, integers: bool) -> Periods:
    """Periods ``[e_i, e_{i+1})`` of given edges (times in the values' zone, or numbers)."""
    if len(edges) < 2:
        raise ValueError(PERIOD_MESSAGE.format(names=list(PERIODS), got=edges))
    if integers:
        edge_values = np.asarray(edges, dtype=np.float64)
        keys, missing = values.to_numpy(dtype=np.float64, na_value=np.nan), values.isna().to_numpy()
        shown = [f"{e:g}" for e in edge_values]
        starts = [e.item() for e in edge_values[:-1]]
    else:
        zone = values.dt.tz
        edge_times = pd.DatetimeIndex(pd.to_datetime(list(edges)))
        if zone is not None:
            edge_times = edge_times.tz_localize(zone) if edge_times.tz is None else edge_times.tz_convert(zone)
        elif edge_times.tz is not None:
            raise ValueError("The edges have a time zone but the times have none: give naive edges.")
        edge_values = edge_times.as_unit("ns").asi8
        missing = values.isna().to_numpy()
        keys = values.dt.as_unit("ns").array.asi8
        shown = [str(e) for e in edge_times]
        starts = list(edge_times[:-1])
    if not np.all(np.diff(edge_values) > 0):
        raise ValueError(PERIOD_MESSAGE.format(names=list(PERIODS), got=edges))
    codes = np.searchsorted(edge_values, keys, side="right") - 1
    codes = np.where(missing | (codes < 0) | (codes >= len(edge_values) - 1), -1, codes).astype(np.intp)
    reasons = {NO_TIME: int(missing.sum()), OUTSIDE: int(((codes < 0) & ~missing).sum())}
    labels = [f"[{a}, {b})" for a, b in zip(shown[:-1], shown[1:])]
    return Periods(codes, labels, starts, None if integers else _zone(values.dt.tz), reasons)


def _datetimes(values: pd.Series, column: str) -> pd.Series:
    """The times as datetimes, in their own zone (text with several UTC offsets: in UTC, said by the zone)."""
    if isinstance(values.dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_dtype(values):
        return values
    try:
        return pd.to_datetime(values, format="ISO8601")
    except (TypeError, ValueError):
        try:   # text with several UTC offsets: one instant each, in UTC
            return pd.to_datetime(values, format="ISO8601", utc=True)
        except (TypeError, ValueError):
            example = values.dropna().iloc[0] if values.notna().any() else None
            raise ValueError(TIME_TYPE_MESSAGE.format(column=column, example=example)) from None


def _zone(zone) -> Optional[str]:
    return None if zone is None else str(zone)


def _missing(codes: np.ndarray) -> dict:
    return {NO_TIME: int((np.asarray(codes) < 0).sum())}
