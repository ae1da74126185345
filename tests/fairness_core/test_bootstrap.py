"""Bootstrap intervals of composite numbers: the resampling itself, coverage, seeds, and COMPAS."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

import fairness_core as fc
from fairness_core._stats.auc_bootstrap import power_means
from fairness_core._stats.bootstrap import N_BOOT_MESSAGE, Atoms, percentile_interval
from fairness_core._disparity.compare import signed_distance
from tests.support import examples


def _frame(seed: int, n: int = 400):
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.4, 0.1])
    y = (rng.random(n) < np.where(g == "a", 0.3, 0.5)).astype(int)
    p = (rng.random(n) < np.where(y == 1, 0.7, np.where(g == "b", 0.4, 0.2))).astype(int)
    return y, p, g


def test_atoms_give_the_same_tables_as_the_masks():
    rng = np.random.default_rng(1)
    n = 500
    data = pd.DataFrame({"w": rng.random(n), "m": rng.random(n), "x": rng.random(n)})
    data.loc[rng.random(n) < 0.1, "m"] = np.nan  # rows in neither mask of "m"
    groups = fc.Subgroups.from_indicators(data, ["w", "m", "x"])
    cell = rng.integers(0, 4, n)
    atoms = Atoms.of(groups, cell, 4)
    member, background, overall = atoms.tables()
    expected_member, expected_background = groups.crosstab(cell, 4)
    np.testing.assert_array_equal(member, expected_member)
    np.testing.assert_array_equal(background, expected_background)
    np.testing.assert_array_equal(overall, np.bincount(cell, minlength=4))


def test_resampling_keeps_every_pattern_size_and_matches_the_multinomial_variance():
    y, p, g = _frame(2)
    counts = fc.confusion_counts(y, p, g)
    atoms = counts.atoms
    draws = np.concatenate(list(atoms.replicates(4000, np.random.default_rng(0))))
    # Stratified: every pattern keeps its row count in every replicate.
    np.testing.assert_array_equal(draws.sum(axis=2), np.broadcast_to(atoms.counts.sum(axis=1), draws.shape[:2]))
    # Each cell count of pattern c has the binomial variance n p (1 - p) of a row resample.
    n_c = atoms.counts[2].sum()
    share = atoms.counts[2] / n_c
    np.testing.assert_allclose(draws[:, 2].var(axis=0), n_c * share * (1 - share), rtol=0.1)


def test_replicate_tables_are_drawn_once_per_seed_and_read_by_every_statistic():
    """The tables of one draw are kept with the atoms: a second statistic from a generator in the same state reads
    them (the same replicates as drawing afresh: what another ConfusionCounts of the same rows gives), leaves the
    generator where the draw leaves it, and the caller gets its own, writable array."""
    from fairness_core._stats.bootstrap import replicate_stat

    y, p, g = _frame(3)
    kept = fc.confusion_counts(y, p, g).atoms
    first = replicate_stat(kept, lambda m, b, o: m[..., 0] / m.sum(-1), 300, np.random.default_rng(7))
    assert list(kept.memo) == ["tables"]
    rng = np.random.default_rng(7)
    again = replicate_stat(kept, lambda m, b, o: m, 300, rng)   # from the kept tables
    fresh_rng = np.random.default_rng(7)
    fresh = replicate_stat(fc.confusion_counts(y, p, g).atoms, lambda m, b, o: m, 300, fresh_rng)   # drawn anew
    np.testing.assert_array_equal(again, fresh)
    np.testing.assert_array_equal(first, fresh[..., 0] / fresh.sum(-1))
    assert rng.bit_generator.state == fresh_rng.bit_generator.state   # the generator moved on as if it had drawn
    again[0, 0, 0] += 1   # the caller's copy: the kept tables are read-only and unchanged
    np.testing.assert_array_equal(replicate_stat(kept, lambda m, b, o: m, 300, np.random.default_rng(7)), fresh)
    # another seed is another draw, which is the one kept from then on (one draw per atoms)
    assert not np.array_equal(replicate_stat(kept, lambda m, b, o: m, 300, np.random.default_rng(8)), fresh)
    assert kept.memo["tables"][0] == (300, repr(np.random.default_rng(8).bit_generator.state))


def test_large_tables_are_drawn_in_parallel_blocks_that_do_not_depend_on_the_machine(monkeypatch):
    from fairness_core._stats import bootstrap as _bootstrap

    rng = np.random.default_rng(5)
    atoms = Atoms(rng.integers(0, 50, size=(6, 40)).astype(np.float64), np.eye(6, dtype=bool), ~np.eye(6, dtype=bool))
    monkeypatch.setattr(_bootstrap, "BLOCK_CELLS", 10_000)   # 300 x 240 cells: 8 blocks (2 per worker of 4)

    def draws(workers):
        monkeypatch.setattr(_bootstrap, "_workers", lambda: workers)
        return list(atoms.replicates(300, np.random.default_rng(11)))

    one, four = draws(1), draws(4)
    assert len(one) == 8 and {len(b) for b in one} <= {37, 38}
    np.testing.assert_array_equal(np.concatenate(one), np.concatenate(four))  # the same seed, any CPU count
    reps = np.concatenate(one)
    np.testing.assert_array_equal(reps.sum(axis=2), np.broadcast_to(atoms.counts.sum(axis=1), (300, 6)))
    # The blocks are distinct draws (each from its own child generator), centred on the counts.
    assert not np.array_equal(one[0][:37], one[2][:37])
    n = atoms.counts.sum(axis=1, keepdims=True)
    se = np.sqrt(atoms.counts * (1 - atoms.counts / n) / 300)
    assert np.all(np.abs(reps.mean(axis=0) - atoms.counts) <= 5 * se + 1e-12)


def test_percentile_interval_matches_numpy_and_counts_undefined():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(1000, 3))
    x[:100, 1] = np.nan
    x[:, 2] = np.nan
    low, high, undefined = percentile_interval(x, 0.9)
    np.testing.assert_allclose(low[:2], np.nanpercentile(x[:, :2], 5, axis=0))
    np.testing.assert_allclose(high[:2], np.nanpercentile(x[:, :2], 95, axis=0))
    assert np.isnan(low[2]) and np.isnan(high[2])
    assert undefined.tolist() == [0, 100, 1000]


def test_signed_distance_gives_the_distance_back():
    a = np.array([0.2, 0.1, 0.0, 0.0, 0.3])
    b = np.array([0.1, 0.2, 0.0, 0.4, 0.0])
    np.testing.assert_allclose(np.abs(signed_distance(a, b, "diff")), fc.distance(a, b, "diff"))
    np.testing.assert_allclose(np.exp(np.abs(signed_distance(a, b, "ratio"))), fc.distance(a, b, "ratio"))


def test_same_seed_same_intervals_and_another_seed_differs():
    y, p, g = _frame(4)
    kw = dict(metric="false_positive_rate", distance_measure="ratio", reduction="max", ci=0.95)
    first = fc.rate_disparity(y, p, g, random_state=7, **kw)
    again = fc.rate_disparity(y, p, g, random_state=7, **kw)
    other = fc.rate_disparity(y, p, g, random_state=8, **kw)
    assert (first.ci_low, first.ci_high) == (again.ci_low, again.ci_high)
    pd.testing.assert_frame_equal(first.table, again.table)
    assert (first.ci_low, first.ci_high) != (other.ci_low, other.ci_high)
    assert first.level == 0.95 and first.n_boot == 1000


def test_interval_columns_and_their_consistency():
    y, p, g = _frame(5, n=2000)
    table = fc.rate_disparity(y, p, g, metric="false_positive_rate", reduction=None, ci=0.9)
    for side in ("subgroup_value", "reference_value", "disparity"):
        assert (table[f"{side}_ci_low"] <= table[side] + 1e-12).all()
        assert (table[f"{side}_ci_high"] >= table[side] - 1e-12).all()
    # Where parity is not excluded the lower bound is parity; where it is, it is above parity.
    excluded = table["excludes_parity"].to_numpy(dtype=bool)
    assert (table.loc[~excluded, "disparity_ci_low"] == 0).all()
    assert (table.loc[excluded, "disparity_ci_low"] > 0).all()


def test_ci_none_changes_nothing():
    y, p, g = _frame(6)
    plain = fc.rate_disparity(y, p, g, metric="true_positive_rate", reduction="mean")
    assert np.isnan(plain.ci_low) and plain.level is None and plain.n_boot == 0
    assert "disparity_ci_low" not in plain.table.columns


@pytest.mark.parametrize("bad", [0, 1, 99, 10.5, True, "1000"])
def test_bad_n_boot_is_refused(bad):
    y, p, g = _frame(7)
    with pytest.raises(ValueError) as err:
        fc.rate_disparity(y, p, g, metric="error_rate", ci=0.95, n_boot=bad)
    assert str(err.value) == N_BOOT_MESSAGE.format(func="rate_disparity", got=bad)


def test_adjustments_widen_intervals_and_count_comparisons():
    y, p, g = _frame(8, n=3000)
    kw = dict(metric="false_positive_rate", reduction=None, reference="pairwise", ci=0.95)
    plain = fc.rate_disparity(y, p, g, **kw)
    bonf = fc.rate_disparity(y, p, g, adjust="bonferroni", **kw)
    bh = fc.rate_disparity(y, p, g, adjust="fdr_bh", **kw)
    assert bonf.attrs["n_comparisons"] == 3 and bonf.attrs["row_level"] == pytest.approx(1 - 0.05 / 3)
    assert (bonf["disparity_ci_high"] >= plain["disparity_ci_high"] - 1e-12).all()
    rejected = int(bh["excludes_parity"].sum())
    assert bh.attrs["row_level"] == pytest.approx(1 - max(rejected, 1) * 0.05 / 3)
    with pytest.raises(ValueError, match="'adjust'"):
        fc.rate_disparity(y, p, g, adjust="sidak", **kw)


def test_mean_leaves_infinite_ratios_out_and_counts_them():
    y = [1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0]
    p = [0, 0, 0, 0, 1, 1, 1, 0, 1, 0, 1, 0]
    g = ["a"] * 4 + ["b"] * 4 + ["c"] * 4
    table = fc.true_positive_rate_disparity(y, p, g, distance_measure="ratio", reduction=None)
    assert np.isinf(table["disparity"].iloc[0])  # a: TPR 0 against the rest's 3/4
    mean = fc.true_positive_rate_disparity(y, p, g, distance_measure="ratio", reduction="mean")
    finite = table["disparity"].iloc[1:]
    assert mean.value == pytest.approx(finite.mean()) and mean.n_infinite == 1 and mean.n_used == 2
    top = fc.true_positive_rate_disparity(y, p, g, distance_measure="ratio", reduction="max")
    assert np.isinf(top.value) and top.worst == ("a", "rest")


def test_equalized_odds_interval_contains_its_value():
    y, p, g = _frame(9, n=3000)
    result = fc.equalized_odds(y, p, g, reduction="max", ci=0.95)
    assert result.ci_low <= result.value <= result.ci_high
    for col in ("disparity_ci_low", "disparity_ci_high", "excludes_parity", "small_reason"):
        assert col in result.table.columns


def test_compas_fpr_ratio_and_small_subgroup(compas):
    groups = fc.Subgroups.from_attributes(compas, ["race"], min_size=30)
    y, p = compas["two_year_recid"], (compas["decile_score"] >= 5).astype(int)
    result = fc.false_positive_rate_disparity(y, p, groups, distance_measure="ratio", reduction="max", ci=0.95)
    row = result.table.set_index("subgroup").loc["African-American"]
    negatives = compas[compas["two_year_recid"] == 0]
    own = negatives["race"] == "African-American"
    a, b = (negatives.loc[own, "decile_score"] >= 5).mean(), (negatives.loc[~own, "decile_score"] >= 5).mean()
    assert row["disparity"] == pytest.approx(a / b, abs=1e-12)
    assert row["disparity_ci_low"] > 1 and bool(row["excludes_parity"])
    assert (row["denominator"], row["reference_denominator"]) == (own.sum(), (~own).sum())
    native = result.table.set_index("subgroup").loc["Native American"]
    assert bool(native["small"]) and native["small_reason"] == "18 rows < minimum 30"
    assert result.worst[0] != "Native American" and result.n_small_excluded >= 1


def _draw_binormal(rng, n_a=300, n_b=700):
    """Two subgroups; scores N(d_g * y, 1); labels with base rate 0.4."""
    g = np.array(["a"] * n_a + ["b"] * n_b)
    y = (rng.random(len(g)) < 0.4).astype(int)
    d = np.where(g == "a", 0.8, 1.4)
    s = rng.normal(size=len(g)) + d * y
    return y, s, g


@pytest.mark.full   # a coverage simulation: make test only (tests/tiers.py)
def test_coverage_of_the_fpr_ratio_interval():
    """300 seeded datasets: the 95 % interval of a's FPR ratio covers the true ratio 92-98 % of the time."""
    rng = np.random.default_rng(11)
    true_a, true_b = 1 - norm.cdf(0.5), 1 - norm.cdf(0.9)  # threshold 0.5 on N(0, 1) vs N(0, 1)
    hits = 0
    for _ in range(300):
        n = 1000
        g = np.where(rng.random(n) < 0.3, "a", "b")
        y = (rng.random(n) < 0.4).astype(int)
        s = rng.normal(size=n) + np.where(g == "b", -0.4, 0.0) + 2 * y
        p = (s >= 0.5).astype(int)
        table = fc.false_positive_rate_disparity(y, p, g, distance_measure="ratio", reduction=None, ci=0.95,
                                                 n_boot=400, random_state=int(rng.integers(1 << 31)))
        row = table.iloc[0]
        hits += row["disparity_ci_low"] <= true_a / true_b <= row["disparity_ci_high"]
    assert 0.92 * 300 <= hits <= 0.98 * 300


@pytest.mark.full   # a coverage simulation: make test only (tests/tiers.py)
def test_coverage_of_subgroup_auc_and_bias_auc_score():
    """Seeded simulation: DeLong interval of a subgroup AUC and the bootstrap interval of the bias AUC
    score cover the true values (closed form, and a 2-million-row estimate) in 92-98 % of datasets."""
    rng = np.random.default_rng(12)
    y_big, s_big, g_big = _draw_binormal(np.random.default_rng(99), 600_000, 1_400_000)
    true_score = fc.bias_auc_score(y_big, s_big, g_big, p=-5).value
    true_auc_a = norm.cdf(0.8 / np.sqrt(2))
    hits_auc = hits_score = 0
    for _ in range(300):
        y, s, g = _draw_binormal(rng)
        result = fc.bias_auc_score(y, s, g, p=-5, ci=0.95, n_boot=300, random_state=int(rng.integers(1 << 31)))
        row = result.table.iloc[0]
        hits_auc += row["subgroup_auc_ci_low"] <= true_auc_a <= row["subgroup_auc_ci_high"]
        hits_score += result.ci_low <= true_score <= result.ci_high
    assert 0.92 * 300 <= hits_auc <= 0.98 * 300
    assert 0.92 * 300 <= hits_score <= 0.98 * 300


def test_bias_auc_interval_follows_p_without_recomputing():
    y, s, g = _draw_binormal(np.random.default_rng(13))
    table = fc.bias_auc_table(y, s, g, ci=0.95, n_boot=500)
    reps = table.attrs["replicates"]
    assert reps.aucs.shape == (500, 2, 3) and reps.overall.shape == (500,)
    low_p = fc.summarize_bias_auc(table, p=-5)
    high_p = fc.summarize_bias_auc(table, p=5)
    assert low_p.ci_low <= low_p.value <= low_p.ci_high and high_p.ci_low <= high_p.value <= high_p.ci_high
    assert low_p.value < high_p.value
    assert table.attrs["replicates"] is reps  # nothing recomputed
    # The replicates are centred on the exact AUCs.
    np.testing.assert_allclose(np.median(reps.aucs, axis=0), table[["subgroup_auc", "bpsn_auc", "bnsp_auc"]],
                               atol=0.01)


@settings(max_examples=examples(200), deadline=None)
@given(values=st.lists(st.floats(0, 1), min_size=1, max_size=12),
       p=st.sampled_from([1e-15, -1e-15, 1000.0, -1000.0, np.inf, -np.inf, -5.0, 0.0, 1.0, 2.5]))
def test_power_mean_lies_between_min_and_max(values, p):
    m = fc.power_mean(values, p)
    assert min(values) - 1e-12 <= m <= max(values) + 1e-12


def test_power_mean_defects_of_the_literal_formula():
    assert fc.power_mean([0.4, 0.9], -1000) == pytest.approx(0.4, abs=1e-3)
    assert fc.power_mean([0.4, 0.9], 1e-15) == pytest.approx(0.6, abs=1e-12)  # geometric mean
    assert fc.power_mean([0.4, 0.9], -np.inf) == 0.4 and fc.power_mean([0.4, 0.9], np.inf) == 0.9
    np.testing.assert_allclose(power_means(np.array([[0.5, 1.0], [0.2, 0.3]]), 1), [0.75, 0.25])


def test_pattern_sums_of_the_auc_bootstrap_equal_the_einsum_exactly():
    from fairness_core._stats.auc_bootstrap import _over_patterns

    rng = np.random.default_rng(9)
    counts = rng.integers(0, 1000, size=(3, 40, 16, 2)).astype(np.float64)
    masks = rng.random((40, 7)) < 0.3
    expected = np.einsum("...pls,pk->...kls", counts, masks.astype(np.float64))
    np.testing.assert_array_equal(_over_patterns(counts, masks.astype(np.float64)), expected)


def test_bias_corrected_interval_is_efrons_bc_and_the_percentile_interval_when_centred():
    from scipy.stats import norm

    from fairness_core._stats.bootstrap import bias_corrected_interval, percentile_interval

    rng = np.random.default_rng(5)
    reps = rng.normal(0.0, 1.0, size=(2001, 2))
    reps[:, 1] -= 0.3                       # the second statistic's replicates sit below its estimate
    reps[7, 0] = np.nan                     # an undefined replicate, counted and left out
    estimate = np.array([np.nanmedian(reps[:, 0]), 0.0])
    low, high, undefined = bias_corrected_interval(reps, estimate, 0.9)
    p_low, p_high, _ = percentile_interval(reps, 0.9)
    assert undefined.tolist() == [1, 0]
    # centred on its estimate (z0 = 0): the percentile interval
    assert low[0] == pytest.approx(p_low[0], abs=1e-12) and high[0] == pytest.approx(p_high[0], abs=1e-12)
    # the literal formula: z0 from the share below the estimate, percentiles at Phi(2 z0 -/+ 1.645)
    z0 = norm.ppf(np.mean(reps[:, 1] < 0.0))
    expected = np.quantile(reps[:, 1], norm.cdf([2 * z0 + norm.ppf(0.05), 2 * z0 + norm.ppf(0.95)]))
    assert (low[1], high[1]) == pytest.approx(tuple(expected), abs=1e-12)
    assert low[1] > p_low[1] and high[1] > p_high[1]   # moved up, towards the estimate's side
    # fewer than two defined replicates, or no estimate: NaN bounds
    low, high, _ = bias_corrected_interval(np.array([[1.0, np.nan], [np.nan, np.nan]]), np.array([1.0, np.nan]), 0.95)
    assert np.isnan(low).all() and np.isnan(high).all()
