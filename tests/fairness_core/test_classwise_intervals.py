"""Intervals of class-wise bias: Wilson intervals of recall and precision, bootstrap intervals of
the F-score, of each class's reduced value and of the unweighted average bias, and the findings sentences.

The bootstrap is checked against a brute-force bootstrap written here: rows resampled with replacement
within each subgroup (a Python loop over replicates) and the unweighted average bias recomputed from its
definition on every resample; the percentile intervals of the two must agree within Monte Carlo error.
Wilson intervals are checked against statsmodels; undefined replicates against their exact probability.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

import fairness_core as fc
from fairness_core._stats.bootstrap import N_BOOT_MESSAGE
from fairness_core._metrics.classwise import CALLABLE_CI_MESSAGE, NO_ATOMS_MESSAGE, ClassCounts
from fairness_core._stats.intervals import CI_MESSAGE

TOL = 1e-12
# Two independent bootstraps of 4,000 replicates: their interval ends differ by Monte Carlo error only
# (about 0.002 for the unweighted average bias here, measured over 20 seeds); 0.01 is about four
# standard deviations of the difference.
MC_TOL = 0.01


# --------------------------------------------------------------------------------------------
# Literal definitions and a brute-force bootstrap
# --------------------------------------------------------------------------------------------


def literal_scores(rows, labels, metric):
    """Score of every class on (truth, prediction) pairs, from the definitions (NaN when undefined)."""
    out = {}
    for c in labels:
        tp = sum(1 for t, p in rows if t == c and p == c)
        n_true = sum(1 for t, _ in rows if t == c)
        n_pred = sum(1 for _, p in rows if p == c)
        num, den = {"recall": (tp, n_true), "precision": (tp, n_pred), "fscore": (2 * tp, n_true + n_pred)}[metric]
        out[c] = num / den if den else math.nan
    return out


def literal_uab(by_group, labels, metric, reduction):
    """(value, {class: reduced value}) of audmetric's algorithm on rows grouped by subgroup (in order)."""
    scores = {g: literal_scores(rows, labels, metric) for g, rows in by_group.items()}
    per = {}
    for c in labels:
        values = [scores[g][c] for g in by_group if not math.isnan(scores[g][c])]
        if len(values) < 2:
            per[c] = math.nan
        elif reduction == "std":
            mean = sum(values) / len(values)
            per[c] = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
        else:
            per[c] = values[0] - values[1]
    kept = [v for v in per.values() if not math.isnan(v)]
    return (sum(kept) / len(kept) if kept else math.nan), per


def brute_force(truth, prediction, groups, order, labels, metric, reduction, n_boot, seed):
    """Row-level bootstrap stratified by subgroup: each subgroup's rows drawn with replacement, n_g of them.

    Returns (values (n_boot,), per-class values (n_boot, n_classes), F-scores {(g, c): (n_boot,)}, scores of
    `metric` (n_boot, n_subgroups, n_classes)).
    """
    rng = np.random.default_rng(seed)
    rows = {g: [(t, p) for t, p, h in zip(truth, prediction, groups) if h == g] for g in order}
    values, per_class, fscores, scores = [], [], {(g, c): [] for g in order for c in labels}, []
    for _ in range(n_boot):
        sample = {g: [r[i] for i in rng.integers(0, len(r), len(r))] for g, r in rows.items()}
        value, per = literal_uab(sample, labels, metric, reduction)
        values.append(value)
        per_class.append([per[c] for c in labels])
        scores.append([[literal_scores(sample[g], labels, metric)[c] for c in labels] for g in order])
        for g in order:
            f = literal_scores(sample[g], labels, "fscore")
            for c in labels:
                fscores[g, c].append(f[c])
    return (np.array(values), np.array(per_class), {k: np.array(v) for k, v in fscores.items()},
            np.array(scores, dtype=float))


def std_test_p_values(scores, estimates):
    """Per class, the p-value of a bootstrap test of equal scores: the share of centred replicates (each subgroup's
    resampled score minus its estimate) whose standard deviation across subgroups reaches the estimated one,
    as (1 + count) / (1 + defined replicates). `scores` (n_boot, n_subgroups, n_classes), `estimates`
    (n_subgroups, n_classes)."""
    centred = scores - estimates[None]
    defined = ~np.isnan(centred)
    n = defined.sum(axis=1)
    mean = np.where(defined, centred, 0).sum(axis=1) / np.maximum(n, 1)
    null = np.sqrt((np.where(defined, centred - mean[:, None], 0) ** 2).sum(axis=1) / np.maximum(n, 1))
    null = np.where(n >= 2, null, np.nan)
    kept = ~np.isnan(estimates)
    observed = np.array([np.std(estimates[kept[:, k], k]) for k in range(estimates.shape[1])])
    return (1 + ((null >= observed - 1e-12) & ~np.isnan(null)).sum(axis=0)) / (1 + (~np.isnan(null)).sum(axis=0))


def percentile(samples, level, estimate=None):
    """Percentile interval of the defined samples (numpy's linear interpolation), widened to the estimate."""
    x = np.asarray(samples, float)
    x = x[~np.isnan(x)]
    low, high = np.percentile(x, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    if estimate is not None:
        low, high = min(low, estimate), max(high, estimate)
    return low, high


def quantile_band(samples, q, estimate=None, z=4.0):
    """Where another bootstrap's q-quantile may fall, from these samples alone (distribution-free).

    The rank of the q-quantile of B draws has standard deviation sqrt(B q (1 - q)); two independent
    bootstraps differ by sqrt(2) times that. The band runs between the sorted samples z such standard
    deviations either side of rank q (B - 1), so it also covers a discrete statistic whose quantile can
    jump between neighbouring values. Widened to the estimate as the library's intervals are.
    """
    x = np.sort(np.asarray(samples, float)[~np.isnan(samples)])
    b = len(x)
    spread = z * math.sqrt(2 * b * q * (1 - q))
    lo = x[max(0, int(math.floor(q * (b - 1) - spread)))]
    hi = x[min(b - 1, int(math.ceil(q * (b - 1) + spread)))]
    if estimate is not None:
        lo, hi = (min(lo, estimate), min(hi, estimate)) if q < 0.5 else (max(lo, estimate), max(hi, estimate))
    return lo, hi


def assert_interval_in_bands(low, high, samples, level, estimate=None, what=""):
    for bound, q in ((low, (1 - level) / 2), (high, (1 + level) / 2)):
        lo, hi = quantile_band(samples, q, estimate)
        assert lo - TOL <= bound <= hi + TOL, (what, q, bound, lo, hi)


@pytest.fixture(scope="module")
def small_case():
    """Three classes, three subgroups of 40, 30 and 15 rows with different accuracies."""
    rng = np.random.default_rng(5)
    truth, prediction, groups = [], [], []
    for g, n, accuracy in (("x", 40, 0.8), ("y", 30, 0.6), ("z", 15, 0.7)):
        t = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
        p = np.where(rng.random(n) < accuracy, t, rng.choice(["a", "b", "c"], n))
        truth += t.tolist()
        prediction += p.tolist()
        groups += [g] * n
    return truth, prediction, groups


@pytest.fixture(scope="module")
def distinct_case():
    """Three classes, three subgroups of 120, 90 and 60 rows with accuracies far apart (0.95, 0.45, 0.7) on
    classes a and b; class c is always predicted right (its recall is 1 in every subgroup)."""
    rng = np.random.default_rng(8)
    truth, prediction, groups = [], [], []
    for g, n, accuracy in (("x", 120, 0.95), ("y", 90, 0.45), ("z", 60, 0.7)):
        t = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
        p = np.where((t == "c") | (rng.random(n) < accuracy), t, rng.choice(["a", "b"], n))
        truth += t.tolist()
        prediction += p.tolist()
        groups += [g] * n
    return truth, prediction, groups


# --------------------------------------------------------------------------------------------
# Point estimates, Wilson intervals, columns
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["fscore", "recall", "precision"])
@pytest.mark.parametrize("reduction", ["std", "difference"])
def test_point_estimates_are_unchanged_by_intervals(small_case, metric, reduction):
    truth, prediction, groups = small_case
    kw = dict(metric=metric, reduction=reduction, subgroups=["y", "x"] if reduction == "difference" else None)
    plain = fc.unweighted_average_bias(truth, prediction, groups, **kw)
    with_ci = fc.unweighted_average_bias(truth, prediction, groups, ci=0.9, n_boot=200, **kw)
    assert with_ci.value == plain.value and with_ci.subgroups == plain.subgroups
    np.testing.assert_array_equal(with_ci.per_class["value"], plain.per_class["value"])
    np.testing.assert_array_equal(with_ci.table["score"], plain.table["score"])
    pd.testing.assert_frame_equal(with_ci.table[plain.table.columns], plain.table)
    assert list(with_ci.per_class.columns) == ["class", "value", "value_ci_low", "value_ci_high", "n_subgroups",
                                               "n_boot_undefined", "note"]
    assert list(with_ci.table.columns) == [
        "subgroup", "class", "size", "n_true", "n_predicted", "tp", "recall", "recall_ci_low", "recall_ci_high",
        "precision", "precision_ci_low", "precision_ci_high", "fscore", "fscore_ci_low", "fscore_ci_high", "small",
        "small_reason", "note", "score", "score_ci_low", "score_ci_high", "used"]
    np.testing.assert_array_equal(with_ci.table["score_ci_low"], with_ci.table[f"{metric}_ci_low"])
    assert with_ci.level == 0.9 and with_ci.n_boot == 200 and with_ci.table.attrs["ci"] == 0.9
    assert (plain.level, plain.n_boot, plain.n_boot_undefined) == (None, 0, 0) and math.isnan(plain.ci_low)


@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_recall_and_precision_intervals_are_wilson(small_case, level):
    truth, prediction, groups = small_case
    table = fc.class_counts(truth, prediction, groups).table(ci=level)
    # every (subgroup, class) pair is a row, so every interval below is checked
    assert sorted(zip(table["subgroup"], table["class"])) == [(g, c) for g in "xyz" for c in "abc"]
    for _, row in table.iterrows():
        for metric, den in (("recall", "n_true"), ("precision", "n_predicted")):
            if row[den] == 0:
                assert math.isnan(row[f"{metric}_ci_low"]) and math.isnan(row[f"{metric}_ci_high"])
                continue
            low, high = proportion_confint(row["tp"], row[den], alpha=1 - level, method="wilson")
            assert row[f"{metric}_ci_low"] == pytest.approx(low, abs=TOL)
            assert row[f"{metric}_ci_high"] == pytest.approx(high, abs=TOL)


def test_an_undefined_score_has_no_interval():
    # z never predicts 'c' (precision NaN) and never has a true 'b' (recall NaN)
    truth = ["a", "b", "c", "a", "a", "c"]
    prediction = ["a", "b", "c", "a", "b", "a"]
    groups = ["x", "x", "x", "z", "z", "z"]
    table = fc.class_counts(truth, prediction, groups).table(ci=0.95, n_boot=100).set_index(["subgroup", "class"])
    assert math.isnan(table.loc[("z", "c"), "precision"]) and math.isnan(table.loc[("z", "c"), "precision_ci_low"])
    assert math.isnan(table.loc[("z", "b"), "recall"]) and math.isnan(table.loc[("z", "b"), "recall_ci_high"])
    assert table.loc[("z", "b"), "fscore"] == 0.0 and table.loc[("z", "b"), "fscore_ci_high"] == 0.0


# --------------------------------------------------------------------------------------------
# The bootstrap against a brute-force row-level bootstrap
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case, metric, reduction, order", [("small_case", "fscore", "std", ["x", "y", "z"]),
                                                            ("distinct_case", "recall", "std", ["x", "y", "z"]),
                                                            ("small_case", "recall", "difference", ["y", "x"])])
def test_intervals_match_a_row_level_bootstrap(request, case, metric, reduction, order):
    truth, prediction, groups = request.getfixturevalue(case)
    labels, level, n_boot = ["a", "b", "c"], 0.95, 4000
    result = fc.unweighted_average_bias(truth, prediction, groups, metric=metric, reduction=reduction,
                                        subgroups=order if reduction == "difference" else None, ci=level,
                                        n_boot=n_boot, random_state=0)
    values, per_class, fscores, scores = brute_force(truth, prediction, groups, order, labels, metric, reduction,
                                                     n_boot, 1)
    rows = {g: [(t, p) for t, p, h in zip(truth, prediction, groups) if h == g] for g in order}
    estimate, per_estimate = literal_uab(rows, labels, metric, reduction)
    assert result.value == pytest.approx(estimate, abs=TOL)
    assert result.ci_low <= result.value <= result.ci_high
    per_row = result.per_class.set_index("class")
    if reduction == "difference":
        low, high = percentile(values, level, estimate)
        assert result.ci_low == pytest.approx(low, abs=MC_TOL) and result.ci_high == pytest.approx(high, abs=MC_TOL)
        assert_interval_in_bands(result.ci_low, result.ci_high, values, level, estimate, "value")
        # Per class and per (subgroup, class) the statistics rest on a few rows and are discrete: their
        # quantiles are compared with the distribution-free band of the brute-force samples.
        for i, c in enumerate(labels):
            assert_interval_in_bands(per_row.loc[c, "value_ci_low"], per_row.loc[c, "value_ci_high"],
                                     per_class[:, i], level, per_estimate[c], c)
    else:
        # A standard deviation: the percentile interval, its low end 0 where the bootstrap test of equal scores
        # (centred replicates) does not reject. The mean over K classes: its high end the upper percentile of the
        # replicates' mean spread; its low end the lower percentile of the replicates' mean with the classes whose
        # spread is not told from 0 at the simultaneous level (between level and Bonferroni's) counted at 0; each
        # moved out by the classes' widening to their estimates, over K.
        estimates = np.array([[literal_scores(rows[g], labels, metric)[c] for c in labels] for g in order])
        p = std_test_p_values(scores, estimates)
        alpha, k = 1 - level, sum(not math.isnan(v) for v in per_estimate.values())
        for a in (alpha, alpha / k):   # clear decisions: p is 4 standard deviations of two bootstraps' p from a
            assert (np.abs(p - a) > 4 * math.sqrt(2 * a * (1 - a) / n_boot)).all(), (p, a)
        # small_case: no class's spread is distinguishable from 0; distinct_case: two are, even at alpha / K, and
        # one is not.
        assert (p > alpha).all() if case == "small_case" else ((p < alpha / k).sum(), (p > alpha).sum()) == (2, 1), p
        widen_low, widen_high = np.zeros(2), np.zeros(2)
        nonzero = p < alpha / k   # told from 0 at Bonferroni's level, so at the simultaneous one
        for i, c in enumerate(labels):
            got_low, got_high = per_row.loc[c, "value_ci_low"], per_row.loc[c, "value_ci_high"]
            band_low = (0.0, 0.0) if p[i] > alpha else quantile_band(per_class[:, i], alpha / 2, per_estimate[c])
            band_high = quantile_band(per_class[:, i], 1 - alpha / 2, per_estimate[c])
            assert band_low[0] - TOL <= got_low <= band_low[1] + TOL, (c, got_low, band_low)
            assert band_high[0] - TOL <= got_high <= band_high[1] + TOL, (c, got_high, band_high)
            plain_low = quantile_band(per_class[:, i], alpha / 2)
            plain_high = quantile_band(per_class[:, i], 1 - alpha / 2)
            if nonzero[i]:
                widen_low += np.maximum(np.array(plain_low) - per_estimate[c], 0.0)[::-1] / k
            widen_high += np.maximum(per_estimate[c] - np.array(plain_high), 0.0)[::-1] / k
        low_reps = np.nanmean(np.where(nonzero, per_class, 0.0), axis=1)
        band = np.array(quantile_band(low_reps, alpha / 2)) - widen_low
        assert max(band[0], 0.0) - TOL <= result.ci_low <= max(band[1], 0.0) + TOL, (result.ci_low, band)
        band = np.array(quantile_band(values, 1 - alpha / 2)) + widen_high
        assert band[0] - TOL <= result.ci_high <= band[1] + TOL, (result.ci_high, band)
    for i, c in enumerate(labels):
        row = per_row.loc[c]
        expected = np.isnan(per_class[:, i]).mean()  # two binomial counts of the same rate
        sd = math.sqrt(2 * n_boot * expected * (1 - expected))
        assert abs(row["n_boot_undefined"] - n_boot * expected) <= 5 * sd + 1
    table = result.table.set_index(["subgroup", "class"])
    for (g, c), samples in fscores.items():
        assert_interval_in_bands(table.loc[(g, c), "fscore_ci_low"], table.loc[(g, c), "fscore_ci_high"], samples,
                                 level, None, (g, c))
    if reduction == "difference":  # a difference can be negative: the interval is not clipped at 0
        assert (result.per_class["value_ci_low"] < 0).any()


def test_the_table_and_the_result_share_one_bootstrap(small_case):
    truth, prediction, groups = small_case
    counts = fc.class_counts(truth, prediction, groups)
    table = counts.table(ci=0.95, n_boot=300, random_state=4)
    result = counts.unweighted_average_bias(metric="recall", ci=0.95, n_boot=300, random_state=4)
    np.testing.assert_array_equal(result.table["fscore_ci_low"], table["fscore_ci_low"])
    np.testing.assert_array_equal(result.table["fscore_ci_high"], table["fscore_ci_high"])
    via_rows = fc.unweighted_average_bias(truth, prediction, groups, metric="recall", ci=0.95, n_boot=300,
                                          random_state=4)
    assert (via_rows.ci_low, via_rows.ci_high) == (result.ci_low, result.ci_high)
    pd.testing.assert_frame_equal(via_rows.per_class, result.per_class)


def test_same_seed_same_intervals_other_seed_others(small_case):
    truth, prediction, groups = small_case
    runs = [fc.unweighted_average_bias(truth, prediction, groups, ci=0.95, n_boot=500, random_state=seed)
            for seed in (3, 3, 4)]
    assert (runs[0].ci_low, runs[0].ci_high) == (runs[1].ci_low, runs[1].ci_high)
    pd.testing.assert_frame_equal(runs[0].table, runs[1].table)
    assert (runs[0].ci_low, runs[0].ci_high) != (runs[2].ci_low, runs[2].ci_high)
    generator = fc.unweighted_average_bias(truth, prediction, groups, ci=0.95, n_boot=500,
                                           random_state=np.random.default_rng(3))
    assert (generator.ci_low, generator.ci_high) == (runs[0].ci_low, runs[0].ci_high)


def test_stratification_keeps_a_one_row_subgroup():
    # 'tiny' has one row (a, a): a plain resample of all 201 rows would leave it out about 37 % of the
    # time ((200/201)^201), making its recall, and so the difference, undefined; stratified, it always stays.
    rng = np.random.default_rng(2)
    truth = ["a"] + rng.choice(["a", "b"], 200).tolist()
    prediction = ["a"] + [t if rng.random() < 0.7 else ("b" if t == "a" else "a") for t in truth[1:]]
    groups = ["tiny"] + ["big"] * 200
    result = fc.unweighted_average_bias(truth, prediction, groups, metric="recall", reduction="difference",
                                        subgroups=["tiny", "big"], include_small=True, ci=0.95, n_boot=1000)
    assert result.n_boot_undefined == 0
    row = result.per_class.set_index("class").loc["a"]
    assert row["n_boot_undefined"] == 0
    # tiny's recall of 'a' is 1 in every replicate, so the difference's interval is 1 - (big's interval)
    big = [(t, p) for t, p, g in zip(truth, prediction, groups) if g == "big"]
    recall_big = sum(t == p == "a" for t, p in big) / sum(t == "a" for t, _ in big)
    assert row["value"] == pytest.approx(1 - recall_big, abs=TOL)
    assert 0 < row["value_ci_low"] < row["value"] < row["value_ci_high"] < 1
    tiny = result.table[result.table["subgroup"] == "tiny"].set_index("class")
    assert tiny.loc["a", "fscore_ci_low"] == tiny.loc["a", "fscore_ci_high"] == 1.0


def test_undefined_replicates_are_counted_at_their_exact_rate():
    # Each subgroup: one row (a, a) and one (b, b). Resampling 2 rows, a subgroup predicts only a, both or
    # only b with probabilities 1/4, 1/2, 1/4. Precision of a class is defined where it is predicted; the
    # value is undefined when no class is predicted in both subgroups: one subgroup only a, the other only
    # b, probability 2 * 1/4 * 1/4 = 1/8. Class a alone is undefined with probability 1 - (3/4)^2 = 7/16.
    n_boot = 4000
    result = fc.unweighted_average_bias(["a", "b", "a", "b"], ["a", "b", "a", "b"], ["x", "x", "y", "y"],
                                        metric="precision", ci=0.95, n_boot=n_boot, random_state=0)
    assert result.value == 0.0 and result.n_boot == n_boot
    for count, p in ((result.n_boot_undefined, 1 / 8),
                     (result.per_class.set_index("class").loc["a", "n_boot_undefined"], 7 / 16)):
        sd = math.sqrt(n_boot * p * (1 - p))
        assert abs(count - n_boot * p) < 5 * sd, (count, n_boot * p)
    assert result.ci_low == 0.0 and result.ci_high == 0.0  # every defined replicate has equal precisions (1)


def test_a_value_undefined_at_the_estimate_has_no_interval():
    result = fc.unweighted_average_bias([0, 1], [1, 0], ["male", "female"], metric="recall", ci=0.95, n_boot=100)
    assert math.isnan(result.value) and math.isnan(result.ci_low) and math.isnan(result.ci_high)
    assert result.per_class["value_ci_low"].isna().all()


# --------------------------------------------------------------------------------------------
# What cannot have an interval, and bad options
# --------------------------------------------------------------------------------------------


def test_callables_refuse_intervals_with_a_clear_message(small_case):
    truth, prediction, groups = small_case

    def my_recall(t, p, labels):
        return {c: float(np.mean(np.asarray(p)[np.asarray(t) == c] == c)) for c in labels}

    with pytest.raises(ValueError) as info:
        fc.unweighted_average_bias(truth, prediction, groups, metric=my_recall, ci=0.95)
    assert str(info.value) == CALLABLE_CI_MESSAGE.format(func="unweighted_average_bias", what="metric")
    with pytest.raises(ValueError) as info:
        fc.unweighted_average_bias(truth, prediction, groups, reduction=lambda x: max(x) - min(x), ci=0.95)
    assert str(info.value) == CALLABLE_CI_MESSAGE.format(func="unweighted_average_bias", what="reduction")
    counts = fc.class_counts(truth, prediction, groups)
    with pytest.raises(ValueError) as info:
        counts.unweighted_average_bias(reduction=lambda x: max(x) - min(x), ci=0.95)
    assert str(info.value) == CALLABLE_CI_MESSAGE.format(func="ClassCounts.unweighted_average_bias",
                                                         what="reduction")
    # without an interval the callables work as before
    plain = fc.unweighted_average_bias(truth, prediction, groups, metric=my_recall)
    assert plain.value == pytest.approx(fc.unweighted_average_bias(truth, prediction, groups, metric="recall").value,
                                        abs=TOL)


def test_counts_built_by_hand_cannot_give_intervals(small_case):
    counts = fc.class_counts(*small_case)
    by_hand = ClassCounts(counts.names, counts.labels, counts.member, counts.overall, counts.excluded,
                          counts.n_excluded, counts.min_size)
    assert by_hand.unweighted_average_bias().value == counts.unweighted_average_bias().value
    with pytest.raises(ValueError) as info:
        by_hand.unweighted_average_bias(ci=0.95)
    assert str(info.value) == NO_ATOMS_MESSAGE.format(func="ClassCounts.unweighted_average_bias")
    with pytest.raises(ValueError) as info:
        by_hand.table(ci=0.95)
    assert str(info.value) == NO_ATOMS_MESSAGE.format(func="ClassCounts.table")


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, "0.95", True])
def test_bad_levels_are_refused(small_case, bad):
    with pytest.raises(ValueError) as info:
        fc.unweighted_average_bias(*small_case, ci=bad)
    assert str(info.value) == CI_MESSAGE.format(func="unweighted_average_bias", got=bad)


def test_too_few_replicates_are_refused(small_case):
    with pytest.raises(ValueError) as info:
        fc.unweighted_average_bias(*small_case, ci=0.95, n_boot=10)
    assert str(info.value) == N_BOOT_MESSAGE.format(func="unweighted_average_bias", got=10)


def test_rows_left_out_are_not_resampled():
    # Rows whose class is not among the labels take no part; each subgroup keeps its counted rows only.
    truth = ["a", "b", "z", "z"] * 10 + ["a", "b"] * 10
    prediction = ["a", "b", "a", "b"] * 10 + ["a", "a"] * 10
    groups = ["x"] * 40 + ["y"] * 20
    result = fc.unweighted_average_bias(truth, prediction, groups, labels=["a", "b"], metric="recall", ci=0.95,
                                        n_boot=500)
    assert result.n_excluded == 20
    sizes = result.table.drop_duplicates("subgroup").set_index("subgroup")["size"]
    assert sizes.to_dict() == {"x": 20, "y": 20}
    # x predicts perfectly (recall 1 for a and b in every resample); y: a always right, b always wrong
    per = result.per_class.set_index("class")
    assert per.loc["a", "value"] == 0.0 and per.loc["a", "value_ci_high"] == 0.0
    assert per.loc["b", "value"] == 0.5 and per.loc["b", "value_ci_low"] == per.loc["b", "value_ci_high"] == 0.5


# --------------------------------------------------------------------------------------------
# Findings
# --------------------------------------------------------------------------------------------


def test_findings_name_the_class_its_subgroups_and_intervals(small_case):
    truth, prediction, groups = small_case
    result = fc.unweighted_average_bias(truth, prediction, groups, metric="recall", ci=0.95, n_boot=500)
    sentences = fc.classwise_findings(result)
    per = result.per_class.set_index("class")
    top = per["value"].abs().idxmax()
    table = result.table[result.table["class"] == top].set_index("subgroup")
    lo, hi = table["recall"].idxmin(), table["recall"].idxmax()
    first = sentences[0]
    assert first.startswith(f"Class {top}: the recall varies across 3 subgroups with a standard deviation of "
                            f"{per.loc[top, 'value']:.3f} (95 % interval {per.loc[top, 'value_ci_low']:.3f}–"
                            f"{per.loc[top, 'value_ci_high']:.3f})")
    row = table.loc[lo]
    assert (f"lowest in {lo}: {row['recall']:.3f} (95 % interval {row['recall_ci_low']:.3f}–"
            f"{row['recall_ci_high']:.3f}; {int(row['tp'])} of {int(row['n_true'])} rows truly of class {top})"
            in first)
    assert f"highest in {hi}: {table.loc[hi, 'recall']:.3f}" in first
    assert len(sentences) == 3  # one per class, no class skipped, nothing small, no undefined resample


def test_findings_say_when_a_difference_is_not_distinguishable_from_parity():
    rng = np.random.default_rng(0)
    truth = rng.choice(["a", "b"], 2000).tolist()
    same_quality = [t if rng.random() < 0.8 else ("b" if t == "a" else "a") for t in truth]
    groups = ["x", "y"] * 1000
    result = fc.unweighted_average_bias(truth, same_quality, groups, metric="recall", reduction="difference",
                                        subgroups=["x", "y"], ci=0.95)
    assert all("not distinguishable from parity at this sample size" in s for s in fc.classwise_findings(result))
    worse = [p if g == "x" else ("b" if t == "a" and rng.random() < 0.5 else p)
             for t, p, g in zip(truth, same_quality, groups)]
    result = fc.unweighted_average_bias(truth, worse, groups, metric="recall", reduction="difference",
                                        subgroups=["x", "y"], ci=0.95)
    first = fc.classwise_findings(result)[0]
    assert first.startswith("Class a: the recall of x minus that of y is ")
    assert "the interval excludes 0 (parity)" in first


def test_findings_list_skipped_classes_small_subgroups_and_undefined_resamples():
    frame = pd.DataFrame({"g": ["x", "x", "y", "y"] + ["t"]})
    sub = fc.Subgroups.from_attributes(frame, ["g"], min_size=2)
    result = fc.unweighted_average_bias(["a", "b", "a", "b", "a"], ["a", "b", "a", "b", "c"], sub,
                                        labels=["a", "b", "c"], metric="precision", ci=0.95, n_boot=2000)
    sentences = fc.classwise_findings(result)
    assert "1 class skipped (c): fewer than two subgroups have a defined precision." in sentences
    assert "Left out of the reduction as small: t (1 rows)." in sentences
    undefined = [s for s in sentences if s.startswith("In ")]
    assert undefined == [f"In {result.n_boot_undefined:,} of 2,000 resamples no class had two defined scores; "
                         "they are left out of the interval."]
    nan = fc.unweighted_average_bias([0, 1], [1, 0], ["male", "female"], metric="recall")
    assert fc.classwise_findings(nan) == [f"The unweighted average bias is undefined: {nan.reason}."]
    with pytest.raises(TypeError, match="UnweightedAverageBiasResult"):
        fc.classwise_findings(nan.per_class)
    with pytest.raises(ValueError, match=re.escape("'limit' parameter of classwise_findings")):
        fc.classwise_findings(nan, limit=0)


# --------------------------------------------------------------------------------------------
# Real data
# --------------------------------------------------------------------------------------------


def test_compas_three_classes_with_intervals(compas):
    truth = np.where(compas["two_year_recid"] == 0, "Low", np.where(compas["is_violent_recid"] == 1, "High", "Medium"))
    sub = fc.Subgroups.from_attributes(compas, ["race"])  # Native American (18 rows) is small
    plain = fc.unweighted_average_bias(truth, compas["score_text"], sub, labels=["Low", "Medium", "High"])
    result = fc.unweighted_average_bias(truth, compas["score_text"], sub, labels=["Low", "Medium", "High"], ci=0.95)
    assert result.value == plain.value and "Native American" not in result.subgroups
    assert result.ci_low < result.value < result.ci_high and result.n_boot_undefined == 0
    per = result.per_class
    assert (per["value_ci_low"] <= per["value"]).all() and (per["value"] <= per["value_ci_high"]).all()
    # the small subgroup's scores have wide intervals; African-American's (3,696 rows) narrow ones
    table = result.table.set_index(["subgroup", "class"])
    width = table["fscore_ci_high"] - table["fscore_ci_low"]
    assert width.loc[("Native American", "Low")] > 3 * width.loc[("African-American", "Low")]
    assert table.loc[("Native American", "Low"), "small_reason"] == "18 rows < minimum 30"
    low, high = proportion_confint(table.loc[("Caucasian", "High"), "tp"], table.loc[("Caucasian", "High"), "n_true"],
                                   alpha=0.05, method="wilson")
    assert table.loc[("Caucasian", "High"), "recall_ci_low"] == pytest.approx(low, abs=TOL)
    assert table.loc[("Caucasian", "High"), "recall_ci_high"] == pytest.approx(high, abs=TOL)
