"""Findings: ranked rate disparities with plain-language sentences."""

from __future__ import annotations

import doctest
import importlib
import math
import re

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._review.finding import Finding, findings_table
from fairness_core._review.findings import COUNTS_MESSAGE, LIMIT_MESSAGE, RESULT_MESSAGE, rate_findings
from fairness_core._review.result_findings import reduction_finding

COMPAS_TEXTS = dict(positive_text="flagged high risk", positive_outcome_text="reoffended",
                    negative_outcome_text="did not reoffend")
BANNED = re.compile(r"fair|unbiased|debiased", re.IGNORECASE)
ALL_METRICS = ("statistical_parity", "true_positive_rate", "false_positive_rate", "false_negative_rate",
               "false_omission_rate", "false_discovery_rate", "error_rate")


# --------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compas_counts(compas):
    """COMPAS, threshold 5 on the decile score, subgroups by race (minimum size 30)."""
    groups = fc.Subgroups.from_attributes(compas, ["race"])
    return fc.confusion_counts(compas["two_year_recid"], (compas["decile_score"] >= 5).astype(int), groups)


@pytest.fixture(scope="module")
def compas_findings(compas_counts):
    return rate_findings(compas_counts, **COMPAS_TEXTS)


def counts_of(spec: dict) -> fc.ConfusionCounts:
    """Confusion counts from {subgroup: (tn, fp, fn, tp)}, built from rows."""
    y, p, g = [], [], []
    for name, cells in spec.items():
        for n, (yy, pp) in zip(cells, ((0, 0), (0, 1), (1, 0), (1, 1))):
            y += [yy] * n
            p += [pp] * n
            g += [name] * n
    return fc.confusion_counts(y, p, pd.Series(g, name="group"))


def pandas_fpr(frame: pd.DataFrame) -> tuple[float, int]:
    """False positive rate and number of actual negatives, from the raw COMPAS columns."""
    negatives = frame[frame["two_year_recid"] == 0]
    return float((negatives["decile_score"] >= 5).mean()), len(negatives)


# --------------------------------------------------------------------------------------------
# COMPAS
# --------------------------------------------------------------------------------------------


def test_compas_top_finding_is_the_african_american_false_positive_rate(compas, compas_findings):
    top = compas_findings[0]
    african_american = compas["race"] == "African-American"
    a, n_a = pandas_fpr(compas[african_american])
    b, n_b = pandas_fpr(compas[~african_american])
    assert (round(a, 6), round(b, 6)) == (0.448468, 0.220018)
    assert (top.kind, top.metric, top.subgroup, top.reference) == ("disparity", "false_positive_rate",
                                                                   "African-American", "rest")
    assert top.ratio == pytest.approx(a / b, rel=1e-12)
    assert top.difference == pytest.approx(a - b, abs=1e-12)
    assert (top.denominator, top.reference_denominator) == (n_a, n_b) == (1795, 2168)
    assert top.excludes_parity is True
    assert 1.0 < top.ratio_ci[0] < top.ratio < top.ratio_ci[1]
    assert 0.0 < top.difference_ci[0] < top.difference < top.difference_ci[1]
    assert top.level == 0.95 and not top.small
    for text in ("African-American", "2.04", "1,795", "2,168", "did not reoffend", "flagged high risk",
                 "false positive rate", "44.8 %", "22.0 %", "everyone else"):
        assert text in top.sentence, text
    assert top.sentence.startswith("People in African-American who did not reoffend were flagged high risk at "
                                   "2.04× the rate of everyone else (false positive rate 44.8 % vs 22.0 %")


def test_compas_intervals_are_those_of_the_comparison_tables(compas_counts, compas_findings):
    top = compas_findings[0]
    kw = dict(reduction=None, ci=0.95, n_boot=1000, random_state=0)
    ratio = compas_counts.disparity("false_positive_rate", distance_measure="ratio", **kw)
    diff = compas_counts.disparity("false_positive_rate", distance_measure="diff", **kw)
    row = ratio["subgroup"] == "African-American"
    assert top.ratio_ci == (ratio.loc[row, "disparity_ci_low"].item(), ratio.loc[row, "disparity_ci_high"].item())
    # Every replicate of a - b is positive here, so the signed interval is the interval of |a - b|.
    assert top.difference_ci == pytest.approx(
        (diff.loc[row, "disparity_ci_low"].item(), diff.loc[row, "disparity_ci_high"].item()), abs=1e-12)
    assert top.p_value == diff.loc[row, "p_value"].item()
    assert top.subgroup_value_ci == (ratio.loc[row, "subgroup_value_ci_low"].item(),
                                     ratio.loc[row, "subgroup_value_ci_high"].item())


def test_compas_drives_matches_the_max_reduction(compas_counts, compas_findings):
    top = compas_findings[0]
    worst_diff = compas_counts.disparity("false_positive_rate", distance_measure="diff", reduction="max").worst
    worst_ratio = compas_counts.disparity("false_positive_rate", distance_measure="ratio", reduction="max").worst
    assert worst_diff == ("African-American", "rest") and worst_ratio == ("Other", "rest")
    assert top.drives == "drives the max false positive rate difference"
    assert "largest false positive rate difference" in top.sentence


def test_compas_findings_cover_the_metrics_in_order(compas_findings):
    ranked = [f for f in compas_findings if f.kind == "disparity"]
    assert [f.metric for f in ranked] == ["false_positive_rate", "false_negative_rate", "statistical_parity"]
    assert all(f.excludes_parity for f in ranked)
    # Within a metric, the strongest comparison comes first.
    assert ranked[1].subgroup == "Other" and ranked[2].subgroup == "African-American"


@pytest.mark.parametrize("reference", ["rest", "overall", "pairwise", "Caucasian"])
@pytest.mark.parametrize("metrics", [("false_positive_rate", "false_negative_rate", "statistical_parity"),
                                     ALL_METRICS])
def test_native_american_is_never_a_top_finding(compas_counts, reference, metrics):
    findings = rate_findings(compas_counts, metrics, reference=reference, limit=5, n_boot=200, **COMPAS_TEXTS)
    for f in findings:
        if "Native American" in (f.subgroup, f.reference):
            assert f.kind == "too_small" and f.small
            assert "too few" in f.sentence and "to assess at this sample size" in f.sentence
        if f.kind == "disparity":
            assert not f.small
    assert sum(f.kind == "too_small" for f in findings) <= 1
    assert sum(f.kind == "disparity" for f in findings) <= 5


def test_compas_too_small_finding_names_the_group_size(compas_findings):
    small = [f for f in compas_findings if f.kind == "too_small"]
    assert len(small) == 1 and compas_findings[-1] is small[0]
    f = small[0]
    assert f.subgroup == "Native American" and f.size == 18 and f.small
    assert f.small_reason == "18 rows < minimum 30"
    assert "Native American has too few people to assess at this sample size (18 people; minimum 30)" in f.sentence
    assert f.drives is None


def test_include_small_ranks_small_comparisons_with_a_caution(compas_counts):
    findings = rate_findings(compas_counts, ("false_discovery_rate",), include_small=True, ci=None, limit=10)
    small = [f for f in findings if f.small]
    assert small and all(f.kind == "disparity" for f in findings)
    for f in small:
        assert "too few" in f.sentence and "treat it with caution" in f.sentence


def test_no_sentence_uses_the_words_fair_unbiased_or_debiased(compas_counts):
    sentences = []
    for reference in ("rest", "overall", "pairwise", "African-American"):
        for include_small in (False, True):
            sentences += [f.sentence for f in rate_findings(
                compas_counts, ALL_METRICS, reference=reference, include_small=include_small, limit=50, n_boot=200)]
    for metric in ALL_METRICS:
        for measure in ("ratio", "diff"):
            for reduction in ("max", "mean"):
                result = compas_counts.disparity(metric, distance_measure=measure, reduction=reduction, ci=0.95,
                                                 n_boot=200)
                sentences.append(reduction_finding(result, metric).sentence)
    assert len(sentences) > 100
    for s in sentences:
        assert not BANNED.search(s), s
        assert not re.search(r"\*\*|`|<|>|\[|\]\(", s), s  # plain text: no Markdown or HTML
        assert "∞" not in s and "inf" not in s.replace("infinite", ""), s


def test_same_seed_gives_identical_findings(compas_counts):
    first = findings_table(rate_findings(compas_counts, **COMPAS_TEXTS))
    again = findings_table(rate_findings(compas_counts, **COMPAS_TEXTS))
    pd.testing.assert_frame_equal(first, again)
    with_generator = [findings_table(rate_findings(compas_counts, random_state=np.random.default_rng(7)))
                      for _ in range(2)]
    pd.testing.assert_frame_equal(*with_generator)
    other = findings_table(rate_findings(compas_counts, random_state=1, **COMPAS_TEXTS))
    assert not np.array_equal(first["ratio_ci_high"].to_numpy(), other["ratio_ci_high"].to_numpy())


def test_adjusted_findings_say_so(compas_counts):
    plain = rate_findings(compas_counts, ("false_positive_rate",), limit=1)[0]
    holm = rate_findings(compas_counts, ("false_positive_rate",), adjust="bonferroni", limit=1)[0]
    assert holm.adjust == "bonferroni" and "Bonferroni-adjusted for 6 comparisons" in holm.sentence
    assert holm.ratio_ci[0] <= plain.ratio_ci[0] and holm.ratio_ci[1] >= plain.ratio_ci[1]


def test_neutral_words_by_default(compas_counts):
    top = rate_findings(compas_counts, limit=1)[0]
    assert "who were labelled negative were predicted positive" in top.sentence
    fnr = rate_findings(compas_counts, ("false_negative_rate",), limit=1, positive_text="flagged high risk")[0]
    assert "were not flagged high risk" in fnr.sentence


def test_without_intervals(compas_counts):
    findings = rate_findings(compas_counts, ci=None)
    assert findings[0].excludes_parity is None and findings[0].level is None
    assert all(math.isnan(x) for x in findings[0].ratio_ci + findings[0].difference_ci)
    assert "no interval computed" in findings[0].sentence
    assert findings[0].severity == pytest.approx(abs(findings[0].difference))


# --------------------------------------------------------------------------------------------
# Constructed cases
# --------------------------------------------------------------------------------------------


def test_a_difference_that_includes_parity_is_not_distinguishable_from_parity():
    counts = counts_of({"x": (80, 20, 50, 50), "y": (78, 22, 50, 50)})
    findings = rate_findings(counts, ("false_positive_rate",))
    assert len(findings) == 2
    for f in findings:
        assert f.excludes_parity is False
        assert f.difference_ci[0] < 0 < f.difference_ci[1]
        assert f.ratio_ci[0] == 1.0
        assert f.severity == 0.0
        assert "not distinguishable from parity at this sample size" in f.sentence
        assert "100 vs 100 people" in f.sentence


def test_a_difference_that_excludes_parity_ranks_before_one_that_does_not():
    # y's false positive rate differs clearly from the rest; x's does not.
    counts = counts_of({"x": (151, 49, 100, 100), "y": (130, 70, 90, 110), "w": (160, 40, 100, 100)})
    findings = rate_findings(counts, ("false_positive_rate",), limit=3)
    assert [f.excludes_parity for f in findings] == [True, True, False]
    assert findings[-1].subgroup == "x" and abs(findings[-1].difference) < abs(findings[1].difference)


def test_a_zero_rate_is_reported_as_zero_of_n():
    counts = counts_of({"x": (150, 50, 100, 100), "y": (140, 60, 90, 110), "z": (69, 0, 20, 20)})
    top = rate_findings(counts, ("false_positive_rate",), limit=1)[0]
    assert top.subgroup == "z" and top.ratio == math.inf and top.numerator == 0 and top.denominator == 69
    assert "0 of 69" in top.sentence and "the ratio is infinite because one rate is 0" in top.sentence
    assert "∞" not in top.sentence and "at a lower rate than everyone else" in top.sentence

    worst = reduction_finding(counts.disparity("false_positive_rate", distance_measure="ratio", reduction="max",
                                               ci=0.95), "false_positive_rate")
    assert worst.kind == "reduction" and worst.subgroup == "z" and worst.reduction_value == math.inf
    assert "infinite because one rate is 0" in worst.sentence and "0 of 69" in worst.sentence

    mean = counts.disparity("false_positive_rate", distance_measure="ratio", reduction="mean", ci=0.95)
    assert mean.n_infinite == 1
    described = reduction_finding(mean, "false_positive_rate")
    assert "over 2 comparisons" in described.sentence
    assert "1 comparison is left out of the mean" in described.sentence
    assert "z: 0 of 69 people who were labelled negative" in described.sentence
    assert described.drives is None and described.reduction == "mean"


# --------------------------------------------------------------------------------------------
# reduction_finding and findings_table
# --------------------------------------------------------------------------------------------


def test_reduction_finding_names_what_drives_the_max(compas_counts):
    result = compas_counts.disparity("false_positive_rate", distance_measure="ratio", reduction="max", ci=0.95)
    f = reduction_finding(result, "false_positive_rate", **COMPAS_TEXTS)
    assert (f.subgroup, f.reference) == result.worst == ("Other", "rest")
    assert f.reduction_value == result.value and f.reduction_ci == (result.ci_low, result.ci_high)
    assert f.drives == "drives the max false positive rate ratio"
    # The max's interval joins its comparisons' (Bonferroni): labelled, as it differs from Other's own interval.
    expected = (f"The largest false positive rate ratio, {result.value:.2f} (95 % interval for the largest of "
                f"{result.n_used} comparisons: {result.ci_low:.2f}–"
                f"{result.ci_high:.2f}), is Other against everyone else (false positive rate 14.8 % vs 33.5 %; "
                f"244 vs 3,719 people who did not reoffend).")
    assert f.sentence.startswith(expected)
    assert "2 comparisons with too few people to assess at this sample size are left out." in f.sentence


def test_reduction_finding_pairwise_difference(compas_counts):
    result = compas_counts.disparity("false_negative_rate", distance_measure="diff", reduction="max",
                                     reference="pairwise", ci=0.95)
    f = reduction_finding(result, "false_negative_rate")
    # A pair is named from its disadvantaged side: with a favourable positive prediction, a higher false negative
    # rate (more of those who reoffended... here: who had the positive outcome, denied it) is the disadvantage.
    assert result.worst == ("African-American", "Other")
    assert (f.subgroup, f.reference) == ("Other", "African-American")
    assert f.subgroup_value > f.reference_value and f.difference == pytest.approx(f.subgroup_value - f.reference_value)
    assert f.sentence.startswith(f"The largest false negative rate difference, {100 * result.value:.1f} percentage "
                                 f"points (95 % interval for the largest of {result.n_used} comparisons: ")
    assert "is Other against African-American (" in f.sentence
    adverse = reduction_finding(result, "false_negative_rate", positive_outcome="adverse")
    assert (adverse.subgroup, adverse.reference) == result.worst


def test_reduction_finding_of_nothing_is_none():
    counts = counts_of({"x": (0, 0, 5, 5), "y": (0, 0, 5, 5)})  # no actual negatives: every FPR undefined
    result = counts.disparity("false_positive_rate", reduction="max")
    assert result.worst is None and reduction_finding(result, "false_positive_rate") is None


def test_findings_table(compas_findings):
    table = findings_table(compas_findings + [None])
    assert len(table) == len(compas_findings)
    assert {"metric", "subgroup", "reference", "ratio", "difference", "ratio_ci_low", "ratio_ci_high",
            "difference_ci_low", "difference_ci_high", "excludes_parity", "numerator", "denominator",
            "reference_numerator", "reference_denominator", "small", "small_reason", "drives", "level",
            "sentence", "severity"} <= set(table.columns)
    assert table["excludes_parity"].dtype == "boolean"
    assert table["sentence"].tolist() == [f.sentence for f in compas_findings]
    assert table.loc[0, "ratio_ci_low"] == compas_findings[0].ratio_ci[0]
    empty = findings_table([])
    assert empty.empty and list(empty.columns) == list(table.columns)


def test_finding_is_frozen(compas_findings):
    with pytest.raises(AttributeError):
        compas_findings[0].ratio = 1.0  # type: ignore[misc]
    assert isinstance(compas_findings[0], Finding) and str(compas_findings[0]) == compas_findings[0].sentence


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------


def test_bad_input(compas_counts):
    with pytest.raises(ValueError, match=re.escape(COUNTS_MESSAGE.format(got="list"))):
        rate_findings([1, 2, 3])
    for limit in (0, 1.5, True):
        with pytest.raises(ValueError, match=re.escape(LIMIT_MESSAGE.format(got=limit))):
            rate_findings(compas_counts, limit=limit)
    with pytest.raises(ValueError, match="'metrics' parameter of rate_findings"):
        rate_findings(compas_counts, ("false_positive_rate", "accuracy"))
    with pytest.raises(ValueError, match="'metrics' parameter of rate_findings"):
        rate_findings(compas_counts, ())
    with pytest.raises(ValueError, match="'positive_text' parameter of rate_findings"):
        rate_findings(compas_counts, positive_text="  ")
    with pytest.raises(ValueError, match="'reference' parameter of rate_findings"):
        rate_findings(compas_counts, reference="nobody")
    with pytest.raises(ValueError, match="'random_state' parameter of rate_findings"):
        rate_findings(compas_counts, random_state=-1)
    with pytest.raises(ValueError, match="'ci' parameter of rate_findings"):
        rate_findings(compas_counts, ci=95)
    with pytest.raises(ValueError, match=re.escape(RESULT_MESSAGE.format(got="float"))):
        reduction_finding(1.0, "false_positive_rate")
    result = compas_counts.disparity("false_positive_rate", reduction="max")
    with pytest.raises(ValueError, match="'metric' parameter of reduction_finding"):
        reduction_finding(result, "accuracy")
    with pytest.raises(ValueError, match="findings_table needs Finding objects"):
        findings_table(["a sentence"])


def test_docstring_examples():
    module = importlib.import_module("fairness_core._review.findings")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_auc_findings_name_the_lowest_auc_below_the_overall(compas):
    groups = fc.Subgroups.from_attributes(compas, ["race"], min_size=30)
    table = fc.bias_auc_table(compas["two_year_recid"], compas["decile_score"], groups, ci=0.95, n_boot=200)
    found = fc.auc_findings(table)
    overall = table.attrs["overall_auc"]
    used = table[~table["small"]]
    below = used[used["bpsn_auc_ci_high"] < overall]
    lowest = below.loc[below["bpsn_auc"].idxmin()]
    assert lowest["subgroup"] == "African-American"
    expected = (f"The BPSN AUC of African-American is {lowest['bpsn_auc']:.4f} (95 % CI "
                f"{lowest['bpsn_auc_ci_low']:.4f}–{lowest['bpsn_auc_ci_high']:.4f}; 1,795 rows labelled negative in "
                f"the subgroup against {int(compas['two_year_recid'].sum()) - 1901:,} rows labelled positive in the "
                "other rows), "
                f"below the overall AUC of {overall:.4f} across its whole interval")
    assert any(s.startswith(expected) for s in found)
    assert fc.auc_findings(fc.bias_auc_table(compas["two_year_recid"], compas["decile_score"], groups)) == []


# --------------------------------------------------------------------------------------------
# disparity_findings: any reduced disparity
# --------------------------------------------------------------------------------------------


def test_disparity_findings_compas_fpr_names_the_driver_and_the_excluding_comparisons(compas_counts):
    result = compas_counts.disparity("false_positive_rate", distance_measure="ratio", reduction="max", ci=0.95)
    found = fc.disparity_findings(result, "false positive rate", percent=True)
    table = result.table
    # The driver: the max over the comparisons used (Native American, 18 rows, is small and left out).
    used = table[~table["small"]]
    top = used.loc[used["disparity"].idxmax()]
    assert found[0].kind == "reduction" and found[0].subgroup == top["subgroup"] == result.worst[0]
    assert found[0].reduction_value == result.value and found[0].reduction_ci == (result.ci_low, result.ci_high)
    assert f"{result.value:,.2f}" in found[0].sentence and "Left out: 2 comparisons with too few" in found[0].sentence
    # Then the comparisons whose interval excludes 1, ranked by the lower end of the ratio interval.
    excl = used[used["excludes_parity"].fillna(False).astype(bool)].sort_values("disparity_ci_low", ascending=False)
    rest = found[1:]
    assert [f.subgroup for f in rest] == excl["subgroup"].head(3).tolist()
    aa = next(f for f in rest if f.subgroup == "African-American")
    row = table.set_index("subgroup").loc["African-American"]
    assert aa.ratio_ci == (row["disparity_ci_low"], row["disparity_ci_high"]) and aa.excludes_parity is True
    negatives = compas_counts.member[:, 0] + compas_counts.member[:, 1]
    assert f"{row['subgroup_value'] * 100:.1f} %" in aa.sentence and f"{int(row['size']):,} vs" in aa.sentence
    assert int(negatives[compas_counts.names.index("African-American")]) == 1795
    assert not any(BANNED.search(f.sentence) for f in found)


def test_disparity_findings_without_any_excluding_interval_says_not_distinguishable():
    counts = counts_of({"a": (40, 10, 10, 40), "b": (39, 11, 10, 40)})
    result = counts.disparity("false_positive_rate", reduction="max", ci=0.95)
    found = fc.disparity_findings(result, "false positive rate", percent=True)
    assert [f.kind for f in found] == ["reduction", "disparity"]
    assert found[1].sentence == ("No false positive rate disparity is distinguishable from parity at this sample "
                                 "size (2 comparisons, 95 % intervals).")
    # A mean names the mean and the largest comparison; values with 3 decimals without percent.
    mean = counts.disparity("false_positive_rate", reduction="mean", ci=0.95)
    first = fc.disparity_findings(mean, "share")[0].sentence
    assert first.startswith(f"The mean share difference over 2 comparisons is {mean.value:.3f} (95 % interval "
                            "for the mean of 2 comparisons: ")
    assert "the largest is a against everyone else (share 0.200 vs 0.220; 100 vs 100 people)" in first


def test_disparity_findings_without_intervals_and_bad_input():
    counts = counts_of({"a": (40, 10, 10, 40), "b": (20, 30, 10, 40)})
    result = counts.disparity("false_positive_rate", reduction="max")
    found = fc.disparity_findings(result, "false positive rate", percent=True)
    assert len(found) == 1 and found[0].sentence == (
        "The largest false positive rate difference, 40.0 percentage points, is a against everyone else "
        "(false positive rate 20.0 % vs 60.0 %; 100 vs 100 people).")
    assert found[0].excludes_parity is None and np.isnan(found[0].ratio_ci[0])
    with pytest.raises(ValueError, match="must be a DisparityResult"):
        fc.disparity_findings(result.table, "x")
    with pytest.raises(ValueError, match="'quantity' parameter of disparity_findings"):
        fc.disparity_findings(result, " ")
    with pytest.raises(ValueError, match="'limit' parameter of disparity_findings"):
        fc.disparity_findings(result, "x", limit=0)


# --------------------------------------------------------------------------------------------
# Pairwise findings speak about the disadvantaged subgroup; one labelled interval per number
# --------------------------------------------------------------------------------------------

# x: selection rate 100/200 = 50 %, false positive rate 40/100; y: 30/200 = 15 %, 10/100.
PAIR = {"x": (60, 40, 40, 60), "y": (90, 10, 80, 20)}


def _pair_finding(metric, positive_outcome):
    return rate_findings(counts_of(PAIR), [metric], reference="pairwise", limit=1, positive_outcome=positive_outcome)[0]


def test_pairwise_favourable_selection_rate_speaks_about_the_lower_rate():
    f = _pair_finding("statistical_parity", "favourable")   # a positive prediction is good: the lower rate loses
    assert (f.subgroup, f.reference) == ("y", "x")
    assert (f.subgroup_value, f.reference_value) == (0.15, 0.5)
    assert (f.numerator, f.denominator, f.reference_numerator, f.reference_denominator) == (30, 200, 100, 200)
    assert f.difference == pytest.approx(-0.35) and f.difference_ci[1] < 0
    assert f.ratio == pytest.approx(0.5 / 0.15)  # the record's ratio stays max / min
    low, high = f.ratio_ci
    assert f.sentence.startswith(
        "People in y were predicted positive at 0.30× the rate of people in x (selection rate 15.0 % vs 50.0 %, "
        f"a difference of -35.0 percentage points; 95 % intervals: ratio {1 / high:.2f}–{1 / low:.2f}, difference "
        f"{100 * f.difference_ci[0]:.1f} to {100 * f.difference_ci[1]:.1f} points; 200 vs 200 people).")


def test_pairwise_adverse_selection_rate_speaks_about_the_higher_rate():
    f = _pair_finding("statistical_parity", "adverse")   # a positive prediction harms: the higher rate loses
    assert (f.subgroup, f.reference, f.subgroup_value, f.reference_value) == ("x", "y", 0.5, 0.15)
    assert f.difference == pytest.approx(0.35) and f.difference_ci[0] > 0
    assert f.sentence.startswith("People in x were predicted positive at 3.33× the rate of people in y (selection "
                                 "rate 50.0 % vs 15.0 %, a difference of 35.0 percentage points; 95 % intervals: "
                                 f"ratio {f.ratio_ci[0]:.2f}–{f.ratio_ci[1]:.2f}, difference ")


@pytest.mark.parametrize("positive_outcome, subject, lead", [
    ("adverse", "x", "People in x who were labelled negative were predicted positive at 4.00× the rate of people in y"),
    ("favourable", "y", "People in y who were labelled negative were predicted positive at 0.25× the rate of people "
                        "in x"),
])
def test_pairwise_false_positive_rate_follows_the_outcome(positive_outcome, subject, lead):
    # A false positive is a wrong detention (adverse) or a wrong approval (favourable) for the person.
    f = _pair_finding("false_positive_rate", positive_outcome)
    assert f.subgroup == subject and f.sentence.startswith(lead + " (false positive rate ")


def test_pairwise_false_negative_rate_is_adverse_when_the_positive_prediction_is_favourable():
    # x: FNR 40/100, y: 80/100. Favourable positive prediction: a false negative denies it, so y (higher) loses.
    assert _pair_finding("false_negative_rate", "favourable").subgroup == "y"
    assert _pair_finding("false_negative_rate", "adverse").subgroup == "x"


def test_a_lower_rate_than_the_rest_reads_as_a_fraction_with_its_interval_turned():
    counts = counts_of({"a": (90, 10, 50, 50), "b": (60, 40, 50, 50)})
    f = next(f for f in rate_findings(counts, ["false_positive_rate"], limit=2) if f.subgroup == "a")
    assert (f.reference, f.subgroup_value, f.reference_value) == ("rest", 0.1, 0.4)
    low, high = f.ratio_ci
    assert f.sentence.startswith("People in a who were labelled negative were predicted positive at 0.25× the rate "
                                 "of everyone else (false positive rate 10.0 % vs 40.0 %")
    assert f"ratio {1 / high:.2f}–{1 / low:.2f}," in f.sentence and "by a factor of" not in f.sentence


def test_a_bad_positive_outcome_is_refused():
    with pytest.raises(ValueError, match="'positive_outcome' parameter of rate_findings"):
        rate_findings(counts_of(PAIR), ["false_positive_rate"], positive_outcome="good")


def test_rate_conclusions_label_the_intervals_of_one_comparison_and_of_the_max(compas_counts):
    # COMPAS, FPR difference against the rest: the top finding and the max's driver are the same comparison
    # (African-American, 22.8 points), whose own interval and the max's Bonferroni-joined interval differ.
    mapping = fc.ColumnMapping(label="two_year_recid", positive_label=1, scores=("decile_score",),
                               protected=("race",), positive_outcome="adverse")
    concluded = fc.rate_conclusions(compas_counts, mapping, rate_metrics=("false_positive_rate",), n_boot=300)
    top, driver = concluded.findings[0], concluded.findings[-1]
    result = concluded.results["max"][("false_positive_rate", "diff")]
    assert result.worst == ("African-American", "rest")
    own = re.search(r"95 % intervals: ratio [0-9.]+–[0-9.]+, difference ([0-9.]+)–([0-9.]+) points;", top)
    joined = re.search(r"\(95 % interval for the largest of (\d+) comparisons: ([0-9.]+)–([0-9.]+) points\), is "
                       r"African-American against everyone else", driver)
    assert own and joined and "22.8 percentage points" in top and "22.8 percentage points" in driver
    assert int(joined[1]) == result.n_used == 4
    assert (float(joined[2]), float(joined[3])) == (round(100 * result.ci_low, 1), round(100 * result.ci_high, 1))
    assert own.groups() != joined.groups()[1:]   # two intervals for one number: each says what it is
    # Pairwise, an adverse positive prediction: the findings speak about the group flagged more often.
    pairwise = fc.rate_conclusions(compas_counts, mapping, rate_metrics=("false_positive_rate",), n_boot=300,
                                   reference="pairwise")
    assert pairwise.findings[0].startswith("People in African-American who were labelled two_year_recid ≠ 1 were "
                                           "predicted two_year_recid = 1 at 3.04× the rate of people in Other")


def test_disparity_findings_label_adjusted_comparison_intervals_apart_from_the_max():
    counts = counts_of({"x": (150, 50, 100, 100), "y": (100, 100, 90, 110), "w": (160, 40, 100, 100)})
    result = counts.disparity("false_positive_rate", reduction="max", ci=0.95, adjust="holm")
    found = fc.disparity_findings(result, "false positive rate", percent=True)
    assert found[0].kind == "reduction" and "(95 % interval for the largest of 3 comparisons: " in found[0].sentence
    comparisons = [f for f in found if f.kind == "disparity"]
    assert comparisons and all("95 % interval (Holm-adjusted for 3 comparisons) " in f.sentence for f in comparisons)


def test_a_finding_writes_the_subgroup_as_the_data_does():
    """'afam=yes' starts a sentence as written: a column's name and value are never capitalized."""
    rng = np.random.default_rng(0)
    g = rng.choice(["afam=yes", "afam=no"], 4000)
    y = (rng.random(4000) < np.where(g == "afam=yes", 0.3, 0.1)).astype(int)
    found = [f.sentence for f in fc.disparity_findings(fc.dataset_statistical_parity(y, g, reduction="max", ci=0.95),
                                                       "base rate")]
    starts = [s for s in found if s.lower().startswith("afam=")]
    assert len(starts) == 2 and all(s.startswith(("afam=yes against", "afam=no against")) for s in starts), found
