"""A rule's estimate per period with its interval and verdict, on the time axis every rule's chart shares."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._common import HOVER, _count, _error_bars, _estimate, _floats, _hover, _title, add_rule_line, plot_text
from ._margins import fit_margins
from ._scorecard import STATUS_STYLE


def over_time_chart(series: pd.DataFrame, periods, *, bound: float | None = None, bound_label: str | None = None,
                    title: str | None = None, level: float | None = None, value_label: str = "estimate"):
    """One rule's estimate per period, with its interval, coloured by the period's verdict, and the rule's bound.

    The x axis lists every period in time order (`periods`), so charts of several rules drawn with the same
    `periods` share one time axis; a period without a value (no rows, or not assessable) is a gap, never a 0.

    Parameters
    ----------
    series : DataFrame
        One rule's rows of ``OverTime.verdicts`` (``OverTime.series``): ``period, value, ci_low, ci_high, status,
        rows``; optionally ``note``.
    periods : sequence of str
        Every period's label in time order (``OverTime.periods["period"]``): the shared axis.
    bound : float, optional
        The rule's bound, drawn as a dashed line with :func:`add_rule_line`.
    bound_label : str, optional
        Plain text beside the line (escaped).
    title : str, optional
        Plain text (escaped).
    level : float in (0, 1), optional
        The intervals' level, for the hover.
    value_label : str, default='estimate'
        The y axis's title (plain text, escaped).

    Returns
    -------
    plotly.graph_objects.Figure
        A line through the estimates (broken at gaps), a marker per period coloured by verdict (Okabe-Ito, as the
        scorecard's) with vertical error bars; hover: the period, the estimate with its interval, the verdict and
        the rows.
    """
    import plotly.graph_objects as go

    labels = [plot_text(p) for p in periods]
    by_period = series.set_index(series["period"].astype(str))
    rows = by_period.reindex([str(p) for p in periods])
    value = _floats(rows["value"])
    interval = (_floats(rows["ci_low"]), _floats(rows["ci_high"]))
    if not np.isfinite(interval[0]).any():
        interval = None
    status = rows["status"].fillna("not_assessable").tolist()
    ci_name = "CI" if level is None else f"{level * 100:.4g} % CI"
    fig = go.Figure(go.Scatter(x=labels, y=value, mode="lines", line=dict(color="#9E9E9E", width=1.5),
                               showlegend=False, hoverinfo="skip", connectgaps=False))
    for key, (color, word) in STATUS_STYLE.items():
        keep = np.array([s == key for s in status]) & np.isfinite(value)
        if not keep.any():
            continue
        where = np.flatnonzero(keep)
        part = None if interval is None else (interval[0][where], interval[1][where])
        hover = [_hover(f"<b>{labels[i]}</b>", f"{plot_text(value_label)} {_estimate(value, interval, i, '.4f', ci_name)}",
                        f"verdict: {word.lower()}", f"rows {_count(rows['rows'].iloc[i])}") for i in where]
        trace = dict(x=[labels[i] for i in where], y=value[where], mode="markers", name=word,
                     marker=dict(color=color, size=9), hovertext=hover, hovertemplate=HOVER)
        error = _error_bars(value[where], part)
        if error is not None:
            trace["error_y"] = error
        fig.add_trace(go.Scatter(**trace))
    if bound is not None and np.isfinite(bound):
        add_rule_line(fig, float(bound), bound_label)
    fig.update_layout(title=_title(title), height=340, template="plotly_white", legend_orientation="h",
                      legend_y=-0.3, yaxis_title=plot_text(value_label),
                      xaxis=dict(type="category", categoryorder="array", categoryarray=labels, range=[-0.5,
                                                                                                    len(labels) - 0.5]))
    return fit_margins(fig)
