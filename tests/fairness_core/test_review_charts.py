"""The review's charts: threshold curves, subgroup x model AUC heatmap, performance trade-off."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core import plotting


@pytest.fixture(scope="module")
def scored():
    rng = np.random.default_rng(4)
    n = 4000
    g = rng.choice(["<b>a</b>", "b", "small"], size=n, p=[0.6, 0.39, 0.01])
    y = (rng.random(n) < 0.4).astype(int)
    s1 = np.clip(0.3 * y + rng.normal(0.35, 0.2, n), 0, 1)
    s2 = np.clip(0.2 * y + rng.normal(0.4, 0.2, n), 0, 1)
    groups = fc.Subgroups.from_attributes(pd.DataFrame({"g": g}), ["g"], min_size=100)
    return y, s1, s2, groups


def test_threshold_chart_draws_the_curves_the_band_and_the_threshold(scored):
    y, s1, _, groups = scored
    tc = fc.threshold_counts(y, s1, groups)
    t = fc.explorer_thresholds(tc, 41, include=[0.5])
    curves = fc.threshold_curves(tc, ["false_positive_rate"], t)
    band = fc.rule_band(tc, fc.Rule(metric="false_positive_rate", distance_measure="diff", bound=0.05), t)
    fig = plotting.threshold_chart(curves, "false_positive_rate", threshold=0.5, band=band, band_label="FPR diff <= 0.05")
    lines = [tr for tr in fig.data if tr.mode == "lines"]
    assert [tr.name for tr in lines] == ["&lt;b&gt;a&lt;/b&gt;", "b", "small (small)", "All rows"]
    for trace, (_, part) in zip(lines, curves.groupby("subgroup", sort=False)):
        np.testing.assert_array_equal(np.asarray(trace.y, dtype=float), part["value"].to_numpy())
    assert lines[2].line.dash == "dot" and lines[3].line.color == "black"
    runs = np.flatnonzero(np.diff(np.concatenate([[0], band["holds"].astype(int), [0]]))).size // 2
    rects = [s for s in fig.layout.shapes if s.type == "rect"]
    assert runs >= 1 and len(rects) == runs
    assert any(s.type == "line" and s.x0 == 0.5 for s in fig.layout.shapes)
    with pytest.raises(ValueError, match="threshold_curves"):
        plotting.threshold_chart(curves.drop(columns="scope"), "false_positive_rate")


def test_threshold_chart_has_a_panel_per_rate_with_one_legend(scored):
    """Several rates: one panel each, side by side, every panel the single-rate chart's lines on its own axes, one
    legend entry per subgroup (a legend group for its lines in every panel), the band and the line in each panel."""
    y, s1, _, groups = scored
    tc = fc.threshold_counts(y, s1, groups)
    t = fc.explorer_thresholds(tc, 41, include=[0.5])
    metrics = ["false_positive_rate", "false_negative_rate", "selection_rate"]
    curves = fc.threshold_curves(tc, metrics, t)
    band = fc.rule_band(tc, fc.Rule(metric="false_positive_rate", distance_measure="diff", bound=0.05), t)
    fig = plotting.threshold_chart(curves, metrics, threshold=0.5, band=band, band_label="FPR diff <= 0.05",
                                   order=["b", "<b>a</b>"])
    lines = [tr for tr in fig.data if tr.mode == "lines"]
    assert len(lines) == 3 * 4
    for i, metric in enumerate(metrics):
        axis = "x" if i == 0 else f"x{i + 1}"
        single = [tr for tr in plotting.threshold_chart(curves, metric, order=["b", "<b>a</b>"]).data]
        panel = [tr for tr in lines if tr.xaxis == axis]
        assert [tr.name for tr in panel] == [tr.name for tr in single] == ["b", "&lt;b&gt;a&lt;/b&gt;", "small (small)",
                                                                          "All rows"]
        for mine, theirs in zip(panel, single):
            np.testing.assert_array_equal(np.asarray(mine.y, dtype=float), np.asarray(theirs.y, dtype=float))
            assert mine.yaxis == axis.replace("x", "y") and mine.line.color == theirs.line.color
            assert mine.showlegend is (i == 0) and mine.legendgroup == mine.name.replace(" (small)", "")
    # the panels' titles, the shared rate axis and the axis titles
    assert [a.text for a in fig.layout.annotations if a.yref == "paper"] == [
        "False positive rate", "False negative rate", "Selection rate"]
    assert fig.layout.yaxis.title.text == "Rate" and fig.layout.yaxis2.matches == "y"
    assert fig.layout.xaxis3.title.text == "Decision threshold"
    # the band's rectangles and the threshold line in every panel; the band's legend entry once
    rects = [(s.xref, s.x0, s.x1) for s in fig.layout.shapes if s.type == "rect"]
    first = [(x0, x1) for ref, x0, x1 in rects if ref == "x"]
    assert first and all([(x0, x1) for ref, x0, x1 in rects if ref == r] == first for r in ("x2", "x3"))
    assert [(s.xref, s.x0) for s in fig.layout.shapes if s.type == "line"] == [("x", 0.5), ("x2", 0.5), ("x3", 0.5)]
    assert [tr.name for tr in fig.data if tr.mode == "markers"] == ["FPR diff &lt;= 0.05"]
    with pytest.raises(ValueError, match="at least one rate"):
        plotting.threshold_chart(curves, [])


def test_model_heatmap_cells_are_the_tables(scored):
    y, s1, s2, groups = scored
    tables = {"m1": fc.bias_auc_table(y, s1, groups), "m<2>": fc.bias_auc_table(y, s2, groups)}
    fig = plotting.model_auc_heatmap(tables, "bpsn_auc")
    z = np.asarray(fig.data[0].z, dtype=float)
    np.testing.assert_array_equal(z[:, 0], tables["m1"]["bpsn_auc"].to_numpy())
    np.testing.assert_array_equal(z[:, 1], tables["m<2>"]["bpsn_auc"].to_numpy())
    assert list(fig.data[0].x) == ["m1", "m&lt;2&gt;"]
    with pytest.raises(ValueError):
        plotting.model_auc_heatmap(tables, "auc")


def test_tradeoff_chart_has_one_point_per_model_with_intervals():
    points = pd.DataFrame({"model": ["a", "b"], "performance": [0.8, 0.85], "disparity": [0.1, 0.2],
                           "disparity_ci_low": [0.05, 0.15], "disparity_ci_high": [0.15, 0.3]})
    fig = plotting.tradeoff_chart(points, bound=0.1)
    assert [tr.x[0] for tr in fig.data] == [0.8, 0.85]
    assert fig.data[1].error_y.array[0] == pytest.approx(0.1)
    assert any(s.y0 == 0.1 for s in fig.layout.shapes)


def test_tradeoff_labels_clear_every_error_bar():
    """One model's label was struck through by the other model's error bar. Laid out at the
    narrowest width the app draws the chart, no label box meets a marker, an error bar or another label, and every
    label lies inside the plot (whose axes widen for it)."""
    from fairness_core.plotting import _review as R

    points = pd.DataFrame({"model": ["p_logistic_regression_income", "p_gradient_boosting_income"],
                           "performance": [0.765, 0.772], "disparity": [0.137, 0.177],
                           "performance_ci_low": [0.757, 0.764], "performance_ci_high": [0.773, 0.780],
                           "disparity_ci_low": [0.045, 0.022], "disparity_ci_high": [0.235, 0.325]})
    fig = plotting.tradeoff_chart(points, bound=0.1)
    margin = fig.layout.margin
    size = (R.NARROWEST - margin.l - margin.r, R.DEFAULT_HEIGHT - margin.t - margin.b)
    x_range, y_range = list(fig.layout.xaxis.range), list(fig.layout.yaxis.range)
    placed = R._label_positions(points, "performance", "disparity", x_range, y_range, size, 0.1)
    assert [p for p, _ in placed] == [t.textposition for t in fig.data]
    # the first label, right of its point (the old default side), would cross the second model's vertical bar
    assert placed[0][0] != "top right"

    def px(value, low, high, span, flip=False):
        at = (value - low) / (high - low) * span
        return span - at if flip else at

    bars = []
    for row in points.itertuples():
        cx, cy = px(row.performance, *x_range, size[0]), px(row.disparity, *y_range, size[1], True)
        bars += [(px(row.performance_ci_low, *x_range, size[0]), cy - 1, px(row.performance_ci_high, *x_range, size[0]),
                  cy + 1),
                 (cx - 1, px(row.disparity_ci_high, *y_range, size[1], True), cx + 1,
                  px(row.disparity_ci_low, *y_range, size[1], True)),
                 (cx - 7, cy - 7, cx + 7, cy + 7)]
    boxes = [box for _, box in placed]
    for i, box in enumerate(boxes):
        assert all(R._boxes_overlap(box, bar) == 0 for bar in bars), (i, box)
        assert box[0] >= 0 and box[1] >= 0 and box[2] <= size[0] and box[3] <= size[1], (box, size)
    assert R._boxes_overlap(*boxes) == 0


def test_threshold_chart_hover_is_a_template_that_data_text_cannot_enter():
    """The hover reads each point's own numbers (rate, numerator / denominator, threshold) through a template; a
    subgroup named like a template variable is written with an entity, and its HTML is escaped."""
    n = 400
    rng = np.random.default_rng(3)
    g = np.where(np.arange(n) % 2 == 0, "%{x} <b>50%</b>", "b")
    y, s = (rng.random(n) < 0.4).astype(int), np.round(rng.random(n), 2)
    tc = fc.threshold_counts(y, s, fc.Subgroups.from_attributes(pd.DataFrame({"g": g}), ["g"]))
    curves = fc.threshold_curves(tc, ["false_positive_rate"], fc.explorer_thresholds(tc, 11, include=[0.5]))
    fig = plotting.threshold_chart(curves, "false_positive_rate", threshold=0.5)
    first = [tr for tr in fig.data if tr.mode == "lines"][0]
    assert first.hovertemplate == ("<b>&#37;{x} &lt;b&gt;50&#37;&lt;/b&gt;</b><br>False positive rate %{y:.4~g}<br>"
                                   "%{customdata[0]} / %{customdata[1]}<br>threshold %{x:.4~g}<extra></extra>")
    part = curves[(curves["metric"] == "false_positive_rate") & (curves["subgroup"] == "%{x} <b>50%</b>")]
    np.testing.assert_array_equal(np.asarray(first.customdata, dtype=float),
                                  part[["numerator", "denominator"]].to_numpy(dtype=float))
    assert first.hovertext is None
