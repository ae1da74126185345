"""Confidence intervals of single estimates: Wilson for rates, DeLong for AUCs.

Checked against statsmodels (Wilson), a literal O(n^2) DeLong computation, an independent
DeLong implementation from scipy's midranks (Sun & Xu 2014), and a seeded coverage simulation.
"""

from __future__ import annotations

import doctest
import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm, rankdata
from statsmodels.stats.proportion import proportion_confint

import fairness_core as fc
from fairness_core._stats import delong as _delong, intervals as _intervals
from fairness_core._metrics.auc import bias_auc_table
from fairness_core._metrics.auc_ranking import _Ranked
from fairness_core._stats.delong import LEVEL_MESSAGE, auc_interval, delong_variance
from fairness_core._stats.intervals import CI_MESSAGE, wilson_interval
from fairness_core._metrics.rates import RATES, RATE_NAMES, ConfusionCounts
from tests.support import examples

TOL = 1e-12
LEVELS = [0.8, 0.9, 0.95, 0.99]
AUC_COLUMNS = ["subgroup_auc", "bpsn_auc", "bnsp_auc"]
BAD_CI = [0, 1, 1.5, "0.95", True]


# --------------------------------------------------------------------------------------------
# Independent implementations written out in the test
# --------------------------------------------------------------------------------------------


def hists(y, s):
    """Positives and negatives per tie level, through the library's one sort."""
    y = np.asarray(y).astype(bool)
    ranked = _Ranked.of(np.asarray(s, dtype=float))
    return ranked.hist(y), ranked.hist(~y)


def delong_double_loop(pos_scores, neg_scores):
    """DeLong et al. (1988) literally: psi over every (positive, negative) pair."""
    m, n = len(pos_scores), len(neg_scores)
    psi = [[1.0 if x > y else 0.5 if x == y else 0.0 for y in neg_scores] for x in pos_scores]
    v10 = [sum(psi[i][j] for j in range(n)) / n for i in range(m)]
    v01 = [sum(psi[i][j] for i in range(m)) / m for j in range(n)]
    auc = sum(v10) / m
    s10 = sum((v - auc) ** 2 for v in v10) / (m - 1)
    s01 = sum((v - auc) ** 2 for v in v01) / (n - 1)
    return auc, s10 / m + s01 / n


def delong_midranks(y, s):
    """Sun & Xu (2014): placements from midranks (scipy.stats.rankdata), then the variance."""
    y = np.asarray(y).astype(bool)
    s = np.asarray(s, dtype=float)
    x, z = s[y], s[~y]
    m, n = len(x), len(z)
    ranks = rankdata(s)  # midranks in the pooled sample
    v10 = (ranks[y] - rankdata(x)) / n
    v01 = 1.0 - (ranks[~y] - rankdata(z)) / m
    auc = v10.mean()
    return auc, v10.var(ddof=1) / m + v01.var(ddof=1) / n


def logit_interval(auc, var, level):
    """Wald interval of logit(AUC), delta method, back-transformed by hand."""
    z = norm.ppf(1 - (1 - level) / 2)
    se = math.sqrt(var) / (auc * (1 - auc))
    centre = math.log(auc / (1 - auc))
    return 1 / (1 + math.exp(-(centre - z * se))), 1 / (1 + math.exp(-(centre + z * se)))


# --------------------------------------------------------------------------------------------
# COMPAS: threshold 5, race, two-year recidivism
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compas_rows(compas):
    return pd.DataFrame({
        "y": compas["two_year_recid"].to_numpy(),
        "s": compas["decile_score"].to_numpy(dtype=float),
        "p": (compas["decile_score"] >= 5).astype(int).to_numpy(),
        "g": compas["race"].to_numpy(),
    })


@pytest.mark.parametrize("level", LEVELS)
def test_wilson_equals_statsmodels_for_every_rate_on_compas(compas_rows, level):
    table = fc.group_rates(compas_rows["y"], compas_rows["p"], compas_rows["g"], ci=level)
    cells = {"tn": table["tn"], "fp": table["fp"], "fn": table["fn"], "tp": table["tp"]}
    counts = np.column_stack([cells["tn"], cells["fp"], cells["fn"], cells["tp"]])
    for name in RATE_NAMES:
        num_cells, den_cells, _ = RATES[name]
        k = counts[:, list(num_cells)].sum(axis=1)
        n = counts[:, list(den_cells)].sum(axis=1)
        low, high = proportion_confint(k, n, alpha=1 - level, method="wilson")
        np.testing.assert_allclose(table[f"{name}_ci_low"], low, rtol=0, atol=TOL, err_msg=name)
        np.testing.assert_allclose(table[f"{name}_ci_high"], high, rtol=0, atol=TOL, err_msg=name)
        assert (table[f"{name}_ci_low"] <= table[name]).all() and (table[name] <= table[f"{name}_ci_high"]).all()


def test_wilson_rates_with_zero_counts_and_zero_denominators():
    # Subgroup "a": all negatives, never predicted positive (TPR/FNR/FDR undefined, FPR = 0).
    y = np.array([0, 0, 0, 0, 1, 1, 0, 1, 1, 1])
    p = np.array([0, 0, 0, 0, 1, 1, 1, 1, 1, 1])
    g = np.array(["a"] * 4 + ["b"] * 6)
    table = fc.group_rates(y, p, g, ci=0.95).set_index("subgroup")
    for name in ("true_positive_rate", "false_negative_rate", "false_discovery_rate"):
        assert np.isnan(table.loc["a", f"{name}_ci_low"]) and np.isnan(table.loc["a", f"{name}_ci_high"])
    low, high = proportion_confint(0, 4, alpha=0.05, method="wilson")
    assert table.loc["a", "false_positive_rate_ci_low"] == 0.0
    assert table.loc["a", "false_positive_rate_ci_high"] == pytest.approx(high, abs=TOL)
    low, high = proportion_confint(5, 5, alpha=0.05, method="wilson")  # b: TPR = 5 / 5
    assert table.loc["b", "true_positive_rate_ci_high"] == 1.0
    assert table.loc["b", "true_positive_rate_ci_low"] == pytest.approx(low, abs=TOL)


def test_confusion_counts_table_equals_group_rates(compas_rows):
    counts = fc.confusion_counts(compas_rows["y"], compas_rows["p"], compas_rows["g"])
    pd.testing.assert_frame_equal(counts.table(ci=0.9),
                                  fc.group_rates(compas_rows["y"], compas_rows["p"], compas_rows["g"], ci=0.9))


def test_delong_interval_of_the_overall_compas_auc(compas_rows):
    y, s = compas_rows["y"].to_numpy(), compas_rows["s"].to_numpy()
    auc, var = delong_midranks(y, s)
    low, high = logit_interval(auc, var, 0.95)

    pos, neg = hists(y, s)
    got_auc, got_var = delong_variance(pos, neg)
    assert got_auc == pytest.approx(auc, abs=TOL) and got_var == pytest.approx(var, rel=1e-10)
    got_low, got_high, note = auc_interval(pos, neg, 0.95)
    assert (got_low, got_high) == (pytest.approx(low, abs=TOL), pytest.approx(high, abs=TOL)) and note == ""

    table = bias_auc_table(y, s, compas_rows["g"], ci=0.95)
    assert table.attrs["ci"] == 0.95
    assert table.attrs["overall_auc"] == pytest.approx(auc, abs=TOL)
    assert table.attrs["overall_auc_ci"] == (pytest.approx(low, abs=TOL), pytest.approx(high, abs=TOL))
    assert table.attrs["overall_auc_ci_note"] == ""
    # The numbers seen when this was written (decile score, two-year recidivism).
    assert round(auc, 4) == 0.7022 and (round(low, 4), round(high, 4)) == (0.6901, 0.714)


def test_bias_auc_table_intervals_match_midranks_on_the_seed_masks(compas_rows):
    y, s, g = compas_rows["y"].to_numpy().astype(bool), compas_rows["s"].to_numpy(), compas_rows["g"]
    table = bias_auc_table(y, s, g, ci=0.9)
    assert list(table["note"]) == [""] * len(table)
    for _, row in table.iterrows():
        m = (g == row["subgroup"]).to_numpy()
        masks = {"subgroup_auc": m, "bpsn_auc": (m & ~y) | (~m & y), "bnsp_auc": (m & y) | (~m & ~y)}
        for col, mask in masks.items():
            auc, var = delong_midranks(y[mask], s[mask])
            low, high = logit_interval(auc, var, 0.9)
            assert row[col] == pytest.approx(auc, abs=TOL)
            assert row[f"{col}_ci_low"] == pytest.approx(low, abs=TOL), (row["subgroup"], col)
            assert row[f"{col}_ci_high"] == pytest.approx(high, abs=TOL), (row["subgroup"], col)


# --------------------------------------------------------------------------------------------
# DeLong on small data with ties
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_delong_variance_equals_the_double_loop(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 30))
    y = rng.integers(0, 2, n)
    y[:2], y[2:4] = 1, 0  # at least two of each class
    s = rng.integers(0, 5, n).astype(float)  # few levels: many ties
    auc, var = delong_variance(*hists(y, s))
    exp_auc, exp_var = delong_double_loop(s[y == 1].tolist(), s[y == 0].tolist())
    assert auc == pytest.approx(exp_auc, abs=TOL)
    assert var == pytest.approx(exp_var, abs=TOL)


def test_stacked_histograms_equal_one_at_a_time():
    rng = np.random.default_rng(7)
    pos = rng.integers(0, 4, (5, 9))
    neg = rng.integers(0, 4, (5, 9))
    pos[3] = [0, 0, 0, 0, 0, 0, 0, 0, 3]  # AUC = 1 (fallback)
    neg[3] = [1, 2, 0, 0, 0, 0, 0, 0, 0]
    pos[4] = 0  # undefined
    auc, var = delong_variance(pos, neg)
    low, high, note = auc_interval(pos, neg, 0.95)
    assert auc.shape == var.shape == low.shape == high.shape == note.shape == (5,)
    for i in range(5):
        a, v = delong_variance(pos[i], neg[i])
        lo, hi, nt = auc_interval(pos[i], neg[i], 0.95)
        np.testing.assert_array_equal([auc[i], var[i], low[i], high[i]], [a, v, lo, hi])
        assert note[i] == nt


# --------------------------------------------------------------------------------------------
# Undefined and degenerate cases
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("pos, neg, why", [
    ([0, 0, 0], [1, 2, 0], "no positive examples"),
    ([1, 0, 2], [0, 0, 0], "no negative examples"),
    ([0, 0, 0], [0, 0, 0], "no rows"),
])
def test_one_class_gives_nan_with_a_note(pos, neg, why):
    auc, var = delong_variance(pos, neg)
    assert np.isnan(auc) and np.isnan(var)
    low, high, note = auc_interval(pos, neg, 0.95)
    assert np.isnan(low) and np.isnan(high)
    assert note == f"AUC undefined: {why}"


def test_bias_auc_table_undefined_auc_has_nan_bounds_and_one_note():
    y = np.array([0, 0, 0, 1, 0, 1, 1, 0, 1, 1])
    s = np.arange(10, dtype=float)
    g = np.array(["a"] * 3 + ["b"] * 7)  # "a" has no positives
    table = bias_auc_table(y, s, g, ci=0.95).set_index("subgroup")
    for col in ("subgroup_auc", "bnsp_auc"):
        assert np.isnan(table.loc["a", col])
        assert np.isnan(table.loc["a", f"{col}_ci_low"]) and np.isnan(table.loc["a", f"{col}_ci_high"])
    # The "undefined" notes are those of ci=None; no interval note repeats them. (BPSN of "a" is
    # defined, at AUC = 1, and gets its own interval note.)
    assert table.loc["a", "note"].startswith(bias_auc_table(y, s, g).set_index("subgroup").loc["a", "note"])
    assert "subgroup AUC interval" not in table.loc["a", "note"]
    assert "BNSP AUC interval" not in table.loc["a", "note"]
    assert table.loc["a", "note"].endswith("BPSN AUC interval: AUC = 1: DeLong logit interval unavailable, "
                                           "score interval with the Hanley-McNeil variance used")


@pytest.mark.parametrize("pos, neg, reason", [
    ([0, 0, 3], [15, 0, 0], "AUC = 1"),
    ([4, 0, 0], [0, 2, 5], "AUC = 0"),
    ([0, 1, 0], [2, 1, 3], "only 1 positive example"),
    ([2, 1, 3], [0, 1, 0], "only 1 negative example"),
    ([0, 5, 0], [0, 7, 0], "DeLong variance is 0"),
])
def test_degenerate_cases_use_the_score_interval_with_a_note(pos, neg, reason):
    auc, _ = delong_variance(pos, neg)
    low, high, note = auc_interval(pos, neg, 0.95)
    assert note.startswith(reason) and "Hanley-McNeil" in note
    assert 0.0 <= low <= auc <= high <= 1.0
    assert high - low > 0.05  # never a point: tiny or separated samples do not give certainty
    # The bounds solve (A - theta)^2 = z^2 HM(theta) where they are not 0 or 1.
    z = norm.ppf(0.975)
    m, n = sum(pos), sum(neg)
    for bound in (low, high):
        if 0.0 < bound < 1.0:
            hm = bound * (1 - bound) / (m * n) * (
                1 + (m - 1) * (1 - bound) / (2 - bound) + (n - 1) * bound / (1 + bound))
            assert (auc - bound) ** 2 == pytest.approx(z * z * hm, abs=1e-12)


def test_perfect_separation_with_three_positives():
    low, high, note = auc_interval([0, 0, 3], [15, 0, 0], 0.95)
    assert high == 1.0 and round(low, 2) == 0.63 and note.startswith("AUC = 1")


def test_bias_auc_table_notes_a_fallback_interval():
    y = np.array([0, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 0])
    s = np.array([1, 2, 8, 9, 3, 4, 5, 6, 7, 8, 2, 9], dtype=float)
    g = np.array(["a"] * 4 + ["b"] * 8)  # "a" is perfectly separated
    table = bias_auc_table(y, s, g, ci=0.95).set_index("subgroup")
    assert table.loc["a", "subgroup_auc"] == 1.0 and table.loc["a", "subgroup_auc_ci_high"] == 1.0
    assert table.loc["a", "subgroup_auc_ci_low"] < 1.0
    assert table.loc["a", "note"].startswith("subgroup AUC interval: AUC = 1")


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------


@settings(max_examples=examples(200), deadline=None)
@given(n=st.integers(1, 500), data=st.data(), factor=st.integers(2, 20),
       level=st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_wilson_interval_never_widens_with_a_larger_sample_at_the_same_proportion(n, data, factor, level):
    """For a fixed observed proportion k / n, Wilson's width 2z sqrt(n p q + z²/4) / (n + z²) is
    strictly decreasing in n (its derivative has the sign of pq (z² - n) - z²/2 < 0 as pq <= 1/4).
    (For two independent samples the larger one can be wider when its proportion is nearer 1/2,
    so that is not what is tested.)"""
    k = data.draw(st.integers(0, n))
    low, high = wilson_interval(k, n, level)
    low2, high2 = wilson_interval(factor * k, factor * n, level)
    assert high2 - low2 <= high - low + 1e-12
    assert 0.0 <= low2 <= factor * k / (factor * n) <= high2 <= 1.0


@settings(max_examples=examples(200), deadline=None)
@given(pos=st.lists(st.integers(0, 6), min_size=1, max_size=8), data=st.data(),
       level=st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_auc_interval_contains_the_estimate(pos, data, level):
    neg = data.draw(st.lists(st.integers(0, 6), min_size=len(pos), max_size=len(pos)))
    auc, _ = delong_variance(pos, neg)
    low, high, note = auc_interval(pos, neg, level)
    if sum(pos) == 0 or sum(neg) == 0:
        assert np.isnan(low) and np.isnan(high) and note.startswith("AUC undefined")
    else:
        assert 0.0 <= low <= auc <= high <= 1.0


@pytest.mark.full   # a coverage simulation: make test only (tests/tiers.py)
def test_delong_logit_coverage_in_a_binormal_simulation():
    """300 datasets of 60 positives ~ N(d, 1) and 140 negatives ~ N(0, 1); true AUC = Phi(d / sqrt 2)."""
    rng = np.random.default_rng(20240611)
    n_sets, n_pos, n_neg, d = 300, 60, 140, 1.2
    true_auc = norm.cdf(d / math.sqrt(2))
    scores = np.concatenate([rng.normal(d, 1, (n_sets, n_pos)), rng.normal(0, 1, (n_sets, n_neg))], axis=1)
    is_pos = np.zeros(scores.shape, dtype=bool)
    is_pos[:, :n_pos] = True
    # Continuous scores: every score is its own tie level; one stacked call for all datasets.
    pos_sorted = np.take_along_axis(is_pos, np.argsort(scores, axis=1), axis=1)
    low, high, note = auc_interval(pos_sorted.astype(float), (~pos_sorted).astype(float), 0.95)
    assert (note == "").all()
    coverage = np.mean((low <= true_auc) & (true_auc <= high))
    assert 0.92 <= coverage <= 0.98, coverage
    again = auc_interval(pos_sorted.astype(float), (~pos_sorted).astype(float), 0.95)
    np.testing.assert_array_equal(again[0], low)


# --------------------------------------------------------------------------------------------
# ci=None and validation
# --------------------------------------------------------------------------------------------


def test_ci_none_leaves_the_tables_unchanged(compas_rows):
    y, s, p, g = compas_rows["y"], compas_rows["s"], compas_rows["p"], compas_rows["g"]
    rates = fc.group_rates(y, p, g)
    assert list(rates.columns) == ["subgroup", "size", "n_positive", "n_negative", "small", "tp", "fp", "tn", "fn",
                                   *RATE_NAMES, "note"]
    assert list(fc.confusion_counts(y, p, g).table().columns) == list(rates.columns)
    aucs = bias_auc_table(y, s, g)
    assert list(aucs.columns) == ["subgroup", "size", "n_positive", "n_negative", "n_background_positive",
                                  "n_background_negative", "small", *AUC_COLUMNS, "note"]
    assert aucs.attrs["ci"] is None and "overall_auc_ci" not in aucs.attrs

    with_ci = fc.group_rates(y, p, g, ci=0.95)
    expected = [c for c in rates.columns if c not in RATE_NAMES]
    expected = expected[:-1] + [c for r in RATE_NAMES for c in (r, f"{r}_ci_low", f"{r}_ci_high")] + ["note"]
    assert list(with_ci.columns) == expected
    pd.testing.assert_frame_equal(with_ci[rates.columns], rates)
    aucs_ci = bias_auc_table(y, s, g, ci=0.95)
    assert list(aucs_ci.columns) == list(aucs.columns[:7]) + [
        c for a in AUC_COLUMNS for c in (a, f"{a}_ci_low", f"{a}_ci_high")] + ["note"]
    pd.testing.assert_frame_equal(aucs_ci[aucs.columns], aucs)


@pytest.mark.parametrize("bad", BAD_CI)
def test_bad_ci_raises_with_the_message_template(bad):
    y = np.array([0, 1, 0, 1])
    g = np.array(["a", "a", "b", "b"])
    calls = {
        "group_rates": lambda: fc.group_rates(y, y, g, ci=bad),
        "ConfusionCounts.table": lambda: ConfusionCounts.compute(y, y, g).table(ci=bad),
        "bias_auc_table": lambda: bias_auc_table(y, y.astype(float), g, ci=bad),
    }
    for func, call in calls.items():
        with pytest.raises(ValueError, match=re.escape(CI_MESSAGE.format(func=func, got=bad))):
            call()
    with pytest.raises(ValueError, match=re.escape(LEVEL_MESSAGE.format(func="auc_interval", got=bad))):
        auc_interval([0, 1], [1, 0], bad)


def test_auc_interval_needs_a_level_and_matching_histograms():
    with pytest.raises(ValueError, match=re.escape(LEVEL_MESSAGE.format(func="auc_interval", got=None))):
        auc_interval([0, 1], [1, 0], None)
    with pytest.raises(ValueError, match="same shape"):
        auc_interval([0, 1, 2], [1, 0], 0.95)
    with pytest.raises(ValueError, match="non-negative"):
        delong_variance([0, -1], [1, 0])


@pytest.mark.parametrize("module", [_delong, _intervals])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
