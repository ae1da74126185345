"""Property-based tests (hypothesis) for the metrics' invariants."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fairness_core as fc
from fairness_core._disparity.compare import ALONE_NOTE
from tests.support import examples

SETTINGS = settings(max_examples=examples(50), deadline=None)
GROUP_NAMES = ["a", "b", "c"]
METRICS = ["statistical_parity", "true_positive_rate", "false_positive_rate", "false_negative_rate",
           "false_omission_rate", "false_discovery_rate", "error_rate"]
REFERENCES = ["rest", "overall", "pairwise", "a"]

score_values = st.one_of(
    st.integers(0, 6).map(lambda k: k / 6),  # many ties
    st.floats(0.0, 1.0, allow_nan=False, allow_subnormal=False),
)


@st.composite
def labelled(draw, min_n=2, max_n=60):
    """(y, score, group) of one length; group always contains 'a' so it can be a named reference."""
    n = draw(st.integers(min_n, max_n))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=np.int64)
    s = np.array(draw(st.lists(score_values, min_size=n, max_size=n)), dtype=np.float64)
    g = draw(st.lists(st.sampled_from(GROUP_NAMES), min_size=n, max_size=n))
    g[0] = "a"
    return y, s, np.array(g, dtype=object)


def indicator_frame(draw, n):
    cols = {}
    for name in ("i1", "i2"):
        cols[name] = draw(st.lists(st.sampled_from([0.0, 1.0, 0.5, 0.2, np.nan]), min_size=n, max_size=n))
    return pd.DataFrame(cols)


# --------------------------------------------------------------------------------------------
# AUCs
# --------------------------------------------------------------------------------------------


@SETTINGS
@given(data=labelled(), perm_seed=st.randoms(use_true_random=False))
def test_auc_table_is_invariant_to_row_order(data, perm_seed):
    y, s, g = data
    perm = list(range(len(y)))
    perm_seed.shuffle(perm)
    perm = np.array(perm)
    original = fc.bias_auc_table(y, s, g)
    shuffled = fc.bias_auc_table(y[perm], s[perm], g[perm])
    pd.testing.assert_frame_equal(original, shuffled, check_exact=True)
    np.testing.assert_equal(original.attrs["overall_auc"], shuffled.attrs["overall_auc"])


@SETTINGS
@given(data=st.data())
def test_auc_table_with_overlapping_indicators_is_invariant_to_row_order(data):
    y, s, _ = data.draw(labelled())
    frame = indicator_frame(data.draw, len(y))
    perm = np.array(data.draw(st.permutations(range(len(y)))))
    original = fc.bias_auc_table(y, s, fc.Subgroups.from_indicators(frame, ["i1", "i2"]))
    shuffled_frame = frame.iloc[perm].reset_index(drop=True)
    shuffled = fc.bias_auc_table(y[perm], s[perm], fc.Subgroups.from_indicators(shuffled_frame, ["i1", "i2"]))
    pd.testing.assert_frame_equal(original, shuffled, check_exact=True)


@SETTINGS
@given(data=labelled())
def test_negating_scores_gives_one_minus_auc(data):
    y, s, g = data
    table = fc.bias_auc_table(y, s, g)
    flipped = fc.bias_auc_table(y, -s, g)
    for col in ("subgroup_auc", "bpsn_auc", "bnsp_auc"):
        a, b = table[col].to_numpy(), flipped[col].to_numpy()
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        defined = ~np.isnan(a)
        np.testing.assert_allclose(b[defined], 1.0 - a[defined], rtol=0, atol=1e-12)
        assert ((a[defined] >= 0) & (a[defined] <= 1)).all()
    overall, flipped_overall = table.attrs["overall_auc"], flipped.attrs["overall_auc"]
    if not np.isnan(overall):
        assert flipped_overall == pytest.approx(1.0 - overall, abs=1e-12)


# --------------------------------------------------------------------------------------------
# Rates and disparities
# --------------------------------------------------------------------------------------------


@SETTINGS
@given(data=labelled(), pred_bits=st.lists(st.integers(0, 1), min_size=60, max_size=60),
       metric=st.sampled_from(METRICS), reference=st.sampled_from(REFERENCES))
def test_ratio_disparity_is_at_least_one(data, pred_bits, metric, reference):
    y, _, g = data
    p = np.array(pred_bits[: len(y)])
    table = fc.rate_disparity(y, p, g, metric=metric, distance_measure="ratio", reduction=None, reference=reference)
    d = table["disparity"].to_numpy(dtype=float)
    assert (d[~np.isnan(d)] >= 1.0).all()
    # NaN exactly where one of the two rates is undefined, or the subgroup holds every row (nothing to compare).
    undefined = (table["subgroup_value"].isna().to_numpy() | table["reference_value"].isna().to_numpy()
                 | (table["note"] == ALONE_NOTE).to_numpy())
    np.testing.assert_array_equal(np.isnan(d), undefined)


@SETTINGS
@given(data=labelled(), reference=st.sampled_from(REFERENCES))
def test_perfect_predictions_give_perfect_rates_and_no_disparity(data, reference):
    y, _, g = data
    rates = fc.group_rates(y, y, g)
    has_pos, has_neg = rates["n_positive"] > 0, rates["n_negative"] > 0
    assert (rates.loc[has_pos, "true_positive_rate"] == 1.0).all()
    assert rates.loc[~has_pos, "true_positive_rate"].isna().all()
    assert (rates.loc[has_neg, "false_positive_rate"] == 0.0).all()
    assert rates.loc[~has_neg, "false_positive_rate"].isna().all()
    assert (rates["error_rate"] == 0.0).all()
    for func in (fc.true_positive_rate_disparity, fc.false_positive_rate_disparity, fc.equalized_odds):
        table = func(y, y, g, reference=reference, reduction=None)
        d = table["disparity"].to_numpy(dtype=float)
        assert (d[~np.isnan(d)] == 0.0).all()
        result = func(y, y, g, reference=reference, reduction="max", include_small=True)
        if (~np.isnan(d)).any():
            assert result.value == 0.0
        else:
            assert np.isnan(result.value)


@SETTINGS
@given(data=labelled(), pred_bits=st.lists(st.integers(0, 1), min_size=60, max_size=60))
def test_group_counts_sum_to_subgroup_sizes(data, pred_bits):
    y, _, g = data
    p = np.array(pred_bits[: len(y)])
    rates = fc.group_rates(y, p, g)
    assert list(rates["subgroup"]) == sorted(set(g))
    for _, row in rates.iterrows():
        mask = g == row["subgroup"]
        assert row["tp"] + row["fp"] + row["tn"] + row["fn"] == row["size"] == mask.sum()
        assert row["n_positive"] == y[mask].sum() and row["n_negative"] == (1 - y[mask]).sum()
        assert row["tp"] == ((y == 1) & (p == 1) & mask).sum()
    assert rates["size"].sum() == len(y)


# --------------------------------------------------------------------------------------------
# Calibration
# --------------------------------------------------------------------------------------------


@SETTINGS
@given(data=labelled(min_n=1), n_bins=st.integers(1, 20), strategy=st.sampled_from(["uniform", "quantile"]))
def test_ece_and_mce_lie_in_the_unit_interval(data, n_bins, strategy):
    y, s, g = data
    ece = fc.expected_calibration_error(y, s, n_bins=n_bins, strategy=strategy)
    mce = fc.maximum_calibration_error(y, s, n_bins=n_bins, strategy=strategy)
    assert 0.0 <= ece <= 1.0
    assert 0.0 <= mce <= 1.0
    assert mce >= ece - 1e-12  # the largest gap bounds the weighted mean gap
    errors = fc.calibration_errors(y, s, g, n_bins=n_bins, strategy=strategy, min_per_group=1)
    assert ((errors["ece"] >= 0) & (errors["ece"] <= 1)).all()


@SETTINGS
@given(data=labelled(min_n=1), n_bins=st.integers(1, 12))
def test_uniform_ece_equals_the_literal_formula(data, n_bins):
    y, s, _ = data
    edges = np.arange(n_bins + 1) / n_bins  # exact edges
    expected = 0.0
    for b in range(n_bins):
        last = b == n_bins - 1
        in_bin = (s >= edges[b]) & ((s <= edges[b + 1]) if last else (s < edges[b + 1]))
        if in_bin.any():
            expected += in_bin.sum() / len(s) * abs(y[in_bin].mean() - s[in_bin].mean())
    assert fc.expected_calibration_error(y, s, n_bins=n_bins) == pytest.approx(expected, abs=1e-12)
    table = fc.reliability_diagram(y, s, np.zeros(len(s)), n_bins=n_bins)
    assert table["count"].sum() == len(s)  # every score, including 1.0, is in some bin
