"""compare_model_aucs: each model's AUCs and DeLong's paired difference from a baseline model."""

import doctest

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm, rankdata
from sklearn.metrics import roc_auc_score

import fairness_core as fc
from fairness_core._models import aucs as _model_aucs

KINDS = ("subgroup_auc", "bpsn_auc", "bnsp_auc")


def _data(n, seed, levels=None):
    """Labels, two correlated score columns (rounded to `levels` values for ties) and overlapping indicator
    subgroups with some missing values (rows in neither mask)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    common = rng.normal(size=n) + 1.2 * y
    a = common + rng.normal(scale=0.8, size=n)
    b = common + rng.normal(scale=0.8, size=n) + 0.3 * y
    if levels:
        a, b = np.round(a * levels) / levels, np.round(b * levels) / levels
    frame = pd.DataFrame({"u": rng.random(n) < 0.3, "v": rng.random(n) < 0.5, "w": rng.random(n) < 0.1}).astype(float)
    frame.loc[rng.random(n) < 0.05, "v"] = np.nan
    groups = fc.Subgroups.from_indicators(frame, ["u", "v", "w"], min_size=10)
    return y, a, b, groups


def _sets(y, groups, j, kind):
    """Rows of an AUC's positives and negatives."""
    member, background = groups.membership[:, j], groups.background[:, j]
    pos, neg = {"subgroup_auc": (member, member), "bpsn_auc": (background, member),
                "bnsp_auc": (member, background)}[kind]
    return pos & (y == 1), neg & (y == 0)


def _row(table, model, subgroup, kind):
    sel = (table["model"] == model) & (table["auc"] == kind)
    sel &= table["subgroup"].isna() if subgroup is None else table["subgroup"] == subgroup
    assert sel.sum() == 1
    return table[sel].iloc[0]


@pytest.mark.parametrize("levels", [None, 4])
def test_values_equal_sklearn_on_masks(levels):
    y, a, b, groups = _data(600, 1, levels)
    table = fc.compare_model_aucs(y, {"a": a, "b": b}, groups, baseline="b")
    assert len(table) == 2 * (1 + 3 * len(groups.names))
    for model, s in (("a", a), ("b", b)):
        assert _row(table, model, None, "overall_auc")["value"] == pytest.approx(roc_auc_score(y, s), abs=1e-15)
        for j, name in enumerate(groups.names):
            for kind in KINDS:
                pos, neg = _sets(y, groups, j, kind)
                rows = pos | neg
                row = _row(table, model, name, kind)
                assert row["value"] == pytest.approx(roc_auc_score(y[rows], s[rows]), abs=1e-15)
                assert (row["n_positive"], row["n_negative"]) == (pos.sum(), neg.sum())
                assert row["difference"] == pytest.approx(row["value"] - _row(table, "b", name, kind)["value"], abs=0)


def test_each_auc_and_its_interval_equal_bias_auc_table():
    y, a, b, groups = _data(500, 2, 6)
    table = fc.compare_model_aucs(y, {"a": a, "b": b}, groups, baseline="a", ci=0.9)
    for model, s in (("a", a), ("b", b)):
        single = fc.bias_auc_table(y, s, groups, ci=0.9, n_boot=100)
        for kind in KINDS:
            mine = table[(table["model"] == model) & (table["auc"] == kind)]
            for column in ("", "_ci_low", "_ci_high"):
                np.testing.assert_allclose(mine["value" + column].to_numpy(), single[kind + column].to_numpy(),
                                           rtol=0, atol=1e-12)
        overall = _row(table, model, None, "overall_auc")
        assert overall["value"] == single.attrs["overall_auc"]
        np.testing.assert_allclose([overall["value_ci_low"], overall["value_ci_high"]], single.attrs["overall_auc_ci"],
                                   atol=1e-12)


def _brute_force_variance(y, a, b, pos, neg):
    """DeLong et al. (1988) literally: placements by comparing every positive with every negative."""
    p_rows, n_rows = np.flatnonzero(pos), np.flatnonzero(neg)
    m, n = len(p_rows), len(n_rows)

    def psi(x, z):
        return 1.0 if x > z else 0.5 if x == z else 0.0

    v10 = np.zeros((2, m))
    v01 = np.zeros((2, n))
    for k, s in enumerate((a, b)):
        for i, pi in enumerate(p_rows):
            for j, nj in enumerate(n_rows):
                v10[k, i] += psi(s[pi], s[nj]) / n
                v01[k, j] += psi(s[pi], s[nj]) / m
    s10 = np.cov(v10)          # 2 x 2, denominators m - 1
    s01 = np.cov(v01)
    return ((s10[0, 0] + s10[1, 1] - 2 * s10[0, 1]) / m + (s01[0, 0] + s01[1, 1] - 2 * s01[0, 1]) / n,
            v10.mean(axis=1))


def test_paired_variance_equals_a_brute_force_delong():
    y, a, b, groups = _data(90, 3, 3)   # rounded scores: many ties
    table = fc.compare_model_aucs(y, {"a": a, "b": b}, groups, baseline="b", ci=0.95)
    checked = 0
    for j, name in enumerate(groups.names):
        for kind in KINDS:
            pos, neg = _sets(y, groups, j, kind)
            if pos.sum() < 2 or neg.sum() < 2:
                continue
            variance, aucs = _brute_force_variance(y, a, b, pos, neg)
            row = _row(table, "a", name, kind)
            assert row["value"] == pytest.approx(aucs[0], abs=1e-12)
            assert row["difference_se"] ** 2 == pytest.approx(variance, rel=1e-10, abs=1e-15)
            z = norm.ppf(0.975)
            assert row["difference_ci_low"] == pytest.approx(max(-1, row["difference"] - z * np.sqrt(variance)))
            assert row["p_value"] == pytest.approx(2 * norm.sf(abs(row["difference"]) / np.sqrt(variance)))
            checked += 1
    variance, _ = _brute_force_variance(y, a, b, y == 1, y == 0)
    assert _row(table, "a", None, "overall_auc")["difference_se"] ** 2 == pytest.approx(variance, rel=1e-10)
    assert checked >= 6


def test_paired_standard_error_is_close_to_a_paired_bootstrap():
    y, a, b, groups = _data(3000, 4)
    table = fc.compare_model_aucs(y, {"a": a, "b": b}, groups, baseline="b", ci=None)
    assert "difference_ci_low" not in table and "p_value" not in table
    member = groups.membership[:, 0]
    rng = np.random.default_rng(0)
    overall, sub = [], []

    def auc(rows, s):   # Mann-Whitney from mid-ranks (what roc_auc_score gives, faster)
        ranks, pos = rankdata(s[rows]), y[rows] == 1
        m = pos.sum()
        return (ranks[pos].sum() - m * (m + 1) / 2) / (m * (len(rows) - m))

    for _ in range(300):   # rows resampled jointly for both models
        rows = rng.integers(0, len(y), len(y))
        overall.append(auc(rows, a) - auc(rows, b))
        keep = rows[member[rows]]
        sub.append(auc(keep, a) - auc(keep, b))
    assert _row(table, "a", None, "overall_auc")["difference_se"] == pytest.approx(np.std(overall), rel=0.15)
    assert _row(table, "a", groups.names[0], "subgroup_auc")["difference_se"] == pytest.approx(np.std(sub), rel=0.15)
    # Pairing: the difference's standard error is well below that of two independent AUCs.
    single = fc.bias_auc_table(y, a, groups, ci=0.95, n_boot=100)
    assert _row(table, "a", None, "overall_auc")["difference_se"] < 0.8 * np.sqrt(2) * (
        single.attrs["overall_auc_ci"][1] - single.attrs["overall_auc_ci"][0]) / (2 * norm.ppf(0.975))


@pytest.mark.full   # a coverage simulation: make test only (tests/tiers.py)
def test_coverage_of_a_zero_difference_is_about_the_level():
    """Two exchangeable models (equal true AUCs): the 95 % interval of their difference holds 0 about 95 % of the time."""
    rng = np.random.default_rng(8)
    covered = []
    for _ in range(150):
        y = rng.integers(0, 2, 300)
        common = rng.normal(size=300) + y
        a, b = common + rng.normal(size=300), common + rng.normal(size=300)
        row = _row(fc.compare_model_aucs(y, {"a": a, "b": b}, np.zeros(300), baseline="b"), "a", None, "overall_auc")
        covered.append(not row["excludes_zero"])
    assert 0.9 <= np.mean(covered) <= 0.99


def test_the_same_scores_differ_by_zero_with_zero_width():
    y, a, _, groups = _data(300, 5, 5)
    table = fc.compare_model_aucs(y, {"a": a, "copy": a.copy()}, groups, baseline="a")
    copy = table[table["model"] == "copy"]
    assert (copy["difference"] == 0).all() and (copy["difference_se"] == 0).all()
    assert (copy["difference_ci_low"] == 0).all() and (copy["difference_ci_high"] == 0).all()
    assert copy["excludes_zero"].tolist() == [False] * len(copy)
    assert copy["p_value"].isna().all()
    baseline = table[table["model"] == "a"]
    assert (baseline["difference"] == 0).all() and baseline["excludes_zero"].isna().all()


def test_undefined_aucs_are_nan_with_a_reason_never_zero():
    y = np.array([0, 1, 0, 1, 0, 0, 1, 0])
    a = np.array([.1, .9, .2, .8, .3, .4, .7, .6])
    b = np.array([.2, .7, .1, .9, .5, .3, .6, .4])
    groups = np.array(["x", "x", "x", "x", "z", "z", "z", "q"])      # q: one row, a negative
    table = fc.compare_model_aucs(y, {"a": a, "b": b}, groups, baseline="a")
    row = _row(table, "b", "q", "subgroup_auc")
    assert np.isnan(row["value"]) and np.isnan(row["difference"]) and np.isnan(row["difference_ci_low"])
    assert row["note"] == "AUC undefined: no positive examples" and row["excludes_zero"] is None
    bpsn = _row(table, "b", "q", "bpsn_auc")                       # 1 negative: AUC defined, paired variance not
    assert not np.isnan(bpsn["value"]) and np.isnan(bpsn["difference_se"])
    assert "only 1 negative example" in bpsn["note"]
    assert _row(table, "b", "z", "subgroup_auc")["n_positive"] == 1


def test_bad_input_is_refused():
    y, a, b, groups = _data(50, 6)
    with pytest.raises(ValueError, match="at least two models"):
        fc.compare_model_aucs(y, {"a": a}, groups, baseline="a")
    with pytest.raises(ValueError, match="baseline among"):
        fc.compare_model_aucs(y, {"a": a, "b": b}, groups, baseline="c")
    with pytest.raises(ValueError, match="ci"):
        fc.compare_model_aucs(y, {"a": a, "b": b}, groups, baseline="a", ci=1.5)
    with pytest.raises(ValueError):
        fc.compare_model_aucs(y, {"a": a, "b": b[:-1]}, groups, baseline="a")


def madlibs_pair(frame):
    """Labels, the two score columns and the 51 identity subgroups of the madlibs data."""
    identities = [c for c in frame.columns if c not in ("template", "toxicity", "TOXICITY@1", "TOXICITY@6")]
    return ((frame["toxicity"] == "toxic").to_numpy().astype(int),
            {name: frame[name].to_numpy() for name in ("TOXICITY@1", "TOXICITY@6")},
            fc.Subgroups.from_indicators(frame, identities))


def test_madlibs_pair_of_models(madlibs):
    y, scores, groups = madlibs_pair(madlibs)
    table = fc.compare_model_aucs(y, scores, groups, baseline="TOXICITY@1")
    overall = _row(table, "TOXICITY@6", None, "overall_auc")
    assert overall["value"] == pytest.approx(roc_auc_score(y, scores["TOXICITY@6"]), abs=1e-15)
    assert overall["difference"] == pytest.approx(0.0704, abs=5e-4) and overall["excludes_zero"]
    gay = _row(table, "TOXICITY@6", "gay", "bpsn_auc")
    assert gay["baseline_value"] == pytest.approx(0.6475, abs=5e-4) and gay["difference_ci_low"] > 0.25


def test_docstring_example():
    result = doctest.testmod(_model_aucs, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
