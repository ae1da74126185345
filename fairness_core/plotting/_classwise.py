"""Class-wise scores per class and subgroup."""

from __future__ import annotations

import pandas as pd

from ._margins import fit_margins
from ._common import (HOVER, LEVEL_MESSAGE, SMALL_PATTERN, _ci_name, _count, _error_bars, _estimate, _floats, _hover,
                      _interval, _label, _level, _ordered, _small, _small_legend, _title, plot_text, subgroup_colors)


def classwise_chart(table: pd.DataFrame, metric: str = "fscore", *, title: str | None = None,
                    level: float | None = None, order=None):
    """A per-class metric (recall, precision or F-score) of every subgroup, as grouped bars.

    Parameters
    ----------
    table : DataFrame
        Per (subgroup, class) table from ``ClassCounts.table()`` or
        ``UnweightedAverageBiasResult.table``: columns ``subgroup, class, size, small, n_true,
        n_predicted, tp`` and the metric column; optionally ``small_reason`` and
        ``<metric>_ci_low`` / ``<metric>_ci_high``.
    metric : {'recall', 'precision', 'fscore'}, default='fscore'
    title : str, optional
        Plain text (escaped).
    level : float in (0, 1), optional
        Confidence level for the hover text; default ``table.attrs["ci"]``, "CI" when unknown.
    order : sequence of str, optional
        Subgroup names in the order of their bars (and legend entries) within each class, e.g.
        lowest mean score first; subgroups not listed follow in table order. Default: table
        order. Colours stay assigned by table order.

    Returns
    -------
    plotly.graph_objects.Figure
        Classes on the x axis, one bar per subgroup (subgroup colours as on the other charts;
        small subgroups hatched and named "(small)", with a legend entry); vertical error bars
        when the metric has interval columns; undefined values are left out; hover shows the
        metric with its interval, the counts and why a subgroup is small.

    Raises
    ------
    ValueError
        If `level` is not None or a number in (0, 1) (``LEVEL_MESSAGE``).
    """
    import plotly.graph_objects as go

    ci_name = _ci_name(_level(level, [table], "classwise_chart"))
    colors = subgroup_colors(list(dict.fromkeys(table["subgroup"])))
    names = list(dict.fromkeys(_ordered(table, order)["subgroup"]))
    label = plot_text({"recall": "Recall", "precision": "Precision", "fscore": "F-score"}.get(metric, metric))
    fig = go.Figure()
    any_small = False
    for name in names:
        rows = table[table["subgroup"] == name]
        flags, reasons = _small(rows)
        small = bool(flags[0]) if len(rows) else False
        any_small = any_small or small
        trace_name = _label(name, small)
        classes = [plot_text(c) for c in rows["class"]]
        values, interval = _floats(rows[metric]), _interval(rows, metric)
        n_true, n_pred, tp = (_floats(rows[c]) for c in ("n_true", "n_predicted", "tp"))
        hover = [_hover(f"<b>{trace_name}</b>", f"class {classes[i]}",
                        f"{label} {_estimate(values, interval, i, '.4f', ci_name)}",
                        f"true {_count(n_true[i])}, predicted {_count(n_pred[i])}, correct {_count(tp[i])}",
                        reasons[i]) for i in range(len(rows))]
        marker = {"color": colors[name], **({"pattern": {"shape": SMALL_PATTERN}} if small else {})}
        fig.add_trace(go.Bar(
            x=classes, y=values, name=trace_name, marker=marker, error_y=_error_bars(values, interval),
            hovertext=hover, hovertemplate=HOVER,
        ))
    if any_small:
        _small_legend(fig, "bar")
    fig.update_layout(
        barmode="group", title=_title(title), xaxis_title="Class", yaxis_title=label,
        yaxis_range=[0, 1.02], xaxis_type="category", legend_orientation="h", legend_y=-0.2, height=460,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return fit_margins(fig)
