"""Several models against a baseline: values equal the single-model functions; paired intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc


@pytest.fixture(scope="module")
def two_models():
    rng = np.random.default_rng(12)
    n = 6000
    g = rng.choice(["a", "b", "c", "tiny"], size=n, p=[0.55, 0.3, 0.14, 0.01])
    y = (rng.random(n) < np.where(g == "b", 0.45, 0.35)).astype(int)
    base = np.clip(0.35 * y + rng.normal(0.35, 0.2, n), 0, 1)
    other = np.clip(base + rng.normal(0, 0.05, n) + np.where(g == "b", 0.05, 0.0), 0, 1)  # close to base
    groups = fc.Subgroups.from_attributes(pd.DataFrame({"g": g}), ["g"])
    return y, {"base": (base >= 0.5).astype(int), "other": (other >= 0.45).astype(int)}, groups


@pytest.mark.parametrize("distance, reduction, reference", [("diff", "max", "rest"), ("ratio", "mean", "pairwise"),
                                                            ("diff", "mean", "a")])
def test_values_equal_the_single_model_functions(two_models, distance, reduction, reference):
    y, preds, groups = two_models
    out = fc.compare_models(y, preds, groups, baseline="base", quantities=fc._models.rates.QUANTITIES,
                            distance_measure=distance, reduction=reduction, reference=reference, ci=None)
    assert len(out) == 2 * len(fc._models.rates.QUANTITIES) and "difference_ci_low" not in out
    for row in out.itertuples():
        counts = fc.confusion_counts(y, preds[row.model], groups)
        kw = dict(distance_measure=distance, reduction=reduction, reference=reference)
        if row.quantity == "equalized_odds":
            expected = counts.equalized_odds(**kw).value
        elif row.quantity in ("p_percent_score", "equal_opportunity_score"):
            rate = "selection_rate" if row.quantity == "p_percent_score" else "true_positive_rate"
            expected = counts.ratio_scores(rate).value
        elif row.quantity in ("accuracy", "selection_rate"):
            m = counts.overall
            expected = (m[0] + m[3]) / m.sum() if row.quantity == "accuracy" else (m[1] + m[3]) / m.sum()
        else:
            expected = counts.disparity(row.quantity, **kw).value
        np.testing.assert_allclose(row.value, expected, rtol=1e-12)
        base = out[(out["model"] == "base") & (out["quantity"] == row.quantity)]["value"].iloc[0]
        np.testing.assert_allclose(row.difference, row.value - base, rtol=1e-12, equal_nan=True)


def test_paired_intervals_are_narrower_than_independent_ones(two_models):
    y, preds, groups = two_models
    out = fc.compare_models(y, preds, groups, baseline="base", quantities=["accuracy", "false_positive_rate"],
                            n_boot=500).set_index(["model", "quantity"])
    assert out.attrs["baseline"] == "base" and out.attrs["ci"] == 0.95
    acc = out.loc[("other", "accuracy")]
    assert acc["difference_ci_low"] <= acc["difference"] <= acc["difference_ci_high"]
    # Independent intervals of each accuracy (Wilson) add up to a much wider interval of the difference.
    n = len(y)
    widths = [np.subtract(*fc.wilson_interval(round(a * n), n, 0.95)[::-1]) for a in
              (acc["value"], acc["baseline_value"])]
    assert acc["difference_ci_high"] - acc["difference_ci_low"] < 0.5 * np.hypot(*widths)
    assert out.loc[("base", "accuracy"), "difference_ci_low"] == 0.0
    assert out.loc[("base", "accuracy"), "excludes_zero"] is None
    again = fc.compare_models(y, preds, groups, baseline="base", quantities=["accuracy", "false_positive_rate"],
                              n_boot=500).set_index(["model", "quantity"])
    pd.testing.assert_frame_equal(out, again)


@pytest.mark.full   # a coverage simulation: make test only (tests/tiers.py)
def test_coverage_of_the_paired_difference():
    # Two models whose true accuracy difference is 0 on the population: the 90 % interval should cover 0 about
    # 90 % of the time over fresh samples.
    rng = np.random.default_rng(0)
    covered = 0
    runs = 60
    for _ in range(runs):
        n = 800
        g = rng.choice(["a", "b"], size=n)
        y = rng.integers(0, 2, n)
        a = np.where(rng.random(n) < 0.8, y, 1 - y)
        b = np.where(rng.random(n) < 0.8, y, 1 - y)
        out = fc.compare_models(y, {"a": a, "b": b}, g, baseline="a", quantities=["accuracy"], ci=0.9, n_boot=300,
                                random_state=int(rng.integers(1 << 30)))
        row = out[out["model"] == "b"].iloc[0]
        covered += row["difference_ci_low"] <= 0 <= row["difference_ci_high"]
    assert 0.78 <= covered / runs <= 0.98


def test_bad_input_is_refused(two_models):
    y, preds, groups = two_models
    with pytest.raises(ValueError, match="at least two models"):
        fc.compare_models(y, {"base": preds["base"]}, groups, baseline="base")
    with pytest.raises(ValueError, match="at least two models"):
        fc.compare_models(y, preds, groups, baseline="nope")
    with pytest.raises(ValueError, match="quantities"):
        fc.compare_models(y, preds, groups, baseline="base", quantities=["auc"])
