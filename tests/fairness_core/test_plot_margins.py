"""Margins fitted to a figure's labels before it is drawn (fairness_core.plotting._margins): each margin from a
literal computation of the text's width and Plotly's margin equations; the browser side (no chart grows its
margins, i.e. Plotly draws it once) is tests/browser/test_charts_browser.py."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from fairness_core import plotting
from fairness_core.plotting import _margins as M
from tests.fairness_core.test_plotting import _rates


def test_text_width_sums_the_font_widths_of_the_shown_text():
    # 'a' 547 and 'b' 588 thousandths of an em at 12 px
    assert M.text_width("ab") == pytest.approx((547 + 588) * 12 / 1000)
    assert M.text_width("<b>ab</b>") == M.text_width("ab")              # markup is not shown
    assert M.text_width("&amp;", 10) == pytest.approx(617 * 10 / 1000)  # an entity is one character
    assert M.text_width("ab<br>W") == M.text_width("ab")                  # the widest line
    assert M.text_width("性别") == pytest.approx(2 * 12.0)                 # other characters: 1 em each


def _bars(names, *, legend=None, margin=None):
    layout = {"yaxis": {"type": "category"}, "height": 400, "margin": margin or {"l": 10, "r": 10, "t": 60, "b": 10}}
    if legend is not None:
        layout["legend"] = legend
    return go.Figure([go.Bar(x=[0.1] * len(names), y=names, orientation="h", name="rate"),
                      go.Scatter(x=[None], y=[None], name="reference")], layout)


def test_the_left_margin_holds_the_widest_category_label():
    names = ["a", "race=Hispanic, sex=Female", "b"]
    fig = M.fit_margins(_bars(names))
    widest = M.text_width("race=Hispanic, sex=Female")
    assert fig.layout.margin.l == math.ceil(widest + M.TICK_GAP + M.PAD + M.SAFETY)
    # a figure's own margin is kept when it is the larger
    assert M.fit_margins(_bars(names, margin={"l": 400, "r": 10, "t": 60, "b": 10})).layout.margin.l == 400


def test_a_legend_beside_the_plot_takes_its_place_at_the_widest_width():
    fig = M.fit_margins(_bars(["x", "y"], legend={"orientation": "v"}))
    box = M.text_width("reference") + M.LEGEND_SYMBOL + M.PAD + M.SAFETY
    left = fig.layout.margin.l
    assert fig.layout.margin.r == math.ceil((box + 0.02 * (M.WIDEST - left)) / 1.02)


def test_a_legend_under_the_plot_wraps_at_the_narrowest_width():
    names = [f"subgroup number {i}" for i in range(12)]
    fig = go.Figure([go.Scatter(x=[0, 1], y=[0, 1], name=n) for n in names],
                    {"legend": {"orientation": "h", "y": -0.2}, "height": 500,
                     "margin": {"l": 20, "r": 20, "t": 50, "b": 20}})
    M.fit_margins(fig)
    margin = fig.layout.margin
    room = M.NARROWEST - margin.l - margin.r
    entry = M.text_width("subgroup number 10") + M.LEGEND_SYMBOL   # the widest entry
    per_row = int(room // entry)
    assert per_row >= 1
    rows = math.ceil(12 / per_row)
    box = rows * M.LEGEND_ROW + M.PAD + M.SAFETY
    # the legend's top a fixed drop under the x axis's tick labels (no title): its rows fit under it, whatever y it had
    drop = M.X_TICKS + M.LEGEND_GAP
    assert margin.b == math.ceil(drop + box)
    plot = 500 - margin.t - margin.b
    assert fig.layout.legend.yanchor == "top"
    assert fig.layout.legend.y * plot == pytest.approx(-drop)


def test_a_legend_under_the_plot_clears_the_x_axis_title_on_short_and_tall_plots():
    """Its top sits the x axis's push (tick labels and title) and LEGEND_GAP under the plot, in pixels: on a short
    plot a share of its height (y = -0.15) put the legend over the axis title, on a tall one far below it."""
    for height in (320, 2000):
        traces = [go.Scatter(x=[0, 1], y=["a", "b"], name="one"), go.Scatter(x=[1, 0], y=["a", "b"], name="two")]
        fig = go.Figure(traces, {"legend": {"orientation": "h", "y": -0.15}, "height": height,
                                 "xaxis": {"title": {"text": "AUC"}}, "margin": {"l": 10, "r": 10, "t": 50, "b": 10}})
        M.fit_margins(fig)
        margin = fig.layout.margin
        drop = M.X_TICKS + M.X_TITLE + M.LEGEND_GAP
        plot = fig.layout.height - margin.t - margin.b
        assert -fig.layout.legend.y * plot == pytest.approx(drop)
        assert margin.b == math.ceil(drop + M.LEGEND_ROW + M.PAD + M.SAFETY)   # one row of two entries
        # the short figure grows to keep its plot; the tall one keeps its height
        assert fig.layout.height == (max(height, margin.t + margin.b + M.PLOT_LEAST))
        assert plot >= M.PLOT_LEAST


def test_a_legend_of_many_entries_scrolls_rather_than_taking_the_plot():
    """The threshold explorer on UCI Adult's 40 intersections: its legend needed ~20 rows at 1,024 px, more than the
    figure's height. It is shown LEGEND_MOST tall (Plotly scrolls the rest) and the plot keeps PLOT_LEAST."""
    names = [f"sex=Female, race=Amer-Indian-Eskimo, age=group {i}" for i in range(40)]
    fig = go.Figure([go.Scatter(x=[0, 1], y=[0, 1], name=n) for n in names],
                    {"legend": {"orientation": "h", "y": -0.25, "title": {"text": "Subgroup"}}, "height": 560,
                     "xaxis": {"title": {"text": "Decision threshold"}}, "margin": {"t": 90}})
    M.fit_margins(fig)
    margin = fig.layout.margin
    assert fig.layout.legend.maxheight == M.LEGEND_MOST - M.PAD - M.SAFETY
    assert margin.b == math.ceil(M.X_TICKS + M.X_TITLE + M.LEGEND_GAP + M.LEGEND_MOST)
    assert fig.layout.height - margin.t - margin.b == M.PLOT_LEAST


def test_a_long_title_is_wrapped_at_the_narrowest_width():
    title = "Balanced accuracy against the worst disparity at each threshold of p_logistic_regression_income"
    fig = M.fit_margins(go.Figure([go.Scatter(x=[0, 1], y=[0, 1])], {"title": {"text": title}, "margin": {"t": 60}}))
    lines = fig.layout.title.text.split("<br>")
    assert " ".join(lines) == title and len(lines) == 2
    assert all(M.text_width(line, M.TITLE_SIZE) <= M.NARROWEST - M.TITLE_INSET for line in lines)
    assert fig.layout.margin.t == 60 + M.TITLE_LINE
    short = M.fit_margins(go.Figure([go.Scatter(x=[0, 1], y=[0, 1])], {"title": {"text": "Rates per subgroup"},
                                                                       "margin": {"t": 60}}))
    assert short.layout.title.text == "Rates per subgroup" and short.layout.margin.t == 60


def test_labels_never_take_the_plot_at_the_narrowest_width():
    fig = M.fit_margins(_bars(["W" * 80, "x"], legend={"orientation": "v"}, margin={"l": 30, "r": 40, "t": 50,
                                                                                    "b": 20}))
    margin = fig.layout.margin
    assert margin.l + margin.r <= M.SIDES_AT_MOST * M.NARROWEST + 1
    assert margin.l >= 30 and margin.r >= 40   # the figure's own margins stay


def test_numeric_axes_and_titles():
    fig = go.Figure([go.Scatter(x=[0, 1], y=[-0.5, 0.5])], {"yaxis": {"title": {"text": "Rate"}},
                                                           "xaxis": {"title": {"text": "Threshold"}}})
    M.fit_margins(fig)
    tick = M.text_width("+0.25")   # a negative tick is drawn
    assert fig.layout.margin.l == math.ceil(tick + M.TICK_GAP + M.AXIS_TITLE + M.PAD + M.SAFETY)
    assert fig.layout.margin.b == max(M.UNSET["b"], math.ceil(M.X_TICKS + M.X_TITLE + M.PAD + M.SAFETY))


def test_every_chart_of_the_app_gets_margins_that_fit_its_subgroup_labels():
    long = "race=Hispanic, sex=Female"
    rates = _rates().assign(subgroup=["a", long, "c", "d"])
    fig = plotting.rate_chart(rates, ["false_positive_rate", "false_negative_rate"], None)
    assert fig.layout.margin.l >= M.text_width(long) + M.TICK_GAP + M.PAD
    curves = pd.DataFrame({"metric": "selection_rate", "subgroup": np.repeat(["a", long], 3), "scope": "subgroup",
                           "threshold": np.tile([0.1, 0.5, 0.9], 2), "value": np.linspace(0, 1, 6)})
    explorer = plotting.threshold_chart(curves, ["selection_rate"])
    # its legend (titled, one row of two entries at the narrowest width) under the plot, under the axis title
    box = M.LEGEND_ROW + M.LEGEND_TITLE + M.PAD + M.SAFETY
    assert explorer.layout.margin.b == math.ceil(M.X_TICKS + M.X_TITLE + M.LEGEND_GAP + box)


def test_a_panel_title_wider_than_its_panel_is_wrapped_within_it():
    """At 1,024 px, long subgroup names left the rate chart's two panels ~110 px each: "False positive rate" and
    "False negative rate" ran into each other. Each panel's title is wrapped within its panel at the narrowest width,
    and the top margin grows by a line."""
    long = "sex=Female, race=Amer-Indian-Eskimo, age=(48, 90] (small)"
    rates = _rates().assign(subgroup=["a", long, "c", "d"])
    fig = plotting.rate_chart(rates, ["false_positive_rate", "false_negative_rate"], None)
    notes = [a for a in fig.layout.annotations if a.name == M.PANEL_TITLE]
    assert [n.text.replace("<br>", " ") for n in notes] == ["False positive rate", "False negative rate"]
    assert all("<br>" in n.text for n in notes)
    plot = M.NARROWEST - fig.layout.margin.l - fig.layout.margin.r
    for note in notes:
        room = M._domain_width(fig.layout, note.x) * plot
        assert all(M.text_width(line, 17) <= room for line in note.text.split("<br>")), (note.text, room)
    short = plotting.rate_chart(_rates(), ["false_positive_rate", "false_negative_rate"], None)
    assert [a.text for a in short.layout.annotations if a.name == M.PANEL_TITLE] == ["False positive rate",
                                                                                    "False negative rate"]
    assert fig.layout.margin.t == short.layout.margin.t + M.TITLE_LINE
