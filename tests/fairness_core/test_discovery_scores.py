"""discover_subgroups on the quantities of a score beside the subgroup AUC (BPSN AUC, BNSP AUC, the debiased
calibration error) against brute forces over every intersection; identity columns that define only their members;
held-out subgroups below the minimum size reported as too small to judge."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

import fairness_core as fc
from fairness_core._stats.adjust import rejections

from tests.fairness_core.test_discovery import brute_force, small_data


def scored_data(seed=0, n=2500, rounded=True):
    """Attributes, labels, a score (one decimal: at most 11 levels, so the search's AUCs are exact) and weights; the
    score is worse (less separating, and shifted up: miscalibrated) in race=Black & sex=Female."""
    x, y_true, _, w = small_data(seed=seed, n=n)
    rng = np.random.default_rng(seed)
    bad = ((x.race == "Black") & (x.sex == "Female")).to_numpy()
    score = np.clip(0.5 + np.where(bad, 0.1, 0.3) * (y_true - 0.5) + np.where(bad, 0.15, 0.0)
                    + rng.normal(0, 0.2, n), 0, 1)
    return x, y_true, (np.round(score, 1) if rounded else score), w


def intersections(x, depth):
    """Every non-empty intersection of up to `depth` columns: (name, depth, columns, codes, mask), in the search's
    tie order (columns, then values sorted, missing last)."""
    values = {c: sorted(v for v in x[c].dropna().unique()) + ([None] if x[c].isna().any() else []) for c in x}
    for d in range(1, depth + 1):
        for cols in combinations(range(x.shape[1]), d):
            names = [x.columns[c] for c in cols]
            for idx in np.ndindex(*[len(values[c]) for c in names]):
                mask = np.ones(len(x), dtype=bool)
                for c, i in zip(names, idx):
                    v = values[c][i]
                    mask &= x[c].isna().to_numpy() if v is None else (x[c] == v).to_numpy()
                if mask.any():
                    text = " & ".join(f"{c}={'(missing)' if values[c][i] is None else values[c][i]}"
                                      for c, i in zip(names, idx))
                    yield text, d, cols, idx, mask


def ranked(rows, direction):
    """Brute-force rows (name, depth, cols, idx, value, rest, difference) ranked as documented."""
    score = {"higher": lambda d: d, "lower": lambda d: -d, "either": abs}[direction]
    return sorted(rows, key=lambda r: (-score(r[6]), r[1], r[2], r[3]))


@pytest.mark.parametrize("quantity", ["bpsn_auc", "bnsp_auc"])
@pytest.mark.parametrize("weighted", [False, True])
def test_bpsn_and_bnsp_auc_against_a_brute_force(quantity, weighted):
    x, y, score, w = scored_data(seed=12)
    weight = w if weighted else None
    own_label = 0 if quantity == "bpsn_auc" else 1
    auc = fc.bpsn_auc if quantity == "bpsn_auc" else fc.bnsp_auc
    rows = []
    for name, d, cols, idx, mask in intersections(x, 2):
        if mask.sum() < 20 or (mask & (y == own_label)).sum() < 20:
            continue
        value = auc(y, score, mask, sample_weight=weight)
        rest = fc.subgroup_auc(y, score, ~mask, sample_weight=weight)
        rows.append((name, d, cols, idx, value, rest, value - rest))
    expected = ranked(rows, "either")
    found = fc.discover_subgroups(y, y, x, y_score=score, quantity=quantity, depth=2, min_size=20, top_k=10 ** 6,
                                  holdout=0, sample_weight=weight, direction="either").table
    assert len(expected) > 30
    assert found["subgroup"].tolist() == [r[0] for r in expected]
    for column, j in (("value", 4), ("rest_value", 5), ("difference", 6), ("search_difference", 6)):
        np.testing.assert_allclose(found[column], [r[j] for r in expected], rtol=1e-10, atol=1e-12)
    assert found["ci_low"].isna().all() and not found["excludes_parity"].any()
    default = fc.discover_subgroups(y, y, x, y_score=score, quantity=quantity, depth=2, top_k=3, holdout=0)
    assert default.direction == "lower"
    if quantity == "bpsn_auc":   # its negatives scored up (scored_data)
        assert default.table["subgroup"].iloc[0] == "race=Black & sex=Female"


@pytest.mark.parametrize("weighted", [False, True])
def test_calibration_error_against_calibration_errors(weighted):
    x, y, score, w = scored_data(seed=13, rounded=False)
    weight = w if weighted else None
    rows = []
    for name, d, cols, idx, mask in intersections(x, 2):
        if mask.sum() < 25:
            continue
        errors = fc.calibration_errors(y, score, np.where(mask, "in", "out"), n_bins=10, min_per_group=1,
                                       sample_weight=weight).set_index("subgroup")["squared_ce"]
        a, b = errors["in"], errors["out"]
        rows.append((name, d, cols, idx, np.sqrt(max(a, 0)), np.sqrt(max(b, 0)),
                     np.sign(a - b) * np.sqrt(abs(a - b))))
    expected = ranked(rows, "higher")
    found = fc.discover_subgroups(y, y, x, y_score=score, quantity="calibration_error", depth=2, min_size=25,
                                  top_k=10 ** 6, holdout=0, sample_weight=weight).table
    assert len(expected) > 30
    assert found["subgroup"].tolist() == [r[0] for r in expected]
    for column, j in (("value", 4), ("rest_value", 5), ("difference", 6)):
        np.testing.assert_allclose(found[column], [r[j] for r in expected], rtol=1e-9, atol=1e-12)


def delong_parts(pos_scores, neg_scores):
    """Placements of each positive and each negative (ties one half) and the AUC, by comparing every pair."""
    gt = (pos_scores[:, None] > neg_scores[None, :]) + 0.5 * (pos_scores[:, None] == neg_scores[None, :])
    return gt.mean(axis=1), gt.mean(axis=0), gt.mean()


@pytest.mark.parametrize("quantity", ["bpsn_auc", "bnsp_auc"])
def test_held_out_interval_is_delongs_with_the_shared_sides_covariance(quantity):
    x, y, score, _ = scored_data(seed=14, n=3000, rounded=False)
    found = fc.discover_subgroups(y, y, x, y_score=score, quantity=quantity, depth=2, top_k=3, random_state=5)
    held = np.zeros(len(x), dtype=bool)
    held[np.random.default_rng(5).permutation(len(x))[:1500]] = True
    top = found.table.iloc[0]
    assert not top["small"]
    member = np.ones(len(x), dtype=bool)
    for condition in top["subgroup"].split(" & "):
        column, value = condition.split("=")
        member &= (x[column].isna() if value == "(missing)" else x[column].astype(str) == value).to_numpy()
    s, r = held & member, held & ~member
    if quantity == "bpsn_auc":   # shared: the rest's positives
        pa, na = score[r & (y == 1)], score[s & (y == 0)]
    else:                        # shared: the rest's negatives
        pa, na = score[s & (y == 1)], score[r & (y == 0)]
    pb, nb = score[r & (y == 1)], score[r & (y == 0)]
    v10a, v01a, a = delong_parts(pa, na)
    v10b, v01b, b = delong_parts(pb, nb)
    var_a = v10a.var(ddof=1) / len(pa) + v01a.var(ddof=1) / len(na)
    var_b = v10b.var(ddof=1) / len(pb) + v01b.var(ddof=1) / len(nb)
    if quantity == "bpsn_auc":
        cov = np.cov(v10a, v10b)[0, 1] / len(pb)
    else:
        cov = np.cov(v01a, v01b)[0, 1] / len(nb)
    se = np.sqrt(var_a + var_b - 2 * cov)
    z = norm.ppf(0.975)
    assert (top["value"], top["rest_value"]) == pytest.approx((a, b), abs=1e-12)
    assert (top["ci_low"], top["ci_high"]) == pytest.approx((a - b - z * se, a - b + z * se), abs=1e-10)
    assert top["p_value"] == pytest.approx(2 * norm.sf(abs(a - b) / se), rel=1e-8)
    if quantity == "bpsn_auc":
        assert top["subgroup"] == "race=Black & sex=Female"
        assert top["excludes_parity"] and top["ci_high"] < 0


def test_calibrated_scores_give_no_calibration_discovery_and_a_miscalibrated_subgroup_is_found():
    rng = np.random.default_rng(15)
    n = 20000
    x = pd.DataFrame({f"a{i}": rng.integers(0, 4, n) for i in range(5)})
    score = rng.random(n)
    y = (rng.random(n) < score).astype(int)   # calibrated everywhere
    found = fc.discover_subgroups(y, y, x, y_score=score, quantity="calibration_error", depth=2)
    assert found.direction == "higher" and len(found.table) == 10
    assert not found.table["excludes_parity"].any() and not found.table["small"].any()
    assert (found.table["ci_low"] <= found.table["difference"]).all()
    assert (found.table["difference"] <= found.table["ci_high"]).all()
    bad = ((x.a0 == 1) & (x.a1 == 2)).to_numpy()
    y_bad = (rng.random(n) < np.where(bad, np.clip(score + 0.2, 0, 1), score)).astype(int)
    found = fc.discover_subgroups(y_bad, y_bad, x, y_score=score, quantity="calibration_error", depth=2, top_k=3)
    top = found.table.iloc[0]
    assert top["subgroup"] == "a0=1 & a1=2" and top["excludes_parity"] and top["ci_low"] > 0
    assert 0.15 < top["value"] < 0.25 and top["rest_value"] < 0.03


def test_calibration_error_needs_probabilities():
    x, y, score, _ = scored_data()
    with pytest.raises(ValueError, match="y_score"):
        fc.discover_subgroups(y, y, x, y_score=score * 10, quantity="calibration_error")
    with pytest.raises(ValueError, match="'bpsn_auc' needs 'y_score'"):
        fc.discover_subgroups(y, y, x, quantity="bpsn_auc")


def identity_data(seed=16, n=3000):
    x, y_true, y_pred, w = small_data(seed=seed, n=n)
    rng = np.random.default_rng(seed)
    x = x.assign(gay=rng.choice([0, 1], n, p=[0.85, 0.15]), muslim=rng.choice([0.0, 1.0, np.nan], n, p=[.8, .15, .05]))
    y_pred = np.where((x.gay == 1).to_numpy() & (x.sex == "Female").to_numpy(), 1, y_pred)
    return x, y_true, y_pred, w


@pytest.mark.parametrize("direction", ["higher", "lower", "either"])
def test_identity_columns_define_only_their_members(direction):
    x, y_true, y_pred, _ = identity_data()
    found = fc.discover_subgroups(y_true, y_pred, x, depth=2, min_size=20, top_k=15, direction=direction,
                                  holdout=0, indicators=["gay", "muslim"]).table
    brute = brute_force(x, y_true, y_pred, "selection_rate", 2, 20, direction)
    brute["subgroup"] = brute["subgroup"].str.replace(".0", "", regex=False)   # 1.0 is written 1
    parts = brute["subgroup"].str.split(" & ")
    members_only = parts.map(lambda ps: all(p in ("gay=1", "muslim=1") or not p.startswith(("gay=", "muslim="))
                                            for p in ps))
    assert found["subgroup"].tolist() == brute[members_only]["subgroup"].head(15).tolist()
    assert not found["subgroup"].str.contains("gay=0|muslim=0|muslim=\\(missing\\)").any()
    assert found["subgroup"].str.contains("gay=1").any() or direction == "lower"
    # Without indicators the non-members are subgroups too.
    plain = fc.discover_subgroups(y_true, y_pred, x, depth=2, min_size=20, top_k=200, direction=direction,
                                  holdout=0).table
    assert plain["subgroup"].str.contains("gay=0").any()


def test_identity_columns_for_the_quantities_of_a_score():
    x, y_true, _, _ = identity_data()
    score = np.clip(0.5 + 0.3 * (y_true - 0.5) + np.random.default_rng(1).normal(0, 0.2, len(x)), 0, 1)
    for quantity in ("subgroup_auc", "bpsn_auc", "calibration_error"):
        found = fc.discover_subgroups(y_true, y_true, x, y_score=score, quantity=quantity, depth=2, top_k=40,
                                      holdout=0, indicators=["gay"], direction="either").table
        assert not found["subgroup"].str.contains("gay=0").any() and len(found) == 40


def test_an_identity_column_of_shares_is_a_member_from_the_threshold():
    x, y_true, y_pred, _ = identity_data()
    share = np.random.default_rng(3).random(len(x)) * 0.7   # annotators' shares, as in Jigsaw's identity columns
    x = x.assign(trans=share)
    y_pred = np.where(share >= 0.6, 1, y_pred)
    found = fc.discover_subgroups(y_true, y_pred, x[["trans", "sex"]], depth=1, holdout=0, top_k=10, min_size=20,
                                  direction="either", indicators=["trans"], indicator_threshold=0.6).table
    assert sorted(found["subgroup"]) == ["sex=Female", "sex=Male", "trans=1"]
    t = found.set_index("subgroup")
    assert t.loc["trans=1", "size"] == (share >= 0.6).sum() and t.loc["trans=1", "value"] == 1.0


@pytest.mark.parametrize("indicators, message", [
    (["race"], "'race' is of type"), (["zip"], r"\['zip'\] are not among its columns")])
def test_bad_indicators_are_refused(indicators, message):
    x, y_true, y_pred, _ = identity_data()
    with pytest.raises(ValueError, match=message):
        fc.discover_subgroups(y_true, y_pred, x, indicators=indicators)


def test_held_out_subgroups_below_the_minimum_are_too_small_to_judge():
    n, seed = 2000, 3
    held = np.zeros(n, dtype=bool)
    held[np.random.default_rng(seed).permutation(n)[:n // 2]] = True
    rng = np.random.default_rng(17)
    x = pd.DataFrame({"a": rng.integers(0, 3, n), "g": 0})
    g = np.zeros(n, dtype=bool)
    g[np.flatnonzero(~held)[:40]] = True   # 40 rows among the search's, 12 held out
    g[np.flatnonzero(held)[:12]] = True
    x.loc[g, "g"] = 1
    y_pred = np.where(g, 1, (rng.random(n) < np.where(x.a == 0, 0.5, 0.2)).astype(int))
    found = fc.discover_subgroups(np.zeros(n, int), y_pred, x, depth=1, min_size=30, top_k=4, direction="higher",
                                  random_state=seed)
    t = found.table.set_index("subgroup")
    assert t.loc["g=1", "search_size"] == 40 and t.loc["g=1", "size"] == 12
    assert t.loc["g=1", "small"] and not t.loc["g=1", "excludes_parity"]
    assert t.loc["g=1", ["ci_low", "ci_high", "p_value"]].isna().all()
    assert t.loc["g=1", "value"] == 1.0   # its value is still shown
    judged = t[~t["small"]]
    assert len(judged) == 3 and judged["p_value"].notna().all()
    # Benjamini-Hochberg over the subgroups judged only.
    expected = rejections(judged["p_value"].to_numpy(), 0.05, "fdr_bh") & (judged["difference"] > 0).to_numpy()
    assert judged["excludes_parity"].tolist() == expected.tolist()
    assert t.loc["a=0", "excludes_parity"]
    # Without a holdout nothing is small: the search's rows are the estimate's.
    assert not fc.discover_subgroups(np.zeros(n, int), y_pred, x, depth=1, min_size=30, holdout=0).table[
        "small"].any()


def test_small_in_the_own_part_of_a_rate():
    """A subgroup of enough held-out rows but fewer than min_size in its rate's denominator is small."""
    n, seed = 4000, 4
    held = np.zeros(n, dtype=bool)
    held[np.random.default_rng(seed).permutation(n)[:n // 2]] = True
    rng = np.random.default_rng(18)
    x = pd.DataFrame({"g": (rng.random(n) < 0.1).astype(int), "h": rng.integers(0, 2, n)})
    y_true = rng.integers(0, 2, n)
    g = (x.g == 1).to_numpy()
    y_true[g & held] = np.where(np.arange((g & held).sum()) < 10, 1, 0)   # 10 held-out positives only
    found = fc.discover_subgroups(y_true, y_true, x, quantity="true_positive_rate", depth=1, min_size=20,
                                  top_k=4, direction="either", random_state=seed)
    t = found.table.set_index("subgroup")
    assert t.loc["g=1", "size"] >= 20 and t.loc["g=1", "n"] == 10
    assert t.loc["g=1", "small"] and np.isnan(t.loc["g=1", "p_value"])
    assert not t.drop(index="g=1")["small"].any()
