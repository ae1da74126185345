"""p% and equal opportunity scores per subgroup."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._common import (HOVER, LEVEL_MESSAGE, RULE_VALUE_MESSAGE, _bar_marks, _bar_panels_figure, _comparison_ci,
                      _count, _error_bars, _estimate, _floats, _hover, _interval, _label, _num, _ordered, _panels,
                      _parity_trace, _right_end, _small, plot_text, rule_line_parts, subgroup_colors)


def ratio_score_chart(tables: dict, *, threshold: float = 0.8, title: str | None = None,
                      level: float | None = None, order=None):
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
    order : sequence of str, optional
        Subgroup names in the order to draw them, top first (e.g. lowest score first); subgroups
        not listed follow in table order. Default: table order. Colours stay assigned by the
        first table's order.

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
    names = list(tables)
    first = tables[names[0]] if names else pd.DataFrame(columns=["subgroup", "small"])
    colors = subgroup_colors(list(first["subgroup"]))
    tables = {name: _ordered(table, order) for name, table in tables.items()}
    # One figure from plain dictionaries, validated once: the panels as make_subplots lays them out.
    layout = _panels([plot_text(n) for n in names], 0.04)
    data, shapes = [], []
    # The panels share their y axis, so a subgroup's tick label must not depend on the panel: it
    # says "(small)" when every panel flags it (too few rows); a panel whose rate alone has too
    # small a denominator hatches the bar and gives the reason on hover.
    flagged = [dict(zip(t["subgroup"], _small(t)[0])) for t in tables.values()]
    small_everywhere = {n for n in flagged[0] if all(f.get(n, False) for f in flagged)} if flagged else set()
    any_small, parity_legend = False, True
    for c, name in enumerate(names, start=1):
        suffix = "" if c == 1 else str(c)
        axes = {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}
        table = tables[name]
        small, reasons = _small(table)
        any_small = any_small or bool(small.any())
        labels = [_label(n, n in small_everywhere) for n in table["subgroup"]]
        score, interval = _floats(table["score"]), _interval(table, "score")
        ci_name, adjusted = _comparison_ci(table, level, "ratio_score_chart")
        sub, ref = _floats(table["subgroup_value"]), _floats(table["reference_value"])
        notes = ["" if not isinstance(n, str) else plot_text(n) for n in table["note"]]
        sizes = [_count(v) for v in table["size"]]
        hover = [_hover(f"<b>{labels[i]}</b>", f"score {_estimate(score, interval, i, '.4f', ci_name)}",
                        adjusted if interval is not None else "",
                        f"subgroup rate {_num(sub[i], '.4f')}, rest {_num(ref[i], '.4f')}",
                        f"size {sizes[i]}", notes[i], reasons[i]) for i in range(len(table))]
        bars = dict(type="bar", x=score, y=labels, orientation="h", showlegend=False, name=plot_text(name),
                    marker=_bar_marks([colors.get(n, "#888888") for n in table["subgroup"]], small),
                    hovertext=hover, hovertemplate=HOVER, **axes)
        error = _error_bars(score, interval)
        if error is not None:
            bars["error_x"] = error
        data.append(bars)
        line, note = rule_line_parts(threshold, f"{threshold:.0%} rule" if c == 1 else None, axis="x", panel=c)
        shapes.append(line)
        if note is not None:
            layout["annotations"].append(note)
        stars, star_x = _parity_trace(table, list(table["subgroup"]), labels, _right_end(score, *(interval or ())),
                                      plot_text(name), level, show_legend=parity_legend, value="score")
        if stars is not None:
            data.append({**stars, **axes})
        parity_legend = parity_legend and not np.isfinite(star_x)
        layout[f"xaxis{suffix}"]["range"] = [0, max(1.02, star_x + 0.03)]
    return _bar_panels_figure(data, layout, any_small=any_small, title=title, height=max(300, 28 * len(first) + 150),
                              shapes=shapes)
