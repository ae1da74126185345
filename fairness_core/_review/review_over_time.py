"""A review completed with its rules per period of the mapping's time column, and the gate of the latest period
(the command line's ``--time``, ``--period`` and ``--gate-period latest``)."""

from __future__ import annotations

import dataclasses
from typing import Optional

import pandas as pd

from .over_time import over_time
from .records import LATEST, Review


def with_over_time(review: Review, frame: pd.DataFrame, *, period: str = "month",
                   gate_period: Optional[str] = None) -> Review:
    """`review` with its rate and label rules per period (``Review.over_time``) and, optionally, a gate that judges
    the latest period only (``Review.gate_period``).

    The periods are those of :func:`over_time` on the same data and configuration as the review (its slice, its
    thresholds of every row, its subgroups), so each period's verdicts are the review's rate and label rules on that
    period's rows. With ``gate_period='latest'`` the exit status follows the rules of the last period (the rate rules
    of each model and, with ``gate_labels``, the rule about the labels); the rules of every row, the AUC and
    calibration rules are then reported, not gating.

    Parameters
    ----------
    review : Review
        From :func:`build_review` on `frame` with the same configuration.
    frame : DataFrame
        The table as loaded (before the slice).
    period : {'day', 'week', 'month', 'quarter'}, default='month'
        Calendar periods of the mapping's ``time`` column, in the times' own zone (weeks end on Sunday).
    gate_period : {'latest'} or None, default=None
        'latest': the gate of the latest period; None: the gate of every row.

    Returns
    -------
    Review

    Raises
    ------
    ValueError
        Without a time column in the review's mapping (or as :func:`over_time`: times that are not dates or
        datetimes, a column not in the data), for a gate period other than 'latest', or with a baseline (whose
        changes are judged on every row, so a gate of one period would leave them out without a word).
    """
    config = review.config
    if config.mapping.time is None:
        raise ValueError("A review over time needs the time column (ColumnMapping(time=...); the command line's "
                         "--time COLUMN).")
    if gate_period is not None and gate_period != LATEST:
        raise ValueError(f"The gate period must be {LATEST!r} (the latest period's rules) or None (every row's). "
                         f"Got {gate_period!r} instead.")
    if gate_period is not None and config.baseline is not None:
        raise ValueError("The gate of the latest period judges that period's rules; the changes from a baseline "
                         "are judged on every row. Tip: gate one or the other (leave out --gate-period or "
                         "--baseline).")
    return dataclasses.replace(review, over_time=over_time(frame, config, period=period), gate_period=gate_period)
