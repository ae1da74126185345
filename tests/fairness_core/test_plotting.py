"""Figure builders: inspect fig.data and fig.layout (not pixels)."""

import doctest
import re

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core import plotting


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    n = 600
    group = rng.choice(["a", "b", "<i>c</i>"], size=n, p=[0.6, 0.37, 0.03])
    y = rng.integers(0, 2, n)
    p = np.clip(0.3 * y + rng.uniform(0, 0.7, n), 0, 1)
    groups = fc.Subgroups.from_attributes(pd.DataFrame({"g": group}), ["g"], min_size=30)
    return y, p, groups


def test_auc_chart_draws_the_table_and_says_where_chance_is(data):
    y, p, groups = data
    table = fc.bias_auc_table(y, p, groups)
    fig = plotting.auc_chart(table)
    assert [t.name for t in _visible(fig)] == ["Subgroup AUC", "BPSN AUC", "BNSP AUC"]
    assert fig.data[3].name == plotting.SMALL_LEGEND["marker"]  # legend-only entry: "<i>c</i>" is small
    np.testing.assert_allclose(fig.data[1].x, table["bpsn_auc"])
    labels = list(fig.data[0].y)
    assert labels[0] == "&lt;i&gt;c&lt;/i&gt; (small)"  # data text escaped, small subgroup marked
    # AUCs 0.73-0.87: reaching down to 0.5 would more than double the fitted range, so chance is a note
    assert list(fig.layout.shapes) == [] and fig.layout.xaxis.range[0] > 0.5
    assert [a.text for a in fig.layout.annotations] == ["← Chance (0.5) is off this axis"]
    assert all(t.error_x.array is None for t in fig.data)  # no interval columns: no error bars


def test_rate_chart_has_a_panel_per_rate_with_reference_markers(data):
    y, p, groups = data
    counts = fc.confusion_counts(y, (p >= 0.5).astype(int), groups)
    rates = counts.table()
    refs = {m: counts.disparity(m, reduction=None) for m in ["true_positive_rate", "false_positive_rate"]}
    fig = plotting.rate_chart(rates, list(refs), refs, reference_label="Rest of population")
    bars = [t for t in fig.data if t.type == "bar"]
    markers = [t for t in _visible(fig) if t.type == "scatter"]
    assert len(bars) == 2 and len(markers) == 2
    np.testing.assert_allclose(bars[1].x, rates["false_positive_rate"])
    np.testing.assert_allclose(markers[0].x, refs["true_positive_rate"]["reference_value"])
    assert [m.showlegend for m in markers] == [True, False]
    colors = plotting.subgroup_colors(groups.names)
    assert list(bars[0].marker.color) == [colors[n] for n in groups.names]


def test_reliability_chart_has_the_diagonal_and_skips_empty_bins():
    y = np.array([0, 0, 1, 1, 0, 1])
    p = np.array([0.05, 0.15, 0.85, 0.95, 0.12, 0.9])
    table = fc.reliability_diagram(y, p, np.array(["x"] * 6), n_bins=10)
    fig = plotting.reliability_chart(table)
    assert fig.data[0].name == "Perfectly calibrated"
    assert list(fig.data[0].x) == [0, 1] and list(fig.data[0].y) == [0, 1]
    curve = fig.data[1]
    assert len(curve.x) == 4  # bins 0, 1, 8, 9 hold rows
    np.testing.assert_allclose(curve.y, [0.0, 0.0, 1.0, 1.0])
    assert fig.layout.xaxis.title.text == "Mean predicted probability"
    assert fig.layout.yaxis.title.text == "Fraction of positives"


# Intervals, small subgroups, excludes-parity marks, rule lines, escaping ------------------------

HOSTILE = ["<b>x</b>", '<a href="http://evil">y</a>', "http://2130706433/"]
ALLOWED_TAGS = re.compile(r"</?(b|br|extra)>")


def _visible(fig):
    """Traces that draw data (not the legend-only entries that explain a mark)."""
    return [t for t in fig.data if not (t.x is not None and len(t.x) == 1 and t.x[0] is None)]


def _legend_names(fig):
    return [t.name for t in fig.data if t.showlegend is not False]


def _texts(fig):
    """Every string of a figure that Plotly renders as (HTML-subset) text."""
    out = []
    for t in fig.data:
        out.append(t.name)
        for attr in ("x", "y", "hovertext", "text"):
            value = getattr(t, attr, None)
            if value is not None and not isinstance(value, np.ndarray):
                values = list(value) if isinstance(value, (list, tuple)) else [value]
                # a heatmap's text and hover text are 2-D
                values = [v for row in values for v in (row if isinstance(row, (list, tuple)) else [row])]
                out += [v for v in values if isinstance(v, str)]
        out.append(t.hovertemplate)
    layout = fig.layout
    out += [a.text for a in layout.annotations] + [layout.title.text]
    for axis in [k for k in layout if k.startswith(("xaxis", "yaxis"))]:
        out.append(layout[axis].title.text)
        out += list(layout[axis].ticktext or ())
    return [s for s in out if isinstance(s, str)]


def _assert_escaped(fig):
    texts = _texts(fig)
    assert texts
    for s in texts:
        assert "<b>x</b>" not in s and "<a href" not in s and "http://" not in s, s
        assert "<" not in ALLOWED_TAGS.sub("", s), s


def _auc_table(ci=0.95):
    table = pd.DataFrame({
        "subgroup": ["Native American", "African-American", "Other", "Asian"],
        "size": [18, 3696, 377, 32], "n_positive": [6, 1901, 160, 10], "n_negative": [12, 1795, 217, 22],
        "small": [True, False, False, True],
        "small_reason": ["18 rows < minimum 30", "", "", ""],
        "subgroup_auc": [0.8562, 0.6918, 0.72, np.nan],
        "bpsn_auc": [0.80, 0.70, 0.71, 0.75], "bnsp_auc": [0.83, 0.69, 0.73, 0.78], "note": ["", "", "", ""],
    })
    table["subgroup_auc_ci_low"] = [0.61, 0.6745, np.nan, np.nan]
    table["subgroup_auc_ci_high"] = [0.96, 0.7091, 0.75, np.nan]
    for col in ("bpsn_auc", "bnsp_auc"):
        table[col + "_ci_low"] = table[col] - 0.05
        table[col + "_ci_high"] = table[col] + 0.04
    if ci is not None:
        table.attrs["ci"] = ci
    return table


def test_plot_text_escapes_markup_and_breaks_autolinks():
    assert plotting.plot_text("<b>x</b>") == "&lt;b&gt;x&lt;/b&gt;"
    link = plotting.plot_text('<a href="http://evil">y</a>')
    assert "<" not in link and '"' not in link and "http://" not in link
    assert link == "&lt;a href=&#34;http:\u200d//evil&#34;&gt;y&lt;/a&gt;"
    assert plotting.plot_text("http://2130706433/") == "http:\u200d//2130706433/"
    assert plotting.plot_text("a & b's") == "a &amp; b&#x27;s"  # numeric entity: Plotly decodes it
    assert plotting.plot_text(3) == "3"


def test_plotting_docstring_examples_run():
    from fairness_core.plotting import _common

    results = [doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE) for module in (plotting, _common)]
    assert sum(r.attempted for r in results) > 0 and sum(r.failed for r in results) == 0


def test_auc_chart_error_bars_are_the_interval_around_each_value():
    table = _auc_table()
    fig = plotting.auc_chart(table)
    sub, bpsn, _ = _visible(fig)
    np.testing.assert_allclose(sub.error_x.array, table["subgroup_auc_ci_high"] - table["subgroup_auc"])
    np.testing.assert_allclose(sub.error_x.arrayminus, table["subgroup_auc"] - table["subgroup_auc_ci_low"])
    assert np.isnan(sub.error_x.array[2]) == False and np.isnan(sub.error_x.arrayminus[2])  # noqa: E712 (low missing)
    assert np.isnan(sub.error_x.array[3]) and np.isnan(sub.error_x.arrayminus[3])  # undefined AUC: no bar
    np.testing.assert_allclose(bpsn.error_x.array, [0.04] * 4)
    np.testing.assert_allclose(bpsn.error_x.arrayminus, [0.05] * 4)
    assert sub.error_x.symmetric is False and sub.error_x.type == "data"
    assert fig.layout.scattermode == "group" and sub.orientation == "h"  # the three kinds side by side
    assert "Native American (small)</b><br>Subgroup AUC: 0.8562 (95 % CI 0.6100–0.9600)" in sub.hovertext[0]
    assert "size 18, positives 6, negatives 12" in sub.hovertext[0]
    assert "(95 % CI n/a)" in sub.hovertext[2]
    fig.to_json()  # serialises (NaN included) without warnings


def test_the_interval_level_comes_from_the_argument_or_the_table_attrs():
    assert "(90 % CI 0.6100–0.9600)" in plotting.auc_chart(_auc_table(), level=0.9).data[0].hovertext[0]
    assert "(CI 0.6100–0.9600)" in plotting.auc_chart(_auc_table(ci=None)).data[0].hovertext[0]
    with pytest.raises(ValueError, match=re.escape(plotting.LEVEL_MESSAGE.format(func="auc_chart", got=95))):
        plotting.auc_chart(_auc_table(), level=95)


def test_auc_chart_marks_small_subgroups_with_their_reason():
    fig = plotting.auc_chart(_auc_table())
    sub = fig.data[0]
    assert list(sub.marker.symbol) == ["circle-open", "circle", "circle", "circle-open"]
    assert list(sub.marker.opacity) == [plotting.SMALL_OPACITY, 1, 1, plotting.SMALL_OPACITY]
    assert "small subgroup: 18 rows &lt; minimum 30" in sub.hovertext[0]
    assert plotting.SMALL_TEXT in sub.hovertext[3]  # no reason given: the generic one
    assert not any("small subgroup" in h for h in sub.hovertext[1:3])
    assert plotting.SMALL_LEGEND["marker"] in _legend_names(fig)


def test_auc_chart_x_range_fits_the_data_and_keeps_chance_when_near():
    near = plotting.auc_chart(_auc_table())  # lows down to 0.61: reaching 0.5 at most doubles the range
    low, high = near.layout.xaxis.range
    assert low <= 0.48 and 0.96 < high <= 1.02
    assert [s.x0 for s in near.layout.shapes] == [0.5]
    good = _auc_table(ci=None).drop(columns=[c for c in _auc_table().columns if "_ci_" in c])
    good[list(plotting.AUC_COLUMNS)] = [[0.97, 0.95, 0.96], [0.99, 0.98, 0.985], [0.96, 0.97, 0.975],
                                        [0.98, 0.99, 0.97]]
    fig = plotting.auc_chart(good)
    low, high = fig.layout.xaxis.range
    assert 0.5 < low < 0.95 and high <= 1.02 and high - low >= plotting.AUC_MIN_SPAN - 1e-12
    assert len(fig.layout.shapes) == 0  # chance is far off: not drawn, but said
    assert [a.text for a in fig.layout.annotations] == ["← Chance (0.5) is off this axis"]
    bad = good.copy()
    bad["subgroup_auc_ci_low"], bad["subgroup_auc_ci_high"] = 0.3, 0.99
    assert plotting.auc_chart(bad).layout.xaxis.range[0] < 0.3


def _rates(ci=0.95, intervals=True):
    rates = pd.DataFrame({
        "subgroup": ["a", "b", "c", "d"], "size": [500, 400, 18, 300], "n_positive": [200, 150, 6, 100],
        "n_negative": [300, 250, 12, 200], "small": [False, False, True, False],
        "small_reason": ["", "", "6 positives < minimum 30 (the denominator of the false negative rate)", ""],
        "false_positive_rate": [0.2, 0.3, 0.25, 0.1], "false_negative_rate": [0.1, 0.15, 0.5, 0.2],
        "note": ["", "", "", ""],
    })
    if intervals:
        for col in ("false_positive_rate", "false_negative_rate"):
            rates[col + "_ci_low"] = rates[col] - [0.02, 0.03, 0.2, 0.01]
            rates[col + "_ci_high"] = rates[col] + [0.03, 0.04, 0.3, 0.02]
    if ci is not None:
        rates.attrs["ci"] = ci
    return rates


def _comparisons(rates, flags, intervals=True):
    out = {}
    for metric, flag in flags.items():
        table = pd.DataFrame({"subgroup": rates["subgroup"], "reference": "rest", "reference_value": 0.2,
                              "disparity": rates[metric] - 0.2, "small": rates["small"]})
        if intervals:
            table["disparity_ci_low"] = table["disparity"] - 0.05
            table["disparity_ci_high"] = table["disparity"] + 0.05
            table["excludes_parity"] = pd.array(flag, dtype="boolean")
        out[metric] = table
    return out


def test_rate_chart_error_bars_small_hatching_and_parity_stars():
    rates = _rates()
    flags = {"false_positive_rate": [False, True, None, True], "false_negative_rate": [None, None, None, None]}
    fig = plotting.rate_chart(rates, list(flags), _comparisons(rates, flags), reference_label="Rest of population")
    bars = [t for t in fig.data if t.type == "bar"]
    fpr = bars[0]
    np.testing.assert_allclose(fpr.error_x.array, [0.03, 0.04, 0.3, 0.02])
    np.testing.assert_allclose(fpr.error_x.arrayminus, [0.02, 0.03, 0.2, 0.01])
    assert list(fpr.marker.pattern.shape) == ["", "", plotting.SMALL_PATTERN, ""]
    assert list(fpr.y) == ["a", "b", "c (small)", "d"]
    assert "False positive rate: 0.3000 (95 % CI 0.2700–0.3400)" in fpr.hovertext[1]
    assert "(the denominator of the false negative rate)" in fpr.hovertext[2]
    stars = [t for t in _visible(fig) if t.name == plotting.PARITY_LEGEND]
    assert len(stars) == 1  # the FNR panel has no flagged row
    assert list(stars[0].y) == ["b", "d"] and stars[0].xaxis == "x"
    assert all(plotting.PARITY_TEXT in h for h in stars[0].hovertext)
    assert [plotting.PARITY_TEXT in h for h in fpr.hovertext] == [False, True, False, True]
    assert "disparity 0.1000 (95 % CI 0.0500–0.1500): interval excludes parity" in fpr.hovertext[1]
    assert "disparity 0.0000 (95 % CI -0.0500 to 0.0500)" in fpr.hovertext[0]
    # stars sit right of the bar, its interval and the reference marker, inside the axis range
    assert stars[0].x[0] > 0.34 and stars[0].x[1] > 0.12 and max(stars[0].x) < fig.layout.xaxis.range[1]
    legend = _legend_names(fig)
    assert legend.count(plotting.PARITY_LEGEND) == 1 and plotting.SMALL_LEGEND["bar"] in legend


def test_rate_chart_hatches_a_rate_that_is_small_by_its_denominator():
    rates = _rates().drop(columns=["small_reason"])
    flags = {"false_positive_rate": [False] * 4, "false_negative_rate": [False] * 4}
    comparisons = _comparisons(rates, flags)
    reason = "12 negatives < minimum 30 (the denominator of the false positive rate)"
    comparisons["false_positive_rate"]["small"] = [False, True, True, False]
    comparisons["false_positive_rate"]["small_reason"] = ["", reason, "18 rows < minimum 30", ""]
    fig = plotting.rate_chart(rates, list(flags), comparisons)
    fpr, fnr = [t for t in fig.data if t.type == "bar"]
    assert list(fpr.marker.pattern.shape) == ["", "/", "/", ""]
    assert list(fnr.marker.pattern.shape) == ["", "", "/", ""]
    assert "small subgroup: 12 negatives &lt; minimum 30 (the denominator" in fpr.hovertext[1]
    assert "small subgroup: 18 rows &lt; minimum 30" in fpr.hovertext[2] and plotting.SMALL_TEXT in fnr.hovertext[2]
    assert list(fpr.y) == ["a", "b", "c (small)", "d"]  # tick labels: the row count's flag


def test_adjusted_comparison_intervals_are_labelled_with_their_own_level():
    rates = _rates()
    flags = {"false_positive_rate": [False, True, False, False]}
    comparisons = _comparisons(rates, flags)
    comparisons["false_positive_rate"].attrs.update(ci=0.95, adjust="holm", n_comparisons=4, row_level=1 - 0.05 / 4)
    fig = plotting.rate_chart(rates, list(flags), comparisons)
    bar, star = fig.data[0], next(t for t in fig.data if t.name == plotting.PARITY_LEGEND)
    assert "False positive rate: 0.3000 (95 % CI 0.2700–0.3400)" in bar.hovertext[1]  # the rate: nominal level
    assert "disparity 0.1000 (98.75 % CI 0.0500–0.1500): interval excludes parity" in bar.hovertext[1]
    assert "adjusted for 4 comparisons (Holm)" in bar.hovertext[1] and "adjusted for 4" in star.hovertext[0]


def test_rate_chart_without_interval_columns_looks_as_before():
    rates = _rates(ci=None, intervals=False).drop(columns=["small_reason"])
    flags = {"false_positive_rate": None, "false_negative_rate": None}
    fig = plotting.rate_chart(rates, list(flags), _comparisons(rates, flags, intervals=False))
    assert all(t.error_x.array is None for t in fig.data)
    assert not any("CI" in h or "disparity" in h for t in fig.data if t.hovertext for h in t.hovertext)
    assert plotting.PARITY_LEGEND not in [t.name for t in fig.data]
    assert list(fig.layout.xaxis.range) == [0, 1.02] and list(fig.layout.xaxis2.range) == [0, 1.02]
    assert "False positive rate: 0.2000<br>size 500" in fig.data[0].hovertext[0]
    no_small = plotting.rate_chart(rates.assign(small=False), ["false_positive_rate"])
    assert no_small.data[0].marker.pattern.shape is None and len(no_small.data) == 1


def test_reliability_chart_wilson_error_bars_and_small_subgroups():
    table = pd.DataFrame({
        "subgroup": ["x", "x", "x", "tiny", "tiny", "tiny"], "bin": [0, 1, 2, 0, 1, 2],
        "bin_lower": [0, 1 / 3, 2 / 3] * 2, "bin_upper": [1 / 3, 2 / 3, 1] * 2, "count": [40, 0, 60, 3, 5, 0],
        "mean_predicted": [0.2, np.nan, 0.8, 0.1, 0.5, np.nan],
        "fraction_positive": [0.25, np.nan, 0.75, 0.0, 0.4, np.nan],
        "fraction_positive_ci_low": [0.14, np.nan, 0.63, 0.0, 0.12, np.nan],
        "fraction_positive_ci_high": [0.40, np.nan, 0.84, 0.56, 0.77, np.nan],
    })
    table.attrs["ci"] = 0.95
    small = pd.DataFrame({"subgroup": ["x", "tiny"], "small": [False, True],
                          "small_reason": ["", "8 rows < minimum 30"]})
    fig = plotting.reliability_chart(table, small=small)
    x_curve, tiny = _visible(fig)[1:]
    np.testing.assert_allclose(x_curve.error_y.array, [0.15, 0.09])  # empty bin skipped
    np.testing.assert_allclose(x_curve.error_y.arrayminus, [0.11, 0.12])
    np.testing.assert_allclose(tiny.error_y.array, [0.56, 0.37])
    assert "fraction of positives 0.750 (95 % CI 0.630–0.840)" in x_curve.hovertext[1]
    assert tiny.name == "tiny (small)" and tiny.line.dash == "dot" and tiny.opacity < 1
    assert all("small subgroup: 8 rows &lt; minimum 30" in h for h in tiny.hovertext)
    assert x_curve.line.dash is None and x_curve.opacity is None
    assert plotting.SMALL_LEGEND["line"] in _legend_names(fig)
    # the flag may also sit on the bin rows themselves
    flagged = plotting.reliability_chart(table.assign(small=table["subgroup"] == "tiny"))
    assert flagged.data[2].name == "tiny (small)" and plotting.SMALL_TEXT in flagged.data[2].hovertext[0]
    plain = plotting.reliability_chart(table.drop(columns=["fraction_positive_ci_low", "fraction_positive_ci_high"]))
    # the diagonal, two curves and the legend entry of faint (few-row) bins: tiny's bins hold 3 and 5 rows
    assert all(t.error_y.array is None for t in plain.data) and len(plain.data) == 4


def test_reliability_chart_fades_each_bin_by_its_rows():
    table = pd.DataFrame({
        "subgroup": ["x"] * 4 + ["y"] * 2, "bin": [0, 1, 2, 3, 0, 1],
        "bin_lower": [0, 0.25, 0.5, 0.75, 0, 0.5], "bin_upper": [0.25, 0.5, 0.75, 1, 0.5, 1],
        "count": [1, 3, 15, 400, 30, 0],
        "mean_predicted": [0.1, 0.4, 0.6, 0.9, 0.3, np.nan], "fraction_positive": [1.0, 0.0, 0.6, 0.88, 0.3, np.nan],
    })
    fig = plotting.reliability_chart(table)
    x_curve, y_curve = _visible(fig)[1:]
    # opacity = rows / 30, at least 0.15: a bin of 1 or 3 rows is faint, 15 rows half, 30 or more full
    assert list(x_curve.marker.opacity) == [0.15, pytest.approx(0.15), 0.5, 1.0]
    assert list(y_curve.marker.opacity) == [1.0]   # the empty bin is not drawn
    assert x_curve.marker.size == 8 and "count 1" in x_curve.hovertext[0] and "count 400" in x_curve.hovertext[3]
    legend = [t for t in fig.data if t.name and t.name.startswith("Faint point")]
    assert [t.name for t in legend] == ["Faint point: a bin of fewer than 30 rows<br>(fainter = fewer; count on hover)"]
    assert legend[0].showlegend and legend[0].marker.opacity < 1
    # every bin drawn at full weight: no such legend entry
    full = plotting.reliability_chart(table[table["subgroup"] == "y"])
    assert not any(t.name and t.name.startswith("Faint point") for t in full.data)


def test_pairwise_heatmap_title_sits_above_its_rotated_column_labels():
    long = ["race=African-American, sex=Female", "race=Caucasian, sex=Male", "race=Other, sex=Female"]
    fig = plotting.pairwise_heatmap(_pairs(long), title="False positive rate: every pair of subgroups")
    layout = fig.layout
    assert layout.xaxis.side == "top" and layout.xaxis.tickangle == -30 and layout.xaxis.automargin is True
    # the title is pinned to the top of the figure, the plot area starts below the labels' height and the title's
    assert (layout.title.yref, layout.title.y, layout.title.yanchor) == ("container", 1, "top")
    label_height = 0.5 * 6.4 * len(long[0])   # sin 30° × the longest label's width at 6.4 px a character
    assert len(long[0]) == 33 and layout.margin.t == int(np.ceil(label_height)) + 22 + 44 == 172
    assert layout.height >= 36 * 3 + layout.margin.t
    # without a title the margin holds only the labels; short names need less room
    assert plotting.pairwise_heatmap(_pairs(long)).layout.margin.t == 172 - 44 + 10
    assert plotting.pairwise_heatmap(_pairs(["a", "b", "c"]), title="t").layout.margin.t == 4 + 22 + 44


def test_ratio_score_chart_draws_its_rule_with_add_rule_line_and_intervals():
    table = pd.DataFrame({
        "subgroup": ["a", "b", "c"], "size": [500, 400, 20], "reference_size": [420, 520, 900],
        "subgroup_value": [0.5, 0.35, 0.2], "reference_value": [0.45, 0.5, 0.45],
        "score": [0.9, 0.7, 0.44], "small": [False, False, True], "note": ["", "", "<note>"],
    })
    scored = table.assign(score_ci_low=table["score"] - 0.1, score_ci_high=np.minimum(table["score"] + 0.08, 1.0),
                          excludes_parity=[False, True, pd.NA])
    scored.attrs["ci"] = 0.99
    fig = plotting.ratio_score_chart({"p% score": scored, "Equal opportunity score": table})
    assert [s.x0 for s in fig.layout.shapes] == [0.8, 0.8]
    assert [a.text for a in fig.layout.annotations if "rule" in a.text] == ["80% rule"]
    bars = [t for t in fig.data if t.type == "bar"]
    np.testing.assert_allclose(bars[0].error_x.array, [0.08, 0.08, 0.08])
    np.testing.assert_allclose(bars[0].error_x.arrayminus, [0.1, 0.1, 0.1])
    assert bars[1].error_x.array is None
    assert "score 0.7000 (99 % CI 0.6000–0.7800)" in bars[0].hovertext[1]
    assert "&lt;note&gt;" in bars[0].hovertext[2] and plotting.SMALL_TEXT in bars[0].hovertext[2]
    assert list(bars[1].marker.pattern.shape) == ["", "", plotting.SMALL_PATTERN]
    stars = [t for t in fig.data if t.name == plotting.PARITY_LEGEND]
    assert len(stars) == 1 and list(stars[0].y) == ["b"]


def test_ratio_score_panels_share_tick_labels_when_small_differs_by_denominator():
    p_score = pd.DataFrame({"subgroup": ["a", "b", "c"], "size": [500, 40, 20], "subgroup_value": [0.5, 0.4, 0.2],
                            "reference_value": [0.45, 0.5, 0.45], "score": [0.9, 0.8, 0.44],
                            "small": [False, False, True], "note": ""})
    opportunity = p_score.assign(small=[False, True, True],
                                 small_reason=["", "12 actual positives < minimum 30", "20 rows < minimum 30"])
    fig = plotting.ratio_score_chart({"p% score": p_score, "Equal opportunity score": opportunity})
    first, second = [t for t in fig.data if t.type == "bar"]
    assert list(first.y) == list(second.y) == ["a", "b", "c (small)"]
    assert list(first.marker.pattern.shape) == ["", "", "/"] and list(second.marker.pattern.shape) == ["", "/", "/"]
    assert "12 actual positives &lt; minimum 30" in second.hovertext[1]


def test_classwise_chart_error_bars_and_hatched_small_subgroups():
    table = pd.DataFrame({
        "subgroup": ["a", "a", "b", "b"], "class": ["cat", "dog", "cat", "dog"], "size": [100, 100, 12, 12],
        "small": [False, False, True, True], "n_true": [60, 40, 7, 5], "n_predicted": [55, 45, 6, 6],
        "tp": [50, 35, 5, 4], "fscore": [0.87, 0.82, 0.77, 0.73],
    })
    table["fscore_ci_low"], table["fscore_ci_high"] = table["fscore"] - 0.1, table["fscore"] + 0.05
    fig = plotting.classwise_chart(table, "fscore")
    a, b = [t for t in fig.data if t.type == "bar"]
    np.testing.assert_allclose(a.error_y.array, [0.05, 0.05])
    np.testing.assert_allclose(a.error_y.arrayminus, [0.1, 0.1])
    assert "F-score 0.8700 (CI 0.7700–0.9200)" in a.hovertext[0]
    assert a.marker.pattern.shape is None and b.marker.pattern.shape == plotting.SMALL_PATTERN
    assert b.name == "b (small)" and plotting.SMALL_TEXT in b.hovertext[0]
    assert plotting.SMALL_LEGEND["bar"] in _legend_names(fig)
    plain = plotting.classwise_chart(table.drop(columns=["fscore_ci_low", "fscore_ci_high"]), "fscore")
    assert all(t.error_y.array is None for t in plain.data)


def test_add_rule_line_draws_a_dashed_labelled_line():
    import plotly.graph_objects as go

    fig = plotting.add_rule_line(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])), 0.1, "Bound <0.1>")
    (shape,), (note,) = fig.layout.shapes, fig.layout.annotations
    assert shape.y0 == shape.y1 == 0.1 and shape.line.dash == "dash" and shape.line.color == plotting.RULE_COLOR
    assert note.text == "Bound &lt;0.1&gt;" and note.y == 0.1
    plotting.add_rule_line(fig, 0.8, "Four-fifths rule (0.8)", axis="x", color="grey")
    assert fig.layout.shapes[1].x0 == fig.layout.shapes[1].x1 == 0.8
    assert fig.layout.annotations[1].text == "Four-fifths rule (0.8)"
    plotting.add_rule_line(fig, 0.9, None)
    assert len(fig.layout.shapes) == 3 and len(fig.layout.annotations) == 2
    with pytest.raises(ValueError, match=re.escape(plotting.RULE_AXIS_MESSAGE.format(got="z"))):
        plotting.add_rule_line(fig, 0.5, "x", axis="z")
    with pytest.raises(ValueError, match=re.escape(plotting.RULE_VALUE_MESSAGE.format(got=float("nan")))):
        plotting.add_rule_line(fig, float("nan"), "x")


def test_no_data_text_reaches_a_figure_unescaped():
    names = HOSTILE + ["ok"]
    small = [False, True, False, False]
    reasons = ["", '<i>2 rows</i> < minimum, see http://x.y', "", ""]
    auc = _auc_table().assign(subgroup=names, small=small, small_reason=reasons)
    rates = _rates().assign(subgroup=names, small=small, small_reason=reasons, note=["<u>n</u>", "", "", ""])
    flags = {"false_positive_rate": [True, True, False, True], "false_negative_rate": [False] * 4}
    comparisons = _comparisons(rates, flags)
    ratio = comparisons["false_positive_rate"].assign(
        size=rates["size"], subgroup_value=0.3, score=0.8, note="", excludes_parity=True)
    reliability = pd.DataFrame({"subgroup": names, "bin": 0, "bin_lower": 0.0, "bin_upper": 1.0, "count": 10,
                                "mean_predicted": 0.5, "fraction_positive": 0.4, "small": small,
                                "small_reason": reasons})
    classes = pd.DataFrame({"subgroup": names, "class": HOSTILE[::-1] + ["c"], "size": 10, "small": small,
                            "small_reason": reasons, "n_true": 5, "n_predicted": 5, "tp": 3, "recall": 0.6})
    title = "Column <b>x</b> http://2130706433/"
    figs = [
        plotting.auc_chart(auc, title=title),
        plotting.rate_chart(rates, list(flags), comparisons, reference_label=f"Reference: {HOSTILE[1]}",
                            title=title, labels={"false_positive_rate": HOSTILE[0]}),
        plotting.reliability_chart(reliability, title=title),
        plotting.ratio_score_chart({HOSTILE[0]: ratio, HOSTILE[2]: ratio}, title=title),
        plotting.classwise_chart(classes, "recall", title=title),
        plotting.classwise_chart(classes.rename(columns={"recall": HOSTILE[0]}), HOSTILE[0]),
        plotting.pairwise_heatmap(_pairs(names, reasons), title=title, value_label=HOSTILE[0], label=HOSTILE[2]),
    ]
    for fig in figs:
        _assert_escaped(fig)
    assert "&lt;b&gt;x&lt;/b&gt;" in figs[0].data[0].y
    assert "&lt;i&gt;2 rows&lt;/i&gt; &lt; minimum" in figs[1].data[0].hovertext[1]


# Axis range, order, pairwise heatmap ---------------------------------------------------


def test_auc_chart_full_range_and_order():
    table = _auc_table()
    fitted = plotting.auc_chart(table)
    full = plotting.auc_chart(table, full_range=True)
    assert list(full.layout.xaxis.range) == [-0.02, 1.02] and list(fitted.layout.xaxis.range) != [-0.02, 1.02]
    assert [s.x0 for s in full.layout.shapes] == [0.5]
    good = table.drop(columns=[c for c in table.columns if "_ci_" in c])
    good[list(plotting.AUC_COLUMNS)] = 0.95
    assert [s.x0 for s in plotting.auc_chart(good, full_range=True).layout.shapes] == [0.5]  # chance shown anyway
    assert len(plotting.auc_chart(good).layout.shapes) == 0
    order = ["Asian", "Other", "Native American", "African-American"]
    fig = plotting.auc_chart(table, order=order)
    assert list(fig.data[0].y) == ["Asian (small)", "Other", "Native American (small)", "African-American"]
    np.testing.assert_allclose(fig.data[1].x, table.set_index("subgroup").loc[order, "bpsn_auc"])
    assert "size 32" in fig.data[0].hovertext[0]  # the hover moves with its row


def test_charts_draw_subgroups_in_order_and_keep_their_colours():
    rates = _rates()
    colors = plotting.subgroup_colors(list(rates["subgroup"]))
    order = ["d", "b"]  # the others follow in table order
    fig = plotting.rate_chart(rates, ["false_positive_rate"], order=order)
    bars = fig.data[0]
    assert list(bars.y) == ["d", "b", "a", "c (small)"]
    np.testing.assert_allclose(bars.x, [0.1, 0.3, 0.2, 0.25])
    assert list(bars.marker.color) == [colors[n] for n in ["d", "b", "a", "c"]]
    errors = rates.rename(columns={"false_positive_rate": "l2_ece"})
    fig = plotting.calibration_error_chart(errors, order=order)
    assert list(fig.data[0].y) == ["d", "b", "a", "c (small)"]
    assert list(fig.data[0].marker.color) == [colors[n] for n in ["d", "b", "a", "c"]]
    classes = pd.DataFrame({"subgroup": ["a", "a", "b", "b"], "class": ["u", "v", "u", "v"], "size": 10,
                            "small": False, "n_true": 5, "n_predicted": 5, "tp": 3, "recall": [0.1, 0.2, 0.3, 0.4]})
    fig = plotting.classwise_chart(classes, "recall", order=["b", "a"])
    assert [t.name for t in fig.data] == ["b", "a"]
    assert [t.marker.color for t in fig.data] == [plotting.subgroup_colors(["a", "b"])[n] for n in ["b", "a"]]
    ratio = _comparisons(rates, {"false_positive_rate": [True] * 4})["false_positive_rate"].assign(
        size=rates["size"], subgroup_value=0.3, score=[0.9, 0.7, 0.8, 0.6], note="")
    fig = plotting.ratio_score_chart({"p% score": ratio}, order=["d", "b", "c", "a"])
    np.testing.assert_allclose(fig.data[0].x, [0.6, 0.7, 0.8, 0.9])


def _pairs(names, reasons=None):
    """A pairwise comparison table of `names` (each unordered pair once, in name order)."""
    rows = []
    values = {n: 0.1 * (i + 1) for i, n in enumerate(names)}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            rows.append({"subgroup": a, "reference": b, "size": 100, "reference_size": 50, "numerator": 10,
                         "denominator": 100, "reference_numerator": 10, "reference_denominator": 50,
                         "subgroup_value": values[a], "reference_value": values[b],
                         "disparity": abs(values[a] - values[b]), "small": False, "note": "", "small_reason": ""})
    table = pd.DataFrame(rows)
    if reasons is not None and len(table):
        table.loc[0, ["small", "small_reason", "note"]] = [True, reasons[1], "<u>n</u>"]
    return table


def test_pairwise_heatmap_is_the_symmetric_matrix_of_the_table():
    table = _pairs(["a", "b", "c"])
    table.loc[2, ["disparity", "note"]] = [np.nan, "b has no positives: its rate is undefined"]
    table["disparity_ci_low"], table["disparity_ci_high"] = table["disparity"] - 0.01, table["disparity"] + 0.02
    table["excludes_parity"] = pd.array([True, False, pd.NA], dtype="boolean")
    table.attrs["ci"] = 0.9
    fig = plotting.pairwise_heatmap(table)
    trace = fig.data[0]
    assert trace.type == "heatmap" and list(trace.x) == list(trace.y) == ["a", "b", "c"]
    z = [list(row) for row in trace.z]
    assert z == [[None, pytest.approx(0.1), pytest.approx(0.2)], [pytest.approx(0.1), None, None],
                 [pytest.approx(0.2), None, None]]
    assert trace.text[0][1] == "0.1*" and trace.text[0][2] == "0.2" and trace.text[1][2] == ""
    assert "b has no positives" in trace.hovertext[1][2] and "b has no positives" in trace.hovertext[2][1]
    assert "the same subgroup" in trace.hovertext[0][0]
    hover = trace.hovertext[1][0]  # row b, column a: b's side first
    assert "90 % CI 0.09–0.12" in hover and "interval excludes parity" in hover
    assert hover.index("b: value 0.2") < hover.index("a: value 0.1") and "10 of 50; 50 rows" in hover
    assert trace.zmin == 0 and trace.zmax == pytest.approx(0.2)
    # an order puts rows and columns worst first; a ratio starts the colour scale at 1 and shows infinity
    ratio = _pairs(["a", "b", "c"]).assign(disparity=[2.0, np.inf, 1.5])
    fig = plotting.pairwise_heatmap(ratio, distance_measure="ratio", order=["c", "a", "b"])
    trace = fig.data[0]
    assert list(trace.y) == ["c", "a", "b"] and trace.zmin == 1 and trace.zmax == 2
    assert trace.text[0][1] == "∞" and trace.z[0][1] == 2  # the infinite ratio takes the top colour
    assert trace.z[1][2] == 2 and trace.z[0][2] == 1.5
    with pytest.raises(ValueError, match="'diff' or 'ratio'"):
        plotting.pairwise_heatmap(table, distance_measure="log")
    with pytest.raises(ValueError, match="Missing: reference"):
        plotting.pairwise_heatmap(table.drop(columns="reference"))


def test_pairwise_heatmap_marks_small_comparisons_and_hides_cell_text_when_crowded():
    table = _pairs(["a", "b", "c"], reasons=["", "b: 20 rows < minimum 30"])
    fig = plotting.pairwise_heatmap(table)
    assert fig.data[0].text[0][1] == "(0.1)" and "b: 20 rows &lt; minimum 30" in fig.data[0].hovertext[0][1]
    assert [a.text for a in fig.layout.annotations] == ["(value): a small comparison (reason on hover)"]
    crowded = plotting.pairwise_heatmap(_pairs([f"g{i:02d}" for i in range(16)]))
    assert crowded.data[0].texttemplate is None and len(crowded.data[0].y) == 16


@pytest.mark.parametrize("axis", ["x", "y"])
@pytest.mark.parametrize("label", ["bound <0.1>", None])
def test_rule_line_parts_are_what_add_rule_line_draws_on_a_figure_without_subplots(axis, label):
    import plotly.graph_objects as go

    from fairness_core.plotting._common import add_rule_line, rule_line_parts

    drawn = add_rule_line(go.Figure(), 0.25, label, axis=axis, color="#333333").to_plotly_json()["layout"]
    shape, note = rule_line_parts(0.25, label, axis=axis, color="#333333")
    built = go.Figure(layout=dict(shapes=[shape], annotations=[note] if note else [])).to_plotly_json()["layout"]
    assert built["shapes"] == drawn["shapes"] and built.get("annotations", []) == drawn.get("annotations", [])
    assert (note is None) == (label is None) and (label is None or note["text"] == "bound &lt;0.1&gt;")
    with pytest.raises(ValueError, match="'axis' parameter"):
        rule_line_parts(0.25, label, axis="z")


def test_rule_line_parts_on_a_second_panel_with_a_label_at_the_bottom_right():
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from fairness_core.plotting._common import add_rule_line, rule_line_parts

    fig = make_subplots(rows=1, cols=2, shared_yaxes=True)
    for col in (1, 2):
        fig.add_trace(go.Bar(x=[1.0], y=["a"], orientation="h"), row=1, col=col)
    drawn = add_rule_line(fig, 0.1, "bound", axis="x", row=1, col=2, position="bottom right").to_plotly_json()
    shape, note = rule_line_parts(0.1, "bound", axis="x", position="bottom right", panel=2)
    assert drawn["layout"]["shapes"] == [shape]
    assert [a for a in drawn["layout"]["annotations"] if a["text"] == "bound"] == [note]
    with pytest.raises(ValueError, match="'position' of rule_line_parts"):
        rule_line_parts(0.1, "bound", axis="y", position="bottom right")


def test_discovery_chart_draws_small_subgroups_apart_without_a_verdict():
    """The report's chart of subgroups found: a subgroup with too few held-out rows is its own hollow trace, never
    counted as "interval includes parity", and the others keep their verdict's colour."""
    from fairness_core.plotting._discovered import FOUND_LEGEND, OTHER_LEGEND, SMALL_LEGEND, discovery_chart

    rng = np.random.default_rng(3)
    n = 4000
    frame = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.choice(["u", "v", "w", "t"], n, p=[.4, .4, .19, .01])})
    y = (rng.random(n) < 0.5).astype(int)
    pred = ((rng.random(n) < 0.4) | ((frame["a"] == "x") & (rng.random(n) < 0.4))).astype(int)
    table = fc.discover_subgroups(y, pred, frame, depth=2, min_size=30, top_k=10).table
    fig = discovery_chart(table, level=0.95)
    counts = {trace.name: len(trace.y) for trace in fig.data}
    assert counts.get(SMALL_LEGEND, 0) == int(table["small"].sum())
    assert counts.get(FOUND_LEGEND, 0) == int((table["excludes_parity"] & ~table["small"]).sum()) > 0
    assert sum(counts.values()) == len(table) == 10
    assert OTHER_LEGEND in counts or counts.get(FOUND_LEGEND, 0) + counts.get(SMALL_LEGEND, 0) == 10
