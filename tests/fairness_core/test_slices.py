"""Slices and subset_score (scikit-lego's subset score), against filtering the data by hand."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, recall_score

import fairness_core as fc
from fairness_core._subgroups.slices import CONDITION_MESSAGE, EMPTY_SLICE_WARNING, MASK_MESSAGE, RANGE_TYPE_MESSAGE

FRAME = pd.DataFrame({
    "region": ["N", "S", "N", None, "E", "S"],
    "age": [25, 40, 61, 33, np.nan, 18],
    "code": [1.0, 2.0, 1.0, 2.0, 3.0, 1.0],
})


def test_categorical_condition_matches_display_text_including_missing():
    assert fc.Condition("region", values=("N",)).mask(FRAME).tolist() == [True, False, True, False, False, False]
    assert fc.Condition("region", values=("(missing)", "E")).mask(FRAME).tolist() == [
        False, False, False, True, True, False]
    # 1.0 is shown (and matched) as '1'
    assert fc.Condition("code", values=("1",)).mask(FRAME).tolist() == [True, False, True, False, False, True]


def test_range_condition_is_closed_and_leaves_out_missing():
    assert fc.Condition("age", low=18, high=40).mask(FRAME).tolist() == [True, True, False, True, False, True]


def test_slice_is_the_and_of_its_conditions_and_describes_itself():
    s = fc.Slice((fc.Condition("region", values=("N", "S")), fc.Condition("age", low=20, high=70)))
    assert s.mask(FRAME).tolist() == [True, True, True, False, False, False]
    assert s.describe() == "region in {N, S} and 20 <= age <= 70"
    assert fc.Slice().mask(FRAME).all() and fc.Slice().describe() == "all rows"


def test_bad_conditions_raise_clear_messages():
    with pytest.raises(ValueError, match=re.escape(CONDITION_MESSAGE.format(column="age", values=(), low=1, high=None))):
        fc.Condition("age", low=1)
    with pytest.raises(ValueError, match=re.escape(RANGE_TYPE_MESSAGE.format(column="region", dtype=FRAME["region"].dtype))):
        fc.Condition("region", low=0, high=1).mask(FRAME)
    with pytest.raises(ValueError, match="'nope' is not in the data"):
        fc.Condition("nope", values=("x",)).mask(FRAME)


def test_subset_score_equals_the_metric_on_the_filtered_rows():
    y = np.array([1, 0, 1, 1, 0, 1])
    p = np.array([1, 1, 0, 1, 0, 0])
    mask = FRAME["region"].eq("N") | FRAME["region"].eq("S")
    assert fc.subset_score(accuracy_score, mask, y, p) == accuracy_score(y[mask], p[mask])
    assert fc.subset_score(recall_score, mask.to_numpy(), y_true=list(y), y_pred=p) == recall_score(y[mask], p[mask])


def test_subset_score_slices_subgroups_and_frames(compas):
    y = compas["two_year_recid"].to_numpy()
    p = (compas["decile_score"] >= 5).astype(int).to_numpy()
    mask = (compas["sex"] == "Female").to_numpy()
    groups = fc.Subgroups.from_attributes(compas, ["race"], min_size=1)
    got = fc.subset_score(fc.rate_disparity, mask, y, p, groups, metric="false_positive_rate", reduction=None)
    sub = compas[mask]
    expected = fc.rate_disparity(sub["two_year_recid"], (sub["decile_score"] >= 5).astype(int),
                                 fc.Subgroups.from_attributes(sub, ["race"], min_size=1),
                                 metric="false_positive_rate", reduction=None)
    pd.testing.assert_frame_equal(got, expected)
    # A protected-attribute frame is sliced too: female African-American FPR by hand.
    table = fc.subset_score(fc.group_rates, mask, y, p, compas[["race"]])
    aa = sub[(sub["race"] == "African-American") & (sub["two_year_recid"] == 0)]
    fpr = (aa["decile_score"] >= 5).mean()
    assert table.set_index("subgroup").loc["African-American", "false_positive_rate"] == pytest.approx(fpr, abs=1e-12)


def test_empty_slice_warns_and_gives_nan():
    with pytest.warns(RuntimeWarning, match=re.escape(EMPTY_SLICE_WARNING)):
        assert np.isnan(fc.subset_score(accuracy_score, [False, False], [1, 0], [1, 0]))


def test_mask_must_be_one_dimensional_boolean():
    with pytest.raises(ValueError, match=re.escape(MASK_MESSAGE.format(shape=(2,), dtype="int64"))):
        fc.subset_score(accuracy_score, [1, 0], [1, 0], [1, 0])
