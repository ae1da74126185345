"""Policy rules and verdicts (fairness_core._policy.rules): constructed cases for every status, the units guard, JSON."""

from __future__ import annotations

import json
import math
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._data.checks import OPTION_MESSAGE
from fairness_core._policy.defaults import DEFAULT_RULES
from fairness_core._policy.rules import (BOUND_RANGE_MESSAGE, DICT_TYPE_MESSAGE, DIRECTION_MESSAGE,
    DISTANCE_NONE_MESSAGE, DISTANCE_REQUIRED_MESSAGE, DUPLICATE_NAME_MESSAGE, FIELD_OPTION_MESSAGE,
    FIELD_TYPE_MESSAGE, METRICS, MISSING_FIELDS_MESSAGE, NAME_MESSAGE, RATIO_BOUND_MESSAGE, RATIO_WITHIN_MESSAGE,
    RULES_TYPE_MESSAGE, STATUSES, UNKNOWN_FIELDS_MESSAGE, Rule)
from fairness_core._policy.rules_json import (JSON_LIST_MESSAGE, JSON_MESSAGE, RULE_ITEM_MESSAGE, rules_from_json,
    rules_to_json)
from fairness_core._policy.verdicts import (INFINITE_RATIO_NOTE, INFINITE_REASON, INTERVAL_ORDER_MESSAGE,
    LEVEL_MESSAGE, NO_INTERVAL_NOTE, RESULT_VALUE_MESSAGE, SUMMARY_COLUMNS, UNDEFINED_NOTE, UNITS_MESSAGE,
    VALUE_TYPE_MESSAGE, Verdict, evaluate, evaluate_result, summarize_verdicts)

NAN, INF = float("nan"), float("inf")
RULES = {r.name: r for r in DEFAULT_RULES}
FOUR_FIFTHS = RULES["four_fifths"]              # 'min', bound 0.8
FPR_RATIO = RULES["false_positive_rate_ratio"]  # 'max', ratio, bound 1.25
CALIBRATION = RULES["calibration_diff"]         # 'max', diff, bound 0.1


def msg(template: str, **kwargs) -> str:
    """The exact message, escaped for pytest.raises(match=...)."""
    return "^" + re.escape(template.format(**kwargs)) + "$"


# --- verdicts ---------------------------------------------------------------------------------

@pytest.mark.parametrize("rule, value, low, high, status", [
    # 'min' (value must be >= 0.8)
    (FOUR_FIFTHS, 0.90, 0.85, 0.95, "pass"),
    (FOUR_FIFTHS, 0.80, 0.80, 0.95, "pass"),          # on the bound counts as within
    (FOUR_FIFTHS, 0.70, 0.60, 0.75, "fail"),
    (FOUR_FIFTHS, 0.78, 0.70, 0.86, "inconclusive"),
    (FOUR_FIFTHS, 0.85, 0.75, 0.90, "inconclusive"),  # point passes, interval straddles
    # 'max' (value must be <= 1.25)
    (FPR_RATIO, 1.10, 1.05, 1.20, "pass"),
    (FPR_RATIO, 1.40, 1.30, 1.50, "fail"),
    (FPR_RATIO, 1.20, 1.10, 1.40, "inconclusive"),
    (FPR_RATIO, 1.30, 1.25, 1.40, "inconclusive"),    # ci_low on the bound: not beyond it
    (CALIBRATION, 0.05, 0.02, 0.08, "pass"),
    (CALIBRATION, 0.20, 0.15, 0.25, "fail"),
    (CALIBRATION, 0.09, 0.04, 0.14, "inconclusive"),
])
def test_interval_decides(rule, value, low, high, status):
    v = evaluate(rule, value, ci_low=low, ci_high=high, level=0.95)
    assert isinstance(v, Verdict)
    assert (v.status, v.value, v.ci_low, v.ci_high, v.level, v.rule) == (status, value, low, high, 0.95, rule)
    assert "95 % interval" in v.sentence
    assert {"pass": "passes.", "fail": "fails.", "inconclusive": "inconclusive at this sample size."}[status] \
        in v.sentence
    assert v.note == ""


@pytest.mark.parametrize("rule, value, status", [
    (FOUR_FIFTHS, 0.85, "pass"),
    (FOUR_FIFTHS, 0.80, "pass"),
    (FOUR_FIFTHS, 0.79, "fail"),
    (FPR_RATIO, 1.25, "pass"),
    (FPR_RATIO, 1.26, "fail"),
    (CALIBRATION, 0.1, "pass"),
    (CALIBRATION, 0.4 - 0.3, "pass"),   # stored as 0.10000000000000003: rounding never flips a verdict
    (CALIBRATION, 0.11, "fail"),
])
@pytest.mark.parametrize("low, high", [(None, None), (NAN, NAN), (0.5, NAN), (NAN, 0.5)])
def test_point_decides_without_interval(rule, value, status, low, high):
    v = evaluate(rule, value, ci_low=low, ci_high=high)
    assert v.status == status
    if low is None:
        assert math.isnan(v.ci_low) and math.isnan(v.ci_high)
    assert v.note == NO_INTERVAL_NOTE
    assert v.sentence.endswith(f"{NO_INTERVAL_NOTE}.")


def test_sentences_read_as_documented():
    assert evaluate(FOUR_FIFTHS, 0.72, ci_low=0.65, ci_high=0.78, level=0.95).sentence == (
        "Four-fifths rule: p% score 0.72 (95 % interval 0.65–0.78) is below 0.8 across the whole interval: fails.")
    assert evaluate(FOUR_FIFTHS, 0.78, ci_low=0.7, ci_high=0.86, level=0.9).sentence == (
        "Four-fifths rule: p% score 0.78 (90 % interval 0.7–0.86) is below 0.8, but the interval straddles 0.8: "
        "inconclusive at this sample size. At this estimate about 27 times the rows would decide it.")
    # (1.3 x (0.86 - 0.78) / (0.8 - 0.78))² = 5.2² = 27.04: the larger half must shrink below the gap to 0.8.
    assert evaluate(FOUR_FIFTHS, 0.78, ci_low=0.7, ci_high=0.86).rows_factor == pytest.approx(27.04)
    assert evaluate(FPR_RATIO, 1.1, ci_low=1.05, ci_high=1.2).sentence == (
        "False positive rate band: false positive rate disparity (ratio) 1.1 (interval 1.05–1.2) is at most 1.25 "
        "across the whole interval: passes.")
    assert evaluate(CALIBRATION, 0.4 - 0.3).sentence == (
        f"Calibration: calibration disparity (excess ℓ2 ECE) 0.1 is at most 0.1: passes; {NO_INTERVAL_NOTE}.")
    # A value that rounds to the bound but is on the other side shows enough digits.
    assert "0.79996" in evaluate(FOUR_FIFTHS, 0.79996).sentence
    # A label without a title: the sentence opens with the metric.
    rule = Rule(metric="theil_index", bound=0.02)
    assert evaluate(rule, 0.01).sentence.startswith("Theil index 0.01 is at most 0.02: passes")


@pytest.mark.parametrize("rule", DEFAULT_RULES)
def test_careful_voice(rule):
    b, up = rule.bound, (0.05 if rule.direction == "min" else -0.05)
    verdicts = [evaluate(rule, b + up, ci_low=b + up - 0.01, ci_high=b + up + 0.01),   # pass
                evaluate(rule, b - up, ci_low=b - up - 0.01, ci_high=b - up + 0.01),   # fail
                evaluate(rule, b, ci_low=b - 0.01, ci_high=b + 0.01),                  # inconclusive
                evaluate(rule, b + up), evaluate(rule, b - up), evaluate(rule, NAN)]
    assert [v.status for v in verdicts] == ["pass", "fail", "inconclusive", "pass", "fail", "not_assessable"]
    for v in verdicts:
        assert not re.search(r"\b(fair|unfair|unbiased|debiased|biased)\b", v.sentence, re.IGNORECASE), v.sentence


@pytest.mark.parametrize("rule", [FOUR_FIFTHS, FPR_RATIO, CALIBRATION])
@pytest.mark.parametrize("low, high", [(None, None), (0.1, 0.9)])
def test_nan_is_undefined(rule, low, high):
    v = evaluate(rule, NAN, ci_low=low, ci_high=high)
    assert v.status == "not_assessable"
    assert v.note == UNDEFINED_NOTE
    assert v.sentence.endswith(f"could not be assessed ({UNDEFINED_NOTE}).")
    v = evaluate(rule, np.float64("nan"), note="sensitive == 0: no rows")
    assert v.status == "not_assessable" and v.note == "sensitive == 0: no rows"
    assert "(sensitive == 0: no rows)" in v.sentence


def test_infinite_ratio_fails_and_says_why():
    v = evaluate(FPR_RATIO, INF, distance_measure="ratio")
    assert v.status == "fail"
    assert v.note == f"{INFINITE_RATIO_NOTE}; {NO_INTERVAL_NOTE}"
    assert v.sentence == (
        f"False positive rate band: false positive rate disparity (ratio) is infinite because {INFINITE_REASON}, "
        f"so it is above 1.25: fails; {NO_INTERVAL_NOTE}.")
    # With an interval, the interval decides; the sentence still says why the point is infinite.
    assert evaluate(FPR_RATIO, INF, ci_low=2.0, ci_high=INF).status == "fail"
    straddling = evaluate(FPR_RATIO, INF, ci_low=1.1, ci_high=INF, level=0.95)
    assert straddling.status == "inconclusive" and straddling.note == INFINITE_RATIO_NOTE
    assert "∞ (95 % interval 1.1–∞)" in straddling.sentence
    assert straddling.sentence.endswith(f"The point estimate is infinite because {INFINITE_REASON}.")


def test_units_guard():
    # The real defect: a calibration ratio of 12.13 judged against the 0.1 difference bound.
    with pytest.raises(ValueError, match=msg(UNITS_MESSAGE, name="calibration_diff", metric="calibration_disparity",
                                             expected="diff", bound=0.1, got="ratio")):
        evaluate(CALIBRATION, 12.13, distance_measure="ratio")
    with pytest.raises(ValueError, match=msg(UNITS_MESSAGE, name="false_positive_rate_ratio",
                                             metric="false_positive_rate", expected="ratio", bound=1.25, got="diff")):
        evaluate(FPR_RATIO, 0.05, distance_measure="diff")
    with pytest.raises(ValueError, match=msg(UNITS_MESSAGE, name="four_fifths", metric="p_percent_score",
                                             expected=None, bound=0.8, got="ratio")):
        evaluate(FOUR_FIFTHS, 0.9, distance_measure="ratio")
    with pytest.raises(ValueError, match=msg(OPTION_MESSAGE, param="distance_measure", func="evaluate",
                                             allowed=["diff", "ratio"], got="log")):
        evaluate(CALIBRATION, 0.05, distance_measure="log")
    assert evaluate(CALIBRATION, 0.05, distance_measure="diff").status == "pass"


def test_evaluate_refuses_bad_arguments():
    with pytest.raises(ValueError, match=msg(INTERVAL_ORDER_MESSAGE, low=0.9, high=0.8)):
        evaluate(FOUR_FIFTHS, 0.85, ci_low=0.9, ci_high=0.8)
    for level in (0, 1, 95, True, "0.95"):
        with pytest.raises(ValueError, match=msg(LEVEL_MESSAGE, func="evaluate", got=level)):
            evaluate(FOUR_FIFTHS, 0.85, level=level)
    with pytest.raises(TypeError, match=msg(VALUE_TYPE_MESSAGE, param="value", got="0.9")):
        evaluate(FOUR_FIFTHS, "0.9")
    with pytest.raises(TypeError, match=msg(VALUE_TYPE_MESSAGE, param="value", got=None)):
        evaluate(FOUR_FIFTHS, None)
    with pytest.raises(TypeError, match=msg(VALUE_TYPE_MESSAGE, param="ci_high", got="x")):
        evaluate(FOUR_FIFTHS, 0.9, ci_low=0.8, ci_high="x")
    with pytest.raises(TypeError, match="The 'rule' parameter of evaluate must be a Rule. Got dict instead."):
        evaluate(FOUR_FIFTHS.to_dict(), 0.9)


# --- evaluate_result --------------------------------------------------------------------------

def test_evaluate_result_reads_the_fields():
    result = SimpleNamespace(value=1.4, ci_low=1.3, ci_high=1.5, distance_measure="ratio", level=0.9)
    v = evaluate_result(FPR_RATIO, result)
    assert (v.status, v.value, v.ci_low, v.ci_high, v.level) == ("fail", 1.4, 1.3, 1.5, 0.9)
    assert "(90 % interval 1.3–1.5)" in v.sentence
    assert evaluate_result(FPR_RATIO, result, level=0.99).level == 0.99
    # No interval fields (results gaining them now): the point decides.
    v = evaluate_result(FOUR_FIFTHS, SimpleNamespace(value=0.7))
    assert v.status == "fail" and math.isnan(v.ci_low) and v.note == NO_INTERVAL_NOTE
    # The units guard applies to the result's distance measure, also when it sits on `.disparity`
    # (CalibrationDisparityResult keeps it there).
    with pytest.raises(ValueError, match=msg(UNITS_MESSAGE, name="calibration_diff", metric="calibration_disparity",
                                             expected="diff", bound=0.1, got="ratio")):
        evaluate_result(CALIBRATION, SimpleNamespace(value=12.13, distance_measure="ratio"))
    nested = SimpleNamespace(value=12.13, disparity=SimpleNamespace(value=12.13, distance_measure="ratio"))
    with pytest.raises(ValueError, match="is never compared with a difference bound"):
        evaluate_result(CALIBRATION, nested)
    # An undefined value carries the result's own note, or why no comparison entered it.
    v = evaluate_result(FOUR_FIFTHS, SimpleNamespace(value=NAN, note="sensitive == 1: no rows"))
    assert v.status == "not_assessable" and v.note == "sensitive == 1: no rows"
    v = evaluate_result(FPR_RATIO, SimpleNamespace(value=NAN, distance_measure="ratio", n_used=0, n_undefined=2,
                                                   n_small_excluded=1))
    assert v.note == "no comparison entered it: 2 comparison(s) undefined, 1 left out as small"
    with pytest.raises(TypeError, match=msg(RESULT_VALUE_MESSAGE, got="float")):
        evaluate_result(FOUR_FIFTHS, 0.9)


def test_evaluate_result_on_library_results():
    import fairness_core as fc

    y_true = np.array([1, 1, 0, 0, 1, 1, 0, 0, 1, 0] * 3)
    y_pred = np.array([1, 0, 1, 0, 1, 1, 0, 0, 0, 0] * 3)
    group = np.array(["a"] * 10 + ["b"] * 10 + ["c"] * 10)
    group[::7] = "b"
    res = fc.rate_disparity(y_true, y_pred, pd.Series(group, name="g"), metric="false_positive_rate",
                            distance_measure="ratio", reduction="max")
    assert evaluate_result(FPR_RATIO, res).value == res.value
    with pytest.raises(ValueError, match="is never compared"):
        evaluate_result(RULES["calibration_diff"], fc.calibration_disparity(
            y_true, np.linspace(0.05, 0.95, 30), pd.Series(group, name="g"), distance_measure="ratio"))
    score = fc.p_percent_score(y_pred, group == "a")
    assert evaluate_result(FOUR_FIFTHS, score).value == score.value


# --- rules, validation and JSON ---------------------------------------------------------------

def test_default_rules():
    assert [r.name for r in DEFAULT_RULES] == ["four_fifths", "equal_opportunity", "selection_rate_ratio",
                                               "true_positive_rate_ratio", "false_positive_rate_ratio",
                                               "calibration_diff"]
    assert (FOUR_FIFTHS.metric, FOUR_FIFTHS.bound, FOUR_FIFTHS.direction) == ("p_percent_score", 0.8, "min")
    assert FOUR_FIFTHS.label == "Four-fifths rule: p% score >= 0.8"
    for name, metric in [("selection_rate_ratio", "statistical_parity"), ("true_positive_rate_ratio",
                         "true_positive_rate"), ("false_positive_rate_ratio", "false_positive_rate")]:
        r = RULES[name]
        assert (r.metric, r.distance_measure, r.bound, r.direction) == (metric, "ratio", 1.25, "max")
    assert (CALIBRATION.distance_measure, CALIBRATION.bound, CALIBRATION.direction) == ("diff", 0.1, "max")
    assert not any(r.metric == "bias_auc_score" for r in DEFAULT_RULES)
    assert isinstance(DEFAULT_RULES, tuple)


def test_json_round_trip():
    text = rules_to_json(DEFAULT_RULES)
    assert rules_from_json(text) == list(DEFAULT_RULES)
    data = json.loads(text)
    assert [sorted(d) for d in data] == [sorted(["name", "metric", "distance_measure", "bound", "direction",
                                                 "label"])] * len(DEFAULT_RULES)
    extra = [Rule(metric="bias_auc_score", bound=0.75), Rule(metric="theil_index", bound=0.02),
             Rule(metric="false_negative_rate", distance_measure="diff", bound=0.05, direction="max"),
             Rule.ratio_within("dataset_statistical_parity", high=1.5)]
    assert rules_from_json(rules_to_json(extra)) == extra
    for r in DEFAULT_RULES + tuple(extra):
        assert Rule.from_dict(r.to_dict()) == r and hash(Rule.from_dict(r.to_dict())) == hash(r)


def test_user_rules_and_derived_fields():
    r = Rule(metric="false_negative_rate", distance_measure="diff", bound=0.05, direction="max")
    assert r.name == "false_negative_rate_diff_max_0.05"
    assert r.label == "False negative rate disparity (difference) <= 0.05"
    r = Rule(metric="bias_auc_score", bound=1)
    assert (r.direction, r.bound, type(r.bound), r.label) == ("min", 1.0, float, "Bias AUC score >= 1")
    assert Rule(metric="p_percent_score", bound=0.8).label == "p% score >= 0.8"
    with pytest.raises(TypeError):
        Rule("x", "p_percent_score", None, 0.8)  # keyword-only


def test_ratio_within():
    assert Rule.ratio_within("false_positive_rate") == Rule.ratio_within("false_positive_rate", low=0.8, high=1.25)
    r = Rule.ratio_within("false_positive_rate", low=0.8)
    assert (r.bound, r.distance_measure, r.direction) == (1.25, "ratio", "max")
    assert r.label == "False positive rate disparity ratio within [0.8, 1.25]"
    assert Rule.ratio_within("error_rate", high=1.25).bound == 1.25
    for low, high in [(0.8, 1.5), (0.9, 1.25), (1.25, 0.8), (0, 1.25), (-0.8, None), (NAN, None), ("0.8", None)]:
        with pytest.raises(ValueError, match="^" + re.escape(RATIO_WITHIN_MESSAGE[:40])):
            Rule.ratio_within("false_positive_rate", low=low, high=high)
    with pytest.raises(ValueError, match=msg(RATIO_WITHIN_MESSAGE, low=0.8, high=1.5)):
        Rule.ratio_within("false_positive_rate", low=0.8, high=1.5)
    with pytest.raises(ValueError, match=msg(DISTANCE_NONE_MESSAGE, metric="p_percent_score", got="ratio")):
        Rule.ratio_within("p_percent_score")


@pytest.mark.parametrize("fields, message", [
    ({"metric": "accuracy", "bound": 0.8},
     msg(FIELD_OPTION_MESSAGE, field="metric", allowed=list(METRICS), got="accuracy")),
    ({"metric": "false_positive_rate", "bound": 0.1},
     msg(DISTANCE_REQUIRED_MESSAGE, metric="false_positive_rate", got=None)),
    ({"metric": "false_positive_rate", "distance_measure": "log", "bound": 0.1},
     msg(DISTANCE_REQUIRED_MESSAGE, metric="false_positive_rate", got="log")),
    ({"metric": "theil_index", "distance_measure": "diff", "bound": 0.1},
     msg(DISTANCE_NONE_MESSAGE, metric="theil_index", got="diff")),
    ({"metric": "p_percent_score", "bound": 0.8, "direction": "up"},
     msg(FIELD_OPTION_MESSAGE, field="direction", allowed=["max", "min"], got="up")),
    ({"metric": "p_percent_score", "bound": 0.8, "direction": "max"},
     msg(DIRECTION_MESSAGE, metric="p_percent_score", expected="min", got="max",
         why="a score is higher the closer the groups are (1 is parity), so it is bounded from below")),
    ({"metric": "error_rate", "distance_measure": "diff", "bound": 0.1, "direction": "min"},
     msg(DIRECTION_MESSAGE, metric="error_rate", expected="max", got="min",
         why="a disparity is lower the closer the groups are, so it is bounded from above")),
    ({"metric": "false_positive_rate", "distance_measure": "ratio", "bound": 0.8},
     msg(RATIO_BOUND_MESSAGE, metric="false_positive_rate", got=0.8)),
    ({"metric": "false_positive_rate", "distance_measure": "diff", "bound": 1.25},
     msg(BOUND_RANGE_MESSAGE, metric="false_positive_rate", distance="diff", expected="in [0, 1]", got=1.25)),
    ({"metric": "calibration_disparity", "distance_measure": "diff", "bound": -0.1},
     msg(BOUND_RANGE_MESSAGE, metric="calibration_disparity", distance="diff", expected="in [0, 1]", got=-0.1)),
    ({"metric": "p_percent_score", "bound": 80},
     msg(BOUND_RANGE_MESSAGE, metric="p_percent_score", distance=None, expected="in [0, 1]", got=80)),
    ({"metric": "theil_index", "bound": -1},
     msg(BOUND_RANGE_MESSAGE, metric="theil_index", distance=None, expected="a finite number >= 0", got=-1)),
    ({"metric": "p_percent_score", "bound": "0.8"},
     msg(FIELD_TYPE_MESSAGE, field="bound", expected="a finite number", got="0.8")),
    ({"metric": "p_percent_score", "bound": True},
     msg(FIELD_TYPE_MESSAGE, field="bound", expected="a finite number", got=True)),
    ({"metric": "false_positive_rate", "distance_measure": "ratio", "bound": INF},
     msg(FIELD_TYPE_MESSAGE, field="bound", expected="a finite number", got=INF)),
    ({"metric": "p_percent_score", "bound": None},
     msg(FIELD_TYPE_MESSAGE, field="bound", expected="a finite number", got=None)),
    ({"name": "four fifths!", "metric": "p_percent_score", "bound": 0.8}, msg(NAME_MESSAGE, got="four fifths!")),
    ({"name": 3, "metric": "p_percent_score", "bound": 0.8},
     msg(FIELD_TYPE_MESSAGE, field="name", expected="a str", got=3)),
    ({"metric": "p_percent_score", "bound": 0.8, "label": ["x"]},
     msg(FIELD_TYPE_MESSAGE, field="label", expected="a str", got=["x"])),
    ({"metric": "p_percent_score", "bound": 0.8, "threshold": 0.8},
     msg(UNKNOWN_FIELDS_MESSAGE, got=["threshold"], allowed=["name", "metric", "distance_measure", "bound",
                                                              "direction", "label"])),
    ({"metric": "p_percent_score"}, msg(MISSING_FIELDS_MESSAGE, missing=["bound"], got=["metric"])),
])
def test_invalid_fields(fields, message):
    with pytest.raises(ValueError, match=message):
        Rule.from_dict(fields)
    # The same message, with the rule's index, from JSON.
    inner = message[1:-1]
    with pytest.raises(ValueError, match="^" + re.escape(RULE_ITEM_MESSAGE.format(index=1, error=""))
                       + inner + "$"):
        rules_from_json(json.dumps([FOUR_FIFTHS.to_dict(), fields]))


def test_invalid_json():
    bad = "[{'metric': 'p_percent_score'}]"
    with pytest.raises(json.JSONDecodeError) as decode:
        json.loads(bad)
    with pytest.raises(ValueError, match=msg(JSON_MESSAGE, error=decode.value)):
        rules_from_json(bad)
    with pytest.raises(ValueError, match=msg(JSON_LIST_MESSAGE, got="object")):
        rules_from_json(json.dumps(FOUR_FIFTHS.to_dict()))
    with pytest.raises(ValueError, match=msg(RULE_ITEM_MESSAGE, index=0, error=DICT_TYPE_MESSAGE.format(got="int"))):
        rules_from_json("[1]")
    with pytest.raises(ValueError, match=msg(DUPLICATE_NAME_MESSAGE, names="'four_fifths'")):
        rules_from_json(rules_to_json([FOUR_FIFTHS]).replace("]", ", " + json.dumps(FOUR_FIFTHS.to_dict()) + "]"))
    with pytest.raises(ValueError, match=msg(DUPLICATE_NAME_MESSAGE, names="'four_fifths'")):
        rules_to_json([FOUR_FIFTHS, FOUR_FIFTHS])
    with pytest.raises(TypeError, match=msg(RULES_TYPE_MESSAGE, func="rules_to_json", got="dict", index=1)):
        rules_to_json([FOUR_FIFTHS, FOUR_FIFTHS.to_dict()])
    with pytest.raises(TypeError, match="^The 'text' parameter of rules_from_json must be a str. Got list instead.$"):
        rules_from_json([FOUR_FIFTHS.to_dict()])
    assert rules_from_json("[]") == []


# --- summary ----------------------------------------------------------------------------------

def test_summarize_verdicts():
    verdicts = [evaluate(FOUR_FIFTHS, 0.9, ci_low=0.85, ci_high=0.95),
                evaluate(FPR_RATIO, 1.4, ci_low=1.3, ci_high=1.5),
                evaluate(CALIBRATION, 0.09, ci_low=0.04, ci_high=0.14),
                evaluate(RULES["equal_opportunity"], NAN),
                evaluate(RULES["selection_rate_ratio"], 1.1)]
    frame = summarize_verdicts(verdicts)
    assert list(frame.columns) == SUMMARY_COLUMNS
    assert {"rule", "metric", "value", "ci_low", "ci_high", "bound", "direction", "status", "sentence"} \
        <= set(frame.columns)
    assert frame["rule"].tolist() == ["four_fifths", "false_positive_rate_ratio", "calibration_diff",
                                      "equal_opportunity", "selection_rate_ratio"]
    assert frame["status"].tolist() == ["pass", "fail", "inconclusive", "not_assessable", "pass"]
    assert frame["bound"].tolist() == [0.8, 1.25, 0.1, 0.8, 1.25]
    assert frame["sentence"].tolist() == [v.sentence for v in verdicts]
    assert frame.attrs["counts"] == {"pass": 2, "fail": 1, "inconclusive": 1, "not_assessable": 1}
    assert tuple(frame.attrs["counts"]) == STATUSES
    empty = summarize_verdicts([])
    assert list(empty.columns) == SUMMARY_COLUMNS and empty.empty
    assert empty.attrs["counts"] == dict.fromkeys(STATUSES, 0)
    with pytest.raises(TypeError, match="^summarize_verdicts needs Verdict objects. Got float at index 0.$"):
        summarize_verdicts([0.5])


def test_verdict_and_rule_are_frozen():
    v = evaluate(FOUR_FIFTHS, 0.9)
    with pytest.raises(AttributeError):
        v.status = "fail"
    with pytest.raises(AttributeError):
        FOUR_FIFTHS.bound = 0.5


def test_docstring_examples():
    import doctest

    import fairness_core._policy.rules as module

    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# Verdicts that say what they could not assess ---------------------------------------------------

def _few_positives(n_small_pos: int = 20):
    """Two large groups and 'afam' with `n_small_pos` actual positives among 200 rows."""
    rng = np.random.default_rng(3)
    g = np.array(["a"] * 1500 + ["b"] * 1500 + ["afam"] * 200)
    y = (rng.random(len(g)) < 0.4).astype(int)
    y[-200:] = 0
    y[-n_small_pos:] = 1
    y_pred = (rng.random(len(g)) < 0.3 + 0.4 * y).astype(int)
    return y, y_pred, fc.Subgroups.from_attributes(pd.DataFrame({"g": g}), ["g"], min_size=30)


def test_a_verdict_names_the_subgroups_it_left_out_and_why():
    y, y_pred, groups = _few_positives()
    result = fc.rate_disparity(y, y_pred, groups, metric="false_negative_rate", reduction="max", ci=0.95,
                               n_boot=200)
    verdict = fc.evaluate_result(fc.Rule(metric="false_negative_rate", distance_measure="diff", bound=0.1), result)
    why = "afam: 20 actual positives (the denominator of the false negative rate) < minimum 30"
    assert verdict.left_out == (why,)
    assert verdict.sentence.endswith(f"Not assessed: {why}.")
    # Included on request: nothing is left out.
    kept = fc.rate_disparity(y, y_pred, groups, metric="false_negative_rate", reduction="max", ci=0.95,
                             n_boot=200, include_small=True)
    assert fc.evaluate_result(fc.Rule(metric="false_negative_rate", distance_measure="diff", bound=0.1),
                              kept).left_out == ()


def test_every_comparison_left_out_is_not_assessable():
    y, y_pred, groups = _few_positives()
    tiny = fc.Subgroups.from_attributes(pd.DataFrame({"g": ["a"] * 10 + ["b"] * 12}), ["g"], min_size=30)
    result = fc.rate_disparity(y[:22], y_pred[:22], tiny, metric="statistical_parity",
                               reduction="max")
    verdict = fc.evaluate_result(fc.Rule(metric="statistical_parity", distance_measure="diff", bound=0.1), result)
    assert verdict.status == "not_assessable"
    assert verdict.left_out == (
        "a: 10 rows < minimum 30; rest: 12 rows (the denominator of the selection rate) < minimum 30",
        "b: 12 rows < minimum 30; rest: 10 rows (the denominator of the selection rate) < minimum 30")
    assert "could not be assessed" in verdict.sentence and "Not assessed: a: 10 rows < minimum 30" in verdict.sentence
    assert fc.summarize_verdicts([verdict]).attrs["counts"]["not_assessable"] == 1


def test_the_exit_status_judges_the_model_and_not_the_labels_unless_asked():
    rng = np.random.default_rng(5)
    n = 4000
    frame = pd.DataFrame({"g": rng.choice(["a", "b"], n)})
    frame["y"] = (rng.random(n) < np.where(frame["g"] == "a", 0.15, 0.6)).astype(int)   # base rates 0.15 vs 0.6
    frame["s"] = np.clip(frame["y"] * 0.5 + rng.random(n) * 0.5, 0, 1)
    review = fc.build_review(frame, fc.ReviewConfig(mapping=fc.ColumnMapping(label="y", positive_label=1,
                                                                             scores=("s",), protected=("g",)),
                                                    n_boot=200))
    assert [v.status for v in review.dataset_verdicts] == ["fail"]
    model_fails = any(v.status == "fail" for m in review.models for v in m.verdicts)
    assert review.exit_status() == int(model_fails)
    assert review.exit_status(labels=True) == 1
