"""Intervals of the power means and the bias AUC score with sample weights: replicates drawn from
the weighted AUCs' linearized joint law (``_stats.auc_draws``), checked against the literal per-row covariance, the
table's own intervals, the count-table path, and by simulation against a known population value."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._stats.auc_draws import auc_covariance


def _literal_covariance(y, s, w, member, background):
    """Sum over rows of psi_j(r) psi_k(r) for the 3 k + 1 AUCs, each psi written out per row:
    psi_j(r) = w_r (V10_j(r) - A_j) / W1_j for a positive of AUC j, w_r (V01_j(r) - A_j) / W0_j for a negative,
    V10_j(r) = sum over the negatives l of AUC j of w_l ([s_r > s_l] + [s_r = s_l] / 2) / W0_j."""
    k = member.shape[1]
    sides = []
    for j in range(k):
        sides += [(member[:, j], member[:, j]), (background[:, j], member[:, j]), (member[:, j], background[:, j])]
    sides.append((np.ones(len(y), bool), np.ones(len(y), bool)))
    psi = np.zeros((len(y), len(sides)))
    beats = (s[:, None] > s[None, :]) + 0.5 * (s[:, None] == s[None, :])     # (r, l)
    for j, (pos_side, neg_side) in enumerate(sides):
        pos, neg = pos_side & (y == 1), neg_side & (y == 0)
        w1, w0 = w[pos].sum(), w[neg].sum()
        v10 = beats[:, neg] @ w[neg] / w0                      # every row as a positive
        v01 = beats.T[:, pos] @ w[pos] / w1                    # every row as a negative: positives above it
        auc = (w[pos] * v10[pos]).sum() / w1
        psi[pos, j] += w[pos] * (v10[pos] - auc) / w1
        psi[neg, j] += w[neg] * (v01[neg] - auc) / w0
    return psi.T @ psi


def test_the_covariance_is_the_literal_per_row_sum():
    """With fewer distinct scores than level groups nothing is merged, so the atoms' covariance is exact; two
    overlapping identity subgroups make the patterns differ from the subgroups."""
    rng = np.random.default_rng(3)
    n = 400
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(y * 0.7, 1.0), 1)
    w = rng.lognormal(0, 0.7, n)
    frame = pd.DataFrame({"a": rng.random(n) < 0.4, "b": rng.random(n) < 0.3}).astype(float)
    groups = fc.Subgroups.from_indicators(frame, ["a", "b"])
    counts = fc.auc_counts(y, s, groups, sample_weight=w)
    atoms = counts.patterns
    codes, member, background = groups.patterns
    want = _literal_covariance(y, s, w, member[codes], background[codes])
    np.testing.assert_allclose(auc_covariance(atoms), want, rtol=1e-9, atol=1e-15)


def test_each_aucs_replicates_reproduce_its_table_interval():
    rng = np.random.default_rng(5)
    n = 2000
    group, y = rng.choice(["a", "b", "c"], n), rng.integers(0, 2, n)
    s, w = rng.normal(y * 0.8, 1.0), rng.lognormal(0, 0.5, n)
    table = fc.bias_auc_table(y, s, group, ci=0.9, n_boot=20_000, sample_weight=w)
    reps = table.attrs["replicates"]
    for i, column in enumerate(("subgroup_auc", "bpsn_auc", "bnsp_auc")):
        low, high = np.quantile(reps.aucs[:, :, i], [0.05, 0.95], axis=0)
        np.testing.assert_allclose(low, table[f"{column}_ci_low"], atol=2e-3)
        np.testing.assert_allclose(high, table[f"{column}_ci_high"], atol=2e-3)
        # antithetic pairs: the replicates' median is the estimate
        np.testing.assert_allclose(np.median(reps.aucs[:, :, i], axis=0), table[column], atol=1e-12)
    assert np.quantile(reps.overall, [0.05, 0.95]) == pytest.approx(table.attrs["overall_auc_ci"], abs=2e-3)


def test_the_count_table_path_gives_the_same_intervals():
    rng = np.random.default_rng(6)
    n = 1500
    group, y = rng.choice(["a", "b", "c", "d"], n), rng.integers(0, 2, n)
    s, w = rng.normal(y * 0.8, 1.0), rng.lognormal(0, 0.5, n)
    direct = fc.bias_auc_score(y, s, group, ci=0.95, n_boot=400, sample_weight=w)
    counted = fc.auc_counts(y, s, group, sample_weight=w).summarize(ci=0.95, n_boot=400)
    assert (counted.value, counted.ci_low, counted.ci_high) == pytest.approx(
        (direct.value, direct.ci_low, direct.ci_high), abs=1e-12)
    assert direct.ci_low < direct.value < direct.ci_high


def test_unit_weights_give_an_interval_like_the_bootstraps():
    """Unit weights: the drawn replicates' interval of the score is within a few thousandths of the bootstrap's."""
    rng = np.random.default_rng(9)
    n = 3000
    group, y = rng.choice(["a", "b", "c", "d"], n), rng.random(n) < 0.35
    s = rng.normal(y * 1.0, 1.0)
    boot = fc.bias_auc_score(y, s, group, ci=0.95, n_boot=1000)
    drawn = fc.bias_auc_score(y, s, group, ci=0.95, n_boot=1000, sample_weight=np.ones(n))
    assert drawn.value == pytest.approx(boot.value, abs=1e-12)
    assert (drawn.ci_low, drawn.ci_high) == pytest.approx((boot.ci_low, boot.ci_high), abs=5e-3)


@pytest.mark.full   # a coverage simulation: make test only (tests/tiers.py)
def test_coverage_of_the_weighted_bias_auc_score_when_weights_correct_a_sampling_bias():
    """Five groups of a population with known AUCs; the sample over-represents positives and the smallest group,
    and inverse inclusion probabilities undo it. The truth is the score on 1,000,000 population rows. Longer runs
    (benchmarks and docs/weights.md): 94.4 % / 94.7 % / 93.9 % at 400 / 1,000 / 3,000 rows (1,000 samples each)."""
    share, base = np.array([0.4, 0.25, 0.2, 0.1, 0.05]), np.array([0.3, 0.4, 0.2, 0.5, 0.35])
    mu, names = np.array([1.2, 1.0, 0.8, 1.4, 0.6]), np.array(list("abcde"))

    def population(rng, m):
        g = rng.choice(5, m, p=share)
        y = rng.random(m) < base[g]
        return g, y, rng.normal(y * mu[g], 1.0)

    g, y, s = population(np.random.default_rng(0), 1_000_000)
    truth = fc.bias_auc_score(y, s, names[g]).value
    below = above = 0
    n_sim = 200
    for i in range(n_sim):
        rng = np.random.default_rng(100 + i)
        g, y, s = population(rng, 6000)
        inclusion = np.where(y, 0.6, 0.3) * np.where(g == 4, 1.0, 0.5)
        kept = np.flatnonzero(rng.random(len(g)) < inclusion)[:1000]
        result = fc.bias_auc_score(y[kept], s[kept], names[g[kept]], ci=0.95, n_boot=300, include_small=True,
                                   sample_weight=1.0 / inclusion[kept])
        below += result.ci_high < truth
        above += result.ci_low > truth
    coverage = 1 - (below + above) / n_sim
    assert 0.9 <= coverage <= 0.99, (coverage, below, above)
    assert below > 0 and above > 0
