"""Sample weights in the model comparisons (issue 25): compare_models, compare_model_aucs, compare_model_calibration,
and in consistency. Weighted values against independent computations (scikit-learn with ``sample_weight`` on masks,
literal formulas), integer weights against repeated rows, unit weights against the unweighted results, the paired
intervals' coverage by simulation with weights that correct a known sampling bias, and bad weights refused."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score

import fairness_core as fc
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
