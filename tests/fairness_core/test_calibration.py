"""Calibration per subgroup (ExFairness): sklearn cross-checks and hand cases."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss
from statsmodels.stats.proportion import proportion_confint

import fairness_core as fc
from fairness_core._data.checks import INT_MESSAGE, OPTION_MESSAGE, PROBABILITY_MESSAGE
from fairness_core._stats.intervals import CI_MESSAGE

TOL = 1e-12
OLD_COLUMNS = ["subgroup", "bin", "bin_lower", "bin_upper", "count", "mean_predicted", "fraction_positive"]


def exact_edges(n_bins: int) -> np.ndarray:
    """The contract's uniform edges, each the double nearest to i / n_bins (Fraction -> float rounds once)."""
    return np.array([float(Fraction(i, n_bins)) for i in range(n_bins + 1)])


def literal_ece(y, s, edges) -> float:
    """ECE = sum_b (n_b / n) * |acc(b) - conf(b)|, bins [lo, hi) and the last one [lo, hi]."""
    y = np.asarray(y, dtype=float)
    s = np.asarray(s, dtype=float)
    total = 0.0
    n_bins = len(edges) - 1
    for b in range(n_bins):
        lo, hi = edges[b], edges[b + 1]
        in_bin = (s >= lo) & ((s < hi) if b < n_bins - 1 else (s <= hi))
        n_b = in_bin.sum()
        if n_b:
            total += n_b / len(s) * abs(y[in_bin].mean() - s[in_bin].mean())
    return total


@pytest.fixture(scope="module")
def random_probs():
    """Continuous scores (none on a bin edge) with labels drawn from them, and three groups."""
    rng = np.random.default_rng(11)
    n = 1000  # with n - 1 = 999 no decile of the pooled scores falls on a data point
    s = rng.beta(2, 3, n)
    y = (rng.random(n) < s ** 0.8).astype(int)
    g = rng.choice(np.array(["a", "b", "c"]), n, p=[0.5, 0.3, 0.2])
    inner = np.concatenate([np.linspace(0, 1, 11)[1:-1], exact_edges(10)[1:-1],
                            np.quantile(s, np.linspace(0, 1, 11))[1:-1]])
    assert not np.isin(s, inner).any()
    return y, s, g


# --------------------------------------------------------------------------------------------
# Reliability diagram vs sklearn.calibration.calibration_curve
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n_bins", [5, 10, 15])
def test_uniform_reliability_matches_calibration_curve_per_subgroup(random_probs, n_bins):
    y, s, g = random_probs
    table = fc.reliability_diagram(y, s, g, n_bins=n_bins, strategy="uniform")
    assert list(table["subgroup"].unique()) == ["a", "b", "c"]
    assert len(table) == 3 * n_bins
    edges = exact_edges(n_bins)
    for name in ("a", "b", "c"):
        mask = g == name
        rows = table[table["subgroup"] == name]
        np.testing.assert_array_equal(rows["bin"], np.arange(n_bins))
        np.testing.assert_array_equal(rows["bin_lower"], edges[:-1])
        np.testing.assert_array_equal(rows["bin_upper"], edges[1:])
        # np.histogram uses the same rule: [lo, hi) and the last bin closed.
        np.testing.assert_array_equal(rows["count"], np.histogram(s[mask], bins=edges)[0])
        prob_true, prob_pred = calibration_curve(y[mask], s[mask], n_bins=n_bins, strategy="uniform")
        filled = rows[rows["count"] > 0]
        np.testing.assert_allclose(filled["fraction_positive"], prob_true, rtol=0, atol=TOL)
        np.testing.assert_allclose(filled["mean_predicted"], prob_pred, rtol=0, atol=TOL)
        empty = rows[rows["count"] == 0]
        assert empty["mean_predicted"].isna().all() and empty["fraction_positive"].isna().all()


def test_uniform_bins_have_empty_bins_in_this_case(random_probs):
    # Make sure the comparison above really exercised the "sklearn drops empty bins" path.
    y, s, g = random_probs
    table = fc.reliability_diagram(y, s, g, n_bins=15)
    assert (table["count"] == 0).any()


@pytest.mark.parametrize("n_bins", [4, 10])
def test_quantile_reliability_matches_calibration_curve_on_all_rows(random_probs, n_bins):
    y, s, _ = random_probs
    table = fc.reliability_diagram(y, s, np.zeros(len(s)), n_bins=n_bins, strategy="quantile")
    edges = np.quantile(s, np.linspace(0, 1, n_bins + 1))
    np.testing.assert_allclose(table["bin_lower"], edges[:-1], rtol=0, atol=TOL)
    np.testing.assert_allclose(table["bin_upper"], edges[1:], rtol=0, atol=TOL)
    prob_true, prob_pred = calibration_curve(y, s, n_bins=n_bins, strategy="quantile")
    filled = table[table["count"] > 0]
    assert len(filled) == n_bins
    np.testing.assert_allclose(filled["fraction_positive"], prob_true, rtol=0, atol=TOL)
    np.testing.assert_allclose(filled["mean_predicted"], prob_pred, rtol=0, atol=TOL)


def test_quantile_edges_come_from_the_pooled_scores(random_probs):
    y, s, g = random_probs
    n_bins = 8
    table = fc.reliability_diagram(y, s, g, n_bins=n_bins, strategy="quantile")
    edges = np.quantile(s, np.linspace(0, 1, n_bins + 1))  # all rows, not one subgroup's
    for name in ("a", "b", "c"):
        mask = g == name
        rows = table[table["subgroup"] == name]
        np.testing.assert_allclose(rows["bin_lower"], edges[:-1], rtol=0, atol=TOL)
        counts = np.histogram(s[mask], bins=edges)[0]
        sums = np.histogram(s[mask], bins=edges, weights=s[mask])[0]
        positives = np.histogram(s[mask], bins=edges, weights=y[mask].astype(float))[0]
        np.testing.assert_array_equal(rows["count"], counts)
        filled = counts > 0
        np.testing.assert_allclose(rows["mean_predicted"].to_numpy()[filled], sums[filled] / counts[filled],
                                   rtol=0, atol=TOL)
        np.testing.assert_allclose(rows["fraction_positive"].to_numpy()[filled],
                                   positives[filled] / counts[filled], rtol=0, atol=TOL)


def test_quantile_edges_with_tied_scores_by_hand():
    # Scores 0.1, 0.2, 0.2, 0.2, 0.3, 0.9 in 2 quantile bins: the median of the pooled scores is
    # 0.2 (the mean of the 3rd and 4th sorted values), so the edges are 0.1, 0.2, 0.9. The three
    # scores equal to 0.2 sit on the inner edge and go to the upper bin: counts 1 and 5.
    y = [0, 0, 1, 0, 1, 1]
    p = [0.1, 0.2, 0.2, 0.2, 0.3, 0.9]
    table = fc.reliability_diagram(y, p, np.zeros(6), n_bins=2, strategy="quantile")
    assert list(table["bin_lower"]) == [0.1, 0.2] and list(table["bin_upper"]) == [0.2, 0.9]
    assert list(table["count"]) == [1, 5]
    assert table["mean_predicted"].iloc[1] == pytest.approx((0.2 * 3 + 0.3 + 0.9) / 5, abs=TOL)
    assert table["fraction_positive"].iloc[1] == pytest.approx(3 / 5, abs=TOL)


# --------------------------------------------------------------------------------------------
# The edge rule: [low, high) except the last bin, which is closed
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("score, expected_bin", [
    (0.0, 0), (0.05, 0), (0.1, 1), (0.15, 1), (0.2, 2), (0.4, 4), (0.5, 5), (0.8, 8), (0.9, 9), (0.95, 9), (1.0, 9),
])
def test_a_score_on_an_edge_goes_to_the_upper_bin(score, expected_bin):
    table = fc.reliability_diagram([1], [score], np.zeros(1), n_bins=10)
    assert list(table["count"]) == [1 if b == expected_bin else 0 for b in range(10)]


def test_a_score_of_exactly_one_is_counted():
    # ExFairness drops p == 1.0; here it is in the last bin.
    assert fc.expected_calibration_error([0], [1.0], n_bins=10) == 1.0
    assert fc.expected_calibration_error([1], [1.0], n_bins=10) == 0.0
    table = fc.reliability_diagram([1, 1], [1.0, 0.95], np.zeros(2), n_bins=10)
    last = table.iloc[-1]
    assert last["count"] == 2 and last["mean_predicted"] == pytest.approx(0.975, abs=TOL)


@pytest.mark.parametrize("n_bins", [5, 10, 20])
def test_uniform_edges_are_exact_decimals(n_bins):
    table = fc.reliability_diagram([1], [0.5], np.zeros(1), n_bins=n_bins)
    edges = exact_edges(n_bins)
    np.testing.assert_array_equal(table["bin_lower"], edges[:-1])  # bit for bit, not approx
    np.testing.assert_array_equal(table["bin_upper"], edges[1:])
    # The decimal a user writes is that edge: 0.3 == 3 / 10, 0.35 == 7 / 20.
    for i in range(n_bins + 1):
        assert float(f"{i / n_bins:.2f}") == edges[i]


@pytest.mark.parametrize("n_bins", [5, 10, 20])
def test_every_inner_edge_goes_to_the_upper_bin(n_bins):
    # A score equal to edge i / n_bins lands in bin i, for every inner edge (with linspace edges
    # 0.3, 0.6, 0.7, ... would fall in bin i - 1).
    inner = [float(f"{i / n_bins:.2f}") for i in range(1, n_bins)]  # the decimals, as typed
    for i, score in enumerate(inner, start=1):
        table = fc.reliability_diagram([1], [score], np.zeros(1), n_bins=n_bins)
        assert list(table["count"]) == [int(b == i) for b in range(n_bins)], (n_bins, i, score)
    # All inner edges at once, per subgroup, and the ECE of the same rows.
    scores = np.array(inner * 2)
    labels = np.tile([1, 0], n_bins - 1)
    groups = np.repeat(["a", "b"], n_bins - 1)
    table = fc.reliability_diagram(labels, scores, groups, n_bins=n_bins)
    for name in ("a", "b"):
        assert list(table.loc[table["subgroup"] == name, "count"]) == [0] + [1] * (n_bins - 1)
    edges = exact_edges(n_bins)
    assert fc.expected_calibration_error(labels, scores, n_bins=n_bins) == pytest.approx(
        literal_ece(labels, scores, edges), abs=TOL)


def test_every_edge_score_bins_like_the_literal_rule():
    # Bin of a score on every edge of 5, 10 and 20 bins by the literal rule lo <= s < hi (last closed).
    for n_bins in (5, 10, 20):
        edges = exact_edges(n_bins)
        scores = edges.copy()
        table = fc.reliability_diagram(np.ones(len(scores)), scores, np.zeros(len(scores)), n_bins=n_bins)
        literal = [int(((scores >= lo) & ((scores < hi) if b < n_bins - 1 else (scores <= hi))).sum())
                   for b, (lo, hi) in enumerate(zip(edges[:-1], edges[1:]))]
        assert list(table["count"]) == literal == [1] * (n_bins - 1) + [2]


def test_compas_decile_scores_fill_every_bin(compas):
    # decile_score / 10 takes the values 0.1 .. 1.0, each exactly on an edge of ten bins: decile d
    # belongs in bin d (10 in the last bin with 9), so no bin from 1 to 9 is empty.
    p = compas["decile_score"].to_numpy() / 10
    y = compas["two_year_recid"].to_numpy()
    table = fc.reliability_diagram(y, p, np.zeros(len(y)), n_bins=10)
    deciles = compas["decile_score"].value_counts()
    expected = [0] + [int(deciles[d]) for d in range(1, 9)] + [int(deciles[9] + deciles[10])]
    assert list(table["count"]) == expected
    assert (table["count"].iloc[1:] > 0).all()
    positives = compas.groupby(np.minimum(compas["decile_score"], 9))["two_year_recid"].mean()
    np.testing.assert_allclose(table["fraction_positive"].iloc[1:], positives.to_numpy(), rtol=0, atol=TOL)


# --------------------------------------------------------------------------------------------
# Wilson intervals of the fraction of positives per bin
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_reliability_wilson_interval_matches_statsmodels(random_probs, level):
    y, s, g = random_probs
    table = fc.reliability_diagram(y, s, g, n_bins=15, ci=level)
    assert list(table.columns) == OLD_COLUMNS + ["fraction_positive_ci_low", "fraction_positive_ci_high"]
    assert table.attrs["ci"] == level
    edges = exact_edges(15)
    for name in ("a", "b", "c"):
        mask = g == name
        rows = table[table["subgroup"] == name]
        counts = np.histogram(s[mask], bins=edges)[0]
        positives = np.histogram(s[mask], bins=edges, weights=y[mask].astype(float))[0].astype(int)
        filled = counts > 0
        low, high = proportion_confint(positives[filled], counts[filled], alpha=1 - level, method="wilson")
        np.testing.assert_allclose(rows["fraction_positive_ci_low"].to_numpy()[filled], low, rtol=0, atol=TOL)
        np.testing.assert_allclose(rows["fraction_positive_ci_high"].to_numpy()[filled], high, rtol=0, atol=TOL)
        assert rows["fraction_positive_ci_low"][~filled].isna().all()  # empty bins exist here (see above)
        assert rows["fraction_positive_ci_high"][~filled].isna().all()
        inside = rows[filled]
        assert (inside["fraction_positive_ci_low"] <= inside["fraction_positive"]).all()
        assert (inside["fraction_positive"] <= inside["fraction_positive_ci_high"]).all()
    assert (table["count"] == 0).any()


def test_reliability_wilson_interval_at_zero_and_all_positives():
    # Bin [0, .5): 3 rows, 0 positive; bin [.5, 1]: 4 rows, all positive.
    table = fc.reliability_diagram([0, 0, 0, 1, 1, 1, 1], [0.1, 0.2, 0.3, 0.6, 0.7, 0.8, 0.9], np.zeros(7),
                                   n_bins=2, ci=0.95)
    low, high = proportion_confint([0, 4], [3, 4], alpha=0.05, method="wilson")
    np.testing.assert_allclose(table["fraction_positive_ci_low"], low, rtol=0, atol=TOL)
    np.testing.assert_allclose(table["fraction_positive_ci_high"], high, rtol=0, atol=TOL)
    assert table["fraction_positive_ci_low"].iloc[0] == 0.0 and table["fraction_positive_ci_high"].iloc[1] == 1.0


def test_reliability_ci_none_gives_the_old_columns(two_groups):
    y, p, g = two_groups
    plain = fc.reliability_diagram(y, p, g, n_bins=5)
    assert list(plain.columns) == OLD_COLUMNS and "ci" not in plain.attrs
    pd.testing.assert_frame_equal(fc.reliability_diagram(y, p, g, n_bins=5, ci=None), plain)
    with_ci = fc.reliability_diagram(y, p, g, n_bins=5, ci=0.95)
    pd.testing.assert_frame_equal(with_ci[OLD_COLUMNS], plain)
    counts = fc.calibration_counts(y, p, g, n_bins=5)
    pd.testing.assert_frame_equal(counts.reliability_table(), plain)
    pd.testing.assert_frame_equal(counts.reliability_table(ci=0.95), with_ci)


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, "0.95", True])
def test_reliability_bad_ci_raises(bad):
    with pytest.raises(ValueError) as info:
        fc.reliability_diagram([0, 1], [0.1, 0.9], [0, 0], ci=bad)
    assert str(info.value) == CI_MESSAGE.format(func="reliability_diagram", got=bad)
    with pytest.raises(ValueError) as info:
        fc.calibration_counts([0, 1], [0.1, 0.9], [0, 0]).reliability_table(ci=bad)
    assert str(info.value) == CI_MESSAGE.format(func="reliability_diagram", got=bad)


def test_madlibs_reliability_wilson_interval_per_identity(madlibs, madlibs_identities):
    mapping = fc.ColumnMapping(label="toxicity", positive_label="toxic", scores=("TOXICITY@1",),
                               indicators=tuple(madlibs_identities))
    sd = fc.ScoredData.from_frame(madlibs, mapping)
    table = fc.reliability_diagram(sd.y_true, sd.scores["TOXICITY@1"], sd.subgroups, ci=0.95)
    y = (madlibs["toxicity"] == "toxic").to_numpy().astype(float)
    s = madlibs["TOXICITY@1"].to_numpy(dtype=float)
    edges = exact_edges(10)
    for name in madlibs_identities[:10]:
        mask = (madlibs[name] >= 0.5).to_numpy()
        rows = table[table["subgroup"] == name]
        counts = np.histogram(s[mask], bins=edges)[0]
        positives = np.histogram(s[mask], bins=edges, weights=y[mask])[0].astype(int)
        np.testing.assert_array_equal(rows["count"], counts)
        filled = counts > 0
        low, high = proportion_confint(positives[filled], counts[filled], alpha=0.05, method="wilson")
        np.testing.assert_allclose(rows["fraction_positive_ci_low"].to_numpy()[filled], low, rtol=0, atol=TOL)
        np.testing.assert_allclose(rows["fraction_positive_ci_high"].to_numpy()[filled], high, rtol=0, atol=TOL)


# --------------------------------------------------------------------------------------------
# ECE / MCE / Brier: hand cases
# --------------------------------------------------------------------------------------------


def test_ece_two_point_example():
    # Bin [0, 0.5): p 0.25, y 0 -> gap 0.25. Bin [0.5, 1]: p 0.75, y 1 -> gap 0.25. ECE = 0.25.
    assert fc.expected_calibration_error([0, 1], [0.25, 0.75], n_bins=2) == 0.25
    assert fc.maximum_calibration_error([0, 1], [0.25, 0.75], n_bins=2) == 0.25


SEED_PROBS = [0.1, 0.3, 0.6, 0.9, 0.2, 0.4, 0.7, 0.8, 0.5, 0.3]
SEED_LABELS = [0, 0, 1, 1, 0, 0, 1, 1, 1, 0]


def test_ece_seed_001_example_by_hand():
    # ExFairness's second example (each group is these 10 values), n_bins=5, edges 0, .2, .4, .6, .8, 1.
    #   [0, .2):   0.1 (y 0)                      n=1  |0 - 0.1|         -> 1 * 0.1 = 0.1
    #   [.2, .4):  0.3, 0.2, 0.3 (y 0, 0, 0)      n=3  |0 - 0.8/3|       -> 3 * 0.8/3 = 0.8
    #   [.4, .6):  0.4 (0), 0.5 (1)               n=2  |1/2 - 0.9/2|     -> 2 * 0.05 = 0.1
    #   [.6, .8):  0.6 (1), 0.7 (1)               n=2  |1 - 1.3/2|       -> 2 * 0.35 = 0.7
    #   [.8, 1]:   0.9, 0.8 (1, 1)                n=2  |1 - 1.7/2|       -> 0.3
    # (0.6 sits on the edge 3/5 and goes to the upper bin. np.linspace(0, 1, 6)[3] would be
    #  0.6000000000000001 and put it below: gaps 0.5 and 0.3 instead of 0.1 and 0.7, the same sum.)
    # ECE = (0.1 + 0.8 + 0.1 + 0.7 + 0.3) / 10 = 0.2
    expected = (0.1 + 0.8 + 0.1 + 0.7 + 0.3) / 10
    per_bin = fc.reliability_diagram(SEED_LABELS, SEED_PROBS, np.zeros(10), n_bins=5)
    assert list(per_bin["count"]) == [1, 3, 2, 2, 2]
    assert fc.expected_calibration_error(SEED_LABELS, SEED_PROBS, n_bins=5) == pytest.approx(expected, abs=TOL)
    # Both groups hold the same values, so the pooled ECE is the same and the disparity is 0.
    y2, p2 = SEED_LABELS * 2, SEED_PROBS * 2
    assert fc.expected_calibration_error(y2, p2, n_bins=5) == pytest.approx(expected, abs=TOL)
    result = fc.calibration_disparity(y2, p2, [0] * 10 + [1] * 10, n_bins=5, debias=False)
    assert result.value == pytest.approx(0.0, abs=TOL) and result.passes is True
    # Bias-corrected, each ECE less its expected value under perfect calibration: the same for both groups.
    corrected = fc.calibration_disparity(y2, p2, [0] * 10 + [1] * 10, n_bins=5)
    assert corrected.debiased and corrected.value == pytest.approx(0.0, abs=TOL) and corrected.passes is True
    assert list(result.errors["ece"]) == pytest.approx([expected, expected], abs=TOL)


def test_ece_seed_001_first_example_counts_the_score_of_one():
    # Probabilities 0.1 .. 1.0 with labels 0,0,0,0,1,1,1,1,1,1, n_bins=5:
    #   [0, .2): 0.1 (0) -> 0.1;  [.2, .4): 0.2, 0.3 (0, 0) -> 0.5;
    #   [.4, .6): 0.4 (0), 0.5 (1) -> |1 - 0.9| = 0.1;  [.6, .8): 0.6, 0.7 (1, 1) -> |2 - 1.3| = 0.7;
    #   [.8, 1]: 0.8, 0.9, 1.0 (1, 1, 1) -> |3 - 2.7| = 0.3.   ECE = 1.7 / 10 = 0.17
    probs = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    labels = [0, 0, 0, 0, 1, 1, 1, 1, 1, 1]
    assert fc.expected_calibration_error(labels, probs, n_bins=5) == pytest.approx(0.17, abs=TOL)


def test_mce_hand_case():
    # n_bins=2. Bin [0, .5): 0.1 (y 0), 0.1 (y 1) -> conf 0.1, acc 0.5, gap 0.4.
    #           Bin [.5, 1]: 0.9 (1), 0.6 (1)     -> conf 0.75, acc 1, gap 0.25.
    # MCE = 0.4; ECE = (2 * 0.4 + 2 * 0.25) / 4 = 0.325.
    y, p = [0, 1, 1, 1], [0.1, 0.1, 0.9, 0.6]
    assert fc.maximum_calibration_error(y, p, n_bins=2) == pytest.approx(0.4, abs=TOL)
    assert fc.expected_calibration_error(y, p, n_bins=2) == pytest.approx(0.325, abs=TOL)
    errors = fc.calibration_errors(y, p, np.zeros(4), n_bins=2, min_per_group=1)
    assert errors["mce"].iloc[0] == pytest.approx(0.4, abs=TOL)
    assert errors["ece"].iloc[0] == pytest.approx(0.325, abs=TOL)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_per_subgroup_errors_match_literal_and_sklearn(random_probs, strategy):
    y, s, g = random_probs
    errors = fc.calibration_errors(y, s, g, n_bins=10, strategy=strategy)
    edges = exact_edges(10) if strategy == "uniform" else np.quantile(s, np.linspace(0, 1, 11))
    assert errors["subgroup"].tolist() == ["a", "b", "c"]   # every subgroup is checked below, none is missing
    for _, row in errors.iterrows():
        mask = g == row["subgroup"]
        assert row["size"] == mask.sum() and row["n_positive"] == y[mask].sum()
        assert row["ece"] == pytest.approx(literal_ece(y[mask], s[mask], edges), abs=TOL)
        assert row["brier_score"] == pytest.approx(brier_score_loss(y[mask], s[mask]), abs=TOL)
        assert row["note"] == ""


# --------------------------------------------------------------------------------------------
# Calibration disparity
# --------------------------------------------------------------------------------------------


@pytest.fixture
def two_groups():
    # A = ExFairness's 10 values (ECE 0.2, see above).
    # B, n_bins=5: [0, .2): 0.15, 0.15 (0, 0) -> gap sum 0.3; [.4, .6): 0.55 (1), 0.45 (0) -> |1 - 1| = 0;
    #              [.8, 1]: 0.85, 0.85 (1, 1) -> |2 - 1.7| = 0.3.  ECE_B = 0.6 / 6 = 0.1
    probs = SEED_PROBS + [0.15, 0.15, 0.55, 0.45, 0.85, 0.85]
    labels = SEED_LABELS + [0, 0, 1, 0, 1, 1]
    groups = ["A"] * 10 + ["B"] * 6
    return labels, probs, groups


def test_two_group_disparity_is_the_ece_difference(two_groups):
    y, p, g = two_groups
    result = fc.calibration_disparity(y, p, g, n_bins=5, threshold=0.15, debias=False)
    ece = result.errors.set_index("subgroup")["ece"]
    assert ece["A"] == pytest.approx(0.2, abs=TOL) and ece["B"] == pytest.approx(0.1, abs=TOL)
    # The reference side ("rest" of A is B) is summed as total - member, so it may differ from
    # B's own ECE in the last bits; the contract is |ECE_A - ECE_B|, not a different quantity.
    assert result.value == pytest.approx(abs(ece["A"] - ece["B"]), abs=1e-15)
    assert result.value == pytest.approx(0.1, abs=TOL)
    assert result.passes is True and result.threshold == 0.15
    assert result.n_bins == 5 and result.strategy == "uniform"
    assert isinstance(result.interpretation, str) and "0.15" in result.interpretation
    assert float(result) == result.value
    strict = fc.calibration_disparity(y, p, g, n_bins=5, threshold=0.05, debias=False)
    assert strict.passes is False and "0.05" in strict.interpretation
    assert strict.value == result.value
    table = fc.calibration_disparity(y, p, g, n_bins=5, threshold=0.05, reduction=None, debias=False)
    assert list(table["passes"]) == [False, False]
    assert list(table["disparity"]) == pytest.approx([0.1, 0.1], abs=TOL)


def test_pairwise_reference_gives_the_same_two_group_disparity(two_groups):
    y, p, g = two_groups
    pairwise = fc.calibration_disparity(y, p, g, n_bins=5, reference="pairwise", debias=False)
    assert len(pairwise.table) == 1 and pairwise.value == pytest.approx(0.1, abs=TOL)


def test_min_per_group_makes_a_tiny_group_undefined(two_groups):
    y, p, g = two_groups
    y, p, g = y + [1, 0, 1], p + [0.9, 0.5, 0.2], g + ["C"] * 3
    errors = fc.calibration_errors(y, p, g, n_bins=5, min_per_group=5).set_index("subgroup")
    assert np.isnan(errors.loc["C", "ece"]) and np.isnan(errors.loc["C", "mce"])
    assert "min_per_group=5" in errors.loc["C", "note"]
    assert not np.isnan(errors.loc["C", "brier_score"])  # the Brier score needs no bins
    assert errors.loc["C", "brier_score"] == pytest.approx((0.1 ** 2 + 0.5 ** 2 + 0.8 ** 2) / 3, abs=TOL)
    result = fc.calibration_disparity(y, p, g, n_bins=5, reference="pairwise", debias=False)
    assert result.disparity.n_undefined == 2  # (A, C) and (B, C)
    assert result.value == pytest.approx(0.1, abs=TOL)  # only (A, B) is left
    assert fc.calibration_errors(y, p, g, n_bins=5, min_per_group=3).set_index("subgroup")["note"]["C"] == ""


def test_undefined_disparity_says_so():
    result = fc.calibration_disparity([0, 1, 1], [0.2, 0.7, 0.9], ["a", "b", "b"], min_per_group=5)
    assert np.isnan(result.value) and result.passes is None
    assert "could not be assessed" in result.interpretation


def test_scores_outside_unit_interval_are_refused(compas):
    y = compas["two_year_recid"]
    s = compas["decile_score"]
    expected = PROBABILITY_MESSAGE.format(param="y_prob", func="calibration_disparity", low=1, high=10)
    with pytest.raises(ValueError, match=re.escape("[0, 1]")) as info:
        fc.calibration_disparity(y, s, compas["race"])
    assert str(info.value) == expected
    with pytest.raises(ValueError, match=re.escape("[0, 1]")):
        fc.expected_calibration_error([0, 1], [-0.1, 0.5])


def test_bad_options_raise():
    with pytest.raises(ValueError, match=re.escape(INT_MESSAGE.format(
            param="n_bins", func="reliability_diagram", low=1, got=0))):
        fc.reliability_diagram([0, 1], [0.1, 0.9], [0, 0], n_bins=0)
    with pytest.raises(ValueError, match=re.escape(OPTION_MESSAGE.format(
            param="strategy", func="reliability_diagram", allowed=["uniform", "quantile"], got="kmeans"))):
        fc.reliability_diagram([0, 1], [0.1, 0.9], [0, 0], strategy="kmeans")


# --------------------------------------------------------------------------------------------
# Real data: Jigsaw madlibs TOXICITY@1 per identity
# --------------------------------------------------------------------------------------------


def test_madlibs_per_identity_ece_matches_literal_numpy(madlibs, madlibs_identities):
    mapping = fc.ColumnMapping(label="toxicity", positive_label="toxic", scores=("TOXICITY@1",),
                               indicators=tuple(madlibs_identities))
    sd = fc.ScoredData.from_frame(madlibs, mapping)
    errors = fc.calibration_errors(sd.y_true, sd.scores["TOXICITY@1"], sd.subgroups)
    assert list(errors["subgroup"]) == madlibs_identities
    y = (madlibs["toxicity"] == "toxic").to_numpy()
    s = madlibs["TOXICITY@1"].to_numpy(dtype=float)
    edges = exact_edges(10)
    expected = [literal_ece(y[m], s[m], edges) for m in ((madlibs[c] >= 0.5).to_numpy() for c in madlibs_identities)]
    np.testing.assert_allclose(errors["ece"], expected, rtol=0, atol=TOL)
    overall = fc.expected_calibration_error(sd.y_true, sd.scores["TOXICITY@1"])
    assert overall == pytest.approx(literal_ece(y, s, edges), abs=TOL)


def test_input_types_give_the_same_table(two_groups):
    y, p, g = two_groups
    base = fc.reliability_diagram(y, p, g, n_bins=5)
    for convert in (np.asarray, pd.Series):
        pd.testing.assert_frame_equal(fc.reliability_diagram(convert(y), convert(p), convert(g), n_bins=5), base)
