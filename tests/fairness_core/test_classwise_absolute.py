"""Class-wise bias: the absolute difference per class, where signed differences of opposite sign cancel."""

import numpy as np
import pytest

import fairness_core as fc
from fairness_core._disparity.average_bias import DIFFERENCE_MESSAGE

# Two subgroups of 10 rows, classes a and b (5 true rows of each per subgroup).
# x: recall of a = 4/5 = 0.8, recall of b = 2/5 = 0.4;  y: recall of a = 2/5 = 0.4, recall of b = 4/5 = 0.8.
# Per class, x minus y: a +0.4, b -0.4 -> signed mean 0 (the "perfect" value); absolute mean 0.4.
TRUTH = ["a"] * 5 + ["b"] * 5 + ["a"] * 5 + ["b"] * 5
PREDICTION = (["a"] * 4 + ["b"] + ["b"] * 2 + ["a"] * 3
              + ["a"] * 2 + ["b"] * 3 + ["b"] * 4 + ["a"])
GROUPS = ["x"] * 10 + ["y"] * 10


def test_signed_differences_cancel_to_zero_and_absolute_ones_do_not():
    signed = fc.unweighted_average_bias(TRUTH, PREDICTION, GROUPS, metric="recall", reduction="difference")
    absolute = fc.unweighted_average_bias(TRUTH, PREDICTION, GROUPS, metric="recall",
                                          reduction="absolute_difference")
    assert signed.per_class["value"].tolist() == pytest.approx([0.4, -0.4])
    assert signed.value == pytest.approx(0.0, abs=1e-15)
    assert absolute.per_class["value"].tolist() == pytest.approx([0.4, 0.4])
    assert absolute.value == pytest.approx(0.4)
    assert absolute.reduction == "absolute_difference" and absolute.subgroups == ("x", "y")
    # the order of the two subgroups flips the sign, never the absolute value
    swapped = fc.unweighted_average_bias(TRUTH, PREDICTION, GROUPS, metric="recall",
                                         reduction="absolute_difference", subgroups=["y", "x"])
    assert swapped.value == pytest.approx(0.4)
    # the count table's method gives the same
    counts = fc.class_counts(TRUTH, PREDICTION, GROUPS)
    assert counts.unweighted_average_bias(metric="recall", reduction="absolute_difference").value == \
        pytest.approx(0.4)


def test_absolute_difference_compares_exactly_two_subgroups():
    with pytest.raises(ValueError, match="absolute_difference") as info:
        fc.unweighted_average_bias(TRUTH + ["a"], PREDICTION + ["a"], GROUPS + ["z"],
                                   reduction="absolute_difference")
    assert str(info.value).startswith(DIFFERENCE_MESSAGE.split("{")[0])


def test_intervals_of_both_differences():
    rng = np.random.default_rng(3)
    n = 400
    groups = np.repeat(["x", "y"], n // 2)
    truth = rng.choice(["a", "b", "c"], size=n)
    # x predicts a well and b badly, y the reverse; c equally well in both
    good = np.where(groups == "x", np.select([truth == "a", truth == "b"], [0.9, 0.5], 0.7),
                    np.select([truth == "a", truth == "b"], [0.5, 0.9], 0.7))
    prediction = np.where(rng.random(n) < good, truth, np.where(truth == "a", "b", "a"))
    kw = dict(metric="recall", ci=0.95, n_boot=1000, random_state=0)
    signed = fc.unweighted_average_bias(truth, prediction, groups, reduction="difference", **kw)
    absolute = fc.unweighted_average_bias(truth, prediction, groups, reduction="absolute_difference", **kw)
    s, a = signed.per_class.set_index("class"), absolute.per_class.set_index("class")
    np.testing.assert_allclose(a["value"], np.abs(s["value"]))
    assert s.loc["a", "value"] > 0.2 and s.loc["b", "value"] < -0.2  # opposite signs ...
    assert abs(signed.value) < 0.1 < 0.2 < absolute.value  # ... cancel in the signed mean only
    for cls in "ab":  # the signed interval excludes 0: the absolute one is its mirror image onto |d|
        low, high = sorted(abs(s.loc[cls, c]) for c in ("value_ci_low", "value_ci_high"))
        assert (a.loc[cls, "value_ci_low"], a.loc[cls, "value_ci_high"]) == pytest.approx((low, high))
        assert a.loc[cls, "value_ci_low"] > 0
    # class c: the signed interval straddles 0, so the absolute one starts at parity, 0
    assert s.loc["c", "value_ci_low"] < 0 < s.loc["c", "value_ci_high"]
    assert a.loc["c", "value_ci_low"] == 0
    assert a.loc["c", "value_ci_high"] == pytest.approx(max(-s.loc["c", "value_ci_low"], s.loc["c", "value_ci_high"]))
    for result in (signed, absolute):
        assert result.ci_low <= result.value <= result.ci_high and result.level == 0.95
    assert absolute.ci_low > 0.1  # the mean absolute gap is clearly above 0; the signed mean's interval is not
    assert signed.ci_low < 0 < signed.ci_high
    # the findings say which difference is shown and whether each interval excludes parity
    sentences = fc.classwise_findings(absolute)
    first = next(x for x in sentences if x.startswith("Class a:") or x.startswith("Class b:"))
    assert " of x and that of y differ by " in first and "the interval excludes 0 (parity)" in first
    c_sentence = next(x for x in sentences if x.startswith("Class c:"))
    assert "not distinguishable from parity at this sample size" in c_sentence
    assert any(" of x minus that of y is " in x for x in fc.classwise_findings(signed))
