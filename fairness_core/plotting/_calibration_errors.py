"""Calibration errors per subgroup: ℓ2 ECE (or ECE / MCE / Brier) bars with intervals, and the calibration disparities."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ._common import (HOVER, PARITY_TEXT, SMALL_OPACITY, _bar_marks, _bar_panels_figure, _ci_name, _comparison_ci,
                      _count, _error_bars, _estimate, _flags, _floats, _hover, _interval, _label, _level, _ordered,
                      _panels, _parity_trace, _right_end, _small, plot_text, rule_line_parts, subgroup_colors)

ERROR_LABELS = {"l2_ece": "ℓ2 ECE (debiased)", "ece": "Expected calibration error (ECE, plug-in)",
                "squared_ce": "Squared calibration error (debiased)", "mce": "Maximum calibration error (MCE)",
                "brier_score": "Brier score"}
DISPARITY_LABELS = {"diff": "ECE difference |a - b|", "ratio": "ECE ratio (larger / smaller)"}
DEBIASED_DISPARITY_LABEL = "Excess ℓ2 ECE"
METRIC_MESSAGE = "The 'metric' parameter of calibration_error_chart must be one of {allowed}. Got {got!r} instead."


def calibration_error_chart(errors: pd.DataFrame, comparison: pd.DataFrame | None = None, *, metric: str = "l2_ece",
                            distance_measure: str = "diff", bound: float | None = None,
                            bound_label: str | None = None, reference_label: str = "Reference",
                            title: str | None = None, level: float | None = None, order=None):
    """A calibration error per subgroup as bars with error bars and, beside it, each subgroup's ECE disparity.

    Parameters
    ----------
    errors : DataFrame
        From :func:`fairness_core.calibration_errors` / ``CalibrationCounts.error_table()``:
        columns ``subgroup, size, small`` and `metric`; optionally ``small_reason``, ``note`` and
        ``<metric>_ci_low`` / ``<metric>_ci_high``.
    comparison : DataFrame, optional
        The ECE comparison table of ``calibration_disparity(..., reduction=None)`` (or a result's
        ``table``), one row per subgroup (reference ``'rest'``, ``'overall'`` or a named
        subgroup). Adds black diamonds for the reference ECE (with ``reference_value_ci_low/high``
        in the hover) on the ECE panel, and a second panel with the disparity of each subgroup:
        bars with ``disparity_ci_low/high`` error bars, small comparisons hatched (``small``,
        ``small_reason``), the rule's verdict in the hover (``verdict``) and a black star where
        ``excludes_parity`` is True. Ignored when a subgroup has several rows (pairwise). A table
        of debiased errors (``attrs["debiased"]``, the default of ``calibration_disparity``)
        compares ℓ2 ECEs: its panel is the excess ℓ2 ECE.
    metric : {'l2_ece', 'ece', 'squared_ce', 'mce', 'brier_score'}, default='l2_ece'
        The column drawn in the first panel; the reference diamonds are drawn only for the
        quantity the comparison compares ('l2_ece' for debiased errors, else 'ece').
    distance_measure : {'diff', 'ratio'}, default='diff'
        The units of the disparity panel.
    bound : float, optional
        The policy bound on the disparity, in its units (e.g. 0.1 for a difference of ECEs),
        drawn as a dashed line on the disparity panel with :func:`add_rule_line`.
    bound_label : str, optional
        Plain text beside that line (escaped).
    reference_label : str
        Legend text for the reference diamonds, e.g. "Rest of population" (escaped).
    title : str, optional
        Plain text (escaped).
    level : float in (0, 1), optional
        Confidence level for the hover text; default ``errors.attrs["ci"]`` (then the comparison's),
        "CI" when unknown. Disparity intervals are labelled with the comparison table's
        ``attrs["row_level"]`` when recorded (multiple-comparison adjustment).
    order : sequence of str, optional
        Subgroup names in the order to draw them, top first (e.g. largest ECE first); subgroups
        not listed follow in table order. Default: table order. Colours stay assigned by table
        order.

    Returns
    -------
    plotly.graph_objects.Figure
        One horizontal bar per subgroup in subgroup colours, horizontal error bars when the
        interval columns are present, small subgroups hatched and faded with a legend entry and
        the reason in the hover; an infinite ratio is left undrawn and written "∞" in the hover.
        The x axes start at 0 and fit the data (ECEs are small numbers).

    Raises
    ------
    ValueError
        If `metric` is unknown (``METRIC_MESSAGE``) or `level` is not None or a number in (0, 1).
    """
    if metric not in ERROR_LABELS:
        raise ValueError(METRIC_MESSAGE.format(allowed=list(ERROR_LABELS), got=metric))
    tables = [errors] + ([comparison] if comparison is not None else [])
    level = _level(level, tables, "calibration_error_chart")
    ci_name = _ci_name(level)
    palette = subgroup_colors(list(errors["subgroup"]))
    errors = _ordered(errors, order)
    subgroups = list(errors["subgroup"])
    colors = [palette[n] for n in subgroups]
    small, reasons = _small(errors)
    ticks = [_label(n, s) for n, s in zip(subgroups, small)]
    notes = (["" if not isinstance(n, str) else plot_text(n) for n in errors["note"]]
             if "note" in errors.columns else [""] * len(errors))
    comp = None
    if comparison is not None and len(comparison) and not comparison["subgroup"].duplicated().any():
        comp = comparison.set_index("subgroup").reindex(subgroups)
    label = ERROR_LABELS[metric]
    debiased = comparison is not None and bool(comparison.attrs.get("debiased", False))
    disparity_label = (DEBIASED_DISPARITY_LABEL if debiased and distance_measure == "diff"
                       else DISPARITY_LABELS.get(distance_measure, "ECE disparity"))
    # One figure from plain dictionaries, validated once: the panels as make_subplots lays them out (its figure,
    # a trace object per add_trace and add_vline were most of the chart's time).
    layout = _panels([label] + ([disparity_label] if comp is not None else []), 0.06)
    sizes = [_count(v) for v in errors["size"]]

    values, interval = _floats(errors[metric]), _interval(errors, metric)
    hover = [_hover(f"<b>{ticks[i]}</b>", f"{label}: {_estimate(values, interval, i, '.4f', ci_name)}",
                    f"size {sizes[i]}", notes[i], reasons[i]) for i in range(len(errors))]
    data = [_bars(values, ticks, label, _faded(_bar_marks(colors, small), small), _error_bars(values, interval), hover,
                  "")]
    right = _right_end(values, *(interval or ()))
    if comp is not None and metric == ("l2_ece" if debiased else "ece"):
        ref, ref_iv = _floats(comp["reference_value"]), _interval(comp, "reference_value")
        ref_name = plot_text(reference_label)
        data.append(dict(
            type="scatter", x=ref, y=ticks, mode="markers", name=ref_name, legendgroup="reference",
            marker={"symbol": "diamond", "size": 10, "color": "black"},
            hovertext=[_hover(f"<b>{ticks[i]}</b>", f"{ref_name}: {'ℓ2 ECE' if debiased else 'ECE'} {_estimate(ref, ref_iv, i, '.4f', ci_name)}")
                       for i in range(len(ref))],
            hovertemplate=HOVER, xaxis="x", yaxis="y"))
        right = _right_end(right, ref)
    layout["xaxis"]["range"] = [0, _axis_end(right)]

    any_small = bool(small.any())
    shapes = []
    if comp is not None:
        any_small = _disparity_panel(data, layout, shapes, comparison, comp, subgroups, ticks, colors, small, reasons,
                                     level, distance_measure, bound, bound_label) or any_small
    return _bar_panels_figure(data, layout, any_small=any_small, title=title, height=max(320, 28 * len(ticks) + 160),
                              shapes=shapes)


def _bars(x, ticks, name, marker, error, hover, panel: str) -> dict:
    """A panel's horizontal bars as a plain trace (`panel`: "" for the first, "2" for the second)."""
    bars = dict(type="bar", x=x, y=ticks, orientation="h", name=name, showlegend=False, marker=marker,
                hovertext=hover, hovertemplate=HOVER, xaxis=f"x{panel}", yaxis=f"y{panel}")
    if error is not None:
        bars["error_x"] = error
    return bars


def _disparity_panel(data, layout, shapes, comparison, comp, subgroups, ticks, colors, small, reasons, level,
                     distance_measure, bound, bound_label) -> bool:
    """The second panel: each subgroup's disparity, its interval, the rule line and the parity stars (added to
    `data`, `layout` and `shapes`); whether a comparison is small."""
    d = _floats(comp["disparity"])
    infinite = np.isinf(d)
    drawn = np.where(infinite, np.nan, d)
    d_iv = _interval(comp, "disparity")
    if d_iv is not None:
        d_iv = tuple(np.where(np.isinf(a), np.nan, a) for a in d_iv)
    d_name, adjusted = _comparison_ci(comparison, level, "calibration_error_chart")
    panel_small, panel_reasons = small, reasons
    if "small" in comp.columns:
        comp_small, comp_reasons = _small(comp)
        panel_small = small | comp_small
        panel_reasons = [cr if cs and cr else r for r, cr, cs in zip(reasons, comp_reasons, comp_small)]
    flagged = _flags(comp["excludes_parity"]) if "excludes_parity" in comp.columns else np.zeros(len(d), bool)
    verdicts = comp["verdict"].tolist() if "verdict" in comp.columns else [None] * len(d)
    against = comp["reference"].tolist() if "reference" in comp.columns else [""] * len(d)
    hover = []
    for i in range(len(d)):
        shown = "∞ (one ECE is 0)" if infinite[i] else _estimate(d, d_iv, i, ".4f", d_name)
        hover.append(_hover(
            f"<b>{ticks[i]}</b>" + (f" vs {plot_text(against[i])}" if isinstance(against[i], str) else ""),
            f"disparity {shown}" + (f": {PARITY_TEXT}" if flagged[i] else ""), adjusted,
            f"rule: {plot_text(verdicts[i])}" if isinstance(verdicts[i], str) else "", panel_reasons[i]))
    data.append(_bars(drawn, ticks, "disparity", _faded(_bar_marks(colors, panel_small), panel_small),
                      _error_bars(drawn, d_iv), hover, "2"))
    right = _right_end(drawn, *(d_iv or ()))
    ends = [right]
    if bound is not None and np.isfinite(bound):
        line, note = rule_line_parts(float(bound), bound_label, axis="x", position="bottom right", panel=2)
        shapes.append(line)
        if note is not None:
            layout["annotations"].append(note)
        ends.append([float(bound)])
    stars, star_x = _parity_trace(comparison, subgroups, ticks, right, "ECE", level, show_legend=True)
    if stars is not None:
        data.append({**stars, "xaxis": "x2", "yaxis": "y2"})
    end = _axis_end(np.concatenate([np.asarray(e, dtype=float) for e in ends] + [[star_x]]))
    layout["xaxis2"]["range"] = [0, end]
    return bool(panel_small.any())


def _faded(marker: dict, small) -> dict:
    """Bar marker with small subgroups' bars faded too (besides the hatching)."""
    small = np.asarray(small, dtype=bool)
    if not small.any():
        return marker
    return {**marker, "opacity": [SMALL_OPACITY + 0.2 if s else 1.0 for s in small]}


def _axis_end(right) -> float:
    """A little beyond the largest finite value (at least 0.05, so an all-zero panel still shows), and clear of the
    last tick: a tick label within 8 % of the end would hang over the panel's edge (and make Plotly grow the
    margin after drawing), so the end then moves 8 % past that tick. Ticks as Plotly places them on a linear axis
    of 3 to 12 ticks, whichever it picks for the panel's width: steps of 1, 2, 2.5 or 5 times a power of ten."""
    right = np.asarray(right, dtype=float)
    finite = right[np.isfinite(right)]
    top = float(finite.max()) if finite.size else 0.0
    end = max(0.05, top * 1.08)
    for _ in range(3):   # moving the end past one step's last tick can bring it near another step's
        magnitude = 10.0 ** math.floor(math.log10(end / 12.0))
        steps = [m * magnitude * 10 ** e for e in (0, 1, 2) for m in (1.0, 2.0, 2.5, 5.0)
                 if end / 12.0 <= m * magnitude * 10 ** e <= end / 3.0]
        lasts = [math.floor(end / step + 1e-9) * step for step in steps]
        near = [last for last in lasts if end - last < 0.08 * end]
        if not near:
            break
        end = max(near) + 0.08 * end
    return end
