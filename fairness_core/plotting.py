"""Plotly figure builders: tidy result tables -> ``plotly.graph_objects.Figure``.

Pure functions of the tables that :mod:`fairness_core` returns, shared by the app and notebooks.
Plotly is imported inside each function, so ``import fairness_core`` never loads it.
Colours come from Plotly's colour-blind-safe "Safe" palette, assigned by subgroup position, so
a subgroup keeps its colour on every chart of the same data.

Table conventions the charts read when present (architecture §5.6); without them a chart has no
error bars, no interval text and no stars:

- ``<col>_ci_low`` / ``<col>_ci_high`` beside an estimate column ``<col>``: drawn as error bars and
  written into the hover as "0.8562 (95 % CI 0.6112–0.9634)". The level comes from the ``level``
  argument or ``table.attrs["ci"]`` (comparison tables: ``attrs["row_level"]`` first, the level of
  intervals adjusted for multiple comparisons); unknown, the hover says "CI" without a percentage.
- ``small`` (bool) and ``small_reason`` (text) per subgroup: small subgroups are hatched (bars),
  open and faded (markers) or dotted and faded (lines), with the reason on hover and a legend entry
  that says what the mark means.
- ``excludes_parity`` (bool or NA) in comparison tables: a star beside the subgroup's bar.

Policy and reference lines are drawn with :func:`add_rule_line`. The AUC chart's x range fits the
data rather than spanning 0-1 (see :func:`auc_chart`).

Every piece of data text (subgroup, class and reference names, notes, titles) goes through
:func:`plot_text`, because Plotly renders a subset of HTML in names, tick labels, hover text and
annotations.
"""

from __future__ import annotations

import html
import math
from typing import Sequence

import numpy as np
import pandas as pd

__all__ = ["AUC_COLUMNS", "RATE_LABELS", "add_rule_line", "auc_chart", "classwise_chart", "plot_text",
           "rate_chart", "ratio_score_chart", "reliability_chart", "subgroup_colors"]

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
ADJUSTMENTS = {"bonferroni": "Bonferroni", "holm": "Holm", "fdr_bh": "Benjamini-Hochberg"}

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


def _legend_entry(fig, name: str, group: str, **style) -> None:
    """A legend-only entry (no points) explaining a mark; a scatter, so it never takes a bar slot."""
    import plotly.graph_objects as go

    fig.add_trace(go.Scatter(x=[None], y=[None], name=name, legendgroup=group, showlegend=True,
                             hoverinfo="skip", **style))


def _small_legend(fig, kind: str) -> None:
    grey = "#888888"
    style = {"bar": {"mode": "markers", "marker": {"symbol": "square", "size": 12, "color": grey,
                                                    "opacity": 0.6}},
             "marker": {"mode": "markers", "marker": {"symbol": "circle-open", "size": 11, "color": grey,
                                                       "opacity": SMALL_OPACITY + 0.2}},
             "line": {"mode": "lines+markers", "line": {"dash": "dot", "color": grey},
                      "marker": {"symbol": "circle-open", "color": grey}, "opacity": SMALL_OPACITY + 0.2}}[kind]
    _legend_entry(fig, SMALL_LEGEND[kind], "small", **style)


def _parity_marks(fig, comparison: pd.DataFrame, subgroups, labels, x_right, name: str, level,
                  *, show_legend: bool, row=None, col=None, value: str = "disparity") -> float:
    """Stars right of the bars whose comparison row has ``excludes_parity`` True; returns the largest x used."""
    import plotly.graph_objects as go

    if comparison is None or "excludes_parity" not in comparison.columns or not len(comparison):
        return -np.inf
    comp = comparison.set_index("subgroup").reindex(list(subgroups))
    flags = _flags(comp["excludes_parity"])
    if not flags.any():
        return -np.inf
    estimate = _floats(comp[value]) if value in comp.columns else np.full(len(comp), np.nan)
    interval = _interval(comp, value)
    ci_name, adjusted = _comparison_ci(comparison, level, "_parity_marks")
    x = np.where(np.isfinite(x_right), x_right, 0.0) + 0.035
    idx = np.flatnonzero(flags)
    hover = [_hover(f"<b>{labels[i]}</b>", f"{name} {value} {_estimate(estimate, interval, i, '.4f', ci_name)}",
                    PARITY_TEXT, adjusted) for i in idx]
    where = {} if row is None else {"row": row, "col": col}
    fig.add_trace(go.Scatter(
        x=x[idx], y=[labels[i] for i in idx], mode="markers", name=PARITY_LEGEND, legendgroup="parity",
        showlegend=show_legend, marker={"symbol": "star", "size": 12, "color": "black"},
        hovertext=hover, hovertemplate=HOVER), **where)
    return float(x[idx].max())


def _right_end(*arrays) -> np.ndarray:
    """Row-wise largest finite value over the arrays (NaN where none is finite), without warnings."""
    stacked = np.vstack([np.asarray(a, dtype=float) for a in arrays])
    out = np.where(np.isfinite(stacked), stacked, -np.inf).max(axis=0)
    return np.where(np.isfinite(out), out, np.nan)


# Charts ---------------------------------------------------------------------------------------


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


def auc_chart(table: pd.DataFrame, *, title: str | None = None, level: float | None = None):
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

    Returns
    -------
    plotly.graph_objects.Figure
        One marker trace per AUC kind; subgroups on the y axis in table order (small ones
        labelled "(small)", drawn open and faded, with a legend entry saying so). With interval
        columns, horizontal error bars (``error_x.array`` = high - AUC, ``arrayminus`` = AUC - low)
        and the three kinds side by side (``layout.scattermode='group'``). Hover shows the AUC
        with its interval, the size and counts, and why a subgroup is small. The x range fits the
        AUCs and their intervals (at least 0.2 wide) and reaches down to the 0.5 chance line when
        that at most doubles its width; otherwise the line is left out and a grey note above the plot
        says "← Chance (0.5) is off this axis".

    Raises
    ------
    ValueError
        If `level` is not None or a number in (0, 1) (``LEVEL_MESSAGE``).
    """
    import plotly.graph_objects as go

    ci_name = _ci_name(_level(level, [table], "auc_chart"))
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
    x_range, with_chance = _auc_range(table, intervals)
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
    return fig


def rate_chart(rates: pd.DataFrame, metrics: Sequence[str], references: dict | None = None,
               *, reference_label: str = "Reference", title: str | None = None, labels: dict | None = None,
               level: float | None = None):
    """Per-subgroup rates as bars, one panel per rate, with the reference each is compared with.

    Parameters
    ----------
    rates : DataFrame
        From :func:`fairness_core.group_rates` / ``ConfusionCounts.table()``: columns
        ``subgroup, size, small, note`` and the rate columns; optionally ``small_reason`` and
        ``<rate>_ci_low`` / ``<rate>_ci_high`` (e.g. ``false_positive_rate_ci_low``).
    metrics : sequence of str
        Rate columns to draw, e.g. ``["false_positive_rate", "false_negative_rate"]``.
    references : dict of str -> DataFrame, optional
        For each metric, its comparison table (``subgroup, reference_value``) from
        ``ConfusionCounts.disparity(..., reduction=None)``; drawn as black diamonds. Optional
        columns: ``reference_value_ci_low/high`` (in the hover), ``disparity`` with
        ``disparity_ci_low/high`` and ``excludes_parity`` (bool or NA), which puts a black star
        right of the bar of each subgroup whose disparity interval excludes parity; ``small`` and
        ``small_reason`` (small by the rate's denominator), which hatch that panel's bar. Omit
        for pairwise comparisons, which have no single reference per subgroup.
    reference_label : str
        Legend text for the reference markers, e.g. "Rest of population" (plain text, escaped).
    title : str, optional
        Plain text (escaped).
    labels : dict of str -> str, optional
        Panel titles for columns that are not rates (e.g. ``{"base_rate": "Base rate"}``).
    level : float in (0, 1), optional
        Confidence level of the rate intervals, for the hover text; default ``rates.attrs["ci"]``
        (then the comparison tables' ``attrs["ci"]``), "CI" when unknown. Disparity intervals are
        labelled with their comparison table's ``attrs["row_level"]`` when it is recorded (it
        differs from the level when ``attrs["adjust"]`` names a multiple-comparison adjustment,
        which the hover then mentions).

    Returns
    -------
    plotly.graph_objects.Figure
        One bar trace per panel (subgroup colours; small subgroups hatched with a legend entry),
        horizontal error bars when the rate has interval columns, the reference diamonds, and a
        "Disparity interval excludes parity" star trace per panel with flagged rows. Hover shows
        the rate with its interval, the size, the note, why a subgroup is small and, with
        intervals, the disparity with its interval.

    Raises
    ------
    ValueError
        If `level` is not None or a number in (0, 1) (``LEVEL_MESSAGE``).
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    names = {**RATE_LABELS, **(labels or {})}
    metrics = list(metrics)
    references = references or {}
    level = _level(level, [rates, *[r for r in references.values() if r is not None]], "rate_chart")
    ci_name = _ci_name(level)
    subgroups = list(rates["subgroup"])
    colors = subgroup_colors(subgroups)
    small, reasons = _small(rates)
    ticks = [_label(n, s) for n, s in zip(subgroups, small)]
    notes = ["" if not isinstance(n, str) else plot_text(n) for n in rates["note"]] if "note" in rates.columns \
        else [""] * len(rates)
    ref_name = plot_text(reference_label)
    fig = make_subplots(rows=1, cols=max(len(metrics), 1), shared_yaxes=True,
                        subplot_titles=[plot_text(names.get(m, m)) for m in metrics], horizontal_spacing=0.04)
    parity_legend, any_small = True, bool(small.any())
    for c, metric in enumerate(metrics, start=1):
        title_m = plot_text(names.get(metric, metric))
        values, interval = _floats(rates[metric]), _interval(rates, metric)
        ref = references.get(metric)
        comp = None if ref is None or not len(ref) else ref.set_index("subgroup").reindex(subgroups)
        panel_small, panel_reasons = small, reasons
        if comp is not None and "small" in comp.columns:  # a rate is small by its denominator too
            comp_small, comp_reasons = _small(comp)
            panel_small = small | comp_small
            panel_reasons = [cr if cs and (cr != SMALL_TEXT or not r) else r
                             for r, cr, cs in zip(reasons, comp_reasons, comp_small)]
        disparity_lines = [""] * len(rates)
        if comp is not None and "disparity" in comp.columns and _interval(comp, "disparity") is not None:
            d, d_iv = _floats(comp["disparity"]), _interval(comp, "disparity")
            d_name, adjusted = _comparison_ci(ref, level, "rate_chart")
            flagged = _flags(comp["excludes_parity"]) if "excludes_parity" in comp.columns else np.zeros(len(d), bool)
            disparity_lines = [_hover(f"disparity {_estimate(d, d_iv, i, '.4f', d_name)}"
                                      + (f": {PARITY_TEXT}" if flagged[i] else ""), adjusted) for i in range(len(d))]
        hover = [_hover(f"<b>{ticks[i]}</b>", f"{title_m}: {_estimate(values, interval, i, '.4f', ci_name)}",
                        f"size {_count(rates['size'].iloc[i])}", notes[i], disparity_lines[i], panel_reasons[i])
                 for i in range(len(rates))]
        fig.add_trace(go.Bar(
            x=values, y=ticks, orientation="h", name=title_m, showlegend=False,
            marker=_bar_marks([colors[n] for n in subgroups], panel_small), error_x=_error_bars(values, interval),
            hovertext=hover, hovertemplate=HOVER,
        ), row=1, col=c)
        right = _right_end(values, *(interval or ()))
        if comp is not None:
            ref_values, ref_iv = _floats(comp["reference_value"]), _interval(comp, "reference_value")
            fig.add_trace(go.Scatter(
                x=ref_values, y=ticks, mode="markers", name=ref_name,
                showlegend=(c == 1), legendgroup="reference",
                marker={"symbol": "diamond", "size": 10, "color": "black"},
                hovertext=[_hover(f"<b>{ticks[i]}</b>",
                                  f"{ref_name}: {_estimate(ref_values, ref_iv, i, '.4f', ci_name)}")
                           for i in range(len(rates))],
                hovertemplate=HOVER,
            ), row=1, col=c)
            right = _right_end(right, ref_values)
        star_x = _parity_marks(fig, ref if comp is not None else None, subgroups, ticks, right,
                               title_m, level, show_legend=parity_legend, row=1, col=c)
        parity_legend = parity_legend and not np.isfinite(star_x)
        fig.update_xaxes(range=[0, max(1.02, star_x + 0.03)], row=1, col=c)
        any_small = any_small or bool(panel_small.any())
    if any_small:
        _small_legend(fig, "bar")
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_layout(title=_title(title), height=max(320, 28 * len(ticks) + 160), legend_orientation="h",
                      legend_y=-0.15, margin={"l": 10, "r": 10, "t": 60, "b": 10})
    return fig


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
        vertical error bars when the interval columns are present; small subgroups dotted, faded
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
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="Perfectly calibrated",
                             line={"dash": "dash", "color": "grey"}, hoverinfo="skip"))
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
        style = {"opacity": SMALL_OPACITY + 0.2} if is_small else {}
        fig.add_trace(go.Scatter(
            x=mean, y=y, mode="lines+markers", name=label,
            line={"color": colors.get(name), **({"dash": "dot"} if is_small else {})},
            marker={"size": 8, **({"symbol": "circle-open"} if is_small else {})},
            error_y=_error_bars(y, interval, colors.get(name) or ERROR_COLOR),
            hovertext=hover, hovertemplate=HOVER, **style,
        ))
    if small_of and any(n in small_of for n in (subgroups if subgroups is not None else all_names)):
        _small_legend(fig, "line")
    fig.update_layout(
        title=_title(title), xaxis_title="Mean predicted probability", yaxis_title="Fraction of positives",
        xaxis_range=[0, 1], yaxis_range=[0, 1], height=520, legend_orientation="v",
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return fig


def ratio_score_chart(tables: dict, *, threshold: float = 0.8, title: str | None = None,
                      level: float | None = None):
    """Ratio scores (p% score, equal opportunity score) of each subgroup against the rest, with the 80 % line.

    Parameters
    ----------
    tables : dict of str -> DataFrame
        Panel title (plain text, escaped) -> per-subgroup table from
        ``ConfusionCounts.ratio_scores(...).table``: columns ``subgroup, size, small,
        subgroup_value, reference_value, score, note``; optionally ``small_reason``,
        ``score_ci_low`` / ``score_ci_high`` and ``excludes_parity`` (bool or NA; a star right
        of the bar where the interval of the score excludes 1).
    threshold : float, default=0.8
        Drawn with :func:`add_rule_line` as a dashed line: the "80 % rule" (four-fifths rule)
        for the p% score.
    title : str, optional
        Plain text (escaped).
    level : float in (0, 1), optional
        Confidence level for the hover text, used when a table does not record the level of its
        rows' intervals in ``attrs["row_level"]`` (adjusted for multiple comparisons when
        ``attrs["adjust"]`` is set, which the hover then mentions); then ``attrs["ci"]``; "CI"
        when unknown.

    Returns
    -------
    plotly.graph_objects.Figure
        One panel per table; bars in [0, 1] (1 = parity), small subgroups hatched with a legend
        entry (the tick label says "(small)" when every table flags the subgroup), horizontal
        error bars when the score has interval columns; hover shows the score
        with its interval, both rates, the size, the note and why a subgroup is small.

    Raises
    ------
    ValueError
        If `level` is not None or a number in (0, 1) (``LEVEL_MESSAGE``), or `threshold` is not
        finite (``RULE_VALUE_MESSAGE``).
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    names = list(tables)
    first = tables[names[0]] if names else pd.DataFrame(columns=["subgroup", "small"])
    colors = subgroup_colors(list(first["subgroup"]))
    fig = make_subplots(rows=1, cols=max(len(names), 1), shared_yaxes=True, horizontal_spacing=0.04,
                        subplot_titles=[plot_text(n) for n in names])
    # The panels share their y axis, so a subgroup's tick label must not depend on the panel: it
    # says "(small)" when every panel flags it (too few rows); a panel whose rate alone has too
    # small a denominator hatches the bar and gives the reason on hover.
    flagged = [dict(zip(t["subgroup"], _small(t)[0])) for t in tables.values()]
    small_everywhere = {n for n in flagged[0] if all(f.get(n, False) for f in flagged)} if flagged else set()
    any_small, parity_legend = False, True
    for c, name in enumerate(names, start=1):
        table = tables[name]
        small, reasons = _small(table)
        any_small = any_small or bool(small.any())
        labels = [_label(n, n in small_everywhere) for n in table["subgroup"]]
        score, interval = _floats(table["score"]), _interval(table, "score")
        ci_name, adjusted = _comparison_ci(table, level, "ratio_score_chart")
        sub, ref = _floats(table["subgroup_value"]), _floats(table["reference_value"])
        notes = ["" if not isinstance(n, str) else plot_text(n) for n in table["note"]]
        hover = [_hover(f"<b>{labels[i]}</b>", f"score {_estimate(score, interval, i, '.4f', ci_name)}",
                        adjusted if interval is not None else "",
                        f"subgroup rate {_num(sub[i], '.4f')}, rest {_num(ref[i], '.4f')}",
                        f"size {_count(table['size'].iloc[i])}", notes[i], reasons[i]) for i in range(len(table))]
        fig.add_trace(go.Bar(
            x=score, y=labels, orientation="h", showlegend=False, name=plot_text(name),
            marker=_bar_marks([colors.get(n, "#888888") for n in table["subgroup"]], small),
            error_x=_error_bars(score, interval), hovertext=hover, hovertemplate=HOVER,
        ), row=1, col=c)
        add_rule_line(fig, threshold, f"{threshold:.0%} rule" if c == 1 else None, axis="x", row=1, col=c)
        star_x = _parity_marks(fig, table, list(table["subgroup"]), labels, _right_end(score, *(interval or ())),
                               plot_text(name), level, show_legend=parity_legend, row=1, col=c, value="score")
        parity_legend = parity_legend and not np.isfinite(star_x)
        fig.update_xaxes(range=[0, max(1.02, star_x + 0.03)], row=1, col=c)
    if any_small:
        _small_legend(fig, "bar")
    n_rows = len(first)
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_layout(title=_title(title), height=max(300, 28 * n_rows + 150), legend_orientation="h",
                      legend_y=-0.15, margin={"l": 10, "r": 10, "t": 60, "b": 10})
    return fig


def classwise_chart(table: pd.DataFrame, metric: str = "fscore", *, title: str | None = None,
                    level: float | None = None):
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
    names = list(dict.fromkeys(table["subgroup"]))
    colors = subgroup_colors(names)
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
    return fig
