"""AucCounts: level histograms per subgroup, exact or binned, checked against the row-level AUCs."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import fairness_core as fc
from fairness_core._metrics.auc_counts import auc_counts, bin_edges_of, score_bin, uniform_score_bins
from fairness_core._subgroups.subgroups import Subgroups

AUCS = ["subgroup_auc", "bpsn_auc", "bnsp_auc"]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    n = 4000
    frame = pd.DataFrame({"race": rng.choice(["a", "b", "c", None], n, p=[0.5, 0.3, 0.15, 0.05]),
                          "id1": rng.integers(0, 2, n).astype(float), "id2": rng.random(n)})
    frame.loc[rng.random(n) < 0.05, "id2"] = np.nan
    y = (rng.random(n) < 0.3 + 0.2 * (frame["race"] == "b")).astype(int)
    score = np.round(np.clip(rng.beta(2, 5, n) + 0.25 * y, 0, 1), 3)   # many ties
    prot = Subgroups.from_attributes(frame, ["race"], min_size=50)
    ind = Subgroups.from_indicators(frame, ["id1", "id2"], min_size=50)
    groups = Subgroups(prot.names + ind.names, np.hstack([prot.membership, ind.membership]),
                       np.hstack([prot.background, ind.background]), 50)
    return y, score, groups


def test_exact_table_equals_bias_auc_table_with_delong_intervals(data):
    y, score, groups = data
    ref = fc.bias_auc_table(y, score, groups, ci=0.9, n_boot=100)
    table = auc_counts(y, score, groups).table(ci=0.9)
    for column in ["size", "n_positive", "n_negative", "n_background_positive", "n_background_negative", "small", "note"]:
        assert table[column].tolist() == ref[column].tolist()
    for column in [c for a in AUCS for c in (a, f"{a}_ci_low", f"{a}_ci_high")]:
        np.testing.assert_allclose(table[column], ref[column], rtol=0, atol=1e-12)
        assert (table[f"{column.split('_ci')[0]}_max_binning_error"].dropna() == 0).all()
    assert table.attrs["overall_auc"] == pytest.approx(roc_auc_score(y, score), abs=1e-12)
    np.testing.assert_allclose(table.attrs["overall_auc_ci"], ref.attrs["overall_auc_ci"], atol=1e-12)


def test_each_auc_equals_sklearn_on_masks(data):
    y, score, groups = data
    table = auc_counts(y, score, groups).table()
    for j, name in enumerate(groups.names):
        m, b = groups.membership[:, j], groups.background[:, j]
        assert table.loc[j, "subgroup_auc"] == pytest.approx(roc_auc_score(y[m], score[m]), abs=1e-12)
        bpsn = (m & (y == 0)) | (b & (y == 1))
        bnsp = (m & (y == 1)) | (b & (y == 0))
        assert table.loc[j, "bpsn_auc"] == pytest.approx(roc_auc_score(y[bpsn], score[bpsn]), abs=1e-12)
        assert table.loc[j, "bnsp_auc"] == pytest.approx(roc_auc_score(y[bnsp], score[bnsp]), abs=1e-12)


@pytest.mark.parametrize("bins", [2, 7, 100, 10_000])
def test_binned_aucs_lie_within_their_reported_bound(data, bins):
    y, score, groups = data
    skewed = score ** 6 * 1000 - 3   # any scale, most scores in a few bins
    exact = fc.bias_auc_table(y, skewed, groups)
    table = auc_counts(y, skewed, groups, bins=bins).table()
    for column in AUCS:
        error = (table[column] - exact[column]).abs()
        bound = table[f"{column}_max_binning_error"]
        assert (error <= bound + 1e-12).all()
        assert (bound > 0).any()
    assert abs(table.attrs["overall_auc"] - exact.attrs["overall_auc"]) <= table.attrs["overall_auc_max_binning_error"]
    assert table["note"].str.contains("max_binning_error").all()


def test_binning_bound_is_half_the_share_of_pairs_in_one_bin():
    # Two bins over [0, 1]: positives 0.1, 0.6, 0.9 and negatives 0.2, 0.7 -> pairs in one bin: (0.1, 0.2),
    # (0.6, 0.7), (0.9, 0.7) = 3 of 6 pairs, bound 1/2 * 3/6 = 0.25. Exact AUC 4/6; binned counts each of
    # those three pairs as 1/2: (3 * 0.5 + 1 (0.6 > 0.2) + 1 (0.9 > 0.2) + 0 (0.1 < 0.7)) / 6 = 3.5 / 6.
    y = np.array([1, 1, 1, 0, 0])
    s = np.array([0.1, 0.6, 0.9, 0.2, 0.7])
    groups = Subgroups.from_attributes(pd.DataFrame({"g": ["x"] * 5}), ["g"], min_size=1)
    table = auc_counts(y, s, groups, bins=2).table()
    assert table.attrs["overall_auc_max_binning_error"] == pytest.approx(0.25)
    assert table.attrs["overall_auc"] == pytest.approx(3.5 / 6)
    assert abs(3.5 / 6 - 4 / 6) <= 0.25


def test_score_bins_hold_exactly_the_scores_between_their_edges():
    rng = np.random.default_rng(3)
    low, step = uniform_score_bins(0.0, 1.0, 10)
    edges = bin_edges_of(low, step, 10, 1.0)
    s = np.concatenate([rng.random(10_000), edges, np.nextafter(edges, -1)[1:], np.nextafter(edges, 2)[:-1]])
    s = s[(s >= 0) & (s <= 1)]
    b = score_bin(s, low, step, 10)
    assert ((edges[b] <= s) & ((s < edges[b + 1]) | (b == 9))).all()


@pytest.mark.parametrize("threshold", [-1.0, 0.0, 0.25, 0.3, 0.5123, 1.0, 2.0])
def test_confusion_at_equals_thresholding_rows(data, threshold):
    y, score, groups = data
    counts = auc_counts(y, score, groups).confusion_at(threshold)
    ref = fc.confusion_counts(y, (score >= threshold).astype(int), groups)
    np.testing.assert_array_equal(counts.member, ref.member)
    np.testing.assert_array_equal(counts.background, ref.background)
    np.testing.assert_array_equal(counts.overall, ref.overall)


def test_binned_confusion_is_read_off_at_an_edge_and_refused_between_edges(data):
    y, score, groups = data
    binned = auc_counts(y, score, groups, bins=50)
    edge = binned.edges[17]
    ref = fc.confusion_counts(y, (score >= edge).astype(int), groups)
    np.testing.assert_array_equal(binned.confusion_at(edge).member, ref.member)
    with pytest.raises(ValueError, match="is not a bin edge"):
        binned.confusion_at((binned.edges[17] + binned.edges[18]) / 2)


def test_summarize_equals_bias_auc_score(data):
    y, score, groups = data
    for p in (-5.0, 1.0, -np.inf):
        assert auc_counts(y, score, groups).summarize(p=p).value == pytest.approx(
            fc.bias_auc_score(y, score, groups, p=p).value, abs=1e-12)


def test_bad_bins_are_refused(data):
    y, score, groups = data
    for bins in ("binned", 1, 2.5, True):
        with pytest.raises(ValueError, match="'bins' parameter of auc_counts"):
            auc_counts(y, score, groups, bins=bins)


def test_threshold_questions_equal_threshold_counts(data):
    """counts_at, at and at_each (the explorer's questions) equal ThresholdCounts' wherever the counts read the
    threshold: every threshold with exact levels, bin edges with binned ones (others raise)."""
    y, score, groups = data
    tc = fc.threshold_counts(y, score, groups)
    exact = auc_counts(y, score, groups)
    thresholds = np.array([-1.0, 0.0, 0.1234, 0.25, 0.5, 0.999, 1.0, 2.0])
    for want, got in zip(tc.counts_at(thresholds), exact.counts_at(thresholds)):
        np.testing.assert_array_equal(got, want)
    binned = auc_counts(y, score, groups, bins=20)
    edges = np.concatenate([[-1.0], binned.edges[:-1], [binned.edges[-1] + 1]])
    assert all(binned.reads(t) for t in edges) and not binned.reads((binned.edges[3] + binned.edges[4]) / 2)
    for want, got in zip(tc.counts_at(edges), binned.counts_at(edges)):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="not a bin edge"):
        binned.counts_at([(binned.edges[3] + binned.edges[4]) / 2])
    grid = fc.explorer_thresholds(binned, 7, include=[0.5, binned.edges[5]])
    assert set(grid) <= set(binned.edges[:-1]) and binned.edges[5] in grid and len(grid) == 8

    race = Subgroups.from_attributes(pd.DataFrame({"g": np.where(y > 0, "p", np.where(score > 0.3, "q", "r"))}), ["g"])
    disjoint_tc, disjoint = fc.threshold_counts(y, score, race), auc_counts(y, score, race)
    own = {"p": 0.4, "q": 0.2, "r": 0.6}
    for side in ("member", "background", "overall"):
        np.testing.assert_array_equal(getattr(disjoint.at_each(own), side), getattr(disjoint_tc.at_each(own), side))
        np.testing.assert_array_equal(getattr(exact.at(0.37), side), getattr(tc.at(0.37), side))
    with pytest.raises(ValueError, match="do not overlap"):
        exact.at_each({name: 0.5 for name in exact.names})
    effect = fc.subgroup_threshold_effect(disjoint, 0.5, own, ["true_positive_rate"])
    pd.testing.assert_frame_equal(effect.table, fc.subgroup_threshold_effect(disjoint_tc, 0.5, own,
                                                                            ["true_positive_rate"]).table)
