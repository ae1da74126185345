"""Dataset metrics (Oracle AutoMLx): base-rate parity, consistency, smoothed EDF.

Checked against plain pandas, statsmodels' Wilson interval, a brute-force distance matrix with the
tie rule applied row by row, and a literal pairwise double loop. Real data: COMPAS (label
``two_year_recid``, attribute ``race``), a seeded sample of 2,000 rows of Adult's numeric columns
(label ``income == '>50K'``) and law school (``LSAT``, ``UGPA``; label ``first_pf``), whose many
repeated feature rows make ties at the k-th neighbour common.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist
from sklearn.neighbors import NearestNeighbors
from statsmodels.stats.proportion import proportion_confint

import fairness_core as fc
from fairness_core._data.checks import BINARY_MESSAGE, INT_MESSAGE
from fairness_core._disparity.compare import REFERENCE_MESSAGE
from fairness_core._metrics.consistency import NEIGHBORS_MESSAGE, TIE_RTOL, X_TYPE_MESSAGE
from fairness_core._metrics.smoothed_edf import (CONCENTRATION_MESSAGE, CONCENTRATION_TYPE_MESSAGE,
    EDF_OVERLAP_MESSAGE)
from fairness_core._stats.intervals import CI_MESSAGE
from tests.support import examples

TOL = 1e-12
LAW_FILE = "law_school/law_data.csv"
LAW_FEATURES = ["LSAT", "UGPA"]
ADULT_COLUMNS = ["age", "workclass", "fnlwgt", "education", "education_num", "marital_status", "occupation",
                 "relationship", "race", "sex", "capital_gain", "capital_loss", "hours_per_week",
                 "native_country", "income"]
ADULT_NUMERIC = ["age", "fnlwgt", "education_num", "capital_gain", "capital_loss", "hours_per_week"]


# --------------------------------------------------------------------------------------------
# Literal re-implementations
# --------------------------------------------------------------------------------------------


def literal_distance(a, b, measure):
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if measure == "diff":
        return abs(a - b)
    if a == 0 and b == 0:
        return 1.0
    if a == 0 or b == 0:
        return math.inf
    return max(a, b) / min(a, b)


def expected_parity(frame, reference, measure, min_size):
    """Base-rate comparisons from the definitions (frame columns y, g)."""
    names = sorted(frame["g"].unique())
    rate = {g: frame.loc[frame["g"] == g, "y"].mean() for g in names}
    small = {g: bool((frame["g"] == g).sum() < min_size) for g in names}
    if reference == "rest":
        rows = [(g, "rest", rate[g], frame.loc[frame["g"] != g, "y"].mean(), small[g]) for g in names]
    elif reference == "overall":
        rows = [(g, "overall", rate[g], frame["y"].mean(), small[g]) for g in names]
    elif reference == "pairwise":
        rows = [(a, b, rate[a], rate[b], small[a] or small[b]) for i, a in enumerate(names) for b in names[i + 1:]]
    else:
        rows = [(g, reference, rate[g], rate[reference], small[g] or small[reference]) for g in names if g != reference]
    out = pd.DataFrame(rows, columns=["subgroup", "reference", "subgroup_value", "reference_value", "small"])
    out["disparity"] = [literal_distance(a, b, measure) for a, b in zip(out["subgroup_value"], out["reference_value"])]
    return out


def literal_edf(y, groups, concentration, names):
    """Largest |ln s_i(y) - ln s_j(y)| over pairs of `names` and both outcomes, by a double loop."""
    alpha = concentration / 2
    rates = {}
    for name in names:
        labels = [v for v, g in zip(y, groups) if g == name]
        n, pos = len(labels), sum(labels)
        rates[name] = {1: (pos + alpha) / (n + 2 * alpha), 0: (n - pos + alpha) / (n + 2 * alpha)}
    best, pair, outcome = -1.0, None, None
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for out in (1, 0):
                d = abs(math.log(rates[a][out]) - math.log(rates[b][out]))
                if d > best:
                    best, pair, outcome = d, {a, b}, out
    return best, pair, outcome, rates


def standardize(X):
    mean, sd = X.mean(axis=0), X.std(axis=0)
    return (X - mean) / np.where(sd > 0, sd, 1.0)


def literal_consistency(X, y, k):
    """The tie rule, row by row: rows strictly closer than the k-th distance r count fully; the
    rows at distance r (within TIE_RTOL) share the remaining k - |closer| places equally.

    Self is excluded by index (a duplicate at distance 0 remains a neighbour).
    """
    Z = standardize(np.asarray(X, dtype=float))
    D = cdist(Z, Z)
    y = np.asarray(y)
    total = 0.0
    for i in range(len(y)):
        others = np.delete(np.arange(len(y)), i)
        d = D[i, others]
        r = np.sort(d)[k - 1]
        closer = others[d < r * (1 - TIE_RTOL)]
        tied = others[np.abs(d - r) <= r * TIE_RTOL]
        assert len(closer) < k <= len(closer) + len(tied)
        differ_closer = np.sum(y[closer] != y[i])
        differ_tied = np.sum(y[tied] != y[i])
        total += (differ_closer + (k - len(closer)) * differ_tied / len(tied)) / k
    return total / len(y)


def grouped_literal_consistency(X, y, k):
    """The same tie rule as :func:`literal_consistency` for every row, counted per distinct feature row.

    Rows with equal features have equal distances to every other row, so a distinct point's rows differ only
    by their own label: its distances to the distinct points (each counting its rows, less the row itself
    at its own point) give the k-th distance r, the rows closer than r and those tied with it, for both
    labels at once. The same value as the row-by-row rule, without a rows x rows distance matrix.
    """
    Z = standardize(np.asarray(X, dtype=float))
    y = np.asarray(y).astype(int)
    points, inverse, count = np.unique(Z, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    positives = np.bincount(inverse, weights=y, minlength=len(points))
    D = cdist(points, points)
    others = count[None, :] - np.eye(len(points))   # the rows at each point, less the row itself at its own
    order = np.argsort(D, axis=1, kind="stable")
    at_order = np.take_along_axis(others, order, axis=1).cumsum(axis=1)
    kth = np.argmax(at_order >= k, axis=1)   # the first place where k other rows are reached
    r = np.take_along_axis(D, np.take_along_axis(order, kth[:, None], axis=1), axis=1)
    closer = D < r * (1 - TIE_RTOL)
    tied = np.abs(D - r) <= r * TIE_RTOL
    n_closer, n_tied = (closer * others).sum(axis=1), (tied * others).sum(axis=1)
    assert (n_closer < k).all() and (k <= n_closer + n_tied).all()
    total = 0.0
    for label, differing in ((1, count - positives), (0, positives)):   # rows of each label at each point
        rows = positives if label == 1 else count - positives
        share = ((closer * differing).sum(axis=1) + (k - n_closer) * (tied * differing).sum(axis=1) / n_tied) / k
        total += float((rows * share).sum())
    return total / len(y)


def plain_knn_consistency(X, y, k):
    """What a plain k-nearest-neighbour search gives: ties at the k-th broken by scikit-learn's order."""
    neighbours = NearestNeighbors(n_neighbors=k).fit(standardize(np.asarray(X, dtype=float))).kneighbors(
        return_distance=False)
    return float((y[neighbours] != y[:, None]).mean())


def brute_consistency_bounds(X, y, k):
    """Bounds of the share of differing neighbours, tie-robust: (low, high, rows with a tie at the k-th).

    Self is excluded by index (a duplicate at distance 0 remains a neighbour). Among rows tied
    with the k-th distance any may be chosen, so the count of differing labels lies in a range.
    """
    Z = standardize(np.asarray(X, dtype=float))
    D = cdist(Z, Z)
    np.fill_diagonal(D, np.inf)
    kth = np.partition(D, k - 1, axis=1)[:, k - 1][:, None]
    tol = 1e-9 * (1 + kth)
    closer = D < kth - tol
    tied = np.abs(D - kth) <= tol
    differ = y[None, :] != y[:, None]
    m = k - closer.sum(axis=1)
    base = (closer & differ).sum(axis=1)
    tied_diff, tied_same = (tied & differ).sum(axis=1), (tied & ~differ).sum(axis=1)
    low = base + np.maximum(0, m - tied_same)
    high = base + np.minimum(m, tied_diff)
    n_ties = int((tied.sum(axis=1) > m).sum())
    return low.sum() / (len(y) * k), high.sum() / (len(y) * k), n_ties


# --------------------------------------------------------------------------------------------
# Dataset statistical parity
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compas_labels(compas):
    return pd.DataFrame({"y": compas["two_year_recid"].to_numpy(), "g": compas["race"].to_numpy()})


def test_compas_base_rates_match_pandas(compas_labels):
    table = fc.base_rates(compas_labels["y"], compas_labels["g"])
    assert list(table.columns) == ["subgroup", "size", "n_positive", "n_negative", "base_rate", "small", "note"]
    grouped = compas_labels.groupby("g")["y"]
    assert list(table["subgroup"]) == sorted(compas_labels["g"].unique())
    np.testing.assert_array_equal(table["size"], grouped.size().to_numpy())
    np.testing.assert_array_equal(table["n_positive"], grouped.sum().to_numpy())
    np.testing.assert_array_equal(table["n_negative"], (grouped.size() - grouped.sum()).to_numpy())
    np.testing.assert_allclose(table["base_rate"], grouped.mean().to_numpy(), rtol=0, atol=TOL)
    assert not table["small"].any() and (table["note"] == "").all()


@pytest.mark.parametrize("reduction", ["max", "mean"])
@pytest.mark.parametrize("distance_measure", ["diff", "ratio"])
@pytest.mark.parametrize("reference", ["rest", "overall", "pairwise", "Caucasian"])
def test_compas_dataset_statistical_parity_matches_pandas(compas_labels, reference, distance_measure, reduction):
    expected = expected_parity(compas_labels, reference, distance_measure, 1)
    y, g = compas_labels["y"], compas_labels["g"]
    table = fc.dataset_statistical_parity(y, g, distance_measure=distance_measure, reference=reference, reduction=None)
    assert list(table["subgroup"]) == list(expected["subgroup"])
    assert list(table["reference"]) == list(expected["reference"])
    for col in ("subgroup_value", "reference_value", "disparity"):
        np.testing.assert_allclose(table[col], expected[col], rtol=0, atol=TOL)
    result = fc.dataset_statistical_parity(y, g, distance_measure=distance_measure, reference=reference,
                                           reduction=reduction)
    want = expected["disparity"].max() if reduction == "max" else expected["disparity"].mean()
    assert result.value == pytest.approx(want, abs=TOL)
    assert (result.n_used, result.n_undefined, result.n_small_excluded) == (len(expected), 0, 0)
    if reduction == "max":
        row = expected.loc[expected["disparity"].idxmax()]
        assert result.worst == (row["subgroup"], row["reference"])
    # The label's parity is the selection-rate parity of a model that predicts the label.
    same = fc.model_statistical_parity(None, y, g, distance_measure=distance_measure, reference=reference,
                                       reduction=reduction)
    assert same.value == pytest.approx(result.value, abs=TOL)


@pytest.mark.parametrize("include_small", [False, True])
def test_compas_small_subgroup_is_left_out_unless_asked(compas, compas_labels, include_small):
    sub = fc.Subgroups.from_attributes(compas, ["race"])  # min_size 30: Native American (18) is small
    expected = expected_parity(compas_labels, "pairwise", "diff", 30)
    used = expected if include_small else expected[~expected["small"]]
    result = fc.dataset_statistical_parity(compas_labels["y"], sub, reference="pairwise", reduction="max",
                                           include_small=include_small)
    assert result.value == pytest.approx(used["disparity"].max(), abs=TOL)
    assert result.n_small_excluded == (0 if include_small else 5)
    assert bool(fc.base_rates(compas_labels["y"], sub).set_index("subgroup").loc["Native American", "small"])


def test_dataset_parity_errors():
    with pytest.raises(ValueError) as info:
        fc.dataset_statistical_parity([0, 2], ["a", "b"])
    assert str(info.value) == BINARY_MESSAGE.format(param="y_true", func="dataset_statistical_parity", got="0, 2")
    with pytest.raises(ValueError) as info:
        fc.dataset_statistical_parity([0, 1], ["a", "b"], reference="c")
    assert str(info.value) == REFERENCE_MESSAGE.format(func="dataset_statistical_parity", got="c", names="'a', 'b'")
    with pytest.raises(ValueError, match="'reduction' parameter of dataset_statistical_parity"):
        fc.dataset_statistical_parity([0, 1], ["a", "b"], reduction="min")
    with pytest.raises(ValueError, match="'subgroups' has 1 rows but y_true has 2"):
        fc.dataset_statistical_parity([0, 1], ["a"])


def test_empty_indicator_subgroup_has_an_undefined_base_rate():
    frame = pd.DataFrame({"u": [0, 0, 0, 0], "v": [1, 1, 0, 0]})
    sub = fc.Subgroups.from_indicators(frame, ["u", "v"], min_size=1)
    table = fc.base_rates([1, 0, 1, 1], sub)
    assert math.isnan(table["base_rate"][0]) and table["note"][0] != ""
    assert table["base_rate"][1] == 0.5
    with_ci = fc.base_rates([1, 0, 1, 1], sub, ci=0.95)
    assert math.isnan(with_ci["base_rate_ci_low"][0]) and math.isnan(with_ci["base_rate_ci_high"][0])
    low, high = proportion_confint(1, 2, alpha=0.05, method="wilson")
    assert with_ci["base_rate_ci_low"][1] == pytest.approx(low, abs=TOL)
    assert with_ci["base_rate_ci_high"][1] == pytest.approx(high, abs=TOL)


@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_compas_base_rate_wilson_interval_matches_statsmodels(compas_labels, level):
    y, g = compas_labels["y"], compas_labels["g"]
    table = fc.base_rates(y, g, ci=level)
    assert list(table.columns) == ["subgroup", "size", "n_positive", "n_negative", "base_rate", "base_rate_ci_low",
                                   "base_rate_ci_high", "small", "note"]
    grouped = compas_labels.groupby("g")["y"]
    low, high = proportion_confint(grouped.sum().to_numpy(), grouped.size().to_numpy(), alpha=1 - level,
                                   method="wilson")
    np.testing.assert_allclose(table["base_rate_ci_low"], low, rtol=0, atol=TOL)
    np.testing.assert_allclose(table["base_rate_ci_high"], high, rtol=0, atol=TOL)
    assert (table["base_rate_ci_low"] < table["base_rate"]).all() and (table["base_rate"] < table["base_rate_ci_high"]).all()
    # Native American (18 people) gets the widest interval; ci=None gives exactly the old table.
    width = (table["base_rate_ci_high"] - table["base_rate_ci_low"]).to_numpy()
    assert table["subgroup"][int(np.argmax(width))] == "Native American"
    plain = fc.base_rates(y, g)
    pd.testing.assert_frame_equal(fc.base_rates(y, g, ci=None), plain)
    pd.testing.assert_frame_equal(table.drop(columns=["base_rate_ci_low", "base_rate_ci_high"]), plain)
    assert table.attrs["ci"] == level and "ci" not in plain.attrs


def test_base_rate_wilson_interval_at_the_ends():
    # 0 of 4 and 3 of 3 positive: the interval reaches 0 and 1 exactly and is not empty.
    table = fc.base_rates([0, 0, 0, 0, 1, 1, 1], ["a"] * 4 + ["b"] * 3, ci=0.95)
    low, high = proportion_confint([0, 3], [4, 3], alpha=0.05, method="wilson")
    np.testing.assert_allclose(table["base_rate_ci_low"], low, rtol=0, atol=TOL)
    np.testing.assert_allclose(table["base_rate_ci_high"], high, rtol=0, atol=TOL)
    assert table["base_rate_ci_low"][0] == 0.0 and table["base_rate_ci_high"][1] == 1.0
    assert table["base_rate_ci_high"][0] > 0 and table["base_rate_ci_low"][1] < 1


@pytest.mark.parametrize("bad", [0, 1, 95, -0.5, "0.95", True, float("nan")])
def test_base_rates_bad_ci_raises(bad):
    with pytest.raises(ValueError) as info:
        fc.base_rates([0, 1], ["a", "b"], ci=bad)
    assert str(info.value) == CI_MESSAGE.format(func="base_rates", got=bad)


# --------------------------------------------------------------------------------------------
# Consistency
# --------------------------------------------------------------------------------------------


def test_consistency_matches_brute_force_on_a_seeded_dataset():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(120, 3)) * [1.0, 10.0, 0.1]
    X = np.column_stack([X, np.full(120, 7.0)])  # a constant feature: standardized to 0
    X[5] = X[4]  # an exact duplicate: a neighbour at distance 0, not the row itself
    y = (X[:, 0] + rng.normal(scale=0.8, size=120) > 0).astype(int)
    y[5] = y[4]  # so the tie it creates (equally far from every other row) cannot change the value
    X_missing = X.copy()
    X_missing[[10, 20], [1, 2]] = [np.nan, np.inf]
    keep = np.ones(120, bool)
    keep[[10, 20]] = False
    for k in (1, 3, 5):
        low, high, n_ties = brute_consistency_bounds(X[keep], y[keep], k)
        assert low == high  # no tie at the k-th neighbour that could change a count
        expected = literal_consistency(X[keep], y[keep], k)
        assert expected == pytest.approx(low, abs=TOL)
        result = fc.consistency(X_missing, y, n_neighbors=k)
        assert result.value == pytest.approx(expected, abs=TOL)
        assert result.zemel_consistency == pytest.approx(1 - expected, abs=TOL)
        assert (result.n_neighbors, result.n_rows, result.n_excluded) == (k, 118, 2)
        assert result.features == ("x0", "x1", "x2", "x3") and float(result) == result.value
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    assert fc.consistency(frame, pd.Series(y), n_neighbors=3).features == ("a", "b", "c", "d")
    assert fc.consistency(frame, y, n_neighbors=3).value == fc.consistency(X, y, n_neighbors=3).value


def test_duplicates_are_neighbours_but_a_row_is_not_its_own():
    X = [[0.0, 0.0], [0.0, 0.0], [10.0, 10.0], [10.0, 10.0]]
    assert fc.consistency(X, [0, 1, 0, 1], n_neighbors=1).value == 1.0
    assert fc.consistency(X, [0, 0, 1, 1], n_neighbors=1).value == 0.0


def test_ties_at_the_kth_neighbour_share_its_place_by_hand():
    # Three rows at 0 (labels 0, 0, 1) and one at 1 (label 1), k = 1:
    #   rows 0 and 1: the two other rows at 0 tie for the one place, one of them differs -> 1/2 each;
    #   row 2: both other rows at 0 differ -> 1;
    #   row 3: all three rows at 0 tie at distance 1, two of them differ -> 2/3.
    # value = (1/2 + 1/2 + 1 + 2/3) / 4 = 2/3, whatever the row order.
    X, y = [[0.0], [0.0], [0.0], [1.0]], [0, 0, 1, 1]
    assert fc.consistency(X, y, n_neighbors=1).value == pytest.approx(2 / 3, abs=TOL)
    assert literal_consistency(X, y, 1) == pytest.approx(2 / 3, abs=TOL)
    assert fc.consistency(X[::-1], y[::-1], n_neighbors=1).value == pytest.approx(2 / 3, abs=TOL)
    # k = 2 (row 3's two places among three tied rows: 2 * 2/3 / 2 differing; rows 0 to 2 have
    # exactly two other rows at 0): (1/2 + 1/2 + 1 + 2/3) / 4 again.
    assert fc.consistency(X, y, n_neighbors=2).value == pytest.approx(2 / 3, abs=TOL)
    # Symmetric ties between distinct points: the middle row has both others at distance 1.
    assert fc.consistency([[0.0], [1.0], [2.0]], [0, 0, 1], n_neighbors=1).value == pytest.approx(0.5, abs=TOL)
    # Closer rows count fully and the tied ones share what is left: row 0 has row 1 at 1 (closer)
    # and rows 2 and 3 at 2 (tied, labels 1 and 0) for k = 2 -> (0 + 1 * 1/2) / 2 = 1/4.
    X, y = [[0.0], [1.0], [2.0], [-2.0]], [0, 0, 1, 0]
    assert fc.consistency(X, y, n_neighbors=2).value == pytest.approx(literal_consistency(X, y, 2), abs=TOL)


@pytest.fixture(scope="module")
def adult_sample(data_file):
    frame = pd.read_csv(data_file("adult/adult.data"), header=None, names=ADULT_COLUMNS, skipinitialspace=True,
                        na_values="?")
    return frame.sample(2000, random_state=20240601).reset_index(drop=True)


def test_consistency_on_adult_matches_brute_force(adult_sample):
    X = adult_sample[ADULT_NUMERIC]
    y = (adult_sample["income"] == ">50K").astype(int).to_numpy()
    for k in (5, 10):
        low, high, n_ties = brute_consistency_bounds(X.to_numpy(dtype=float), y, k)
        result = fc.consistency(X, y, n_neighbors=k)
        assert result.value == pytest.approx(literal_consistency(X.to_numpy(dtype=float), y, k), abs=TOL)
        assert low - TOL <= result.value <= high + TOL  # the mean over tie-breaks lies between the extremes
        assert (result.n_rows, result.n_excluded) == (2000, 0)
        assert 0 < result.value < 0.5  # neighbours mostly agree on income


@st.composite
def repeated_rows(draw):
    """A small table whose feature rows repeat a lot, labels, k and a permutation of the rows."""
    n = draw(st.integers(2, 24))
    p = draw(st.integers(1, 3))
    values = st.sampled_from([0.0, 1.0, 2.0, 3.5])
    X = np.array(draw(st.lists(st.lists(values, min_size=p, max_size=p), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    k = draw(st.integers(1, n - 1))
    perm = np.array(draw(st.permutations(range(n))))
    return X, y, k, perm


@settings(max_examples=examples(300), deadline=None)
@given(case=repeated_rows())
def test_consistency_is_invariant_to_row_order_with_repeated_rows(case):
    X, y, k, perm = case
    result = fc.consistency(X, y, n_neighbors=k)
    assert fc.consistency(X[perm], y[perm], n_neighbors=k).value == pytest.approx(result.value, abs=TOL)
    assert result.value == pytest.approx(literal_consistency(X, y, k), abs=TOL)
    low, high, _ = brute_consistency_bounds(X, y, k)  # every tie-break lies in [low, high]; so does their mean
    assert low - TOL <= result.value <= high + TOL
    assert result.n_rows == len(y) and result.zemel_consistency == pytest.approx(1 - result.value, abs=TOL)


@pytest.fixture(scope="module")
def law_school(data_file):
    """Law school (21,791 rows): LSAT and UGPA repeat a lot (1,212 distinct pairs)."""
    return pd.read_csv(data_file(LAW_FILE), index_col=0)


def test_law_school_consistency_does_not_depend_on_row_order(law_school):
    X = law_school[LAW_FEATURES]
    y = law_school["first_pf"].to_numpy()
    assert len(X) == 21791 and len(X.drop_duplicates()) == 1212
    for k in (5, 10):
        values, plain = [], []
        for seed in (None, 1, 2, 3):  # the file order and three permutations
            perm = np.arange(len(y)) if seed is None else np.random.default_rng(seed).permutation(len(y))
            values.append(fc.consistency(X.iloc[perm], y[perm], n_neighbors=k).value)
            plain.append(plain_knn_consistency(X.to_numpy(dtype=float)[perm], y[perm], k))
        assert max(values) - min(values) <= TOL, values
        # Without the tie rule the same rows give visibly different values (0.1674 to 0.1769 for k=5).
        assert max(plain) - min(plain) > 2e-3, plain
    # The tie rule applied to all 21,791 rows, counted per distinct feature row (the same rule as
    # literal_consistency, which the sample test below checks it against).
    expected = grouped_literal_consistency(X, y, 5)
    assert 0.17 < expected < 0.18   # about one neighbour in six differs (0.1736798 by a row-by-row run)
    assert fc.consistency(X, y, n_neighbors=5).value == pytest.approx(expected, abs=TOL)


def test_law_school_consistency_matches_the_literal_tie_rule_on_a_sample(law_school):
    sample = law_school.sample(2500, random_state=7)
    X = sample[LAW_FEATURES].to_numpy(dtype=float)
    y = sample["first_pf"].to_numpy()
    for k in (1, 5):
        low, high, n_ties = brute_consistency_bounds(X, y, k)
        assert high - low > 1e-3 and n_ties > 100  # ties change the value here
        result = fc.consistency(X, y, n_neighbors=k)
        literal = literal_consistency(X, y, k)
        assert result.value == pytest.approx(literal, abs=TOL)
        assert grouped_literal_consistency(X, y, k) == pytest.approx(literal, abs=TOL)
        assert low <= result.value <= high


def test_consistency_errors(adult_sample):
    with pytest.raises(TypeError) as info:
        fc.consistency(adult_sample[["age", "sex", "race"]], np.zeros(2000, int))
    assert str(info.value).startswith(X_TYPE_MESSAGE.split("{")[0]) and "'sex'" in str(info.value)
    assert "Tip:" in str(info.value)
    with pytest.raises(TypeError, match="dtype"):
        fc.consistency(np.array([["a"], ["b"]]), [0, 1])
    with pytest.raises(ValueError) as info:
        fc.consistency([[0.0], [1.0], [np.nan]], [0, 1, 0], n_neighbors=2)
    assert str(info.value) == NEIGHBORS_MESSAGE.format(n_rows=2, n_excluded=1, got=2)
    with pytest.raises(ValueError) as info:
        fc.consistency([[0.0], [1.0]], [0, 1], n_neighbors=0)
    assert str(info.value) == INT_MESSAGE.format(param="n_neighbors", func="consistency", low=1, got=0)
    with pytest.raises(ValueError, match="'X' has 2 rows but y_true has 3"):
        fc.consistency([[0.0], [1.0]], [0, 1, 0])
    with pytest.raises(ValueError, match="at least one feature"):
        fc.consistency(np.zeros((3, 0)), [0, 1, 0])


# --------------------------------------------------------------------------------------------
# Smoothed EDF
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("concentration", [1.0, 0.1, 4])
def test_smoothed_edf_hand_cases_match_double_loop(concentration):
    y = [1, 1, 1, 0] + [1, 0, 0, 0, 0, 0] + [1, 1, 0, 0, 0] + [1]
    g = ["a"] * 4 + ["b"] * 6 + ["c"] * 5 + ["d"]
    best, pair, outcome, rates = literal_edf(y, g, concentration, ["a", "b", "c", "d"])
    result = fc.smoothed_edf(y, g, concentration=concentration)
    assert result.value == pytest.approx(best, abs=TOL)
    assert set(result.pair) == pair and result.outcome == outcome
    hi, lo = result.pair
    assert rates[hi][outcome] > rates[lo][outcome]  # reported as (higher rate, lower rate)
    table = result.table
    assert list(table.columns) == ["subgroup", "size", "n_positive", "n_negative", "smoothed_positive_rate",
                                   "smoothed_negative_rate", "small", "used", "note"]
    np.testing.assert_allclose(table["smoothed_positive_rate"], [rates[n][1] for n in "abcd"], rtol=0, atol=TOL)
    np.testing.assert_allclose(table["smoothed_negative_rate"], [rates[n][0] for n in "abcd"], rtol=0, atol=TOL)
    assert result.n_used == 4 and result.reason == "" and float(result) == result.value


def test_smoothed_edf_two_groups_by_hand():
    # a: 3 of 4 positive -> s(1) = 3.5 / 5 = 0.7; b: 1 of 4 -> 0.3. Both outcomes give ln(7/3).
    result = fc.smoothed_edf([1, 1, 1, 0, 1, 0, 0, 0], ["a"] * 4 + ["b"] * 4)
    assert result.value == pytest.approx(math.log(7 / 3), abs=TOL)
    assert result.pair == ("a", "b") and result.outcome == 1
    equal = fc.smoothed_edf([1, 0, 1, 0], ["a", "a", "b", "b"])
    assert equal.value == 0.0 and equal.pair == ("a", "b")


def test_compas_smoothed_edf_matches_double_loop(compas, compas_labels):
    y, g = compas_labels["y"].tolist(), compas_labels["g"].tolist()
    names = sorted(set(g))
    best, pair, outcome, _ = literal_edf(y, g, 1.0, names)
    result = fc.smoothed_edf(compas_labels["y"], compas_labels["g"])
    assert result.value == pytest.approx(best, abs=TOL)
    assert result.pair == ("Native American", "Asian") and set(result.pair) == pair and result.outcome == outcome
    # With min_size 30 the 18 Native American defendants are left out.
    sub = fc.Subgroups.from_attributes(compas, ["race"])
    strict = fc.smoothed_edf(compas_labels["y"], sub)
    best, pair, outcome, _ = literal_edf(y, g, 1.0, [n for n in names if n != "Native American"])
    assert strict.value == pytest.approx(best, abs=TOL) and set(strict.pair) == pair
    assert strict.pair == ("African-American", "Asian") and strict.n_used == 5
    loose = fc.smoothed_edf(compas_labels["y"], sub, include_small=True)
    assert loose.value == pytest.approx(result.value, abs=TOL)


def test_smoothed_edf_needs_two_usable_subgroups():
    one = fc.smoothed_edf([1, 0, 1], ["a", "a", "a"])
    assert math.isnan(one.value) and one.pair is None and one.outcome is None and "fewer than two" in one.reason
    frame = pd.DataFrame({"g": ["big"] * 40 + ["tiny"] * 3})
    small = fc.smoothed_edf([1, 0] * 20 + [1, 1, 1], fc.Subgroups.from_attributes(frame, ["g"]))
    assert math.isnan(small.value) and small.n_used == 1
    assert small.table["note"].tolist() == ["", "small: not used (fewer rows than the minimum size)"]
    empty = fc.Subgroups.from_indicators(pd.DataFrame({"u": [0, 0], "v": [1, 0], "w": [0, 1]}), ["u", "v", "w"],
                                         min_size=1)
    result = fc.smoothed_edf([1, 0], empty)
    assert result.n_used == 2 and result.table["used"].tolist() == [False, True, True]
    assert result.value == pytest.approx(math.log(1.5 / 0.5), abs=TOL) and result.pair == ("v", "w")


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf")])
def test_smoothed_edf_concentration_must_be_positive(bad):
    with pytest.raises(ValueError) as info:
        fc.smoothed_edf([1, 0], ["a", "b"], concentration=bad)
    assert str(info.value) == CONCENTRATION_MESSAGE.format(got=bad)


@pytest.mark.parametrize("bad", ["1", True, None])
def test_smoothed_edf_concentration_must_be_a_number(bad):
    with pytest.raises(TypeError) as info:
        fc.smoothed_edf([1, 0], ["a", "b"], concentration=bad)
    assert str(info.value) == CONCENTRATION_TYPE_MESSAGE.format(got=bad, type=type(bad).__name__)


def test_smoothed_edf_refuses_overlapping_subgroups():
    frame = pd.DataFrame({"u": [1, 1, 0, 0, 1], "v": [1, 0, 1, 0, 1], "w": [0, 0, 0, 1, 0]})
    sub = fc.Subgroups.from_indicators(frame, ["u", "v", "w"], min_size=1)
    with pytest.raises(ValueError) as info:
        fc.smoothed_edf([1, 0, 1, 0, 1], sub)
    # rows 0 and 4 are in both u and v
    assert str(info.value) == EDF_OVERLAP_MESSAGE.format(n_rows=2, first="u", second="v")
    assert "Tip:" in str(info.value)
    attrs = pd.DataFrame({"sex": ["f", "m", "f", "m"], "race": ["x", "x", "y", "y"]})
    with pytest.raises(ValueError) as info:
        fc.smoothed_edf([1, 0, 1, 0], fc.Subgroups.from_attributes(attrs, ["sex", "race"], intersect=False))
    assert str(info.value) == EDF_OVERLAP_MESSAGE.format(n_rows=4, first="sex=f", second="race=x")
    # The intersections (the default), one attribute without intersecting, and disjoint indicators are fine.
    y = [1, 0, 1, 1]
    joint = fc.smoothed_edf(y, attrs)
    best, pair, _, _ = literal_edf(y, ["f,x", "m,x", "f,y", "m,y"], 1.0, ["f,x", "f,y", "m,x", "m,y"])
    assert joint.value == pytest.approx(best, abs=TOL) and joint.n_used == 4
    one = fc.smoothed_edf(y, fc.Subgroups.from_attributes(attrs, ["sex"], intersect=False, min_size=1))
    assert one.value == pytest.approx(literal_edf(y, list(attrs["sex"]), 1.0, ["f", "m"])[0], abs=TOL)
    disjoint = fc.Subgroups.from_indicators(pd.DataFrame({"u": [1, 1, 0, 0], "v": [0, 0, 1, 0]}), ["u", "v"],
                                            min_size=1)
    assert fc.smoothed_edf(y, disjoint).value == pytest.approx(
        literal_edf([1, 0, 1], ["u", "u", "v"], 1.0, ["u", "v"])[0], abs=TOL)


def test_smoothed_edf_refuses_madlibs_identity_columns(madlibs, madlibs_identities):
    sub = fc.Subgroups.from_indicators(madlibs, madlibs_identities)
    member = np.column_stack([(madlibs[c] >= 0.5).to_numpy() for c in madlibs_identities])
    shared = member.sum(axis=1) > 1
    first_row = member[np.flatnonzero(shared)[0]]
    first, second = [madlibs_identities[j] for j in np.flatnonzero(first_row)[:2]]
    with pytest.raises(ValueError) as info:
        fc.smoothed_edf((madlibs["toxicity"] == "toxic").astype(int), sub)
    assert str(info.value) == EDF_OVERLAP_MESSAGE.format(n_rows=int(shared.sum()), first=first, second=second)
