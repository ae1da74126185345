"""Subgroups: names, membership, background, small flags and crosstab."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core import MISSING, Subgroups
from fairness_core._subgroups.subgroups import COLUMN_MESSAGE, INDICATOR_TYPE_MESSAGE, NO_COLUMNS_MESSAGE


@pytest.fixture
def people():
    return pd.DataFrame({
        "race": ["B", "W", None, "B", "A", "W", "B"],
        "sex": ["F", "M", "F", "F", None, "F", "M"],
    })


def assert_consistent_codes(groups: Subgroups):
    """Disjoint subgroups: every row in exactly one, codes point at it, background = not member."""
    assert groups.codes is not None
    np.testing.assert_array_equal(groups.membership.sum(axis=1), np.ones(groups.n_samples))
    np.testing.assert_array_equal(groups.membership[np.arange(groups.n_samples), groups.codes],
                                  np.ones(groups.n_samples, bool))
    np.testing.assert_array_equal(groups.background, ~groups.membership)


def test_intersections_are_the_observed_combinations_sorted_with_missing_last(people):
    groups = Subgroups.from_attributes(people, ["race", "sex"])
    assert groups.names == [
        "race=A, sex=(missing)",
        "race=B, sex=F",
        "race=B, sex=M",
        "race=W, sex=F",
        "race=W, sex=M",
        "race=(missing), sex=F",
    ]  # e.g. "race=A, sex=F" is not observed, so it is not a subgroup
    row_group = ["race=B, sex=F", "race=W, sex=M", "race=(missing), sex=F", "race=B, sex=F",
                 "race=A, sex=(missing)", "race=W, sex=F", "race=B, sex=M"]
    expected = np.array([[name == row for name in groups.names] for row in row_group])
    np.testing.assert_array_equal(groups.membership, expected)
    assert_consistent_codes(groups)
    assert list(groups.sizes) == [1, 2, 1, 1, 1, 1]
    assert groups.min_size == 30 and groups.small.all()


def test_one_column_labels_are_the_values(people):
    groups = Subgroups.from_attributes(people, ["race"], min_size=2)
    assert groups.names == ["A", "B", "W", MISSING]
    assert list(groups.sizes) == [1, 3, 2, 1]
    assert list(groups.small) == [True, False, False, True]
    assert_consistent_codes(groups)
    np.testing.assert_array_equal(groups.membership[:, 1], (people["race"] == "B").to_numpy())
    np.testing.assert_array_equal(groups.membership[:, 3], people["race"].isna().to_numpy())


def test_whole_number_floats_are_labelled_as_integers():
    groups = Subgroups.from_attributes(pd.DataFrame({"grade": [2.0, 1.0, np.nan, 2.0]}), ["grade"])
    assert groups.names == ["1", "2", MISSING]


def test_without_intersection_every_value_is_a_subgroup(people):
    groups = Subgroups.from_attributes(people, ["race", "sex"], intersect=False)
    assert groups.names == ["race=A", "race=B", "race=W", f"race={MISSING}", "sex=F", "sex=M", f"sex={MISSING}"]
    np.testing.assert_array_equal(groups.membership.sum(axis=1), np.full(len(people), 2))  # overlapping
    race, sex = people["race"], people["sex"]
    expected = np.column_stack([race == "A", race == "B", race == "W", race.isna(),
                                sex == "F", sex == "M", sex.isna()])
    np.testing.assert_array_equal(groups.membership, expected)
    np.testing.assert_array_equal(groups.background, ~expected)
    assert list(groups.sizes) == [1, 3, 2, 1, 4, 2, 1]
    assert groups.codes is None


def test_numeric_column_with_many_values_is_binned_by_quantiles():
    # Ages 1..20 and one missing: quartiles of the 20 present values are 1, 5.75, 10.5, 15.25, 20.
    age = pd.Series(list(range(1, 21)) + [np.nan])
    groups = Subgroups.from_attributes(pd.DataFrame({"age": age}), ["age"], n_bins=4, min_size=5)
    assert groups.names == ["[1, 5.75]", "(5.75, 10.5]", "(10.5, 15.25]", "(15.25, 20]", MISSING]
    a = age.to_numpy()
    with np.errstate(invalid="ignore"):
        expected = np.column_stack([(a >= 1) & (a <= 5.75), (a > 5.75) & (a <= 10.5), (a > 10.5) & (a <= 15.25),
                                    (a > 15.25) & (a <= 20), np.isnan(a)])
    np.testing.assert_array_equal(groups.membership, expected)
    assert list(groups.sizes) == [5, 5, 5, 5, 1]
    assert list(groups.small) == [False, False, False, False, True]


def test_a_value_on_a_bin_edge_belongs_to_the_lower_bin():
    # Values 0..12 (13 > max_categories=10) in 2 bins: the median 6 is a value; bins are (lo, hi],
    # the first one closed, so 6 is in the first bin [0, 6].
    groups = Subgroups.from_attributes(pd.DataFrame({"x": range(13)}), ["x"], n_bins=2)
    assert groups.names == ["[0, 6]", "(6, 12]"]
    assert list(groups.sizes) == [7, 6]


def test_few_numeric_values_stay_categories():
    frame = pd.DataFrame({"x": [3, 1, 2, 3, 1] * 3})
    groups = Subgroups.from_attributes(frame, ["x"])
    assert groups.names == ["1", "2", "3"]
    binned = Subgroups.from_attributes(frame, ["x"], max_categories=2, n_bins=2)
    assert binned.names == ["[1, 2]", "(2, 3]"]


def test_min_size_flags_small_subgroups():
    frame = pd.DataFrame({"g": ["a"] * 30 + ["b"] * 29 + ["c"]})
    groups = Subgroups.from_attributes(frame, ["g"])
    assert list(groups.small) == [False, True, True]
    assert list(groups.with_min_size(2).small) == [False, False, True]


def test_from_attributes_errors(people):
    with pytest.raises(ValueError, match=re.escape(COLUMN_MESSAGE.format(
            func="from_attributes", col="age", available="'race', 'sex'"))):
        Subgroups.from_attributes(people, ["age"])
    with pytest.raises(ValueError, match=re.escape(NO_COLUMNS_MESSAGE.format(func="from_attributes"))):
        Subgroups.from_attributes(people, [])
    with pytest.raises(ValueError, match="'min_size' parameter"):
        Subgroups.from_attributes(people, ["race"], min_size=0)


# --------------------------------------------------------------------------------------------
# Indicator columns
# --------------------------------------------------------------------------------------------


@pytest.fixture
def indicators():
    return pd.DataFrame({
        "gay": [1.0, 0.0, np.nan, 0.7, 0.2, 0.5],
        "black": [0.5, 0.49, 1.0, np.nan, 0.0, 1.0],
        "text": ["x"] * 6,
    })


def test_from_indicators_membership_background_and_missing(indicators):
    groups = Subgroups.from_indicators(indicators, ["gay", "black"])
    assert groups.names == ["gay", "black"]  # column order
    np.testing.assert_array_equal(groups.membership, [[True, True], [False, False], [False, True],
                                                      [True, False], [False, False], [True, True]])
    np.testing.assert_array_equal(groups.background, [[False, False], [True, True], [False, False],
                                                      [False, False], [True, True], [False, False]])
    # A missing value is in neither; overlap is allowed (rows 0 and 5 are in both).
    assert not (groups.membership[2, 0] or groups.background[2, 0])
    assert not (groups.membership[3, 1] or groups.background[3, 1])
    assert groups.codes is None
    assert list(groups.sizes) == [3, 3]


@pytest.mark.parametrize("n_columns", [1, 5, 40, 62, 63])
@pytest.mark.parametrize("with_missing", [False, True])
def test_from_indicators_patterns_equal_those_of_the_packed_rows(n_columns, with_missing):
    # from_indicators numbers the membership patterns as it reads the columns; they must be the patterns
    # the packed rows give (same codes, same order, same masks), with or without a missing value.
    rng = np.random.default_rng(n_columns)
    values = (rng.random((400, n_columns)) < np.geomspace(0.02, 0.5, n_columns)).astype(float)
    if with_missing:
        values[rng.random(values.shape) < 0.01] = np.nan
    frame = pd.DataFrame(values, columns=[f"c{j}" for j in range(n_columns)])
    groups = Subgroups.from_indicators(frame, list(frame.columns))
    again = Subgroups(list(groups.names), groups.membership, groups.background, groups.min_size)
    for ours, packed in zip(groups.patterns, again.patterns):
        assert ours.dtype == packed.dtype
        np.testing.assert_array_equal(ours, packed)
    assert len(groups.patterns[1]) == len(np.unique(np.hstack([groups.membership, groups.background]), axis=0)) > 1


def test_from_indicators_threshold(indicators):
    groups = Subgroups.from_indicators(indicators, ["gay"], threshold=0.75)
    np.testing.assert_array_equal(groups.membership[:, 0], [True, False, False, False, False, False])
    np.testing.assert_array_equal(groups.background[:, 0], [False, True, False, True, True, True])


def test_from_indicators_accepts_booleans_and_nullable_integers():
    frame = pd.DataFrame({"b": [True, False, True], "i": pd.array([1, None, 0], dtype="Int64")})
    groups = Subgroups.from_indicators(frame, ["b", "i"])
    np.testing.assert_array_equal(groups.membership, [[True, True], [False, False], [True, False]])
    np.testing.assert_array_equal(groups.background, [[False, False], [True, False], [False, True]])


def test_from_indicators_refuses_text(indicators):
    message = INDICATOR_TYPE_MESSAGE.format(col="text", dtype=indicators["text"].dtype)
    with pytest.raises(ValueError, match=re.escape(message)):
        Subgroups.from_indicators(indicators, ["gay", "text"])


# --------------------------------------------------------------------------------------------
# crosstab: the one primitive behind every sufficient statistic
# --------------------------------------------------------------------------------------------


def brute_crosstab(groups: Subgroups, cell, n_cells, weights=None):
    w = np.ones(groups.n_samples) if weights is None else np.asarray(weights, float)
    k = len(groups.names)
    member = np.zeros((k, n_cells))
    background = np.zeros((k, n_cells))
    for j in range(k):
        for c in range(n_cells):
            for i in range(groups.n_samples):
                if cell[i] == c:
                    member[j, c] += w[i] if groups.membership[i, j] else 0.0
                    background[j, c] += w[i] if groups.background[i, j] else 0.0
    return member, background


@pytest.fixture(scope="module")
def crosstab_data():
    rng = np.random.default_rng(5)
    n = 120
    frame = pd.DataFrame({
        "a": rng.choice(["x", "y", "z"], n),
        "b": rng.choice(["p", "q"], n),
        "i1": np.where(rng.random(n) < 0.1, np.nan, rng.integers(0, 2, n)),
        "i2": rng.random(n),
    })
    cell = rng.integers(0, 4, n)
    weights = rng.random(n)
    return frame, cell, weights


@pytest.mark.parametrize("kind", ["intersections", "one_column", "overlapping_attributes", "indicators"])
@pytest.mark.parametrize("weighted", [False, True])
def test_crosstab_equals_brute_force(crosstab_data, kind, weighted):
    frame, cell, weights = crosstab_data
    groups = {
        "intersections": lambda: Subgroups.from_attributes(frame, ["a", "b"]),
        "one_column": lambda: Subgroups.from_attributes(frame, ["a"], intersect=False),
        "overlapping_attributes": lambda: Subgroups.from_attributes(frame, ["a", "b"], intersect=False),
        "indicators": lambda: Subgroups.from_indicators(frame, ["i1", "i2"]),
    }[kind]()
    w = weights if weighted else None
    member, background = groups.crosstab(cell, 4, w)
    exp_member, exp_background = brute_crosstab(groups, cell, 4, w)
    np.testing.assert_allclose(member, exp_member, rtol=0, atol=1e-12)
    np.testing.assert_allclose(background, exp_background, rtol=0, atol=1e-12)
    if kind == "indicators":  # rows with a missing i1 are in neither mask
        assert member[0].sum() + background[0].sum() < (len(frame) if w is None else weights.sum())


def test_sum_and_sizes_match_masks(crosstab_data):
    frame, _, weights = crosstab_data
    groups = Subgroups.from_indicators(frame, ["i1", "i2"])
    np.testing.assert_allclose(groups.sum(weights), [weights[groups.membership[:, j]].sum() for j in range(2)],
                               rtol=0, atol=1e-12)
    np.testing.assert_array_equal(groups.sizes, groups.membership.sum(axis=0))


def test_take_restricts_rows(people):
    groups = Subgroups.from_attributes(people, ["race"])
    rows = np.array([0, 3, 4])
    taken = groups.take(rows)
    np.testing.assert_array_equal(taken.membership, groups.membership[rows])
    np.testing.assert_array_equal(taken.codes, groups.codes[rows])
    assert list(taken.sizes) == [1, 2, 0, 0]


def test_metric_functions_treat_raw_attributes_as_intersections_of_size_one(people):
    groups = Subgroups.from_attributes(people, ["race", "sex"], min_size=1)
    y = [1, 0, 1, 0, 1, 0, 1]
    p = [1, 1, 0, 0, 1, 0, 1]
    from_frame = fc.group_rates(y, p, people)
    assert list(from_frame["subgroup"]) == groups.names
    assert not from_frame["small"].any()
    pd.testing.assert_frame_equal(from_frame, fc.group_rates(y, p, groups))


def test_n_rows_small_counts_rows_in_any_small_subgroup():
    frame = pd.DataFrame({"a": ["x"] * 50 + ["y"] * 5 + ["z"] * 3, "b": ["p"] * 40 + ["q"] * 18})
    groups = fc.Subgroups.from_attributes(frame, ["a", "b"], intersect=True, min_size=10)
    # Intersections: x&p 40, x&q 10, y&q 5, z&q 3 -> small: y&q and z&q, 8 rows.
    assert sorted(groups.sizes.tolist()) == [3, 5, 10, 40]
    assert groups.n_rows_small == 8 == int(groups.membership[:, groups.small].any(axis=1).sum())
    # Overlapping identity columns: a row in two small subgroups counts once.
    ind = pd.DataFrame({"f": [1] * 5 + [0] * 45, "g": [1] * 3 + [0] * 47, "h": [1] * 40 + [0] * 10})
    overlapping = fc.Subgroups.from_indicators(ind, ["f", "g", "h"], min_size=10)
    assert overlapping.small.tolist() == [True, True, False]
    assert overlapping.n_rows_small == 5
    assert fc.Subgroups.from_attributes(frame, ["b"], min_size=10).n_rows_small == 0
