"""Class-wise bias (audmetric), against scikit-learn and literal loops.

Real cases: COMPAS as a 3-class problem (prediction ``score_text`` Low / Medium / High against a
truth derived here: High = violent recidivism within two years, Medium = other two-year
recidivism, Low = none), and COMPAS as a binary one (``two_year_recid`` against
``decile_score >= 5``).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import confusion_matrix, f1_score, precision_score, recall_score

import fairness_core as fc
from fairness_core._data.checks import OPTION_MESSAGE
from fairness_core._metrics.classwise import (
    DIFFERENCE_MESSAGE,
    LABELS_DUPLICATE_MESSAGE,
    LABELS_TYPE_MESSAGE,
    LENGTH_MESSAGE,
    METRIC_RESULT_MESSAGE,
    METRIC_TYPE_MESSAGE,
    REDUCTION_TYPE_MESSAGE,
    SUBGROUPS_UNKNOWN_MESSAGE,
)

TOL = 1e-12
SKLEARN = {"recall": recall_score, "precision": precision_score, "fscore": f1_score}


# --------------------------------------------------------------------------------------------
# Literal re-implementations
# --------------------------------------------------------------------------------------------


def literal_score(rows, label, metric):
    """Recall, precision or F of one class on (truth, prediction) pairs, from the definitions."""
    tp = sum(1 for t, p in rows if t == label and p == label)
    n_true = sum(1 for t, _ in rows if t == label)
    n_pred = sum(1 for _, p in rows if p == label)
    num, den = {"recall": (tp, n_true), "precision": (tp, n_pred), "fscore": (2 * tp, n_true + n_pred)}[metric]
    return num / den if den else math.nan


def literal_uab(truth, prediction, groups, labels, subgroups, metric, reduction):
    """audmetric's algorithm written out: per class, reduce the defined subgroup scores; average."""
    scores = {}
    for g in subgroups:
        rows = [(t, p) for t, p, h in zip(truth, prediction, groups) if h == g and t in labels and p in labels]
        scores[g] = {c: literal_score(rows, c, metric) for c in labels}
    total, used = 0.0, 0
    for c in labels:
        values = [scores[g][c] for g in subgroups if not math.isnan(scores[g][c])]
        if len(values) > 1:
            if reduction == "std":
                mean = sum(values) / len(values)
                total += math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
            elif reduction == "difference":
                total += values[0] - values[1]
            else:
                total += reduction(values)
            used += 1
    return total / used if used else math.nan


def same(a, b, tol=TOL):
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


# --------------------------------------------------------------------------------------------
# audmetric's documented examples
# --------------------------------------------------------------------------------------------


def test_seed_examples():
    assert fc.unweighted_average_bias([1, 1], [1, 0], ["male", "female"]).value == 0.5
    reverse = fc.unweighted_average_bias([1, 1], [1, 0], ["male", "female"], subgroups=["female", "male"],
                                         reduction=lambda x: x[0] - x[1])
    assert reverse.value == -1.0
    assert math.isnan(fc.unweighted_average_bias([0, 1], [1, 0], ["male", "female"], metric="recall").value)
    assert fc.unweighted_average_bias([0, 0, 0, 0], [1, 1, 0, 0], ["a", "b", "c", "d"], metric="recall").value == 0.5


def test_seed_example_details():
    result = fc.unweighted_average_bias([1, 1], [1, 0], ["male", "female"])
    assert float(result) == 0.5 and isinstance(result.value, float)
    assert (result.metric, result.reduction, result.subgroups) == ("fscore", "std", ("female", "male"))
    # Class 0: female F = 0 (predicted once, never true), male undefined -> skipped.
    # Class 1: female F = 0 (true, never predicted: 0, not NaN), male F = 1 -> std 0.5.
    per_class = result.per_class
    assert list(per_class.columns) == ["class", "value", "n_subgroups", "note"]
    assert list(per_class["class"]) == [0, 1] and list(per_class["n_subgroups"]) == [1, 2]
    assert math.isnan(per_class["value"][0]) and "skipped" in per_class["note"][0]
    assert per_class["value"][1] == 0.5 and per_class["note"][1] == ""
    table = result.table
    assert list(table["subgroup"]) == ["female", "female", "male", "male"]
    assert table["score"].tolist()[:2] == [0.0, 0.0] and math.isnan(table["score"][2]) and table["score"][3] == 1.0
    assert table["used"].tolist() == [False, True, False, True]
    nan_result = fc.unweighted_average_bias([0, 1], [1, 0], ["male", "female"], metric="recall")
    assert nan_result.n_classes_used == 0 and "no class" in nan_result.reason


# --------------------------------------------------------------------------------------------
# Per-(subgroup, class) scores against scikit-learn
# --------------------------------------------------------------------------------------------


def assert_table_matches_sklearn(table, truth, prediction, groups, labels):
    truth, prediction, groups = np.asarray(truth, object), np.asarray(prediction, object), np.asarray(groups, object)
    counted = np.isin(truth, labels) & np.isin(prediction, labels)
    for _, row in table.iterrows():
        mask = (groups == row["subgroup"]) & counted
        t, p = truth[mask], prediction[mask]
        assert row["size"] == mask.sum()
        assert row["n_true"] == (t == row["class"]).sum() and row["n_predicted"] == (p == row["class"]).sum()
        assert row["tp"] == ((t == row["class"]) & (p == row["class"])).sum()
        for metric, fn in SKLEARN.items():
            expected = (fn(t.tolist(), p.tolist(), labels=[row["class"]], average=None, zero_division=np.nan)[0]
                        if len(t) else np.nan)
            assert same(row[metric], float(expected)), (row["subgroup"], row["class"], metric)
            assert np.isnan(row[metric]) == (f"{metric} undefined" in row["note"])


@pytest.fixture(scope="module")
def random_case():
    """Four string classes, three subgroups; subgroup 'z' never has class 'd' and never predicts 'c'."""
    rng = np.random.default_rng(7)
    n = 400
    groups = rng.choice(["x", "y", "z"], n, p=[0.5, 0.4, 0.1])
    truth = rng.choice(list("abcd"), n)
    prediction = np.where(rng.random(n) < 0.6, truth, rng.choice(list("abcd"), n))
    z = groups == "z"
    truth[z & (truth == "d")] = "a"
    prediction[z & (prediction == "c")] = "b"
    return list(truth), list(prediction), list(groups)


def test_table_matches_sklearn_per_subgroup_and_class(random_case):
    truth, prediction, groups = random_case
    counts = fc.class_counts(truth, prediction, groups)
    assert counts.labels == ["a", "b", "c", "d"] and counts.names == ["x", "y", "z"]
    table = counts.table()
    assert list(table.columns) == ["subgroup", "class", "size", "n_true", "n_predicted", "tp", "recall",
                                   "precision", "fscore", "small", "small_reason", "note"]
    assert len(table) == 12 and not table["small"].any() and (table["small_reason"] == "").all()
    assert_table_matches_sklearn(table, truth, prediction, groups, counts.labels)
    z = table[table["subgroup"] == "z"].set_index("class")
    assert math.isnan(z.loc["d", "recall"]) and z.loc["d", "fscore"] == 0.0  # never true, sometimes predicted
    assert math.isnan(z.loc["c", "precision"]) and z.loc["c", "fscore"] == 0.0  # true, never predicted
    for j, g in enumerate(counts.names):
        mask = np.asarray(groups) == g
        expected = confusion_matrix(np.asarray(truth)[mask], np.asarray(prediction)[mask], labels=counts.labels)
        np.testing.assert_array_equal(counts.member[j], expected)
    np.testing.assert_array_equal(counts.overall, confusion_matrix(truth, prediction, labels=counts.labels))


@pytest.mark.parametrize("metric", ["fscore", "recall", "precision"])
@pytest.mark.parametrize("reduction", ["std", "difference", "callable"])
def test_uab_matches_literal_loop(random_case, metric, reduction):
    truth, prediction, groups = random_case
    spread = lambda x: max(x) - min(x)  # noqa: E731
    red = spread if reduction == "callable" else reduction
    subgroups = ["z", "x"] if reduction == "difference" else ["x", "y", "z"]
    result = fc.unweighted_average_bias(truth, prediction, groups, metric=metric, reduction=red,
                                        subgroups=None if reduction != "difference" else subgroups)
    expected = literal_uab(truth, prediction, groups, ["a", "b", "c", "d"], subgroups, metric, red)
    assert same(result.value, expected)
    assert result.subgroups == tuple(subgroups)
    counts = fc.class_counts(truth, prediction, groups)
    via_counts = counts.unweighted_average_bias(metric=metric, reduction=red, subgroups=subgroups)
    assert same(via_counts.value, result.value)
    pd.testing.assert_frame_equal(via_counts.per_class, result.per_class)


def test_callable_metric_equals_the_builtin(random_case):
    truth, prediction, groups = random_case
    calls = []

    def sklearn_recall(t, p, labels):
        calls.append(len(t))
        return dict(zip(labels, recall_score(t, p, labels=labels, average=None, zero_division=np.nan)))

    by_callable = fc.unweighted_average_bias(truth, prediction, groups, metric=sklearn_recall)
    builtin = fc.unweighted_average_bias(truth, prediction, groups, metric="recall")
    assert same(by_callable.value, builtin.value) and by_callable.metric == "sklearn_recall"
    assert calls == [int((np.asarray(groups) == g).sum()) for g in ["x", "y", "z"]]  # once per subgroup
    np.testing.assert_allclose(by_callable.table["score"], builtin.table["score"], rtol=0, atol=TOL)
    partial = fc.unweighted_average_bias(truth, prediction, groups, metric=lambda t, p, labels: {"a": 0.5})
    assert partial.value == 0.0 and partial.n_classes_used == 1  # classes without a score are undefined
    with pytest.raises(TypeError, match=re.escape(METRIC_RESULT_MESSAGE.format(
            func="unweighted_average_bias", got="list")[:60])):
        fc.unweighted_average_bias(truth, prediction, groups, metric=lambda t, p, labels: [0.5])


def test_subgroups_select_and_order(random_case):
    truth, prediction, groups = random_case
    ab = fc.unweighted_average_bias(truth, prediction, groups, subgroups=["y", "x"], reduction="difference")
    ba = fc.unweighted_average_bias(truth, prediction, groups, subgroups=["x", "y"], reduction="difference")
    assert ab.value == pytest.approx(-ba.value, abs=TOL) and ab.value != 0
    assert list(ab.table["subgroup"].unique()) == ["y", "x"]
    with pytest.raises(ValueError, match=re.escape(DIFFERENCE_MESSAGE.split("{")[0])) as info:
        fc.unweighted_average_bias(truth, prediction, groups, reduction="difference")
    assert "3 take part" in str(info.value) and "Tip: pass subgroups=[a, b]" in str(info.value)
    with pytest.raises(ValueError) as info:
        fc.unweighted_average_bias(truth, prediction, groups, subgroups=["x", "w", "v"])
    assert str(info.value) == SUBGROUPS_UNKNOWN_MESSAGE.format(
        func="unweighted_average_bias", unknown="'w', 'v'", names="'x', 'y', 'z'")
    with pytest.raises(ValueError, match="each subgroup once"):
        fc.unweighted_average_bias(truth, prediction, groups, subgroups=["x", "x"])
    with pytest.raises(TypeError, match="list of subgroup names"):
        fc.unweighted_average_bias(truth, prediction, groups, subgroups="x")
    # Numeric attribute values match their labels.
    numeric = fc.unweighted_average_bias([1, 1], [1, 0], [2, 1], subgroups=[1, 2], reduction=lambda x: x[0] - x[1])
    assert numeric.value == -1.0 and numeric.subgroups == ("1", "2")


# --------------------------------------------------------------------------------------------
# Labels, missing values, small subgroups
# --------------------------------------------------------------------------------------------


def test_given_labels_order_and_rows_outside_them():
    truth = ["a", "b", "c", "a", "b", "c", "a", None]
    prediction = ["a", "c", "c", "b", "b", "a", "a", "a"]
    groups = ["g", "g", "g", "h", "h", "h", "h", "h"]
    counts = fc.class_counts(truth, prediction, groups, labels=["b", "a"])
    assert counts.labels == ["b", "a"]
    # Rows left out: g: (b, c), (c, c); h: (c, a), (None, a) -> 2 + 2.
    assert counts.n_excluded == 4 and counts.excluded.tolist() == [2.0, 2.0]
    assert counts.sizes.tolist() == [1.0, 3.0]
    table = counts.table()
    assert list(table["class"]) == ["b", "a", "b", "a"]
    assert_table_matches_sklearn(table, truth, prediction, groups, ["b", "a"])
    result = fc.unweighted_average_bias(truth, prediction, groups, labels=["b", "a"], metric="recall")
    assert result.n_excluded == 4
    assert same(result.value, literal_uab(truth, prediction, groups, ["b", "a"], ["g", "h"], "recall", "std"))


def test_inferred_labels_skip_missing_values_and_sort_mixed_types():
    counts = fc.class_counts([1, "x", np.nan, 2], [1, "x", 2, None], ["g"] * 4)
    assert counts.labels == [1, 2, "x"]  # ints and strings sorted by their text
    assert counts.n_excluded == 2 and counts.sizes.tolist() == [2.0]
    ints = fc.class_counts(pd.Series([3, 1, 2]), np.array([1, 1, 3]), pd.Series(["a", "b", "c"]))
    assert ints.labels == [1, 2, 3] and ints.table()["class"].dtype == np.int64


def test_small_subgroups_take_part_only_when_asked(random_case):
    truth, prediction, groups = random_case
    frame = pd.DataFrame({"g": groups})
    sub = fc.Subgroups.from_attributes(frame, ["g"], min_size=60)  # z has about 40 rows
    sizes = frame["g"].value_counts()
    assert sizes["z"] < 60 <= sizes["y"]
    strict = fc.unweighted_average_bias(truth, prediction, sub)
    loose = fc.unweighted_average_bias(truth, prediction, sub, include_small=True)
    assert strict.subgroups == ("x", "y") and loose.subgroups == ("x", "y", "z")
    labels = ["a", "b", "c", "d"]
    assert same(strict.value, literal_uab(truth, prediction, groups, labels, ["x", "y"], "fscore", "std"))
    assert same(loose.value, literal_uab(truth, prediction, groups, labels, ["x", "y", "z"], "fscore", "std"))
    z_rows = strict.table[strict.table["subgroup"] == "z"]
    assert z_rows["small"].all() and not z_rows["used"].any()
    # With the small subgroup out, 'difference' has exactly two subgroups.
    diff = fc.unweighted_average_bias(truth, prediction, sub, reduction="difference")
    assert same(diff.value, literal_uab(truth, prediction, groups, labels, ["x", "y"], "fscore", "difference"))


def test_overlapping_indicator_subgroups():
    frame = pd.DataFrame({"u": [1, 1, 1, 0, 0, np.nan], "v": [0, 1, 1, 1, 1, 1]})
    sub = fc.Subgroups.from_indicators(frame, ["u", "v"], min_size=1)
    truth = ["a", "b", "a", "b", "a", "b"]
    prediction = ["a", "a", "a", "b", "b", "b"]
    table = fc.class_counts(truth, prediction, sub).table()
    assert table["size"].tolist() == [3, 3, 5, 5]
    for j, name in enumerate(["u", "v"]):
        mask = sub.membership[:, j]
        t, p = np.asarray(truth)[mask], np.asarray(prediction)[mask]
        got = table[table["subgroup"] == name]
        np.testing.assert_allclose(got["recall"], recall_score(t, p, labels=["a", "b"], average=None), atol=TOL)


# --------------------------------------------------------------------------------------------
# COMPAS
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compas_3class(compas):
    truth = np.where(compas["two_year_recid"] == 0, "Low",
                     np.where(compas["is_violent_recid"] == 1, "High", "Medium"))
    return list(truth), compas["score_text"].tolist(), compas["race"].tolist()


def test_compas_three_classes_match_sklearn_and_literal(compas_3class):
    truth, prediction, race = compas_3class
    labels = ["Low", "Medium", "High"]
    counts = fc.class_counts(truth, prediction, race, labels=labels)
    assert counts.n_excluded == 0 and counts.sizes.sum() == 7214
    assert_table_matches_sklearn(counts.table(), truth, prediction, race, labels)
    names = sorted(set(race))
    for metric in ("fscore", "recall", "precision"):
        result = fc.unweighted_average_bias(truth, prediction, race, labels=labels, metric=metric)
        assert same(result.value, literal_uab(truth, prediction, race, labels, names, metric, "std"))
        assert result.n_classes_used == 3 and list(result.per_class["class"]) == labels
    pair = fc.unweighted_average_bias(truth, prediction, race, labels=labels, metric="recall",
                                      subgroups=["African-American", "Caucasian"], reduction="difference")
    expected = literal_uab(truth, prediction, race, labels, ["African-American", "Caucasian"], "recall", "difference")
    assert same(pair.value, expected) and pair.value != 0


def test_compas_small_subgroup_with_subgroups_object(compas, compas_3class):
    truth, prediction, race = compas_3class
    sub = fc.Subgroups.from_attributes(compas, ["race"])  # min_size 30: Native American (18) is small
    result = fc.unweighted_average_bias(truth, prediction, sub)
    names = [n for n in sorted(set(race)) if n != "Native American"]
    assert result.subgroups == tuple(names)
    assert same(result.value, literal_uab(truth, prediction, race, ["High", "Low", "Medium"], names, "fscore", "std"))


def test_compas_binary_recall_is_the_true_positive_rate(compas):
    y = compas["two_year_recid"].to_numpy()
    p = (compas["decile_score"] >= 5).astype(int).to_numpy()
    sex = compas["sex"]
    table = fc.class_counts(y, p, sex).table()
    rates = fc.group_rates(y, p, sex).set_index("subgroup")
    positive = table[table["class"] == 1].set_index("subgroup")
    negative = table[table["class"] == 0].set_index("subgroup")
    np.testing.assert_allclose(positive["recall"], rates.loc[positive.index, "true_positive_rate"], atol=TOL)
    np.testing.assert_allclose(negative["recall"], 1 - rates.loc[negative.index, "false_positive_rate"], atol=TOL)
    assert_table_matches_sklearn(table, y.tolist(), p.tolist(), sex.tolist(), [0, 1])
    result = fc.unweighted_average_bias(y, p, sex, subgroups=["Female", "Male"], reduction="difference")
    expected = literal_uab(y.tolist(), p.tolist(), sex.tolist(), [0, 1], ["Female", "Male"], "fscore", "difference")
    assert same(result.value, expected)


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------


def test_errors_name_the_parameter():
    func = "unweighted_average_bias"
    with pytest.raises(ValueError) as info:
        fc.unweighted_average_bias([1, 0], [1], ["a", "b"])
    assert str(info.value) == LENGTH_MESSAGE.format(func=func, param="prediction", got=1, expected=2)
    with pytest.raises(ValueError) as info:
        fc.unweighted_average_bias([1, 0], [1, 0], ["a"])
    assert str(info.value) == LENGTH_MESSAGE.format(func=func, param="protected", got=1, expected=2)
    with pytest.raises(ValueError) as info:
        fc.unweighted_average_bias([1, 0], [1, 0], ["a", "b"], metric="accuracy")
    assert str(info.value) == OPTION_MESSAGE.format(param="metric", func=func,
                                                    allowed=["recall", "precision", "fscore"], got="accuracy")
    with pytest.raises(TypeError) as info:
        fc.unweighted_average_bias([1, 0], [1, 0], ["a", "b"], metric=3)
    assert str(info.value) == METRIC_TYPE_MESSAGE.format(func=func, got="3")
    with pytest.raises(ValueError, match="'reduction' parameter"):
        fc.unweighted_average_bias([1, 0], [1, 0], ["a", "b"], reduction="mean")
    with pytest.raises(TypeError) as info:
        fc.unweighted_average_bias([1, 0], [1, 0], ["a", "b"], reduction=None)
    assert str(info.value) == REDUCTION_TYPE_MESSAGE.format(func=func, got="None")
    with pytest.raises(TypeError) as info:
        fc.unweighted_average_bias([1, 0], [1, 0], ["a", "b"], labels="ab")
    assert str(info.value) == LABELS_TYPE_MESSAGE.format(func=func, got="ab")
    with pytest.raises(ValueError) as info:
        fc.class_counts([1, 0], [1, 0], ["a", "b"], labels=[0, 1, 0])
    assert str(info.value) == LABELS_DUPLICATE_MESSAGE.format(func="class_counts", dups="0")
    with pytest.raises(ValueError, match="one-dimensional"):
        fc.class_counts([[1, 0]], [[1, 0]], ["a"])
    with pytest.raises(ValueError, match="'metric' parameter of ClassCounts.unweighted_average_bias"):
        fc.class_counts([1], [1], ["a"]).unweighted_average_bias(metric="accuracy")


def test_no_rows_gives_nan_with_a_reason():
    result = fc.unweighted_average_bias([], [], [])
    assert math.isnan(result.value) and result.reason.startswith("no class") and result.per_class.empty
    counts = fc.class_counts([None, None], ["a", "b"], ["g", "h"])  # every truth missing
    assert counts.n_excluded == 2 and counts.table()["size"].tolist() == [0, 0, 0, 0]
    assert counts.table()[["recall", "precision", "fscore"]].isna().all().all()
