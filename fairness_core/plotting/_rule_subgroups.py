"""Each rule per subgroup: every comparison a rule's value is reduced from, with its interval, against its band."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd

from ._common import (ERROR_COLOR, HOVER, RULE_COLOR, SMALL_OPACITY, _comparison_ci, _error_bars, _estimate, _finite,
                      _floats, _hover, _interval, _small, _title, plot_text)
from ._margins import fit_margins
from ._scorecard import PASS_FILL, STATUS_STYLE, _kind, _parity

ROW_HEIGHT = 20      # px per subgroup
HEAD_HEIGHT = 44     # px above each facet: the tick labels of the facet above it, then the facet's title
OTHER_COLOR = "#555555"
RESULTS_MESSAGE = ("rule_subgroups_chart needs one result and one name per verdict: got {results} results and "
                   "{names} names for {verdicts} verdicts.")


def _comparisons(result):
    """The per-comparison table a verdict's value is reduced from, the column that holds it ('score' for ratio
    scores, 'disparity' for disparities and calibration disparities) and the comparison that decides it (the
    result's ``worst``), or (None, None, None) when the result has no such table."""
    source = getattr(result, "disparity", None)
    if source is not None and isinstance(getattr(source, "table", None), pd.DataFrame):
        result = source   # a calibration disparity: its comparisons are its DisparityResult's
    table = getattr(result, "table", None)
    if not isinstance(table, pd.DataFrame) or "subgroup" not in table.columns:
        return None, None, None
    column = next((c for c in ("score", "disparity") if c in table.columns), None)
    return (table, column, getattr(result, "worst", None)) if column else (None, None, None)


def _deciders(table: pd.DataFrame, worst) -> np.ndarray:
    """True on the row that decides the rule: `worst` is a subgroup (ratio scores) or (subgroup, reference)."""
    if worst is None:
        return np.zeros(len(table), dtype=bool)
    if isinstance(worst, tuple):
        match = table["subgroup"].astype(str) == str(worst[0])
        if "reference" in table.columns and len(worst) > 1:
            match &= table["reference"].astype(str) == str(worst[1])
        return match.to_numpy()
    return (table["subgroup"].astype(str) == str(worst)).to_numpy()


def _row_labels(table: pd.DataFrame) -> list[str]:
    """Each comparison's name: its subgroup, or "A vs B" when the comparisons have more than one reference
    (pairwise)."""
    subgroups = [plot_text(s) for s in table["subgroup"]]
    if "reference" not in table.columns or table["reference"].nunique() <= 1:
        return subgroups
    return [f"{s} vs {plot_text(r)}" for s, r in zip(subgroups, table["reference"])]


def _facet(verdict, result, subject: str) -> dict:
    """One facet's rows: labels, values, interval (or None), which row decides, small flags and hover lines, the
    interval's name; from the result's comparisons, else one row of the verdict's own value."""
    table, column, worst = _comparisons(result)
    if table is None:
        values = np.array([float(verdict.value)])
        interval = (np.array([float(verdict.ci_low)]), np.array([float(verdict.ci_high)]))
        if not (_finite(verdict.ci_low) and _finite(verdict.ci_high)):
            interval = None
        return dict(labels=[plot_text(subject or "all subgroups")], values=values, interval=interval,
                    decides=np.array([True]), small=np.array([False]), small_lines=[""], notes=[""],
                    ci_name="CI", adjust="")
    ci_name, adjust = _comparison_ci(table, None, "rule_subgroups_chart")
    small, small_lines = _small(table)
    notes = [plot_text(n) if isinstance(n, str) else "" for n in table.get("note", pd.Series([""] * len(table)))]
    return dict(labels=_row_labels(table), values=_floats(table[column]), interval=_interval(table, column),
                decides=_deciders(table, worst), small=small, small_lines=small_lines,
                notes=notes, ci_name=ci_name, adjust=adjust)


def _ranges(verdicts, facets) -> dict:
    """One x range per kind of rule (ratios, gaps) holding every facet's parity, bound, finite values and interval
    ends, padded: facets of one kind share a scale."""
    spans = {}
    for verdict, facet in zip(verdicts, facets):
        xs = [_parity(verdict.rule), float(verdict.rule.bound)] + list(facet["values"])
        if facet["interval"] is not None:
            xs += list(facet["interval"][0]) + list(facet["interval"][1])
        xs = [x for x in xs if math.isfinite(x)]
        kind = _kind(verdict.rule)
        low, high = spans.get(kind, (min(xs), max(xs)))
        spans[kind] = (min([low] + xs), max([high] + xs))
    return {kind: (low - 0.05 * (high - low or 1.0), high + 0.05 * (high - low or 1.0))
            for kind, (low, high) in spans.items()}


def rule_subgroups_chart(verdicts: Sequence, results: Sequence, names: Sequence[str], *,
                         details: Sequence[str] | None = None, title: str | None = None):
    """Each rule per subgroup: one facet per policy verdict, each comparison its value is reduced from, with its
    interval, against the rule's band.

    The scorecard (:func:`scorecard_chart`) shows a rule's one value: the largest disparity, or the smallest ratio
    score, over the subgroups. This view shows every subgroup's value behind it, as dalex's ``fairness_check`` plot
    does (Wiśniewski & Biecek 2022, "fairmodels: a flexible tool for bias detection, visualization, and mitigation
    in binary classification models", The R Journal 14(1)), with the intervals that plot lacks. Facets are stacked
    top to bottom in the verdicts' order, subgroups on the y axis in the result's order; the estimate is a dot with
    its interval as whiskers; the band where the rule passes is shaded from parity (1 for ratios and ratio scores,
    0 for gaps) to the bound, which is a dashed line; the subgroup (comparison) that decides the rule, the result's
    ``worst``, is a larger dot in the verdict's colour with its name in bold. Small subgroups are open and faded.
    Facets of one kind of rule share one x scale. Nothing is computed here: every number is read from the results.

    Parameters
    ----------
    verdicts : sequence of Verdict
        Read: ``rule`` (``metric``, ``distance_measure``, ``bound``, ``direction``), ``value``, ``ci_low``,
        ``ci_high``, ``status``.
    results : sequence of result objects
        One per verdict: the result the verdict was evaluated on. Its comparisons are read from ``table``
        (columns ``subgroup``, optionally ``reference``, and ``score`` (``RatioScoresResult``) or ``disparity``
        (``DisparityResult``), with ``<column>_ci_low`` / ``_ci_high``, ``small``, ``small_reason``, ``note``),
        or from ``disparity.table`` (``CalibrationDisparityResult``); its ``worst`` (a subgroup, or
        (subgroup, reference)) names the comparison that decides the rule. A result without such a table (a bias
        AUC score, or None) gives one row: the verdict's own value and interval.
    names : sequence of str
        Plain-text facet titles, one per verdict (escaped), e.g. "Gap in false positive rates".
    details : sequence of str, optional
        Whom each verdict's value is about (plain text, escaped): the label of a facet of one row.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        One scatter trace per facet (x: the values, y: the comparisons' names), with ``error_x`` when the
        comparisons have intervals; annotations named ``'facet'`` (the rule's name, its bound and its verdict); a rect
        (band) and a dashed line (bound) per facet. An empty figure for no verdict.

    Raises
    ------
    ValueError
        When `results` or `names` (or `details`) is not one per verdict (``RESULTS_MESSAGE``).
    """
    import plotly.graph_objects as go

    verdicts, results = list(verdicts), list(results)
    if len(results) != len(verdicts) or len(names) != len(verdicts) or (
            details is not None and len(details) != len(verdicts)):
        raise ValueError(RESULTS_MESSAGE.format(results=len(results), names=len(names), verdicts=len(verdicts)))
    if not verdicts:
        return go.Figure(layout=dict(title=_title(title), height=120))
    facets = [_facet(v, r, "" if details is None else details[i]) for i, (v, r) in enumerate(zip(verdicts, results))]
    ranges = _ranges(verdicts, facets)
    heights = [HEAD_HEIGHT + ROW_HEIGHT * len(f["labels"]) for f in facets]
    total = sum(heights)
    top_margin = 40 if title else 0
    layout = dict(height=total + top_margin + 10, margin=dict(t=top_margin, b=10, l=10, r=20), plot_bgcolor="white",
                  showlegend=False)
    if title:
        layout["title"] = _title(title)
    data, shapes, annotations = [], [], []
    for i, (verdict, facet) in enumerate(zip(verdicts, facets), start=1):
        rule = verdict.rule
        x_axis, y_axis = f"x{'' if i == 1 else i}", f"y{'' if i == 1 else i}"
        color, word = STATUS_STYLE.get(verdict.status, STATUS_STYLE["not_assessable"])
        parity, bound = _parity(rule), float(rule.bound)
        values, decides, small = facet["values"], facet["decides"], facet["small"]
        shown = [v if math.isfinite(v) else None for v in values]
        ends = ["" if math.isfinite(v) else " (∞)" if math.isinf(v) else " (undefined)" for v in values]
        ticks = [f"<b>{label}</b>{end}" if d else f"{label}{end}"
                 for label, end, d in zip(facet["labels"], ends, decides)]
        hover = [_hover(f"<b>{label}</b>", plot_text(names[i - 1]),
                        _estimate(values, facet["interval"], j, ".4g", facet["ci_name"]), facet["adjust"],
                        "decides the rule" if d else "", line, note)
                 for j, (label, d, line, note) in enumerate(zip(facet["labels"], decides, facet["small_lines"],
                                                                facet["notes"]))]
        marker = dict(size=[12 if d else 8 for d in decides], color=[color if d else OTHER_COLOR for d in decides],
                      symbol=["circle-open" if s and not d else "circle" for s, d in zip(small, decides)],
                      opacity=[SMALL_OPACITY if s and not d else 1.0 for s, d in zip(small, decides)],
                      line=dict(width=[1.5 if d else 0 for d in decides], color="#000000"))
        trace = dict(type="scatter", x=shown, y=facet["labels"], xaxis=x_axis, yaxis=y_axis, mode="markers",
                     marker=marker, hovertext=hover, hovertemplate=HOVER, showlegend=False)
        bars = _error_bars(values, facet["interval"], ERROR_COLOR)
        if bars is not None:
            trace["error_x"] = bars
        data.append(trace)
        top = 1.0 - sum(heights[:i - 1]) / total
        bottom = 1.0 - sum(heights[:i]) / total
        plot_top = top - HEAD_HEIGHT / total
        sign = "≤" if rule.direction == "max" else "≥"
        # The facet's title: the rule's name, its bound (the dashed line) and its verdict.
        annotations.append(dict(name="facet", x=0, xref="paper", xanchor="left", y=plot_top, yref="paper",
                                yanchor="bottom", yshift=4, showarrow=False, align="left", font=dict(size=12),
                                text=f"<b>{plot_text(names[i - 1])}</b>  <span style='color:{RULE_COLOR}'>passes "
                                     f"if {sign} {bound:g}</span>  <span style='color:{color}'><b>{word}</b></span>"))
        band = sorted((parity, bound))
        shapes.append(dict(type="rect", x0=band[0], x1=band[1], xref=x_axis, y0=0, y1=1, yref=f"{y_axis} domain",
                           fillcolor=PASS_FILL, line=dict(width=0), layer="below"))
        shapes.append(dict(type="line", x0=bound, x1=bound, xref=x_axis, y0=0, y1=1, yref=f"{y_axis} domain",
                           line=dict(color=RULE_COLOR, width=1.5, dash="3px,2px")))
        low, high = ranges[_kind(rule)]
        layout[f"xaxis{'' if i == 1 else i}"] = dict(
            anchor=y_axis, domain=[0.0, 1.0], range=[low, high], showgrid=True, gridcolor="#EEEEEE", zeroline=False,
            nticks=6, ticks="outside", tickfont=dict(size=10), showline=True, linecolor="#BBBBBB")
        layout[f"yaxis{'' if i == 1 else i}"] = dict(
            anchor=x_axis, domain=[bottom, plot_top], automargin=True, type="category",
            range=[len(facet["labels"]) - 0.5, -0.5],   # top to bottom, one ROW_HEIGHT each (no autorange padding)
            tickmode="array", tickvals=facet["labels"], ticktext=ticks, tickfont=dict(size=11))
    return fit_margins(go.Figure(data=data, layout=dict(layout, shapes=shapes, annotations=annotations)))
