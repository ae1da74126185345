"""Rate chart: rates per subgroup beside their reference."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ._common import (HOVER, LEVEL_MESSAGE, PARITY_TEXT, RATE_LABELS, SMALL_TEXT, _bar_marks, _bar_panels_figure,
                      _ci_name, _comparison_ci, _count, _error_bars, _estimate, _flags, _floats, _hover, _interval,
                      _label, _level, _ordered, _panels, _parity_trace, _right_end, _small, plot_text, subgroup_colors)


def rate_chart(rates: pd.DataFrame, metrics: Sequence[str], references: dict | None = None,
               *, reference_label: str = "Reference", title: str | None = None, labels: dict | None = None,
               level: float | None = None, order: Sequence[str] | None = None):
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
    order : sequence of str, optional
        Subgroup names in the order to draw them, top first (e.g. largest disparity first);
        subgroups not listed follow in table order. Default: table order. Colours stay assigned
        by table order.

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
    names = {**RATE_LABELS, **(labels or {})}
    metrics = list(metrics)
    references = references or {}
    level = _level(level, [rates, *[r for r in references.values() if r is not None]], "rate_chart")
    ci_name = _ci_name(level)
    colors = subgroup_colors(list(rates["subgroup"]))
    rates = _ordered(rates, order)
    subgroups = list(rates["subgroup"])
    small, reasons = _small(rates)
    ticks = [_label(n, s) for n, s in zip(subgroups, small)]
    notes = ["" if not isinstance(n, str) else plot_text(n) for n in rates["note"]] if "note" in rates.columns \
        else [""] * len(rates)
    sizes = [_count(v) for v in rates["size"]]
    ref_name = plot_text(reference_label)
    # One figure from plain dictionaries, validated once: the panels as make_subplots lays them out (its figure and
    # a trace object per add_trace were most of the chart's time: 34 to 9 ms for three rates of nine subgroups).
    layout = _panels([plot_text(names.get(m, m)) for m in metrics], 0.04)
    data = []
    parity_legend, any_small = True, bool(small.any())
    for c, metric in enumerate(metrics, start=1):
        suffix = "" if c == 1 else str(c)
        axes = {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}
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
                        f"size {sizes[i]}", notes[i], disparity_lines[i], panel_reasons[i])
                 for i in range(len(rates))]
        bars = dict(type="bar", x=values, y=ticks, orientation="h", name=title_m, showlegend=False,
                    marker=_bar_marks([colors[n] for n in subgroups], panel_small), hovertext=hover,
                    hovertemplate=HOVER, **axes)
        error = _error_bars(values, interval)
        if error is not None:
            bars["error_x"] = error
        data.append(bars)
        right = _right_end(values, *(interval or ()))
        if comp is not None:
            ref_values, ref_iv = _floats(comp["reference_value"]), _interval(comp, "reference_value")
            data.append(dict(
                type="scatter", x=ref_values, y=ticks, mode="markers", name=ref_name,
                showlegend=(c == 1), legendgroup="reference",
                marker={"symbol": "diamond", "size": 10, "color": "black"},
                hovertext=[_hover(f"<b>{ticks[i]}</b>",
                                  f"{ref_name}: {_estimate(ref_values, ref_iv, i, '.4f', ci_name)}")
                           for i in range(len(rates))],
                hovertemplate=HOVER, **axes))
            right = _right_end(right, ref_values)
        stars, star_x = _parity_trace(ref if comp is not None else None, subgroups, ticks, right, title_m, level,
                                      show_legend=parity_legend)
        if stars is not None:
            data.append({**stars, **axes})
        parity_legend = parity_legend and not np.isfinite(star_x)
        layout[f"xaxis{suffix}"]["range"] = [0, max(1.02, star_x + 0.03)]
        any_small = any_small or bool(panel_small.any())
    return _bar_panels_figure(data, layout, any_small=any_small, title=title, height=max(320, 28 * len(ticks) + 160))
