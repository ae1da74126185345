"""The scorecard: one row per policy rule, its estimate and interval against the rule's band, coloured by verdict."""

from __future__ import annotations

from typing import Sequence

from ._common import ERROR_COLOR, HOVER, RULE_COLOR, _finite, _hover, _title, plot_text
from ._margins import NARROWEST, text_width

# Verdict colours (colour-blind-safe: Okabe-Ito vermillion, orange, bluish green, grey) and words.
STATUS_STYLE = {"fail": ("#D55E00", "Fail"), "inconclusive": ("#E69F00", "Inconclusive"),
                "pass": ("#009E73", "Pass"), "not_assessable": ("#7F7F7F", "Not assessable")}
PASS_FILL = "rgba(0, 158, 115, 0.12)"
# A row is its name on one or two lines of NAME_HEIGHT (two when the name and whom it is about would be wider than
# NAME_WIDTH, the chart at a 1,024-px window less its left margin), then its bar: 8 rules fit above the fold at
# 1,024 x 768 (tests/browser/test_scorecard_browser.py).
BAR_HEIGHT = 22
NAME_HEIGHT = 16
NAME_WIDTH = NARROWEST - 15
NAME_COLOR = "#31333F"   # the app's text colour: the names read as text, not as a faded label
MARGIN = 4   # px above and below the rows
VERDICT_WIDTH = 215   # px right of the rows for "0.123 (0.101–0.160) Inconclusive"
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


def _kind(rule) -> str:
    """The scale a rule's row is drawn on: 'ratio' (parity 1: ratios and ratio scores) or 'gap' (parity 0)."""
    return "ratio" if _parity(rule) == 1.0 else "gap"


def _shared_ranges(verdicts) -> dict:
    """One x range per kind of rule (:func:`_kind`), holding every row of that kind's parity, bound, estimate and
    interval: rows of one kind share a scale, so their bars can be compared by eye."""
    spans = {}
    for verdict in verdicts:
        low, high = _span(verdict)
        kind = _kind(verdict.rule)
        old = spans.get(kind, (low, high))
        spans[kind] = (min(old[0], low), max(old[1], high))
    return spans


def _name_lines(label: str, whom: str) -> tuple[str, int]:
    """A row's name (escaped `label`, bold) and whom it is about (escaped, grey), and how many lines they take: one
    when they fit in ``NAME_WIDTH`` pixels (:func:`text_width`), else whom on a line of its own."""
    if not whom:
        return f"<b>{label}</b>", 1
    lines = 1 if text_width(f"{label}  {whom}") <= NAME_WIDTH else 2
    return f"<b>{label}</b>" + ("  " if lines == 1 else "<br>") + f"<span style='color:#555555'>{whom}</span>", lines


def scorecard_chart(verdicts: Sequence, names: Sequence[str], *, details: Sequence[str] | None = None,
                    changes: Sequence | None = None, title: str | None = None):
    """One row per policy verdict: the estimate and its interval against the rule's pass band.

    Rows of one kind share one x scale (ratios and ratio scores, whose parity is 1; gaps, whose parity is 0), so
    their bars compare by eye; the axes carry no tick labels, which stacked rows would put under the wrong row:
    every number is printed where it belongs instead. Each row has its name (and for whom the value is, from
    `details`) on a line above its bar (whom on a second line when both would not fit at a 1,024-px window); the band where the rule passes shaded green from parity to the bound; the
    bound a dashed line labelled with its value ("≤ 0.1"); the estimate a dot coloured by the verdict (fail,
    inconclusive, pass, not assessable) with its interval as an error bar; and right of the row the estimate, its
    interval and the verdict in words. The hover adds the technical name (the rule's label) and the verdict's
    sentence.

    Parameters
    ----------
    verdicts : sequence of Verdict
        Read: ``rule`` (``metric``, ``distance_measure``, ``bound``, ``direction``, ``label``),
        ``value``, ``ci_low``, ``ci_high``, ``status``, ``sentence``. Drawn top to bottom.
    names : sequence of str
        Plain-text row labels, one per verdict (escaped), e.g. "Gap in false positive rates".
    details : sequence of str, optional
        Whom each row's value is about, e.g. "C against everyone else" (plain text, escaped): beside its name
        and in the hover.
    changes : sequence of ChangeVerdict or None, optional
        For a candidate model, each row's change from the baseline in the same quantity (``fc.model_changes``;
        read: ``worsening``, ``status``, ``sentence``), or None where the gate judged none: a line under the row's
        value, "vs baseline: worse by 0.079 Fail", coloured by the change's verdict (the "vs baseline" column),
        its sentence (which names the baseline) in the hover.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Height ``BAR_HEIGHT`` plus ``NAME_HEIGHT`` per line of its name per row, plus margins; each row's y category
        is its (escaped) name; annotations named
        ``'rule'`` (name and whom), ``'value'`` (estimate, interval, verdict), ``'bound'`` and ``'change'`` (the
        change from the baseline; a row with one is ``NAME_HEIGHT`` taller). An empty figure for no verdict.

    Raises
    ------
    ValueError
        When `names` (or `details`) is not one per verdict (``NAMES_MESSAGE``).
    """
    import plotly.graph_objects as go

    verdicts = list(verdicts)
    if len(names) != len(verdicts) or any(x is not None and len(x) != len(verdicts) for x in (details, changes)):
        raise ValueError(NAMES_MESSAGE.format(names=len(names), verdicts=len(verdicts)))
    if not verdicts:
        return go.Figure(layout=dict(title=_title(title), height=120))
    # One figure from plain dictionaries, validated once: the rows are stacked axes (what make_subplots would lay
    # out), and add_vrect / add_vline per row would validate every shape again (most of the chart's time).
    labels = [plot_text(name) for name in names]
    heads = [_name_lines(label, plot_text(details[i]) if details is not None and details[i] else "")
             for i, label in enumerate(labels)]
    changes = list(changes) if changes is not None else [None] * len(verdicts)
    heights = [BAR_HEIGHT + NAME_HEIGHT * (lines + (change is not None)) for (_, lines), change in zip(heads, changes)]
    plot_height = sum(heights)
    ranges = _shared_ranges(verdicts)
    data, shapes, annotations = [], [], []
    layout = dict(height=plot_height + (50 if title else MARGIN) + MARGIN,
                  margin=dict(t=50 if title else MARGIN, b=MARGIN, l=10, r=VERDICT_WIDTH), plot_bgcolor="white")
    if title:
        layout["title"] = _title(title)
    for i, verdict in enumerate(verdicts, start=1):
        rule = verdict.rule
        x_axis, y_axis = f"x{'' if i == 1 else i}", f"y{'' if i == 1 else i}"
        color, word = STATUS_STYLE.get(verdict.status, STATUS_STYLE["not_assessable"])
        low, high = ranges[_kind(rule)]
        parity, bound = _parity(rule), float(rule.bound)
        band = sorted((parity, bound))
        label, (head, lines) = labels[i - 1], heads[i - 1]
        whom = plot_text(details[i - 1]) if details is not None and details[i - 1] else ""
        value = float(verdict.value)
        shown = _finite(value)
        interval = shown and _finite(verdict.ci_low) and _finite(verdict.ci_high)
        err = {}
        if interval:
            err = dict(error_x=dict(type="data", symmetric=False, array=[float(verdict.ci_high) - value],
                                    arrayminus=[value - float(verdict.ci_low)], color=ERROR_COLOR, thickness=1.5))
        change = changes[i - 1]
        hover = [f"<b>{label}</b>", whom, plot_text(rule.label), plot_text(verdict.sentence),
                 plot_text(change.sentence) if change is not None else ""]
        x = value if shown else (low + high) / 2
        data.append(dict(type="scatter", x=[x], y=[label], xaxis=x_axis, yaxis=y_axis, mode="markers",
                         marker=dict(size=12 if shown else 1, color=color, symbol="circle" if shown else "line-ew"),
                         hovertext=[_hover(*hover)], hovertemplate=HOVER, showlegend=False, **err))
        top = 1.0 - sum(heights[:i - 1]) / plot_height
        bottom = 1.0 - sum(heights[:i]) / plot_height
        # The row's name (and for whom) above its bar, across the row: never squeezed by the bars.
        annotations.append(dict(name="rule", x=0, xref="paper", xanchor="left", y=top, yref="paper", yanchor="top",
                                showarrow=False, align="left", text=head, font=dict(size=12, color=NAME_COLOR)))
        # The estimate, its interval and the verdict in a column of their own, right of the row.
        text = (f"<b>{value:.3g}</b>" + (f" ({float(verdict.ci_low):.3g}–{float(verdict.ci_high):.3g})"
                                          if interval else "") + f" {word}") if shown else word
        annotations.append(dict(name="value", x=1, xref=f"{x_axis} domain", xanchor="left", xshift=10, y=label,
                                yref=y_axis, showarrow=False, align="left", text=text, font=dict(color=color, size=12)))
        # The pass band, shaded, and the bound, dashed and labelled with its value (the axis has no ticks: every
        # number is printed where it belongs).
        shapes.append(dict(type="rect", x0=band[0], x1=band[1], xref=x_axis, y0=0, y1=1, yref=f"{y_axis} domain",
                           fillcolor=PASS_FILL, line=dict(width=0), layer="below"))
        shapes.append(dict(type="line", x0=bound, x1=bound, xref=x_axis, y0=0, y1=1, yref=f"{y_axis} domain",
                           line=dict(color=RULE_COLOR, width=1.5, dash="3px,2px")))
        if change is not None:   # the change from the baseline, under the row's value
            c_color, c_word = STATUS_STYLE.get(change.status, STATUS_STYLE["not_assessable"])
            worse = float(change.worsening)
            how = ("no change" if worse == 0 else f"{'worse' if worse > 0 else 'better'} by {abs(worse):.3g}"
                   if _finite(worse) else "not assessable")
            annotations.append(dict(name="change", x=1, xref=f"{x_axis} domain", xanchor="left", xshift=10, y=0,
                                    yref=f"{y_axis} domain", yanchor="top", showarrow=False, align="left",
                                    text=f"vs baseline: {how} {c_word}",
                                    font=dict(color=c_color, size=11)))
        annotations.append(dict(name="bound", x=bound, xref=x_axis, xanchor="left", xshift=3, y=0,
                                yref=f"{y_axis} domain", yanchor="bottom", showarrow=False,
                                text=f"{'≤' if rule.direction == 'max' else '≥'} {bound:g}",
                                font=dict(size=10, color=RULE_COLOR)))
        layout[f"xaxis{'' if i == 1 else i}"] = dict(
            anchor=y_axis, domain=[0.0, 1.0], range=[low, high], showgrid=False, zeroline=False,
            showticklabels=False, ticks="", showline=True, linecolor="#DDDDDD")
        layout[f"yaxis{'' if i == 1 else i}"] = dict(
            anchor=x_axis, domain=[bottom + NAME_HEIGHT * (change is not None) / plot_height,
                                   top - NAME_HEIGHT * lines / plot_height], showticklabels=False, ticks="")
    return go.Figure(data=data, layout=dict(layout, shapes=shapes, annotations=annotations))
