"""AUC chart: subgroup, BPSN and BNSP AUC per subgroup."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._margins import fit_margins
from ._common import (AUC_COLUMNS, AUC_MIN_SPAN, HOVER, LEVEL_MESSAGE, SMALL_OPACITY, _ci_name, _count, _error_bars,
                      _estimate, _floats, _hover, _interval, _label, _level, _ordered, _small, _small_legend, _title,
                      add_rule_line)

FULL_RANGE = [-0.02, 1.02]


def _auc_range(table: pd.DataFrame, intervals: dict):
    """x range fitted to the AUCs and their intervals, and whether it holds the 0.5 chance line.

    The range spans the finite AUCs, lows and highs, padded by 5 % of their span (at least 0.02),
    at least ``AUC_MIN_SPAN`` wide (widened downwards from the top), within [-0.02, 1.02]. It is
    extended to [0.48, 0.52] when that at most doubles its width; otherwise the line is left out.
    """
    arrays = [_floats(table[c]) for c in AUC_COLUMNS] + [a for iv in intervals.values() if iv is not None for a in iv]
    values = np.concatenate(arrays) if arrays else np.array([])
    values = values[np.isfinite(values)]
    if not len(values):
        return [0.0, 1.02], True
    lo, hi = float(values.min()), float(values.max())
    pad = max(0.02, 0.05 * (hi - lo))
    upper = min(hi + pad, 1.02)
    lower = max(min(lo - pad, upper - AUC_MIN_SPAN), -0.02)
    wider = [min(lower, 0.48), max(upper, 0.52)]
    if wider[1] - wider[0] <= 2 * (upper - lower):
        return wider, True
    return [lower, upper], False


def auc_chart(table: pd.DataFrame, *, title: str | None = None, level: float | None = None,
              full_range: bool = False, order=None):
    """Subgroup, BPSN and BNSP AUC per subgroup, with their intervals and the 0.5 (chance) line.

    Parameters
    ----------
    table : DataFrame
        From :func:`fairness_core.bias_auc_table`: columns ``subgroup, size, n_positive,
        n_negative, small, subgroup_auc, bpsn_auc, bnsp_auc``; optionally ``small_reason`` and
        ``<auc>_ci_low`` / ``<auc>_ci_high`` for each AUC column (e.g. ``subgroup_auc_ci_low``).
    title : str, optional
        Plain text (escaped).
    level : float in (0, 1), optional
        Confidence level of the intervals, for the hover text; default ``table.attrs["ci"]``,
        and "CI" without a percentage when neither is set.
    full_range : bool, default=False
        Whether the x axis spans the whole AUC scale (-0.02 to 1.02, the 0.5 chance line always
        shown) instead of fitting the data. Fitted, points of a good model are spread out rather
        than crowded between 0.85 and 1; the full range compares charts of different models.
    order : sequence of str, optional
        Subgroup names in the order to draw them, top first (e.g. lowest AUC first); subgroups
        not listed follow in table order. Default: table order.

    Returns
    -------
    plotly.graph_objects.Figure
        One marker trace per AUC kind; subgroups on the y axis in `order` (small ones
        labelled "(small)", drawn open and faded, with a legend entry saying so). With interval
        columns, horizontal error bars (``error_x.array`` = high - AUC, ``arrayminus`` = AUC - low)
        and the three kinds side by side (``layout.scattermode='group'``). Hover shows the AUC
        with its interval, the size and counts, and why a subgroup is small. The x range fits the
        AUCs and their intervals (at least 0.2 wide, with a margin of 5 % of their span, at least
        0.02) and reaches down to the 0.5 chance line when that at most doubles its width;
        otherwise the line is left out and a grey note above the plot says "← Chance (0.5) is off
        this axis". With `full_range`, the x range is -0.02 to 1.02 with the chance line.

    Raises
    ------
    ValueError
        If `level` is not None or a number in (0, 1) (``LEVEL_MESSAGE``).
    """
    import plotly.graph_objects as go

    ci_name = _ci_name(_level(level, [table], "auc_chart"))
    table = _ordered(table, order)
    small, reasons = _small(table)
    labels = [_label(n, s) for n, s in zip(table["subgroup"], small)]
    fig = go.Figure()
    symbols = {"subgroup_auc": "circle", "bpsn_auc": "triangle-left", "bnsp_auc": "triangle-right"}
    colors = {"subgroup_auc": "#0072B2", "bpsn_auc": "#D55E00", "bnsp_auc": "#009E73"}
    intervals = {col: _interval(table, col) for col in AUC_COLUMNS}
    grouped = any(iv is not None for iv in intervals.values())
    values = {col: _floats(table[col]) for col in AUC_COLUMNS}
    for col, name in AUC_COLUMNS.items():
        marker = {"symbol": symbols[col], "size": 11, "color": colors[col]}
        if small.any():
            marker.update(symbol=[symbols[col] + "-open" if s else symbols[col] for s in small],
                          opacity=np.where(small, SMALL_OPACITY, 1.0))
        hover = [_hover(f"<b>{labels[i]}</b>", f"{name}: {_estimate(values[col], intervals[col], i, '.4f', ci_name)}",
                        f"size {_count(table['size'].iloc[i])}, positives {_count(table['n_positive'].iloc[i])}, "
                        f"negatives {_count(table['n_negative'].iloc[i])}", reasons[i]) for i in range(len(table))]
        fig.add_trace(go.Scatter(
            x=values[col], y=labels, mode="markers", name=name, marker=marker,
            error_x=_error_bars(values[col], intervals[col], colors[col]),
            orientation="h" if grouped else None, hovertext=hover, hovertemplate=HOVER,
        ))
    if small.any():
        _small_legend(fig, "marker")
    x_range, with_chance = (list(FULL_RANGE), True) if full_range else _auc_range(table, intervals)
    if with_chance:
        add_rule_line(fig, 0.5, "Chance (0.5)", axis="x", color="grey")
    else:
        left = x_range[0] > 0.5
        fig.add_annotation(text=("← " if left else "") + "Chance (0.5) is off this axis" + ("" if left else " →"),
                           xref="paper", yref="paper", x=0 if left else 1, y=1, xanchor="left" if left else "right",
                           yanchor="bottom", showarrow=False, font={"color": "grey"})
    fig.update_layout(
        title=_title(title), xaxis_title="AUC", yaxis_title=None, xaxis_range=x_range,
        yaxis={"autorange": "reversed", "type": "category"}, legend_orientation="h", legend_y=-0.15,
        height=max(320, 28 * len(labels) + 160), margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    if grouped:  # three markers with error bars per subgroup: more room per row
        fig.update_layout(scattermode="group", height=max(320, 42 * len(labels) + 160))
    return fit_margins(fig)
