"""Fairness over time computed where the data lies: every period's confusion counts from one GROUP BY of the engine
(``_sql_periods``), then the in-memory review of each period (``_review.over_time_counts``)."""

from __future__ import annotations

import dataclasses
from typing import Optional, Sequence, Union

import numpy as np
import pandas as pd

from .._counts.confusion import ConfusionCounts
from .._data.periods import NO_TIME, PERIODS, TIME_TYPE_MESSAGE
from .._review.config import ReviewConfig, threshold_for_range
from .._review.over_time import NO_TIME_MESSAGE, OverTime, _chosen_models
from .._review.over_time_counts import PeriodCounts, over_time_from_counts
from .._stats.bootstrap import Atoms
from . import _sql, _sql_periods
from ._keys import _Keys, _pattern_of

CALENDAR_MESSAGE = ("Fairness over time with an engine cuts calendar periods: the period must be one of {names}. "
                    "Got {got!r} instead. Tip: for edges or integer times, review the rows in memory "
                    "(fairness_core.over_time).")
WEIGHTED_MESSAGE = ("Fairness over time with an engine is unweighted: each period's weighted bootstrap keeps its rows. "
                    "Tip: review the rows in memory (fairness_core.over_time), or map no weight column.")
OFFSET_MESSAGE = ("The time column {column!r} holds text with UTC offsets (e.g. {example!r}): an engine reads it "
                  "without them. Tip: store the times as timestamps with a time zone, or review the rows in memory.")


def counts_over_time(counts, config: ReviewConfig, *, period: str = "month",
                     models: Union[str, Sequence[str], None] = None, verdicts_only: bool = False,
                     labels: bool = True, time_zone: Optional[str] = None) -> OverTime:
    """Assess fairness per calendar period of the mapping's time column, counted by the engine of `counts`.

    One query where the data lies: the kept rows grouped by (period, protected values, identity columns' membership
    words, label, each model's prediction), a row's period the first day of its day, week (Monday to Sunday: weeks
    end on Sunday), month or quarter by SQL date truncation of its time on its zone's wall clock
    (``_sql_periods.period_key``). Each period's atoms (rows per membership pattern and cell
    ``2 * label + prediction``) are those ``over_time`` counts with one ``bincount`` in memory, the patterns numbered
    as ``Subgroups.patterns`` numbers them over every kept row; each period's review then goes through the builders
    of :func:`~fairness_core.over_time` (:func:`~fairness_core._review.over_time_counts.over_time_from_counts`), so
    the verdicts, values and intervals (seed 0) equal :func:`~fairness_core.over_time` on the same rows.

    Parameters
    ----------
    counts : ScoredCounts
        From ``scored_counts(source, config.mapping, ...)`` (with or without atoms: the period query is its own).
    config : ReviewConfig
        Its mapping (that of `counts`, the minimum size aside) names the ``time`` column; no slice.
    period : {'month', 'day', 'week', 'quarter'}, default='month'
    models : str or sequence of str, optional
        The score and predicted label columns to assess (default: every score and the predicted label column).
    verdicts_only : bool, default=False
        As :func:`~fairness_core.over_time`.
    labels : bool, default=True
        False: leave out the rule about the labels.
    time_zone : str, optional
        The zone whose calendar cuts the periods of times with a zone (an IANA name). Default: the zone the engine
        reports for the column (polars and Spark keep a column's own zone; DuckDB keeps instants only and reports
        its session's ``TimeZone``, so give the data's own zone here to cut its calendar).

    Returns
    -------
    OverTime

    Raises
    ------
    ValueError
        Without a time column, with a slice, for a mapping that is not the counts', weighted counts
        (``WEIGHTED_MESSAGE``), a period that is not a calendar one (``CALENDAR_MESSAGE``), times that are not dates,
        datetimes or ISO 8601 text (text with UTC offsets: ``OFFSET_MESSAGE``), or a model that is not mapped.
    """
    column = config.mapping.time
    if column is None:
        raise ValueError(NO_TIME_MESSAGE)
    if not isinstance(period, str) or period not in PERIODS:
        raise ValueError(CALENDAR_MESSAGE.format(names=list(PERIODS), got=period))
    if config.slice.conditions:
        raise ValueError("A slice needs the rows: filter the data where it lives (e.g. a view) instead.")
    if dataclasses.replace(config.mapping, min_size=counts.mapping.min_size) != counts.mapping:
        raise ValueError("The configuration's column mapping is not the one the counts were computed for.")
    if counts.weighted:
        raise ValueError(WEIGHTED_MESSAGE)
    q = counts._atom_queries
    if q is None:
        raise ValueError("counts_over_time: these counts have no engine to query again.")
    chosen = _chosen_models(config, models)
    kind, zone = _time_kind(q.run, column, time_zone)
    m, plan = config.mapping, q.plan
    thresholds, predictions, kinds = {}, {}, {}
    for score in m.scores:
        if score in chosen:
            thresholds[score] = float(dict(config.thresholds).get(score, threshold_for_range(*counts.score_ranges[score])))
            predictions[score], kinds[score] = _sql_periods.score_prediction(score, thresholds[score]), "score"
    if m.predicted_label is not None and m.predicted_label in chosen:
        predictions[m.predicted_label] = _sql_periods.given_prediction(plan)
        kinds[m.predicted_label] = "predictions"
    key = _sql_periods.period_key(column, period, kind, zone)
    frame = q.run(_sql_periods.period_query(plan, key, list(predictions.values()), q.with_missing))
    per_period = period_tables(frame, counts.mapping, q.binned, q.with_missing, period, len(predictions),
                               m.min_size, zone)
    found = PeriodCounts(period=period, labels=per_period["labels"], starts=per_period["starts"], time_zone=zone,
                         reasons=per_period["reasons"],
                         models={name: per_period["models"][i] for i, name in enumerate(predictions)},
                         kinds=kinds, label_counts=per_period["label_counts"], thresholds=thresholds,
                         exclusions=counts.exclusions)
    return over_time_from_counts(found, config, verdicts_only=verdicts_only, labels=labels)


def period_tables(frame: pd.DataFrame, mapping, binned: dict, with_missing: Sequence[bool], period: str,
                  n_models: int, min_size: int, zone: Optional[str] = None) -> dict:
    """Each period's ConfusionCounts (with atoms) from the rows of ``_sql_periods.period_query``.

    A row's pattern is numbered over every row of the result (every kept row's pattern, as ``Subgroups.patterns``
    numbers those of the rows in memory), its period is the position of its period among every period from the first
    to the last (``pd.period_range``); per model the cells ``2 * label + prediction`` are one ``bincount`` over
    (period, pattern, cell), and a period's atoms the patterns with rows in it.

    Parameters
    ----------
    frame : DataFrame
        The query's rows (protected keys, ``__fc_w{i}``, ``__fc_y``, ``__fc_period``, ``__fc_c{i}``, ``__fc_n``).
    mapping : ColumnMapping
    binned : dict
        The binned protected columns' edges (``_Keys``).
    with_missing : sequence of bool
    period : {'day', 'week', 'month', 'quarter'}
    n_models : int
        The prediction columns ``__fc_c{i}``.
    min_size : int
    zone : str or None
        The zone of the periods' starts.

    Returns
    -------
    dict
        ``labels`` and ``starts`` of the periods, ``reasons`` (kept rows without a period), ``models`` (per
        prediction column, each period's ConfusionCounts or None) and ``label_counts`` (the labels against
        themselves per period).
    """
    keys = _Keys(frame, mapping, binned)
    pattern, (member, background) = _pattern_of(keys, keys.key, frame, with_missing)
    n_patterns = len(member)
    starts = pd.Series(pd.to_datetime(frame["__fc_period"]))
    timed = starts.notna().to_numpy()
    rows = frame["__fc_n"].to_numpy(dtype=np.float64)
    if not timed.any():
        every = pd.PeriodIndex([], freq=PERIODS[period])
        code = np.zeros(len(frame), dtype=np.int64)
    else:
        ordinals = starts.dt.to_period(PERIODS[period]).array.asi8
        first, last = ordinals[timed].min(), ordinals[timed].max()
        every = pd.PeriodIndex.from_ordinals(np.arange(first, last + 1), freq=PERIODS[period])
        code = np.where(timed, ordinals - first, len(every)).astype(np.int64)   # no time: one more slot, dropped
    n = len(every)
    y = frame["__fc_y"].to_numpy(dtype=np.int64)

    def per_period(cell: np.ndarray) -> list:
        index = (code * n_patterns + pattern) * 4 + cell
        tables = np.bincount(index, weights=rows, minlength=(n + 1) * n_patterns * 4).reshape(n + 1, n_patterns, 4)
        out = []
        for table in tables[:n]:   # a loop over periods on count tables, never over rows
            keep = table.sum(axis=1) > 0
            out.append(None if not keep.any() else ConfusionCounts.of_atoms(
                list(keys.names), Atoms(table[keep], member[keep], background[keep]), min_size,
                disjoint=keys.disjoint))
        return out

    start_times = every.start_time if zone is None else every.start_time.tz_localize(zone)
    return {"labels": [str(p) for p in every], "starts": list(start_times),
            "reasons": {NO_TIME: int(rows[~timed].sum())},
            "models": [per_period(2 * y + frame[f"__fc_c{i}"].to_numpy(dtype=np.int64)) for i in range(n_models)],
            "label_counts": per_period(3 * y)}


def _time_kind(run, column: str, time_zone: Optional[str]) -> tuple[str, Optional[str]]:
    """(kind of the times for ``_sql_periods.period_key``, the zone of the periods) from a few of the column's
    values as the engine returns them."""
    sample = run(f"SELECT {_sql.ident(column)} AS t FROM {_sql.SOURCE} WHERE {_sql.ident(column)} IS NOT NULL "
                 "LIMIT 1000")["t"]
    if isinstance(sample.dtype, pd.DatetimeTZDtype):
        return "zoned", str(time_zone or sample.dtype.tz)
    if pd.api.types.is_datetime64_dtype(sample) or sample.empty:
        return "naive", None   # naive times (or dates): their own wall clock, whatever `time_zone`
    if pd.api.types.is_numeric_dtype(sample) or pd.api.types.is_bool_dtype(sample):
        raise ValueError(CALENDAR_MESSAGE.format(names=list(PERIODS), got="integer times"))
    values = sample.dropna()
    if all(isinstance(v, (pd.Timestamp, np.datetime64)) or type(v).__name__ in ("date", "datetime") for v in values):
        return "naive", None
    try:
        parsed = pd.to_datetime(values.astype(str), format="ISO8601")
    except (TypeError, ValueError):
        try:
            pd.to_datetime(values.astype(str), format="ISO8601", utc=True)
        except (TypeError, ValueError):
            raise ValueError(TIME_TYPE_MESSAGE.format(column=column, example=values.iloc[0])) from None
        parsed = None
    if parsed is None or parsed.dt.tz is not None:
        raise ValueError(OFFSET_MESSAGE.format(column=column, example=values.iloc[0]))
    return "text", None

