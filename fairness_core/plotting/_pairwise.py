"""Pairwise comparisons as a subgroup x subgroup heatmap."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ._common import (PARITY_TEXT, _comparison_ci, _count, _estimate, _finite, _flags, _floats, _hover, _interval,
                      _num, _small, _title, plot_text)

DISTANCE_LABELS = {"diff": "Difference |a - b|", "ratio": "Ratio (larger / smaller)"}
PARITY = {"diff": 0.0, "ratio": 1.0}
DISTANCE_MESSAGE = ("The 'distance_measure' parameter of pairwise_heatmap must be 'diff' or 'ratio'. "
                    "Got {got!r} instead.")
PAIRWISE_MESSAGE = ("pairwise_heatmap needs a pairwise comparison table (reference='pairwise', reduction=None): "
                    "columns 'subgroup', 'reference' and 'disparity'. Missing: {missing}.")
MAX_CELL_TEXT = 15  # subgroups up to which every cell shows its value
TITLE_ROOM = 44  # pixels of the top margin above the column labels for a title (one line, 17 px, and its padding)
SMALL_NOTE = "(value): a small comparison (reason on hover)"
PARITY_NOTE = "*: interval excludes parity"


def pairwise_heatmap(table: pd.DataFrame, *, distance_measure: str = "diff", value_label: str = "value",
                     order: Sequence[str] | None = None, title: str | None = None, level: float | None = None,
                     label: str | None = None):
    """Every pairwise disparity as a subgroup x subgroup heatmap, with values and intervals on hover.

    Parameters
    ----------
    table : DataFrame
        A pairwise comparison table (``reference='pairwise', reduction=None``), one row per
        unordered pair: columns ``subgroup, reference, disparity``; optionally ``size,
        reference_size``, ``subgroup_value, reference_value`` (with ``_ci_low`` / ``_ci_high``),
        ``numerator, denominator, reference_numerator, reference_denominator``,
        ``disparity_ci_low, disparity_ci_high``, ``excludes_parity``, ``small, small_reason``,
        ``note`` and ``verdict``: each one present is shown on hover.
    distance_measure : {'diff', 'ratio'}, default='diff'
        The units of ``disparity``: the colour scale starts at parity (0 for a difference, 1
        for a ratio).
    value_label : str, default='value'
        What ``subgroup_value`` is, for the hover, e.g. "false positive rate" (plain text, escaped).
    order : sequence of str, optional
        Subgroup names in the order of the rows (top first) and columns (left first), e.g.
        worst first. Default: the order in which the table first names them.
    title : str, optional
        Plain text (escaped).
    level : float in (0, 1), optional
        Confidence level of the disparity intervals, used when the table does not record the
        level of its rows' intervals in ``attrs["row_level"]``; then ``attrs["ci"]``; "CI" when
        unknown. An adjustment for multiple comparisons (``attrs["adjust"]``) is named on hover.
    label : str, optional
        The disparity's name on the colour bar and in the hover (plain text, escaped), e.g.
        "Between-group Theil index". Default: "Difference |a - b|" or "Ratio (larger / smaller)".

    Returns
    -------
    plotly.graph_objects.Figure
        One heatmap trace: cell (row g, column h) is the disparity of the pair {g, h} as the
        table gives it, so the matrix is symmetric; the diagonal and undefined (NaN) disparities
        are blank, with the reason on hover (the table's ``note``, or "the same subgroup"); an
        infinite ratio takes the top colour and reads "∞". Hover shows the disparity with its
        interval, each side's value with its interval and counts and its size, the note, why a
        comparison is small, whether the interval excludes parity and the verdict. With at most
        15 subgroups every cell shows its value, "*" when its interval excludes parity and in
        parentheses when the comparison is small (a note under the plot says so). Colour scale
        from parity to the largest finite disparity.

    Raises
    ------
    ValueError
        If `distance_measure` is unknown (``DISTANCE_MESSAGE``), a required column is missing
        (``PAIRWISE_MESSAGE``), or `level` is not None or a number in (0, 1).
    """
    import plotly.graph_objects as go

    if distance_measure not in DISTANCE_LABELS:
        raise ValueError(DISTANCE_MESSAGE.format(got=distance_measure))
    missing = [c for c in ("subgroup", "reference", "disparity") if c not in table.columns]
    if missing:
        raise ValueError(PAIRWISE_MESSAGE.format(missing=", ".join(missing)))
    ci_name, adjusted = _comparison_ci(table, level, "pairwise_heatmap")
    names = list(dict.fromkeys([*(order or []), *table["subgroup"], *table["reference"]]))
    at = {name: i for i, name in enumerate(names)}
    labels = [plot_text(n) for n in names]
    k = len(names)
    z = np.full((k, k), np.nan)
    hover = [[_hover(f"<b>{labels[i]}</b> vs <b>{labels[j]}</b>",
                     "the same subgroup" if i == j else "not compared") for j in range(k)] for i in range(k)]
    cells = [[""] * k for _ in range(k)]
    d, d_iv = _floats(table["disparity"]), _interval(table, "disparity")
    small, reasons = _small(table)
    parity = _flags(table["excludes_parity"]) if "excludes_parity" in table.columns else np.zeros(len(table), bool)
    name = DISTANCE_LABELS[distance_measure] if label is None else plot_text(label)
    sides = {side: _sides(table, side, value_label, ci_name) for side in ("subgroup", "reference")}
    for r in range(len(table)):
        a, b = at[table["subgroup"].iloc[r]], at[table["reference"].iloc[r]]
        note = table["note"].iloc[r] if "note" in table.columns else None
        note = plot_text(note) if isinstance(note, str) and note.strip() else ""
        verdict = table["verdict"].iloc[r] if "verdict" in table.columns else None
        lines = [f"{name}: {_estimate(d, d_iv, r, '.4g', ci_name)}" if not np.isnan(d[r]) else
                 f"{name}: undefined" + ("" if note else " (a value is undefined)"),
                 adjusted if d_iv is not None else "", note, reasons[r],
                 PARITY_TEXT if parity[r] else "",
                 f"verdict: {plot_text(verdict)}" if isinstance(verdict, str) and verdict else ""]
        text = "" if np.isnan(d[r]) else "∞" if np.isinf(d[r]) else _num(d[r], ".3g")
        if text:
            text = f"({text}{'*' if parity[r] else ''})" if small[r] else text + ("*" if parity[r] else "")
        for row, col, row_side, col_side in ((a, b, "subgroup", "reference"), (b, a, "reference", "subgroup")):
            z[row, col] = d[r]
            cells[row][col] = text
            hover[row][col] = _hover(f"<b>{labels[row]}</b> vs <b>{labels[col]}</b>", lines[0], lines[1],
                                     f"{labels[row]}: {sides[row_side][r]}" if sides[row_side][r] else "",
                                     f"{labels[col]}: {sides[col_side][r]}" if sides[col_side][r] else "",
                                     *lines[2:])
    finite = z[np.isfinite(z)]
    low = PARITY[distance_measure]
    high = float(finite.max()) if len(finite) else low
    high = high if high > low else low + 0.1  # every pair at parity: the palest colour, a scale still drawn
    # Plain lists (None for blank cells), not a typed array, so the figure's JSON reads as the table does.
    colours = [[None if np.isnan(v) else float(high if np.isinf(v) else v) for v in row] for row in z]
    # One figure from plain dictionaries, validated once (update_xaxes, update_yaxes and update_layout each
    # validated their properties again: most of the chart's time).
    heatmap = dict(type="heatmap", z=colours, x=labels, y=labels, zmin=low, zmax=high, colorscale="YlOrRd",
                   hoverongaps=True, text=cells, hovertext=hover, hovertemplate="%{hovertext}<extra></extra>",
                   colorbar={"title": {"text": name}}, xgap=1, ygap=1)
    if k <= MAX_CELL_TEXT:
        heatmap["texttemplate"] = "%{text}"
    notes = [SMALL_NOTE if bool(small.any()) else "", PARITY_NOTE if bool(parity.any()) else ""]
    annotations = []
    if k <= MAX_CELL_TEXT and any(notes):
        annotations.append(dict(text="; ".join(n for n in notes if n), xref="paper", yref="paper", x=0, y=-0.02,
                                xanchor="left", yanchor="top", showarrow=False, font={"color": "grey"}))
    # The column labels sit on top, rotated: the top margin holds them (their height estimated from the longest
    # name, generously) and, above them, the title, anchored to the top of the figure. Plotly's title automargin
    # does not see labels on a top axis, so the margin is set here; the axis' automargin only ever widens it.
    top = _label_room(names) + (TITLE_ROOM if title is not None else 10)
    heading = None if title is None else {"text": _title(title), "yref": "container", "y": 1, "yanchor": "top",
                                          "pad": {"t": 10}, "x": 0, "xanchor": "left"}
    layout = dict(xaxis=dict(type="category", side="top", tickangle=-30, showgrid=False, zeroline=False,
                             automargin=True),
                  yaxis=dict(type="category", autorange="reversed", showgrid=False, zeroline=False, automargin=True),
                  title=heading, height=max(380, 36 * k + 110 + top), plot_bgcolor="white",
                  margin={"l": 10, "r": 10, "t": top, "b": 40})
    if annotations:
        layout["annotations"] = annotations
    return go.Figure(data=[heatmap], layout=layout)


def _label_room(names) -> int:
    """Pixels the top axis' labels take, rotated by 30°: sin 30° × the longest name at 6.4 px a character (12 px
    font; Open Sans averages under 6) plus the glyphs' height and the tick's padding."""
    longest = max((len(str(n)) for n in names), default=0)
    return int(np.ceil(0.5 * 6.4 * longest)) + 22


def _sides(table: pd.DataFrame, side: str, value_label: str, ci_name: str) -> list:
    """Per row, one side of the pair in words: 'false positive rate 0.488 (95 % CI 0.449–0.527), 306 of 627;
    1,683 rows' ('' when the table has none of these columns)."""
    value, size = f"{side}_value", "size" if side == "subgroup" else "reference_size"
    num, den = (("numerator", "denominator") if side == "subgroup"
                else ("reference_numerator", "reference_denominator"))
    values = _floats(table[value]) if value in table.columns else None
    interval = _interval(table, value)
    out = []
    for r in range(len(table)):
        parts = [] if values is None else [f"{plot_text(value_label)} {_estimate(values, interval, r, '.4g', ci_name)}"]
        if num in table.columns and den in table.columns and _finite(table[den].iloc[r]):
            parts.append(f"{_count(table[num].iloc[r])} of {_count(table[den].iloc[r])}")
        text = ", ".join(parts)
        if size in table.columns:
            text += f"{'; ' if text else ''}{_count(table[size].iloc[r])} rows"
        out.append(text)
    return out
