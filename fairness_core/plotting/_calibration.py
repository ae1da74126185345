"""Reliability diagram per subgroup."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ._margins import fit_margins
from ._common import (ERROR_COLOR, HOVER, LEVEL_MESSAGE, SMALL_OPACITY, _ci_name, _count, _error_bars, _estimate,
                      _floats, _hover, _interval, _label, _legend_trace, _level, _num, _small, _small_legend_trace,
                      _title, subgroup_colors)

# A bin's marker is drawn at full weight from this many rows; below, its opacity is its share of them (floor
# MIN_BIN_OPACITY), so a bin of 1-3 rows, whose fraction of positives is 0 or 1 by chance, reads as faint.
FULL_WEIGHT_ROWS = 30
MIN_BIN_OPACITY = 0.15
# on two lines: one line was as wide as the plot's legend at 1,024 px
FAINT_BIN_LEGEND = f"Faint point: a bin of fewer than {FULL_WEIGHT_ROWS} rows<br>(fainter = fewer; count on hover)"


def bin_opacity(count) -> np.ndarray:
    """Marker opacity of reliability bins from their row counts: count / FULL_WEIGHT_ROWS in [MIN_BIN_OPACITY, 1].

    Parameters
    ----------
    count : array-like of int
        Rows per bin.

    Returns
    -------
    ndarray of float

    Examples
    --------
    >>> bin_opacity([1, 15, 30, 500]).tolist()
    [0.15, 0.5, 1.0, 1.0]
    """
    return np.clip(np.asarray(count, dtype=np.float64) / FULL_WEIGHT_ROWS, MIN_BIN_OPACITY, 1.0)


def reliability_chart(table: pd.DataFrame, *, subgroups: Sequence[str] | None = None,
                      colors: dict | None = None, title: str | None = None, small: pd.DataFrame | None = None,
                      level: float | None = None):
    """Reliability diagrams of several subgroups in one figure, with the "Perfectly calibrated" diagonal.

    Parameters
    ----------
    table : DataFrame
        From :func:`fairness_core.reliability_diagram`: columns ``subgroup, bin, bin_lower,
        bin_upper, count, mean_predicted, fraction_positive``; optionally
        ``fraction_positive_ci_low`` / ``fraction_positive_ci_high`` (the Wilson interval of each
        bin's fraction of positives) and ``small`` / ``small_reason`` repeated on each bin row of
        a subgroup.
    subgroups : sequence of str, optional
        Which subgroups to draw (default: all, in table order).
    colors : dict of str -> str, optional
        Subgroup colours (default: :func:`subgroup_colors` over the table's subgroups).
    title : str, optional
        Plain text (escaped).
    small : DataFrame, optional
        A per-subgroup table with ``subgroup, small`` and optionally ``small_reason`` (e.g. the
        ``errors`` table of a calibration disparity), used when `table` has no ``small`` column.
    level : float in (0, 1), optional
        Confidence level for the hover text; default ``table.attrs["ci"]``, "CI" when unknown.

    Returns
    -------
    plotly.graph_objects.Figure
        x = "Mean predicted probability", y = "Fraction of positives"; empty bins are skipped;
        vertical error bars when the interval columns are present; each bin's marker faded by its
        row count (:func:`bin_opacity`: full weight from ``FULL_WEIGHT_ROWS`` rows), with a legend
        entry (``FAINT_BIN_LEGEND``) when a bin drawn has fewer; small subgroups dotted, faded
        and named "(small)", with a legend entry; hover shows the bin range, its row count, the
        fraction of positives with its interval and why a subgroup is small.

    Raises
    ------
    ValueError
        If `level` is not None or a number in (0, 1) (``LEVEL_MESSAGE``).
    """
    import plotly.graph_objects as go

    ci_name = _ci_name(_level(level, [table], "reliability_chart"))
    all_names = list(dict.fromkeys(table["subgroup"]))
    colors = colors or subgroup_colors(all_names)
    per_subgroup = table if "small" in table.columns else small
    small_of = {}
    if per_subgroup is not None and "small" in per_subgroup.columns:
        flags, reasons = _small(per_subgroup)
        for name, flag, reason in zip(per_subgroup["subgroup"], flags, reasons):
            if flag and name not in small_of:
                small_of[name] = reason
    # One figure from plain dictionaries, validated once (a trace object per add_trace was most of its time).
    data = [dict(type="scatter", x=[0, 1], y=[0, 1], mode="lines", name="Perfectly calibrated",
                 line={"dash": "dash", "color": "grey"}, hoverinfo="skip")]
    faint = False
    for name in (subgroups if subgroups is not None else all_names):
        rows = table[(table["subgroup"] == name) & (table["count"] > 0)]
        is_small = name in small_of
        label = _label(name, is_small)
        y, interval = _floats(rows["fraction_positive"]), _interval(rows, "fraction_positive")
        lo, hi, mean, count = (_floats(rows[c]) for c in ("bin_lower", "bin_upper", "mean_predicted", "count"))
        hover = [_hover(f"<b>{label}</b>", f"bin [{_num(lo[i], '.3f')}, {_num(hi[i], '.3f')}]",
                        f"mean predicted {_num(mean[i], '.3f')}",
                        f"fraction of positives {_estimate(y, interval, i, '.3f', ci_name)}",
                        f"count {_count(count[i])}", small_of.get(name, "")) for i in range(len(rows))]
        trace = dict(type="scatter", x=mean, y=y, mode="lines+markers", name=label,
                     line={"color": colors.get(name), **({"dash": "dot"} if is_small else {})},
                     marker={"size": 8, "opacity": bin_opacity(count).tolist(),
                             **({"symbol": "circle-open"} if is_small else {})},
                     hovertext=hover, hovertemplate=HOVER)
        error = _error_bars(y, interval, colors.get(name) or ERROR_COLOR)
        if error is not None:
            trace["error_y"] = error
        if is_small:
            trace["opacity"] = SMALL_OPACITY + 0.2
        data.append(trace)
        faint = faint or bool((count < FULL_WEIGHT_ROWS).any())
    if faint:
        data.append(_legend_trace(FAINT_BIN_LEGEND, "faint", mode="markers",
                                  marker={"size": 8, "color": "#888888", "opacity": 0.3}))
    if small_of and any(n in small_of for n in (subgroups if subgroups is not None else all_names)):
        data.append(_small_legend_trace("line"))
    return fit_margins(go.Figure(data=data, layout=dict(
        title=_title(title), xaxis={"title": {"text": "Mean predicted probability"}, "range": [0, 1]},
        yaxis={"title": {"text": "Fraction of positives"}, "range": [0, 1]}, height=520,
        legend={"orientation": "v"}, margin={"l": 10, "r": 10, "t": 50, "b": 10})))
