"""Subgroup labels are unique by construction, and odd numeric columns are binned correctly."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc


def _groups(frame, columns=None):
    return fc.Subgroups.from_attributes(frame, columns or list(frame.columns), min_size=1)


def test_infinities_fall_in_the_end_bins_named_as_such():
    x = pd.Series([1.0, 2.0, np.inf, -np.inf, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0] * 3)
    groups = _groups(pd.DataFrame({"x": x}))
    assert groups.names[0].startswith("[-inf, ") and groups.names[-1].endswith(", inf]")
    assert not any("nan" in name for name in groups.names)
    assert groups.sizes.sum() == len(x)   # no row lost to (missing)
    assert groups.membership[x.to_numpy() == -np.inf, 0].all() and groups.membership[x.to_numpy() == np.inf, -1].all()


def test_integer_ids_beyond_2_to_the_53_are_binned_exactly():
    ids = np.arange(2 ** 60, 2 ** 60 + 40, dtype=np.int64)
    groups = _groups(pd.DataFrame({"id": ids}))
    assert len(groups.names) == 4 and "(missing)" not in groups.names
    np.testing.assert_array_equal(groups.sizes, [10, 10, 10, 10])
    assert groups.names[0] == f"[{2 ** 60}, {2 ** 60 + 9}]"


def test_bins_are_printed_with_enough_digits_to_differ():
    epoch = pd.DataFrame({"t": 1.7e9 + np.arange(40.0)})
    names = _groups(epoch).names
    assert len(set(names)) == len(names) == 4


def test_equal_texts_of_different_values_get_their_type():
    names = _groups(pd.DataFrame({"a": ["(missing)", None, "x", "x"]})).names
    assert names == ["(missing) (str)", "x", "(missing)"]
    names = _groups(pd.DataFrame({"a": pd.Series([1, "1", 2, 2], dtype=object)})).names
    assert names == ["1 (int)", "1 (str)", "2"]


def test_intersection_values_holding_the_separators_are_quoted():
    frame = pd.DataFrame({"a": ["x, b=y", "x", "x"], "b": ["z", "y, b=z", "y"]})
    names = _groups(frame).names
    assert len(set(names)) == 3
    assert 'a="x, b=y", b=z' in names and "a=x, b=y" in names
    assert _groups(frame, ["a"]).names == ["x", "x, b=y"]   # one column: the value itself


def test_a_subgroup_called_like_a_keyword_is_addressed_by_a_named_reference():
    rng = np.random.default_rng(2)
    n = 3000
    group = rng.choice(["rest", "overall", "pairwise", "other"], size=n)
    y = rng.integers(0, 2, n)
    pred = (rng.random(n) < np.where(group == "rest", 0.6, 0.3)).astype(int)
    counts = fc.confusion_counts(y, pred, group)
    named = counts.disparity("statistical_parity", reference=fc.named_reference("rest"), reduction=None)
    assert set(named["reference"]) == {"rest"} and "rest" not in set(named["subgroup"])
    rates = pd.Series(pred).groupby(group).mean()
    expected = (rates.drop("rest") - rates["rest"]).abs()
    np.testing.assert_allclose(named.set_index("subgroup")["disparity"].loc[expected.index], expected, rtol=1e-12)
    # The plain string is still the keyword: each subgroup against the rest of the rows.
    keyword = counts.disparity("statistical_parity", reference="rest", reduction=None)
    assert len(keyword) == 4 and set(keyword["reference"]) == {"rest"} and "rest" in set(keyword["subgroup"])
    assert not np.allclose(keyword.set_index("subgroup")["disparity"].loc[expected.index], expected)
    # Findings name the subgroup, not "everyone else".
    top = fc.rate_findings(counts, ["statistical_parity"], reference=fc.named_reference("rest"), ci=None)
    assert top and "everyone else" not in top[0].sentence and "rest" in top[0].sentence
    result = counts.disparity("statistical_parity", reference=fc.named_reference("pairwise"), reduction="max")
    assert len(result.table) == 3   # against the subgroup "pairwise", not every pair


def test_nullable_labels_with_a_missing_value_exclude_and_count_that_row():
    frame = pd.DataFrame({"s": np.linspace(0, 1, 60), "g": ["a", "b"] * 30})
    for dtype, positive in (("Int64", 1), ("boolean", True)):
        frame["y"] = pd.array([1, 0, None, 1, 0, 1] * 10, dtype="Int64").astype(dtype)
        frame["p"] = pd.array([1, None, 0, 1, 0, 0] * 10, dtype="Int64").astype(dtype)
        data = fc.ScoredData.from_frame(frame, fc.ColumnMapping(label="y", positive_label=positive, scores=("s",),
                                                                predicted_label="p", protected=("g",)))
        assert data.n_rows == 40 and int(data.y_true.sum()) == 30
        assert dict(data.exclusions.values.tolist()) == {"missing label": 10, "missing predicted label in 'p'": 10}


def test_labels_that_read_alike_but_differ_in_type_are_refused():
    frame = pd.DataFrame({"y": pd.Series([1, "1"] * 20, dtype=object), "s": np.linspace(0, 1, 40), "g": ["a", "b"] * 20})
    with pytest.raises(ValueError, match="read alike but differ in type: 1, '1'"):
        fc.ScoredData.from_frame(frame, fc.ColumnMapping(label="y", positive_label=1, scores=("s",), protected=("g",)))


def test_identity_values_outside_0_1_are_refused_with_the_range():
    frame = pd.DataFrame({"count": [0, 3, 5, 1] * 10})
    with pytest.raises(ValueError, match=r"'count' holds values from 0 to 5, outside \[0, 1\]"):
        fc.Subgroups.from_indicators(frame, ["count"])


def test_default_threshold_of_huge_scores_does_not_overflow():
    assert fc.default_threshold(np.array([1e308, 1.5e308])) == pytest.approx(1.25e308)
    assert fc.default_threshold(np.array([0.0, 1.79e308])) == pytest.approx(0.895e308)
