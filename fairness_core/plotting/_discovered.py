"""The subgroups a search found worst treated: each one's difference from the rest, with its interval."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._common import (ERROR_COLOR, HOVER, _count, _error_bars, _estimate, _flags, _floats, _hover, _interval, _num,
                      _title, plot_text)
from ._margins import fit_margins

FOUND_COLOR = "#D55E00"    # the interval excludes parity after the correction (Okabe-Ito vermillion)
OTHER_COLOR = "#7F7F7F"    # it does not
FOUND_LEGEND = "Interval excludes parity (after Benjamini-Hochberg)"
OTHER_LEGEND = "Interval includes parity"
SMALL_LEGEND = "Too few held-out rows to judge (no interval)"


def discovery_chart(table: pd.DataFrame, *, title: str | None = None, level: float | None = None,
                    value_label: str = "rate", top: int = 10):
    """The top subgroups of a subgroup discovery: each one's difference from the rest with its interval.

    One row per subgroup, rank 1 at the top: a marker at ``difference`` = value - rest_value, horizontal error
    bars from ``ci_low`` to ``ci_high`` (none without a holdout), a dashed line at 0 (parity), vermillion where
    ``excludes_parity`` (the interval excludes 0 after Benjamini-Hochberg), grey elsewhere, hollow grey where
    ``small`` (fewer held-out rows than the minimum size: no interval, no verdict).

    Parameters
    ----------
    table : DataFrame
        ``SubgroupDiscovery.table``: columns ``rank, subgroup, size, value, rest_value, difference, ci_low,
        ci_high, excludes_parity`` and, where present, ``small``.
    title : str, optional
        Plain text (escaped).
    level : float in (0, 1), optional
        The intervals' level, for the hover ("95 % CI"); "CI" when None.
    value_label : str, default='rate'
        What ``value`` is, for the hover and the axis (e.g. "selection rate"; plain text, escaped).
    top : int, default=10
        The most subgroups drawn (the table's first rows).

    Returns
    -------
    plotly.graph_objects.Figure
        Hover: the conditions, the value against the rest, the difference with its interval and the held-out size.
    """
    import plotly.graph_objects as go

    table = table.head(top).iloc[::-1]   # rank 1 at the top
    labels = [f"{int(r)}. {plot_text(s)}" for r, s in zip(table["rank"], table["subgroup"])]
    diff = _floats(table["difference"])
    interval = _interval(table.rename(columns={"ci_low": "difference_ci_low", "ci_high": "difference_ci_high"}),
                         "difference")
    if interval is not None and not np.isfinite(interval[0]).any():
        interval = None
    ci_name = "CI" if level is None else f"{level * 100:.4g} % CI"
    small = _flags(table["small"]) if "small" in table else np.zeros(len(table), dtype=bool)
    found = _flags(table["excludes_parity"]) & ~small
    what = plot_text(value_label)
    fig = go.Figure()
    for mask, color, name in ((found, FOUND_COLOR, FOUND_LEGEND), (~found & ~small, OTHER_COLOR, OTHER_LEGEND),
                              (small, OTHER_COLOR, SMALL_LEGEND)):
        if not mask.any():
            continue
        rows = np.flatnonzero(mask)
        part = None if interval is None else (interval[0][rows], interval[1][rows])
        hover = [_hover(f"<b>{labels[i]}</b>",
                        f"{what} {_num(table['value'].iloc[i], '.4f')}, rest {_num(table['rest_value'].iloc[i], '.4f')}",
                        f"difference {_estimate(diff, interval, i, '.4f', ci_name)}",
                        f"held-out rows {_count(table['size'].iloc[i])}") for i in rows]
        trace = dict(mode="markers", x=diff[rows], y=[labels[i] for i in rows], name=name,
                     marker=dict(color=color, size=10, symbol="circle-open" if name == SMALL_LEGEND else "circle"),
                     hovertext=hover, hovertemplate=HOVER)
        error = _error_bars(diff[rows], part, ERROR_COLOR)
        if error is not None:
            trace["error_x"] = error
        fig.add_trace(go.Scatter(**trace))
    fig.add_vline(0.0, line_dash="dash", line_color="#444444", annotation_text="parity",
                  annotation_position="top")
    fig.update_layout(title=_title(title), height=max(300, 30 * len(table) + 160), legend_orientation="h",
                      legend_y=-0.25, xaxis_title=f"Difference from the rest ({what})",
                      yaxis=dict(categoryorder="array", categoryarray=labels), template="plotly_white")
    return fit_margins(fig)
