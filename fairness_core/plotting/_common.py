"""Shared pieces of the figure builders: constants, text escaping, colours, intervals, small marks."""


from __future__ import annotations

import html
import math
from typing import Sequence

import numpy as np
import pandas as pd

from ._margins import PANEL_TITLE, fit_margins

AUC_COLUMNS = {"subgroup_auc": "Subgroup AUC", "bpsn_auc": "BPSN AUC", "bnsp_auc": "BNSP AUC"}
RATE_LABELS = {
    "selection_rate": "Selection rate", "true_positive_rate": "True positive rate",
    "false_positive_rate": "False positive rate", "false_negative_rate": "False negative rate",
    "false_omission_rate": "False omission rate", "false_discovery_rate": "False discovery rate",
    "error_rate": "Error rate",
}
SMALL_SUFFIX = " (small)"
CI_LOW, CI_HIGH = "_ci_low", "_ci_high"
SMALL_TEXT = "small subgroup (fewer rows than the minimum size)"
PARITY_TEXT = "interval excludes parity"
PARITY_LEGEND = "Disparity interval excludes parity"
SMALL_LEGEND = {"bar": "Hatched: small subgroup (reason on hover)",
                "marker": "Open, faded: small subgroup (reason on hover)",
                "line": "Dotted, faded: small subgroup (reason on hover)"}
RULE_COLOR = "#D55E00"
ERROR_COLOR = "#444444"
SMALL_OPACITY = 0.4
AUC_MIN_SPAN = 0.2
SMALL_PATTERN = "/"
HOVER = "%{hovertext}<extra></extra>"
ADJUSTMENTS = {"max_t": "max-t", "bonferroni": "Bonferroni", "holm": "Holm", "fdr_bh": "Benjamini-Hochberg"}

LEVEL_MESSAGE = ("The 'level' parameter of {func} must be None or a confidence level strictly between 0 and 1, "
                 "such as 0.95. Got {got!r} instead.")
RULE_AXIS_MESSAGE = "The 'axis' parameter of add_rule_line must be 'x' or 'y'. Got {got!r} instead."
RULE_VALUE_MESSAGE = "The 'value' parameter of add_rule_line must be a finite number. Got {got!r} instead."


def plot_text(value) -> str:
    r"""Data text made safe for a Plotly figure: HTML-escaped, and URLs that never turn into links.

    Plotly renders a subset of HTML (``<b>``, ``<a href=...>``, ``<br>``, ...) in trace names, tick
    labels, hover text, titles and annotations, so a subgroup called ``<a href="...">x</a>`` would
    become a link. Pass every piece of text that comes from the data (subgroup, class and column
    names, notes, titles built from them) through this function, once.

    Parameters
    ----------
    value : object
        Any value; converted with ``str``.

    Returns
    -------
    str
        ``html.escape(str(value))``, with ``"`` written as the numeric entity ``&#34;`` (Plotly
        decodes numeric entities but not ``&quot;``), and a zero-width joiner (U+200D) inserted
        inside every ``://`` so that no renderer recognises a URL. Displayed, the text reads as the
        original.

    Examples
    --------
    >>> plot_text('<b>x</b> & "y"')
    '&lt;b&gt;x&lt;/b&gt; &amp; &#34;y&#34;'
    >>> plot_text("http://2130706433/")
    'http:\u200d//2130706433/'
    """
    return html.escape(str(value), quote=True).replace("&quot;", "&#34;").replace("://", ":\u200d//")


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


def add_rule_line(fig, value: float, label: str | None, *, axis: str = "y", row=None, col=None,
                  color: str = RULE_COLOR, position: str | None = None):
    """Draw a dashed, labelled reference line for a policy rule or a reference value.

    The one way this module draws rule lines: the 0.8 line of the four-fifths rule, a disparity
    bound such as 0.1, a minimum bias AUC score, the 0.5 chance line of an AUC.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure to draw on (changed in place).
    value : float
        Where the line is, in the units of `axis`.
    label : str or None
        Plain text written beside the line (escaped with :func:`plot_text`), e.g. ``"80% rule"``;
        None draws the line without a label (for the second and later panels of one rule).
    axis : {'x', 'y'}, default='y'
        The axis `value` is measured on: ``'x'`` draws a vertical line at x = `value`, ``'y'`` a
        horizontal line at y = `value`.
    row, col : int or 'all', optional
        Subplot of a figure from ``make_subplots``; by default every subplot (the label is then
        written in every subplot). Ignored for a figure without subplots.
    color : str, default='#D55E00'
        Line colour (Okabe-Ito vermillion for policy rules; grey for chance lines).
    position : str, optional
        Plotly's ``annotation_position``; default ``'top'`` for a vertical line and
        ``'top right'`` for a horizontal one.

    Returns
    -------
    plotly.graph_objects.Figure
        `fig`, with one more shape per addressed subplot and, when `label` is given, one more
        annotation per addressed subplot. A line outside a fixed axis range is not visible.

    Raises
    ------
    ValueError
        If `axis` is not 'x' or 'y' (``RULE_AXIS_MESSAGE``) or `value` is not a finite number
        (``RULE_VALUE_MESSAGE``).
    """
    if axis not in ("x", "y"):
        raise ValueError(RULE_AXIS_MESSAGE.format(got=axis))
    if isinstance(value, bool) or not _finite(value):
        raise ValueError(RULE_VALUE_MESSAGE.format(got=value))
    where = {} if row is None and col is None else {"row": "all" if row is None else row,
                                                    "col": "all" if col is None else col}
    note = {} if label is None else {
        "annotation_text": plot_text(label),
        "annotation_position": position or ("top" if axis == "x" else "top right")}
    draw = fig.add_vline if axis == "x" else fig.add_hline
    draw(float(value), line_dash="dash", line_color=color, **note, **where)
    return fig


# Where add_rule_line's label sits, as Plotly places an annotation_position on a line spanning the other axis:
# (the line's axis, position) -> (anchor along the line's axis, position across it 0..1, anchor across it).
_LINE_LABELS = {("x", "top"): ("center", 1, "bottom"), ("x", "bottom right"): ("left", 0, "bottom"),
                ("y", "top right"): ("right", 1, "bottom")}
RULE_POSITION_MESSAGE = ("The 'position' of rule_line_parts must be one of {allowed} for a line on the {axis} axis. "
                         "Got {got!r} instead.")


def rule_line_parts(value: float, label: str | None, *, axis: str = "y", color: str = RULE_COLOR,
                    position: str | None = None, panel: int = 1) -> tuple:
    """The dashed rule line of :func:`add_rule_line`, as plain dictionaries.

    For a figure built from dictionaries and validated once (a shape added with ``add_vline`` is
    validated on its own). The line spans the other axis's domain; its label sits where
    :func:`add_rule_line` puts it (a test holds the two to the same output).

    Parameters
    ----------
    value : float
        Where the line is, in the units of `axis`.
    label : str or None
        Plain text beside the line (escaped with :func:`plot_text`); None for no label.
    axis : {'x', 'y'}, default='y'
        ``'x'``: a vertical line at x = `value`; ``'y'``: a horizontal line at y = `value`.
    color : str, default='#D55E00'
    position : str, optional
        The label's place: ``'top'`` (default) or ``'bottom right'`` for a vertical line,
        ``'top right'`` (default) for a horizontal one.
    panel : int, default=1
        The panel of a row of panels (axes ``x<panel>``, ``y<panel>``; 1 for the first).

    Returns
    -------
    (dict, dict or None)
        The layout shape and its annotation (None without a label).

    Raises
    ------
    ValueError
        As :func:`add_rule_line` (``RULE_AXIS_MESSAGE``, ``RULE_VALUE_MESSAGE``), or for another
        position (``RULE_POSITION_MESSAGE``).
    """
    if axis not in ("x", "y"):
        raise ValueError(RULE_AXIS_MESSAGE.format(got=axis))
    if isinstance(value, bool) or not _finite(value):
        raise ValueError(RULE_VALUE_MESSAGE.format(got=value))
    position = position or ("top" if axis == "x" else "top right")
    if (axis, position) not in _LINE_LABELS:
        raise ValueError(RULE_POSITION_MESSAGE.format(
            allowed=[p for a, p in _LINE_LABELS if a == axis], axis=axis, got=position))
    value, suffix = float(value), "" if panel == 1 else str(panel)
    along, across, across_anchor = _LINE_LABELS[axis, position]
    line = {"color": color, "dash": "dash"}
    if axis == "x":
        shape = dict(type="line", x0=value, x1=value, xref=f"x{suffix}", y0=0, y1=1, yref=f"y{suffix} domain",
                     line=line)
        note = dict(showarrow=False, x=value, xref=f"x{suffix}", xanchor=along, y=across, yref=f"y{suffix} domain",
                    yanchor=across_anchor)
    else:
        shape = dict(type="line", x0=0, x1=1, xref=f"x{suffix} domain", y0=value, y1=value, yref=f"y{suffix}",
                     line=line)
        note = dict(showarrow=False, x=across, xref=f"x{suffix} domain", xanchor=along, y=value, yref=f"y{suffix}",
                    yanchor=across_anchor)
    return shape, (None if label is None else {"text": plot_text(label), **note})


# Shared pieces: intervals, small subgroups, hover text ------------------------------------------


def _finite(v) -> bool:
    try:
        return math.isfinite(float(v))
    except (TypeError, ValueError):
        return False


def _floats(values) -> np.ndarray:
    return pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype="float64", na_value=np.nan)


def _flags(values) -> np.ndarray:
    """True only where the value is a true boolean; False for False, NA, NaN and None."""
    return np.array([isinstance(v, (bool, np.bool_)) and bool(v) for v in pd.Series(values).tolist()], dtype=bool)


def _level(level, tables, func: str) -> float | None:
    """The level of the intervals: `level`, else the first table's ``attrs["ci"]``; validated."""
    if level is None:
        level = next((t.attrs.get("ci") for t in tables if t.attrs.get("ci") is not None), None)
    if level is None:
        return None
    if isinstance(level, bool) or not isinstance(level, (int, float, np.integer, np.floating)) \
            or not 0.0 < float(level) < 1.0:
        raise ValueError(LEVEL_MESSAGE.format(func=func, got=level))
    return float(level)


def _ci_name(level: float | None) -> str:
    return "CI" if level is None else f"{level * 100:.4g} % CI"


def _comparison_ci(table: pd.DataFrame, level, func: str) -> tuple[str, str]:
    """CI label of a comparison table's intervals, and a note on their multiple-comparison adjustment.

    A comparison table records the level of each row's interval in ``attrs["row_level"]``, which
    differs from ``attrs["ci"]`` when the intervals are adjusted (``attrs["adjust"]``); that level
    comes first, then `level`, then ``attrs["ci"]``.
    """
    row_level = table.attrs.get("row_level")
    name = _ci_name(_level(row_level if row_level is not None else level, [table], func))
    adjust = table.attrs.get("adjust")
    if not adjust:
        return name, ""
    n = table.attrs.get("n_comparisons")
    how = plot_text(ADJUSTMENTS.get(adjust, adjust))
    return name, f"adjusted for {_count(n)} comparisons ({how})" if _finite(n) else f"adjusted ({how})"


def _interval(table: pd.DataFrame, col: str):
    """(low, high) arrays of `col`'s interval, or None when the table has no interval for it."""
    if col + CI_LOW not in table.columns or col + CI_HIGH not in table.columns:
        return None
    return _floats(table[col + CI_LOW]), _floats(table[col + CI_HIGH])


def _error_bars(values, interval, color: str = ERROR_COLOR):
    """Plotly error-bar settings: array = high - value, arrayminus = value - low (NaN stays NaN: no bar)."""
    if interval is None:
        return None
    v = _floats(values)
    plus, minus = interval[1] - v, v - interval[0]
    # A percentile interval can miss its estimate; draw only the part on the right side of the point.
    return {"type": "data", "symmetric": False, "array": np.where(plus < 0, 0.0, plus),
            "arrayminus": np.where(minus < 0, 0.0, minus), "color": color, "thickness": 1.5, "width": 4}


def _num(v, spec: str) -> str:
    if not _finite(v):
        return "n/a"
    text = format(float(v), spec)
    return text[1:] if text.startswith("-") and float(text) == 0 else text  # no "-0.0000"


def _count(v) -> str:
    return f"{int(v):,}" if _finite(v) else "n/a"


def _estimate(values, interval, i: int, spec: str, ci_name: str) -> str:
    """'0.8562 (95 % CI 0.6112–0.9634)' for row i, or just the value when there is no interval."""
    text = _num(values[i], spec)
    if interval is None:
        return text
    low, high = interval[0][i], interval[1][i]
    if not (_finite(low) and _finite(high)):
        return f"{text} ({ci_name} n/a)"
    low_text = _num(low, spec)
    joiner = " to " if low_text.startswith("-") else "–"  # "-0.04–0.06" would read as a range of negatives
    return f"{text} ({ci_name} {low_text}{joiner}{_num(high, spec)})"


def _small(table: pd.DataFrame):
    """Per row: the small flag, and the escaped hover line that says why ('' when not small)."""
    flags = _flags(table["small"]) if "small" in table.columns else np.zeros(len(table), dtype=bool)
    reasons = table["small_reason"].tolist() if "small_reason" in table.columns else [None] * len(table)
    lines = [("" if not f else "small subgroup: " + plot_text(r) if isinstance(r, str) and r.strip() else SMALL_TEXT)
             for f, r in zip(flags, reasons)]
    return flags, lines


def _label(name, small: bool) -> str:
    return plot_text(name) + (SMALL_SUFFIX if small else "")


def _hover(*lines: str) -> str:
    return "<br>".join(line for line in lines if line)


def _title(title):
    return None if title is None else plot_text(title)


def _bar_marks(colors: list, small) -> dict:
    """Bar marker: subgroup colours; small subgroups hatched (pattern) in their own colour."""
    small = np.asarray(small, dtype=bool)
    if not small.any():
        return {"color": colors}
    return {"color": colors, "pattern": {"shape": [SMALL_PATTERN if s else "" for s in small]}}


def _legend_trace(name: str, group: str, **style) -> dict:
    """A legend-only entry (no points) explaining a mark, as a plain trace; a scatter, so it never takes a bar
    slot."""
    return dict(type="scatter", x=[None], y=[None], name=name, legendgroup=group, showlegend=True, hoverinfo="skip",
                **style)


def _small_legend_trace(kind: str) -> dict:
    """The legend entry of small subgroups drawn as `kind` ('bar', 'marker' or 'line'), as a plain trace."""
    grey = "#888888"
    style = {"bar": {"mode": "markers", "marker": {"symbol": "square", "size": 12, "color": grey,
                                                    "opacity": 0.6}},
             "marker": {"mode": "markers", "marker": {"symbol": "circle-open", "size": 11, "color": grey,
                                                       "opacity": SMALL_OPACITY + 0.2}},
             "line": {"mode": "lines+markers", "line": {"dash": "dot", "color": grey},
                      "marker": {"symbol": "circle-open", "color": grey}, "opacity": SMALL_OPACITY + 0.2}}[kind]
    return _legend_trace(SMALL_LEGEND[kind], "small", **style)


def _small_legend(fig, kind: str) -> None:
    """Add :func:`_small_legend_trace` to `fig`."""
    fig.add_trace(_small_legend_trace(kind))


def _parity_trace(comparison: pd.DataFrame, subgroups, labels, x_right, name: str, level, *, show_legend: bool,
                  value: str = "disparity") -> tuple:
    """Stars right of the bars whose comparison row has ``excludes_parity`` True, as a plain trace (None where no
    row is flagged), and the largest x used (-inf without stars)."""
    if comparison is None or "excludes_parity" not in comparison.columns or not len(comparison):
        return None, -np.inf
    comp = comparison.set_index("subgroup").reindex(list(subgroups))
    flags = _flags(comp["excludes_parity"])
    if not flags.any():
        return None, -np.inf
    estimate = _floats(comp[value]) if value in comp.columns else np.full(len(comp), np.nan)
    interval = _interval(comp, value)
    ci_name, adjusted = _comparison_ci(comparison, level, "_parity_trace")
    x = np.where(np.isfinite(x_right), x_right, 0.0) + 0.035
    idx = np.flatnonzero(flags)
    hover = [_hover(f"<b>{labels[i]}</b>", f"{name} {value} {_estimate(estimate, interval, i, '.4f', ci_name)}",
                    PARITY_TEXT, adjusted) for i in idx]
    trace = dict(type="scatter", x=x[idx], y=[labels[i] for i in idx], mode="markers", name=PARITY_LEGEND,
                 legendgroup="parity", showlegend=show_legend, marker={"symbol": "star", "size": 12, "color": "black"},
                 hovertext=hover, hovertemplate=HOVER)
    return trace, float(x[idx].max())


def _panels(titles: Sequence[str], spacing: float) -> dict:
    """The layout of one row of panels side by side sharing the y axis, as ``make_subplots(rows=1, cols=n,
    shared_yaxes=True, subplot_titles=titles, horizontal_spacing=spacing)`` lays it out, as a plain dictionary
    (axes ``xaxis``, ``xaxis2``, ..., each anchored to its ``yaxis<i>``, which follows ``yaxis``; the titles as
    annotations named ``PANEL_TITLE``, which ``fit_margins`` wraps within their panels). Panel i's traces take
    ``xaxis="x<i>"``, ``yaxis="y<i>"`` (no number for the first)."""
    n = max(len(titles), 1)
    width = (1.0 - spacing * (n - 1)) / n
    layout, annotations = {}, []
    for i in range(n):
        suffix = "" if i == 0 else str(i + 1)
        low = i * (width + spacing)
        layout[f"xaxis{suffix}"] = {"anchor": f"y{suffix}", "domain": [low, low + width]}
        layout[f"yaxis{suffix}"] = ({"anchor": "x", "domain": [0.0, 1.0]} if i == 0 else
                                    {"anchor": f"x{suffix}", "domain": [0.0, 1.0], "matches": "y",
                                     "showticklabels": False})
        if i < len(titles):
            annotations.append({"font": {"size": 16}, "name": PANEL_TITLE, "showarrow": False, "text": titles[i],
                                "x": low + width / 2, "xanchor": "center", "xref": "paper", "y": 1.0,
                                "yanchor": "bottom", "yref": "paper"})
    layout["annotations"] = annotations
    return layout


def _bar_panels_figure(data: list, layout: dict, *, any_small: bool, title, height: int, shapes: list = ()):
    """The figure of a row of horizontal-bar panels (:func:`_panels`' layout): the small subgroups' legend entry
    when any is drawn, every panel's subgroups top to bottom as categories, the title, `height` in pixels, the legend
    under the panels, `shapes` (none: no key) and margins that fit the labels (:func:`._margins.fit_margins`).
    Validated once, here."""
    import plotly.graph_objects as go

    if any_small:
        data.append(_small_legend_trace("bar"))
    for name in [k for k in layout if k.startswith("yaxis")]:
        layout[name].update(autorange="reversed", type="category")
    layout.update(title=_title(title), height=height, legend={"orientation": "h", "y": -0.15},
                  margin={"l": 10, "r": 10, "t": 60, "b": 10})
    if shapes:
        layout["shapes"] = shapes
    return fit_margins(go.Figure(data=data, layout=layout))


def _ordered(table: pd.DataFrame, order) -> pd.DataFrame:
    """`table`'s rows with their ``subgroup`` in the order of `order` (stable; subgroups not in it last).

    None keeps the table's order. Charts take their colours from the table's own order first, so a
    subgroup keeps its colour whatever order it is drawn in.
    """
    if order is None:
        return table
    rank = {name: i for i, name in enumerate(order)}
    key = [rank.get(name, len(rank)) for name in table["subgroup"]]
    return table.iloc[np.argsort(np.asarray(key, dtype=np.int64), kind="stable")]


def _right_end(*arrays) -> np.ndarray:
    """Row-wise largest finite value over the arrays (NaN where none is finite), without warnings."""
    stacked = np.vstack([np.asarray(a, dtype=float) for a in arrays])
    out = np.where(np.isfinite(stacked), stacked, -np.inf).max(axis=0)
    return np.where(np.isfinite(out), out, np.nan)


# Charts ---------------------------------------------------------------------------------------
