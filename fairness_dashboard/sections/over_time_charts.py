"""The Over time page's charts: the verdict strip, one chart per rule (its estimate per period with the interval and
the rule's bound) and the subgroups' rates per period, from a ``fairness_core.OverTime``. Plotly is imported inside
each function."""

from __future__ import annotations

import numpy as np
import pandas as pd

import fairness_core as fc
from fairness_core.plotting import STATUS_COLORS, plot_text, subgroup_colors

from ..presentation import formats, labels

STATUS_ORDER = ("fail", "inconclusive", "pass", "not_assessable")
BAND_OPACITY = 0.10
DISTANCE_WORDS = {"diff": "difference", "ratio": "ratio"}
LEFT_OUT_SHOWN = 2   # reasons a value leaves subgroups out, quoted in a hover


def rule_name(rule) -> str:
    """The rule's label in plain words (``>=`` as ``≥``)."""
    return (rule.label or rule.name).replace(">=", "≥").replace("<=", "≤")


def strip_label(rule, width: int = 34) -> str:
    """A rule's row name in the verdict strip: its label, escaped for Plotly, on lines of about `width` characters
    (a long label would leave the strip no width on a narrow screen)."""
    lines, line = [], ""
    for word in rule_name(rule).split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return "<br>".join(plot_text(part) for part in [*lines, line])


def _hover_lines(row, rule_words: str) -> str:
    """A period's hover: its label, verdict, value with interval, rows and what the value leaves out."""
    lines = [f"<b>{plot_text(row['period'])}</b>", plot_text(labels.STATUS_WORDS[row["status"]])]
    if np.isfinite(row["value"]):
        value = f"{plot_text(rule_words)} {formats.num(row['value'], 3)}"
        if row["level"] is not None and np.isfinite(row["ci_low"]):
            value += (f" ({formats.level_text(row['level'])} interval {formats.num(row['ci_low'], 3)}–"
                      f"{formats.num(row['ci_high'], 3)})")
        lines.append(value)
    lines.append(f"{int(row['rows']):,} rows in the period")
    if row["note"]:
        lines.append(plot_text(row["note"]))
    left = [part for part in str(row["left_out"]).split("; ") if part]
    if left:
        lines.append("left out: " + plot_text("; ".join(left[:LEFT_OUT_SHOWN]))
                     + (f" and {len(left) - LEFT_OUT_SHOWN} more" if len(left) > LEFT_OUT_SHOWN else ""))
    return "<br>".join(lines)


def _time_axis(axis: str, x: list) -> dict:
    """The shared x axis of every chart on the page: the same type and range."""
    if axis == "date":
        pad = (x[1] - x[0]) / 2 if len(x) > 1 else pd.Timedelta(days=1)
        return dict(type="date", range=[x[0] - pad, x[-1] + pad])
    return dict(type="category", categoryorder="array", categoryarray=x, range=[-0.5, len(x) - 0.5])


def verdict_strip(result: fc.OverTime, rules: list, x: list, axis: str):
    """Every rule's verdict per period as a strip of coloured squares, one row per rule.

    Parameters
    ----------
    result : OverTime
    rules : list of (str, Rule)
        (model or ``'labels'``, rule), in the order of the rows from the top.
    x : list
        Each period's x value (:func:`_axis`).
    axis : {'date', 'category'}

    Returns
    -------
    plotly.graph_objects.Figure
        One marker trace per status (legend: the status in words), hover: the period, verdict, value with its
        interval, rows, what it leaves out.
    """
    import plotly.graph_objects as go

    names = [strip_label(rule) for _, rule in rules]
    size = int(np.clip(360 / max(len(x), 1), 4, 13))   # squares that do not merge on a narrow screen
    fig = go.Figure()
    table = [(name, row) for (owner, rule), name in zip(rules, names)
             for _, row in result.series(rule.name, owner).iterrows()]
    for status in STATUS_ORDER:
        chosen = [(name, row) for name, row in table if row["status"] == status]
        if not chosen:
            continue
        fig.add_trace(go.Scatter(
            x=[x[int(row["position"])] for _, row in chosen], y=[name for name, _ in chosen], mode="markers",
            name=labels.STATUS_WORDS[status], marker=dict(symbol="square", size=size, color=STATUS_COLORS[status]),
            hovertext=[_hover_lines(row, name) for name, row in chosen], hovertemplate="%{hovertext}<extra></extra>"))
    plot_height = 44 * len(names)
    fig.update_layout(title=dict(text="Verdict per period"), template="plotly_white",
                      height=plot_height + 130, margin=dict(t=50, b=80),
                      legend=dict(orientation="h", x=0, y=-50 / plot_height, yanchor="top"),
                      xaxis=_time_axis(axis, x),
                      yaxis=dict(type="category", categoryorder="array", categoryarray=names[::-1], automargin=True))
    return fig


def rule_chart(result: fc.OverTime, owner: str, rule, x: list, axis: str, word: str):
    """One rule's value per period with its interval as error bars, the side of its bound where it fails shaded,
    markers coloured by each period's verdict, and periods without a value marked at the foot as not assessable.

    Parameters
    ----------
    result : OverTime
    owner : str
        The model (score or predicted label column) or ``'labels'``.
    rule : Rule
    x : list
        Each period's x value (:func:`_axis`).
    axis : {'date', 'category'}
    word : str
        The period in words.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    import plotly.graph_objects as go

    rows = result.series(rule.name, owner)
    value = rows["value"].to_numpy(dtype=np.float64)
    low, high = rows["ci_low"].to_numpy(dtype=np.float64), rows["ci_high"].to_numpy(dtype=np.float64)
    has_ci = np.isfinite(low) & np.isfinite(high)
    finite = np.isfinite(value)
    name = rule_name(rule)
    metric_words = name.split(": ", 1)[-1].split(" ≥")[0].split(" ≤")[0]
    tops = [rule.bound, *value[finite], *high[has_ci & finite]]
    lows = [rule.bound, *value[finite], *low[has_ci & finite]]
    span = max(tops) - min(min(lows), 0.0) or 1.0
    bottom = min(min(lows), 0.0 if rule.distance_measure != "ratio" else 1.0)
    top = max(tops) + 0.08 * span
    bottom_shown = bottom - 0.1 * span
    xs = [x[int(p)] for p in rows["position"]]
    hover = [_hover_lines(row, metric_words) for _, row in rows.iterrows()]
    fig = go.Figure()
    fail_low, fail_high = (top, rule.bound) if rule.direction == "max" else (bottom_shown, rule.bound)
    fig.add_hrect(y0=min(fail_low, fail_high), y1=max(fail_low, fail_high), fillcolor=STATUS_COLORS["fail"],
                  opacity=BAND_OPACITY, line_width=0, layer="below")
    fig.add_hline(y=rule.bound, line_dash="dash", line_color=STATUS_COLORS["fail"])
    fig.add_trace(go.Scatter(   # the bound's legend entry (the line itself is a shape across the whole axis)
        x=[None], y=[None], mode="lines", line=dict(color=STATUS_COLORS["fail"], dash="dash"),
        name=f"bound {rule.bound:g}: fails {'above' if rule.direction == 'max' else 'below'} (shaded)"))
    shown = np.where(finite, value, np.nan)
    fig.add_trace(go.Scatter(
        x=xs, y=shown, mode="lines+markers", name=plot_text(metric_words), connectgaps=False,
        line=dict(color="#555555", width=1.5),
        marker=dict(size=9, color=[STATUS_COLORS[s] for s in rows["status"]], line=dict(color="white", width=1)),
        error_y=dict(type="data", symmetric=False, array=np.where(has_ci, high - value, np.nan),
                     arrayminus=np.where(has_ci, value - low, np.nan), color="#777777", thickness=1.2, width=3),
        hovertext=hover, hovertemplate="%{hovertext}<extra></extra>", showlegend=False))
    missing = ~finite
    if missing.any():
        fig.add_trace(go.Scatter(
            x=[v for v, m in zip(xs, missing) if m], y=[bottom_shown + 0.04 * span] * int(missing.sum()),
            mode="markers", name="not assessable", marker=dict(symbol="x-thin-open", size=10,
                                                               color=STATUS_COLORS["not_assessable"],
                                                               line=dict(width=2)),
            hovertext=[h for h, m in zip(hover, missing) if m], hovertemplate="%{hovertext}<extra></extra>"))
    y_title = metric_words if rule.distance_measure is None else f"disparity ({DISTANCE_WORDS[rule.distance_measure]})"
    fig.update_layout(title=dict(text=plot_text(name)), template="plotly_white", height=340, margin=dict(t=50, b=70),
                      xaxis=_time_axis(axis, x), yaxis=dict(range=[bottom_shown, top], title=plot_text(y_title)),
                      legend=dict(orientation="h", x=0, y=-0.2, yanchor="top"))
    return fig


def subgroup_rate_chart(result: fc.OverTime, model: str, rate: str, x: list, axis: str):
    """Each subgroup's `rate` per period for `model`, one line per subgroup with its interval as error bars; a
    subgroup small in a period is an open faded marker off the line (its line has a gap there), a period without
    rows is a gap.

    Parameters
    ----------
    result : OverTime
    model : str
        A score or predicted label column of ``result.models``.
    rate : str
        A column of the periods' rate tables (``'selection_rate'``, ``'true_positive_rate'``, ...).
    x : list
        Each period's x value (:func:`_axis`).
    axis : {'date', 'category'}

    Returns
    -------
    plotly.graph_objects.Figure
    """
    import plotly.graph_objects as go

    parts = []
    for position, review in enumerate(result.models[model]):
        if review is not None:
            parts.append(review.rate_table.assign(position=position))
    table = pd.concat(parts, ignore_index=True)
    names = list(dict.fromkeys(table["subgroup"]))
    colors = subgroup_colors(names)
    periods = result.periods["period"].tolist()
    fig = go.Figure()
    for subgroup in names:
        group = plot_text(subgroup)
        own = table.loc[table["subgroup"] == subgroup].set_index("position")
        own = own.reindex(range(len(periods)))
        value = own[rate].to_numpy(dtype=np.float64)
        small = own["small"].fillna(False).to_numpy(dtype=bool)
        low = own.get(rate + "_ci_low", pd.Series(np.nan, index=own.index)).to_numpy(dtype=np.float64)
        high = own.get(rate + "_ci_high", pd.Series(np.nan, index=own.index)).to_numpy(dtype=np.float64)
        hover = [f"<b>{plot_text(subgroup)}</b><br>{plot_text(periods[i])}<br>"
                 + (f"{plot_text(labels.RATE_LABELS[rate])} {formats.num(value[i], 3)}"
                    + (f" ({formats.num(low[i], 3)}–{formats.num(high[i], 3)})" if np.isfinite(low[i]) else "")
                    if np.isfinite(value[i]) else "no value")
                 + (f"<br>{int(own['size'].iloc[i]):,} rows, {int(own['n_positive'].iloc[i]):,} positive"
                    if np.isfinite(own["size"].iloc[i]) else "<br>no rows")
                 + ("<br>small: fewer rows than the minimum size" if small[i] else "")
                 for i in range(len(periods))]
        kept = np.where(small, np.nan, value)
        fig.add_trace(go.Scatter(
            x=x, y=kept, mode="lines+markers", name=plot_text(subgroup), connectgaps=False, legendgroup=group,
            line=dict(color=colors[subgroup]), marker=dict(size=6),
            error_y=dict(type="data", symmetric=False, array=np.where(small, np.nan, high - value),
                         arrayminus=np.where(small, np.nan, value - low), color=colors[subgroup], thickness=1,
                         width=2),
            hovertext=hover, hovertemplate="%{hovertext}<extra></extra>"))
        if (small & np.isfinite(value)).any():
            fig.add_trace(go.Scatter(
                x=[v for v, s in zip(x, small & np.isfinite(value)) if s], y=value[small & np.isfinite(value)],
                mode="markers", name=plot_text(subgroup) + " (small)", legendgroup=group, showlegend=False,
                marker=dict(size=7, symbol="circle-open", color=colors[subgroup], opacity=0.45),
                hovertext=[h for h, s in zip(hover, small & np.isfinite(value)) if s],
                hovertemplate="%{hovertext}<extra></extra>"))
    fig.update_layout(title=dict(text=plot_text(labels.RATE_LABELS[rate]) + " per subgroup"), template="plotly_white",
                      height=380, margin=dict(t=50, b=30), xaxis=_time_axis(axis, x),
                      yaxis=dict(range=[-0.02, 1.02], title=plot_text(labels.RATE_LABELS[rate])),
                      legend=dict(orientation="h", y=-0.15))
    return fig

