"""Intervals of the dataset metrics: dataset statistical parity and the smoothed EDF.

Checked against statsmodels' Wilson interval (base rates), exact binomial quantiles (each subgroup's
smoothed rates: with subgroup sizes fixed, a resampled positive count is Binomial(n_g, p_g)), and a
brute-force bootstrap written here that resamples rows within each subgroup in a Python loop and
recomputes the statistic from its definition.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

import fairness_core as fc
from fairness_core._stats.bootstrap import N_BOOT_MESSAGE, SEED_MESSAGE
from fairness_core._metrics.smoothed_edf import EDF_OVERLAP_MESSAGE
from fairness_core._stats.intervals import CI_MESSAGE

TOL = 1e-12


def quantile_band(samples, q, estimate=None, z=4.0):
    """Where another bootstrap's q-quantile may fall, from these samples alone (distribution-free): the
    sorted samples z standard deviations of the rank (sqrt(2 B q (1 - q)) for two independent bootstraps)
    either side of rank q (B - 1); widened to the estimate as the library's intervals are."""
    x = np.sort(np.asarray(samples, float)[~np.isnan(samples)])
    b = len(x)
    spread = z * math.sqrt(2 * b * q * (1 - q))
    lo = x[max(0, int(math.floor(q * (b - 1) - spread)))]
    hi = x[min(b - 1, int(math.ceil(q * (b - 1) + spread)))]
    if estimate is not None:
        lo, hi = (min(lo, estimate), min(hi, estimate)) if q < 0.5 else (max(lo, estimate), max(hi, estimate))
    return lo, hi


def assert_in_bands(low, high, samples, level, estimate=None, what=""):
    for bound, q in ((low, (1 - level) / 2), (high, (1 + level) / 2)):
        lo, hi = quantile_band(samples, q, estimate)
        assert lo - TOL <= bound <= hi + TOL, (what, q, bound, lo, hi)


def literal_edf(y, groups, names, concentration):
    """Largest |ln s_i(o) - ln s_j(o)| over pairs of `names` and both outcomes, by a double loop."""
    alpha = concentration / 2
    rates = {}
    for name in names:
        labels = [v for v, g in zip(y, groups) if g == name]
        n, pos = len(labels), sum(labels)
        rates[name] = {1: (pos + alpha) / (n + 2 * alpha), 0: (n - pos + alpha) / (n + 2 * alpha)}
    return max(abs(math.log(rates[a][o]) - math.log(rates[b][o])) for a in names for b in names for o in (0, 1))


def resample_within(y, groups, names, n_boot, seed):
    """Labels of n_boot stratified row resamples: {name: list of label lists}, a Python loop over replicates."""
    rng = np.random.default_rng(seed)
    rows = {g: [v for v, h in zip(y, groups) if h == g] for g in names}
    return [{g: [r[i] for i in rng.integers(0, len(r), len(r))] for g, r in rows.items()} for _ in range(n_boot)]


@pytest.fixture(scope="module")
def labels_case():
    """Four subgroups of 300, 120, 40 and 12 rows with base rates about 0.3, 0.45, 0.5 and 0.6."""
    rng = np.random.default_rng(11)
    y, g = [], []
    for name, n, p in (("a", 300, 0.3), ("b", 120, 0.45), ("c", 40, 0.5), ("d", 12, 0.6)):
        y += (rng.random(n) < p).astype(int).tolist()
        g += [name] * n
    return y, g


# --------------------------------------------------------------------------------------------
# Smoothed EDF
# --------------------------------------------------------------------------------------------


def test_edf_point_estimate_and_table_are_unchanged_by_intervals(labels_case):
    y, g = labels_case
    plain = fc.smoothed_edf(y, g, concentration=2.0)
    result = fc.smoothed_edf(y, g, concentration=2.0, ci=0.9, n_boot=300)
    assert (result.value, result.pair, result.outcome, result.n_used) == (plain.value, plain.pair, plain.outcome,
                                                                          plain.n_used)
    assert list(result.table.columns) == [
        "subgroup", "size", "n_positive", "n_negative", "smoothed_positive_rate", "smoothed_positive_rate_ci_low",
        "smoothed_positive_rate_ci_high", "smoothed_negative_rate", "smoothed_negative_rate_ci_low",
        "smoothed_negative_rate_ci_high", "small", "used", "note"]
    pd.testing.assert_frame_equal(result.table[plain.table.columns], plain.table)
    assert (result.level, result.n_boot, result.n_boot_undefined) == (0.9, 300, 0)
    assert result.table.attrs["ci"] == 0.9
    assert math.isnan(plain.ci_low) and plain.level is None and plain.n_boot == 0


def test_smoothed_rate_intervals_are_binomial_quantiles(labels_case):
    # With the subgroup's size n fixed, a resampled positive count is Binomial(n, k / n), so the
    # percentile interval of (k* + alpha) / (n + 2 alpha) approaches the binomial quantiles. Two
    # neighbouring values of the discrete distribution differ by 1 / (n + 2 alpha): the bounds must
    # lie within one such step of the exact quantiles.
    y, g = labels_case
    level, concentration = 0.95, 1.0
    alpha = concentration / 2
    table = fc.smoothed_edf(y, g, concentration=concentration, ci=level, n_boot=4000).table
    assert table["subgroup"].tolist() == ["a", "b", "c", "d"] and table["size"].tolist() == [300, 120, 40, 12]
    for _, row in table.iterrows():
        n, k = row["size"], row["n_positive"]
        step = 1 / (n + 2 * alpha)
        q_low, q_high = binom.ppf([(1 - level) / 2, (1 + level) / 2], n, k / n)
        assert abs(row["smoothed_positive_rate_ci_low"] - (q_low + alpha) * step) <= step + TOL
        assert abs(row["smoothed_positive_rate_ci_high"] - (q_high + alpha) * step) <= step + TOL
        # the negative rate is one minus the positive rate in every replicate
        assert row["smoothed_negative_rate_ci_low"] == pytest.approx(1 - row["smoothed_positive_rate_ci_high"],
                                                                     abs=1e-9)


def test_edf_interval_matches_a_row_level_bootstrap(labels_case):
    y, g = labels_case
    names, level, n_boot = ["a", "b", "c", "d"], 0.95, 4000
    sub = fc.Subgroups.from_attributes(pd.DataFrame({"g": g}), ["g"], min_size=1)
    result = fc.smoothed_edf(y, sub, ci=level, n_boot=n_boot, random_state=0)
    estimate = literal_edf(y, g, names, 1.0)
    assert result.value == pytest.approx(estimate, abs=TOL)
    samples = [literal_edf([v for h in names for v in rep[h]], [h for h in names for _ in rep[h]], names, 1.0)
               for rep in resample_within(y, g, names, n_boot, 1)]
    assert_in_bands(result.ci_low, result.ci_high, samples, level, estimate, "epsilon")
    assert result.ci_low <= result.value <= result.ci_high and result.n_boot_undefined == 0


def test_edf_leaves_small_subgroups_out_of_the_interval_too(labels_case):
    y, g = labels_case
    sub = fc.Subgroups.from_attributes(pd.DataFrame({"g": g}), ["g"], min_size=30)  # d (12 rows) is small
    result = fc.smoothed_edf(y, sub, ci=0.95, n_boot=2000)
    names = ["a", "b", "c"]
    assert result.value == pytest.approx(literal_edf(y, g, names, 1.0), abs=TOL)
    samples = [literal_edf([v for h in names for v in rep[h]], [h for h in names for _ in rep[h]], names, 1.0)
               for rep in resample_within(y, g, names, 2000, 2)]
    assert_in_bands(result.ci_low, result.ci_high, samples, 0.95, result.value)
    # the small subgroup still gets its own rate intervals
    assert result.table.set_index("subgroup").loc["d", ["smoothed_positive_rate_ci_low",
                                                         "smoothed_positive_rate_ci_high"]].notna().all()


def test_edf_stratification_keeps_a_two_row_subgroup():
    # 'tiny' has two rows (labels 1 and 0); stratified, it always has two rows, so its smoothed positive
    # rate (k + 1/2) / 3 takes only the values 1/6, 1/2, 5/6 (k = 0, 1, 2), and epsilon is always defined.
    y = [1, 0] + [1, 0, 0, 0] * 50
    g = ["tiny", "tiny"] + ["big"] * 200
    result = fc.smoothed_edf(y, g, ci=0.95, n_boot=2000)
    assert result.n_boot_undefined == 0 and result.n_used == 2
    tiny = result.table.set_index("subgroup").loc["tiny"]
    assert tiny["smoothed_positive_rate_ci_low"] == pytest.approx(1 / 6, abs=TOL)
    assert tiny["smoothed_positive_rate_ci_high"] == pytest.approx(5 / 6, abs=TOL)


def test_edf_with_fewer_than_two_usable_subgroups_has_no_interval():
    result = fc.smoothed_edf([1, 0, 1], ["a", "a", "a"], ci=0.95, n_boot=100)
    assert math.isnan(result.value) and math.isnan(result.ci_low) and math.isnan(result.ci_high)
    assert result.n_boot_undefined == 100 and result.n_boot == 100
    frame = pd.DataFrame({"u": [1.0, 1.0, 0.0], "v": [0.0, 0.0, 0.0]})  # v has no members
    empty = fc.smoothed_edf([1, 0, 1], fc.Subgroups.from_indicators(frame, ["u", "v"], min_size=1), ci=0.95,
                            n_boot=100)
    v = empty.table.set_index("subgroup").loc["v"]
    assert v["size"] == 0 and math.isnan(v["smoothed_positive_rate_ci_low"])


def test_edf_same_seed_same_interval(labels_case):
    y, g = labels_case
    first, second, other = (fc.smoothed_edf(y, g, ci=0.95, n_boot=500, random_state=s) for s in (7, 7, 8))
    assert (first.ci_low, first.ci_high) == (second.ci_low, second.ci_high)
    pd.testing.assert_frame_equal(first.table, second.table)
    assert (first.ci_low, first.ci_high) != (other.ci_low, other.ci_high)


def test_edf_interval_options_are_checked_and_overlap_is_still_refused(labels_case):
    y, g = labels_case
    with pytest.raises(ValueError) as info:
        fc.smoothed_edf(y, g, ci=95)
    assert str(info.value) == CI_MESSAGE.format(func="smoothed_edf", got=95)
    with pytest.raises(ValueError) as info:
        fc.smoothed_edf(y, g, ci=0.95, n_boot=50)
    assert str(info.value) == N_BOOT_MESSAGE.format(func="smoothed_edf", got=50)
    with pytest.raises(ValueError) as info:
        fc.smoothed_edf(y, g, ci=0.95, random_state=-1)
    assert str(info.value) == SEED_MESSAGE.format(func="smoothed_edf", got=-1)
    frame = pd.DataFrame({"female": [1, 1, 0], "black": [1, 0, 1]})
    with pytest.raises(ValueError) as info:
        fc.smoothed_edf([1, 0, 1], fc.Subgroups.from_indicators(frame, ["female", "black"], min_size=1), ci=0.95)
    assert str(info.value) == EDF_OVERLAP_MESSAGE.format(n_rows=1, first="female", second="black")


# --------------------------------------------------------------------------------------------
# Dataset statistical parity
# --------------------------------------------------------------------------------------------


def test_parity_point_estimates_are_unchanged_by_intervals(labels_case):
    y, g = labels_case
    for reference in ("rest", "overall", "pairwise", "a"):
        plain = fc.dataset_statistical_parity(y, g, reference=reference, reduction=None)
        table = fc.dataset_statistical_parity(y, g, reference=reference, reduction=None, ci=0.95, n_boot=200)
        pd.testing.assert_frame_equal(table[plain.columns], plain)
        assert {"subgroup_value_ci_low", "reference_value_ci_high", "disparity_ci_low", "disparity_ci_high",
                "p_value", "excludes_parity"} <= set(table.columns)
        assert table.attrs["ci"] == 0.95


def test_parity_value_intervals_are_wilson_and_disparity_intervals_match_a_row_level_bootstrap(labels_case):
    y, g = labels_case
    names, level, n_boot = ["a", "b", "c", "d"], 0.95, 4000
    result = fc.dataset_statistical_parity(y, g, reference="rest", reduction="max", ci=level, n_boot=n_boot)
    table = result.table.set_index("subgroup")
    frame = pd.DataFrame({"y": y, "g": g})
    for name in names:
        k, n = frame.loc[frame["g"] == name, "y"].sum(), (frame["g"] == name).sum()
        low, high = proportion_confint(k, n, alpha=1 - level, method="wilson")
        assert table.loc[name, "subgroup_value_ci_low"] == pytest.approx(low, abs=TOL)
        assert table.loc[name, "subgroup_value_ci_high"] == pytest.approx(high, abs=TOL)
        k, n = frame.loc[frame["g"] != name, "y"].sum(), (frame["g"] != name).sum()
        low, high = proportion_confint(k, n, alpha=1 - level, method="wilson")
        assert table.loc[name, "reference_value_ci_low"] == pytest.approx(low, abs=TOL)
    # brute force: resample rows within each subgroup; per subgroup |rate - rate of the rest|; the max
    reps = resample_within(y, g, names, n_boot, 3)
    diffs = np.array([[abs(np.mean(rep[h]) - np.mean([v for o in names if o != h for v in rep[o]])) for h in names]
                      for rep in reps])
    # The max's interval: the largest high end of the comparisons' intervals at `level`, and the largest low end at
    # their simultaneous level, which lies between `level` and Bonferroni's (so its low end between theirs).
    wide = fc.dataset_statistical_parity(y, g, reference="rest", reduction=None, ci=1 - (1 - level) / len(names),
                                         n_boot=n_boot)
    assert result.ci_high == max(table["disparity_ci_high"].max(), result.value)
    assert (min(wide["disparity_ci_low"].max(), result.value) <= result.ci_low
            <= min(table["disparity_ci_low"].max(), result.value))
    for i, name in enumerate(names):
        row = table.loc[name]
        if row["excludes_parity"]:
            # the union of the percentile interval and Newcombe's hybrid score (MOVER) interval of the two rates
            k1, n1 = frame.loc[frame["g"] == name, "y"].sum(), (frame["g"] == name).sum()
            k2, n2 = frame.loc[frame["g"] != name, "y"].sum(), (frame["g"] != name).sum()
            signed = confint_proportions_2indep(k1, n1, k2, n2, method="newcomb", compare="diff", alpha=1 - level)
            mover = sorted(abs(v) for v in signed)
            for bound, q, join in ((row["disparity_ci_low"], (1 - level) / 2, min),
                                   (row["disparity_ci_high"], (1 + level) / 2, max)):
                lo, hi = quantile_band(diffs[:, i], q)
                side = mover[0] if join is min else mover[1]
                assert join(lo, side) - TOL <= bound <= join(hi, side) + TOL, (name, q, bound, lo, hi, side)
        else:  # parity not excluded: the low end is the parity value, and the signed difference straddles 0
            assert row["disparity_ci_low"] == 0.0
            signed = np.array([np.mean(rep[name]) - np.mean([v for o in names if o != name for v in rep[o]])
                               for rep in reps])
            lo, hi = np.percentile(signed, [2.5, 97.5])
            assert lo < 0 < hi, name  # (here subgroup c, bootstrap p-value 0.9)
    assert not table.loc["c", "excludes_parity"] and table.loc["a", "excludes_parity"]


def test_parity_is_the_selection_rate_parity_of_the_labels_with_intervals(labels_case):
    # one code path: the labels' own confusion counts, the same bootstrap draws for the same seed
    y, g = labels_case
    result = fc.dataset_statistical_parity(y, g, distance_measure="ratio", reduction="mean", reference="pairwise",
                                           ci=0.9, n_boot=300, random_state=5, adjust="holm")
    counts = fc.confusion_counts(y, y, g)
    same = counts.disparity("statistical_parity", distance_measure="ratio", reduction="mean", reference="pairwise",
                            ci=0.9, n_boot=300, random_state=5, adjust="holm")
    assert (result.value, result.ci_low, result.ci_high) == (same.value, same.ci_low, same.ci_high)
    assert result.adjust == "holm" and result.table.attrs["n_comparisons"] == 6
    np.testing.assert_array_equal(result.table["disparity_ci_high"], same.table["disparity_ci_high"])


def test_parity_notes_speak_of_base_rates():
    frame = pd.DataFrame({"u": [1.0, 1.0, 0.0, 0.0], "v": [0.0, 0.0, 0.0, 0.0]})  # v has no members
    sub = fc.Subgroups.from_indicators(frame, ["u", "v"], min_size=1)
    table = fc.dataset_statistical_parity([1, 0, 1, 1], sub, reduction=None, ci=0.95, n_boot=100)
    note = table.set_index("subgroup").loc["v", "note"]
    assert note.startswith("base rate undefined: no rows") and "selection rate" not in note
    assert table.attrs["ci"] == 0.95


def test_parity_same_seed_same_intervals(labels_case):
    y, g = labels_case
    runs = [fc.dataset_statistical_parity(y, g, reduction="max", ci=0.95, n_boot=300, random_state=s)
            for s in (1, 1, 2)]
    assert (runs[0].ci_low, runs[0].ci_high) == (runs[1].ci_low, runs[1].ci_high)
    assert (runs[0].ci_low, runs[0].ci_high) != (runs[2].ci_low, runs[2].ci_high)


@pytest.mark.parametrize("status", ["pass", "fail", "inconclusive"])
def test_parity_policy_verdicts(labels_case, status):
    y, g = labels_case
    result = fc.dataset_statistical_parity(y, g, reduction="max", ci=0.95)
    bound = {"pass": result.ci_high + 0.01, "fail": result.ci_low - 0.01,
             "inconclusive": (result.ci_low + result.ci_high) / 2}[status]
    verdict = fc.evaluate_result(fc.Rule(metric="dataset_statistical_parity", distance_measure="diff",
                                         bound=round(bound, 4)), result)
    assert verdict.status == status
    ratio = fc.dataset_statistical_parity(y, g, distance_measure="ratio", reduction="max", ci=0.95)
    with pytest.raises(ValueError, match="never compared with a difference bound"):
        fc.evaluate_result(fc.Rule(metric="dataset_statistical_parity", distance_measure="diff", bound=0.1), ratio)
    band = fc.evaluate_result(fc.Rule.ratio_within("dataset_statistical_parity"), ratio)
    expected = "pass" if ratio.ci_high <= 1.25 else "fail" if ratio.ci_low > 1.25 else "inconclusive"
    assert band.status == expected


def test_compas_base_rate_parity_with_intervals(compas):
    sub = fc.Subgroups.from_attributes(compas, ["race"])  # Native American (18 rows) is small
    y = compas["two_year_recid"]
    result = fc.dataset_statistical_parity(y, sub, reduction="max", ci=0.95)
    # The max is driven by Asian (32 rows), whose interval is wide; African-American's (3,696 rows) is narrow.
    assert result.worst == ("Asian", "rest")
    table = result.table.set_index("subgroup")
    width = table["disparity_ci_high"] - table["disparity_ci_low"]
    assert width["Asian"] > 5 * width["African-American"]
    row = table.loc["African-American"]
    assert bool(row["excludes_parity"]) and row["disparity_ci_low"] > 0.1
    native = table.loc["Native American"]
    assert bool(native["small"]) and native["small_reason"] == "18 rows < minimum 30"
    assert result.n_small_excluded == 1 and result.ci_low <= result.value <= result.ci_high
    edf = fc.smoothed_edf(y, sub, ci=0.95)
    assert edf.ci_low <= edf.value <= edf.ci_high and edf.n_boot_undefined == 0
