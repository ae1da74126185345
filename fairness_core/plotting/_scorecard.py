"""The scorecard: one row per policy rule, its estimate and interval against the rule's band, coloured by verdict."""

from __future__ import annotations

from typing import Sequence

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
    from plotly.subplots import make_subplots

    verdicts = list(verdicts)
    if len(names) != len(verdicts) or (details is not None and len(details) != len(verdicts)):
        raise ValueError(NAMES_MESSAGE.format(names=len(names), verdicts=len(verdicts)))
    if not verdicts:
        return go.Figure(layout=dict(title=_title(title), height=120))
    n = len(verdicts)
    fig = make_subplots(rows=n, cols=1, vertical_spacing=min(0.35 / n, 0.08))
    for i, verdict in enumerate(verdicts, start=1):
        rule = verdict.rule
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
        fig.add_trace(go.Scatter(
            x=[x], y=[label], mode="markers", marker=dict(size=13 if shown else 1, color=color,
                                                          symbol="circle" if shown else "line-ew"),
            hovertext=[_hover(*lines)], hovertemplate=HOVER, showlegend=False, **err), row=i, col=1)
        # The estimate and the verdict in a column of their own, right of the row (never over its neighbours).
        fig.add_annotation(x=1, xref="x domain", xanchor="left", xshift=10, y=label, showarrow=False, align="left",
                           text=f"<b>{value:.3g}</b> {word}" if shown else word,
                           font=dict(color=color, size=12), row=i, col=1)
        # After the trace: Plotly adds shapes only to subplots that hold data.
        fig.add_vrect(x0=band[0], x1=band[1], fillcolor=PASS_FILL, line_width=0, layer="below", row=i, col=1)
        fig.add_vline(x=bound, line=dict(color=RULE_COLOR, width=1.5, dash="dash"), row=i, col=1)
        fig.update_xaxes(range=[low, high], row=i, col=1, showgrid=False, zeroline=False, ticks="outside",
                         ticklen=3, nticks=6, tickfont=dict(size=9, color="#666666"))
        fig.update_yaxes(row=i, col=1, automargin=True, tickfont=dict(size=13))
    fig.update_layout(title=_title(title), height=ROW_HEIGHT * n + (90 if title else 60),
                      margin=dict(t=50 if title else 20, b=20, r=VERDICT_WIDTH), plot_bgcolor="white")
    return fig
