"""Charts of a model review: rates across thresholds, AUCs per subgroup and model, the performance trade-off."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ._margins import DEFAULT_HEIGHT, NARROWEST, fit_margins, text_width
from ._common import AUC_COLUMNS, HOVER, RATE_LABELS, RULE_COLOR, SMALL_OPACITY, _hover, _ordered, _panels, _title, add_rule_line, \
    plot_text, rule_line_parts, subgroup_colors

CURVES_MESSAGE = ("threshold_chart needs the table of fairness_core.threshold_curves (columns metric, subgroup, "
                  "scope, threshold, value); missing: {missing}.")
RATES_MESSAGE = "threshold_chart needs at least one rate to draw (e.g. 'false_positive_rate'); none was given."
MODELS_MESSAGE = "model_auc_heatmap needs at least one model's AUC table (a dict of model name -> table)."


def threshold_chart(curves: pd.DataFrame, metric: str | Sequence[str], *, threshold: float | None = None,
                    band: pd.DataFrame | None = None, band_label: str | None = None, title: str | None = None,
                    order: Sequence[str] | None = None):
    """Rates of every subgroup across the decision thresholds: a line per subgroup and one for all rows, a panel
    per rate side by side.

    Parameters
    ----------
    curves : DataFrame
        From :func:`fairness_core.threshold_curves`: ``metric, subgroup, scope, threshold, value``
        and optionally ``numerator, denominator, small``.
    metric : str or sequence of str
        The rate(s) to draw (values of ``curves["metric"]``), e.g. ``"false_positive_rate"``: one panel each,
        side by side, sharing the rate axis (0 to 1), in this order.
    threshold : float, optional
        The chosen threshold, drawn as a vertical line in every panel.
    band : DataFrame, optional
        From :func:`fairness_core.rule_band`: ``threshold, holds``; the thresholds where the rule
        holds are shaded in every panel.
    band_label : str, optional
        Plain text for the shading's legend entry (escaped), e.g. the rule's label.
    title : str, optional
    order : sequence of str, optional
        Subgroup names in the order of their lines and legend entries (e.g. worst first);
        subgroups not listed follow in table order, all rows last. Default: table order. Colours
        stay assigned by table order.

    Returns
    -------
    plotly.graph_objects.Figure
        Subgroup lines in the subgroups' colours (small subgroups dotted and faded), all rows as a
        thick black line, hover with the rate, its numerator / denominator and the threshold. One legend entry
        per subgroup (its lines in every panel share a legend group: a click hides them all); with several
        rates each panel is titled with its rate.

    Raises
    ------
    ValueError
        If a needed column is missing (``CURVES_MESSAGE``) or no rate is given (``RATES_MESSAGE``).
    """
    import plotly.graph_objects as go

    missing = [c for c in ("metric", "subgroup", "scope", "threshold", "value") if c not in curves]
    if missing:
        raise ValueError(CURVES_MESSAGE.format(missing=missing))
    metrics = [metric] if isinstance(metric, str) else list(metric)
    if not metrics:
        raise ValueError(RATES_MESSAGE)
    labels = [RATE_LABELS.get(m, m.replace("_", " ").capitalize()) for m in metrics]
    several = len(metrics) > 1
    # One figure from plain dictionaries, validated once (a trace per subgroup, a shape per shaded run and
    # add_vline each validated on its own took most of the chart's time: 41 to 4 ms for 9 lines of 201 points).
    # Several rates share one figure: a chart costs the browser more than its lines (the app's explorer with two
    # rates: a threshold change 0.55 to 0.48 s as felt at 10^6 rows).
    layout = _panels([plot_text(label) for label in labels] if several else [], 0.04)
    data, shapes = [], []
    # the panels' titles raised above the chosen threshold's label, which sits on the panel's top edge
    annotations = [{**title, "yshift": 22} for title in layout.pop("annotations")]
    # The table's columns read once, and each (rate, subgroup)'s rows by position: pandas per line took most of
    # the chart's own time (a figure of 19 lines rebuilt on every change of the page's reference).
    counted = {"numerator", "denominator"} <= set(curves)
    x, y = (curves[c].to_numpy(dtype=np.float64) for c in ("threshold", "value"))
    hover_counts = curves[["numerator", "denominator"]].to_numpy(dtype=np.float64) if counted else None
    small_rows = curves["small"].to_numpy(dtype=bool) if "small" in curves else np.zeros(len(curves), dtype=bool)
    overall_rows = (curves["scope"] == "overall").to_numpy()
    lines = curves.groupby(["metric", "subgroup"], sort=False).indices
    for i, (m, label) in enumerate(zip(metrics, labels), start=1):
        axes = {"xaxis": f"x{'' if i == 1 else i}", "yaxis": f"y{'' if i == 1 else i}"}
        rows = curves[curves["metric"] == m]
        names = list(dict.fromkeys(rows.loc[rows["scope"] == "subgroup", "subgroup"]))
        colors = subgroup_colors(names)
        drawn = list(dict.fromkeys(_ordered(rows[rows["scope"] == "subgroup"], order)["subgroup"]))
        drawn += list(dict.fromkeys(rows.loc[rows["scope"] != "subgroup", "subgroup"]))
        if band is not None and len(band):
            legend, rects = _shade(band, band_label, panel=i)
            data += legend if i == 1 else []   # one legend entry for the shading of every panel
            shapes += rects
        for name in drawn:
            at = lines[(m, name)]
            overall, small = bool(overall_rows[at[0]]), bool(small_rows[at].any())
            # The hover from a template over the points' own numbers (per-point hover strings made the figure
            # 0.3 MB); a literal % in data text is written as an entity, so the template never reads it as a variable.
            head, rate = (plot_text(t).replace("%", "&#37;") for t in (name, label))
            template = _hover(f"<b>{head}</b>", f"{rate} %{{y:.4~g}}",
                              "%{customdata[0]} / %{customdata[1]}" if counted else "", "threshold %{x:.4~g}")
            data.append(dict(
                type="scatter", x=x[at], y=y[at], mode="lines",
                name=plot_text(name) + (" (small)" if small else ""), legendgroup=plot_text(name), showlegend=i == 1,
                line=dict(color="black" if overall else colors[name], width=3 if overall else 2,
                          dash="dot" if small else "solid"),
                opacity=SMALL_OPACITY if small else 1.0, hovertemplate=template + "<extra></extra>", **axes,
                **({"customdata": hover_counts[at]} if counted else {})))
        if threshold is not None and np.isfinite(threshold):
            line, note = rule_line_parts(float(threshold), f"chosen threshold {threshold:g}", axis="x",
                                         color="#333333", panel=i)
            shapes.append(line)
            annotations.append(note)
        layout[axes["xaxis"].replace("x", "xaxis", 1)]["title"] = {"text": (
            "Decision threshold" if several else "Decision threshold (predicted positive: score >= threshold)")}
    layout["yaxis"].update(title={"text": "Rate" if several else plot_text(labels[0])}, range=[-0.02, 1.02])
    # The legend under the panels, so that they keep the figure's width (beside them, at 1,024 px, it took most of it).
    return fit_margins(go.Figure(data=data, layout=dict(
        layout, title=_title(title), hovermode="closest", legend=dict(title_text="Subgroup", orientation="h", y=-0.25),
        height=560, margin=dict(t=90 if several else 60), shapes=shapes, annotations=annotations)))


def _shade(band: pd.DataFrame, label: str | None, panel: int = 1) -> tuple[list, list]:
    """The runs of consecutive thresholds where ``band["holds"]``, shaded half-way to the neighbours in panel
    `panel`: (the legend entry's trace, the rectangles), as plain dictionaries; none where the rule never holds."""
    t = band["threshold"].to_numpy(dtype=np.float64)
    holds = band["holds"].to_numpy(dtype=bool)
    if not holds.any():
        return [], []
    mid = np.concatenate([[t[0]], (t[1:] + t[:-1]) / 2, [t[-1]]])
    edges = np.flatnonzero(np.diff(np.concatenate([[0], holds.astype(int), [0]])))
    suffix = "" if panel == 1 else str(panel)
    rects = [dict(type="rect", x0=float(mid[start]), x1=float(mid[stop]), xref=f"x{suffix}", y0=0, y1=1,
                  yref=f"y{suffix} domain",
                  fillcolor="#009E73", opacity=0.12, line=dict(width=0), layer="below")
             for start, stop in zip(edges[::2], edges[1::2])]
    legend = dict(type="scatter", x=[None], y=[None], mode="markers", hoverinfo="skip",
                  marker=dict(size=12, color="#009E73", opacity=0.3, symbol="square"),
                  name=plot_text(label or "Rule holds"))
    return [legend], rects


def model_auc_heatmap(tables: Mapping[str, pd.DataFrame], column: str = "subgroup_auc", *,
                      order: Sequence[str] | None = None, title: str | None = None):
    """One AUC type as a subgroup x model heatmap (the layout of the original bias-AUC analysis).

    Parameters
    ----------
    tables : mapping of str to DataFrame
        Model name -> its :func:`fairness_core.bias_auc_table` (``subgroup`` and the AUC columns,
        optionally ``<column>_ci_low/high``, ``n_positive``, ``n_negative``, ``small``).
    column : {'subgroup_auc', 'bpsn_auc', 'bnsp_auc'}, default='subgroup_auc'
    order : sequence of str, optional
        Subgroups top to bottom; default the first table's order.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Cells coloured from red (low) to blue (high) around 0.5, with the value written in each
        cell; hover with the interval; undefined cells blank.

    Raises
    ------
    ValueError
        For no tables (``MODELS_MESSAGE``) or an unknown column.
    """
    import plotly.graph_objects as go

    if not tables:
        raise ValueError(MODELS_MESSAGE)
    if column not in AUC_COLUMNS:
        raise ValueError(f"The 'column' parameter of model_auc_heatmap must be one of {list(AUC_COLUMNS)}. "
                         f"Got {column!r} instead.")
    models = list(tables)
    names = list(order) if order is not None else list(next(iter(tables.values()))["subgroup"])
    z = np.full((len(names), len(models)), np.nan)
    hover = [["" for _ in models] for _ in names]
    for j, model in enumerate(models):
        t = tables[model].set_index("subgroup")
        for i, name in enumerate(names):
            if name not in t.index:
                continue
            value = float(t.at[name, column])
            z[i, j] = value
            lines = [f"<b>{plot_text(name)}</b>", f"model {plot_text(model)}",
                     f"{AUC_COLUMNS[column]} {value:.4f}" if np.isfinite(value) else f"{AUC_COLUMNS[column]} undefined"]
            if f"{column}_ci_low" in t:
                lines.append(f"CI {t.at[name, column + '_ci_low']:.4f}–{t.at[name, column + '_ci_high']:.4f}")
            if "small" in t and bool(t.at[name, "small"]):
                lines.append("small subgroup")
            hover[i][j] = _hover(*lines)
    text = [[("" if not np.isfinite(v) else f"{v:.3f}") for v in row] for row in z]
    fig = go.Figure(go.Heatmap(z=z, x=[plot_text(m) for m in models], y=[plot_text(n) for n in names], zmid=0.5,
                               colorscale="RdBu", text=text, texttemplate="%{text}", hovertext=hover,
                               hovertemplate="%{hovertext}<extra></extra>", colorbar_title=AUC_COLUMNS[column],
                               xgap=2, ygap=2))
    fig.update_layout(title=_title(title or f"{AUC_COLUMNS[column]} per subgroup and model"),
                      yaxis_autorange="reversed", xaxis_side="top",
                      height=max(300, 60 + 28 * len(names)), margin=dict(t=90))
    return fig


LABEL_POSITIONS = ("top right", "bottom right", "top left", "bottom left", "middle right", "middle left",
                   "top center", "bottom center")
MARKER_SIZE = 14      # the trade-off chart's points (pixels)
LABEL_HEIGHT = 16     # a label's line of 12-px text (pixels)
BAR_HALF = 5          # an error bar's half thickness with its caps (pixels)


def _boxes_overlap(a, b) -> float:
    """The area shared by two boxes ``(left, top, right, bottom)`` in pixels (0 when apart)."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def _label_box(position: str, cx: float, cy: float, width: float) -> tuple:
    """The box ``(left, top, right, bottom)`` in pixels of a label `width` wide at Plotly's text `position` beside a
    marker centred at (`cx`, `cy`) (y downwards)."""
    vertical, horizontal = position.split()
    radius = MARKER_SIZE / 2
    left = {"right": cx + radius, "left": cx - radius - width, "center": cx - width / 2}[horizontal]
    top = {"top": cy - radius - LABEL_HEIGHT, "bottom": cy + radius, "middle": cy - LABEL_HEIGHT / 2}[vertical]
    return left, top, left + width, top + LABEL_HEIGHT


def _label_positions(points: pd.DataFrame, x: str, y: str, x_range, y_range, size: tuple[float, float],
                     bound: float | None = None) -> list:
    """Per point, a text position (``LABEL_POSITIONS``) whose label is clear of every point's marker and error bars,
    of the labels placed before it and of the bound's line, where a side is, and the label's box in pixels.

    The chart is laid out in pixels at `size` (the plot's width and height at the narrowest width the app draws it:
    a label is then widest against the axes' spans, so a side clear there is clear wider too). Each side's label box
    (its text's width, :func:`._margins.text_width`, by ``LABEL_HEIGHT``, beside the marker as Plotly puts it) is
    scored by ten times the area it shares with those obstacles plus its area outside the plot (the caller widens the
    axes to hold it); the first side with the least wins, in the order of ``LABEL_POSITIONS``.

    Returns
    -------
    list of (str, tuple)
        Per point of `points`, its position and its label's box ``(left, top, right, bottom)`` (y downwards; the
        plot spans 0 to `size`).
    """
    width, height = size
    (x0, x1), (y0, y1) = x_range, y_range

    def px(value, low, high, span, flip=False):
        at = (float(value) - low) / ((high - low) or 1.0) * span
        return span - at if flip else at

    def ends(row, col):
        low, high = row.get(f"{col}_ci_low"), row.get(f"{col}_ci_high")
        ok = low is not None and high is not None and np.isfinite(low) and np.isfinite(high)
        return (float(low), float(high)) if ok else None

    rows = [row for _, row in points.iterrows()]
    centres = [(px(r[x], x0, x1, width), px(r[y], y0, y1, height, flip=True)) for r in rows]
    radius = MARKER_SIZE / 2
    obstacles = []
    for r, (cx, cy) in zip(rows, centres):
        obstacles.append((cx - radius, cy - radius, cx + radius, cy + radius))
        if (xs := ends(r, x)) is not None:
            obstacles.append((px(xs[0], x0, x1, width), cy - BAR_HALF, px(xs[1], x0, x1, width), cy + BAR_HALF))
        if (ys := ends(r, y)) is not None:
            obstacles.append((cx - BAR_HALF, px(ys[1], y0, y1, height, flip=True), cx + BAR_HALF,
                              px(ys[0], y0, y1, height, flip=True)))
    if bound is not None and np.isfinite(bound):
        line = px(bound, y0, y1, height, flip=True)
        obstacles.append((0.0, line - 1, width, line + 1))
    out = []
    for r, (cx, cy) in zip(rows, centres):
        w = text_width(plot_text(r["model"]))
        boxes = {position: _label_box(position, cx, cy, w) for position in LABEL_POSITIONS}
        # A label over a bar, a marker or a label counts ten times its part outside the plot (the axes widen for that).
        scores = {position: 10 * sum(_boxes_overlap(box, o) for o in obstacles)
                  + w * LABEL_HEIGHT - _boxes_overlap(box, (0.0, 0.0, width, height))
                  for position, box in boxes.items()}
        best = min(LABEL_POSITIONS, key=lambda position: (round(scores[position], 6), LABEL_POSITIONS.index(position)))
        out.append((best, boxes[best]))
        obstacles.append(boxes[best])
    return out


def tradeoff_chart(points: pd.DataFrame, *, x: str = "performance", y: str = "disparity", x_label: str = "Accuracy",
                   y_label: str = "Worst disparity", title: str | None = None, bound: float | None = None):
    """Performance against disparity, one point per model, with the points' intervals when given.

    Parameters
    ----------
    points : DataFrame
        One row per model: ``model``, the `x` and `y` columns, optionally ``<x>_ci_low/high`` and
        ``<y>_ci_low/high``.
    x, y : str
        Columns to plot (e.g. overall accuracy at each model's threshold, and its worst disparity).
    x_label, y_label, title : str
        Plain text (escaped).
    bound : float, optional
        A policy bound on the disparity, drawn as a horizontal line.

    Returns
    -------
    plotly.graph_objects.Figure
        One marker trace per model, labelled with its name on the side of its point (``textposition``) that is
        clear of every point's marker and error bars, of the other labels and of the bound's line, laid out at the
        narrowest width the app draws the chart (:func:`_label_positions`); axes that hold every point and its
        whole interval.
    """
    import plotly.graph_objects as go

    colors = subgroup_colors(list(points["model"]))
    fig = go.Figure()
    for _, row in points.iterrows():
        data = row.to_dict()
        err = {}
        for axis, col in (("x", x), ("y", y)):
            low, high = data.get(f"{col}_ci_low"), data.get(f"{col}_ci_high")
            if low is not None and high is not None and np.isfinite(low) and np.isfinite(high):
                err[f"error_{axis}"] = dict(type="data", symmetric=False, array=[high - data[col]],
                                            arrayminus=[data[col] - low], color="#444444")
        fig.add_trace(go.Scatter(
            x=[data[x]], y=[data[y]], mode="markers+text", text=[plot_text(data["model"])],
            textposition=LABEL_POSITIONS[0], marker=dict(size=MARKER_SIZE, color=colors[data["model"]]),
            name=plot_text(data["model"]),
            hovertext=[_hover(f"<b>{plot_text(data['model'])}</b>", f"{plot_text(x_label)} {data[x]:.4g}",
                              f"{plot_text(y_label)} {data[y]:.4g}")],
            hovertemplate="%{hovertext}<extra></extra>", **err))
    if bound is not None:
        add_rule_line(fig, float(bound), f"bound {bound:g}", axis="y", color=RULE_COLOR)
    # Axes that hold every point, its whole interval (and the bound), with room for the labels.
    ranges = {}
    for axis, col, extra in (("x", x, ()), ("y", y, () if bound is None else (float(bound),))):
        ends = [points[c].to_numpy(dtype=np.float64) for c in (col, f"{col}_ci_low", f"{col}_ci_high")
                if c in points.columns]
        values = np.concatenate(ends + [np.asarray(extra, dtype=np.float64)]) if ends else np.array([])
        values = values[np.isfinite(values)]
        if len(values):
            pad = max(0.12 * (values.max() - values.min()), 0.01)
            ranges[axis] = span = [float(values.min() - pad), float(values.max() + (2 * pad if axis == "x" else pad))]
            (fig.update_xaxes if axis == "x" else fig.update_yaxes)(range=span)
    fig.update_layout(title=_title(title), xaxis_title=plot_text(x_label), yaxis_title=plot_text(y_label),
                      showlegend=False, margin=dict(t=60))
    fit_margins(fig)
    # Each label on a side of its point clear of every error bar, marker and label (at the narrowest width drawn),
    # and the axes widened to hold the labels (up to three times: a widening moves the points a little).
    margin = fig.layout.margin
    width, height = NARROWEST - margin.l - margin.r, DEFAULT_HEIGHT - margin.t - margin.b
    shown = np.isfinite(points[x].to_numpy(dtype=np.float64)) & np.isfinite(points[y].to_numpy(dtype=np.float64))
    if len(ranges) < 2 or not shown.all():   # nothing to place, or a point Plotly does not draw: its sides as they are
        return fig
    for _ in range(3):
        placed = _label_positions(points, x, y, ranges["x"], ranges["y"], (width, height), bound)
        boxes = [box for _, box in placed]
        over = {"left": max(0.0, -min(b[0] for b in boxes)), "right": max(0.0, max(b[2] for b in boxes) - width),
                "top": max(0.0, -min(b[1] for b in boxes)), "bottom": max(0.0, max(b[3] for b in boxes) - height)}
        if not any(over.values()):
            break
        over = {side: v + 4 if v else 0.0 for side, v in over.items()}   # 4 px more: a widening moves the points
        (x0, x1), (y0, y1) = ranges["x"], ranges["y"]
        per_x, per_y = (x1 - x0) / width, (y1 - y0) / height
        ranges = {"x": [x0 - over["left"] * per_x, x1 + over["right"] * per_x],
                  "y": [y0 - over["bottom"] * per_y, y1 + over["top"] * per_y]}
    fig.update_layout(xaxis_range=ranges["x"], yaxis_range=ranges["y"])
    for trace, (position, _) in zip(fig.data, placed):
        trace.textposition = position
    return fig


# Each verdict's colour (Okabe-Ito), wherever a chart marks verdicts.
STATUS_COLORS = {"pass": "#009E73", "inconclusive": "#E69F00", "fail": "#D55E00", "not_assessable": "#7F7F7F"}


def threshold_tradeoff_chart(table: pd.DataFrame, measure: str, *, measure_label: str,
                             disparity_label: str = "Worst disparity", current: float | None = None,
                             suggested: float | None = None, title: str | None = None):
    """A measure against the worst disparity at every threshold, each point coloured by its rules' status.

    Parameters
    ----------
    table : DataFrame
        ``ThresholdSuggestion.table``: one row per threshold with ``threshold``, ``status`` ('pass',
        'inconclusive', 'fail', 'not_assessable'), ``worst_disparity`` and the `measure` column.
    measure : str
        The column on the y axis (e.g. ``'balanced_accuracy'``).
    measure_label, disparity_label, title : str
        Plain text (escaped).
    current, suggested : float, optional
        Thresholds marked with a ring ("current") and a star ("suggested") when they are in `table`.

    Returns
    -------
    plotly.graph_objects.Figure
        A grey line through the thresholds in order, one marker trace per status present (legend: the
        status in words), and the current and suggested thresholds; the hover gives the threshold,
        its status, the measure and the disparity.
    """
    import plotly.graph_objects as go

    x, y = table["worst_disparity"].to_numpy(dtype=np.float64), table[measure].to_numpy(dtype=np.float64)
    t, status = table["threshold"].to_numpy(dtype=np.float64), table["status"].astype(str).to_numpy()
    hover = [_hover(f"<b>threshold {a:g}</b>", s.replace("_", " "), f"{plot_text(measure_label)} {b:.4g}",
                    f"{plot_text(disparity_label)} {c:.4g}") for a, s, b, c in zip(t, status, y, x)]
    data = [dict(type="scatter", x=x, y=y, mode="lines", line=dict(color="#BBBBBB", width=1), hoverinfo="skip",
                 showlegend=False)]
    for name, color in STATUS_COLORS.items():
        on = status == name
        if on.any():
            data.append(dict(type="scatter", x=x[on], y=y[on], mode="markers", name=name.replace("_", " "),
                             marker=dict(size=8, color=color), hovertext=[h for h, o in zip(hover, on) if o],
                             hovertemplate=HOVER))
    for value, label, marker in ((current, "current", dict(size=16, color="rgba(0,0,0,0)",
                                                          line=dict(color="black", width=2))),
                                 (suggested, "suggested", dict(size=18, symbol="star", color="black"))):
        at = np.flatnonzero(np.isclose(t, value)) if value is not None else []
        if len(at):
            i = int(at[0])
            data.append(dict(type="scatter", x=[x[i]], y=[y[i]], mode="markers", marker=marker,
                             name=f"{label} ({t[i]:g})", hovertext=[hover[i]], hovertemplate=HOVER))
    layout = dict(xaxis=dict(title=dict(text=plot_text(disparity_label))),
                  yaxis=dict(title=dict(text=plot_text(measure_label))), legend=dict(orientation="h", y=-0.2),
                  margin=dict(t=60 if title else 20))
    if title:
        layout["title"] = _title(title)
    return fit_margins(go.Figure(data=data, layout=layout))
