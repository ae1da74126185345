"""Figure builders: inspect fig.data and fig.layout (not pixels)."""

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


def test_auc_chart_draws_the_table_and_the_chance_line(data):
    y, p, groups = data
    table = fc.bias_auc_table(y, p, groups)
    fig = plotting.auc_chart(table)
    assert [t.name for t in fig.data] == ["Subgroup AUC", "BPSN AUC", "BNSP AUC"]
    np.testing.assert_allclose(fig.data[1].x, table["bpsn_auc"])
    labels = list(fig.data[0].y)
    assert labels[0] == "&lt;i&gt;c&lt;/i&gt; (small)"  # data text escaped, small subgroup marked
    assert [s.x0 for s in fig.layout.shapes] == [0.5]


def test_rate_chart_has_a_panel_per_rate_with_reference_markers(data):
    y, p, groups = data
    counts = fc.confusion_counts(y, (p >= 0.5).astype(int), groups)
    rates = counts.table()
    refs = {m: counts.disparity(m, reduction=None) for m in ["true_positive_rate", "false_positive_rate"]}
    fig = plotting.rate_chart(rates, list(refs), refs, reference_label="Rest of population")
    bars = [t for t in fig.data if t.type == "bar"]
    markers = [t for t in fig.data if t.type == "scatter"]
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
