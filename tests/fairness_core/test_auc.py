"""Bias-aware AUCs (Jigsaw Unintended Bias benchmark): cross-checked with scikit-learn on masks."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import fairness_core as fc
from fairness_core._metrics.auc_table import NO_NEGATIVES

TOL = 1e-9


def sk_auc(y: np.ndarray, s: np.ndarray, mask: np.ndarray) -> float:
    """roc_auc_score on the masked rows; NaN where it is undefined (fewer than two classes)."""
    y_m, s_m = y[mask], s[mask]
    if y_m.size == 0 or y_m.min() == y_m.max():
        return float("nan")
    return float(roc_auc_score(y_m, s_m))


def sk_auc_columns(y, s, members, backgrounds) -> dict[str, np.ndarray]:
    """Subgroup / BPSN / BNSP AUCs per subgroup, from scikit-learn on the benchmark's masks."""
    y = np.asarray(y).astype(bool)
    out = {"subgroup_auc": [], "bpsn_auc": [], "bnsp_auc": []}
    for m, b in zip(members, backgrounds):
        out["subgroup_auc"].append(sk_auc(y, s, m))
        out["bpsn_auc"].append(sk_auc(y, s, (m & ~y) | (b & y)))
        out["bnsp_auc"].append(sk_auc(y, s, (m & y) | (b & ~y)))
    return {k: np.array(v) for k, v in out.items()}


def assert_same_with_nan(actual, expected, tol=TOL):
    actual = np.asarray(actual, dtype=float)
    expected = np.asarray(expected, dtype=float)
    assert actual.shape == expected.shape
    np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected))
    ok = ~np.isnan(expected)
    np.testing.assert_allclose(actual[ok], expected[ok], rtol=0, atol=tol)


def seed_power_mean(x, p):
    """Jigsaw Unintended Bias benchmark's power mean, literally."""
    x = np.array(x)
    return np.power(np.mean(np.power(x, p)), 1 / p)


def seed_final_metric(overall, sub, bpsn, bnsp, *, p=-5, overall_weight=0.25):
    """Jigsaw Unintended Bias benchmark's final_metric, literally, from precomputed AUC lists."""
    bias = np.mean([seed_power_mean(sub, p), seed_power_mean(bpsn, p), seed_power_mean(bnsp, p)])
    return overall_weight * overall + (1 - overall_weight) * bias


# --------------------------------------------------------------------------------------------
# Jigsaw madlibs: 51 overlapping identity columns
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def madlibs_sd(madlibs, madlibs_identities):
    mapping = fc.ColumnMapping(label="toxicity", positive_label="toxic", scores=("TOXICITY@1",),
                               indicators=tuple(madlibs_identities))
    return fc.ScoredData.from_frame(madlibs, mapping)


@pytest.fixture(scope="module")
def madlibs_expected(madlibs, madlibs_identities, madlibs_sd):
    """scikit-learn AUCs on the benchmark's masks, computed from the raw frame (not from ScoredData)."""
    assert madlibs_sd.n_rows == len(madlibs)  # no row is excluded, so positions line up
    y = (madlibs["toxicity"] == "toxic").to_numpy()
    s = madlibs["TOXICITY@1"].to_numpy(dtype=float)
    members = [(madlibs[c] >= 0.5).to_numpy() for c in madlibs_identities]
    backgrounds = [(madlibs[c] < 0.5).to_numpy() for c in madlibs_identities]
    cols = sk_auc_columns(y, s, members, backgrounds)
    cols["overall"] = float(roc_auc_score(y, s))
    cols["size"] = np.array([m.sum() for m in members])
    cols["n_positive"] = np.array([(m & y).sum() for m in members])
    return cols


@pytest.fixture(scope="module")
def madlibs_table(madlibs_sd):
    return fc.bias_auc_table(madlibs_sd.y_true, madlibs_sd.scores["TOXICITY@1"], madlibs_sd.subgroups)


def test_madlibs_table_matches_sklearn_on_masks(madlibs_table, madlibs_expected, madlibs_identities):
    table = madlibs_table
    assert list(table["subgroup"]) == madlibs_identities
    np.testing.assert_array_equal(table["size"], madlibs_expected["size"])
    np.testing.assert_array_equal(table["n_positive"], madlibs_expected["n_positive"])
    np.testing.assert_array_equal(table["n_negative"], madlibs_expected["size"] - madlibs_expected["n_positive"])
    for col in ("subgroup_auc", "bpsn_auc", "bnsp_auc"):
        assert_same_with_nan(table[col], madlibs_expected[col])
    assert table.attrs["overall_auc"] == pytest.approx(madlibs_expected["overall"], abs=TOL)


def test_madlibs_bias_auc_score_include_small_matches_seed_formula(madlibs_sd, madlibs_expected):
    e = madlibs_expected
    expected = seed_final_metric(e["overall"], e["subgroup_auc"], e["bpsn_auc"], e["bnsp_auc"])
    result = fc.bias_auc_score(madlibs_sd.y_true, madlibs_sd.scores["TOXICITY@1"], madlibs_sd.subgroups,
                               include_small=True)
    assert result.value == pytest.approx(expected, abs=TOL)
    assert float(result) == result.value
    assert result.overall_auc == pytest.approx(e["overall"], abs=TOL)
    assert result.subgroup_power_mean == pytest.approx(seed_power_mean(e["subgroup_auc"], -5), abs=TOL)
    assert result.bpsn_power_mean == pytest.approx(seed_power_mean(e["bpsn_auc"], -5), abs=TOL)
    assert result.bnsp_power_mean == pytest.approx(seed_power_mean(e["bnsp_auc"], -5), abs=TOL)
    assert result.n_used == 51 and result.n_small_excluded == 0


@pytest.mark.parametrize("min_size", [30, 100])
def test_madlibs_bias_auc_score_without_small_matches_restricted_formula(madlibs_sd, madlibs_expected, min_size):
    # min_size=30: every madlibs identity has >= 66 rows, so nothing is excluded;
    # min_size=100: the 19 identities with 66 rows are small and left out.
    e = madlibs_expected
    keep = e["size"] >= min_size
    expected = seed_final_metric(e["overall"], e["subgroup_auc"][keep], e["bpsn_auc"][keep], e["bnsp_auc"][keep])
    groups = madlibs_sd.subgroups.with_min_size(min_size)
    result = fc.bias_auc_score(madlibs_sd.y_true, madlibs_sd.scores["TOXICITY@1"], groups)
    assert result.value == pytest.approx(expected, abs=TOL)
    assert result.n_used == int(keep.sum())
    assert result.n_small_excluded == int((~keep).sum())
    np.testing.assert_array_equal(result.table["small"].to_numpy(), ~keep)
    if min_size == 100:
        assert result.n_small_excluded == 19
        everything = seed_final_metric(e["overall"], e["subgroup_auc"], e["bpsn_auc"], e["bnsp_auc"])
        assert abs(result.value - everything) > 1e-6  # leaving small subgroups out changes the score


@pytest.mark.parametrize("p", [-5.0, -2.0, 1.0, 3.0])
@pytest.mark.parametrize("overall_weight", [0.0, 0.25, 0.6, 1.0])
def test_summarize_bias_auc_options_match_literal_formula(madlibs_table, madlibs_expected, p, overall_weight):
    e = madlibs_expected
    expected = seed_final_metric(e["overall"], e["subgroup_auc"], e["bpsn_auc"], e["bnsp_auc"],
                                 p=p, overall_weight=overall_weight)
    result = fc.summarize_bias_auc(madlibs_table, p=p, overall_weight=overall_weight)
    assert result.value == pytest.approx(expected, abs=TOL)
    assert result.p == p and result.overall_weight == overall_weight


def test_summarize_bias_auc_options_change_the_value(madlibs_table):
    base = fc.summarize_bias_auc(madlibs_table).value
    assert fc.summarize_bias_auc(madlibs_table, p=1.0).value > base + 1e-3  # p=-5 stresses the worst AUCs
    assert fc.summarize_bias_auc(madlibs_table, overall_weight=0.5).value != pytest.approx(base, abs=1e-6)
    only_overall = fc.summarize_bias_auc(madlibs_table, overall_weight=1.0).value
    assert only_overall == pytest.approx(madlibs_table.attrs["overall_auc"], abs=TOL)


@pytest.mark.parametrize("weight", [-0.1, 1.5])
def test_overall_weight_outside_unit_interval_raises(madlibs_table, weight):
    with pytest.raises(ValueError, match="'overall_weight'"):
        fc.summarize_bias_auc(madlibs_table, overall_weight=weight)


# --------------------------------------------------------------------------------------------
# COMPAS: a six-valued race attribute, an integer 1-10 score with many ties
# --------------------------------------------------------------------------------------------


def test_compas_per_race_aucs_match_sklearn(compas):
    y = compas["two_year_recid"].to_numpy()
    s = compas["decile_score"].to_numpy(dtype=float)
    race = compas["race"]
    names = sorted(race.unique())
    table = fc.bias_auc_table(y, s, race)
    assert list(table["subgroup"]) == names
    members = [(race == name).to_numpy() for name in names]
    expected = sk_auc_columns(y, s, members, [~m for m in members])
    for col in ("subgroup_auc", "bpsn_auc", "bnsp_auc"):
        assert_same_with_nan(table[col], expected[col])
    np.testing.assert_array_equal(table["size"], [m.sum() for m in members])
    assert not table["small"].any()  # raw attributes mean min_size=1
    assert table.attrs["overall_auc"] == pytest.approx(roc_auc_score(y, s), abs=TOL)


# --------------------------------------------------------------------------------------------
# Standalone functions, input types, hand cases
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_random():
    rng = np.random.default_rng(7)
    n = 300
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 12, n) / 11.0  # many ties
    member = rng.random(n) < 0.3
    background = ~member & (rng.random(n) < 0.8)  # some rows in neither mask
    return y, s, member, background


@pytest.mark.parametrize("kind", ["list", "array", "series"])
def test_standalone_aucs_match_sklearn_for_every_input_type(small_random, kind):
    y, s, member, background = small_random
    convert = {"list": lambda a: a.tolist(), "array": np.asarray, "series": pd.Series}[kind]
    yb = y.astype(bool)
    assert fc.subgroup_auc(convert(y), convert(s), convert(member)) == pytest.approx(
        sk_auc(y, s, member), abs=1e-12)
    assert fc.bpsn_auc(convert(y), convert(s), convert(member)) == pytest.approx(
        sk_auc(y, s, (member & ~yb) | (~member & yb)), abs=1e-12)
    assert fc.bnsp_auc(convert(y), convert(s), convert(member)) == pytest.approx(
        sk_auc(y, s, (member & yb) | (~member & ~yb)), abs=1e-12)
    # An explicit background: rows in neither mask take no part.
    assert fc.bpsn_auc(convert(y), convert(s), convert(member), convert(background)) == pytest.approx(
        sk_auc(y, s, (member & ~yb) | (background & yb)), abs=1e-12)
    assert fc.bnsp_auc(convert(y), convert(s), convert(member), convert(background)) == pytest.approx(
        sk_auc(y, s, (member & yb) | (background & ~yb)), abs=1e-12)


def test_boolean_labels_give_the_same_aucs(small_random):
    y, s, member, _ = small_random
    assert fc.subgroup_auc(y.astype(bool), s, member) == fc.subgroup_auc(y, s, member)


def test_hand_case_with_ties():
    # Positives score 0.4, 0.8, 0.8; negatives 0.1, 0.4, 0.8. Of the 9 (positive, negative) pairs:
    # 0.4 beats 0.1 (1), ties 0.4 (1/2), loses to 0.8 (0) -> 3/2; each 0.8 beats 0.1 and 0.4 and
    # ties 0.8 -> 5/2, twice -> 5. AUC = (3/2 + 5) / 9 = 13/18.
    y = [0, 0, 1, 1, 0, 1]
    s = [0.1, 0.4, 0.4, 0.8, 0.8, 0.8]
    everyone = [True] * 6
    assert fc.subgroup_auc(y, s, everyone) == pytest.approx(float(Fraction(13, 18)), abs=1e-15)
    # Subgroup = first three rows (y 0, 0, 1; s 0.1, 0.4, 0.4), background = last three (y 1, 0, 1; s 0.8).
    member = [True, True, True, False, False, False]
    # subgroup: positive 0.4 vs negatives 0.1 (win), 0.4 (tie) -> 3/2 over 2 pairs = 3/4
    assert fc.subgroup_auc(y, s, member) == pytest.approx(0.75, abs=1e-15)
    # BPSN: background positives 0.8, 0.8 vs subgroup negatives 0.1, 0.4: 4 wins of 4 -> 1
    assert fc.bpsn_auc(y, s, member) == 1.0
    # BNSP: subgroup positive 0.4 vs background negative 0.8: 0 of 1 -> 0
    assert fc.bnsp_auc(y, s, member) == 0.0
    table = fc.bias_auc_table(y, s, pd.Series(["a", "a", "a", "b", "b", "b"]))
    row = table.iloc[0]
    assert (row["subgroup"], row["subgroup_auc"], row["bpsn_auc"], row["bnsp_auc"]) == ("a", 0.75, 1.0, 0.0)
    # With a 0 AUC and p < 0 the power mean of BNSP AUCs is 0.
    result = fc.bias_auc_score(y, s, pd.Series(["a", "a", "a", "b", "b", "b"]))
    assert result.bnsp_power_mean == 0.0


def test_subgroup_without_negatives_is_nan_with_a_note():
    # Group a: three positives, no negatives. Group b: one positive (0.6), two negatives (0.2, 0.7).
    y = [1, 1, 1, 0, 1, 0]
    s = [0.9, 0.3, 0.5, 0.2, 0.6, 0.7]
    groups = ["a", "a", "a", "b", "b", "b"]
    table = fc.bias_auc_table(y, s, groups)
    a, b = table.iloc[0], table.iloc[1]
    assert (a["subgroup"], a["n_positive"], a["n_negative"]) == ("a", 3, 0)
    assert np.isnan(a["subgroup_auc"]) and np.isnan(a["bpsn_auc"])  # no subgroup negatives
    # BNSP of a: positives 0.9, 0.3, 0.5 vs b's negatives 0.2, 0.7 -> wins 2 + 1 + 1 = 4 of 6
    assert a["bnsp_auc"] == pytest.approx(4 / 6, abs=1e-15)
    assert a["note"] != "" and NO_NEGATIVES in a["note"]
    # b: subgroup positive 0.6 vs negatives 0.2, 0.7 -> 1/2.
    assert b["subgroup_auc"] == pytest.approx(0.5, abs=1e-15)
    # BPSN of b: background (a) positives 0.9, 0.3, 0.5 vs b's negatives 0.2, 0.7 -> 2 + 1 + 1 = 4 of 6
    assert b["bpsn_auc"] == pytest.approx(4 / 6, abs=1e-15)
    # BNSP of b: its background (a) has no negatives.
    assert np.isnan(b["bnsp_auc"]) and b["note"] == "BNSP AUC undefined: no background negatives"
    assert np.isnan(fc.subgroup_auc(y, s, [True, True, True, False, False, False]))
    result = fc.bias_auc_score(y, s, groups)
    assert result.n_undefined == {"subgroup_auc": 1, "bpsn_auc": 1, "bnsp_auc": 1}
    # NaN AUCs are left out of their power means (each column has one defined value here).
    assert result.subgroup_power_mean == pytest.approx(0.5, abs=1e-15)
    assert result.bpsn_power_mean == pytest.approx(4 / 6, abs=1e-15)
    assert result.bnsp_power_mean == pytest.approx(4 / 6, abs=1e-15)


def test_lengths_must_match():
    with pytest.raises(ValueError, match="has 2 rows but y_true has 3"):
        fc.subgroup_auc([0, 1, 1], [0.1, 0.2], [True, True, True])


def test_non_binary_labels_are_refused():
    with pytest.raises(ValueError, match="must hold only 0 and 1"):
        fc.subgroup_auc([0, 1, 2], [0.1, 0.2, 0.3], [True, True, True])


# --------------------------------------------------------------------------------------------
# power_mean
# --------------------------------------------------------------------------------------------


def test_power_mean_p1_is_the_arithmetic_mean():
    assert fc.power_mean([0.5, 1.0, 0.75], 1) == pytest.approx(0.75, abs=1e-15)


def test_power_mean_p0_is_the_geometric_mean():
    assert fc.power_mean([0.25, 1.0], 0) == pytest.approx(0.5, abs=1e-15)
    assert fc.power_mean([0.5, 0.8, 1.0], 0) == pytest.approx(0.4 ** (1 / 3), abs=1e-15)


def test_power_mean_negative_p_hand_values():
    # p=-5: mean(0.5**-5, 1**-5) = (32 + 1) / 2 = 16.5, so M = 16.5 ** (-1/5)
    assert fc.power_mean([0.5, 1.0], -5) == pytest.approx(16.5 ** (-1 / 5), abs=1e-15)
    # p=-1 is the harmonic mean: 2 / (1/0.5 + 1/1) = 2/3
    assert fc.power_mean([0.5, 1.0], -1) == pytest.approx(2 / 3, abs=1e-15)


def test_power_mean_excludes_nan():
    assert fc.power_mean([0.5, np.nan, 1.0], -5) == pytest.approx(16.5 ** (-1 / 5), abs=1e-15)


@pytest.mark.parametrize("p", [-5, -1, 0])
def test_power_mean_zero_with_non_positive_p_is_zero(p):
    assert fc.power_mean([0.0, 0.9, 1.0], p) == 0.0


def test_power_mean_zero_with_positive_p_is_ordinary():
    assert fc.power_mean([0.0, 1.0], 1) == 0.5


@pytest.mark.parametrize("values", [[np.nan, np.nan], []])
def test_power_mean_with_nothing_defined_is_nan(values):
    assert np.isnan(fc.power_mean(values, -5))
