"""The scorecard: one row per policy rule, its estimate and interval against the rule's band, coloured by verdict."""

from __future__ import annotations

from typing import Sequence

from ._margins import fit_margins
from ._common import ERROR_COLOR, HOVER, RULE_COLOR, _finite, _hover, _title, plot_text

# Verdict colours (colour-blind-safe: Okabe-Ito vermillion, orange, bluish green, grey) and words.
STATUS_STYLE = {"fail": ("#D55E00", "Fail"), "inconclusive": ("#E69F00", "Inconclusive"),
                "pass": ("#009E73", "Pass"), "not_assessable": ("#7F7F7F", "Not assessable")}
PASS_FILL = "rgba(0, 158, 115, 0.12)"
ROW_HEIGHT = 46
VERDICT_WIDTH = 150   # px right of the rows for "0.123 Inconclusive"
NAMES_MESSAGE = "scorecard_chart needs one name per verdict: got {names} names for {verdicts} verdicts."


def _parity(rule) -> float:
    """The value of no disparity: 1 for a ratio or a score, 0 for a difference or the Theil index."""
    if rule.metric in ("p_percent_score", "equal_opportunity_score", "bias_auc_score"):
        return 1.0
    return 1.0 if rule.distance_measure == "ratio" else 0.0


def _span(verdict) -> tuple[float, float]:
    """An x range holding parity, the bound, the estimate and its interval, with room for the value's label."""
    rule = verdict.rule
    xs = [_parity(rule), float(rule.bound)] + [float(x) for x in (verdict.value, verdict.ci_low, verdict.ci_high)
                                                if _finite(x)]
    low, high = min(xs), max(xs)
    pad = 0.06 * (high - low or 1.0)
    return low - pad, high + pad


def scorecard_chart(verdicts: Sequence, names: Sequence[str], *, details: Sequence[str] | None = None,
                    title: str | None = None):
    """One row per policy verdict: the estimate and its interval against the rule's pass band.

    Each row has its own x axis (the rules have different units): the band where the rule passes is
    shaded green from the value of parity to the bound, the bound is a line, and the estimate is a
    dot coloured by the verdict (fail, inconclusive, pass, not assessable) with its interval as an
    error bar and the verdict beside it. The row's label is the rule's plain name; the hover adds
    the technical name (the rule's label) and the verdict's sentence.

    Parameters
    ----------
    verdicts : sequence of Verdict
        Read: ``rule`` (``metric``, ``distance_measure``, ``bound``, ``direction``, ``label``),
        ``value``, ``ci_low``, ``ci_high``, ``status``, ``sentence``. Drawn top to bottom.
    names : sequence of str
        Plain-text row labels, one per verdict (escaped), e.g. "Gap in false positive rates".
    details : sequence of str, optional
        One more plain-text line per row for the hover, e.g. whom the value is about (escaped).
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Height ``ROW_HEIGHT`` per row plus margins; an empty figure for no verdict.

    Raises
    ------
    ValueError
        When `names` (or `details`) is not one per verdict (``NAMES_MESSAGE``).
    """
    import plotly.graph_objects as go

    verdicts = list(verdicts)
    if len(names) != len(verdicts) or (details is not None and len(details) != len(verdicts)):
        raise ValueError(NAMES_MESSAGE.format(names=len(names), verdicts=len(verdicts)))
    if not verdicts:
        return go.Figure(layout=dict(title=_title(title), height=120))
    # One figure from plain dictionaries, validated once: the rows are stacked axes (what make_subplots would lay
    # out), and add_vrect / add_vline per row would validate every shape again (most of the chart's time).
    n = len(verdicts)
    spacing = min(0.35 / n, 0.08)
    height = (1.0 - spacing * (n - 1)) / n
    data, shapes, annotations = [], [], []
    layout = dict(height=ROW_HEIGHT * n + (90 if title else 60),
                  margin=dict(t=50 if title else 20, b=20, r=VERDICT_WIDTH), plot_bgcolor="white")
    if title:
        layout["title"] = _title(title)
    for i, verdict in enumerate(verdicts, start=1):
        rule = verdict.rule
        x_axis, y_axis = f"x{'' if i == 1 else i}", f"y{'' if i == 1 else i}"
        color, word = STATUS_STYLE.get(verdict.status, STATUS_STYLE["not_assessable"])
        low, high = _span(verdict)
        parity, bound = _parity(rule), float(rule.bound)
        band = sorted((parity, bound))
        label = plot_text(names[i - 1])
        value = float(verdict.value)
        shown = _finite(value)
        err = {}
        if shown and _finite(verdict.ci_low) and _finite(verdict.ci_high):
            err = dict(error_x=dict(type="data", symmetric=False, array=[float(verdict.ci_high) - value],
                                    arrayminus=[value - float(verdict.ci_low)], color=ERROR_COLOR, thickness=1.5))
        lines = [f"<b>{label}</b>", plot_text(rule.label), plot_text(verdict.sentence)]
        if details is not None and details[i - 1]:
            lines.insert(1, plot_text(details[i - 1]))
        x = value if shown else (low + high) / 2
        data.append(dict(type="scatter", x=[x], y=[label], xaxis=x_axis, yaxis=y_axis, mode="markers",
                         marker=dict(size=13 if shown else 1, color=color, symbol="circle" if shown else "line-ew"),
                         hovertext=[_hover(*lines)], hovertemplate=HOVER, showlegend=False, **err))
        # The estimate and the verdict in a column of their own, right of the row (never over its neighbours).
        annotations.append(dict(x=1, xref=f"{x_axis} domain", xanchor="left", xshift=10, y=label, yref=y_axis,
                                showarrow=False, align="left", text=f"<b>{value:.3g}</b> {word}" if shown else word,
                                font=dict(color=color, size=12)))
        # The pass band, shaded, and the bound, dashed, across the row's height.
        shapes.append(dict(type="rect", x0=band[0], x1=band[1], xref=x_axis, y0=0, y1=1, yref=f"{y_axis} domain",
                           fillcolor=PASS_FILL, line=dict(width=0), layer="below"))
        shapes.append(dict(type="line", x0=bound, x1=bound, xref=x_axis, y0=0, y1=1, yref=f"{y_axis} domain",
                           line=dict(color=RULE_COLOR, width=1.5, dash="dash")))
        top = 1.0 - (i - 1) * (height + spacing)
        layout[f"xaxis{'' if i == 1 else i}"] = dict(
            anchor=y_axis, domain=[0.0, 1.0], range=[low, high], showgrid=False, zeroline=False, ticks="outside",
            ticklen=3, nticks=6, tickfont=dict(size=9, color="#666666"))
        layout[f"yaxis{'' if i == 1 else i}"] = dict(anchor=x_axis, domain=[max(top - height, 0.0), top],
                                                     automargin=True, tickfont=dict(size=13))
    return fit_margins(go.Figure(data=data, layout=dict(layout, shapes=shapes, annotations=annotations)))
