"""sample_weight in the count tables and the metric functions (point estimates).

Every weighted number is checked against an independent computation: scikit-learn with
``sample_weight``, Fairlearn's ``MetricFrame(..., sample_params=...)``, pandas, or the literal weighted
formula written out here. A property test checks that integer weights give exactly the results of
repeating each row that many times, and one test reads the real UCI Adult data with its ``fnlwgt``
survey weights.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import (brier_score_loss, confusion_matrix, f1_score, precision_score, recall_score,
                             roc_auc_score)

import fairness_core as fc
from fairness_core import Subgroups

RATE_METRICS = ["statistical_parity", "true_positive_rate", "false_positive_rate", "false_negative_rate",
                "false_omission_rate", "false_discovery_rate", "error_rate"]


def _data(n=400, seed=0, n_levels=20, zero=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    score = np.clip(rng.integers(0, n_levels, n) / n_levels + 0.2 * y, 0, 1)
    pred = (score >= 0.5).astype(int)
    group = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    w = rng.uniform(0.1, 3.0, n)
    w[:zero] = 0.0
    return y, score, pred, group, w


def _kish(w):
    return w.sum() ** 2 / (w ** 2).sum()


# ---------------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------------

BAD_WEIGHTS = [
    (lambda w: np.where(np.arange(len(w)) % 7 == 3, -1.0, w), "3 negative values (first at row 3)"),
    (lambda w: np.where(np.arange(len(w)) == 5, np.nan, w), "1 NaN values (first at row 5)"),
    (lambda w: np.where(np.arange(len(w)) == 2, np.inf, w), "1 infinite values (first at row 2)"),
    (lambda w: w[:-1], "sample_weight has 19 values but the data has 20 rows"),
    (lambda w: w.reshape(-1, 2), "must be one-dimensional"),
    (lambda w: np.array(["x"] * len(w)), "must hold numbers"),
]


def _callers():
    y, score, pred, group, _ = _data(20)
    return {
        "confusion_counts": lambda w: fc.confusion_counts(y, pred, group, sample_weight=w),
        "threshold_counts": lambda w: fc.threshold_counts(y, score, group, sample_weight=w),
        "auc_counts": lambda w: fc.auc_counts(y, score, group, sample_weight=w),
        "group_rates": lambda w: fc.group_rates(y, pred, group, sample_weight=w),
        "rate_disparity": lambda w: fc.rate_disparity(y, pred, group, metric="error_rate", sample_weight=w),
        "false_positive_rate_disparity": lambda w: fc.false_positive_rate_disparity(y, pred, group, sample_weight=w),
        "equalized_odds": lambda w: fc.equalized_odds(y, pred, group, sample_weight=w),
        "bias_auc_table": lambda w: fc.bias_auc_table(y, score, group, sample_weight=w),
        "subgroup_auc": lambda w: fc.subgroup_auc(y, score, group == "a", sample_weight=w),
        "bpsn_auc": lambda w: fc.bpsn_auc(y, score, group == "a", sample_weight=w),
        "bnsp_auc": lambda w: fc.bnsp_auc(y, score, group == "a", sample_weight=w),
    }


@pytest.mark.parametrize("name", sorted(_callers()))
@pytest.mark.parametrize("bad, message", BAD_WEIGHTS)
def test_bad_weights_raise_a_clear_error(name, bad, message):
    w = np.linspace(0.5, 2.0, 20)
    with pytest.raises(ValueError, match="sample_weight") as info:
        _callers()[name](bad(w))
    assert message in str(info.value)
    assert "Tip:" in str(info.value)


def test_no_weights_is_unchanged():
    y, score, pred, group, _ = _data(300)
    pd.testing.assert_frame_equal(fc.group_rates(y, pred, group), fc.group_rates(y, pred, group, sample_weight=None))
    pd.testing.assert_frame_equal(fc.bias_auc_table(y, score, group),
                                  fc.bias_auc_table(y, score, group, sample_weight=None))
    a = fc.equalized_odds(y, pred, group, reduction=None)
    b = fc.equalized_odds(y, pred, group, reduction=None, sample_weight=None)
    pd.testing.assert_frame_equal(a, b)
    assert a["size"].dtype == np.int64


def test_unit_weights_give_the_unweighted_values():
    y, score, pred, group, _ = _data(300)
    ones = np.ones(len(y))
    plain, weighted = fc.group_rates(y, pred, group), fc.group_rates(y, pred, group, sample_weight=ones)
    for column in ["size", "n_positive", "tp", "fp", "tn", "fn", *fc.ConfusionCounts.RATE_TO_METRIC]:
        np.testing.assert_array_equal(plain[column].to_numpy(float), weighted[column].to_numpy(float))
    np.testing.assert_array_equal(weighted["weight"], plain["size"].to_numpy(float))
    plain, weighted = fc.bias_auc_table(y, score, group), fc.bias_auc_table(y, score, group, sample_weight=ones)
    np.testing.assert_allclose(weighted[["subgroup_auc", "bpsn_auc", "bnsp_auc"]].to_numpy(),
                               plain[["subgroup_auc", "bpsn_auc", "bnsp_auc"]].to_numpy(), rtol=1e-12)
    np.testing.assert_array_equal(weighted["size"].to_numpy(float), plain["size"].to_numpy(float))


# ---------------------------------------------------------------------------------------------
# Rates against scikit-learn, Fairlearn and the literal formulas
# ---------------------------------------------------------------------------------------------

def test_confusion_cells_equal_sklearn_confusion_matrix():
    y, _, pred, group, w = _data(500, zero=40)
    counts = fc.confusion_counts(y, pred, group, sample_weight=w)
    for j, name in enumerate(counts.names):
        m = group == name
        expected = confusion_matrix(y[m], pred[m], sample_weight=w[m], labels=[0, 1]).ravel()  # tn, fp, fn, tp
        np.testing.assert_allclose(counts.member[j], expected, rtol=1e-12)
        np.testing.assert_allclose(counts.background[j],
                                   confusion_matrix(y[~m], pred[~m], sample_weight=w[~m], labels=[0, 1]).ravel(),
                                   rtol=1e-12)
        np.testing.assert_allclose(counts.member_sq[j],
                                   confusion_matrix(y[m], pred[m], sample_weight=w[m] ** 2, labels=[0, 1]).ravel(),
                                   rtol=1e-12)
    np.testing.assert_allclose(counts.overall, confusion_matrix(y, pred, sample_weight=w).ravel(), rtol=1e-12)


def test_group_rates_equal_sklearn_and_fairlearn():
    from fairlearn.metrics import MetricFrame, false_positive_rate, selection_rate, true_positive_rate

    y, _, pred, group, w = _data(600, seed=3, zero=25)
    table = fc.group_rates(y, pred, group, sample_weight=w).set_index("subgroup")
    frame = MetricFrame(metrics={"sr": selection_rate, "tpr": true_positive_rate, "fpr": false_positive_rate},
                        y_true=y, y_pred=pred, sensitive_features=group,
                        sample_params={k: {"sample_weight": w} for k in ("sr", "tpr", "fpr")})
    by = frame.by_group
    for name in table.index:
        np.testing.assert_allclose(table.loc[name, "selection_rate"], by.loc[name, "sr"], rtol=1e-12)
        np.testing.assert_allclose(table.loc[name, "true_positive_rate"], by.loc[name, "tpr"], rtol=1e-12)
        np.testing.assert_allclose(table.loc[name, "false_positive_rate"], by.loc[name, "fpr"], rtol=1e-12)
        m, wm = group == name, w[group == name]
        np.testing.assert_allclose(table.loc[name, "true_positive_rate"],
                                   recall_score(y[m], pred[m], sample_weight=wm), rtol=1e-12)
        np.testing.assert_allclose(1 - table.loc[name, "false_discovery_rate"],
                                   precision_score(y[m], pred[m], sample_weight=wm), rtol=1e-12)
        tp, fp, fn = (table.loc[name, c] for c in ("tp", "fp", "fn"))
        np.testing.assert_allclose(2 * tp / (2 * tp + fp + fn), f1_score(y[m], pred[m], sample_weight=wm),
                                   rtol=1e-12)
        # Literal formulas: the other rates, the sizes (Kish) and the weight.
        fn_w = wm[(y[m] == 1) & (pred[m] == 0)].sum()
        np.testing.assert_allclose(table.loc[name, "false_omission_rate"], fn_w / wm[pred[m] == 0].sum(), rtol=1e-12)
        np.testing.assert_allclose(table.loc[name, "error_rate"], wm[y[m] != pred[m]].sum() / wm.sum(), rtol=1e-12)
        np.testing.assert_allclose(table.loc[name, "size"], _kish(wm), rtol=1e-12)
        np.testing.assert_allclose(table.loc[name, "weight"], wm.sum(), rtol=1e-12)


@pytest.mark.parametrize("metric", RATE_METRICS)
@pytest.mark.parametrize("reference", ["rest", "overall", "pairwise", "a"])
def test_rate_disparity_equals_the_weighted_rates(metric, reference):
    y, _, pred, group, w = _data(500, seed=1, zero=10)
    table = fc.rate_disparity(y, pred, group, metric=metric, reference=reference, reduction=None,
                              sample_weight=w)
    rate = fc.ConfusionCounts.RATE_TO_METRIC
    rate_name = next(r for r, m in rate.items() if m == metric)

    def weighted_rate(mask):
        df = pd.DataFrame({"y": y[mask], "p": pred[mask], "w": w[mask]})
        num = {"selection_rate": df.p == 1, "true_positive_rate": (df.y == 1) & (df.p == 1),
               "false_positive_rate": (df.y == 0) & (df.p == 1), "false_negative_rate": (df.y == 1) & (df.p == 0),
               "false_omission_rate": (df.y == 1) & (df.p == 0), "false_discovery_rate": (df.y == 0) & (df.p == 1),
               "error_rate": df.y != df.p}[rate_name]
        den = {"selection_rate": df.p >= 0, "true_positive_rate": df.y == 1, "false_positive_rate": df.y == 0,
               "false_negative_rate": df.y == 1, "false_omission_rate": df.p == 0,
               "false_discovery_rate": df.p == 1, "error_rate": df.p >= 0}[rate_name]
        return df.w[num].sum() / df.w[den].sum(), df.w[den]

    for _, row in table.iterrows():
        a, den_w = weighted_rate(group == row["subgroup"])
        ref = row["reference"]
        mask = {"rest": group != row["subgroup"], "overall": np.ones(len(y), bool)}.get(ref, group == ref)
        b, ref_den_w = weighted_rate(mask)
        np.testing.assert_allclose(row["subgroup_value"], a, rtol=1e-12)
        np.testing.assert_allclose(row["reference_value"], b, rtol=1e-12)
        np.testing.assert_allclose(row["disparity"], abs(a - b), rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(row["denominator"], den_w.sum(), rtol=1e-12)
        np.testing.assert_allclose(row["size"], _kish(w[group == row["subgroup"]]), rtol=1e-12)
        np.testing.assert_allclose(row["reference_size"], _kish(w[mask]), rtol=1e-12)


def test_small_flag_uses_the_effective_sample_size():
    # Subgroup "b": 60 rows, but one row carries almost all the weight, so n_eff is about 1.
    y = np.tile([0, 1], 100)
    pred = np.tile([0, 1, 1, 0], 50)
    group = np.array(["a"] * 140 + ["b"] * 60)
    group = Subgroups.from_attributes(pd.DataFrame({"g": group}), ["g"], min_size=30)
    w = np.ones(200)
    w[140] = 1000.0
    table = fc.rate_disparity(y, pred, group, metric="error_rate", reduction=None, sample_weight=w)
    b = table.iloc[1]
    assert b["size"] == pytest.approx(_kish(w[140:]))
    assert b["small"] and "effective rows < minimum 30" in b["small_reason"]
    assert not fc.rate_disparity(y, pred, group, metric="error_rate", reduction=None).iloc[1]["small"]
    # The rate's denominator: "a" has 140 rows, but the rest's positives are 30 rows of weight 1 and its
    # negatives one row of weight 1000 and 29 of weight 1: an effective size of about 1.
    fpr = fc.false_positive_rate_disparity(y, pred, group, reduction=None, sample_weight=w).iloc[0]
    assert fpr["small"] and "rest: " in fpr["small_reason"] and "effective actual negatives" in fpr["small_reason"]
    assert fpr["reference_size"] == pytest.approx(_kish(w[140:]))


def test_a_subgroup_whose_weights_are_all_zero_is_reported_as_empty():
    y, _, pred, group, w = _data(300, seed=2)
    w = np.where(group == "c", 0.0, w)
    table = fc.group_rates(y, pred, group, sample_weight=w).set_index("subgroup")
    assert table.loc["c", "size"] == 0 and table.loc["c", "small"]
    assert np.isnan(table.loc["c", "selection_rate"]) and "no rows" in table.loc["c", "note"]
    result = fc.false_positive_rate_disparity(y, pred, group, sample_weight=w)
    assert np.isfinite(result.value)
    auc = fc.bias_auc_table(y, _data(300, seed=2)[1], group, sample_weight=w).set_index("subgroup")
    assert np.isnan(auc.loc["c", "subgroup_auc"]) and "undefined" in auc.loc["c", "note"]
    assert auc.loc["c", "small"]


def test_equalized_odds_and_model_statistical_parity():
    y, _, pred, group, w = _data(500, seed=4)
    eo = fc.equalized_odds(y, pred, group, reduction=None, sample_weight=w)
    tpr = fc.true_positive_rate_disparity(y, pred, group, reduction=None, sample_weight=w)
    fpr = fc.false_positive_rate_disparity(y, pred, group, reduction=None, sample_weight=w)
    np.testing.assert_array_equal(eo["disparity"], np.fmax(tpr["disparity"], fpr["disparity"]))
    assert fc.equalized_odds(y, pred, group, reduction="max", sample_weight=w).value == pytest.approx(
        eo["disparity"].max())
    sp = fc.model_statistical_parity(None, pred, group, reduction=None, sample_weight=w).set_index("subgroup")
    for name in sp.index:
        m = group == name
        expected = abs(np.average(pred[m], weights=w[m]) - np.average(pred[~m], weights=w[~m]))
        assert sp.loc[name, "disparity"] == pytest.approx(expected, rel=1e-12)


def test_overlapping_subgroups_are_weighted_too():
    rng = np.random.default_rng(7)
    n = 400
    y, pred, w = rng.integers(0, 2, n), rng.integers(0, 2, n), rng.uniform(0, 2, n)
    ind = pd.DataFrame({"x": rng.integers(0, 2, n), "z": rng.integers(0, 2, n)})
    groups = Subgroups.from_indicators(ind, ["x", "z"])
    counts = fc.confusion_counts(y, pred, groups, sample_weight=w)
    for j in range(2):
        m, b = groups.membership[:, j], groups.background[:, j]
        np.testing.assert_allclose(counts.member[j], confusion_matrix(y[m], pred[m], sample_weight=w[m]).ravel())
        np.testing.assert_allclose(counts.background[j], confusion_matrix(y[b], pred[b], sample_weight=w[b]).ravel())


def test_threshold_counts_equal_weighted_confusion_counts():
    y, score, _, group, w = _data(400, seed=5, zero=30)
    tc = fc.threshold_counts(y, score, group, sample_weight=w)
    for t in [-1.0, 0.0, 0.35, 0.5, 0.8, 2.0]:
        a, b = tc.at(t), fc.confusion_counts(y, score >= t, group, sample_weight=w)
        for field in ("member", "background", "overall", "member_sq", "background_sq", "overall_sq"):
            np.testing.assert_allclose(getattr(a, field), getattr(b, field), rtol=1e-9, atol=1e-9)
    thresholds, member, background, overall = tc.counts_at([0.3, 0.6])
    np.testing.assert_allclose(member[1], fc.confusion_counts(y, score >= 0.6, group, sample_weight=w).member,
                               rtol=1e-9, atol=1e-9)
    each = tc.at_each({"a": 0.3, "b": 0.5, "c": 0.7})
    t = np.select([group == "a", group == "b"], [0.3, 0.5], 0.7)
    expected = fc.confusion_counts(y, score >= t, group, sample_weight=w)
    for field in ("member", "background", "member_sq", "background_sq"):
        np.testing.assert_allclose(getattr(each, field), getattr(expected, field), rtol=1e-9, atol=1e-9)


# ---------------------------------------------------------------------------------------------
# AUCs against roc_auc_score and the literal weighted Mann-Whitney statistic
# ---------------------------------------------------------------------------------------------

def _literal_auc(y, s, w):
    pos, neg = y == 1, y == 0
    wp, wn, sp, sn = w[pos], w[neg], s[pos], s[neg]
    pair = wp[:, None] * wn[None, :]
    wins = (sp[:, None] > sn[None, :]) + 0.5 * (sp[:, None] == sn[None, :])
    return (pair * wins).sum() / (wp.sum() * wn.sum())


def test_bias_auc_table_equals_roc_auc_score():
    y, score, _, group, w = _data(500, seed=6, zero=20)
    table = fc.bias_auc_table(y, score, group, sample_weight=w).set_index("subgroup")
    for name in table.index:
        m = group == name
        bpsn = (m & (y == 0)) | (~m & (y == 1))
        bnsp = (m & (y == 1)) | (~m & (y == 0))
        for column, rows in (("subgroup_auc", m), ("bpsn_auc", bpsn), ("bnsp_auc", bnsp)):
            expected = roc_auc_score(y[rows], score[rows], sample_weight=w[rows])
            assert table.loc[name, column] == pytest.approx(expected, rel=1e-12)
            assert table.loc[name, column] == pytest.approx(_literal_auc(y[rows], score[rows], w[rows]), rel=1e-12)
        assert table.loc[name, "size"] == pytest.approx(_kish(w[m]), rel=1e-12)
        assert table.loc[name, "n_positive"] == pytest.approx(w[m & (y == 1)].sum(), rel=1e-12)
        assert fc.subgroup_auc(y, score, m, sample_weight=w) == pytest.approx(table.loc[name, "subgroup_auc"])
        assert fc.bpsn_auc(y, score, m, sample_weight=w) == pytest.approx(table.loc[name, "bpsn_auc"])
        assert fc.bnsp_auc(y, score, m, sample_weight=w) == pytest.approx(table.loc[name, "bnsp_auc"])
    overall = roc_auc_score(y, score, sample_weight=w)
    full = fc.bias_auc_table(y, score, group, sample_weight=w)
    assert full.attrs["overall_auc"] == pytest.approx(overall, rel=1e-12)
    counted = fc.auc_counts(y, score, group, sample_weight=w).table()
    np.testing.assert_allclose(counted[["subgroup_auc", "bpsn_auc", "bnsp_auc"]].to_numpy(),
                               full[["subgroup_auc", "bpsn_auc", "bnsp_auc"]].to_numpy(), rtol=1e-12)
    assert (counted["subgroup_auc_max_binning_error"] == 0).all()


def test_bias_auc_score_with_weights():
    y, score, _, group, w = _data(500, seed=8)
    result = fc.bias_auc_score(y, score, group, sample_weight=w, p=-5, overall_weight=0.25)
    table = result.table
    means = [fc.power_mean(table[c].to_numpy(), -5) for c in ("subgroup_auc", "bpsn_auc", "bnsp_auc")]
    expected = 0.25 * roc_auc_score(y, score, sample_weight=w) + 0.75 * np.mean(means)
    assert result.value == pytest.approx(expected, rel=1e-12)


def test_binned_weighted_auc_counts_and_their_confusion_counts():
    y, score, _, group, w = _data(500, seed=9)
    counts = fc.auc_counts(y, score, group, bins=10, sample_weight=w)
    table = counts.table()
    exact = fc.bias_auc_table(y, score, group, sample_weight=w)
    for c in ("subgroup_auc", "bpsn_auc", "bnsp_auc"):
        gap = np.abs(table[c] - exact[c]).to_numpy()
        assert (gap <= table[f"{c}_max_binning_error"].to_numpy() + 1e-12).all()
    exact_counts = fc.auc_counts(y, score, group, sample_weight=w)
    at = exact_counts.at(0.5)
    direct = fc.confusion_counts(y, score >= 0.5, group, sample_weight=w)
    for field in ("member", "background", "overall", "member_sq", "background_sq", "overall_sq"):
        np.testing.assert_allclose(getattr(at, field), getattr(direct, field), rtol=1e-9, atol=1e-9)


# ---------------------------------------------------------------------------------------------
# Integer weights = repeated rows
# ---------------------------------------------------------------------------------------------

@st.composite
def _weighted_rows(draw):
    n = draw(st.integers(4, 40))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    score = np.array(draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))) / 6.0
    group = np.array(draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n)))
    w = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)))
    return y, score, group, w


def _repeated(y, score, group, w):
    """The rows repeated as many times as their integer weights: (y, score, group) of the repeats."""
    r = np.repeat(np.arange(len(y)), w)
    return y[r], score[r], group[r]


def _same(a, b):
    if isinstance(a, pd.DataFrame):
        assert list(a.columns) == list(b.columns) or set(a.columns) - {"weight"} == set(b.columns)
        for column in b.columns:
            x, z = a[column].to_numpy(), b[column].to_numpy()
            if x.dtype.kind in "fiu" and z.dtype.kind in "fiu":
                np.testing.assert_allclose(x.astype(float), z.astype(float), rtol=1e-9, atol=1e-12)
            elif column not in ("note", "small_reason"):   # notes name counts as rows or effective rows
                assert list(x) == list(z), column
        return
    x, z = float(a), float(b)
    assert (np.isnan(x) and np.isnan(z)) or x == pytest.approx(z, rel=1e-9, abs=1e-12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_weighted_rows())
def test_integer_weights_equal_repeated_rows(rows):
    y, score, group, w = rows
    yr, sr, gr = _repeated(y, score, group, w)
    pred, pred_r = (score >= 0.5).astype(int), (sr >= 0.5).astype(int)
    # Subgroups named from the full data, so a group that only zero weights hold is still listed.
    names = sorted(set(group))
    groups = Subgroups.from_attributes(pd.DataFrame({"g": group}), ["g"], min_size=3)
    groups_r = Subgroups.from_attributes(pd.DataFrame({"g": gr}), ["g"], min_size=3)
    if list(groups_r.names) != list(groups.names):
        return   # a subgroup lost all its rows: its repetition lists it no more
    kw = dict(sample_weight=w)
    # Count tables
    a, b = fc.confusion_counts(y, pred, groups, **kw), fc.confusion_counts(yr, pred_r, groups_r)
    np.testing.assert_allclose(a.member, b.member)
    np.testing.assert_allclose(a.background, b.background)
    tc, tr = fc.threshold_counts(y, score, groups, **kw), fc.threshold_counts(yr, sr, groups_r)
    for t in (0.0, 0.4, 0.7, 1.1):
        np.testing.assert_allclose(tc.at(t).member, tr.at(t).member)
    # Rates: the effective size of integer weights is not the repeated row count, so compare the rates.
    ga, gb = fc.group_rates(y, pred, groups, **kw), fc.group_rates(yr, pred_r, groups_r)
    for column in ["tp", "fp", "tn", "fn", "n_positive", "n_negative", *fc.ConfusionCounts.RATE_TO_METRIC]:
        _same(ga[[column]], gb[[column]])
    for metric in RATE_METRICS:
        for reference in ("rest", "overall", "pairwise"):
            x = fc.rate_disparity(y, pred, groups, metric=metric, reference=reference, reduction=None,
                                  include_small=True, **kw)
            z = fc.rate_disparity(yr, pred_r, groups_r, metric=metric, reference=reference, reduction=None,
                                  include_small=True)
            _same(x[["subgroup_value", "reference_value", "disparity", "numerator", "denominator"]],
                  z[["subgroup_value", "reference_value", "disparity", "numerator", "denominator"]])
    x = fc.equalized_odds(y, pred, groups, reduction=None, **kw)
    z = fc.equalized_odds(yr, pred_r, groups_r, reduction=None)
    _same(x[["tpr_disparity", "fpr_disparity", "disparity"]], z[["tpr_disparity", "fpr_disparity", "disparity"]])
    # AUCs
    x, z = fc.bias_auc_table(y, score, groups, **kw), fc.bias_auc_table(yr, sr, groups_r)
    _same(x[["n_positive", "n_negative", "subgroup_auc", "bpsn_auc", "bnsp_auc"]],
          z[["n_positive", "n_negative", "subgroup_auc", "bpsn_auc", "bnsp_auc"]])
    _same(x.attrs["overall_auc"], z.attrs["overall_auc"])
    m, mr = group == names[0], gr == names[0]
    _same(fc.subgroup_auc(y, score, m, **kw), fc.subgroup_auc(yr, sr, mr))
    _same(fc.bpsn_auc(y, score, m, **kw), fc.bpsn_auc(yr, sr, mr))
    _same(fc.bnsp_auc(y, score, m, **kw), fc.bnsp_auc(yr, sr, mr))
    x = fc.auc_counts(y, score, groups, bins=4, **kw).table()
    z = fc.auc_counts(yr, sr, groups_r, bins=4).table()
    if len(yr) and score[w > 0].min() == score.min() and score[w > 0].max() == score.max():   # same bin edges
        _same(x[["subgroup_auc", "bpsn_auc", "bnsp_auc"]], z[["subgroup_auc", "bpsn_auc", "bnsp_auc"]])


# ---------------------------------------------------------------------------------------------
# The real UCI Adult data with its survey weights (fnlwgt)
# ---------------------------------------------------------------------------------------------

ADULT_COLUMNS = ["age", "workclass", "fnlwgt", "education", "education_num", "marital_status", "occupation",
                 "relationship", "race", "sex", "capital_gain", "capital_loss", "hours_per_week", "native_country",
                 "income"]


def test_adult_weighted_rates_by_sex_and_race(data_file):
    path = data_file("adult/adult.data")
    adult = pd.read_csv(path, header=None, names=ADULT_COLUMNS, skipinitialspace=True)
    y = (adult["income"] == ">50K").to_numpy(int)
    # A simple deterministic rule as the model: more education and long hours predict > 50K.
    pred = ((adult["education_num"] >= 13) & (adult["hours_per_week"] >= 40)).to_numpy(int)
    w = adult["fnlwgt"].to_numpy(float)
    frame = pd.DataFrame({"y": y, "p": pred, "w": w})
    for column in ("sex", "race"):
        table = fc.group_rates(y, pred, adult[[column]], sample_weight=w).set_index("subgroup")
        frame["g"] = adult[column].to_numpy()
        for value, rows in frame.groupby("g"):
            label = next(name for name in table.index if name.endswith(str(value)))
            sr = (rows.w * rows.p).sum() / rows.w.sum()
            tpr = rows.w[(rows.y == 1) & (rows.p == 1)].sum() / rows.w[rows.y == 1].sum()
            fpr = rows.w[(rows.y == 0) & (rows.p == 1)].sum() / rows.w[rows.y == 0].sum()
            assert table.loc[label, "selection_rate"] == pytest.approx(sr, rel=1e-10)
            assert table.loc[label, "true_positive_rate"] == pytest.approx(tpr, rel=1e-10)
            assert table.loc[label, "false_positive_rate"] == pytest.approx(fpr, rel=1e-10)
            assert table.loc[label, "size"] == pytest.approx(rows.w.sum() ** 2 / (rows.w ** 2).sum(), rel=1e-10)
        # The weighted disparity against the rest, as pandas computes it.
        result = fc.false_positive_rate_disparity(y, pred, adult[[column]], reduction=None, sample_weight=w)
        for _, row in result.iterrows():
            value = next(v for v in frame["g"].unique() if row["subgroup"].endswith(str(v)))
            rest = frame[(frame.g != value) & (frame.y == 0)]
            assert row["reference_value"] == pytest.approx((rest.w * rest.p).sum() / rest.w.sum(), rel=1e-10)


def test_the_readme_table_of_adult_with_its_random_forest(data_file):
    """docs/weights.md: the random forest of adult_rf_binary.csv (predicted >50K = 1 - score) joined to
    adult.data's fnlwgt by entity_id; its rows and weighted rates by race and sex, as docs/weights.md prints them, and
    the weighted ones equal to pandas."""
    adult = pd.read_csv(data_file("adult/adult.data"), header=None, names=ADULT_COLUMNS, skipinitialspace=True)
    rf = pd.read_csv(data_file("adult/adult_rf_binary.csv"))
    rows = rf.drop(columns=["race"]).join(adult[["fnlwgt", "sex", "race", "income"]], on="entity_id")
    assert len(rows) == 9_769 and (rows["label_value"] == (rows["income"] == ">50K")).all()
    y, pred, w = rows["label_value"].to_numpy(), 1 - rows["score"].astype(int).to_numpy(), rows["fnlwgt"].to_numpy()
    shown = {   # subgroup: (rows, effective size, selection rate, TPR, FPR), unweighted then weighted, as printed
        "Female": ((3199, 0.097, 0.595, 0.034), (2434, 0.101, 0.606, 0.038)),
        "Male": ((6570, 0.299, 0.680, 0.133), (5036, 0.295, 0.685, 0.127)),
        "White": ((8326, 0.248, 0.674, 0.103), (6377, 0.249, 0.678, 0.101)),
        "Black": ((967, 0.118, 0.581, 0.047), (760, 0.127, 0.613, 0.051)),
        "Asian-Pac-Islander": ((303, 0.261, 0.659, 0.113), (232, 0.271, 0.709, 0.115)),
        "Amer-Indian-Eskimo": ((100, 0.070, 0.400, 0.033), (65, 0.113, 0.486, 0.064)),
        "Other": ((73, 0.082, 0.625, 0.015), (62, 0.077, 0.564, 0.016)),
    }
    columns = ["size", "selection_rate", "true_positive_rate", "false_positive_rate"]
    for column in ("sex", "race"):
        plain = fc.group_rates(y, pred, rows[[column]]).set_index("subgroup")
        weighted = fc.group_rates(y, pred, rows[[column]], sample_weight=w).set_index("subgroup")
        for name in weighted.index:
            value = name.split("=")[-1].strip()
            want_rows, want_weighted = shown[value]
            assert [round(float(v), 3) for v in plain.loc[name, columns]] == [want_rows[0], *want_rows[1:]]
            got = weighted.loc[name, columns].to_numpy(float)
            assert [round(got[0]), *(round(v, 3) for v in got[1:])] == [want_weighted[0], *want_weighted[1:]]
            d = rows[rows[column] == value].assign(p=pred[rows[column] == value])
            negatives, positives = d[d.label_value == 0], d[d.label_value == 1]
            assert got[1:] == pytest.approx([np.average(d.p, weights=d.fnlwgt),
                                             np.average(positives.p, weights=positives.fnlwgt),
                                             np.average(negatives.p, weights=negatives.fnlwgt)], rel=1e-10)


# ---------------------------------------------------------------------------------------------
# Calibration and dataset metrics
# ---------------------------------------------------------------------------------------------

def _prob_data(n=600, seed=11, zero=0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 1, n)
    y = (rng.uniform(0, 1, n) < p ** 1.3).astype(int)
    group = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    w = rng.uniform(0.1, 3.0, n)
    w[:zero] = 0.0
    return y, p, group, w


def _literal_calibration(y, p, w, edges):
    bins = np.clip(np.searchsorted(edges[1:-1], p, side="right"), 0, len(edges) - 2)
    gaps, masses = [], []
    for b in range(len(edges) - 1):
        m = bins == b
        if w[m].sum() > 0:
            gaps.append(abs((w[m] * y[m]).sum() - (w[m] * p[m]).sum()) / w[m].sum())
            masses.append(w[m].sum())
    gaps, masses = np.array(gaps), np.array(masses)
    return (gaps * masses).sum() / w.sum(), gaps.max()


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_calibration_errors_equal_the_weighted_formulas(strategy):
    y, p, group, w = _prob_data(zero=15)
    table = fc.calibration_errors(y, p, group, n_bins=8, strategy=strategy, sample_weight=w).set_index("subgroup")
    edges = fc.calibration_counts(y, p, group, n_bins=8, strategy=strategy, sample_weight=w).edges
    for name in table.index:
        m = group == name
        ece, mce = _literal_calibration(y[m], p[m], w[m], edges)
        assert table.loc[name, "ece"] == pytest.approx(ece, rel=1e-10)
        assert table.loc[name, "mce"] == pytest.approx(mce, rel=1e-10)
        assert table.loc[name, "brier_score"] == pytest.approx(brier_score_loss(y[m], p[m], sample_weight=w[m]),
                                                               rel=1e-10)
        assert table.loc[name, "size"] == pytest.approx(_kish(w[m]), rel=1e-12)
        assert table.loc[name, "n_positive"] == pytest.approx(w[m & (y == 1)].sum(), rel=1e-12)
        assert table.loc[name, "n_negative"] == pytest.approx(w[m & (y == 0)].sum(), rel=1e-12)
    ece, mce = _literal_calibration(y, p, w, edges)
    assert fc.expected_calibration_error(y, p, n_bins=8, strategy=strategy, sample_weight=w) == pytest.approx(
        ece, rel=1e-10)
    assert fc.maximum_calibration_error(y, p, n_bins=8, strategy=strategy, sample_weight=w) == pytest.approx(
        mce, rel=1e-10)


def test_reliability_diagram_uses_weighted_means():
    y, p, group, w = _prob_data()
    table = fc.reliability_diagram(y, p, group, n_bins=5, sample_weight=w)
    frame = pd.DataFrame({"y": y, "p": p, "g": group, "w": w, "bin": np.minimum((p * 5).astype(int), 4)})
    for (g, b), rows in frame.groupby(["g", "bin"]):
        row = table[(table.subgroup == g) & (table.bin == b)].iloc[0]
        assert row["count"] == pytest.approx(rows.w.sum(), rel=1e-12)
        assert row["mean_predicted"] == pytest.approx(np.average(rows.p, weights=rows.w), rel=1e-12)
        assert row["fraction_positive"] == pytest.approx(np.average(rows.y, weights=rows.w), rel=1e-12)


def test_weighted_quantile_edges():
    y, p, group, w = _prob_data(200)
    ones = fc.calibration_counts(y, p, group, n_bins=7, strategy="quantile", sample_weight=np.ones(len(y))).edges
    np.testing.assert_array_equal(ones, fc.calibration_counts(y, p, group, n_bins=7, strategy="quantile").edges)
    k = np.arange(len(y)) % 4
    repeated = np.quantile(np.repeat(p, k), np.linspace(0, 1, 8))
    np.testing.assert_array_equal(
        fc.calibration_counts(y, p, group, n_bins=7, strategy="quantile", sample_weight=k).edges, repeated)


def test_calibration_disparity_with_weights():
    y, p, group, w = _prob_data(900, seed=12)
    result = fc.calibration_disparity(y, p, group, n_bins=5, debias=False, reduction=None, sample_weight=w)
    errors = fc.calibration_errors(y, p, group, n_bins=5, sample_weight=w).set_index("subgroup")
    for _, row in result.iterrows():
        m = group == row["subgroup"]
        rest_ece, _ = _literal_calibration(y[~m], p[~m], w[~m], np.arange(6) / 5)
        assert row["subgroup_value"] == pytest.approx(errors.loc[row["subgroup"], "ece"], rel=1e-12)
        assert row["reference_value"] == pytest.approx(rest_ece, rel=1e-10)
        assert row["disparity"] == pytest.approx(abs(row["subgroup_value"] - rest_ece), rel=1e-9)
        assert row["size"] == pytest.approx(_kish(w[m]), rel=1e-12)
        assert row["reference_size"] == pytest.approx(_kish(w[~m]), rel=1e-12)
    # Unit weights: the debiased values of the unweighted counts.
    plain = fc.calibration_disparity(y, p, group, n_bins=5)
    ones = fc.calibration_disparity(y, p, group, n_bins=5, sample_weight=np.ones(len(y)))
    assert ones.value == pytest.approx(plain.value, rel=1e-9)
    np.testing.assert_allclose(ones.errors["squared_ce"], plain.errors["squared_ce"], rtol=1e-9)
    weighted = fc.calibration_disparity(y, p, group, n_bins=5, sample_weight=w)
    assert np.isfinite(weighted.value) and weighted.debiased
    # Weighted: each bin's mass is its share and its Kish effective size n* = (Σw)² / Σw² its rows in the variance.
    table = weighted.table.set_index("subgroup")
    for name in table.index:
        m = group == name
        mine, rest = _literal_squared(y[m], p[m], w[m]), _literal_squared(y[~m], p[~m], w[~m])
        assert table.loc[name, "subgroup_squared"] == pytest.approx(mine, rel=1e-9, abs=1e-12)
        assert table.loc[name, "reference_squared"] == pytest.approx(rest, rel=1e-9, abs=1e-12)
        assert table.loc[name, "disparity"] == pytest.approx(np.sqrt(abs(mine - rest)), rel=1e-9)


def _literal_squared(y, p, w, edges=np.arange(6) / 5) -> float:
    """Σ_b W_b [(ȳ_b − p̄_b)² − ȳ_b (1 − ȳ_b) / (n*_b − 1)] / Σ W_b over bins with n*_b > 1, written out."""
    b = np.clip(np.searchsorted(edges[1:-1], p, side="right"), 0, len(edges) - 2)
    total = 0.0
    for k in range(len(edges) - 1):
        wk = w[b == k]
        if wk.sum() == 0:
            continue
        n_eff = wk.sum() ** 2 / (wk ** 2).sum()
        if n_eff > 1:
            y_bar, p_bar = np.average(y[b == k], weights=wk), np.average(p[b == k], weights=wk)
            total += wk.sum() * ((y_bar - p_bar) ** 2 - y_bar * (1 - y_bar) / (n_eff - 1))
    return total / w.sum()


def test_base_rates_and_dataset_statistical_parity():
    y, _, group, w = _prob_data(500, seed=13, zero=10)
    table = fc.base_rates(y, group, sample_weight=w).set_index("subgroup")
    frame = pd.DataFrame({"y": y, "g": group, "w": w})
    for g, rows in frame.groupby("g"):
        assert table.loc[g, "base_rate"] == pytest.approx(np.average(rows.y, weights=rows.w), rel=1e-12)
        assert table.loc[g, "size"] == pytest.approx(_kish(rows.w.to_numpy()), rel=1e-12)
        assert table.loc[g, "n_positive"] == pytest.approx(rows.w[rows.y == 1].sum(), rel=1e-12)
    counts = fc.confusion_counts(y, y, group, sample_weight=w)
    pd.testing.assert_frame_equal(fc.base_rates_from_counts(counts), fc.base_rates(y, group, sample_weight=w))
    parity = fc.dataset_statistical_parity(y, group, reduction=None, sample_weight=w).set_index("subgroup")
    for g in parity.index:
        rest = frame[frame.g != g]
        expected = abs(table.loc[g, "base_rate"] - np.average(rest.y, weights=rest.w))
        assert parity.loc[g, "disparity"] == pytest.approx(expected, rel=1e-10)


def test_calibration_and_dataset_bad_weights_raise():
    """(Their intervals with weights: tests/fairness_core/test_weighted_calibration_intervals.py and
    test_weighted_metric_intervals.py.)"""
    y, p, group, w = _prob_data(200)
    for call in (lambda v: fc.calibration_counts(y, p, group, sample_weight=v),
                 lambda v: fc.expected_calibration_error(y, p, sample_weight=v),
                 lambda v: fc.base_rates(y, group, sample_weight=v)):
        with pytest.raises(ValueError, match="1 negative values"):
            call(np.where(np.arange(len(y)) == 9, -0.5, w))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_weighted_rows(), st.sampled_from(["uniform", "quantile"]))
def test_integer_weights_equal_repeated_rows_calibration_and_dataset(rows, strategy):
    y, score, group, w = rows
    if w.sum() == 0:
        return
    yr, sr, gr = _repeated(y, score, group, w)
    groups = Subgroups.from_attributes(pd.DataFrame({"g": group}), ["g"], min_size=3)
    groups_r = Subgroups.from_attributes(pd.DataFrame({"g": gr}), ["g"], min_size=3)
    if list(groups_r.names) != list(groups.names):
        return
    kw = dict(sample_weight=w)
    a = fc.calibration_counts(y, score, groups, n_bins=3, strategy=strategy, **kw)
    b = fc.calibration_counts(yr, sr, groups_r, n_bins=3, strategy=strategy)
    np.testing.assert_array_equal(a.edges, b.edges)
    np.testing.assert_allclose(a.member, b.member, rtol=1e-9, atol=1e-12)
    x = fc.reliability_diagram(y, score, groups, n_bins=3, strategy=strategy, **kw)
    z = fc.reliability_diagram(yr, sr, groups_r, n_bins=3, strategy=strategy)
    _same(x, z)
    x = fc.calibration_errors(y, score, groups, n_bins=3, strategy=strategy, min_per_group=1, **kw)
    z = fc.calibration_errors(yr, sr, groups_r, n_bins=3, strategy=strategy, min_per_group=1)
    _same(x[["n_positive", "n_negative", "ece", "mce", "brier_score"]],
          z[["n_positive", "n_negative", "ece", "mce", "brier_score"]])
    _same(fc.expected_calibration_error(y, score, n_bins=3, strategy=strategy, **kw),
          fc.expected_calibration_error(yr, sr, n_bins=3, strategy=strategy))
    _same(fc.maximum_calibration_error(y, score, n_bins=3, strategy=strategy, **kw),
          fc.maximum_calibration_error(yr, sr, n_bins=3, strategy=strategy))
    x = fc.calibration_disparity(y, score, groups, n_bins=3, strategy=strategy, min_per_group=1, debias=False,
                                 reduction=None, **kw)
    z = fc.calibration_disparity(yr, sr, groups_r, n_bins=3, strategy=strategy, min_per_group=1, debias=False,
                                 reduction=None)
    _same(x[["subgroup_value", "reference_value", "disparity"]], z[["subgroup_value", "reference_value", "disparity"]])
    x, z = fc.base_rates(y, groups, **kw), fc.base_rates(yr, groups_r)
    _same(x[["n_positive", "n_negative", "base_rate"]], z[["n_positive", "n_negative", "base_rate"]])
    x = fc.dataset_statistical_parity(y, groups, reduction=None, reference="pairwise", **kw)
    z = fc.dataset_statistical_parity(yr, groups_r, reduction=None, reference="pairwise")
    _same(x[["subgroup_value", "reference_value", "disparity"]], z[["subgroup_value", "reference_value", "disparity"]])


# ---------------------------------------------------------------------------------------------
# Performance, Theil indices and ratio scores
# ---------------------------------------------------------------------------------------------

def test_performance_table_of_weighted_counts_equals_sklearn():
    from sklearn.metrics import accuracy_score, balanced_accuracy_score

    y, _, pred, group, w = _data(500, seed=14, zero=10)
    table = fc.performance_table(fc.confusion_counts(y, pred, group, sample_weight=w)).set_index("subgroup")
    for name, m in [("All rows", np.ones(len(y), bool))] + [(g, group == g) for g in ("a", "b", "c")]:
        row, wm = table.loc[name], w[m]
        assert row["accuracy"] == pytest.approx(accuracy_score(y[m], pred[m], sample_weight=wm), rel=1e-12)
        assert row["precision"] == pytest.approx(precision_score(y[m], pred[m], sample_weight=wm), rel=1e-12)
        assert row["recall"] == pytest.approx(recall_score(y[m], pred[m], sample_weight=wm), rel=1e-12)
        assert row["f1"] == pytest.approx(f1_score(y[m], pred[m], sample_weight=wm), rel=1e-12)
        assert row["balanced_accuracy"] == pytest.approx(
            balanced_accuracy_score(y[m], pred[m], sample_weight=wm), rel=1e-12)
        assert row["size"] == pytest.approx(_kish(wm), rel=1e-12)


def _literal_theil(y, pred, w):
    b = pred - y + 1.0
    mu = np.average(b, weights=w)
    share = b / mu
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(share > 0, share * np.log(np.where(share > 0, share, 1.0)), 0.0)
    return np.average(terms, weights=w)


def test_theil_indices_equal_the_weighted_formula():
    y, _, pred, group, w = _data(500, seed=15)
    assert fc.individual_theil_index(y, pred, sample_weight=w) == pytest.approx(_literal_theil(y, pred, w), rel=1e-10)
    assert fc.individual_theil_index(y, pred, subgroups=group, sample_weight=w) == pytest.approx(
        _literal_theil(y, pred, w), rel=1e-10)
    b = pred - y + 1.0
    mu = np.average(b, weights=w)
    between = 0.0
    for g in ("a", "b", "c"):
        m = group == g
        mu_g = np.average(b[m], weights=w[m])
        between += w[m].sum() / w.sum() * (mu_g / mu) * np.log(mu_g / mu)
    assert fc.between_group_theil_index(y, pred, group, sample_weight=w) == pytest.approx(between, rel=1e-9)
    table = fc.theil_index(y, pred, group, reduction=None, sample_weight=w).set_index("subgroup")
    for g in ("a", "b", "c"):
        m = group == g
        smoothed = np.where(m, np.average(b[m], weights=w[m]), np.average(b[~m], weights=w[~m]))
        assert table.loc[g, "disparity"] == pytest.approx(_literal_theil(np.ones(len(y)), smoothed, w), rel=1e-9)
        assert table.loc[g, "size"] == pytest.approx(_kish(w[m]), rel=1e-12)


def test_ratio_scores_with_weights():
    y, _, pred, group, w = _data(500, seed=16)
    s = (group == "a").astype(int)
    sr = [np.average(pred[s == g], weights=w[s == g]) for g in (0, 1)]
    result = fc.p_percent_score(pred, s, sample_weight=w)
    assert result.value == pytest.approx(min(sr[0] / sr[1], sr[1] / sr[0]), rel=1e-12)
    assert result.size_0 == pytest.approx(_kish(w[s == 0]), rel=1e-12)
    pos = y == 1
    tpr = [np.average(pred[(s == g) & pos], weights=w[(s == g) & pos]) for g in (0, 1)]
    result = fc.equal_opportunity_score(y, pred, s, sample_weight=w)
    assert result.value == pytest.approx(min(tpr[0] / tpr[1], tpr[1] / tpr[0]), rel=1e-12)
    assert result.size_1 == pytest.approx(_kish(w[(s == 1) & pos]), rel=1e-12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_weighted_rows())
def test_integer_weights_equal_repeated_rows_performance_theil_ratio(rows):
    y, score, group, w = rows
    yr, sr, gr = _repeated(y, score, group, w)
    pred, pred_r = (score >= 0.5).astype(int), (sr >= 0.5).astype(int)
    groups = Subgroups.from_attributes(pd.DataFrame({"g": group}), ["g"], min_size=3)
    groups_r = Subgroups.from_attributes(pd.DataFrame({"g": gr}), ["g"], min_size=3)
    if list(groups_r.names) != list(groups.names):
        return
    kw = dict(sample_weight=w)
    x = fc.performance_table(fc.confusion_counts(y, pred, groups, **kw))
    z = fc.performance_table(fc.confusion_counts(yr, pred_r, groups_r))
    columns = ["tn", "fp", "fn", "tp", "accuracy", "precision", "recall", "f1", "selection_rate", "balanced_accuracy"]
    _same(x[columns], z[columns])
    _same(fc.individual_theil_index(y, pred, **kw), fc.individual_theil_index(yr, pred_r))
    _same(fc.between_group_theil_index(y, pred, groups, **kw), fc.between_group_theil_index(yr, pred_r, groups_r))
    for reference in ("rest", "pairwise"):
        x = fc.theil_index(y, pred, groups, reduction=None, reference=reference, **kw)
        z = fc.theil_index(yr, pred_r, groups_r, reduction=None, reference=reference)
        _same(x[["subgroup_value", "reference_value", "disparity"]],
              z[["subgroup_value", "reference_value", "disparity"]])
    s, s_r = (group == "a").astype(int), (gr == "a").astype(int)
    for f, args, args_r in ((fc.p_percent_score, (pred, s), (pred_r, s_r)),
                            (fc.equal_opportunity_score, (y, pred, s), (yr, pred_r, s_r))):
        a, b = f(*args, **kw), f(*args_r)
        _same(a.value, b.value)
        _same(a.rate_0, b.rate_0)


# ---------------------------------------------------------------------------------------------
# Class counts, unweighted average bias and the explorer
# ---------------------------------------------------------------------------------------------

def _class_data(n=600, seed=17, zero=0):
    rng = np.random.default_rng(seed)
    truth = rng.choice(["x", "y", "z"], n)
    prediction = np.where(rng.uniform(size=n) < 0.6, truth, rng.choice(["x", "y", "z"], n))
    group = rng.choice(["a", "b"], n)
    w = rng.uniform(0.1, 3.0, n)
    w[:zero] = 0.0
    return truth, prediction, group, w


def test_class_counts_equal_sklearn_with_weights():
    from sklearn.metrics import precision_recall_fscore_support

    truth, prediction, group, w = _class_data(zero=12)
    counts = fc.class_counts(truth, prediction, group, sample_weight=w)
    table = counts.table()
    for g in ("a", "b"):
        m = group == g
        expected = confusion_matrix(truth[m], prediction[m], labels=["x", "y", "z"], sample_weight=w[m])
        np.testing.assert_allclose(counts.member[counts.names.index(g)], expected, rtol=1e-12)
        p, r, f, _ = precision_recall_fscore_support(truth[m], prediction[m], labels=["x", "y", "z"],
                                                     sample_weight=w[m], zero_division=np.nan)
        rows = table[table.subgroup == g]
        np.testing.assert_allclose(rows["precision"], p, rtol=1e-12)
        np.testing.assert_allclose(rows["recall"], r, rtol=1e-12)
        np.testing.assert_allclose(rows["fscore"], f, rtol=1e-12)
        assert rows["size"].iloc[0] == pytest.approx(_kish(w[m]), rel=1e-12)
    with pytest.raises(ValueError, match="metric callable cannot take sample_weight"):
        fc.unweighted_average_bias(truth, prediction, group, metric=lambda t, p: 0.5, sample_weight=w)
    with pytest.raises(ValueError, match="1 negative values"):
        fc.class_counts(truth, prediction, group, sample_weight=np.where(np.arange(len(w)) == 4, -1.0, w))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_weighted_rows())
def test_integer_weights_equal_repeated_rows_class_counts(rows):
    y, score, group, w = rows
    truth = np.array(["x", "y", "z"])[(y + (score * 6).astype(int)) % 3]
    prediction = np.array(["x", "y", "z"])[(score * 6).astype(int) % 3]
    r = np.repeat(np.arange(len(y)), w)
    groups = Subgroups.from_attributes(pd.DataFrame({"g": group}), ["g"], min_size=3)
    groups_r = Subgroups.from_attributes(pd.DataFrame({"g": group[r]}), ["g"], min_size=3)
    if list(groups_r.names) != list(groups.names):
        return
    labels = ["x", "y", "z"]
    a = fc.class_counts(truth, prediction, groups, labels=labels, sample_weight=w)
    b = fc.class_counts(truth[r], prediction[r], groups_r, labels=labels)
    np.testing.assert_allclose(a.member, b.member)
    _same(a.table()[["n_true", "n_predicted", "tp", "recall", "precision", "fscore"]],
          b.table()[["n_true", "n_predicted", "tp", "recall", "precision", "fscore"]])
    for metric in ("recall", "precision", "fscore"):
        x = fc.unweighted_average_bias(truth, prediction, groups, labels=labels, metric=metric, include_small=True,
                                       sample_weight=w)
        z = fc.unweighted_average_bias(truth[r], prediction[r], groups_r, labels=labels, metric=metric,
                                       include_small=True)
        _same(x.value, z.value)


@pytest.mark.parametrize("make", ["threshold", "auc"])
def test_explorer_curves_of_weighted_counts(make):
    y, score, _, group, w = _data(400, seed=18, zero=20)
    groups = Subgroups.from_attributes(pd.DataFrame({"g": group}), ["g"], min_size=30)
    tc = (fc.threshold_counts(y, score, groups, sample_weight=w) if make == "threshold"
          else fc.auc_counts(y, score, groups, sample_weight=w))
    t = [0.2, 0.5, 0.8]
    curves = fc.threshold_curves(tc, ["true_positive_rate", "false_positive_rate"], t)
    for threshold in t:
        rates = fc.group_rates(y, (score >= threshold).astype(int), groups, sample_weight=w)
        for metric in ("true_positive_rate", "false_positive_rate"):
            rows = curves[(curves.metric == metric) & (curves.threshold == threshold) & (curves.scope == "subgroup")]
            np.testing.assert_allclose(rows["value"], rates[metric], rtol=1e-9)
            np.testing.assert_allclose(rows["size"], rates["size"], rtol=1e-9)
            table = fc.rate_disparity(y, (score >= threshold).astype(int), groups, metric=metric, reduction=None,
                                      sample_weight=w)
            np.testing.assert_array_equal(rows["small"].to_numpy(), table["small"].to_numpy())
    for metric in ("statistical_parity", "false_positive_rate", "equalized_odds", "p_percent_score"):
        for reduction in ("max", "mean"):
            curve = fc.disparity_curve(tc, metric, t, reduction=reduction, include_small=False)
            for threshold, value in zip(t, curve["value"]):
                pred = (score >= threshold).astype(int)
                counts = fc.confusion_counts(y, pred, groups, sample_weight=w)
                if metric == "equalized_odds":
                    expected = counts.equalized_odds(reduction=reduction).value
                elif metric == "p_percent_score":
                    expected = counts.ratio_scores("selection_rate").value
                else:
                    expected = counts.disparity(metric, reduction=reduction).value
                assert (np.isnan(value) and np.isnan(expected)) or value == pytest.approx(expected, rel=1e-9)
    band = fc.rule_band(tc, fc.DEFAULT_RULES[0], t)
    assert len(band) == len(t)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_weighted_rows())
def test_integer_weights_equal_repeated_rows_explorer(rows):
    y, score, group, w = rows
    r = np.repeat(np.arange(len(y)), w)
    groups = Subgroups.from_attributes(pd.DataFrame({"g": group}), ["g"], min_size=3)
    groups_r = Subgroups.from_attributes(pd.DataFrame({"g": group[r]}), ["g"], min_size=3)
    if list(groups_r.names) != list(groups.names):
        return
    tc = fc.threshold_counts(y, score, groups, sample_weight=w)
    tr = fc.threshold_counts(y[r], score[r], groups_r)
    t = [0.0, 0.5, 0.9]
    x, z = fc.threshold_curves(tc, thresholds=t), fc.threshold_curves(tr, thresholds=t)
    _same(x[["value", "numerator", "denominator"]], z[["value", "numerator", "denominator"]])
    for metric in ("statistical_parity", "true_positive_rate", "equalized_odds", "equal_opportunity_score"):
        x = fc.disparity_curve(tc, metric, t, include_small=True)
        z = fc.disparity_curve(tr, metric, t, include_small=True)
        _same(x[["value", "n_used"]], z[["value", "n_used"]])


def test_subgroup_threshold_effect_with_weighted_counts():
    y, score, _, group, w = _data(300, seed=18)
    tc = fc.threshold_counts(y, score, group, sample_weight=w)
    effect = fc.subgroup_threshold_effect(tc, 0.5, {"a": 0.3}, ["true_positive_rate"])
    m = group == "a"
    expected = np.average((score[m & (y == 1)] >= 0.3), weights=w[m & (y == 1)])
    row = effect.table.set_index("subgroup").loc["a"]
    assert row["true_positive_rate_own"] == pytest.approx(expected, rel=1e-12)


def test_correlation_score_with_weights():
    rng = np.random.default_rng(19)
    x, z = rng.normal(size=300), rng.normal(size=300)
    z = z + 0.5 * x
    w = rng.uniform(0, 2, 300)
    r = np.cov(x, z, aweights=w)
    expected = -abs(r[0, 1] / np.sqrt(r[0, 0] * r[1, 1]))
    assert fc.correlation_score(x, z, sample_weight=w) == pytest.approx(expected, rel=1e-10)
    k = rng.integers(0, 4, 300)
    rep = np.repeat(np.arange(300), k)
    assert fc.correlation_score(x, z, sample_weight=k) == pytest.approx(fc.correlation_score(x[rep], z[rep]),
                                                                         rel=1e-10)
    assert np.isnan(fc.correlation_score(x, np.where(w > 1, 1.0, z), sample_weight=np.where(w > 1, w, 0.0)))
    with pytest.raises(ValueError, match="intervals with sample weights are not available yet"):
        fc.correlation_score(x, z, ci=0.95, sample_weight=w)


def test_smoothed_edf_with_weights():
    y, _, group, w = _prob_data(500, seed=20, zero=5)
    result = fc.smoothed_edf(y, group, sample_weight=w, concentration=2.0)
    rates = {}
    for g in ("a", "b", "c"):
        m = group == g
        pos, total = w[m & (y == 1)].sum(), w[m].sum()
        rates[g] = ((total - pos + 1.0) / (total + 2.0), (pos + 1.0) / (total + 2.0))
    logs = np.log(np.array([rates[g] for g in ("a", "b", "c")]))
    assert result.value == pytest.approx((logs.max(axis=0) - logs.min(axis=0)).max(), rel=1e-12)
    table = result.table.set_index("subgroup")
    assert table.loc["a", "size"] == pytest.approx(_kish(w[group == "a"]), rel=1e-12)
    counts = fc.confusion_counts(y, y, group, sample_weight=w)
    assert fc.smoothed_edf_from_counts(counts, concentration=2.0).value == pytest.approx(result.value, rel=1e-12)
    k = np.arange(len(y)) % 3
    rep = np.repeat(np.arange(len(y)), k)
    assert fc.smoothed_edf(y, group, sample_weight=k).value == pytest.approx(fc.smoothed_edf(y[rep], group[rep]).value,
                                                                             rel=1e-12)


def test_subset_score_slices_the_weights_and_favourable_swaps_the_squares():
    y, _, pred, group, w = _data(300, seed=21)
    mask = np.arange(len(y)) % 2 == 0
    sliced = fc.subset_score(fc.group_rates, mask, y, pred, group, sample_weight=w)
    pd.testing.assert_frame_equal(sliced, fc.group_rates(y[mask], pred[mask], group[mask], sample_weight=w[mask]))
    counts = fc.confusion_counts(y, pred, group, sample_weight=w)
    adverse = counts.favourable("adverse")
    flipped = fc.confusion_counts(1 - y, 1 - pred, group, sample_weight=w)
    for field in ("member", "background", "overall", "member_sq", "background_sq", "overall_sq"):
        np.testing.assert_allclose(getattr(adverse, field), getattr(flipped, field), rtol=1e-12)
    np.testing.assert_allclose(adverse.sizes, counts.sizes, rtol=1e-12)

