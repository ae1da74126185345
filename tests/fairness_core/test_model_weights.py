"""Sample weights in the model comparisons: compare_models, compare_model_aucs, compare_model_calibration,
and in consistency. Weighted values against independent computations (scikit-learn with ``sample_weight`` on masks,
literal formulas), integer weights against repeated rows, unit weights against the unweighted results, the paired
intervals' coverage by simulation with weights that correct a known sampling bias, and bad weights refused."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score

import fairness_core as fc
from tests.fairness_core.test_model_aucs import _data as _auc_data, _row, _sets
from tests.fairness_core.test_model_calibration import _data as _calibration_data
from fairness_core._models.rates import QUANTITIES

BAD_WEIGHTS = [(np.r_[1.0, -1.0], "negative values"), (np.r_[1.0, np.nan], "NaN values"),
               (np.r_[np.inf, 1.0], "infinite values"), (np.array(["a", "b"]), "must hold numbers"),
               (np.ones((2, 1)), "one-dimensional"), (np.ones(3), "has 3 values but the data has")]


def _bad(weights, n: int) -> np.ndarray:
    """A bad weight array of the data's length where the case is not about the length or the shape."""
    if weights.ndim != 1 or len(weights) == 3:
        return weights
    return np.resize(weights, n) if weights.dtype.kind != "U" else np.array(["a"] * n)


# --------------------------------------------------------------------------------------------
# compare_models
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rated():
    """Labels, two models' predictions (close to each other), three groups of 500-2000 rows and log-normal weights."""
    rng = np.random.default_rng(25)
    n = 4000
    g = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.35, 0.15])
    y = (rng.random(n) < np.where(g == "b", 0.45, 0.35)).astype(int)
    base = np.clip(0.35 * y + rng.normal(0.35, 0.2, n), 0, 1)
    other = np.clip(base + rng.normal(0, 0.08, n) + np.where(g == "b", 0.05, 0.0), 0, 1)
    groups = fc.Subgroups.from_attributes(pd.DataFrame({"g": g}), ["g"])
    preds = {"base": (base >= 0.5).astype(int), "other": (other >= 0.45).astype(int)}
    return y, preds, groups, g, rng.lognormal(0.0, 0.8, n)


def _single_model_value(counts, quantity, kw):
    if quantity == "equalized_odds":
        return counts.equalized_odds(**kw).value
    if quantity in ("p_percent_score", "equal_opportunity_score"):
        return counts.ratio_scores("selection_rate" if quantity == "p_percent_score" else "true_positive_rate").value
    if quantity in ("accuracy", "selection_rate"):
        m = counts.overall
        return (m[0] + m[3]) / m.sum() if quantity == "accuracy" else (m[1] + m[3]) / m.sum()
    return counts.disparity(quantity, **kw).value


@pytest.mark.parametrize("distance, reduction, reference", [("diff", "max", "rest"), ("ratio", "mean", "pairwise"),
                                                            ("diff", "mean", "overall")])
def test_weighted_values_are_the_weighted_single_model_values(rated, distance, reduction, reference):
    y, preds, groups, _, w = rated
    out = fc.compare_models(y, preds, groups, baseline="base", quantities=QUANTITIES, distance_measure=distance,
                            reduction=reduction, reference=reference, ci=None, sample_weight=w)
    kw = dict(distance_measure=distance, reduction=reduction, reference=reference)
    for row in out.itertuples():
        counts = fc.confusion_counts(y, preds[row.model], groups, sample_weight=w)
        np.testing.assert_allclose(row.value, _single_model_value(counts, row.quantity, kw), rtol=1e-12)
    unweighted = fc.compare_models(y, preds, groups, baseline="base", quantities=QUANTITIES, ci=None, **kw)
    assert not np.allclose(out["value"], unweighted["value"])   # the weights change the values


def test_weighted_values_against_literal_formulas(rated):
    """The weighted FPR disparity (diff, max against the rest) from masks, and accuracy and selection rate from
    scikit-learn and numpy with the weights."""
    y, preds, groups, g, w = rated
    out = fc.compare_models(y, preds, groups, baseline="base", quantities=["false_positive_rate", "accuracy",
                                                                              "selection_rate"],
                            ci=None, sample_weight=w).set_index(["model", "quantity"])

    def fpr(mask, pred):
        negatives = mask & (y == 0)
        return w[negatives & (pred == 1)].sum() / w[negatives].sum()

    for name, pred in preds.items():
        gaps = [abs(fpr(g == level, pred) - fpr(g != level, pred)) for level in ("a", "b", "c")]
        assert out.loc[(name, "false_positive_rate"), "value"] == pytest.approx(max(gaps), rel=1e-12)
        assert out.loc[(name, "accuracy"), "value"] == pytest.approx(accuracy_score(y, pred, sample_weight=w),
                                                                     rel=1e-12)
        assert out.loc[(name, "selection_rate"), "value"] == pytest.approx(np.average(pred, weights=w), rel=1e-12)


def test_integer_weights_give_the_values_of_repeated_rows(rated):
    y, preds, groups, g, _ = rated
    k = np.random.default_rng(1).integers(0, 4, len(y))   # 0 leaves a row out
    repeat = np.repeat(np.arange(len(y)), k)
    kw = dict(baseline="base", quantities=QUANTITIES, ci=None, include_small=True)
    weighted = fc.compare_models(y, preds, g.reshape(-1, 1), sample_weight=k, **kw)
    repeated = fc.compare_models(y[repeat], {n: p[repeat] for n, p in preds.items()}, g[repeat].reshape(-1, 1), **kw)
    np.testing.assert_allclose(weighted["value"], repeated["value"], rtol=1e-12)
    np.testing.assert_allclose(weighted["difference"], repeated["difference"], rtol=1e-12, atol=1e-15)


def test_unit_weights_give_the_unweighted_values_and_close_intervals(rated):
    """The values exactly; the intervals by another bootstrap (rows dealt into buckets, not a stratified multinomial
    redraw of the atoms), so equal up to bootstrap noise."""
    y, preds, groups, _, _ = rated
    kw = dict(baseline="base", quantities=QUANTITIES, n_boot=400)
    plain = fc.compare_models(y, preds, groups, **kw)
    unit = fc.compare_models(y, preds, groups, sample_weight=np.ones(len(y)), **kw)
    pd.testing.assert_frame_equal(unit[["model", "quantity", "value", "baseline_value", "difference"]],
                                  plain[["model", "quantity", "value", "baseline_value", "difference"]],
                                  check_exact=True)
    for end in ("difference_ci_low", "difference_ci_high"):
        np.testing.assert_allclose(unit[end], plain[end], atol=0.012)


def test_weighted_paired_intervals_pair_the_rows(rated):
    """A model equal to the baseline differs by exactly 0 in every replicate (the same re-dealt rows); the interval
    of a close model is narrower than independent ones and contains its difference; a seed gives the same table."""
    y, preds, groups, _, w = rated
    models = {**preds, "same": preds["base"].copy()}
    kw = dict(baseline="base", quantities=["accuracy", "false_positive_rate", "equalized_odds"], n_boot=500,
              sample_weight=w)
    out = fc.compare_models(y, models, groups, **kw)
    pd.testing.assert_frame_equal(out, fc.compare_models(y, models, groups, **kw))
    out = out.set_index(["model", "quantity"])
    for q in kw["quantities"]:
        assert out.loc[("same", q), ["difference", "difference_ci_low", "difference_ci_high"]].tolist() == [0, 0, 0]
    acc = out.loc[("other", "accuracy")]
    assert acc["difference_ci_low"] <= acc["difference"] <= acc["difference_ci_high"]
    n_eff = w.sum() ** 2 / (w * w).sum()
    widths = [2 * 1.96 * np.sqrt(a * (1 - a) / n_eff) for a in (acc["value"], acc["baseline_value"])]
    assert acc["difference_ci_high"] - acc["difference_ci_low"] < 0.75 * np.hypot(*widths)


def test_weighted_adverse_outcome_compares_the_favourable_prediction(rated):
    y, preds, groups, _, w = rated
    out = fc.compare_models(y, preds, groups, baseline="base", quantities=["p_percent_score", "accuracy"], ci=None,
                            positive_outcome="adverse", sample_weight=w).set_index(["model", "quantity"])
    for name, pred in preds.items():
        counts = fc.confusion_counts(y, pred, groups, sample_weight=w).favourable("adverse")
        assert out.loc[(name, "p_percent_score"), "value"] == pytest.approx(
            counts.ratio_scores("selection_rate").value, rel=1e-12)
        assert out.loc[(name, "accuracy"), "value"] == pytest.approx(accuracy_score(y, pred, sample_weight=w),
                                                                     rel=1e-12)


# A population of two groups (a: 30 %) and two strata (stratum 1: 20 % of the population), every row a negative, and
# two models' false positive rates per (group, stratum), drawn from one uniform per row (so the models agree on most
# rows: paired). Stratum 1 is over-sampled (about half of every sample) and the weights 1 / inclusion probability
# correct it: unweighted, the samples' disparity difference is about -0.08, the population's about -0.007.
FPR_A = {("a", 0): 0.14, ("a", 1): 0.40, ("b", 0): 0.06, ("b", 1): 0.20}
FPR_B = {("a", 0): 0.20, ("a", 1): 0.10, ("b", 0): 0.08, ("b", 1): 0.10}


def _rate_population(rng, size: int):
    group = np.where(rng.random(size) < 0.3, "a", "b")
    stratum = (rng.random(size) < 0.2).astype(int)
    u = rng.random(size)
    predicted = [(u < np.array([rates[key] for key in zip(group, stratum)])).astype(int) for rates in (FPR_A, FPR_B)]
    return group, stratum, predicted


def _poisson_sample(rng, stratum: np.ndarray, per_stratum: int):
    """Rows drawn independently with probability per_stratum / (the stratum's rows), and their weights 1 / that
    probability (Horvitz-Thompson): about per_stratum rows of each stratum."""
    pi = np.where(stratum == 1, per_stratum / np.sum(stratum == 1), per_stratum / np.sum(stratum == 0))
    rows = np.flatnonzero(rng.random(len(stratum)) < pi)
    return rows, 1.0 / pi[rows]


@pytest.mark.full   # a coverage simulation: make test only (tests/tiers.py)
def test_weighted_paired_rate_disparity_difference_covers_the_population_difference():
    """300 Poisson samples of about 1,000 rows from a population of 200,000: the 95 % interval of model B's false
    positive rate disparity (diff, max against the rest) minus model A's covers the population's difference in
    90-99 % of them, missing on both sides (measured 94.7 %; a longer run of 1,000 samples: 96.3 %, and 94.8 % with
    stratified samples of 500 per stratum). Unweighted, the same samples' intervals mostly miss it (3 of the
    first 20 cover it)."""
    rng = np.random.default_rng(2025)
    group, stratum, (pa, pb) = _rate_population(rng, 200_000)
    y = np.zeros(len(group), int)
    kw = dict(baseline="A", quantities=["false_positive_rate"])
    population = fc.compare_models(y, {"A": pa, "B": pb}, group.reshape(-1, 1), ci=None, **kw)
    truth = float(population.loc[population["model"] == "B", "difference"].iloc[0])
    above = below = unweighted = 0
    reps = 300
    for i in range(reps):
        rows, w = _poisson_sample(rng, stratum, 500)
        args = (y[rows], {"A": pa[rows], "B": pb[rows]}, group[rows].reshape(-1, 1))
        row = fc.compare_models(*args, sample_weight=w, n_boot=400, random_state=i, **kw).iloc[1]
        above += row["difference_ci_low"] > truth
        below += row["difference_ci_high"] < truth
        if i < 20:
            plain = fc.compare_models(*args, n_boot=400, random_state=i, **kw).iloc[1]
            unweighted += plain["difference_ci_low"] <= truth <= plain["difference_ci_high"]
    covered = 1 - (above + below) / reps
    print(f"paired FPR disparity difference: coverage {covered:.3f} ({above} above, {below} below)")
    assert 0.90 <= covered <= 0.99 and above > 0 and below > 0, (covered, above, below)
    assert unweighted <= 8, unweighted   # measured 3 of 20


@pytest.mark.parametrize("weights, message", BAD_WEIGHTS)
def test_compare_models_refuses_bad_weights(rated, weights, message):
    y, preds, groups, _, _ = rated
    with pytest.raises(ValueError, match=f"compare_models: sample_weight .*{message}"):
        fc.compare_models(y, preds, groups, baseline="base", sample_weight=_bad(weights, len(y)))


# --------------------------------------------------------------------------------------------
# compare_model_aucs
# --------------------------------------------------------------------------------------------

AUC_KINDS = ("subgroup_auc", "bpsn_auc", "bnsp_auc")


def _scored(n: int, seed: int, levels=None):
    """test_model_aucs' labels, two correlated score columns (rounded to `levels` values per unit for ties) and
    overlapping indicator subgroups with missing values, with log-normal weights."""
    y, a, b, groups = _auc_data(n, seed, levels)
    return y, a, b, groups, np.random.default_rng(seed + 1).lognormal(0.0, 1.0, n)


@pytest.mark.parametrize("levels", [None, 4])
def test_weighted_aucs_are_sklearns_with_the_weights_on_masks(levels):
    from sklearn.metrics import roc_auc_score

    y, a, b, groups, w = _scored(700, 1, levels)
    table = fc.compare_model_aucs(y, {"a": a, "b": b}, groups, baseline="b", sample_weight=w)
    for model, s in (("a", a), ("b", b)):
        overall = _row(table, model, None, "overall_auc")
        assert overall["value"] == pytest.approx(roc_auc_score(y, s, sample_weight=w), abs=1e-13)
        assert (overall["n_positive"], overall["n_negative"]) == pytest.approx((w[y == 1].sum(), w[y == 0].sum()))
        for j, name in enumerate(groups.names):
            for kind in AUC_KINDS:
                pos, neg = _sets(y, groups, j, kind)
                rows = pos | neg
                row = _row(table, model, name, kind)
                assert row["value"] == pytest.approx(roc_auc_score(y[rows], s[rows], sample_weight=w[rows]),
                                                     abs=1e-13)
                assert row["n_positive"] == pytest.approx(w[pos].sum(), rel=1e-12)
                assert row["difference"] == pytest.approx(row["value"] - _row(table, "b", name, kind)["value"],
                                                          abs=1e-15)


def test_each_weighted_auc_and_its_interval_are_the_weighted_auc_tables():
    y, a, b, groups, w = _scored(600, 2, 6)
    table = fc.compare_model_aucs(y, {"a": a, "b": b}, groups, baseline="a", ci=0.9, sample_weight=w)
    for model, s in (("a", a), ("b", b)):
        single = fc.bias_auc_table(y, s, groups, ci=0.9, sample_weight=w)
        for kind in AUC_KINDS:
            mine = table[(table["model"] == model) & (table["auc"] == kind)]
            for column in ("", "_ci_low", "_ci_high"):
                np.testing.assert_allclose(mine["value" + column].to_numpy(), single[kind + column].to_numpy(),
                                           rtol=0, atol=1e-12)
            assert mine["small"].tolist() == single["small"].tolist()
        overall = _row(table, model, None, "overall_auc")
        assert overall["value"] == pytest.approx(single.attrs["overall_auc"], abs=1e-14)
        np.testing.assert_allclose([overall["value_ci_low"], overall["value_ci_high"]], single.attrs["overall_auc_ci"],
                                   atol=1e-12)


def _literal_weighted_paired(y, s_a, s_b, w, pos, neg):
    """The linearization literally, per row: placements V10_X(i) = sum_j w_j psi(s_X(i), s_X(j)) / W0 over the
    negatives, V01_X(j) likewise over the positives; Var(A - B) = Var A + Var B - 2 Cov(A, B) with
    Cov(X, Y) = n1*/(n1*-1) sum_i w_i^2 d_X(i) d_Y(i) / W1^2 + n0*/(n0*-1) sum_j w_j^2 e_X(j) e_Y(j) / W0^2."""
    w1, w0 = w[pos], w[neg]
    d, e, aucs = [], [], []
    for s in (s_a, s_b):
        psi = (s[pos][:, None] > s[neg][None, :]) + 0.5 * (s[pos][:, None] == s[neg][None, :])
        v10, v01 = psi @ w0 / w0.sum(), w1 @ psi / w1.sum()
        auc = w1 @ v10 / w1.sum()
        aucs.append(auc)
        d.append(v10 - auc)
        e.append(v01 - auc)
    n1, n0 = w1.sum() ** 2 / (w1 ** 2).sum(), w0.sum() ** 2 / (w0 ** 2).sum()

    def cov(x, z):
        return (n1 / (n1 - 1) * (w1 ** 2 * d[x] * d[z]).sum() / w1.sum() ** 2
                + n0 / (n0 - 1) * (w0 ** 2 * e[x] * e[z]).sum() / w0.sum() ** 2)

    return aucs, cov(0, 0), cov(0, 0) + cov(1, 1) - 2 * cov(0, 1)


def test_weighted_paired_variance_is_the_literal_linearization():
    from scipy.stats import norm

    y, a, b, groups, w = _scored(150, 3, 3)   # rounded scores: many ties
    table = fc.compare_model_aucs(y, {"a": a, "b": b}, groups, baseline="b", ci=0.95, sample_weight=w)
    checked = 0
    for j, name in enumerate(groups.names):
        for kind in AUC_KINDS:
            pos, neg = _sets(y, groups, j, kind)
            if pos.sum() < 3 or neg.sum() < 3:
                continue
            aucs, variance_a, variance = _literal_weighted_paired(y, a, b, w, pos, neg)
            row = _row(table, "a", name, kind)
            assert (row["value"], row["baseline_value"]) == pytest.approx(aucs, abs=1e-12)
            assert row["difference_se"] ** 2 == pytest.approx(variance, rel=1e-10)
            z = norm.ppf(0.975)
            assert row["difference_ci_low"] == pytest.approx(max(-1, row["difference"] - z * np.sqrt(variance)))
            assert row["p_value"] == pytest.approx(2 * norm.sf(abs(row["difference"]) / np.sqrt(variance)))
            # each AUC's own interval: the logit interval of its own linearized variance
            logit, se = np.log(aucs[0] / (1 - aucs[0])), np.sqrt(variance_a) / (aucs[0] * (1 - aucs[0]))
            assert row["value_ci_low"] == pytest.approx(1 / (1 + np.exp(-(logit - z * se))), rel=1e-10)
            checked += 1
    _, _, variance = _literal_weighted_paired(y, a, b, w, y == 1, y == 0)
    assert _row(table, "a", None, "overall_auc")["difference_se"] ** 2 == pytest.approx(variance, rel=1e-10)
    assert checked >= 6


@pytest.mark.parametrize("ci", [0.9, None])
def test_unit_weights_give_exactly_the_unweighted_auc_table(ci):
    y, a, b, groups, _ = _scored(800, 4, 4)
    kw = dict(baseline="b", ci=ci)
    plain = fc.compare_model_aucs(y, {"a": a, "b": b, "c": a + b}, groups, **kw)
    unit = fc.compare_model_aucs(y, {"a": a, "b": b, "c": a + b}, groups, sample_weight=np.ones(len(y)), **kw)
    pd.testing.assert_frame_equal(unit, plain, check_dtype=False, check_exact=True)   # counts as floats


def test_integer_weights_give_the_aucs_of_repeated_rows():
    y, a, b, groups, _ = _scored(500, 5, 5)
    k = np.random.default_rng(2).integers(0, 4, len(y))
    repeat = np.repeat(np.arange(len(y)), k)
    frame = pd.DataFrame(np.where(groups.membership, 1.0, np.where(groups.background, 0.0, np.nan)),
                         columns=groups.names)   # missing: in neither the subgroup nor its background
    repeated_groups = fc.Subgroups.from_indicators(frame.iloc[repeat].reset_index(drop=True), list(groups.names))
    weighted = fc.compare_model_aucs(y, {"a": a, "b": b}, groups, baseline="b", sample_weight=k, ci=None)
    repeated = fc.compare_model_aucs(y[repeat], {"a": a[repeat], "b": b[repeat]}, repeated_groups, baseline="b",
                                     ci=None)
    for column in ("value", "baseline_value", "difference", "n_positive", "n_negative"):
        np.testing.assert_allclose(weighted[column].to_numpy(float), repeated[column].to_numpy(float), rtol=1e-12,
                                   atol=1e-15)


def test_too_few_effective_examples_leave_the_difference_interval_undefined():
    """Three positives, one of them of weight 1,000: an effective size of about 1, below the 2 a variance needs."""
    y = np.array([1, 1, 1, 0, 0, 0, 0, 0])
    a = np.array([.9, .4, .7, .1, .5, .3, .2, .6])
    b = np.array([.8, .6, .5, .2, .4, .1, .3, .7])
    w = np.array([1000.0, 1, 1, 1, 1, 1, 1, 1])
    table = fc.compare_model_aucs(y, {"a": a, "b": b}, np.zeros(8), baseline="a", sample_weight=w)
    row = _row(table, "b", None, "overall_auc")
    assert not np.isnan(row["value"]) and np.isnan(row["difference_se"]) and row["excludes_zero"] is None
    assert "1.00 effective positive examples" in row["note"]
    assert "DeLong logit interval unavailable" in row["note"]   # its own interval: the Hanley-McNeil fallback


# A population whose stratum 1 (20 %) holds harder examples, on which model A is poor and model B fair; the samples
# hold about as many rows of stratum 1 as of stratum 0, and the weights 1 / inclusion probability correct it.
def _auc_population(rng, size: int):
    group = np.where(rng.random(size) < 0.3, "a", "b")
    stratum = (rng.random(size) < 0.2).astype(int)
    y = (rng.random(size) < np.where(stratum == 1, 0.5, 0.3)).astype(int)
    common = rng.normal(size=size)
    scores = [np.where(stratum == 1, low, high) * y + 0.7 * common + 0.7 * rng.normal(size=size)
              for low, high in ((0.3, 1.5), (0.9, 1.1))]
    return group, stratum, y, scores


@pytest.mark.full   # a coverage simulation: make test only (tests/tiers.py)
def test_weighted_paired_auc_difference_covers_the_population_difference():
    """300 Poisson samples of about 1,000 rows from a population of 200,000: the 95 % interval of B's subgroup AUC
    minus A's (subgroup a, about 300 rows) covers the population's difference in 90-99 % of them, missing on both
    sides (measured 92.7 %; longer runs of 1,000 samples: 93.9 % and, stratified 500 + 500, 94.3 %; the overall AUC's
    difference 96.1 % and 95.5 %). Unweighted, the samples' overall AUC difference misses the population's."""
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(7)
    group, stratum, y, (sa, sb) = _auc_population(rng, 200_000)
    a = group == "a"
    truth = roc_auc_score(y[a], sb[a]) - roc_auc_score(y[a], sa[a])
    truth_overall = roc_auc_score(y, sb) - roc_auc_score(y, sa)
    above = below = unweighted = 0
    reps = 300
    for i in range(reps):
        rows, w = _poisson_sample(rng, stratum, 500)
        args = (y[rows], {"A": sa[rows], "B": sb[rows]}, group[rows].reshape(-1, 1))
        table = fc.compare_model_aucs(*args, baseline="A", sample_weight=w)
        row = table[(table["model"] == "B") & (table["auc"] == "subgroup_auc")
                    & table["subgroup"].astype(str).str.endswith("a")].iloc[0]
        above += row["difference_ci_low"] > truth
        below += row["difference_ci_high"] < truth
        if i < 20:
            plain = _row(fc.compare_model_aucs(*args, baseline="A"), "B", None, "overall_auc")
            unweighted += plain["difference_ci_low"] <= truth_overall <= plain["difference_ci_high"]
    covered = 1 - (above + below) / reps
    print(f"paired subgroup AUC difference: coverage {covered:.3f} ({above} above, {below} below)")
    assert 0.90 <= covered <= 0.99 and above > 0 and below > 0, (covered, above, below)
    assert unweighted <= 2, unweighted


@pytest.mark.parametrize("weights, message", BAD_WEIGHTS)
def test_compare_model_aucs_refuses_bad_weights(weights, message):
    y, a, b, groups, _ = _scored(50, 6)
    with pytest.raises(ValueError, match=f"compare_model_aucs: sample_weight .*{message}"):
        fc.compare_model_aucs(y, {"a": a, "b": b}, groups, baseline="a", sample_weight=_bad(weights, len(y)))


# --------------------------------------------------------------------------------------------
# compare_model_calibration
# --------------------------------------------------------------------------------------------


def _calibrated(n: int, seed: int):
    """test_model_calibration's labels, two correlated probability columns (one overconfident) and overlapping
    indicator subgroups (one of 3 rows), with log-normal weights."""
    y, a, b, groups = _calibration_data(n, seed)
    return y, a, b, groups, np.random.default_rng(seed + 1).lognormal(0.0, 0.8, n)


def _literal_ece(y, p, w, edges):
    """sum_b |sum_b w y - sum_b w p| / sum w over bins [low, high), the last closed."""
    b = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, len(edges) - 2)
    gaps = [abs((w * (y - p))[b == k].sum()) for k in range(len(edges) - 1)]
    return sum(gaps) / w.sum()


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_weighted_eces_are_the_weighted_calibration_functions(strategy):
    y, a, b, groups, w = _calibrated(900, 1)
    table = fc.compare_model_calibration(y, {"a": a, "b": b}, groups, baseline="b", n_bins=7, strategy=strategy,
                                         ci=None, sample_weight=w)
    for model, s in (("a", a), ("b", b)):
        counts = fc.calibration_counts(y, s, groups, n_bins=7, strategy=strategy, sample_weight=w)
        single = fc.calibration_errors(y, s, groups, n_bins=7, strategy=strategy, sample_weight=w)
        rows = table[table["model"] == model]
        np.testing.assert_allclose(rows["value"].to_numpy()[1:], single["ece"].to_numpy(), rtol=1e-12, equal_nan=True)
        np.testing.assert_allclose(rows["size"].to_numpy()[1:], single["size"].to_numpy(), rtol=1e-12)
        assert rows["value"].iloc[0] == pytest.approx(
            fc.expected_calibration_error(y, s, n_bins=7, strategy=strategy, sample_weight=w), rel=1e-12)
        assert rows["value"].iloc[0] == pytest.approx(_literal_ece(y, s, w, counts.edges), rel=1e-12)
        for j, name in enumerate(groups.names[:2]):   # the literal formula on each subgroup's rows, the data's bins
            m = groups.membership[:, j]
            assert rows["value"].iloc[1 + j] == pytest.approx(_literal_ece(y[m], s[m], w[m], counts.edges), rel=1e-12)
    assert table["size"].iloc[0] == pytest.approx(w.sum() ** 2 / (w * w).sum(), rel=1e-12)
    plain = fc.compare_model_calibration(y, {"a": a, "b": b}, groups, baseline="b", n_bins=7, strategy=strategy,
                                         ci=None)
    assert not np.allclose(table["value"], plain["value"], equal_nan=True)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_integer_weights_give_the_eces_of_repeated_rows(strategy):
    y, a, b, groups, _ = _calibrated(700, 2)
    k = np.random.default_rng(3).integers(0, 4, len(y))
    repeat = np.repeat(np.arange(len(y)), k)
    frame = pd.DataFrame(np.where(groups.membership, 1.0, np.where(groups.background, 0.0, np.nan)),
                         columns=groups.names)
    repeated_groups = fc.Subgroups.from_indicators(frame.iloc[repeat].reset_index(drop=True), list(groups.names),
                                                   min_size=10)
    kw = dict(baseline="b", n_bins=6, strategy=strategy, ci=None, min_per_group=1)
    weighted = fc.compare_model_calibration(y, {"a": a, "b": b}, groups, sample_weight=k, **kw)
    repeated = fc.compare_model_calibration(y[repeat], {"a": a[repeat], "b": b[repeat]}, repeated_groups, **kw)
    for column in ("value", "baseline_value", "difference"):
        np.testing.assert_allclose(weighted[column].to_numpy(float), repeated[column].to_numpy(float), rtol=1e-11,
                                   atol=1e-14)


def test_unit_weights_give_the_unweighted_eces_and_close_intervals():
    """The values up to the order of floating-point sums (the weighted sums are taken per row, the unweighted ones
    per atom), the intervals by another bootstrap (rows dealt into buckets, not the stratified redraw of the joint
    cells), so equal up to bootstrap noise."""
    y, a, b, groups, _ = _calibrated(2000, 4)
    kw = dict(baseline="b", n_bins=8, n_boot=500)
    plain = fc.compare_model_calibration(y, {"a": a, "b": b}, groups, **kw)
    unit = fc.compare_model_calibration(y, {"a": a, "b": b}, groups, sample_weight=np.ones(len(y)), **kw)
    for column in ("value", "baseline_value", "difference", "size"):
        np.testing.assert_allclose(unit[column].to_numpy(float), plain[column].to_numpy(float), rtol=1e-12,
                                   atol=1e-15, equal_nan=True)
    assert unit["note"].tolist() == [n.replace(" rows", " effective rows") for n in plain["note"]]
    for end in ("difference_ci_low", "difference_ci_high"):
        np.testing.assert_allclose(unit[end].to_numpy(float), plain[end].to_numpy(float), atol=0.006, equal_nan=True)


def test_weighted_paired_bootstrap_is_a_bootstrap_of_the_weighted_rows():
    """The interval's spread against a brute-force paired bootstrap of rows with their weights (rows drawn with
    replacement, both models' weighted ECEs on the same draw): standard deviations within 20 %; a model equal to
    the baseline differs by 0 in every replicate; a seed gives the same table."""
    y, a, b, groups, w = _calibrated(1500, 5)
    kw = dict(baseline="b", n_bins=6, n_boot=1000, sample_weight=w)
    table = fc.compare_model_calibration(y, {"a": a, "b": b, "same": b.copy()}, groups, **kw)
    pd.testing.assert_frame_equal(table, fc.compare_model_calibration(y, {"a": a, "b": b, "same": b.copy()}, groups,
                                                                       **kw))
    same = table[table["model"] == "same"]
    assert (same["difference_ci_low"].fillna(0) == 0).all() and (same["difference_ci_high"].fillna(0) == 0).all()
    edges = {m: fc.calibration_counts(y, s, groups, n_bins=6, sample_weight=w).edges for m, s in (("a", a), ("b", b))}
    rng = np.random.default_rng(0)
    member = groups.membership[:, 0]
    overall, sub = [], []
    for _ in range(400):
        rows = rng.integers(0, len(y), len(y))
        diff = [_literal_ece(y[r], a[r], w[r], edges["a"]) - _literal_ece(y[r], b[r], w[r], edges["b"])
                for r in (rows, rows[member[rows]])]
        overall.append(diff[0])
        sub.append(diff[1])
    rows = table[table["model"] == "a"]
    for i, brute in ((0, overall), (1, sub)):
        row = rows.iloc[i]
        width = row["difference_ci_high"] - row["difference_ci_low"]
        assert width / (2 * 1.96) == pytest.approx(np.std(brute), rel=0.2)
        assert row["difference_ci_low"] <= row["difference"] <= row["difference_ci_high"]


def test_min_per_group_counts_effective_rows():
    """Subgroup u holds about 300 rows, but nearly all its weight sits on 4 of them: an effective size below
    min_per_group = 10, so its ECE is left out with the reason, while the unweighted rows would have sufficed."""
    y, a, b, groups, _ = _calibrated(1000, 6)
    w = np.ones(len(y))
    u = np.flatnonzero(groups.membership[:, 0])
    w[u] = 1e-3
    w[u[:4]] = 100.0
    table = fc.compare_model_calibration(y, {"a": a, "b": b}, groups, baseline="b", min_per_group=10, n_boot=200,
                                         sample_weight=w)
    row = table[(table["model"] == "a") & (table["subgroup"] == groups.names[0])].iloc[0]
    assert row["size"] < 10 and row["small"]
    assert np.isnan(row["value"]) and np.isnan(row["difference_ci_low"]) and row["excludes_zero"] is None
    assert row["note"] == "fewer than min_per_group=10 effective rows"


@pytest.mark.parametrize("weights, message", BAD_WEIGHTS)
def test_compare_model_calibration_refuses_bad_weights(weights, message):
    y, a, b, groups, _ = _calibrated(50, 7)
    with pytest.raises(ValueError, match=f"compare_model_calibration: sample_weight .*{message}"):
        fc.compare_model_calibration(y, {"a": a, "b": b}, groups, baseline="a", sample_weight=_bad(weights, len(y)))


# --------------------------------------------------------------------------------------------
# consistency
# --------------------------------------------------------------------------------------------


def _literal_weighted_consistency(X, y, w, k):
    """The weighted definition row by row: rows of weight 0 dropped; features standardized with the weighted mean
    and standard deviation; row i's neighbours the k nearest other rows (the rows within TIE_RTOL of the k-th
    distance r sharing the k - |closer| remaining places equally); ybar_i the neighbours' labels averaged with
    weight x place; the value sum_i w_i |y_i - ybar_i| / sum_i w_i."""
    from scipy.spatial.distance import cdist

    from fairness_core._metrics.consistency import TIE_RTOL

    keep = w > 0
    X, y, w = np.asarray(X, dtype=float)[keep], np.asarray(y, dtype=float)[keep], w[keep]
    mean = np.average(X, axis=0, weights=w)
    sd = np.sqrt(np.average((X - mean) ** 2, axis=0, weights=w))
    D = cdist((X - mean) / np.where(sd > 0, sd, 1.0), (X - mean) / np.where(sd > 0, sd, 1.0))
    total = 0.0
    for i in range(len(y)):
        others = np.delete(np.arange(len(y)), i)
        d = D[i, others]
        r = np.sort(d)[k - 1]
        closer = others[d < r * (1 - TIE_RTOL)]
        tied = others[np.abs(d - r) <= r * TIE_RTOL]
        share = (k - len(closer)) / len(tied)
        ybar = (w[closer] @ y[closer] + share * w[tied] @ y[tied]) / (w[closer].sum() + share * w[tied].sum())
        total += w[i] * abs(y[i] - ybar)
    return total / w.sum()


def _clustered(n: int, seed: int):
    """Two noisy clusters with partly mixed labels, rounded features (repeated rows and ties), log-normal weights
    with some zeros."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = np.round(rng.normal(y[:, None] * 1.2, 1.0, size=(n, 2)), 1)
    w = rng.lognormal(0.0, 1.0, n)
    w[rng.random(n) < 0.05] = 0.0
    return X, y, w


@pytest.mark.parametrize("k", [1, 3, 8])
def test_weighted_consistency_is_the_literal_formula(k):
    X, y, w = _clustered(300, k)
    result = fc.consistency(X, y, n_neighbors=k, sample_weight=w)
    assert result.value == pytest.approx(_literal_weighted_consistency(X, y, w, k), rel=1e-10)
    assert result.zemel_consistency == pytest.approx(1 - result.value, abs=1e-15)
    assert (result.n_rows, result.n_zero_weight, result.n_excluded) == (int((w > 0).sum()), int((w == 0).sum()), 0)
    assert result.value != pytest.approx(fc.consistency(X, y, n_neighbors=k).value, abs=1e-3)


def test_a_weight_is_not_a_count_of_neighbours():
    """Row 0 of weight 3 is one row: its neighbour is row 1 (label 1), so its term is 1, and row 1's is 1 too:
    (3 + 1) / 6. Three copies of row 0 would be each other's neighbours (terms 0), and row 1's three tied nearest
    rows would all be copies of row 0: (0 + 1) / 6. The weighted value is not that of repeated rows, by definition."""
    X, y = np.array([[0.0], [0.1], [10.0], [10.1]]), np.array([0, 1, 1, 1])
    assert fc.consistency(X, y, n_neighbors=1, sample_weight=[3, 1, 1, 1]).value == pytest.approx(4 / 6)
    assert fc.consistency(X[[0, 0, 0, 1, 2, 3]], y[[0, 0, 0, 1, 2, 3]], n_neighbors=1).value == pytest.approx(1 / 6)


def test_equal_weights_give_exactly_the_unweighted_consistency():
    X, y, _ = _clustered(2000, 4)
    X[::50, 0] = np.nan
    for kw in (dict(n_neighbors=5), dict(n_neighbors=3, sample_size=400, random_state=2)):
        plain = fc.consistency(X, y, **kw)
        assert fc.consistency(X, y, sample_weight=np.ones(len(y)), **kw) == plain
        assert fc.consistency(X, y, sample_weight=np.full(len(y), 2.5), **kw) == plain
        # rows of weight 0 left out: the unweighted value of the other rows, counted apart from the missing ones
        zero = np.arange(len(y)) % 7 == 0
        dropped = fc.consistency(X, y, sample_weight=np.where(zero, 0.0, 1.0), **kw)
        assert dropped.value == fc.consistency(X[~zero], y[~zero], **kw).value
        assert (dropped.n_excluded, dropped.n_zero_weight) == (40, int((zero & ~np.isnan(X[:, 0])).sum()))


def test_weighted_consistency_ignores_the_scale_and_order_of_the_weights_and_rows():
    X, y, w = _clustered(1500, 5)
    value = fc.consistency(X, y, sample_weight=w).value
    assert fc.consistency(X, y, sample_weight=1000 * w).value == pytest.approx(value, rel=1e-12)
    order = np.random.default_rng(0).permutation(len(y))
    assert fc.consistency(X[order], y[order], sample_weight=w[order]).value == value   # sums in a canonical order
    sample = fc.consistency(X, y, sample_weight=w, sample_size=600, random_state=3)
    assert fc.consistency(X[order], y[order], sample_weight=w[order], sample_size=600, random_state=3) == sample


def test_a_weighted_sample_estimates_the_weighted_value_with_its_standard_error():
    """Every row when the sample holds them all; 200 samples of 300 rows: the estimates centre on the full value and
    spread like the reported standard errors (within 20 %)."""
    X, y, w = _clustered(3000, 6)
    full = fc.consistency(X, y, sample_weight=w)
    every = fc.consistency(X, y, sample_weight=w, sample_size=5000)
    assert (every.value, every.n_sampled, every.std_error) == (full.value, full.n_rows, 0.0)
    draws = [fc.consistency(X, y, sample_weight=w, sample_size=300, random_state=s) for s in range(200)]
    values, errors = np.array([d.value for d in draws]), np.array([d.std_error for d in draws])
    assert abs(values.mean() - full.value) < 3 * values.std() / np.sqrt(len(values)) + 0.002
    assert np.sqrt(np.mean(errors ** 2)) == pytest.approx(values.std(), rel=0.2)


@pytest.mark.parametrize("weights, message", BAD_WEIGHTS)
def test_consistency_refuses_bad_weights(weights, message):
    X, y, _ = _clustered(40, 7)
    with pytest.raises(ValueError, match=f"consistency: sample_weight .*{message}"):
        fc.consistency(X, y, sample_weight=_bad(weights, len(y)))


def test_too_few_weighted_rows_say_that_rows_of_weight_0_were_left_out():
    X, y, _ = _clustered(10, 8)
    with pytest.raises(ValueError, match="smaller than the number of rows used, 3 .* 7 rows of weight 0 were left"):
        fc.consistency(X, y, n_neighbors=3, sample_weight=np.r_[np.ones(3), np.zeros(7)])
