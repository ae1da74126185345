"""p% score, equal opportunity score and correlation score (scikit-lego), against plain pandas."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy.stats import pearsonr

import fairness_core as fc
from fairness_core._metrics.ratio_scores import (
    BOTH_ZERO_NOTE,
    CORRELATION_TYPE_MESSAGE,
    ONE_ZERO_NOTE,
    SENSITIVE_MESSAGE,
)

TOL = 1e-12
RATIO_TABLE_COLUMNS = ["subgroup", "size", "reference_size", "subgroup_value", "reference_value", "score", "small",
                       "note", "small_reason"]


def literal_ratio(a: float, b: float) -> float:
    """The contract's rule: both 0 -> 1, one 0 -> 0, an undefined side -> NaN, else min(a/b, b/a)."""
    if math.isnan(a) or math.isnan(b):
        return float("nan")
    if a == 0 and b == 0:
        return 1.0
    if a == 0 or b == 0:
        return 0.0
    return min(a / b, b / a)


# --------------------------------------------------------------------------------------------
# Hand cases
# --------------------------------------------------------------------------------------------


def test_p_percent_hand_case_with_exact_fractions():
    # Group 0: 2 of 3 positive; group 1: 1 of 4.
    y_pred = [1, 1, 0, 1, 0, 0, 0]
    sensitive = [0, 0, 0, 1, 1, 1, 1]
    result = fc.p_percent_score(y_pred, sensitive)
    assert result.value == pytest.approx(float(Fraction(1, 4) / Fraction(2, 3)), abs=TOL)
    assert (result.rate_0, result.rate_1) == (pytest.approx(2 / 3), 0.25)
    assert (result.size_0, result.size_1, result.rate, result.note) == (3, 4, "selection_rate", "")
    assert float(result) == result.value
    # Symmetric in the groups; bool and float attributes are the same attribute.
    swapped = fc.p_percent_score(y_pred, [1 - s for s in sensitive])
    assert swapped.value == result.value and (swapped.rate_0, swapped.rate_1) == (result.rate_1, result.rate_0)
    assert fc.p_percent_score(y_pred, np.array(sensitive, dtype=bool)).value == result.value
    assert fc.p_percent_score(y_pred, np.array(sensitive, dtype=float)).value == result.value


def test_p_percent_positive_target():
    y_pred = np.array(["yes", "no", "yes", "yes"], dtype=object)
    result = fc.p_percent_score(y_pred, [0, 0, 1, 1], positive_target="yes")
    assert (result.rate_0, result.rate_1, result.value) == (0.5, 1.0, 0.5)


def test_ratio_rules_both_zero_one_zero_empty():
    both = fc.p_percent_score([0, 0, 0, 0], [0, 0, 1, 1])
    assert both.value == 1.0 and both.note == BOTH_ZERO_NOTE.format(rate="selection rate")
    one = fc.p_percent_score([1, 0, 0, 0], [0, 0, 1, 1])
    assert one.value == 0.0 and one.note == ONE_ZERO_NOTE.format(rate="selection rate")
    empty = fc.p_percent_score([1, 0, 0], [0, 0, 0])
    assert math.isnan(empty.value) and empty.size_1 == 0 and math.isnan(empty.rate_1)
    assert "sensitive == 1" in empty.note and "no rows" in empty.note
    # Equal opportunity: group 1 has no positive examples at all.
    eo = fc.equal_opportunity_score([1, 1, 0, 0], [1, 0, 1, 1], [0, 0, 1, 1])
    assert math.isnan(eo.value) and (eo.size_0, eo.size_1) == (2, 0)
    assert "sensitive == 1" in eo.note and "no positive examples" in eo.note


def test_equal_opportunity_hand_case():
    # Positives: group 0 rows 0-2 (predicted 1, 1, 0) -> 2/3; group 1 rows 4-7 (1, 0, 0, 0) -> 1/4.
    y_true = [1, 1, 1, 0, 1, 1, 1, 1, 0]
    y_pred = [1, 1, 0, 1, 1, 0, 0, 0, 1]
    sensitive = [0, 0, 0, 0, 1, 1, 1, 1, 1]
    result = fc.equal_opportunity_score(y_true, y_pred, sensitive)
    assert result.value == pytest.approx(float(Fraction(1, 4) / Fraction(2, 3)), abs=TOL)
    assert (result.size_0, result.size_1, result.rate) == (3, 4, "true_positive_rate")
    # Negatives do not matter.
    flipped = list(y_pred)
    flipped[3], flipped[8] = 0, 0
    assert fc.equal_opportunity_score(y_true, flipped, sensitive).value == result.value


def test_sensitive_must_be_binary():
    message = SENSITIVE_MESSAGE.format(func="p_percent_score", got="'a', 'b', 'c'", rate="selection_rate")
    with pytest.raises(ValueError, match=re.escape(message)):
        fc.p_percent_score([1, 0, 1], ["a", "b", "c"])
    assert "Tip:" in message and "ratio_scores" in message
    with pytest.raises(ValueError, match=re.escape("'sensitive' parameter of equal_opportunity_score")):
        fc.equal_opportunity_score([1, 1], [1, 0], [0, 2])
    with pytest.raises(ValueError, match="'sensitive' has 2 rows but 'y_pred' has 3"):
        fc.p_percent_score([1, 0, 1], [0, 1])


# --------------------------------------------------------------------------------------------
# ConfusionCounts.ratio_scores: many-valued attributes, each subgroup against the rest
# --------------------------------------------------------------------------------------------


def test_ratio_scores_hand_case():
    y = [1, 1, 1, 1, 0, 0]
    p = [1, 0, 1, 1, 1, 0]
    g = ["a", "a", "b", "b", "c", "c"]
    result = fc.confusion_counts(y, p, g).ratio_scores("true_positive_rate")
    assert list(result.table.columns) == RATIO_TABLE_COLUMNS
    # a: 1/2 vs rest 2/2; b: 2/2 vs rest 1/2; c: no positives -> NaN.
    assert list(result.table["score"].iloc[:2]) == [0.5, 0.5] and math.isnan(result.table["score"].iloc[2])
    assert "no positive examples" in result.table["note"].iloc[2]
    assert (result.value, result.worst, result.n_used, result.n_undefined, result.n_small_excluded) == (
        0.5, "a", 2, 1, 0)
    with pytest.raises(ValueError, match="'rate' parameter of ConfusionCounts.ratio_scores"):
        fc.confusion_counts(y, p, g).ratio_scores("false_positive_rate")


# --------------------------------------------------------------------------------------------
# COMPAS
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compas_rows(compas):
    return pd.DataFrame({
        "y": compas["two_year_recid"].to_numpy(),
        "p": (compas["decile_score"] >= 5).astype(int).to_numpy(),
        "female": compas["sex"].map({"Male": 0, "Female": 1}).to_numpy(),
        "race": compas["race"].to_numpy(),
    })


def test_compas_p_percent_on_sex(compas_rows):
    rates = compas_rows.groupby("female")["p"].mean()
    expected = min(rates[1] / rates[0], rates[0] / rates[1])
    result = fc.p_percent_score(compas_rows["p"], compas_rows["female"])
    assert result.value == pytest.approx(expected, abs=TOL)
    assert (result.rate_0, result.rate_1) == (pytest.approx(rates[0], abs=TOL), pytest.approx(rates[1], abs=TOL))
    assert (result.size_0, result.size_1) == (5819, 1395)
    # Against the many-valued path on the raw Male / Female values: the two comparisons are the same split.
    summary = fc.confusion_counts(compas_rows["y"], compas_rows["p"], compas_rows["female"].map(
        {0: "Male", 1: "Female"})).ratio_scores("selection_rate")
    assert summary.value == pytest.approx(expected, abs=TOL)


def test_compas_equal_opportunity_on_sex(compas_rows):
    positives = compas_rows[compas_rows["y"] == 1]
    tpr = positives.groupby("female")["p"].mean()
    expected = min(tpr[1] / tpr[0], tpr[0] / tpr[1])
    result = fc.equal_opportunity_score(compas_rows["y"], compas_rows["p"], compas_rows["female"])
    assert result.value == pytest.approx(expected, abs=TOL)
    assert (result.size_0, result.size_1) == tuple(positives["female"].value_counts().sort_index())


@pytest.mark.parametrize("include_small", [False, True])
@pytest.mark.parametrize("rate", ["selection_rate", "true_positive_rate"])
def test_compas_ratio_scores_on_race(compas_rows, compas, rate, include_small):
    groups = fc.Subgroups.from_attributes(compas, ["race"], min_size=30)
    result = fc.confusion_counts(compas_rows["y"], compas_rows["p"], groups).ratio_scores(
        rate, include_small=include_small)
    rows = []
    for g in sorted(compas_rows["race"].unique()):
        own, rest = compas_rows[compas_rows["race"] == g], compas_rows[compas_rows["race"] != g]
        if rate == "true_positive_rate":
            a, b = own.loc[own["y"] == 1, "p"].mean(), rest.loc[rest["y"] == 1, "p"].mean()
        else:
            a, b = own["p"].mean(), rest["p"].mean()
        # Small: fewer than 30 rows, or fewer than 30 in the rate's denominator (actual positives for TPR).
        den = int((own["y"] == 1).sum()) if rate == "true_positive_rate" else len(own)
        rows.append((g, len(own), len(rest), a, b, literal_ratio(a, b), len(own) < 30 or 0 < den < 30))
    expected = pd.DataFrame(rows, columns=RATIO_TABLE_COLUMNS[:-2])
    for col in ("subgroup", "size", "reference_size", "small"):
        assert list(result.table[col]) == list(expected[col])
    for col in ("subgroup_value", "reference_value", "score"):
        np.testing.assert_allclose(result.table[col], expected[col], rtol=0, atol=TOL)
    used = expected if include_small else expected[~expected["small"]]
    best = used.loc[used["score"].idxmin()]
    assert result.value == pytest.approx(best["score"], abs=TOL) and result.worst == best["subgroup"]
    assert (result.n_used, result.n_small_excluded) == (len(used), 0 if include_small else int(expected["small"].sum()))
    assert float(result) == result.value


def test_compas_correlation_score(compas):
    expected = -abs(np.corrcoef(compas["decile_score"], compas["age"])[0, 1])
    got = fc.correlation_score(compas["decile_score"], compas["age"])
    assert got == pytest.approx(expected, abs=TOL)
    assert got == pytest.approx(-abs(pearsonr(compas["decile_score"], compas["age"]).statistic), abs=TOL)
    assert got < -0.3  # younger defendants get higher scores
    # A boolean column is read as 0/1.
    female = compas["sex"] == "Female"
    assert fc.correlation_score(compas["decile_score"], female) == pytest.approx(
        -abs(np.corrcoef(compas["decile_score"], female.astype(int))[0, 1]), abs=TOL)


def test_correlation_score_edge_cases():
    assert fc.correlation_score([1, 2, 3], [3, 2, 1]) == -1.0
    assert fc.correlation_score([1.0, 2.0, 3.0, 4.0], [1.0, 3.0, 2.0, 4.0]) == pytest.approx(-0.8, abs=TOL)
    assert fc.correlation_score([1, 0, 1, 0], [1, 1, 0, 0]) == 0.0
    # Constant input: undefined, and no warning escapes (warnings are errors here).
    assert math.isnan(fc.correlation_score([1, 1, 1], [0, 1, 2]))
    assert math.isnan(fc.correlation_score([0, 1, 2], [5, 5, 5]))
    assert math.isnan(fc.correlation_score([1], [2]))
    with pytest.raises(TypeError, match=re.escape(CORRELATION_TYPE_MESSAGE.format(param="column", dtype="object"))):
        fc.correlation_score([1, 0], np.array(["a", "b"], dtype=object))
    assert "Tip:" in CORRELATION_TYPE_MESSAGE
    with pytest.raises(ValueError, match="missing or infinite"):
        fc.correlation_score([1.0, 0.0, 2.0], [1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match="'column' has 2 rows but 'y_pred_or_score' has 3"):
        fc.correlation_score([1, 0, 2], [1, 0])
