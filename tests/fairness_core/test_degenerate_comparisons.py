"""A comparison carries its own sampling uncertainty on both sides: a tiny subgroup whose
rows all fall in one confusion cell is never declared different from parity because its bootstrap draws have no
variance, and no comparison is marked as excluding parity while the interval shown beside it contains parity."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import confint_proportions_2indep

import fairness_core as fc
from fairness_core._stats.intervals import mover_disparity
from tests.support import examples


def tiny_case(n: int = 4000, seed: int = 0):
    """Two large groups selected at about 0.28, and a group 'c' of 2 rows, neither selected."""
    rng = np.random.default_rng(seed)
    groups = np.array(["a"] * (n // 2) + ["b"] * (n // 2 - 2) + ["c"] * 2)
    y_pred = (rng.random(n) < 0.28).astype(int)
    y_pred[-2:] = 0
    return rng.integers(0, 2, n), y_pred, groups


FORMS = {"Series": lambda g: pd.Series(g, name="g"), "DataFrame": lambda g: pd.DataFrame({"g": g}),
         "array": lambda g: g,
         "Subgroups": lambda g: fc.Subgroups.from_attributes(pd.DataFrame({"g": g}), ["g"], min_size=1)}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("distance", ["diff", "ratio"])
def test_a_subgroup_with_none_of_two_selected_is_not_starred(form, distance):
    y, y_pred, groups = tiny_case()
    table = fc.rate_disparity(y, y_pred, FORMS[form](groups), metric="statistical_parity", distance_measure=distance,
                              reduction=None, ci=0.95).set_index("subgroup")
    row = table.loc["c"]
    assert (row["numerator"], row["denominator"]) == (0, 2) and row["subgroup_value"] == 0.0
    assert row["reference_value"] == pytest.approx(y_pred[:-2].mean())
    assert not row["excludes_parity"]
    parity = 0.0 if distance == "diff" else 1.0
    assert row["disparity_ci_low"] == parity and row["disparity_ci_high"] >= row["disparity"]
    assert row["p_value"] > 0.2
    if distance == "diff":   # at least Newcombe's hybrid score interval (statsmodels), as a distance from parity
        k2, n2 = int(y_pred[:-2].sum()), len(y_pred) - 2
        low, high = confint_proportions_2indep(0, 2, k2, n2, method="newcomb", compare="diff")
        assert low < 0 < high and row["disparity_ci_high"] >= max(-low, high) - 1e-12
    # the large groups keep what the data say about them
    assert table.loc[["a", "b"], "disparity_ci_high"].notna().all()


def test_equalized_odds_and_the_labels_base_rates_of_a_degenerate_group():
    y, y_pred, groups = tiny_case()
    y[-2:] = 0   # group c: two actual negatives, neither predicted positive (FPR 0 of 2)
    table = fc.equalized_odds(y, y_pred, groups, reduction=None, ci=0.95).set_index("subgroup")
    assert table.loc["c", "excludes_parity"] is not True and table.loc["c", "disparity_ci_low"] == 0.0
    base = fc.dataset_statistical_parity(y, groups, reduction=None, ci=0.95).set_index("subgroup")
    assert base.loc["c", "subgroup_value"] == 0.0 and not base.loc["c", "excludes_parity"]
    assert base.loc["c", "disparity_ci_low"] == 0.0


def test_mover_equals_newcombes_hybrid_score_interval():
    rng = np.random.default_rng(4)
    k1, k2 = rng.integers(0, 30, 50), rng.integers(0, 300, 50)
    n1, n2 = k1 + rng.integers(1, 40, 50), k2 + rng.integers(1, 400, 50)
    low, high = mover_disparity(k1, n1, k2, n2, 0.9, "diff")
    for i in range(50):
        s_low, s_high = confint_proportions_2indep(k1[i], n1[i], k2[i], n2[i], method="newcomb", compare="diff",
                                                   alpha=0.1)
        expected = (s_low, s_high) if s_low > 0 else (-s_high, -s_low) if s_high < 0 else (0.0, max(-s_low, s_high))
        assert (low[i], high[i]) == pytest.approx(expected, abs=1e-12)


@pytest.mark.full   # a coverage simulation: make test only (tests/tiers.py)
def test_the_ratio_interval_covers_in_simulation_both_sides_missing():
    # Donner & Zou's MOVER-R for a / b: coverage of the true ratio over 2,000 draws of a small and a large side.
    rng = np.random.default_rng(7)
    p1, n1, p2, n2, draws = 0.2, 40, 0.3, 600, 2000
    k1, k2 = rng.binomial(n1, p1, draws), rng.binomial(n2, p2, draws)
    from fairness_core._stats.intervals import mover_interval
    low, high = mover_interval(k1, np.full(draws, n1), k2, np.full(draws, n2), 0.95, "ratio")
    truth = p1 / p2
    above, below = np.mean(low > truth), np.mean(high < truth)
    assert 0.93 <= 1 - above - below <= 0.975 and above > 0.005 and below > 0.005, (above, below)


@settings(max_examples=examples(60), deadline=None)
@given(seed=st.integers(0, 10 ** 6), n=st.integers(40, 400), k=st.integers(2, 6),
       adjust=st.sampled_from([None, "bonferroni", "holm", "fdr_bh"]),
       distance=st.sampled_from(["diff", "ratio"]), reference=st.sampled_from(["rest", "overall", "pairwise"]))
def test_no_comparison_is_starred_while_its_interval_contains_parity(seed, n, k, adjust, distance, reference):
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, k, n).astype(str)
    y = rng.integers(0, 2, n)
    y_pred = (rng.random(n) < 0.2 + 0.5 * (groups == "0")).astype(int)
    table = fc.rate_disparity(y, y_pred, groups, metric="false_positive_rate", distance_measure=distance,
                              reduction=None, reference=reference, ci=0.9, n_boot=200, adjust=adjust)
    parity = 0.0 if distance == "diff" else 1.0
    starred = table["excludes_parity"].fillna(False).to_numpy(dtype=bool)
    assert (table.loc[starred, "disparity_ci_low"] > parity).all()
    counts = fc.confusion_counts(y, y_pred, fc.Subgroups.from_attributes(pd.DataFrame({"g": groups}), ["g"]))
    for finding in fc.rate_findings(counts, ("false_positive_rate",), reference=reference if reference != "pairwise"
                                    else "rest", ci=0.9, n_boot=200, adjust=adjust, include_small=True, limit=10):
        if finding.excludes_parity:
            assert finding.difference_ci[0] > 0 or finding.difference_ci[1] < 0, finding
            assert finding.ratio_ci[0] > 1, finding


def test_a_finding_excludes_parity_only_when_both_its_printed_intervals_do():
    """With Holm's adjustment a finding was marked as excluding parity because its ratio interval
    excluded 1 while the difference interval printed with it contained 0 (this case, found by hypothesis)."""
    rng = np.random.default_rng(128)
    groups = rng.integers(0, 4, 398).astype(str)
    y = rng.integers(0, 2, 398)
    y_pred = (rng.random(398) < 0.2 + 0.5 * (groups == "0")).astype(int)
    counts = fc.confusion_counts(y, y_pred, fc.Subgroups.from_attributes(pd.DataFrame({"g": groups}), ["g"]))
    findings = fc.rate_findings(counts, ("false_positive_rate",), reference="rest", ci=0.9, n_boot=200,
                                adjust="holm", include_small=True, limit=10)
    by_subgroup = {f.subgroup: f for f in findings}
    straddling = by_subgroup["2"]
    assert straddling.difference_ci[0] < 0 < straddling.difference_ci[1]
    assert straddling.excludes_parity is False and straddling.ratio_ci[0] == 1.0   # widened to parity, as printed
    for f in findings:
        if f.excludes_parity:
            assert (f.difference_ci[0] > 0 or f.difference_ci[1] < 0) and f.ratio_ci[0] > 1, f
