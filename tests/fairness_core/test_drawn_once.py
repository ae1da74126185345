"""Bootstrap replicates drawn once per counts object and shared (ConfusionCounts.replicates): the same values as
drawing them again, the caller's tables its own, the memory kept bounded; and the verdict-only path (the intervals
as arrays: comparison_ends, largest_disparity, smallest_ratio_score) gives the tables' numbers exactly."""

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._counts import confusion
from fairness_core._disparity.compare import add_intervals, comparison_ends

RNG = np.random.default_rng(3)
N = 20_000
GROUPS = RNG.choice(np.array(list("ABCDEFG")), N, p=[0.3, 0.2, 0.2, 0.1, 0.1, 0.07, 0.03])
Y = RNG.integers(0, 2, N)
PRED = (RNG.random(N) < np.where(GROUPS == "A", 0.5, 0.35)).astype(int)
KW = dict(ci=0.95, n_boot=400, random_state=0)


def fresh() -> fc.ConfusionCounts:
    return fc.confusion_counts(Y, PRED, GROUPS)


@pytest.mark.parametrize("metric", ["false_positive_rate", "statistical_parity"])
@pytest.mark.parametrize("distance", ["diff", "ratio"])
@pytest.mark.parametrize("reduction", ["max", "mean", None])
def test_a_second_call_equals_a_first_on_new_counts(metric, distance, reduction):
    counts = fresh()
    counts.disparity(metric, distance_measure="diff", reduction="max", adjust="holm", **KW)   # draws and keeps
    again = counts.disparity(metric, distance_measure=distance, reduction=reduction, adjust="holm", **KW)
    first = fresh().disparity(metric, distance_measure=distance, reduction=reduction, adjust="holm", **KW)
    if reduction is None:
        pd.testing.assert_frame_equal(again, first)
    else:
        pd.testing.assert_frame_equal(again.table, first.table)
        assert (again.value, again.ci_low, again.ci_high, again.worst) == (first.value, first.ci_low, first.ci_high,
                                                                           first.worst)


def test_the_callers_table_is_its_own_and_findings_are_unchanged():
    counts = fresh()
    table = counts.disparity("false_positive_rate", reduction=None, **KW)
    table.loc[:, "disparity"] = -1.0
    assert (counts.disparity("false_positive_rate", reduction=None, **KW)["disparity"] >= 0).all()
    shared = fc.rate_findings(counts, ["false_positive_rate", "false_negative_rate"], **KW)
    alone = fc.rate_findings(fresh(), ["false_positive_rate", "false_negative_rate"], **KW)
    assert [f.sentence for f in shared] == [f.sentence for f in alone] and shared


def test_replicates_kept_stay_within_the_bound(monkeypatch):
    monkeypatch.setattr(confusion, "DRAWN_BYTES", 400 * 7 * 8 * 2 * 2)   # room for two rates' replicates
    counts = fresh()
    for metric in ("false_positive_rate", "false_negative_rate", "true_positive_rate"):
        counts.disparity(metric, reduction="max", **KW)
    kept = [k for k in counts._drawn if k[0] == "replicates"]
    assert [k[1] for k in kept] == ["false_positive_rate", "false_negative_rate"]
    # beyond the bound the values are still the same (drawn again)
    assert counts.disparity("true_positive_rate", reduction="max", **KW).ci_high == \
        fresh().disparity("true_positive_rate", reduction="max", **KW).ci_high


def test_a_subgroup_named_like_a_keyword_is_not_the_keyword():
    groups = np.where(GROUPS == "A", "rest", GROUPS)
    counts = fc.confusion_counts(Y, PRED, groups)
    keyword = counts.disparity("false_positive_rate", reduction=None, reference="rest", **KW)
    named = counts.disparity("false_positive_rate", reduction=None, reference=fc.named_reference("rest"), **KW)
    assert set(named["reference"]) == {"rest"} and "rest" not in set(named["subgroup"])
    assert "rest" in set(keyword["subgroup"])
    pd.testing.assert_frame_equal(named, fc.confusion_counts(Y, PRED, groups).disparity(
        "false_positive_rate", reduction=None, reference=fc.named_reference("rest"), **KW))


def test_a_generator_seed_is_never_kept():
    counts = fresh()
    counts.disparity("false_positive_rate", reduction="max", ci=0.95, n_boot=200,
                     random_state=np.random.default_rng(0))
    assert not counts._drawn


@pytest.mark.parametrize("distance", ["diff", "ratio"])
@pytest.mark.parametrize("level", [0.9, 0.99])
def test_the_array_intervals_are_the_tables(distance, level):
    """comparison_ends (no table, no p-value bisection) gives add_intervals' unadjusted interval columns."""
    counts = fresh()
    columns = counts._comparison_columns("false_positive_rate", distance, "rest", "test")
    plain = pd.DataFrame(columns)
    signed, disparity = counts.replicates("false_positive_rate", distance_measure=distance, reference="rest",
                                          n_boot=400)
    sides = confusion._sides(counts._side_counts(columns, "false_positive_rate", "rest"), distance)
    full = add_intervals(plain, signed, disparity, distance_measure=distance, level=level, adjust=None,
                         func="test", sides=sides)
    (low, high), = comparison_ends(plain["disparity"].to_numpy(), signed, disparity, (level,),
                                   parity=0.0 if distance == "diff" else 1.0, sides=sides)
    np.testing.assert_array_equal(low, full["disparity_ci_low"].to_numpy(dtype=np.float64))
    np.testing.assert_array_equal(high, full["disparity_ci_high"].to_numpy(dtype=np.float64))
    assert np.isfinite(low).any() and (low != high).any()


def _weighted() -> fc.ConfusionCounts:
    w = np.random.default_rng(5).integers(1, 4, N).astype(float)
    return fc.confusion_counts(Y, PRED, GROUPS, sample_weight=w)


@pytest.mark.parametrize("metric", ["false_positive_rate", "false_negative_rate", "statistical_parity",
                                    "equalized_odds"])
@pytest.mark.parametrize("distance", ["diff", "ratio"])
@pytest.mark.parametrize("reference", ["rest", "overall", "pairwise", "A"])
@pytest.mark.parametrize("include_small", [False, True])
@pytest.mark.parametrize("ci", [None, 0.9])
def test_the_largest_disparity_as_numbers_is_the_tables(metric, distance, reference, include_small, ci):
    counts = fc.confusion_counts(Y[:3000], PRED[:3000], GROUPS[:3000])   # group G has ~90 rows: small for some rates
    kw = dict(distance_measure=distance, reduction="max", reference=reference, include_small=include_small, ci=ci,
              n_boot=300, random_state=0)
    full = (counts.equalized_odds(**kw) if metric == "equalized_odds" else counts.disparity(metric, **kw))
    kw.pop("reduction")
    got = fc.confusion_counts(Y[:3000], PRED[:3000], GROUPS[:3000]).largest_disparity(metric, **kw)   # new counts
    np.testing.assert_array_equal(got, (full.value, full.ci_low, full.ci_high))
    assert np.isfinite(got[0]) and (ci is None) == np.isnan(got[1])


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("rate", ["selection_rate", "true_positive_rate"])
@pytest.mark.parametrize("include_small", [False, True])
def test_the_smallest_ratio_score_as_numbers_is_the_tables(weighted, rate, include_small):
    counts = _weighted() if weighted else fresh()
    full = counts.ratio_scores(rate, include_small=include_small, ci=0.95, n_boot=300, random_state=1)
    got = counts.smallest_ratio_score(rate, include_small=include_small, ci=0.95, n_boot=300, random_state=1)
    np.testing.assert_array_equal(got, (full.value, full.ci_low, full.ci_high))
    assert 0 < got[1] < got[0] <= got[2] <= 1.0 / got[1]
    assert counts.smallest_ratio_score(rate, include_small=include_small)[0] == full.value


def test_weighted_largest_disparity_is_the_tables():
    counts = _weighted()
    full = counts.disparity("false_positive_rate", reduction="max", **KW)
    np.testing.assert_array_equal(counts.largest_disparity("false_positive_rate", **KW),
                                  (full.value, full.ci_low, full.ci_high))
