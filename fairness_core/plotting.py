"""Plotly figure builders: tidy result tables -> ``plotly.graph_objects.Figure``.

Pure functions of the tables that :mod:`fairness_core` returns, shared by the app and notebooks.
Plotly is imported inside each function, so ``import fairness_core`` never loads it.
Colours come from Plotly's colour-blind-safe "Safe" palette, assigned by subgroup position, so
a subgroup keeps its colour on every chart of the same data.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

AUC_COLUMNS = {"subgroup_auc": "Subgroup AUC", "bpsn_auc": "BPSN AUC", "bnsp_auc": "BNSP AUC"}
RATE_LABELS = {
    "selection_rate": "Selection rate", "true_positive_rate": "True positive rate",
    "false_positive_rate": "False positive rate", "false_negative_rate": "False negative rate",
    "false_omission_rate": "False omission rate", "false_discovery_rate": "False discovery rate",
    "error_rate": "Error rate",
}
SMALL_SUFFIX = " (small)"


def subgroup_colors(names: Sequence[str]) -> dict:
    """A colour for each subgroup name, by position, from Plotly's colour-blind-safe palette.

    Parameters
    ----------
    names : sequence of str
        Subgroup names in their fixed order (``Subgroups.names``).

    Returns
    -------
    dict of str -> str
        Name to hex colour; the palette repeats after 11 subgroups.
    """
    from plotly.colors import qualitative

    palette = qualitative.Safe
    return {name: palette[i % len(palette)] for i, name in enumerate(names)}


def _text(value) -> str:
    """Data text for a chart label: '<' escaped so Plotly never reads it as markup."""
    return str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _label(name: str, small: bool) -> str:
    return _text(name) + (SMALL_SUFFIX if small else "")


def auc_chart(table: pd.DataFrame, *, title: str | None = None):
    """Subgroup, BPSN and BNSP AUC per subgroup, with the 0.5 (chance) line.

    Parameters
    ----------
    table : DataFrame
        From :func:`fairness_core.bias_auc_table` (columns ``subgroup, size, n_positive,
        n_negative, small, subgroup_auc, bpsn_auc, bnsp_auc``).
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        One marker trace per AUC kind; subgroups on the y axis in table order (small ones
        labelled "(small)"); hover shows the AUC, size and counts.
    """
    import plotly.graph_objects as go

    labels = [_label(n, s) for n, s in zip(table["subgroup"], table["small"])]
    fig = go.Figure()
    symbols = {"subgroup_auc": "circle", "bpsn_auc": "triangle-left", "bnsp_auc": "triangle-right"}
    colors = {"subgroup_auc": "#0072B2", "bpsn_auc": "#D55E00", "bnsp_auc": "#009E73"}
    custom = np.column_stack([table["size"], table["n_positive"], table["n_negative"]])
    for col, name in AUC_COLUMNS.items():
        fig.add_trace(go.Scatter(
            x=table[col], y=labels, mode="markers", name=name, customdata=custom,
            marker={"symbol": symbols[col], "size": 11, "color": colors[col]},
            hovertemplate=(f"<b>%{{y}}</b><br>{name}: %{{x:.4f}}<br>size %{{customdata[0]:,}}, "
                           "positives %{customdata[1]:,}, negatives %{customdata[2]:,}<extra></extra>"),
        ))
    fig.add_vline(x=0.5, line_dash="dash", line_color="grey", annotation_text="Chance (0.5)",
                  annotation_position="top")
    fig.update_layout(
        title=None if title is None else _text(title), xaxis_title="AUC", yaxis_title=None, xaxis_range=[0, 1.02],
        yaxis={"autorange": "reversed", "type": "category"}, legend_orientation="h", legend_y=-0.15,
        height=max(320, 28 * len(labels) + 160), margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return fig


def rate_chart(rates: pd.DataFrame, metrics: Sequence[str], references: dict | None = None,
               *, reference_label: str = "Reference", title: str | None = None, labels: dict | None = None):
    """Per-subgroup rates as bars, one panel per rate, with the reference each is compared with.

    Parameters
    ----------
    rates : DataFrame
        From :func:`fairness_core.group_rates` (``subgroup, size, small`` and rate columns).
    metrics : sequence of str
        Rate columns to draw, e.g. ``["false_positive_rate", "false_negative_rate"]``.
    references : dict of str -> DataFrame, optional
        For each metric, its comparison table (``subgroup, reference_value``) from
        ``ConfusionCounts.disparity(..., reduction=None)``; drawn as black diamonds. Omit for
        pairwise comparisons, which have no single reference per subgroup.
    reference_label : str
        Legend text for the reference markers, e.g. "Rest of population".
    title : str, optional
    labels : dict of str -> str, optional
        Panel titles for columns that are not rates (e.g. ``{"base_rate": "Base rate"}``).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    names = {**RATE_LABELS, **(labels or {})}
    metrics = list(metrics)
    colors = subgroup_colors(list(rates["subgroup"]))
    labels = [_label(n, s) for n, s in zip(rates["subgroup"], rates["small"])]
    fig = make_subplots(rows=1, cols=max(len(metrics), 1), shared_yaxes=True,
                        subplot_titles=[names.get(m, m) for m in metrics], horizontal_spacing=0.04)
    for c, metric in enumerate(metrics, start=1):
        fig.add_trace(go.Bar(
            x=rates[metric], y=labels, orientation="h", name=names.get(metric, metric), showlegend=False,
            marker_color=[colors[n] for n in rates["subgroup"]],
            customdata=np.column_stack([rates["size"], rates["note"]]),
            hovertemplate=("<b>%{y}</b><br>" + names.get(metric, metric)
                           + ": %{x:.4f}<br>size %{customdata[0]:,}<br>%{customdata[1]}<extra></extra>"),
        ), row=1, col=c)
        ref = (references or {}).get(metric)
        if ref is not None and len(ref):
            ref = ref.set_index("subgroup").reindex(rates["subgroup"])
            fig.add_trace(go.Scatter(
                x=ref["reference_value"], y=labels, mode="markers", name=reference_label,
                showlegend=(c == 1), legendgroup="reference",
                marker={"symbol": "diamond", "size": 10, "color": "black"},
                hovertemplate=f"<b>%{{y}}</b><br>{reference_label}: %{{x:.4f}}<extra></extra>",
            ), row=1, col=c)
        fig.update_xaxes(range=[0, 1.02], row=1, col=c)
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_layout(title=None if title is None else _text(title), height=max(320, 28 * len(labels) + 160), legend_orientation="h",
                      legend_y=-0.15, margin={"l": 10, "r": 10, "t": 60, "b": 10})
    return fig


def reliability_chart(table: pd.DataFrame, *, subgroups: Sequence[str] | None = None,
                      colors: dict | None = None, title: str | None = None):
    """Reliability diagrams of several subgroups in one figure, with the "Perfectly calibrated" diagonal.

    Parameters
    ----------
    table : DataFrame
        From :func:`fairness_core.reliability_diagram` (``subgroup, bin, bin_lower, bin_upper,
        count, mean_predicted, fraction_positive``).
    subgroups : sequence of str, optional
        Which subgroups to draw (default: all, in table order).
    colors : dict of str -> str, optional
        Subgroup colours (default: :func:`subgroup_colors` over the table's subgroups).
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        x = "Mean predicted probability", y = "Fraction of positives"; empty bins are skipped;
        hover shows the bin range and its row count.
    """
    import plotly.graph_objects as go

    all_names = list(dict.fromkeys(table["subgroup"]))
    colors = colors or subgroup_colors(all_names)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="Perfectly calibrated",
                             line={"dash": "dash", "color": "grey"}, hoverinfo="skip"))
    for name in (subgroups if subgroups is not None else all_names):
        rows = table[(table["subgroup"] == name) & (table["count"] > 0)]
        fig.add_trace(go.Scatter(
            x=rows["mean_predicted"], y=rows["fraction_positive"], mode="lines+markers", name=_text(name),
            line={"color": colors.get(name)}, marker={"size": 8},
            customdata=np.column_stack([rows["bin_lower"], rows["bin_upper"], rows["count"]]),
            hovertemplate=("<b>" + _text(name) + "</b><br>bin [%{customdata[0]:.3f}, "
                           "%{customdata[1]:.3f}]<br>mean predicted %{x:.3f}<br>fraction of positives "
                           "%{y:.3f}<br>count %{customdata[2]:,}<extra></extra>"),
        ))
    fig.update_layout(
        title=None if title is None else _text(title), xaxis_title="Mean predicted probability", yaxis_title="Fraction of positives",
        xaxis_range=[0, 1], yaxis_range=[0, 1], height=520, legend_orientation="v",
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return fig


def ratio_score_chart(tables: dict, *, threshold: float = 0.8, title: str | None = None):
    """Ratio scores (p% score, equal opportunity score) of each subgroup against the rest, with the 80 % line.

    Parameters
    ----------
    tables : dict of str -> DataFrame
        Panel title -> per-subgroup table from ``ConfusionCounts.ratio_scores(...).table``
        (columns ``subgroup, size, small, subgroup_value, reference_value, score, note``).
    threshold : float, default=0.8
        Drawn as a dashed line: the "80 % rule" (four-fifths rule) for the p% score.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        One panel per table; bars in [0, 1] (1 = parity); hover shows both rates and the size.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    names = list(tables)
    first = tables[names[0]] if names else pd.DataFrame(columns=["subgroup", "small"])
    colors = subgroup_colors(list(first["subgroup"]))
    fig = make_subplots(rows=1, cols=max(len(names), 1), shared_yaxes=True, horizontal_spacing=0.04,
                        subplot_titles=[_text(n) for n in names])
    for c, name in enumerate(names, start=1):
        table = tables[name]
        labels = [_label(n, s) for n, s in zip(table["subgroup"], table["small"])]
        fig.add_trace(go.Bar(
            x=table["score"], y=labels, orientation="h", showlegend=False, name=_text(name),
            marker_color=[colors.get(n, "#888888") for n in table["subgroup"]],
            customdata=np.column_stack([table["subgroup_value"], table["reference_value"], table["size"],
                                        [_text(n) for n in table["note"]]]),
            hovertemplate=("<b>%{y}</b><br>score %{x:.4f}<br>subgroup rate %{customdata[0]:.4f}, rest "
                           "%{customdata[1]:.4f}<br>size %{customdata[2]:,}<br>%{customdata[3]}<extra></extra>"),
        ), row=1, col=c)
        note = {"annotation_text": f"{threshold:.0%} rule", "annotation_position": "top"} if c == 1 else {}
        fig.add_vline(x=threshold, line_dash="dash", line_color="#D55E00", row=1, col=c, **note)
        fig.update_xaxes(range=[0, 1.02], row=1, col=c)
    n_rows = len(first)
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_layout(title=None if title is None else _text(title), height=max(300, 28 * n_rows + 150),
                      margin={"l": 10, "r": 10, "t": 60, "b": 10})
    return fig


def classwise_chart(table: pd.DataFrame, metric: str = "fscore", *, title: str | None = None):
    """A per-class metric (recall, precision or F-score) of every subgroup, as grouped bars.

    Parameters
    ----------
    table : DataFrame
        Per (subgroup, class) table from ``ClassCounts.table()`` or
        ``UnweightedAverageBiasResult.table`` (columns ``subgroup, class, size, small`` and the
        metric column).
    metric : {'recall', 'precision', 'fscore'}, default='fscore'
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Classes on the x axis, one bar per subgroup (subgroup colours as on the other charts);
        undefined values are left out; hover shows the counts.
    """
    import plotly.graph_objects as go

    names = list(dict.fromkeys(table["subgroup"]))
    colors = subgroup_colors(names)
    label = {"recall": "Recall", "precision": "Precision", "fscore": "F-score"}.get(metric, metric)
    fig = go.Figure()
    for name in names:
        rows = table[table["subgroup"] == name]
        small = bool(rows["small"].iloc[0]) if len(rows) else False
        fig.add_trace(go.Bar(
            x=[_text(c) for c in rows["class"]], y=rows[metric], name=_label(name, small),
            marker_color=colors[name],
            customdata=np.column_stack([rows["n_true"], rows["n_predicted"], rows["tp"]]),
            hovertemplate=(f"<b>{_label(name, small)}</b><br>class %{{x}}<br>{label} %{{y:.4f}}<br>true "
                           "%{customdata[0]:,}, predicted %{customdata[1]:,}, correct %{customdata[2]:,}"
                           "<extra></extra>"),
        ))
    fig.update_layout(
        barmode="group", title=None if title is None else _text(title), xaxis_title="Class", yaxis_title=label,
        yaxis_range=[0, 1.02], xaxis_type="category", legend_orientation="h", legend_y=-0.2, height=460,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return fig
