"""One key metric of several saved reviews, in the order they were created, a line per model."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ._common import HOVER, _floats, _hover, _num, _title, plot_text, subgroup_colors
from ._margins import fit_margins

CHANGE_COLOR = "#E69F00"   # a review whose configuration differs from the one before it (Okabe-Ito orange)


def history_chart(metrics: pd.DataFrame, labels: Sequence[str], *, changed: Sequence[int] = (),
                  title: str | None = None, value_label: str = "value"):
    """One metric of each saved review, a line per model, the reviews in time order on a shared axis.

    Parameters
    ----------
    metrics : DataFrame
        One metric's rows of ``ReviewHistory.metrics``: ``review`` (1 first), ``model``, ``value``.
    labels : sequence of str
        Every review's label on the x axis, in time order (e.g. "1: 2026-11-02T09:00:00+00:00"); review i is
        ``labels[i - 1]``.
    changed : sequence of int, default=()
        Reviews whose configuration differs from the one before it: a dotted orange line just before each, labelled
        "settings differ".
    title : str, optional
        Plain text (escaped).
    value_label : str, default='value'
        The y axis's title (plain text, escaped).

    Returns
    -------
    plotly.graph_objects.Figure
        A line with markers per model (gaps where a review has no value); hover: the review, the model, the value.
    """
    import plotly.graph_objects as go

    shown = [plot_text(label) for label in labels]
    models = list(dict.fromkeys(metrics["model"]))
    colors = subgroup_colors(models)
    fig = go.Figure()
    for model in models:
        part = metrics[metrics["model"] == model].set_index("review")["value"]
        y = _floats([part.get(i + 1, np.nan) for i in range(len(labels))])
        hover = [_hover(f"<b>{shown[i]}</b>", plot_text(model), f"{plot_text(value_label)} {_num(y[i], '.4g')}")
                 for i in range(len(labels))]
        fig.add_trace(go.Scatter(x=shown, y=y, mode="lines+markers", name=plot_text(model), connectgaps=False,
                                 line=dict(color=colors[model]), marker=dict(size=8), hovertext=hover,
                                 hovertemplate=HOVER))
    for review in changed:
        fig.add_vline(x=int(review) - 1.5, line_dash="dot", line_color=CHANGE_COLOR, annotation_text="settings differ",
                      annotation_position="top")
    fig.update_layout(title=_title(title), height=340, template="plotly_white", legend_orientation="h",
                      legend_y=-0.3, yaxis_title=plot_text(value_label),
                      xaxis=dict(type="category", categoryorder="array", categoryarray=shown,
                                 range=[-0.5, len(shown) - 0.5]))
    return fit_margins(fig)
